"""libsensim from Python: a ctypes layer over the same C ABI.

Objects (Context, Scene, Lidar, Ring, Rig) own C handles and free them
deterministically with ``close()`` or ``with``; they also close when garbage
collected, in any order (children keep their parents alive, in Python and in
C). Every failing C call raises a subclass of :class:`Error` carrying the
status code and the library's message.

Matrices are 4x4 nested sequences or numpy arrays in mathematical layout
(``m[row][col]``, translation in the last column); they are converted to the
C API's column-major doubles.

Units, one rule for the whole package: poses and motions you give are in the
CLI's units -- metres, degrees (:func:`pose`, :func:`pose_from_frame`) and
degrees per second (:func:`motion_from_velocity`); every other angle carries
its unit in its name (``bin_rad``, ``full_fov_rad``, ``latitude_deg``);
sensor measurements are SI as in ROS messages (rad/s, m/s²); times are
integer nanoseconds.

Point records: with numpy (and ``SENSIM_DISABLE_NUMPY`` unset) frames come
back as structured arrays whose dtype is built from the library's own field
table; without numpy, as ``memoryview`` objects over the 32-byte records plus
:func:`unpack_points` to decode them.
"""
import contextlib
import math
import ctypes
import numbers
import os
import threading
import struct as _struct

from . import _lib

__version__ = "0.1.0"

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
            tree = ast.parse(open(__file__, encoding="utf-8").read())
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
                    material_files_missing=i.material_files_missing, textures_skipped=i.textures_skipped)


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


class Ring:
    """A frame ring in memory this object owns.

    Lifetime rule: :meth:`peek` returns zero-copy views that stay valid (and
    keep the memory alive) but whose contents belong to the ring again after
    :meth:`release`; :meth:`pop` returns copies that are yours forever.
    """

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
        _want(lidar, Lidar, "lidar")
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
        if isinstance(camera, Camera):
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


NAV_KINDS = {"imu": 0, "gnss": 1, "odometry": 2}


def _nav_dict(s):
    return dict(t_ns=s.t_ns, index=s.index, sensor_id=s.sensor_id, accel=list(s.accel), gyro=list(s.gyro),
                compass_rad=s.compass_rad, latitude_deg=s.latitude_deg, longitude_deg=s.longitude_deg,
                altitude_m=s.altitude_m, position=list(s.position), orientation=list(s.orientation),
                velocity_world=list(s.velocity_world), velocity_body=list(s.velocity_body),
                angular_velocity=list(s.angular_velocity), acceleration_world=list(s.acceleration_world))


class Nav(_Handle):
    """A navigation sensor: kind "imu", "gnss" or "odometry" with keys as rig
    files give them (dict or "key=value" list; sensim/nav.h: rate_hz, interp,
    mount_xyz_m, noise_accel_stddev_x, latitude, model, ...)."""
    _destroy = "sensim_nav_destroy"
    _what = "Nav"

    def __init__(self, context, kind="imu", keys=None, sensor_id=0):
        super().__init__()
        _want(context, Context, "context")
        if kind not in NAV_KINDS:
            raise InvalidArgument(1, "kind must be imu, gnss or odometry")
        self.context, self.kind = context, kind
        d = _lib.NavDesc()
        _L.sensim_nav_desc_init(ctypes.byref(d), NAV_KINDS[kind])
        if isinstance(keys, dict):
            keys = ["%s=%s" % (k, v) for k, v in keys.items()]
        for kv in keys or []:
            k, sep, v = str(kv).partition("=")
            if not sep:
                raise InvalidArgument(1, "navigation key %r is not key=value" % kv)
            _check(_L.sensim_nav_desc_set(ctypes.byref(d), _text_arg(k.strip(), "key"), _text_arg(v.strip(), k.strip())))
        d.sensor_id = _u32(sensor_id, "sensor_id")
        h = ctypes.c_void_p()
        _check(_L.sensim_nav_create(context.handle, ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value

    def sample(self, keys, k):
        """Sample k (at k / rate) on the platform keys [(t_ns, 4x4), ...]: a dict."""
        arr = _keys(None, keys)
        s = _lib.NavSample()
        with _using(self) as (h,):
            _check(_L.sensim_nav_sample_at(h, arr, len(arr), _u64(k, "k"), ctypes.byref(s)))
        return _nav_dict(s)


def radar_fields():
    """The radar detection field table: [(name, offset, datatype, count)]."""
    n = ctypes.c_uint32()
    f = _L.sensim_radar_fields(ctypes.byref(n))
    return [(f[i].name.decode(), f[i].offset, f[i].datatype, f[i].count) for i in range(n.value)]


RADAR_DTYPE = _np.dtype({"names": [x[0] for x in radar_fields()],
                         "formats": ["<" + _DATATYPES[x[2]][0] for x in radar_fields()],
                         "offsets": [x[1] for x in radar_fields()], "itemsize": POINT_SIZE}) if _np is not None else None


class Radar(_Handle):
    """A radar (sensim/radar.h) with keys as rig files give them (model carla|physical,
    horizontal_fov, vertical_fov, range, points_per_second, rate_hz, mount_xyz_m,
    snr_ref_db, pfa, ..._resolution, ..._noise, max_velocity). :meth:`sample`
    returns a RADAR_DTYPE array; in a Rig its detections fill a point Ring
    (view frames with ``points.view(sensim.RADAR_DTYPE)``)."""
    _destroy = "sensim_radar_destroy"
    _what = "Radar"

    def __init__(self, context, keys=None, sensor_id=0):
        super().__init__()
        _want(context, Context, "context")
        self.context = context
        d = _lib.RadarDesc()
        _L.sensim_radar_desc_init(ctypes.byref(d))
        if isinstance(keys, dict):
            keys = ["%s=%s" % (k, v) for k, v in keys.items()]
        for kv in keys or []:
            k, sep, v = str(kv).partition("=")
            if not sep:
                raise InvalidArgument(1, "radar key %r is not key=value" % kv)
            _check(_L.sensim_radar_desc_set(ctypes.byref(d), _text_arg(k.strip(), "key"), _text_arg(v.strip(), k.strip())))
        d.sensor_id = _u32(sensor_id, "sensor_id")
        h = ctypes.c_void_p()
        _check(_L.sensim_radar_create(context.handle, ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value
        self.rays_per_sample = _L.sensim_radar_rays_per_sample(self._h)

    def sample(self, scene, keys, k):
        """Detections of sample k (at k / rate) with the platform on keys [(t_ns, 4x4), ...]."""
        if _np is None:
            raise _need_numpy("Radar.sample")
        _want(scene, Scene, "scene")
        arr = _keys(None, keys)
        out = _np.empty(max(1, self.rays_per_sample), RADAR_DTYPE)
        n = ctypes.c_uint64()
        with _using(self, scene) as (h, sh):
            _check(_L.sensim_radar_sample_at(h, sh, arr, len(arr), _u64(k, "k"), out.ctypes.data, out.size,
                                             ctypes.byref(n), None))
        return out[:n.value].copy()


class NavRing(Ring):
    """A ring of navigation samples (sensim_nav_ring_init) this object owns;
    a Nav in a Rig writes one sample per frame. :meth:`pop` gives (header,
    sample dict)."""

    def __init__(self, frame_capacity=1024, policy="fail"):
        if policy not in POLICIES:
            raise InvalidArgument(1, "policy must be one of %s" % ", ".join(POLICIES))
        size = ctypes.c_size_t()
        _check(_L.sensim_nav_ring_required_size(_u32(frame_capacity, "frame_capacity"), ctypes.byref(size)))
        self._mem = (ctypes.c_uint64 * ((size.value + 7) // 8))()
        h = ctypes.c_void_p()
        _check(_L.sensim_nav_ring_init(ctypes.addressof(self._mem), size.value, frame_capacity, POLICIES[policy],
                                       ctypes.byref(h)))
        self._h = h.value

    def peek(self):
        hp, sp = ctypes.POINTER(_lib.FrameHeader)(), ctypes.POINTER(_lib.NavSample)()
        st = _L.sensim_ring_peek_nav(self._h, ctypes.byref(hp), ctypes.byref(sp))
        if st == 11:
            return None
        _check(st)
        return _header(hp.contents), _nav_dict(sp.contents)

    def pop(self):
        got = self.peek()
        if got is not None:
            self.release()
        return got

    def frames(self):
        while True:
            f = self.pop()
            if f is None:
                return
            yield f


def motion_from_velocity(pose_matrix, t0_ns, t1_ns, velocity, angular_velocity_deg=(0.0, 0.0, 0.0)):
    """Two keys [(t0, pose), (t1, pose)] for constant velocity (m/s, world) and
    body rates (roll, pitch, yaw rates in deg/s, as the CLI's --velocity)."""
    v = [_f64(a, "velocity") for a in velocity]
    w = [_f64(a, "angular_velocity_deg") * (3.141592653589793 / 180.0) for a in angular_velocity_deg]
    if len(v) != 3 or len(w) != 3:
        raise InvalidArgument(1, "velocity and angular_velocity_deg take 3 numbers each")
    out = (_lib.PoseKey * 2)()
    _check(_L.sensim_motion_from_velocity(_mat16(pose_matrix), _i64(t0_ns, "t0_ns"), _i64(t1_ns, "t1_ns"),
                                          _lib.d3(*v), _lib.d3(*w), out))
    return [(out[i].t_ns, _from16(out[i].pose)) for i in range(2)]


class Lidar(_Handle):
    """A lidar from a preset name or file (or a Livox CSV with shots_per_s).
    ``overrides`` is a dict or list of "key=value" (scan_patterns/README.md)."""
    _destroy = "sensim_lidar_destroy"
    _what = "Lidar"

    def __init__(self, context, preset, overrides=None):
        super().__init__()
        _want(context, Context, "context")
        self.context = context
        if isinstance(overrides, dict):
            overrides = ["%s=%s" % (k, v) for k, v in overrides.items()]
        overrides = list(overrides or [])
        arr = (ctypes.c_char_p * max(1, len(overrides)))(*[_text_arg(s, "override") for s in overrides])
        h = ctypes.c_void_p()
        _check(_L.sensim_lidar_create_from_preset(context.handle, _text_arg(preset, "preset", path=True), arr,
                                                  len(overrides),
                                                  ctypes.byref(h)))
        self._h = h.value

    @property
    def info(self):
        i = _lib.LidarInfo()
        _check(_L.sensim_lidar_get_info(self.handle, ctypes.byref(i)))
        d = {k: getattr(i, k) for k, _ in _lib.LidarInfo._fields_ if not k.startswith("reserved")}
        d["name"] = i.name.decode()
        return d

    @property
    def elevations(self):
        n = ctypes.c_uint32()
        _check(_L.sensim_lidar_get_elevations(self.handle, None, 0, ctypes.byref(n)))
        arr = (ctypes.c_float * n.value)()
        _check(_L.sensim_lidar_get_elevations(self.handle, arr, n.value, ctypes.byref(n)))
        return list(arr)

    def count_shots(self, t0_ns, t1_ns):
        out = ctypes.c_uint64()
        _check(_L.sensim_lidar_count_shots(self.handle, _i64(t0_ns, "t0_ns"), _i64(t1_ns, "t1_ns"),
                                           ctypes.byref(out)))
        return out.value

    def set_mount(self, pose_matrix):
        _check(_L.sensim_lidar_set_mount_pose(self.handle, _mat16(pose_matrix)))

    def scan(self, scene, t0_ns, t1_ns, ring, pose=None, keys=None, world_step=0):
        """Fire the shots of [t0, t1) into ``ring``; ``keys`` = [(t_ns, 4x4), ...] for motion."""
        _want(scene, Scene, "scene")
        _want(ring, Ring, "ring")
        k = _keys(pose, keys)
        t0_ns, t1_ns = _i64(t0_ns, "t0_ns"), _i64(t1_ns, "t1_ns")
        m = _lib.Motion(keys=k, key_count=len(k), world_step=_u64(world_step, "world_step"))
        r = _lib.ScanResult()
        with _using(self, scene) as (lh, sh):
            _check(_L.sensim_lidar_scan_motion(lh, sh, t0_ns, t1_ns, ctypes.byref(m), ring.handle, ctypes.byref(r)))
        return dict(shots=r.shots, points=r.points, frames_completed=r.frames_completed, points_lost=r.points_lost)

    def pattern_stats(self, t0_ns, t1_ns, bin_rad, durations_ns=()):
        n = len(durations_ns)
        d = (ctypes.c_int64 * max(1, n))(*[_i64(x, "duration") for x in durations_ns])
        cov = (ctypes.c_double * max(1, n))()
        s = _lib.PatternStats()
        _check(_L.sensim_pattern_measure(self.handle, _i64(t0_ns, "t0_ns"), _i64(t1_ns, "t1_ns"), bin_rad, d, n, cov,
                                         None, 0, ctypes.byref(s)))
        out = {k: getattr(s, k) for k, _ in _lib.PatternStats._fields_ if k != "reserved"}
        out["coverage"] = list(cov)[:n]
        return out

    def export_csv(self, t0_ns, t1_ns, path):
        rows = ctypes.c_uint64()
        _check(_L.sensim_pattern_export_csv(self.handle, _i64(t0_ns, "t0_ns"), _i64(t1_ns, "t1_ns"), _text_arg(path, "path", path=True),
                                            ctypes.byref(rows)))
        return rows.value


class Camera(_Handle):
    """A camera from a preset (carla_default, pinhole_720p, pinhole_1080p,
    fisheye_190) with ``overrides`` (dict or "key=value" list, sensim/camera.h
    keys: width, height, fov, fx, fy, cx, cy, k1..k4, p1, p2, model, ...).
    :meth:`render` returns numpy images (depth float32 metres, planar;
    semantic uint8 tags; instance uint32 ids; normal float32 HxWx3 in the
    optical frame; rgb uint8 HxWx3). Requires numpy."""
    _destroy = "sensim_camera_destroy"
    _what = "Camera"
    OUTPUTS = ("depth", "semantic", "instance", "normal", "rgb")

    def __init__(self, context, preset="carla_default", overrides=None):
        super().__init__()
        _want(context, Context, "context")
        self.context = context
        d = _lib.CameraDesc()
        _check(_L.sensim_camera_desc_preset(_text_arg(str(preset), "preset"), ctypes.byref(d)))
        if isinstance(overrides, dict):
            overrides = ["%s=%s" % (k, v) for k, v in overrides.items()]
        for kv in overrides or []:
            k, sep, v = str(kv).partition("=")
            if not sep:
                raise InvalidArgument(1, "camera override %r is not key=value" % kv)
            _check(_L.sensim_camera_desc_set(ctypes.byref(d), _text_arg(k.strip(), "key"),
                                             _text_arg(v.strip(), k.strip())))
        h = ctypes.c_void_p()
        _check(_L.sensim_camera_create(context.handle, ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value
        self.width, self.height = d.width, d.height

    @property
    def info(self):
        """ROS CameraInfo fields: width, height, distortion_model, D, K, R, P (row-major lists)."""
        i = _lib.CameraInfo()
        _check(_L.sensim_camera_get_info(self.handle, ctypes.byref(i)))
        return dict(width=i.width, height=i.height, distortion_model=i.distortion_model.decode(), D=list(i.d),
                    K=list(i.k), R=list(i.r), P=list(i.p), hfov_deg=i.hfov_deg)

    def set_mount(self, pose_matrix):
        _check(_L.sensim_camera_set_mount_pose(self.handle, _mat16(pose_matrix)))

    def render(self, scene, t_ns=0, pose=None, keys=None, outputs=("depth", "semantic")):
        """Render the image captured at ``t_ns`` with the platform at ``pose``
        (4x4) or on ``keys`` [(t_ns, 4x4), ...]; returns {name: array} and
        "pose" (the camera's world pose at t_ns, 4x4)."""
        if _np is None:
            raise _need_numpy("Camera.render")
        _want(scene, Scene, "scene")
        bad = [o for o in outputs if o not in self.OUTPUTS]
        if bad or not outputs:
            raise InvalidArgument(1, "outputs must be among %s, not %r" % (", ".join(self.OUTPUTS), bad or outputs))
        h, w = self.height, self.width
        shapes = dict(depth=((h, w), _np.float32), semantic=((h, w), _np.uint8), instance=((h, w), _np.uint32),
                      normal=((h, w, 3), _np.float32), rgb=((h, w, 3), _np.uint8))
        out = {o: _np.empty(*shapes[o]) for o in outputs}
        im = _lib.CameraImages()
        for o, a in out.items():
            setattr(im, o, a.ctypes.data)
        k = _keys(pose, keys)
        m = _lib.Motion(keys=k, key_count=len(k))
        cam_pose = _lib.d16()
        with _using(self, scene) as (ch, sh):
            _check(_L.sensim_camera_render(ch, sh, ctypes.byref(m), _i64(t_ns, "t_ns"), ctypes.byref(im), cam_pose))
        out["pose"] = _from16(cam_pose)
        return out


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


SINK_IMAGES = {"range": 1, "intensity": 2, "label": 4, "preview": 8, "bev": 16}


def _text_arg(value, what, path=False):
    """A str (or, for paths, os.PathLike) without NUL, encoded for C: a NUL would cut it short there."""
    if path:
        value = os.fspath(value) if isinstance(value, (str, os.PathLike)) else value
    if not isinstance(value, str):
        raise InvalidArgument(1, "%s must be a %s, not %s" % (what, "path" if path else "str", type(value).__name__))
    if "\0" in value:
        raise InvalidArgument(1, "%s contains a NUL character" % what)
    return os.fsencode(value) if path else value.encode()


class FrameSink(_Handle):
    """The per-frame files of ``sensim batch`` for a lidar's ring: DIR/frame_NNNNNN.<format>,
    optional images, and DIR/frame_NNNNNN.json last. Attach it with :meth:`Rig.attach`; it
    then writes every complete frame as the rig steps (in C, no Python per frame).
    format: one of POINT_FORMATS; frame: "native", "carla" or "ue"; images: names from
    SINK_IMAGES (need ``lidar``)."""
    _destroy = "sensim_frame_sink_destroy"
    _what = "FrameSink"
    _consume = "sensim_frame_sink_consume"

    def __init__(self, directory, sensor_name, format="ply", frame="native", images=(), lidar=None):
        super().__init__()
        if format not in POINT_FORMATS:
            raise InvalidArgument(1, "format must be one of %s, not %r" % (", ".join(POINT_FORMATS), format))
        if frame not in FRAMES:
            raise InvalidArgument(1, "frame must be one of %s, not %r" % (", ".join(FRAMES), frame))
        bad = [i for i in images if i not in SINK_IMAGES]
        if bad or isinstance(images, str):
            raise InvalidArgument(1, "images must be names from %s, not %r" % (", ".join(SINK_IMAGES), images))
        if lidar is not None:
            _want(lidar, Lidar, "lidar")
        d = _lib.FrameSinkDesc()
        _L.sensim_frame_sink_desc_init(ctypes.byref(d))
        self._strings = (_text_arg(directory, "directory", path=True), _text_arg(sensor_name, "sensor_name"))
        d.dir, d.sensor_name = self._strings
        d.format, d.frame = POINT_FORMATS[format], FRAMES[frame]
        d.images = sum(SINK_IMAGES[i] for i in set(images))
        self._lidar = lidar  # borrowed by the C sink: kept alive with it
        d.lidar = lidar.handle if lidar is not None else None
        h = ctypes.c_void_p()
        _check(_L.sensim_frame_sink_create(ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value


CAMERA_OUTPUTS = {"depth": 1, "semantic": 2, "instance": 4, "normal": 8, "rgb": 16}


class McapSink(_Handle):
    """A ring's frames into a bag (sensim_mcap_sink): a lidar's as PointCloud2 on NAME/points, a
    camera's captures as NAME/<output>/image + NAME/camera_info (give ``camera``), a navigation
    sensor's samples as Imu, NavSatFix or Odometry (``nav_kind`` "imu", "gnss", "odometry"), with
    per-axis variances. Attach it with :meth:`Rig.attach`; the writer stays open while it is."""
    _destroy = "sensim_mcap_sink_destroy"
    _what = "McapSink"
    _consume = "sensim_mcap_sink_consume"

    def __init__(self, writer, name, topic_prefix="", camera=None, nav_kind="imu", gyro_var=0.0, accel_var=0.0,
                 enu_var_m2=0.0):
        super().__init__()
        _want(writer, McapWriter, "writer")
        if camera is not None:
            _want(camera, Camera, "camera")
        if nav_kind not in NAV_KINDS:
            raise InvalidArgument(1, "nav_kind must be imu, gnss or odometry")
        d = _lib.McapSinkDesc()
        _L.sensim_mcap_sink_desc_init(ctypes.byref(d))
        self._strings = (_text_arg(name, "name"), _text_arg(topic_prefix, "topic_prefix"))
        d.name, d.topic_prefix = self._strings
        d.nav_kind = NAV_KINDS[nav_kind]
        d.gyro_var, d.accel_var, d.enu_var_m2 = (_axes3(gyro_var, "gyro_var"), _axes3(accel_var, "accel_var"),
                                                 _axes3(enu_var_m2, "enu_var_m2"))
        self._writer, self._camera = writer, camera  # borrowed by the C sink
        d.writer = writer.handle
        d.camera = camera.handle if camera is not None else None
        h = ctypes.c_void_p()
        _check(_L.sensim_mcap_sink_create(ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value
        with writer._cv:
            writer._holders += 1  # the writer cannot close under the sink

    def close(self):
        was_open = bool(self._h)
        super().close()
        if was_open:
            with self._writer._cv:
                self._writer._holders -= 1


class ImageSink(_Handle):
    """A camera's captures in CARLA's synchronized-collection layout, as ``sensim render`` and
    ``sensim batch`` write them: DIR/<output>/NNNNNN.png (depth also .pfm, semantic also
    semantic_cityscapes) and DIR/NNNNNN.json last. Attach it to a camera's ImageRing with
    :meth:`Rig.attach`. outputs: names from CAMERA_OUTPUTS (empty: all the ring holds)."""
    _destroy = "sensim_image_sink_destroy"
    _what = "ImageSink"
    _consume = "sensim_image_sink_consume"

    def __init__(self, directory, camera_name, camera, frame="native", outputs=()):
        super().__init__()
        _want(camera, Camera, "camera")
        if frame not in FRAMES:
            raise InvalidArgument(1, "frame must be one of %s, not %r" % (", ".join(FRAMES), frame))
        bad = [o for o in outputs if o not in CAMERA_OUTPUTS]
        if bad or isinstance(outputs, str):
            raise InvalidArgument(1, "outputs must be names from %s, not %r" % (", ".join(CAMERA_OUTPUTS), outputs))
        d = _lib.ImageSinkDesc()
        _L.sensim_image_sink_desc_init(ctypes.byref(d))
        self._strings = (_text_arg(directory, "directory", path=True), _text_arg(camera_name, "camera_name"))
        d.dir, d.camera_name = self._strings
        self._camera = camera  # borrowed by the C sink: kept alive with it
        d.camera, d.frame = camera.handle, FRAMES[frame]
        d.outputs = sum(CAMERA_OUTPUTS[o] for o in set(outputs))
        h = ctypes.c_void_p()
        _check(_L.sensim_image_sink_create(ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value


CSV_KINDS = {"imu": 0, "gnss": 1, "odometry": 2, "radar": 3}


class CsvSink(_Handle):
    """A navigation stream (``kind`` imu, gnss or odometry, for a NavRing) or a radar's
    detections (``kind`` "radar", for its point Ring) as the CSV ``sensim batch`` writes,
    in ``frame`` (native, carla, ue). Rows go to a temporary file that :meth:`close`
    renames to ``path`` (a sink closed without it leaves nothing). Attach with
    :meth:`Rig.attach`."""
    _destroy = "sensim_csv_sink_destroy"
    _what = "CsvSink"
    _consume = "sensim_csv_sink_consume"

    def __init__(self, path, kind, frame="native"):
        super().__init__()
        if kind not in CSV_KINDS:
            raise InvalidArgument(1, "kind must be one of %s, not %r" % (", ".join(CSV_KINDS), kind))
        if frame not in FRAMES:
            raise InvalidArgument(1, "frame must be one of %s, not %r" % (", ".join(FRAMES), frame))
        d = _lib.CsvSinkDesc()
        _L.sensim_csv_sink_desc_init(ctypes.byref(d))
        self._path = _text_arg(path, "path", path=True)
        d.path, d.kind, d.frame = self._path, CSV_KINDS[kind], FRAMES[frame]
        h = ctypes.c_void_p()
        _check(_L.sensim_csv_sink_create(ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value

    def commit(self):
        """Rename the file into place (after the last step). The sink writes nothing more."""
        with _using(self) as (h,):
            _check(_L.sensim_csv_sink_close(h))


_HELD = (Lidar, Camera, Nav, Radar, FrameSink, ImageSink, CsvSink, McapSink)  # what a Rig borrows: closing one waits for the rig


class Rig(_Handle):
    """Sensors on one world clock; step(dt) scans every sensor over [t, t+dt)."""
    _destroy = "sensim_rig_destroy"
    _what = "Rig"

    def __init__(self, context):
        super().__init__()
        _want(context, Context, "context")
        self.context = context
        self._members = []  # the rig borrows lidars and rings: keep them alive
        self._scene, self._errors, self._pushed = None, [], False
        self._rings, self._consumers = {}, {}
        h = ctypes.c_void_p()
        _check(_L.sensim_rig_create(context.handle, ctypes.byref(h)))
        self._h = h.value

    def add_lidar(self, lidar, ring):
        _want(lidar, Lidar, "lidar")
        _want(ring, Ring, "ring")
        idx = ctypes.c_uint32()
        _check(_L.sensim_rig_add_lidar(self.handle, lidar.handle, ring.handle, ctypes.byref(idx)))
        return self._hold(lidar, ring, idx)

    def add_camera(self, camera, ring, rate_hz=20.0, sensor_id=0):
        """Add ``camera`` taking images into ``ring`` (an ImageRing of its
        size) at ``rate_hz`` on the world clock (CARLA sensor_tick)."""
        _want(camera, Camera, "camera")
        _want(ring, ImageRing, "ring")
        idx = ctypes.c_uint32()
        _check(_L.sensim_rig_add_camera(self.handle, camera.handle, _f64(rate_hz, "rate_hz"),
                                        _u32(sensor_id, "sensor_id"), ring.handle, ctypes.byref(idx)))
        return self._hold(camera, ring, idx)

    def _hold(self, sensor, ring, idx):
        """Keep a member and its ring alive; its close() is refused until this rig is closed."""
        self._members += [sensor, ring]
        self._rings[idx.value] = ring
        with sensor._cv:
            sensor._holders += 1
        return idx.value

    def add_nav(self, nav, ring):
        """Add a navigation sensor (Nav) writing one sample per frame into ``ring`` (a NavRing)."""
        _want(nav, Nav, "nav")
        _want(ring, NavRing, "ring")
        idx = ctypes.c_uint32()
        _check(_L.sensim_rig_add_nav(self.handle, nav.handle, ring.handle, ctypes.byref(idx)))
        return self._hold(nav, ring, idx)

    def add_radar(self, radar, ring):
        """Add a Radar writing one frame of detections per sample into a point ``ring``."""
        _want(radar, Radar, "radar")
        _want(ring, Ring, "ring")
        idx = ctypes.c_uint32()
        _check(_L.sensim_rig_add_radar(self.handle, radar.handle, ring.handle, ctypes.byref(idx)))
        return self._hold(radar, ring, idx)

    def add_proximity(self, ring, rate_hz=10.0, half_extents=(1, 1, 1), center=(0, 0, 0), front=0.0, back=0.0,
                      side=0.0, sensor_id=0, exclude_actor_id=0):
        _want(ring, Ring, "ring")
        d = _lib.ProximityDesc()
        _L.sensim_proximity_desc_init(ctypes.byref(d))
        d.sensor_id, d.exclude_actor_id, d.rate_hz = sensor_id, exclude_actor_id, rate_hz
        d.box_center, d.box_half_extents = _lib.d3(*center), _lib.d3(*half_extents)
        d.front_m, d.back_m, d.side_m = front, back, side
        idx = ctypes.c_uint32()
        _check(_L.sensim_rig_add_proximity(self.handle, ctypes.byref(d), ring.handle, ctypes.byref(idx)))
        self._members.append(ring)
        self._rings[idx.value] = ring
        return idx.value

    def add_sensor(self, ring, fn, rate_hz=10.0, sensor_id=0):
        """A sensor of your own: ``fn(sample)`` runs at every sample time k/rate
        inside each step, on the stepping thread. ``sample`` has t_ns,
        frame_number, period_ns, world_step, sensor_id, ``pose`` (platform,
        4x4, at t_ns), ``scene`` (the Scene being stepped: ray queries and
        camera renders) and ``push(records)`` (a POINT_DTYPE array, or dicts
        of point fields) into the frame [t_ns, t_ns + period_ns) of ``ring``.
        An exception in ``fn`` aborts the step (nothing of it stays in any
        ring) and is raised again by :meth:`step`."""
        _want(ring, Ring, "ring")
        if not callable(fn):
            raise InvalidArgument(1, "fn must be callable")
        rig = self

        def trampoline(_user, sp):
            try:
                fn(_Sample(sp.contents, rig._scene))
                return 0
            except Exception as e:  # the step returns this status; step() re-raises e
                rig._errors.append(e)
                return e.status if isinstance(e, Error) else 1

        cb = _lib.SENSOR_FN(trampoline)
        d = _lib.SensorDesc()
        _L.sensim_sensor_desc_init(ctypes.byref(d))
        sid = _u64(sensor_id, "sensor_id")
        if sid >= 2 ** 32:
            raise OutOfRange(5, "sensor_id must fit 32 bits")
        d.sensor_id, d.rate_hz, d.sample = sid, float(rate_hz), cb
        idx = ctypes.c_uint32()
        _check(_L.sensim_rig_add_sensor(self.handle, ctypes.byref(d), ring.handle, ctypes.byref(idx)))
        self._members += [ring, cb]  # the C side keeps the callback pointer: keep it alive
        self._rings[idx.value] = ring
        return idx.value

    def attach(self, index, sink):
        """Attach a sink (a :class:`FrameSink` for a lidar's ring, an :class:`ImageSink` for a
        camera's, a :class:`CsvSink` for a navigation sensor's or a radar's) to sensor ``index``'s ring: after every step it writes the ring's complete
        frames, in C on the stepping thread (no Python per frame).
        The rig keeps the sink until it is closed; a sink's failure (disk full) is raised by
        :meth:`step` after the step has happened. Replaces a :meth:`listen` callback."""
        i = _u32(index, "index")
        if not isinstance(sink, (FrameSink, ImageSink, CsvSink, McapSink)):
            raise InvalidArgument(1, "sink must be a sensim.FrameSink, ImageSink, CsvSink or McapSink, not %s"
                                  % type(sink).__name__)
        fn = ctypes.cast(getattr(_L, sink._consume), ctypes.c_void_p)
        with _using(self, sink) as hs:
            _check(_L.sensim_rig_set_consumer(hs[0], i, fn, hs[1]))
        self._consumers[i] = sink
        self._members.append(sink)
        with sink._cv:
            sink._holders += 1

    def listen(self, index, fn):
        """CARLA's ``sensor.listen(callback)`` for sensor ``index`` (what an
        ``add_*`` returned): after every step, on the stepping thread,
        ``fn(item)`` for each complete frame of its ring, popped in order --
        a Frame for point rings, ``(header, sample)`` for a NavRing,
        ``(header, images)`` for an ImageRing. ``fn=None`` stops listening.
        An exception in ``fn`` is raised again by :meth:`step` after the step
        has happened (the clock moved; the frames it did not take stay in the
        ring)."""
        i = _u32(index, "index")
        if fn is not None and not callable(fn):
            raise InvalidArgument(1, "fn must be callable or None")
        ring = self._rings.get(i)
        rig = self
        if fn is None:
            cb = None
        else:
            def trampoline(_user, _index, _ring):
                try:
                    for item in ring.frames():
                        fn(item)
                    return 0
                except Exception as e:  # step() re-raises it
                    rig._errors.append(e)
                    return e.status if isinstance(e, Error) else 1
            cb = _lib.CONSUMER_FN(trampoline)
        with _using(self) as hs:
            _check(_L.sensim_rig_set_consumer(hs[0], i, ctypes.cast(cb, ctypes.c_void_p) if cb else None, None))
        self._consumers[i] = cb  # the C side keeps the pointer: keep the callback alive

    def set_time(self, t_ns):
        _check(_L.sensim_rig_set_time(self.handle, _i64(t_ns, "t_ns")))

    def set_world_step(self, world_step):
        """Number the next step (before the first step): a run started mid-way keeps the whole run's step numbers."""
        _check(_L.sensim_rig_set_world_step(self.handle, _uint(world_step, "world_step", 1 << 62)))

    def close(self):
        """Free the rig (waits for a step on another thread); its lidars and
        cameras may then be closed."""
        was_open = bool(self._h)
        super().close()
        if was_open:
            for m in self._members:
                if isinstance(m, _HELD):
                    with m._cv:
                        m._holders -= 1

    def push_pose(self, t_ns, pose):
        """Push the platform's pose (4x4, body to world, metres) at ``t_ns``
        into the rig's history; steps without ``pose``/``keys`` then read it
        through the rig's one motion model (see sensim_rig_push_pose)."""
        m = _mat16(pose)
        with _using(self) as hs:
            _check(_L.sensim_rig_push_pose(hs[0], _i64(t_ns, "t_ns"), ctypes.byref(m)))
        self._pushed = True

    def push_state(self, t_ns, pose, velocity=None, acceleration=None, angular_velocity_deg=None,
                   angular_acceleration_deg=None, angular_velocity=None, angular_acceleration=None):
        """Push a platform state at ``t_ns``: ``pose`` (4x4) and whichever
        derivatives the host knows, used exactly: ``velocity`` and
        ``acceleration`` (world frame, m/s and m/s^2, gravity not included),
        body rates ``angular_velocity_deg`` (deg/s) or ``angular_velocity``
        (rad/s), and angular accelerations likewise. Those left out come
        from the pushed poses."""
        st = _lib.PlatformState()
        _L.sensim_platform_state_init(ctypes.byref(st))
        st.pose = _mat16(pose)
        deg = math.pi / 180.0
        given = 0
        for bit, name, value, scale in ((1, "velocity", velocity, 1.0), (2, "acceleration", acceleration, 1.0),
                                        (4, "angular_velocity_deg", angular_velocity_deg, deg),
                                        (4, "angular_velocity", angular_velocity, 1.0),
                                        (8, "angular_acceleration_deg", angular_acceleration_deg, deg),
                                        (8, "angular_acceleration", angular_acceleration, 1.0)):
            if value is None:
                continue
            if given & bit:
                raise InvalidArgument(1, "push_state: give %s in degrees or in radians, not both" % name)
            try:
                vec = [_f64(x, "push_state: %s component" % name) * scale for x in value]
            except TypeError:
                raise InvalidArgument(1, "push_state: %s must be 3 numbers, not %s"
                                      % (name, type(value).__name__)) from None
            if len(vec) != 3:
                raise InvalidArgument(1, "push_state: %s must be 3 numbers, got %d" % (name, len(vec)))
            field = {1: "velocity", 2: "acceleration", 4: "angular_velocity", 8: "angular_acceleration"}[bit]
            setattr(st, field, _lib.d3(*vec))
            given |= bit
        st.given = given
        with _using(self) as hs:
            _check(_L.sensim_rig_push_state(hs[0], _i64(t_ns, "t_ns"), ctypes.byref(st)))
        self._pushed = True

    def platform_at(self, t_ns):
        """The platform's state at ``t_ns`` from the pushed history (what every
        sensor reads): dict with pose (4x4), velocity, acceleration (world),
        angular_velocity and angular_acceleration (body, rad/s, rad/s^2)."""
        out = _lib.Kinematics()
        with _using(self) as hs:
            _check(_L.sensim_rig_platform_at(hs[0], _i64(t_ns, "t_ns"), ctypes.byref(out)))
        return dict(pose=_from16(out.pose), velocity=list(out.velocity), acceleration=list(out.acceleration),
                    angular_velocity=list(out.angular_velocity),
                    angular_acceleration=list(out.angular_acceleration))

    def step(self, scene, dt_ns, pose=None, keys=None):
        """Advance by ``dt_ns``. After push_pose/push_state, a step without
        ``pose`` or ``keys`` reads the pushed history (it may go up to the
        last pushed time); with them (or when nothing was pushed: the
        identity pose) the keys as given."""
        _want(scene, Scene, "scene")
        use_history = pose is None and keys is None and self._pushed
        if not use_history:
            k = _keys(pose, keys)
            m = _lib.Motion(keys=k, key_count=len(k))
        r = _lib.RigStepResult()
        dt_ns = _i64(dt_ns, "dt_ns")
        lidars = [x for x in self._members if isinstance(x, _HELD)]
        self._scene, self._errors = scene, []
        try:
            with _using(self, scene, *lidars) as hs:
                st = _L.sensim_rig_step(hs[0], hs[1], dt_ns, None if use_history else ctypes.byref(m),
                                        ctypes.byref(r))
        finally:
            self._scene = None
        if self._errors:
            raise self._errors[0]
        _check(st)
        return dict(world_step=r.world_step, t_begin_ns=r.t_begin_ns, t_end_ns=r.t_end_ns,
                    frames_completed=r.frames_completed, sensors_refused=r.sensors_refused)


POINT_FORMATS = {"ply": 0, "ply-ascii": 1, "pcd": 2, "pcd-ascii": 3, "kitti": 4, "carla": 5, "las": 6, "las12": 7}


def write_points(path, points, format="ply"):
    """Write point records (a structured array of POINT_DTYPE, or 32-byte
    records as bytes) in one of POINT_FORMATS -- the formats and field names
    of ``sensim batch --format`` -- through PATH.tmp and a rename."""
    if format not in POINT_FORMATS:
        raise InvalidArgument(1, "format must be one of %s, not %r" % (", ".join(POINT_FORMATS), format))
    if _np is not None and isinstance(points, _np.ndarray):
        arr = _np.ascontiguousarray(points, dtype=POINT_DTYPE)
        addr, n = arr.ctypes.data, len(arr)
    else:
        raw = bytes(points)
        if len(raw) % POINT_SIZE:
            raise InvalidArgument(1, "points: %d bytes is not a whole number of %d-byte records"
                                  % (len(raw), POINT_SIZE))
        buf = ctypes.create_string_buffer(raw, len(raw) or 1)
        addr, n = ctypes.addressof(buf), len(raw) // POINT_SIZE
    _check(_L.sensim_write_points(_text_arg(path, "path", path=True), POINT_FORMATS[format], None, addr, n))


def write_ply(path, points):
    """Write records as binary PLY (``write_points(path, points, "ply")``)."""
    write_points(path, points, "ply")


def write_png(path, image):
    """Write a numpy image as PNG through a temporary (nothing half written): uint8 H x W (gray) or
    H x W x 3 (RGB), or uint16 H x W (16-bit gray, as range images)."""
    if _np is None:
        raise _need_numpy("write_png")
    if not isinstance(image, _np.ndarray) or image.ndim not in (2, 3):
        raise InvalidArgument(1, "image must be a 2-D or 3-D numpy array")
    ch = 1 if image.ndim == 2 else image.shape[2]
    depth = 8 if image.dtype == _np.uint8 else 16 if image.dtype == _np.uint16 and ch == 1 else 0
    if not depth or ch not in (1, 3):
        raise InvalidArgument(1, "a PNG takes uint8 with 1 or 3 channels or uint16 with 1, not %s with %d"
                              % (image.dtype, ch))
    img = _np.ascontiguousarray(image)
    if depth == 16:
        img = img.astype("<u2", copy=False)
    _check(_L.sensim_write_png(_text_arg(path, "path", path=True), _u32(img.shape[1], "width"),
                               _u32(img.shape[0], "height"), ch, depth, img.ctypes.data, img.strides[0]))


def read_ply(path):
    """Read a binary little-endian PLY of points (what write_ply and the sensim command write, or any PLY
    of float/int vertex properties): a numpy structured array of its vertex properties."""
    if _np is None:
        raise _need_numpy("read_ply")
    types = {"float": "<f4", "float32": "<f4", "double": "<f8", "float64": "<f8", "uint": "<u4", "uint32": "<u4",
             "int": "<i4", "int32": "<i4", "ushort": "<u2", "uint16": "<u2", "short": "<i2", "int16": "<i2",
             "uchar": "u1", "uint8": "u1", "char": "i1", "int8": "i1"}
    with open(_text_arg(path, "path", path=True), "rb") as f:
        data = f.read()
    end = data.find(b"end_header\n")
    if not data.startswith(b"ply\n") or end < 0:
        raise ParseError(4, "%s: not a PLY file" % path)
    fields, count, in_vertex = [], None, False
    for line in data[:end].decode("ascii", "replace").splitlines()[1:]:
        w = line.split()
        if w[:1] == ["format"] and w[1:2] != ["binary_little_endian"]:
            raise ParseError(4, "%s: %s PLY (binary_little_endian only)" % (path, w[1] if len(w) > 1 else "?"))
        if w[:1] == ["element"]:
            in_vertex = len(w) == 3 and w[1] == "vertex"
            if in_vertex:
                count = int(w[2])
            elif count is None:
                raise ParseError(4, "%s: an element before vertex" % path)
        elif w[:1] == ["property"] and in_vertex:
            if len(w) != 3 or w[1] not in types:
                raise ParseError(4, "%s: property %r" % (path, line))
            fields.append((w[2], types[w[1]]))
    dt = _np.dtype(fields)
    body = data[end + len(b"end_header\n"):]
    if count is None or count * dt.itemsize > len(body):
        raise ParseError(4, "%s: %s vertices do not fit the file" % (path, count))
    return _np.frombuffer(body, dt, count).copy()


def write_pcd(path, points, ascii=False):
    """Write records as PCD v0.7, binary or ascii, with the record's field
    names (``write_points(path, points, "pcd")``)."""
    write_points(path, points, "pcd-ascii" if ascii else "pcd")


# ---------------------------------------------------------------- ROS 2 bags

MCAP_TYPES = {"PointCloud2": 0, "Image": 1, "CameraInfo": 2, "Imu": 3, "NavSatFix": 4, "Odometry": 5,
              "TFMessage": 6, "TFMessage_static": 7, "Clock": 8}
MCAP_COMPRESSION = {"none": 0, "zstd": 1, "lz4": 2}
# sensor_msgs/Image encodings write_image takes: (numpy dtype, channels); little-endian as the message says
_IMAGE_DTYPES = {"rgb8": ("uint8", 3), "bgr8": ("uint8", 3), "rgba8": ("uint8", 4), "bgra8": ("uint8", 4),
                 "mono8": ("uint8", 1), "mono16": ("<u2", 1), "16UC1": ("<u2", 1), "32FC1": ("<f4", 1),
                 "32FC3": ("<f4", 3)}


def _axes3(value, what):
    """One number for three axes, or three: a C double[3]."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        v = [float(value)] * 3
    else:
        try:
            v = [_f64(x, what) for x in value]
        except TypeError:
            raise InvalidArgument(1, "%s must be a number or three numbers" % what) from None
        if len(v) != 3:
            raise InvalidArgument(1, "%s must be a number or three numbers, not %d" % (what, len(v)))
    return _lib.d3(*v)


def gnss_enu_variance(latitude_deg, lat_stddev_deg, lon_stddev_deg, alt_stddev_m):
    """(East, North, Up) variances in m² of a GNSS fix with angular noise in degrees, on WGS 84."""
    out = _lib.d3()
    _check(_L.sensim_gnss_enu_variance(_f64(latitude_deg, "latitude_deg"), _f64(lat_stddev_deg, "lat_stddev_deg"),
                                       _f64(lon_stddev_deg, "lon_stddev_deg"), _f64(alt_stddev_m, "alt_stddev_m"),
                                       out))
    return tuple(out)


def _cstr(value, what):
    return _text_arg(value, what)


def _nav_sample(sample):
    """A NavSample from Nav.sample()'s dict (or a NavSample)."""
    if isinstance(sample, _lib.NavSample):
        return sample
    if not isinstance(sample, dict):
        raise InvalidArgument(1, "sample must be the dict Nav.sample() returns")
    s = _lib.NavSample()
    s.t_ns = _i64(sample.get("t_ns", 0), "sample['t_ns']")
    for k in ("accel", "gyro", "position", "orientation", "velocity_world", "velocity_body", "angular_velocity",
              "acceleration_world"):
        if k in sample:
            dst = getattr(s, k)
            vals = list(sample[k])
            if len(vals) != len(dst):
                raise InvalidArgument(1, "sample[%r] needs %d numbers" % (k, len(dst)))
            for i, v in enumerate(vals):
                dst[i] = _f64(v, "sample[%r]" % k)
    for k in ("latitude_deg", "longitude_deg", "altitude_m", "compass_rad"):
        if k in sample:
            setattr(s, k, _f64(sample[k], "sample[%r]" % k))
    return s


class McapWriter(_Handle):
    """A rosbag2-compatible MCAP writer (sensim/mcap.h): files PREFIX_0.mcap,
    PREFIX_1.mcap, ... that `ros2 bag play`, `ros2 bag info` and Foxglove
    open. Times are int ns of the world clock; ``log_ns`` is the message's
    receive time. Use as a context manager or call :meth:`close`, which
    finishes the file (an unfinished file is never left under its name).
    One thread at a time."""
    _destroy = None
    _what = "McapWriter"

    def __init__(self, prefix, compression="zstd", chunk_bytes=1 << 20, split_bytes=0, split_s=0.0, zstd_level=3):
        super().__init__()
        if compression not in MCAP_COMPRESSION:
            raise InvalidArgument(1, "compression must be none, zstd or lz4")
        o = _lib.McapOptions()
        _L.sensim_mcap_options_init(ctypes.byref(o))
        o.compression = MCAP_COMPRESSION[compression]
        lvl = _i64(zstd_level, "zstd_level")
        if not 1 <= lvl <= 19:
            raise OutOfRange(5, "zstd_level must be in 1..19")
        o.zstd_level = lvl
        o.chunk_bytes = _u64(chunk_bytes, "chunk_bytes")
        o.split_bytes = _u64(split_bytes, "split_bytes")
        split = _f64(split_s, "split_s")
        if not 0 <= split <= 1e9:
            raise OutOfRange(5, "split_s must be in [0, 1e9] seconds")
        o.split_ns = int(round(split * 1e9))
        h = ctypes.c_void_p()
        _check(_L.sensim_mcap_open(_text_arg(prefix, "prefix", path=True), ctypes.byref(o), ctypes.byref(h)))
        self._h = h.value
        self.files = 0

    def close(self):
        """Finish the current file; returns how many files were written. Refused while an open
        McapSink writes into it (close the sink first)."""
        with self._cv:
            if not self._h:
                return self.files
            if self._holders:
                raise InvalidArgument(1, "McapWriter is written by an open McapSink: close the sink first")
            while self._calls:
                self._cv.wait()
            h, self._h = self._h, None
        n = ctypes.c_uint32()
        _check(_L.sensim_mcap_close(h, ctypes.byref(n)))
        self.files = n.value
        return self.files

    def add_topic(self, name, msg_type):
        """Add a topic: msg_type one of MCAP_TYPES ("PointCloud2", "Image", "CameraInfo", "Imu",
        "NavSatFix", "Odometry", "TFMessage", "TFMessage_static" for /tf_static's QoS, "Clock").
        Returns the topic handle the write calls take."""
        if msg_type not in MCAP_TYPES:
            raise InvalidArgument(1, "msg_type must be one of " + ", ".join(MCAP_TYPES))
        t = ctypes.c_uint16()
        with _using(self) as (h,):
            _check(_L.sensim_mcap_add_topic(h, _cstr(name, "name"), MCAP_TYPES[msg_type], ctypes.byref(t)))
        return t.value

    @staticmethod
    def _topic(topic):
        if not isinstance(topic, int) or isinstance(topic, bool) or not 0 <= topic < 65536:
            raise InvalidArgument(1, "topic must be the int add_topic() returned")
        return topic

    def write_frame(self, topic, frame, frame_id, log_ns=None):
        """A lidar Frame (Ring.pop()) as PointCloud2: stamp = the frame start; log time = the frame end
        unless ``log_ns`` is given."""
        if not isinstance(frame, Frame):
            raise InvalidArgument(1, "frame must be a sensim.Frame (Ring.pop())")
        hd = _lib.FrameHeader()
        hd.t_begin_ns = _i64(frame.header["t_begin_ns"], "t_begin_ns")
        hd.t_end_ns = _i64(frame.header["t_end_ns"], "t_end_ns")
        pts = frame.points
        if _np is not None and isinstance(pts, _np.ndarray):
            arr = _np.ascontiguousarray(pts, dtype=POINT_DTYPE)
            addr, n, keep = arr.ctypes.data, len(arr), arr
        else:
            raw = bytes(pts)
            keep = ctypes.create_string_buffer(raw, len(raw) or 1)
            addr, n = ctypes.addressof(keep), len(raw) // POINT_SIZE
        v = _lib.FrameView()
        v.header = ctypes.pointer(hd)
        v.points[0] = addr
        v.counts[0] = n
        log = hd.t_end_ns if log_ns is None else _i64(log_ns, "log_ns")
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_points(h, self._topic(topic), log, _cstr(frame_id, "frame_id"),
                                               ctypes.byref(v)))
        del keep

    def write_image(self, topic, log_ns, stamp_ns, frame_id, image, encoding):
        """A numpy image (H x W or H x W x C, C-contiguous rows) as sensor_msgs/Image."""
        if _np is None or not isinstance(image, _np.ndarray) or image.ndim not in (2, 3):
            raise InvalidArgument(1, "image must be a 2-D or 3-D numpy array")
        want = _IMAGE_DTYPES.get(encoding)
        if want is None:
            raise InvalidArgument(1, "encoding %r: one of %s" % (encoding, ", ".join(sorted(_IMAGE_DTYPES))))
        chans = 1 if image.ndim == 2 else image.shape[2]
        if image.dtype != _np.dtype(want[0]) or chans != want[1]:
            raise InvalidArgument(1, "a %s image is %d channel(s) of %s, not %d of %s (convert it first: a %s array "
                                  "written as %s would be garbage)" % (encoding, want[1], want[0], chans, image.dtype,
                                                                       image.dtype, encoding))
        img = _np.ascontiguousarray(image)
        hgt, wid = img.shape[0], img.shape[1]
        step = img.strides[0]
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_image(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                              _i64(stamp_ns, "stamp_ns"), _cstr(frame_id, "frame_id"),
                                              _u32(wid, "width"), _u32(hgt, "height"), _cstr(encoding, "encoding"),
                                              _u32(step, "step"), img.ctypes.data))

    def write_camera_info(self, topic, log_ns, stamp_ns, frame_id, camera):
        """The CameraInfo of a sensim.Camera."""
        _want(camera, Camera, "camera")
        i = _lib.CameraInfo()
        with _using(self, camera) as (h, c):
            _check(_L.sensim_camera_get_info(c, ctypes.byref(i)))
            _check(_L.sensim_mcap_write_camera_info(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                    _i64(stamp_ns, "stamp_ns"), _cstr(frame_id, "frame_id"),
                                                    ctypes.byref(i)))

    def write_imu(self, topic, log_ns, frame_id, sample, orientation_var=-1.0, gyro_var=0.0, accel_var=0.0):
        """An IMU sample (Nav.sample()'s dict) as sensor_msgs/Imu; gyro_var and accel_var are one
        variance for all axes or three (x, y, z)."""
        s = _nav_sample(sample)
        g, a = _axes3(gyro_var, "gyro_var"), _axes3(accel_var, "accel_var")
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_imu_axes(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                 _cstr(frame_id, "frame_id"), ctypes.byref(s),
                                                 _f64(orientation_var, "orientation_var"), g, a))

    def write_navsatfix(self, topic, log_ns, frame_id, sample, horizontal_var_m2=0.0, vertical_var_m2=0.0,
                        enu_var_m2=None):
        """A GNSS sample (Nav.sample()'s dict) as sensor_msgs/NavSatFix; ``enu_var_m2`` (East, North,
        Up variances, gnss_enu_variance()) replaces the horizontal/vertical pair when given."""
        s = _nav_sample(sample)
        enu = _axes3(enu_var_m2, "enu_var_m2") if enu_var_m2 is not None else _lib.d3(
            _f64(horizontal_var_m2, "horizontal_var_m2"), _f64(horizontal_var_m2, "horizontal_var_m2"),
            _f64(vertical_var_m2, "vertical_var_m2"))
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_navsatfix_enu(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                      _cstr(frame_id, "frame_id"), ctypes.byref(s), enu))

    def write_odometry(self, topic, log_ns, stamp_ns, frame_id, child_frame_id, pose_matrix, linear=(0, 0, 0),
                       angular=(0, 0, 0)):
        """nav_msgs/Odometry: a 4x4 pose of child in frame, twist in the child frame (m/s, rad/s)."""
        lin, ang = _lib.d3(*[_f64(v, "linear") for v in linear]), _lib.d3(*[_f64(v, "angular") for v in angular])
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_odometry(h, self._topic(topic), _i64(log_ns, "log_ns"),
                                                 _i64(stamp_ns, "stamp_ns"), _cstr(frame_id, "frame_id"),
                                                 _cstr(child_frame_id, "child_frame_id"), _mat16(pose_matrix), lin,
                                                 ang))

    def write_transforms(self, topic, log_ns, transforms):
        """tf2_msgs/TFMessage from [(stamp_ns, parent, child, 4x4 pose of child in parent), ...]."""
        items = list(transforms)
        arr = (_lib.RosTransform * max(1, len(items)))()
        keep = []
        for i, (stamp, parent, child, m) in enumerate(items):
            arr[i].stamp_ns = _i64(stamp, "stamp_ns")
            keep += [_cstr(parent, "parent"), _cstr(child, "child")]
            arr[i].parent_frame, arr[i].child_frame = keep[-2], keep[-1]
            arr[i].pose = _mat16(m)
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_transforms(h, self._topic(topic), _i64(log_ns, "log_ns"), arr, len(items)))

    def write_clock(self, topic, log_ns, clock_ns):
        """rosgraph_msgs/Clock."""
        with _using(self) as (h,):
            _check(_L.sensim_mcap_write_clock(h, self._topic(topic), _i64(log_ns, "log_ns"), _i64(clock_ns, "clock_ns")))

    @property
    def stats(self):
        s = _lib.McapStats()
        with _using(self) as (h,):
            _check(_L.sensim_mcap_get_stats(h, ctypes.byref(s)))
        return {k: getattr(s, k) for k, _ in _lib.McapStats._fields_ if k != "reserved"}
