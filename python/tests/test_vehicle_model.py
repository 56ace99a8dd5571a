"""The C kinematic vehicle model (sensim/vehicle.h, sensim.vehicle_step: what `sensim ros2 --control-in`
drives with) is sensim.carla's: the same vehicle driven by the same controls through sensim.carla's world
ticks and through sensim.vehicle_step lands on the same speeds and poses (CARLA's frame mirrored into
REP-103), within 1e-9 m over 400 ticks of changing throttle, brake, steer, reverse and hand brake. Also: the
closed forms of one step (full throttle from rest: v = 3.5 dt; a constant turn's yaw rate v tan(35 deg x
steer) / L, negative for CARLA's positive steer), and refusals."""
import math
import random
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import numpy as np
    import sensim.carla as carla


@unittest.skipUnless(sensim.HAVE_NUMPY, "needs numpy")
class VehicleModel(unittest.TestCase):
    def test_one_step_closed_forms(self):
        m = sensim.vehicle_model()
        self.assertEqual((m["wheelbase_m"], m["throttle_mps2"]), (2.9, 3.5))
        v, pose, rate = sensim.vehicle_step({"throttle": 1.0}, 0.05, 0.0, np.eye(4))
        self.assertEqual(v, 3.5 * 0.05 - (0 + 0) * 0.05)
        self.assertAlmostEqual(pose[0, 3], v * 0.05, delta=1e-15)
        self.assertEqual(rate, 0.0)
        v, pose, rate = sensim.vehicle_step({"steer": 0.5}, 0.01, 10.0, np.eye(4))
        self.assertAlmostEqual(rate, -v * math.tan(math.radians(35) * 0.5) / 2.9, delta=1e-12)
        self.assertLess(pose[1, 3], 0)  # a right turn: towards -y
        self.assertAlmostEqual(np.linalg.det(pose[:3, :3]), 1.0, delta=1e-12)

    def test_refusals(self):
        for args, exc in ((({"throttle": float("nan")}, 0.05, 0.0, np.eye(4)), sensim.NotFinite),
                          (({}, 0.0, 0.0, np.eye(4)), sensim.OutOfRange),
                          (({}, 0.05, 0.0, np.eye(4), {"wheelbase_m": 0}), sensim.OutOfRange),
                          (({}, 0.05, 0.0, np.eye(4), {"nope": 1}), sensim.InvalidArgument)):
            with self.assertRaises(exc):
                sensim.vehicle_step(*args)

    def test_same_as_sensim_carla(self):
        world = carla.Client("localhost", 2000).get_world()
        s = world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        world.apply_settings(s)
        car = world.spawn_actor(world.get_blueprint_library().find("vehicle.tesla.model3"),
                                carla.Transform(carla.Location(10, -4, 0), carla.Rotation(yaw=30)))
        L = 1.2 * car.bounding_box_extent.x
        rng = random.Random(68)
        pose = sensim.pose(10, 4, 0, 0, 0, -30)  # CARLA's (10, -4), yaw 30 right-handed-mirrored
        speed, worst = 0.0, 0.0
        for k in range(400):
            if k % 25 == 0:
                c = carla.VehicleControl(throttle=rng.random(), steer=rng.uniform(-1, 1),
                                         brake=rng.random() * (k % 50 == 25), reverse=k % 200 >= 150,
                                         hand_brake=k % 100 == 75)
                car.apply_control(c)
            world.tick()
            speed, pose, _ = sensim.vehicle_step(c, 0.05, speed, pose, {"wheelbase_m": L})
            loc = car.get_location()
            worst = max(worst, abs(loc.x - pose[0, 3]), abs(-loc.y - pose[1, 3]))
            yaw = math.degrees(math.atan2(pose[1, 0], pose[0, 0]))
            self.assertAlmostEqual(((car.get_transform().rotation.yaw + yaw + 180) % 360) - 180, 0, delta=1e-7)
            self.assertAlmostEqual(abs(speed), car._speed if car._speed >= 0 else -car._speed, delta=1e-12)
        self.assertLess(worst, 1e-9, "positions apart by %g m" % worst)
        self.assertGreater(abs(pose[0, 3] - 10) + abs(pose[1, 3] - 4), 5.0)  # it did drive


if __name__ == "__main__":
    unittest.main()
