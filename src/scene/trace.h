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
/* The same for rays[order[k]], k < n, traced in that order (packets of 16
 * consecutive k), the hit into hits[order[k]]: a tiled trace without
 * copying rays and hits. */
void sensim__trace_rays_order(const sensim_scene *scene, const sensim_ray *rays, const int16_t *order, uint32_t n,
                              sensim_hit *hits);
/* The same packets, the hit of rays[order[k]] into out[k] (in the order
 * traced: threads sharing one order write apart). */
void sensim__trace_rays_order_into(const sensim_scene *scene, const sensim_ray *rays, const int16_t *order,
                                   uint32_t n, sensim_hit *out);

/* A packet of up to 16 primary rays written in place, laid out as Embree's
 * RTCRayHit16 (trace.c checks every offset), so the packet is traced where
 * the camera wrote it: no copy. Call sensim__packet16_init once per packet
 * object (tnear 0, mask, id, flags); a trace then only needs origins,
 * directions, tfar and time of the live lanes. The hit half is Embree's. */
typedef struct sensim_packet16 {
    _Alignas(64) float ox[16];
    float oy[16], oz[16], tnear[16], dx[16], dy[16], dz[16], time[16], tfar[16];
    uint32_t mask[16], id[16], flags[16];
    float ng[3][16], u[16], v[16];
    uint32_t prim[16], geom[16], inst[16];
} sensim_packet16;

void sensim__packet16_init(sensim_packet16 *p);

/* Closest hits of the first @p m lanes of @p p: distance (+inf: nothing),
 * tag and object id, bit for bit what sensim__trace_rays gives for the same
 * rays (a 16-wide packet when coherent, else one ray at a time). No normals:
 * depth and label images. Thread-safe on a committed scene. */
void sensim__trace_packet16(const sensim_scene *scene, sensim_packet16 *p, uint32_t m, float *t, uint8_t *tag,
                            uint32_t *object_id);

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
