"""carla.WeatherParameters and World.get_weather / set_weather as CARLA 0.9.15 (issue 65): the presets of
LibCarla's WeatherParameters.cpp, the binding's constructor defaults, fields held as C floats, value
semantics (get_weather returns a copy), and a weather loop in the style of CARLA's dynamic-weather example
(sun and storm advanced each tick) running in a synchronous world."""
import math
import struct
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


FIELDS = ("cloudiness", "precipitation", "precipitation_deposits", "wind_intensity", "sun_azimuth_angle",
          "sun_altitude_angle", "fog_density", "fog_distance", "fog_falloff", "wetness", "scattering_intensity",
          "mie_scattering_scale", "rayleigh_scattering_scale", "dust_storm")


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class Weather(unittest.TestCase):
    def test_presets_as_carla_defines_them(self):
        W = carla.WeatherParameters
        names = ["Default", "ClearNoon", "CloudyNoon", "WetNoon", "WetCloudyNoon", "MidRainyNoon", "HardRainNoon",
                 "SoftRainNoon", "ClearSunset", "CloudySunset", "WetSunset", "WetCloudySunset", "MidRainSunset",
                 "HardRainSunset", "SoftRainSunset", "ClearNight", "CloudyNight", "WetNight", "WetCloudyNight",
                 "SoftRainNight", "MidRainyNight", "HardRainNight", "DustStorm"]
        for n in names:
            self.assertIsInstance(getattr(W, n), W, n)
        # a few rows of WeatherParameters.cpp, field by field
        self.assertEqual([getattr(W.HardRainNoon, k) for k in FIELDS],
                         [f32(v) for v in (100, 100, 90, 100, -1, 45, 7, 0.75, 0.1, 0, 1, 0.03, 0.0331, 0)])
        self.assertEqual([getattr(W.ClearNight, k) for k in FIELDS],
                         [f32(v) for v in (5, 0, 0, 10, -1, -90, 60, 75, 1, 0, 1, 0.03, 0.0331, 0)])
        self.assertEqual(W.DustStorm.dust_storm, 100.0)
        self.assertEqual(W.Default.cloudiness, -1.0)
        self.assertNotEqual(W.ClearNoon, W.CloudyNoon)

    def test_constructor_and_c_floats(self):
        w = carla.WeatherParameters()
        self.assertEqual([getattr(w, k) for k in FIELDS], [0.0] * 12 + [f32(0.0331), 0.0])
        w = carla.WeatherParameters(cloudiness=30, precipitation=12.5, fog_density=0.1)
        self.assertEqual((w.cloudiness, w.precipitation), (30.0, 12.5))
        self.assertEqual(w.fog_density, f32(0.1))  # C float: 0.10000000149011612
        self.assertNotEqual(w.fog_density, 0.1)
        w.sun_altitude_angle = -12.3
        self.assertEqual(w.sun_altitude_angle, f32(-12.3))
        with self.assertRaises(AttributeError):
            w.sunshine = 3
        with self.assertRaises(TypeError):
            w.cloudiness = "a lot"
        self.assertIn("cloudiness=30", str(w))

    def test_world_weather_is_a_value(self):
        world = carla.Client("localhost", 2000).get_world()
        self.assertEqual(world.get_weather(), carla.WeatherParameters.ClearNoon)  # the street's start
        w = world.get_weather()
        w.precipitation = 80.0
        self.assertEqual(world.get_weather().precipitation, 0.0)  # a copy until set
        world.set_weather(w)
        w.precipitation = 10.0
        self.assertEqual(world.get_weather().precipitation, 80.0)  # set copies too
        world.set_weather(carla.WeatherParameters.HardRainSunset)
        self.assertEqual(world.get_weather(), carla.WeatherParameters.HardRainSunset)
        with self.assertRaises(TypeError):
            world.set_weather({"cloudiness": 3})

    def test_a_weather_loop_in_a_synchronous_world(self):
        # the shape of CARLA's dynamic-weather example: each tick the sun moves on and a storm builds
        world = carla.Client("localhost", 2000).get_world()
        s = world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        world.apply_settings(s)
        weather = world.get_weather()
        azimuth, storm = 0.0, 0.0
        for _ in range(40):
            world.tick()
            azimuth = (azimuth + 1.3 * 10) % 360.0
            storm = min(storm + 2.5, 100.0)
            weather.sun_azimuth_angle = azimuth
            weather.sun_altitude_angle = 70 * math.sin(math.radians(azimuth)) - 20
            weather.cloudiness = 30 + 0.7 * storm
            weather.precipitation = storm
            weather.wetness = storm
            world.set_weather(weather)
        got = world.get_weather()
        self.assertEqual(got.precipitation, 100.0)
        self.assertEqual(got.cloudiness, f32(30 + 70.0))
        self.assertEqual(got.sun_azimuth_angle, f32(azimuth))
        self.assertEqual(world.get_snapshot().frame, 40)

    def test_mapping_to_the_sensors(self):
        from sensim._carla_types import sensor_weather
        W = carla.WeatherParameters
        for name in ("ClearNoon", "CloudyNoon", "WetNoon", "ClearSunset", "WetCloudySunset"):
            self.assertEqual(sensor_weather(getattr(W, name)), (0.0, 0.0), name)  # CARLA's lidar model exactly
        self.assertEqual(sensor_weather(W.HardRainNoon), (0.0, f32(100.0) * 7.6 / 100))  # fog 7: the daytime haze
        self.assertAlmostEqual(sensor_weather(W.SoftRainNoon)[1], 2.28, places=6)  # AMS: light, < 2.5 mm/h
        self.assertAlmostEqual(sensor_weather(W.MidRainyNoon)[1], 4.56, places=6)  # moderate, 2.5 .. 7.6
        self.assertEqual(sensor_weather(W(fog_density=100))[0], 50.0)  # dense fog, International Visibility Code
        self.assertAlmostEqual(sensor_weather(W(fog_density=10))[0], 1550.0)  # near WMO's 1 km fog
        self.assertAlmostEqual(sensor_weather(W.ClearNight)[0], 50.0 * 93 / 53)
        self.assertEqual(sensor_weather(W(fog_density=7.0000001))[0], 0.0)  # beyond 1e6 m: clear
        self.assertEqual(sensor_weather(W(fog_density=500, precipitation=-3)), (50.0, 0.0))  # clamped

    def _lidar_points(self, weather):
        client = carla.Client("localhost", 2000)
        world = client.reload_world()
        s = world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.1
        world.apply_settings(s)
        if weather is not None:
            world.set_weather(weather)
        lib = world.get_blueprint_library()
        got = {}
        sensors = []
        for bp_id in ("sensor.lidar.ray_cast", "sensor.lidar.ray_cast_semantic"):
            bp = lib.find(bp_id)
            bp.set_attribute("rotation_frequency", "10")
            bp.set_attribute("points_per_second", "20000")
            if bp_id.endswith("ray_cast"):
                for k in ("dropoff_general_rate", "dropoff_zero_intensity"):
                    bp.set_attribute(k, "0")
            sensor = world.spawn_actor(bp, carla.Transform(carla.Location(x=0, y=0, z=1.8)))
            sensor.listen(lambda m, k=bp_id: got.setdefault(k, []).append(bytes(m.raw_data)))
            sensors.append(sensor)
        bp = lib.find("sensor.other.radar")  # the physical model, at a low SNR margin
        bp.set_attribute("sensim_set", "model=physical; snr_ref_db=-5")
        bp.set_attribute("points_per_second", "20000")
        radar = world.spawn_actor(bp, carla.Transform(carla.Location(z=1.8), carla.Rotation(yaw=90)))
        radar.listen(lambda m: got.setdefault("radar", []).append(len(m)))
        sensors.append(radar)
        world.tick()
        world.tick()
        for sensor in sensors:
            sensor.destroy()
        return got

    def test_rain_and_fog_reach_the_lidar(self):
        import numpy as np
        clear = self._lidar_points(None)
        wet = self._lidar_points(carla.WeatherParameters(fog_density=100, precipitation=100))
        a = np.frombuffer(clear["sensor.lidar.ray_cast"][1], np.float32).reshape(-1, 4)
        b = np.frombuffer(wet["sensor.lidar.ray_cast"][1], np.float32).reshape(-1, 4)
        self.assertGreater(len(a), 1000)
        # the same points (no drop-off): only intensity moves, and where two surfaces within the range
        # resolution merge into one return, its energy-weighted range by a hair
        self.assertEqual(a.shape, b.shape)
        np.testing.assert_allclose(a[:, :3], b[:, :3], rtol=0, atol=1e-3)
        same = np.all(a[:, :3] == b[:, :3], axis=1)
        self.assertGreater(same.mean(), 0.99)
        a, b = a[same], b[same]
        r = np.linalg.norm(a[:, :3].astype(np.float64), axis=1)
        lam = 4.1 * 7.6 ** -0.21
        ext = 3.912 / 50.0 + math.pi * 8000e-6 / lam ** 3  # fog at V = 50 m (Kim: q = 0 below 500 m) + rain
        want = a[:, 3].astype(np.float64) * np.exp(-2 * ext * r)
        np.testing.assert_allclose(b[:, 3], want, rtol=1e-5, atol=1e-37)
        # the radar's rays and draws are the same; rain lowers every detection's chance: fewer, never more
        self.assertGreater(sum(wet["radar"]), 0)
        self.assertLess(sum(wet["radar"]), sum(clear["radar"]))
        # the semantic lidar is ground truth: no weather
        self.assertEqual(clear["sensor.lidar.ray_cast_semantic"], wet["sensor.lidar.ray_cast_semantic"])


if __name__ == "__main__":
    unittest.main()
