"""Issue 62: every Python object that owns native state, shared by two threads.

Each case runs in a child process (a crash there is an exit code here, not a dead test
runner): two threads hammer one object; the child prints what it counted and exits 0.
The result is either the serialised result (every frame, message and row whole, their
counts what was written) or sensim.Busy for the calls the library refuses. No sleeps:
the threads start together at a barrier and are joined."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import sensim

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)

PRELUDE = r'''
import json, os, sys, threading, tempfile
import sensim
try:
    import numpy as np
except ImportError:
    np = None

ROUNDS = 100
tmp = tempfile.mkdtemp(prefix="sensim_threads_")

def wall(ctx):
    s = sensim.Scene(ctx)
    s.add_mesh([[10, -50, -50], [10, 50, -50], [10, 50, 50], [10, -50, 50]], [[0, 1, 2], [0, 2, 3]], tag=4)
    s.commit()
    return s

KEYS = [(0, sensim.pose(z=1)), (10 ** 12, sensim.pose(z=1))]

def two(fn):
    """fn(i) on two threads started together; returns (results, errors by type name)."""
    gate = threading.Barrier(2)
    out, errs = [None, None], {}
    lock = threading.Lock()
    def run(i):
        gate.wait()
        try:
            out[i] = fn(i)
        except sensim.Busy:
            with lock:
                errs["Busy"] = errs.get("Busy", 0) + 1
        except Exception as e:
            with lock:
                errs[type(e).__name__ + ": " + str(e)] = 1
    ts = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return out, errs

def busy_loop(fn, refused=(sensim.Busy,)):
    """Call fn ROUNDS times; count the calls that worked and the ones refused (Busy)."""
    ok = busy = 0
    for k in range(ROUNDS):
        try:
            fn(k)
            ok += 1
        except refused:
            busy += 1
    return [ok, busy]

def steps(rig, dt=100_000_000, rounds=ROUNDS):
    """Step rig ``rounds`` times: [frames completed, the first InvalidArgument message (a list of at most
    one), InvalidArgument count, other errors]."""
    frames, refused, other = 0, [], 0
    for _ in range(rounds):
        try:
            frames += rig.step(sc, dt, keys=KEYS)["frames_completed"]
        except sensim.InvalidArgument as e:
            refused.append(str(e))
        except sensim.Error:
            other += 1
    return [frames, refused[:1], len(refused), other]

def done(**kw):
    print("RESULT " + json.dumps(kw))
'''


def run_case(body, timeout=300, limit_as=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHON_DIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    pre = None
    if limit_as:
        for k in ("OMP_STACKSIZE", "GOMP_STACKSIZE"):  # the threads' stacks: glibc's default, from ulimit -s
            env.pop(k, None)

        def pre():
            import resource
            soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
            want = 8 << 20  # 1000 stacks of 8 MiB cannot fit in limit_as
            if hard == resource.RLIM_INFINITY or hard >= want:
                resource.setrlimit(resource.RLIMIT_STACK, (want, hard))
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))
    r = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)], env=env, capture_output=True,
                       text=True, timeout=timeout, preexec_fn=pre)
    lines = [l for l in r.stdout.splitlines() if l.startswith("RESULT ")]
    if r.returncode != 0 or not lines:
        raise AssertionError("child exit %d\nstdout: %s\nstderr: %s" % (r.returncode, r.stdout[-2000:],
                                                                        r.stderr[-2000:]))
    return json.loads(lines[-1][len("RESULT "):])




class SharedSinks(unittest.TestCase):
    """One sink attached to two rigs stepped on two threads (issue 62 item 1: SIGSEGV). A sink writes one
    sensor's stream: the first ring it consumes binds it, the other rig's consume is refused with
    InvalidArgument naming what the second sensor's frames would overwrite or mix with; the output holds the
    first sensor's frames only, every one of them, whole."""

    def check(self, r, says):
        self.assertEqual(r["errs"], {})
        won = [o for o in r["out"] if o[2] == 0]
        lost = [o for o in r["out"] if o[2] > 0]
        self.assertEqual((len(won), len(lost)), (1, 1), r["out"])
        self.assertEqual(won[0][3], 0)  # the first sensor's steps all worked
        self.assertIn("writes another ring's frames", lost[0][1][0])
        self.assertIn(says, lost[0][1][0])
        return won[0][0]

    @unittest.skipUnless(sensim.HAVE_NUMPY, "camera image rings need numpy")
    def test_image_sink_shared_by_two_rigs(self):
        r = run_case('''
            ctx = sensim.Context(2); sc = wall(ctx)
            cams = [sensim.Camera(ctx, "carla_default", {"width": 32, "height": 24}) for _ in range(2)]
            sink = sensim.ImageSink(tmp, "cam", cams[0], threads=0)
            rigs = []
            for c in cams:
                rig = sensim.Rig(ctx)
                i = rig.add_camera(c, sensim.ImageRing(c, ("depth", "semantic"), frame_capacity=4), rate_hz=10)
                rig.attach(i, sink); rigs.append(rig)
            out, errs = two(lambda i: steps(rigs[i]))
            done(errs=errs, out=out, captures=sink.stats()["captures"])
        ''')
        self.assertEqual(self.check(r, "captures would overwrite them"), 100)
        self.assertEqual(r["captures"], 100)  # one capture a step of the first rig, none lost, none of the other

    def test_mcap_sink_shared_by_two_rigs(self):
        r = run_case('''
            ctx = sensim.Context(2); sc = wall(ctx)
            w = sensim.McapWriter(os.path.join(tmp, "bag"), compression="lz4", chunk_bytes=4096)
            lidars = [sensim.Lidar(ctx, "vlp16") for _ in range(2)]
            sink = sensim.McapSink(w, "lidar")
            rigs = []
            for l in lidars:
                rig = sensim.Rig(ctx); i = rig.add_lidar(l, sensim.Ring(4 * l.info["shots_per_frame"]))
                rig.attach(i, sink); rigs.append(rig)
            out, errs = two(lambda i: steps(rigs[i]))
            done(errs=errs, out=out, messages=w.stats["messages"])
        ''')
        frames = self.check(r, "messages would mix with them")
        self.assertGreater(frames, 0)
        self.assertEqual(r["messages"], frames)  # one PointCloud2 per completed frame of the first lidar

    def test_frame_sink_shared_by_two_rigs(self):
        r = run_case('''
            ctx = sensim.Context(2); sc = wall(ctx)
            lidars = [sensim.Lidar(ctx, "vlp16") for _ in range(2)]
            d = os.path.join(tmp, "a")
            os.makedirs(d)
            sink = sensim.FrameSink(d, "lidar", format="kitti")
            rigs = []
            for l in lidars:
                rig = sensim.Rig(ctx); i = rig.add_lidar(l, sensim.Ring(4 * l.info["shots_per_frame"]))
                rig.attach(i, sink); rigs.append(rig)
            out, errs = two(lambda i: steps(rigs[i], rounds=ROUNDS // 4))
            jsons = [f for f in os.listdir(d) if f.endswith(".json")]
            ok = all(json.load(open(os.path.join(d, f)))["points"] >= 0 for f in jsons)
            done(errs=errs, out=out, jsons=len(jsons), ok=ok)
        ''')
        self.assertTrue(r["ok"])
        self.assertEqual(r["jsons"], self.check(r, "frames would overwrite them"))  # the first lidar's, each once

    def test_csv_sink_shared_by_two_rigs(self):
        r = run_case('''
            ctx = sensim.Context(2); sc = wall(ctx)
            path = os.path.join(tmp, "imu.csv")
            sink = sensim.CsvSink(path, "imu")
            rigs = []
            for _ in range(2):
                rig = sensim.Rig(ctx)
                i = rig.add_nav(sensim.Nav(ctx, "imu"), sensim.NavRing(256))
                rig.attach(i, sink); rigs.append(rig)
            out, errs = two(lambda i: steps(rigs[i]))
            for rig in rigs:
                rig.close()
            sink.commit()
            rows = open(path).read().splitlines()
            done(errs=errs, out=out, rows=len(rows) - 1, whole=all(r.count(",") == 7 for r in rows))
        ''')
        self.assertTrue(r["whole"])
        self.assertEqual(r["rows"], self.check(r, "rows would mix with them"))


class SharedWriters(unittest.TestCase):
    def test_mcap_writer_from_two_threads(self):
        r = run_case('''
            w = sensim.McapWriter(os.path.join(tmp, "b"), compression="zstd", chunk_bytes=4096)
            tc = w.add_topic("/clock", "Clock")
            tu = w.add_topic("/imu", "Imu")
            ctx = sensim.Context(1); imu = sensim.Nav(ctx, "imu")
            smp = imu.sample(KEYS, 0)
            def hammer(i):
                for k in range(20 * ROUNDS):
                    w.write_clock(tc, k, k)
                    if k % 10 == 0:
                        w.write_imu(tu, k, "imu", smp)
                    if k % 500 == 0:
                        w.stats
                return True
            out, errs = two(hammer)
            n = w.stats["messages"]
            files = w.close()
            done(errs=errs, messages=n, files=files)
        ''')
        self.assertEqual(r["errs"], {})
        self.assertEqual(r["messages"], 2 * (2000 + 200))
        self.assertEqual(r["files"], 1)

    def test_ros2_publisher_from_two_threads(self):
        r = run_case('''
            if not sensim.ros2_available():
                done(skip="libsensim built without Cyclone DDS"); sys.exit(0)
            ctx = sensim.Context(2); sc = wall(ctx)
            lidar = sensim.Lidar(ctx, "vlp16"); ring = sensim.Ring(4 * lidar.info["shots_per_frame"])
            lidar.scan(sc, 0, 100_000_000, ring, keys=KEYS)
            frame = ring.pop()
            p = sensim.Ros2Publisher(domain_id=int(os.environ.get("SENSIM_TEST_DOMAIN", "231")))
            tp = p.add_topic("/points", "PointCloud2")
            tc = p.add_topic("/clock", "Clock")
            def hammer(i):
                for k in range(2 * ROUNDS):  # 200 clouds a thread: the unserialised writer crashed in ~1 run of 2
                    p.write_frame(tp, frame, "lidar")
                    if k % 20 == 0:
                        p.write_clock(tc, k, k)
                        p.subscribers(tp)
                return True
            out, errs = two(hammer)
            st = p.stats
            p.close()
            done(errs=errs, sent=st["messages"] + st["dropped"])
        ''')
        if "skip" in r:
            self.skipTest(r["skip"])
        self.assertEqual(r["errs"], {})
        self.assertEqual(r["sent"], 2 * (200 + 10))


class SharedSensors(unittest.TestCase):
    """Objects whose concurrent use the library refuses (Busy) or serialises."""

    @unittest.skipUnless(sensim.HAVE_NUMPY, "camera image rings need numpy")
    def test_lidar_scene_rig_camera_ring(self):
        r = run_case('''
            ctx = sensim.Context(2); sc = wall(ctx)
            lidar = sensim.Lidar(ctx, "vlp16")
            rings = [sensim.Ring(2 * lidar.info["shots_per_frame"], policy="drop_oldest") for _ in range(2)]
            res = {}
            # one lidar scanned by two threads: a scan, Busy, or (the other thread's scan was later) TimeOrder
            out, errs = two(lambda i: busy_loop(lambda k: lidar.scan(sc, k * 10 ** 8, (k + 1) * 10 ** 8, rings[i],
                                                                      keys=KEYS), (sensim.Busy, sensim.TimeOrder)))
            res["lidar"] = [errs, sum(o[0] for o in out), sum(o[1] for o in out)]
            # one rig stepped by two threads: a step or Busy, and the clock counts the steps taken
            rig = sensim.Rig(ctx)
            rig.add_lidar(sensim.Lidar(ctx, "vlp16"), sensim.Ring(4 * lidar.info["shots_per_frame"], policy="drop_oldest"))
            out, errs = two(lambda i: busy_loop(lambda k: rig.step(sc, 10_000_000, keys=KEYS)))
            res["rig"] = [errs, sum(o[0] for o in out), rig.time_ns if hasattr(rig, "time_ns") else None]
            # one camera rendering on two threads
            cam = sensim.Camera(ctx, "carla_default", {"width": 16, "height": 12})
            out, errs = two(lambda i: busy_loop(lambda k: cam.render(sc, pose=sensim.pose(z=1), outputs=("depth",))))
            res["camera"] = [errs, sum(o[0] for o in out), sum(o[1] for o in out)]
            # one ring popped by two threads while a lidar fills it: every frame popped once
            lidar = sensim.Lidar(ctx, "vlp16")
            ring = sensim.Ring(44 * lidar.info["shots_per_frame"], frame_capacity=64)
            for k in range(20):
                lidar.scan(sc, k * 10 ** 8, (k + 1) * 10 ** 8, ring, keys=KEYS)
            def popper(i):
                got = []
                while True:
                    f = ring.pop()
                    if f is None:
                        return got
                    got.append(f.header["frame_number"])
            out, errs = two(popper)
            popped = sorted((out[0] or []) + (out[1] or []))
            res["ring"] = [errs, popped == sorted(set(popped)), len(popped)]
            # the context's thread count set from two threads
            out, errs = two(lambda i: busy_loop(lambda k: setattr(ctx, "threads", 1 + (k + i) % 2)))
            res["context"] = [errs, sum(o[0] for o in out) + sum(o[1] for o in out)]
            done(**res)
        ''')
        errs, ok, busy = r["lidar"]
        self.assertEqual(errs, {})
        self.assertEqual(ok + busy, 200)
        self.assertGreater(ok, 0)
        errs, ok, _t = r["rig"]
        self.assertEqual(errs, {})
        self.assertGreater(ok, 0)
        errs, ok, busy = r["camera"]  # a render, or Busy while the other thread renders
        self.assertEqual(errs, {})
        self.assertEqual(ok + busy, 200)
        self.assertGreater(ok, 0)
        errs, unique, n = r["ring"]
        self.assertEqual(errs, {})
        self.assertTrue(unique)
        self.assertEqual(n, 20)
        self.assertEqual(r["context"], [{}, 200])


class ThreadsThatCannotStart(unittest.TestCase):
    @unittest.skipIf("libtsan" in os.environ.get("LD_PRELOAD", ""),
                     "ThreadSanitizer's shadow memory does not fit under RLIMIT_AS (the TSan stage's run)")
    def test_context_of_1000_threads_under_a_small_address_space(self):
        """libgomp would exit(1); the context refuses the count with OutOfMemory naming it."""
        r = run_case('''
            try:
                ctx = sensim.Context(1000)
                sc = wall(ctx)
                lidar = sensim.Lidar(ctx, "vlp16"); ring = sensim.Ring(4 * lidar.info["shots_per_frame"])
                lidar.scan(sc, 0, 100_000_000, ring, keys=KEYS)
                done(created=True)
            except sensim.OutOfMemory as e:
                done(created=False, message=str(e))
        ''', limit_as=3 << 30)
        self.assertFalse(r["created"])
        self.assertIn("1000 threads", r["message"])


if __name__ == "__main__":
    unittest.main()
