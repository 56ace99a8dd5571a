/* sensim batch --format mcap: one time-ordered rosbag2 MCAP of the whole run. */
#include "batch.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

static sensim_field radar_point_fields[13];

void init_radar_point_fields(void)
{
    static const char *const xyz[3] = {"x", "y", "z"};
    for (uint32_t i = 0; i < 3; i++)
        radar_point_fields[i] = (sensim_field){xyz[i], 4 * i, SENSIM_FIELD_FLOAT32, 1};
    uint32_t n;
    const sensim_field *f = sensim_radar_fields(&n);
    for (uint32_t i = 0; i < n && i < 10; i++) {
        radar_point_fields[3 + i] = f[i];
        radar_point_fields[3 + i].offset += (uint32_t)offsetof(radar_point, d);
    }
}

/* "/prefix/name/leaf" with '-' of the sensor name as '_' (ROS names have no '-') */
static void topic_name(char *dst, size_t cap, const char *prefix, const char *name, const char *leaf)
{
    snprintf(dst, cap, "%.127s/%.63s%s%.40s", prefix, name, leaf[0] ? "/" : "", leaf);
    for (char *p = dst; *p; p++)
        if (*p == '-')
            *p = '_';
}

static int mcap_fail(void)
{
    fprintf(stderr, "sensim: error: %s\n", sensim_context_last_error(NULL));
    return EXIT_STATUS_BASE + SENSIM_ERR_IO;
}

#define MC(x)                                                                             \
    do {                                                                                  \
        sensim_status st_ = (x);                                                          \
        if (st_) {                                                                        \
            fprintf(stderr, "sensim: error: %s\n", sensim_context_last_error(NULL));      \
            rc = EXIT_STATUS_BASE + (int)st_;                                             \
            goto end;                                                                     \
        }                                                                                 \
    } while (0)

/* Body-to-optical: columns are the optical x (right), y (down), z (forward)
 * in the camera body frame (x forward, y left, z up). */
static const double OPTICAL[16] = {0, -1, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 0, 1};

int run_mcap(mcap_run *R)
{
    const mcap_opts *mo = R->mo;
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%.4000s/sensim", R->out);
    sensim_mcap *m = NULL;
    int rc = 0;
    uint16_t t_clock = 0, t_tf = 0, t_tfs = 0, t_odom = 0;
    uint16_t tp[MAX_SENSORS][6]; /* per sensor: main topic(s); cameras: 5 outputs + camera_info */
    radar_point *rbuf = NULL;
    MC(sensim_mcap_open(prefix, &mo->o, &m));
    char name[512];
    topic_name(name, sizeof name, mo->prefix, "clock", "");
    MC(sensim_mcap_add_topic(m, mo->prefix[0] ? name : "/clock", SENSIM_ROS_CLOCK, &t_clock));
    if (!mo->no_tf) {
        MC(sensim_mcap_add_topic(m, "/tf", SENSIM_ROS_TF, &t_tf));
        MC(sensim_mcap_add_topic(m, "/tf_static", SENSIM_ROS_TF_STATIC, &t_tfs));
    }
    if (!mo->no_odom) {
        topic_name(name, sizeof name, mo->prefix, "odom", "");
        MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_ODOMETRY, &t_odom));
    }
    static const char *const outs[5] = {"depth", "semantic", "instance", "normal", "rgb"};
    uint64_t max_rays = 0;
    for (uint32_t s = 0; s < R->nspecs; s++) {
        const sensor_spec *sp = &R->specs[s];
        if (sp->camera) {
            for (int k = 0; k < 5; k++)
                if (R->cams[s].want & (1u << k)) {
                    char leaf[32];
                    snprintf(leaf, sizeof leaf, "%s/image", outs[k]);
                    topic_name(name, sizeof name, mo->prefix, sp->name, leaf);
                    MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_IMAGE, &tp[s][k]));
                }
            topic_name(name, sizeof name, mo->prefix, sp->name, "camera_info");
            MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_CAMERA_INFO, &tp[s][5]));
        } else if (sp->nav) {
            static const char *const leaf[3] = {"imu", "fix", "odom"};
            static const int32_t type[3] = {SENSIM_ROS_IMU, SENSIM_ROS_NAVSATFIX, SENSIM_ROS_ODOMETRY};
            topic_name(name, sizeof name, mo->prefix, sp->name, leaf[sp->nav - 1]);
            MC(sensim_mcap_add_topic(m, name, type[sp->nav - 1], &tp[s][0]));
        } else {
            topic_name(name, sizeof name, mo->prefix, sp->name, sp->radar ? "detections" : "points");
            MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_POINTCLOUD2, &tp[s][0]));
            if (sp->radar) {
                uint64_t n = sensim_radar_rays_per_sample(R->radars[s]);
                max_rays = n > max_rays ? n : max_rays;
            }
        }
    }
    init_radar_point_fields();
    if (max_rays && !(rbuf = malloc((max_rays + 1) * (sizeof *rbuf + sizeof(sensim_radar_detection))))) {
        fprintf(stderr, "sensim: error: out of memory for radar detections\n");
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        goto end;
    }
    /* events in time order: world steps (clock, tf, odom) first at equal
     * times, then sensors in rig order */
    const int64_t t0 = R->tr->keys[0].t_ns, t1 = R->tr->keys[R->tr->n - 1].t_ns;
    const int64_t s0 = -floordiv(-t0, R->step_ns), ns = floordiv(t1, R->step_ns) - s0;
    int64_t next[MAX_SENSORS + 1];
    for (uint32_t s = 0; s <= R->nspecs; s++)
        next[s] = R->fa;
    int static_done = mo->no_tf;
    static const double ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    while (!g_stop) {
        int best = -1;
        int64_t bt = INT64_MAX;
        for (uint32_t s = 0; s <= R->nspecs; s++) {
            int64_t count = s == R->nspecs ? ns : R->nframes[s];
            if (next[s] >= count || next[s] >= R->fb)
                continue;
            int64_t t = s == R->nspecs ? (s0 + next[s]) * R->step_ns : (R->first_frame[s] + next[s]) * R->periods[s];
            if (t < bt || (t == bt && s == R->nspecs))
                bt = t, best = (int)s;
        }
        if (best < 0)
            break;
        const uint32_t s = (uint32_t)best;
        const int64_t k = s == R->nspecs ? s0 + next[s] : R->first_frame[s] + next[s];
        next[s]++;
        if (!static_done) { /* mounts, once, at the first event */
            sensim_ros_transform st[2 * MAX_SENSORS];
            uint32_t n = 0;
            for (uint32_t j = 0; j < R->nspecs; j++) {
                memset(&st[n], 0, sizeof st[n]);
                st[n].stamp_ns = bt;
                st[n].parent_frame = mo->base_frame;
                st[n].child_frame = R->specs[j].name;
                if (R->specs[j].camera)
                    memcpy(st[n].pose, R->cams[j].mount, sizeof st[n].pose);
                else if (R->navs[j])
                    memcpy(st[n].pose, R->nav_desc[j].mount_pose, sizeof st[n].pose);
                else if (R->radars[j])
                    memcpy(st[n].pose, R->radar_desc[j].mount_pose, sizeof st[n].pose);
                else
                    sensim_lidar_get_mount_pose(R->lidars[j], st[n].pose);
                if (st[n].pose[15] == 0) /* an all-zero mount means identity */
                    memcpy(st[n].pose, ident, sizeof ident);
                n++;
                if (R->specs[j].camera) {
                    static char optical[MAX_SENSORS][80];
                    snprintf(optical[j], sizeof optical[j], "%.63s_optical", R->specs[j].name);
                    memset(&st[n], 0, sizeof st[n]);
                    st[n].stamp_ns = bt;
                    st[n].parent_frame = R->specs[j].name;
                    st[n].child_frame = optical[j];
                    memcpy(st[n].pose, OPTICAL, sizeof OPTICAL);
                    n++;
                }
            }
            if (n)
                MC(sensim_mcap_write_transforms(m, t_tfs, bt, st, n));
            static_done = 1;
        }
        if (s == R->nspecs) { /* world step: clock, platform tf and odometry */
            MC(sensim_mcap_write_clock(m, t_clock, bt, bt));
            if (!mo->no_tf || !mo->no_odom) {
                sensim_kinematics kin;
                MC(sensim_kinematics_at(R->tr->keys, R->tr->n, g_motion, bt, &kin));
                if (!mo->no_tf) {
                    sensim_ros_transform x;
                    memset(&x, 0, sizeof x);
                    x.stamp_ns = bt, x.parent_frame = mo->odom_frame, x.child_frame = mo->base_frame;
                    memcpy(x.pose, kin.pose, sizeof x.pose);
                    MC(sensim_mcap_write_transforms(m, t_tf, bt, &x, 1));
                }
                if (!mo->no_odom) {
                    double vb[3];
                    for (int i = 0; i < 3; i++) /* world velocity in the body frame: R^T v */
                        vb[i] = kin.pose[4 * i] * kin.velocity[0] + kin.pose[4 * i + 1] * kin.velocity[1] +
                                kin.pose[4 * i + 2] * kin.velocity[2];
                    MC(sensim_mcap_write_odometry(m, t_odom, bt, bt, mo->odom_frame, mo->base_frame, kin.pose, vb,
                                                  kin.angular_velocity));
                }
            }
            continue;
        }
        const sensor_spec *sp = &R->specs[s];
        if (sp->camera) {
            cam_sensor *c = &R->cams[s];
            sensim_camera_images im = {0};
            const sensim_camera_images *cim = R->cim;
            im.depth = (c->want & SENSIM_CAMERA_DEPTH) ? cim->depth : NULL;
            im.semantic = (c->want & (SENSIM_CAMERA_SEMANTIC | SENSIM_CAMERA_INSTANCE)) ? cim->semantic : NULL;
            im.instance = (c->want & SENSIM_CAMERA_INSTANCE) ? cim->instance : NULL;
            im.normal = (c->want & SENSIM_CAMERA_NORMAL) ? cim->normal : NULL;
            im.rgb = (c->want & SENSIM_CAMERA_RGB) ? cim->rgb : NULL;
            int64_t t = k * c->period_ns, span = c->d.row_readout_ns * (int64_t)(c->d.height - 1);
            sensim_motion mm;
            if ((rc = camera_keys(sp->name, R->tr, k, t, span, &mm)))
                goto end;
            double pose[16];
            if ((rc = actors_move(R->as, t, t + span + 1)))
                goto end;
            sensim_status st = sensim_camera_render(c->cam, R->scene, &mm, t, &im, pose);
            if (st) {
                rc = st == SENSIM_ERR_CANCELLED && g_stop ? 0 : fail(st);
                goto end;
            }
            char frame[80];
            snprintf(frame, sizeof frame, "%s_optical", sp->name);
            uint16_t ctp[6]; /* the semantic plane is rendered for instance too: written when asked for */
            memcpy(ctp, tp[s], sizeof ctp);
            if (!(c->want & SENSIM_CAMERA_SEMANTIC))
                ctp[1] = UINT16_MAX;
            MC(sensim_mcap_write_capture(m, ctp, t, frame, c->cam, &im));
            R->frames++, R->pg->done[s]++;
            progress(R->pg, 0);
            continue;
        }
        if (R->navs[s]) {
            sensim_nav_sample ns_;
            MC(sensim_nav_sample_at(R->navs[s], R->tr->keys, R->tr->n, (uint64_t)k, &ns_));
            const sensim_nav_desc *d = &R->nav_desc[s];
            if (sp->nav - 1 == SENSIM_NAV_IMU) {
                /* per axis: white noise σ² plus the noise density's σ² at the sample rate */
                double rate = d->rate_hz, gv[3], av[3];
                for (int ax = 0; ax < 3; ax++) {
                    gv[ax] = d->gyro_stddev[ax] * d->gyro_stddev[ax] + d->gyro_noise_density * d->gyro_noise_density * rate;
                    av[ax] = d->accel_stddev[ax] * d->accel_stddev[ax] +
                             d->accel_noise_density * d->accel_noise_density * rate;
                }
                MC(sensim_mcap_write_imu_axes(m, tp[s][0], ns_.t_ns, sp->name, &ns_, -1, gv, av));
            } else if (sp->nav - 1 == SENSIM_NAV_GNSS) {
                double enu[3]; /* the sensor's degrees on the WGS 84 ellipsoid at the fix's latitude */
                MC(sensim_gnss_enu_variance(ns_.latitude_deg, d->lat_stddev_deg, d->lon_stddev_deg, d->alt_stddev_m,
                                            enu));
                MC(sensim_mcap_write_navsatfix_enu(m, tp[s][0], ns_.t_ns, sp->name, &ns_, enu));
            } else {
                MC(sensim_mcap_write_odometry_sample(m, tp[s][0], mo->odom_frame, sp->name, &ns_));
            }
            R->frames++, R->pg->done[s]++;
            progress(R->pg, 0);
            continue;
        }
        if (R->radars[s]) {
            uint64_t n, cap = sensim_radar_rays_per_sample(R->radars[s]);
            sensim_radar_detection *det = (sensim_radar_detection *)(rbuf + cap + 1);
            int64_t t = k * R->periods[s];
            if ((rc = actors_move(R->as, t, t + 1)))
                goto end;
            MC(sensim_radar_sample_at(R->radars[s], R->scene, R->tr->keys, R->tr->n, (uint64_t)k, det, cap, &n, NULL));
            for (uint64_t i = 0; i < n; i++) {
                double ca = cos(det[i].altitude_rad), r = det[i].depth_m;
                rbuf[i].x = (float)(r * ca * cos(det[i].azimuth_rad));
                rbuf[i].y = (float)(r * ca * sin(det[i].azimuth_rad));
                rbuf[i].z = (float)(r * sin(det[i].altitude_rad));
                rbuf[i].d = det[i];
            }
            MC(sensim_mcap_write_cloud(m, tp[s][0], t, t, sp->name, radar_point_fields, 13, sizeof *rbuf, rbuf, n));
            R->frames++, R->pg->done[s]++;
            progress(R->pg, 0);
            continue;
        }
        /* lidar */
        sensim_lidar_info li;
        sensim_lidar_get_info(R->lidars[s], &li);
        sensim_frame_header h;
        uint64_t n;
        rc = scan_lidar_frame(R->lidars[s], R->scene, R->as, R->tr, k, li.frame_period_ns, R->ring, R->pts, R->cap,
                              &h, &n);
        if (rc) {
            if (rc == -1)
                rc = 0;
            goto end;
        }
        sensim_frame_view v = {&h, {R->pts, NULL}, {n, 0}};
        MC(sensim_mcap_write_points(m, tp[s][0], h.t_end_ns, sp->name, &v));
        R->frames++, R->pg->done[s]++;
        R->points += n, R->pg->points += n;
        R->pg->empty[s] += n == 0;
        progress(R->pg, 0);
    }
end:
    free(rbuf);
    if (m) {
        sensim_mcap_stats ms;
        sensim_mcap_get_stats(m, &ms);
        R->messages = ms.messages;
        uint32_t files = 0;
        sensim_status st = sensim_mcap_close(m, &files);
        if (st && !rc)
            rc = mcap_fail();
        if (!R->quiet && !rc)
            fprintf(stderr, "sensim batch: %llu messages in %u file%s %s_0.mcap%s\n", (unsigned long long)ms.messages,
                    files, files == 1 ? "" : "s", prefix, files > 1 ? " ..." : "");
    }
    return rc;
}
