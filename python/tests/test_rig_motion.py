"""The rig's own motion from Python: a co-simulation pushes what it knows
(poses, or states with derivatives) each tick and steps up to it."""
import math
import unittest

import sensim


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
        rig.step(scene, 1_000_000)
        k = rig.platform_at(1_000_000)  # on a key: its pose; the 2nd key's velocity from the two keys
        self.assertAlmostEqual(k["pose"][0][3], 0.01, places=12)
        self.assertAlmostEqual(k["velocity"][0], 10.0, places=9)
        self.assertEqual(rig.platform_at(0)["velocity"], [0.0, 0.0, 0.0])  # the first key: at rest (documented)
        rig.close()


if __name__ == "__main__":
    unittest.main()
