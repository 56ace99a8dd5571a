/* PNG encoders compared on the images a camera collection writes (issue 53):
 * libpng at zlib levels and row filters, libspng, and libdeflate with the PNG
 * framing of src/io/image_png.c. The images are the four 8-bit RGB PNGs of
 * one `sensim batch --rig` capture (pinhole_720p on the street, 1.6 m above
 * the road looking along the street): CARLA's 24-bit depth, the raw tag in
 * red, the CityScapes colours and the shaded colour image.
 * usage: bench_png [reps [DIR N]]   ms per image (median of reps) and bytes, per encoder and image;
 * with DIR (a camera's folder of a `sensim batch --rig` run): its capture N's four PNGs instead. */
#include <sensim/sensim.h>

#include "street.h"

#include <libdeflate.h>
#include <png.h>
#include <spng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#define CHECK(e)                                                                                  \
    do {                                                                                          \
        if ((e) != SENSIM_OK) {                                                                   \
            fprintf(stderr, "bench_png: %s: %s\n", #e, sensim_context_last_error(NULL));         \
            return 1;                                                                             \
        }                                                                                         \
    } while (0)

typedef struct mem {
    unsigned char *p;
    size_t n, cap;
} mem;

static void mem_put(mem *m, const void *d, size_t n)
{
    if (m->n + n > m->cap) {
        m->cap = (m->n + n) * 2;
        m->p = realloc(m->p, m->cap);
        if (!m->p)
            abort();
    }
    memcpy(m->p + m->n, d, n);
    m->n += n;
}

static void png_mem_write(png_structp png, png_bytep d, size_t n)
{
    mem_put(png_get_io_ptr(png), d, n);
}

static void png_mem_flush(png_structp png)
{
    (void)png;
}

/* libpng: level 0..9, filters a PNG_FILTER_* mask (PNG_ALL_FILTERS: libpng's adaptive choice). */
static int png_strategy = -1; /* zlib strategy for the next enc_libpng (-1: libpng's default) */

static size_t enc_libpng(const uint8_t *img, uint32_t w, uint32_t h, int level, int filters, mem *out)
{
    out->n = 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(png);
    if (setjmp(png_jmpbuf(png)))
        abort();
    png_set_write_fn(png, out, png_mem_write, png_mem_flush);
    if (level >= 0)
        png_set_compression_level(png, level);
    if (filters >= 0)
        png_set_filter(png, 0, filters);
    if (png_strategy >= 0)
        png_set_compression_strategy(png, png_strategy);
    png_set_IHDR(png, info, w, h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < h; y++)
        png_write_row(png, img + (size_t)y * w * 3);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return out->n;
}

/* libspng: level, filter choice mask (SPNG_FILTER_CHOICE_*). */
static size_t enc_spng(const uint8_t *img, uint32_t w, uint32_t h, int level, int filters, mem *out)
{
    spng_ctx *c = spng_ctx_new(SPNG_CTX_ENCODER);
    spng_set_option(c, SPNG_ENCODE_TO_BUFFER, 1);
    spng_set_option(c, SPNG_IMG_COMPRESSION_LEVEL, level);
    spng_set_option(c, SPNG_FILTER_CHOICE, filters);
    struct spng_ihdr ih = {.width = w, .height = h, .bit_depth = 8, .color_type = SPNG_COLOR_TYPE_TRUECOLOR};
    spng_set_ihdr(c, &ih);
    if (spng_encode_image(c, img, (size_t)w * h * 3, SPNG_FMT_PNG, SPNG_ENCODE_FINALIZE))
        abort();
    size_t n;
    int err;
    void *p = spng_get_png_buffer(c, &n, &err);
    out->n = 0;
    mem_put(out, p, n);
    free(p);
    spng_ctx_free(c);
    return n;
}

static void be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8),
    p[3] = (unsigned char)v;
}

static void chunk(mem *m, const char *type, const unsigned char *d, size_t n)
{
    unsigned char hd[8], crc[4];
    be32(hd, (uint32_t)n);
    memcpy(hd + 4, type, 4);
    mem_put(m, hd, 8);
    mem_put(m, d, n);
    be32(crc, libdeflate_crc32(libdeflate_crc32(0, type, 4), d, n));
    mem_put(m, crc, 4);
}

/* libdeflate: one filter for every row (0 none, 1 sub, 2 up), one zlib stream in one IDAT. */
static size_t enc_deflate(const uint8_t *img, uint32_t w, uint32_t h, int level, int filter, mem *out,
                          unsigned char *raw, unsigned char *z, size_t zcap)
{
    const size_t row = (size_t)w * 3;
    for (uint32_t y = 0; y < h; y++) {
        unsigned char *o = raw + y * (row + 1);
        const uint8_t *s = img + y * row, *u = y ? s - row : NULL;
        o[0] = (unsigned char)filter;
        if (filter == 0 || (filter == 2 && !u))
            memcpy(o + 1, s, row);
        else if (filter == 1) {
            memcpy(o + 1, s, 3);
            for (size_t i = 3; i < row; i++)
                o[1 + i] = (unsigned char)(s[i] - s[i - 3]);
        } else
            for (size_t i = 0; i < row; i++)
                o[1 + i] = (unsigned char)(s[i] - u[i]);
    }
    struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
    size_t zn = libdeflate_zlib_compress(c, raw, h * (row + 1), z, zcap);
    libdeflate_free_compressor(c);
    out->n = 0;
    static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    mem_put(out, sig, 8);
    unsigned char ih[13];
    be32(ih, w), be32(ih + 4, h);
    ih[8] = 8, ih[9] = 2, ih[10] = ih[11] = ih[12] = 0;
    chunk(out, "IHDR", ih, 13);
    chunk(out, "IDAT", z, zn);
    chunk(out, "IEND", NULL, 0);
    return out->n;
}

enum { LIBPNG, SPNG, DEFLATE, LIBPNG_RLE };
typedef struct variant {
    const char *name;
    int lib, level, filter;
} variant;

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    if (reps < 1 || reps > 1000)
        reps = 5;
    sensim_context *ctx;
    sensim_scene *scene;
    CHECK(sensim_context_create(NULL, &ctx));
    CHECK(sensim_scene_create(ctx, &scene));
    street_info si;
    CHECK(street_scene_build(scene, 400.0f, 4, &si));
    CHECK(sensim_scene_commit(scene));
    sensim_camera_desc d;
    CHECK(sensim_camera_desc_preset("pinhole_720p", &d));
    sensim_camera *cam;
    CHECK(sensim_camera_create(ctx, &d, &cam));
    const uint32_t w = d.width, h = d.height;
    const size_t px = (size_t)w * h;
    float *depth = malloc(px * sizeof *depth);
    uint8_t *sem = malloc(px), *img[4];
    for (int k = 0; k < 4; k++)
        img[k] = malloc(3 * px);
    sensim_pose_key key = {0};
    for (int i = 0; i < 16; i++)
        key.pose[i] = i % 5 == 0;
    key.pose[14] = 1.6;
    sensim_motion m = {.keys = &key, .key_count = 1};
    sensim_camera_images ims = {.depth = depth, .semantic = sem, .rgb = img[3]};
    CHECK(sensim_camera_render(cam, scene, &m, 0, &ims, NULL));
    for (size_t p = 0; p < px; p++) { /* as src/io/sink_image.c makes them */
        sensim_depth_to_carla_rgb(depth[p], &img[0][3 * p]);
        img[1][3 * p] = sem[p], img[1][3 * p + 1] = img[1][3 * p + 2] = 0;
        sensim_tag_color(sem[p], &img[2][3 * p]);
    }
    if (argc > 3) { /* a real capture's images, decoded by libpng */
        static const char *const sub[4] = {"depth", "semantic", "semantic_cityscapes", "rgb"};
        for (int k = 0; k < 4; k++) {
            char path[4200];
            snprintf(path, sizeof path, "%.4000s/%s/%06d.png", argv[2], sub[k], atoi(argv[3]));
            png_image pi = {.version = PNG_IMAGE_VERSION};
            if (!png_image_begin_read_from_file(&pi, path) || pi.width != w || pi.height != h) {
                fprintf(stderr, "bench_png: %s: not a %ux%u PNG\n", path, w, h);
                return 1;
            }
            pi.format = PNG_FORMAT_RGB;
            if (!png_image_finish_read(&pi, NULL, img[k], 0, NULL))
                return 1;
        }
        printf("images: %s capture %s\n", argv[2], argv[3]);
    }
    static const char *const names[4] = {"depth24", "tag_raw", "cityscapes", "rgb"};
    static const variant vs[] = {
        {"libpng 6 adaptive (before)", LIBPNG, -1, -1},
        {"libpng 1 adaptive", LIBPNG, 1, PNG_ALL_FILTERS},
        {"libpng 1 none", LIBPNG, 1, PNG_FILTER_NONE},
        {"libpng 1 sub", LIBPNG, 1, PNG_FILTER_SUB},
        {"libpng 1 up", LIBPNG, 1, PNG_FILTER_UP},
        {"libpng 3 up", LIBPNG, 3, PNG_FILTER_UP},
        {"libpng 6 up", LIBPNG, 6, PNG_FILTER_UP},
        {"libpng 1 up rle", LIBPNG_RLE, 1, PNG_FILTER_UP},
        {"libpng 1 sub rle", LIBPNG_RLE, 1, PNG_FILTER_SUB},
        {"libpng 6 up rle", LIBPNG_RLE, 6, PNG_FILTER_UP},
        {"spng 1 up", SPNG, 1, SPNG_FILTER_CHOICE_UP},
        {"spng 1 adaptive", SPNG, 1, SPNG_FILTER_CHOICE_ALL},
        {"spng 6 adaptive", SPNG, 6, SPNG_FILTER_CHOICE_ALL},
        {"libdeflate 1 none", DEFLATE, 1, 0},
        {"libdeflate 1 sub", DEFLATE, 1, 1},
        {"libdeflate 1 up", DEFLATE, 1, 2},
        {"libdeflate 2 up", DEFLATE, 2, 2},
        {"libdeflate 3 up", DEFLATE, 3, 2},
        {"libdeflate 6 up", DEFLATE, 6, 2},
        {"libdeflate 2 none", DEFLATE, 2, 0},
        {"libdeflate 3 none", DEFLATE, 3, 0},
        {"libdeflate 4 up", DEFLATE, 4, 2},
    };
    const size_t rawn = h * (3 * (size_t)w + 1), zcap = libdeflate_zlib_compress_bound(NULL, rawn) + 1024;
    unsigned char *raw = malloc(rawn), *z = malloc(zcap);
    double *t = malloc(reps * sizeof *t);
    mem out = {0};
    printf("PNG encoders, one thread, 1280x720 RGB8 images of one capture, median of %d (ms | KiB):\n", reps);
    printf("%-28s", "encoder");
    for (int k = 0; k < 4; k++)
        printf(" %18s", names[k]);
    printf(" %14s\n", "all four ms");
    for (size_t v = 0; v < sizeof vs / sizeof vs[0]; v++) {
        double total = 0;
        printf("%-28s", vs[v].name);
        for (int k = 0; k < 4; k++) {
            size_t n = 0;
            for (int r = 0; r < reps; r++) {
                double t0 = now_s();
                png_strategy = vs[v].lib == LIBPNG_RLE ? 3 /* Z_RLE */ : -1;
                n = vs[v].lib == LIBPNG || vs[v].lib == LIBPNG_RLE ? enc_libpng(img[k], w, h, vs[v].level, vs[v].filter, &out)
                    : vs[v].lib == SPNG ? enc_spng(img[k], w, h, vs[v].level, vs[v].filter, &out)
                                        : enc_deflate(img[k], w, h, vs[v].level, vs[v].filter, &out, raw, z, zcap);
                t[r] = now_s() - t0;
            }
            qsort(t, reps, sizeof *t, cmp);
            total += t[reps / 2];
            printf(" %8.2f | %7.0f", t[reps / 2] * 1e3, n / 1024.0);
        }
        printf(" %14.2f\n", total * 1e3);
    }
    free(out.p), free(raw), free(z), free(t), free(depth), free(sem);
    for (int k = 0; k < 4; k++)
        free(img[k]);
    sensim_camera_destroy(cam);
    sensim_scene_destroy(scene);
    sensim_context_destroy(ctx);
    return 0;
}
