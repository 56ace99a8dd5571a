/* Lidar object and the scan loop: pattern -> rays -> trace -> returns -> ring. */
#include "lidar_impl.h"
#include "motion.h"
#include "ring_impl.h"

#include <math.h>
#include <omp.h>
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
    free(l->slots);
    free(l->lane_out);
    free(l->dir_rank);
    free(l->tile_base);
    free(l->scr);
    if (l->rp.log)
        free(l->rp.log->rays), free(l->rp.log);
    sensim_context *ctx = l->ctx;
    free(l);
    sensim__context_release(ctx);
}

sensim_status sensim_lidar_create(sensim_context *ctx, const sensim_lidar_desc *d, sensim_lidar **out)
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
    st = sensim__pattern_init(&l->pat, d);
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
    if (pt->kind == SENSIM_PATTERN_MECHANICAL) {
        uint32_t L = pt->channels;
        l->tile_cols = 0; /* the most columns (SENSIM_TILE_COLS_MAX at most) whose lane holds SENSIM_LANE_MAX shots at most */
        for (uint32_t kc = SENSIM_TILE_COLS_MAX; kc >= 1 && !l->tile_cols; kc /= 2)
            if ((uint64_t)kc * L <= SENSIM_LANE_MAX)
                l->tile_cols = kc;
        l->lane_shots = l->tile_cols ? (uint64_t)l->tile_cols * L : SENSIM_LANE_MAX;
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
        /* tiles of tile_cols columns x T ranks, T ranks of a column together:
         * rank r of column c goes to ((r / T) * tile_cols + c) * T + r % T */
        l->tile_base = malloc(L * sizeof *l->tile_base);
        for (uint32_t c = 0; l->tile_cols && l->tile_base && l->dir_rank && c < L; c++) {
            uint32_t T = 16 / l->tile_cols, r = l->dir_rank[c];
            l->tile_base[c] = (uint16_t)((r / T) * l->tile_cols * T + r % T);
        }
    }
    const uint64_t sub_need = l->lane_shots * (l->rp.nsub - 1);
    l->sub_cap = (uint32_t)(sub_need < SENSIM_SUBRAY_BATCH ? sub_need : SENSIM_SUBRAY_BATCH);
    uint64_t most = sensim__pattern_max_frame_shots(pt) + 2 * l->lane_shots;
    most = (most + l->lane_shots - 1) / l->lane_shots * l->lane_shots;
    l->block_shots = most < SENSIM_BLOCK_SHOTS ? most : SENSIM_BLOCK_SHOTS / l->lane_shots * l->lane_shots;
    l->slots = malloc(2 * l->block_shots * sizeof *l->slots);
    l->lane_out = malloc((l->block_shots / l->lane_shots + 2) * sizeof *l->lane_out);
    if (!l->slots || !l->lane_out || (pt->kind == SENSIM_PATTERN_MECHANICAL && (!l->dir_rank || !l->tile_base))) {
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

sensim_status sensim_lidar_rewind(sensim_lidar *l)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    sensim_status st = sensim__lidar_acquire(l);
    if (st != SENSIM_OK)
        return st;
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

/* What a chunk needs besides the lidar: motion and output frame. */
typedef struct scan_env {
    const sensim_scene *scene;
    const sensim_path *path;  /* platform motion */
    const double *mount;
    double S0[16];            /* sensor pose when the platform does not move */
    double Hinv[16];          /* inverse of the frame header's pose (deskew) */
    uint32_t nthreads;
} scan_env;

static void sensor_pose(const scan_env *env, int64_t t, double S[16])
{
    if (!env->path->moving) {
        memcpy(S, env->S0, sizeof env->S0);
        return;
    }
    double P[16];
    sensim__path_pose(env->path, t, P);
    sensim__mat4_mul(P, env->mount, S);
}

static void to_floats(const double S[16], float R[9], float org[3])
{
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++)
            R[c * 3 + row] = (float)S[c * 4 + row];
    org[0] = (float)S[12], org[1] = (float)S[13], org[2] = (float)S[14];
}

/* The lane slot of firing time @p t (a multiplicative hash). */
static inline sensim_pose_slot *pose_slot(sensim_lane_scratch *w, int64_t t)
{
    _Static_assert(SENSIM_POSE_SLOTS == 256, "the hash takes 8 bits");
    return &w->poses[(uint64_t)t * 0x9E3779B97F4A7C15ull >> 56];
}

/* The moving sensor's pose at shot time @p t, from the lane's slots: the
 * shots of a lane that fire together (an Ouster column, a Hesai firing
 * group: a pandar128 column fires at 16 times) share one evaluation of the
 * motion (slerp, matrix products) instead of one each. The same pose as
 * sensor_pose() and to_floats() give: the same bits. */
static const sensim_pose_slot *lane_pose(const scan_env *env, sensim_lane_scratch *w, int64_t t)
{
    sensim_pose_slot *e = pose_slot(w, t);
    if (e->lane != w->pose_lane || e->t != t) {
        sensor_pose(env, t, e->S);
        to_floats(e->S, e->R, e->org);
        e->lane = w->pose_lane, e->t = t;
    }
    return e;
}

/* The poses at tv[0 .. m) into slots sl[0 .. m): sensim__path_pose4(), then
 * sensor_pose()'s product with the mount four at a time
 * (sensim__mat4_mul4), then to_floats()'s conversions four at a time: the
 * same bits as lane_pose(). The double pose S only @p with_S (the points
 * leave the sensor frame: nothing else reads it). */
static void fill_poses(const scan_env *env, const int64_t tv[4], sensim_pose_slot *const sl[4], uint32_t m,
                       uint64_t lane, bool with_S)
{
    sensim_v4d P[16], S[16];
    sensim__path_pose4(env->path, tv, m, P);
    sensim__mat4_mul4(P, env->mount, S);
    sensim_v4f Rf[9], of[3];
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++)
            Rf[c * 3 + row] = __builtin_convertvector(S[c * 4 + row], sensim_v4f);
        of[c] = __builtin_convertvector(S[12 + c], sensim_v4f);
    }
    for (uint32_t l = 0; l < m; l++) { /* in order: of two times on one slot the later keeps it */
        sensim_pose_slot *e = sl[l];
        if (with_S)
            for (int x = 0; x < 16; x++)
                e->S[x] = S[x][l];
        for (int x = 0; x < 9; x++)
            e->R[x] = Rf[x][l];
        for (int x = 0; x < 3; x++)
            e->org[x] = of[x][l];
        e->lane = lane, e->t = tv[l];
    }
}

/* A moving sensor: the slots of the live shots [i0, i1) of the lane that
 * have none, filled four firing times at a time (what lane_pose() would
 * compute one at a time; most of a pose is its libm-free arithmetic). */
static void lane_prefill(const scan_env *env, const sensim_return_params *rp, sensim_lane_scratch *w, int64_t lg0,
                         uint32_t i0, uint32_t i1, bool with_S)
{
    int64_t tv[4];
    sensim_pose_slot *sl[4];
    uint32_t m = 0;
    for (uint32_t i = i0; i < i1; i++) {
        const int64_t t = w->when[i];
        if (!w->ok[i] || !sensim__returns_keep_shot(rp, (uint64_t)(lg0 + i)))
            continue;
        sensim_pose_slot *e = pose_slot(w, t);
        if (e->lane == w->pose_lane && e->t == t)
            continue; /* filled, or on its way in this batch */
        e->lane = w->pose_lane, e->t = t;
        sl[m] = e, tv[m++] = t;
        if (m == 4) {
            fill_poses(env, tv, sl, 4, w->pose_lane, with_S);
            m = 0;
        }
    }
    if (m)
        fill_poses(env, tv, sl, m, w->pose_lane, with_S);
}

/* Move a sensor-frame point into the requested output frame. */
static void output_frame(const sensim_lidar *l, const scan_env *env, const double S[16], sensim_point *pt)
{
    if (l->points_frame == SENSIM_POINTS_SENSOR)
        return;
    double x = pt->x, y = pt->y, z = pt->z;
    double w[3] = {S[0] * x + S[4] * y + S[8] * z + S[12], S[1] * x + S[5] * y + S[9] * z + S[13],
                   S[2] * x + S[6] * y + S[10] * z + S[14]};
    if (l->points_frame == SENSIM_POINTS_DESKEWED) {
        const double *H = env->Hinv;
        double d[3] = {H[0] * w[0] + H[4] * w[1] + H[8] * w[2] + H[12], H[1] * w[0] + H[5] * w[1] + H[9] * w[2] + H[13],
                       H[2] * w[0] + H[6] * w[1] + H[10] * w[2] + H[14]};
        memcpy(w, d, sizeof d);
    }
    pt->x = (float)w[0], pt->y = (float)w[1], pt->z = (float)w[2];
}

/* Bits 0..7 of @p v spread to the even bits 0..14. */
static uint32_t spread8(uint32_t v)
{
    v = (v | v << 4) & 0x0F0Fu;
    v = (v | v << 2) & 0x3333u;
    return (v | v << 1) & 0x5555u;
}

/* A MEMS lidar fires its 10 sub-fields together, far-apart directions back
 * to back: w->pos[0 .. m) gets the lane's live rays ordered along a Morton
 * curve over the octahedral map of their world directions (256 x 256 cells,
 * about 1 degree), stable within a cell, so 16-ray packets hold
 * neighbouring directions. A function of the lane's rays alone. (Risley
 * patterns gained nothing from it: their consecutive shots are neighbours.) */
static void direction_order(sensim_lane_scratch *w, uint32_t m)
{
    uint16_t *key = w->key, *tmp = (uint16_t *)&w->pos[SENSIM_LANE_MAX];
    for (uint32_t j = 0; j < m; j++) {
        const float *d = w->rays[j].dir;
        float s = fabsf(d[0]) + fabsf(d[1]) + fabsf(d[2]);
        float u = s > 0 ? d[0] / s : 0, v = s > 0 ? d[1] / s : 0;
        if (d[2] < 0) { /* the lower hemisphere folded outwards */
            float fu = (1.0f - fabsf(v)) * (u < 0 ? -1.0f : 1.0f), fv = (1.0f - fabsf(u)) * (v < 0 ? -1.0f : 1.0f);
            u = fu, v = fv;
        }
        float fu = (u + 1.0f) * 127.99f, fv = (v + 1.0f) * 127.99f; /* NaN -> cell 0 */
        uint32_t qu = fu > 0 ? (fu < 255 ? (uint32_t)fu : 255) : 0, qv = fv > 0 ? (fv < 255 ? (uint32_t)fv : 255) : 0;
        key[j] = (uint16_t)(spread8(qu) | spread8(qv) << 1);
    }
    /* two stable counting passes of 8 bits: low byte, then high byte */
    uint32_t cnt[256];
    memset(cnt, 0, sizeof cnt);
    for (uint32_t j = 0; j < m; j++)
        cnt[key[j] & 255u]++;
    for (uint32_t b = 0, acc = 0; b < 256; b++) {
        uint32_t c = cnt[b];
        cnt[b] = acc, acc += c;
    }
    for (uint32_t j = 0; j < m; j++)
        tmp[cnt[key[j] & 255u]++] = (uint16_t)j;
    memset(cnt, 0, sizeof cnt);
    for (uint32_t j = 0; j < m; j++)
        cnt[key[j] >> 8]++;
    for (uint32_t b = 0, acc = 0; b < 256; b++) {
        uint32_t c = cnt[b];
        cnt[b] = acc, acc += c;
    }
    for (uint32_t j = 0; j < m; j++)
        w->pos[cnt[key[tmp[j]] >> 8]++] = (int16_t)tmp[j];
}

/* Trace a lane's m rays in tile order: columns x channels neighbouring in
 * direction, so each 16-ray packet is coherent; hits return to firing order.
 * Embree's hybrid traversal can round a ray's hit differently depending on
 * its packet mates (last bits, rarely), so packets are a function of the
 * lane's shots alone: lanes are fixed by absolute shot indices, the same
 * for any thread count; a call that ends inside a lane traces its part.
 * True when w->pos[0 .. m) holds the live shots in tile order. */
static bool trace_lane(const sensim_lidar *l, const sensim_scene *scene, sensim_lane_scratch *w, int64_t lane_g0,
                       uint32_t m)
{
    const sensim_pattern *p = &l->pat;
    if (l->sort_dirs && m >= 2 * 16) {
        direction_order(w, m);
        sensim__trace_rays_order(scene, w->rays, w->pos, m, w->hits);
        return true;
    }
    if (!l->tile_cols || m < 2) {
        if (m)
            sensim__trace_rays(scene, w->rays, m, w->hits);
        return false;
    }
    uint32_t kc = l->tile_cols, T = 16 / kc, L = p->channels;
    uint32_t span = kc * ((L + T - 1) / T) * T;
    for (uint32_t k = 0; k < span; k++)
        w->pos[k] = -1;
    /* shot live[j]'s column within the lane, stepped (live[] increases):
     * two divisions per shot were a quarter of the lane loop's own time on
     * pandar128 (perf annotate) */
    uint32_t c = 0, rem = (uint32_t)(lane_g0 - sensim__floordiv(lane_g0, L) * (int64_t)L);
    int64_t at = 0;
    for (uint32_t j = 0; j < m; j++) {
        rem += (uint32_t)(w->live[j] - at), at = w->live[j];
        for (; rem >= L; rem -= L)
            c++;
        w->pos[l->tile_base[w->chan[j]] + c * T] = (int16_t)j;
    }
    uint32_t k = 0;
    for (uint32_t q = 0; q < span; q++) /* the live ones, in tile order (k <= q: in place) */
        if (w->pos[q] >= 0)
            w->pos[k++] = w->pos[q];
    sensim__trace_rays_order(scene, w->rays, w->pos, m, w->hits);
    return true;
}

/* Reserve ring space for the lanes from *next on that are ready, in lane
 * order (the caller holds the ring's critical section); returns the first
 * lane not reserved. */
static int reserve_ready(sensim_lidar *l, sensim_ring *ring, int nlanes, int *next)
{
    for (; *next < nlanes && l->lane_out[*next].ready; ++*next) {
        sensim_lane_out *o = &l->lane_out[*next];
        o->fit = sensim__ring_reserve(ring, o->points, &o->span0, &o->n0, &o->span1);
    }
    return *next;
}

/* Generate, trace and write shots [g0, g1) of one frame (g1 - g0 <= one
 * block). Lanes (aligned to multiples of lane_shots, so a mechanical lane
 * holds whole columns) run in parallel, handed out dynamically, each into
 * its own part of the slots. A finished lane is published in lane order:
 * under a short critical section the thread that finishes a lane reserves
 * ring space for every ready lane from the first unreserved one on, then
 * copies those lanes into the ring outside it. So the output is in shot
 * order whatever the thread count and schedule, the copying runs beside
 * other lanes' work, and no thread waits for a slower lane. A cancel
 * skips the remaining lanes' work (the caller then aborts the
 * transaction). Returns the rays traced. */
static uint64_t scan_chunk(sensim_lidar *l, const scan_env *env, int64_t frame_begin, int64_t g0, int64_t g1,
                       sensim_ring *ring)
{
    const sensim_pattern *p = &l->pat;
    const sensim_return_params *rp = &l->rp;
    const sensim_scene *scene = env->scene;
    const int64_t LS = (int64_t)l->lane_shots, base = sensim__floordiv(g0, LS);
    const int nlanes = (int)(sensim__floordiv(g1 - 1, LS) - base + 1);
    const bool moving = env->path->moving;
    const bool beam_origin = p->kind == SENSIM_PATTERN_MECHANICAL && p->beam_origin_m > 0.0;
    const bool sub0_nominal = rp->sub_h[0] == 0 && rp->sub_v[0] == 0 && !(rp->d.angular_jitter_rad > 0);
    float R0[9], org0[3];
    to_floats(env->S0, R0, org0);
    int next = 0; /* the first lane without ring space */
    for (int lane = 0; lane < nlanes; lane++)
        l->lane_out[lane].ready = false;

#pragma omp parallel num_threads(env->nthreads) if (env->nthreads > 1 && nlanes > 1)
    {
        sensim_lane_scratch *w = &l->scr[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
        for (int lane = 0; lane < nlanes; lane++) {
            int64_t lg0 = (base + lane) * LS, lg1 = lg0 + LS;
            lg0 = lg0 < g0 ? g0 : lg0, lg1 = lg1 > g1 ? g1 : lg1;
            const int64_t a = lg0 - g0; /* the lane's first shot within the block */
            uint32_t cnt = (uint32_t)(lg1 - lg0), m = 0, out = 0;
            int64_t *when = w->when, *live = w->live;
            uint16_t *chan = w->chan;
            uint8_t *ok = w->ok;
            float *dirs = w->dirs;
            sensim_ray *rays = w->rays;
            sensim_hit *hits = w->hits;
            if (sensim__context_cancelled(l->ctx))
                cnt = 0; /* published empty */
            if (moving) /* the slots of earlier lanes (other scans, other motions) go stale */
                w->pose_lane++;
            sensim__pattern_batch(p, lg0, cnt, when, chan, dirs, ok);
            /* compact the live shots at the front of the lane's scratch */
            for (uint32_t i = 0; i < cnt; i++) {
                int64_t g = lg0 + i;
                if (moving && i % 64 == 0) /* the poses of the next 64 shots, four at a time */
                    lane_prefill(env, rp, w, lg0, i, cnt - i < 64 ? cnt : i + 64,
                                 l->points_frame != SENSIM_POINTS_SENSOR);
                if (!ok[i] || !sensim__returns_keep_shot(rp, (uint64_t)g))
                    continue;
                float td[3];
                const float *R = R0, *org = org0;
                if (moving) {
                    const sensim_pose_slot *ps = lane_pose(env, w, when[i]);
                    R = ps->R, org = ps->org;
                }
                if (m != i) {
                    memcpy(&dirs[3 * m], &dirs[3 * i], 3 * sizeof(float));
                    when[m] = when[i], chan[m] = chan[i];
                }
                if (sub0_nominal) /* what sensim__returns_subray_dir() gives for sub-ray 0 on the axis */
                    memcpy(td, &dirs[3 * m], sizeof td);
                else
                    sensim__returns_subray_dir(rp, (uint64_t)g, 0, &dirs[3 * m], td);
                sensim_ray *ray = &rays[m];
                memcpy(ray->org, org, 3 * sizeof(float));
                if (beam_origin) { /* the beam leaves the optics off the axis */
                    float *bo = &w->origin[3 * m];
                    sensim__pattern_origin(p, g, when[m], bo);
                    for (int row = 0; row < 3; row++)
                        ray->org[row] += R[row] * bo[0] + R[3 + row] * bo[1] + R[6 + row] * bo[2];
                }
                { /* in registers, stored once: td's stack copy and the stores through ray
                   * no longer wait on each other (the same operations in the same order) */
                    const float t0 = td[0], t1 = td[1], t2 = td[2];
                    const float x = R[0] * t0 + R[3] * t1 + R[6] * t2, y = R[1] * t0 + R[4] * t1 + R[7] * t2,
                                z = R[2] * t0 + R[5] * t1 + R[8] * t2;
                    ray->dir[0] = x, ray->dir[1] = y, ray->dir[2] = z;
                }
                ray->tnear = 0.0f;
                ray->tfar = rp->max_range_m;
                ray->time = sensim__scene_ray_time(scene, when[m]);
                live[m++] = (int64_t)i;
            }
            const bool tiled = trace_lane(l, scene, w, lg0, m);
            uint32_t rays_traced = m * rp->nsub; /* each live shot's beam; bounces are added as they are traced */
            sensim_point *slot = &l->slots[2 * a];
            /* Sub-rays beside sub-ray 0 (beam divergence), traced in 16-ray
             * packets across shots: the whole lane's in tile order (the
             * shots neighbouring in direction) when they fit, else groups
             * of shots in firing order. */
            const uint32_t nsub1 = rp->nsub - 1;
            const bool whole = tiled && m * nsub1 <= l->sub_cap;
            const uint32_t group = !nsub1 || whole ? (m ? m : 1) : l->sub_cap / nsub1;
            for (uint32_t j0 = 0; j0 < m; j0 += group) {
                const uint32_t j1 = m - j0 < group ? m : j0 + group;
                if (nsub1) {
                    for (uint32_t q = j0; q < j1; q++) {
                        const uint32_t j = whole ? (uint32_t)w->pos[q] : q;
                        const float *R = moving ? lane_pose(env, w, when[j])->R : R0;
                        w->sub_at[j] = (uint16_t)((q - j0) * nsub1);
                        sensim__returns_subrays(rp, R, &dirs[3 * j], &rays[j], (uint64_t)(lg0 + live[j]),
                                                &w->sub_rays[w->sub_at[j]]);
                    }
                    sensim__trace_rays(scene, w->sub_rays, (j1 - j0) * nsub1, w->sub_hits);
                }
                sensim__returns_plain(rp, scene, j1 - j0, &rays[j0], &hits[j0], (uint64_t)lg0, &live[j0],
                                      &w->plain[j0]);
                for (uint32_t j = j0; j < j1; j++) {
                    const uint8_t kind = w->plain[j].kind;
                    if (kind == SENSIM_PLAIN_NONE)
                        continue;
                    const double *S = NULL;
                    if (l->points_frame != SENSIM_POINTS_SENSOR)
                        S = moving ? lane_pose(env, w, when[j])->S : env->S0;
                    sensim_point *pt = &slot[out];
                    sensim_shot_meta meta = {{0.0f, 0.0f, 0.0f}, (uint32_t)(when[j] - frame_begin), chan[j]};
                    if (beam_origin)
                        memcpy(meta.origin, &w->origin[3 * j], sizeof meta.origin);
                    const sensim_ray *srays = nsub1 ? &w->sub_rays[w->sub_at[j]] : NULL;
                    const sensim_hit *shits = nsub1 ? &w->sub_hits[w->sub_at[j]] : NULL;
                    uint32_t k = 1;
                    if (kind == SENSIM_PLAIN_POINT)
                        sensim__returns_plain_point(&w->plain[j], &hits[j], &dirs[3 * j], &meta, pt);
                    else
                        k = sensim__returns_shot(rp, scene, &dirs[3 * j], &rays[j], &hits[j], srays, shits,
                                                 (uint64_t)(lg0 + live[j]), &meta, pt, &rays_traced);
                    if (l->points_frame != SENSIM_POINTS_SENSOR)
                        for (uint32_t q = 0; q < k; q++)
                            output_frame(l, env, S, &pt[q]);
                    out += k;
                }
            }
            l->lane_out[lane].points = out;
            l->lane_out[lane].rays = rays_traced;
            int lo, hi;
#pragma omp critical(sensim_lane_publish)
            {
                l->lane_out[lane].ready = true;
                lo = next;
                hi = reserve_ready(l, ring, nlanes, &next);
            }
            for (int k = lo; k < hi; k++) { /* the lanes this thread reserved: into the ring */
                const sensim_lane_out *o = &l->lane_out[k];
                int64_t kg0 = (base + k) * LS;
                const sensim_point *src = &l->slots[2 * ((kg0 < g0 ? g0 : kg0) - g0)];
                uint64_t first = o->n0 < o->fit ? o->n0 : o->fit;
                if (first)
                    memcpy(o->span0, src, first * sizeof *src);
                if (o->fit > first)
                    memcpy(o->span1, src + first, (o->fit - first) * sizeof *src);
            }
        }
    }
    uint64_t rays = 0;
    for (int lane = 0; lane < nlanes; lane++)
        rays += l->lane_out[lane].rays;
    return rays;
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
    scan_env env;
    env.scene = scene;
    env.path = path;
    env.mount = l->mount;
    env.nthreads = l->ctx->thread_count;
    sensim__mat4_mul(path->pose0, l->mount, env.S0);
    uint64_t shots = 0, frames = 0, rays = 0;
    *out_shots = *out_frames = *out_rays = 0;
    if (l->rp.log) /* a bench records this scan's secondary rays (sensim_bench_record_secondary) */
        atomic_store(&l->rp.log->n, 0);
    if (l->scr_threads < env.nthreads) { /* the first scan on this many threads allocates; later ones do not */
        const size_t per_sub = sizeof(sensim_ray) + sizeof(sensim_hit);
        sensim_lane_scratch *ns = malloc(env.nthreads * (sizeof *ns + (size_t)l->sub_cap * per_sub));
        if (!ns)
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_lidar_scan: lane scratch for %u threads",
                                env.nthreads);
        sensim_ray *sr = (sensim_ray *)(void *)(ns + env.nthreads); /* sensim_ray, then sensim_hit: 4-byte fields */
        sensim_hit *sh = (sensim_hit *)(void *)(sr + (size_t)env.nthreads * l->sub_cap);
        for (uint32_t k = 0; k < env.nthreads; k++) {
            ns[k].sub_rays = l->sub_cap ? sr + (size_t)k * l->sub_cap : NULL;
            ns[k].sub_hits = l->sub_cap ? sh + (size_t)k * l->sub_cap : NULL;
            ns[k].pose_lane = 0; /* no slot filled yet */
            for (uint32_t j = 0; j < SENSIM_POSE_SLOTS; j++)
                ns[k].poses[j].lane = 0;
        }
        free(l->scr);
        l->scr = ns;
        l->scr_threads = env.nthreads;
    }
    if (te > tb) {
        int64_t r0 = sensim__floordiv(tb, p->frame_ns), r1 = sensim__floordiv(te - 1, p->frame_ns);
        /* Stop as soon as the scan cannot succeed (a FAIL ring already
         * overflowed: the whole scan will be refused) or the host cancelled;
         * both are checked once per chunk. */
        for (int64_t r = r0; r <= r1 && !sensim__ring_tx_failed(ring); r++) {
            int64_t fb = r * p->frame_ns, fe = fb + p->frame_ns;
            int64_t sb = tb > fb ? tb : fb, se = te < fe ? te : fe;
            double Sb[16];
            sensor_pose(&env, sb, Sb);
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
                rays += scan_chunk(l, &env, fb, g, g + B < g1 ? g + B : g1, ring);
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
