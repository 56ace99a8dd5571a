"""CARLA's road-network API over sensim.RoadNetwork (OpenDRIVE): carla.Waypoint, the lane enums and
carla.LaneMarking, for sensim.carla's Map. Below the facade (never imports sensim.carla).

Frames: OpenDRIVE's inertial frame is libsensim's native one; CARLA's is the same with y negated (as CARLA
converts its maps). A waypoint stands on the centre of its lane, its transform facing the lane's direction
of travel (right-hand traffic: negative lane ids travel with s; rule="LHT" roads the other way round).
Distances along a lane (next, previous, generate_waypoints) are measured along the road's reference line,
in s, as CARLA measures them.
"""
import enum
import math
import zlib

from ._carla_api import missing as _missing
from ._carla_types import _from_native, np

MAX_HOPS = 256  # lanes a next()/previous() walk may pass through (a loop of tiny lanes cannot hang it)


class LaneType(enum.IntFlag):
    """CARLA's carla.LaneType (its bit values)."""
    NONE = 0x1
    Driving = 0x2
    Stop = 0x4
    Shoulder = 0x8
    Biking = 0x10
    Sidewalk = 0x20
    Border = 0x40
    Restricted = 0x80
    Parking = 0x100
    Bidirectional = 0x200
    Median = 0x400
    Special1 = 0x800
    Special2 = 0x1000
    Special3 = 0x2000
    RoadWorks = 0x4000
    Tram = 0x8000
    Rail = 0x10000
    Entry = 0x20000
    Exit = 0x40000
    OffRamp = 0x80000
    OnRamp = 0x100000
    Any = 0xFFFFFFFE


class LaneChange(enum.IntFlag):
    """CARLA's carla.LaneChange."""
    NONE = 0
    Right = 1
    Left = 2
    Both = 3


class LaneMarkingType(enum.IntEnum):
    """CARLA's carla.LaneMarkingType."""
    Other = 0
    Broken = 1
    Solid = 2
    SolidSolid = 3
    SolidBroken = 4
    BrokenSolid = 5
    BrokenBroken = 6
    BottsDots = 7
    Grass = 8
    Curb = 9
    NONE = 10


class LaneMarkingColor(enum.IntEnum):
    """CARLA's carla.LaneMarkingColor (White is Standard)."""
    Standard = 0
    White = 0
    Blue = 1
    Green = 2
    Red = 3
    Yellow = 4
    Other = 5


_CROSSABLE = (LaneMarkingType.Broken, LaneMarkingType.BrokenBroken, LaneMarkingType.BottsDots)


class LaneMarking:
    """CARLA's carla.LaneMarking: the marking's type, colour, which lane changes it allows, its width (m).
    A broken line allows both; solid and double lines none (OpenDRIVE's laneChange attribute is not read)."""

    def __init__(self, type, color, width=0.15):
        self.type, self.color, self.width = LaneMarkingType(type), LaneMarkingColor(color), width
        self.lane_change = LaneChange.Both if self.type in _CROSSABLE else LaneChange.NONE

    def __repr__(self):
        return "LaneMarking(type=%s, color=%s)" % (self.type.name, self.color.name)


def _int_id(text):
    """CARLA's road and junction ids are ints: the OpenDRIVE id as an int, or a stable 31-bit hash of it."""
    try:
        return int(text)
    except ValueError:
        return zlib.crc32(text.encode()) & 0x7FFFFFFF


class Roads:
    """The network of one world, with what the waypoints need of it (road descriptions, cached)."""

    def __init__(self, net, xodr_text):
        self.net, self.xodr = net, xodr_text
        self.road = net.roads()

    def sections(self, road):
        """The lanes of each lane section of @p road in turn (sensim.RoadNetwork.lanes at the section's start)."""
        s, length = 0.0, self.road[road]["length_m"]
        while True:
            lanes = self.net.lanes(road, s)
            yield lanes
            if lanes[0]["section_s1"] >= length:
                return
            s = lanes[0]["section_s1"]

    def with_s(self, road, lane):
        """Does lane @p lane of road @p road travel with s?"""
        return lane > 0 if self.road[road]["left_hand_traffic"] else lane < 0

    def section_lanes(self, road, section, s):
        """The lanes of @p section at @p s (clamped into the section)."""
        lanes = self.net.lanes(road, s)
        if lanes[0]["section"] != section:  # s at the section's end is the next one's start
            lanes = self.net.lanes(road, s - 1e-9)
        return lanes

    def waypoint(self, road, section, lane, s):
        lanes = self.section_lanes(road, section, s)
        for i, ln in enumerate(lanes):
            if ln["id"] == lane:
                return Waypoint(self, road, ln, s, lanes, i)
        return None


class Waypoint:
    """CARLA's carla.Waypoint: a point on the centre of a lane."""

    def __init__(self, roads, road, lane, s, lanes, index):
        r = roads.road[road]
        self._roads, self._road, self._lane, self._lanes, self._index = roads, road, lane, lanes, index
        self.s = float(min(max(s, lane["section_s0"]), lane["section_s1"]))
        self.road_id, self.section_id, self.lane_id = _int_id(r["id"]), lane["section"], lane["id"]
        self.is_junction = r["junction"] != "-1"
        self.junction_id = _int_id(r["junction"]) if self.is_junction else -1
        self.lane_width = lane["width"]
        self.lane_type = LaneType(lane["type_bits"]) if lane["type_bits"] in LaneType._value2member_map_ else \
            LaneType.NONE
        self.id = hash((road, self.section_id, self.lane_id, round(self.s, 6))) & 0xFFFFFFFFFFFFFFFF
        self._forward = roads.with_s(road, self.lane_id)
        m = np.array(roads.net.pose(road, self.s, 0.5 * (lane["t_inner"] + lane["t_outer"]), 0.0), dtype=float)
        if not self._forward:  # facing its direction of travel: turned about its up axis
            m[:3, 0], m[:3, 1] = -m[:3, 0], -m[:3, 1]
        self.transform = _from_native(m)
        # the marking on its outer edge is its own; on its inner edge, the neighbour's towards the centre
        inner = lanes[index + 1] if lane["id"] > 0 else lanes[index - 1]
        outer_mark = LaneMarking(lane["mark_type"], lane["mark_color"])
        inner_mark = LaneMarking(inner["mark_type"], inner["mark_color"])
        outer_right = (self.lane_id < 0) == self._forward  # facing its travel, is its outer edge on its right?
        self.right_lane_marking = outer_mark if outer_right else inner_mark
        self.left_lane_marking = inner_mark if outer_right else outer_mark
        self.lane_change = LaneChange((LaneChange.Right if self.right_lane_marking.lane_change else 0) |
                                      (LaneChange.Left if self.left_lane_marking.lane_change else 0))

    def __repr__(self):
        return "Waypoint(road_id=%d, section_id=%d, lane_id=%d, s=%.3f)" % (self.road_id, self.section_id,
                                                                          self.lane_id, self.s)

    def __eq__(self, other):
        return isinstance(other, Waypoint) and other.id == self.id

    def __hash__(self):
        return hash(self.id)

    # walking along lanes
    def _walk(self, distance, ahead):
        if not (isinstance(distance, (int, float)) and distance > 0 and math.isfinite(distance)):
            raise ValueError("Waypoint.%s: distance must be a positive number of metres, not %r" %
                             ("next" if ahead else "previous", distance))
        out, seen = [], set()
        todo = [(self._road, self.section_id, self.lane_id, self.s, float(distance), 0)]
        while todo:
            road, section, lane, s, left, hops = todo.pop(0)
            lanes = self._roads.section_lanes(road, section, s)
            ln = next((x for x in lanes if x["id"] == lane), None)
            if ln is None:
                continue
            sign = 1.0 if self._roads.with_s(road, lane) == ahead else -1.0
            end = ln["section_s1"] if sign > 0 else ln["section_s0"]
            room = abs(end - s)
            if left <= room + 1e-9:
                key = (road, section, lane, round(s + sign * left, 6))
                if key not in seen:
                    seen.add(key)
                    out.append(self._roads.waypoint(road, section, lane, s + sign * left))
                continue
            if hops >= MAX_HOPS:
                continue
            links = (self._roads.net.next_lanes if ahead else self._roads.net.previous_lanes)(road, section, lane)
            for lk in links:
                if ahead:  # a following lane begins at lk["s"]
                    todo.append((lk["road"], lk["section"], lk["lane"], lk["s"], left - room, hops + 1))
                else:  # a lane leading in ends where it meets this one: the other end of its section
                    ls = self._roads.section_lanes(lk["road"], lk["section"], lk["s"])
                    lx = next(x for x in ls if x["id"] == lk["lane"])
                    meet = lx["section_s1"] if self._roads.with_s(lk["road"], lk["lane"]) else lx["section_s0"]
                    todo.append((lk["road"], lk["section"], lk["lane"], meet, left - room, hops + 1))
        return [w for w in out if w is not None]

    def next(self, distance):
        """The waypoints @p distance metres ahead along the lane's direction of travel, one per branch."""
        return self._walk(distance, True)

    def previous(self, distance):
        """The waypoints @p distance metres behind, one per lane leading in."""
        return self._walk(distance, False)

    def _until(self, distance, ahead):
        out = []
        w = self
        while True:
            nxt = w._walk(distance, ahead)
            if len(nxt) != 1 or nxt[0].road_id != self.road_id or nxt[0].section_id != self.section_id:
                break
            out.append(nxt[0])
            w = nxt[0]
        ln = w._lane
        end = ln["section_s1"] if (w._forward == ahead) else ln["section_s0"]
        last = self._roads.waypoint(w._road, w.section_id, w.lane_id, end)
        if last is not None and (not out or last.id != out[-1].id) and last.id != self.id:
            out.append(last)
        return out

    def next_until_lane_end(self, distance):
        """Waypoints every @p distance metres from here to the end of the lane (the last at its end)."""
        return self._until(distance, True)

    def previous_until_lane_start(self, distance):
        """Waypoints every @p distance metres back to the start of the lane (the last at its start)."""
        return self._until(distance, False)

    # neighbours: left and right as seen facing the direction of travel (across the centre line too, as CARLA)
    def _side(self, left):
        lanes, i = self._lanes, self._index
        toward_plus_t = left == self._forward  # left of a lane travelling with s is +t
        j = i - 1 if toward_plus_t else i + 1  # the list runs from +t (left lanes) to -t
        while 0 <= j < len(lanes) and lanes[j]["id"] == 0:
            j = j - 1 if toward_plus_t else j + 1
        if not 0 <= j < len(lanes) or lanes[j]["width"] <= 0:
            return None
        return Waypoint(self._roads, self._road, lanes[j], self.s, lanes, j)

    def get_left_lane(self):
        return self._side(True)

    def get_right_lane(self):
        return self._side(False)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _missing(self, "Waypoint", name)
