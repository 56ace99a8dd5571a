/* Benchmark support: the bare Embree loop over a lidar's own rays. */
#include "lidar_impl.h"
#include "motion.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

sensim_status sensim_bench_trace(const sensim_lidar *l, const sensim_scene *scene, int64_t tb, int64_t te,
                                 const double pose[16], int32_t variant, double *out_s, uint64_t *out_rays,
                                 uint64_t *out_hits)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if ((!pose && variant != SENSIM_BENCH_SECONDARY) || !out_s || variant < SENSIM_BENCH_NAIVE ||
        variant > SENSIM_BENCH_SECONDARY)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_bench_trace: NULL argument or unknown variant");
    sensim_status st;
    if (variant == SENSIM_BENCH_SECONDARY) { /* the secondary rays of the lidar's latest scan, alone */
        const sensim_ray_log *log = l->rp.log;
        if (!log)
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_bench_trace: SENSIM_BENCH_SECONDARY needs "
                                                             "sensim_bench_record_secondary() and a scan first");
        uint64_t nsec = atomic_load(&log->n);
        if (nsec > log->cap)
            return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_bench_trace: the latest scan traced %llu secondary "
                                "rays, the record holds %llu", (unsigned long long)nsec,
                                (unsigned long long)log->cap);
        if ((st = sensim__scene_scan_begin(scene)) != SENSIM_OK)
            return st;
        uint64_t hits = 0;
        double t0 = now_s();
        if (nsec) /* one at a time, as the return model traces them */
            sensim__trace_bench(scene, log->rays, nsec, SENSIM_BENCH_NAIVE, l->ctx->thread_count, &hits);
        *out_s = now_s() - t0;
        sensim__scene_scan_end(scene);
        if (out_rays)
            *out_rays = nsec;
        if (out_hits)
            *out_hits = hits;
        return SENSIM_OK;
    }
    if ((st = sensim__lidar_check_time(l, tb, "sensim_bench_trace: t_begin_ns")) != SENSIM_OK ||
        (st = sensim__lidar_check_time(l, te, "sensim_bench_trace: t_end_ns")) != SENSIM_OK)
        return st;
    if (te < tb)
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "sensim_bench_trace: t_end_ns < t_begin_ns");
    double S0[16];
    sensim__mat4_mul(pose, l->mount, S0);
    if ((st = sensim__check_pose(pose, "sensim_bench_trace: pose")) != SENSIM_OK ||
        (st = sensim__check_pose(S0, "sensim_bench_trace: sensor pose")) != SENSIM_OK)
        return st;
    if ((st = sensim__scene_scan_begin(scene)) != SENSIM_OK)
        return st;
    const sensim_pattern *p = &l->pat;
    int64_t g0 = sensim__pattern_first_at(p, tb), g1 = sensim__pattern_first_at(p, te);
    /* every ray the pipeline's first pass traces: a shot's beam sub-rays too */
    const uint32_t nsub = l->rp.nsub, nsub1 = nsub - 1;
    uint64_t n = (uint64_t)(g1 - g0), m = 0, cap = n ? n : 1;
    if (n > SENSIM_BENCH_MAX_RAYS / nsub) {
        sensim__scene_scan_end(scene);
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_bench_trace: %llu shots x %u rays a shot > %llu rays",
                            (unsigned long long)n, nsub, (unsigned long long)SENSIM_BENCH_MAX_RAYS);
    }
    sensim_ray *rays = malloc(cap * sizeof *rays), *sub = NULL, *all = NULL;
    uint64_t *perm = malloc(cap * sizeof *perm);
    if (nsub1)
        sub = malloc(cap * nsub1 * sizeof *sub), all = malloc(cap * nsub * sizeof *all);
    if (!rays || !perm || (nsub1 && (!sub || !all))) {
        free(rays), free(perm), free(sub), free(all);
        sensim__scene_scan_end(scene);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_bench_trace: %llu rays",
                            (unsigned long long)(n * nsub));
    }
    double S[16];
    sensim__mat4_mul(pose, l->mount, S);
    const float Rf[9] = {(float)S[0], (float)S[1], (float)S[2], (float)S[4], (float)S[5],
                         (float)S[6], (float)S[8], (float)S[9], (float)S[10]};
    double t_pattern = now_s();
    for (int64_t g = g0; g < g1; g++) {
        int64_t t = sensim__pattern_time(p, g);
        uint16_t ch;
        float d[3];
        if (!sensim__pattern_shot(p, g, t, &ch, d))
            continue;
        sensim_ray *r = &rays[m];
        r->org[0] = (float)S[12], r->org[1] = (float)S[13], r->org[2] = (float)S[14];
        for (int row = 0; row < 3; row++)
            r->dir[row] = (float)(S[row] * d[0] + S[4 + row] * d[1] + S[8 + row] * d[2]);
        r->tnear = 0.0f;
        r->tfar = l->rp.max_range_m;
        r->time = sensim__scene_ray_time(scene, t);
        if (nsub1)
            sensim__returns_subrays(&l->rp, Rf, d, r, (uint64_t)g, &sub[m * nsub1]);
        perm[m] = m;
        m++;
    }
    t_pattern = now_s() - t_pattern; /* one thread: SENSIM_BENCH_PATTERN16 charges it divided by the threads */
    /* the pipeline's tiles for a block of these shots (a frame: the wide ones) */
    const sensim_tiling *tl = sensim__lidar_tiling(l, n, l->ctx->thread_count);
    const bool tiled = variant == SENSIM_BENCH_TILED16 && p->kind == SENSIM_PATTERN_MECHANICAL && m == n && tl->cols;
    if (tiled) {
        /* the pipeline's tiles: KC consecutive columns x 16 / KC channels neighbouring in direction */
        const uint32_t KC = tl->cols, TT = 16 / KC;
        uint32_t L = p->channels;
        uint32_t *slot_of = malloc(L * sizeof *slot_of), *by_dir = malloc(L * sizeof *by_dir);
        if (!slot_of || !by_dir) {
            free(slot_of), free(by_dir), free(rays), free(perm), free(sub), free(all);
            sensim__scene_scan_end(scene);
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_bench_trace: tiles");
        }
        for (uint32_t j = 0; j < L; j++) /* firing slot of each channel */
            slot_of[p->fire_order[j]] = j;
        for (uint32_t c = 0; c < L; c++) /* channels by direction: the pipeline's tile order */
            by_dir[l->dir_rank[c]] = c;
        /* a frame may start inside a column: those rays first, then whole columns */
        uint64_t lead = (L - (uint64_t)(g0 - sensim__floordiv(g0, L) * L)) % L, k = 0;
        lead = lead < m ? lead : m;
        uint64_t cols = (m - lead) / L;
        for (uint64_t i = 0; i < lead; i++)
            perm[k++] = i;
        for (uint64_t c0 = 0; c0 < cols; c0 += KC) {
            uint64_t nc = cols - c0 < KC ? cols - c0 : KC;
            for (uint32_t q = 0; q < L; q += TT)
                for (uint64_t c = c0; c < c0 + nc; c++)
                    for (uint32_t r = q; r < q + TT && r < L; r++)
                        perm[k++] = lead + c * L + slot_of[by_dir[r]];
        }
        for (uint64_t i = lead + cols * L; i < m; i++)
            perm[k++] = i;
        free(slot_of);
        free(by_dir);
    }
    /* the rays in trace order (perm), each shot's sub-rays right after it */
    sensim_ray *trace = rays;
    if (nsub1 || tiled) {
        if (!all && !(all = malloc(cap * sizeof *all))) {
            free(rays), free(perm), free(sub);
            sensim__scene_scan_end(scene);
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_bench_trace: tiles");
        }
        for (uint64_t k = 0; k < m; k++) {
            all[k * nsub] = rays[perm[k]];
            if (nsub1)
                memcpy(&all[k * nsub + 1], &sub[perm[k] * nsub1], nsub1 * sizeof *all);
        }
        trace = all;
    }
    uint64_t hits = 0;
    int32_t v = variant == SENSIM_BENCH_TILED16 || variant == SENSIM_BENCH_PATTERN16 ? SENSIM_BENCH_PACKET16 : variant;
    double t0 = now_s();
    sensim__trace_bench(scene, trace, m * nsub, v, l->ctx->thread_count, &hits);
    *out_s = now_s() - t0;
    if (variant == SENSIM_BENCH_PATTERN16)
        *out_s += t_pattern / (l->ctx->thread_count ? l->ctx->thread_count : 1);
    free(all);
    free(sub);
    free(perm);
    free(rays);
    sensim__scene_scan_end(scene);
    if (out_rays)
        *out_rays = m * nsub;
    if (out_hits)
        *out_hits = hits;
    return SENSIM_OK;
}

sensim_status sensim_bench_record_secondary(sensim_lidar *l, uint64_t capacity)
{
    SENSIM_CHECK_HANDLE(l, SENSIM_MAGIC_LIDAR, "lidar");
    if (capacity > SENSIM_BENCH_MAX_RAYS)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_bench_record_secondary: capacity %llu > %llu rays",
                            (unsigned long long)capacity, (unsigned long long)SENSIM_BENCH_MAX_RAYS);
    sensim_ray_log *log = NULL;
    if (capacity) {
        log = calloc(1, sizeof *log);
        if (log && !(log->rays = malloc(capacity * sizeof *log->rays)))
            free(log), log = NULL;
        if (!log)
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_bench_record_secondary: %llu rays",
                                (unsigned long long)capacity);
        log->cap = capacity;
        atomic_init(&log->n, 0);
    }
    sensim_status st = sensim__lidar_acquire(l);
    if (st != SENSIM_OK) {
        if (log)
            free(log->rays), free(log);
        return st;
    }
    sensim_ray_log *old = l->rp.log;
    l->rp.log = log;
    sensim__lidar_release(l);
    if (old)
        free(old->rays), free(old);
    return SENSIM_OK;
}
