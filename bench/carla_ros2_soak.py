#!/usr/bin/python3
"""Soak of CARLA's native ROS 2 from sensim.carla (issue 68 item 5): a synchronous world at 20 Hz with
the vehicle and sensors of examples/python/carla_ros2_stack.json (64-channel lidar at 600k points/s,
a 400 x 200 camera, IMU, GNSS) enabled for ROS, a control node (tests/dds/ros2_control_pub, Cyclone
alone) sending throttle and steer on /carla/hero/vehicle_control_cmd at 20 Hz, and a subscriber
(tests/dds/ros2_sub --count-only) taking the lidar, the image and the odometry. Ticks as fast as it can
for MINUTES of world time and prints the process's resident memory every world minute, then the
figures BENCHMARKS.md states: RSS after the first world minute, at the end, the largest, and the growth
per world hour fitted over minutes 1..end (least squares).

usage: carla_ros2_soak.py ROS2_SUB CONTROL_PUB [MINUTES=60]
(run from the build tree: PYTHONPATH=python SENSIM_LIBRARY=build/libsensim.so
 SENSIM_PRESET_PATH=scan_patterns CYCLONEDDS_URI=file://$PWD/tests/dds/cyclonedds_loopback.xml)"""
import json
import os
import subprocess
import sys
import time

import sensim.carla as carla

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "python"))
import carla_ros2_native  # noqa: E402  (the example's stack: the same vehicle and sensors)


def rss_mib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def main():
    sub_exe, pub_exe = sys.argv[1:3]
    minutes = float(sys.argv[3]) if len(sys.argv) > 3 else 60.0
    with open(os.path.join(HERE, "..", "examples", "python", "carla_ros2_stack.json")) as f:
        cfg = json.load(f)
    client = carla.Client("localhost", 2000)
    world = client.load_world("town")
    s = world.get_settings()
    s.synchronous_mode, s.fixed_delta_seconds = True, 0.05
    world.apply_settings(s)
    car = carla_ros2_native.spawn_stack(world, cfg)[0]
    world.tick()
    pub = subprocess.Popen([pub_exe, "/carla/hero/vehicle_control_cmd", "0.3", "0.2", "0.0", "--hz", "20"],
                           stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    sub = subprocess.Popen([sub_exe, "/tmp", "--count-only", "--best-effort", "--timeout", "100000",
                            "/carla/hero/lidar:PointCloud2:1000000000", "/carla/hero/rgb/image:Image:1000000000",
                            "/carla/hero/odometry:Odometry:1000000000"], stdout=subprocess.PIPE, text=True)
    ticks_per_min = 20 * 60
    samples, t0 = [], time.monotonic()
    for m in range(int(minutes)):
        for _ in range(ticks_per_min):
            world.tick()
        samples.append(rss_mib())
        print("world minute %d: RSS %.1f MiB, x %.1f, %.0f ticks/s" % (
            m + 1, samples[-1], car.get_location().x, (m + 1) * ticks_per_min / (time.monotonic() - t0)),
            flush=True)
    pub.stdin.close()
    pub.wait()
    sub.terminate()
    counts = sub.communicate()[0].strip().replace("\n", ", ")
    xs = list(range(1, len(samples)))
    ys = samples[1:]
    slope = 0.0
    if len(xs) > 1:
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    print("soak: %d world minutes in %.0f s; RSS %.1f MiB after minute 1, %.1f at the end, %.1f at most; "
          "fitted growth %.2f MiB per world hour; received %s" % (
              len(samples), time.monotonic() - t0, samples[0], samples[-1], max(samples), 60 * slope, counts))


if __name__ == "__main__":
    main()
