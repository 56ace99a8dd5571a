/* The carla_msgs messages libsensim writes (sensim/mcap.h): CarlaEgoVehicleStatus, CarlaEgoVehicleInfo,
 * CarlaEgoVehicleControl, CarlaCollisionEvent, CarlaLaneInvasionEvent, CDR encoded (XCDR1 little endian).
 * Layouts: carla_msgs 1.3's .msg files (scripts/msg/carla_msgs, embedded in ros2_msgdefs.c). */
#include "mcap_impl.h"

#include <math.h>

#define MAX_WHEELS 64
#define MAX_MARKINGS 65536
#define MAX_STRING 4096

static void c_f32(buf *b, double v)
{
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    c_u32(b, u);
}

static int finite_f(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

static sensim_status check_control(const sensim_vehicle_control *c, const char *fn)
{
    if (!isfinite(c->throttle) || !isfinite(c->steer) || !isfinite(c->brake))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: control not finite", fn);
    if (c->throttle < 0 || c->throttle > 1 || c->brake < 0 || c->brake > 1 || c->steer < -1 || c->steer > 1)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: control throttle %g, brake %g (0..1) or steer %g (-1..1) "
                            "out of range", fn, (double)c->throttle, (double)c->brake, (double)c->steer);
    if (c->hand_brake > 1 || c->reverse > 1 || c->manual_gear_shift > 1 || c->reserved0)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: control hand_brake, reverse or manual_gear_shift not 0 "
                            "or 1, or reserved0 not 0", fn);
    return SENSIM_OK;
}

/* CarlaEgoVehicleControl after its header */
static void c_control_body(buf *b, const sensim_vehicle_control *c)
{
    c_f32(b, c->throttle);
    c_f32(b, c->steer);
    c_f32(b, c->brake);
    c_u8(b, c->hand_brake);
    c_u8(b, c->reverse);
    c_u32(b, (uint32_t)c->gear);
    c_u8(b, c->manual_gear_shift);
}

static sensim_status write_status(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp, const char *frame_id,
                                  const sensim_vehicle_status *s)
{
    static const char fn[] = "sensim_mcap_write_vehicle_status";
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_VEHICLE_STATUS, log_ns, stamp, frame_id, fn);
    if (st)
        return st;
    if (!s)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: status is NULL", fn);
    if (!isfinite(s->velocity) || !sensim__finite_array_d(s->linear_acceleration, 3) ||
        !sensim__finite_array_d(s->angular_acceleration, 3) || !sensim__finite_array_d(s->orientation, 4))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: velocity, acceleration or orientation not finite", fn);
    if (s->velocity < 0)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: velocity %g m/s is negative (it is the speed's magnitude)",
                            fn, s->velocity);
    const double *q = s->orientation;
    double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (fabs(sqrt(n2) - 1.0) > 1e-6)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: orientation's norm %.9g is not 1 (within 1e-6)", fn,
                            sqrt(n2));
    if (s->reserved[0] || s->reserved[1])
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: reserved fields not 0", fn);
    if ((st = check_control(&s->control, fn)))
        return st;
    buf *b = &m->msg;
    c_begin(b);
    c_header(b, stamp + m->stamp_offset_ns, frame_id);
    c_f32(b, s->velocity);
    c_f64s(b, s->linear_acceleration, 3);
    c_f64s(b, s->angular_acceleration, 3);
    c_f64s(b, s->orientation, 4);
    c_header(b, stamp + m->stamp_offset_ns, frame_id);
    c_control_body(b, &s->control);
    return sensim__mcap_emit(m, tp, log_ns);
}

static int name_ok(const char *s)
{
    return s && strlen(s) <= MAX_STRING;
}

static sensim_status write_info(sensim_mcap *m, uint16_t tp, int64_t log_ns, const sensim_vehicle_info *v)
{
    static const char fn[] = "sensim_mcap_write_vehicle_info";
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_VEHICLE_INFO, log_ns, 0, NO_FRAME, fn);
    if (st)
        return st;
    if (!v)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: info is NULL", fn);
    if (!name_ok(v->type) || !name_ok(v->rolename))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: type or rolename NULL or over %d bytes", fn, MAX_STRING);
    if (v->wheel_count > MAX_WHEELS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: %u wheels (at most %d)", fn, v->wheel_count, MAX_WHEELS);
    if (v->wheel_count && !v->wheels)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: wheels is NULL with wheel_count %u", fn,
                            v->wheel_count);
    if (v->use_gear_autobox > 1 || v->reserved0[0] || v->reserved0[1] || v->reserved0[2] || v->reserved[0] ||
        v->reserved[1])
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: use_gear_autobox not 0 or 1, or reserved fields not 0", fn);
    const float f[9] = {v->max_rpm, v->moi, v->damping_rate_full_throttle,
                        v->damping_rate_zero_throttle_clutch_engaged,
                        v->damping_rate_zero_throttle_clutch_disengaged, v->gear_switch_time, v->clutch_strength,
                        v->mass, v->drag_coefficient};
    if (!finite_f(f, 9) || !sensim__finite_array_d(v->center_of_mass, 3))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: a physics value not finite", fn);
    for (uint32_t i = 0; i < v->wheel_count; i++) {
        const sensim_vehicle_wheel *w = &v->wheels[i];
        const float wf[6] = {w->tire_friction, w->damping_rate, w->max_steer_angle, w->radius, w->max_brake_torque,
                             w->max_handbrake_torque};
        if (!finite_f(wf, 6) || !sensim__finite_array_d(w->position, 3))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: wheel %u not finite", fn, i);
    }
    buf *b = &m->msg;
    c_begin(b);
    c_u32(b, v->id);
    c_str(b, v->type);
    c_str(b, v->rolename);
    c_u32(b, v->wheel_count);
    for (uint32_t i = 0; i < v->wheel_count; i++) {
        const sensim_vehicle_wheel *w = &v->wheels[i];
        c_f32(b, w->tire_friction);
        c_f32(b, w->damping_rate);
        c_f32(b, w->max_steer_angle);
        c_f32(b, w->radius);
        c_f32(b, w->max_brake_torque);
        c_f32(b, w->max_handbrake_torque);
        c_f64s(b, w->position, 3);
    }
    for (int i = 0; i < 5; i++)
        c_f32(b, f[i]);
    c_u8(b, v->use_gear_autobox);
    for (int i = 5; i < 9; i++)
        c_f32(b, f[i]);
    c_f64s(b, v->center_of_mass, 3);
    return sensim__mcap_emit(m, tp, log_ns);
}

static sensim_status write_control(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp, const char *frame_id,
                                   const sensim_vehicle_control *c)
{
    static const char fn[] = "sensim_mcap_write_vehicle_control";
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_VEHICLE_CONTROL, log_ns, stamp, frame_id, fn);
    if (st)
        return st;
    if (!c)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: control is NULL", fn);
    if ((st = check_control(c, fn)))
        return st;
    buf *b = &m->msg;
    c_begin(b);
    c_header(b, stamp + m->stamp_offset_ns, frame_id);
    c_control_body(b, c);
    return sensim__mcap_emit(m, tp, log_ns);
}

static sensim_status write_collision(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp, const char *frame_id,
                                     uint32_t other, const double impulse[3])
{
    static const char fn[] = "sensim_mcap_write_collision";
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_COLLISION, log_ns, stamp, frame_id, fn);
    if (st)
        return st;
    if (!impulse)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: normal_impulse is NULL", fn);
    if (!sensim__finite_array_d(impulse, 3))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s: normal_impulse not finite", fn);
    buf *b = &m->msg;
    c_begin(b);
    c_header(b, stamp + m->stamp_offset_ns, frame_id);
    c_u32(b, other);
    c_f64s(b, impulse, 3);
    return sensim__mcap_emit(m, tp, log_ns);
}

static sensim_status write_lane_invasion(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp,
                                         const char *frame_id, const int32_t *mk, uint32_t n)
{
    static const char fn[] = "sensim_mcap_write_lane_invasion";
    sensim_status st = sensim__mcap_check_write(m, tp, SENSIM_ROS_LANE_INVASION, log_ns, stamp, frame_id, fn);
    if (st)
        return st;
    if (n > MAX_MARKINGS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: %u markings (at most %d)", fn, n, MAX_MARKINGS);
    if (n && !mk)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: markings is NULL with count %u", fn, n);
    buf *b = &m->msg;
    c_begin(b);
    c_header(b, stamp + m->stamp_offset_ns, frame_id);
    c_u32(b, n);
    for (uint32_t i = 0; i < n; i++)
        c_u32(b, (uint32_t)mk[i]);
    return sensim__mcap_emit(m, tp, log_ns);
}

/* The public calls: each holds the writer's lock (mcap_impl.h), so threads sharing a writer take turns. */
sensim_status sensim_mcap_write_vehicle_status(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp,
                                               const char *frame_id, const sensim_vehicle_status *s)
{
    SENSIM__MCAP_LOCKED(m, write_status(m, tp, log_ns, stamp, frame_id, s));
}

sensim_status sensim_mcap_write_vehicle_info(sensim_mcap *m, uint16_t tp, int64_t log_ns, const sensim_vehicle_info *v)
{
    SENSIM__MCAP_LOCKED(m, write_info(m, tp, log_ns, v));
}

sensim_status sensim_mcap_write_vehicle_control(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp,
                                                const char *frame_id, const sensim_vehicle_control *c)
{
    SENSIM__MCAP_LOCKED(m, write_control(m, tp, log_ns, stamp, frame_id, c));
}

sensim_status sensim_mcap_write_collision(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp,
                                          const char *frame_id, uint32_t other, const double impulse[3])
{
    SENSIM__MCAP_LOCKED(m, write_collision(m, tp, log_ns, stamp, frame_id, other, impulse));
}

sensim_status sensim_mcap_write_lane_invasion(sensim_mcap *m, uint16_t tp, int64_t log_ns, int64_t stamp,
                                              const char *frame_id, const int32_t *mk, uint32_t n)
{
    SENSIM__MCAP_LOCKED(m, write_lane_invasion(m, tp, log_ns, stamp, frame_id, mk, n));
}
