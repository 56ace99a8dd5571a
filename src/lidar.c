/* Lidar object and the scan loop: pattern -> rays -> trace -> returns -> ring. */
#include "lidar_impl.h"
#include "motion.h"
#include "ring_impl.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sensim_lidar_desc_init(sensim_lidar_desc *d)
{
    if (!d)
        return;
    memset(d, 0, sizeof *d);
    d->rotation_hz = 10.0;
    d->max_range_m = 100.0f;
    d->spin = SENSIM_SPIN_CW;
    d->atmos_atten_per_m = 0.004f;
    sensim__mat4_identity(d->mount_pose);
}

void sensim_lidar_destroy(sensim_lidar *l)
{
    if (!l)
        return;
    sensim__mech_pattern_free(&l->pat);
    free(l->rays);
    free(l->hits);
    free(l->dirs);
    free(l->slots);
    free(l->valid);
    sensim_context *ctx = l->ctx;
    free(l);
    sensim__context_release(ctx);
}

sensim_status sensim_lidar_create(sensim_context *ctx, const sensim_lidar_desc *d, sensim_lidar **out)
{
    if (!ctx || !d || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_create: NULL argument");
    *out = NULL;
    float maxr = d->max_range_m == 0.0f ? 100.0f : d->max_range_m;
    if (!isfinite(d->min_range_m) || !isfinite(maxr) || !isfinite(d->range_noise_stddev_m) ||
        !isfinite(d->atmos_atten_per_m))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: a range, noise or attenuation parameter is not finite");
    if (d->min_range_m < 0.0f || maxr <= d->min_range_m || maxr > 1e6f)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "lidar: need 0 <= min_range_m (%g) < max_range_m (%g) <= 1e6",
                            (double)d->min_range_m, (double)maxr);
    if (d->range_noise_stddev_m < 0.0f)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "lidar: range_noise_stddev_m = %g < 0", (double)d->range_noise_stddev_m);
    if (d->atmos_atten_per_m < 0.0f)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "lidar: atmos_atten_per_m = %g < 0", (double)d->atmos_atten_per_m);
    if (!sensim__finite_array_d(d->mount_pose, 16))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: mount_pose has a NaN or infinite element");

    sensim_lidar *l = calloc(1, sizeof *l);
    if (!l)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate lidar");
    sensim_status st = sensim__mech_pattern_init(&l->pat, d);
    if (st != SENSIM_OK) {
        free(l);
        return st;
    }
    l->ctx = ctx;
    sensim__context_retain(ctx);
    snprintf(l->name, sizeof l->name, "%s", d->name ? d->name : "custom");
    l->rotation_hz = d->rotation_hz == 0.0 ? 10.0 : d->rotation_hz;
    l->rp.min_range_m = d->min_range_m;
    l->rp.max_range_m = maxr;
    l->rp.range_noise_stddev_m = d->range_noise_stddev_m;
    l->rp.atmos_atten_per_m = d->atmos_atten_per_m;
    l->rp.seed = d->seed;
    l->rp.lidar_id = d->lidar_id;
    if (sensim__mat4_is_zero(d->mount_pose))
        sensim__mat4_identity(l->mount);
    else
        memcpy(l->mount, d->mount_pose, sizeof l->mount);

    size_t slots = (size_t)l->pat.channels * SENSIM_CHUNK_COLS;
    l->rays = malloc(slots * sizeof *l->rays);
    l->hits = malloc(slots * sizeof *l->hits);
    l->dirs = malloc(slots * 3 * sizeof *l->dirs);
    l->slots = malloc(slots * sizeof *l->slots);
    l->valid = malloc(slots);
    if (!l->rays || !l->hits || !l->dirs || !l->slots || !l->valid) {
        sensim_lidar_destroy(l);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "lidar: cannot allocate scan scratch");
    }
    *out = l;
    return SENSIM_OK;
}

sensim_status sensim_lidar_get_info(const sensim_lidar *l, sensim_lidar_info *o)
{
    if (!l || !o)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_get_info: NULL argument");
    memset(o, 0, sizeof *o);
    memcpy(o->name, l->name, sizeof o->name);
    o->channel_count = l->pat.channels;
    o->columns_per_revolution = l->pat.cols_per_rev;
    o->columns_per_frame = l->pat.cols_in_fov;
    o->shots_per_frame = (uint64_t)l->pat.cols_in_fov * l->pat.channels;
    o->frame_period_ns = l->pat.period_ns;
    o->frame_rate_hz = 1e9 / (double)l->pat.period_ns;
    o->shots_per_s = (double)o->shots_per_frame * o->frame_rate_hz;
    o->min_range_m = l->rp.min_range_m;
    o->max_range_m = l->rp.max_range_m;
    o->lidar_id = l->rp.lidar_id;
    return SENSIM_OK;
}

sensim_status sensim_lidar_get_elevations(const sensim_lidar *l, float *dst, uint32_t cap, uint32_t *out_count)
{
    if (!l)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_get_elevations: lidar is NULL");
    if (out_count)
        *out_count = l->pat.channels;
    if (!dst)
        return SENSIM_OK;
    if (cap < l->pat.channels)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_lidar_get_elevations: capacity %u < %u channels", cap,
                            l->pat.channels);
    memcpy(dst, l->pat.elevation_rad, l->pat.channels * sizeof(float));
    return SENSIM_OK;
}

sensim_status sensim_lidar_set_mount_pose(sensim_lidar *l, const double pose[16])
{
    if (!l || !pose)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_set_mount_pose: NULL argument");
    if (!sensim__finite_array_d(pose, 16))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_lidar_set_mount_pose: NaN or infinite element");
    memcpy(l->mount, pose, sizeof l->mount);
    return SENSIM_OK;
}

/* Columns of channel @p ch (with its firing offset) firing in [sb, se),
 * times relative to the frame start: [*lo, *hi). */
static void channel_cols(const sensim_mech_pattern *p, uint32_t ch, int64_t sb, int64_t se, int64_t *lo,
                         int64_t *hi)
{
    int64_t off = p->fire_off_ns[ch];
    int64_t a = sensim__col_first_at(p, sb - off), b = sensim__col_first_at(p, se - off);
    *lo = a > p->cols_in_fov ? p->cols_in_fov : a;
    *hi = b > p->cols_in_fov ? p->cols_in_fov : b;
}

sensim_status sensim_lidar_count_shots(const sensim_lidar *l, int64_t tb, int64_t te, uint64_t *out)
{
    if (!l || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_count_shots: NULL argument");
    if (te < tb)
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "t_end_ns %lld < t_begin_ns %lld", (long long)te, (long long)tb);
    const sensim_mech_pattern *p = &l->pat;
    uint64_t n = 0;
    if (te > tb) {
        int64_t r0 = sensim__floordiv(tb, p->period_ns), r1 = sensim__floordiv(te - 1, p->period_ns);
        for (int64_t r = r0; r <= r1; r++) {
            int64_t fb = r * p->period_ns;
            int64_t sb = tb > fb ? tb - fb : 0, se = te < fb + p->period_ns ? te - fb : p->period_ns;
            if (sb == 0 && se == p->period_ns && r < r1 && r > r0) {
                n += (uint64_t)p->cols_in_fov * p->channels;
                continue;
            }
            for (uint32_t c = 0; c < p->channels; c++) {
                int64_t lo, hi;
                channel_cols(p, c, sb, se, &lo, &hi);
                n += (uint64_t)(hi - lo);
            }
        }
    }
    *out = n;
    return SENSIM_OK;
}

/* Trace one chunk of columns [k0, k1) of revolution r and push its points in
 * (column, channel) order. */
static void scan_chunk(sensim_lidar *l, const sensim_scene *scene, const double S[16], int64_t r,
                       const int64_t *lo, const int64_t *hi, int64_t k0, int64_t k1, sensim_ring *ring,
                       uint32_t nthreads)
{
    const sensim_mech_pattern *p = &l->pat;
    const uint32_t nch = p->channels;
    const int64_t width = k1 - k0;
    const float org[3] = {(float)S[12], (float)S[13], (float)S[14]};
    float R[9];
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++)
            R[c * 3 + row] = (float)S[c * 4 + row];
    memset(l->valid, 0, (size_t)width * nch);

#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
    for (uint32_t ch = 0; ch < nch; ch++) {
        size_t base = (size_t)ch * SENSIM_CHUNK_COLS;
        int64_t ka = k0 > lo[ch] ? k0 : lo[ch], kb = k1 < hi[ch] ? k1 : hi[ch];
        uint32_t n = 0;
        for (int64_t k = ka; k < kb; k++, n++) {
            float ca = p->cos_col[k] * p->cos_off[ch] - p->sin_col[k] * p->sin_off[ch];
            float sa = p->sin_col[k] * p->cos_off[ch] + p->cos_col[k] * p->sin_off[ch];
            float *d = &l->dirs[(base + n) * 3];
            d[0] = p->cos_el[ch] * ca;
            d[1] = p->cos_el[ch] * sa;
            d[2] = p->sin_el[ch];
            sensim_ray *ray = &l->rays[base + n];
            memcpy(ray->org, org, sizeof org);
            for (int row = 0; row < 3; row++)
                ray->dir[row] = R[row] * d[0] + R[3 + row] * d[1] + R[6 + row] * d[2];
            ray->tnear = 0.0f;
            ray->tfar = l->rp.max_range_m;
        }
        if (n == 0)
            continue;
        sensim__trace_rays(scene, &l->rays[base], n, &l->hits[base]);
        for (uint32_t j = 0; j < n; j++) {
            int64_t k = ka + j;
            size_t slot = (size_t)(k - k0) * nch + ch;
            uint64_t shot = ((uint64_t)r * p->cols_in_fov + (uint64_t)k) * nch + ch;
            sensim_point *pt = &l->slots[slot];
            if (sensim__returns_point(&l->rp, &l->hits[base + j], &l->dirs[(base + j) * 3], shot, pt)) {
                pt->t_offset_ns = (uint32_t)(sensim__col_time(p, k) + p->fire_off_ns[ch]);
                pt->channel = (uint16_t)ch;
                l->valid[slot] = 1;
            }
        }
    }
    for (int64_t k = 0; k < width; k++) {
        const size_t row = (size_t)k * nch;
        for (uint32_t j = 0; j < nch; j++) {
            size_t slot = row + p->fire_order[j];
            if (l->valid[slot])
                sensim__ring_push(ring, &l->slots[slot]);
        }
    }
}

sensim_status sensim_lidar_scan(sensim_lidar *l, const sensim_scene *scene, int64_t tb, int64_t te,
                                const double platform_pose[16], sensim_ring *ring, sensim_scan_result *res)
{
    if (res)
        memset(res, 0, sizeof *res);
    if (!l || !scene || !platform_pose)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_scan: NULL lidar, scene or pose");
    sensim_status st = sensim__ring_check(ring);
    if (st != SENSIM_OK)
        return st;
    if (te < tb)
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "sensim_lidar_scan: t_end_ns %lld < t_begin_ns %lld",
                            (long long)te, (long long)tb);
    if (l->has_last && tb < l->last_end_ns)
        return sensim__fail(SENSIM_ERR_TIME_ORDER,
                            "sensim_lidar_scan: t_begin_ns %lld is before the previous call's t_end_ns %lld",
                            (long long)tb, (long long)l->last_end_ns);
    if (!sensim__finite_array_d(platform_pose, 16))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_lidar_scan: platform pose has a NaN or infinite element");
    if ((st = sensim__scene_scan_begin(scene)) != SENSIM_OK)
        return st;

    const sensim_mech_pattern *p = &l->pat;
    double S[16];
    sensim__mat4_mul(platform_pose, l->mount, S);
    uint32_t nthreads = l->ctx->thread_count;
    int64_t lo[SENSIM_MAX_CHANNELS], hi[SENSIM_MAX_CHANNELS];
    uint64_t shots = 0, frames = 0;

    sensim__ring_tx_begin(ring);
    if (te > tb) {
        int64_t r0 = sensim__floordiv(tb, p->period_ns), r1 = sensim__floordiv(te - 1, p->period_ns);
        for (int64_t r = r0; r <= r1; r++) {
            int64_t fb = r * p->period_ns, fe = fb + p->period_ns;
            int64_t sb = (tb > fb ? tb : fb) - fb, se = (te < fe ? te : fe) - fb;
            sensim__ring_open_frame(ring, (uint64_t)r, fb, fe, S, l->rp.lidar_id);
            sensim__ring_add_scanned(ring, se - sb);
            int64_t kmin = p->cols_in_fov, kmax = 0;
            for (uint32_t c = 0; c < p->channels; c++) {
                channel_cols(p, c, sb, se, &lo[c], &hi[c]);
                shots += (uint64_t)(hi[c] - lo[c]);
                if (lo[c] < hi[c]) {
                    kmin = lo[c] < kmin ? lo[c] : kmin;
                    kmax = hi[c] > kmax ? hi[c] : kmax;
                }
            }
            for (int64_t k0 = kmin; k0 < kmax; k0 += SENSIM_CHUNK_COLS) {
                int64_t k1 = k0 + SENSIM_CHUNK_COLS < kmax ? k0 + SENSIM_CHUNK_COLS : kmax;
                scan_chunk(l, scene, S, r, lo, hi, k0, k1, ring, nthreads);
            }
            if (se == p->period_ns) {
                sensim__ring_close_frame(ring);
                frames++;
            }
        }
    }
    uint64_t written = 0, lost = 0;
    st = sensim__ring_tx_end(ring, &written, &lost);
    sensim__scene_scan_end(scene);
    if (st != SENSIM_OK)
        return st;
    l->has_last = true;
    l->last_end_ns = te;
    if (res) {
        res->shots = shots;
        res->points = written;
        res->frames_completed = frames;
        res->points_lost = lost;
    }
    return SENSIM_OK;
}
