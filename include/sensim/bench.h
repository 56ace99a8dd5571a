/**
 * @file sensim/bench.h
 * @brief Benchmark helpers: the bare ray-tracing loop over a lidar's rays.
 *
 * The figure of merit of libsensim is the speed of the full pipeline relative
 * to a bare Embree loop over the very same rays in the same process; these
 * functions provide that bare loop. Thread safety: not concurrently with a
 * scan of the same lidar.
 */
#ifndef SENSIM_BENCH_H
#define SENSIM_BENCH_H

#include <sensim/lidar.h>
#include <sensim/camera.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SENSIM_BENCH_NAIVE   0 /**< rtcIntersect1, one ray at a time */
#define SENSIM_BENCH_PACKET8 1 /**< rtcIntersect8 over consecutive rays (coherent flag) */
#define SENSIM_BENCH_PACKET16 2 /**< rtcIntersect16 over consecutive rays (coherent flag) */
#define SENSIM_BENCH_TILED16 3  /**< rtcIntersect16 over the tiles the pipeline takes for a standing scan
                                     of the span on the context's threads (mechanical: a long span's wide
                                     lanes, 16 columns x 1 channel up to 128 channels, 8 x 2 up to 256,
                                     ...; a short one's narrow lanes, 8 x 2, 4 x 4, ...; channels
                                     ordered by direction within a column); = PACKET16 for other
                                     patterns */
#define SENSIM_BENCH_PATTERN16 4 /**< PACKET16 with the pattern evaluation and ray setup inside the timed
                                      loop: the bare limit for patterns computed per shot (Risley, MEMS) */
#define SENSIM_BENCH_SECONDARY 5 /**< rtcIntersect1 over the secondary rays (mirror rays, transmissions) the
                                      lidar's latest scan traced, recorded by sensim_bench_record_secondary();
                                      the time span and the pose are not used (the pose may be NULL). Added
                                      to a primary variant's time: the bare cost of every ray the pipeline
                                      traces. Since 0.2. */

/** The most rays one sensim_bench_trace() call traces (2^28, 9.7 GB of rays). */
#define SENSIM_BENCH_MAX_RAYS (UINT64_C(1) << 28)

/**
 * Generate the world-frame rays of the shots the lidar fires in
 * [t_begin_ns, t_end_ns) from a static @p platform_pose (not timed, except
 * for SENSIM_BENCH_PATTERN16), then trace them with the bare Embree loop
 * @p variant on the context's threads (OpenMP, dynamic over blocks of 1024
 * rays so that 10 000 rays use two threads) and report the tracing time.
 * The rays are those the scan's first pass traces: each shot's beam
 * sub-rays too (beam_subrays = 7: seven rays a shot), right after it.
 * @param out_seconds  wall time of the tracing.
 * @param out_rays     rays traced (shots x sub-rays; SENSIM_BENCH_SECONDARY: the recorded rays);
 *                     @p out_hits rays that hit (may be NULL).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (also SENSIM_BENCH_SECONDARY
 *         without a record), SENSIM_ERR_NOT_COMMITTED, SENSIM_ERR_TIME_ORDER,
 *         SENSIM_ERR_TOO_LARGE (more than SENSIM_BENCH_MAX_RAYS rays; the
 *         latest scan traced more secondary rays than the record holds),
 *         SENSIM_ERR_OUT_OF_MEMORY.
 * Since 0.1.
 */
SENSIM_API sensim_status sensim_bench_trace(const sensim_lidar *lidar, const sensim_scene *scene,
                                            int64_t t_begin_ns, int64_t t_end_ns, const double platform_pose[16],
                                            int32_t variant, double *out_seconds, uint64_t *out_rays,
                                            uint64_t *out_hits);

/**
 * Record the secondary rays (mirror rays of specular surfaces, rays through
 * transparent ones: sensim_return_desc's max_bounces and transparency) that
 * this lidar's scans trace, for sensim_bench_trace(SENSIM_BENCH_SECONDARY).
 * Each scan call first forgets the previous call's rays, then keeps up to
 * @p capacity of its own (world frame, as traced: shortened mirror rays
 * included) and counts the rest. Recording costs the scan an atomic add and
 * a 48-byte copy per secondary ray, so time the pipeline on another lidar.
 * It changes no output. @p capacity 0 stops recording and frees the record.
 * Ownership: the lidar owns the record (freed by sensim_lidar_destroy).
 * Thread safety: not while the lidar scans (SENSIM_ERR_BUSY).
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT (NULL), SENSIM_ERR_BAD_HANDLE, SENSIM_ERR_BUSY,
 *         SENSIM_ERR_TOO_LARGE (@p capacity above SENSIM_BENCH_MAX_RAYS),
 *         SENSIM_ERR_OUT_OF_MEMORY. Since 0.2.
 */
SENSIM_API sensim_status sensim_bench_record_secondary(sensim_lidar *lidar, uint64_t capacity);

/**
 * Bytes the ray-tracing backend (Embree) holds for the context right now
 * (BVHs and their buffers), from Embree's memory monitor.
 * Thread safety: any thread. Since 0.1.
 */
/**
 * The bare Embree loop for a camera: the camera's pixel-centre rays from
 * @p platform_pose (world, column-major; mount applied), built before the
 * clock starts, traced with rtcIntersect16 over 4 x 4 pixel tiles on the
 * context's threads (the rays sensim_camera_render traces for depth and
 * semantic images, and nothing else). Outputs as sensim_bench_trace().
 * @return SENSIM_OK, SENSIM_ERR_INVALID_ARGUMENT, SENSIM_ERR_BAD_HANDLE,
 *         SENSIM_ERR_NOT_COMMITTED, SENSIM_ERR_OUT_OF_MEMORY. Since 0.1.
 */
SENSIM_API sensim_status sensim_bench_camera_trace(const sensim_camera *camera, const sensim_scene *scene,
                                                   const double platform_pose[16], double *out_seconds,
                                                   uint64_t *out_rays, uint64_t *out_hits);

/** Bytes the context's ray-tracing backend (Embree) holds now, for memory benchmarks; 0 for a
 *  NULL context. Thread safety: any thread. Since 0.1. */
SENSIM_API uint64_t sensim_context_backend_bytes(const sensim_context *ctx);

#ifdef __cplusplus
}
#endif

#endif
