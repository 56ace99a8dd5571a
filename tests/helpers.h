/* Shared test helpers (cmocka). */
#ifndef SENSIM_TEST_HELPERS_H
#define SENSIM_TEST_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sensim/sensim.h>

#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        sensim_status st_ = (expr);                                                                \
        if (st_ != SENSIM_OK)                                                                      \
            fail_msg("%s -> %s: %s", #expr, sensim_status_string(st_), sensim_context_last_error(NULL)); \
    } while (0)

/* cmocka's assert_float_equal compares in single precision: doubles here. */
#define assert_double_close(a, b, eps)                                                             \
    do {                                                                                           \
        double a_ = (a), b_ = (b);                                                                 \
        if (!(fabs(a_ - b_) <= (eps)))                                                             \
            fail_msg("%s = %.17g, %s = %.17g: differ by %.3g > %g", #a, a_, #b, b_, fabs(a_ - b_), \
                     (double)(eps));                                                               \
    } while (0)

static inline sensim_context *test_ctx(uint32_t threads)
{
    sensim_context_desc d;
    sensim_context_desc_init(&d);
    d.thread_count = threads;
    sensim_context *ctx = NULL;
    CHECK_OK(sensim_context_create(&d, &ctx));
    return ctx;
}

/* A group fixture: `ctx` (with @p threads workers) and, when @p with_dir,
 * a scratch directory `dir` removed afterwards. */
#define TEST_GROUP_FIXTURE(threads, with_dir)                                                      \
    static sensim_context *ctx;                                                                    \
    static char dir[256];                                                                          \
    static int setup(void **state)                                                                 \
    {                                                                                              \
        (void)state;                                                                               \
        ctx = test_ctx(threads);                                                                   \
        if (with_dir) {                                                                            \
            snprintf(dir, sizeof dir, "/tmp/sensim_test_XXXXXX");                                 \
            assert_non_null(mkdtemp(dir));                                                         \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
    static int teardown(void **state)                                                              \
    {                                                                                              \
        (void)state;                                                                               \
        if (with_dir) {                                                                            \
            char cmd[300];                                                                         \
            snprintf(cmd, sizeof cmd, "rm -rf %s", dir);                                           \
            assert_int_equal(system(cmd), 0);                                                      \
        }                                                                                          \
        sensim_context_destroy(ctx);                                                               \
        return 0;                                                                                  \
    }

/* The whole file at @p path (malloc'd, one byte to spare; *n its size), or NULL if it cannot be opened. */
static inline uint8_t *slurp(const char *path, size_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(len > 0 ? (size_t)len + 1 : 1);
    *n = p && len > 0 ? fread(p, 1, (size_t)len, f) : 0;
    fclose(f);
    return p;
}

/* Write @p n bytes to DIR/NAME; returns the path (static storage, 4 slots). */
static inline const char *write_test_file(const char *dir, const char *name, const void *data, size_t n)
{
    static char path[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", dir, name);
    FILE *f = fopen(path[k], "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
    return path[k];
}

static inline void identity(double m[16])
{
    memset(m, 0, 16 * sizeof(double));
    m[0] = m[5] = m[10] = m[15] = 1.0;
}

static inline void translation(double m[16], double x, double y, double z)
{
    identity(m);
    m[12] = x;
    m[13] = y;
    m[14] = z;
}

/* Square plane z = 0 of half-size s, tag. */
static inline uint32_t add_plane(sensim_scene *scene, float s, uint8_t tag)
{
    const float v[] = {-s, -s, 0, s, -s, 0, s, s, 0, -s, s, 0};
    const uint32_t idx[] = {0, 1, 2, 0, 2, 3};
    sensim_mesh_desc d;
    sensim_mesh_desc_init(&d);
    d.vertices = v;
    d.vertex_count = 4;
    d.indices = idx;
    d.triangle_count = 2;
    d.tag = tag;
    uint32_t id;
    CHECK_OK(sensim_scene_add_mesh(scene, &d, &id));
    return id;
}

/* Axis-aligned box [lo, hi] (12 triangles), optionally a prototype. */
static inline uint32_t add_box(sensim_scene *scene, const float lo[3], const float hi[3], uint8_t tag,
                               uint32_t flags)
{
    float v[24];
    for (int i = 0; i < 8; i++) {
        v[3 * i + 0] = (i & 1) ? hi[0] : lo[0];
        v[3 * i + 1] = (i & 2) ? hi[1] : lo[1];
        v[3 * i + 2] = (i & 4) ? hi[2] : lo[2];
    }
    const uint32_t idx[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                              2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    sensim_mesh_desc d;
    sensim_mesh_desc_init(&d);
    d.vertices = v;
    d.vertex_count = 8;
    d.indices = idx;
    d.triangle_count = 12;
    d.tag = tag;
    d.flags = flags;
    uint32_t id;
    CHECK_OK(sensim_scene_add_mesh(scene, &d, &id));
    return id;
}

/* A ring in heap memory; free with free(). */
/* Range noise against a noiseless scan of the same shots: the records pair
 * up (same channel and firing time), *mean and *sd of noisy - clean range. */
static inline void paired_range_noise(const sensim_point *clean, const sensim_point *noisy, uint64_t n, double *mean,
                                      double *sd)
{
    double sum = 0, sum2 = 0;
    for (uint64_t i = 0; i < n; i++) {
        assert_int_equal(clean[i].channel, noisy[i].channel);
        assert_int_equal(clean[i].t_offset_ns, noisy[i].t_offset_ns);
        double e = (double)noisy[i].range_m - clean[i].range_m;
        sum += e, sum2 += e * e;
    }
    *mean = sum / (double)n;
    *sd = sqrt(sum2 / (double)n - *mean * *mean);
}

static inline sensim_ring *test_ring(uint64_t points, uint32_t frames, int32_t policy)
{
    size_t size;
    CHECK_OK(sensim_ring_required_size(points, frames, &size));
    void *mem = malloc(size);
    assert_non_null(mem);
    sensim_ring *r;
    CHECK_OK(sensim_ring_init(mem, size, points, frames, policy, &r));
    return r;
}

/* Pop every complete frame; returns the number of points copied into *out
 * (realloc'ed) and frame headers into *hdrs. */
static inline uint64_t drain(sensim_ring *r, sensim_point **out, uint64_t *len, sensim_frame_header *hdrs,
                             uint32_t max_hdrs, uint32_t *nhdrs)
{
    uint64_t got = 0;
    for (;;) {
        sensim_frame_header h;
        uint64_t n;
        sensim_status st = sensim_ring_pop(r, &h, NULL, 0, &n);
        if (st == SENSIM_ERR_RING_EMPTY)
            break;
        assert_int_equal(st, SENSIM_OK);
        *out = realloc(*out, (*len + n + 1) * sizeof **out);
        assert_non_null(*out);
        CHECK_OK(sensim_ring_pop(r, &h, *out + *len, n, &n));
        *len += n;
        got += n;
        if (hdrs && *nhdrs < max_hdrs)
            hdrs[(*nhdrs)++] = h;
    }
    return got;
}

#endif
