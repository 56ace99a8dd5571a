"""sensim.carla's measurements: CARLA 0.9.15's LidarMeasurement, Image, RadarMeasurement, IMU and GNSS
data classes, as its sensors' listen() callbacks receive them."""
import math

from . import tag_color, tag_name, write_png

from ._carla_types import ColorConverter, Location, _ID0, _native, np


class SensorData:
    def __init__(self, frame, t_s, transform):
        self.frame, self.timestamp, self.transform = frame, t_s, transform


class LidarDetection:
    def __init__(self, x, y, z, intensity):
        self.point, self.intensity = Location(x, y, z), float(intensity)

    def __repr__(self):
        return "LidarDetection(%r, intensity=%g)" % (self.point, self.intensity)


class SemanticLidarDetection:
    def __init__(self, x, y, z, cos, idx, tag):
        self.point, self.cos_inc_angle, self.object_idx, self.object_tag = Location(x, y, z), float(cos), int(idx), \
            int(tag)


class LidarMeasurement(SensorData):
    """The shots of one tick in CARLA's layout: ``raw_data`` float32 x, y, z, intensity (CARLA's sensor
    frame: y right) grouped by channel; ``channels``, ``get_point_count(ch)``, ``horizontal_angle``
    (radians, the head's angle at the tick's end)."""
    _dtype = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("intensity", "<f4")])

    def __init__(self, frame, t_s, transform, points, channels, horizontal_angle):
        super().__init__(frame, t_s, transform)
        self.channels, self.horizontal_angle = channels, horizontal_angle
        order = np.argsort(points["channel"], kind="stable")  # CARLA groups points by channel
        p = points[order]
        self._counts = np.bincount(p["channel"].astype(np.int64), minlength=channels)[:channels]
        self._records = self._make(p)
        self.raw_data = self._records.tobytes()

    def _make(self, p):
        r = np.empty(len(p), self._dtype)
        r["x"], r["y"], r["z"], r["intensity"] = p["x"], -p["y"], p["z"], p["intensity"]
        return r

    def get_point_count(self, channel):
        return int(self._counts[channel]) if 0 <= channel < self.channels else 0

    def __len__(self):
        return len(self._records)

    def __getitem__(self, i):
        r = self._records[i]
        return LidarDetection(r["x"], r["y"], r["z"], r["intensity"])

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def save_to_disk(self, path):
        """A PLY of x, y, z, I (CARLA's frame), as CARLA's save_to_disk writes (ascii there, binary here); the
        folders of @p path are made as CARLA makes them."""
        _folders(path)
        _write_records_ply(path, self._records)


class SemanticLidarMeasurement(LidarMeasurement):
    _dtype = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("cos_inc_angle", "<f4"), ("object_idx", "<u4"),
                       ("object_tag", "<u4")])

    def _make(self, p):
        r = np.empty(len(p), self._dtype)
        r["x"], r["y"], r["z"] = p["x"], -p["y"], p["z"]
        oid = p["object_id"].astype(np.int64)  # CARLA's actor id; 0 for the static world and the street's props
        r["cos_inc_angle"], r["object_tag"] = p["intensity"], p["tag"]
        r["object_idx"] = np.where(oid >= _ID0, oid - _ID0, 0)
        return r

    def __getitem__(self, i):
        r = self._records[i]
        return SemanticLidarDetection(r["x"], r["y"], r["z"], r["cos_inc_angle"], r["object_idx"], r["object_tag"])


def _folders(path):
    """Make the folders of @p path (CARLA's FileSystem::ValidateFilePath does)."""
    import os
    d = os.path.dirname(os.fspath(path))
    if d:
        os.makedirs(d, exist_ok=True)


def _write_records_ply(path, records):
    names = {"<f4": "float", "<u4": "uint"}
    head = "ply\nformat binary_little_endian 1.0\nelement vertex %d\n" % len(records)
    head += "".join("property %s %s\n" % (names[records.dtype[n].str], n) for n in records.dtype.names)
    with open(path, "wb") as f:
        f.write((head + "end_header\n").encode())
        f.write(records.tobytes())


class Image(SensorData):
    """A camera image: ``raw_data`` BGRA bytes (CARLA's layout), ``width``, ``height``, ``fov``.
    Depth cameras encode metres as CARLA does: (R + 256 G + 65536 B) / (2^24 - 1) x 1000, the far
    plane 1000 m (sky and anything farther read 1000). Semantic: the tag in R."""

    def __init__(self, frame, t_s, transform, bgra, fov, kind):
        super().__init__(frame, t_s, transform)
        self._bgra, self.fov, self._kind = bgra, fov, kind
        self.height, self.width = bgra.shape[0], bgra.shape[1]
        self.raw_data = bgra.tobytes()

    def _converted(self, cc):
        b = self._bgra
        if cc in (None, ColorConverter.Raw):
            return b
        out = b.copy()
        if cc in (ColorConverter.Depth, ColorConverter.LogarithmicDepth):
            if self._kind != "depth":
                raise RuntimeError("Image.convert: %s converts depth images" % ("Depth" if cc == 1 else
                                                                               "LogarithmicDepth"))
            n = (b[..., 2].astype(np.float64) + 256.0 * b[..., 1] + 65536.0 * b[..., 0]) / (256.0 ** 3 - 1)
            if cc == ColorConverter.LogarithmicDepth:  # CARLA's: 1 + log(n) / 5.70378, clamped to [0.005, 1]
                n = np.clip(1.0 + np.log(np.maximum(n, 1e-12)) / 5.70378, 0.005, 1.0)
            g = np.floor(n * 255.0 + 0.5).astype(np.uint8)
            out[..., 0] = out[..., 1] = out[..., 2] = g
        elif cc == ColorConverter.CityScapesPalette:
            if self._kind != "semantic":
                raise RuntimeError("Image.convert: CityScapesPalette converts semantic images")
            pal = np.array([tag_color(t) for t in range(256)], dtype=np.uint8)
            rgb = pal[b[..., 2]]
            out[..., 0], out[..., 1], out[..., 2] = rgb[..., 2], rgb[..., 1], rgb[..., 0]
        else:
            raise ValueError("unknown ColorConverter %r" % (cc,))
        return out

    def convert(self, color_converter):
        self._bgra = self._converted(color_converter)
        self.raw_data = self._bgra.tobytes()

    def save_to_disk(self, path, color_converter=ColorConverter.Raw):
        """A PNG (CARLA's default format) in @p color_converter; the folders of @p path are made as CARLA makes
        them (tutorial.py saves to _out/ without making it)."""
        _folders(path)
        b = self._converted(color_converter)
        write_png(path, np.ascontiguousarray(b[..., [2, 1, 0]]))  # RGB (alpha is always 255)


class RadarDetection:
    def __init__(self, velocity, azimuth, altitude, depth):
        self.velocity, self.azimuth, self.altitude, self.depth = float(velocity), float(azimuth), float(altitude), \
            float(depth)

    def __repr__(self):
        return "RadarDetection(velocity=%g, azimuth=%g, altitude=%g, depth=%g)" % (
            self.velocity, self.azimuth, self.altitude, self.depth)


class RadarMeasurement(SensorData):
    """CARLA's radar sample: ``raw_data`` float32 [velocity, azimuth, altitude, depth] per detection;
    azimuth positive to the right (CARLA's frame), velocity the range rate (approaching < 0)."""
    _dtype = np.dtype([("velocity", "<f4"), ("azimuth", "<f4"), ("altitude", "<f4"), ("depth", "<f4")])

    def __init__(self, frame, t_s, transform, det):
        super().__init__(frame, t_s, transform)
        r = np.empty(len(det), self._dtype)
        r["velocity"], r["azimuth"], r["altitude"], r["depth"] = (det["velocity"], -det["azimuth"],
                                                                  det["altitude"], det["depth"])
        self._records, self.raw_data = r, r.tobytes()

    def get_detection_count(self):
        return len(self._records)

    def __len__(self):
        return len(self._records)

    def __getitem__(self, i):
        r = self._records[i]
        return RadarDetection(r["velocity"], r["azimuth"], r["altitude"], r["depth"])

    def __iter__(self):
        return (self[i] for i in range(len(self)))


class IMUMeasurement(SensorData):
    def __init__(self, frame, t_s, transform, accelerometer, gyroscope, compass):
        super().__init__(frame, t_s, transform)
        self.accelerometer, self.gyroscope, self.compass = accelerometer, gyroscope, compass


class GnssMeasurement(SensorData):
    def __init__(self, frame, t_s, transform, latitude, longitude, altitude):
        super().__init__(frame, t_s, transform)
        self.latitude, self.longitude, self.altitude = latitude, longitude, altitude


class ObstacleDetectionEvent(SensorData):
    """CARLA's obstacle event: the sensor (actor), what it met (other_actor) and the distance (m) the
    swept sphere's centre travelled from the sensor before touching it."""
    def __init__(self, frame, t_s, transform, actor, other_actor, distance):
        super().__init__(frame, t_s, transform)
        self.actor, self.other_actor, self.distance = actor, other_actor, distance

    def __repr__(self):
        return "ObstacleDetectionEvent(frame=%d, other_actor=%s, distance=%.3f)" % (
            self.frame, getattr(self.other_actor, "type_id", None), self.distance)


class _WorldObject:
    """What an obstacle sensor meets that no script spawned (the scene's static world or its own actors):
    id (the scene's object id, 0 for the static world), type_id "static.<tag name>", semantic_tags."""

    def __init__(self, oid, tag):
        self.id, self.semantic_tags, self.is_alive = oid, [tag], True
        self.type_id = "static." + tag_name(tag).lower().replace(" ", "_")
        self.parent, self.attributes = None, {}

    def __repr__(self):
        return "Actor(id=%d, type=%s)" % (self.id, self.type_id)


def obstacle_event(world, s, frame, t_s, tr, t_ns):
    """CARLA's sweep of a sphere (hit_radius) from the sensor along its x for distance metres, as a bundle of
    parallel rays across the sphere's disc: a ray at lateral offset rho meets a surface at t, the sphere's
    centre then stood t - sqrt(r^2 - rho^2) from the start. Exact for surfaces facing the sweep; a grazing
    edge between the rays (at most 0.13 r from one) can be missed or met late."""
    dist, r, dynamic_only = s._obstacle
    P = _native(tr)
    o, fwd, ay, az = P[:3, 3], P[:3, 0], P[:3, 1], P[:3, 2]
    offs = [(0.0, 0.0, r)]
    if r > 0:
        for rho, n in ((0.5 * r, 8), (0.87 * r, 16)):
            offs += [(rho * math.cos(2 * math.pi * i / n), rho * math.sin(2 * math.pi * i / n),
                      math.sqrt(r * r - rho * rho)) for i in range(n)]
    origins = np.array([o + dy * ay + dz * az for dy, dz, _ in offs])
    dirs = np.repeat(fwd[None, :], len(offs), axis=0)
    hits = world._scene.intersect(origins, dirs, tfar=np.array([dist + c for _, _, c in offs]), time_ns=t_ns)
    best, who = None, None
    for (_, _, cap), h in zip(offs, hits):
        if not h["hit"] or (dynamic_only and int(h["object_id"]) < _ID0):
            continue
        d = max(0.0, float(h["distance"]) - cap)
        if d <= dist and (best is None or d < best):
            best, who = d, h
    if best is None:
        return None
    oid = int(who["object_id"])
    other = world._actors.get(oid - _ID0) if oid >= _ID0 else _WorldObject(oid, int(who["tag"]))
    return ObstacleDetectionEvent(frame, t_s, tr, s, other, best)
