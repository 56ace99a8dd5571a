#!/usr/bin/python3
"""MCAP output read by an independent reader (tests/node/check_mcap.mjs:
@mcap/core parses every record, streaming and indexed, with CRCs;
@foxglove/rosmsg2-serialization decodes every message from the schema text
in the file). Compares what it decodes with known values (tests/mcap_sample.c)
and with the per-frame outputs of the same `sensim batch` run.

Usage: test_mcap.py MCAP_SAMPLE SENSIM NODE_DIR"""
import csv
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

SAMPLE, SENSIM, NODE_DIR = sys.argv[1:4]
failures = 0
passed = 0


def check(cond, what):
    global failures, passed
    if cond:
        passed += 1
    else:
        failures += 1
        print("FAIL:", what)


def run(*args):
    return subprocess.run([SENSIM, *args], capture_output=True, text=True)


def read_mcap(*paths):
    r = subprocess.run(["node", os.path.join(NODE_DIR, "check_mcap.mjs"), *paths], capture_output=True, text=True)
    if r.returncode != 0:
        check(False, "independent reader refused %s: %s" % (paths, r.stderr))
        return None
    return json.loads(r.stdout)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def ply_points(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    n = [int(l.split()[2]) for l in data[:end].decode().splitlines() if l.startswith("element vertex")][0]
    body = data[end:]
    size = len(body) // n if n else 32
    return [struct.unpack_from("<fff", body, i * size) for i in range(n)]


def check_carla_msgs(T, comp):
    """carla_msgs 1.3 as the independent reader decodes them from the schema text in the file, against
    mcap_sample.c's values; every channel carries Jazzy's topic_type_hash (scripts/gen_ros2_msgdefs.py's, which
    tests/test_ros2_typehash.py checks against published hashes)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
    from gen_ros2_msgdefs import type_hash_of
    for topic, v in T.items():
        check(v["type_hash"] == type_hash_of(v["type"]), "%s: %s topic_type_hash %r" % (comp, topic, v["type_hash"]))
    ok = True
    for s, m in enumerate(T["/carla/hero/vehicle_status"]["messages"]):
        x = m["msg"]
        c = x["control"]
        half = math.sin(0.05 * s), math.cos(0.05 * s)
        ok &= (m["stamp_ns"] == str(1000000000 + 50000000 * s) and m["frame_id"] == "map" and x["velocity"] == s
               and x["acceleration"]["linear"] == {"x": 0.5 * s, "y": -1, "z": 0}
               and x["acceleration"]["angular"] == {"x": 0, "y": 0, "z": 0}
               and x["orientation"] == {"x": 0, "y": 0, "z": half[0], "w": half[1]}
               and c["header"] == x["header"] and c["throttle"] == f32(s / 20.0) and c["steer"] == -0.5
               and c["brake"] == 0 and c["hand_brake"] is False and c["reverse"] is bool(s % 2) and c["gear"] == 3
               and c["manual_gear_shift"] is False)
    check(ok, "%s: CarlaEgoVehicleStatus %r" % (comp, T["/carla/hero/vehicle_status"]["messages"][1]))
    c = T["/carla/hero/vehicle_control_cmd"]["messages"][7]["msg"]
    check(c["throttle"] == 1 and c["brake"] == 0.25 and c["hand_brake"] is True and c["reverse"] is False
          and c["header"]["frame_id"] == "hero", "%s: CarlaEgoVehicleControl %r" % (comp, c))
    i = T["/carla/hero/vehicle_info"]["messages"][0]["msg"]
    w = i["wheels"]
    check(i["id"] == 42 and i["type"] == "vehicle.tesla.model3" and i["rolename"] == "hero" and len(w) == 4
          and [x["radius"] for x in w] == [35, 36, 37, 38] and [x["max_steer_angle"] for x in w] == [70, 70, 0, 0]
          and w[3]["position"] == {"x": -150, "y": -80, "z": 35} and w[0]["tire_friction"] == 3.5
          and w[2]["max_handbrake_torque"] == 1500 and i["max_rpm"] == 15000 and i["mass"] == 1845
          and i["use_gear_autobox"] is True and i["gear_switch_time"] == 0.5 and i["clutch_strength"] == 10
          and i["drag_coefficient"] == f32(0.15) and i["damping_rate_zero_throttle_clutch_disengaged"] == f32(0.35)
          and i["center_of_mass"] == {"x": 0.1, "y": 0, "z": -0.3}, "%s: CarlaEgoVehicleInfo %r" % (comp, i))
    ok = True
    for s, m in enumerate(T["/carla/hero/collision"]["messages"]):
        ok &= m["msg"]["other_actor_id"] == 100 + s and m["msg"]["normal_impulse"] == {"x": s, "y": -2, "z": 0.5}
    check(ok, "%s: CarlaCollisionEvent" % comp)
    check([m["msg"]["crossed_lane_markings"] for m in T["/carla/hero/lane_invasion"]["messages"]] == [[1, 2], []],
          "%s: CarlaLaneInvasionEvent" % comp)


with tempfile.TemporaryDirectory() as tmp:
    # ---- the sample: every message type, three compressions ----
    for comp in ("none", "zstd", "lz4"):
        pre = os.path.join(tmp, "s_" + comp)
        r = subprocess.run([SAMPLE, pre, comp], capture_output=True, text=True)
        check(r.returncode == 0 and r.stdout.strip() == "1", "sample %s: %s" % (comp, r.stderr))
        d = read_mcap(pre + "_0.mcap")
        if not d:
            continue
        T = d["topics"]
        check(d["files"][0]["compression"] == ([""] if comp == "none" else [comp]), "%s chunks" % comp)
        check(d["files"][0]["chunks"] > 5, "several chunks (16 KiB each)")
        check({k: v["count"] for k, v in T.items()} ==
              {"/clock": 20, "/lidar/points": 20, "/imu": 20, "/gnss/fix": 20, "/odom": 20, "/tf": 20,
               "/tf_static": 1, "/camera/image": 1, "/camera/camera_info": 1, "/carla/hero/vehicle_status": 20,
               "/carla/hero/vehicle_info": 1, "/carla/hero/vehicle_control_cmd": 20, "/carla/hero/collision": 20,
               "/carla/hero/lane_invasion": 2}, "%s message counts" % comp)
        check_carla_msgs(T, comp)
        ok = True
        for s, m in enumerate(T["/lidar/points"]["messages"]):
            t = 1000000000 + 50000000 * s
            sx = sum(f32(s + i / 1000.0) for i in range(1000))
            ok &= (m["stamp_ns"] == str(t) and m["log_ns"] == str(t + 50000000) and m["width"] == 1000
                   and m["point_step"] == 32 and m["is_dense"] and m["frame_id"] == "lidar"
                   and m["sum_xyz"] == [sx, -499500.0, 1000 * f32(0.5 * s)]
                   and m["t_last"] == 999000)
        check(ok, "%s: PointCloud2 stamps, sizes and the sums of x, y, z of both spans" % comp)
        pcf = T["/lidar/points"]["messages"][0]["fields"]
        check(pcf[:3] == ["x:0:7:1", "y:4:7:1", "z:8:7:1"] and "t:20:6:1" in pcf and "ring:28:4:1" in pcf
              and "t_offset_ns:20:6:1" in pcf and "channel:28:4:1" in pcf, "point fields and aliases %r" % pcf)
        ok = True
        for s, m in enumerate(T["/imu"]["messages"]):
            ok &= (m["accel"] == [0, 0, 9.81] and abs(m["gyro"][2] - 0.1 * s) < 1e-15
                   and abs(m["q"][2] - math.sin(0.05 * s)) < 1e-15 and abs(m["q"][3] - math.cos(0.05 * s)) < 1e-15)
        check(ok, "%s: Imu values (quaternion in ROS order x, y, z, w)" % comp)
        # sensim bag info / echo, read with the command's own reader: the counts the independent reader saw
        if comp == "zstd":
            r = subprocess.run([SENSIM, "bag", "info", pre + "_0.mcap"], capture_output=True, text=True)
            lines = r.stdout.splitlines()
            counts = {l.split("Topic: ")[1].split(" |")[0]: int(l.split("Count: ")[1].split(" |")[0])
                      for l in lines if "Topic: " in l}
            check(r.returncode == 0 and counts == {k: v["count"] for k, v in T.items()}
                  and "Duration:          1.000000000s" in lines and "Messages:          186" in lines
                  and any(l.startswith("Chunks:") and "zstd %d" % d["files"][0]["chunks"] in l for l in lines),
                  "bag info: %s %s" % (r.stdout, r.stderr))
            r = subprocess.run([SENSIM, "bag", "echo", pre + "_0.mcap", "/imu", "-n", "2"], capture_output=True,
                               text=True)
            docs = r.stdout.split("---\n")
            check(r.returncode == 0 and len(docs) == 3 and docs[2] == "" and "  frame_id: imu\n" in docs[0]
                  and "linear_acceleration:\n  x: 0.0\n  y: 0.0\n  z: 9.81\n" in docs[0]
                  and "  nanosec: 50000000\n" in docs[1]
                  and "angular_velocity:\n  x: 0.0\n  y: 0.0\n  z: 0.1\n" in docs[1],
                  "bag echo /imu -n 2: %r %s" % (r.stdout[:300], r.stderr))
            r = subprocess.run([SENSIM, "bag", "echo", pre + "_0.mcap", "/lidar/points", "-n", "1"],
                               capture_output=True, text=True)
            check(r.returncode == 0 and "\nwidth: 1000\n" in r.stdout and "- name: x\n  offset: 0\n  datatype: 7\n"
                  in r.stdout and "data: '<sequence type: uint8, length: 32000>'\n" in r.stdout
                  and "is_dense: true\n" in r.stdout, "bag echo a cloud: %r %s" % (r.stdout[-400:], r.stderr))
            r = subprocess.run([SENSIM, "bag", "echo", pre + "_0.mcap", "/tf"], capture_output=True, text=True)
            check(r.returncode == 0 and r.stdout.count("---\n") == 20
                  and "transforms:\n- header:\n    stamp:\n" in r.stdout
                  and "  child_frame_id: base_link\n" in r.stdout, "bag echo /tf: %r" % r.stdout[:300])
            r = subprocess.run([SENSIM, "bag", "echo", pre + "_0.mcap", "/nope"], capture_output=True, text=True)
            check(r.returncode >= 10 and "no topic '/nope'" in r.stderr, "bag echo of a missing topic: %r" % r.stderr)
            cut = os.path.join(tmp, "cut.mcap")
            with open(pre + "_0.mcap", "rb") as f, open(cut, "wb") as g:
                g.write(f.read()[:5000])
            r = subprocess.run([SENSIM, "bag", "info", cut], capture_output=True, text=True)
            check(r.returncode >= 10 and "cut.mcap" in r.stderr and len(r.stderr.splitlines()) == 1,
                  "bag info of a cut bag: %r" % r.stderr)
            # hostile bags: an uncompressed bag with bytes changed here and there (schemas, lengths, counts);
            # echo of every topic gives output or one error line, never a crash or a hang
            plain = os.path.join(tmp, "s_none_0.mcap")
            raw = bytearray(open(plain, "rb").read()) if os.path.exists(plain) else bytearray()
            bad_runs = 0
            for k in range(60 if raw else 0):
                m = bytearray(raw)
                for j in range(1 + k % 4):
                    pos = (k * 7919 + j * 104729) % len(m)
                    m[pos] = (m[pos] + 1 + 37 * j) % 256
                path = os.path.join(tmp, "mut.mcap")
                with open(path, "wb") as f:
                    f.write(m)
                for topic in ("/imu", "/tf", "/lidar/points", "/camera/camera_info"):
                    r = subprocess.run([SENSIM, "bag", "echo", path, topic], capture_output=True, timeout=60)
                    bad_runs += not (r.returncode == 0 or (10 <= r.returncode < 128 and
                                                           len(r.stderr.splitlines()) == 1))
            check(raw and bad_runs == 0, "bag echo of 60 mutated bags: %d crashes or unclear failures" % bad_runs)
            # issue 62 item 15: a message that does not decode prints nothing of itself (it printed its header's
            # lines before the error), and the error names topic, type and the byte where decoding stopped
            if raw:
                m = bytearray(raw)
                i = m.index(b"\x04\x00\x00\x00imu\x00")  # the first Imu's header.frame_id, its length made huge
                m[i:i + 4] = b"\xff\xff\xff\x7f"
                path = os.path.join(tmp, "bad_imu.mcap")
                with open(path, "wb") as f:
                    f.write(m)
                r = subprocess.run([SENSIM, "bag", "echo", path, "/imu"], capture_output=True, text=True)
                check(r.returncode >= 10 and r.stdout == "" and "/imu" in r.stderr
                      and "sensor_msgs/msg/Imu" in r.stderr and "byte 16 of" in r.stderr,
                      "bag echo of a malformed Imu: nothing printed, the error names topic, type, offset: %r %r"
                      % (r.stdout[:200], r.stderr))
        g = T["/gnss/fix"]["messages"][3]
        check(abs(g["lat"] - 48.000003) < 1e-12 and g["lon"] == 11 and g["alt"] == 500 and g["status"] == 0
              and g["service"] == 1 and g["cov_type"] == 2, "%s: NavSatFix %r" % (comp, g))
        o = T["/odom"]["messages"][4]
        check(o["p"] == [2.0, 0, 0] and o["q"] == [0, 0, 0, 1] and o["v"] == [10, 0, 0] and o["child"] == "base_link"
              and o["frame_id"] == "odom", "%s: Odometry %r" % (comp, o))
        ts = T["/tf_static"]["messages"][0]["transforms"]
        check(ts[0]["t"] == [0, 0, 1.8] and ts[1]["child"] == "camera_optical"
              and ts[1]["q"] == [-0.5, 0.5, -0.5, 0.5], "%s: static transforms (optical rotation of REP-103) %r" % (comp, ts))
        im = T["/camera/image"]["messages"][0]
        ci = T["/camera/camera_info"]["messages"][0]
        check(im["width"] == 4 and im["height"] == 3 and im["encoding"] == "rgb8" and im["bytes"] == 36
              and ci["k"] == [2, 0, 1.5, 0, 2, 1, 0, 0, 1] and ci["d"] == [-0.25, 0, 0, 0, 0]
              and ci["distortion_model"] == "plumb_bob", "%s: Image and CameraInfo" % comp)
        clocks = [int(m["clock_ns"]) for m in T["/clock"]["messages"]]
        check(clocks == [1000000000 + 50000000 * s for s in range(20)], "%s: /clock" % comp)

    # split by duration: files of 200 ms of log time, each complete on its own
    pre = os.path.join(tmp, "split")
    r = subprocess.run([SAMPLE, pre, "zstd", "200000000"], capture_output=True, text=True)
    nfiles = int(r.stdout.strip() or 0)
    # 1.0 .. 2.0 s of log time: 6 files if in order; the clouds logged 50 ms late move the cuts
    check(r.returncode == 0 and 6 <= nfiles <= 7, "200 ms files: %r %r" % (r.stdout, r.stderr))
    total = 0
    for k in range(nfiles):
        d = read_mcap("%s_%d.mcap" % (pre, k))
        if d:
            total += d["files"][0]["messages"]
            times = [int(m["log_ns"]) for t in d["topics"].values() for m in t["messages"]]
            # the sample logs each cloud 50 ms after the step's other messages
            check(max(times) - min(times) < 250000000, "file %d spans under 200 ms + 50 ms" % k)
    check(total == 186, "the split files hold every message once: %d" % total)

    # ---- sensim batch --format mcap against the per-frame run ----
    traj = os.path.join(tmp, "traj.csv")
    with open(traj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n")
        for i in range(0, 101):
            t = i * 0.01
            f.write("%g,%g,%g,1.8,0,0,%g\n" % (t, -60 + 8 * t, 0.4 * math.sin(t), 6 * math.sin(0.5 * t)))
    ply, mc = os.path.join(tmp, "ply"), os.path.join(tmp, "mc")
    r1 = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", ply, "--quiet")
    r2 = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", mc, "--format", "mcap",
             "--quiet")
    check(r1.returncode == 0 and r2.returncode == 0, "batch ply and mcap: %s %s" % (r1.stderr, r2.stderr))
    check(sorted(os.listdir(mc)) == [".sensim.lock", "meta.json", "sensim_0.mcap"], "mcap run folder %r" % os.listdir(mc))
    d = read_mcap(os.path.join(mc, "sensim_0.mcap"))
    if d:
        T = d["topics"]
        frames = sorted(n for n in os.listdir(ply) if n.endswith(".ply"))
        msgs = T["/lidar/points"]["messages"]
        check(len(msgs) == len(frames) == 10, "one PointCloud2 per frame: %d %d" % (len(msgs), len(frames)))
        ok = True
        for m, fn in zip(msgs, frames):
            pts = ply_points(os.path.join(ply, fn))
            with open(os.path.join(ply, fn[:-4] + ".json")) as f:
                fj = json.load(f)
            sums = [sum(p[i] for p in pts) for i in range(3)]
            ok &= (m["width"] == len(pts) == fj["points"] and m["stamp_ns"] == str(fj["t_begin_ns"])
                   and m["log_ns"] == str(fj["t_end_ns"]) and m["sum_xyz"] == sums)
        check(ok, "point counts, stamps (frame start) and coordinates equal the PLY run's")
        check(T["/clock"]["count"] == 10 and T["/tf"]["count"] == 10 and T["/odom"]["count"] == 10
              and T["/tf_static"]["count"] == 1, "clock, tf, odom per world step; one tf_static")
        tf0 = T["/tf"]["messages"][0]["transforms"][0]
        check(tf0["parent"] == "odom" and tf0["child"] == "base_link" and tf0["t"] == [-60, 0, 1.8],
              "platform transform at t = 0: %r" % tf0)
    mc2 = os.path.join(tmp, "mc2")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", mc2, "--format", "mcap",
            "--no-tf", "--no-odom", "--topic-prefix", "/sim/ego", "--mcap-compression", "lz4", "--frames", "0:3",
            "--quiet")
    d = read_mcap(os.path.join(mc2, "sensim_0.mcap")) if r.returncode == 0 else None
    check(d is not None and sorted(d["topics"]) == ["/sim/ego/clock", "/sim/ego/lidar/points"]
          and d["topics"]["/sim/ego/lidar/points"]["count"] == 3 and d["files"][0]["compression"] == ["lz4"],
          "--no-tf --no-odom --topic-prefix --frames: %r %s" % (d and sorted(d["topics"]), r.stderr))

    # a rig of every sensor kind: the same samples as the CSV run, images as the camera renders them
    rig = os.path.join(tmp, "rig.txt")
    with open(rig, "w") as f:
        f.write("[sensor roof]\npreset = vlp16\nmount_xyz_m = 0, 0, 0.3\n\n"
                "[sensor cam-front]\ntype = camera\nwidth = 64\nheight = 48\nrate_hz = 20\n"
                "outputs = depth, semantic, instance, rgb\nmount_xyz_m = 1.5, 0, 0.2\n\n"
                "[sensor imu]\ntype = imu\nrate_hz = 100\nnoise_accel_stddev_x = 0.05\nnoise_accel_stddev_y = 0.06\n"
                "noise_accel_stddev_z = 0.07\nnoise_gyro_stddev_z = 0.001\n\n"
                "[sensor gps]\ntype = gnss\nlatitude = 48\nlongitude = 11\naltitude = 500\nnoise_lat_stddev = 1e-5\n"
                "noise_lon_stddev = 2e-5\nnoise_alt_stddev = 0.5\n\n"
                "[sensor radar]\ntype = radar\nmount_xyz_m = 2, 0, 0\n")
    csvout, mcr = os.path.join(tmp, "rig_csv"), os.path.join(tmp, "rig_mc")
    traj_rig = os.path.join(tmp, "traj_rig.csv")  # 0.5 s
    with open(traj_rig, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n")
        for i in range(0, 51):
            t = i * 0.01
            f.write("%g,%g,%g,1.8,0,0,%g\n" % (t, -60 + 8 * t, 0.4 * math.sin(t), 6 * math.sin(0.5 * t)))
    r1 = run("batch", "--scene", "street", "--rig", rig, "--trajectory", traj_rig, "--out", csvout, "--quiet")
    r2 = run("batch", "--scene", "street", "--rig", rig, "--trajectory", traj_rig, "--out", mcr, "--format", "mcap",
             "--quiet")
    check(r1.returncode == 0 and r2.returncode == 0, "rig runs: %s %s" % (r1.stderr, r2.stderr))
    d = read_mcap(os.path.join(mcr, "sensim_0.mcap"))
    if d:
        T = d["topics"]
        check(sorted(T) == sorted(["/clock", "/tf", "/tf_static", "/odom", "/roof/points", "/cam_front/depth/image",
                                   "/cam_front/semantic/image", "/cam_front/instance/image", "/cam_front/rgb/image",
                                   "/cam_front/camera_info", "/imu/imu", "/gps/fix", "/radar/detections"]),
              "rig topics ('-' becomes '_'): %r" % sorted(T))
        with open(os.path.join(csvout, "imu", "imu.csv")) as f:
            rows = list(csv.DictReader(f))
        mi = T["/imu/imu"]["messages"]
        check(len(mi) == len(rows) == 50 and all(
            m["stamp_ns"] == row["t_ns"] and m["accel"] == [float(row["ax"]), float(row["ay"]), float(row["az"])]
            and m["gyro"] == [float(row["gx"]), float(row["gy"]), float(row["gz"])] for m, row in zip(mi, rows)),
            "Imu messages equal imu.csv (%d, %d)" % (len(mi), len(rows)))
        # per-axis covariances: the IMU's sigma per axis, not the largest for all three
        close = lambda a, b: all(abs(x - y) <= 1e-15 + 1e-12 * abs(y) for x, y in zip(a, b))
        check(close(mi[0]["cov_accel"], [0.05 ** 2, 0, 0, 0, 0.06 ** 2, 0, 0, 0, 0.07 ** 2])
              and close(mi[0]["cov_gyro"], [0, 0, 0, 0, 0, 0, 0, 0, 0.001 ** 2]),
              "Imu covariances per axis: %r %r" % (mi[0]["cov_accel"], mi[0]["cov_gyro"]))
        with open(os.path.join(csvout, "gps", "gnss.csv")) as f:
            rows = list(csv.DictReader(f))
        mg = T["/gps/fix"]["messages"]
        check(len(mg) == len(rows) and all(m["lat"] == float(r["latitude_deg"]) and m["lon"] == float(r["longitude_deg"])
                                           for m, r in zip(mg, rows)) and mg[0]["cov_type"] == 2,
              "NavSatFix equals gnss.csv")
        # NavSatFix ENU variances from the angular sigmas on the WGS 84 ellipsoid at the fix's latitude
        a_, f_ = 6378137.0, 1 / 298.257223563
        e2 = f_ * (2 - f_)
        phi = math.radians(mg[0]["lat"])
        w = 1 - e2 * math.sin(phi) ** 2
        M, N = a_ * (1 - e2) / w ** 1.5, a_ / math.sqrt(w)
        want = [(math.radians(2e-5) * N * math.cos(phi)) ** 2, 0, 0, 0, (math.radians(1e-5) * M) ** 2, 0, 0, 0, 0.25]
        check(close(mg[0]["cov"], want) and mg[0]["cov"][0] != mg[0]["cov"][4],
              "NavSatFix East/North/Up variances (WGS 84 M and N cos lat): %r vs %r" % (mg[0]["cov"], want))
        with open(os.path.join(csvout, "radar", "radar.csv")) as f:
            rows = list(csv.DictReader(f))
        mr = T["/radar/detections"]["messages"]
        check(sum(m["width"] for m in mr) == len(rows) and "depth:12:7:1" in mr[0]["fields"],
              "radar detections as in radar.csv (%d vs %d)" % (sum(m["width"] for m in mr), len(rows)))
        with open(os.path.join(csvout, "meta.json")) as f:
            meta = json.load(f)
        cam = [s for s in meta["sensors"] if s["name"] == "cam-front"][0]
        ci = T["/cam_front/camera_info"]["messages"][0]
        enc = {k: T["/cam_front/%s/image" % k]["messages"][0]["encoding"] for k in ("depth", "semantic", "instance", "rgb")}
        check(T["/cam_front/camera_info"]["count"] == 10 and ci["frame_id"] == "cam-front_optical"
              and ci["k"] == cam["camera_info"]["K"] and ci["width"] == 64
              and enc == {"depth": "32FC1", "semantic": "mono8", "instance": "rgb8", "rgb": "rgb8"},
              "camera topics: %d captures, K %r, encodings %r" % (T["/cam_front/camera_info"]["count"], ci["k"], enc))
        stat = {t["child"]: t for t in T["/tf_static"]["messages"][0]["transforms"]}
        check(stat["roof"]["t"] == [0, 0, 0.3] and stat["cam-front"]["t"] == [1.5, 0, 0.2]
              and stat["cam-front_optical"]["parent"] == "cam-front", "mounts on /tf_static %r" % sorted(stat))
        logs = []
        for t in T.values():
            logs += [int(m["log_ns"]) for m in t["messages"]]
        check(min(logs) == 0 and max(logs) == 500000000, "log times on the world clock")

    # refusals: one line, usage status, nothing written
    for extra, msg in ((["--frame", "carla"], "REP-103"), (["--resume"], "--resume"),
                       (["--shard", "0/2"], "--shard"), (["--images"], "--images")):
        o = os.path.join(tmp, "bad")
        r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", o,
                "--format", "mcap", *extra)
        check(r.returncode == 2 and msg in r.stderr and not os.path.exists(o), "mcap with %r refused: %r" % (extra, r.stderr))
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", os.path.join(tmp, "bad"),
            "--no-tf")
    check(r.returncode == 2 and "--format mcap" in r.stderr, "--no-tf without mcap refused: %r" % r.stderr)
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", os.path.join(tmp, "bad"),
            "--format", "mcap", "--topic-prefix", "/bad prefix")
    check(r.returncode >= 10 and "/bad prefix" in r.stderr and not os.path.exists(os.path.join(tmp, "bad", "sensim_0.mcap")),
          "a bad topic prefix names itself: %r" % r.stderr)

    # ---- PointCloud2 `ring`: velodyne_pointcloud's numbering, by elevation (0 = the lowest beam) ----
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from ros2_harness import bag_messages

    def cloud_points(msg):
        """(fields {name: (offset, datatype)}, point_step, [raw records]) of a PointCloud2's CDR."""
        b, at = msg[4:], 0

        def u32():
            nonlocal at
            at = (at + 3) & ~3
            at += 4
            return struct.unpack_from("<I", b, at - 4)[0]

        def string():
            nonlocal at
            n = u32()
            at += n
            return b[at - n:at - 1].decode()
        u32(), u32(), string(), u32(), u32()  # stamp, frame_id, height, width
        fields = {}
        for _ in range(u32()):
            name, off = string(), u32()
            dt = b[at]
            at += 1
            u32()
            fields[name] = (off, dt)
        at += 1  # is_bigendian
        step, _, n = u32(), u32(), u32()
        return fields, step, [b[at + i:at + i + step] for i in range(0, n, step)]

    # VLP-16 (manual, laser ids 0..15): -15, +1, -13, +3, ... +15 degrees, so ring = id/2 for even ids
    # and 8 + (id-1)/2 for odd ones
    # and a table with equal elevations (lasers 0, 2 and 3 at -15): the lower laser id first
    ties = [-15, 1, -15, -15, -11, 5, -9, 7, -7, 9, -5, 11, -3, 13, -1, 15]
    tie_rank = {c: r for r, c in enumerate(sorted(range(16), key=lambda i: (ties[i], i)))}
    for preset, want_step in (("vlp16", 36), ("avia", 32), ("ties", 36)):
        o = os.path.join(tmp, "ring_" + preset)
        extra = ["--set", "elevation_deg=" + ",".join(str(e) for e in ties)] if preset == "ties" else []
        r = run("batch", "--scene", "street", "--lidar", "vlp16" if preset == "ties" else preset, "--trajectory", traj,
                "--out", o, "--format", "mcap", "--mcap-compression", "none", "--frames", "0:1", "--quiet", *extra)
        check(r.returncode == 0, "%s bag: %s" % (preset, r.stderr))
        msgs = bag_messages(os.path.join(o, "sensim_0.mcap")).get("/lidar/points", []) if r.returncode == 0 else []
        if not msgs:
            check(False, "%s: a cloud in the bag" % preset)
            continue
        fields, step, recs = cloud_points(msgs[0])
        check(step == want_step and fields.get("channel") == (28, 4) and
              fields.get("ring") == ((32, 4) if want_step == 36 else (28, 4)),
              "%s: point_step %d, channel the laser id at 28, ring %s: %r" % (preset, step, want_step, fields))
        by_ring = {}
        bad = 0
        for rec in recs:
            x, y, z = struct.unpack_from("<fff", rec, 0)
            ch = struct.unpack_from("<H", rec, 28)[0]
            ring = struct.unpack_from("<H", rec, fields["ring"][0])[0]
            if preset == "vlp16":
                bad += ring != (ch // 2 if ch % 2 == 0 else 8 + (ch - 1) // 2)
            elif preset == "ties":
                bad += ring != tie_rank[ch]
            else:
                bad += ring != ch
            by_ring.setdefault(ring, []).append(math.degrees(math.atan2(z, math.hypot(x, y))))
        check(recs and bad == 0, "%s: every point's ring from its laser id (%d of %d wrong)" % (preset, bad, len(recs)))
        if preset == "vlp16":
            med = [sorted(v)[len(v) // 2] for k, v in sorted(by_ring.items())]
            check(sorted(by_ring) == list(range(16)) and all(abs(m - (-15 + 2 * k)) < 0.1 for k, m in enumerate(med)),
                  "vlp16: ring k holds the beam at -15 + 2k degrees: %r" % [round(m, 2) for m in med])

print("test_mcap: %d passed, %d failed" % (passed, failures))
sys.exit(1 if failures else 0)
