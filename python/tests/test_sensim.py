"""Tests of the ctypes package. Run by `make test` (meson) with Debian's
/usr/bin/python3 (numpy), and once more with SENSIM_DISABLE_NUMPY=1."""
import ctypes
import gc
import math
import os
import struct
import subprocess
import sys
import tempfile
import threading
import unittest

import sensim
from sensim import _lib

np = None
if sensim.HAVE_NUMPY:
    import numpy as np

CLI = os.environ.get("SENSIM_CLI")
SIZES = os.environ.get("SENSIM_STRUCT_SIZES")
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

PLANE = "o ground_road\nv -1000 -1000 0\nv 1000 -1000 0\nv 1000 1000 0\nv -1000 1000 0\nf 1 2 3 4\n"


def read_ply(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    lines = data[:end].decode().splitlines()
    count = int([l for l in lines if l.startswith("element vertex")][0].split()[2])
    props = [l.split()[1:] for l in lines if l.startswith("property")]
    codes = {"float": "f", "uint": "I", "ushort": "H", "uchar": "B"}
    fmt = "<" + "".join(codes[t] for t, _ in props)
    names = [n for _, n in props]
    return [dict(zip(names, r)) for r in struct.iter_unpack(fmt, data[end:end + count * struct.calcsize(fmt)])]


class Basics(unittest.TestCase):
    def test_version_and_library(self):
        self.assertEqual(sensim.library_version(), sensim.__version__)
        self.assertTrue(os.path.exists(sensim.library_path()) or "libsensim" in sensim.library_path())

    @unittest.skipUnless(SIZES, "struct size helper not given")
    def test_struct_sizes_match_c(self):
        out = subprocess.run([SIZES], capture_output=True, text=True, check=True).stdout.split()
        c = dict(zip(out[0::2], (int(v) for v in out[1::2])))
        self.assertEqual(set(c), set(_lib.STRUCTS))
        for name, cls in _lib.STRUCTS.items():
            self.assertEqual(ctypes.sizeof(cls), c[name], name)

    def test_field_table(self):
        f = sensim.pointcloud2_fields()
        self.assertEqual([d["name"] for d in f], ["x", "y", "z", "intensity", "range", "t_offset_ns", "object_id",
                                                  "channel", "tag", "flags"])
        self.assertEqual(f[0], dict(name="x", offset=0, datatype=7, count=1))
        if np is not None:
            self.assertEqual(sensim.POINT_DTYPE.itemsize, 32)
            self.assertEqual(sensim.POINT_DTYPE.fields["object_id"][1], 24)

    def test_errors_carry_status_and_message(self):
        with sensim.Context(1) as ctx:
            with self.assertRaises(sensim.NotFound) as e:
                sensim.Lidar(ctx, "no_such_preset")
            self.assertEqual(e.exception.status, 15)
            self.assertIn("no_such_preset", e.exception.message)
            with self.assertRaises(sensim.UnknownKey):
                sensim.Lidar(ctx, "vlp16", {"nope": 1})
            with tempfile.TemporaryDirectory() as d:
                bad = os.path.join(d, "bad.obj")
                with open(bad, "w") as f:
                    f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n")
                scene = sensim.Scene(ctx)
                with self.assertRaises(sensim.BadIndex) as e:
                    scene.load(bad)
                self.assertIn("bad.obj:4", str(e.exception))
                self.assertIsInstance(e.exception, sensim.Error)
            lidar = sensim.Lidar(ctx, "vlp16")
            lidar.close()
            lidar.close()  # idempotent
            with self.assertRaises(sensim.BadHandle):
                lidar.info
            with self.assertRaises(sensim.NotCommitted):
                sensim.Lidar(ctx, "vlp16").scan(scene, 0, 1000, sensim.Ring(1000))
            with self.assertRaises(sensim.TimeOrder):
                scene.add_mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
                scene.commit()
                sensim.Lidar(ctx, "vlp16").scan(scene, 10, 0, sensim.Ring(1000))
            with self.assertRaises(sensim.NotFinite):
                scene.add_mesh([[0, 0, 0], [float("nan"), 0, 0], [0, 1, 0]], [[0, 1, 2]])
            with self.assertRaises(sensim.InvalidArgument):
                scene.set_actor_pose(1, [[1, 0], [0, 1]])

    def test_wrong_types_and_closed_handles(self):
        ctx = sensim.Context(1)
        scene = sensim.Scene(ctx)
        lidar = sensim.Lidar(ctx, "vlp16")
        ring = sensim.Ring(1000)
        with self.assertRaises(sensim.InvalidArgument):
            lidar.scan(ring, 0, 10, scene)  # arguments swapped
        with self.assertRaises(sensim.InvalidArgument):
            sensim.Scene(scene)
        with self.assertRaises(sensim.InvalidArgument):
            sensim.Rig(ctx).add_lidar(scene, ring)
        scene.close()
        with self.assertRaises(sensim.BadHandle):
            lidar.scan(scene, 0, 10, ring)
        ctx.close()
        with self.assertRaises(sensim.BadHandle):
            sensim.Scene(ctx)

    def test_any_destruction_order(self):
        ctx = sensim.Context(1)
        scene = sensim.Scene(ctx)
        scene.add_mesh([[-50, -50, 0], [50, -50, 0], [50, 50, 0], [-50, 50, 0]], [[0, 1, 2], [0, 2, 3]], tag=1)
        scene.commit()
        lidar = sensim.Lidar(ctx, "vlp16")
        ctx.close()  # the C context lives on inside scene and lidar
        ring = sensim.Ring(lidar.info["shots_per_frame"])
        lidar.scan(scene, 0, 100000000, ring, pose=sensim.pose(z=2))
        self.assertGreater(len(ring.pop()), 1000)
        del scene
        gc.collect()
        lidar.close()

    def test_frames_and_tags(self):
        m = sensim.pose_from_frame("carla", (1, 2, 3), (10, 20, 30))
        loc, rot = sensim.pose_to_frame("carla", m)
        for a, b in zip(loc + rot, (1, 2, 3, 10, 20, 30)):
            self.assertAlmostEqual(a, b, places=9)
        self.assertEqual(sensim.point_to_frame("ue", (1, 2, 3)), (100.0, -200.0, 300.0))
        self.assertEqual(sensim.point_from_frame("carla", (1, 2, 3)), (1.0, -2.0, 3.0))
        self.assertEqual(sensim.tag_name(14), "Car")
        self.assertEqual(sensim.tag_from_name("my_building"), 3)
        self.assertAlmostEqual(sensim.material_default(8)["retro_gain"], 5.0)


class Scanning(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.ctx = sensim.Context(2)

    def tearDown(self):
        self.ctx.close()
        self.tmp.cleanup()

    @unittest.skipUnless(CLI, "sensim CLI path not given")
    def test_scan_equals_cli_ply(self):
        plane = os.path.join(self.tmp.name, "plane.obj")
        with open(plane, "w") as f:
            f.write(PLANE)
        out = os.path.join(self.tmp.name, "cli")
        subprocess.run([CLI, "scan", "--scene", plane, "--lidar", "pandar64", "--pose", "1,2,1.8,0,0,20",
                        "--set", "range_noise_stddev_m=0.02", "--seed", "9", "--out", out], check=True,
                       capture_output=True)
        cli = read_ply(os.path.join(out, "frame_000000.ply"))
        scene = sensim.Scene(self.ctx)
        scene.load(plane)
        scene.commit()
        lidar = sensim.Lidar(self.ctx, "pandar64", {"range_noise_stddev_m": 0.02, "seed": 9})
        ring = sensim.Ring(lidar.info["shots_per_frame"])
        # the CLI moves with zero velocity: two identical keys over the frame
        p = sensim.pose(1, 2, 1.8, 0, 0, 20)  # degrees, as --pose
        lidar.scan(scene, 0, 100000000, ring, keys=[(0, p), (100000000, p)])
        frame = ring.pop()
        self.assertEqual(len(frame), len(cli))
        names = {"x": "x", "y": "y", "z": "z", "intensity": "intensity", "range": "range", "t_offset_ns": "t_offset_ns",
                 "object_id": "object_id", "channel": "channel", "tag": "tag", "flags": "flags"}
        recs = sensim.unpack_points(frame.points) if np is None else None
        for i, c in enumerate(cli):
            for ply_name, name in names.items():
                v = frame.points[name][i] if np is not None else recs[i][name]
                if isinstance(c[ply_name], float):
                    self.assertEqual(struct.pack("<f", c[ply_name]), struct.pack("<f", float(v)))
                else:
                    self.assertEqual(c[ply_name], int(v))

    def test_views_outlive_their_makers(self):
        scene = sensim.Scene(self.ctx)
        scene.add_mesh([[-50, -50, 0], [50, -50, 0], [50, 50, 0], [-50, 50, 0]], [[0, 1, 2], [0, 2, 3]], tag=1)
        scene.commit()
        lidar = sensim.Lidar(self.ctx, "vlp16", {"beam": "ideal"})
        ring = sensim.Ring(lidar.info["shots_per_frame"])
        lidar.scan(scene, 0, 100000000, ring, pose=sensim.pose(z=2))
        header, view = ring.peek()
        copy = ring.pop()  # the same frame, copied
        del ring, lidar, scene
        gc.collect()
        # the view keeps the ring's memory alive: reading it is safe
        n = header["point_count"]
        self.assertEqual(len(copy), n)
        if np is not None:
            self.assertTrue(np.array_equal(view, copy.points))
            self.assertTrue(np.all(copy.points["tag"] == 1))
            self.assertLess(abs(float(copy.points["z"].max()) + 2.0), 1e-3)
        else:
            self.assertEqual(bytes(view), bytes(copy.points))
            self.assertTrue(all(r["tag"] == 1 for r in sensim.unpack_points(copy.points)))

    def test_ring_for_lidar_holds_dual_returns(self):
        """Ring.for_lidar: max_points_per_frame (two records a shot) times the frames."""
        plane = os.path.join(self.tmp.name, "plane.obj")
        with open(plane, "w") as f:
            f.write(PLANE)
        scene = sensim.Scene(self.ctx)
        scene.load(plane)
        scene.commit()
        lidar = sensim.Lidar(self.ctx, "vlp16", {"return_mode": "dual"})
        info = lidar.info
        self.assertEqual(info["max_points_per_frame"], 2 * info["shots_per_frame"])
        ring = sensim.Ring.for_lidar(lidar, frames=2)
        self.assertEqual(ring.point_capacity, 2 * info["max_points_per_frame"])
        lidar.scan(scene, 0, 200_000_000, ring, pose=sensim.pose(z=1.8))
        self.assertEqual(len(list(ring.frames())), 2)
        self.assertEqual(ring.stats["points_dropped"] if "points_dropped" in ring.stats else 0, 0)
        with self.assertRaises(sensim.OutOfRange):
            sensim.Ring.for_lidar(lidar, frames=0)
        with self.assertRaises(sensim.InvalidArgument):
            sensim.Ring.for_lidar("vlp16")

    def test_ring_policies_and_stats(self):
        scene = sensim.Scene(self.ctx)
        lo, hi = -10, 10
        v = [[x, y, z] for x in (lo, hi) for y in (lo, hi) for z in (lo, hi)]
        idx = [[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7], [0, 4, 2],
               [2, 4, 6], [1, 3, 5], [3, 7, 5]]
        scene.add_mesh(v, idx, tag=3)
        scene.commit()
        lidar = sensim.Lidar(self.ctx, "vlp16")
        F = lidar.info["shots_per_frame"]
        ring = sensim.Ring(F + 10, 4, "fail")
        lidar.scan(scene, 0, 100000000, ring)
        with self.assertRaises(sensim.RingFull):
            lidar.scan(scene, 100000000, 200000000, ring)
        self.assertEqual(ring.stats["scans_refused"], 1)
        # the scan stops at the first chunk that no longer fits: more than the
        # 10 free points, at most the frame
        self.assertGreater(ring.stats["points_refused"], 10)
        self.assertLessEqual(ring.stats["points_refused"], F)
        drop = sensim.Ring(F + 10, 4, "drop_oldest")
        lidar2 = sensim.Lidar(self.ctx, "vlp16")
        lidar2.scan(scene, 0, 300000000, drop)
        self.assertEqual(drop.stats["frames_dropped"], 2)
        self.assertEqual([f.header["frame_number"] for f in drop.frames()], [2])

    def test_rig_and_motion(self):
        scene = sensim.Scene(self.ctx)
        scene.add_mesh([[30, -100, -100], [30, 100, -100], [30, 100, 100], [30, -100, 100]],
                       [[0, 1, 2], [0, 2, 3]], tag=4)
        car = scene.add_mesh([[-2, -1, 0], [2, -1, 0], [2, 1, 0], [-2, 1, 0], [-2, -1, 1.5], [2, -1, 1.5],
                              [2, 1, 1.5], [-2, 1, 1.5]],
                             [[0, 1, 2], [0, 2, 3], [4, 6, 5], [4, 7, 6]], tag=14, prototype=True)
        scene.add_actor(car, 7, sensim.pose(x=3.5))
        scene.commit()
        l1 = sensim.Lidar(self.ctx, "vlp16")
        r1, rp = sensim.Ring(100000, 8), sensim.Ring(100, 32)
        rig = sensim.Rig(self.ctx)
        rig.add_lidar(l1, r1)
        rig.add_proximity(rp, rate_hz=20, half_extents=(2, 1, 1), front=0.5, sensor_id=9)
        keys = sensim.motion_from_velocity(sensim.pose(), 0, 1000000000, (1, 0, 0))
        rays = sum(rig.step(scene, 25000000, keys=keys)["rays_traced"] for _ in range(4))
        # every shot's 7 beam sub-rays, and mirror rays off the car's paint (tag 14: specular 0.1)
        self.assertGreater(rays, 7 * l1.count_shots(0, 100000000))
        f = r1.pop()
        self.assertEqual((f.header["t_begin_ns"], f.header["t_end_ns"]), (0, 100000000))
        self.assertEqual((f.header["world_step_first"], f.header["world_step_last"]), (0, 3))
        prox = list(rp.frames())
        self.assertEqual(len(prox), 2)
        self.assertTrue(all(p.header["sensor_id"] == 9 for p in prox))
        ids = [int(x) for x in (prox[0].points["object_id"] if np is not None
                                else [r["object_id"] for r in sensim.unpack_points(prox[0].points)])]
        self.assertEqual(ids, [7])

    def test_pattern_tools(self):
        lidar = sensim.Lidar(self.ctx, "mid40")
        s = lidar.pattern_stats(0, 1000000000, math.radians(0.5), [100000000, 1000000000])
        self.assertAlmostEqual(math.degrees(s["full_fov_rad"]), 38.4, delta=0.5)
        self.assertEqual(s["shots"], 100000)
        self.assertLess(s["coverage"][0], s["coverage"][1])
        out = os.path.join(self.tmp.name, "m.csv")
        self.assertEqual(lidar.export_csv(0, 10000000, out), 1000)
        replay = sensim.Lidar(self.ctx, out, {"shots_per_s": 100000})
        self.assertEqual(replay.info["table_size"], 1000)


@unittest.skipIf(os.environ.get("SENSIM_DISABLE_NUMPY"), "already the no-numpy run")
class Hostile(unittest.TestCase):
    """Misuse from Python gets an exception, never a crash or a wrapped value."""

    def setUp(self):
        self.ctx = sensim.Context(1)

    def plane_scene(self):
        scene = sensim.Scene(self.ctx)
        scene.add_mesh([[-100, -100, 0], [100, -100, 0], [100, 100, 0], [-100, 100, 0]], [[0, 1, 2], [0, 2, 3]],
                       tag=1)
        scene.commit()
        return scene

    def test_times_never_wrap(self):
        scene = self.plane_scene()
        lidar, ring = sensim.Lidar(self.ctx, "vlp16"), sensim.Ring(100000, 4)
        with self.assertRaises(sensim.OutOfRange):
            lidar.scan(scene, 0, 2 ** 63, ring)  # was INT64_MIN after ctypes wrapped it
        with self.assertRaises(sensim.OutOfRange):
            lidar.scan(scene, 2 ** 62 + 1, 2 ** 62 + 2, ring)  # fits int64, beyond the library's bound
        with self.assertRaises(sensim.InvalidArgument):
            lidar.scan(scene, 0.5, 1, ring)
        with self.assertRaises(sensim.OutOfRange):
            lidar.scan(scene, 0, 1000, ring, pose=sensim.pose(x=1e20))

    def test_close_scene_during_scan(self):
        scene = self.plane_scene()
        lidar = sensim.Lidar(self.ctx, "pandar64")
        ring = sensim.Ring(4000000, 16, "drop_oldest")
        started, outcome = threading.Event(), []

        def scan():
            started.set()
            try:
                outcome.append(lidar.scan(scene, 0, 1000000000, ring, pose=sensim.pose(z=1.8)))
            except sensim.BadHandle as e:  # the close came first: refused, not crashed
                outcome.append(e)
        for _ in range(5):
            th = threading.Thread(target=scan)
            th.start()
            started.wait()
            scene.close()  # waits for a running scan (ctypes released the GIL) instead of freeing under it
            th.join()
            self.assertEqual(len(outcome), 1)
            self.assertTrue(isinstance(outcome[0], (dict, sensim.BadHandle)), outcome)
            outcome.clear()
            started.clear()
            scene = self.plane_scene()
            lidar = sensim.Lidar(self.ctx, "pandar64")

    def test_lidar_in_rig_cannot_be_closed(self):
        scene = self.plane_scene()
        lidar = sensim.Lidar(self.ctx, "vlp16")
        rig = sensim.Rig(self.ctx)
        rig.add_lidar(lidar, sensim.Ring(200000, 8))
        with self.assertRaises(sensim.InvalidArgument):
            lidar.close()  # was a use-after-free at the next step
        rig.step(scene, 100000000, pose=sensim.pose(z=2))
        rig.close()
        lidar.close()
        with self.assertRaises(sensim.BadHandle):
            lidar.info


class RayQueries(unittest.TestCase):
    """Scene.intersect / occluded against the plane z = 0."""

    def setUp(self):
        self.ctx = sensim.Context(2)
        self.scene = sensim.Scene(self.ctx)
        self.scene.add_mesh([[-100, -100, 0], [100, -100, 0], [100, 100, 0], [-100, 100, 0]], [[0, 1, 2], [0, 2, 3]],
                            tag=1)
        self.scene.commit()

    @unittest.skipIf(np is None, "numpy")
    def test_numpy_zero_copy_and_analytic(self):
        rng = np.random.default_rng(5)
        n = 20000
        table = np.zeros((n, 8), np.float32)  # origin, direction, 2 more columns: strided views, no copy
        table[:, 0:2] = rng.uniform(-20, 20, (n, 2))
        table[:, 2] = rng.uniform(0.5, 5, n)
        table[:, 3:6] = rng.uniform(-1, 1, (n, 3))
        table[:, 5] -= 0.2
        o, d = table[:, 0:3], table[:, 3:6]
        h = self.scene.intersect(o, d)
        self.assertEqual(h.dtype, sensim.RAY_HIT_DTYPE)
        self.assertEqual(sensim.RAY_HIT_DTYPE.itemsize, 40)
        dz = d[:, 2] / np.linalg.norm(d.astype(np.float64), axis=1)
        t = -o[:, 2] / dz
        xy = o[:, :2] + (t / np.linalg.norm(d.astype(np.float64), axis=1))[:, None] * d[:, :2]
        expect = (dz < 0) & (np.abs(xy) < 99.99).all(axis=1)
        sure = expect | (dz >= 0) | (np.abs(xy) > 100.01).any(axis=1)
        self.assertTrue(np.array_equal(h["hit"][sure] == 1, expect[sure]))
        self.assertLess(np.max(np.abs(h["distance"][expect] - t[expect]) / t[expect]), 1e-5)
        self.assertTrue(np.all(h["normal"][expect][:, 2] > 0.999999))
        self.assertTrue(np.all(np.isinf(h["distance"][~h["hit"].astype(bool)])))
        # out= is written in place; occluded agrees with intersect
        out = np.empty(n, sensim.RAY_HIT_DTYPE)
        self.assertIs(self.scene.intersect(o, d, out=out), out)
        self.assertEqual(out.tobytes(), h.tobytes())
        occ = self.scene.occluded(o, d, tfar=np.full(n, 10, np.float32))
        self.assertTrue(np.array_equal(occ[sure], (expect & (t < 10))[sure]))

    def test_hostile_arguments(self):
        with self.assertRaises(sensim.InvalidArgument):
            self.scene.intersect([[0, 0, 1]], [[0, 0, -1], [0, 0, -1]])
        with self.assertRaises(sensim.InvalidArgument):
            self.scene.intersect([[0, 0, 1, 4]], [[0, 0, -1]])
        with self.assertRaises(sensim.NotFinite) as e:
            self.scene.intersect([[0, 0, 1], [0, float("nan"), 1]], [[0, 0, -1], [0, 0, -1]])
        self.assertIn("ray 1: origin[1]", str(e.exception))
        with self.assertRaises(sensim.OutOfRange):
            self.scene.intersect([[0, 0, 1]], [[0, 0, 0]])
        with self.assertRaises(sensim.InvalidArgument):
            self.scene.intersect([[0, 0, 1]], [[0, 0, -1]], tfar=[1, 2])
        with self.assertRaises(sensim.OutOfRange):
            self.scene.intersect([[0, 0, 1]], [[0, 0, -1]], time_ns=2 ** 63)
        with self.assertRaises(sensim.OutOfRange):  # one time per ray: no silent wrap either
            self.scene.intersect([[0, 0, 1]], [[0, 0, -1]], time_ns=[2 ** 63])
        with self.assertRaises(sensim.InvalidArgument):  # nor a float truncated to ns
            self.scene.intersect([[0, 0, 1]], [[0, 0, -1]], time_ns=[0.5])
        h = self.scene.intersect([[0, 0, 2]], [[0, 0, -1]])
        self.assertEqual(int(h["hit"][0] if np is not None else h[0].hit), 1)
        self.assertAlmostEqual(float(h["distance"][0] if np is not None else h[0].distance), 2.0, places=5)
        self.assertEqual(len(self.scene.intersect([], [])), 0)


class Cameras(unittest.TestCase):
    @unittest.skipIf(np is None, "numpy")
    def test_wall_depth_and_semantics(self):
        ctx = sensim.Context(2)
        scene = sensim.Scene(ctx)
        scene.add_mesh([[10, -50, -50], [10, 50, -50], [10, 50, 50], [10, -50, 50]], [[0, 1, 2], [0, 2, 3]], tag=4)
        scene.commit()
        cam = sensim.Camera(ctx, "carla_default", {"width": 160, "height": 120})
        self.assertAlmostEqual(cam.info["K"][0], 80.0, places=9)
        img = cam.render(scene, pose=sensim.pose(x=2), outputs=("depth", "semantic", "normal"))
        self.assertEqual(img["depth"].shape, (120, 160))
        self.assertLess(float(np.max(np.abs(img["depth"] - 8.0))), 1e-4)
        self.assertTrue(np.all(img["semantic"] == 4))
        self.assertTrue(np.allclose(img["normal"].reshape(-1, 3), [0, 0, -1], atol=1e-6))
        self.assertAlmostEqual(img["pose"][0][3], 2.0)
        with self.assertRaises(sensim.InvalidArgument):
            cam.render(scene, outputs=("thermal",))
        with self.assertRaises(sensim.UnknownKey):
            sensim.Camera(ctx, "carla_default", ["zoom=2"])
        with self.assertRaises(sensim.NotFound):
            sensim.Camera(ctx, "no_such")
        # a material's appearance: Kd colours the wall (ambient light only: the exact sRGB code)
        scene.set_appearance(1, (1.0, 0.0, 0.0))
        with self.assertRaises(sensim.OutOfRange):
            scene.set_appearance(1, (2.0, 0.0, 0.0))
        with self.assertRaises(sensim.InvalidArgument):
            scene.set_appearance(1, (1.0, 0.0, 0.0), texture=np.zeros((2, 2), np.uint8))

    @unittest.skipIf(np is None, "numpy")
    def test_rig_camera(self):
        """A 20 Hz camera in 100 ms steps: two captures a step at k * 50 ms,
        each equal to a direct render at its capture time; a full "fail"
        ring refuses the step's images and counts them."""
        ctx = sensim.Context(2)
        scene = sensim.Scene(ctx)
        scene.add_mesh([[50, -50, -50], [50, 50, -50], [50, 50, 50], [50, -50, 50]], [[0, 1, 2], [0, 2, 3]], tag=4)
        scene.commit()
        cam = sensim.Camera(ctx, "carla_default", {"width": 32, "height": 24})
        ring = sensim.ImageRing(cam, ("depth", "semantic"), frame_capacity=5)
        rig = sensim.Rig(ctx)
        rig.add_camera(cam, ring, rate_hz=20, sensor_id=9)
        keys = [(0, sensim.pose(z=1)), (1_000_000_000, sensim.pose(x=10, z=1))]
        for _ in range(2):
            rig.step(scene, 100_000_000, keys=keys)
        got = list(ring.frames())
        self.assertEqual([h["t_begin_ns"] for h, _ in got], [0, 50_000_000, 100_000_000, 150_000_000])
        for h, im in got:
            self.assertEqual(h["sensor_id"], 9)
            ref = cam.render(scene, t_ns=h["t_begin_ns"], keys=keys, outputs=("depth",))
            self.assertTrue(np.array_equal(im["depth"], ref["depth"]))
            self.assertAlmostEqual(float(im["depth"][12, 16]), 50 - 10 * h["t_begin_ns"] * 1e-9, places=4)
            self.assertTrue(np.all(im["semantic"] == 4))
        with self.assertRaises(sensim.InvalidArgument):
            cam.close()  # the rig holds it
        for _ in range(3):  # 6 captures into 5 slots
            rig.step(scene, 100_000_000, keys=keys)
        st = ring.stats
        self.assertEqual((st["scans_refused"], st["points_refused"], st["frames_ready"]), (1, 2, 4))
        cam2 = sensim.Camera(ctx, "carla_default", {"width": 32, "height": 24})
        with self.assertRaises(sensim.InvalidArgument):
            rig.add_camera(cam2, sensim.ImageRing((31, 24)), rate_hz=20)  # ring of another size
        with self.assertRaises(sensim.OutOfRange):
            sensim.ImageRing((32, -1))
        with self.assertRaises(sensim.InvalidArgument):
            sensim.ImageRing(cam, ("thermal",))
        with self.assertRaises(sensim.NotFinite):
            rig.add_camera(cam2, sensim.ImageRing(cam), rate_hz=float("nan"))
        rig.close()
        cam.close()


class Navigation(unittest.TestCase):
    def test_imu_gnss_in_a_rig(self):
        """A 100 Hz IMU and a 10 Hz GNSS in 100 ms steps: samples at k / rate,
        (0, 0, g) at constant velocity, GNSS east of the reference."""
        ctx = sensim.Context(1)
        scene = sensim.Scene(ctx)
        scene.add_mesh([[50, -50, -50], [50, 50, -50], [50, 50, 50]], [[0, 1, 2]], tag=4)
        scene.commit()
        rig = sensim.Rig(ctx)
        imu, gnss = sensim.Nav(ctx, "imu"), sensim.Nav(ctx, "gnss", {"latitude": 48, "longitude": 11}, sensor_id=2)
        ri, rg = sensim.NavRing(256), sensim.NavRing(64)
        rig.add_nav(imu, ri)
        rig.add_nav(gnss, rg)
        keys = [(0, sensim.pose()), (1_000_000_000, sensim.pose(x=10))]
        for _ in range(5):
            rig.step(scene, 100_000_000, keys=keys)
        got = list(ri.frames())
        self.assertEqual([s["t_ns"] for _, s in got], [k * 10_000_000 for k in range(50)])
        for _, s in got:
            self.assertAlmostEqual(s["accel"][2], 9.80665, places=9)
            self.assertAlmostEqual(s["gyro"][2], 0.0, places=12)
        g = list(rg.frames())
        self.assertEqual(len(g), 5)
        self.assertEqual(g[3][0]["sensor_id"], 2)
        self.assertGreater(g[3][1]["longitude_deg"], 11.0)
        self.assertAlmostEqual(g[3][1]["latitude_deg"], 48.0, places=6)
        k = sensim.kinematics_at(keys, 500_000_000, "linear")
        self.assertAlmostEqual(k["velocity"][0], 10.0, places=9)
        self.assertAlmostEqual(imu.sample(keys, 20)["position"][0], 2.0, places=9)
        with self.assertRaises(sensim.UnknownKey):
            sensim.Nav(ctx, "imu", {"noise_accel_stddev_w": 1})
        with self.assertRaises(sensim.OutOfRange):
            sensim.Nav(ctx, "gnss", ["latitude=95"])
        with self.assertRaises(sensim.InvalidArgument):
            imu.close()  # the rig holds it
        with self.assertRaises(sensim.InvalidArgument):
            sensim.kinematics_at(keys, 0, "cubic")
        rig.close()
        imu.close()

    @unittest.skipIf(np is None, "numpy")
    def test_radar(self):
        """A radar driving at 5 m/s towards a wall reads -5 cos(az) cos(alt), alone and in a rig."""
        ctx = sensim.Context(1)
        scene = sensim.Scene(ctx)
        scene.add_mesh([[30, -60, -60], [30, 60, -60], [30, 60, 60], [30, -60, 60]], [[0, 1, 2], [0, 2, 3]], tag=4)
        scene.commit()
        radar = sensim.Radar(ctx, {"points_per_second": 4000}, sensor_id=3)
        keys = [(0, sensim.pose()), (1_000_000_000, sensim.pose(x=5))]
        d = radar.sample(scene, keys, 4)
        self.assertEqual(len(d), 200)
        self.assertTrue(np.allclose(d["velocity"], -5 * np.cos(d["azimuth"]) * np.cos(d["altitude"]), atol=1e-4))
        rig, ring = sensim.Rig(ctx), sensim.Ring(10000, 16)
        rig.add_radar(radar, ring)
        rig.step(scene, 200_000_000, keys=keys)
        frames = list(ring.frames())
        self.assertEqual([f.header["t_begin_ns"] for f in frames], [0, 50_000_000, 100_000_000, 150_000_000])
        self.assertEqual(frames[0].header["sensor_id"], 3)
        self.assertTrue(np.array_equal(frames[0].points.view(sensim.RADAR_DTYPE)["depth"], radar.sample(scene, keys, 0)["depth"]))
        with self.assertRaises(sensim.OutOfRange):
            sensim.Radar(ctx, {"horizontal_fov": 200})
        rig.close()


class UserSensors(unittest.TestCase):
    def test_range_sensor_on_the_world_clock(self):
        ctx = sensim.Context(1)
        scene = sensim.Scene(ctx)
        scene.add_mesh([[50, -50, -50], [50, 50, -50], [50, 50, 50], [50, -50, 50]], [[0, 1, 2], [0, 2, 3]], tag=4)
        scene.commit()
        ring = sensim.Ring(100, 64)
        rig = sensim.Rig(ctx)
        seen = []

        def ahead(sample):
            p = sample.pose
            h = sample.scene.intersect([[p[0][3], p[1][3], p[2][3]]], [[p[0][0], p[1][0], p[2][0]]])
            d = float(h["distance"][0]) if np is not None else h[0].distance
            seen.append(sample.t_ns)
            sample.push([{"x": d, "range": d, "tag": 4, "t_offset_ns": sample.frame_number}])

        rig.add_sensor(ring, ahead, rate_hz=20, sensor_id=3)
        keys = [(0, sensim.pose(z=1)), (2_000_000_000, sensim.pose(x=10, z=1))]
        for _ in range(3):
            rig.step(scene, 100_000_000, keys=keys)
        self.assertEqual(seen, [k * 50_000_000 for k in range(6)])
        for k in range(6):
            f = ring.pop()
            rec = sensim.unpack_points(f.points)[0] if np is None else f.points[0]
            self.assertEqual(f.header["t_begin_ns"], k * 50_000_000)
            self.assertEqual(f.header["sensor_id"], 3)
            self.assertAlmostEqual(float(rec["range"]), 50 - 0.25 * k, places=4)

        def broken(sample):
            if sample.frame_number == 7:
                raise ValueError("sensor broke")
            sample.push([])

        ring2 = sensim.Ring(100, 64)
        rig.add_sensor(ring2, broken, rate_hz=20)
        with self.assertRaises(ValueError):
            rig.step(scene, 100_000_000, keys=keys)  # samples 6 and 7: 7 raises, the step is undone
        self.assertIsNone(ring.pop())  # sample 6 of the first sensor was undone with the step
        self.assertIsNone(ring2.pop())
        with self.assertRaises(sensim.InvalidArgument):
            rig.add_sensor(ring2, "not callable")


class RosBags(unittest.TestCase):
    """McapWriter: a host stepping its own lidar, camera and IMU writes a bag
    that the independent reader (tests/node) decodes to the same values."""

    @unittest.skipIf(np is None, "numpy")
    def test_host_written_bag(self):
        node_dir = os.path.join(REPO, "tests", "node")
        tmp = tempfile.TemporaryDirectory()
        ctx = sensim.Context(2)
        scene = sensim.Scene(ctx)
        scene.add_mesh([[10, -50, -50], [10, 50, -50], [10, 50, 50], [10, -50, 50]], [[0, 1, 2], [0, 2, 3]], tag=4)
        scene.commit()
        lidar = sensim.Lidar(ctx, "vlp16")
        ring = sensim.Ring(2 * lidar.info["shots_per_frame"])
        cam = sensim.Camera(ctx, "carla_default", {"width": 32, "height": 24})
        imu = sensim.Nav(ctx, "imu")
        prefix = os.path.join(tmp.name, "host")
        keys = [(0, sensim.pose()), (1_000_000_000, sensim.pose())]
        sums = []
        with sensim.McapWriter(prefix, compression="lz4") as w:
            tp = w.add_topic("/lidar/points", "PointCloud2")
            ti = w.add_topic("/cam/depth", "Image")
            tc = w.add_topic("/cam/camera_info", "CameraInfo")
            tu = w.add_topic("/imu", "Imu")
            tf = w.add_topic("/tf_static", "TFMessage_static")
            w.write_transforms(tf, 0, [(0, "base_link", "lidar", sensim.pose(z=1.5))])
            for k in range(3):
                t0 = k * 100_000_000
                lidar.scan(scene, t0, t0 + 100_000_000, ring, keys=keys)
                fr = ring.pop()
                sums.append(float(np.sum(fr.points["x"].astype(np.float64))))
                w.write_frame(tp, fr, "lidar")
                img = cam.render(scene, pose=sensim.pose(), outputs=("depth",), t_ns=t0)
                w.write_image(ti, t0, t0, "cam_optical", img["depth"], "32FC1")
                w.write_camera_info(tc, t0, t0, "cam_optical", cam)
                w.write_imu(tu, t0, "imu", imu.sample(keys, k * 10), gyro_var=1e-6, accel_var=(1e-4, 2e-4, 3e-4))
            with self.assertRaises(sensim.InvalidArgument):
                w.add_topic("/x", "Bogus")
            with self.assertRaises(sensim.InvalidArgument):
                w.write_image(ti, 0, 0, "cam\0optical", img["depth"], "32FC1")
            # an image whose dtype or channels do not match its encoding is refused, not written as garbage
            for bad, enc in ((img["depth"].astype(np.float64), "32FC1"), (np.zeros((4, 4, 3)), "rgb8"),
                             (np.zeros((4, 4), np.uint8), "rgb8"), (np.zeros((4, 4, 3), np.uint16), "rgb8"),
                             (np.zeros((4, 4), np.uint8), "jpeg")):
                with self.assertRaises(sensim.InvalidArgument, msg=(bad.dtype, bad.shape, enc)):
                    w.write_image(ti, 0, 0, "cam_optical", bad, enc)
            with self.assertRaises(sensim.InvalidArgument):
                w.write_clock(3.0, 0, 0)
            with self.assertRaises(sensim.OutOfRange):
                w.write_imu(tu, -1, "imu", imu.sample(keys, 0))
            self.assertEqual(w.stats["messages"], 13)
        self.assertEqual(w.files, 1)
        with self.assertRaises(sensim.BadHandle):
            w.add_topic("/late", "Clock")
        r = subprocess.run(["node", os.path.join(node_dir, "check_mcap.mjs"), prefix + "_0.mcap"],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        import json
        d = json.loads(r.stdout)["topics"]
        pc = d["/lidar/points"]["messages"]
        self.assertEqual([m["stamp_ns"] for m in pc], ["0", "100000000", "200000000"])
        self.assertEqual([m["log_ns"] for m in pc], ["100000000", "200000000", "300000000"])
        self.assertEqual([m["sum_xyz"][0] for m in pc], sums)
        im = d["/cam/depth"]["messages"][0]
        self.assertEqual((im["width"], im["height"], im["encoding"], im["step"]), (32, 24, "32FC1", 128))
        self.assertEqual(d["/cam/camera_info"]["messages"][0]["k"][0], cam.info["K"][0])
        self.assertAlmostEqual(d["/imu"]["messages"][1]["accel"][2], 9.80665, places=12)
        self.assertEqual(d["/tf_static"]["messages"][0]["transforms"][0]["t"], [0, 0, 1.5])
        ctx.close()
        tmp.cleanup()


def write_gltf(path, meshes, nodes, scene_nodes):
    """A glTF 2.0 file with its buffer inline (data URI). meshes: [(positions Nx3, triangles Mx3,
    material name)]; nodes: glTF node dicts; scene_nodes: the root node indices."""
    import base64
    import json
    blob, views, accessors, gmeshes, materials = b"", [], [], [], []
    for pos, tri, mat in meshes:
        pos = np.asarray(pos, np.float32)
        tri = np.asarray(tri, np.uint32)
        for data, target, acc in ((pos.tobytes(), 34962, {"componentType": 5126, "count": len(pos), "type": "VEC3",
                                                           "min": pos.min(0).tolist(), "max": pos.max(0).tolist()}),
                                  (tri.tobytes(), 34963, {"componentType": 5125, "count": tri.size, "type": "SCALAR"})):
            views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data), "target": target})
            blob += data
            acc["bufferView"] = len(views) - 1
            accessors.append(acc)
        materials.append({"name": mat, "pbrMetallicRoughness": {"baseColorFactor": [0.5, 0.25, 0.125, 1]}})
        gmeshes.append({"primitives": [{"attributes": {"POSITION": len(accessors) - 2}, "indices": len(accessors) - 1,
                                        "material": len(materials) - 1}]})
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": scene_nodes}], "nodes": nodes,
           "meshes": gmeshes, "materials": materials, "accessors": accessors, "bufferViews": views,
           "buffers": [{"byteLength": len(blob),
                        "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}]}
    with open(path, "w") as f:
        json.dump(doc, f)


def box(lo, hi):
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    v = [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0], [x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]]
    t = [[0, 2, 1], [0, 3, 2], [4, 5, 6], [4, 6, 7], [0, 1, 5], [0, 5, 4], [1, 2, 6], [1, 6, 5], [2, 3, 7], [2, 7, 6],
         [3, 0, 4], [3, 4, 7]]
    return np.array(v, float), np.array(t)


def node_matrix(n):
    """4x4 of a glTF node (T * R * S)."""
    m = np.eye(4)
    if "scale" in n:
        m = np.diag(list(n["scale"]) + [1.0]) @ m
    if "rotation" in n:
        x, y, z, w = n["rotation"]
        r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                      [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                      [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
        rm = np.eye(4)
        rm[:3, :3] = r
        m = rm @ m
    if "translation" in n:
        tm = np.eye(4)
        tm[:3, 3] = n["translation"]
        m = tm @ m
    return m


@unittest.skipIf(np is None, "numpy")
class GltfScenes(unittest.TestCase):
    """glTF through Assimp: node hierarchy, y-up to z-up, instanced meshes,
    materials to tags; the same geometry as OBJ scans to the same points."""

    def scene_pair(self, tmp):
        # y-up (glTF): the ground is the x-z plane, trees stand along +y
        ground = (np.array([[-60, 0, -60], [60, 0, -60], [60, 0, 60], [-60, 0, 60]], float),
                  np.array([[0, 2, 1], [0, 3, 2]]), "Road_asphalt")
        house = box((-3, 0, -2), (3, 6, 2)) + ("Building_wall",)
        tree = box((-0.3, 0, -0.3), (0.3, 4, 0.3)) + ("Vegetation_tree",)
        c = math.cos(math.radians(15)), math.sin(math.radians(15))
        nodes = [
            {"mesh": 0},
            {"name": "block", "translation": [2, 0, -1], "children": [2]},   # a parent transform
            {"mesh": 1, "translation": [15, 0, -4], "rotation": [0, math.sin(math.radians(10)), 0,
                                                                 math.cos(math.radians(10))]},
            {"mesh": 2, "translation": [8, 0, 6]},                            # the tree, instanced thrice
            {"mesh": 2, "translation": [-9, 0, 7], "scale": [1, 1.5, 1]},
            {"mesh": 2, "translation": [0, 0, -12], "rotation": [0, c[1], 0, c[0]]},
        ]
        gl = os.path.join(tmp, "twin.gltf")
        write_gltf(gl, [ground, house[:2] + (house[2],), tree[:2] + (tree[2],)], nodes, [0, 1, 3, 4, 5])
        # the OBJ twin: every placement written out in libsensim's z-up frame
        C = np.array([[1, 0, 0, 0], [0, 0, -1, 0], [0, 1, 0, 0], [0, 0, 0, 1]], float)
        placements = [(0, np.eye(4)), (1, node_matrix(nodes[1]) @ node_matrix(nodes[2])), (2, node_matrix(nodes[3])),
                      (2, node_matrix(nodes[4])), (2, node_matrix(nodes[5]))]
        meshes = [ground, house, tree]
        ob = os.path.join(tmp, "twin.obj")
        with open(ob, "w") as f:
            base = 1
            for mi, m in placements:
                pos, tri, mat = meshes[mi]
                w = (C @ m @ np.c_[pos, np.ones(len(pos))].T).T[:, :3]
                f.write("usemtl %s\n" % mat)
                for v in w:
                    f.write("v %.9f %.9f %.9f\n" % tuple(v))
                for t in tri:
                    f.write("f %d %d %d\n" % tuple(base + t))
                base += len(pos)
        return gl, ob

    def test_gltf_equals_obj_twin(self):
        tmp = tempfile.TemporaryDirectory()
        gl, ob = self.scene_pair(tmp.name)
        ctx = sensim.Context(2)
        clouds, infos = [], []
        for path in (gl, ob):
            sc = sensim.Scene(ctx)
            sc.load(path)
            sc.commit()
            infos.append(sc.info)
            lidar = sensim.Lidar(ctx, "pandar64", {"beam": "ideal", "range_noise_stddev_m": 0, "dropoff_model": "none"})
            ring = sensim.Ring(2 * lidar.info["shots_per_frame"])
            lidar.scan(sc, 0, 100_000_000, ring, pose=sensim.pose(z=1.8))
            clouds.append(ring.pop().points)
        g, o = clouds
        # the glTF scene: the ground and the house baked into one mesh, the tree one prototype placed 3 times
        self.assertEqual((infos[0]["meshes"], infos[0]["instances"]), (2, 3))
        self.assertEqual(infos[0]["triangles"], 2 + 12 + 12)
        self.assertEqual(infos[1]["triangles"], 2 + 12 + 3 * 12)
        self.assertEqual(len(g), len(o))
        key = lambda p: (p["channel"], p["t_offset_ns"], p["flags"])  # noqa: E731
        go = sorted(g, key=key)
        oo = sorted(o, key=key)
        self.assertEqual([key(a) for a in go], [key(b) for b in oo])
        d = max(max(abs(float(a[k]) - float(b[k])) for k in ("x", "y", "z")) for a, b in zip(go, oo))
        self.assertLess(d, 1e-5)  # the same hits (1.9e-6 m seen: instanced rays are transformed in float)
        self.assertTrue(all(a["tag"] == b["tag"] for a, b in zip(go, oo)))
        tags = set(int(t) for t in g["tag"])
        self.assertTrue({1, 3, 9} <= tags, tags)  # Roads, Building, Vegetation by material names
        self.assertTrue(np.all(g["object_id"] == 0))  # instances are static world
        ctx.close()
        tmp.cleanup()

    def test_textured_gltf_equals_obj_twin(self):
        """Base-colour PNG textures and UVs: a glTF quad (texture beside the file, or embedded in
        the buffer) renders the same colours as its OBJ/MTL twin."""
        import base64
        import json
        import zlib
        tmp = tempfile.TemporaryDirectory()
        d = tmp.name

        def png(path, rgb):  # a minimal 8-bit RGB PNG
            h, w = len(rgb), len(rgb[0])
            raw = b"".join(b"\0" + bytes(c for px in row for c in px) for row in rgb)

            def chunk(kind, data):
                return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
            data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
            with open(path, "wb") as f:
                f.write(data)
            return data
        texture = png(os.path.join(d, "tex.png"), [[(255, 0, 0), (0, 255, 0)], [(0, 0, 255), (255, 255, 255)]])
        # a wall 5 m ahead, native y in [-2, 2], z in [-0.5, 3.5]; glTF y-up: (x, y, z)_native = (X, -Z, Y)
        native = np.array([[5, 2, -0.5], [5, -2, -0.5], [5, -2, 3.5], [5, 2, 3.5]], float)
        gpos = np.c_[native[:, 0], native[:, 2], -native[:, 1]].astype(np.float32)
        uv = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)  # v up, as OBJ vt (glTF's v is flipped)
        tri = np.array([[0, 1, 2], [0, 2, 3]], np.uint32)
        renders = []
        for variant in ("file", "embedded"):
            guv = np.c_[uv[:, 0], 1 - uv[:, 1]].astype(np.float32)
            blob, views, acc = b"", [], []
            for data, a in ((gpos.tobytes(), {"componentType": 5126, "count": 4, "type": "VEC3",
                                              "min": gpos.min(0).tolist(), "max": gpos.max(0).tolist()}),
                            (guv.tobytes(), {"componentType": 5126, "count": 4, "type": "VEC2"}),
                            (tri.tobytes(), {"componentType": 5125, "count": 6, "type": "SCALAR"})):
                views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data)})
                blob += data
                a["bufferView"] = len(views) - 1
                acc.append(a)
            if variant == "file":
                image = {"uri": "tex.png"}
            else:
                views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(texture)})
                blob += texture
                image = {"bufferView": len(views) - 1, "mimeType": "image/png"}
            doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
                   "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2,
                                               "material": 0}]}],
                   "materials": [{"name": "Building_poster", "pbrMetallicRoughness": {
                       "baseColorFactor": [1, 1, 1, 1], "baseColorTexture": {"index": 0}}}],
                   "textures": [{"source": 0, "sampler": 0}],
                   "samplers": [{"magFilter": 9728, "minFilter": 9728}], "images": [image],
                   "accessors": acc, "bufferViews": views,
                   "buffers": [{"byteLength": len(blob),
                                "uri": "data:application/octet-stream;base64," + base64.b64encode(blob).decode()}]}
            with open(os.path.join(d, variant + ".gltf"), "w") as f:
                json.dump(doc, f)
        with open(os.path.join(d, "twin.mtl"), "w") as f:
            f.write("newmtl Building_poster\nKd 1 1 1\nmap_Kd tex.png\n")
        with open(os.path.join(d, "twin.obj"), "w") as f:
            f.write("mtllib twin.mtl\nusemtl Building_poster\n")
            f.writelines("v %g %g %g\n" % tuple(v) for v in native)
            f.writelines("vt %g %g\n" % tuple(t) for t in uv)
            f.writelines("f %d/%d %d/%d %d/%d\n" % (a + 1, a + 1, b + 1, b + 1, c + 1, c + 1) for a, b, c in tri)
        ctx = sensim.Context(2)
        cam = sensim.Camera(ctx, "carla_default", {"width": 64, "height": 48})
        for name in ("file.gltf", "embedded.gltf", "twin.obj"):
            sc = sensim.Scene(ctx)
            sc.load(os.path.join(d, name))
            sc.commit()
            self.assertEqual(sc.info["textures_skipped"], 0, name)
            renders.append(cam.render(sc, pose=sensim.pose(z=1.5), outputs=("rgb", "semantic"))["rgb"])
        g1, g2, o = renders
        self.assertTrue(np.array_equal(g1, o) and np.array_equal(g2, o))
        # the texture is there: the wall's four quadrants carry its four texels (red top-left as seen)
        tl, tr, bl, br = (o[24 + dy, 32 + dx].astype(int) for dy, dx in ((-6, -6), (-6, 6), (6, -6), (6, 6)))
        # PNG row 0 (red, green) is the top (v = 1); the wall's left is +y: uv (0, 0) at its bottom left
        self.assertTrue(tl[0] > 100 and tl[1] < 30 and tl[2] < 30, tl)  # red
        self.assertTrue(tr[1] > 100 and tr[0] < 30 and tr[2] < 30, tr)  # green
        self.assertTrue(bl[2] > 100 and bl[0] < 30 and bl[1] < 30, bl)  # blue
        self.assertTrue(min(br) > 100, br)  # white
        # a texture that cannot be read is counted and leaves the base colour
        with open(os.path.join(d, "file.gltf")) as f:
            doc = json.load(f)
        doc["images"] = [{"uri": "missing.png"}]
        with open(os.path.join(d, "missing.gltf"), "w") as f:
            json.dump(doc, f)
        sc = sensim.Scene(ctx)
        sc.load(os.path.join(d, "missing.gltf"))
        self.assertEqual(sc.info["textures_skipped"], 1)
        ctx.close()
        tmp.cleanup()

    def test_forest_of_one_tree(self):
        tmp = tempfile.TemporaryDirectory()
        tree = box((-0.3, 0, -0.3), (0.3, 4, 0.3))
        nodes = [{"mesh": 0, "translation": [10 + 3 * (i % 40), 0, -60 + 3 * (i // 40)]} for i in range(1000)]
        path = os.path.join(tmp.name, "forest.gltf")
        write_gltf(path, [tree + ("Vegetation_pine",)], nodes, list(range(1000)))
        ctx = sensim.Context(2)
        sc = sensim.Scene(ctx)
        sc.load(path)
        sc.commit()
        info = sc.info
        self.assertEqual((info["meshes"], info["instances"], info["actors"], info["triangles"]), (1, 1000, 0, 12))
        lidar = sensim.Lidar(ctx, "pandar64")
        ring = sensim.Ring(2 * lidar.info["shots_per_frame"])
        lidar.scan(sc, 0, 100_000_000, ring, pose=sensim.pose(z=1.8))
        pts = ring.pop().points
        self.assertGreater(len(pts), 1000)
        self.assertTrue(np.all(pts["tag"] == 9) and np.all(pts["object_id"] == 0))
        # nothing there: the forest is ahead (x >= 9.7 m, |y| <= 60.3 m); no point behind the sensor
        self.assertTrue(np.all(pts["x"] > 9.0))
        # the same forest flattened into the static BVH (set_flatten): the same points within float rounding
        sc3 = sensim.Scene(ctx)
        for bad in (-1, 2 ** 64, 1.5, True, "9"):
            with self.assertRaises(sensim.OutOfRange):
                sc3.set_flatten(bad)
        sc3.set_flatten(12 * 1000)
        sc3.load(path)
        sc3.commit()
        self.assertEqual((sc3.info["instances"], sc3.info["flattened_count"]), (1000, 1000))
        lidar.rewind()
        lidar.scan(sc3, 0, 100_000_000, ring, pose=sensim.pose(z=1.8))
        flat = ring.pop().points
        self.assertEqual(len(flat), len(pts))
        self.assertTrue(np.all(flat["object_id"] == 0) and np.all(flat["t_offset_ns"] == pts["t_offset_ns"]))
        self.assertLess(float(np.max(np.abs(flat["range"].astype(np.float64) - pts["range"]))), 2e-5)
        sc3.close()
        # an instance-only scene that is loaded as an actor's mesh is baked instead
        sc2 = sensim.Scene(ctx)
        mid = sc2.load(path, prototype=True)
        sc2.add_actor(mid, 7, sensim.pose())
        sc2.commit()
        self.assertEqual((sc2.info["instances"], sc2.info["triangles"]), (0, 12000))
        ctx.close()
        tmp.cleanup()

    def test_bad_files(self):
        tmp = tempfile.TemporaryDirectory()
        ctx = sensim.Context(1)
        sc = sensim.Scene(ctx)
        bad = os.path.join(tmp.name, "bad.gltf")
        with open(bad, "w") as f:
            f.write('{"asset": {"version": "2.0"}, "meshes": [{"primitives": [{"attributes": {"POSITION": 9}}]}]')
        with self.assertRaises(sensim.Error) as cm:
            sc.load(bad)
        self.assertIn("bad.gltf", str(cm.exception))
        with self.assertRaises(sensim.Error):
            sc.load(os.path.join(tmp.name, "missing.glb"))
        os.mkfifo(os.path.join(tmp.name, "fifo.gltf"))
        with self.assertRaises(sensim.Error) as cm:
            sc.load(os.path.join(tmp.name, "fifo.gltf"))
        self.assertIn("not a regular file", str(cm.exception))
        gl, _ = GltfScenes.scene_pair(self, tmp.name)
        with self.assertRaises(sensim.Error):
            sc.load(gl, frame="carla")  # a glTF says its own frame
        self.assertEqual(sc.info["meshes"], 0)  # nothing half loaded
        ctx.close()
        tmp.cleanup()


class NewUserEdges(unittest.TestCase):
    """What a new user hit (issue 18): units, argument errors, messages, the built-in street, PCD."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.ctx = sensim.Context(2)

    def tearDown(self):
        self.ctx.close()
        self.tmp.cleanup()

    def test_pose_takes_degrees_like_the_cli(self):
        a = sensim.pose(1, 2, 1.8, 3, -4, 20)
        b = sensim.pose_from_frame("native", (1, 2, 1.8), (3, -4, 20))
        self.assertEqual([list(r) for r in a], [list(r) for r in b])  # bit for bit
        q = sensim.pose(yaw=90)
        self.assertAlmostEqual(q[0][0], 0.0, delta=1e-15)
        self.assertAlmostEqual(q[1][0], 1.0, delta=1e-15)  # x maps to y
        # rates given in deg/s, as --velocity: 90 deg/s for 1 s turns x into y
        keys = sensim.motion_from_velocity(sensim.pose(), 0, 1_000_000_000, (0, 0, 0), (0, 0, 90))
        end = keys[1][1]
        self.assertAlmostEqual(end[0][0], 0.0, delta=1e-12)
        self.assertAlmostEqual(end[1][0], 1.0, delta=1e-12)

    def test_bad_poses_are_named(self):
        scene = sensim.Scene(self.ctx)
        scene.load("street")
        scene.commit()
        lidar = sensim.Lidar(self.ctx, "vlp16")
        ring = sensim.Ring.for_lidar(lidar)
        for bad, words in (([1, 2, 3], "flat list of 3"), ([[1, 2], [3, 4]], "2 rows"), ("abc", "str"),
                           ([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, "x"], [0, 0, 0, 1]], "pose[2][3]"), (7, "int")):
            with self.assertRaises(sensim.InvalidArgument) as cm:
                lidar.scan(scene, 0, 1000, ring, pose=bad)
            self.assertIn(words, str(cm.exception))
            self.assertIn("4x4 matrix" if words != "pose[2][3]" else "number", str(cm.exception))
        with self.assertRaises(sensim.InvalidArgument):
            sensim.pose("1")
        with self.assertRaises(sensim.InvalidArgument):
            sensim.motion_from_velocity(sensim.pose(), 0, 10, (1, 2))

    def test_messages_name_python_calls(self):
        scene = sensim.Scene(self.ctx)
        lidar = sensim.Lidar(self.ctx, "vlp16")
        with self.assertRaises(sensim.NotCommitted) as cm:
            lidar.scan(scene, 0, 1000, sensim.Ring.for_lidar(lidar), pose=sensim.pose())
        self.assertIn("Scene.commit()", str(cm.exception))
        self.assertNotIn("sensim_scene_commit", str(cm.exception))
        cam = sensim.Camera(self.ctx, "carla_default")
        with self.assertRaises(sensim.Error) as cm:
            cam.render(scene, pose=sensim.pose(), outputs=("depth",))
        self.assertNotIn("sensim_", str(cm.exception).split("(SENSIM_")[0])

    @unittest.skipUnless(CLI, "sensim CLI path not given")
    def test_street_is_the_cli_street(self):
        out = os.path.join(self.tmp.name, "cli")
        subprocess.run([CLI, "scan", "--scene", "street", "--lidar", "vlp16", "--pose", "0,0,1.8,0,0,0",
                        "--out", out], check=True, capture_output=True)
        cli = read_ply(os.path.join(out, "frame_000000.ply"))
        scene = sensim.Scene(self.ctx)
        scene.set_flatten(4_000_000)  # the command flattens parked actors by default (--flatten-actors)
        mesh = scene.load("street")
        info = scene.info
        self.assertEqual(mesh, 0)
        self.assertEqual(info["meshes"], 2)
        self.assertGreater(info["actors"], 10)
        scene.commit()
        lidar = sensim.Lidar(self.ctx, "vlp16")
        ring = sensim.Ring.for_lidar(lidar)
        p = sensim.pose(0, 0, 1.8)
        lidar.scan(scene, 0, 100_000_000, ring, keys=[(0, p), (100_000_000, p)])
        frame = ring.pop()
        self.assertEqual(len(frame), len(cli))
        recs = sensim.unpack_points(frame.points) if np is None else None
        for name in ("x", "y", "z", "t_offset_ns", "channel", "tag", "object_id"):
            mine = [frame.points[name][i] if np is not None else recs[i][name] for i in range(len(cli))]
            self.assertEqual([float(v) for v in mine], [float(c[name]) for c in cli], name)
        with self.assertRaises(sensim.Duplicate):  # the cars' actor ids are taken now
            scene.add_street()
        with self.assertRaises(sensim.OutOfRange):
            sensim.Scene(self.ctx).add_street(length_m=float("nan"))

    @unittest.skipIf(os.environ.get("SENSIM_DISABLE_NUMPY"), "once is enough: the numpy run does it")
    def test_pip_install_offline(self):
        """`pip install ./python` with no network: Debian's setuptools, no index (the README's command)."""
        import shutil
        src, target = os.path.join(self.tmp.name, "src"), os.path.join(self.tmp.name, "site")
        shutil.copytree(os.path.join(REPO, "python"), src, ignore=shutil.ignore_patterns("tests", "__pycache__"))
        r = subprocess.run(["/usr/bin/python3", "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index",
                            "--target", target, src], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        env = dict(os.environ, PYTHONPATH=target)
        r = subprocess.run(["/usr/bin/python3", "-c", "import sensim; print(sensim.__file__); "
                            "print(sensim.Context(1).threads)"], capture_output=True, text=True, env=env, cwd="/")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith(target), r.stdout)
        self.assertEqual(r.stdout.split()[1], "1")

    def test_one_set_of_field_names_and_pcd(self):
        names = [f[0] for f in sensim.point_fields()]
        rec = struct.pack("<fffffIIHBB", 1.5, -2.25, 0.5, 0.75, 2.8, 123456, 7, 31, 14, 1)
        recs = rec + struct.pack("<fffffIIHBB", 0, 1, 2, 0.5, 2.2, 99, 0, 2, 1, 0)
        ply, pcd, pcda = (os.path.join(self.tmp.name, n) for n in ("a.ply", "a.pcd", "a_ascii.pcd"))
        sensim.write_ply(ply, recs)
        sensim.write_pcd(pcd, recs)
        sensim.write_pcd(pcda, recs, ascii=True)
        with open(ply, "rb") as f:
            head = f.read().split(b"end_header\n")[0].decode().splitlines()
        self.assertEqual([l.split()[2] for l in head if l.startswith("property")], names)
        with open(pcd, "rb") as f:
            data = f.read()
        end = data.index(b"DATA binary\n") + len(b"DATA binary\n")
        fields = [l for l in data[:end].decode().splitlines() if l.startswith("FIELDS")][0].split()[1:]
        self.assertEqual(fields, names)
        self.assertEqual(data[end:], recs)  # binary PCD: the records as they are
        with open(pcda) as f:
            rows = [l.split() for l in f.read().split("DATA ascii\n")[1].splitlines()]
        self.assertEqual(rows[0], ["1.5", "-2.25", "0.5", "0.75", "2.79999995", "123456", "7", "31", "14", "1"])
        if np is not None:
            self.assertEqual(list(sensim.POINT_DTYPE.names), names)
        with self.assertRaises(sensim.InvalidArgument):
            sensim.write_pcd(pcd, recs[:-1])
        with self.assertRaises(sensim.InvalidArgument):
            sensim.write_points(pcd, recs, format="xyz")
        # LAS 1.2 point format 3: 34-byte records after a 227-byte header; the Car's CARLA colour as RGB
        las = os.path.join(self.tmp.name, "a.las")
        sensim.write_points(las, recs, format="las12")
        with open(las, "rb") as f:
            data = f.read()
        self.assertEqual((data[:4], data[24], data[25], data[104], len(data)), (b"LASF", 1, 2, 3, 227 + 2 * 34))
        X, cls, rgb = struct.unpack_from("<i", data, 227)[0], data[227 + 15], struct.unpack_from("<3H", data, 227 + 28)
        self.assertEqual((X * 0.001 + struct.unpack_from("<d", data, 155)[0], cls & 31, rgb),
                         (1.5, 1, (0, 0, 142 * 257)))


class Placement(unittest.TestCase):
    """sensim.placement.evaluate gives the rows of `sensim placement`'s ranking.csv."""

    @unittest.skipUnless(CLI and np is not None, "needs the sensim CLI and numpy")
    def test_evaluate_equals_cli(self):
        import csv
        import sensim.placement as sp
        tmp = tempfile.TemporaryDirectory()
        plane = os.path.join(tmp.name, "plane.obj")
        with open(plane, "w") as f:
            f.write(PLANE)
        cands = [(-15, 0, 3, 0, 0, 0), (-5, 2, 4, 0, 0, 30), (5, 0, 3, 0, 0, 0), (15, -1, 2.5, 0, 0, 0)]
        boxes = [(-9, -2, 0, -8, 2, 5), (-15, -1, 0, -14, 1, 2), (-1, -1, 60, 1, 1, 61)]
        with open(os.path.join(tmp.name, "c.csv"), "w") as f:
            f.writelines("%g,%g,%g,%g,%g,%g\n" % c for c in cands)
        with open(os.path.join(tmp.name, "o.csv"), "w") as f:
            f.writelines("%g,%g,%g,%g,%g,%g\n" % b for b in boxes)
        occupancy = [(x + 0.5, y + 0.5, 0.3 if abs(y) < 4 else 0.05) for x in range(-30, 30, 2) for y in range(-8, 8, 2)]
        with open(os.path.join(tmp.name, "occ.csv"), "w") as f:
            f.writelines("%g,%g,%g\n" % q for q in occupancy)
        out = os.path.join(tmp.name, "out")
        subprocess.run([CLI, "placement", "--scene", plane, "--lidar", "vlp16", "--candidates",
                        os.path.join(tmp.name, "c.csv"), "--objects", os.path.join(tmp.name, "o.csv"), "--roi",
                        "-30,-8,30,8", "--cell", "2", "--duration", "0.2", "--weights", "1,0.5,2,1,3",
                        "--occupancy", os.path.join(tmp.name, "occ.csv"),
                        "--no-maps", "--out", out], check=True, capture_output=True)
        rows = list(csv.DictReader(open(os.path.join(out, "ranking.csv"))))
        ctx = sensim.Context(2)
        scene = sensim.Scene(ctx)
        scene.load(plane)
        sp.add_objects(scene, boxes)
        scene.commit()
        t = sp.evaluate(ctx, scene, "vlp16", cands, roi=(-30, -8, 30, 8), cell_m=2, duration_s=0.2,
                        objects=boxes, weights=(1, 0.5, 2, 1, 3), occupancy=occupancy)
        self.assertTrue(0 < t["information_gain"][0] <= 1)
        self.assertEqual(len(rows), 4)
        for i, row in enumerate(rows):
            for col in sp.COLUMNS:
                self.assertEqual(float(row[col]), float(t[col][i]), (i, col))
        # cv is the coefficient of variation of the ROI's cell counts (lower = more even); with only the
        # uniformity weight the score is 1 / (1 + cv), so the ranking (best first) has cv ascending
        g = sp.evaluate(ctx, scene, "vlp16", cands, roi=(-30, -8, 30, 8), cell_m=2, duration_s=0.2,
                        weights=(0, 1, 0, 0, 0), grids=True)
        for i in range(len(cands)):
            cells = g["grids"][i].astype(float).ravel()
            self.assertAlmostEqual(g["cv"][i], cells.std() / cells.mean(), delta=1e-12 * (1 + g["cv"][i]))
            self.assertAlmostEqual(g["score"][i], 1 / (1 + g["cv"][i]), delta=1e-15)
        self.assertTrue(all(g["cv"][i] <= g["cv"][i + 1] for i in range(len(cands) - 1)), g["cv"])
        self.assertGreater(g["cv"][-1], g["cv"][0])  # the candidates differ: the test can fail
        self.assertIs(g["uniformity"], g["cv"])  # the pre-0.2 name
        for bad in ((1, float("nan"), 1, 1), (1, -1, 1, 1), (1, 1, 1), (1, 1, 1, 1, 1, 1), (1, 1, float("inf"), 1)):
            with self.assertRaises(sensim.Error, msg=bad):
                sp.evaluate(ctx, scene, "vlp16", cands, roi=(-30, -8, 30, 8), weights=bad)
        for bad in (-1, 0, float("nan"), 1e9, "1"):
            with self.assertRaises(sensim.OutOfRange, msg=bad):
                sp.evaluate(ctx, scene, "vlp16", cands, roi=(-30, -8, 30, 8), duration_s=bad)
        row = list(t["candidate"]).index(2)
        self.assertEqual(int(t["occluded_objects"][row]), 1)
        self.assertEqual((int(t["occluded_by_objects"][row]), int(t["occluded_by_static"][row])), (1, 0))
        with self.assertRaises(sensim.InvalidArgument):
            sp.evaluate(ctx, scene, "vlp16", cands, roi=(0, 0, 1))
        for bad in ([(1, 2, 3)], [("a", 0, 0, 0, 0, 0)], []):
            with self.assertRaises(sensim.InvalidArgument):
                sp.evaluate(ctx, scene, "vlp16", bad, roi=(0, 0, 1, 1))
        with self.assertRaises(sensim.InvalidArgument):
            sp.evaluate(ctx, scene, "vlp16", cands, roi=(0, 0, 1, 1), objects=[(1, 2, 3, 4, 5)])
        with self.assertRaises(sensim.OutOfRange):
            sp.evaluate(ctx, scene, "vlp16", cands, roi=(1, 1, 0, 0))
        ctx.close()
        tmp.cleanup()


class HostileArguments(unittest.TestCase):
    """Python arguments reach C unchanged or are refused by name: no ctypes wrap, no NUL cutting a string."""

    def test_narrow_integers_are_not_wrapped(self):
        s = sensim.Scene(sensim.Context(1))
        tri = ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])
        for bad in (270, 256, -1, 2.0, True, "3"):
            with self.assertRaises(sensim.OutOfRange, msg=bad):
                s.add_mesh(*tri, tag=bad)  # 270 was stored as 14 (Car)
        for bad in (65536, -1):
            with self.assertRaises(sensim.OutOfRange, msg=bad):
                s.add_mesh(*tri, material=bad)
        self.assertEqual(s.info["mesh_count"], 0)
        with self.assertRaises(sensim.OutOfRange):
            s.add_mesh(*tri, tag=255)  # reaches C unwrapped, which names it
        s.add_mesh(*tri, tag=28, material=65535)  # the largest accepted
        self.assertEqual(s.info["mesh_count"], 1)

    def test_nul_in_strings_is_refused(self):
        ctx = sensim.Context(1)
        s = sensim.Scene(ctx)
        with tempfile.TemporaryDirectory() as d:
            ok = os.path.join(d, "ok.obj")
            with open(ok, "w") as f:
                f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
            for bad in (ok + "\0.ply", ok + "\0"):
                with self.assertRaises(sensim.InvalidArgument, msg=bad):
                    s.load(bad)  # "ok.obj\0.ply" loaded ok.obj
            with self.assertRaises(sensim.InvalidArgument):
                s.load(ok, tags=ok + "\0x")
            with self.assertRaises(sensim.InvalidArgument):
                sensim.Lidar(ctx, "vlp16\0.preset")
            with self.assertRaises(sensim.InvalidArgument):
                sensim.Lidar(ctx, "vlp16", {"max_range_m": "50\0junk"})  # the value was cut to "50"
            with self.assertRaises(sensim.InvalidArgument):
                sensim.Camera(ctx, "pinhole_720p", {"fov\0x": "90"})
            with self.assertRaises(sensim.InvalidArgument):
                sensim.Nav(ctx, "imu", {"rate_hz": "100\0"})
            with self.assertRaises(sensim.InvalidArgument):
                sensim.tag_from_name("Car\0")
            with self.assertRaises(sensim.InvalidArgument):
                sensim.write_ply(os.path.join(d, "a.ply\0b"), b"")
            self.assertEqual(sorted(os.listdir(d)), ["ok.obj"])  # nothing written under a cut name
            s.load(ok)
            self.assertEqual(s.info["mesh_count"], 1)


class NoNumpySmoke(unittest.TestCase):
    def test_package_works_without_numpy(self):
        env = dict(os.environ, SENSIM_DISABLE_NUMPY="1")
        code = ("import sensim\n"
                "assert not sensim.HAVE_NUMPY\n"
                "ctx = sensim.Context(1)\n"
                "s = sensim.Scene(ctx)\n"
                "s.add_mesh([[-50,-50,0],[50,-50,0],[50,50,0],[-50,50,0]], [[0,1,2],[0,2,3]], tag=1)\n"
                "s.commit()\n"
                "l = sensim.Lidar(ctx, 'vlp16', {'beam': 'ideal'})\n"
                "r = sensim.Ring(l.info['shots_per_frame'])\n"
                "l.scan(s, 0, 100000000, r, pose=sensim.pose(z=2))\n"
                "f = r.pop()\n"
                "recs = sensim.unpack_points(f.points)\n"
                "assert isinstance(f.points, memoryview) and len(recs) == len(f) > 1000\n"
                "assert all(abs(p['z'] + 2) < 1e-3 for p in recs)\n"
                "h = s.intersect([[0, 0, 2], [0, 0, 2]], [[0, 0, -1], [0, 0, 1]])\n"
                "assert h[0].hit == 1 and abs(h[0].distance - 2) < 1e-5 and h[1].hit == 0\n"
                "assert s.occluded([[0, 0, 2]], [[0, 0, -1]]) == bytearray(b'\\x01')\n"
                "print('no-numpy smoke ok', len(recs))\n")
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("no-numpy smoke ok", r.stdout)
        self.assertNotIn("Warning", r.stderr)  # disabled on purpose: silent

    def test_import_says_what_is_missing(self):
        """An interpreter that cannot import numpy hears it at import time, with the interpreter
        named, and a call that needs numpy says the same thing."""
        env = {k: v for k, v in os.environ.items() if k != "SENSIM_DISABLE_NUMPY"}
        code = ("import sys, warnings\n"
                "sys.modules['numpy'] = None\n"  # makes `import numpy` raise ImportError
                "warnings.simplefilter('always')\n"
                "import sensim, sensim.placement\n"
                "assert not sensim.HAVE_NUMPY\n"
                "try:\n"
                "    sensim.placement.evaluate(None, None, 'vlp16', [], roi=(0, 0, 1, 1))\n"
                "except sensim.InvalidArgument as e:\n"
                "    print('raised:', e)\n")
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("RuntimeWarning: sensim: numpy cannot be imported by %s" % sys.executable, r.stderr)
        self.assertIn("raised: sensim.placement needs numpy: numpy cannot be imported by", r.stdout)
        s = sensim.Scene(sensim.Context(1))
        s.add_mesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], tag=1)
        info = s.info  # the C names (sensim_scene_info) and the old short ones
        self.assertEqual((info["mesh_count"], info["actor_count"], info["triangle_count"], info["vertex_count"]),
                         (1, 0, 1, 3))
        self.assertEqual((info["meshes"], info["triangles"]), (info["mesh_count"], info["triangle_count"]))

    def test_first_python3_on_path_is_told_where_numpy_is(self):
        """This machine's first python3 (pyenv) lacks numpy while Debian's /usr/bin/python3 has it: the
        warning says which interpreter to use."""
        import shutil
        first = shutil.which("python3")
        if not first or os.path.realpath(first) == os.path.realpath("/usr/bin/python3") \
                or not os.path.isdir("/usr/lib/python3/dist-packages/numpy"):
            self.skipTest("the first python3 on PATH is Debian's, or Debian's numpy is absent")
        if subprocess.run([first, "-c", "import numpy"], capture_output=True).returncode == 0:
            self.skipTest("%s has numpy" % first)
        env = {k: v for k, v in os.environ.items() if k != "SENSIM_DISABLE_NUMPY"}
        r = subprocess.run([first, "-c", "import sensim; print(sensim.HAVE_NUMPY)"], env=env, capture_output=True,
                           text=True)
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "False"), r.stderr)
        self.assertIn("/usr/bin/python3 has it (Debian's python3-numpy)", r.stderr)


if __name__ == "__main__":
    unittest.main()
