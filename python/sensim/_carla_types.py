"""sensim.carla's value types: CARLA's geometry (Vector3D, Location, Rotation, Transform, GeoLocation), the
conversion to and from sensim's native frame, timestamps, world settings and CARLA's enums. The floor of the
CARLA modules: they all import from here, and this imports none of them (sensim.carla re-exports every
name). Plain values: safe to share between threads as far as the caller does not mutate one from two."""
import enum
import fnmatch
import math
import struct

from . import _np as np

GRAVITY = 9.81
_ID0 = 1_000_000  # scene actor id of CARLA actor k: _ID0 + k (the street's parked cars are actors 1..N)  # CARLA's (InertialMeasurementUnit.cpp); sensim's IMU uses the same figure


# ---------------------------------------------------------------- geometry (CARLA's frame)

class Vector3D:
    def __init__(self, x=0.0, y=0.0, z=0.0):
        self.x, self.y, self.z = float(x), float(y), float(z)

    def __add__(self, o):
        return type(self)(self.x + o.x, self.y + o.y, self.z + o.z)

    def __sub__(self, o):
        return type(self)(self.x - o.x, self.y - o.y, self.z - o.z)

    def __mul__(self, k):
        return type(self)(self.x * k, self.y * k, self.z * k)

    __rmul__ = __mul__

    def __truediv__(self, k):
        return type(self)(self.x / k, self.y / k, self.z / k)

    def __eq__(self, o):
        return isinstance(o, Vector3D) and (self.x, self.y, self.z) == (o.x, o.y, o.z)

    def __ne__(self, o):
        return not self == o

    __hash__ = None

    def length(self):
        return math.sqrt(self.x * self.x + self.y * self.y + self.z * self.z)

    def squared_length(self):
        return self.x * self.x + self.y * self.y + self.z * self.z

    def distance(self, o):
        return (self - o).length()

    def dot(self, o):
        return self.x * o.x + self.y * o.y + self.z * o.z

    def cross(self, o):
        return Vector3D(self.y * o.z - self.z * o.y, self.z * o.x - self.x * o.z, self.x * o.y - self.y * o.x)

    def make_unit_vector(self):
        n = self.length()
        return Vector3D(self.x / n, self.y / n, self.z / n) if n > 0 else Vector3D()

    def __repr__(self):
        return "%s(x=%g, y=%g, z=%g)" % (type(self).__name__, self.x, self.y, self.z)


class Location(Vector3D):
    def __init__(self, x=0.0, y=0.0, z=0.0):
        if isinstance(x, Vector3D):  # CARLA's Location(Vector3D)
            x, y, z = x.x, x.y, x.z
        Vector3D.__init__(self, x, y, z)


class Rotation:
    """pitch, yaw, roll in degrees, CARLA's (UE's) convention."""

    def __init__(self, pitch=0.0, yaw=0.0, roll=0.0):
        self.pitch, self.yaw, self.roll = float(pitch), float(yaw), float(roll)

    def _m(self):
        return _ue_rot(self.pitch, self.yaw, self.roll)

    def get_forward_vector(self):
        m = self._m()
        return Vector3D(m[0][0], m[1][0], m[2][0])

    def get_right_vector(self):
        m = self._m()
        return Vector3D(m[0][1], m[1][1], m[2][1])

    def get_up_vector(self):
        m = self._m()
        return Vector3D(m[0][2], m[1][2], m[2][2])

    def __eq__(self, o):
        return isinstance(o, Rotation) and (self.pitch, self.yaw, self.roll) == (o.pitch, o.yaw, o.roll)

    __hash__ = None

    def __repr__(self):
        return "Rotation(pitch=%g, yaw=%g, roll=%g)" % (self.pitch, self.yaw, self.roll)


def _ue_rot(pitch, yaw, roll):
    """carla::geom::Transform::GetMatrix's rotation part (row-major 3x3)."""
    cy, sy = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
    cr, sr = math.cos(math.radians(roll)), math.sin(math.radians(roll))
    cp, sp = math.cos(math.radians(pitch)), math.sin(math.radians(pitch))
    return [[cp * cy, cy * sp * sr - sy * cr, -cy * sp * cr - sy * sr],
            [cp * sy, sy * sp * sr + cy * cr, -sy * sp * cr + cy * sr],
            [sp, -cp * sr, cp * cr]]


class Transform:
    def __init__(self, location=None, rotation=None):
        self.location = Location(location.x, location.y, location.z) if location is not None else Location()
        self.rotation = Rotation(rotation.pitch, rotation.yaw, rotation.roll) if rotation is not None else Rotation()

    def get_matrix(self):
        r = self.rotation._m()
        t = (self.location.x, self.location.y, self.location.z)
        return [r[0] + [t[0]], r[1] + [t[1]], r[2] + [t[2]], [0.0, 0.0, 0.0, 1.0]]

    def get_inverse_matrix(self):
        m = np.linalg.inv(np.array(self.get_matrix()))
        return m.tolist()

    def _apply(self, m, point, translate):
        x, y, z = point.x, point.y, point.z
        point.x, point.y, point.z = (m[i][0] * x + m[i][1] * y + m[i][2] * z + (m[i][3] if translate else 0.0)
                                     for i in range(3))
        return point

    def transform(self, point):
        """The point (a Location or Vector3D in this transform's local frame) in the global frame: changed in
        place and returned, as CARLA's binding does; a list of points is changed in place (returns None)."""
        m = self.get_matrix()
        if isinstance(point, list):
            for p in point:
                self._apply(m, p, True)
            return None
        return self._apply(m, point, True)

    def inverse_transform(self, point):
        """The point in the global frame into this transform's local frame, in place and returned (CARLA)."""
        return self._apply(self.get_inverse_matrix(), point, True)

    def transform_vector(self, vector):
        """The vector rotated by this transform (no translation), in place and returned (CARLA)."""
        return self._apply(self.get_matrix(), vector, False)

    def get_forward_vector(self):
        return self.rotation.get_forward_vector()

    def get_right_vector(self):
        return self.rotation.get_right_vector()

    def get_up_vector(self):
        return self.rotation.get_up_vector()

    def __eq__(self, o):
        return isinstance(o, Transform) and self.location == o.location and self.rotation == o.rotation

    __hash__ = None

    def __repr__(self):
        return "Transform(%r, %r)" % (self.location, self.rotation)


class GeoLocation:
    def __init__(self, latitude=0.0, longitude=0.0, altitude=0.0):
        self.latitude, self.longitude, self.altitude = float(latitude), float(longitude), float(altitude)

    def __repr__(self):
        return "GeoLocation(latitude=%.9f, longitude=%.9f, altitude=%g)" % (self.latitude, self.longitude,
                                                                            self.altitude)


_S = np.diag([1.0, -1.0, 1.0, 1.0])


def _native(t):
    """Native (REP-103) 4x4 of a CARLA Transform: S · M · S, S = diag(1, -1, 1)."""
    return _S @ np.array(t.get_matrix()) @ _S


def _from_native(m):
    """The CARLA Transform of a native 4x4 pose."""
    c = _S @ np.asarray(m, dtype=float) @ _S
    pitch = math.degrees(math.asin(max(-1.0, min(1.0, c[2][0]))))
    yaw = math.degrees(math.atan2(c[1][0], c[0][0]))
    roll = math.degrees(math.atan2(-c[2][1], c[2][2]))
    return Transform(Location(c[0][3], c[1][3], c[2][3]), Rotation(pitch, yaw, roll))


class Timestamp:
    def __init__(self, frame, elapsed_seconds, delta_seconds):
        self.frame, self.frame_count = frame, frame
        self.elapsed_seconds, self.delta_seconds = elapsed_seconds, delta_seconds
        self.platform_timestamp = elapsed_seconds

    def __repr__(self):
        return "Timestamp(frame=%d, elapsed_seconds=%.6f, delta_seconds=%.6f)" % (
            self.frame, self.elapsed_seconds, self.delta_seconds)


class BoundingBox:
    """CARLA's carla.BoundingBox: a box of half sizes ``extent`` (m) centred at ``location``, turned by
    ``rotation``, in its actor's frame."""

    def __init__(self, location=None, extent=None, rotation=None):
        self.location = Location(location.x, location.y, location.z) if location is not None else Location()
        self.extent = Vector3D(extent.x, extent.y, extent.z) if extent is not None else Vector3D()
        self.rotation = rotation if rotation is not None else Rotation()

    def get_local_vertices(self):
        """The 8 corners in the actor's frame (CARLA's order: x, then y, then z from - to +)."""
        box = Transform(self.location, self.rotation)
        e = self.extent
        return [box.transform(Location(sx * e.x, sy * e.y, sz * e.z))
                for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]

    def get_world_vertices(self, transform):
        """The 8 corners in the world, for an actor at ``transform``."""
        return [transform.transform(v) for v in self.get_local_vertices()]

    def contains(self, world_point, transform):
        """Whether ``world_point`` lies in the box of an actor at ``transform``."""
        inv = np.array(Transform(self.location, self.rotation).get_inverse_matrix()) @ np.array(
            transform.get_inverse_matrix())
        p = inv @ np.array([world_point.x, world_point.y, world_point.z, 1.0])
        e = self.extent
        return bool(abs(p[0]) <= e.x and abs(p[1]) <= e.y and abs(p[2]) <= e.z)

    def __eq__(self, o):
        return (isinstance(o, BoundingBox) and self.location == o.location and self.extent == o.extent and
                self.rotation == o.rotation)

    def __ne__(self, o):
        return not self == o

    __hash__ = None

    def __repr__(self):
        return "BoundingBox(%r, Extent(x=%g, y=%g, z=%g), %r)" % (self.location, self.extent.x, self.extent.y,
                                                                    self.extent.z, self.rotation)


class ActorSnapshot:
    """CARLA's carla.ActorSnapshot: an actor's state when its WorldSnapshot was taken."""

    def __init__(self, actor):
        self.id = actor.id
        self._t, self._v = actor.get_transform(), actor.get_velocity()
        self._w, self._a = actor.get_angular_velocity(), actor.get_acceleration()

    def get_transform(self):
        return Transform(self._t.location, self._t.rotation)

    def get_velocity(self):
        return Vector3D(self._v.x, self._v.y, self._v.z)

    def get_angular_velocity(self):
        return Vector3D(self._w.x, self._w.y, self._w.z)

    def get_acceleration(self):
        return Vector3D(self._a.x, self._a.y, self._a.z)


class WorldSnapshot:
    """CARLA's carla.WorldSnapshot: the frame, its timestamp and every live actor's state at that frame."""

    def __init__(self, world):
        self.id = id(world)
        self.frame = world._frame
        self.timestamp = Timestamp(world._frame, world._t_ns * 1e-9, world._dt_ns * 1e-9)
        self._actors = {a.id: ActorSnapshot(a) for a in world._actors.values() if a.is_alive}

    # the binding's deprecated properties (Snapshot.cpp: "use timestamp"), read by CARLA's own examples' HUDs
    frame_count = property(lambda self: self.timestamp.frame_count)
    elapsed_seconds = property(lambda self: self.timestamp.elapsed_seconds)
    delta_seconds = property(lambda self: self.timestamp.delta_seconds)
    platform_timestamp = property(lambda self: self.timestamp.platform_timestamp)

    def find(self, actor_id):
        return self._actors.get(actor_id)

    def has_actor(self, actor_id):
        return actor_id in self._actors

    def __iter__(self):
        return iter(list(self._actors.values()))

    def __len__(self):
        return len(self._actors)


def _checked(t, what):
    """@p t, refused (ValueError naming the field) when a coordinate is not finite or beyond 1e7 m, or an
    angle beyond 1e6 degrees (cos and sin of 1e300 degrees are rounding noise, not a heading)."""
    for name, v, lim in (("location.x", t.location.x, 1e7), ("location.y", t.location.y, 1e7),
                         ("location.z", t.location.z, 1e7), ("rotation.pitch", t.rotation.pitch, 1e6),
                         ("rotation.yaw", t.rotation.yaw, 1e6), ("rotation.roll", t.rotation.roll, 1e6)):
        if not (abs(v) <= lim):
            raise ValueError("%s: %s = %r is not a finite value within +-%g" % (what, name, v, lim))
    return t


class WorldSettings:
    def __init__(self, synchronous_mode=False, no_rendering_mode=False, fixed_delta_seconds=None,
                 substepping=True, max_substep_delta_time=0.01, max_substeps=10, max_culling_distance=0.0,
                 deterministic_ragdolls=False, tile_stream_distance=3000.0, actor_active_distance=2000.0,
                 spectator_as_ego=True):
        self.synchronous_mode, self.no_rendering_mode = synchronous_mode, no_rendering_mode
        self.fixed_delta_seconds = fixed_delta_seconds
        self.substepping, self.max_substep_delta_time, self.max_substeps = (substepping, max_substep_delta_time,
                                                                            max_substeps)
        self.max_culling_distance, self.deterministic_ragdolls = max_culling_distance, deterministic_ragdolls
        self.tile_stream_distance, self.actor_active_distance = tile_stream_distance, actor_active_distance
        self.spectator_as_ego = spectator_as_ego

    def __repr__(self):
        return "WorldSettings(synchronous_mode=%s, fixed_delta_seconds=%s)" % (self.synchronous_mode,
                                                                               self.fixed_delta_seconds)


class ColorConverter:
    Raw = 0
    Depth = 1
    LogarithmicDepth = 2
    CityScapesPalette = 3


class AttachmentType:
    Rigid = 0
    SpringArm = 1
    SpringArmGhost = 2


def _f32(x):
    """x rounded to float32 (CARLA's value types hold C floats)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


class WeatherParameters:
    """CARLA 0.9.15's carla.WeatherParameters: the fields of LibCarla's rpc::WeatherParameters, held as C floats
    (a value set reads back rounded to float32, as through CARLA's binding), the constructor's defaults, and the
    presets of WeatherParameters.cpp. The world's lidars and radars see its rain and fog (sensor_weather: the
    mapping and its sources; CARLA's own lidars and radars ignore the weather); cameras do not (CARLA renders
    it, sensim's cameras do not)."""
    _FIELDS = ("cloudiness", "precipitation", "precipitation_deposits", "wind_intensity", "sun_azimuth_angle",
               "sun_altitude_angle", "fog_density", "fog_distance", "fog_falloff", "wetness", "scattering_intensity",
               "mie_scattering_scale", "rayleigh_scattering_scale", "dust_storm")

    def __init__(self, cloudiness=0.0, precipitation=0.0, precipitation_deposits=0.0, wind_intensity=0.0,
                 sun_azimuth_angle=0.0, sun_altitude_angle=0.0, fog_density=0.0, fog_distance=0.0, fog_falloff=0.0,
                 wetness=0.0, scattering_intensity=0.0, mie_scattering_scale=0.0, rayleigh_scattering_scale=0.0331,
                 dust_storm=0.0):
        args = locals()
        for k in self._FIELDS:
            setattr(self, k, args[k])

    def __setattr__(self, name, value):
        if name not in self._FIELDS:
            raise AttributeError("'WeatherParameters' object has no attribute '%s'" % name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError("WeatherParameters.%s: a number, not %r" % (name, value))
        object.__setattr__(self, name, _f32(float(value)))

    def _copy(self):
        return WeatherParameters(*(getattr(self, k) for k in self._FIELDS))

    def __eq__(self, other):
        return isinstance(other, WeatherParameters) and all(getattr(self, k) == getattr(other, k)
                                                            for k in self._FIELDS)

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __str__(self):
        return "WeatherParameters(%s)" % ", ".join("%s=%g" % (k, getattr(self, k)) for k in self._FIELDS)

    __repr__ = __str__


# WeatherParameters.cpp of CARLA 0.9.15, in the order of _FIELDS
_WEATHER_PRESETS = {
    "Default": (-1.0, -1.0, -1.0, -1.00, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, 1.0, 0.03, 0.0331, 0.0),
    "ClearNoon": (5.0, 0.0, 0.0, 10.0, -1.0, 45.0, 2.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "CloudyNoon": (60.0, 0.0, 0.0, 10.0, -1.0, 45.0, 3.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "WetNoon": (5.0, 0.0, 50.0, 10.0, -1.0, 45.0, 3.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "WetCloudyNoon": (60.0, 0.0, 50.0, 10.0, -1.0, 45.0, 3.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "MidRainyNoon": (60.0, 60.0, 60.0, 60.0, -1.0, 45.0, 3.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "HardRainNoon": (100.0, 100.0, 90.0, 100.0, -1.0, 45.0, 7.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "SoftRainNoon": (20.0, 30.0, 50.0, 30.0, -1.0, 45.0, 3.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "ClearSunset": (5.0, 0.0, 0.0, 10.0, -1.0, 15.0, 2.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "CloudySunset": (60.0, 0.0, 0.0, 10.0, -1.0, 15.0, 3.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "WetSunset": (5.0, 0.0, 50.0, 10.0, -1.0, 15.0, 2.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "WetCloudySunset": (60.0, 0.0, 50.0, 10.0, -1.0, 15.0, 2.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "MidRainSunset": (60.0, 60.0, 60.0, 60.0, -1.0, 15.0, 3.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "HardRainSunset": (100.0, 100.0, 90.0, 100.0, -1.0, 15.0, 7.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "SoftRainSunset": (20.0, 30.0, 50.0, 30.0, -1.0, 15.0, 2.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "ClearNight": (5.0, 0.0, 0.0, 10.0, -1.0, -90.0, 60.0, 75.0, 1.0, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "CloudyNight": (60.0, 0.0, 0.0, 10.0, -1.0, -90.0, 60.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 0.0),
    "WetNight": (5.0, 0.0, 50.0, 10.0, -1.0, -90.0, 60.0, 75.0, 1.0, 60.0, 1.0, 0.03, 0.0331, 0.0),
    "WetCloudyNight": (60.0, 0.0, 50.0, 10.0, -1.0, -90.0, 60.0, 0.75, 0.1, 60.0, 1.0, 0.03, 0.0331, 0.0),
    "SoftRainNight": (60.0, 30.0, 50.0, 30.0, -1.0, -90.0, 60.0, 0.75, 0.1, 60.0, 1.0, 0.03, 0.0331, 0.0),
    "MidRainyNight": (80.0, 60.0, 60.0, 60.0, -1.0, -90.0, 60.0, 0.75, 0.1, 80.0, 1.0, 0.03, 0.0331, 0.0),
    "HardRainNight": (100.0, 100.0, 90.0, 100.0, -1.0, -90.0, 100.0, 0.75, 0.1, 100.0, 1.0, 0.03, 0.0331, 0.0),
    "DustStorm": (100.0, 0.0, 0.0, 100.0, -1.0, 45.0, 2.0, 0.75, 0.1, 0.0, 1.0, 0.03, 0.0331, 100.0),
}
for _name, _values in _WEATHER_PRESETS.items():
    setattr(WeatherParameters, _name, WeatherParameters(*_values))

# CARLA's fog_density at or below this is clear air for the sensors: every daytime preset (2 to 7) uses it
# for the renderer's aerial perspective, and CARLA's lidar model stays CARLA's exactly there
FOG_CLEAR_DENSITY = 7.0
# fog_density 100 is the International Visibility Code's dense fog (visibility 50 m), the extinction linear
# in the density above FOG_CLEAR_DENSITY (Beer-Lambert: extinction grows with the droplets' concentration)
FOG_DENSE_VISIBILITY_M = 50.0
# precipitation 100 is heavy rain at its lower bound in the AMS Glossary (7.6 mm/h), the rate linear in it
RAIN_HEAVY_MM_H = 7.6


def sensor_weather(weather):
    """(visibility_m, rain_rate_mm_h) the world's lidars and radars see under a carla.WeatherParameters:
    visibility 0 (no fog) for fog_density <= 7, else 50 m x 93 / (fog_density - 7) (Koschmieder's visibility
    from an extinction linear in the density: 50 m at 100, 1.55 km at 10, 88 m for the night presets' 60);
    rain 7.6 mm/h x precipitation / 100 (SoftRain 30: 2.28 mm/h, light; MidRain 60: 4.56, moderate; HardRain
    100: 7.6, heavy). Visibility is capped at 1e6 m (clear beyond). fog_distance and fog_falloff (where the
    renderer's fog starts and thins with height) are not modelled."""
    d = float(weather.fog_density)
    vis = 0.0
    if d > FOG_CLEAR_DENSITY:
        vis = FOG_DENSE_VISIBILITY_M * (100.0 - FOG_CLEAR_DENSITY) / (min(d, 100.0) - FOG_CLEAR_DENSITY)
        vis = 0.0 if vis > 1e6 else max(vis, 10.0)
    rain = RAIN_HEAVY_MM_H * min(max(float(weather.precipitation), 0.0), 100.0) / 100.0
    return vis, rain


class MapLayer(enum.IntFlag):
    """CARLA's carla.MapLayer (rpc::MapLayer bits). The layers of CARLA's towns; sensim's scenes have none to
    load or unload (World.load_map_layer / unload_map_layer are refused by name)."""
    NONE = 0
    Buildings = 0x1
    Decals = 0x1 << 1
    Foliage = 0x1 << 2
    Ground = 0x1 << 3
    ParkedVehicles = 0x1 << 4
    Particles = 0x1 << 5
    Props = 0x1 << 6
    StreetLights = 0x1 << 7
    Walls = 0x1 << 8
    All = 0xFFFF


class VehicleLightState(enum.IntFlag):
    """CARLA's carla.VehicleLightState (LibCarla's rpc::VehicleLightState::LightState bits)."""
    NONE = 0
    Position = 0x1
    LowBeam = 0x1 << 1
    HighBeam = 0x1 << 2
    Brake = 0x1 << 3
    RightBlinker = 0x1 << 4
    LeftBlinker = 0x1 << 5
    Reverse = 0x1 << 6
    Fog = 0x1 << 7
    Interior = 0x1 << 8
    Special1 = 0x1 << 9
    Special2 = 0x1 << 10
    All = 0xFFFFFFFF


class TrafficLightState(enum.IntEnum):
    """CARLA's carla.TrafficLightState (the built-in street has no traffic lights; the enum is for scripts
    that name the states)."""
    Red = 0
    Yellow = 1
    Green = 2
    Off = 3
    Unknown = 4


class ActorState(enum.IntEnum):
    """CARLA 0.9.14's carla.ActorState."""
    Invalid = 0
    Active = 1
    Dormant = 2


class VehicleFailureState(enum.IntEnum):
    """CARLA's carla.VehicleFailureState."""
    NONE = 0
    Rollover = 1
    Engine = 2
    TirePuncture = 3


class DebugHelper:
    """CARLA's World.debug: the draw calls take CARLA's arguments, check the shapes' types and are counted in
    ``sensim_drawn``; nothing is drawn (no viewport; CARLA draws into the server's spectator view)."""

    def __init__(self):
        self.sensim_drawn = 0

    def _draw(self, call, *objs):
        for o in objs:
            if not hasattr(o, "x"):
                raise TypeError("DebugHelper.%s: a carla.Location, not %s" % (call, type(o).__name__))
        self.sensim_drawn += 1

    def draw_point(self, location, size=0.1, color=None, life_time=-1.0, persistent_lines=True):
        self._draw("draw_point", location)

    def draw_line(self, begin, end, thickness=0.1, color=None, life_time=-1.0, persistent_lines=True):
        self._draw("draw_line", begin, end)

    def draw_arrow(self, begin, end, thickness=0.1, arrow_size=0.1, color=None, life_time=-1.0,
                   persistent_lines=True):
        self._draw("draw_arrow", begin, end)

    def draw_box(self, box, rotation, thickness=0.1, color=None, life_time=-1.0, persistent_lines=True):
        self._draw("draw_box", box.location)

    def draw_string(self, location, text, draw_shadow=False, color=None, life_time=-1.0, persistent_lines=True):
        self._draw("draw_string", location)


class ActorList(list):
    def filter(self, wildcard):
        return ActorList(a for a in self if fnmatch.fnmatch(a.type_id, wildcard))

    def find(self, id):
        for a in self:
            if a.id == id:
                return a
        return None
