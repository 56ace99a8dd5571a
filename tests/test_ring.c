/* Ring buffer: layout, two-span wrap, overflow under both policies. */
#include "helpers.h"

static sensim_context *ctx;
static sensim_scene *box_scene;

static int setup(void **state)
{
    (void)state;
    ctx = test_ctx(2);
    CHECK_OK(sensim_scene_create(ctx, &box_scene));
    const float lo[3] = {-10, -10, -10}, hi[3] = {10, 10, 10};
    add_box(box_scene, lo, hi, 3, 0);
    CHECK_OK(sensim_scene_commit(box_scene));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    sensim_scene_destroy(box_scene);
    sensim_context_destroy(ctx);
    return 0;
}

/* A VLP-16 locked to the revolution (1875 columns), thin beam, every hit
 * reported: inside the box every shot is one point, every frame the same. */
static sensim_lidar *vlp16(void)
{
    sensim_lidar *l;
    const char *sets[] = {"column_period_ns=0", "shots_per_s=300000", "beam=ideal", "dropoff_model=none"};
    CHECK_OK(sensim_lidar_create_from_preset(ctx, "vlp16", sets, 4, &l));
    return l;
}

static void test_field_table(void **state)
{
    (void)state;
    uint32_t n;
    const sensim_field *f = sensim_point_fields(&n);
    assert_int_equal(sizeof(sensim_point), 32);
    assert_int_equal(n, 10);
    assert_string_equal(f[0].name, "x");
    assert_int_equal(f[3].offset, offsetof(sensim_point, intensity));
    assert_int_equal(f[4].offset, offsetof(sensim_point, range_m));
    assert_int_equal(f[5].offset, offsetof(sensim_point, t_offset_ns));
    assert_int_equal(f[6].offset, offsetof(sensim_point, object_id));
    assert_int_equal(f[7].offset, offsetof(sensim_point, channel));
    assert_int_equal(f[8].offset, offsetof(sensim_point, tag));
    assert_int_equal(f[9].offset, offsetof(sensim_point, flags));
    uint32_t end = 0;
    for (uint32_t i = 0; i < n; i++) {
        static const uint32_t size[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};
        assert_true(f[i].offset >= end); /* ordered, non-overlapping */
        end = f[i].offset + size[f[i].datatype] * f[i].count;
    }
    assert_int_equal(end, 32);
}

static void test_init_errors(void **state)
{
    (void)state;
    size_t size;
    assert_int_equal(sensim_ring_required_size(0, 1, &size), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_ring_required_size(10, 0, &size), SENSIM_ERR_OUT_OF_RANGE);
    assert_int_equal(sensim_ring_required_size(UINT64_MAX, 1, &size), SENSIM_ERR_OUT_OF_RANGE);
    CHECK_OK(sensim_ring_required_size(100, 4, &size));
    void *mem = malloc(size + 8);
    sensim_ring *r;
    assert_int_equal(sensim_ring_init(mem, size - 1, 100, 4, SENSIM_OVERFLOW_FAIL, &r), SENSIM_ERR_TOO_LARGE);
    assert_int_equal(sensim_ring_init((char *)mem + 4, size, 100, 4, SENSIM_OVERFLOW_FAIL, &r),
                     SENSIM_ERR_INVALID_ARGUMENT);
    assert_int_equal(sensim_ring_init(mem, size, 100, 4, 7, &r), SENSIM_ERR_INVALID_ARGUMENT);
    /* uninitialised memory is refused, not trusted */
    memset(mem, 0xAB, size);
    sensim_frame_view v;
    assert_int_equal(sensim_ring_peek((sensim_ring *)mem, &v), SENSIM_ERR_BAD_HANDLE);
    sensim_lidar *l = vlp16();
    double pose[16];
    identity(pose);
    assert_int_equal(sensim_lidar_scan(l, box_scene, 0, 1000, pose, (sensim_ring *)mem, NULL), SENSIM_ERR_BAD_HANDLE);
    CHECK_OK(sensim_ring_init(mem, size, 100, 4, SENSIM_OVERFLOW_FAIL, &r));
    assert_int_equal(sensim_ring_peek(r, &v), SENSIM_ERR_RING_EMPTY);
    assert_int_equal(sensim_ring_release(r), SENSIM_ERR_RING_EMPTY);
    sensim_lidar_destroy(l);
    free(mem);
}

/* FAIL: a scan that does not fit writes nothing, leaves the lidar where it
 * was, and succeeds once the consumer has made room. */
static void test_overflow_fail(void **state)
{
    (void)state;
    sensim_lidar *l = vlp16();
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    const int64_t P = li.frame_period_ns;
    const uint64_t F = li.shots_per_frame; /* box: every shot returns */
    sensim_ring *r = test_ring(F + F / 2, 8, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    identity(pose);
    sensim_scan_result res;
    CHECK_OK(sensim_lidar_scan(l, box_scene, 0, P, pose, r, &res));
    assert_int_equal(res.points, F);
    assert_int_equal(res.frames_completed, 1);
    /* the second frame needs F more points; only F/2 are free */
    assert_int_equal(sensim_lidar_scan(l, box_scene, P, 2 * P, pose, r, &res), SENSIM_ERR_RING_FULL);
    assert_int_equal(res.points, 0);
    sensim_ring_stats rs;
    CHECK_OK(sensim_ring_get_stats(r, &rs));
    assert_int_equal(rs.scans_refused, 1);
    /* the scan stopped once it no longer fitted: more than the F/2 free, at most F */
    assert_true(rs.points_refused > F / 2 && rs.points_refused <= F);
    assert_int_equal(rs.frames_ready, 1);
    /* a partial interval that fits is accepted, then the rest is refused */
    CHECK_OK(sensim_lidar_scan(l, box_scene, P, P + P / 4, pose, r, &res));
    assert_int_equal(sensim_lidar_scan(l, box_scene, P + P / 4, 2 * P, pose, r, &res), SENSIM_ERR_RING_FULL);
    CHECK_OK(sensim_ring_get_stats(r, &rs));
    assert_int_equal(rs.frames_ready, 1);
    /* drain frame 0, then the refused call goes through unchanged */
    sensim_frame_header h;
    uint64_t n;
    sensim_point *buf = malloc(F * sizeof *buf);
    CHECK_OK(sensim_ring_pop(r, &h, buf, F, &n));
    assert_int_equal(h.frame_number, 0);
    assert_int_equal(n, F);
    CHECK_OK(sensim_lidar_scan(l, box_scene, P + P / 4, 2 * P, pose, r, &res));
    CHECK_OK(sensim_ring_pop(r, &h, buf, F, &n));
    assert_int_equal(h.frame_number, 1);
    assert_int_equal(n, F);
    assert_int_equal(h.lost_points, 0);
    assert_int_equal(h.flags, 0);
    assert_int_equal(h.t_begin_ns, P);
    assert_int_equal(h.t_end_ns, 2 * P);
    /* frame 1 equals a fresh lidar's frame 1 (nothing of the refused scans leaked) */
    sensim_lidar *l2 = vlp16();
    sensim_ring *r2 = test_ring(F, 2, SENSIM_OVERFLOW_FAIL);
    sensim_point *buf2 = malloc(F * sizeof *buf2);
    CHECK_OK(sensim_lidar_scan(l2, box_scene, P, 2 * P, pose, r2, NULL));
    CHECK_OK(sensim_ring_pop(r2, NULL, buf2, F, &n));
    assert_memory_equal(buf, buf2, F * sizeof *buf);
    /* a header table that is full also refuses */
    sensim_ring *r3 = test_ring(10 * F, 1, SENSIM_OVERFLOW_FAIL);
    sensim_lidar *l3 = vlp16();
    CHECK_OK(sensim_lidar_scan(l3, box_scene, 0, P, pose, r3, NULL));
    assert_int_equal(sensim_lidar_scan(l3, box_scene, P, P + 10, pose, r3, NULL), SENSIM_ERR_RING_FULL);
    free(buf);
    free(buf2);
    free(r);
    free(r2);
    free(r3);
    sensim_lidar_destroy(l);
    sensim_lidar_destroy(l2);
    sensim_lidar_destroy(l3);
}

/* DROP_OLDEST: old frames make room, every dropped point is counted, and a
 * frame larger than the ring keeps its first points and counts the rest. */
static void test_overflow_drop_oldest(void **state)
{
    (void)state;
    sensim_lidar *l = vlp16();
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    const int64_t P = li.frame_period_ns;
    const uint64_t F = li.shots_per_frame;
    sensim_ring *r = test_ring(2 * F + 100, 16, SENSIM_OVERFLOW_DROP_OLDEST);
    double pose[16];
    identity(pose);
    sensim_scan_result res;
    CHECK_OK(sensim_lidar_scan(l, box_scene, 0, 5 * P, pose, r, &res));
    assert_int_equal(res.frames_completed, 5);
    assert_int_equal(res.points, 5 * F);
    sensim_ring_stats rs;
    CHECK_OK(sensim_ring_get_stats(r, &rs));
    assert_int_equal(rs.frames_dropped, 3);
    assert_int_equal(rs.points_dropped, 3 * F);
    assert_int_equal(rs.points_lost, 0);
    assert_int_equal(rs.frames_ready, 2);
    sensim_frame_header h;
    uint64_t n;
    CHECK_OK(sensim_ring_pop(r, &h, NULL, 0, &n));
    assert_int_equal(h.frame_number, 3);
    /* frames 3 and 4 are intact; the ring wrapped, so check both spans */
    sensim_frame_view v;
    CHECK_OK(sensim_ring_peek(r, &v));
    assert_int_equal(v.counts[0] + v.counts[1], F);
    CHECK_OK(sensim_ring_release(r));
    CHECK_OK(sensim_ring_peek(r, &v));
    assert_int_equal(v.header->frame_number, 4);
    assert_int_equal(v.counts[0] + v.counts[1], F);
    assert_true(v.counts[1] > 0); /* (2F+100) slots: frame 4 starts at 4F mod (2F+100) and wraps */
    CHECK_OK(sensim_ring_release(r));

    /* ring smaller than one frame */
    sensim_ring *small = test_ring(F / 3, 4, SENSIM_OVERFLOW_DROP_OLDEST);
    sensim_lidar *l2 = vlp16();
    CHECK_OK(sensim_lidar_scan(l2, box_scene, 0, P, pose, small, &res));
    assert_int_equal(res.points, F / 3);
    assert_int_equal(res.points_lost, F - F / 3);
    CHECK_OK(sensim_ring_pop(small, &h, NULL, 0, &n));
    assert_int_equal(n, F / 3);
    assert_int_equal(h.lost_points, F - F / 3);
    CHECK_OK(sensim_ring_get_stats(small, &rs));
    assert_int_equal(rs.points_lost, F - F / 3);
    free(r);
    free(small);
    sensim_lidar_destroy(l);
    sensim_lidar_destroy(l2);
}

/* Gaps in time mark frames partial; pop with a short buffer refuses. */
static void test_partial_and_pop(void **state)
{
    (void)state;
    sensim_lidar *l = vlp16();
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    const int64_t P = li.frame_period_ns;
    sensim_ring *r = test_ring(4 * li.shots_per_frame, 8, SENSIM_OVERFLOW_FAIL);
    double pose[16];
    identity(pose);
    CHECK_OK(sensim_lidar_scan(l, box_scene, P / 2, P, pose, r, NULL));
    CHECK_OK(sensim_lidar_scan(l, box_scene, P, 2 * P, pose, r, NULL));
    assert_int_equal(sensim_lidar_scan(l, box_scene, P, 2 * P, pose, r, NULL), SENSIM_ERR_TIME_ORDER);
    assert_int_equal(sensim_lidar_scan(l, box_scene, 3 * P, 2 * P + 5, pose, r, NULL), SENSIM_ERR_TIME_ORDER);
    sensim_frame_header h;
    uint64_t n;
    sensim_point one;
    assert_int_equal(sensim_ring_pop(r, &h, &one, 1, &n), SENSIM_ERR_TOO_LARGE);
    CHECK_OK(sensim_ring_pop(r, &h, NULL, 0, &n));
    assert_int_equal(h.frame_number, 0);
    assert_int_equal(h.flags & SENSIM_FRAME_PARTIAL, SENSIM_FRAME_PARTIAL);
    assert_int_equal(h.scanned_ns, P / 2);
    sensim_point *buf = malloc(li.shots_per_frame * sizeof *buf);
    CHECK_OK(sensim_ring_pop(r, &h, buf, li.shots_per_frame, &n));
    CHECK_OK(sensim_ring_pop(r, &h, buf, li.shots_per_frame, &n));
    assert_int_equal(h.frame_number, 1);
    assert_int_equal(h.flags, 0);
    assert_int_equal(n, li.shots_per_frame);
    free(buf);
    free(r);
    sensim_lidar_destroy(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_table),          cmocka_unit_test(test_init_errors),
        cmocka_unit_test(test_overflow_fail),        cmocka_unit_test(test_overflow_drop_oldest),
        cmocka_unit_test(test_partial_and_pop),
    };
    return cmocka_run_group_tests_name("ring", tests, setup, teardown);
}
