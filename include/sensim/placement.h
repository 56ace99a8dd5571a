/**
 * @file placement.h
 * @brief Scoring sensor placements: point density, uniformity and coverage
 *        in a region of interest, and what a lidar sees of object boxes.
 *
 * The measures of PCSim's placement study (Cai et al., ICRA 2023) without
 * training a detector: scan the scene from a candidate pose with the points
 * in the world frame (`points_frame = world`), accumulate them into a grid
 * over the region of interest (ROI), then score the grid. Several lidars of
 * a rig, or several candidates of a multi-lidar selection, add their grids.
 *
 * Units: metres, world frame (z up), integer nanoseconds. All functions are
 * pure functions of their arguments except sensim_lidar_box_shots(), which
 * reads a lidar's pattern (thread safety as for a scan of that lidar).
 */
#ifndef SENSIM_PLACEMENT_H
#define SENSIM_PLACEMENT_H

#include <sensim/common.h>
#include <sensim/ring.h>
#include <sensim/lidar.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A region of interest on the ground and how it is gridded. */
typedef struct sensim_roi_desc {
    double xmin;                   /**< ROI rectangle, world metres: smallest x */
    double ymin;                   /**< smallest y */
    double xmax;                   /**< largest x (> xmin) */
    double ymax;                   /**< largest y (> ymin) */
    double zmin;                   /**< lowest height of the points that count (init: -1e9) */
    double zmax;                   /**< highest height of the points that count (init: 1e9) */
    double cell_m;                 /**< grid cell side, metres (init 1; at most 2^24 cells) */
    uint32_t min_points;           /**< k: a cell is covered, an object visible, with >= k points (init 1) */
    uint32_t nuc_disks;            /**< disks of PCSim's non-uniformity measure (init 100; 0: no NUC) */
    double nuc_radius_m;           /**< their radius (init 2 m) */
    uint64_t seed;                 /**< where the disks are (init 0) */
    uint64_t reserved[4];          /**< zero */
} sensim_roi_desc;

/** Measures of one grid (sensim_roi_evaluate()). */
typedef struct sensim_roi_metrics {
    uint64_t points;        /**< points in the ROI */
    double density_per_m2;  /**< points / ROI area */
    double cell_cv;         /**< uniformity: coefficient of variation (population std / mean) of the cell
                                 counts; 0 = perfectly even; +inf when the ROI holds no point */
    double nuc;             /**< PCSim's NUC: population std over the disks of n_i / (N p_i), p_i = the
                                 disk's share of the ROI's cells (disks are the cells whose centres lie in
                                 them, centres uniform in the ROI from @c seed); 0 = even; NaN without disks
                                 or points */
    double coverage;        /**< fraction of cells with >= min_points points */
    uint32_t cells_x;       /**< grid cells along x */
    uint32_t cells_y;       /**< grid cells along y */
    uint64_t reserved[4]; /**< reserved: 0 */
} sensim_roi_metrics;

/** Defaults above, the ROI zero. Since 0.1. */
SENSIM_API void sensim_roi_desc_init(sensim_roi_desc *desc);

/**
 * Grid size of @p desc: cells_x = ceil((xmax - xmin) / cell_m), likewise y;
 * cell (i, j) covers [xmin + i·cell, xmin + (i+1)·cell) × [...), row-major
 * (index j·cells_x + i), the last row and column clipped to the ROI.
 * @return SENSIM_OK; SENSIM_ERR_NOT_FINITE, SENSIM_ERR_OUT_OF_RANGE (empty
 *         or inverted ROI, cell <= 0, more than 2^24 cells, reserved not
 *         zero), SENSIM_ERR_INVALID_ARGUMENT (NULL). Since 0.1.
 */
SENSIM_API sensim_status sensim_roi_grid_size(const sensim_roi_desc *desc, uint32_t *out_cells_x,
                                              uint32_t *out_cells_y);

/**
 * Add the points of @p points (world frame) inside the ROI and its height
 * range to @p cells (cells_x × cells_y counts, caller-owned, accumulated:
 * zero it first). Points with a non-finite coordinate are skipped. A count
 * saturates at UINT32_MAX and the call then returns SENSIM_ERR_OVERRUN
 * (nothing is lost silently). @p out_added (may be NULL): points counted.
 * Thread safety: any thread; concurrent calls need distinct @p cells.
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_roi_accumulate(const sensim_roi_desc *desc, const sensim_point *points,
                                               uint64_t count, uint32_t *cells, uint64_t *out_added);

/**
 * Measures of a grid filled by sensim_roi_accumulate() (the sum of several
 * grids is the grid of their union: a rig, or a greedy multi-lidar pick).
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_roi_evaluate(const sensim_roi_desc *desc, const uint32_t *cells,
                                             sensim_roi_metrics *out);

/**
 * Information gain in the spirit of S-MIG (Hu et al., "Investigating the
 * Impact of Multi-LiDAR Placement on Object Detection for Autonomous
 * Driving", CVPR 2022): an occupancy prior p_c per ROI cell (how likely an
 * object stands there; @p prior cells_x × cells_y probabilities in [0, 1],
 * row-major like the grid, or NULL for 0.5 everywhere) has entropy
 * H(p) = −p·log2 p − (1−p)·log2(1−p) bits; a cell the lidar observes (at
 * least min_points points in the ROI's height range) resolves it. Gain =
 * Σ over observed cells of H(p_c) bits; @p out_fraction = gain / Σ H(p_c)
 * over all cells (0 when the prior is certain everywhere). S-MIG traverses
 * 3-D voxels along each ray; this is its 2-D column version: a cell counts
 * once something in it returned light. Since 0.1.
 */
SENSIM_API sensim_status sensim_roi_information_gain(const sensim_roi_desc *desc, const uint32_t *cells,
                                                     const float *prior, double *out_bits, double *out_fraction);

/**
 * Points of @p points (world frame) inside each of @p box_count boxes
 * (6 doubles each: xmin, ymin, zmin, xmax, ymax, zmax, world metres; a
 * point counts when within 0.05 m of its box, so a hit on a face counts),
 * added to @p counts (caller-owned, accumulated). Since 0.1.
 */
SENSIM_API sensim_status sensim_boxes_count(const double *boxes, uint32_t box_count, const sensim_point *points,
                                            uint64_t count, uint32_t *counts);

/**
 * What the lidar would see of each box with nothing in the way: the shots
 * fired in [@p t_begin_ns, @p t_end_ns) whose beam (from the mount on the
 * platform at the static @p platform_pose, world frame) enters the box
 * between the lidar's minimum and maximum range, added to @p counts. An
 * object box with fewer points than this is occluded (by static geometry or
 * other objects): visible = points >= k; occluded = points < k <= shots;
 * out of view = shots < k. Beams are the nominal ones (no divergence, no
 * jitter).
 * What blocks them: with @p scene (committed, may be NULL) each such beam is
 * traced up to 1 cm before it enters the box; one that hits something first
 * adds to @p blocked_static (the static world: actor id 0) or to
 * @p blocked_objects (any actor but the box's own, @p box_object_ids[b]; NULL:
 * no box is an actor) of that box. Both may be NULL without a scene.
 * Thread safety: as sensim_lidar_scan() for @p lidar. Since 0.1.
 */
SENSIM_API sensim_status sensim_lidar_box_shots(sensim_lidar *lidar, int64_t t_begin_ns, int64_t t_end_ns,
                                                const double platform_pose[16], const double *boxes,
                                                uint32_t box_count, uint32_t *counts, const sensim_scene *scene,
                                                const uint32_t *box_object_ids, uint32_t *blocked_static,
                                                uint32_t *blocked_objects);

/**
 * A top-down heat map of an ROI grid as an 8-bit RGB PNG: x to the right, y
 * up (a map; row 0 is the ROI's ymax edge), k × k pixels a cell (k = 512 /
 * the longer side in cells, 1..32), viridis over log(1 + count) up to the
 * grid's maximum, empty cells dark grey; each sensor position
 * (@p sensors_xy: x, y world metres, @p sensor_count of them) a white cross
 * (clipped at the edges); a 1/2/5·10^n m scale bar with its length; a
 * legend strip of 34 rows below (0 .. the maximum count). Written through
 * PATH.tmp and a rename. @p out_w, @p out_h (may be NULL): the size.
 * @return as sensim_roi_grid_size(); SENSIM_ERR_TOO_LARGE beyond 8192
 *         cells a side; SENSIM_ERR_IO. Since 0.1.
 */
SENSIM_API sensim_status sensim_write_roi_png(const char *path, const sensim_roi_desc *roi, const uint32_t *cells,
                                              const double *sensors_xy, uint32_t sensor_count, uint32_t *out_w,
                                              uint32_t *out_h);

#ifdef __cplusplus
}
#endif

#endif
