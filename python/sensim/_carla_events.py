"""sensim.carla's collision and lane-invasion sensors (CARLA's sensor.other.collision and
sensor.other.lane_invasion). Below the facade (never imports sensim.carla).

Collision (every tick, for the actor the sensor is attached to): its box against every other actor's box (the
vehicles' and walkers' CARLA extents; oriented boxes, separating axes, touching is not a collision), and
against the scene's static geometry along 19 lines through the box shrunk by 2 % (its 12 edges, 4 space
diagonals and 3 axes: static geometry that enters the box between those lines is missed; the road, its
markings, terrain and ground are the surface vehicles stand on and never count). One CollisionEvent per other
actor or static tag met in a tick, as CARLA sends one per contact. normal_impulse: no physics here, so it is
an estimate: 1500 kg times the closing speed along the line between the two centres (zero for a static hit
the actor does not move into), in CARLA's frame.

Lane invasion (every tick): the box's four ground corners, located on the world's OpenDRIVE lanes at the last
tick and now; a corner that moved to another lane of the same road section crossed the markings of the lane
boundaries between, which the event lists (carla.LaneMarking, as CARLA's crossed_lane_markings). No event in a
world without a road network, or for a corner off the lanes.
"""
import math

from ._carla_data import SensorData
from ._carla_roads import LaneMarking
from ._carla_types import Vector3D, _ID0, _native, np

MASS_KG = 1500.0
_SURFACE_TAGS = (1, 24, 10, 25)  # Roads, RoadLine, Terrain, Ground


class CollisionEvent(SensorData):
    """CARLA's carla.CollisionEvent: the sensor's parent (actor), what it met (other_actor), normal_impulse."""

    def __init__(self, frame, t_s, transform, actor, other_actor, normal_impulse):
        super().__init__(frame, t_s, transform)
        self.actor, self.other_actor, self.normal_impulse = actor, other_actor, normal_impulse

    def __repr__(self):
        return "CollisionEvent(frame=%d, other_actor=%s)" % (self.frame, getattr(self.other_actor, "type_id", None))


class LaneInvasionEvent(SensorData):
    """CARLA's carla.LaneInvasionEvent: the sensor's parent (actor) and the markings crossed."""

    def __init__(self, frame, t_s, transform, actor, crossed_lane_markings):
        super().__init__(frame, t_s, transform)
        self.actor, self.crossed_lane_markings = actor, crossed_lane_markings

    def __repr__(self):
        return "LaneInvasionEvent(frame=%d, crossed=%d)" % (self.frame, len(self.crossed_lane_markings))


def _box(actor):
    """(4x4 native pose of the box centre, half extents) of an actor with a bounding box."""
    ext = actor.bounding_box_extent
    m = _native(actor.get_transform())
    c = m.copy()
    c[:3, 3] = m[:3, 3] + m[:3, 2] * ext.z  # the box stands on the actor's origin
    return c, np.array([ext.x, ext.y, ext.z])


def _overlap(a, b):
    """Oriented boxes (pose, half extents) overlap: the 15 separating axes."""
    (ma, ea), (mb, eb) = a, b
    A, B = ma[:3, :3], mb[:3, :3]
    d = mb[:3, 3] - ma[:3, 3]
    axes = [A[:, i] for i in range(3)] + [B[:, i] for i in range(3)]
    axes += [np.cross(A[:, i], B[:, j]) for i in range(3) for j in range(3)]
    for ax in axes:
        n = np.linalg.norm(ax)
        if n < 1e-9:
            continue
        ax = ax / n
        ra = sum(ea[i] * abs(A[:, i] @ ax) for i in range(3))
        rb = sum(eb[i] * abs(B[:, i] @ ax) for i in range(3))
        if abs(d @ ax) >= ra + rb - 1e-9:
            return False
    return True


def _lines(pose, ext):
    """The 19 test lines of a box shrunk by 2 %: (origins, unit directions, lengths)."""
    e = 0.98 * ext
    R, c = pose[:3, :3], pose[:3, 3]
    corners = [np.array([sx, sy, sz]) * e for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]
    segs = []
    for i, a in enumerate(corners):
        for b in corners[i + 1:]:
            diff = np.sum(np.abs(b - a) > 1e-12)
            if diff == 1 or (diff == 3 and np.allclose(a, -b)):  # edges and space diagonals
                segs.append((a, b))
    for k in range(3):
        a = np.zeros(3)
        a[k] = -e[k]
        segs.append((a, -a))
    o = np.array([c + R @ a for a, _ in segs])
    v = np.array([R @ (b - a) for a, b in segs])
    lengths = np.linalg.norm(v, axis=1)
    return o, v / lengths[:, None], lengths


def collision_events(world, s, frame, t_s, tr, t_ns, static_object):
    parent = s.parent
    if parent is None or not hasattr(parent, "bounding_box_extent"):
        return None
    me = _box(parent)
    out = []
    for aid in sorted(world._actors):
        other = world._actors[aid]
        if other is parent or not hasattr(other, "bounding_box_extent") or not other.is_alive:
            continue
        ob = _box(other)
        if not _overlap(me, ob):
            continue
        d = ob[0][:3, 3] - me[0][:3, 3]
        n = np.linalg.norm(d)
        rel = np.array([parent._vel.x - other._vel.x, parent._vel.y - other._vel.y, parent._vel.z - other._vel.z])
        closing = max(0.0, float(rel @ (d / n))) if n > 0 else 0.0  # CARLA's frame: the same line, y negated
        imp = (d / n if n > 0 else np.zeros(3)) * (MASS_KG * closing)
        out.append(CollisionEvent(frame, t_s, tr, parent, other, Vector3D(imp[0], -imp[1], imp[2])))
    o, dirs, lengths = _lines(*me)
    hits = world._scene.intersect(o, dirs, tfar=lengths, time_ns=t_ns)
    seen = set()
    for h in hits:
        if not h["hit"] or int(h["object_id"]) >= _ID0 or int(h["tag"]) in _SURFACE_TAGS:
            continue
        key = (int(h["object_id"]), int(h["tag"]))
        if key in seen:
            continue
        seen.add(key)
        out.append(CollisionEvent(frame, t_s, tr, parent, static_object(*key), Vector3D()))
    return out or None


def _corners(actor):
    """The box's four ground corners in CARLA's frame."""
    ext = actor.bounding_box_extent
    t = actor.get_transform()
    yaw = math.radians(t.rotation.yaw)
    c, sn = math.cos(yaw), math.sin(yaw)
    return [(t.location.x + c * dx - sn * dy, t.location.y + sn * dx + c * dy, t.location.z)
            for dx, dy in ((ext.x, ext.y), (ext.x, -ext.y), (-ext.x, -ext.y), (-ext.x, ext.y))]


def _where(roads, p):
    """(road, section, lane) of a CARLA-frame point inside a lane of any type, or None."""
    try:
        hit = roads.net.locate((p[0], -p[1], p[2]), 0xFFFFFFFE)
    except Exception:  # noqa: BLE001 - no lane at all
        return None
    lanes = roads.net.lanes(hit["road"], hit["s"])
    ln = next((x for x in lanes if x["id"] == hit["lane"]), None)
    if ln is None or not (min(ln["t_inner"], ln["t_outer"]) - 1e-9 <= hit["t"] <= max(ln["t_inner"], ln["t_outer"])
                          + 1e-9):
        return None
    return hit["road"], ln["section"], ln["id"], lanes


def lane_invasion_event(world, s, frame, t_s, tr):
    parent = s.parent
    roads = world._map._roads
    if parent is None or roads is None or not hasattr(parent, "bounding_box_extent"):
        return None
    now = [_where(roads, p) for p in _corners(parent)]
    before, s._corner_lanes = getattr(s, "_corner_lanes", None), now
    if before is None:
        return None
    crossed = []
    for a, b in zip(before, now):
        if a is None or b is None or a[:2] != b[:2] or a[2] == b[2]:
            continue
        lanes = [x for x in b[3] if x["id"] != 0]  # the centre lane has no width: its line is one boundary
        centre = next(x for x in b[3] if x["id"] == 0)
        ids = [x["id"] for x in lanes]
        i, j = ids.index(a[2]), ids.index(b[2])
        for k in range(min(i, j), max(i, j)):  # each boundary between: the centre line where the side changes,
            u, w = lanes[k], lanes[k + 1]      # else the outer edge of the lane nearer the centre
            edge = centre if (u["id"] > 0) != (w["id"] > 0) else u if abs(u["id"]) < abs(w["id"]) else w
            crossed.append(LaneMarking(edge["mark_type"], edge["mark_color"]))
    if not crossed:
        return None
    return LaneInvasionEvent(frame, t_s, tr, parent, crossed)
