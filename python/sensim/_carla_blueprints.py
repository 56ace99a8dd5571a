"""sensim.carla's blueprints: CARLA 0.9.15's sensor, vehicle and walker catalogue with its attribute
names, types and defaults."""
import fnmatch
import math


class ActorAttributeType:
    Bool, Int, Float, String, RGBColor = "bool", "int", "float", "str", "color"


class ActorAttribute:
    def __init__(self, id, type, value, recommended_values=(), is_modifiable=True):
        self.id, self.type, self._value = id, type, str(value)
        self.recommended_values, self.is_modifiable = list(recommended_values), is_modifiable

    def as_bool(self):
        return self._value.lower() in ("true", "1")

    def as_int(self):
        return int(float(self._value))

    def as_float(self):
        return float(self._value)

    def as_str(self):
        return self._value

    def __str__(self):
        return self._value

    def __eq__(self, o):
        return str(o) == self._value if not isinstance(o, bool) else o == self.as_bool()

    __hash__ = None

    def __repr__(self):
        return "ActorAttribute(id=%s, type=%s, value=%s)" % (self.id, self.type, self._value)


_I, _F, _S_, _B = "int", "float", "str", "bool"
_CAMERA = {"image_size_x": (_I, 800), "image_size_y": (_I, 600), "fov": (_F, 90.0), "sensor_tick": (_F, 0.0),
           "lens_circle_falloff": (_F, 5.0), "lens_circle_multiplier": (_F, 0.0), "lens_k": (_F, -1.0),
           "lens_kcube": (_F, 0.0), "lens_x_size": (_F, 0.08), "lens_y_size": (_F, 0.08)}
_LIDAR = {"channels": (_I, 32), "range": (_F, 10.0), "points_per_second": (_I, 56000),
          "rotation_frequency": (_F, 10.0), "upper_fov": (_F, 10.0), "lower_fov": (_F, -30.0),
          "horizontal_fov": (_F, 360.0), "atmosphere_attenuation_rate": (_F, 0.004),
          "dropoff_general_rate": (_F, 0.45), "dropoff_intensity_limit": (_F, 0.8),
          "dropoff_zero_intensity": (_F, 0.4), "sensor_tick": (_F, 0.0), "noise_stddev": (_F, 0.0),
          "noise_seed": (_I, 0),
          # sensim's own: true casts a tick's shots from the sensor's pose at the tick's end, CARLA's static
          # picture (false: each shot from the pose at its own time, as a spinning lidar on a moving car sees)
          "sensim_static_tick": (_B, False)}
_IMU = {"noise_accel_stddev_x": (_F, 0.0), "noise_accel_stddev_y": (_F, 0.0), "noise_accel_stddev_z": (_F, 0.0),
        "noise_gyro_bias_x": (_F, 0.0), "noise_gyro_bias_y": (_F, 0.0), "noise_gyro_bias_z": (_F, 0.0),
        "noise_gyro_stddev_x": (_F, 0.0), "noise_gyro_stddev_y": (_F, 0.0), "noise_gyro_stddev_z": (_F, 0.0),
        "noise_seed": (_I, 0), "sensor_tick": (_F, 0.0)}
_GNSS = {"noise_alt_bias": (_F, 0.0), "noise_alt_stddev": (_F, 0.0), "noise_lat_bias": (_F, 0.0),
         "noise_lat_stddev": (_F, 0.0), "noise_lon_bias": (_F, 0.0), "noise_lon_stddev": (_F, 0.0),
         "noise_seed": (_I, 0), "sensor_tick": (_F, 0.0)}
_RADAR = {"horizontal_fov": (_F, 30.0), "vertical_fov": (_F, 30.0), "range": (_F, 100.0),
          "points_per_second": (_I, 1500), "noise_seed": (_I, 0), "sensor_tick": (_F, 0.0)}
# CARLA's ObstacleDetectionSensor: a sphere of hit_radius swept distance metres along the sensor's x
_OBSTACLE = {"distance": (_F, 5.0), "hit_radius": (_F, 0.5), "only_dynamics": (_B, False),
             "debug_linetrace": (_B, False), "sensor_tick": (_F, 0.0)}
_COMMON = {"role_name": (_S_, "")}
_SENSORS = {
    "sensor.lidar.ray_cast": _LIDAR,
    "sensor.lidar.ray_cast_semantic": {k: v for k, v in _LIDAR.items() if not k.startswith(("dropoff", "noise",
                                                                                            "atmosphere"))},
    "sensor.camera.rgb": _CAMERA,
    "sensor.camera.depth": {k: _CAMERA[k] for k in ("image_size_x", "image_size_y", "fov", "sensor_tick")},
    "sensor.camera.semantic_segmentation": {k: _CAMERA[k] for k in ("image_size_x", "image_size_y", "fov",
                                                                    "sensor_tick")},
    "sensor.other.imu": _IMU,
    "sensor.other.gnss": _GNSS,
    "sensor.other.radar": _RADAR,
    "sensor.other.obstacle": _OBSTACLE,
    "sensor.camera.instance_segmentation": {k: _CAMERA[k] for k in ("image_size_x", "image_size_y", "fov",
                                                                    "sensor_tick")},
}
# Not offered yet (blueprints exist so filter() finds them; spawning says why)
_LATER = ("sensor.other.collision", "sensor.other.lane_invasion",
          "sensor.camera.optical_flow", "sensor.camera.dvs", "sensor.camera.normals")
# Vehicles and walkers: bounding-box extents (half sizes, m) of CARLA 0.9.15's models (their bounding_box)
_VEHICLES = {
    "vehicle.tesla.model3": (2.3958, 1.0829, 0.7444), "vehicle.lincoln.mkz_2020": (2.4508, 1.0641, 0.7553),
    "vehicle.audi.a2": (1.8527, 0.8974, 0.7708), "vehicle.toyota.prius": (2.2567, 1.0120, 0.7624),
    "vehicle.nissan.patrol": (2.3022, 0.9577, 0.9276), "vehicle.carlamotors.carlacola": (2.6029, 1.3094, 1.2829),
    "vehicle.mercedes.coupe_2020": (2.5130, 1.0708, 0.7512),
}
_WALKERS = {"walker.pedestrian.0001": (0.1876, 0.1876, 0.9375), "walker.pedestrian.0002": (0.1876, 0.1876, 0.9375)}


class ActorBlueprint:
    def __init__(self, id, attrs, tags):
        self.id, self.tags = id, list(tags)
        self._attrs = {k: ActorAttribute(k, t, v) for k, (t, v) in attrs.items()}

    def has_attribute(self, id):
        return id in self._attrs

    def _copy(self):
        c = ActorBlueprint.__new__(ActorBlueprint)
        c.id, c.tags = self.id, list(self.tags)
        c._attrs = {k: ActorAttribute(a.id, a.type, a._value, a.recommended_values, a.is_modifiable)
                    for k, a in self._attrs.items()}
        return c

    def get_attribute(self, id):
        if id not in self._attrs:
            raise IndexError("blueprint %s has no attribute '%s'" % (self.id, id))
        return self._attrs[id]

    def set_attribute(self, id, value):
        if id not in self._attrs:
            why = (" (CARLA's post-processing and exposure attributes change only how the engine renders; "
                   "sensim.carla renders none of it and does not offer them)" if self.id.startswith("sensor.camera")
                   else "")
            raise IndexError("blueprint %s has no attribute '%s'%s" % (self.id, id, why))
        a = self._attrs[id]
        v = str(value)
        try:
            if a.type in (_I, _F):
                x = float(v)
                # finite numbers only ("inf" raised OverflowError at spawn, "nan" slipped through), and
                # integers that are integers (CARLA's int attributes refuse "2.5" too)
                if not math.isfinite(x) or (a.type == _I and x != int(x)):
                    raise ValueError(v)
                if id == "sensor_tick" and x < 0:
                    raise ValueError(v)
        except ValueError:
            raise ValueError("%s.%s takes a finite %s%s, not %r" % (self.id, id, a.type,
                             " >= 0" if id == "sensor_tick" else "", value)) from None
        a._value = v

    def has_tag(self, tag):
        return tag in self.tags

    def match_tags(self, wildcard):
        return any(fnmatch.fnmatch(t, wildcard) for t in self.tags) or fnmatch.fnmatch(self.id, wildcard)

    def __iter__(self):
        return iter(self._attrs.values())

    def __len__(self):
        return len(self._attrs)

    def __repr__(self):
        return "ActorBlueprint(id=%s, tags=%s)" % (self.id, self.tags)


class BlueprintLibrary:
    def __init__(self, blueprints):
        self._bps = list(blueprints)

    def find(self, id):
        """A copy, as CARLA's: attributes set on it never reach the next find() of the same id."""
        for bp in self._bps:
            if bp.id == id:
                return bp._copy()
        raise IndexError("blueprint '%s' not found" % id)

    def filter(self, wildcard):
        return BlueprintLibrary(bp for bp in self._bps if fnmatch.fnmatch(bp.id, wildcard)
                                or any(fnmatch.fnmatch(t, wildcard) for t in bp.tags))

    def filter_by_attribute(self, name, value):
        return BlueprintLibrary(bp for bp in self._bps if bp.has_attribute(name)
                                and str(bp.get_attribute(name)) == str(value))

    def __iter__(self):
        return iter([bp._copy() for bp in self._bps])

    def __len__(self):
        return len(self._bps)

    def __getitem__(self, i):
        return self._bps[i]._copy()


# sensim's presets as lidar blueprints: sensor.lidar.<preset> (vlp16, pandar64, os1_64, mid40, ...)
_PRESET_LIDAR = {"sensor_tick": (_F, 0.0), "sensim_static_tick": (_B, False), "noise_seed": (_I, 0),
                 # preset overrides, "key=value;key=value" (scan_patterns/README.md), e.g. "max_range_m=80"
                 "sensim_set": (_S_, "")}
# sensors a script registered (register_sensor): id -> (measure function, attributes)
_USER = {}


def preset_lidar_ids():
    """sensor.lidar.<name> for every preset on the search path (sensim.preset_search_dirs)."""
    import os
    from . import preset_search_dirs
    names = set()
    for d in preset_search_dirs():
        try:
            entries = os.listdir(d)
        except OSError:
            continue
        for e in entries:
            n = e[:-len(".preset")]
            if e.endswith(".preset") and n and all(c.isalnum() or c == "_" for c in n) and n.islower():
                names.add("sensor.lidar." + n)
    return sorted(names - set(_SENSORS))


def register_sensor(id, measure, attributes=None):
    """Register a sensor of your own as a blueprint (CARLA's "register, spawn on a parent, listen"):
    ``id`` ("sensor.<kind>.<name>", not one of CARLA's), ``measure(sensor, frame, timestamp, transform,
    attributes)`` called on the ticking thread when the sensor is due (its sensor_tick) and listened to,
    returning the measurement its callback receives (a carla.SensorData or any object) or None (nothing this
    tick), and ``attributes`` {name: default} (types from the defaults: bool, int, float or str; sensor_tick
    and role_name are added). ``attributes`` reaches ``measure`` as a dict of typed values; ``sensor`` is
    the spawned carla.Sensor (its parent, get_transform, get_world())."""
    if not isinstance(id, str) or not id.startswith("sensor.") or id.count(".") < 2 or id in _SENSORS or \
            id in _LATER or id.startswith("sensor.lidar."):
        raise ValueError("register_sensor: id must be 'sensor.<kind>.<name>' and not one of CARLA's or sensim's "
                         "lidars, not %r" % (id,))
    if not callable(measure):
        raise TypeError("register_sensor: measure must be callable")
    attrs = {"sensor_tick": (_F, 0.0)}
    for k, v in (attributes or {}).items():
        t = _B if isinstance(v, bool) else _I if isinstance(v, int) else _F if isinstance(v, float) else \
            _S_ if isinstance(v, str) else None
        if t is None or not isinstance(k, str):
            raise TypeError("register_sensor: attribute %r's default must be bool, int, float or str" % (k,))
        attrs[k] = (t, v)
    _USER[id] = (measure, attrs)


def _library():
    bps = []
    for name, attrs in (list(_SENSORS.items()) + [(n, {}) for n in _LATER] +
                        [(n, _PRESET_LIDAR) for n in preset_lidar_ids()] +
                        [(n, a) for n, (_, a) in _USER.items()]):
        a = dict(_COMMON)
        a.update(attrs)
        bps.append(ActorBlueprint(name, a, name.split(".")))
    for name in _VEHICLES:
        a = dict(_COMMON)
        a.update({"number_of_wheels": (_I, 4), "color": (_S_, "0,0,0"), "generation": (_I, 2)})
        bps.append(ActorBlueprint(name, a, name.split(".")))
    for name in _WALKERS:
        a = dict(_COMMON)
        a.update({"is_invincible": (_B, "true"), "speed": (_F, 1.4), "generation": (_I, 2)})
        bps.append(ActorBlueprint(name, a, name.split(".")))
    return BlueprintLibrary(bps)
