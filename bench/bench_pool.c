/* A rig of many small sensors on every core (issue 63): 16 Livox Mid-40s
 * around a car on the street, stepped every 10 ms for a few seconds of
 * world, with the context on 1 thread and on N threads (the rig hands whole
 * sensors to the context's workers, which block between steps). The runs
 * alternate (1 N, N 1, ...) and their outputs must be the same bytes.
 * Then the same for one pandar64 stepped every 10 ms (a single big sensor:
 * its lanes on the threads).
 * usage: bench_pool [pairs] [seconds] [threads]   prints the median time of
 * each and the speed-up (median of the pairs' ratios 1 thread / N). */
#include <sensim/sensim.h>

#include "street.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define CHECK(e)                                                                                  \
    do {                                                                                          \
        sensim_status st_ = (e);                                                                  \
        if (st_ != SENSIM_OK) {                                                                   \
            fprintf(stderr, "bench_pool: %s: %s\n", #e, sensim_context_last_error(NULL));        \
            exit(1);                                                                              \
        }                                                                                         \
    } while (0)

#define MAX_LIDARS 16

/* FNV-1a (over 64-bit words) of every point handed out, and the count */
typedef struct digest {
    uint64_t h, points;
} digest;

static void drain(sensim_ring *r, digest *d)
{
    sensim_frame_view v;
    while (sensim_ring_peek(r, &v) == SENSIM_OK) {
        for (int k = 0; k < 2; k++) { /* 8 bytes a step: the host's share of the time stays small */
            const size_t words = v.counts[k] * sizeof(sensim_point) / 8;
            for (size_t i = 0; i < words; i++) {
                uint64_t w;
                memcpy(&w, (const unsigned char *)v.points[k] + 8 * i, 8);
                d->h = (d->h ^ w) * UINT64_C(0x100000001b3);
            }
            d->points += v.counts[k];
        }
        sensim_ring_release(r);
    }
}

static void pose_at(int64_t t_ns, double P[16])
{
    const double t = (double)t_ns * 1e-9, yaw = 0.05 * sin(t);
    memset(P, 0, 16 * sizeof *P);
    P[0] = cos(yaw), P[1] = sin(yaw), P[4] = -sin(yaw), P[5] = cos(yaw), P[10] = 1, P[15] = 1;
    P[12] = -40.0 + 10.0 * t, P[13] = 0.5, P[14] = 1.8;
}

/* One run: @p n lidars of @p preset (mounted around the roof, each facing out), 10 ms steps. */
static double run(sensim_context *ctx, const sensim_scene *scene, const char *preset, int n, int64_t seconds,
                  digest *d)
{
    sensim_lidar *l[MAX_LIDARS];
    sensim_ring *r[MAX_LIDARS];
    void *mem[MAX_LIDARS];
    sensim_rig *rig;
    CHECK(sensim_rig_create(ctx, &rig));
    for (int i = 0; i < n; i++) {
        char id[32];
        snprintf(id, sizeof id, "lidar_id=%d", i);
        const char *sets[] = {id};
        CHECK(sensim_lidar_create_from_preset(ctx, preset, sets, 1, &l[i]));
        const double a = 6.283185307179586 * i / n;
        const double M[16] = {cos(a), sin(a), 0, 0, -sin(a), cos(a), 0, 0, 0, 0, 1, 0, cos(a), sin(a), 0.3, 1};
        CHECK(sensim_lidar_set_mount_pose(l[i], M));
        uint64_t cap;
        size_t size;
        CHECK(sensim_lidar_ring_size(l[i], 4, &cap, &size));
        mem[i] = malloc(size);
        CHECK(sensim_ring_init(mem[i], size, cap, 4, SENSIM_OVERFLOW_FAIL, &r[i]));
        CHECK(sensim_rig_add_lidar(rig, l[i], r[i], NULL));
    }
    double P[16], t0 = now_s();
    const int64_t step = 10000000;
    pose_at(0, P);
    CHECK(sensim_rig_push_pose(rig, 0, P));
    for (int64_t k = 1; k <= seconds * 100; k++) {
        pose_at(k * step, P);
        CHECK(sensim_rig_push_pose(rig, k * step, P));
        CHECK(sensim_rig_step(rig, scene, step, NULL, NULL));
        for (int i = 0; i < n; i++)
            drain(r[i], d);
    }
    double secs = now_s() - t0;
    sensim_rig_destroy(rig);
    for (int i = 0; i < n; i++) {
        sensim_lidar_destroy(l[i]);
        free(mem[i]);
    }
    return secs;
}

static int compare(sensim_context *ctx, const sensim_scene *scene, const char *preset, int n, int pairs,
                   int64_t seconds, uint32_t threads)
{
    double a[100], b[100], r[100];
    digest d0 = {0};
    for (int i = 0; i < pairs; i++) {
        const uint64_t fnv = UINT64_C(0xcbf29ce484222325);
        digest da = {fnv, 0}, db = da;
        for (int k = 0; k < 2; k++) {
            const int one = (i + k) % 2 == 0;
            CHECK(sensim_context_set_thread_count(ctx, one ? 1 : threads));
            if (one)
                a[i] = run(ctx, scene, preset, n, seconds, &da);
            else
                b[i] = run(ctx, scene, preset, n, seconds, &db);
        }
        if (da.h != db.h || da.points != db.points || (i && da.h != d0.h)) {
            fprintf(stderr, "bench_pool: %d x %s: 1 and %u threads wrote different points (pair %d)\n", n, preset,
                    threads, i);
            return 1;
        }
        d0 = da;
        r[i] = a[i] / b[i];
    }
    qsort(a, (size_t)pairs, sizeof *a, cmp);
    qsort(b, (size_t)pairs, sizeof *b, cmp);
    qsort(r, (size_t)pairs, sizeof *r, cmp);
    printf("%2d x %-8s 10 ms steps, %lld s of world, %d alternated pairs, %llu points identical\n", n, preset,
           (long long)seconds, pairs, (unsigned long long)d0.points);
    printf("  1 thread:  %.3f s (median)\n  %u threads: %.3f s (median)\n  speed-up: %.2fx (median of the pairs' "
           "ratios; min %.2fx, max %.2fx)\n",
           a[pairs / 2], threads, b[pairs / 2], r[pairs / 2], r[0], r[pairs - 1]);
    return 0;
}

int main(int argc, char **argv)
{
    int pairs = argc > 1 ? atoi(argv[1]) : 5;
    int64_t seconds = argc > 2 ? atoi(argv[2]) : 2;
    uint32_t threads = argc > 3 ? (uint32_t)atoi(argv[3]) : 2;
    if (pairs < 1 || pairs > 100)
        pairs = 5;
    if (seconds < 1 || seconds > 60)
        seconds = 2;
    if (threads < 2 || threads > 64)
        threads = 2;
    sensim_context *ctx;
    sensim_scene *scene;
    CHECK(sensim_context_create(NULL, &ctx));
    CHECK(sensim_scene_create(ctx, &scene));
    street_info si;
    CHECK(street_scene_build(scene, 200.0f, 12, &si));
    CHECK(sensim_scene_commit(scene));
    int bad = compare(ctx, scene, "mid40", 16, pairs, seconds, threads);
    bad |= compare(ctx, scene, "pandar64", 1, pairs, seconds, threads);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return bad;
}
