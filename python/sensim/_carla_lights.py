"""sensim.carla's traffic lights: CARLA's carla.TrafficLight actors from the OpenDRIVE network's dynamic
signals of type 1000001 (CARLA's traffic-light code), cycled as CARLA's traffic-light groups cycle. Below
the facade (never imports sensim.carla).

The rule (CARLA 0.9.15's TrafficLightController and TrafficLightGroup):
  * Each light is its own controller with CARLA's default stages: Green 10 s, Yellow 3 s, Red 2 s
    (set_green_time / set_yellow_time / set_red_time change them).
  * The lights of the roads entering one junction form a group (get_group_traffic_lights; pole index = the
    order of their signals in the file). One light of the group runs its stages at a time while the others
    are Red; when its Red stage ends the next light turns Green. A world starts each group at its first
    light's Green.
  * Time is the world's: a group moves on by each tick's delta (integer nanoseconds, so a run is the same
    for any split of the same ticks); a stage change falls on the tick that reaches it.
  * set_state holds a light in a state until its group's next stage change; freeze(True) stops its group
    (freeze_all_traffic_lights every group); reset_group restarts the group at its first light's Green.
  * A light's place: the signal's pose (s, t, zOffset on its road), facing the traffic it stops (yaw =
    the lane's direction of travel + 180 degrees). Its trigger_volume (in its own frame, as CARLA's) is a
    5 m box on the lane it stops, ending at the signal's s; get_stop_waypoints the lane's waypoint there.
  * OpenDRIVE's <controller> elements are not read (each signal is its own controller); signals that are
    not dynamic lights are not actors (CARLA's landmarks and traffic signs are not offered).
"""
import math

from ._carla_api import missing as _missing
from ._carla_async import serialized
from ._carla_types import BoundingBox, Location, Rotation, Transform, TrafficLightState, Vector3D

TYPE_LIGHT = "1000001"
STAGES = (TrafficLightState.Green, TrafficLightState.Yellow, TrafficLightState.Red)
TIMES_S = (10.0, 3.0, 2.0)   # CARLA's TrafficLightController: Green 10 s, Yellow 3 s, Red 2 s
TRIGGER_HALF_M = 2.5         # half the trigger box's length along the lane


class _Group:
    __slots__ = ("junction", "lights", "k", "stage", "elapsed", "frozen", "clock")

    def __init__(self, junction, lights):
        self.junction, self.lights = junction, lights
        self.k, self.stage, self.elapsed, self.frozen, self.clock = 0, 0, 0, False, 0

    def copy(self):
        g = _Group(self.junction, self.lights)
        g.k, g.stage, g.elapsed, g.frozen, g.clock = self.k, self.stage, self.elapsed, self.frozen, self.clock
        return g


class Lights:
    """The world's traffic lights: built from its map's network (none without one), stepped each tick
    (plan at the tick's start, commit when the tick succeeds)."""

    def __init__(self, world, make_actor):
        self._world = world
        self.lights, self.groups, self.by_lane = [], [], {}
        self._pending = None
        roads = getattr(world._map, "_roads", None)
        if roads is None:
            return
        by_junction = {}
        for sig in roads.net.signals():
            if not (sig["dynamic"] and sig["type"] == TYPE_LIGHT):
                continue
            road = sig["road"]
            lane = sig["validity"][0] if sig["validity"] else (-1 if sig["orientation"] >= 0 else 1)
            if roads.road[road]["left_hand_traffic"] and not sig["validity"]:
                lane = -lane
            fwd = roads.with_s(road, lane)
            info = roads.road[road]
            s_end = info["length_m"] if fwd else 0.0
            lanes = [x for x in roads.net.lanes(road, s_end) if x["id"] == lane]
            if not lanes:
                continue
            ln = lanes[0]
            junction = None
            for n in roads.net.next_lanes(road, ln["section"], lane):
                j = roads.road[n["road"]]["junction"]
                if j != "-1":
                    junction = j
                    break
            s = min(max(sig["s"], 0.0), info["length_m"])
            m = roads.net.pose(road, s, sig["t"])
            hdg = math.atan2(float(m[1][0]), float(m[0][0])) + (0.0 if fwd else math.pi)  # the travel's
            face = math.degrees(hdg) + 180.0
            loc = Location(float(m[0][3]), -float(m[1][3]), float(m[2][3]) + sig["z_offset"])
            tr = Transform(loc, Rotation(yaw=-face))
            light = make_actor(tr)
            light._light = _LightData(self, sig, road, lane, s, ln)
            light._light.trigger = _trigger(roads, tr, road, lane, s, fwd)
            self.lights.append(light)
            self.by_lane[(road, lane)] = light
            by_junction.setdefault(junction if junction is not None else "signal %s" % sig["id"], []).append(light)
        for junction, group in by_junction.items():
            g = _Group(junction, group)
            for i, light in enumerate(group):
                light._light.group, light._light.index = g, i
            self.groups.append(g)

    # the group rule
    def state_of(self, light):
        d = light._light
        if d.override is not None:
            return d.override
        g = d.group
        return STAGES[g.stage] if g.lights[g.k] is light else TrafficLightState.Red

    def plan(self, dt_ns):
        """The groups after one tick of @p dt_ns (kept by commit)."""
        new = {}
        for g0 in self.groups:
            g, changed = g0.copy(), False
            if not g.frozen and g.lights:
                g.elapsed += dt_ns
                g.clock += dt_ns
                for _ in range(3 * len(g.lights) + 3):  # a tick longer than a whole cycle: bounded
                    d = g.lights[g.k]._light.times_ns[g.stage]
                    if g.elapsed < d:
                        break
                    g.elapsed -= d
                    changed = True
                    g.stage += 1
                    if g.stage == 3:
                        g.stage, g.k = 0, (g.k + 1) % len(g.lights)
            new[id(g0)] = (g, changed)
        self._pending = new

    def commit(self):
        if self._pending is None:
            return
        for g0 in self.groups:
            g, changed = self._pending[id(g0)]
            before = [self.state_of(x) for x in g0.lights]
            g0.k, g0.stage, g0.elapsed, g0.frozen, g0.clock = g.k, g.stage, g.elapsed, g.frozen, g.clock
            for x, b in zip(g0.lights, before):
                if changed:
                    x._light.override = None
                if self.state_of(x) != b:
                    x._light.since = g0.clock - g0.elapsed  # when the stage began
        self._pending = None

    def reset(self, g):
        g.k, g.stage, g.elapsed = 0, 0, 0
        for light in g.lights:
            light._light.override, light._light.since = None, g.clock

    # queries
    def light_for(self, road, lane):
        return self.by_lane.get((road, lane))

    def in_junction(self, junction_id):
        return [x for x in self.lights if x._light.group.junction not in (None, "-1") and
                str(x._light.group.junction) == str(junction_id)]

    def from_waypoint(self, waypoint, distance):
        """The lights that stop the lanes reached from @p waypoint within @p distance metres along next()."""
        stops = {}
        for x in self.lights:
            w = x.get_stop_waypoints()[0]
            stops.setdefault((w.road_id, w.lane_id), []).append(x)
        out, seen, front = [], set(), [(waypoint, 0.0)]
        while front:
            wp, d = front.pop()
            key = (wp.road_id, wp.lane_id)
            for x in stops.get(key, ()):
                ahead = (x._light.s - wp.s) if wp._forward else (wp.s - x._light.s)
                if x not in out and -1e-9 <= ahead <= distance - d + 1e-9:
                    out.append(x)
            if d >= distance or (key, round(wp.s, 3)) in seen:
                continue
            seen.add((key, round(wp.s, 3)))
            step = min(2.0, distance - d)
            if step > 0:
                front.extend((n, d + step) for n in wp.next(step))
        return out

    def containing(self, location):
        """The light whose trigger volume holds @p location (CARLA frame), or None."""
        for light in self.lights:
            if light._light.trigger.contains(location, light.get_transform()):
                return light
        return None


class _LightData:
    __slots__ = ("lights", "signal", "road", "lane", "s", "lane_info", "group", "index", "override", "since",
                 "times_ns", "trigger")

    def __init__(self, lights, sig, road, lane, s, ln):
        self.lights, self.signal, self.road, self.lane, self.s, self.lane_info = lights, sig, road, lane, s, ln
        self.group, self.index, self.override, self.since = None, 0, None, 0
        self.times_ns = [int(round(t * 1e9)) for t in TIMES_S]
        self.trigger = None


def _trigger(roads, light_tr, road, lane, s, fwd):
    """CARLA's trigger_volume: a box on the lane before the stop line, in the light's frame."""
    info = roads.road[road]
    sc = s - TRIGGER_HALF_M if fwd else s + TRIGGER_HALF_M
    sc = min(max(sc, 0.0), info["length_m"])
    ln = next(x for x in roads.net.lanes(road, sc) if x["id"] == lane)
    m = roads.net.pose(road, sc, 0.5 * (ln["t_inner"] + ln["t_outer"]))
    world = Location(float(m[0][3]), -float(m[1][3]), float(m[2][3]) + 1.0)
    local = Transform(light_tr.location, light_tr.rotation).inverse_transform(world)
    return BoundingBox(Location(local.x, local.y, local.z), Vector3D(TRIGGER_HALF_M, 0.5 * ln["width"], 1.0))


@serialized
class TrafficLightApi:
    """CARLA's carla.TrafficLight methods, mixed into sensim.carla's TrafficLight actor (self._light, the
    light's data; self._world, its world)."""

    @property
    def trigger_volume(self):
        b = self._light.trigger
        return BoundingBox(Location(b.location.x, b.location.y, b.location.z), Vector3D(b.extent.x, b.extent.y,
                                                                                        b.extent.z))

    @property
    def state(self):
        return self._world._lights.state_of(self)

    def get_state(self):
        return self.state

    def set_state(self, state):
        """Held until the group's next stage change (CARLA: the group's timing goes on)."""
        if not isinstance(state, TrafficLightState):
            raise TypeError("TrafficLight.set_state: a carla.TrafficLightState, not %r" % (state,))
        if state != self.state:
            self._light.since = self._light.group.clock
        self._light.override = state

    def get_elapsed_time(self):
        """Seconds since this light took its present state (its group's clock: frozen time does not count)."""
        return (self._light.group.clock - self._light.since) * 1e-9

    def _time(self, i, value=None, what=""):
        if value is None:
            return self._light.times_ns[i] * 1e-9
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3600:
            raise ValueError("TrafficLight.set_%s_time: seconds in (0, 3600], not %r" % (what, value))
        self._light.times_ns[i] = int(round(float(value) * 1e9))

    def get_green_time(self):
        return self._time(0)

    def get_yellow_time(self):
        return self._time(1)

    def get_red_time(self):
        return self._time(2)

    def set_green_time(self, green_time):
        self._time(0, green_time, "green")

    def set_yellow_time(self, yellow_time):
        self._time(1, yellow_time, "yellow")

    def set_red_time(self, red_time):
        self._time(2, red_time, "red")

    def freeze(self, freeze):
        """Stops (True) or restarts (False) this light's group at its present state, as CARLA's."""
        self._light.group.frozen = bool(freeze)

    def is_frozen(self):
        return self._light.group.frozen

    def get_pole_index(self):
        return self._light.index

    def get_group_traffic_lights(self):
        return list(self._light.group.lights)

    def reset_group(self):
        self._world._lights.reset(self._light.group)

    def get_opendrive_id(self):
        return self._light.signal["id"]

    def get_stop_waypoints(self):
        d = self._light
        roads = self._world._map._roads
        return [roads.waypoint(d.road, d.lane_info["section"], d.lane, d.s)]

    def get_affected_lane_waypoints(self):
        return self.get_stop_waypoints()

    def get_light_boxes(self):
        """The light's head: a 0.3 m x 0.3 m x 1 m box at the top of its 5 m pole, world frame."""
        t = self.get_transform()
        return [BoundingBox(Location(t.location.x, t.location.y, t.location.z + 4.5), Vector3D(0.15, 0.15, 0.5),
                            Rotation(t.rotation.pitch, t.rotation.yaw, t.rotation.roll))]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _missing(self, "TrafficLight", name)
