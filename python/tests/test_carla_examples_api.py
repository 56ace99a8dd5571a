"""What CARLA 0.9.15's own example scripts read besides the world's core (issue 65): the binding's
Location(Vector3D) constructor, Transform.transform changing points in place (one, or a list as
no_rendering_mode.py passes), inverse_transform and transform_vector, WorldSnapshot's deprecated
frame_count / elapsed_seconds / delta_seconds / platform_timestamp (the examples' HUDs), carla.MapLayer,
Vehicle.get_speed_limit (every agent of CARLA's agents package), the RGB camera's rendering attributes
(manual_control.py's distorted camera) and the DVS / optical-flow / normals blueprints' attributes."""
import math
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class ExamplesApi(unittest.TestCase):
    def setUp(self):
        self.world = carla.Client("localhost", 2000).reload_world()
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        self.world.apply_settings(s)
        self.bl = self.world.get_blueprint_library()

    def test_geometry_in_place(self):
        v = carla.Vector3D(1.5, -2.0, 3.0)
        loc = carla.Location(v)
        self.assertIsInstance(loc, carla.Location)
        self.assertEqual((loc.x, loc.y, loc.z), (1.5, -2.0, 3.0))
        t = carla.Transform(carla.Location(10, 20, 1), carla.Rotation(yaw=90))
        p = carla.Location(1, 0, 0)
        out = t.transform(p)
        self.assertIs(out, p)  # CARLA's binding changes its argument and returns it
        self.assertAlmostEqual(p.x, 10.0, places=12)  # yaw 90: local +x is world +y
        self.assertAlmostEqual(p.y, 21.0, places=12)
        self.assertAlmostEqual(p.z, 1.0, places=12)
        pts = [carla.Location(1, 0, 0), carla.Location(0, 2, 0)]
        self.assertIsNone(t.transform(pts))  # a list: in place
        self.assertAlmostEqual(pts[1].x, 8.0, places=12)
        self.assertAlmostEqual(pts[1].y, 20.0, places=12)
        back = t.inverse_transform(carla.Location(p.x, p.y, p.z))  # the round trip
        self.assertAlmostEqual(back.x, 1.0, places=12)
        self.assertAlmostEqual(back.y, 0.0, places=12)
        d = t.transform_vector(carla.Vector3D(1, 0, 0))  # rotation only
        self.assertAlmostEqual(d.x, 0.0, places=12)
        self.assertAlmostEqual(d.y, 1.0, places=12)
        self.assertAlmostEqual(d.z, 0.0, places=12)

    def test_snapshot_deprecated_properties(self):
        self.world.tick()
        self.world.tick()
        snap = self.world.get_snapshot()
        ts = snap.timestamp
        self.assertEqual(snap.frame_count, ts.frame_count)
        self.assertEqual(snap.elapsed_seconds, ts.elapsed_seconds)
        self.assertEqual(snap.delta_seconds, ts.delta_seconds)
        self.assertEqual(snap.platform_timestamp, ts.platform_timestamp)
        self.assertAlmostEqual(snap.elapsed_seconds, 0.1, places=12)
        self.assertEqual(snap.delta_seconds, 0.05)

    def test_map_layer(self):
        L = carla.MapLayer
        self.assertEqual((int(L.NONE), int(L.Buildings), int(L.Decals), int(L.Walls), int(L.All)),
                         (0, 1, 2, 256, 0xFFFF))
        self.assertEqual(int(L.Buildings | L.ParkedVehicles), 17)

    def test_speed_limit(self):
        car = self.world.spawn_actor(self.bl.find("vehicle.tesla.model3"),
                                     self.world.get_map().get_spawn_points()[0])
        self.world.tick()
        self.assertAlmostEqual(car.get_speed_limit(), 50.0, places=9)  # the street's <speed max="50" km/h>
        far = self.world.spawn_actor(self.bl.find("vehicle.audi.a2"), carla.Transform(carla.Location(0, 500, 0)))
        self.world.tick()
        self.assertEqual(far.get_speed_limit(), 30.0)  # off the roads: CARLA's default

    def test_camera_blueprints(self):
        rgb = self.bl.find("sensor.camera.rgb")
        self.assertEqual(rgb.get_attribute("chromatic_aberration_intensity").as_float(), 0.0)
        self.assertEqual(rgb.get_attribute("gamma").as_float(), 2.2)
        self.assertEqual(rgb.get_attribute("exposure_mode").as_str(), "histogram")
        rgb.set_attribute("chromatic_aberration_intensity", "0.5")  # as manual_control.py does
        self.assertEqual(rgb.get_attribute("chromatic_aberration_intensity").as_float(), 0.5)
        for bid in ("sensor.camera.dvs", "sensor.camera.optical_flow", "sensor.camera.normals"):
            bp = self.bl.find(bid)
            bp.set_attribute("image_size_x", "320")
            self.assertEqual(bp.get_attribute("image_size_x").as_int(), 320)
            with self.assertRaises(RuntimeError):
                self.world.spawn_actor(bp, carla.Transform())
        self.assertEqual(self.bl.find("sensor.camera.dvs").get_attribute("positive_threshold").as_float(),
                         math.fsum([0.3]))
        with self.assertRaises(IndexError):
            self.bl.find("sensor.camera.depth").get_attribute("gamma")  # CARLA's depth camera has none


if __name__ == "__main__":
    unittest.main()
