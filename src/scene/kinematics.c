/* Platform kinematics from pose keys (sensim/nav.h): linear and spline
 * interpolation with their first and second derivatives. */
#include "motion.h"
#include "../core/vmath.h"

#include <math.h>
#include <string.h>

/* ---- quaternions (w, x, y, z), rotation vectors (products and logs: core/pose.c) ---- */

/* The rotation exp(phi) as a quaternion. sin and cos from SLEEF
 * (sensim__sincos_n, 1 ulp, the same bits on every CPU and in seg_pose4's
 * four lanes): a quarter of glibc's cost where poses are evaluated four at
 * a time (CHANGES.md). */
static void qexp(const double phi[3], double q[4])
{
    double th = sqrt(phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2]);
    double half = 0.5 * th, sn, cs;
    sensim__sincos_n(&half, &sn, &cs, 1);
    double k = th < 1e-8 ? 0.5 - th * th / 48.0 : sn / th;
    q[0] = cs;
    for (int i = 0; i < 3; i++)
        q[i + 1] = k * phi[i];
}

static void cross(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Jr(φ)·v (inv = 0) or Jr(φ)⁻¹·v (inv = 1): the right Jacobian of SO(3). */
static void jr_apply(const double phi[3], const double v[3], int inv, double o[3])
{
    double th2 = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2], th = sqrt(th2), c1, c2, a[3], b[3];
    if (!inv) {
        c1 = th < 1e-4 ? 0.5 - th2 / 24.0 : (1 - cos(th)) / th2;
        c2 = th < 1e-4 ? 1.0 / 6.0 - th2 / 120.0 : (th - sin(th)) / (th2 * th);
        c1 = -c1;
    } else {
        c1 = 0.5;
        c2 = th < 1e-4 ? 1.0 / 12.0 + th2 / 720.0 : 1.0 / th2 - (1 + cos(th)) / (2 * th * sin(th));
    }
    cross(phi, v, a);
    cross(phi, a, b);
    for (int i = 0; i < 3; i++)
        o[i] = v[i] + c1 * a[i] + c2 * b[i];
}

/* ---- keys ---- */

static sensim_status causal_at(const sensim_pose_key *keys, uint64_t n, uint64_t lo, int64_t t, sensim_kinematics *out);

typedef struct kkey {
    double t;      /* s, relative to the segment start */
    double p[3];
    double q[4];
} kkey;

static sensim_status load_key(const sensim_pose_key *keys, uint64_t i, int64_t t0, kkey *k)
{
    char what[64];
    snprintf(what, sizeof what, "kinematics: key %llu pose", (unsigned long long)i);
    sensim_status st = sensim__check_pose(keys[i].pose, what);
    if (st != SENSIM_OK || (st = sensim__check_time(keys[i].t_ns, "kinematics: key time")) != SENSIM_OK)
        return st;
    if (!sensim__mat4_is_rigid(keys[i].pose))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "kinematics: key %llu pose is not rigid", (unsigned long long)i);
    k->t = (double)(keys[i].t_ns - t0) * 1e-9;
    memcpy(k->p, &keys[i].pose[12], sizeof k->p);
    sensim__quat_from_mat(keys[i].pose, k->q);
    return SENSIM_OK;
}

/* Align @p b's sign with @p a (the same rotation, the nearer hemisphere). */
static void qalign(const double a[4], double b[4])
{
    if (a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0)
        for (int i = 0; i < 4; i++)
            b[i] = -b[i];
}

/* Fornberg's weights: w[j][d] for the d-th derivative (d = 0..2) at z of the
 * polynomial through nodes x[0..m). */
static void fornberg(const double *x, int m, double z, double w[][3])
{
    double c1 = 1, c4 = x[0] - z;
    memset(w, 0, (size_t)m * sizeof w[0]);
    w[0][0] = 1;
    for (int i = 1; i < m; i++) {
        int mn = i < 2 ? i : 2;
        double c2 = 1, c5 = c4;
        c4 = x[i] - z;
        for (int j = 0; j < i; j++) {
            double c3 = x[i] - x[j];
            c2 *= c3;
            if (j == i - 1) {
                for (int d = mn; d >= 1; d--)
                    w[i][d] = c1 * (d * w[i - 1][d - 1] - c5 * w[i - 1][d]) / c2;
                w[i][0] = -c1 * c5 * w[i - 1][0] / c2;
            }
            for (int d = mn; d >= 1; d--)
                w[j][d] = (c4 * w[j][d] - d * w[j][d - 1]) / c3;
            w[j][0] = c4 * w[j][0] / c3;
        }
        c1 = c2;
    }
}

/* Velocity, acceleration and body rate at key m of k[0..n): derivatives at
 * its time of the polynomial (degree <= 4) through the 5 nearest keys (all
 * keys when fewer), positions and rotation vectors log(q_m⁻¹q_j). Exact for
 * motion polynomial to degree 4, constant velocity and constant rotation. */
static void key_derivs(const kkey *k, int n, int m, double v[3], double a[3], double w[3])
{
    int cnt = n < 5 ? n : 5, start = m - 2;
    if (start < 0)
        start = 0;
    if (start + cnt > n)
        start = n - cnt;
    double x[5], wt[5][3];
    for (int j = 0; j < cnt; j++)
        x[j] = k[start + j].t;
    fornberg(x, cnt, k[m].t, wt);
    for (int i = 0; i < 3; i++)
        v[i] = a[i] = w[i] = 0;
    for (int j = 0; j < cnt; j++) {
        const kkey *kj = &k[start + j];
        double phi[3];
        sensim__quat_log_rel(k[m].q, kj->q, phi);
        for (int i = 0; i < 3; i++) {
            v[i] += wt[j][1] * kj->p[i];
            a[i] += cnt > 2 ? wt[j][2] * kj->p[i] : 0;
            w[i] += wt[j][1] * phi[i];
        }
    }
}

sensim_status sensim_kinematics_at(const sensim_pose_key *keys, uint64_t n, int32_t interp, int64_t t,
                                   sensim_kinematics *out)
{
    if (!keys || !out || n == 0)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_kinematics_at: NULL argument or no keys");
    if (interp != SENSIM_INTERP_LINEAR && interp != SENSIM_INTERP_SPLINE && interp != SENSIM_INTERP_CAUSAL)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_kinematics_at: interpolation %d unknown", interp);
    memset(out, 0, sizeof *out);
    /* segment [lo, lo + 1] holding t; outside the keys, the end key held */
    uint64_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (keys[mid].t_ns <= t)
            lo = mid;
        else
            hi = mid;
    }
    if (interp == SENSIM_INTERP_CAUSAL)
        return causal_at(keys, n, lo, t, out);
    if (n == 1 || t < keys[0].t_ns || t > keys[n - 1].t_ns) {
        uint64_t e = n == 1 || t < keys[0].t_ns ? 0 : n - 1;
        kkey k;
        sensim_status st = load_key(keys, e, keys[e].t_ns, &k);
        if (st == SENSIM_OK)
            sensim__mat_from_quat(k.q, k.p, out->pose);
        return st;
    }
    if (lo == n - 1) /* exactly on the last key: the end of the last segment */
        lo = n - 2;
    /* keys lo - 4 .. lo + 5, those that exist (each key's stencil: its 5 nearest) */
    kkey k[10];
    int first = lo >= 4 ? -4 : -(int)lo, last = lo + 5 < n ? 5 : (int)(n - 1 - lo), m = 0;
    for (int d = first; d <= last; d++, m++) {
        sensim_status st = load_key(keys, lo + (uint64_t)(int64_t)d, keys[lo].t_ns, &k[m]);
        if (st != SENSIM_OK)
            return st;
        if (m > 0) {
            if (!(k[m].t > k[m - 1].t))
                return sensim__fail(SENSIM_ERR_TIME_ORDER, "kinematics: key %llu time is not after the previous key",
                                    (unsigned long long)(lo + (uint64_t)(int64_t)d));
            qalign(k[m - 1].q, k[m].q);
        }
    }
    const int i0 = -first, i1 = i0 + 1; /* the segment's keys in k[] */
    const double T = k[i1].t, s = (double)(t - keys[lo].t_ns) * 1e-9 / T;
    double phi_all[3];
    sensim__quat_log_rel(k[i0].q, k[i1].q, phi_all);
    if (interp == SENSIM_INTERP_LINEAR) {
        double q[4], p[3], ph[3];
        for (int i = 0; i < 3; i++) {
            p[i] = k[i0].p[i] + s * (k[i1].p[i] - k[i0].p[i]);
            out->velocity[i] = (k[i1].p[i] - k[i0].p[i]) / T;
            out->angular_velocity[i] = phi_all[i] / T;
            ph[i] = s * phi_all[i];
        }
        qexp(ph, q);
        double qq[4];
        sensim__quat_mul(k[i0].q, q, qq);
        sensim__mat_from_quat(qq, p, out->pose);
        return SENSIM_OK;
    }
    double v0[3], a0[3], w0[3], v1[3], a1[3], w1[3];
    key_derivs(k, m, i0, v0, a0, w0);
    key_derivs(k, m, i1, v1, a1, w1);
    const double s2 = s * s, s3 = s2 * s, s4 = s3 * s, s5 = s4 * s;
    const double h[6] = {1 - 10 * s3 + 15 * s4 - 6 * s5, s - 6 * s3 + 8 * s4 - 3 * s5,
                         0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5, 0.5 * s3 - s4 + 0.5 * s5,
                         -4 * s3 + 7 * s4 - 3 * s5, 10 * s3 - 15 * s4 + 6 * s5};
    const double dh[6] = {-30 * s2 + 60 * s3 - 30 * s4, 1 - 18 * s2 + 32 * s3 - 15 * s4,
                          s - 4.5 * s2 + 6 * s3 - 2.5 * s4, 1.5 * s2 - 4 * s3 + 2.5 * s4,
                          -12 * s2 + 28 * s3 - 15 * s4, 30 * s2 - 60 * s3 + 30 * s4};
    const double ddh[6] = {-60 * s + 180 * s2 - 120 * s3, -36 * s + 96 * s2 - 60 * s3, 1 - 9 * s + 18 * s2 - 10 * s3,
                           3 * s - 12 * s2 + 10 * s3, -24 * s + 84 * s2 - 60 * s3, 60 * s - 180 * s2 + 120 * s3};
    double p[3];
    for (int i = 0; i < 3; i++) {
        const double c[6] = {k[i0].p[i], v0[i] * T, a0[i] * T * T, a1[i] * T * T, v1[i] * T, k[i1].p[i]};
        double x = 0, dx = 0, ddx = 0;
        for (int j = 0; j < 6; j++)
            x += h[j] * c[j], dx += dh[j] * c[j], ddx += ddh[j] * c[j];
        p[i] = x;
        out->velocity[i] = dx / T;
        out->acceleration[i] = ddx / (T * T);
    }
    /* rotation: cubic Hermite in φ, end rates from the key body rates */
    double m0[3], m1[3], wT[3], phi[3], dphi[3];
    for (int i = 0; i < 3; i++)
        m0[i] = w0[i] * T, wT[i] = w1[i] * T;
    jr_apply(phi_all, wT, 1, m1);
    const double H10 = s3 - 2 * s2 + s, H01 = -2 * s3 + 3 * s2, H11 = s3 - s2;
    const double dH10 = 3 * s2 - 4 * s + 1, dH01 = -6 * s2 + 6 * s, dH11 = 3 * s2 - 2 * s;
    for (int i = 0; i < 3; i++) {
        phi[i] = H10 * m0[i] + H01 * phi_all[i] + H11 * m1[i];
        dphi[i] = (dH10 * m0[i] + dH01 * phi_all[i] + dH11 * m1[i]) / T;
    }
    jr_apply(phi, dphi, 0, out->angular_velocity);
    double dq[4], q[4];
    qexp(phi, dq);
    sensim__quat_mul(k[i0].q, dq, q);
    sensim__mat_from_quat(q, p, out->pose);
    return SENSIM_OK;
}

/* ---- the rig's causal motion model (SENSIM_INTERP_CAUSAL) ---- */

void sensim__mkey_derive(sensim__mkey *k, uint32_t n, uint32_t given)
{
    sensim__mkey *m = &k[n - 1];
    const int cnt = n < 5 ? (int)n : 5;
    const sensim__mkey *s = &k[n - (uint32_t)cnt];
    double x[5] = {0}, wt[5][3], v[3] = {0, 0, 0}, a[3] = {0, 0, 0}, w[3] = {0, 0, 0}, al[3] = {0, 0, 0};
    for (int j = 0; j < cnt; j++)
        x[j] = (double)(s[j].t - m->t) * 1e-9;
    fornberg(x, cnt, 0.0, wt);
    for (int j = 0; j < cnt; j++) {
        double phi[3];
        sensim__quat_log_rel(m->q, s[j].q, phi);
        for (int i = 0; i < 3; i++) {
            v[i] += wt[j][1] * s[j].p[i];
            w[i] += wt[j][1] * phi[i];
            if (cnt > 2) { /* a 2-point stencil's second derivative is not defined: 0 */
                a[i] += wt[j][2] * s[j].p[i];
                al[i] += wt[j][2] * phi[i]; /* ω̇ = φ̈ at φ = 0 (J_r(0) = I, its derivative ⊥ φ̇) */
            }
        }
    }
    if (!(given & SENSIM__MK_V))
        memcpy(m->v, v, sizeof v);
    if (!(given & SENSIM__MK_A))
        memcpy(m->a, a, sizeof a);
    if (!(given & SENSIM__MK_W))
        memcpy(m->w, w, sizeof w);
    if (!(given & SENSIM__MK_AL))
        memcpy(m->al, al, sizeof al);
    m->given = given;
    if (n == 2) {
        if (!(k[0].given & SENSIM__MK_V))
            memcpy(k[0].v, m->v, sizeof v);
        if (!(k[0].given & SENSIM__MK_W)) /* the same rotation vector, seen from either end */
            memcpy(k[0].w, m->w, sizeof w);
    }
}

/* The quintic Hermite basis at s (values, and derivatives when d is set): weights of
 * (x0, x0'·T, x0''·T², x1''·T², x1'·T, x1). */
static void quintic_basis(double s, double h[6], double dh[6], double ddh[6])
{
    const double s2 = s * s, s3 = s2 * s, s4 = s3 * s, s5 = s4 * s;
    h[0] = 1 - 10 * s3 + 15 * s4 - 6 * s5, h[1] = s - 6 * s3 + 8 * s4 - 3 * s5;
    h[2] = 0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5, h[3] = 0.5 * s3 - s4 + 0.5 * s5;
    h[4] = -4 * s3 + 7 * s4 - 3 * s5, h[5] = 10 * s3 - 15 * s4 + 6 * s5;
    if (!dh)
        return;
    dh[0] = -30 * s2 + 60 * s3 - 30 * s4, dh[1] = 1 - 18 * s2 + 32 * s3 - 15 * s4;
    dh[2] = s - 4.5 * s2 + 6 * s3 - 2.5 * s4, dh[3] = 1.5 * s2 - 4 * s3 + 2.5 * s4;
    dh[4] = -12 * s2 + 28 * s3 - 15 * s4, dh[5] = 30 * s2 - 60 * s3 + 30 * s4;
    ddh[0] = -60 * s + 180 * s2 - 120 * s3, ddh[1] = -36 * s + 96 * s2 - 60 * s3;
    ddh[2] = 1 - 9 * s + 18 * s2 - 10 * s3, ddh[3] = 3 * s - 12 * s2 + 10 * s3;
    ddh[4] = -24 * s + 84 * s2 - 60 * s3, ddh[5] = 60 * s - 180 * s2 + 120 * s3;
}

/* Segment [a, b] at t (a->t <= t <= b->t): position quintic in x, rotation
 * q_a·exp(φ) with φ quintic from 0 (rate ω_a, acceleration α_a) to
 * log(q_a⁻¹q_b) (rate J_r⁻¹ω_b, acceleration J_r⁻¹α_b: the J̇_r·φ̇ term,
 * O(|φ|·|ω|²), is left out, so ω and α are exact at both keys). With @p out
 * NULL only the pose. */
void sensim__mseg_setup(const sensim__mkey *a, const sensim__mkey *b, sensim__mseg *g)
{
    if (b->jump) { /* nothing interpolates across a jump (mkey_at holds a); no division by a zero length */
        memset(g, 0, sizeof *g);
        return;
    }
    const double T = (double)(b->t - a->t) * 1e-9;
    double wT[3], aT[3];
    g->T = T;
    sensim__quat_log_rel(a->q, b->q, g->Phi);
    for (int i = 0; i < 3; i++)
        wT[i] = b->w[i] * T, aT[i] = b->al[i] * T * T;
    jr_apply(g->Phi, wT, 1, g->m1);
    jr_apply(g->Phi, aT, 1, g->n1);
    for (int i = 0; i < 3; i++) {
        const double c[6] = {a->p[i], a->v[i] * T, a->a[i] * T * T, b->a[i] * T * T, b->v[i] * T, b->p[i]};
        const double r[6] = {0, a->w[i] * T, a->al[i] * T * T, g->n1[i], g->m1[i], g->Phi[i]};
        memcpy(g->c[i], c, sizeof c);
        memcpy(g->r[i], r, sizeof r);
    }
}

/* The state at t on the segment a -> b; @p g: its set-up, or NULL (made here). */
static void seg_eval(const sensim__mkey *a, const sensim__mkey *b, const sensim__mseg *g, int64_t t, double pose[16],
                     sensim_kinematics *out)
{
    sensim__mseg own;
    if (!g) {
        sensim__mseg_setup(a, b, &own);
        g = &own;
    }
    const double T = g->T, s = (double)(t - a->t) / (double)(b->t - a->t);
    double h[6], dh[6], ddh[6];
    quintic_basis(s, h, out ? dh : NULL, ddh);
    double p[3], phi[3], dphi[3], ddphi[3];
    for (int i = 0; i < 3; i++) {
        const double *c = g->c[i], *r = g->r[i];
        double x = 0, f = 0;
        for (int j = 0; j < 6; j++)
            x += h[j] * c[j], f += h[j] * r[j];
        p[i] = x, phi[i] = f;
        if (out) {
            double dx = 0, ddx = 0, df = 0, ddf = 0;
            for (int j = 0; j < 6; j++)
                dx += dh[j] * c[j], ddx += ddh[j] * c[j], df += dh[j] * r[j], ddf += ddh[j] * r[j];
            out->velocity[i] = dx / T, out->acceleration[i] = ddx / (T * T);
            dphi[i] = df / T, ddphi[i] = ddf / (T * T);
        }
    }
    double dq[4], q[4];
    qexp(phi, dq);
    sensim__quat_mul(a->q, dq, q);
    sensim__mat_from_quat(q, p, pose);
    if (out) {
        jr_apply(phi, dphi, 0, out->angular_velocity);
        jr_apply(phi, ddphi, 0, out->angular_acceleration);
    }
}

/* The segment of k[0..n) holding t, or -1 (before the first key) / n - 1 (at or after the last). */
static int64_t mkey_find(const sensim__mkey *k, uint32_t n, int64_t t)
{
    if (t < k[0].t)
        return -1;
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (k[mid].t <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void mkey_hold(const sensim__mkey *e, double pose[16], sensim_kinematics *out)
{
    sensim__mat_from_quat(e->q, e->p, pose);
    if (out) {
        memcpy(out->velocity, e->v, sizeof e->v);
        memcpy(out->acceleration, e->a, sizeof e->a);
        memcpy(out->angular_velocity, e->w, sizeof e->w);
        memcpy(out->angular_acceleration, e->al, sizeof e->al);
    }
}

/* @p g[0 .. ng): the set-ups of the first ng segments (the others made when needed). */
static void mkey_at(const sensim__mkey *k, uint32_t n, const sensim__mseg *g, uint32_t ng, int64_t t, double pose[16],
                    sensim_kinematics *out)
{
    int64_t i = mkey_find(k, n, t);
    /* on a key (or outside), or before a jump (the old segment ends at its last key): that key, exactly */
    if (i < 0 || i == (int64_t)n - 1 || k[i].t == t || k[i + 1].jump)
        mkey_hold(&k[i < 0 ? 0 : i], pose, out);
    else
        seg_eval(&k[i], &k[i + 1], i < (int64_t)ng ? &g[i] : NULL, t, pose, out);
}

/* The pose part of seg_eval() at four times of one segment a -> b set up in
 * @p g, lane by lane the same operations in the same order (sin and cos
 * of the four half angles from one SLEEF call, whose bits do not depend on
 * how many arguments it takes; vector products and sums round as the
 * scalar ones do): the same bits. Lanes from @p m on repeat lane 0. @p P:
 * the four poses, entry by entry (P[e][lane]). */
SENSIM_AVX_CLONES static void seg_pose4(const sensim__mkey *a, const sensim__mkey *b, const sensim__mseg *g,
                                        const int64_t t[4], uint32_t m, sensim_v4d P[16])
{
    sensim_v4d s;
    for (int l = 0; l < 4; l++)
        s[l] = (double)(t[l < (int)m ? l : 0] - a->t);
    s = s / (double)(b->t - a->t);
    const sensim_v4d s2 = s * s, s3 = s2 * s, s4 = s3 * s, s5 = s4 * s;
    sensim_v4d h[6];
    h[0] = 1 - 10 * s3 + 15 * s4 - 6 * s5, h[1] = s - 6 * s3 + 8 * s4 - 3 * s5;
    h[2] = 0.5 * s2 - 1.5 * s3 + 1.5 * s4 - 0.5 * s5, h[3] = 0.5 * s3 - s4 + 0.5 * s5;
    h[4] = -4 * s3 + 7 * s4 - 3 * s5, h[5] = 10 * s3 - 15 * s4 + 6 * s5;
    sensim_v4d p[3], phi[3];
    for (int i = 0; i < 3; i++) {
        const double *c = g->c[i], *r = g->r[i];
        sensim_v4d x = {0, 0, 0, 0}, f = {0, 0, 0, 0};
        for (int j = 0; j < 6; j++)
            x += h[j] * c[j], f += h[j] * r[j];
        p[i] = x, phi[i] = f;
    }
    /* qexp(phi) */
    const sensim_v4d th = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2];
    sensim_v4d rt, k, dq[4];
    for (int l = 0; l < 4; l++)
        rt[l] = __builtin_sqrt(th[l]);
    double half[4], sn[4], cs[4];
    for (int l = 0; l < 4; l++)
        half[l] = 0.5 * rt[l < (int)m ? l : 0];
    sensim__sincos_n(half, sn, cs, 4);
    for (int l = 0; l < 4; l++) {
        const double tl = rt[l < (int)m ? l : 0];
        k[l] = tl < 1e-8 ? 0.5 - tl * tl / 48.0 : sn[l] / tl;
        dq[0][l] = cs[l];
    }
    for (int i = 0; i < 3; i++)
        dq[i + 1] = k * phi[i];
    /* sensim__quat_mul(a->q, dq) */
    const double *aq = a->q;
    sensim_v4d q[4];
    q[0] = aq[0] * dq[0] - aq[1] * dq[1] - aq[2] * dq[2] - aq[3] * dq[3];
    q[1] = aq[0] * dq[1] + aq[1] * dq[0] + aq[2] * dq[3] - aq[3] * dq[2];
    q[2] = aq[0] * dq[2] - aq[1] * dq[3] + aq[2] * dq[0] + aq[3] * dq[1];
    q[3] = aq[0] * dq[3] + aq[1] * dq[2] - aq[2] * dq[1] + aq[3] * dq[0];
    sensim__mat_from_quat4(q, p, P);
}

void sensim__mkey_pose4(const sensim__mkey *k, uint32_t n, const sensim__mseg *g, uint32_t ng, const int64_t t[4],
                        uint32_t m, sensim_v4d P[16])
{
    int64_t i = mkey_find(k, n, t[0]);
    bool one = i >= 0 && i < (int64_t)n - 1 && i < (int64_t)ng && !k[i + 1].jump;
    for (uint32_t l = 0; l < m && one; l++)
        one = t[l] > k[i].t && t[l] < k[i + 1].t; /* inside the segment, not on a key */
    if (one) {
        seg_pose4(&k[i], &k[i + 1], &g[i], t, m, P);
        return;
    }
    for (uint32_t l = 0; l < 4; l++) { /* one at a time */
        double o[16];
        mkey_at(k, n, g, ng, t[l < m ? l : 0], o, NULL);
        for (int e = 0; e < 16; e++)
            P[e][l] = o[e];
    }
}

void sensim__mkey_eval(const sensim__mkey *k, uint32_t n, int64_t t, sensim_kinematics *out)
{
    memset(out, 0, sizeof *out);
    mkey_at(k, n, NULL, 0, t, out->pose, out);
}

void sensim__mkey_pose(const sensim__mkey *k, uint32_t n, const sensim__mseg *g, uint32_t ng, int64_t t,
                       double out[16])
{
    mkey_at(k, n, g, ng, t, out, NULL);
}

/* SENSIM_INTERP_CAUSAL over a caller's key list (@p lo: the last key at or
 * before t, or 0): the segment's two keys with their derivatives from the up
 * to 4 keys before each. */
static sensim_status causal_at(const sensim_pose_key *keys, uint64_t n, uint64_t lo, int64_t t, sensim_kinematics *out)
{
    if (t < keys[0].t_ns || t > keys[n - 1].t_ns) { /* as the other models: the end pose held, at rest */
        kkey kk;
        sensim_status st = load_key(keys, t < keys[0].t_ns ? 0 : n - 1, 0, &kk);
        if (st == SENSIM_OK)
            sensim__mat_from_quat(kk.q, kk.p, out->pose);
        return st;
    }
    uint64_t last = (lo == n - 1 || keys[lo].t_ns == t) ? lo : lo + 1;
    /* the first key of a segment (the first of all, or a jump: two keys at one time) takes the
     * next key's velocity (sensim__mkey_derive) */
    if (last + 1 < n && (last == 0 || keys[last - 1].t_ns == keys[last].t_ns))
        last++;
    uint64_t first = last >= 5 ? last - 5 : 0;
    sensim__mkey mk[6];
    uint32_t m = 0;
    for (uint64_t j = first; j <= last; j++, m++) {
        kkey kk;
        sensim_status st = load_key(keys, j, 0, &kk);
        if (st != SENSIM_OK)
            return st;
        /* two keys at one time are a jump (sensim_rig_jump_to_pose); a third is not */
        const bool jump = j > 0 && keys[j].t_ns == keys[j - 1].t_ns;
        if (j > 0 && (keys[j].t_ns < keys[j - 1].t_ns || (jump && j > 1 && keys[j - 2].t_ns == keys[j].t_ns)))
            return sensim__fail(SENSIM_ERR_TIME_ORDER, "kinematics: key %llu time is not after the previous key "
                                "(two keys at one time are a jump, three are not)", (unsigned long long)j);
        memset(&mk[m], 0, sizeof mk[m]);
        mk[m].t = keys[j].t_ns;
        mk[m].jump = jump && m > 0;
        memcpy(mk[m].p, kk.p, sizeof kk.p);
        memcpy(mk[m].q, kk.q, sizeof kk.q);
        if (m > 0)
            qalign(mk[m - 1].q, mk[m].q);
        uint32_t s0 = 0; /* the stencil reads this key's segment only */
        for (uint32_t i = m; i > 0; i--)
            if (mk[i].jump) {
                s0 = i;
                break;
            }
        sensim__mkey_derive(mk + s0, m + 1 - s0, 0);
    }
    sensim__mkey_eval(mk, m, t, out);
    return SENSIM_OK;
}
