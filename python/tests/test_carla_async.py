"""sensim.carla's asynchronous mode (issue 64 item 4): with synchronous_mode off, CARLA's default, the world
advances on its own, one fixed delta per delta of wall time, from its first actor on; wait_for_tick and
tick() wait for its next tick; synchronous mode stops it exactly; every public call sees the world between
two ticks (two threads and the clock sharing one world). Nothing here asserts a duration or a rate: frames,
order and stamps only, and every wait is for a state with a generous timeout."""
import os
import subprocess
import sys
import textwrap
import threading
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla

HERE = os.path.dirname(os.path.abspath(__file__))
WAIT_S = 60.0  # a state that does not come within this is a failure (a loaded machine is far faster)


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class Asynchronous(unittest.TestCase):
    def setUp(self):
        self.client = carla.Client("localhost", 2000)
        self.world = self.client.load_world("street")
        self.bl = self.world.get_blueprint_library()

    def tearDown(self):
        self.world._clock.stop()

    def test_the_world_runs_on_its_own_from_its_first_actor(self):
        self.assertFalse(self.world.get_settings().synchronous_mode)  # CARLA's default
        self.assertFalse(self.world._clock.running())  # nothing in it yet: frame 0 until an actor comes
        self.assertEqual(self.world.get_snapshot().frame, 0)
        frames, five = [], threading.Event()

        def on_tick(snap):
            frames.append((snap.frame, snap.timestamp.elapsed_seconds, snap.timestamp.delta_seconds))
            if len(frames) == 5:
                five.set()
        imu = self.world.spawn_actor(self.bl.find("sensor.other.imu"), carla.Transform(carla.Location(z=1)))
        self.world.on_tick(on_tick)
        got = []
        imu.listen(lambda m: got.append(m.frame))
        # no call into the world from here on: the world's clock alone must deliver
        self.assertTrue(five.wait(WAIT_S), "the world did not tick on its own")
        f0 = frames[0][0]
        self.assertEqual([f[0] for f in frames[:5]], list(range(f0, f0 + 5)))  # every tick, in order
        for f, t, dt in frames[:5]:
            self.assertEqual(dt, 0.05)  # fixed_delta_seconds None: sensim's fixed 0.05 s
            self.assertEqual(t, f * 50_000_000 * 1e-9)  # the world's time is frame x delta, exactly
        imu.stop()
        self.assertEqual(got, sorted(got))

    def test_wait_for_tick_and_tick_follow_the_clock(self):
        self.world.spawn_actor(self.bl.find("vehicle.tesla.model3"), carla.Transform())
        last = self.world.get_snapshot().frame
        for _ in range(8):
            snap = self.world.wait_for_tick(WAIT_S)
            self.assertGreater(snap.frame, last)
            self.assertEqual(snap.timestamp.elapsed_seconds, snap.frame * 50_000_000 * 1e-9)
            last = snap.frame
            f = self.world.tick(WAIT_S)  # CARLA's tick() in asynchronous mode: the next frame the server makes
            self.assertGreater(f, last)
            last = f

    def test_synchronous_mode_stops_the_clock_exactly(self):
        cmd = carla.command  # one batch: spawned and set between two ticks, as CARLA's server applies it
        res = self.client.apply_batch_sync([cmd.SpawnActor(self.bl.find("vehicle.tesla.model3"), carla.Transform())
                                            .then(cmd.ApplyTargetVelocity(cmd.FutureActor, carla.Vector3D(10, 0, 0)))])
        car = self.world.get_actor(res[0].actor_id)
        self.world.wait_for_tick(WAIT_S)
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        self.world.apply_settings(s)
        f = self.world.get_snapshot().frame
        x = car.get_location().x
        self.assertAlmostEqual(x, f * 0.5, places=6)  # 10 m/s x 0.05 s per tick since frame 0
        for k in range(1, 21):  # only tick() advances it now: one frame each, none in between
            self.assertEqual(self.world.tick(), f + k)
            self.assertAlmostEqual(car.get_location().x, x + 0.5 * k, places=6)
        s.synchronous_mode = False  # and back: the clock goes on from there
        self.world.apply_settings(s)
        self.assertGreater(self.world.wait_for_tick(WAIT_S).frame, f + 20)

    def test_wait_for_tick_in_synchronous_mode(self):
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        self.world.apply_settings(s)
        self.world.spawn_actor(self.bl.find("vehicle.tesla.model3"), carla.Transform())
        with self.assertRaises(RuntimeError) as cm:  # nobody ticks: CARLA's time-out
            self.world.wait_for_tick(0.2)
        self.assertIn("time-out of 200ms while waiting for the simulator", str(cm.exception))
        self.assertEqual(self.world.get_snapshot().frame, 0)
        done = threading.Event()

        def ticker():  # another thread ticks the synchronous world until the wait has returned
            while not done.is_set():
                self.world.tick()
        t = threading.Thread(target=ticker)
        t.start()
        try:
            snap = self.world.wait_for_tick(WAIT_S)
        finally:
            done.set()
            t.join()
        self.assertGreaterEqual(snap.frame, 1)

    def test_a_tick_that_raises_stops_the_clock_and_says_why(self):
        def measure(sensor, frame, timestamp, transform, attributes):
            if frame >= 3:
                raise ValueError("the script's sensor broke at frame %d" % frame)
            return frame
        carla.register_sensor("sensor.other.breaks_async", measure)
        sn = self.world.spawn_actor(self.world.get_blueprint_library().find("sensor.other.breaks_async"),
                                    carla.Transform())
        sn.listen(lambda m: None)
        with self.assertRaises(RuntimeError) as cm:
            for _ in range(100):
                self.world.wait_for_tick(WAIT_S)
        self.assertIn("clock stopped at frame 2", str(cm.exception))
        self.assertIn("broke at frame 3", str(cm.exception))
        self.assertEqual(self.world.get_snapshot().frame, 2)  # the tick that raised left the world as it was

    def test_threads_and_the_clock_share_one_world(self):
        # the script's thread and a callback's thread spawn, move and destroy actors while the clock ticks;
        # each call sees the world between two ticks (no torn state, no exception); repeated
        errors, stop = [], threading.Event()
        bp = self.bl.find("vehicle.tesla.model3")
        lidar = self.world.spawn_actor(self.bl.find("sensor.lidar.ray_cast"), carla.Transform(carla.Location(z=2)))
        seen = []
        lidar.listen(lambda m: seen.append((m.frame, len(m))))

        def churn(k):
            try:
                for i in range(60):
                    if stop.is_set():
                        return
                    car = self.world.spawn_actor(bp, carla.Transform(carla.Location(8 + k, 3 * k, 0)))
                    car.set_transform(carla.Transform(carla.Location(9 + k, 3 * k, 0)))
                    car.set_target_velocity(carla.Vector3D(1, 0, 0))
                    snap = self.world.get_snapshot()
                    if snap.find(car.id) is None or snap.timestamp.elapsed_seconds != snap.frame * 50_000_000 * 1e-9:
                        errors.append("snapshot %d without actor %d" % (snap.frame, car.id))
                    if i % 7 == 0:
                        self.world.wait_for_tick(WAIT_S)
                    self.assertTrue(car.destroy())
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(repr(e))
        threads = [threading.Thread(target=churn, args=(k,)) for k in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(WAIT_S * 4)
        stop.set()
        lidar.stop()
        self.assertEqual(errors, [])
        self.assertEqual([a for a in self.world.get_actors().filter("vehicle.*")], [])
        frames = [f for f, _ in seen]
        self.assertEqual(frames, sorted(set(frames)))

    def test_the_tutorial_shape(self):
        # CARLA's tutorial.py (ran verbatim under the runner when this was written): an autopilot vehicle in the
        # asynchronous default world, a depth camera saving to a folder nobody made, the vehicle moved on
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            car = self.world.spawn_actor(self.bl.find("vehicle.audi.tt"), self.world.get_map().get_spawn_points()[0])
            car.set_autopilot(True)
            cam_bp = self.bl.find("sensor.camera.depth")
            cam_bp.set_attribute("image_size_x", "64")
            cam_bp.set_attribute("image_size_y", "48")
            cam = self.world.spawn_actor(cam_bp, carla.Transform(carla.Location(x=1.5, z=2.4)), attach_to=car)
            saved, five = [], threading.Event()

            def save(image):
                image.save_to_disk(os.path.join(tmp, "_out", "%06d.png" % image.frame),
                                   carla.ColorConverter.LogarithmicDepth)
                saved.append(image.frame)
                if len(saved) >= 5:
                    five.set()
            cam.listen(save)
            loc = car.get_location()
            loc.x += 40
            car.set_location(loc)
            self.assertTrue(five.wait(WAIT_S))
            cam.stop()
            files = sorted(os.listdir(os.path.join(tmp, "_out")))
            self.assertGreaterEqual(len(files), 5)
            self.assertEqual(files[:5], ["%06d.png" % f for f in saved[:5]])
            self.assertGreater(car.get_location().x, loc.x - 1.0)  # it drove on from where it was put

    def test_a_script_that_ends_while_the_world_runs_exits_cleanly(self):
        # the process exits with the clock and the callbacks running (no crash, no hang), several times
        script = textwrap.dedent("""
            import carla
            client = carla.Client('localhost', 2000)
            world = client.get_world()
            bl = world.get_blueprint_library()
            lidar = world.spawn_actor(bl.find('sensor.lidar.ray_cast'), carla.Transform(carla.Location(z=2)))
            cam = world.spawn_actor(bl.find('sensor.camera.depth'), carla.Transform(carla.Location(z=2)))
            got = []
            lidar.listen(lambda m: got.append(m.frame))
            cam.listen(lambda m: got.append(m.frame))
            for _ in range(3):
                world.wait_for_tick()
            print('ran', world.get_snapshot().frame >= 3)
        """)
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "ends_early.py")
            with open(path, "w") as f:
                f.write(script)
            env = dict(os.environ, PYTHONPATH=os.path.join(HERE, ".."))
            for _ in range(5):
                r = subprocess.run([sys.executable, "-m", "sensim.carla", path], env=env, capture_output=True,
                                   text=True, timeout=300)
                self.assertEqual((r.returncode, r.stdout.strip()), (0, "ran True"), r.stderr)


if __name__ == "__main__":
    unittest.main()
