"""A folder holding ``carla.py`` (``python3 -m sensim.carla --shim-dir`` prints it): on PYTHONPATH, a
script's ``import carla`` is sensim.carla."""
