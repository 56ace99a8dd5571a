/**
 * @file sensim/sink.h
 * @brief Sinks: what consumes a ring's frames and writes them where tools
 *        read them. The files `sensim batch` writes come from these, so a C
 *        or Python host that steps its own rig attaches the same writers
 *        (sensim_rig_set_consumer, Python `Rig.attach`).
 */
#ifndef SENSIM_SINK_H
#define SENSIM_SINK_H

#include <sensim/camera.h>
#include <sensim/io.h>
#include <sensim/mcap.h>
#include <sensim/nav.h>
#include <sensim/radar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Per-frame images a frame sink writes beside the points (sensim_frame_sink_desc.images). */
#define SENSIM_SINK_IMAGE_RANGE     1u  /**< NAME_range.png: destaggered 16-bit range (sensim_write_frame_images) */
#define SENSIM_SINK_IMAGE_INTENSITY 2u  /**< NAME_intensity.png */
#define SENSIM_SINK_IMAGE_LABEL     4u  /**< NAME_label.png: CARLA palette */
#define SENSIM_SINK_IMAGE_PREVIEW   8u  /**< NAME_range_preview.png (sensim_write_range_preview) */
#define SENSIM_SINK_IMAGE_BEV       16u /**< NAME_bev.png (sensim_write_bev_png) */

/**
 * Write the images of @p mask for one frame's points at BASE_range.png,
 * BASE_intensity.png, BASE_label.png, BASE_range_preview.png, BASE_bev.png
 * (each through a temporary name). @p base is borrowed; @p lidar gives the
 * beam layout.
 * @return as sensim_write_frame_images() and sensim_write_bev_png().
 * Thread safety: any thread (distinct paths; the lidar is only read). Since 0.2.
 */
SENSIM_API sensim_status sensim_write_frame_image_set(const sensim_lidar *lidar, const sensim_point *points,
                                                      uint64_t count, const char *base, uint32_t mask);

/** A frame sink: writes a lidar's frames as `sensim batch` does (opaque). */
typedef struct sensim_frame_sink sensim_frame_sink;

/** A frame sink: fill with sensim_frame_sink_desc_init(). */
typedef struct sensim_frame_sink_desc {
    const char *dir;            /**< existing folder the frames go into; copied (at most 4000 bytes) */
    const char *sensor_name;    /**< the frame JSON's "sensor" (1..63 bytes, no '"' or '\\'); copied */
    int32_t format;             /**< SENSIM_FORMAT_* (default PLY) */
    int32_t frame;              /**< SENSIM_FRAME_* of points, poses and ranges written (default native) */
    uint32_t images;            /**< SENSIM_SINK_IMAGE_* bits (need @ref lidar) */
    uint32_t reserved_u32; /**< reserved: 0 */
    const sensim_lidar *lidar;  /**< borrowed until the sink is destroyed: images' beam layout (NULL: none) */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_frame_sink_desc;

/** Defaults: PLY, native frame, no images, no lidar. Since 0.2. */
SENSIM_API void sensim_frame_sink_desc_init(sensim_frame_sink_desc *desc);

/**
 * Create a sink writing each frame of a point ring as `sensim batch` does:
 * DIR/frame_NNNNNN.EXT (EXT the format's extension; the header's frame number, 6 digits at least),
 * the images asked for, then DIR/frame_NNNNNN.json last (sensor, frame,
 * times, point count, lost points, partial, sensor pose in the output frame,
 * frame_of_reference, units, and a "warning" when the frame has no point),
 * each file through an exclusive temporary renamed into place (a file or
 * symlink planted under the temporary name is never followed), so a JSON
 * present means a whole frame.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, unknown format or
 *         frame, SENSIM_FORMAT_CARLA with the UE frame, images without a
 *         lidar, a bad name, reserved fields), SENSIM_ERR_TOO_LARGE (dir),
 *         SENSIM_ERR_BAD_HANDLE (lidar), SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread. Since 0.2.
 */
SENSIM_API sensim_status sensim_frame_sink_create(const sensim_frame_sink_desc *desc, sensim_frame_sink **out_sink);

/** Destroy a sink (NULL: no-op). Since 0.2. */
SENSIM_API void sensim_frame_sink_destroy(sensim_frame_sink *sink);

/**
 * Write one frame (@p header and @p count points, both borrowed).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_IO (the message
 *         names the file), SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread; calls on one sink (and its consume) take turns
 * (the sink's lock). Since 0.2.
 */
SENSIM_API sensim_status sensim_frame_sink_write(sensim_frame_sink *sink, const sensim_frame_header *header,
                                                 const sensim_point *points, uint64_t count);

/**
 * A sensim_ring_consumer (sensim/rig.h): @p sink is a sensim_frame_sink;
 * pops every complete frame of the point ring @p ring and writes it. A frame
 * that fails to write is not retried (it has left the ring); the status and
 * message say which file.
 * One sink writes one lidar's frames: the first ring it consumes binds it
 * (another lidar's frame_NNNNNN files would overwrite these).
 * @return as sensim_frame_sink_write(), SENSIM_ERR_INVALID_ARGUMENT (not a
 *         point ring; a ring other than the one the sink writes).
 * Thread safety: the ring's consumer thread (a rig's stepping thread); calls
 * from several threads take turns under the sink's lock. Since 0.2.
 */
SENSIM_API sensim_status sensim_frame_sink_consume(void *sink, uint32_t sensor_index, sensim_ring *ring);

/** An image sink: writes a camera's captures as `sensim render` and `batch` do (opaque). */
typedef struct sensim_image_sink sensim_image_sink;

/** An image sink: fill with sensim_image_sink_desc_init(). */
typedef struct sensim_image_sink_desc {
    const char *dir;              /**< existing folder the captures go into; copied (at most 4000 bytes) */
    const char *camera_name;      /**< the capture JSON's "camera" (1..63 bytes, no '"', '\\' or controls); copied */
    const sensim_camera *camera;  /**< borrowed until the sink is destroyed: size and camera_info */
    int32_t frame;                /**< SENSIM_FRAME_* of the pose written (default native) */
    uint32_t outputs;             /**< SENSIM_CAMERA_* images written (0: every one the images hold) */
    /** Encoder threads (since 0.2; 0: none, each capture is written inside sensim_image_sink_write, as
     *  before). N > 0: write() copies the capture into a queue and returns; N threads of the sink convert,
     *  compress and write its files, the files of one capture and of several captures in parallel. At most
     *  64. The files' bytes do not depend on N. */
    uint32_t threads;
    uint32_t reserved_u32; /**< reserved: 0 */
    /** The queue's budget in bytes when @ref threads > 0 (0: 64 MiB): write() blocks while the captures
     *  queued and the new one would exceed it (a slow disk slows the caller; memory stays bounded). One
     *  capture is always admitted into an empty queue, whatever its size. Since 0.2. */
    uint64_t queue_bytes;
    uint64_t reserved[2]; /**< reserved: 0 */
} sensim_image_sink_desc;

/** What an image sink has done (sensim_image_sink_get_stats). Times in seconds. */
typedef struct sensim_image_sink_stats {
    uint64_t captures;         /**< captures whose files are all on disk (JSON written) */
    uint64_t files;            /**< files renamed into place */
    uint64_t bytes;            /**< bytes of those files */
    double encode_cpu_s;       /**< CPU time converting and compressing images (thread CPU time, summed) */
    double write_s;            /**< wall time writing, closing and renaming files (summed over threads) */
    double wait_s;             /**< wall time write() blocked on a full queue (waiting for the disk or encoders) */
    uint64_t waits;            /**< write() calls that blocked */
    uint64_t queue_peak_bytes; /**< most bytes queued at once (never above the budget, or one capture) */
    uint64_t queued_bytes;     /**< bytes queued now */
    uint32_t threads;          /**< encoder threads (0: synchronous) */
    uint32_t reserved_u32; /**< reserved: 0 */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_image_sink_stats;

/** Defaults: native frame, every output held. Since 0.2. */
SENSIM_API void sensim_image_sink_desc_init(sensim_image_sink_desc *desc);

/**
 * Create a sink writing each capture as `sensim render` and `sensim batch`
 * do (CARLA's synchronized-collection layout): DIR/depth/NNNNNN.png
 * (CARLA's 24-bit depth encoding) and .pfm (float metres),
 * DIR/semantic/ (tag in red, CARLA raw) and DIR/semantic_cityscapes/,
 * DIR/instance/ (R tag, G and B the id's low 16 bits), DIR/normal/
 * ((n + 1)/2, optical frame), DIR/rgb/, then DIR/NNNNNN.json last (time,
 * camera, frame, depth kind, outputs, pose, camera_info); NNNNNN is the
 * capture's frame number. Sub-folders are made as needed; every file goes
 * through an exclusive temporary renamed into place. PNGs are compressed
 * with libdeflate (level 3; src/io/image_png.c). Memory: per encoder
 * thread (or the caller without threads) 3 bytes a pixel of scratch and
 * about 6 more for the PNG encoder's buffers, kept while the sink lives;
 * with threads, the queue's budget on top (captures finished are reused,
 * never more than the budget, or one capture, at once).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, name, frame, unknown
 *         output bits, reserved fields), SENSIM_ERR_BAD_HANDLE (camera),
 *         SENSIM_ERR_TOO_LARGE (dir), SENSIM_ERR_OUT_OF_RANGE (threads over 64),
 *         SENSIM_ERR_OUT_OF_MEMORY (also: an encoder thread could not start).
 * Thread safety: any thread. Since 0.2.
 */
SENSIM_API sensim_status sensim_image_sink_create(const sensim_image_sink_desc *desc, sensim_image_sink **out_sink);

/** Destroy an image sink (NULL: no-op): the captures queued are written first (sensim_image_sink_flush;
 *  call that to learn their status), then the encoder threads end. Since 0.2. */
SENSIM_API void sensim_image_sink_destroy(sensim_image_sink *sink);

/**
 * Wait until every capture written so far is on disk (with threads: the
 * queue is empty). The first failure of an encoder thread is returned here
 * and by every later write() and flush(): its message names the file; the
 * capture it belonged to has no JSON (so `--resume` redoes it).
 * @return SENSIM_OK, SENSIM_ERR_IO, SENSIM_ERR_OUT_OF_MEMORY,
 *         SENSIM_ERR_INVALID_ARGUMENT (not an image sink).
 * Thread safety: any thread (it waits for the encoder threads; a write on
 * another thread may queue more meanwhile). Since 0.2.
 */
SENSIM_API sensim_status sensim_image_sink_flush(sensim_image_sink *sink);

/**
 * What the sink has done so far (counts, encoding CPU time, writing and
 * waiting time, the queue's peak).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT.
 * Thread safety: any thread. Since 0.2.
 */
SENSIM_API sensim_status sensim_image_sink_get_stats(const sensim_image_sink *sink, sensim_image_sink_stats *out);

/**
 * Write one capture: @p images (borrowed for the call only; the outputs
 * present and asked for), taken at @p t_ns with the camera's world pose
 * @p pose (column-major), numbered @p number. Without encoder threads the
 * files are on disk when it returns; with them the capture is copied into the
 * queue (blocking while the queue is over its budget) and written by the
 * sink's threads: sensim_image_sink_flush() waits for them.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_IO (the message
 *         names the file; with threads possibly an earlier capture's),
 *         SENSIM_ERR_OUT_OF_MEMORY (the queue's copy).
 * Thread safety: any thread; writes and consumes on one sink take turns (the
 * sink's lock). Since 0.2.
 */
SENSIM_API sensim_status sensim_image_sink_write(sensim_image_sink *sink, uint64_t number, int64_t t_ns,
                                                 const double pose[16], const sensim_camera_images *images);

/**
 * A sensim_ring_consumer for an image ring (sensim_image_ring_init): every
 * complete capture is written (number = the frame number, time = the
 * header's t_begin_ns, pose = its sensor_pose) and released.
 * @return as sensim_image_sink_write(), SENSIM_ERR_INVALID_ARGUMENT (not an
 *         image ring, or one whose size is not the camera's; a ring other than the first this
 *         sink consumed: one sink writes one camera's captures, another's
 *         would overwrite them).
 * Thread safety: the ring's consumer thread; calls from several threads take
 * turns under the sink's lock. Since 0.2.
 */
SENSIM_API sensim_status sensim_image_sink_consume(void *sink, uint32_t sensor_index, sensim_ring *ring);

/** A CSV sink: writes navigation samples or radar detections as batch's CSV files (opaque). */
typedef struct sensim_csv_sink sensim_csv_sink;

/** What a CSV sink holds (sensim_csv_sink_desc.kind): the columns `sensim batch` writes. */
#define SENSIM_CSV_IMU      0 /**< t_ns,ax,ay,az,gx,gy,gz,compass_rad */
#define SENSIM_CSV_GNSS     1 /**< t_ns,latitude_deg,longitude_deg,altitude_m */
#define SENSIM_CSV_ODOMETRY 2 /**< t_ns,x,y,z,qw,qx,qy,qz,vx,vy,vz,vx_body,vy_body,vz_body,wx,wy,wz,ax,ay,az */
#define SENSIM_CSV_RADAR    3 /**< t_ns,sample,depth_m,azimuth_rad,altitude_rad,velocity_mps,rcs_dbsm,snr_db,
                                   object_id,tag (UE: depth_cm, velocity_cmps) */

/** A CSV sink: fill with sensim_csv_sink_desc_init(). */
typedef struct sensim_csv_sink_desc {
    const char *path;   /**< the file; copied (at most 4000 bytes) */
    int32_t kind;       /**< SENSIM_CSV_* */
    int32_t frame;      /**< SENSIM_FRAME_* of the vectors written: CARLA mirrors y ((x, −y, z); rotation
                             vectors and rates (−x, y, −z); radar azimuth positive to the right), UE the
                             same in cm; compass, GNSS and angles of elevation do not change */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_csv_sink_desc;

/** Defaults: IMU, native frame. Since 0.2. */
SENSIM_API void sensim_csv_sink_desc_init(sensim_csv_sink_desc *desc);

/**
 * Create a sink writing one navigation stream (IMU, GNSS, odometry samples)
 * or a radar's detections as CSV rows, as `sensim batch` writes
 * OUT/NAME/KIND.csv. The rows go to an exclusive temporary next to the
 * path; sensim_csv_sink_close() renames it into place, so the file is never
 * seen half written (destroying an unclosed sink discards it).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_TOO_LARGE
 *         (path), SENSIM_ERR_IO (the message names the file),
 *         SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread. Since 0.2.
 */
SENSIM_API sensim_status sensim_csv_sink_create(const sensim_csv_sink_desc *desc, sensim_csv_sink **out_sink);

/** Append one navigation sample (its kind must be the sink's). Since 0.2.
 *  @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_IO. Thread safety: any thread; calls on one sink take
 *  turns, each row whole (the sink's lock). */
SENSIM_API sensim_status sensim_csv_sink_write_nav(sensim_csv_sink *sink, const sensim_nav_sample *sample);

/** Append one radar sample's @p count detections (a radar sink), taken at @p t_ns, sample index
 *  @p sample. Since 0.2. @return as sensim_csv_sink_write_nav(). Thread safety: as sensim_csv_sink_write_nav(). */
SENSIM_API sensim_status sensim_csv_sink_write_radar(sensim_csv_sink *sink, int64_t t_ns, uint64_t sample,
                                                     const sensim_radar_detection *detections, uint64_t count);

/**
 * A sensim_ring_consumer: every complete frame of a navigation ring (its
 * sample) or of a radar's point ring (its detections: time = t_begin_ns,
 * sample = frame number) is appended and released.
 * @return as the writes, SENSIM_ERR_INVALID_ARGUMENT (a ring of the other kind;
 *         a ring other than the first this sink consumed: one sink writes one
 *         sensor's rows, another's would mix with them).
 * Thread safety: the ring's consumer thread; calls from several threads take
 * turns under the sink's lock. Since 0.2.
 */
SENSIM_API sensim_status sensim_csv_sink_consume(void *sink, uint32_t sensor_index, sensim_ring *ring);

/** Flush and rename the file into place (the sink stays valid for destroy only).
 *  @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (closed twice), SENSIM_ERR_IO. Since 0.2. */
SENSIM_API sensim_status sensim_csv_sink_close(sensim_csv_sink *sink);

/** Destroy a CSV sink (NULL: no-op); an unclosed one's temporary is removed. Since 0.2. */
SENSIM_API void sensim_csv_sink_destroy(sensim_csv_sink *sink);

/** An MCAP sink: writes a ring's frames into a bag or live writer as messages (opaque). */
typedef struct sensim_mcap_sink sensim_mcap_sink;

/** What an MCAP sink writes where (sensim_mcap_sink_desc_init(): all zero). */
typedef struct sensim_mcap_sink_desc {
    sensim_mcap *writer;          /**< the bag (sensim_mcap_open); borrowed, open while the sink is used */
    const char *name;             /**< sensor name (letters, digits, '_', '-'; '-' becomes '_' in topics);
                                       copied. frame_id NAME (cameras: NAME_optical) */
    const char *topic_prefix;     /**< "" (NULL) or "/ns": topics PREFIX/NAME/... as batch --format mcap */
    const sensim_camera *camera;  /**< an image ring's camera (its CameraInfo); borrowed */
    int32_t nav_kind;             /**< a navigation ring's SENSIM_NAV_*: imu, fix (NavSatFix) or odom */
    int32_t reserved_i32; /**< reserved: 0 */
    double gyro_var[3];  /**< Imu angular_velocity_covariance diagonal per axis, (rad/s)² */
    double accel_var[3]; /**< Imu linear_acceleration_covariance diagonal per axis, (m/s²)² */
    double enu_var_m2[3];         /**< NavSatFix East/North/Up variances (sensim_gnss_enu_variance) */
    const sensim_lidar *lidar;    /**< a point ring's lidar (borrowed; may be NULL): a mechanical one numbers
                                       the clouds' `ring` by elevation (sensim_mcap_set_ring_order). Since 0.2
                                       (was reserved[0]) */
    uint64_t reserved[3];         /**< zero */
} sensim_mcap_sink_desc;

/** All zero. Thread safety: any thread. Since 0.2. */
SENSIM_API void sensim_mcap_sink_desc_init(sensim_mcap_sink_desc *desc);

/**
 * Create a sink writing a ring's frames into a bag as `sensim batch --format
 * mcap` writes them: a point ring's frames as PointCloud2 on NAME/points
 * (stamp the frame's start, logged at its end); an image ring's captures as
 * NAME/OUTPUT/image and NAME/camera_info (sensim_mcap_write_capture); a
 * navigation ring's samples as Imu on NAME/imu, NavSatFix on NAME/fix or
 * Odometry (odom → NAME) on NAME/odom. Topics are added at the first frame;
 * a topic the host added beforehand under that name and type is used (a
 * live host, sensim_ros2_open, can so create the topics and wait for
 * subscribers before it steps).
 * /tf, /tf_static and /clock are the host's (sensim_mcap_write_transforms,
 * _clock): a sink writes what its ring holds.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL writer or name, a bad
 *         name or prefix, nav_kind, reserved fields), SENSIM_ERR_OUT_OF_RANGE
 *         (a variance negative or not finite), SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread. Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_sink_create(const sensim_mcap_sink_desc *desc, sensim_mcap_sink **out_sink);

/** Free @p sink (NULL: nothing); the writer stays open. Thread safety: not while it consumes. Since 0.2. */
SENSIM_API void sensim_mcap_sink_destroy(sensim_mcap_sink *sink);

/**
 * A sensim_ring_consumer (sensim/rig.h): @p sink is a sensim_mcap_sink;
 * writes every complete frame of @p ring (points, images or navigation
 * samples) and releases it. A frame that fails to write has still left the
 * ring; the status says why.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (not an MCAP sink; an image
 *         ring without the sink's camera; a ring other than the first this sink
 *         consumed: one sink writes one sensor's topics, another's messages
 *         would mix with them), and the writer's statuses.
 * Thread safety: the ring's consumer thread (a rig's stepping thread); calls
 * from several threads, and sinks sharing a writer consuming on several
 * threads, take turns under the sink's and the writer's locks (each message
 * and each capture's messages whole). Since 0.2.
 */
SENSIM_API sensim_status sensim_mcap_sink_consume(void *sink, uint32_t sensor_index, sensim_ring *ring);

#ifdef __cplusplus
}
#endif

#endif
