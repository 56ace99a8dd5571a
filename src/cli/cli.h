/* Helpers shared by the sensim subcommands. */
#ifndef SENSIM_CLI_H
#define SENSIM_CLI_H

#include <sensim/sensim.h>

#define EXIT_USAGE 2
#define EXIT_STATUS_BASE 10
#define EXIT_INTERRUPTED 130

extern sensim_context *g_ctx;

int fail(sensim_status st);
int usage(const char *msg);
double now_s(void);
int parse_u32(const char *s, uint32_t *out);
int parse_numbers(const char *s, double *v, int lo, int hi);
int ensure_dir(const char *dir);
sensim_status load_scene(const char *what, int32_t frame, sensim_scene *scene);
int cmd_batch(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
