#!/usr/bin/python3
"""Live ROS 2 over DDS, received by a subscriber built on Cyclone DDS alone
(tests/dds/ros2_sub.c: the ROS 2 types from tests/dds/ros2_msgs.idl through
idlc), compared with the bag `sensim batch --format mcap` writes for the
same run:

- every message of every topic of a rig run (lidar, camera, IMU, GNSS,
  odometry, /tf, /tf_static, /clock) arrives: its wire bytes equal the bag's
  message bytes, and what idlc's types decode equals what an independent
  reader decodes from the bag (tests/node/check_mcap.mjs), PointCloud2 sums
  of x, y, z included; /clock is strictly increasing, one per world step;
  repeated with 1 and 2 threads;
- with ROS 2's QoS profiles, a subscriber joining after the run still gets
  /tf_static (transient local), and a reliable subscriber to a best-effort
  point cloud is refused by DDS (RELIABILITY);
- the IDL's fields are the .msg definitions the bag carries;
- bad domains and file options are refused with messages;
- CYCLONEDDS_URI values that make Cyclone's startup unbounded are refused
  (ros2, topic, a Python host), and a signal ends ros2 and topic with 130
  inside Cyclone's startup and while a Cyclone call holds the process.

Discovery runs over loopback only (CYCLONEDDS_URI: interface lo, unicast
peers, no multicast) on a domain of its own. Every wait is on a state the
processes report (ready, matched, done), with a deadline only as a guard.

Usage: test_ros2.py SENSIM ROS2_SUB NODE_DIR SOURCE_ROOT"""
import fcntl
import json
import math
import os
import re
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ros2_harness import Checks, Proc, bag_messages, unpad  # noqa: E402 (tests/: beside this file)

SENSIM, SUB, NODE_DIR, ROOT, POSE_PUB = sys.argv[1:6]
check = Checks()



def read_cdr(path):
    data, out, at = open(path, "rb").read(), [], 0
    while at < len(data):
        n = struct.unpack_from("<I", data, at)[0]
        out.append(data[at + 4:at + 4 + n])
        at += 4 + n
    return out


def node_decode(path):
    r = subprocess.run(["node", os.path.join(NODE_DIR, "check_mcap.mjs"), path], capture_output=True, text=True)
    check(r.returncode == 0, "independent reader on %s: %s" % (path, r.stderr))
    return json.loads(r.stdout)["topics"] if r.returncode == 0 else {}


def idl_fields(path):
    """{Type: [(name, type)]} of the IDL structs (type 'pkg/Name', 'pkg/Name[]', 'float64[9]', ...)."""
    prim = {"int32": "int32", "uint32": "uint32", "uint8": "uint8", "int8": "int8", "uint16": "uint16",
            "double": "float64", "float": "float32", "boolean": "bool", "string": "string"}
    text = re.sub(r"//[^\n]*", "", open(path).read())
    out, pkg = {}, None
    for tok in re.finditer(r"module (\w+) \{ module msg|struct (\w+)_ \{(.*?)\};", text, re.S):
        if tok.group(1):
            pkg = tok.group(1)
            continue
        fields = []
        for decl in tok.group(3).split(";"):
            decl = " ".join(decl.split())
            if not decl:
                continue
            m = re.match(r"(sequence<([\w:]+)>|[\w:]+) (\w+)(\[(\d+)\])?$", decl)
            base = m.group(2) or m.group(1)
            base = prim.get(base) or "/".join(p for p in base.split("::") if p not in ("msg", "dds_")).rstrip("_")
            if "/" not in base and base not in prim.values():
                base = pkg + "/" + base
            fields.append((m.group(3), base + ("[]" if m.group(2) else "[%s]" % m.group(5) if m.group(5) else "")))
        out[pkg + "/" + tok.group(2)] = fields
    return out


def msg_fields(text, main):
    """{Type: [(name, type)]} of a ros2msg schema text (the main type and its dependencies)."""
    out, cur, pkg = {}, main, main.split("/")[0]
    for line in text.split("\n"):
        if line.startswith("MSG: "):
            cur = line[5:].strip()
            pkg = cur.split("/")[0]
            continue
        line = line.split("#")[0].strip()
        if not line or line.startswith("===") or "=" in line:
            continue
        typ, name = line.split()[:2]
        base = re.match(r"[\w/]+", typ).group(0)
        suffix = typ[len(base):]
        if base in ("Header",):
            base = "std_msgs/Header"
        elif "/" not in base and base not in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                              "uint64", "float32", "float64", "bool", "string", "byte", "char"):
            base = pkg + "/" + base
        out.setdefault(cur, []).append((name, base + suffix))
    return out


with tempfile.TemporaryDirectory() as tmp:
    rig = os.path.join(tmp, "rig.txt")
    with open(rig, "w") as f:
        f.write("[sensor lidar]\npreset = vlp16\nmount_xyz_m = 0, 0, 0.3\n"
                "[sensor cam]\ntype = camera\nwidth = 64\nheight = 48\nrate_hz = 10\noutputs = depth, rgb\n"
                "[sensor imu]\ntype = imu\nrate_hz = 100\n[sensor gnss]\ntype = gnss\nrate_hz = 10\n")
    traj = os.path.join(tmp, "traj.csv")
    with open(traj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n0.5,-15,1,1.8,0,0,10\n1.05,-10,0,1.8,0,0,0\n")
    cyc = os.path.abspath(os.path.join(ROOT, "tests", "dds", "cyclonedds_loopback.xml"))
    env = dict(os.environ, CYCLONEDDS_URI="file://" + cyc, ROS_DOMAIN_ID=str(100 + os.getpid() % 120))
    run_args = ["--scene", "street", "--rig", rig, "--trajectory", traj]

    types = {"sensor_msgs/msg/PointCloud2": "PointCloud2", "sensor_msgs/msg/Image": "Image",
             "sensor_msgs/msg/CameraInfo": "CameraInfo", "sensor_msgs/msg/Imu": "Imu",
             "sensor_msgs/msg/NavSatFix": "NavSatFix", "nav_msgs/msg/Odometry": "Odometry",
             "tf2_msgs/msg/TFMessage": "TFMessage", "rosgraph_msgs/msg/Clock": "Clock"}

    def the_bag(name, trajectory):
        out = os.path.join(tmp, name)
        r = subprocess.run([SENSIM, "batch", "--scene", "street", "--rig", rig, "--trajectory", trajectory, "--out",
                            out, "--format", "mcap", "--mcap-compression", "none", "--quiet"], env=env,
                           capture_output=True, text=True)
        check(r.returncode == 0, "the bag of the run: %s" % r.stderr)
        path = os.path.join(out, "sensim_0.mcap")
        return path, bag_messages(path), node_decode(path)

    def live_run(label, trajectory, raw, dec, threads, stream, pose=None):
        """Publish reliably to a subscriber of every topic; compare what it got with the bag. @p pose:
        (--pose-in's value, ros2_pose_pub's arguments): the poses come from a ROS node instead."""
        specs = ["%s:%s:%d" % (t, types[v["type"]], v["count"]) for t, v in sorted(dec.items())]
        out = os.path.join(tmp, "sub_" + label)
        os.mkdir(out)
        sub = Proc([SUB, out, "--timeout", "240", *specs], env)
        check(sub.wait_line("^ready$"), "subscriber ready: %s" % sub.text())
        rows = open(trajectory).read().splitlines(keepends=True)
        args = ["--scene", "street", "--rig", rig, "--trajectory", "-" if stream else trajectory]
        if pose:
            node = Proc([POSE_PUB, *pose[1]], env, stdin=True)
            check(node.wait_line("^ready$"), "%s: the pose node starts: %s" % (label, node.text()))
            args, stream = ["--scene", "street", "--rig", rig, "--pose-in", pose[0]], False
        pub = Proc([SENSIM, "ros2", *args, "--rate", "max", "--qos", "reliable", "--wait-subscribers",
                    "--threads", threads] + ([] if stream or pose else ["--start-on-stdin"]), env, stdin=True)
        if stream:  # the header and the first row: the run is set up, and waits for the next row to step
            pub.p.stdin.write("".join(rows[:2]))
            pub.p.stdin.flush()
        check(sub.wait_line("^matched$"), "%s: the subscriber matched the writers: %s %s" % (label, sub.text(),
                                                                                           pub.text()))
        if stream:
            pub.p.stdin.write("".join(rows[2:]))
            pub.p.stdin.close()
        elif pose:  # every pose acknowledged: the node leaves, which ends the stream
            check(node.wait_line("^acked$"), "%s: the pose node's poses acknowledged: %s" % (label, node.text()))
            node.p.stdin.close()
            check(node.finish() == 0, "%s: the pose node ends: %s" % (label, node.text()))
        else:
            check(pub.wait_line("starting when a line arrives"), "the publisher matched: %s" % pub.text())
            pub.p.stdin.write("go\n")
            pub.p.stdin.flush()
        rc_sub, rc_pub = sub.finish(), pub.finish()
        check(rc_sub == 0 and rc_pub == 0, "%s: subscriber %d, publisher %d: %s / %s"
              % (label, rc_sub, rc_pub, sub.text(), pub.text()))
        n_total = sum(v["count"] for v in dec.values())
        check(re.search(r"%d messages published on domain %s, 0 dropped" % (n_total, env["ROS_DOMAIN_ID"]),
                        pub.text()), "%s: the publisher's count: %s" % (label, pub.text()))
        for topic, v in sorted(dec.items()):
            name = topic[1:].replace("/", "_")
            wire = read_cdr(os.path.join(out, name + ".cdr"))
            want = raw.get(topic, [])
            check(len(wire) == len(want) and all(unpad(w) == b for w, b in zip(wire, want)),
                  "%s %s: %d wire messages equal the bag's %d, byte for byte (the padding the encapsulation "
                  "options count removed)"
                  % (label, topic, len(wire), len(want)))
            got = [json.loads(l) for l in open(os.path.join(out, name + ".jsonl"))]
            same = len(got) == len(v["messages"])
            for g, e in zip(got, v["messages"]):
                keys = set(g) & set(e)
                same &= all(g[k] == e[k] for k in keys) and len(keys) >= 1
                if types[v["type"]] == "PointCloud2":
                    same &= {"sum_xyz", "fields", "width", "stamp_ns", "frame_id"} <= keys
            check(same, "%s %s: idlc's decoding equals the independent reader's decoding of the bag" % (label, topic))
        clocks = [int(json.loads(l)["clock_ns"]) for l in open(os.path.join(out, "clock.jsonl"))]
        check(len(clocks) == dec["/clock"]["count"] and all(b > a for a, b in zip(clocks, clocks[1:])),
              "%s: /clock: one per world step, strictly increasing: %s" % (label, clocks[:5]))

    bag, raw, dec = the_bag("bag", traj)
    check(len(dec) == 10 and dec.get("/lidar/points", {}).get("count") == 10 and set(raw) == set(dec),
          "the run's bag: 10 topics, 10 clouds: %s" % sorted(dec))
    # ---- every message, reliable keep-all, 1 and 2 threads ----
    for k, threads in enumerate(("1", "2", "2")):
        live_run("file%d" % k, traj, raw, dec, threads, False)
    # ---- the trajectory streamed on stdin by a host, row by row: the same messages ----
    traj1 = os.path.join(tmp, "traj1.csv")
    with open(traj1, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n0.25,-17.5,0.2,1.8,0,0,3\n0.5,-15,1,1.8,0,0,10\n"
                "0.75,-12.5,0.6,1.8,0,0,5\n1.0,-10,0,1.8,0,0,0\n")
    _, raw1, dec1 = the_bag("bag1", traj1)
    for k in range(2):
        live_run("stdin%d" % k, traj1, raw1, dec1, "2", True)

    # ---- --pose-in: the ego's poses from a ROS node (Odometry, PoseStamped, /tf), the messages those
    # poses give from a file; the node republishes one pose (skipped) ----
    tum = os.path.join(tmp, "poses.tum")
    with open(tum, "w") as f:
        # to 1.00 s, a whole number of every sensor period: a stream that ends inside a period still gives
        # the sample that period starts with, a file does not (docs/ros2.md, Live ROS 2)
        for i in range(101):
            t, yaw = i * 0.01, 0.3 * i * 0.01
            f.write("%.17g %.17g %.17g %.17g 0 0 %.17g %.17g\n" % (t, -20 + 10 * t, 0.5 * math.sin(t), 1.8,
                                                                 math.sin(yaw / 2), math.cos(yaw / 2)))
    _, rawp, decp = the_bag("bagp", tum)
    for kind, spec in (("odom", "odom:/ego/odom"), ("pose", "pose:/ego/pose"), ("tf", "tf:/ego/tf:base_link")):
        topic = spec.split(":")[1]
        live_run("pose_" + kind, tum, rawp, decp, "2", False, (spec, [kind, topic, tum, "--repeat", "5"]))
    tfs = [json.loads(l) for l in open(os.path.join(tmp, "sub_pose_tf", "tf.jsonl"))] if os.path.exists(
        os.path.join(tmp, "sub_pose_tf", "tf.jsonl")) else []
    worst = max((abs(x["t"][0] - (-20 + 10 * int(x["stamp_ns"]) * 1e-9)) for m in tfs for x in m["transforms"]
                 if int(x["stamp_ns"]) % 10000000 == 0), default=None)
    check(worst is not None and worst < 1e-9, "the platform on /tf at each pose's time is that pose (|dx| %s)" % worst)
    node = Proc([POSE_PUB, "odom", "/ego/bad", tum, "--bad", "20"], env, stdin=True)
    r = subprocess.run([SENSIM, "ros2", "--scene", "street", "--rig", rig, "--pose-in", "odom:/ego/bad"], env=env,
                       capture_output=True, text=True, timeout=300)
    node.p.stdin.close()
    node.finish()
    check(r.returncode == 10 + 4 and "/ego/bad: message 21: position (nan" in r.stderr,
          "a NaN pose ends the run naming the topic and the message: %d %s" % (r.returncode, r.stderr))
    # ---- 62.5: a 150 Hz reliable publisher and a rig behind it: every pose is used (the reader's history of
    # 256 kept the newest: 257 of 600 used, no loss said). The run waits for a /clock subscriber while the node
    # sends all 600 (its "acked": every one delivered), so the rig is behind by the whole stream. ----
    tum150 = os.path.join(tmp, "poses150.tum")
    with open(tum150, "w") as f:
        for i in range(600):
            f.write("%.17g %.17g 0 1.8 0 0 0 1\n" % (i / 150, -20 + i / 150))
    imu_rig = os.path.join(tmp, "imu_rig.txt")
    with open(imu_rig, "w") as f:
        f.write("[sensor imu]\ntype = imu\nrate_hz = 100\n")
    node = Proc([POSE_PUB, "odom", "/ego/odom150", tum150, "--hz", "150"], env, stdin=True)
    check(node.wait_line("^ready$"), "62.5: the 150 Hz node starts: %s" % node.text())
    pub = Proc([SENSIM, "ros2", "--scene", "street", "--rig", imu_rig, "--pose-in", "odom:/ego/odom150", "--rate",
                "max", "--wait-subscribers=/clock"], env)
    check(node.wait_line("^acked$", timeout=300), "62.5: every pose delivered: %s" % node.text())
    clk = Proc([SUB, tmp, "--timeout", "120", "/clock:Clock:1"], env)
    check(clk.finish() == 0, "62.5: a /clock subscriber starts the run: %s" % clk.text())
    node.p.stdin.close()
    node.finish()
    rc = pub.finish()
    check(rc == 0 and re.search(r"600 poses taken from /ego/odom150 \(600 messages; 0 with a stamp not after the "
                                r"last, skipped; 0 lost\)", pub.text()),
          "62.5: all 600 poses of a 150 Hz node used by a rig behind it: %s %s" % (rc, pub.text()[-600:]))

    # ---- 62.14: --pose-in on a topic carrying another type names both types ----
    node = Proc([POSE_PUB, "pose", "/ego/typed", tum], env, stdin=True)
    check(node.wait_line("^ready$"), "62.14: the PoseStamped node starts: %s" % node.text())
    pub = Proc([SENSIM, "ros2", "--scene", "street", "--rig", imu_rig, "--pose-in", "odom:/ego/typed"], env)
    check(pub.wait_line(r"waiting for a pose on /ego/typed \(nav_msgs/msg/Odometry\): the topic carries "
                        r"geometry_msgs/msg/PoseStamped, not the nav_msgs/msg/Odometry --pose-in odom: expects"),
          "62.14: the type seen and the type expected: %s" % pub.text())
    pub.p.send_signal(signal.SIGINT)
    pub.finish()
    node.p.terminate()  # it waits for a reader of its type, which never comes: stdin's end is not read yet
    node.finish()

    # ---- 62.15: sensim topic echo of a message that does not decode prints nothing of it (it printed the first
    # lines of YAML, then the error): PoseStamped messages under the Odometry type's name ----
    node = Proc([POSE_PUB, "pose", "/ego/mislabelled", tum, "--as", "nav_msgs::msg::dds_::Odometry_"], env,
                stdin=True)
    check(node.wait_line("^ready$"), "62.15: the mislabelled node starts: %s" % node.text())
    r = subprocess.run([SENSIM, "topic", "echo", "/ego/mislabelled", "-n", "1", "--timeout", "60"], env=env,
                       capture_output=True, text=True, timeout=120)
    node.p.stdin.close()
    node.finish()
    check(r.returncode == 10 + 4 and r.stdout == "" and re.search(
        r"/ego/mislabelled: message 1 does not match nav_msgs/msg/Odometry \(decoding stopped at byte \d+ of \d+\)",
        r.stderr), "62.15: a message that does not decode prints nothing of itself, the error names topic, type "
                   "and offset: %d %r %r" % (r.returncode, r.stdout[:300], r.stderr))

    for bad, want in ((["--pose-in", "odom:ego"], "--pose-in needs odom:TOPIC"),
                      (["--pose-in", "odom:/a", "--trajectory", traj], "no --trajectory")):
        r = subprocess.run([SENSIM, "ros2", "--scene", "street", "--rig", rig, *bad], env=env, capture_output=True,
                           text=True, timeout=60)
        check(r.returncode == 2 and want in r.stderr, "%s refused: %d %s" % (bad, r.returncode, r.stderr))

    # ---- ROS 2 profiles: late /tf_static, a refused reliable reader of a best-effort cloud ----
    pub = Proc([SENSIM, "ros2", *run_args, "--rate", "max", "--linger", "forever"], env)
    check(pub.wait_line("holding /tf_static"), "the profiles run ends and holds: %s" % pub.text())
    late = os.path.join(tmp, "late")
    os.mkdir(late)
    sub = Proc([SUB, late, "--timeout", "120", "/tf_static:TFMessage:1"], env)
    check(sub.finish() == 0, "a subscriber joining after the run gets /tf_static: %s" % sub.text())
    got = [json.loads(l) for l in open(os.path.join(late, "tf_static.jsonl"))] if os.path.exists(
        os.path.join(late, "tf_static.jsonl")) else []
    want = dec["/tf_static"]["messages"]
    check(len(got) == 1 and got[0]["transforms"] == want[0]["transforms"] and len(got[0]["transforms"]) == 5,
          "the late /tf_static holds the mounts the bag holds (4 sensors + the camera's optical frame): %s" % got)
    probe = Proc([SUB, late, "--timeout", "120", "--probe-reliable", "/lidar/points:PointCloud2:1"], env)
    check(probe.finish() == 0 and "incompatible 11" in probe.text(),
          "a reliable reader of the best-effort cloud: DDS reports RELIABILITY (11): %s" % probe.text())
    probe = Proc([SUB, late, "--timeout", "120", "--probe-reliable", "/tf:TFMessage:1"], env)
    check(probe.finish() == 1 and "matched" in probe.text(), "a reliable reader of /tf matches: %s" % probe.text())
    pub.p.send_signal(signal.SIGINT)
    check(pub.finish() == 0, "Ctrl-C ends the lingering publisher cleanly: %s" % pub.text())

    # ---- --wait-subscribers=TOPICS says what it still waits for, and which readers DDS refused ----
    pub = Proc([SENSIM, "ros2", *run_args, "--rate", "max", "--wait-subscribers=/lidar/points,/tf"], env)
    check(pub.wait_line("waiting for a subscriber on 2 topics"), "waiting for the two topics: %s" % pub.text())
    check(pub.wait_line(r"still no subscriber on 2 topics: /tf, /lidar/points$"),
          "every few seconds: the topics still without a subscriber: %s" % pub.text())
    probe = Proc([SUB, late, "--timeout", "120", "--hold", "--probe-reliable", "/lidar/points:PointCloud2:1"], env)
    check(probe.wait_line("^incompatible 11$"), "the refused reader: %s" % probe.text())
    check(pub.wait_line(r"/lidar/points refused 1 reader for incompatible QoS \(last: RELIABILITY;"),
          "the publisher names the refused reader's policy: %s" % pub.text())
    probe.p.terminate()
    check(probe.finish() == 0, "the held probe ends on SIGTERM: %s" % probe.text())
    tf = Proc([SUB, late, "--timeout", "120", "--count-only", "--best-effort", "/tf:TFMessage:1"], env)
    check(pub.wait_line(r"still no subscriber on 1 topic: /lidar/points$"),
          "a /tf reader: only the cloud is still waited for: %s" % pub.text())
    pub.p.send_signal(signal.SIGINT)
    check(pub.finish() == 0 and "published" not in pub.text(),
          "Ctrl-C while waiting ends it without a step: %s" % pub.text())
    tf.p.terminate()
    tf.finish()
    r = subprocess.run([SENSIM, "ros2", *run_args, "--rate", "max", "--wait-subscribers=/nope"], env=env,
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 2 and "this run publishes no topic /nope" in r.stderr,
          "--wait-subscribers on a topic the run lacks: %d %s" % (r.returncode, r.stderr))

    # ---- a Python host's rig: McapSinks on a Ros2Publisher publish what they write into a bag ----
    host = os.path.join(tmp, "host.py")
    with open(host, "w") as f:
        f.write("""import sys, time, sensim
mode = sys.argv[1]
ctx = sensim.Context(1)
scene = sensim.Scene(ctx)
scene.add_street()
scene.commit()
lidar = sensim.Lidar(ctx, "vlp16", {"mount_xyz_m": "0,0,1.8"})
imu = sensim.Nav(ctx, "imu", {"rate_hz": 50, "noise_accel_stddev_x": 0.05, "noise_accel_stddev_y": 0.06})
w = sensim.McapWriter(sys.argv[2], compression="none") if mode == "bag" else sensim.Ros2Publisher(reliable=True)
rig = sensim.Rig(ctx)
li = rig.add_lidar(lidar, sensim.Ring.for_lidar(lidar, 2))
ii = rig.add_nav(imu, sensim.NavRing(16))
sinks = [sensim.McapSink(w, "roof", lidar=lidar), sensim.McapSink(w, "imu", nav_kind="imu", accel_var=(0.0025, 0.0036, 0.0))]
rig.attach(li, sinks[0])
rig.attach(ii, sinks[1])
if mode == "live":  # the sinks use topics the host adds beforehand: subscribers can match before the first step
    topics = [w.add_topic("/roof/points", "PointCloud2"), w.add_topic("/imu/imu", "Imu")]
    # the writers must know the reader too (a volatile writer sends nothing to a reader it has not matched)
    while not all(w.subscribers(t) for t in topics):
        time.sleep(0.01)  # polling discovery state, not timing anything
for k in range(31):
    rig.push_pose(k * 10_000_000, sensim.pose(x=-20 + 0.1 * k, z=0.0))
    if k == 0 and mode == "live":
        print("waiting", flush=True)
        sys.stdin.readline()
    if k:
        rig.step(scene, 10_000_000)
print("stats", w.stats, flush=True)
rig.close()
for sk in sinks:
    sk.close()
w.close()
""")
    py_env = dict(env, SENSIM_LIBRARY=os.environ.get("SENSIM_LIBRARY", ""), PYTHONPATH=os.path.join(ROOT, "python"))
    if os.environ.get("SENSIM_LIBRARY"):
        hb = os.path.join(tmp, "host_bag")
        r = subprocess.run(["/usr/bin/python3", host, "bag", hb], env=py_env, capture_output=True, text=True,
                           timeout=300)
        check(r.returncode == 0, "the host's bag: %s" % r.stderr)
        hraw = bag_messages(hb + "_0.mcap") if r.returncode == 0 else {}
        hspecs = ["/roof/points:PointCloud2:%d" % len(hraw.get("/roof/points", [])),
                  "/imu/imu:Imu:%d" % len(hraw.get("/imu/imu", []))]
        check(len(hraw.get("/roof/points", [])) == 3 and len(hraw.get("/imu/imu", [])) == 15,
              "the host's bag: 3 clouds, 15 IMU samples: %s" % hspecs)
        out = os.path.join(tmp, "host_sub")
        os.mkdir(out)
        sub = Proc([SUB, out, "--timeout", "240", *hspecs], env)
        check(sub.wait_line("^ready$"), "subscriber ready")
        pub = Proc(["/usr/bin/python3", host, "live"], py_env, stdin=True)
        check(sub.wait_line("^matched$") and pub.wait_line("^waiting$"), "host and subscriber matched: %s %s"
              % (sub.text(), pub.text()))
        pub.p.stdin.write("go\n")
        pub.p.stdin.flush()
        rc_sub, rc_pub = sub.finish(), pub.finish()
        check(rc_sub == 0 and rc_pub == 0 and "'dropped': 0" in pub.text(),
              "the host's rig published: %d %d %s %s" % (rc_sub, rc_pub, sub.text(), pub.text()))
        for topic in ("/roof/points", "/imu/imu"):
            wire = read_cdr(os.path.join(out, topic[1:].replace("/", "_") + ".cdr"))
            want = hraw.get(topic, [])
            check(len(wire) == len(want) and all(unpad(w) == b for w, b in zip(wire, want)),
                  "%s from the host's rig: the wire equals its bag (%d, %d)" % (topic, len(wire), len(want)))

    # ---- the IDL is the .msg definitions the bag carries ----
    idl = idl_fields(os.path.join(ROOT, "tests", "dds", "ros2_msgs.idl"))
    data = open(bag, "rb").read()
    defs = {}
    at = 8
    while at < len(data) - 8:
        op, n = data[at], struct.unpack_from("<Q", data, at + 1)[0]
        c = data[at + 9:at + 9 + n]
        if op == 0x03:  # Schema: id, name, encoding, data
            nl = struct.unpack_from("<I", c, 2)[0]
            name = c[6:6 + nl].decode()
            el = struct.unpack_from("<I", c, 6 + nl)[0]
            text = c[10 + nl + el + 4:].decode()
            for k, v in msg_fields(text, name.replace("/msg/", "/")).items():
                defs[k] = v
        if op == 0x0F:
            break
        at += 9 + n
    norm = {"byte": "uint8"}
    mismatched = [k for k, v in defs.items() if k not in idl or [(a, norm.get(b, b)) for a, b in v] != idl[k]]
    check(len(defs) >= 20 and not mismatched, "every IDL struct has the .msg fields, names, types and order "
          "(%d types): %s" % (len(defs), {k: (defs[k], idl.get(k)) for k in mismatched}))

    # ---- refusals ----
    for bad_env, args, want_text in (
            ({"ROS_DOMAIN_ID": "x7"}, [], "ROS_DOMAIN_ID='x7' is not an integer in 0..232"),
            ({"ROS_DOMAIN_ID": "233"}, [], "ROS_DOMAIN_ID=233 outside 0..232"),
            ({}, ["--domain", "300"], "--domain needs a DDS domain id in 0..232"),
            ({"CYCLONEDDS_URI": "<garbage"}, [], "cannot create a DDS participant (check CYCLONEDDS_URI)"),
            ({}, ["--out", tmp], "--out writes files"),
            ({}, ["--mcap-compression", "none"], "--mcap-compression writes files"),
            ({}, ["--rate", "fast"], "--rate needs realtime, max or a factor")):
        r = subprocess.run([SENSIM, "ros2", *run_args, "--rate", "max", *args], env=dict(env, **bad_env),
                           capture_output=True, text=True, timeout=120)
        check(r.returncode != 0 and want_text in r.stderr, "refused %s %s: %d %s" % (bad_env, args, r.returncode,
                                                                                     r.stderr[-300:]))

    # ---- CYCLONEDDS_URI is input (issue 62 item 4) ----
    # MaxAutoParticipantIndex 2000000000 with a unicast peer: Cyclone made an address per index before the
    # participant existed (1-2 GiB, deaf to signals). Refused before Cyclone reads it, naming the file, the
    # element and the value, in a file, in inline XML (Cyclone's prefixes and `</>`) and through ${VAR}.
    disc = ("<Discovery><ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>%s</MaxAutoParticipantIndex>"
            "<Peers>%s</Peers></Discovery>")
    big = os.path.join(tmp, "cyclone_big.xml")
    with open(big, "w") as f:
        f.write("<CycloneDDS><Domain>\n<General><AllowMulticast>false</AllowMulticast></General>\n%s\n"
                "</Domain></CycloneDDS>\n" % (disc % ("2000000000", '<Peer address="127.0.0.1"/>')))
    many = os.path.join(tmp, "cyclone_peers.xml")
    with open(many, "w") as f:
        f.write("<CycloneDDS><Domain>%s</Domain></CycloneDDS>\n" % (disc % ("119", "".join(
            '<Peer address="127.0.%d.%d"/>\n' % (i // 250, i % 250 + 1) for i in range(1025)))))
    for uri, extra, want_rc, want_text in (
            ("file://" + big, {}, 15, big + ":3: Discovery/MaxAutoParticipantIndex 2000000000 is above 119"),
            (big, {}, 15, big + ":3: Discovery/MaxAutoParticipantIndex 2000000000 is above 119"),
            ('<Disc><MaxAuto>0x77359400</></><Peers><Peer address="127.0.0.1"/>', {}, 15,
             "inline XML:1: Discovery/MaxAutoParticipantIndex 0x77359400 is above 119"),
            ("file://" + cyc + ",<Discovery><MaxAutoParticipantIndex>${N}</MaxAutoParticipantIndex></Discovery>",
             {"N": "2000000000"}, 15, "inline XML:1: Discovery/MaxAutoParticipantIndex 2000000000 is above 119"),
            ("file://" + many, {}, 23, "1025 Discovery/Peers/Peer entries with MaxAutoParticipantIndex 119 make "
             "123000 peer addresses, above 122880")):
        for cmd in (["ros2", *run_args, "--rate", "max"], ["topic", "list"]):
            r = subprocess.run([SENSIM, *cmd], env=dict(env, CYCLONEDDS_URI=uri, **extra), capture_output=True,
                               text=True, timeout=120)
            check(r.returncode == want_rc and want_text in r.stderr, "CYCLONEDDS_URI=%s refused by %s: %d %s"
                  % (uri[:60], cmd[0], r.returncode, r.stderr[-400:]))

    # a Python host gets the status, not a process that grows without end (the Python part runs where the
    # library is uninstrumented: the sanitizer build sets no SENSIM_LIBRARY)
    if os.environ.get("SENSIM_LIBRARY"):
        r = subprocess.run(["/usr/bin/python3", "-c", "import sensim\ntry:\n    sensim.Ros2Publisher()\nexcept "
                            "sensim.OutOfRange as e:\n    print('refused:', e)"],
                           env=dict(py_env, CYCLONEDDS_URI="file://" + big), capture_output=True, text=True,
                           timeout=120)
        check(r.returncode == 0 and "refused:" in r.stdout and "MaxAutoParticipantIndex 2000000000 is above 119"
              in r.stdout, "Ros2Publisher() with the unbounded config raises OutOfRange: %s %s"
              % (r.stdout, r.stderr[-300:]))

    # A signal always ends the run, with 130. Waits are on the state of the process's threads
    # (/proc/PID/task/TID/syscall), the deadlines only guard against a hang.
    def blocked_on(pid, nr, path, main_only=False):
        """Is a thread of @p pid (the main thread alone with @p main_only) inside syscall @p nr (257 openat:
        of the file @p path, read from the process's memory; 1 write: to a descriptor of @p path)?"""
        tasks = [str(pid)] if main_only else os.listdir("/proc/%d/task" % pid)
        for t in tasks:
            try:
                f = open("/proc/%d/task/%s/syscall" % (pid, t)).read().split()
                if f[0] != str(nr):
                    continue
                if nr == 257:
                    with open("/proc/%d/mem" % pid, "rb") as mem:
                        mem.seek(int(f[2], 16))
                        if mem.read(len(path) + 1) == path.encode() + b"\0":
                            return True
                elif os.readlink("/proc/%d/fd/%d" % (pid, int(f[1], 16))) == path:
                    return True
            except (OSError, ValueError, IndexError):
                pass
        return False

    def wait_state(p, cond):
        for _ in range(3000):  # a guard of 60 s against a hang
            if p.poll() is not None or cond():
                return p.poll() is None
            time.sleep(0.02)  # the interval of polling the threads' state, not a wait for a result
        return False

    fifo = os.path.join(tmp, "cyclone_trace.fifo")
    os.mkfifo(fifo)
    traced = os.path.join(tmp, "cyclone_traced.xml")
    with open(traced, "w") as f:
        f.write(open(cyc).read().replace("</Domain>", "<Tracing><Verbosity>finest</Verbosity><OutputFile>%s"
                                         "</OutputFile></Tracing></Domain>" % fifo))
    tenv = dict(env, CYCLONEDDS_URI="file://" + traced)
    # 1. SIGTERM while the participant's creation waits for a reader of its trace FIFO (ros2 and topic): before,
    # the interrupted open failed the participant, exit 29 "cannot create a DDS participant"
    for cmd in (["ros2", *run_args, "--rate", "max"], ["topic", "list"]):
        p = subprocess.Popen([SENSIM, *cmd], env=tenv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        inside = wait_state(p, lambda: blocked_on(p.pid, 257, fifo, main_only=True))
        p.send_signal(signal.SIGTERM)
        try:
            err = p.communicate(timeout=60)[1]
        except subprocess.TimeoutExpired:
            p.kill()
            err = p.communicate()[1] + " (still running 60 s after SIGTERM)"
        check(inside and p.returncode == 130 and err.rstrip().endswith("sensim: interrupted"),
              "SIGTERM inside Cyclone's startup ends %s with 130: %s %s" % (cmd[0], p.returncode, err[-300:]))
    # 2. SIGINT while Cyclone's threads are held writing a trace nobody reads (a call a signal does not end):
    # before, the process ran on forever; now 130 within the 3 s grace, saying it left DDS open
    rd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    fcntl.fcntl(rd, 1031, 4096)  # F_SETPIPE_SZ: one page, so the trace fills it at once
    p = subprocess.Popen([SENSIM, "ros2", *run_args, "--rate", "max", "--linger", "forever"], env=tenv,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    held = wait_state(p, lambda: blocked_on(p.pid, 1, fifo))
    p.send_signal(signal.SIGINT)
    try:
        err = p.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        p.kill()
        err = p.communicate()[1] + " (still running 60 s after SIGINT)"
    os.close(rd)
    check(held and p.returncode == 130 and "interrupted; still inside Cyclone DDS 3 s after the signal" in err,
          "SIGINT while Cyclone is held ends ros2 with 130: %s %s" % (p.returncode, err[-300:]))

    # a streamed row refused: the message names stdin and its line; the steps before it were published
    r = subprocess.run([SENSIM, "ros2", "--scene", "street", "--rig", rig, "--trajectory", "-", "--rate", "max"],
                       env=env, input="t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n0.5,-15,0,1.8,0,0,0\n0.7,nan,0,0,0,0,0\n",
                       capture_output=True, text=True, timeout=120)
    check(r.returncode != 0 and "stdin:4" in r.stderr and re.search(r"[1-9]\d* messages published", r.stderr),
          "a bad streamed row ends the run with its line: %d %s" % (r.returncode, r.stderr[-400:]))
    r = subprocess.run([SENSIM, "ros2", "--scene", "street", "--rig", rig, "--trajectory", "-", "--motion", "linear"],
                       env=env, input="", capture_output=True, text=True, timeout=120)
    check(r.returncode == 2 and "causal motion model" in r.stderr, "--trajectory - --motion linear: usage")
    r = subprocess.run([SENSIM, "ros2", "--scene", "street", "--rig", rig, "--trajectory", "-"], env=env, input="",
                       capture_output=True, text=True, timeout=120)
    check(r.returncode != 0 and "stdin: no trajectory row" in r.stderr, "an empty stream: %s" % r.stderr)

check.end()
