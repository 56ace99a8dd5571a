/* Lidar internals: pattern, return parameters, scratch. */
#ifndef SENSIM_LIDAR_IMPL_H
#define SENSIM_LIDAR_IMPL_H

#include "motion.h"
#include "pattern.h"
#include "returns.h"

/* Shots per parallel work item (lane) and lanes per chunk: a chunk of
 * LANE_SHOTS·CHUNK_LANES shots is generated, traced and written per step. */
#define SENSIM_LANE_SHOTS 64u
#define SENSIM_CHUNK_LANES 256u
#define SENSIM_CHUNK_SHOTS (SENSIM_LANE_SHOTS * SENSIM_CHUNK_LANES)

struct sensim_lidar {
    _Atomic uint32_t magic; /* atomic: destroy may run while another thread checks the handle */
    sensim_context *ctx;
    char name[32];
    sensim_pattern pat;
    sensim_return_params rp;
    double mount[16];
    int32_t points_frame;
    int64_t last_end_ns;
    bool has_last;
    atomic_int busy;    /* 1 while a scan (or a rig step) uses the lidar */
    /* scratch, SENSIM_CHUNK_SHOTS entries each, allocated at creation */
    sensim_ray *rays;
    sensim_hit *hits;
    float *dirs;        /* sensor-frame directions, 3 per shot */
    sensim_point *slots;      /* 2 per shot: up to two returns */
    uint32_t lane_points[SENSIM_CHUNK_LANES]; /* points per lane, then their offsets */
};

/* sensim__check_time() and the pattern's own bound (shot indices in int64). */
sensim_status sensim__lidar_check_time(const sensim_lidar *l, int64_t t, const char *what);
/* Take the lidar for one scan: SENSIM_ERR_BUSY if another thread has it. */
sensim_status sensim__lidar_acquire(sensim_lidar *l);
void sensim__lidar_release(sensim_lidar *l);
/* The checks of sensim_lidar_scan_motion() (times, order, cancel, motion,
 * sensor pose); fills @p path. */
sensim_status sensim__lidar_scan_check(const sensim_lidar *l, int64_t tb, int64_t te, const sensim_motion *motion,
                                       sensim_path *path);
/* The scan itself inside a ring transaction the caller opened and will end
 * or abort; the caller holds the lidar and a scan section on the scene, and
 * sets last_end_ns when it commits. SENSIM_OK or SENSIM_ERR_CANCELLED. */
sensim_status sensim__lidar_scan_tx(sensim_lidar *l, const sensim_scene *scene, int64_t tb, int64_t te,
                                    const sensim_path *path, uint64_t world_step, sensim_ring *ring,
                                    uint64_t *out_shots, uint64_t *out_frames);

#endif
