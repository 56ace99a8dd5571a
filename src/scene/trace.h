/* The only module that talks to Embree. */
#ifndef SENSIM_TRACE_H
#define SENSIM_TRACE_H

#include "scene_impl.h"

typedef struct sensim_ray {
    float org[3];
    float dir[3];   /* unit length, world frame */
    float tnear;
    float tfar;
    float time;     /* normalised time in the scene's motion interval, [0, 1] */
} sensim_ray;

typedef struct sensim_hit {
    float t;            /* distance along the ray; +inf when nothing was hit */
    float ng[3];        /* geometric normal, world frame, not normalised */
    uint32_t object_id; /* actor id, 0 for static world */
    uint16_t material;
    uint8_t tag;
    uint8_t hit;        /* 1 if hit */
} sensim_hit;

sensim_status sensim__trace_device_create(sensim_context *ctx);
void sensim__trace_device_destroy(sensim_context *ctx);

/* Build or update the committed state from the staged scene. */
sensim_status sensim__trace_commit(sensim_scene *scene);
void sensim__trace_scene_release(sensim_scene *scene);
void sensim__trace_mesh_release(sensim_mesh *mesh);

/* Closest hits of @p n rays. Thread-safe on a committed scene. No allocation. */
void sensim__trace_rays(const sensim_scene *scene, const sensim_ray *rays, uint32_t n,
                        sensim_hit *hits);

/* Every field of the closest hit (<sensim/query.h>), normals unit length
 * and facing the ray; and occlusion (1: something between tnear and tfar).
 * Packets of 16 where the rays are coherent. Thread-safe on a committed
 * scene. No allocation. */
void sensim__trace_query(const sensim_scene *scene, const sensim_ray *rays, uint32_t n, sensim_ray_hit *hits);
void sensim__trace_occluded(const sensim_scene *scene, const sensim_ray *rays, uint32_t n, uint8_t *occ);

/* Bare Embree loops for benchmarks (see <sensim/bench.h>). */
void sensim__trace_bench(const sensim_scene *scene, const sensim_ray *rays, uint64_t n, int32_t variant,
                         uint32_t threads, uint64_t *out_hits);

#endif
