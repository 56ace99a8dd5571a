/* The host's per-tick cost (issue 63): a C co-simulation host pushing the pose and stepping a rig
 * at 1 kHz with sensim_rig_advance, the rig holding an IMU at 100 Hz on a ground plane, so the
 * figure is the call's own cost plus an IMU sample every 10 ticks. bench/host_overhead.py runs it
 * beside the same loop in Python.
 * usage: bench_host STEPS  -> prints "c_host_us_per_step X" */
#include <sensim/sensim.h>

#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"

int main(int argc, char **argv)
{
    const long steps = argc > 1 ? atol(argv[1]) : 20000;
    sensim_context *ctx;
    sensim_scene *scene;
    sensim_rig *rig;
    sensim_nav *imu;
    const float v[] = {-500, -500, 0, 500, -500, 0, 500, 500, 0, -500, 500, 0};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v, md.vertex_count = 4, md.indices = idx, md.triangle_count = 2;
    sensim_nav_desc nd;
    if (sensim_context_create(NULL, &ctx) || sensim_scene_create(ctx, &scene) ||
        sensim_scene_add_mesh(scene, &md, NULL) || sensim_scene_commit(scene) || sensim_rig_create(ctx, &rig)) {
        fprintf(stderr, "bench_host: %s\n", sensim_context_last_error(NULL));
        return 1;
    }
    sensim_nav_desc_init(&nd, SENSIM_NAV_IMU);
    nd.rate_hz = 100;
    size_t size;
    const uint32_t cap = (uint32_t)(steps / 10 + 8);
    void *mem = NULL;
    sensim_ring *ring;
    if (sensim_nav_ring_required_size(cap, &size) || !(mem = malloc(size)) || sensim_nav_create(ctx, &nd, &imu) ||
        sensim_nav_ring_init(mem, size, cap, SENSIM_OVERFLOW_DROP_OLDEST, &ring) ||
        sensim_rig_add_nav(rig, imu, ring, NULL)) {
        fprintf(stderr, "bench_host: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1.8, 1};
    sensim_rig_step_result r;
    if (sensim_rig_advance(rig, scene, 0, pose, 0, &r))
        return 1;
    const double t0 = now_s();
    for (long i = 1; i <= steps; i++)
        if (sensim_rig_advance(rig, scene, i * 1000000LL, pose, 0, &r)) {
            fprintf(stderr, "bench_host: %s\n", sensim_context_last_error(ctx));
            return 1;
        }
    printf("c_host_us_per_step %.3f\n", (now_s() - t0) / (double)steps * 1e6);
    sensim_rig_destroy(rig);
    sensim_nav_destroy(imu);
    free(mem);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return 0;
}
