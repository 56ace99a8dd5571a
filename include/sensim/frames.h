/**
 * @file sensim/frames.h
 * @brief Conversions between the native frame and CARLA / Unreal frames.
 *
 * Native (and ISO 8855 vehicle axes, and ROS REP-103): right-handed, x
 * forward, y left, z up, metres, radians.
 * CARLA Python API: left-handed, x forward, y right, z up, metres; rotations
 * in degrees as (pitch, yaw, roll) with yaw positive clockwise seen from above
 * and pitch positive nose up. Unreal (UE): the same in centimetres.
 * Mapping: location (x, y, z) ↔ (x, −y, z); rotation: native roll = roll,
 * native pitch = −pitch, native yaw = −yaw (R = Rz(yaw)·Ry(pitch)·Rx(roll)).
 * Thread safety: every function here may be called from any thread.
 */
#ifndef SENSIM_FRAMES_H
#define SENSIM_FRAMES_H

#include <sensim/common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SENSIM_FRAME_NATIVE  0 /**< right-handed metres (also ISO 8855, REP-103) */
#define SENSIM_FRAME_CARLA   1 /**< CARLA Python API: left-handed, metres, degrees */
#define SENSIM_FRAME_UE      2 /**< Unreal: left-handed, centimetres, degrees */
#define SENSIM_FRAME_ISO8855 3 /**< alias of native */

/**
 * The frame's name as files and JSON write it: "native" (NATIVE, ISO8855 and
 * any unknown value), "carla" or "ue". Static text.
 * Thread safety: any thread. Since 0.2.
 */
SENSIM_API const char *sensim_frame_name(int32_t frame);

/**
 * Native pose (column-major double[16]) from a location and rotation given
 * in @p frame. For NATIVE/ISO8855, rotation_deg is (roll, pitch, yaw) in
 * degrees; for CARLA/UE it is CARLA's (pitch, yaw, roll) in degrees.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, unknown frame), SENSIM_ERR_NOT_FINITE.
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_pose_from_frame(int32_t frame, const double location[3],
                                                const double rotation_deg[3], double out_pose[16]);

/**
 * Inverse of sensim_pose_from_frame() for a rigid pose.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_NOT_FINITE.
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_pose_to_frame(int32_t frame, const double pose[16], double out_location[3],
                                              double out_rotation_deg[3]);

/**
 * A native pose matrix (column-major, maps native sensor points to the native
 * world) expressed in @p frame: S·M·S with S = diag(1, -1, 1) for CARLA and
 * UE (it maps frame-converted sensor points to the frame's world), the
 * translation in the frame's unit (UE: cm). Native and ISO 8855: a copy.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, unknown frame).
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_pose_matrix_to_frame(int32_t frame, const double pose[16], double out_pose[16]);

/** Point (or vector) from native to @p frame, in place-safe (in may equal out). Since 0.1. */
SENSIM_API sensim_status sensim_point_to_frame(int32_t frame, const double in[3], double out[3]);

/** Point from @p frame to native. Since 0.1. */
SENSIM_API sensim_status sensim_point_from_frame(int32_t frame, const double in[3], double out[3]);

#ifdef __cplusplus
}
#endif

#endif
