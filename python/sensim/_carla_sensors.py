"""sensim.carla's sensors as sensim objects: a sensor actor's lidar (CARLA's ray_cast model or a sensim
preset), camera, IMU, GNSS, radar, obstacle and event sensors configured from its blueprint's attributes,
re-mounted when it moves, and the weather they see. Below the facade (never imports sensim.carla); the
functions take the world (``self``) as their first argument.
"""
import math

from . import Camera, Lidar, Nav, Radar, Ring, pose_to_frame
from . import _np as np
from ._carla_blueprints import _SENSORS, _USER
from ._carla_types import GRAVITY, _native, sensor_weather as _weather_for_sensors


def make(self, s, bp):
    """Configure sensor actor @p s of blueprint @p bp on its platform (World.spawn_actor)."""
    at = {a.id: a for a in bp}
    s._tick_s = at["sensor_tick"].as_float()
    s._tick_ns = int(round(s._tick_s * 1e9))
    # a free sensor is its own platform (set_transform moves it through the tick); an attached one is
    # mounted on its parent's
    static = bp.id.startswith("sensor.lidar.") and at["sensim_static_tick"].as_bool()
    plat = self._platform(s.parent if s.parent is not None else s, static and s)
    mount = _native(s._rel) if s.parent is not None else np.eye(4)
    s._plat, s._kind = plat, bp.id
    if bp.id in _USER:  # a sensor of the script's own: its measure function on the ticking thread
        fn, attrs = _USER[bp.id]
        typed = {k: (at[k].as_bool() if t == "bool" else at[k].as_int() if t == "int" else
                     at[k].as_float() if t == "float" else at[k].as_str()) for k, (t, _) in attrs.items()}
        s._user = (fn, typed)
    elif bp.id.startswith("sensor.lidar.") and bp.id not in _SENSORS:  # a sensim preset
        keys = ["points_frame=sensor", "lidar_id=%d" % (s.id % 65536)]
        if at["noise_seed"].as_int():
            keys.append("seed=%d" % at["noise_seed"].as_int())
        keys += [kv.strip() for kv in at["sensim_set"].as_str().split(";") if kv.strip()]
        lid = Lidar(self._ctx, bp.id[len("sensor.lidar."):], keys)
        lid.set_mount(mount)
        info = lid.info
        s._channels, s._rot_hz = info["channel_count"], info["frame_rate_hz"]
        s._ring_frames = max(4, lidar_frames(s, s._rot_hz, self._dt_ns))
        s._ring = Ring.for_lidar(lid, frames=s._ring_frames)
        plat.rig.add_lidar(lid, s._ring)
        s._lidar, s._delivered = lid, {}
        s._paused, s._skip, s._skip_ns = not at["sensim_whole_interval"].as_bool(), 0, 0
        s._lanes = info["channel_count"]
    elif bp.id.startswith("sensor.lidar."):
        semantic = bp.id.endswith("semantic")
        keys = ["points_frame=sensor"]
        for k in ("channels", "range", "points_per_second", "rotation_frequency", "upper_fov", "lower_fov",
                  "horizontal_fov"):
            keys.append("%s=%s" % (k, at[k].as_str()))
        if semantic:  # CARLA's semantic lidar: no drop-off, no noise, cos_inc_angle as intensity
            keys += ["intensity_model=cosine", "dropoff_model=none"]
        else:
            for k in ("atmosphere_attenuation_rate", "dropoff_general_rate", "dropoff_intensity_limit",
                      "dropoff_zero_intensity", "noise_stddev", "noise_seed"):
                keys.append("%s=%s" % (k, at[k].as_str()))
        fov = at["horizontal_fov"].as_float()
        if fov < 360:  # CARLA's sector: -fov/2 .. +fov/2 about forward, swept rotation_frequency times a second
            keys += ["start_azimuth_deg=%.17g" % (fov / 2), "sweep=sector"]
        else:  # CARLA's phase: a turn starts behind (-180 deg) when the sensor is spawned, whenever that
            # is, and sweeps to the right (clockwise: the head is at start - 360 deg x (t mod P) / P)
            p_ns = int(round(1e9 / at["rotation_frequency"].as_float()))
            keys += ["start_azimuth_deg=%.17g" % ((180.0 + 360.0 * (self._t_ns % p_ns) / p_ns) % 360.0)]
        keys.append("lidar_id=%d" % (s.id % 65536))
        lid = Lidar(self._ctx, "carla_default", keys)
        lid.set_mount(mount)
        # the frames a measurement spans (a tick, or sensor_tick), and two more: a 10 s tick of a 10 Hz
        # lidar is 102 frames, never a refused (empty) measurement; apply_settings refuses a longer delta
        rot = at["rotation_frequency"].as_float()
        s._ring_frames = max(4, lidar_frames(s, rot, self._dt_ns))
        ring = Ring.for_lidar(lid, frames=s._ring_frames)
        plat.rig.add_lidar(lid, ring)
        s._lidar, s._ring, s._delivered = lid, ring, {}
        s._channels, s._rot_hz = at["channels"].as_int(), at["rotation_frequency"].as_float()
        s._hfov, s._hangle = fov, 0.0  # CARLA's CurrentHorizontalAngle (degrees, float), 0 at spawn
        # CARLA's sensor_tick: a measurement is one world delta of shots, the sweep paused between
        # measurements and continuing where the last stopped (sensim_whole_interval: every shot since)
        s._paused, s._skip, s._skip_ns = not at["sensim_whole_interval"].as_bool(), 0, 0
        s._lanes = s._channels
    elif bp.id.startswith("sensor.camera."):
        cam = Camera(self._ctx, "carla_default", {"image_size_x": at["image_size_x"].as_str(),
                                                  "image_size_y": at["image_size_y"].as_str(),
                                                  "fov": at["fov"].as_str()})
        cam.set_mount(mount)  # the camera looks along the mount's +x, as CARLA's along the actor's x
        s._camera, s._fov = cam, at["fov"].as_float()
    elif bp.id == "sensor.other.imu":
        keys = {k: at[k].as_str() for k in at if k.startswith("noise_")}
        keys["seed"] = keys.pop("noise_seed")
        keys["gravity"] = "%.17g" % GRAVITY  # CARLA's 9.81 (sensim's default is standard gravity)
        s._nav_args = ("imu", keys)
        s._nav = nav(self, "imu", mount, keys)
    elif bp.id == "sensor.other.radar":
        s._radar_keys = {
            "model": "carla", "horizontal_fov": at["horizontal_fov"].as_str(),
            "vertical_fov": at["vertical_fov"].as_str(), "range": at["range"].as_str(),
            "points_per_second": at["points_per_second"].as_str(), "seed": at["noise_seed"].as_str()}
        s._radar_keys.update(kv.strip().split("=", 1) for kv in at["sensim_set"].as_str().split(";")
                             if "=" in kv)
        s._radar = radar(self, s, mount)
    elif bp.id == "sensor.other.gnss":
        keys = {"model": "carla"}
        for k, v in (("noise_lat_stddev", "noise_lat_stddev"), ("noise_lon_stddev", "noise_lon_stddev"),
                     ("noise_alt_stddev", "noise_alt_stddev"), ("noise_lat_bias", "noise_lat_bias"),
                     ("noise_lon_bias", "noise_lon_bias"), ("noise_alt_bias", "noise_alt_bias"),
                     ("noise_seed", "seed")):
            keys[v] = at[k].as_str()
        s._nav_args = ("gnss", keys)
        s._nav = nav(self, "gnss", mount, keys)
    elif bp.id == "sensor.other.obstacle":
        dist, rad = at["distance"].as_float(), at["hit_radius"].as_float()
        if not (0 < dist <= 1e4) or not (0 <= rad <= 100):
            raise RuntimeError("spawn_actor(sensor.other.obstacle): distance must be in (0, 1e4] m and "
                               "hit_radius in [0, 100] m, not %g and %g" % (dist, rad))
        s._obstacle = (dist, rad, at["only_dynamics"].as_bool())
    elif bp.id in ("sensor.other.collision", "sensor.other.lane_invasion"):  # sensim.carla._carla_events
        s._event = bp.id.rsplit(".", 1)[1]
    weather(self, s)
    self._sensors.append(s)

def lidar_frames(s, rot_hz, dt_ns):
    """Ring frames for measurements of max(tick, sensor_tick) and two partial frames."""
    return int(math.ceil(max(dt_ns, s._tick_ns) * 1e-9 * rot_hz)) + 2

def radar(self, s, mount):
    (x, y, z), (roll, pitch, yaw) = pose_to_frame("native", mount)
    k = dict(s._radar_keys)
    k.update({"rate_hz": "%.17g" % (1e9 / self._sample_ns), "interp": "causal",
              "mount_xyz_m": "%.17g,%.17g,%.17g" % (x, y, z), "mount_rpy_deg": "%.17g,%.17g,%.17g" % (
                  roll, pitch, yaw)})
    k["rain_rate"] = "%.17g" % _weather_for_sensors(self._weather)[1]
    return Radar(self._ctx, k, sensor_id=s.id)

def remount(self, s):
    """A sensor moved by set_transform: an attached one's mount from now on (a free one is its own
    platform, pushed each tick)."""
    s._mount_dirty = False
    if s.parent is None:
        return
    mount = _native(s._rel)
    if hasattr(s, "_lidar"):
        s._lidar.set_mount(mount)
    elif hasattr(s, "_camera"):
        s._camera.set_mount(mount)
    elif hasattr(s, "_nav"):
        s._nav = nav(self, s._nav_args[0], mount, s._nav_args[1])
    elif hasattr(s, "_radar"):
        s._radar = radar(self, s, mount)

def nav(self, kind, mount, keys):
    (x, y, z), (roll, pitch, yaw) = pose_to_frame("native", mount)
    k = dict(keys)
    k.update({"rate_hz": "%.17g" % (1e9 / self._sample_ns), "interp": "causal",
              "mount_xyz_m": "%.17g,%.17g,%.17g" % (x, y, z), "mount_rpy_deg": "%.17g,%.17g,%.17g" % (
                  roll, pitch, yaw)})
    return Nav(self._ctx, kind, k)


def weather(self, s):
    """The world's rain and fog on sensor @p s (lidars but the semantic one; radars)."""
    vis, rain = _weather_for_sensors(self._weather)
    if getattr(s, "_lidar", None) is not None and not s.type_id.endswith("semantic"):
        s._lidar.set_weather(vis, rain)
    elif getattr(s, "_radar", None) is not None:
        s._radar.set_weather(rain)
