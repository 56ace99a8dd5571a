/* Return model: intensity, drop-out, noise, ghosts, divergence, multi-return,
 * weather. Formulas: see sensim_return_desc in <sensim/lidar.h>. */
#include "returns.h"

#include <math.h>
#include <string.h>

/* Candidate returns held per shot; when full they are merged in place
 * (energy kept), so no sub-ray, bounce or layer is ever dropped. */
#define MAX_CAND 64
#define MAX_DEPTH 6

/* SplitMix64 finaliser: a strong 64-bit mixer, cheap enough per shot. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t sensim__rng_key(uint64_t seed, uint32_t lidar_id, uint32_t purpose)
{
    uint64_t h = mix64(seed ^ UINT64_C(0x9e3779b97f4a7c15));
    return mix64(h ^ ((uint64_t)lidar_id << 32 | purpose));
}

static inline uint64_t rng_bits(uint64_t key, uint64_t shot, uint32_t subray)
{
    return mix64(mix64(key ^ shot) ^ subray);
}

static inline double unit53(uint64_t h)
{
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

double sensim__rng_uniform(uint64_t seed, uint32_t lidar_id, uint64_t shot, uint32_t subray,
                           uint32_t purpose)
{
    return unit53(rng_bits(sensim__rng_key(seed, lidar_id, purpose), shot, subray));
}

/* The same number as sensim__rng_uniform(rp->seed, rp->lidar_id, ...): the
 * hash's first two rounds, which depend on the seed, the lidar and the
 * purpose alone, are kept in rp->rng_key. */
static double uniform(const sensim_return_params *rp, uint64_t shot, uint32_t sub, uint32_t purpose)
{
    return unit53(rng_bits(rp->rng_key[purpose], shot, sub));
}

#include "ziggurat_tables.h"

/* Standard normal by the Ziggurat method (Marsaglia & Tsang 2000; exact, not
 * an approximation): a 64-bit draw picks one of 256 layers of equal area
 * (8 bits), a sign (1 bit) and the abscissa (53 bits); 99 % of draws end at
 * the first comparison. A wedge draws one more number and may start over;
 * the tail beyond r (Marsaglia's exponential method) repeats within the
 * tail. Hash sub-streams of sub-stream @p sub: sub * 4096 + 2a, + 2a + 1 for
 * attempt a < 1023, + 2048 + 2b, + 2b + 1 for tail attempt b < 1023; after
 * 1023 attempts (never: each is rejected with probability < 0.01, a tail
 * attempt with < 0.07) Box–Muller on + 2046, + 2047 ends it. */
/* The first attempt of sensim__returns_normal() (99 % of draws end there):
 * true and the draw in *out, or false (then call sensim__returns_normal(),
 * which repeats this attempt and goes on). */
static inline bool normal_first(uint64_t key, uint64_t shot, uint32_t sub, double *out)
{
    uint64_t h = rng_bits(key, shot, sub * 4096u);
    uint32_t i = (uint32_t)(h & 255u);
    double x = unit53(h) * ZIG_X[i];
    *out = (h & 256u ? -1.0 : 1.0) * x;
    return x < ZIG_X[i + 1];
}

double sensim__returns_normal(const sensim_return_params *rp, uint64_t shot, uint32_t sub, uint32_t purpose)
{
    const uint64_t key = rp->rng_key[purpose];
    const uint32_t s0 = sub * 4096u;
    for (uint32_t a = 0; a < 1023; a++) {
        uint64_t h = rng_bits(key, shot, s0 + 2 * a);
        uint32_t i = (uint32_t)(h & 255u);
        double x = unit53(h) * ZIG_X[i];
        double sgn = h & 256u ? -1.0 : 1.0;
        if (x < ZIG_X[i + 1])
            return sgn * x;
        if (i == 0) { /* the tail beyond r: r + E1 / r, kept with probability exp(-E1² / (2 r²)) */
            for (uint32_t b = 0; b < 1023; b++) {
                double e1 = -log1p(-unit53(rng_bits(key, shot, s0 + 2048 + 2 * b))) / ZIG_X[1];
                double e2 = -log1p(-unit53(rng_bits(key, shot, s0 + 2048 + 2 * b + 1)));
                if (2.0 * e2 > e1 * e1)
                    return sgn * (ZIG_X[1] + e1);
            }
            break;
        }
        double u2 = unit53(rng_bits(key, shot, s0 + 2 * a + 1));
        if (ZIG_F[i] + u2 * (ZIG_F[i + 1] - ZIG_F[i]) < exp(-0.5 * x * x))
            return sgn * x;
    }
    double u1 = uniform(rp, shot, s0 + 2046u, purpose), u2 = uniform(rp, shot, s0 + 2047u, purpose);
    return sqrt(-2.0 * log1p(-u1)) * cos(2.0 * SENSIM_PI * u2);
}

static inline double gaussian(const sensim_return_params *rp, uint64_t shot, uint32_t sub, uint32_t purpose)
{
    return sensim__returns_normal(rp, shot, sub, purpose);
}

/* ---------------- per shot ---------------- */

void sensim__returns_seed(sensim_return_params *rp, uint64_t seed, uint32_t lidar_id)
{
    rp->seed = seed, rp->lidar_id = lidar_id;
    for (uint32_t k = 0; k < sizeof rp->rng_key / sizeof rp->rng_key[0]; k++)
        rp->rng_key[k] = sensim__rng_key(seed, lidar_id, k);
}

bool sensim__returns_keep_shot(const sensim_return_params *rp, uint64_t shot)
{
    if (rp->d.dropoff_model != SENSIM_DROPOFF_CARLA || rp->d.dropoff_general_rate <= 0.0f)
        return true;
    return uniform(rp, shot, 0, SENSIM_RNG_DROP_SHOT) >= rp->d.dropoff_general_rate;
}

/* A beam's frame: u horizontal, perpendicular to the beam; w completes a
 * right-handed frame (up-ish). */
typedef struct beam_basis {
    double dx, dy, dz, ux, uy, uz, wx, wy, wz;
} beam_basis;

static beam_basis basis_of(const float nominal[3])
{
    beam_basis b;
    b.dx = nominal[0], b.dy = nominal[1], b.dz = nominal[2];
    double ux = -b.dy, uy = b.dx, uz = 0, un = sqrt(ux * ux + uy * uy);
    if (un < 1e-9) {
        ux = 0, uy = 1, un = 1;
    }
    ux /= un, uy /= un;
    b.ux = ux, b.uy = uy, b.uz = uz;
    b.wx = b.dy * uz - b.dz * uy, b.wy = b.dz * ux - b.dx * uz, b.wz = b.dx * uy - b.dy * ux;
    return b;
}

/* Sub-ray k's direction, its angles (h, v) from the beam axis including
 * the shot's jitter (jittered: tan computed, else the tables'). */
static void subray_apply(const sensim_return_params *rp, const beam_basis *b, uint32_t k, double h, double v,
                         bool jittered, const float nominal[3], float out[3])
{
    if (h == 0 && v == 0) {
        memcpy(out, nominal, 3 * sizeof(float));
        return;
    }
    double th, tv;
    if (jittered)
        th = tan(h), tv = tan(v);
    else
        th = rp->tan_h[k], tv = rp->tan_v[k]; /* the same tan of the same angle, computed once */
    double x = b->dx + th * b->ux + tv * b->wx, y = b->dy + th * b->uy + tv * b->wy, z = b->dz + th * b->uz + tv * b->wz;
    double n = sqrt(x * x + y * y + z * z);
    out[0] = (float)(x / n);
    out[1] = (float)(y / n);
    out[2] = (float)(z / n);
}

/* The shot's jitter of the beam axis (the same for all its sub-rays), rad. */
static void jitter_of(const sensim_return_params *rp, uint64_t shot, double *gh, double *gv)
{
    *gh = rp->d.angular_jitter_rad * gaussian(rp, shot, 0, SENSIM_RNG_JITTER);
    *gv = rp->d.angular_jitter_rad * gaussian(rp, shot, 1, SENSIM_RNG_JITTER);
}

void sensim__returns_subray_dir(const sensim_return_params *rp, uint64_t shot, uint32_t k, const float nominal[3],
                                float out[3])
{
    double h = rp->sub_h[k], v = rp->sub_v[k];
    const bool jittered = rp->d.angular_jitter_rad > 0;
    if (jittered) {
        double gh, gv;
        jitter_of(rp, shot, &gh, &gv);
        h += gh, v += gv;
    }
    beam_basis b = basis_of(nominal);
    subray_apply(rp, &b, k, h, v, jittered, nominal, out);
}

typedef struct cand {
    double range, energy;
    double half;       /* half the range extent this hit spreads the echo over, m */
    uint32_t object_id;
    uint8_t tag, flags;
} cand;

typedef struct shot_state {
    const sensim_return_params *rp;
    const sensim_scene *scene;
    uint64_t shot;
    const sensim_shot_meta *meta;
    uint32_t traced; /* rays traced here (bounces and transmissions) */
    bool ghost_reach;  /* a mirror ray off sub-ray 0's hit may stop where it can no longer matter (ghost_reach()) */
    cand c[MAX_CAND];
    uint32_t n;
} shot_state;

static void merge(shot_state *s, double res);

static void add_cand(shot_state *s, double range, double e, double half, uint32_t obj, uint8_t tag, uint8_t flags)
{
    if (s->n == MAX_CAND) {
        merge(s, s->rp->d.range_resolution_m);
        if (s->n == MAX_CAND) { /* all resolved apart: join the closest neighbours */
            uint32_t best = 0;
            for (uint32_t i = 1; i + 1 < s->n; i++)
                if (s->c[i + 1].range - s->c[i].range < s->c[best + 1].range - s->c[best].range)
                    best = i;
            cand *a = &s->c[best], *b = &s->c[best + 1];
            double esum = a->energy + b->energy;
            if (b->energy > a->energy) {
                a->object_id = b->object_id, a->tag = b->tag, a->flags = b->flags;
            }
            double lo = fmin(a->range - a->half, b->range - b->half), hi = fmax(a->range + a->half, b->range + b->half);
            a->range = esum > 0 ? (a->energy * a->range + b->energy * b->range) / esum : 0.5 * (a->range + b->range);
            a->half = fmax(a->range - lo, hi - a->range);
            a->energy = esum;
            memmove(b, b + 1, (size_t)(s->n - best - 2) * sizeof *b);
            s->n--;
        }
    }
    s->c[s->n++] = (cand){range, e, half, obj, tag, flags};
}

/* The echo energy of a hit at total path @p total reached with energy
 * factor @p f, and (unless @p dn_out is NULL) the normal's length, its
 * cosine with the ray (signed, -1 without a normal) and the incidence
 * cosine. */
static inline double hit_energy(const sensim_return_params *rp, const sensim_ray *ray, const sensim_hit *hit,
                                const sensim_material *mp, double f, double total, double *nn_out, double *dn_out,
                                double *cosi_out)
{
    const float refl = mp->reflectivity, retro = mp->retro_gain, spec = mp->specular, transp = mp->transparency;
    double nx = hit->ng[0], ny = hit->ng[1], nz = hit->ng[2], nn = sqrt(nx * nx + ny * ny + nz * nz);
    double dot = nx * ray->dir[0] + ny * ray->dir[1] + nz * ray->dir[2];
    if (dn_out) { /* plain hits pass NULL: no division for a cosine they do not use */
        double dn = nn > 0 ? dot / nn : -1.0;
        *nn_out = nn, *dn_out = dn, *cosi_out = fabs(dn);
    }
    if (rp->d.intensity_model == SENSIM_INTENSITY_CARLA) /* CARLA's attenuation, and the weather's two ways */
        return f * exp(-(double)rp->atmos_atten_per_m * total) *
               (rp->weather_ext_per_m > 0 ? exp(-2.0 * rp->weather_ext_per_m * total) : 1.0);
    if (rp->d.intensity_model == SENSIM_INTENSITY_COSINE)
        return f * fabs(nn > 0 ? dot / nn : -1.0);
    /* cos(i)·(r0 / max(r, r0))² as one division, |n·d|·r0² / (|n|·R²): the
     * callers that only need the energy (plain hits) divide once, not three
     * times (contract: 1e-16 relative against the separate divisions) */
    const double R = total > rp->r0 ? total : rp->r0;
    const double geom = nn > 0 ? fabs(dot) * (rp->r0 * rp->r0) / (nn * (R * R)) : (rp->r0 * rp->r0) / (R * R);
    return f * ((1.0 - spec - transp) * refl + retro) * geom *
           (rp->ext_per_m > 0 ? exp(-2.0 * rp->ext_per_m * total) : 1.0);
}

/* How far the mirror ray off the first hit (energy @p e, path @p total,
 * energy factor @p f, specular share @p spec) must be traced: beyond it
 * nothing it meets can change the shot's points, when the shot has one ray,
 * no rain, the physical model, the strongest or the first return, and the
 * first surface lets no light through (sensim__returns_shot sets
 * s->ghost_reach). Then the candidates are that hit and the mirror ray's
 * tree (63 at most below MAX_DEPTH: never merged in place), and
 * - a tree hit beyond resolution + two pulse halves does not join the
 *   first hit's group (the tree's ranges only grow);
 * - every group of the tree holds less energy than the first hit: a node
 *   returns at most f·spec·(its factors)·echo_max·(r0 / max(R, r0))² (the
 *   scene's brightest surface, sensim__scene_echo_bounds), the factors of
 *   a node's children sum to at most leak_max (the most any surface of the
 *   scene passes on, spec + transp²) times its own, so the six levels sum
 *   to at most (1 + leak + ... + leak⁵)·f·spec·echo_max·(r0 / max(R, r0))²;
 *   R is at least total + the reach, so that stays below e;
 * so the strongest group is the first hit's, and the first group too. A
 * hit within the reach is the same hit a full-length ray finds (the
 * closest) and is followed as before: the points are the same bytes. On
 * the street (car paint: spec 0.1 over ρ 0.25; the brightest surface the
 * lane markings', 1.5) a panel beyond r0 facing the sensor within 42°
 * needs only the resolution, one at 75° 0.7 x its range. */
static float ghost_reach(const shot_state *s, double f, double spec, double e, double total, float tfar)
{
    const sensim_return_params *rp = s->rp;
    double reach = (double)rp->d.range_resolution_m + 2.0 * rp->pulse_half_m; /* joins the first group */
    if (!(e > 0))
        return tfar;
    const double leak = s->scene->leak_max;
    _Static_assert(MAX_DEPTH == 6, "the levels below: one a depth");
    double levels = 1.0 + leak * (1.0 + leak * (1.0 + leak * (1.0 + leak * (1.0 + leak))));
    /* 1e-6: a float direction's length is 1 within a few 1e-8, so |n·d| / |n| may exceed 1 by that */
    double q = (1.0 + 1e-6) * levels * f * spec * s->scene->echo_max / e; /* (r0 / R)² below 1 / q: weaker */
    double strong = rp->r0 * sqrt(q) - total;
    reach = (strong > reach ? strong : reach) * (1.0 + 1e-6) + 1e-3;
    if (!(reach < (double)tfar))
        return tfar;
    return nextafterf((float)reach, INFINITY);
}

/* Bench only: keep a secondary ray the scan traces (sensim_bench_record_secondary). */
static inline void log_ray(const sensim_return_params *rp, const sensim_ray *r)
{
    sensim_ray_log *log = rp->log;
    if (!log)
        return;
    uint64_t i = atomic_fetch_add_explicit(&log->n, 1, memory_order_relaxed);
    if (i < log->cap)
        log->rays[i] = *r;
}

/* The candidate of a hit at total path @p total reached with energy factor
 * @p f, and its normal's length and cosine with the ray (hit_energy). */
static inline cand hit_cand(const shot_state *s, const sensim_ray *ray, const sensim_hit *hit,
                            const sensim_material *mp, double f, double total, uint8_t flags, double *nn, double *dn)
{
    const sensim_return_params *rp = s->rp;
    double cosi;
    double e = hit_energy(rp, ray, hit, mp, f, total, nn, dn, &cosi);
    /* The hit stands for the patch of beam its sub-ray samples (angular
     * cell rp->cell_rad): on a surface inclined by θ that patch spans
     * total·tanθ·cell in range, plus the pulse's own length. */
    double half = rp->pulse_half_m;
    if (rp->cell_rad > 0) {
        double tan_i = cosi > 0.01 ? sqrt(1.0 - cosi * cosi) / cosi : 100.0;
        half += 0.5 * total * tan_i * rp->cell_rad;
    }
    return (cand){total, e, half, hit->object_id, hit->tag, flags};
}

/* The rays a hit (at total path @p total, reached with energy factor @p f;
 * its candidate's energy @p e, its normal's length @p nn and cosine @p dn
 * with the ray: hit_cand) passes light on along at depth @p depth: its
 * transmission (what[k] 0), then its mirror ray (what[k] 1); returns how
 * many (0 to 2). */
static uint32_t onward_rays(const shot_state *s, const sensim_ray *ray, const sensim_hit *hit,
                            const sensim_material *mp, double f, double total, double e, double nn, double dn,
                            int bounces_left, int depth, sensim_ray r2[2], uint8_t what[2])
{
    const sensim_return_params *rp = s->rp;
    const float spec = mp->specular, transp = mp->transparency;
    uint32_t k = 0;
    float p[3] = {ray->org[0] + ray->dir[0] * hit->t, ray->org[1] + ray->dir[1] * hit->t,
                  ray->org[2] + ray->dir[2] * hit->t};
    if (transp > 0) {
        r2[k] = (sensim_ray){{p[0], p[1], p[2]}, {ray->dir[0], ray->dir[1], ray->dir[2]}, 1e-3f,
                             (float)(rp->max_range_m - total), ray->time};
        if (r2[k].tfar > r2[k].tnear)
            what[k++] = 0;
    }
    if (spec > 0 && bounces_left > 0 && nn > 0) {
        const double nx = hit->ng[0], ny = hit->ng[1], nz = hit->ng[2], q = 2.0 * dn / nn;
        float tfar = (float)(rp->max_range_m - total);
        if (depth == 0 && s->ghost_reach && !(transp > 0))
            tfar = ghost_reach(s, f, spec, e, total, tfar);
        r2[k] = (sensim_ray){{p[0], p[1], p[2]},
                             {(float)(ray->dir[0] - q * nx), (float)(ray->dir[1] - q * ny),
                              (float)(ray->dir[2] - q * nz)},
                             1e-3f,
                             tfar,
                             ray->time};
        if (r2[k].tfar > r2[k].tnear)
            what[k++] = 1;
    }
    return k;
}

/* A hit at total path @p path reached with energy factor @p f; follow
 * transmission and the mirror direction (carrying the specular share).
 * @p pre (depth 0): *pre points at the hits of the onward rays
 * (onward_rays(), in its order), traced before (sensim__returns_onward),
 * and moves past them; NULL: traced here. */
static void follow(shot_state *s, const sensim_ray *ray, const sensim_hit *hit, double f, double path,
                   int bounces_left, uint8_t flags, int depth, const sensim_hit **pre)
{
    if (!hit->hit)
        return;
    const sensim_return_params *rp = s->rp;
    double total = path + hit->t;
    const sensim_material *mp = sensim__material_for_hit(s->scene, hit->material, hit->tag);
    const float spec = mp->specular, transp = mp->transparency;
    double nn, dn;
    const cand c = hit_cand(s, ray, hit, mp, f, total, flags, &nn, &dn);
    add_cand(s, c.range, c.energy, c.half, c.object_id, c.tag, c.flags);
    if (depth >= MAX_DEPTH)
        return;
    sensim_ray r2[2];
    uint8_t what[2];
    const uint32_t n = onward_rays(s, ray, hit, mp, f, total, c.energy, nn, dn, bounces_left, depth, r2, what);
    for (uint32_t k = 0; k < n; k++) {
        sensim_hit h2;
        log_ray(rp, &r2[k]);
        if (pre)
            h2 = (*pre)[k];
        else
            sensim__trace_rays(s->scene, &r2[k], 1, &h2);
        s->traced++;
        if (what[k] == 0)
            follow(s, &r2[k], &h2, f * transp * transp, total, bounces_left, flags, depth + 1, NULL);
        else
            follow(s, &r2[k], &h2, f * spec, total, bounces_left - 1, (uint8_t)(flags | SENSIM_POINT_GHOST),
                   depth + 1, NULL);
    }
    if (pre)
        *pre += n;
}

/* follow()'s candidate for a hit that passes nothing on (no transparency,
 * no specular share) at the start of a path: the same operations (range,
 * energy, the half width of its echo). 0: a miss (follow() adds nothing),
 * 1: *c holds it, 2: the hit passes light on (follow() it). */
static inline int direct_cand(const shot_state *s, const sensim_ray *ray, const sensim_hit *hit, double f, cand *c)
{
    if (!hit->hit)
        return 0;
    const sensim_material *mp = sensim__material_for_hit(s->scene, hit->material, hit->tag);
    if (!(mp->specular == 0 && mp->transparency == 0))
        return 2;
    double nn, dn;
    *c = hit_cand(s, ray, hit, mp, f, 0.0 + hit->t, 0, &nn, &dn);
    return 1;
}

/* direct_cand() for a shot's @p n rays (ray k: @p rays[k], hit @p hits[k],
 * factor sub_w[k]) with the physical intensity model and no extinction:
 * the classification and material lookups one ray at a time, then
 * hit_energy()'s and hit_cand()'s arithmetic four rays at a time, the
 * same operations in the same order lane by lane (vector square roots and
 * divisions round as scalar ones; no contraction into FMA): the same bits.
 * The divisions and square roots of a 7-sub-ray shot were a third of its
 * return model. */
/* Lane by lane m ? a : b (m: a comparison's all-ones or zero lanes), and
 * |a| (the sign bit cleared, as fabs). Macros: a function returning a
 * 32-byte vector changes the ABI between the clones. */
#define VSEL(m, a, b) ((sensim_v4d)(((sensim_v4l)(a) & (m)) | ((sensim_v4l)(b) & ~(m))))
#define VABS(a) ((sensim_v4d)((sensim_v4l)(a) & ~(sensim_v4l){INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN}))

SENSIM_AVX_CLONES static void direct_cands4(const shot_state *s, uint32_t n, const sensim_ray *const *rays,
                                            const sensim_hit *const *hits, cand *c, int *kind)
{
    const sensim_return_params *rp = s->rp;
    enum { CAP = (SENSIM_MAX_SUBRAYS + 3) / 4 * 4 };
    double in[8][CAP]; /* nx, ny, nz, dx, dy, dz, total, f x material */
    for (uint32_t k = 0; k < (n + 3) / 4 * 4; k++) {
        const sensim_hit *hit = k < n ? hits[k] : NULL;
        if (!hit || !hit->hit) {
            if (k < n)
                kind[k] = 0;
            in[0][k] = 1, in[1][k] = in[2][k] = in[3][k] = in[4][k] = in[5][k] = 0, in[6][k] = 1, in[7][k] = 0;
            continue;
        }
        const sensim_material *mp = sensim__material_for_hit(s->scene, hit->material, hit->tag);
        if (!(mp->specular == 0 && mp->transparency == 0)) {
            kind[k] = 2;
            in[0][k] = 1, in[1][k] = in[2][k] = in[3][k] = in[4][k] = in[5][k] = 0, in[6][k] = 1, in[7][k] = 0;
            continue;
        }
        kind[k] = 1;
        const sensim_ray *ray = rays[k];
        const float refl = mp->reflectivity, retro = mp->retro_gain, spec = mp->specular, transp = mp->transparency;
        in[0][k] = hit->ng[0], in[1][k] = hit->ng[1], in[2][k] = hit->ng[2];
        in[3][k] = ray->dir[0], in[4][k] = ray->dir[1], in[5][k] = ray->dir[2];
        in[6][k] = 0.0 + hit->t;
        in[7][k] = (double)rp->sub_w[k] * ((1.0 - spec - transp) * refl + retro);
    }
    const double r0 = rp->r0, r02 = r0 * r0, ph = rp->pulse_half_m, cell = rp->cell_rad;
    const sensim_v4d zero = {0, 0, 0, 0}, one = {1, 1, 1, 1}, vr0 = {r0, r0, r0, r0};
    for (uint32_t k = 0; k < n; k += 4) {
        sensim_v4d nx, ny, nz, dx, dy, dz, total, fm;
        memcpy(&nx, &in[0][k], sizeof nx), memcpy(&ny, &in[1][k], sizeof ny), memcpy(&nz, &in[2][k], sizeof nz);
        memcpy(&dx, &in[3][k], sizeof dx), memcpy(&dy, &in[4][k], sizeof dy), memcpy(&dz, &in[5][k], sizeof dz);
        memcpy(&total, &in[6][k], sizeof total), memcpy(&fm, &in[7][k], sizeof fm);
        const sensim_v4d q = nx * nx + ny * ny + nz * nz;
        sensim_v4d nn;
        for (int l = 0; l < 4; l++)
            nn[l] = __builtin_sqrt(q[l]);
        const sensim_v4d dot = nx * dx + ny * dy + nz * dz;
        const sensim_v4l pos = nn > zero;
        const sensim_v4d dn = VSEL(pos, dot / nn, -one);
        const sensim_v4d cosi = VABS(dn), R = VSEL(total > vr0, total, vr0);
        const sensim_v4d geom = VSEL(pos, VABS(dot) * r02 / (nn * (R * R)), r02 / (R * R));
        const sensim_v4d e = fm * geom;
        sensim_v4d half = {ph, ph, ph, ph};
        if (cell > 0) {
            const sensim_v4d w = one - cosi * cosi;
            sensim_v4d sq;
            for (int l = 0; l < 4; l++)
                sq[l] = __builtin_sqrt(w[l]);
            const sensim_v4d hundred = {100.0, 100.0, 100.0, 100.0};
            const sensim_v4d tan_i = VSEL(cosi > 0.01, sq / cosi, hundred);
            half = half + 0.5 * total * tan_i * cell;
        }
        for (uint32_t l = 0; l < 4 && k + l < n; l++)
            if (kind[k + l] == 1)
                c[k + l] = (cand){total[l], e[l], half[l], hits[k + l]->object_id, hits[k + l]->tag, 0};
    }
}

/* Sort by range, then join hits whose echoes overlap: each hit spreads over
 * [range - half, range + half]; a hit starting less than the range
 * resolution after the group's furthest end joins the group. A group is one
 * return: summed energy, energy-weighted range, the strongest hit's object. */
static void merge(shot_state *s, double res)
{
    /* sorted through an index (the same stable insertion sort: a 40-byte
     * candidate moved at every step cost more than the comparisons; a
     * sorting network of 19 branch-free compare-exchanges for up to 8
     * took 1.02 x as long on vlp16, counting ranks 1.05 x) */
    const uint32_t n = s->n;
    double key[MAX_CAND];
    uint8_t ord[MAX_CAND];
    for (uint32_t i = 0; i < n; i++) {
        const double r = s->c[i].range;
        uint32_t j = i;
        for (; j > 0 && r < key[j - 1]; j--)
            key[j] = key[j - 1], ord[j] = ord[j - 1];
        key[j] = r, ord[j] = (uint8_t)i;
    }
    cand g[MAX_CAND];
    uint32_t out = 0;
    for (uint32_t i = 0; i < n;) {
        const cand *ci = &s->c[ord[i]];
        double end = ci->range + ci->half, lo = ci->range - ci->half;
        double esum = 0, rsum = 0, rplain = 0;
        uint32_t best = ord[i], j = i;
        for (; j < n && (j == i || s->c[ord[j]].range - s->c[ord[j]].half - end < res); j++) {
            const cand *cj = &s->c[ord[j]];
            esum += cj->energy;
            rsum += cj->energy * cj->range;
            rplain += cj->range;
            end = fmax(end, cj->range + cj->half);
            if (cj->energy > s->c[best].energy)
                best = ord[j];
        }
        cand q = s->c[best];
        q.energy = esum;
        q.range = j - i == 1 ? ci->range : esum > 0 ? rsum / esum : rplain / (j - i); /* one hit: its range */
        q.half = fmax(q.range - lo, end - q.range);
        g[out++] = q;
        i = j;
    }
    memcpy(s->c, g, out * sizeof *g);
    s->n = out;
}

/* The detections a draw decides (detect() settles the others first):
 * CARLA's drop-off, and the physical model near or below its threshold. */
static bool detect_draw(const sensim_return_params *rp, uint64_t shot, uint32_t idx, double intensity)
{
    if (rp->d.dropoff_model == SENSIM_DROPOFF_CARLA) {
        if (intensity > rp->d.dropoff_intensity_limit)
            return true;
        double z = rp->d.dropoff_zero_intensity;
        double keep = (1.0 - z) + z * intensity / rp->d.dropoff_intensity_limit;
        return uniform(rp, shot, idx, SENSIM_RNG_DROP_POINT) < keep;
    }
    /* physical, shot-noise limited: σ grows as √I, so no signal is never detected */
    if (!(intensity > 0))
        return false;
    double nz = rp->d.detect_noise, sigma = nz * sqrt(intensity / rp->d.detect_threshold);
    double w = -(intensity - rp->d.detect_threshold) / (sigma * sqrt(2.0));
    double u = uniform(rp, shot, idx, SENSIM_RNG_DROP_POINT);
    /* erfc falls: for w_k <= w <= w_k+1, erfc(w_k+1) <= erfc(w) <= erfc(w_k). A uniform
     * outside the (widened) bracket decides as u < p would, without erfc; only one
     * within it computes p: a bracket spans 0.5·(2/√π)·exp(-w²)/16 <= 3.5 % of the
     * draws (at the threshold, fewer away from it). The same decisions,
     * bit for bit: libm's erfc is within a few ulps of the true, monotone function, far
     * inside the 1e-9 margin. */
    const double lo_m = 0.5 * (1.0 - 1e-9), hi_m = 0.5 * (1.0 + 1e-9);
    if (w > -SENSIM_ERFC_W && w < SENSIM_ERFC_W) {
        int k = (int)((w + SENSIM_ERFC_W) * SENSIM_ERFC_STEP);
        k = k > SENSIM_ERFC_N - 2 ? SENSIM_ERFC_N - 2 : k;
        if (u < lo_m * rp->erfc_grid[k + 1])
            return true;
        if (u >= hi_m * rp->erfc_grid[k])
            return false;
    } else if (w >= SENSIM_ERFC_W) {
        if (u >= hi_m * rp->erfc_grid[SENSIM_ERFC_N - 1])
            return false;
    } else if (w <= -SENSIM_ERFC_W) {
        if (u < lo_m * rp->erfc_grid[0])
            return true;
    }
    return u < 0.5 * erfc(w);
}

/* Whether a return of @p intensity is detected. Inline for what most hits
 * are (no drop-off model, or the physical one far above its threshold); a
 * draw (detect_draw) for the rest. */
static inline bool detect(const sensim_return_params *rp, uint64_t shot, uint32_t idx, double intensity)
{
    if (rp->d.dropoff_model == SENSIM_DROPOFF_PHYSICAL) {
        /* Φ(z) rounds to exactly 1.0 beyond z ≈ 8.3: detected, the same as
         * drawing. z > 9 <=> d > 9σ <=> d²·thr > 81·noise²·I (d > 0): no sqrt */
        double d = intensity - rp->d.detect_threshold, nz = rp->d.detect_noise;
        if (intensity > 0 && d > 0 && d * d * rp->d.detect_threshold > 81.0 * nz * nz * intensity)
            return true;
    } else if (rp->d.dropoff_model != SENSIM_DROPOFF_CARLA) {
        return true;
    }
    return detect_draw(rp, shot, idx, intensity);
}

bool sensim__returns_detect(const sensim_return_params *rp, uint64_t shot, uint32_t idx, double intensity)
{
    return detect(rp, shot, idx, intensity);
}

/* The first detectable rain drop before @p limit, if any. */
static void rain(shot_state *s, double limit)
{
    const sensim_return_params *rp = s->rp;
    if (rp->rain_dr <= 0)
        return;
    if (limit > SENSIM_RAIN_MAX_RANGE)
        limit = SENSIM_RAIN_MAX_RANGE;
    double pos = limit / rp->rain_dr;
    int k = (int)pos;
    if (k >= SENSIM_RAIN_STEPS)
        k = SENSIM_RAIN_STEPS - 1;
    double total = rp->rain_cum[k] + (pos - k) * (rp->rain_cum[k + 1] - rp->rain_cum[k]);
    /* first event of a Poisson process: its cumulative intensity is Exp(1) */
    double target = -log1p(-uniform(rp, s->shot, 0, SENSIM_RNG_RAIN));
    if (target >= total)
        return;
    int j = 0;
    while (j < SENSIM_RAIN_STEPS - 1 && rp->rain_cum[j + 1] < target)
        j++;
    double seg = rp->rain_cum[j + 1] - rp->rain_cum[j];
    double r = (j + (seg > 0 ? (target - rp->rain_cum[j]) / seg : 0)) * rp->rain_dr;
    /* drop size above the detection minimum is exponential (memoryless spectrum) */
    double theta = 0.5 * (rp->d.beam_divergence_h_rad + rp->d.beam_divergence_v_rad);
    if (theta <= 0)
        theta = 3e-3;
    double b = SENSIM_BEAM_WAIST_M + 0.5 * theta * r;
    double tcal = SENSIM_WATER_FRESNEL * exp(-2 * rp->ext_per_m * r) * sensim__returns_calib(rp, r);
    double dmin_mm = 2000.0 * b * sqrt(rp->d.detect_threshold / tcal);
    double dd = dmin_mm - log1p(-uniform(rp, s->shot, 1, SENSIM_RNG_RAIN)) / rp->rain_lambda_mm;
    double frac = dd / (2000.0 * b);
    double e = tcal * fmin(1.0, frac * frac);
    add_cand(s, r, e, rp->pulse_half_m, 0, 0, SENSIM_POINT_WEATHER);
}

static void emit(const shot_state *s, const cand *c, uint32_t idx, const float nominal[3], sensim_point *out,
                 uint32_t *n)
{
    const sensim_return_params *rp = s->rp;
    double range = c->range;
    if (range < rp->min_range_m || range >= rp->max_range_m)
        return;
    double sigma = rp->range_noise_stddev_m + rp->d.range_noise_per_m * range;
    if (sigma > 0) {
        range += sigma * gaussian(rp, s->shot, idx, SENSIM_RNG_RANGE_NOISE);
        if (range <= 0)
            return;
    }
    double intensity = c->energy > 1.0 ? 1.0 : c->energy;
    if (!detect(rp, s->shot, idx, intensity))
        return;
    sensim__returns_write_point(s->meta, nominal, range, (float)intensity, c->object_id, c->tag,
                                (uint8_t)((idx & SENSIM_POINT_RETURN_MASK) | c->flags), &out[*n]);
    (*n)++;
}

/* subray_apply() of sub-rays k0 .. k0 + 3 without jitter (their tan from
 * the tables), four side by side: the same IEEE operations in the same
 * order, so the same bits per lane; sub-rays on the axis are the caller's.
 * A sub-ray's square root and three divisions went through the divider
 * one sub-ray after the other. */
SENSIM_AVX_CLONES static void subray_dirs4(const sensim_return_params *rp, const beam_basis *b, uint32_t k0,
                                           float out[4][3])
{
    sensim_v4d th, tv, n, x, y, z;
    memcpy(&th, &rp->tan_h[k0], sizeof th);
    memcpy(&tv, &rp->tan_v[k0], sizeof tv);
    x = b->dx + th * b->ux + tv * b->wx;
    y = b->dy + th * b->uy + tv * b->wy;
    z = b->dz + th * b->uz + tv * b->wz;
    const sensim_v4d n2 = x * x + y * y + z * z;
    for (int l = 0; l < 4; l++)
        n[l] = __builtin_sqrt(n2[l]);
    x /= n, y /= n, z /= n;
    for (int l = 0; l < 4; l++)
        out[l][0] = (float)x[l], out[l][1] = (float)y[l], out[l][2] = (float)z[l];
}

void sensim__returns_subrays(const sensim_return_params *rp, const float R[9], const float nominal[3],
                             const sensim_ray *ray0, uint64_t shot, sensim_ray *out)
{
    beam_basis b = basis_of(nominal);
    if (!(rp->d.angular_jitter_rad > 0)) {
        for (uint32_t k0 = 1; k0 < rp->nsub; k0 += 4) { /* tan_h, tan_v hold SENSIM_MAX_SUBRAYS + 3 */
            float d4[4][3];
            subray_dirs4(rp, &b, k0, d4);
            for (uint32_t k = k0; k < k0 + 4 && k < rp->nsub; k++) {
                const float *d = d4[k - k0];
                if (rp->sub_h[k] == 0 && rp->sub_v[k] == 0)
                    d = nominal;
                sensim_ray *o = &out[k - 1];
                *o = *ray0;
                for (int row = 0; row < 3; row++)
                    o->dir[row] = R[row] * d[0] + R[3 + row] * d[1] + R[6 + row] * d[2];
            }
        }
        return;
    }
    double gh, gv; /* jittered: the shot's beam axis moved, each sub-ray's tan computed */
    jitter_of(rp, shot, &gh, &gv);
    for (uint32_t k = 0; k + 1 < rp->nsub; k++) {
        double h = rp->sub_h[k + 1] + gh, v = rp->sub_v[k + 1] + gv;
        float d[3];
        subray_apply(rp, &b, k + 1, h, v, true, nominal, d);
        out[k] = *ray0;
        for (int row = 0; row < 3; row++)
            out[k].dir[row] = R[row] * d[0] + R[3 + row] * d[1] + R[6 + row] * d[2];
    }
}

/* Whether a mirror ray off sub-ray 0's hit may stop at ghost_reach(). */
static inline bool ghost_reach_ok(const sensim_return_params *rp)
{
    return rp->nsub == 1 && rp->rain_dr <= 0 && rp->d.intensity_model == SENSIM_INTENSITY_PHYSICAL &&
           (rp->d.return_mode == SENSIM_RETURN_STRONGEST || rp->d.return_mode == SENSIM_RETURN_FIRST);
}

bool sensim__returns_scene_passes_light(const sensim_scene *scene)
{
    return scene->leak_max > 0; /* spec + transp² of the scene's most passing surface */
}

uint32_t sensim__returns_onward(const sensim_return_params *rp, const sensim_scene *scene, uint32_t m,
                                const sensim_ray *rays, const sensim_hit *hits, const sensim_plain *plain,
                                const int16_t *order, const sensim_ray *sub_rays, const sensim_hit *sub_hits,
                                const uint16_t *sub_at, uint16_t *at, sensim_ray *out, uint32_t cap)
{
    shot_state s;
    s.rp = rp;
    s.scene = scene;
    s.ghost_reach = ghost_reach_ok(rp);
    const int bounces = rp->d.max_bounces;
    uint32_t n = 0;
    for (uint32_t q = 0; q < m; q++) {
        const uint32_t j = order ? (uint32_t)order[q] : q;
        if (plain[j].kind != SENSIM_PLAIN_FULL)
            continue;
        /* what sensim__returns_shot() passes follow() at the first hits, in its order: sub-ray 0, then
         * (more rays a shot) each sub-ray whose hit passes light on (direct_cand() 2) */
        sensim_ray r2[2 * SENSIM_MAX_SUBRAYS];
        uint32_t c = 0;
        for (uint32_t k = 0; k < rp->nsub; k++) {
            const sensim_ray *ray = k ? &sub_rays[sub_at[j] + k - 1] : &rays[j];
            const sensim_hit *hit = k ? &sub_hits[sub_at[j] + k - 1] : &hits[j];
            if (!hit->hit)
                continue;
            const sensim_material *mp = sensim__material_for_hit(scene, hit->material, hit->tag);
            if (rp->nsub > 1 && mp->specular == 0 && mp->transparency == 0)
                continue;
            double nn, dn;
            const double total = 0.0 + hit->t;
            const cand cd = hit_cand(&s, ray, hit, mp, rp->sub_w[k], total, 0, &nn, &dn);
            uint8_t what[2];
            c += onward_rays(&s, ray, hit, mp, rp->sub_w[k], total, cd.energy, nn, dn, bounces, 0, &r2[c], what);
        }
        if (n + c > cap) { /* no room: sensim__returns_shot() traces them */
            at[j] = SENSIM_ONWARD_NONE;
            continue;
        }
        at[j] = (uint16_t)n;
        memcpy(&out[n], r2, c * sizeof *r2);
        n += c;
    }
    return n;
}

uint32_t sensim__returns_shot(const sensim_return_params *rp, const sensim_scene *scene, const float nominal[3],
                              const sensim_ray *ray0, const sensim_hit *hit0, const sensim_ray *sub_rays,
                              const sensim_hit *sub_hits, const sensim_hit *onward, uint64_t shot,
                              const sensim_shot_meta *meta, sensim_point out[2], uint32_t *rays)
{
    shot_state s;
    s.rp = rp;
    s.scene = scene;
    s.shot = shot;
    s.meta = meta;
    s.traced = 0;
    s.ghost_reach = ghost_reach_ok(rp);
    s.n = 0;
    int bounces = rp->d.max_bounces;
    const sensim_hit *pre = onward; /* the onward rays' hits, first hit by first hit */
    if (rp->nsub == 1) {
        follow(&s, ray0, hit0, rp->sub_w[0], 0.0, bounces, 0, 0, onward ? &pre : NULL);
    } else {
        /* the sub-rays' plain hits first, side by side: each is a chain of
         * square roots and divisions, and a follow() call at a time waited
         * for each (16 % of a one-thread vlp16 frame); then the candidates
         * in sub-ray order, as follow() adds them */
        cand direct[SENSIM_MAX_SUBRAYS];
        int kind[(SENSIM_MAX_SUBRAYS + 3) / 4 * 4];
        if (rp->d.intensity_model == SENSIM_INTENSITY_PHYSICAL && !(rp->ext_per_m > 0)) {
            const sensim_ray *rv[SENSIM_MAX_SUBRAYS];
            const sensim_hit *hv[SENSIM_MAX_SUBRAYS];
            for (uint32_t k = 0; k < rp->nsub; k++)
                rv[k] = k ? &sub_rays[k - 1] : ray0, hv[k] = k ? &sub_hits[k - 1] : hit0;
            direct_cands4(&s, rp->nsub, rv, hv, direct, kind);
        } else {
            for (uint32_t k = 0; k < rp->nsub; k++)
                kind[k] = direct_cand(&s, k ? &sub_rays[k - 1] : ray0, k ? &sub_hits[k - 1] : hit0, rp->sub_w[k],
                                      &direct[k]);
        }
        for (uint32_t k = 0; k < rp->nsub; k++) {
            if (kind[k] == 1 && s.n < MAX_CAND) /* (what add_cand() does with room) */
                s.c[s.n++] = direct[k];
            else if (kind[k] == 1)
                add_cand(&s, direct[k].range, direct[k].energy, direct[k].half, direct[k].object_id,
                         direct[k].tag, 0);
            else if (kind[k] == 2)
                follow(&s, k ? &sub_rays[k - 1] : ray0, k ? &sub_hits[k - 1] : hit0, rp->sub_w[k], 0.0, bounces,
                       0, 0, onward ? &pre : NULL);
        }
    }
    *rays += s.traced;
    if (rp->rain_dr > 0) {
        double limit = rp->max_range_m;
        for (uint32_t i = 0; i < s.n; i++)
            limit = fmin(limit, s.c[i].range);
        rain(&s, limit);
    }
    if (s.n == 0)
        return 0;
    merge(&s, rp->d.range_resolution_m);
    uint32_t strongest = 0;
    for (uint32_t i = 1; i < s.n; i++)
        if (s.c[i].energy > s.c[strongest].energy)
            strongest = i;
    uint32_t n = 0;
    switch (rp->d.return_mode) {
    case SENSIM_RETURN_LAST:
        emit(&s, &s.c[s.n - 1], 0, nominal, out, &n);
        break;
    case SENSIM_RETURN_FIRST:
        emit(&s, &s.c[0], 0, nominal, out, &n);
        break;
    case SENSIM_RETURN_DUAL:
        emit(&s, &s.c[strongest], 0, nominal, out, &n);
        if (strongest != s.n - 1)
            emit(&s, &s.c[s.n - 1], 1, nominal, out, &n);
        break;
    default:
        emit(&s, &s.c[strongest], 0, nominal, out, &n);
    }
    return n;
}

/* What sensim__returns_shot() does for a plain shot (follow(), merge()
 * and emit() with one candidate), one shot after the other with no call
 * between: the energy's square root and division, the noise draw's two
 * hashes and the detection of neighbouring shots overlap (done shot by
 * shot, each waited for the last: most of the return model's 6 of 38 ms
 * of a pandar128 frame). The same operations in the same order: the same
 * bits. The lidar calls sensim__returns_shot() for the other shots only. */
void sensim__returns_plain(const sensim_return_params *rp, const sensim_scene *scene, uint32_t m,
                           const sensim_ray *rays, const sensim_hit *hits, uint64_t shot0, const int64_t *live,
                           sensim_plain *out)
{
    const bool single = rp->nsub == 1 && rp->rain_dr <= 0;
    const uint64_t key = rp->rng_key[SENSIM_RNG_RANGE_NOISE];
    const double lo = rp->min_range_m, hi = rp->max_range_m, s0 = rp->range_noise_stddev_m,
                 s1 = rp->d.range_noise_per_m;
    /* 1. each plain hit's energy (into o->range, kind ENERGY): no branch on
     * it, so the square roots and divisions of many shots overlap */
    enum { ENERGY = 3 };
    for (uint32_t j = 0; j < m; j++) {
        const sensim_hit *h = &hits[j];
        sensim_plain *o = &out[j];
        if (!single) {
            o->kind = SENSIM_PLAIN_FULL;
            continue;
        }
        if (!h->hit) {
            o->kind = SENSIM_PLAIN_NONE;
            continue;
        }
        const sensim_material *mp = sensim__material_for_hit(scene, h->material, h->tag);
        if (!(mp->specular == 0 && mp->transparency == 0)) {
            o->kind = SENSIM_PLAIN_FULL;
            continue;
        }
        o->range = 0.0 + hit_energy(rp, &rays[j], h, mp, rp->sub_w[0], 0.0 + h->t, NULL, NULL, NULL);
        o->kind = ENERGY;
    }
    /* 2. the range window, noise and detection */
    for (uint32_t j = 0; j < m; j++) {
        const sensim_hit *h = &hits[j];
        sensim_plain *o = &out[j];
        if (o->kind != ENERGY)
            continue;
        const uint64_t shot = shot0 + (uint64_t)live[j];
        /* follow(), merge() and emit() for one candidate */
        double range = 0.0 + h->t;
        double e = o->range;
        o->kind = SENSIM_PLAIN_NONE;
        if (range < lo || range >= hi)
            continue;
        double sigma = s0 + s1 * range;
        if (sigma > 0) {
            double z;
            if (!normal_first(key, shot, 0, &z))
                z = sensim__returns_normal(rp, shot, 0, SENSIM_RNG_RANGE_NOISE);
            range += sigma * z;
            if (range <= 0)
                continue;
        }
        double intensity = e > 1.0 ? 1.0 : e;
        if (!detect(rp, shot, 0, intensity))
            continue;
        o->kind = SENSIM_PLAIN_POINT;
        o->range = range;
        o->intensity = (float)intensity;
    }
}
