/* Lidar internals: pattern, return parameters, scratch. */
#ifndef SENSIM_LIDAR_IMPL_H
#define SENSIM_LIDAR_IMPL_H

#include "pattern.h"
#include "returns.h"

/* Shots per parallel work item (lane) and lanes per chunk: a chunk of
 * LANE_SHOTS·CHUNK_LANES shots is generated, traced and written per step. */
#define SENSIM_LANE_SHOTS 64u
#define SENSIM_CHUNK_LANES 256u
#define SENSIM_CHUNK_SHOTS (SENSIM_LANE_SHOTS * SENSIM_CHUNK_LANES)

struct sensim_lidar {
    uint32_t magic;
    sensim_context *ctx;
    char name[32];
    sensim_pattern pat;
    sensim_return_params rp;
    double mount[16];
    int32_t points_frame;
    int64_t last_end_ns;
    bool has_last;
    /* scratch, SENSIM_CHUNK_SHOTS entries each, allocated at creation */
    sensim_ray *rays;
    sensim_hit *hits;
    float *dirs;        /* sensor-frame directions, 3 per shot */
    sensim_point *slots;      /* 2 per shot: up to two returns */
    uint32_t lane_points[SENSIM_CHUNK_LANES]; /* points per lane, then their offsets */
};

#endif
