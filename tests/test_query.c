/* Public ray queries (sensim/query.h) against analytic answers. */
#include "helpers.h"
#include "internal.h"

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

/* Horizontal rays from (0, 0, 0.5) along the four axes and +z. */
static void axis_rays(sensim_scene *s, sensim_ray_hit h[5])
{
    const float o[15] = {0, 0, 0.5f, 0, 0, 0.5f, 0, 0, 0.5f, 0, 0, 0.5f, 0, 0, 0.5f};
    const float d[15] = {1, 0, 0, 0, 1, 0, 0, -1, 0, -1, 0, 0, 0, 0, 1};
    sensim_ray_batch b = {.count = 5, .origins = o, .directions = d};
    CHECK_OK(sensim_scene_intersect(s, &b, h));
}

static uint32_t flattened(const sensim_scene *s)
{
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    return si.flattened_count;
}

/* Parked actors traced as static geometry (sensim_scene_set_flatten): the
 * same hits as instances (object, mesh, tag, normal; distances analytic
 * within float rounding); only parked ones within the budget, in order;
 * moving or removing one takes it out; actors added later and actors
 * given a motion stay instances. */
static void test_flatten(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 100.0f, 1);
    const float lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
    const uint32_t box = add_box(s, lo, hi, 14, SENSIM_MESH_PROTOTYPE);
    double px[16], py[16], pny[16], pnx[16];
    translation(px, 20, 0, 0), translation(py, 0, 20, 0), translation(pny, 0, -20, 0), translation(pnx, -20, 0, 0);
    const double c = sqrt(0.5); /* -x: the box turned 45 degrees about z, an edge towards the ray */
    pnx[0] = c, pnx[1] = c, pnx[4] = -c, pnx[5] = c;
    CHECK_OK(sensim_scene_add_actor(s, box, 5, px));
    CHECK_OK(sensim_scene_add_actor(s, box, 6, py));
    CHECK_OK(sensim_scene_add_instance(s, box, pny));
    CHECK_OK(sensim_scene_add_actor(s, box, 9, pnx));
    assert_int_equal(sensim_scene_set_flatten(NULL, 1), SENSIM_ERR_INVALID_ARGUMENT);
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(flattened(s), 0); /* off by default */
    sensim_ray_hit inst[5], flat[5];
    axis_rays(s, inst);
    CHECK_OK(sensim_scene_set_flatten(s, 1000));
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(flattened(s), 4);
    axis_rays(s, flat);
    const uint32_t obj[4] = {5, 6, 0, 9};
    const double dist[4] = {19, 19, 19, 20 - sqrt(2.0)};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(flat[i].hit, 1);
        assert_int_equal(flat[i].object_id, obj[i]);
        assert_int_equal(inst[i].object_id, obj[i]);
        assert_int_equal(flat[i].mesh_id, box);
        assert_int_equal(flat[i].tag, 14);
        assert_float_equal(flat[i].distance, dist[i], 1e-5);
        assert_float_equal(inst[i].distance, dist[i], 1e-5);
        for (int k = 0; k < 3; k++)
            assert_float_equal(flat[i].normal[k], inst[i].normal[k], 1e-6);
    }
    assert_int_equal(flat[4].hit, 0);
    /* the same pose again keeps actor 6 parked; another pose takes it out (an instance from then on) */
    CHECK_OK(sensim_scene_set_actor_pose(s, 6, py));
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(flattened(s), 4);
    double py2[16];
    translation(py2, 0, 25, 0);
    CHECK_OK(sensim_scene_set_actor_pose(s, 6, py2));
    CHECK_OK(sensim_scene_set_actor_pose(s, 6, py)); /* and back: it moved, so it stays an instance */
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(flattened(s), 3);
    axis_rays(s, flat);
    assert_int_equal(flat[1].object_id, 6);
    assert_float_equal(flat[1].distance, 19.0f, 1e-5);
    /* removed: gone from the static world */
    CHECK_OK(sensim_scene_remove_actor(s, 5));
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(flattened(s), 2);
    axis_rays(s, flat);
    assert_int_equal(flat[0].hit, 0);
    /* added after the first commit: an instance */
    double pz[16];
    translation(pz, 0, 0, 20);
    CHECK_OK(sensim_scene_add_actor(s, box, 11, pz));
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(flattened(s), 2);
    axis_rays(s, flat);
    assert_int_equal(flat[4].object_id, 11);
    assert_float_equal(flat[4].distance, 18.5f, 1e-5);
    assert_int_equal(flat[2].object_id, 0); /* the static instance, flattened */
    assert_int_equal(flat[3].object_id, 9);
    /* budget 0 again: every actor an instance, the same hits */
    CHECK_OK(sensim_scene_set_flatten(s, 0));
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(flattened(s), 0);
    axis_rays(s, inst);
    for (int i = 1; i < 5; i++) {
        assert_int_equal(inst[i].object_id, flat[i].object_id);
        assert_float_equal(inst[i].distance, flat[i].distance, 1e-5);
    }
    sensim_scene_destroy(s);

    /* the budget: parked actors in the order they were added while they fit; a motion before the
     * first commit: not parked */
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 100.0f, 1);
    const uint32_t b2 = add_box(s, lo, hi, 14, SENSIM_MESH_PROTOTYPE);
    CHECK_OK(sensim_scene_add_actor(s, b2, 1, px));
    CHECK_OK(sensim_scene_add_actor(s, b2, 2, py));
    CHECK_OK(sensim_scene_add_actor(s, b2, 3, pny));
    CHECK_OK(sensim_scene_set_actor_motion(s, 1, px, px));
    CHECK_OK(sensim_scene_set_flatten(s, 23)); /* room for one box of 12 */
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(flattened(s), 1);
    axis_rays(s, flat);
    assert_int_equal(flat[0].object_id, 1);
    assert_int_equal(flat[1].object_id, 2);
    assert_int_equal(flat[2].object_id, 3);
    CHECK_OK(sensim_scene_set_flatten(s, 24));
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(flattened(s), 2);
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

/* ---- sensors of your own in rigs ---- */

typedef struct probe {
    int64_t times[256];
    uint32_t n;
    sensim_rig *rig;           /* for the re-entry checks */
    sensim_scene *edit_scene;  /* for the edit check */
    sensim_sensor_output *kept;
    sensim_status nested_step, nested_add, nested_edit;
    int fail_at;               /* sample number whose callback fails (-1: none) */
    sensim_camera *cam;
} probe;

/* Range straight ahead of the platform at the sample time, as one record. */
static sensim_status range_sensor(void *user, const sensim_sensor_sample *s)
{
    probe *p = user;
    if (p->n < 256)
        p->times[p->n++] = s->t_ns;
    if (p->fail_at >= 0 && (int64_t)s->frame_number == p->fail_at)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "probe refused sample %d", p->fail_at);
    const double *P = s->platform_pose;
    float o[3] = {(float)P[12], (float)P[13], (float)P[14]}, d[3] = {(float)P[0], (float)P[1], (float)P[2]};
    sensim_ray_hit h;
    sensim_ray_batch b = {.count = 1, .origins = o, .directions = d, .time_ns_all = s->t_ns};
    sensim_status st = sensim_scene_intersect(s->scene, &b, &h);
    if (st != SENSIM_OK)
        return st;
    sensim_point pt;
    memset(&pt, 0, sizeof pt);
    pt.x = h.distance, pt.range_m = h.distance, pt.object_id = h.object_id, pt.tag = h.tag;
    pt.t_offset_ns = (uint32_t)s->frame_number;
    return sensim_sensor_output_push(s->output, &pt, 1);
}

static sensim_scene *wall_scene(void)
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float v[] = {50, -50, -50, 50, 50, -50, 50, 50, 50, 50, -50, 50};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc m;
    sensim_mesh_desc_init(&m);
    m.vertices = v, m.vertex_count = 4, m.indices = idx, m.triangle_count = 2, m.tag = 4;
    uint32_t id;
    CHECK_OK(sensim_scene_add_mesh(s, &m, &id));
    CHECK_OK(sensim_scene_commit(s));
    return s;
}

/* Drive at 5 m/s towards the wall at x = 50 over [0, 2 s] in steps of @p dts (cycled). */
static uint64_t drive(sensim_scene *scene, probe *p, double rate, const int64_t *dts, int ndt, sensim_point *out,
                      sensim_frame_header *hdrs)
{
    sensim_ring *r = test_ring(1000, 256, SENSIM_OVERFLOW_FAIL);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    sensim_sensor_desc d;
    sensim_sensor_desc_init(&d);
    d.sensor_id = 9, d.rate_hz = rate, d.sample = range_sensor, d.user = p;
    CHECK_OK(sensim_rig_add_sensor(rig, &d, r, NULL));
    sensim_pose_key keys[2];
    translation(keys[0].pose, 0, 0, 1), keys[0].t_ns = 0;
    translation(keys[1].pose, 10, 0, 1), keys[1].t_ns = 2000000000;
    sensim_motion m = {.keys = keys, .key_count = 2};
    for (int64_t t = 0, i = 0; t < 2000000000; i++) {
        int64_t dt = dts[i % ndt];
        if (t + dt > 2000000000)
            dt = 2000000000 - t;
        CHECK_OK(sensim_rig_step(rig, scene, dt, &m, NULL));
        t += dt;
    }
    uint64_t n = 0;
    for (uint32_t f = 0;; f++) {
        uint64_t got;
        sensim_status st = sensim_ring_pop(r, &hdrs[f], out + n, 1000 - n, &got);
        if (st == SENSIM_ERR_RING_EMPTY)
            break;
        CHECK_OK(st);
        n += got;
    }
    sensim_rig_destroy(rig);
    free(r);
    return n;
}

/* Samples at exactly k·P, each frame [k·P, (k+1)·P) with the pose at k·P, the
 * range the analytic one, and the same bytes however the host splits time. */
static void test_user_sensor_times(void **state)
{
    (void)state;
    sensim_scene *scene = wall_scene();
    static sensim_point a[1000], b[1000];
    static sensim_frame_header ha[256], hb[256];
    probe pa = {.fail_at = -1}, pb = {.fail_at = -1};
    const int64_t one[] = {100000000}, odd[] = {1, 37000001, 99999999, 3, 50000000};
    uint64_t na = drive(scene, &pa, 30.0, one, 1, a, ha), nb = drive(scene, &pb, 30.0, odd, 5, b, hb);
    assert_int_equal(na, 61); /* k·33 333 333 ns < 2 s for k = 0..60 (60·P = 1 999 999 980 ns) */
    assert_int_equal(nb, na);
    assert_memory_equal(a, b, na * sizeof *a);
    for (uint32_t k = 0; k < na; k++) /* world step numbers follow the split; everything else must not */
        ha[k].world_step_first = ha[k].world_step_last = hb[k].world_step_first = hb[k].world_step_last = 0;
    assert_memory_equal(ha, hb, na * sizeof *ha);
    for (uint32_t k = 0; k < na; k++) {
        int64_t t = k * 33333333LL;
        assert_int_equal(pa.times[k], t);
        assert_int_equal(ha[k].t_begin_ns, t);
        assert_int_equal(ha[k].t_end_ns, t + 33333333LL);
        assert_int_equal(ha[k].lidar_id, 9);
        assert_float_equal(a[k].range_m, 50.0 - 5.0 * t * 1e-9, 1e-4);
        assert_float_equal(ha[k].sensor_pose[12], 5.0 * t * 1e-9, 1e-9);
    }
    sensim_scene_destroy(scene);
}

static sensim_status misuse_sensor(void *user, const sensim_sensor_sample *s)
{
    probe *p = user;
    sensim_sensor_desc d;
    sensim_sensor_desc_init(&d);
    d.sample = misuse_sensor;
    sensim_ring *r = test_ring(10, 2, SENSIM_OVERFLOW_FAIL);
    p->nested_add = sensim_rig_add_sensor(p->rig, &d, r, NULL);
    free(r);
    sensim_pose_key k;
    translation(k.pose, 0, 0, 0), k.t_ns = 0;
    sensim_motion m = {.keys = &k, .key_count = 1};
    p->nested_step = sensim_rig_step(p->rig, s->scene, 1000, &m, NULL);
    p->nested_edit = sensim_scene_commit(p->edit_scene);
    p->kept = s->output;
    sensim_point bad;
    memset(&bad, 0, sizeof bad);
    bad.z = NAN;
    if (sensim_sensor_output_push(s->output, &bad, 1) != SENSIM_ERR_NOT_FINITE)
        return SENSIM_ERR_INVALID_ARGUMENT;
    return range_sensor(user, s);
}

/* A failing callback aborts the step as a transaction; re-entry and edits
 * from a callback are refused; an output is dead once its callback returned. */
static void test_user_sensor_misuse(void **state)
{
    (void)state;
    sensim_scene *scene = wall_scene();
    sensim_ring *r = test_ring(1000, 64, SENSIM_OVERFLOW_FAIL);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    probe p = {.fail_at = 2, .rig = rig, .edit_scene = scene};
    sensim_sensor_desc d;
    sensim_sensor_desc_init(&d);
    d.rate_hz = 20, d.sample = range_sensor, d.user = &p;
    CHECK_OK(sensim_rig_add_sensor(rig, &d, r, NULL));
    sensim_pose_key k;
    translation(k.pose, 0, 0, 1), k.t_ns = 0;
    sensim_motion m = {.keys = &k, .key_count = 1};
    /* samples 0, 1, 2 fall in the step; sample 2 fails: nothing of the step stays */
    assert_int_equal(sensim_rig_step(rig, scene, 150000000, &m, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "sensor 0's callback (t = 100000000 ns): probe refused"));
    sensim_ring_stats rs;
    CHECK_OK(sensim_ring_get_stats(r, &rs));
    sensim_frame_header h;
    uint64_t got;
    assert_int_equal(sensim_ring_pop(r, &h, NULL, 0, &got), SENSIM_ERR_RING_EMPTY);
    p.fail_at = -1, p.n = 0;
    sensim_rig_step_result res;
    CHECK_OK(sensim_rig_step(rig, scene, 150000000, &m, &res)); /* the same step again */
    assert_int_equal(res.world_step, 0);
    assert_int_equal(res.frames_completed, 3);
    assert_int_equal(p.n, 3);
    sensim_rig_destroy(rig);

    CHECK_OK(sensim_rig_create(ctx, &rig));
    p.rig = rig;
    sensim_ring *r2 = test_ring(1000, 64, SENSIM_OVERFLOW_FAIL);
    d.sample = misuse_sensor;
    CHECK_OK(sensim_rig_add_sensor(rig, &d, r2, NULL));
    CHECK_OK(sensim_rig_step(rig, scene, 10000000, &m, NULL));
    assert_int_equal(p.nested_add, SENSIM_ERR_BUSY);
    assert_int_equal(p.nested_step, SENSIM_ERR_BUSY);
    assert_int_equal(p.nested_edit, SENSIM_ERR_BUSY);
    sensim_point pt;
    memset(&pt, 0, sizeof pt);
    assert_int_equal(sensim_sensor_output_push(p.kept, &pt, 1), SENSIM_ERR_INVALID_ARGUMENT);
    /* descriptors */
    sensim_sensor_desc_init(&d);
    assert_int_equal(sensim_rig_add_sensor(rig, &d, r2, NULL), SENSIM_ERR_INVALID_ARGUMENT); /* no callback */
    d.sample = range_sensor, d.rate_hz = NAN;
    assert_int_equal(sensim_rig_add_sensor(rig, &d, r, NULL), SENSIM_ERR_NOT_FINITE);
    d.rate_hz = 2e6;
    assert_int_equal(sensim_rig_add_sensor(rig, &d, r, NULL), SENSIM_ERR_OUT_OF_RANGE);
    d.rate_hz = 10, d.reserved[1] = 1;
    assert_int_equal(sensim_rig_add_sensor(rig, &d, r, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    d.reserved[1] = 0;
    assert_int_equal(sensim_rig_add_sensor(rig, &d, r2, NULL), SENSIM_ERR_DUPLICATE); /* ring in use */
    sensim_rig_destroy(rig);
    free(r), free(r2);
    sensim_scene_destroy(scene);
}

/* A camera as a user sensor: 20 Hz in 100 ms world steps gives exactly the
 * two frames whose capture times fall in each step, each seeing the wall at
 * the platform's position at its own capture time. */
static sensim_status camera_sensor(void *user, const sensim_sensor_sample *s)
{
    probe *p = user;
    float depth[16 * 12];
    sensim_camera_images im = {.depth = depth};
    sensim_pose_key k;
    memcpy(k.pose, s->platform_pose, sizeof k.pose), k.t_ns = s->t_ns;
    sensim_motion m = {.keys = &k, .key_count = 1};
    sensim_status st = sensim_camera_render(p->cam, s->scene, &m, s->t_ns, &im, NULL);
    if (st != SENSIM_OK)
        return st;
    sensim_point pt;
    memset(&pt, 0, sizeof pt);
    pt.range_m = depth[6 * 16 + 8]; /* the principal point's pixel */
    return sensim_sensor_output_push(s->output, &pt, 1);
}

static void test_camera_as_user_sensor(void **state)
{
    (void)state;
    sensim_scene *scene = wall_scene();
    sensim_camera_desc cd;
    sensim_camera_desc_init(&cd);
    cd.width = 16, cd.height = 12;
    probe p = {.fail_at = -1};
    CHECK_OK(sensim_camera_create(ctx, &cd, &p.cam));
    sensim_ring *r = test_ring(1000, 64, SENSIM_OVERFLOW_FAIL);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    sensim_sensor_desc d;
    sensim_sensor_desc_init(&d);
    d.rate_hz = 20, d.sample = camera_sensor, d.user = &p;
    CHECK_OK(sensim_rig_add_sensor(rig, &d, r, NULL));
    sensim_pose_key keys[2];
    translation(keys[0].pose, 0, 0, 1), keys[0].t_ns = 0;
    translation(keys[1].pose, 10, 0, 1), keys[1].t_ns = 2000000000;
    sensim_motion m = {.keys = keys, .key_count = 2};
    for (int step = 0; step < 5; step++) {
        sensim_rig_step_result res;
        CHECK_OK(sensim_rig_step(rig, scene, 100000000, &m, &res));
        assert_int_equal(res.frames_completed, 2);
        for (int f = 0; f < 2; f++) {
            sensim_frame_header h;
            sensim_point pt;
            uint64_t got;
            CHECK_OK(sensim_ring_pop(r, &h, &pt, 1, &got));
            int64_t t = (2 * step + f) * 50000000LL;
            assert_int_equal(h.t_begin_ns, t);
            assert_int_equal(h.world_step_first, step);
            assert_float_equal(pt.range_m, 50.0 - 5.0 * t * 1e-9, 1e-4);
        }
    }
    sensim_rig_destroy(rig);
    sensim_camera_destroy(p.cam);
    free(r);
    sensim_scene_destroy(scene);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plane_analytic), cmocka_unit_test(test_occluded_agrees),
        cmocka_unit_test(test_moving_actor_time), cmocka_unit_test(test_invariance), cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_user_sensor_times), cmocka_unit_test(test_user_sensor_misuse),
        cmocka_unit_test(test_camera_as_user_sensor), cmocka_unit_test(test_flatten),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
