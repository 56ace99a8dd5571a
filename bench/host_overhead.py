#!/usr/bin/python3
"""Issue 63's host figure: what a Python co-simulation host pays a tick, beside a C host on the same
rig (an IMU at 100 Hz on a ground plane: the tick's own work is small, the call's cost shows). Three
rounds, interleaved: the C host (bench_host, sensim_rig_advance), Python push_pose + step, Python
advance() with a numpy pose. Prints the medians and the Python overhead over C, in us a tick.

usage: host_overhead.py BENCH_HOST [STEPS]"""
import statistics
import subprocess
import sys
import time

import numpy as np

import sensim


def python_loop(mode, steps):
    ctx = sensim.Context(1)
    scene = sensim.Scene(ctx)
    scene.add_mesh([[-500, -500, 0], [500, -500, 0], [500, 500, 0], [-500, 500, 0]], [[0, 1, 2], [0, 2, 3]])
    scene.commit()
    rig = sensim.Rig(ctx)
    imu = sensim.Nav(ctx, "imu", {"rate_hz": 100})
    ring = sensim.NavRing(steps // 10 + 8)
    rig.add_nav(imu, ring)
    pose = np.array(sensim.pose(z=1.8), dtype=np.float64)
    rig.push_pose(0, pose)
    t0 = time.perf_counter()
    if mode == "advance":
        for i in range(1, steps + 1):
            rig.advance(scene, i * 1_000_000, pose)
    else:
        for i in range(1, steps + 1):
            rig.push_pose(i * 1_000_000, pose)
            rig.step(scene, 1_000_000)
    us = (time.perf_counter() - t0) / steps * 1e6
    assert sum(1 for _ in ring.frames()) == steps // 10
    return us


def main(bench_host, steps):
    rows = {"c": [], "push_step": [], "advance": []}
    for _ in range(3):
        out = subprocess.run([bench_host, str(steps)], capture_output=True, text=True, check=True).stdout
        rows["c"].append(float(out.split()[1]))
        rows["push_step"].append(python_loop("push_step", steps))
        rows["advance"].append(python_loop("advance", steps))
    med = {k: statistics.median(v) for k, v in rows.items()}
    for k in ("c", "push_step", "advance"):
        print("%-10s %7.2f us a tick (runs: %s)" % (k, med[k], " ".join("%.2f" % x for x in rows[k])))
    print("python overhead a tick: push_pose + step %.2f us, advance %.2f us (over the C host)"
          % (med["push_step"] - med["c"], med["advance"] - med["c"]))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 20000)
