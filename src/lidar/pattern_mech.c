/* Mechanical (spinning) scan pattern: validation, tables, exact timing.
 *
 * Two timing models. Revolution-locked (Ouster, angle-triggered Hesai, and
 * anything given as shots_per_s or azimuth_resolution): C columns per
 * revolution, column k at floor(k·P/C). Free-running (Velodyne's firing
 * cycle, time-triggered Hesai): column m at floor(m·q/1000) ns with q the
 * column period in ps, not tied to the revolution; the head angle at that
 * time is start + spin·2π·(t mod P)/P. In both, channel c fires
 * fire_off_ns[c] after its column and points where the head is then. */
#include "pattern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RANGE_FAIL(...) sensim__fail(SENSIM_ERR_OUT_OF_RANGE, __VA_ARGS__)

__extension__ typedef __int128 mech_i128;

static int64_t floordiv128(mech_i128 a, int64_t b)
{
    mech_i128 q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
        q--;
    return (int64_t)q;
}

/* Column k's firing time within its revolution: floor(k·P/C). */
static int64_t col_time(const sensim_pattern *p, int64_t k)
{
    return k * p->frame_ns / p->cols_per_rev;
}

/* Free-running: global column m's firing time. */
static int64_t free_col_time(const sensim_pattern *p, int64_t m)
{
    return floordiv128((mech_i128)m * p->col_q_ps, 1000);
}

/* Free-running: the head angle at time t, and whether it lies in the FOV. */
static bool head_angle(const sensim_pattern *p, int64_t t, double *c, double *s)
{
    int64_t x = t - sensim__floordiv(t, p->frame_ns) * p->frame_ns;
    double f = (double)x / (double)p->frame_ns, a = p->start_az + p->spin * 2.0 * SENSIM_PI * f;
    *c = cos(a);
    *s = sin(a);
    return 2.0 * SENSIM_PI * f < p->hfov;
}

/* Time of shot s (0 <= s < shots_per_rev) within its revolution. Shots are
 * numbered column by column in firing order, so this never decreases. */
static int64_t shot_time_in_rev(const sensim_pattern *p, uint64_t s)
{
    return col_time(p, (int64_t)(s / p->channels)) + p->fire_off_ns[p->fire_order[s % p->channels]];
}

int64_t sensim__mech_time(const sensim_pattern *p, int64_t g)
{
    if (p->col_q_ps) {
        int64_t m = sensim__floordiv(g, p->channels);
        return free_col_time(p, m) + p->fire_off_ns[p->fire_order[g - m * (int64_t)p->channels]];
    }
    int64_t r = sensim__floordiv(g, (int64_t)p->shots_per_rev);
    return r * p->frame_ns + shot_time_in_rev(p, (uint64_t)(g - r * (int64_t)p->shots_per_rev));
}

int64_t sensim__mech_first_at(const sensim_pattern *p, int64_t t)
{
    uint64_t lo, hi;
    int64_t base;
    if (p->col_q_ps) {
        /* every shot of column m-1 fires before T_m <= t; column m+1 starts at >= t */
        int64_t m = floordiv128((mech_i128)t * 1000, p->col_q_ps);
        base = m * (int64_t)p->channels;
        lo = 0, hi = p->channels;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (sensim__mech_time(p, base + (int64_t)mid) >= t)
                hi = mid;
            else
                lo = mid + 1;
        }
        return base + (int64_t)lo;
    }
    int64_t r = sensim__floordiv(t, p->frame_ns);
    int64_t x = t - r * p->frame_ns;
    /* binary search for the first shot of the revolution at or after x */
    lo = 0, hi = p->shots_per_rev;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (shot_time_in_rev(p, mid) >= x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return r * (int64_t)p->shots_per_rev + (int64_t)lo;
}

static void compose(const sensim_pattern *p, float cc, float sc, uint32_t ch, float d[3])
{
    float ca = cc * p->cos_off[ch] - sc * p->sin_off[ch];
    float sa = sc * p->cos_off[ch] + cc * p->sin_off[ch];
    d[0] = p->cos_el[ch] * ca;
    d[1] = p->cos_el[ch] * sa;
    d[2] = p->sin_el[ch];
}

bool sensim__mech_dir(const sensim_pattern *p, int64_t g, uint16_t *channel, float d[3])
{
    if (p->col_q_ps) {
        int64_t m = sensim__floordiv(g, p->channels);
        uint32_t ch = p->fire_order[g - m * (int64_t)p->channels];
        double c, s;
        bool in = head_angle(p, free_col_time(p, m), &c, &s);
        compose(p, (float)c, (float)s, ch, d);
        *channel = (uint16_t)ch;
        return in;
    }
    int64_t r = sensim__floordiv(g, (int64_t)p->shots_per_rev);
    uint64_t s = (uint64_t)(g - r * (int64_t)p->shots_per_rev);
    uint32_t k = (uint32_t)(s / p->channels), ch = p->fire_order[s % p->channels];
    compose(p, p->cos_col[k], p->sin_col[k], ch, d);
    *channel = (uint16_t)ch;
    return true;
}

void sensim__mech_batch(const sensim_pattern *p, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                        uint8_t *ok)
{
    if (p->col_q_ps) {
        /* head angle once per column, shared by its channels */
        int64_t m = sensim__floordiv(g0, p->channels);
        uint32_t j = (uint32_t)(g0 - m * (int64_t)p->channels);
        int64_t colt = free_col_time(p, m);
        double c, s;
        bool in = head_angle(p, colt, &c, &s);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t cc = p->fire_order[j];
            t[i] = colt + p->fire_off_ns[cc];
            compose(p, (float)c, (float)s, cc, &dir[3 * i]);
            ch[i] = (uint16_t)cc;
            ok[i] = in;
            if (++j == p->channels) {
                j = 0;
                colt = free_col_time(p, ++m);
                in = head_angle(p, colt, &c, &s);
            }
        }
        return;
    }
    /* walk (revolution, column, firing slot) incrementally: no division per shot */
    int64_t spr = (int64_t)p->shots_per_rev, r = sensim__floordiv(g0, spr);
    uint64_t s = (uint64_t)(g0 - r * spr);
    uint32_t k = (uint32_t)(s / p->channels), j = (uint32_t)(s % p->channels);
    int64_t colt = r * p->frame_ns + col_time(p, k);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t c = p->fire_order[j];
        t[i] = colt + p->fire_off_ns[c];
        compose(p, p->cos_col[k], p->sin_col[k], c, &dir[3 * i]);
        ch[i] = (uint16_t)c;
        ok[i] = 1;
        if (++j == p->channels) {
            j = 0;
            if (++k == p->cols_in_fov) {
                k = 0;
                r++;
            }
            colt = r * p->frame_ns + col_time(p, k);
        }
    }
}

void sensim__pattern_origin(const sensim_pattern *p, int64_t g, int64_t t, float org[3])
{
    org[0] = org[1] = org[2] = 0.0f;
    if (p->kind != SENSIM_PATTERN_MECHANICAL || p->beam_origin_m == 0.0)
        return;
    /* the beam leaves the optics at beam_origin_m from the axis, along the
     * head's angle at the column time (Ouster lidar_origin_to_beam_origin) */
    double c, s;
    if (p->col_q_ps) {
        int64_t m = sensim__floordiv(g, p->channels);
        head_angle(p, free_col_time(p, m), &c, &s);
    } else {
        (void)t;
        int64_t r = sensim__floordiv(g, (int64_t)p->shots_per_rev);
        uint64_t k = (uint64_t)(g - r * (int64_t)p->shots_per_rev) / p->channels;
        c = p->cos_col[k], s = p->sin_col[k];
    }
    org[0] = (float)(p->beam_origin_m * c);
    org[1] = (float)(p->beam_origin_m * s);
}

sensim_status sensim__mech_init(sensim_pattern *p, const sensim_lidar_desc *d)
{
    uint32_t n = d->channel_count;
    if (!d->elevation_rad)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "lidar: elevation_rad is NULL");
    double rot = d->rotation_hz == 0.0 ? 10.0 : d->rotation_hz;
    if (!isfinite(rot) || !isfinite(d->shots_per_s) || !isfinite(d->azimuth_resolution_rad) ||
        !isfinite(d->hfov_rad) || !isfinite(d->start_azimuth_rad) || !isfinite(d->column_period_ns) ||
        !isfinite(d->beam_origin_offset_m))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: rotation_hz, shots_per_s, azimuth_resolution_rad, "
                                                   "hfov_rad, start_azimuth_rad, column_period_ns or "
                                                   "beam_origin_offset_m is not finite");
    if (rot < 0.25 || rot > 1000.0)
        return RANGE_FAIL("lidar: rotation_hz = %g outside [0.25, 1000]", rot);
    if (fabs(d->start_azimuth_rad) > 1e3)
        return RANGE_FAIL("lidar: start_azimuth_rad = %g outside [-1000, 1000]", d->start_azimuth_rad);
    double hfov = d->hfov_rad == 0.0 ? 2.0 * SENSIM_PI : d->hfov_rad;
    if (hfov <= 0.0 || hfov > 2.0 * SENSIM_PI + 1e-9)
        return RANGE_FAIL("lidar: hfov_rad = %g outside (0, 2π]", hfov);
    if (d->spin != 0 && d->spin != SENSIM_SPIN_CW && d->spin != SENSIM_SPIN_CCW)
        return RANGE_FAIL("lidar: spin = %d must be -1 (clockwise) or +1", d->spin);
    if (!(d->beam_origin_offset_m >= 0.0 && d->beam_origin_offset_m <= 1.0))
        return RANGE_FAIL("lidar: beam_origin_offset_m = %g outside [0, 1]", d->beam_origin_offset_m);
    if (d->column_firing != 0 && d->column_firing != 1)
        return RANGE_FAIL("lidar: column_firing = %d must be 0 or 1", d->column_firing);
    if (d->sweep > SENSIM_SWEEP_SECTOR)
        return RANGE_FAIL("lidar: sweep = %u must be 0 (revolution) or 1 (sector)", d->sweep);
    if (d->sweep == SENSIM_SWEEP_SECTOR && d->column_period_ns != 0.0)
        return RANGE_FAIL("lidar: sweep = sector needs revolution-locked columns, not column_period_ns = %g",
                          d->column_period_ns);
    /* sector: the columns' angular step and the head's speed are hfov per period, not 2π */
    const double circle = d->sweep == SENSIM_SWEEP_SECTOR ? hfov : 2.0 * SENSIM_PI;
    p->frame_ns = (int64_t)floor(1e9 / rot + 0.5);
    double spin = d->spin == SENSIM_SPIN_CCW ? 1.0 : -1.0;
    p->start_az = d->start_azimuth_rad, p->spin = spin, p->hfov = hfov;
    p->beam_origin_m = d->beam_origin_offset_m;
    int64_t col_period;
    double cols;
    if (d->column_period_ns != 0.0) {
        /* free-running firing cycle */
        if (!(d->column_period_ns >= 1.0 && d->column_period_ns <= 1e9))
            return RANGE_FAIL("lidar: column_period_ns = %g outside [1, 1e9]", d->column_period_ns);
        p->col_q_ps = (int64_t)floor(d->column_period_ns * 1000.0 + 0.5);
        col_period = p->col_q_ps / 1000; /* consecutive columns are at least this far apart */
        cols = ceil((double)p->frame_ns * 1000.0 / (double)p->col_q_ps);
        if (cols > 1e6)
            return RANGE_FAIL("lidar: %g columns per revolution (revolution / column_period_ns) outside 1..1e6",
                              cols);
        p->cols_per_rev = (uint32_t)cols;
        p->cols_in_fov = (uint32_t)fmin(cols, ceil(hfov / (2.0 * SENSIM_PI) * cols - 1e-9) + 1.0);
        p->shots_per_rev = ((uint64_t)p->cols_per_rev + 1) * n;
    } else {
        if (d->azimuth_resolution_rad > 0.0) {
            cols = circle / d->azimuth_resolution_rad;
        } else {
            if (!(d->shots_per_s > 0.0))
                return RANGE_FAIL("lidar: shots_per_s = %g must be > 0 (or set azimuth_resolution_rad or "
                                  "column_period_ns)", d->shots_per_s);
            cols = d->shots_per_s / n / rot;
        }
        cols = floor(cols + 0.5);
        if (cols < 1.0 || cols > 1e6)
            return RANGE_FAIL("lidar: %g columns per revolution (shots_per_s / channels / rotation_hz) "
                              "outside 1..1e6", cols);
        p->cols_per_rev = (uint32_t)cols;
        if (p->frame_ns < (int64_t)p->cols_per_rev)
            return RANGE_FAIL("lidar: %u columns do not fit in a %lld ns revolution", p->cols_per_rev,
                              (long long)p->frame_ns);
        /* columns with 2πk/C < hfov */
        uint32_t in_fov = (uint32_t)ceil(hfov / circle * cols - 1e-9);
        p->cols_in_fov = in_fov < 1 ? 1 : in_fov > p->cols_per_rev ? p->cols_per_rev : in_fov;
        p->shots_per_rev = (uint64_t)p->cols_in_fov * n;
        col_period = col_time(p, 1);
    }
    const int32_t *fire = d->column_firing ? NULL : d->firing_offset_ns;

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
        if (fire) {
            int32_t f = fire[c];
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
    uint32_t ncol = p->col_q_ps ? 1 : p->cols_in_fov;
    p->cos_col = malloc(ncol * sizeof(float));
    p->sin_col = malloc(ncol * sizeof(float));
    if (!p->cos_el || !p->sin_el || !p->cos_off || !p->sin_off || !p->fire_off_ns || !p->fire_order ||
        !p->cos_col || !p->sin_col)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "lidar: cannot allocate pattern tables");
    for (uint32_t c = 0; c < n; c++) {
        if (fire)
            p->fire_off_ns[c] = fire[c];
        /* the head turns spin·2π·offset/P while the column's lasers fire */
        double e = d->elevation_rad[c], a = d->azimuth_offset_rad ? d->azimuth_offset_rad[c] : 0.0;
        a += spin * circle * (double)p->fire_off_ns[c] / (double)p->frame_ns;
        p->cos_el[c] = (float)cos(e);
        p->sin_el[c] = (float)sin(e);
        p->cos_off[c] = (float)cos(a);
        p->sin_off[c] = (float)sin(a);
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
    if (!p->col_q_ps)
        for (uint32_t k = 0; k < p->cols_in_fov; k++) {
            double az = d->start_azimuth_rad + spin * circle * k / cols;
            p->cos_col[k] = (float)cos(az);
            p->sin_col[k] = (float)sin(az);
        }
    return SENSIM_OK;
}
