#!/usr/bin/python3
"""`sensim view`: the page of a generated run loads in Debian's headless
Chromium (software WebGL, driven by playwright-core from tests/node), shows
the run's frame count, and its screenshot shows points; a frame with no
points shows none. Hostile inputs are refused with one line and no page.

Usage: test_view.py SENSIM NODE_DIR"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import zlib

SENSIM, NODE_DIR = sys.argv[1:3]
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


def load(page, shot, frame=None):
    args = ["node", os.path.join(NODE_DIR, "view_check.mjs"), page, shot] + ([str(frame)] if frame is not None else [])
    r = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        check(False, "page %s did not load: %s" % (page, r.stderr[-2000:]))
        return None
    return json.loads(r.stdout)


def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB/RGBA non-interlaced PNG (zlib only)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def bright_pixels(path):
    """Pixels of the 3-D view (below the control bar, right of the legend) brighter than the grid."""
    w, h, bpp, rows = png_pixels(path)
    n = 0
    for y in range(60, h - 10):
        line = rows[y]
        for x in range(130, w):
            if max(line[bpp * x], line[bpp * x + 1], line[bpp * x + 2]) > 60:
                n += 1
    return n


with tempfile.TemporaryDirectory() as tmp:
    traj = os.path.join(tmp, "traj.csv")
    with open(traj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n")
        for i in range(0, 51):
            t = i * 0.01
            f.write("%g,%g,0,1.8,0,0,%g\n" % (t, -60 + 8 * t, 3 * t))
    rig = os.path.join(tmp, "rig.txt")
    with open(rig, "w") as f:
        f.write("[sensor roof]\npreset = vlp16\n\n[sensor cam]\ntype = camera\nwidth = 64\nheight = 48\n"
                "rate_hz = 10\noutputs = rgb\nmount_xyz_m = 1, 0, 0\n")
    out = os.path.join(tmp, "run")
    r = run("batch", "--scene", "street", "--rig", rig, "--trajectory", traj, "--out", out, "--quiet")
    check(r.returncode == 0, "rig run: " + r.stderr)
    nframes = len([n for n in os.listdir(os.path.join(out, "roof")) if n.endswith(".ply")])
    page = os.path.join(tmp, "run.html")
    r = run("view", out, "--out", page)
    check(r.returncode == 0 and os.path.exists(page), "sensim view of the run: " + r.stderr)
    html = open(page, encoding="utf-8").read()
    check("http://" not in html.replace("http://www.w3.org", "") and "https://" not in html and "src=\"//" not in html,
          "the page loads nothing from the network")
    shot = os.path.join(tmp, "run.png")
    v = load(page, shot, 3)  # the slider moved to frame 3: the count follows that frame's PLY
    if v:
        check(v["status"] == "ready" and v["errors"] == [], "page ready without errors: %r" % v)
        check(v["frames"] == str(nframes) == "5", "the page shows the run's %d frames: %r" % (nframes, v["frames"]))
        check(v["images"] == 1, "one camera beside the view: %r" % v["images"])
        lit = bright_pixels(shot)
        check(lit > 2000, "the screenshot shows points: %d lit pixels" % lit)
        with open(sorted(os.path.join(out, "roof", n) for n in os.listdir(os.path.join(out, "roof"))
                         if n.endswith(".ply"))[3], "rb") as f:
            head = f.read(2000).decode("latin-1")
        n3 = int(head.split("element vertex ")[1].split()[0])
        check(v["frame"] == "3" and v["count"] == "%d points" % n3, "frame 3 shows its %d points: %r" % (n3, v))

    # plain headless Chromium, no flags but --no-sandbox (root): the page is drawn by its load event, so
    # --screenshot shows the points and --dump-dom says ready; without WebGL it draws the same view in 2D
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for extra, want in (([], "ready"), (["--disable-webgl"], "ready (2D view")):
        shot2 = os.path.join(tmp, "plain%d.png" % len(extra))
        base = [chromium, "--headless", "--no-sandbox", "--window-size=1000,700"] + extra
        subprocess.run(base + ["--screenshot=" + shot2, "file://" + page], capture_output=True, timeout=120)
        dom = subprocess.run(base + ["--dump-dom", "file://" + page], capture_output=True, text=True, timeout=120)
        status = dom.stdout.split('id="status">')[1].split("<")[0] if 'id="status">' in dom.stdout else dom.stderr
        lit = bright_pixels(shot2) if os.path.exists(shot2) else 0
        check(status.startswith(want) and lit > 2000,
              "plain chromium --headless %s: status %r, %d lit pixels" % (" ".join(extra), status, lit))

    # the same run as a bag: the page reads the MCAP, places each cloud by /tf and /tf_static, and
    # shows the same frames, points and sensor poses as the folder's PLY headers
    bag = os.path.join(tmp, "bag")
    r = run("batch", "--scene", "street", "--rig", rig, "--trajectory", traj, "--out", bag, "--format", "mcap",
            "--quiet")
    mpage = os.path.join(tmp, "bag.html")
    r2 = run("view", os.path.join(bag, "sensim_0.mcap"), "--out", mpage) if r.returncode == 0 else r
    check(r2.returncode == 0, "sensim view of the bag: %s %s" % (r.stderr, r2.stderr))

    def page_data(p):
        h = open(p, encoding="utf-8").read()
        a = h.index('<script type="application/json" id="data">') + len('<script type="application/json" id="data">')
        return json.loads(h[a:h.index("</script>", a)])
    if r2.returncode == 0:
        dp, dm = page_data(page), page_data(mpage)
        check(len(dp["clouds"]) == len(dm["clouds"]) == 5 and len(dm["images"]) == 5,
              "the bag's page has 5 clouds and 5 images")
        worst = max(abs(a - b) for cp, cm in zip(dp["clouds"], dm["clouds"]) for a, b in zip(cp["pose"], cm["pose"]))
        check(all(cp["n"] == cm["n"] and cp["t_ns"] == cm["t_ns"] and cp["xyz"] == cm["xyz"]
                  for cp, cm in zip(dp["clouds"], dm["clouds"])) and worst < 1e-9,
              "bag and folder give the same points, times and poses (worst pose difference %g)" % worst)
        v = load(mpage, os.path.join(tmp, "bag.png"))
        check(v is not None and v["frames"] == "5" and v["images"] == 1 and bright_pixels(os.path.join(tmp, "bag.png")) > 2000,
              "the bag's page shows its frames and points: %r" % v)
        raw = open(os.path.join(bag, "sensim_0.mcap"), "rb").read()
        for name, data, msg in (("cut.mcap", raw[:len(raw) // 2], "runs past"), ("magic.mcap", b"garbage" * 10, "MCAP magic"),
                                ("nocloud.mcap", raw[:17 + int.from_bytes(raw[9:17], "little")] + raw[-8:], "no PointCloud2")):
            bad = os.path.join(tmp, name)
            with open(bad, "wb") as f:
                f.write(data)
            o = os.path.join(tmp, "bad.html")
            r = run("view", bad, "--out", o)
            check(r.returncode >= 10 and msg in r.stderr and not os.path.exists(o), "view %s refused: %r" % (name, r.stderr))

    # the page's point budget: frames past it are left out with a warning that says how many, the rest drawn
    if r2.returncode == 0:
        n01 = dp["clouds"][0]["n"] + dp["clouds"][1]["n"]
        bpage = os.path.join(tmp, "budget.html")
        for src in (out, os.path.join(bag, "sensim_0.mcap")):
            rb = run("view", src, "--out", bpage, "--max-total-points", str(n01))
            db = page_data(bpage) if rb.returncode == 0 else {"clouds": []}
            check(rb.returncode == 0 and [c["n"] for c in db["clouds"]] == [c["n"] for c in dp["clouds"][:2]]
                  and "left out 3 clouds" in rb.stderr and "--max-total-points" in rb.stderr,
                  "%s with a budget of the first two frames' %d points: %r"
                  % (os.path.basename(src), n01, rb.stderr))
        rb = run("view", out, "--out", bpage, "--max-total-points", "0")
        check(rb.returncode == 2 and "--max-total-points" in rb.stderr, "a budget of 0 is a usage error")

    # nothing there: a frame of no points draws no points
    empty = os.path.join(tmp, "empty.ply")
    with open(empty, "wb") as f:
        f.write(b"ply\nformat binary_little_endian 1.0\ncomment t_begin_ns 0\nelement vertex 0\n"
                b"property float x\nproperty float y\nproperty float z\nend_header\n")
    epage = os.path.join(tmp, "empty.html")
    r = run("view", empty, "--out", epage)
    v = load(epage, os.path.join(tmp, "empty.png")) if r.returncode == 0 else None
    check(v is not None and v["frames"] == "1" and v["count"] == "0 points", "an empty frame loads: %r %s" % (v, r.stderr))
    if v:
        lit = bright_pixels(os.path.join(tmp, "empty.png"))
        check(lit < 200, "an empty frame shows no points: %d lit pixels (axes only)" % lit)

    # hostile inputs: one line, an exit status, no page
    fifo = os.path.join(tmp, "fifo.ply")
    os.mkfifo(fifo)
    trunc = os.path.join(tmp, "trunc.ply")
    with open(trunc, "wb") as f:
        f.write(b"ply\nformat binary_little_endian 1.0\nelement vertex 1000000000000\nproperty float x\n"
                b"property float y\nproperty float z\nend_header\n" + b"\0" * 24)
    ascii_ply = os.path.join(tmp, "ascii.ply")
    with open(ascii_ply, "w") as f:
        f.write("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
                "end_header\n1 2 3\n")
    nan_pose = os.path.join(tmp, "pose.ply")
    with open(nan_pose, "wb") as f:
        f.write(b"ply\nformat binary_little_endian 1.0\ncomment sensor_pose 1 0 0 0 0 1 0 0 0 0 1 0 nan 0 0 1\n"
                b"element vertex 0\nproperty float x\nproperty float y\nproperty float z\nend_header\n")
    nodir = os.path.join(tmp, "nothing")
    os.mkdir(nodir)
    for inp, msg in ((fifo, "not a regular file"), (trunc, "do not fit"), (ascii_ply, "binary_little_endian"),
                     (nan_pose, "sensor_pose"), (nodir, "no frame_"), (os.path.join(tmp, "x.txt"), "not a run")):
        o = os.path.join(tmp, "bad.html")
        r = run("view", inp, "--out", o)
        check(r.returncode >= 10 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1
              and not os.path.exists(o), "view %s refused: %r" % (os.path.basename(inp), r.stderr))
    r = run("view", out)
    check(r.returncode == 2 and "--out" in r.stderr, "view without --out: usage")

print("test_view: %d passed, %d failed" % (passed, failures))
sys.exit(1 if failures else 0)
