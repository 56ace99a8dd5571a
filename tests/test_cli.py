#!/usr/bin/python3
"""End-to-end checks of the `sensim` command: PLY output, ring geometry,
thread invariance, --set, presets, and bad input. Standard library only."""
import csv
import filecmp
import json
import math
import re
import os
import struct
import subprocess
import sys
import shutil
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ply_reader import read_ply, read_png  # noqa: E402

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
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--count", "1",
            "--threads", "1", "--set", "dropoff_model=none", "--set", "beam=ideal", "--set", "min_range_m=0",
            "--out", out1)
    check(r.returncode == 0, "scan exit status: " + r.stderr)
    names, pts, comments = read_ply(os.path.join(out1, "frame_000000.ply"))
    for p in ["x", "y", "z", "intensity", "range", "t_offset_ns", "channel", "tag", "object_id"]:
        check(p in names, "PLY has property " + p)
    el = preset_elevations("vlp16")
    per_ring = {}
    worst = 0.0
    for p in pts:
        e = math.radians(el[p["channel"]])
        check(e < 0, "only down-looking rings hit the plane")
        expect = 2.0 / math.tan(-e)
        err = abs(math.hypot(p["x"], p["y"]) - expect)
        worst = max(worst, err)
        per_ring[p["channel"]] = per_ring.get(p["channel"], 0) + 1
    check(worst < 1e-3, "ring radius within 1 mm (worst %.2e m)" % worst)
    for ring, e in enumerate(el):
        # laser ring fires 2304 ns x ring after each 55 296 ns cycle start: cycles m with 55296 m + 2304 ring < 1e8
        slant = 2.0 / math.sin(math.radians(-e)) if e < 0 else math.inf
        want = (100000000 - 1 - 2304 * ring) // 55296 + 1 if slant < 100.0 else 0
        check(per_ring.get(ring, 0) == want, "ring %d has %d points, want %d" % (ring, per_ring.get(ring, 0), want))
    # the acceptance figure: ring 0 fires every 55 296 ns, and every laser's azimuth is where the head
    # (10 Hz, clockwise from +x) pointed at its own timestamp
    t0 = sorted(p["t_offset_ns"] for p in pts if p["channel"] == 0)
    check(len(t0) > 1000 and all(b - a == 55296 for a, b in zip(t0, t0[1:])) and t0[0] == 0,
          "ring-0 times 55 296 ns apart (first %r)" % t0[:3])
    worst_az = 0.0
    for p in pts:
        head = -360.0 * p["t_offset_ns"] / 1e8
        az = math.degrees(math.atan2(p["y"], p["x"]))
        worst_az = max(worst_az, abs((az - head + 180.0) % 360.0 - 180.0))
    check(worst_az < 0.001, "azimuth follows each point's timestamp within 0.001 deg (worst %.2e)" % worst_az)
    check(all(p["tag"] == 1 and p["object_id"] == 0 for p in pts), "tags Roads, object 0")
    check(comments.get("frame_number") == ["0"], "frame number comment")

    # identical bytes with 2 threads
    out2 = os.path.join(tmp, "t2")
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--count", "1",
            "--threads", "2", "--set", "dropoff_model=none", "--set", "beam=ideal", "--set", "min_range_m=0",
            "--out", out2)
    with open(os.path.join(out1, "frame_000000.ply"), "rb") as a, open(os.path.join(out2, "frame_000000.ply"), "rb") as b:
        check(a.read() == b.read(), "--threads 1 and 2 give identical files")

    # --set overrides a preset key for one run
    out3 = os.path.join(tmp, "t3")
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--out", out3,
            "--set", "max_range_m=20", "--count", "3")
    check(r.returncode == 0, "--set run")
    _, pts3, c3 = read_ply(os.path.join(out3, "frame_000002.ply"))
    check(c3.get("frame_number") == ["2"], "third frame file")
    check(len(pts3) > 0 and max(p["range"] for p in pts3) < 20.0, "max_range_m=20 honoured")
    rings3 = {p["channel"] for p in pts3}
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
    # the speed it reports is the steady one (median after warm-up, the files apart), and it names what it wrote
    sp = [l for l in r.stdout.splitlines() if l.startswith("speed ")]
    check(len(sp) == 1 and float(sp[0].split()[1]) > 0 and "after 2 warm-up frames" in sp[0]
          and "sensim bench --lidar pandar64 --detail 1" in sp[0], "demo speed line: " + r.stdout)
    check("wrote %s and its PNG images" % os.path.join(tmp, "demo", "frame_000000.ply") in r.stdout
          and ".." not in r.stdout.splitlines()[-1], "demo names its one file: " + r.stdout)
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--out", os.path.join(tmp, "three"), "--count", "3")
    check(r.returncode == 0 and "wrote 3 frames" in r.stdout and "frame_000002.ply" in r.stdout
          and os.path.exists(os.path.join(tmp, "three", "frame_000002.ply"))
          and not os.path.exists(os.path.join(tmp, "three", "frame_000003.ply")),
          "scan --count 3 writes (and names) three frames, not its measuring frames: " + r.stdout)

    # ---- scan patterns (issue 3) ----
    r = run("presets")
    listed = {line.split()[0] for line in r.stdout.splitlines()[1:] if line.strip()}
    for name in ["pandar64", "ruby128", "pandar128", "vlp16", "vlp32", "hdl32", "hdl64", "pandar_qt", "bpearl",
                 "pandar_40m", "pandar_40p", "pandar_xt", "os1_64_gen2", "waymo_top", "mems_m1", "horizon", "avia",
                 "mid40", "mid70", "tele", "mid360"]:
        check(name in listed, "presets lists " + name)

    def csv_fov(path):
        with open(path) as f:
            lines = f.read().splitlines()
        worst = 0.0
        for line in lines[1:]:
            t, az, zen = (float(v) for v in line.split(",")[:3])
            el = math.radians(90 - zen)
            x = math.cos(el) * math.cos(math.radians(az))
            worst = max(worst, math.degrees(math.acos(max(-1.0, min(1.0, x)))))
        return lines[0], len(lines) - 1, 2 * worst

    for name, fov in [("mid40", 38.4), ("mid70", 70.4)]:
        out = os.path.join(tmp, name + ".csv")
        r = run("pattern", "export", name, "--duration", "1", "--out", out)
        check(r.returncode == 0, "pattern export " + name + r.stderr)
        head, rows, got = csv_fov(out)
        check(head.startswith("Time/s,Azimuth/deg,Zenith/deg"), "Livox CSV header")
        check(abs(rows - 100000) <= 1, "%s: %d shots in 1 s" % (name, rows))
        check(abs(got - fov) <= 0.5, "%s full FOV %.3f vs %.1f" % (name, got, fov))

    r = run("pattern", "stats", "mid40", "--times", "0.1,1", "--bin-deg", "0.5", "--png", os.path.join(tmp, "c.png"))
    check(r.returncode == 0, "pattern stats: " + r.stderr)
    cov = [float(line.split()[2]) for line in r.stdout.splitlines() if line.strip().endswith("%")]
    check(len(cov) == 2 and cov[0] < cov[1], "coverage grows with time: %s" % cov)
    with open(os.path.join(tmp, "c.png"), "rb") as f:
        png = f.read()
    check(png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR", "PNG signature")
    w, h = struct.unpack(">II", png[16:24])
    words = r.stdout.split("wrote ")[1].split()
    pw, ph = [int(v) for v in words[1].split("x")]
    hw, hh = [int(v) for v in words[8].split("x")]
    check(60 < hw < 100 and 60 < hh < 100 and (w, h) == (pw, ph) and w >= 800 and h > hh * 800 // hw,
          "heat map %dx%d bins (38.4 deg at 0.5 deg) in a %dx%d PNG (said %dx%d), 800 px wide at least"
          % (hw, hh, w, h, pw, ph))

    # replay a real-looking Livox CSV: CRLF, header, extra columns, no final newline
    box = os.path.join(tmp, "box.obj")
    with open(box, "w") as f:
        f.write("o wall\n")
        for x in (-30, 30):
            for y in (-30, 30):
                for z in (-30, 30):
                    f.write("v %d %d %d\n" % (x, y, z))
        f.write("f 1 2 4 3\nf 5 7 8 6\nf 1 5 6 2\nf 3 4 8 7\nf 1 3 7 5\nf 2 6 8 4\n")
    livox = os.path.join(tmp, "livox.csv")
    rows = ["Time/s,Azimuth/deg,Zenith/deg,Line"]
    for i in range(5000):
        rows.append("%d,%.3f,%.3f,%d" % (i, (i * 7.3) % 360, 60 + (i * 0.37) % 60, i % 4))
    with open(livox, "w", newline="") as f:
        f.write("\r\n".join(rows))
    out = os.path.join(tmp, "replay")
    r = run("scan", "--scene", box, "--lidar", livox, "--shot-rate", "100000", "--count", "2", "--out", out)
    check(r.returncode == 0, "scan a Livox CSV: " + r.stderr)
    _, rp, _ = read_ply(os.path.join(out, "frame_000001.ply"))
    check(len(rp) == 10000, "10 Hz frame of a 100 kHz CSV has 10000 points, got %d" % len(rp))
    # shot j of frame 1 is row (10000 + j) mod 5000: compare directions
    worst = 0.0
    for j, p in enumerate(rp[:2000]):
        k = (10000 + j) % 5000
        az, zen = math.radians((k * 7.3) % 360), math.radians(60 + (k * 0.37) % 60)
        d = (math.sin(zen) * math.cos(az), math.sin(zen) * math.sin(az), math.cos(zen))
        n = p["range"]
        worst = max(worst, math.dist(d, (p["x"] / n, p["y"] / n, p["z"] / n)))
        check(p["t_offset_ns"] == j * 10000, "shot time") if j < 3 else None
    check(worst < 1e-5, "replayed directions match the CSV rows (worst %.2e)" % worst)
    r = run("scan", "--scene", box, "--lidar", livox, "--count", "1", "--out", out)
    check(r.returncode != 0 and "--shot-rate" in r.stderr, "CSV without a shot rate is refused")
    bad_csv = os.path.join(tmp, "bad.csv")
    with open(bad_csv, "w") as f:
        f.write("Time/s,Azimuth/deg,Zenith/deg\n1,2,3\n2,3,4\n3,x,5\n")
    r = run("scan", "--scene", box, "--lidar", bad_csv, "--shot-rate", "1000", "--out", out)
    check(r.returncode != 0 and r.returncode < 128 and "bad.csv:4" in r.stderr and
          len(r.stderr.strip().splitlines()) == 1, "malformed CSV: " + r.stderr)
    r = run("pattern", "export", bad_csv, "--shot-rate", "1000", "--duration", "1", "--out", out + ".csv")
    check(r.returncode != 0 and "bad.csv:4" in r.stderr, "malformed CSV in pattern export")

    # ---- return physics (issue 4) ----
    def noise_run(seed, sub):
        out = os.path.join(tmp, sub)
        r = run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--count", "2", "--out", out,
                "--set", "range_noise_stddev_m=0.05", "--seed", str(seed))
        check(r.returncode == 0, "noisy scan " + r.stderr)
        pts = []
        for k in range(2):
            pts += read_ply(os.path.join(out, "frame_%06d.ply" % k))[1]
        return out, pts

    out_a, pa = noise_run(5, "na")
    errs = []
    for p in pa:
        rng = p["range"]
        dz = p["z"] / rng
        if dz < -0.1:  # the beam direction is exact; the true range along it is 2 / -dz
            errs.append(rng - 2.0 / -dz)
    mean = sum(errs) / len(errs)
    sd = math.sqrt(sum((e - mean) ** 2 for e in errs) / len(errs))
    check(len(errs) > 15000 and abs(sd - 0.05) < 0.05 * 0.05, "CLI range noise sd %.5f over %d points" % (sd, len(errs)))
    out_b, pb = noise_run(5, "nb")
    with open(os.path.join(out_a, "frame_000001.ply"), "rb") as a, open(os.path.join(out_b, "frame_000001.ply"), "rb") as b:
        check(a.read() == b.read(), "same seed, same bytes")
    out_c, pc = noise_run(6, "nc")
    check([p["range"] for p in pa] != [p["range"] for p in pc], "another seed differs")

    mirror = os.path.join(tmp, "mirror.obj")
    with open(mirror, "w") as f:
        # a mirror at x = 5 facing (-1, 1), a wall at y = 3, a backdrop at x = 60
        f.write("o mirror_panel\nusemtl mirror\n")
        f.write("v 4.5 -0.5 -0.7\nv 5.5 0.5 -0.7\nv 5.5 0.5 0.7\nv 4.5 -0.5 0.7\nf 1 2 3 4\n")
        f.write("o building_wall\nusemtl concrete\n")
        f.write("v -50 3 -50\nv 50 3 -50\nv 50 3 50\nv -50 3 50\nf 5 6 7 8\n")
        f.write("v 60 -100 -100\nv 60 100 -100\nv 60 100 100\nv 60 -100 100\nf 9 10 11 12\n")
    out = os.path.join(tmp, "mirror_out")
    r = run("scan", "--scene", mirror, "--lidar", "vlp16", "--set", "beam=ideal", "--out", out)
    check(r.returncode == 0, "mirror scan " + r.stderr)
    _, mp, _ = read_ply(os.path.join(out, "frame_000000.ply"))
    ghosts = [p for p in mp if p["flags"] & 4]
    check(len(ghosts) > 10, "mirror gives ghosts (%d)" % len(ghosts))
    ok = True
    for p in ghosts:
        d = (p["x"] / p["range"], p["y"] / p["range"], p["z"] / p["range"])
        t1 = 5.0 / (d[0] - d[1])
        hit = (t1 * d[0], t1 * d[1], t1 * d[2])
        t2 = (3.0 - hit[1]) / d[0]
        ok = ok and abs(p["range"] - (t1 + t2)) < 1e-3 and abs(hit[2]) <= 0.7 + 1e-3 and p["tag"] == 3
    check(ok, "ghosts at the mirrored distance, through the mirror, tagged as the wall")

    # ---- time and motion (issue 5) ----
    wall = os.path.join(tmp, "wall.obj")
    with open(wall, "w") as f:
        f.write("o wall\nv 40 -500 -500\nv 40 500 -500\nv 40 500 500\nv 40 -500 500\nf 1 2 3 4\n")
    out = os.path.join(tmp, "moving")
    r = run("scan", "--scene", wall, "--lidar", "vlp16", "--set", "beam=ideal", "--velocity", "10,0,0", "--count", "2",
            "--out", out)
    check(r.returncode == 0, "--velocity scan " + r.stderr)
    worst, count = 0.0, 0
    for k in range(2):
        _, pts, com = read_ply(os.path.join(out, "frame_%06d.ply" % k))
        t0 = int(com["t_begin_ns"][0])
        for p in pts:
            t = (t0 + p["t_offset_ns"]) * 1e-9
            dx = p["x"] / p["range"]
            worst = max(worst, abs(p["range"] - (40.0 - 10.0 * t) / dx))
            count += 1
    check(count > 10000 and worst < 1e-3, "ranges shrink by 10 m/s x own time: worst %.2e m over %d" % (worst, count))

    sym = os.path.join(tmp, "sym.obj")
    with open(sym, "w") as f:
        # a room symmetric in y with two pillars at y = +-3 and a ramp
        f.write("o room_building\n")
        vid = [0]

        def quad(a, b, c, d):
            for v in (a, b, c, d):
                f.write("v %g %g %g\n" % v)
            f.write("f %d %d %d %d\n" % (vid[0] + 1, vid[0] + 2, vid[0] + 3, vid[0] + 4))
            vid[0] += 4
        quad((-20, -20, 0), (20, -20, 0), (20, 20, 0), (-20, 20, 0))
        quad((-20, -20, 8), (20, -20, 8), (20, 20, 8), (-20, 20, 8))
        quad((20, -20, 0), (20, 20, 0), (20, 20, 8), (20, -20, 8))
        quad((-20, -20, 0), (-20, 20, 0), (-20, 20, 8), (-20, -20, 8))
        quad((-20, 20, 0), (20, 20, 0), (20, 20, 8), (-20, 20, 8))
        quad((-20, -20, 0), (20, -20, 0), (20, -20, 8), (-20, -20, 8))
        for y in (-3, 3):
            quad((6, y - 0.5, 0), (7, y - 0.5, 0), (7, y - 0.5, 5), (6, y - 0.5, 5))
            quad((6, y + 0.5, 0), (7, y + 0.5, 0), (7, y + 0.5, 5), (6, y + 0.5, 5))
            quad((6, y - 0.5, 0), (6, y + 0.5, 0), (6, y + 0.5, 5), (6, y - 0.5, 5))
        quad((10, -4, 0), (14, -4, 2), (14, 4, 2), (10, 4, 0))
    oc, on = os.path.join(tmp, "carla"), os.path.join(tmp, "native")
    r1 = run("scan", "--scene", sym, "--lidar", "pandar64", "--frame", "carla", "--pose", "1,2,1.5,0,0,30",
             "--out", oc)
    r2 = run("scan", "--scene", sym, "--lidar", "pandar64", "--pose", "1,-2,1.5,0,0,-30", "--out", on)
    check(r1.returncode == 0 and r2.returncode == 0, "carla / native scans " + r1.stderr + r2.stderr)
    _, pc, _ = read_ply(os.path.join(oc, "frame_000000.ply"))
    _, pn, _ = read_ply(os.path.join(on, "frame_000000.ply"))
    same = len(pc) == len(pn) and len(pc) > 10000
    worst = 0.0
    for a, b in zip(pc, pn):
        worst = max(worst, abs(a["x"] - b["x"]), abs(a["y"] + b["y"]), abs(a["z"] - b["z"]))
        same = same and a["channel"] == b["channel"] and a["t_offset_ns"] == b["t_offset_ns"]
    check(same and worst < 1e-4, "CARLA-frame scan = native scan mirrored in y (worst %.2e, %d vs %d points)" %
          (worst, len(pc), len(pn)))
    ou = os.path.join(tmp, "ue")
    # the UE scene file is read in centimetres: scale the room by 100 for an equal scan
    symcm = os.path.join(tmp, "symcm.obj")
    with open(sym) as f, open(symcm, "w") as g:
        for line in f:
            if line.startswith("v "):
                x, y, z = (float(v) * 100 for v in line.split()[1:])
                g.write("v %r %r %r\n" % (x, y, z))
            else:
                g.write(line)
    r3 = run("scan", "--scene", symcm, "--lidar", "pandar64", "--frame", "ue", "--pose", "100,200,150,0,0,30",
             "--out", ou)
    _, pu, _ = read_ply(os.path.join(ou, "frame_000000.ply"))
    worst = max(max(abs(a["x"] - 100 * b["x"]), abs(a["y"] - 100 * b["y"]), abs(a["z"] - 100 * b["z"]))
                for a, b in zip(pu, pc))
    check(r3.returncode == 0 and len(pu) == len(pc) and worst < 1e-2, "UE frame = CARLA frame in cm (%.2e)" % worst)
    # everything in one frame and unit system, and the file says which
    _, _, cc = read_ply(os.path.join(oc, "frame_000000.ply"))
    _, _, cn = read_ply(os.path.join(on, "frame_000000.ply"))
    _, _, cu = read_ply(os.path.join(ou, "frame_000000.ply"))
    posec = [float(v) for v in cc["sensor_pose"]]
    posen = [float(v) for v in cn["sensor_pose"]]
    poseu = [float(v) for v in cu["sensor_pose"]]
    check(cc["frame"] == ["carla"] and cc["units"] == ["m"] and cn["frame"] == ["native"] and cn["units"] == ["m"]
          and cu["frame"] == ["ue"] and cu["units"] == ["cm"], "PLY comments name frame and units")
    check(max(abs(a - b) for a, b in zip(posec[12:15], [1, 2, 1.5])) < 1e-9 and abs(posen[13] + 2) < 1e-9,
          "CARLA sensor_pose carries the CARLA location %r" % posec[12:15])
    check(max(abs(a - b) for a, b in zip(poseu[12:15], [100, 200, 150])) < 1e-6 and
          max(abs(a - b) for a, b in zip(poseu[:12], posec[:12])) < 1e-9, "UE sensor_pose in cm %r" % poseu[12:15])
    # the CARLA pose maps CARLA sensor points to the CARLA world: a point's world y is the mirrored native one
    pa, pb = pc[0], pn[0]
    wc = [sum(posec[c * 4 + r] * v for c, v in enumerate([pa["x"], pa["y"], pa["z"], 1.0])) for r in range(3)]
    wn = [sum(posen[c * 4 + r] * v for c, v in enumerate([pb["x"], pb["y"], pb["z"], 1.0])) for r in range(3)]
    check(abs(wc[0] - wn[0]) < 1e-3 and abs(wc[1] + wn[1]) < 1e-3 and abs(wc[2] - wn[2]) < 1e-3,
          "CARLA point through CARLA pose = mirrored native world point")
    worst_r = max(abs(a["range"] - 100 * b["range"]) for a, b in zip(pu, pc))
    check(worst_r < 1e-2, "UE ranges in cm (worst %.2e)" % worst_r)

    # OBJ names map to tags by whole words; --tags FILE adds the user's rules
    floor = os.path.join(tmp, "carpet.obj")
    with open(floor, "w") as f:
        f.write("o red_carpet\nv -50 -50 0\nv 50 -50 0\nv 50 50 0\nv -50 50 0\nf 1 2 3 4\n")
    tagmap = os.path.join(tmp, "tags.txt")
    with open(tagmap, "w") as f:
        f.write("carpet = Ground\n")
    for extra, want in (([], 0), (["--tags", tagmap], 25)):
        o = os.path.join(tmp, "tags_%d" % want)
        r = run("scan", "--scene", floor, "--lidar", "vlp16", "--pose", "0,0,1.5,0,0,0", "--out", o, *extra)
        _, tp, _ = read_ply(os.path.join(o, "frame_000000.ply"))
        check(r.returncode == 0 and len(tp) > 1000 and all(p["tag"] == want for p in tp),
              "carpet tagged %d %s" % (want, r.stderr))
    r = run("scan", "--scene", floor, "--lidar", "vlp16", "--tags", sym, "--out", os.path.join(tmp, "tags_bad"))
    check(r.returncode != 0 and (sym + ":1:") in r.stderr, "a bad tag file names its line: " + r.stderr)

    # ---- TUM and KITTI trajectories: the same motion as the CSV gives the same frames ----
    tcsv, ttum = os.path.join(tmp, "tq.csv"), os.path.join(tmp, "t.tum")
    kpose, ktime = os.path.join(tmp, "kitti.txt"), os.path.join(tmp, "times.txt")
    th = math.radians(20)
    with open(tcsv, "w") as fc, open(ttum, "w") as ft, open(kpose, "w") as fk, open(ktime, "w") as fn:
        fc.write("t,x,y,z,qw,qx,qy,qz\n")
        ft.write("# timestamp tx ty tz qx qy qz qw\n")
        for i in range(11):
            t = 0.05 * i
            x, yaw = 8 * t, -th * t  # KITTI: a turn about the camera's y (down) is a turn to the right
            qw, qz = math.cos(yaw / 2), math.sin(yaw / 2)
            fc.write("%.9f,%.9f,0,0,%.17g,0,0,%.17g\n" % (t, x, qw, qz))
            ft.write("%.9f %.9f 0 0 0 0 %.17g %.17g\n" % (t, x, qz, qw))
            c, s_ = math.cos(th * t), math.sin(th * t)  # Ry(th t) in camera axes, moving along camera z
            fk.write("%.17g 0 %.17g 0 0 1 0 0 %.17g 0 %.17g %.9f\n" % (c, s_, -s_, c, x))
            fn.write("%.9f\n" % t)
    outs = {}
    for name, extra in (("csv", [tcsv]), ("tum", [ttum]), ("kitti", [kpose, "--trajectory-times", ktime])):
        o = os.path.join(tmp, "traj_" + name)
        r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", *extra, "--out", o, "--quiet")
        check(r.returncode == 0, "batch with a %s trajectory: %s" % (name, r.stderr))
        outs[name] = o
    for name in ("tum", "kitti"):
        same = True
        for fr in ("frame_000000", "frame_000003"):
            a = json.load(open(os.path.join(outs["csv"], fr + ".json")))
            b = json.load(open(os.path.join(outs[name], fr + ".json")))
            same &= a["points"] == b["points"] and max(abs(u - v) for u, v in zip(a["sensor_pose"], b["sensor_pose"])) < 1e-9
        check(same, "%s trajectory gives the CSV's frames and poses" % name)
    check(filecmp.cmp(os.path.join(outs["csv"], "frame_000002.ply"), os.path.join(outs["tum"], "frame_000002.ply"),
                      shallow=False), "TUM: byte-identical frames (the same quaternions, reordered)")
    bad_tum = os.path.join(tmp, "bad.tum")
    with open(bad_tum, "w") as f:
        f.write("0 0 0 0 0 0 0 2\n1 1 0 0 0 0 0 1\n")
    for extra, msg in (([bad_tum], "bad.tum:1: quaternion (qx,qy,qz,qw) has norm 2"),
                       ([kpose], "need their times file"),
                       ([kpose, "--trajectory-times", tcsv], "tq.csv:1: expected one time")):
        r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", *extra, "--out", os.path.join(tmp, "bt"))
        check(r.returncode >= 10 and msg in r.stderr and not os.path.exists(os.path.join(tmp, "bt")),
              "trajectory %r refused: %r" % (extra, r.stderr))
    short = os.path.join(tmp, "short_times.txt")
    with open(short, "w") as f:
        f.write("0\n0.1\n")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", kpose, "--trajectory-times", short,
            "--out", os.path.join(tmp, "bt"))
    check(r.returncode >= 10 and "more poses than times" in r.stderr, "KITTI poses without enough times: %r" % r.stderr)

    # ---- LAS 1.4 (point format 6), read by a reader written here from the ASPRS LAS 1.4 R15 spec ----
    def read_las(path):
        d = open(path, "rb").read()
        hd = {"sig": d[0:4], "encoding": struct.unpack_from("<H", d, 6)[0], "version": (d[24], d[25]),
              "header_size": struct.unpack_from("<H", d, 94)[0], "offset": struct.unpack_from("<I", d, 96)[0],
              "nvlr": struct.unpack_from("<I", d, 100)[0], "pdrf": d[104], "reclen": struct.unpack_from("<H", d, 105)[0],
              "legacy_n": struct.unpack_from("<I", d, 107)[0], "scale": struct.unpack_from("<3d", d, 131),
              "off": struct.unpack_from("<3d", d, 155), "bounds": struct.unpack_from("<6d", d, 179),
              "n": struct.unpack_from("<Q", d, 247)[0], "by_return": struct.unpack_from("<15Q", d, 255)}
        pts = []
        for i in range(hd["n"]):
            X, Y, Z, inten, rb, cf, cls, ud, ang, src, gps = struct.unpack_from("<iiiHBBBBhHd", d, hd["offset"] + 30 * i)
            pts.append({"x": X * hd["scale"][0] + hd["off"][0], "y": Y * hd["scale"][1] + hd["off"][1],
                        "z": Z * hd["scale"][2] + hd["off"][2], "intensity": inten, "ret": rb & 15, "nret": rb >> 4,
                        "flags": cf, "cls": cls, "user": ud, "angle": ang, "src": src, "gps": gps})
        return hd, pts, len(d)

    traj_las = os.path.join(tmp, "traj_las.csv")
    with open(traj_las, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,-30,0,1.8,0,0,0\n1,-20,0,1.8,0,0,10\n")
    lasout = os.path.join(tmp, "las")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj_las, "--out", lasout, "--format", "las",
            "--frames", "1:3", "--set", "return_mode=dual", "--quiet")
    rp = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj_las, "--out", lasout + "_ply",
             "--frames", "1:3", "--set", "return_mode=dual", "--quiet")
    check(r.returncode == 0 and rp.returncode == 0, "batch --format las: %s %s" % (r.stderr, rp.stderr))
    if r.returncode == 0:
        hd, lp, size = read_las(os.path.join(lasout, "frame_000002.las"))
        _, pp, _ = read_ply(os.path.join(lasout + "_ply", "frame_000002.ply"))
        fj = json.load(open(os.path.join(lasout, "frame_000002.json")))
        check(hd["sig"] == b"LASF" and hd["version"] == (1, 4) and hd["header_size"] == 375 and hd["offset"] == 375
              and hd["pdrf"] == 6 and hd["reclen"] == 30 and hd["legacy_n"] == 0 and hd["nvlr"] == 0
              and hd["encoding"] & 0x10 and size == 375 + 30 * hd["n"], "LAS 1.4 header %r" % hd)
        check(hd["n"] == len(pp) == fj["points"] and sum(hd["by_return"]) == hd["n"] and hd["by_return"][1] > 0,
              "point count %d and counts by return %r (dual returns)" % (hd["n"], hd["by_return"][:3]))
        xs, ys, zs = [p["x"] for p in lp], [p["y"] for p in lp], [p["z"] for p in lp]
        b = hd["bounds"]
        check(abs(b[0] - max(xs)) < 1e-9 and abs(b[1] - min(xs)) < 1e-9 and abs(b[4] - max(zs)) < 1e-9
              and abs(b[5] - min(zs)) < 1e-9, "header bounds are the points' %r" % (b,))
        asprs = {0: 1, 1: 11, 24: 11, 2: 2, 10: 2, 25: 2, 3: 6, 4: 6, 9: 5, 23: 9, 26: 17, 27: 10}
        ok = all(abs(a["x"] - q["x"]) <= 0.0005 + 1e-9 and abs(a["y"] - q["y"]) <= 0.0005 + 1e-9
                 and abs(a["z"] - q["z"]) <= 0.0005 + 1e-9
                 and a["intensity"] == min(65535, max(0, round(q["intensity"] * 65535)))
                 and a["cls"] == (18 if q["flags"] & 8 else asprs.get(q["tag"], 64 + q["tag"]))
                 and a["ret"] == (q["flags"] & 3) + 1 and a["flags"] == 1 and a["user"] == min(q["channel"], 255)
                 and abs(a["gps"] - (fj["t_begin_ns"] + q["t_offset_ns"]) * 1e-9) < 1e-12
                 for a, q in zip(lp, pp))
        check(ok, "every LAS point equals its PLY twin within 0.5 mm, with the documented fields")
        pairs = [(a, b) for a, b in zip(lp, lp[1:]) if b["ret"] == 2 and a["gps"] == b["gps"] and a["user"] == b["user"]]
        check(pairs and all(a["ret"] == 1 and a["nret"] == 2 and b["nret"] == 2 for a, b in pairs),
              "a dual shot's two records say 1 of 2 and 2 of 2")

    # ---- sensim collect: CARLA's collection layout, a thin driver over the rig ----
    crig = os.path.join(tmp, "collect_rig.txt")
    with open(crig, "w") as f:
        f.write("[sensor roof]\npreset = vlp16\nmount_xyz_m = 0, 0, 0.3\n[sensor cam]\ntype = camera\nwidth = 64\n"
                "height = 48\nrate_hz = 20\noutputs = depth, semantic, rgb\n")
    ctraj = os.path.join(tmp, "collect_traj.csv")
    with open(ctraj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n0.5,-15,1,1.8,0,0,10\n1,-10,0,1.8,0,0,0\n")
    cout, bout = os.path.join(tmp, "collect"), os.path.join(tmp, "collect_batch")
    r = run("collect", "--scene", "street", "--rig", crig, "--trajectory", ctraj, "--out", cout, "--rate", "20")
    rb = run("batch", "--scene", "street", "--rig", crig, "--trajectory", ctraj, "--out", bout, "--quiet")
    check(r.returncode == 0 and rb.returncode == 0 and "collected 20 steps of 0.05 s" in r.stdout,
          "collect 1 s at 20 Hz: %s %s %s" % (r.stdout, r.stderr, rb.stderr))
    if r.returncode == 0 and rb.returncode == 0:
        names = {d: sorted(os.listdir(os.path.join(cout, d))) for d in ("rgb", "depth", "semseg", "semseg_raw",
                                                                        "lidar", "meta")}
        check(all(len(v) == 20 for v in names.values()) and names["lidar"][-1] == "000019.ply"
              and sorted(os.listdir(cout)) == sorted(list(names) + [".sensim.lock", "meta.json"]),
              "20 steps in the folders of the outputs asked for (shaded colour too: its shadow rays once hung "
              "the sanitizer build): %r" % {k: len(v) for k, v in names.items()})
        # a 10 Hz turn is two 50 ms steps: batch's frame k is collect's steps 2k and 2k+1, point for point,
        # in CARLA's frame (y negated)
        ok = True
        for k in range(3):
            _, bp, _ = read_ply(os.path.join(bout, "roof", "frame_%06d.ply" % k))
            cp = []
            for j in (2 * k, 2 * k + 1):
                cp += read_ply(os.path.join(cout, "lidar", "%06d.ply" % j))[1]
            ok &= len(bp) == len(cp) > 1000 and all(
                a["x"] == b["x"] and a["y"] == -b["y"] and a["z"] == b["z"] and a["intensity"] == b["intensity"]
                and a["channel"] == b["channel"] for a, b in zip(cp, bp))
        check(ok, "collect's lidar steps are batch's frames split in two, in CARLA's frame")
        meta = json.load(open(os.path.join(cout, "meta", "000010.json")))
        check(meta["frame"] == 10 and meta["timestamp"] == 0.5 and meta["frame_of_reference"] == "carla"
              and abs(meta["ego"]["location"][0] + 15) < 1e-9 and abs(meta["ego"]["location"][1] + 1) < 1e-9
              and meta["camera_K"][2] == 31.5 and meta["width"] == 64
              and meta["lidar_points"] == len(read_ply(os.path.join(cout, "lidar", "000010.ply"))[1]),
              "meta.json: time, ego at the key (CARLA y = -1), K: %r" % meta)
        # depth in CARLA's encoding: the batch camera's PFM at the same capture time (t = 0.1 s: step 2, capture 2)
        w, h, ch, rows = read_png(os.path.join(cout, "depth", "000002.png"))
        with open(os.path.join(bout, "cam", "depth", "000002.pfm"), "rb") as f:
            hdr = [f.readline() for _ in range(3)]
            vals = struct.unpack("<%df" % (w * h), f.read())
        worst = 0.0
        for y in range(0, h, 7):
            for x in range(0, w, 5):
                d = (rows[y][3 * x] + 256 * rows[y][3 * x + 1] + 65536 * rows[y][3 * x + 2]) / 16777215.0 * 1000
                want = min(vals[(h - 1 - y) * w + x], 1000.0)  # PFM rows are bottom first
                worst = max(worst, abs(d - want))
        check((w, h, ch) == (64, 48, 3) and worst <= 1000.0 / 16777215.0, "collect depth = batch's PFM: %g" % worst)
    # the same trajectory typed as a CARLA script sees it (y and yaw negated), read with --frame carla
    ctraj_c = os.path.join(tmp, "collect_traj_carla.csv")
    with open(ctraj_c, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n0.5,-15,-1,1.8,0,0,-10\n1,-10,0,1.8,0,0,0\n")
    cout_c = os.path.join(tmp, "collect_carla")
    r = run("collect", "--scene", "street", "--rig", crig, "--trajectory", ctraj_c, "--out", cout_c, "--rate", "20",
            "--frame", "carla")
    same = r.returncode == 0 and all(
        open(os.path.join(cout, d, n), "rb").read() == open(os.path.join(cout_c, d, n), "rb").read()
        for d in ("lidar", "meta", "depth") for n in sorted(os.listdir(os.path.join(cout, d))))
    check(same, "collect --frame carla reads a CARLA-typed trajectory to the native run's files: %r" % r.stderr)
    # each step's files are written by writer threads (as many as --threads) while the rig steps on
    trees = []
    for nt in ("1", "2"):
        o = os.path.join(tmp, "collect_t" + nt)
        r = run("collect", "--scene", "street", "--rig", crig, "--trajectory", ctraj, "--out", o, "--rate", "20",
                "--threads", nt)
        trees.append({os.path.relpath(os.path.join(a, n), o): open(os.path.join(a, n), "rb").read()
                      for a, _, fs in os.walk(o) for n in fs} if r.returncode == 0 else {})
    check(len(trees[0]) == 6 * 20 + 2 and trees[0] == trees[1],
          "collect --threads 1 and 2 write the same %d files, byte for byte" % len(trees[0]))
    # a step's point buffers have a budget (the ring and the writers' copies): 10 s steps of a Pandar128 exceed it
    big_rig, big_traj = os.path.join(tmp, "p128.ini"), os.path.join(tmp, "traj40.csv")
    with open(big_rig, "w") as f:
        f.write("[sensor roof]\npreset = pandar128\n")
    with open(big_traj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n40,20,0,0,0,0,0\n")
    r = run("collect", "--scene", "street", "--rig", big_rig, "--trajectory", big_traj, "--out",
            os.path.join(tmp, "collect_big"), "--rate", "0.1")
    check(r.returncode == 23 and "above collect's budget" in r.stderr and not os.path.exists(os.path.join(tmp, "collect_big")),
          "collect refuses steps whose point buffers exceed its budget, before writing anything: %r" % r.stderr)
    r = run("collect", "--scene", "street", "--rig", crig, "--trajectory", ctraj, "--out", cout, "--rate", "0")
    check(r.returncode == 2 and "--rate" in r.stderr, "collect --rate 0: usage")

    # ---- help: per command, and docs/cli.md's synopsis is the help text ----
    readme = open(os.path.join(HERE, "..", "docs", "cli.md"), encoding="utf-8").read()
    a = readme.index("## Synopsis\n\n```text synopsis\n") + len("## Synopsis\n\n```text synopsis\n")
    block = readme[a:readme.index("```", a)].splitlines()
    r = run("--help")
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and lines[0] == "usage:" and lines[-1].startswith("exit status")
          and [l[2:] for l in lines[1:-1]] == block, "docs/cli.md synopsis equals `sensim --help`")
    for cmd in ("scan", "batch", "render", "view", "bag", "topic", "collect", "bench", "demo", "presets", "pattern", "run"):
        r = run(cmd, "--help")
        check(r.returncode == 0 and ("sensim " + cmd) in r.stdout and r.stdout.count("\n  sensim ") <= 2,
              "`sensim %s --help` exits 0 with that command's help only: %r" % (cmd, r.stdout[:200]))
    r = run("batch", "--bogus", "1")
    check(r.returncode == 2 and "unknown option '--bogus'" in r.stderr and "sensim scan" not in r.stderr
          and "sensim batch" in r.stderr, "an unknown option is named, with that command's usage only")
    r = run("render", "--bogus", "1")
    check(r.returncode == 2 and r.stderr.startswith("sensim: render: unknown option '--bogus'"),
          "render names the unknown option once: %r" % r.stderr[:120])
    r = run("frobnicate")
    check(r.returncode == 2 and "unknown command 'frobnicate'" in r.stderr, "an unknown command is named")
    # ---- presets cite their sources inside the repository ----
    pdir = os.path.join(HERE, "..", "scan_patterns")
    import re
    for name in sorted(n for n in os.listdir(pdir) if n.endswith(".preset")):
        text = open(os.path.join(pdir, name), encoding="utf-8").read()
        comments = "\n".join(l for l in text.splitlines() if l.startswith("#"))
        cited = re.findall(r"sources/[A-Za-z0-9_.-]+\.md", comments)
        check(cited and all(os.path.isfile(os.path.join(pdir, c)) for c in cited) and "../" not in comments
              and "http" not in comments, "%s cites its sources inside the repository: %r" % (name, cited))
    # the key table renders as one table: its rows are contiguous
    lines = open(os.path.join(pdir, "README.md"), encoding="utf-8").read().splitlines()
    rows = [i for i, l in enumerate(lines) if l.startswith("| `")]
    check(rows == list(range(rows[0], rows[0] + len(rows))), "scan_patterns/README.md key table is one table")

    # ---- sensim placement (issue 19) ----
    pw = os.path.join(tmp, "placement")
    os.makedirs(pw)
    scene_w = os.path.join(pw, "ground_wall.obj")
    with open(scene_w, "w") as f:  # ground, and a tall wall along x = 5 between the east pole and the ROI
        f.write("o ground_road\nv -300 -300 0\nv 300 -300 0\nv 300 300 0\nv -300 300 0\nf 1 2 3 4\n"
                "o wall_building\nv 5 -60 0\nv 5 60 0\nv 5 60 40\nv 5 -60 40\nf 5 6 7 8\nf 8 7 6 5\n")
    cands = os.path.join(pw, "poles.csv")
    with open(cands, "w") as f:  # the ROI lies west of x = 4; pole 0 stands behind the wall, pole 1 in the open
        f.write("x,y,z,roll,pitch,yaw\n12,0,4,0,0,0\n-25,0,4,0,0,0\n")
    roi_arg = "-20,-10,0,10"
    r = run("placement", "--scene", scene_w, "--lidar", "pandar64", "--candidates", cands, "--roi", roi_arg,
            "--out", os.path.join(pw, "poles"))
    rows = list(csv.DictReader(open(os.path.join(pw, "poles", "ranking.csv"))))
    check(r.returncode == 0 and [int(x["candidate"]) for x in rows] == [1, 0]
          and float(rows[0]["density"]) > 10 * float(rows[1]["density"]) and float(rows[1]["coverage"]) == 0.0
          and os.path.getsize(os.path.join(pw, "poles", "candidate_000000.png")) > 1000,
          "the open pole ranks first, the walled one sees nothing of the ROI: %r %s" % (rows, r.stderr))
    # a planted ranking.csv.tmp symlink is never followed (exclusive temporaries)
    victim = os.path.join(pw, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep me")
    planted = os.path.join(pw, "planted")
    os.makedirs(planted)
    for n in ("ranking.csv.tmp", "ranking.json.tmp"):
        os.symlink(victim, os.path.join(planted, n))
    r = run("placement", "--scene", scene_w, "--lidar", "vlp16", "--candidates", cands, "--roi", roi_arg,
            "--no-maps", "--out", planted)
    check(r.returncode == 0 and open(victim).read() == "keep me" and
          len(list(csv.reader(open(os.path.join(planted, "ranking.csv"))))) == 3,
          "placement does not follow a planted temporary: %r" % r.stderr)
    js = json.load(open(os.path.join(pw, "poles", "ranking.json")))
    check([e["candidate"] for e in js["ranking"]] == [1, 0] and js["roi"] == [-20, -10, 0, 10],
          "ranking.json agrees with ranking.csv")
    # a grid of candidates; shards merge to the single run's bytes
    grid = ["--grid", "-30:-10:10,-6:6:6,3,0:90:90"]
    base = ["placement", "--scene", plane, "--lidar", "vlp16", "--roi", "-20,-10,0,10", "--no-maps"] + grid
    r = run(*(base + ["--out", os.path.join(pw, "one")]))
    check(r.returncode == 0 and "18 candidates" in r.stdout, "a 3 x 3 x 1 x 2 grid: %s %s" % (r.stdout, r.stderr))
    shards = []
    for k in range(3):
        d = os.path.join(pw, "shard%d" % k)
        shards.append(d)
        r = run(*(base + ["--out", d, "--shard", "%d/3" % k]))
        check(r.returncode == 0 and "6 candidates" in r.stdout, "shard %d: %s" % (k, r.stderr))
    r = run("placement", "--merge", ",".join(shards), "--out", os.path.join(pw, "merged"))
    check(r.returncode == 0 and open(os.path.join(pw, "merged", "ranking.csv"), "rb").read()
          == open(os.path.join(pw, "one", "ranking.csv"), "rb").read(), "merged shards equal the single run")
    # candidates are scored by parallel workers: 1, 2 and 5 workers (more than cores), with maps and a
    # selection, give the same bytes (run 3 times each: the workers take candidates in racing order)
    outs = []
    for rep in range(3):
        for nt in ("1", "2", "5"):
            d = os.path.join(pw, "workers%s_%d" % (nt, rep))
            r = run(*(["placement", "--scene", plane, "--lidar", "vlp16", "--roi", "-20,-10,0,10"] + grid +
                      ["--out", d, "--threads", nt, "--select", "3"]))
            check(r.returncode == 0 and ("%s workers" % nt) in r.stdout, "placement on %s workers: %s %s" %
                  (nt, r.stdout, r.stderr))
            outs.append({f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))})
    r = run(*(["placement", "--scene", plane, "--lidar", "vlp16", "--roi", "-20,-10,0,10", "--no-maps"] + grid +
              ["--out", os.path.join(pw, "json"), "--threads", "2", "--json"]))
    try:
        pj = json.loads(r.stdout.strip())
    except ValueError:
        pj = {}
    check(r.returncode == 0 and pj.get("candidates") == 18 and pj.get("workers") == 2 and
          pj.get("placement_candidate_over_scan", 0) >= 1.0 and pj.get("candidates_per_s", 0) > 0 and
          open(os.path.join(pw, "json", "ranking.csv"), "rb").read() ==
          open(os.path.join(pw, "one", "ranking.csv"), "rb").read(),
          "placement --json: one JSON line, the same ranking: %r %r" % (r.stdout, r.stderr))
    check(all(o == outs[0] for o in outs) and "selection.csv" in outs[0] and
          sum(f.startswith("candidate_") for f in outs[0]) == 18,
          "placement output is the same for any worker count: %s" % sorted(outs[0]))
    r = run("placement", "--merge", shards[0] + "," + shards[0], "--out", os.path.join(pw, "dup"))
    check(r.returncode != 0 and "two shards" in r.stderr, "a shard merged twice is refused: %r" % r.stderr)
    # greedy M of N on a symmetric scene picks mirror positions
    with open(os.path.join(pw, "line.csv"), "w") as f:
        f.write("".join("%g,0,3,0,0,0\n" % x for x in (-15, -5, 5, 15)))
    r = run("placement", "--scene", plane, "--lidar", "vlp16", "--candidates", os.path.join(pw, "line.csv"),
            "--roi", "-30,-8,30,8", "--select", "2", "--out", os.path.join(pw, "sel"), "--no-maps")
    sel = list(csv.DictReader(open(os.path.join(pw, "sel", "selection.csv")))) if r.returncode == 0 else []
    check(len(sel) == 2 and float(sel[0]["x"]) == -float(sel[1]["x"])
          and float(sel[1]["score"]) > float(sel[0]["score"]),
          "greedy 2 of 4 picks a mirror pair and the pair scores higher: %r %s" % (sel, r.stderr))
    check(r.returncode == 0 and open(os.path.join(pw, "sel", "selection.csv")).readline().split(",")[9] == "cv",
          "selection.csv names the cv column")
    # the cv column: the coefficient of variation of the ROI cells (lower = more even). With only the
    # uniformity weight the score is 1 / (1 + cv), so the ranking (best first) has cv ascending
    r = run("placement", "--scene", plane, "--lidar", "vlp16", "--candidates", os.path.join(pw, "line.csv"),
            "--roi", "-30,-8,30,8", "--weights", "0,1,0,0,0", "--out", os.path.join(pw, "cv"), "--no-maps")
    cvr = list(csv.DictReader(open(os.path.join(pw, "cv", "ranking.csv")))) if r.returncode == 0 else []
    cvs = [float(x["cv"]) for x in cvr]
    check(len(cvr) == 4 and "uniformity" not in cvr[0] and cvs == sorted(cvs) and cvs[-1] > cvs[0] >= 0
          and all(abs(float(x["score"]) - 1 / (1 + float(x["cv"]))) < 1e-15 for x in cvr),
          "cv ascending down the ranking, score = 1/(1 + cv): %r %s" % (cvr, r.stderr))
    cj = json.load(open(os.path.join(pw, "cv", "ranking.json"))) if r.returncode == 0 else {"ranking": []}
    check([e["cv"] for e in cj["ranking"]] == cvs, "ranking.json's cv is the CSV's")
    # a shard written before 0.2 (the cv column named "uniformity") still merges, to the new name
    old = os.path.join(pw, "old_shard")
    os.makedirs(old, exist_ok=True)
    text = open(os.path.join(pw, "cv", "ranking.csv")).read()
    with open(os.path.join(old, "ranking.csv"), "w") as f:
        f.write(text.replace(",cv,", ",uniformity,", 1))
    r = run("placement", "--merge", old, "--out", os.path.join(pw, "old_merged"))
    check(r.returncode == 0 and open(os.path.join(pw, "old_merged", "ranking.csv")).read() == text,
          "a pre-0.2 shard merges: %s" % r.stderr)
    # objects beyond ±1e9 m or inside out: refused naming the file and the box
    for row, what in (("-1e300,-1,0,1e300,1,2", "box 2: a coordinate beyond"), ("1,-1,0,0,1,2", "box 2: needs xmin")):
        with open(os.path.join(pw, "badobj.csv"), "w") as f:
            f.write("xmin,ymin,zmin,xmax,ymax,zmax\n-9,-2,0,-8,2,5\n%s\n" % row)
        r = run("placement", "--scene", plane, "--lidar", "vlp16", "--candidates", os.path.join(pw, "line.csv"),
                "--roi", "-30,-8,30,8", "--objects", os.path.join(pw, "badobj.csv"), "--out", os.path.join(pw, "bo"),
                "--no-maps")
        check(r.returncode != 0 and "badobj.csv: " + what in r.stderr, "objects %s: %r" % (row, r.stderr))
    # objects: a box hidden behind another is reported occluded
    objs = os.path.join(pw, "objects.csv")
    with open(objs, "w") as f:
        f.write("xmin,ymin,zmin,xmax,ymax,zmax\n-9,-2,0,-8,2,5\n-15,-1,0,-14,1,2\n-1,-1,60,1,1,61\n")
    r = run("placement", "--scene", plane, "--lidar", "vlp16", "--candidates", os.path.join(pw, "line.csv"),
            "--roi", "-30,-8,30,8", "--objects", objs, "--out", os.path.join(pw, "objs"), "--no-maps")
    rows = {int(x["candidate"]): x for x in csv.DictReader(open(os.path.join(pw, "objs", "ranking.csv")))}
    check(r.returncode == 0 and (rows[2]["visible_objects"], rows[2]["occluded_objects"],
                                 rows[2]["out_of_view_objects"], rows[2]["occluded_by_objects"],
                                 rows[2]["occluded_by_static"]) == ("1", "1", "1", "1", "0"),
          "from x = 5 the near box is visible, the one behind it occluded, the high one out of view: %r"
          % (rows.get(2), ))
    # a rig: a candidate is the platform pose; its lidars' points fill one grid (a lidar mounted 1 m up on a
    # platform at z = 2 sees what the same lidar at z = 3 sees; two of them twice the points)
    rigf = os.path.join(pw, "rig.ini")
    with open(rigf, "w") as f:
        f.write("[sensor up]\npreset = vlp16\nmount_xyz_m = 0,0,1\n")
    with open(os.path.join(pw, "low.csv"), "w") as f:
        f.write("0,0,2,0,0,0\n")
    with open(os.path.join(pw, "high.csv"), "w") as f:
        f.write("0,0,3,0,0,0\n")
    common = ["placement", "--scene", plane, "--roi", "-25,-25,25,25", "--no-maps"]
    r1 = run(*(common + ["--rig", rigf, "--candidates", os.path.join(pw, "low.csv"), "--out", os.path.join(pw, "rig1")]))
    r2 = run(*(common + ["--lidar", "vlp16", "--candidates", os.path.join(pw, "high.csv"),
                         "--out", os.path.join(pw, "lid1")]))
    a = list(csv.DictReader(open(os.path.join(pw, "rig1", "ranking.csv")))) if r1.returncode == 0 else [{}]
    b = list(csv.DictReader(open(os.path.join(pw, "lid1", "ranking.csv")))) if r2.returncode == 0 else [{}]
    keys = ("density", "cv", "coverage", "nuc", "roi_points", "score")
    check(r1.returncode == 0 and r2.returncode == 0 and all(a[0][k] == b[0][k] for k in keys),
          "a rig's mounted lidar scores as the lidar at the mount: %r %r %s" % (a, b, r1.stderr))
    with open(rigf, "a") as f:
        f.write("[sensor twin]\npreset = vlp16\nmount_xyz_m = 0,0,1\n[sensor cam]\ntype = camera\n")
    r1 = run(*(common + ["--rig", rigf, "--candidates", os.path.join(pw, "low.csv"), "--out", os.path.join(pw, "rig2")]))
    c = list(csv.DictReader(open(os.path.join(pw, "rig2", "ranking.csv")))) if r1.returncode == 0 else [{}]
    check(r1.returncode == 0 and int(c[0]["roi_points"]) == 2 * int(b[0]["roi_points"])
          and c[0]["coverage"] == b[0]["coverage"], "two identical lidars double the points, not the coverage: %r %s"
          % (c, r1.stderr))
    # candidates on mounting surfaces: the level tops of two poles (dropped rays on a 2 m grid)
    poles = os.path.join(pw, "poles.obj")
    with open(poles, "w") as f:
        f.write("o ground_road\nv -100 -100 0\nv 100 -100 0\nv 100 100 0\nv -100 100 0\nf 1 2 3 4\n")
        base = 5
        for name, (cx, h) in (("pole_west", (-10, 6)), ("pole_east", (30, 4))):
            f.write("o %s\n" % name)
            for z in (0, h):
                for dx, dy in ((-0.6, -0.6), (0.6, -0.6), (0.6, 0.6), (-0.6, 0.6)):
                    f.write("v %g %g %g\n" % (cx + dx, dy, z))
            q = [base + k for k in range(8)]
            for face in ((0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)):
                f.write("f %s\n" % " ".join(str(q[k]) for k in face))
            base += 8
    r = run("placement", "--scene", poles, "--lidar", "vlp16", "--surfaces", "Poles", "--roi", "0,-10,20,10",
            "--out", os.path.join(pw, "surf"), "--no-maps")
    got = sorted((float(x["x"]), float(x["y"]), float(x["z"])) for x in
                 csv.DictReader(open(os.path.join(pw, "surf", "ranking.csv")))) if r.returncode == 0 else []
    check(got == [(-10.0, 0.0, 6.5), (30.0, 0.0, 4.5)], "candidates on the two pole tops, 0.5 m up: %r %s"
          % (got, r.stderr))
    r = run("placement", "--scene", poles, "--lidar", "vlp16", "--surfaces", "Buildings", "--roi", "0,-10,20,10",
            "--out", os.path.join(pw, "surf2"))
    check(r.returncode != 0 and "no level surface" in r.stderr, "no building: said so: %r" % r.stderr)
    r = run("placement", "--scene", poles, "--lidar", "vlp16", "--surfaces", "Roads", "--roi", "-60,-60,60,60",
            "--surface-step", "0.3", "--out", os.path.join(pw, "surf3"))
    check(r.returncode != 0 and "at most 100000" in r.stderr, "too many surface candidates are refused, not cut: %r"
          % r.stderr)
    for bad, want in ((["--candidates", objs + ".missing"], "cannot open"),
                      (["--roi", "1,1,0,0"], "is empty"), (["--grid", "0,0"], "--grid needs"),
                      (["--cell", "0"], "--cell needs")):
        args = ["placement", "--scene", plane, "--lidar", "vlp16", "--out", os.path.join(pw, "bad")]
        if "--candidates" not in bad and "--grid" not in bad:
            args += ["--candidates", cands]
        if "--roi" not in bad:
            args += ["--roi", "0,0,10,10"]
        r = run(*(args + bad))
        check(r.returncode != 0 and want in r.stderr, "placement refuses %r: %r" % (bad, r.stderr))
    with open(os.path.join(pw, "badrow.csv"), "w") as f:
        f.write("x,y,z,roll,pitch,yaw\n1,2,3,0,0,0\n1,2,nan,0,0,0\n")
    r = run("placement", "--scene", plane, "--lidar", "vlp16", "--candidates", os.path.join(pw, "badrow.csv"),
            "--roi", "0,0,10,10", "--out", os.path.join(pw, "bad"))
    check(r.returncode != 0 and "badrow.csv:3" in r.stderr, "a bad candidate row is named: %r" % r.stderr)

    # ---- survey files: sensim run (issue 18) ----
    sv = os.path.join(tmp, "survey")
    os.makedirs(os.path.join(sv, "inputs"))
    with open(os.path.join(sv, "inputs", "traj.csv"), "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,0,0,2,0,0,0\n0.3,3,0,2,0,0,10\n")
    shutil.copy(plane, os.path.join(sv, "inputs", "plane.obj"))
    survey = {"_why": "relative paths resolve in the survey's folder", "command": "batch",
              "scene": "inputs/plane.obj", "lidar": "vlp16", "trajectory": "inputs/traj.csv", "out": "runs/a",
              "frames": "0:2", "set": {"max_range_m": 60, "beam": "ideal"}, "seed": 5, "format": "pcd",
              "quiet": True, "images": False}
    with open(os.path.join(sv, "survey.json"), "w") as f:
        json.dump(survey, f, indent=1)
    r = run("run", os.path.join(sv, "survey.json"))
    check(r.returncode == 0, "sensim run survey.json: %s" % r.stderr)
    ref = os.path.join(tmp, "survey_cli")
    r2 = run("batch", "--scene", os.path.join(sv, "inputs", "plane.obj"), "--lidar", "vlp16", "--trajectory",
             os.path.join(sv, "inputs", "traj.csv"), "--out", ref, "--frames", "0:2", "--set", "max_range_m=60",
             "--set", "beam=ideal", "--seed", "5", "--format", "pcd", "--quiet")
    got = os.path.join(sv, "runs", "a")
    names = sorted(n for n in os.listdir(ref) if n.endswith(".pcd"))
    check(r2.returncode == 0 and len(names) == 2 and names == sorted(n for n in os.listdir(got) if n.endswith(".pcd"))
          and all(open(os.path.join(ref, n), "rb").read() == open(os.path.join(got, n), "rb").read() for n in names),
          "a survey writes the bytes of the same command line")
    r = run("run", "--dry-run", os.path.join(sv, "survey.json"), "--out", "runs/b")
    check(r.returncode == 0 and r.stdout.split("&& ")[1].strip() ==
          "sensim batch --scene inputs/plane.obj --lidar vlp16 --trajectory inputs/traj.csv --out runs/a "
          "--frames 0:2 --set max_range_m=60 --set beam=ideal --seed 5 --format pcd --quiet --out runs/b",
          "--dry-run prints the command, file order, options after the file appended: %r" % r.stdout)
    bad_surveys = [
        ('{"command": "scan",\n "scene": street}', "bad1.json:2:"),            # JSON error: file, line, column
        ('{"lidar": "a", "lidar": "b"}', "duplicate object key"),
        ('[1, 2]', "one JSON object"),
        ('{"scene": null}', 'key "scene": null'),
        ('{"pose": [1, "a"]}', 'key "pose": a list holds'),
        ('{"Scene": "x"}', 'key "Scene": keys are option names'),
        ('{"command": "view"}', 'key "command": one of'),
        ('{"out": {"a": 1}}', 'key "out": only "set"'),
        ('{"command": "scan", "scene": "street", "lidar": "vlp16", "out": "o", "bogus": 1}',
         "unknown or incomplete option '--bogus'"),                             # the command's own parser
    ]
    for i, (text, want) in enumerate(bad_surveys):
        pth = os.path.join(sv, "bad%d.json" % (i + 1))
        with open(pth, "w") as f:
            f.write(text)
        r = run("run", pth)
        check(r.returncode != 0 and want in r.stderr and ("bad%d.json" % (i + 1)) in r.stderr,
              "bad survey %d is named: %r" % (i + 1, r.stderr[:300]))
    fifo = os.path.join(sv, "fifo.json")
    os.mkfifo(fifo)
    r = subprocess.run([SENSIM, "run", fifo], capture_output=True, text=True, timeout=30)
    check(r.returncode != 0 and "FIFO" in r.stderr, "a FIFO survey is refused at once")

    # scan counts frames with --count; --frames (batch's range) is refused there with the new name
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--frames", "2", "--out", os.path.join(tmp, "nf"))
    check(r.returncode == 2 and "--count N" in r.stderr, "scan --frames is a usage error naming --count: %r" % r.stderr)
    # a preset name one edit away is suggested; --out creates missing parent folders
    r = run("scan", "--scene", plane, "--lidar", "vlp-16", "--out", os.path.join(tmp, "nf"))
    check(r.returncode != 0 and "did you mean 'vlp16'?" in r.stderr, "did you mean: %r" % r.stderr)
    deep = os.path.join(tmp, "a", "b", "c")
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--pose", "0,0,2,0,0,0", "--out", deep)
    check(r.returncode == 0 and os.path.exists(os.path.join(deep, "frame_000000.ply")), "--out makes its parents")
    open(os.path.join(tmp, "afile"), "w").close()
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--out", os.path.join(tmp, "afile", "x"))
    check(r.returncode != 0 and "not a directory" in r.stderr, "--out under a file is refused: %r" % r.stderr)
    # --set: a check across keys blames the override, not the preset file
    r = run("scan", "--scene", plane, "--lidar", "vlp16", "--set", "min_range_m=500", "--out", os.path.join(tmp, "nf"))
    check(r.returncode != 0 and "override 1 'min_range_m=500'" in r.stderr, "the override is blamed: %r" % r.stderr)

    # ---- batch generation (issue 7) ----
    import filecmp
    import signal
    import time
    traj = os.path.join(tmp, "traj.csv")
    with open(traj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n")
        for i in range(0, 1001):
            t = i * 0.01
            f.write("%g,%g,%g,1.8,0,0,%g\n" % (t, -60 + 8 * t, 0.4 * math.sin(t), 6 * math.sin(0.5 * t)))
    single = os.path.join(tmp, "b_single")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", single, "--quiet")
    check(r.returncode == 0, "batch run " + r.stderr)
    plys = sorted(n for n in os.listdir(single) if n.endswith(".ply"))
    check(len(plys) == 100, "10 s at 10 Hz gives 100 frames (%d)" % len(plys))
    merged = os.path.join(tmp, "b_merged")
    os.makedirs(merged)
    for k in range(4):
        sk = os.path.join(tmp, "b_shard%d" % k)
        r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", sk,
                "--shard", "%d/4" % k, "--threads", "1", "--quiet")
        check(r.returncode == 0, "shard %d: %s" % (k, r.stderr))
        for name in os.listdir(sk):
            if not os.path.exists(os.path.join(merged, name)):
                os.link(os.path.join(sk, name), os.path.join(merged, name))
    cmp = filecmp.dircmp(single, merged)
    same = not cmp.left_only and not cmp.right_only
    same = same and all(filecmp.cmp(os.path.join(single, n), os.path.join(merged, n), shallow=False)
                        for n in os.listdir(single))
    check(same, "4 shards together equal the single run byte for byte")
    # every frame follows the trajectory: header pose = interpolated pose at the frame start
    with open(os.path.join(single, "frame_000042.json")) as f:
        meta = json.load(f)
    t = 4.2
    check(abs(meta["sensor_pose"][12] - (-60 + 8 * t)) < 1e-6 and meta["t_begin_ns"] == 4200000000,
          "frame 42 starts at 4.2 s at x = %.6f" % meta["sensor_pose"][12])

    # formats: Open3D reads PLY and PCD with the right counts; KITTI and CARLA sizes
    counts = {}
    for fmt in ("ply", "ply-ascii", "pcd", "pcd-ascii", "kitti", "carla"):
        out = os.path.join(tmp, "fmt_" + fmt)
        r = run("batch", "--scene", "street", "--lidar", "pandar64", "--trajectory", traj, "--out", out,
                "--format", fmt, "--frames", "3:5", "--images", "--quiet")
        check(r.returncode == 0, "format %s: %s" % (fmt, r.stderr))
        with open(os.path.join(out, "frame_000004.json")) as f:
            counts[fmt] = json.load(f)["points"]
        ext = {"ply": "ply", "ply-ascii": "ply", "pcd": "pcd", "pcd-ascii": "pcd"}.get(fmt, "bin")
        path = os.path.join(out, "frame_000004." + ext)
        if ext == "bin":
            check(os.path.getsize(path) == counts[fmt] * (16 if fmt == "kitti" else 24), fmt + " record size")
        for img in ("range", "intensity", "label"):
            with open(os.path.join(out, "frame_000004_%s.png" % img), "rb") as f:
                head = f.read(24)
            w, h = struct.unpack(">II", head[16:24])
            check(head[:8] == b"\x89PNG\r\n\x1a\n" and (w, h) == (1800, 64), "%s %s image %dx%d" % (fmt, img, w, h))
    check(len(set(counts.values())) == 1, "every format holds the same points %s" % counts)
    try:
        import open3d as o3d
        for fmt in ("ply", "ply-ascii", "pcd", "pcd-ascii"):
            ext = "ply" if fmt.startswith("ply") else "pcd"
            pc = o3d.io.read_point_cloud(os.path.join(tmp, "fmt_" + fmt, "frame_000004." + ext))
            check(len(pc.points) == counts[fmt], "Open3D reads %s: %d points" % (fmt, len(pc.points)))
        pts = o3d.io.read_point_cloud(os.path.join(tmp, "fmt_pcd", "frame_000004.pcd")).points
        _, ref, _ = read_ply(os.path.join(tmp, "fmt_ply", "frame_000004.ply"))
        check(abs(pts[10][0] - ref[10]["x"]) < 1e-6 and abs(pts[10][2] - ref[10]["z"]) < 1e-6,
              "Open3D sees the same coordinates in PCD and PLY")
    except ImportError:
        check(False, "python3-open3d missing (scripts/install-deps.sh installs it)")

    # a rig file with two sensors
    rig = os.path.join(tmp, "rig.txt")
    with open(rig, "w") as f:
        f.write("# two sensors\n[sensor roof]\npreset = pandar64\nmount_xyz_m = 0,0,0.2\n\n"
                "[sensor front]\npreset = mid40\nmount_xyz_m = 2,0,-1\n")
    out = os.path.join(tmp, "rigrun")
    r = run("batch", "--scene", "street", "--rig", rig, "--trajectory", traj, "--out", out, "--frames", "0:3",
            "--quiet")
    check(r.returncode == 0 and len([n for n in os.listdir(os.path.join(out, "roof")) if n.endswith(".ply")]) == 3
          and len([n for n in os.listdir(os.path.join(out, "front")) if n.endswith(".ply")]) == 3,
          "rig batch writes per-sensor frames " + r.stderr)
    with open(os.path.join(out, "meta.json")) as f:
        meta = json.load(f)
    check([s["name"] for s in meta["sensors"]] == ["roof", "front"] and meta["sensors"][1]["pattern"] == "risley",
          "meta.json lists the sensors and their parameters")
    check(meta["format"] == "ply" and meta["frame"] == "native" and meta["units"] == "m",
          "meta.json names format, frame and units: %r %r" % (meta["format"], meta["frame"]))
    for fmt_name in ("kitti", "carla"):
        o = os.path.join(tmp, "meta_" + fmt_name)
        r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--out", o, "--frames", "0:1",
                "--format", fmt_name, "--frame", "carla", "--quiet")
        check(r.returncode == 0, "batch --format %s: %s" % (fmt_name, r.stderr))
        with open(os.path.join(o, "meta.json")) as f:
            m = json.load(f)
        with open(os.path.join(o, "frame_000000.json")) as f:
            fj = json.load(f)
        check(r.returncode == 0 and m["format"] == fmt_name and m["frame"] == "carla" and
              fj["frame_of_reference"] == "carla" and fj["units"] == "m", "batch --format %s meta %r" % (fmt_name, m))

    # --frame carla applies to rig mounts too: a sensor copied from CARLA's Transform(x=1, y=0.9, z=1.8,
    # yaw=30) sits at CARLA y = +0.9 (not mirrored), its yaw clockwise; native runs read the same numbers natively
    still = os.path.join(tmp, "still.csv")
    with open(still, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n1,0,0,0,0,0,0\n")
    mrig = os.path.join(tmp, "mount_rig.txt")
    with open(mrig, "w") as f:
        f.write("[sensor top]\npreset = vlp16\nmount_xyz_m = 1, 0.9, 1.8\nmount_rpy_deg = 0, 0, 30\n")
    for fr, want_y in (("carla", 0.9), ("native", 0.9)):
        o = os.path.join(tmp, "mount_" + fr)
        r = run("batch", "--scene", "street", "--rig", mrig, "--trajectory", still, "--out", o, "--frames", "0:1",
                "--frame", fr, "--quiet")
        pose = read_ply(os.path.join(o, "top", "frame_000000.ply"))[2]["sensor_pose"] if r.returncode == 0 else []
        P = [float(x) for x in pose]
        check(len(P) == 16 and abs(P[12] - 1) < 1e-12 and abs(P[13] - want_y) < 1e-12 and abs(P[14] - 1.8) < 1e-12
              and abs(P[1] - 0.5) < 1e-12, "--frame %s: mount y = 0.9 and yaw 30 kept in the run's frame: %r %s"
              % (fr, P, r.stderr))
    with open(mrig, "w") as f:
        f.write("[sensor top]\npreset = vlp16\nmount_xyz_m = 1, 0.9, 1.8\nmount_xyz_m = 0, 0, 2\n")
    r = run("batch", "--scene", "street", "--rig", mrig, "--trajectory", still, "--out", os.path.join(tmp, "dupkey"))
    check(r.returncode >= 10 and "mount_rig.txt:4" in r.stderr and "given twice" in r.stderr,
          "a rig key given twice is refused: " + r.stderr)

    # one motion model a run: named in meta.json, refused per sensor, unknown models refused
    with open(os.path.join(tmp, "mount_native", "meta.json")) as f:
        check(json.load(f).get("motion") == "causal", "meta.json names the run's motion model (causal by default)")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", still, "--out",
            os.path.join(tmp, "motion_bad"), "--motion", "cubic")
    check(r.returncode == 2 and "--motion must be" in r.stderr, "--motion cubic refused: " + r.stderr)
    with open(mrig, "w") as f:
        f.write("[sensor imu]\ntype = imu\ninterp = linear\n")
    r = run("batch", "--scene", "street", "--rig", mrig, "--trajectory", still, "--out", os.path.join(tmp, "interp"))
    check(r.returncode >= 10 and "--motion" in r.stderr and "'imu'" in r.stderr,
          "a sensor's own interp is refused (the run has one motion model): " + r.stderr)
    o = os.path.join(tmp, "motion_linear")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", still, "--out", o, "--frames", "0:1",
            "--motion", "linear", "--quiet")
    with open(os.path.join(o, "meta.json")) as f:
        check(r.returncode == 0 and json.load(f).get("motion") == "linear", "--motion linear: " + r.stderr)

    # --frame carla: navigation and radar files in CARLA's axes. The same physical run typed in both frames
    # (a left turn; the carla files mirror y and yaw) gives IMU (ax, -ay, az, -gx, gy, -gz), the same compass,
    # odometry y, vy and yaw rate mirrored, and radar azimuths negated
    turn = {"native": os.path.join(tmp, "turn_native.csv"), "carla": os.path.join(tmp, "turn_carla.csv")}
    for fr, sgn in (("native", 1), ("carla", -1)):
        with open(turn[fr], "w") as f:
            f.write("t,x,y,z,roll,pitch,yaw\n")
            for i in range(21):
                th = 0.02 * i * i * 0.01
                f.write("%r,%r,%r,0,0,0,%r\n" % (i * 0.1, 10 * math.sin(th) + i * 0.1, sgn * 10 * (1 - math.cos(th)),
                                                   sgn * math.degrees(th)))
    frig = {}
    for fr, sgn in (("native", 1), ("carla", -1)):
        frig[fr] = os.path.join(tmp, "frig_%s.txt" % fr)
        with open(frig[fr], "w") as f:
            f.write("[sensor imu]\ntype = imu\nmount_xyz_m = 0.5, %r, 1\n[sensor odo]\ntype = odometry\n"
                    "[sensor front]\ntype = radar\nmount_xyz_m = 2, %r, 0.5\n" % (sgn * 0.3, sgn * 0.2))
    res = {}
    for fr in ("native", "carla"):
        o = os.path.join(tmp, "navframe_" + fr)
        r = run("batch", "--scene", "street", "--rig", frig[fr], "--trajectory", turn[fr], "--out", o, "--frame", fr,
                "--quiet")
        check(r.returncode == 0, "--frame %s navigation run: %s" % (fr, r.stderr))
        res[fr] = {n: [[float(v) for v in row] for row in list(csv.reader(open(os.path.join(o, d, n + ".csv"))))[1:]]
                   for d, n in (("imu", "imu"), ("odo", "odometry"), ("front", "radar"))} if r.returncode == 0 else {}
    if res["native"] and res["carla"]:
        a, b = res["native"], res["carla"]
        imu_ok = len(a["imu"]) == len(b["imu"]) > 100 and all(
            all(abs(p[i] * s_ - q[i]) < 1e-9 * (1 + abs(p[i])) for i, s_ in enumerate((1, 1, -1, 1, -1, 1, -1, 1)))
            for p, q in zip(a["imu"], b["imu"]))
        check(imu_ok and max(abs(p[6]) for p in a["imu"]) > 0.01 and max(abs(p[2]) for p in a["imu"]) > 0.01,
              "--frame carla IMU: (ax, -ay, az, -gx, gy, -gz), the same compass")
        # odometry: t,x,y,z,qw,qx,qy,qz,vx,vy,vz,vxb,vyb,vzb,wx,wy,wz,ax,ay,az
        sg = (1, 1, -1, 1, 1, -1, 1, -1, 1, -1, 1, 1, -1, 1, -1, 1, -1, 1, -1, 1)
        odo_ok = len(a["odometry"]) == len(b["odometry"]) > 100 and all(
            all(abs(p[i] * sg[i] - q[i]) < 1e-9 * (1 + abs(p[i])) for i in range(20))
            for p, q in zip(a["odometry"], b["odometry"]))
        check(odo_ok, "--frame carla odometry: y, vy, the rotation axis and yaw rate mirrored")
        rad_ok = len(a["radar"]) == len(b["radar"]) > 50 and all(
            abs(p[3] + q[3]) < 1e-6 and abs(p[2] - q[2]) < 1e-5 and abs(p[5] - q[5]) < 1e-5
            for p, q in zip(a["radar"], b["radar"]))
        check(rad_ok, "--frame carla radar: azimuth positive to the right (CARLA), depth and velocity unchanged")
        with open(os.path.join(tmp, "navframe_carla", "meta.json")) as f:
            m = json.load(f)
        check([s_["frame_of_reference"] for s_ in m["sensors"]] == ["carla"] * 3 and
              abs(m["sensors"][0]["mount_pose"][13] + 0.3) < 1e-12, "meta.json: navigation and radar in carla, "
              "mounts as typed: %r" % [s_.get("mount_pose", [0] * 16)[13] for s_ in m["sensors"]])

    # progress counts what each sensor does (frames, captures, samples), never past the total, the last line once;
    # a lidar on the road (z = 0) scans nothing: warned on stderr and in each frame's JSON, even with --quiet
    prig = os.path.join(tmp, "progress_rig.txt")
    with open(prig, "w") as f:
        f.write("[sensor top]\npreset = vlp16\n[sensor cam]\ntype = camera\nwidth = 32\nheight = 24\n"
                "[sensor imu]\ntype = imu\n[sensor gps]\ntype = gnss\n")
    for fmt_name in ("ply", "mcap"):
        o = os.path.join(tmp, "progress_" + fmt_name)
        r = run("batch", "--scene", "street", "--rig", prig, "--trajectory", still, "--out", o, "--format", fmt_name)
        lines = [x for x in r.stderr.splitlines() if x.startswith("sensim batch: ") and " Mpts/s" in x]
        counts = [tuple(int(v) for v in x.split()[2].split("/")) for x in lines]
        check(r.returncode == 0 and counts and all(d <= t for d, t in counts) and counts[-1] == (130, 130) and
              counts.count((130, 130)) == 1 and "top 10/10, cam 10/10, imu 100/100, gps 10/10" in lines[-1],
              "--format %s progress counts per sensor: %r" % (fmt_name, lines))
        check("warning: lidar 'top': 10 of 10 frames have no points" in r.stderr and "mount height" in r.stderr,
              "--format %s: frames without points are warned about: %r" % (fmt_name, r.stderr[-400:]))
    with open(os.path.join(tmp, "progress_ply", "top", "frame_000000.json")) as f:
        fj = json.load(f)
    check(fj["points"] == 0 and "mount height" in fj.get("warning", ""), "an empty frame's JSON says why: %r" % fj)
    o = os.path.join(tmp, "progress_ok")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--set", "mount_xyz_m=0,0,1.8", "--trajectory", still,
            "--out", o, "--frames", "0:2", "--quiet")
    with open(os.path.join(o, "frame_000000.json")) as f:
        fj = json.load(f)
    check(r.returncode == 0 and r.stderr == "" and fj["points"] > 1000 and "warning" not in fj,
          "a lidar at 1.8 m scans the street without a warning: %r" % r.stderr)

    # bad inputs: one line naming the file and line
    badt = os.path.join(tmp, "badtraj.csv")
    with open(badt, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n0.1,1,0,0,0,0\n")
    r = run("batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", badt, "--out", out)
    check(r.returncode != 0 and r.returncode < 128 and "badtraj.csv:3" in r.stderr and
          len(r.stderr.strip().splitlines()) == 1, "malformed trajectory: " + r.stderr)
    badr = os.path.join(tmp, "badrig.txt")
    with open(badr, "w") as f:
        f.write("[sensor a]\npreset = vlp16\n[lidar b]\n")
    r = run("batch", "--scene", "street", "--rig", badr, "--trajectory", traj, "--out", out)
    check(r.returncode != 0 and "badrig.txt:3" in r.stderr, "malformed rig file: " + r.stderr)

    # Ctrl-C stops after the current frame; --resume finishes; the result equals an uninterrupted run
    heavy = os.path.join(tmp, "heavy")
    args = [SENSIM, "batch", "--scene", "street", "--lidar", "pandar128", "--trajectory", traj, "--out", heavy,
            "--images"]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # interrupt once the first frame is on disk (the handler is in place by then), whatever the machine's speed
    for _ in range(1200):
        if p.poll() is not None or (os.path.isdir(heavy) and
                                    any(n.endswith(".json") and n != "meta.json" for n in os.listdir(heavy))):
            break
        time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate()
    if p.returncode == 130:
        jsons = [n for n in os.listdir(heavy) if n.endswith(".json") and n != "meta.json"]
        complete = all(os.path.exists(os.path.join(heavy, n[:-5] + ".ply")) for n in jsons)
        check(0 < len(jsons) < 100 and complete and "--resume" in err, "interrupted cleanly after %d frames" % len(jsons))
        check(not [n for n in os.listdir(heavy) if ".tmp" in n], "no temporary files left")
    else:
        check(p.returncode == 0, "batch finished before the interrupt (rc %d)" % p.returncode)
    r = subprocess.run(args + ["--resume", "--frames", "0:100"], capture_output=True, text=True)
    check(r.returncode == 0 and len([n for n in os.listdir(heavy) if n.endswith(".ply")]) == 100, "resume completes")
    ref = os.path.join(tmp, "heavy_ref")
    r = subprocess.run([SENSIM, "batch", "--scene", "street", "--lidar", "pandar128", "--trajectory", traj,
                        "--out", ref, "--images", "--frames", "95:100", "--quiet"], capture_output=True, text=True)
    check(all(filecmp.cmp(os.path.join(ref, n), os.path.join(heavy, n), shallow=False)
              for n in os.listdir(ref) if n != "meta.json"), "resumed frames equal a fresh run")

    # ---- sensim bench --camera: a JSON line of its own with the camera keys (issue 33) ----
    r = run("bench", "--scene", box, "--camera", "pinhole_720p", "--reps", "1", "--json")
    try:
        cj = json.loads(r.stdout.strip())
    except ValueError:
        cj = {}
    check(r.returncode == 0 and cj.get("camera") == "pinhole_720p" and cj.get("width") == 1280 and
          all(cj.get(k, 0) > 0 for k in ("camera_render_ms", "camera_embree_tiled_ms", "camera_ratio_vs_embree_tiled",
                                         "camera_ns_per_pixel")), "bench --camera --json: %r %r" % (r.stdout, r.stderr))
    r = run("bench", "--scene", box, "--camera", "no_such_camera", "--reps", "1")
    check(r.returncode != 0 and "no_such_camera" in r.stderr, "bench refuses an unknown camera: %r" % r.stderr)
    # ---- sensim bench --json (issue 8) ----
    r = run("bench", "--scene", box, "--lidar", "vlp16", "--reps", "1", "--json")
    try:
        js = json.loads(r.stdout.strip())
    except ValueError:
        js = {}
    check(r.returncode == 0 and all(k in js for k in ("shots_per_s", "points_per_s", "realtime_factor",
                                                    "ratio_vs_embree_best", "ratio_vs_embree_naive", "threads",
                                                    "embree_secondary_ms", "embree_same_rays_ms",
                                                    "ratio_vs_embree_same_rays", "moving_frame_ms",
                                                    "moving_over_static")),
          "bench --json keys: " + r.stdout + r.stderr)
    # the driving frame was measured (its ratio to standing is timing: no bound here)
    check(js.get("moving_frame_ms", 0) > 0 and js.get("moving_over_static", 0) > 0,
          "bench moving: %r ms, %r x standing" % (js.get("moving_frame_ms"), js.get("moving_over_static")))
    check(js.get("shots_per_s", 0) > 0 and js.get("ratio_vs_embree_naive", 0) > 0, "bench figures are positive")
    # the same rays: the best primary loop plus the secondary rays, never less than the best loop alone
    check(js.get("embree_same_rays_ms", 0) >= js.get("embree_best_ms", 1) and js.get("embree_secondary_ms", -1) >= 0,
          "bench same rays: best %r + secondary %r = %r" % (js.get("embree_best_ms"), js.get("embree_secondary_ms"),
                                                             js.get("embree_same_rays_ms")))

    # ---- every corpus input through the CLI: a status, never a signal, one line (issue 9) ----
    corpus = os.path.join(HERE, "corpus")
    garbage = os.path.join(tmp, "garbage")
    os.makedirs(garbage)
    samples = {"empty": b"", "binary": bytes(range(256)) * 4, "huge": b"v 1e999999 -1e999999 nan\nf 1 1 1\n",
               "header": b"ply\nformat ascii 1.0\nelement vertex 99999999999\nend_header\n"}
    for kind, exts in (("obj", [".obj"]), ("ply", [".ply"]), ("csv", [".csv"]), ("preset", [".preset"]),
                       ("trajectory", [".csv"])):
        paths = [os.path.join(corpus, kind, n) for n in sorted(os.listdir(os.path.join(corpus, kind)))]
        for name, data in samples.items():
            pth = os.path.join(garbage, "%s_%s%s" % (kind, name, exts[0]))
            with open(pth, "wb") as f:
                f.write(data)
            paths.append(pth)
        for pth in paths:
            if kind in ("obj", "ply"):
                cmd = ["scan", "--scene", pth, "--lidar", "vlp16", "--out", os.path.join(tmp, "g")]
            elif kind == "csv":
                cmd = ["scan", "--scene", box, "--lidar", pth, "--shot-rate", "1000", "--out", os.path.join(tmp, "g")]
            elif kind == "preset":
                cmd = ["pattern", "stats", pth, "--times", "0.1"]
            else:
                cmd = ["batch", "--scene", box, "--lidar", "vlp16", "--trajectory", pth, "--frames", "0:1",
                       "--out", os.path.join(tmp, "g"), "--quiet"]
            r = run(*cmd)
            ok = r.returncode >= 0 and (r.returncode == 0 or len(r.stderr.strip().splitlines()) == 1)
            ok = ok and r.returncode in (0, 2) + tuple(range(10, 31))
            check(ok, "%s %s: rc %d, stderr %r" % (kind, os.path.basename(pth), r.returncode, r.stderr[:300]))

    # Ctrl-C during `sensim scan`: the running scan is cancelled, files on disk are complete, exit 130
    sdir = os.path.join(tmp, "scan_int")
    p = subprocess.Popen([SENSIM, "scan", "--scene", "street", "--lidar", "pandar128", "--pose", "0,0,1.8,0,0,0", "--count", "200",
                          "--out", sdir], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(1200):  # wait for a state (the first frame on disk), not for a time
        if p.poll() is not None or (os.path.isdir(sdir) and any(n.endswith(".ply") for n in os.listdir(sdir))):
            break
        time.sleep(0.1)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate()
    plys = [n for n in os.listdir(sdir) if n.endswith(".ply")] if os.path.isdir(sdir) else []
    complete = all(len(read_ply(os.path.join(sdir, n))[1]) > 0 for n in plys)
    check(p.returncode == 130 and "interrupted" in err and 0 < len(plys) < 200 and complete
          and not [n for n in os.listdir(sdir) if ".tmp" in n],
          "scan interrupted cleanly: rc %d, %d frames, %r" % (p.returncode, len(plys), err[-200:]))

    # ---- hostile inputs of the reliability issue (12) ----
    def one_line(r):
        return len(r.stderr.strip().splitlines()) == 1

    # a finite but huge pose: a status and one line, not an abort inside Embree
    r = run("scan", "--scene", box, "--lidar", "vlp16", "--pose", "1.9e18,0,1.8,0,0,0", "--out", os.path.join(tmp, "h"))
    check(r.returncode == 15 and one_line(r) and "translation" in r.stderr, "huge --pose: rc %d %r" % (r.returncode, r.stderr))
    r = run("scan", "--scene", box, "--lidar", "vlp16", "--velocity", "1e300,0,0", "--out", os.path.join(tmp, "h"))
    check(r.returncode == 15 and one_line(r), "huge --velocity: rc %d %r" % (r.returncode, r.stderr))
    # frames longer than the uint32 time offset are refused, never wrapped
    r = run("scan", "--scene", box, "--lidar", "mid40", "--set", "frame_rate_hz=0.1", "--out", os.path.join(tmp, "h"))
    check(r.returncode == 15 and one_line(r) and "4.295 s" in r.stderr, "mid40 at 0.1 Hz refused: %r" % r.stderr)
    # trajectory / rig files that are not regular files: refused at once (the timeout only guards a hang)
    fifo = os.path.join(tmp, "fifo.csv")
    os.mkfifo(fifo)
    for what, path in (("FIFO", fifo), ("device", "/dev/zero"), ("directory", tmp)):
        for opt in ("--trajectory", "--rig"):
            args = ["batch", "--scene", box, "--out", os.path.join(tmp, "h2"), "--trajectory", traj]
            args += ["--rig", path] if opt == "--rig" else ["--lidar", "vlp16"]
            if opt == "--trajectory":
                args[args.index("--trajectory") + 1] = path
            try:
                r = subprocess.run([SENSIM, *args], capture_output=True, text=True, timeout=30)
                ok = r.returncode == 13 and one_line(r) and "not a regular file" in r.stderr
                msg = r.stderr
            except subprocess.TimeoutExpired:
                ok, msg = False, "hung"
            check(ok, "%s %s: %s" % (opt, what, msg))
    # silently accepted once: text after a NUL, rig headers with stray characters, --frames 0:1:2, huge quaternions
    nul = os.path.join(tmp, "nul.csv")
    with open(nul, "wb") as f:
        f.write(b"t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n1,1,0,0,0,0,0\x00,99\n2,2,0,0,0,0,0\n")
    r = run("batch", "--scene", box, "--lidar", "vlp16", "--trajectory", nul, "--out", os.path.join(tmp, "h3"))
    check(r.returncode == 14 and "nul.csv:3" in r.stderr and "NUL" in r.stderr, "NUL in trajectory: %r" % r.stderr)
    quat = os.path.join(tmp, "quat.csv")
    with open(quat, "w") as f:
        f.write("t,x,y,z,qw,qx,qy,qz\n0,0,0,0,1,0,0,0\n1,0,0,0,1e200,0,0,1e200\n")
    r = run("batch", "--scene", box, "--lidar", "vlp16", "--trajectory", quat, "--out", os.path.join(tmp, "h3"))
    check(r.returncode == 14 and "quat.csv:3" in r.stderr and "norm" in r.stderr, "huge quaternion: %r" % r.stderr)
    qrig = os.path.join(tmp, "quote.rig")
    with open(qrig, "w") as f:
        f.write('[sensor a"b]\npreset = vlp16\n')
    r = run("batch", "--scene", box, "--rig", qrig, "--trajectory", traj, "--out", os.path.join(tmp, "h3"))
    check(r.returncode == 14 and "quote.rig:1" in r.stderr, "rig header with a quote: %r" % r.stderr)
    r = run("batch", "--scene", box, "--lidar", "vlp16", "--trajectory", traj, "--frames", "0:1:2",
            "--out", os.path.join(tmp, "h3"))
    check(r.returncode == 2, "--frames 0:1:2 is a usage error")

    # a folder holds one run: resume with another lidar is refused and leaves the first run untouched
    first = os.path.join(tmp, "onerun")
    r = run("batch", "--scene", box, "--lidar", "vlp16", "--trajectory", traj, "--out", first, "--frames", "0:2",
            "--quiet")
    check(r.returncode == 0, "first run " + r.stderr)

    def snapshot(d):
        out = {}
        for n in sorted(os.listdir(d)):
            with open(os.path.join(d, n), "rb") as f:
                out[n] = f.read()
        return out
    before = snapshot(first)
    r = run("batch", "--scene", box, "--lidar", "pandar64", "--trajectory", traj, "--out", first, "--frames", "0:4",
            "--resume", "--quiet")
    check(r.returncode == 30 and one_line(r) and "pandar64" in r.stderr and "vlp16" in r.stderr,
          "resume with another --lidar refused, naming both: %r" % r.stderr)
    check(snapshot(first) == before, "the first run's files are untouched")
    r = run("batch", "--scene", box, "--lidar", "vlp16", "--trajectory", traj, "--out", first, "--frames", "0:2",
            "--quiet")
    check(r.returncode == 30 and "--resume" in r.stderr, "rerun without --resume refused: %r" % r.stderr)
    r = run("batch", "--scene", box, "--lidar", "vlp16", "--trajectory", traj, "--out", first, "--frames", "0:3",
            "--resume", "--quiet")
    check(r.returncode == 0 and snapshot(first)["frame_000000.ply"] == before["frame_000000.ply"]
          and "frame_000002.ply" in os.listdir(first), "resume of the same run continues it")
    r = run("batch", "--scene", box, "--lidar", "pandar64", "--trajectory", traj, "--out", first, "--frames", "0:1",
            "--overwrite", "--quiet")
    with open(os.path.join(first, "meta.json")) as f:
        check(r.returncode == 0 and "pandar64" in f.read(), "--overwrite renders the new run")
    # a FIFO planted as meta.json is refused at once, not read (the timeout only guards a hang)
    fifodir = os.path.join(tmp, "fifodir")
    os.makedirs(fifodir)
    os.mkfifo(os.path.join(fifodir, "meta.json"))
    try:
        r = subprocess.run([SENSIM, "batch", "--scene", box, "--lidar", "vlp16", "--trajectory", traj, "--out",
                            fifodir, "--frames", "0:1", "--quiet"], capture_output=True, text=True, timeout=60)
        ok, msg = r.returncode == 13 and one_line(r) and "not a regular file" in r.stderr, r.stderr
    except subprocess.TimeoutExpired:
        ok, msg = False, "hung"
    check(ok, "meta.json FIFO: " + msg)
    # temporaries are created exclusively: a symlink planted under a temporary's old fixed name is not followed
    planted = os.path.join(tmp, "planted")
    victim = os.path.join(tmp, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep me")
    os.makedirs(planted)
    os.symlink(victim, os.path.join(planted, "frame_000000.json.tmp"))
    os.symlink(victim, os.path.join(planted, "frame_000000.ply.tmp"))
    r = run("batch", "--scene", box, "--lidar", "vlp16", "--trajectory", traj, "--out", planted, "--frames", "0:1",
            "--overwrite", "--quiet")
    with open(victim) as f:
        check(r.returncode == 0 and f.read() == "keep me", "planted symlinks are not followed " + r.stderr)
    # meta.json is valid UTF-8 JSON whatever bytes the paths hold
    odd = os.path.join(tmp.encode(), b"sc\xffene\x01.obj")
    with open(box, "rb") as src, open(odd, "wb") as dst:
        dst.write(src.read())
    oddout = os.path.join(tmp, "oddout")
    r = subprocess.run([SENSIM.encode(), b"batch", b"--scene", odd, b"--lidar", b"vlp16", b"--trajectory",
                        traj.encode(), b"--out", oddout.encode(), b"--frames", b"0:1", b"--quiet"], capture_output=True)
    try:
        with open(os.path.join(oddout, "meta.json"), "rb") as f:
            meta = json.loads(f.read().decode("utf-8", errors="strict"))
        ok = meta["scene"].endswith("sc\ufffdene\x01.obj")
    except (ValueError, OSError, KeyError):
        ok = False
    check(r.returncode == 0 and ok, "meta.json is UTF-8 JSON for any path bytes")
    # when only the per-frame JSON cannot be written, the message names it (was "sensim: error: " on
    # another thread's empty error text), no temporary stays and the summary does not count the frame
    blocked = os.path.join(tmp, "blocked")
    os.makedirs(os.path.join(blocked, "frame_000000.json"))  # a directory where the JSON must go
    r = run("batch", "--scene", box, "--lidar", "vlp16", "--trajectory", traj, "--out", blocked, "--frames", "0:1",
            "--overwrite")
    msg = [m for m in r.stderr.strip().splitlines() if m.startswith("sensim: error:")]
    check(r.returncode == 13 and msg and "frame_000000.json" in msg[0] and "0 frames" in r.stderr
          and not [n for n in os.listdir(blocked) if ".tmp" in n], "writer errors carry a message: %r" % r.stderr)



# ---- cameras: sensim render
with tempfile.TemporaryDirectory() as tmp:
    wall = os.path.join(tmp, "wall.obj")
    with open(wall, "w") as f:  # a wall 10 m ahead, a car-tagged box (actor-free: object id 0) in front of it
        f.write("o wall\nv 10 -50 -50\nv 10 50 -50\nv 10 50 50\nv 10 -50 50\nf 1 2 3 4\n")
    out = os.path.join(tmp, "cam")
    r = run("render", "--scene", wall, "--camera", "carla_default", "--outputs", "depth", "--out", out)
    png = os.path.join(out, "depth", "000000.png")
    check(r.returncode == 0 and os.path.exists(png), "render writes depth/000000.png: %r" % r.stderr)
    if os.path.exists(png):
        w, h, ch, rows = read_png(png)
        dec = lambda x, y: (rows[y][3 * x] + 256 * rows[y][3 * x + 1] + 65536 * rows[y][3 * x + 2]) / 16777215.0 * 1000
        check((w, h, ch) == (800, 600, 3), "carla_default is 800x600 RGB")
        for x, y in [(400, 300), (0, 0), (799, 0), (0, 599), (799, 599)]:
            check(abs(dec(x, y) - 10.0) < 1e-3, "planar depth at pixel (%d, %d) decodes to 10 m: %.6f" % (x, y, dec(x, y)))
        with open(os.path.join(out, "depth", "000000.pfm"), "rb") as f:
            hdr = [f.readline() for _ in range(3)]
            vals = struct.unpack("<%df" % (800 * 600), f.read())
        check(hdr == [b"Pf\n", b"800 600\n", b"-1.0\n"] and max(abs(v - 10) for v in vals) < 1e-4,
              "depth PFM holds float metres")
        info = json.load(open(os.path.join(out, "000000.json")))["camera_info"]
        check(abs(info["K"][0] - 400) < 1e-9 and info["K"][2] == 399.5 and info["K"][5] == 299.5 and info["P"][3] == 0 and
              info["distortion_model"] == "plumb_bob", "CameraInfo K/P written: %r" % info)
    # semantic raw (tag in R) and instance (R tag, G/B id) follow CARLA; the CityScapes image uses the palette
    out2 = os.path.join(tmp, "cam2")
    r = run("render", "--scene", wall, "--outputs", "semantic,instance", "--out", out2, "--set", "width=64",
            "--set", "height=48")
    ok = r.returncode == 0
    if ok:
        _, _, _, sem = read_png(os.path.join(out2, "semantic", "000000.png"))
        _, _, _, pal = read_png(os.path.join(out2, "semantic_cityscapes", "000000.png"))
        _, _, _, ins = read_png(os.path.join(out2, "instance", "000000.png"))
        ok = sem[24][96:99] == bytes([4, 0, 0]) and pal[24][96:99] == bytes([102, 102, 156]) and \
            ins[24][96:99] == bytes([4, 0, 0])
    check(ok, "semantic R = tag 4 (Wall), CityScapes (102, 102, 156), instance (tag, id lo, id hi): %r" % r.stderr)
    # planted temporaries are never followed: symlinks named like the writer's old temporaries point at a
    # victim file; the render writes through exclusive new names and the victim keeps its bytes
    out5 = os.path.join(tmp, "planted")
    os.makedirs(os.path.join(out5, "depth"))
    victim = os.path.join(tmp, "victim.txt")
    with open(victim, "w") as f:
        f.write("keep me")
    for name in ("depth/000000.pfm.tmp", "depth/000000.png.tmp", "000000.json.tmp"):
        os.symlink(victim, os.path.join(out5, name))
    r = run("render", "--scene", wall, "--outputs", "depth", "--out", out5, "--set", "width=32", "--set", "height=24")
    check(r.returncode == 0 and open(victim).read() == "keep me" and
          os.path.getsize(os.path.join(out5, "depth", "000000.pfm")) > 32 * 24 * 4,
          "render does not follow planted temporaries: %r" % r.stderr)

    # camera files: key = value with FILE:LINE errors; bad outputs and keys refused
    camf = os.path.join(tmp, "cam.txt")
    with open(camf, "w") as f:
        f.write("preset = pinhole_720p\n# a comment\nwidth = 320\nheight = 200\nfov = 60\n")
    r = run("render", "--scene", wall, "--camera", camf, "--outputs", "depth", "--out", os.path.join(tmp, "c3"))
    j = json.load(open(os.path.join(tmp, "c3", "000000.json"))) if r.returncode == 0 else {}
    check(r.returncode == 0 and j["camera_info"]["width"] == 320 and
          abs(j["camera_info"]["K"][0] - 160 / math.tan(math.radians(30))) < 1e-9, "camera file read: %r" % r.stderr)
    with open(camf, "w") as f:
        f.write("width = 320\nfov = wide\n")
    r = run("render", "--scene", wall, "--camera", camf, "--out", os.path.join(tmp, "c4"))
    check(r.returncode == 14 and "cam.txt:2:" in r.stderr and "fov" in r.stderr, "camera file error names line: %r" % r.stderr)
    with open(camf, "wb") as f:
        f.write(b"width = 3\x0020\n")
    r = run("render", "--scene", wall, "--camera", camf, "--out", os.path.join(tmp, "c5"))
    check(r.returncode == 14 and "cam.txt:1: NUL" in r.stderr, "NUL in a camera file refused: %r" % r.stderr)
    with open(camf, "w") as f:
        f.write("width = 320\npreset = fisheye_190\n")
    r = run("render", "--scene", wall, "--camera", camf, "--out", os.path.join(tmp, "c8"))
    check(r.returncode == 14 and "cam.txt:2: preset must come before" in r.stderr, "late preset refused: %r" % r.stderr)
    with open(camf, "w") as f:
        f.write("width = 320\nheight = 200\nwidth = 640\n")
    r = run("render", "--scene", wall, "--camera", camf, "--out", os.path.join(tmp, "c9"))
    check(r.returncode >= 10 and "cam.txt:3: key 'width' given twice" in r.stderr,
          "a camera key given twice is refused: %r" % r.stderr)
    fifo = os.path.join(tmp, "fifo.cam")
    os.mkfifo(fifo)
    r = subprocess.run([SENSIM, "render", "--scene", wall, "--camera", fifo, "--out", os.path.join(tmp, "c9")],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 13 and "not a regular file (a FIFO)" in r.stderr, "a FIFO as camera file: no hang: %r" % r.stderr)
    r = run("render", "--scene", wall, "--outputs", "depth,thermal", "--out", os.path.join(tmp, "c6"))
    check(r.returncode == 2 and "thermal" in r.stderr and not os.path.exists(os.path.join(tmp, "c6")),
          "unknown output refused before anything is written")
    r = run("render", "--scene", wall, "--camera", "no_such_camera", "--out", os.path.join(tmp, "c7"))
    check(r.returncode == 25 and "carla_default" in r.stderr, "unknown camera names the presets: %r" % r.stderr)

# ---- cameras in batch rigs: the synchronized-collection layout
with tempfile.TemporaryDirectory() as tmp:
    wall = os.path.join(tmp, "wall.obj")
    with open(wall, "w") as f:  # a wall 20 m ahead
        f.write("o wall\nv 20 -80 -50\nv 20 80 -50\nv 20 80 50\nv 20 -80 50\nf 1 2 3 4\n")
    rig = os.path.join(tmp, "rig.ini")
    with open(rig, "w") as f:
        f.write("[sensor top]\npreset = vlp16\nmount_xyz_m = 0, 0, 1.8\n\n"
                "[sensor front]\ntype = camera\nwidth = 160\nheight = 120\nrate_hz = 20\n"
                "outputs = depth, semantic\nmount_xyz_m = 1, 0, 1.4\n")
    trj = os.path.join(tmp, "traj.csv")
    with open(trj, "w") as f:  # 5 m/s towards the wall for 1 s
        f.write("t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n1,5,0,0,0,0,0\n")
    out = os.path.join(tmp, "run")
    r = run("batch", "--scene", wall, "--rig", rig, "--trajectory", trj, "--out", out, "--quiet")
    check(r.returncode == 0, "batch with a camera in the rig: %r" % r.stderr)
    caps = sorted(os.listdir(os.path.join(out, "front", "depth"))) if r.returncode == 0 else []
    check(caps == ["%06d.%s" % (k, e) for k in range(20) for e in ("pfm", "png")],
          "20 Hz camera over 1 s: captures 0..19 as depth/NNNNNN.png + .pfm: %r" % caps[:4])
    worst = 0.0
    for k in range(20) if caps else []:
        w, h, ch, rows = read_png(os.path.join(out, "front", "depth", "%06d.png" % k))
        d = (rows[60][240] + 256 * rows[60][241] + 65536 * rows[60][242]) / 16777215.0 * 1000
        worst = max(worst, abs(d - (19.0 - 5.0 * k * 0.05)))  # camera at x = 1 + 5 t
        j = json.load(open(os.path.join(out, "front", "%06d.json" % k)))
        check(j["t_ns"] == k * 50000000 and abs(j["sensor_pose"][12] - (1 + 0.25 * k)) < 1e-9 and
              j["camera_info"]["K"][2] == 79.5, "capture %d: time, pose and CameraInfo in its JSON" % k)
    check(caps and worst < 1e-3, "each capture sees the wall at its own time: worst %.2e m" % worst)
    steps = sorted(os.listdir(os.path.join(out, "steps"))) if r.returncode == 0 else []
    meta = json.load(open(os.path.join(out, "meta.json"))) if r.returncode == 0 else {}
    check(len(steps) == 20 and meta.get("world_step_ns") == 50000000,
          "one JSON per world step (the shortest sensor period, 50 ms): %d" % len(steps))
    ok = True
    for sidx in range(len(steps)):
        j = json.load(open(os.path.join(out, "steps", "%06d.json" % sidx)))
        names = [(e["name"], e["frame"], e["t_begin_ns"]) for e in j["sensors"]]
        want = ([("top", sidx // 2, sidx * 50000000)] if sidx % 2 == 0 else []) + [("front", sidx, sidx * 50000000)]
        ok = ok and names == want and j["t_begin_ns"] == sidx * 50000000
        for e in j["sensors"]:
            ok = ok and os.path.exists(os.path.join(out, e["files"] + ".json"))
    check(steps and ok, "each step lists exactly the lidar frames and captures starting in it, with their files")
    # two shards write the same bytes as one run
    sh = os.path.join(tmp, "sharded")
    rs = [run("batch", "--scene", wall, "--rig", rig, "--trajectory", trj, "--out", sh, "--quiet", "--shard", "%d/2" % k)
          for k in range(2)]
    same = all(x.returncode == 0 for x in rs)
    for sub in ["steps", "front", os.path.join("front", "depth"), os.path.join("front", "semantic")]:
        a, b = (sorted(os.listdir(os.path.join(d, sub))) if os.path.isdir(os.path.join(d, sub)) else None for d in (out, sh))
        same = same and a == b and all(open(os.path.join(out, sub, n), "rb").read() ==
                                       open(os.path.join(sh, sub, n), "rb").read()
                                       for n in a if not os.path.isdir(os.path.join(out, sub, n)))
    check(same, "shards 0/2 and 1/2 together write the same captures and steps as one run: %r" % [x.stderr for x in rs])
    # captures are encoded and written by the image sink's threads (as many as --threads): every file of a
    # run with all five outputs has the same bytes on 1 and 2 threads; the summary says where time went
    rig5 = os.path.join(tmp, "rig5.ini")
    with open(rig5, "w") as f:
        f.write("[sensor top]\npreset = vlp16\nmount_xyz_m = 0, 0, 1.8\n\n"
                "[sensor front]\ntype = camera\nwidth = 160\nheight = 120\nrate_hz = 20\n"
                "outputs = depth, semantic, instance, normal, rgb\nmount_xyz_m = 1, 0, 1.4\n")
    trees = []
    for nt in ("1", "2"):
        o = os.path.join(tmp, "threads" + nt)
        r = run("batch", "--scene", wall, "--rig", rig5, "--trajectory", trj, "--out", o, "--threads", nt)
        check(r.returncode == 0 and re.search(r"stepping [0-9.]+ s, handing frames over [0-9.]+ s, waiting for the "
                                              r"writers [0-9.]+ s; writer threads: lidar frames [0-9.]+ s, images "
                                              r"[0-9.]+ MB: encoding [0-9.]+ s CPU on %s threads, writing" % nt,
                                              r.stderr),
              "--threads %s: the summary splits stepping, hand-over, waiting, encoding, writing: %r" % (nt, r.stderr))
        trees.append({os.path.relpath(os.path.join(a, n), o): open(os.path.join(a, n), "rb").read()
                      for a, _, fs in os.walk(o) for n in fs})
    check(len(trees[0]) == len(trees[1]) == 10 * 2 + 20 * 8 + 20 + 2 and trees[0] == trees[1],
          "--threads 1 and 2 write the same %d files (meta.json and the lock too), byte for byte (images encoded in parallel)" % len(trees[0]))
    r = run("batch", "--scene", wall, "--rig", rig, "--trajectory", trj, "--out", out, "--resume")
    check(r.returncode == 0 and "30 frames (30 resumed)" in r.stderr, "--resume skips finished captures: %r" % r.stderr)
    # batch is a driver over the library's rig: world steps of 50 ms number the frames' steps as a host's rig does
    with open(os.path.join(out, "top", "frame_000003.ply"), "rb") as f:
        head = f.read(2000)
    check(b"comment world_steps 6 7\n" in head, "lidar frame 3 (0.3..0.4 s) spans world steps 6 and 7 of 50 ms")
    bad = [("type = sonar\n", "type must be lidar, camera"), ("rate_hz = 0\n", "rate_hz must be"),
           ("fov = wide\n", "'front'"), ("outputs = depth,thermal\n", "thermal")]
    for line, msg in bad:
        with open(rig, "w") as f:
            f.write("[sensor front]\ntype = camera\n" + line)
        r = run("batch", "--scene", wall, "--rig", rig, "--trajectory", trj, "--out", os.path.join(tmp, "bad"))
        check(r.returncode not in (0, 1) and msg in r.stderr and not os.path.exists(os.path.join(tmp, "bad")),
              "bad camera rig line %r refused before anything is written: %r" % (line, r.stderr))
    with open(rig, "w") as f:
        f.write("[sensor steps]\ntype = camera\n")
    r = run("batch", "--scene", wall, "--rig", rig, "--trajectory", trj, "--out", os.path.join(tmp, "bad"))
    check(r.returncode != 0 and "'steps'" in r.stderr, "a sensor named steps is refused: %r" % r.stderr)

# ---- navigation sensors in batch rigs: one CSV stream per sensor
with tempfile.TemporaryDirectory() as tmp:
    rig = os.path.join(tmp, "rig.ini")
    with open(rig, "w") as f:
        f.write("[sensor imu]\ntype = imu\nrate_hz = 100\n\n[sensor gps]\ntype = gnss\nlatitude = 48\n"
                "longitude = 11\naltitude = 500\nmount_xyz_m = 0, 0, 1.5\n\n[sensor odom]\ntype = odometry\n"
                "rate_hz = 50\n")
    trj = os.path.join(tmp, "traj.csv")
    with open(trj, "w") as f:  # 10 s at a constant 10 m/s east
        f.write("t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n10,100,0,0,0,0,0\n")
    out = os.path.join(tmp, "run")
    r = run("batch", "--scene", "street", "--rig", rig, "--trajectory", trj, "--out", out, "--quiet")
    check(r.returncode == 0, "batch with an IMU, a GNSS and odometry: %r" % r.stderr)
    rows = list(csv.reader(open(os.path.join(out, "imu", "imu.csv")))) if r.returncode == 0 else [[]]
    hdr = rows[0]
    check(all(c in hdr for c in ("t_ns", "ax", "ay", "az", "gx", "gy", "gz")), "imu.csv header names the columns: %r" % hdr)
    data = rows[1:]
    check(len(data) == 1000 and all(int(row[0]) == k * 10000000 for k, row in enumerate(data)),
          "1000 IMU rows at t = k x 10 ms: %d" % len(data))
    ok = all(abs(float(row[hdr.index("ax")])) < 1e-9 and abs(float(row[hdr.index("ay")])) < 1e-9 and
             abs(float(row[hdr.index("az")]) - 9.80665) < 1e-9 and
             all(abs(float(row[hdr.index(g)])) < 1e-12 for g in ("gx", "gy", "gz")) for row in data)
    check(data and ok, "constant velocity: specific force (0, 0, +g), zero rates")
    g = list(csv.reader(open(os.path.join(out, "gps", "gnss.csv")))) if r.returncode == 0 else [[], []]
    check(len(g) == 101 and g[0] == ["t_ns", "latitude_deg", "longitude_deg", "altitude_m"], "GNSS at 10 Hz: %d rows" % len(g))
    try:  # an independent WGS84 implementation: GeographicLib's CartConvert (Debian geographiclib-tools)
        k = 37
        ref = subprocess.run(["CartConvert", "-r", "-l", "48", "11", "500", "-p", "12"], input="%r 0 1.5\n" % (k * 1.0),
                             capture_output=True, text=True).stdout.split()
        lat, lon, alt = (float(v) for v in g[1 + k][1:])
        check(abs(lat - float(ref[0])) < 1e-9 and abs(lon - float(ref[1])) < 1e-9 and abs(alt - float(ref[2])) < 1e-6,
              "GNSS sample 37 (37 m east, antenna 1.5 m up) matches GeographicLib: %r vs %r" % (g[1 + k], ref))
    except (OSError, IndexError, ValueError) as e:
        check(False, "CartConvert reference: %r" % e)
    o = list(csv.reader(open(os.path.join(out, "odom", "odometry.csv")))) if r.returncode == 0 else [[], []]
    check(len(o) == 501 and abs(float(o[100][o[0].index("vx")]) - 10) < 1e-9 and abs(float(o[100][o[0].index("x")]) -
          (99 * 0.02 * 10)) < 1e-9, "odometry at 50 Hz: velocity 10 m/s, position 10 t")
    meta = json.load(open(os.path.join(out, "meta.json"))) if r.returncode == 0 else {}
    check([x.get("type") for x in meta.get("sensors", [])] == ["imu", "gnss", "odometry"], "meta.json lists their types")
    sh = os.path.join(tmp, "sharded")
    rs = [run("batch", "--scene", "street", "--rig", rig, "--trajectory", trj, "--out", sh, "--quiet", "--shard",
              "%d/2" % k) for k in range(2)]
    same = all(x.returncode == 0 for x in rs) and all(
        open(os.path.join(out, n), "rb").read() == open(os.path.join(sh, n), "rb").read()
        for n in ("imu/imu.csv", "gps/gnss.csv", "odom/odometry.csv", "steps/000123.json"))
    check(same, "two shards write the same streams and steps as one run: %r" % [x.stderr for x in rs])
    for line, msg in [("noise_gyro_stddev_q = 1\n", "noise_gyro_stddev_q"), ("latitude = 95\n", "latitude"),
                      ("preset = vlp16\n", "no preset"), ("rate_hz = fast\n", "rate_hz")]:
        with open(rig, "w") as f:
            f.write("[sensor imu]\ntype = imu\n" + line)
        r = run("batch", "--scene", "street", "--rig", rig, "--trajectory", trj, "--out", os.path.join(tmp, "bad"))
        check(r.returncode >= 10 and msg in r.stderr and not os.path.exists(os.path.join(tmp, "bad")),
              "bad navigation line %r refused: %r" % (line, r.stderr))

# ---- radar in batch rigs: one CSV of detections per sensor
with tempfile.TemporaryDirectory() as tmp:
    rig = os.path.join(tmp, "rig.ini")
    with open(rig, "w") as f:
        f.write("[sensor front]\ntype = radar\nmount_xyz_m = 2, 0, 0.5\npoints_per_second = 3000\n")
    trj = os.path.join(tmp, "traj.csv")
    with open(trj, "w") as f:  # 10 m/s along x for 2 s
        f.write("t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n2,20,0,0,0,0,0\n")
    out = os.path.join(tmp, "run")
    r = run("batch", "--scene", "street", "--rig", rig, "--trajectory", trj, "--out", out, "--quiet")
    rows = list(csv.reader(open(os.path.join(out, "front", "radar.csv")))) if r.returncode == 0 else [[]]
    check(r.returncode == 0 and rows[0][:6] == ["t_ns", "sample", "depth_m", "azimuth_rad", "altitude_rad", "velocity_mps"],
          "radar.csv with a header: %r" % r.stderr)
    det = rows[1:]
    samples = sorted(set(int(x[1]) for x in det))
    worst = max([abs(float(x[5]) + 10 * math.cos(float(x[3])) * math.cos(float(x[4]))) for x in det if x[8] == "0"] or [1])
    check(len(det) > 100 and samples == list(range(40)) and all(int(x[0]) == int(x[1]) * 50000000 for x in det),
          "20 Hz radar over 2 s: samples 0..39 at k x 50 ms (%d detections)" % len(det))
    check(worst < 1e-3, "static world seen from 10 m/s: velocity = -10 cos(az) cos(alt), worst %.2e" % worst)

# ---- batch drives one rig: shards, --resume and --frames cut its world steps, never its sensors' streams
with tempfile.TemporaryDirectory() as tmp:
    rig = os.path.join(tmp, "rig.ini")
    with open(rig, "w") as f:
        f.write("[sensor top]\npreset = vlp16\nmount_xyz_m = 0, 0, 1.8\n[sensor cam]\ntype = camera\nwidth = 32\n"
                "height = 24\nrate_hz = 20\noutputs = depth, instance\n[sensor imu]\ntype = imu\nrate_hz = 100\n"
                "[sensor front]\ntype = radar\npoints_per_second = 4000\nmount_xyz_m = 2, 0, 0.7\n")
    trj = os.path.join(tmp, "traj.csv")
    with open(trj, "w") as f:  # a curve: the motion model matters
        f.write("t,x,y,z,roll,pitch,yaw\n" + "".join("%g,%g,%g,0,0,0,%g\n" % (0.1 * i, 2.0 * i, 0.05 * i * i, 2.0 * i)
                                                     for i in range(8)))

    def tree(d):
        out = {}
        for a, _, fs in os.walk(d):
            for n in fs:
                with open(os.path.join(a, n), "rb") as f:
                    out[os.path.relpath(os.path.join(a, n), d)] = f.read()
        return out
    one = os.path.join(tmp, "one")
    r = run("batch", "--scene", "street", "--rig", rig, "--trajectory", trj, "--out", one, "--quiet")
    check(r.returncode == 0, "a rig of lidar, camera, IMU and radar: %r" % r.stderr)
    ref = tree(one)
    imu_rows = ref.get(os.path.join("imu", "imu.csv"), b"").count(b"\n") - 1
    check(imu_rows == 70 and len([n for n in ref if n.startswith("top") and n.endswith(".ply")]) == 7 and
          len([n for n in ref if n.startswith(os.path.join("cam", "depth")) and n.endswith(".png")]) == 14,
          "0.7 s: 70 IMU samples, 7 lidar frames, 14 captures (%d IMU rows)" % imu_rows)
    sh = os.path.join(tmp, "sh")
    rs = [run("batch", "--scene", "street", "--rig", rig, "--trajectory", trj, "--out", sh, "--quiet", "--shard",
              "%d/3" % k) for k in range(3)]
    got = tree(sh)
    check(all(x.returncode == 0 for x in rs) and got == ref,
          "3 shards (contiguous blocks of world steps) write the single run's bytes, streams included: %r"
          % (sorted(set(ref) ^ set(got))[:4] or [n for n in ref if ref[n] != got.get(n)][:4]))
    for n in (os.path.join("top", "frame_000004.ply"), os.path.join("top", "frame_000004.json"),
              os.path.join("cam", "000009.json"), os.path.join("imu", "imu.csv")):
        os.remove(os.path.join(sh, n))
    r = run("batch", "--scene", "street", "--rig", rig, "--trajectory", trj, "--out", sh, "--resume")
    check(r.returncode == 0 and tree(sh) == ref and "(" in r.stderr,
          "--resume after losing a lidar frame, a capture's JSON and the IMU stream restores the same bytes: %r"
          % r.stderr[-300:])
    part = os.path.join(tmp, "part")
    r = run("batch", "--scene", "street", "--rig", rig, "--trajectory", trj, "--out", part, "--quiet",
            "--frames", "20:40")
    got = tree(part)
    frames = sorted(n for n in got if n.startswith("top") and n.endswith(".ply"))
    caps = sorted(n for n in got if n.startswith(os.path.join("cam", "depth")) and n.endswith(".png"))
    check(r.returncode == 0 and frames == [os.path.join("top", "frame_%06d.ply" % k) for k in (2, 3)] and
          caps == [os.path.join("cam", "depth", "%06d.png" % k) for k in (4, 5, 6, 7)] and
          all(got[n] == ref[n] for n in frames + caps),
          "--frames 20:40 selects world steps 20..39 (10 ms, the IMU's period): lidar frames 2, 3 and captures 4..7, "
          "the full run's bytes: %r %r" % (frames, caps))

# ---- moving actors in batch: a car approaching a radar and a camera
with tempfile.TemporaryDirectory() as tmp:
    wall = os.path.join(tmp, "wall.obj")
    with open(wall, "w") as f:
        f.write("o wall\nv 80 -80 -50\nv 80 80 -50\nv 80 80 50\nv 80 -80 50\nf 1 2 3 4\n")
    with open(os.path.join(tmp, "car.csv"), "w") as f:  # 10 m/s towards the origin
        f.write("t,x,y,z,roll,pitch,yaw\n0,40,0,0,0,0,180\n1,30,0,0,0,0,180\n")
    act = os.path.join(tmp, "actors.ini")
    with open(act, "w") as f:
        f.write("[actor car]\nid = 5\ntag = Car\nmesh = box 4.5 1.8 1.5\ntrajectory = car.csv\n")
    rig = os.path.join(tmp, "rig.ini")
    with open(rig, "w") as f:
        f.write("[sensor front]\ntype = radar\npoints_per_second = 20000\nmount_xyz_m = 0, 0, 0.7\n\n"
                "[sensor cam]\ntype = camera\nwidth = 64\nheight = 48\nrate_hz = 10\noutputs = depth, instance\n"
                "mount_xyz_m = 0, 0, 0.7\n")
    trj = os.path.join(tmp, "traj.csv")
    with open(trj, "w") as f:  # the platform stands still
        f.write("t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n1,0,0,0,0,0,0\n")
    out = os.path.join(tmp, "run")
    r = run("batch", "--scene", wall, "--rig", rig, "--trajectory", trj, "--actors", act, "--out", out, "--quiet")
    rows = list(csv.reader(open(os.path.join(out, "front", "radar.csv"))))[1:] if r.returncode == 0 else []
    car = [x for x in rows if x[8] == "5"]
    check(r.returncode == 0 and len(car) > 50 and all(abs(float(x[5]) + 10) < 0.05 for x in car),
          "an actor file moves a car: the radar reads -10 m/s on it (%d detections): %r" % (len(car), r.stderr))
    dist = {int(x[1]): float(x[2]) for x in car if abs(float(x[3])) < 0.01 and abs(float(x[4])) < 0.05}
    check(dist and all(abs(d - (40 - 10 * k * 0.05 - 2.25)) < 0.05 for k, d in dist.items()),
          "the car's rear face is where its trajectory puts it at each sample: %r" % dist)
    if r.returncode == 0:
        _, _, _, ins = read_png(os.path.join(out, "cam", "instance", "000005.png"))
        check(any(ins[24][3 * x + 1] == 5 for x in range(64)), "the camera sees actor 5 in its instance image")
    for text, msg in [("[actor car]\nid = 0\n", "id must be"), ("[actor car]\nid = 3\ntag = Boat\n", "Boat"),
                      ("[actor car]\nid = 3\nmesh = box 1 2\n", "box L W H"),
                      ("[actor car]\nid = 3\nmesh = box 1 1 1\n", "needs trajectory"),
                      ("[actor a]\nid = 3\nmesh = box 1 1 1\ntrajectory = car.csv\n[actor b]\nid = 3\n"
                       "mesh = box 1 1 1\ntrajectory = car.csv\n", "unique id"),
                      ("[actor car]\nspeed = 3\n", "unknown actor key"),
                      ("[actor car]\nid = 3\nid = 4\n", "actors.ini:3: key 'id' given twice")]:
        with open(act, "w") as f:
            f.write(text)
        r = run("batch", "--scene", wall, "--rig", rig, "--trajectory", trj, "--actors", act, "--out",
                os.path.join(tmp, "bad"))
        check(r.returncode >= 10 and msg in r.stderr and not os.path.exists(os.path.join(tmp, "bad")),
              "bad actor file %r refused: %r" % (text, r.stderr))

    # past the old fixed cap of 256: 300 parked boxes in a row, each seen by the camera's instance image or
    # counted in meta.json; the actor file's budget (65536 actors) refused by name, before any output
    with open(os.path.join(tmp, "park.csv"), "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n1,0,0,0,0,0,0\n")
    with open(act, "w") as f:
        for i in range(300):
            f.write("[actor a%d]\nid = %d\nmesh = box 0.5 0.5 0.5\ntrajectory = park.csv\n" % (i, 1000 + i))
    many = os.path.join(tmp, "many")
    r = run("batch", "--scene", wall, "--rig", rig, "--trajectory", trj, "--actors", act, "--out", many, "--quiet")
    meta = json.load(open(os.path.join(many, "meta.json"))) if r.returncode == 0 else {}
    check(r.returncode == 0 and meta.get("actors") == 300, "300 actors (past the old cap of 256): %r %r"
          % (r.stderr[-300:], meta.get("actors")))
    with open(act, "w") as f:
        f.write("".join("[actor a%d]\nid = %d\nmesh = box 1 1 1\ntrajectory = park.csv\n" % (i, 1 + i)
                        for i in range(65537)))
    r = run("batch", "--scene", wall, "--rig", rig, "--trajectory", trj, "--actors", act, "--out",
            os.path.join(tmp, "toomany"))
    check(r.returncode == 10 + 4 and "actors.ini:262145: more than 65536 actors" in r.stderr and
          not os.path.exists(os.path.join(tmp, "toomany")), "65537 actors refused by line: %r" % r.stderr[-300:])

# ---- offline commands flatten parked actors by default (--flatten-actors 0: off)
with tempfile.TemporaryDirectory() as tmp:
    pts = {}
    for name, extra in (("flat", []), ("inst", ["--flatten-actors", "0"])):
        r = run("scan", "--scene", "street", "--lidar", "pandar64", "--out", os.path.join(tmp, name), "--threads", "1",
                "--pose", "1.5,0.5,1.8,0,0,0", *extra)
        pts[name] = read_ply(os.path.join(tmp, name, "frame_000000.ply"))[1] if r.returncode == 0 else []
    a, b = pts["flat"], pts["inst"]
    same_order = len(a) == len(b) > 100000 and all(p["channel"] == q["channel"] and p["object_id"] == q["object_id"]
                                                  for p, q in zip(a, b))
    moved = [max(abs(p[k] - q[k]) for k in ("x", "y", "z", "range")) for p, q in zip(a, b)] if same_order else [1]
    check(same_order and 0 < max(moved) <= 2e-5,
          "scan flattens the street's parked cars by default: the same %d points, the same objects, moved by "
          "float rounding only (largest %.2e m; CHANGES.md)" % (len(a), max(moved)))
    # nothing to flatten (a wall, no actor): the default writes the bytes of --flatten-actors 0
    wall = os.path.join(tmp, "wall.obj")
    with open(wall, "w") as f:
        f.write("o wall\nv 20 -80 -50\nv 20 80 -50\nv 20 80 50\nv 20 -80 50\nf 1 2 3 4\n")
    outs = []
    for name, extra in (("w1", []), ("w0", ["--flatten-actors", "0"])):
        r = run("scan", "--scene", wall, "--lidar", "vlp16", "--out", os.path.join(tmp, name), "--threads", "1", *extra)
        outs.append(open(os.path.join(tmp, name, "frame_000000.ply"), "rb").read() if r.returncode == 0 else None)
    check(outs[0] is not None and outs[0] == outs[1], "a scene without actors: the same bytes with and without flattening")

print("%d passed, %d failed" % (passed, failures))
sys.exit(1 if failures else 0)
