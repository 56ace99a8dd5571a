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
#define SENSIM_INTERP_CAUSAL 2 /**< the rig's motion model (sensim/rig.h, sensim_rig_push_pose): as SPLINE
                                    (quintic Hermite in position) but each key's derivatives come from
                                    that key and the up to 4 keys before it only (backward Fornberg
                                    stencil), and rotations are quintic in φ with the key body rates and
                                    angular accelerations: the pose between two keys depends on no later
                                    key. Exact for motion polynomial to degree 4 once 5 keys exist;
                                    error ≈ (5/6)·h³·|x⁽⁵⁾| in acceleration, h⁴/5·|x⁽⁵⁾| in velocity at
                                    the keys (h the key spacing, x⁽⁵⁾ the fifth derivative: the jerk's
                                    second derivative). Fewer past keys lower the order: the first key
                                    takes the first two keys' velocity and body rate, no accelerations,
                                    and a platform that starts moving reads start-up errors for 4 key
                                    intervals (up to about twice its acceleration). */

/** Kinematic state of the platform at one time. */
typedef struct sensim_kinematics {
    double pose[16];             /**< platform-to-world, column-major */
    double velocity[3];          /**< world frame, m/s */
    double acceleration[3];      /**< world frame, m/s² (kinematic: no gravity) */
    double angular_velocity[3];  /**< body frame, rad/s */
    double angular_acceleration[3]; /**< body frame, rad/s² (SENSIM_INTERP_CAUSAL and rigs; 0 otherwise).
                                         Since 0.2 (was reserved, zero) */
    uint64_t reserved[1]; /**< reserved: 0 */
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

/* ---- navigation sensors ------------------------------------------------- */

/** Kinds of navigation sensor (sensim_nav_desc.kind). */
#define SENSIM_NAV_IMU      0 /**< accelerometer (specific force), gyroscope, compass */
#define SENSIM_NAV_GNSS     1 /**< latitude, longitude, altitude */
#define SENSIM_NAV_ODOMETRY 2 /**< ground truth: pose, velocities, acceleration */

/** GNSS conversions (sensim_nav_desc.gnss_model). */
#define SENSIM_GNSS_EXACT 0 /**< WGS84: the world frame is the local tangent plane (x east, y north, z up)
                                 at the reference; ENU -> ECEF -> geodetic through PROJ (exact) */
#define SENSIM_GNSS_CARLA 1 /**< CARLA 0.9.14/0.9.15: scaled spherical Mercator (R 6378137 m, no flattening),
                                 east = +x, north = +y (CARLA's -y), altitude = alt0 + z */

/** A navigation sensor. Fill with sensim_nav_desc_init(). Noise is
 *  deterministic: counter-based normals from (seed, sensor_id, sample, axis). */
typedef struct sensim_nav_desc {
    int32_t kind;                 /**< SENSIM_NAV_* */
    int32_t interp;               /**< SENSIM_INTERP_* used on the platform's keys (default SPLINE; CAUSAL: the
                                       rig's model, its angular acceleration for the lever arm). In a rig
                                       stepped from its history, or with causal keys, the rig's model is used */
    uint32_t sensor_id;           /**< written as lidar_id in frame headers */
    uint32_t seed;                /**< noise seed (counter-based draws: same seed, same samples) */
    double rate_hz;               /**< samples per second, [0.1, 10000]; sample k at k·round(1e9/rate_hz) ns */
    double mount_pose[16];        /**< sensor-to-platform, column-major (all zero: identity) */
    /* IMU */
    double gravity_mps2;          /**< standard gravity added to the specific force (default 9.80665;
                                       CARLA uses 9.81) */
    double accel_stddev[3];       /**< white noise per sample and axis, m/s² (CARLA noise_accel_stddev_*) */
    double gyro_stddev[3];        /**< white noise per sample and axis, rad/s (CARLA noise_gyro_stddev_*) */
    double gyro_bias[3];          /**< constant gyro bias, rad/s (CARLA noise_gyro_bias_*) */
    double accel_bias[3];         /**< constant accelerometer bias, m/s² */
    double accel_noise_density;   /**< white noise density N, m/s²/√Hz (σ per sample = N·√rate); Allan
                                       deviation N/√τ at short τ */
    double gyro_noise_density;    /**< rad/s/√Hz */
    double accel_random_walk;     /**< bias random walk K, m/s³/√Hz (bias += K·√Δt·n per sample);
                                       Allan deviation K·√(τ/3) at long τ */
    double gyro_random_walk;      /**< rad/s²/√Hz */
    /* GNSS */
    int32_t gnss_model;           /**< SENSIM_GNSS_* */
    uint32_t reserved_u32; /**< reserved: 0 */
    double ref_latitude_deg;      /**< geodetic latitude of the world origin (WGS 84), degrees */
    double ref_longitude_deg;     /**< geodetic longitude of the world origin, degrees */
    double ref_altitude_m;        /**< altitude of the world origin, metres (above the WGS 84 ellipsoid; model = carla: CARLA's) */
    double lat_bias_deg;          /**< GNSS latitude bias (CARLA `noise_lat_bias`), degrees */
    double lat_stddev_deg;        /**< GNSS latitude noise σ (CARLA `noise_lat_stddev`), degrees */
    double lon_bias_deg;          /**< GNSS longitude bias (CARLA `noise_lon_bias`), degrees */
    double lon_stddev_deg;        /**< GNSS longitude noise σ (CARLA `noise_lon_stddev`), degrees */
    double alt_bias_m;            /**< GNSS altitude bias (CARLA `noise_alt_bias`), metres */
    double alt_stddev_m;          /**< GNSS altitude noise σ (CARLA `noise_alt_stddev`), metres */
    uint64_t reserved[8]; /**< reserved: 0 */
} sensim_nav_desc;

/** Defaults for @p kind: 100 Hz (IMU, odometry) or 10 Hz (GNSS), spline,
 *  identity mount, gravity 9.80665, no noise, reference (0, 0, 0), exact
 *  GNSS. Thread safety: any thread. Since 0.1. */
SENSIM_API void sensim_nav_desc_init(sensim_nav_desc *desc, int32_t kind);

/**
 * Set one key from text, as rig files give them: rate_hz, interp
 * (linear|spline), seed, mount_xyz_m, mount_rpy_deg ("a, b, c"), gravity;
 * IMU: CARLA's noise_accel_stddev_x|y|z, noise_gyro_stddev_x|y|z,
 * noise_gyro_bias_x|y|z, and accel_bias_x|y|z, accel_noise_density,
 * gyro_noise_density, accel_random_walk, gyro_random_walk; GNSS: model
 * (exact|carla), latitude, longitude, altitude (the reference),
 * noise_lat_bias, noise_lat_stddev, noise_lon_bias, noise_lon_stddev,
 * noise_alt_bias, noise_alt_stddev.
 * @return SENSIM_OK, SENSIM_ERR_UNKNOWN_KEY, SENSIM_ERR_PARSE,
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_OUT_OF_RANGE (the message names
 *         key and value), SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_nav_desc_set(sensim_nav_desc *desc, const char *key, const char *value);

/** A navigation sensor: IMU, GNSS or odometry (opaque; sensim_nav_create()). */
typedef struct sensim_nav sensim_nav;

/**
 * Create a navigation sensor (the descriptor is copied and checked: rate,
 * finite values, non-negative noise, |latitude| <= 90, |longitude| <= 180,
 * a rigid mount, reserved zero).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE,
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_OUT_OF_MEMORY,
 *         SENSIM_ERR_IO (PROJ could not build the conversion).
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_nav_create(sensim_context *ctx, const sensim_nav_desc *desc, sensim_nav **out_nav);

/** Destroy (NULL: no-op; not while a rig holds it). Since 0.1. */
SENSIM_API void sensim_nav_destroy(sensim_nav *nav);

/** One navigation sample. Frames: "sensor" is the mount frame on the platform. */
typedef struct sensim_nav_sample {
    int64_t t_ns;                 /**< sample time on the world clock */
    uint64_t index;               /**< k: t_ns = k·period */
    uint32_t sensor_id;           /**< the sensor's id (sensim_nav_desc.sensor_id) */
    int32_t kind;                 /**< SENSIM_NAV_* */
    double accel[3];              /**< IMU: specific force (kinematic acceleration − gravity, so +g up at rest),
                                       sensor frame, m/s², lever arm included */
    double gyro[3];               /**< IMU: body rate of the sensor frame, rad/s */
    double compass_rad;           /**< IMU: CARLA's compass: heading of the sensor's +x projected on the
                                       ground, 0 = north (+y world), π/2 = east (+x), [0, 2π) */
    double latitude_deg;          /**< GNSS: WGS 84 latitude of the antenna (= sensor origin), degrees */
    double longitude_deg;         /**< GNSS: WGS 84 longitude, degrees */
    double altitude_m;            /**< GNSS: altitude, metres (above the WGS 84 ellipsoid; model = carla: ref_altitude_m + z) */
    double position[3];           /**< sensor origin, world frame, m (all kinds; noise-free) */
    double orientation[4];        /**< sensor-to-world quaternion (w, x, y, z) (all kinds; noise-free) */
    double velocity_world[3];     /**< sensor origin, world frame, m/s (noise-free) */
    double velocity_body[3];      /**< the same in the sensor frame */
    double angular_velocity[3];   /**< sensor frame, rad/s (noise-free) */
    double acceleration_world[3]; /**< sensor origin, kinematic, world frame, m/s² (noise-free) */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_nav_sample;

/**
 * Sample k of @p nav on the platform trajectory @p keys (any number ≥ 1;
 * see sensim_kinematics_at) into @p out. Random-walk biases carry state:
 * samples are meant to be taken in increasing k (a k at or below the last
 * one restarts the walk from sample 0, recomputing it).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_OUT_OF_RANGE (k·period beyond 2^62 ns), key errors.
 * Thread safety: one call at a time per sensor. Since 0.1.
 */
SENSIM_API sensim_status sensim_nav_sample_at(sensim_nav *nav, const sensim_pose_key *keys, uint64_t key_count,
                                              uint64_t k, sensim_nav_sample *out);

/**
 * East, North and Up variances (m², ENU, as a NavSatFix's
 * position_covariance) of a GNSS fix at @p latitude_deg with angular noise
 * σ_lat, σ_lon (degrees, the sensor's lat_stddev_deg / lon_stddev_deg) and
 * σ_alt (m), on the WGS 84 ellipsoid (a = 6378137 m, f = 1/298.257223563):
 * North = (σ_lat · M)², East = (σ_lon · N · cos φ)², Up = σ_alt², with the
 * meridian radius M = a(1 − e²)/(1 − e² sin²φ)^1.5 and the prime vertical
 * radius N = a/√(1 − e² sin²φ), σ in radians.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL), SENSIM_ERR_NOT_FINITE,
 *         SENSIM_ERR_OUT_OF_RANGE (|latitude| > 90, a negative σ).
 * Thread safety: any thread. Since 0.2.
 */
SENSIM_API sensim_status sensim_gnss_enu_variance(double latitude_deg, double lat_stddev_deg, double lon_stddev_deg,
                                                  double alt_stddev_m, double out_var_m2[3]);

/** Period of @p nav in ns (round(1e9 / rate_hz)); 0 for a bad handle. Since 0.1. */
SENSIM_API int64_t sensim_nav_period_ns(const sensim_nav *nav);

/**
 * Bytes of caller memory a ring of @p frame_capacity navigation samples
 * needs (one sample per frame; a sensim_ring, sensim/ring.h, with the same
 * header, transactions, overflow policies and counters; points_* count samples).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_nav_ring_required_size(uint32_t frame_capacity, size_t *out_size);

/** Initialise a navigation ring in @p mem (8-byte aligned, borrowed).
 *  @return as sensim_ring_init. Thread safety: no other call on @p mem. Since 0.1. */
SENSIM_API sensim_status sensim_nav_ring_init(void *mem, size_t size, uint32_t frame_capacity, int32_t overflow_policy,
                                              sensim_ring **out_ring);

/**
 * Look at the oldest sample of a navigation ring (release it with
 * sensim_ring_release()); @p out_header and @p out_sample point into the ring.
 * @return SENSIM_OK, SENSIM_ERR_RING_EMPTY, SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_INVALID_ARGUMENT (NULL, or not a navigation ring).
 * Thread safety: consumer thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_ring_peek_nav(sensim_ring *ring, const sensim_frame_header **out_header,
                                              const sensim_nav_sample **out_sample);

#ifdef __cplusplus
}
#endif

#endif
