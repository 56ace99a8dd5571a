#!/usr/bin/python3
"""Platform position error of the two motion models against a true circle
(CHANGES.md, 0.2): keys every H s on a circle of radius R at speed V.
Run from the source tree after `make build`:
  SENSIM_LIBRARY=build/libsensim.so PYTHONPATH=python /usr/bin/python3 scripts/motion_compare.py [R V H]"""
import math
import sys

import numpy as np
import sensim

R, V, H = (float(x) for x in sys.argv[1:4]) if len(sys.argv) == 4 else (20.0, 10.0, 0.1)


def truth(t):
    th = V / R * t
    return sensim.pose(R * math.sin(th), R - R * math.cos(th), 1.8, 0, 0, math.degrees(th))


n = 61
keys = [(int(round(i * H * 1e9)), truth(i * H)) for i in range(n)]
for model in ("linear", "causal"):
    worst = worst5 = 0.0
    for tn in range(0, keys[-1][0], max(1, int(H * 7e7))):
        got = np.array(sensim.kinematics_at(keys, tn, model)["pose"])[:3, 3]
        e = float(np.linalg.norm(got - np.array(truth(tn * 1e-9))[:3, 3]))
        worst = max(worst, e)
        if tn >= 5 * H * 1e9:
            worst5 = max(worst5, e)
    print("%s: worst position error %.2e m (from the 5th key on %.2e m)" % (model, worst, worst5))
