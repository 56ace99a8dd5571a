"""Sensors: lidars, cameras, navigation sensors (IMU, GNSS, odometry) and radars, and their rings."""
import ctypes

from . import _lib

from ._core import (Context, InvalidArgument, POINT_SIZE, POLICIES, Ring, Scene, _DATATYPES, _Handle, _L, _check,
                    _f64, _from16, _header, _i64, _keys, _mat16, _need_numpy, _np, _text_arg, _u32, _u64, _using,
                    _want)


NAV_KINDS = {"imu": 0, "gnss": 1, "odometry": 2}


def _nav_dict(s):
    return dict(t_ns=s.t_ns, index=s.index, sensor_id=s.sensor_id, accel=list(s.accel), gyro=list(s.gyro),
                compass_rad=s.compass_rad, latitude_deg=s.latitude_deg, longitude_deg=s.longitude_deg,
                altitude_m=s.altitude_m, position=list(s.position), orientation=list(s.orientation),
                velocity_world=list(s.velocity_world), velocity_body=list(s.velocity_body),
                angular_velocity=list(s.angular_velocity), acceleration_world=list(s.acceleration_world))


class Nav(_Handle):
    """A navigation sensor: kind "imu", "gnss" or "odometry" with keys as rig
    files give them (dict or "key=value" list; sensim/nav.h: rate_hz, interp,
    mount_xyz_m, noise_accel_stddev_x, latitude, model, ...)."""
    _destroy = "sensim_nav_destroy"
    _what = "Nav"

    def __init__(self, context, kind="imu", keys=None, sensor_id=0):
        super().__init__()
        _want(context, Context, "context")
        if kind not in NAV_KINDS:
            raise InvalidArgument(1, "kind must be imu, gnss or odometry")
        self.context, self.kind = context, kind
        d = _lib.NavDesc()
        _L.sensim_nav_desc_init(ctypes.byref(d), NAV_KINDS[kind])
        if isinstance(keys, dict):
            keys = ["%s=%s" % (k, v) for k, v in keys.items()]
        for kv in keys or []:
            k, sep, v = str(kv).partition("=")
            if not sep:
                raise InvalidArgument(1, "navigation key %r is not key=value" % kv)
            _check(_L.sensim_nav_desc_set(ctypes.byref(d), _text_arg(k.strip(), "key"), _text_arg(v.strip(), k.strip())))
        d.sensor_id = _u32(sensor_id, "sensor_id")
        h = ctypes.c_void_p()
        _check(_L.sensim_nav_create(context.handle, ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value

    def sample(self, keys, k):
        """Sample k (at k / rate) on the platform keys [(t_ns, 4x4), ...]: a dict."""
        arr = _keys(None, keys)
        s = _lib.NavSample()
        with _using(self) as (h,):
            _check(_L.sensim_nav_sample_at(h, arr, len(arr), _u64(k, "k"), ctypes.byref(s)))
        return _nav_dict(s)


def radar_fields():
    """The radar detection field table: [(name, offset, datatype, count)]."""
    n = ctypes.c_uint32()
    f = _L.sensim_radar_fields(ctypes.byref(n))
    return [(f[i].name.decode(), f[i].offset, f[i].datatype, f[i].count) for i in range(n.value)]


RADAR_DTYPE = _np.dtype({"names": [x[0] for x in radar_fields()],
                         "formats": ["<" + _DATATYPES[x[2]][0] for x in radar_fields()],
                         "offsets": [x[1] for x in radar_fields()], "itemsize": POINT_SIZE}) if _np is not None else None


class Radar(_Handle):
    """A radar (sensim/radar.h) with keys as rig files give them (model carla|physical,
    horizontal_fov, vertical_fov, range, points_per_second, rate_hz, mount_xyz_m,
    snr_ref_db, pfa, ..._resolution, ..._noise, max_velocity). :meth:`sample`
    returns a RADAR_DTYPE array; in a Rig its detections fill a point Ring
    (view frames with ``points.view(sensim.RADAR_DTYPE)``)."""
    _destroy = "sensim_radar_destroy"
    _what = "Radar"

    def __init__(self, context, keys=None, sensor_id=0):
        super().__init__()
        _want(context, Context, "context")
        self.context = context
        d = _lib.RadarDesc()
        _L.sensim_radar_desc_init(ctypes.byref(d))
        if isinstance(keys, dict):
            keys = ["%s=%s" % (k, v) for k, v in keys.items()]
        for kv in keys or []:
            k, sep, v = str(kv).partition("=")
            if not sep:
                raise InvalidArgument(1, "radar key %r is not key=value" % kv)
            _check(_L.sensim_radar_desc_set(ctypes.byref(d), _text_arg(k.strip(), "key"), _text_arg(v.strip(), k.strip())))
        d.sensor_id = _u32(sensor_id, "sensor_id")
        h = ctypes.c_void_p()
        _check(_L.sensim_radar_create(context.handle, ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value
        self.rays_per_sample = _L.sensim_radar_rays_per_sample(self._h)

    def set_weather(self, rain_rate_mm_h=0.0):
        """The rain (mm/h, 0..500) the physical radar model sees from the next sample on
        (sensim_radar_set_weather: the SNR lowered by rain's two-way loss, ITU-R P.838 at 77 GHz)."""
        with _using(self) as (h,):
            _check(_L.sensim_radar_set_weather(h, _f64(rain_rate_mm_h, "rain_rate_mm_h")))

    def sample(self, scene, keys, k):
        """Detections of sample k (at k / rate) with the platform on keys [(t_ns, 4x4), ...]."""
        if _np is None:
            raise _need_numpy("Radar.sample")
        _want(scene, Scene, "scene")
        arr = _keys(None, keys)
        out = _np.empty(max(1, self.rays_per_sample), RADAR_DTYPE)
        n = ctypes.c_uint64()
        with _using(self, scene) as (h, sh):
            _check(_L.sensim_radar_sample_at(h, sh, arr, len(arr), _u64(k, "k"), out.ctypes.data, out.size,
                                             ctypes.byref(n), None))
        return out[:n.value].copy()


class NavRing(Ring):
    """A ring of navigation samples (sensim_nav_ring_init) this object owns;
    a Nav in a Rig writes one sample per frame. :meth:`pop` gives (header,
    sample dict)."""

    def __init__(self, frame_capacity=1024, policy="fail"):
        if policy not in POLICIES:
            raise InvalidArgument(1, "policy must be one of %s" % ", ".join(POLICIES))
        size = ctypes.c_size_t()
        _check(_L.sensim_nav_ring_required_size(_u32(frame_capacity, "frame_capacity"), ctypes.byref(size)))
        self._mem = (ctypes.c_uint64 * ((size.value + 7) // 8))()
        h = ctypes.c_void_p()
        _check(_L.sensim_nav_ring_init(ctypes.addressof(self._mem), size.value, frame_capacity, POLICIES[policy],
                                       ctypes.byref(h)))
        self._h = h.value

    def peek(self):
        hp, sp = ctypes.POINTER(_lib.FrameHeader)(), ctypes.POINTER(_lib.NavSample)()
        st = _L.sensim_ring_peek_nav(self._h, ctypes.byref(hp), ctypes.byref(sp))
        if st == 11:
            return None
        _check(st)
        return _header(hp.contents), _nav_dict(sp.contents)

    def pop(self):
        got = self.peek()
        if got is not None:
            self.release()
        return got

    def frames(self):
        while True:
            f = self.pop()
            if f is None:
                return
            yield f


def motion_from_velocity(pose_matrix, t0_ns, t1_ns, velocity, angular_velocity_deg=(0.0, 0.0, 0.0)):
    """Two keys [(t0, pose), (t1, pose)] for constant velocity (m/s, world) and
    body rates (roll, pitch, yaw rates in deg/s, as the CLI's --velocity)."""
    v = [_f64(a, "velocity") for a in velocity]
    w = [_f64(a, "angular_velocity_deg") * (3.141592653589793 / 180.0) for a in angular_velocity_deg]
    if len(v) != 3 or len(w) != 3:
        raise InvalidArgument(1, "velocity and angular_velocity_deg take 3 numbers each")
    out = (_lib.PoseKey * 2)()
    _check(_L.sensim_motion_from_velocity(_mat16(pose_matrix), _i64(t0_ns, "t0_ns"), _i64(t1_ns, "t1_ns"),
                                          _lib.d3(*v), _lib.d3(*w), out))
    return [(out[i].t_ns, _from16(out[i].pose)) for i in range(2)]


class Lidar(_Handle):
    """A lidar from a preset name or file (or a Livox CSV with shots_per_s).
    ``overrides`` is a dict or list of "key=value" (scan_patterns/README.md)."""
    _destroy = "sensim_lidar_destroy"
    _what = "Lidar"

    def __init__(self, context, preset, overrides=None):
        super().__init__()
        _want(context, Context, "context")
        self.context = context
        if isinstance(overrides, dict):
            overrides = ["%s=%s" % (k, v) for k, v in overrides.items()]
        overrides = list(overrides or [])
        arr = (ctypes.c_char_p * max(1, len(overrides)))(*[_text_arg(s, "override") for s in overrides])
        h = ctypes.c_void_p()
        _check(_L.sensim_lidar_create_from_preset(context.handle, _text_arg(preset, "preset", path=True), arr,
                                                  len(overrides),
                                                  ctypes.byref(h)))
        self._h = h.value

    @property
    def info(self):
        i = _lib.LidarInfo()
        _check(_L.sensim_lidar_get_info(self.handle, ctypes.byref(i)))
        d = {k: getattr(i, k) for k, _ in _lib.LidarInfo._fields_ if not k.startswith("reserved")}
        d["name"] = i.name.decode()
        return d

    @property
    def elevations(self):
        n = ctypes.c_uint32()
        _check(_L.sensim_lidar_get_elevations(self.handle, None, 0, ctypes.byref(n)))
        arr = (ctypes.c_float * n.value)()
        _check(_L.sensim_lidar_get_elevations(self.handle, arr, n.value, ctypes.byref(n)))
        return list(arr)

    def count_shots(self, t0_ns, t1_ns):
        out = ctypes.c_uint64()
        _check(_L.sensim_lidar_count_shots(self.handle, _i64(t0_ns, "t0_ns"), _i64(t1_ns, "t1_ns"),
                                           ctypes.byref(out)))
        return out.value

    def set_mount(self, pose_matrix):
        _check(_L.sensim_lidar_set_mount_pose(self.handle, _mat16(pose_matrix)))

    def set_shot_offset(self, shots):
        """Run the pattern ``shots`` ahead (negative: behind) of its clock from the next scan on: each shot
        keeps its time and takes the direction and channel of the pattern's shot that many later
        (sensim_lidar_set_shot_offset; |shots| <= 1e15, whole columns keep each time with its channel).
        sensim.carla uses it for CARLA's sensor_tick: a measurement continues the sweep where the last
        stopped."""
        with _using(self) as (h,):
            _check(_L.sensim_lidar_set_shot_offset(h, _i64(shots, "shots")))

    def set_weather(self, visibility_m=0.0, rain_rate_mm_h=0.0):
        """The fog (visibility in metres; 0 = none, else >= 10) and rain (mm/h, 0..500) the lidar sees from
        the next scan on (sensim_lidar_set_weather: extinction in the physical and CARLA intensity models,
        droplet returns when rain_false_returns is on). Refused with Busy during a scan of this lidar."""
        with _using(self) as (h,):
            _check(_L.sensim_lidar_set_weather(h, _f64(visibility_m, "visibility_m"),
                                               _f64(rain_rate_mm_h, "rain_rate_mm_h")))

    def rewind(self):
        """Forget where the last scan ended: the next scan may start at any time, giving a new lidar's
        points (sensim_lidar_rewind). Scan whole frames before rewinding, or use another ring. A Risley
        or MEMS lidar keeps its pattern of the span scanned before (up to 32 MB) and replays it."""
        with _using(self) as (h,):
            _check(_L.sensim_lidar_rewind(h))

    def scan(self, scene, t0_ns, t1_ns, ring, pose=None, keys=None, world_step=0):
        """Fire the shots of [t0, t1) into ``ring``; ``keys`` = [(t_ns, 4x4), ...] for motion."""
        _want(scene, Scene, "scene")
        _want(ring, Ring, "ring")
        k = _keys(pose, keys)
        t0_ns, t1_ns = _i64(t0_ns, "t0_ns"), _i64(t1_ns, "t1_ns")
        m = _lib.Motion(keys=k, key_count=len(k), world_step=_u64(world_step, "world_step"))
        r = _lib.ScanResult()
        with _using(self, scene) as (lh, sh):
            _check(_L.sensim_lidar_scan_motion(lh, sh, t0_ns, t1_ns, ctypes.byref(m), ring.handle, ctypes.byref(r)))
        return dict(shots=r.shots, points=r.points, frames_completed=r.frames_completed, points_lost=r.points_lost,
                    rays_traced=r.rays_traced)

    def pattern_stats(self, t0_ns, t1_ns, bin_rad, durations_ns=()):
        n = len(durations_ns)
        d = (ctypes.c_int64 * max(1, n))(*[_i64(x, "duration") for x in durations_ns])
        cov = (ctypes.c_double * max(1, n))()
        s = _lib.PatternStats()
        _check(_L.sensim_pattern_measure(self.handle, _i64(t0_ns, "t0_ns"), _i64(t1_ns, "t1_ns"), bin_rad, d, n, cov,
                                         None, 0, ctypes.byref(s)))
        out = {k: getattr(s, k) for k, _ in _lib.PatternStats._fields_ if k != "reserved"}
        out["coverage"] = list(cov)[:n]
        return out

    def export_csv(self, t0_ns, t1_ns, path):
        rows = ctypes.c_uint64()
        _check(_L.sensim_pattern_export_csv(self.handle, _i64(t0_ns, "t0_ns"), _i64(t1_ns, "t1_ns"), _text_arg(path, "path", path=True),
                                            ctypes.byref(rows)))
        return rows.value


class Camera(_Handle):
    """A camera from a preset (carla_default, pinhole_720p, pinhole_1080p,
    fisheye_190) with ``overrides`` (dict or "key=value" list, sensim/camera.h
    keys: width, height, fov, fx, fy, cx, cy, k1..k4, p1, p2, model, ...).
    :meth:`render` returns numpy images (depth float32 metres, planar;
    semantic uint8 tags; instance uint32 ids; normal float32 HxWx3 in the
    optical frame; rgb uint8 HxWx3). Requires numpy."""
    _destroy = "sensim_camera_destroy"
    _what = "Camera"
    OUTPUTS = ("depth", "semantic", "instance", "normal", "rgb")

    def __init__(self, context, preset="carla_default", overrides=None):
        super().__init__()
        _want(context, Context, "context")
        self.context = context
        d = _lib.CameraDesc()
        _check(_L.sensim_camera_desc_preset(_text_arg(str(preset), "preset"), ctypes.byref(d)))
        if isinstance(overrides, dict):
            overrides = ["%s=%s" % (k, v) for k, v in overrides.items()]
        for kv in overrides or []:
            k, sep, v = str(kv).partition("=")
            if not sep:
                raise InvalidArgument(1, "camera override %r is not key=value" % kv)
            _check(_L.sensim_camera_desc_set(ctypes.byref(d), _text_arg(k.strip(), "key"),
                                             _text_arg(v.strip(), k.strip())))
        h = ctypes.c_void_p()
        _check(_L.sensim_camera_create(context.handle, ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value
        self.width, self.height = d.width, d.height

    @property
    def info(self):
        """ROS CameraInfo fields: width, height, distortion_model, D, K, R, P (row-major lists)."""
        i = _lib.CameraInfo()
        _check(_L.sensim_camera_get_info(self.handle, ctypes.byref(i)))
        return dict(width=i.width, height=i.height, distortion_model=i.distortion_model.decode(), D=list(i.d),
                    K=list(i.k), R=list(i.r), P=list(i.p), hfov_deg=i.hfov_deg)

    def set_mount(self, pose_matrix):
        _check(_L.sensim_camera_set_mount_pose(self.handle, _mat16(pose_matrix)))

    def render(self, scene, t_ns=0, pose=None, keys=None, outputs=("depth", "semantic")):
        """Render the image captured at ``t_ns`` with the platform at ``pose``
        (4x4) or on ``keys`` [(t_ns, 4x4), ...]; returns {name: array} and
        "pose" (the camera's world pose at t_ns, 4x4)."""
        if _np is None:
            raise _need_numpy("Camera.render")
        _want(scene, Scene, "scene")
        bad = [o for o in outputs if o not in self.OUTPUTS]
        if bad or not outputs:
            raise InvalidArgument(1, "outputs must be among %s, not %r" % (", ".join(self.OUTPUTS), bad or outputs))
        h, w = self.height, self.width
        shapes = dict(depth=((h, w), _np.float32), semantic=((h, w), _np.uint8), instance=((h, w), _np.uint32),
                      normal=((h, w, 3), _np.float32), rgb=((h, w, 3), _np.uint8))
        out = {o: _np.empty(*shapes[o]) for o in outputs}
        im = _lib.CameraImages()
        for o, a in out.items():
            setattr(im, o, a.ctypes.data)
        k = _keys(pose, keys)
        m = _lib.Motion(keys=k, key_count=len(k))
        cam_pose = _lib.d16()
        with _using(self, scene) as (ch, sh):
            _check(_L.sensim_camera_render(ch, sh, ctypes.byref(m), _i64(t_ns, "t_ns"), ctypes.byref(im), cam_pose))
        out["pose"] = _from16(cam_pose)
        return out
