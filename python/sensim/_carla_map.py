"""sensim.carla's Map: the world's map as CARLA's carla.Map gives it to scripts: its name, geolocation, spawn
points, and CARLA's road-network API (waypoints, topology, the OpenDRIVE text) over the world's OpenDRIVE
network (sensim.RoadNetwork; sensim.carla._carla_roads). The built-in street has one (STREET_XODR, its road
as street.c builds it); a world from an .xodr file or generate_opendrive_world has the file's. What needs
more than the network is refused by name (sensim.carla._carla_api). Below the facade."""
import os
import tempfile

from . import RoadNetwork
from . import _carla_town as _town
from ._carla_api import missing as _missing
from ._carla_roads import LaneType, Roads, _int_id
from ._carla_types import GeoLocation, Location, Rotation, Transform, _native

# The built-in street (src/scene/street.c, 200 m): native x from -100 to 100, two 3.5 m lanes either side of
# y = 0 (right-hand traffic: lane -1 travels +x), 3 m sidewalks beyond them; a 50 km/h town street.
STREET_XODR = """<?xml version="1.0" standalone="yes"?>
<OpenDRIVE>
  <header revMajor="1" revMinor="4" name="street" version="1"/>
  <road name="street" length="200" id="0" junction="-1">
    <type s="0" type="town"><speed max="50" unit="km/h"/></type>
    <planView><geometry s="0" x="-100" y="0" hdg="0" length="200"><line/></geometry></planView>
    <lanes>
      <laneSection s="0">
        <left>
          <lane id="2" type="sidewalk" level="false"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane>
          <lane id="1" type="driving" level="false"><width sOffset="0" a="3.5" b="0" c="0" d="0"/>
            <roadMark sOffset="0" type="solid" color="standard" width="0.15"/></lane>
        </left>
        <center><lane id="0" type="none" level="false"><roadMark sOffset="0" type="solid" color="standard"
          width="0.15"/></lane></center>
        <right>
          <lane id="-1" type="driving" level="false"><width sOffset="0" a="3.5" b="0" c="0" d="0"/>
            <roadMark sOffset="0" type="solid" color="standard" width="0.15"/></lane>
          <lane id="-2" type="sidewalk" level="false"><width sOffset="0" a="3" b="0" c="0" d="0"/></lane>
        </right>
      </laneSection>
    </lanes>
  </road>
</OpenDRIVE>
"""


def _network(xodr_text):
    """A RoadNetwork of OpenDRIVE text (through a file of its own, removed at once)."""
    fd, path = tempfile.mkstemp(suffix=".xodr", prefix="sensim_carla_")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(xodr_text)
        return RoadNetwork(path)
    finally:
        os.unlink(path)


def build(world, scene, scene_name, xodr_text=None):
    """Load the world's scene and make its Map: "street" (the built-in street and its road), "town" (the
    built-in town: sensim.carla._carla_town), an .xodr file
    or OpenDRIVE text (the scene built from the network: sensim_scene_add_road_network), or a scene file
    (no road network)."""
    name = str(scene_name)
    if xodr_text is None and name.lower().endswith(".xodr"):
        with open(name, encoding="utf-8") as f:
            xodr_text = f.read()
    if xodr_text is not None:
        net = _network(xodr_text)
        net.add_to_scene(scene)
        return Map(world, "OpenDriveMap" if name == "" else os.path.splitext(os.path.basename(name))[0], net,
                   xodr_text)
    if name == "town":  # the built-in town (sensim.carla._carla_town): a grid of streets with lights
        text = _town.xodr()
        net = _network(text)
        net.add_to_scene(scene)
        poles = []
        for g in net.signals():
            m = net.pose(g["road"], g["s"], g["t"])
            poles.append((float(m[0][3]), float(m[1][3])))
        _town.add_props(scene, poles)
        return Map(world, "town", net, text)
    if name == "street":
        scene.load("street")
        return Map(world, "street", _network(STREET_XODR), STREET_XODR, street=True)
    scene.load(name)
    return Map(world, name)


class Map:
    def __init__(self, world, name, net=None, xodr_text=None, street=False):
        self._world, self.name = world, name
        self._roads = Roads(net, xodr_text) if net is not None else None
        self._street = street

    def transform_to_geolocation(self, location):
        """CARLA's scaled spherical Mercator about the map's reference (0, 0, 0 for the street), the
        same conversion a GNSS sensor applies (sensim.Nav gnss, model = carla)."""
        pose = _native(Transform(location, Rotation()))
        s = self._world._geo.sample([(0, pose), (1, pose)], 0)
        return GeoLocation(s["latitude_deg"], s["longitude_deg"], s["altitude_m"])

    def _need_roads(self, call):
        if self._roads is None:
            raise RuntimeError("Map.%s: the scene %s has no OpenDRIVE road network (load an .xodr, or "
                               "Client.generate_opendrive_world)" % (call, self.name))
        return self._roads

    def get_spawn_points(self):
        """The street: 10 points on its two lanes, each facing its lane's direction of travel. An OpenDRIVE
        world: as CARLA places them for one, at the start of every driving lane of every road outside a
        junction, 0.5 m above it (CARLA: 3 m, and its physics drops the vehicle; sensim's vehicles do not
        fall). A scene file: none."""
        if self._street:  # CARLA frame: y = +1.75 is right of +x (native lane -1, travelling +x)
            return [Transform(Location(x, y, 0.5), Rotation(yaw=yaw)) for x in (-60, -30, 0, 30, 60)
                    for y, yaw in ((1.75, 0.0), (-1.75, 180.0))]
        if self._roads is None:
            return []
        out = []
        for w in self._entries(LaneType.Driving):
            if not w.is_junction:
                t = w.transform
                out.append(Transform(Location(t.location.x, t.location.y, t.location.z + 0.5), t.rotation))
        return out

    def _entries(self, lane_type):
        """A waypoint at the start of every lane of @p lane_type, in each lane section (CARLA's lane entries)."""
        roads = self._roads
        out = []
        for road in range(len(roads.road)):
            for lanes in roads.sections(road):
                for ln in lanes:
                    if ln["id"] != 0 and ln["type_bits"] & int(lane_type) and ln["width"] > 0:
                        start = ln["section_s0"] if roads.with_s(road, ln["id"]) else ln["section_s1"]
                        w = roads.waypoint(road, ln["section"], ln["id"], start)
                        if w is not None:
                            out.append(w)
        return out

    def get_waypoint(self, location, project_to_road=True, lane_type=LaneType.Driving):
        """CARLA's: the waypoint on the centre of the nearest lane of @p lane_type (project_to_road), or of the
        lane the location lies in (None when it lies in none)."""
        roads = self._need_roads("get_waypoint")
        p = (location.x, -location.y, location.z)  # CARLA's frame to native
        try:
            hit = roads.net.locate(p, int(lane_type))
        except Exception:  # noqa: BLE001 - no lane of that type: CARLA returns None
            return None
        lanes = roads.net.lanes(hit["road"], hit["s"])
        ln = next(x for x in lanes if x["id"] == hit["lane"])
        if not project_to_road and not (min(ln["t_inner"], ln["t_outer"]) <= hit["t"] <=
                                        max(ln["t_inner"], ln["t_outer"])):
            return None
        return roads.waypoint(hit["road"], ln["section"], hit["lane"], hit["s"])

    def get_waypoint_xodr(self, road_id, lane_id, s):
        """The waypoint of OpenDRIVE road @p road_id, lane @p lane_id at @p s (None if there is none)."""
        roads = self._need_roads("get_waypoint_xodr")
        for road, r in enumerate(roads.road):
            if _int_id(r["id"]) == road_id and 0 <= s <= r["length_m"]:
                lanes = roads.net.lanes(road, s)
                ln = next((x for x in lanes if x["id"] == lane_id), None)
                return None if ln is None else roads.waypoint(road, ln["section"], lane_id, s)
        return None

    def generate_waypoints(self, distance):
        """Waypoints every @p distance metres along every driving lane (from each lane section's start in s)."""
        roads = self._need_roads("generate_waypoints")
        if not (isinstance(distance, (int, float)) and distance > 0):
            raise ValueError("Map.generate_waypoints: distance must be positive, not %r" % (distance,))
        out = []
        for road in range(len(roads.road)):
            for lanes in roads.sections(road):
                s0, s1 = lanes[0]["section_s0"], lanes[0]["section_s1"]
                for ln in lanes:
                    if ln["id"] == 0 or not ln["type_bits"] & int(LaneType.Driving):
                        continue
                    k = 0
                    while s0 + k * distance < s1 - 1e-9:
                        out.append(roads.waypoint(road, ln["section"], ln["id"], s0 + k * distance))
                        k += 1
        return [w for w in out if w is not None]

    def get_topology(self):
        """CARLA's: (the start of a driving lane, the start of a driving lane it leads into) for every link."""
        roads = self._need_roads("get_topology")
        out = []
        for w in self._entries(LaneType.Driving):
            for lk in roads.net.next_lanes(w._road, w.section_id, w.lane_id):
                nxt = roads.waypoint(lk["road"], lk["section"], lk["lane"], lk["s"])
                if nxt is not None and nxt.lane_type & LaneType.Driving:
                    out.append((w, nxt))
        return out

    def to_opendrive(self):
        return self._need_roads("to_opendrive").xodr

    def save_to_disk(self, path=None):
        """Write the map's OpenDRIVE text to @p path (CARLA's default: the map's name + .xodr)."""
        text = self._need_roads("save_to_disk").xodr
        with open(path or self.name + ".xodr", "w", encoding="utf-8") as f:
            f.write(text)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return _missing(self, "Map", name)
