"""Scoring lidar placements from Python: what ``sensim placement`` computes,
as numpy arrays (see ``sensim placement --help`` and <sensim/placement.h>).

    import sensim, sensim.placement as sp
    ctx = sensim.Context(); scene = sensim.Scene(ctx); scene.load("street")
    boxes = [(5, -3, 0, 9.5, -1, 1.5)]
    sp.add_objects(scene, boxes); scene.commit()
    table = sp.evaluate(ctx, scene, "vlp16", [(0, 0, 3, 0, 0, 0), (0, 5, 6, 0, 0, 0)],
                        roi=(-20, -20, 20, 20), objects=boxes)
    table["candidate"][0]   # the best candidate's row in the input

The measures and the score are those of the CLI, computed by the same C
functions in the same order: ``evaluate`` returns the rows of its
ranking.csv (best first). Needs numpy.
"""
import ctypes
import math

from . import _lib, _L, _check, _f64, _u32, _using, _mat16, _want, InvalidArgument, OutOfRange, _need_numpy, Lidar, Ring, Scene, pose_from_frame

try:
    import numpy as _np
except ImportError:  # pragma: no cover
    _np = None

COLUMNS = ("candidate", "x", "y", "z", "roll", "pitch", "yaw", "density", "cv", "coverage",
           "visible_objects", "score", "nuc", "roi_points", "occluded_objects", "out_of_view_objects",
           "information_gain", "information_bits", "occluded_by_static", "occluded_by_objects")
OBJECT_ID_BASE = 1000000
_BOX_TRIANGLES = (0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4, 2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6,
                  1, 3, 5, 3, 7, 5)


def _rows6(rows):
    """An N x 6 float64 array of ``rows``, or None when they are not rows of 6 numbers."""
    try:
        arr = _np.asarray(rows if rows is not None else [], dtype=_np.float64)
        return _np.ascontiguousarray(arr.reshape(-1, 6)) if arr.size % 6 == 0 and arr.ndim <= 2 else None
    except (TypeError, ValueError):
        return None


def _boxes(objects):
    arr = _rows6(objects)
    if arr is None:
        raise InvalidArgument(1, "objects must be rows of 6 numbers: xmin, ymin, zmin, xmax, ymax, zmax")
    return arr


def add_objects(scene, objects, tag=14):
    """Add object boxes (xmin, ymin, zmin, xmax, ymax, zmax; world metres) to ``scene``
    as actors OBJECT_ID_BASE + i (tag Car), as ``sensim placement --objects`` does, so
    they hide each other. Call before ``scene.commit()``."""
    _want(scene, Scene, "scene")
    for i, q in enumerate(_boxes(objects)):
        v = [[q[3] if c & 1 else q[0], q[4] if c & 2 else q[1], q[5] if c & 4 else q[2]] for c in range(8)]
        mesh = scene.add_mesh(v, [_BOX_TRIANGLES[k:k + 3] for k in range(0, 36, 3)], tag=tag, prototype=True)
        scene.add_actor(mesh, OBJECT_ID_BASE + i, None)


def roi_desc(roi, roi_z=(-1e9, 1e9), cell_m=1.0, min_points=1, seed=0):
    """The C ROI description (sensim_roi_desc) of a rectangle xmin, ymin, xmax, ymax."""
    d = _lib.RoiDesc()
    _L.sensim_roi_desc_init(ctypes.byref(d))
    vals = [_f64(v, "roi") for v in roi]
    if len(vals) != 4:
        raise InvalidArgument(1, "roi takes xmin, ymin, xmax, ymax")
    d.xmin, d.ymin, d.xmax, d.ymax = vals
    d.zmin, d.zmax = (_f64(v, "roi_z") for v in roi_z)
    d.cell_m = _f64(cell_m, "cell_m")
    d.min_points = _u32(min_points, "min_points")
    d.seed = _u32(seed, "seed")
    nx, ny = ctypes.c_uint32(), ctypes.c_uint32()
    _check(_L.sensim_roi_grid_size(ctypes.byref(d), ctypes.byref(nx), ctypes.byref(ny)))
    return d, nx.value, ny.value


def _weights(weights):
    """(D, U, C, V[, I]) as the CLI's --weights: 4 or 5 finite numbers >= 0."""
    try:
        w = tuple(weights)
    except TypeError:
        raise InvalidArgument(1, "weights = %r: a sequence (density, uniformity, coverage, visibility"
                              "[, information])" % (weights,)) from None
    if len(w) not in (4, 5):
        raise InvalidArgument(1, "weights has %d entries: density, uniformity, coverage, visibility"
                              "[, information]" % len(w))
    for k, v in enumerate(w):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (0 <= v < math.inf):
            raise OutOfRange(5, "weights[%d] = %r: a finite number >= 0" % (k, v))
    return w


def score(density, cv, coverage, visible, objects, info_share, weights=(1.0, 1.0, 1.0, 1.0, 1.0)):
    """The CLI's score: w_d log10(1 + density) + w_u / (1 + cv) + w_c coverage + w_v visible / objects
    + w_i information gain share."""
    w = tuple(weights) + ((1.0,) if len(weights) == 4 else ())
    s = w[0] * math.log10(1 + density) + w[1] / (1 + cv) + w[2] * coverage
    if objects:
        s += w[3] * visible / objects
    return s + w[4] * info_share


def occupancy_prior(desc_nx_ny, rows):
    """Cell priors from rows (x, y, p), as --occupancy: the cell holding (x, y) gets p (last wins),
    cells not listed 0; None gives None (0.5 everywhere in C)."""
    if rows is None:
        return None
    try:
        rows = [tuple(float(v) for v in row) for row in rows]
    except (TypeError, ValueError):
        rows = None
    if rows is None or any(len(row) != 3 for row in rows):
        raise InvalidArgument(1, "occupancy must be rows (x, y, p) of three numbers each (metres, metres, "
                                 "probability), as --occupancy's, or None")
    d, nx, ny = desc_nx_ny
    prior = _np.zeros(nx * ny, _np.float32)
    for x, y, p in rows:
        if not 0 <= p <= 1:
            raise InvalidArgument(1, "occupancy p must be in [0, 1], not %r" % p)
        if d.xmin <= x < d.xmax and d.ymin <= y < d.ymax:
            i, j = min(int((x - d.xmin) / d.cell_m), nx - 1), min(int((y - d.ymin) / d.cell_m), ny - 1)
            prior[j * nx + i] = p
    return prior


def evaluate(context, scene, lidar, candidates, roi, roi_z=(-1e9, 1e9), cell_m=1.0, min_points=1,
             duration_s=0.1, objects=None, weights=(1.0, 1.0, 1.0, 1.0, 1.0), overrides=None, seed=0, grids=False,
             occupancy=None):
    """Rank ``candidates`` (rows x, y, z, roll, pitch, yaw: metres, degrees) of the lidar
    preset or file ``lidar`` on the committed ``scene``; ``occupancy``: rows (x, y, p) as
    --occupancy. Returns {column: numpy array}
    with COLUMNS, best first (ties: the lower candidate index); with ``grids=True`` also
    "grids": the ROI cell counts per row (rows of the ROI from ymin, cells from xmin).
    "cv" is the coefficient of variation of the cell counts (population std / mean: 0 = even,
    lower is better; the score adds w_u / (1 + cv)); "uniformity" is the same array under the
    column's pre-0.2 name. ``weights``: 4 or 5 finite numbers >= 0; ``duration_s`` in (0, 3600]."""
    if _np is None:
        raise _need_numpy("sensim.placement")
    weights = _weights(weights)
    if isinstance(duration_s, bool) or not isinstance(duration_s, (int, float)) \
            or not (0 < duration_s <= 3600):
        raise OutOfRange(5, "placement.evaluate: duration_s = %r: seconds in (0, 3600]" % (duration_s,))
    d, nx, ny = roi_desc(roi, roi_z, cell_m, min_points, seed)
    prior = occupancy_prior((d, nx, ny), occupancy)
    boxes = _boxes(objects)
    nb = len(boxes)
    ids = _np.arange(OBJECT_ID_BASE, OBJECT_ID_BASE + max(nb, 1), dtype=_np.uint32)  # as add_objects numbers them
    cands = _rows6(candidates)
    if cands is None or not len(cands):
        raise InvalidArgument(1, "candidates must be rows of 6 numbers: x, y, z, roll, pitch, yaw (m, deg)")
    sets = dict(overrides or {})
    sets["points_frame"] = "world"
    rows, kept = [], []
    for idx, c in enumerate(cands):
        lid = Lidar(context, lidar, sets)
        try:
            period = lid.info["frame_period_ns"]
            frames = max(1, math.ceil(duration_s * 1e9 / period - 1e-9))
            pose = pose_from_frame("native", c[:3], c[3:])
            ring = Ring.for_lidar(lid, frames=2)
            cells = _np.zeros(nx * ny, _np.uint32)
            opts = _np.zeros(max(nb, 1), _np.uint32)
            oshots = _np.zeros(max(nb, 1), _np.uint32)
            bst = _np.zeros(max(nb, 1), _np.uint32)
            bob = _np.zeros(max(nb, 1), _np.uint32)
            for f in range(frames):
                lid.scan(scene, f * period, (f + 1) * period, ring, pose=pose)
                for frame in ring.frames():
                    pts = _np.ascontiguousarray(frame.points)
                    _check(_L.sensim_roi_accumulate(ctypes.byref(d), pts.ctypes.data, len(pts), cells.ctypes.data,
                                                    None))
                    _check(_L.sensim_boxes_count(boxes.ctypes.data, nb, pts.ctypes.data, len(pts), opts.ctypes.data))
            with _using(lid, scene) as (h, sh):
                _check(_L.sensim_lidar_box_shots(h, 0, frames * period, _mat16(pose), boxes.ctypes.data, nb,
                                                 oshots.ctypes.data, sh, ids.ctypes.data, bst.ctypes.data,
                                                 bob.ctypes.data))
        finally:
            lid.close()
        m = _lib.RoiMetrics()
        _check(_L.sensim_roi_evaluate(ctypes.byref(d), cells.ctypes.data, ctypes.byref(m)))
        vis = int(_np.sum(opts[:nb] >= min_points))
        occluded = (opts[:nb] < min_points) & (oshots[:nb] >= min_points)
        occ = int(_np.sum(occluded))
        by_objects = int(_np.sum(occluded & (bob[:nb] > bst[:nb])))
        bits, share = ctypes.c_double(), ctypes.c_double()
        _check(_L.sensim_roi_information_gain(ctypes.byref(d), cells.ctypes.data,
                                              None if prior is None else prior.ctypes.data, ctypes.byref(bits),
                                              ctypes.byref(share)))
        rows.append((idx, *c, m.density_per_m2, m.cell_cv, m.coverage, vis,
                     score(m.density_per_m2, m.cell_cv, m.coverage, vis, nb, share.value, weights), m.nuc, m.points,
                     occ, nb - vis - occ, share.value, bits.value, occ - by_objects, by_objects))
        kept.append(cells.reshape(ny, nx))
    order = sorted(range(len(rows)), key=lambda i: (-rows[i][11], rows[i][0]))
    out = {}
    for k, name in enumerate(COLUMNS):
        vals = [rows[i][k] for i in order]
        ints = name in ("candidate", "visible_objects", "roi_points", "occluded_objects", "out_of_view_objects",
                        "occluded_by_static", "occluded_by_objects")
        out[name] = _np.array(vals, dtype=_np.int64 if ints else _np.float64)
    out["uniformity"] = out["cv"]  # the column's name before 0.2 (it was always the cv); kept for old scripts
    if grids:
        out["grids"] = [kept[i] for i in order]
    return out

