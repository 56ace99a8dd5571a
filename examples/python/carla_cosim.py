"""A CARLA co-simulation loop, unchanged but for its import: each tick the host's vehicle model
(a kinematic car on a 50 m circle at 10 m/s, turning right) computes the ego's pose and hands it
over with set_transform, then ticks the world; the IMU, GNSS and lidar attached to the ego listen.
It checks what a vehicle-dynamics user checks first: the IMU reads the centripetal acceleration
v^2/R = 2 m/s^2 to the right (CARLA's +y), gravity +9.81 on z, a yaw rate v/R = 0.2 rad/s (positive:
yaw increasing, a right turn in CARLA's left-handed frame), and the GNSS moves along the circle.

usage: carla_cosim.py [SECONDS]"""
import math
import sys

import sensim.carla as carla  # with CARLA: import carla

V, R, DT = 10.0, 50.0, 0.01


def main(seconds):
    client = carla.Client("localhost", 2000)
    world = client.get_world()
    settings = world.get_settings()
    settings.synchronous_mode, settings.fixed_delta_seconds = True, DT
    world.apply_settings(settings)
    bl = world.get_blueprint_library()
    # the circle's centre 50 m to the right of the start (CARLA +y), starting at x = -60 heading +x
    cx, cy, yaw = -60.0, 1.75 + R, 0.0
    ego = world.spawn_actor(bl.find("vehicle.lincoln.mkz_2020"),
                            carla.Transform(carla.Location(x=cx, y=1.75, z=0.0), carla.Rotation(yaw=0.0)))
    imu = world.spawn_actor(bl.find("sensor.other.imu"), carla.Transform(), attach_to=ego)
    gnss = world.spawn_actor(bl.find("sensor.other.gnss"), carla.Transform(), attach_to=ego)
    lb = bl.find("sensor.lidar.ray_cast")
    lb.set_attribute("range", "50")
    lidar = world.spawn_actor(lb, carla.Transform(carla.Location(z=2.4)), attach_to=ego)
    log = {"imu": [], "gnss": [], "lidar": 0}
    imu.listen(lambda m: log["imu"].append((m.timestamp, m.accelerometer, m.gyroscope)))
    gnss.listen(lambda m: log["gnss"].append((m.latitude, m.longitude)))
    lidar.listen(lambda m: log.__setitem__("lidar", log["lidar"] + len(m)))
    steps = int(round(seconds / DT))
    for k in range(1, steps + 1):
        # the host's model: the heading turns right at v/R, the car stays on the circle
        a = V / R * k * DT
        x, y = cx + R * math.sin(a), cy - R * math.cos(a)
        ego.set_transform(carla.Transform(carla.Location(x=x, y=y, z=0.0), carla.Rotation(yaw=math.degrees(a))))
        world.tick()
    # from the 6th tick on the rig's causal model has its five keys: the IMU reads the circle
    worst = 0.0
    for t, acc, gyro in log["imu"][6:]:
        worst = max(worst, abs(acc.x), abs(acc.y - V * V / R), abs(acc.z - 9.81), abs(gyro.z - V / R),
                    abs(gyro.x), abs(gyro.y))
    assert worst < 2e-3, "IMU off the circle by %g" % worst
    assert len(log["gnss"]) == steps and log["gnss"][-1] != log["gnss"][0]
    assert log["lidar"] > 1000
    print("carla_cosim: %d ticks of %g s, IMU within %.1e of v^2/R = %g m/s^2 and v/R = %g rad/s, %d lidar points"
          % (steps, DT, worst, V * V / R, V / R, log["lidar"]))


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)
