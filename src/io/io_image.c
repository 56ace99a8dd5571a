/* Frame images: range, intensity and label projections (PNG via image_png.c). */
#include "internal.h"
#include "lidar_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct grid {
    uint32_t w, h;
    bool mech;
    uint32_t *row_of;   /* mechanical: channel -> row */
    double *shift;      /* mechanical: channel -> spin·azimuth offset in columns */
    int32_t *fire;      /* mechanical: channel -> firing offset, ns */
    int64_t cols, period;
    double az0, el0, res;
} grid;

static sensim_status grid_init(grid *g, const sensim_lidar *l, double res)
{
    memset(g, 0, sizeof *g);
    sensim_lidar_info li;
    sensim_status st = sensim_lidar_get_info(l, &li);
    if (st != SENSIM_OK)
        return st;
    if (li.pattern == SENSIM_PATTERN_MECHANICAL) {
        uint32_t n = li.channel_count;
        float *el = malloc(n * sizeof *el);
        g->row_of = malloc(n * sizeof *g->row_of);
        if (!el || !g->row_of) {
            free(el);
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "images: out of memory");
        }
        g->shift = malloc(n * sizeof *g->shift);
        g->fire = malloc(n * sizeof *g->fire);
        if (!g->shift || !g->fire) {
            free(el);
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "images: out of memory");
        }
        /* destagger: each channel's azimuth offset (without the firing-time
         * turn, which the column time already carries) in columns */
        const sensim_pattern *p = &l->pat;
        for (uint32_t c = 0; c < n; c++) {
            double turn = 2.0 * SENSIM_PI * (double)p->fire_off_ns[c] / (double)p->frame_ns;
            double off = atan2((double)p->sin_off[c], (double)p->cos_off[c]) - p->spin * turn;
            g->shift[c] = p->spin * off * (double)li.columns_per_revolution / (2.0 * SENSIM_PI);
            g->fire[c] = p->fire_off_ns[c];
        }
        sensim_lidar_get_elevations(l, el, n, &n);
        for (uint32_t c = 0; c < n; c++) { /* rank by elevation, highest first; ties by channel */
            uint32_t r = 0;
            for (uint32_t d = 0; d < n; d++)
                r += el[d] > el[c] || (el[d] == el[c] && d < c);
            g->row_of[c] = r;
        }
        free(el);
        g->mech = true;
        g->w = li.columns_per_frame;
        g->h = n;
        g->cols = li.columns_per_revolution;
        g->period = li.frame_period_ns;
        return SENSIM_OK;
    }
    if (res == 0)
        res = 0.2 * SENSIM_PI / 180.0;
    if (!(res >= 1e-4 && res <= 0.5))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "images: resolution %g rad outside [1e-4, 0.5]", res);
    sensim_pattern_stats ps;
    if ((st = sensim_pattern_measure(l, 0, li.frame_period_ns, 0.5, NULL, 0, NULL, NULL, 0, &ps)) != SENSIM_OK)
        return st;
    double w = ceil((ps.az_max_rad - ps.az_min_rad) / res) + 1, h = ceil((ps.el_max_rad - ps.el_min_rad) / res) + 1;
    if (w > 65535 || h > 65535)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "images: %gx%g pixels at %g rad", w, h, res);
    g->w = (uint32_t)w, g->h = (uint32_t)h;
    g->az0 = ps.az_max_rad, g->el0 = ps.el_max_rad, g->res = res;
    return SENSIM_OK;
}

static bool cell(const grid *g, const sensim_point *p, uint32_t *x, uint32_t *y)
{
    if (g->mech) {
        if (p->channel >= g->h)
            return false;
        /* destaggered: the column whose head angle is nearest the point's azimuth */
        double f = (double)((int64_t)p->t_offset_ns - g->fire[p->channel]) / (double)g->period;
        double k = floor(f * (double)g->cols + g->shift[p->channel] + 0.5);
        k -= floor(k / (double)g->cols) * (double)g->cols;
        if (!(k >= 0 && k < (double)g->w))
            return false;
        *x = (uint32_t)k, *y = g->row_of[p->channel];
        return true;
    }
    double r = p->range_m > 0 ? p->range_m : 1.0;
    double az = atan2(p->y, p->x), el = asin(fmax(-1.0, fmin(1.0, p->z / r)));
    double fx = (g->az0 - az) / g->res, fy = (g->el0 - el) / g->res;
    if (!(fx >= 0 && fy >= 0 && fx < g->w && fy < g->h))
        return false;
    *x = (uint32_t)fx, *y = (uint32_t)fy;
    return true;
}

/* First returns into the cells of @p g, the nearest winning a cell: range
 * (4 mm steps, 0 = none), intensity (8 bit), label colour. */
static void project(const grid *g, const sensim_point *pts, uint64_t n, uint16_t *rng, uint8_t *inten, uint8_t *lab,
                    float *best)
{
    for (size_t i = 0; i < (size_t)g->w * g->h; i++)
        best[i] = INFINITY;
    for (uint64_t i = 0; i < n; i++) {
        const sensim_point *p = &pts[i];
        uint32_t x, y;
        if ((p->flags & SENSIM_POINT_RETURN_MASK) != 0 || !cell(g, p, &x, &y))
            continue;
        size_t c = (size_t)y * g->w + x;
        if (p->range_m >= best[c])
            continue;
        best[c] = p->range_m;
        double q = floor(p->range_m / 0.004 + 0.5);
        rng[c] = (uint16_t)(q < 1 ? 1 : q > 65535 ? 65535 : q);
        double iv = floor(255.0 * p->intensity + 0.5);
        inten[c] = (uint8_t)(iv < 0 ? 0 : iv > 255 ? 255 : iv);
        sensim_tag_color(p->tag, &lab[3 * c]);
    }
}

static sensim_status write_preview(const char *path, const grid *g, const uint16_t *rng, double max_range_m);

static sensim_status frame_images(const sensim_lidar *l, const sensim_point *pts, uint64_t n, double res,
                                  const char *range_png, const char *intensity_png, const char *label_png,
                                  const char *preview_png, double max_range_m, uint32_t *out_w, uint32_t *out_h)
{
    if (!l || (n && !pts))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_frame_images: NULL argument");
    if (!isfinite(res) || res < 0)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "images: resolution %g rad", res);
    grid g;
    sensim_status st = grid_init(&g, l, res);
    if (st != SENSIM_OK) {
        free(g.row_of);
        free(g.shift);
        free(g.fire);
        return st;
    }
    size_t cells = (size_t)g.w * g.h;
    uint16_t *rng = calloc(cells, sizeof *rng);
    uint8_t *inten = calloc(cells, 1), *lab = calloc(cells * 3, 1);
    float *best = malloc(cells * sizeof *best);
    if (!rng || !inten || !lab || !best) {
        st = sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "images: out of memory for %ux%u", g.w, g.h);
        goto out;
    }
    project(&g, pts, n, rng, inten, lab, best);
    if (range_png && (st = sensim_write_png(range_png, g.w, g.h, 1, 16, rng, (size_t)g.w * 2)) != SENSIM_OK)
        goto out;
    if (intensity_png && (st = sensim_write_png(intensity_png, g.w, g.h, 1, 8, inten, g.w)) != SENSIM_OK)
        goto out;
    if (label_png && (st = sensim_write_png(label_png, g.w, g.h, 3, 8, lab, (size_t)g.w * 3)) != SENSIM_OK)
        goto out;
    if (preview_png && (st = write_preview(preview_png, &g, rng, max_range_m)) != SENSIM_OK)
        goto out;
    if (out_w)
        *out_w = g.w;
    if (out_h)
        *out_h = g.h;
out:
    free(rng);
    free(inten);
    free(lab);
    free(best);
    free(g.row_of);
    free(g.shift);
    free(g.fire);
    return st;
}

sensim_status sensim_write_frame_images(const sensim_lidar *l, const sensim_point *pts, uint64_t n, double res,
                                        const char *range_png, const char *intensity_png, const char *label_png,
                                        uint32_t *out_w, uint32_t *out_h)
{
    return frame_images(l, pts, n, res, range_png, intensity_png, label_png, NULL, 0, out_w, out_h);
}

sensim_status sensim_write_range_preview(const sensim_lidar *l, const sensim_point *pts, uint64_t n, double res,
                                         double max_range_m, const char *path, uint32_t *out_w, uint32_t *out_h)
{
    if (!path)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_range_preview: path is NULL");
    if (!isfinite(max_range_m) || max_range_m < 0 || max_range_m > 1e5)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_write_range_preview: max_range_m %g outside [0, 1e5]",
                            max_range_m);
    return frame_images(l, pts, n, res, NULL, NULL, NULL, path, max_range_m, out_w, out_h);
}

/* ---- drawing: a 5x7 font, a colour ramp ---- */

/* rows of 5 bits, top first */
static const struct glyph {
    char c;
    uint8_t rows[7];
} FONT[] = {
    {'0', {14, 17, 19, 21, 25, 17, 14}}, {'1', {4, 12, 4, 4, 4, 4, 14}},     {'2', {14, 17, 1, 2, 4, 8, 31}},
    {'3', {30, 1, 1, 14, 1, 1, 30}},     {'4', {2, 6, 10, 18, 31, 2, 2}},    {'5', {31, 16, 30, 1, 1, 17, 14}},
    {'6', {6, 8, 16, 30, 17, 17, 14}},   {'7', {31, 1, 2, 4, 8, 8, 8}},      {'8', {14, 17, 17, 14, 17, 17, 14}},
    {'9', {14, 17, 17, 15, 1, 2, 12}},   {'.', {0, 0, 0, 0, 0, 12, 12}},     {'m', {0, 0, 26, 21, 21, 21, 21}},
    {'s', {0, 0, 15, 16, 14, 1, 30}},    {'h', {16, 16, 22, 25, 17, 17, 17}}, {'o', {0, 0, 14, 17, 17, 17, 14}},
    {'t', {8, 8, 28, 8, 8, 9, 6}},       {'/', {1, 2, 2, 4, 8, 8, 16}},      {'b', {16, 16, 22, 25, 17, 17, 30}},
    {'i', {4, 0, 12, 4, 4, 4, 14}},      {'n', {0, 0, 22, 25, 17, 17, 17}},  {'a', {0, 0, 14, 1, 15, 17, 15}},
    {'x', {0, 0, 17, 10, 4, 10, 17}},    {'l', {12, 4, 4, 4, 4, 4, 14}},     {'g', {0, 0, 15, 17, 15, 1, 14}},
    {'(', {2, 4, 8, 8, 8, 4, 2}},        {')', {8, 4, 2, 2, 2, 4, 8}},       {'-', {0, 0, 0, 31, 0, 0, 0}},
    {'r', {0, 0, 22, 25, 16, 16, 16}},   {'e', {0, 0, 14, 17, 31, 16, 14}},  {'p', {0, 0, 30, 17, 30, 16, 16}},
    {'z', {0, 0, 31, 2, 4, 8, 31}},      {'u', {0, 0, 17, 17, 17, 19, 13}},  {'d', {1, 1, 13, 19, 17, 17, 15}},
    {'v', {0, 0, 17, 17, 17, 10, 4}},    {'c', {0, 0, 14, 16, 16, 17, 14}},  {'+', {0, 4, 4, 31, 4, 4, 0}},
    {',', {0, 0, 0, 0, 12, 4, 8}},       {'=', {0, 0, 31, 0, 31, 0, 0}},    {'f', {6, 8, 8, 28, 8, 8, 8}},
};

/* Text at (x, y) (top left) in an RGB image, each font pixel @p scale pixels. */
static void draw_text(uint8_t *img, uint32_t w, uint32_t h, int x, int y, const char *text, int scale,
                      const uint8_t rgb[3])
{
    for (; *text; text++, x += 6 * scale) {
        const struct glyph *g = NULL;
        for (size_t k = 0; k < sizeof FONT / sizeof *FONT; k++)
            if (FONT[k].c == *text)
                g = &FONT[k];
        if (!g)
            continue; /* a space, or a character the font lacks */
        for (int r = 0; r < 7 * scale; r++)
            for (int c = 0; c < 5 * scale; c++) {
                int px = x + c, py = y + r;
                if (px < 0 || py < 0 || px >= (int)w || py >= (int)h || !((g->rows[r / scale] >> (4 - c / scale)) & 1))
                    continue;
                memcpy(img + 3 * ((size_t)py * w + (size_t)px), rgb, 3);
            }
    }
}

static void fill(uint8_t *img, uint32_t w, uint32_t h, int x0, int y0, int x1, int y1, const uint8_t rgb[3])
{
    for (int y = y0 < 0 ? 0 : y0; y < y1 && y < (int)h; y++)
        for (int x = x0 < 0 ? 0 : x0; x < x1 && x < (int)w; x++)
            memcpy(img + 3 * ((size_t)y * w + (size_t)x), rgb, 3);
}

/* Viridis at u in [0, 1] (5 stops, linear between them). */
static void colormap(double u, uint8_t out[3])
{
    static const double stop[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    double f = u * 4;
    int i = f >= 4 ? 3 : (int)f;
    f -= i;
    for (int k = 0; k < 3; k++)
        out[k] = (uint8_t)floor(stop[i][k] * (1 - f) + stop[i + 1][k] * f + 0.5);
}

/* A legend bar: the ramp from x0 to x1 at rows y..y+10, labels under its ends. */
static void legend(uint8_t *img, uint32_t w, uint32_t h, int x0, int x1, int y, const char *lo, const char *hi)
{
    static const uint8_t white[3] = {230, 230, 230};
    for (int x = x0; x < x1; x++) {
        uint8_t c[3];
        colormap((double)(x - x0) / (double)(x1 - x0 - 1 > 0 ? x1 - x0 - 1 : 1), c);
        fill(img, w, h, x, y, x + 1, y + 10, c);
    }
    draw_text(img, w, h, x0, y + 14, lo, 1, white);
    draw_text(img, w, h, x1 - 6 * (int)strlen(hi), y + 14, hi, 1, white);
}

/* The 8-bit preview of a range image: viridis over [0, max range], black =
 * no return, rows repeated (k = 256 / rows, 1..16) so 16..128-channel
 * sensors read as pictures, and a legend strip of 30 rows below. */
static sensim_status write_preview(const char *path, const grid *g, const uint16_t *rng, double max_range_m)
{
    uint32_t k = g->h >= 256 ? 1 : 256 / g->h;
    k = k > 16 ? 16 : k;
    uint64_t H = (uint64_t)g->h * k + 30;
    if (H > 65535)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "range preview: %llu rows", (unsigned long long)H);
    uint8_t *img = calloc((size_t)g->w * H, 3);
    if (!img)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "range preview: out of memory");
    double mr = max_range_m;
    if (mr == 0) { /* the frame's farthest first return, up to the next 10 m */
        uint16_t vmax = 0;
        for (size_t i = 0; i < (size_t)g->w * g->h; i++)
            vmax = rng[i] > vmax ? rng[i] : vmax;
        mr = 10 * ceil(vmax * 0.004 / 10);
        mr = mr > 0 ? mr : 10;
    }
    for (uint32_t y = 0; y < g->h; y++)
        for (uint32_t x = 0; x < g->w; x++) {
            uint16_t v = rng[(size_t)y * g->w + x];
            uint8_t c[3] = {0, 0, 0};
            if (v)
                colormap(v * 0.004 / mr, c);
            for (uint32_t r = 0; r < k; r++)
                memcpy(img + 3 * (((size_t)y * k + r) * g->w + x), c, 3);
        }
    char hi[32];
    snprintf(hi, sizeof hi, "%.0f m", mr);
    uint32_t lw = g->w < 400 ? g->w : 400;
    legend(img, g->w, (uint32_t)H, 2, (int)lw - 2, (int)(g->h * k) + 2, "0 m", hi);
    sensim_status st = sensim_write_png(path, g->w, (uint32_t)H, 3, 8, img, (size_t)g->w * 3);
    free(img);
    return st;
}

void sensim_bev_options_init(sensim_bev_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->half_extent_m = 50;
    o->resolution_m = 0.1;
    o->grid_m = 10;
    o->z_min_m = -1e9;
    o->z_max_m = 1e9;
}

/* A white scale bar @p bar pixels long with end ticks at (x0, y0) and its
 * length in metres written above it. */
static void scale_bar(uint8_t *img, uint32_t w, uint32_t h, int x0, int y0, int bar, double bar_m, int text_scale)
{
    static const uint8_t white[3] = {255, 255, 255};
    const int th = 2 * text_scale; /* bar thickness follows the text size */
    fill(img, w, h, x0, y0, x0 + bar, y0 + th, white);
    fill(img, w, h, x0, y0 - 3 * text_scale, x0 + 2, y0 + th, white);
    fill(img, w, h, x0 + bar - 2, y0 - 3 * text_scale, x0 + bar, y0 + th, white);
    char label[32];
    snprintf(label, sizeof label, "%g m", bar_m);
    draw_text(img, w, h, x0, y0 - 3 * text_scale - 8 * text_scale, label, text_scale, white);
}

sensim_status sensim_write_bev_png(const char *path, const sensim_point *pts, uint64_t n,
                                   const sensim_bev_options *options, uint32_t *out_size)
{
    if (!path || (n && !pts))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_bev_png: NULL argument");
    sensim_bev_options o;
    sensim_bev_options_init(&o);
    if (options)
        o = *options;
    for (int i = 0; i < 4; i++)
        if (o.reserved[i])
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_bev_png: reserved[%d] is not zero", i);
    if (!isfinite(o.half_extent_m) || !isfinite(o.resolution_m) || !isfinite(o.grid_m) || isnan(o.z_min_m) ||
        isnan(o.z_max_m))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_write_bev_png: an option is NaN or infinite");
    if (!(o.half_extent_m > 0 && o.half_extent_m <= 1e4) || !(o.resolution_m >= 0.005 && o.resolution_m <= 10) ||
        o.grid_m < 0 || o.grid_m > 1e4 || o.z_min_m > o.z_max_m)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                            "sensim_write_bev_png: half_extent_m %g (0, 1e4], resolution_m %g [0.005, 10], grid_m %g "
                            "[0, 1e4], z_min_m <= z_max_m",
                            o.half_extent_m, o.resolution_m, o.grid_m);
    double sz = floor(2 * o.half_extent_m / o.resolution_m + 0.5);
    if (sz < 64 || sz > 8192)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_write_bev_png: %g pixels across (64..8192)", sz);
    const uint32_t S = (uint32_t)sz;
    const double e = o.half_extent_m, res = o.resolution_m;
    uint8_t *img = calloc((size_t)S * S, 3);
    float *top = malloc((size_t)S * S * sizeof *top);
    if (!img || !top) {
        free(img);
        free(top);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_write_bev_png: out of memory for %ux%u", S, S);
    }
    /* grid every grid_m (x = 0 and y = 0 brighter), then points: the highest wins a pixel */
    static const uint8_t grid_c[3] = {45, 45, 45}, axis_c[3] = {90, 90, 90};
    if (o.grid_m > 0 && o.grid_m / res >= 4)
        for (double v = -floor(e / o.grid_m) * o.grid_m; v <= e; v += o.grid_m) {
            int p = (int)floor((e - v) / res);
            const uint8_t *c = fabs(v) < 1e-9 ? axis_c : grid_c;
            fill(img, S, S, 0, p, (int)S, p + 1, c); /* the line x = v */
            fill(img, S, S, p, 0, p + 1, (int)S, c); /* the line y = v */
        }
    for (size_t i = 0; i < (size_t)S * S; i++)
        top[i] = -INFINITY;
    for (uint64_t i = 0; i < n; i++) {
        const sensim_point *q = &pts[i];
        if (!(q->z >= o.z_min_m && q->z <= o.z_max_m)) /* also drops NaN */
            continue;
        double col = floor((e - q->y) / res), row = floor((e - q->x) / res);
        if (!(col >= 0 && col < S && row >= 0 && row < S))
            continue;
        size_t c = (size_t)row * S + (size_t)col;
        if (q->z <= top[c])
            continue;
        top[c] = q->z;
        sensim_tag_color(q->tag, img + 3 * c);
        if (q->tag == 0)
            memset(img + 3 * c, 160, 3); /* unlabeled: grey, visible on black */
    }
    /* scale bar: grid_m (or 10 m) long, bottom left, with its length written above it */
    double bar_m = o.grid_m > 0 ? o.grid_m : 10;
    int bar = (int)floor(bar_m / res + 0.5), x0 = 10, y0 = (int)S - 14;
    if (bar > (int)S / 2)
        bar = (int)S / 2, bar_m = bar * res;
    scale_bar(img, S, S, x0, y0, bar, bar_m, 2);
    sensim_status st = sensim_write_png(path, S, S, 3, 8, img, (size_t)S * 3);
    free(img);
    free(top);
    if (!st && out_size)
        *out_size = S;
    return st;
}

sensim_status sensim_write_roi_png(const char *path, const sensim_roi_desc *roi, const uint32_t *cells,
                                   const double *sensors_xy, uint32_t sensor_count, uint32_t *out_w, uint32_t *out_h)
{
    uint32_t nx, ny;
    sensim_status st = sensim_roi_grid_size(roi, &nx, &ny);
    if (st != SENSIM_OK)
        return st;
    if (!path || !cells || (sensor_count && !sensors_xy))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_roi_png: NULL argument");
    if (nx > 8192 || ny > 8192)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_write_roi_png: %u x %u cells (8192 a side at most)", nx, ny);
    uint32_t big = nx > ny ? nx : ny, k = big >= 512 ? 1 : 512 / big;
    k = k > 32 ? 32 : k;
    const uint32_t mw = nx * k, mh = ny * k, W = mw < 200 ? 200 : mw, H = mh + 34;
    uint8_t *img = calloc((size_t)W * H, 3);
    if (!img)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_write_roi_png: out of memory for %ux%u", W, H);
    uint32_t mx = 0;
    for (size_t c = 0; c < (size_t)nx * ny; c++)
        mx = cells[c] > mx ? cells[c] : mx;
    static const uint8_t empty[3] = {35, 35, 35}, white[3] = {255, 255, 255};
    for (uint32_t j = 0; j < ny; j++) /* row 0 of the image is the ROI's top (ymax): x right, y up, as a map */
        for (uint32_t i = 0; i < nx; i++) {
            uint32_t v = cells[(size_t)j * nx + i];
            uint8_t c[3];
            if (v)
                colormap(log1p((double)v) / log1p((double)mx), c);
            else
                memcpy(c, empty, 3);
            int y0 = (int)((ny - 1 - j) * k);
            fill(img, W, H, (int)(i * k), y0, (int)((i + 1) * k), y0 + (int)k, c);
        }
    const double ppm = k / roi->cell_m; /* pixels per metre */
    for (uint32_t s = 0; s < sensor_count; s++) { /* sensors: a white cross with a dark edge (clipped) */
        double px = (sensors_xy[2 * s] - roi->xmin) * ppm, py = mh - (sensors_xy[2 * s + 1] - roi->ymin) * ppm;
        if (!(px > -1e6 && px < 1e6 && py > -1e6 && py < 1e6))
            continue;
        int x = (int)floor(px), y = (int)floor(py);
        static const uint8_t dark[3] = {0, 0, 0};
        fill(img, W, mh, x - 7, y - 2, x + 8, y + 3, dark);
        fill(img, W, mh, x - 2, y - 7, x + 3, y + 8, dark);
        fill(img, W, mh, x - 6, y - 1, x + 7, y + 2, white);
        fill(img, W, mh, x - 1, y - 6, x + 2, y + 7, white);
    }
    /* scale bar: 1, 2 or 5 x 10^n metres, about a quarter of the ROI's width, bottom left of the map */
    double want = (roi->xmax - roi->xmin) / 4, bar_m = pow(10, floor(log10(want)));
    bar_m *= want / bar_m >= 5 ? 5 : want / bar_m >= 2 ? 2 : 1;
    int bar = (int)floor(bar_m * ppm + 0.5), x0 = 8, y0 = (int)mh - 10;
    if (bar >= 4 && mh >= 40)
        scale_bar(img, W, H, x0, y0, bar, bar_m, 1);
    char hi[32];
    snprintf(hi, sizeof hi, "%u pts", mx);
    legend(img, W, H, 2, (int)(W < 400 ? W : 400) - 2, (int)mh + 4, "0", hi);
    st = sensim_write_png(path, W, H, 3, 8, img, (size_t)W * 3);
    free(img);
    if (st == SENSIM_OK && out_w)
        *out_w = W;
    if (st == SENSIM_OK && out_h)
        *out_h = H;
    return st;
}

/* A tick step for @p span degrees drawn over @p px pixels: about 6 ticks, at
 * least 60 pixels apart, from 1/2/5 x 10^n and the round angles 15..90. */
static double tick_step(double span, double px)
{
    static const double steps[] = {0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 45, 90};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if (span / steps[i] <= 8 && steps[i] / span * px >= 60)
            return steps[i];
    return 90;
}

/* "%g" of a tick, "-0" as "0". */
static void tick_label(char *buf, size_t n, double v)
{
    snprintf(buf, n, "%g", fabs(v) < 1e-9 ? 0.0 : v);
}

#define FIG_SCALE 2                /* text: 12 x 14 pixels a character */
#define FIG_CW (6 * FIG_SCALE)
#define FIG_L (8 + 5 * FIG_CW + 10) /* room for "-90.5" and a tick */
#define FIG_T 30
#define FIG_R 24
#define FIG_MAX_PIXELS (64u << 20)

sensim_status sensim_write_pattern_figure(const sensim_lidar *l, double duration_s, double bin_rad, const char *path,
                                          sensim_pattern_figure *out)
{
    if (!l || !path)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_pattern_figure: NULL argument");
    if (!isfinite(duration_s) || !(duration_s > 0 && duration_s <= 3600))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_write_pattern_figure: duration %g s outside (0, 3600]",
                            duration_s);
    sensim_pattern_stats ps;
    int64_t t1 = (int64_t)llround(duration_s * 1e9);
    sensim_status st = sensim_pattern_measure(l, 0, t1, bin_rad, NULL, 0, NULL, NULL, 0, &ps);
    if (st)
        return st;
    uint64_t cells = (uint64_t)ps.az_bins * ps.el_bins;
    uint32_t *dens = malloc(cells * sizeof *dens);
    if (!dens)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_write_pattern_figure: out of memory for %llu bins",
                            (unsigned long long)cells);
    if ((st = sensim_pattern_measure(l, 0, t1, bin_rad, NULL, 0, NULL, dens, cells, &ps))) {
        free(dens);
        return st;
    }
    /* crop to the bins hit */
    uint32_t c0 = ps.az_bins, c1 = 0, r0 = ps.el_bins, r1 = 0, mx = 0;
    for (uint32_t r = 0; r < ps.el_bins; r++)
        for (uint32_t c = 0; c < ps.az_bins; c++) {
            uint32_t v = dens[(uint64_t)r * ps.az_bins + c];
            if (v) {
                c0 = c < c0 ? c : c0, c1 = c > c1 ? c : c1, r0 = r < r0 ? r : r0, r1 = r > r1 ? r : r1;
                mx = v > mx ? v : mx;
            }
        }
    if (mx == 0)
        c0 = r0 = c1 = r1 = 0;
    const uint32_t w = c1 - c0 + 1, h = r1 - r0 + 1;
    uint32_t k = (800 + w - 1) / w;
    k = k > 32 ? 32 : k;
    if ((uint64_t)h * k > 2400)
        k = h >= 2400 ? 1 : 2400 / h;
    uint32_t ky = k; /* a panorama (360 x 30 deg) is stretched upwards to stay readable */
    if ((uint64_t)h * ky < 300)
        ky = (300 + h - 1) / h > 32 ? 32 : (300 + h - 1) / h;
    const uint32_t pw = w * k, ph = h * ky, px0 = FIG_L, py0 = FIG_T;
    const uint32_t W = px0 + pw + FIG_R < 800 ? 800 : px0 + pw + FIG_R, legend_y = py0 + ph + 58,
                   H = legend_y + 14 + 6 + 14 + 8;
    if ((uint64_t)W * H > FIG_MAX_PIXELS) {
        free(dens);
        return sensim__fail(SENSIM_ERR_TOO_LARGE,
                            "sensim_write_pattern_figure: a %u x %u pixel figure (%u x %u bins of %g deg) passes the "
                            "budget of %u M pixels: use larger bins",
                            W, H, w, h, bin_rad * 180 / SENSIM_PI, FIG_MAX_PIXELS >> 20);
    }
    uint8_t *img = calloc((size_t)W * H, 3);
    if (!img) {
        free(dens);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_write_pattern_figure: out of memory for %ux%u", W, H);
    }
    static const uint8_t white[3] = {230, 230, 230}, grid_c[3] = {48, 48, 48}, axis_c[3] = {150, 150, 150};
    const double bd = bin_rad * 180 / SENSIM_PI;
    const double az_left = (double)(c0 + w) * bd - 180, az_right = (double)c0 * bd - 180;
    const double el_top = 90 - (double)r0 * bd, el_bottom = 90 - (double)(r0 + h) * bd;
    /* grid lines first (the density covers them where there are shots), ticks and labels */
    char lab[32];
    double sa = tick_step(az_left - az_right, pw), se = tick_step(el_top - el_bottom, ph);
    for (double a = ceil(az_right / sa - 1e-9) * sa; a <= az_left + 1e-9; a += sa) {
        int x = (int)px0 + (int)floor((az_left - a) / bd * k);
        x = x >= (int)(px0 + pw) ? (int)(px0 + pw) - 1 : x;
        fill(img, W, H, x, (int)py0, x + 1, (int)(py0 + ph), grid_c);
        fill(img, W, H, x, (int)(py0 + ph), x + 1, (int)(py0 + ph) + 6, axis_c);
        tick_label(lab, sizeof lab, a);
        draw_text(img, W, H, x - (int)strlen(lab) * FIG_CW / 2, (int)(py0 + ph) + 9, lab, FIG_SCALE, white);
    }
    for (double e = ceil(el_bottom / se - 1e-9) * se; e <= el_top + 1e-9; e += se) {
        int y = (int)py0 + (int)floor((el_top - e) / bd * ky);
        y = y >= (int)(py0 + ph) ? (int)(py0 + ph) - 1 : y;
        fill(img, W, H, (int)px0, y, (int)(px0 + pw), y + 1, grid_c);
        fill(img, W, H, (int)px0 - 6, y, (int)px0, y + 1, axis_c);
        tick_label(lab, sizeof lab, e);
        draw_text(img, W, H, (int)px0 - 9 - (int)strlen(lab) * FIG_CW, y - 7, lab, FIG_SCALE, white);
    }
    for (uint32_t r = 0; r < h; r++)
        for (uint32_t c = 0; c < w; c++) {
            uint32_t v = dens[(uint64_t)(r + r0) * ps.az_bins + (c0 + c)];
            if (!v)
                continue;
            /* column 0 of the density is azimuth -180: flip so left is +azimuth (left of the sensor) */
            uint8_t rgb[3];
            colormap(log1p(v) / log1p(mx), rgb);
            int x = (int)(px0 + (w - 1 - c) * k), y = (int)(py0 + r * ky);
            fill(img, W, H, x, y, x + (int)k, y + (int)ky, rgb);
        }
    /* frame, axis titles, the ramp */
    fill(img, W, H, (int)px0 - 1, (int)py0 - 1, (int)(px0 + pw) + 1, (int)py0, axis_c);
    fill(img, W, H, (int)px0 - 1, (int)(py0 + ph), (int)(px0 + pw) + 1, (int)(py0 + ph) + 1, axis_c);
    fill(img, W, H, (int)px0 - 1, (int)py0, (int)px0, (int)(py0 + ph), axis_c);
    fill(img, W, H, (int)(px0 + pw), (int)py0, (int)(px0 + pw) + 1, (int)(py0 + ph), axis_c);
    draw_text(img, W, H, 6, 8, "elevation (deg), up", FIG_SCALE, white);
    const char *az_title = "azimuth (deg), left = +azimuth";
    draw_text(img, W, H, (int)(px0 + pw / 2) - (int)strlen(az_title) * FIG_CW / 2, (int)(py0 + ph) + 30, az_title,
              FIG_SCALE, white);
    const int lx0 = (int)px0, lx1 = (int)(px0 + (pw < 400 ? 400 : pw));
    for (int x = lx0; x < lx1 && x < (int)W; x++) {
        uint8_t c[3];
        colormap((double)(x - lx0) / (double)(lx1 - lx0 - 1), c);
        fill(img, W, H, x, (int)legend_y, x + 1, (int)legend_y + 14, c);
    }
    char hi[48];
    snprintf(hi, sizeof hi, "%u shots/bin (log)", mx);
    draw_text(img, W, H, lx0, (int)legend_y + 20, "0", FIG_SCALE, white);
    draw_text(img, W, H, lx1 - (int)strlen(hi) * FIG_CW, (int)legend_y + 20, hi, FIG_SCALE, white);
    st = sensim_write_png(path, W, H, 3, 8, img, (size_t)W * 3);
    free(img);
    free(dens);
    if (!st && out) {
        memset(out, 0, sizeof *out);
        out->width_px = W, out->height_px = H, out->bins_az = w, out->bins_el = h, out->bin_px_x = k, out->bin_px_y = ky;
        out->plot_x = px0, out->plot_y = py0, out->max_shots = mx;
        out->az_left_deg = az_left, out->el_top_deg = el_top, out->bin_deg = bd;
    }
    return st;
}

sensim_status sensim_write_pattern_png(const sensim_lidar *l, double duration_s, double bin_rad, const char *path,
                                       uint32_t *out_w, uint32_t *out_h, uint32_t *out_max)
{
    sensim_pattern_figure f;
    sensim_status st = sensim_write_pattern_figure(l, duration_s, bin_rad, path, &f);
    if (!st) {
        if (out_w)
            *out_w = f.bins_az;
        if (out_h)
            *out_h = f.bins_el;
        if (out_max)
            *out_max = f.max_shots;
    }
    return st;
}
