"""sensim.carla's pedestrians: CARLA's controller.ai.walker over the world's OpenDRIVE sidewalks. Below the facade
(never imports sensim.carla).

No navigation mesh: a walker walks along the centre of the sidewalk lane it stands on, on the sidewalk's top
(raised as the scene builds it, 0.15 m), at its max speed (set_max_speed; CARLA's default 1.4 m/s) towards
its target (go_to_location): along the lane to the target's point on it when the target lies on the same
lane, else to the lane's end nearer the target and on along a linked sidewalk lane; it stops at its target or
at a dead end. Walkers never cross roads (set_pedestrians_cross_factor is kept; CARLA's walkers cross at
crosswalks) and do not avoid each other. World.get_random_location_from_navigation gives a point on the centre
of a sidewalk lane, uniformly by length, from a generator seeded by set_pedestrians_seed (0 until set): the
same points for a seed. A world without sidewalks has no navigation: it gives None, as CARLA's does.
"""
import random

SIDEWALK = 0x20
HEIGHT = 0.15  # the sidewalks' top above the road (sensim_road_mesh_options.sidewalk_height_m)


class Walkers:
    """The world's pedestrian navigation: the sidewalk lanes, the seed, and each started controller's walk."""

    def __init__(self, world):
        self._world = world
        self._rng = random.Random(0)
        self._lanes = None      # (road, section, lane, s0, s1) of every sidewalk lane
        self._walks = {}        # controller id -> [walker, (road, section, lane, s), target, speed]
        self._pending = None
        self.cross_factor = 0.0

    def seed(self, value):
        self._rng = random.Random(int(value))

    def _sidewalks(self):
        if self._lanes is None:
            roads = self._world._map._roads
            self._lanes = []
            for road in range(len(roads.road) if roads else 0):
                for lanes in roads.sections(road):
                    for ln in lanes:
                        if ln["type_bits"] & SIDEWALK and ln["width"] > 0:
                            self._lanes.append((road, ln["section"], ln["id"], ln["section_s0"], ln["section_s1"]))
        return self._lanes

    def _point(self, road, section, lane, s):
        """The CARLA transform on a sidewalk lane's centre at s, on its top."""
        w = self._world._map._roads.waypoint(road, section, lane, s)
        t = w.transform
        t.location.z += HEIGHT
        return t

    def random_location(self):
        lanes = self._sidewalks()
        if not lanes:
            return None
        total = sum(b - a for _, _, _, a, b in lanes)
        x = self._rng.random() * total
        for road, section, lane, a, b in lanes:
            if x <= b - a:
                return self._point(road, section, lane, a + x).location
            x -= b - a
        road, section, lane, a, b = lanes[-1]
        return self._point(road, section, lane, b).location

    def _locate(self, loc):
        roads = self._world._map._roads
        try:
            hit = roads.net.locate((loc.x, -loc.y, loc.z - HEIGHT), SIDEWALK)
        except Exception:  # noqa: BLE001 - no sidewalk
            return None
        sec = roads.net.lanes(hit["road"], hit["s"])[0]["section"]
        return hit["road"], sec, hit["lane"], hit["s"]

    # the controller's calls
    def start(self, controller):
        walker = controller.parent
        if walker is None or self._world._map._roads is None:
            raise RuntimeError("WalkerAIController.start: the controller must be spawned attached to a walker, in "
                               "a world with an OpenDRIVE road network")
        at = self._locate(walker.get_location())
        if at is None:
            raise RuntimeError("WalkerAIController.start: walker %d is near no sidewalk" % walker.id)
        self._walks[controller.id] = [walker, at, None, 1.4]

    def stop(self, controller):
        self._walks.pop(controller.id, None)

    def go_to_location(self, controller, location):
        if controller.id in self._walks:
            self._walks[controller.id][2] = self._locate(location)

    def set_max_speed(self, controller, speed):
        if controller.id in self._walks:
            self._walks[controller.id][3] = max(0.0, float(speed))

    # one tick
    def plan(self, dt):
        if not self._walks:
            self._pending = None
            return {}
        roads = self._world._map._roads
        new, poses = {}, {}
        for cid in sorted(self._walks):
            walker, (road, section, lane, s), target, speed = self._walks[cid]
            if not walker.is_alive:
                continue
            left = speed * dt
            for _ in range(64):  # lanes crossed in one tick, at most
                ln = roads.section_lanes(road, section, s)
                me = next(x for x in ln if x["id"] == lane)
                a, b = me["section_s0"], me["section_s1"]
                if target is None:
                    break
                if target[:3] == (road, section, lane):  # on the target's lane: walk to it
                    step = max(-left, min(left, target[3] - s))
                    s += step
                    break
                # towards the end nearer the target, and on to a sidewalk linked there
                tr = self._point(*target).location
                ends = [(self._point(road, section, lane, e).location.distance(tr), e) for e in (a, b)]
                end = min(ends)[1]
                room = abs(end - s)
                if left <= room:
                    s += left if end > s else -left
                    break
                left -= room
                s = end
                forward = roads.with_s(road, lane) == (end == b)
                links = (roads.net.next_lanes if forward else roads.net.previous_lanes)(road, section, lane)
                links = [k for k in links if any(x["id"] == k["lane"] and x["type_bits"] & SIDEWALK
                                                 for x in roads.section_lanes(k["road"], k["section"], k["s"]))]
                if not links:
                    break  # a dead end: it waits there
                k = links[0]
                road, section, lane = k["road"], k["section"], k["lane"]
                ls = roads.section_lanes(road, section, k["s"])
                lx = next(x for x in ls if x["id"] == lane)
                # it enters the linked lane at the end that meets this one
                s = lx["section_s1"] if abs(k["s"] - lx["section_s0"]) < 1e-9 and not forward else k["s"]
            new[cid] = (road, section, lane, s)
            poses[walker.id] = self._point(road, section, lane, s)
        self._pending = new
        return poses

    def commit(self):
        if self._pending:
            for cid, at in self._pending.items():
                if cid in self._walks:
                    self._walks[cid][1] = at
        self._pending = None
