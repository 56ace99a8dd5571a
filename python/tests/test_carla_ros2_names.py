"""CARLA's native ROS 2 rules that need no DDS (issue 68): every blueprint's ros_name (default its id), the
spawn rule (vehicle<id>, the id's last word and a number, a given name kept), topic paths through the
parents, CarlaEgoVehicleControl's CDR both ways and refused when malformed, and a sensor whose ros_name is
not a ROS name refused by enable_for_ros. The topics on the wire: tests/test_carla_ros2.py."""
import struct
import unittest

import sensim

if sensim.HAVE_NUMPY:
    import numpy as np
    import sensim.carla as carla
    from sensim import _carla_ros2 as ros


@unittest.skipUnless(sensim.HAVE_NUMPY, "sensim.carla needs numpy")
class Names(unittest.TestCase):
    def test_ros_name_on_every_blueprint(self):
        world = carla.Client("localhost", 2000).load_world("street")
        for bp in world.get_blueprint_library():
            self.assertTrue(bp.has_attribute("ros_name"), bp.id)
            self.assertEqual(bp.get_attribute("ros_name").as_str(), bp.id)

    def test_spawn_rule_and_paths(self):
        self.assertEqual(ros.spawn_ros_name("vehicle.tesla.model3", 7, "vehicle.tesla.model3"), "vehicle7")
        self.assertEqual(ros.spawn_ros_name("sensor.camera.rgb", 9, "sensor.camera.rgb"), "rgb9")
        self.assertEqual(ros.spawn_ros_name("sensor.lidar.ray_cast", 3, "front"), "front")
        world = carla.Client("localhost", 2000).load_world("street")
        bl = world.get_blueprint_library()
        bp = bl.find("vehicle.tesla.model3")
        bp.set_attribute("ros_name", "hero")
        car = world.spawn_actor(bp, carla.Transform(carla.Location(0, 1.75, 0)))
        cam = world.spawn_actor(bl.find("sensor.camera.rgb"), carla.Transform(), attach_to=car)
        self.assertEqual(ros.Ros2.path(cam), "/carla/hero/rgb%d" % cam.id)
        self.assertEqual(ros.Ros2.path(car), "/carla/hero")
        lid = bl.find("sensor.lidar.ray_cast")
        lid.set_attribute("ros_name", "front.lidar")
        bad = world.spawn_actor(lid, carla.Transform(), attach_to=car)
        with self.assertRaises(RuntimeError) as cm:
            bad.enable_for_ros()
        self.assertIn("front.lidar", str(cm.exception))
        self.assertFalse(bad.is_enabled_for_ros())

    def test_publish_tf_switch(self):
        world = carla.Client("localhost", 2000).load_world("street")
        self.assertIs(world.get_publish_tf(), True)  # CARLA's default, as ros2_native.py logs it
        world.set_publish_tf(False)
        self.assertIs(world.get_publish_tf(), False)

    def test_quaternion(self):
        for rpy in ((0, 0, 0), (10, -20, 170), (0, 0, 180), (90, 0, 0), (-179, 45, -90)):
            m = np.array(sensim.pose(0, 0, 0, *rpy))
            x, y, z, w = ros.quaternion(m[:3, :3])
            r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                                           [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                                           [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
            self.assertLess(abs(x * x + y * y + z * z + w * w - 1), 1e-12)
            self.assertLess(float(abs(r - m[:3, :3]).max()), 1e-12, rpy)

    def test_control_cdr(self):
        c = carla.VehicleControl(throttle=0.75, steer=-0.25, brake=0.0, hand_brake=True, reverse=False, gear=3)
        for pad in ("", "base_link", "x" * 100000):
            raw = ros.encode_control(c, 1_500_000_000, pad)
            d = ros.decode_control(raw)
            self.assertEqual((d.throttle, d.steer, d.brake, d.hand_brake, d.reverse, d.gear),
                             (0.75, -0.25, 0.0, True, False, 3))
        raw = ros.encode_control(c)
        # the layout of the .msg: header (stamp 8, string 4 + 1 + pad 3), 3 floats, 2 bools, pad, int32, bool
        self.assertEqual(len(raw), 4 + 8 + 4 + 1 + 3 + 12 + 2 + 2 + 4 + 1)
        self.assertEqual(struct.unpack_from("<f", raw, 4 + 16), (0.75,))
        self.assertIsNone(ros.decode_control(raw[:20]))  # short
        self.assertIsNone(ros.decode_control(b"\x00\x05" + raw[2:]))  # not XCDR1
        nan = bytearray(raw)
        struct.pack_into("<f", nan, 4 + 16, float("nan"))
        self.assertIsNone(ros.decode_control(bytes(nan)))  # not finite: refused


if __name__ == "__main__":
    unittest.main()
