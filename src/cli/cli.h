/* Helpers shared by the sensim subcommands. */
#ifndef SENSIM_CLI_H
#define SENSIM_CLI_H

#include <sensim/sensim.h>

#include <signal.h>

#include <stdio.h>

#define MAX_SENSORS 16
#define MAX_SETS 256

#define EXIT_USAGE 2
#define EXIT_STATUS_BASE 10
#define EXIT_INTERRUPTED 130

extern sensim_context *g_ctx;
/* --flatten-actors N: the scene's budget of flattened triangles (sensim_scene_set_flatten; 0: off),
 * applied by load_scene() and to the built-in street */
extern uint32_t g_flatten;
/* The budget every command that loads a scene starts from (scan, demo, batch, ros2, collect, placement,
 * bench, render): their drivers never move a parked actor (--actors' moving actors are added after the
 * first commit and stay instances), so parked actors are traced as static geometry unless
 * --flatten-actors 0. Flattened hits move by float rounding of world coordinates (<= 2e-5 m on the street;
 * CHANGES.md per preset). The library's default stays 0: a host may move a parked actor later. */
#define FLATTEN_DEFAULT 4000000u

int fail(sensim_status st);
/* Create g_ctx with `threads` workers (0: all cores); 0 or the exit status of fail(). */
int open_context(uint32_t threads);
int usage(const char *msg);
/* `sensim --help` (all synopses) or `sensim CMD --help` (that command's); 0. */
int cli_help(FILE *f, const char *cmd);
/* Whether @p cmd is a command with a help text. */
int cli_is_command(const char *cmd);
/* The command being run: usage() names it and shows its synopsis. */
void cli_set_command(const char *cmd);
/* usage() for an option given without its value (@p needs_value) or not known. */
int usage_option(const char *opt, int needs_value);
double now_s(void);
/* qsort comparator of doubles, ascending (no NaN expected). */
int cli_cmp_double(const void *a, const void *b);
int parse_u32(const char *s, uint32_t *out);
/* --frame's value: 0, or EXIT_USAGE after the usage message. */
int parse_frame_arg(const char *v, int32_t *frame);
int parse_numbers(const char *s, double *v, int lo, int hi);
/* --shard K/N: 1 with 0 <= K < N <= 100000 (digits only), else 0. */
int parse_shard(const char *v, uint32_t *k, uint32_t *n);
int ensure_dir(const char *dir);
/* The longest --out accepted: every file under it (sensor folder, step name, .tmp.XXXXXX) stays under the
 * 4000 bytes the writers take, so no path is ever cut short. */
#define CLI_OUT_MAX 3800
/* 0 when @p out is 1..CLI_OUT_MAX bytes, else an exit status after one line naming the limit. */
int cli_check_out(const char *out);
/* OUT/SUB created if missing; 1, or 0 after a message when it is a symbolic link or not a folder (a run never
 * writes through a link planted inside its output folder; --out itself may be a link). */
int ensure_out_subdir(const char *out, const char *sub);
sensim_status load_scene(const char *what, int32_t frame, const char *tags_file, sensim_scene *scene);
int cmd_batch(int argc, char **argv);
int cmd_ros2(int argc, char **argv);
/* ros2.c: a detached thread that ends the process with 130 three seconds after *flag is set, if it is still
 * running then (stuck inside Cyclone DDS); sensim ros2 and sensim topic start it once. */
void cli_stop_watchdog(volatile sig_atomic_t *flag);
int cmd_view(int argc, char **argv);
int cmd_bag(int argc, char **argv);
int cmd_topic(int argc, char **argv);
/* --ros-distro NAME: the node graph's GID size for that ROS 2 distribution (0, or EXIT_USAGE after the
 * message). */
int parse_ros_distro(const char *v, sensim_ros2_options *o);
/* bag.c: one CDR message printed as ros2 topic echo prints it (0, or -1: it does not match @p def). */
int echo_cdr(const char *type, const char *def, const uint8_t *msg, size_t n, size_t *out_offset);
int cmd_collect(int argc, char **argv);
/* sensim run SURVEY.json (survey.c): the command a survey file spells out, run through @p dispatch
 * (main() passes cli_dispatch: survey.c sits below the dispatcher and never names it). */
typedef int (*cli_dispatch_fn)(int argc, char **argv);
int cmd_run(int argc, char **argv, cli_dispatch_fn dispatch);
/* Run argv[1] with its options, as main() does for a command line. */
int cli_dispatch(int argc, char **argv);
/* Usage errors from here on name this survey file (its keys are the options). */
void cli_set_survey(const char *path);

/* --images [LIST]: which per-frame images (bits below; a bare --images is
 * range, intensity, label and preview). A LIST in argv[*i + 1] is consumed
 * (*i advances) when it is not an option. 0 or EXIT_USAGE after a message. */
#define IMG_RANGE     1u
#define IMG_INTENSITY 2u
#define IMG_LABEL     4u
#define IMG_PREVIEW   8u
#define IMG_BEV       16u
int parse_images_arg(int argc, char **argv, int *i, uint32_t *mask);
/* BASE_range.png, _intensity.png, _label.png, _range_preview.png, _bev.png as @p mask asks. */
sensim_status write_frame_images_set(uint32_t mask, const sensim_lidar *lidar, const sensim_point *pts, uint64_t n,
                                     const char *base);
/* An exclusive temporary next to @p path (PATH.tmp.XXXXXX, mode 0644): a
 * file or symlink planted in the output folder is never followed. NULL
 * after a message naming @p path. */
FILE *cli_tmp_create(const char *path, char *tmp, size_t cap);
/* Open @p path for reading only if it is a regular file of at most 1 GiB
 * (opened non-blocking: a FIFO is refused at once). 0, or an exit status
 * after a one-line message. */
int open_regular_file(const char *path, FILE **f);
/* The line readers of the input files (cli_files.c): next_line 1 (a line), 0 (end), -1 (reported: too
 * long, a NUL byte); line_content trims a # comment and blanks in place (NULL: nothing left);
 * split_key_value splits "key = value" in place (0 without "="). */
int next_line(FILE *f, const char *path, unsigned long long ln, char *line, size_t cap);
char *line_content(char *line);
/* A section header "[KIND NAME]", exactly, NAME 1..63 of A-Z a-z 0-9 _ -: NAME's length (its start in
 * *name), else 0 (cli_files.c). */
size_t section_name(const char *p, const char *kind, const char **name);
int split_key_value(char *p, char **key, char **value);

typedef struct traj {
    sensim_pose_key *keys;
    size_t n;
} traj;

typedef struct sensor_spec {
    char name[64];
    int camera;        /* type = camera (default: lidar) */
    int nav;           /* type = imu | gnss | odometry: 1 + SENSIM_NAV_* (0: not a navigation sensor) */
    int radar;         /* type = radar */
    int type_given;    /* a section says its type once */
    char preset[1024];
    const char *sets[MAX_SETS];
    uint32_t nsets;
    char *owned[MAX_SETS];
    uint32_t nowned;
} sensor_spec;

/* The actor file's budget: 65536 actors (about 2.2 KB of spec each, 144 MB at most, and each
 * trajectory within the trajectory reader's own budget). */
#define MAX_ACTORS 65536

/* An actor of `sensim batch --actors`: a box or a mesh file moving along its trajectory. */
typedef struct actor_spec {
    char name[64];
    uint32_t id;
    int32_t tag;            /* -1: unset */
    double box[3];          /* length, width, height (m); box[0] = 0: a mesh file */
    char mesh[1024];
    uint32_t keys_seen;     /* id, tag, mesh, trajectory given (each at most once) */
    char trajectory[1024];
    traj tr;
} actor_spec;

/* Parsers of batch input files: 0 or an exit status after a one-line message. load_actors:
 * *actors (NULL on entry) becomes a malloc'd array of *count specs, the caller's to free (with
 * each spec's tr.keys), also after a failure. */
int load_actors(FILE *f, const char *label, actor_spec **actors, uint32_t *count);
int load_actors_file(const char *path, actor_spec **actors, uint32_t *count);
int msg_fail(const char *fmt, const char *a, unsigned long long line, const char *b);
int load_trajectory(FILE *f, const char *label, int32_t frame, traj *t);
/* A trajectory read row by row (sensim ros2 --trajectory -: rows arriving on a pipe). traj_read
 * appends rows to @p t until it holds @p until keys or the stream ends (eof set): 0, or an exit
 * status after a message naming path:line. The file's format is found from its first lines. */
typedef struct traj_reader {
    FILE *f;
    const char *path, *times_path;
    int32_t frame;
    unsigned long long ln;
    int quat;
    double *times;
    size_t ntimes, cap;
    double prev_t;
    int prev_jump; /* the row before was the second of two at one time (a jump): a third is refused */
    int eof;
} traj_reader;
void traj_reader_init(traj_reader *r, FILE *f, const char *path, int32_t frame, const char *times_path);
int traj_read(traj_reader *r, traj *t, size_t until);
void traj_reader_free(traj_reader *r);
int load_trajectory_file(const char *path, int32_t frame, traj *t);
/* A rigid pose from a position and a quaternion (qx, qy, qz, qw: ROS's order), normalised; 1 and a
 * reason in @p why when its norm is not within 1e-2 of 1 (or not finite). */
int pose_from_quat(double m[16], const double xyz[3], const double q[4], char *why, size_t cap);
/* Rows denser than a world step of @p step_ns can push (the rig holds 4096 keys; a 50 kHz log in 0.1 s steps
 * is 5000) are thinned: a row is kept when it lies at least step_ns / TRAJ_KEYS_PER_STEP after the last kept
 * one, and the last row always. 0 (with a note on stderr when rows were dropped) or an exit status. */
#define TRAJ_KEYS_PER_STEP 2048
/* Two rows of a trajectory more than this apart are refused (a stream switching clocks, a 10^6 s gap): the
 * motion between them would be invented, and the steps through it would run for days. */
#define TRAJ_MAX_GAP_S 3600.0
int thin_keys(traj *t, int64_t step_ns, const char *label);
/* The same with KITTI's times file (NULL for the other formats). */
int load_trajectory_times(FILE *f, const char *label, int32_t frame, const char *times_path, traj *t);
int load_trajectory_file_times(const char *path, int32_t frame, const char *times_path, traj *t);
int load_rig(FILE *f, const char *label, sensor_spec *specs, uint32_t *count);
int load_rig_file(const char *path, sensor_spec *specs, uint32_t *count);
void free_specs(sensor_spec *specs, uint32_t count);
/* Rewrite the mount_xyz_m / mount_rpy_deg keys of @p specs, typed in @p frame
 * (--frame carla|ue: CARLA's Transform numbers), as the same poses in native
 * numbers. 0, or an exit status after a message naming @p path and the sensor. */
int rig_mounts_from_frame(sensor_spec *specs, uint32_t count, int32_t frame, const char *path);
int load_camera(FILE *f, const char *label, sensim_camera_desc *desc);
/* Rows of @p cols comma-separated finite numbers (at most @p max_rows; '#'
 * comments, blank lines and one @p header line allowed) into a malloc'ed
 * array: 0, or an exit status after a message naming the file and line. */
int load_number_rows(const char *path, const char *header, int cols, uint32_t max_rows, double **out, uint32_t *n);
int load_camera_file(const char *path, sensim_camera_desc *desc);
int cmd_bench(int argc, char **argv);
/* Camera output (render.c): "depth,semantic,..." into SENSIM_CAMERA_* bits
 * (0, or EXIT_USAGE after a message); JSON number arrays and CameraInfo. */
int parse_camera_outputs(const char *list, uint32_t *want);
/* A camera preset name or camera file (render.c): 0 or an exit status after a message. */
int load_camera_arg(const char *what, sensim_camera_desc *desc);
void cli_json_numbers(FILE *f, const double *v, int n);
void cli_json_camera_info(FILE *f, const sensim_camera *cam);
/* One capture in the collection layout through the library's image sink
 * (sensim/sink.h): DIR/<output>/NNNNNN.png (depth also .pfm; semantic also
 * semantic_cityscapes), then DIR/NNNNNN.json (time, pose converted to
 * @p frame, CameraInfo). 0 or an exit status after a message. */
int camera_write_capture(const char *dir, uint64_t number, const sensim_camera *cam, const char *name, uint32_t want,
                         const sensim_camera_images *im, const double pose[16], int64_t t_ns, int32_t frame);
int cmd_render(int argc, char **argv);
/* sensim placement (placement.c). */
int cmd_placement(int argc, char **argv);

#endif
