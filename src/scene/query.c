/* Public ray queries (sensim/query.h): check every ray, then trace blocks of
 * rays on the context's threads. Each ray's answer depends on that ray only,
 * so the output is the same for any thread count and any split. */
#include "trace.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#define QUERY_BLOCK 256          /* rays converted and traced together (on the stack) */
#define QUERY_PARALLEL_MIN 4096  /* smaller batches stay on the calling thread */

static inline const float *at3(const float *base, uint32_t stride, uint64_t i)
{
    return (const float *)((const char *)base + (size_t)i * (stride ? stride : 3 * sizeof(float)));
}

static inline float at1(const float *base, uint32_t stride, uint64_t i, float dflt)
{
    return base ? *(const float *)((const char *)base + (size_t)i * (stride ? stride : sizeof(float))) : dflt;
}

static inline int64_t at_t(const sensim_ray_batch *b, uint64_t i)
{
    return b->time_ns ? *(const int64_t *)((const char *)b->time_ns + (size_t)i * (b->time_stride ? b->time_stride
                                                                                                 : sizeof(int64_t)))
                      : b->time_ns_all;
}

static sensim_status check_batch(const char *fn, const sensim_ray_batch *b)
{
    for (int i = 0; i < 4; i++)
        if (b->reserved[i])
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: reserved[%d] is not zero", fn, i);
    if (b->reserved_u32)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: reserved_u32 is not zero", fn);
    if (b->count && (!b->origins || !b->directions))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, b->origins ? "directions" : "origins");
    if (b->count > (uint64_t)SIZE_MAX / sizeof(sensim_ray_hit))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: count %llu is too large", fn, (unsigned long long)b->count);
    for (uint64_t i = 0; i < b->count; i++) {
        const float *o = at3(b->origins, b->origin_stride, i), *d = at3(b->directions, b->direction_stride, i);
        for (int k = 0; k < 3; k++) {
            if (!isfinite(o[k]) || fabsf(o[k]) > SENSIM_MAX_COORD_M)
                return sensim__fail(isfinite(o[k]) ? SENSIM_ERR_OUT_OF_RANGE : SENSIM_ERR_NOT_FINITE,
                                    "%s: ray %llu: origin[%d] = %g (finite, within %g m)", fn, (unsigned long long)i,
                                    k, (double)o[k], SENSIM_MAX_COORD_M);
            if (!isfinite(d[k]))
                return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: ray %llu: direction[%d] = %g", fn,
                                    (unsigned long long)i, k, (double)d[k]);
        }
        double l2 = (double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2];
        if (!(l2 > 1e-30))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: ray %llu: direction has zero length", fn,
                                (unsigned long long)i);
        float tn = at1(b->tnear, b->tnear_stride, i, 0.0f), tf = at1(b->tfar, b->tfar_stride, i, INFINITY);
        if (isnan(tn) || isinf(tn) || isnan(tf))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: ray %llu: %s = %g", fn, (unsigned long long)i,
                                isnan(tf) ? "tfar" : "tnear", isnan(tf) ? (double)tf : (double)tn);
        if (tn < 0 || tf < tn)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: ray %llu: tnear %g, tfar %g (need 0 <= tnear <= tfar)",
                                fn, (unsigned long long)i, (double)tn, (double)tf);
    }
    return SENSIM_OK;
}

static void to_rays(const sensim_scene *scene, const sensim_ray_batch *b, uint64_t i0, uint32_t n, sensim_ray *r)
{
    for (uint32_t j = 0; j < n; j++) {
        uint64_t i = i0 + j;
        const float *o = at3(b->origins, b->origin_stride, i), *d = at3(b->directions, b->direction_stride, i);
        double l = sqrt((double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2]);
        for (int k = 0; k < 3; k++) {
            r[j].org[k] = o[k];
            r[j].dir[k] = (float)(d[k] / l);
        }
        r[j].tnear = at1(b->tnear, b->tnear_stride, i, 0.0f);
        r[j].tfar = at1(b->tfar, b->tfar_stride, i, INFINITY);
        r[j].time = sensim__scene_ray_time(scene, at_t(b, i));
    }
}

static sensim_status run(const char *fn, const sensim_scene *scene, const sensim_ray_batch *b, void *out,
                         int occluded)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!b || (!out && b->count))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, b ? (occluded ? "out_occluded" : "hits")
                                                                                 : "batch");
    sensim_status st = check_batch(fn, b);
    if (st != SENSIM_OK)
        return st;
    if ((st = sensim__scene_scan_begin(scene)) != SENSIM_OK)
        return st;
    uint64_t nblocks = (b->count + QUERY_BLOCK - 1) / QUERY_BLOCK;
    int threads = b->count >= QUERY_PARALLEL_MIN ? (int)scene->ctx->thread_count : 1;
    if ((uint64_t)threads > nblocks)
        threads = nblocks ? (int)nblocks : 1;
#pragma omp parallel for schedule(dynamic, 4) num_threads(threads) if (threads > 1)
    for (int64_t k = 0; k < (int64_t)nblocks; k++) {
        sensim_ray rays[QUERY_BLOCK];
        uint64_t i0 = (uint64_t)k * QUERY_BLOCK;
        uint32_t n = b->count - i0 < QUERY_BLOCK ? (uint32_t)(b->count - i0) : QUERY_BLOCK;
        to_rays(scene, b, i0, n, rays);
        if (occluded)
            sensim__trace_occluded(scene, rays, n, (uint8_t *)out + i0);
        else
            sensim__trace_query(scene, rays, n, (sensim_ray_hit *)out + i0);
    }
    sensim__scene_scan_end(scene);
    return SENSIM_OK;
}

sensim_status sensim_scene_intersect(const sensim_scene *scene, const sensim_ray_batch *batch, sensim_ray_hit *hits)
{
    return run("sensim_scene_intersect", scene, batch, hits, 0);
}

sensim_status sensim_scene_occluded(const sensim_scene *scene, const sensim_ray_batch *batch, uint8_t *out_occluded)
{
    return run("sensim_scene_occluded", scene, batch, out_occluded, 1);
}
