/* Moving actors and commits (issue 66). A static ground of S triangles (a
 * grid) and A box actors (12 triangles, one prototype); a step moves every
 * actor (set_actor_pose, or set_actor_motion over a 50 ms interval) and
 * commits. Printed: the median step (update + commit) over the reps, per
 * actor, for A = 300, 1000, 3000, 10000 on 0.1 M static triangles; then
 * the commit after moving 50 actors on 0.1 M and on 10.6 M static
 * triangles (their ratio: a commit that moved only actors should not walk
 * the static world); then a commit of 3000 actors when none moved.
 *
 * At 3000 actors, the yardstick: tracing one 50 ms step of a pandar64 parked
 * among them (median), and update + commit over it.
 *
 *   bench_actors [REPS]          (default 9)
 */
#include "bench_util.h"

#include <sensim/sensim.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void check(sensim_status st, const char *what)
{
    if (st != SENSIM_OK) {
        fprintf(stderr, "bench_actors: %s: %s\n", what, sensim_context_last_error(NULL));
        exit(1);
    }
}

/* A flat grid of about @p tris triangles, 1 m cells, centred on the origin. */
static void add_ground(sensim_scene *s, uint64_t tris)
{
    uint32_t k = (uint32_t)ceil(sqrt((double)tris / 2.0));
    float *v = malloc((size_t)(k + 1) * (k + 1) * 3 * sizeof *v);
    uint32_t *ix = malloc((size_t)k * k * 6 * sizeof *ix);
    if (!v || !ix)
        exit(1);
    for (uint32_t y = 0; y <= k; y++)
        for (uint32_t x = 0; x <= k; x++) {
            float *p = &v[3 * ((size_t)y * (k + 1) + x)];
            p[0] = (float)x - 0.5f * (float)k, p[1] = (float)y - 0.5f * (float)k, p[2] = 0;
        }
    for (uint32_t y = 0; y < k; y++)
        for (uint32_t x = 0; x < k; x++) {
            uint32_t a = y * (k + 1) + x, b = a + 1, c = a + k + 1, d = c + 1, *t = &ix[6 * ((size_t)y * k + x)];
            t[0] = a, t[1] = b, t[2] = d, t[3] = a, t[4] = d, t[5] = c;
        }
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v, md.vertex_count = (k + 1) * (k + 1), md.indices = ix, md.triangle_count = 2 * k * k;
    check(sensim_scene_add_mesh(s, &md, NULL), "ground");
    free(v);
    free(ix);
}

static uint32_t add_box_proto(sensim_scene *s)
{
    static const float v[] = {-2, -1, 0, 2, -1, 0, 2, 1, 0, -2, 1, 0, -2, -1, 1.5f, 2, -1, 1.5f, 2, 1, 1.5f, -2, 1, 1.5f};
    static const uint32_t ix[] = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4,
                                  1, 2, 6, 1, 6, 5, 2, 3, 7, 2, 7, 6, 3, 0, 4, 3, 4, 7};
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v, md.vertex_count = 8, md.indices = ix, md.triangle_count = 12;
    md.flags = SENSIM_MESH_PROTOTYPE;
    uint32_t id;
    check(sensim_scene_add_mesh(s, &md, &id), "box");
    return id;
}

static void at(double m[16], double x, double y)
{
    memset(m, 0, 16 * sizeof *m);
    m[0] = m[5] = m[10] = m[15] = 1;
    m[12] = x, m[13] = y;
}

/* A scene of @p tris static triangles and @p n actors in a grid 10 m apart. */
static sensim_scene *make(sensim_context *ctx, uint64_t tris, uint32_t n)
{
    sensim_scene *s;
    check(sensim_scene_create(ctx, &s), "scene");
    add_ground(s, tris);
    uint32_t proto = add_box_proto(s);
    uint32_t side = (uint32_t)ceil(sqrt((double)n));
    for (uint32_t i = 0; i < n; i++) {
        double m[16];
        at(m, 10.0 * (i % side), 10.0 * (i / side));
        check(sensim_scene_add_actor(s, proto, 1000 + i, m), "actor");
    }
    check(sensim_scene_commit(s), "commit");
    return s;
}

/* Median seconds of @p reps steps moving the first @p moved actors of @p s (pose or motion) + commit. */
static double steps(sensim_scene *s, uint32_t n, uint32_t moved, int motion, int reps)
{
    double t[64];
    uint32_t side = (uint32_t)ceil(sqrt((double)n));
    for (int r = 0; r < reps && r < 64; r++) {
        double a = now_s();
        if (motion)
            check(sensim_scene_set_motion_interval(s, (int64_t)r * 50000000, (int64_t)(r + 1) * 50000000), "iv");
        for (uint32_t i = 0; i < moved; i++) {
            double p0[16], p1[16];
            at(p0, 10.0 * (i % side) + 0.1 * r, 10.0 * (i / side));
            at(p1, 10.0 * (i % side) + 0.1 * (r + 1), 10.0 * (i / side));
            if (motion)
                check(sensim_scene_set_actor_motion(s, 1000 + i, p0, p1), "motion");
            else
                check(sensim_scene_set_actor_pose(s, 1000 + i, p1), "pose");
        }
        check(sensim_scene_commit(s), "commit");
        t[r] = now_s() - a;
    }
    qsort(t, (size_t)(reps < 64 ? reps : 64), sizeof *t, cmp);
    return t[(reps < 64 ? reps : 64) / 2];
}

/* Median seconds of tracing one 50 ms step of a pandar64 (a rig, the context's threads) among the
 * actors of @p s, parked in the middle of the grid: the yardstick for a commit. */
static double trace_step(sensim_context *ctx, const sensim_scene *s, uint32_t n, int reps)
{
    sensim_lidar *l;
    sensim_rig *rig;
    sensim_ring *ring;
    uint64_t cap;
    size_t size;
    check(sensim_lidar_create_from_preset(ctx, "pandar64", NULL, 0, &l), "pandar64");
    check(sensim_lidar_ring_size(l, 4, &cap, &size), "ring size");
    void *mem = malloc(size);
    if (!mem)
        exit(1);
    check(sensim_ring_init(mem, size, cap, 4, SENSIM_OVERFLOW_DROP_OLDEST, &ring), "ring");
    check(sensim_rig_create(ctx, &rig), "rig");
    check(sensim_rig_add_lidar(rig, l, ring, NULL), "add lidar");
    double P[16], t[64];
    const double mid = 5.0 * (ceil(sqrt((double)n)) - 1);
    at(P, mid + 5.0, mid + 5.0);
    P[14] = 1.8;
    check(sensim_rig_push_pose(rig, 0, P), "pose");
    for (int r = 0; r < reps + 1 && r < 64; r++) { /* the first step is not counted */
        check(sensim_rig_push_pose(rig, (int64_t)(r + 1) * 50000000, P), "pose");
        double a = now_s();
        check(sensim_rig_step(rig, s, 50000000, NULL, NULL), "step");
        t[r] = now_s() - a;
        sensim_frame_view v;
        while (sensim_ring_peek(ring, &v) == SENSIM_OK)
            sensim_ring_release(ring);
    }
    int k = reps < 63 ? reps : 63;
    qsort(t + 1, (size_t)k, sizeof *t, cmp);
    sensim_rig_destroy(rig);
    sensim_lidar_destroy(l);
    free(mem);
    return t[1 + k / 2];
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 9;
    if (reps < 1)
        reps = 1;
    sensim_context *ctx;
    check(sensim_context_create(NULL, &ctx), "context");
    static const uint32_t counts[] = {300, 1000, 3000, 10000};
    printf("actors  pose: ms a step  us an actor  motion: ms a step  us an actor   (0.1 M static triangles)\n");
    double per[2][4], tr3000 = 0, tp3000 = 0, tm3000 = 0;
    for (int i = 0; i < 4; i++) {
        sensim_scene *s = make(ctx, 100000, counts[i]);
        double tp = steps(s, counts[i], counts[i], 0, reps);
        if (counts[i] == 3000) {
            check(sensim_scene_commit(s), "commit"); /* parked again for the yardstick */
            tr3000 = trace_step(ctx, s, counts[i], reps), tp3000 = tp;
        }
        double tm = steps(s, counts[i], counts[i], 1, reps);
        if (counts[i] == 3000)
            tm3000 = tm;
        per[0][i] = tp / counts[i], per[1][i] = tm / counts[i];
        printf("%6u  %13.3f  %11.3f  %15.3f  %11.3f\n", counts[i], 1e3 * tp, 1e6 * per[0][i], 1e3 * tm,
               1e6 * per[1][i]);
        sensim_scene_destroy(s);
    }
    printf("per actor at 3000 / at 300: pose %.2f, motion %.2f\n", per[0][2] / per[0][0], per[1][2] / per[1][0]);
    printf("tracing one 50 ms pandar64 step among 3000 actors: %.3f ms; update + commit / tracing: pose %.2f, "
           "motion %.2f\n", 1e3 * tr3000, tp3000 / tr3000, tm3000 / tr3000);
    double c[2];
    static const uint64_t tris[2] = {100000, 10600000};
    for (int k = 0; k < 2; k++) {
        sensim_scene *s = make(ctx, tris[k], 300);
        c[k] = steps(s, 300, 50, 0, reps);
        printf("commit after moving 50 of 300 actors over %.1f M static triangles: %.3f ms\n", 1e-6 * (double)tris[k],
               1e3 * c[k]);
        sensim_scene_destroy(s);
    }
    printf("ratio 10.6 M / 0.1 M: %.2f\n", c[1] / c[0]);
    /* a commit that moved nothing (a host committing every step whether or not anything changed) */
    sensim_scene *s = make(ctx, 100000, 3000);
    printf("commit with 3000 actors and none moved: %.3f ms\n", 1e3 * steps(s, 3000, 0, 0, reps));
    sensim_scene_destroy(s);
    sensim_context_destroy(ctx);
    return 0;
}
