#include "motion.h"
#include "../core/vmath.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

sensim_status sensim__path_init(sensim_path *path, const sensim_pose_key *keys, uint32_t n, int32_t interp)
{
    if (!keys || n == 0 || n > SENSIM_MAX_KEYS)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "motion: %u keys (need 1..%d)", n, SENSIM_MAX_KEYS);
    if (interp != SENSIM_INTERP_LINEAR && interp != SENSIM_INTERP_CAUSAL)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "motion: interp = %d (scans take SENSIM_INTERP_LINEAR or "
                                                         "SENSIM_INTERP_CAUSAL)", interp);
    path->mk = NULL;
    path->mn = 0;
    path->n = n;
    path->moving = false;
    for (uint32_t i = 0; i < n; i++) {
        char what[48];
        snprintf(what, sizeof what, "motion: key %u pose", i);
        sensim_status st = sensim__check_pose(keys[i].pose, what);
        if (st == SENSIM_OK)
            st = sensim__check_time(keys[i].t_ns, "motion: key time");
        if (st != SENSIM_OK)
            return st;
        /* SENSIM_INTERP_CAUSAL: two keys at one time are a jump (sensim_rig_jump_to_pose); three are not */
        const bool jump = interp == SENSIM_INTERP_CAUSAL && i > 0 && keys[i].t_ns == keys[i - 1].t_ns &&
                          !(i > 1 && keys[i - 2].t_ns == keys[i].t_ns);
        if (i > 0 && keys[i].t_ns <= keys[i - 1].t_ns && !jump)
            return sensim__fail(SENSIM_ERR_TIME_ORDER, "motion: key %u time %lld ns is not after key %u (%lld ns)%s", i,
                                (long long)keys[i].t_ns, i - 1, (long long)keys[i - 1].t_ns,
                                keys[i].t_ns == keys[i - 1].t_ns
                                    ? (interp == SENSIM_INTERP_CAUSAL ? " (two keys at one time are a jump; three are not)"
                                                                      : " (two keys at one time, a jump, need "
                                                                        "SENSIM_INTERP_CAUSAL)")
                                    : "");
        if (n > 1 && !sensim__mat4_is_rigid(keys[i].pose))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "motion: key %u pose is not rigid (rotation + translation)", i);
        path->t[i] = keys[i].t_ns;
        memcpy(path->p[i], &keys[i].pose[12], 3 * sizeof(double));
        sensim__quat_from_mat(keys[i].pose, path->q[i]);
        if (i > 0) {
            double d = 0;
            for (int k = 0; k < 4; k++)
                d += path->q[i][k] * path->q[i - 1][k];
            if (d < 0)
                for (int k = 0; k < 4; k++)
                    path->q[i][k] = -path->q[i][k];
            for (int k = 0; k < 16; k++) /* by value: -0 and +0 are the same pose */
                if (keys[i].pose[k] != keys[0].pose[k])
                    path->moving = true;
        }
    }
    memcpy(path->pose0, keys[0].pose, sizeof path->pose0);
    for (uint32_t i = 0; i + 1 < n; i++)
        sensim__slerp_setup(path->q[i], path->q[i + 1], &path->seg[i]);
    if (interp == SENSIM_INTERP_CAUSAL) {
        for (uint32_t i = 0; i < n; i++) {
            sensim__mkey *k = &path->mks[i];
            memset(k, 0, sizeof *k);
            k->t = path->t[i];
            k->jump = i > 0 && path->t[i] == path->t[i - 1];
            memcpy(k->p, path->p[i], sizeof k->p);
            memcpy(k->q, path->q[i], sizeof k->q);
            uint32_t s0 = 0; /* the stencil reads this key's segment only */
            for (uint32_t j = i; j > 0; j--)
                if (path->mks[j].jump) {
                    s0 = j;
                    break;
                }
            sensim__mkey_derive(path->mks + s0, i + 1 - s0, 0);
        }
        double pose0[16];
        memcpy(pose0, path->pose0, sizeof pose0);
        sensim__path_init_model(path, path->mks, n);
        if (!path->moving) /* at rest: the key's own matrix, as the linear path holds it */
            memcpy(path->pose0, pose0, sizeof pose0);
    }
    return SENSIM_OK;
}

void sensim__path_init_model(sensim_path *path, const sensim__mkey *k, uint32_t n)
{
    path->mk = k;
    path->mn = n;
    path->n = 0;
    path->moving = false;
    for (uint32_t i = 0; i < n && !path->moving; i++)
        for (int j = 0; j < 3; j++)
            if (k[i].p[j] != k[0].p[j] || k[i].q[j + 1] != k[0].q[j + 1] || k[i].v[j] != 0 || k[i].a[j] != 0 ||
                k[i].w[j] != 0 || k[i].al[j] != 0 || k[i].q[0] != k[0].q[0])
                path->moving = true;
    sensim__mat_from_quat(k[0].q, k[0].p, path->pose0);
    path->mseg_n = 0;
    if (path->moving) /* a step's or a scan's few segments (a longer history: the first 16) */
        for (; path->mseg_n + 1 < n && path->mseg_n < SENSIM__MSEG_MAX; path->mseg_n++)
            sensim__mseg_setup(&k[path->mseg_n], &k[path->mseg_n + 1], &path->mseg[path->mseg_n]);
}

void sensim__path_pose(const sensim_path *path, int64_t t, double out[16])
{
    if (path->mk) {
        if (!path->moving)
            memcpy(out, path->pose0, sizeof path->pose0);
        else
            sensim__mkey_pose(path->mk, path->mn, path->mseg, path->mseg_n, t, out);
        return;
    }
    if (!path->moving || t <= path->t[0]) {
        if (!path->moving) {
            memcpy(out, path->pose0, sizeof path->pose0);
            return;
        }
        sensim__mat_from_quat(path->q[0], path->p[0], out);
        return;
    }
    uint32_t n = path->n;
    if (t >= path->t[n - 1]) {
        sensim__mat_from_quat(path->q[n - 1], path->p[n - 1], out);
        return;
    }
    uint32_t lo = 0, hi = n - 1; /* t[lo] <= t < t[hi] */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (path->t[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    double u = (double)(t - path->t[lo]) / (double)(path->t[hi] - path->t[lo]);
    double p[3], q[4];
    for (int i = 0; i < 3; i++)
        p[i] = path->p[lo][i] + u * (path->p[hi][i] - path->p[lo][i]);
    sensim__slerp_at(path->q[lo], &path->seg[lo], u, q); /* hi = lo + 1 */
    sensim__mat_from_quat(q, p, out);
}

/* The linear path's pose at four times of one segment lo -> lo + 1: the
 * lerp, sensim__slerp_at() (the eight sines from one SLEEF call) and
 * sensim__mat_from_quat() lane by lane in the same order: the same bits. */
SENSIM_AVX_CLONES static void lin_pose4(const sensim_path *path, uint32_t lo, const int64_t t[4], uint32_t m,
                                        sensim_v4d P[16])
{
    const uint32_t hi = lo + 1;
    const sensim__slerp *sl = &path->seg[lo];
    sensim_v4d u;
    for (int l = 0; l < 4; l++)
        u[l] = (double)(t[l < (int)m ? l : 0] - path->t[lo]);
    u = u / (double)(path->t[hi] - path->t[lo]);
    sensim_v4d p[3], q[4], wa, wb;
    for (int i = 0; i < 3; i++)
        p[i] = path->p[lo][i] + u * (path->p[hi][i] - path->p[lo][i]);
    if (sl->lerp) {
        wa = 1 - u, wb = u;
    } else {
        const sensim_v4d ua = (1 - u) * sl->th, ub = u * sl->th;
        double x[8], sn[8], cs[8];
        memcpy(x, &ua, sizeof ua);
        memcpy(x + 4, &ub, sizeof ub);
        sensim__sincos_n(x, sn, cs, 8);
        memcpy(&wa, sn, sizeof wa);
        memcpy(&wb, sn + 4, sizeof wb);
        wa = wa / sl->s, wb = wb / sl->s;
    }
    const double *a = path->q[lo];
    sensim_v4d n = {0, 0, 0, 0}, rn;
    for (int i = 0; i < 4; i++) {
        q[i] = wa * a[i] + wb * sl->b[i];
        n += q[i] * q[i];
    }
    for (int l = 0; l < 4; l++)
        rn[l] = __builtin_sqrt(n[l]);
    for (int i = 0; i < 4; i++)
        q[i] /= rn;
    sensim__mat_from_quat4(q, p, P);
}

void sensim__path_pose4(const sensim_path *path, const int64_t t[4], uint32_t m, sensim_v4d P[16])
{
    if (path->mk && path->moving) {
        sensim__mkey_pose4(path->mk, path->mn, path->mseg, path->mseg_n, t, m, P);
        return;
    }
    const uint32_t n = path->n;
    bool one = !path->mk && path->moving && t[0] > path->t[0] && t[0] < path->t[n - 1];
    uint32_t lo = 0;
    if (one) {
        uint32_t hi = n - 1; /* as sensim__path_pose() */
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) / 2;
            if (path->t[mid] <= t[0])
                lo = mid;
            else
                hi = mid;
        }
        for (uint32_t l = 1; l < m && one; l++)
            one = t[l] > path->t[0] && path->t[lo] <= t[l] && t[l] < path->t[lo + 1];
    }
    if (one) {
        lin_pose4(path, lo, t, m, P);
        return;
    }
    for (uint32_t l = 0; l < 4; l++) { /* one at a time */
        double o[16];
        sensim__path_pose(path, t[l < m ? l : 0], o);
        for (int e = 0; e < 16; e++)
            P[e][l] = o[e];
    }
}

bool sensim__path_smooth(const sensim_path *path, int64_t a, int64_t b)
{
    if (!path->moving || b <= a)
        return false;
    const uint32_t n = path->mk ? path->mn : path->n;
    const int64_t *tk = path->mk ? NULL : path->t;
#define KEY_T(i) (tk ? tk[i] : path->mk[i].t)
    if (n < 2 || a < KEY_T(0))
        return false;
    uint32_t lo = 0, hi = n; /* the last key at or before a */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (KEY_T(mid) <= a)
            lo = mid;
        else
            hi = mid;
    }
    /* a segment that ends in a jump holds its first key up to the jump: not one smooth piece with its end */
    const bool one = lo + 1 < n && b <= KEY_T(lo + 1) && !(path->mk && path->mk[lo + 1].jump);
#undef KEY_T
    return one;
}

sensim_status sensim_motion_from_velocity(const double pose[16], int64_t t0, int64_t t1, const double v[3],
                                          const double w[3], sensim_pose_key out[2])
{
    if (!pose || !v || !w || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_motion_from_velocity: NULL argument");
    if (!sensim__finite_array_d(pose, 16) || !sensim__finite_array_d(v, 3) || !sensim__finite_array_d(w, 3))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_motion_from_velocity: NaN or infinite input");
    sensim_status st;
    if ((st = sensim__check_time(t0, "sensim_motion_from_velocity: t0_ns")) != SENSIM_OK ||
        (st = sensim__check_time(t1, "sensim_motion_from_velocity: t1_ns")) != SENSIM_OK ||
        (st = sensim__check_pose(pose, "sensim_motion_from_velocity: pose")) != SENSIM_OK)
        return st;
    if (t1 <= t0)
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "sensim_motion_from_velocity: t1 <= t0");
    double dt = (double)(t1 - t0) * 1e-9;
    out[0].t_ns = t0;
    memcpy(out[0].pose, pose, sizeof out[0].pose);
    /* R1 = R0 · exp([w]·dt) (Rodrigues) */
    double ax = w[0] * dt, ay = w[1] * dt, az = w[2] * dt, th = sqrt(ax * ax + ay * ay + az * az);
    double E[16];
    sensim__mat4_identity(E);
    if (th > 0) {
        double kx = ax / th, ky = ay / th, kz = az / th, c = cos(th), s = sin(th), C = 1 - c;
        E[0] = c + kx * kx * C, E[4] = kx * ky * C - kz * s, E[8] = kx * kz * C + ky * s;
        E[1] = ky * kx * C + kz * s, E[5] = c + ky * ky * C, E[9] = ky * kz * C - kx * s;
        E[2] = kz * kx * C - ky * s, E[6] = kz * ky * C + kx * s, E[10] = c + kz * kz * C;
    }
    double R1[16];
    sensim__mat4_mul(pose, E, R1);
    R1[12] = pose[12] + v[0] * dt;
    R1[13] = pose[13] + v[1] * dt;
    R1[14] = pose[14] + v[2] * dt;
    out[1].t_ns = t1;
    memcpy(out[1].pose, R1, sizeof R1);
    return sensim__check_pose(R1, "sensim_motion_from_velocity: pose at t1");
}

sensim_status sensim_motion_pose_at(const sensim_pose_key *keys, uint32_t n, int64_t t, double out[16])
{
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_motion_pose_at: out_pose is NULL");
    sensim_path path;
    sensim_status st = sensim__path_init(&path, keys, n, SENSIM_INTERP_LINEAR);
    if (st != SENSIM_OK)
        return st;
    sensim__path_pose(&path, t, out);
    return SENSIM_OK;
}
