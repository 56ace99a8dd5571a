/* Vendor firing schedules: free-running cycles, per-laser azimuth from each
 * laser's own time, the HDL-64E two-block table, Ouster beam origins and
 * destaggered images. Figures from scan_patterns/sources/firing_tables.md. */
#include "helpers.h"

#include <png.h>

#define PI 3.14159265358979323846
#define DEG (PI / 180.0)

TEST_GROUP_FIXTURE(2, 1)

static sensim_scene *box(void)
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {-30, -30, -20}, hi[3] = {30, 30, 20};
    add_box(s, lo, hi, 3, 0);
    CHECK_OK(sensim_scene_commit(s));
    return s;
}

/* One frame [0, P) of @p preset (every hit reported), sensor at @p z. */
static sensim_point *frame(const char *preset, const char *const *sets, uint32_t nsets, sensim_scene *s, double z,
                           uint64_t *n, sensim_lidar_info *li)
{
    const char *all[8] = {"dropoff_model=none"};
    for (uint32_t i = 0; i < nsets; i++)
        all[i + 1] = sets[i];
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, preset, all, nsets + 1, &l));
    CHECK_OK(sensim_lidar_get_info(l, li));
    sensim_ring *r = test_ring(2 * li->shots_per_frame, 2, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    translation(pose, 0, 0, z);
    CHECK_OK(sensim_lidar_scan(l, s, 0, li->frame_period_ns, pose, r, NULL));
    sensim_point *p = malloc(2 * li->shots_per_frame * sizeof *p);
    sensim_frame_header h;
    CHECK_OK(sensim_ring_pop(r, &h, p, 2 * li->shots_per_frame, n));
    free(r);
    sensim_lidar_destroy(l);
    return p;
}

/* Angle a - b wrapped into (-180, 180] degrees. */
static double wrap_deg(double a)
{
    return a - 360.0 * floor((a + 180.0) / 360.0);
}

/* Azimuth error of a point against head angle (cw from start) at its time plus an offset. */
static double az_err(const sensim_point *p, double start_deg, int64_t P, double off_deg)
{
    double head = start_deg - 360.0 * (double)p->t_offset_ns / (double)P;
    return fabs(wrap_deg(atan2(p->y, p->x) / DEG - head - off_deg));
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Channel @p c of a 100 ms frame fires every @p cycle ns from @p first ns on:
 * its points' times, sorted, are exactly that (scratch @p t holds n). */
static void check_channel_times(const sensim_point *p, uint64_t n, uint32_t c, uint32_t first, uint32_t cycle,
                                uint32_t *t)
{
    uint64_t m = 0;
    for (uint64_t i = 0; i < n; i++)
        if (p[i].channel == c)
            t[m++] = p[i].t_offset_ns;
    qsort(t, m, sizeof *t, cmp_u32);
    assert_int_equal(m, (100000000 - 1 - first) / cycle + 1);
    assert_int_equal(t[0], first);
    for (uint64_t k = 1; k < m; k++)
        assert_int_equal(t[k] - t[k - 1], cycle);
}

/* VLP-16: 55.296 us cycle, laser l at 2.304 us x l, azimuth where the head
 * was at the laser's own time; firing=column puts them all at the column. */
static void test_vlp16_cycle(void **state)
{
    (void)state;
    sensim_scene *s = box();
    uint64_t n;
    sensim_lidar_info li;
    sensim_point *p = frame("vlp16", NULL, 0, s, 0, &n, &li);
    assert_true(fabs(li.shots_per_s - 16e9 / 55296.0) < 1e-6);
    uint32_t *t = malloc(n * sizeof *t);
    double worst = 0;
    for (uint32_t c = 0; c < 16; c++)
        check_channel_times(p, n, c, 2304 * c, 55296, t);
    for (uint64_t i = 0; i < n; i++)
        worst = fmax(worst, az_err(&p[i], 0, li.frame_period_ns, 0));
    printf("# vlp16: %llu points, azimuth vs own timestamp worst %.2e deg\n", (unsigned long long)n, worst);
    assert_true(worst < 0.001);
    free(p);
    /* column firing: every laser at the cycle start, azimuth of that time */
    const char *col[] = {"firing=column"};
    p = frame("vlp16", col, 1, s, 0, &n, &li);
    worst = 0;
    for (uint64_t i = 0; i < n; i++) {
        assert_int_equal(p[i].t_offset_ns % 55296, 0);
        worst = fmax(worst, az_err(&p[i], 0, li.frame_period_ns, 0));
    }
    assert_true(worst < 0.001);
    free(p);
    free(t);
    sensim_scene_destroy(s);
}

/* VLP-32C: Velodyne's calibration (VeloView-VLP-32C.yaml: vert_correction and
 * rot_correction, the degrees they were made from) and the firing in pairs
 * (IDs 2k and 2k + 1 at 2.304 us x k, 55.296 us cycle). Each point: its
 * laser's elevation, and the head's angle at its own time + rot_correction. */
static const double VLP32C_ELEV[32] = {-25,     -1,     -1.667, -15.639, -11.31, 0,      -0.667, -8.843,
                                       -7.254,  0.333,  -0.333, -6.148,  -5.333, 1.333,  0.667,  -4,
                                       -4.667,  1.667,  1,      -3.667,  -3.333, 3.333,  2.333,  -2.667,
                                       -3,      7,      4.667,  -2.333,  -2,     15,     10.333, -1.333};
static const double VLP32C_ROT[32] = {1.4, -4.2, 1.4, -1.4, 1.4, -1.4, 4.2, -1.4, 1.4, -4.2, 1.4,
                                      -1.4, 4.2, -1.4, 4.2, -1.4, 1.4, -4.2, 1.4, -4.2, 4.2, -1.4,
                                      1.4, -1.4, 1.4, -1.4, 1.4, -4.2, 4.2, -1.4, 1.4, -1.4};

static void test_vlp32c_table(void **state)
{
    (void)state;
    sensim_scene *s = box();
    uint64_t n;
    sensim_lidar_info li;
    sensim_point *p = frame("vlp32", NULL, 0, s, 0, &n, &li);
    assert_true(fabs(li.shots_per_s - 32e9 / 55296.0) < 1e-6);
    uint32_t *t = malloc(n * sizeof *t);
    double worst_el = 0, worst_az = 0;
    for (uint32_t c = 0; c < 32; c++)
        check_channel_times(p, n, c, 2304 * (c / 2), 55296, t); /* IDs 2k and 2k + 1 together */
    for (uint64_t i = 0; i < n; i++) {
        uint32_t c = p[i].channel;
        double el = atan2(p[i].z, hypot(p[i].x, p[i].y)) / DEG;
        worst_el = fmax(worst_el, fabs(el - VLP32C_ELEV[c]));
        worst_az = fmax(worst_az, az_err(&p[i], 0, li.frame_period_ns, VLP32C_ROT[c]));
    }
    printf("# vlp32: %llu points, elevation worst %.2e deg, azimuth worst %.2e deg\n", (unsigned long long)n,
           worst_el, worst_az);
    assert_true(worst_el < 1e-3); /* float points at up to ~50 m */
    assert_true(worst_az < 1e-3);
    free(p);
    free(t);
    sensim_scene_destroy(s);
}

/* PandarQT: Hesai's default angle table (PandarGeneral SDK, pandarQT.h), laser
 * 1 (channel 0) the lowest; Hesai's azimuth offsets clockwise-positive. */
static const double QT_ELEV[64] = {
    -52.121, -49.785, -47.577, -45.477, -43.465, -41.528, -39.653, -37.831, -36.055, -34.320, -32.619,
    -30.950, -29.308, -27.690, -26.094, -24.517, -22.964, -21.420, -19.889, -18.372, -16.865, -15.368,
    -13.880, -12.399, -10.925, -9.457,  -7.994,  -6.535,  -5.079,  -3.626,  -2.175,  -0.725,  0.725,
    2.175,   3.626,   5.079,   6.534,   7.993,   9.456,   10.923,  12.397,  13.877,  15.365,  16.861,
    18.368,  19.885,  21.415,  22.959,  24.524,  26.101,  27.697,  29.315,  30.957,  32.627,  34.328,
    36.064,  37.840,  39.662,  41.537,  43.475,  45.487,  47.587,  49.795,  52.133};
static const double QT_AZ_CW[64] = {
    8.736,  8.314,  7.964,  7.669,  7.417,  7.198,  7.007,  6.838,  6.688,  6.554,  6.434,  6.326,  6.228,
    6.140,  6.059,  5.987,  -5.270, -5.216, -5.167, -5.123, -5.083, -5.047, -5.016, -4.988, -4.963, -4.942,
    -4.924, -4.910, -4.898, -4.889, -4.884, -4.881, 5.493,  5.496,  5.502,  5.512,  5.525,  5.541,  5.561,
    5.584,  5.611,  5.642,  5.676,  5.716,  5.759,  5.808,  5.862,  5.921,  -5.330, -5.396, -5.469, -5.550,
    -5.640, -5.740, -5.850, -5.974, -6.113, -6.269, -6.447, -6.651, -6.887, -7.163, -7.493, -7.892};

static void test_pandar_qt_table(void **state)
{
    (void)state;
    sensim_scene *s; /* a room within the QT's 20 m */
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {-8, -8, -5}, hi[3] = {8, 8, 5};
    add_box(s, lo, hi, 3, 0);
    CHECK_OK(sensim_scene_commit(s));
    uint64_t n;
    sensim_lidar_info li;
    sensim_point *p = frame("pandar_qt", NULL, 0, s, 0, &n, &li);
    double worst_el = 0, worst_az = 0;
    uint32_t seen[64] = {0};
    for (uint64_t i = 0; i < n; i++) {
        uint32_t c = p[i].channel;
        assert_true(c < 64);
        seen[c]++;
        double el = atan2(p[i].z, hypot(p[i].x, p[i].y)) / DEG;
        worst_el = fmax(worst_el, fabs(el - QT_ELEV[c]));
        worst_az = fmax(worst_az, az_err(&p[i], 0, li.frame_period_ns, -QT_AZ_CW[c]));
    }
    for (uint32_t c = 0; c < 64; c++)
        assert_true(seen[c] > 100);
    printf("# pandar_qt: %llu points, elevation worst %.2e deg, azimuth worst %.2e deg\n", (unsigned long long)n,
           worst_el, worst_az);
    assert_true(worst_el < 1e-3);
    assert_true(worst_az < 1e-3);
    free(p);
    sensim_scene_destroy(s);
}

/* HDL-64E S3: lasers i and 32 + i fire together at the DSR table's times in a
 * 48 us cycle; upper block above, lower block below -8.7 deg; azimuth =
 * head angle at the laser's time + its rot_correction. */
static void test_hdl64_blocks(void **state)
{
    (void)state;
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "hdl64", NULL, 0, &l));
    float el[64];
    uint32_t ne;
    CHECK_OK(sensim_lidar_get_elevations(l, el, 64, &ne));
    sensim_lidar_destroy(l);
    float up_lo = 90, up_hi = -90, lo_lo = 90, lo_hi = -90;
    for (int i = 0; i < 32; i++) {
        up_lo = fminf(up_lo, el[i]), up_hi = fmaxf(up_hi, el[i]);
        lo_lo = fminf(lo_lo, el[32 + i]), lo_hi = fmaxf(lo_hi, el[32 + i]);
    }
    assert_true(fabs(up_lo / DEG - -8.5626) < 1e-4 && fabs(up_hi / DEG - 1.9601) < 1e-4);
    assert_true(fabs(lo_lo / DEG - -24.5551) < 1e-4 && fabs(lo_hi / DEG - -8.7745) < 1e-4);
    sensim_scene *s = box();
    uint64_t n;
    sensim_lidar_info li;
    sensim_point *p = frame("hdl64", NULL, 0, s, 0, &n, &li);
    const double slot[4] = {0, 1260, 2460, 3660};
    for (uint64_t i = 0; i < n; i++) {
        uint32_t dsr = p[i].channel % 32;
        double want = 6000.0 * (dsr / 4) + slot[dsr % 4];
        assert_true(p[i].t_offset_ns % 48000 == (uint32_t)want);
    }
    /* laser 0 (upper) and 32 (lower) share every firing time */
    uint64_t c0 = 0, c32 = 0;
    double sum0 = 0, sum32 = 0, worst = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (p[i].channel == 0)
            c0++, sum0 += p[i].t_offset_ns, worst = fmax(worst, az_err(&p[i], 0, li.frame_period_ns, -4.3821));
        if (p[i].channel == 32)
            c32++, sum32 += p[i].t_offset_ns, worst = fmax(worst, az_err(&p[i], 0, li.frame_period_ns, -7.326));
    }
    assert_true(c0 == c32 && c0 >= 2083 && sum0 == sum32);
    printf("# hdl64: %llu firings of lasers 0 and 32, azimuth worst %.2e deg\n", (unsigned long long)c0, worst);
    assert_true(worst < 0.001);
    free(p);
    sensim_scene_destroy(s);
}

/* Pandar64: channel 12 and 40 fire first, 55.56 us apart; Hesai's clockwise
 * azimuth offset -1.042 deg (ch 12) is +1.042 counter-clockwise. */
static void test_pandar64_cycle(void **state)
{
    (void)state;
    sensim_scene *s = box();
    uint64_t n;
    sensim_lidar_info li;
    sensim_point *p = frame("pandar64", NULL, 0, s, 0, &n, &li);
    uint64_t m = 0;
    double worst = 0;
    for (uint64_t i = 0; i < n; i++)
        if (p[i].channel == 11) { /* channel 12, 0-based 11: firing slot 0 */
            assert_int_equal(p[i].t_offset_ns % 55560, 0);
            worst = fmax(worst, az_err(&p[i], 0, li.frame_period_ns, 1.042));
            m++;
        } else if (p[i].channel == 0) { /* channel 1: slot 16, 31.488 us */
            assert_int_equal(p[i].t_offset_ns % 55560, 31488);
            worst = fmax(worst, az_err(&p[i], 0, li.frame_period_ns, 1.042));
        }
    assert_int_equal(m, (100000000 - 1) / 55560 + 1);
    assert_true(worst < 0.001);
    free(p);
    sensim_scene_destroy(s);
}

/* Ouster OS1-64: column firing locked to 2048 columns, column 0 at the back,
 * beams leave 15.806 mm off the axis: every point is `range` from its beam
 * origin, and on a plane 2 m below. */
static void test_ouster_origin(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 3000.0f, 1);
    CHECK_OK(sensim_scene_commit(s));
    const char *ideal[] = {"beam=ideal", "min_range_m=0"};
    uint64_t n;
    sensim_lidar_info li;
    sensim_point *p = frame("os1_64", ideal, 2, s, 2.0, &n, &li);
    assert_true(n > 20 * 2048);
    double worst = 0;
    for (uint64_t i = 0; i < n; i++) {
        int64_t k = ((int64_t)p[i].t_offset_ns * 2048 + li.frame_period_ns - 1) / li.frame_period_ns;
        assert_int_equal(p[i].t_offset_ns, k * li.frame_period_ns / 2048); /* column time, no per-beam delay */
        double th = PI - 2 * PI * (double)k / 2048;
        double ox = 0.015806 * cos(th), oy = 0.015806 * sin(th);
        double d = sqrt((p[i].x - ox) * (p[i].x - ox) + (p[i].y - oy) * (p[i].y - oy) + (double)p[i].z * p[i].z);
        worst = fmax(worst, fabs(d - p[i].range_m));
        assert_true(fabs(p[i].z + 2.0) < 1e-3);
    }
    printf("# os1_64: %llu points, |p - beam origin| vs range worst %.2e m\n", (unsigned long long)n, worst);
    assert_true(worst < 1e-4);
    free(p);
    sensim_scene_destroy(s);
}

/* Read a 16-bit gray PNG. */
static uint16_t *read_png16(const char *path, uint32_t *w, uint32_t *h)
{
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    assert_true(png_image_begin_read_from_file(&im, path));
    im.format = PNG_FORMAT_LINEAR_Y;
    uint16_t *buf = malloc(PNG_IMAGE_SIZE(im));
    assert_true(png_image_finish_read(&im, NULL, buf, 0, NULL));
    *w = im.width, *h = im.height;
    return buf;
}

/* A vertical pole seen by the OS1-64 (beams at +1.4 / -4.2 deg): in the
 * destaggered range image it is one vertical band in every row that sees it. */
static void test_destaggered_image(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {5, -0.1f, -3}, hi[3] = {5.2f, 0.1f, 3};
    add_box(s, lo, hi, 5, 0);
    const float wlo[3] = {20, -30, -30}, whi[3] = {21, 30, 30};
    add_box(s, wlo, whi, 3, 0);
    CHECK_OK(sensim_scene_commit(s));
    const char *ideal[] = {"beam=ideal"};
    sensim_lidar *l;
    const char *all[] = {"dropoff_model=none", "beam=ideal"};
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "os1_64", all, 2, &l));
    uint64_t n;
    sensim_lidar_info li;
    sensim_point *p = frame("os1_64", ideal, 1, s, 0, &n, &li);
    char path[512];
    snprintf(path, sizeof path, "%s/range.png", dir);
    uint32_t w, h;
    CHECK_OK(sensim_write_frame_images(l, p, n, 0, path, NULL, NULL, &w, &h));
    assert_int_equal(w, 2048);
    assert_int_equal(h, 64);
    uint16_t *img = read_png16(path, &w, &h);
    /* pole at 5 m: range 5 / 0.004 = 1250 counts; the pole spans atan(0.1/5) = +-1.15 deg = +-6.5 columns */
    int first = -1, last = -1, rows = 0;
    for (uint32_t y = 0; y < h; y++) {
        int a = -1, b = -1;
        for (uint32_t x = 0; x < w; x++)
            if (img[y * w + x] > 0 && img[y * w + x] < 1400) {
                if (a < 0)
                    a = (int)x;
                b = (int)x;
            }
        if (a < 0)
            continue;
        rows++;
        if (first < 0)
            first = a, last = b;
        assert_true(abs(a - first) <= 1 && abs(b - last) <= 1);
    }
    /* azimuth 0 is column 1024 (column 0 at 180 deg, clockwise) */
    printf("# destaggered pole: %d rows, columns %d..%d\n", rows, first, last);
    assert_true(rows > 30 && first > 1010 && last < 1038 && first < 1024 && last > 1024);
    free(img);
    free(p);
    sensim_lidar_destroy(l);
    sensim_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vlp16_cycle),   cmocka_unit_test(test_vlp32c_table), cmocka_unit_test(test_pandar_qt_table),
        cmocka_unit_test(test_hdl64_blocks),
        cmocka_unit_test(test_pandar64_cycle), cmocka_unit_test(test_ouster_origin),
        cmocka_unit_test(test_destaggered_image),
    };
    return cmocka_run_group_tests_name("firing", tests, setup, teardown);
}
