"""Rig: one world clock for many sensors, the platform's motion, and the consumers of its rings."""
import ctypes
import math

from . import _lib

from ._core import (Context, Error, ImageRing, InvalidArgument, OutOfRange, Ring, Scene, _Handle, _L, _Sample,
                    _check, _closed, _f64, _from16, _i64, _keys, _mat16, _np, _u32, _u64, _uint, _using, _want)
from ._sensors import (Camera, Lidar, Nav, NavRing, Radar)
from ._sinks import (CsvSink, FrameSink, ImageSink, McapSink)


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
        self._r = _lib.RigStepResult()  # advance()'s result, reused: no allocation a tick
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

    def push_pose(self, t_ns, pose, jump=False):
        """Push the platform's pose (4x4, body to world, metres) at ``t_ns``
        into the rig's history; steps without ``pose``/``keys`` then read it
        through the rig's one motion model (see sensim_rig_push_pose).
        ``jump=True``: the platform jumps to ``pose`` at ``t_ns`` (a reset, a
        teleport): a new motion segment, nothing interpolated across it,
        derivatives restarted; ``t_ns`` may equal the last pushed time (see
        sensim_rig_jump_to_pose)."""
        if pose is None:  # _mat16(None) is the identity: a host's missing pose must not become one
            raise InvalidArgument(1, "push_pose: pose is None (a 4x4 matrix, body to world)")
        if not isinstance(jump, bool):
            raise InvalidArgument(1, "push_pose: jump must be True or False, not %s" % type(jump).__name__)
        m = _mat16(pose)
        fn = _L.sensim_rig_jump_to_pose if jump else _L.sensim_rig_push_pose
        with _using(self) as hs:
            _check(fn(hs[0], _i64(t_ns, "t_ns"), ctypes.byref(m)))
        self._pushed = True

    def push_state(self, t_ns, pose, velocity=None, acceleration=None, angular_velocity_deg=None,
                   angular_acceleration_deg=None, angular_velocity=None, angular_acceleration=None, jump=False):
        """Push a platform state at ``t_ns``: ``pose`` (4x4) and whichever
        derivatives the host knows, used exactly: ``velocity`` and
        ``acceleration`` (world frame, m/s and m/s^2, gravity not included),
        body rates ``angular_velocity_deg`` (deg/s) or ``angular_velocity``
        (rad/s), and angular accelerations likewise. Those left out come
        from the pushed poses. ``jump=True``: a jump to this state (as
        ``push_pose``; sensim_rig_jump_to_state)."""
        if pose is None:
            raise InvalidArgument(1, "push_state: pose is None (a 4x4 matrix, body to world)")
        if not isinstance(jump, bool):
            raise InvalidArgument(1, "push_state: jump must be True or False, not %s" % type(jump).__name__)
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
            _check((_L.sensim_rig_jump_to_state if jump else _L.sensim_rig_push_state)(
                hs[0], _i64(t_ns, "t_ns"), ctypes.byref(st)))
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
        identity pose) the keys as given. Returns a dict: world_step,
        t_begin_ns, t_end_ns, frames_completed, sensors_refused and
        rays_traced (the rays the step's lidars traced)."""
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
                    frames_completed=r.frames_completed, sensors_refused=r.sensors_refused,
                    rays_traced=r.rays_traced)

    def advance(self, scene, t_ns, pose, jump=False):
        """The host fast path: push ``pose`` (4x4, body to world) at ``t_ns`` and step up to it in one
        call (sensim_rig_advance): the same results as ``push_pose`` then ``step``, bit for bit, at a
        fraction of the Python cost a tick (a numpy float64 4x4 array is passed without conversion).
        ``jump=True``: the pose is a jump. Returns the number of frames the step completed (0 when no
        sensor's frame was due); ``last_step`` holds the step's full result."""
        if pose is None:
            raise InvalidArgument(1, "advance: pose is None (a 4x4 matrix, body to world)")
        if jump is not True and jump is not False:
            raise InvalidArgument(1, "advance: jump must be True or False, not %s" % type(jump).__name__)
        if type(t_ns) is not int:
            t_ns = _i64(t_ns, "t_ns")
        elif not -(1 << 63) <= t_ns < (1 << 63):
            raise OutOfRange(1, "advance: t_ns must fit int64")
        if _np is not None and type(pose) is _np.ndarray and pose.shape == (4, 4):
            col = _np.ascontiguousarray(pose.T, dtype=_np.float64)  # column-major double[16]
            ptr = col.ctypes.data
        else:
            col = _mat16(pose)
            ptr = ctypes.addressof(col)
        if type(scene) is not Scene:
            _want(scene, Scene, "scene")
        r = self._r
        held = [self, scene]
        held += [x for x in self._members if isinstance(x, _HELD)]
        n = 0
        try:  # each object held for the call (close() on another thread waits), without a context manager
            for o in held:
                with o._cv:
                    if not o._h:
                        raise _closed(o._what)
                    o._calls += 1
                n += 1
            self._scene, self._errors = scene, []
            st = _L.sensim_rig_advance(self._h, scene._h, t_ns, ptr, 1 if jump else 0, ctypes.byref(r))
        finally:
            self._scene = None
            for o in held[:n]:
                with o._cv:
                    o._calls -= 1
                    o._cv.notify_all()
        if self._errors:
            raise self._errors[0]
        if st:
            _check(st)
        self._pushed = True
        return r.frames_completed

    @property
    def last_step(self):
        """The result of the last ``advance`` (dict as ``step`` returns)."""
        r = self._r
        return dict(world_step=r.world_step, t_begin_ns=r.t_begin_ns, t_end_ns=r.t_end_ns,
                    frames_completed=r.frames_completed, sensors_refused=r.sensors_refused,
                    rays_traced=r.rays_traced)
