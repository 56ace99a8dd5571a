/* Pose algebra in float64 (column-major 4x4), quaternions and slerp: the
 * ground floor every unit that moves something uses (scene/motion.c's paths,
 * scene/kinematics.c's model, the rig, the lidar's per-shot poses). See pose.h. */
#include "pose.h"
#include "vmath.h"

#include <math.h>
#include <string.h>

void sensim__mat4_identity(double out[16])
{
    memset(out, 0, 16 * sizeof(double));
    out[0] = out[5] = out[10] = out[15] = 1.0;
}

void sensim__mat4_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            double s = 0.0;
            for (int k = 0; k < 4; k++)
                s += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = s;
        }
    memcpy(out, r, sizeof r);
}

void sensim__mat4_rigid_inverse(const double m[16], double out[16])
{
    double r[16];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[j * 4 + i] = m[i * 4 + j];
    for (int i = 0; i < 3; i++)
        r[12 + i] = -(r[i] * m[12] + r[4 + i] * m[13] + r[8 + i] * m[14]);
    r[3] = r[7] = r[11] = 0.0;
    r[15] = 1.0;
    memcpy(out, r, sizeof r);
}

void sensim__pose_from_xyz_rpy(double x, double y, double z, double roll, double pitch,
                               double yaw, double out[16])
{
    double cr = cos(roll), sr = sin(roll), cp = cos(pitch), sp = sin(pitch), cy = cos(yaw),
           sy = sin(yaw);
    /* columns of Rz·Ry·Rx */
    out[0] = cy * cp;
    out[1] = sy * cp;
    out[2] = -sp;
    out[3] = 0.0;
    out[4] = cy * sp * sr - sy * cr;
    out[5] = sy * sp * sr + cy * cr;
    out[6] = cp * sr;
    out[7] = 0.0;
    out[8] = cy * sp * cr + sy * sr;
    out[9] = sy * sp * cr - cy * sr;
    out[10] = cp * cr;
    out[11] = 0.0;
    out[12] = x;
    out[13] = y;
    out[14] = z;
    out[15] = 1.0;
}

int sensim__mat4_is_zero(const double m[16])
{
    for (int i = 0; i < 16; i++)
        if (m[i] != 0.0)
            return 0;
    return 1;
}

bool sensim__mat4_is_rigid(const double m[16])
{
    if (m[3] != 0.0 || m[7] != 0.0 || m[11] != 0.0 || m[15] != 1.0)
        return false;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double d = m[i * 4] * m[j * 4] + m[i * 4 + 1] * m[j * 4 + 1] + m[i * 4 + 2] * m[j * 4 + 2];
            if (fabs(d - (i == j ? 1.0 : 0.0)) > 1e-6)
                return false;
        }
    double det = m[0] * (m[5] * m[10] - m[9] * m[6]) - m[4] * (m[1] * m[10] - m[9] * m[2]) +
                 m[8] * (m[1] * m[6] - m[5] * m[2]);
    return det > 0.0;
}

void sensim__quat_from_mat(const double m[16], double q[4])
{
    /* m[col*4 + row]; R(row, col) */
    double r00 = m[0], r11 = m[5], r22 = m[10], r01 = m[4], r10 = m[1], r02 = m[8], r20 = m[2], r12 = m[9],
           r21 = m[6];
    double tr = r00 + r11 + r22;
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q[0] = 0.25 * s, q[1] = (r21 - r12) / s, q[2] = (r02 - r20) / s, q[3] = (r10 - r01) / s;
    } else if (r00 > r11 && r00 > r22) {
        double s = sqrt(1.0 + r00 - r11 - r22) * 2;
        q[0] = (r21 - r12) / s, q[1] = 0.25 * s, q[2] = (r01 + r10) / s, q[3] = (r02 + r20) / s;
    } else if (r11 > r22) {
        double s = sqrt(1.0 + r11 - r00 - r22) * 2;
        q[0] = (r02 - r20) / s, q[1] = (r01 + r10) / s, q[2] = 0.25 * s, q[3] = (r12 + r21) / s;
    } else {
        double s = sqrt(1.0 + r22 - r00 - r11) * 2;
        q[0] = (r10 - r01) / s, q[1] = (r02 + r20) / s, q[2] = (r12 + r21) / s, q[3] = 0.25 * s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++)
        q[i] /= n;
}

void sensim__mat_from_quat(const double q[4], const double t[3], double o[16])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    o[0] = 1 - 2 * (y * y + z * z);
    o[1] = 2 * (x * y + w * z);
    o[2] = 2 * (x * z - w * y);
    o[3] = 0;
    o[4] = 2 * (x * y - w * z);
    o[5] = 1 - 2 * (x * x + z * z);
    o[6] = 2 * (y * z + w * x);
    o[7] = 0;
    o[8] = 2 * (x * z + w * y);
    o[9] = 2 * (y * z - w * x);
    o[10] = 1 - 2 * (x * x + y * y);
    o[11] = 0;
    o[12] = t[0];
    o[13] = t[1];
    o[14] = t[2];
    o[15] = 1;
}

SENSIM_AVX_CLONES void sensim__mat4_mul4(const sensim_v4d a[16], const double b[16], sensim_v4d out[16])
{
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            sensim_v4d s = {0.0, 0.0, 0.0, 0.0};
            for (int k = 0; k < 4; k++)
                s += a[k * 4 + row] * b[c * 4 + k];
            out[c * 4 + row] = s;
        }
}

SENSIM_AVX_CLONES void sensim__mat_from_quat4(const sensim_v4d q[4], const sensim_v4d t[3], sensim_v4d o[16])
{
    const sensim_v4d w = q[0], x = q[1], y = q[2], z = q[3], zero = {0, 0, 0, 0}, one = {1, 1, 1, 1};
    o[0] = 1 - 2 * (y * y + z * z);
    o[1] = 2 * (x * y + w * z);
    o[2] = 2 * (x * z - w * y);
    o[3] = zero;
    o[4] = 2 * (x * y - w * z);
    o[5] = 1 - 2 * (x * x + z * z);
    o[6] = 2 * (y * z + w * x);
    o[7] = zero;
    o[8] = 2 * (x * z + w * y);
    o[9] = 2 * (y * z - w * x);
    o[10] = 1 - 2 * (x * x + y * y);
    o[11] = zero;
    o[12] = t[0];
    o[13] = t[1];
    o[14] = t[2];
    o[15] = one;
}

void sensim__slerp_setup(const double a[4], const double b0[4], sensim__slerp *sl)
{
    double *b = sl->b;
    memcpy(b, b0, sizeof sl->b);
    double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {
        d = -d;
        for (int i = 0; i < 4; i++)
            b[i] = -b[i];
    }
    sl->lerp = d > 0.9999999;
    sl->th = sl->lerp ? 0.0 : acos(d);
    sl->s = sl->lerp ? 1.0 : sin(sl->th);
}

void sensim__slerp_at(const double a[4], const sensim__slerp *sl, double u, double out[4])
{
    double wa, wb;
    if (sl->lerp) {
        wa = 1 - u, wb = u;
    } else {
        const double x[2] = {(1 - u) * sl->th, u * sl->th};
        double sn[2], cs[2];
        sensim__sincos_n(x, sn, cs, 2);
        wa = sn[0] / sl->s, wb = sn[1] / sl->s;
    }
    double n = 0;
    for (int i = 0; i < 4; i++) {
        out[i] = wa * a[i] + wb * sl->b[i];
        n += out[i] * out[i];
    }
    n = sqrt(n);
    for (int i = 0; i < 4; i++)
        out[i] /= n;
}

void sensim__quat_slerp(const double a[4], const double b0[4], double u, double out[4])
{
    sensim__slerp sl;
    sensim__slerp_setup(a, b0, &sl);
    sensim__slerp_at(a, &sl, u, out);
}

/* Rotation vector of q_a⁻¹·q_b (the shorter way round). */
void sensim__quat_log_rel(const double a[4], const double b[4], double phi[3])
{
    const double ai[4] = {a[0], -a[1], -a[2], -a[3]};
    double q[4];
    sensim__quat_mul(ai, b, q);
    if (q[0] < 0)
        for (int i = 0; i < 4; i++)
            q[i] = -q[i];
    double s = sqrt(q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double k = s < 1e-12 ? 2.0 / q[0] : 2.0 * atan2(s, q[0]) / s;
    for (int i = 0; i < 3; i++)
        phi[i] = k * q[i + 1];
}
