/* PNG writer: the only file that uses libpng. */
#include "internal.h"

#include <errno.h>
#include <libdeflate.h>
#include <png.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PNG encoding (issue 53, measured by bench/bench_png.c on a capture's four
 * 720p images): libdeflate at level 3 in one IDAT chunk, 14-17 ms for the
 * four against 79-82 ms for libpng's default (zlib 6, adaptive filters).
 * Rows are filtered with "up" (PNG filter 2) for images with gradients
 * (colour, normals, and sensim_write_png's callers), which keeps the sizes of
 * libpng's default, or not at all (filter 0) for label images and CARLA's
 * depth code, 20 % faster: depth is then smaller, labels about 20 KB instead
 * of 8. Images whose filtered bytes exceed SENSIM__PNG_MEM_MAX stream through
 * libpng instead (zlib level 3, filter "up"), a row at a time. Either way the
 * bytes depend on the pixels only: any thread writes the same file. */
#define SENSIM__PNG_LEVEL 3

static void be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* A chunk's length, type, data (already in place at p + 8) and CRC; returns its size. */
static size_t put_chunk(unsigned char *p, const char *type, size_t n)
{
    be32(p, (uint32_t)n);
    memcpy(p + 4, type, 4);
    be32(p + 8 + n, libdeflate_crc32(0, p + 4, n + 4));
    return n + 12;
}

static int host_little_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Scanlines with their filter byte: 0 (none: the bytes as they are) or 2 ("up": each byte minus the one
 * above it; the first row's prior row is zeros, so its bytes stay). 16-bit samples become big endian. */
static void filter_rows(uint32_t w, uint32_t h, uint32_t channels, uint32_t depth, const unsigned char *data,
                        size_t stride, int filter, unsigned char *raw)
{
    const size_t row = (size_t)w * channels * (depth / 8);
    if (depth == 8) { /* one pass from the source rows */
        for (uint32_t y = 0; y < h; y++) {
            unsigned char *restrict o = raw + (size_t)y * (row + 1);
            const unsigned char *restrict sr = data + (size_t)y * stride;
            const unsigned char *restrict up = y ? sr - stride : NULL;
            o[0] = (unsigned char)filter;
            if (!up || filter == 0) {
                memcpy(o + 1, sr, row);
                continue;
            }
            size_t i = 0;
            for (; i + 8 <= row; i += 8) { /* eight bytes at a time, each modulo 256 (no borrow across bytes) */
                const uint64_t H = UINT64_C(0x8080808080808080);
                uint64_t a, b, d;
                memcpy(&a, sr + i, 8);
                memcpy(&b, up + i, 8);
                d = ((a | H) - (b & ~H)) ^ ((a ^ ~b) & H);
                memcpy(o + 1 + i, &d, 8);
            }
            for (; i < row; i++)
                o[1 + i] = (unsigned char)(sr[i] - up[i]);
        }
        return;
    }
    for (uint32_t y = 0; y < h; y++) { /* 16 bits: big-endian samples first, then the differences */
        unsigned char *o = raw + (size_t)y * (row + 1);
        const unsigned char *sr = data + (size_t)y * stride;
        o[0] = (unsigned char)filter;
        if (host_little_endian())
            for (size_t i = 0; i < row; i += 2)
                o[1 + i] = sr[i + 1], o[2 + i] = sr[i];
        else
            memcpy(o + 1, sr, row);
    }
    for (uint32_t y = h; filter == 2 && y-- > 1;) { /* bottom up: the row above is still unfiltered */
        unsigned char *o = raw + (size_t)y * (row + 1) + 1;
        const unsigned char *u = o - (row + 1);
        for (size_t i = 0; i < row; i++)
            o[i] = (unsigned char)(o[i] - u[i]);
    }
}

/* Grow @p *buf to @p n bytes (kept between calls of one encoder). */
static int reserve(unsigned char **buf, size_t *cap, size_t n)
{
    if (*cap >= n)
        return 1;
    unsigned char *p = malloc(n);
    if (!p)
        return 0;
    free(*buf);
    *buf = p;
    *cap = n;
    return 1;
}

void sensim__png_encoder_free(sensim__png_encoder *e)
{
    if (e->compressor)
        libdeflate_free_compressor(e->compressor);
    free(e->raw);
    free(e->out);
    memset(e, 0, sizeof *e);
}

sensim_status sensim__png_encode(sensim__png_encoder *e, const char *label, uint32_t w, uint32_t h, uint32_t channels,
                                 uint32_t depth, const void *data, size_t stride, int filter, const unsigned char **out,
                                 size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    const size_t row = (size_t)w * channels * (depth / 8), rawn = (size_t)h * (row + 1);
    if (!e->compressor)
        e->compressor = libdeflate_alloc_compressor(SENSIM__PNG_LEVEL);
    size_t bound = e->compressor ? libdeflate_zlib_compress_bound(e->compressor, rawn) : 0;
    if (!e->compressor || !reserve(&e->raw, &e->raw_cap, rawn) || !reserve(&e->out, &e->out_cap, 8 + 25 + 12 + bound + 12))
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: cannot allocate the PNG encoder's %zu bytes", label,
                            rawn);
    filter_rows(w, h, channels, depth, data, stride, filter == SENSIM__PNG_FILTER_NONE ? 0 : 2, e->raw);
    unsigned char *png = e->out;
    static const unsigned char sig[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    memcpy(png, sig, 8);
    size_t n = 8;
    be32(png + n + 8, w);
    be32(png + n + 12, h);
    png[n + 16] = (unsigned char)depth, png[n + 17] = channels == 1 ? 0 : 2; /* gray or RGB */
    png[n + 18] = png[n + 19] = png[n + 20] = 0; /* deflate, adaptive filtering method, no interlace */
    n += put_chunk(png + n, "IHDR", 13);
    size_t zn = libdeflate_zlib_compress(e->compressor, e->raw, rawn, png + n + 8, bound);
    if (zn == 0) /* cannot happen with the bound's room; said rather than written wrong */
        return sensim__fail(SENSIM_ERR_IO, "%s: compression failed", label);
    n += put_chunk(png + n, "IDAT", zn);
    n += put_chunk(png + n, "IEND", 0);
    *out = png;
    *out_size = n;
    return SENSIM_OK;
}

static sensim_status check_png_args(const char *fn, uint32_t w, uint32_t h, uint32_t channels, uint32_t depth,
                                    size_t stride)
{
    if ((channels != 1 && channels != 3) || (depth != 8 && depth != 16))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: %u channels, %u bits unsupported", fn, channels, depth);
    if (w == 0 || h == 0 || w > 65535 || h > 65535)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: size %ux%u", fn, w, h);
    if (stride < (size_t)w * channels * (depth / 8))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: stride %zu too small", fn, stride);
    return SENSIM_OK;
}

/* Large images: libpng a row at a time (zlib level 3, filter "up"). */
static sensim_status write_png_stream(const char *path, uint32_t w, uint32_t h, uint32_t channels, uint32_t depth,
                                      const void *data, size_t stride)
{
    char tmp[4200];
    FILE *f = sensim__create_tmp(path, tmp, sizeof tmp);
    if (!f)
        return strlen(path) > 4000 ? SENSIM_ERR_INVALID_ARGUMENT : SENSIM_ERR_IO;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        remove(tmp);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_write_png: libpng allocation failed");
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        remove(tmp);
        return sensim__fail(SENSIM_ERR_IO, "%s: libpng write error", path);
    }
    png_init_io(png, f);
    png_set_compression_level(png, SENSIM__PNG_LEVEL);
    png_set_filter(png, 0, PNG_FILTER_UP);
    png_set_IHDR(png, info, w, h, (int)depth, channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (depth == 16 && host_little_endian())
        png_set_swap(png); /* PNG stores 16-bit samples big endian */
    for (uint32_t y = 0; y < h; y++)
        png_write_row(png, (png_const_bytep)data + (size_t)y * stride);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return sensim__commit_tmp(f, tmp, path);
}

/* Each thread's encoder for sensim_write_png, kept between calls (its buffers reused: allocating and
 * returning a few MB an image cost more in page faults than the compression; at most 32 MiB kept, a 2.7k x
 * 2k RGB image), freed when the thread ends. */
static pthread_key_t encoder_key;
static pthread_once_t encoder_once = PTHREAD_ONCE_INIT;
static int encoder_key_ok;

static void encoder_free(void *p)
{
    sensim__png_encoder_free(p);
    free(p);
}

static void encoder_key_make(void)
{
    encoder_key_ok = pthread_key_create(&encoder_key, encoder_free) == 0;
}

static sensim__png_encoder *thread_encoder(void)
{
    pthread_once(&encoder_once, encoder_key_make);
    if (!encoder_key_ok)
        return NULL;
    sensim__png_encoder *e = pthread_getspecific(encoder_key);
    if (!e && (e = calloc(1, sizeof *e)) != NULL && pthread_setspecific(encoder_key, e) != 0) {
        free(e);
        e = NULL;
    }
    return e;
}

sensim_status sensim__write_bytes(const char *path, const void *data, size_t n)
{
    char tmp[4200];
    FILE *f = sensim__create_tmp(path, tmp, sizeof tmp);
    if (!f)
        return strlen(path) > 4000 ? SENSIM_ERR_INVALID_ARGUMENT : SENSIM_ERR_IO;
    if (n && fwrite(data, 1, n, f) != n) {
        fclose(f);
        remove(tmp);
        return sensim__fail(SENSIM_ERR_IO, "%s: write failed (disk full?)", path);
    }
    return sensim__commit_tmp(f, tmp, path);
}

sensim_status sensim_write_png(const char *path, uint32_t w, uint32_t h, uint32_t channels, uint32_t depth,
                               const void *data, size_t stride)
{
    if (!path || !data)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_png: NULL argument");
    sensim_status st = check_png_args("sensim_write_png", w, h, channels, depth, stride);
    if (st != SENSIM_OK)
        return st;
    if ((uint64_t)h * ((uint64_t)w * channels * (depth / 8) + 1) > SENSIM__PNG_MEM_MAX)
        return write_png_stream(path, w, h, channels, depth, data, stride);
    sensim__png_encoder *e = thread_encoder();
    if (!e)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: cannot allocate the PNG encoder", path);
    const unsigned char *png;
    size_t n;
    if ((st = sensim__png_encode(e, path, w, h, channels, depth, data, stride, SENSIM__PNG_FILTER_UP, &png, &n)) ==
        SENSIM_OK)
        st = sensim__write_bytes(path, png, n);
    if (e->raw_cap + e->out_cap > (UINT64_C(32) << 20)) { /* a thread keeps at most 32 MiB between images */
        free(e->raw), free(e->out);
        e->raw = e->out = NULL;
        e->raw_cap = e->out_cap = 0;
    }
    return st;
}

/* ---- reading (camera textures) ---- */

sensim_status sensim__png_read_rgb(const char *path, uint32_t *out_w, uint32_t *out_h, uint8_t **out_rgb)
{
    char *data;
    size_t size;
    *out_rgb = NULL;
    sensim_status st = sensim__read_file(path, UINT64_C(256) << 20, &data, &size);
    if (st != SENSIM_OK)
        return st;
    st = sensim__png_decode_rgb(path, data, size, out_w, out_h, out_rgb);
    free(data);
    return st;
}

sensim_status sensim__png_decode_rgb(const char *label, const void *data, size_t size, uint32_t *out_w,
                                     uint32_t *out_h, uint8_t **out_rgb)
{
    const char *path = label;
    sensim_status st;
    *out_rgb = NULL;
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&img, data, size)) {
        return sensim__fail(SENSIM_ERR_PARSE, "%s: not a readable PNG (%s)", path, img.message);
    }
    if (img.width < 1 || img.width > 16384 || img.height < 1 || img.height > 16384 ||
        (uint64_t)img.width * img.height > (UINT64_C(1) << 26)) {
        st = sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: texture of %u x %u texels (at most 16384 a side and 2^26 in all)",
                          path, img.width, img.height);
        png_image_free(&img);
        return st;
    }
    img.format = PNG_FORMAT_RGB; /* 8-bit sRGB; alpha composited on black */
    uint8_t *rgb = malloc(PNG_IMAGE_SIZE(img));
    png_color black = {0, 0, 0};
    if (!rgb) {
        png_image_free(&img);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: cannot allocate a %u x %u texture", path, img.width,
                            img.height);
    }
    if (!png_image_finish_read(&img, &black, rgb, 0, NULL)) {
        st = sensim__fail(SENSIM_ERR_PARSE, "%s: PNG decoding failed (%s)", path, img.message);
        png_image_free(&img);
        free(rgb);
        return st;
    }
    *out_w = img.width;
    *out_h = img.height;
    *out_rgb = rgb;
    return SENSIM_OK;
}
