/* Radar against closed forms: Doppler of an approaching car, a stationary
 * scene, a turning radar; detection probability against the radar equation;
 * CARLA's ray pattern; nothing there, nothing detected. */
#include "helpers.h"

TEST_GROUP_FIXTURE(1, 0)

static sensim_radar *make_radar(const char *const *sets)
{
    sensim_radar_desc d;
    sensim_radar_desc_init(&d);
    for (int i = 0; sets && sets[i]; i += 2)
        CHECK_OK(sensim_radar_desc_set(&d, sets[i], sets[i + 1]));
    sensim_radar *r;
    CHECK_OK(sensim_radar_create(ctx, &d, &r));
    return r;
}

static void add_wall_x(sensim_scene *s, float x, float half, uint8_t tag)
{
    const float v[] = {x, -half, -half, x, half, -half, x, half, half, x, -half, half};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc m;
    sensim_mesh_desc_init(&m);
    m.vertices = v, m.vertex_count = 4, m.indices = idx, m.triangle_count = 2, m.tag = tag;
    uint32_t id;
    CHECK_OK(sensim_scene_add_mesh(s, &m, &id));
}

static sensim_pose_key still_key(void)
{
    sensim_pose_key k = {0, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
    return k;
}

/* A car approaching at 10 m/s: radial velocity -10 m/s (range rate) within
 * 0.05 m/s, exactly -10·u_x per detection, in both models; a wall behind it
 * (static) reads 0. */
static void test_approaching_car(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall_x(s, 80.0f, 200.0f, 4);
    const float lo[3] = {-2, -1, -0.75f}, hi[3] = {2, 1, 0.75f};
    uint32_t car = add_box(s, lo, hi, 14, SENSIM_MESH_PROTOTYPE);
    double p0[16], p1[16];
    translation(p0, 40, 0, 0), translation(p1, 30, 0, 0);
    CHECK_OK(sensim_scene_add_actor(s, car, 5, p0));
    CHECK_OK(sensim_scene_set_motion_interval(s, 0, 1000000000));
    CHECK_OK(sensim_scene_set_actor_motion(s, 5, p0, p1));
    CHECK_OK(sensim_scene_commit(s));
    sensim_pose_key key = still_key();
    for (int model = 0; model < 2; model++) {
        sensim_radar *r = make_radar((const char *const[]){"model", model ? "physical" : "carla", "snr_ref_db", "90",
                                                          "points_per_second", "40000", NULL});
        static sensim_radar_detection det[4096];
        uint64_t n;
        CHECK_OK(sensim_radar_sample_at(r, s, &key, 1, 10, det, 4096, &n, NULL)); /* t = 0.5 s */
        int on_car = 0, on_wall = 0;
        for (uint64_t i = 0; i < n; i++) {
            double ux = cos(det[i].altitude_rad) * cos(det[i].azimuth_rad);
            if (det[i].object_id == 5) {
                on_car++;
                assert_double_close(det[i].velocity_mps, -10 * ux, 1e-4);
                assert_double_close(det[i].velocity_mps, -10, 0.05);
                assert_int_equal(det[i].tag, 14);
            } else {
                on_wall++;
                assert_double_close(det[i].velocity_mps, 0, 1e-6);
            }
        }
        printf("# model %d: %d detections on the car, %d on the wall\n", model, on_car, on_wall);
        assert_true(on_car > 20 && on_wall > 20);
        sensim_radar_destroy(r);
    }
    sensim_scene_destroy(s);
}

/* A radar mounted 2 m ahead of a platform turning at 0.5 rad/s sees a static
 * wall at −dot(ω × r, û) = −2ω·cos(alt)·sin(az) per detection. */
static void test_turning_radar(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall_x(s, 30.0f, 200.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    const double w = 0.5;
    sensim_pose_key k[21];
    for (int i = 0; i < 21; i++) { /* yaw w·t about the platform origin */
        double th = w * (i - 10) * 0.05, c = cos(th), sn = sin(th);
        k[i].t_ns = i * 50000000LL;
        memset(k[i].pose, 0, sizeof k[i].pose);
        k[i].pose[0] = c, k[i].pose[1] = sn, k[i].pose[4] = -sn, k[i].pose[5] = c, k[i].pose[10] = k[i].pose[15] = 1;
    }
    sensim_radar *r = make_radar((const char *const[]){"mount_xyz_m", "2, 0, 0", "points_per_second", "20000", NULL});
    static sensim_radar_detection det[2048];
    uint64_t n;
    CHECK_OK(sensim_radar_sample_at(r, s, k, 21, 10, det, 2048, &n, NULL)); /* t = 0.5 s: yaw 0 */
    assert_true(n > 100);
    for (uint64_t i = 0; i < n; i++)
        assert_double_close(det[i].velocity_mps, -2 * w * cos(det[i].altitude_rad) * sin(det[i].azimuth_rad), 1e-4);
    /* nothing there (the wall behind): no detections */
    sensim_scene *e;
    CHECK_OK(sensim_scene_create(ctx, &e));
    add_wall_x(e, -30.0f, 200.0f, 4);
    CHECK_OK(sensim_scene_commit(e));
    CHECK_OK(sensim_radar_sample_at(r, e, k, 21, 10, det, 2048, &n, NULL));
    assert_int_equal(n, 0);
    sensim_radar_destroy(r);
    sensim_scene_destroy(e);
    sensim_scene_destroy(s);
}

/* Physical model: the detected fraction at each range equals the mean
 * Albersheim Pd of the rays' SNR (the carla model reports the same SNR
 * estimate for every hit) within 4 binomial σ, and falls with range. */
static void test_detection_vs_range(void **state)
{
    (void)state;
    const double ranges[3] = {40, 70, 110};
    double frac[3];
    for (int j = 0; j < 3; j++) {
        sensim_scene *s;
        CHECK_OK(sensim_scene_create(ctx, &s));
        add_wall_x(s, (float)ranges[j], 500.0f, 4);
        CHECK_OK(sensim_scene_commit(s));
        const char *const common[] = {"points_per_second", "100000", "range", "200", "snr_ref_db", "25", NULL};
        sensim_radar *c = make_radar(common);
        sensim_radar *p = make_radar((const char *const[]){"points_per_second", "100000", "range", "200",
                                                          "snr_ref_db", "25", "model", "physical", NULL});
        sensim_pose_key key = still_key();
        static sensim_radar_detection dc[8192], dp[8192];
        double expect = 0, got = 0, var = 0;
        for (uint64_t k = 0; k < 8; k++) {
            uint64_t nc, np;
            CHECK_OK(sensim_radar_sample_at(c, s, &key, 1, k, dc, 8192, &nc, NULL));
            CHECK_OK(sensim_radar_sample_at(p, s, &key, 1, k, dp, 8192, &np, NULL));
            const double A = log(0.62 / 1e-6);
            for (uint64_t i = 0; i < nc; i++) {
                double B = (dc[i].snr_db - A) / (0.12 * A + 1.7), pd = 1 / (1 + exp(-B));
                expect += pd, var += pd * (1 - pd);
            }
            got += (double)np;
        }
        printf("# wall at %.0f m: %.0f detections, Albersheim expects %.1f (sd %.1f)\n", ranges[j], got, expect,
               sqrt(var));
        assert_true(fabs(got - expect) < 4 * sqrt(var) + 1);
        frac[j] = got;
        sensim_radar_destroy(c);
        sensim_radar_destroy(p);
        sensim_scene_destroy(s);
    }
    assert_true(frac[0] > frac[1] && frac[1] > frac[2]);
}

/* Rain lowers the physical model's SNR by its two-way loss 2·γ·R, γ = k·rate^α dB/km with k, α of Rec. ITU-R
 * P.838 interpolated to 77 GHz (70 GHz: 0.851, 0.793; 80 GHz: 0.975, 0.769; log f, log k, linear α); the key
 * and sensim_radar_set_weather agree; the CARLA model is untouched, as CARLA's radar. */
static void test_rain(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall_x(s, 70.0f, 500.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    sensim_radar *dry = make_radar((const char *const[]){"model", "physical", "snr_ref_db", "90", NULL});
    sensim_radar *wet = make_radar((const char *const[]){"model", "physical", "snr_ref_db", "90", "rain_rate", "7.6", NULL});
    sensim_radar *later = make_radar((const char *const[]){"model", "physical", "snr_ref_db", "90", NULL});
    CHECK_OK(sensim_radar_set_weather(later, 7.6));
    assert_int_equal(sensim_radar_set_weather(later, 501), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_radar_set_weather(later, NAN), SENSIM_ERR_NOT_FINITE);
    const double u = log(77.0 / 70.0) / log(80.0 / 70.0);
    const double k = 0.851 * pow(0.975 / 0.851, u), alpha = 0.793 + u * (0.769 - 0.793);
    const double gamma_db_m = k * pow(7.6, alpha) / 1000;
    sensim_pose_key key = still_key();
    static sensim_radar_detection a[2048], b[2048], c[2048];
    uint64_t na, nb, nc, checked = 0;
    for (uint64_t f = 0; f < 4; f++) {
        CHECK_OK(sensim_radar_sample_at(dry, s, &key, 1, f, a, 2048, &na, NULL));
        CHECK_OK(sensim_radar_sample_at(wet, s, &key, 1, f, b, 2048, &nb, NULL));
        CHECK_OK(sensim_radar_sample_at(later, s, &key, 1, f, c, 2048, &nc, NULL));
        assert_int_equal(na, nb);
        assert_int_equal(nb, nc);
        assert_memory_equal(b, c, nb * sizeof *b);
        for (uint64_t i = 0; i < na; i++) {
            assert_int_equal(a[i].ray, b[i].ray);
            double loss = a[i].snr_db - b[i].snr_db, want = 2 * gamma_db_m * a[i].depth_m;
            assert_true(fabs(loss - want) < 1e-4);
            checked++;
        }
    }
    printf("# rain 7.6 mm/h: %llu detections each %.4f dB/km two ways (0.91 dB at 100 m)\n",
           (unsigned long long)checked, 2000 * gamma_db_m);
    assert_true(checked > 100);
    assert_true(fabs(200 * gamma_db_m - 0.91) < 0.01);
    /* CARLA's model: rain changes nothing */
    sensim_radar *cd = make_radar(NULL), *cw = make_radar((const char *const[]){"rain_rate", "50", NULL});
    CHECK_OK(sensim_radar_sample_at(cd, s, &key, 1, 0, a, 2048, &na, NULL));
    CHECK_OK(sensim_radar_sample_at(cw, s, &key, 1, 0, b, 2048, &nb, NULL));
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na * sizeof *a);
    sensim_radar_destroy(dry), sensim_radar_destroy(wet), sensim_radar_destroy(later);
    sensim_radar_destroy(cd), sensim_radar_destroy(cw);
    sensim_scene_destroy(s);
}

/* CARLA's pattern: rays inside the field of view, radius uniform in the
 * aim ellipse (mean 1/2), N = floor(points_per_second / rate) a sample. */
static void test_carla_pattern(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall_x(s, 50.0f, 500.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    sensim_radar *r = make_radar((const char *const[]){"points_per_second", "100000", "horizontal_fov", "40",
                                                      "vertical_fov", "20", NULL});
    assert_int_equal(sensim_radar_rays_per_sample(r), 5000);
    assert_int_equal(sensim_radar_period_ns(r), 50000000);
    static sensim_radar_detection det[5000];
    uint64_t n;
    sensim_pose_key key = still_key();
    double pose[16];
    CHECK_OK(sensim_radar_sample_at(r, s, &key, 1, 3, det, 5000, &n, pose));
    assert_int_equal(n, 5000);
    double sum = 0;
    const double ta = tan(20 * M_PI / 180), tb = tan(10 * M_PI / 180);
    for (uint64_t i = 0; i < n; i++) {
        double y = tan(det[i].azimuth_rad), z = tan(det[i].altitude_rad) / cos(det[i].azimuth_rad);
        double rr = sqrt((y / ta) * (y / ta) + (z / tb) * (z / tb));
        assert_true(rr <= 1 + 1e-5);
        assert_double_close(det[i].depth_m * cos(det[i].altitude_rad) * cos(det[i].azimuth_rad), 50, 1e-3);
        sum += rr;
    }
    printf("# CARLA pattern: mean normalised radius %.4f (uniform: 0.5)\n", sum / n);
    assert_double_close(sum / n, 0.5, 0.02);
    /* too small a buffer, bad keys and descriptors */
    assert_int_equal(sensim_radar_sample_at(r, s, &key, 1, 3, det, 10, &n, NULL), SENSIM_ERR_TOO_LARGE);
    sensim_radar_desc d;
    sensim_radar_desc_init(&d);
    assert_int_equal(sensim_radar_desc_set(&d, "horizontal_fov", "180"), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_radar_desc_set(&d, "range", "inf"), SENSIM_ERR_NOT_FINITE);
    assert_int_equal(sensim_radar_desc_set(&d, "range", "far"), SENSIM_ERR_PARSE);
    assert_int_equal(sensim_radar_desc_set(&d, "colour", "red"), SENSIM_ERR_UNKNOWN_KEY);
    assert_int_equal(sensim_radar_desc_set(&d, "model", "sonar"), SENSIM_ERR_OUT_OF_RANGE);
    d.points_per_second = 1e7, d.rate_hz = 0.1;
    sensim_radar *bad;
    assert_int_equal(sensim_radar_create(ctx, &d, &bad), SENSIM_ERR_OUT_OF_RANGE); /* 1e8 rays a sample */
    sensim_radar_desc_init(&d);
    d.pfa = NAN;
    assert_int_equal(sensim_radar_create(ctx, &d, &bad), SENSIM_ERR_NOT_FINITE);
    sensim_radar_destroy(r);
    sensim_scene_destroy(s);
}

/* In a rig: frames at exactly k·P with the detections as records, the
 * radar's pose and id in the header, the same bytes for any time split. */
static void run_radar_rig(int64_t dt, sensim_radar_detection *out, uint64_t *n_out, int *frames)
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall_x(s, 30.0f, 200.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    sensim_radar *r = make_radar((const char *const[]){"model", "physical", "velocity_noise", "0.1", "seed", "4", NULL});
    sensim_ring *ring = test_ring(100000, 64, SENSIM_OVERFLOW_FAIL);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    CHECK_OK(sensim_rig_add_radar(rig, r, ring, NULL));
    assert_int_equal(sensim_rig_add_radar(rig, r, ring, NULL), SENSIM_ERR_DUPLICATE);
    sensim_pose_key k[2] = {still_key(), still_key()};
    k[1].t_ns = 1000000000, k[1].pose[12] = 5;
    sensim_motion m = {.keys = k, .key_count = 2};
    for (int64_t t = 0; t < 500000000; t += dt)
        CHECK_OK(sensim_rig_step(rig, s, dt, &m, NULL));
    *n_out = 0;
    *frames = 0;
    sensim_frame_header h;
    uint64_t got;
    while (sensim_ring_pop(ring, &h, (sensim_point *)(out + *n_out), 4096, &got) == SENSIM_OK) {
        assert_int_equal(h.t_begin_ns, *frames * 50000000LL);
        assert_double_close(h.sensor_pose[12], 5 * *frames * 0.05, 1e-9);
        *n_out += got;
        (*frames)++;
    }
    sensim_rig_destroy(rig);
    sensim_radar_destroy(r);
    free(ring);
    sensim_scene_destroy(s);
}

static void test_radar_rig(void **state)
{
    (void)state;
    static sensim_radar_detection a[8192], b[8192];
    uint64_t na, nb;
    int fa, fb;
    run_radar_rig(100000000, a, &na, &fa);
    run_radar_rig(10000000, b, &nb, &fb);
    assert_int_equal(fa, 10);
    assert_int_equal(fb, 10);
    assert_int_equal(na, nb);
    assert_true(na > 100);
    assert_memory_equal(a, b, na * sizeof a[0]);
    double mean = 0;
    for (uint64_t i = 0; i < na; i++)
        mean += a[i].velocity_mps / cos(a[i].azimuth_rad) / cos(a[i].altitude_rad);
    printf("# radar in a rig at 5 m/s towards a wall: mean radial velocity / cos = %.3f (-5)\n", mean / na);
    assert_double_close(mean / na, -5, 0.05);
    uint32_t nf;
    const sensim_field *f = sensim_radar_fields(&nf);
    assert_int_equal(nf, 10);
    assert_string_equal(f[3].name, "velocity");
    assert_int_equal(f[3].offset, 12);
}

/* Physical model: velocities fold into [-v_max, v_max), range and velocity
 * quantise to their resolutions, noise has its σ. */
static void test_resolution_and_folding(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall_x(s, 60.0f, 500.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    sensim_pose_key k[2] = {still_key(), still_key()};
    k[1].t_ns = 1000000000, k[1].pose[12] = 30; /* 30 m/s towards the wall */
    sensim_radar *r = make_radar((const char *const[]){"model", "physical", "snr_ref_db", "90", "points_per_second",
                                                      "20000", "max_velocity", "20", "range_resolution", "0.5",
                                                      "velocity_resolution", "0.25", NULL});
    static sensim_radar_detection d[1024];
    uint64_t n;
    CHECK_OK(sensim_radar_sample_at(r, s, k, 2, 5, d, 1024, &n, NULL));
    assert_true(n > 500);
    for (uint64_t i = 0; i < n; i++) {
        double truth = -30 * cos(d[i].altitude_rad) * cos(d[i].azimuth_rad), q = 0.25 * floor(truth / 0.25 + 0.5);
        double folded = q - 40 * floor((q + 20) / 40);
        assert_double_close(d[i].velocity_mps, folded, 1e-5);
        assert_true(d[i].velocity_mps >= -20 && d[i].velocity_mps < 20);
        assert_double_close(d[i].depth_m / 0.5, floor(d[i].depth_m / 0.5 + 0.5), 1e-4);
    }
    sensim_radar_destroy(r);
    r = make_radar((const char *const[]){"model", "physical", "snr_ref_db", "90", "points_per_second", "20000",
                                         "velocity_noise", "0.3", NULL});
    double sum = 0, sum2 = 0;
    uint64_t total = 0;
    for (uint64_t kk = 0; kk < 10; kk++) {
        CHECK_OK(sensim_radar_sample_at(r, s, k, 2, kk, d, 1024, &n, NULL));
        for (uint64_t i = 0; i < n; i++) {
            double e = d[i].velocity_mps + 30 * cos(d[i].altitude_rad) * cos(d[i].azimuth_rad);
            sum += e, sum2 += e * e, total++;
        }
    }
    double sd = sqrt(sum2 / total - (sum / total) * (sum / total));
    printf("# radar velocity noise: sd %.4f m/s over %llu detections (0.3)\n", sd, (unsigned long long)total);
    assert_true(fabs(sd / 0.3 - 1) < 0.05);
    sensim_radar_destroy(r);
    sensim_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_approaching_car), cmocka_unit_test(test_turning_radar),
        cmocka_unit_test(test_detection_vs_range), cmocka_unit_test(test_carla_pattern),
        cmocka_unit_test(test_radar_rig),       cmocka_unit_test(test_resolution_and_folding), cmocka_unit_test(test_rain),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
