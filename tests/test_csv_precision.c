/* Livox CSV replay keeps the file's angles (issue 66): every table direction
 * is the one computed in double from the file's text, rounded to float once,
 * not the direction of angles first rounded to float (up to ~2.4e-7 rad off
 * for azimuths of 180-360 deg). Checked against the analytic value, not a
 * snapshot. */
#include "helpers.h"
#include "lidar_impl.h"

#define PI 3.14159265358979323846

TEST_GROUP_FIXTURE(1, 1)

#define ROWS 4000

/* The rows' text: azimuths all over [0, 360) with six decimals (as Livox
 * files and sensim's export), zeniths over [0.5, 179.5]. */
static char *csv_text(int seconds)
{
    size_t cap = (size_t)ROWS * 64 + 64, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len, "Time/s,Azimuth/deg,Zenith/deg\n");
    for (int i = 0; i < ROWS; i++) {
        double az = fmod(i * 97.1234567891, 360.0), zen = 0.5 + fmod(i * 13.3333337, 179.0);
        if (seconds)
            len += (size_t)snprintf(s + len, cap - len, "%d.%06d,%.6f,%.6f\n", i / 100000, (i % 100000) * 10, az,
                                    zen);
        else
            len += (size_t)snprintf(s + len, cap - len, "%d,%.6f,%.6f\n", i, az, zen);
    }
    return s;
}

/* The analytic direction of row i: its text parsed back, degrees to
 * radians and the trigonometry in double. */
static void exact_dir(const char *line, double d[3])
{
    const char *c1 = strchr(line, ','), *c2 = strchr(c1 + 1, ',');
    double a = strtod(c1 + 1, NULL) * PI / 180.0, e = (90.0 - strtod(c2 + 1, NULL)) * PI / 180.0;
    d[0] = cos(e) * cos(a);
    d[1] = cos(e) * sin(a);
    d[2] = sin(e);
}

/* Angle between a float direction and the analytic one (|a x b|). */
static double angle_to(const float f[3], const double d[3])
{
    double cx = f[1] * d[2] - f[2] * d[1], cy = f[2] * d[0] - f[0] * d[2], cz = f[0] * d[1] - f[1] * d[0];
    return asin(fmin(1.0, sqrt(cx * cx + cy * cy + cz * cz)));
}

static void check_csv(int seconds)
{
    char *text = csv_text(seconds);
    const char *path = write_test_file(dir, seconds ? "prec_s.csv" : "prec_i.csv", text, strlen(text));
    const char *by_index[] = {"shots_per_s=100000"}, *by_time[] = {"table_time=seconds"};
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, path, seconds ? by_time : by_index, 1, &l));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    assert_int_equal(li.table_size, ROWS);
    const char *line = strchr(text, '\n') + 1;
    double worst = 0, worst_ulps = 0, worst_float_angles = 0;
    for (int64_t g = 0; g < ROWS; g++, line = strchr(line, '\n') + 1) {
        double d[3];
        exact_dir(line, d);
        int64_t t = sensim__pattern_time(&l->pat, g);
        uint16_t ch;
        float f[3];
        assert_true(sensim__pattern_shot(&l->pat, g, t, &ch, f));
        for (int k = 0; k < 3; k++) {
            /* rounded once: within half a float ulp of the double value (a hair more for libm's last bit) */
            double ulp = fabs(d[k]) < 0x1p-125 ? 0x1p-149 : ldexp(1.0, ilogb(d[k]) - 23);
            double ulps = fabs((double)f[k] - d[k]) / ulp;
            if (!(ulps <= 0.5 + 1e-6))
                fail_msg("shot %lld component %d: %.9g vs analytic %.17g, %.3f float ulps (rounded once: <= 0.5)",
                         (long long)g, k, (double)f[k], d[k], ulps);
            worst_ulps = fmax(worst_ulps, ulps);
        }
        worst = fmax(worst, angle_to(f, d));
        /* what float angles gave (the old table): for the printout only */
        const char *c1 = strchr(line, ','), *c2 = strchr(c1 + 1, ',');
        float af = (float)(strtod(c1 + 1, NULL) * PI / 180.0), ef = (float)((90.0 - strtod(c2 + 1, NULL)) * PI / 180.0);
        double od[3] = {cos((double)ef) * cos((double)af), cos((double)ef) * sin((double)af), sin((double)ef)};
        float of[3] = {(float)od[0], (float)od[1], (float)od[2]};
        worst_float_angles = fmax(worst_float_angles, angle_to(of, d));
    }
    /* a unit vector rounded to float per component: at most sqrt(3)·2^-25 rad */
    assert_true(worst <= 5.2e-8);
    printf("# %s: %d rows, worst %.3g float ulps, %.3g rad from the file's direction (float angles: %.3g rad)\n",
           seconds ? "by seconds" : "by index", ROWS, worst_ulps, worst, worst_float_angles);
    sensim_lidar_destroy(l);
    free(text);
}

static void test_csv_angles_double(void **state)
{
    (void)state;
    check_csv(0);
    check_csv(1);
}

/* Zenith 0 and 180 (straight up and down) are valid rows: their elevation
 * is exactly ±π/2 in double (in float it rounded past π/2 and the table
 * was refused). */
static void test_csv_zenith_poles(void **state)
{
    (void)state;
    const char *path = write_test_file(dir, "poles.csv", "Time/s,Azimuth/deg,Zenith/deg\n0,0,0\n1,90,180\n2,45,90\n",
                                       strlen("Time/s,Azimuth/deg,Zenith/deg\n0,0,0\n1,90,180\n2,45,90\n"));
    const char *sets[] = {"shots_per_s=1000"};
    sensim_lidar *l;
    sensim_status st = sensim_lidar_create_from_preset(ctx, path, sets, 1, &l);
    if (st != SENSIM_OK)
        fail_msg("poles.csv: %s", sensim_context_last_error(ctx));
    uint16_t ch;
    float f[3];
    assert_true(sensim__pattern_shot(&l->pat, 0, sensim__pattern_time(&l->pat, 0), &ch, f));
    assert_true(f[2] == 1.0f && fabsf(f[0]) < 1e-16f && fabsf(f[1]) < 1e-16f);
    assert_true(sensim__pattern_shot(&l->pat, 1, sensim__pattern_time(&l->pat, 1), &ch, f));
    assert_true(f[2] == -1.0f && fabsf(f[0]) < 1e-16f && fabsf(f[1]) < 1e-16f);
    sensim_lidar_destroy(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_angles_double),
        cmocka_unit_test(test_csv_zenith_poles),
    };
    return cmocka_run_group_tests_name("csv_precision", tests, setup, teardown);
}
