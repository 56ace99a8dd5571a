/* Determinism: same bytes for any thread count and any split of time;
 * seeded noise with the stated statistics. */
#include "helpers.h"
#include "street.h"

/* run_cuts(): the scene's budget of flattened triangles (sensim_scene_set_flatten; 0: the street's cars
 * are instances) */
static uint64_t g_flat;

typedef struct capture {
    sensim_point *pts;
    uint64_t n;
    sensim_frame_header hdr[64];
    uint32_t nhdr;
} capture;

/* Scan [t0, t1) cut at the given interior times, with @p threads threads;
 * @p moving: the platform drives (12 m/s, turning 25 deg/s). */
static capture run_cuts(const char *preset, uint32_t threads, const int64_t *cuts, int ncuts, int64_t t0, int64_t t1,
                        const char *const *sets, uint32_t nsets, bool moving)
{
    sensim_context *ctx = test_ctx(threads);
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    street_info si;
    CHECK_OK(street_scene_build(s, 120.0f, 1, &si));
    CHECK_OK(sensim_scene_set_flatten(s, g_flat));
    CHECK_OK(sensim_scene_commit(s));
    sensim_scene_info info;
    CHECK_OK(sensim_scene_get_info(s, &info));
    assert_int_equal(info.flattened_count, g_flat ? si.car_count : 0);
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, preset, sets, nsets, &l));
    sensim_ring *r = test_ring(4000000, 64, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    translation(pose, 1.5, 0.5, 1.8);
    sensim_pose_key keys[2];
    const double v[3] = {12.0, 1.0, 0.0}, w[3] = {0.0, 0.0, 0.436332313}; /* 25 deg/s */
    CHECK_OK(sensim_motion_from_velocity(pose, t0, t1, v, w, keys));
    const sensim_motion mo = {.keys = keys, .key_count = 2};
    capture c = {0};
    int64_t a = t0;
    for (int i = 0; i <= ncuts; i++) {
        int64_t b = i < ncuts ? cuts[i] : t1;
        CHECK_OK(moving ? sensim_lidar_scan_motion(l, s, a, b, &mo, r, NULL) : sensim_lidar_scan(l, s, a, b, pose, r, NULL));
        drain(r, &c.pts, &c.n, c.hdr, 64, &c.nhdr);
        a = b;
    }
    free(r);
    sensim_lidar_destroy(l);
    sensim_scene_destroy(s);
    sensim_context_destroy(ctx);
    return c;
}

static capture run(const char *preset, uint32_t threads, const int64_t *cuts, int ncuts, int64_t t0, int64_t t1,
                   const char *const *sets, uint32_t nsets)
{
    return run_cuts(preset, threads, cuts, ncuts, t0, t1, sets, nsets, false);
}

/* Scan [0, t1) moving, in calls of @p step ns. */
static capture run_moving(const char *preset, uint32_t threads, int64_t step, int64_t t1, const char *const *sets,
                          uint32_t nsets)
{
    const int ncuts = (int)((t1 - 1) / step);
    int64_t *cuts = malloc((size_t)(ncuts + 1) * sizeof *cuts);
    assert_non_null(cuts);
    for (int i = 0; i < ncuts; i++)
        cuts[i] = (i + 1) * step;
    capture c = run_cuts(preset, threads, cuts, ncuts, 0, t1, sets, nsets, true);
    free(cuts);
    return c;
}

static void assert_same(const capture *a, const capture *b)
{
    assert_int_equal(a->n, b->n);
    assert_int_equal(a->nhdr, b->nhdr);
    assert_memory_equal(a->pts, b->pts, a->n * sizeof(sensim_point));
    assert_memory_equal(a->hdr, b->hdr, a->nhdr * sizeof(sensim_frame_header));
}

static void check_preset(const char *preset, const char *const *sets, uint32_t nsets)
{
    const int64_t P = 100000000; /* all presets used here run at 10 Hz */
    capture one = run(preset, 1, NULL, 0, 0, 3 * P, sets, nsets);
    assert_int_equal(one.nhdr, 3);
    assert_true(one.n > 10000);
    capture two = run(preset, 2, NULL, 0, 0, 3 * P, sets, nsets);
    assert_same(&one, &two);
    /* cuts inside frames, at frame boundaries, one nanosecond apart, empty calls (a spinning lidar's short
     * calls take narrow lanes, its long ones wide lanes: sensim__lidar_tiling) */
    const int64_t cuts[] = {1, 2, 777777, 33333333, 33333333, P - 1, P, P + 1, 150000001, 2 * P, 2 * P + 12345};
    capture split = run(preset, 2, cuts, (int)(sizeof cuts / sizeof cuts[0]), 0, 3 * P, sets, nsets);
    assert_same(&one, &split);
    capture split1 = run(preset, 1, cuts + 3, 5, 0, 3 * P, sets, nsets);
    assert_same(&one, &split1);
    /* points come in firing-time order within each frame */
    for (uint64_t i = 1; i < one.n; i++)
        if (one.pts[i].t_offset_ns < one.pts[i - 1].t_offset_ns)
            assert_true(one.pts[i].t_offset_ns + 1000000 < one.pts[i - 1].t_offset_ns); /* next frame */
    free(one.pts);
    free(two.pts);
    free(split.pts);
    free(split1.pts);
}

static void test_pandar64(void **state)
{
    (void)state;
    check_preset("pandar64", NULL, 0);
}

/* Patterns without columns trace their lanes sorted by direction: the
 * partial lanes at the cuts sort differently, the points may not move. */
static void test_mems_and_risley(void **state)
{
    (void)state;
    const char *sets[] = {"seed=5"};
    check_preset("mems_m1", sets, 1);
    check_preset("avia", sets, 1);
}

/* A block of one MEMS lane (a host stepping at 1 kHz: 788 shots a call,
 * inside one 8192-shot lane) is worked by the threads together, piece by
 * piece: the same bytes as one thread scanning whole frames. Moving, the
 * points in the world frame (each thread's own pose slots), drop-outs
 * (pieces of unequal live shots), car paint (the full return model), then
 * beam divergence (sub-rays); three times over, as a race would differ
 * from run to run. */
static void test_mems_team_steps(void **state)
{
    (void)state;
    const char *plain[] = {"seed=9", "points_frame=world", "dropoff_model=carla", "dropoff_general_rate=0.1",
                           "dropoff_intensity_limit=0.5", "dropoff_zero_intensity=0.3", "range_noise_stddev_m=0.02"};
    /* beam divergence: each piece's sub-rays in its thread's scratch */
    const char *subrays[] = {"seed=9", "points_frame=deskewed", "return_mode=dual", "beam_divergence_h_mrad=3",
                             "beam_divergence_v_mrad=1.5", "beam_subrays=7", "max_bounces=2"};
    const char *const *sets[2] = {plain, subrays};
    const uint32_t ns[2] = {sizeof plain / sizeof plain[0], sizeof subrays / sizeof subrays[0]};
    const int64_t T = 200000000;
    for (int c = 0; c < 2; c++) {
        capture whole = run_moving("mems_m1", 1, T, T, sets[c], ns[c]);
        assert_int_equal(whole.nhdr, 2);
        assert_true(whole.n > 100000);
        for (int k = 0; k < 3; k++) {
            capture steps = run_moving("mems_m1", 2, 1000000, T, sets[c], ns[c]);
            assert_same(&whole, &steps);
            free(steps.pts);
        }
        capture odd = run_moving("mems_m1", 2, 333333, T, sets[c], ns[c]); /* (262 shots a call: 3 pieces) */
        assert_same(&whole, &odd);
        free(odd.pts);
        free(whole.pts);
    }
}

/* A moving platform: whole frames on one thread (a spinning head's wide
 * lanes) against calls cut anywhere on two (narrow lanes at the cuts, 1 kHz
 * steps) give the same bytes: a shot's pose comes from the 250 us span of
 * the world clock it falls in (lane_pose.c), whichever lane, call or thread
 * computes it. World points (the double pose), deskewed, sub-rays. */
static void test_moving_split(void **state)
{
    (void)state;
    const int64_t P = 100000000, cuts[] = {1, 777777, 33333333, 33333334, P - 1, P, 150000001, 150250000};
    const char *world[] = {"seed=3", "points_frame=world", "range_noise_stddev_m=0.02"};
    const char *desk[] = {"seed=3", "points_frame=deskewed", "beam_subrays=7", "beam_divergence_h_mrad=3"};
    static const struct {
        const char *preset;
        bool deskew;
    } cfg[] = {{"vlp16", false}, {"pandar64", true}, {"mid40", false}, {"avia", true}};
    for (size_t k = 0; k < sizeof cfg / sizeof cfg[0]; k++) {
        const char *const *sets = cfg[k].deskew ? desk : world;
        const uint32_t ns = cfg[k].deskew ? 4 : 3;
        capture whole = run_cuts(cfg[k].preset, 1, NULL, 0, 0, 2 * P, sets, ns, true);
        assert_int_equal(whole.nhdr, 2);
        assert_true(whole.n > 10000);
        capture split = run_cuts(cfg[k].preset, 2, cuts, (int)(sizeof cuts / sizeof cuts[0]), 0, 2 * P, sets, ns, true);
        assert_same(&whole, &split);
        free(split.pts);
        if (cfg[k].preset[0] == 'm') { /* a 1 kHz host */
            capture steps = run_moving(cfg[k].preset, 2, 1000000, 2 * P, sets, ns);
            assert_same(&whole, &steps);
            free(steps.pts);
        }
        printf("# moving %s: %llu points, the same split and on two threads\n", cfg[k].preset,
               (unsigned long long)whole.n);
        free(whole.pts);
    }
}

/* The street's parked cars flattened into the static BVH
 * (sensim_scene_set_flatten): the same bytes for any thread count and any
 * split of time, standing and moving; against the cars as instances, the
 * same points (shots, channels, objects, tags, flags) with ranges within
 * float rounding (2e-5 m: two float ulps at 60 m). */
static void test_flatten_split(void **state)
{
    (void)state;
    const int64_t P = 100000000, cuts[] = {1, 777777, 33333333, P - 1, P, 150000001};
    const char *det[] = {"seed=5", "range_noise_stddev_m=0", "range_noise_per_m=0", "dropoff_model=none",
                         "dropoff_general_rate=0", "angular_jitter_deg=0"};
    const char *presets[] = {"pandar64", "mid40", "vlp16"};
    for (int k = 0; k < 3; k++) {
        g_flat = 1u << 20;
        capture whole = run_cuts(presets[k], 1, NULL, 0, 0, 2 * P, det, 6, k == 2);
        capture split = run_cuts(presets[k], 2, cuts, (int)(sizeof cuts / sizeof cuts[0]), 0, 2 * P, det, 6, k == 2);
        assert_same(&whole, &split);
        free(split.pts);
        g_flat = 0;
        capture inst = run_cuts(presets[k], 2, NULL, 0, 0, 2 * P, det, 6, k == 2);
        assert_int_equal(whole.n, inst.n);
        uint64_t cars = 0;
        double worst = 0;
        for (uint64_t i = 0; i < whole.n; i++) {
            const sensim_point *a = &whole.pts[i], *b = &inst.pts[i];
            assert_int_equal(a->t_offset_ns, b->t_offset_ns);
            assert_int_equal(a->channel, b->channel);
            assert_int_equal(a->object_id, b->object_id);
            assert_int_equal(a->tag, b->tag);
            assert_int_equal(a->flags, b->flags);
            double dr = fabs((double)a->range_m - b->range_m);
            worst = dr > worst ? dr : worst;
            cars += a->object_id > 0;
        }
        assert_true(cars > 500);
        assert_true(worst <= 2e-5);
        printf("# flattened %s%s: %llu points (%llu on cars), ranges within %.2g m of the instanced scene's\n",
               presets[k], k == 2 ? " moving" : "", (unsigned long long)whole.n, (unsigned long long)cars, worst);
        free(whole.pts), free(inst.pts);
    }
}

static void test_vlp16_firing_offsets_and_noise(void **state)
{
    (void)state;
    const char *sets[] = {"range_noise_stddev_m=0.05", "seed=1234"};
    check_preset("vlp16", sets, 2);
}

static void test_full_return_model(void **state)
{
    (void)state;
    const char *sets[] = {"return_mode=dual", "beam_divergence_h_mrad=3", "beam_divergence_v_mrad=1.5",
                          "beam_subrays=7", "rain_rate_mm_h=20", "rain_false_returns=1", "dropoff_model=carla",
                          "dropoff_general_rate=0.1", "dropoff_intensity_limit=0.5", "dropoff_zero_intensity=0.3",
                          "angular_jitter_deg=0.01", "range_noise_stddev_m=0.02", "max_bounces=2", "seed=77"};
    check_preset("pandar64", sets, (uint32_t)(sizeof sets / sizeof sets[0]));
}

/* 37 sub-rays on hdl32: a whole lane's 36 x 256 extra sub-rays exceed one
 * batch (8192), so whole lanes trace them in groups of shots in firing order while
 * the partial lanes at the cuts fit and go in tile order; the packets differ,
 * the points may not. */
static void test_subray_batches(void **state)
{
    (void)state;
    const int64_t P = 100000000;
    const char *sets[] = {"beam_subrays=37", "return_mode=dual"};
    capture one = run("hdl32", 1, NULL, 0, 0, P, sets, 2);
    assert_int_equal(one.nhdr, 1);
    assert_true(one.n > 10000);
    const int64_t cuts[] = {1, 777777, 33333333, 33333334, 50000000, P - 1};
    capture split = run("hdl32", 2, cuts, (int)(sizeof cuts / sizeof cuts[0]), 0, P, sets, 2);
    assert_same(&one, &split);
    free(one.pts);
    free(split.pts);
}

/* The strongest return is the dual mode's first, byte for byte: the
 * strongest mode stops mirror rays off car paint where nothing they meet
 * could be stronger than the paint's own echo or join it (ghost_reach in
 * returns.c), the dual mode follows them to max_range_m. With noise and
 * physical drop-out, moving, on two threads, split in time; the scene has
 * ghosts that win (stronger than the surface that mirrors them). */
static void test_strongest_is_dual_first(void **state)
{
    (void)state;
    const int64_t P = 100000000, cuts[] = {33333333, 150000001};
    for (int k = 0; k < 2; k++) {
        const char *preset = k ? "mems_m1" : "pandar64";
        const char *strongest[] = {"seed=9", "range_noise_stddev_m=0.03"};
        const char *dual[] = {"seed=9", "range_noise_stddev_m=0.03", "return_mode=dual"};
        capture s = run(preset, 2, cuts, 2, 0, 2 * P, strongest, 2);
        capture d = run(preset, 1, NULL, 0, 0, 2 * P, dual, 3);
        uint64_t n0 = 0, ghosts = 0, winning = 0;
        for (uint64_t i = 0; i < d.n; i++) {
            ghosts += (d.pts[i].flags & SENSIM_POINT_GHOST) != 0;
            if (d.pts[i].flags & SENSIM_POINT_RETURN_MASK)
                continue;
            winning += (d.pts[i].flags & SENSIM_POINT_GHOST) != 0;
            assert_true(n0 < s.n);
            assert_memory_equal(&s.pts[n0], &d.pts[i], sizeof(sensim_point));
            n0++;
        }
        printf("# %s: %llu strongest points, dual: %llu points, %llu ghosts, %llu of them strongest\n", preset,
               (unsigned long long)s.n, (unsigned long long)d.n, (unsigned long long)ghosts,
               (unsigned long long)winning);
        assert_int_equal(n0, s.n);
        assert_true(ghosts > 100 && winning > 0);
        free(s.pts);
        free(d.pts);
    }
}

static void test_seed_changes_noise(void **state)
{
    (void)state;
    const char *a[] = {"range_noise_stddev_m=0.05", "seed=1"};
    const char *b[] = {"range_noise_stddev_m=0.05", "seed=2"};
    capture ca = run("vlp16", 2, NULL, 0, 0, 100000000, a, 2);
    capture cb = run("vlp16", 2, NULL, 0, 0, 100000000, b, 2);
    assert_true(ca.n > 0 && cb.n > 0);
    assert_true(ca.n != cb.n || memcmp(ca.pts, cb.pts, ca.n * sizeof(sensim_point)) != 0);
    free(ca.pts);
    free(cb.pts);
}

/* Range noise: inside a large sphere-like box, the error against the
 * noiseless range has mean 0 and standard deviation sigma. With N samples
 * the standard error of the mean is sigma/sqrt(N); we allow 5 of those, and
 * 5% on the standard deviation (its relative standard error is 1/sqrt(2N)). */
static void test_noise_statistics(void **state)
{
    (void)state;
    sensim_context *ctx = test_ctx(0);
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {-30, -30, -30}, hi[3] = {30, 30, 30};
    add_box(s, lo, hi, 3, 0);
    CHECK_OK(sensim_scene_commit(s));
    const char *sets[] = {"range_noise_stddev_m=0.1", "seed=99"};
    sensim_lidar *clean, *noisy;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar64", NULL, 0, &clean));
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar64", sets, 2, &noisy));
    sensim_ring *r1 = test_ring(200000, 2, SENSIM_OVERFLOW_FAIL), *r2 = test_ring(200000, 2, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    identity(pose);
    CHECK_OK(sensim_lidar_scan(clean, s, 0, 100000000, pose, r1, NULL));
    CHECK_OK(sensim_lidar_scan(noisy, s, 0, 100000000, pose, r2, NULL));
    sensim_point *a = NULL, *b = NULL;
    uint64_t na = 0, nb = 0;
    drain(r1, &a, &na, NULL, 0, NULL);
    drain(r2, &b, &nb, NULL, 0, NULL);
    assert_int_equal(na, nb);
    for (uint64_t i = 0; i < na; i++) { /* the point moves along its own beam */
        double ratio = b[i].range_m / a[i].range_m;
        assert_true(fabs(b[i].x - a[i].x * ratio) < 1e-3);
    }
    double mean, sd;
    paired_range_noise(a, b, na, &mean, &sd);
    printf("# noise: N=%llu mean=%.5f sd=%.5f (sigma 0.1)\n", (unsigned long long)na, mean, sd);
    assert_true(fabs(mean) < 5 * 0.1 / sqrt((double)na));
    assert_true(fabs(sd - 0.1) < 0.05 * 0.1);
    free(a);
    free(b);
    free(r1);
    free(r2);
    sensim_lidar_destroy(clean);
    sensim_lidar_destroy(noisy);
    sensim_scene_destroy(s);
    sensim_context_destroy(ctx);
}

/* sensim_lidar_rewind: a rewound lidar scans an earlier span again and gives a new lidar's points, bit for bit. */
static void test_rewind(void **state)
{
    (void)state;
    sensim_context *ctx = test_ctx(2);
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    street_info si;
    CHECK_OK(street_scene_build(s, 120.0f, 1, &si));
    CHECK_OK(sensim_scene_commit(s));
    const char *sets[] = {"range_noise_stddev_m=0.02", "seed=5"};
    /* a Risley and a MEMS head replay the pattern rewind keeps (sensim_lidar_rewind):
     * the same bytes, also for a span reaching past what it keeps */
    static const char *const presets[] = {"pandar64", "mid40", "mems_m1"};
    for (int k = 0; k < 3; k++) {
    sensim_lidar *a, *b;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, presets[k], sets, 2, &a));
    CHECK_OK(sensim_lidar_create_from_preset(ctx, presets[k], sets, 2, &b));
    sensim_ring *r = test_ring(400000, 4, SENSIM_OVERFLOW_FAIL);
    double p1[16], p2[16];
    translation(p1, 1.5, 0.5, 1.8);
    translation(p2, -10, 2, 3);
    capture fresh = {0}, again = {0};
    CHECK_OK(sensim_lidar_scan(a, s, 0, 100000000, p2, r, NULL));
    drain(r, &fresh.pts, &fresh.n, fresh.hdr, 64, &fresh.nhdr);
    CHECK_OK(sensim_lidar_scan(b, s, 0, 200000000, p1, r, NULL)); /* another pose, further in time */
    sensim_point *junk = NULL;
    uint64_t nj = 0;
    drain(r, &junk, &nj, NULL, 0, NULL);
    assert_int_equal(sensim_lidar_scan(b, s, 0, 100000000, p2, r, NULL), SENSIM_ERR_TIME_ORDER);
    CHECK_OK(sensim_lidar_rewind(b));
    CHECK_OK(sensim_lidar_scan(b, s, 0, 100000000, p2, r, NULL));
    drain(r, &again.pts, &again.n, again.hdr, 64, &again.nhdr);
    assert_true(fresh.n > 3000);
    for (uint32_t i = 0; i < fresh.nhdr && i < again.nhdr; i++) /* the ring's running index, not the scan's */
        fresh.hdr[i].first_point = again.hdr[i].first_point = 0;
    assert_same(&fresh, &again);
    /* past the kept span (200 ms, to 300 ms): lanes inside it replayed, the others computed */
    capture longer = {0}, longer2 = {0};
    CHECK_OK(sensim_lidar_rewind(a));
    CHECK_OK(sensim_lidar_rewind(b));
    CHECK_OK(sensim_lidar_scan(b, s, 0, 300000000, p1, r, NULL));
    drain(r, &longer.pts, &longer.n, longer.hdr, 64, &longer.nhdr);
    sensim_lidar *c;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, presets[k], sets, 2, &c));
    CHECK_OK(sensim_lidar_scan(c, s, 0, 300000000, p1, r, NULL));
    drain(r, &longer2.pts, &longer2.n, longer2.hdr, 64, &longer2.nhdr);
    for (uint32_t i = 0; i < longer.nhdr && i < longer2.nhdr; i++)
        longer.hdr[i].first_point = longer2.hdr[i].first_point = 0;
    assert_same(&longer, &longer2);
    printf("# %s: %llu points after a rewind, %llu past the kept span: the same bytes\n", presets[k],
           (unsigned long long)again.n, (unsigned long long)longer.n);
    sensim_lidar_destroy(c);
    free(longer.pts), free(longer2.pts);
    free(junk);
    free(fresh.pts);
    free(again.pts);
    free(r);
    sensim_lidar_destroy(a);
    sensim_lidar_destroy(b);
    }
    assert_int_equal(sensim_lidar_rewind(NULL), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_scene_destroy(s);
    sensim_context_destroy(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pandar64),
        cmocka_unit_test(test_mems_and_risley),
        cmocka_unit_test(test_mems_team_steps),
        cmocka_unit_test(test_moving_split),
        cmocka_unit_test(test_flatten_split),
        cmocka_unit_test(test_strongest_is_dual_first),
        cmocka_unit_test(test_vlp16_firing_offsets_and_noise),
        cmocka_unit_test(test_full_return_model),
        cmocka_unit_test(test_subray_batches),
        cmocka_unit_test(test_seed_changes_noise),
        cmocka_unit_test(test_noise_statistics),
        cmocka_unit_test(test_rewind),
    };
    return cmocka_run_group_tests_name("invariance", tests, NULL, NULL);
}
