#include "motion.h"

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
