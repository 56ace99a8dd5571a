"""sensim.carla's callback delivery: as CARLA's client does, each sensor's ``listen`` callback runs on a
thread of its own (not the thread that calls ``world.tick()``), in frame order for that sensor.

``tick()`` hands each due measurement to its sensor's thread and then waits until this tick's callbacks
have returned, at most ``World.callback_wait_s`` seconds (CALLBACK_WAIT_S, 1 s, in all), so scripts that
read what their callbacks stored right after ``tick()`` keep working. A callback that blocks (a full
``queue.Queue(maxsize=4)`` during warm-up ticks nobody drains) does not block the world: ``tick()``
returns after that wait with a warning naming the sensor, and its measurements wait in order, up to
BUFFER per sensor; past that the oldest waiting one is dropped, with a warning and counted in
``Sensor.sensim_dropped`` (never silently). An exception in a callback is printed with its traceback, as
CARLA prints it, and the world goes on."""
import collections
import sys
import threading
import time
import traceback

CALLBACK_WAIT_S = 1.0  # how long tick() waits, in all, for this tick's callbacks
BUFFER = 64  # measurements waiting for one sensor's callback before the oldest is dropped


class Delivery:
    """One sensor's callback thread and its ordered buffer."""

    def __init__(self, sensor):
        self._name = "%s %d" % (sensor.type_id, sensor.id)
        self._cv = threading.Condition()
        self._q = collections.deque()
        self._done = 0  # the newest frame whose callback has returned (or was dropped)
        self._closed = False
        self._warned = False
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name="sensim.carla " + self._name, daemon=True)
        self._thread.start()

    def put(self, frame, data, callback):
        with self._cv:
            if len(self._q) >= BUFFER:
                old = self._q.popleft()
                self.dropped += 1
                self._done = max(self._done, old[0])
                print("sensim.carla: warning: %s: its callback has not kept up: %d measurements wait; frame %d "
                      "dropped (%d so far)" % (self._name, BUFFER, old[0], self.dropped), file=sys.stderr)
            self._q.append((frame, data, callback))
            self._cv.notify_all()

    def wait(self, frame, deadline):
        """True once the callback of ``frame`` has returned; False at ``deadline`` (time.monotonic())."""
        with self._cv:
            while self._done < frame:
                left = deadline - time.monotonic()
                if left <= 0:
                    if not self._warned:
                        self._warned = True
                        print("sensim.carla: warning: %s: its callback has not returned for frame %d; tick() goes "
                              "on (%d measurements wait, up to %d)" % (self._name, frame, len(self._q), BUFFER),
                              file=sys.stderr)
                    return False
                self._cv.wait(left)
            self._warned = False
            return True

    def close(self):
        """Stop after the measurements already handed over."""
        with self._cv:
            self._closed = True
            self._cv.notify_all()

    def _run(self):
        while True:
            with self._cv:
                while not self._q and not self._closed:
                    self._cv.wait()
                if not self._q:
                    return
                frame, data, callback = self._q.popleft()
            try:
                callback(data)
            except Exception:  # reported as CARLA's client reports it; the world goes on
                print("sensim.carla: exception in the callback of %s (frame %d):" % (self._name, frame),
                      file=sys.stderr)
                traceback.print_exc()
            with self._cv:
                self._done = max(self._done, frame)
                self._cv.notify_all()
