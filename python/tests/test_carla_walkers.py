"""sensim.carla's pedestrians (issue 65 item 7): navigation points on the sidewalks' centres, the same for a seed;
a started controller walks its walker along its sidewalk to its target at its max speed (frames as arithmetic
predicts), never leaving the sidewalk; a world without sidewalks has no navigation (None, as CARLA's)."""
import math
import os
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla

INTERSECTION = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "xodr",
                            "lane_offset_intersection.xodr")


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class Walkers(unittest.TestCase):
    def setUp(self):
        self.client = carla.Client("localhost", 2000)
        self.world = self.client.load_world("street")
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        self.world.apply_settings(s)
        self.bl = self.world.get_blueprint_library()

    def tearDown(self):
        self.world._clock.stop()

    def test_navigation_points_are_on_the_sidewalks_and_seeded(self):
        self.world.set_pedestrians_seed(5)
        pts = [self.world.get_random_location_from_navigation() for _ in range(50)]
        for p in pts:  # the street's sidewalks: 3 m wide beyond the 3.5 m lanes, their centres at |y| = 5, 0.15 m up
            self.assertAlmostEqual(abs(p.y), 5.0, places=9)
            self.assertAlmostEqual(p.z, 0.15, places=9)
            self.assertTrue(-100 <= p.x <= 100)
        self.assertGreater(len({round(p.y) for p in pts}), 1)  # both sidewalks
        self.world.set_pedestrians_seed(5)
        again = [self.world.get_random_location_from_navigation() for _ in range(50)]
        self.assertEqual([(p.x, p.y) for p in pts], [(p.x, p.y) for p in again])

    def test_a_controller_walks_its_walker_to_its_target(self):
        walker = self.world.spawn_actor(self.bl.find("walker.pedestrian.0001"),
                                        carla.Transform(carla.Location(-10.0, 5.0, 0.15)))
        ctrl = self.world.spawn_actor(self.bl.find("controller.ai.walker"), carla.Transform(), walker)
        self.assertEqual(ctrl.type_id, "controller.ai.walker")
        ctrl.start()
        ctrl.go_to_location(carla.Location(10.0, 5.0, 0.15))
        ctrl.set_max_speed(1.4)
        xs = []
        for _ in range(300):
            self.world.tick()
            loc = walker.get_location()
            xs.append(loc.x)
            self.assertAlmostEqual(loc.y, 5.0, places=9)  # on its sidewalk's centre throughout
            self.assertAlmostEqual(loc.z, 0.15, places=9)
        steps = [b - a for a, b in zip(xs, xs[1:])]
        self.assertAlmostEqual(steps[0], 1.4 * 0.05, places=9)
        arrive = math.ceil(20.0 / (1.4 * 0.05))  # 286 ticks for 20 m
        self.assertLess(abs(xs[arrive - 2] - 10.0), 1.4 * 0.05)
        self.assertAlmostEqual(xs[arrive - 1], 10.0, places=9)
        self.assertEqual(xs[-1], 10.0)  # it stays at its target
        ctrl.stop()
        self.world.tick()
        self.assertEqual(walker.get_location().x, 10.0)

    def test_a_target_across_the_road_is_not_reached_by_crossing(self):
        walker = self.world.spawn_actor(self.bl.find("walker.pedestrian.0002"),
                                        carla.Transform(carla.Location(80.0, 5.0, 0.15)))
        ctrl = self.world.spawn_actor(self.bl.find("controller.ai.walker"), carla.Transform(), walker)
        ctrl.start()
        ctrl.go_to_location(carla.Location(95.0, -5.0, 0.15))  # the other sidewalk, near the street's end
        ctrl.set_max_speed(2.0)
        for _ in range(400):
            self.world.tick()
            self.assertAlmostEqual(walker.get_location().y, 5.0, places=9)
        self.assertAlmostEqual(walker.get_location().x, 100.0, places=9)  # the sidewalk's end nearer the target

    def test_errors_and_worlds_without_sidewalks(self):
        with self.assertRaises(RuntimeError):
            self.world.spawn_actor(self.bl.find("controller.ai.walker"), carla.Transform())  # no walker
        world = self.client.load_world(INTERSECTION)
        try:
            self.assertIsNone(world.get_random_location_from_navigation())
        finally:
            world._clock.stop()


if __name__ == "__main__":
    unittest.main()
