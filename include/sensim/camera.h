/**
 * @file sensim/camera.h
 * @brief Cameras: depth, semantic, instance, normals and a shaded colour
 *        image, ray traced on a committed scene.
 *
 * Frames. The mount pose is in the platform's body frame (x forward, y left,
 * z up), like a lidar's; the camera looks along the mount's +x. Images and
 * intrinsics follow ROS `CameraInfo` / OpenCV: the optical frame is x right,
 * y down, z forward; pixel (i, j) (column i, row j, row 0 at the top) has its
 * centre at image coordinates (u, v) = (i, j); the principal point (cx, cy)
 * is in those coordinates. CARLA's `fov` gives fx = fy = W / (2 tan(fov/2)),
 * cx = W/2, cy = H/2 (CARLA's own K).
 *
 * Lens models. Pinhole with OpenCV radial-tangential distortion
 * (`plumb_bob`: k1 k2 p1 p2 k3): a ray of optical direction (x, y, 1) lands
 * at u = fx·x_d + cx, v = fy·y_d + cy with r² = x² + y²,
 * x_d = x(1 + k1r² + k2r⁴ + k3r⁶) + 2p1xy + p2(r² + 2x²),
 * y_d = y(1 + k1r² + k2r⁴ + k3r⁶) + p1(r² + 2y²) + 2p2xy. Equidistant
 * fisheye (OpenCV `fisheye`, Kannala-Brandt; k1..k4 in distortion[0..3]): a
 * ray at angle θ from the optical axis lands at radius
 * θ_d = θ(1 + k1θ² + k2θ⁴ + k3θ⁶ + k4θ⁸) (normalised by fx, fy), beyond 90°
 * too.
 *
 * Time. A global-shutter image is taken at its capture time t; a rolling
 * shutter exposes row j at t + j·row_readout_ns, from the platform pose at
 * that time, and sees moving actors where they are then.
 *
 * Colour is a geometric render, not a photoreal one: the base colour of a
 * surface is its material's appearance (sensim_scene_set_material_appearance:
 * OBJ/MTL Kd times the map_Kd texel at the hit's UV, nearest texel) or else
 * its semantic tag's CityScapes colour, lit by a sun with hard shadows plus a
 * sky ambient term (no specular highlights, no reflections, no texture
 * filtering); pixels with nothing within max_depth_m show the sky colour.
 */
#ifndef SENSIM_CAMERA_H
#define SENSIM_CAMERA_H

#include <sensim/lidar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A camera (opaque; sensim_camera_create(), sensim_camera_destroy()). */
typedef struct sensim_camera sensim_camera;

/** Lens models (sensim_camera_desc.model). */
#define SENSIM_CAMERA_PINHOLE 0 /**< perspective, OpenCV plumb_bob distortion */
#define SENSIM_CAMERA_FISHEYE 1 /**< equidistant, OpenCV fisheye (Kannala-Brandt) distortion */

/** Outputs (bits of a render's request; an output is written when its buffer is set). */
#define SENSIM_CAMERA_DEPTH    1u  /**< float32 per pixel: planar depth in metres (pinhole: optical z;
                                        fisheye: distance along the ray); +inf: nothing within max_depth_m */
#define SENSIM_CAMERA_SEMANTIC 2u  /**< uint8 per pixel: CARLA 0.9.14+ tag (Sky, 11, where nothing was hit) */
#define SENSIM_CAMERA_INSTANCE 4u  /**< uint32 per pixel: object id (0: static world or nothing) */
#define SENSIM_CAMERA_NORMAL   8u  /**< float32 x3 per pixel: unit surface normal, optical frame, facing the camera */
#define SENSIM_CAMERA_RGB      16u /**< uint8 x3 per pixel: shaded colour (sRGB-encoded) */

/** A camera. Fill with sensim_camera_desc_init() or sensim_camera_desc_preset(). */
typedef struct sensim_camera_desc {
    char name[32];               /**< NUL-terminated; the preset's name, or what the caller sets */
    uint32_t width;              /**< pixels, 1..16384, width × height <= 2^26 (8192², 16384 × 4096) */
    uint32_t height;             /**< pixels, 1..16384 */
    int32_t model;               /**< SENSIM_CAMERA_PINHOLE or SENSIM_CAMERA_FISHEYE */
    uint32_t samples_per_pixel;  /**< 1, 4, 9, 16, ... (a square grid inside the pixel, deterministic);
                                      colour averages them, other outputs take the pixel centre's ray */
    double hfov_deg;             /**< horizontal FOV (CARLA `fov`), used when fx = 0: pinhole
                                      fx = W/(2 tan(fov/2)), fisheye fx = (W/2)/(fov/2 in rad); fy = fx,
                                      cx = W/2, cy = H/2 */
    double fx;                   /**< focal length in pixels (ROS K[0]); 0: from hfov_deg */
    double fy;                   /**< focal length in pixels (ROS K[4]) */
    double cx;                   /**< principal point, pixels (ROS K[2]) */
    double cy;                   /**< principal point, pixels (ROS K[5]) */
    double distortion[5];        /**< pinhole: k1 k2 p1 p2 k3; fisheye: k1 k2 k3 k4 (distortion[4] = 0) */
    double max_depth_m;          /**< nothing beyond counts (0: 1000, CARLA's depth far plane) */
    int64_t row_readout_ns;      /**< 0: global shutter; > 0: rolling shutter, row j at t + j·row_readout_ns */
    double sun_azimuth_deg;      /**< sun direction in the world frame: azimuth from +x towards +y */
    double sun_elevation_deg;    /**< above the horizon; <= 0: no sun, ambient only */
    double ambient;              /**< sky light share of a lit surface's colour, [0, 1] */
    double pixel_center_offset;  /**< the principal point derived from the FOV is (W/2 − o, H/2 − o), o in
                                      [0, 0.5]: 0 puts pixel (W/2, H/2) on the optical axis (sensim's, pixel
                                      centres at whole coordinates as OpenCV counts them); 0.5 puts the axis on
                                      the image's geometric centre, as Unreal's renderer (CARLA's cameras)
                                      samples pixel i at i + 0.5 about cx = W/2 (the carla_default preset).
                                      Since 0.2 (was reserved[0]) */
    uint32_t depth_far_plane;    /**< 1: a pixel with nothing within max_depth_m reads max_depth_m in the
                                      depth image (CARLA's depth camera: the sky is its 1000 m far plane;
                                      the carla_default preset); 0: +inf (sensim's). Pixels outside a lens
                                      model stay +inf. Since 0.2 (was reserved[1]) */
    uint32_t reserved_u32;       /**< zero */
    uint64_t reserved[6];        /**< zero */
} sensim_camera_desc;

/** Defaults: carla_default's size and FOV (800 x 600, 90° FOV, pinhole, no
 *  distortion, 1 sample, 1000 m, global shutter, sun at azimuth 135°,
 *  elevation 45°, ambient 0.3) with sensim's pixel convention
 *  (pixel_center_offset 0; the carla_default preset sets CARLA's 0.5).
 *  Thread safety: any thread. Since 0.1. */
SENSIM_API void sensim_camera_desc_init(sensim_camera_desc *desc);

/**
 * Fill @p desc from a built-in preset: `carla_default` (CARLA's default
 * RGB camera: 800 x 600, fov 90, pixel_center_offset 0.5: the principal
 * point is (399.5, 299.5) as its images are rendered; depth_far_plane 1:
 * the sky's depth is 1000 m, as CARLA's depth camera reads it), `pinhole_720p` (1280 x 720, fov 90),
 * `pinhole_1080p` (1920 x 1080, fov 90), `fisheye_190` (1280 x 960,
 * equidistant, 190° across the image width).
 * @return SENSIM_OK, SENSIM_ERR_NOT_FOUND (the message lists the presets),
 *         SENSIM_ERR_INVALID_ARGUMENT. Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_camera_desc_preset(const char *name, sensim_camera_desc *desc);

/**
 * Set one key of @p desc from text, as camera files, rig files and
 * `--set` give them: model (pinhole|fisheye), width, height, fov, fx, fy,
 * cx, cy, k1, k2, p1, p2, k3, k4, samples_per_pixel, max_depth_m,
 * row_readout_ns, sun_azimuth_deg, sun_elevation_deg, ambient. Setting fov
 * clears fx/fy/cx/cy (they follow the FOV again).
 * @return SENSIM_OK, SENSIM_ERR_UNKNOWN_KEY, SENSIM_ERR_PARSE (not a number),
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_OUT_OF_RANGE; the message names
 *         the key and the value. Ranges are checked again at creation.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_camera_desc_set(sensim_camera_desc *desc, const char *key, const char *value);

/**
 * Create a camera (the descriptor is copied and checked: sizes 1..16384
 * with at most 2^26 pixels, i.e. 8192 × 8192 or 16384 × 4096, a budget of
 * 1 GiB of lens rays and 256 MiB a depth image;
 * focal lengths > 0 and finite, principal point finite, |distortion| <= 10,
 * samples_per_pixel a square 1..256, max_depth_m >= 0, row_readout_ns >= 0
 * with height·row_readout_ns <= 1 s, ambient in [0, 1], reserved zero).
 * Memory: the camera keeps every pixel's lens ray (16 bytes a pixel, 14.7 MB
 * at 1280 × 720, computed here once) plus 132 bytes a row; images are the
 * caller's.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE,
 *         SENSIM_ERR_NOT_FINITE, SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_camera_create(sensim_context *ctx, const sensim_camera_desc *desc,
                                              sensim_camera **out_camera);

/** Destroy a camera (NULL: no-op). Not while it renders. Since 0.1. */
SENSIM_API void sensim_camera_destroy(sensim_camera *camera);

/** Mount pose on the platform (body frame, column-major double[16], rigid).
 *  @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_NOT_FINITE,
 *  SENSIM_ERR_OUT_OF_RANGE (not rigid), SENSIM_ERR_BAD_HANDLE.
 *  Thread safety: not while the camera renders. Since 0.1. */
SENSIM_API sensim_status sensim_camera_set_mount_pose(sensim_camera *camera, const double pose[16]);

/** The camera-to-platform mount transform (body frame, column-major) into
 *  @p out_pose. @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT,
 *  SENSIM_ERR_BAD_HANDLE. Thread safety: not while the mount is set. Since 0.1. */
SENSIM_API sensim_status sensim_camera_get_mount_pose(const sensim_camera *camera, double out_pose[16]);

/** Intrinsics as ROS `sensor_msgs/CameraInfo` writes them. */
typedef struct sensim_camera_info {
    uint32_t width;            /**< pixels */
    uint32_t height;           /**< pixels */
    char distortion_model[16]; /**< "plumb_bob" or "equidistant" */
    double d[5];               /**< D (fisheye: k1..k4, then 0) */
    double k[9];               /**< K, row-major */
    double r[9];               /**< R: identity (monocular) */
    double p[12];              /**< P = [K | 0], row-major */
    double hfov_deg;           /**< horizontal field of view the intrinsics give */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_camera_info;

/** Intrinsics of @p camera. @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT,
 *  SENSIM_ERR_BAD_HANDLE. Thread safety: any thread. Since 0.1. */
SENSIM_API sensim_status sensim_camera_get_info(const sensim_camera *camera, sensim_camera_info *out_info);

/**
 * Image coordinates (u, v) of a point given in the optical frame (metres).
 * @return SENSIM_OK; SENSIM_ERR_OUT_OF_RANGE when the point is behind a
 *         pinhole camera (z <= 0) or at the fisheye's centre of projection;
 *         SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_HANDLE.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_camera_project(const sensim_camera *camera, const double p_optical[3],
                                               double out_uv[2]);

/**
 * Unit ray direction in the optical frame through image point (u, v) (the
 * distortion model inverted by Newton's method to 1e-12 in normalised
 * coordinates). @return SENSIM_OK, SENSIM_ERR_OUT_OF_RANGE (outside the
 * domain of the lens model), SENSIM_ERR_NOT_FINITE, SENSIM_ERR_INVALID_ARGUMENT,
 * SENSIM_ERR_BAD_HANDLE. Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_camera_unproject(const sensim_camera *camera, double u, double v,
                                                 double out_dir[3]);

/** Caller-owned images of one render: width·height pixels each, row-major,
 *  row 0 at the top, no padding. A NULL buffer is not rendered. */
typedef struct sensim_camera_images {
    float *depth;        /**< SENSIM_CAMERA_DEPTH */
    uint8_t *semantic;   /**< SENSIM_CAMERA_SEMANTIC */
    uint32_t *instance;  /**< SENSIM_CAMERA_INSTANCE */
    float *normal;       /**< SENSIM_CAMERA_NORMAL, 3 floats a pixel */
    uint8_t *rgb;        /**< SENSIM_CAMERA_RGB, 3 bytes a pixel */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_camera_images;

/**
 * Render the image captured at @p t_ns with the platform on @p platform (1..64
 * pose keys; one key: standing still) into @p images. Writes
 * @p out_pose (may be NULL): the camera's world pose at t_ns (row 0). The
 * output depends only on the inputs (not on the thread count).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (no buffer, NULL),
 *         SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_NOT_COMMITTED, SENSIM_ERR_BUSY,
 *         SENSIM_ERR_OUT_OF_RANGE / SENSIM_ERR_NOT_FINITE / SENSIM_ERR_TIME_ORDER
 *         (pose keys), SENSIM_ERR_CANCELLED (buffers partly written).
 * Thread safety: one render per camera at a time; many cameras may render
 * one committed scene at once. Runs on the context's threads. Since 0.1.
 */
SENSIM_API sensim_status sensim_camera_render(sensim_camera *camera, const sensim_scene *scene,
                                              const sensim_motion *platform, int64_t t_ns,
                                              const sensim_camera_images *images, double out_pose[16]);

/* ---- image rings: camera frames in caller memory ----------------------- */

/**
 * Bytes of caller memory an image ring of @p frame_capacity frames needs,
 * each frame holding the images @p outputs (SENSIM_CAMERA_* bits) of a
 * @p width x @p height camera. An image ring is a sensim_ring (sensim/ring.h)
 * whose frames are image sets instead of points: the same header (capture
 * time, pose, sensor id, world steps), the same one-producer/one-consumer
 * threading, transactions and overflow policies, the same counters.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, no or unknown
 *         output bits), SENSIM_ERR_OUT_OF_RANGE (sizes 1..16384, frames
 *         1..2^24), SENSIM_ERR_TOO_LARGE.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_image_ring_required_size(uint32_t width, uint32_t height, uint32_t outputs,
                                                         uint32_t frame_capacity, size_t *out_size);

/**
 * Initialise an image ring in @p mem (8-byte aligned, @p size bytes from
 * sensim_image_ring_required_size, borrowed; no destroy: free @p mem).
 * Overflow (sensim/ring.h): under SENSIM_OVERFLOW_FAIL a rig step whose
 * images do not all fit writes none of them for this camera (counted in
 * scans_refused; points_refused counts the images); under
 * SENSIM_OVERFLOW_DROP_OLDEST the oldest unread images are dropped
 * (frames_dropped; points_dropped counts images too). Read it with
 * sensim_ring_peek_image() and sensim_ring_release(); sensim_ring_peek and
 * sensim_ring_pop refuse an image ring, and lidars and point sensors refuse
 * to write into one.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE,
 *         SENSIM_ERR_TOO_LARGE (size too small).
 * Thread safety: no other call may use the memory meanwhile. Since 0.1.
 */
SENSIM_API sensim_status sensim_image_ring_init(void *mem, size_t size, uint32_t width, uint32_t height,
                                                uint32_t outputs, uint32_t frame_capacity, int32_t overflow_policy,
                                                sensim_ring **out_ring);

/** The oldest complete image set of an image ring (borrowed pointers into
 *  the ring, valid until sensim_ring_release; NULL for outputs the ring does
 *  not hold). Layouts as in sensim_camera_images. header->t_begin_ns is the
 *  capture time, header->sensor_pose the camera's world pose at it (row 0
 *  of a rolling shutter), header->point_count the frame's size in 32-byte
 *  blocks. */
typedef struct sensim_image_view {
    const sensim_frame_header *header; /**< the capture's header (time, pose, frame number) */
    uint32_t width;              /**< pixels */
    uint32_t height;             /**< pixels */
    uint32_t outputs;            /**< SENSIM_CAMERA_* bits held */
    uint32_t reserved_u32;       /**< reserved: 0 */
    const float *depth;          /**< width × height, row-major (SENSIM_CAMERA_DEPTH); NULL if not held */
    const uint8_t *semantic;     /**< width × height (SENSIM_CAMERA_SEMANTIC); NULL if not held */
    const uint32_t *instance;    /**< width × height (SENSIM_CAMERA_INSTANCE); NULL if not held */
    const float *normal;         /**< width × height × 3 (SENSIM_CAMERA_NORMAL); NULL if not held */
    const uint8_t *rgb;          /**< width × height × 3 (SENSIM_CAMERA_RGB); NULL if not held */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_image_view;

/**
 * Look at the oldest complete image set without removing it (release it
 * with sensim_ring_release()).
 * @return SENSIM_OK, SENSIM_ERR_RING_EMPTY, SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_INVALID_ARGUMENT (NULL, or a point ring).
 * Thread safety: consumer thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_ring_peek_image(sensim_ring *ring, sensim_image_view *out_view);

/**
 * CARLA's depth encoding of metres @p depth_m into 24-bit RGB:
 * n = round(d / 1000 · (256³ − 1)), R = n & 255, G = (n >> 8) & 255,
 * B = n >> 16 (d clamped to [0, 1000]; +inf gives white). Decoding:
 * (R + 256 G + 65536 B) / (256³ − 1) · 1000. Since 0.1.
 */
SENSIM_API void sensim_depth_to_carla_rgb(float depth_m, uint8_t out_rgb[3]);

#ifdef __cplusplus
}
#endif

#endif
