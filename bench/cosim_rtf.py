#!/usr/bin/python3
"""Issue 51's co-simulation figure: a Python host steps a rig (pandar64, an 800x600 depth + semantic
camera at 20 Hz, an IMU at 100 Hz) on the built-in street, pushing the pose its vehicle model computed
every STEP ms through Rig.advance (one call a step), and reports the real-time factor (world seconds per wall second) over SECONDS of world.
Frames are drained every step, as a host's consumer would.

usage: cosim_rtf.py SECONDS STEP_MS  -> prints "rtf R wall W s" (one line)
bench/cosim_busy.sh runs the issue's four conditions interleaved (quiet/busy, 1 ms/50 ms, passive)."""
import math
import sys
import time

import sensim


def main(seconds, step_ms):
    ctx = sensim.Context()
    scene = sensim.Scene(ctx)
    scene.load("street")
    scene.commit()
    lidar = sensim.Lidar(ctx, "pandar64", {"mount_xyz_m": "0,0,1.9"})
    ring = sensim.Ring.for_lidar(lidar, max(4, int(math.ceil(step_ms / 100.0)) + 2))
    cam = sensim.Camera(ctx, "carla_default", {"width": "800", "height": "600"})
    cam.set_mount(sensim.pose(1.5, 0, 1.6))
    cring = sensim.ImageRing(cam, outputs=("depth", "semantic"), frame_capacity=max(4, int(step_ms / 50) + 2))
    imu = sensim.Nav(ctx, "imu", {"rate_hz": 100})
    iring = sensim.NavRing(max(64, int(step_ms / 10) + 4))
    rig = sensim.Rig(ctx)
    rig.add_lidar(lidar, ring)
    rig.add_camera(cam, cring, rate_hz=20.0)
    rig.add_nav(imu, iring)
    dt_ns = int(step_ms * 1_000_000)
    steps = int(round(seconds * 1000 / step_ms))
    x, v = -80.0, 10.0
    rig.push_pose(0, sensim.pose(x, -1.5, 0, 0, 0, 0))
    t0 = time.perf_counter()
    for k in range(1, steps + 1):
        x += v * dt_ns * 1e-9  # the host's vehicle model
        # the host fast path: the pose pushed and the rig stepped in one call; frames drained when some completed
        if rig.advance(scene, k * dt_ns, sensim.pose(x, -1.5, 0, 0, 0, 0)):
            for r in (ring, cring, iring):
                for _ in r.frames():
                    pass
        if rig.last_step["sensors_refused"]:
            raise SystemExit("a sensor refused a step")
    wall = time.perf_counter() - t0
    print("rtf %.3f wall %.3f s" % (seconds / wall, wall))


if __name__ == "__main__":
    main(float(sys.argv[1]), float(sys.argv[2]))
