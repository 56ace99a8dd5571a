"""Issue 49 from Python: a host's missing pose is not the identity, CARLA-style
scripts get a ValueError naming the value (never ZeroDivisionError or
OverflowError, never nonsense accepted), and a long tick never delivers an
empty lidar measurement. Each check failed before its fix."""
import math
import os
import tempfile
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla

SCENE = ("o ground_road\nv -100 -100 0\nv 100 -100 0\nv 100 100 0\nv -100 100 0\nf 1 2 3 4\n"
         "o wall\nv -50 5 0\nv 50 5 0\nv 50 5 20\nv -50 5 20\nf 5 6 7 8\n")


class RigPoses(unittest.TestCase):
    def test_push_pose_none_is_refused(self):
        rig = sensim.Rig(sensim.Context(1))
        with self.assertRaises(sensim.InvalidArgument) as e:
            rig.push_pose(0, None)  # pushed the identity before
        self.assertIn("pose is None", str(e.exception))
        with self.assertRaises(sensim.InvalidArgument):
            rig.push_state(0, None)
        rig.push_pose(0, sensim.pose(1, 2, 3, 0, 0, 0))  # the rig is usable after the refusal
        self.assertEqual(rig.platform_at(0)["pose"][0][3], 1.0)


class PlacementOccupancy(unittest.TestCase):
    def test_occupancy_not_rows_of_three_is_invalid_argument(self):
        """Issue 62 item 18: (3, 4), [(1, 2)] and 5 raised bare TypeError/ValueError."""
        from sensim import placement

        class D:
            xmin, ymin, xmax, ymax, cell_m = 0.0, 0.0, 2.0, 2.0, 1.0
        for bad in ((3, 4), [(1, 2)], 5, [("a", 1, 0.5)]):
            with self.assertRaises(sensim.InvalidArgument) as cm:
                placement.occupancy_prior((D, 2, 2), bad)
            self.assertIn("occupancy", str(cm.exception))
        if placement._np is not None:  # a good one (the prior array needs numpy)
            self.assertEqual(list(placement.occupancy_prior((D, 2, 2), [(0.5, 1.5, 0.25)])), [0, 0, 0.25, 0])


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class CarlaValues(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "wall.obj")
        with open(self.path, "w") as f:
            f.write(SCENE)
        self.world = carla.Client("localhost", 2000).load_world(self.path)
        self.bl = self.world.get_blueprint_library()

    def tearDown(self):
        self.tmp.cleanup()

    def settings(self, dt):
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, dt
        self.world.apply_settings(s)

    def test_fixed_delta_too_small_is_a_value_error(self):
        for bad in (1e-12, 0.0, -1.0, float("nan"), float("inf"), 11.0, "0.05"):
            with self.assertRaises(ValueError, msg=repr(bad)):  # 1e-12 was ZeroDivisionError at the tick
                self.settings(bad)
        self.settings(1e-6)
        self.assertEqual(self.world.tick(), 1)

    def test_attributes_are_finite_numbers(self):
        bp = self.bl.find("sensor.lidar.ray_cast")
        # ("channels", "2.5") is no refusal: CARLA reads int attributes with atoi (2), and so does sensim.carla
        for attr, bad in (("channels", "inf"), ("points_per_second", "nan"),
                          ("sensor_tick", "nan"), ("sensor_tick", "-0.1"), ("range", "inf")):
            with self.assertRaises(ValueError, msg="%s=%s" % (attr, bad)) as e:
                bp.set_attribute(attr, bad)  # "inf" raised OverflowError at spawn, "nan" was accepted
            self.assertIn(attr, str(e.exception))
        self.assertEqual(bp.get_attribute("channels").as_int(), 32)  # nothing of a refused value stays

    def test_transforms_are_finite_and_sane(self):
        self.settings(0.05)
        bp = self.bl.find("vehicle.tesla.model3")
        car = self.world.spawn_actor(bp, carla.Transform(carla.Location(0, 0, 0.5)))
        for bad in (carla.Transform(carla.Location(0, 0, 0.5), carla.Rotation(yaw=1e300)),
                    carla.Transform(carla.Location(float("nan"), 0, 0.5)),
                    carla.Transform(carla.Location(0, 0, float("inf")))):
            with self.assertRaises(ValueError):
                car.set_transform(bad)
            with self.assertRaises(ValueError):
                self.world.spawn_actor(bp, bad)
        self.assertEqual(car.get_transform().location.z, 0.5)
        self.world.tick()

    def test_long_ticks_deliver_every_point(self):
        for dt in (0.5, 2.0):  # the 4-frame ring refused ticks over 0.3 s: every measurement was empty
            self.world = carla.Client("localhost", 2000).load_world(self.path)
            self.settings(dt)
            bp = self.bl.find("sensor.lidar.ray_cast_semantic")
            bp.set_attribute("range", "50")
            lidar = self.world.spawn_actor(bp, carla.Transform(carla.Location(z=2)))
            got = []
            lidar.listen(got.append)
            self.world.tick()
            self.world.tick()
            # CARLA's shots per tick: points_per_second x delta; the ground and the wall return most of them
            shots = 56000 * dt
            self.assertEqual(len(got), 2)
            for m in got:
                self.assertGreater(len(m), 0.3 * shots, "dt %g: %d points of %d shots" % (dt, len(m), shots))
                self.assertLessEqual(len(m), math.ceil(shots) + 32)
            lidar.destroy()


if __name__ == "__main__":
    unittest.main()
