/* Mechanical (spinning) scan pattern: validation and precomputed tables. */
#include "lidar_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sensim__mech_pattern_free(sensim_mech_pattern *p)
{
    free(p->cos_el);
    free(p->sin_el);
    free(p->cos_off);
    free(p->sin_off);
    free(p->fire_off_ns);
    free(p->fire_order);
    free(p->cos_col);
    free(p->sin_col);
    free(p->elevation_rad);
    memset(p, 0, sizeof *p);
}

#define RANGE_FAIL(...) sensim__fail(SENSIM_ERR_OUT_OF_RANGE, __VA_ARGS__)

sensim_status sensim__mech_pattern_init(sensim_mech_pattern *p, const sensim_lidar_desc *d)
{
    memset(p, 0, sizeof *p);
    uint32_t n = d->channel_count;
    if (n == 0)
        return sensim__fail(SENSIM_ERR_EMPTY, "lidar: channel_count is 0");
    if (n > SENSIM_MAX_CHANNELS)
        return RANGE_FAIL("lidar: channel_count = %u exceeds %d", n, SENSIM_MAX_CHANNELS);
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
    p->channels = n;
    p->cols_per_rev = (uint32_t)cols;
    p->period_ns = (int64_t)floor(1e9 / rot + 0.5);
    if (p->period_ns < (int64_t)p->cols_per_rev)
        return RANGE_FAIL("lidar: %u columns do not fit in a %lld ns revolution", p->cols_per_rev,
                          (long long)p->period_ns);
    /* columns with 2πk/C < hfov */
    uint32_t in_fov = (uint32_t)ceil(hfov / (2.0 * SENSIM_PI) * cols - 1e-9);
    p->cols_in_fov = in_fov < 1 ? 1 : in_fov > p->cols_per_rev ? p->cols_per_rev : in_fov;
    int64_t col_period = sensim__col_time(p, 1);

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
    p->elevation_rad = malloc(n * sizeof(float));
    p->cos_col = malloc(p->cols_in_fov * sizeof(float));
    p->sin_col = malloc(p->cols_in_fov * sizeof(float));
    if (!p->cos_el || !p->sin_el || !p->cos_off || !p->sin_off || !p->fire_off_ns || !p->fire_order || !p->elevation_rad ||
        !p->cos_col || !p->sin_col) {
        sensim__mech_pattern_free(p);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "lidar: cannot allocate pattern tables");
    }
    for (uint32_t c = 0; c < n; c++) {
        double e = d->elevation_rad[c], a = d->azimuth_offset_rad ? d->azimuth_offset_rad[c] : 0.0;
        p->elevation_rad[c] = d->elevation_rad[c];
        p->cos_el[c] = (float)cos(e);
        p->sin_el[c] = (float)sin(e);
        p->cos_off[c] = (float)cos(a);
        p->sin_off[c] = (float)sin(a);
        if (d->firing_offset_ns)
            p->fire_off_ns[c] = d->firing_offset_ns[c];
    }
    /* Output order within a column is firing order; insertion sort keeps
     * equal offsets in channel order. */
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
