"""carla.command and Client.apply_batch / apply_batch_sync (issue 65): commands run in order, each as the call
it names, with CARLA's responses (actor_id, error); SpawnActor(...).then(...) with FutureActor; a script
written against CARLA (``import carla`` and ``from carla import command``) run unmodified by the runner."""
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla

HERE = os.path.dirname(os.path.abspath(__file__))


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class Commands(unittest.TestCase):
    def setUp(self):
        self.client = carla.Client("localhost", 2000)
        self.world = self.client.get_world()
        s = self.world.get_settings()  # frames counted below: synchronous, as CARLA's do_tick scripts run
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
        self.world.apply_settings(s)
        self.bl = self.world.get_blueprint_library()

    def test_batch_spawn_then_destroy(self):
        cmd = carla.command
        bp = self.bl.find("vehicle.tesla.model3")
        lid = self.bl.find("sensor.lidar.ray_cast")
        batch = [cmd.SpawnActor(bp, carla.Transform(carla.Location(10 * i, 5, 0)))
                 .then(cmd.ApplyTargetVelocity(cmd.FutureActor, carla.Vector3D(2, 0, 0))) for i in range(3)]
        batch.append(cmd.SpawnActor(bp, carla.Transform(carla.Location(0, 5, 0))))  # collides? no physics: spawns
        batch.append(cmd.DestroyActor(987654))  # no such actor: its response says so
        res = self.client.apply_batch_sync(batch, True)
        self.assertEqual(len(res), 5)
        ids = [r.actor_id for r in res[:4]]
        self.assertTrue(all(not r.error for r in res[:4]) and len(set(ids)) == 4 and all(ids))
        self.assertTrue(res[4].has_error() and "987654" in res[4].error and res[4].actor_id == 0)
        self.assertEqual(self.world.get_snapshot().frame, 1)  # do_tick
        car = self.world.get_actor(ids[0])
        self.assertAlmostEqual(car.get_location().x, 0.1, places=6)  # 2 m/s for one 0.05 s tick
        sensors = self.client.apply_batch_sync([cmd.SpawnActor(lid, carla.Transform(), ids[1])])
        self.assertFalse(sensors[0].error)
        self.assertIs(self.world.get_actor(sensors[0].actor_id).parent, self.world.get_actor(ids[1]))
        res = self.client.apply_batch_sync([cmd.DestroyActor(x) for x in ids])
        self.assertTrue(all(not r.error for r in res))
        self.assertIsNone(self.world.get_actor(ids[0]))
        res = self.client.apply_batch_sync([cmd.SetAutopilot(sensors[0].actor_id, True)])
        self.assertTrue(res[0].error)  # a sensor has no autopilot: an error in its response, nothing raised
        self.client.apply_batch([cmd.DestroyActor(sensors[0].actor_id)])
        self.assertIsNone(self.world.get_actor(sensors[0].actor_id))

    def test_a_script_with_command_imports_runs_unmodified(self):
        script = textwrap.dedent("""
            import carla
            from carla import command
            import carla.command as cc

            client = carla.Client('localhost', 2000)
            world = client.get_world()
            bp = world.get_blueprint_library().filter('vehicle.*')[0]
            SpawnActor, FutureActor = carla.command.SpawnActor, carla.command.FutureActor
            batch = [SpawnActor(bp, carla.Transform(carla.Location(x=5.0 * i))).then(
                         cc.ApplyVehicleControl(FutureActor, carla.VehicleControl(throttle=1.0))) for i in range(4)]
            ids = [r.actor_id for r in client.apply_batch_sync(batch, True) if not r.error]
            for _ in range(20):
                world.tick()
            xs = [world.get_actor(i).get_location().x - 5.0 * k for k, i in enumerate(ids)]
            print(len(ids), all(x > 0.5 for x in xs))
            client.apply_batch([command.DestroyActor(x) for x in ids])
        """)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "spawn_some.py")
            with open(path, "w") as f:
                f.write(script)
            env = dict(os.environ, PYTHONPATH=os.path.join(HERE, ".."))
            r = subprocess.run([sys.executable, "-m", "sensim.carla", path], env=env, capture_output=True, text=True,
                               timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.strip(), "4 True")


if __name__ == "__main__":
    unittest.main()
