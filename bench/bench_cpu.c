/* One lidar's frame cost on a quiet measure: the minimum over FRAMES frames
 * of the scanning thread's CPU time (one thread) or of the wall time (more
 * threads). On a shared virtual machine the hypervisor's steal counts in
 * wall time but not in a thread's CPU time, so one-thread CPU minima of two
 * builds, interleaved (scripts/cpu_ab.sh), move by 1-3 % where wall-time
 * medians move by 5-15 % (BENCHMARKS.md, fifth session of 2026-12-03).
 * usage: bench_cpu PRESET [FRAMES] [THREADS] [STEP_NS] [MOVING] [FLATTEN]
 *   STEP_NS: scan each frame in calls of this many ns (1000000: a 1 kHz host;
 *            0: whole frames)
 *   MOVING:  1 = the platform drives at 10 m/s turning at 10 deg/s (each
 *            shot's pose from the motion: slerp between two keys), 2 = the
 *            same through the rig's motion model (SENSIM_INTERP_CAUSAL),
 *            0 = it stands still (default); 3 = as 2, the points in the world
 *            frame (each shot's double pose read back: points_frame=world)
 *   FLATTEN: the street's parked cars traced as static geometry, up to this
 *            many triangles (sensim_scene_set_flatten; 0: instances, default)
 * prints: PRESET ms POINTS (the minimum frame time in ms, a frame's points) */
#include <sensim/sensim.h>

#include "street.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_cpu PRESET [FRAMES] [THREADS] [STEP_NS] [MOVING] [FLATTEN]\n");
        return 2;
    }
    const char *preset = argv[1];
    int frames = argc > 2 ? atoi(argv[2]) : 20;
    int threads = argc > 3 ? atoi(argv[3]) : 1;
    long long step = argc > 4 ? atoll(argv[4]) : 0;
    int moving = argc > 5 ? atoi(argv[5]) : 0;
    long long flatten = argc > 6 ? atoll(argv[6]) : 0;
    if (frames < 1 || frames > 100000 || threads < 1 || threads > 1024 || step < 0 || moving < 0 || moving > 3 ||
        flatten < 0) {
        fprintf(stderr, "bench_cpu: FRAMES 1..100000, THREADS 1..1024, STEP_NS >= 0, MOVING 0..3, FLATTEN >= 0\n");
        return 2;
    }
    const clockid_t clk = threads == 1 ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
    sensim_context_desc cd;
    sensim_context_desc_init(&cd);
    cd.thread_count = (uint32_t)threads;
    sensim_context *ctx;
    sensim_scene *scene;
    sensim_lidar *l;
    street_info si;
    if (sensim_context_create(&cd, &ctx))
        return 1;
    if (sensim_scene_create(ctx, &scene) || sensim_scene_set_flatten(scene, (uint64_t)flatten) ||
        street_scene_build(scene, 400.0f, 12, &si) || sensim_scene_commit(scene) ||
        sensim_lidar_create_from_preset(ctx, preset, (const char *const[]){"points_frame=world"}, moving == 3, &l)) {
        fprintf(stderr, "bench_cpu: %s\n", sensim_context_last_error(ctx));
        return 1;
    }
    sensim_lidar_info li;
    sensim_lidar_get_info(l, &li);
    size_t size;
    sensim_ring *ring;
    void *mem = NULL;
    if (sensim_ring_required_size(2 * li.shots_per_frame, 2, &size) || !(mem = malloc(size)) ||
        sensim_ring_init(mem, size, 2 * li.shots_per_frame, 2, SENSIM_OVERFLOW_DROP_OLDEST, &ring)) {
        fprintf(stderr, "bench_cpu: ring\n");
        return 1;
    }
    const double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1.8, 1};
    const int64_t P = li.frame_period_ns, S = step > 0 && step < P ? (int64_t)step : P;
    double best = 1e300;
    uint64_t points = 0;
    for (int f = 0; f < frames + 2; f++) { /* two warm-up frames */
        double a = clock_s(clk);
        points = 0;
        for (int64_t t = f * P; t < (f + 1) * P; t += S) {
            sensim_scan_result res;
            int64_t e = t + S < (f + 1) * P ? t + S : (f + 1) * P;
            sensim_pose_key keys[2];
            sensim_motion mo = {.keys = keys, .key_count = 2, .interp = moving >= 2 ? SENSIM_INTERP_CAUSAL : 0};
            const double v[3] = {10.0, 0.0, 0.0}, w[3] = {0.0, 0.0, 10.0 * 3.14159265358979 / 180.0};
            sensim_status st = moving ? sensim_motion_from_velocity(pose, f * P, (f + 1) * P, v, w, keys) : SENSIM_OK;
            if (!st)
                st = moving ? sensim_lidar_scan_motion(l, scene, t, e, &mo, ring, &res)
                            : sensim_lidar_scan(l, scene, t, e, pose, ring, &res);
            if (st) {
                fprintf(stderr, "bench_cpu: %s\n", sensim_context_last_error(ctx));
                return 1;
            }
            points += res.points;
        }
        double dt = clock_s(clk) - a;
        if (f >= 2 && dt < best)
            best = dt;
        sensim_ring_release(ring);
    }
    printf("%s %.3f %llu\n", preset, best * 1e3, (unsigned long long)points);
    sensim_lidar_destroy(l);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    free(mem);
    return 0;
}
