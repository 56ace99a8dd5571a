/* The numeric contract (DESIGN.md): what an optimisation may move, checked
 * against reference statistics of a fixed set of scans and renders stored
 * in tests/contract_reference.txt.
 *
 * Each lidar preset scans 0.1 s of the street from a fixed pose with every
 * random draw off (no noise, drop-out, jitter or rain), so its output is a
 * function of geometry alone. The reference holds per preset the point count,
 * the mean range and the mean intensity; per camera the count of pixels that
 * see something and their mean depth. The contract lets a point's range move
 * 1e-6 m and its intensity 1e-6 relative, a pixel's depth 1e-6 relative: the
 * means may move by that, plus float rounding (a few 1e-7 relative), plus
 * what a point that appears or vanishes at a grazing edge can move them by
 * (at most 2 + 1e-5·N points or pixels, each moving the mean by at most its
 * value over N). A larger change fails: it must be a deliberate one, stated
 * in CHANGES.md, with the reference rewritten (SENSIM_CONTRACT_WRITE=PATH
 * writes the file from the current build).
 *
 * Random draws may change sample by sample under the contract if their
 * distributions hold: with 3 cm of range noise on, the error against the
 * noiseless scan of the same shots has mean 0 (within 5 standard errors)
 * and standard deviation 0.03 m (within 5 %), for every preset. */
#include "helpers.h"
#include "street.h"

#define MAX_ROWS 16
#define REF_PATH SENSIM_SOURCE_ROOT "/tests/contract_reference.txt"

static const char *const PRESETS[] = {"vlp16", "pandar64", "pandar128", "mid40", "avia", "mems_m1"};
static const char *const CAMERAS[] = {"carla_default", "pinhole_720p"};
static const char *const DETERMINISTIC[] = {"range_noise_stddev_m=0", "range_noise_per_m=0", "dropoff_model=none",
                                            "dropoff_general_rate=0", "angular_jitter_deg=0", "rain_rate_mm_h=0"};
#define NDET (sizeof DETERMINISTIC / sizeof DETERMINISTIC[0])

typedef struct row {
    char name[64];
    uint64_t n;
    double mean_a, mean_b; /* lidar: range, intensity; camera: depth, 0 */
} row;

/* A sampled point (key: firing offset, channel, its rank among that shot's returns) or pixel (key: index). */
#define NSAMPLES 256
typedef struct sample {
    uint32_t t_offset_ns, channel, occ;
    double v[5]; /* lidar: range, intensity, x, y, z; camera: depth */
} sample;

typedef struct measured {
    row r;
    sample s[NSAMPLES];
    uint32_t ns;
    sensim_point *pts;     /* lidar: every point, sorted by key (for lookups) */
    float *depth;          /* camera: every pixel */
    uint64_t npts;
} measured;

static int key_cmp(const void *a, const void *b)
{
    const sensim_point *p = a, *q = b;
    if (p->t_offset_ns != q->t_offset_ns)
        return p->t_offset_ns < q->t_offset_ns ? -1 : 1;
    if (p->channel != q->channel)
        return p->channel < q->channel ? -1 : 1;
    return 0;
}

/* By key, then by scan order (held in object_id while sorting): a shot's returns keep their order. */
static int sort_cmp(const void *a, const void *b)
{
    int c = key_cmp(a, b);
    const sensim_point *p = a, *q = b;
    return c ? c : (p->object_id > q->object_id) - (p->object_id < q->object_id);
}

static sensim_context *ctx;
static sensim_scene *scene;

static int setup(void **state)
{
    (void)state;
    ctx = test_ctx(0);
    CHECK_OK(sensim_scene_create(ctx, &scene));
    street_info si;
    CHECK_OK(street_scene_build(scene, 120.0f, 1, &si));
    CHECK_OK(sensim_scene_commit(scene));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return 0;
}

/* 0.1 s of @p preset with @p sets; the points (caller frees). */
static sensim_point *scan(const char *preset, const char *const *sets, uint32_t nsets, uint64_t *n)
{
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, preset, sets, nsets, &l));
    sensim_ring *r = test_ring(4000000, 64, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    translation(pose, 1.5, 0.5, 1.8);
    CHECK_OK(sensim_lidar_scan(l, scene, 0, 100000000, pose, r, NULL));
    sensim_point *pts = NULL;
    *n = 0;
    drain(r, &pts, n, NULL, 0, NULL);
    free(r);
    sensim_lidar_destroy(l);
    return pts;
}

static void lidar_measure(const char *preset, measured *o)
{
    memset(o, 0, sizeof *o);
    row *w = &o->r;
    snprintf(w->name, sizeof w->name, "%s", preset);
    sensim_point *p = scan(preset, DETERMINISTIC, NDET, &w->n);
    for (uint64_t i = 0; i < w->n; i++)
        w->mean_a += p[i].range_m, w->mean_b += p[i].intensity;
    if (w->n)
        w->mean_a /= (double)w->n, w->mean_b /= (double)w->n;
    for (uint64_t i = 0; i < w->n; i++)
        p[i].object_id = (uint32_t)i; /* the scan order (object ids are not compared) */
    qsort(p, w->n, sizeof *p, sort_cmp);
    uint64_t step = w->n / NSAMPLES + 1;
    for (uint64_t i = 0; i < w->n && o->ns < NSAMPLES; i += step) {
        uint32_t occ = 0;
        while (occ < i && !key_cmp(&p[i - occ - 1], &p[i]))
            occ++;
        sample *sm = &o->s[o->ns++];
        sm->t_offset_ns = p[i].t_offset_ns, sm->channel = p[i].channel, sm->occ = occ;
        sm->v[0] = p[i].range_m, sm->v[1] = p[i].intensity, sm->v[2] = p[i].x, sm->v[3] = p[i].y, sm->v[4] = p[i].z;
    }
    o->pts = p, o->npts = w->n;
}

/* The point of key (t, channel, occ) in sorted @p o, or NULL. */
static const sensim_point *lookup(const measured *o, const sample *k)
{
    sensim_point key;
    memset(&key, 0, sizeof key);
    key.t_offset_ns = k->t_offset_ns, key.channel = (uint16_t)k->channel;
    const sensim_point *hit = bsearch(&key, o->pts, o->npts, sizeof key, key_cmp);
    if (!hit)
        return NULL;
    while (hit > o->pts && !key_cmp(hit - 1, &key))
        hit--;
    hit += k->occ;
    return hit < o->pts + o->npts && !key_cmp(hit, &key) ? hit : NULL;
}

static void camera_measure(const char *preset, measured *o)
{
    memset(o, 0, sizeof *o);
    row *w = &o->r;
    snprintf(w->name, sizeof w->name, "camera:%s", preset);
    sensim_camera_desc d;
    CHECK_OK(sensim_camera_desc_preset(preset, &d));
    sensim_camera *c;
    CHECK_OK(sensim_camera_create(ctx, &d, &c));
    sensim_camera_info info;
    CHECK_OK(sensim_camera_get_info(c, &info));
    size_t npx = (size_t)info.width * info.height;
    float *depth = malloc(npx * sizeof *depth);
    assert_non_null(depth);
    sensim_camera_images im = {.depth = depth};
    sensim_pose_key key = {0, {0}};
    translation(key.pose, 1.5, 0.5, 1.8);
    sensim_motion m;
    memset(&m, 0, sizeof m);
    m.keys = &key, m.key_count = 1, m.interp = SENSIM_INTERP_LINEAR;
    CHECK_OK(sensim_camera_render(c, scene, &m, 0, &im, NULL));
    const float far = (float)(d.max_depth_m > 0 ? d.max_depth_m : 1000.0); /* the sky reads +inf or this */
    for (size_t i = 0; i < npx; i++)
        if (isfinite(depth[i]) && depth[i] < far) {
            w->n++;
            w->mean_a += depth[i];
        }
    if (w->n)
        w->mean_a /= (double)w->n;
    size_t step = npx / NSAMPLES + 1;
    for (size_t i = 0; i < npx && o->ns < NSAMPLES; i += step) {
        o->s[o->ns].t_offset_ns = (uint32_t)i;
        o->s[o->ns++].v[0] = depth[i] < far ? depth[i] : -1; /* -1: nothing seen */
    }
    o->depth = depth, o->npts = npx;
    sensim_camera_destroy(c);
}

static uint32_t measure(measured *ms)
{
    uint32_t k = 0;
    for (size_t i = 0; i < sizeof PRESETS / sizeof PRESETS[0]; i++)
        lidar_measure(PRESETS[i], &ms[k++]);
    for (size_t i = 0; i < sizeof CAMERAS / sizeof CAMERAS[0]; i++)
        camera_measure(CAMERAS[i], &ms[k++]);
    return k;
}

/* |a − b| within the contract's @p abs + @p rel·|a| and 2 float ulps of the stored value. */
static int close_to(double a, double b, double abs, double rel)
{
    return fabs(a - b) <= abs + rel * fabs(a) + 2.5e-7 * fabs(a);
}

/* Sampled points and pixels: each within the contract (range 1e-6 m, intensity 1e-6 relative, position as
 * the range along the beam, depth 1e-6 relative), or gone (counted with the ones appearing at edges). */
static void compare_samples(const measured *now, const sample *ref, uint32_t nref)
{
    uint32_t missing = 0;
    int cam = !strncmp(now->r.name, "camera:", 7);
    for (uint32_t i = 0; i < nref; i++) {
        const sample *k = &ref[i];
        if (cam) {
            double v = now->depth[k->t_offset_ns];
            v = isfinite(v) && v < 999.99 ? v : -1;
            if ((v < 0) != (k->v[0] < 0)) {
                missing++;
                continue;
            }
            if (!close_to(k->v[0], v, 0, 1e-6))
                fail_msg("%s: pixel %u depth %.9g, the reference %.9g", now->r.name, k->t_offset_ns, v, k->v[0]);
            continue;
        }
        const sensim_point *p = lookup(now, k);
        if (!p) {
            missing++;
            continue;
        }
        double v[5] = {p->range_m, p->intensity, p->x, p->y, p->z};
        if (!close_to(k->v[0], v[0], 1e-6, 0) || !close_to(k->v[1], v[1], 0, 1e-6))
            fail_msg("%s: point (t %u, channel %u, return %u): range %.9g intensity %.9g, the reference %.9g %.9g",
                     now->r.name, k->t_offset_ns, k->channel, k->occ, v[0], v[1], k->v[0], k->v[1]);
        for (int c = 2; c < 5; c++) /* a 1e-9 rad turn moves a point by 1e-9·range */
            if (!close_to(k->v[c], v[c], 1e-6 + 1e-9 * k->v[0], 0))
                fail_msg("%s: point (t %u, channel %u): coordinate %d %.9g, the reference %.9g", now->r.name,
                         k->t_offset_ns, k->channel, c - 2, v[c], k->v[c]);
    }
    if (missing > 2)
        fail_msg("%s: %u of %u sampled points/pixels are gone or appeared", now->r.name, missing, nref);
}

/* The means may move by the contract's per-value movement, float rounding,
 * and the values that appear or vanish at grazing edges. */
static void compare(const row *ref, const row *now, double max_a, double max_b, double abs_a, double rel_a)
{
    double n = (double)ref->n, dn = fabs((double)now->n - n);
    if (!(dn <= 2 + 1e-5 * n))
        fail_msg("%s: %llu points/pixels, the reference has %llu (at most %.0f may appear or vanish)", ref->name,
                 (unsigned long long)now->n, (unsigned long long)ref->n, 2 + 1e-5 * n);
    double flips = n > 0 ? (dn + 1) * max_a / n : 0;
    double tol_a = abs_a + rel_a * fabs(ref->mean_a) + 4e-7 * fabs(ref->mean_a) + flips;
    if (!(fabs(now->mean_a - ref->mean_a) <= tol_a))
        fail_msg("%s: mean %s %.9g, the reference %.9g: moved %.3g, the contract allows %.3g", ref->name,
                 strncmp(ref->name, "camera:", 7) ? "range" : "depth", now->mean_a, ref->mean_a,
                 fabs(now->mean_a - ref->mean_a), tol_a);
    double tol_b = 1e-6 * fabs(ref->mean_b) + 4e-7 * fabs(ref->mean_b) + (n > 0 ? (dn + 1) * max_b / n : 0);
    if (!(fabs(now->mean_b - ref->mean_b) <= tol_b))
        fail_msg("%s: mean intensity %.9g, the reference %.9g: moved %.3g, the contract allows %.3g", ref->name,
                 now->mean_b, ref->mean_b, fabs(now->mean_b - ref->mean_b), tol_b);
}

static void test_reference_statistics(void **state)
{
    (void)state;
    static measured now[MAX_ROWS];
    uint32_t k = measure(now);
    const char *w = getenv("SENSIM_CONTRACT_WRITE");
    if (w && *w) {
        FILE *f = fopen(w, "w");
        assert_non_null(f);
        fprintf(f, "# tests/test_contract.c: 0.1 s of each lidar preset on the street from (1.5, 0.5, 1.8) with\n"
                   "# every random draw off, and each camera preset's render from there. Rewrite only with a\n"
                   "# CHANGES.md entry saying what moved (SENSIM_CONTRACT_WRITE=PATH build/tests/test_contract).\n"
                   "# stat NAME points|pixels_seen mean_range|mean_depth mean_intensity\n"
                   "# pt NAME t_offset_ns channel return range intensity x y z    (sampled points)\n"
                   "# px NAME index depth                                          (sampled pixels; -1 sky)\n");
        for (uint32_t i = 0; i < k; i++) {
            int cam = !strncmp(now[i].r.name, "camera:", 7);
            fprintf(f, "stat %s %llu %.17g %.17g\n", now[i].r.name, (unsigned long long)now[i].r.n, now[i].r.mean_a,
                    now[i].r.mean_b);
            for (uint32_t j = 0; j < now[i].ns; j++) {
                const sample *sm = &now[i].s[j];
                if (cam)
                    fprintf(f, "px %s %u %.9g\n", now[i].r.name, sm->t_offset_ns, sm->v[0]);
                else
                    fprintf(f, "pt %s %u %u %u %.9g %.9g %.9g %.9g %.9g\n", now[i].r.name, sm->t_offset_ns, sm->channel,
                            sm->occ, sm->v[0], sm->v[1], sm->v[2], sm->v[3], sm->v[4]);
            }
        }
        assert_int_equal(fclose(f), 0);
        printf("# wrote %s\n", w);
    } else {
        FILE *f = fopen(REF_PATH, "r");
        if (!f)
            fail_msg("%s: cannot read the reference", REF_PATH);
        static row ref[MAX_ROWS];
        static sample samples[MAX_ROWS][NSAMPLES];
        uint32_t nsamp[MAX_ROWS] = {0};
        uint32_t nref = 0;
        char line[512], name[64];
        unsigned long long ln = 0;
        while (fgets(line, sizeof line, f)) {
            ln++;
            if (line[0] == '#' || line[0] == '\n')
                continue;
            unsigned long long n;
            int ok = 0;
            if (!strncmp(line, "stat ", 5) && nref < MAX_ROWS) {
                ok = sscanf(line + 5, "%63s %llu %lf %lf", ref[nref].name, &n, &ref[nref].mean_a, &ref[nref].mean_b) == 4;
                ref[nref++].n = n;
            } else if (nref && nsamp[nref - 1] < NSAMPLES && (!strncmp(line, "pt ", 3) || !strncmp(line, "px ", 3))) {
                sample *sm = &samples[nref - 1][nsamp[nref - 1]++];
                memset(sm, 0, sizeof *sm);
                ok = line[1] == 't' ? sscanf(line + 3, "%63s %u %u %u %lf %lf %lf %lf %lf", name, &sm->t_offset_ns,
                                             &sm->channel, &sm->occ, &sm->v[0], &sm->v[1], &sm->v[2], &sm->v[3],
                                             &sm->v[4]) == 9
                                    : sscanf(line + 3, "%63s %u %lf", name, &sm->t_offset_ns, &sm->v[0]) == 3;
                ok = ok && !strcmp(name, ref[nref - 1].name);
            }
            if (!ok)
                fail_msg("%s:%llu: malformed line", REF_PATH, ln);
        }
        fclose(f);
        assert_int_equal(nref, k);
        for (uint32_t i = 0; i < k; i++) {
            assert_string_equal(ref[i].name, now[i].r.name);
            int cam = !strncmp(now[i].r.name, "camera:", 7);
            printf("# %-22s %8llu %.9f %.9f, %u samples\n", now[i].r.name, (unsigned long long)now[i].r.n,
                   now[i].r.mean_a, now[i].r.mean_b, nsamp[i]);
            /* largest value a point or pixel carries: a lidar's range and intensity (<= 1), a camera's depth */
            compare(&ref[i], &now[i].r, cam ? 1000.0 : 300.0, 1.0, cam ? 0 : 1e-6, cam ? 1e-6 : 0);
            assert_true(nsamp[i] >= NSAMPLES / 2);
            compare_samples(&now[i], samples[i], nsamp[i]);
        }
    }
    for (uint32_t i = 0; i < k; i++) {
        free(now[i].pts);
        free(now[i].depth);
    }
}

/* Range noise of 3 cm on the street, every other draw off: paired with the noiseless scan of the same shots. */
static void test_noise_distribution(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof PRESETS / sizeof PRESETS[0]; k++) {
        const char *sets[NDET + 1];
        for (size_t i = 0; i < NDET; i++)
            sets[i] = DETERMINISTIC[i];
        uint64_t na, nb;
        sensim_point *a = scan(PRESETS[k], sets, NDET, &na);
        sets[0] = "range_noise_stddev_m=0.03";
        sensim_point *b = scan(PRESETS[k], sets, NDET, &nb);
        assert_int_equal(na, nb);
        double mean, sd;
        paired_range_noise(a, b, na, &mean, &sd);
        printf("# %-10s noise: N=%llu mean=%+.6f sd=%.6f (0.03)\n", PRESETS[k], (unsigned long long)na, mean, sd);
        assert_true(na > 1000);
        if (!(fabs(mean) < 5 * 0.03 / sqrt((double)na) && fabs(sd - 0.03) < 0.05 * 0.03))
            fail_msg("%s: noise mean %g, sd %g against 0 and 0.03", PRESETS[k], mean, sd);
        free(a);
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_statistics),
        cmocka_unit_test(test_noise_distribution),
    };
    return cmocka_run_group_tests_name("contract", tests, setup, teardown);
}
