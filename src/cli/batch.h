/* sensim batch, inside: the types and helpers its files share (batch.c the
 * driver, batch_sensors.c the sensors along the trajectory, batch_out.c files
 * and progress, batch_mcap.c the bag). */
#ifndef SENSIM_BATCH_H
#define SENSIM_BATCH_H

#include "cli.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#define FORMAT_MCAP 8 /* --format mcap: not a per-frame file format (0..7 are SENSIM_FORMAT_*) */

/* A lidar frame without points is almost always a placement mistake: said on stderr and in the frame's JSON. */
#define NO_POINTS_HINT "no points: every beam missed or fell inside the minimum range; check the mount height " \
                       "(mount_xyz_m) and the trajectory's z (a lidar at z = 0 sits in the road)"

/* Set by Ctrl-C: stop after the current frame. */
extern volatile sig_atomic_t g_stop;
/* The run's one motion model (--motion): every sensor's poses and kinematics come from the
 * trajectory through it, as a rig's sensors do from its history. */
extern int32_t g_motion;
extern const char *const nav_names[3];

/* Keys a causal piece carries before its span: a key's derivatives read it and the 4 before it. */
static inline size_t lead_keys(size_t lo)
{
    return g_motion == SENSIM_INTERP_CAUSAL ? (lo < 4 ? lo : 4) : 0;
}

static inline int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

/* A camera of the rig file (type = camera). */
typedef struct cam_sensor {
    sensim_camera *cam;
    sensim_camera_desc d;
    double rate_hz;
    int64_t period_ns;
    uint32_t want;
    double mount[16];
    sensim_image_sink *sink; /* its captures' files (the library's image sink, as a host's) */
} cam_sensor;

/* Moving actors of --actors: placed as prototypes once, then moved for
 * each frame or sample: the scene's motion interval becomes [t0, t1] and
 * each actor goes from its trajectory pose at t0 to the one at t1 (linear in
 * between, as scans interpolate; held before and after its trajectory). */
typedef struct actor_set {
    sensim_scene *scene;
    actor_spec *a;
    uint32_t n;
} actor_set;

/* The collection layout's per-step JSON, OUT/steps/NNNNNN.json: world step
 * s covers [s·Δ, (s+1)·Δ); it lists the platform pose at its start and every
 * sensor frame (lidar frame, camera capture) whose start time lies in it,
 * with that time, the sensor's pose then and the frame's file stem. */
typedef struct step_plan {
    const char *out;
    const traj *tr;
    const sensor_spec *specs;
    uint32_t nspecs;
    const int64_t *periods, *first_frame, *nframes;
    const double (*mounts)[16];
    int64_t step_ns;
    int32_t frame;
} step_plan;

typedef struct job {
    sensim_point *pts;
    uint64_t n;
    sensim_frame_header h;
    char base[4096];      /* path without extension (the resume marker is BASE.json) */
    sensim_frame_sink *sink;
    int full;
} job;

typedef struct writer {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    job slots[2];
    int head, count, quit, error;
    char message[4400];   /* the first error, for the main thread's summary */
    uint64_t written;     /* frames completely on disk */
    double write_s;
    double wait_s;        /* the rig's thread waiting for a free slot (writer_slot) */
} writer;

/* What each sensor has done of what it will do this run (frames, captures,
 * samples): the line counts exactly that, per sensor when there are several. */
typedef struct prog {
    int tty, quiet;
    uint32_t n;
    const char *name[MAX_SENSORS];
    uint64_t done[MAX_SENSORS], total[MAX_SENSORS];
    uint64_t empty[MAX_SENSORS]; /* lidar frames without a point */
    uint64_t points, shown; /* shown: the count last printed (a final line repeats nothing) */
    double t0, last;
} prog;

typedef struct mcap_opts {
    sensim_mcap_options o;
    int no_tf, no_odom;
    char prefix[128];      /* topic prefix, "" or "/a/b" */
    char odom_frame[64], base_frame[64];
} mcap_opts;

typedef struct mcap_out mcap_out; /* batch_mcap.c: the bag and its topics */

/* sensim ros2 (ros2.c): the batch driver publishing live instead of writing OUT. */
typedef struct live_opts {
    int on;
    sensim_ros2_options o;
    double rate;           /* world seconds per wall second (1: real time); 0: as fast as the rig runs */
    int wait_subscribers;  /* start once every topic has a subscriber */
    int go_on_stdin;       /* then once a line arrives on stdin (a harness whose subscribers have matched) */
    double linger_s;       /* after the run, keep publishing /tf_static this long (< 0: until Ctrl-C) */
    int dry_run;           /* step the rig and discard its frames: what the rig costs without publishing */
    traj_reader *stream;   /* --trajectory -: rows arriving on stdin (NULL: a file, read whole) */
    int stream_rc;         /* the stream's failure (an exit status after a message), 0 */
    int64_t stream_t0_ns;  /* the stream's first row (its history is bounded: keys[0] moves on) */
    int64_t thin_gap_ns;   /* a streamed row closer than this to the last kept one is skipped (thin_keys) */
    size_t stream_dropped; /* rows of the stream dropped so far: thinned, or history no step needs any more */
    char node_ns[224], node_name[224]; /* --node: the ROS node of the topics (default "/" and "sensim") */
    int stamp_wall;        /* --stamp wall: stamps = wall clock at the first step + world time since */
    int64_t stamp_offset_ns; /* --stamp EPOCH_S: a fixed offset (0: world time) */
    int pose_kind;         /* --pose-in: 0 none, 1 odom, 2 pose (PoseStamped), 3 tf (ros2_pose.c) */
    int control_in;        /* --control-in: the topic in pose_topic (ros2_control.c) */
    int64_t control_step_ns; /* the world step: the vehicle model's step */
    char pose_topic[256], pose_child[128];
    int rate_given;        /* --rate given (else --pose-in runs unpaced: the poses pace it) */
    sensim_mcap *m;        /* the live writer when opened before the run (--pose-in reads on it), else NULL */
    char **wait_topics;    /* --wait-subscribers=T1,T2: only these topics (NULL: every topic) */
    int nwait_topics;
} live_opts;
extern live_opts g_live;
#define CMD_NAME (g_live.on ? "ros2" : "batch") /* the command messages name */

/* ros2.c: before the first step (wait as asked), before each step (pace), after the run (linger). */
int live_start(sensim_mcap *m);
int live_pace(sensim_mcap *m, int64_t t); /* 0, or an exit status (the stamp offset refused) */
void live_end(sensim_mcap *m);
const char *live_domain(void); /* the domain id as the writer took it */
/* One more row of a streamed trajectory into @p tr: 1, or 0 at its end (or Ctrl-C, or a bad row:
 * g_live.stream_rc) and for a trajectory read whole. */
int live_more_keys(traj *tr);
/* The name messages give the streamed trajectory: "stdin" or the --pose-in topic. */
const char *live_stream_name(void);
/* ros2_pose.c: --pose-in KIND:TOPIC parsed (0, or EXIT_USAGE after the message); the writer and the
 * topic's reader opened and the first pose in @p tr (0, or an exit status after a message); the next
 * pose (live_more_keys's contract); the reader closed (before the writer) with a summary line. */
int live_pose_parse(const char *v);
int live_pose_open(traj *tr);
int live_pose_more(traj *tr);
void live_pose_close(void);
/* ros2_control.c: --control-in TOPIC parsed; the reader opened with @p tr cut to its first row (the
 * start); the next row the vehicle model drives (live_more_keys's contract); the reader closed. */
int live_control_parse(const char *v);
int live_control_open(traj *tr);
int live_control_more(traj *tr);
void live_control_close(void);
/* The live writer opened before the run (its participant carries the --pose-in / --control-in reader):
 * 0, or an exit status after a message. */
int live_writer_open(void);
/* The reader and a writer opened before the run, closed when the run fails before taking them over. */
void live_close_early(void);
/* Rows of a stream kept behind the newest: a 24 h 1 kHz stream holds ~4 MB, not 11 GB. */
#define LIVE_KEEP_ROWS 32768
/* Drop a stream's rows no step needs any more (keeps LIVE_KEEP_ROWS and the 8 before @p *pushed). */
void live_forget_keys(traj *tr, size_t *pushed);
/* The last time a trajectory covers: its last row, or for a stream one year past its first row
 * (the run ends with the stream). */
#define LIVE_STREAM_SPAN_NS INT64_C(31536000000000000)
static inline int64_t traj_end_ns(const traj *tr)
{
    return g_live.stream ? g_live.stream_t0_ns + LIVE_STREAM_SPAN_NS : tr->keys[tr->n - 1].t_ns;
}

/* Everything the rig driver (batch_rig.c) needs from cmd_batch, and what it counts. */
typedef struct batch_run {
    const char *out;
    int rig_file;                  /* --rig (files under OUT/NAME/) rather than --lidar (OUT/) */
    int32_t frame;                 /* --frame of the CSV streams */
    int resume, quiet;
    const traj *tr;
    actor_set *as;
    sensim_scene *scene;
    const sensor_spec *specs;
    uint32_t nspecs;
    sensim_lidar **lidars;
    cam_sensor *cams;              /* each camera's image sink is made by cmd_batch */
    sensim_nav **navs;
    const sensim_nav_desc *nav_desc;
    sensim_radar **radars;
    const sensim_radar_desc *radar_desc;
    sensim_frame_sink **sinks;     /* each lidar's frame files */
    mcap_out *mc;                  /* --format mcap: the bag every consumer writes into (no files, no CSV) */
    const int64_t *periods, *first_frame, *nframes;
    int64_t step_ns, s0, nsteps;   /* world steps s0 .. s0 + nsteps − 1 lie inside the trajectory */
    int64_t fa, fb;                /* --frames: steps s0 + fa .. s0 + fb − 1 */
    uint32_t shard_k, shard_n;
    writer *w;                     /* the lidar frames' writer thread and its two buffers */
    sensim_point *bufs[2];
    uint64_t cap;
    prog *pg;
    uint64_t captures, skipped, points;
    double scan_s;                 /* in sensim_rig_step: stepping and the consumers it runs */
    double consume_s;              /* in the lidar and camera consumers: copies, hand-off, waiting for room */
} batch_run;

int run_rig(batch_run *R);
int run_mcap(batch_run *R, const mcap_opts *mo);
int mcap_step(mcap_out *M, int64_t t);
sensim_status mcap_points(mcap_out *M, uint32_t s, const sensim_frame_view *v);
sensim_status mcap_capture(mcap_out *M, uint32_t s, const sensim_image_view *v);
sensim_status mcap_nav(mcap_out *M, uint32_t s, const sensim_nav_sample *ns);
sensim_status mcap_radar(mcap_out *M, uint32_t s, int64_t t, const sensim_radar_detection *det, uint64_t n);
void shard_block(const batch_run *R, int64_t *A, int64_t *B, int64_t *ba, int64_t *bb);

/* A radar detection as a PointCloud2 record: Cartesian x, y, z (sensor
 * frame, metres) in front of the detection's own fields. */
typedef struct radar_point {
    float x, y, z;
    sensim_radar_detection d;
} radar_point;

int actors_move(actor_set *as, int64_t t0, int64_t t1);
int actors_place(actor_set *as, int32_t frame);
int make_camera(const sensor_spec *sp, const char *rig, cam_sensor *c);
int make_nav(const sensor_spec *sp, const char *rig, sensim_nav_desc *d, sensim_nav **out);
int make_radar(const sensor_spec *sp, const char *rig, sensim_radar_desc *d, sensim_radar **out);
int write_step(const step_plan *sp, int64_t s);
void mat4_mul(const double a[16], const double b[16], double out[16]);
void sensor_pose_at(const traj *tr, int64_t t, const double mount[16], double out[16]);
size_t key_at(const traj *tr, int64_t t);
int check_output(const char *out, const char *mp, const char *meta, size_t len, int resume, int overwrite,
                 uint32_t shard_n);
int file_exists(const char *p);
/* Lock @p out for this run (out_dir.c: a second run, or a second copy of one shard, is refused at once;
 * shards of one run share), remove temporaries a killed run left when no other run writes, check the
 * folder with check_output and write @p meta as OUT/meta.json. 0 with *lock_fd held until exit, or an
 * exit status after one line. */
int claim_output(const char *out, const char *meta, size_t len, int resume, int overwrite, uint32_t shard_k,
                 uint32_t shard_n, int *lock_fd);
const char *format_name(int32_t format);
void json_overrides(FILE *f, const sensor_spec *sp, const char *const *extra, uint32_t nextra);
void json_str(FILE *f, const char *str);
void progress(prog *p, int final);
void writer_drain(writer *w);
void *writer_main(void *arg);
job *writer_slot(writer *w, int *index);
void writer_submit(writer *w);
uint64_t fnv1a_file(const char *path, int *ok);
void init_radar_point_fields(void);

#endif
