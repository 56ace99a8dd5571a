/**
 * @file sensim/mcap.h
 * @brief ROS 2 bags without ROS: rosbag2-compatible MCAP files.
 *
 * A writer produces `PREFIX_0.mcap`, `PREFIX_1.mcap`, ... (one file unless a
 * split size or duration is set; rosbag2 names its files the same way). Each
 * file is MCAP version 0 with profile `ros2`: schemas in `ros2msg` encoding
 * holding the full message definition with its dependencies, as rosbag2
 * writes them (the Jazzy `.msg` texts); messages in `cdr` (XCDR1, little
 * endian, with the 4-byte encapsulation header); chunked, optionally
 * compressed (zstd or lz4 frames), with message indexes, chunk indexes,
 * statistics and summary offsets so readers can seek. `ros2 bag play
 * PREFIX_0.mcap`, `ros2 bag info` and Foxglove open the files directly.
 *
 * Time. Every call takes `log_ns`, the message's log (receive) time, and
 * writes it as both MCAP log time and publish time; header stamps are passed
 * separately. Times are ns of the world clock; log times must be >= 0 and
 * stamps within the range of builtin_interfaces/Time (int32 seconds).
 * Messages may be written in any time order (readers order them by log
 * time through the indexes).
 *
 * Frames. ROS is REP-103 (x forward, y left, z up; optical frames z
 * forward, x right, y down): libsensim's native frame. Poses are column-major
 * double[16] as everywhere in libsensim.
 *
 * Files are written to PATH.tmp.XXXXXX and renamed into place when complete
 * (at a split or at sensim_mcap_close()), so a PREFIX_N.mcap is never half
 * written. A refused argument (INVALID_ARGUMENT, OUT_OF_RANGE, NOT_FINITE,
 * TOO_LARGE, DUPLICATE) writes nothing and leaves the writer usable; a
 * failed write (IO, OUT_OF_MEMORY) fails the writer: later calls return
 * SENSIM_ERR_IO and sensim_mcap_close() removes the unfinished file (files
 * finished before stay).
 *
 * With compression (the default) a full chunk is compressed and written by
 * a thread of the writer while the caller fills the next (at most 16 chunks
 * and 64 MiB queued, one chunk always; then the caller waits): the file's
 * bytes are those of writing it in the caller, for any timing. A failure of
 * that thread fails the writer at the caller's next call. Adding a topic to
 * an open file, a split by size, sensim_mcap_get_stats() and
 * sensim_mcap_close() wait for the chunks queued.
 *
 * Thread safety: a writer (a bag or a live ROS 2 writer) may be shared by
 * threads: every call but sensim_mcap_close() holds the writer's lock, so
 * calls on one writer take turns and each message (and each capture of
 * sensim_mcap_write_capture()) is written whole. sensim_mcap_close() waits
 * for a call in progress but must not race with later calls (the handle is
 * freed); distinct writers on any threads.
 */
#ifndef SENSIM_MCAP_H
#define SENSIM_MCAP_H

#include <sensim/common.h>
#include <sensim/ring.h>
#include <sensim/camera.h>
#include <sensim/nav.h>
#include <sensim/vehicle.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Chunk compression. */
#define SENSIM_MCAP_NONE 0 /**< chunks stored as they are (rosbag2's default) */
#define SENSIM_MCAP_ZSTD 1 /**< Zstandard frames (libzstd) */
#define SENSIM_MCAP_LZ4  2 /**< LZ4 frames (liblz4's LZ4F format, as MCAP requires) */

/** Writer options. Fill with sensim_mcap_options_init(). */
typedef struct sensim_mcap_options {
    int32_t compression;  /**< SENSIM_MCAP_* (default ZSTD) */
    int32_t zstd_level;   /**< 1..19 (default 3) */
    uint64_t chunk_bytes; /**< uncompressed records per chunk, [1 KiB, 256 MiB] (default 1 MiB; a larger
                               message makes a chunk of its own) */
    uint64_t split_bytes; /**< start the next file once a file holds this many bytes (0: never; else >= 64 KiB) */
    int64_t split_ns;     /**< start the next file at a message whose log time is this far past the
                               file's earliest (0: never; else >= 1 ms). Messages written out of log-time
                               order can widen a file by how late they come. */
    uint64_t reserved[4]; /**< zero */
} sensim_mcap_options;

/** Defaults (zstd level 3, 1 MiB chunks, one file). Since 0.1. */
SENSIM_API void sensim_mcap_options_init(sensim_mcap_options *options);

/** A writer. */
typedef struct sensim_mcap sensim_mcap;

/**
 * Open a writer whose files are `PREFIX_N.mcap`. Nothing is created until
 * the first message.
 * @param prefix   path without `_N.mcap`, borrowed (copied; at most 4000 bytes).
 * @param options  NULL for the defaults.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE (an
 *         option outside its range), SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_mcap_open(const char *prefix, const sensim_mcap_options *options,
                                          sensim_mcap **out_writer);

/**
 * Finish the current file (data end, summary, footer; renamed into place)
 * and free the writer. After a failure the unfinished file is removed and the
 * failure is returned again. @p writer may be NULL (returns OK).
 * @param out_files  files completely written (may be NULL).
 * @return SENSIM_OK, SENSIM_ERR_IO, SENSIM_ERR_BAD_HANDLE.
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_mcap_close(sensim_mcap *writer, uint32_t *out_files);

/** Message types (the schema written for a topic). */
#define SENSIM_ROS_POINTCLOUD2 0 /**< sensor_msgs/msg/PointCloud2 */
#define SENSIM_ROS_IMAGE       1 /**< sensor_msgs/msg/Image */
#define SENSIM_ROS_CAMERA_INFO 2 /**< sensor_msgs/msg/CameraInfo */
#define SENSIM_ROS_IMU         3 /**< sensor_msgs/msg/Imu */
#define SENSIM_ROS_NAVSATFIX   4 /**< sensor_msgs/msg/NavSatFix */
#define SENSIM_ROS_ODOMETRY    5 /**< nav_msgs/msg/Odometry */
#define SENSIM_ROS_TF          6 /**< tf2_msgs/msg/TFMessage, QoS of /tf (reliable, volatile, depth 100) */
#define SENSIM_ROS_TF_STATIC   7 /**< tf2_msgs/msg/TFMessage, QoS of /tf_static (transient local, depth 1) */
#define SENSIM_ROS_CLOCK       8 /**< rosgraph_msgs/msg/Clock */
/* carla_msgs 1.3 (github.com/carla-simulator/ros-carla-msgs, master: what carla-ros-bridge builds), the
 * vehicle topics carla-ros-bridge publishes under /carla/<role_name>/. Since 0.2. */
#define SENSIM_ROS_VEHICLE_STATUS  9  /**< carla_msgs/msg/CarlaEgoVehicleStatus (vehicle_status) */
#define SENSIM_ROS_VEHICLE_INFO    10 /**< carla_msgs/msg/CarlaEgoVehicleInfo (vehicle_info), latched: reliable,
                                           transient local, depth 10, so a late subscriber gets it */
#define SENSIM_ROS_VEHICLE_CONTROL 11 /**< carla_msgs/msg/CarlaEgoVehicleControl (vehicle_control_cmd: the type
                                           a host subscribes to; sensim_mcap_write_vehicle_control) */
#define SENSIM_ROS_COLLISION      12 /**< carla_msgs/msg/CarlaCollisionEvent (collision) */
#define SENSIM_ROS_LANE_INVASION  13 /**< carla_msgs/msg/CarlaLaneInvasionEvent (lane_invasion) */

/**
 * Add a topic (an MCAP channel with its schema and `offered_qos_profiles`
 * metadata in rosbag2's integer form, readable by Humble and Jazzy).
 * @param topic  ROS name: starts with '/', then letters, digits, '_' and '/'
 *               (no "//", no trailing '/'), at most 255 bytes; borrowed.
 * @param type   SENSIM_ROS_*.
 * @param out_topic  receives the handle the write calls take.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (bad name or type),
 *         SENSIM_ERR_DUPLICATE (topic already added), SENSIM_ERR_TOO_LARGE
 *         (more than 1024 topics), SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_IO.
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_mcap_add_topic(sensim_mcap *writer, const char *topic, int32_t type,
                                               uint16_t *out_topic);

/**
 * Number a PointCloud2 topic's `ring` field as velodyne_pointcloud and the
 * tools built on it do: by elevation, 0 the lowest beam (on a VLP-16 ring
 * 0..15 read -15°, -13°, ... +15°, where the laser ids read -15°, +1°,
 * -13°, ...). From then on sensim_mcap_write_points() writes each record 4
 * bytes longer (point_step 36): `ring` (uint16 at offset 32) is
 * the rank of the point's channel among @p elevation_rad (equal elevations:
 * the lower channel first; a channel beyond @p channels keeps its id), and
 * `channel` (offset 28) stays the laser id. Without a ring order `ring` is
 * the laser id (point_step 32), which suits patterns without fixed beam
 * elevations (Livox, MEMS). The MCAP sink and the sensim command set it for
 * every mechanical lidar (sensim_lidar_get_elevations()).
 * @param elevation_rad  each channel's elevation, radians; copied. NULL with
 *                       channels 0 removes the order.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL writer or
 *         elevations, not a PointCloud2 topic of this writer),
 *         SENSIM_ERR_OUT_OF_RANGE (over 65535 channels),
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: as the writer's other calls. Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_set_ring_order(sensim_mcap *writer, uint16_t topic, const float *elevation_rad,
                                                    uint32_t channels);

/**
 * Stamp messages on another clock: from now on every header stamp (and the
 * /tf transforms' stamps) and every /clock value is the world time plus
 * @p offset_ns; log times are unchanged. 0 (the default) stamps world time,
 * as for nodes running with use_sim_time. The `sensim ros2 --stamp wall`
 * offset is the wall clock (CLOCK_REALTIME) at the first step minus that
 * step's world time, so paced clouds carry wall time for nodes that do not
 * use sim time. A stamp that would leave builtin_interfaces/Time (int32
 * seconds: 2038) is refused at its write with SENSIM_ERR_OUT_OF_RANGE.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL), SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_OUT_OF_RANGE (|offset| over 2^61 ns).
 * Thread safety: as the writer's other calls. Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_set_stamp_offset(sensim_mcap *writer, int64_t offset_ns);

/**
 * A topic's name and type, by handle (0 .. topics - 1 of sensim_mcap_stats).
 * @param out_name  receives the name; valid until the writer is closed.
 * @param out_type  receives its SENSIM_ROS_* type; may be NULL.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL writer or name, a
 *         topic never added), SENSIM_ERR_BAD_HANDLE.
 * Thread safety: as the writer's other calls. Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_topic(const sensim_mcap *writer, uint16_t topic, const char **out_name,
                                           int32_t *out_type);

/**
 * A PointCloud2 (height 1, width @p count, little endian) of @p count
 * records of @p record_size bytes described by @p fields (name, offset,
 * SENSIM_FIELD_* datatype, count; each field inside the record).
 * is_dense = true: libsensim never writes invalid points.
 * @param frame_id  tf frame of the points (1..255 bytes of letters, digits, '_', '/', '.', '-').
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE
 *         (times), SENSIM_ERR_TOO_LARGE (data over 4 GiB - 1), SENSIM_ERR_IO,
 *         SENSIM_ERR_OUT_OF_MEMORY, SENSIM_ERR_BAD_HANDLE.
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_mcap_write_cloud(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                 int64_t stamp_ns, const char *frame_id, const sensim_field *fields,
                                                 uint32_t field_count, uint32_t record_size, const void *records,
                                                 uint64_t count);

/**
 * A lidar frame as PointCloud2: stamp = the frame's t_begin_ns, the fields
 * of sensim_point_fields() (32-byte records as stored, sensor frame at each
 * shot's firing time) plus two aliases drivers' point types look for:
 * `t` (uint32 ns since the stamp, Ouster's name for t_offset_ns) and `ring`
 * (uint16, Velodyne's and Ouster's name for channel). Both spans of @p view.
 * @return as sensim_mcap_write_cloud().
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_mcap_write_points(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                  const char *frame_id, const sensim_frame_view *view);

/**
 * A sensor_msgs/Image: @p height rows of @p step bytes (>= width × the
 * encoding's bytes per pixel), top row first, little endian.
 * @param encoding  one of "rgb8", "bgr8", "bgra8", "rgba8", "mono8", "mono16",
 *                  "16UC1", "32FC1", "32FC3" (REP-118 depth: 32FC1 metres).
 * @return as sensim_mcap_write_cloud(); SENSIM_ERR_INVALID_ARGUMENT for an
 *         unknown encoding or a short step.
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_mcap_write_image(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                 int64_t stamp_ns, const char *frame_id, uint32_t width,
                                                 uint32_t height, const char *encoding, uint32_t step,
                                                 const void *data);

/**
 * An odometry navigation sample as nav_msgs/Odometry: the pose of
 * @p child_frame_id (the sample's position and orientation) in
 * @p odom_frame_id, the twist in the child frame (velocity_body,
 * angular_velocity); stamp and log time the sample's t_ns.
 * @return as sensim_mcap_write_odometry(). Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_write_odometry_sample(sensim_mcap *writer, uint16_t topic,
                                                           const char *odom_frame_id, const char *child_frame_id,
                                                           const sensim_nav_sample *sample);

/**
 * One camera capture: each image of @p images that is not NULL on its topic
 * of @p topics (depth, semantic, instance, normal, rgb; UINT16_MAX: not
 * written), then @p camera's CameraInfo on topics[5] (UINT16_MAX: none);
 * stamp and log time @p t_ns. Encodings: depth 32FC1 (planar metres,
 * REP-118), semantic mono8 (the tag), instance rgb8 in CARLA's layout (R the
 * tag, G and B the object id's low 16 bits; needs images->semantic), normal
 * 32FC3, rgb rgb8. What `sensim batch --format mcap` writes for a camera.
 * @return as sensim_mcap_write_image(); SENSIM_ERR_OUT_OF_MEMORY (W x H x 3
 *         bytes of scratch for instance). Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_write_capture(sensim_mcap *writer, const uint16_t topics[6], int64_t t_ns,
                                                   const char *frame_id, const sensim_camera *camera,
                                                   const sensim_camera_images *images);

/** A sensor_msgs/CameraInfo from sensim_camera_get_info(): D (5 values), K,
 *  R, P; binning 0, ROI zero (full image). @return as sensim_mcap_write_cloud(). Since 0.1. */
SENSIM_API sensim_status sensim_mcap_write_camera_info(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                       int64_t stamp_ns, const char *frame_id,
                                                       const sensim_camera_info *info);

/**
 * A sensor_msgs/Imu from an IMU sample: stamp = sample time; orientation =
 * the sample's (noise-free) sensor-to-world orientation, angular_velocity =
 * gyro, linear_acceleration = accel (specific force, REP-145). Covariances:
 * diagonal with the given variances (rad², (rad/s)², (m/s²)²); a negative
 * orientation variance writes -1 in element 0 ("no orientation estimate").
 * @return as sensim_mcap_write_cloud(); SENSIM_ERR_NOT_FINITE.
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_mcap_write_imu(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                               const char *frame_id, const sensim_nav_sample *sample,
                                               double orientation_var, double gyro_var, double accel_var);

/**
 * A sensor_msgs/NavSatFix from a GNSS sample: status FIX, service GPS,
 * latitude/longitude (degrees), altitude (m above the WGS 84 ellipsoid);
 * covariance diag(h, h, v) m² ENU, type DIAGONAL_KNOWN (or UNKNOWN with zeros
 * when both variances are 0).
 * @return as sensim_mcap_write_imu().
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_mcap_write_navsatfix(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                     const char *frame_id, const sensim_nav_sample *sample,
                                                     double horizontal_var_m2, double vertical_var_m2);

/**
 * sensim_mcap_write_imu() with a variance per axis, as an IMU whose axes
 * differ (noise_accel_stddev_x/y/z): covariances diag(gyro_var) and
 * diag(accel_var), in the sensor's x, y, z; orientation as
 * sensim_mcap_write_imu(). Negative gyro or accel variances are refused.
 * @return as sensim_mcap_write_imu(). Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_write_imu_axes(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                    const char *frame_id, const sensim_nav_sample *sample,
                                                    double orientation_var, const double gyro_var[3],
                                                    const double accel_var[3]);

/**
 * sensim_mcap_write_navsatfix() with the East, North and Up variances apart
 * (m², ENU as NavSatFix says): position_covariance diag(e, n, u), type
 * DIAGONAL_KNOWN (UNKNOWN with zeros when all are 0). From a GNSS sensor's
 * degrees: sensim_gnss_enu_variance().
 * @return as sensim_mcap_write_imu(). Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_write_navsatfix_enu(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                         const char *frame_id, const sensim_nav_sample *sample,
                                                         const double enu_var_m2[3]);

/**
 * A nav_msgs/Odometry: pose of @p child_frame_id in @p frame_id (a rigid
 * column-major pose), twist in the child frame (m/s, rad/s); covariances
 * zero (exact ground truth).
 * @return as sensim_mcap_write_imu().
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_mcap_write_odometry(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                    int64_t stamp_ns, const char *frame_id,
                                                    const char *child_frame_id, const double pose[16],
                                                    const double linear_body[3], const double angular_body[3]);

/** One transform of a tf2_msgs/TFMessage. */
typedef struct sensim_ros_transform {
    int64_t stamp_ns;         /**< header.stamp, ns on the world clock (or wall clock) */
    const char *parent_frame; /**< header.frame_id */
    const char *child_frame;  /**< child_frame_id */
    double pose[16];          /**< child-to-parent, column-major, rigid */
} sensim_ros_transform;

/** A tf2_msgs/TFMessage of @p count (1..65536) transforms. @return as
 *  sensim_mcap_write_imu(). Since 0.1. */
SENSIM_API sensim_status sensim_mcap_write_transforms(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                      const sensim_ros_transform *transforms, uint32_t count);

/** A rosgraph_msgs/Clock at @p clock_ns. @return as sensim_mcap_write_cloud(). Since 0.1. */
SENSIM_API sensim_status sensim_mcap_write_clock(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                 int64_t clock_ns);

/** carla_msgs/CarlaEgoVehicleStatus's values, as carla-ros-bridge fills them. */
typedef struct sensim_vehicle_status {
    double velocity;                /**< m/s, >= 0: the speed's magnitude (written as float32) */
    double linear_acceleration[3];  /**< m/s^2 in the header's frame (REP-103) */
    double angular_acceleration[3]; /**< rad/s^2 in the header's frame (carla-ros-bridge sends 0) */
    double orientation[4];          /**< x, y, z, w: the vehicle's orientation in the header's frame; unit
                                         within 1e-6 */
    sensim_vehicle_control control; /**< the control the vehicle applies now */
    uint64_t reserved[2];           /**< 0 */
} sensim_vehicle_status;

/** One wheel of carla_msgs/CarlaEgoVehicleInfo (CARLA's carla.WheelPhysicsControl, its units). */
typedef struct sensim_vehicle_wheel {
    float tire_friction;        /**< friction scale */
    float damping_rate;         /**< the wheel's damping rate */
    float max_steer_angle;      /**< degrees */
    float radius;               /**< cm */
    float max_brake_torque;     /**< N m */
    float max_handbrake_torque; /**< N m */
    double position[3];         /**< the wheel's position: carla-ros-bridge sends CARLA's world position (cm)
                                     with y negated (REP-103) */
} sensim_vehicle_wheel;

/** carla_msgs/CarlaEgoVehicleInfo's values (CARLA's carla.VehiclePhysicsControl and the actor's names). */
typedef struct sensim_vehicle_info {
    uint32_t id;                        /**< the actor's id */
    uint32_t wheel_count;               /**< 0..64 */
    const char *type;                   /**< blueprint id, "vehicle.tesla.model3"; borrowed; at most 4096 bytes */
    const char *rolename;               /**< role_name attribute, "hero"; borrowed; at most 4096 bytes */
    const sensim_vehicle_wheel *wheels; /**< wheel_count wheels; borrowed; NULL when 0 */
    float max_rpm;                      /**< engine's maximum RPM */
    float moi;                          /**< engine's moment of inertia, kg m^2 */
    float damping_rate_full_throttle;   /**< the engine's damping rate at full throttle, kg m^2/s */
    float damping_rate_zero_throttle_clutch_engaged;    /**< at zero throttle, clutch engaged */
    float damping_rate_zero_throttle_clutch_disengaged; /**< at zero throttle, clutch disengaged */
    float gear_switch_time;             /**< s */
    float clutch_strength;              /**< kg m^2/s */
    float mass;                         /**< kg */
    float drag_coefficient;             /**< the chassis' drag coefficient */
    uint8_t use_gear_autobox;           /**< 0 or 1 */
    uint8_t reserved0[3];               /**< 0 */
    double center_of_mass[3];           /**< m, in the vehicle's frame (REP-103) */
    uint64_t reserved[2];               /**< 0 */
} sensim_vehicle_info;

/**
 * A carla_msgs/CarlaEgoVehicleStatus (topic of type SENSIM_ROS_VEHICLE_STATUS):
 * header (@p stamp_ns, @p frame_id: carla-ros-bridge's is "map"), velocity,
 * acceleration, orientation, control (its header the same as the status's).
 * @return as sensim_mcap_write_imu(); SENSIM_ERR_OUT_OF_RANGE (negative
 *         velocity, orientation not unit within 1e-6, a control value outside
 *         its range, a flag not 0 or 1, reserved fields not 0).
 * Thread safety: as the writer's other calls. Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_write_vehicle_status(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                          int64_t stamp_ns, const char *frame_id,
                                                          const sensim_vehicle_status *status);

/**
 * A carla_msgs/CarlaEgoVehicleInfo (topic of type SENSIM_ROS_VEHICLE_INFO;
 * it has no header). Publish it once: its topic is latched.
 * @return as sensim_mcap_write_imu(); SENSIM_ERR_INVALID_ARGUMENT (NULL
 *         strings, wheels NULL with a count, a string over 4096 bytes),
 *         SENSIM_ERR_OUT_OF_RANGE (over 64 wheels, use_gear_autobox not 0 or
 *         1, reserved fields not 0). Thread safety: as the writer's other calls.
 * Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_write_vehicle_info(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                        const sensim_vehicle_info *info);

/**
 * A carla_msgs/CarlaEgoVehicleControl (topic of type
 * SENSIM_ROS_VEHICLE_CONTROL): what a stack sends on vehicle_control_cmd.
 * @return as sensim_mcap_write_vehicle_status(). Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_write_vehicle_control(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                           int64_t stamp_ns, const char *frame_id,
                                                           const sensim_vehicle_control *control);

/**
 * A carla_msgs/CarlaCollisionEvent (topic of type SENSIM_ROS_COLLISION):
 * the actor it hit and the normal impulse (N s, in @p frame_id).
 * @return as sensim_mcap_write_imu(). Thread safety: as the writer's other
 * calls. Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_write_collision(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                     int64_t stamp_ns, const char *frame_id, uint32_t other_actor_id,
                                                     const double normal_impulse[3]);

/**
 * A carla_msgs/CarlaLaneInvasionEvent (topic of type
 * SENSIM_ROS_LANE_INVASION): the markings crossed, as CARLA's
 * carla.LaneMarkingType values (carla-ros-bridge sends them as they are).
 * @param markings  @p count values; NULL when @p count is 0; at most 65536.
 * @return as sensim_mcap_write_imu(); SENSIM_ERR_OUT_OF_RANGE (over 65536).
 * Thread safety: as the writer's other calls. Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_write_lane_invasion(sensim_mcap *writer, uint16_t topic, int64_t log_ns,
                                                         int64_t stamp_ns, const char *frame_id,
                                                         const int32_t *markings, uint32_t count);

/** Counters of a writer (all files so far). */
typedef struct sensim_mcap_stats {
    uint64_t messages; /**< messages written (all topics) */
    uint64_t chunks;   /**< chunks written (bags; 0 for live writers) */
    uint64_t bytes;   /**< bytes written to files (the current one included) */
    uint32_t files;   /**< files started */
    uint32_t topics;  /**< topics added */
    uint64_t dropped; /**< live writers: messages a reliable topic could not hand to a subscriber within its
                           blocking time (sensim_ros2_open); bags: 0 */
    uint64_t reserved[3]; /**< reserved: 0 */
} sensim_mcap_stats;

/** Counters. @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_HANDLE. Since 0.1. */
SENSIM_API sensim_status sensim_mcap_get_stats(const sensim_mcap *writer, sensim_mcap_stats *out_stats);

/*
 * Live ROS 2 over DDS (Eclipse Cyclone DDS, the DDS of ROS 2 Humble's
 * rmw_cyclonedds; optional at build time).
 *
 * sensim_ros2_open() returns a writer of the same type whose messages are
 * published instead of stored: every sensim_mcap_add_topic and
 * sensim_mcap_write_* call above, and every sensim_mcap_sink attached to a
 * rig, works on it unchanged, and what goes on the wire is byte for byte
 * what a bag of the same calls holds. A ROS topic /a/b of type
 * pkg/msg/Name is the DDS topic "rt/a/b" of type "pkg::msg::dds_::Name_",
 * XCDR1 little-endian, as every ROS 2 RMW names and encodes it, so
 * `ros2 topic list` and `ros2 topic echo` on either RMW (Cyclone or Fast
 * DDS) see the topics. Like rmw_cyclonedds, the writer carries no XTypes
 * type information: readers match it by type name.
 *
 * QoS (SENSIM_ROS2_QOS_PROFILES, the default), as ROS 2 publishers of each
 * kind use them, set and announced policy by policy as rmw_cyclonedds sets
 * them (so RTPS stacks that need every entry of an announcement see every
 * writer):
 *   PointCloud2, Image, CameraInfo  sensor data: best effort, keep last 5, volatile
 *                                   (a subscriber asking for reliable does not match, as with any
 *                                   ROS driver publishing with SensorDataQoS: choose Best Effort in RViz)
 *   Imu, NavSatFix, Odometry        default: reliable, keep last 10, volatile
 *   /tf                             reliable, keep last 100, volatile (tf2's broadcaster)
 *   /tf_static                      reliable, keep last 1, transient local (a late subscriber gets it)
 *   /clock                          reliable, keep last 1, volatile (matches ROS's best-effort ClockQoS)
 * SENSIM_ROS2_QOS_RELIABLE makes every topic reliable and keep-all (a
 * recorder that must lose nothing). A reliable write blocks without limit
 * (rmw_cyclonedds's DDS_INFINITY) once Cyclone's window of unacknowledged
 * data is full: a reliable subscriber that stops reading holds the host, as
 * it holds any ROS 2 publisher on that RMW. (sensim_mcap_stats.dropped
 * counts writes DDS gave up on; with these QoS it stays 0.)
 *
 * The ROS graph: the writer publishes ros_discovery_info as rmw_cyclonedds
 * does (one node, default "/sensim", with its writers' and readers' GIDs;
 * sensim_ros2_set_node()), so `ros2 node list` and `ros2 topic info -v`
 * name it. A payload on the wire is padded to whole 4-byte words, the
 * encapsulation options counting the padding (XTypes 7.6.3.1.2).
 *
 * Times: log_ns is not sent (DDS stamps samples with the wall clock);
 * header stamps and /clock carry the world clock as in a bag (plus
 * sensim_mcap_set_stamp_offset()'s offset). The writer
 * does not pace anything: a host publishing faster than real time
 * publishes sim time faster than real time (the `sensim ros2` command
 * paces with --rate).
 *
 * Network: Cyclone's own configuration applies (CYCLONEDDS_URI: interfaces,
 * peers, multicast), as for rmw_cyclonedds.
 */

/** QoS choice of a live writer (sensim_ros2_options.qos). */
#define SENSIM_ROS2_QOS_PROFILES 0 /**< each topic with its ROS 2 profile (above) */
#define SENSIM_ROS2_QOS_RELIABLE 1 /**< every topic reliable, keep all */

/** Live writer options: fill with sensim_ros2_options_init(). */
typedef struct sensim_ros2_options {
    int32_t domain_id;    /**< DDS domain 0..232; -1 (default): ROS_DOMAIN_ID from the environment (0 unset) */
    int32_t qos;          /**< SENSIM_ROS2_QOS_* (default PROFILES) */
    int32_t graph_gid_bytes; /**< GIDs in ros_discovery_info: 16 (0, the default: Iron, Jazzy and later) or 24
                                  (Humble's rmw_dds_common, whose nodes cannot decode the 16-byte form).
                                  Since 0.2 (was reserved[0]) */
    int32_t reserved_i32; /**< zero */
    uint64_t reserved[3]; /**< zero */
} sensim_ros2_options;

/** Defaults: domain from ROS_DOMAIN_ID, ROS 2 profiles. Thread safety: any thread. Since 0.2. */
SENSIM_API void sensim_ros2_options_init(sensim_ros2_options *options);

/**
 * Open a live writer: a DDS participant on the domain. Topics (and their
 * DDS writers) are created by sensim_mcap_add_topic; sensim_mcap_close
 * deletes the participant (a /tf_static sample disappears with it).
 * Statistics count messages and their bytes; files and chunks stay 0.
 * @return SENSIM_OK; SENSIM_ERR_INVALID_ARGUMENT (NULL out, qos unknown,
 *         graph_gid_bytes not 0, 16 or 24, reserved fields); SENSIM_ERR_OUT_OF_RANGE (domain_id outside
 *         -1..232, or ROS_DOMAIN_ID not an integer in 0..232: the message
 *         names the variable); SENSIM_ERR_BACKEND (libsensim built without
 *         Cyclone DDS, or DDS refused the participant, e.g. a bad
 *         CYCLONEDDS_URI; the message gives DDS's reason);
 *         SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread; the writer is then used as any writer (shared
 * by threads, calls take turns). DDS runs its own threads in the process. Since 0.2.
 */
SENSIM_API sensim_status sensim_ros2_open(const sensim_ros2_options *options, sensim_mcap **out_writer);

/**
 * Subscribers currently matched with a live writer's topic (DDS readers
 * whose topic, type name and QoS match), so a host can wait for them
 * before it starts.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, a bag writer, a
 *         topic never added), SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_BACKEND.
 * Thread safety: as the writer's other calls. Since 0.2.
 */
SENSIM_API sensim_status sensim_ros2_subscribers(const sensim_mcap *writer, uint16_t topic, uint32_t *out_count);

/**
 * Readers DDS refused on a live writer's topic for incompatible QoS (a
 * reliable reader of a best-effort cloud, a transient-local reader of a
 * volatile topic), counted since the topic was added, and the policy of the
 * last refusal ("RELIABILITY", "DURABILITY", "DEADLINE", ...; "" when none;
 * static storage). Such a reader never receives anything: a host waiting
 * for subscribers says so instead of waiting in silence.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL writer or count, a
 *         bag writer, a topic never added), SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_BACKEND.
 * Thread safety: as the writer's other calls. Since 0.2.
 */
SENSIM_API sensim_status sensim_ros2_incompatible(const sensim_mcap *writer, uint16_t topic, uint32_t *out_count,
                                                  const char **out_policy);

/**
 * The ROS node a live writer's topics belong to, as `ros2 node list` shows
 * it (default "/" and "sensim"). The writer publishes the ROS graph on the
 * DDS topic ros_discovery_info as rmw_cyclonedds does (rmw_dds_common's
 * ParticipantEntitiesInfo with 16-byte GIDs, Iron and later): one node with
 * the GIDs of its writers, republished when a topic is added or the node
 * renamed. Call it before adding topics, or any time.
 * @param ns    namespace: "/" or "/a/b" (letters, digits, '_'; no token
 *              starting with a digit)
 * @param name  node name: letters, digits, '_', not starting with a digit
 * @return SENSIM_OK; SENSIM_ERR_INVALID_ARGUMENT (NULL, a bag writer, a name
 *         ROS would refuse: the message names it); SENSIM_ERR_BAD_HANDLE;
 *         SENSIM_ERR_BACKEND (DDS refused the sample).
 * Thread safety: as the writer's other calls. Since 0.2.
 */
SENSIM_API sensim_status sensim_ros2_set_node(sensim_mcap *writer, const char *ns, const char *name);

/** A live writer's subscription to one topic (sensim_ros2_reader_open). */
typedef struct sensim_ros2_reader sensim_ros2_reader;

/**
 * Subscribe to a ROS 2 topic on a live writer's participant (its node lists
 * the reader on ros_discovery_info): messages come as their CDR bytes
 * (encapsulation header included, as a bag stores them), for the host to
 * decode (`sensim ros2 --pose-in` decodes Odometry, PoseStamped and /tf).
 * The reader's QoS is chosen as `ros2 topic echo` chooses it from the
 * publications known now: reliable unless a publisher is best effort,
 * transient local when every publisher is; with none known, ROS's default
 * (reliable, volatile), remade best effort if a best-effort publisher
 * appears (DDS refuses it for RELIABILITY: nothing was lost). It keeps the
 * newest 256 messages; a message over 64 MiB is dropped by DDS unread.
 * @param topic     ROS name ("/ego/odom"), as sensim_mcap_add_topic's.
 * @param ros_type  "pkg/msg/Name" ("nav_msgs/msg/Odometry"); DDS matches
 *                  publishers by it ("pkg::msg::dds_::Name_").
 * @return SENSIM_OK; SENSIM_ERR_INVALID_ARGUMENT (NULL, a bag writer, a
 *         bad name or type); SENSIM_ERR_BAD_HANDLE; SENSIM_ERR_BACKEND;
 *         SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: as the writer's other calls; close every reader before
 * the writer. Since 0.2.
 */
SENSIM_API sensim_status sensim_ros2_reader_open(sensim_mcap *writer, const char *topic, const char *ros_type,
                                                 sensim_ros2_reader **out_reader);

/**
 * The next message, waiting up to @p timeout_ns for one (0: only what has
 * arrived). On SENSIM_OK *out_size 0 means none came in time; otherwise
 * *out_cdr holds *out_size bytes (the RTPS payload: the encapsulation
 * options' low two bits count trailing padding), valid until the next
 * read or close. Messages come in the order DDS delivered them.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL outputs),
 *         SENSIM_ERR_OUT_OF_RANGE (timeout outside [0, 1 h]),
 *         SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_BACKEND.
 * Thread safety: one thread per reader. Since 0.2.
 */
SENSIM_API sensim_status sensim_ros2_read(sensim_ros2_reader *reader, int64_t timeout_ns, const uint8_t **out_cdr,
                                          size_t *out_size);

/**
 * Publishers matched with the reader now, and ever (so a host can tell
 * "not yet" from "gone": the end of a stream).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_BACKEND. Thread safety: one thread per reader. Since 0.2.
 */
SENSIM_API sensim_status sensim_ros2_reader_publishers(const sensim_ros2_reader *reader, uint32_t *out_now,
                                                       uint32_t *out_ever);

/** Delete the subscription (NULL: nothing). Thread safety: one thread per reader. Since 0.2. */
SENSIM_API void sensim_ros2_reader_close(sensim_ros2_reader *reader);

/** A ROS 2 publication seen on the domain (sensim_ros2_publications). */
typedef struct sensim_ros2_endpoint {
    char topic[256];         /**< ROS name "/a/b" (DDS "rt/a/b"; other DDS topics are not listed) */
    char type[128];          /**< "pkg/msg/Name" (DDS "pkg::msg::dds_::Name_") */
    int32_t reliable;        /**< 1 reliable, 0 best effort */
    int32_t transient_local; /**< 1 transient local (a late subscriber gets its history), 0 volatile */
    int32_t depth;           /**< keep last depth; -1 keep all */
    int32_t reserved; /**< reserved: 0 */
    uint8_t gid[16];         /**< the writer's GUID (its GID in rmw_dds_common's graph) */
} sensim_ros2_endpoint;

/**
 * The ROS 2 publications discovered on a live writer's domain so far (its
 * own writers included), as `ros2 topic list -v` and `ros2 topic info -v`
 * see them. Discovery takes time: a host that has just opened the writer
 * calls this again after a while. At most @p capacity are copied;
 * *out_count is how many there are.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, a bag writer),
 *         SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_BACKEND.
 * Thread safety: as the writer's other calls. Since 0.2.
 */
SENSIM_API sensim_status sensim_ros2_publications(sensim_mcap *writer, sensim_ros2_endpoint *out, uint32_t capacity,
                                                  uint32_t *out_count);

/**
 * The ros2msg definition libsensim writes into a bag's schema for
 * @p ros_type ("sensor_msgs/msg/PointCloud2", ... every SENSIM_ROS_* type),
 * the text a reader decodes CDR with; NULL for another type. Static
 * storage. Thread safety: any thread. Since 0.2.
 */
SENSIM_API const char *sensim_ros2_message_definition(const char *ros_type);

/** 1 when libsensim was built with Cyclone DDS (sensim_ros2_open can work), else 0. Since 0.2. */
SENSIM_API int sensim_ros2_available(void);

#ifdef __cplusplus
}
#endif

#endif
