"""sensim.RoadNetwork (OpenDRIVE through sensim/road.h; issue 65 item 1): the binding against the C answers and
the file (esmini's intersection, MPL-2.0: tests/data/xodr/README.md), locating a lane's own centre, errors with
the file and line, and one network shared by threads (results identical to one thread's)."""
import os
import tempfile
import threading
import unittest

import sensim

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data", "xodr")
FILE = os.path.join(DATA, "lane_offset_intersection.xodr")


def _xy(m):
    return (m[0][3], m[1][3]) if not hasattr(m, "shape") else (float(m[0, 3]), float(m[1, 3]))


class Roads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.net = sensim.RoadNetwork(FILE)

    @classmethod
    def tearDownClass(cls):
        cls.net.close()

    def test_roads_and_geometry(self):
        roads = self.net.roads()
        self.assertEqual(len(roads), len(self.net))
        self.assertEqual(len(roads), 10)
        for r in roads:
            self.assertEqual(self.net.find(r["id"]), r["index"])
            g = self.net.geometry(r["index"], 0)
            x, y = _xy(self.net.pose(r["index"], g["s0"]))
            self.assertAlmostEqual(x, g["x"], places=9)  # a road starts where the file says
            self.assertAlmostEqual(y, g["y"], places=9)
        self.assertEqual(sum(r["junction"] != "-1" for r in roads), 6)  # the junction's connecting roads
        with self.assertRaises(sensim.NotFound):
            self.net.find("no such road")

    def test_lanes_and_links(self):
        r = self.net.roads()[0]
        lanes = self.net.lanes(0, r["length_m"] / 2)
        ids = [ln["id"] for ln in lanes]
        self.assertIn(0, ids)
        self.assertEqual(ids, sorted(ids, reverse=True))  # left outermost first ... right outermost last
        for ln in lanes:
            self.assertAlmostEqual(ln["width"], abs(ln["t_outer"] - ln["t_inner"]), places=12)
            if ln["id"] == 0:
                continue
            for nx in self.net.next_lanes(0, ln["section"], ln["id"]):
                back = self.net.previous_lanes(nx["road"], nx["section"], nx["lane"])
                self.assertTrue(any(b["road"] == 0 and b["lane"] == ln["id"] and b["section"] == ln["section"]
                                    for b in back), (ln["id"], nx, back))

    def test_locate_finds_a_lanes_own_centre(self):
        for road in range(len(self.net)):
            length = self.net.road(road)["length_m"]
            s = 0.37 * length
            for ln in self.net.lanes(road, s):
                if ln["type"] != "driving" or ln["width"] < 0.5:
                    continue
                m = self.net.pose(road, s, 0.5 * (ln["t_inner"] + ln["t_outer"]), 0.0)
                p = [float(m[i][3]) for i in range(3)]
                got = self.net.locate(p, "driving")
                self.assertLess(got["distance_m"], 1e-9)
                if self.net.road(road)["junction"] == "-1":  # (connecting roads overlap each other in a junction)
                    self.assertEqual((got["road"], got["lane"]), (road, ln["id"]))
                    self.assertAlmostEqual(got["s"], s, places=6)

    def test_lane_type_selection(self):
        m = self.net.pose(0, 1.0)
        p = [float(m[i][3]) for i in range(3)]
        drive = self.net.locate(p, "driving")["distance_m"]
        both = self.net.locate(p, ["driving", "sidewalk"])["distance_m"]
        anything = self.net.locate(p, "any")["distance_m"]
        self.assertLessEqual(both, drive)  # more lanes to choose from: never farther
        self.assertLessEqual(anything, both)
        self.assertEqual(self.net.locate(p, 0x2 | 0x20)["distance_m"], both)  # the bits say the same
        with self.assertRaises(sensim.InvalidArgument):
            self.net.locate(p, "motorway")
        with self.assertRaises(sensim.InvalidArgument):
            self.net.pose(0, float("nan"))

    def test_errors_name_the_file_and_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.xodr")
            with open(path, "w") as f:
                f.write('<OpenDRIVE>\n<header/>\n<road id="1" length="x"/>\n</OpenDRIVE>\n')
            with self.assertRaises(sensim.ParseError) as cm:
                sensim.RoadNetwork(path)
            self.assertIn("bad.xodr:3: <road> length: not a number", cm.exception.message)
            with self.assertRaises(sensim.FileError):
                sensim.RoadNetwork(os.path.join(tmp, "missing.xodr"))
            with self.assertRaises(sensim.InvalidArgument):
                sensim.RoadNetwork(path + "\0")

    def test_threads_share_one_network(self):
        # four threads locate the same points at once, many rounds: every answer is the single-threaded one
        pts = []
        for road in range(len(self.net)):
            m = self.net.pose(road, 0.5 * self.net.road(road)["length_m"], -1.0, 0.5)
            pts.append([float(m[i][3]) for i in range(3)])
        want = [self.net.locate(p) for p in pts]
        errors = []

        def work():
            try:
                for _ in range(25):
                    if [self.net.locate(p) for p in pts] != want:
                        errors.append("differs")
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(repr(e))
        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])


if __name__ == "__main__":
    unittest.main()
