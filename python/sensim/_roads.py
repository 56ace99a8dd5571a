"""Road networks from OpenDRIVE files (sensim/road.h): roads, reference lines, lanes, lane links, locating points.
Native frame (the file's inertial frame: x east, y north, z up), metres, radians, m/s."""
import ctypes

from . import _lib

from ._core import (InvalidArgument, Scene, _Handle, _L, _check, _f64, _from16, _text_arg, _u32, _using, _want)

# lane types (CARLA's carla.LaneType bits) by OpenDRIVE name
LANE_TYPES = {"none": 0x1, "driving": 0x2, "stop": 0x4, "shoulder": 0x8, "biking": 0x10, "sidewalk": 0x20,
              "border": 0x40, "restricted": 0x80, "parking": 0x100, "bidirectional": 0x200, "median": 0x400,
              "special1": 0x800, "special2": 0x1000, "special3": 0x2000, "roadWorks": 0x4000, "tram": 0x8000,
              "rail": 0x10000, "entry": 0x20000, "exit": 0x40000, "offRamp": 0x80000, "onRamp": 0x100000}
LANE_ANY = 0xFFFFFFFE
_TYPE_NAME = {v: k for k, v in LANE_TYPES.items()}
GEOMETRY_TYPES = ("line", "arc", "spiral", "poly3", "paramPoly3")


def _lane(li):
    return dict(id=li.id, type=_TYPE_NAME.get(li.type, "none"), type_bits=li.type, t_inner=li.t_inner,
                t_outer=li.t_outer, width=abs(li.t_outer - li.t_inner), section=li.section, mark_type=li.mark_type,
                mark_color=li.mark_color, level=li.level, section_s0=li.section_s0, section_s1=li.section_s1)


def _lane_types(lane_types):
    if isinstance(lane_types, str):
        if lane_types == "any":
            return LANE_ANY
        if lane_types not in LANE_TYPES:
            raise InvalidArgument(1, "lane type %r is not one of %s" % (lane_types, ", ".join(sorted(LANE_TYPES))))
        return LANE_TYPES[lane_types]
    if isinstance(lane_types, (list, tuple, set, frozenset)):
        bits = 0
        for t in lane_types:
            bits |= _lane_types(t)
        return bits
    return _u32(lane_types, "lane_types")


class RoadNetwork(_Handle):
    """An OpenDRIVE file's road network (read through the sensim-xml helper: the XML parser never runs in this
    process). Read-only once loaded: any number of threads may query it; close() waits for their calls."""
    _destroy = "sensim_road_network_destroy"
    _what = "RoadNetwork"

    def __init__(self, path, max_file_bytes=0):
        super().__init__()
        h = ctypes.c_void_p()
        _check(_L.sensim_road_network_load(None, _text_arg(path, "path", path=True), max_file_bytes, ctypes.byref(h)))
        self._h = h.value
        self.path = str(path)

    def __len__(self):
        with _using(self) as (h,):
            return _L.sensim_road_network_count(h)

    def road(self, index):
        """Road @p index as a dict: id, name, junction ("-1": none), length_m, speed_limit_mps (0: none given),
        geometry_count, section_count, line."""
        info = _lib.RoadInfo()
        with _using(self) as (h,):
            _check(_L.sensim_road_network_info(h, _u32(index, "road"), ctypes.byref(info)))
            return dict(index=index, id=info.id.decode(), name=info.name.decode(), junction=info.junction.decode(),
                        length_m=info.length_m, speed_limit_mps=info.speed_limit_mps,
                        geometry_count=info.geometry_count, section_count=info.section_count, line=info.line,
                        left_hand_traffic=bool(info.left_hand_traffic))

    def roads(self):
        return [self.road(i) for i in range(len(self))]

    def signals(self):
        """Every signal (sensim_road_network_signal), in file order, as dicts: id, name, type, subtype,
        country, unit, road (index), line, s, t, z_offset, h_offset, height, width, value (NaN: none),
        dynamic (bool: a traffic light), orientation (+1, -1, 0), validity ((from_lane, to_lane) or None)."""
        out = []
        g = _lib.RoadSignal()
        with _using(self) as (h,):
            for i in range(_L.sensim_road_network_signal_count(h)):
                _check(_L.sensim_road_network_signal(h, i, ctypes.byref(g)))
                d = {k: getattr(g, k).decode() for k in ("id", "name", "type", "subtype", "country", "unit")}
                d.update({k: getattr(g, k) for k in ("road", "line", "s", "t", "z_offset", "h_offset", "height",
                                                     "width", "value", "orientation")})
                d["dynamic"] = bool(g.dynamic)
                d["validity"] = (g.from_lane, g.to_lane) if g.has_validity else None
                out.append(d)
        return out

    def find(self, road_id):
        """The index of the road with OpenDRIVE id @p road_id (NotFound if none)."""
        i = ctypes.c_uint32()
        with _using(self) as (h,):
            _check(_L.sensim_road_network_find(h, _text_arg(str(road_id), "road_id"), ctypes.byref(i)))
        return i.value

    def geometry(self, road, index):
        g = _lib.RoadGeometry()
        with _using(self) as (h,):
            _check(_L.sensim_road_network_geometry(h, _u32(road, "road"), _u32(index, "index"), ctypes.byref(g)))
        return dict(s0=g.s0, x=g.x, y=g.y, hdg=g.hdg, length=g.length, type=GEOMETRY_TYPES[g.type])

    def pose(self, road, s, t=0.0, h=0.0):
        """4x4 pose of (s, t, h) on road @p road: x along the road, y to its left, z up from the surface."""
        out = _lib.d16()
        with _using(self) as (hd,):
            _check(_L.sensim_road_network_pose(hd, _u32(road, "road"), _f64(s, "s"), _f64(t, "t"), _f64(h, "h"),
                                               out))
        return _from16(out)

    def lanes(self, road, s):
        """The lanes of road @p road at @p s: dicts (id, type, t_inner, t_outer, width, section, ...), left lanes
        outermost first, the centre lane, then the right lanes from the centre out."""
        n = ctypes.c_uint32()
        with _using(self) as (h,):
            r, sv = _u32(road, "road"), _f64(s, "s")
            _check(_L.sensim_road_network_lanes(h, r, sv, None, 0, ctypes.byref(n)))
            arr = (_lib.LaneInfo * max(n.value, 1))()
            _check(_L.sensim_road_network_lanes(h, r, sv, arr, n.value, ctypes.byref(n)))
        return [_lane(arr[i]) for i in range(n.value)]

    def _links(self, fn, road, section, lane):
        n = ctypes.c_uint32()
        cap = 16
        with _using(self) as (h,):
            while True:
                arr = (_lib.LaneRef * cap)()
                _check(getattr(_L, fn)(h, _u32(road, "road"), _u32(section, "section"), int(lane), arr, cap,
                                       ctypes.byref(n)))
                if n.value <= cap:
                    break
                cap = n.value
        return [dict(road=arr[i].road, lane=arr[i].lane, section=arr[i].section, s=arr[i].s) for i in range(n.value)]

    def next_lanes(self, road, section, lane):
        """The lanes that follow a lane in its direction of travel: dicts (road, lane, section, s where it begins)."""
        return self._links("sensim_road_network_next_lanes", road, section, lane)

    def previous_lanes(self, road, section, lane):
        """The lanes that lead into a lane (the inverse of next_lanes)."""
        return self._links("sensim_road_network_previous_lanes", road, section, lane)

    def locate(self, xyz, lane_types="driving"):
        """The nearest lane of the given types ("driving", a list of names, "any" or a bit mask) to the native
        point @p xyz: dict(road, lane, s, t, distance_m); NotFound when no lane has those types."""
        p = _lib.d3(*(_f64(v, "xyz") for v in xyz))
        out = _lib.LanePoint()
        with _using(self) as (h,):
            _check(_L.sensim_road_network_locate(h, p, _lane_types(lane_types), ctypes.byref(out)))
        return dict(road=out.road, lane=out.lane, s=out.s, t=out.t, distance_m=out.distance_m)

    def add_to_scene(self, scene, step_m=1.0, ground_margin_m=50.0, sidewalk_height_m=0.15, marking_width_m=0.15):
        """Add the network's drivable surface to @p scene as one static mesh (sensim_scene_add_road_network:
        lanes tagged Roads, raised sidewalks SideWalks, markings RoadLine, a flat ground Terrain; commit the
        scene after). Returns dict(mesh_id, triangles, road_triangles, sidewalk_triangles, marking_triangles,
        ground_triangles)."""
        _want(scene, Scene, "scene")
        o = _lib.RoadMeshOptions()
        _L.sensim_road_mesh_options_init(ctypes.byref(o))
        o.step_m, o.ground_margin_m = _f64(step_m, "step_m"), _f64(ground_margin_m, "ground_margin_m")
        o.sidewalk_height_m, o.marking_width_m = _f64(sidewalk_height_m, "sidewalk_height_m"), _f64(marking_width_m,
                                                                                                    "marking_width_m")
        info = _lib.RoadMeshInfo()
        with _using(scene, self) as (sh, nh):
            _check(_L.sensim_scene_add_road_network(sh, nh, ctypes.byref(o), ctypes.byref(info)))
        return dict(mesh_id=info.mesh_id, triangles=info.triangles, road_triangles=info.road_triangles,
                    sidewalk_triangles=info.sidewalk_triangles, marking_triangles=info.marking_triangles,
                    ground_triangles=info.ground_triangles)
