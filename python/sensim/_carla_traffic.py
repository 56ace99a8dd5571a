"""sensim.carla's traffic manager: CARLA's carla.TrafficManager as a kinematic lane follower over the world's
OpenDRIVE network. Below the facade (never imports sensim.carla).

The model (not CARLA's PID controllers on PhysX vehicles; documented in docs/carla.md):
  * A vehicle on autopilot stands on the centre of a lane and moves along it by its speed x delta each tick,
    through the lanes the network links (sensim.RoadNetwork.next_lanes); at a branch it takes one chosen by
    the manager's random generator (set_random_device_seed; CARLA's default seed is the random device's,
    here 0), so a run is the same for a seed.
  * Target speed: the road's speed limit (30 km/h where the file gives none) times (100 - p) / 100, p the
    vehicle's percentage (vehicle_percentage_speed_difference) or the global one (30, CARLA's default); or
    set_desired_speed. Acceleration up to 3.5 m/s^2 (the kinematic vehicle's throttle); it slows at once
    when it must (a kinematic box: no braking limit).
  * Gap: a vehicle keeps the leading vehicle's rear at least distance_to_leading_vehicle (default 2.5 m)
    beyond its front along its path, and never moves into that margin in a tick; any vehicle on its path
    counts (autopilot or not: the others are located on the network every tick).
  * Junctions: one vehicle in a junction at a time; the others wait at its entry, first come first served
    (ties by actor id). So vehicles never overlap in a junction, at the cost of throughput.
  * Traffic lights (sensim.carla._carla_lights): a vehicle stops at the end of its lane, before the
    junction, while the light of that lane is Red or Yellow, unless it already holds the junction (it went
    in on green); ignore_lights_percentage is the chance, rolled once per light approached, that it drives
    through.
  * Not modelled: lane changes (auto_lane_change and the lane-change percentages are kept; no vehicle
    changes lane), traffic signs, ignore_signs/vehicles/walkers_percentage (vehicles never ignore each
    other), hybrid physics, dormant vehicles. A vehicle at a dead end stops there.
Vehicles move on the world's clock: their poses are keys of the rig's motion at each tick's end, so lidar
shots within a tick see them between (as set_target_velocity does). A vehicle the host moves (set_transform,
set_location) drives on from the lane nearest its new place.
"""
import math
import random

from ._carla_api import missing as _missing
from ._carla_types import TrafficLightState
from ._carla_vehicle import A_BRAKE as BRAKE, A_THROTTLE as ACCEL  # the kinematic vehicle's m/s^2

DEFAULT_LIMIT = 30.0 / 3.6   # m/s, a road without <speed>
_RED, _YELLOW = TrafficLightState.Red, TrafficLightState.Yellow
LOOKAHEAD_MIN = 25.0         # m of path looked at ahead, at least


class _State:
    __slots__ = ("road", "section", "lane", "s", "speed", "path", "junction", "runs")

    def __init__(self, road, section, lane, s):
        self.road, self.section, self.lane, self.s = road, section, lane, s
        self.speed = 0.0
        self.path = []      # lanes chosen ahead: (road, section, lane, s where it begins)
        self.junction = None  # the junction it holds
        self.runs = None    # (light's actor id, whether it ignores it): the roll for the light ahead


class TrafficManager:
    """CARLA's carla.TrafficManager for one world and port (Client.get_trafficmanager)."""

    def __init__(self, world, port):
        self._world, self._port = world, port
        self._vehicles = {}            # actor id -> _State
        self._pct = {}                 # actor id -> percentage speed difference
        self._desired = {}             # actor id -> m/s
        self._global_pct, self._gap = 30.0, 2.5
        self._gaps = {}
        self._rng = random.Random(0)
        self._sync = False
        self._kept = {}                # settings kept and not modelled
        self._holders = {}             # junction id -> actor id holding it
        self._poses = {}               # actor id -> the pose it was given last (a different one: the host moved it)
        self._pending = None
        self._ignore_lights = {}       # actor id -> percentage

    # CARLA's API
    def get_port(self):
        return self._port

    def set_synchronous_mode(self, mode=True):
        self._sync = bool(mode)

    def set_random_device_seed(self, value):
        self._rng = random.Random(int(value))

    def global_percentage_speed_difference(self, percentage):
        self._global_pct = float(percentage)

    def vehicle_percentage_speed_difference(self, actor, percentage):
        self._pct[actor.id] = float(percentage)

    def set_desired_speed(self, actor, speed):
        """km/h, as CARLA's."""
        self._desired[actor.id] = float(speed) / 3.6

    def ignore_lights_percentage(self, actor, perc):
        """The chance (percent) that the vehicle drives through a red or yellow light: rolled once per light
        it approaches, from the manager's generator."""
        self._ignore_lights[actor.id] = min(100.0, max(0.0, float(perc)))

    def set_global_distance_to_leading_vehicle(self, distance):
        self._gap = max(0.0, float(distance))

    def distance_to_leading_vehicle(self, actor, distance):
        self._gaps[actor.id] = max(0.0, float(distance))

    def _keep(name):
        def kept(self, *args):
            self._kept[name] = args
        kept.__name__ = name
        kept.__doc__ = "Kept, not modelled (sensim.carla._carla_traffic's docstring says why)."
        return kept

    auto_lane_change = _keep("auto_lane_change")
    ignore_signs_percentage = _keep("ignore_signs_percentage")
    ignore_vehicles_percentage = _keep("ignore_vehicles_percentage")
    ignore_walkers_percentage = _keep("ignore_walkers_percentage")
    keep_right_rule_percentage = _keep("keep_right_rule_percentage")
    random_left_lanechange_percentage = _keep("random_left_lanechange_percentage")
    random_right_lanechange_percentage = _keep("random_right_lanechange_percentage")
    collision_detection = _keep("collision_detection")
    update_vehicle_lights = _keep("update_vehicle_lights")
    set_hybrid_physics_mode = _keep("set_hybrid_physics_mode")
    set_hybrid_physics_radius = _keep("set_hybrid_physics_radius")
    set_respawn_dormant_vehicles = _keep("set_respawn_dormant_vehicles")
    set_boundaries_respawn_dormant_vehicles = _keep("set_boundaries_respawn_dormant_vehicles")
    set_osm_mode = _keep("set_osm_mode")
    global_lane_offset = _keep("global_lane_offset")
    vehicle_lane_offset = _keep("vehicle_lane_offset")
    del _keep

    def shut_down(self):
        self._vehicles.clear()
        self._holders.clear()

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _missing(self, "TrafficManager", name)

    # the vehicles
    def register(self, vehicle):
        """set_autopilot(True): the vehicle is put on the centre of the nearest driving lane."""
        m = self._world._map
        if m._roads is None:
            raise RuntimeError("Vehicle.set_autopilot: the traffic manager drives on an OpenDRIVE road network; "
                               "the scene %s has none" % m.name)
        wp = m.get_waypoint(vehicle.get_location())
        if wp is None:
            raise RuntimeError("Vehicle.set_autopilot: vehicle %d is near no driving lane" % vehicle.id)
        self._vehicles[vehicle.id] = _State(wp._road, wp.section_id, wp.lane_id, wp.s)
        self._poses[vehicle.id] = vehicle.get_transform()  # a later set_transform is a move by the host

    def unregister(self, vehicle):
        self._poses.pop(vehicle.id, None)
        st = self._vehicles.pop(vehicle.id, None)
        if st is not None and st.junction is not None:
            self._holders.pop(st.junction, None)

    def has(self, actor_id):
        return actor_id in self._vehicles

    # one tick
    def _lane(self, road, section, lane, s):
        roads = self._world._map._roads
        for ln in roads.section_lanes(road, section, s):
            if ln["id"] == lane:
                return ln
        return None

    def _extend(self, st, need):
        """Choose lanes ahead until the path reaches @p need metres beyond the vehicle (or a dead end)."""
        roads = self._world._map._roads
        ln = self._lane(st.road, st.section, st.lane, st.s)
        fwd = roads.with_s(st.road, st.lane)
        have = (ln["section_s1"] - st.s) if fwd else (st.s - ln["section_s0"])
        last = (st.road, st.section, st.lane)
        for seg in st.path:
            lx = self._lane(seg[0], seg[1], seg[2], seg[3])
            have += lx["section_s1"] - lx["section_s0"]
            last = seg[:3]
        while have < need and len(st.path) < 64:
            nxt = roads.net.next_lanes(last[0], last[1], last[2])
            nxt = [n for n in nxt if self._lane(n["road"], n["section"], n["lane"], n["s"]) is not None and
                   self._lane(n["road"], n["section"], n["lane"], n["s"])["type_bits"] & 0x2]
            if not nxt:
                break
            n = nxt[self._rng.randrange(len(nxt))] if len(nxt) > 1 else nxt[0]
            st.path.append((n["road"], n["section"], n["lane"], n["s"]))
            lx = self._lane(n["road"], n["section"], n["lane"], n["s"])
            have += lx["section_s1"] - lx["section_s0"]
            last = (n["road"], n["section"], n["lane"])
        return have

    def _metres_per_s(self, road, ln, s, fwd):
        """How far the lane's centre moves per metre of s here (1 on a straight; 1 - curvature x t on a bend)."""
        net = self._world._map._roads.net
        h = 0.25 if fwd else -0.25
        s2 = min(max(s + h, ln["section_s0"]), ln["section_s1"])
        if s2 == s:
            s2 = min(max(s - h, ln["section_s0"]), ln["section_s1"])
        if s2 == s:
            return 1.0
        l2 = self._lane(road, ln["section"], ln["id"], s2)  # its centre there (widths and offsets vary)
        a = net.pose(road, s, 0.5 * (ln["t_inner"] + ln["t_outer"]))
        b = net.pose(road, s2, 0.5 * (l2["t_inner"] + l2["t_outer"]))
        return max(1e-3, math.hypot(float(a[0][3] - b[0][3]), float(a[1][3] - b[1][3])) / abs(s2 - s))

    def _chord(self, road, ln, s0, s1):
        """The straight distance the lane's centre moves from s0 to s1 (within its section)."""
        net = self._world._map._roads.net
        l1 = self._lane(road, ln["section"], ln["id"], s1)
        a = net.pose(road, s0, 0.5 * (ln["t_inner"] + ln["t_outer"]))
        b = net.pose(road, s1, 0.5 * (l1["t_inner"] + l1["t_outer"]))
        return math.hypot(float(a[0][3] - b[0][3]), float(a[1][3] - b[1][3]))

    def plan(self, dt, actors):
        """The poses (CARLA Transforms) of the autopilot vehicles at the tick's end; commit() keeps their new
        states (a tick that fails keeps the old)."""
        if not self._vehicles:
            self._pending = None
            return {}
        roads = self._world._map._roads
        # where everybody is: autopilot vehicles by their state, the others located on the network
        occ = {}
        for aid, a in sorted(actors.items()):
            if not hasattr(a, "bounding_box_extent") or not a.is_alive:
                continue
            half = a.bounding_box_extent.x
            if aid in self._vehicles:
                st = self._vehicles[aid]
                occ.setdefault((st.road, st.section, st.lane), []).append((st.s, aid, half, st.speed))
            elif a.parent is None:
                loc = a.get_location()
                try:
                    hit = roads.net.locate((loc.x, -loc.y, loc.z), 0xFFFFFFFE)
                except Exception:  # noqa: BLE001 - off the network: nobody's path
                    continue
                if hit["distance_m"] < 2.0:
                    sec = roads.net.lanes(hit["road"], hit["s"])[0]["section"]
                    occ.setdefault((hit["road"], sec, hit["lane"]), []).append((hit["s"], aid, half, 0.0))
        new, poses = {}, {}
        holders = dict(self._holders)
        for aid in sorted(self._vehicles):
            a = actors.get(aid)
            if a is None or not a.is_alive:
                continue
            last = self._poses.get(aid)
            if last is not None and a._rel.location.distance(last.location) > 1e-6:
                self.register(a)  # the host moved it (set_transform, set_location): it drives on from there
                st0 = self._vehicles[aid]
                if st0.junction is not None:
                    holders.pop(st0.junction, None)
            st0 = self._vehicles[aid]
            st = _State(st0.road, st0.section, st0.lane, st0.s)
            st.speed, st.path, st.junction, st.runs = st0.speed, list(st0.path), st0.junction, st0.runs
            half = a.bounding_box_extent.x
            limit = self._desired.get(aid)
            if limit is None:
                lim = roads.road[st.road]["speed_limit_mps"] or DEFAULT_LIMIT
                limit = lim * (100.0 - self._pct.get(aid, self._global_pct)) / 100.0
            gap = self._gaps.get(aid, self._gap)
            look = max(LOOKAHEAD_MIN, st.speed * st.speed / (2 * BRAKE) + 2 * half + gap + 10.0)
            self._extend(st, look)
            # the free distance ahead: to the nearest vehicle's rear, or to a junction someone else holds
            free = math.inf
            fwd = roads.with_s(st.road, st.lane)
            ln = self._lane(st.road, st.section, st.lane, st.s)
            for s, oid, ohalf, ospeed in occ.get((st.road, st.section, st.lane), ()):
                ahead = (s - st.s) if fwd else (st.s - s)
                if oid != aid and ahead > 0:
                    free = min(free, ahead - half - ohalf - gap)
            dist = (ln["section_s1"] - st.s) if fwd else (st.s - ln["section_s0"])
            cur_j = roads.road[st.road]["junction"]
            prev = (st.road, st.lane)
            red = None  # the junction ahead whose light stops this vehicle
            for seg in st.path:
                lx = self._lane(seg[0], seg[1], seg[2], seg[3])
                f2 = roads.with_s(seg[0], seg[2])
                j = roads.road[seg[0]]["junction"]
                if j != "-1" and j != cur_j and st.junction != j and red is None and self._stops(aid, st, prev):
                    red = j
                    free = min(free, dist - half - 0.5)  # at the stop line
                if j != "-1" and j != cur_j and holders.get(j, aid) != aid:
                    free = min(free, dist - half - 0.5)  # wait at the junction's entry
                prev = (seg[0], seg[2])
                for s, oid, ohalf, ospeed in occ.get(seg[:3], ()):
                    along = dist + ((s - lx["section_s0"]) if f2 else (lx["section_s1"] - s))
                    if oid != aid:
                        free = min(free, along - half - ohalf - gap)
                dist += lx["section_s1"] - lx["section_s0"]
                if dist > look:
                    break
            free = max(0.0, free)
            v_safe = math.sqrt(2 * BRAKE * free) if math.isfinite(free) else math.inf
            target = min(limit, v_safe)
            v = min(target, st.speed + ACCEL * dt)
            step = min(v * dt, free)
            v = step / dt if step < v * dt else v
            # move along the path: metres along the lane's centre, converted to s where the lane is not the
            # reference line's length (its outside of a bend is longer)
            left = step
            while True:
                ln = self._lane(st.road, st.section, st.lane, st.s)
                fwd = roads.with_s(st.road, st.lane)
                room = (ln["section_s1"] - st.s) if fwd else (st.s - ln["section_s0"])
                used = self._chord(st.road, ln, st.s, st.s + (room if fwd else -room)) if room > 0 else 0.0
                if left <= used or not st.path:
                    k = self._metres_per_s(st.road, ln, st.s, fwd)
                    ds = min(left / k, room)
                    chord = self._chord(st.road, ln, st.s, st.s + (1 if fwd else -1) * ds)
                    if chord > left > 0:  # one secant step on what the centre actually travels
                        ds *= left / chord
                    st.s += (1 if fwd else -1) * ds
                    if left > used:
                        v = 0.0  # a dead end
                    break
                left -= used
                st.road, st.section, st.lane, st.s = st.path.pop(0)
            # junctions: take the next one when near its entry and it is free; leave the one behind
            j = roads.road[st.road]["junction"]
            if st.junction is not None and st.junction != j:
                holders.pop(st.junction, None)
                st.junction = None
            if j != "-1":
                holders[j] = aid
                st.junction = j
            else:
                dist = room - (left if left <= room else room)
                for seg in st.path:
                    jj = roads.road[seg[0]]["junction"]
                    if jj != "-1":
                        if jj not in holders and jj != red and dist <= v * v / (2 * BRAKE) + half + 1.0:
                            holders[jj] = aid
                            st.junction = jj
                        break
                    lx = self._lane(seg[0], seg[1], seg[2], seg[3])
                    dist += lx["section_s1"] - lx["section_s0"]
            st.speed = v
            new[aid] = st
            wp = roads.waypoint(st.road, st.section, st.lane, st.s)
            poses[aid] = wp.transform
        self._pending = (new, holders, poses)
        return poses

    def _stops(self, aid, st, lane):
        """Whether the light at the end of @p lane (road, lane) holds the vehicle: Red or Yellow (CARLA's
        manager stops for both), unless its roll for that light says it runs it."""
        lights = getattr(self._world, "_lights", None)
        light = lights.light_for(*lane) if lights is not None else None
        if light is None or lights.state_of(light) not in (_RED, _YELLOW):
            return False
        if st.runs is None or st.runs[0] != light.id:
            pct = self._ignore_lights.get(aid, 0.0)
            st.runs = (light.id, pct > 0 and self._rng.random() * 100.0 < pct)
        return not st.runs[1]

    def commit(self):
        if self._pending is not None:
            new, holders, poses = self._pending
            self._vehicles.update(new)
            self._holders = holders
            self._poses.update(poses)
            self._pending = None

    def speed(self, actor_id):
        st = self._vehicles.get(actor_id)
        return 0.0 if st is None else st.speed
