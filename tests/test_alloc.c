/* A scan after the first allocates nothing: malloc, calloc, realloc and
 * posix_memalign are counted by interposing them in this executable. */
#include "helpers.h"

#include <stdatomic.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static atomic_long allocations;

void *malloc(size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    *out = __libc_memalign(align, n);
    return *out ? 0 : 12;
}

void *aligned_alloc(size_t align, size_t n)
{
    atomic_fetch_add(&allocations, 1);
    return __libc_memalign(align, n);
}

static void scans_allocate_nothing(const char *preset, const char *const *sets, uint32_t nsets)
{
    sensim_context *ctx = test_ctx(2);
    sensim_scene *s;
    CHECK_OK(sensim_scene_create(ctx, &s));
    const float lo[3] = {-20, -20, -20}, hi[3] = {20, 20, 20};
    add_box(s, lo, hi, 14, 0); /* cars are glossy: bounce rays are traced too */
    CHECK_OK(sensim_scene_commit(s));
    sensim_lidar *l;
    atomic_store(&allocations, 0);
    CHECK_OK(sensim_lidar_create_from_preset(ctx, preset, sets, nsets, &l));
    assert_true(atomic_load(&allocations) > 0); /* the hook sees the library's allocations */
    sensim_lidar_info li;
    CHECK_OK(sensim_lidar_get_info(l, &li));
    sensim_ring *r = test_ring(4 * li.shots_per_frame, 8, SENSIM_OVERFLOW_DROP_OLDEST);
    double pose[16];
    identity(pose);
    const int64_t P = li.frame_period_ns;
    CHECK_OK(sensim_lidar_scan(l, s, 0, P, pose, r, NULL)); /* warm-up: thread pool, lazy init */
    sensim_pose_key keys[2];
    const double v[3] = {1, 0, 0}, w[3] = {0, 0, 0.3};
    CHECK_OK(sensim_motion_from_velocity(pose, P, 4 * P, v, w, keys));
    sensim_motion m;
    memset(&m, 0, sizeof m);
    m.keys = keys;
    m.key_count = 2;
    atomic_store(&allocations, 0);
    sensim_scan_result res;
    CHECK_OK(sensim_lidar_scan(l, s, P, 2 * P + P / 3, pose, r, &res));
    CHECK_OK(sensim_lidar_scan_motion(l, s, 2 * P + P / 3, 4 * P, &m, r, NULL));
    long n = atomic_load(&allocations);
    printf("# %s: %llu shots scanned, %ld allocations\n", preset, (unsigned long long)res.shots, n);
    assert_int_equal(n, 0);
    free(r);
    sensim_lidar_destroy(l);
    sensim_scene_destroy(s);
    sensim_context_destroy(ctx);
}

static void test_mechanical(void **state)
{
    (void)state;
    const char *sets[] = {"return_mode=dual", "beam_subrays=7", "beam_divergence_h_mrad=3",
                          "range_noise_stddev_m=0.02", "rain_rate_mm_h=10", "rain_false_returns=1"};
    scans_allocate_nothing("pandar64", sets, 6);
}

static void test_sequence_patterns(void **state)
{
    (void)state;
    scans_allocate_nothing("avia", NULL, 0);
    scans_allocate_nothing("mems_m1", NULL, 0);
    const char *deskew[] = {"points_frame=deskewed"};
    scans_allocate_nothing("mid40", deskew, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mechanical),
        cmocka_unit_test(test_sequence_patterns),
    };
    return cmocka_run_group_tests_name("alloc", tests, NULL, NULL);
}
