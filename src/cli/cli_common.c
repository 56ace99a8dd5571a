/* Helpers every sensim subcommand shares: the context, failures, folders, scenes, per-frame images. */
#include <sensim/sensim.h>

#include "cli.h"
#include "street.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

sensim_context *g_ctx;
uint32_t g_flatten;

int fail(sensim_status st)
{
    if (st == SENSIM_ERR_CANCELLED) { /* only Ctrl-C sets the cancel flag here */
        fprintf(stderr, "sensim: interrupted; every file written so far is complete\n");
        return EXIT_INTERRUPTED;
    }
    fprintf(stderr, "sensim: error: %s (%s)\n", sensim_context_last_error(g_ctx), sensim_status_string(st));
    return EXIT_STATUS_BASE + st;
}

/* Ctrl-C cancels the scan running now (it writes nothing); the command then
 * stops between files. One atomic store: async-signal-safe. */
static void cancel_on_signal(int sig)
{
    (void)sig;
    if (g_ctx)
        sensim_context_set_cancel(g_ctx, 1);
}

/* The library's warnings (a texture a scene names that could not be used, named): one line each on stderr.
 * Called from any thread: one fprintf per line. */
static void log_to_stderr(void *user, int32_t level, const char *message)
{
    (void)user;
    if (level <= SENSIM_LOG_WARN)
        fprintf(stderr, "sensim: %s: %s\n", level == SENSIM_LOG_ERROR ? "error" : "note", message);
}

int open_context(uint32_t threads)
{
    sensim_context_desc cd;
    sensim_context_desc_init(&cd);
    cd.thread_count = threads;
    cd.log_fn = log_to_stderr;
    sensim_status st = sensim_context_create(&cd, &g_ctx);
    if (st)
        return fail(st);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cancel_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return 0;
}

/* ---- per-frame images (--images [LIST]) ---- */
static const char *const image_names[] = {"range", "intensity", "label", "preview", "bev"};

int parse_images_arg(int argc, char **argv, int *i, uint32_t *mask)
{
    *mask = IMG_RANGE | IMG_INTENSITY | IMG_LABEL | IMG_PREVIEW;
    if (*i + 1 >= argc || argv[*i + 1][0] == '-')
        return 0; /* bare --images: the default set (scan and batch take no positional arguments) */
    const char *v = argv[++*i];
    uint32_t m = 0;
    while (*v) {
        size_t n = strcspn(v, ",");
        int k = 0;
        while (k < 5 && !(strlen(image_names[k]) == n && !strncmp(v, image_names[k], n)))
            k++;
        if (k == 5)
            return usage("--images takes a comma-separated list of range, intensity, label, preview, bev");
        m |= 1u << k;
        v += n + (v[n] == ',');
    }
    if (!m)
        return usage("--images takes a comma-separated list of range, intensity, label, preview, bev");
    *mask = m;
    return 0;
}

sensim_status write_frame_images_set(uint32_t mask, const sensim_lidar *lidar, const sensim_point *pts, uint64_t n,
                                     const char *base)
{
    return sensim_write_frame_image_set(lidar, pts, n, base, mask); /* IMG_* are the SENSIM_SINK_IMAGE_* bits */
}

FILE *cli_tmp_create(const char *path, char *tmp, size_t cap)
{
    snprintf(tmp, cap, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "sensim: error: %s: cannot create a temporary file: %s\n", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            remove(tmp);
        }
        return NULL;
    }
    fchmod(fd, 0644);
    return f;
}

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* mkdir -p: the folder and any missing parents; an existing non-folder is
 * an error naming it. */
int ensure_dir(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof path) {
        fprintf(stderr, "sensim: error: output directory '%.64s%s': %s\n", dir, n > 64 ? "..." : "",
                n ? "path too long" : "empty");
        return 0;
    }
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != 0)
            continue;
        char c = path[i];
        path[i] = 0;
        struct stat sb;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "sensim: error: cannot create directory %s: %s\n", path, strerror(errno));
            return 0;
        }
        if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            fprintf(stderr, "sensim: error: cannot create directory %s: %s exists and is not a directory\n", dir,
                    path);
            return 0;
        }
        path[i] = c;
    }
    return 1;
}

sensim_status load_scene(const char *what, int32_t frame, const char *tags_file, sensim_scene *scene)
{
    sensim_status st = g_flatten ? sensim_scene_set_flatten(scene, g_flatten) : SENSIM_OK;
    if (st != SENSIM_OK)
        return st;
    if (strcmp(what, "street") == 0) {
        street_info si;
        return street_scene_build(scene, 200.0f, 1, &si);
    }
    sensim_load_options lo;
    sensim_load_options_init(&lo);
    lo.frame = frame;
    lo.tag_map_file = tags_file;
    st = sensim_scene_load_file(scene, what, &lo, NULL);
    sensim_scene_info si;
    if (st == SENSIM_OK && sensim_scene_get_info(scene, &si) == SENSIM_OK &&
        (si.material_files_missing || si.textures_skipped))
        fprintf(stderr, "sensim: note: %s: %u material file(s) missing, %u texture(s) not usable (missing or not "
                        "PNG): cameras show those materials by Kd or tag colour\n",
                what, si.material_files_missing, si.textures_skipped);
    return st;
}

int parse_frame_arg(const char *v, int32_t *frame)
{
    if (!strcmp(v, "native") || !strcmp(v, "iso8855"))
        *frame = SENSIM_FRAME_NATIVE;
    else if (!strcmp(v, "carla"))
        *frame = SENSIM_FRAME_CARLA;
    else if (!strcmp(v, "ue"))
        *frame = SENSIM_FRAME_UE;
    else
        return usage("--frame must be native, iso8855, carla or ue");
    return 0;
}

int parse_ros_distro(const char *v, sensim_ros2_options *o)
{
    static const char *const newer[] = {"iron", "jazzy", "kilted", "lyrical", "rolling"};
    if (!strcmp(v, "humble")) {
        o->graph_gid_bytes = 24;
        return 0;
    }
    for (size_t i = 0; i < sizeof newer / sizeof *newer; i++)
        if (!strcmp(v, newer[i])) {
            o->graph_gid_bytes = 16;
            return 0;
        }
    return usage("--ros-distro needs humble (24-byte GIDs in the node graph) or iron, jazzy, kilted, lyrical, "
                 "rolling (16-byte)");
}
