"""A vehicle and its sensors on CARLA's native ROS 2, in the shape of CARLA's
PythonAPI/examples/ros2/ros2_native.py: the vehicle "hero" and its sensors come from a JSON file
(carla_ros2_stack.json, CARLA's stack.json layout), each sensor's ros_name is its id and it is
enabled for ROS; the vehicle drives on autopilot in a synchronous world at 20 Hz, or under the
control a ROS 2 stack sends on /carla/hero/vehicle_control_cmd. Topics: /carla/hero/rgb/image,
/carla/hero/rgb/camera_info, /carla/hero/lidar, /carla/hero/gnss, /carla/hero/imu,
/carla/hero/odometry, /clock, /tf (docs/ros2.md). Run it as a CARLA script:

    python3 -m sensim.carla --ros2 --scene town carla_ros2_native.py -f carla_ros2_stack.json

and see the topics with `ros2 topic list` (ROS_DOMAIN_ID as for any ROS 2 node). Until Ctrl+C;
--frames N stops after N ticks (the suite runs it so).

usage: carla_ros2_native.py -f FILE [--frames N] [--host H] [--port P] [-v]"""
import argparse
import json
import logging

try:
    import carla  # sensim.carla under `python3 -m sensim.carla`
except ImportError:  # imported by a script that is not run by the runner (bench/carla_ros2_soak.py)
    import sensim.carla as carla


def _spawn_point(sp):
    # CARLA's example converts the file's right-handed pose into CARLA's frame the same way
    return carla.Transform(carla.Location(x=sp["x"], y=-sp["y"], z=sp["z"]),
                           carla.Rotation(roll=sp["roll"], pitch=-sp["pitch"], yaw=-sp["yaw"]))


def spawn_stack(world, config):
    """The vehicle of @p config (role_name and ros_name its id) at the map's first spawn point, and its
    sensors attached and enabled for ROS: [vehicle, sensors...]."""
    bl = world.get_blueprint_library()
    bp = bl.filter(config["type"])[0]
    bp.set_attribute("role_name", config["id"])
    bp.set_attribute("ros_name", config["id"])
    actors = [world.spawn_actor(bp, world.get_map().get_spawn_points()[0])]
    for sensor in config["sensors"]:
        sbp = bl.filter(sensor["type"])[0]
        sbp.set_attribute("ros_name", sensor["id"])
        sbp.set_attribute("role_name", sensor["id"])
        for key, value in sensor["attributes"].items():
            sbp.set_attribute(str(key), str(value))
        actor = world.spawn_actor(sbp, _spawn_point(sensor["spawn_point"]), attach_to=actors[0])
        actor.enable_for_ros()
        actors.append(actor)
    return actors


def main(args):
    client = carla.Client(args.host, args.port)
    client.set_timeout(60.0)
    world = client.get_world()
    original = world.get_settings()
    settings = world.get_settings()
    settings.synchronous_mode, settings.fixed_delta_seconds = True, 0.05
    world.apply_settings(settings)
    tm = client.get_trafficmanager()
    tm.set_synchronous_mode(True)
    with open(args.file) as f:
        config = json.load(f)
    actors, frame = [], 0
    try:
        actors = spawn_stack(world, config)
        vehicle = actors[0]
        world.tick()
        vehicle.set_autopilot(True, tm.get_port())
        logging.info("Running...")
        while args.frames is None or frame < args.frames:
            world.tick()
            frame += 1
    except KeyboardInterrupt:
        print("\nCancelled by user. Bye!")
    finally:
        world.apply_settings(original)
        for a in reversed(actors):
            a.destroy()
    print("frames %d" % frame)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="localhost")
    parser.add_argument("--port", default=2000, type=int)
    parser.add_argument("-f", "--file", required=True, help="the vehicle and its sensors (JSON)")
    parser.add_argument("--frames", type=int, default=None, help="stop after this many ticks")
    parser.add_argument("-v", "--verbose", action="store_true")
    a = parser.parse_args()
    logging.basicConfig(format="%(levelname)s: %(message)s", level=logging.DEBUG if a.verbose else logging.INFO)
    main(a)
