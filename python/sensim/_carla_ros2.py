"""sensim.carla's native ROS 2: what a CARLA 0.9.15 server started with ``--ros2`` publishes for sensors a
script enabled (``Sensor.enable_for_ros()``) and the control it takes for its ego vehicle, on sensim's DDS
transport (sensim.Ros2Publisher). Below the facade (never imports sensim.carla).

CARLA's rule (LibCarla/source/carla/ros2 and Unreal's ActorDispatcher of 0.9.15), kept:
  * every blueprint has ``ros_name`` (default: its id); at spawn a default name becomes ``vehicle<id>`` for
    a vehicle and the id's last word plus a number for the others (CARLA numbers by its stream id,
    sensim by the actor id); a name given is kept verbatim;
  * a sensor's topics are /carla/<ancestors' ros_names, root first>/<ros_name>, cameras adding /image and
    /camera_info; frame_id = the sensor's ros_name; stamps = the world's time (the measurement's tick);
  * lidar: PointCloud2 x, y, z, intensity (float32; y negated from CARLA's frame: REP-103); semantic lidar
    x, y, z, cos_inc_angle, object_idx, object_tag; radar x, y, z (REP-103, from depth, azimuth, altitude)
    then velocity, azimuth, altitude, depth; cameras Image bgra8 (CARLA's raw buffer: depth and
    segmentation as CARLA encodes them) and CameraInfo; IMU sensor_msgs/Imu; GNSS NavSatFix;
  * /clock each tick; /tf: each published sensor relative to its parent (frame = the parent's ros_name;
    "map" for a sensor on no actor);
  * a vehicle whose role_name is "hero" or "ego" takes carla_msgs/msg/CarlaEgoVehicleControl on
    /carla/<ros_name>/vehicle_control_cmd and ackermann_msgs/msg/AckermannDriveStamped on
    /carla/<ros_name>/ackermann_control_cmd (CARLA's later servers): the newest message that arrived before a
    tick is applied at that tick (apply_control or apply_ackermann_control: sensim's kinematic model; both
    topics at once: the later header stamp); it takes the vehicle off autopilot, as CARLA's user
    input overrides the autopilot's.
Where sensim differs, and why: one DDS participant (node /carla) for every topic (CARLA makes one per
topic), on ROS_DOMAIN_ID (CARLA: always 0, which is ROS's default too); QoS as ROS 2 drivers publish (clouds
and images best effort depth 5: a SensorDataQoS subscriber matches either; CARLA's Fast DDS writers are
reliable); CameraInfo's fx from the right formula (CARLA 0.9.15 takes tan of degrees: PR #9462); the control
subscriber survives its publisher leaving (CARLA's stops for good). Added for stacks that need them (not in
CARLA 0.9.15, named as carla-ros-bridge names them): nav_msgs/Odometry /carla/<ros_name>/odometry of each
hero vehicle (frame odom, child its ros_name) and the REP-105 tree map -> odom (static, identity) -> hero
(each tick); World.set_publish_tf(False) switches /tf and /tf_static off for a stack that owns its tree.
Each ego vehicle's carla_msgs/msg/CarlaEgoVehicleStatus (/carla/<ros_name>/vehicle_status, every tick: frame
map, the speed, the acceleration in map and the orientation, both from the poses of the last ticks as the
odometry's twist, and the control applied) and carla_msgs/msg/CarlaEgoVehicleInfo (vehicle_info, once,
latched: transient local, so a stack that starts later still gets it). sensim has no drivetrain: the info
holds what its kinematic model knows (four wheels at +-L/2 along the box, L its wheelbase, at 0.9 of the
box's half width, the front pair steering up to 35 degrees; positions in cm on the map with y negated, as
carla-ros-bridge sends CARLA's; a nominal wheel radius of 35 cm; the 1500 kg the collision sensor assumes)
and 0 for the engine, gears and damping. A collision sensor's carla_msgs/msg/CarlaCollisionEvent (the other
actor's id; the impulse estimate in CARLA's axes, as carla-ros-bridge copies it) and a lane invasion
sensor's carla_msgs/msg/CarlaLaneInvasionEvent (carla.LaneMarkingType values) go on the sensor's topic.
"""
import math
import struct
import warnings

from . import Ros2Publisher
from . import _np as np
from ._carla_events import MASS_KG, CollisionEvent, LaneInvasionEvent
from ._carla_data import GnssMeasurement, IMUMeasurement, Image, LidarMeasurement, RadarMeasurement, \
    SemanticLidarMeasurement
from ._carla_types import _native
from ._carla_vehicle import VehicleAckermannControl, VehicleControl

CONTROL_TYPE = "carla_msgs/msg/CarlaEgoVehicleControl"
ACKERMANN_TYPE = "ackermann_msgs/msg/AckermannDriveStamped"
EGO_ROLES = ("hero", "ego")
WHEEL_RADIUS_CM = 35.0  # nominal: sensim's vehicles have no wheel geometry
MAX_STEER_DEG = 35.0    # _carla_vehicle.MAX_WHEEL_DEG


def quaternion(r):
    """(x, y, z, w) of a 3x3 rotation matrix, unit."""
    t = r[0, 0] + r[1, 1] + r[2, 2]
    if t > 0:
        k = 2.0 * math.sqrt(1.0 + t)
        q = ((r[2, 1] - r[1, 2]) / k, (r[0, 2] - r[2, 0]) / k, (r[1, 0] - r[0, 1]) / k, 0.25 * k)
    else:
        i = max(range(3), key=lambda a: r[a, a])
        j, k_ = (i + 1) % 3, (i + 2) % 3
        k = 2.0 * math.sqrt(max(1.0 + r[i, i] - r[j, j] - r[k_, k_], 1e-300))
        v = [0.0, 0.0, 0.0]
        v[i], v[j], v[k_] = 0.25 * k, (r[j, i] + r[i, j]) / k, (r[k_, i] + r[i, k_]) / k
        q = (v[0], v[1], v[2], (r[k_, j] - r[j, k_]) / k)
    n = math.sqrt(sum(float(c) * float(c) for c in q))
    return tuple(float(c) / n for c in q)


def vehicle_info(v, m):
    """The CarlaEgoVehicleInfo dict of vehicle @p v at native pose @p m (see the module's docstring)."""
    ext = v.bounding_box_extent
    half_l, half_w = 0.6 * ext.x, 0.9 * ext.y
    wheels = []
    for dx, dy, front in ((half_l, half_w, True), (half_l, -half_w, True), (-half_l, half_w, False),
                          (-half_l, -half_w, False)):
        p = m[:3, :3] @ np.array([dx, dy, WHEEL_RADIUS_CM / 100.0]) + m[:3, 3]  # REP-103: y left
        wheels.append({"tire_friction": 0.0, "damping_rate": 0.0, "radius": WHEEL_RADIUS_CM,
                       "max_steer_angle": MAX_STEER_DEG if front else 0.0, "max_brake_torque": 0.0,
                       "max_handbrake_torque": 0.0, "position": tuple(float(c) * 100.0 for c in p)})
    return {"id": v.id, "type": v.type_id, "rolename": v.attributes.get("role_name", ""), "wheels": wheels,
            "mass": MASS_KG, "center_of_mass": (0.0, 0.0, 0.0)}


def spawn_ros_name(bp_id, actor_id, value):
    """The ros_name an actor of blueprint @p bp_id gets at spawn (CARLA's ActorDispatcher rule)."""
    if value != bp_id:
        return value
    if "vehicle" in bp_id:
        return "vehicle%d" % actor_id
    return "%s%d" % (bp_id.rsplit(".", 1)[-1], actor_id)


def _ok(name):
    return bool(name) and all(c.isalnum() or c == "_" for c in name) and not name[0].isdigit()


def _reader(cdr):
    """(take, stamp_ns) over a message that starts with a std_msgs/Header, or None (bad encapsulation,
    short, a bad frame_id). take(fmt, align) raises ValueError past the end."""
    if len(cdr) < 4 or cdr[0] != 0 or cdr[1] not in (0, 1):
        return None
    e = "<" if cdr[1] == 1 else ">"
    body, pos = cdr[4:], [0]

    def take(fmt, align):
        p = (pos[0] + align - 1) // align * align
        n = struct.calcsize(fmt)
        if p + n > len(body):
            raise ValueError("short")
        pos[0] = p + n
        return struct.unpack_from(e + fmt, body, p)

    try:
        sec, nsec = take("iI", 4)  # header.stamp
        (n,) = take("I", 4)  # header.frame_id: length with its NUL
        if n == 0 or pos[0] + n > len(body) or body[pos[0] + n - 1] != 0:
            return None
        pos[0] += n
    except ValueError:
        return None
    return take, sec * 10**9 + nsec


def decode_control(cdr):
    """A CarlaEgoVehicleControl's CDR bytes (XCDR1, either endianness) as a carla.VehicleControl, or None
    for a malformed message (short, a bad encapsulation or string)."""
    r = _reader(cdr)
    if r is None:
        return None
    take = r[0]
    try:
        throttle, steer, brake = take("fff", 4)
        hand_brake, reverse = take("BB", 1)
        (gear,) = take("i", 4)
        (manual,) = take("B", 1)
    except ValueError:
        return None
    if not all(math.isfinite(x) for x in (throttle, steer, brake)):
        return None
    return VehicleControl(throttle, steer, brake, bool(hand_brake), bool(reverse), bool(manual), gear)


def decode_ackermann(cdr):
    """An ackermann_msgs/AckermannDriveStamped's CDR bytes as a carla.VehicleAckermannControl (steering_angle
    rad, positive left; steering_angle_velocity; speed m/s; acceleration; jerk), or None when malformed."""
    r = _reader(cdr)
    if r is None:
        return None
    try:
        steer, steer_speed, speed, accel, jerk = r[0]("fffff", 4)
    except ValueError:
        return None
    if not all(math.isfinite(x) for x in (steer, steer_speed, speed, accel, jerk)):
        return None
    return VehicleAckermannControl(steer, steer_speed, speed, accel, jerk)


def encode_control(control, stamp_ns=0, frame_id=""):
    """A carla.VehicleControl as CarlaEgoVehicleControl CDR (little endian), as a ROS 2 node sends it."""
    fid = frame_id.encode() + b"\0"
    out = bytearray(b"\x00\x01\x00\x00")
    body = bytearray(struct.pack("<iII", stamp_ns // 10**9, stamp_ns % 10**9, len(fid)) + fid)
    body += b"\0" * (-len(body) % 4)
    body += struct.pack("<fffBB", control.throttle, control.steer, control.brake, control.hand_brake,
                        control.reverse)
    body += b"\0" * (-len(body) % 4)
    body += struct.pack("<iB", control.gear, control.manual_gear_shift)
    return bytes(out + body)


class Ros2:
    """The world's ROS 2 side: made on the first enable_for_ros (or an ego vehicle's spawn while enabled)."""

    def __init__(self, world):
        self._w = world
        self._pub = None
        self._topics = {}
        self._readers = {}      # vehicle id -> (reader, vehicle)
        self._last = {}         # vehicle id -> (t_ns, native pose, velocity in map, velocity known)
        self._info_sent = set()  # vehicle ids whose vehicle_info went out
        self.publish_tf = True
        self._static_sent = False
        self.malformed = 0      # control messages that could not be decoded (ignored)

    @property
    def active(self):
        return self._pub is not None

    def _writer(self):
        if self._pub is None:
            self._pub = Ros2Publisher()
            self._pub.set_node("/", "carla")
            self._topics["/clock"] = self._pub.add_topic("/clock", "Clock")
        return self._pub

    def _topic(self, name, kind):
        t = self._topics.get(name)
        if t is None:
            t = self._topics[name] = self._writer().add_topic(name, kind)
        return t

    def close(self):
        if self._pub is not None:
            self._pub.close()
            self._pub = None
            self._topics.clear()
            self._readers.clear()

    # names
    @staticmethod
    def path(actor):
        """/carla/<ancestors' ros_names, root first>/<ros_name> (CARLA skips empty names and the actor's own)."""
        own = actor._ros_name
        names, a = [], actor.parent
        while a is not None:
            n = getattr(a, "_ros_name", "")
            if n and n != own:
                names.append(n)
            a = a.parent
        return "/carla/" + "/".join(list(reversed(names)) + [own])

    def check_name(self, actor):
        for n in [actor._ros_name] + [getattr(a, "_ros_name", "") for a in _ancestors(actor)]:
            if n and not _ok(n):
                raise RuntimeError("enable_for_ros: ros_name %r of actor %d is not a ROS name (letters, digits and "
                                   "'_', not starting with a digit): set the blueprint's ros_name" % (n, actor.id))

    # control in
    def add_ego(self, vehicle):
        role = vehicle.attributes.get("role_name", "")
        if role not in EGO_ROLES or vehicle.id in self._readers:
            return
        if not _ok(vehicle._ros_name):  # no control topic for it; the spawn itself stands
            warnings.warn("sensim.carla: ROS 2 control of vehicle %d (role %s): ros_name %r is not a ROS name "
                          "(letters, digits, '_'): no vehicle_control_cmd for it" % (vehicle.id, role,
                                                                                      vehicle._ros_name))
            return
        base = "/carla/%s/" % vehicle._ros_name
        w = self._writer()
        self._readers[vehicle.id] = ((w.subscribe(base + "vehicle_control_cmd", CONTROL_TYPE), decode_control),
                                     (w.subscribe(base + "ackermann_control_cmd", ACKERMANN_TYPE),
                                      decode_ackermann)), vehicle

    def pull_controls(self):
        """Before a tick: each ego vehicle takes the newest control that arrived."""
        for vid, (readers, v) in list(self._readers.items()):
            if not v.is_alive:
                for reader, _ in readers:
                    reader.close()
                del self._readers[vid]
                continue
            got = []  # per topic, the newest message that arrived: (header stamp, control)
            for reader, decode in readers:
                last = None
                while True:
                    raw = reader.read(0.0)
                    if raw is None:
                        break
                    c = decode(raw)
                    if c is None:
                        self.malformed += 1
                    else:
                        last = (_reader(raw)[1], c)
                got.append(last)
            # both topics spoke: the later header stamp wins; a tie, vehicle_control_cmd
            pick = got[0] if got[1] is None or (got[0] is not None and got[0][0] >= got[1][0]) else got[1]
            if pick is not None:
                if v._world._traffic:
                    v.set_autopilot(False)
                if isinstance(pick[1], VehicleAckermannControl):
                    v.apply_ackermann_control(pick[1])
                else:
                    v.apply_control(pick[1])

    # out
    def publish(self, s, data, t_ns):
        """Sensor @p s's measurement @p data of the tick ending at @p t_ns on its topics."""
        pub, base, fid = self._writer(), self.path(s), s._ros_name
        if isinstance(data, SemanticLidarMeasurement):
            r = data._records.copy()
            r["y"] = -r["y"]
            pub.write_cloud(self._topic(base, "PointCloud2"), t_ns, t_ns, fid, r)
        elif isinstance(data, LidarMeasurement):
            r = data._records.copy()
            r["y"] = -r["y"]
            pub.write_cloud(self._topic(base, "PointCloud2"), t_ns, t_ns, fid, r)
        elif isinstance(data, RadarMeasurement):
            d = data._records
            out = np.empty(len(d), np.dtype([(k, "<f4") for k in ("x", "y", "z", "velocity", "azimuth", "altitude",
                                                                     "depth")]))
            az, alt, dep = d["azimuth"].astype(np.float64), d["altitude"].astype(np.float64), d["depth"]
            out["x"], out["y"], out["z"] = dep * np.cos(alt) * np.cos(az), -dep * np.cos(alt) * np.sin(az), \
                dep * np.sin(alt)
            for k in ("velocity", "azimuth", "altitude", "depth"):
                out[k] = d[k]
            pub.write_cloud(self._topic(base, "PointCloud2"), t_ns, t_ns, fid, out)
        elif isinstance(data, Image):
            pub.write_image(self._topic(base + "/image", "Image"), t_ns, t_ns, fid, data._bgra, "bgra8")
            pub.write_camera_info(self._topic(base + "/camera_info", "CameraInfo"), t_ns, t_ns, fid, s._camera)
        elif isinstance(data, IMUMeasurement):
            pub.write_imu(self._topic(base, "Imu"), t_ns, fid, data._sample)
        elif isinstance(data, GnssMeasurement):
            pub.write_navsatfix(self._topic(base, "NavSatFix"), t_ns, fid, data._sample)
        elif isinstance(data, CollisionEvent):
            i = data.normal_impulse
            pub.write_collision(self._topic(base, "CarlaCollisionEvent"), t_ns, t_ns, fid,
                                getattr(data.other_actor, "id", 0) & 0xFFFFFFFF, (i.x, i.y, i.z))
        elif isinstance(data, LaneInvasionEvent):
            pub.write_lane_invasion(self._topic(base, "CarlaLaneInvasionEvent"), t_ns, t_ns, fid,
                                    [int(mk.type) for mk in data.crossed_lane_markings])
        else:
            return  # obstacle: no carla_msgs type
        if self.publish_tf:
            parent = s.parent
            pose = _native(s._rel) if parent is not None else _native(s.get_transform())
            pub.write_transforms(self._topic("/tf", "TFMessage"), t_ns,
                                 [(t_ns, parent._ros_name if parent is not None else "map", fid, pose)])

    def tick(self, t_ns):
        """After a tick: /clock, each ego vehicle's odometry and its transforms."""
        if self._pub is None:
            return
        pub = self._pub
        pub.write_clock(self._topics["/clock"], t_ns, t_ns)
        if self.publish_tf and not self._static_sent and self._readers:
            pub.write_transforms(self._topic("/tf_static", "TFMessage_static"), t_ns,
                                 [(t_ns, "map", "odom", np.eye(4))])
            self._static_sent = True
        for vid, (_, v) in self._readers.items():
            if not v.is_alive:
                continue
            m = _native(v.get_transform())
            lin, ang = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
            vel, acc = np.zeros(3), np.zeros(3)  # in map
            last = self._last.get(vid)
            if last is not None and t_ns > last[0]:
                dt = (t_ns - last[0]) * 1e-9
                vel = (m[:3, 3] - last[1][:3, 3]) / dt
                acc = (vel - last[2]) / dt if last[3] else acc
                lin = tuple(float(x) for x in m[:3, :3].T @ vel)  # in the vehicle's frame
                r = last[1][:3, :3].T @ m[:3, :3]  # the turn over the tick, about the vehicle's axes
                ang = (float(r[2, 1] - r[1, 2]) / (2 * dt), float(r[0, 2] - r[2, 0]) / (2 * dt),
                       float(r[1, 0] - r[0, 1]) / (2 * dt))
            self._last[vid] = (t_ns, m, vel, last is not None)
            base = "/carla/%s/" % v._ros_name
            pub.write_odometry(self._topic(base + "odometry", "Odometry"), t_ns, t_ns, "odom", v._ros_name, m, lin,
                               ang)
            if vid not in self._info_sent:
                pub.write_vehicle_info(self._topic(base + "vehicle_info", "CarlaEgoVehicleInfo"), t_ns,
                                       vehicle_info(v, m))
                self._info_sent.add(vid)
            pub.write_vehicle_status(self._topic(base + "vehicle_status", "CarlaEgoVehicleStatus"), t_ns, t_ns,
                                     "map", float(np.linalg.norm(vel)), tuple(float(x) for x in acc),
                                     quaternion(m[:3, :3]), v.get_control()._clamped())
            if self.publish_tf:
                pub.write_transforms(self._topic("/tf", "TFMessage"), t_ns, [(t_ns, "odom", v._ros_name, m)])


def _ancestors(actor):
    a = actor.parent
    while a is not None:
        yield a
        a = a.parent
