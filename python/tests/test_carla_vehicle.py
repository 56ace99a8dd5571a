"""Vehicle control in sensim.carla (issue 65): carla.VehicleControl / VehicleAckermannControl drive a
vehicle through the kinematic model documented in sensim.carla._carla_vehicle. Truths: the speed of a
full-throttle start follows the model's differential equation (integrated independently here, RK4, within
the tick's Euler error), the distance covered is the integral of that speed, a constant steer at constant
speed drives the kinematic bicycle's circle (radius L / tan(wheel angle)), braking stops without reversing,
reverse drives backwards, controls are clamped as CARLA applies them."""
import math
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import sensim.carla as carla
    from sensim._carla_vehicle import A_THROTTLE, DRAG_LIN, DRAG_QUAD


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class VehicleControl(unittest.TestCase):
    def setUp(self):
        self.world = carla.Client("localhost", 2000).get_world()
        s = self.world.get_settings()
        s.synchronous_mode, s.fixed_delta_seconds = True, 0.02
        self.world.apply_settings(s)
        self.bl = self.world.get_blueprint_library()
        self.car = self.world.spawn_actor(self.bl.find("vehicle.tesla.model3"),
                                          carla.Transform(carla.Location(0, 0, 0), carla.Rotation(yaw=0)))

    def speed(self):
        v = self.car.get_velocity()
        return math.hypot(v.x, v.y)

    def test_full_throttle_follows_the_model(self):
        self.car.apply_control(carla.VehicleControl(throttle=1.0))
        xs = []
        for _ in range(250):  # 5 s
            self.world.tick()
            xs.append(self.car.get_location().x)

        def f(v):
            return A_THROTTLE - DRAG_LIN * v - DRAG_QUAD * v * v
        v, x, h = 0.0, 0.0, 0.001  # RK4 of dv/dt = f(v), dx/dt = v, 1 ms steps
        for _ in range(5000):
            k1 = f(v)
            k2 = f(v + 0.5 * h * k1)
            k3 = f(v + 0.5 * h * k2)
            k4 = f(v + h * k3)
            x += h * (v + h * (k1 + k2 + k3) / 6.0)
            v += h * (k1 + 2 * k2 + 2 * k3 + k4) / 6.0
        self.assertAlmostEqual(self.speed(), v, delta=0.01 * v)  # Euler at 20 ms: within 1 %
        self.assertAlmostEqual(xs[-1], x, delta=0.02 * x + 0.1)
        self.assertTrue(all(b > a for a, b in zip(xs, xs[1:])))
        self.assertEqual(abs(self.car.get_location().y), 0.0)  # straight ahead

    def test_steady_turn_is_the_bicycle_circle(self):
        steer_rad = 0.2
        self.car.apply_ackermann_control(carla.VehicleAckermannControl(steer=steer_rad, speed=8.0,
                                                                        acceleration=100.0))
        L = 1.2 * self.car.bounding_box_extent.x
        R = L / math.tan(steer_rad)
        pts = []
        for _ in range(int(2 * math.pi * R / 8.0 / 0.02)):  # one lap
            self.world.tick()
            loc = self.car.get_location()
            pts.append((loc.x, loc.y))
        # positive Ackermann steer turns left: in CARLA's frame (y right) the centre is at (0, -R)
        radii = [math.hypot(x, y + R) for x, y in pts[5:]]
        self.assertAlmostEqual(min(radii), R, delta=0.01 * R)
        self.assertAlmostEqual(max(radii), R, delta=0.01 * R)
        self.assertLess(min(y for _, y in pts), -1.9 * R)  # it went round
        self.assertLess(math.hypot(*pts[-1]), 0.05 * R)  # and came back

    def test_vehicle_control_steer_right(self):
        self.car.apply_control(carla.VehicleControl(throttle=0.6, steer=0.5))
        for _ in range(100):
            self.world.tick()
        self.assertGreater(self.car.get_transform().rotation.yaw, 10.0)  # CARLA: positive steer turns right
        self.assertGreater(self.car.get_location().y, 0.0)

    def test_brake_stops_reverse_backs(self):
        self.car.apply_control(carla.VehicleControl(throttle=1.0))
        for _ in range(100):
            self.world.tick()
        self.car.apply_control(carla.VehicleControl(brake=1.0))
        for _ in range(200):
            self.world.tick()
        self.assertEqual(self.speed(), 0.0)  # stopped, not reversing
        x0 = self.car.get_location().x
        self.car.apply_control(carla.VehicleControl(throttle=0.5, reverse=True))
        for _ in range(50):
            self.world.tick()
        self.assertLess(self.car.get_location().x, x0 - 0.5)

    def test_light_state(self):
        L = carla.VehicleLightState
        self.assertEqual((int(L.Position), int(L.Brake), int(L.Special2), int(L.All)), (1, 8, 1024, 0xFFFFFFFF))
        self.assertEqual(self.car.get_light_state(), L.NONE)
        self.car.set_light_state(L.LowBeam | L.LeftBlinker)
        self.assertEqual(self.car.get_light_state(), L(2 | 32))
        self.car.set_light_state(carla.VehicleLightState(L.All))
        self.assertTrue(self.car.get_light_state() & L.Fog)
        self.assertEqual(int(carla.TrafficLightState.Green), 2)

    def test_control_as_applied(self):
        self.car.apply_control(carla.VehicleControl(throttle=1.5, steer=-2.0, brake=0.25))
        c = self.car.get_control()
        self.assertEqual((c.throttle, c.steer, c.brake), (1.0, -1.0, 0.25))
        self.assertEqual(carla.VehicleControl(), carla.VehicleControl(0.0, 0.0, 0.0, False, False, False, 0))
        with self.assertRaises(TypeError):
            self.car.apply_control({"throttle": 1})
        walker = self.world.spawn_actor(self.bl.filter("walker.pedestrian.*")[0], carla.Transform(carla.Location(5, 5)))
        with self.assertRaises(RuntimeError):
            walker.apply_control(carla.VehicleControl())


if __name__ == "__main__":
    unittest.main()
