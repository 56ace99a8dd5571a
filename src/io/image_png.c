/* PNG writer: the only file that uses libpng. */
#include "internal.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
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
