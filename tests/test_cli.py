#!/usr/bin/python3
"""End-to-end checks of the `sensim` command: PLY output, ring geometry,
thread invariance, --set, presets, and bad input. Standard library only."""
import math
import os
import struct
import subprocess
import sys
import tempfile

SENSIM = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
PRESETS = os.path.join(HERE, "..", "scan_patterns")
failures = 0
passed = 0


def check(cond, what):
    global failures, passed
    if cond:
        passed += 1
    else:
        failures += 1
        print("FAIL:", what)


def run(*args):
    return subprocess.run([SENSIM, *args], capture_output=True, text=True)


def read_ply(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode().splitlines()
    assert header[0] == "ply" and header[1] == "format binary_little_endian 1.0", header[:2]
    props, count, comments = [], 0, {}
    for line in header:
        w = line.split()
        if w[0] == "element" and w[1] == "vertex":
            count = int(w[2])
        elif w[0] == "property":
            props.append((w[1], w[2]))
        elif w[0] == "comment" and len(w) >= 3:
            comments[w[1]] = w[2:]
    codes = {"float": "f", "uint": "I", "ushort": "H", "uchar": "B", "int": "i"}
    fmt = "<" + "".join(codes[t] for t, _ in props)
    size = struct.calcsize(fmt)
    body = data[end:]
    assert len(body) == size * count, (len(body), size, count)
    names = [n for _, n in props]
    pts = [dict(zip(names, struct.unpack_from(fmt, body, i * size))) for i in range(count)]
    return names, pts, comments


def preset_elevations(name):
    with open(os.path.join(PRESETS, name + ".preset")) as f:
        for line in f:
            if line.startswith("elevation_deg"):
                return [float(v) for v in line.split("=", 1)[1].split(",")]
    raise RuntimeError("no elevation_deg")


with tempfile.TemporaryDirectory() as tmp:
    plane = os.path.join(tmp, "plane.obj")
    with open(plane, "w") as f:
        f.write("o ground_road\nv -1000 -1000 0\nv 1000 -1000 0\nv 1000 1000 0\nv -1000 1000 0\nf 1 2 3 4\n")

    # --version, presets
    r = run("--version")
    check(r.returncode == 0 and r.stdout.startswith("sensim "), "--version")
    r = run("presets")
    check(r.returncode == 0, "presets exit status")
    listed = {line.split()[0] for line in r.stdout.splitlines()[1:] if line.strip()}
    for name in ["vlp16", "hdl32", "hdl64", "pandar64", "pandar128", "os1_64"]:
        check(name in listed, "presets lists " + name)

    # the acceptance command
    out1 = os.path.join(tmp, "t1")
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--frames", "1",
            "--threads", "1", "--out", out1)
    check(r.returncode == 0, "scan exit status: " + r.stderr)
    names, pts, comments = read_ply(os.path.join(out1, "frame_000000.ply"))
    for p in ["x", "y", "z", "intensity", "range", "time", "ring", "tag", "object_id"]:
        check(p in names, "PLY has property " + p)
    el = preset_elevations("vlp16")
    per_ring = {}
    worst = 0.0
    for p in pts:
        e = math.radians(el[p["ring"]])
        check(e < 0, "only down-looking rings hit the plane")
        expect = 2.0 / math.tan(-e)
        err = abs(math.hypot(p["x"], p["y"]) - expect)
        worst = max(worst, err)
        per_ring[p["ring"]] = per_ring.get(p["ring"], 0) + 1
    check(worst < 1e-3, "ring radius within 1 mm (worst %.2e m)" % worst)
    for ring, e in enumerate(el):
        slant = 2.0 / math.sin(math.radians(-e)) if e < 0 else math.inf
        want = 1875 if slant < 100.0 else 0
        check(per_ring.get(ring, 0) == want, "ring %d has %d points, want %d" % (ring, per_ring.get(ring, 0), want))
    check(all(p["tag"] == 1 and p["object_id"] == 0 for p in pts), "tags Roads, object 0")
    check(comments.get("frame_number") == ["0"], "frame number comment")

    # identical bytes with 2 threads
    out2 = os.path.join(tmp, "t2")
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--frames", "1",
            "--threads", "2", "--out", out2)
    with open(os.path.join(out1, "frame_000000.ply"), "rb") as a, open(os.path.join(out2, "frame_000000.ply"), "rb") as b:
        check(a.read() == b.read(), "--threads 1 and 2 give identical files")

    # --set overrides a preset key for one run
    out3 = os.path.join(tmp, "t3")
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--out", out3,
            "--set", "max_range_m=20", "--frames", "3")
    check(r.returncode == 0, "--set run")
    _, pts3, c3 = read_ply(os.path.join(out3, "frame_000002.ply"))
    check(c3.get("frame_number") == ["2"], "third frame file")
    check(len(pts3) > 0 and max(p["range"] for p in pts3) < 20.0, "max_range_m=20 honoured")
    rings3 = {p["ring"] for p in pts3}
    check(rings3 == {i for i, e in enumerate(el) if e < 0 and 2.0 / math.sin(math.radians(-e)) < 20.0},
          "rings within 20 m only")

    # bad input: non-zero exit, one line naming file and line
    bad_obj = os.path.join(tmp, "bad.obj")
    with open(bad_obj, "w") as f:
        f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n")
    r = run("scan", "--scene", bad_obj, "--lidar", "vlp16", "--out", os.path.join(tmp, "x"))
    check(r.returncode != 0 and r.returncode < 128, "malformed OBJ: non-zero exit, not a signal")
    check(len(r.stderr.strip().splitlines()) == 1 and "bad.obj:4" in r.stderr, "OBJ message: " + r.stderr)
    bad_ply = os.path.join(tmp, "bad.ply")
    with open(bad_ply, "w") as f:
        f.write("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
                "0 0 0\n1 0 0\n0 1\n")
    r = run("scan", "--scene", bad_ply, "--lidar", "vlp16", "--out", os.path.join(tmp, "x"))
    check(r.returncode != 0 and r.returncode < 128, "malformed PLY: non-zero exit")
    check(len(r.stderr.strip().splitlines()) == 1 and "bad.ply" in r.stderr and "line 12" in r.stderr,
          "PLY message: " + r.stderr)
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--out", os.path.join(tmp, "x"), "--set", "nope=1")
    check(r.returncode != 0 and "unknown key 'nope'" in r.stderr, "unknown --set key")
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--out", os.path.join(tmp, "x"), "--pose", "1,2,nan,0,0,0")
    check(r.returncode == 2, "NaN pose is a usage error")
    r = run("scan", "--scene", os.path.join(tmp, "missing.obj"), "--lidar", "vlp16", "--out", os.path.join(tmp, "x"))
    check(r.returncode != 0 and "missing.obj" in r.stderr, "missing scene file")

    # the demo job
    r = run("demo", "--out", os.path.join(tmp, "demo"))
    check(r.returncode == 0 and "Car=" in r.stdout and "Building=" in r.stdout, "demo: " + r.stdout + r.stderr)
    _, dpts, _ = read_ply(os.path.join(tmp, "demo", "frame_000000.ply"))
    check(any(p["object_id"] > 0 for p in dpts), "demo sees car actors")

print("%d passed, %d failed" % (passed, failures))
sys.exit(1 if failures else 0)
