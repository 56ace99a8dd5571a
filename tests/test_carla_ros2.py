"""CARLA's native ROS 2 from sensim.carla (issue 68), seen by DDS participants that are not libsensim's: a
subscriber built on Cyclone DDS alone (tests/dds/ros2_sub.c, the ROS 2 types from tests/dds/ros2_msgs.idl
through idlc) and a control node on Cyclone alone (tests/dds/ros2_control_pub.c, carla_msgs'
CarlaEgoVehicleControl through idlc). A script in the shape of CARLA's PythonAPI/examples/ros2/ros2_native.py
(a vehicle "hero" and its sensors from a JSON file like CARLA's stack.json, ros_name set, enable_for_ros)
runs under `python3 -m sensim.carla --ros2`:

- the subscriber receives the lidar's PointCloud2, the camera's Image and CameraInfo, the IMU's Imu and the
  GNSS's NavSatFix under /carla/hero/<ros_name>, /clock, the hero's Odometry and /tf, each with the frame
  CARLA gives (the sensor's ros_name; the hero's odometry in odom);
- full throttle on /carla/hero/vehicle_control_cmd, each message padded to 100 kB (RTPS fragments it),
  drives the vehicle forward: the script sees the control arrive whole and the Odometry's x grows;
- the hero's carla_msgs CarlaEgoVehicleStatus every tick (frame map, its speed that of the odometry, the
  control echoed) and CarlaEgoVehicleInfo, published before the subscriber existed and received all the same
  (transient local);
- every writer's USER_DATA names its type's RIHS01 hash as Jazzy's rmw does ("typehash=RIHS01_...;", the hash
  from scripts/gen_ros2_msgdefs.py, which tests/test_ros2_typehash.py checks against published hashes);
- ackermann_msgs/AckermannDriveStamped on /carla/hero/ackermann_control_cmd (speed 4 m/s) drives the vehicle
  to that speed;
- with World.set_publish_tf(False) no /tf or /tf_static message appears while /clock does.

Discovery over loopback only (CYCLONEDDS_URI) on a domain of its own. Every wait is on a state a process
reports (ready, matched, a line of the script), with a deadline only as a guard.

Usage: test_carla_ros2.py ROS2_SUB CONTROL_PUB SOURCE_ROOT"""
import json
import os
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ros2_harness import Checks, Proc  # noqa: E402 (tests/: beside this file)

SUB, PUB, ROOT = sys.argv[1:4]
check = Checks()

SCRIPT = r'''
import json
import sys
import time
import carla

cfg = json.load(open(sys.argv[1]))
client = carla.Client("localhost", 2000)
world = client.get_world()
s = world.get_settings()
s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
world.apply_settings(s)
if cfg.get("no_tf"):
    world.set_publish_tf(False)
bl = world.get_blueprint_library()
bp = bl.find(cfg["type"])
bp.set_attribute("role_name", cfg["id"])
bp.set_attribute("ros_name", cfg["id"])
car = world.spawn_actor(bp, world.get_map().get_spawn_points()[0])
for sd in cfg["sensors"]:
    b = bl.find(sd["type"])
    b.set_attribute("ros_name", sd["id"])
    b.set_attribute("role_name", sd["id"])
    for k, v in sd["attributes"].items():
        b.set_attribute(k, str(v))
    sp = sd["spawn_point"]
    tr = carla.Transform(carla.Location(x=sp["x"], y=-sp["y"], z=sp["z"]),
                         carla.Rotation(roll=sp["roll"], pitch=-sp["pitch"], yaw=-sp["yaw"]))
    world.spawn_actor(b, tr, attach_to=car).enable_for_ros()
x0 = car.get_location().x
print("spawned", flush=True)
world.tick()  # every topic's writer exists after a first measurement
deadline = time.monotonic() + 120  # a guard: the wait is for the control to arrive
while cfg["control"] and car.get_control().throttle < 1.0 and car._control is None and time.monotonic() < deadline:
    world.tick()
print("control %.3f %s" % (car.get_control().throttle, type(car._control).__name__), flush=True)
sys.stdin.readline()  # the test's subscriber has matched every topic: drive
for _ in range(cfg["ticks"]):
    world.tick()
print("moved %.3f" % (car.get_location().x - x0), flush=True)
v = car.get_velocity()
print("speed %.6f" % (v.x * v.x + v.y * v.y) ** 0.5, flush=True)
print("tf_writers %d" % sum(t in world._ros._topics for t in ("/tf", "/tf_static")), flush=True)
sys.stdin.read()  # the test closes stdin when its subscriber has what it needs
'''

STACK = {"type": "vehicle.lincoln.mkz_2017", "id": "hero", "sensors": [
    {"type": "sensor.camera.rgb", "id": "rgb", "spawn_point": {"x": -4.5, "y": 0.0, "z": 2.5, "roll": 0.0,
                                                              "pitch": 20.0, "yaw": 0.0},
     "attributes": {"image_size_x": 64, "image_size_y": 48, "fov": 90.0}},
    {"type": "sensor.lidar.ray_cast", "id": "lidar", "spawn_point": {"x": 0.0, "y": 0.0, "z": 2.4, "roll": 0.0,
                                                                    "pitch": 0.0, "yaw": 0.0},
     "attributes": {"range": 85, "channels": 16, "points_per_second": 60000, "rotation_frequency": 20,
                    "upper_fov": 10, "lower_fov": -30}},
    {"type": "sensor.other.gnss", "id": "gnss", "spawn_point": {"x": 0.0, "y": 0.0, "z": 1.6, "roll": 0.0,
                                                               "pitch": 0.0, "yaw": 0.0}, "attributes": {}},
    {"type": "sensor.other.imu", "id": "imu", "spawn_point": {"x": 0.0, "y": 0.0, "z": 1.6, "roll": 0.0,
                                                             "pitch": 0.0, "yaw": 0.0}, "attributes": {}},
]}


def jsonl(path):
    return [json.loads(line) for line in open(path)] if os.path.exists(path) else []


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cyc = os.path.abspath(os.path.join(ROOT, "tests", "dds", "cyclonedds_loopback.xml"))
        env = dict(os.environ, CYCLONEDDS_URI="file://" + cyc, ROS_DOMAIN_ID=str(20 + os.getpid() % 70))
        env["PYTHONPATH"] = os.path.join(ROOT, "python")
        script = os.path.join(tmp, "ros2_native_shape.py")
        with open(script, "w") as f:
            f.write(SCRIPT)

        text_sub = ""

        def run(label, stack, topics, control, absent=()):
            cfg = os.path.join(tmp, label + ".json")
            with open(cfg, "w") as f:
                json.dump(dict(stack, ticks=60, control=control, no_tf=label == "no_tf"), f)
            out = os.path.join(tmp, label)
            os.mkdir(out)
            pub = None
            if control:
                args = control if isinstance(control, list) else ["/carla/hero/vehicle_control_cmd", "1.0", "0.0",
                                                                      "0.0", "--pad", "100000"]
                pub = Proc([PUB, *args], env, stdin=True)
                check(pub.wait_line("^ready$"), "%s: the control node is ready" % label)
            sim = Proc(["/usr/bin/python3", "-m", "sensim.carla", "--ros2", script, cfg], env, stdin=True)
            check(sim.wait_line("^control ", timeout=300), "%s: the script set up: %s" % (label, sim.text()[-2000:]))
            # every writer exists now (the script ticked while the control came): the subscriber matches them
            # all before the drive, so every message of the drive is its to count
            sub = Proc([SUB, out, "--timeout", "300", "--best-effort"] + topics, env)
            check(sub.wait_line("^matched$"), "%s: the subscriber matched: %s" % (label, sub.text()[-2000:]))
            gone = None
            if absent:  # readers of topics nobody should write: they exist before the drive starts
                os.mkdir(os.path.join(out, "absent"))
                gone = Proc([SUB, os.path.join(out, "absent"), "--timeout", "300", "--best-effort"] + list(absent),
                            env)
                check(gone.wait_line("^ready$"), "%s: the absent topics' subscriber is ready" % label)
            sim.p.stdin.write("go\n")
            sim.p.stdin.flush()
            check(sim.wait_line("^moved ", timeout=300), "%s: the script ran: %s" % (label, sim.text()[-2000:]))
            got_all = sub.finish(timeout=120) == 0  # it exits 0 once every topic has its count
            check(got_all, "%s: every topic reached its count: %s" % (label, sub.text()[-2000:]))
            if gone is not None:  # the drive is over: what it has is written out
                gone.p.send_signal(signal.SIGTERM)
                gone.finish()
            sim.p.stdin.close()
            check(sim.finish() == 0, "%s: the script exits 0: %s" % (label, sim.text()[-2000:]))
            if pub is not None:
                pub.p.stdin.close()
                pub.finish()
            nonlocal text_sub
            text_sub = sub.text()
            return out, sim.text(), got_all

        topics = ["/carla/hero/lidar:PointCloud2:3", "/carla/hero/rgb/image:Image:3",
                  "/carla/hero/rgb/camera_info:CameraInfo:3", "/carla/hero/imu:Imu:3",
                  "/carla/hero/gnss:NavSatFix:3", "/clock:Clock:10", "/carla/hero/odometry:Odometry:30",
                  "/tf:TFMessage:5", "/carla/hero/vehicle_status:CarlaEgoVehicleStatus:30",
                  "/carla/hero/vehicle_info:CarlaEgoVehicleInfo:1"]
        out, text, _ = run("drive", STACK, topics, control=True)
        check("control 1.000" in text, "full throttle arrived whole through 100 kB messages: %s" % text)
        moved = [float(l.split()[1]) for l in text.splitlines() if l.startswith("moved ")]
        check(moved and moved[0] > 5.0, "the vehicle drove forward (%s m in 3 s)" % moved)
        for name, want in (("carla_hero_lidar", 3), ("carla_hero_rgb_image", 3), ("carla_hero_rgb_camera_info", 3),
                           ("carla_hero_imu", 3), ("carla_hero_gnss", 3), ("clock", 10),
                           ("carla_hero_odometry", 30), ("tf", 5)):
            msgs = jsonl(os.path.join(out, name + ".jsonl"))
            check(len(msgs) >= want, "%s: %d messages (at least %d)" % (name, len(msgs), want))
        lid = jsonl(os.path.join(out, "carla_hero_lidar.jsonl"))
        check(lid and lid[0]["frame_id"] == "lidar", "the lidar's frame is its ros_name: %s" %
              (lid[0]["frame_id"] if lid else None))
        img = jsonl(os.path.join(out, "carla_hero_rgb_image.jsonl"))
        check(img and img[0]["encoding"] == "bgra8" and img[0]["width"] == 64 and img[0]["height"] == 48,
              "the camera's Image is CARLA's bgra8 64 x 48: %s" % ({k: img[0][k] for k in ("encoding", "width",
                                                                                             "height")} if img else None))
        odo = jsonl(os.path.join(out, "carla_hero_odometry.jsonl"))
        xs = [m["p"][0] for m in odo]
        check(odo and odo[0]["frame_id"] == "odom" and odo[0]["child"] == "hero",
              "odometry in odom of hero: %s" % (((odo[0]["frame_id"], odo[0]["child"]),) if odo else None))
        check(len(xs) >= 30 and xs[-1] - xs[0] > 2.0 and all(b >= a for a, b in zip(xs, xs[1:])),
              "the Odometry shows the drive forward (x %s .. %s, %d messages)" % (xs[:1], xs[-1:], len(xs)))
        clocks = [int(m["clock_ns"]) for m in jsonl(os.path.join(out, "clock.jsonl"))]
        check(clocks == sorted(set(clocks)) and all(c % 50_000_000 == 0 for c in clocks),
              "/clock strictly increasing on the 0.05 s grid: %s" % clocks[:5])
        tf = jsonl(os.path.join(out, "tf.jsonl"))
        pairs = {(t["parent"], t["child"]) for m in tf for t in m["transforms"]}
        check(("hero", "lidar") in pairs and ("odom", "hero") in pairs, "/tf: hero -> lidar, odom -> hero: %s" %
              sorted(pairs))

        st = jsonl(os.path.join(out, "carla_hero_vehicle_status.jsonl"))
        by_stamp = {m["stamp_ns"]: m for m in odo}
        pairs_v = [(m["velocity"], sum(v * v for v in by_stamp[m["stamp_ns"]]["v"]) ** 0.5) for m in st
                   if m["stamp_ns"] in by_stamp]
        check(len(st) >= 30 and st[0]["frame_id"] == "map" and len(pairs_v) >= 30
              and all(abs(a - b) <= 1e-5 * max(1.0, b) for a, b in pairs_v) and max(a for a, _ in pairs_v) > 1.0,
              "vehicle_status in map, its velocity the odometry's speed (float32): %s" % pairs_v[-3:])
        check(all(m["control"]["throttle"] == 1.0 and m["control"]["reverse"] is False for m in st)
              and all(abs(sum(q * q for q in m["q"]) - 1) < 1e-9 for m in st),
              "vehicle_status echoes full throttle, orientation unit: %s" % (st[-1] if st else None))
        info = jsonl(os.path.join(out, "carla_hero_vehicle_info.jsonl"))
        w = info[0]["wheels"] if info else []
        check(len(info) == 1 and info[0]["rolename"] == "hero" and info[0]["type"] == "vehicle.lincoln.mkz_2017"
              and len(w) == 4 and [x["max_steer_angle"] for x in w] == [35, 35, 0, 0] and info[0]["mass"] == 1500,
              "vehicle_info, published before the subscriber existed, arrived once (latched): %s" % info)
        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        from gen_ros2_msgdefs import type_hash_of
        kinds = {"PointCloud2": "sensor_msgs/msg/PointCloud2", "Image": "sensor_msgs/msg/Image",
                 "CameraInfo": "sensor_msgs/msg/CameraInfo", "Imu": "sensor_msgs/msg/Imu",
                 "NavSatFix": "sensor_msgs/msg/NavSatFix", "Clock": "rosgraph_msgs/msg/Clock",
                 "Odometry": "nav_msgs/msg/Odometry", "TFMessage": "tf2_msgs/msg/TFMessage",
                 "CarlaEgoVehicleStatus": "carla_msgs/msg/CarlaEgoVehicleStatus",
                 "CarlaEgoVehicleInfo": "carla_msgs/msg/CarlaEgoVehicleInfo"}
        ud = dict(l.split(" ", 2)[1:] for l in text_sub.splitlines() if l.startswith("userdata "))
        want = {t.split(":")[0]: "typehash=%s;" % type_hash_of(kinds[t.split(":")[1]]) for t in topics}
        check(ud == want, "each writer's USER_DATA is Jazzy's typehash: %s" %
              {k: (ud.get(k), v) for k, v in want.items() if ud.get(k) != v})

        # CARLA's later servers also take ackermann_msgs/AckermannDriveStamped on ackermann_control_cmd:
        # speed 4 m/s, straight on, from a node on Cyclone alone; the vehicle reaches it (the model's
        # Ackermann control: speed approached at 3.5 m/s^2, then held)
        out, text, _ = run("ackermann", STACK, ["/clock:Clock:10", "/carla/hero/odometry:Odometry:30"],
                           control=["/carla/hero/ackermann_control_cmd", "4.0", "0.0", "0.0", "--ackermann", "1"])
        check("VehicleAckermannControl" in text, "ackermann: the control arrived as Ackermann: %s" % text[-800:])
        sp = [float(l.split()[1]) for l in text.splitlines() if l.startswith("speed ")]
        check(sp and abs(sp[0] - 4.0) < 1e-5, "ackermann: the vehicle holds the commanded 4 m/s: %s" % sp)

        out, text, _ = run("no_tf", STACK, ["/clock:Clock:10", "/carla/hero/lidar:PointCloud2:3"], control=False,
                           absent=["/tf:TFMessage:1", "/tf_static:TFMessage:1"])
        check(len(jsonl(os.path.join(out, "clock.jsonl"))) >= 10, "no_tf: /clock arrives")
        check(not jsonl(os.path.join(out, "absent", "tf.jsonl")) and
              not jsonl(os.path.join(out, "absent", "tf_static.jsonl")), "no_tf: no /tf or /tf_static message")
        check("tf_writers 0" in text, "no_tf: the world made no /tf writer: %s" % text[-500:])
    check.end()


if __name__ == "__main__":
    main()
