"""CARLA 0.9.15's Python API for sensors, headless and in-process: ``import sensim.carla as carla``.

A sensor script written against CARLA runs with only its import changed: a Client and a World (the
built-in street, or a scene file), blueprints with CARLA's names, attributes and defaults (``find()``
returns a copy), actors spawned at CARLA Transforms, sensors that ``listen()``, and ``world.tick()``
advancing simulated time by ``fixed_delta_seconds`` (0.05 s unless set). As in CARLA, each sensor's
callback runs on a thread of its own, in frame order for that sensor, so a callback that blocks (a full
``queue.Queue(maxsize=4)`` during warm-up ticks) never blocks ``tick()``; ``tick()`` returns once this
tick's callbacks have returned, or after ``World.callback_wait_s`` (1 s) in all with a warning naming the
one that has not. A sensor's measurements then wait in order, up to 64; past that the oldest is dropped
with a warning and counted in ``Sensor.sensim_dropped``. An exception in a callback is printed with its
traceback and the world goes on. Each sensor keeps CARLA's ``sensor_tick`` cadence, Unreal's tick
interval in float32 (0: every tick; a 10 Hz lidar in a 20 Hz world delivers on frames 1, 4, 6, 8, ...,
as CARLA 0.9.15 does; ``Sensor.next_frame()`` says which frame comes next), each lidar measurement
holding one world delta of shots, its sweep paused between measurements as CARLA's (the attribute
``sensim_whole_interval = true``: every shot since the last measurement, see docs/carla.md). A sensor
nobody listens to computes nothing (its lidar's shots are discarded). In asynchronous mode (CARLA's
default, ``synchronous_mode`` off) the world advances on its own, one fixed delta per delta of wall
time, from its first actor on, and ``wait_for_tick()``/``tick()`` wait for its next tick; every public
call sees the world between two ticks (sensim.carla._carla_async). No server, no physics, no rendering
engine.

Unmodified scripts: ``python3 -m sensim.carla [--scene FILE] SCRIPT [ARGS...]`` runs a script whose
``import carla`` then resolves to this module; ``python3 -m sensim.carla --shim-dir`` prints a folder
holding a ``carla.py`` that does the same for pytest or an IDE (put it on PYTHONPATH).

Frames and units are CARLA's at this boundary (left-handed: x forward, y right, z up; metres;
Rotation(pitch, yaw, roll) in degrees) and libsensim's inside (REP-103); the conversion is exact
(y negated, the matrix of carla.Transform.get_matrix conjugated by diag(1, -1, 1)).

Built on the library's rig: each actor that carries sensors is a platform whose pose is pushed
to a sensim.Rig every tick; its lidars scan [t, t + dt) through the rig's motion model, and a
measurement holds the shots fired during that tick (rotation_frequency x dt of a turn), as CARLA
slices it. Cameras, IMU and GNSS read the same pushed poses at the tick's end (CARLA's sensors run
after the tick's physics).

What a headless in-process library cannot do (the traffic manager, vehicle physics, weather rendering,
maps by name other than "street") raises RuntimeError naming the call and what to use instead, never a
silent no-op; a name CARLA does not have either raises AttributeError with the closest names. Every
CARLA 0.9.15 name, class by class, supported, differing or refused: docs/carla.md (sensim.carla._carla_api).
Vehicles and walkers are kinematic boxes of the real models' sizes: the host moves them with
set_transform, or set_target_velocity / set_target_angular_velocity (integrated per tick).
Where this module differs from CARLA, the difference is in the docstring of what differs; the differences
that remain, with their sizes (per-shot poses, shots per tick, the first IMU samples, kinematic motion,
attached sensors' set_transform), are in docs/carla.md.
Blueprints and attributes offered: CARLA's names, types and defaults (anything else raises by name), every
sensim preset as sensor.lidar.<preset>, and sensors registered with register_sensor; the table is in
sensim.carla._carla_blueprints and docs/carla.md.
"""
if __name__ == "__main__":  # python3 -m sensim.carla: the runner (before anything else: no second copy of this module)
    import sys
    from sensim._carla_runner import main
    sys.exit(main())

import math
import os
import time

from . import Context, Nav, Rig, Scene, tag_name, _np
import threading
from ._carla_api import missing as _missing, why_not as _why_not
from ._carla_async import RealTimeClock, serialized
from ._carla_delivery import CALLBACK_WAIT_S, Delivery

if _np is None:  # pragma: no cover - checked by the no-numpy test
    from . import _NUMPY_HINT
    raise ImportError("sensim.carla needs numpy: " + _NUMPY_HINT)
np = _np

__all__ = ["Client", "World", "WorldSettings", "Transform", "Location", "Rotation", "Vector3D", "GeoLocation",
           "ColorConverter", "AttachmentType", "ActorBlueprint", "BlueprintLibrary", "Actor", "Vehicle", "Sensor",
           "LidarMeasurement", "SemanticLidarMeasurement", "Image", "IMUMeasurement", "GnssMeasurement",
           "ObstacleDetectionEvent", "register_sensor", "WeatherParameters", "BoundingBox", "WorldSnapshot",
           "ActorSnapshot", "Timestamp", "VehicleControl", "VehicleAckermannControl", "VehicleLightState",
           "TrafficLightState", "ActorState", "VehicleFailureState", "DebugHelper", "Map", "Waypoint", "LaneType",
           "LaneChange", "LaneMarking", "LaneMarkingType", "LaneMarkingColor", "TrafficManager", "CollisionEvent",
           "LaneInvasionEvent", "WalkerAIController", "MapLayer", "TrafficLight"]
_API_CLASS = {"Vehicle": "Vehicle", "Walker": "Walker", "Sensor": "Sensor", "WalkerAIController": "WalkerAIController",
              "TrafficLight": "TrafficLight"}  # CARLA's class of each actor class

# The package's other CARLA modules, each below this facade (none imports it back): value types, blueprints,
# measurements, the platform of an actor that carries sensors.
from ._carla_blueprints import (ActorAttribute, ActorAttributeType, ActorBlueprint, BlueprintLibrary, Color, _LATER,
                                _SENSORS, _USER, _VEHICLES, _WALKERS, _CONTROLLERS, _library, preset_lidar_ids,
                                register_sensor)  # noqa: E402,F401
from ._carla_platform import _Platform  # noqa: E402
from . import _carla_command as command  # noqa: E402  (carla.command)
from ._carla_map import Map, build as _build_map  # noqa: E402,F401
from ._carla_traffic import TrafficManager  # noqa: E402
from ._carla_walkers import Walkers  # noqa: E402
from ._carla_lights import Lights, TrafficLightApi  # noqa: E402
from ._carla_ros2 import Ros2, spawn_ros_name  # noqa: E402
from . import _carla_sensors as _sensors_mod  # noqa: E402
from ._carla_client import Client  # noqa: E402
from ._carla_events import CollisionEvent, LaneInvasionEvent  # noqa: E402,F401
from ._carla_roads import (LaneChange, LaneMarking, LaneMarkingColor, LaneMarkingType, LaneType,  # noqa: E402,F401
                           Waypoint)
from ._carla_measure import lidar_angle as _lidar_angle, lidar_points as _lidar_points, measure as _measure  # noqa: E402
from ._carla_vehicle import VehicleAckermannControl, VehicleControl, step as _vehicle_step  # noqa: E402,F401
from ._carla_data import (GnssMeasurement, IMUMeasurement, Image, LidarDetection, LidarMeasurement,  # noqa: E402,F401
                          ObstacleDetectionEvent, RadarDetection,
                          RadarMeasurement, SemanticLidarDetection, SemanticLidarMeasurement,
                          SensorData)
from ._carla_types import (GRAVITY, _ID0, ActorSnapshot, AttachmentType, BoundingBox,  # noqa: E402,F401
                           ColorConverter, GeoLocation, Location, Rotation, Timestamp, Transform, Vector3D,
                           TrafficLightState, VehicleLightState, MapLayer, ActorState, DebugHelper, VehicleFailureState, WeatherParameters, WorldSettings,
                           WorldSnapshot, _checked, _f32, ActorList,
                           _from_native, _native, _S, _ue_rot)


# ---------------------------------------------------------------- actors

@serialized
class Actor:
    def __init__(self, world, id, bp, transform, parent):
        self._world, self.id, self.type_id = world, id, bp.id
        self._lock = world._lock  # the world's: public calls see it between ticks
        self.attributes = {a.id: str(a) for a in bp}
        self._ros_name = spawn_ros_name(bp.id, id, self.attributes.get("ros_name", bp.id))  # (_carla_ros2)
        self.parent, self.is_alive = parent, True
        self._rel = Transform(transform.location, transform.rotation)  # relative to the parent if attached
        self._vel, self._ang = Vector3D(), Vector3D()  # target velocity (m/s, CARLA frame), angular (deg/s)
        self.semantic_tags = []

    def get_world(self):
        return self._world

    @property
    def bounding_box(self):
        """CARLA's Actor.bounding_box, a copy, in the actor's frame: a vehicle's or walker's box (CARLA's
        extents for its model, centred extent.z above the actor's origin at ground level); an empty box at
        the origin for the others, as CARLA gives its sensors."""
        ext = getattr(self, "bounding_box_extent", None)
        if ext is None:
            return BoundingBox()
        return BoundingBox(Location(0.0, 0.0, ext.z), ext)

    def get_transform(self):
        if self.parent is None:
            return Transform(self._rel.location, self._rel.rotation)
        return _from_native(_native(self.parent.get_transform()) @ _native(self._rel))

    def get_location(self):
        return self.get_transform().location

    def set_transform(self, transform):
        self._check_alive("set_transform")
        self._rel = _checked(Transform(transform.location, transform.rotation), "set_transform")
        self._teleport()

    def set_location(self, location):
        self._check_alive("set_location")
        self._rel = _checked(Transform(location, self._rel.rotation), "set_location")
        self._teleport()

    def _teleport(self):
        """A set_transform / set_location between two ticks is a jump of the sensors this actor carries
        (a new motion segment at the tick's start: no sweep between the poses, no IMU spike), unless the
        actor was also set before the previous tick: an actor set every tick is driven by the host (a
        co-simulation), and its poses are keys of one smooth motion through the ticks."""
        f = self._world._frame
        last = getattr(self, "_last_set", None)
        if last != f:
            self._jumped = last != f - 1
            self._last_set = f

    def get_velocity(self):
        return Vector3D(self._vel.x, self._vel.y, self._vel.z)

    def get_angular_velocity(self):
        return Vector3D(self._ang.x, self._ang.y, self._ang.z)

    def get_acceleration(self):
        return Vector3D()

    def set_target_velocity(self, velocity):
        self._check_alive("set_target_velocity")
        self._vel = Vector3D(velocity.x, velocity.y, velocity.z)

    def set_target_angular_velocity(self, angular_velocity):
        """deg/s about CARLA's x (roll), y (pitch), z (yaw) axes; integrated into the rotation per tick."""
        self._check_alive("set_target_angular_velocity")
        self._ang = Vector3D(angular_velocity.x, angular_velocity.y, angular_velocity.z)

    def set_simulate_physics(self, enabled=True):
        if enabled:
            raise RuntimeError("Actor.set_simulate_physics(True): sensim.carla has no physics; move actors with "
                               "set_transform or set_target_velocity")

    @property
    def is_active(self):
        """CARLA 0.9.14's: alive and not dormant (nothing is dormant here: no streaming of far actors)."""
        return self.is_alive

    @property
    def is_dormant(self):
        return False

    @property
    def actor_state(self):
        return ActorState.Active if self.is_alive else ActorState.Invalid

    def __getattr__(self, name):  # CARLA's names not offered: RuntimeError on call; others AttributeError
        if name.startswith("_"):
            raise AttributeError(name)
        return _missing(self, _API_CLASS.get(type(self).__name__, "Actor"), name)

    def destroy(self):
        if not self.is_alive:
            return False
        self._world._destroy(self)
        self.is_alive = False
        return True

    def _check_alive(self, call):
        if not self.is_alive:
            raise RuntimeError("Actor.%s: actor %d was destroyed" % (call, self.id))

    def __repr__(self):
        return "Actor(id=%d, type=%s)" % (self.id, self.type_id)


@serialized
class Vehicle(Actor):
    def __init__(self, world, id, bp, transform, parent, extent):
        super().__init__(world, id, bp, transform, parent)
        self.bounding_box_extent = Vector3D(*extent)
        self.semantic_tags = [14]
        self._control, self._speed = None, 0.0  # apply_control's, and the model's signed speed (m/s)

    def apply_control(self, control):
        """Drive the vehicle from the next tick on with sensim's kinematic model (throttle, brake, hand brake,
        steer, reverse; docstring of sensim.carla._carla_vehicle): CARLA's PhysX is not here. The control is
        kept as applied (throttle and brake clamped to [0, 1], steer to [-1, 1]) until the next one."""
        self._check_alive("apply_control")
        if not isinstance(control, VehicleControl):
            raise TypeError("Vehicle.apply_control: a carla.VehicleControl, not %s" % type(control).__name__)
        self._control = control._clamped()

    def apply_ackermann_control(self, control):
        """Drive the vehicle towards ``control.speed`` at ``control.acceleration`` with the wheels at
        ``control.steer`` radians (the kinematic model of sensim.carla._carla_vehicle)."""
        self._check_alive("apply_ackermann_control")
        if not isinstance(control, VehicleAckermannControl):
            raise TypeError("Vehicle.apply_ackermann_control: a carla.VehicleAckermannControl, not %s"
                            % type(control).__name__)
        self._control = VehicleAckermannControl(control.steer, control.steer_speed, control.speed,
                                                control.acceleration, control.jerk)

    def set_light_state(self, light_state):
        """Kept and returned by get_light_state (CARLA's bits; sensim renders no lights)."""
        self._check_alive("set_light_state")
        self._lights = VehicleLightState(int(light_state) & 0xFFFFFFFF)

    def get_light_state(self):
        return VehicleLightState(getattr(self, "_lights", VehicleLightState.NONE))

    def get_control(self):
        c = self._control if isinstance(self._control, VehicleControl) else VehicleControl()
        return VehicleControl(c.throttle, c.steer, c.brake, c.hand_brake, c.reverse, c.manual_gear_shift, c.gear)

    def set_target_velocity(self, velocity):
        super().set_target_velocity(velocity)
        self._control = None  # the host drives it directly again
        self._speed = math.hypot(velocity.x, velocity.y)

    def set_autopilot(self, enabled=True, port=8000):
        """On (or off) the traffic manager of @p port: it drives the vehicle along the world's OpenDRIVE lanes
        (sensim.carla._carla_traffic: kinematic, deterministic for a seed); RuntimeError in a world without a
        road network."""
        self._check_alive("set_autopilot")
        if enabled:
            self._world._tm(port).register(self)
            self._control = None
        else:
            for tm in self._world._traffic.values():
                tm.unregister(self)

    def get_failure_state(self):
        """VehicleFailureState.NONE: a kinematic vehicle does not roll over (CARLA's only failures need physics)."""
        return VehicleFailureState.NONE

    def get_speed_limit(self):
        """The speed limit (km/h) of the road under the vehicle (its OpenDRIVE \<speed\>, read where the vehicle
        is at the last tick); 30 km/h, the limit of a CARLA vehicle that passed no speed sign, off the roads or
        on a road that gives none. (CARLA sets it from the speed-limit signs a vehicle passes.)"""
        roads = getattr(self._world._map, "_roads", None)
        if roads is not None:
            loc = self.get_location()
            try:
                hit = roads.net.locate((loc.x, -loc.y, loc.z), 1 << 1)  # driving lanes
            except Exception:  # noqa: BLE001 - no driving lane: the default
                return 30.0
            ln = next(x for x in roads.net.lanes(hit["road"], hit["s"]) if x["id"] == hit["lane"])
            mps = roads.road[hit["road"]]["speed_limit_mps"]
            if mps > 0 and min(ln["t_inner"], ln["t_outer"]) <= hit["t"] <= max(ln["t_inner"], ln["t_outer"]):
                return mps * 3.6
        return 30.0

    # the light whose trigger volume the vehicle stands in (CARLA's); Green and False when there is none
    def get_traffic_light(self):
        return self._world._lights.containing(self.get_location())

    def get_traffic_light_state(self):
        light = self.get_traffic_light()
        return TrafficLightState.Green if light is None else light.state

    def is_at_traffic_light(self):
        light = self.get_traffic_light()
        return light is not None and light.state == TrafficLightState.Red


@serialized
class Walker(Actor):
    def __init__(self, world, id, bp, transform, parent, extent):
        super().__init__(world, id, bp, transform, parent)
        self.bounding_box_extent = Vector3D(*extent)
        self.semantic_tags = [12]


@serialized
class WalkerAIController(Actor):
    """CARLA's controller.ai.walker: walks its parent walker along the sidewalks (sensim.carla._carla_walkers)."""

    def start(self):
        self._world._walkers.start(self)

    def stop(self):
        self._world._walkers.stop(self)

    def go_to_location(self, location):
        self._world._walkers.go_to_location(self, location)

    def set_max_speed(self, speed=1.4):
        self._world._walkers.set_max_speed(self, speed)


@serialized
class Sensor(Actor):
    """A sensor. Its callback runs on a thread of its own, in frame order (see World.tick). sensor_tick
    (seconds, 0 = every tick) is CARLA's cadence, which is Unreal's tick interval: a measurement on the
    first tick after spawning; then each tick subtracts the world's delta from the remaining cooldown
    (float32) and the sensor ticks when the cooldown left is below the delta, the rest of that delta
    counting towards the next interval (CARLA 0.9.15 with sensor_tick 0.1 in a 0.05 s world: frames 1, 4,
    6, 8, ...; 0.05 in a 1 kHz world: 1, 52, 102). ``next_frame()`` says which tick comes next.
    set_transform moves the sensor:
    attached, its mount on the parent (from the next tick on); free, the sensor itself, interpolated
    through the tick like any actor."""

    def __init__(self, world, id, bp, transform, parent):
        super().__init__(world, id, bp, transform, parent)
        self._callback = None
        self._delivery = None
        self._tick_ns, self._tick_s, self._cool, self._mount_dirty = 0, 0.0, None, False

    def listen(self, callback):
        if not callable(callback):
            raise TypeError("Sensor.listen takes a callable")
        self._check_alive("listen")
        if self._delivery is None:
            self._delivery = Delivery(self)
        self._callback = callback

    def stop(self):
        self._callback = None

    def enable_for_ros(self):
        """Publish this sensor's measurements on CARLA's native ROS 2 topics (sensim.carla._carla_ros2: names,
        types, frames; the world's DDS participant starts with the first sensor enabled)."""
        self._check_alive("enable_for_ros")
        self._world._ros.check_name(self)
        self._world._ros_on()
        self._ros = True

    def disable_for_ros(self):
        self._ros = False

    def is_enabled_for_ros(self):
        return getattr(self, "_ros", False)

    def set_transform(self, transform):
        super().set_transform(transform)
        self._mount_dirty = True

    def set_location(self, location):
        super().set_location(location)
        self._mount_dirty = True

    @property
    def sensim_dropped(self):
        """Measurements dropped because this sensor's callback fell BUFFER behind (each one warned)."""
        return self._delivery.dropped if self._delivery is not None else 0

    @staticmethod
    def _cooldown(cool, interval, dt):
        """Unreal's tick interval for one tick of ``dt`` s (float32 as UE): (ticks, cooldown after).
        ``cool`` None: a tick function not yet ticked, which ticks at once and waits a whole interval."""
        if cool is None:
            return True, _f32(interval)
        dt = _f32(dt)
        if cool >= dt:  # still cooling down: this tick's delta is taken off
            return False, _f32(cool - dt)
        return True, _f32(_f32(interval) - _f32(dt - cool))  # the rest of the delta counts towards the next

    def _due(self):
        """(whether the next tick takes a measurement, the cooldown after it): CARLA's sensor_tick cadence.
        The caller keeps the cooldown once the tick happened."""
        if self._tick_ns <= 0:
            return True, self._cool
        return self._cooldown(self._cool, self._tick_s, self._world._dt_ns * 1e-9)

    def next_frame(self):
        """The frame of this sensor's next measurement if the world keeps its fixed delta (CARLA has no such
        call, carla#7108: a synchronous collector can wait for exactly the frames that will bring data)."""
        frame = self._world._frame
        if self._tick_ns <= 0:
            return frame + 1
        cool = self._cool
        for k in range(1, 1 << 24):
            due, cool = self._cooldown(cool, self._tick_s, self._world._dt_ns * 1e-9)
            if due:
                return frame + k
        raise RuntimeError("Sensor.next_frame: sensor_tick %g s is beyond 2^24 ticks of %g s"
                           % (self._tick_s, self._world._dt_ns * 1e-9))

    @property
    def is_listening(self):
        return self._callback is not None

    def is_listening_fn(self):
        return self.is_listening


@serialized
class _Spectator(Actor):
    """The world's spectator (World.get_spectator)."""

    def __init__(self, world, id):
        self._world, self.id, self.type_id, self.attributes = world, id, "spectator", {}
        self._lock = world._lock
        self.parent, self.is_alive, self.semantic_tags = None, True, []
        self._rel = Transform()
        self._vel, self._ang = Vector3D(), Vector3D()

    def destroy(self):
        return False  # CARLA's spectator cannot be destroyed


class _TickCallback:
    """The name an on_tick callback's delivery thread and warnings carry."""

    def __init__(self, cid):
        self.type_id, self.id = "World.on_tick callback", cid


_LIGHT_BP = ActorBlueprint("traffic.traffic_light", {"role_name": ("str", "default")}, ["traffic", "traffic_light"])


@serialized
class TrafficLight(TrafficLightApi, Actor):
    """CARLA's traffic.traffic_light, from the map's OpenDRIVE lights (sensim.carla._carla_lights)."""

    def __init__(self, world, id, transform):
        super().__init__(world, id, _LIGHT_BP, transform, None)
        self.semantic_tags = [7]  # TrafficLight

    def destroy(self):
        return False  # the map's lights stay, as CARLA's


# ---------------------------------------------------------------- world, map, client

@serialized
class World:
    def __init__(self, client, scene_name, xodr_text=None):
        self._client = client
        self._lock = threading.RLock()  # every public call and every tick holds it (sensim.carla._carla_async)
        self._ticked = threading.Condition(self._lock)  # notified after each tick
        self._clock = RealTimeClock(self)  # asynchronous mode's clock (starts with the first actor)
        self._debug, self._traffic = None, {}  # traffic managers by port
        self._walkers = Walkers(self)  # pedestrians' navigation (sensim.carla._carla_walkers)
        self._weather = WeatherParameters.ClearNoon._copy()
        self._tick_cbs, self._next_tick_cb, self._spectator = {}, 0, None
        self._ctx = Context()
        self._scene = Scene(self._ctx)
        self._map = _build_map(self, self._scene, scene_name, xodr_text)  # the scene and its road network
        self._scene.commit()
        self._scene_name, self._xodr = str(scene_name), xodr_text
        self._settings = WorldSettings(fixed_delta_seconds=None)
        self._frame, self._t_ns, self._dt_ns = 0, 0, 50_000_000
        self._sample_ns = self._dt_ns  # IMU, GNSS and radar sample on this grid (it divides every tick's end)
        self._actors, self._next_id, self._platforms, self._sensors = {}, 1, {}, []
        self._drain = []  # rings of destroyed lidars, still stepped by their platform's rig
        self.callback_wait_s = CALLBACK_WAIT_S  # tick() waits this long, in all, for this tick's callbacks
        self._box = None
        self._lights = Lights(self, self._new_light)  # the map's traffic lights (sensim.carla._carla_lights)
        self._ros = Ros2(self)  # CARLA's native ROS 2 (sensim.carla._carla_ros2): on with the runner's --ros2
        if os.environ.get("SENSIM_CARLA_ROS2") == "1":  # or the first enable_for_ros
            self._ros_on()
        self._geo = Nav(self._ctx, "gnss", {"model": "carla", "rate_hz": 1})

    # settings and time
    def get_settings(self):
        s = self._settings
        return WorldSettings(s.synchronous_mode, s.no_rendering_mode, s.fixed_delta_seconds)

    def apply_settings(self, settings):
        fd = settings.fixed_delta_seconds
        if fd is not None and not (isinstance(fd, (int, float)) and 1e-6 <= fd <= 10):
            # below 1 us a step rounds to nothing on the world's nanosecond clock
            raise ValueError("fixed_delta_seconds must be in [1e-6, 10] s, not %r" % (fd,))
        dt = int(round((fd if fd is not None else 0.05) * 1e9))
        # nothing changes unless every sensor can take the new delta (a refused value changes nothing)
        for sn in self._sensors:
            if hasattr(sn, "_lidar") and _sensors_mod.lidar_frames(sn, sn._rot_hz, dt) > sn._ring_frames:
                raise ValueError("fixed_delta_seconds %r: the lidar %d's buffer holds measurements of %g s at "
                                 "most; set the delta before spawning it" % (fd, sn.id, (sn._ring_frames - 2) /
                                                                            sn._rot_hz))
        grid = math.gcd(self._t_ns, dt) if self._t_ns else dt
        samplers = [sn for sn in self._sensors if hasattr(sn, "_nav") or hasattr(sn, "_radar")]
        if samplers and grid != self._sample_ns and grid < 1_000_000:
            raise ValueError("fixed_delta_seconds %r at %.9f s: IMU, GNSS and radar would sample on a %d ns grid "
                             "(the one that divides every later tick), finer than their 1 ms limit" %
                             (fd, self._t_ns * 1e-9, grid))
        self._settings = WorldSettings(settings.synchronous_mode, settings.no_rendering_mode, fd)
        self._dt_ns = dt
        self._clock.settings_changed()
        if grid != self._sample_ns:
            self._sample_ns = grid
            for sn in samplers:  # sampled at k x grid from now on (their noise is keyed by k)
                mount = _native(sn._rel) if sn.parent is not None else np.eye(4)
                if hasattr(sn, "_nav"):
                    sn._nav = _sensors_mod.nav(self, sn._nav_args[0], mount, sn._nav_args[1])
                else:
                    sn._radar = _sensors_mod.radar(self, sn, mount)
        return self._frame

    def get_snapshot(self):
        return WorldSnapshot(self)

    @property
    def id(self):
        """The episode's id (WorldSnapshot.id of its snapshots)."""
        return id(self)

    @property
    def debug(self):
        """CARLA's DebugHelper: its draw calls are checked and counted, and draw nothing (no viewport)."""
        if self._debug is None:
            self._debug = DebugHelper()
        return self._debug

    def get_random_location_from_navigation(self):
        """A point on a sidewalk (sensim.carla._carla_walkers), or None without sidewalks."""
        return self._walkers.random_location()

    def set_pedestrians_seed(self, seed):
        self._walkers.seed(seed)

    def set_pedestrians_cross_factor(self, percentage):
        """Kept: walkers do not cross roads (sensim.carla._carla_walkers)."""
        self._walkers.cross_factor = float(percentage)

    def _tm(self, port):
        if port not in self._traffic:
            self._traffic[port] = TrafficManager(self, port)
        return self._traffic[port]

    def get_vehicles_light_states(self):
        """{actor id: carla.VehicleLightState} of every live vehicle."""
        return {a.id: a.get_light_state() for a in self._actors.values() if isinstance(a, Vehicle) and a.is_alive}

    # the worlds have no traffic lights: these do what CARLA does with none
    def get_traffic_lights_from_waypoint(self, waypoint, distance):
        """The lights stopping the lanes ahead of @p waypoint (along next()) within @p distance metres."""
        return self._lights.from_waypoint(waypoint, float(distance))

    def freeze_all_traffic_lights(self, frozen):
        bool(frozen)

    def reset_all_traffic_lights(self):
        pass

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _missing(self, "World", name)

    def wait_for_tick(self, seconds=10.0):
        """CARLA's wait for the world's next tick: its snapshot. In asynchronous mode (CARLA's default) the
        world's own clock ticks it (started here if no actor started it); in synchronous mode a tick() from
        another thread. After ``seconds`` without one, RuntimeError as CARLA's client raises it (a
        synchronous world whose only ticking thread waits here waits in vain, as in CARLA)."""
        deadline = time.monotonic() + float(seconds)
        with self._lock:
            if not self._settings.synchronous_mode:
                self._clock.start()
            f0 = self._frame
            while self._frame == f0:
                if self._clock.error is not None and not self._settings.synchronous_mode:
                    raise RuntimeError("World.wait_for_tick: the world's clock stopped at frame %d: %s" %
                                       (f0, self._clock.error))
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RuntimeError("time-out of %dms while waiting for the simulator, make sure the simulator "
                                       "is ready and connected to %s:%d" % (int(round(float(seconds) * 1000)),
                                                                           self._client.host, self._client.port))
                self._ticked.wait(left)
            return WorldSnapshot(self)
    wait_for_tick._unlocked = True

    def on_tick(self, callback):
        """Call ``callback(WorldSnapshot)`` after every tick; returns its id for remove_on_tick. As CARLA's
        client does, the callback runs off the ticking thread (one thread per callback, in frame order);
        tick() waits for it as for the sensors' callbacks (World.callback_wait_s in all)."""
        if not callable(callback):
            raise TypeError("World.on_tick: a callable, not %s" % type(callback).__name__)
        self._next_tick_cb += 1
        cid = self._next_tick_cb
        self._tick_cbs[cid] = (callback, Delivery(_TickCallback(cid)))
        self._clock.start()
        return cid

    def remove_on_tick(self, callback_id):
        cb = self._tick_cbs.pop(callback_id, None)
        if cb is None:
            raise RuntimeError("World.remove_on_tick: no callback %r" % (callback_id,))
        cb[1].close()

    def get_blueprint_library(self):
        """CARLA's blueprints, sensim's presets as sensor.lidar.<preset>, and sensors registered with
        carla.register_sensor (a new library each call: registrations made since are in it)."""
        return _library()

    def get_map(self):
        return self._map

    def get_actors(self, actor_ids=None):
        """Every live actor, or those of @p actor_ids in that order (CARLA's GetActorsById), missing ones left out."""
        if actor_ids is None:
            return ActorList(self._actors.values())
        return ActorList(self._actors[i] for i in actor_ids if i in self._actors)

    def _new_light(self, transform):
        a = TrafficLight(self, self._next_id, transform)
        self._actors[a.id], self._next_id = a, self._next_id + 1
        return a

    def _ros_on(self):
        """The world's ROS 2 participant, and control subscribers for its ego vehicles (role hero or ego)."""
        self._ros._writer()
        for a in list(self._actors.values()):
            if isinstance(a, Vehicle):
                self._ros.add_ego(a)

    def set_publish_tf(self, enabled=True):
        """sensim's: whether the world publishes /tf and /tf_static (on by default); off for a stack that
        owns its transform tree (Autoware's localisation publishes map -> base_link)."""
        self._ros.publish_tf = bool(enabled)

    def get_publish_tf(self):
        """Whether the world publishes /tf and /tf_static (CARLA's World.get_publish_tf)."""
        return self._ros.publish_tf

    def get_traffic_lights_in_junction(self, junction_id):
        return self._lights.in_junction(junction_id)

    def get_traffic_light_from_opendrive_id(self, traffic_light_id):
        return next((x for x in self._lights.lights if x.get_opendrive_id() == str(traffic_light_id)), None)

    def get_traffic_lights_from_waypoint(self, waypoint, distance):
        """The lights stopping the lanes ahead of @p waypoint (along next()) within @p distance metres."""
        return self._lights.from_waypoint(waypoint, float(distance))

    def freeze_all_traffic_lights(self, frozen):
        for g in self._lights.groups:
            g.frozen = bool(frozen)

    def reset_all_traffic_lights(self):
        for g in self._lights.groups:
            self._lights.reset(g)

    def get_actor(self, actor_id):
        return self._actors.get(actor_id)

    def get_weather(self):
        """The world's weather, a copy (CARLA's value semantics). The built-in street starts at
        WeatherParameters.ClearNoon. Its rain and fog act on the lidars (not the semantic lidar: ground truth)
        and the physical radars from the next tick on (sensor_weather in _carla_types: the mapping); cameras
        do not render it."""
        return self._weather._copy()

    def set_weather(self, weather):
        if not isinstance(weather, WeatherParameters):
            raise TypeError("World.set_weather: a carla.WeatherParameters, not %s" % type(weather).__name__)
        self._weather = weather._copy()
        for s in self._sensors:
            _sensors_mod.weather(self, s)

    def get_spectator(self):
        """CARLA's spectator: an actor whose transform a script may set and read; it renders nothing and
        nothing sees it."""
        if self._spectator is None:
            self._spectator = _Spectator(self, self._next_id)
            self._actors[self._next_id] = self._spectator
            self._next_id += 1
        return self._spectator

    # spawning
    def try_spawn_actor(self, blueprint, transform, attach_to=None, attachment_type=AttachmentType.Rigid):
        try:
            return self.spawn_actor(blueprint, transform, attach_to, attachment_type)
        except RuntimeError:
            return None

    def spawn_actor(self, blueprint, transform, attach_to=None, attachment_type=AttachmentType.Rigid):
        if not isinstance(blueprint, ActorBlueprint):
            raise TypeError("spawn_actor takes an ActorBlueprint")
        if attach_to is not None and (not isinstance(attach_to, Actor) or not attach_to.is_alive):
            raise RuntimeError("spawn_actor: attach_to is not a live actor")
        _checked(Transform(transform.location, transform.rotation), "spawn_actor(%s)" % blueprint.id)
        aid, bid = self._next_id, blueprint.id
        if bid in _LATER:
            raise RuntimeError("spawn_actor(%s): not offered by sensim.carla yet" % bid)
        if bid in _VEHICLES or bid in _WALKERS:
            if attach_to is not None:
                raise RuntimeError("spawn_actor(%s): vehicles and walkers are not attached to actors" % bid)
            cls = Vehicle if bid in _VEHICLES else Walker
            a = cls(self, aid, blueprint, transform, None, (_VEHICLES.get(bid) or _WALKERS[bid]))
            self._add_box(a)
        elif bid in _CONTROLLERS:
            if not isinstance(attach_to, Walker):
                raise RuntimeError("spawn_actor(%s): a walker controller is spawned attached to a walker" % bid)
            a = WalkerAIController(self, aid, blueprint, transform, attach_to)
        elif bid in _SENSORS or bid in _USER or bid in preset_lidar_ids():
            a = Sensor(self, aid, blueprint, transform, attach_to)
            _sensors_mod.make(self, a, blueprint)
        else:
            raise RuntimeError("spawn_actor: no blueprint '%s' in sensim.carla" % bid)
        self._next_id += 1
        self._actors[aid] = a
        if self._ros.active and isinstance(a, Vehicle):
            self._ros.add_ego(a)  # a hero or ego vehicle takes ROS 2 control (sensim.carla._carla_ros2)
        self._clock.start()  # an asynchronous world runs from its first actor on
        return a

    def _add_box(self, a):
        ext = a.bounding_box_extent
        lo, hi = (-ext.x, -ext.y, 0.0), (ext.x, ext.y, 2 * ext.z)  # CARLA's vehicle origin is at ground level
        v = [[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
        faces = [[0, 2, 1], [1, 2, 3], [4, 5, 6], [5, 7, 6], [0, 1, 4], [1, 5, 4], [2, 6, 3], [3, 6, 7],
                 [0, 4, 2], [2, 4, 6], [1, 3, 5], [3, 7, 5]]
        mesh = self._scene.add_mesh(v, faces, tag=a.semantic_tags[0], prototype=True)
        self._scene.add_actor(mesh, _ID0 + a.id, _native(a.get_transform()))
        self._scene.commit()
        a._in_scene = True

    def _platform(self, parent, static_for=None):
        key = parent.id if not static_for else ("static", static_for.id)  # a static lidar: a rig of its own
        if key not in self._platforms:
            self._platforms[key] = _Platform(self, parent, self._t_ns, static=bool(static_for))
            if parent is not None and getattr(parent, "_in_scene", False):
                # the rays of sensors on an actor leave through it in CARLA (the parent is ignored): here the
                # carrying actor is taken out of the scene the sensors see
                self._scene.remove_actor(_ID0 + parent.id)
                self._scene.commit()
                parent._in_scene = False
        return self._platforms[key]

    def _destroy(self, a):
        self._actors.pop(a.id, None)
        for tm in self._traffic.values():
            tm.unregister(a)
        self._walkers.stop(a)
        if a in self._sensors:
            self._sensors.remove(a)
            a._callback = None
            if a._delivery is not None:
                a._delivery.close()
            if hasattr(a, "_lidar"):  # its platform's rig still steps it: emptied each tick
                self._drain.append(a._ring)
        if getattr(a, "_in_scene", False):
            self._scene.remove_actor(_ID0 + a.id)
            self._scene.commit()

    # the tick
    def tick(self, seconds=10.0):
        """In synchronous mode: advance the world by fixed_delta_seconds and hand each due measurement to its sensor's callback
        thread (CARLA: callbacks run off the ticking thread, in frame order per sensor). Returns once this
        tick's callbacks have returned, or after ``callback_wait_s`` (1 s) in all when one of them does not
        (a warning names it; its measurements wait, see sensim.carla._carla_delivery). A tick happens whole
        or not at all: a sensor's measure function of the script's own that raises, or a value refused here,
        raises once and leaves the world as it was (frame, time, actors, cadences, shots); the next tick
        works. In asynchronous mode the world's clock ticks it: as CARLA's, tick() waits for its next tick
        (wait_for_tick) and returns its frame."""
        with self._lock:
            sync = self._settings.synchronous_mode
            if sync:
                frame, handed = self._advance()
        if not sync:
            return self.wait_for_tick(seconds).frame
        deadline = time.monotonic() + self.callback_wait_s
        for d in handed:  # outside the lock: a callback may call into the world
            d.wait(frame, deadline)
        return frame
    tick._unlocked = True

    def _advance(self):
        """One tick, whole or not at all (the caller holds the lock): (frame, the deliveries handed a
        measurement)."""
        dt = self._dt_ns
        t0, t1 = self._t_ns, self._t_ns + dt
        for sn in self._sensors:
            if sn._mount_dirty:
                _sensors_mod.remount(self, sn)
        # host-driven motion: target velocities integrated over the tick; the scene's actors move from their
        # pose at t0 to the one at t1 during the tick (lidar shots and radar rays see them in between)
        before = {a.id: _native(a.get_transform()) for a in self._actors.values() if getattr(a, "_in_scene", False)}
        moved, driven = {}, {}
        for a in self._actors.values():  # vehicles under control: the kinematic model (sensim.carla._carla_vehicle)
            if getattr(a, "_control", None) is not None and a.parent is None:
                v, yaw_rate = _vehicle_step(a._speed, a._control, dt * 1e-9, 1.2 * a.bounding_box_extent.x)
                mid = math.radians(a._rel.rotation.yaw + 0.5 * yaw_rate * dt * 1e-9)
                driven[a.id] = (a._speed, a._vel, a._ang)
                a._speed, a._vel = v, Vector3D(v * math.cos(mid), v * math.sin(mid), 0.0)
                a._ang = Vector3D(0.0, 0.0, yaw_rate)
        if self._ros.active:  # ego vehicles take the newest ROS 2 control (sensim.carla._carla_ros2)
            self._ros.pull_controls()
        self._lights.plan(dt)  # the lights' next states (the vehicles see this tick's start)
        for tm in self._traffic.values():  # autopilot vehicles: the traffic manager's lanes (_carla_traffic)
            moved.update(tm.plan(dt * 1e-9, self._actors))
        moved.update(self._walkers.plan(dt * 1e-9))  # walkers under a controller (_carla_walkers)
        for a in self._actors.values():
            if a.parent is None and a.id not in moved and (a._vel.squared_length() or a._ang.squared_length()):
                r = a._rel
                loc = r.location + a._vel * (dt * 1e-9)
                rot = Rotation(r.rotation.pitch + a._ang.y * dt * 1e-9, r.rotation.yaw + a._ang.z * dt * 1e-9,
                               r.rotation.roll + a._ang.x * dt * 1e-9)
                moved[a.id] = _checked(Transform(loc, rot), "tick: actor %d's target velocity" % a.id)
        cadence = [(sn, sn._due()) for sn in self._sensors]
        frame, t_s = self._frame + 1, t1 * 1e-9
        k = t1 // self._sample_ns
        was = {aid: self._actors[aid]._rel for aid in moved}
        for aid, tr in moved.items():
            self._actors[aid]._rel = tr
        self._frame, self._t_ns = frame, t1
        try:
            if before:
                self._scene.set_motion_interval(t0, t1)
                for a in self._actors.values():
                    if a.id in before:
                        self._scene.set_actor_motion(_ID0 + a.id, before[a.id], _native(a.get_transform()))
                self._scene.commit()
            # the script's own measure functions run first, before any rig steps: one that raises leaves the
            # world as it was (frame, time, actors, cadences, the rigs' shots), and the next tick works
            own = {sn: _measure(self, sn, frame, t_s, t0, t1, k) for sn, (due, _) in cadence
                   if hasattr(sn, "_user") and due and sn._callback is not None}
            for sn in self._sensors:
                if getattr(sn, "_paused", False) and sn._skip != getattr(sn, "_skip_set", 0):
                    sn._lidar.set_shot_offset(-sn._skip)
                    sn._skip_set = sn._skip
            for p in self._platforms.values():
                res = p.step(self, t1, dt)
                if res["sensors_refused"]:  # a measurement that should hold points: never delivered empty
                    raise RuntimeError("tick %d: %d sensors' buffers refused the tick (their measurements would "
                                       "be empty)" % (frame, res["sensors_refused"]))
        except BaseException:
            self._frame, self._t_ns = frame - 1, t0
            for aid, tr in was.items():
                self._actors[aid]._rel = tr
            for aid, (v, vel, ang) in driven.items():
                self._actors[aid]._speed, self._actors[aid]._vel, self._actors[aid]._ang = v, vel, ang
            if before:  # the scene holds the actors where the last tick left them
                for aid, m in before.items():
                    self._scene.set_actor_motion(_ID0 + aid, m, m)
                self._scene.commit()
            raise
        for sn, (_, cool) in cadence:
            sn._cool = cool
        for tm in self._traffic.values():
            tm.commit()
        self._walkers.commit()
        self._lights.commit()
        for ring in self._drain:
            for _ in ring.frames():
                pass
        handed = []
        for sn, (due, _) in cadence:
            ros = getattr(sn, "_ros", False)
            listening = sn._callback is not None or ros
            lidar = hasattr(sn, "_lidar")
            if lidar and not due and sn._paused:  # CARLA's sweep waits for the next measurement: this tick's
                n = sn._lidar.count_shots(t0, t1)  # shots are dropped and the pattern held back by them
                sn._skip += (n + sn._lanes // 2) // sn._lanes * sn._lanes  # (whole columns)
                sn._skip_ns += dt
            if not (due and listening):
                if lidar:
                    if due:  # the sensor ticked though nobody listens: its angle moves on, as in CARLA
                        _lidar_angle(self, sn, t1)
                    if due or not listening or sn._paused:  # shots nobody gets, or that CARLA does not fire
                        _lidar_points(sn)
                continue  # a camera nobody listens to renders nothing
            data = own[sn] if sn in own else _measure(self, sn, frame, t_s, t0, t1, k)
            for d in data if isinstance(data, list) else () if data is None else (data,):  # events: one each
                if ros:
                    self._ros.publish(sn, d, t1)
                if sn._callback is not None:
                    sn._delivery.put(frame, d, sn._callback)
                    handed.append(sn._delivery)
        self._ros.tick(t1)
        if self._tick_cbs:
            snap = WorldSnapshot(self)
            for cb, d in self._tick_cbs.values():
                d.put(frame, snap, cb)
                handed.append(d)
        self._ticked.notify_all()
        return frame, handed


Client._World = World  # the client makes worlds of this module's class (sensim.carla._carla_client)
