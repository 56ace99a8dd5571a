#!/usr/bin/python3
"""The ROS 2 type hashes libsensim sends (REP-2011 RIHS01: Jazzy's rmw_cyclonedds puts them in every
endpoint's USER_DATA as "typehash=...;", rosbag2 in every channel's topic_type_hash), computed by
scripts/gen_ros2_msgdefs.py (type_hash) from the .msg texts in scripts/msg, checked against hashes that
rosidl_generator_type_description computed and others published:

- OURS: every type libsensim carries but carla_msgs/msg/CarlaLaneInvasionEvent (no published hash found), and
  rmw_dds_common/msg/ParticipantEntitiesInfo, the type of ros_discovery_info (its writer's USER_DATA);
- ELSEWHERE: some of them again from a second, independent publication;
- FIXTURES: types we do not carry, with their .msg texts written here, for the rules our types do not
  exercise (char, byte, bounded strings, bounded sequences, default values, constants, a message with only
  constants, nested types of the same package).
And the generated src/io/ros2_msgdefs.c holds exactly what the script computes (no drift).

Sources, cited beside each value:
[CARLA]  github.com/carla-simulator/carla LibCarla/source/test/server/test_type_hash.cpp, the revision with
         TEST(TypeHash, GoldenValuesMatchCanonicalPackages); its comment: standard types from "REP-2011 JSON
         metadata installed by each package in osrf/ros:jazzy-desktop (/opt/ros/jazzy/share/<pkg>/msg/
         <Type>.json)", carla_msgs types from "rosidl output of building ros-carla-msgs master in the same image".
[AIRSIM] github.com/vasilisanagno/UAV-Based-Wildfire-Detection-using-RGB-and-Thermal-Cameras
         Cosys-AirSim-5.2.1/ros2/src/install/airsim_interfaces/include/airsim_interfaces/airsim_interfaces/msg/
         detail/car_state__description.c (rosidl_generator_c output: CarState's hash, its raw .msg source and
         the *_EXPECTED_HASH of the 9 types it references).
[UROS]   github.com/micro-ROS/micro_ros_arduino src/nav_msgs/msg/detail/odometry__struct.h
         (rosidl_generator_c output, nav_msgs__msg__Odometry__TYPE_HASH).
[CLI]    github.com/ros2/ros2cli, branch jazzy, ros2topic/test/test_cli.py (test_topic_endpoint_info_verbose:
         "Topic type hash: ..." of std_msgs/msg/String).
[BAG]    github.com/ros2/rosbag2, branch jazzy,
         rosbag2_tests/resources/mcap/bag_with_topics_and_service_events/metadata.yaml (type_description_hash).
[HPM]    github.com/hpmicro/hpm_sdk middleware/microros/kilted/include/test_msgs/test_msgs/msg/detail/
         <type>__description.c (rosidl_generator_c output of ros2/rcl_interfaces test_msgs, Kilted; each file
         carries the raw .msg source it hashed; RIHS01 is unchanged since Iron: Strings' hash there equals
         Jazzy's in [BAG]).
[ROSBAGS] github.com/ternaris/rosbags tests/rosbags/typesys/test_hashing.py (test_rihs01; std_msgs types).
[ZENOH]  github.com/eclipse-zenoh/zenoh-plugin-ros2dds zenoh-plugin-ros2dds/src/ros_discovery.rs
         (ROS_DISCOVERY_INFO_TYPE_HASH, "Type hash for rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_ in Iron
         and Jazzy", the USER_DATA of the bridge's ros_discovery_info reader and writer; since commit 4810efb).

Usage: test_ros2_typehash.py [SOURCE_ROOT]"""
import os
import re
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from gen_ros2_msgdefs import GRAPH, ROOTS, load, type_hash  # noqa: E402

OURS = {  # type: (published hash, where)
    "sensor_msgs/msg/PointCloud2": ("9198cabf7da3796ae6fe19c4cb3bdd3525492988c70522628af5daa124bae2b5", "CARLA"),
    "sensor_msgs/msg/Image": ("d31d41a9a4c4bc8eae9be757b0beed306564f7526c88ea6a4588fb9582527d47", "CARLA"),
    "sensor_msgs/msg/CameraInfo": ("b3dfd68ff46c9d56c80fd3bd4ed22c7a4ddce8c8348f2f59c299e73118e7e275", "CARLA"),
    "sensor_msgs/msg/Imu": ("7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b", "CARLA"),
    "sensor_msgs/msg/NavSatFix": ("62223ab3fe210a15976021da7afddc9e200dc9ec75231c1b6a557fc598a65404", "CARLA"),
    "sensor_msgs/msg/NavSatStatus": ("d1ed3befa628e09571bd273b888ba1c1fd187c9a5e0006b385d7e5e9095a3204", "CARLA"),
    "sensor_msgs/msg/PointField": ("5c6a4750728c2bcfbbf7037225b20b02d4429634732146b742dee1726637ef01", "CARLA"),
    "sensor_msgs/msg/RegionOfInterest": ("ad16bcba5f9131dcdba6fbded19f726f5440e3c513b4fb586dd3027eeed8abb1",
                                         "CARLA"),
    "nav_msgs/msg/Odometry": ("3cc97dc7fb7502f8714462c526d369e35b603cfc34d946e3f2eda2766dfec6e0", "CARLA"),
    "tf2_msgs/msg/TFMessage": ("e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087", "CARLA"),
    "rosgraph_msgs/msg/Clock": ("692f7a66e93a3c83e71765d033b60349ba68023a8c689a79e48078bcb5c58564", "CARLA"),
    "std_msgs/msg/Header": ("f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01", "CARLA"),
    "builtin_interfaces/msg/Time": ("b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197", "CARLA"),
    "geometry_msgs/msg/Accel": ("dc448243ded9b1fcbcca24aba0c22f013dae06c354ba2d849571c0a2a3f57ca0", "CARLA"),
    "geometry_msgs/msg/Vector3": ("cc12fe83e4c02719f1ce8070bfd14aecd40f75a96696a67a2a1f37f7dbb0765d", "CARLA"),
    "geometry_msgs/msg/Quaternion": ("8a765f66778c8ff7c8ab94afcc590a2ed5325a1d9a076ffff38fbce36f458684", "CARLA"),
    "geometry_msgs/msg/Point": ("6963084842a9b04494d6b2941d11444708d892da2f4b09843b9c43f42a7f6881", "CARLA"),
    "geometry_msgs/msg/Pose": ("d501954e9476cea2996984e812054b68026ae0bfae789d9a10b23daf35cc90fa", "CARLA"),
    "geometry_msgs/msg/PoseWithCovariance": ("9a7c0fd234b7f45c6098745ecccd773ca1085670e64107135397aee31c02e1bb",
                                             "CARLA"),
    "geometry_msgs/msg/Twist": ("9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a", "CARLA"),
    "geometry_msgs/msg/TwistWithCovariance": ("49f574f033f095d8b6cd1beaca5ca7925e296e84af1716d16c89d38b059c8c18",
                                              "CARLA"),
    "geometry_msgs/msg/Transform": ("beb83fbe698636351461f6f35d1abb20010c43d55374d81bd041f1ba2581fddc", "CARLA"),
    "geometry_msgs/msg/TransformStamped": ("0a241f87d04668d94099cbb5ba11691d5ad32c2f29682e4eb5653424bd275206",
                                           "CARLA"),
    "carla_msgs/msg/CarlaEgoVehicleStatus": ("3565cc74470f5c37eb316a36426effd811ac1baf835df3fc2bb7a88574bb3e07",
                                             "CARLA"),
    "carla_msgs/msg/CarlaEgoVehicleInfo": ("b8dc3866014924ce7fe57e0cff05a5448ec18f27156656b3b1b69f4da558e956",
                                           "CARLA"),
    "carla_msgs/msg/CarlaEgoVehicleInfoWheel": ("63caae9f2637752b93a616b10e00d21be15ca32cac533efd3596349a5cf4d4fe",
                                                "CARLA"),
    "carla_msgs/msg/CarlaEgoVehicleControl": ("4f251fa2a554e8ed996f77eb1d5b65515af1369eceb04d5122cb5761f7801be3",
                                              "CARLA"),
    "carla_msgs/msg/CarlaCollisionEvent": ("d77acb472c5effb98998bfb2e176ae3ffac0a84ce33a79f90e999544e3fcfeff",
                                           "CARLA"),
    # jazzy's Gid is char[16] (Humble's char[24], which --ros-distro humble sends with no hash)
    "rmw_dds_common/msg/ParticipantEntitiesInfo": ("91a0593bacdcc50ea9bdcf849a938b128412cc1ea821245c663bcd26f83c295e",
                                                   "ZENOH"),
}
ELSEWHERE = [  # (type, published hash, where): the same types, published independently of [CARLA]
    ("nav_msgs/msg/Odometry", "3cc97dc7fb7502f8714462c526d369e35b603cfc34d946e3f2eda2766dfec6e0", "UROS"),
    ("builtin_interfaces/msg/Time", "b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197", "AIRSIM"),
    ("std_msgs/msg/Header", "f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01", "AIRSIM"),
    ("geometry_msgs/msg/PoseWithCovariance", "9a7c0fd234b7f45c6098745ecccd773ca1085670e64107135397aee31c02e1bb",
     "AIRSIM"),
    ("geometry_msgs/msg/TwistWithCovariance", "49f574f033f095d8b6cd1beaca5ca7925e296e84af1716d16c89d38b059c8c18",
     "AIRSIM"),
    ("geometry_msgs/msg/Accel", "dc448243ded9b1fcbcca24aba0c22f013dae06c354ba2d849571c0a2a3f57ca0", "ROSBAGS"),
]

# test_msgs (ros2/rcl_interfaces) texts, as the [HPM] files quote them
_BASIC = ("bool bool_value\nbyte byte_value\nchar char_value\nfloat32 float32_value\nfloat64 float64_value\n"
          "int8 int8_value\nuint8 uint8_value\nint16 int16_value\nuint16 uint16_value\nint32 int32_value\n"
          "uint32 uint32_value\nint64 int64_value\nuint64 uint64_value")
_CONSTANTS = ("bool BOOL_CONST=true\nbyte BYTE_CONST=50\nchar CHAR_CONST=100\nfloat32 FLOAT32_CONST=1.125\n"
              "float64 FLOAT64_CONST=1.125\nint8 INT8_CONST=-50\nuint8 UINT8_CONST=200\nint16 INT16_CONST=-1000\n"
              "uint16 UINT16_CONST=2000\nint32 INT32_CONST=-30000\nuint32 UINT32_CONST=60000\n"
              "int64 INT64_CONST=-40000000\nuint64 UINT64_CONST=50000000")
_DEFAULTS = ("bool bool_value true\nbyte byte_value 50\nchar char_value 100\nfloat32 float32_value 1.125\n"
             "float64 float64_value 1.125\nint8 int8_value -50\nuint8 uint8_value 200\nint16 int16_value -1000\n"
             "uint16 uint16_value 2000\nint32 int32_value -30000\nuint32 uint32_value 60000\n"
             "int64 int64_value -40000000\nuint64 uint64_value 50000000")
_BOUNDED = ("# Bounded sequences of different types\n"
            + "".join("%s[<=3] %s_values\n" % (t, t) for t in
                      ("bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
                       "uint32", "int64", "uint64", "string"))
            + "BasicTypes[<=3] basic_types_values\nConstants[<=3] constants_values\n"
            "Defaults[<=3] defaults_values\n"
            "bool[<=3] bool_values_default [false, true, false]\nbyte[<=3] byte_values_default [0, 1, 255]\n"
            "char[<=3] char_values_default [0, 1, 127]\n"
            "float32[<=3] float32_values_default [1.125, 0.0, -1.125]\n"
            "float64[<=3] float64_values_default [3.1415, 0.0, -3.1415]\n"
            "int8[<=3] int8_values_default [0, 127, -128]\nuint8[<=3] uint8_values_default [0, 1, 255]\n"
            "int16[<=3] int16_values_default [0, 32767, -32768]\nuint16[<=3] uint16_values_default [0, 1, 65535]\n"
            "int32[<=3] int32_values_default [0, 2147483647, -2147483648]\n"
            "uint32[<=3] uint32_values_default [0, 1, 4294967295]\n"
            "int64[<=3] int64_values_default [0, 9223372036854775807, -9223372036854775808]\n"
            "uint64[<=3] uint64_values_default [0, 1, 18446744073709551615]\n"
            "string[<=3] string_values_default [\"\", \"max value\", \"min value\"]\n"
            "# Regression test: check alignment of basic field after a sequence field is correct\n"
            "int32 alignment_check")
_STRINGS = ("string string_value\n"
            "string string_value_default1 \"Hello world!\"\n"
            "string string_value_default2 \"Hello\\'world!\"\n"
            "string string_value_default3 \\'Hello\"world!\\'\n"
            "string string_value_default4 'Hello\\\\'world!'\n"
            "string string_value_default5 \"Hello\\\\\"world!\"\n"
            "string STRING_CONST=\"Hello world!\"\n"
            "string<=22 bounded_string_value\n"
            "string<=22 bounded_string_value_default1 \"Hello world!\"\n"
            "string<=22 bounded_string_value_default2 \"Hello\\'world!\"\n"
            "string<=22 bounded_string_value_default3 \\'Hello\"world!\\'\n"
            "string<=22 bounded_string_value_default4 'Hello\\\\'world!'\n"
            "string<=22 bounded_string_value_default5 \"Hello\\\\\"world!\"")
_TEST_MSGS = {"test_msgs/BasicTypes": _BASIC, "test_msgs/Constants": _CONSTANTS, "test_msgs/Defaults": _DEFAULTS,
              "test_msgs/BoundedSequences": _BOUNDED, "test_msgs/Strings": _STRINGS}
_MULTIARRAY = {"std_msgs/ByteMultiArray": "MultiArrayLayout layout\nbyte[] data\n",
               "std_msgs/MultiArrayLayout": "MultiArrayDimension[] dim\nuint32 data_offset\n",
               "std_msgs/MultiArrayDimension": "string label\nuint32 size\nuint32 stride\n"}

FIXTURES = [  # (type, extra .msg texts (added to scripts/msg), published hash, where)
    ("std_msgs/msg/String", {"std_msgs/String": "string data\n"},
     "df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18", "CLI"),
    ("test_msgs/msg/Strings", _TEST_MSGS,  # bounded strings, default values, a constant
     "eee55533636293ac7c94c62432eedb5777eb849847d2a17b4dcead8c4a20ab32", "BAG"),
    ("rosbag2_interfaces/msg/WriteSplitEvent",  # its two fields when the [BAG] bag was recorded (2023-11)
     {"rosbag2_interfaces/WriteSplitEvent": "string closed_file\nstring opened_file\n"},
     "5ef58f7106a5cff8f5a794028c18117ee21015850ddcc567df449f41932960f8", "BAG"),
    ("test_msgs/msg/Strings", _TEST_MSGS,
     "eee55533636293ac7c94c62432eedb5777eb849847d2a17b4dcead8c4a20ab32", "HPM strings__description.c"),
    ("test_msgs/msg/BasicTypes", _TEST_MSGS,  # byte is BYTE, char is UINT8
     "7c300afd4e796798d49bdd6cdaa0fa87fa0ed2ba3217d977e1faa87070d797ab", "HPM basic_types__description.c"),
    ("test_msgs/msg/Constants", _TEST_MSGS,  # constants only: structure_needs_at_least_one_member
     "983e7ae7099d65b3030c31c2890b0ec2b332484fae9f28c68e01340c8f61edcf", "HPM constants__description.c"),
    ("test_msgs/msg/Defaults", _TEST_MSGS,  # default values do not count
     "a725ee02bf25a224cb7d14015a0245b6654ff591ae1ac277e2a2673f013ea6d2", "HPM defaults__description.c"),
    ("test_msgs/msg/BoundedSequences", _TEST_MSGS,  # bounded sequences (capacity 3), nested of the same package
     "fb361a3b3827c76a142c2190126a20a92e7e510e047f880141a7e9ef867961ed", "HPM bounded_sequences__description.c"),
    ("airsim_interfaces/msg/CarState",  # nested types of three packages, 9 referenced
     {"airsim_interfaces/CarState": "std_msgs/Header header\ngeometry_msgs/PoseWithCovariance pose\n"
      "geometry_msgs/TwistWithCovariance twist\nfloat32 speed\nint8 gear\nfloat32 rpm\nfloat32 maxrpm\n"
      "bool handbrake"},
     "9bb852d70dbeca1a212ff17ad66faa8a517765b9e43b8ceaae3e0583894abf9e", "AIRSIM"),
    ("std_msgs/msg/Byte", {"std_msgs/Byte": "byte data\n"},
     "41e1a3345f73fe93ede006da826a6ee274af23dd4653976ff249b0f44e3e798f", "ROSBAGS"),
    ("std_msgs/msg/ByteMultiArray", _MULTIARRAY,  # byte[] is BYTE_UNBOUNDED_SEQUENCE, a nested sequence
     "972fec7f50ab3c1d06783c228e79e8a9a509021708c511c059926261ada901d4", "ROSBAGS"),
]

failures = passed = 0


def check(cond, what, why=""):
    global failures, passed
    if cond:
        passed += 1
        print("ok:", what)
    else:
        failures += 1
        print("FAIL:", what, why)


def check_hash(name, got, want, where):
    check(got == "RIHS01_" + want, "%s %s (%s)" % (name, got, where), "but published: RIHS01_" + want)


texts = load()
for name, (want, where) in sorted(OURS.items()):
    check_hash(name, type_hash(name, texts), want, where)
for name, want, where in ELSEWHERE:
    check_hash(name, type_hash(name, texts), want, where)
for name, extra, want, where in FIXTURES:
    check_hash(name, type_hash(name, dict(texts, **extra)), want, where)
check(GRAPH in OURS, "ros_discovery_info's type %s has a published hash" % GRAPH)
check(set(ROOTS) - set(OURS) == {"carla_msgs/msg/CarlaLaneInvasionEvent"},
      "every type libsensim carries has a published hash but CarlaLaneInvasionEvent (none found)",
      "missing: %s" % sorted(set(ROOTS) - set(OURS) - {"carla_msgs/msg/CarlaLaneInvasionEvent"}))

src = open(os.path.join(ROOT, "src", "io", "ros2_msgdefs.c"), encoding="utf-8").read()
gen = re.findall(r'"(RIHS01_[0-9a-f]{64})", /\* ([a-z0-9_/A-Z]+) \*/', src)
check([n for _, n in gen] == ROOTS and all(h == type_hash(n, texts) for h, n in gen),
      "src/io/ros2_msgdefs.c holds the script's hashes of its %d types in ROOTS order" % len(ROOTS),
      "(regenerate: scripts/gen_ros2_msgdefs.py > src/io/ros2_msgdefs.c)")
graph = re.findall(r'sensim__ros2_graph_type_hash\[\] =\s*"(RIHS01_[0-9a-f]{64})"; /\* ([a-z0-9_/A-Z]+) \*/', src)
check(graph == [(type_hash(GRAPH, texts), GRAPH)], "src/io/ros2_msgdefs.c holds the script's hash of %s" % GRAPH,
      "%s (regenerate: scripts/gen_ros2_msgdefs.py > src/io/ros2_msgdefs.c)" % graph)
print("%d checks passed, %d failed" % (passed, failures))
sys.exit(1 if failures else 0)
