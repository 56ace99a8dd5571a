"""The rig's own motion from Python: a co-simulation pushes what it knows
(poses, or states with derivatives) each tick and steps up to it."""
import math
import os
import struct
import subprocess
import tempfile
import unittest

import sensim

try:
    import numpy as np
except ImportError:
    np = None


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()

SINK_ROWS = [(i * 0.1, 2.0 * i, 0.02 * i * i, 1.8, 0.0, 0.0, 3.0 * i) for i in range(5)]
SINK_RIG = ("[sensor roof]\npreset = vlp16\n[sensor cam]\ntype = camera\nwidth = 48\nheight = 32\n"
            "outputs = depth,instance,rgb\nrate_hz = 20\n[sensor imu]\ntype = imu\nmount_xyz_m = 0.5, 0.2, 1\n")


def sink_inputs(tmp, rig_extra):
    """The keys and rig file the sink tests give both batch and the host: (rows, traj path, rig path)."""
    traj, rigf = os.path.join(tmp, "traj.csv"), os.path.join(tmp, "rig.txt")
    with open(traj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n" + "".join(",".join(repr(v) for v in r) + "\n" for r in SINK_ROWS))
    with open(rigf, "w") as f:
        f.write(SINK_RIG + rig_extra)
    return SINK_ROWS, traj, rigf



def circle(t, r=50.0, v=10.0):
    """Platform on a circle of radius r at speed v, heading along the track (a left turn)."""
    th = v / r * t
    x, y = r * math.cos(th), r * math.sin(th)
    yaw = th + math.pi / 2
    c, s = math.cos(yaw), math.sin(yaw)
    pose = [[c, -s, 0, x], [s, c, 0, y], [0, 0, 1, 0], [0, 0, 0, 1]]
    vel = [-v * math.sin(th), v * math.cos(th), 0.0]
    acc = [-v * v / r * math.cos(th), -v * v / r * math.sin(th), 0.0]
    return pose, vel, acc


class RigMotion(unittest.TestCase):
    def run_loop(self, states, steps=300):
        """A 1 kHz loop on a 50 m circle at 10 m/s, one push a step; the worst
        IMU errors from the 6th step on: horizontal force, vertical, yaw rate."""
        ctx = sensim.Context(1)
        scene = sensim.Scene(ctx)
        scene.add_mesh([[-500, -500, -1], [500, -500, -1], [0, 500, -1]], [[0, 1, 2]], tag=1)
        scene.commit()
        rig = sensim.Rig(ctx)
        imu = sensim.Nav(ctx, "imu", {"rate_hz": 1000})
        ring = sensim.NavRing(4096)
        rig.add_nav(imu, ring)
        v, r, g = 10.0, 50.0, 9.80665
        for i in range(steps + 1):
            t_ns = i * 1_000_000
            pose, vel, acc = circle(i * 1e-3)
            if states:
                rig.push_state(t_ns, pose, velocity=vel, acceleration=acc,
                               angular_velocity_deg=[0, 0, math.degrees(v / r)])
            else:
                rig.push_pose(t_ns, pose)
            if i > 0:
                rig.step(scene, 1_000_000)
        worst = [0.0, 0.0, 0.0]
        n = 0
        for _, s in ring.frames():
            n += 1
            if s["index"] < 5:
                continue
            worst[0] = max(worst[0], abs(s["accel"][0]), abs(s["accel"][1] - v * v / r))
            worst[1] = max(worst[1], abs(s["accel"][2] - g))
            worst[2] = max(worst[2], abs(s["gyro"][2] - v / r))
        self.assertEqual(n, steps)
        rig.close()
        imu.close()
        return worst

    def test_push_pose_1khz(self):
        """Poses alone: the specific force within 1e-3 m/s^2, yaw rate within 1e-4 rad/s."""
        h, z, w = self.run_loop(states=False)
        self.assertLess(h, 1e-3)
        self.assertLess(z, 1e-3)
        self.assertLess(w, 1e-4)

    def test_push_state_1khz(self):
        """States with the true derivatives: within 1e-9."""
        h, z, w = self.run_loop(states=True)
        self.assertLess(h, 1e-9)
        self.assertLess(z, 1e-9)
        self.assertLess(w, 1e-9)

    def test_history_errors(self):
        """Steps beyond the pushed history, keys out of order and bad states are refused by name."""
        ctx = sensim.Context(1)
        scene = sensim.Scene(ctx)
        scene.add_mesh([[-5, -5, -1], [5, -5, -1], [0, 5, -1]], [[0, 1, 2]], tag=1)
        scene.commit()
        rig = sensim.Rig(ctx)
        rig.push_pose(0, sensim.pose())
        rig.push_pose(1_000_000, sensim.pose(x=0.01))
        with self.assertRaises(sensim.TimeOrder) as e:
            rig.step(scene, 2_000_000)
        self.assertIn("after the last pushed pose", str(e.exception))
        with self.assertRaises(sensim.TimeOrder):
            rig.push_pose(1_000_000, sensim.pose())
        with self.assertRaises(sensim.NotFinite):
            rig.push_state(2_000_000, sensim.pose(), velocity=[float("nan"), 0, 0])
        with self.assertRaises(sensim.InvalidArgument):
            rig.push_state(2_000_000, sensim.pose(), velocity=[1, 2])
        with self.assertRaises(sensim.InvalidArgument):
            rig.push_state(2_000_000, sensim.pose(), angular_velocity=[0, 0, 1], angular_velocity_deg=[0, 0, 1])
        with self.assertRaises(sensim.InvalidArgument):
            rig.push_pose(2.5, sensim.pose())
        with self.assertRaises(sensim.OutOfRange):
            rig.set_world_step(-1)
        rig.set_world_step(7)  # a run started mid-way keeps the whole run's step numbers
        self.assertEqual(rig.step(scene, 1_000_000)["world_step"], 7)
        with self.assertRaises(sensim.InvalidArgument):
            rig.set_world_step(0)  # only before the first step
        k = rig.platform_at(1_000_000)  # on a key: its pose; the 2nd key's velocity from the two keys
        self.assertAlmostEqual(k["pose"][0][3], 0.01, places=12)
        self.assertAlmostEqual(k["velocity"][0], 10.0, places=9)
        # the first key, with nothing before it, takes the first two keys' velocity: the first segment is straight
        self.assertAlmostEqual(rig.platform_at(0)["velocity"][0], 10.0, places=9)
        self.assertAlmostEqual(rig.platform_at(500_000)["pose"][0][3], 0.005, places=12)
        self.assertEqual(rig.platform_at(500_000)["acceleration"], [0.0, 0.0, 0.0])
        rig.close()


    @unittest.skipIf(np is None or sensim.POINT_DTYPE is None or not os.environ.get("SENSIM_CLI"),
                     "numpy (in sensim too) and the sensim command")
    def test_batch_equals_rig(self):
        """`sensim batch` on a curving trajectory gives the points a Python rig gives when it is
        pushed the same keys and stepped (any step split): one motion model, bit for bit."""
        rows = [(i * 0.1, 2.0 * i, 0.02 * i * i, 1.8, 0.0, 0.0, 3.0 * i + 0.2 * i * i) for i in range(9)]
        with tempfile.TemporaryDirectory() as tmp:
            traj = os.path.join(tmp, "traj.csv")
            with open(traj, "w") as f:
                f.write("t,x,y,z,roll,pitch,yaw\n")
                for r in rows:
                    f.write(",".join(repr(v) for v in r) + "\n")
            out = os.path.join(tmp, "out")
            r = subprocess.run([os.environ["SENSIM_CLI"], "batch", "--scene", "street", "--lidar", "vlp16",
                                "--trajectory", traj, "--out", out, "--quiet", "--threads", "2"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            batch = []
            for k in range(8):
                with open(os.path.join(out, "frame_%06d.ply" % k), "rb") as f:
                    data = f.read()
                end = data.index(b"end_header\n") + len(b"end_header\n")
                props = [ln.split()[1:] for ln in data[:end].decode().splitlines() if ln.startswith("property")]
                codes = {"float": "<f4", "uint": "<u4", "ushort": "<u2", "uchar": "u1"}
                batch.append(np.frombuffer(data[end:], dtype=[(n, codes[t]) for t, n in props]))
        ctx = sensim.Context(1)
        scene = sensim.Scene(ctx)
        scene.set_flatten(4_000_000)  # as the command's offline runs (--flatten-actors' default)
        scene.add_street()
        scene.commit()
        lidar = sensim.Lidar(ctx, "vlp16")
        ring = sensim.Ring.for_lidar(lidar, 8)
        rig = sensim.Rig(ctx)
        rig.add_lidar(lidar, ring)
        keys = [(int(round(r[0] * 1e9)), sensim.pose(*r[1:])) for r in rows]
        got = []
        t = 0
        for i, (tk, pose) in enumerate(keys):  # a co-simulation: push the pose, then step up to it
            rig.push_pose(tk, pose)
            while i and t < tk:
                dt = min(tk - t, 37_000_000)
                rig.step(scene, dt)
                t += dt
            got += [fr.points for fr in ring.frames()]
        self.assertEqual(len(got), 8)
        for k in range(8):
            self.assertEqual(len(got[k]), len(batch[k]), "frame %d" % k)
            for name in batch[k].dtype.names:  # every PLY property, by the record's field of the same name
                self.assertTrue(np.array_equal(got[k][name], batch[k][name]), "frame %d field %s" % (k, name))
        rig.close()


    @unittest.skipIf(sensim.POINT_DTYPE is None or not os.environ.get("SENSIM_CLI"),
                     "numpy in sensim (ImageRing) and the sensim command")
    def test_frame_sink_writes_what_batch_writes(self):
        """A host's rig with a FrameSink and an ImageSink attached writes the files `sensim batch`
        writes for the same keys: frame and capture JSON, PNG and PFM byte for byte, the PLY too but
        for the world-step comment (a host's steps are its own)."""
        with tempfile.TemporaryDirectory() as tmp:
            rows, traj, rigf = sink_inputs(tmp, "[sensor front]\ntype = radar\nmount_xyz_m = 2, 0, 0.5\n")
            out = os.path.join(tmp, "batch")
            r = subprocess.run([os.environ["SENSIM_CLI"], "batch", "--scene", "street", "--rig", rigf,
                                "--trajectory", traj, "--out", out, "--quiet", "--frame", "carla", "--images",
                                "range,label"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            host = os.path.join(tmp, "host")
            for d in ("roof", "cam", "imu", "front"):
                os.makedirs(os.path.join(host, d))
            ctx = sensim.Context(1)
            scene = sensim.Scene(ctx)
            scene.set_flatten(4_000_000)  # as the command's offline runs (--flatten-actors' default)
            scene.add_street()
            scene.commit()
            lidar = sensim.Lidar(ctx, "vlp16")
            cam = sensim.Camera(ctx, "carla_default", {"width": 48, "height": 32})
            rig = sensim.Rig(ctx)
            li = rig.add_lidar(lidar, sensim.Ring.for_lidar(lidar, 2))
            ci = rig.add_camera(cam, sensim.ImageRing(cam, ("depth", "semantic", "instance", "rgb"), 4), rate_hz=20)
            sink = sensim.FrameSink(os.path.join(host, "roof"), "roof", format="ply", frame="carla",
                                    images=("range", "label"), lidar=lidar)
            rig.attach(li, sink)
            for bad in (65, -1, True, 1.5):
                with self.assertRaises(sensim.OutOfRange):
                    sensim.ImageSink(os.path.join(host, "cam"), "cam", cam, threads=bad)
            isink = sensim.ImageSink(os.path.join(host, "cam"), "cam", cam, frame="carla",
                                     outputs=("depth", "instance", "rgb"), threads=2, queue_bytes=1)
            rig.attach(ci, isink)  # encoder threads, one capture queued at a time: batch's bytes all the same
            imu = sensim.Nav(ctx, "imu", {"mount_xyz_m": "0.5, -0.2, 1"})  # the rig file typed CARLA y = 0.2
            radar = sensim.Radar(ctx, {"mount_xyz_m": "2, 0, 0.5"})
            ii = rig.add_nav(imu, sensim.NavRing(64))
            ri = rig.add_radar(radar, sensim.Ring(4096, 4))
            csvs = [sensim.CsvSink(os.path.join(host, "imu", "imu.csv"), "imu", frame="carla"),
                    sensim.CsvSink(os.path.join(host, "front", "radar.csv"), "radar", frame="carla")]
            rig.attach(ii, csvs[0])
            rig.attach(ri, csvs[1])
            with self.assertRaises(sensim.InvalidArgument):
                sink.close()  # the rig holds it
            for i, row in enumerate(rows):  # batch reads CARLA-frame rows; the host gives native poses
                rig.push_pose(int(round(row[0] * 1e9)), sensim.pose_from_frame("carla", row[1:4], (row[5], row[6], row[4])))
                if i:
                    rig.step(scene, 100_000_000)
            for c in csvs:
                c.commit()
            rig.close()
            sink.close()
            isink.flush()
            st = isink.stats()
            self.assertEqual((st["threads"], st["queued_bytes"]), (2, 0))
            self.assertGreater(st["captures"], 0)
            compared = 0
            for d in ("roof", "cam", "imu", "front"):
                names = sorted(os.path.relpath(os.path.join(a, f), os.path.join(out, d))
                               for a, _, fs in os.walk(os.path.join(out, d)) for f in fs)
                got = sorted(os.path.relpath(os.path.join(a, f), os.path.join(host, d))
                             for a, _, fs in os.walk(os.path.join(host, d)) for f in fs)
                self.assertEqual(got, names)
                for n in names:
                    a, b = (read_bytes(os.path.join(x, d, n)) for x in (out, host))
                    if n.endswith(".ply"):
                        strip = lambda x: b"\n".join(l for l in x.split(b"\n") if not l.startswith(b"comment world_steps"))
                        a, b = strip(a), strip(b)
                    self.assertEqual(a, b, n)
                    compared += 1
            self.assertGreater(compared, 40)
        with self.assertRaises(sensim.InvalidArgument):
            sensim.FrameSink(tmp, "a\0b")
        with self.assertRaises(sensim.InvalidArgument):
            sensim.FrameSink(tmp, "lidar", images=("range",))  # images need the lidar
        with self.assertRaises(sensim.InvalidArgument):
            sensim.FrameSink(tmp, "lidar", format="mcap")

    @unittest.skipIf(sensim.POINT_DTYPE is None or not os.environ.get("SENSIM_CLI"),
                     "numpy in sensim (ImageRing) and the sensim command")
    def test_mcap_sink_writes_what_batch_writes(self):
        """A host's rig with McapSinks attached writes the messages `sensim batch --format mcap` writes for the
        same keys: every PointCloud2, Image, CameraInfo and Imu (per-axis covariances) equal, as
        `sensim bag echo` prints them."""
        cli = os.environ["SENSIM_CLI"]
        with tempfile.TemporaryDirectory() as tmp:
            rows, traj, rigf = sink_inputs(tmp, "noise_accel_stddev_x = 0.05\nnoise_accel_stddev_y = 0.06\n"
                                                "noise_accel_stddev_z = 0.07\n")
            out = os.path.join(tmp, "batch")
            r = subprocess.run([cli, "batch", "--scene", "street", "--rig", rigf, "--trajectory", traj, "--out", out,
                                "--quiet", "--format", "mcap"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            ctx = sensim.Context(1)
            scene = sensim.Scene(ctx)
            scene.set_flatten(4_000_000)  # as the command's offline runs (--flatten-actors' default)
            scene.add_street()
            scene.commit()
            lidar = sensim.Lidar(ctx, "vlp16")
            cam = sensim.Camera(ctx, "carla_default", {"width": 48, "height": 32})
            imu = sensim.Nav(ctx, "imu", {"mount_xyz_m": "0.5, 0.2, 1", "noise_accel_stddev_x": 0.05,
                                          "noise_accel_stddev_y": 0.06, "noise_accel_stddev_z": 0.07})
            host = os.path.join(tmp, "host")
            w = sensim.McapWriter(host)
            rig = sensim.Rig(ctx)
            li = rig.add_lidar(lidar, sensim.Ring.for_lidar(lidar, 2))
            ci = rig.add_camera(cam, sensim.ImageRing(cam, ("depth", "semantic", "instance", "rgb"), 4), rate_hz=20)
            ii = rig.add_nav(imu, sensim.NavRing(64))
            sinks = [sensim.McapSink(w, "roof", lidar=lidar), sensim.McapSink(w, "cam", camera=cam),
                     sensim.McapSink(w, "imu", nav_kind="imu", accel_var=(0.05 ** 2, 0.06 ** 2, 0.07 ** 2))]
            for i, sk in zip((li, ci, ii), sinks):
                rig.attach(i, sk)
            with self.assertRaises(sensim.InvalidArgument):
                w.close()  # a sink holds the writer
            for i, row in enumerate(rows):
                rig.push_pose(int(round(row[0] * 1e9)), sensim.pose(*row[1:]))
                if i:
                    rig.step(scene, 100_000_000)
            rig.close()
            for sk in sinks:
                sk.close()
            w.close()
            bags = [os.path.join(out, "sensim_0.mcap"), host + "_0.mcap"]
            topics = ["/roof/points", "/cam/depth/image", "/cam/instance/image", "/cam/rgb/image", "/cam/camera_info",
                      "/imu/imu"]
            for t in topics:
                a, b = (subprocess.run([cli, "bag", "echo", bag, t], capture_output=True, text=True) for bag in bags)
                self.assertEqual((a.returncode, b.returncode), (0, 0), a.stderr + b.stderr)
                self.assertGreater(a.stdout.count("---\n"), 2, t)
                self.assertEqual(a.stdout, b.stdout, t)
            info = subprocess.run([cli, "bag", "info", bags[1]], capture_output=True, text=True).stdout
            # a sink writes what its ring holds: the semantic plane (instance's tag) too, one a capture
            self.assertIn("Topic: /cam/semantic/image | Type: sensor_msgs/msg/Image | Count: 8 |", info)

    def test_listen(self):
        """CARLA's listen(): each sensor's frames reach its callback after every step, in order; an
        exception in a callback comes back from step() after the step happened; None stops listening."""
        ctx = sensim.Context(1)
        scene = sensim.Scene(ctx)
        scene.add_street()
        scene.commit()
        rig = sensim.Rig(ctx)
        lidar = sensim.Lidar(ctx, "vlp16", {"mount_xyz_m": "0,0,1.8"})
        imu = sensim.Nav(ctx, "imu", {"rate_hz": 200})
        li = rig.add_lidar(lidar, sensim.Ring.for_lidar(lidar, 2))
        ii = rig.add_nav(imu, sensim.NavRing(8))
        got = {"lidar": [], "imu": []}
        rig.listen(li, lambda frame: got["lidar"].append((frame.header["frame_number"], len(frame))))
        rig.listen(ii, lambda item: got["imu"].append(item[1]["t_ns"]))
        for k in range(31):
            rig.push_pose(k * 10_000_000, sensim.pose(x=0.1 * k))
            if k:
                rig.step(scene, 10_000_000)  # rings of 2 frames and 8 samples never fill: the callbacks drain them
        self.assertEqual([n for n, _ in got["lidar"]], [0, 1, 2])
        self.assertTrue(all(c > 1000 for _, c in got["lidar"]))
        self.assertEqual(got["imu"], [k * 5_000_000 for k in range(60)])

        def boom(_item):
            raise ValueError("disk full")
        rig.listen(ii, boom)
        rig.push_pose(310_000_000, sensim.pose(x=3.1))
        with self.assertRaises(ValueError):
            rig.step(scene, 10_000_000)
        self.assertAlmostEqual(rig.platform_at(310_000_000)["pose"][0][3], 3.1, places=12)
        rig.listen(ii, None)
        rig.push_pose(320_000_000, sensim.pose(x=3.2))
        rig.step(scene, 10_000_000)  # the clock had moved: this step covers [310, 320) ms
        with self.assertRaises(sensim.InvalidArgument):
            rig.listen(ii, 3)
        with self.assertRaises(sensim.BadIndex):
            rig.listen(7, print)
        rig.close()


class Ros2PublisherArgs(unittest.TestCase):
    """Ros2Publisher's arguments and bookkeeping (delivery over DDS is tests/test_ros2.py's)."""

    @unittest.skipUnless(sensim.ros2_available(), "libsensim built without Cyclone DDS")
    def test_arguments_and_counts(self):
        for bad, err in (({"domain_id": 233}, sensim.OutOfRange), ({"domain_id": -1}, sensim.OutOfRange),
                         ({"domain_id": 1.5}, sensim.InvalidArgument), ({"reliable": 1}, sensim.InvalidArgument)):
            with self.assertRaises(err, msg=str(bad)):
                sensim.Ros2Publisher(**bad)
        old = os.environ.get("ROS_DOMAIN_ID")
        try:
            os.environ["ROS_DOMAIN_ID"] = "12a"
            with self.assertRaises(sensim.OutOfRange) as cm:
                sensim.Ros2Publisher()
            self.assertIn("ROS_DOMAIN_ID", str(cm.exception))
        finally:
            if old is None:
                del os.environ["ROS_DOMAIN_ID"]
            else:
                os.environ["ROS_DOMAIN_ID"] = old
        with sensim.Ros2Publisher(domain_id=231) as p:
            t = p.add_topic("/clock", "Clock")
            with self.assertRaises(sensim.Duplicate):
                p.add_topic("/clock", "Clock")
            self.assertEqual(p.subscribers(t), 0)  # a domain nobody else uses here
            self.assertEqual(p.incompatible(t), (0, ""))
            p.set_node("/robot1", "lidar_sim")
            for ns, name in (("robot1", "sim"), ("/a//b", "sim"), ("/", "1sim"), ("/", "a-b"), ("/", ""),
                             ("/a/", "sim"), ("/9a", "sim")):
                with self.assertRaises(sensim.InvalidArgument, msg=(ns, name)):
                    p.set_node(ns, name)
            with self.assertRaises(sensim.InvalidArgument):
                p.subscribers(t + 1)
            p.write_clock(t, 0, 5)
            p.write_clock(t, 1, 6)
            st = p.stats
            self.assertEqual((st["messages"], st["bytes"], st["files"], st["topics"], st["dropped"]), (2, 24, 0, 1, 0))
        with tempfile.TemporaryDirectory() as tmp:
            w = sensim.McapWriter(os.path.join(tmp, "bag"))
            t = w.add_topic("/clock", "Clock")
            with self.assertRaises(sensim.InvalidArgument):  # a bag has no subscribers
                sensim.Ros2Publisher.subscribers(w, t)
            w.close()


if __name__ == "__main__":
    unittest.main()
