/* Pose algebra in float64: column-major 4x4 rigid transforms, unit
 * quaternions (w, x, y, z), slerp; and the same four at a time
 * (sensim_v4d lanes) with the same sums in the same order. Pure functions
 * of their arguments: thread-safe, no allocation. */
#ifndef SENSIM_POSE_H
#define SENSIM_POSE_H

#include "internal.h"

void sensim__mat4_identity(double out[16]);
void sensim__mat4_mul(const double a[16], const double b[16], double out[16]);
/* Inverse of a rigid transform. */
void sensim__mat4_rigid_inverse(const double m[16], double out[16]);
/* Translation then rotation R = Rz(yaw) · Ry(pitch) · Rx(roll), radians. */
void sensim__pose_from_xyz_rpy(double x, double y, double z, double roll, double pitch,
                               double yaw, double out[16]);
/* True if the matrix is all zeros (the "unset means identity" convention). */
int sensim__mat4_is_zero(const double m[16]);
/* True if the 3x3 part is a rotation (orthonormal, det +1) within 1e-6 and the last row is 0 0 0 1. */
bool sensim__mat4_is_rigid(const double m[16]);

/* Unit quaternion (w, x, y, z) of a rotation matrix, and back. */
void sensim__quat_from_mat(const double m[16], double q[4]);
void sensim__mat_from_quat(const double q[4], const double t[3], double out[16]);
/* The Hamilton product o = a·b (o may not alias a or b). */
static inline void sensim__quat_mul(const double a[4], const double b[4], double o[4])
{
    o[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    o[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    o[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    o[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}
/* Rotation vector φ of q_a⁻¹·q_b (the shorter way round): q_b = q_a·exp(φ). */
void sensim__quat_log_rel(const double a[4], const double b[4], double phi[3]);
/* Slerp between unit quaternions (shortest arc). */
void sensim__quat_slerp(const double a[4], const double b[4], double u, double out[4]);
/* sensim__quat_slerp() in two parts: what does not depend on u (b
 * sign-aligned with a, the arc's angle and its sine), computed once a key
 * segment, then the weights at u. The same bits as one call. */
typedef struct sensim__slerp {
    double b[4], th, s;
    bool lerp; /* the keys within 4.5e-4 rad: linear weights */
} sensim__slerp;
void sensim__slerp_setup(const double a[4], const double b[4], sensim__slerp *sl);
/* The weights' sines from SLEEF (sensim__sincos_n): the same bits however
 * many a call computes (lin_pose4 takes eight at once). */
void sensim__slerp_at(const double a[4], const sensim__slerp *sl, double u, double out[4]);

/* sensim__mat4_mul() of four matrices @p a (entry by entry) by one @p b: the same sums in the same order. */
void sensim__mat4_mul4(const sensim_v4d a[16], const double b[16], sensim_v4d out[16]);
/* sensim__mat_from_quat() of four quaternions and translations, entry by entry. */
void sensim__mat_from_quat4(const sensim_v4d q[4], const sensim_v4d t[3], sensim_v4d o[16]);

#endif
