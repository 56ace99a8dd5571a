/* Internal declarations shared by all modules. Not installed. */
#ifndef SENSIM_INTERNAL_H
#define SENSIM_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include <sensim/sensim.h>

#define SENSIM_PI 3.14159265358979323846

/* Hot loops written on 4-wide double vectors get AVX and baseline clones
 * picked at load time (an ifunc): the library builds for baseline x86-64.
 * Never an FMA clone: the vector code rounds every product and sum as the
 * scalar code beside it does, so both give the same bits. Not under the
 * sanitizers: ThreadSanitizer crashes in ifunc resolvers that run before it
 * is initialised. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define SENSIM_NO_CLONES
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SENSIM_NO_CLONES
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(SENSIM_NO_CLONES)
#define SENSIM_AVX_CLONES __attribute__((target_clones("avx", "default")))
#else
#define SENSIM_AVX_CLONES
#endif
typedef double sensim_v4d __attribute__((vector_size(32)));
typedef float sensim_v4f __attribute__((vector_size(16)));
typedef long long sensim_v4l __attribute__((vector_size(32)));

/* Handle tags: a wrong-type or destroyed handle is refused with
 * SENSIM_ERR_BAD_HANDLE instead of being used (best effort: freed memory may
 * be reused). */
#define SENSIM_MAGIC_CONTEXT 0x43534E53u /* "SNSC" */
#define SENSIM_MAGIC_SCENE   0x53534E53u
#define SENSIM_MAGIC_LIDAR   0x4C534E53u
#define SENSIM_MAGIC_RIG     0x52534E53u
#define SENSIM_MAGIC_DEAD    0xDEADDEADu

#define SENSIM_CHECK_HANDLE(h, tag, what)                                                          \
    do {                                                                                           \
        if (!(h))                                                                                  \
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: %s is NULL", __func__, what);    \
        if ((h)->magic != (tag))                                                                   \
            return sensim__fail(SENSIM_ERR_BAD_HANDLE, "%s: %s is not a live %s handle", __func__, \
                                what, what);                                                       \
    } while (0)

#if defined(__GNUC__)
#  define SENSIM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define SENSIM_PRINTF(a, b)
#endif

#define SENSIM_MAX_REGISTERED 64

/* A registered pattern: a descriptor whose arrays the context owns. */
typedef struct sensim_registered {
    char name[32];
    sensim_lidar_desc desc;
} sensim_registered;

/* The context's worker pool (core/pool.c): workers that block between runs. */
typedef struct sensim__pool sensim__pool;
/* @p who: 0 for the caller, 1 .. threads - 1 for a worker (an index for per-thread scratch) */
typedef void (*sensim__pool_fn)(void *arg, uint32_t task, uint32_t who);
/* An empty pool (workers start with the first run that needs them); NULL when out of memory. */
sensim__pool *sensim__pool_create(void);
/* Join the workers and free the pool (no run may be in progress). */
void sensim__pool_destroy(sensim__pool *p);
/* fn(arg, task, who) for every task in [0, n), on the caller and up to @p threads - 1 workers; returns when all
 * have returned. Tasks run with sensim__threads() = 1. A busy pool (another caller's run), a NULL pool,
 * n = 1 or threads <= 1: the caller runs them all, in order, with its own thread count. */
void sensim__pool_run(sensim__pool *p, uint32_t n, uint32_t threads, sensim__pool_fn fn, void *arg);
/* Workers started so far. */
uint32_t sensim__pool_workers(sensim__pool *p);

struct sensim_context {
    _Atomic uint32_t magic; /* SENSIM_MAGIC_CONTEXT while alive; atomic: destroy may race a handle check */
    atomic_int refs;
    void *device;           /* RTCDevice, owned by trace.c */
    _Atomic uint32_t thread_count; /* resolved, >= 1; atomic: set_thread_count may race a reader */
    sensim_log_fn log_fn;
    void *log_user;
    sensim_registered registered[SENSIM_MAX_REGISTERED];
    uint32_t registered_count;
    _Atomic int64_t backend_bytes; /* Embree's memory monitor */
    atomic_int cancel;             /* sensim_context_set_cancel() */
    sensim__pool *pool;            /* whole sensors of a rig's step across cores */
};

/* The threads a stage on the calling thread may use: the context's count, or 1 on a pool task (a sensor
 * scanned beside others must not start a team of its own on top). */
uint32_t sensim__threads(const sensim_context *ctx);

static inline bool sensim__context_cancelled(const sensim_context *ctx)
{
    return atomic_load_explicit(&((sensim_context *)ctx)->cancel, memory_order_relaxed) != 0;
}

/* Registered descriptor named @p name, or NULL. */
const sensim_lidar_desc *sensim__context_find_pattern(const sensim_context *ctx, const char *name);
/* Free the arrays of a registered pattern's copy (lidar/register.c makes them) and zero it. */
void sensim__desc_arrays_free(sensim_lidar_desc *d);

/* Record the calling thread's error text and return @p status. */
sensim_status sensim__fail(sensim_status status, const char *fmt, ...) SENSIM_PRINTF(2, 3);
/* Put "@p prefix: " before this thread's error text; returns @p status. */
sensim_status sensim__fail_prefixed(sensim_status status, const char *prefix);
void sensim__log(const sensim_context *ctx, int32_t level, const char *fmt, ...) SENSIM_PRINTF(3, 4);

void sensim__context_retain(sensim_context *ctx);
void sensim__context_release(sensim_context *ctx);

/* a*b with overflow detection; returns false on overflow. */
static inline bool sensim__mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool sensim__add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

/* Floor division for possibly negative numerators, positive divisor. */
static inline int64_t sensim__floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* Largest coordinate accepted anywhere (poses, mounts, vertices), metres.
 * Geographic users put UTM or ECEF coordinates (~1e7 m) in poses; float32
 * geometry is already metre-coarse at 1e8 m; Embree aborts on rays beyond
 * ~1.8e18. 1e9 m keeps every product of pose and range finite and far inside
 * what Embree accepts. */
#define SENSIM_MAX_COORD_M 1e9
/* Times accepted anywhere: |t| <= 2^62 ns (146 years), so that sums and
 * differences of two times and a period never overflow int64. */
#define SENSIM_MAX_TIME_NS (INT64_C(1) << 62)

/* A pose matrix (column-major 4x4) a scan can use: finite, translation
 * within SENSIM_MAX_COORD_M, linear part within 1e6 per element (scaled
 * actors), last row 0 0 0 1. @p what names it in the message. */
sensim_status sensim__check_pose(const double pose[16], const char *what);
/* SENSIM_ERR_OUT_OF_RANGE unless |t| <= SENSIM_MAX_TIME_NS. */
sensim_status sensim__check_time(int64_t t, const char *what);

/* Levenshtein distance of a and b, case-insensitive, stopping at cap + 1
 * (names up to 63 characters; longer ones count as cap + 1). For "did you
 * mean" suggestions. */
uint32_t sensim__edit_distance(const char *a, const char *b, uint32_t cap);

/* True when this code runs from its build tree (library or executable under
 * the build root), where the source tree's presets and the build's helper
 * programs are the right ones; an installed copy never looks there (paths.c). */
bool sensim__running_uninstalled(void);
/* @p program's path: the build root when uninstalled, else the installed
 * libexecdir/sensim (paths.c). Returns @p buf. */
const char *sensim__libexec_path(const char *program, char *buf, size_t cap);
/* Runs the helper @p program (libexecdir/sensim; arguments FILE
 * MAX_FILE_BYTES MEM_LIMIT CPU_SECONDS, helper_child.h) on @p path and reads
 * its whole answer, at most @p budget bytes within 2·@p cpu + 10 s of wall
 * time, into *@p out (malloc'd, *@p len bytes). @p who names the parser in
 * messages ("Assimp"). A crash, budget or hang is an error naming the file
 * (helper.c). */
#define SENSIM_HELPER_EXIT_USAGE 64 /* as helper_child.h */
sensim_status sensim__helper_run(const char *program, const char *who, const char *path,
                                 unsigned long long max_bytes, unsigned long long mem, unsigned long long cpu,
                                 unsigned long long budget, unsigned char **out, size_t *len);
/* The installed presets' folder beside this copy of the installed library
 * (a moved prefix), or NULL when there is none (paths.c). */
const char *sensim__preset_dir_beside_library(void);

/* ASPRS LAS class of a CARLA tag (io/io_ply.c; SENSIM_FORMAT_LAS documents the table). */
uint8_t sensim__las_class(uint8_t tag, uint8_t flags);

/* FNV-1a of @p n bytes: the hash of the material-name tables. */
static inline uint32_t sensim__fnv1a(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

bool sensim__finite_array_f(const float *v, size_t n);
bool sensim__finite_array_d(const double *v, size_t n);

/* A lidar from preset text in memory (@p label names it; table_file paths
 * resolve relative to it); for fuzzing. */
sensim_status sensim__lidar_from_preset_mem(sensim_context *ctx, const char *label, const char *data, size_t size,
                                            const char *const *overrides, uint32_t override_count,
                                            sensim_lidar **out);

/* Convert @p n vertices (xyz floats) from @p frame to native in place. */
sensim_status sensim__vertices_from_frame(float *v, size_t n, int32_t frame);

/* Create a temporary next to @p path (path.tmp.XXXXXX, exclusive, 0644)
 * for writing; its name goes to @p tmp. NULL with the error recorded. */
#include <stdio.h>
FILE *sensim__create_tmp(const char *path, char *tmp, size_t cap);
/* Close @p f (from sensim__create_tmp) and rename @p tmp to @p path; on any failure the temporary goes
 * and SENSIM_ERR_IO names @p path. */
sensim_status sensim__commit_tmp(FILE *f, const char *tmp, const char *path);
/* A sink's folder or file path (1..4000 bytes) and, when @p name is not NULL, a name written into
 * JSON (1..63 bytes, no quote, backslash or control character); @p fn names the call. */
sensim_status sensim__check_sink_strings(const char *fn, const char *path, const char *name);

/* Read a whole file into a NUL-terminated heap buffer. */
/* Name -> tag rules (user mapping files): key = the name's words, concatenated lower-case. */
typedef struct sensim_tag_rule {
    char key[64];
    uint8_t tag;
} sensim_tag_rule;
/* Tag of @p name: the user rules first, then the built-in table (whole words); -1 if none. */
int32_t sensim__tag_match(const char *name, const sensim_tag_rule *rules, uint32_t nrules);
/* Read a mapping file ("name = Tag" lines, # comments); *out is freed by the caller. */
sensim_status sensim__tag_rules_load(const char *path, sensim_tag_rule **out, uint32_t *out_n);
/* The same from memory; @p path only names the input in messages. */
sensim_status sensim__tag_rules_parse(const char *path, const char *data, size_t size, sensim_tag_rule **out,
                                      uint32_t *out_n);

/* PNG file -> 8-bit sRGB texels (row 0 at the top), at most 16384 a side
 * and 2^26 texels (io/image_png.c; the one read path of libpng). */
/* Filtered bytes above which sensim_write_png streams through libpng rather than encode in memory. */
#define SENSIM__PNG_MEM_MAX (UINT64_C(64) << 20)
/* CARLA's 24-bit depth code of @p depth_m (sensim_depth_to_carla_rgb: R low byte; NaN and > 1000 m: far). */
static inline uint32_t sensim__carla_depth24(float depth_m)
{
    double d = depth_m != depth_m ? 1000.0 : depth_m < 0 ? 0 : depth_m > 1000 ? 1000 : depth_m;
    return (uint32_t)llround(d / 1000.0 * 16777215.0);
}
/* Tests only (not exported): each image-sink encoder task first sleeps this many ms, a disk that cannot
 * keep up (io/sink_image.c). */
extern _Atomic uint32_t sensim__image_sink_test_delay_ms;
/* A PNG encoder's state kept between images (io/image_png.c: libdeflate, filter "up"): zero it before the
 * first use, free with sensim__png_encoder_free. One thread at a time. */
typedef struct sensim__png_encoder {
    struct libdeflate_compressor *compressor;
    unsigned char *raw, *out;
    size_t raw_cap, out_cap;
} sensim__png_encoder;
void sensim__png_encoder_free(sensim__png_encoder *e);
/* A PNG in memory: *out (the encoder's buffer, valid until its next use) and its size; arguments checked by
 * the caller (sensim_write_png's limits, at most SENSIM__PNG_MEM_MAX filtered bytes); @p label names it. */
#define SENSIM__PNG_FILTER_NONE 0 /* label images, CARLA's depth code */
#define SENSIM__PNG_FILTER_UP 2   /* images with gradients */
sensim_status sensim__png_encode(sensim__png_encoder *e, const char *label, uint32_t w, uint32_t h, uint32_t channels,
                                 uint32_t depth, const void *data, size_t stride, int filter, const unsigned char **out,
                                 size_t *out_size);
/* @p n bytes to @p path through an exclusive temporary renamed into place. */
sensim_status sensim__write_bytes(const char *path, const void *data, size_t n);
sensim_status sensim__png_read_rgb(const char *path, uint32_t *out_w, uint32_t *out_h, uint8_t **out_rgb);
/* The same from PNG bytes in memory (@p label names them in messages). */
sensim_status sensim__png_decode_rgb(const char *label, const void *data, size_t size, uint32_t *out_w,
                                     uint32_t *out_h, uint8_t **out_rgb);
sensim_status sensim__read_file(const char *path, uint64_t max_bytes, char **out_data,
                                size_t *out_size);

#endif
