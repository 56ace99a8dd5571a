/* Pattern dispatch, sequence timing, table and callback patterns. */
#include "pattern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RANGE_FAIL(...) sensim__fail(SENSIM_ERR_OUT_OF_RANGE, __VA_ARGS__)
#define MAX_TABLE (UINT64_C(1) << 32)


void sensim__pattern_free(sensim_pattern *p)
{
    free(p->elevation_rad);
    free(p->cos_el);
    free(p->sin_el);
    free(p->cos_off);
    free(p->sin_off);
    free(p->cos_col);
    free(p->sin_col);
    free(p->fire_off_ns);
    free(p->fire_order);
    free(p->tdir);
    free(p->tchan);
    free(p->ttime);
    free(p->laser_dir);
    memset(p, 0, sizeof *p);
}

static int64_t ceildiv128(sensim_i128 a, sensim_i128 b)
{
    sensim_i128 q = a / b;
    if (a % b != 0 && ((a > 0) == (b > 0)))
        q++;
    return (int64_t)q;
}

int64_t sensim__pattern_time(const sensim_pattern *p, int64_t g)
{
    if (p->kind == SENSIM_PATTERN_MECHANICAL)
        return sensim__mech_time(p, g);
    if (p->ttime) {
        int64_t pass = sensim__floordiv(g, (int64_t)p->table_n);
        return pass * p->tperiod + p->ttime[g - pass * (int64_t)p->table_n];
    }
    return sensim__pattern_column_time(p, sensim__floordiv(g, p->lanes));
}

int64_t sensim__pattern_first_at(const sensim_pattern *p, int64_t t)
{
    if (p->kind == SENSIM_PATTERN_MECHANICAL)
        return sensim__mech_first_at(p, t);
    if (p->ttime) {
        int64_t pass = sensim__floordiv(t, p->tperiod), x = t - pass * p->tperiod;
        uint64_t lo = 0, hi = p->table_n;
        while (lo < hi) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (p->ttime[mid] >= x)
                hi = mid;
            else
                lo = mid + 1;
        }
        return pass * (int64_t)p->table_n + (int64_t)lo;
    }
    /* floor(m·q/1000) >= t  <=>  m·q >= 1000·t  <=>  m >= ceil(1000·t / q) */
    int64_t m = ceildiv128((sensim_i128)t * 1000, p->q_ps);
    return m * (int64_t)p->lanes;
}

bool sensim__pattern_shot(const sensim_pattern *p, int64_t g, int64_t t, uint16_t *channel, float dir[3])
{
    switch (p->kind) {
    case SENSIM_PATTERN_MECHANICAL:
        return sensim__mech_dir(p, g, channel, dir);
    case SENSIM_PATTERN_TABLE: {
        int64_t e = g - sensim__floordiv(g, (int64_t)p->table_n) * (int64_t)p->table_n;
        memcpy(dir, &p->tdir[3 * e], 3 * sizeof(float));
        *channel = p->tchan ? p->tchan[e] : 0;
        return true;
    }
    case SENSIM_PATTERN_RISLEY: {
        uint32_t lane = (uint32_t)(g - sensim__floordiv(g, p->lanes) * p->lanes);
        *channel = (uint16_t)lane;
        return sensim__risley_dir(p, lane, t, dir);
    }
    case SENSIM_PATTERN_MEMS: {
        uint32_t lane = (uint32_t)(g - sensim__floordiv(g, p->lanes) * p->lanes);
        *channel = (uint16_t)lane;
        sensim__mems_dir(p, lane, t, dir);
        return true;
    }
    default: {
        uint16_t ch = 0;
        float d[3] = {0, 0, 0};
        if (p->fn(p->fn_user, g, t, &ch, d) != 0 || ch >= p->channels || !isfinite(d[0]) || !isfinite(d[1]) ||
            !isfinite(d[2]))
            return false;
        float n = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (!(n > 0.0f))
            return false;
        dir[0] = d[0] / n;
        dir[1] = d[1] / n;
        dir[2] = d[2] / n;
        *channel = ch;
        return true;
    }
    }
}

void sensim__pattern_batch(const sensim_pattern *p, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                           uint8_t *ok)
{
    if (n == 0)
        return;
    if (p->kind == SENSIM_PATTERN_MECHANICAL) {
        sensim__mech_batch(p, g0, n, t, ch, dir, ok);
        return;
    }
    if (p->kind == SENSIM_PATTERN_RISLEY) {
        sensim__risley_batch(p, g0, n, t, ch, dir, ok);
        return;
    }
    if (p->kind == SENSIM_PATTERN_MEMS) {
        sensim__mems_batch(p, g0, n, t, ch, dir, ok);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        t[i] = sensim__pattern_time(p, g0 + i);
        ok[i] = sensim__pattern_shot(p, g0 + i, t[i], &ch[i], &dir[3 * i]);
    }
}

uint64_t sensim__pattern_max_frame_shots(const sensim_pattern *p)
{
    if (p->kind == SENSIM_PATTERN_MECHANICAL)
        return p->shots_per_rev;
    if (p->ttime) {
        uint64_t passes = (uint64_t)(p->frame_ns / p->tperiod) + 2;
        return passes * p->table_n;
    }
    return ((uint64_t)((sensim_i128)p->frame_ns * 1000 / p->q_ps) + 2) * p->lanes;
}

static sensim_status table_init(sensim_pattern *p, const sensim_lidar_desc *d, const double *az64,
                                const double *el64)
{
    const sensim_table_desc *t = &d->table;
    if (t->shot_count == 0)
        return sensim__fail(SENSIM_ERR_EMPTY, "lidar: table has no entries");
    if (t->shot_count > MAX_TABLE)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "lidar: table of %llu entries exceeds 2^32",
                            (unsigned long long)t->shot_count);
    const bool f64 = az64 && el64; /* a CSV's angles in double: the floats are not read */
    if (!f64 && (!t->azimuth_rad || !t->elevation_rad))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "lidar: table azimuth_rad or elevation_rad is NULL");
    uint64_t n = t->shot_count;
    p->table_n = n;
    p->tdir = malloc(n * 3 * sizeof(float));
    if (!p->tdir)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "lidar: cannot allocate a table of %llu entries",
                            (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) {
        double a = f64 ? az64[i] : t->azimuth_rad[i], e = f64 ? el64[i] : t->elevation_rad[i];
        if (!isfinite(a) || !isfinite(e))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: table entry %llu is not finite", (unsigned long long)i);
        if (!(fabs(e) <= SENSIM_PI / 2))
            return RANGE_FAIL("lidar: table entry %llu elevation %g rad outside [-π/2, π/2]", (unsigned long long)i, e);
        p->tdir[3 * i] = (float)(cos(e) * cos(a));
        p->tdir[3 * i + 1] = (float)(cos(e) * sin(a));
        p->tdir[3 * i + 2] = (float)sin(e);
    }
    if (t->channel) {
        p->tchan = malloc(n * sizeof(uint16_t));
        if (!p->tchan)
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "lidar: cannot allocate table channels");
        for (uint64_t i = 0; i < n; i++) {
            if (t->channel[i] >= p->channels)
                return RANGE_FAIL("lidar: table entry %llu channel %u >= channel_count %u", (unsigned long long)i,
                                  t->channel[i], p->channels);
            p->tchan[i] = t->channel[i];
        }
    }
    if (t->time_ns) {
        if (t->period_ns <= 0)
            return RANGE_FAIL("lidar: table period_ns = %lld must be > 0 with time_ns", (long long)t->period_ns);
        p->tperiod = t->period_ns;
        p->ttime = malloc(n * sizeof(int64_t));
        if (!p->ttime)
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "lidar: cannot allocate table times");
        for (uint64_t i = 0; i < n; i++) {
            if (t->time_ns[i] < 0 || t->time_ns[i] >= t->period_ns || (i > 0 && t->time_ns[i] < t->time_ns[i - 1]))
                return RANGE_FAIL("lidar: table entry %llu time %lld ns not nondecreasing within [0, %lld)",
                                  (unsigned long long)i, (long long)t->time_ns[i], (long long)t->period_ns);
            p->ttime[i] = t->time_ns[i];
        }
    }
    return SENSIM_OK;
}

sensim_status sensim__pattern_init(sensim_pattern *p, const sensim_lidar_desc *d, const double *table_az_rad,
                                   const double *table_el_rad)
{
    memset(p, 0, sizeof *p);
    p->kind = d->pattern;
    uint32_t n = d->channel_count;
    if (n == 0)
        return sensim__fail(SENSIM_ERR_EMPTY, "lidar: channel_count is 0");
    if (n > SENSIM_MAX_CHANNELS)
        return RANGE_FAIL("lidar: channel_count = %u exceeds %d", n, SENSIM_MAX_CHANNELS);
    p->channels = n;
    p->elevation_rad = calloc(n, sizeof(float));
    if (!p->elevation_rad)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "lidar: cannot allocate pattern");
    if (d->elevation_rad)
        memcpy(p->elevation_rad, d->elevation_rad, n * sizeof(float));

    if (d->pattern == SENSIM_PATTERN_MECHANICAL)
        return sensim__mech_init(p, d);
    if (d->pattern < 0 || d->pattern > SENSIM_PATTERN_CALLBACK)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "lidar: unknown pattern kind %d", d->pattern);

    double fr = d->frame_rate_hz == 0.0 ? 10.0 : d->frame_rate_hz;
    if (!isfinite(fr) || !isfinite(d->shots_per_s))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: frame_rate_hz or shots_per_s is not finite");
    if (fr < 0.1 || fr > 1000.0)
        return RANGE_FAIL("lidar: frame_rate_hz = %g outside [0.1, 1000]", fr);
    p->frame_ns = (int64_t)floor(1e9 / fr + 0.5);
    p->lanes = (d->pattern == SENSIM_PATTERN_RISLEY || d->pattern == SENSIM_PATTERN_MEMS) ? n : 1;
    bool explicit_times = d->pattern == SENSIM_PATTERN_TABLE && d->table.time_ns;
    if (!explicit_times) {
        if (!(d->shots_per_s > 0.0) || d->shots_per_s > 1e10)
            return RANGE_FAIL("lidar: shots_per_s = %g outside (0, 1e10]", d->shots_per_s);
        double q = floor(1e12 * p->lanes / d->shots_per_s + 0.5);
        if (q < 1.0 || q > 1e15)
            return RANGE_FAIL("lidar: column period of %g ps (channels / shots_per_s) is out of range", q);
        p->q_ps = (int64_t)q;
    }
    switch (d->pattern) {
    case SENSIM_PATTERN_TABLE:
        return table_init(p, d, table_az_rad, table_el_rad);
    case SENSIM_PATTERN_RISLEY:
        return sensim__risley_init(p, d);
    case SENSIM_PATTERN_MEMS:
        return sensim__mems_init(p, d);
    default:
        if (!d->shot_fn)
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "lidar: CALLBACK pattern without shot_fn");
        p->fn = d->shot_fn;
        p->fn_user = d->shot_user;
        return SENSIM_OK;
    }
}
