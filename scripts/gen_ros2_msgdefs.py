#!/usr/bin/env python3
"""Generate src/io/ros2_msgdefs.c: the ros2msg schema texts MCAP needs and the ROS 2 type hashes.

Input: the .msg texts under scripts/msg/<pkg>/<Type>.msg, verbatim: the Jazzy branches of
ros2/common_interfaces, ros2/geometry2 and ros2/rcl_interfaces (as quoted in the team's
reference/ros2_mcap.md), ros2/rmw_dds_common (jazzy: Gid is char[16], Humble's char[24]; only the hash of
ParticipantEntitiesInfo, the ros_discovery_info topic's type, is used) and carla_msgs 1.3
(github.com/carla-simulator/ros-carla-msgs, master; MIT).

Schema texts: for each root type, the full definition the way rosbag2 builds it (rosbag2_cpp
local_message_definition_source.cpp): text(T), then for each dependency d of T in sorted order, first
occurrence only, depth first: "\\n" + "=" * 80 + "\\n" + "MSG: " + d + "\\n" + full(d). In the C file each
.msg text is written once, as a macro, and a definition is the concatenation of its pieces.

Type hashes (REP-2011, "RIHS01_" + SHA-256, as rosidl_generator_type_description computes them and Jazzy's
rmw and rosbag2 send them): the JSON of {"type_description": T, "referenced_type_descriptions": [every type
T refers to, directly or not, sorted by name]}, each description {"type_name": "pkg/msg/Name", "fields":
[{"name", "type": {"type_id", "capacity", "string_capacity", "nested_type_name"}}]} in .msg order (constants
and default values left out; a message without fields gets rosidl's uint8
"structure_needs_at_least_one_member"), written with separators ", " and ": ". type_id: the FieldType
constants of type_description_interfaces (nested 1, int8 2 .. uint64 9, float32 10, float64 11, bool 15,
byte 16, string 17, wstring 18, bounded string 21, bounded wstring 22; .msg's char is uint8, as
rosidl_adapter maps it), plus 48 for an array, 96 for a bounded sequence, 144 for a sequence; capacity the
array size or the sequence bound. tests/test_ros2_typehash.py checks type_hash against hashes Jazzy
published.

Usage: gen_ros2_msgdefs.py [MSG_DIR] > src/io/ros2_msgdefs.c
"""
import hashlib
import json
import os
import re
import sys

MSG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "msg")
PRIMS = {"bool", "byte", "char", "float32", "float64", "int8", "uint8", "int16",
         "uint16", "int32", "uint32", "int64", "uint64", "string", "wstring"}
# indexed by SENSIM_ROS_* (TFMessage twice: /tf and /tf_static)
ROOTS = ["sensor_msgs/msg/PointCloud2", "sensor_msgs/msg/Image", "sensor_msgs/msg/CameraInfo",
         "sensor_msgs/msg/Imu", "sensor_msgs/msg/NavSatFix", "nav_msgs/msg/Odometry",
         "tf2_msgs/msg/TFMessage", "tf2_msgs/msg/TFMessage", "rosgraph_msgs/msg/Clock",
         "carla_msgs/msg/CarlaEgoVehicleStatus", "carla_msgs/msg/CarlaEgoVehicleInfo",
         "carla_msgs/msg/CarlaEgoVehicleControl", "carla_msgs/msg/CarlaCollisionEvent",
         "carla_msgs/msg/CarlaLaneInvasionEvent"]
GRAPH = "rmw_dds_common/msg/ParticipantEntitiesInfo"  # ros_discovery_info's type: its hash alone
FIELD_TYPE = {"int8": 2, "uint8": 3, "int16": 4, "uint16": 5, "int32": 6, "uint32": 7, "int64": 8, "uint64": 9,
              "float32": 10, "float64": 11, "char": 3, "bool": 15, "byte": 16, "string": 17,
              "wstring": 18}
_FIELD_RE = re.compile(r"([A-Za-z0-9_/]+)(<=\d+)?(\[(<=)?(\d*)\])?\s+([A-Za-z0-9_]+)\s*(=.*|\S.*)?$")


def load(msg_dir=MSG_DIR):
    """{"pkg/Type": text} of every .msg under msg_dir."""
    texts = {}
    for pkg in sorted(os.listdir(msg_dir)):
        for f in sorted(os.listdir(os.path.join(msg_dir, pkg))):
            if f.endswith(".msg"):
                with open(os.path.join(msg_dir, pkg, f), encoding="utf-8") as h:
                    texts["%s/%s" % (pkg, f[:-4])] = h.read()
    return texts


def fields(text, pkg):
    """[(name, field type dict)] of a .msg text, constants and comments left out."""
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = _FIELD_RE.match(line)
        if not m:
            raise ValueError("%s: cannot read the line %r" % (pkg, line))
        typ, sbound, arr, bounded, num, name, rest = m.groups()
        if rest and rest.startswith("="):
            continue  # a constant
        cap, scap, nested = 0, 0, ""
        if typ in FIELD_TYPE:
            tid = FIELD_TYPE[typ]
            if sbound:  # bounded string 21, bounded wstring 22
                tid, scap = tid + 4, int(sbound[2:])
        else:
            tid = 1
            if typ == "Header":
                typ = "std_msgs/Header"
            p, t = typ.split("/") if "/" in typ else (pkg, typ)
            nested = "%s/msg/%s" % (p, t)
        if arr is not None:
            if bounded:
                tid, cap = tid + 96, int(num)
            elif num:
                tid, cap = tid + 48, int(num)
            else:
                tid += 144
        out.append({"name": name, "type": {"type_id": tid, "capacity": cap, "string_capacity": scap,
                                           "nested_type_name": nested}})
    if not out:
        out.append({"name": "structure_needs_at_least_one_member",
                    "type": {"type_id": 3, "capacity": 0, "string_capacity": 0, "nested_type_name": ""}})
    return out


def type_hash(name, texts):
    """The RIHS01 hash of type @p name ("pkg/msg/Type") from texts {"pkg/Type": .msg text}."""
    def desc(n):
        return {"type_name": n, "fields": fields(texts[n.replace("/msg/", "/")], n.split("/")[0])}
    refs, todo = {}, [name]
    while todo:
        d = desc(todo.pop())
        if d["type_name"] != name:
            refs[d["type_name"]] = d
        for f in d["fields"]:
            t = f["type"]["nested_type_name"]
            if t and t != name and t not in refs and t not in todo:
                todo.append(t)
    data = {"type_description": desc(name), "referenced_type_descriptions": [refs[k] for k in sorted(refs)]}
    text = json.dumps(data, skipkeys=False, ensure_ascii=True, check_circular=True, allow_nan=False, indent=None,
                      separators=(", ", ": "), sort_keys=False)
    return "RIHS01_" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def type_hash_of(name):
    """The RIHS01 hash of one of libsensim's types (scripts/msg)."""
    return type_hash(name, load())


def main():
    texts = load(sys.argv[1] if len(sys.argv) > 1 else MSG_DIR)
    dep_re = re.compile(r"(?:^|\n)\s*([a-zA-Z0-9_/]+)(?:\[[^\]]*\])?\s+")

    def deps(name):
        pkg = name.split("/")[0]
        out = set()
        for t in dep_re.findall(texts[name]):
            if t in PRIMS:
                continue
            out.add(t if "/" in t else "%s/%s" % (pkg, t))
        return sorted(out)

    def pieces(name, seen):
        """full(name) as [("text", type) | ("sep", type)]: text(T), then each dependency's separator and
        full text, as rosbag2 joins them."""
        out = [("text", name)]
        for d in deps(name):
            if d in seen:
                continue
            seen.add(d)
            out += [("sep", d)] + pieces(d, seen)
        return out

    def macro(name):
        return "M_" + name.replace("/", "_")

    def c_lines(s):
        out = []
        for line in s.splitlines(True):
            esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
            out.append('"%s"' % esc)
        return out

    full = {r: pieces(r.replace("/msg/", "/"), set()) for r in ROOTS}
    used = sorted({n for r in ROOTS for kind, n in full[r] if kind == "text"})
    print("/* Generated by scripts/gen_ros2_msgdefs.py from the .msg texts in scripts/msg (Jazzy's")
    print(" * common_interfaces, geometry2, rcl_interfaces, rmw_dds_common; carla_msgs 1.3): the ros2msg schema")
    print(" * data rosbag2 writes and the REP-2011 type hashes. Do not edit. */")
    print('#include "ros2_msgdefs.h"\n')
    print("/* CameraInfo's definition is longer than the 4095 bytes C99 guarantees; gcc and clang take it. */")
    print('#pragma GCC diagnostic ignored "-Woverlength-strings"\n')
    print("const char *const sensim__ros2_type_names[SENSIM__ROS2_TYPES] = {")
    for r in ROOTS:
        print('    "%s",' % r)
    print("};\n")
    print("/* Each .msg text once; a definition below is its pieces one after the other. */")
    print('#define SEP "\\n%s\\n"' % ("=" * 80))
    for n in used:
        print("#define %s \\\n    %s\n" % (macro(n), " \\\n    ".join(c_lines(texts[n]))))
    print("const char *const sensim__ros2_msgdefs[SENSIM__ROS2_TYPES] = {")
    for r in ROOTS:
        parts = [macro(n) if kind == "text" else 'SEP "MSG: %s\\n"' % n for kind, n in full[r]]
        line, out = "   ", []
        for p in parts:
            if len(line) + 1 + len(p) > 116:
                out.append(line)
                line = "       "
            line += " " + p
        print("    /* %s */" % r)
        print("\n".join(out + [line + ","]))
    print("};\n")
    print("const char *const sensim__ros2_type_hashes[SENSIM__ROS2_TYPES] = {")
    for r in ROOTS:
        print('    "%s", /* %s */' % (type_hash(r, texts), r))
    print("};\n")
    print("/* ros_discovery_info's writer's USER_DATA (Iron and later) */")
    print('const char sensim__ros2_graph_type_hash[] =\n    "%s"; /* %s */' % (type_hash(GRAPH, texts), GRAPH))


if __name__ == "__main__":
    main()
