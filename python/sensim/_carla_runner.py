"""python3 -m sensim.carla [--scene FILE] [--ros2] SCRIPT [ARGS...] | --shim-dir

Runs a CARLA script unmodified: its ``import carla`` (``from carla import ...``, ``import carla.command``)
resolves to sensim.carla, sys.argv is [SCRIPT, ARGS...], and the script's exit status is the runner's.
``--scene FILE`` is the world a script's ``client.get_world()`` gets (a scene file: OBJ, PLY, glTF, ...; an
OpenDRIVE .xodr; ``town``, the built-in grid of streets with junctions and traffic lights; default the
built-in street); it is passed to the script through SENSIM_CARLA_SCENE. ``--ros2`` is CARLA's server option:
the world's native ROS 2 (sensim.carla._carla_ros2) is on from the start (SENSIM_CARLA_ROS2=1), not only
from the first ``enable_for_ros``."""
import os
import runpy
import sys

USAGE = ("usage: python3 -m sensim.carla [--scene FILE] [--ros2] SCRIPT [ARGS...]\n"
         "       python3 -m sensim.carla --shim-dir     (a folder whose carla.py is sensim.carla)\n")


def shim_dir():
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "_shim")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    scene = None
    while argv and argv[0].startswith("-"):
        opt = argv.pop(0)
        if opt in ("-h", "--help"):
            sys.stdout.write(USAGE)
            return 0
        if opt == "--shim-dir":
            print(shim_dir())
            return 0
        if opt == "--scene" and argv:
            scene = argv.pop(0)
        elif opt.startswith("--scene="):
            scene = opt.split("=", 1)[1]
        elif opt == "--ros2":  # CARLA's server option: ROS 2 from the start (/clock, ego vehicles' control)
            os.environ["SENSIM_CARLA_ROS2"] = "1"
        else:
            sys.stderr.write("sensim.carla: unknown option %s\n%s" % (opt, USAGE))
            return 2
    if not argv:
        sys.stderr.write(USAGE)
        return 2
    script = argv[0]
    if not os.path.isfile(script):
        sys.stderr.write("sensim.carla: %s: no such script\n" % script)
        return 2
    if scene is not None:
        if scene not in ("street", "town") and not os.path.isfile(scene):
            sys.stderr.write("sensim.carla: --scene %s: no such file\n" % scene)
            return 2
        os.environ["SENSIM_CARLA_SCENE"] = scene
    import sensim.carla as carla
    sys.modules["carla"] = carla
    for name in ("command",):  # carla.command and friends, where sensim.carla offers them
        if hasattr(carla, name):
            sys.modules["carla." + name] = getattr(carla, name)
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))  # as `python3 SCRIPT` puts its folder first
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        sys.stderr.write("%s\n" % code)
        return 1
    return 0
