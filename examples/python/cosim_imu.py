"""Co-simulation the way a vehicle-dynamics tool hands over its state: a
kinematic bicycle integrates at 1 kHz and, each tick, pushes the pose it just
computed into the rig and steps the rig up to it. The rig's one motion model
gives the lidar its per-shot poses and the IMU its accelerations from that
history. Checks the IMU's specific force against the bicycle's own
acceleration (longitudinal a, lateral v·ω) and its yaw rate, then does the
same pushing full states (velocity, acceleration, body rate), which are used
exactly.
usage: cosim_imu.py [seconds]"""
import math
import sys

import sensim
from street_scene import build

WHEELBASE = 2.8
G = 9.80665


class Bicycle:
    def __init__(self, x, y, yaw, v):
        self.x, self.y, self.yaw, self.v = x, y, yaw, v
        self.steer, self.accel = 0.0, 0.0

    def step(self, dt, steer, accel):
        self.x += self.v * math.cos(self.yaw) * dt
        self.y += self.v * math.sin(self.yaw) * dt
        self.yaw += self.yaw_rate() * dt
        self.v += accel * dt
        self.steer, self.accel = steer, accel

    def yaw_rate(self):
        return self.v / WHEELBASE * math.tan(self.steer)

    def pose(self):
        return sensim.pose(self.x, self.y, 0.0, 0.0, 0.0, math.degrees(self.yaw))

    def state(self):
        """World velocity and acceleration, body yaw rate (the model's own derivatives)."""
        c, s, w = math.cos(self.yaw), math.sin(self.yaw), self.yaw_rate()
        vel = [self.v * c, self.v * s, 0.0]
        acc = [self.accel * c - self.v * w * s, self.accel * s + self.v * w * c, 0.0]
        return vel, acc, [0.0, 0.0, w]


def run(seconds, states):
    ctx = sensim.Context()
    scene, _, _ = build(ctx)
    lidar = sensim.Lidar(ctx, "vlp16", {"mount_xyz_m": "1.2,0,1.7"})
    ring = sensim.Ring.for_lidar(lidar, 4)
    imu = sensim.Nav(ctx, "imu", {"rate_hz": 1000})
    imu_ring = sensim.NavRing(4096)
    rig = sensim.Rig(ctx)
    rig.add_lidar(lidar, ring)
    rig.add_nav(imu, imu_ring)
    car = Bicycle(-40.0, -1.5, 0.0, 10.0)
    dt_ns = 1_000_000
    truth = {}
    worst_f, worst_w, frames = 0.0, 0.0, 0
    steps = int(seconds * 1000)
    for k in range(steps + 1):
        t_ns = k * dt_ns
        # the input the model steers with during the next tick, known now (as a dynamics tool knows it)
        car.steer, car.accel = 0.08 * math.sin(2 * math.pi * 0.5 * t_ns * 1e-9), 1.0
        vel, acc, rate = car.state()
        truth[t_ns] = (car.accel, car.v * car.yaw_rate(), car.yaw_rate())
        if states:
            rig.push_state(t_ns, car.pose(), velocity=vel, acceleration=acc, angular_velocity=rate)
        else:
            rig.push_pose(t_ns, car.pose())
        if k:
            res = rig.step(scene, dt_ns)  # covers [t - 1 ms, t): up to the pose just pushed
            if res["sensors_refused"]:  # a refused sensor is data not produced: never ignored
                raise SystemExit("%d sensors refused the step (ring full)" % res["sensors_refused"])
        car.step(dt_ns * 1e-9, car.steer, car.accel)
        for _, smp in imu_ring.frames():
            if smp["index"] < 5:  # the model's start-up: fewer than 5 keys of history
                continue
            ax, ay, w = truth[smp["t_ns"]]
            worst_f = max(worst_f, abs(smp["accel"][0] - ax), abs(smp["accel"][1] - ay), abs(smp["accel"][2] - G))
            worst_w = max(worst_w, abs(smp["gyro"][2] - w))
        for frame in ring.frames():
            assert len(frame) > 1000
            frames += 1
    rig.close()
    imu.close()
    return worst_f, worst_w, frames


def main(seconds=1.0):
    f, w, n = run(seconds, states=False)
    print("push_pose at 1 kHz: IMU specific force within %.2e m/s^2, yaw rate within %.2e rad/s, %d lidar frames"
          % (f, w, n))
    fs, ws, _ = run(seconds, states=True)
    print("push_state at 1 kHz: within %.2e m/s^2 and %.2e rad/s" % (fs, ws))
    # poses alone: the stencil's error on the Euler-integrated path (the steering changes within a tick)
    return f < 2e-2 and w < 1e-3 and fs < 1e-9 and ws < 1e-9 and n >= 9


if __name__ == "__main__":
    sys.exit(0 if main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0) else 1)
