"""The package's floor: the library's handle, errors, argument checks and the
core handle types (Context, Scene, Ring, ImageRing, NavRing's base, sensor
outputs). Every other module of the package imports from here (and from the
modules above it), never from the package itself: ``sensim/__init__.py`` is
only the namespace that re-exports them (issue 67: the package imports one
way)."""
import contextlib
import ctypes
import numbers
import os
import functools
import threading
import struct as _struct

from . import _lib

__version__ = "0.1.0"  # the package's; sensim.__version__ is this

# The library's OpenMP workers wait for work blocked, not spinning: a host stepping at 1 kHz shares its
# cores with them, and spinning workers took them from it between steps (issue 51: with one other busy
# process a 1 ms loop ran at 1.1-1.4 x real time spinning, 2.0 x blocked; quiet, 3.6 x and 3.2 x). libgomp
# reads this once, when it loads with the library below; a value the host set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
_L = _lib.load()

def _numpy_hint(error):
    """What to do when numpy cannot be imported: which interpreter has it (Debian's
    python3-numpy serves /usr/bin/python3, which is often not the first python3 on PATH)."""
    import sys
    here = os.path.realpath(sys.executable or "python")
    debian = "/usr/lib/python3/dist-packages/numpy"
    if os.path.isdir(debian) and here != os.path.realpath("/usr/bin/python3"):
        where = "/usr/bin/python3 has it (Debian's python3-numpy): run your script with /usr/bin/python3"
    elif os.path.isdir(debian):
        where = "Debian's python3-numpy is installed but does not import here"
    else:
        where = "install it (apt-get install python3-numpy, then use /usr/bin/python3)"
    return "numpy cannot be imported by %s (Python %d.%d: %s); %s" % (
        sys.executable, sys.version_info[0], sys.version_info[1], error, where)


_NUMPY_HINT = ""
try:
    if os.environ.get("SENSIM_DISABLE_NUMPY"):
        raise ImportError("disabled by SENSIM_DISABLE_NUMPY")
    import numpy as _np
except ImportError as _e:  # pragma: no cover - exercised by the no-numpy tests
    _np = None
    _NUMPY_HINT = ("numpy is disabled by SENSIM_DISABLE_NUMPY" if os.environ.get("SENSIM_DISABLE_NUMPY")
                   else _numpy_hint(_e))
    if not os.environ.get("SENSIM_DISABLE_NUMPY"):
        import warnings
        warnings.warn("sensim: " + _NUMPY_HINT + ". Without numpy, frames are memoryviews and images, cameras, "
                      "radar sampling, textures and sensim.placement are unavailable (set SENSIM_DISABLE_NUMPY=1 "
                      "to run without numpy silently)", RuntimeWarning, stacklevel=2)

HAVE_NUMPY = _np is not None


def _need_numpy(what):
    """InvalidArgument naming what needs numpy and why it is missing."""
    return InvalidArgument(1, "%s needs numpy: %s" % (what, _NUMPY_HINT))


def library_version():
    """Version string of the loaded libsensim."""
    return _L.sensim_version_string().decode()


def library_path():
    return _L._path


if library_version().split(".")[:2] != __version__.split(".")[:2]:
    raise ImportError("libsensim %s at %s does not match the sensim package %s"
                      % (library_version(), _L._path, __version__))

# ---------------------------------------------------------------- errors


class Error(Exception):
    """A libsensim call failed. ``status`` is the C status code, ``message``
    the library's detail (file, line, field, value)."""

    def __init__(self, status, message):
        self.status = status
        self.message = message
        name = _L.sensim_status_string(status).decode()
        super().__init__("%s (%s)" % (message or name, name))


_STATUS_NAMES = [
    (1, "InvalidArgument"), (2, "OutOfMemory"), (3, "FileError"), (4, "ParseError"), (5, "OutOfRange"),
    (6, "NotFinite"), (7, "BadIndex"), (8, "Empty"), (9, "NotCommitted"), (10, "RingFull"), (11, "RingEmpty"),
    (12, "BadHandle"), (13, "TooLarge"), (14, "UnknownKey"), (15, "NotFound"), (16, "Busy"), (17, "TimeOrder"),
    (18, "Overrun"), (19, "BackendError"), (20, "Duplicate"), (21, "Cancelled"),
]
_ERRORS = {}
for _code, _name in _STATUS_NAMES:
    _ERRORS[_code] = type(_name, (Error,), {"__doc__": "status %d" % _code})
    globals()[_name] = _ERRORS[_code]


_PY_NAMES = None


def _python_names():
    """{C function: the Python call that makes it}, read once from this
    module's source: messages name what the Python user called."""
    global _PY_NAMES
    if _PY_NAMES is None:
        import ast
        names = {}
        try:
            with open(__file__, encoding="utf-8") as f:
                tree = ast.parse(f.read())
        except (OSError, SyntaxError, ValueError):  # pragma: no cover - a stripped install
            tree = ast.Module(body=[], type_ignores=[])

        def visit(node, owner):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    visit(child, child.name)
                elif isinstance(child, ast.FunctionDef):
                    public = not child.name.startswith("_") or child.name == "__init__"
                    label = (owner or "sensim") + ("." + child.name if child.name != "__init__" else "") + "()"
                    for sub in ast.walk(child):
                        if (public and isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                                and sub.value.id == "_L" and sub.attr.startswith("sensim_")):
                            names.setdefault(sub.attr, label)
                    visit(child, owner)
        visit(tree, None)
        names.setdefault("sensim_lidar_scan", "Lidar.scan()")  # reached through sensim_lidar_scan_motion
        _PY_NAMES = names
    return _PY_NAMES


def _python_message(msg):
    import re
    names = _python_names()
    return re.sub(r"\bsensim_[a-z0-9_]+(\(\))?", lambda m: names.get(m.group(0).rstrip("()"), m.group(0)), msg)


def _check(status):
    if status != 0:
        msg = _python_message(_L.sensim_context_last_error(None).decode(errors="replace"))
        raise _ERRORS.get(status, Error)(status, msg)


def _closed(what):
    return BadHandle(12, "%s is closed" % what)


def _i64(value, what):
    """An int64 for C: ints only (no bool, no float), never wrapped by ctypes."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidArgument(1, "%s must be an integer number of nanoseconds, not %s" % (what, type(value).__name__))
    value = int(value)
    if not -2 ** 63 <= value < 2 ** 63:
        raise OutOfRange(5, "%s = %d does not fit in int64 nanoseconds" % (what, value))
    return value


def _u32(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= int(value) < 2 ** 32:
        raise OutOfRange(5, "%s must be an integer in 0..2**32-1, not %r" % (what, value))
    return int(value)


def _f64(value, what):
    """A double for C (NaN and inf reach C, which names them)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidArgument(1, "%s must be a number, not %s" % (what, type(value).__name__))
    return float(value)


def _uint(value, what, hi):
    """An integer in 0..hi for a narrow C field (uint8 tags, uint16 material ids): ctypes would wrap it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= int(value) <= hi:
        raise OutOfRange(5, "%s must be an integer in 0..%d, not %r" % (what, hi, value))
    return int(value)


def _u64(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= int(value) < 2 ** 64:
        raise OutOfRange(5, "%s must be an integer in 0..2**64-1" % what)
    return int(value)


def _text_arg(value, what, path=False):
    """A str (or, for paths, os.PathLike) without NUL, encoded for C: a NUL would cut it short there."""
    if path:
        value = os.fspath(value) if isinstance(value, (str, os.PathLike)) else value
    if not isinstance(value, str):
        raise InvalidArgument(1, "%s must be a %s, not %s" % (what, "path" if path else "str", type(value).__name__))
    if "\0" in value:
        raise InvalidArgument(1, "%s contains a NUL character" % what)
    return os.fsencode(value) if path else value.encode()


@contextlib.contextmanager
def _using(*objs):
    """Hold objects' C handles for the length of a call: close() on another
    thread waits until the call returns instead of freeing under it."""
    held = []
    try:
        for o in objs:
            with o._cv:
                if not o._h:
                    raise _closed(o._what)
                o._calls += 1
            held.append(o)
        yield tuple(o._h for o in objs)
    finally:
        for o in held:
            with o._cv:
                o._calls -= 1
                o._cv.notify_all()


def _is_kind(obj, name):
    """Whether @p obj is a sensim.<name> (a class of a module above this one, named, not imported:
    the floor does not import back up)."""
    return any(c.__name__ == name and c.__module__.startswith("sensim") for c in type(obj).__mro__)


def _want_kind(obj, name, what):
    if not _is_kind(obj, name):
        raise InvalidArgument(1, "%s must be a sensim.%s, not %s" % (what, name, type(obj).__name__))


def _want(obj, cls, what):
    if not isinstance(obj, cls):
        raise InvalidArgument(1, "%s must be a sensim.%s, not %s" % (what, cls.__name__, type(obj).__name__))


# ---------------------------------------------------------------- helpers

def _mat16(m, what="pose"):
    """Column-major double[16] from a 4x4 (row-major nested) matrix."""
    if m is None:
        m = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))
    hint = "a 4x4 matrix such as sensim.pose(x, y, z, roll_deg, pitch_deg, yaw_deg)"
    try:
        if isinstance(m, (str, bytes)) or any(isinstance(r, (str, bytes)) for r in m):
            raise TypeError(m)
        rows = [list(r) for r in m]
    except TypeError:
        got = type(m).__name__
        if hasattr(m, "__len__"):
            got = "a flat %s of %d items" % (got, len(m))
        raise InvalidArgument(1, "%s must be %s, not %s" % (what, hint, got)) from None
    if len(rows) != 4 or any(len(r) != 4 for r in rows):
        raise InvalidArgument(1, "%s must be %s; got %d rows of %s entries"
                              % (what, hint, len(rows), "/".join(sorted({str(len(r)) for r in rows})) or "0"))
    out = []
    for c in range(4):
        for r in range(4):
            v = rows[r][c]
            if isinstance(v, (bool, str, bytes)) or not isinstance(v, numbers.Real):
                raise InvalidArgument(1, "%s[%d][%d] must be a number, not %s" % (what, r, c, type(v).__name__))
            out.append(float(v))
    return _lib.d16(*out)


def _from16(a):
    rows = [[a[c * 4 + r] for c in range(4)] for r in range(4)]
    return _np.array(rows) if _np is not None else rows


def pose(x=0.0, y=0.0, z=0.0, roll=0.0, pitch=0.0, yaw=0.0):
    """4x4 pose from a translation (m) and R = Rz(yaw)·Ry(pitch)·Rx(roll),
    angles in degrees: the CLI's ``--pose x,y,z,roll,pitch,yaw``, bit for bit."""
    names = ("x", "y", "z", "roll", "pitch", "yaw")
    vals = [_f64(v, "pose(%s=...)" % n) for n, v in zip(names, (x, y, z, roll, pitch, yaw))]
    out = _lib.d16()
    _check(_L.sensim_pose_from_frame(0, _lib.d3(*vals[:3]), _lib.d3(*vals[3:]), out))
    return _from16(out)


FRAMES = {"native": 0, "carla": 1, "ue": 2, "iso8855": 3}


def pose_from_frame(frame, location, rotation_deg):
    """Native 4x4 pose from a location and rotation in ``frame`` ('carla':
    (pitch, yaw, roll) degrees, metres; 'ue': the same in cm; 'native':
    (roll, pitch, yaw) degrees)."""
    out = _lib.d16()
    _check(_L.sensim_pose_from_frame(FRAMES[frame], _lib.d3(*location), _lib.d3(*rotation_deg), out))
    return _from16(out)


def pose_to_frame(frame, m):
    loc, rot = _lib.d3(), _lib.d3()
    _check(_L.sensim_pose_to_frame(FRAMES[frame], _mat16(m), loc, rot))
    return tuple(loc), tuple(rot)


def point_to_frame(frame, p):
    out = _lib.d3()
    _check(_L.sensim_point_to_frame(FRAMES[frame], _lib.d3(*p), out))
    return tuple(out)


def point_from_frame(frame, p):
    out = _lib.d3()
    _check(_L.sensim_point_from_frame(FRAMES[frame], _lib.d3(*p), out))
    return tuple(out)


def tag_color(tag):
    """The tag's colour in CARLA's CityScapes palette (CARLA 0.9.14+ numbering): (r, g, b), 0..255."""
    rgb = (ctypes.c_uint8 * 3)()
    _L.sensim_tag_color(_uint(tag, "tag", 255), rgb)
    return tuple(rgb)


def tag_name(tag):
    return _L.sensim_tag_name(tag).decode()


def tag_from_name(name):
    return _L.sensim_tag_from_name(_text_arg(name, "name"))


def tag_from_label(label):
    """Tag id of a CARLA tag name or a decimal id; -1 otherwise."""
    return _L.sensim_tag_from_label(_text_arg(str(label), "label"))


def preset_search_dirs():
    out, i = [], 0
    while True:
        d = _L.sensim_preset_search_dir(i)
        if d is None:
            return out
        out.append(d.decode())
        i += 1


# ---------------------------------------------------------------- point records

_DATATYPES = {1: ("i1", "b"), 2: ("u1", "B"), 3: ("i2", "h"), 4: ("u2", "H"), 5: ("i4", "i"), 6: ("u4", "I"),
              7: ("f4", "f"), 8: ("f8", "d")}
POINT_SIZE = 32


def point_fields():
    """The library's field table: [(name, offset, ROS PointField datatype, count)]."""
    n = ctypes.c_uint32()
    f = _L.sensim_point_fields(ctypes.byref(n))
    return [(f[i].name.decode(), f[i].offset, f[i].datatype, f[i].count) for i in range(n.value)]


def pointcloud2_fields():
    """ROS 2 sensor_msgs/PointField list as dicts (name, offset, datatype, count)."""
    return [dict(name=n, offset=o, datatype=d, count=c) for n, o, d, c in point_fields()]


_FIELDS = point_fields()
_UNPACK = _struct.Struct("<" + "".join(_DATATYPES[d][1] for _, _, d, _ in _FIELDS))
if _UNPACK.size != POINT_SIZE:  # the table must describe the whole record, in order, packed
    raise ImportError("unexpected point field table")

if _np is not None:
    POINT_DTYPE = _np.dtype({"names": [n for n, _, _, _ in _FIELDS],
                             "formats": ["<" + _DATATYPES[d][0] for _, _, d, _ in _FIELDS],
                             "offsets": [o for _, o, _, _ in _FIELDS], "itemsize": POINT_SIZE})
else:
    POINT_DTYPE = None


def unpack_points(buf):
    """Decode 32-byte records (bytes or memoryview) into a list of dicts."""
    names = [n for n, _, _, _ in _FIELDS]
    return [dict(zip(names, rec)) for rec in _UNPACK.iter_unpack(bytes(buf))]


def _points_from_memory(addr, count, keep):
    """Records at ``addr``: a numpy view (zero copy, keeps ``keep`` alive) or a memoryview."""
    if count == 0:
        return _np.zeros(0, POINT_DTYPE) if _np is not None else memoryview(b"")
    raw = (ctypes.c_char * (count * POINT_SIZE)).from_address(addr)
    raw._keep = keep
    if _np is not None:
        return _np.frombuffer(raw, dtype=POINT_DTYPE, count=count)
    return memoryview(raw).cast("B")


# ---------------------------------------------------------------- objects

class _Handle:
    _destroy = None
    _what = "object"

    def __init__(self):
        self._h = None
        self._cv = threading.Condition()
        self._calls = 0     # calls running on other threads (_using)
        self._holders = 0   # rigs this object is a member of

    @property
    def handle(self):
        if not self._h:
            raise _closed(self._what)
        return self._h

    def close(self):
        """Free the C object now (idempotent). Waits for calls running on
        other threads; refused while a Rig holds the object."""
        with self._cv:
            if not self._h:
                return
            if self._holders:
                raise InvalidArgument(1, "%s is a member of a Rig: close the Rig first" % self._what)
            while self._calls:
                self._cv.wait()
            h, self._h = self._h, None
        getattr(_L, self._destroy)(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class Context(_Handle):
    """Embree device and worker threads (0 = all cores)."""
    _destroy = "sensim_context_destroy"
    _what = "Context"

    def __init__(self, threads=0):
        super().__init__()
        d = _lib.ContextDesc()
        _L.sensim_context_desc_init(ctypes.byref(d))
        d.thread_count = threads
        h = ctypes.c_void_p()
        _check(_L.sensim_context_create(ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value

    @property
    def threads(self):
        return _L.sensim_context_thread_count(self.handle)

    @threads.setter
    def threads(self, n):
        _check(_L.sensim_context_set_thread_count(self.handle, n))


def _farray(seq, ctype, width=1):
    if _np is not None:
        a = _np.ascontiguousarray(seq, dtype={ctypes.c_float: _np.float32, ctypes.c_uint32: _np.uint32,
                                              ctypes.c_uint8: _np.uint8, ctypes.c_uint16: _np.uint16}[ctype])
        return a, a.size // width, a.ctypes.data_as(ctypes.POINTER(ctype))
    flat = []
    for x in seq:
        if isinstance(x, (list, tuple)):
            flat.extend(x)
        else:
            flat.append(x)
    arr = (ctype * len(flat))(*flat)
    return arr, len(flat) // width, ctypes.cast(arr, ctypes.POINTER(ctype))


class Scene(_Handle):
    """Meshes, actors and materials; edits are staged until :meth:`commit`."""
    _destroy = "sensim_scene_destroy"
    _what = "Scene"

    def __init__(self, context):
        super().__init__()
        _want(context, Context, "context")
        self.context = context
        h = ctypes.c_void_p()
        _check(_L.sensim_scene_create(context.handle, ctypes.byref(h)))
        self._h = h.value

    def add_mesh(self, vertices, indices, tag=0, material=0, triangle_tags=None, prototype=False):
        """Add a mesh (vertices Nx3 metres, indices Mx3); returns its id."""
        d = _lib.MeshDesc()
        _L.sensim_mesh_desc_init(ctypes.byref(d))
        keep = []
        v, nv, pv = _farray(vertices, ctypes.c_float, 3)
        i, nt, pi = _farray(indices, ctypes.c_uint32, 3)
        keep += [v, i]
        d.vertices, d.vertex_count, d.indices, d.triangle_count = pv, nv, pi, nt
        if triangle_tags is not None:
            t, _, pt = _farray(triangle_tags, ctypes.c_uint8)
            keep.append(t)
            d.triangle_tags = pt
        d.tag, d.material_id = _uint(tag, "tag", 255), _uint(material, "material", 65535)
        d.flags = 1 if prototype else 0
        out = ctypes.c_uint32()
        _check(_L.sensim_scene_add_mesh(self.handle, ctypes.byref(d), ctypes.byref(out)))
        return out.value

    def load(self, path, frame="native", prototype=False, scale=0.0, tags=None):
        """Load an OBJ or PLY file, or a glTF/GLB/FBX/COLLADA/... scene (Assimp);
        returns its mesh id. tags: a tag mapping file ("name = Tag" lines,
        tried before the built-in names). ``"street"`` is the CLI's built-in
        street (:meth:`add_street` with its defaults; returns its static mesh)."""
        if isinstance(path, str) and path == "street":
            return self.add_street()["static_mesh_id"]
        o = _lib.LoadOptions()
        _L.sensim_load_options_init(ctypes.byref(o))
        o.frame, o.flags, o.scale = FRAMES[frame], 1 if prototype else 0, scale
        if tags is not None:
            o.tag_map_file = _text_arg(tags, "tags", path=True)
        out = ctypes.c_uint32()
        _check(_L.sensim_scene_load_file(self.handle, _text_arg(path, "path", path=True), ctypes.byref(o),
                                         ctypes.byref(out)))
        return out.value

    def add_street(self, length_m=200.0, detail=1):
        """Add the built-in street (``--scene street``): road, sidewalks,
        buildings, poles, trees, parked cars as actors 1..N. length_m 16..10000,
        detail 1..64. Returns a dict: static_triangles, car_count,
        static_mesh_id, car_mesh_id."""
        info = _lib.StreetInfo()
        _check(_L.sensim_scene_add_street(self.handle, _f64(length_m, "length_m"), _u32(detail, "detail"),
                                          ctypes.byref(info)))
        return {k: getattr(info, k) for k, _ in _lib.StreetInfo._fields_ if k != "reserved"}

    def add_actor(self, mesh, actor_id, pose_matrix):
        _check(_L.sensim_scene_add_actor(self.handle, mesh, actor_id, _mat16(pose_matrix)))

    def add_instance(self, mesh, pose_matrix):
        """Place mesh (a prototype) again as static world (object id 0): a forest of one tree."""
        _check(_L.sensim_scene_add_instance(self.handle, _u32(mesh, "mesh"), _mat16(pose_matrix)))

    def set_actor_pose(self, actor_id, pose_matrix):
        _check(_L.sensim_scene_set_actor_pose(self.handle, actor_id, _mat16(pose_matrix)))

    def remove_actor(self, actor_id):
        _check(_L.sensim_scene_remove_actor(self.handle, actor_id))

    def set_motion_interval(self, t0_ns, t1_ns):
        _check(_L.sensim_scene_set_motion_interval(self.handle, t0_ns, t1_ns))

    def set_flatten(self, max_triangles):
        """Trace parked actors (added before the first commit, never moved)
        as static geometry from the next commit on, up to ``max_triangles``
        triangles in all (0: off, the default); ranges to them then differ
        from the instanced path's by float rounding (sensim_scene_set_flatten)."""
        _check(_L.sensim_scene_set_flatten(self.handle, _u64(max_triangles, "max_triangles")))

    def set_actor_motion(self, actor_id, pose_t0, pose_t1):
        _check(_L.sensim_scene_set_actor_motion(self.handle, actor_id, _mat16(pose_t0), _mat16(pose_t1)))

    def set_material(self, material_id, reflectivity=0.0, retro_gain=0.0, specular=0.0, transparency=0.0):
        m = _lib.Material(reflectivity, retro_gain, specular, transparency)
        _check(_L.sensim_scene_set_material(self.handle, material_id, ctypes.byref(m)))

    def set_appearance(self, material_id, base_color=(1.0, 1.0, 1.0), texture=None):
        """How material ``material_id`` looks to cameras: linear base colour
        in [0, 1], and optionally an sRGB texture (uint8 array H x W x 3,
        row 0 at the top) sampled at the mesh's UVs."""
        a = _lib.Appearance()
        try:
            a.base_color[:] = [float(c) for c in base_color]
        except (TypeError, ValueError):
            raise InvalidArgument(1, "base_color must be three numbers")
        keep = None
        if texture is not None:
            if _np is None:
                raise _need_numpy("textures")
            keep = _np.ascontiguousarray(texture, dtype=_np.uint8)
            if keep.ndim != 3 or keep.shape[2] != 3:
                raise InvalidArgument(1, "texture must be H x W x 3 uint8")
            a.texture, a.texture_height, a.texture_width = keep.ctypes.data, keep.shape[0], keep.shape[1]
        _check(_L.sensim_scene_set_material_appearance(self.handle, _u32(material_id, "material_id"),
                                                       ctypes.byref(a)))

    def find_material(self, name):
        out = ctypes.c_uint32()
        _check(_L.sensim_scene_find_material(self.handle, _text_arg(name, "name"), ctypes.byref(out)))
        return out.value

    def commit(self):
        _check(_L.sensim_scene_commit(self.handle))

    def _batch(self, origins, directions, tnear, tfar, time_ns):
        """A RayBatch over the caller's arrays (numpy: no copy for float32
        rows of 3 with any row stride) and the objects to keep alive."""
        b, keep = _lib.RayBatch(), []

        def vec3(a, what):
            if _np is not None:
                a = _np.asarray(a)
                if a.size == 0:
                    a = _np.zeros((0, 3), _np.float32)
                if a.dtype != _np.float32 or a.ndim != 2 or a.shape[1:] != (3,) or a.strides[1] != 4:
                    a = _np.ascontiguousarray(a, dtype=_np.float32)
                if a.ndim != 2 or a.shape[1] != 3:
                    raise InvalidArgument(1, "%s must have shape (N, 3), not %s" % (what, a.shape))
                if a.strides[0] <= 0 or a.strides[0] % 4:
                    a = _np.ascontiguousarray(a)
                keep.append(a)
                return a.shape[0], a.ctypes.data, a.strides[0]
            flat = []
            for row in a:
                if len(row) != 3:
                    raise InvalidArgument(1, "%s must be rows of 3 numbers" % what)
                flat.extend(float(x) for x in row)
            arr = (ctypes.c_float * len(flat))(*flat)
            keep.append(arr)
            return len(flat) // 3, ctypes.addressof(arr), 12

        def scalars(a, n, what, ctype, nptype):
            if a is None:
                return None
            if _np is not None:
                a = _np.ascontiguousarray(a, dtype=nptype).reshape(-1)
                ptr = a.ctypes.data
            else:
                a = (ctype * len(a))(*a)
                ptr = ctypes.addressof(a)
            if len(a) != n:
                raise InvalidArgument(1, "%s has %d entries for %d rays" % (what, len(a), n))
            keep.append(a)
            return ptr

        n, b.origins, b.origin_stride = vec3(origins, "origins")
        nd, b.directions, b.direction_stride = vec3(directions, "directions")
        if nd != n:
            raise InvalidArgument(1, "%d origins but %d directions" % (n, nd))
        b.count = n
        b.tnear = scalars(tnear, n, "tnear", ctypes.c_float, "float32")
        b.tfar = scalars(tfar, n, "tfar", ctypes.c_float, "float32")
        if time_ns is None or isinstance(time_ns, numbers.Integral):
            b.time_ns_all = _i64(time_ns or 0, "time_ns")
        else:  # checked before any conversion: a float or out-of-range time must not truncate or wrap
            if _np is not None and isinstance(time_ns, _np.ndarray) and time_ns.dtype.kind in "iu":
                if time_ns.size and (int(time_ns.max()) >= 2 ** 63 or int(time_ns.min()) < -2 ** 63):
                    raise OutOfRange(5, "time_ns must fit int64")
            else:
                time_ns = [_i64(t, "time_ns") for t in time_ns]
            b.time_ns = scalars(time_ns, n, "time_ns", ctypes.c_int64, "int64")
        return b, keep

    def intersect(self, origins, directions, tnear=None, tfar=None, time_ns=0, out=None):
        """Closest hit of each ray (world frame, metres; time_ns an int for
        all rays or one per ray). With numpy: a structured array of
        ``RAY_HIT_DTYPE`` (distance, normal, u, v, object_id, mesh_id,
        primitive_id, material, tag, hit), written in place by the library
        (pass ``out`` to reuse one); without numpy: a ctypes array of RayHit."""
        b, keep = self._batch(origins, directions, tnear, tfar, time_ns)
        if _np is not None:
            if out is None:
                out = _np.empty(b.count, RAY_HIT_DTYPE)
            elif out.dtype != RAY_HIT_DTYPE or out.shape != (b.count,) or not out.flags.c_contiguous:
                raise InvalidArgument(1, "out must be a contiguous RAY_HIT_DTYPE array of %d" % b.count)
            ptr = out.ctypes.data
        else:
            out = (_lib.RayHit * b.count)()
            ptr = ctypes.addressof(out)
        with _using(self) as (h,):
            _check(_L.sensim_scene_intersect(h, ctypes.byref(b), ptr))
        return out

    def occluded(self, origins, directions, tnear=None, tfar=None, time_ns=0):
        """Whether anything lies on each ray between tnear and tfar (bool
        numpy array, or a bytearray without numpy)."""
        b, keep = self._batch(origins, directions, tnear, tfar, time_ns)
        out = _np.empty(b.count, _np.uint8) if _np is not None else (ctypes.c_uint8 * max(b.count, 1))()
        ptr = out.ctypes.data if _np is not None else ctypes.addressof(out)
        with _using(self) as (h,):
            _check(_L.sensim_scene_occluded(h, ctypes.byref(b), ptr))
        return out.view(bool) if _np is not None else bytearray(out)[:b.count]

    @property
    def info(self):
        i = _lib.SceneInfo()
        _check(_L.sensim_scene_get_info(self.handle, ctypes.byref(i)))
        # the C names (sensim_scene_info) and, for old scripts, the short ones
        return dict(mesh_count=i.mesh_count, actor_count=i.actor_count, triangle_count=i.triangle_count,
                    vertex_count=i.vertex_count, instance_count=i.instance_count,
                    meshes=i.mesh_count, actors=i.actor_count, triangles=i.triangle_count,
                    vertices=i.vertex_count, instances=i.instance_count, committed=bool(i.committed),
                    duplicate_triangles_dropped=i.duplicate_triangles_dropped,
                    material_files_missing=i.material_files_missing, textures_skipped=i.textures_skipped,
                    flattened_count=i.flattened_count)


RAY_HIT_DTYPE = _np.dtype([("distance", "<f4"), ("normal", "<f4", (3,)), ("u", "<f4"), ("v", "<f4"),
                           ("object_id", "<u4"), ("mesh_id", "<u4"), ("primitive_id", "<u4"),
                           ("material", "<u2"), ("tag", "u1"), ("hit", "u1")]) if _np is not None else None


def material_default(tag):
    m = _lib.Material()
    _L.sensim_material_default(tag, ctypes.byref(m))
    return dict(reflectivity=m.reflectivity, retro_gain=m.retro_gain, specular=m.specular,
                transparency=m.transparency)


def _header(h):
    return dict(frame_number=h.frame_number, t_begin_ns=h.t_begin_ns, t_end_ns=h.t_end_ns,
                point_count=h.point_count, lost_points=h.lost_points, sensor_pose=_from16(h.sensor_pose),
                sensor_id=h.lidar_id, flags=h.flags, partial=bool(h.flags & 1), scanned_ns=h.scanned_ns,
                world_step_first=h.world_step_first, world_step_last=h.world_step_last)


class Frame:
    """A frame popped from a ring: ``header`` (dict) and ``points`` (owned copy)."""

    def __init__(self, header, points):
        self.header = header
        self.points = points

    def __len__(self):
        return len(self.points) if _np is not None else len(self.points) // POINT_SIZE


POLICIES = {"fail": 0, "drop_oldest": 1}


_TAKERS_GUARD = threading.Lock()


def _one_taker(pop):
    """pop() (two steps in C: look, then take) under the ring's lock, so threads sharing a ring
    each get whole, distinct frames (issue 62)."""
    @functools.wraps(pop)
    def locked(self, *args, **kwargs):
        lock = self.__dict__.get("_take_lock")
        if lock is None:
            with _TAKERS_GUARD:
                lock = self.__dict__.setdefault("_take_lock", threading.RLock())
        with lock:
            return pop(self, *args, **kwargs)
    return locked


class Ring:
    """A frame ring in memory this object owns.

    Lifetime rule: :meth:`peek` returns zero-copy views that stay valid (and
    keep the memory alive) but whose contents belong to the ring again after
    :meth:`release`; :meth:`pop` returns copies that are yours forever.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "pop" in cls.__dict__:
            cls.pop = _one_taker(cls.__dict__["pop"])

    def __init__(self, point_capacity, frame_capacity=4, policy="fail"):
        size = ctypes.c_size_t()
        _check(_L.sensim_ring_required_size(point_capacity, frame_capacity, ctypes.byref(size)))
        self._mem = (ctypes.c_uint64 * ((size.value + 7) // 8))()  # 8-byte aligned
        h = ctypes.c_void_p()
        _check(_L.sensim_ring_init(ctypes.addressof(self._mem), size.value, point_capacity, frame_capacity,
                                   POLICIES[policy], ctypes.byref(h)))
        self._h = h.value
        self.point_capacity = point_capacity

    @classmethod
    def for_lidar(cls, lidar, frames=4, policy="fail"):
        """A ring that holds ``frames`` whole frames of ``lidar`` whatever its return mode,
        ghosts or rain (sensim_lidar_ring_size: max_points_per_frame × frames)."""
        _want_kind(lidar, "Lidar", "lidar")
        pts, size = ctypes.c_uint64(), ctypes.c_size_t()
        with _using(lidar) as (h,):
            _check(_L.sensim_lidar_ring_size(h, _u32(frames, "frames"), ctypes.byref(pts), ctypes.byref(size)))
        return cls(pts.value, frames, policy)

    @property
    def handle(self):
        return self._h

    def peek(self):
        """Oldest complete frame without removing it, or None. Returns (header, points):
        points is a zero-copy view unless the frame wraps around the ring's end."""
        v = _lib.FrameView()
        st = _L.sensim_ring_peek(self._h, ctypes.byref(v))
        if st == 11:
            return None
        _check(st)
        return _header(v.header.contents), self._view_points(v)

    def _view_points(self, v):
        """A FrameView's points: a zero-copy view, or a joined copy where the frame wraps."""
        a = _points_from_memory(v.points[0], v.counts[0], self._mem)
        if v.counts[1]:
            b = _points_from_memory(v.points[1], v.counts[1], self._mem)
            a = _np.concatenate([a, b]) if _np is not None else memoryview(bytes(a) + bytes(b))
        return a

    def peek_open(self, start=0):
        """The frame the producer has open (not complete yet): (header, points[start:]) copied, or
        None when none is open. Call it on the thread that scans, between scans (after
        Lidar.scan or Rig.step returned): points [k, n) are those written since the frame had k."""
        v = _lib.FrameView()
        st = _L.sensim_ring_peek_open(self._h, ctypes.byref(v))
        if st == 11:
            return None
        _check(st)
        hdr, a = _header(v.header.contents), self._view_points(v)
        if _np is not None:
            return hdr, a[start:].copy()
        return hdr, memoryview(bytes(a)[start * POINT_SIZE:])

    def release(self):
        _check(_L.sensim_ring_release(self._h))

    @_one_taker
    def pop(self):
        """Remove and return the oldest complete Frame (points copied), or None."""
        hdr = _lib.FrameHeader()
        n = ctypes.c_uint64()
        st = _L.sensim_ring_pop(self._h, ctypes.byref(hdr), None, 0, ctypes.byref(n))
        if st == 11:
            return None
        _check(st)
        if _np is not None:
            buf = _np.empty(n.value, POINT_DTYPE)
            addr = buf.ctypes.data
        else:
            buf = bytearray(n.value * POINT_SIZE)
            addr = ctypes.addressof((ctypes.c_char * max(1, len(buf))).from_buffer(buf)) if buf else None
        _check(_L.sensim_ring_pop(self._h, ctypes.byref(hdr), addr, n.value, ctypes.byref(n)))
        return Frame(_header(hdr), buf if _np is not None else memoryview(buf))

    def frames(self):
        """Pop every complete frame."""
        while True:
            f = self.pop()
            if f is None:
                return
            yield f

    @property
    def stats(self):
        s = _lib.RingStats()
        _check(_L.sensim_ring_get_stats(self._h, ctypes.byref(s)))
        return {k: getattr(s, k) for k, _ in _lib.RingStats._fields_ if k != "reserved"}


class ImageRing(Ring):
    """A ring of camera frames (sensim_image_ring_init) in memory this object
    owns, sized for ``camera`` (a Camera, or (width, height)) and holding the
    images ``outputs``. A camera in a rig (Rig.add_camera) writes into it;
    :meth:`peek` gives zero-copy numpy views, :meth:`pop` copies. Overflow
    as for point rings ("fail" refuses the camera's step, "drop_oldest" drops
    the oldest images); :attr:`stats` counts images. Requires numpy."""

    BITS = dict(depth=1, semantic=2, instance=4, normal=8, rgb=16)

    def __init__(self, camera, outputs=("depth", "semantic"), frame_capacity=4, policy="fail"):
        if _np is None:
            raise _need_numpy("ImageRing")
        if _is_kind(camera, "Camera"):
            w, h = camera.width, camera.height
        else:
            try:
                w, h = (int(v) for v in camera)
            except (TypeError, ValueError):
                raise InvalidArgument(1, "ImageRing: camera must be a Camera or (width, height)")
        if isinstance(outputs, str):
            outputs = [outputs]
        bad = [o for o in outputs if o not in self.BITS]
        if bad or not outputs:
            raise InvalidArgument(1, "outputs must be among %s, not %r" % (", ".join(self.BITS), bad or outputs))
        bits = 0
        for o in outputs:
            bits |= self.BITS[o]
        w, h = _u32(w, "width"), _u32(h, "height")
        size = ctypes.c_size_t()
        _check(_L.sensim_image_ring_required_size(w, h, bits, _u32(frame_capacity, "frame_capacity"),
                                                  ctypes.byref(size)))
        if policy not in POLICIES:
            raise InvalidArgument(1, "policy must be one of %s" % ", ".join(POLICIES))
        self._mem = (ctypes.c_uint64 * ((size.value + 7) // 8))()
        hd = ctypes.c_void_p()
        _check(_L.sensim_image_ring_init(ctypes.addressof(self._mem), size.value, w, h, bits, frame_capacity,
                                         POLICIES[policy], ctypes.byref(hd)))
        self._h = hd.value
        self.width, self.height, self.outputs = w, h, tuple(o for o in self.BITS if bits & self.BITS[o])

    def _views(self, v):
        h, w = v.height, v.width
        shapes = dict(depth=((h, w), _np.float32), semantic=((h, w), _np.uint8), instance=((h, w), _np.uint32),
                      normal=((h, w, 3), _np.float32), rgb=((h, w, 3), _np.uint8))
        out = {}
        for o in self.outputs:
            shape, dt = shapes[o]
            n = int(_np.prod(shape)) * _np.dtype(dt).itemsize
            raw = (ctypes.c_char * n).from_address(getattr(v, o))
            raw._keep = self._mem
            out[o] = _np.frombuffer(raw, dtype=dt).reshape(shape)
        return out

    def peek(self):
        """Oldest complete capture without removing it, or None: (header,
        {output: zero-copy array}); the arrays belong to the ring again after
        :meth:`release`."""
        v = _lib.ImageView()
        st = _L.sensim_ring_peek_image(self._h, ctypes.byref(v))
        if st == 11:
            return None
        _check(st)
        return _header(v.header.contents), self._views(v)

    def pop(self):
        """Remove and return the oldest capture as (header, {output: array copy}), or None."""
        got = self.peek()
        if got is None:
            return None
        hdr, views = got
        images = {k: a.copy() for k, a in views.items()}
        self.release()
        return hdr, images

    def frames(self):
        """Pop every complete capture."""
        while True:
            f = self.pop()
            if f is None:
                return
            yield f


def _keys(pose_matrix=None, keys=None):
    if keys is None:
        arr = (_lib.PoseKey * 1)()
        arr[0].t_ns = 0
        arr[0].pose = _mat16(pose_matrix)
        return arr
    arr = (_lib.PoseKey * len(keys))()
    for i, (t, m) in enumerate(keys):
        arr[i].t_ns = _i64(t, "key time")
        arr[i].pose = _mat16(m)
    return arr


INTERP = {"linear": 0, "spline": 1, "causal": 2}


def kinematics_at(keys, t_ns, interp="spline"):
    """Platform state on ``keys`` [(t_ns, 4x4), ...] at ``t_ns``: dict with
    pose (4x4), velocity and acceleration (world, m/s, m/s^2) and
    angular_velocity (body, rad/s); interp "linear" (as scans) or "spline"."""
    if interp not in INTERP:
        raise InvalidArgument(1, "interp must be linear, spline or causal (the rig's motion model)")
    k = _keys(None, keys)
    out = _lib.Kinematics()
    _check(_L.sensim_kinematics_at(k, len(k), INTERP[interp], _i64(t_ns, "t_ns"), ctypes.byref(out)))
    return dict(pose=_from16(out.pose), velocity=list(out.velocity), acceleration=list(out.acceleration),
                angular_velocity=list(out.angular_velocity), angular_acceleration=list(out.angular_acceleration))


class _Sample:
    """One sample of a user sensor (see Rig.add_sensor); valid during its callback."""

    def __init__(self, c, scene):
        self.t_ns, self.frame_number, self.period_ns = c.t_ns, c.frame_number, c.period_ns
        self.world_step, self.sensor_id, self.sensor_index = c.world_step, c.sensor_id, c.sensor_index
        self.pose = _from16(c.platform_pose)
        self.scene = scene
        self._out = c.output

    def push(self, records):
        """Append records (POINT_DTYPE array, or dicts of point fields) to this sample's frame."""
        if _np is not None and isinstance(records, _np.ndarray):
            a = _np.ascontiguousarray(records, dtype=POINT_DTYPE)
            n, ptr = a.size, a.ctypes.data
        else:
            names = [f[0] for f in _FIELDS]
            rows = list(records)
            for r in rows:
                bad = set(r) - set(names)
                if bad:
                    raise InvalidArgument(1, "unknown point fields %s" % sorted(bad))
            try:
                buf = b"".join(_UNPACK.pack(*[r.get(k, 0) for k in names]) for r in rows)
            except _struct.error as e:
                raise InvalidArgument(1, "a point field has the wrong type or range: %s" % e)
            a = ctypes.create_string_buffer(buf, max(1, len(buf)))
            n, ptr = len(rows), ctypes.addressof(a)
        _check(_L.sensim_sensor_output_push(self._out, ptr, n))
