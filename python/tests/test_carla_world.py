"""sensim.carla's world as CARLA 0.9.15 gives it to scripts (issue 64 item 4): Actor.bounding_box
(carla.BoundingBox with its local and world vertices), World.on_tick / remove_on_tick with WorldSnapshot
(frame, timestamp, find, has_actor, iteration), and the spectator."""
import threading
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class World(unittest.TestCase):
    def setUp(self):
        self.world = carla.Client("localhost", 2000).get_world()
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        self.world.apply_settings(s)
        self.bl = self.world.get_blueprint_library()

    def test_bounding_box(self):
        car = self.world.spawn_actor(self.bl.find("vehicle.tesla.model3"),
                                     carla.Transform(carla.Location(10, 2, 0), carla.Rotation(yaw=90)))
        bb = car.bounding_box
        ext = car.bounding_box_extent
        self.assertEqual((bb.extent.x, bb.extent.y, bb.extent.z), (ext.x, ext.y, ext.z))
        self.assertEqual((bb.location.x, bb.location.y, bb.location.z), (0.0, 0.0, ext.z))  # centred above ground
        local = bb.get_local_vertices()
        self.assertEqual(len(local), 8)
        self.assertAlmostEqual(min(v.z for v in local), 0.0, places=9)  # the box stands on the ground
        self.assertAlmostEqual(max(v.x for v in local), ext.x, places=9)
        # yaw 90 in CARLA's frame turns +x (forward) to +y: the world box is ext.y wide in x, ext.x long in y
        world = bb.get_world_vertices(car.get_transform())
        xs, ys = [v.x for v in world], [v.y for v in world]
        self.assertAlmostEqual(max(xs) - min(xs), 2 * ext.y, places=6)
        self.assertAlmostEqual(max(ys) - min(ys), 2 * ext.x, places=6)
        self.assertAlmostEqual((max(xs) + min(xs)) / 2, 10.0, places=6)
        self.assertTrue(bb.contains(carla.Location(10, 2 + 0.9 * ext.x, ext.z), car.get_transform()))
        self.assertFalse(bb.contains(carla.Location(10 + 1.1 * ext.y, 2, ext.z), car.get_transform()))
        bb.extent.x = 99  # a copy: the actor keeps its box
        self.assertEqual(car.bounding_box.extent.x, ext.x)
        lidar = self.world.spawn_actor(self.bl.find("sensor.lidar.ray_cast"), carla.Transform(), attach_to=car)
        self.assertEqual(lidar.bounding_box.extent.x, 0.0)

    def test_on_tick_snapshots(self):
        car = self.world.spawn_actor(self.bl.find("vehicle.tesla.model3"), carla.Transform(carla.Location(0, 0, 0)))
        car.set_target_velocity(carla.Vector3D(10, 0, 0))
        got, threads = [], set()

        def cb(snap):
            threads.add(threading.get_ident())
            a = snap.find(car.id)
            got.append((snap.frame, snap.timestamp.elapsed_seconds, a.get_transform().location.x, len(snap)))
        cid = self.world.on_tick(cb)
        for _ in range(4):
            self.world.tick()
        self.world.remove_on_tick(cid)
        self.world.tick()
        self.assertEqual([g[0] for g in got], [1, 2, 3, 4])  # each tick once, in order; none after removal
        for f, t, x, n in got:
            self.assertAlmostEqual(t, 0.05 * f, places=9)
            self.assertAlmostEqual(x, 0.5 * f, places=6)  # 10 m/s x 0.05 s a tick
            self.assertEqual(n, 1)
        self.assertNotIn(threading.get_ident(), threads)  # off the ticking thread, as CARLA's client
        snap = self.world.get_snapshot()
        self.assertTrue(snap.has_actor(car.id))
        self.assertFalse(snap.has_actor(12345))
        self.assertIsNone(snap.find(12345))
        self.assertEqual([a.id for a in snap], [car.id])
        with self.assertRaises(RuntimeError):
            self.world.remove_on_tick(cid)
        with self.assertRaises(TypeError):
            self.world.on_tick(42)

    def test_a_callback_that_raises_does_not_stop_the_world(self):
        def bad(snap):
            raise ValueError("a bug in the script")
        self.world.on_tick(bad)
        self.assertEqual(self.world.tick(), 1)
        self.assertEqual(self.world.tick(), 2)

    def test_spectator(self):
        sp = self.world.get_spectator()
        self.assertIs(sp, self.world.get_spectator())
        self.assertEqual(sp.type_id, "spectator")
        sp.set_transform(carla.Transform(carla.Location(1, 2, 30), carla.Rotation(pitch=-90)))
        self.world.tick()
        self.assertEqual(sp.get_transform().location.z, 30.0)
        self.assertIn(sp.id, [a.id for a in self.world.get_actors()])
        self.assertFalse(sp.destroy())


if __name__ == "__main__":
    unittest.main()
