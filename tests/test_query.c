/* Public ray queries (sensim/query.h) against analytic answers. */
#include "helpers.h"

TEST_GROUP_FIXTURE(2, 0)

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double urand(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0;
}

/* n rays from random origins above the plane z = 0 in random directions. */
static void random_rays(uint64_t n, float *o, float *d)
{
    for (uint64_t i = 0; i < n; i++) {
        o[3 * i] = (float)(urand() * 40 - 20), o[3 * i + 1] = (float)(urand() * 40 - 20);
        o[3 * i + 2] = (float)(0.5 + urand() * 5);
        d[3 * i] = (float)(urand() * 2 - 1), d[3 * i + 1] = (float)(urand() * 2 - 1);
        d[3 * i + 2] = (float)(urand() * 2 - 1.2); /* some rays point up: nothing to hit */
    }
}

static sensim_scene *plane_scene(void)
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 100.0f, 1);
    CHECK_OK(sensim_scene_commit(s));
    return s;
}

/* Distance to the plane z = 0: t = -oz / dz along the unit ray; the normal
 * faces the origin; barycentrics rebuild the hit point; up rays hit nothing. */
static void test_plane_analytic(void **state)
{
    (void)state;
    sensim_scene *s = plane_scene();
    enum { N = 5000 };
    float *o = malloc(N * 3 * sizeof *o), *d = malloc(N * 3 * sizeof *d);
    sensim_ray_hit *h = malloc(N * sizeof *h);
    random_rays(N, o, d);
    sensim_ray_batch b = {.count = N, .origins = o, .directions = d};
    CHECK_OK(sensim_scene_intersect(s, &b, h));
    const float V[4][3] = {{-100, -100, 0}, {100, -100, 0}, {100, 100, 0}, {-100, 100, 0}};
    const uint32_t I[2][3] = {{0, 1, 2}, {0, 2, 3}};
    int hits = 0, misses = 0;
    for (int i = 0; i < N; i++) {
        double l = sqrt((double)d[3 * i] * d[3 * i] + (double)d[3 * i + 1] * d[3 * i + 1] +
                        (double)d[3 * i + 2] * d[3 * i + 2]);
        double dz = d[3 * i + 2] / l, t = -o[3 * i + 2] / dz;
        double x = o[3 * i] + t * d[3 * i] / l, y = o[3 * i + 1] + t * d[3 * i + 1] / l;
        int expect = dz < 0 && fabs(x) < 100 && fabs(y) < 100;
        if (fabs(fabs(x) - 100) < 1e-2 || fabs(fabs(y) - 100) < 1e-2)
            continue; /* on the edge: either answer */
        assert_int_equal(h[i].hit, expect);
        if (!expect) {
            assert_true(isinf(h[i].distance));
            assert_true(h[i].normal[0] == 0 && h[i].normal[1] == 0 && h[i].normal[2] == 0);
            misses++;
            continue;
        }
        hits++;
        assert_true(fabs(h[i].distance - t) <= 1e-5 * t + 1e-5);
        assert_float_equal(h[i].normal[2], 1.0f, 1e-6);
        assert_int_equal(h[i].tag, 1);
        assert_int_equal(h[i].object_id, 0);
        assert_int_equal(h[i].mesh_id, 0);
        assert_true(h[i].primitive_id < 2);
        const uint32_t *tri = I[h[i].primitive_id];
        for (int k = 0; k < 2; k++) {
            double p = V[tri[0]][k] + h[i].u * (V[tri[1]][k] - V[tri[0]][k]) + h[i].v * (V[tri[2]][k] - V[tri[0]][k]);
            assert_true(fabs(p - (k ? y : x)) < 2e-3);
        }
    }
    assert_true(hits > 1000 && misses > 1000);
    /* from below the normal still faces the ray's origin */
    float ob[3] = {1, 2, -3}, db[3] = {0, 0, 2};
    sensim_ray_batch b1 = {.count = 1, .origins = ob, .directions = db};
    CHECK_OK(sensim_scene_intersect(s, &b1, h));
    assert_int_equal(h[0].hit, 1);
    assert_float_equal(h[0].distance, 3.0f, 1e-6);
    assert_float_equal(h[0].normal[2], -1.0f, 1e-6);
    free(o), free(d), free(h);
    sensim_scene_destroy(s);
}

/* tnear / tfar clip, occlusion agrees with the intersection in every ray. */
static void test_occluded_agrees(void **state)
{
    (void)state;
    sensim_scene *s = plane_scene();
    enum { N = 6000 };
    float *o = malloc(N * 3 * sizeof *o), *d = malloc(N * 3 * sizeof *d), *tf = malloc(N * sizeof *tf);
    float *tn = malloc(N * sizeof *tn);
    sensim_ray_hit *h = malloc(N * sizeof *h), *h0 = malloc(N * sizeof *h0);
    uint8_t *occ = malloc(N);
    random_rays(N, o, d);
    for (int i = 0; i < N; i++)
        tn[i] = (float)(urand() * 2), tf[i] = tn[i] + (float)(urand() * 30);
    sensim_ray_batch b0 = {.count = N, .origins = o, .directions = d};
    CHECK_OK(sensim_scene_intersect(s, &b0, h0));
    sensim_ray_batch b = {.count = N, .origins = o, .directions = d, .tnear = tn, .tfar = tf};
    CHECK_OK(sensim_scene_intersect(s, &b, h));
    CHECK_OK(sensim_scene_occluded(s, &b, occ));
    int inside = 0, clipped = 0;
    for (int i = 0; i < N; i++) {
        if (!h0[i].hit || fabsf(h0[i].distance - tn[i]) < 1e-3f || fabsf(h0[i].distance - tf[i]) < 1e-3f)
            continue; /* nothing there, or at a bound: either answer */
        int in = h0[i].distance > tn[i] && h0[i].distance < tf[i];
        assert_int_equal(h[i].hit, in);
        assert_int_equal(occ[i], in);
        inside += in, clipped += !in;
    }
    assert_true(inside > 500 && clipped > 500);
    free(o), free(d), free(tf), free(tn), free(h), free(h0), free(occ);
    sensim_scene_destroy(s);
}

/* An actor moving 10 m along x over the motion interval: a ray at time t
 * meets its face where the face is at t. */
static void test_moving_actor_time(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    uint32_t mesh = add_box(s, lo, hi, 14, SENSIM_MESH_PROTOTYPE);
    double p0[16], p1[16];
    translation(p0, 20, 0, 0);
    translation(p1, 30, 0, 0);
    const uint32_t actor = 7;
    CHECK_OK(sensim_scene_add_actor(s, mesh, actor, p0));
    CHECK_OK(sensim_scene_set_motion_interval(s, 1000000000, 2000000000));
    CHECK_OK(sensim_scene_set_actor_motion(s, actor, p0, p1));
    CHECK_OK(sensim_scene_commit(s));
    enum { N = 11 };
    float o[N * 3] = {0}, d[N * 3] = {0};
    int64_t t[N];
    for (int i = 0; i < N; i++)
        d[3 * i] = 1, t[i] = 1000000000 + i * 100000000LL;
    sensim_ray_hit h[N];
    sensim_ray_batch b = {.count = N, .origins = o, .directions = d, .time_ns = t};
    CHECK_OK(sensim_scene_intersect(s, &b, h));
    for (int i = 0; i < N; i++) {
        assert_int_equal(h[i].hit, 1);
        assert_int_equal(h[i].object_id, actor);
        assert_int_equal(h[i].mesh_id, mesh);
        assert_int_equal(h[i].tag, 14);
        assert_float_equal(h[i].distance, 19.0f + i, 1e-4);
        assert_float_equal(h[i].normal[0], -1.0f, 1e-6);
    }
    /* one time for all: before the interval the actor is at its start */
    b.time_ns = NULL, b.time_ns_all = 0;
    CHECK_OK(sensim_scene_intersect(s, &b, h));
    assert_float_equal(h[5].distance, 19.0f, 1e-4);
    sensim_scene_destroy(s);
}

/* Same bytes for any thread count, any split of the batch, and strided input. */
static void test_invariance(void **state)
{
    (void)state;
    sensim_scene *s = plane_scene();
    enum { N = 70001 };
    float *o = malloc(N * 3 * sizeof *o), *d = malloc(N * 3 * sizeof *d), *aos = malloc(N * 8 * sizeof *aos);
    sensim_ray_hit *h[3];
    for (int k = 0; k < 3; k++)
        h[k] = malloc(N * sizeof **h);
    random_rays(N, o, d);
    sensim_ray_batch b = {.count = N, .origins = o, .directions = d};
    for (uint32_t th = 1; th <= 3; th++) {
        CHECK_OK(sensim_context_set_thread_count(ctx, th));
        CHECK_OK(sensim_scene_intersect(s, &b, h[th - 1]));
        if (th > 1)
            assert_memory_equal(h[0], h[th - 1], N * sizeof **h);
    }
    CHECK_OK(sensim_context_set_thread_count(ctx, 2));
    /* split at an odd place */
    sensim_ray_batch b1 = {.count = 12345, .origins = o, .directions = d};
    sensim_ray_batch b2 = {.count = N - 12345, .origins = o + 3 * 12345, .directions = d + 3 * 12345};
    CHECK_OK(sensim_scene_intersect(s, &b1, h[1]));
    CHECK_OK(sensim_scene_intersect(s, &b2, h[1] + 12345));
    assert_memory_equal(h[0], h[1], N * sizeof **h);
    /* an array of structs {origin, direction, pad, pad} */
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 3; k++)
            aos[8 * i + k] = o[3 * i + k], aos[8 * i + 3 + k] = d[3 * i + k];
    sensim_ray_batch bs = {.count = N, .origins = aos, .directions = aos + 3, .origin_stride = 32,
                           .direction_stride = 32};
    CHECK_OK(sensim_scene_intersect(s, &bs, h[2]));
    assert_memory_equal(h[0], h[2], N * sizeof **h);
    free(o), free(d), free(aos);
    for (int k = 0; k < 3; k++)
        free(h[k]);
    sensim_scene_destroy(s);
}

/* Hostile rays: refused with the ray and field named, nothing written. */
static void test_hostile(void **state)
{
    (void)state;
    sensim_scene *s = plane_scene();
    enum { N = 10 };
    float o[N * 3], d[N * 3], tn[N], tf[N];
    for (int i = 0; i < N * 3; i++)
        o[i] = 1, d[i] = -1;
    for (int i = 0; i < N; i++)
        tn[i] = 0, tf[i] = 100;
    sensim_ray_hit h[N];
    uint8_t occ[N];
    memset(h, 0xAB, sizeof h);
    memset(occ, 0xAB, sizeof occ);
    sensim_ray_hit h0[N];
    memcpy(h0, h, sizeof h);
    sensim_ray_batch b = {.count = N, .origins = o, .directions = d, .tnear = tn, .tfar = tf};
    struct {
        float *where, bad;
        sensim_status st;
        const char *msg;
    } cases[] = {
        {&o[3 * 7 + 1], NAN, SENSIM_ERR_NOT_FINITE, "ray 7: origin[1]"},
        {&o[3 * 2], 2e9f, SENSIM_ERR_OUT_OF_RANGE, "ray 2: origin[0]"},
        {&d[3 * 4 + 2], INFINITY, SENSIM_ERR_NOT_FINITE, "ray 4: direction[2]"},
        {&tn[3], -1, SENSIM_ERR_OUT_OF_RANGE, "ray 3: tnear"},
        {&tn[5], INFINITY, SENSIM_ERR_NOT_FINITE, "ray 5: tnear"},
        {&tf[6], NAN, SENSIM_ERR_NOT_FINITE, "ray 6: tfar"},
        {&tf[8], -1, SENSIM_ERR_OUT_OF_RANGE, "ray 8: tnear"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        float keep = *cases[c].where;
        *cases[c].where = cases[c].bad;
        assert_int_equal(sensim_scene_intersect(s, &b, h), cases[c].st);
        assert_non_null(strstr(sensim_context_last_error(NULL), cases[c].msg));
        assert_int_equal(sensim_scene_occluded(s, &b, occ), cases[c].st);
        *cases[c].where = keep;
    }
    d[3 * 9] = d[3 * 9 + 1] = d[3 * 9 + 2] = 0;
    assert_int_equal(sensim_scene_intersect(s, &b, h), SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "ray 9: direction has zero length"));
    d[3 * 9] = d[3 * 9 + 1] = d[3 * 9 + 2] = -1;
    assert_memory_equal(h, h0, sizeof h);
    for (int i = 0; i < N; i++)
        assert_int_equal(occ[i], 0xAB);
    b.reserved[2] = 1;
    assert_int_equal(sensim_scene_intersect(s, &b, h), SENSIM_ERR_INVALID_ARGUMENT);
    b.reserved[2] = 0;
    assert_int_equal(sensim_scene_intersect(s, NULL, h), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_scene_intersect(s, &b, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_scene_intersect((const sensim_scene *)ctx, &b, h), SENSIM_ERR_BAD_HANDLE);
    /* staged edits: refused until committed */
    add_plane(s, 5.0f, 2);
    assert_int_equal(sensim_scene_intersect(s, &b, h), SENSIM_ERR_NOT_COMMITTED);
    CHECK_OK(sensim_scene_commit(s));
    CHECK_OK(sensim_scene_intersect(s, &b, h));
    /* an empty batch is fine and writes nothing */
    sensim_ray_batch e = {0};
    CHECK_OK(sensim_scene_intersect(s, &e, h));
    sensim_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane_analytic), cmocka_unit_test(test_occluded_agrees),
        cmocka_unit_test(test_moving_actor_time), cmocka_unit_test(test_invariance), cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
