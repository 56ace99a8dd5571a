"""sensim ros2 --control-in (issue 68 item 2): a CLI run driven by a stack's carla_msgs/msg/
CarlaEgoVehicleControl instead of a trajectory. The control node is built on Cyclone DDS alone
(tests/dds/ros2_control_pub.c, the type from tests/dds/ros2_msgs.idl through idlc), and so is the
subscriber that takes the run's /odom (tests/dds/ros2_sub.c).

Truths: the vehicle starts at rest at the trajectory file's only row; every world step's speed (from the
odometry positions one step apart) is the kinematic model's next speed from the step before, as
sensim/vehicle.h documents it (the equations are written out here, not taken from the library): at rest
before the control arrives, under full throttle after; the vehicle then drives forward along its heading
(y and the heading unchanged: steer 0); when the control node leaves, the run ends by itself (exit 0) and
says so. The /odom writer's USER_DATA names Odometry's Jazzy type hash, and the ros_discovery_info writer's
rmw_dds_common/msg/ParticipantEntitiesInfo's (as rmw_cyclonedds of Jazzy); neither has one with --ros-distro
humble.
Refusals: --control-in with --pose-in, without --trajectory, with --trajectory -.

Discovery over loopback only (CYCLONEDDS_URI) on a domain of its own. Every wait is on a state a process
reports (ready, matched, its exit), with a deadline only as a guard.

Usage: test_ros2_control.py SENSIM ROS2_SUB CONTROL_PUB SOURCE_ROOT"""
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ros2_harness import Checks, Proc  # noqa: E402 (tests/: beside this file)

SENSIM, SUB, PUB, ROOT = sys.argv[1:5]
check = Checks()
TOPIC = "/ego/vehicle_control_cmd"


def model_next(v, throttle, dt):
    """sensim/vehicle.h's speed step (forward, no brake): +3.5 m/s^2 x throttle, then resistance 0.05 v +
    0.0015 v^2 taken away, never past standstill."""
    v1 = v + 3.5 * throttle * dt
    cut = (0.05 * abs(v) + 0.0015 * v * v) * dt
    return 0.0 if v1 == 0.0 or cut >= abs(v1) else v1 - math.copysign(cut, v1)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        cyc = os.path.abspath(os.path.join(ROOT, "tests", "dds", "cyclonedds_loopback.xml"))
        env = dict(os.environ, CYCLONEDDS_URI="file://" + cyc, ROS_DOMAIN_ID=str(140 + os.getpid() % 80))
        start = os.path.join(tmp, "start.csv")
        with open(start, "w") as f:
            f.write("t,x,y,z,roll,pitch,yaw\n0,-20,1.5,1.8,0,0,0\n")
        base = [SENSIM, "ros2", "--scene", "street", "--lidar", "vlp16", "--quiet"]

        for args, want in (([ "--control-in", TOPIC, "--pose-in", "odom:/x"], "one of them"),
                           (["--control-in", TOPIC], "--trajectory"),
                           (["--control-in", TOPIC, "--trajectory", "-"], "--trajectory FILE"),
                           (["--control-in", "nope", "--trajectory", start], "ROS topic")):
            r = subprocess.run(base + args, env=env, capture_output=True, text=True, timeout=60)
            check(r.returncode == 2 and want in r.stderr, "refused: %s: %d %s" % (args, r.returncode, r.stderr))

        out = os.path.join(tmp, "sub")
        os.mkdir(out)
        sub = Proc([SUB, out, "--timeout", "300", "--graph", "/odom:Odometry:60"], env)
        check(sub.wait_line("^ready$"), "subscriber ready: %s" % sub.text())
        pub = Proc([PUB, TOPIC, "1.0", "0.0", "0.0", "--hz", "50"], env, stdin=True)
        check(pub.wait_line("^ready$"), "the control node is ready: %s" % pub.text())
        sim = Proc(base + ["--control-in", TOPIC, "--trajectory", start, "--rate", "4",
                           "--wait-subscribers=/odom"], env)
        check(sub.finish(timeout=300) == 0, "the subscriber got 60 odometry messages: %s / %s" %
              (sub.text()[-1500:], sim.text()[-1500:]))
        pub.p.stdin.close()  # the control node leaves: the run ends
        check(pub.finish() == 0, "the control node ends: %s" % pub.text())
        rc = sim.finish(timeout=120)
        check(rc == 0 and "the publisher of %s left: the run ends" % TOPIC in sim.text(),
              "the run ended with the control node, exit 0: %d %s" % (rc, sim.text()[-1500:]))

        sys.path.insert(0, os.path.join(ROOT, "scripts"))
        from gen_ros2_msgdefs import GRAPH, type_hash_of
        check("userdata /odom typehash=%s;" % type_hash_of("nav_msgs/msg/Odometry") in sub.text(),
              "the /odom writer's USER_DATA is Jazzy's typehash: %s" % sub.text()[-500:])
        check("userdata ros_discovery_info typehash=%s;" % type_hash_of(GRAPH) in sub.text().splitlines(),
              "the ros_discovery_info writer's USER_DATA is Jazzy's typehash: %s" % sub.text()[-500:])

        # Humble's rmw sends no type hash: --ros-distro humble neither
        hout = os.path.join(tmp, "sub_humble")
        os.mkdir(hout)
        hsub = Proc([SUB, hout, "--timeout", "300", "--graph", "/odom:Odometry:3"], env)
        check(hsub.wait_line("^ready$"), "humble: subscriber ready: %s" % hsub.text())
        hpub = Proc([PUB, TOPIC, "0.5", "0.0", "0.0", "--hz", "50"], env, stdin=True)
        check(hpub.wait_line("^ready$"), "humble: the control node is ready: %s" % hpub.text())
        hsim = Proc(base + ["--control-in", TOPIC, "--trajectory", start, "--rate", "4", "--ros-distro", "humble",
                            "--wait-subscribers=/odom"], env)
        check(hsub.finish(timeout=300) == 0 and "userdata /odom -" in hsub.text(),
              "humble: no USER_DATA on /odom: %s" % hsub.text()[-500:])
        check("userdata ros_discovery_info -" in hsub.text().splitlines(),
              "humble: no USER_DATA on ros_discovery_info: %s" % hsub.text()[-500:])
        hpub.p.stdin.close()
        hpub.finish()
        check(hsim.finish(timeout=120) == 0, "humble: the run ends with the control node: %s" % hsim.text()[-800:])

        odo = [json.loads(line) for line in open(os.path.join(out, "odom.jsonl"))]
        t = [int(m["stamp_ns"]) for m in odo]
        x = [m["p"][0] for m in odo]
        dt_ns = t[1] - t[0] if len(t) > 1 else 0
        check(len(odo) >= 60 and dt_ns > 0 and all(b - a == dt_ns for a, b in zip(t, t[1:])),
              "odometry every world step, in order: %s" % t[:5])
        check(abs(x[0] + 20) < 1e-12 and all(abs(m["p"][1] - 1.5) < 1e-12 and abs(m["q"][2]) < 1e-12 for m in odo),
              "from the start row, straight on (y 1.5, yaw 0): %s" % [(m["p"], m["q"]) for m in odo[:2]])
        dt = dt_ns * 1e-9
        v = [(b - a) / dt for a, b in zip(x, x[1:])]
        bad, driven = [], 0
        for k in range(len(v) - 1):
            rest, full = model_next(v[k], 0.0, dt), model_next(v[k], 1.0, dt)
            if abs(v[k + 1] - full) <= 1e-9 * max(1.0, full):
                driven += v[k + 1] > 0
            elif abs(v[k + 1] - rest) > 1e-9:
                bad.append((k, v[k], v[k + 1], rest, full))
        check(not bad, "each step's speed is the model's next from the step before: %s" % bad[:3])
        check(driven >= 20 and v[0] >= 0 and x[-1] > x[0] + 1.0,
              "full throttle drove it forward (%d steps under throttle; x %.3f -> %.3f)" % (driven, x[0], x[-1]))
    check.end()


if __name__ == "__main__":
    main()
