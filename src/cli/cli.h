/* Helpers shared by the sensim subcommands. */
#ifndef SENSIM_CLI_H
#define SENSIM_CLI_H

#include <sensim/sensim.h>

#include <stdio.h>

#define MAX_SENSORS 16
#define MAX_SETS 256

#define EXIT_USAGE 2
#define EXIT_STATUS_BASE 10
#define EXIT_INTERRUPTED 130

extern sensim_context *g_ctx;

int fail(sensim_status st);
/* Create g_ctx with `threads` workers (0: all cores); 0 or the exit status of fail(). */
int open_context(uint32_t threads);
int usage(const char *msg);
double now_s(void);
int parse_u32(const char *s, uint32_t *out);
int parse_numbers(const char *s, double *v, int lo, int hi);
int ensure_dir(const char *dir);
sensim_status load_scene(const char *what, int32_t frame, const char *tags_file, sensim_scene *scene);
int cmd_batch(int argc, char **argv);

typedef struct traj {
    sensim_pose_key *keys;
    size_t n;
} traj;

typedef struct sensor_spec {
    char name[64];
    char preset[1024];
    const char *sets[MAX_SETS];
    uint32_t nsets;
    char *owned[MAX_SETS];
    uint32_t nowned;
} sensor_spec;

/* Parsers of batch input files: 0 or an exit status after a one-line message. */
int msg_fail(const char *fmt, const char *a, unsigned long long line, const char *b);
int load_trajectory(FILE *f, const char *label, int32_t frame, traj *t);
int load_trajectory_file(const char *path, int32_t frame, traj *t);
int load_rig(FILE *f, const char *label, sensor_spec *specs, uint32_t *count);
int load_rig_file(const char *path, sensor_spec *specs, uint32_t *count);
void free_specs(sensor_spec *specs, uint32_t count);
int load_camera(FILE *f, const char *label, sensim_camera_desc *desc);
int load_camera_file(const char *path, sensim_camera_desc *desc);
int cmd_bench(int argc, char **argv);
int cmd_render(int argc, char **argv);

#endif
