"""``import carla`` as sensim.carla: this folder on PYTHONPATH (``python3 -m sensim.carla --shim-dir``)."""
import sys

import sensim.carla as _carla

sys.modules[__name__] = _carla
sys.modules[__name__ + ".command"] = _carla.command
