/* Frame images: range, intensity and label projections (PNG via image_png.c). */
#include "internal.h"
#include "lidar_impl.h"

#include <math.h>
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

sensim_status sensim_write_frame_images(const sensim_lidar *l, const sensim_point *pts, uint64_t n, double res,
                                        const char *range_png, const char *intensity_png, const char *label_png,
                                        uint32_t *out_w, uint32_t *out_h)
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
    for (size_t i = 0; i < cells; i++)
        best[i] = INFINITY;
    for (uint64_t i = 0; i < n; i++) {
        const sensim_point *p = &pts[i];
        uint32_t x, y;
        if ((p->flags & SENSIM_POINT_RETURN_MASK) != 0 || !cell(&g, p, &x, &y))
            continue;
        size_t c = (size_t)y * g.w + x;
        if (p->range_m >= best[c])
            continue;
        best[c] = p->range_m;
        double q = floor(p->range_m / 0.004 + 0.5);
        rng[c] = (uint16_t)(q < 1 ? 1 : q > 65535 ? 65535 : q);
        double iv = floor(255.0 * p->intensity + 0.5);
        inten[c] = (uint8_t)(iv < 0 ? 0 : iv > 255 ? 255 : iv);
        sensim_tag_color(p->tag, &lab[3 * c]);
    }
    if (range_png && (st = sensim_write_png(range_png, g.w, g.h, 1, 16, rng, (size_t)g.w * 2)) != SENSIM_OK)
        goto out;
    if (intensity_png && (st = sensim_write_png(intensity_png, g.w, g.h, 1, 8, inten, g.w)) != SENSIM_OK)
        goto out;
    if (label_png && (st = sensim_write_png(label_png, g.w, g.h, 3, 8, lab, (size_t)g.w * 3)) != SENSIM_OK)
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
