/* Presets, descriptors, statuses, lifecycle and misuse. */
#include "helpers.h"
#include "internal.h"

#include <unistd.h>

TEST_GROUP_FIXTURE(0, 0)

static void test_version_and_status(void **state)
{
    (void)state;
    assert_string_equal(sensim_version_string(), SENSIM_VERSION_STRING);
    assert_int_equal(sensim_version_number(),
                     SENSIM_VERSION_MAJOR * 10000 + SENSIM_VERSION_MINOR * 100 + SENSIM_VERSION_PATCH);
    for (sensim_status s = 0; s <= SENSIM_ERR_CANCELLED; s++) {
        const char *t = sensim_status_string(s);
        assert_non_null(strstr(t, "SENSIM_"));
        for (sensim_status u = 0; u < s; u++)
            assert_string_not_equal(t, sensim_status_string(u));
    }
    assert_string_equal(sensim_status_string(9999), "unknown status");
    assert_true(sensim_context_thread_count(ctx) >= 1);
}

/* The presets the foundation promises, with their datasheet figures. */
static void test_lidar_ring_size(void **state)
{
    sensim_context *c = test_ctx(1);
    sensim_lidar *l;
    const char *dual[] = {"return_mode=dual"};
    assert_int_equal(sensim_lidar_create_from_preset(c, "pandar64", dual, 1, &l), SENSIM_OK);
    sensim_lidar_info li;
    assert_int_equal(sensim_lidar_get_info(l, &li), SENSIM_OK);
    assert_int_equal(li.max_points_per_frame, 2 * li.shots_per_frame);
    uint64_t pts;
    size_t bytes, want;
    assert_int_equal(sensim_lidar_ring_size(l, 3, &pts, &bytes), SENSIM_OK);
    assert_int_equal(pts, 3 * li.max_points_per_frame);
    assert_int_equal(sensim_ring_required_size(pts, 3, &want), SENSIM_OK);
    assert_int_equal(bytes, want);
    assert_int_equal(sensim_lidar_ring_size(l, 0, &pts, &bytes), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_lidar_ring_size(l, (1u << 24) + 1, &pts, &bytes), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_lidar_ring_size(l, 1u << 24, &pts, &bytes), SENSIM_ERR_TOO_LARGE);
    assert_int_equal(sensim_lidar_ring_size(l, 3, NULL, &bytes), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_lidar_ring_size(NULL, 3, &pts, &bytes), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_lidar_destroy(l);
    sensim_context_destroy(c);
}

static void test_required_presets(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint32_t ch, cols;
        double hz;
    } want[] = {
        /* free-running: ceil(P / firing cycle) columns (55.296, 46.08, 48, 55.56, 55.556 us) */
        {"vlp16", 16, 1809, 10},    {"hdl32", 32, 2171, 10},     {"hdl64", 64, 2084, 10},
        {"pandar64", 64, 1800, 10}, {"pandar128", 128, 1800, 10}, {"os1_64", 64, 2048, 10},
        {"os0_128", 128, 1024, 10},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        sensim_lidar *l;
        CHECK_OK(sensim_lidar_create_from_preset(ctx, want[i].name, NULL, 0, &l));
        sensim_lidar_info li;
        CHECK_OK(sensim_lidar_get_info(l, &li));
        assert_string_equal(li.name, want[i].name);
        assert_int_equal(li.channel_count, want[i].ch);
        assert_int_equal(li.columns_per_revolution, want[i].cols);
        assert_true(fabs(li.frame_rate_hz - want[i].hz) < 1e-9);
        /* an upper bound: a free-running frame holds one partial column more at most */
        assert_true(li.shots_per_frame >= (uint64_t)want[i].ch * want[i].cols &&
                    li.shots_per_frame <= (uint64_t)want[i].ch * (want[i].cols + 1));
        sensim_lidar_destroy(l);
    }
    /* elevation tables: first/last entries from the reference */
    sensim_lidar *l;
    float el[128];
    uint32_t n;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar64", NULL, 0, &l));
    CHECK_OK(sensim_lidar_get_elevations(l, el, 128, &n));
    assert_int_equal(n, 64);
    assert_true(fabs(el[0] * 180 / 3.14159265358979 - 14.882) < 1e-4);
    assert_true(fabs(el[63] * 180 / 3.14159265358979 + 24.897) < 1e-4);
    assert_int_equal(sensim_lidar_get_elevations(l, el, 10, &n), SENSIM_ERR_TOO_LARGE);
    sensim_lidar_destroy(l);
}

static void test_overrides(void **state)
{
    (void)state;
    const char *sets[] = {"max_range_m = 50", "rotation_hz=20", "column_period_ns=53333.333"};
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", sets, 3, &l));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    assert_true(li.max_range_m == 50.0f);
    assert_int_equal(li.frame_period_ns, 50000000);
    assert_int_equal(li.columns_per_revolution, 938); /* ceil(50 ms / 53.333 us) = ceil(937.5) */
    sensim_lidar_destroy(l);

    static const struct {
        const char *set;
        sensim_status st;
        const char *msg;
    } bad[] = {
        {"bogus_key=1", SENSIM_ERR_UNKNOWN_KEY, "override 1: unknown key 'bogus_key'"},
        {"max_range_m=abc", SENSIM_ERR_PARSE, "override 1: max_range_m"},
        {"max_range_m=nan", SENSIM_ERR_NOT_FINITE, "override 1"},
        {"max_range_m=-5", SENSIM_ERR_OUT_OF_RANGE, "override 1 'max_range_m=-5', applied to"}, /* a check across keys blames the override */
        {"channels=0", SENSIM_ERR_OUT_OF_RANGE, "channels"},
        {"channels=15", SENSIM_ERR_OUT_OF_RANGE, "elevation_deg has 16 entries, channels = 15"},
        {"rotation_hz=0.01", SENSIM_ERR_OUT_OF_RANGE, "rotation_hz"},
        {"elevation_deg=1,2,,3", SENSIM_ERR_PARSE, "elevation_deg"},
        {"spin=sideways", SENSIM_ERR_OUT_OF_RANGE, "spin"},
        {"noequals", SENSIM_ERR_PARSE, "KEY=VALUE"},
        {"range_noise_stddev_m=-1", SENSIM_ERR_OUT_OF_RANGE, "range_noise_stddev_m"},
        {"firing_offset_ns=0,1,2", SENSIM_ERR_OUT_OF_RANGE, "firing_offset_ns has 3 entries"},
        {"elevation_deg=95,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", SENSIM_ERR_OUT_OF_RANGE, "elevation of channel 0"},
        {"column_period_ns=30000", SENSIM_ERR_OUT_OF_RANGE, "firing offset of channel"},
        {"shots_per_s=600000", SENSIM_ERR_OUT_OF_RANGE, "are both set"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *one[] = {bad[i].set};
        sensim_status st = sensim_lidar_create_from_preset(ctx, "vlp16", one, 1, &l);
        const char *msg = sensim_context_last_error(ctx);
        if (st != bad[i].st || !strstr(msg, bad[i].msg))
            fail_msg("--set %s: got %s '%s'", bad[i].set, sensim_status_string(st), msg);
        assert_null(l);
    }
}

static void test_preset_file_errors(void **state)
{
    (void)state;
    char pdir[] = "/tmp/sensim_test_presets_XXXXXX";
    assert_non_null(mkdtemp(pdir));
    char path[256];
    snprintf(path, sizeof path, "%s/bad.preset", pdir);
    static const struct {
        const char *text;
        sensim_status st;
        const char *msg;
    } bad[] = {
        {"channels = 2\nelevation_deg = 0, 1\nwhat = 3\n", SENSIM_ERR_UNKNOWN_KEY, "bad.preset:3: unknown key 'what'"},
        {"channels = 2\n\n# c\nelevation_deg = 0; 1\n", SENSIM_ERR_PARSE, "bad.preset:4: elevation_deg"},
        {"channels = 2\njunk line\n", SENSIM_ERR_PARSE, "bad.preset:2: expected 'key = value'"},
        {"elevation_deg = 0\n", SENSIM_ERR_EMPTY, "no 'channels' key"},
        {"type = flash\n", SENSIM_ERR_OUT_OF_RANGE, "bad.preset:1: type"},
        {"channels = 1\nelevation_deg = 0\nshots_per_s = 0\n", SENSIM_ERR_OUT_OF_RANGE, "shots_per_s"},
        {"", SENSIM_ERR_EMPTY, "bad.preset"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "w");
        fputs(bad[i].text, f);
        fclose(f);
        sensim_lidar *l;
        sensim_status st = sensim_lidar_create_from_preset(ctx, path, NULL, 0, &l);
        const char *msg = sensim_context_last_error(ctx);
        if (st != bad[i].st || !strstr(msg, bad[i].msg))
            fail_msg("case %zu: got %s '%s'", i, sensim_status_string(st), msg);
    }
    sensim_lidar *l;
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "no_such_preset", NULL, 0, &l), SENSIM_ERR_NOT_FOUND);
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "../etc/passwd", NULL, 0, &l), SENSIM_ERR_IO);
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "a b", NULL, 0, &l), SENSIM_ERR_NOT_FOUND);
    /* did you mean: the nearest installed name within a few edits, case aside; none when nothing is near */
    static const struct { const char *typed, *meant; } near[] = {
        {"vlp-16", "vlp16"}, {"VLP16", "vlp16"}, {"pandar_128", "pandar128"}, {"os1-64", "os1_64"}, {"mid4", "mid40"}};
    for (size_t i = 0; i < sizeof near / sizeof *near; i++) {
        char want[64];
        snprintf(want, sizeof want, "did you mean '%s'?", near[i].meant);
        assert_int_equal(sensim_lidar_create_from_preset(ctx, near[i].typed, NULL, 0, &l), SENSIM_ERR_NOT_FOUND);
        if (!strstr(sensim_context_last_error(ctx), want))
            fail_msg("%s: '%s'", near[i].typed, sensim_context_last_error(ctx));
    }
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "zzzzzzzz", NULL, 0, &l), SENSIM_ERR_NOT_FOUND);
    assert_null(strstr(sensim_context_last_error(ctx), "did you mean"));
    assert_int_equal(sensim__edit_distance("kitten", "sitting", 10), 3);
    assert_int_equal(sensim__edit_distance("", "abc", 10), 3);
    assert_int_equal(sensim__edit_distance("abc", "ABC", 10), 0);
    assert_int_equal(sensim__edit_distance("abcdef", "uvwxyz", 2), 3); /* capped */
    unlink(path);
    rmdir(pdir);
}

static void test_desc_validation(void **state)
{
    (void)state;
    float el[2] = {0, 0.1f};
    sensim_lidar_desc d;
    sensim_lidar *l = NULL;
    sensim_lidar_desc_init(&d);
    d.elevation_rad = el;
    d.shots_per_s = 1000;
    assert_int_equal(sensim_lidar_create(ctx, &d, &l), SENSIM_ERR_EMPTY); /* 0 channels */
    d.channel_count = 2;
    CHECK_OK(sensim_lidar_create(ctx, &d, &l));
    sensim_lidar_destroy(l);
    d.rotation_hz = NAN;
    assert_int_equal(sensim_lidar_create(ctx, &d, &l), SENSIM_ERR_NOT_FINITE);
    d.rotation_hz = -10;
    assert_int_equal(sensim_lidar_create(ctx, &d, &l), SENSIM_ERR_OUT_OF_RANGE);
    d.rotation_hz = 10;
    d.min_range_m = 200;
    assert_int_equal(sensim_lidar_create(ctx, &d, &l), SENSIM_ERR_OUT_OF_RANGE);
    d.min_range_m = 0;
    d.shots_per_s = 1e15;
    assert_int_equal(sensim_lidar_create(ctx, &d, &l), SENSIM_ERR_OUT_OF_RANGE);
    d.shots_per_s = 1000;
    d.mount_pose[3] = INFINITY;
    assert_int_equal(sensim_lidar_create(ctx, &d, &l), SENSIM_ERR_NOT_FINITE);
    d.mount_pose[3] = 0;
    el[1] = NAN;
    assert_int_equal(sensim_lidar_create(ctx, &d, &l), SENSIM_ERR_NOT_FINITE);
    assert_int_equal(sensim_lidar_create(ctx, NULL, &l), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_context_set_thread_count(ctx, 5000), SENSIM_ERR_OUT_OF_RANGE);
}

static void test_scan_misuse(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &l));
    sensim_ring *r = test_ring(100000, 4, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    identity(pose);
    add_plane(s, 100, 1);
    assert_int_equal(sensim_lidar_scan(l, s, 0, 100, pose, r, NULL), SENSIM_ERR_NOT_COMMITTED);
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(sensim_lidar_scan(l, s, 100, 0, pose, r, NULL), SENSIM_ERR_TIME_ORDER);
    pose[13] = NAN;
    assert_int_equal(sensim_lidar_scan(l, s, 0, 100, pose, r, NULL), SENSIM_ERR_NOT_FINITE);
    pose[13] = 0;
    assert_int_equal(sensim_lidar_scan(l, s, 0, 100, pose, NULL, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_lidar_scan(NULL, s, 0, 100, pose, r, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    CHECK_OK(sensim_lidar_scan(l, s, 0, 0, pose, r, NULL)); /* empty interval */
    /* negative time is just earlier time */
    sensim_lidar *l2;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &l2));
    sensim_scan_result res;
    CHECK_OK(sensim_lidar_scan(l2, s, -100000000, 0, pose, r, &res));
    assert_int_equal(res.frames_completed, 1);
    sensim_frame_header h;
    uint64_t n;
    CHECK_OK(sensim_ring_pop(r, &h, NULL, 0, &n));
    assert_int_equal(h.t_begin_ns, -100000000);
    assert_int_equal(h.frame_number, (uint64_t)-1);
    /* destruction in any order: context first, children keep it alive */
    sensim_context *c2 = test_ctx(1);
    sensim_scene *s2;
    CHECK_OK(sensim_scene_create(c2, &s2));
    add_plane(s2, 10, 1);
    CHECK_OK(sensim_scene_commit(s2));
    sensim_lidar *l3;
    CHECK_OK(sensim_lidar_create_from_preset(c2, "vlp16", NULL, 0, &l3));
    sensim_context_destroy(c2);
    sensim_ring *r2 = test_ring(100000, 4, SENSIM_OVERFLOW_FAIL);
    CHECK_OK(sensim_lidar_scan(l3, s2, 0, 1000000, pose, r2, NULL));
    sensim_scene_destroy(s2);
    sensim_lidar_destroy(l3);
    sensim_context_destroy(NULL);
    sensim_scene_destroy(NULL);
    sensim_lidar_destroy(NULL);
    free(r);
    free(r2);
    sensim_lidar_destroy(l);
    sensim_lidar_destroy(l2);
    sensim_scene_destroy(s);
}

/* The rest of the bad-input matrix: wrong handles, degenerate geometry,
 * absurd sizes, non-regular files, NaN motion. */
static void test_bad_input_matrix(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    /* zero-area and degenerate triangles are accepted and never produce NaN points */
    const float v[] = {-50, -50, 0, 50, -50, 0, 50, 50, 0, -50, 50, 0, 1, 1, 0};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3, 4, 4, 4, 0, 0, 1, 1, 2, 3};
    sensim_mesh_desc d;
    sensim_mesh_desc_init(&d);
    d.vertices = v, d.vertex_count = 5, d.indices = idx, d.triangle_count = 5, d.tag = 1;
    CHECK_OK(sensim_scene_add_mesh(s, &d, NULL));
    CHECK_OK(sensim_scene_commit(s));
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &l));
    sensim_ring *r = test_ring(100000, 4, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    translation(pose, 0.3, 0.2, 2);
    CHECK_OK(sensim_lidar_scan(l, s, 0, 100000000, pose, r, NULL));
    sensim_point *p = malloc(100000 * sizeof *p);
    uint64_t n;
    CHECK_OK(sensim_ring_pop(r, NULL, p, 100000, &n));
    assert_true(n > 1000);
    for (uint64_t i = 0; i < n; i++)
        assert_true(isfinite(p[i].x) && isfinite(p[i].y) && isfinite(p[i].z) && isfinite(p[i].intensity));
    free(p);
    /* a handle of the wrong type is refused, not used */
    assert_int_equal(sensim_lidar_scan((sensim_lidar *)s, s, 0, 10, pose, r, NULL), SENSIM_ERR_BAD_HANDLE);
    assert_int_equal(sensim_lidar_scan(l, (sensim_scene *)l, 100000000, 100000010, pose, r, NULL),
                     SENSIM_ERR_BAD_HANDLE);
    assert_int_equal(sensim_scene_commit((sensim_scene *)l), SENSIM_ERR_BAD_HANDLE);
    sensim_scene *s2;
    assert_int_equal(sensim_scene_create((sensim_context *)s, &s2), SENSIM_ERR_BAD_HANDLE);
    sensim_lidar_info li;
    assert_int_equal(sensim_lidar_get_info((sensim_lidar *)s, &li), SENSIM_ERR_BAD_HANDLE);
    assert_int_equal(sensim_ring_peek((sensim_ring *)l, NULL), SENSIM_ERR_BAD_HANDLE);
    sensim_lidar_destroy((sensim_lidar *)s); /* ignored: not a lidar */
    sensim_scene_destroy((sensim_scene *)l); /* ignored: not a scene */
    /* sizes that would overflow */
    d.triangle_count = 0x7fffffffu;
    assert_int_equal(sensim_scene_add_mesh(s, &d, NULL), SENSIM_ERR_TOO_LARGE);
    size_t size;
    assert_int_equal(sensim_ring_required_size(UINT64_C(1) << 41, 4, &size), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_ring_required_size(10, UINT32_MAX, &size), SENSIM_ERR_OUT_OF_RANGE);
    /* non-regular files: a directory, a character device */
    assert_int_equal(sensim_scene_load_obj(s, "/tmp", NULL, NULL), SENSIM_ERR_IO);
    assert_int_equal(sensim_scene_load_ply(s, "/dev/null", NULL, NULL), SENSIM_ERR_IO);
    assert_non_null(strstr(sensim_context_last_error(ctx), "not a regular file"));
    sensim_lidar *none;
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "/dev/zero", NULL, 0, &none), SENSIM_ERR_IO);
    assert_null(none);
    /* NaN in motion keys */
    sensim_pose_key keys[2];
    keys[0].t_ns = 0, keys[1].t_ns = 10;
    identity(keys[0].pose);
    identity(keys[1].pose);
    keys[1].pose[13] = NAN;
    sensim_motion m;
    memset(&m, 0, sizeof m);
    m.keys = keys, m.key_count = 2;
    sensim_lidar *l2;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &l2));
    assert_int_equal(sensim_lidar_scan_motion(l2, s, 0, 10, &m, r, NULL), SENSIM_ERR_NOT_FINITE);
    m.key_count = 65;
    assert_int_equal(sensim_lidar_scan_motion(l2, s, 0, 10, &m, r, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    free(r);
    sensim_lidar_destroy(l);
    sensim_lidar_destroy(l2);
    sensim_scene_destroy(s);
}

/* Finite but absurd numbers get a status before they reach Embree (a pose
 * of 1.9e18 m aborted the process inside it) or wrap an integer. */
static void test_hostile_numbers(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 100, 1);
    CHECK_OK(sensim_scene_commit(s));
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &l));
    sensim_ring *r = test_ring(100000, 4, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    translation(pose, 1.9e18, 0, 1.8);
    assert_int_equal(sensim_lidar_scan(l, s, 0, 1000000, pose, r, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "translation x"));
    translation(pose, 0, 0, 1.8);
    pose[0] = 1e300; /* a "rotation" that would send rays to infinity */
    assert_int_equal(sensim_lidar_scan(l, s, 0, 1000000, pose, r, NULL), SENSIM_ERR_OUT_OF_RANGE);
    translation(pose, 0, 0, 1.8);
    /* mount within bounds, platform within bounds */
    double far[16];
    translation(far, 2e9, 0, 0);
    assert_int_equal(sensim_lidar_set_mount_pose(l, far), SENSIM_ERR_OUT_OF_RANGE);
    /* velocity that carries the pose beyond the bound */
    sensim_pose_key keys[2];
    const double v[3] = {1e300, 0, 0}, w[3] = {0, 0, 0};
    assert_int_equal(sensim_motion_from_velocity(pose, 0, 1000000000, v, w, keys), SENSIM_ERR_OUT_OF_RANGE);
    /* times near INT64_MAX are refused instead of overflowing */
    assert_int_equal(sensim_lidar_scan(l, s, INT64_MAX - 10, INT64_MAX, pose, r, NULL), SENSIM_ERR_OUT_OF_RANGE);
    uint64_t n;
    assert_int_equal(sensim_lidar_count_shots(l, INT64_MIN, 0, &n), SENSIM_ERR_OUT_OF_RANGE);
    double sec;
    uint64_t rays, hits;
    pose[12] = NAN;
    assert_int_equal(sensim_bench_trace(l, s, 0, 1000000, pose, SENSIM_BENCH_NAIVE, &sec, &rays, &hits),
                     SENSIM_ERR_NOT_FINITE);
    pose[12] = 0;
    /* wrong-type handles where they were once used as the wrong struct */
    assert_int_equal(sensim_bench_trace((sensim_lidar *)s, s, 0, 10, pose, SENSIM_BENCH_NAIVE, &sec, &rays, &hits),
                     SENSIM_ERR_BAD_HANDLE);
    uint32_t id;
    assert_int_equal(sensim_scene_find_material((sensim_scene *)l, "x", &id), SENSIM_ERR_BAD_HANDLE);
    assert_int_equal(sensim_scene_add_actor((sensim_scene *)l, 0, 5, pose), SENSIM_ERR_BAD_HANDLE);
    sensim_pattern_stats ps;
    assert_int_equal(sensim_pattern_measure((sensim_lidar *)s, 0, 10, 0.01, NULL, 0, NULL, NULL, 0, &ps),
                     SENSIM_ERR_BAD_HANDLE);
    assert_int_equal(sensim_pattern_export_csv((sensim_lidar *)s, 0, 10, "/tmp/never.csv", NULL),
                     SENSIM_ERR_BAD_HANDLE);
    /* Unix-epoch times in ns (ROS stamps) scan like any other time; indices stay in int64 (UBSan build) */
    static const char *const at_epoch[] = {"vlp16", "pandar128", "mid40", "avia", "mems_m1"};
    const int64_t T = INT64_C(1700000000000000000);
    for (size_t i = 0; i < sizeof at_epoch / sizeof at_epoch[0]; i++) {
        sensim_lidar *e;
        CHECK_OK(sensim_lidar_create_from_preset(ctx, at_epoch[i], NULL, 0, &e));
        sensim_ring *er = test_ring(4000000, 8, SENSIM_OVERFLOW_DROP_OLDEST);
        sensim_scan_result res;
        CHECK_OK(sensim_lidar_scan(e, s, T, T + 20000000, pose, er, &res));
        assert_true(res.shots > 1000);
        CHECK_OK(sensim_lidar_count_shots(e, -T, T, &n));
        free(er);
        sensim_lidar_destroy(e);
    }
    /* a pattern of 10^10 shots/s would leave int64 shot indices at that time: refused */
    const char *fast[] = {"shots_per_s=1e10"};
    sensim_lidar *fl;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "mems_m1", fast, 1, &fl));
    assert_int_equal(sensim_lidar_count_shots(fl, 0, T, &n), SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "shot index"));
    assert_int_equal(sensim_lidar_scan(fl, s, T, T + 1000, pose, r, NULL), SENSIM_ERR_OUT_OF_RANGE);
    sensim_lidar_destroy(fl);
    /* t_offset_ns is uint32: frames longer than 4.29 s are refused, not wrapped */
    const char *slow[] = {"frame_rate_hz=0.1"};
    sensim_lidar *bad = NULL;
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "mid40", slow, 1, &bad), SENSIM_ERR_OUT_OF_RANGE);
    assert_null(bad);
    const char *ok_slow[] = {"frame_rate_hz=0.25"};
    sensim_lidar *l4;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "mid40", ok_slow, 1, &l4));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l4, &li));
    assert_true(li.frame_period_ns <= (int64_t)UINT32_MAX);
    /* a FAIL ring that cannot hold a long scan refuses it after the first chunk, not after tracing it all */
    sensim_ring *tiny = test_ring(100, 4, SENSIM_OVERFLOW_FAIL);
    translation(pose, 0, 0, 1.8);
    assert_int_equal(sensim_lidar_scan(l, s, 0, 20000000000LL, pose, tiny, NULL), SENSIM_ERR_RING_FULL);
    sensim_ring_stats rs;
    CHECK_OK(sensim_ring_get_stats(tiny, &rs));
    assert_true(rs.points_refused > 100 && rs.points_refused <= 2 * 16384); /* the whole scan: ~6 million */
    free(tiny);
    free(r);
    sensim_lidar_destroy(l);
    sensim_lidar_destroy(l4);
    sensim_scene_destroy(s);
}

/* Preset values that were once taken silently. */
static void test_preset_silent_accepts(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        sensim_status want;
        const char *says;
    } cases[] = {
        {"type = table\nmax_bounces = 4294967295\n", SENSIM_ERR_OUT_OF_RANGE, "max_bounces"},
        {"type = mechanical\nchannels = 1\nelevation_deg = 0\nrotation_hz = 0\n", SENSIM_ERR_OUT_OF_RANGE,
         "rotation_hz"},
        {"type = mechanical\nchannels = 1\nelevation_deg = 0\nrotation_hz = 10\nrotation_hz = 20\n",
         SENSIM_ERR_DUPLICATE, ":5: key 'rotation_hz' given twice"},
        {"name = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
         SENSIM_ERR_TOO_LARGE, "longer than 31"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sensim_lidar *l = NULL;
        sensim_status st = sensim__lidar_from_preset_mem(ctx, "case.preset", cases[i].text, strlen(cases[i].text),
                                                         NULL, 0, &l);
        assert_int_equal(st, cases[i].want);
        assert_null(l);
        if (!strstr(sensim_context_last_error(NULL), cases[i].says))
            fail_msg("case %zu: '%s' does not say '%s'", i, sensim_context_last_error(NULL), cases[i].says);
    }
    /* overrides still replace file values (not duplicates) */
    const char *sets[] = {"rotation_hz=20", "rotation_hz=5"};
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", sets, 2, &l));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    assert_int_equal(li.frame_period_ns, 200000000);
    sensim_lidar_destroy(l);
}

/* The built-in street: refused arguments and taken actor ids change nothing;
 * the same arguments give the same scene; the counts add up. */
static void test_builtin_street(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    sensim_scene_info si;
    const float bad_len[] = {NAN, INFINITY, -1.0f, 15.9f, 1e30f};
    for (size_t i = 0; i < sizeof bad_len / sizeof *bad_len; i++)
        assert_int_equal(sensim_scene_add_street(s, bad_len[i], 1, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_scene_add_street(s, 200.0f, 0, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_scene_add_street(s, 200.0f, 65, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_scene_add_street(NULL, 200.0f, 1, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    /* actor 5 taken: the cars need 1..N, so nothing is added */
    float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    uint32_t idx[3] = {0, 1, 2}, mesh;
    sensim_mesh_desc d;
    sensim_mesh_desc_init(&d);
    d.vertices = v, d.vertex_count = 3, d.indices = idx, d.triangle_count = 1, d.flags = SENSIM_MESH_PROTOTYPE;
    CHECK_OK(sensim_scene_add_mesh(s, &d, &mesh));
    double I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    CHECK_OK(sensim_scene_add_actor(s, mesh, 5, I));
    assert_int_equal(sensim_scene_add_street(s, 200.0f, 1, NULL), SENSIM_ERR_DUPLICATE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "actor id 5"));
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.mesh_count, 1);
    assert_int_equal(si.actor_count, 1);
    CHECK_OK(sensim_scene_remove_actor(s, 5));
    sensim_street_info a, b;
    CHECK_OK(sensim_scene_add_street(s, 200.0f, 1, &a));
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.mesh_count, 3); /* the triangle, the street, the car */
    assert_int_equal(si.actor_count, a.car_count);
    assert_int_equal(a.static_mesh_id, 1);
    assert_int_equal(a.car_mesh_id, 2);
    assert_int_equal(si.triangle_count, 1 + a.static_triangles + 96 /* the car: two boxes, faces 2 x 2 cells */);
    /* a second street would reuse the car ids */
    assert_int_equal(sensim_scene_add_street(s, 200.0f, 1, NULL), SENSIM_ERR_DUPLICATE);
    sensim_scene *s2;
    CHECK_OK(sensim_scene_create(ctx, &s2));
    CHECK_OK(sensim_scene_add_street(s2, 200.0f, 1, &b));
    assert_memory_equal(&a.static_triangles, &b.static_triangles, 2 * sizeof(uint32_t));
    sensim_scene_destroy(s2);
    sensim_scene_destroy(s);
}

/* The bare loop traces what the pipeline's first pass traces: every beam
 * sub-ray of every shot, and every variant the same rays with the same
 * hits. With 19 sub-rays and the identity pose one sub-ray direction has
 * y = -2.8e-19: in tile order its coherent packet lost 8 hits before
 * trace.c's dir_safe(). */
static void test_bench_trace_rays(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    CHECK_OK(sensim_scene_add_street(s, 200.0f, 1, NULL));
    CHECK_OK(sensim_scene_commit(s));
    const char *one[] = {"beam_subrays=1"}, *many[] = {"beam_subrays=19"};
    struct { const char *const *sets; uint32_t nsets, rays_per_shot; } cases[] = {
        {NULL, 0, 7}, {one, 1, 1}, {many, 1, 19}}; /* vlp16 itself: 7 */
    double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1.8, 1};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sensim_lidar *l;
        CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", cases[c].sets, cases[c].nsets, &l));
        uint64_t shots;
        CHECK_OK(sensim_lidar_count_shots(l, 0, 5000000, &shots));
        assert_true(shots > 1000);
        uint64_t hits0 = 0;
        for (int32_t v = SENSIM_BENCH_NAIVE; v <= SENSIM_BENCH_PATTERN16; v++) {
            double sec;
            uint64_t rays, hits;
            CHECK_OK(sensim_bench_trace(l, s, 0, 5000000, pose, v, &sec, &rays, &hits));
            assert_int_equal(rays, shots * cases[c].rays_per_shot);
            assert_true(hits > rays / 4 && hits <= rays); /* the road below, buildings around */
            if (v == SENSIM_BENCH_NAIVE)
                hits0 = hits;
            assert_int_equal(hits, hits0); /* the same rays, whatever the loop and packet order (dir_safe) */
        }
        double sec;
        uint64_t rays;
        /* 1e17 ns of shots: refused before any allocation */
        assert_int_equal(sensim_bench_trace(l, s, 0, INT64_C(100000000000000000), pose, SENSIM_BENCH_NAIVE, &sec,
                                            &rays, NULL),
                         SENSIM_ERR_TOO_LARGE);
        assert_non_null(strstr(sensim_context_last_error(NULL), "rays a shot"));
        sensim_lidar_destroy(l);
    }
    sensim_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_and_status), cmocka_unit_test(test_required_presets),
        cmocka_unit_test(test_lidar_ring_size),
        cmocka_unit_test(test_overrides),          cmocka_unit_test(test_preset_file_errors),
        cmocka_unit_test(test_desc_validation),    cmocka_unit_test(test_scan_misuse),
        cmocka_unit_test(test_bad_input_matrix),  cmocka_unit_test(test_hostile_numbers),
        cmocka_unit_test(test_preset_silent_accepts), cmocka_unit_test(test_builtin_street),
        cmocka_unit_test(test_bench_trace_rays),
    };
    return cmocka_run_group_tests_name("api", tests, setup, teardown);
}
