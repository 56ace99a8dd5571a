/**
 * @file sensim/vehicle.h
 * @brief CARLA's vehicle control and the kinematic vehicle model that turns
 *        it into motion (what sensim.carla drives CARLA vehicles with, and
 *        `sensim ros2 --control-in`).
 *
 * The model, per step of dt seconds, for a vehicle of wheelbase L: the
 * signed speed v (m/s, negative in reverse) gains throttle x 3.5 m/s^2
 * forward (2.0 in reverse), then braking (brake x 7.0 m/s^2, hand brake
 * 5.0) and resistance (0.05 v + 0.0015 v|v|) take speed away, never past
 * standstill; the front wheels turn by steer x 35 degrees (positive steer:
 * to the right, CARLA's sign); the yaw rate is v tan(wheel angle) / L (a
 * kinematic bicycle: no slip, no load transfer, no gears). The vehicle
 * moves along its heading at the mid-step yaw at the new speed, turning
 * about the world's z axis (its pitch and roll are kept). Limits: no
 * slopes, collisions, gravity or tyre forces. Frames: REP-103 (x forward,
 * y left, z up), so a right turn lowers the yaw.
 */
#ifndef SENSIM_VEHICLE_H
#define SENSIM_VEHICLE_H

#include <sensim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** CARLA's carla.VehicleControl (and carla_msgs/CarlaEgoVehicleControl's values). */
typedef struct sensim_vehicle_control {
    float throttle;            /**< 0..1 */
    float steer;               /**< -1..1; positive steers right (CARLA's sign, kept by carla-ros-bridge) */
    float brake;               /**< 0..1 */
    int32_t gear;              /**< CARLA's gear (0 with the automatic box); the model ignores it */
    uint8_t hand_brake;        /**< 0 or 1 */
    uint8_t reverse;           /**< 0 or 1 */
    uint8_t manual_gear_shift; /**< 0 or 1; the model ignores it */
    uint8_t reserved0;         /**< 0 */
} sensim_vehicle_control;

/** The model's figures (sensim_vehicle_model_init: sensim.carla's). */
typedef struct sensim_vehicle_model {
    double wheelbase_m;        /**< L, > 0 (2.9: a Tesla Model 3) */
    double throttle_mps2;      /**< forward acceleration at full throttle (3.5) */
    double reverse_mps2;       /**< backward acceleration at full throttle in reverse (2.0) */
    double brake_mps2;         /**< deceleration at full brake (7.0) */
    double hand_brake_mps2;    /**< deceleration of the hand brake (5.0) */
    double drag_linear_hz;     /**< resistance per m/s of speed (0.05 /s) */
    double drag_quadratic_pm;  /**< resistance per (m/s)^2 (0.0015 /m) */
    double max_wheel_rad;      /**< the front wheels' angle at full steer (35 degrees) */
    uint64_t reserved[4];      /**< 0 */
} sensim_vehicle_model;

/** sensim.carla's figures. Thread safety: any thread. Since 0.2. */
SENSIM_API void sensim_vehicle_model_init(sensim_vehicle_model *model);

/**
 * Advance a vehicle by @p dt_s under @p control (throttle and brake
 * clamped to [0, 1], steer to [-1, 1], as CARLA's vehicle applies them).
 * @param speed_mps  in: the signed speed; out: the new one.
 * @param pose       in/out: the vehicle's rigid pose in the world
 *                   (column-major, REP-103, z up).
 * @param out_yaw_rate  receives the yaw rate, rad/s (positive: left); may be NULL.
 * @return SENSIM_OK; SENSIM_ERR_INVALID_ARGUMENT (NULL); SENSIM_ERR_NOT_FINITE
 *         (a control value, the speed or the pose); SENSIM_ERR_OUT_OF_RANGE
 *         (dt_s outside (0, 3600], a model figure negative or L not > 0,
 *         reserved fields not 0). Nothing is written on failure.
 * Thread safety: any thread (it touches only its arguments). Since 0.2.
 */
SENSIM_API sensim_status sensim_vehicle_step(const sensim_vehicle_model *model, const sensim_vehicle_control *control,
                                             double dt_s, double *speed_mps, double pose[16], double *out_yaw_rate);

#ifdef __cplusplus
}
#endif

#endif
