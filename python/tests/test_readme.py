"""docs/python.md's first steps in Python, run exactly as written (the block between the
first-steps-python markers) from the top of the checkout with a plain environment, and
its printed figures checked against the PLY it wrote."""
import os
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def readme_block():
    with open(os.path.join(REPO, "docs", "python.md"), encoding="utf-8") as f:
        text = f.read()
    begin, end = "<!-- first-steps-python: begin -->", "<!-- first-steps-python: end -->"
    body = text[text.index(begin) + len(begin):text.index(end)].strip()
    assert body.startswith("```sh cwd=repo\n") and body.endswith("\n```"), body[:40]
    return body[len("```sh cwd=repo\n"):-len("\n```")]


class ReadmeFirstSteps(unittest.TestCase):
    def test_block_runs_as_written(self):
        if os.environ.get("SENSIM_DISABLE_NUMPY"):
            self.skipTest("the block is the numpy path; it runs once, in the numpy suite (both write out/first.ply)")
        lib = os.path.join(REPO, "build", "libsensim.so")
        if not os.path.exists(lib):
            self.skipTest("no build/libsensim.so (the block names the default build directory)")
        block = readme_block()
        # a user's shell: none of the test harness's variables
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("SENSIM_") and k not in ("PYTHONPATH", "PYTHONHOME")}
        out = os.path.join(REPO, "out", "first.ply")
        if os.path.exists(out):
            os.remove(out)
        r = subprocess.run(["bash", "-e", "-c", block], cwd=REPO, env=env, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("Warning", r.stderr)  # /usr/bin/python3 has numpy: no warning
        words = r.stdout.split()
        n, nearest = int(words[0]), float(words[3])  # "N points; nearest R m on TAG"
        with open(out, "rb") as f:
            data = f.read()
        head = data[:data.index(b"end_header\n")].decode()
        count = int([l for l in head.splitlines() if l.startswith("element vertex")][0].split()[2])
        self.assertEqual(count, n)
        self.assertGreater(n, 100000)  # a Pandar64 turn on the street: ~113 k points
        # 1.8 m up over the road: nothing is nearer than the lidar's minimum range nor farther than the road
        self.assertTrue(0.3 <= nearest < 1.8 / 0.1, r.stdout)


if __name__ == "__main__":
    unittest.main()
