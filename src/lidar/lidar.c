/* Lidar object and the scan loop: frames cut into blocks (lane.c: pattern -> rays -> trace -> returns -> ring). */
#include "lidar_impl.h"
#include "motion.h"
#include "ring_impl.h"

#include <math.h>
#include <sched.h>
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
    d->ret.intensity_model = SENSIM_INTENSITY_PHYSICAL;
    d->ret.intensity_ref_range_m = 10.0f;
    d->ret.max_bounces = 1;
    d->ret.beam_subrays = 1;
    d->ret.return_mode = SENSIM_RETURN_STRONGEST;
    d->ret.range_resolution_m = 0.1f;
    d->ret.detect_threshold = 0.0002f;
    d->ret.detect_noise = 0.0001f;
    d->ret.dropoff_model = SENSIM_DROPOFF_PHYSICAL;
}

void sensim_lidar_destroy(sensim_lidar *l)
{
    if (!l || (l->magic != SENSIM_MAGIC_LIDAR && l->magic != 0))
        return;
    bool live = l->magic == SENSIM_MAGIC_LIDAR;
    l->magic = SENSIM_MAGIC_DEAD; /* new scans are refused from here */
    /* a scan running on another thread: wait for it instead of freeing its scratch */
    while (live) {
        int expected = 0;
        if (atomic_compare_exchange_weak(&l->busy, &expected, 1))
            break;
        sched_yield();
    }
    sensim__pattern_free(&l->pat);
    free(l->memo_t), free(l->memo_ch), free(l->memo_dir), free(l->memo_ok);
    free(l->slots);
    free(l->lane_out);
    free(l->dir_rank);
    free(l->tiling[0].base);
    free(l->tiling[1].base);
    free(l->scr);
    if (l->rp.log)
        free(l->rp.log->rays), free(l->rp.log);
    sensim_context *ctx = l->ctx;
    free(l);
    sensim__context_release(ctx);
}

/* The mean extent (width + height, rad) of a mechanical lidar's tiles of
 * @p cols columns x 16 / cols channels by direction rank (@p by_rank: rank
 * -> channel): the columns' azimuth span plus the ranks' azimuth offset
 * spread, and the ranks' elevation spread. */
static double tile_extent(const sensim_pattern *p, const uint16_t *by_rank, uint32_t cols)
{
    const uint32_t L = p->channels, T = 16 / cols;
    double sum = 0.0;
    uint32_t tiles = 0;
    for (uint32_t q = 0; q < L; q += T, tiles++) {
        double az_lo = INFINITY, az_hi = -INFINITY, el_lo = INFINITY, el_hi = -INFINITY;
        for (uint32_t r = q; r < q + T && r < L; r++) {
            const uint16_t c = by_rank[r];
            const double az = atan2(p->sin_off[c], p->cos_off[c]), el = p->elevation_rad[c];
            az_lo = fmin(az_lo, az), az_hi = fmax(az_hi, az), el_lo = fmin(el_lo, el), el_hi = fmax(el_hi, el);
        }
        sum += cols * (2.0 * SENSIM_PI / p->cols_per_rev) + (az_hi - az_lo) + (el_hi - el_lo);
    }
    return sum / tiles;
}

sensim_status sensim_lidar_create(sensim_context *ctx, const sensim_lidar_desc *d, sensim_lidar **out)
{
    return sensim__lidar_create(ctx, d, NULL, NULL, out);
}

sensim_status sensim__lidar_create(sensim_context *ctx, const sensim_lidar_desc *d, const double *table_az_rad,
                                   const double *table_el_rad, sensim_lidar **out)
{
    SENSIM_CHECK_HANDLE(ctx, SENSIM_MAGIC_CONTEXT, "context");
    if (!d || !out)
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
    if (!sensim__mat4_is_zero(d->mount_pose)) {
        sensim_status pst = sensim__check_pose(d->mount_pose, "lidar: mount_pose");
        if (pst != SENSIM_OK)
            return pst;
    } else if (!sensim__finite_array_d(d->mount_pose, 16)) {
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: mount_pose has a NaN or infinite element");
    }

    sensim_lidar *l = calloc(1, sizeof *l);
    if (!l)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate lidar");
    sensim_status st = sensim__returns_init(&l->rp, d);
    if (st != SENSIM_OK) {
        free(l);
        return st;
    }
    st = sensim__pattern_init(&l->pat, d, table_az_rad, table_el_rad);
    if (st != SENSIM_OK) {
        sensim__pattern_free(&l->pat);
        free(l);
        return st;
    }
    /* t_offset_ns is a uint32 from the frame start: a longer frame would wrap */
    if (l->pat.frame_ns > (int64_t)UINT32_MAX) {
        int64_t fns = l->pat.frame_ns;
        sensim__pattern_free(&l->pat);
        free(l);
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                            "lidar: a frame of %.3f s is longer than the 4.295 s the uint32 t_offset_ns of a point "
                            "holds (frame_rate_hz or rotation_hz must be >= 0.25)",
                            (double)fns * 1e-9);
    }
    /* Shot indices are int64: bound |t| so that the index of any shot (plus
     * a margin of two frames) fits in 2^62, whatever the shot rate. */
    {
        const sensim_pattern *p = &l->pat;
        double per_ns; /* shots (indices) per nanosecond */
        if (p->kind == SENSIM_PATTERN_MECHANICAL)
            per_ns = p->col_q_ps ? (double)p->channels * 1000.0 / (double)p->col_q_ps
                                 : (double)p->shots_per_rev / (double)p->frame_ns;
        else if (p->ttime)
            per_ns = (double)p->table_n / (double)p->tperiod;
        else
            per_ns = (double)p->lanes * 1000.0 / (double)p->q_ps;
        double lim = per_ns > 0.0 ? 0.25 * 4611686018427387904.0 / per_ns : (double)SENSIM_MAX_TIME_NS;
        l->pat.t_limit_ns = lim >= (double)SENSIM_MAX_TIME_NS ? SENSIM_MAX_TIME_NS : (int64_t)lim;
    }
    atomic_init(&l->busy, 0);
    l->ctx = ctx;
    sensim__context_retain(ctx);
    snprintf(l->name, sizeof l->name, "%s", d->name ? d->name : "custom");
    l->rp.min_range_m = d->min_range_m;
    l->rp.max_range_m = maxr;
    l->rp.range_noise_stddev_m = d->range_noise_stddev_m;
    l->rp.atmos_atten_per_m = d->atmos_atten_per_m;
    sensim__returns_seed(&l->rp, d->seed, d->lidar_id);
    if (d->points_frame < SENSIM_POINTS_SENSOR || d->points_frame > SENSIM_POINTS_WORLD) {
        sensim_lidar_destroy(l);
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "lidar: points_frame = %d unknown", d->points_frame);
    }
    l->points_frame = d->points_frame;
    if (sensim__mat4_is_zero(d->mount_pose))
        sensim__mat4_identity(l->mount);
    else
        memcpy(l->mount, d->mount_pose, sizeof l->mount);

    const sensim_pattern *pt = &l->pat;
    l->lane_shots = SENSIM_LANE_SHOTS;
    if (pt->kind == SENSIM_PATTERN_MEMS) /* traced sorted by direction (direction_order): longer lanes */
        l->lane_shots = SENSIM_MEMS_LANE, l->sort_dirs = true;
    uint64_t widest = l->lane_shots;
    bool tiles_ok = true;
    if (pt->kind == SENSIM_PATTERN_MECHANICAL) {
        uint32_t L = pt->channels, kc = SENSIM_TILE_COLS_MAX;
        /* narrow: the most columns (SENSIM_TILE_COLS_MAX at most) whose lane holds SENSIM_LANE_MAX shots at
         * most; wide: twice as many (16 x 1 tiles for most lidars) */
        for (; kc >= 1 && (uint64_t)kc * L > SENSIM_LANE_MAX; kc /= 2)
            ;
        _Static_assert(2 * SENSIM_TILE_COLS_MAX <= 16, "a wide tile is at most one packet wide");
        l->tiling[0].cols = kc, l->tiling[1].cols = 2 * kc; /* (kc 0: no tiles) */
        for (int k = 0; k < 2; k++)
            l->tiling[k].lane_shots = l->tiling[k].cols ? (uint64_t)l->tiling[k].cols * L : SENSIM_LANE_MAX;
        l->lane_shots = l->tiling[0].lane_shots, widest = l->tiling[1].lane_shots;
        l->dir_rank = malloc(L * sizeof *l->dir_rank);
        if (l->dir_rank) /* vendors fire far-apart directions back to back: trace neighbours together */
            for (uint32_t c = 0; c < L; c++) {
                double bc = floor(atan2(pt->sin_off[c], pt->cos_off[c]) / (0.5 * SENSIM_PI / 180.0) + 0.5);
                uint32_t r = 0;
                for (uint32_t e = 0; e < L; e++) {
                    double be = floor(atan2(pt->sin_off[e], pt->cos_off[e]) / (0.5 * SENSIM_PI / 180.0) + 0.5);
                    r += be < bc || (be == bc && (pt->elevation_rad[e] < pt->elevation_rad[c] ||
                                                  (pt->elevation_rad[e] == pt->elevation_rad[c] && e < c)));
                }
                l->dir_rank[c] = (uint16_t)r;
            }
        /* tiles of cols columns x T ranks, T ranks of a column together:
         * rank r of column c goes to ((r / T) * cols + c) * T + r % T */
        for (int k = 0; k < 2 && kc; k++) {
            sensim_tiling *tl = &l->tiling[k];
            tl->base = malloc(L * sizeof *tl->base);
            tiles_ok = tiles_ok && tl->base;
            for (uint32_t c = 0; tl->base && l->dir_rank && c < L; c++) {
                uint32_t T = 16 / tl->cols, r = l->dir_rank[c];
                tl->base[c] = (uint16_t)((r / T) * tl->cols * T + r % T);
            }
        }
        tiles_ok = tiles_ok && l->dir_rank;
        /* wide tiles are 16 columns of one channel: wider than 8 x 2 tiles by 8 columns, as high as a
         * channel. They paid where that is not much more tile (whole frames, one thread: vlp16, hdl32,
         * os1_64, pandar64, pandar128 0.92-0.97 of the time, extents 0.89-1.23 x), or much less (ranks
         * far apart in elevation: hdl64 0.81, os0_128 0.79; 0.28-0.37 x), and cost where the columns are
         * coarse or the channels dense (ruby128 1.08, 1.64 x; pandar_qt before its azimuth offsets: 1.10, 1.48 x): so a lidar takes
         * them below 1.35 x. */
        uint16_t *by_rank = tiles_ok && kc ? malloc(L * sizeof *by_rank) : NULL;
        if (by_rank) {
            for (uint32_t c = 0; c < L; c++)
                by_rank[l->dir_rank[c]] = (uint16_t)c;
            if (tile_extent(pt, by_rank, l->tiling[1].cols) > 1.35 * tile_extent(pt, by_rank, kc))
                l->tiling[1].lane_shots = l->tiling[0].lane_shots, widest = l->lane_shots; /* narrow only */
            free(by_rank);
        } else if (kc) {
            tiles_ok = false;
        }
    } else { /* cols 0: lanes in firing order; a Risley head's wide ones 4 x as long */
        l->tiling[0].lane_shots = l->tiling[1].lane_shots = l->lane_shots;
        if (pt->kind == SENSIM_PATTERN_RISLEY)
            l->tiling[1].lane_shots = widest = SENSIM_RISLEY_WIDE_LANE;
    }
    _Static_assert(2 * SENSIM_LANE_MAX <= SENSIM_MEMS_LANE && SENSIM_RISLEY_WIDE_LANE <= SENSIM_LANE_MAX,
                   "a wide lane's shots fit pos (15 bits), as a MEMS lane's do");
    l->lane_cap = (uint32_t)(widest > SENSIM_LANE_MAX ? widest : SENSIM_LANE_MAX);
    const uint64_t sub_need = widest * (l->rp.nsub - 1);
    l->sub_cap = (uint32_t)(sub_need < SENSIM_SUBRAY_BATCH ? sub_need : SENSIM_SUBRAY_BATCH);
    /* a block: whole wide lanes (so whole narrow ones too) */
    uint64_t most = sensim__pattern_max_frame_shots(pt) + 2 * widest;
    most = (most + widest - 1) / widest * widest;
    l->block_shots = most < SENSIM_BLOCK_SHOTS ? most : SENSIM_BLOCK_SHOTS / widest * widest;
    l->slots = malloc(2 * l->block_shots * sizeof *l->slots);
    l->lane_out = malloc((l->block_shots / l->lane_shots + 2) * sizeof *l->lane_out);
    if (!l->slots || !l->lane_out || !tiles_ok) {
        sensim_lidar_destroy(l);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "lidar: cannot allocate scan scratch");
    }
    l->magic = SENSIM_MAGIC_LIDAR;
    *out = l;
    return SENSIM_OK;
}

sensim_status sensim_lidar_get_info(const sensim_lidar *l, sensim_lidar_info *o)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    if (!o)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_get_info: NULL argument");
    memset(o, 0, sizeof *o);
    memcpy(o->name, l->name, sizeof o->name);
    const sensim_pattern *p = &l->pat;
    o->channel_count = p->channels;
    o->pattern = p->kind;
    o->columns_per_revolution = p->cols_per_rev;
    o->columns_per_frame = p->cols_in_fov;
    o->shots_per_frame = sensim__pattern_max_frame_shots(p);
    o->frame_period_ns = p->frame_ns;
    o->frame_rate_hz = 1e9 / (double)p->frame_ns;
    o->table_size = p->table_n;
    if (p->kind == SENSIM_PATTERN_MECHANICAL && p->col_q_ps)
        o->shots_per_s = (double)p->channels * 1e12 / (double)p->col_q_ps;
    else if (p->kind == SENSIM_PATTERN_MECHANICAL)
        o->shots_per_s = (double)p->shots_per_rev * o->frame_rate_hz;
    else if (p->ttime)
        o->shots_per_s = (double)p->table_n * 1e9 / (double)p->tperiod;
    else
        o->shots_per_s = (double)p->lanes * 1e12 / (double)p->q_ps;
    o->min_range_m = l->rp.min_range_m;
    o->max_range_m = l->rp.max_range_m;
    o->lidar_id = l->rp.lidar_id;
    o->max_points_per_frame = 2 * o->shots_per_frame; /* two slots a shot: the return model's most */
    return SENSIM_OK;
}

sensim_status sensim_lidar_ring_size(const sensim_lidar *l, uint32_t frames, uint64_t *out_points, size_t *out_bytes)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    if (!out_points || !out_bytes)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_ring_size: NULL argument");
    if (frames < 1 || frames > (1u << 24))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_lidar_ring_size: %u frames outside 1..2^24", frames);
    uint64_t per = 2 * sensim__pattern_max_frame_shots(&l->pat);
    if (per > (UINT64_C(1) << 40) / frames)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_lidar_ring_size: %u frames of %llu points exceed 2^40 points",
                            frames, (unsigned long long)per);
    *out_points = per * frames;
    return sensim_ring_required_size(*out_points, frames, out_bytes);
}

sensim_status sensim_lidar_get_elevations(const sensim_lidar *l, float *dst, uint32_t cap, uint32_t *out_count)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
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
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    if (!pose)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_set_mount_pose: NULL argument");
    sensim_status st = sensim__check_pose(pose, "sensim_lidar_set_mount_pose: pose");
    if (st != SENSIM_OK || (st = sensim__lidar_acquire(l)) != SENSIM_OK)
        return st;
    memcpy(l->mount, pose, sizeof l->mount);
    sensim__lidar_release(l);
    return SENSIM_OK;
}

sensim_status sensim_lidar_set_shot_offset(sensim_lidar *l, int64_t shots)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    if (shots < -SENSIM_SHOT_OFFSET_MAX || shots > SENSIM_SHOT_OFFSET_MAX)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_lidar_set_shot_offset: %lld shots beyond +-1e15",
                            (long long)shots);
    sensim_status st = sensim__lidar_acquire(l);
    if (st != SENSIM_OK)
        return st;
    l->shot_offset = shots;
    sensim__lidar_release(l);
    return SENSIM_OK;
}

sensim_status sensim_lidar_set_weather(sensim_lidar *l, float visibility_m, float rain_rate_mm_h)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    sensim_status st = sensim__lidar_acquire(l);
    if (st != SENSIM_OK)
        return st;
    st = sensim__returns_set_weather(&l->rp, visibility_m, rain_rate_mm_h);
    sensim__lidar_release(l);
    return st;
}

sensim_status sensim_lidar_rewind(sensim_lidar *l)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    sensim_status st = sensim__lidar_acquire(l);
    if (st != SENSIM_OK)
        return st;
    if (l->has_last && l->last_end_ns > 0) /* the span scanned before, to be scanned again */
        sensim__lidar_pattern_memo(l, sensim__pattern_first_at(&l->pat, l->last_end_ns));
    l->has_last = false;
    l->last_end_ns = 0;
    sensim__lidar_release(l);
    return SENSIM_OK;
}

sensim_status sensim_lidar_get_mount_pose(const sensim_lidar *l, double out[16])
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_get_mount_pose: NULL argument");
    memcpy(out, l->mount, sizeof l->mount);
    return SENSIM_OK;
}

sensim_status sensim_lidar_count_shots(const sensim_lidar *l, int64_t tb, int64_t te, uint64_t *out)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_count_shots: NULL argument");
    if (sensim__lidar_check_time(l, tb, "sensim_lidar_count_shots: t_begin_ns") != SENSIM_OK ||
        sensim__lidar_check_time(l, te, "sensim_lidar_count_shots: t_end_ns") != SENSIM_OK)
        return SENSIM_ERR_OUT_OF_RANGE;
    if (te < tb)
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "t_end_ns %lld < t_begin_ns %lld", (long long)te, (long long)tb);
    *out = (uint64_t)(sensim__pattern_first_at(&l->pat, te) - sensim__pattern_first_at(&l->pat, tb));
    return SENSIM_OK;
}

sensim_status sensim_lidar_scan(sensim_lidar *l, const sensim_scene *scene, int64_t tb, int64_t te,
                                const double platform_pose[16], sensim_ring *ring, sensim_scan_result *res)
{
    if (res)
        memset(res, 0, sizeof *res);
    if (!platform_pose)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_scan: NULL pose");
    sensim_pose_key key;
    key.t_ns = tb;
    memcpy(key.pose, platform_pose, sizeof key.pose);
    sensim_motion m;
    memset(&m, 0, sizeof m);
    m.keys = &key;
    m.key_count = 1;
    return sensim_lidar_scan_motion(l, scene, tb, te, &m, ring, res);
}

static sensim_status scan_locked(sensim_lidar *l, const sensim_scene *scene, int64_t tb, int64_t te,
                                 const sensim_motion *motion, sensim_ring *ring, sensim_scan_result *res);

sensim_status sensim__lidar_check_time(const sensim_lidar *l, int64_t t, const char *what)
{
    sensim_status st = sensim__check_time(t, what);
    if (st == SENSIM_OK && (t > l->pat.t_limit_ns || t < -l->pat.t_limit_ns))
        st = sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                          "%s = %lld ns: this pattern's shot index leaves int64 beyond +-%lld ns", what,
                          (long long)t, (long long)l->pat.t_limit_ns);
    return st;
}

sensim_status sensim__lidar_acquire(sensim_lidar *l)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&l->busy, &expected, 1))
        return sensim__fail(SENSIM_ERR_BUSY, "lidar '%s' is in use by a scan on another thread (one lidar scans "
                                             "on one thread at a time)", l->name);
    if (l->magic != SENSIM_MAGIC_LIDAR) { /* destroyed meanwhile */
        atomic_store(&l->busy, 0);
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "lidar was destroyed");
    }
    return SENSIM_OK;
}

void sensim__lidar_release(sensim_lidar *l)
{
    atomic_store(&l->busy, 0);
}

sensim_status sensim_lidar_scan_motion(sensim_lidar *l, const sensim_scene *scene, int64_t tb, int64_t te,
                                       const sensim_motion *motion, sensim_ring *ring, sensim_scan_result *res)
{
    if (res)
        memset(res, 0, sizeof *res);
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!motion)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_scan: NULL motion");
    sensim_status st = sensim__ring_check(ring);
    if (st != SENSIM_OK)
        return st;
    if (sensim__ring_kind(ring) != SENSIM__RING_POINTS)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_lidar_scan: the ring holds images or navigation "
                                                         "samples, not points");
    if ((st = sensim__lidar_acquire(l)) != SENSIM_OK)
        return st;
    if ((st = sensim__scene_scan_begin(scene)) == SENSIM_OK) {
        st = scan_locked(l, scene, tb, te, motion, ring, res);
        sensim__scene_scan_end(scene);
    }
    sensim__lidar_release(l);
    return st;
}

sensim_status sensim__lidar_scan_check(const sensim_lidar *l, int64_t tb, int64_t te, const sensim_motion *motion,
                                       sensim_path *path)
{
    sensim_status st;
    if ((st = sensim__lidar_check_time(l, tb, "sensim_lidar_scan: t_begin_ns")) != SENSIM_OK ||
        (st = sensim__lidar_check_time(l, te, "sensim_lidar_scan: t_end_ns")) != SENSIM_OK)
        return st;
    if (te < tb)
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "sensim_lidar_scan: t_end_ns %lld < t_begin_ns %lld",
                            (long long)te, (long long)tb);
    if (l->has_last && tb < l->last_end_ns)
        return sensim__fail(SENSIM_ERR_TIME_ORDER,
                            "sensim_lidar_scan: t_begin_ns %lld is before the previous call's t_end_ns %lld",
                            (long long)tb, (long long)l->last_end_ns);
    if (sensim__context_cancelled(l->ctx))
        return sensim__fail(SENSIM_ERR_CANCELLED, "sensim_lidar_scan: cancelled (sensim_context_set_cancel)");
    if (motion && (st = sensim__path_init(path, motion->keys, motion->key_count, (int32_t)motion->interp)) != SENSIM_OK)
        return st;
    double S0[16];
    sensim__mat4_mul(path->pose0, l->mount, S0);
    return sensim__check_pose(S0, "sensim_lidar_scan: sensor pose (platform pose x mount)");
}

sensim_status sensim__lidar_scan_tx(sensim_lidar *l, const sensim_scene *scene, int64_t tb, int64_t te,
                                    const sensim_path *path, uint64_t world_step, sensim_ring *ring,
                                    uint64_t *out_shots, uint64_t *out_frames, uint64_t *out_rays)
{
    const sensim_pattern *p = &l->pat;
    sensim_scan_env env;
    env.scene = scene;
    env.path = path;
    env.mount = l->mount;
    env.nthreads = sensim__threads(l->ctx);
    env.pose_gen = sensim__lidar_pose_gen();
    sensim__mat4_mul(path->pose0, l->mount, env.S0);
    uint64_t shots = 0, frames = 0, rays = 0;
    *out_shots = *out_frames = *out_rays = 0;
    if (l->rp.log) /* a bench records this scan's secondary rays (sensim_bench_record_secondary) */
        atomic_store(&l->rp.log->n, 0);
    sensim_status st = sensim__lidar_scratch(l, env.nthreads);
    if (st != SENSIM_OK)
        return st;
    if (te > tb) {
        int64_t r0 = sensim__floordiv(tb, p->frame_ns), r1 = sensim__floordiv(te - 1, p->frame_ns);
        /* Stop as soon as the scan cannot succeed (a FAIL ring already
         * overflowed: the whole scan will be refused) or the host cancelled;
         * both are checked once per chunk. */
        for (int64_t r = r0; r <= r1 && !sensim__ring_tx_failed(ring); r++) {
            int64_t fb = r * p->frame_ns, fe = fb + p->frame_ns;
            int64_t sb = tb > fb ? tb : fb, se = te < fe ? te : fe;
            double Sb[16];
            sensim__lidar_sensor_pose(&env, sb, Sb);
            sensim__ring_open_frame(ring, (uint64_t)r, fb, fe, Sb, l->rp.lidar_id, world_step);
            sensim__ring_add_scanned(ring, se - sb, world_step);
            const double *H = sensim__ring_open_pose(ring);
            sensim__mat4_rigid_inverse(H ? H : Sb, env.Hinv);
            int64_t g0 = sensim__pattern_first_at(p, sb), g1 = sensim__pattern_first_at(p, se);
            shots += (uint64_t)(g1 - g0);
            const int64_t B = (int64_t)l->block_shots;
            for (int64_t g = g0; g < g1 && !sensim__ring_tx_failed(ring); g += B) {
                if (sensim__context_cancelled(l->ctx))
                    break;
                rays += sensim__lidar_scan_block(l, &env, fb, g, g + B < g1 ? g + B : g1, ring);
            }
            if (sensim__context_cancelled(l->ctx))
                return sensim__fail(SENSIM_ERR_CANCELLED, "sensim_lidar_scan: cancelled "
                                                          "(sensim_context_set_cancel); nothing was written");
            if (se == fe) {
                sensim__ring_close_frame(ring);
                frames++;
            }
        }
    }
    *out_shots = shots;
    *out_frames = frames;
    *out_rays = rays;
    return SENSIM_OK;
}

static sensim_status scan_locked(sensim_lidar *l, const sensim_scene *scene, int64_t tb, int64_t te,
                                 const sensim_motion *motion, sensim_ring *ring, sensim_scan_result *res)
{
    sensim_path *path = &l->path; /* the lidar is held */
    sensim_status st = sensim__lidar_scan_check(l, tb, te, motion, path);
    if (st != SENSIM_OK)
        return st;
    uint64_t shots, frames, rays, written = 0, lost = 0;
    sensim__ring_tx_begin(ring);
    if ((st = sensim__lidar_scan_tx(l, scene, tb, te, path, motion->world_step, ring, &shots, &frames, &rays)) !=
        SENSIM_OK) {
        sensim__ring_tx_abort(ring);
        return st;
    }
    if ((st = sensim__ring_tx_end(ring, &written, &lost)) != SENSIM_OK)
        return st;
    l->has_last = true;
    l->last_end_ns = te;
    if (res) {
        res->shots = shots;
        res->points = written;
        res->frames_completed = frames;
        res->points_lost = lost;
        res->rays_traced = rays;
    }
    return SENSIM_OK;
}
