"""LAS 1.2 point format 3 (`batch --format las --las-version 1.2`) read twice:
by a reader written here from the ASPRS LAS 1.2 specification (2008), and by
@loaders.gl/las (tests/node, pinned), the reader of web point-cloud stacks,
which refuses LAS 1.4. Both must give the points of the PLY run of the same
frames, with the documented fields.

Usage: test_las.py SENSIM_EXE NODE_DIR"""
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ply_reader import read_ply  # noqa: E402

# CARLA 0.9.14+ CityScapes palette, from ../shared/reference/carla_tags.md (CARLA's CityScapesPalette.h)
PALETTE = [(0, 0, 0), (128, 64, 128), (244, 35, 232), (70, 70, 70), (102, 102, 156), (190, 153, 153),
           (153, 153, 153), (250, 170, 30), (220, 220, 0), (107, 142, 35), (152, 251, 152), (70, 130, 180),
           (220, 20, 60), (255, 0, 0), (0, 0, 142), (0, 0, 70), (0, 60, 100), (0, 80, 100), (0, 0, 230),
           (119, 11, 32), (110, 190, 160), (170, 120, 50), (55, 90, 80), (45, 60, 150), (157, 234, 50),
           (81, 0, 81), (150, 100, 100), (230, 150, 140), (180, 165, 180)]
# LAS 1.2 classes (ASPRS 1.2 table 4.9: 2 ground, 5 high vegetation, 6 building, 7 low point (noise), 9 water)
CLASS12 = {0: 1, 1: 2, 24: 2, 2: 2, 10: 2, 25: 2, 3: 6, 4: 6, 9: 5, 23: 9, 27: 2}

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def read_las12(path):
    """The public header block and point format 3 records of LAS 1.2 (ASPRS, 2 Sep 2008)."""
    d = open(path, "rb").read()
    hd = {"sig": d[0:4], "encoding": struct.unpack_from("<H", d, 6)[0], "version": (d[24], d[25]),
          "header_size": struct.unpack_from("<H", d, 94)[0], "offset": struct.unpack_from("<I", d, 96)[0],
          "nvlr": struct.unpack_from("<I", d, 100)[0], "pdrf": d[104], "reclen": struct.unpack_from("<H", d, 105)[0],
          "n": struct.unpack_from("<I", d, 107)[0], "by_return": struct.unpack_from("<5I", d, 111),
          "scale": struct.unpack_from("<3d", d, 131), "off": struct.unpack_from("<3d", d, 155),
          "bounds": struct.unpack_from("<6d", d, 179)}
    pts = []
    for i in range(hd["n"]):
        X, Y, Z, inten, rb, cls, ang, ud, src, gps, r, g, b = struct.unpack_from("<iiiHBBbBHdHHH", d,
                                                                                 hd["offset"] + 34 * i)
        pts.append({"x": X * hd["scale"][0] + hd["off"][0], "y": Y * hd["scale"][1] + hd["off"][1],
                    "z": Z * hd["scale"][2] + hd["off"][2], "intensity": inten, "ret": rb & 7, "nret": (rb >> 3) & 7,
                    "cls": cls & 31, "synthetic": bool(cls & 32), "angle": ang, "user": ud, "src": src, "gps": gps,
                    "rgb": (r, g, b)})
    return hd, pts, len(d)


def main():
    sensim, node_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    tmp = tempfile.mkdtemp(prefix="sensim_las_")
    traj = os.path.join(tmp, "traj.csv")
    with open(traj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,-30,0,1.8,0,0,0\n1,-20,0,1.8,0,0,10\n")
    common = ["batch", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj, "--frames", "1:3",
              "--set", "return_mode=dual", "--set", "points_frame=world", "--quiet"]
    r = subprocess.run([sensim] + common + ["--out", os.path.join(tmp, "las"), "--format", "las",
                                            "--las-version", "1.2"], capture_output=True, text=True)
    rp = subprocess.run([sensim] + common + ["--out", os.path.join(tmp, "ply")], capture_output=True, text=True)
    check(r.returncode == 0 and rp.returncode == 0, "batch --format las --las-version 1.2: %s %s"
          % (r.stderr, rp.stderr))
    if failures:
        return 1
    bad = subprocess.run([sensim] + common + ["--out", os.path.join(tmp, "bad"), "--las-version", "1.2"],
                         capture_output=True, text=True)
    check(bad.returncode == 2 and "--las-version goes with --format las" in bad.stderr,
          "--las-version without --format las is a usage error: %r" % bad.stderr)
    run_json = json.load(open(os.path.join(tmp, "las", "meta.json"))) \
        if os.path.exists(os.path.join(tmp, "las", "meta.json")) else {}
    files = [os.path.join(tmp, "las", "frame_%06d.las" % k) for k in (1, 2)]
    js = subprocess.run(["node", os.path.join(node_dir, "check_las.mjs")] + files, capture_output=True, text=True,
                        cwd=node_dir, timeout=300)
    check(js.returncode == 0, "loaders.gl parses the LAS 1.2 files: %s" % js.stderr[-400:])
    lg = json.loads(js.stdout) if js.returncode == 0 else [None, None]
    for k, path in zip((1, 2), files):
        hd, lp, size = read_las12(path)
        _, pp, _ = read_ply(os.path.join(tmp, "ply", "frame_%06d.ply" % k))
        fj = json.load(open(os.path.join(tmp, "las", "frame_%06d.json" % k)))
        check(hd["sig"] == b"LASF" and hd["version"] == (1, 2) and hd["header_size"] == 227 and hd["offset"] == 227
              and hd["nvlr"] == 0 and hd["pdrf"] == 3 and hd["reclen"] == 34 and hd["encoding"] == 1
              and size == 227 + 34 * hd["n"], "frame %d: LAS 1.2 header %r" % (k, hd))
        check(hd["n"] == len(pp) == fj["points"] > 1000 and sum(hd["by_return"]) == hd["n"]
              and hd["by_return"][1] > 0, "frame %d: %d points, by return %r (dual)" % (k, hd["n"], hd["by_return"]))
        b = hd["bounds"]
        xs, zs = [p["x"] for p in lp], [p["z"] for p in lp]
        check(abs(b[0] - max(xs)) < 1e-9 and abs(b[1] - min(xs)) < 1e-9 and abs(b[4] - max(zs)) < 1e-9
              and abs(b[5] - min(zs)) < 1e-9, "frame %d: header bounds are the points'" % k)
        tol = 0.0005 + 1e-9
        good = all(abs(a["x"] - q["x"]) <= tol and abs(a["y"] - q["y"]) <= tol and abs(a["z"] - q["z"]) <= tol
                   and a["intensity"] == min(65535, max(0, round(q["intensity"] * 65535)))
                   and a["cls"] == (7 if q["flags"] & 8 else CLASS12.get(q["tag"], 1)) and a["synthetic"]
                   and a["rgb"] == tuple(c * 257 for c in PALETTE[q["tag"]])
                   and a["ret"] == (q["flags"] & 3) + 1 and a["user"] == min(q["channel"], 255)
                   and abs(a["gps"] - (fj["t_begin_ns"] + q["t_offset_ns"]) * 1e-9) < 1e-12
                   for a, q in zip(lp, pp))
        check(good and len(lp) == len(pp), "frame %d: every point equals its PLY twin within 0.5 mm, with the documented fields" % k)
        pairs = [(a, c) for a, c in zip(lp, lp[1:]) if c["ret"] == 2 and a["gps"] == c["gps"] and a["user"] == c["user"]]
        check(pairs and all(a["ret"] == 1 and a["nret"] == 2 and c["nret"] == 2 for a, c in pairs),
              "frame %d: a dual shot's records say 1 of 2 and 2 of 2" % k)
        tags = {q["tag"] for q in pp}
        check(len(tags) >= 4, "frame %d: several tags to tell apart: %s" % (k, sorted(tags)))
        g = lg[k - 1]
        if g is None:
            continue
        # loaders.gl: the same points (float32 positions), intensities, class bytes and 8-bit colours
        check(g["n"] == len(pp) and g["format"] == 3, "frame %d: loaders.gl reads %s points of format %s"
              % (k, g["n"], g["format"]))
        xyz = g["xyz"]
        f32 = 1e-5 * 128  # float32 spacing below 128 m, times a margin
        good = all(abs(xyz[3 * i] - q["x"]) <= tol + f32 and abs(xyz[3 * i + 1] - q["y"]) <= tol + f32
                   and abs(xyz[3 * i + 2] - q["z"]) <= tol + f32
                   and g["intensity"][i] == lp[i]["intensity"]
                   and g["classification"][i] == lp[i]["cls"] | 32
                   and tuple(g["rgb"][i]) == PALETTE[q["tag"]]
                   for i, q in enumerate(pp))
        check(good, "frame %d: loaders.gl's points, intensities, classes and colours are the PLY's" % k)
    check(run_json.get("format") == "las-1.2", "meta.json says las-1.2: %r" % run_json.get("format"))
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
