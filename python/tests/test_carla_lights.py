"""Traffic lights as CARLA 0.9.15 runs them (issue 65 item 5), on sensim.carla's built-in town: one actor per
OpenDRIVE dynamic signal of type 1000001, grouped by the junction its road enters; the group's rule of
CARLA's TrafficLightController / TrafficLightGroup (each light in turn Green 10 s, Yellow 3 s, Red 2 s while
the others are Red) against its closed form; set_*_time, set_state, freeze, reset_group; the trigger volume
on the stopped lane; and the traffic manager stopping at red (never entering a junction on red), running
lights by ignore_lights_percentage, and doing the same thing twice for a seed."""
import math
import os
import subprocess
import tempfile
import textwrap
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla

DT_NS = 100_000_000


def town(dt=0.1, client=None):
    world = (client or carla.Client("localhost", 2000)).load_world("town")
    s = world.get_settings()
    s.synchronous_mode, s.fixed_delta_seconds = True, dt
    world.apply_settings(s)
    return world


def expected(t_ns, pole, n, times=(10, 3, 2)):
    """The closed form of a group of n lights, each with the same stage times (seconds), at time t."""
    cyc = sum(times) * 10**9
    k, phase = (t_ns // cyc) % n, t_ns % cyc
    if k != pole:
        return carla.TrafficLightState.Red
    if phase < times[0] * 10**9:
        return carla.TrafficLightState.Green
    if phase < (times[0] + times[1]) * 10**9:
        return carla.TrafficLightState.Yellow
    return carla.TrafficLightState.Red


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class Lights(unittest.TestCase):
    def test_lights_of_the_town(self):
        world = town()
        lights = world.get_actors().filter("traffic.traffic_light*")
        self.assertEqual(len(lights), 16)  # 4 junctions of three roads, 1 of four; the corners have none
        m = world.get_map()
        sizes = sorted(len(x.get_group_traffic_lights()) for x in lights)
        self.assertEqual(sizes, [3] * 12 + [4] * 4)
        for light in lights:
            self.assertEqual(light.type_id, "traffic.traffic_light")
            self.assertEqual(light.semantic_tags, [7])
            self.assertIs(world.get_traffic_light_from_opendrive_id(light.get_opendrive_id()), light)
            stop = light.get_stop_waypoints()[0]
            self.assertFalse(stop.is_junction)
            self.assertTrue(stop.next(3.0)[0].is_junction)  # the stop line is the junction's edge
            # the trigger volume (light frame) lies on the stopped lane, before the stop line
            tr = light.get_transform()
            centre = tr.transform(light.trigger_volume.location)
            wp = m.get_waypoint(centre, project_to_road=False)
            self.assertEqual((wp.road_id, wp.lane_id), (stop.road_id, stop.lane_id))
            sl = stop.transform.location
            self.assertAlmostEqual(math.hypot(centre.x - sl.x, centre.y - sl.y), 2.5, delta=1e-6)
            group = light.get_group_traffic_lights()
            self.assertIn(light, group)
            self.assertEqual(group.index(light), light.get_pole_index())
            self.assertFalse(light.destroy())
            back = stop.previous(20.0)[0]  # 20 m before the stop line, on the same lane
            self.assertIn(light, world.get_traffic_lights_from_waypoint(back, 30.0))
            self.assertNotIn(light, world.get_traffic_lights_from_waypoint(back, 10.0))
        centre = [x for x in lights if len(x.get_group_traffic_lights()) == 4]
        jid = centre[0].get_stop_waypoints()[0].next(3.0)[0].junction_id
        self.assertEqual(sorted(x.id for x in world.get_traffic_lights_in_junction(jid)),
                         sorted(x.id for x in centre))

    def test_cycle_is_carla_group_rule(self):
        world = town()
        lights = world.get_actors().filter("traffic.traffic_light*")
        groups = {tuple(sorted(x.id for x in light.get_group_traffic_lights())) for light in lights}
        t = 0
        for _ in range(700):  # 70 s: more than a whole cycle of the four-light group (60 s)
            world.tick()
            t += DT_NS
            for ids in groups:
                group = world.get_actor(ids[0]).get_group_traffic_lights()
                for light in group:
                    self.assertEqual(light.state, expected(t, light.get_pole_index(), len(group)),
                                     "t = %d ns, light %d" % (t, light.id))
        light = world.get_actor(sorted(groups)[0][0])
        self.assertEqual((light.get_green_time(), light.get_yellow_time(), light.get_red_time()), (10.0, 3.0, 2.0))

    def test_times_state_freeze_reset(self):
        world = town()
        light = [x for x in world.get_actors().filter("traffic.traffic_light*") if x.get_pole_index() == 0][0]
        group = light.get_group_traffic_lights()
        for x in group:
            x.set_green_time(4.0)
            x.set_yellow_time(1.0)
            x.set_red_time(1.0)
        t = 0
        for _ in range(60):  # the new stage times from now on (the first stage had begun under 10 s)
            world.tick()
            t += DT_NS
        self.assertEqual(light.state, expected(t, 0, len(group), (4, 1, 1)))
        light.reset_group()
        self.assertEqual(light.state, carla.TrafficLightState.Green)
        self.assertEqual(light.get_elapsed_time(), 0.0)
        light.freeze(True)
        self.assertTrue(all(x.is_frozen() for x in group))
        for _ in range(100):
            world.tick()
        self.assertEqual(light.state, carla.TrafficLightState.Green)  # frozen: 10 s pass, nothing changes
        self.assertEqual(light.get_elapsed_time(), 0.0)
        light.freeze(False)
        other = group[1]
        other.set_state(carla.TrafficLightState.Green)  # held until the group's next stage change
        for _ in range(39):
            world.tick()
        self.assertEqual(other.state, carla.TrafficLightState.Green)
        self.assertAlmostEqual(light.get_elapsed_time(), 3.9, places=9)
        world.tick()  # 4 s: light 0 turns yellow; the held state ends with that change
        self.assertEqual(light.state, carla.TrafficLightState.Yellow)
        self.assertEqual(other.state, carla.TrafficLightState.Red)
        with self.assertRaises(ValueError):
            light.set_green_time(0)
        with self.assertRaises(TypeError):
            light.set_state("Green")
        world.freeze_all_traffic_lights(True)
        self.assertTrue(all(x.is_frozen() for x in world.get_actors().filter("traffic.traffic_light*")))
        world.reset_all_traffic_lights()
        self.assertTrue(all(x.state == expected(0, x.get_pole_index(), len(x.get_group_traffic_lights()))
                            for x in world.get_actors().filter("traffic.traffic_light*")))

    def _drive(self, seed=7, red=False, ignore=0.0, seconds=40.0):
        client = carla.Client("localhost", 2000)
        world = town(0.05, client)
        lights = world.get_actors().filter("traffic.traffic_light*")
        if red:
            for x in lights:
                x.set_state(carla.TrafficLightState.Red)
            world.freeze_all_traffic_lights(True)
        tm = client.get_trafficmanager()
        tm.set_synchronous_mode(True)
        tm.set_random_device_seed(seed)
        bl = world.get_blueprint_library()
        m = world.get_map()
        cars = [world.spawn_actor(bl.find("vehicle.tesla.model3"), sp) for sp in m.get_spawn_points()[::2]]
        for c in cars:
            c.set_autopilot(True, tm.get_port())
            tm.ignore_lights_percentage(c, ignore)
        entries = {"red": 0, "other": 0}  # entries into junctions from a lane with a light, by its state
        trace = []
        at_light = 0
        stop_lane = {(x.get_stop_waypoints()[0].road_id, x.get_stop_waypoints()[0].lane_id): x for x in lights}
        where = {c.id: m.get_waypoint(c.get_location()) for c in cars}
        for _ in range(int(round(seconds / 0.05))):
            states = {}
            for c in cars:
                light = stop_lane.get((where[c.id].road_id, where[c.id].lane_id))
                states[c.id] = None if light is None else light.state
            world.tick()
            for c in cars:
                wp = m.get_waypoint(c.get_location())
                if wp.is_junction and not where[c.id].is_junction and states[c.id] is not None:
                    entries["red" if states[c.id] == carla.TrafficLightState.Red else "other"] += 1
                where[c.id] = wp
                at_light += c.is_at_traffic_light()
                t = c.get_transform()
                trace.append((round(t.location.x, 9), round(t.location.y, 9), round(t.rotation.yaw, 9)))
        return entries, trace, at_light

    def test_traffic_stops_at_red_and_runs_lights_when_told(self):
        entries, _, at_light = self._drive(red=True)
        self.assertEqual(entries["red"] + entries["other"], 0)  # every light red and frozen: nobody enters
        # (a junction of the town's corners is a bend without lights: vehicles pass those)
        self.assertGreater(at_light, 0)  # the leaders wait in their lights' trigger volumes
        entries, _, _ = self._drive(red=True, ignore=100.0)
        self.assertGreater(entries["red"], 0)  # told to ignore lights: they drive through red
        entries, trace, _ = self._drive()
        self.assertEqual(entries["red"], 0)  # cycling: never in on red
        self.assertGreater(entries["other"], 0)
        self.assertEqual(trace, self._drive()[1])  # a seed, the same run


# CARLA's synchronous_mode.py's shape: a car teleported 1.5 m a frame along random waypoints, a camera on it,
# in a synchronous world run by the runner on the built-in town: it never meets a dead end
WALK = textwrap.dedent('''
    import random
    import carla
    client = carla.Client("localhost", 2000)
    world = client.get_world()
    s = world.get_settings()
    s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
    world.apply_settings(s)
    m = world.get_map()
    random.seed(3)
    start = random.choice(m.get_spawn_points())
    car = world.spawn_actor(world.get_blueprint_library().find("vehicle.tesla.model3"), start)
    car.set_simulate_physics(False)
    bp = world.get_blueprint_library().find("sensor.camera.semantic_segmentation")
    bp.set_attribute("image_size_x", "64")
    bp.set_attribute("image_size_y", "48")
    images = []
    cam = world.spawn_actor(bp, carla.Transform(carla.Location(x=-5.5, z=2.8), carla.Rotation(pitch=-15)),
                            attach_to=car)
    cam.listen(images.append)
    wp = m.get_waypoint(start.location)
    junctions = set()
    for frame in range(600):
        wp = random.choice(wp.next(1.5))  # IndexError at a dead end
        if wp.is_junction:
            junctions.add(wp.junction_id)
        car.set_transform(wp.transform)
        world.tick()
    print("frames", len(images), "junctions", len(junctions))
''')


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class Town(unittest.TestCase):
    def test_a_waypoint_walk_never_ends(self):
        with tempfile.TemporaryDirectory() as tmp:
            script = os.path.join(tmp, "walk.py")
            with open(script, "w") as f:
                f.write(WALK)
            e = dict(os.environ)
            e["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(sensim.__file__)))
            r = subprocess.run(["/usr/bin/python3", "-m", "sensim.carla", "--scene", "town", script], env=e,
                               capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        words = r.stdout.split()
        self.assertEqual(words[:2], ["frames", "600"])
        self.assertGreaterEqual(int(words[3]), 3)  # 900 m through several junctions

    def test_every_lane_goes_on(self):
        world = town()
        m = world.get_map()
        ends = 0
        for w in m.generate_waypoints(5.0):
            until = [] if w.is_junction else w.next_until_lane_end(5.0)
            last = until[-1] if until else w  # (w at its lane's end already: nothing further on the lane)
            self.assertTrue(last.next(1.0), "dead end at road %d lane %d" % (last.road_id, last.lane_id))
            ends += 1
        self.assertGreater(ends, 100)
        topo = m.get_topology()
        self.assertEqual(len(topo), 88)  # 24 lane ends into junctions (2 to 3 turns each: 44) + 44 out


if __name__ == "__main__":
    unittest.main()
