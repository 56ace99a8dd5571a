"""CARLA-compatible export: the semantic-lidar record (24 bytes: x, y, z,
cos_inc_angle float32; object_idx, object_tag uint32) and the plain lidar
record (x, y, z, intensity float32), in CARLA's frame (left-handed, y right,
metres), so a CARLA pipeline reads them unchanged. Tags are CARLA 0.9.14+ ids.
usage: carla_export.py OUT_DIR"""
import os
import struct
import sys

import sensim
from street_scene import build


def main(out):
    os.makedirs(out, exist_ok=True)
    ctx = sensim.Context()
    scene, _, cars = build(ctx)
    # CARLA spawn transform of the sensor: Location(x=-20, y=1.5, z=1.8), Rotation(yaw=10)
    pose = sensim.pose_from_frame("carla", (-20, 1.5, 1.8), (0, 10, 0))
    semantic = sensim.Lidar(ctx, "pandar64", {"intensity_model": "cosine", "max_bounces": 0})
    plain = sensim.Lidar(ctx, "pandar64", {"intensity_model": "carla"})
    n_sem = n_plain = 0
    for lidar, name in ((semantic, "semantic"), (plain, "plain")):
        ring = sensim.Ring.for_lidar(lidar)
        lidar.scan(scene, 0, 100000000, ring, pose=pose)
        frame = ring.pop()
        recs = sensim.unpack_points(bytes(frame.points)) if not sensim.HAVE_NUMPY else None
        rows = range(len(frame))
        get = (lambda i, k: frame.points[k][i]) if recs is None else (lambda i, k: recs[i][k])
        with open(os.path.join(out, "lidar_%s.bin" % name), "wb") as f:
            for i in rows:
                x, y, z = sensim.point_to_frame("carla", (float(get(i, "x")), float(get(i, "y")),
                                                          float(get(i, "z"))))
                if name == "semantic":
                    f.write(struct.pack("<ffffII", x, y, z, float(get(i, "intensity")), int(get(i, "object_id")),
                                        int(get(i, "tag"))))
                else:
                    f.write(struct.pack("<ffff", x, y, z, float(get(i, "intensity"))))
        if name == "semantic":
            n_sem = len(frame)
        else:
            n_plain = len(frame)
    size = os.path.getsize(os.path.join(out, "lidar_semantic.bin"))
    assert size == 24 * n_sem and os.path.getsize(os.path.join(out, "lidar_plain.bin")) == 16 * n_plain
    tags = set()
    ids = set()
    with open(os.path.join(out, "lidar_semantic.bin"), "rb") as f:
        for x, y, z, cos_inc, idx, tag in struct.iter_unpack("<ffffII", f.read()):
            assert 0.0 <= cos_inc <= 1.0
            tags.add(tag)
            if idx:
                ids.add(idx)
    assert {1, 3, 14} <= tags and ids and max(ids) <= cars, (tags, ids)
    print("semantic: %d points (tags %s, %d cars seen); plain: %d points" % (n_sem, sorted(tags), len(ids), n_plain))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
