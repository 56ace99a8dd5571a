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
 * (BENCHMARKS.md). 16 x 1 is 2-8 % faster still on whole frames, but a
 * 1 ms step of a 10 Hz lidar (18 columns) would hold one or two lanes:
 * stepped at 1 kHz on two threads pandar64 took 12 % longer than with
 * 4-column lanes, with 8 columns about as long. So a block takes lanes of
 * twice the columns when it holds enough of them (sensim_tiling: a long
 * call, not a 1 kHz one, of a standing sensor; lidar.c keeps narrow lanes
 * where 16 x 1 tiles would spread much wider). MEMS: 8192, traced sorted
 * by direction: the more shots a sort holds, the more of a 16-ray packet
 * falls in one ~1 degree cell (one thread, whole frames: 512 -> 8192 shots
 * took mems_m1 from 22.7 to 17.1 ms a frame; 16384 gained 3 % more but
 * leaves 2 threads 5 lanes a frame). A 1 kHz host's block is one lane
 * then: its threads share it piece by piece (lane.c, scan_lane).
 * The most shots one parallel region handles: a frame of up to
 * SENSIM_BLOCK_SHOTS shots (every preset here) costs one fork/join and
 * three barriers, whatever the load on the machine; lanes are handed out
 * dynamically. */
#define SENSIM_LANE_SHOTS 64u
#define SENSIM_LANE_MAX 1024u
#define SENSIM_TILE_COLS_MAX 8u
#define SENSIM_MEMS_LANE 8192u
#define SENSIM_BLOCK_SHOTS (SENSIM_LANE_SHOTS * 4096u)
/* A lane is worked in pieces of SENSIM_PIECE shots (a multiple of 16: the
 * packets), shared out across the threads when a block is one MEMS lane. */
#define SENSIM_PIECE 128u
#define SENSIM_PIECES (SENSIM_MEMS_LANE / SENSIM_PIECE)
_Static_assert(SENSIM_MEMS_LANE >= SENSIM_LANE_MAX && SENSIM_MEMS_LANE <= 16384u, "pos holds a lane index in 15 bits");
/* Sub-rays (beam divergence) are traced in 16-ray packets across shots (one
 * shot's 6 sub-rays left 10 of 16 packet slots empty): a whole lane's in
 * tile order when they fit in the lidar's sub-ray scratch (lane shots x
 * (beam_subrays - 1), at most this many), else groups of shots. */
#define SENSIM_SUBRAY_BATCH 8192u
_Static_assert(SENSIM_SUBRAY_BATCH <= 65536u, "sub_at holds a sub-ray index in 16 bits");
_Static_assert(SENSIM_PIECE * (SENSIM_MAX_SUBRAYS - 1) <= SENSIM_SUBRAY_BATCH, "a piece's sub-rays fit a MEMS lane's sub-ray scratch (sub_cap)");

/* How a mechanical lidar's lanes are cut and traced: lanes of `cols`
 * whole columns, traced in tiles of `cols` columns x 16 / cols channels
 * neighbouring in direction (one 16-ray packet). A lidar has two: narrow
 * lanes (SENSIM_LANE_MAX shots at most, SENSIM_TILE_COLS_MAX columns)
 * share a short call (a 1 kHz host: 18 columns of a vlp16) among the
 * threads, wide ones (twice the columns, 16 x 1 tiles) trace a long one
 * faster. Which one a block takes changes no output bit: a ray's hit does
 * not depend on the packet it is traced in, nor a shot's points on its
 * lane (the split tests, test_invariance). */
typedef struct sensim_tiling {
    uint32_t cols;       /* columns a lane and a tile; 0: no tiles (lanes of lane_shots in firing order; a
                          * Risley head's wide lanes: SENSIM_RISLEY_WIDE_LANE) */
    uint64_t lane_shots; /* cols x channels */
    uint16_t *base;      /* channel -> its place in a lane's tile order, column 0 */
} sensim_tiling;

/* A Risley head's wide lanes (firing order, as its narrow ones: 64 shots):
 * whole frames of mid40 and avia took 0.96-0.98 of the time with 256-shot
 * lanes, 1 kHz calls (100 and 240 shots) 1.35-1.45 x longer on two
 * threads (BENCHMARKS.md, ninth session). */
#define SENSIM_RISLEY_WIDE_LANE (4u * SENSIM_LANE_SHOTS)
/* Blocks of at least this many wide lanes a thread take the wide ones. */
#define SENSIM_WIDE_LANES_A_THREAD 4u

/* The rays a shot's first hits pass light on along (mirror rays,
 * transmissions) are traced together in 16-ray packets: a spinning head's
 * whole lane in tile order, a Risley head's this many shots at a time in
 * firing order (lane.c, sensim__returns_onward). */
#define SENSIM_ONWARD_SHOTS 256u

/* A moving sensor's pose at one firing time, kept for the lane's other
 * shots fired at that time (lane.c: lane_pose). */
typedef struct sensim_pose_slot {
    uint64_t lane;  /* the lane (sensim_lane_scratch.pose_lane) that filled it; 0: none */
    int64_t t;
    float R[9], org[3];
    double S[16];   /* the sensor's pose, sensor -> world */
} sensim_pose_slot;

#define SENSIM_POSE_SLOTS 256 /* a power of two; a pandar128 lane fires at 128 times (8 columns x 16) */

/* A moving sensor's pose over one span of SENSIM_POSE_SPAN_NS of the world
 * clock (k x 250 us .. (k + 1) x 250 us: 25 mid40 shots, 72 vlp16 shots):
 * the quadratic through the exact poses at its start, middle and end, used
 * for every shot in it when the span is one smooth piece of the path
 * (sensim__path_smooth: no key inside) and the quadratic meets the exact
 * poses at the quarter points within 5e-11 (rotation entries) and 5e-9 m
 * (translation), so everywhere within 1e-10 and 1e-8 m; else each shot's
 * exact pose (lane_pose.c). Spans sit on
 * the world clock, so a shot's pose depends on its time only, not on the
 * lane or call it falls in; 250 us divides the periods hosts step at
 * (1 ms, 2.5 ms, 10 ms, 50 ms), so their keys fall on span ends. */
#define SENSIM_POSE_SPAN_NS 250000
#define SENSIM_POSE_SPANS 32 /* a power of two: spans kept per thread (a 256-shot mid40 lane covers 11) */
typedef struct sensim_pose_span {
    uint64_t gen;          /* the scan (sensim_scan_env.pose_gen) that filled it; 0: none */
    int64_t k, a;          /* the span: [a, a + SENSIM_POSE_SPAN_NS), a = k x SENSIM_POSE_SPAN_NS */
    bool ok;               /* the quadratic holds */
    bool have_end;         /* end[] computed (the next span's start) */
    double end[12];        /* the exact sensor pose at the span's end: rotation columns, translation */
    double A[12], B[12], C[12]; /* pose(u) = A + u (B + u C), u = (t - k span) / span */
} sensim_pose_span;

/* One thread's lane scratch: arrays of lane_cap entries (the lidar's
 * lane, at least SENSIM_LANE_MAX: a mechanical lane's tile positions),
 * carved from one allocation per thread (sensim__lidar_scratch) with its
 * sub-rays: 127 bytes a shot (130 KB for a lidar of 64-shot lanes, 260 KB for
 * a mechanical one of more than 64 channels: its wide lanes; 62 bytes a
 * shot more for a spinning or Risley head: its onward rays; 190 and 380
 * KB),
 * and for a MEMS lidar its team's arrays, 46 more (8192 shots: 1.4 MB);
 * the struct itself is 63 KB (pose slots 49 KB, pose spans 13 KB). */
typedef struct sensim_lane_scratch {
    int64_t *when, *live;
    sensim_plain *plain;  /* the return model of the plain shots, batched (sensim__returns_plain) */
    sensim_ray *rays;
    sensim_hit *hits;
    float *dirs;          /* 3 a shot */
    float *origin;        /* 3 a shot: beam origin offsets (beam_origin_m > 0), sensor frame */
    uint16_t *chan;
    uint16_t *sub_at;     /* live shot -> its first sub-ray in sub_rays */
    uint16_t *onward_at;  /* live shot -> its first onward ray (sensim__returns_onward) */
    int16_t *pos;         /* 2 a shot: tile position -> live shot, -1 = none; then the live shots in tile order */
    uint16_t *key;        /* patterns without columns: a live ray's direction cell (Morton order) */
    uint8_t *ok;          /* the pattern's, and the shot kept (drop-out) */
    int64_t *raw_when;    /* a team's lane (scan_lane; MEMS only): the pattern's shots before compaction */
    uint16_t *raw_chan;
    float *raw_dirs;      /* 3 a shot */
    sensim_hit *sorted_hits; /* a team's lane: the hits in the order traced */
    uint32_t piece_live[SENSIM_PIECES], piece_out[SENSIM_PIECES], piece_rays[SENSIM_PIECES]; /* per SENSIM_PIECE shots */
    sensim_ray *sub_rays; /* sub_cap each (NULL without sub-rays) */
    sensim_hit *sub_hits;
    sensim_ray *onward_rays; /* spinning and Risley heads: lane_cap each
                              * (sensim__returns_onward); else NULL */
    sensim_hit *onward_hits;
    sensim_pose_slot poses[SENSIM_POSE_SLOTS]; /* moving sensor: poses by firing time, valid in one lane */
    uint64_t pose_lane;                        /* lanes this scratch has begun, moving (slots of others: stale) */
    sensim_pose_span spans[SENSIM_POSE_SPANS]; /* moving sensor: by span index, valid in one scan (pose_gen) */
    const sensim_pose_span *span_last;         /* the span asked for last (NULL: none) */
} sensim_lane_scratch;

/* A lane's output, published to the ring in lane order (sensim__lidar_scan_block). */
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
    /* A Risley or MEMS pattern's shots 0 .. memo_n - 1 as sensim__pattern_batch()
     * gives them, kept by sensim_lidar_rewind() for the span scanned before
     * (a placement search rescans it for every candidate), at most
     * SENSIM_PATTERN_MEMO_BYTES; read by scans (sensim__lidar_pattern_batch). */
    int64_t memo_n;
    int64_t shot_offset; /* sensim_lidar_set_shot_offset: shot g takes the pattern's shot g + this */
    int64_t *memo_t;
    uint16_t *memo_ch;
    float *memo_dir;
    uint8_t *memo_ok;
    atomic_int busy;    /* 1 while a scan (or a rig step) uses the lidar */
    /* scratch for one block of block_shots shots, allocated at creation
     * (rays and hits live on each lane's stack) */
    uint64_t lane_shots;      /* shots per lane (see SENSIM_LANE_MAX); a mechanical lidar's narrow lanes */
    uint32_t lane_cap;        /* entries of a thread's lane scratch: max(its widest lane, SENSIM_LANE_MAX) */
    uint32_t sub_cap;         /* sub-rays a thread's scratch holds: widest lane x (nsub - 1), at most SENSIM_SUBRAY_BATCH */
    sensim_tiling tiling[2];  /* [0] narrow lanes, [1] wide ones (mechanical; a Risley head's: lane_shots; see
                               * sensim__lidar_tiling) */
    bool sort_dirs;           /* MEMS: lanes traced sorted by direction (direction_order), shared by a team alone in a block */
    uint16_t *dir_rank;       /* mechanical: channel -> rank by (azimuth offset bin, elevation) */
    uint64_t block_shots;     /* min(SENSIM_BLOCK_SHOTS, most shots of a frame), a multiple of a wide lane */
    sensim_point *slots;      /* 2 per shot: up to two returns */
    sensim_lane_out *lane_out; /* per lane of a block: its points and where in the ring they go */
    sensim_lane_scratch *scr; /* one per thread, allocated by the first scan on that many threads */
    uint32_t scr_threads;
    sensim_path path;         /* a scan's motion (24 KB: here, not on the host's stack; the holder's, see busy) */
};

/* What a scan call hands its blocks (lane.c) besides the lidar: motion and output frame. */
typedef struct sensim_scan_env {
    const sensim_scene *scene;
    const sensim_path *path;  /* platform motion */
    const double *mount;
    double S0[16];            /* sensor pose when the platform does not move */
    double Hinv[16];          /* inverse of the frame header's pose (deskew) */
    uint32_t nthreads;
    uint64_t pose_gen;        /* this scan's number (sensim__lidar_pose_gen): tags its pose spans */
} sensim_scan_env;

#define SENSIM_PATTERN_MEMO_BYTES ((size_t)32 << 20) /* 23 bytes a shot: 1.4 M shots (mid40: 140 s) */

/* Shots [g0, g0 + n) of the lidar's pattern (sensim__pattern_batch): from
 * the memo when it holds them all (the same bits), else computed. */
void sensim__lidar_pattern_batch(const sensim_lidar *l, int64_t g0, uint32_t n, int64_t *t, uint16_t *ch, float *dir,
                                 uint8_t *ok);
/* The memo of shots [0, g1) (as much as SENSIM_PATTERN_MEMO_BYTES holds) for
 * a pattern that costs more to compute than to copy (Risley, MEMS); kept as
 * it was when allocation fails (a memo only saves time). Not while a scan
 * of @p l reads it (lidar.c calls it at a scan's start). */
void sensim__lidar_pattern_memo(sensim_lidar *l, int64_t g1);

/* The sensor's pose at @p t (platform motion x mount), exactly. */
void sensim__lidar_sensor_pose(const sensim_scan_env *env, int64_t t, double S[16]);
/* A new scan's pose_gen: never 0, never repeated in the process. Thread-safe. */
uint64_t sensim__lidar_pose_gen(void);

/* The moving sensor's pose at shot time @p t into slot @p e (its S only
 * @p with_S): the span's quadratic where it holds, else the exact pose
 * (sensim__lidar_sensor_pose, then R and org rounded to float). The same
 * bits for a time whichever lane, call or thread asks (lane_pose.c). */
void sensim__lane_pose_fill(const sensim_scan_env *env, sensim_lane_scratch *w, int64_t t, sensim_pose_slot *e,
                            bool with_S);
/* The slots of the shots fired at when[0 .. n) (those with ok[i] set; @p ok
 * NULL: all) that have none in @p w: the spans' quadratics, the exact ones
 * four firing times at a time (what sensim__lane_pose_fill() gives). */
void sensim__lane_prefill(const sensim_scan_env *env, sensim_lane_scratch *w, const int64_t *when, const uint8_t *ok,
                          uint32_t n, bool with_S);

/* A sensor pose's rotation (columns) and origin rounded to float, as rays take them. */
static inline void sensim__pose_floats(const double S[16], float R[9], float org[3])
{
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++)
            R[c * 3 + row] = (float)S[c * 4 + row];
    org[0] = (float)S[12], org[1] = (float)S[13], org[2] = (float)S[14];
}

/* The lane slot of firing time @p t (a multiplicative hash). */
static inline sensim_pose_slot *sensim__pose_slot(sensim_lane_scratch *w, int64_t t)
{
    _Static_assert(SENSIM_POSE_SLOTS == 256, "the hash takes 8 bits");
    return &w->poses[(uint64_t)t * 0x9E3779B97F4A7C15ull >> 56];
}
/* Shots [g0, g1) of the frame beginning at @p frame_begin (g1 - g0 <= one
 * block): generated, traced, their points into @p ring; returns the rays
 * traced. */
uint64_t sensim__lidar_scan_block(sensim_lidar *l, const sensim_scan_env *env, int64_t frame_begin, int64_t g0,
                                  int64_t g1, sensim_ring *ring);
/* The tiling a block of @p shots shots on @p nthreads threads takes: the
 * wide one when it holds SENSIM_WIDE_LANES_A_THREAD wide lanes a thread
 * and a wide lane's sub-rays fit the sub-ray scratch (sub_cap) whole, else
 * the narrow one (a lidar without tiles: its lanes, cols 0). A moving
 * sensor too since its poses come from spans (sensim_pose_span): before,
 * a wide lane's slot misses each cost an exact pose, and moving vlp16 and
 * pandar64 frames with world points took 2.5 % longer in wide lanes; now
 * vlp16 takes 0.92 of the time, pandar128 0.96. */
const sensim_tiling *sensim__lidar_tiling(const sensim_lidar *l, uint64_t shots, uint32_t nthreads);
/* The lane scratch of @p nthreads threads (allocated once for the most
 * threads a scan has used): SENSIM_OK or SENSIM_ERR_OUT_OF_MEMORY. */
sensim_status sensim__lidar_scratch(sensim_lidar *l, uint32_t nthreads);

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
