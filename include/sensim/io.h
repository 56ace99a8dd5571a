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
 * float intensity, float range (metres), uint t_offset_ns (ns from frame
 * start), uint object_id, ushort channel, uchar tag, uchar flags (the point
 * record's field names, sensim_point_fields()).
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
#define SENSIM_FORMAT_LAS        6 /**< LAS 1.4, point data record format 6 (30 B): x y z int32 at 1 mm with the
                                        bounds' lower corner (whole metres) as offset; intensity round(I·65535);
                                        return number = the record's return index + 1, number of returns = the
                                        records of its shot (same channel and time, consecutive), at least
                                        that; classification from the tag (ASPRS:
                                        Unlabeled 1, Roads and RoadLine 11 road surface, SideWalks, Terrain and
                                        Ground 2, Building and Wall 6, Vegetation 5, Water 9, Bridge 17,
                                        RailTrack 10, rain droplets 18 high noise, any other tag 64 + tag);
                                        classification flag synthetic; scan angle = the point's azimuth in the
                                        sensor frame (0.006 deg units, ±180); user data = channel (255 above);
                                        point source id = lidar id; GPS time = world-clock seconds of the shot
                                        (global encoding: adjusted standard GPS time, WKT bit set; no CRS VLR) */
#define SENSIM_FORMAT_LAS12      7 /**< LAS 1.2, point data record format 3 (34 B), for readers that stop at 1.3
                                        (web stacks such as loaders.gl): x y z, intensity, GPS time and point
                                        source id as SENSIM_FORMAT_LAS; return number and number of returns
                                        3 bits each (at most 7); classification (5 bits, synthetic bit set) from
                                        the 1.4 class where LAS 1.2 defines it (ground 2, high vegetation 5,
                                        building 6, water 9), roads, road lines and rail as ground 2, rain
                                        droplets 7 (noise), any other tag 1 (unclassified); RGB = the tag's
                                        CARLA colour (sensim_tag_color) × 257, so the tag survives; scan angle
                                        rank = the point's elevation in whole degrees; user data = channel;
                                        at most 2^32 - 1 points (SENSIM_ERR_TOO_LARGE) */

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
 * Write an image as PNG (libdeflate level 3, rows filtered "up"; images
 * past 64 MiB of filtered bytes stream through libpng with the same filter).
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

/**
 * A range image a person can read: the range image of
 * sensim_write_frame_images() (same cells, same destaggering) coloured with
 * viridis over [0, @p max_range_m] (0: the frame's farthest first return
 * rounded up to 10 m), black = no
 * return, each row repeated k = 256 / rows times (1..16: a 16-channel
 * sensor's 16 rows become 256), and a 30-row legend strip below (the ramp,
 * "0 m" and the maximum). 8-bit RGB; the exact values stay in the 16-bit
 * range PNG.
 * @param out_width, out_height  the range image's cells (before the row repetition; may be NULL).
 * @return as sensim_write_frame_images().
 * Thread safety: any thread (distinct paths). Since 0.1.
 */
SENSIM_API sensim_status sensim_write_range_preview(const sensim_lidar *lidar, const sensim_point *points,
                                                    uint64_t count, double resolution_rad, double max_range_m,
                                                    const char *path, uint32_t *out_width, uint32_t *out_height);

/** Bird's-eye-view options. Fill with sensim_bev_options_init(). */
typedef struct sensim_bev_options {
    double half_extent_m; /**< the image covers x and y in [-e, e] around the points' origin (default 50) */
    double resolution_m;  /**< metres per pixel, [0.005, 10] (default 0.1); 64..8192 pixels across */
    double grid_m;        /**< grid line spacing, 0 = none (default 10); the scale bar is this long */
    double z_min_m;          /**< points below are left out (default -1e9) */
    double z_max_m;          /**< points above are left out (default 1e9) */
    uint64_t reserved[4];    /**< zero */
} sensim_bev_options;

/** Defaults: ±50 m at 0.1 m (1000 × 1000 pixels), a 10 m grid. Since 0.1. */
SENSIM_API void sensim_bev_options_init(sensim_bev_options *options);

/**
 * Bird's-eye view of @p points (in their own frame, usually the sensor's:
 * x forward is up in the image, y left is left): each pixel shows the tag
 * colour (CARLA palette; unlabeled grey) of its highest point, on black,
 * over a metric grid (x = 0 and y = 0 brighter); a white scale bar of
 * grid_m with its length written above it, bottom left. Pixel (col, row)
 * covers y in (e - (col+1)·res, e - col·res], x likewise by row. NaN points
 * are left out. RGB PNG through a temporary name.
 * @param out_size  pixels across (may be NULL).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_NOT_FINITE,
 *         SENSIM_ERR_OUT_OF_RANGE (options), SENSIM_ERR_OUT_OF_MEMORY, SENSIM_ERR_IO.
 * Thread safety: any thread (distinct paths). Since 0.1.
 */
SENSIM_API sensim_status sensim_write_bev_png(const char *path, const sensim_point *points, uint64_t count,
                                              const sensim_bev_options *options, uint32_t *out_size);

/** Where sensim_write_pattern_figure() put things, for readers of the PNG. */
typedef struct sensim_pattern_figure {
    uint32_t width_px;            /**< the PNG's width (at least 800) */
    uint32_t height_px;           /**< the PNG's height */
    uint32_t bins_az;             /**< the heat map's azimuth bins (cropped to the bins hit) */
    uint32_t bins_el;             /**< the heat map's elevation bins (cropped to the bins hit) */
    uint32_t bin_px_x;            /**< pixels across one bin (1..32) */
    uint32_t bin_px_y;            /**< pixels down one bin (1..32) */
    uint32_t plot_x;              /**< left pixel column of the heat map */
    uint32_t plot_y;              /**< top pixel row of the heat map */
    uint32_t max_shots;           /**< shots in the densest bin (the ramp's top) */
    double az_left_deg;           /**< azimuth at the plot's left edge; azimuth falls to the right */
    double el_top_deg;            /**< elevation at the plot's top edge; elevation falls downwards */
    double bin_deg;               /**< one bin, degrees */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_pattern_figure;

/**
 * A figure of the shot density of @p lidar's pattern over [0, duration_s) in
 * bins of @p bin_rad radians ([1e-4, 0.5]; sensim_pattern_measure), cropped
 * to the bins hit, for a screen or a paper: each bin drawn as a square of
 * bin_px_x = clamp(ceil(800 / bins_az), 1, 32) pixels (fewer if the plot would
 * pass 2400 pixels in height), stretched to bin_px_y = ceil(300 / bins_el)
 * (at most 32) pixels down where the plot would be under 300 pixels tall
 * (a 360 x 30 degree panorama), viridis on a log scale (log(1 + n) /
 * log(1 + max)), black = no shot, left = +azimuth (the sensor's left), top
 * = up. Axes are labelled in degrees ("azimuth (deg)", "elevation (deg)",
 * tick marks every 1, 2 or 5 × 10^n or 15/30/45/90 degrees with grey grid lines
 * in the empty bins), and the colour ramp with "0" and the densest bin's
 * shots is drawn below. The pixel (x, y) of the plot covers azimuths from
 * az_left_deg - (x - plot_x) · bin_deg / bin_px_x down by bin_deg / bin_px_x
 * and elevations from el_top_deg - (y - plot_y) · bin_deg / bin_px_y down by
 * bin_deg / bin_px_y. RGB PNG, written
 * through a temporary beside @p path (nothing half written).
 * @param out  where things are (may be NULL).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_OUT_OF_RANGE,
 *         SENSIM_ERR_TOO_LARGE (a figure over 64 M pixels: use larger bins),
 *         SENSIM_ERR_OUT_OF_MEMORY, SENSIM_ERR_IO, and sensim_pattern_measure()'s.
 * Thread safety: any thread (distinct paths). Since 0.2.
 */
SENSIM_API sensim_status sensim_write_pattern_figure(const sensim_lidar *lidar, double duration_s, double bin_rad,
                                                     const char *path, sensim_pattern_figure *out);

/**
 * sensim_write_pattern_figure() reporting only the heat map's bins and its
 * densest bin (the 0.1 interface; the image is the same figure).
 * @param out_width, out_height  the heat map's bins (may be NULL); @p out_max the densest bin's shots.
 * @return as sensim_write_pattern_figure().
 * Thread safety: any thread (distinct paths). Since 0.1.
 */
SENSIM_API sensim_status sensim_write_pattern_png(const sensim_lidar *lidar, double duration_s, double bin_rad,
                                                  const char *path, uint32_t *out_width, uint32_t *out_height,
                                                  uint32_t *out_max);

#ifdef __cplusplus
}
#endif

#endif
