"""sensim.carla's Map and Waypoint over OpenDRIVE (issue 65 items 1 and 2): the built-in street's road, a world
from an .xodr file and from generate_opendrive_world. Checked against the network itself (sensim.RoadNetwork,
native frame: CARLA's is y negated), CARLA's semantics (waypoints on lane centres facing their travel; next /
previous along s; topology pairs that meet; spawn points at lane starts) and what a lidar sees of the built
scene (road, marking and ground tags)."""
import math
import os
import tempfile
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import numpy as np
    import sensim.carla as carla

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "xodr")
INTERSECTION = os.path.join(DATA, "lane_offset_intersection.xodr")


def _dist(a, b):
    return math.sqrt((a.x - b.x) ** 2 + (a.y - b.y) ** 2 + (a.z - b.z) ** 2)


def _yaw_diff(a, b):
    return abs((a - b + 180.0) % 360.0 - 180.0)


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class StreetMap(unittest.TestCase):
    def setUp(self):
        self.client = carla.Client("localhost", 2000)
        self.world = self.client.load_world("street")
        self.map = self.world.get_map()

    def tearDown(self):
        self.world._clock.stop()

    def test_a_waypoint_stands_on_its_lane_centre_facing_its_travel(self):
        wp = self.map.get_waypoint(carla.Location(10, 1.0, 0.3))  # CARLA's y = +1: right of +x, lane -1
        self.assertEqual((wp.road_id, wp.section_id, wp.lane_id), (0, 0, -1))
        self.assertEqual(wp.lane_type, carla.LaneType.Driving)
        self.assertAlmostEqual(wp.lane_width, 3.5, places=12)
        loc = wp.transform.location
        self.assertAlmostEqual(loc.x, 10.0, places=9)
        self.assertAlmostEqual(loc.y, 1.75, places=9)
        self.assertAlmostEqual(loc.z, 0.0, places=9)
        self.assertAlmostEqual(wp.transform.rotation.yaw, 0.0, places=9)
        self.assertAlmostEqual(wp.s, 110.0, places=9)  # the road starts at x = -100
        self.assertFalse(wp.is_junction)
        self.assertEqual(wp.junction_id, -1)
        left, right = wp.get_left_lane(), wp.get_right_lane()
        self.assertEqual((left.lane_id, right.lane_id), (1, -2))  # across the centre line, and the sidewalk
        self.assertAlmostEqual(_yaw_diff(left.transform.rotation.yaw, 180.0), 0.0, places=9)
        self.assertEqual(right.lane_type, carla.LaneType.Sidewalk)
        self.assertEqual(wp.left_lane_marking.type, carla.LaneMarkingType.Solid)
        self.assertEqual(wp.lane_change, carla.LaneChange.NONE)  # solid lines both sides
        self.assertIsNone(self.map.get_waypoint(carla.Location(10, 30, 0), project_to_road=False))
        far = self.map.get_waypoint(carla.Location(10, 30, 0))  # projected onto the nearest driving lane
        self.assertEqual(far.lane_id, -1)

    def test_spawn_points_face_their_lanes(self):
        pts = self.map.get_spawn_points()
        self.assertEqual(len(pts), 10)
        for sp in pts:
            wp = self.map.get_waypoint(sp.location)
            self.assertAlmostEqual(_yaw_diff(wp.transform.rotation.yaw, sp.rotation.yaw), 0.0, places=6)
            self.assertAlmostEqual(wp.transform.location.y, sp.location.y, places=9)

    def test_next_and_previous_walk_along_s(self):
        wp = self.map.get_waypoint(carla.Location(0, 1.75, 0))
        ahead = wp.next(7.5)
        self.assertEqual(len(ahead), 1)
        self.assertAlmostEqual(ahead[0].transform.location.x, 7.5, places=9)
        back = wp.previous(7.5)
        self.assertAlmostEqual(back[0].transform.location.x, -7.5, places=9)
        other = self.map.get_waypoint(carla.Location(0, -1.75, 0))  # lane 1 travels -x
        self.assertEqual(other.lane_id, 1)
        self.assertAlmostEqual(other.next(7.5)[0].transform.location.x, -7.5, places=9)
        self.assertEqual(wp.next(200.0), [])  # past the street's end: nothing follows
        until = wp.next_until_lane_end(30.0)
        self.assertAlmostEqual(until[-1].transform.location.x, 100.0, places=6)  # the last at the lane's end
        xs = [w.transform.location.x for w in until[:-1]]
        self.assertEqual(xs, [30.0 * k for k in range(1, len(xs) + 1)])
        with self.assertRaises(ValueError):
            wp.next(0)

    def test_generate_waypoints(self):
        wps = self.map.generate_waypoints(10.0)
        self.assertEqual(len(wps), 2 * 20)  # two driving lanes of 200 m, every 10 m from s = 0
        self.assertEqual(sorted({w.lane_id for w in wps}), [-1, 1])
        self.assertEqual(self.map.get_topology(), [])  # one road, no links
        self.assertIn("<OpenDRIVE>", self.map.to_opendrive())


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class OpenDriveWorld(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client = carla.Client("localhost", 2000)
        cls.world = cls.client.load_world(INTERSECTION)
        cls.map = cls.world.get_map()
        cls.net = sensim.RoadNetwork(INTERSECTION)

    @classmethod
    def tearDownClass(cls):
        cls.world._clock.stop()
        cls.net.close()

    def test_waypoints_are_the_networks_lane_centres_in_carlas_frame(self):
        for wp in self.map.generate_waypoints(7.0):
            road = self.net.find(str(wp.road_id))
            ln = [x for x in self.net.lanes(road, wp.s) if x["id"] == wp.lane_id][0]
            m = self.net.pose(road, wp.s, 0.5 * (ln["t_inner"] + ln["t_outer"]))
            loc = wp.transform.location
            self.assertAlmostEqual(loc.x, float(m[0][3]), places=9)
            self.assertAlmostEqual(loc.y, -float(m[1][3]), places=9)  # CARLA's y is native -y
            heading = math.degrees(math.atan2(-float(m[1][0]), float(m[0][0])))  # the road's heading, CARLA
            want = heading if wp.lane_id < 0 else heading + 180.0  # right-hand traffic
            self.assertAlmostEqual(_yaw_diff(wp.transform.rotation.yaw, want), 0.0, places=6)

    def test_topology_pairs_meet(self):
        topo = self.map.get_topology()
        self.assertGreaterEqual(len(topo), 6)
        self.assertTrue(any(b.is_junction for _, b in topo))
        for a, b in topo:
            end = a.next_until_lane_end(2.0)[-1] if a.next_until_lane_end(2.0) else a
            self.assertLess(_dist(end.transform.location, b.transform.location), 1e-4, (a, b))
            # and walking on from a reaches b's lane
            along = a.next_until_lane_end(1.0)
            length = abs(along[-1].s - a.s) if along else 0.0
            reached = a.next(length + 0.5)
            self.assertIn((b.road_id, b.lane_id), [(w.road_id, w.lane_id) for w in reached])

    def test_spawn_points_are_lane_starts_above_the_road(self):
        pts = self.map.get_spawn_points()
        self.assertGreater(len(pts), 0)
        for sp in pts:
            wp = self.map.get_waypoint(sp.location)
            d = math.hypot(sp.location.x - wp.transform.location.x, sp.location.y - wp.transform.location.y)
            self.assertLess(d, 1e-6)
            self.assertAlmostEqual(sp.location.z - wp.transform.location.z, 0.5, places=6)
            self.assertFalse(wp.is_junction)

    def test_a_lidar_sees_the_built_roads(self):
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        self.world.apply_settings(s)
        bp = self.world.get_blueprint_library().find("sensor.lidar.ray_cast_semantic")
        bp.set_attribute("range", "30")
        bp.set_attribute("upper_fov", "-10")
        bp.set_attribute("lower_fov", "-40")
        sp = self.map.get_spawn_points()[0]
        lidar = self.world.spawn_actor(bp, carla.Transform(carla.Location(sp.location.x, sp.location.y, 2.0)))
        got = []
        lidar.listen(got.append)
        for _ in range(3):
            self.world.tick()
        lidar.stop()
        lidar.destroy()
        tags = np.concatenate([m.raw_data_records["object_tag"] if hasattr(m, "raw_data_records") else
                               np.array([d.object_tag for d in m]) for m in got])
        self.assertGreater(len(tags), 100)
        self.assertGreater(np.mean(tags == 1), 0.3)  # mostly road under a lidar on a lane, looking down
        self.assertGreater(np.sum(tags == 24), 0)    # and its markings
        self.assertTrue(set(np.unique(tags)) <= {1, 2, 10, 24})

    def test_generate_opendrive_world_and_round_trips(self):
        with open(INTERSECTION, encoding="utf-8") as f:
            text = f.read()
        client = carla.Client("localhost", 2000)
        world = client.generate_opendrive_world(text)
        try:
            m = world.get_map()
            self.assertEqual(m.to_opendrive(), text)
            self.assertEqual(len(m.get_spawn_points()), len(self.map.get_spawn_points()))
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "saved.xodr")
                m.save_to_disk(path)
                with open(path, encoding="utf-8") as f:
                    self.assertEqual(f.read(), text)
            world2 = client.reload_world()
            self.assertEqual(world2.get_map().to_opendrive(), text)
            world2._clock.stop()
            with self.assertRaises(sensim.ParseError):
                client.generate_opendrive_world("<OpenDRIVE><road id='1'/></OpenDRIVE>")
        finally:
            world._clock.stop()

    def test_a_scene_without_roads_says_so(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tri.obj")
            with open(path, "w") as f:
                f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
            world = carla.Client("localhost", 2000).load_world(path)
            try:
                with self.assertRaises(RuntimeError) as cm:
                    world.get_map().get_waypoint(carla.Location())
                self.assertIn("no OpenDRIVE road network", str(cm.exception))
                self.assertEqual(world.get_map().get_spawn_points(), [])
            finally:
                world._clock.stop()


if __name__ == "__main__":
    unittest.main()
