#!/usr/bin/python3
"""The ROS 2 type hashes libsensim sends (REP-2011 RIHS01: Jazzy's rmw_cyclonedds puts them in every
endpoint's USER_DATA as "typehash=...;", rosbag2 in every channel's topic_type_hash), computed by
scripts/gen_ros2_msgdefs.py from the .msg texts in scripts/msg, against hashes Jazzy published:

- every type libsensim writes or reads, from a golden table of Jazzy hashes a CARLA ROS 2 interface
  publishes (its comment: "rosidl output of osrf/ros:jazzy-desktop ... carla_msgs types: rosidl output of
  building ros-carla-msgs master in the same image");
- sensor_msgs/msg/PointCloud2 also as `ros2 topic info -v` printed it for rviz on Jazzy; nav_msgs/msg/Odometry
  and rosgraph_msgs/msg/Clock as other projects captured them from `ros2 topic info -v`;
- types with structure we do not use, from texts written here: std_msgs/msg/String (a Jazzy bag's
  metadata.yaml), example_interfaces/msg/Int64 (a Jazzy `ros2 bag record` metadata.yaml),
  sensor_msgs/msg/PointCloud (a Jazzy bag's metadata.yaml: sequences of nested types, a nested type of
  another package), builtin_interfaces/msg/Time (rosidl_generator_c's car_state__description.c in
  vasilisanagno/UAV-Based-Wildfire-Detection-using-RGB-and-Thermal-Cameras).
And the generated src/io/ros2_msgdefs.c holds exactly what the script computes (no drift).

Usage: test_ros2_typehash.py SOURCE_ROOT"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from gen_ros2_msgdefs import ROOTS, load, type_hash  # noqa: E402

GOLDEN = {  # Jazzy, as published (see the docstring)
    "sensor_msgs/msg/PointCloud2": "9198cabf7da3796ae6fe19c4cb3bdd3525492988c70522628af5daa124bae2b5",
    "sensor_msgs/msg/Image": "d31d41a9a4c4bc8eae9be757b0beed306564f7526c88ea6a4588fb9582527d47",
    "sensor_msgs/msg/CameraInfo": "b3dfd68ff46c9d56c80fd3bd4ed22c7a4ddce8c8348f2f59c299e73118e7e275",
    "sensor_msgs/msg/Imu": "7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b",
    "sensor_msgs/msg/NavSatFix": "62223ab3fe210a15976021da7afddc9e200dc9ec75231c1b6a557fc598a65404",
    "sensor_msgs/msg/NavSatStatus": "d1ed3befa628e09571bd273b888ba1c1fd187c9a5e0006b385d7e5e9095a3204",
    "sensor_msgs/msg/PointField": "5c6a4750728c2bcfbbf7037225b20b02d4429634732146b742dee1726637ef01",
    "sensor_msgs/msg/RegionOfInterest": "ad16bcba5f9131dcdba6fbded19f726f5440e3c513b4fb586dd3027eeed8abb1",
    "nav_msgs/msg/Odometry": "3cc97dc7fb7502f8714462c526d369e35b603cfc34d946e3f2eda2766dfec6e0",
    "tf2_msgs/msg/TFMessage": "e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087",
    "rosgraph_msgs/msg/Clock": "692f7a66e93a3c83e71765d033b60349ba68023a8c689a79e48078bcb5c58564",
    "std_msgs/msg/Header": "f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01",
    "builtin_interfaces/msg/Time": "b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197",
    "geometry_msgs/msg/Accel": "dc448243ded9b1fcbcca24aba0c22f013dae06c354ba2d849571c0a2a3f57ca0",
    "geometry_msgs/msg/Vector3": "cc12fe83e4c02719f1ce8070bfd14aecd40f75a96696a67a2a1f37f7dbb0765d",
    "geometry_msgs/msg/Quaternion": "8a765f66778c8ff7c8ab94afcc590a2ed5325a1d9a076ffff38fbce36f458684",
    "geometry_msgs/msg/Pose": "d501954e9476cea2996984e812054b68026ae0bfae789d9a10b23daf35cc90fa",
    "geometry_msgs/msg/PoseWithCovariance": "9a7c0fd234b7f45c6098745ecccd773ca1085670e64107135397aee31c02e1bb",
    "geometry_msgs/msg/Twist": "9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a",
    "geometry_msgs/msg/TwistWithCovariance": "49f574f033f095d8b6cd1beaca5ca7925e296e84af1716d16c89d38b059c8c18",
    "geometry_msgs/msg/Transform": "beb83fbe698636351461f6f35d1abb20010c43d55374d81bd041f1ba2581fddc",
    "geometry_msgs/msg/TransformStamped": "0a241f87d04668d94099cbb5ba11691d5ad32c2f29682e4eb5653424bd275206",
    "geometry_msgs/msg/Point": "6963084842a9b04494d6b2941d11444708d892da2f4b09843b9c43f42a7f6881",
    "carla_msgs/msg/CarlaEgoVehicleStatus": "3565cc74470f5c37eb316a36426effd811ac1baf835df3fc2bb7a88574bb3e07",
    "carla_msgs/msg/CarlaEgoVehicleInfo": "b8dc3866014924ce7fe57e0cff05a5448ec18f27156656b3b1b69f4da558e956",
    "carla_msgs/msg/CarlaEgoVehicleInfoWheel": "63caae9f2637752b93a616b10e00d21be15ca32cac533efd3596349a5cf4d4fe",
    "carla_msgs/msg/CarlaEgoVehicleControl": "4f251fa2a554e8ed996f77eb1d5b65515af1369eceb04d5122cb5761f7801be3",
    "carla_msgs/msg/CarlaCollisionEvent": "d77acb472c5effb98998bfb2e176ae3ffac0a84ce33a79f90e999544e3fcfeff",
}
EXTRA = {  # (.msg texts, published hash) of types libsensim does not carry
    "std_msgs/msg/String": ({"std_msgs/String": "string data\n"},
                            "df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"),
    "example_interfaces/msg/Int64": ({"example_interfaces/Int64": "int64 data\n"},
                                     "1b3b9a6502f560d079520c73c685a9550e5a1838d2cefd537fe0aba75a3639a0"),
    "sensor_msgs/msg/PointCloud": ({"sensor_msgs/PointCloud": "std_msgs/Header header\n"
                                    "geometry_msgs/Point32[] points\nChannelFloat32[] channels\n",
                                    "sensor_msgs/ChannelFloat32": "string name\nfloat32[] values\n",
                                    "geometry_msgs/Point32": "float32 x\nfloat32 y\nfloat32 z\n"},
                                   "614593df71d3c2b9bd4604a71b750fd218f0d65c045ea988b713719455a65b3b"),
}

failures = passed = 0


def check(cond, what):
    global failures, passed
    if cond:
        passed += 1
    else:
        failures += 1
        print("FAIL:", what)


texts = load()
for name, want in sorted(GOLDEN.items()):
    got = type_hash(name, texts)
    check(got == "RIHS01_" + want, "%s: %s, published RIHS01_%s" % (name, got, want))
for name, (extra, want) in sorted(EXTRA.items()):
    t = dict(texts, **extra)
    got = type_hash(name, t)
    check(got == "RIHS01_" + want, "%s: %s, published RIHS01_%s" % (name, got, want))
check(set(ROOTS) - set(GOLDEN) == {"carla_msgs/msg/CarlaLaneInvasionEvent"},
      "every type libsensim carries has a published hash but CarlaLaneInvasionEvent (none found): %s"
      % sorted(set(ROOTS) - set(GOLDEN)))

src = open(os.path.join(ROOT, "src", "io", "ros2_msgdefs.c"), encoding="utf-8").read()
gen = re.findall(r'"(RIHS01_[0-9a-f]{64})", /\* ([a-z0-9_/A-Z]+) \*/', src)
check([n for _, n in gen] == ROOTS and all(h == type_hash(n, texts) for h, n in gen),
      "src/io/ros2_msgdefs.c holds the script's hashes for its %d types (regenerate with "
      "scripts/gen_ros2_msgdefs.py > src/io/ros2_msgdefs.c)" % len(ROOTS))
print("%d checks passed, %d failed" % (passed, failures))
sys.exit(1 if failures else 0)
