"""A CARLA synchronous-mode collector, unchanged but for its import: a vehicle the script drives
along the street, with a lidar, rgb, depth and semantic cameras, an IMU and a GNSS attached; each
tick's measurements are saved in the seed layout (rgb/ depth/ semseg/ lidar/ and one meta.json per
frame), as a CARLA collection script writes them.

usage: carla_sync_collect.py OUT_DIR [FRAMES]"""
import json
import os
import sys

import sensim.carla as carla  # with CARLA: import carla


def main(out, frames):
    client = carla.Client("localhost", 2000)
    client.set_timeout(10.0)
    world = client.get_world()
    settings = world.get_settings()
    settings.synchronous_mode = True
    settings.fixed_delta_seconds = 0.1
    world.apply_settings(settings)
    bl = world.get_blueprint_library()

    ego = world.spawn_actor(bl.find("vehicle.tesla.model3"),
                            carla.Transform(carla.Location(x=-40, y=1.75, z=0), carla.Rotation(yaw=0)))
    ego.set_target_velocity(carla.Vector3D(8, 0, 0))  # the script drives: 8 m/s along the street

    lb = bl.find("sensor.lidar.ray_cast")
    for k, v in (("channels", 32), ("range", 60), ("points_per_second", 100000), ("rotation_frequency", 10)):
        lb.set_attribute(k, str(v))
    cams = {}
    for name, bp_id in (("rgb", "sensor.camera.rgb"), ("depth", "sensor.camera.depth"),
                        ("semseg", "sensor.camera.semantic_segmentation")):
        bp = bl.find(bp_id)
        bp.set_attribute("image_size_x", "320")
        bp.set_attribute("image_size_y", "240")
        bp.set_attribute("fov", "90")
        cams[name] = world.spawn_actor(bp, carla.Transform(carla.Location(x=1.5, z=1.6)), attach_to=ego)
    lidar = world.spawn_actor(lb, carla.Transform(carla.Location(z=2.4)), attach_to=ego)
    imu = world.spawn_actor(bl.find("sensor.other.imu"), carla.Transform(), attach_to=ego)
    gnss = world.spawn_actor(bl.find("sensor.other.gnss"), carla.Transform(), attach_to=ego)

    latest = {}
    for name, cam in cams.items():
        cam.listen(lambda image, name=name: latest.__setitem__(name, image))
    lidar.listen(lambda m: latest.__setitem__("lidar", m))
    imu.listen(lambda m: latest.__setitem__("imu", m))
    gnss.listen(lambda m: latest.__setitem__("gnss", m))

    for d in ("rgb", "depth", "semseg", "lidar", "meta"):
        os.makedirs(os.path.join(out, d), exist_ok=True)
    conv = {"rgb": carla.ColorConverter.Raw, "depth": carla.ColorConverter.Raw,
            "semseg": carla.ColorConverter.CityScapesPalette}
    points = 0
    for _ in range(frames):
        frame = world.tick()
        for name in cams:
            image = latest[name]
            assert image.frame == frame, (name, image.frame, frame)
            image.save_to_disk(os.path.join(out, name, "%06d.png" % frame), conv[name])
        scan = latest["lidar"]
        assert scan.frame == frame
        scan.save_to_disk(os.path.join(out, "lidar", "%06d.ply" % frame))
        points += len(scan)
        t = ego.get_transform()
        meta = {"frame": frame, "timestamp": world.get_snapshot().timestamp.elapsed_seconds,
                "ego": {"x": t.location.x, "y": t.location.y, "z": t.location.z, "yaw": t.rotation.yaw},
                "imu": {"accelerometer": [latest["imu"].accelerometer.x, latest["imu"].accelerometer.y,
                                          latest["imu"].accelerometer.z], "compass": latest["imu"].compass},
                "gnss": [latest["gnss"].latitude, latest["gnss"].longitude, latest["gnss"].altitude],
                "lidar_points": len(scan), "camera_fov": cams["rgb"].attributes["fov"]}
        with open(os.path.join(out, "meta", "%06d.json" % frame), "w") as f:
            json.dump(meta, f, indent=1)
    for a in list(cams.values()) + [lidar, imu, gnss, ego]:
        a.destroy()
    # what a user checks first: every frame has its files, the car moved 8 m/s, the lidar saw the street
    names = sorted(os.listdir(os.path.join(out, "rgb")))
    assert names == ["%06d.png" % k for k in range(1, frames + 1)], names
    assert abs(meta["ego"]["x"] - (-40 + 8 * 0.1 * frames)) < 1e-9, meta["ego"]
    assert points > 1000 * frames, points
    print("carla_sync_collect: %d frames, %d lidar points, last ego x %.2f m, in %s"
          % (frames, points, meta["ego"]["x"], out))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "out/carla_collect", int(sys.argv[2]) if len(sys.argv) > 2 else 20)
