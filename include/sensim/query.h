/**
 * @file sensim/query.h
 * @brief Ray queries on a committed scene: the door for sensors of your own.
 *
 * A batch of rays in the world frame (metres, native frame: x forward,
 * y left, z up), each at its own time on the world clock (integer ns; moving
 * actors are where they are at that time), gives per ray the closest hit or
 * whether anything lies in between. The lidar, the cameras and the proximity
 * sensor trace through the same code.
 *
 * Arrays are the caller's, read and written in place (no copies; Python's
 * Scene.intersect passes numpy buffers straight through). Input arrays are
 * read with a stride so that an array of structs or one column of a wider
 * table can be passed as is.
 *
 * Thread safety: any number of queries (and lidar scans) may run at once on
 * one committed scene from any threads; edits of the scene are refused with
 * SENSIM_ERR_BUSY while a query runs, and a query on a scene with staged
 * edits is refused with SENSIM_ERR_NOT_COMMITTED. One call runs on the
 * context's threads (sensim_context_set_thread_count) when the batch holds at
 * least 4096 rays, else on the calling thread; the results do not depend on
 * the thread count or on how the caller splits a batch.
 */
#ifndef SENSIM_QUERY_H
#define SENSIM_QUERY_H

#include <sensim/scene.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A batch of rays. Arrays hold `count` entries; a stride of 0 means
 *  packed (12 bytes for xyz triples, 4 or 8 for scalars). */
typedef struct sensim_ray_batch {
    uint64_t count;            /**< rays in the batch */
    const float *origins;      /**< xyz, world frame, metres */
    const float *directions;   /**< xyz, world frame; any non-zero length (normalised inside) */
    const float *tnear;        /**< metres along the ray where hits start counting; NULL: 0 */
    const float *tfar;         /**< metres where they stop; NULL: +infinity */
    const int64_t *time_ns;    /**< world-clock time of each ray; NULL: every ray at @ref time_ns_all */
    int64_t time_ns_all;       /**< time of every ray when time_ns is NULL */
    uint32_t origin_stride;    /**< bytes between consecutive origins; 0: 12 */
    uint32_t direction_stride; /**< bytes between consecutive directions; 0: 12 */
    uint32_t tnear_stride;     /**< bytes between consecutive tnear values; 0: 4 */
    uint32_t tfar_stride;      /**< bytes between consecutive tfar values; 0: 4 */
    uint32_t time_stride;      /**< bytes between consecutive times; 0: 8 */
    uint32_t reserved_u32;     /**< reserved: 0 */
    uint64_t reserved[4];      /**< zero */
} sensim_ray_batch;

/** The closest hit of one ray (40 bytes, no padding). */
typedef struct sensim_ray_hit {
    float distance;        /**< metres along the (normalised) ray; +infinity when nothing was hit */
    float normal[3];       /**< unit geometric normal, world frame, facing the ray's origin; 0 when no hit */
    float u;               /**< barycentric coordinate of the hit in its triangle along edge 0→1 (vertex 0 at u = v = 0) */
    float v;               /**< barycentric coordinate along edge 0→2 */
    uint32_t object_id;    /**< actor id, 0 for the static world */
    uint32_t mesh_id;      /**< mesh index (the actor's mesh, or the static mesh hit) */
    uint32_t primitive_id; /**< triangle index in that mesh */
    uint16_t material;     /**< material id (0: the tag's default) */
    uint8_t tag;           /**< semantic tag, CARLA 0.9.14+ ids */
    uint8_t hit;           /**< 1 when something was hit */
} sensim_ray_hit;

/**
 * Closest hit of every ray of @p batch into @p hits (batch->count entries,
 * caller-owned). Every ray is checked before anything is traced: a NaN or
 * infinite origin, direction, tnear or tfar, a zero direction, a negative
 * tnear or tfar < tnear fails the call with the index of the ray and the
 * field in the message, and @p hits is not written.
 * @return SENSIM_OK; SENSIM_ERR_INVALID_ARGUMENT (NULL scene/batch/hits or
 *         arrays, reserved fields not zero); SENSIM_ERR_BAD_HANDLE;
 *         SENSIM_ERR_NOT_FINITE / SENSIM_ERR_OUT_OF_RANGE (a ray, named);
 *         SENSIM_ERR_NOT_COMMITTED; SENSIM_ERR_BUSY (an edit is running).
 * Thread safety: see the file comment. Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_intersect(const sensim_scene *scene, const sensim_ray_batch *batch,
                                                sensim_ray_hit *hits);

/**
 * Whether anything lies on each ray between tnear and tfar: @p out_occluded
 * [i] = 1 or 0 (batch->count bytes, caller-owned). Cheaper than an
 * intersection (any hit ends the search). Checks, statuses and thread safety
 * as sensim_scene_intersect(). Since 0.1.
 */
SENSIM_API sensim_status sensim_scene_occluded(const sensim_scene *scene, const sensim_ray_batch *batch,
                                               uint8_t *out_occluded);

#ifdef __cplusplus
}
#endif

#endif
