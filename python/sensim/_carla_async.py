"""sensim.carla's asynchronous mode and its locking: below the facade (never imports sensim.carla).

CARLA's server advances on its own unless ``synchronous_mode`` is on; so does a sensim.carla world. The
world's clock (RealTimeClock) is a thread that ticks the world once per ``fixed_delta_seconds`` of wall
time (0.05 s when None: a sensim world's ticks always have a fixed delta, so its IMU, GNSS and radar keep
their sample grid; CARLA's variable delta follows the server's frame rate instead). Frame k comes k
deltas of wall time after the clock started; when a tick takes longer than a delta the next one follows
at once and the world's time falls behind the wall clock (never a burst of catch-up ticks). The clock
starts with the first actor spawned, ``on_tick`` or ``wait_for_tick`` in asynchronous mode (a world with
nothing in it has nothing a script could see move; its frame counter starts there, where CARLA's is
whatever the server had reached), pauses while the world is synchronous, and stops at exit or when the
client loads another world. It does not wait for callbacks: a callback that falls behind has its
measurements queued (up to 64, then counted drops, see sensim.carla._carla_delivery).

Every public call of World and of the actors runs holding the world's lock (an RLock), so a call from
the script, a callback or another thread sees the world between two ticks, never in the middle of one.
``World.tick`` takes the lock only to advance and waits for callbacks outside it, so a callback may
call into the world while tick() waits for it.
"""
import atexit
import functools
import inspect
import sys
import threading
import time
import traceback
import weakref


def _locked(fn):
    @functools.wraps(fn)
    def call(self, *a, **k):
        with self._lock:
            return fn(self, *a, **k)
    return call


def serialized(cls):
    """Class decorator: every public method defined in @p cls runs holding ``self._lock`` (methods marked
    with @unlocked take it themselves)."""
    for name, fn in list(vars(cls).items()):
        if not name.startswith("_") and inspect.isfunction(fn) and not getattr(fn, "_unlocked", False):
            setattr(cls, name, _locked(fn))
    return cls


def unlocked(fn):
    fn._unlocked = True
    return fn


_CLOCKS = weakref.WeakSet()


@atexit.register
def _stop_all():  # before the interpreter tears down what a tick uses
    for c in list(_CLOCKS):
        c.stop()


class RealTimeClock:
    """The world's clock in asynchronous mode. @p world provides ``_lock``, ``_settings``, ``_dt_ns``,
    ``_advance()`` (one tick, under the lock, returning (frame, deliveries)) and ``_ticked`` (a Condition
    on the lock, notified after every tick)."""

    def __init__(self, world):
        self._world = world
        self._thread = None
        self._started = False
        self._stop = False
        self._wake = threading.Event()
        self.error = None  # what stopped the clock: a tick that raised
        _CLOCKS.add(self)

    def start(self):
        """Called under the world's lock: from now on the world runs whenever it is asynchronous."""
        self._started = True
        self.settings_changed()

    def settings_changed(self):
        """Called under the world's lock after its settings changed."""
        w = self._world
        if self._started and not self._stop and not w._settings.synchronous_mode and self.error is None \
                and self._thread is None:
            self._thread = threading.Thread(target=self._run, name="sensim.carla world clock", daemon=True)
            self._thread.start()
        self._wake.set()

    def running(self):
        return self._thread is not None

    def stop(self):
        """Stop for good (the thread is joined unless this is the clock's own thread)."""
        self._stop = True
        self._wake.set()
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(10.0)

    def _run(self):
        w = self._world
        nxt = time.monotonic()
        while True:
            with w._lock:
                if self._stop or w._settings.synchronous_mode:
                    self._thread = None
                    return
                dt = w._dt_ns * 1e-9
            nxt += dt
            now = time.monotonic()
            if nxt < now - dt:  # behind: the next tick now, the world's time lagging (no catch-up burst)
                nxt = now
            while not self._stop and not w._settings.synchronous_mode:  # a settings change wakes it early
                left = nxt - time.monotonic()
                if left <= 0:
                    break
                self._wake.wait(left)
                self._wake.clear()
            with w._lock:
                if self._stop or w._settings.synchronous_mode:
                    self._thread = None
                    return
                try:
                    w._advance()  # callbacks not waited for: the world goes on in real time
                except BaseException as e:  # the tick left the world as it was; the clock stops there
                    self.error = e
                    self._thread = None
                    print("sensim.carla: the world's clock stopped at frame %d: a tick raised:" % w._frame,
                          file=sys.stderr)
                    traceback.print_exc()
                    w._ticked.notify_all()
                    return
