"""sensim.carla's measurements: what a due sensor hands its callback at the end of a tick (a lidar's
points since its last measurement and CARLA's horizontal_angle, a camera's image in CARLA's encodings,
radar, IMU, GNSS, obstacle events, a registered sensor's own function). Below the facade: called by
World's tick with the world, never importing sensim.carla."""
import math

from . import POINT_DTYPE, _np as np
from ._carla_data import (GnssMeasurement, IMUMeasurement, Image, LidarMeasurement,
                          RadarMeasurement, SemanticLidarMeasurement, _WorldObject, obstacle_event)
from ._carla_events import collision_events, lane_invasion_event
from ._carla_types import _ID0, Vector3D, _f32


def lidar_points(s):
    """The points a lidar's ring received since the last call (frames completed in the meantime, then
    the open frame's new points), as one array."""
    parts = []
    for f in s._ring.frames():  # frames completed in this tick: what earlier ticks did not hand out
        n = f.header["frame_number"]
        parts.append(f.points[s._delivered.pop(n, 0):])
    got = s._ring.peek_open(0)
    if got is not None:
        hdr, pts = got
        n = hdr["frame_number"]
        parts.append(pts[s._delivered.get(n, 0):])
        s._delivered = {n: len(pts)}
    return np.concatenate(parts) if parts else np.zeros(0, POINT_DTYPE)

def lidar_angle(world, s, t1):
    """LidarMeasurement.horizontal_angle of a measurement at @p t1."""
    if hasattr(s, "_hfov"):
        # CARLA's RayCastSemanticLidar: each measurement advances the angle by rotation_frequency x
        # horizontal_fov x delta (float degrees) modulo horizontal_fov, and reports it in radians
        step = _f32(_f32(_f32(s._rot_hz) * _f32(s._hfov)) * _f32(world._dt_ns * 1e-9))
        s._hangle = _f32(math.fmod(_f32(s._hangle + step), _f32(s._hfov)))
        return _f32(_f32(_f32(math.pi) / 180.0) * s._hangle)
    # a sensim preset: the head's angle at the tick's end (its pattern's clock, held back by paused ticks)
    return (2 * math.pi * s._rot_hz * (t1 - s._skip_ns) * 1e-9) % (2 * math.pi)

def measure(world, s, frame, t_s, t0, t1, k):
    plat = s._plat
    tr = s.get_transform()
    if hasattr(s, "_lidar"):
        pts = lidar_points(s)
        angle = lidar_angle(world, s, t1)
        cls = SemanticLidarMeasurement if s._kind.endswith("semantic") else LidarMeasurement
        return cls(frame, t_s, tr, pts, s._channels, angle)
    if hasattr(s, "_camera"):
        kind = s._kind.split(".")[-1]
        out = {"rgb": ("rgb",), "depth": ("depth",), "semantic_segmentation": ("semantic",),
               "instance_segmentation": ("semantic", "instance")}[kind]
        img = s._camera.render(world._scene, t_ns=t1, keys=plat.history[-6:], outputs=out)
        h, w = s._camera.height, s._camera.width
        bgra = np.zeros((h, w, 4), np.uint8)
        bgra[..., 3] = 255
        if kind == "rgb":
            bgra[..., 0], bgra[..., 1], bgra[..., 2] = img["rgb"][..., 2], img["rgb"][..., 1], img["rgb"][..., 0]
            k2 = "rgb"
        elif kind == "depth":  # CARLA's encoding, far plane 1000 m
            d = np.minimum(np.nan_to_num(img["depth"].astype(np.float64), nan=1000.0, posinf=1000.0), 1000.0)
            q = np.floor(d / 1000.0 * (256.0 ** 3 - 1) + 0.5).astype(np.uint32)
            bgra[..., 2], bgra[..., 1], bgra[..., 0] = q & 255, (q >> 8) & 255, (q >> 16) & 255
            k2 = "depth"
        elif kind == "instance_segmentation":  # CARLA's: R the tag, G and B the actor id's low and high byte
            oid = img["instance"].astype(np.int64)
            aid = np.where(oid >= _ID0, oid - _ID0, 0)
            bgra[..., 2], bgra[..., 1], bgra[..., 0] = img["semantic"], aid & 255, (aid >> 8) & 255
            k2 = "instance"
        else:
            bgra[..., 2] = img["semantic"]
            k2 = "semantic"
        return Image(frame, t_s, tr, bgra, s._fov, k2)
    if hasattr(s, "_radar"):
        if k is None:
            raise RuntimeError("World.tick: the world's time %d ns is not a whole number of deltas" % t1)
        return RadarMeasurement(frame, t_s, tr, s._radar.sample(world._scene, plat.history[-6:], k))
    if hasattr(s, "_nav"):
        if k is None:
            raise RuntimeError("World.tick: the world's time %d ns is not a whole number of deltas" % t1)
        smp = s._nav.sample(plat.history[-6:], k)
        if s._kind == "sensor.other.imu":
            a, g = smp["accel"], smp["gyro"]
            f = tr.get_forward_vector()  # CARLA's compass: 0 = north (-y), clockwise seen from above
            fx, fy = f.x, f.y
            n = math.hypot(fx, fy)
            c = math.acos(max(-1.0, min(1.0, -fy / n))) if n > 0 else 0.0
            if fx < 0:
                c = 2 * math.pi - c
            m = IMUMeasurement(frame, t_s, tr, Vector3D(a[0], -a[1], a[2]), Vector3D(-g[0], g[1], -g[2]), c)
        else:
            m = GnssMeasurement(frame, t_s, tr, smp["latitude_deg"], smp["longitude_deg"], smp["altitude_m"])
        m._sample = smp  # sensim's own sample (REP-103), for the world's ROS 2 publisher (_carla_ros2)
        return m
    if hasattr(s, "_user"):
        fn, attrs = s._user
        return fn(s, frame, t_s, tr, attrs)
    if hasattr(s, "_event"):  # collision and lane invasion (sensim.carla._carla_events)
        if s._event == "collision":
            return collision_events(world, s, frame, t_s, tr, t1, _WorldObject)
        return lane_invasion_event(world, s, frame, t_s, tr)
    if hasattr(s, "_obstacle"):
        return obstacle_event(world, s, frame, t_s, tr, t1)
    return None
