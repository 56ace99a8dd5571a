/* A moving sensor's pose at each shot time: lane slots (shots fired
 * together share one), spans of the world clock on which a quadratic
 * stands in for the motion (sensim_pose_span), and the exact pose where it
 * does not hold. */
#include "lidar_impl.h"
#include "motion.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define SPAN_NS ((int64_t)SENSIM_POSE_SPAN_NS)
/* The quadratic's error at the quarter points, checked against half the
 * bound it keeps (1e-10 for rotation entries, about rad: the contract lets
 * directions move by 1e-9 rad; 1e-8 m for translation: ranges by 1e-6 m):
 * between them the error of a smooth motion peaks at most a few per cent
 * above its value there (a cubic's by 2.6 %, a quartic's by 4 %). */
#define ROT_TOL 5e-11
#define POS_TOL 5e-9

/* The sensor pose's twelve entries that move: rotation columns, translation. */
static const int ENTRY[12] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14};

void sensim__lidar_sensor_pose(const sensim_scan_env *env, int64_t t, double S[16])
{
    if (!env->path->moving) {
        memcpy(S, env->S0, sizeof env->S0);
        return;
    }
    double P[16];
    sensim__path_pose(env->path, t, P);
    sensim__mat4_mul(P, env->mount, S);
}

uint64_t sensim__lidar_pose_gen(void)
{
    static _Atomic uint64_t gen;
    return atomic_fetch_add(&gen, 1) + 1;
}

/* The exact sensor poses at tv[0 .. m): sensim__path_pose4() and the product
 * with the mount four at a time (sensim__mat4_mul4): the same bits as
 * sensim__lidar_sensor_pose() one at a time. */
static void exact4(const sensim_scan_env *env, const int64_t tv[4], uint32_t m, sensim_v4d S[16])
{
    sensim_v4d P[16];
    sensim__path_pose4(env->path, tv, m, P);
    sensim__mat4_mul4(P, env->mount, S);
}

/* The span's pose at @p u (0 <= u < 1), its twelve entries. */
static inline void span_at(const sensim_pose_span *s, double u, double x[12])
{
    for (int i = 0; i < 12; i++)
        x[i] = s->A[i] + u * (s->B[i] + u * s->C[i]);
}

/* Span @p k of this scan: from the cache, else set up (its exact poses at
 * 1/4, 1/2, 3/4 and the end; the start from the span before when it is
 * kept, which is the same pose). */
static const sensim_pose_span *span_get(const sensim_scan_env *env, sensim_lane_scratch *w, int64_t k)
{
    sensim_pose_span *s = &w->spans[(uint64_t)k & (SENSIM_POSE_SPANS - 1)];
    if (s->gen == env->pose_gen && s->k == k)
        return s;
    s->gen = env->pose_gen, s->k = k, s->a = INT64_MIN, s->ok = false, s->have_end = false;
    if (k <= INT64_MIN / SPAN_NS || k >= INT64_MAX / SPAN_NS - 1)
        return s; /* (a shot's exact pose) */
    const int64_t a = s->a = k * SPAN_NS;
    if (!sensim__path_smooth(env->path, a, a + SPAN_NS))
        return s;
    double f0[12];
    const sensim_pose_span *prev = &w->spans[(uint64_t)(k - 1) & (SENSIM_POSE_SPANS - 1)];
    if (prev->gen == env->pose_gen && prev->k == k - 1 && prev->have_end) {
        memcpy(f0, prev->end, sizeof f0);
    } else {
        double S[16];
        sensim__lidar_sensor_pose(env, a, S);
        for (int i = 0; i < 12; i++)
            f0[i] = S[ENTRY[i]];
    }
    const int64_t tv[4] = {a + SPAN_NS / 4, a + SPAN_NS / 2, a + 3 * (SPAN_NS / 4), a + SPAN_NS};
    sensim_v4d S[16];
    exact4(env, tv, 4, S);
    for (int i = 0; i < 12; i++) {
        const sensim_v4d f = S[ENTRY[i]];
        s->end[i] = f[3];
        s->A[i] = f0[i];
        s->B[i] = 4 * f[1] - 3 * f0[i] - f[3];
        s->C[i] = 2 * f[3] + 2 * f0[i] - 4 * f[1];
    }
    s->have_end = true;
    double q1[12], q3[12];
    span_at(s, 0.25, q1);
    span_at(s, 0.75, q3);
    bool ok = true;
    for (int i = 0; i < 12; i++) {
        const double tol = i < 9 ? ROT_TOL : POS_TOL;
        ok = ok && fabs(q1[i] - S[ENTRY[i]][0]) <= tol && fabs(q3[i] - S[ENTRY[i]][2]) <= tol; /* NaN: false */
    }
    s->ok = ok;
    return s;
}

/* The span holding @p t: the last one asked for when it does (most shots
 * follow the one before), else span_get(). */
static inline const sensim_pose_span *span_of(const sensim_scan_env *env, sensim_lane_scratch *w, int64_t t)
{
    const sensim_pose_span *s = w->span_last;
    if (s && s->gen == env->pose_gen && (uint64_t)t - (uint64_t)s->a < (uint64_t)SPAN_NS)
        return s;
    return w->span_last = span_get(env, w, sensim__floordiv(t, SPAN_NS));
}

/* Slot @p e from span @p s at @p t (in it). */
static void fill_from_span(const sensim_pose_span *s, int64_t t, sensim_pose_slot *e, bool with_S)
{
    double x[12];
    span_at(s, (double)(t - s->a) * (1.0 / (double)SPAN_NS), x);
    for (int i = 0; i < 9; i++)
        e->R[i] = (float)x[i];
    for (int i = 0; i < 3; i++)
        e->org[i] = (float)x[9 + i];
    if (with_S) {
        for (int i = 0; i < 12; i++)
            e->S[ENTRY[i]] = x[i];
        e->S[3] = e->S[7] = e->S[11] = 0.0;
        e->S[15] = 1.0;
    }
}

void sensim__lane_pose_fill(const sensim_scan_env *env, sensim_lane_scratch *w, int64_t t, sensim_pose_slot *e,
                            bool with_S)
{
    const sensim_pose_span *s = span_of(env, w, t);
    if (s->ok) {
        fill_from_span(s, t, e, with_S);
    } else {
        sensim__lidar_sensor_pose(env, t, e->S);
        sensim__pose_floats(e->S, e->R, e->org);
    }
    e->lane = w->pose_lane, e->t = t;
}

/* The exact poses at tv[0 .. m) into slots sl[0 .. m), four at a time, then
 * sensim__pose_floats()'s conversions four at a time: the same bits as
 * sensim__lane_pose_fill()'s exact branch. The double pose S only @p with_S. */
static void fill_exact(const sensim_scan_env *env, const int64_t tv[4], sensim_pose_slot *const sl[4], uint32_t m,
                       uint64_t lane, bool with_S)
{
    sensim_v4d S[16];
    exact4(env, tv, m, S);
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

void sensim__lane_prefill(const sensim_scan_env *env, sensim_lane_scratch *w, const int64_t *when, const uint8_t *ok,
                          uint32_t n, bool with_S)
{
    int64_t tv[4];
    sensim_pose_slot *sl[4];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        const int64_t t = when[i];
        if (ok && !ok[i])
            continue;
        sensim_pose_slot *e = sensim__pose_slot(w, t);
        if (e->lane == w->pose_lane && e->t == t)
            continue; /* filled, or on its way in this batch */
        e->lane = w->pose_lane, e->t = t;
        const sensim_pose_span *s = span_of(env, w, t);
        if (s->ok) {
            fill_from_span(s, t, e, with_S);
            continue;
        }
        sl[m] = e, tv[m++] = t;
        if (m == 4) {
            fill_exact(env, tv, sl, 4, w->pose_lane, with_S);
            m = 0;
        }
    }
    if (m)
        fill_exact(env, tv, sl, m, w->pose_lane, with_S);
}
