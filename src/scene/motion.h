/* Pose algebra in float64 (column-major 4x4) and motion interpolation. */
#ifndef SENSIM_MOTION_H
#define SENSIM_MOTION_H

#include "internal.h"

#define SENSIM_MAX_KEYS 64

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
/* Rotation vector φ of q_a⁻¹·q_b (the shorter way round): q_b = q_a·exp(φ). */
void sensim__quat_log_rel(const double a[4], const double b[4], double phi[3]);
/* Slerp between unit quaternions (shortest arc). */
void sensim__quat_slerp(const double a[4], const double b[4], double u, double out[4]);

/* A validated key list ready for per-shot evaluation. */
typedef struct sensim_path {
    uint32_t n;
    bool moving;                      /* false: every key has the same pose */
    int64_t t[SENSIM_MAX_KEYS];
    double p[SENSIM_MAX_KEYS][3];
    double q[SENSIM_MAX_KEYS][4];     /* sign-aligned with the previous key */
    double pose0[16];                 /* the first key's pose */
} sensim_path;

sensim_status sensim__path_init(sensim_path *path, const sensim_pose_key *keys, uint32_t n);
void sensim__path_pose(const sensim_path *path, int64_t t, double out[16]);

#endif
