/* A vehicle's navigation and radar rig on one world clock: a 100 Hz IMU, a
 * 10 Hz GNSS and a 20 Hz front radar on a car driving a 50 m circle at
 * 10 m/s (keys every 100 ms, spline kinematics), with a second car parked
 * by the road. Rig steps of 50 ms, as a co-simulation would take them.
 *
 * Checks what physics says, and exits non-zero otherwise: the IMU's
 * specific force is v²/r to the left plus g up (1e-3 m/s²) and its yaw rate
 * v/r (1e-6 rad/s); radar detections on the static world have radial
 * velocity −dot(v_radar, û), v_radar including the lever arm (1e-3 m/s).
 *
 *   ./nav_radar            prints a line per second of simulated time
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sensim/sensim.h>

static void check(sensim_status st, const char *what)
{
    if (st != SENSIM_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, sensim_status_string(st), sensim_context_last_error(NULL));
        exit(1);
    }
}

static void *ring_mem(int nav, uint32_t frames, sensim_ring **out)
{
    size_t size;
    if (nav)
        check(sensim_nav_ring_required_size(frames, &size), "nav ring size");
    else
        check(sensim_ring_required_size(100000, frames, &size), "ring size");
    void *mem = malloc(size);
    if (!mem)
        exit(1);
    if (nav)
        check(sensim_nav_ring_init(mem, size, frames, SENSIM_OVERFLOW_FAIL, out), "nav ring");
    else
        check(sensim_ring_init(mem, size, 100000, frames, SENSIM_OVERFLOW_FAIL, out), "ring");
    return mem;
}

int main(void)
{
    const double R = 50, V = 10, W = V / R; /* counter-clockwise circle about the origin */
    sensim_context *ctx;
    check(sensim_context_create(NULL, &ctx), "context");
    sensim_scene *scene;
    check(sensim_scene_create(ctx, &scene), "scene");
    /* ground, and a box car used by two actors */
    const float g[] = {-200, -200, -0.01f, 200, -200, -0.01f, 200, 200, -0.01f, -200, 200, -0.01f};
    const uint32_t gi[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = g, md.vertex_count = 4, md.indices = gi, md.triangle_count = 2, md.tag = 1;
    uint32_t ground, box;
    check(sensim_scene_add_mesh(scene, &md, &ground), "ground");
    float bv[24];
    for (int c = 0; c < 8; c++)
        bv[3 * c] = (c & 1) ? 2.25f : -2.25f, bv[3 * c + 1] = (c & 2) ? 0.9f : -0.9f, bv[3 * c + 2] = (c & 4) ? 1.5f : 0;
    const uint32_t bi[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                             2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    sensim_mesh_desc_init(&md);
    md.vertices = bv, md.vertex_count = 8, md.indices = bi, md.triangle_count = 12, md.tag = 14;
    md.flags = SENSIM_MESH_PROTOTYPE;
    check(sensim_scene_add_mesh(scene, &md, &box), "car mesh");
    double parked[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 35, 40, 0, 1};
    check(sensim_scene_add_actor(scene, box, 7, parked), "parked car");

    /* keys every 100 ms on the circle, heading along it */
    enum { NK = 41 };
    sensim_pose_key keys[NK];
    for (int i = 0; i < NK; i++) {
        double th = W * i * 0.1, c = cos(th + M_PI / 2), s = sin(th + M_PI / 2);
        memset(keys[i].pose, 0, sizeof keys[i].pose);
        keys[i].t_ns = i * 100000000LL;
        keys[i].pose[0] = c, keys[i].pose[1] = s, keys[i].pose[4] = -s, keys[i].pose[5] = c;
        keys[i].pose[10] = keys[i].pose[15] = 1;
        keys[i].pose[12] = R * cos(th), keys[i].pose[13] = R * sin(th);
    }
    sensim_nav_desc nd;
    sensim_nav *imu, *gnss;
    sensim_nav_desc_init(&nd, SENSIM_NAV_IMU);
    check(sensim_nav_create(ctx, &nd, &imu), "imu");
    sensim_nav_desc_init(&nd, SENSIM_NAV_GNSS);
    check(sensim_nav_desc_set(&nd, "latitude", "48.137"), "gnss key");
    check(sensim_nav_desc_set(&nd, "longitude", "11.575"), "gnss key");
    nd.sensor_id = 1;
    check(sensim_nav_create(ctx, &nd, &gnss), "gnss");
    sensim_radar_desc rd;
    sensim_radar_desc_init(&rd);
    check(sensim_radar_desc_set(&rd, "mount_xyz_m", "2.2, 0, 0.6"), "radar key");
    check(sensim_radar_desc_set(&rd, "points_per_second", "20000"), "radar key");
    rd.sensor_id = 2;
    sensim_radar *radar;
    check(sensim_radar_create(ctx, &rd, &radar), "radar");
    sensim_ring *ri, *rg, *rr;
    void *m1 = ring_mem(1, 512, &ri), *m2 = ring_mem(1, 64, &rg), *m3 = ring_mem(0, 128, &rr);
    sensim_rig *rig;
    check(sensim_rig_create(ctx, &rig), "rig");
    check(sensim_rig_add_nav(rig, imu, ri, NULL), "add imu");
    check(sensim_rig_add_nav(rig, gnss, rg, NULL), "add gnss");
    check(sensim_rig_add_radar(rig, radar, rr, NULL), "add radar");
    check(sensim_scene_commit(scene), "commit");
    sensim_motion m = {.keys = keys, .key_count = NK};
    double worst_f = 0, worst_w = 0, worst_v = 0;
    uint64_t detections = 0, on_car = 0;
    for (int step = 0; step < 60; step++) { /* 3 s in 50 ms steps */
        sensim_rig_step_result res;
        check(sensim_rig_step(rig, scene, 50000000, &m, &res), "step");
        if (res.sensors_refused) { /* a sensor whose ring refused the step: data not produced, never ignored */
            fprintf(stderr, "step %d: %u sensors refused (ring full)\n", step, res.sensors_refused);
            return 1;
        }
        const sensim_frame_header *h;
        const sensim_nav_sample *s;
        while (sensim_ring_peek_nav(ri, &h, &s) == SENSIM_OK) {
            worst_f = fmax(worst_f, fabs(s->accel[0]) + fabs(s->accel[1] - V * V / R) + fabs(s->accel[2] - 9.80665));
            worst_w = fmax(worst_w, fabs(s->gyro[2] - W));
            check(sensim_ring_release(ri), "release");
        }
        while (sensim_ring_peek_nav(rg, &h, &s) == SENSIM_OK) {
            if (s->t_ns % 1000000000 == 0)
                printf("t = %.1f s: GNSS %.9f, %.9f; ", s->t_ns * 1e-9, s->latitude_deg, s->longitude_deg);
            check(sensim_ring_release(rg), "release");
        }
        sensim_frame_view fv;
        while (sensim_ring_peek(rr, &fv) == SENSIM_OK) {
            /* the radar's velocity: platform velocity plus ω × r, r = (2.2, 0, 0.6) */
            double th = W * fv.header->t_begin_ns * 1e-9, ct = cos(th), st = sin(th);
            double vx = -V * st - W * 2.2 * ct, vy = V * ct - W * 2.2 * st; /* world: tangent + ω ẑ × r */
            for (int span = 0; span < 2; span++)
                for (uint64_t i = 0; i < fv.counts[span]; i++) {
                    const sensim_radar_detection *d = (const sensim_radar_detection *)&fv.points[span][i];
                    /* û in the world: sensor axes = platform axes (yaw th + 90°) */
                    double ux = cos(d->altitude_rad) * cos(d->azimuth_rad), uy = cos(d->altitude_rad) * sin(d->azimuth_rad);
                    double wx = -st * ux - ct * uy, wy = ct * ux - st * uy;
                    detections++;
                    if (d->object_id) {
                        on_car++;
                        continue;
                    }
                    worst_v = fmax(worst_v, fabs(d->velocity_mps + (vx * wx + vy * wy)));
                }
            if (fv.header->t_begin_ns % 1000000000 == 0)
                printf("radar %llu detections so far\n", (unsigned long long)detections);
            check(sensim_ring_release(rr), "release");
        }
    }
    printf("IMU: specific force error %.2e m/s^2, yaw rate error %.2e rad/s; radar: %llu detections (%llu on the "
           "parked car), worst static Doppler error %.2e m/s\n",
           worst_f, worst_w, (unsigned long long)detections, (unsigned long long)on_car, worst_v);
    int ok = worst_f < 1e-3 && worst_w < 1e-6 && worst_v < 1e-3 && detections > 1000;
    sensim_rig_destroy(rig);
    sensim_radar_destroy(radar);
    sensim_nav_destroy(imu);
    sensim_nav_destroy(gnss);
    free(m1), free(m2), free(m3);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return ok ? 0 : 1;
}
