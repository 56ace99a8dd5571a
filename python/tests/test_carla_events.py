"""sensim.carla's collision and lane-invasion sensors (issue 65 item 6), timed by analytic geometry on the built-in
street: two model3s closing at 10 m/s touch when their boxes first overlap (frame 31), with CARLA's event fields;
a box inside a building is a static collision, the road under a car is not; a car drifting across the solid
centre line at 1 m/s invades it when its first corner crosses (frame 14)."""
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla

HALF_LEN, HALF_W = 2.3958, 1.0829  # vehicle.tesla.model3's extents (CARLA 0.9.15)


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class Events(unittest.TestCase):
    def setUp(self):
        self.client = carla.Client("localhost", 2000)
        self.world = self.client.load_world("street")
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        self.world.apply_settings(s)
        self.bl = self.world.get_blueprint_library()

    def tearDown(self):
        self.world._clock.stop()

    def _car(self, x, y, yaw=0.0):
        return self.world.spawn_actor(self.bl.find("vehicle.tesla.model3"),
                                      carla.Transform(carla.Location(x, y, 0.0), carla.Rotation(yaw=yaw)))

    def test_two_cars_collide_when_their_boxes_first_overlap(self):
        a, b = self._car(0.0, 0.0), self._car(20.0, 0.0)  # on the centre line: clear of the parked cars
        sensor = self.world.spawn_actor(self.bl.find("sensor.other.collision"), carla.Transform(), attach_to=a)
        got = []
        sensor.listen(got.append)
        a.set_target_velocity(carla.Vector3D(10.0, 0.0, 0.0))
        # a's front passes b's rear when 10 t + HALF_LEN > 20 - HALF_LEN: t > 1.52084 s, the tick ending 1.55 s
        for _ in range(35):
            self.world.tick()
        sensor.stop()
        frames = sorted({e.frame for e in got})
        self.assertEqual(frames[0], 31)
        first = [e for e in got if e.frame == 31]
        self.assertEqual(len(first), 1)
        e = first[0]
        self.assertIs(e.actor, a)
        self.assertIs(e.other_actor, b)
        self.assertAlmostEqual(e.normal_impulse.x, 1500.0 * 10.0, places=6)  # the estimate: mass x closing speed
        self.assertAlmostEqual(e.normal_impulse.y, 0.0, places=9)
        self.assertEqual(frames, list(range(31, 36)))  # while they overlap, every tick

    def test_static_geometry_and_the_road(self):
        on_road, in_building = self._car(0.0, 0.0), self._car(-90.0, -8.0)  # through a building's wall (y = -8)
        got = {}
        for car in (on_road, in_building):
            sn = self.world.spawn_actor(self.bl.find("sensor.other.collision"), carla.Transform(), attach_to=car)
            got[car.id] = []
            sn.listen(got[car.id].append)
        for _ in range(3):
            self.world.tick()
        self.assertEqual(got[on_road.id], [])  # standing on the road is no collision
        kinds = {e.other_actor.type_id for e in got[in_building.id]}
        self.assertEqual(kinds, {"static.building"})

    def test_crossing_the_centre_line(self):
        car = self._car(0.0, 1.75)  # lane -1 (CARLA's y = +1.75), its left corners at y = 0.6671
        sensor = self.world.spawn_actor(self.bl.find("sensor.other.lane_invasion"), carla.Transform(), attach_to=car)
        got = []
        sensor.listen(got.append)
        car.set_target_velocity(carla.Vector3D(0.0, -1.0, 0.0))  # drifting left at 1 m/s
        # the left corners cross y = 0 when 1.75 - HALF_W - t < 0: t > 0.6671 s, the tick ending 0.70 s
        for _ in range(30):
            self.world.tick()
        sensor.stop()
        self.assertEqual(got[0].frame, 14)
        self.assertEqual([m.type for m in got[0].crossed_lane_markings],
                         [carla.LaneMarkingType.Solid, carla.LaneMarkingType.Solid])  # both left corners
        self.assertIs(got[0].actor, car)
        # the right corners cross at 1.75 + HALF_W - t < 0: t > 2.8329 s, the tick ending 2.85 s (frame 57): not yet
        self.assertEqual(len(got), 1)


if __name__ == "__main__":
    unittest.main()
