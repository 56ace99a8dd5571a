/* Analytic Risley prisms (exact vector Snell's law) and the MEMS raster. */
#include "pattern.h"
#include "vmath.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RANGE_FAIL(...) sensim__fail(SENSIM_ERR_OUT_OF_RANGE, __VA_ARGS__)
#define DEG (SENSIM_PI / 180.0)

/* Refract d at a face with normal n (unit, either orientation) from index
 * n1 into n2: t = η·d + (η·c − sqrt(1 − η²(1 − c²)))·N, N facing the ray.
 * For a unit d the result is unit (to ~1e-16), so only the first face
 * normalises (@p norm): its d is the laser's direction rounded to float,
 * and the way that face treats the rounded length is kept. The faces
 * after it skip the square root and divisions, which changed directions
 * by ~1e-16 rad (the contract allows 1e-9; CHANGES.md). */
static bool refract(double d[3], const double n[3], double n1, double n2, bool norm)
{
    double N[3] = {n[0], n[1], n[2]};
    double dn = d[0] * N[0] + d[1] * N[1] + d[2] * N[2];
    if (dn > 0.0) {
        N[0] = -N[0], N[1] = -N[1], N[2] = -N[2];
        dn = -dn;
    }
    double c = -dn, eta = n1 / n2;
    double k = 1.0 - eta * eta * (1.0 - c * c);
    if (k < 0.0)
        return false; /* total internal reflection */
    double f = eta * c - sqrt(k);
    for (int i = 0; i < 3; i++)
        d[i] = eta * d[i] + f * N[i];
    if (norm) {
        double inv = 1.0 / sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int i = 0; i < 3; i++)
            d[i] *= inv;
    }
    return true;
}

/* Trace through the prisms whose tilted faces point along (cos a_i, sin a_i). */
static bool trace_state(const sensim_pattern *p, const double in_dir[3], const sensim_risley_state *st, double out[3])
{
    double d[3] = {in_dir[0], in_dir[1], in_dir[2]};
    static const double flat[3] = {1.0, 0.0, 0.0};
    for (uint32_t i = 0; i < p->nprism; i++) {
        double tilted[3] = {p->cos_wedge[i], p->sin_wedge[i] * st->c[i], p->sin_wedge[i] * st->s[i]};
        const double *entry = p->wedge[i] >= 0.0 ? tilted : flat;
        const double *exit = p->wedge[i] >= 0.0 ? flat : tilted;
        if (!refract(d, entry, 1.0, p->index[i], i == 0) || !refract(d, exit, p->index[i], 1.0, false))
            return false;
    }
    memcpy(out, d, sizeof d);
    return true;
}

bool sensim__risley_trace(const sensim_pattern *p, const double in_dir[3], const double *angles, double out[3])
{
    sensim_pattern q = *p; /* wedge trig from the wedge angles alone (tests build patterns by hand) */
    sensim_risley_state st;
    for (uint32_t i = 0; i < p->nprism; i++) {
        q.cos_wedge[i] = cos(fabs(p->wedge[i])), q.sin_wedge[i] = sin(fabs(p->wedge[i]));
        st.c[i] = cos(angles[i]), st.s[i] = sin(angles[i]);
    }
    return trace_state(&q, in_dir, &st, out);
}

/* 2π·frac(hz·t) for t in integer ns, exact at any epoch: t = s·1e9 + r,
 * hz·s held as a double-double (fma), so an epoch time (1.7e18 ns) loses no
 * more phase than t = r does. */
static double turn(double hz, int64_t t_ns)
{
    int64_t s = sensim__floordiv(t_ns, 1000000000);
    double r = (double)(t_ns - s * 1000000000) * 1e-9, ds = (double)s;
    double hi = hz * ds, lo = fma(hz, ds, -hi);
    double x = (hi - floor(hi)) + lo + hz * r;
    return 2.0 * SENSIM_PI * (x - floor(x));
}

void sensim__risley_angles(const sensim_pattern *p, int64_t t_ns, sensim_risley_state *st)
{
    for (uint32_t i = 0; i < p->nprism; i++) {
        double a = turn(p->rot_hz[i], t_ns) + p->phase[i];
        st->c[i] = cos(a), st->s[i] = sin(a);
    }
    if (p->head_hz == 0.0) { /* cos 0, sin 0: what the libm calls gave */
        st->ch = 1.0, st->sh = 0.0;
        return;
    }
    double h = turn(p->head_hz, t_ns);
    st->ch = cos(h), st->sh = sin(h);
}

bool sensim__risley_dir(const sensim_pattern *p, uint32_t laser, int64_t t_ns, float dir[3])
{
    sensim_risley_state st;
    sensim__risley_angles(p, t_ns, &st);
    return sensim__risley_dir_at(p, laser, &st, dir);
}

bool sensim__risley_dir_at(const sensim_pattern *p, uint32_t laser, const sensim_risley_state *st, float dir[3])
{
    double in[3] = {p->laser_dir[3 * laser], p->laser_dir[3 * laser + 1], p->laser_dir[3 * laser + 2]};
    double o[3];
    if (!trace_state(p, in, st, o) || o[0] <= 0.0)
        return false;
    /* tilt the optical axis up by the boresight elevation, then spin the head */
    double x = o[0] * p->cos_bore - o[2] * p->sin_bore, y = o[1], z = o[0] * p->sin_bore + o[2] * p->cos_bore;
    if (p->head_hz != 0.0) {
        double xr = x * st->ch - y * st->sh;
        y = x * st->sh + y * st->ch;
        x = xr;
    }
    dir[0] = (float)x;
    dir[1] = (float)y;
    dir[2] = (float)z;
    return true;
}

/* ---- four shots at once ----
 * refract() and sensim__risley_dir_at() on 4-wide double vectors: the
 * same IEEE operations in the same order (a sign flip for the negations,
 * no FMA), so the same bits per lane. About 4 x faster per shot. */

/* r = sqrt(x) lane by lane (vsqrtpd in the AVX clone) */
#define V4_SQRT(r, x)                                                                              \
    for (int k_ = 0; k_ < 4; k_++)                                                                 \
        (r)[k_] = __builtin_sqrt((x)[k_])

/* Refract the four rays d at faces with normals N (per lane), n1 -> n2;
 * lanes meeting total internal reflection are cleared in *ok; @p norm as
 * in refract(). */
static inline __attribute__((always_inline)) void refract4(sensim_v4d d[3], const sensim_v4d n[3], double n1, double n2, sensim_v4l *ok, bool norm)
{
    const sensim_v4l sign = {INT64_MIN, INT64_MIN, INT64_MIN, INT64_MIN};
    sensim_v4d dn = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
    sensim_v4l flip = (dn > 0.0) & sign;
    sensim_v4d N[3];
    for (int i = 0; i < 3; i++)
        N[i] = (sensim_v4d)((sensim_v4l)n[i] ^ flip);
    dn = (sensim_v4d)((sensim_v4l)dn ^ flip);
    const double eta = n1 / n2, ee = eta * eta;
    sensim_v4d c = -dn;
    sensim_v4d k = 1.0 - ee * (1.0 - c * c);
    *ok &= k >= 0.0;
    sensim_v4d sk;
    V4_SQRT(sk, k);
    sensim_v4d f = eta * c - sk;
    for (int i = 0; i < 3; i++)
        d[i] = eta * d[i] + f * N[i];
    if (norm) {
        sensim_v4d len, l2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        V4_SQRT(len, l2);
        sensim_v4d inv = 1.0 / len;
        for (int i = 0; i < 3; i++)
            d[i] *= inv;
    }
}

/* Lanes k < m (<= RL) of shots i0 .. i0 + m - 1: in[] the lasers'
 * directions, c/s[prism] the prism angles' cosines and sines, ch/sh the
 * head's. Four groups of four lanes side by side: each face is a chain of
 * a dot product, a square root and the new direction, and four independent
 * chains overlap (two left the square roots' latency showing: risley_dirs
 * 5.5 % -> 4.6 % of a one-thread mid40 profile). */
enum { RG = 4, RL = 4 * RG };
SENSIM_AVX_CLONES static void risley_dirs(const sensim_pattern *p, const double in[3][RL], const double c[][RL],
                                          const double s[][RL], const double ch[RL], const double sh[RL], uint32_t m,
                                          float *dir, uint8_t *ok)
{
    sensim_v4d d[RG][3];
    sensim_v4l good[RG];
    const sensim_v4d one = {1.0, 1.0, 1.0, 1.0}, zero = {0, 0, 0, 0};
    for (int g = 0; g < RG; g++) {
        for (int i = 0; i < 3; i++)
            memcpy(&d[g][i], &in[i][4 * g], sizeof d[g][i]);
        good[g] = (sensim_v4l){-1, -1, -1, -1};
    }
    for (uint32_t i = 0; i < p->nprism; i++) {
        sensim_v4d tilted[RG][3], flat[3] = {one, zero, zero};
        for (int g = 0; g < RG; g++) {
            sensim_v4d ci, si;
            memcpy(&ci, &c[i][4 * g], sizeof ci);
            memcpy(&si, &s[i][4 * g], sizeof si);
            tilted[g][0] = p->cos_wedge[i] * one, tilted[g][1] = p->sin_wedge[i] * ci;
            tilted[g][2] = p->sin_wedge[i] * si;
        }
        for (int g = 0; g < RG; g++)
            refract4(d[g], p->wedge[i] >= 0.0 ? tilted[g] : flat, 1.0, p->index[i], &good[g], i == 0);
        for (int g = 0; g < RG; g++)
            refract4(d[g], p->wedge[i] >= 0.0 ? flat : tilted[g], p->index[i], 1.0, &good[g], false);
    }
    for (int g = 0; g < RG; g++) {
        good[g] &= d[g][0] > 0.0;
        sensim_v4d x = d[g][0] * p->cos_bore - d[g][2] * p->sin_bore, y = d[g][1],
                   z = d[g][0] * p->sin_bore + d[g][2] * p->cos_bore;
        if (p->head_hz != 0.0) {
            sensim_v4d vc, vs;
            memcpy(&vc, &ch[4 * g], sizeof vc);
            memcpy(&vs, &sh[4 * g], sizeof vs);
            sensim_v4d xr = x * vc - y * vs;
            y = x * vs + y * vc;
            x = xr;
        }
        for (uint32_t k = 4 * (uint32_t)g; k < m && k < 4 * (uint32_t)g + 4; k++) {
            ok[k] = good[g][k % 4] != 0;
            if (ok[k])
                dir[3 * k] = (float)x[k % 4], dir[3 * k + 1] = (float)y[k % 4], dir[3 * k + 2] = (float)z[k % 4];
        }
    }
}

/* Anchor columns (every p->walk-th) take the angles from sin/cos of the
 * exact phase (sensim__risley_angles; mems_anchor for a MEMS pattern's
 * carriers); the columns after them turn the previous column's angles by
 * a rotation of the time between them: 5 ns instead of ~40 ns of libm per
 * prism and column. The walk starts from the anchor whatever column a
 * batch starts at, so a column's angles depend on the column alone (split
 * and thread invariant); its error after walk - 1 steps is ~1e-14 rad
 * (the test checks every shot against the closed form). The interval: 64
 * columns for a Risley head of one laser, whose 64-shot lanes (lidar.c)
 * then start on an anchor (mid40: 1.75 -> 1.71 ms a frame, the anchors'
 * sin, cos and phases were 2.7 % of it); 16 for more lasers (an avia lane
 * of 64 shots spans 10.7 columns: anchors 64 apart cost it 1.6 % in the
 * columns walked to a lane's first) and for MEMS. */
enum { WALK_ONE_LASER = 64, WALK = 16 };
_Static_assert((WALK_ONE_LASER & (WALK_ONE_LASER - 1)) == 0 && (WALK & (WALK - 1)) == 0,
               "walk_to() finds the anchor with a mask");

static void mems_anchor(const sensim_pattern *p, int64_t t, sensim_risley_state *st);

/* The exact angles at t: the prisms' (and head's), or a MEMS pattern's two
 * carriers (c/s[0]: 2π·h·t, c/s[1]: 2π·v·t + π/2). */
static inline __attribute__((always_inline)) void walk_anchor(const sensim_pattern *p, int64_t t,
                                                              sensim_risley_state *st, bool mems)
{
    if (mems)
        mems_anchor(p, t, st);
    else
        sensim__risley_angles(p, t, st);
}

/* *st turned from one column to the next, dt ns later (t: the new column's time). */
static inline __attribute__((always_inline)) void walk_step(const sensim_pattern *p, int64_t dt, int64_t t,
                                                            sensim_risley_state *st, bool mems)
{
    if (dt != p->walk_dt && dt != p->walk_dt + 1) { /* not a period apart (never, by construction): exact */
        walk_anchor(p, t, st, mems);
        return;
    }
    const int k = (int)(dt - p->walk_dt);
    const uint32_t n = mems ? 2 : p->nprism;
    for (uint32_t i = 0; i < n; i++) {
        double wc = p->walk_c[k][i], ws = p->walk_s[k][i], c0 = st->c[i];
        st->c[i] = c0 * wc - st->s[i] * ws;
        st->s[i] = st->s[i] * wc + c0 * ws;
    }
    if (!mems && p->head_hz != 0.0) { /* a still head (cos 1, sin 0, turned by cos 1, sin 0) keeps its bits */
        double wc = p->walk_c[k][n], ws = p->walk_s[k][n], c0 = st->ch;
        st->ch = c0 * wc - st->sh * ws;
        st->sh = st->sh * wc + c0 * ws;
    }
}

/* The angles of column q (time tq) into *st, which holds column *col (time
 * *tcol). @p mems: a constant at each call (the Risley and MEMS batches
 * each get their own copy, without the test). */
static inline __attribute__((always_inline)) void walk_to(const sensim_pattern *p, int64_t q, int64_t tq,
                                                          int64_t *col, int64_t *tcol, sensim_risley_state *st,
                                                          bool mems)
{
    const int64_t W = p->walk;  /* a power of two (WALK, WALK_ONE_LASER) */
    const int64_t a = q & -W; /* the anchor at or before q: q rounded down to a multiple of W, below 0 too
                               * (a division a column was 5 % of the batch's time on mid40) */
    if (q == a) {
        walk_anchor(p, tq, st, mems);
    } else if (*col == q - 1) {
        walk_step(p, tq - *tcol, tq, st, mems);
    } else {
        int64_t tp = sensim__pattern_column_time(p, a);
        walk_anchor(p, tp, st, mems);
        for (int64_t m = a + 1; m <= q; m++) {
            int64_t tm = m == q ? tq : sensim__pattern_column_time(p, m);
            walk_step(p, tm - tp, tm, st, mems);
            tp = tm;
        }
    }
    *col = q, *tcol = tq;
}

__extension__ typedef __int128 risley_i128;

void sensim__risley_batch(const sensim_pattern *p, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                          uint8_t *ok)
{
    int64_t col = INT64_MIN, tcol = 0;
    sensim_risley_state rs = {0};
    /* shot g0 + i is lane `lane` of column q, which fires at tq: stepped
     * from shot to shot (q * q_ps = 1000 tq + rq, 0 <= rq < 1000), the
     * exact sensim__pattern_column_time() without a division a shot */
    int64_t q = sensim__floordiv(g0, p->lanes), tq = sensim__pattern_column_time(p, q);
    int64_t rq = (int64_t)((risley_i128)q * p->q_ps - (risley_i128)1000 * tq);
    const int64_t step_t = p->q_ps / 1000, step_r = p->q_ps % 1000; /* q_ps > 0 */
    uint32_t lane = (uint32_t)(g0 - q * p->lanes);
    for (uint32_t i0 = 0; i0 < n; i0 += RL) {
        const uint32_t m = n - i0 < RL ? n - i0 : RL;
        double in[3][RL], c[SENSIM_MAX_PRISMS][RL], s[SENSIM_MAX_PRISMS][RL], hc[RL], hs[RL];
        for (uint32_t k = 0; k < m; k++) {
            const uint32_t i = i0 + k;
            if (i > 0 && ++lane == p->lanes) { /* the next column */
                lane = 0, q++, tq += step_t, rq += step_r;
                if (rq >= 1000)
                    tq++, rq -= 1000;
            }
            t[i] = tq;
            if (q != col) /* every lane of a column shares its time */
                walk_to(p, q, tq, &col, &tcol, &rs, false);
            ch[i] = (uint16_t)lane;
            for (int a = 0; a < 3; a++)
                in[a][k] = p->laser_dir[3 * lane + a];
            for (uint32_t j = 0; j < p->nprism; j++)
                c[j][k] = rs.c[j], s[j][k] = rs.s[j];
            hc[k] = rs.ch, hs[k] = rs.sh;
        }
        for (uint32_t k = m; k < RL; k++) { /* idle lanes: copies of the first */
            for (int a = 0; a < 3; a++)
                in[a][k] = in[a][0];
            for (uint32_t j = 0; j < p->nprism; j++)
                c[j][k] = c[j][0], s[j][k] = s[j][0];
            hc[k] = hc[0], hs[k] = hs[0];
        }
        risley_dirs(p, (const double(*)[RL])in, (const double(*)[RL])c, (const double(*)[RL])s, hc, hs, m,
                    &dir[3 * i0], &ok[i0]);
    }
}

sensim_status sensim__risley_init(sensim_pattern *p, const sensim_lidar_desc *d)
{
    const sensim_risley_desc *r = &d->risley;
    if (r->prism_count < 1 || r->prism_count > SENSIM_MAX_PRISMS)
        return RANGE_FAIL("lidar: prism_count = %u outside 1..%d", r->prism_count, SENSIM_MAX_PRISMS);
    p->nprism = r->prism_count;
    for (uint32_t i = 0; i < p->nprism; i++) {
        if (!isfinite(r->wedge_rad[i]) || !isfinite(r->refractive_index[i]) || !isfinite(r->rotation_hz[i]) ||
            !isfinite(r->phase_rad[i]))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: prism %u has a NaN or infinite parameter", i);
        if (!(fabsf(r->wedge_rad[i]) < (float)(80 * DEG)))
            return RANGE_FAIL("lidar: prism %u wedge = %g rad outside (-80, 80) deg", i, (double)r->wedge_rad[i]);
        if (!(r->refractive_index[i] >= 1.0f && r->refractive_index[i] <= 5.0f))
            return RANGE_FAIL("lidar: prism %u refractive index = %g outside [1, 5]", i,
                              (double)r->refractive_index[i]);
        if (fabs(r->rotation_hz[i]) > 1e5)
            return RANGE_FAIL("lidar: prism %u rotation = %g Hz too fast", i, r->rotation_hz[i]);
        p->wedge[i] = r->wedge_rad[i];
        p->cos_wedge[i] = cos(fabs(p->wedge[i]));
        p->sin_wedge[i] = sin(fabs(p->wedge[i]));
        p->index[i] = r->refractive_index[i];
        p->rot_hz[i] = r->rotation_hz[i];
        p->phase[i] = r->phase_rad[i];
    }
    if (!isfinite(r->boresight_elevation_rad) || !isfinite(r->head_spin_hz))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: boresight_elevation or head_spin is not finite");
    if (fabs(r->boresight_elevation_rad) >= SENSIM_PI / 2 || fabs(r->head_spin_hz) > 1e4)
        return RANGE_FAIL("lidar: boresight_elevation %g rad or head_spin %g Hz out of range",
                          r->boresight_elevation_rad, r->head_spin_hz);
    p->bore_el = r->boresight_elevation_rad;
    p->cos_bore = cos(p->bore_el);
    p->sin_bore = sin(p->bore_el);
    p->head_hz = r->head_spin_hz;
    p->laser_dir = malloc(p->channels * 3 * sizeof(float));
    if (!p->laser_dir)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "lidar: cannot allocate lasers");
    for (uint32_t l = 0; l < p->channels; l++) {
        double e = d->elevation_rad ? d->elevation_rad[l] : 0.0;
        double a = d->azimuth_offset_rad ? d->azimuth_offset_rad[l] : 0.0;
        if (!isfinite(e) || !isfinite(a))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "lidar: laser %u offset is not finite", l);
        if (fabs(e) > 45 * DEG || fabs(a) > 45 * DEG)
            return RANGE_FAIL("lidar: laser %u offset (%g, %g) rad beyond 45 deg", l, a, e);
        p->laser_dir[3 * l] = (float)(cos(e) * cos(a));
        p->laser_dir[3 * l + 1] = (float)(cos(e) * sin(a));
        p->laser_dir[3 * l + 2] = (float)sin(e);
    }
    p->walk_dt = p->q_ps / 1000;
    p->walk = p->lanes == 1 ? WALK_ONE_LASER : WALK;
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i <= p->nprism; i++) {
            double hz = i < p->nprism ? p->rot_hz[i] : p->head_hz, a = turn(hz, p->walk_dt + k);
            p->walk_c[k][i] = cos(a), p->walk_s[k][i] = sin(a);
        }
    return SENSIM_OK;
}

/* ---- MEMS raster (PCSim rs_m1 layout, reference §3) ----
 * Ten sub-patterns fire together (channels 0..9). Carriers, in degrees:
 * X = 12.5·cos(2π·h·t), Yu = 9.25·sin(2π·v·t + π/2), Yl = 7.25·sin(2π·v·t + π/2).
 * Each sub-pattern shifts (X, Y) and tilts it with [[cos a, sin a], [-sin b, cos b]]
 * (not orthonormal: the outer columns fan out, as in PCSim). h (UE yaw,
 * positive right) becomes azimuth -h; v (UE pitch, positive up) elevation. */
static const struct {
    double dx, dy;
    int upper;      /* Yu or Yl */
    double a, b;    /* tilt angles, units of 0.01π */
} mems_sub[10] = {
    {0, 3.25, 1, 0, 0},   {0, -5.25, 0, 0, 0},  {-24, 2.25, 1, -1, 1}, {-24, -6.25, 0, -1, 1},
    {24, 2.25, 1, 1, -1}, {24, -6.25, 0, 1, -1}, {-48, 0.25, 1, -2, 2}, {-48, -8.25, 0, -2, 2},
    {48, 0.25, 1, 2, -2}, {48, -8.25, 0, 2, -2},
};

void sensim__mems_carriers(const sensim_pattern *p, int64_t t_ns, double *X, double *s)
{
    *X = 12.5 * cos(turn(p->mems_h_hz, t_ns));
    *s = sin(turn(p->mems_v_hz, t_ns) + SENSIM_PI / 2);
}

void sensim__mems_dir(const sensim_pattern *p, uint32_t c, int64_t t_ns, float dir[3])
{
    double X, s;
    sensim__mems_carriers(p, t_ns, &X, &s);
    sensim__mems_dir_at(c, X, s, dir);
}

/* cos/sin of the tilt angles k·0.01π for k = -2 .. 2 */
static const double tilt_cos[5] = {0.99802672842827156, 0.99950656036573160, 1.0, 0.99950656036573160,
                                   0.99802672842827156};
static const double tilt_sin[5] = {-0.06279051952931337, -0.03141075907812829, 0.0, 0.03141075907812829,
                                   0.06279051952931337};

static inline void mems_angles(uint32_t c, double X, double s, double *az, double *el)
{
    double x = X + mems_sub[c].dx, y = (mems_sub[c].upper ? 9.25 : 7.25) * s + mems_sub[c].dy;
    int a = (int)mems_sub[c].a + 2, b = (int)mems_sub[c].b + 2;
    double h = x * tilt_cos[a] + y * tilt_sin[a], v = -x * tilt_sin[b] + y * tilt_cos[b];
    *az = -h * DEG, *el = v * DEG;
}

void sensim__mems_angles(uint32_t c, double X, double s, double *az, double *el)
{
    mems_angles(c, X, s, az, el);
}

void sensim__mems_dirs(const double *az, const double *el, uint32_t n, float *dir)
{
    enum { CH = 64 };
    double ang[2 * CH], sn[2 * CH], cs[2 * CH];
    for (uint32_t i0 = 0; i0 < n; i0 += CH) {
        const uint32_t m = n - i0 < CH ? n - i0 : CH;
        memcpy(ang, az + i0, m * sizeof *ang);
        memcpy(ang + m, el + i0, m * sizeof *ang);
        sensim__sincos_n(ang, sn, cs, 2 * m);
        for (uint32_t k = 0; k < m; k++) {
            float *d = &dir[3 * (i0 + k)];
            d[0] = (float)(cs[m + k] * cs[k]);
            d[1] = (float)(cs[m + k] * sn[k]);
            d[2] = (float)sn[m + k];
        }
    }
}

void sensim__mems_dir_at(uint32_t c, double X, double s, float dir[3])
{
    double az, el;
    sensim__mems_angles(c, X, s, &az, &el);
    sensim__mems_dirs(&az, &el, 1, dir);
}

/* The carriers' exact angles at t into st->c/s[0] (2π·h·t) and [1]
 * (2π·v·t + π/2): X = 12.5·c[0] and s = s[1] are the bits of
 * sensim__mems_carriers(). The batch walks them from column to column
 * between anchors (walk_to), as the Risley batch walks its prism angles. */
static void mems_anchor(const sensim_pattern *p, int64_t t, sensim_risley_state *st)
{
    double a = turn(p->mems_h_hz, t), b = turn(p->mems_v_hz, t) + SENSIM_PI / 2;
    st->c[0] = cos(a), st->s[0] = sin(a);
    st->c[1] = cos(b), st->s[1] = sin(b);
}

void sensim__mems_batch(const sensim_pattern *p, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                        uint8_t *ok)
{
    enum { CH = 128 };
    double az[CH], el[CH];
    /* shot g0 + i is lane `lane` of column q: stepped from shot to shot,
     * the column's time and carriers computed once (the lanes of a column
     * fire together) */
    int64_t q = sensim__floordiv(g0, p->lanes), tq = sensim__pattern_column_time(p, q);
    uint32_t lane = (uint32_t)(g0 - q * p->lanes);
    int64_t col = INT64_MIN, tcol = 0;
    sensim_risley_state w = {0};
    walk_to(p, q, tq, &col, &tcol, &w, true);
    for (uint32_t i0 = 0; i0 < n; i0 += CH) { /* angles of a chunk, then its sines and cosines at once */
        const uint32_t m = n - i0 < CH ? n - i0 : CH;
        for (uint32_t k = 0; k < m; k++) {
            const uint32_t i = i0 + k;
            if (i > 0 && ++lane == p->lanes) {
                lane = 0, q++;
                tq = sensim__pattern_column_time(p, q);
                walk_to(p, q, tq, &col, &tcol, &w, true);
            }
            t[i] = tq;
            ch[i] = (uint16_t)lane;
            mems_angles(lane, 12.5 * w.c[0], w.s[1], &az[k], &el[k]);
            ok[i] = 1;
        }
        sensim__mems_dirs(az, el, m, &dir[3 * i0]);
    }
}

sensim_status sensim__mems_init(sensim_pattern *p, const sensim_lidar_desc *d)
{
    if (p->channels != 10)
        return RANGE_FAIL("lidar: MEMS pattern needs channel_count = 10 (its sub-patterns), got %u", p->channels);
    double h = d->mems.h_freq_hz == 0.0 ? 7200.0 : d->mems.h_freq_hz;
    double v = d->mems.v_freq_hz == 0.0 ? 100.0 : d->mems.v_freq_hz;
    if (!isfinite(h) || !isfinite(v) || h <= 0 || v <= 0 || h > 1e6 || v > 1e6)
        return RANGE_FAIL("lidar: MEMS carrier frequencies %g, %g Hz outside (0, 1e6]", h, v);
    p->mems_h_hz = h;
    p->mems_v_hz = v;
    p->walk_dt = p->q_ps / 1000;
    p->walk = WALK;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++) {
            double a = turn(i ? v : h, p->walk_dt + k);
            p->walk_c[k][i] = cos(a), p->walk_s[k][i] = sin(a);
        }
    return SENSIM_OK;
}
