"""sensim_lidar_set_shot_offset (Lidar.set_shot_offset): shot g keeps its time and takes the direction and
channel of the pattern's shot g + offset. Truth: a lidar run k columns ahead scans over [0, T) exactly what
a plain lidar scans over the k columns later, [t(k), t(k) + T), point for point (a static pose in a closed
room, no drop-off, no noise: where a shot points decides everything but its time)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import sensim  # noqa: E402

np = sensim._np

# carla_default: 56 000 points a second over 32 channels, one column every 1/1750 s; 35 columns = 20 ms exactly
COLS, T_NS = 35, 20_000_000
KEYS = {"range": "100", "dropoff_model": "none", "noise_stddev": "0"}


def room(ctx):
    """A closed cube of 40 m about the origin: every shot hits a wall, the floor or the ceiling."""
    scene = sensim.Scene(ctx)
    v = [[x, y, z] for x in (-20, 20) for y in (-20, 20) for z in (-20, 20)]
    faces = [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1], [2, 3, 7], [2, 7, 6],
             [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]]
    scene.add_mesh(v, faces, tag=1)
    scene.commit()
    return scene


@unittest.skipIf(np is None, "needs numpy")
class ShotOffset(unittest.TestCase):
    def setUp(self):
        self.ctx = sensim.Context(1)
        self.scene = room(self.ctx)

    def scan(self, t0, offset=0):
        lid = sensim.Lidar(self.ctx, "carla_default", KEYS)
        if offset:
            lid.set_shot_offset(offset)
        ring = sensim.Ring(4 * lid.info["shots_per_frame"])
        got = lid.scan(self.scene, t0, t0 + T_NS, ring, pose=sensim.pose())
        hdr, pts = ring.peek_open(0)
        self.assertEqual(got["shots"], COLS * 32)
        self.assertEqual(len(pts), COLS * 32)  # the room catches every shot
        return pts

    def test_ahead_by_k_columns_is_the_plain_pattern_k_columns_later(self):
        for k in (16, 1, 1750 + 3):  # within the turn, one column, past a whole turn
            ahead = self.scan(0, 32 * k)
            t_k = (k * 1_000_000_000) // 1750  # the column's time: floor(k x period)
            later = self.scan(t_k)
            for f in ("x", "y", "z", "range", "intensity", "channel"):
                self.assertTrue(np.array_equal(ahead[f], later[f]), "k=%d: field %s" % (k, f))
            # the times are the ahead lidar's own: its shots fire over [0, 20 ms) as without the offset
            plain = self.scan(0)
            self.assertTrue(np.array_equal(ahead["t_offset_ns"], plain["t_offset_ns"]))
            self.assertFalse(np.array_equal(ahead["x"], plain["x"]))  # and they point elsewhere

    def test_behind(self):
        t_k = (16 * 1_000_000_000) // 1750
        at_k = self.scan(t_k, -32 * 16)  # 16 columns behind from column 16: the pattern's first columns
        first = self.scan(0)
        for f in ("x", "y", "z", "channel"):
            self.assertTrue(np.array_equal(at_k[f], first[f]), f)

    def test_bounds(self):
        lid = sensim.Lidar(self.ctx, "carla_default", KEYS)
        lid.set_shot_offset(10 ** 15)
        lid.set_shot_offset(-10 ** 15)
        for bad in (10 ** 15 + 1, -10 ** 15 - 1):
            with self.assertRaises(sensim.OutOfRange):
                lid.set_shot_offset(bad)


if __name__ == "__main__":
    unittest.main()
