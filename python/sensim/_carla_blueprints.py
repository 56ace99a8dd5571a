"""sensim.carla's blueprints: CARLA 0.9.15's sensor, vehicle and walker catalogue with its attribute
names, types and defaults.

Blueprints and attributes offered (CARLA's names, types and defaults; anything else raises by name):
  sensor.lidar.ray_cast        channels 32, range 10, points_per_second 56000, rotation_frequency 10,
                               upper_fov 10, lower_fov -30, horizontal_fov 360, atmosphere_attenuation_rate
                               0.004, dropoff_general_rate 0.45, dropoff_intensity_limit 0.8,
                               dropoff_zero_intensity 0.4, noise_stddev 0, noise_seed 0, sensor_tick 0
  sensor.lidar.ray_cast_semantic  the geometry attributes of the above (no drop-off, no noise)
  sensor.camera.rgb            image_size_x 800, image_size_y 600, fov 90, sensor_tick 0, lens_* (accepted,
                               no lens model); CARLA's post-processing, exposure, depth-of-field, motion-blur
                               and tone-mapping attributes with its defaults (accepted and kept, not rendered)
  sensor.camera.depth, .semantic_segmentation, .instance_segmentation   image_size_x/y, fov, sensor_tick
  sensor.other.imu             noise_accel_stddev_x/y/z, noise_gyro_stddev_x/y/z, noise_gyro_bias_x/y/z,
                               noise_seed, sensor_tick (all 0)
  sensor.other.gnss            noise_lat/lon/alt_stddev, noise_lat/lon/alt_bias, noise_seed, sensor_tick (0)
  sensor.other.radar           horizontal_fov 30, vertical_fov 30, range 100, points_per_second 1500,
                               noise_seed 0, sensor_tick 0, sensim_set ("model=physical;snr_ref_db=20": radar
                               keys of sensim/radar.h over CARLA's model)
  sensor.other.obstacle        distance 5, hit_radius 0.5, only_dynamics false, debug_linetrace (accepted,
                               nothing drawn), sensor_tick 0: an event on each tick something is met
  vehicle.* (7 models), walker.pedestrian.0001/0002: kinematic boxes of the models' sizes
  sensor.lidar.<preset>        every sensim preset (vlp16, pandar64, os1_64, mid40, ...; filter("sensor.lidar.*")
                               lists them): sensor_tick, sensim_static_tick, noise_seed, sensim_set ("key=value;..."
                               preset overrides); LidarMeasurement in CARLA's layout
  register_sensor(id, measure, attributes)   a sensor of your own as a blueprint, spawned and listened to
                               like any other (measure runs on the ticking thread when the sensor is due)
sensor_tick: any value >= 0 (CARLA's cadence, above). Lidars also take ``sensim_static_tick`` (above).
  sensor.other.collision, sensor.other.lane_invasion   sensor_tick (sensim.carla._carla_events)
  controller.ai.walker         attached to a walker: start, go_to_location, set_max_speed, stop (_carla_walkers)
Not offered (their blueprints carry CARLA's attributes; spawning raises): optical flow, DVS and normals cameras.
"""
import difflib
import fnmatch
import math
import re
import struct


class ActorAttributeType:
    Bool, Int, Float, String, RGBColor = "bool", "int", "float", "str", "color"


def _atoi(s):
    """C's atoi (CARLA's As<int> and the engine's FCString::Atoi): leading blanks, a sign, the digits that
    follow; nothing more is read ("106.67" -> 106, "64abc" -> 64). None where no digit is read (atoi: 0)."""
    m = re.match(r"[ \t\n\v\f\r]*([+-]?[0-9]+)", s)
    if not m:
        return None
    v = int(m.group(1))
    return max(-2 ** 31, min(2 ** 31 - 1, v))  # glibc's atoi goes through strtol: int32 on overflow wraps there


_FLOAT = re.compile(r"[ \t\n\v\f\r]*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
                    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan))", re.I)


def _atof(s):
    """C's atof (CARLA's As<float>): the longest number at the start, blanks before it skipped, the rest
    ignored ("2.5abc" -> 2.5, "1e3" -> 1000, "inf", "nan"). None where no number is read (atof: 0.0)."""
    m = _FLOAT.match(s)
    if not m:
        return None
    t = m.group(1)
    if "x" in t.lower():
        neg = t.startswith("-")
        t = t.lstrip("+-")
        if "p" not in t.lower():
            t += "p0"
        v = float.fromhex(t)
        return -v if neg else v
    # float() spells nan/inf as C does; an exponent without digits ("1e") is not part of the number in C
    return float(t)


_FLT_MAX = 3.4028234663852886e38


class Color:
    """CARLA's carla.Color (r, g, b, a; a = 255), as ActorAttribute.as_color returns it."""

    def __init__(self, r=0, g=0, b=0, a=255):
        self.r, self.g, self.b, self.a = int(r), int(g), int(b), int(a)

    def __eq__(self, o):
        return isinstance(o, Color) and (self.r, self.g, self.b, self.a) == (o.r, o.g, o.b, o.a)

    def __ne__(self, o):
        return not self == o

    __hash__ = None

    def __str__(self):
        return "Color(%d,%d,%d,%d)" % (self.r, self.g, self.b, self.a)

    __repr__ = __str__


_CAST_NAME = {"bool": "Bool", "int": "Int", "float": "Float", "str": "String", "color": "RGBColor"}


class ActorAttribute:
    """CARLA 0.9.15's carla.ActorAttribute (LibCarla client/ActorAttribute.h/.cpp, PythonAPI libcarla
    Blueprint.cpp): the value is kept as the text set; as_int reads it as C's atoi, as_float as atof,
    as_bool "true"/"false" in any case; int(), float(), bool() are as_int, as_float, as_bool and, as in
    CARLA, raise RuntimeError ("bad attribute cast") on an attribute of another type. ``==`` as CARLA's
    binding resolves it: another ActorAttribute compares type and text, a str the value of a str attribute,
    a number (int, float or bool) the value of a float attribute; on any other type CARLA's cast fails and
    so does this one (compare int(attr) == 4, as CARLA's examples do)."""

    def __init__(self, id, type, value, recommended_values=(), is_modifiable=True):
        self.id, self.type, self._value = id, type, str(value).lower() if type == "bool" else str(value)
        self.recommended_values, self.is_modifiable = list(recommended_values), is_modifiable

    def _cast(self, t):
        if self.type != t:
            raise RuntimeError("%s: bad attribute cast: cannot convert to %s" % (self.id, _CAST_NAME[t]))

    def as_bool(self):
        self._cast("bool")
        v = self._value.lower()
        if v not in ("true", "false"):
            raise ValueError("%s: invalid bool: %s" % (self.id, self._value))
        return v == "true"

    def as_int(self):
        self._cast("int")
        v = _atoi(self._value)
        return 0 if v is None else v

    def as_float(self):
        # CARLA returns a C float (rounded to 32 bits); here the double atof reads (see docs/carla.md)
        self._cast("float")
        v = _atof(self._value)
        return 0.0 if v is None else v

    def as_str(self):
        """The value as text. CARLA raises on an attribute that is not a str; sensim.carla gives the
        number as read (an int attribute set to "106.67" reads "106") so the sensor is built from what
        CARLA's engine would read (FCString::Atoi / Atof in ActorBlueprintFunctionLibrary.cpp)."""
        if self.type == "int":
            return str(self.as_int())
        if self.type == "float":
            return repr(self.as_float())
        return self._value

    def as_color(self):
        self._cast("color")
        ch = self._value.split(",")
        if len(ch) != 3:
            raise ValueError("%s: colors must have 3 channels (R,G,B)" % self.id)
        c = [(_atoi(x) or 0) for x in ch]
        if any(x > 255 for x in c):
            raise ValueError("%s: integer overflow in color channel" % self.id)
        return Color(*[x & 255 for x in c])

    __int__, __float__, __bool__ = as_int, as_float, as_bool

    def __str__(self):
        # CARLA's print shows ActorAttribute(id=...,type=...,value=...) (repr here); str() is the value text,
        # as Actor.attributes carries it
        return self._value

    def __eq__(self, o):
        if isinstance(o, ActorAttribute):
            return self.type == o.type and self._value == o._value
        if isinstance(o, Color):
            return self.as_color() == o
        if isinstance(o, str):
            self._cast("str")
            return self._value == o
        if isinstance(o, (bool, int, float)):
            self._cast("float")
            return _f32(self.as_float()) == _f32(float(o))  # CARLA compares C floats
        return NotImplemented

    def __ne__(self, o):
        r = self.__eq__(o)
        return r if r is NotImplemented else not r

    __hash__ = None

    def __repr__(self):
        t = {"bool": "bool", "int": "int", "float": "float", "str": "str", "color": "Color"}[self.type]
        try:
            v = ("True" if self.as_bool() else "False") if self.type == "bool" else \
                self.as_int() if self.type == "int" else "%g" % _f32(self.as_float()) if self.type == "float" \
                else self.as_color() if self.type == "color" else self._value
        except ValueError:
            v = self._value
        return "ActorAttribute(id=%s,type=%s,value=%s%s)" % (self.id, t, v, "" if self.is_modifiable else "(const)")


def _f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0] if abs(x) <= _FLT_MAX else x


_I, _F, _S_, _B = "int", "float", "str", "bool"
_CAMERA = {"image_size_x": (_I, 800), "image_size_y": (_I, 600), "fov": (_F, 90.0), "sensor_tick": (_F, 0.0),
           "lens_circle_falloff": (_F, 5.0), "lens_circle_multiplier": (_F, 0.0), "lens_k": (_F, -1.0),
           "lens_kcube": (_F, 0.0), "lens_x_size": (_F, 0.08), "lens_y_size": (_F, 0.08)}
# the RGB camera's rendering attributes (CARLA 0.9.15's Docs/ref_sensors.md, their defaults): accepted and
# kept for the scripts that set them (manual_control.py's "distorted" camera sets chromatic aberration);
# sensim's camera renders none of them (post-processing, exposure, depth of field, motion blur, tone mapping)
_RGB_RENDERING = {
    "bloom_intensity": (_F, 0.675), "fstop": (_F, 1.4), "iso": (_F, 100.0), "gamma": (_F, 2.2),
    "lens_flare_intensity": (_F, 0.1), "shutter_speed": (_F, 200.0), "enable_postprocess_effects": (_B, True),
    "min_fstop": (_F, 1.2), "blade_count": (_I, 5), "exposure_mode": (_S_, "histogram"),
    "exposure_compensation": (_F, 0.0), "exposure_min_bright": (_F, 10.0), "exposure_max_bright": (_F, 12.0),
    "exposure_speed_up": (_F, 3.0), "exposure_speed_down": (_F, 1.0), "calibration_constant": (_F, 16.0),
    "focal_distance": (_F, 1000.0), "blur_amount": (_F, 1.0), "blur_radius": (_F, 0.0),
    "motion_blur_intensity": (_F, 0.45), "motion_blur_max_distortion": (_F, 0.35),
    "motion_blur_min_object_screen_size": (_F, 0.1), "slope": (_F, 0.88), "toe": (_F, 0.55),
    "shoulder": (_F, 0.26), "black_clip": (_F, 0.0), "white_clip": (_F, 0.04), "temp": (_F, 6500.0),
    "tint": (_F, 0.0), "chromatic_aberration_intensity": (_F, 0.0), "chromatic_aberration_offset": (_F, 0.0)}
# the DVS camera's own (ref_sensors.md); optical flow and normals take the camera's basic attributes
_DVS = {"positive_threshold": (_F, 0.3), "negative_threshold": (_F, 0.3), "sigma_positive_threshold": (_F, 0.0),
        "sigma_negative_threshold": (_F, 0.0), "refractory_period_ns": (_I, 0), "use_log": (_B, True),
        "log_eps": (_F, 0.001)}
_LIDAR = {"channels": (_I, 32), "range": (_F, 10.0), "points_per_second": (_I, 56000),
          "rotation_frequency": (_F, 10.0), "upper_fov": (_F, 10.0), "lower_fov": (_F, -30.0),
          "horizontal_fov": (_F, 360.0), "atmosphere_attenuation_rate": (_F, 0.004),
          "dropoff_general_rate": (_F, 0.45), "dropoff_intensity_limit": (_F, 0.8),
          "dropoff_zero_intensity": (_F, 0.4), "sensor_tick": (_F, 0.0), "noise_stddev": (_F, 0.0),
          "noise_seed": (_I, 0),
          # sensim's own: true casts a tick's shots from the sensor's pose at the tick's end, CARLA's static
          # picture (false: each shot from the pose at its own time, as a spinning lidar on a moving car sees)
          "sensim_static_tick": (_B, False),
          # sensim's own: true makes a measurement hold every shot since the last one (the whole sensor_tick
          # interval, as a real spinning lidar fires); false, CARLA's rule: one world delta of shots, the sweep
          # continuing where the last measurement stopped
          "sensim_whole_interval": (_B, False)}
_IMU = {"noise_accel_stddev_x": (_F, 0.0), "noise_accel_stddev_y": (_F, 0.0), "noise_accel_stddev_z": (_F, 0.0),
        "noise_gyro_bias_x": (_F, 0.0), "noise_gyro_bias_y": (_F, 0.0), "noise_gyro_bias_z": (_F, 0.0),
        "noise_gyro_stddev_x": (_F, 0.0), "noise_gyro_stddev_y": (_F, 0.0), "noise_gyro_stddev_z": (_F, 0.0),
        "noise_seed": (_I, 0), "sensor_tick": (_F, 0.0)}
_GNSS = {"noise_alt_bias": (_F, 0.0), "noise_alt_stddev": (_F, 0.0), "noise_lat_bias": (_F, 0.0),
         "noise_lat_stddev": (_F, 0.0), "noise_lon_bias": (_F, 0.0), "noise_lon_stddev": (_F, 0.0),
         "noise_seed": (_I, 0), "sensor_tick": (_F, 0.0)}
_RADAR = {"horizontal_fov": (_F, 30.0), "vertical_fov": (_F, 30.0), "range": (_F, 100.0),
          "points_per_second": (_I, 1500), "noise_seed": (_I, 0), "sensor_tick": (_F, 0.0),
          # sensim's radar keys over CARLA's model, "key=value;..." (sensim/radar.h), e.g. "model=physical"
          "sensim_set": (_S_, "")}
# CARLA's ObstacleDetectionSensor: a sphere of hit_radius swept distance metres along the sensor's x
_OBSTACLE = {"distance": (_F, 5.0), "hit_radius": (_F, 0.5), "only_dynamics": (_B, False),
             "debug_linetrace": (_B, False), "sensor_tick": (_F, 0.0)}
_SENSORS = {
    "sensor.lidar.ray_cast": _LIDAR,
    "sensor.lidar.ray_cast_semantic": {k: v for k, v in _LIDAR.items() if not k.startswith(("dropoff", "noise",
                                                                                            "atmosphere"))},
    "sensor.camera.rgb": dict(_CAMERA, **_RGB_RENDERING),
    "sensor.camera.depth": {k: _CAMERA[k] for k in ("image_size_x", "image_size_y", "fov", "sensor_tick")},
    "sensor.camera.semantic_segmentation": {k: _CAMERA[k] for k in ("image_size_x", "image_size_y", "fov",
                                                                    "sensor_tick")},
    "sensor.other.imu": _IMU,
    "sensor.other.gnss": _GNSS,
    "sensor.other.radar": _RADAR,
    "sensor.other.obstacle": _OBSTACLE,
    "sensor.other.collision": {"sensor_tick": (_F, 0.0)},
    "sensor.other.lane_invasion": {"sensor_tick": (_F, 0.0)},
    "sensor.camera.instance_segmentation": {k: _CAMERA[k] for k in ("image_size_x", "image_size_y", "fov",
                                                                    "sensor_tick")},
}
# Not offered yet (blueprints exist so filter() finds them; spawning says why)
_LATER = ("sensor.camera.optical_flow", "sensor.camera.dvs", "sensor.camera.normals")
_CONTROLLERS = ("controller.ai.walker",)  # attached to a walker (sensim.carla._carla_walkers)
# role_name's recommended values (ActorBlueprintFunctionLibrary.cpp: FillIdAndTags gives every actor
# ["default"], AddRecommendedValuesForSensorRoleNames cameras, lidars and the obstacle detector the mount
# names, MakeVehicleDefinition / MakePedestrianDefinition their own); a modifiable attribute's value is its
# first recommended value
_ROLE_DEFAULT = ["default"]
_ROLE_SENSOR = ["front", "back", "left", "right", "front_left", "front_right", "back_left", "back_right"]
_ROLE_VEHICLE = ["autopilot", "scenario", "ego_vehicle"]
_ROLE_WALKER = ["pedestrian"]
# Vehicles and walkers: bounding-box extents (half sizes, m) of CARLA 0.9.15's models (their bounding_box)
_VEHICLES = {
    "vehicle.tesla.model3": (2.3958, 1.0829, 0.7444), "vehicle.lincoln.mkz_2020": (2.4508, 1.0641, 0.7553),
    "vehicle.audi.a2": (1.8527, 0.8974, 0.7708), "vehicle.toyota.prius": (2.2567, 1.0120, 0.7624),
    "vehicle.nissan.patrol": (2.3022, 0.9577, 0.9276), "vehicle.carlamotors.carlacola": (2.6029, 1.3094, 1.2829),
    "vehicle.mercedes.coupe_2020": (2.5130, 1.0708, 0.7512),
}
# the rest of CARLA 0.9.15's vehicle catalogue (Docs/catalogue_vehicles.md); extents are half the sizes a
# CARLA 0.9.15 server reported for their bounding boxes (a public snapshot of its blueprint library)
_VEHICLES.update({
    "vehicle.audi.etron": (2.4279, 1.0164, 0.8247), "vehicle.audi.tt": (2.0906, 0.9971, 0.6926),
    "vehicle.bh.crossbike": (0.7547, 0.4330, 0.8062), "vehicle.bmw.grandtourer": (2.3055, 1.1209, 0.8336),
    "vehicle.carlamotors.european_hgv": (3.9679, 1.4455, 1.7310),
    "vehicle.carlamotors.firetruck": (4.2340, 1.4455, 1.9137), "vehicle.chevrolet.impala": (2.6787, 1.0166, 0.7053),
    "vehicle.citroen.c3": (1.9938, 0.9254, 0.8086), "vehicle.diamondback.century": (0.8281, 0.2912, 0.8099),
    "vehicle.dodge.charger_2020": (2.5039, 0.9408, 0.7674), "vehicle.dodge.charger_police": (2.4871, 1.0192, 0.7711),
    "vehicle.dodge.charger_police_2020": (2.6188, 0.9649, 0.8192), "vehicle.ford.ambulance": (3.1828, 1.1756, 1.2157),
    "vehicle.ford.crown": (2.6828, 0.9004, 0.7875), "vehicle.ford.mustang": (2.3588, 0.9474, 0.6505),
    "vehicle.gazelle.omafiets": (0.9217, 0.3295, 0.8879), "vehicle.harley-davidson.low_rider": (1.1751, 0.3831, 0.8247),
    "vehicle.jeep.wrangler_rubicon": (1.9331, 0.9526, 0.9390), "vehicle.kawasaki.ninja": (1.0218, 0.3985, 0.7616),
    "vehicle.lincoln.mkz_2017": (2.4508, 1.0642, 0.7554), "vehicle.mercedes.coupe": (2.5134, 1.0758, 0.8253),
    "vehicle.mercedes.sprinter": (2.9576, 0.9942, 1.2803), "vehicle.micro.microlino": (1.1036, 0.7405, 0.6880),
    "vehicle.mini.cooper_s": (1.9029, 0.9851, 0.7375), "vehicle.mini.cooper_s_2021": (2.2763, 1.0485, 0.8836),
    "vehicle.mitsubishi.fusorosa": (5.1363, 1.9721, 2.1264), "vehicle.nissan.micra": (1.8167, 0.9226, 0.7506),
    "vehicle.nissan.patrol_2021": (2.7829, 1.0750, 1.0226), "vehicle.seat.leon": (2.0964, 0.9081, 0.7369),
    "vehicle.tesla.cybertruck": (3.1368, 1.1948, 1.0491), "vehicle.vespa.zx125": (0.9086, 0.4330, 0.7950),
    "vehicle.volkswagen.t2": (2.2402, 1.0347, 1.0189), "vehicle.volkswagen.t2_2021": (2.2211, 0.8873, 0.9936),
    "vehicle.yamaha.yzf": (1.0954, 0.4330, 0.7652),
})
# generation 2 (Docs/catalogue_vehicles.md's list; the European HGV, newer than that page, too)
_GEN2 = {"vehicle.dodge.charger_police_2020", "vehicle.mercedes.coupe_2020", "vehicle.lincoln.mkz_2020",
         "vehicle.mini.cooper_s_2021", "vehicle.ford.ambulance", "vehicle.dodge.charger_2020", "vehicle.ford.crown",
         "vehicle.nissan.patrol_2021", "vehicle.mercedes.sprinter", "vehicle.volkswagen.t2_2021",
         "vehicle.tesla.cybertruck", "vehicle.carlamotors.firetruck", "vehicle.mitsubishi.fusorosa",
         "vehicle.carlamotors.european_hgv"}
_BASE_TYPE = {"vehicle.carlamotors.carlacola": "truck", "vehicle.carlamotors.european_hgv": "truck",
              "vehicle.carlamotors.firetruck": "truck", "vehicle.tesla.cybertruck": "truck",
              "vehicle.ford.ambulance": "van", "vehicle.mercedes.sprinter": "van", "vehicle.volkswagen.t2": "van",
              "vehicle.volkswagen.t2_2021": "van", "vehicle.mitsubishi.fusorosa": "bus",
              "vehicle.yamaha.yzf": "motorcycle", "vehicle.harley-davidson.low_rider": "motorcycle",
              "vehicle.vespa.zx125": "motorcycle", "vehicle.kawasaki.ninja": "motorcycle",
              "vehicle.diamondback.century": "bicycle", "vehicle.gazelle.omafiets": "bicycle",
              "vehicle.bh.crossbike": "bicycle"}  # the rest: "car"
_SPECIAL_TYPE = {"vehicle.ford.ambulance": "emergency", "vehicle.carlamotors.firetruck": "emergency",
                 "vehicle.dodge.charger_police": "emergency", "vehicle.dodge.charger_police_2020": "emergency",
                 "vehicle.ford.crown": "taxi", "vehicle.tesla.model3": "electric",
                 "vehicle.tesla.cybertruck": "electric", "vehicle.audi.etron": "electric"}  # the rest: ""
# the paint a vehicle offers (its color attribute's recommended values, "R,G,B"); emergency vehicles and the
# taxi have their livery and no color attribute, as in CARLA
_COLORS = ["255,255,255", "0,0,0", "140,0,0", "17,37,103", "15,11,44", "60,60,60", "120,120,120", "200,200,200",
           "0,70,40", "190,150,20", "200,90,0", "90,20,60"]
_WALKER_HALF = (0.1877, 0.1877, 0.93)
_CHILD_SMALL, _CHILD = (0.25, 0.25, 0.55), (0.1877, 0.1877, 0.65)  # 1.1 m and 1.3 m tall
_WALKERS = {"walker.pedestrian.%04d" % i: (_CHILD_SMALL if i in (9, 10, 11, 48, 49) else
                                           _CHILD if i in (12, 13, 14) else _WALKER_HALF) for i in range(1, 52)}
_WALKERS.update({"walker.pedestrian.0001": (0.1876, 0.1876, 0.9375),
                 "walker.pedestrian.0002": (0.1876, 0.1876, 0.9375)})
_WALKER_SPEEDS = ["1.4", "2.8"]  # walking, running (m/s): CARLA's walkers' speed recommended values


def _vehicle_attrs(name):
    """CARLA 0.9.15's MakeVehicleDefinition: (type, value, recommended values, modifiable) per attribute."""
    gen2 = name in _GEN2
    base = _BASE_TYPE.get(name, "car")
    special = _SPECIAL_TYPE.get(name, "")
    a = {"role_name": (_S_, None, _ROLE_VEHICLE, True),
         "sticky_control": (_B, None, ["true"], True),
         "terramechanics": (_B, None, ["false"], True),
         "object_type": (_S_, "", (), False),
         "base_type": (_S_, base, (), False),
         "special_type": (_S_, special, (), False),
         "number_of_wheels": (_I, 2 if base in ("motorcycle", "bicycle") else 4, (), False),
         "generation": (_I, 2 if gen2 else 1, (), False),
         "has_dynamic_doors": (_B, "true" if gen2 and base in ("car", "van") else "false", (), False),
         "has_lights": (_B, "true" if gen2 or name == "vehicle.tesla.model3" else "false", (), False)}
    if special not in ("emergency", "taxi"):
        a["color"] = ("color", None, _COLORS, True)
    return a


def _walker_attrs(name):
    """CARLA 0.9.15's MakePedestrianDefinition: gender, generation, age (fixed), speed, is_invincible."""
    n = int(name.rsplit(".", 1)[1])
    child = n in (9, 10, 11, 12, 13, 14, 48, 49)
    return {"role_name": (_S_, None, _ROLE_WALKER, True),
            "gender": (_S_, "other", (), False),
            "generation": (_I, 2 if n > 14 else 1, (), False),
            "age": (_S_, "child" if child else "adult", (), False),
            "speed": (_F, None, _WALKER_SPEEDS, True),
            "is_invincible": (_B, None, ["true"], True)}


class ActorBlueprint:
    def __init__(self, id, attrs, tags):
        """``attrs``: {name: (type, value)} or {name: (type, value, recommended values, modifiable)}; a
        modifiable attribute's value defaults to its first recommended value, as CARLA's."""
        self.id, self.tags = id, list(tags)
        self._attrs = {}
        for k, spec in attrs.items():
            t, v = spec[0], spec[1]
            rec, mod = (spec[2], spec[3]) if len(spec) > 2 else (None, True)
            if rec is None:  # a sensor's variation: CARLA recommends its default
                rec = [str(v).lower() if t == _B else str(v)]
            if v is None:
                v = rec[0]
            self._attrs[k] = ActorAttribute(k, t, v, rec, mod)

    def has_attribute(self, id):
        return id in self._attrs

    def _copy(self):
        c = ActorBlueprint.__new__(ActorBlueprint)
        c.id, c.tags = self.id, list(self.tags)
        c._attrs = {k: ActorAttribute(a.id, a.type, a._value, a.recommended_values, a.is_modifiable)
                    for k, a in self._attrs.items()}
        return c

    def _missing(self, id):
        # CARLA's ActorBlueprint::GetAttribute: std::out_of_range "attribute 'x' not found" (IndexError)
        near = difflib.get_close_matches(id, list(self._attrs), n=1) if isinstance(id, str) else []
        return IndexError("attribute '%s' not found in blueprint %s%s" % (
            id, self.id, "; did you mean '%s'?" % near[0] if near else ""))

    def get_attribute(self, id):
        if id not in self._attrs:
            raise self._missing(id)
        return self._attrs[id]

    def set_attribute(self, id, value):
        """CARLA's ActorAttribute::Set: a str value (CARLA's binding refuses anything else); a read-only
        attribute raises ValueError; a bool is lowered and must read "true" or "false"; an int is read as
        atoi reads it ("2.5" is 2), a float as atof ("1e3"), finite and within a C float; a color is three
        comma-separated channels of at most 255. sensim.carla refuses besides (CARLA takes them): text with
        no number at its start for an int or float (atoi/atof read 0), NaN, and a negative sensor_tick."""
        if id not in self._attrs:
            raise self._missing(id)
        if not isinstance(value, str):
            raise TypeError("ActorBlueprint.set_attribute(%r, %r): the value is a str, as CARLA's "
                            "set_attribute(str, str) takes it (e.g. str(%r))" % (id, value, value))
        a = self._attrs[id]
        if not a.is_modifiable:
            raise ValueError("%s: read-only attribute" % id)
        v = value.lower() if a.type == _B else value
        if a.type == _B and v not in ("true", "false"):
            raise ValueError("%s: invalid bool: %s" % (id, value))
        if a.type == _I and _atoi(v) is None:
            raise ValueError("%s.%s takes an int, not %r (CARLA's atoi would read 0)" % (self.id, id, value))
        if a.type == _F:
            x = _atof(v)
            if x is not None and not math.isnan(x) and abs(x) > _FLT_MAX:
                raise ValueError("%s: float overflow" % id)
            if x is None or math.isnan(x) or (id == "sensor_tick" and x < 0):
                raise ValueError("%s.%s takes a finite float%s, not %r" % (self.id, id,
                                 " >= 0" if id == "sensor_tick" else "", value))
        if a.type == "color":
            ch = v.split(",")
            if len(ch) != 3:
                raise ValueError("%s: colors must have 3 channels (R,G,B)" % id)
            if any((_atoi(c) or 0) > 255 for c in ch):
                raise ValueError("%s: integer overflow in color channel" % id)
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
        # CARLA's BlueprintLibrary::at: std::out_of_range "blueprint 'x' not found" (IndexError)
        near = difflib.get_close_matches(id, [bp.id for bp in self._bps], n=3) if isinstance(id, str) else []
        raise IndexError("blueprint '%s' not found%s" % (id, "; did you mean %s?" % " or ".join(
            "'%s'" % n for n in near) if near else ""))

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
_PRESET_LIDAR = {"sensor_tick": (_F, 0.0), "sensim_static_tick": (_B, False), "sensim_whole_interval": (_B, False),
                 "noise_seed": (_I, 0),
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
    later = {n: dict(_CAMERA, **(_DVS if n.endswith("dvs") else {})) for n in _LATER}
    for name, attrs in (list(_SENSORS.items()) + list(later.items()) + [(n, {}) for n in _CONTROLLERS] +
                        [(n, _PRESET_LIDAR) for n in preset_lidar_ids()] +
                        [(n, a) for n, (_, a) in _USER.items()]):
        mount = name.startswith(("sensor.camera.", "sensor.lidar.")) or name == "sensor.other.obstacle"
        a = {"role_name": (_S_, None, _ROLE_SENSOR if mount else _ROLE_DEFAULT, True)}
        a.update(attrs)
        bps.append(ActorBlueprint(name, _ros(a, name), name.split(".")))
    for name in _VEHICLES:
        bps.append(ActorBlueprint(name, _ros(_vehicle_attrs(name), name), name.split(".")))
    for name in _WALKERS:
        bps.append(ActorBlueprint(name, _ros(_walker_attrs(name), name), name.split(".")))
    return BlueprintLibrary(bps)


def _ros(attrs, name):
    """CARLA 0.9.15's FillIdAndTags gives every blueprint ros_name: a string recommending the blueprint's id
    (its default), any value allowed (sensim.carla._carla_ros2 names topics by it)."""
    attrs["ros_name"] = (_S_, None, [name], True)
    return attrs
