/* A block's lanes: pattern -> rays -> trace -> returns -> the lane's
 * slots -> the ring, in parallel over lanes, or over the pieces of one lane
 * (see sensim__lidar_scan_block). */
#include "lidar_impl.h"
#include "motion.h"
#include "ring_impl.h"

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The moving sensor's pose at shot time @p t, from the lane's slots: the
 * shots of a lane that fire together (an Ouster column, a Hesai firing
 * group: a pandar128 column fires at 16 times) share one pose (with its
 * double S: sensim__lane_pose_fill). */
static inline const sensim_pose_slot *lane_pose(const sensim_scan_env *env, sensim_lane_scratch *w, int64_t t)
{
    sensim_pose_slot *e = sensim__pose_slot(w, t);
    if (e->lane != w->pose_lane || e->t != t)
        sensim__lane_pose_fill(env, w, t, e, true);
    return e;
}

/* Move a sensor-frame point into the requested output frame. */
static void output_frame(const sensim_lidar *l, const sensim_scan_env *env, const double S[16], sensim_point *pt)
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
static void direction_order(sensim_lane_scratch *w, uint32_t cap, uint32_t m)
{
    uint16_t *key = w->key, *tmp = (uint16_t *)&w->pos[cap]; /* pos holds 2 x cap */
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
static bool trace_lane(const sensim_lidar *l, const sensim_tiling *tl, const sensim_scene *scene,
                       sensim_lane_scratch *w, int64_t lane_g0, uint32_t m)
{
    const sensim_pattern *p = &l->pat;
    if (!tl->cols || m < 2) {
        if (m)
            sensim__trace_rays(scene, w->rays, m, w->hits);
        return false;
    }
    uint32_t kc = tl->cols, T = 16 / kc, L = p->channels;
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
        w->pos[tl->base[w->chan[j]] + c * T] = (int16_t)j;
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

/* A barrier of the team that shares a lane (scan_lane); nothing alone. */
static inline void team_barrier(int nthr)
{
    if (nthr > 1) {
#pragma omp barrier
    }
}

/* What sensim__lidar_scan_block() hands each lane. */
typedef struct chunk_job {
    sensim_lidar *l;
    const sensim_scan_env *env;
    sensim_ring *ring;
    const sensim_tiling *tl; /* the block's lanes (sensim__lidar_tiling) */
    int64_t frame_begin, g0, g1, LS, base;
    int nlanes;
    int inner;      /* threads a lane's pieces run on: > 1 only when the block is one lane */
    bool cancelled; /* (inner > 1) the host cancelled before the block: its lane is published empty */
    bool moving, beam_origin, sub0_nominal;
    float R0[9], org0[3];
    int next; /* the first lane without ring space */
    pthread_mutex_t publish; /* a finished lane's publication: ready flags, next, ring reservations */
} chunk_job;

/* Lane @p lane of the block in the scratch @p w: generate, trace, return
 * model into the lane's slots, then publish (see sensim__lidar_scan_block).
 * Called by one thread (@p nthr 1, @p own = w), or by each thread @p tid
 * of a team of @p nthr (a block of one MEMS lane; @p own: the thread's
 * scratch, for its pose slots and sub-rays), which share the lane in
 * pieces of SENSIM_PIECE shots (piece k to thread k % nthr): the pattern,
 * the rays, the tracing (pieces of one sorted order: the same 16-ray
 * packets), the return model and the points; thread 0 sorts, then puts
 * the pieces' points together and publishes. Every shot's work is the
 * same whoever does it: the bits do not depend on the team. */
static void scan_lane(chunk_job *cj, sensim_lane_scratch *w, sensim_lane_scratch *own, int lane, int tid, int nthr)
{
    sensim_lidar *l = cj->l;
    const sensim_scan_env *env = cj->env;
    const sensim_pattern *p = &l->pat;
    const sensim_return_params *rp = &l->rp;
    const sensim_scene *scene = env->scene;
    const int64_t LS = cj->LS, base = cj->base, g0 = cj->g0, g1 = cj->g1, frame_begin = cj->frame_begin;
    const bool moving = cj->moving, beam_origin = cj->beam_origin, sub0_nominal = cj->sub0_nominal;
    const bool with_S = l->points_frame != SENSIM_POINTS_SENSOR;
    const float *R0 = cj->R0, *org0 = cj->org0;
    /* the shots a thread takes at a time: a team's pieces; alone, the
     * whole lane (or sub-ray group) at once (above any lane: 2^16) */
    const uint32_t P = SENSIM_PIECE, Pw = nthr > 1 ? P : 1u << 16, step = (uint32_t)nthr * Pw;
    int64_t lg0 = (base + lane) * LS, lg1 = lg0 + LS;
    lg0 = lg0 < g0 ? g0 : lg0, lg1 = lg1 > g1 ? g1 : lg1;
    const int64_t a = lg0 - g0; /* the lane's first shot within the block */
    uint32_t cnt = (uint32_t)(lg1 - lg0), m = 0;
    int64_t *when = w->when, *live = w->live;
    uint16_t *chan = w->chan;
    uint8_t *ok = w->ok;
    float *dirs = w->dirs;
    sensim_ray *rays = w->rays;
    sensim_hit *hits = w->hits;
    /* the pattern's shots: alone, compacted in place (towards the front, in
     * order); in a team, from their own arrays (pieces move concurrently) */
    int64_t *rt = nthr > 1 ? w->raw_when : when;
    uint16_t *rc = nthr > 1 ? w->raw_chan : chan;
    float *rd = nthr > 1 ? w->raw_dirs : dirs;
    if (nthr > 1 ? cj->cancelled : sensim__context_cancelled(l->ctx))
        cnt = 0; /* published empty */
    if (moving) /* the slots of earlier lanes (other scans, other motions) go stale */
        own->pose_lane++;
    /* 1. the pattern and the shots kept (drop-out), piece by piece */
    for (uint32_t i0 = (uint32_t)tid * Pw; i0 < cnt; i0 += step) {
        const uint32_t n = cnt - i0 < Pw ? cnt - i0 : Pw;
        sensim__lidar_pattern_batch(l, lg0 + i0, n, &rt[i0], &rc[i0], &rd[3 * i0], &ok[i0]);
        uint32_t k = 0;
        for (uint32_t i = i0; i < i0 + n; i++)
            k += ok[i] = ok[i] && sensim__returns_keep_shot(rp, (uint64_t)(lg0 + i));
        w->piece_live[i0 / Pw] = k;
    }
    team_barrier(nthr);
    /* 2. the live shots at the front, their rays built */
    for (uint32_t i0 = (uint32_t)tid * Pw, done = 0, before = 0; i0 < cnt; i0 += step) {
        const uint32_t n = cnt - i0 < Pw ? cnt - i0 : Pw;
        for (; done < i0 / Pw; done++) /* the live shots of the pieces before */
            before += w->piece_live[done];
        m = before;
        for (uint32_t i = i0; i < i0 + n; i++) {
            if (moving && (i - i0) % 64 == 0) /* the poses of the next 64 shots: from spans, else exact
                                               * four at a time (more would take each other's slots: 256) */
                sensim__lane_prefill(env, own, &rt[i], &ok[i], i0 + n - i < 64 ? i0 + n - i : 64, with_S);
            if (!ok[i])
                continue;
            const int64_t g = lg0 + i;
            float td[3];
            const float *R = R0, *org = org0;
            if (moving) {
                const sensim_pose_slot *ps = lane_pose(env, own, rt[i]);
                R = ps->R, org = ps->org;
            }
            if (m != i || nthr > 1) {
                memcpy(&dirs[3 * m], &rd[3 * i], 3 * sizeof(float));
                when[m] = rt[i], chan[m] = rc[i];
            }
            if (sub0_nominal) /* what sensim__returns_subray_dir() gives for sub-ray 0 on the axis */
                memcpy(td, &dirs[3 * m], sizeof td);
            else
                sensim__returns_subray_dir(rp, (uint64_t)g, 0, &dirs[3 * m], td);
            sensim_ray *ray = &rays[m];
            memcpy(ray->org, org, 3 * sizeof(float));
            if (beam_origin) { /* the beam leaves the optics off the axis */
                float *bo = &w->origin[3 * m];
                sensim__pattern_origin(p, g + l->shot_offset, when[m], bo);
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
    }
    m = 0; /* every thread: all the live shots */
    for (uint32_t k = 0; k < (cnt + Pw - 1) / Pw; k++)
        m += w->piece_live[k];
    /* 3. traced: a MEMS lane sorted by direction by thread 0, its 16-ray
     * packets shared out in pieces; other lanes alone (trace_lane) */
    bool tiled;
    if (l->sort_dirs) {
        tiled = m >= 2 * 16;
        team_barrier(nthr);
        if (tid == 0 && tiled) {
            direction_order(w, l->lane_cap, m);
            for (uint32_t q = 0; nthr > 1 && q < m; q++) /* key: shot -> its place in the order */
                w->key[w->pos[q]] = (uint16_t)q;
        }
        team_barrier(nthr);
        /* a team's hits in the order traced (a thread's pieces contiguous:
         * scattered into shot order, the threads' writes would share cache
         * lines), then each thread gathers those of its pieces */
        sensim_hit *th = tiled && nthr > 1 ? w->sorted_hits : hits;
        for (uint32_t q = (uint32_t)tid * Pw; q < m; q += step) {
            const uint32_t n = m - q < Pw ? m - q : Pw;
            if (tiled && nthr > 1)
                sensim__trace_rays_order_into(scene, rays, &w->pos[q], n, &th[q]);
            else if (tiled)
                sensim__trace_rays_order(scene, rays, &w->pos[q], n, hits);
            else
                sensim__trace_rays(scene, &rays[q], n, &hits[q]);
        }
        team_barrier(nthr);
        for (uint32_t q = (uint32_t)tid * P; tiled && nthr > 1 && q < m; q += step) /* (Pw = P) */
            for (uint32_t j = q; j < q + P && j < m; j++)
                hits[j] = th[w->key[j]];
    } else {
        tiled = trace_lane(l, cj->tl, scene, w, lg0, m);
    }
    /* 4. the return model into the lane's slots: alone in order; in a team
     * piece q's points at slot[2 q] (two a shot at most), moved together
     * by thread 0 after */
    uint32_t rays_traced = m * rp->nsub; /* each live shot's beam; bounces are added as they are traced */
    uint32_t out = 0;
    sensim_point *slot = &l->slots[2 * a];
    /* Sub-rays beside sub-ray 0 (beam divergence), traced in 16-ray
     * packets across shots: the whole lane's in tile order (the shots
     * neighbouring in direction) when they fit, else groups of shots in
     * firing order; a MEMS lane's (sorted, 8192 shots) piece by piece in
     * firing order, into the scratch of the thread working the piece. */
    const uint32_t nsub1 = rp->nsub - 1;
    const bool by_piece = l->sort_dirs;
    const bool whole = !by_piece && tiled && m * nsub1 <= l->sub_cap;
    const uint32_t group = !nsub1 || whole || by_piece ? (m ? m : 1) : l->sub_cap / nsub1;
    sensim_ray *const sr = own->sub_rays;
    sensim_hit *const sh = own->sub_hits;
    for (uint32_t j0 = 0; j0 < m; j0 += group) {
        const uint32_t j1 = m - j0 < group ? m : j0 + group;
        if (nsub1 && !by_piece) {
            for (uint32_t q = j0; q < j1; q++) {
                const uint32_t j = whole ? (uint32_t)w->pos[q] : q;
                const float *R = moving ? lane_pose(env, own, when[j])->R : R0;
                w->sub_at[j] = (uint16_t)((q - j0) * nsub1);
                sensim__returns_subrays(rp, R, &dirs[3 * j], &rays[j], (uint64_t)(lg0 + live[j]), &sr[w->sub_at[j]]);
            }
            sensim__trace_rays(scene, sr, (j1 - j0) * nsub1, sh);
        }
        const uint32_t P4 = by_piece ? P : Pw, step4 = (uint32_t)nthr * P4; /* (a piece's sub-rays: own scratch) */
        for (uint32_t q = j0 + (uint32_t)tid * P4; q < j1; q += step4) {
            const uint32_t n = j1 - q < P4 ? j1 - q : P4;
            if (nsub1 && by_piece) { /* P x 36 sub-rays at most: within sub_cap (8192) */
                for (uint32_t j = q; j < q + n; j++) {
                    const float *R = moving ? lane_pose(env, own, when[j])->R : R0;
                    w->sub_at[j] = (uint16_t)((j - q) * nsub1);
                    sensim__returns_subrays(rp, R, &dirs[3 * j], &rays[j], (uint64_t)(lg0 + live[j]),
                                            &sr[w->sub_at[j]]);
                }
                sensim__trace_rays(scene, sr, n * nsub1, sh);
            }
            sensim__returns_plain(rp, scene, n, &rays[q], &hits[q], (uint64_t)lg0, &live[q], &w->plain[q]);
            /* the mirror rays and transmissions off the first hits traced together, in packets
             * (sensim__returns_onward): a spinning head's whole lane in tile order (neighbours in
             * direction), a Risley head's next 256 shots in firing order (its neighbours); none in a
             * scene without mirror-like or transparent surfaces */
            const bool onward = own->onward_rays && sensim__returns_scene_passes_light(scene);
            const bool by_tile =
                onward && tiled && p->kind == SENSIM_PATTERN_MECHANICAL && n == m && (!nsub1 || whole);
            const bool by_fire = onward && p->kind == SENSIM_PATTERN_RISLEY;
            if (by_tile) {
                const uint32_t nr = sensim__returns_onward(rp, scene, m, rays, hits, w->plain, w->pos, sr, sh,
                                                           w->sub_at, w->onward_at, own->onward_rays, l->lane_cap);
                sensim__trace_rays(scene, own->onward_rays, nr, own->onward_hits);
            }
            sensim_point *dst = nthr > 1 ? &slot[2 * q] : &slot[out];
            uint32_t o = 0, traced = 0;
            for (uint32_t j = q; j < q + n; j++) {
                if (moving && with_S && (j - q) % 64 == 0) /* the poses again (slots taken since), as in 2. */
                    sensim__lane_prefill(env, own, &when[j], NULL, q + n - j < 64 ? q + n - j : 64, true);
                if (by_fire && (j - q) % SENSIM_ONWARD_SHOTS == 0) {
                    const uint32_t c = q + n - j < SENSIM_ONWARD_SHOTS ? q + n - j : SENSIM_ONWARD_SHOTS;
                    const uint32_t nr = sensim__returns_onward(rp, scene, c, &rays[j], &hits[j], &w->plain[j],
                                                               NULL, sr, sh, &w->sub_at[j], &w->onward_at[j],
                                                               own->onward_rays, l->lane_cap);
                    sensim__trace_rays(scene, own->onward_rays, nr, own->onward_hits);
                }
                const uint8_t kind = w->plain[j].kind;
                if (kind == SENSIM_PLAIN_NONE)
                    continue;
                const double *S = NULL;
                if (with_S)
                    S = moving ? lane_pose(env, own, when[j])->S : env->S0;
                sensim_point *pt = &dst[o];
                sensim_shot_meta meta = {{0.0f, 0.0f, 0.0f}, (uint32_t)(when[j] - frame_begin), chan[j]};
                if (beam_origin)
                    memcpy(meta.origin, &w->origin[3 * j], sizeof meta.origin);
                const sensim_ray *srays = nsub1 ? &sr[w->sub_at[j]] : NULL;
                const sensim_hit *shits = nsub1 ? &sh[w->sub_at[j]] : NULL;
                uint32_t k = 1;
                if (kind == SENSIM_PLAIN_POINT)
                    sensim__returns_plain_point(&w->plain[j], &hits[j], &dirs[3 * j], &meta, pt);
                else
                    k = sensim__returns_shot(rp, scene, &dirs[3 * j], &rays[j], &hits[j], srays, shits,
                                             (by_tile || by_fire) && w->onward_at[j] != SENSIM_ONWARD_NONE
                                                 ? &own->onward_hits[w->onward_at[j]]
                                                 : NULL,
                                             (uint64_t)(lg0 + live[j]), &meta, pt, &traced);
                if (with_S)
                    for (uint32_t r = 0; r < k; r++)
                        output_frame(l, env, S, &pt[r]);
                o += k;
            }
            if (nthr > 1) {
                w->piece_out[q / P] = o, w->piece_rays[q / P] = traced;
            } else {
                out += o, rays_traced += traced;
            }
        }
    }
    team_barrier(nthr);
    if (tid != 0)
        return;
    for (uint32_t q = 0; nthr > 1 && q < m; q += P) { /* the pieces' points together, in order */
        memmove(&slot[out], &slot[2 * q], w->piece_out[q / P] * sizeof *slot);
        out += w->piece_out[q / P], rays_traced += w->piece_rays[q / P];
    }
    l->lane_out[lane].points = out;
    l->lane_out[lane].rays = rays_traced;
    int lo, hi;
    pthread_mutex_lock(&cj->publish);
    l->lane_out[lane].ready = true;
    lo = cj->next;
    hi = reserve_ready(l, cj->ring, cj->nlanes, &cj->next);
    pthread_mutex_unlock(&cj->publish);
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

const sensim_tiling *sensim__lidar_tiling(const sensim_lidar *l, uint64_t shots, uint32_t nthreads)
{
    const sensim_tiling *wide = &l->tiling[1];
    /* a lane's sub-rays are traced in tile order only when they fit the sub-ray scratch whole (else in
     * firing order: pandar128 with 7 sub-rays took 1.27 x as long in wide lanes) */
    if (wide->lane_shots > l->tiling[0].lane_shots &&
        wide->lane_shots * (l->rp.nsub - 1) <= l->sub_cap &&
        shots / wide->lane_shots >= (uint64_t)SENSIM_WIDE_LANES_A_THREAD * (nthreads ? nthreads : 1))
        return wide;
    return &l->tiling[0];
}

/* A pool task: lane @p lane alone, in the scratch of the thread @p who. */
static void lane_task(void *arg, uint32_t lane, uint32_t who)
{
    chunk_job *cj = arg;
    sensim_lane_scratch *w = &cj->l->scr[who];
    scan_lane(cj, w, w, (int)lane, 0, 1);
}

/* Generate, trace and write shots [g0, g1) of one frame (g1 - g0 <= one
 * block). Lanes (aligned to multiples of the tiling's lane, so a
 * mechanical lane holds whole columns; wide ones in a long block) run in
 * parallel on the context's pool (its workers block between blocks: they
 * never spin against the host's threads), handed out dynamically, each into
 * its own part of the slots. A finished lane is published in lane order:
 * under a short critical section the thread that finishes a lane reserves
 * ring space for every ready lane from the first unreserved one on, then
 * copies those lanes into the ring outside it. So the output is in shot
 * order whatever the thread count and schedule, the copying runs beside
 * other lanes' work, and no thread waits for a slower lane. A block of
 * one MEMS lane (a host stepping at 1 kHz: 788 shots a call, inside one
 * 8192-shot lane) is worked by all the threads together instead
 * (scan_lane's team). A cancel skips the remaining lanes' work (the
 * caller then aborts the transaction). Returns the rays traced. */
uint64_t sensim__lidar_scan_block(sensim_lidar *l, const sensim_scan_env *env, int64_t frame_begin, int64_t g0,
                                  int64_t g1, sensim_ring *ring)
{
    const sensim_pattern *p = &l->pat;
    const sensim_return_params *rp = &l->rp;
    chunk_job cj = {.l = l, .env = env, .ring = ring, .frame_begin = frame_begin, .g0 = g0, .g1 = g1};
    pthread_mutex_init(&cj.publish, NULL);
    cj.tl = sensim__lidar_tiling(l, (uint64_t)(g1 - g0), env->nthreads);
    cj.LS = (int64_t)cj.tl->lane_shots, cj.base = sensim__floordiv(g0, cj.LS);
    const int nlanes = (int)(sensim__floordiv(g1 - 1, cj.LS) - cj.base + 1);
    cj.nlanes = nlanes;
    cj.moving = env->path->moving;
    cj.beam_origin = p->kind == SENSIM_PATTERN_MECHANICAL && p->beam_origin_m > 0.0;
    cj.sub0_nominal = rp->sub_h[0] == 0 && rp->sub_v[0] == 0 && !(rp->d.angular_jitter_rad > 0);
    sensim__pose_floats(env->S0, cj.R0, cj.org0);
    for (int lane = 0; lane < nlanes; lane++)
        l->lane_out[lane].ready = false;
    /* a block of one MEMS lane: one team on it (its own region: a region
     * nested in the lanes' one would start new threads at every call) */
    cj.inner = nlanes == 1 && l->sort_dirs ? (int)env->nthreads : 1;
    if (cj.inner > 1) {
        cj.cancelled = sensim__context_cancelled(l->ctx);
#pragma omp parallel num_threads(cj.inner)
        scan_lane(&cj, &l->scr[0], &l->scr[omp_get_thread_num()], 0, omp_get_thread_num(), omp_get_num_threads());
    } else if (nlanes == 1) {
        scan_lane(&cj, &l->scr[0], &l->scr[0], 0, 0, 1);
    } else { /* the lanes on the context's pool (workers that block between blocks), in any order */
        sensim__pool_run(l->ctx->pool, (uint32_t)nlanes, env->nthreads, lane_task, &cj);
    }
    pthread_mutex_destroy(&cj.publish);
    uint64_t rays = 0;
    for (int lane = 0; lane < nlanes; lane++)
        rays += l->lane_out[lane].rays;
    return rays;
}

/* One thread's lane scratch: its arrays carved from @p mem (NULL: only
 * the size), each 64-byte aligned; returns the bytes it takes. */
static size_t scratch_carve(sensim_lane_scratch *w, unsigned char *mem, uint32_t cap, uint32_t sub_cap, bool team,
                            uint32_t onward)
{
    size_t off = 0;
#define CARVE(field, count)                                                                        \
    do {                                                                                           \
        if (w)                                                                                     \
            w->field = (void *)(mem + off);                                                        \
        off += ((size_t)(count) * sizeof *w->field + 63) / 64 * 64;                               \
    } while (0)
    CARVE(when, cap);
    CARVE(live, cap);
    CARVE(plain, cap);
    CARVE(rays, cap);
    CARVE(hits, cap);
    CARVE(dirs, 3 * cap);
    CARVE(origin, 3 * cap);
    CARVE(chan, cap);
    CARVE(sub_at, cap);
    CARVE(pos, 2 * cap);
    CARVE(key, cap);
    CARVE(ok, cap);
    const uint32_t tc = team ? cap : 0; /* a team's arrays: MEMS lanes only */
    CARVE(raw_when, tc);
    CARVE(raw_chan, tc);
    CARVE(raw_dirs, 3 * tc);
    CARVE(sorted_hits, tc);
    CARVE(sub_rays, sub_cap);
    CARVE(sub_hits, sub_cap);
    CARVE(onward_rays, onward);
    CARVE(onward_hits, onward);
    CARVE(onward_at, onward ? cap : 0);
#undef CARVE
    if (w && !sub_cap)
        w->sub_rays = NULL, w->sub_hits = NULL;
    if (w && !onward)
        w->onward_rays = NULL, w->onward_hits = NULL, w->onward_at = NULL;
    return off;
}

sensim_status sensim__lidar_scratch(sensim_lidar *l, uint32_t nthreads)
{
    if (l->scr_threads >= nthreads) /* the first scan on this many threads allocates; later ones do not */
        return SENSIM_OK;
    /* mirror rays in packets (room for one a shot: most lanes; the rest are traced one at a time) pay
     * for a Risley head's in firing order (mid40 0.968 of the time) and a spinning head's in tile order
     * (pandar128 0.968, pandar64 0.972, vlp16 with its 7 sub-rays 0.930; in firing order pandar64 took
     * 1.02); not for a MEMS raster's (mems_m1 1.037 in firing order, 0.99-1.015 sorted) */
    const bool onward_ok = l->pat.kind == SENSIM_PATTERN_MECHANICAL || l->pat.kind == SENSIM_PATTERN_RISLEY;
    const uint32_t onward = onward_ok ? l->lane_cap : 0;
    /* 1.4 MB at most (MEMS) */
    const size_t per = scratch_carve(NULL, NULL, l->lane_cap, l->sub_cap, l->sort_dirs, onward);
    sensim_lane_scratch *ns = NULL;
    if (per <= (SIZE_MAX / 2 - sizeof *ns) / nthreads)
        ns = aligned_alloc(64, (nthreads * (sizeof *ns + per) + 127) / 64 * 64); /* + the carve's alignment */
    if (!ns)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_lidar_scan: lane scratch for %u threads (%zu bytes each)",
                            nthreads, per);
    unsigned char *at = (unsigned char *)(ns + nthreads);
    at += (64 - (uintptr_t)at % 64) % 64;
    for (uint32_t k = 0; k < nthreads; k++) {
        scratch_carve(&ns[k], at + (size_t)k * per, l->lane_cap, l->sub_cap, l->sort_dirs, onward);
        ns[k].pose_lane = 0; /* no slot filled yet */
        for (uint32_t j = 0; j < SENSIM_POSE_SLOTS; j++)
            ns[k].poses[j].lane = 0;
        for (uint32_t j = 0; j < SENSIM_POSE_SPANS; j++)
            ns[k].spans[j].gen = 0;
        ns[k].span_last = NULL;
    }
    free(l->scr);
    l->scr = ns;
    l->scr_threads = nthreads;
    return SENSIM_OK;
}
