/* Placement measures (sensim/placement.h) against answers known in advance:
 * synthetic grids, the rings of a lidar on a plane, a wall hiding half the
 * ROI, a box hidden behind another. */
#include "helpers.h"

#include <unistd.h>

TEST_GROUP_FIXTURE(2, 0)

static sensim_roi_desc roi(double x0, double y0, double x1, double y1, double cell)
{
    sensim_roi_desc d;
    sensim_roi_desc_init(&d);
    d.xmin = x0, d.ymin = y0, d.xmax = x1, d.ymax = y1, d.cell_m = cell;
    return d;
}

/* Grids whose measures are known: one point per cell, all in one cell. */
static void test_grid_measures(void **state)
{
    (void)state;
    sensim_roi_desc d = roi(0, 0, 10, 5, 1);
    uint32_t nx, ny, cells[50];
    CHECK_OK(sensim_roi_grid_size(&d, &nx, &ny));
    assert_int_equal(nx, 10);
    assert_int_equal(ny, 5);
    sensim_point p[52];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 50; i++)
        p[i].x = (float)(i % 10) + 0.5f, p[i].y = (float)(i / 10) + 0.5f;
    p[50].x = NAN, p[50].y = 1;   /* skipped */
    p[51].x = 10.0f, p[51].y = 1; /* xmax is outside */
    memset(cells, 0, sizeof cells);
    uint64_t added;
    CHECK_OK(sensim_roi_accumulate(&d, p, 52, cells, &added));
    assert_int_equal(added, 50);
    sensim_roi_metrics m;
    CHECK_OK(sensim_roi_evaluate(&d, cells, &m));
    assert_int_equal(m.points, 50);
    assert_double_close(m.density_per_m2, 1.0, 0);
    assert_double_close(m.cell_cv, 0.0, 0);
    assert_double_close(m.coverage, 1.0, 0);
    assert_double_close(m.nuc, 0.0, 1e-12); /* every disk holds its share exactly */
    /* all 50 points in one cell: cv = sqrt(cells - 1), coverage 1/cells */
    for (int i = 0; i < 50; i++)
        p[i].x = 2.5f, p[i].y = 3.5f;
    memset(cells, 0, sizeof cells);
    CHECK_OK(sensim_roi_accumulate(&d, p, 50, cells, NULL));
    CHECK_OK(sensim_roi_evaluate(&d, cells, &m));
    assert_double_close(m.cell_cv, sqrt(49.0), 1e-12);
    assert_double_close(m.coverage, 1.0 / 50, 0);
    assert_true(m.nuc > 1.0);
    /* k = 2 points for a covered cell */
    d.min_points = 51;
    CHECK_OK(sensim_roi_evaluate(&d, cells, &m));
    assert_double_close(m.coverage, 0.0, 0);
    d.min_points = 1;
    /* nothing: cv infinite, NUC undefined, coverage 0 */
    memset(cells, 0, sizeof cells);
    CHECK_OK(sensim_roi_evaluate(&d, cells, &m));
    assert_true(isinf(m.cell_cv) && isnan(m.nuc) && m.coverage == 0 && m.points == 0);
    /* saturation is counted, never wrapped */
    cells[0] = UINT32_MAX;
    p[0].x = 0.5f, p[0].y = 0.5f;
    assert_int_equal(sensim_roi_accumulate(&d, p, 1, cells, &added), SENSIM_ERR_OVERRUN);
    assert_int_equal(cells[0], UINT32_MAX);
    assert_int_equal(added, 0);
    /* information gain: entropy of the observed cells (2 x 1 grid, the first observed) */
    {
        sensim_roi_desc g = roi(0, 0, 2, 1, 1);
        uint32_t gc[2] = {3, 0};
        float prior[2] = {0.5f, 0.1f}, certain[2] = {0, 1}, nan_p[2] = {NAN, 0}, big[2] = {0, 1.5f};
        double bits, share, h01 = -0.1 * log2(0.1f) - 0.9 * log2(1 - 0.1f);
        CHECK_OK(sensim_roi_information_gain(&g, gc, prior, &bits, &share));
        assert_double_close(bits, 1.0, 1e-12);
        assert_double_close(share, 1.0 / (1.0 + h01), 1e-6);
        CHECK_OK(sensim_roi_information_gain(&g, gc, NULL, &bits, &share)); /* 0.5 everywhere */
        assert_double_close(bits, 1.0, 0);
        assert_double_close(share, 0.5, 0);
        CHECK_OK(sensim_roi_information_gain(&g, gc, certain, &bits, &share)); /* nothing to learn */
        assert_true(bits == 0 && share == 0);
        assert_int_equal(sensim_roi_information_gain(&g, gc, nan_p, &bits, &share), SENSIM_ERR_NOT_FINITE);
        assert_int_equal(sensim_roi_information_gain(&g, gc, big, &bits, &share), SENSIM_ERR_OUT_OF_RANGE);
    }
    /* hostile descriptions */
    sensim_roi_desc bad = d;
    bad.xmax = bad.xmin;
    assert_int_equal(sensim_roi_grid_size(&bad, &nx, &ny), SENSIM_ERR_OUT_OF_RANGE);
    bad = d, bad.cell_m = NAN;
    assert_int_equal(sensim_roi_grid_size(&bad, &nx, &ny), SENSIM_ERR_NOT_FINITE);
    bad = d, bad.cell_m = 1e-6;
    assert_int_equal(sensim_roi_grid_size(&bad, &nx, &ny), SENSIM_ERR_TOO_LARGE);
    bad = d, bad.reserved[1] = 1;
    assert_int_equal(sensim_roi_grid_size(&bad, &nx, &ny), SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_roi_evaluate(&d, NULL, &m), SENSIM_ERR_INVALID_ARGUMENT);
}

/* Scan [0, one frame) from @p pose into a fresh grid of @p d and count box points. */
static uint64_t scan_grid(sensim_lidar *l, const sensim_scene *s, const double pose[16], const sensim_roi_desc *d,
                          uint32_t *cells, size_t ncell, const double *boxes, uint32_t nb, uint32_t *bpts)
{
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    uint64_t cap;
    size_t size;
    CHECK_OK(sensim_lidar_ring_size(l, 2, &cap, &size));
    void *mem = malloc(size);
    sensim_ring *ring;
    CHECK_OK(sensim_ring_init(mem, size, cap, 2, SENSIM_OVERFLOW_FAIL, &ring));
    CHECK_OK(sensim_lidar_scan(l, s, 0, li.frame_period_ns, pose, ring, NULL));
    memset(cells, 0, ncell * sizeof *cells);
    if (nb)
        memset(bpts, 0, nb * sizeof *bpts);
    uint64_t total = 0;
    sensim_frame_view v;
    while (sensim_ring_peek(ring, &v) == SENSIM_OK) {
        for (int k = 0; k < 2; k++) {
            uint64_t a;
            CHECK_OK(sensim_roi_accumulate(d, v.points[k], v.counts[k], cells, &a));
            total += a;
            if (nb)
                CHECK_OK(sensim_boxes_count(boxes, nb, v.points[k], v.counts[k], bpts));
        }
        sensim_ring_release(ring);
    }
    free(mem);
    return total;
}

static sensim_lidar *ideal_lidar(const char *preset)
{
    const char *sets[] = {"points_frame=world", "beam=ideal", "dropoff_model=none", "range_noise_stddev_m=0"};
    sensim_lidar *l;
    CHECK_OK(sensim_lidar_create_from_preset(ctx, preset, sets, 4, &l));
    return l;
}

/* A VLP-16 2 m over an empty plane: channel c draws a ring of radius
 * 2 / tan(-elevation_c) with one point per column. In a 50 x 50 m ROI the
 * rings of -15 .. -5 deg (radii 7.5 .. 22.9 m) lie whole, the -3 deg ring
 * (38.2 m) entirely outside the square's corners (35.4 m): the ROI holds
 * exactly 6 x columns points, and each ring's cells sit at its radius. */
static void test_ring_density_law(void **state)
{
    (void)state;
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    add_plane(s, 500.0f, 1);
    CHECK_OK(sensim_scene_commit(s));
    sensim_lidar *l = ideal_lidar("vlp16");
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    uint64_t shots;
    CHECK_OK(sensim_lidar_count_shots(l, 0, li.frame_period_ns, &shots));
    const uint64_t columns = shots / 16;
    sensim_roi_desc d = roi(-25, -25, 25, 25, 1);
    uint32_t *cells = calloc(2500, sizeof *cells);
    double pose[16];
    translation(pose, 0, 0, 2);
    uint64_t n = scan_grid(l, s, pose, &d, cells, 2500, NULL, 0, NULL);
    /* the VLP-16 runs free (55.296 us columns): a frame holds 1808 whole columns and part of the next */
    if (!(n >= 6 * columns && n <= 6 * (columns + 1)))
        fail_msg("%llu points in the ROI, expected 6 x %llu columns (+ up to 6 of a partial column)",
                 (unsigned long long)n, (unsigned long long)columns);
    sensim_roi_metrics m;
    CHECK_OK(sensim_roi_evaluate(&d, cells, &m));
    assert_double_close(m.density_per_m2, (double)n / 2500.0, 1e-12);
    /* no point nearer than the -15 deg ring, none between rings: every occupied cell's centre
     * lies within a cell diagonal of one of the six radii */
    const double el[6] = {15, 13, 11, 9, 7, 5};
    for (uint32_t j = 0; j < 50; j++)
        for (uint32_t i = 0; i < 50; i++) {
            if (!cells[j * 50 + i])
                continue;
            double cx = -25 + (double)i + 0.5, cy = -25 + (double)j + 0.5, r = hypot(cx, cy), best = 1e9;
            for (int c = 0; c < 6; c++)
                best = fmin(best, fabs(r - 2 / tan(el[c] * M_PI / 180)));
            if (best > 0.75)
                fail_msg("cell (%u, %u) at %.2f m holds %u points off every ring", i, j, r, cells[j * 50 + i]);
        }
    sensim_lidar_destroy(l);
    free(cells);
    sensim_scene_destroy(s);
}

/* A tall wall along y = 1 hides the y > 1 part of the ROI: coverage of
 * ground points (z <= 0.5) falls to the share of the ROI on the sensor's
 * side, 21 of 40 rows (tolerance: the rings' cells do not tile the rows
 * exactly, 0.03). */
static void test_wall_halves_coverage(void **state)
{
    (void)state;
    double cov[2];
    for (int wall = 0; wall < 2; wall++) {
        sensim_scene *s;
        CHECK_OK(sensim_scene_create(ctx, &s));
        add_plane(s, 500.0f, 1);
        if (wall) {
            const float lo[3] = {-100, 1, 0}, hi[3] = {100, 1.2f, 30};
            add_box(s, lo, hi, 3, 0);
        }
        CHECK_OK(sensim_scene_commit(s));
        sensim_lidar *l = ideal_lidar("pandar64");
        sensim_roi_desc d = roi(-20, -20, 20, 20, 1);
        d.zmin = -0.5, d.zmax = 0.5;
        uint32_t *cells = calloc(1600, sizeof *cells);
        double pose[16];
        translation(pose, 0, 0, 2);
        scan_grid(l, s, pose, &d, cells, 1600, NULL, 0, NULL);
        sensim_roi_metrics m;
        CHECK_OK(sensim_roi_evaluate(&d, cells, &m));
        cov[wall] = m.coverage;
        if (wall) /* no ground point beyond the wall */
            for (uint32_t j = 22; j < 40; j++)
                for (uint32_t i = 0; i < 40; i++)
                    assert_int_equal(cells[j * 40 + i], 0);
        free(cells);
        sensim_lidar_destroy(l);
        sensim_scene_destroy(s);
    }
    assert_true(cov[0] > 0.3);
    assert_double_close(cov[1] / cov[0], 21.0 / 40.0, 0.03);
}

/* Box B stands right behind box A: A is visible, B occluded (the beams
 * reach it, nothing comes back); C hangs far above the sensor's vertical
 * field of view: out of view (no beam reaches it). With A gone, B is
 * visible. */
static void test_box_occlusion(void **state)
{
    (void)state;
    const double boxes[18] = {8, -1, 0, 9, 1, 2, 14, -1, 0, 15, 1, 2, -1, -1, 60, 1, 1, 61};
    for (int with_a = 1; with_a >= 0; with_a--) {
        sensim_scene *s;
        CHECK_OK(sensim_scene_create(ctx, &s));
        add_plane(s, 500.0f, 1);
        for (int b = with_a ? 0 : 1; b < 3; b++) { /* A is an actor (id 7), B and C static world */
            const float lo[3] = {(float)boxes[6 * b], (float)boxes[6 * b + 1], (float)boxes[6 * b + 2]},
                        hi[3] = {(float)boxes[6 * b + 3], (float)boxes[6 * b + 4], (float)boxes[6 * b + 5]};
            uint32_t mesh = add_box(s, lo, hi, 14, b == 0 ? SENSIM_MESH_PROTOTYPE : 0);
            double I[16];
            identity(I);
            if (b == 0)
                CHECK_OK(sensim_scene_add_actor(s, mesh, 7, I));
        }
        CHECK_OK(sensim_scene_commit(s));
        sensim_lidar *l = ideal_lidar("vlp16");
        sensim_lidar_info li;
        CHECK_OK(sensim_lidar_get_info(l, &li));
        sensim_roi_desc d = roi(-30, -30, 30, 30, 1);
        uint32_t *cells = calloc(3600, sizeof *cells), pts[3], shots[3] = {0, 0, 0}, bs[3] = {0, 0, 0},
                 bo[3] = {0, 0, 0}, plain[3] = {0, 0, 0};
        const uint32_t ids[3] = {7, 0, 0};
        double pose[16];
        translation(pose, 0, 0, 1);
        scan_grid(l, s, pose, &d, cells, 3600, boxes, 3, pts);
        CHECK_OK(sensim_lidar_box_shots(l, 0, li.frame_period_ns, pose, boxes, 3, shots, s, ids, bs, bo));
        CHECK_OK(sensim_lidar_box_shots(l, 0, li.frame_period_ns, pose, boxes, 3, plain, NULL, NULL, NULL, NULL));
        assert_memory_equal(shots, plain, sizeof shots); /* tracing the blockers changes no count */
        assert_true(bs[0] == 0 && bo[0] == 0);          /* nothing stands before A */
        assert_true(shots[0] > 50 && shots[1] > 20); /* both in the beams' way */
        assert_int_equal(shots[2], 0);               /* above +15 deg */
        assert_int_equal(pts[2], 0);
        if (with_a) {
            assert_true(pts[0] >= shots[0] * 9 / 10); /* A returns nearly every beam it receives */
            assert_int_equal(pts[1], 0);              /* B: occluded */
            assert_int_equal(bs[1], 0);               /* ... by another object, actor 7, on every beam */
            assert_int_equal(bo[1], shots[1]);
        } else {
            assert_true(pts[1] >= shots[1] * 9 / 10); /* B alone is visible */
            assert_true(bs[1] == 0 && bo[1] == 0);
        }
        free(cells);
        sensim_lidar_destroy(l);
        sensim_scene_destroy(s);
    }
    /* hostile boxes and times */
    sensim_lidar *l = ideal_lidar("vlp16");
    double pose[16], bad[6] = {0, 0, 0, NAN, 1, 1}, inv[6] = {1, 1, 1, 0, 0, 0};
    uint32_t c[1] = {0};
    identity(pose);
    assert_int_equal(sensim_lidar_box_shots(l, 0, 1000, pose, bad, 1, c, NULL, NULL, NULL, NULL), SENSIM_ERR_NOT_FINITE);
    assert_int_equal(sensim_lidar_box_shots(l, 0, 1000, pose, inv, 1, c, NULL, NULL, NULL, NULL), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_lidar_box_shots(l, 1000, 0, pose, NULL, 0, c, NULL, NULL, NULL, NULL), SENSIM_ERR_TIME_ORDER);
    pose[12] = NAN;
    assert_int_equal(sensim_lidar_box_shots(l, 0, 1000, pose, NULL, 0, c, NULL, NULL, NULL, NULL), SENSIM_ERR_NOT_FINITE);
    sensim_lidar_destroy(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_measures),
        cmocka_unit_test(test_ring_density_law),
        cmocka_unit_test(test_wall_halves_coverage),
        cmocka_unit_test(test_box_occlusion),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
