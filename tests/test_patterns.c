/* Non-mechanical patterns: exact Risley optics, datasheet FOVs, tables and
 * Livox CSV replay, MEMS extents, callbacks; cursor exactness. */
#include "helpers.h"
#include "lidar_impl.h"
#include "vmath.h"

#include <unistd.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

TEST_GROUP_FIXTURE(2, 1)

static const char *tmp_path(const char *name)
{
    static char p[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
    return p[k];
}

static const char *write_text(const char *name, const char *text)
{
    return write_test_file(dir, name, text, strlen(text));
}

static double angle_deg(const double a[3])
{
    return atan2(a[1], a[0]) / DEG;
}

/* One prism, beam in the xy plane (prism angle 0 puts the tilt there). */
static void test_snell_single_prism(void **state)
{
    (void)state;
    sensim_pattern p;
    memset(&p, 0, sizeof p);
    p.nprism = 1;
    const double n = 1.51, A = 18.0 * DEG, angle0[1] = {0.0};
    p.index[0] = n;
    double o[3];

    /* flat entrance (negative wedge), normal incidence: only the tilted exit
     * face bends the beam: deviation = asin(n·sin A) − A */
    p.wedge[0] = -A;
    const double along_x[3] = {1, 0, 0};
    assert_true(sensim__risley_trace(&p, along_x, angle0, o));
    assert_true(fabs(fabs(angle_deg(o)) - (asin(n * sin(A)) - A) / DEG) < 1e-9);

    /* symmetric passage through a prism of apex A gives the minimum
     * deviation 2·asin(n·sin(A/2)) − A */
    p.wedge[0] = A;
    double i = asin(n * sin(A / 2));
    const double in[3] = {cos(A - i), sin(A - i), 0};
    assert_true(sensim__risley_trace(&p, in, angle0, o));
    double dev = angle_deg(o) - (A - i) / DEG;
    assert_true(fabs(fabs(dev) - (2 * i - A) / DEG) < 1e-9);
    /* any other incidence deviates more */
    for (double e = -5; e <= 5; e += 1) {
        if (e == 0)
            continue;
        const double in2[3] = {cos(A - i + e * DEG), sin(A - i + e * DEG), 0};
        assert_true(sensim__risley_trace(&p, in2, angle0, o));
        assert_true(fabs(angle_deg(o) - (A - i + e * DEG) / DEG) > fabs(dev));
    }

    /* total internal reflection at a tilted exit: n·sin(45°) > 1 */
    p.wedge[0] = -45 * DEG;
    p.index[0] = 1.5;
    assert_false(sensim__risley_trace(&p, along_x, angle0, o));
    p.index[0] = 1.4; /* 1.4·sin 45° < 1: passes */
    assert_true(sensim__risley_trace(&p, along_x, angle0, o));
}

static sensim_lidar *preset(const char *name, const char *const *sets, uint32_t n)
{
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, name, sets, n, &l));
    return l;
}

/* Datasheet full FOV of the analytic presets within 0.5 deg, exact shot counts. */
static void test_risley_fov(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double fov;
    } want[] = {{"mid40", 38.4}, {"mid70", 70.4}};
    for (int k = 0; k < 2; k++) {
        sensim_lidar *l = preset(want[k].name, NULL, 0);
        sensim_pattern_stats ps;
        const int64_t d[2] = {100000000, 1000000000};
        double cov[2];
        CHECK_OK(sensim_pattern_measure(l, 0, 1000000000, 0.5 * DEG, d, 2, cov, NULL, 0, &ps));
        printf("# %s: full FOV %.3f deg, coverage 0.1 s %.1f %%, 1 s %.1f %%\n", want[k].name, ps.full_fov_rad / DEG,
               100 * cov[0], 100 * cov[1]);
        assert_true(fabs(ps.full_fov_rad / DEG - want[k].fov) < 0.5);
        assert_int_equal(ps.shots, 100000);
        assert_int_equal(ps.no_beam, 0);
        assert_true(cov[0] < cov[1] && cov[1] == 1.0);
        uint64_t n;
        CHECK_OK(sensim_lidar_count_shots(l, 0, 1000000000, &n));
        assert_int_equal(n, 100000);
        CHECK_OK(sensim_lidar_count_shots(l, 123, 456789, &n)); /* shots at 0, 10 us, ... */
        assert_int_equal(n, 45);
        sensim_lidar_destroy(l);
    }
    /* a wedge too steep for its glass: every shot totally reflected */
    const char *sets[] = {"prism_wedge_deg=-50,50"};
    sensim_lidar *l = preset("mid70", sets, 1);
    sensim_pattern_stats ps;
    CHECK_OK(sensim_pattern_measure(l, 0, 10000000, 0.5 * DEG, NULL, 0, NULL, NULL, 0, &ps));
    assert_int_equal(ps.no_beam, ps.shots);
    sensim_lidar_destroy(l);
}

/* Scan [0, T) inside a closed box, cut at @p cuts, with @p threads. */
static sensim_point *scan_box(sensim_lidar *l, const int64_t *cuts, int ncuts, int64_t T, uint64_t *n)
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {-50, -50, -50}, hi[3] = {50, 50, 50};
    add_box(s, lo, hi, 3, 0);
    CHECK_OK(sensim_scene_commit(s));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    sensim_ring *r = test_ring(li.shots_per_frame * 4 + 16, 64, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    identity(pose);
    sensim_point *pts = NULL;
    *n = 0;
    int64_t a = 0;
    for (int i = 0; i <= ncuts; i++) {
        int64_t b = i < ncuts ? cuts[i] : T;
        CHECK_OK(sensim_lidar_scan(l, s, a, b, pose, r, NULL));
        drain(r, &pts, n, NULL, 0, NULL);
        a = b;
    }
    free(r);
    sensim_scene_destroy(s);
    return pts;
}

static void assert_split_invariant(const char *name, const char *const *sets, uint32_t nsets, int64_t T)
{
    const int64_t cuts[] = {1, 7777, 33333333, 33333334, 99999999, 100000000, 100000001, 150000000, T - 1};
    sensim_lidar *a = preset(name, sets, nsets), *b = preset(name, sets, nsets);
    uint64_t na, nb;
    sensim_point *pa = scan_box(a, NULL, 0, T, &na);
    sensim_context_set_thread_count(ctx, 1);
    sensim_point *pb = scan_box(b, cuts, (int)(sizeof cuts / sizeof cuts[0]), T, &nb);
    sensim_context_set_thread_count(ctx, 2);
    assert_true(na > 1000);
    assert_int_equal(na, nb);
    assert_memory_equal(pa, pb, na * sizeof *pa);
    uint64_t shots;
    CHECK_OK(sensim_lidar_count_shots(a, 0, T, &shots));
    printf("# %s: %llu shots, %llu points over %lld ns, split and thread invariant\n", name,
           (unsigned long long)shots, (unsigned long long)na, (long long)T);
    free(pa);
    free(pb);
    sensim_lidar_destroy(a);
    sensim_lidar_destroy(b);
}

static void test_sequence_split_invariance(void **state)
{
    (void)state;
    assert_split_invariant("mid40", NULL, 0, 300000000);
    assert_split_invariant("avia", NULL, 0, 200000000);
    assert_split_invariant("mems_m1", NULL, 0, 200000000);
    assert_split_invariant("mid360", NULL, 0, 200000000);
}

/* Export mid40 to a Livox CSV and replay it both ways. */
static void test_export_replay(void **state)
{
    (void)state;
    sensim_lidar *l = preset("mid40", NULL, 0);
    const char *csv = tmp_path("mid40.csv");
    uint64_t rows;
    CHECK_OK(sensim_pattern_export_csv(l, 0, 200000000, csv, &rows));
    assert_int_equal(rows, 20000);
    char seconds_csv[512];
    snprintf(seconds_csv, sizeof seconds_csv, "%s", csv);
    const char *by_time[] = {"table_time=seconds"};
    const char *by_rate[] = {"shots_per_s=100000"};
    sensim_lidar *rt = preset(seconds_csv, by_time, 1), *rr = preset(seconds_csv, by_rate, 1);
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(rt, &li));
    assert_int_equal(li.pattern, SENSIM_PATTERN_TABLE);
    assert_int_equal(li.table_size, 20000);
    const sensim_pattern *pa = &l->pat, *pt = &rt->pat, *pr = &rr->pat;
    for (int64_t g = 0; g < 40000; g++) { /* two passes: the replay wraps exactly, times continue */
        int64_t ta = sensim__pattern_time(pa, g), tt = sensim__pattern_time(pt, g), tr = sensim__pattern_time(pr, g);
        assert_int_equal(ta, tt);
        assert_int_equal(ta, tr);
        uint16_t c;
        float da[3], dt[3], dr[3];
        assert_true(sensim__pattern_shot(pa, g, ta, &c, da));
        assert_true(sensim__pattern_shot(pt, g, tt, &c, dt));
        assert_true(sensim__pattern_shot(pr, g, tr, &c, dr));
        /* |a x b| = sin(angle): well conditioned for tiny angles, unlike acos */
        double cx = (double)da[1] * dt[2] - (double)da[2] * dt[1], cy = (double)da[2] * dt[0] - (double)da[0] * dt[2],
               cz = (double)da[0] * dt[1] - (double)da[1] * dt[0];
        if (g < 20000) {
            assert_true(asin(sqrt(cx * cx + cy * cy + cz * cz)) < 1e-4 * DEG); /* CSV keeps 1e-6 deg */
        } else { /* second pass: the replay repeats the first exactly */
            float d0[3];
            assert_true(sensim__pattern_shot(pt, g - 20000, sensim__pattern_time(pt, g - 20000), &c, d0));
            assert_memory_equal(d0, dt, sizeof d0);
        }
        assert_memory_equal(dt, dr, sizeof dt);
    }
    sensim_lidar_destroy(l);
    sensim_lidar_destroy(rt);
    sensim_lidar_destroy(rr);
}

/* A small table wraps with no skipped or repeated entry across any split. */
static void test_table_cursor(void **state)
{
    (void)state;
    const char *csv = write_text("seven.csv", "Time/s,Azimuth/deg,Zenith/deg\n"
                                              "0,0,90\n1,10,90\n2,20,90\n3,30,90\n4,40,90\n5,50,90\n6,60,90");
    const char *sets[] = {"shots_per_s=1000", "frame_rate_hz=200"};
    sensim_lidar *l = preset(csv, sets, 2);
    const int64_t cuts[] = {999999, 1000000, 1500000, 4000001, 9999999, 10000000, 13000000};
    uint64_t n;
    sensim_point *p = scan_box(l, cuts, 7, 25000000, &n);
    assert_int_equal(n, 25);
    for (uint64_t i = 0; i < n; i++) {
        double az = atan2(p[i].y, p[i].x) / DEG;
        assert_true(fabs(az - 10.0 * (double)(i % 7)) < 1e-3);
    }
    free(p);
    sensim_lidar_destroy(l);
}

static void test_csv_variants(void **state)
{
    (void)state;
    static const struct {
        const char *name, *text;
        uint64_t rows;
    } ok[] = {
        {"crlf.csv", "Time/s,Azimuth/deg,Zenith/deg\r\n1,268.99,37.838\r\n2,269.5,38.1\r\n", 2},
        {"noheader.csv", "1,268.99,37.838\n2,269.5,38.1\n3,270,39", 3},
        {"extra.csv", "Time/s,Azimuth/deg,Zenith/deg,Line,Tag\n0.1,1,90,3,x\n0.2,2,90,4,y\n", 2},
        {"blank.csv", "\nTime,Az,Zen\n\n1, 2, 80 \n\n\n2,3,81\n  \n", 2},
        {"cr.csv", "Time/s,Azimuth/deg,Zenith/deg\r1,2,3\r4,5,6", 2},
    };
    const char *sets[] = {"shots_per_s=1000"};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        sensim_lidar *l;
        sensim_status st = sensim_lidar_create_from_preset(ctx, write_text(ok[k].name, ok[k].text), sets, 1, &l);
        if (st != SENSIM_OK)
            fail_msg("%s: %s", ok[k].name, sensim_context_last_error(ctx));
        sensim_lidar_info li;
        CHECK_OK(sensim_lidar_get_info(l, &li));
        assert_int_equal(li.table_size, ok[k].rows);
        sensim_lidar_destroy(l);
    }
    static const struct {
        const char *name, *text;
        sensim_status st;
        const char *msg;
    } bad[] = {
        {"word.csv", "Time/s,Azimuth/deg,Zenith/deg\n1,2,3\n2,abc,3\n", SENSIM_ERR_PARSE, "word.csv:3: column 2 'abc'"},
        {"few.csv", "Time/s,Azimuth/deg,Zenith/deg\n1,2,3\n2,3\n", SENSIM_ERR_PARSE, "few.csv:3: 2 column(s)"},
        {"empty.csv", "", SENSIM_ERR_EMPTY, "empty.csv: no pattern rows"},
        {"onlyheader.csv", "Time/s,Azimuth/deg,Zenith/deg\r\n", SENSIM_ERR_EMPTY, "no pattern rows"},
        {"nan.csv", "1,2,3\n2,nan,3\n", SENSIM_ERR_NOT_FINITE, "nan.csv:2"},
        {"zen.csv", "1,2,3\n2,3,190\n", SENSIM_ERR_OUT_OF_RANGE, "zen.csv:2: zenith"},
        {"garbage.csv", "1,2,3\nhello world\n", SENSIM_ERR_PARSE, "garbage.csv:2"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        sensim_lidar *l;
        sensim_status st = sensim_lidar_create_from_preset(ctx, write_text(bad[k].name, bad[k].text), sets, 1, &l);
        const char *msg = sensim_context_last_error(ctx);
        if (st != bad[k].st || !strstr(msg, bad[k].msg))
            fail_msg("%s: got %s '%s'", bad[k].name, sensim_status_string(st), msg);
    }
    /* replay by index needs a shot rate; by seconds needs increasing times */
    sensim_lidar *l;
    assert_int_equal(sensim_lidar_create_from_preset(ctx, write_text("norate.csv", "1,2,3\n"), NULL, 0, &l),
                     SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(ctx), "--shot-rate"));
    const char *secs[] = {"table_time=seconds"};
    assert_int_equal(sensim_lidar_create_from_preset(ctx, write_text("back.csv", "0.2,2,3\n0.1,2,3\n"), secs, 1, &l),
                     SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(ctx), "back.csv:2"));
    assert_int_equal(sensim_lidar_create_from_preset(ctx, tmp_path("missing.csv"), sets, 1, &l), SENSIM_ERR_IO);
}

/* A table preset names its CSV relative to the preset file. */
static void test_table_preset_relative_path(void **state)
{
    (void)state;
    write_text("pat.csv", "0,0,90\n0,90,90\n");
    const char *path = write_text("solid.preset", "name = solid\ntype = table\ntable_file = pat.csv\n"
                                                  "shots_per_s = 20000\nframe_rate_hz = 20\n");
    sensim_lidar *l = preset(path, NULL, 0);
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    assert_string_equal(li.name, "solid");
    assert_int_equal(li.table_size, 2);
    assert_int_equal(li.frame_period_ns, 50000000);
    assert_true(li.shots_per_frame >= 1000);
    sensim_lidar_destroy(l);
    const char *bad = write_text("nofile.preset", "type = table\nshots_per_s = 1\n");
    assert_int_equal(sensim_lidar_create_from_preset(ctx, bad, NULL, 0, &l), SENSIM_ERR_EMPTY);
}

static void test_mems_extents(void **state)
{
    (void)state;
    sensim_lidar *l = preset("mems_m1", NULL, 0);
    sensim_pattern_stats ps;
    CHECK_OK(sensim_pattern_measure(l, 0, 100000000, 0.5 * DEG, NULL, 0, NULL, NULL, 0, &ps));
    /* reference: h -60.98 .. +60.98, v -13.24 .. +13.28 (degrees) */
    assert_true(fabs(ps.az_max_rad / DEG - 60.98) < 0.05 && fabs(ps.az_min_rad / DEG + 60.98) < 0.05);
    assert_true(fabs(ps.el_max_rad / DEG - 13.28) < 0.05 && fabs(ps.el_min_rad / DEG + 13.24) < 0.05);
    assert_int_equal(ps.shots, 78750); /* 787,500 shots/s for 0.1 s, not PCSim's 1.5 M per tick */
    sensim_lidar_destroy(l);
}

/* A caller's own pattern through a callback. */
static int32_t spiral(void *user, int64_t g, int64_t t, uint16_t *ch, float d[3])
{
    (void)t;
    double step = *(const double *)user;
    if (g % 5 == 4)
        return 1; /* blanked shot */
    double a = (double)g * step;
    d[0] = (float)cos(a);
    d[1] = (float)sin(a);
    d[2] = 0.1f;
    *ch = (uint16_t)(g % 3);
    return 0;
}

static void test_callback(void **state)
{
    (void)state;
    double step = 0.001;
    sensim_lidar_desc d;
    sensim_lidar_desc_init(&d);
    d.pattern = SENSIM_PATTERN_CALLBACK;
    d.channel_count = 3;
    d.shots_per_s = 50000;
    d.frame_rate_hz = 20;
    d.shot_fn = spiral;
    d.shot_user = &step;
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create(ctx, &d, &l));
    const int64_t cuts[] = {12345678, 50000000};
    uint64_t n;
    sensim_point *p = scan_box(l, cuts, 2, 100000000, &n);
    assert_int_equal(n, 4000); /* 5000 shots, every fifth blanked */
    for (uint64_t i = 0; i < n; i++) {
        uint64_t g = i + i / 4; /* skip the blanked ones */
        double a = atan2(p[i].y, p[i].x), want = remainder((double)g * step, 2 * PI);
        assert_true(fabs(remainder(a - want, 2 * PI)) < 1e-5);
        assert_int_equal(p[i].channel, g % 3);
        assert_int_equal(p[i].t_offset_ns % 20000, 0); /* 50 kHz shots, frames of 50 ms */
    }
    free(p);
    sensim_lidar_destroy(l);
    d.shot_fn = NULL;
    assert_int_equal(sensim_lidar_create(ctx, &d, &l), SENSIM_ERR_INVALID_ARGUMENT);
}

/* Registered tables are found by name, copied, and take scalar overrides. */
static void test_registry(void **state)
{
    (void)state;
    sensim_context *c = test_ctx(1);
    float az[3] = {0.0f, 0.1f, 0.2f}, el[3] = {0.0f, 0.05f, -0.05f};
    sensim_lidar_desc d;
    sensim_lidar_desc_init(&d);
    d.pattern = SENSIM_PATTERN_TABLE;
    d.channel_count = 1;
    d.shots_per_s = 3000;
    d.table.shot_count = 3;
    d.table.azimuth_rad = az;
    d.table.elevation_rad = el;
    CHECK_OK(sensim_context_register_pattern(c, "tiny_table", &d));
    az[0] = 99.0f; /* the registry holds its own copy */
    assert_int_equal(sensim_context_register_pattern(c, "Bad Name", &d), SENSIM_ERR_INVALID_ARGUMENT);
    d.shots_per_s = -1;
    assert_int_equal(sensim_context_register_pattern(c, "broken", &d), SENSIM_ERR_OUT_OF_RANGE);
    const char *sets[] = {"max_range_m=7", "frame_rate_hz=100"};
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(c, "tiny_table", sets, 2, &l));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    assert_string_equal(li.name, "tiny_table");
    assert_int_equal(li.table_size, 3);
    assert_true(li.max_range_m == 7.0f);
    assert_int_equal(li.frame_period_ns, 10000000);
    uint16_t ch;
    float dv[3];
    assert_true(sensim__pattern_shot(&l->pat, 3, 0, &ch, dv));
    assert_true(fabsf(dv[0] - 1.0f) < 1e-6f && fabsf(dv[1]) < 1e-6f);
    const char *bad[] = {"channels=2"};
    sensim_lidar *l2;
    assert_int_equal(sensim_lidar_create_from_preset(c, "tiny_table", bad, 1, &l2), SENSIM_ERR_OUT_OF_RANGE);
    sensim_context_destroy(c); /* the lidar keeps the context (and its registry) alive */
    sensim_lidar_destroy(l);
}

/* Risley shots are computed four at a time (vector Snell), the prism
 * angles (and MEMS carriers) walked from column to column between exact
 * anchors: every shot of
 * a batch is within 1e-6 deg of the closed form shot by shot (times,
 * channels and lost beams equal), and a shot's bits do not depend on where
 * a batch starts or how long it is (idle lanes, walks from an anchor);
 * with a spinning head, a tilted boresight, negative wedges and beams lost
 * to total internal reflection. */
static void test_risley_batch_matches_shots(void **state)
{
    (void)state;
    static const char *const spin[] = {"head_spin_hz=7.3", "boresight_elevation_deg=12"};
    static const char *const tir[] = {"prism_wedge_deg=25,-33", "prism_index=1.9,1.7"};
    /* 6 lasers: a column period of 77143.1 ns, steps of 77143 and 77144 ns; MEMS (10 sub-patterns): 128572.3 */
    static const char *const odd[] = {"shots_per_s=77777"};
    static const struct {
        const char *name;
        const char *const *sets;
        uint32_t n;
    } cfg[] = {{"mid40", NULL, 0}, {"avia", NULL, 0},   {"mid40", spin, 2},
               {"mid40", tir, 2},   {"avia", odd, 1},      {"mems_m1", NULL, 0},
               {"mems_m1", odd, 1}};
    enum { N = 1003 };
    int64_t t[N], rt[N];
    uint16_t ch[N], rch[N];
    float dirs[3 * N], rdir[3 * N];
    uint8_t ok[N], rok[N];
    for (size_t k = 0; k < sizeof cfg / sizeof *cfg; k++) {
        sensim_lidar *l = preset(cfg[k].name, cfg[k].sets, cfg[k].n);
        assert_true(l->pat.kind == SENSIM_PATTERN_RISLEY || l->pat.kind == SENSIM_PATTERN_MEMS);
        uint32_t lost = 0, shots = 0;
        double worst = 0;
        const int64_t starts[] = {0, 77777, -4099, INT64_C(170000000000000)};
        for (int s0 = 0; s0 < 4; s0++) {
            sensim__pattern_batch(&l->pat, starts[s0], N, rt, rch, rdir, rok);
            for (uint32_t i = 0; i < N; i++) { /* the closed form, shot by shot */
                int64_t g = starts[s0] + i, tg = sensim__pattern_time(&l->pat, g);
                uint16_t c1;
                float d1[3];
                bool o1 = sensim__pattern_shot(&l->pat, g, tg, &c1, d1);
                assert_int_equal(rt[i], tg);
                assert_int_equal(rok[i], o1);
                lost += !o1, shots++;
                if (!o1)
                    continue;
                assert_int_equal(rch[i], c1);
                for (int a = 0; a < 3; a++)
                    worst = fmax(worst, fabs((double)rdir[3 * i + a] - d1[a]));
            }
            for (uint32_t off = 0; off < 70; off += off < 6 ? 1 : 13) /* other batches: the same bits */
                for (uint32_t n = 1; off + n <= N; n += n < 9 ? 1 : 331) {
                    sensim__pattern_batch(&l->pat, starts[s0] + off, n, t, ch, dirs, ok);
                    for (uint32_t i = 0; i < n; i++) {
                        assert_int_equal(t[i], rt[off + i]);
                        assert_int_equal(ok[i], rok[off + i]);
                        if (ok[i]) {
                            assert_int_equal(ch[i], rch[off + i]);
                            assert_memory_equal(&dirs[3 * i], &rdir[3 * (off + i)], 3 * sizeof(float));
                        }
                    }
                }
        }
        printf("# %s %s: batch vs closed form, worst component %.1e\n", cfg[k].name, cfg[k].n ? cfg[k].sets[0] : "",
               worst);
        assert_true(worst < 1e-6 * DEG);
        if (k == 3) /* about half the beams lost (total internal reflection, or turned back) */
            assert_true(lost > 0 && lost < shots);
        else
            assert_int_equal(lost, 0);
        sensim_lidar_destroy(l);
    }
}

/* Prism and MEMS phases are exact at epoch times: with rates that repeat
 * every second, the directions at 1.7e18 ns + r equal those at r (a phase
 * from (double)t·1e-9 would be off by ~0.007 deg there). */
static void test_epoch_phase(void **state)
{
    (void)state;
    const char *sets[] = {"prism_rotation_hz=100,-61", "head_spin_hz=7"};
    const char *names[] = {"mid40", "mems_m1"};
    for (int k = 0; k < 2; k++) {
        sensim_lidar *l;
        CHECK_OK(sensim_lidar_create_from_preset(ctx, names[k], k == 0 ? sets : NULL, k == 0 ? 2 : 0, &l));
        const int64_t T = INT64_C(1700000000000000000);
        double worst = 0;
        for (int64_t r = 0; r < 1000000000; r += 7777777) {
            uint16_t c0, c1;
            float d0[3], d1[3];
            bool a = sensim__pattern_shot(&l->pat, 0, r, &c0, d0), b = sensim__pattern_shot(&l->pat, 0, T + r, &c1, d1);
            assert_true(a == b);
            if (!a)
                continue;
            double dx = (double)d0[0] - d1[0], dy = (double)d0[1] - d1[1], dz = (double)d0[2] - d1[2];
            worst = fmax(worst, sqrt(dx * dx + dy * dy + dz * dz) / DEG); /* chord = angle for small angles */
        }
        printf("# %s: direction at epoch + r vs r, worst %.2e deg\n", names[k], worst);
        assert_true(worst < 1e-4);
        sensim_lidar_destroy(l);
    }
}

/* Livox's FOV coverage by beam footprints on a table of 11 x 11 directions
 * 1 deg apart ([-5, 5] deg in azimuth and elevation, azimuth-major rows,
 * the whole table in 0.1 s): footprints of 1.6 deg (more than the 1.41 deg
 * diagonal) light the whole rectangle, half of the rows about half of it;
 * footprints of 0.2 deg light 100 disks' worth (81 inside, 40 halved at the
 * edges, 4 quartered at the corners) = 100 pi 0.1^2 / 100 = 3.14 % (10 %:
 * the disks are measured on a grid of footprint/4 cells). */
static void test_footprint_coverage(void **state)
{
    (void)state;
    char text[8192] = "Time/s,Azimuth/deg,Zenith/deg\n";
    for (int a = -5, k = 0; a <= 5; a++)
        for (int e = -5; e <= 5; e++, k++) {
            size_t n = strlen(text);
            snprintf(text + n, sizeof text - n, "%d,%d,%d\n", k, a, 90 - e);
        }
    const char *csv = write_text("grid.csv", text);
    const char *sets[] = {"shots_per_s=1210", "frame_rate_hz=10"};
    sensim_lidar *l = preset(csv, sets, 2);
    const int64_t dur[2] = {100000000, 50000000};
    double cov[2], sr;
    CHECK_OK(sensim_pattern_footprint_coverage(l, 0, 1.6 * DEG, dur, 2, cov, &sr));
    assert_double_close(sr, 10 * DEG * 2 * sin(5 * DEG), 0.02 * sr); /* the rectangle's solid angle */
    assert_double_close(cov[0], 1.0, 0.002);
    assert_double_close(cov[1], 0.5, 0.06);
    CHECK_OK(sensim_pattern_footprint_coverage(l, 0, 0.2 * DEG, dur, 1, cov, NULL));
    assert_double_close(cov[0], 100 * M_PI * 0.01 / 100, 0.1 * 0.0314);
    /* no divergence in the preset: the footprint must be given; hostile footprints and times */
    assert_int_equal(sensim_pattern_footprint_coverage(l, 0, 0, dur, 1, cov, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_pattern_footprint_coverage(l, 0, NAN, dur, 1, cov, NULL), SENSIM_ERR_OUT_OF_RANGE);
    const int64_t bad[1] = {-5};
    assert_int_equal(sensim_pattern_footprint_coverage(l, 0, 0.01, bad, 1, cov, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_pattern_footprint_coverage(l, 0, 0.01, dur, 0, cov, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_lidar_destroy(l);
}

/* CARLA's lidar by CARLA's names: carla_default is sensor.lidar.ray_cast's
 * defaults (32 channels evenly from +10 to -30 deg, 56,000 points/s at 10 Hz,
 * 10 m); over a plane 2 m below, every point lies on its channel's cone at
 * 10 - 40 c / 31 degrees and within the 10 m range; CARLA's names set the
 * same fields as sensim's. */
static void test_carla_names(void **state)
{
    (void)state;
    sensim_lidar *l;
    const char *plain[] = {"dropoff_model=none"};
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "carla_default", plain, 1, &l));
    sensim_lidar_info li;
    sensim_lidar_get_info(l, &li);
    assert_int_equal(li.channel_count, 32);
    assert_int_equal(li.shots_per_frame, 32 * 175); /* 56000 / 32 / 10 columns a turn */
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 100, 1);
    CHECK_OK(sensim_scene_commit(s));
    sensim_ring *r = test_ring(2 * li.shots_per_frame, 2, SENSIM_OVERFLOW_FAIL);
    double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 2, 1};
    CHECK_OK(sensim_lidar_scan(l, s, 0, li.frame_period_ns, pose, r, NULL));
    sensim_point *pts = NULL;
    uint64_t n = 0;
    drain(r, &pts, &n, NULL, 0, NULL);
    /* channels reaching the plane within 10 m: tan(-e) >= 2 / sqrt(10^2 - 2^2), e <= -11.54 deg: c >= 17 */
    uint32_t per_channel[32] = {0};
    for (uint64_t i = 0; i < n; i++) {
        const sensim_point *p = &pts[i];
        assert_true(p->channel < 32);
        double e = atan2(p->z, hypot(p->x, p->y)) * 180 / SENSIM_PI, want = 10.0 - 40.0 * p->channel / 31.0;
        assert_true(fabs(e - want) < 1e-4);
        assert_true(fabs(p->z + 2) < 1e-4 && p->range_m <= 10.0f + 1e-4f);
        per_channel[p->channel]++;
    }
    for (uint32_t c = 0; c < 32; c++)
        assert_int_equal(per_channel[c], c >= 17 ? 175 : 0);
    free(pts);
    sensim_lidar_destroy(l);
    /* CARLA's names and sensim's give the same lidar; a name twice in one file is refused */
    const char *carla[] = {"range=50", "points_per_second=100000", "rotation_frequency=20", "horizontal_fov=90",
                           "atmosphere_attenuation_rate=0.01", "noise_stddev=0.02"};
    const char *native[] = {"max_range_m=50", "shots_per_s=100000", "rotation_hz=20", "hfov_deg=90",
                            "atmos_atten_per_m=0.01", "range_noise_stddev_m=0.02"};
    sensim_lidar *a, *b;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "carla_default", carla, 6, &a));
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "carla_default", native, 6, &b));
    sensim_lidar_info ia, ib;
    sensim_lidar_get_info(a, &ia);
    sensim_lidar_get_info(b, &ib);
    assert_int_equal(ia.shots_per_frame, ib.shots_per_frame);
    assert_int_equal(ia.frame_period_ns, ib.frame_period_ns);
    assert_true(ia.max_range_m == ib.max_range_m && ia.max_range_m == 50);
    sensim_lidar_destroy(a);
    sensim_lidar_destroy(b);
    const char dup[] = "name = d\ntype = mechanical\nchannels = 2\nupper_fov = 5\nlower_fov = -5\nrange = 20\n"
                       "max_range_m = 30\n";
    const char *dp = write_test_file(dir, "dup.preset", dup, sizeof dup - 1);
    assert_int_equal(sensim_lidar_create_from_preset(ctx, dp, NULL, 0, &a), SENSIM_ERR_DUPLICATE);
    /* channels changed without a new table: the message says how to make one */
    const char *more[] = {"channels=32"};
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "vlp16", more, 1, &a), SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "upper_fov and lower_fov"));
    const char *typo[] = {"rotation_frequncy=10"};
    assert_int_equal(sensim_lidar_create_from_preset(ctx, "vlp16", typo, 1, &a), SENSIM_ERR_UNKNOWN_KEY);
    assert_non_null(strstr(sensim_context_last_error(NULL), "did you mean 'rotation_frequency'"));
    free(r); /* the ring lives at the start of its memory */
    sensim_scene_destroy(s);
}

/* CARLA's sector lidar (sweep = sector): horizontal_fov 90 is scanned once a
 * period, centred on forward (start_azimuth +45 deg, clockwise: CARLA's
 * -45..+45 with y right), with all points_per_second in it, so each half
 * period (a 20 Hz tick of a 10 Hz lidar) holds half the frame. The default
 * sweep (revolution) fires only while the head turns through the sector. */
static void test_sector_sweep(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 100, 1);
    CHECK_OK(sensim_scene_commit(s));
    const char *sector[] = {"dropoff_model=none", "horizontal_fov=90", "start_azimuth_deg=45", "lower_fov=-60",
                            "upper_fov=-30", "range=100", "sweep=sector"}; /* the last only in mode 1 */
    for (int mode = 0; mode < 2; mode++) {
        sensim_lidar *l;
        CHECK_OK(sensim_lidar_create_from_preset(ctx, "carla_default", sector, mode ? 7 : 6, &l));
        sensim_lidar_info li;
        sensim_lidar_get_info(l, &li);
        /* sector: 175 columns of 32 in 90 deg; revolution: the 44 of 175 inside 90 deg */
        assert_int_equal(li.shots_per_frame, 32 * (mode ? 175 : 44));
        sensim_ring *r = test_ring(2 * li.shots_per_frame, 4, SENSIM_OVERFLOW_FAIL);
        double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 2, 1};
        uint64_t halves[2];
        for (int h = 0; h < 2; h++) {
            uint64_t n0 = 0;
            CHECK_OK(sensim_lidar_scan(l, s, h * li.frame_period_ns / 2, (h + 1) * li.frame_period_ns / 2, pose,
                                       r, NULL));
            CHECK_OK(sensim_lidar_count_shots(l, h * li.frame_period_ns / 2, (h + 1) * li.frame_period_ns / 2,
                                              &n0));
            halves[h] = n0;
        }
        sensim_point *pts = NULL;
        uint64_t n = 0;
        drain(r, &pts, &n, NULL, 0, NULL);
        assert_int_equal(n, li.shots_per_frame); /* every ray meets the plane */
        double lo = 1e9, hi = -1e9;
        for (uint64_t i = 0; i < n; i++) {
            double az = atan2(pts[i].y, pts[i].x) * 180 / SENSIM_PI;
            lo = fmin(lo, az), hi = fmax(hi, az);
        }
        /* 90 deg in 175 (or 44 of 175 in 360) steps: from +45 down to within one step of -45 */
        assert_true(fabs(hi - 45) < 1e-3);
        assert_true(lo > -45 - 1e-3 && lo < (mode ? -45 + 90.0 / 175 + 1e-3 : 45 - 43 * 360.0 / 175 + 1e-3));
        if (mode) /* both halves of the period hold half the sector's columns */
            assert_true(halves[0] == 32 * 88 && halves[1] == 32 * 87);
        else /* the head is inside 90 deg for the first quarter of the turn only */
            assert_true(halves[0] == 32 * 44 && halves[1] == 0);
        free(pts);
        free(r);
        sensim_lidar_destroy(l);
    }
    sensim_scene_destroy(s);
}

/* SLEEF's sincos variants (vmath.h) agree bit for bit, so no CPU changes a
 * MEMS scan: portable C, SSE2 and (on an AVX CPU) AVX over 2^18 arguments
 * in [-8, 8] rad, odd counts (the vector tails) included; and each is
 * within 2 ulp of glibc's sin and cos. The MEMS directions from the batch
 * equal the single-shot ones. */
static void test_vector_sincos_variants(void **state)
{
    (void)state;
    const uint32_t n = (1u << 18) + 3;
    double *x = malloc(n * sizeof *x), *s[3], *c[3];
    assert_non_null(x);
    for (int v = 0; v < 3; v++) {
        s[v] = malloc(n * sizeof *s[v]), c[v] = malloc(n * sizeof *c[v]);
        assert_true(s[v] && c[v]);
    }
    for (uint32_t i = 0; i < n; i++)
        x[i] = -8.0 + 16.0 * (double)i / n + 1e-12 * (double)(i % 13);
    assert_true(sensim__sincos_variant(SENSIM_VMATH_PUREC, x, s[0], c[0], n));
    int ran = 1;
    for (int v = 1; v < 3; v++) {
        if (!sensim__sincos_variant(v == 1 ? SENSIM_VMATH_SSE2 : SENSIM_VMATH_AVX, x, s[v], c[v], n))
            continue; /* not this build or CPU */
        ran++;
        assert_memory_equal(s[v], s[0], n * sizeof(double));
        assert_memory_equal(c[v], c[0], n * sizeof(double));
    }
    double worst = 0;
    for (uint32_t i = 0; i < n; i++) {
        double es = fabs(s[0][i] - sin(x[i])) / nextafter(fabs(sin(x[i])), INFINITY) * 0x1p52;
        double ec = fabs(c[0][i] - cos(x[i])) / nextafter(fabs(cos(x[i])), INFINITY) * 0x1p52;
        worst = fmax(worst, fmax(es, ec));
    }
    printf("# %d sincos variants equal; worst %.2f ulp from glibc\n", ran, worst);
    assert_true(worst <= 2.0);
    float one[3], many[3 * 10];
    double az[10], el[10];
    for (uint32_t ch = 0; ch < 10; ch++)
        sensim__mems_angles(ch, 7.5, -0.3, &az[ch], &el[ch]);
    sensim__mems_dirs(az, el, 10, many);
    for (uint32_t ch = 0; ch < 10; ch++) {
        sensim__mems_dir_at(ch, 7.5, -0.3, one);
        assert_memory_equal(one, &many[3 * ch], sizeof one);
    }
    free(x);
    for (int v = 0; v < 3; v++)
        free(s[v]), free(c[v]);
}

/* Which lanes a block takes (sensim__lidar_tiling; the bytes are the same
 * either way, test_invariance): wide ones for a long call, standing or
 * moving, narrow ones for a short call, a lidar whose
 * 16 x 1 tiles would spread wider (coarse columns, dense channels), and
 * one whose wide lane's sub-rays would not fit the sub-ray scratch whole
 * (then they were traced in firing order: pandar128 with 7 sub-rays took
 * 1.27 x as long). */
static void test_lane_choice(void **state)
{
    (void)state;
    static const char *const sub7[] = {"beam_subrays=7"};
    static const struct {
        const char *name;
        const char *const *sets;
        uint32_t n;
        uint64_t narrow, wide; /* lane shots */
    } cfg[] = {
        {"vlp16", NULL, 0, 128, 256},        {"pandar128", NULL, 0, 1024, 2048}, {"hdl64", NULL, 0, 512, 1024},
        {"pandar128", sub7, 1, 1024, 1024}, {"ruby128", NULL, 0, 1024, 1024},   {"pandar_qt", NULL, 0, 512, 1024},
        {"mid40", NULL, 0, 64, 256},         {"mems_m1", NULL, 0, 8192, 8192},
    };
    for (size_t k = 0; k < sizeof cfg / sizeof *cfg; k++) {
        sensim_lidar *l = preset(cfg[k].name, cfg[k].sets, cfg[k].n);
        sensim_lidar_info li;
        CHECK_OK(sensim_lidar_get_info(l, &li));
        const uint64_t frame = li.shots_per_frame;
        assert_int_equal(sensim__lidar_tiling(l, frame, 2)->lane_shots, cfg[k].wide);
        assert_int_equal(sensim__lidar_tiling(l, frame / 100, 2)->lane_shots, cfg[k].narrow); /* 1 kHz */
        assert_int_equal(sensim__lidar_tiling(l, 8 * cfg[k].wide - 1, 2)->lane_shots, cfg[k].narrow);
        assert_int_equal(sensim__lidar_tiling(l, 8 * cfg[k].wide, 2)->lane_shots, cfg[k].wide);
        sensim_lidar_destroy(l);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_epoch_phase),
        cmocka_unit_test(test_snell_single_prism),  cmocka_unit_test(test_risley_fov), cmocka_unit_test(test_risley_batch_matches_shots),
        cmocka_unit_test(test_sequence_split_invariance), cmocka_unit_test(test_export_replay),
        cmocka_unit_test(test_table_cursor),        cmocka_unit_test(test_csv_variants),
        cmocka_unit_test(test_footprint_coverage),
        cmocka_unit_test(test_table_preset_relative_path), cmocka_unit_test(test_mems_extents),
        cmocka_unit_test(test_callback),           cmocka_unit_test(test_registry),
        cmocka_unit_test(test_carla_names), cmocka_unit_test(test_sector_sweep),
        cmocka_unit_test(test_vector_sincos_variants),
        cmocka_unit_test(test_lane_choice),
    };
    return cmocka_run_group_tests_name("patterns", tests, setup, teardown);
}
