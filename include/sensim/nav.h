/**
 * @file sensim/nav.h
 * @brief Platform kinematics, and the navigation sensors that read them on
 *        a rig's clock: IMU, GNSS and ground-truth odometry.
 *
 * Frames. The platform (body) frame is x forward, y left, z up; the world
 * frame is the scene's (z up; for GNSS, x east, y north, z up at the
 * geodetic reference). Angular velocities are body-frame, right-handed
 * (a left turn is +z). Times are ns on the world clock.
 */
#ifndef SENSIM_NAV_H
#define SENSIM_NAV_H

#include <sensim/lidar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Trajectory interpolation (sensim_kinematics_at, sensor descriptors). */
#define SENSIM_INTERP_LINEAR 0 /**< as scans: positions linear, rotations slerp between keys; velocity and
                                    rotation rate constant per segment, acceleration 0 */
#define SENSIM_INTERP_SPLINE 1 /**< positions C²: per segment the quintic Hermite matching position,
                                    velocity and acceleration at both keys; rotations C¹: q(t) =
                                    q_k·exp(φ(s)) with φ the cubic Hermite from 0 to log(q_k⁻¹q_k+1)
                                    matching the key body rates. Key velocities, accelerations and
                                    body rates are the derivatives of the polynomial through the 5
                                    nearest keys (Fornberg weights; positions and log(q_k⁻¹q_j)), so
                                    motion polynomial to degree 4, constant velocity and constant
                                    rotation are exact; a 50 m circle at 10 m/s keyed at 10 Hz gives
                                    its acceleration within 1.2e-5 m/s² (tests/test_nav.c). */

/** Kinematic state of the platform at one time. */
typedef struct sensim_kinematics {
    double pose[16];             /**< platform-to-world, column-major */
    double velocity[3];          /**< world frame, m/s */
    double acceleration[3];      /**< world frame, m/s² (kinematic: no gravity) */
    double angular_velocity[3];  /**< body frame, rad/s */
    uint64_t reserved[4];
} sensim_kinematics;

/**
 * State of the trajectory @p keys (any number ≥ 1, strictly increasing
 * times; each evaluation reads only the keys around @p t_ns) at @p t_ns.
 * Before the first key and after the last the end pose is held with zero
 * velocity, acceleration and rotation rate.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, no keys, unknown
 *         interpolation), SENSIM_ERR_TIME_ORDER, SENSIM_ERR_NOT_FINITE,
 *         SENSIM_ERR_OUT_OF_RANGE (a pose that is not rigid); keys are
 *         checked where they are read (the segment's and its neighbours').
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_kinematics_at(const sensim_pose_key *keys, uint64_t key_count, int32_t interp,
                                              int64_t t_ns, sensim_kinematics *out);

#ifdef __cplusplus
}
#endif

#endif
