/* Native <-> CARLA / Unreal frame conversions (see <sensim/frames.h>). */
#include "motion.h"

#include <math.h>
#include <string.h>

#define DEG (SENSIM_PI / 180.0)

static sensim_status check_frame(int32_t frame)
{
    if (frame < SENSIM_FRAME_NATIVE || frame > SENSIM_FRAME_ISO8855)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "unknown frame %d", frame);
    return SENSIM_OK;
}

static double unit(int32_t frame)
{
    return frame == SENSIM_FRAME_UE ? 0.01 : 1.0; /* metres per frame unit */
}

sensim_status sensim_point_from_frame(int32_t frame, const double in[3], double out[3])
{
    if (!in || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_point_from_frame: NULL argument");
    sensim_status st = check_frame(frame);
    if (st != SENSIM_OK)
        return st;
    double u = unit(frame), s = (frame == SENSIM_FRAME_CARLA || frame == SENSIM_FRAME_UE) ? -1.0 : 1.0;
    double x = in[0] * u, y = s * in[1] * u, z = in[2] * u;
    out[0] = x, out[1] = y, out[2] = z;
    return SENSIM_OK;
}

sensim_status sensim_point_to_frame(int32_t frame, const double in[3], double out[3])
{
    if (!in || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_point_to_frame: NULL argument");
    sensim_status st = check_frame(frame);
    if (st != SENSIM_OK)
        return st;
    double u = unit(frame), s = (frame == SENSIM_FRAME_CARLA || frame == SENSIM_FRAME_UE) ? -1.0 : 1.0;
    double x = in[0] / u, y = s * in[1] / u, z = in[2] / u;
    out[0] = x, out[1] = y, out[2] = z;
    return SENSIM_OK;
}

sensim_status sensim_pose_from_frame(int32_t frame, const double loc[3], const double rot[3], double out[16])
{
    if (!loc || !rot || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_pose_from_frame: NULL argument");
    sensim_status st = check_frame(frame);
    if (st != SENSIM_OK)
        return st;
    if (!sensim__finite_array_d(loc, 3) || !sensim__finite_array_d(rot, 3))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_pose_from_frame: NaN or infinite input");
    double p[3];
    sensim_point_from_frame(frame, loc, p);
    double roll, pitch, yaw;
    if (frame == SENSIM_FRAME_CARLA || frame == SENSIM_FRAME_UE) {
        pitch = -rot[0] * DEG, yaw = -rot[1] * DEG, roll = rot[2] * DEG;
    } else {
        roll = rot[0] * DEG, pitch = rot[1] * DEG, yaw = rot[2] * DEG;
    }
    sensim__pose_from_xyz_rpy(p[0], p[1], p[2], roll, pitch, yaw, out);
    return SENSIM_OK;
}

sensim_status sensim_pose_to_frame(int32_t frame, const double m[16], double loc[3], double rot[3])
{
    if (!m || !loc || !rot)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_pose_to_frame: NULL argument");
    sensim_status st = check_frame(frame);
    if (st != SENSIM_OK)
        return st;
    if (!sensim__finite_array_d(m, 16))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_pose_to_frame: NaN or infinite pose");
    /* R = Rz(yaw) Ry(pitch) Rx(roll): R(2,0) = -sin(pitch) */
    double pitch = asin(fmax(-1.0, fmin(1.0, -m[2])));
    double roll, yaw;
    if (fabs(m[2]) < 1.0 - 1e-12) {
        roll = atan2(m[6], m[10]);
        yaw = atan2(m[1], m[0]);
    } else { /* gimbal lock: put everything in yaw */
        roll = 0.0;
        yaw = atan2(-m[4], m[5]);
    }
    sensim_point_to_frame(frame, &m[12], loc);
    if (frame == SENSIM_FRAME_CARLA || frame == SENSIM_FRAME_UE) {
        rot[0] = -pitch / DEG, rot[1] = -yaw / DEG, rot[2] = roll / DEG;
    } else {
        rot[0] = roll / DEG, rot[1] = pitch / DEG, rot[2] = yaw / DEG;
    }
    return SENSIM_OK;
}

sensim_status sensim__vertices_from_frame(float *v, size_t n, int32_t frame)
{
    sensim_status st = check_frame(frame);
    if (st != SENSIM_OK || frame == SENSIM_FRAME_NATIVE || frame == SENSIM_FRAME_ISO8855)
        return st;
    float u = (float)unit(frame);
    for (size_t i = 0; i < n; i++) {
        v[3 * i] *= u;
        v[3 * i + 1] *= -u;
        v[3 * i + 2] *= u;
    }
    return SENSIM_OK;
}

sensim_status sensim_pose_matrix_to_frame(int32_t frame, const double m[16], double out[16])
{
    if (!m || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_pose_matrix_to_frame: NULL argument");
    sensim_status st = check_frame(frame);
    if (st != SENSIM_OK)
        return st;
    double tmp[16];
    memcpy(tmp, m, sizeof tmp);
    bool flip = frame == SENSIM_FRAME_CARLA || frame == SENSIM_FRAME_UE;
    double u = 1.0 / unit(frame);
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            double sg = (flip && ((r == 1) != (c == 1))) ? -1.0 : 1.0;
            out[c * 4 + r] = tmp[c * 4 + r] * sg * (c == 3 && r < 3 ? u : 1.0);
        }
    return SENSIM_OK;
}
