#!/usr/bin/python3
"""Largest output movement between two builds, for the numeric contract
(DESIGN.md: directions 1e-9 rad, ranges 1e-6 m, intensities 1e-6 relative).

usage: /usr/bin/python3 scripts/contract_delta.py OLD_SENSIM NEW_SENSIM [PRESET...] [--frames N] [--moving]

--moving: the platform drives (`--velocity 12,1,0,3,2,25`: 12 m/s, turning
25 deg/s, rolling and pitching) and the points are in the world frame, so
each shot's pose from the motion is part of what is compared.

Each build scans the built-in street (`sensim scan`, pose 1.5,0.5,1.8, one
thread) with every random draw off, as tests/test_contract.c does; points
are paired by (firing offset, channel, return rank), so a point that
appears or vanishes at an edge does not shift the others. Prints per
preset: points, unpaired points, paired points whose record moved at all,
and the largest direction (rad), range (m), relative intensity and
position (m) movement of the paired points.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

DETERMINISTIC = ["range_noise_stddev_m=0", "range_noise_per_m=0", "dropoff_model=none",
                 "dropoff_general_rate=0", "angular_jitter_deg=0", "rain_rate_mm_h=0"]
PRESETS = ["vlp16", "pandar64", "pandar128", "mid40", "avia", "mems_m1"]
DT = np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("intensity", "<f4"), ("range", "<f4"),
               ("t", "<u4"), ("object_id", "<u4"), ("channel", "<u2"), ("tag", "u1"), ("flags", "u1")])


def read_ply(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header = data[:end].decode()
    if "property float x" not in header or "property uchar flags" not in header:
        sys.exit(f"{path}: not the point layout this script reads")
    return np.frombuffer(data[end:], dtype=DT)


def scan(sensim, preset, frames, out, moving=False):
    cmd = [sensim, "scan", "--scene", "street", "--lidar", preset, "--pose", "1.5,0.5,1.8,0,0,0",
           "--count", str(frames), "--threads", "1", "--out", out]
    if moving:
        cmd += ["--velocity", "12,1,0,3,2,25", "--points", "world"]
    for s in DETERMINISTIC:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return np.concatenate([read_ply(os.path.join(out, f)) for f in sorted(os.listdir(out)) if f.endswith(".ply")])


def keyed(p):
    frame = np.cumsum(np.r_[0, np.diff(p["t"].astype(np.int64)) < -1000000])
    key = (frame.astype(np.uint64) << np.uint64(48)) | (p["t"].astype(np.uint64) << np.uint64(16)) | \
        (p["channel"].astype(np.uint64) << np.uint64(2)) | (p["flags"] & 3).astype(np.uint64)
    return key


def main():
    args = sys.argv[1:]
    frames = 1
    moving = "--moving" in args
    if moving:
        args.remove("--moving")
    if "--frames" in args:
        i = args.index("--frames")
        frames = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    old, new, presets = args[0], args[1], args[2:] or PRESETS
    print(f"{'preset':10} {'points':>8} {'unpaired':>8} {'moved':>7} {'dir rad':>10} {'range m':>10} "
          f"{'intens rel':>10} {'pos m':>10}")
    for preset in presets:
        with tempfile.TemporaryDirectory() as d:
            a = scan(old, preset, frames, os.path.join(d, "a"), moving)
            b = scan(new, preset, frames, os.path.join(d, "b"), moving)
        ka, kb = keyed(a), keyed(b)
        common, ia, ib = np.intersect1d(ka, kb, assume_unique=False, return_indices=True)
        pa, pb = a[ia], b[ib]
        va = np.stack([pa["x"], pa["y"], pa["z"]], 1).astype(np.float64)
        vb = np.stack([pb["x"], pb["y"], pb["z"]], 1).astype(np.float64)
        na, nb = np.linalg.norm(va, axis=1), np.linalg.norm(vb, axis=1)
        ok = (na > 0) & (nb > 0)
        cosang = np.clip(np.sum(va[ok] * vb[ok], 1) / (na[ok] * nb[ok]), -1, 1)
        # the angle between two nearly equal unit vectors: |a x b| is exact where acos is not
        cross = np.linalg.norm(np.cross(va[ok] / na[ok, None], vb[ok] / nb[ok, None]), axis=1)
        ang = np.where(cosang > 0, np.arcsin(np.minimum(cross, 1.0)), np.pi)
        dr = np.abs(pa["range"].astype(np.float64) - pb["range"])
        dp = np.linalg.norm(va - vb, axis=1)
        ia_ = pa["intensity"].astype(np.float64)
        di = np.abs(ia_ - pb["intensity"]) / np.maximum(np.abs(ia_), 1e-30)
        unpaired = len(a) + len(b) - 2 * len(common)
        moved = int(np.count_nonzero(np.frombuffer(pa.tobytes(), "V32") != np.frombuffer(pb.tobytes(), "V32")))
        print(f"{preset:10} {len(b):8d} {unpaired:8d} {moved:7d} {ang.max(initial=0):10.2e} {dr.max(initial=0):10.2e} "
              f"{di.max(initial=0):10.2e} {dp.max(initial=0):10.2e}")


if __name__ == "__main__":
    main()
