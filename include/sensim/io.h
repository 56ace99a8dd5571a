/**
 * @file sensim/io.h
 * @brief Point cloud writers.
 */
#ifndef SENSIM_IO_H
#define SENSIM_IO_H

#include <sensim/lidar.h>
#include <sensim/frames.h>
#include <sensim/ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Write points as a binary little-endian PLY file with one element "vertex"
 * whose properties are, in order: float x, float y, float z (metres),
 * float intensity, float range (metres), uint time (ns from frame start),
 * uint object_id, ushort ring (channel), uchar tag, uchar flags.
 * @param path    destination, borrowed. Written to PATH.tmp then renamed, so a
 *                failure never leaves a half-written file at PATH.
 * @param header  optional frame header; its frame number, times and pose go
 *                into comment lines (may be NULL).
 * @param points  @p count records, borrowed; may be two spans (as in a
 *                sensim_frame_view) via sensim_write_ply_view().
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_IO.
 * Thread safety: any thread (distinct paths). Since 0.1.
 */
SENSIM_API sensim_status sensim_write_ply(const char *path, const sensim_frame_header *header,
                                          const sensim_point *points, uint64_t count);

/** As sensim_write_ply() for a frame view (both spans). Since 0.1. */
SENSIM_API sensim_status sensim_write_ply_view(const char *path, const sensim_frame_view *view);

/** Point file formats (sensim_write_points). */
#define SENSIM_FORMAT_PLY        0 /**< binary little-endian PLY, all record fields (as sensim_write_ply) */
#define SENSIM_FORMAT_PLY_ASCII  1 /**< ASCII PLY, same properties */
#define SENSIM_FORMAT_PCD        2 /**< PCD v0.7 binary: FIELDS x y z intensity range t_offset_ns object_id channel tag flags */
#define SENSIM_FORMAT_PCD_ASCII  3 /**< PCD v0.7 ascii, same fields */
#define SENSIM_FORMAT_KITTI      4 /**< KITTI velodyne .bin: x y z intensity float32 little endian, 16 B/point */
#define SENSIM_FORMAT_CARLA      5 /**< CARLA semantic-lidar record, 24 B: x y z (CARLA frame: y negated)
                                        cos_inc_angle float32 (the point's intensity: use intensity_model
                                        = cosine for CARLA's meaning), object_idx, object_tag uint32 */

/**
 * Write @p count records in @p format (SENSIM_FORMAT_*), through PATH.tmp and
 * a rename so PATH is never half written. Header comments (PLY, PCD) carry the
 * frame header when given.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL, unknown format), SENSIM_ERR_IO.
 * Thread safety: any thread (distinct paths). Since 0.1.
 */
SENSIM_API sensim_status sensim_write_points(const char *path, int32_t format, const sensim_frame_header *header,
                                             const sensim_point *points, uint64_t count);

/**
 * As sensim_write_points(), with everything written in output frame @p frame
 * (SENSIM_FRAME_*, <sensim/frames.h>): x, y, z and range_m of every point
 * and the header's sensor_pose. CARLA: y negated, metres, and the pose
 * S·M·S (S = diag(1, -1, 1)) so that it maps CARLA-frame sensor points to
 * the CARLA world; UE: the same in centimetres (x, y, z, range and the pose's
 * translation × 100). PLY and PCD headers say which: "frame native|carla|ue"
 * and "units m|cm" (sensim_write_points writes "frame native", "units m").
 * SENSIM_FORMAT_CARLA is the CARLA frame in metres whatever @p frame (UE is
 * refused).
 * @return as sensim_write_points(); SENSIM_ERR_INVALID_ARGUMENT for an
 *         unknown frame.
 * Thread safety: any thread (distinct paths). Since 0.1.
 */
SENSIM_API sensim_status sensim_write_points_frame(const char *path, int32_t format, int32_t frame,
                                                   const sensim_frame_header *header, const sensim_point *points,
                                                   uint64_t count);

/**
 * Write an image as PNG (libpng).
 * @param channels   1 (gray) or 3 (RGB).
 * @param bit_depth  8 (data is uint8_t) or 16 (data is uint16_t, host order).
 * @param data       rows top to bottom, @p stride_bytes apart; borrowed.
 * Written to PATH.tmp then renamed.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE
 *         (size 0 or > 65535), SENSIM_ERR_IO.
 * Thread safety: any thread (distinct paths). Since 0.1.
 */
SENSIM_API sensim_status sensim_write_png(const char *path, uint32_t width, uint32_t height, uint32_t channels,
                                          uint32_t bit_depth, const void *data, size_t stride_bytes);

/**
 * Project one frame's points into images and write them as PNG (any path may
 * be NULL to skip that image).
 * Layout: for mechanical lidars, one row per channel sorted by elevation
 * (top row = highest) and C = columns_per_revolution columns, DESTAGGERED
 * (Ouster's convention for viewing): column c holds the points whose
 * azimuth is nearest the head angle start_azimuth + spin·2π·c/C, from the
 * point's firing column and its channel's azimuth offset, so a vertical edge
 * is a vertical line even for sensors whose beams sit at different azimuths
 * (Ouster, Hesai, HDL-64E). Ouster's own destaggered images differ by a
 * constant column shift (its firmware shifts start at 0); for other patterns an equirectangular grid
 * of @p resolution_rad (0 = 0.2°) over the pattern's extents in one frame
 * (azimuth decreasing to the right, elevation decreasing downwards), from
 * each point's direction in the sensor frame. Only first returns (return
 * index 0) are drawn; the nearest wins a cell.
 * Pixels: range image 16-bit gray, value = round(range / 4 mm) (0 = no
 * return, max 262.14 m); intensity image 8-bit gray round(255·I); label image
 * RGB in the CARLA palette (sensim_tag_color), black = no return.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE,
 *         SENSIM_ERR_TOO_LARGE (more than 65535 pixels across), SENSIM_ERR_IO,
 *         SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread (distinct paths; the lidar is only read). Since 0.1.
 */
SENSIM_API sensim_status sensim_write_frame_images(const sensim_lidar *lidar, const sensim_point *points,
                                                   uint64_t count, double resolution_rad, const char *range_png,
                                                   const char *intensity_png, const char *label_png,
                                                   uint32_t *out_width, uint32_t *out_height);

#ifdef __cplusplus
}
#endif

#endif
