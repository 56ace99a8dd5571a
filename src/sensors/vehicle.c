/* The kinematic vehicle model (sensim/vehicle.h): sensim.carla's (python/sensim/_carla_vehicle.py), in
 * REP-103. */
#include "internal.h"

#include <sensim/vehicle.h>

#include <math.h>
#include <string.h>

void sensim_vehicle_model_init(sensim_vehicle_model *m)
{
    if (!m)
        return;
    memset(m, 0, sizeof *m);
    m->wheelbase_m = 2.9;
    m->throttle_mps2 = 3.5, m->reverse_mps2 = 2.0, m->brake_mps2 = 7.0, m->hand_brake_mps2 = 5.0;
    m->drag_linear_hz = 0.05, m->drag_quadratic_pm = 0.0015;
    m->max_wheel_rad = 35.0 * SENSIM_PI / 180.0;
}

static double clampd(double x, double lo, double hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

sensim_status sensim_vehicle_step(const sensim_vehicle_model *m, const sensim_vehicle_control *c, double dt,
                                  double *speed, double pose[16], double *out_yaw_rate)
{
    static const char fn[] = "sensim_vehicle_step";
    if (!m || !c || !speed || !pose)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: NULL argument", fn);
    if (!isfinite(c->throttle) || !isfinite(c->steer) || !isfinite(c->brake) || !isfinite(*speed) ||
        !sensim__finite_array_d(pose, 16))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: control, speed or pose not finite", fn);
    const double fig[8] = {m->wheelbase_m, m->throttle_mps2, m->reverse_mps2, m->brake_mps2, m->hand_brake_mps2,
                           m->drag_linear_hz, m->drag_quadratic_pm, m->max_wheel_rad};
    if (!sensim__finite_array_d(fig, 8))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: a model figure not finite", fn);
    for (int i = 0; i < 8; i++)
        if (fig[i] < 0 || (i == 0 && fig[i] <= 0))
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: model figure %d is %g (wheelbase_m > 0, the others "
                                ">= 0)", fn, i, fig[i]);
    if (m->reserved[0] || m->reserved[1] || m->reserved[2] || m->reserved[3] || c->reserved0)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: reserved fields not 0", fn);
    if (!(dt > 0 && dt <= 3600))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: dt %g s outside (0, 3600]", fn, dt);
    double thr = clampd(c->throttle, 0, 1), brk = clampd(c->brake, 0, 1), str = clampd(c->steer, -1, 1);
    double v = *speed;
    double push = (c->reverse ? -m->reverse_mps2 : m->throttle_mps2) * thr;
    double slow = m->brake_mps2 * brk + (c->hand_brake ? m->hand_brake_mps2 : 0.0) + m->drag_linear_hz * fabs(v) +
                  m->drag_quadratic_pm * v * v;
    double v1 = v + push * dt;
    if (v1 != 0.0) { /* braking and resistance take speed away, never past standstill */
        double cut = slow * dt;
        v1 = cut >= fabs(v1) ? 0.0 : v1 - copysign(cut, v1);
    }
    /* CARLA's positive steer turns right: in REP-103 the yaw falls */
    double yaw_rate = -(v1 * tan(m->max_wheel_rad * str) / m->wheelbase_m);
    double dyaw = yaw_rate * dt, heading = atan2(pose[1], pose[0]);
    double mid = heading + 0.5 * dyaw;
    double np[16];
    memcpy(np, pose, sizeof np);
    np[12] += v1 * cos(mid) * dt;
    np[13] += v1 * sin(mid) * dt;
    double cs = cos(dyaw), sn = sin(dyaw);
    for (int col = 0; col < 3; col++) { /* R' = Rz(dyaw) R */
        double x = pose[4 * col], y = pose[4 * col + 1];
        np[4 * col] = cs * x - sn * y;
        np[4 * col + 1] = sn * x + cs * y;
    }
    if (!sensim__finite_array_d(np, 16) || !isfinite(v1))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: the step overflowed", fn);
    memcpy(pose, np, sizeof np);
    *speed = v1;
    if (out_yaw_rate)
        *out_yaw_rate = yaw_rate;
    return SENSIM_OK;
}
