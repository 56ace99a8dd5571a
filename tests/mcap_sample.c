/* Writes an MCAP file of every message type (carla_msgs included) with known values, for the
 * independent reader in tests/node (test_mcap.py compares what it decodes
 * with the values below).
 *
 * Usage: mcap_sample PREFIX none|zstd|lz4 [split_ns]
 * Writes 20 steps of 50 ms: per step a PointCloud2 of 1000 points (point i
 * of step s at (s + i/1000, -i, 0.5 s), t = 1000 i ns), an IMU, a GNSS fix,
 * an odometry, a /tf, a /clock, a vehicle status (velocity s m/s, control
 * throttle s/20, steer -0.5, gear 3, reverse on odd steps), a vehicle control
 * (throttle 1, brake 0.25, hand brake) and a collision (other actor 100 + s,
 * impulse (s, -2, 0.5)); at step 0 a /tf_static, an image (4 x 3 rgb8, pixel
 * (u, v) = (u, v, s)), its CameraInfo, a vehicle info (id 42,
 * "vehicle.tesla.model3", "hero", wheel i radius 35 + i cm, max steer 70 on
 * the front pair, mass 1845 kg, centre of mass (0.1, 0, -0.3)) and lane
 * invasions of {1, 2} and {} (empty). */
#include <sensim/sensim.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                                                  \
    do {                                                                                          \
        sensim_status st_ = (x);                                                                  \
        if (st_) {                                                                                \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, sensim_context_last_error(NULL)); \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    sensim_mcap_options o;
    sensim_mcap_options_init(&o);
    o.compression = !strcmp(argv[2], "zstd") ? SENSIM_MCAP_ZSTD : !strcmp(argv[2], "lz4") ? SENSIM_MCAP_LZ4
                                                                                           : SENSIM_MCAP_NONE;
    o.chunk_bytes = 16384; /* several chunks */
    if (argc > 3)
        o.split_ns = atoll(argv[3]);
    sensim_mcap *m;
    CHECK(sensim_mcap_open(argv[1], &o, &m));
    uint16_t pc, img, info, imu, gnss, odom, tf, tfs, clk;
    CHECK(sensim_mcap_add_topic(m, "/clock", SENSIM_ROS_CLOCK, &clk));
    CHECK(sensim_mcap_add_topic(m, "/lidar/points", SENSIM_ROS_POINTCLOUD2, &pc));
    CHECK(sensim_mcap_add_topic(m, "/imu", SENSIM_ROS_IMU, &imu));
    CHECK(sensim_mcap_add_topic(m, "/gnss/fix", SENSIM_ROS_NAVSATFIX, &gnss));
    CHECK(sensim_mcap_add_topic(m, "/odom", SENSIM_ROS_ODOMETRY, &odom));
    CHECK(sensim_mcap_add_topic(m, "/tf", SENSIM_ROS_TF, &tf));
    CHECK(sensim_mcap_add_topic(m, "/tf_static", SENSIM_ROS_TF_STATIC, &tfs));
    CHECK(sensim_mcap_add_topic(m, "/camera/image", SENSIM_ROS_IMAGE, &img));
    CHECK(sensim_mcap_add_topic(m, "/camera/camera_info", SENSIM_ROS_CAMERA_INFO, &info));
    uint16_t vstat, vinfo, vctl, coll, lane;
    CHECK(sensim_mcap_add_topic(m, "/carla/hero/vehicle_status", SENSIM_ROS_VEHICLE_STATUS, &vstat));
    CHECK(sensim_mcap_add_topic(m, "/carla/hero/vehicle_info", SENSIM_ROS_VEHICLE_INFO, &vinfo));
    CHECK(sensim_mcap_add_topic(m, "/carla/hero/vehicle_control_cmd", SENSIM_ROS_VEHICLE_CONTROL, &vctl));
    CHECK(sensim_mcap_add_topic(m, "/carla/hero/collision", SENSIM_ROS_COLLISION, &coll));
    CHECK(sensim_mcap_add_topic(m, "/carla/hero/lane_invasion", SENSIM_ROS_LANE_INVASION, &lane));
    static sensim_point pts[1000];
    for (int s = 0; s < 20; s++) {
        int64_t t = 1000000000LL + 50000000LL * s; /* from 1 s */
        if (s == 0) {
            sensim_ros_transform st[2];
            memset(st, 0, sizeof st);
            for (int k = 0; k < 2; k++) {
                st[k].stamp_ns = t;
                st[k].parent_frame = "base_link";
                st[k].pose[0] = st[k].pose[5] = st[k].pose[10] = st[k].pose[15] = 1;
            }
            st[0].child_frame = "lidar";
            st[0].pose[14] = 1.8;
            st[1].child_frame = "camera_optical";
            /* optical: columns are the optical axes in the body frame */
            double r[9] = {0, -1, 0, 0, 0, -1, 1, 0, 0};
            for (int c = 0; c < 3; c++)
                for (int rr = 0; rr < 3; rr++)
                    st[1].pose[4 * c + rr] = r[3 * c + rr];
            st[1].pose[12] = 2.0;
            CHECK(sensim_mcap_write_transforms(m, tfs, t, st, 2));
            uint8_t rgb[3 * 4 * 3];
            for (int v = 0; v < 3; v++)
                for (int u = 0; u < 4; u++) {
                    rgb[3 * (4 * v + u) + 0] = (uint8_t)u;
                    rgb[3 * (4 * v + u) + 1] = (uint8_t)v;
                    rgb[3 * (4 * v + u) + 2] = (uint8_t)s;
                }
            CHECK(sensim_mcap_write_image(m, img, t, t, "camera_optical", 4, 3, "rgb8", 12, rgb));
            sensim_camera_info ci;
            memset(&ci, 0, sizeof ci);
            ci.width = 4, ci.height = 3;
            strcpy(ci.distortion_model, "plumb_bob");
            double k[9] = {2, 0, 1.5, 0, 2, 1, 0, 0, 1};
            memcpy(ci.k, k, sizeof k);
            ci.r[0] = ci.r[4] = ci.r[8] = 1;
            ci.p[0] = 2, ci.p[2] = 1.5, ci.p[5] = 2, ci.p[6] = 1, ci.p[10] = 1;
            ci.d[0] = -0.25;
            CHECK(sensim_mcap_write_camera_info(m, info, t, t, "camera_optical", &ci));
            sensim_vehicle_wheel wh[4];
            memset(wh, 0, sizeof wh);
            for (int i = 0; i < 4; i++) {
                wh[i].tire_friction = 3.5f, wh[i].damping_rate = 0.25f, wh[i].radius = 35.0f + (float)i;
                wh[i].max_steer_angle = i < 2 ? 70.0f : 0.0f;
                wh[i].max_brake_torque = 700, wh[i].max_handbrake_torque = i < 2 ? 0.0f : 1500.0f;
                wh[i].position[0] = i < 2 ? 150.0 : -150.0, wh[i].position[1] = i % 2 ? -80.0 : 80.0;
                wh[i].position[2] = 35.0;
            }
            sensim_vehicle_info vi;
            memset(&vi, 0, sizeof vi);
            vi.id = 42, vi.type = "vehicle.tesla.model3", vi.rolename = "hero", vi.wheels = wh, vi.wheel_count = 4;
            vi.max_rpm = 15000, vi.moi = 1, vi.damping_rate_full_throttle = 0.15f;
            vi.damping_rate_zero_throttle_clutch_engaged = 2, vi.damping_rate_zero_throttle_clutch_disengaged = 0.35f;
            vi.use_gear_autobox = 1, vi.gear_switch_time = 0.5f, vi.clutch_strength = 10, vi.mass = 1845;
            vi.drag_coefficient = 0.15f, vi.center_of_mass[0] = 0.1, vi.center_of_mass[2] = -0.3;
            CHECK(sensim_mcap_write_vehicle_info(m, vinfo, t, &vi));
            int32_t crossed[2] = {1, 2};
            CHECK(sensim_mcap_write_lane_invasion(m, lane, t, t, "hero", crossed, 2));
            CHECK(sensim_mcap_write_lane_invasion(m, lane, t, t, "hero", NULL, 0));
        }
        CHECK(sensim_mcap_write_clock(m, clk, t, t));
        for (int i = 0; i < 1000; i++) {
            memset(&pts[i], 0, sizeof pts[i]);
            pts[i].x = (float)(s + i / 1000.0);
            pts[i].y = (float)-i;
            pts[i].z = (float)(0.5 * s);
            pts[i].t_offset_ns = 1000u * (uint32_t)i;
            pts[i].channel = (uint16_t)(i % 16);
        }
        sensim_frame_header h;
        memset(&h, 0, sizeof h);
        h.t_begin_ns = t;
        h.t_end_ns = t + 50000000;
        h.point_count = 1000;
        sensim_frame_view v = {&h, {pts, pts + 600}, {600, 400}};
        CHECK(sensim_mcap_write_points(m, pc, t + 50000000, "lidar", &v));
        sensim_nav_sample ns;
        memset(&ns, 0, sizeof ns);
        ns.t_ns = t;
        ns.accel[2] = 9.81;
        ns.gyro[2] = 0.1 * s;
        ns.orientation[0] = cos(0.05 * s), ns.orientation[3] = sin(0.05 * s); /* yaw 0.1 s */
        ns.latitude_deg = 48.0 + 1e-6 * s, ns.longitude_deg = 11.0, ns.altitude_m = 500.0;
        CHECK(sensim_mcap_write_imu(m, imu, t, "imu", &ns, -1, 1e-6, 1e-4));
        CHECK(sensim_mcap_write_navsatfix(m, gnss, t, "gnss", &ns, 0.25, 1.0));
        double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0.5 * s, 0, 0, 1};
        double lin[3] = {10, 0, 0}, ang[3] = {0, 0, 0};
        CHECK(sensim_mcap_write_odometry(m, odom, t, t, "odom", "base_link", pose, lin, ang));
        sensim_ros_transform d;
        memset(&d, 0, sizeof d);
        d.stamp_ns = t;
        d.parent_frame = "odom";
        d.child_frame = "base_link";
        memcpy(d.pose, pose, sizeof pose);
        CHECK(sensim_mcap_write_transforms(m, tf, t, &d, 1));
        sensim_vehicle_status vs;
        memset(&vs, 0, sizeof vs);
        vs.velocity = s;
        vs.linear_acceleration[0] = 0.5 * s, vs.linear_acceleration[1] = -1;
        vs.orientation[2] = sin(0.05 * s), vs.orientation[3] = cos(0.05 * s);
        vs.control.throttle = (float)s / 20.0f, vs.control.steer = -0.5f, vs.control.gear = 3;
        vs.control.reverse = (uint8_t)(s % 2);
        CHECK(sensim_mcap_write_vehicle_status(m, vstat, t, t, "map", &vs));
        sensim_vehicle_control vc = {1.0f, 0.0f, 0.25f, 0, 1, 0, 0, 0};
        CHECK(sensim_mcap_write_vehicle_control(m, vctl, t, t, "hero", &vc));
        double imp[3] = {s, -2, 0.5};
        CHECK(sensim_mcap_write_collision(m, coll, t, t, "hero", 100u + (uint32_t)s, imp));
    }
    uint32_t files;
    CHECK(sensim_mcap_close(m, &files));
    printf("%u\n", files);
    return 0;
}
