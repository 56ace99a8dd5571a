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


if __name__ == "__main__":
    unittest.main()
