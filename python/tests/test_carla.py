"""sensim.carla: CARLA-style sensor scripts, checked against closed forms.

A scene of a ground plane and a wall 5 m to the native left (CARLA y = -5),
a lidar, cameras, an IMU and a GNSS in synchronous mode, a vehicle the host
moves. Numbers: CARLA frame signs, depth decoding, tags, IMU +9.81 at rest,
GNSS equal to Map.transform_to_geolocation, frame and timestamp bookkeeping,
shots per tick = points_per_second x delta."""
import math
import os
import tempfile
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import numpy as np
    import sensim.carla as carla

SCENE = ("o ground_road\nv -100 -100 0\nv 100 -100 0\nv 100 100 0\nv -100 100 0\nf 1 2 3 4\n"
         "o wall\nv -50 5 0\nv 50 5 0\nv 50 5 20\nv -50 5 20\nf 5 6 7 8\n")


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class CarlaFacade(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "wall.obj")
        with open(self.path, "w") as f:
            f.write(SCENE)
        self.client = carla.Client("localhost", 2000)
        self.client.set_timeout(5.0)
        self.world = self.client.load_world(self.path)
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        self.world.apply_settings(s)
        self.bl = self.world.get_blueprint_library()

    def tearDown(self):
        self.tmp.cleanup()

    def test_transforms_match_sensims_converter(self):
        t = carla.Transform(carla.Location(1, 2, 3), carla.Rotation(pitch=10, yaw=-30, roll=5))
        mine = carla._native(t)
        theirs = np.array(sensim.pose_from_frame("carla", (1, 2, 3), (10, -30, 5)))
        self.assertLess(np.abs(mine - theirs).max(), 1e-12)
        back = carla._from_native(mine)
        self.assertAlmostEqual(back.rotation.yaw, -30, places=9)
        self.assertAlmostEqual(back.rotation.pitch, 10, places=9)
        self.assertAlmostEqual(back.location.y, 2, places=12)
        f = carla.Rotation(yaw=90).get_forward_vector()  # CARLA: yaw 90 looks along +y (right)
        self.assertAlmostEqual(f.y, 1, places=12)

    def test_wall_on_the_left_is_at_carla_y_below_zero(self):
        lb = self.bl.find("sensor.lidar.ray_cast_semantic")
        lb.set_attribute("range", "30")
        lidar = self.world.spawn_actor(lb, carla.Transform(carla.Location(z=2)))
        got = []
        lidar.listen(got.append)
        frames = [self.world.tick() for _ in range(2)]
        self.assertEqual([m.frame for m in got], frames)
        pts = np.concatenate([np.frombuffer(m.raw_data, carla.SemanticLidarMeasurement._dtype) for m in got])
        wall = pts[pts["object_tag"] == sensim.tag_from_name("Wall")]
        self.assertGreater(len(wall), 50)
        self.assertLess(np.abs(wall["y"] + 5).max(), 1e-3)  # native y = +5 is CARLA y = -5
        ground = pts[pts["object_tag"] == 1]
        self.assertLess(np.abs(ground["z"] + 2).max(), 1e-3)
        self.assertEqual(sum(m.get_point_count(c) for m in got for c in range(32)), len(pts))

    def test_shots_per_tick(self):
        # a box all around (inside the wall scene: a room): every shot hits within range
        lb = self.bl.find("sensor.lidar.ray_cast_semantic")
        lb.set_attribute("range", "200")
        lb.set_attribute("upper_fov", "-5")  # the ground within 34 m: inside the 100 m plane
        lb.set_attribute("lower_fov", "-60")  # every channel looks down at the ground plane
        lidar = self.world.spawn_actor(lb, carla.Transform(carla.Location(z=3)))
        counts = []
        lidar.listen(lambda m: counts.append(len(m)))
        for _ in range(6):
            self.world.tick()
        # 56000 points/s x 0.05 s = 2800 a tick: 175 columns a turn at 10 Hz are 87.5 a tick, so ticks
        # alternate 87 and 88 columns of 32 (CARLA rounds every tick to 88); two ticks are 5600 exactly
        self.assertEqual(sum(counts), 3 * 5600, counts)
        self.assertTrue(all(c in (87 * 32, 88 * 32) for c in counts), counts)

    def test_depth_and_semantic_cameras(self):
        tr = carla.Transform(carla.Location(z=2), carla.Rotation(yaw=-90))  # CARLA yaw -90: the native left
        depth = self.world.spawn_actor(self.bl.find("sensor.camera.depth"), tr)
        sem = self.world.spawn_actor(self.bl.find("sensor.camera.semantic_segmentation"), tr)
        imgs = {}
        depth.listen(lambda im: imgs.__setitem__("depth", im))
        sem.listen(lambda im: imgs.__setitem__("sem", im))
        self.world.tick()
        im = imgs["depth"]
        self.assertEqual((im.width, im.height, im.fov), (800, 600, 90.0))
        b = np.frombuffer(im.raw_data, np.uint8).reshape(600, 800, 4)
        meters = 1000.0 * (b[..., 2] + 256.0 * b[..., 1] + 65536.0 * b[..., 0]) / (256.0 ** 3 - 1)
        # planar depth of a wall 5 m ahead, facing the camera: 5 everywhere it is seen
        self.assertLess(abs(meters[300, 400] - 5.0), 1e-3)
        self.assertLess(abs(meters[250, 100] - 5.0), 1e-3)
        # looking the other way (CARLA yaw 90, native right): the sky is CARLA's far plane, 1000 m exactly
        away = self.world.spawn_actor(self.bl.find("sensor.camera.depth"),
                                      carla.Transform(carla.Location(z=2), carla.Rotation(yaw=90)))
        away.listen(lambda im: imgs.__setitem__("away", im))
        self.world.tick()
        a = np.frombuffer(imgs["away"].raw_data, np.uint8).reshape(600, 800, 4).astype(np.float64)
        far = 1000.0 * (a[..., 2] + 256.0 * a[..., 1] + 65536.0 * a[..., 0]) / (256.0 ** 3 - 1)
        self.assertEqual(far[0, 400], 1000.0)
        self.assertLess(far[599, 400], 20.0)  # the ground below
        s = np.frombuffer(imgs["sem"].raw_data, np.uint8).reshape(600, 800, 4)
        self.assertEqual(s[300, 400, 2], sensim.tag_from_name("Wall"))
        out = os.path.join(self.tmp.name, "d.png")
        im.save_to_disk(out, carla.ColorConverter.LogarithmicDepth)
        self.assertTrue(os.path.getsize(out) > 100)
        imgs["sem"].save_to_disk(os.path.join(self.tmp.name, "s.png"), carla.ColorConverter.CityScapesPalette)

    def test_imu_at_rest_and_gnss(self):
        car = self.world.spawn_actor(self.bl.find("vehicle.tesla.model3"),
                                     carla.Transform(carla.Location(x=-10, y=-2), carla.Rotation(yaw=30)))
        imu = self.world.spawn_actor(self.bl.find("sensor.other.imu"), carla.Transform(carla.Location(z=1)),
                                     attach_to=car)
        gnss = self.world.spawn_actor(self.bl.find("sensor.other.gnss"), carla.Transform(carla.Location(x=1)),
                                      attach_to=car)
        out = []
        imu.listen(out.append)
        gnss.listen(out.append)
        for _ in range(3):
            self.world.tick()
        # each sensor's callback runs on its own thread (as CARLA's): pick the measurements by kind
        i = [m for m in out if isinstance(m, carla.IMUMeasurement)][-1]
        g = [m for m in out if isinstance(m, carla.GnssMeasurement)][-1]
        self.assertLess(abs(i.accelerometer.z - 9.81), 1e-9)
        self.assertLess(max(abs(i.accelerometer.x), abs(i.accelerometer.y), i.gyroscope.length()), 1e-9)
        self.assertAlmostEqual(i.compass, math.radians(90 + 30), places=9)  # 0 north (-y), east (+x) pi/2
        geo = self.world.get_map().transform_to_geolocation(gnss.get_transform().location)
        self.assertEqual((g.latitude, g.longitude, g.altitude), (geo.latitude, geo.longitude, geo.altitude))
        self.assertGreater(geo.latitude, 0)  # CARLA y = -2 - 0.5 (north of the origin): latitude > 0

    def test_host_moved_vehicle_and_bookkeeping(self):
        car = self.world.spawn_actor(self.bl.find("vehicle.audi.a2"), carla.Transform(carla.Location(x=-20)))
        gnss = self.world.spawn_actor(self.bl.find("sensor.other.gnss"), carla.Transform(), attach_to=car)
        seen = []
        gnss.listen(seen.append)
        car.set_target_velocity(carla.Vector3D(10, 0, 0))
        for k in range(1, 5):
            f = self.world.tick()
            snap = self.world.get_snapshot()
            self.assertEqual((f, snap.frame), (k, k))
            self.assertAlmostEqual(snap.timestamp.elapsed_seconds, 0.05 * k, places=12)
            self.assertAlmostEqual(seen[-1].timestamp, 0.05 * k, places=12)
            self.assertAlmostEqual(seen[-1].transform.location.x, -20 + 10 * 0.05 * k, places=9)
        self.assertAlmostEqual(car.get_transform().location.x, -18.0, places=9)
        self.assertTrue(gnss.destroy())
        self.world.tick()
        self.assertEqual(len(seen), 4)  # a destroyed sensor says nothing more

    def test_radar_on_a_vehicle_closing_on_the_wall(self):
        """A radar looking at the wall 5 m to the native left (CARLA yaw -90) on a vehicle moving towards it at
        5 m/s: every one of the tick's pps x dt = 75 rays hits the wall, at depth 5 / (cos alt cos az), with the
        range rate -5 cos(alt) cos(az) (approaching: negative), azimuth in CARLA's sense."""
        car = self.world.spawn_actor(self.bl.find("vehicle.tesla.model3"), carla.Transform(carla.Location(x=0)))
        radar = self.world.spawn_actor(self.bl.find("sensor.other.radar"),
                                       carla.Transform(carla.Location(z=1), carla.Rotation(yaw=-90)), attach_to=car)
        got = []
        radar.listen(got.append)
        car.set_target_velocity(carla.Vector3D(0, -5, 0))  # CARLA -y: the native left, towards the wall
        for _ in range(4):
            self.world.tick()
        m = got[-1]
        self.assertEqual(len(m), 75)
        r = np.frombuffer(m.raw_data, carla.RadarMeasurement._dtype)
        dist = 5.0 - (4 * 0.05 * 5.0)  # the wall's distance at the sample: the car moved 1 m
        c = np.cos(r["altitude"].astype(float)) * np.cos(r["azimuth"].astype(float))
        self.assertLess(np.abs(r["depth"] * c - dist).max(), 1e-3)
        self.assertLess(np.abs(r["velocity"] + 5.0 * c).max(), 1e-2)
        self.assertTrue((r["azimuth"] > 0).any() and (r["azimuth"] < 0).any())

    def test_instance_segmentation(self):
        car = self.world.spawn_actor(self.bl.find("vehicle.audi.a2"), carla.Transform(carla.Location(x=10)))
        cam = self.world.spawn_actor(self.bl.find("sensor.camera.instance_segmentation"),
                                     carla.Transform(carla.Location(z=1)))
        got = []
        cam.listen(got.append)
        self.world.tick()
        b = np.frombuffer(got[0].raw_data, np.uint8).reshape(600, 800, 4)
        centre = b[300, 400]  # the car straight ahead: tag Car in R, its actor id in G (low) and B (high)
        self.assertEqual((centre[2], centre[1] + 256 * centre[0]), (14, car.id))
        self.assertEqual((b[599, 400, 2], b[599, 400, 1], b[599, 400, 0]), (1, 0, 0))  # the road: static world

    def test_obstacle_detector_sweeps_a_sphere(self):
        """sensor.other.obstacle: the distance the sphere's centre travels before touching a face (gap - hit_radius),
        the actor met, only_dynamics, and no event when nothing is within distance."""
        def spawn(yaw, z, **attrs):
            bp = self.bl.find("sensor.other.obstacle")
            for k, v in attrs.items():
                bp.set_attribute(k, str(v))
            s = self.world.spawn_actor(bp, carla.Transform(carla.Location(z=z), carla.Rotation(yaw=yaw)))
            got = []
            s.listen(got.append)
            got_by[id(got)] = s
            return got
        got_by = {}
        wall = spawn(-90, 2.0, distance=10, hit_radius=0.5)           # CARLA yaw -90: towards the wall at y = -5
        thin = spawn(-90, 2.0, distance=10, hit_radius=0.0)
        dyn = spawn(-90, 2.0, distance=10, only_dynamics="true")
        free = spawn(90, 2.0, distance=10)                             # away from the wall: nothing within 10 m
        short = spawn(-90, 2.0, distance=4, hit_radius=0.5)            # the wall is 4.5 m away: out of reach
        car = self.world.spawn_actor(self.bl.find("vehicle.tesla.model3"), carla.Transform(carla.Location(x=8)))
        ahead = spawn(0, 0.5, distance=10, hit_radius=0.5, only_dynamics="true")
        frames = [self.world.tick() for _ in range(2)]
        self.assertEqual([e.frame for e in wall], frames)
        for e in wall:
            self.assertAlmostEqual(e.distance, 4.5, delta=1e-4)
            self.assertTrue(e.other_actor.type_id.startswith("static."), e.other_actor.type_id)
            self.assertIs(e.actor, got_by[id(wall)])  # the sensor that measured it
        self.assertAlmostEqual(thin[0].distance, 5.0, delta=1e-4)
        self.assertEqual((dyn, free, short), ([], [], []))
        self.assertEqual(len(ahead), 2)
        self.assertIs(ahead[0].other_actor, car)
        self.assertAlmostEqual(ahead[0].distance, 8 - 2.3958 - 0.5, delta=1e-4)  # model3's half length 2.3958 m
        bp = self.bl.find("sensor.other.obstacle")
        bp.set_attribute("distance", "-1")
        with self.assertRaises(RuntimeError):
            self.world.spawn_actor(bp, carla.Transform())

    def test_headless_limits_raise(self):
        with self.assertRaises(RuntimeError):
            self.client.load_world("Town01")
        with self.assertRaises(RuntimeError):
            self.world.spawn_actor(self.bl.find("sensor.camera.dvs"), carla.Transform())
        self.assertEqual(len(self.bl.filter("sensor.camera.*")), 7)
        self.assertEqual(str(self.bl.find("sensor.other.radar").get_attribute("points_per_second")), "1500")
        self.assertEqual(str(self.bl.find("sensor.lidar.ray_cast").get_attribute("points_per_second")), "56000")
        with self.assertRaises(IndexError):
            self.bl.find("sensor.lidar.ray_cast").set_attribute("rangee", "5")


if __name__ == "__main__":
    unittest.main()


class CarlaHelpers(unittest.TestCase):
    @unittest.skipUnless(sensim.HAVE_NUMPY, "needs numpy")
    def test_png_and_ply_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            img = (np.arange(12 * 7 * 3) % 251).astype(np.uint8).reshape(7, 12, 3)
            sensim.write_png(os.path.join(d, "a.png"), img)
            with open(os.path.join(d, "a.png"), "rb") as f:
                data = f.read()
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
            self.assertEqual(data[16:24], (12).to_bytes(4, "big") + (7).to_bytes(4, "big"))
            with self.assertRaises(sensim.InvalidArgument):
                sensim.write_png(os.path.join(d, "b.png"), img.astype(np.float64))
            pts = np.zeros(5, sensim.POINT_DTYPE)
            pts["x"], pts["tag"], pts["object_id"] = np.arange(5), 14, 7
            sensim.write_ply(os.path.join(d, "p.ply"), pts)
            back = sensim.read_ply(os.path.join(d, "p.ply"))
            self.assertEqual(back.dtype.names, pts.dtype.names)
            self.assertTrue(all((back[n] == pts[n]).all() for n in pts.dtype.names))
            with open(os.path.join(d, "bad.ply"), "wb") as f:
                f.write(b"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n1\n")
            with self.assertRaises(sensim.ParseError):
                sensim.read_ply(os.path.join(d, "bad.ply"))

    def test_import_without_numpy_says_so(self):
        import subprocess
        import sys
        env = dict(os.environ, SENSIM_DISABLE_NUMPY="1")
        r = subprocess.run([sys.executable, "-c", "import sensim.carla"], env=env, capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("sensim.carla needs numpy", r.stderr)
