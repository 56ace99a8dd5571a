#!/usr/bin/python3
"""Issue 49: nothing lost, nothing mixed, nothing unbounded under hostile use of
`collect`, `batch`, `ros2` and `bag`. Each check failed before its fix (the
comment says how). Standard library only; states are waited for, never slept on.
Usage: test_hostile.py SENSIM"""
import fcntl
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ply_reader import read_ply  # noqa: E402

SENSIM = sys.argv[1]
failures = 0
passed = 0
BUSY, TOO_LARGE, PARSE, OUT_OF_RANGE, IO, DUPLICATE = 26, 23, 14, 15, 13, 30  # 10 + status


def check(cond, what):
    global failures, passed
    if cond:
        passed += 1
    else:
        failures += 1
        print("FAIL:", what)


def run(*args, stdin=None, env=None, timeout=600):
    """The command's result; one that outlives @p timeout is killed and fails every check (returncode None)."""
    try:
        return subprocess.run([SENSIM, *args], capture_output=True, text=True, input=stdin, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, None, "", "timed out after %d s" % timeout)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def files_under(d):
    out = []
    for root, _, names in os.walk(d):
        out += [os.path.relpath(os.path.join(root, n), d) for n in names]
    return sorted(out)


def lock(out, byte, kind):
    """Hold OUT/.sensim.lock's byte as another sensim run would (fcntl record lock)."""
    os.makedirs(out, exist_ok=True)
    fd = os.open(os.path.join(out, ".sensim.lock"), os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.lockf(fd, kind | fcntl.LOCK_NB, 1, byte)
    return fd


with tempfile.TemporaryDirectory() as tmp:
    T = lambda *p: os.path.join(tmp, *p)  # noqa: E731
    rig = write(T("rig.txt"), "[sensor roof]\npreset = vlp16\nmount_xyz_m = 0, 0, 0.3\n[sensor cam]\ntype = camera\n"
                              "width = 32\nheight = 24\nrate_hz = 20\noutputs = depth, semantic, rgb\n")
    plane = write(T("plane.obj"), "o ground\nv -1000 -1000 0\nv 1000 -1000 0\nv 1000 1000 0\nv -1000 1000 0\nf 1 2 3 4\n")
    lrig = write(T("lrig.txt"), "[sensor roof]\npreset = vlp16\nmount_xyz_m = 0, 0, 0.3\n")
    traj = write(T("traj.csv"), "t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n1,-15,1,1.8,0,0,10\n2,-10,0,1.8,0,0,0\n"
                                "3,-5,0,1.8,0,0,0\n")
    traj2 = write(T("traj2.csv"), "t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n0.5,-18,0,1.8,0,0,0\n1,-16,0,1.8,0,0,0\n")

    # ---- 6. a stream that never ends keeps a bounded history: 400 000 rows (400 s at 1 kHz, 52 MB kept before).
    # First of all: a child's peak RSS counts the test's own at fork time, small only now.
    def stream_rss(rows):
        env = dict(os.environ)
        if "ASAN_OPTIONS" in env:  # ASan's quarantine of freed blocks (256 MB) is not the stream's history
            env["ASAN_OPTIONS"] += ":quarantine_size_mb=1"
        p = subprocess.Popen([SENSIM, "ros2", "--dry-run", "--scene", plane, "--rig", T("imu.txt"),
                              "--trajectory", "-", "--rate", "max", "--quiet"], stdin=subprocess.PIPE,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        lines = "".join("%.3f,%.4f,0,1.8,0,0,0\n" % (i / 1000, i / 1000) for i in range(rows))
        p.stdin.write(("t,x,y,z,roll,pitch,yaw\n" + lines).encode())
        p.stdin.close()
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        p.stderr.close()
        return os.waitstatus_to_exitcode(status), ru.ru_maxrss / 1024, err
    write(T("imu.txt"), "[sensor imu]\ntype = imu\nrate_hz = 10\n")
    # both past the rows kept (65 536): a bounded history peaks the same; keeping every row adds 41 MB
    rc_s, small, e1 = stream_rss(150000)
    rc_b, big, e2 = stream_rss(450000)
    print("# stream peak RSS: %.1f MB for 150 000 rows, %.1f MB for 450 000 rows" % (small, big))
    check(rc_s == 0 and rc_b == 0 and big < small + 15, "a 450 000-row stream holds a bounded history: %.1f MB vs "
          "%.1f MB (%r %r)" % (big, small, e1[-200:], e2[-200:]))

    # ---- 1. collect --rate 1: steps longer than the old 4-frame ring wrote 0 points, exit 0 ----
    r1 = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj, "--out", T("c1"), "--rate", "1")
    r10 = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj, "--out", T("c10"), "--rate", "10")
    check(r1.returncode == 0 and r10.returncode == 0, "collect at 1 Hz and 10 Hz: %s %s" % (r1.stderr, r10.stderr))
    if r1.returncode == 0 and r10.returncode == 0:
        for k in range(3):
            _, p1, c1 = read_ply(T("c1", "lidar", "%06d.ply" % k))
            n10 = sum(len(read_ply(T("c10", "lidar", "%06d.ply" % (10 * k + j)))[1]) for j in range(10))
            # a 1 s step holds exactly the shots of its ten 0.1 s steps (the rig's split invariance)
            check(len(p1) == n10 and len(p1) > 100000, "collect step %d at 1 Hz: %d points = %d of ten 0.1 s steps"
                  % (k, len(p1), n10))
            check(c1.get("lost_points") == ["0"], "collect 1 Hz step %d: no point lost" % k)

    # ---- 2. one writer per output folder (batch and collect) ----
    out = T("locked")
    fd = lock(out, 1, fcntl.LOCK_EX)  # a run writing there now
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--out", out, "--quiet")
    check(r.returncode == BUSY and "being written by another sensim run" in r.stderr and
          not os.path.exists(os.path.join(out, "meta.json")), "batch into a locked folder refused: %r" % r.stderr)
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--out", out, "--quiet",
            "--overwrite")
    check(r.returncode == BUSY, "--overwrite does not take a folder another run writes: %r" % r.stderr)
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--out", out, "--quiet",
            "--shard", "0/2")
    check(r.returncode == BUSY, "a shard does not join an unsharded run: %r" % r.stderr)
    r = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj2, "--out", out)
    check(r.returncode == BUSY and files_under(out) == [".sensim.lock"], "collect into a locked folder refused")
    os.close(fd)
    # shards of one run share the folder (another shard holds the run byte shared), not one shard twice
    out = T("sharded")
    fd = lock(out, 1, fcntl.LOCK_SH)
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--out", out, "--quiet",
            "--shard", "1/2")
    check(r.returncode == 0, "shard 1/2 runs beside shard 0/2: %r" % r.stderr)
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--out", out, "--quiet")
    check(r.returncode == BUSY, "an unsharded run waits for the shards: %r" % r.stderr)
    fd2 = lock(out, 2 + 0, fcntl.LOCK_EX)  # shard 0 running
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--out", out, "--quiet",
            "--shard", "0/2", "--resume")
    check(r.returncode == BUSY and "the same shard" in r.stderr, "a second copy of shard 0/2 refused: %r" % r.stderr)
    os.close(fd2)
    os.close(fd)
    # two different runs started together, many times: exactly one writes, the folder holds its meta.json
    for trial in range(6):
        out = T("race%d" % trial)
        procs = [subprocess.Popen([SENSIM, "batch", "--scene", "street", "--lidar", lid, "--trajectory", traj2,
                                   "--out", out, "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for lid in ("vlp16", "hdl32")]
        res = [(p.wait(), p.stderr.read()) for p in procs]
        for p in procs:
            p.stdout.close(), p.stderr.close()
        ok = [i for i, (rc, _) in enumerate(res) if rc == 0]
        with open(os.path.join(out, "meta.json")) as f:
            meta = f.read()
        winner = ("vlp16", "hdl32")[ok[0]] if len(ok) == 1 else None
        check(len(ok) == 1 and all(rc in (BUSY, DUPLICATE) for rc, _ in res if rc) and '"%s"' % winner in meta,
              "two runs into one folder, trial %d: one writes, the other is refused: %r" % (trial, res))

    # ---- 3. collect: a folder holds one run (identity, --resume, --overwrite) ----
    out = T("c_once")
    r = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj, "--out", out, "--rate", "5")
    first = files_under(out)
    r = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj2, "--out", out, "--rate", "5")
    check(r.returncode == DUPLICATE and "holds another run" in r.stderr and files_under(out) == first,
          "collect into another run's folder refused, nothing written: %r" % r.stderr)
    r = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj2, "--out", out, "--rate", "5",
            "--overwrite")
    metas = sorted(os.listdir(os.path.join(out, "meta")))
    check(r.returncode == 0 and metas == ["%06d.json" % k for k in range(5)] and
          sorted(os.listdir(os.path.join(out, "lidar"))) == ["%06d.ply" % k for k in range(5)],
          "--overwrite leaves only this run's 5 steps (the earlier 15 removed): %r" % metas)
    plain = T("c_plain")
    os.makedirs(os.path.join(plain, "meta"))
    write(os.path.join(plain, "meta", "000099.json"), "{}")
    r = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj2, "--out", plain)
    check(r.returncode == DUPLICATE, "collect into a folder with files and no run identity refused: %r" % r.stderr)
    r = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj2, "--out", out, "--rate", "5")
    check(r.returncode == DUPLICATE and "--resume" in r.stderr, "the same run again: --resume or --overwrite")
    # --resume: the steps a killed run did not finish, byte for byte as one whole run
    whole = T("c_whole")
    run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj, "--out", whole, "--rate", "10")
    part = T("c_part")
    run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj, "--out", part, "--rate", "10")
    for k in range(17, 30):
        os.remove(os.path.join(part, "meta", "%06d.json" % k))
    os.remove(os.path.join(part, "lidar", "000018.ply"))
    write(os.path.join(part, "rgb", "000017.png.tmp.Ab12Cd"), "half")  # what a SIGKILL leaves
    r = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj, "--out", part, "--rate", "10",
            "--resume")
    same = files_under(part) == files_under(whole) and all(
        open(os.path.join(part, f), "rb").read() == open(os.path.join(whole, f), "rb").read()
        for f in files_under(whole) if f != "meta.json")
    check(r.returncode == 0 and "13 steps" in r.stdout and same,
          "collect --resume rewrites steps 17..29 to the whole run's bytes, the temporary removed: %r" % r.stdout)

    # --shard K/N (issue 67): shards of one run share the folder, at once or one after another, and write the
    # whole run's files byte for byte, meta.json too. At 20 Hz a vlp16 frame spans two steps, so 3 shards of 20
    # steps cut frames in the middle (step 13): a step's file must not depend on where its frames began.
    srig = write(T("shard_rig.txt"), "[sensor roof]\npreset = vlp16\nmount_xyz_m = 0, 0, 0.3\n[sensor cam]\n"
                 "type = camera\nwidth = 32\nheight = 24\nrate_hz = 20\noutputs = depth, semantic\n")
    straj = write(T("shard_traj.csv"), "t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n0.5,-15,1,1.8,0,0,10\n"
                  "1,-10,0,1.8,0,0,0\n")
    sargs = ["collect", "--scene", "street", "--rig", srig, "--trajectory", straj, "--rate", "20"]
    swhole = T("s_whole")
    r = run(*sargs, "--out", swhole)
    check(r.returncode == 0 and len(files_under(os.path.join(swhole, "lidar"))) == 20, "collect 20 steps: %r" % r.stderr)

    def same_tree(d):
        return files_under(d) == files_under(swhole) and all(
            open(os.path.join(d, f), "rb").read() == open(os.path.join(swhole, f), "rb").read()
            for f in files_under(swhole) if f != ".sensim.lock")

    for trial in range(3):  # at once: three processes race for the folder's locks
        out = T("s_par%d" % trial)
        procs = [subprocess.Popen([SENSIM, *sargs, "--out", out, "--shard", "%d/3" % k], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for k in range(3)]
        res = [(p.wait(), p.stdout.read(), p.stderr.read()) for p in procs]
        for p in procs:
            p.stdout.close(), p.stderr.close()
        check(all(rc == 0 for rc, _, _ in res) and "(shard 1/3: steps 6 to 13)" in res[1][1] and same_tree(out),
              "collect --shard 0/3, 1/3, 2/3 at once, trial %d: the whole run's files: %r" % (trial, res))
    out = T("s_seq")
    rs = [run(*sargs, "--out", out, "--shard", "%d/3" % k) for k in (2, 0, 1)]
    check(all(r.returncode == 0 for r in rs) and same_tree(out),
          "collect shards one after another (2, 0, 1): the whole run's files: %r" % [r.stderr for r in rs])
    # a shard killed mid-block resumes its block only
    for k in (14, 15, 16):
        os.remove(os.path.join(out, "meta", "%06d.json" % k))
    r = run(*sargs, "--out", out, "--shard", "2/3", "--resume")
    check(r.returncode == 0 and "collected 6 steps" in r.stdout and "(resumed)" in r.stdout and same_tree(out),
          "collect --shard 2/3 --resume rewrites steps 14..19 to the whole run's bytes: %r" % (r.stdout + r.stderr))
    r = run(*sargs, "--out", T("s_bad"), "--shard", "3/3")
    check(r.returncode == 2 and "--shard" in r.stderr and not os.path.exists(T("s_bad")), "collect --shard 3/3: usage")

    # ---- 4. no write through a planted link, no path cut short ----
    elsewhere = T("elsewhere")
    os.makedirs(elsewhere)
    out = T("c_link")
    os.makedirs(out)
    os.symlink(elsewhere, os.path.join(out, "lidar"))
    r = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj2, "--out", out, "--overwrite")
    check(r.returncode != 0 and "symbolic link" in r.stderr and os.listdir(elsewhere) == [],
          "collect refuses OUT/lidar as a link: %r" % r.stderr)
    out = T("b_link")
    os.makedirs(out)
    os.symlink(elsewhere, os.path.join(out, "roof"))
    r = run("batch", "--scene", "street", "--rig", lrig, "--trajectory", traj2, "--out", out, "--quiet", "--overwrite")
    check(r.returncode != 0 and "symbolic link" in r.stderr and os.listdir(elsewhere) == [],
          "batch --overwrite refuses a sensor folder that is a link: %r" % r.stderr)
    deep = T("d" * 200)
    while len(deep) < 4050:
        deep = os.path.join(deep, "e" * 200)
    deep = deep[:4050]
    for cmd in (["collect", "--rig", rig], ["batch", "--lidar", "vlp16"]):
        r = run(cmd[0], "--scene", "street", *cmd[1:], "--trajectory", traj2, "--out", deep)
        check(r.returncode == TOO_LARGE and "3800" in r.stderr and not os.path.exists(T("d" * 200)),
              "%s --out of 4050 bytes refused before anything is written: %r" % (cmd[0], r.stderr[:200]))

    # ---- 5. MCAP budgets: a chunk claiming 2^31 bytes is refused at once ----
    def rec(op, body):
        return struct.pack("<BQ", op, len(body)) + body

    def s(x):
        b = x.encode() if isinstance(x, str) else x
        return struct.pack("<I", len(b)) + b
    zframe = subprocess.run(["zstd", "-c", "-q"], input=b"\0" * 4096, capture_output=True).stdout
    chunk = struct.pack("<QQQI", 0, 0, 1 << 31, 0) + s("zstd") + struct.pack("<Q", len(zframe)) + zframe
    bomb = T("bomb.mcap")
    with open(bomb, "wb") as f:
        f.write(b"\x89MCAP0\r\n" + rec(1, s("ros2") + s("")) + rec(6, chunk) * 20 + rec(0x0F, b"\0" * 4) +
                b"\x89MCAP0\r\n")
    t0 = time.monotonic()
    r = run("bag", "info", bomb)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    check(r.returncode == TOO_LARGE and "512 MiB budget of one chunk" in r.stderr and "bomb.mcap" in r.stderr,
          "bag info refuses a chunk claiming 2^31 bytes, naming the budget: %r" % r.stderr)
    print("# bag info on 20 chunks claiming 2^31 bytes: %.2f s, children's peak RSS %.0f MB"
          % (time.monotonic() - t0, usage.ru_maxrss / 1024))

    # ---- 13. bag: 16-bit ids, whole strings ----
    text = "x" * 5000 + "END"
    msg = b"\0\1\0\0" + s(text + "\0")
    bag = T("ids.mcap")
    with open(bag, "wb") as f:
        f.write(b"\x89MCAP0\r\n" + rec(1, s("ros2") + s("")) +
                rec(3, struct.pack("<H", 44) + s("std_msgs/msg/Header") + s("ros2msg") + s("int32 x")) +
                rec(3, struct.pack("<H", 300) + s("std_msgs/msg/String") + s("ros2msg") + s("string data")) +
                rec(4, struct.pack("<HH", 2000, 300) + s("/far") + s("cdr") + struct.pack("<I", 0)) +
                rec(4, struct.pack("<HH", 7, 44) + s("/near") + s("cdr") + struct.pack("<I", 0)) +
                rec(5, struct.pack("<HIQQ", 2000, 0, 5, 5) + msg) + rec(0x0F, b"\0" * 4) + b"\x89MCAP0\r\n")
    r = run("bag", "info", bag)
    check(r.returncode == 0 and "Topic: /far | Type: std_msgs/msg/String | Count: 1" in r.stdout and
          "Topic: /near | Type: std_msgs/msg/Header" in r.stdout,
          "bag info: schema 300 is not schema 44, channel 2000 is listed: %r" % r.stdout)
    r = run("bag", "echo", bag, "/far")
    check(r.returncode == 0 and text in r.stdout, "bag echo prints a 5003-byte string whole")

    # ---- 6, 7, 11, 12: trajectories ----
    r = run("ros2", "--dry-run", "--scene", "street", "--lidar", "vlp16", "--trajectory", "-", "--rate", "max",
            "--quiet", stdin="t,x,y,z,roll,pitch,yaw\n0,0,0,1.8,0,0,0\n1000000,1,0,1.8,0,0,0\n", timeout=60)
    check(r.returncode == PARSE and "stdin:3" in r.stderr and "3600 s" in r.stderr,
          "a stream jumping 10^6 s is refused at the row, not stepped for days: %r" % r.stderr)
    r = run("ros2", "--dry-run", "--scene", "street", "--lidar", "vlp16", "--trajectory", "-", "--rate", "max",
            "--quiet", stdin="t,x,y,z,roll,pitch,yaw\n0,0,0,1.8,0,0,0\n")
    check(r.returncode == PARSE and "one row" in r.stderr, "a one-row stream is refused as a one-row file: %r" % r.stderr)
    neg = write(T("neg.csv"), "t,x,y,z,roll,pitch,yaw\n-0.5,-20,0,1.8,0,0,0\n0.5,-15,1,1.8,0,0,10\n")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", neg, "--out", T("neg"), "--quiet")
    check(r.returncode == OUT_OF_RANGE and "before time 0" in r.stderr and "18446744" not in r.stderr,
          "a trajectory from -0.5 s refused in plain words: %r" % r.stderr)
    dense = T("dense.csv")  # a 50 kHz log: 5000 rows in each 0.1 s world step
    with open(dense, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n")
        for i in range(50001):
            f.write("%.5f,%.6f,0,1.8,0,0,0\n" % (i / 50000, -20 + 5 * i / 50000))
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", dense, "--out", T("dense_b"), "--quiet")
    check(r.returncode == 0 and "thinned" in r.stderr and
          len([n for n in os.listdir(T("dense_b")) if n.endswith(".ply")]) == 10,
          "batch over a 50 kHz trajectory: thinned with a note, 10 frames: %r" % r.stderr[-300:])
    r = run("collect", "--scene", "street", "--rig", rig, "--trajectory", dense, "--out", T("dense_c"), "--rate", "2")
    check(r.returncode == 0 and "collected 2 steps" in r.stdout, "collect over a 50 kHz trajectory: %r" % r.stderr)

    # ---- 8. CYCLONEDDS_URI naming a FIFO: refused, not blocked forever inside Cyclone ----
    fifo = T("cyclone.fifo")
    os.mkfifo(fifo)
    env = dict(os.environ, CYCLONEDDS_URI="file://" + fifo)
    r = run("ros2", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--rate", "max", "--quiet",
            "--frames", "0:1", env=env, timeout=60)
    check(r.returncode == IO and "cyclone.fifo is a FIFO" in r.stderr, "CYCLONEDDS_URI=file://FIFO refused: %r"
          % r.stderr)

    # ---- 9. batch --resume removes what a killed run left ----
    out = T("b_tmp")
    run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--out", out, "--quiet")
    write(os.path.join(out, "frame_000003.ply.tmp.Xy12Zq"), "partial")
    write(os.path.join(out, "meta.json.tmp.Qw34Er"), "partial")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--out", out, "--quiet",
            "--resume")
    check(r.returncode == 0 and not [n for n in os.listdir(out) if ".tmp." in n],
          "--resume removes a killed run's temporaries: %r" % os.listdir(out))

    # ---- 12. nonsense refused ----
    for sets, what in ((["--set", "noise_stddev=-0.1"], "noise_stddev"), (["--set", "horizontal_fov=0"], "hfov_deg")):
        r = run("scan", "--scene", "street", "--lidar", "carla_default", "--pose", "0,0,2,0,0,0", "--count", "1",
                *sets, "--out", T("nonsense"))
        check(r.returncode == OUT_OF_RANGE and what in r.stderr, "%s refused: %r" % (" ".join(sets), r.stderr))
    twice = write(T("twice.txt"), "[sensor a]\ntype = camera\ntype = lidar\npreset = vlp16\n")
    r = run("batch", "--scene", "street", "--rig", twice, "--trajectory", traj2, "--out", T("twice"), "--quiet")
    check(r.returncode == PARSE and "twice.txt:3: type given twice" in r.stderr, "type twice: %r" % r.stderr)
    r = run("collect", "--scene", "street", "--rig", rig, "--trajectory", traj2, "--out", T("hex"), "--rate", "0x10")
    check(r.returncode == 2 and "--rate" in r.stderr, "--rate 0x10 is not a number here")
    r2 = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--format", "mcap",
             "--topic-prefix", "/1abc", "--out", T("topic"), "--quiet")
    check(r2.returncode != 0 and "1abc" in r2.stderr, "topic /1abc refused (a ROS token starts with a letter): %r"
          % r2.stderr)
    r = run("collect", "--scene", "street", "--rig", T("imu.txt"), "--trajectory", traj2, "--out", T("one"))
    check(r.returncode == PARSE and r.stderr.startswith("sensim: error: %s: no lidar and no camera" % T("imu.txt")),
          "collect's message names the rig file (it passed an integer to %%s): %r" % r.stderr)

    # noise_stddev works on carla_default (its beam = ideal dropped it): ranges to a plane spread by σ
    zs = []
    for noise in ("0", "0.05"):
        r = run("scan", "--scene", plane, "--lidar", "carla_default", "--pose", "0,0,2,0,0,0", "--count", "1",
                "--set", "dropoff_general_rate=0", "--set", "dropoff_zero_intensity=0", "--set", "noise_stddev=" + noise,
                "--out", T("noise" + noise))
        _, pts, _ = read_ply(T("noise" + noise, "frame_000000.ply"))
        zs.append([p["z"] for p in pts if p["z"] < -0.5])  # the plane is z = -2 in the sensor frame
    flat = max(abs(z + 2.0) for z in zs[0])
    spread = (sum((z + 2.0) ** 2 for z in zs[1]) / len(zs[1])) ** 0.5
    check(flat < 1e-3 and 0.005 < spread, "noise_stddev=0.05 on carla_default moves points off the plane "
          "(without: %.1e m; with: rms %.3f m)" % (flat, spread))

    # ---- 15. mtllib naming a file that is no MTL ----
    obj = write(T("passwd.obj"), "mtllib ../../../../../../../../etc/passwd\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    r = run("scan", "--scene", obj, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--count", "1", "--out", T("pw"))
    check(r.returncode == PARSE and "passwd.obj: mtllib" in r.stderr and "etc/passwd:1: not a material library"
          in r.stderr, "mtllib ../etc/passwd refused, naming both files: %r" % r.stderr)

    # ==== issue 62: output folders (one writer, no links followed, no temporaries left) ====
    # 62.8: --overwrite of a folder live shards of another run write is refused (it joined their lock, exit 0)
    out = T("i62_8")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", out, "--quiet",
            "--shard", "0/2")
    meta0 = open(os.path.join(out, "meta.json")).read() if r.returncode == 0 else None
    fd = lock(out, 1, fcntl.LOCK_SH)  # shard 0 of that run still writing
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--out", out, "--quiet",
            "--shard", "1/2", "--overwrite")
    check(r.returncode == BUSY and "does not replace a live run" in r.stderr and meta0 is not None and
          open(os.path.join(out, "meta.json")).read() == meta0,
          "62.8 --overwrite (another trajectory) beside a live shard refused, meta.json kept: %r" % r.stderr)
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", out, "--quiet",
            "--shard", "1/2", "--overwrite")
    check(r.returncode == 0, "62.8 shard 1/2 of the same run with --overwrite joins shard 0: %r" % r.stderr)
    os.close(fd)

    # 62.9: scan, render and placement take the run lock batch and collect take
    out = T("i62_9")
    run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--count", "1", "--out", out)
    before = open(os.path.join(out, "frame_000000.ply"), "rb").read()
    fd = lock(out, 1, fcntl.LOCK_EX)  # a paused batch holds the folder
    r = run("scan", "--scene", "street", "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--count", "1", "--out", out)
    check(r.returncode == BUSY and "another sensim run" in r.stderr and
          open(os.path.join(out, "frame_000000.ply"), "rb").read() == before,
          "62.9 scan into a held folder refused, the frame kept: %r" % r.stderr)
    r = run("render", "--scene", plane, "--pose", "0,0,2,0,0,0", "--outputs", "depth", "--out", out)
    check(r.returncode == BUSY and not os.path.exists(os.path.join(out, "depth")),
          "62.9 render into a held folder refused: %r" % r.stderr)
    cands = write(T("i62_cands.csv"), "x,y,z,roll,pitch,yaw\n0,0,4,0,0,0\n")
    r = run("placement", "--scene", plane, "--lidar", "vlp16", "--candidates", cands, "--roi", "-5,-5,5,5",
            "--duration", "0.1", "--out", out)
    check(r.returncode == BUSY and not os.path.exists(os.path.join(out, "ranking.csv")),
          "62.9 placement into a held folder refused: %r" % r.stderr)
    os.close(fd)
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--count", "1", "--out", out)
    check(r.returncode == 0, "62.9 scan into the folder once free: %r" % r.stderr)

    # 62.10: `rm OUT/.sensim.lock` under a live run does not let a second writer in
    out = T("i62_10")
    longtraj = write(T("long.csv"), "t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n30,10,0,1.8,0,0,0\n")
    holder = subprocess.Popen([SENSIM, "batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", longtraj,
                               "--out", out, "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    while holder.poll() is None and not os.path.exists(os.path.join(out, "meta.json")):
        time.sleep(0.01)  # polling for the state: its meta.json written under its locks
    os.kill(holder.pid, 19)  # SIGSTOP: it holds the folder without writing
    os.remove(os.path.join(out, ".sensim.lock"))
    r = run("batch", "--scene", "street", "--lidar", "hdl32", "--trajectory", traj2, "--out", out, "--quiet",
            "--overwrite")
    r2 = run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--count", "1", "--out", out)
    holder.kill()
    holder.wait()
    holder.stderr.close()
    check(r.returncode == BUSY and r2.returncode == BUSY and "hdl32" not in open(os.path.join(out, "meta.json")).read(),
          "62.10 with its lock file removed, the folder of a live run still refuses a second writer: %r %r"
          % (r.stderr, r2.stderr))

    # 62.7: a symbolic link to a folder anywhere under OUT is never written through
    elsewhere = T("i62_else")
    os.makedirs(elsewhere)
    out = T("i62_7r")
    os.makedirs(out)
    os.symlink(elsewhere, os.path.join(out, "depth"))
    r = run("render", "--scene", plane, "--pose", "0,0,2,0,0,0", "--outputs", "depth", "--out", out)
    check(r.returncode == IO and "symbolic link" in r.stderr and os.listdir(elsewhere) == [],
          "62.7 render refuses OUT/depth as a link: %r" % r.stderr)
    crig = write(T("crig.txt"), "[sensor front]\ntype = camera\nwidth = 32\nheight = 24\nrate_hz = 10\n"
                                "outputs = rgb\n")
    out = T("i62_7b")
    r = run("batch", "--scene", "street", "--rig", crig, "--trajectory", traj2, "--out", out, "--quiet")
    if os.path.isdir(os.path.join(out, "front", "rgb")):
        shutil.rmtree(os.path.join(out, "front", "rgb"))
    os.symlink(elsewhere, os.path.join(out, "front", "rgb"))
    r = run("batch", "--scene", "street", "--rig", crig, "--trajectory", traj2, "--out", out, "--quiet", "--overwrite")
    check(r.returncode == IO and "front/rgb is a symbolic link" in r.stderr and os.listdir(elsewhere) == [],
          "62.7 batch --overwrite refuses OUT/front/rgb as a link: %r" % r.stderr)
    os.remove(os.path.join(out, "front", "rgb"))

    # 62.13: temporaries two levels down (OUT/front/rgb/) are removed by --resume and --overwrite
    for flag in ("--resume", "--overwrite"):
        os.makedirs(os.path.join(out, "front", "rgb"), exist_ok=True)
        write(os.path.join(out, "front", "rgb", "000001.png.tmp.Ab12Cd"), "half")
        r = run("batch", "--scene", "street", "--rig", crig, "--trajectory", traj2, "--out", out, "--quiet", flag)
        check(r.returncode == 0 and not [f for f in files_under(out) if ".tmp." in f],
              "62.13 batch %s removes OUT/front/rgb/*.tmp.*: %r %r" % (flag, r.stderr, files_under(out)))

    # 62.6: --mcap-split-mb N splits by bytes (it split by N seconds: 2 files of a 1 s run with N = 1)
    out = T("i62_6")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj2, "--format", "mcap",
            "--mcap-compression", "none", "--mcap-split-mb", "1", "--out", out, "--quiet")
    sizes = sorted(os.path.getsize(os.path.join(out, n)) for n in os.listdir(out) if n.endswith(".mcap")) \
        if r.returncode == 0 else []
    check(len(sizes) >= 3 and sizes[-1] <= 2 * 1048576,
          "62.6 --mcap-split-mb 1: files of at most 1 MiB plus one message: %r %r" % (sizes, r.stderr))

    # 62.11: a file system without locks is said at once, not after 30 s as another run
    shim_c = write(T("enolck.c"), "#define _GNU_SOURCE\n#include <errno.h>\n#include <stdarg.h>\n#include <fcntl.h>\n"
                   "#include <sys/file.h>\n#include <dlfcn.h>\n"
                   "static int fake(int cmd, int fd, long arg) {\n"
                   "  static int (*real)(int, int, ...);\n"
                   "  if (cmd == F_SETLK || cmd == F_SETLKW || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW) {"
                   " errno = ENOLCK; return -1; }\n"
                   "  if (!real) *(void **)&real = dlsym(RTLD_NEXT, \"fcntl\");\n  return real(fd, cmd, arg);\n}\n"
                   "int fcntl(int fd, int cmd, ...) { va_list a; va_start(a, cmd); long v = va_arg(a, long);"
                   " va_end(a); return fake(cmd, fd, v); }\n"
                   "int fcntl64(int fd, int cmd, ...) { va_list a; va_start(a, cmd); long v = va_arg(a, long);"
                   " va_end(a); return fake(cmd, fd, v); }\n"
                   "int flock(int fd, int op) { (void)fd; (void)op; errno = ENOLCK; return -1; }\n")
    shim = T("enolck.so")
    cc = subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", shim, shim_c, "-ldl"], capture_output=True, text=True)
    if cc.returncode != 0:
        print("# 62.11 skipped: no C compiler for the ENOLCK shim: %s" % cc.stderr[:200])
    else:
        env = dict(os.environ, LD_PRELOAD=shim)
        env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0"
        for cmd in (["batch", "--lidar", "vlp16", "--trajectory", traj2, "--quiet"],
                    ["scan", "--lidar", "vlp16", "--count", "1"]):
            t0 = time.monotonic()
            r = run(cmd[0], "--scene", plane, *cmd[1:], "--out", T("i62_11" + cmd[0]), env=env, timeout=120)
            check(r.returncode == IO and "keeps no file locks" in r.stderr and "another sensim run" not in r.stderr,
                  "62.11 %s on a file system without locks says so: %r" % (cmd[0], r.stderr))
            print("# 62.11 %s refused in %.2f s" % (cmd[0], time.monotonic() - t0))

    # 62 (also): a full disk names the file and the reason (PLY said "write failed"), and `scan` leaves no part
    # of a frame (its range PNG stayed without its PLY). A 128 KiB tmpfs holds the PNG (35 KB), not the PLY (~1 MB).
    disk = T("i62_full")
    os.makedirs(disk)
    mnt = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", disk], capture_output=True, text=True) \
        if os.geteuid() == 0 and shutil.which("mount") else None
    if not mnt or mnt.returncode != 0:
        print("# 62 full disk skipped: cannot mount a small tmpfs (%s)"
              % ("not root" if os.geteuid() != 0 else mnt.stderr.strip()[:200] if mnt else "no mount command"))
    else:
        try:
            r = run("scan", "--scene", plane, "--lidar", "vlp16", "--images", "range", "--pose", "0,0,1.8,0,0,0",
                    "--out", disk, timeout=120)
            left = [n for n in os.listdir(disk) if n != ".sensim.lock"]
            check(r.returncode == IO and "frame_000000.ply: write failed: No space left on device" in r.stderr
                  and left == [], "62 scan on a full disk: the PLY's reason said, no part of the frame left: %r %r"
                  % (left, r.stderr))
        finally:
            subprocess.run(["umount", disk])

print("%d passed, %d failed" % (passed, failures))
sys.exit(1 if failures else 0)
