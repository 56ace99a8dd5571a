"""Files: point clouds (PLY, PCD, ...), PNG, and rosbag2 MCAP written with the library's writers."""
import ctypes
import numbers
import threading

from . import _lib

from ._core import (Busy, Frame, InvalidArgument, OutOfRange, POINT_DTYPE, POINT_SIZE, ParseError, _Handle, _L,
                    _check, _f64, _i64, _mat16, _need_numpy, _np, _text_arg, _u32, _u64, _using, _want)
from ._sensors import (Camera)


POINT_FORMATS = {"ply": 0, "ply-ascii": 1, "pcd": 2, "pcd-ascii": 3, "kitti": 4, "carla": 5, "las": 6, "las12": 7}


def write_points(path, points, format="ply"):
    """Write point records (a structured array of POINT_DTYPE, or 32-byte
    records as bytes) in one of POINT_FORMATS -- the formats and field names
    of ``sensim batch --format`` -- through PATH.tmp and a rename."""
    if format not in POINT_FORMATS:
        raise InvalidArgument(1, "format must be one of %s, not %r" % (", ".join(POINT_FORMATS), format))
    if _np is not None and isinstance(points, _np.ndarray):
        arr = _np.ascontiguousarray(points, dtype=POINT_DTYPE)
        addr, n = arr.ctypes.data, len(arr)
    else:
        raw = bytes(points)
        if len(raw) % POINT_SIZE:
            raise InvalidArgument(1, "points: %d bytes is not a whole number of %d-byte records"
                                  % (len(raw), POINT_SIZE))
        buf = ctypes.create_string_buffer(raw, len(raw) or 1)
        addr, n = ctypes.addressof(buf), len(raw) // POINT_SIZE
    _check(_L.sensim_write_points(_text_arg(path, "path", path=True), POINT_FORMATS[format], None, addr, n))


def write_ply(path, points):
    """Write records as binary PLY (``write_points(path, points, "ply")``)."""
    write_points(path, points, "ply")


def write_png(path, image):
    """Write a numpy image as PNG through a temporary (nothing half written): uint8 H x W (gray) or
    H x W x 3 (RGB), or uint16 H x W (16-bit gray, as range images)."""
    if _np is None:
        raise _need_numpy("write_png")
    if not isinstance(image, _np.ndarray) or image.ndim not in (2, 3):
        raise InvalidArgument(1, "image must be a 2-D or 3-D numpy array")
    ch = 1 if image.ndim == 2 else image.shape[2]
    depth = 8 if image.dtype == _np.uint8 else 16 if image.dtype == _np.uint16 and ch == 1 else 0
    if not depth or ch not in (1, 3):
        raise InvalidArgument(1, "a PNG takes uint8 with 1 or 3 channels or uint16 with 1, not %s with %d"
                              % (image.dtype, ch))
    img = _np.ascontiguousarray(image)
    if depth == 16:
        img = img.astype("<u2", copy=False)
    _check(_L.sensim_write_png(_text_arg(path, "path", path=True), _u32(img.shape[1], "width"),
                               _u32(img.shape[0], "height"), ch, depth, img.ctypes.data, img.strides[0]))


def read_ply(path):
    """Read a binary little-endian PLY of points (what write_ply and the sensim command write, or any PLY
    of float/int vertex properties): a numpy structured array of its vertex properties."""
    if _np is None:
        raise _need_numpy("read_ply")
    types = {"float": "<f4", "float32": "<f4", "double": "<f8", "float64": "<f8", "uint": "<u4", "uint32": "<u4",
             "int": "<i4", "int32": "<i4", "ushort": "<u2", "uint16": "<u2", "short": "<i2", "int16": "<i2",
             "uchar": "u1", "uint8": "u1", "char": "i1", "int8": "i1"}
    with open(_text_arg(path, "path", path=True), "rb") as f:
        data = f.read()
    end = data.find(b"end_header\n")
    if not data.startswith(b"ply\n") or end < 0:
        raise ParseError(4, "%s: not a PLY file" % path)
    fields, count, in_vertex = [], None, False
    for line in data[:end].decode("ascii", "replace").splitlines()[1:]:
        w = line.split()
        if w[:1] == ["format"] and w[1:2] != ["binary_little_endian"]:
            raise ParseError(4, "%s: %s PLY (binary_little_endian only)" % (path, w[1] if len(w) > 1 else "?"))
        if w[:1] == ["element"]:
            in_vertex = len(w) == 3 and w[1] == "vertex"
            if in_vertex:
                count = int(w[2])
            elif count is None:
                raise ParseError(4, "%s: an element before vertex" % path)
        elif w[:1] == ["property"] and in_vertex:
            if len(w) != 3 or w[1] not in types:
                raise ParseError(4, "%s: property %r" % (path, line))
            fields.append((w[2], types[w[1]]))
    dt = _np.dtype(fields)
    body = data[end + len(b"end_header\n"):]
    if count is None or count * dt.itemsize > len(body):
        raise ParseError(4, "%s: %s vertices do not fit the file" % (path, count))
    return _np.frombuffer(body, dt, count).copy()


def write_pcd(path, points, ascii=False):
    """Write records as PCD v0.7, binary or ascii, with the record's field
    names (``write_points(path, points, "pcd")``)."""
    write_points(path, points, "pcd-ascii" if ascii else "pcd")


# ---------------------------------------------------------------- ROS 2 bags

MCAP_TYPES = {"PointCloud2": 0, "Image": 1, "CameraInfo": 2, "Imu": 3, "NavSatFix": 4, "Odometry": 5,
              "TFMessage": 6, "TFMessage_static": 7, "Clock": 8, "CarlaEgoVehicleStatus": 9,
              "CarlaEgoVehicleInfo": 10, "CarlaEgoVehicleControl": 11, "CarlaCollisionEvent": 12,
              "CarlaLaneInvasionEvent": 13}
MCAP_COMPRESSION = {"none": 0, "zstd": 1, "lz4": 2}
# sensor_msgs/Image encodings write_image takes: (numpy dtype, channels); little-endian as the message says
_IMAGE_DTYPES = {"rgb8": ("uint8", 3), "bgr8": ("uint8", 3), "rgba8": ("uint8", 4), "bgra8": ("uint8", 4),
                 "mono8": ("uint8", 1), "mono16": ("<u2", 1), "16UC1": ("<u2", 1), "32FC1": ("<f4", 1),
                 "32FC3": ("<f4", 3)}


def _axes3(value, what):
    """One number for three axes, or three: a C double[3]."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        v = [float(value)] * 3
    else:
        try:
            v = [_f64(x, what) for x in value]
        except TypeError:
            raise InvalidArgument(1, "%s must be a number or three numbers" % what) from None
        if len(v) != 3:
            raise InvalidArgument(1, "%s must be a number or three numbers, not %d" % (what, len(v)))
    return _lib.d3(*v)


def gnss_enu_variance(latitude_deg, lat_stddev_deg, lon_stddev_deg, alt_stddev_m):
    """(East, North, Up) variances in m² of a GNSS fix with angular noise in degrees, on WGS 84."""
    out = _lib.d3()
    _check(_L.sensim_gnss_enu_variance(_f64(latitude_deg, "latitude_deg"), _f64(lat_stddev_deg, "lat_stddev_deg"),
                                       _f64(lon_stddev_deg, "lon_stddev_deg"), _f64(alt_stddev_m, "alt_stddev_m"),
                                       out))
    return tuple(out)


def _cstr(value, what):
    return _text_arg(value, what)


def _vehicle_control(c, what="control"):
    """A sensim_vehicle_control from a carla.VehicleControl-like object or a dict of its fields."""
    get = c.get if isinstance(c, dict) else (lambda k, d: getattr(c, k, d))
    out = _lib.VehicleControlC()
    for k in ("throttle", "steer", "brake"):
        setattr(out, k, _f64(get(k, 0.0), "%s.%s" % (what, k)))
    for k in ("hand_brake", "reverse", "manual_gear_shift"):
        v = get(k, False)
        if v not in (0, 1):  # True, False, 0, 1
            raise InvalidArgument(1, "%s.%s must be a bool" % (what, k))
        setattr(out, k, int(v))
    out.gear = _lib.c_int32(_i64(get("gear", 0), what + ".gear")).value
    return out


def _nav_sample(sample):
    """A NavSample from Nav.sample()'s dict (or a NavSample)."""
    if isinstance(sample, _lib.NavSample):
        return sample
    if not isinstance(sample, dict):
        raise InvalidArgument(1, "sample must be the dict Nav.sample() returns")
    s = _lib.NavSample()
    s.t_ns = _i64(sample.get("t_ns", 0), "sample['t_ns']")
    for k in ("accel", "gyro", "position", "orientation", "velocity_world", "velocity_body", "angular_velocity",
              "acceleration_world"):
        if k in sample:
            dst = getattr(s, k)
            vals = list(sample[k])
            if len(vals) != len(dst):
                raise InvalidArgument(1, "sample[%r] needs %d numbers" % (k, len(dst)))
            for i, v in enumerate(vals):
                dst[i] = _f64(v, "sample[%r]" % k)
    for k in ("latitude_deg", "longitude_deg", "altitude_m", "compass_rad"):
        if k in sample:
            setattr(s, k, _f64(sample[k], "sample[%r]" % k))
    return s


class McapWriter(_Handle):
    """A rosbag2-compatible MCAP writer (sensim/mcap.h): files PREFIX_0.mcap,
    PREFIX_1.mcap, ... that `ros2 bag play`, `ros2 bag info` and Foxglove
    open. Times are int ns of the world clock; ``log_ns`` is the message's
    receive time. Use as a context manager or call :meth:`close`, which
    finishes the file (an unfinished file is never left under its name).
    One thread at a time."""
    _destroy = None
    _what = "McapWriter"

    def __init__(self, prefix, compression="zstd", chunk_bytes=1 << 20, split_bytes=0, split_s=0.0, zstd_level=3):
        super().__init__()
        if compression not in MCAP_COMPRESSION:
            raise InvalidArgument(1, "compression must be none, zstd or lz4")
        o = _lib.McapOptions()
        _L.sensim_mcap_options_init(ctypes.byref(o))
        o.compression = MCAP_COMPRESSION[compression]
        lvl = _i64(zstd_level, "zstd_level")
        if not 1 <= lvl <= 19:
            raise OutOfRange(5, "zstd_level must be in 1..19")
        o.zstd_level = lvl
        o.chunk_bytes = _u64(chunk_bytes, "chunk_bytes")
        o.split_bytes = _u64(split_bytes, "split_bytes")
        split = _f64(split_s, "split_s")
        if not 0 <= split <= 1e9:
            raise OutOfRange(5, "split_s must be in [0, 1e9] seconds")
        o.split_ns = int(round(split * 1e9))
        h = ctypes.c_void_p()
        _check(_L.sensim_mcap_open(_text_arg(prefix, "prefix", path=True), ctypes.byref(o), ctypes.byref(h)))
        self._h = h.value
        self.files = 0

    def close(self):
        """Finish the current file; returns how many files were written. Refused while an open
        McapSink writes into it (close the sink first)."""
        with self._cv:
            if not self._h:
                return self.files
            if self._holders:
                raise InvalidArgument(1, "McapWriter is written by an open McapSink: close the sink first")
            while self._calls:
                self._cv.wait()
            h, self._h = self._h, None
        n = ctypes.c_uint32()
        _check(_L.sensim_mcap_close(h, ctypes.byref(n)))
        self.files = n.value
        return self.files

    def add_topic(self, name, msg_type):
        """Add a topic: msg_type one of MCAP_TYPES ("PointCloud2", "Image", "CameraInfo", "Imu",
        "NavSatFix", "Odometry", "TFMessage", "TFMessage_static" for /tf_static's QoS, "Clock", and carla_msgs'
        "CarlaEgoVehicleStatus", "CarlaEgoVehicleInfo" (latched), "CarlaEgoVehicleControl", "CarlaCollisionEvent",
        "CarlaLaneInvasionEvent").
        Returns the topic handle the write calls take."""
        if msg_type not in MCAP_TYPES:
            raise InvalidArgument(1, "msg_type must be one of " + ", ".join(MCAP_TYPES))
        t = ctypes.c_uint16()
        with _using(self) as (h,):
            _check(_L.sensim_mcap_add_topic(h, _cstr(name, "name"), MCAP_TYPES[msg_type], ctypes.byref(t)))
        return t.value

    def set_stamp_offset(self, offset_ns):
        """From now on header stamps and /clock carry world time + ``offset_ns`` (int ns, |offset|
        at most 2^61; 0 the default: world time, for use_sim_time nodes). Log times are unchanged."""
        with _using(self) as (h,):
            _check(_L.sensim_mcap_set_stamp_offset(h, _i64(offset_ns, "offset_ns")))

    @staticmethod
    def _topic(topic):
        if not isinstance(topic, int) or isinstance(topic, bool) or not 0 <= topic < 65536:
            raise InvalidArgument(1, "topic must be the int add_topic() returned")
        return topic

    def write_frame(self, topic, frame, frame_id, log_ns=None):
        """A lidar Frame (Ring.pop()) as PointCloud2: stamp = the frame start; log time = the frame end
        unless ``log_ns`` is given."""
        if not isinstance(frame, Frame):
            raise InvalidArgument(1, "frame must be a sensim.Frame (Ring.pop())")
        hd = _lib.FrameHeader()
        hd.t_begin_ns = _i64(frame.header["t_begin_ns"], "t_begin_ns")
        hd.t_end_ns = _i64(frame.header["t_end_ns"], "t_end_ns")
        pts = frame.points
        if _np is not None and isinstance(pts, _np.ndarray):
            arr = _np.ascontiguousarray(pts, dtype=POINT_DTYPE)
            addr, n, keep = arr.ctypes.data, len(arr), arr
        else:
            raw = bytes(pts)
            keep = ctypes.create_string_buffer(raw, len(raw) or 1)
            addr, n = ctypes.addressof(keep), len(raw) // POINT_SIZE
        v = _lib.FrameView()
        v.header = ctypes.pointer(hd)
        v.points[0] = addr
        v.counts[0] = n
        log = hd.t_end_ns if log_ns is None else _i64(log_ns, "log_ns")
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_points(h, self._topic(topic), log, _cstr(frame_id, "frame_id"),
                                               ctypes.byref(v)))
        del keep

    def write_cloud(self, topic, log_ns, stamp_ns, frame_id, records):
        """A numpy structured array (fields of int/uint 8..32 bit or float32/64, one value each) as
        sensor_msgs/PointCloud2 (sensim_mcap_write_cloud): one record per point, fields named as the
        array's, little endian."""
        if _np is None or not isinstance(records, _np.ndarray) or records.dtype.names is None or records.ndim != 1:
            raise InvalidArgument(1, "records must be a 1-D numpy structured array")
        codes = {"i1": 1, "u1": 2, "i2": 3, "u2": 4, "i4": 5, "u4": 6, "f4": 7, "f8": 8}
        arr = _np.ascontiguousarray(records)
        names = arr.dtype.names
        fields = (_lib.Field * len(names))()
        keep = []
        for i, n in enumerate(names):
            dt, off = arr.dtype.fields[n][:2]
            code = codes.get(dt.str.lstrip("<|"))
            if code is None or dt.byteorder == ">" or dt.shape:
                raise InvalidArgument(1, "field %r: %s is not a PointCloud2 datatype (little-endian int/uint 8..32, "
                                         "float32, float64; one value)" % (n, dt))
            keep.append(_cstr(n, "field name"))
            fields[i].name, fields[i].offset, fields[i].datatype, fields[i].count = keep[-1], off, code, 1
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_cloud(h, self._topic(topic), _i64(log_ns, "log_ns"), _i64(stamp_ns, "stamp_ns"),
                                              _cstr(frame_id, "frame_id"), fields, len(names), arr.dtype.itemsize,
                                              arr.ctypes.data if len(arr) else None, len(arr)))

    def write_image(self, topic, log_ns, stamp_ns, frame_id, image, encoding):
        """A numpy image (H x W or H x W x C, C-contiguous rows) as sensor_msgs/Image."""
        if _np is None or not isinstance(image, _np.ndarray) or image.ndim not in (2, 3):
            raise InvalidArgument(1, "image must be a 2-D or 3-D numpy array")
        want = _IMAGE_DTYPES.get(encoding)
        if want is None:
            raise InvalidArgument(1, "encoding %r: one of %s" % (encoding, ", ".join(sorted(_IMAGE_DTYPES))))
        chans = 1 if image.ndim == 2 else image.shape[2]
        if image.dtype != _np.dtype(want[0]) or chans != want[1]:
            raise InvalidArgument(1, "a %s image is %d channel(s) of %s, not %d of %s (convert it first: a %s array "
                                  "written as %s would be garbage)" % (encoding, want[1], want[0], chans, image.dtype,
                                                                       image.dtype, encoding))
        img = _np.ascontiguousarray(image)
        hgt, wid = img.shape[0], img.shape[1]
        step = img.strides[0]
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_image(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                              _i64(stamp_ns, "stamp_ns"), _cstr(frame_id, "frame_id"),
                                              _u32(wid, "width"), _u32(hgt, "height"), _cstr(encoding, "encoding"),
                                              _u32(step, "step"), img.ctypes.data))

    def write_camera_info(self, topic, log_ns, stamp_ns, frame_id, camera):
        """The CameraInfo of a sensim.Camera."""
        _want(camera, Camera, "camera")
        i = _lib.CameraInfo()
        with _using(self, camera) as (h, c):
            _check(_L.sensim_camera_get_info(c, ctypes.byref(i)))
            _check(_L.sensim_mcap_write_camera_info(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                    _i64(stamp_ns, "stamp_ns"), _cstr(frame_id, "frame_id"),
                                                    ctypes.byref(i)))

    def write_imu(self, topic, log_ns, frame_id, sample, orientation_var=-1.0, gyro_var=0.0, accel_var=0.0):
        """An IMU sample (Nav.sample()'s dict) as sensor_msgs/Imu; gyro_var and accel_var are one
        variance for all axes or three (x, y, z)."""
        s = _nav_sample(sample)
        g, a = _axes3(gyro_var, "gyro_var"), _axes3(accel_var, "accel_var")
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_imu_axes(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                 _cstr(frame_id, "frame_id"), ctypes.byref(s),
                                                 _f64(orientation_var, "orientation_var"), g, a))

    def write_navsatfix(self, topic, log_ns, frame_id, sample, horizontal_var_m2=0.0, vertical_var_m2=0.0,
                        enu_var_m2=None):
        """A GNSS sample (Nav.sample()'s dict) as sensor_msgs/NavSatFix; ``enu_var_m2`` (East, North,
        Up variances, gnss_enu_variance()) replaces the horizontal/vertical pair when given."""
        s = _nav_sample(sample)
        enu = _axes3(enu_var_m2, "enu_var_m2") if enu_var_m2 is not None else _lib.d3(
            _f64(horizontal_var_m2, "horizontal_var_m2"), _f64(horizontal_var_m2, "horizontal_var_m2"),
            _f64(vertical_var_m2, "vertical_var_m2"))
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_navsatfix_enu(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                      _cstr(frame_id, "frame_id"), ctypes.byref(s), enu))

    def write_odometry(self, topic, log_ns, stamp_ns, frame_id, child_frame_id, pose_matrix, linear=(0, 0, 0),
                       angular=(0, 0, 0)):
        """nav_msgs/Odometry: a 4x4 pose of child in frame, twist in the child frame (m/s, rad/s)."""
        lin, ang = _lib.d3(*[_f64(v, "linear") for v in linear]), _lib.d3(*[_f64(v, "angular") for v in angular])
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_odometry(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                 _i64(stamp_ns, "stamp_ns"), _cstr(frame_id, "frame_id"),
                                                 _cstr(child_frame_id, "child_frame_id"), _mat16(pose_matrix), lin,
                                                 ang))

    def write_transforms(self, topic, log_ns, transforms):
        """tf2_msgs/TFMessage from [(stamp_ns, parent, child, 4x4 pose of child in parent), ...]."""
        items = list(transforms)
        arr = (_lib.RosTransform * max(1, len(items)))()
        keep = []
        for i, (stamp, parent, child, m) in enumerate(items):
            arr[i].stamp_ns = _i64(stamp, "stamp_ns")
            keep += [_cstr(parent, "parent"), _cstr(child, "child")]
            arr[i].parent_frame, arr[i].child_frame = keep[-2], keep[-1]
            arr[i].pose = _mat16(m)
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_transforms(h, self._topic(topic), _i64(log_ns, "log_ns"), arr, len(items)))

    def write_vehicle_status(self, topic, log_ns, stamp_ns, frame_id, velocity, linear_acceleration, orientation,
                             control, angular_acceleration=(0, 0, 0)):
        """carla_msgs/CarlaEgoVehicleStatus: speed (m/s, >= 0), acceleration (m/s^2) and orientation (x, y, z, w)
        in frame_id, and the control applied (a carla.VehicleControl or a dict of its fields)."""
        s = _lib.VehicleStatus()
        s.velocity = _f64(velocity, "velocity")
        s.linear_acceleration = _axes3(linear_acceleration, "linear_acceleration")
        s.angular_acceleration = _axes3(angular_acceleration, "angular_acceleration")
        q = [_f64(v, "orientation") for v in orientation]
        if len(q) != 4:
            raise InvalidArgument(1, "orientation must be 4 numbers (x, y, z, w)")
        s.orientation = (ctypes.c_double * 4)(*q)
        s.control = _vehicle_control(control)
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_vehicle_status(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                       _i64(stamp_ns, "stamp_ns"), _cstr(frame_id, "frame_id"),
                                                       ctypes.byref(s)))

    def write_vehicle_info(self, topic, log_ns, info):
        """carla_msgs/CarlaEgoVehicleInfo from a dict: id, type, rolename, wheels (dicts of tire_friction,
        damping_rate, max_steer_angle, radius, max_brake_torque, max_handbrake_torque, position), max_rpm, moi,
        damping_rate_*, use_gear_autobox, gear_switch_time, clutch_strength, mass, drag_coefficient,
        center_of_mass; a missing number is 0."""
        if not isinstance(info, dict):
            raise InvalidArgument(1, "info must be a dict")
        v = _lib.VehicleInfo()
        v.id = _u32(info.get("id", 0), "info['id']")
        keep = [_cstr(info.get("type", ""), "info['type']"), _cstr(info.get("rolename", ""), "info['rolename']")]
        v.type, v.rolename = keep
        wheels = list(info.get("wheels", ()))
        arr = (_lib.VehicleWheel * max(1, len(wheels)))()
        for i, w in enumerate(wheels):
            if not isinstance(w, dict):
                raise InvalidArgument(1, "info['wheels'][%d] must be a dict" % i)
            for k, _ in _lib.VehicleWheel._fields_[:-1]:
                setattr(arr[i], k, _f64(w.get(k, 0.0), "wheels[%d][%r]" % (i, k)))
            arr[i].position = _axes3(w.get("position", (0, 0, 0)), "wheels[%d]['position']" % i)
        v.wheels, v.wheel_count = arr, len(wheels)
        for k in _lib.VEHICLE_INFO_FLOATS:
            setattr(v, k, _f64(info.get(k, 0.0), "info[%r]" % k))
        if info.get("use_gear_autobox", False) not in (0, 1):
            raise InvalidArgument(1, "info['use_gear_autobox'] must be a bool")
        v.use_gear_autobox = int(info.get("use_gear_autobox", False))
        v.center_of_mass = _axes3(info.get("center_of_mass", (0, 0, 0)), "info['center_of_mass']")
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_vehicle_info(h, self._topic(topic), _i64(log_ns, "log_ns"), ctypes.byref(v)))

    def write_vehicle_control(self, topic, log_ns, stamp_ns, frame_id, control):
        """carla_msgs/CarlaEgoVehicleControl from a carla.VehicleControl or a dict of its fields."""
        c = _vehicle_control(control)
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_vehicle_control(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                        _i64(stamp_ns, "stamp_ns"), _cstr(frame_id, "frame_id"),
                                                        ctypes.byref(c)))

    def write_collision(self, topic, log_ns, stamp_ns, frame_id, other_actor_id, normal_impulse):
        """carla_msgs/CarlaCollisionEvent: the other actor's id and the normal impulse (N s) in frame_id."""
        imp = _axes3(normal_impulse, "normal_impulse")
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_collision(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                  _i64(stamp_ns, "stamp_ns"), _cstr(frame_id, "frame_id"),
                                                  _u32(other_actor_id, "other_actor_id"), imp))

    def write_lane_invasion(self, topic, log_ns, stamp_ns, frame_id, crossed_lane_markings):
        """carla_msgs/CarlaLaneInvasionEvent: the markings crossed (carla.LaneMarkingType values)."""
        mk = [_i64(m, "crossed_lane_markings") for m in crossed_lane_markings]
        if any(not -2 ** 31 <= m < 2 ** 31 for m in mk):
            raise OutOfRange(5, "crossed_lane_markings must be int32 values")
        arr = (ctypes.c_int32 * max(1, len(mk)))(*mk)
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_lane_invasion(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                      _i64(stamp_ns, "stamp_ns"), _cstr(frame_id, "frame_id"), arr,
                                                      len(mk)))

    def write_clock(self, topic, log_ns, clock_ns):
        """rosgraph_msgs/Clock."""
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_clock(h, self._topic(topic), _i64(log_ns, "log_ns"), _i64(clock_ns, "clock_ns")))

    @property
    def stats(self):
        s = _lib.McapStats()
        with _using(self) as (h,):
            _check(_L.sensim_mcap_get_stats(h, ctypes.byref(s)))
        return {k: getattr(s, k) for k, _ in _lib.McapStats._fields_ if k != "reserved"}


class Ros2Publisher(McapWriter):
    """A live ROS 2 publisher (sensim_ros2_open, sensim/mcap.h): the
    McapWriter calls (add_topic, write_*), and McapSink on a Rig, publish
    over DDS (Cyclone DDS, as ROS 2's rmw_cyclonedds) instead of writing a
    bag; ROS 2 nodes on either RMW see the topics. ``domain_id`` None takes
    ROS_DOMAIN_ID (0 when unset); ``reliable`` makes every topic reliable and
    keep-all instead of each topic's ROS 2 profile (clouds and images best
    effort). :meth:`close` deletes the DDS participant."""
    _what = "Ros2Publisher"

    def __init__(self, domain_id=None, reliable=False):
        _Handle.__init__(self)
        o = _lib.Ros2Options()
        _L.sensim_ros2_options_init(ctypes.byref(o))
        if domain_id is not None:
            d = _i64(domain_id, "domain_id")
            if not 0 <= d <= 232:
                raise OutOfRange(5, "domain_id must be in 0..232")
            o.domain_id = d
        if not isinstance(reliable, bool):
            raise InvalidArgument(1, "reliable must be True or False")
        o.qos = 1 if reliable else 0
        h = ctypes.c_void_p()
        _check(_L.sensim_ros2_open(ctypes.byref(o), ctypes.byref(h)))
        self._h = h.value
        self.files = 0

    def subscribers(self, topic):
        """How many DDS readers are matched with the topic now."""
        n = ctypes.c_uint32()
        with _using(self) as (h,):
            _check(_L.sensim_ros2_subscribers(h, self._topic(topic), ctypes.byref(n)))
        return n.value

    def incompatible(self, topic):
        """(count, policy): readers DDS refused on the topic for incompatible
        QoS so far, and the policy of the last refusal ("RELIABILITY", ...;
        "" when none)."""
        n, pol = ctypes.c_uint32(), ctypes.c_char_p()
        with _using(self) as (h,):
            _check(_L.sensim_ros2_incompatible(h, self._topic(topic), ctypes.byref(n), ctypes.byref(pol)))
        return n.value, (pol.value or b"").decode()

    def publications(self):
        """The ROS 2 publications discovered on the domain so far: a list of dicts (topic, type,
        reliable, transient_local, depth (-1: keep all), gid as hex), as ``ros2 topic list -v``."""
        n = ctypes.c_uint32()
        with _using(self) as (h,):
            _check(_L.sensim_ros2_publications(h, None, 0, ctypes.byref(n)))
            arr = (_lib.Ros2Endpoint * max(n.value, 1))()
            _check(_L.sensim_ros2_publications(h, arr, len(arr), ctypes.byref(n)))
        return [{"topic": e.topic.decode(), "type": e.type.decode(), "reliable": bool(e.reliable),
                 "transient_local": bool(e.transient_local), "depth": e.depth, "gid": bytes(e.gid).hex()}
                for e in arr[:min(n.value, len(arr))]]

    def subscribe(self, topic, ros_type):
        """A Ros2Reader of @p topic ("/a/b") of ROS type @p ros_type ("pkg/msg/Name") on this participant
        (sensim_ros2_reader_open: QoS chosen as `ros2 topic echo` chooses it); closed with the publisher."""
        return Ros2Reader(self, topic, ros_type)

    def close(self):
        for r in list(getattr(self, "_readers", ())):
            r.close()
        return McapWriter.close(self)

    def set_node(self, namespace, name):
        """The ROS node the topics belong to (``ros2 node list``; default
        "/" and "sensim"), published on ros_discovery_info."""
        ns, nm = _cstr(namespace, "namespace"), _cstr(name, "name")
        with _using(self) as (h,):
            _check(_L.sensim_ros2_set_node(h, ns, nm))


def ros2_available():
    """True when libsensim was built with Cyclone DDS (Ros2Publisher can work)."""
    return bool(_L.sensim_ros2_available())


class Ros2Reader(_Handle):
    """A subscription of a Ros2Publisher's participant (sensim_ros2_reader_open): :meth:`read` gives the
    next message's CDR bytes (encapsulation header included) or None. One thread at a time: a read while
    another runs raises Busy."""
    _destroy = "sensim_ros2_reader_close"
    _what = "Ros2Reader"

    def __init__(self, publisher, topic, ros_type):
        _Handle.__init__(self)
        if not isinstance(publisher, Ros2Publisher):
            raise InvalidArgument(1, "publisher must be a sensim.Ros2Publisher")
        self.topic, self.ros_type = topic, ros_type
        self._busy = threading.Lock()
        h = ctypes.c_void_p()
        with _using(publisher) as (ph,):
            _check(_L.sensim_ros2_reader_open(ph, _cstr(topic, "topic"), _cstr(ros_type, "ros_type"),
                                              ctypes.byref(h)))
        self._h = h.value
        self._publisher = publisher
        if not hasattr(publisher, "_readers"):
            publisher._readers = []
        publisher._readers.append(self)

    def read(self, timeout_s=0.0):
        """The next message's bytes, waiting up to @p timeout_s seconds (0: what has arrived); None if none."""
        t = _f64(timeout_s, "timeout_s")
        if not 0 <= t <= 3600:
            raise OutOfRange(5, "timeout_s must be in [0, 3600]")
        if not self._busy.acquire(blocking=False):
            raise Busy(16, "Ros2Reader.read: another thread is reading this reader")
        try:
            p, n = ctypes.POINTER(ctypes.c_uint8)(), ctypes.c_size_t()
            with _using(self) as (h,):
                _check(_L.sensim_ros2_read(h, int(round(t * 1e9)), ctypes.byref(p), ctypes.byref(n)))
                return ctypes.string_at(p, n.value) if n.value else None
        finally:
            self._busy.release()

    def publishers(self):
        """(matched now, matched ever)."""
        now, ever = ctypes.c_uint32(), ctypes.c_uint32()
        with _using(self) as (h,):
            _check(_L.sensim_ros2_reader_publishers(h, ctypes.byref(now), ctypes.byref(ever)))
        return now.value, ever.value

    def close(self):
        _Handle.close(self)
        rs = getattr(getattr(self, "_publisher", None), "_readers", None)
        if rs is not None and self in rs:
            rs.remove(self)
