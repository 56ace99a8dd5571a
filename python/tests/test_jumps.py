"""Jumps (issue 63, DESIGN.md "Jumps"): a host that resets or teleports the
platform declares it, and the rig starts a new motion segment: exact on both
sides, nothing interpolated across, derivatives restarted (an IMU sees no
spike), shots before the jump on the old segment and after it on the new. In
trajectory files two rows with the same time are a jump."""
import csv
import os
import subprocess
import tempfile
import unittest

import sensim

MS = 1_000_000
G = 9.80665
GROUND_OBJ = "o ground\nv -500 -500 0\nv 500 -500 0\nv 500 500 0\nv -500 500 0\nf 1 2 3 4\n"


def ground_scene(ctx):
    scene = sensim.Scene(ctx)
    scene.add_mesh([[-500, -500, 0], [500, -500, 0], [500, 500, 0], [-500, 500, 0]], [[0, 1, 2], [0, 2, 3]], tag=1)
    scene.commit()
    return scene


class RigJump(unittest.TestCase):
    def reset_run(self, same_time):
        """A 20 Hz host parked at z = 2 m that resets to z = 6 m at 0.55 s (mid-way through a
        VLP-16 turn [0.5, 0.6)); IMU at 1 kHz; steps of 50 ms. Returns (rig, imu samples, frames)."""
        ctx = sensim.Context(2)
        scene = ground_scene(ctx)
        rig = sensim.Rig(ctx)
        imu = sensim.Nav(ctx, "imu", {"rate_hz": 1000})
        nring = sensim.NavRing(4096)
        rig.add_nav(imu, nring)
        lidar = sensim.Lidar(ctx, "vlp16")
        lring = sensim.Ring.for_lidar(lidar, frames=16)
        rig.add_lidar(lidar, lring)
        for k in range(0, 12):  # 0 .. 0.55 s parked at 2 m
            rig.push_pose(k * 50 * MS, sensim.pose(z=2.0))
        if same_time:  # the trajectory-file form: the old segment's last key at the jump's time
            rig.push_pose(550 * MS, sensim.pose(z=6.0), jump=True)
        else:  # the host's form: the old segment ends at its last key (0.50 s) and is held up to the jump
            rig = sensim.Rig(ctx)
            rig.add_nav(imu, nring)
            rig.add_lidar(lidar, lring)
            for k in range(0, 11):
                rig.push_pose(k * 50 * MS, sensim.pose(z=2.0))
            rig.push_pose(550 * MS, sensim.pose(z=6.0), jump=True)
        for k in range(12, 21):
            rig.push_pose(k * 50 * MS, sensim.pose(z=6.0))
        for _ in range(20):
            rig.step(scene, 50 * MS)
        return rig, [s for _, s in nring.frames()], None, lring

    def check_reset(self, same_time):
        rig, samples, _, lring = self.reset_run(same_time)
        worst = 0.0
        for t in range(0, 1000 * MS + 1, MS // 4):
            st = rig.platform_at(t)
            want = 2.0 if t < 550 * MS else 6.0
            worst = max(worst, abs(st["pose"][2][3] - want))
            for key in ("velocity", "acceleration", "angular_velocity", "angular_acceleration"):
                self.assertTrue(all(abs(x) < 1e-9 for x in st[key]), "%s at t = %d ns: %r" % (key, t, st[key]))
        self.assertLess(worst, 1e-9, "position exact on both sides of the jump (worst %.3g m)" % worst)
        self.assertEqual(len(samples), 1000)
        spike = max(max(abs(s["accel"][0]), abs(s["accel"][1]), abs(s["accel"][2] - G)) for s in samples)
        self.assertLess(spike, 1e-9, "the IMU reads (0, 0, +g) on both sides: no spike (worst %.3g m/s^2)" % spike)
        # the VLP-16 turn [0.5, 0.6): shots before 0.55 s see the ground 2 m down, shots after it 6 m down
        before = after = bad = 0
        while True:
            f = lring.pop()
            if f is None:
                break
            hdr = f.header
            pts = sensim.unpack_points(f.points) if isinstance(f.points, memoryview) else f.points
            if hdr["t_begin_ns"] != 500 * MS:
                continue
            for p in pts:
                t = hdr["t_begin_ns"] + int(p["t_offset_ns"])
                want = -2.0 if t < 550 * MS else -6.0
                if abs(float(p["z"]) - want) > 0.1:
                    bad += 1
                elif t < 550 * MS:
                    before += 1
                else:
                    after += 1
        self.assertGreater(before, 1000)
        self.assertGreater(after, 1000)
        self.assertEqual(bad, 0, "every shot on its own segment: %d off" % bad)

    def test_reset_same_time(self):
        self.check_reset(True)

    def test_reset_later_time(self):
        self.check_reset(False)

    def test_1khz_moving_jump_no_overshoot(self):
        """1 kHz, 10 m/s along x, then a 1 m jump ahead at 0.1 s: every key exact (1e-6 m), nothing
        beyond the old segment's last key before the jump, the new segment's velocity restarting."""
        ctx = sensim.Context(1)
        rig = sensim.Rig(ctx)
        keys = [(k * MS, 0.01 * k) for k in range(101)]
        keys += [(100 * MS, 2.0 + 0.01 * (k - 100)) for k in (100,)]
        keys += [(k * MS, 2.0 + 0.01 * (k - 100)) for k in range(101, 200)]
        for i, (t, x) in enumerate(keys):
            rig.push_pose(t, sensim.pose(x=x), jump=i == 101)
        for t, x in keys[:100] + keys[101:]:
            self.assertLess(abs(rig.platform_at(t)["pose"][0][3] - x), 1e-6)
        xs = [rig.platform_at(t)["pose"][0][3] for t in range(95 * MS, 100 * MS, 10_000)]
        self.assertLessEqual(max(xs), 1.0 + 1e-9, "no overshoot before the jump: max %r" % max(xs))
        self.assertTrue(all(b >= a for a, b in zip(xs, xs[1:])), "monotonic up to the jump")
        xs = [rig.platform_at(t)["pose"][0][3] for t in range(100 * MS, 105 * MS, 10_000)]
        self.assertGreaterEqual(min(xs), 2.0 - 1e-9, "no undershoot after the jump: min %r" % min(xs))
        v = rig.platform_at(150 * MS)["velocity"][0]
        self.assertLess(abs(v - 10.0), 1e-6, "the new segment moves at 10 m/s: %r" % v)

    def test_refusals(self):
        ctx = sensim.Context(1)
        rig = sensim.Rig(ctx)
        rig.push_pose(0, sensim.pose())
        rig.push_pose(10 * MS, sensim.pose())
        with self.assertRaises(sensim.TimeOrder):  # before the last key
            rig.push_pose(5 * MS, sensim.pose(z=1), jump=True)
        rig.push_pose(10 * MS, sensim.pose(z=1), jump=True)
        with self.assertRaises(sensim.TimeOrder):  # a third key at one time
            rig.push_pose(10 * MS, sensim.pose(z=2), jump=True)
        with self.assertRaises(sensim.TimeOrder):  # a plain key at the jump's time
            rig.push_pose(10 * MS, sensim.pose(z=2))
        with self.assertRaises(sensim.InvalidArgument):
            rig.push_pose(20 * MS, sensim.pose(), jump=1)
        rig.push_state(20 * MS, sensim.pose(z=1), velocity=[0, 0, 0], jump=True)  # a jump at a later time
        self.assertEqual(rig.platform_at(15 * MS)["pose"][2][3], 1.0)


@unittest.skipUnless(os.environ.get("SENSIM_CLI"), "needs SENSIM_CLI (the sensim command)")
class TrajectoryJumps(unittest.TestCase):
    """Two rows at one time in each trajectory format are a jump: odometry at 100 Hz reads the
    parked platform exactly on both sides, the IMU (0, 0, +g) throughout."""

    RIG = "[sensor imu]\ntype = imu\nrate_hz = 100\n\n[sensor odom]\ntype = odometry\nrate_hz = 100\n"

    def run_batch(self, tmp, name, text, extra=()):
        traj = os.path.join(tmp, name)
        with open(traj, "w") as f:
            f.write(text)
        rig, scene = os.path.join(tmp, "rig.ini"), os.path.join(tmp, "ground.obj")
        with open(rig, "w") as f:
            f.write(self.RIG)
        with open(scene, "w") as f:
            f.write(GROUND_OBJ)
        out = os.path.join(tmp, "out-" + name)
        return subprocess.run([os.environ["SENSIM_CLI"], "batch", "--scene", scene, "--rig", rig, "--trajectory", traj,
                               "--out", out, "--quiet", *extra], capture_output=True, text=True, timeout=600), out

    def check_run(self, r, out):
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "odom", "odometry.csv")) as f:
            o = list(csv.reader(f))
        h, rows = o[0], o[1:]
        self.assertEqual(len(rows), 200)
        for row in rows:
            t = int(row[h.index("t_ns")])
            want = 2.0 if t < 1000 * MS else 6.0
            self.assertLess(abs(float(row[h.index("z")]) - want), 1e-9, "odometry z at %d ns: %s" % (t, row))
            self.assertLess(abs(float(row[h.index("vz")])), 1e-9)
        with open(os.path.join(out, "imu", "imu.csv")) as f:
            i = list(csv.reader(f))
        h, rows = i[0], i[1:]
        self.assertEqual(len(rows), 200)
        worst = max(abs(float(row[h.index("az")]) - G) for row in rows)
        self.assertLess(worst, 1e-9, "IMU az = g throughout: worst %.3g" % worst)

    def test_formats(self):
        euler = "t,x,y,z,roll,pitch,yaw\n0,0,0,2,0,0,0\n0.5,0,0,2,0,0,0\n1,0,0,2,0,0,0\n1,0,0,6,0,0,0\n" \
                "1.5,0,0,6,0,0,0\n2,0,0,6,0,0,0\n"
        quat = "t,x,y,z,qw,qx,qy,qz\n0,0,0,2,1,0,0,0\n0.5,0,0,2,1,0,0,0\n1,0,0,2,1,0,0,0\n1,0,0,6,1,0,0,0\n" \
               "1.5,0,0,6,1,0,0,0\n2,0,0,6,1,0,0,0\n"
        tum = "".join("%s 0 0 %s 0 0 0 1\n" % (t, z) for t, z in
                      (("0", 2), ("0.5", 2), ("1", 2), ("1", 6), ("1.5", 6), ("2", 6)))
        # KITTI: camera axes (z forward, x right, y down); native z up is camera -y
        kitti = "".join("1 0 0 0 0 1 0 %s 0 0 1 0\n" % (-z) for z in (2, 2, 2, 6, 6, 6))
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "times.txt"), "w") as f:
                f.write("0\n0.5\n1\n1\n1.5\n2\n")
            for name, text, extra in (("euler.csv", euler, ()), ("quat.csv", quat, ()), ("tum.txt", tum, ()),
                                      ("kitti.txt", kitti, ("--trajectory-times", os.path.join(tmp, "times.txt")))):
                with self.subTest(format=name):
                    self.check_run(*self.run_batch(tmp, name, text, extra))

    def test_three_rows_refused(self):
        text = "t,x,y,z,roll,pitch,yaw\n0,0,0,2,0,0,0\n1,0,0,2,0,0,0\n1,0,0,6,0,0,0\n1,0,0,7,0,0,0\n2,0,0,6,0,0,0\n"
        with tempfile.TemporaryDirectory() as tmp:
            r, _ = self.run_batch(tmp, "three.csv", text)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("three.csv:5", r.stderr)
            self.assertIn("a third is not", r.stderr)


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class CarlaTeleport(unittest.TestCase):
    """CARLA's set_transform of an actor carrying a lidar moves the lidar at once: every tick's
    ground lies exactly the lidar's height below it, before and after the teleport."""

    def test_set_transform_moves_attached_lidar(self):
        import numpy as np
        import sensim.carla as carla
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ground.obj")
            with open(path, "w") as f:
                f.write(GROUND_OBJ.replace("ground", "ground_road"))
            world = carla.Client("localhost", 2000).load_world(path)
            st = world.get_settings()
            st.synchronous_mode, st.fixed_delta_seconds = True, 0.05
            world.apply_settings(st)
            bl = world.get_blueprint_library()
            car = world.spawn_actor(bl.find("vehicle.tesla.model3"), carla.Transform(carla.Location(z=0.0)))
            lb = bl.find("sensor.lidar.ray_cast_semantic")
            lb.set_attribute("range", "100")
            lb.set_attribute("upper_fov", "-5")
            lidar = world.spawn_actor(lb, carla.Transform(carla.Location(z=2.0)), attach_to=car)
            got = {}
            lidar.listen(lambda m: got.__setitem__(m.frame, np.frombuffer(m.raw_data,
                                                                          carla.SemanticLidarMeasurement._dtype)))
            before = [world.tick() for _ in range(3)]
            car.set_transform(carla.Transform(carla.Location(x=30.0, z=5.0)))
            after = [world.tick() for _ in range(3)]
            lidar.stop()
            for fr in before + after:
                pts = got[fr]
                want = -2.0 if fr in before else -7.0
                self.assertGreater(len(pts), 100)
                self.assertLess(np.abs(pts["z"] - want).max(), 1e-3, "frame %d: ground at %r, want %r" %
                                (fr, (pts["z"].min(), pts["z"].max()), want))


if __name__ == "__main__":
    unittest.main()
