/* PNG writer: the only file that uses libpng. */
#include "internal.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sensim_status sensim_write_png(const char *path, uint32_t w, uint32_t h, uint32_t channels, uint32_t depth,
                               const void *data, size_t stride)
{
    if (!path || !data)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_png: NULL argument");
    if ((channels != 1 && channels != 3) || (depth != 8 && depth != 16))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_png: %u channels, %u bits unsupported",
                            channels, depth);
    if (w == 0 || h == 0 || w > 65535 || h > 65535)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_write_png: size %ux%u", w, h);
    if (stride < (size_t)w * channels * (depth / 8))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_png: stride %zu too small", stride);
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
    png_set_IHDR(png, info, w, h, (int)depth, channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    if (depth == 16) {
        const uint16_t one = 1;
        unsigned char b;
        memcpy(&b, &one, 1);
        if (b == 1)
            png_set_swap(png); /* PNG stores 16-bit samples big endian */
    }
    for (uint32_t y = 0; y < h; y++)
        png_write_row(png, (png_const_bytep)data + (size_t)y * stride);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return sensim__fail(SENSIM_ERR_IO, "%s: write failed", path);
    }
    return SENSIM_OK;
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
