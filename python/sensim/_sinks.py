"""Sinks a rig's consumers write through (sensim/sink.h): frame files, images, CSV streams, MCAP."""
import ctypes

from . import _lib

from ._core import (FRAMES, InvalidArgument, _Handle, _L, _check, _text_arg, _u64, _uint, _using, _want)
from ._sensors import (Camera, Lidar, NAV_KINDS)
from ._files import (McapWriter, POINT_FORMATS, _axes3)


SINK_IMAGES = {"range": 1, "intensity": 2, "label": 4, "preview": 8, "bev": 16}


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
    per-axis variances. Give a mechanical lidar's ``lidar`` and the clouds' ``ring`` counts beams by
    elevation (0 the lowest), as velodyne_pointcloud does; ``channel`` stays the laser id. Attach it with :meth:`Rig.attach`; the writer stays open while it is."""
    _destroy = "sensim_mcap_sink_destroy"
    _what = "McapSink"
    _consume = "sensim_mcap_sink_consume"

    def __init__(self, writer, name, topic_prefix="", camera=None, nav_kind="imu", gyro_var=0.0, accel_var=0.0,
                 enu_var_m2=0.0, lidar=None):
        super().__init__()
        _want(writer, McapWriter, "writer")
        if camera is not None:
            _want(camera, Camera, "camera")
        if lidar is not None:
            _want(lidar, Lidar, "lidar")
        if nav_kind not in NAV_KINDS:
            raise InvalidArgument(1, "nav_kind must be imu, gnss or odometry")
        d = _lib.McapSinkDesc()
        _L.sensim_mcap_sink_desc_init(ctypes.byref(d))
        self._strings = (_text_arg(name, "name"), _text_arg(topic_prefix, "topic_prefix"))
        d.name, d.topic_prefix = self._strings
        d.nav_kind = NAV_KINDS[nav_kind]
        d.gyro_var, d.accel_var, d.enu_var_m2 = (_axes3(gyro_var, "gyro_var"), _axes3(accel_var, "accel_var"),
                                                 _axes3(enu_var_m2, "enu_var_m2"))
        self._writer, self._camera, self._lidar = writer, camera, lidar  # borrowed by the C sink
        d.writer = writer.handle
        d.camera = camera.handle if camera is not None else None
        d.lidar = lidar.handle if lidar is not None else None
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
    :meth:`Rig.attach`. outputs: names from CAMERA_OUTPUTS (empty: all the ring holds).
    threads: encoder threads (0: each capture written inside the step; 1..64: captures queued,
    at most ``queue_bytes`` of them (0: 64 MiB), and written in parallel while the rig steps on;
    the same bytes either way); :meth:`flush` waits for them, :meth:`stats` says what they cost."""
    _destroy = "sensim_image_sink_destroy"
    _what = "ImageSink"
    _consume = "sensim_image_sink_consume"

    def __init__(self, directory, camera_name, camera, frame="native", outputs=(), threads=0, queue_bytes=0):
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
        d.threads, d.queue_bytes = _uint(threads, "threads", 64), _u64(queue_bytes, "queue_bytes")
        h = ctypes.c_void_p()
        _check(_L.sensim_image_sink_create(ctypes.byref(d), ctypes.byref(h)))
        self._h = h.value

    def flush(self):
        """Wait until every capture written so far is on disk; raises the first failure of an
        encoder thread (its message names the file)."""
        with _using(self) as (h,):
            _check(_L.sensim_image_sink_flush(h))

    def stats(self):
        """What the sink has done: captures, files, bytes, encode_cpu_s, write_s, wait_s, waits,
        queue_peak_bytes, queued_bytes, threads (a dict)."""
        st = _lib.ImageSinkStats()
        with _using(self) as (h,):
            _check(_L.sensim_image_sink_get_stats(h, ctypes.byref(st)))
        return {k: getattr(st, k) for k, _t in st._fields_ if not k.startswith("reserved")}


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
