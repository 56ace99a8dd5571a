/* The `sensim` command: scan, presets, demo, --version.
 * Exit status: 0 success; 2 usage error; 10 + status code for a library
 * failure (e.g. 14 = SENSIM_ERR_PARSE for a malformed mesh); the one-line
 * message on stderr names the file and line. */
#include <sensim/sensim.h>

#include "batch.h"
#include "cli.h"
#include "street.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_SETS 256

typedef struct run_opts {
    const char *scene, *lidar, *out, *tags;
    double pose_in[6];      /* x, y, z, roll, pitch, yaw as given (frame units, degrees) */
    double vel_in[6];       /* vx, vy, vz, wroll, wpitch, wyaw (frame units / s, deg/s) */
    int32_t frame;          /* SENSIM_FRAME_* of scene, poses and output points */
    uint32_t frames, threads;
    const char *sets[MAX_SETS + 1];
    uint32_t nsets;
    int summary_tags;
    uint32_t images; /* IMG_* */
} run_opts;

/* Platform pose at t = 0 and the keys of frame [tb, te) for constant velocity. */
static sensim_status frame_keys(const run_opts *o, int64_t te, sensim_pose_key keys[2])
{
    double pose[16], rot[3], v[3], w[3];
    int carla = o->frame == SENSIM_FRAME_CARLA || o->frame == SENSIM_FRAME_UE;
    if (carla) {
        rot[0] = o->pose_in[4], rot[1] = o->pose_in[5], rot[2] = o->pose_in[3]; /* pitch, yaw, roll */
    } else {
        rot[0] = o->pose_in[3], rot[1] = o->pose_in[4], rot[2] = o->pose_in[5];
    }
    sensim_status st = sensim_pose_from_frame(o->frame, o->pose_in, rot, pose);
    if (st)
        return st;
    if ((st = sensim_point_from_frame(o->frame, o->vel_in, v)))
        return st;
    const double d = 3.14159265358979323846 / 180.0;
    /* body rates of roll, pitch, yaw; CARLA's pitch and yaw turn the other way */
    w[0] = o->vel_in[3] * d, w[1] = (carla ? -1 : 1) * o->vel_in[4] * d, w[2] = (carla ? -1 : 1) * o->vel_in[5] * d;
    return sensim_motion_from_velocity(pose, 0, te, v, w, keys);
}


/* The files of one scan frame (its PNGs by BASE_NAME.png, its PLY), removed when one of them failed: each is
 * written whole through a temporary (no part of a file is left), and this leaves no part of a frame. */
static void remove_frame_files(const char *base, const char *ply)
{
    static const char *const names[] = {"range", "intensity", "label", "range_preview", "bev"};
    char p[4300];
    for (int k = 0; k < 5; k++) {
        snprintf(p, sizeof p, "%s_%s.png", base, names[k]);
        remove(p);
    }
    remove(ply);
}

static int run_scan(run_opts *o, int demo)
{
    int rc = open_context(o->threads);
    if (rc)
        return rc;
    sensim_status st;
    sensim_scene *scene = NULL;
    sensim_lidar *lidar = NULL;
    void *mem = NULL;
    sensim_point *buf = NULL;
    double *t_frame = NULL;
    double t0 = now_s();
    if ((st = sensim_scene_create(g_ctx, &scene)) || (st = load_scene(o->scene, o->frame, o->tags, scene)) ||
        (st = sensim_scene_commit(scene)) ||
        (st = sensim_lidar_create_from_preset(g_ctx, o->lidar, o->sets, o->nsets, &lidar))) {
        rc = fail(st);
        goto out;
    }
    double t_load = now_s() - t0;
    if (!ensure_dir(o->out)) {
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
        goto out;
    }
    int out_lock; /* the folder's run lock, as batch and collect take it (held until exit) */
    if ((rc = claim_output(o->out, NULL, 0, 0, 0, 0, 1, &out_lock)))
        goto out;
    sensim_lidar_info li;
    sensim_lidar_get_info(lidar, &li);
    size_t size;
    uint64_t cap = 2 * li.shots_per_frame; /* dual returns: up to two points per shot */
    if ((st = sensim_ring_required_size(cap, 2, &size))) {
        rc = fail(st);
        goto out;
    }
    mem = malloc(size);
    buf = malloc(cap * sizeof *buf);
    sensim_ring *ring;
    if (!mem || !buf) {
        fprintf(stderr, "sensim: error: out of memory for a %zu-byte ring\n", size);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        goto out;
    }
    if ((st = sensim_ring_init(mem, size, cap, 2, SENSIM_OVERFLOW_FAIL, &ring))) {
        rc = fail(st);
        goto out;
    }
    uint64_t total_points = 0, tag_count[29] = {0};
    /* Scan time per frame, the files apart: the first frames pay first-touch
     * costs (page faults, Embree's lazy builds, thread start), so the speed a
     * user gets is the median after WARMUP frames, measured as `sensim bench`
     * does. A short run scans (and discards) extra frames to measure it. */
    enum { WARMUP = 2, STEADY = 8 };
    uint32_t nmeas = o->frames > WARMUP + STEADY ? o->frames : WARMUP + STEADY;
    double t_scan = 0, t_write = 0;
    t_frame = calloc(nmeas, sizeof *t_frame);
    if (!t_frame) {
        rc = fail(SENSIM_ERR_OUT_OF_MEMORY);
        goto out;
    }
    for (uint32_t f = 0; f < nmeas; f++) {
        int64_t tb = (int64_t)f * li.frame_period_ns, te = tb + li.frame_period_ns;
        sensim_pose_key keys[2];
        sensim_motion motion;
        memset(&motion, 0, sizeof motion);
        motion.keys = keys;
        motion.key_count = 2;
        motion.world_step = f;
        double a = now_s();
        if ((st = frame_keys(o, te, keys)) || (st = sensim_lidar_scan_motion(lidar, scene, tb, te, &motion, ring, NULL))) {
            rc = fail(st);
            goto out;
        }
        t_frame[f] = now_s() - a;
        if (f >= o->frames) { /* a measuring frame: not written */
            sensim_ring_release(ring);
            continue;
        }
        t_scan += t_frame[f];
        a = now_s();
        sensim_frame_header h;
        uint64_t n;
        if ((st = sensim_ring_pop(ring, &h, buf, cap, &n))) {
            rc = fail(st);
            goto out;
        }
        char base[4200], path[4096];
        snprintf(base, sizeof base, "%.4000s/frame_%06u", o->out, f);
        snprintf(path, sizeof path, "%.4000s/frame_%06u.ply", o->out, f);
        if ((o->images && (st = write_frame_images_set(o->images, lidar, buf, n, base))) ||
            (st = sensim_write_points_frame(path, SENSIM_FORMAT_PLY, o->frame, &h, buf, n))) {
            rc = fail(st);
            remove_frame_files(base, path); /* a frame is all or nothing: no PNGs without their PLY */
            goto out;
        }
        total_points += n;
        for (uint64_t i = 0; i < n; i++)
            tag_count[buf[i].tag <= 28 ? buf[i].tag : 0]++;
        t_write += now_s() - a;
    }
    double frame_s = (double)li.frame_period_ns * 1e-9;
    qsort(t_frame + WARMUP, nmeas - WARMUP, sizeof *t_frame, cli_cmp_double);
    double med = t_frame[WARMUP + (nmeas - WARMUP) / 2];
    sensim_scene_info si;
    sensim_scene_get_info(scene, &si);
    printf("lidar %s: %u channels, %llu shots/frame, %.3f Hz, %u threads\n", li.name, li.channel_count,
           (unsigned long long)li.shots_per_frame, li.frame_rate_hz, sensim_context_thread_count(g_ctx));
    printf("scene %s: %llu triangles, %u actors, loaded and built in %.3f s\n", o->scene,
           (unsigned long long)si.triangle_count, si.actor_count, t_load);
    printf("frames %u, points %llu: scanning %.3f s, writing files %.3f s\n", o->frames,
           (unsigned long long)total_points, t_scan, t_write);
    printf("speed %.1f x real time: %.2f ms per %.1f ms frame, median of %u frames after %d warm-up frames as "
           "sensim bench measures%s%s%s; the whole run with its first-touch costs: %.1f x\n",
           med > 0 ? frame_s / med : 0.0, med * 1e3, frame_s * 1e3, nmeas - WARMUP, WARMUP,
           demo ? " (compare `sensim bench --lidar " : "", demo ? o->lidar : "", demo ? " --detail 1`)" : "",
           t_scan > 0 ? (double)o->frames * frame_s / t_scan : 0.0);
    if (o->summary_tags) {
        printf("points per semantic tag:");
        for (int t = 0; t <= 28; t++)
            if (tag_count[t])
                printf(" %s=%llu", sensim_tag_name((uint32_t)t), (unsigned long long)tag_count[t]);
        printf("\n");
    }
    if (o->frames == 1)
        printf("wrote %s/frame_000000.ply%s\n", o->out, o->images ? " and its PNG images" : "");
    else
        printf("wrote %u frames %s/frame_000000.ply .. frame_%06u.ply%s\n", o->frames, o->out, o->frames - 1,
               o->images ? " with their PNG images" : "");
out:
    free(t_frame);
    free(buf);
    free(mem);
    sensim_lidar_destroy(lidar);
    sensim_scene_destroy(scene);
    sensim_context_destroy(g_ctx);
    return rc;
}

static int cmd_presets(void)
{
    sensim_status st = sensim_context_create(NULL, &g_ctx);
    if (st)
        return fail(st);
    char seen[256][64];
    int nseen = 0, rc = 0;
    printf("%-14s %9s %14s %9s %10s  %s\n", "preset", "channels", "shots/s", "frame Hz", "range m", "file");
    for (uint32_t d = 0; sensim_preset_search_dir(d); d++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", sensim_preset_search_dir(d));
        DIR *dp = opendir(dir);
        if (!dp)
            continue;
        char names[256][64];
        int n = 0;
        struct dirent *e;
        while ((e = readdir(dp)) && n < 256) {
            size_t len = strlen(e->d_name);
            if (len > 7 && len < 64 && strcmp(e->d_name + len - 7, ".preset") == 0) {
                memcpy(names[n], e->d_name, len - 7);
                names[n][len - 7] = '\0';
                n++;
            }
        }
        closedir(dp);
        qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
        for (int i = 0; i < n; i++) {
            int dup = 0;
            for (int j = 0; j < nseen; j++)
                dup |= strcmp(seen[j], names[i]) == 0;
            if (dup || nseen >= 256)
                continue;
            memcpy(seen[nseen++], names[i], 64);
            char path[4200];
            snprintf(path, sizeof path, "%.4000s/%.63s.preset", dir, names[i]);
            sensim_lidar *l;
            if ((st = sensim_lidar_create_from_preset(g_ctx, path, NULL, 0, &l))) {
                rc = fail(st);
                continue;
            }
            sensim_lidar_info li;
            sensim_lidar_get_info(l, &li);
            printf("%-14s %9u %14.0f %9.3f %10.1f  %s\n", names[i], li.channel_count, li.shots_per_s,
                   li.frame_rate_hz, (double)li.max_range_m, path);
            sensim_lidar_destroy(l);
        }
    }
    sensim_context_destroy(g_ctx);
    return rc;
}

/* Heat colour for t in [0, 1]: black, red, yellow, white. */

static int parse_times(const char *s, double *t, int max)
{
    int n = 0;
    const char *p = s;
    while (*p && n < max) {
        char *end;
        t[n] = strtod(p, &end);
        if (end == p || !(t[n] > 0) || !isfinite(t[n]) || t[n] > 3600)
            return -1;
        n++;
        if (*end == ',')
            end++;
        else if (*end)
            return -1;
        p = end;
    }
    return *p ? -1 : n;
}

static int cmd_pattern(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[2], "export") && strcmp(argv[2], "stats")))
        return usage("pattern needs 'export' or 'stats' and a preset");
    int is_export = !strcmp(argv[2], "export");
    const char *preset = argv[3], *outp = NULL, *png = NULL;
    double duration = 0, bin_deg = 0.5, times[32] = {0.1, 0.2, 0.5, 1, 2}, footprint_deg = 0;
    int ntimes = 5;
    const char *sets[MAX_SETS];
    uint32_t nsets = 0;
    char ratebuf[64];
    for (int i = 4; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end;
        if (!v)
            return usage("option without a value");
        if (!strcmp(a, "--duration") && is_export) {
            duration = strtod(v, &end);
            if (end == v || *end || !(duration > 0) || duration > 3600)
                return usage("--duration needs seconds in (0, 3600]");
        } else if (!strcmp(a, "--out") && is_export) {
            outp = v;
        } else if (!strcmp(a, "--times") && !is_export) {
            if ((ntimes = parse_times(v, times, 32)) <= 0)
                return usage("--times needs positive seconds separated by commas (at most 32, each <= 3600)");
        } else if (!strcmp(a, "--bin-deg") && !is_export) {
            bin_deg = strtod(v, &end);
            if (end == v || *end || !(bin_deg >= 0.01 && bin_deg <= 20))
                return usage("--bin-deg needs degrees in [0.01, 20]");
        } else if (!strcmp(a, "--png") && !is_export) {
            png = v;
        } else if (!strcmp(a, "--footprint-deg") && !is_export) {
            footprint_deg = strtod(v, &end);
            if (end == v || *end || !(footprint_deg > 0 && footprint_deg <= 5.7))
                return usage("--footprint-deg needs the footprint's full angle in (0, 5.7] degrees");
        } else if (!strcmp(a, "--set") && strchr(v, '=') && nsets < MAX_SETS) {
            sets[nsets++] = v;
        } else if (!strcmp(a, "--shot-rate") && nsets < MAX_SETS) {
            snprintf(ratebuf, sizeof ratebuf, "shots_per_s=%s", v);
            sets[nsets++] = ratebuf;
        } else {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown or incomplete option '%s'", a);
            return usage(msg);
        }
        i++;
    }
    if (is_export && (!outp || duration <= 0))
        return usage("pattern export needs --duration and --out");
    sensim_status st = sensim_context_create(NULL, &g_ctx);
    if (st)
        return fail(st);
    sensim_lidar *l = NULL;
    int rc = 0;
    if ((st = sensim_lidar_create_from_preset(g_ctx, preset, sets, nsets, &l))) {
        rc = fail(st);
        goto out;
    }
    if (is_export) {
        uint64_t rows;
        if ((st = sensim_pattern_export_csv(l, 0, (int64_t)llround(duration * 1e9), outp, &rows))) {
            rc = fail(st);
            goto out;
        }
        printf("wrote %s: %llu shots over %g s\n", outp, (unsigned long long)rows, duration);
        goto out;
    }
    {
        double longest = 0;
        for (int i = 0; i < ntimes; i++)
            longest = fmax(longest, times[i]);
        /* coverage is relative to the cells the pattern reaches within a
         * reference interval of max(3 s, longest time) */
        double ref = fmax(3.0, longest);
        int64_t dur[32];
        double cov[32];
        for (int i = 0; i < ntimes; i++)
            dur[i] = (int64_t)llround(times[i] * 1e9);
        double bin = bin_deg * 3.14159265358979323846 / 180.0;
        sensim_pattern_stats ps;
        if ((st = sensim_pattern_measure(l, 0, (int64_t)llround(ref * 1e9), bin, dur, (uint32_t)ntimes, cov, NULL, 0,
                                         &ps))) {
            rc = fail(st);
            goto out;
        }
        const double R = 180.0 / 3.14159265358979323846;
        sensim_lidar_info li;
        sensim_lidar_get_info(l, &li);
        printf("pattern %s: %.0f shots/s, %u channels, %.3f Hz frames\n", li.name, ps.shots_per_s, li.channel_count,
               li.frame_rate_hz);
        printf("azimuth %.3f .. %.3f deg (%.3f), elevation %.3f .. %.3f deg (%.3f), full FOV about +x %.3f deg\n",
               ps.az_min_rad * R, ps.az_max_rad * R, (ps.az_max_rad - ps.az_min_rad) * R, ps.el_min_rad * R,
               ps.el_max_rad * R, (ps.el_max_rad - ps.el_min_rad) * R, ps.full_fov_rad * R);
        if (ps.no_beam)
            printf("shots without a beam (total internal reflection): %llu\n", (unsigned long long)ps.no_beam);
        printf("coverage of the %llu cells of %.3g deg reached within %g s:\n", (unsigned long long)ps.bins_hit,
               bin_deg, ref);
        for (int i = 0; i < ntimes; i++)
            printf("  %8.3f s  %6.2f %%\n", times[i], 100.0 * cov[i]);
        /* Livox's definition: the share of the FOV lit by beam footprints */
        double fcov[32], fov_sr;
        st = sensim_pattern_footprint_coverage(l, 0, footprint_deg * 3.14159265358979323846 / 180.0, dur,
                                               (uint32_t)ntimes, fcov, &fov_sr);
        if (st == SENSIM_OK) {
            printf("FOV coverage by %.4g deg beam footprints (Livox's definition), FOV %.4g sr:\n",
                   footprint_deg > 0 ? footprint_deg : 0.0, fov_sr);
            for (int i = 0; i < ntimes; i++)
                printf("  %8.3f s  %6.2f %%\n", times[i], 100.0 * fcov[i]);
        } else { /* an optional measure: say why there is none (no divergence, a footprint too fine) */
            printf("FOV coverage by beam footprints: not computed: %s\n", sensim_context_last_error(NULL));
        }
        if (png) {
            sensim_pattern_figure fig;
            if ((st = sensim_write_pattern_figure(l, longest, bin, png, &fig))) {
                rc = fail(st);
                goto out;
            }
            printf("wrote %s: %ux%u pixels, a density heat map of %ux%u bins of %g deg (%ux%u px each) over %g s "
                   "(viridis, log scale, densest bin %u shots; left = +azimuth, top = up; axes in degrees, legend "
                   "below)\n",
                   png, fig.width_px, fig.height_px, fig.bins_az, fig.bins_el, fig.bin_deg, fig.bin_px_x, fig.bin_px_y, longest,
                   fig.max_shots);
        }
    }
out:
    sensim_lidar_destroy(l);
    sensim_context_destroy(g_ctx);
    return rc;
}

int main(int argc, char **argv)
{
    /* sensim ros2 shares the machine with a ROS stack: the library's OpenMP workers wait blocked, not
     * spinning (issue 51). libgomp read its environment before main, so the command starts itself again
     * once with it set; a value the user set wins, and if the restart fails the run goes on as it is. */
    if (argc >= 2 && !strcmp(argv[1], "ros2") && !getenv("OMP_WAIT_POLICY") &&
        setenv("OMP_WAIT_POLICY", "passive", 1) == 0)
        execv("/proc/self/exe", argv);
    if (argc >= 2 && !strcmp(argv[1], "run")) {
        cli_set_command("run");
        for (int i = 2; i < argc; i++)
            if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
                return cli_help(stdout, "run");
        return cmd_run(argc, argv, cli_dispatch);
    }
    return cli_dispatch(argc, argv);
}

int cli_dispatch(int argc, char **argv)
{
    if (argc < 2)
        return usage("no command given");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("sensim %s (library %s)\n", SENSIM_VERSION_STRING, sensim_version_string());
        return 0;
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2 && !cli_is_command(argv[2])) {
            fprintf(stderr, "sensim: help: no command '%.100s'\n", argv[2]);
            return usage(NULL);
        }
        return cli_help(stdout, argc > 2 ? argv[2] : NULL);
    }
    if (cli_is_command(cmd)) {
        cli_set_command(cmd);
        for (int i = 2; i < argc; i++) /* `sensim CMD --help` anywhere on the line */
            if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
                return cli_help(stdout, cmd);
    }
    if (!strcmp(cmd, "presets"))
        return argc == 2 ? cmd_presets() : usage("presets takes no arguments");
    if (!strcmp(cmd, "pattern"))
        return cmd_pattern(argc, argv);
    if (!strcmp(cmd, "batch"))
        return cmd_batch(argc, argv);
    if (!strcmp(cmd, "ros2"))
        return cmd_ros2(argc, argv);
    if (!strcmp(cmd, "bench"))
        return cmd_bench(argc, argv);
    if (!strcmp(cmd, "render"))
        return cmd_render(argc, argv);
    if (!strcmp(cmd, "view"))
        return cmd_view(argc, argv);
    if (!strcmp(cmd, "bag"))
        return cmd_bag(argc, argv);
    if (!strcmp(cmd, "topic"))
        return cmd_topic(argc, argv);
    if (!strcmp(cmd, "collect"))
        return cmd_collect(argc, argv);
    if (!strcmp(cmd, "placement"))
        return cmd_placement(argc, argv);
    if (strcmp(cmd, "scan") && strcmp(cmd, "demo")) {
        char m[160];
        snprintf(m, sizeof m, "unknown command '%.100s'", cmd);
        return usage(m);
    }

    run_opts o;
    memset(&o, 0, sizeof o);
    o.frames = 1;
    g_flatten = FLATTEN_DEFAULT;
    int demo = !strcmp(cmd, "demo");
    if (demo) {
        o.scene = "street";
        o.lidar = "pandar64";
        o.out = "out/demo";
        o.pose_in[2] = 1.8; /* roof of a car, in the middle of the street */
        o.summary_tags = 1;
        o.images = IMG_RANGE | IMG_INTENSITY | IMG_LABEL | IMG_PREVIEW | IMG_BEV;
    }
    char seedbuf[64], ratebuf[64], pointsbuf[64];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--scene") && v && !demo) {
            o.scene = v;
        } else if (!strcmp(a, "--lidar") && v && !demo) {
            o.lidar = v;
        } else if (!strcmp(a, "--out") && v) {
            o.out = v;
        } else if (!strcmp(a, "--pose") && v && !demo) {
            if (parse_numbers(v, o.pose_in, 6, 6) != 6)
                return usage("--pose needs six finite numbers x,y,z,roll,pitch,yaw (metres, degrees)");
        } else if (!strcmp(a, "--velocity") && v && !demo) {
            int k = parse_numbers(v, o.vel_in, 3, 6);
            if (k != 3 && k != 6)
                return usage("--velocity needs vx,vy,vz[,wroll,wpitch,wyaw] (m/s, deg/s)");
        } else if (!strcmp(a, "--tags") && v && !demo) {
            o.tags = v;
        } else if (!strcmp(a, "--flatten-actors") && v && !demo) {
            if (!parse_u32(v, &g_flatten))
                return usage("--flatten-actors needs a triangle budget 0..4294967295");
        } else if (!strcmp(a, "--frame") && v && !demo) {
            if (parse_frame_arg(v, &o.frame))
                return EXIT_USAGE;
        } else if (!strcmp(a, "--images")) {
            if (parse_images_arg(argc, argv, &i, &o.images))
                return EXIT_USAGE;
            continue;
        } else if (!strcmp(a, "--points") && v) {
            if (strcmp(v, "sensor") && strcmp(v, "deskewed") && strcmp(v, "world"))
                return usage("--points must be sensor, deskewed or world");
            if (o.nsets == MAX_SETS)
                return usage("too many options");
            snprintf(pointsbuf, sizeof pointsbuf, "points_frame=%s", v);
            o.sets[o.nsets++] = pointsbuf;
        } else if (!strcmp(a, "--count") && v) {
            if (!parse_u32(v, &o.frames) || o.frames == 0 || o.frames > 1000000)
                return usage("--count needs an integer in 1..1000000");
        } else if (!strcmp(a, "--frames") && v) {
            return usage("sensim scan counts frames with --count N (--frames A:B is sensim batch's range of frame "
                         "indices)");
        } else if (!strcmp(a, "--threads") && v) {
            if (!parse_u32(v, &o.threads) || o.threads > 1024)
                return usage("--threads needs an integer in 0..1024 (0 = all cores)");
        } else if (!strcmp(a, "--seed") && v) {
            uint32_t s;
            if (!parse_u32(v, &s))
                return usage("--seed needs a non-negative integer");
            snprintf(seedbuf, sizeof seedbuf, "seed=%u", s);
            if (o.nsets == MAX_SETS)
                return usage("too many --set/--seed options");
            o.sets[o.nsets++] = seedbuf;
        } else if (!strcmp(a, "--shot-rate") && v) {
            char *end;
            double hz = strtod(v, &end);
            if (end == v || *end || !(hz > 0) || !isfinite(hz))
                return usage("--shot-rate needs a positive number of shots per second");
            if (o.nsets == MAX_SETS)
                return usage("too many options");
            snprintf(ratebuf, sizeof ratebuf, "shots_per_s=%.17g", hz);
            o.sets[o.nsets++] = ratebuf;
        } else if (!strcmp(a, "--set") && v) {
            if (!strchr(v, '='))
                return usage("--set needs KEY=VALUE");
            if (o.nsets == MAX_SETS)
                return usage("too many --set options");
            o.sets[o.nsets++] = v;
        } else {
            char msg[256];
            snprintf(msg, sizeof msg, "unknown or incomplete option '%s'", a);
            return usage(msg);
        }
        i++;
    }
    if (!o.scene || !o.lidar || !o.out)
        return usage("scan needs --scene, --lidar and --out");
    if (demo) {
        char *slash = strrchr((char *)o.out, '/');
        if (slash && !strcmp(o.out, "out/demo"))
            ensure_dir("out");
    }
    return run_scan(&o, demo);
}
