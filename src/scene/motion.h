/* Motion interpolation: paths of pose keys and the rig's motion model (the
 * pose algebra under them is core/pose.h). */
#ifndef SENSIM_MOTION_H
#define SENSIM_MOTION_H

#include "internal.h"
#include "../core/pose.h"

#define SENSIM_MAX_KEYS 64


/* One key of the rig's motion model (sensim/rig.h): pose and its
 * derivatives at t. Derivatives a host gave are kept as given; the others
 * come from the backward stencil (this key and up to 4 before it), so a key
 * never changes once pushed and the model between two keys depends on
 * nothing later than the second: causal, and the same for any step split. */
typedef struct sensim__mkey {
    int64_t t;
    double p[3], q[4];  /* position (world, m); rotation (w, x, y, z), sign-aligned with the previous key */
    double v[3], a[3];  /* world frame, m/s and m/s² */
    double w[3], al[3]; /* body frame, rad/s and rad/s² */
    uint32_t given;     /* SENSIM__MK_* derivatives the host gave (kept as given) */
    uint32_t jump;      /* 1: a jump starts a new motion segment here (sensim_rig_jump_to_pose): nothing
                           interpolates from the key before (held until this key's time), and this key's
                           derivatives come from its own segment only; it may share the previous key's time */
} sensim__mkey;

#define SENSIM__MK_V 1u  /* given: velocity */
#define SENSIM__MK_A 2u  /* acceleration */
#define SENSIM__MK_W 4u  /* angular velocity */
#define SENSIM__MK_AL 8u /* angular acceleration */

/* Fill the derivatives of k[n - 1] not flagged in @p given from k[max(0, n - 5) .. n - 1]
 * (times strictly increasing, q sign-aligned, as the rig keeps them; the caller passes a
 * jump's segment only: k[0] is then the jump key). With n = 2 the first
 * key, which had nothing before it, takes the second's velocity and body rate where it was
 * not given: the first segment is then straight (slerp-like) instead of starting at rest. */
void sensim__mkey_derive(sensim__mkey *k, uint32_t n, uint32_t given);
/* State at @p t of the keys k[0..n) (n >= 1); outside [k[0].t, k[n-1].t] the end key's pose is
 * held and its derivatives reported (the rig never asks there). */
void sensim__mkey_eval(const sensim__mkey *k, uint32_t n, int64_t t, sensim_kinematics *out);
/* What a segment k[i] -> k[i + 1] of the model needs at any t (its length,
 * the rotation between its keys and their body rates carried onto it),
 * computed once a segment: the same bits as computed at each t. */
typedef struct sensim__mseg {
    double T, Phi[3], m1[3], n1[3];
    double c[3][6], r[3][6]; /* per axis: the quintic's position and rotation coefficients */
} sensim__mseg;
void sensim__mseg_setup(const sensim__mkey *a, const sensim__mkey *b, sensim__mseg *g);
/* The pose part of sensim__mkey_eval(); @p g[0 .. ng): the first ng segments set up (ng may be 0). */
void sensim__mkey_pose(const sensim__mkey *k, uint32_t n, const sensim__mseg *g, uint32_t ng, int64_t t,
                       double out[16]);

/* A validated key list ready for per-shot evaluation. */
/* Segments a path sets up: a scan call or a rig step spans a few (more are
 * set up at each pose: correct, slower); 16 keep sensim_path at 24 KB of the
 * caller's stack (15 KB before the set-ups). */
#define SENSIM__MSEG_MAX 16
typedef struct sensim_path {
    const sensim__mkey *mk;           /* non-NULL: the rig's motion model over mk[0..mn) (the fields below
                                         except moving and pose0 unused) */
    uint32_t mn;
    uint32_t n;
    bool moving;                      /* false: every key has the same pose */
    int64_t t[SENSIM_MAX_KEYS];
    double p[SENSIM_MAX_KEYS][3];
    double q[SENSIM_MAX_KEYS][4];     /* sign-aligned with the previous key */
    sensim__slerp seg[SENSIM_MAX_KEYS - 1]; /* slerp of q[i] -> q[i + 1] set up (linear paths) */
    double pose0[16];                 /* the first key's pose */
    sensim__mkey mks[SENSIM_MAX_KEYS]; /* SENSIM_INTERP_CAUSAL over a caller's keys: mk points here */
    sensim__mseg mseg[SENSIM__MSEG_MAX]; /* the model's first mseg_n segments set up */
    uint32_t mseg_n;
} sensim_path;

/* @p interp: SENSIM_INTERP_LINEAR (position lerp, rotation slerp) or SENSIM_INTERP_CAUSAL
 * (the rig's motion model over these keys: a key's derivatives from it and up to 4 keys
 * before it in the array). */
sensim_status sensim__path_init(sensim_path *path, const sensim_pose_key *keys, uint32_t n, int32_t interp);
/* A path over the rig's model keys (borrowed for the path's life). */
void sensim__path_init_model(sensim_path *path, const sensim__mkey *k, uint32_t n);
void sensim__path_pose(const sensim_path *path, int64_t t, double out[16]);
/* sensim__path_pose() at t[0 .. m) (m <= 4), entry by entry: P[e][lane] is
 * entry e of the pose at t[lane] (lanes from m on: t[0]'s). Times on one
 * key segment are evaluated side by side; the same bits as one at a time. */
void sensim__path_pose4(const sensim_path *path, const int64_t t[4], uint32_t m, sensim_v4d P[16]);
/* True when the pose on [@p a, @p b] is one smooth piece of the path: it
 * moves, and one key segment holds the span (t_i <= a < b <= t_{i+1}), so
 * no key, kink or held end pose lies inside, and every pose on it depends
 * only on keys this path already has (a later key cannot change it). */
bool sensim__path_smooth(const sensim_path *path, int64_t a, int64_t b);
/* sensim__mkey_pose() at four times (as sensim__path_pose4()). */
void sensim__mkey_pose4(const sensim__mkey *k, uint32_t n, const sensim__mseg *g, uint32_t ng, const int64_t t[4],
                        uint32_t m, sensim_v4d P[16]);

#endif
