"""The host fast path (issue 63): Rig.advance(scene, t_ns, pose) = push_pose then step, bit for bit,
in one call; a refused step takes its key back (the same call can be retried)."""
import unittest

import sensim

MS = 1_000_000


def make(ctx):
    rig = sensim.Rig(ctx)
    lidar = sensim.Lidar(ctx, "vlp16")
    ring = sensim.Ring.for_lidar(lidar, frames=8)
    rig.add_lidar(lidar, ring)
    imu = sensim.Nav(ctx, "imu", {"rate_hz": 200})
    nring = sensim.NavRing(256)
    rig.add_nav(imu, nring)
    return rig, ring, nring


def bits(v):
    """Every value to comparable bytes or reprs (numpy arrays by their bytes)."""
    if hasattr(v, "tobytes"):
        return v.tobytes()
    if isinstance(v, dict):
        return {k: bits(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [bits(x) for x in v]
    return repr(v)


def header_bits(f):
    return bits(f.header)


def points_bytes(f):
    p = f.points
    return bytes(p) if isinstance(p, memoryview) else p.tobytes()


class FastPath(unittest.TestCase):
    def test_same_bits_as_push_and_step(self):
        ctx = sensim.Context(2)
        scene = sensim.Scene(ctx)
        scene.load("street")
        scene.commit()
        a, ra, na = make(ctx)
        b, rb, nb = make(ctx)
        for k in range(0, 301):  # 0.3 s at 1 kHz along a curve, a jump back at 0.2 s
            x = 8.0 * k / 1000.0 - (5.0 if k >= 200 else 0.0)
            pose = sensim.pose(x, 0.002 * k, 1.8, 0, 0, 0.05 * k)
            jump = k == 200
            got = a.advance(scene, k * MS, pose, jump=jump)
            b.push_pose(k * MS, pose, jump=jump)
            if k:
                res = b.step(scene, MS)
                self.assertEqual(got, res["frames_completed"])
                self.assertEqual(a.last_step, res)
        fa, fb = list(ra.frames()), list(rb.frames())
        self.assertEqual(len(fa), 3)
        self.assertEqual([header_bits(f) for f in fa], [header_bits(f) for f in fb])
        self.assertEqual([points_bytes(f) for f in fa], [points_bytes(f) for f in fb])
        sa, sb = list(na.frames()), list(nb.frames())
        self.assertEqual(len(sa), 60)
        self.assertEqual(bits(sa), bits(sb))

    def test_refused_step_takes_its_key_back(self):
        ctx = sensim.Context(1)
        scene = sensim.Scene(ctx)
        scene.add_mesh([[-50, -50, 0], [50, -50, 0], [0, 50, 0]], [[0, 1, 2]])
        rig, _, _ = make(ctx)
        rig.advance(scene, 0, sensim.pose(z=2))  # the first pose only pushes (t = the rig's time)
        with self.assertRaises(sensim.NotCommitted):
            rig.advance(scene, MS, sensim.pose(z=2))
        with self.assertRaises(sensim.OutOfRange):  # the key at 1 ms was taken back
            rig.platform_at(MS)
        scene.commit()
        self.assertEqual(rig.advance(scene, MS, sensim.pose(z=2)), 1)  # the IMU's sample at 0
        self.assertEqual(rig.last_step["t_end_ns"], MS)
        with self.assertRaises(sensim.InvalidArgument):
            rig.advance(scene, 2 * MS, sensim.pose(z=2), jump="yes")
        with self.assertRaises(sensim.InvalidArgument):
            rig.advance(scene, 2 * MS, None)


if __name__ == "__main__":
    unittest.main()
