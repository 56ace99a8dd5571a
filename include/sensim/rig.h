/**
 * @file sensim/rig.h
 * @brief Synchronous multi-sensor rigs: one world clock, exact per-sensor frames.
 *
 * A rig advances simulated time in steps of any length; every sensor fires
 * exactly the shots that fall in each step into its own ring. Sensor periods
 * need not divide the step: frames are cut at each sensor's own period and
 * each frame header records the world steps it spans (world_step_first ..
 * world_step_last), so a host can assemble synchronised samples. World step
 * s covers [t0 + Σ previous dt, + dt); steps are numbered from 0.
 */
#ifndef SENSIM_RIG_H
#define SENSIM_RIG_H

#include <sensim/camera.h>
#include <sensim/lidar.h>
#include <sensim/nav.h>
#include <sensim/radar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A rig: sensors on one platform stepped on one world clock (opaque; sensim_rig_create()). */
typedef struct sensim_rig sensim_rig;

#define SENSIM_RIG_MAX_SENSORS 64 /**< most sensors a rig holds */

/**
 * Proximity ("safe distance") sensor: at each of its frames it reports the
 * actors whose oriented bounding boxes overlap the parent's box grown by the
 * margins, evaluated at the frame's start time. Each report is one point
 * record: x, y, z = the actor box centre in the platform frame (metres),
 * range_m = its distance from the parent box centre, object_id = actor id,
 * tag = the actor mesh's first triangle tag, intensity 0, t_offset_ns 0.
 * Frames are [k·P, (k+1)·P), P = round(1e9 / rate_hz), published at once.
 */
typedef struct sensim_proximity_desc {
    uint32_t sensor_id;           /**< written as lidar_id in its frame headers */
    uint32_t exclude_actor_id;    /**< the parent's own actor id, never reported (0 = none) */
    double rate_hz;               /**< frames per second, [0.1, 1000] */
    double box_center[3];         /**< parent box centre in the platform frame, metres */
    double box_half_extents[3];   /**< parent box half sizes, metres (> 0) */
    double front_m;               /**< margin added ahead (+x), metres (>= 0) */
    double back_m;                /**< margin added behind (−x) */
    double side_m;                /**< margin added on each side (±y) */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_proximity_desc;

/** Fill @p d with defaults (zero, rate 10 Hz, 1 m half extents). Since 0.1. */
SENSIM_API void sensim_proximity_desc_init(sensim_proximity_desc *d);

/**
 * Create an empty rig at time 0, world step 0.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_rig_create(sensim_context *ctx, sensim_rig **out_rig);

/** Destroy a rig (not its lidars or rings). NULL is a no-op. Since 0.1. */
SENSIM_API void sensim_rig_destroy(sensim_rig *rig);

/**
 * Add a lidar writing into @p ring. Both are borrowed until the rig is
 * destroyed; the rig drives the lidar (do not scan it directly meanwhile).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_HANDLE (ring),
 *         SENSIM_ERR_TOO_LARGE (more than 64 sensors), SENSIM_ERR_DUPLICATE (same lidar or ring twice).
 * Thread safety: one thread at a time per rig. Since 0.1.
 */
SENSIM_API sensim_status sensim_rig_add_lidar(sensim_rig *rig, sensim_lidar *lidar, sensim_ring *ring,
                                              uint32_t *out_index);

/**
 * Add a proximity sensor writing into @p ring (borrowed). Descriptor copied.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE,
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_TOO_LARGE, SENSIM_ERR_DUPLICATE.
 * Thread safety: one thread at a time per rig. Since 0.1.
 */
SENSIM_API sensim_status sensim_rig_add_proximity(sensim_rig *rig, const sensim_proximity_desc *desc,
                                                  sensim_ring *ring, uint32_t *out_index);

/**
 * Add a camera taking images at @p rate_hz on the world clock (CARLA's
 * `sensor_tick`): capture k happens at t = k·P, P = round(1e9 / rate_hz) ns,
 * and is rendered by the step whose interval [t0, t1) holds k·P, so a 20 Hz
 * camera in 10 Hz steps gives exactly two images a step, for any way the
 * host splits time. Each capture is one frame [k·P, (k+1)·P) of @p ring,
 * an image ring (sensim_image_ring_init) whose size matches the camera and
 * whose outputs are the images rendered; the header carries the camera's
 * world pose at k·P and @p sensor_id. The camera and the ring are borrowed
 * until the rig is destroyed (do not render the camera elsewhere meanwhile:
 * the step would fail with SENSIM_ERR_BUSY).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, a point ring, or a
 *         ring whose image size differs from the camera's; the message says
 *         which), SENSIM_ERR_OUT_OF_RANGE / SENSIM_ERR_NOT_FINITE (rate
 *         outside [0.1, 1000] Hz), SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_TOO_LARGE,
 *         SENSIM_ERR_DUPLICATE (camera or ring already in the rig),
 *         SENSIM_ERR_BUSY (while the rig steps).
 * Thread safety: one thread at a time per rig. Since 0.1.
 */
SENSIM_API sensim_status sensim_rig_add_camera(sensim_rig *rig, sensim_camera *camera, double rate_hz,
                                               uint32_t sensor_id, sensim_ring *ring, uint32_t *out_index);

/**
 * Add a navigation sensor (IMU, GNSS, odometry; borrowed until the rig is
 * destroyed) writing sample k at exactly k·period into @p ring, a
 * navigation ring (sensim_nav_ring_init): one frame [k·P, (k+1)·P) per
 * sample, header pose = the sensor's world pose at k·P. The kinematics come
 * from the platform keys given to each step (sensim_kinematics_at with the
 * sensor's interpolation): give the steps keys around them (a spline reads
 * the 5 nearest keys of each key it interpolates between) — the same keys
 * for every step give the same samples for any split. A failed step rolls
 * the sensor's random walks back with the rings.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, not a navigation
 *         ring), SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_TOO_LARGE,
 *         SENSIM_ERR_DUPLICATE, SENSIM_ERR_BUSY.
 * Thread safety: one thread at a time per rig. Since 0.1.
 */
SENSIM_API sensim_status sensim_rig_add_nav(sensim_rig *rig, sensim_nav *nav, sensim_ring *ring, uint32_t *out_index);

/**
 * Add a radar (borrowed until the rig is destroyed) writing sample k, taken
 * at exactly k·P, as frame [k·P, (k+1)·P) of @p ring, a point ring whose
 * records are sensim_radar_detection (same 32-byte size; header pose = the
 * radar's world pose at k·P). Kinematics from each step's platform keys, as
 * for navigation sensors.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, not a point ring),
 *         SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_TOO_LARGE, SENSIM_ERR_DUPLICATE,
 *         SENSIM_ERR_BUSY. Thread safety: one thread at a time per rig. Since 0.1.
 */
SENSIM_API sensim_status sensim_rig_add_radar(sensim_rig *rig, sensim_radar *radar, sensim_ring *ring,
                                              uint32_t *out_index);

/* ---- sensors of your own ---------------------------------------------- */

/** The frame a user sensor's callback fills (valid during the callback only). */
typedef struct sensim_sensor_output sensim_sensor_output;

/** One sample of a user sensor, as its callback sees it. */
typedef struct sensim_sensor_sample {
    uint32_t sensor_index;       /**< the sensor's index in the rig */
    uint32_t sensor_id;          /**< its descriptor's id (frame headers' lidar_id) */
    uint64_t frame_number;       /**< k: this sample is at k·period_ns */
    int64_t t_ns;                /**< sample time on the world clock, k·period_ns */
    int64_t period_ns;           /**< round(1e9 / rate_hz) */
    uint64_t world_step;         /**< the rig step taking the sample */
    double platform_pose[16];    /**< platform (body) pose in the world at t_ns, column-major */
    const sensim_scene *scene;   /**< committed and held for the step: ray queries (sensim/query.h)
                                      and camera renders at t_ns; edits are refused */
    sensim_sensor_output *output; /**< this sample's frame [t_ns, t_ns + period_ns) in the sensor's ring */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_sensor_sample;

/** A user sensor's callback: fill sample->output, return SENSIM_OK; any
 *  other status aborts the whole rig step (a transaction: nothing of the
 *  step stays in any ring, the clock does not move). */
typedef sensim_status (*sensim_sensor_fn)(void *user, const sensim_sensor_sample *sample);

/** A sensor of your own in a rig (CARLA's "register, spawn on a parent, listen"). */
typedef struct sensim_sensor_desc {
    uint32_t sensor_id;          /**< written as lidar_id in its frame headers */
    uint32_t reserved_u32; /**< reserved: 0 */
    double rate_hz;              /**< samples per second, [0.1, 1e6]; the period is rounded to whole ns */
    sensim_sensor_fn sample;     /**< called once per sample, on the thread that steps the rig */
    void *user;                  /**< passed to @ref sample */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_sensor_desc;

/** Defaults: id 0, 10 Hz, no callback. Since 0.1. */
SENSIM_API void sensim_sensor_desc_init(sensim_sensor_desc *desc);

/**
 * Add a sensor of your own writing into @p ring (borrowed). At every sample
 * time k·P (P = round(1e9 / rate_hz) ns) inside a step [t, t + dt) the rig
 * opens the frame [k·P, (k+1)·P) in @p ring (header: platform pose at k·P,
 * sensor id, world step), calls @p desc->sample, and publishes the frame —
 * in sensor order, then time order, on the stepping thread, so the records
 * are the same for any thread count and any way the host splits time.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL callback, reserved
 *         fields), SENSIM_ERR_OUT_OF_RANGE / NOT_FINITE (rate),
 *         SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_TOO_LARGE, SENSIM_ERR_DUPLICATE,
 *         SENSIM_ERR_BUSY (called from a sensor callback of this rig).
 * Thread safety: one thread at a time per rig. Since 0.1.
 */
SENSIM_API sensim_status sensim_rig_add_sensor(sensim_rig *rig, const sensim_sensor_desc *desc, sensim_ring *ring,
                                               uint32_t *out_index);

/**
 * Append @p count records to the sample's frame (copied; any fields the
 * sensor likes, documented by the sensor). Ring overflow is handled and
 * counted by the ring's policy, as for lidars.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, or an output whose
 *         callback has returned), SENSIM_ERR_NOT_FINITE (a NaN or infinite
 *         x, y, z or range_m; the message names the record; nothing of
 *         this call is appended).
 * Thread safety: the callback's thread only. Since 0.1.
 */
SENSIM_API sensim_status sensim_sensor_output_push(sensim_sensor_output *output, const sensim_point *points,
                                                   uint64_t count);

/* ---- consumers: what reads the rings as the rig steps -------------------- */

/**
 * A consumer of one sensor's ring (a sink: files, a bag, a live topic, a
 * script's `listen()` callback). Called after each successful step, on the
 * stepping thread, with the ring that the step wrote; it reads complete
 * frames with the ring's consumer calls (sensim_ring_peek / _pop /
 * _peek_image / _peek_nav, then sensim_ring_release) and returns SENSIM_OK
 * or a status that sensim_rig_step then returns.
 */
typedef sensim_status (*sensim_ring_consumer)(void *user, uint32_t sensor_index, sensim_ring *ring);

/**
 * Attach @p fn (with @p user, borrowed) as the consumer of sensor
 * @p sensor_index's ring, replacing any earlier one; @p fn NULL detaches.
 * After a step has committed, consumers run in sensor order; the rig's own
 * calls are refused inside them (SENSIM_ERR_BUSY). A consumer's failure does
 * not undo the step (the clock has moved, frames it did not release stay in
 * the ring): sensim_rig_step returns that status, its message prefixed with
 * the sensor, and the later sensors' consumers still run.
 * @return SENSIM_OK, SENSIM_ERR_BAD_INDEX (no such sensor), SENSIM_ERR_BUSY
 *         (while the rig steps), SENSIM_ERR_BAD_HANDLE.
 * Thread safety: one thread at a time per rig. Since 0.2.
 */
SENSIM_API sensim_status sensim_rig_set_consumer(sensim_rig *rig, uint32_t sensor_index, sensim_ring_consumer fn,
                                                 void *user);

/* ---- the platform's motion ---------------------------------------------- */

/** Size of a rig's pose history (keys pushed and not yet stepped past, plus
 *  the 4 a new key's stencil reads): memory is fixed, whatever the run's length. */
#define SENSIM_RIG_HISTORY_KEYS 4096

#define SENSIM_STATE_VELOCITY             1u /**< sensim_platform_state.velocity is given */
#define SENSIM_STATE_ACCELERATION         2u /**< .acceleration is given */
#define SENSIM_STATE_ANGULAR_VELOCITY     4u /**< .angular_velocity is given */
#define SENSIM_STATE_ANGULAR_ACCELERATION 8u /**< .angular_acceleration is given */

/** What a host knows of the platform at one time (a vehicle-dynamics tool's
 *  output). Derivatives flagged in @ref sensim_platform_state::given are used exactly; the others
 *  come from the pushed poses (SENSIM_INTERP_CAUSAL in sensim/nav.h). */
typedef struct sensim_platform_state {
    double pose[16];                /**< platform (body) to world, column-major, metres; rigid */
    uint32_t given;                 /**< SENSIM_STATE_* bits */
    uint32_t reserved_u32; /**< reserved: 0 */
    double velocity[3];             /**< world frame, m/s (|v| <= 1e5) */
    double acceleration[3];         /**< world frame, m/s², kinematic: gravity not included (|a| <= 1e6) */
    double angular_velocity[3];     /**< body frame, rad/s (|ω| <= 1e4) */
    double angular_acceleration[3]; /**< body frame, rad/s² (|α| <= 1e7) */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_platform_state;

/** Fill @p state: identity pose, nothing given. Since 0.2. */
SENSIM_API void sensim_platform_state_init(sensim_platform_state *state);

/**
 * Push the platform's pose at @p t_ns into the rig's history (copied), as a
 * host learns it: a co-simulation pushes the pose it just computed, then
 * steps up to it. Steps without keys (sensim_rig_step with platform NULL)
 * give every sensor — lidars shot by shot, cameras row by row, IMU, GNSS,
 * odometry, radar, proximity and user sensors — its pose and derivatives
 * from this one history through one motion model, SENSIM_INTERP_CAUSAL
 * (sensim/nav.h): C² in position, C¹ in rotation (and C² up to the
 * O(|φ|·|ω|²) term), each key's derivatives from it and the up to 4 keys
 * before it, so the motion between two keys never changes once both are
 * pushed and results do not depend on how the host splits time into steps.
 * Error: exact for motion polynomial to degree 4 from the 5th key on;
 * otherwise ≈ (5/6)·h³·|x⁽⁵⁾| in acceleration and h⁴/5·|x⁽⁵⁾| in velocity
 * at the keys (h the key spacing). Pose noise σ becomes ≈ 14·σ/h² of
 * acceleration noise (the stencil's weights): hosts with float32 or noisy
 * poses should push states with their accelerations. The first key takes
 * the first two keys' velocity and body rate and no acceleration (the
 * first segment is straight), and the next three have shorter stencils: a
 * platform that starts moving reads start-up errors for 4 key intervals
 * (up to about twice its acceleration) unless its states are pushed there.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL), SENSIM_ERR_NOT_FINITE,
 *         SENSIM_ERR_OUT_OF_RANGE (time beyond ±2^62 ns, translation beyond
 *         the coordinate limit, a pose that is not rigid), SENSIM_ERR_TIME_ORDER
 *         (t_ns not after the last pushed key), SENSIM_ERR_TOO_LARGE
 *         (SENSIM_RIG_HISTORY_KEYS keys ahead of the rig's time: step first),
 *         SENSIM_ERR_BUSY (from a sensor callback of this rig),
 *         SENSIM_ERR_OUT_OF_MEMORY (the first push allocates 0.6 MB).
 *         On error nothing is pushed; the message names the field.
 * Thread safety: one thread at a time per rig; a call while the rig steps
 * or runs another call (a second thread, a sensor callback, a consumer) is
 * refused with SENSIM_ERR_BUSY, never raced. Since 0.2.
 */
SENSIM_API sensim_status sensim_rig_push_pose(sensim_rig *rig, int64_t t_ns, const double pose[16]);

/**
 * Push a platform state at @p t_ns (copied): as sensim_rig_push_pose, with
 * the derivatives flagged in state->given used exactly at that key (the
 * IMU at t_ns reads them, up to its own noise), the others estimated.
 * @return as sensim_rig_push_pose, and SENSIM_ERR_INVALID_ARGUMENT (unknown
 *         bits in given, reserved fields), SENSIM_ERR_NOT_FINITE /
 *         SENSIM_ERR_OUT_OF_RANGE (a given vector; the message names it).
 * Thread safety: one thread at a time per rig. Since 0.2.
 */
SENSIM_API sensim_status sensim_rig_push_state(sensim_rig *rig, int64_t t_ns, const sensim_platform_state *state);

/**
 * Push a jump: the platform is at @p pose (copied) from @p t_ns on, with no
 * motion in between (an episode reset, a teleport, CARLA's set_transform, a
 * relocalisation). A jump ends the current motion segment and starts a new
 * one: before @p t_ns every sensor reads the old segment, which ends at the
 * last key pushed before the jump and holds that key's state exactly up to
 * @p t_ns; from @p t_ns on it reads the new segment, starting exactly at
 * @p pose. Nothing interpolates across the jump and derivatives restart:
 * the new segment's keys take their velocity, acceleration and body rates
 * from the keys of their own segment only (a parked platform reads zero on
 * both sides; an IMU sees no spike). @p t_ns may equal the last key's time
 * (that key then ends the old segment at the jump: the form of a trajectory
 * file with two rows at one time). Without a jump the model stays C²
 * (sensim_rig_push_pose). A jump as the first push is a plain first key.
 * @return as sensim_rig_push_pose; SENSIM_ERR_TIME_ORDER when @p t_ns is
 *         before the last pushed key, equal to the time of a key that is
 *         itself a jump, or before the rig's time (steps already done).
 * Thread safety: one thread at a time per rig (as sensim_rig_push_pose). Since 0.2.
 */
SENSIM_API sensim_status sensim_rig_jump_to_pose(sensim_rig *rig, int64_t t_ns, const double pose[16]);

/**
 * Push a jump to a platform state (copied): as sensim_rig_jump_to_pose, with
 * the derivatives flagged in state->given used exactly at @p t_ns (a vehicle
 * reset to a moving state) and the others estimated from the new segment.
 * @return as sensim_rig_push_state and sensim_rig_jump_to_pose.
 * Thread safety: one thread at a time per rig. Since 0.2.
 */
SENSIM_API sensim_status sensim_rig_jump_to_state(sensim_rig *rig, int64_t t_ns, const sensim_platform_state *state);

/**
 * The platform's state at @p t_ns from the rig's history and motion model:
 * what every sensor of a step without keys reads (pose, world velocity and
 * acceleration, body rate and angular acceleration).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_EMPTY (nothing
 *         pushed), SENSIM_ERR_OUT_OF_RANGE (t_ns outside the keys held).
 * Thread safety: one thread at a time per rig. Since 0.2.
 */
SENSIM_API sensim_status sensim_rig_platform_at(sensim_rig *rig, int64_t t_ns, sensim_kinematics *out);

/**
 * Set the rig's current time (before the first step only).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (after a step).
 * Thread safety: one thread at a time per rig. Since 0.1.
 */
SENSIM_API sensim_status sensim_rig_set_time(sensim_rig *rig, int64_t t_ns);

/**
 * Number the rig's next step @p world_step (before the first step only), so
 * that a run started mid-way (a shard of a batch, a resumed run) writes the
 * world step numbers of the whole run into its frame headers
 * (world_step_first / world_step_last) and step results.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (after a step),
 *         SENSIM_ERR_OUT_OF_RANGE (above 2^62), SENSIM_ERR_BAD_HANDLE.
 * Thread safety: one thread at a time per rig. Since 0.2.
 */
SENSIM_API sensim_status sensim_rig_set_world_step(sensim_rig *rig, uint64_t world_step);

/** What one step did. */
typedef struct sensim_rig_step_result {
    uint64_t world_step;         /**< number of this step */
    int64_t t_begin_ns;          /**< world time the step started at, ns */
    int64_t t_end_ns;            /**< world time the step ended at (exclusive), ns */
    uint64_t frames_completed;   /**< frames published by all sensors */
    uint32_t sensors_refused;    /**< sensors whose ring refused the step (FAIL policy; counted in the ring) */
    uint32_t reserved_u32; /**< reserved: 0 */
    uint64_t rays_traced;        /**< rays the step's lidars traced (sensim_scan_result.rays_traced summed;
                                      cameras, radars and proximity sensors not counted). Since 0.2 (was
                                      reserved[0]). */
    uint64_t reserved[3]; /**< reserved: 0 */
} sensim_rig_step_result;

/**
 * Advance the rig by @p dt_ns: every sensor covers [t, t + dt).
 * With @p platform NULL the poses come from the rig's own history
 * (sensim_rig_push_pose / sensim_rig_push_state) through its one motion
 * model; the pushed keys must cover [t, t + dt] (a step may go up to the
 * last pushed time, not beyond; SENSIM_ERR_TIME_ORDER says which end is
 * missing). Rolling-shutter camera rows after the last pushed key hold its
 * pose. With @p platform given, its keys should cover the step: with
 * platform->interp = SENSIM_INTERP_CAUSAL every sensor reads them through
 * the rig's motion model (give the 4 keys before the step too); with
 * SENSIM_INTERP_LINEAR (0, as before 0.2) lidars, cameras, proximity and user
 * sensors interpolate linearly (slerp) and navigation sensors and radars
 * with their own descriptor's interpolation. platform->world_step is
 * ignored and replaced by the rig's counter. A sensor
 * whose ring refuses (SENSIM_OVERFLOW_FAIL and full) skips this step — the
 * refusal is counted in its ring's stats and its frame is flagged partial —
 * and the step still succeeds: a full ring never blocks the world.
 * The step is one transaction: the scene stays committed for all sensors
 * (no edit lands between them), every lidar is held and checked before any
 * is traced.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (dt <= 0, NULL scene,
 *         platform NULL and nothing pushed), SENSIM_ERR_TIME_ORDER (platform
 *         NULL: the history does not cover the step), SENSIM_ERR_NOT_COMMITTED, SENSIM_ERR_BUSY (scene edited, or a
 *         member lidar scanning elsewhere), SENSIM_ERR_TIME_ORDER (a member
 *         lidar was scanned past t outside the rig), SENSIM_ERR_OUT_OF_RANGE
 *         (t + dt beyond 2^62 ns), SENSIM_ERR_CANCELLED, and motion-key
 *         errors, or the status a user sensor's callback returned; on
 *         error no ring holds anything of the step, no lidar moved on and
 *         the clock did not move (retry the same step). SENSIM_ERR_BUSY
 *         also when called from one of this rig's sensor callbacks.
 * Thread safety: one thread at a time per rig; the scene may be shared;
 * member lidars must not be destroyed while in the rig. Since 0.1.
 */
SENSIM_API sensim_status sensim_rig_step(sensim_rig *rig, const sensim_scene *scene, int64_t dt_ns,
                                         const sensim_motion *platform, sensim_rig_step_result *out_result);

/** sensim_rig_advance flag: the pose is a jump (sensim_rig_jump_to_pose). */
#define SENSIM_ADVANCE_JUMP 1u

/**
 * The host fast path: push the platform's @p pose at @p t_ns (copied; as
 * sensim_rig_push_pose, or sensim_rig_jump_to_pose with SENSIM_ADVANCE_JUMP)
 * and step the rig from its time up to @p t_ns through its history (as
 * sensim_rig_step with platform NULL), in one call: a co-simulation at 1 kHz
 * makes one call a tick. @p t_ns equal to the rig's time (the first pose, or
 * a jump at the current time) only pushes. Results are those of the two
 * calls made one after the other, bit for bit.
 * @return as sensim_rig_push_pose and sensim_rig_step; SENSIM_ERR_INVALID_ARGUMENT
 *         (unknown flags). When the step is refused, the pushed key is taken
 *         back too (unless the history had to drop old keys for it): the
 *         call changes nothing, and the same call may be retried.
 * Thread safety: one thread at a time per rig (as sensim_rig_step). Since 0.2.
 */
SENSIM_API sensim_status sensim_rig_advance(sensim_rig *rig, const sensim_scene *scene, int64_t t_ns,
                                            const double pose[16], uint32_t flags,
                                            sensim_rig_step_result *out_result);

#ifdef __cplusplus
}
#endif

#endif
