"""Synchronous collector in Python: a 10 Hz and a 20 Hz lidar plus a proximity
sensor on one rig, stepped by 33 ms; writes each sensor's frames as PLY with a
JSON metadata file and checks that no frame is partial or missing.
usage: sync_collector.py OUT_DIR [seconds]"""
import json
import os
import sys

import sensim
from street_scene import build


def main(out, seconds=1.0):
    ctx = sensim.Context()
    scene, _, _ = build(ctx)
    top = sensim.Lidar(ctx, "pandar64", {"lidar_id": 1, "mount_xyz_m": "0,0,1.8"})
    front = sensim.Lidar(ctx, "vlp16", {"rotation_hz": 20, "lidar_id": 2,
                                        "mount_xyz_m": "2,0,0.6"})
    rings = {"top_10hz": sensim.Ring(top.info["shots_per_frame"] * 3, 8, "drop_oldest"),
             "front_20hz": sensim.Ring(front.info["shots_per_frame"] * 3, 8, "drop_oldest"),
             "proximity_25hz": sensim.Ring(1024, 64, "drop_oldest")}
    rig = sensim.Rig(ctx)
    rig.add_lidar(top, rings["top_10hz"])
    rig.add_lidar(front, rings["front_20hz"])
    rig.add_proximity(rings["proximity_25hz"], rate_hz=25, half_extents=(2.3, 1.0, 0.8), center=(0, 0, 0.8),
                      front=8, back=3, side=2, sensor_id=3)
    for name in rings:
        os.makedirs(os.path.join(out, name), exist_ok=True)
    dt = 33000000
    steps = int(seconds * 1e9 // dt)
    keys = sensim.motion_from_velocity(sensim.pose(x=-50, y=-1.5), 0, steps * dt, (8, 0, 0))
    counts = {name: 0 for name in rings}
    for _ in range(steps):
        res = rig.step(scene, dt, keys=keys)
        if res["sensors_refused"]:  # a refused sensor is data not produced: never ignored
            raise SystemExit("%d sensors refused the step (ring full)" % res["sensors_refused"])
        for name, ring in rings.items():
            for frame in ring.frames():
                h = frame.header
                assert not h["partial"] and h["lost_points"] == 0 and h["frame_number"] == counts[name], h
                base = os.path.join(out, name, "frame_%06d" % h["frame_number"])
                sensim.write_ply(base + ".ply", frame.points)
                meta = {k: v for k, v in h.items() if k != "sensor_pose"}
                meta["sensor_pose"] = [[float(x) for x in row] for row in h["sensor_pose"]]
                with open(base + ".json", "w") as f:
                    json.dump(meta, f)
                counts[name] += 1
    print("%d steps: %s" % (steps, ", ".join("%s %d frames" % kv for kv in counts.items())))
    return counts


if __name__ == "__main__":
    c = main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 1.0)
    sys.exit(0 if c["top_10hz"] >= 1 and c["front_20hz"] >= 2 * c["top_10hz"] - 1 else 1)
