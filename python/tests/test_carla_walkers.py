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


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class TrafficScript(unittest.TestCase):
    """The calls of CARLA's generate_traffic example, in a script of our own run by the runner: vehicles by a
    batch of SpawnActor.then(SetAutopilot(FutureActor)), walkers on navigation points with controllers spawned
    by batch on them, get_actors(ids) indexed as [controller, walker, ...], start / go_to_location /
    set_max_speed, synchronous ticks, then the clean-up (CARLA 0.9.15's generate_traffic.py ran verbatim the
    same way on the street and on an .xodr world when this was written)."""
    SCRIPT = '''
import carla
client = carla.Client("localhost", 2000)
world = client.get_world()
tm = client.get_trafficmanager(8000)
tm.set_global_distance_to_leading_vehicle(2.5)
tm.set_random_device_seed(1)
tm.set_synchronous_mode(True)
s = world.get_settings()
s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
world.apply_settings(s)
bl = world.get_blueprint_library()
bps = [x for x in bl.filter("vehicle.*") if int(x.get_attribute("generation")) == 2]
SpawnActor, SetAutopilot, FutureActor = carla.command.SpawnActor, carla.command.SetAutopilot, carla.command.FutureActor
batch = [SpawnActor(bps[i % len(bps)], tr).then(SetAutopilot(FutureActor, True, tm.get_port()))
         for i, tr in enumerate(world.get_map().get_spawn_points()[:6])]
vehicles = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
world.set_pedestrians_seed(2)
points = [world.get_random_location_from_navigation() for _ in range(4)]
wbp = bl.filter("walker.pedestrian.*")[0]
walkers = [r.actor_id for r in client.apply_batch_sync([SpawnActor(wbp, carla.Transform(p)) for p in points], True)]
ctrl = bl.find("controller.ai.walker")
cons = [r.actor_id for r in client.apply_batch_sync([SpawnActor(ctrl, carla.Transform(), w) for w in walkers], True)]
all_id = [x for pair in zip(cons, walkers) for x in pair]
all_actors = world.get_actors(all_id)
world.tick()
world.set_pedestrians_cross_factor(0.0)
for i in range(0, len(all_id), 2):
    all_actors[i].start()
    all_actors[i].go_to_location(world.get_random_location_from_navigation())
    all_actors[i].set_max_speed(float(wbp.get_attribute("speed").recommended_values[1]))
start = {a.id: a.get_location() for a in world.get_actors(vehicles + walkers)}
tm.global_percentage_speed_difference(30.0)
for _ in range(100):
    world.tick()
moved = sum(1 for a in world.get_actors(vehicles + walkers) if a.get_location().distance(start[a.id]) > 1.0)
print(len(vehicles), len(walkers), len(cons), moved)
client.apply_batch([carla.command.DestroyActor(x) for x in vehicles])
for i in range(0, len(all_id), 2):
    all_actors[i].stop()
client.apply_batch([carla.command.DestroyActor(x) for x in all_id])
print(len(world.get_actors().filter("vehicle.*")), len(world.get_actors().filter("walker.*")))
'''

    def test_runs_under_the_runner(self):
        import subprocess
        import sys
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "traffic.py")
            with open(path, "w") as f:
                f.write(self.SCRIPT)
            env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
            r = subprocess.run([sys.executable, "-m", "sensim.carla", path], env=env, capture_output=True,
                               text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            lines = r.stdout.split("\n")
            # 6 vehicles on the street's spawn points, 4 walkers and their controllers; the 6 vehicles move (the
            # parked cars are scenery) and so do the walkers sent to points farther than 1 m; all destroyed after
            n_v, n_w, n_c, moved = map(int, lines[0].split())
            self.assertEqual((n_v, n_w, n_c), (6, 4, 4))
            self.assertGreaterEqual(moved, 6)
            self.assertEqual(lines[1], "0 0")
