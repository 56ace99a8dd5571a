/**
 * @file sensim/pattern.h
 * @brief Tools over a lidar's scan pattern: metrics and Livox CSV export.
 *
 * These functions evaluate the pattern only (no scene, no tracing); they do
 * not change the lidar's scan state.
 */
#ifndef SENSIM_PATTERN_TOOLS_H
#define SENSIM_PATTERN_TOOLS_H

#include <sensim/lidar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Figures of a pattern over an interval. Angles in radians, sensor frame. */
typedef struct sensim_pattern_stats {
    uint64_t shots;          /**< shots fired in the interval */
    uint64_t no_beam;        /**< of those, shots without a beam (total internal reflection, blanking) */
    double shots_per_s;      /**< shots / interval length */
    double az_min_rad; /**< smallest azimuth of a shot, in (-π, π] */
    double az_max_rad; /**< largest azimuth of a shot, in (-π, π] */
    double el_min_rad; /**< lowest elevation of a shot */
    double el_max_rad; /**< highest elevation of a shot */
    double full_fov_rad;     /**< twice the largest angle between a beam and +x (circular FOV) */
    uint32_t az_bins;  /**< coverage grid columns: 2π / bin */
    uint32_t el_bins;  /**< coverage grid rows: π / bin */
    uint64_t bins_hit;       /**< grid cells hit at least once in the interval */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_pattern_stats;

/**
 * FOV coverage as Livox defines it: the share of the field of view's area
 * lit by beam footprints after each integration time. The FOV is the disk of
 * half-angle full_fov/2 about +x for a Risley pattern without head spin (the
 * round Livox FOV), else the azimuth × elevation rectangle the pattern spans
 * in [t_begin_ns, t_begin_ns + the longest duration). Each shot lights the
 * directions within @p footprint_rad / 2 of its beam (a disk: the full
 * angle, e.g. the beam divergence). Areas are solid angles, measured on an
 * equal-angle grid of footprint/4 cells (cos-elevation weighted; at most
 * 2^24 cells in the FOV's box, else SENSIM_ERR_TOO_LARGE).
 * @param footprint_rad  (0, 0.1]; 0: the lidar's divergence, max(h, v)
 *                       (SENSIM_ERR_OUT_OF_RANGE if it has none).
 * @param out_coverage   @p n_durations shares in [0, 1].
 * @param out_fov_sr     the FOV's solid angle, steradians (may be NULL).
 * Thread safety: any thread; may run while the lidar scans. Since 0.1.
 */
SENSIM_API sensim_status sensim_pattern_footprint_coverage(const sensim_lidar *lidar, int64_t t_begin_ns,
                                                           double footprint_rad, const int64_t *durations_ns,
                                                           uint32_t n_durations, double *out_coverage,
                                                           double *out_fov_sr);

/**
 * Evaluate the pattern over [t_begin_ns, t_end_ns).
 *
 * Coverage: the sphere is cut into az_bins × el_bins cells of @p bin_rad in
 * azimuth and elevation (equal-angle, not equal-area). out_coverage[i] is the
 * fraction of the cells hit in the whole interval that are already hit in
 * [t_begin_ns, t_begin_ns + durations_ns[i]).
 *
 * @param bin_rad       cell size, radians, in [1e-4, 0.5].
 * @param durations_ns  @p n_durations integration times (may be NULL if 0).
 * @param out_coverage  receives @p n_durations fractions (NULL if 0).
 * @param density       optional az_bins × el_bins counts, row-major, row 0 =
 *                      highest elevation, column 0 = azimuth -π (NULL to skip).
 * @param density_capacity  entries @p density holds.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_TIME_ORDER,
 *         SENSIM_ERR_OUT_OF_RANGE (bin size), SENSIM_ERR_TOO_LARGE
 *         (density too small, or more than 2^26 cells), SENSIM_ERR_OUT_OF_MEMORY.
 * Thread safety: any thread; may run while the lidar scans. Since 0.1.
 */
SENSIM_API sensim_status sensim_pattern_measure(const sensim_lidar *lidar, int64_t t_begin_ns, int64_t t_end_ns,
                                                double bin_rad, const int64_t *durations_ns, uint32_t n_durations,
                                                double *out_coverage, uint32_t *density,
                                                uint64_t density_capacity, sensim_pattern_stats *out_stats);

/**
 * Write the shots of [t_begin_ns, t_end_ns) as a Livox pattern CSV:
 * header "Time/s,Azimuth/deg,Zenith/deg,Line", one row per shot with a beam:
 * time in seconds since t_begin_ns (9 decimals), azimuth 0..360 degrees
 * (counter-clockwise from +x), zenith from +z in degrees (6 decimals), and the
 * channel. Replaying it as a table (table_time = seconds) fires the same
 * directions at the same times. Written to PATH.tmp then renamed.
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_TIME_ORDER,
 *         SENSIM_ERR_IO.
 * Thread safety: any thread. Since 0.1.
 */
SENSIM_API sensim_status sensim_pattern_export_csv(const sensim_lidar *lidar, int64_t t_begin_ns,
                                                   int64_t t_end_ns, const char *path,
                                                   uint64_t *out_rows);

#ifdef __cplusplus
}
#endif

#endif
