#!/usr/bin/python3
"""Issue 51: `sensim ros2 --rate R` tells the truth about pacing. A run that cannot keep up (pandar128 on
the street at 50 x real time: 10 frames of world a second in 20 ms of wall) says while it is behind how
far and since when, and sums up at the end (steps late, worst lag); a run that keeps up sums up too.
Usage: test_pacing.py SENSIM"""
import os
import re
import subprocess
import sys
import tempfile

SENSIM = sys.argv[1]
fails = 0


def check(cond, what):
    global fails
    if not cond:
        fails += 1
        print("FAIL:", what)


with tempfile.TemporaryDirectory() as tmp:
    traj = os.path.join(tmp, "t.csv")
    with open(traj, "w") as f:
        f.write("t,x,y,z,roll,pitch,yaw\n0,-20,0,1.8,0,0,0\n3,-15,1,1.8,0,0,10\n")
    r = subprocess.run([SENSIM, "ros2", "--dry-run", "--scene", "street", "--lidar", "pandar128", "--trajectory",
                        traj, "--rate", "50", "--quiet"], capture_output=True, text=True, timeout=600)
    behind = re.findall(r"behind real time x rate by ([0-9.]+) s at world ([0-9.]+) s \(behind since world "
                        r"([0-9.]+) s; (\d+) of (\d+) steps late\)", r.stderr)
    summary = re.search(r"paced at 50 x real time: (\d+) of (\d+) steps late \(([0-9.]+) %\), worst lag ([0-9.]+) s",
                        r.stderr)
    check(r.returncode == 0 and behind and summary, "a run that falls behind says so: %r" % r.stderr)
    if behind and summary:
        lag, at, since, late, steps = behind[0]
        check(float(lag) > 0.001 and float(since) <= float(at), "the behind line: %r" % (behind[0],))
        # 3 s of world in 0.1 s steps: 30 steps after the first; nearly all late, the worst lag the last line's or more
        check(int(summary.group(2)) == 29 and int(summary.group(1)) >= 25, "the summary counts: %r" % (summary.groups(),))
        check(float(summary.group(4)) >= max(float(b[0]) for b in behind), "the worst lag is the worst: %r" % r.stderr)
    r = subprocess.run([SENSIM, "ros2", "--dry-run", "--scene", "street", "--lidar", "vlp16", "--trajectory", traj,
                        "--rate", "max", "--quiet"], capture_output=True, text=True, timeout=600)
    check(r.returncode == 0 and "paced at" not in r.stderr and "behind" not in r.stderr,
          "--rate max is not paced and says nothing of pacing: %r" % r.stderr)
print("pacing: %s" % ("ok" if not fails else "%d failed" % fails))
sys.exit(1 if fails else 0)
