/* Mechanical (spinning) scan pattern: validation, tables, exact timing. */
#include "pattern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RANGE_FAIL(...) sensim__fail(SENSIM_ERR_OUT_OF_RANGE, __VA_ARGS__)

/* Column k's firing time within its revolution: floor(k·P/C). */
static int64_t col_time(const sensim_pattern *p, int64_t k)
{
    return k * p->frame_ns / p->cols_per_rev;
}

/* Time of shot s (0 <= s < shots_per_rev) within its revolution. Shots are
 * numbered column by column in firing order, so this never decreases. */
static int64_t shot_time_in_rev(const sensim_pattern *p, uint64_t s)
{
    return col_time(p, (int64_t)(s / p->channels)) + p->fire_off_ns[p->fire_order[s % p->channels]];
}

int64_t sensim__mech_time(const sensim_pattern *p, int64_t g)
{
    int64_t r = sensim__floordiv(g, (int64_t)p->shots_per_rev);
    return r * p->frame_ns + shot_time_in_rev(p, (uint64_t)(g - r * (int64_t)p->shots_per_rev));
}

int64_t sensim__mech_first_at(const sensim_pattern *p, int64_t t)
{
    int64_t r = sensim__floordiv(t, p->frame_ns);
    int64_t x = t - r * p->frame_ns;
    /* binary search for the first shot of the revolution at or after x */
    uint64_t lo = 0, hi = p->shots_per_rev;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (shot_time_in_rev(p, mid) >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return r * (int64_t)p->shots_per_rev + (int64_t)lo;
}

void sensim__mech_dir(const sensim_pattern *p, int64_t g, uint16_t *channel, float d[3])
{
    int64_t r = sensim__floordiv(g, (int64_t)p->shots_per_rev);
    uint64_t s = (uint64_t)(g - r * (int64_t)p->shots_per_rev);
    uint32_t k = (uint32_t)(s / p->channels), ch = p->fire_order[s % p->channels];
    float ca = p->cos_col[k] * p->cos_off[ch] - p->sin_col[k] * p->sin_off[ch];
    float sa = p->sin_col[k] * p->cos_off[ch] + p->cos_col[k] * p->sin_off[ch];
    d[0] = p->cos_el[ch] * ca;
    d[1] = p->cos_el[ch] * sa;
    d[2] = p->sin_el[ch];
    *channel = (uint16_t)ch;
}

sensim_status sensim__mech_init(sensim_pattern *p, const sensim_lidar_desc *d)
{
    uint32_t n = d->channel_count;
    if (!d->elevation_rad)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "lidar: elevation_rad is NULL");
    double rot = d->rotation_hz == 0.0 ? 10.0 : d->rotation_hz;
    if (!isfinite(rot) || !isfinite(d->shots_per_s) || !isfinite(d->azimuth_resolution_rad) ||
        !isfinite(d->hfov_rad) || !isfinite(d->start_azimuth_rad))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: rotation_hz, shots_per_s, azimuth_resolution_rad, "
                                                   "hfov_rad or start_azimuth_rad is not finite");
    if (rot < 0.25 || rot > 1000.0)
        return RANGE_FAIL("lidar: rotation_hz = %g outside [0.25, 1000]", rot);
    double hfov = d->hfov_rad == 0.0 ? 2.0 * SENSIM_PI : d->hfov_rad;
    if (hfov <= 0.0 || hfov > 2.0 * SENSIM_PI + 1e-9)
        return RANGE_FAIL("lidar: hfov_rad = %g outside (0, 2π]", hfov);
    double cols;
    if (d->azimuth_resolution_rad > 0.0) {
        cols = 2.0 * SENSIM_PI / d->azimuth_resolution_rad;
    } else {
        if (!(d->shots_per_s > 0.0))
            return RANGE_FAIL("lidar: shots_per_s = %g must be > 0 (or set azimuth_resolution_rad)", d->shots_per_s);
        cols = d->shots_per_s / n / rot;
    }
    cols = floor(cols + 0.5);
    if (cols < 1.0 || cols > 1e6)
        return RANGE_FAIL("lidar: %g columns per revolution (shots_per_s / channels / rotation_hz) "
                          "outside 1..1e6", cols);
    if (d->spin != 0 && d->spin != SENSIM_SPIN_CW && d->spin != SENSIM_SPIN_CCW)
        return RANGE_FAIL("lidar: spin = %d must be -1 (clockwise) or +1", d->spin);
    p->cols_per_rev = (uint32_t)cols;
    p->frame_ns = (int64_t)floor(1e9 / rot + 0.5);
    if (p->frame_ns < (int64_t)p->cols_per_rev)
        return RANGE_FAIL("lidar: %u columns do not fit in a %lld ns revolution", p->cols_per_rev,
                          (long long)p->frame_ns);
    /* columns with 2πk/C < hfov */
    uint32_t in_fov = (uint32_t)ceil(hfov / (2.0 * SENSIM_PI) * cols - 1e-9);
    p->cols_in_fov = in_fov < 1 ? 1 : in_fov > p->cols_per_rev ? p->cols_per_rev : in_fov;
    p->shots_per_rev = (uint64_t)p->cols_in_fov * n;
    int64_t col_period = col_time(p, 1);

    for (uint32_t c = 0; c < n; c++) {
        float e = d->elevation_rad[c];
        if (!isfinite(e))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: elevation of channel %u is not finite", c);
        if (!(fabsf(e) < (float)(SENSIM_PI / 2)))
            return RANGE_FAIL("lidar: elevation of channel %u = %g rad outside (-π/2, π/2)", c, (double)e);
        if (d->azimuth_offset_rad) {
            float a = d->azimuth_offset_rad[c];
            if (!isfinite(a))
                return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: azimuth offset of channel %u is not finite", c);
            if (!(fabsf(a) < (float)SENSIM_PI))
                return RANGE_FAIL("lidar: azimuth offset of channel %u = %g rad outside (-π, π)", c, (double)a);
        }
        if (d->firing_offset_ns) {
            int32_t f = d->firing_offset_ns[c];
            if (f < 0 || f >= col_period)
                return RANGE_FAIL("lidar: firing offset of channel %u = %d ns outside [0, %lld) (one column period)",
                                  c, f, (long long)col_period);
        }
    }

    p->cos_el = malloc(n * sizeof(float));
    p->sin_el = malloc(n * sizeof(float));
    p->cos_off = malloc(n * sizeof(float));
    p->sin_off = malloc(n * sizeof(float));
    p->fire_off_ns = calloc(n, sizeof(int32_t));
    p->fire_order = malloc(n * sizeof(uint32_t));
    p->cos_col = malloc(p->cols_in_fov * sizeof(float));
    p->sin_col = malloc(p->cols_in_fov * sizeof(float));
    if (!p->cos_el || !p->sin_el || !p->cos_off || !p->sin_off || !p->fire_off_ns || !p->fire_order ||
        !p->cos_col || !p->sin_col)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "lidar: cannot allocate pattern tables");
    for (uint32_t c = 0; c < n; c++) {
        double e = d->elevation_rad[c], a = d->azimuth_offset_rad ? d->azimuth_offset_rad[c] : 0.0;
        p->cos_el[c] = (float)cos(e);
        p->sin_el[c] = (float)sin(e);
        p->cos_off[c] = (float)cos(a);
        p->sin_off[c] = (float)sin(a);
        if (d->firing_offset_ns)
            p->fire_off_ns[c] = d->firing_offset_ns[c];
    }
    /* Firing order within a column; insertion sort keeps equal offsets in
     * channel order. */
    for (uint32_t c = 0; c < n; c++) {
        uint32_t j = c;
        while (j > 0 && p->fire_off_ns[p->fire_order[j - 1]] > p->fire_off_ns[c]) {
            p->fire_order[j] = p->fire_order[j - 1];
            j--;
        }
        p->fire_order[j] = c;
    }
    double spin = d->spin == SENSIM_SPIN_CCW ? 1.0 : -1.0;
    for (uint32_t k = 0; k < p->cols_in_fov; k++) {
        double az = d->start_azimuth_rad + spin * 2.0 * SENSIM_PI * k / cols;
        p->cos_col[k] = (float)cos(az);
        p->sin_col[k] = (float)sin(az);
    }
    return SENSIM_OK;
}
