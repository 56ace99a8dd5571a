"""Co-simulation: an external vehicle model (kinematic bicycle) integrates at
1 kHz; the lidar rig steps at 20 Hz and is given every intermediate pose as a
motion key, so each shot sees exactly the state the vehicle model had at that
time. Checks that each frame header pose equals the model's state at the
frame's start.
usage: cosim_bicycle.py [seconds]"""
import math
import sys

import sensim
from street_scene import build

WHEELBASE = 2.8


class Bicycle:
    def __init__(self, x, y, yaw, v):
        self.x, self.y, self.yaw, self.v = x, y, yaw, v

    def step(self, dt, steer, accel):
        self.x += self.v * math.cos(self.yaw) * dt
        self.y += self.v * math.sin(self.yaw) * dt
        self.yaw += self.v / WHEELBASE * math.tan(steer) * dt
        self.v += accel * dt

    def pose(self):
        return sensim.pose(self.x, self.y, 0.0, 0.0, 0.0, math.degrees(self.yaw))  # pose() takes degrees


def main(seconds=1.0):
    ctx = sensim.Context()
    scene, _, _ = build(ctx)
    lidar = sensim.Lidar(ctx, "vlp16", {"mount_xyz_m": "1.2,0,1.7"})
    ring = sensim.Ring(lidar.info["shots_per_frame"] * 2, 8)
    rig = sensim.Rig(ctx)
    rig.add_lidar(lidar, ring)
    car = Bicycle(-40.0, -1.5, 0.0, 10.0)
    history = {0: car.pose()}
    t_ns, model_dt_ns, rig_dt_ns = 0, 1000000, 50000000
    frames = 0
    while t_ns < seconds * 1e9:
        keys = [(t_ns, car.pose())]
        for _ in range(rig_dt_ns // model_dt_ns):  # 1 kHz vehicle model
            steer = 0.08 * math.sin(2 * math.pi * 0.5 * t_ns * 1e-9)
            car.step(model_dt_ns * 1e-9, steer, 0.5)
            t_ns += model_dt_ns
            keys.append((t_ns, car.pose()))
            history[t_ns] = car.pose()
        res = rig.step(scene, rig_dt_ns, keys=keys)  # 51 keys: every intermediate pose
        if res["sensors_refused"]:  # a refused sensor is data not produced: never ignored
            raise SystemExit("%d sensors refused the step (ring full)" % res["sensors_refused"])
        for frame in ring.frames():
            mount = sensim.pose(1.2, 0, 1.7)
            want = [[sum(history[frame.header["t_begin_ns"]][r][k] * mount[k][c] for k in range(4))
                     for c in range(4)] for r in range(4)]
            got = frame.header["sensor_pose"]
            err = max(abs(got[r][c] - want[r][c]) for r in range(4) for c in range(4))
            assert err < 1e-9, err
            assert len(frame) > 1000
            frames += 1
    print("%d frames, vehicle at x=%.2f y=%.2f yaw=%.3f v=%.2f" % (frames, car.x, car.y, car.yaw, car.v))
    return frames


if __name__ == "__main__":
    sys.exit(0 if main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0) >= 9 else 1)
