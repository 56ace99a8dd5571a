/* Analytic geometry: rings on a plane, a closed box, a sphere, instances. */
#include "helpers.h"

#define PI 3.14159265358979323846

TEST_GROUP_FIXTURE(0, 0)

/* Scan exactly one frame [0, P) and copy its points out. */
static sensim_point *scan_frame(sensim_lidar *l, sensim_scene *s, const double pose[16], uint64_t *n,
                                sensim_frame_header *hdr)
{
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    sensim_ring *r = test_ring(li.shots_per_frame, 2, SENSIM_OVERFLOW_FAIL);
    CHECK_OK(sensim_lidar_scan(l, s, 0, li.frame_period_ns, pose, r, NULL));
    sensim_point *pts = malloc(li.shots_per_frame * sizeof *pts + 1);
    CHECK_OK(sensim_ring_pop(r, hdr, pts, li.shots_per_frame, n));
    free(r);
    return pts;
}

static void rings_on_plane(const char *preset, double h)
{
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 3000.0f, 1);
    CHECK_OK(sensim_scene_commit(s));
    sensim_lidar *l;
    /* pure geometry: a thin noiseless beam, and every ring complete, so
     * detection keeps weak grazing hits */
    const char *sets[] = {"dropoff_model=none", "beam=ideal", "min_range_m=0"};
    CHECK_OK(sensim_lidar_create_from_preset(ctx, preset, sets, 3, &l));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    float el[1024];
    uint32_t nch;
    CHECK_OK(sensim_lidar_get_elevations(l, el, 1024, &nch));
    double pose[16];
    translation(pose, 0, 0, h);
    uint64_t n;
    sensim_frame_header hdr;
    sensim_point *p = scan_frame(l, s, pose, &n, &hdr);
    uint64_t *count = calloc(nch, sizeof *count);
    double worst = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint16_t c = p[i].channel;
        assert_true(c < nch);
        assert_true(el[c] < 0.0f); /* only down-looking channels can hit the plane */
        /* range from the beam origin (in the sensor's xy plane) to the plane */
        double expect = h / sin(-(double)el[c]);
        double err = fabs(p[i].range_m - expect);
        if (err > worst)
            worst = err;
        assert_true(err < 1e-3);
        assert_true(fabs(p[i].z + h) < 1e-3); /* sensor frame: plane at z = -h */
        assert_int_equal(p[i].tag, 1);
        assert_int_equal(p[i].object_id, 0);
        count[c]++;
    }
    /* every down-looking ring within range is complete (free-running firing
     * puts floor or ceil of P / column period columns in a frame); the others
     * are empty */
    double cols = li.shots_per_s / nch / li.frame_rate_hz;
    for (uint32_t c = 0; c < nch; c++) {
        double slant = el[c] < 0 ? h / sin(-(double)el[c]) : INFINITY;
        if (slant < li.max_range_m * 0.999)
            assert_true(count[c] >= (uint64_t)floor(cols) && count[c] <= (uint64_t)ceil(cols));
        else if (slant > li.max_range_m * 1.001)
            assert_int_equal(count[c], 0);
    }
    printf("# %s at %.1f m: %llu points, worst ring radius error %.2e m\n", preset, h, (unsigned long long)n,
           worst);
    free(count);
    free(p);
    sensim_lidar_destroy(l);
    sensim_scene_destroy(s);
}

static void test_rings_vlp16(void **state)
{
    (void)state;
    rings_on_plane("vlp16", 2.0);
}

static void test_rings_pandar64(void **state)
{
    (void)state;
    rings_on_plane("pandar64", 1.8);
}

static void test_rings_os1_64(void **state)
{
    (void)state;
    rings_on_plane("os1_64", 3.0);
}

/* Inside a closed box every shot returns: exactly shots-per-frame points,
 * and for any interval exactly sensim_lidar_count_shots points. */
static void test_closed_box(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {-10, -12, -5}, hi[3] = {11, 9, 7};
    add_box(s, lo, hi, 3, 0);
    CHECK_OK(sensim_scene_commit(s));
    sensim_lidar *l;
    const char *ideal[] = {"dropoff_model=none"};
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar128", ideal, 1, &l));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    double pose[16];
    translation(pose, 0.3, -0.2, 0.1);
    uint64_t n;
    sensim_frame_header hdr;
    sensim_point *p = scan_frame(l, s, pose, &n, &hdr);
    uint64_t shots;
    CHECK_OK(sensim_lidar_count_shots(l, 0, li.frame_period_ns, &shots));
    assert_int_equal(n, shots);
    /* free-running 55.556 us columns: 1799.99 per revolution, so 1799 or 1800 */
    assert_true(n >= 128u * 1799u && n <= 128u * 1800u && n <= li.shots_per_frame);
    assert_int_equal(hdr.point_count, n);
    assert_int_equal(hdr.lost_points, 0);
    assert_int_equal(hdr.flags & SENSIM_FRAME_PARTIAL, 0);
    /* every point lies on a face of the box (sensor at 0.3, -0.2, 0.1) */
    for (uint64_t i = 0; i < n; i++) {
        double x = p[i].x + 0.3, y = p[i].y - 0.2, z = p[i].z + 0.1;
        double d = fmin(fmin(fabs(x - lo[0]), fabs(x - hi[0])),
                        fmin(fmin(fabs(y - lo[1]), fabs(y - hi[1])), fmin(fabs(z - lo[2]), fabs(z - hi[2]))));
        assert_true(d < 1e-3);
        assert_true(fabs(sqrt((double)p[i].x * p[i].x + (double)p[i].y * p[i].y + (double)p[i].z * p[i].z) -
                         p[i].range_m) < 1e-3);
        assert_int_equal(p[i].tag, 3);
    }
    free(p);
    /* arbitrary intervals */
    const int64_t cuts[][2] = {{0, 1}, {12345, 67890}, {99999999, 100000001}, {50000000, 250000000}};
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        sensim_lidar *l2;
        const char *all[] = {"dropoff_model=none", "min_range_m=0"};
        CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", all, 2, &l2));
        sensim_ring *r = test_ring(2000000, 8, SENSIM_OVERFLOW_FAIL);
        sensim_scan_result res;
        CHECK_OK(sensim_lidar_scan(l2, s, cuts[k][0], cuts[k][1], pose, r, &res));
        uint64_t expect;
        CHECK_OK(sensim_lidar_count_shots(l2, cuts[k][0], cuts[k][1], &expect));
        assert_int_equal(res.shots, expect);
        assert_int_equal(res.points, expect);
        free(r);
        sensim_lidar_destroy(l2);
    }
    sensim_lidar_destroy(l);
    sensim_scene_destroy(s);
}

/* UV sphere of radius r centred at (d, 0, 0) with a pole facing the sensor. */
static void add_sphere(sensim_scene *s, double d, double r, int nlat, int nlon, uint8_t tag)
{
    int nv = (nlat - 1) * nlon + 2;
    float *v = malloc((size_t)nv * 3 * sizeof *v);
    uint32_t *idx = malloc((size_t)nlon * (nlat - 1) * 6 * sizeof *idx);
    int k = 0;
    /* pole A at (d - r) facing the sensor, pole B at (d + r); axis = x */
    v[k++] = (float)(d - r), v[k++] = 0, v[k++] = 0;
    for (int i = 1; i < nlat; i++) {
        double th = PI * i / nlat;
        for (int j = 0; j < nlon; j++) {
            double ph = 2 * PI * j / nlon;
            v[k++] = (float)(d - r * cos(th));
            v[k++] = (float)(r * sin(th) * cos(ph));
            v[k++] = (float)(r * sin(th) * sin(ph));
        }
    }
    v[k++] = (float)(d + r), v[k++] = 0, v[k++] = 0;
    int t = 0;
    for (int j = 0; j < nlon; j++) {
        idx[t++] = 0, idx[t++] = 1 + j, idx[t++] = 1 + (j + 1) % nlon;
    }
    for (int i = 0; i < nlat - 2; i++)
        for (int j = 0; j < nlon; j++) {
            uint32_t a = 1 + i * nlon + j, b = 1 + i * nlon + (j + 1) % nlon, c = a + nlon, e = b + nlon;
            idx[t++] = a, idx[t++] = c, idx[t++] = b;
            idx[t++] = b, idx[t++] = c, idx[t++] = e;
        }
    uint32_t last = (uint32_t)nv - 1, ring = 1 + (nlat - 2) * nlon;
    for (int j = 0; j < nlon; j++) {
        idx[t++] = ring + j, idx[t++] = last, idx[t++] = ring + (j + 1) % nlon;
    }
    sensim_mesh_desc md;
    sensim_mesh_desc_init(&md);
    md.vertices = v;
    md.vertex_count = (uint32_t)nv;
    md.indices = idx;
    md.triangle_count = (uint32_t)t / 3;
    md.tag = tag;
    CHECK_OK(sensim_scene_add_mesh(s, &md, NULL));
    free(v);
    free(idx);
}

static void test_sphere(void **state)
{
    (void)state;
    const double d = 10.0, r = 1.0;
    const int nlat = 90, nlon = 180;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_sphere(s, d, r, nlat, nlon, 22);
    CHECK_OK(sensim_scene_commit(s));
    /* 41 channels from -8 to +8 degrees, 0.1 degree azimuth steps */
    float el[41];
    for (int i = 0; i < 41; i++)
        el[i] = (float)((-8.0 + 0.4 * i) * PI / 180.0);
    sensim_lidar_desc ld;
    sensim_lidar_desc_init(&ld);
    ld.channel_count = 41;
    ld.elevation_rad = el;
    ld.azimuth_resolution_rad = 0.1 * PI / 180.0;
    ld.max_range_m = 50;
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create(ctx, &ld, &l));
    double pose[16];
    identity(pose);
    uint64_t n;
    sensim_frame_header hdr;
    sensim_point *p = scan_frame(l, s, pose, &n, &hdr);
    /* the channel at 0 deg, column 0 (azimuth 0) looks straight at the pole */
    int found_axis = 0;
    double cosmax = cos(PI / nlat); /* faces lie between r·cos(π/nlat) and r from the centre */
    for (uint64_t i = 0; i < n; i++) {
        double dc = sqrt((p[i].x - d) * (p[i].x - d) + (double)p[i].y * p[i].y + (double)p[i].z * p[i].z);
        assert_true(dc <= r + 1e-4);
        assert_true(dc >= r * cosmax * cos(PI / nlon) - 1e-4);
        if (p[i].channel == 20 && p[i].t_offset_ns == 0) {
            found_axis = 1;
            assert_true(fabs(p[i].range_m - (d - r)) < 1e-4);
        }
        /* nothing outside the sphere's angular radius asin(r/d) */
        double ang = acos(p[i].x / p[i].range_m);
        assert_true(ang <= asin(r / d) + 1e-4);
        assert_int_equal(p[i].tag, 22);
    }
    assert_true(found_axis);
    /* every shot well inside the angular radius returns a point */
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    uint8_t *got = calloc((size_t)li.columns_per_frame * 41, 1);
    for (uint64_t i = 0; i < n; i++) {
        /* invert t = floor(k·P/C): k = ceil(t·C/P) */
        int64_t k = ((int64_t)p[i].t_offset_ns * li.columns_per_revolution + li.frame_period_ns - 1) /
                    li.frame_period_ns;
        assert_true(k < (int64_t)li.columns_per_frame);
        got[k * 41 + p[i].channel] = 1;
    }
    uint64_t expect = 0;
    for (uint32_t k = 0; k < li.columns_per_frame; k++) {
        double az = -2 * PI * k / li.columns_per_revolution;
        for (int c = 0; c < 41; c++)
            if (acos(cos(el[c]) * cos(az)) < asin(r / d) - 0.005) {
                expect++;
                assert_true(got[k * 41 + c]);
            }
    }
    assert_true(expect > 1000);
    free(got);
    free(p);
    sensim_lidar_destroy(l);
    sensim_scene_destroy(s);
}

/* Instances carry their actor id and the mesh tag, at their pose. */
static void test_actor_ids_and_tags(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 500.0f, 1);
    const float lo[3] = {-1, -1, 0}, hi[3] = {1, 1, 2};
    uint32_t box = add_box(s, lo, hi, 14, SENSIM_MESH_PROTOTYPE);
    double a[16], b[16];
    translation(a, 10, 0, 0);
    /* actor 42: rotated 45 degrees about z, at (0, -10, 0) */
    identity(b);
    b[0] = cos(PI / 4), b[1] = sin(PI / 4), b[4] = -sin(PI / 4), b[5] = cos(PI / 4);
    b[13] = -10;
    CHECK_OK(sensim_scene_add_actor(s, box, 7, a));
    CHECK_OK(sensim_scene_add_actor(s, box, 42, b));
    assert_int_equal(sensim_scene_add_actor(s, box, 7, a), SENSIM_ERR_DUPLICATE);
    assert_int_equal(sensim_scene_add_actor(s, 99, 8, a), SENSIM_ERR_BAD_INDEX);
    assert_int_equal(sensim_scene_add_actor(s, box, 0, a), SENSIM_ERR_INVALID_ARGUMENT);
    CHECK_OK(sensim_scene_commit(s));
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar64", NULL, 0, &l));
    double pose[16];
    translation(pose, 0, 0, 1.0);
    uint64_t n;
    sensim_frame_header hdr;
    sensim_point *p = scan_frame(l, s, pose, &n, &hdr);
    uint64_t n7 = 0, n42 = 0;
    for (uint64_t i = 0; i < n; i++) {
        double x = p[i].x, y = p[i].y, z = p[i].z + 1.0; /* world */
        if (p[i].object_id == 7) {
            n7++;
            assert_int_equal(p[i].tag, 14);
            assert_true(fabs(x - 9.0) < 1e-3); /* front face at x = 9 */
            assert_true(fabs(y) <= 1.0 + 1e-3 && z >= -1e-3 && z <= 2.0 + 1e-3);
        } else if (p[i].object_id == 42) {
            n42++;
            assert_int_equal(p[i].tag, 14);
            /* rotated square: |u| + |v| faces; in the box frame |bx|,|by| <= 1 */
            double bx = cos(PI / 4) * x + sin(PI / 4) * (y + 10), by = -sin(PI / 4) * x + cos(PI / 4) * (y + 10);
            assert_true(fabs(bx) <= 1.0 + 1e-3 && fabs(by) <= 1.0 + 1e-3);
            assert_true(fabs(fabs(bx) - 1.0) < 1e-3 || fabs(fabs(by) - 1.0) < 1e-3 || fabs(z - 2.0) < 1e-3);
        } else {
            assert_int_equal(p[i].object_id, 0);
            assert_int_equal(p[i].tag, 1);
        }
    }
    assert_true(n7 > 100);
    assert_true(n42 > 100);
    free(p);

    /* move actor 7 behind the sensor: edits need a commit before scanning */
    translation(a, -10, 0, 0);
    CHECK_OK(sensim_scene_set_actor_pose(s, 7, a));
    sensim_ring *r = test_ring(200000, 2, SENSIM_OVERFLOW_FAIL);
    sensim_lidar *l2;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "pandar64", NULL, 0, &l2));
    assert_int_equal(sensim_lidar_scan(l2, s, 0, 1000, pose, r, NULL), SENSIM_ERR_NOT_COMMITTED);
    CHECK_OK(sensim_scene_commit(s));
    p = scan_frame(l2, s, pose, &n, &hdr);
    n7 = 0;
    for (uint64_t i = 0; i < n; i++)
        if (p[i].object_id == 7) {
            n7++;
            assert_true(fabs(p[i].x + 9.0) < 1e-3);
        }
    assert_true(n7 > 100);
    CHECK_OK(sensim_scene_remove_actor(s, 7));
    assert_int_equal(sensim_scene_remove_actor(s, 7), SENSIM_ERR_NOT_FOUND);
    free(p);
    free(r);
    sensim_lidar_destroy(l);
    sensim_lidar_destroy(l2);
    sensim_scene_destroy(s);
}

/* A sector lidar fires only inside its FOV; a mount pose rotates the sensor. */
static void test_sector_and_mount(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {-20, -20, -20}, hi[3] = {20, 20, 20};
    add_box(s, lo, hi, 4, 0);
    CHECK_OK(sensim_scene_commit(s));
    const char *sets[] = {"hfov_deg=90", "start_azimuth_deg=45", "spin=cw", "column_period_ns=0",
                          "shots_per_s=300000", "beam=ideal", "dropoff_model=none"};
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", sets, 7, &l));
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    assert_int_equal(li.columns_per_frame, (li.columns_per_revolution + 3) / 4);
    double pose[16];
    identity(pose);
    uint64_t n;
    sensim_frame_header hdr;
    sensim_point *p = scan_frame(l, s, pose, &n, &hdr);
    assert_int_equal(n, li.shots_per_frame);
    for (uint64_t i = 0; i < n; i++) {
        double az = atan2(p[i].y, p[i].x) * 180 / PI;
        assert_true(az <= 45.0 + 1e-3 && az >= -45.0 - 1e-3);
    }
    free(p);
    sensim_lidar_destroy(l);

    /* the same sector mounted with yaw +90 deg on a platform at (1, 2, 3):
     * sensor-frame points are unchanged, the header pose carries the mount,
     * and in the world the sector is centred on +y */
    const char *sets2[] = {"hfov_deg=90",         "start_azimuth_deg=45", "mount_rpy_deg=0,0,90", "mount_xyz_m=0.5,0,0",
                           "column_period_ns=0",  "shots_per_s=300000",   "beam=ideal",           "dropoff_model=none"};
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", sets2, 8, &l));
    double plat[16];
    translation(plat, 1, 2, 3);
    uint64_t n2;
    sensim_point *p2 = scan_frame(l, s, plat, &n2, &hdr);
    assert_int_equal(n2, n);
    const double *S = hdr.sensor_pose;
    assert_true(fabs(S[12] - 1.5) < 1e-12 && fabs(S[13] - 2.0) < 1e-12 && fabs(S[14] - 3.0) < 1e-12);
    assert_true(fabs(S[0]) < 1e-12 && fabs(S[1] - 1.0) < 1e-12); /* sensor x axis = world y */
    for (uint64_t i = 0; i < n2; i++) {
        double wx = S[0] * p2[i].x + S[4] * p2[i].y + S[8] * p2[i].z + S[12];
        double wy = S[1] * p2[i].x + S[5] * p2[i].y + S[9] * p2[i].z + S[13];
        double wz = S[2] * p2[i].x + S[6] * p2[i].y + S[10] * p2[i].z + S[14];
        double az = atan2(wy - 2.0, wx - 1.5) * 180 / PI;
        assert_true(az >= 45.0 - 1e-3 && az <= 135.0 + 1e-3);
        /* on a face of the [-20, 20]^3 box */
        double m = fmax(fabs(wx), fmax(fabs(wy), fabs(wz)));
        assert_true(fabs(m - 20.0) < 1e-3);
    }
    free(p2);
    sensim_lidar_destroy(l);
    sensim_scene_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rings_vlp16),        cmocka_unit_test(test_rings_pandar64),
        cmocka_unit_test(test_rings_os1_64),       cmocka_unit_test(test_closed_box),
        cmocka_unit_test(test_sphere),             cmocka_unit_test(test_actor_ids_and_tags),
        cmocka_unit_test(test_sector_and_mount),
    };
    return cmocka_run_group_tests_name("geometry", tests, setup, teardown);
}
