/* Cameras against analytic truth: planes, a sphere's silhouette, lens
 * closed forms, rolling shutter, and agreement with a lidar on the same rig. */
#include "helpers.h"

TEST_GROUP_FIXTURE(2, 0)

/* A wall x = d facing the origin, plus optional extras. */
static void add_wall(sensim_scene *s, float d, float half, uint8_t tag)
{
    const float v[] = {d, -half, -half, d, half, -half, d, half, half, d, -half, half};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc m;
    sensim_mesh_desc_init(&m);
    m.vertices = v, m.vertex_count = 4, m.indices = idx, m.triangle_count = 2, m.tag = tag;
    uint32_t id;
    CHECK_OK(sensim_scene_add_mesh(s, &m, &id));
}

/* UV sphere of radius r at c (prototype-free static mesh). */
static void add_sphere(sensim_scene *s, const double c[3], double r, uint32_t nu, uint32_t nv, uint8_t tag)
{
    uint32_t nvert = (nu + 1) * (nv + 1);
    float *v = malloc(nvert * 3 * sizeof *v);
    uint32_t *idx = malloc(nu * nv * 6 * sizeof *idx), t = 0;
    for (uint32_t j = 0; j <= nv; j++)
        for (uint32_t i = 0; i <= nu; i++) {
            double th = M_PI * j / nv, ph = 2 * M_PI * i / nu;
            float *p = &v[3 * (j * (nu + 1) + i)];
            p[0] = (float)(c[0] + r * sin(th) * cos(ph)), p[1] = (float)(c[1] + r * sin(th) * sin(ph));
            p[2] = (float)(c[2] + r * cos(th));
        }
    for (uint32_t j = 0; j < nv; j++)
        for (uint32_t i = 0; i < nu; i++) {
            uint32_t a = j * (nu + 1) + i, b = a + 1, cc = a + nu + 1, d = cc + 1;
            uint32_t q[6] = {a, cc, b, b, cc, d};
            memcpy(&idx[6 * t++], q, sizeof q);
        }
    sensim_mesh_desc m;
    sensim_mesh_desc_init(&m);
    m.vertices = v, m.vertex_count = nvert, m.indices = idx, m.triangle_count = nu * nv * 2, m.tag = tag;
    uint32_t id;
    CHECK_OK(sensim_scene_add_mesh(s, &m, &id));
    free(v), free(idx);
}

static sensim_motion still(sensim_pose_key *key, double x, double y, double z)
{
    key->t_ns = 0;
    translation(key->pose, x, y, z);
    sensim_motion m = {.keys = key, .key_count = 1};
    return m;
}

static sensim_camera *make_camera(const char *preset, const char *const *sets)
{
    sensim_camera_desc d;
    CHECK_OK(sensim_camera_desc_preset(preset, &d));
    for (int i = 0; sets && sets[i]; i += 2)
        CHECK_OK(sensim_camera_desc_set(&d, sets[i], sets[i + 1]));
    sensim_camera *c;
    CHECK_OK(sensim_camera_create(ctx, &d, &c));
    return c;
}

static double decode_carla(const uint8_t rgb[3])
{
    return (rgb[0] + 256.0 * rgb[1] + 65536.0 * rgb[2]) / 16777215.0 * 1000.0;
}

/* A camera facing a wall at 10 m: planar depth 10 m in every pixel (1e-4 m),
 * CARLA's 24-bit encoding decodes to it within 1 mm; K is CARLA's. */
static void test_wall_depth(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall(s, 10.0f, 100.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    sensim_camera *c = make_camera("carla_default", NULL);
    sensim_camera_info info;
    CHECK_OK(sensim_camera_get_info(c, &info));
    assert_int_equal(info.width, 800);
    assert_float_equal(info.k[0], 400.0, 1e-9); /* 800 / (2 tan 45°) */
    /* CARLA's images: the optical axis on the image's centre, (399.5, 299.5) counting pixel centres from 0 */
    assert_float_equal(info.k[2], 399.5, 1e-12);
    assert_float_equal(info.k[5], 299.5, 1e-12);
    assert_float_equal(info.hfov_deg, 90.0, 1e-9);
    assert_string_equal(info.distortion_model, "plumb_bob");
    double axis[3] = {0, 0, 5}, uv[2]; /* a point on the optical axis lands on the image's centre */
    CHECK_OK(sensim_camera_project(c, axis, uv));
    assert_float_equal(uv[0], 399.5, 1e-9);
    assert_float_equal(uv[1], 299.5, 1e-9);
    float *depth = malloc(800 * 600 * sizeof *depth);
    uint8_t *sem = malloc(800 * 600);
    sensim_camera_images im = {.depth = depth, .semantic = sem};
    sensim_pose_key key;
    sensim_motion m = still(&key, 0, 0, 0);
    CHECK_OK(sensim_camera_render(c, s, &m, 0, &im, NULL));
    double worst = 0, worst_enc = 0;
    for (int p = 0; p < 800 * 600; p++) {
        worst = fmax(worst, fabs(depth[p] - 10.0));
        uint8_t rgb[3];
        sensim_depth_to_carla_rgb(depth[p], rgb);
        worst_enc = fmax(worst_enc, fabs(decode_carla(rgb) - 10.0));
        assert_int_equal(sem[p], 4);
    }
    printf("# wall at 10 m: worst planar depth error %.2e m, CARLA-encoded %.2e m\n", worst, worst_enc);
    assert_true(worst < 1e-4);
    assert_true(worst_enc < 1e-3);
    /* nothing there: the sky, at CARLA's far plane (1000 m) for carla_default, +inf with depth_far_plane 0,
     * max_depth_m where it is set */
    key.pose[0] = -1, key.pose[5] = -1; /* turned around (yaw 180°) */
    CHECK_OK(sensim_camera_render(c, s, &m, 0, &im, NULL));
    for (int p = 0; p < 800 * 600; p++) {
        assert_true(depth[p] == 1000.0f);
        assert_int_equal(sem[p], 11);
    }
    static const char *const inf_sets[] = {"depth_far_plane", "0", NULL};
    static const char *const near_sets[] = {"max_depth_m", "50", NULL};
    for (int v = 0; v < 2; v++) {
        sensim_camera *c2 = make_camera("carla_default", v ? near_sets : inf_sets);
        CHECK_OK(sensim_camera_render(c2, s, &m, 0, &im, NULL));
        for (int p = 0; p < 800 * 600; p++)
            assert_true(v ? depth[p] == 50.0f : isinf(depth[p]));
        sensim_camera_destroy(c2);
    }
    sensim_camera_desc bad;
    CHECK_OK(sensim_camera_desc_preset("pinhole_720p", &bad));
    assert_int_equal(bad.depth_far_plane, 0); /* sensim's own presets: +inf */
    assert_int_equal(sensim_camera_desc_set(&bad, "depth_far_plane", "2"), SENSIM_ERR_OUT_OF_RANGE);
    free(depth), free(sem);
    sensim_camera_destroy(c);
    sensim_scene_destroy(s);
}

/* A sphere of radius 1 m at 10 m on the axis: its silhouette is a circle of
 * radius f·tan(asin(R/D)) pixels; the pixel count gives it within 0.5 px. */
static void test_sphere_silhouette(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const double c0[3] = {10, 0, 0};
    add_sphere(s, c0, 1.0, 256, 128, 14);
    CHECK_OK(sensim_scene_commit(s));
    sensim_camera *c = make_camera("carla_default", NULL);
    uint8_t *sem = malloc(800 * 600);
    uint32_t *inst = malloc(800 * 600 * sizeof *inst);
    float *nrm = malloc(800 * 600 * 3 * sizeof *nrm);
    sensim_camera_images im = {.semantic = sem, .instance = inst, .normal = nrm};
    sensim_pose_key key;
    sensim_motion m = still(&key, 0, 0, 0);
    CHECK_OK(sensim_camera_render(c, s, &m, 0, &im, NULL));
    uint32_t n = 0;
    for (int p = 0; p < 800 * 600; p++)
        n += sem[p] == 14;
    double expect = 400.0 * tan(asin(0.1)), got = sqrt(n / M_PI);
    printf("# sphere silhouette radius %.3f px, pinhole formula %.3f px\n", got, expect);
    assert_true(fabs(got - expect) < 0.5);
    /* the centre pixel looks at the sphere's nearest point: normal (0, 0, -1) in the optical frame */
    size_t ctr = 300 * 800 + 400;
    assert_float_equal(nrm[3 * ctr + 2], -1.0f, 1e-3);
    assert_float_equal(nrm[3 * ctr + 0], 0.0f, 2e-2);
    /* a pixel right of centre sees a normal pointing right (+x optical) */
    size_t right = 300 * 800 + 430;
    assert_true(nrm[3 * right] > 0.3f);
    free(sem), free(inst), free(nrm);
    sensim_camera_destroy(c);
    sensim_scene_destroy(s);
}

/* Lens models against their closed forms, and unproject o project = identity. */
static void test_lens_closed_forms(void **state)
{
    (void)state;
    const char *const pin[] = {"fx", "500", "fy", "480", "cx", "321.5", "cy", "239.25", "k1", "-0.28", "k2",
                               "0.07", "p1", "0.0012", "p2", "-0.0009", "k3", "-0.004", NULL};
    sensim_camera *c = make_camera("pinhole_720p", pin);
    const double K1 = -0.28, K2 = 0.07, P1 = 0.0012, P2 = -0.0009, K3 = -0.004;
    double worst_uv = 0, worst_dir = 0;
    for (int i = -6; i <= 6; i++)
        for (int j = -4; j <= 4; j++) {
            double p[3] = {i * 0.09, j * 0.08, 1.3}, uv[2], dv[3];
            CHECK_OK(sensim_camera_project(c, p, uv));
            double x = p[0] / p[2], y = p[1] / p[2], r2 = x * x + y * y;
            double rad = 1 + K1 * r2 + K2 * r2 * r2 + K3 * r2 * r2 * r2;
            double xd = x * rad + 2 * P1 * x * y + P2 * (r2 + 2 * x * x);
            double yd = y * rad + P1 * (r2 + 2 * y * y) + 2 * P2 * x * y;
            worst_uv = fmax(worst_uv, fmax(fabs(uv[0] - (500 * xd + 321.5)), fabs(uv[1] - (480 * yd + 239.25))));
            CHECK_OK(sensim_camera_unproject(c, uv[0], uv[1], dv));
            double l = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
            for (int k = 0; k < 3; k++)
                worst_dir = fmax(worst_dir, fabs(dv[k] - p[k] / l));
        }
    printf("# plumb_bob: projection vs closed form %.1e px, unproject round trip %.1e\n", worst_uv, worst_dir);
    assert_true(worst_uv < 1e-9);
    assert_true(worst_dir < 1e-9);
    sensim_camera_info info;
    CHECK_OK(sensim_camera_get_info(c, &info));
    assert_float_equal(info.d[0], K1, 0), assert_float_equal(info.d[2], P1, 0), assert_float_equal(info.d[4], K3, 0);
    sensim_camera_destroy(c);

    const char *const fish[] = {"model", "fisheye", "k1", "0.02", "k2", "-0.003", "k3", "0.0004", "k4", "-0.00002",
                                NULL};
    c = make_camera("fisheye_190", fish);
    const double F = 640.0 / (95.0 * M_PI / 180.0);
    worst_uv = worst_dir = 0;
    for (int i = 0; i < 40; i++) {
        double th = i * (100.0 / 39) * M_PI / 180, ph = i * 0.7;
        double p[3] = {sin(th) * cos(ph) * 3, sin(th) * sin(ph) * 3, cos(th) * 3}, uv[2], dv[3];
        CHECK_OK(sensim_camera_project(c, p, uv));
        double td = th * (1 + 0.02 * th * th - 0.003 * pow(th, 4) + 0.0004 * pow(th, 6) - 0.00002 * pow(th, 8));
        worst_uv = fmax(worst_uv, fmax(fabs(uv[0] - (F * td * cos(ph) + 640)), fabs(uv[1] - (F * td * sin(ph) + 480))));
        CHECK_OK(sensim_camera_unproject(c, uv[0], uv[1], dv));
        for (int k = 0; k < 3; k++)
            worst_dir = fmax(worst_dir, fabs(dv[k] - p[k] / 3));
    }
    printf("# equidistant fisheye to 100 deg: projection vs closed form %.1e px, round trip %.1e\n", worst_uv,
           worst_dir);
    assert_true(worst_uv < 1e-9);
    assert_true(worst_dir < 1e-9);
    sensim_camera_destroy(c);
}

/* A fisheye facing a wall: each pixel's range is d / cos(theta), theta = r / f. */
static void test_fisheye_wall(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall(s, 5.0f, 1000.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    sensim_camera *c = make_camera("fisheye_190", NULL);
    float *depth = malloc(1280 * 960 * sizeof *depth);
    sensim_camera_images im = {.depth = depth};
    sensim_pose_key key;
    sensim_motion m = still(&key, 0, 0, 0);
    CHECK_OK(sensim_camera_render(c, s, &m, 0, &im, NULL));
    const double F = 640.0 / (95.0 * M_PI / 180.0);
    int checked = 0, beyond = 0;
    for (int j = 0; j < 960; j += 7)
        for (int i = 0; i < 1280; i += 7) {
            double th = hypot(i - 640.0, j - 480.0) / F;
            float dd = depth[j * 1280 + i];
            if (th < 80 * M_PI / 180) {
                assert_true(fabs(dd - 5.0 / cos(th)) < 1e-4 * dd);
                checked++;
            } else if (th > 90.5 * M_PI / 180) {
                assert_true(isinf(dd)); /* looking away from the wall */
                beyond++;
            }
        }
    assert_true(checked > 5000 && beyond > 1000);
    free(depth);
    sensim_camera_destroy(c);
    sensim_scene_destroy(s);
}

/* Rolling shutter: the camera drives at 10 m/s towards a wall 20 m ahead;
 * row j is exposed at j·30 µs and sees the wall 20 − 10·t_j ahead. */
static void test_rolling_shutter(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall(s, 20.0f, 100.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    const char *const rs[] = {"row_readout_ns", "30000", NULL};
    sensim_camera *c = make_camera("carla_default", rs);
    float *depth = malloc(800 * 600 * sizeof *depth);
    sensim_camera_images im = {.depth = depth};
    sensim_pose_key keys[2];
    translation(keys[0].pose, 0, 0, 0), keys[0].t_ns = 0;
    translation(keys[1].pose, 10, 0, 0), keys[1].t_ns = 1000000000;
    sensim_motion m = {.keys = keys, .key_count = 2};
    double pose[16];
    CHECK_OK(sensim_camera_render(c, s, &m, 50000000, &im, pose));
    assert_float_equal(pose[12], 0.5, 1e-12);
    for (int j = 0; j < 600; j += 37) {
        double t = 0.05 + j * 30e-6, expect = 20 - 10 * t;
        for (int i = 0; i < 800; i += 101)
            assert_true(fabs(depth[j * 800 + i] - expect) < 1e-4);
    }
    assert_true(depth[599 * 800] < depth[0] - 0.17); /* 599 rows x 30 µs x 10 m/s = 0.18 m */
    free(depth);
    sensim_camera_destroy(c);
    sensim_scene_destroy(s);
}

/* A lidar and a camera on one platform agree: each lidar point projected
 * into the depth image lands where the (inverse-depth interpolated) depth
 * equals the point's optical z within 1 cm. */
static void test_lidar_camera_agree(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 200.0f, 1);
    const float lo[3] = {6, -2, 0}, hi[3] = {8, 1, 1.5f}, lo2[3] = {12, 1, 0}, hi2[3] = {13, 4, 3};
    add_box(s, lo, hi, 14, 0);
    add_box(s, lo2, hi2, 3, 0);
    add_wall(s, 30.0f, 50.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    sensim_camera *c = make_camera("carla_default", NULL);
    const char *ov[] = {"beam=ideal", "dropoff_model=none", "range_noise_stddev_m=0"};
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", ov, 3, &l));
    float *depth = malloc(800 * 600 * sizeof *depth);
    uint8_t *sem = malloc(800 * 600);
    float *nrm = malloc(800 * 600 * 3 * sizeof *nrm);
    sensim_camera_images im = {.depth = depth, .semantic = sem, .normal = nrm};
    sensim_pose_key key;
    sensim_motion m = still(&key, 0, 0, 1.5);
    CHECK_OK(sensim_camera_render(c, s, &m, 0, &im, NULL));
    sensim_ring *r = test_ring(400000, 2, SENSIM_OVERFLOW_FAIL);
    CHECK_OK(sensim_lidar_scan(l, s, 0, 100000000, key.pose, r, NULL));
    sensim_point *pts = NULL;
    uint64_t len = 0;
    sensim_frame_header h;
    uint32_t nh = 0;
    uint64_t n = drain(r, &pts, &len, &h, 1, &nh);
    int checked = 0;
    double worst = 0;
    for (uint64_t k = 0; k < n; k++) {
        double p[3] = {-pts[k].y, -pts[k].z, pts[k].x}, uv[2]; /* sensor (body) frame -> optical */
        if (p[2] < 1 || sensim_camera_project(c, p, uv) != SENSIM_OK)
            continue;
        int i0 = (int)floor(uv[0]), j0 = (int)floor(uv[1]);
        if (i0 < 0 || j0 < 0 || i0 + 1 >= 800 || j0 + 1 >= 600)
            continue;
        uint8_t t0 = sem[j0 * 800 + i0];
        if (sem[j0 * 800 + i0 + 1] != t0 || sem[(j0 + 1) * 800 + i0] != t0 || sem[(j0 + 1) * 800 + i0 + 1] != t0 ||
            t0 != pts[k].tag)
            continue; /* on an edge between surfaces */
        const float *n0 = &nrm[3 * (j0 * 800 + i0)];
        const size_t nb[3] = {j0 * 800 + i0 + 1, (j0 + 1) * 800 + i0, (j0 + 1) * 800 + i0 + 1};
        int same = 1;
        for (int q = 0; q < 3; q++)
            for (int e = 0; e < 3; e++)
                same &= fabsf(nrm[3 * nb[q] + e] - n0[e]) < 1e-4f;
        if (!same)
            continue; /* two faces of a box meet between these pixels */
        double a = uv[0] - i0, b = uv[1] - j0;
        double inv = (1 - a) * (1 - b) / depth[j0 * 800 + i0] + a * (1 - b) / depth[j0 * 800 + i0 + 1] +
                     (1 - a) * b / depth[(j0 + 1) * 800 + i0] + a * b / depth[(j0 + 1) * 800 + i0 + 1];
        double err = fabs(1 / inv - p[2]);
        worst = fmax(worst, err);
        checked++;
    }
    printf("# lidar points in the camera: %d checked, worst depth disagreement %.2e m\n", checked, worst);
    assert_true(checked > 2000);
    assert_true(worst < 0.01);
    free(pts), free(r), free(depth), free(sem), free(nrm);
    sensim_lidar_destroy(l);
    sensim_camera_destroy(c);
    sensim_scene_destroy(s);
}

/* Shaded colour: a box floating 3 m above the road under a sun at the
 * zenith: the road under it shows the ambient share of its colour only, the
 * road beside it its full colour; the same bytes for any thread count. */
static uint8_t srgb_scaled(uint8_t c, double k)
{
    double sl = c / 255.0, lin = (sl <= 0.04045 ? sl / 12.92 : pow((sl + 0.055) / 1.055, 2.4)) * k;
    double sv = lin <= 0.0031308 ? 12.92 * lin : 1.055 * pow(lin, 1 / 2.4) - 0.055;
    return (uint8_t)lround(sv * 255);
}

static void test_shading_and_thread_invariance(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 100.0f, 1);
    const float lo[3] = {8, -1, 3}, hi[3] = {10, 1, 4};
    add_box(s, lo, hi, 14, 0);
    CHECK_OK(sensim_scene_commit(s));
    const char *const aa[] = {"samples_per_pixel", "4", "sun_elevation_deg", "90", "ambient", "0.3", NULL};
    sensim_camera *c = make_camera("carla_default", aa);
    uint8_t *rgb[3];
    sensim_pose_key key;
    sensim_motion m = still(&key, 0, 0, 1.6);
    for (uint32_t th = 1; th <= 3; th++) {
        rgb[th - 1] = malloc(800 * 600 * 3);
        CHECK_OK(sensim_context_set_thread_count(ctx, th));
        sensim_camera_images im = {.rgb = rgb[th - 1]};
        CHECK_OK(sensim_camera_render(c, s, &m, 0, &im, NULL));
        if (th > 1)
            assert_memory_equal(rgb[0], rgb[th - 1], 800 * 600 * 3);
    }
    CHECK_OK(sensim_context_set_thread_count(ctx, 2));
    uint8_t road[3];
    sensim_tag_color(1, road);
    /* road point (9, 0, 0), in the shadow: optical (0, 1.6, 9) -> (400, 371.1); (9, 3, 0) lit -> (266.7, 371.1) */
    const uint8_t *shadow = &rgb[0][3 * (371 * 800 + 400)], *lit = &rgb[0][3 * (371 * 800 + 267)];
    for (int q = 0; q < 3; q++) {
        assert_int_equal(shadow[q], srgb_scaled(road[q], 0.3));
        assert_int_equal(lit[q], road[q]);
    }
    /* the sky where nothing is hit */
    uint8_t sky[3];
    sensim_tag_color(11, sky);
    assert_memory_equal(&rgb[0][3 * (10 * 800 + 400)], sky, 3);
    for (int k = 0; k < 3; k++)
        free(rgb[k]);
    sensim_camera_destroy(c);
    sensim_scene_destroy(s);
}

/* Hostile descriptors, keys and calls: documented statuses with the field named. */
static void test_hostile(void **state)
{
    (void)state;
    sensim_camera_desc d;
    sensim_camera *c = NULL;
    assert_int_equal(sensim_camera_desc_preset("nope", &d), SENSIM_ERR_NOT_FOUND);
    assert_non_null(strstr(sensim_context_last_error(NULL), "carla_default"));
    sensim_camera_desc_init(&d);
    assert_int_equal(sensim_camera_desc_set(&d, "fov", "nan"), SENSIM_ERR_NOT_FINITE);
    assert_int_equal(sensim_camera_desc_set(&d, "fov", "12x"), SENSIM_ERR_PARSE);
    assert_int_equal(sensim_camera_desc_set(&d, "width", "99999"), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_camera_desc_set(&d, "width", "1.5"), SENSIM_ERR_PARSE);
    assert_int_equal(sensim_camera_desc_set(&d, "k4", "0.1"), SENSIM_ERR_UNKNOWN_KEY);
    assert_int_equal(sensim_camera_desc_set(&d, "zoom", "2"), SENSIM_ERR_UNKNOWN_KEY);
    assert_non_null(strstr(sensim_context_last_error(NULL), "zoom"));
    assert_int_equal(sensim_camera_desc_set(&d, "image_size_z", "2"), SENSIM_ERR_UNKNOWN_KEY);
    assert_non_null(strstr(sensim_context_last_error(NULL), "did you mean 'image_size_x'"));
    /* CARLA's size keys: width and height, K from fov again (fx = W / (2 tan(fov / 2)), cx = W / 2) */
    sensim_camera_desc_init(&d);
    CHECK_OK(sensim_camera_desc_set(&d, "fx", "500"));
    CHECK_OK(sensim_camera_desc_set(&d, "image_size_x", "1280"));
    CHECK_OK(sensim_camera_desc_set(&d, "image_size_y", "720"));
    assert_int_equal(d.width, 1280);
    assert_int_equal(d.height, 720);
    assert_true(d.fx == 0 && d.cx == 0); /* derived at creation */
    assert_int_equal(sensim_camera_desc_set(&d, "model", "orthographic"), SENSIM_ERR_OUT_OF_RANGE);
    sensim_camera_desc_init(&d), d.fx = NAN;
    assert_int_equal(sensim_camera_create(ctx, &d, &c), SENSIM_ERR_NOT_FINITE);
    sensim_camera_desc_init(&d), d.width = 0;
    assert_int_equal(sensim_camera_create(ctx, &d, &c), SENSIM_ERR_OUT_OF_RANGE);
    sensim_camera_desc_init(&d), d.samples_per_pixel = 3;
    assert_int_equal(sensim_camera_create(ctx, &d, &c), SENSIM_ERR_OUT_OF_RANGE);
    sensim_camera_desc_init(&d), d.hfov_deg = 180;
    assert_int_equal(sensim_camera_create(ctx, &d, &c), SENSIM_ERR_OUT_OF_RANGE);
    sensim_camera_desc_init(&d), d.row_readout_ns = 10000000; /* 600 rows x 10 ms = 6 s */
    assert_int_equal(sensim_camera_create(ctx, &d, &c), SENSIM_ERR_OUT_OF_RANGE);
    sensim_camera_desc_init(&d), d.reserved[3] = 1;
    assert_int_equal(sensim_camera_create(ctx, &d, &c), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_camera_desc_init(&d), d.distortion[0] = 1e300;
    assert_int_equal(sensim_camera_create(ctx, &d, &c), SENSIM_ERR_OUT_OF_RANGE);
    /* the pixel budget: 2^26 (16384^2 took 40 s and 5.9 GB for depth alone); refused before any allocation */
    sensim_camera_desc_init(&d), d.width = d.height = 16384, d.cx = d.cy = 8192;
    assert_int_equal(sensim_camera_create(ctx, &d, &c), SENSIM_ERR_OUT_OF_RANGE);
    assert_non_null(strstr(sensim_context_last_error(NULL), "over the budget of 67108864"));
    sensim_camera_desc_init(&d), d.width = 8193, d.height = 8192;
    assert_int_equal(sensim_camera_create(ctx, &d, &c), SENSIM_ERR_OUT_OF_RANGE);
    assert_null(c);
    sensim_camera_desc_init(&d), d.width = 64, d.height = 48;
    CHECK_OK(sensim_camera_create(ctx, &d, &c));
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall(s, 3.0f, 10.0f, 4);
    float depth[64 * 48];
    sensim_camera_images im = {.depth = depth}, none = {0};
    sensim_pose_key key;
    sensim_motion m = still(&key, 0, 0, 0);
    assert_int_equal(sensim_camera_render(c, s, &m, 0, &im, NULL), SENSIM_ERR_NOT_COMMITTED);
    CHECK_OK(sensim_scene_commit(s));
    assert_int_equal(sensim_camera_render(c, s, &m, 0, &none, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    key.pose[12] = NAN;
    assert_int_equal(sensim_camera_render(c, s, &m, 0, &im, NULL), SENSIM_ERR_NOT_FINITE);
    key.pose[12] = 0;
    assert_int_equal(sensim_camera_render(c, s, &m, INT64_MAX, &im, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_camera_render((sensim_camera *)s, s, &m, 0, &im, NULL), SENSIM_ERR_BAD_HANDLE);
    double behind[3] = {0, 0, -1}, uv[2];
    assert_int_equal(sensim_camera_project(c, behind, uv), SENSIM_ERR_OUT_OF_RANGE);
    double mount[16];
    identity(mount);
    mount[0] = 2;
    assert_int_equal(sensim_camera_set_mount_pose(c, mount), SENSIM_ERR_OUT_OF_RANGE);
    CHECK_OK(sensim_camera_render(c, s, &m, 0, &im, NULL));
    assert_float_equal(depth[24 * 64 + 32], 3.0f, 1e-5);
    sensim_camera_destroy(c);
    sensim_scene_destroy(s);
}

/* ---- cameras in rigs ---------------------------------------------------- */

static sensim_ring *image_ring(uint32_t w, uint32_t h, uint32_t outputs, uint32_t frames, int32_t policy)
{
    size_t size;
    CHECK_OK(sensim_image_ring_required_size(w, h, outputs, frames, &size));
    void *mem = malloc(size);
    assert_non_null(mem);
    sensim_ring *r;
    CHECK_OK(sensim_image_ring_init(mem, size, w, h, outputs, frames, policy, &r));
    return r;
}

#define RW 24
#define RH 16
#define RIG_OUT (SENSIM_CAMERA_DEPTH | SENSIM_CAMERA_SEMANTIC | SENSIM_CAMERA_INSTANCE)

/* Run a 20 Hz rig camera (rolling shutter) on a platform driving at a wall
 * through 0.5 s cut into the steps @p dts (ns, cycled); return the images
 * (depth, semantic, instance of each capture, in order) and check the
 * frame headers against exact capture times. */
static uint32_t rig_camera_run(sensim_scene *s, const int64_t *dts, int ndt, float *depth, uint8_t *sem,
                               uint32_t *inst, int64_t *times)
{
    sensim_camera *c = make_camera("carla_default", (const char *const[]){"width", "24", "height", "16",
                                                                          "row_readout_ns", "1000000", NULL});
    sensim_ring *r = image_ring(RW, RH, RIG_OUT, 16, SENSIM_OVERFLOW_FAIL);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    uint32_t idx;
    CHECK_OK(sensim_rig_add_camera(rig, c, 20.0, 7, r, &idx));
    sensim_pose_key keys[2];
    translation(keys[0].pose, 0, 0, 1), keys[0].t_ns = 0;
    translation(keys[1].pose, 10, 0, 1), keys[1].t_ns = 1000000000;
    sensim_motion m = {.keys = keys, .key_count = 2};
    uint32_t n = 0;
    for (int64_t t = 0, i = 0; t < 500000000; i++) {
        int64_t dt = dts[i % ndt];
        if (t + dt > 500000000)
            dt = 500000000 - t;
        sensim_rig_step_result res;
        CHECK_OK(sensim_rig_step(rig, s, dt, &m, &res));
        /* exactly the captures k·50 ms inside [t, t + dt) */
        uint64_t expect = (uint64_t)((t + dt + 49999999) / 50000000 - (t + 49999999) / 50000000);
        assert_int_equal(res.frames_completed, expect);
        sensim_image_view v;
        while (sensim_ring_peek_image(r, &v) == SENSIM_OK) {
            assert_int_equal(v.header->t_begin_ns, (int64_t)n * 50000000);
            assert_int_equal(v.header->t_end_ns, (int64_t)(n + 1) * 50000000);
            assert_int_equal(v.header->lidar_id, 7);
            assert_int_equal(v.header->frame_number, n);
            assert_int_equal(v.width, RW);
            assert_null(v.normal);
            assert_null(v.rgb);
            /* the camera's pose at capture: platform at x = 10 t */
            assert_float_equal(v.header->sensor_pose[12], 10.0 * n * 0.05, 1e-9);
            assert_float_equal(v.header->sensor_pose[14], 1.0, 1e-12);
            memcpy(depth + n * RW * RH, v.depth, RW * RH * sizeof *depth);
            memcpy(sem + n * RW * RH, v.semantic, RW * RH);
            memcpy(inst + n * RW * RH, v.instance, RW * RH * sizeof *inst);
            times[n++] = v.header->t_begin_ns;
            CHECK_OK(sensim_ring_release(r));
        }
        t += dt;
    }
    sensim_ring_stats st;
    CHECK_OK(sensim_ring_get_stats(r, &st));
    assert_int_equal(st.frames_written, n);
    assert_int_equal(st.scans_refused, 0);
    sensim_rig_destroy(rig);
    sensim_camera_destroy(c);
    free(r);
    return n;
}

/* A rig camera takes exactly the captures k·P, each the image a direct
 * render at k·P gives (rolling shutter rows included), for any way the host
 * splits time: 100 ms steps, 1 kHz steps, and odd 37 ms / 3 ms steps. */
static void test_rig_camera(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall(s, 50.0f, 100.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    enum { NF = 10, PIX = RW * RH };
    float *depth[3];
    uint8_t *sem[3];
    uint32_t *inst[3];
    int64_t times[3][NF + 1];
    const int64_t split[3][2] = {{100000000, 100000000}, {1000000, 1000000}, {37000000, 3000000}};
    for (int k = 0; k < 3; k++) {
        depth[k] = malloc(NF * PIX * sizeof(float)), sem[k] = malloc(NF * PIX), inst[k] = malloc(NF * PIX * 4);
        assert_int_equal(rig_camera_run(s, split[k], 2, depth[k], sem[k], inst[k], times[k]), NF);
    }
    for (int k = 1; k < 3; k++) {
        assert_memory_equal(depth[0], depth[k], NF * PIX * sizeof(float));
        assert_memory_equal(sem[0], sem[k], NF * PIX);
        assert_memory_equal(inst[0], inst[k], NF * PIX * 4);
    }
    /* the same images as direct renders at the capture times */
    sensim_camera *c = make_camera("carla_default", (const char *const[]){"width", "24", "height", "16",
                                                                          "row_readout_ns", "1000000", NULL});
    sensim_pose_key keys[2];
    translation(keys[0].pose, 0, 0, 1), keys[0].t_ns = 0;
    translation(keys[1].pose, 10, 0, 1), keys[1].t_ns = 1000000000;
    sensim_motion m = {.keys = keys, .key_count = 2};
    float d1[PIX];
    for (int f = 0; f < NF; f++) {
        sensim_camera_images im = {.depth = d1};
        CHECK_OK(sensim_camera_render(c, s, &m, f * 50000000LL, &im, NULL));
        assert_memory_equal(d1, depth[0] + f * PIX, sizeof d1);
        /* row j was exposed at t + j ms with the platform at x = 10 (t + j ms) */
        for (int j = 0; j < RH; j++)
            assert_float_equal(d1[j * RW + RW / 2], 50.0 - 10.0 * (f * 0.05 + j * 0.001), 1e-4);
    }
    for (int k = 0; k < 3; k++)
        free(depth[k]), free(sem[k]), free(inst[k]);
    sensim_camera_destroy(c);
    sensim_scene_destroy(s);
}

/* Image rings overflow as point rings do, always counted: FAIL refuses the
 * camera's whole step (nothing written; the retry after reading succeeds),
 * DROP_OLDEST keeps the newest images and counts the dropped ones. */
static void test_image_ring_overflow(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall(s, 20.0f, 100.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    sensim_camera *c = make_camera("carla_default", (const char *const[]){"width", "8", "height", "6", NULL});
    sensim_pose_key key;
    sensim_motion m = still(&key, 0, 0, 0);
    for (int policy = 0; policy < 2; policy++) {
        sensim_ring *r = image_ring(8, 6, SENSIM_CAMERA_DEPTH, 3, policy);
        sensim_rig *rig;
        CHECK_OK(sensim_rig_create(ctx, &rig));
        CHECK_OK(sensim_rig_add_camera(rig, c, 20.0, 1, r, NULL));
        sensim_rig_step_result res;
        CHECK_OK(sensim_rig_step(rig, s, 100000000, &m, &res)); /* 2 images, 1 slot left */
        assert_int_equal(res.frames_completed, 2);
        CHECK_OK(sensim_rig_step(rig, s, 100000000, &m, &res)); /* 2 more: too many */
        sensim_ring_stats st;
        CHECK_OK(sensim_ring_get_stats(r, &st));
        sensim_image_view v;
        if (policy == SENSIM_OVERFLOW_FAIL) {
            assert_int_equal(res.sensors_refused, 1);
            assert_int_equal(res.frames_completed, 0);
            assert_int_equal(st.scans_refused, 1);
            assert_int_equal(st.points_refused, 2); /* images */
            assert_int_equal(st.frames_ready, 2);
            CHECK_OK(sensim_ring_peek_image(r, &v));
            assert_int_equal(v.header->frame_number, 0);
        } else {
            assert_int_equal(res.sensors_refused, 0);
            assert_int_equal(st.frames_dropped, 1);
            assert_int_equal(st.points_dropped, 1); /* images */
            assert_int_equal(st.frames_ready, 3);
            CHECK_OK(sensim_ring_peek_image(r, &v));
            assert_int_equal(v.header->frame_number, 1);
        }
        for (int p = 0; p < 48; p++)
            assert_float_equal(v.depth[p], 20.0, 1e-4);
        sensim_rig_destroy(rig);
        free(r);
    }
    sensim_camera_destroy(c);
    sensim_scene_destroy(s);
}

/* Misuse: rings of the wrong kind or size, bad rates, sizes, outputs. */
static void test_image_ring_misuse(void **state)
{
    (void)state;
    sensim_camera *c = make_camera("carla_default", (const char *const[]){"width", "8", "height", "6", NULL});
    size_t size;
    assert_int_equal(sensim_image_ring_required_size(8, 6, 0, 2, &size), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_image_ring_required_size(8, 6, 64, 2, &size), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_image_ring_required_size(0, 6, 1, 2, &size), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_image_ring_required_size(16385, 6, 1, 2, &size), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_image_ring_required_size(8, 6, 1, 0, &size), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_image_ring_required_size(16384, 16384, 31, 1u << 24, &size), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_image_ring_required_size(8, 6, 1, 2, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    CHECK_OK(sensim_image_ring_required_size(8, 6, 1, 2, &size));
    void *mem = malloc(size);
    sensim_ring *r;
    assert_int_equal(sensim_image_ring_init(mem, size - 1, 8, 6, 1, 2, 0, &r), SENSIM_ERR_TOO_LARGE);
    assert_int_equal(sensim_image_ring_init(mem, size, 8, 6, 1, 2, 5, &r), SENSIM_ERR_INVALID_ARGUMENT);
    CHECK_OK(sensim_image_ring_init(mem, size, 8, 6, 1, 2, 0, &r));
    sensim_ring *pr = test_ring(100, 4, SENSIM_OVERFLOW_FAIL);
    sensim_ring *wrong = image_ring(6, 8, 1, 2, SENSIM_OVERFLOW_FAIL);
    sensim_rig *rig;
    CHECK_OK(sensim_rig_create(ctx, &rig));
    assert_int_equal(sensim_rig_add_camera(rig, c, 20, 0, pr, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_rig_add_camera(rig, c, 20, 0, wrong, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_rig_add_camera(rig, c, NAN, 0, r, NULL), SENSIM_ERR_NOT_FINITE);
    assert_int_equal(sensim_rig_add_camera(rig, c, 0.01, 0, r, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_rig_add_camera(rig, NULL, 20, 0, r, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_rig_add_camera(rig, (sensim_camera *)pr, 20, 0, r, NULL), SENSIM_ERR_BAD_HANDLE);
    CHECK_OK(sensim_rig_add_camera(rig, c, 20, 0, r, NULL));
    assert_int_equal(sensim_rig_add_camera(rig, c, 20, 0, wrong, NULL), SENSIM_ERR_DUPLICATE); /* same camera */
    /* points into an image ring, images read as points, and back */
    sensim_proximity_desc pd;
    sensim_proximity_desc_init(&pd);
    assert_int_equal(sensim_rig_add_proximity(rig, &pd, wrong, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &l));
    assert_int_equal(sensim_rig_add_lidar(rig, l, wrong, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall(s, 5.0f, 10.0f, 4);
    CHECK_OK(sensim_scene_commit(s));
    sensim_pose_key key;
    sensim_motion m = still(&key, 0, 0, 0);
    assert_int_equal(sensim_lidar_scan(l, s, 0, 1000000, key.pose, wrong, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_frame_view fv;
    sensim_image_view iv;
    assert_int_equal(sensim_ring_peek(r, &fv), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_ring_pop(r, NULL, NULL, 0, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_ring_peek_image(pr, &iv), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_ring_peek_image(r, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_ring_peek_image(r, &iv), SENSIM_ERR_RING_EMPTY);
    /* the camera still works in its rig after all the refusals */
    CHECK_OK(sensim_rig_step(rig, s, 100000000, &m, NULL));
    assert_int_equal(sensim_ring_peek_image(r, &iv), SENSIM_OK);
    sensim_rig_destroy(rig);
    sensim_lidar_destroy(l);
    sensim_scene_destroy(s);
    free(mem), free(pr), free(wrong);
    sensim_camera_destroy(c);
}

/* ---- material appearance: OBJ/MTL Kd and PNG map_Kd ------------------------ */

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static sensim_scene *load_obj_scene(const char *path, sensim_status *out_st)
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    sensim_load_options lo;
    sensim_load_options_init(&lo);
    *out_st = sensim_scene_load_file(s, path, &lo, NULL);
    if (*out_st == SENSIM_OK)
        CHECK_OK(sensim_scene_commit(s));
    return s;
}

/* A 2 x 2 texture on a 10 m x 10 m wall 10 m ahead: with ambient light only
 * (ambient 1) every pixel is its texel exactly, upright (row 0 of the PNG at
 * v = 1); a Kd-only material shows Kd; lidars see the same as without MTL. */
static void test_textures(void **state)
{
    (void)state;
    char d[] = "/tmp/sensim_tex_XXXXXX", p[256];
    assert_non_null(mkdtemp(d));
    const uint8_t tex[12] = {255, 0, 0, 0, 255, 0, /* top: red, green */ 0, 0, 255, 255, 255, 255};
    snprintf(p, sizeof p, "%s/checker.png", d);
    CHECK_OK(sensim_write_png(p, 2, 2, 3, 8, tex, 6));
    snprintf(p, sizeof p, "%s/wall.mtl", d);
    write_text(p, "# materials\nnewmtl painted\nKd 1 1 1\nmap_Kd -s 1 1 1 checker.png\nnewmtl plain\n"
                  "Kd 0.5 0.25 0\nKs 1 1 1\n");
    const char *geo = "v 10 5 -5\nv 10 -5 -5\nv 10 -5 5\nv 10 5 5\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                      "v 10 -30 -50\nv 10 -30 50\nv 10 -60 0\n";
    char obj[1024];
    snprintf(obj, sizeof obj, "mtllib wall.mtl\n%susemtl painted\nf 1/1 2/2 3/3 4/4\nusemtl plain\nf 5 6 7\n", geo);
    snprintf(p, sizeof p, "%s/wall.obj", d);
    write_text(p, obj);
    sensim_status st;
    sensim_scene *s = load_obj_scene(p, &st);
    CHECK_OK(st);
    sensim_camera *c = make_camera("carla_default", (const char *const[]){"width", "20", "height", "20", "ambient",
                                                                          "1", "sun_elevation_deg", "0", NULL});
    uint8_t rgb[20 * 20 * 3];
    sensim_camera_images im = {.rgb = rgb};
    sensim_pose_key key;
    sensim_motion m = still(&key, 0, 0, 0);
    CHECK_OK(sensim_camera_render(c, s, &m, 0, &im, NULL));
    const struct { int x, y; uint8_t r, g, b; } want[] = {
        {6, 6, 255, 0, 0}, {13, 6, 0, 255, 0}, {6, 13, 0, 0, 255}, {13, 13, 255, 255, 255}};
    for (int k = 0; k < 4; k++) {
        const uint8_t *px = &rgb[3 * (want[k].y * 20 + want[k].x)];
        assert_int_equal(px[0], want[k].r);
        assert_int_equal(px[1], want[k].g);
        assert_int_equal(px[2], want[k].b);
    }
    /* the Kd-only triangle (image left edge region, y = -30..-60 is image right): Kd decoded */
    sensim_camera_destroy(c);
    c = make_camera("carla_default", (const char *const[]){"width", "20", "height", "20", "ambient", "1",
                                                           "sun_elevation_deg", "0", "fov", "160", NULL});
    CHECK_OK(sensim_camera_render(c, s, &m, 0, &im, NULL));
    const uint8_t *px = &rgb[3 * (10 * 20 + 17)];
    const double kd[3] = {0.5, 0.25, 0.0};
    for (int q = 0; q < 3; q++) {
        double v = px[q] / 255.0, lin = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
        assert_true(fabs(lin - kd[q]) < 0.006);
    }
    /* lidars do not see appearances: the same points as the bare geometry */
    char bare[256];
    snprintf(bare, sizeof bare, "%s/bare.obj", d);
    snprintf(obj, sizeof obj, "%susemtl painted\nf 1 2 3 4\nusemtl plain\nf 5 6 7\n", geo);
    write_text(bare, obj);
    sensim_scene *s2 = load_obj_scene(bare, &st);
    CHECK_OK(st);
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &l));
    sensim_ring *r1 = test_ring(100000, 2, SENSIM_OVERFLOW_FAIL), *r2 = test_ring(100000, 2, SENSIM_OVERFLOW_FAIL);
    CHECK_OK(sensim_lidar_scan(l, s, 0, 100000000, key.pose, r1, NULL));
    sensim_lidar_destroy(l);
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", NULL, 0, &l));
    CHECK_OK(sensim_lidar_scan(l, s2, 0, 100000000, key.pose, r2, NULL));
    static sensim_point a[100000], b[100000];
    uint64_t na, nb;
    CHECK_OK(sensim_ring_pop(r1, NULL, a, 100000, &na));
    CHECK_OK(sensim_ring_pop(r2, NULL, b, 100000, &nb));
    assert_true(na > 100);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na * sizeof *a);
    sensim_lidar_destroy(l);
    free(r1), free(r2);
    sensim_scene_destroy(s2);
    sensim_scene_destroy(s);
    sensim_camera_destroy(c);

    /* hostile files: each refused with the file and line, the scene untouched */
    const struct { const char *mtl, *obj_extra, *msg; sensim_status st; } bad[] = {
        {"newmtl painted\nKd 2 0 0\n", "", "wall.mtl:2", SENSIM_ERR_OUT_OF_RANGE},
        {"newmtl painted\nKd nan 0 0\n", "", "wall.mtl:2", SENSIM_ERR_NOT_FINITE},
        {"Kd 1 1 1\n", "", "wall.mtl:1", SENSIM_ERR_PARSE},
        {"newmtl painted\n", "f 1/9 2/2 3/3\n", "texture coordinate index 9", SENSIM_ERR_BAD_INDEX},
        {"newmtl painted\n", "vt 1 2 3 4\n", "vt needs 1 to 3 numbers", SENSIM_ERR_PARSE},
        {"newmtl painted\n", "vt 1e9\n", "vt component 1", SENSIM_ERR_OUT_OF_RANGE},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(p, sizeof p, "%s/wall.mtl", d);
        write_text(p, bad[k].mtl);
        snprintf(obj, sizeof obj, "mtllib wall.mtl\n%susemtl painted\nf 1/1 2/2 3/3 4/4\n%s", geo, bad[k].obj_extra);
        snprintf(p, sizeof p, "%s/wall.obj", d);
        write_text(p, obj);
        s = load_obj_scene(p, &st);
        if (st != bad[k].st || !strstr(sensim_context_last_error(NULL), bad[k].msg))
            fail_msg("case %zu: %s: %s", k, sensim_status_string(st), sensim_context_last_error(NULL));
        sensim_scene_info info;
        CHECK_OK(sensim_scene_get_info(s, &info));
        assert_int_equal(info.mesh_count, 0);
        sensim_scene_destroy(s);
    }
    /* files that are not there or not PNGs: the geometry loads, Kd is used, the loss is counted */
    snprintf(p, sizeof p, "%s/wall.mtl", d);
    write_text(p, "newmtl painted\nKd 0 1 0\nmap_Kd missing.png\nnewmtl other\nmap_Kd wall.obj\n");
    snprintf(p, sizeof p, "%s/wall.obj", d);
    snprintf(obj, sizeof obj, "mtllib nowhere.mtl wall.mtl\n%susemtl painted\nf 1/1 2/2 3/3 4/4\nusemtl other\n"
                              "f 5 6 7\n", geo);
    write_text(p, obj);
    s = load_obj_scene(p, &st);
    CHECK_OK(st);
    sensim_scene_info si;
    CHECK_OK(sensim_scene_get_info(s, &si));
    assert_int_equal(si.material_files_missing, 1);
    assert_int_equal(si.textures_skipped, 2);
    c = make_camera("carla_default", (const char *const[]){"width", "20", "height", "20", "ambient", "1",
                                                           "sun_elevation_deg", "0", NULL});
    CHECK_OK(sensim_camera_render(c, s, &m, 0, &im, NULL));
    assert_int_equal(rgb[3 * (10 * 20 + 10)], 0); /* Kd (0, 1, 0) without its texture */
    assert_int_equal(rgb[3 * (10 * 20 + 10) + 1], 255);
    sensim_camera_destroy(c);
    sensim_scene_destroy(s);
    /* the C API: colours in [0, 1], sizes with texels, reserved zero */
    CHECK_OK(sensim_scene_create(ctx, &s));
    sensim_appearance ap = {.base_color = {0.2f, 0.3f, 0.4f}};
    CHECK_OK(sensim_scene_set_material_appearance(s, 3, &ap));
    ap.base_color[1] = 1.5f;
    assert_int_equal(sensim_scene_set_material_appearance(s, 3, &ap), SENSIM_ERR_OUT_OF_RANGE);
    ap.base_color[1] = NAN;
    assert_int_equal(sensim_scene_set_material_appearance(s, 3, &ap), SENSIM_ERR_NOT_FINITE);
    ap.base_color[1] = 0.5f, ap.texture = tex, ap.texture_width = 0, ap.texture_height = 2;
    assert_int_equal(sensim_scene_set_material_appearance(s, 3, &ap), SENSIM_ERR_OUT_OF_RANGE);
    ap.texture = NULL;
    assert_int_equal(sensim_scene_set_material_appearance(s, 3, &ap), SENSIM_ERR_INVALID_ARGUMENT);
    ap.texture_height = 0;
    assert_int_equal(sensim_scene_set_material_appearance(s, 0, &ap), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_scene_set_material_appearance(s, 3, NULL), SENSIM_ERR_INVALID_ARGUMENT);
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    const float v3[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, uvbad[6] = {0, 0, 1, 0, NAN, 1};
    const uint32_t i3[3] = {0, 1, 2};
    md.vertices = v3, md.vertex_count = 3, md.indices = i3, md.triangle_count = 1, md.triangle_uvs = uvbad;
    uint32_t mid;
    assert_int_equal(sensim_scene_add_mesh(s, &md, &mid), SENSIM_ERR_NOT_FINITE);
    sensim_scene_destroy(s);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    assert_int_equal(system(cmd), 0);
}

/* The depth/label path (packets written in place, no normals) gives the
 * bytes of the full path on a scene with a static, a parked and a moving
 * actor, global and rolling shutter, pinhole and fisheye. */
static void test_label_path_equals_full_path(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_wall(s, 30.0f, 100.0f, 4);
    const float lo[3] = {-1, -1, 0}, hi[3] = {1, 1, 1.5f};
    uint32_t box = add_box(s, lo, hi, 14, SENSIM_MESH_PROTOTYPE);
    double a0[16], a1[16], a2[16];
    translation(a0, 12, 3, -1), translation(a1, 15, -4, -1), translation(a2, 10, 6, -1);
    CHECK_OK(sensim_scene_add_actor(s, box, 7, a0));
    CHECK_OK(sensim_scene_add_actor(s, box, 9, a1));
    CHECK_OK(sensim_scene_set_motion_interval(s, 0, 100000000));
    CHECK_OK(sensim_scene_set_actor_motion(s, 9, a1, a2));
    CHECK_OK(sensim_scene_commit(s));
    const char *const cams[3][8] = {{"carla_default", "width", "160", "height", "120", NULL},
                                    {"carla_default", "width", "160", "height", "120", "row_readout_ns", "500000", NULL},
                                    {"fisheye_190", "width", "160", "height", "120", NULL}};
    for (int k = 0; k < 3; k++) {
        sensim_camera *c = make_camera(cams[k][0], cams[k] + 1);
        enum { PX = 160 * 120 };
        static float d1[PX], d2[PX], nrm[3 * PX];
        static uint8_t s1[PX], s2[PX];
        static uint32_t i1[PX], i2[PX];
        sensim_camera_images fast = {.depth = d1, .semantic = s1, .instance = i1};
        sensim_camera_images full = {.depth = d2, .semantic = s2, .instance = i2, .normal = nrm};
        sensim_pose_key key;
        sensim_motion m = still(&key, 0, 0, 0.5);
        CHECK_OK(sensim_camera_render(c, s, &m, 30000000, &fast, NULL));
        CHECK_OK(sensim_camera_render(c, s, &m, 30000000, &full, NULL));
        assert_memory_equal(d1, d2, sizeof d1);
        assert_memory_equal(s1, s2, sizeof s1);
        assert_memory_equal(i1, i2, sizeof i1);
        int seen7 = 0, seen9 = 0;
        for (int p = 0; p < PX; p++)
            seen7 |= i1[p] == 7, seen9 |= i1[p] == 9;
        assert_true(seen7 && seen9);
        sensim_camera_destroy(c);
    }
    sensim_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wall_depth),        cmocka_unit_test(test_sphere_silhouette),
        cmocka_unit_test(test_lens_closed_forms), cmocka_unit_test(test_fisheye_wall),
        cmocka_unit_test(test_rolling_shutter),   cmocka_unit_test(test_lidar_camera_agree),
        cmocka_unit_test(test_shading_and_thread_invariance), cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_rig_camera),        cmocka_unit_test(test_image_ring_overflow),
        cmocka_unit_test(test_image_ring_misuse), cmocka_unit_test(test_textures),
        cmocka_unit_test(test_label_path_equals_full_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
