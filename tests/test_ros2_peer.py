#!/usr/bin/python3
"""`sensim ros2` seen by a ROS 2 peer built on an independent RTPS stack
(tests/node/ros2_peer.cjs: @foxglove/rtps, the TypeScript stack of a ROS
visualiser), which drops a writer whose announcement lacks an entry it needs
(Cyclone leaves out a reliability equal to the DDS default). The peer's
reader QoS is copied from each writer's announcement, never from sensim:

- every topic is announced with the QoS rmw_cyclonedds gives a ROS 2
  publisher of that kind (SensorDataQoS clouds: best effort, depth 5;
  reliable topics with an infinite blocking time; /tf_static transient
  local), and the peer receives every message of a rig run with
  `--qos reliable`, byte for byte the bag's messages of the same run;
- with the ROS profiles, every reliable topic arrives whole;
- a peer joining after the run still gets /tf_static;
- ros_discovery_info holds the node (`--node`) and exactly the GIDs of the
  writers the peer discovered, as `ros2 node list` / `ros2 node info` read it.

Discovery: Cyclone with SPDP multicast on the loopback interface (the peer's
stack discovers by multicast only), on a domain of its own. Every wait is on
a state a process reports, with a deadline only as a guard.

Usage: test_ros2_peer.py SENSIM NODE_DIR SOURCE_ROOT"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ros2_harness import Checks, Proc, bag_messages, unpad  # noqa: E402 (tests/: beside this file)

SENSIM, NODE_DIR, ROOT = sys.argv[1:4]
PEER = os.path.join(ROOT, "tests", "node", "ros2_peer.cjs")
check = Checks()


def received(got, topic):
    return [unpad(bytes.fromhex(h)) for h in got["messages"].get(topic, [])]


def cdr_string(b, at):
    at = (at + 3) & ~3
    n = struct.unpack_from("<I", b, at)[0]
    return b[at + 4:at + 4 + n - 1].decode(), at + 4 + n


def graph_info(msg, gid_bytes=16):
    """rmw_dds_common/msg/ParticipantEntitiesInfo from its CDR, header included: Gid uint8[16] (Iron and later)
    or Humble's char[24] (the GUID then 8 zero bytes, checked)."""
    b = msg[4:]
    gid, at = b[0:16].hex(), gid_bytes
    if any(b[16:gid_bytes]):
        return None
    nodes = []
    at = (at + 3) & ~3
    (nn,) = struct.unpack_from("<I", b, at)
    at += 4
    for _ in range(nn):
        ns, at = cdr_string(b, at)
        name, at = cdr_string(b, at)
        seqs = []
        for _ in range(2):
            at = (at + 3) & ~3
            (k,) = struct.unpack_from("<I", b, at)
            at += 4
            gids = [b[at + gid_bytes * i:at + gid_bytes * i + gid_bytes] for i in range(k)]
            if any(any(g[16:]) for g in gids):
                return None
            seqs.append([g[:16].hex() for g in gids])
            at += gid_bytes * k
        nodes.append({"namespace": ns, "name": name, "readers": seqs[0], "writers": seqs[1]})
    return {"gid": gid, "nodes": nodes}


with tempfile.TemporaryDirectory() as tmp:
    rig = os.path.join(tmp, "rig.txt")
    with open(rig, "w") as f:
        f.write("[sensor lidar]\npreset = vlp16\nmount_xyz_m = 0, 0, 0.3\n"
                "[sensor cam]\ntype = camera\nwidth = 64\nheight = 48\nrate_hz = 10\noutputs = depth, rgb\n"
                "[sensor imu]\ntype = imu\nrate_hz = 100\n[sensor gnss]\ntype = gnss\nrate_hz = 10\n")
    traj = os.path.join(tmp, "traj.csv")
    with open(traj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n0.5,-15,1,1.8,0,0,10\n1.05,-10,0,1.8,0,0,0\n")
    cyc = os.path.join(tmp, "cyclone.xml")
    with open(cyc, "w") as f:  # SPDP by multicast on lo: the peer's stack discovers no other way
        f.write('<CycloneDDS><Domain><General><Interfaces><NetworkInterface name="lo" multicast="true"/>'
                '</Interfaces><AllowMulticast>spdp</AllowMulticast></General></Domain></CycloneDDS>')
    domain = str(100 + (os.getpid() + 60) % 120)
    env = dict(os.environ, CYCLONEDDS_URI="file://" + cyc, ROS_DOMAIN_ID=domain)
    run_args = ["--scene", "street", "--rig", rig, "--trajectory", traj]

    out = os.path.join(tmp, "bag")
    r = subprocess.run([SENSIM, "batch", *run_args, "--out", out, "--format", "mcap", "--mcap-compression", "none",
                        "--quiet"], env=env, capture_output=True, text=True)
    check(r.returncode == 0, "the bag of the run: %s" % r.stderr)
    bag = bag_messages(os.path.join(out, "sensim_0.mcap"))
    check(len(bag) == 10 and len(bag.get("/lidar/points", [])) == 10, "the bag: 10 topics: %s" % sorted(bag))

    def peer(label, *topics):
        res = os.path.join(tmp, label + ".json")
        p = Proc(["node", PEER, domain, "127.0.0.1", res, *topics], dict(env, NODE_PATH=os.path.join(NODE_DIR,
                                                                                                  "node_modules")),
                 stdin=True)
        check(p.wait_line("^ready$"), "%s: the peer starts: %s" % (label, p.text()))
        return p, res

    def peer_end(p, res, label):
        p.p.stdin.close()
        check(p.finish() == 0, "%s: the peer ends: %s" % (label, p.text()))
        return json.load(open(res)) if os.path.exists(res) else {"publications": [], "messages": {}}

    def publish(label, extra, expect):
        """sensim ros2 once the peer has subscribed to every topic, until the peer has @p expect."""
        p, res = peer(label, "--expect=" + ",".join("%s:%d" % (t, len(bag[t])) for t in expect))
        pub = Proc([SENSIM, "ros2", *run_args, "--rate", "max", "--wait-subscribers", "--linger", "forever",
                    *extra], env)
        check(pub.wait_line("holding /tf_static"), "%s: the run ends and holds: %s" % (label, pub.text()))
        check(p.wait_line("^complete$"), "%s: the peer received every message of %s: %s" % (label, expect, p.text()))
        return p, res, pub

    # ---- --qos reliable: every message of every topic, as the bag holds it ----
    p, res, pub = publish("reliable", ["--qos", "reliable", "--node", "/robot1/lidar_sim"], sorted(bag))
    got = peer_end(p, res, "reliable")
    pub.p.terminate()
    check(pub.finish() == 0, "the lingering publisher ends on SIGTERM: %s" % pub.text())
    msgs = got["messages"]
    for topic, want in sorted(bag.items()):
        have = received(got, topic)
        check(have == want, "reliable: %s: %d messages received, the bag has %d%s" % (
            topic, len(have), len(want), "" if len(have) != len(want) else " (bytes differ)"))
    pubs = {x["topic"]: x for x in got["publications"]}
    check(set(pubs) == set(bag) | {"ros_discovery_info"}, "reliable: every writer seen: %s" % sorted(pubs))
    check(all(x["reliability"] == "reliable" and x["history"] == "keep_all" and x["max_blocking_ns"] >= 2**31 * 1e9
              for t, x in pubs.items() if t != "ros_discovery_info"),
          "reliable: every topic announced reliable, keep all, blocking without limit: %s" % pubs)
    # the ROS graph: one node with exactly the writers the peer discovered
    graph = [graph_info(m) for m in received(got, "ros_discovery_info")]
    check(len(graph) >= 1, "ros_discovery_info received: %s" % graph)
    if graph:
        g = graph[-1]
        writers = {x["gid"] for t, x in pubs.items() if t != "ros_discovery_info"}
        check(len(g["nodes"]) == 1 and g["nodes"][0]["namespace"] == "/robot1" and
              g["nodes"][0]["name"] == "lidar_sim", "the node is /robot1/lidar_sim: %s" % g)
        check(g["nodes"] and set(g["nodes"][0]["writers"]) == writers and len(writers) == len(bag) and
              not g["nodes"][0]["readers"], "the node's writer GIDs are the writers' GUIDs: %s vs %s" % (g, writers))
        check(g["gid"][:24] == next(iter(writers))[:24] if writers else False,
              "the participant GID shares the writers' GUID prefix: %s" % g["gid"])

    # ---- --ros-distro humble: the graph with Humble's 24-byte GIDs ----
    p, res, pub = publish("humble", ["--ros-distro", "humble"], ["/clock"])
    got = peer_end(p, res, "humble")
    pub.p.terminate()
    check(pub.finish() == 0, "humble: the publisher ends: %s" % pub.text())
    graph = [graph_info(m, 24) for m in received(got, "ros_discovery_info")]
    writers = {x["gid"] for x in got["publications"] if x["topic"] != "ros_discovery_info"}
    check(graph and graph[-1] and set(graph[-1]["nodes"][0]["writers"]) == writers and len(writers) == len(bag),
          "--ros-distro humble: 24-byte GIDs (the GUID, 8 zero bytes) of every writer: %s" % graph)

    # ---- ROS profiles: the QoS rmw_cyclonedds announces for each kind of publisher ----
    reliable_topics = ("/imu/imu", "/gnss/fix", "/odom", "/tf", "/clock", "/tf_static")
    p, res, pub = publish("profiles", [], reliable_topics)
    late, late_res = peer("late", "/tf_static")
    check(late.wait_line("^subscribed /tf_static$"), "the late peer subscribes to /tf_static")
    got = peer_end(p, res, "profiles")
    pubs = {x["topic"]: x for x in got["publications"]}
    want_qos = {"/lidar/points": ("best_effort", "volatile", 5), "/cam/rgb/image": ("best_effort", "volatile", 5),
                "/cam/depth/image": ("best_effort", "volatile", 5), "/cam/camera_info": ("best_effort", "volatile", 5),
                "/imu/imu": ("reliable", "volatile", 10), "/gnss/fix": ("reliable", "volatile", 10),
                "/odom": ("reliable", "volatile", 10), "/tf": ("reliable", "volatile", 100),
                "/tf_static": ("reliable", "transient_local", 1), "/clock": ("reliable", "volatile", 1),
                "ros_discovery_info": ("reliable", "transient_local", 1)}
    for topic, (rel, dur, depth) in sorted(want_qos.items()):
        x = pubs.get(topic)
        want_block = 0 if rel == "best_effort" else 2**31 * 1e9
        check(x is not None and (x["reliability"], x["durability"], x["history"], x["depth"]) ==
              (rel, dur, "keep_last", depth) and (x["max_blocking_ns"] >= want_block if want_block else
                                                  x["max_blocking_ns"] == 0),
              "profiles: %s announced %s, %s, keep last %d: %s" % (topic, rel, dur, depth, x))
    for topic in reliable_topics:
        have = received(got, topic)
        check(have == bag[topic], "profiles: reliable %s whole: %d of %d" % (topic, len(have), len(bag[topic])))
    clouds = received(got, "/lidar/points")
    check(clouds and all(c in bag["/lidar/points"] for c in clouds),
          "profiles: each best-effort cloud received is the bag's (%d of 10)" % len(clouds))
    # sensim topic list / echo: the same topics without ROS, while the publisher holds /tf_static
    r = subprocess.run([SENSIM, "topic", "list", "-v", "--wait", "3"], env=env, capture_output=True, text=True,
                       timeout=120)
    listed = {l.split(" [")[0]: l for l in r.stdout.splitlines()}
    check(r.returncode == 0 and set(listed) >= set(bag) and
          "/lidar/points [sensor_msgs/msg/PointCloud2] 1 publisher: best effort, volatile, keep last 5" in r.stdout
          and "/tf_static [tf2_msgs/msg/TFMessage] 1 publisher: reliable, transient local, keep last 1" in r.stdout,
          "sensim topic list -v: every topic with its type and QoS: %s %s" % (r.stdout, r.stderr))
    r = subprocess.run([SENSIM, "topic", "echo", "/tf_static", "-n", "1", "--timeout", "60"], env=env,
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and r.stdout.count("---\n") == 1 and "  child_frame_id: lidar\n" in r.stdout
          and "  child_frame_id: cam_optical\n" in r.stdout,
          "sensim topic echo /tf_static (a late joiner) prints the mounts: %s %s" % (r.stdout[-300:], r.stderr))
    lg = peer_end(late, late_res, "late")
    have = received(lg, "/tf_static")
    check(have == bag["/tf_static"], "a peer joining after the run gets /tf_static: %d message(s)" % len(have))
    pub.p.terminate()
    check(pub.finish() == 0, "the lingering publisher ends on SIGTERM: %s" % pub.text())

    # ---- --stamp EPOCH_S / wall: stamps and /clock on another clock, the messages otherwise the bag's ----
    def stamp_ns(msg):
        sec, nsec = struct.unpack_from("<iI", msg, 4)
        return sec * 1000000000 + nsec

    heads = ("/clock", "/imu/imu", "/lidar/points", "/odom")  # messages that start with their stamp
    for label, arg in (("epoch", "1700000000.5"), ("wall", "wall")):
        before = time.time_ns()
        p, res, pub = publish(label, ["--qos", "reliable", "--stamp", arg], heads)
        after = time.time_ns()
        got = peer_end(p, res, label)
        pub.p.terminate()
        check(pub.finish() == 0, "%s: the publisher ends: %s" % (label, pub.text()))
        offsets, rest_equal = set(), True
        for topic in heads:
            have, want = received(got, topic), bag[topic]
            rest_equal &= len(have) == len(want) and all(h[:4] + h[12:] == w[:4] + w[12:] for h, w in zip(have, want))
            offsets |= {stamp_ns(h) - stamp_ns(w) for h, w in zip(have, want)}
        check(rest_equal and len(offsets) == 1, "%s: every stamp moved by one offset, the rest the bag's: %s" %
              (label, sorted(offsets)))
        off = next(iter(offsets)) if len(offsets) == 1 else None
        if label == "epoch":
            check(off == 1700000000500000000, "--stamp 1700000000.5: the offset exactly: %s" % off)
        else:  # the first step (world time 0) stamped with the wall clock while the run went
            check(off is not None and before <= off <= after, "--stamp wall: the first step at wall time %s in "
                  "[%d, %d]" % (off, before, after))

    # ---- sensim topic hz / echo on a paced stream ----
    long_traj = os.path.join(tmp, "long.csv")
    with open(long_traj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n30,-10,0,1.8,0,0,0\n")
    pub = Proc([SENSIM, "ros2", "--scene", "street", "--rig", rig, "--trajectory", long_traj, "--rate", "realtime"],
               env)
    # hz measures arrivals on the wall clock (as `ros2 topic hz`), which a loaded machine slows:
    # assert that it counts and reports, and take the rate from the stamps (the world's clock)
    r = subprocess.run([SENSIM, "topic", "hz", "/clock", "-n", "300", "--timeout", "120"], env=env,
                       capture_output=True, text=True, timeout=240)
    rates = [float(l.split()[2]) for l in r.stdout.splitlines() if l.startswith("average rate:")]
    check(r.returncode == 0 and rates and all(x > 0 for x in rates),
          "sensim topic hz /clock: reports an average rate over 300 arrivals: %s %s" % (rates, r.stderr))
    r = subprocess.run([SENSIM, "topic", "echo", "/clock", "-n", "40", "--timeout", "120"], env=env,
                       capture_output=True, text=True, timeout=240)
    secs = [int(l.split()[1]) for l in r.stdout.splitlines() if l.strip().startswith("sec:")]
    nsecs = [int(l.split()[1]) for l in r.stdout.splitlines() if l.strip().startswith("nanosec:")]
    stamps = [a * 10**9 + b for a, b in zip(secs, nsecs)]
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    check(r.returncode == 0 and len(stamps) == 40 and gaps and all(g > 0 and g % 10_000_000 == 0 for g in gaps)
          and gaps.count(10_000_000) >= 1,
          "/clock from stamps: 100 Hz of world time (every gap a positive multiple of the 10 ms step): %s %s"
          % (sorted(set(gaps))[:5], r.stderr[-300:]))
    r = subprocess.run([SENSIM, "topic", "echo", "/imu/imu", "-n", "3", "--timeout", "60"], env=env,
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and r.stdout.count("---\n") == 3 and "  frame_id: imu\n" in r.stdout
          and "linear_acceleration:\n" in r.stdout, "sensim topic echo /imu/imu -n 3: %s %s" % (r.stdout[:300],
                                                                                          r.stderr))
    pub.p.terminate()
    pub.finish()
    r = subprocess.run([SENSIM, "topic", "echo", "/nobody", "--wait", "1"], env=env, capture_output=True, text=True,
                       timeout=120)
    check(r.returncode == 10 + 8 and "no publisher of /nobody" in r.stderr,
          "echo of a topic nobody publishes: %d %s" % (r.returncode, r.stderr))

check.end()
