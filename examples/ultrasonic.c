/* A sensor of your own from public ray queries: an ultrasonic parking
 * sensor. Each of four sensors in the rear bumper sends a cone of rays
 * (60 degrees wide, 30 degrees tall, like a typical 40-58 kHz transducer's
 * beam) and reports the nearest echo between 0.15 m and 4.5 m, or nothing.
 *
 * The scene: a ground plane and a wall 1.8 m behind the bumper, then the car
 * reverses at 0.5 m/s for 2 s; the distance must shrink by 0.5 m per second.
 * Exits non-zero when a reading differs from the analytic one by more than
 * 1 mm (the wall is straight ahead of the middle sensors: the nearest ray is
 * the cone's axis, perpendicular to the wall).
 *
 *   ./ultrasonic            prints one line per reading
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <sensim/sensim.h>

#define RAYS_H 31
#define RAYS_V 15
#define N_RAYS (RAYS_H * RAYS_V)

static int check(sensim_status st, const char *what)
{
    if (st != SENSIM_OK) {
        fprintf(stderr, "%s: %s: %s\n", what, sensim_status_string(st), sensim_context_last_error(NULL));
        exit(1);
    }
    return 0;
}

static void add_quad(sensim_scene *scene, const float v[12], uint8_t tag)
{
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc d;
    sensim_mesh_desc_init(&d);
    d.vertices = v, d.vertex_count = 4, d.indices = idx, d.triangle_count = 2, d.tag = tag;
    uint32_t id;
    check(sensim_scene_add_mesh(scene, &d, &id), "add_mesh");
}

int main(void)
{
    sensim_context *ctx;
    sensim_scene *scene;
    check(sensim_context_create(NULL, &ctx), "context");
    check(sensim_scene_create(ctx, &scene), "scene");
    const float ground[] = {-50, -50, 0, 50, -50, 0, 50, 50, 0, -50, 50, 0};
    const float wall[] = {-3.8f, -10, 0, -3.8f, 10, 0, -3.8f, 10, 3, -3.8f, -10, 3}; /* x = -3.8 m */
    add_quad(scene, ground, 1);
    add_quad(scene, wall, 4);
    check(sensim_scene_commit(scene), "commit");

    /* bumper at x = -2.0 m (car origin at 0), sensors 0.5 m above ground, facing -x */
    const float sensor_y[4] = {-0.6f, -0.2f, 0.2f, 0.6f};
    float org[N_RAYS * 3], dir[N_RAYS * 3];
    sensim_ray_hit hits[N_RAYS];
    int bad = 0;
    for (int step = 0; step <= 4; step++) {
        double t = 0.5 * step, car_x = -0.5 * t; /* reversing at 0.5 m/s */
        for (int s = 0; s < 4; s++) {
            for (int i = 0; i < RAYS_H; i++)
                for (int j = 0; j < RAYS_V; j++) {
                    double az = (i - (RAYS_H - 1) / 2.0) * (60.0 / (RAYS_H - 1)) * M_PI / 180.0;
                    double el = (j - (RAYS_V - 1) / 2.0) * (30.0 / (RAYS_V - 1)) * M_PI / 180.0;
                    int k = i * RAYS_V + j;
                    org[3 * k] = (float)(car_x - 2.0), org[3 * k + 1] = sensor_y[s], org[3 * k + 2] = 0.5f;
                    dir[3 * k] = (float)(-cos(el) * cos(az)), dir[3 * k + 1] = (float)(cos(el) * sin(az));
                    dir[3 * k + 2] = (float)sin(el);
                }
            const float tnear = 0.15f, tfar = 4.5f; /* the transducer's blind zone and reach */
            sensim_ray_batch b = {.count = N_RAYS, .origins = org, .directions = dir, .time_ns_all = (int64_t)(t * 1e9)};
            check(sensim_scene_intersect(scene, &b, hits), "intersect");
            float nearest = INFINITY;
            for (int k = 0; k < N_RAYS; k++)
                if (hits[k].hit && hits[k].distance >= tnear && hits[k].distance <= tfar && hits[k].distance < nearest)
                    nearest = hits[k].distance;
            double expect = (car_x - 2.0) - (-3.8);
            printf("t=%.1f s sensor %d: nearest echo %.4f m (wall at %.4f m)\n", t, s, nearest, expect);
            if (!(fabs(nearest - expect) <= 1e-3))
                bad = 1;
        }
    }
    /* nothing behind: the wall removed from view by pointing the cone up */
    for (int k = 0; k < N_RAYS; k++)
        dir[3 * k] = 0.01f, dir[3 * k + 1] = 0, dir[3 * k + 2] = 1;
    sensim_ray_batch up = {.count = N_RAYS, .origins = org, .directions = dir};
    check(sensim_scene_intersect(scene, &up, hits), "intersect");
    for (int k = 0; k < N_RAYS; k++)
        if (hits[k].hit)
            bad = 1;
    printf("cone to the sky: no echo\n");
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    if (bad)
        fprintf(stderr, "ultrasonic: a reading differs from the analytic distance\n");
    return bad;
}
