/* Kinematics and navigation sensors against closed forms: a circle, constant
 * velocity and rotation, quadratic motion. */
#include "helpers.h"

TEST_GROUP_FIXTURE(1, 0)

/* Keys every dt_s on a circle of radius r at speed v, heading along the track. */
static sensim_pose_key *circle_keys(double r, double v, double dt_s, int n)
{
    sensim_pose_key *k = calloc((size_t)n, sizeof *k);
    for (int i = 0; i < n; i++) {
        double th = v / r * i * dt_s, c = cos(th + M_PI / 2), s = sin(th + M_PI / 2);
        k[i].t_ns = (int64_t)llround(i * dt_s * 1e9);
        double *P = k[i].pose;
        memset(P, 0, sizeof k[i].pose);
        P[0] = c, P[1] = s, P[4] = -s, P[5] = c, P[10] = 1, P[15] = 1;
        P[12] = r * cos(th), P[13] = r * sin(th), P[14] = 0;
    }
    return k;
}

static void test_circle(void **state)
{
    (void)state;
    const double r = 50, v = 10;
    sensim_pose_key *k = circle_keys(r, v, 0.1, 101);
    double worst_a = 0, worst_w = 0, worst_v = 0;
    for (int i = 0; i < 997; i++) {
        int64_t t = 5000000 + (int64_t)i * 9973000; /* off the keys, across 10 s */
        sensim_kinematics s;
        CHECK_OK(sensim_kinematics_at(k, 101, SENSIM_INTERP_SPLINE, t, &s));
        double th = v / r * t * 1e-9, ax = -v * v / r * cos(th), ay = -v * v / r * sin(th);
        worst_a = fmax(worst_a, hypot(s.acceleration[0] - ax, s.acceleration[1] - ay));
        worst_a = fmax(worst_a, fabs(s.acceleration[2]));
        worst_v = fmax(worst_v, fabs(hypot(s.velocity[0], s.velocity[1]) - v));
        worst_w = fmax(worst_w, fabs(s.angular_velocity[2] - v / r) + fabs(s.angular_velocity[0]) +
                                    fabs(s.angular_velocity[1]));
    }
    printf("# circle r 50 m, 10 m/s, keys at 10 Hz: |a| error %.2e m/s^2, speed %.2e m/s, yaw rate %.2e rad/s\n",
           worst_a, worst_v, worst_w);
    assert_true(worst_a < 1e-4);
    assert_true(worst_w < 1e-6);
    free(k);
}

/* Pose of constant velocity v (world) and constant body rate w from pose 0. */
static void const_motion(double t, const double v[3], const double w[3], double out[16])
{
    double th = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) * t, ax[3] = {w[0], w[1], w[2]};
    double l = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
    for (int i = 0; i < 3; i++)
        ax[i] /= l;
    double c = cos(th), s = sin(th), C = 1 - c, x = ax[0], y = ax[1], z = ax[2];
    const double R[9] = {c + x * x * C, y * x * C + z * s, z * x * C - y * s, x * y * C - z * s, c + y * y * C,
                         z * y * C + x * s, x * z * C + y * s, y * z * C - x * s, c + z * z * C};
    memset(out, 0, 16 * sizeof(double));
    for (int col = 0; col < 3; col++)
        for (int row = 0; row < 3; row++)
            out[4 * col + row] = R[3 * col + row];
    out[12] = 1 + v[0] * t, out[13] = -2 + v[1] * t, out[14] = 0.5 + v[2] * t, out[15] = 1;
}

/* Constant velocity and constant rotation about a tilted axis stay exact in
 * both modes (irregular key times); quadratic motion gives its acceleration
 * exactly with the spline, everywhere including the end segments. */
static void test_exact_cases(void **state)
{
    (void)state;
    const double v[3] = {3, -1, 0.5}, w[3] = {0.1, -0.2, 0.3};
    sensim_pose_key k[12];
    int64_t t = 0;
    for (int i = 0; i < 12; i++) {
        k[i].t_ns = t;
        const_motion(t * 1e-9, v, w, k[i].pose);
        t += 70000000 + 13000000 * (i % 3);
    }
    for (int mode = 0; mode < 2; mode++)
        for (int64_t q = 0; q < t - 100000000; q += 37000001) {
            sensim_kinematics s;
            double ref[16];
            CHECK_OK(sensim_kinematics_at(k, 12, mode, q, &s));
            const_motion(q * 1e-9, v, w, ref);
            for (int i = 0; i < 16; i++)
                assert_double_close(s.pose[i], ref[i], 1e-9);
            for (int i = 0; i < 3; i++) {
                assert_double_close(s.velocity[i], v[i], 1e-8);
                assert_double_close(s.acceleration[i], 0, 1e-7);
                assert_double_close(s.angular_velocity[i], w[i], 1e-9);
            }
        }
    /* p = (a/2) t^2 along x */
    for (int i = 0; i < 12; i++) {
        double tt = k[i].t_ns * 1e-9;
        memset(k[i].pose, 0, sizeof k[i].pose);
        k[i].pose[0] = k[i].pose[5] = k[i].pose[10] = k[i].pose[15] = 1;
        k[i].pose[12] = 0.5 * 1.7 * tt * tt;
    }
    for (int64_t q = 0; q <= k[11].t_ns; q += 23000003) {
        sensim_kinematics s;
        CHECK_OK(sensim_kinematics_at(k, 12, SENSIM_INTERP_SPLINE, q, &s));
        assert_double_close(s.acceleration[0], 1.7, 1e-7);
        assert_double_close(s.velocity[0], 1.7 * q * 1e-9, 1e-8);
        assert_double_close(s.pose[12], 0.85 * q * 1e-9 * q * 1e-9, 1e-9);
    }
    /* outside the keys: held, at rest */
    sensim_kinematics s;
    CHECK_OK(sensim_kinematics_at(k, 12, SENSIM_INTERP_SPLINE, k[11].t_ns + 5, &s));
    assert_double_close(s.pose[12], k[11].pose[12], 0);
    assert_double_close(s.velocity[0], 0, 0);
    /* hostile keys */
    k[5].pose[3] = NAN;
    assert_int_equal(sensim_kinematics_at(k, 12, SENSIM_INTERP_SPLINE, k[5].t_ns, &s), SENSIM_ERR_NOT_FINITE);
    k[5].pose[3] = 0, k[5].t_ns = k[4].t_ns;
    assert_int_equal(sensim_kinematics_at(k, 12, SENSIM_INTERP_SPLINE, k[4].t_ns + 1, &s), SENSIM_ERR_TIME_ORDER);
    assert_int_equal(sensim_kinematics_at(k, 12, 7, 0, &s), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_kinematics_at(k, 0, 0, 0, &s), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_kinematics_at(NULL, 3, 0, 0, &s), SENSIM_ERR_INVALID_ARGUMENT);
}

static sensim_nav *make_nav(int32_t kind, const char *const *sets)
{
    sensim_nav_desc d;
    sensim_nav_desc_init(&d, kind);
    for (int i = 0; sets && sets[i]; i += 2)
        CHECK_OK(sensim_nav_desc_set(&d, sets[i], sets[i + 1]));
    sensim_nav *n;
    CHECK_OK(sensim_nav_create(ctx, &d, &n));
    return n;
}

/* IMU on a circle of radius r at speed v (spline keys at 10 Hz): specific
 * force v²/r toward the centre plus g up within 1e-3 m/s², gyro z = v/r
 * within 1e-6 rad/s; at rest (0, 0, g), zero rates, the compass of the heading. */
static void test_imu_truth(void **state)
{
    (void)state;
    const double r = 50, v = 10;
    sensim_pose_key *k = circle_keys(r, v, 0.1, 101);
    sensim_nav *imu = make_nav(SENSIM_NAV_IMU, NULL);
    double worst_f = 0, worst_w = 0;
    for (uint64_t i = 0; i <= 1000; i++) {
        sensim_nav_sample s;
        CHECK_OK(sensim_nav_sample_at(imu, k, 101, i, &s));
        assert_int_equal(s.t_ns, (int64_t)i * 10000000);
        worst_f = fmax(worst_f, fabs(s.accel[0]) + fabs(s.accel[1] - v * v / r) + fabs(s.accel[2] - 9.80665));
        worst_w = fmax(worst_w, fabs(s.gyro[2] - v / r) + fabs(s.gyro[0]) + fabs(s.gyro[1]));
    }
    printf("# IMU on the circle: specific force error %.2e m/s^2, gyro %.2e rad/s\n", worst_f, worst_w);
    assert_true(worst_f < 1e-3);
    assert_true(worst_w < 1e-6);
    sensim_nav_destroy(imu);
    free(k);
    /* at rest, heading east (+x) then north (+y): compass pi/2, then 0 */
    sensim_pose_key rest[2];
    for (int h = 0; h < 2; h++) {
        for (int i = 0; i < 2; i++) {
            memset(rest[i].pose, 0, sizeof rest[i].pose);
            rest[i].t_ns = i * 1000000000LL;
            rest[i].pose[0] = h ? 0 : 1, rest[i].pose[1] = h ? 1 : 0, rest[i].pose[4] = h ? -1 : 0,
            rest[i].pose[5] = h ? 0 : 1, rest[i].pose[10] = rest[i].pose[15] = 1;
        }
        imu = make_nav(SENSIM_NAV_IMU, (const char *const[]){"mount_xyz_m", "1, 0.5, 2", "gravity", "9.81", NULL});
        sensim_nav_sample s;
        CHECK_OK(sensim_nav_sample_at(imu, rest, 2, 37, &s));
        assert_double_close(s.accel[0], 0, 1e-12);
        assert_double_close(s.accel[1], 0, 1e-12);
        assert_double_close(s.accel[2], 9.81, 1e-12);
        assert_double_close(s.gyro[2], 0, 1e-15);
        assert_double_close(s.compass_rad, h ? 0 : M_PI / 2, 1e-12);
        assert_double_close(s.position[2], 2, 1e-12);
        sensim_nav_destroy(imu);
    }
}

static double sample_sd(const double *x, int n)
{
    double m = 0, v = 0;
    for (int i = 0; i < n; i++)
        m += x[i];
    m /= n;
    for (int i = 0; i < n; i++)
        v += (x[i] - m) * (x[i] - m);
    return sqrt(v / (n - 1));
}

/* Allan deviation at cluster size m (non-overlapping). */
static double allan(const double *x, int n, int m)
{
    int c = n / m;
    double s = 0;
    double prev = 0;
    for (int j = 0; j < c; j++) {
        double a = 0;
        for (int i = 0; i < m; i++)
            a += x[j * m + i];
        a /= m;
        if (j)
            s += (a - prev) * (a - prev);
        prev = a;
    }
    return sqrt(s / (2.0 * (c - 1)));
}

/* Noise: CARLA's per-sample σ within 5 %, the noise density's Allan
 * deviation slope -1/2 at short τ, a random walk's +1/2 at long τ; the same
 * bytes for the same seed, different ones for another. */
static void test_imu_noise(void **state)
{
    (void)state;
    enum { N = 40000 };
    sensim_pose_key rest = {0, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    static double ax[N], gz[N], wz[N];
    sensim_nav *a = make_nav(SENSIM_NAV_IMU, (const char *const[]){"noise_accel_stddev_x", "0.2", "gyro_noise_density",
                                                                   "0.001", "seed", "7", NULL});
    sensim_nav *b = make_nav(SENSIM_NAV_IMU, (const char *const[]){"gyro_random_walk", "0.01", "seed", "7", NULL});
    for (int i = 0; i < N; i++) {
        sensim_nav_sample s, t;
        CHECK_OK(sensim_nav_sample_at(a, &rest, 1, (uint64_t)i, &s));
        CHECK_OK(sensim_nav_sample_at(b, &rest, 1, (uint64_t)i, &t));
        ax[i] = s.accel[0], gz[i] = s.gyro[2], wz[i] = t.gyro[2];
    }
    double sd = sample_sd(ax, N), sg = sample_sd(gz, N), want_g = 0.001 * sqrt(100.0);
    double slope_w = log(allan(gz, N, 16) / allan(gz, N, 1)) / log(16.0);
    double slope_rw = log(allan(wz, N, 2000) / allan(wz, N, 500)) / log(4.0);
    printf("# IMU noise: accel sd %.4f (0.2), gyro sd %.5f (%.5f), Allan slope white %.3f, random walk %.3f\n", sd, sg,
           want_g, slope_w, slope_rw);
    assert_true(fabs(sd / 0.2 - 1) < 0.05);
    assert_true(fabs(sg / want_g - 1) < 0.05);
    assert_true(fabs(slope_w + 0.5) < 0.05);
    assert_true(fabs(slope_rw - 0.5) < 0.15);
    /* determinism: sample 123 again (the walk restarts and replays) */
    sensim_nav_sample s1, s2;
    CHECK_OK(sensim_nav_sample_at(b, &rest, 1, 123, &s1));
    assert_double_close(s1.gyro[2], wz[123], 0);
    sensim_nav_destroy(a);
    sensim_nav_destroy(b);
    b = make_nav(SENSIM_NAV_IMU, (const char *const[]){"gyro_random_walk", "0.01", "seed", "8", NULL});
    CHECK_OK(sensim_nav_sample_at(b, &rest, 1, 123, &s2));
    assert_true(s2.gyro[2] != s1.gyro[2]);
    sensim_nav_destroy(b);
}

/* GNSS against GeographicLib's CartConvert (an independent implementation,
 * Debian geographiclib-tools): 1e-9 degrees and 1e-6 m; CARLA's Mercator
 * against its closed form. */
static void test_gnss(void **state)
{
    (void)state;
    const double pts[4][3] = {{100, 0, 0}, {0, 100, 0}, {10000, -7000, 30}, {-2500, 4000, -12}};
    sensim_nav *g = make_nav(SENSIM_NAV_GNSS, (const char *const[]){"latitude", "48", "longitude", "11", "altitude",
                                                                    "500", NULL});
    for (int i = 0; i < 4; i++) {
        sensim_pose_key key = {0, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, pts[i][0], pts[i][1], pts[i][2], 1}};
        sensim_nav_sample s;
        CHECK_OK(sensim_nav_sample_at(g, &key, 1, 0, &s));
        char cmd[256];
        snprintf(cmd, sizeof cmd, "echo %.17g %.17g %.17g | CartConvert -r -l 48 11 500 -p 12", pts[i][0], pts[i][1],
                 pts[i][2]);
        FILE *f = popen(cmd, "r");
        assert_non_null(f);
        double lat, lon, alt;
        int got = fscanf(f, "%lf %lf %lf", &lat, &lon, &alt);
        pclose(f);
        if (got != 3)
            fail_msg("CartConvert (geographiclib-tools) did not answer: install it with scripts/install-deps.sh");
        printf("# GNSS (%g, %g, %g) m: lat %.12f (GeographicLib %.12f), lon %.12f (%.12f)\n", pts[i][0], pts[i][1],
               pts[i][2], s.latitude_deg, lat, s.longitude_deg, lon);
        assert_double_close(s.latitude_deg, lat, 1e-9);
        assert_double_close(s.longitude_deg, lon, 1e-9);
        assert_double_close(s.altitude_m, alt, 1e-6);
    }
    sensim_nav_destroy(g);
    g = make_nav(SENSIM_NAV_GNSS, (const char *const[]){"latitude", "48", "longitude", "11", "model", "carla", NULL});
    sensim_pose_key key = {0, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 100, 250, 3, 1}};
    sensim_nav_sample s;
    CHECK_OK(sensim_nav_sample_at(g, &key, 1, 0, &s));
    const double R = 6378137.0, sc = cos(48 * M_PI / 180);
    assert_double_close(s.longitude_deg, 11 + 100 / (R * sc) * 180 / M_PI, 1e-10);
    assert_double_close(s.latitude_deg,
                       360 / M_PI * atan(tan((90 + 48) * M_PI / 360) * exp(250 / (R * sc))) - 90, 1e-10);
    assert_double_close(s.altitude_m, 3, 1e-12);
    sensim_nav_destroy(g);
    /* bad descriptors and keys */
    sensim_nav_desc d;
    sensim_nav_desc_init(&d, SENSIM_NAV_GNSS);
    assert_int_equal(sensim_nav_desc_set(&d, "latitude", "91"), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_nav_desc_set(&d, "latitude", "nan"), SENSIM_ERR_NOT_FINITE);
    assert_int_equal(sensim_nav_desc_set(&d, "latitude", "4x"), SENSIM_ERR_PARSE);
    assert_int_equal(sensim_nav_desc_set(&d, "lattitude", "4"), SENSIM_ERR_UNKNOWN_KEY);
    assert_int_equal(sensim_nav_desc_set(&d, "noise_accel_stddev_w", "1"), SENSIM_ERR_UNKNOWN_KEY);
    assert_int_equal(sensim_nav_desc_set(&d, "model", "utm"), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_nav_desc_set(&d, "mount_xyz_m", "1, 2"), SENSIM_ERR_PARSE);
    d.rate_hz = 0;
    assert_int_equal(sensim_nav_create(ctx, &d, &g), SENSIM_ERR_OUT_OF_RANGE);
    d.rate_hz = 10, d.ref_longitude_deg = INFINITY;
    assert_int_equal(sensim_nav_create(ctx, &d, &g), SENSIM_ERR_NOT_FINITE);
    d.ref_longitude_deg = 0, d.reserved[3] = 1;
    assert_int_equal(sensim_nav_create(ctx, &d, &g), SENSIM_ERR_INVALID_ARGUMENT);
    d.reserved[3] = 0, d.kind = 9;
    assert_int_equal(sensim_nav_create(ctx, &d, &g), SENSIM_ERR_INVALID_ARGUMENT);
    d.kind = SENSIM_NAV_IMU, d.accel_stddev[1] = -1;
    assert_int_equal(sensim_nav_create(ctx, &d, &g), SENSIM_ERR_OUT_OF_RANGE);
}

static sensim_ring *nav_ring(uint32_t frames, int32_t policy)
{
    size_t size;
    CHECK_OK(sensim_nav_ring_required_size(frames, &size));
    void *mem = malloc(size);
    sensim_ring *r;
    CHECK_OK(sensim_nav_ring_init(mem, size, frames, policy, &r));
    return r;
}

static int fail_at_step = -1, calls;
static sensim_status failing(void *user, const sensim_sensor_sample *s)
{
    (void)user;
    calls++;
    return (int)s->world_step == fail_at_step ? SENSIM_ERR_CANCELLED : SENSIM_OK;
}

/* Navigation sensors in a rig: a 100 Hz IMU with a random walk in world
 * steps of 100 ms or of 37 ms and 3 ms gives samples at exactly k·10 ms with
 * the same bytes; a failed step rolls the walk back with the rings. */
static void run_nav_rig(const int64_t *dts, int ndt, int fail, sensim_nav_sample *out, int *count)
{
    sensim_scene *scene;
    CHECK_OK(sensim_scene_create(ctx, &scene));
    const float lo[3] = {100, 100, 0}, hi[3] = {101, 101, 1};
    add_box(scene, lo, hi, 4, 0);
    CHECK_OK(sensim_scene_commit(scene));
    sensim_nav *imu = make_nav(SENSIM_NAV_IMU, (const char *const[]){"gyro_random_walk", "0.01", "noise_accel_stddev_z",
                                                                     "0.05", "seed", "3", NULL});
    sensim_ring *r = nav_ring(200, SENSIM_OVERFLOW_FAIL), *pr = test_ring(10, 64, SENSIM_OVERFLOW_FAIL);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    CHECK_OK(sensim_rig_add_nav(rig, imu, r, NULL));
    sensim_sensor_desc sd;
    sensim_sensor_desc_init(&sd);
    sd.sample = failing, sd.rate_hz = 10;
    CHECK_OK(sensim_rig_add_sensor(rig, &sd, pr, NULL));
    sensim_pose_key k[11];
    for (int i = 0; i < 11; i++) {
        k[i].t_ns = i * 100000000LL;
        const_motion(i * 0.1, (const double[]){5, 0, 0}, (const double[]){0, 0, 0.2}, k[i].pose);
    }
    sensim_motion m = {.keys = k, .key_count = 11};
    fail_at_step = fail;
    int64_t t = 0;
    for (int i = 0; t < 1000000000; i++) {
        int64_t dt = dts[i % ndt];
        if (t + dt > 1000000000)
            dt = 1000000000 - t;
        sensim_status st = sensim_rig_step(rig, scene, dt, &m, NULL);
        if (st == SENSIM_ERR_CANCELLED) {
            fail_at_step = -1;
            CHECK_OK(sensim_rig_step(rig, scene, dt, &m, NULL)); /* the retry */
        } else {
            CHECK_OK(st);
        }
        t += dt;
    }
    *count = 0;
    const sensim_frame_header *h;
    const sensim_nav_sample *s;
    while (sensim_ring_peek_nav(r, &h, &s) == SENSIM_OK) {
        assert_int_equal(h->t_begin_ns, *count * 10000000LL);
        assert_int_equal(s->t_ns, h->t_begin_ns);
        out[(*count)++] = *s;
        CHECK_OK(sensim_ring_release(r));
    }
    sensim_frame_view fv;
    assert_int_equal(sensim_ring_peek(r, &fv), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_ring_peek_nav(pr, &h, &s), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_ring *r2 = nav_ring(4, SENSIM_OVERFLOW_FAIL);
    assert_int_equal(sensim_rig_add_nav(rig, imu, r2, NULL), SENSIM_ERR_DUPLICATE);
    free(r2);
    sensim_rig_destroy(rig);
    CHECK_OK(sensim_rig_create(ctx, &rig));
    assert_int_equal(sensim_rig_add_nav(rig, imu, pr, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_rig_add_nav(rig, (sensim_nav *)pr, r, NULL), SENSIM_ERR_BAD_HANDLE);
    sensim_rig_destroy(rig);
    sensim_nav_destroy(imu);
    free(r), free(pr);
    sensim_scene_destroy(scene);
}

static void test_nav_in_rig(void **state)
{
    (void)state;
    static sensim_nav_sample a[128], b[128], c[128];
    int na, nb, nc;
    const int64_t whole[1] = {100000000}, odd[2] = {37000000, 3000000};
    run_nav_rig(whole, 1, -1, a, &na);
    run_nav_rig(odd, 2, -1, b, &nb);
    run_nav_rig(whole, 1, 4, c, &nc);
    assert_int_equal(na, 100);
    assert_int_equal(nb, 100);
    assert_int_equal(nc, 100);
    assert_memory_equal(a, b, sizeof a[0] * 100);
    assert_memory_equal(a, c, sizeof a[0] * 100);
    /* constant yaw rate 0.2 rad/s and speed 5 m/s: gyro z ~ 0.2 + walk, specific force x ~ 0 */
    assert_double_close(a[50].angular_velocity[2], 0.2, 1e-9);
    assert_double_close(a[50].velocity_world[0], 5, 1e-9);
    assert_double_close(a[50].velocity_body[0], 5 * cos(0.1), 1e-9);
}

/* NavSatFix variances on WGS 84 (a = 6378137, b = 6356752.314245): 1e-5 deg
 * of latitude is 1e-5 deg x M metres north, of longitude 1e-5 deg x N cos(lat)
 * east. Closed forms: at the equator M = b²/a = 6335439.327 m and N = a; at
 * the pole M = N = a²/b = 6399593.626 m (and East vanishes); at 60 deg
 * N = a / sqrt(1 - 0.75 e²). */
static void test_gnss_enu_variance(void **state)
{
    (void)state;
    const double d = 3.14159265358979323846 / 180 * 1e-5, a = 6378137.0, b = 6356752.314245;
    const double e2 = 1 - (b / a) * (b / a);
    double v[3];
    CHECK_OK(sensim_gnss_enu_variance(0, 1e-5, 1e-5, 0.5, v));
    assert_double_close(sqrt(v[1]) / d, b * b / a, 1e-3);
    assert_double_close(sqrt(v[0]) / d, a, 1e-3);
    assert_double_close(v[2], 0.25, 1e-15);
    CHECK_OK(sensim_gnss_enu_variance(90, 1e-5, 1e-5, 0, v));
    assert_double_close(sqrt(v[1]) / d, a * a / b, 1e-3);
    assert_true(v[0] < 1e-20);
    CHECK_OK(sensim_gnss_enu_variance(60, 1e-5, 2e-5, 0, v));
    assert_double_close(sqrt(v[0]) / (2 * d), a / sqrt(1 - 0.75 * e2) * 0.5, 1e-3);
    double w[3];
    CHECK_OK(sensim_gnss_enu_variance(-60, 1e-5, 2e-5, 0, w));
    assert_true(w[0] == v[0] && w[1] == v[1]); /* the ellipsoid is symmetric */
    assert_int_equal(sensim_gnss_enu_variance(91, 1, 1, 1, v), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_gnss_enu_variance(0, -1, 1, 1, v), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_gnss_enu_variance(NAN, 1, 1, 1, v), SENSIM_ERR_NOT_FINITE);
    assert_int_equal(sensim_gnss_enu_variance(0, 1, 1, 1, NULL), SENSIM_ERR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_circle),    cmocka_unit_test(test_exact_cases), cmocka_unit_test(test_imu_truth),
        cmocka_unit_test(test_imu_noise), cmocka_unit_test(test_gnss),        cmocka_unit_test(test_nav_in_rig),
        cmocka_unit_test(test_gnss_enu_variance),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
