/* Lidar internals: pattern, return parameters, scratch. */
#ifndef SENSIM_LIDAR_IMPL_H
#define SENSIM_LIDAR_IMPL_H

#include "motion.h"
#include "pattern.h"
#include "returns.h"

/* Shots per parallel work item (lane): 64, or for mechanical lidars whole
 * columns traced in tiles of columns x channels neighbouring in direction,
 * 16 rays a packet: 8 columns x 2 channels up to 128 channels, 4 x 4 up to
 * 256, 2 x 8 up to 512, 1 x 16 up to 1024 (1024 shots beyond). Rows along
 * the columns are the coherent packets: the bare loop over 4 x 4 tiles took
 * 20-30 % longer than over 8 x 2 on vlp16, pandar64 and pandar128
 * (BENCHMARKS.md). 16 x 1 is ~5 % faster still on whole frames, but a
 * 1 ms step of a 10 Hz lidar (18 columns) would hold one or two lanes:
 * stepped at 1 kHz on two threads pandar64 took 12 % longer than with
 * 4-column lanes, with 8 columns about as long. MEMS: 512, traced sorted by
 * direction (2048 gained little on whole frames and cost 60 % at 1 kHz).
 * The most shots one parallel region handles: a frame of up to
 * SENSIM_BLOCK_SHOTS shots (every preset here) costs one fork/join and
 * three barriers, whatever the load on the machine; lanes are handed out
 * dynamically. */
#define SENSIM_LANE_SHOTS 64u
#define SENSIM_LANE_MAX 1024u
#define SENSIM_TILE_COLS_MAX 8u
#define SENSIM_MEMS_LANE 512u
#define SENSIM_BLOCK_SHOTS (SENSIM_LANE_SHOTS * 4096u)
/* Sub-rays (beam divergence) are traced in 16-ray packets across shots (one
 * shot's 6 sub-rays left 10 of 16 packet slots empty): a whole lane's in
 * tile order when they fit in the lidar's sub-ray scratch (lane shots x
 * (beam_subrays - 1), at most this many), else groups of shots. */
#define SENSIM_SUBRAY_BATCH 8192u
_Static_assert(SENSIM_SUBRAY_BATCH <= 65536u, "sub_at holds a sub-ray index in 16 bits");

/* A moving sensor's pose at one firing time, kept for the lane's other
 * shots fired at that time (scan_chunk: lane_pose). */
typedef struct sensim_pose_slot {
    uint64_t lane;  /* the lane (sensim_lane_scratch.pose_lane) that filled it; 0: none */
    int64_t t;
    float R[9], org[3];
    double S[16];   /* the sensor's pose, sensor -> world */
} sensim_pose_slot;

#define SENSIM_POSE_SLOTS 256 /* a power of two; a pandar128 lane fires at 128 times (8 columns x 16) */

/* One thread's lane scratch (heap: 175 KB, then its sub-rays). */
typedef struct sensim_lane_scratch {
    int64_t when[SENSIM_LANE_MAX], live[SENSIM_LANE_MAX];
    uint16_t chan[SENSIM_LANE_MAX];
    uint8_t ok[SENSIM_LANE_MAX];
    float dirs[3 * SENSIM_LANE_MAX];
    float origin[3 * SENSIM_LANE_MAX]; /* beam origin offsets (beam_origin_m > 0), sensor frame */
    sensim_ray rays[SENSIM_LANE_MAX];
    sensim_hit hits[SENSIM_LANE_MAX];
    sensim_ray *sub_rays; /* sub_cap each, after the threads' scratch (NULL without sub-rays) */
    sensim_hit *sub_hits;
    uint16_t sub_at[SENSIM_LANE_MAX]; /* live shot -> its first sub-ray in sub_rays */
    int16_t pos[2 * SENSIM_LANE_MAX]; /* tile position -> live shot, -1 = none; then the live shots in tile order */
    uint16_t key[SENSIM_LANE_MAX];    /* patterns without columns: a live ray's direction cell (Morton order) */
    sensim_plain plain[SENSIM_LANE_MAX]; /* the return model of the plain shots, batched (sensim__returns_plain) */
    sensim_pose_slot poses[SENSIM_POSE_SLOTS]; /* moving sensor: poses by firing time, valid in one lane */
    uint64_t pose_lane;                        /* lanes this scratch has begun, moving (slots of others: stale) */
} sensim_lane_scratch;

/* A lane's output, published to the ring in lane order (scan_chunk). */
typedef struct sensim_lane_out {
    sensim_point *span0, *span1; /* its ring space: n0 points at span0, the rest at span1 */
    uint64_t n0, fit;            /* fit: the points that got space */
    uint32_t points;
    uint32_t rays;               /* rays it traced (primaries, sub-rays, bounces, transmissions) */
    bool ready;                  /* its points are in the slots */
} sensim_lane_out;

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
    /* scratch for one block of block_shots shots, allocated at creation
     * (rays and hits live on each lane's stack) */
    uint64_t lane_shots;      /* shots per lane (see SENSIM_LANE_MAX) */
    uint32_t sub_cap;         /* sub-rays a thread's scratch holds: lane_shots x (nsub - 1), at most SENSIM_SUBRAY_BATCH */
    uint32_t tile_cols;       /* mechanical: columns per lane and per tile, 0 = no tiles */
    bool sort_dirs;           /* MEMS: lanes traced sorted by direction (direction_order) */
    uint16_t *dir_rank;       /* mechanical: channel -> rank by (azimuth offset bin, elevation) */
    uint16_t *tile_base;      /* mechanical: channel -> its place in a lane's tile order, column 0 */
    uint64_t block_shots;     /* min(SENSIM_BLOCK_SHOTS, most shots of a frame), a multiple of a lane */
    sensim_point *slots;      /* 2 per shot: up to two returns */
    sensim_lane_out *lane_out; /* per lane of a block: its points and where in the ring they go */
    sensim_lane_scratch *scr; /* one per thread, allocated by the first scan on that many threads */
    uint32_t scr_threads;
    sensim_path path;         /* a scan's motion (24 KB: here, not on the host's stack; the holder's, see busy) */
};

/* sensim__check_time() and the pattern's own bound (shot indices in int64). */
sensim_status sensim__lidar_check_time(const sensim_lidar *l, int64_t t, const char *what);
/* Take the lidar for one scan: SENSIM_ERR_BUSY if another thread has it. */
sensim_status sensim__lidar_acquire(sensim_lidar *l);
void sensim__lidar_release(sensim_lidar *l);
/* The checks of sensim_lidar_scan_motion() (times, order, cancel, motion,
 * sensor pose); fills @p path from @p motion, or with @p motion NULL checks
 * the @p path the caller made (the rig's motion model). */
sensim_status sensim__lidar_scan_check(const sensim_lidar *l, int64_t tb, int64_t te, const sensim_motion *motion,
                                       sensim_path *path);
/* The scan itself inside a ring transaction the caller opened and will end
 * or abort; the caller holds the lidar and a scan section on the scene, and
 * sets last_end_ns when it commits. SENSIM_OK or SENSIM_ERR_CANCELLED.
 * *out_rays: the rays traced (sensim_scan_result.rays_traced). */
sensim_status sensim__lidar_scan_tx(sensim_lidar *l, const sensim_scene *scene, int64_t tb, int64_t te,
                                    const sensim_path *path, uint64_t world_step, sensim_ring *ring,
                                    uint64_t *out_shots, uint64_t *out_frames, uint64_t *out_rays);

#endif
