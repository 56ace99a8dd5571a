/* sensim batch --format mcap: one rosbag2 MCAP of the whole run, written by
 * the rig driver's consumers (batch_rig.c) with the library's message
 * writers (the ones sensim_mcap_sink uses) and, before each world step, the
 * step's /clock, /tf and odometry. */
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

/* A mechanical lidar's clouds number `ring` by elevation, as velodyne_pointcloud does (sensim/mcap.h). */
static sensim_status ring_by_elevation(sensim_mcap *m, uint16_t tp, const sensim_lidar *lidar)
{
    sensim_lidar_info info;
    float e[SENSIM_MAX_CHANNELS];
    uint32_t n = 0;
    sensim_status st = sensim_lidar_get_info(lidar, &info);
    if (st || info.pattern != SENSIM_PATTERN_MECHANICAL)
        return st;
    if ((st = sensim_lidar_get_elevations(lidar, e, SENSIM_MAX_CHANNELS, &n)))
        return st;
    return sensim_mcap_set_ring_order(m, tp, e, n);
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

struct mcap_out {
    sensim_mcap *m;
    const mcap_opts *mo;
    const batch_run *R;
    uint16_t t_clock, t_tf, t_tfs, t_odom;
    uint16_t tp[MAX_SENSORS][6]; /* per sensor: main topic(s); cameras: 5 outputs + camera_info */
    radar_point *rbuf;
    uint64_t rcap;
    int static_done;
};

sensim_status mcap_points(mcap_out *M, uint32_t s, const sensim_frame_view *v)
{
    if (g_live.dry_run)
        return SENSIM_OK; /* frames consumed, nothing built */
    /* logged at the frame's end: the time the whole frame exists */
    return sensim_mcap_write_points(M->m, M->tp[s][0], v->header->t_end_ns, M->R->specs[s].name, v);
}

sensim_status mcap_capture(mcap_out *M, uint32_t s, const sensim_image_view *v)
{
    if (g_live.dry_run)
        return SENSIM_OK; /* frames consumed, nothing built */
    const cam_sensor *c = &M->R->cams[s];
    sensim_camera_images im = {(float *)v->depth, (uint8_t *)v->semantic, (uint32_t *)v->instance,
                               (float *)v->normal, (uint8_t *)v->rgb, {0}};
    char frame[80];
    snprintf(frame, sizeof frame, "%s_optical", M->R->specs[s].name);
    uint16_t ctp[6]; /* the semantic plane is rendered for instance too: written when asked for */
    memcpy(ctp, M->tp[s], sizeof ctp);
    if (!(c->want & SENSIM_CAMERA_SEMANTIC))
        ctp[1] = UINT16_MAX;
    return sensim_mcap_write_capture(M->m, ctp, v->header->t_begin_ns, frame, c->cam, &im);
}

sensim_status mcap_nav(mcap_out *M, uint32_t s, const sensim_nav_sample *ns)
{
    if (g_live.dry_run)
        return SENSIM_OK; /* frames consumed, nothing built */
    const sensim_nav_desc *d = &M->R->nav_desc[s];
    const char *name = M->R->specs[s].name;
    if (M->R->specs[s].nav - 1 == SENSIM_NAV_IMU) {
        /* per axis: white noise σ² plus the noise density's σ² at the sample rate */
        double rate = d->rate_hz, gv[3], av[3];
        for (int ax = 0; ax < 3; ax++) {
            gv[ax] = d->gyro_stddev[ax] * d->gyro_stddev[ax] + d->gyro_noise_density * d->gyro_noise_density * rate;
            av[ax] = d->accel_stddev[ax] * d->accel_stddev[ax] + d->accel_noise_density * d->accel_noise_density * rate;
        }
        return sensim_mcap_write_imu_axes(M->m, M->tp[s][0], ns->t_ns, name, ns, -1, gv, av);
    }
    if (M->R->specs[s].nav - 1 == SENSIM_NAV_GNSS) {
        double enu[3]; /* the sensor's degrees on the WGS 84 ellipsoid at the fix's latitude */
        sensim_status st = sensim_gnss_enu_variance(ns->latitude_deg, d->lat_stddev_deg, d->lon_stddev_deg,
                                                    d->alt_stddev_m, enu);
        return st ? st : sensim_mcap_write_navsatfix_enu(M->m, M->tp[s][0], ns->t_ns, name, ns, enu);
    }
    return sensim_mcap_write_odometry_sample(M->m, M->tp[s][0], M->mo->odom_frame, name, ns);
}

sensim_status mcap_radar(mcap_out *M, uint32_t s, int64_t t, const sensim_radar_detection *det, uint64_t n)
{
    if (g_live.dry_run)
        return SENSIM_OK; /* frames consumed, nothing built */
    if (n > M->rcap)
        n = M->rcap; /* the ring holds at most rays_per_sample detections a sample: never reached */
    for (uint64_t i = 0; i < n; i++) {
        double ca = cos(det[i].altitude_rad), r = det[i].depth_m;
        M->rbuf[i].x = (float)(r * ca * cos(det[i].azimuth_rad));
        M->rbuf[i].y = (float)(r * ca * sin(det[i].azimuth_rad));
        M->rbuf[i].z = (float)(r * sin(det[i].altitude_rad));
        M->rbuf[i].d = det[i];
    }
    return sensim_mcap_write_cloud(M->m, M->tp[s][0], t, t, M->R->specs[s].name, radar_point_fields, 13,
                                   sizeof *M->rbuf, M->rbuf, n);
}

/* World step at @p t: the mounts once (/tf_static), then /clock, /tf odom → base and odometry. */
int mcap_step(mcap_out *M, int64_t t)
{
    const batch_run *R = M->R;
    const mcap_opts *mo = M->mo;
    sensim_mcap *m = M->m;
    int rc = 0;
    static const double ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    if (g_live.on && (rc = live_pace(m, t))) /* the step's messages leave at its wall time */
        return rc;
    if (g_live.dry_run)
        return 0; /* nothing built or sent */
    if (!M->static_done) {
        sensim_ros_transform st[2 * MAX_SENSORS];
        static char optical[MAX_SENSORS][80];
        uint32_t n = 0;
        for (uint32_t j = 0; j < R->nspecs; j++) {
            memset(&st[n], 0, sizeof st[n]);
            st[n].stamp_ns = t;
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
                snprintf(optical[j], sizeof optical[j], "%.63s_optical", R->specs[j].name);
                memset(&st[n], 0, sizeof st[n]);
                st[n].stamp_ns = t;
                st[n].parent_frame = R->specs[j].name;
                st[n].child_frame = optical[j];
                memcpy(st[n].pose, OPTICAL, sizeof OPTICAL);
                n++;
            }
        }
        if (n)
            MC(sensim_mcap_write_transforms(m, M->t_tfs, t, st, n));
        M->static_done = 1;
    }
    MC(sensim_mcap_write_clock(m, M->t_clock, t, t));
    if (!mo->no_tf || !mo->no_odom) {
        sensim_kinematics kin;
        MC(sensim_kinematics_at(R->tr->keys, R->tr->n, g_motion, t, &kin));
        if (!mo->no_tf) {
            sensim_ros_transform x;
            memset(&x, 0, sizeof x);
            x.stamp_ns = t, x.parent_frame = mo->odom_frame, x.child_frame = mo->base_frame;
            memcpy(x.pose, kin.pose, sizeof x.pose);
            MC(sensim_mcap_write_transforms(m, M->t_tf, t, &x, 1));
        }
        if (!mo->no_odom) {
            double vb[3];
            for (int i = 0; i < 3; i++) /* world velocity in the body frame: R^T v */
                vb[i] = kin.pose[4 * i] * kin.velocity[0] + kin.pose[4 * i + 1] * kin.velocity[1] +
                        kin.pose[4 * i + 2] * kin.velocity[2];
            MC(sensim_mcap_write_odometry(m, M->t_odom, t, t, mo->odom_frame, mo->base_frame, kin.pose, vb,
                                          kin.angular_velocity));
        }
    }
end:
    return rc;
}

int run_mcap(batch_run *R, const mcap_opts *mo)
{
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%.4000s/sensim", R->out);
    mcap_out M;
    memset(&M, 0, sizeof M);
    M.mo = mo, M.R = R;
    M.static_done = mo->no_tf; /* --no-tf: no /tf_static either */
    sensim_mcap *m = NULL;
    int rc = 0;
    if (g_live.on && g_live.m) {
        m = g_live.m; /* opened before the run (--pose-in reads on it) */
        g_live.m = NULL;
    } else if (g_live.on) {
        MC(sensim_ros2_open(&g_live.o, &m));
        M.m = m;
        if (g_live.node_name[0])
            MC(sensim_ros2_set_node(m, g_live.node_ns, g_live.node_name));
    } else
        MC(sensim_mcap_open(prefix, &mo->o, &m));
    M.m = m;
    char name[512];
    topic_name(name, sizeof name, mo->prefix, "clock", "");
    MC(sensim_mcap_add_topic(m, mo->prefix[0] ? name : "/clock", SENSIM_ROS_CLOCK, &M.t_clock));
    if (!mo->no_tf) {
        MC(sensim_mcap_add_topic(m, "/tf", SENSIM_ROS_TF, &M.t_tf));
        MC(sensim_mcap_add_topic(m, "/tf_static", SENSIM_ROS_TF_STATIC, &M.t_tfs));
    }
    if (!mo->no_odom) {
        topic_name(name, sizeof name, mo->prefix, "odom", "");
        MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_ODOMETRY, &M.t_odom));
    }
    static const char *const outs[5] = {"depth", "semantic", "instance", "normal", "rgb"};
    for (uint32_t s = 0; s < R->nspecs; s++) {
        const sensor_spec *sp = &R->specs[s];
        if (sp->camera) {
            for (int k = 0; k < 5; k++)
                if (R->cams[s].want & (1u << k)) {
                    char leaf[32];
                    snprintf(leaf, sizeof leaf, "%s/image", outs[k]);
                    topic_name(name, sizeof name, mo->prefix, sp->name, leaf);
                    MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_IMAGE, &M.tp[s][k]));
                }
            topic_name(name, sizeof name, mo->prefix, sp->name, "camera_info");
            MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_CAMERA_INFO, &M.tp[s][5]));
        } else if (sp->nav) {
            static const char *const leaf[3] = {"imu", "fix", "odom"};
            static const int32_t type[3] = {SENSIM_ROS_IMU, SENSIM_ROS_NAVSATFIX, SENSIM_ROS_ODOMETRY};
            topic_name(name, sizeof name, mo->prefix, sp->name, leaf[sp->nav - 1]);
            MC(sensim_mcap_add_topic(m, name, type[sp->nav - 1], &M.tp[s][0]));
        } else {
            topic_name(name, sizeof name, mo->prefix, sp->name, sp->radar ? "detections" : "points");
            MC(sensim_mcap_add_topic(m, name, SENSIM_ROS_POINTCLOUD2, &M.tp[s][0]));
            if (!sp->radar && R->lidars[s])
                MC(ring_by_elevation(m, M.tp[s][0], R->lidars[s]));
            if (sp->radar) {
                uint64_t n = sensim_radar_rays_per_sample(R->radars[s]);
                M.rcap = n > M.rcap ? n : M.rcap;
            }
        }
    }
    init_radar_point_fields();
    if (M.rcap && !(M.rbuf = malloc(M.rcap * sizeof *M.rbuf))) {
        fprintf(stderr, "sensim: error: out of memory for radar detections\n");
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        goto end;
    }
    R->mc = &M;
    if (!g_live.on || !(rc = live_start(m)))
        rc = run_rig(R);
    if (g_live.on && !rc)
        live_end(m);
    R->mc = NULL;
end:
    free(M.rbuf);
    live_pose_close(); /* its reader before the writer's participant */
    live_control_close();
    if (m) {
        sensim_mcap_stats ms;
        sensim_mcap_get_stats(m, &ms);
        uint32_t files = 0;
        sensim_status st = sensim_mcap_close(m, &files);
        if (st && !rc)
            rc = mcap_fail();
        if (!R->quiet && !rc && g_live.on)
            fprintf(stderr, "sensim ros2: %llu messages published on domain %s, %llu dropped by reliable topics\n",
                    (unsigned long long)ms.messages, live_domain(), (unsigned long long)ms.dropped);
        else if (!R->quiet && !rc)
            fprintf(stderr, "sensim batch: %llu messages in %u file%s %s_0.mcap%s\n", (unsigned long long)ms.messages,
                    files, files == 1 ? "" : "s", prefix, files > 1 ? " ..." : "");
    }
    return rc;
}
