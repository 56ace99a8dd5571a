/* Pose algebra in float64: column-major 4x4 rigid/affine transforms. */
#ifndef SENSIM_MOTION_H
#define SENSIM_MOTION_H

void sensim__mat4_identity(double out[16]);
void sensim__mat4_mul(const double a[16], const double b[16], double out[16]);
/* Translation then rotation R = Rz(yaw) · Ry(pitch) · Rx(roll), radians. */
void sensim__pose_from_xyz_rpy(double x, double y, double z, double roll, double pitch,
                               double yaw, double out[16]);
/* True if the matrix is all zeros (the "unset means identity" convention). */
int sensim__mat4_is_zero(const double m[16]);

#endif
