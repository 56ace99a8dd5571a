/* sensim batch: offline point-cloud generation along a trajectory, shardable. */
#include "batch.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

volatile sig_atomic_t g_stop;
int32_t g_motion = SENSIM_INTERP_CAUSAL;
const char *const nav_names[3] = {"imu", "gnss", "odometry"};

/* A mount pose for meta.json, in the run's frame (as everything a user types is read). */
static void json_mount(FILE *f, int32_t frame, const double mount[16])
{
    double m[16];
    if (sensim_pose_matrix_to_frame(frame, mount, m) != SENSIM_OK)
        memcpy(m, mount, sizeof m);
    cli_json_numbers(f, m, 16);
}

static void on_sigint(int sig)
{
    (void)sig;
    g_stop = 1;
    /* the scan running now stops within a chunk and writes nothing (one
     * atomic store: async-signal-safe) */
    if (g_ctx)
        sensim_context_set_cancel(g_ctx, 1);
}

int cmd_batch(int argc, char **argv)
{
    const char *scene_arg = NULL, *lidar_arg = NULL, *rig_arg = NULL, *traj_arg = NULL, *out = NULL, *tags_arg = NULL,
               *actors_arg = NULL, *times_arg = NULL;
    const char *global_sets[MAX_SETS];
    uint32_t nglobal = 0, threads = 0, shard_k = 0, shard_n = 1;
    int64_t fa = 0, fb = INT64_MAX;
    int32_t format = SENSIM_FORMAT_PLY, frame = SENSIM_FRAME_NATIVE;
    const char *las_version = NULL;
    int resume = 0, quiet = 0, overwrite = 0, mcap_flags = 0;
    uint32_t images = 0;
    mcap_opts mo;
    memset(&mo, 0, sizeof mo);
    sensim_mcap_options_init(&mo.o);
    g_motion = SENSIM_INTERP_CAUSAL;
    g_flatten = FLATTEN_DEFAULT; /* parked actors flattened: this driver never moves them (ros2 too) */
    snprintf(mo.odom_frame, sizeof mo.odom_frame, "odom");
    snprintf(mo.base_frame, sizeof mo.base_frame, "base_link");
    int64_t step_ns = 0; /* world step of the per-step JSON (--rig); default: the shortest sensor period */
    int step_given = 0;
    char seedbuf[64];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--images")) {
            if (parse_images_arg(argc, argv, &i, &images))
                return EXIT_USAGE;
            continue;
        }
        if (!strcmp(a, "--resume")) {
            resume = 1;
            continue;
        }
        if (!strcmp(a, "--overwrite")) {
            overwrite = 1;
            continue;
        }
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        if (!strcmp(a, "--no-tf") || !strcmp(a, "--no-odom")) {
            *(a[5] == 't' ? &mo.no_tf : &mo.no_odom) = 1;
            mcap_flags = 1;
            continue;
        }
        if (!v)
            return usage_option(a, 1);
        i++;
        if (!strcmp(a, "--tags"))
            tags_arg = v;
        else if (!strcmp(a, "--flatten-actors")) {
            if (!parse_u32(v, &g_flatten))
                return usage("--flatten-actors needs a triangle budget 0..4294967295");
        }
        else if (!strcmp(a, "--actors"))
            actors_arg = v;
        else if (!strcmp(a, "--scene"))
            scene_arg = v;
        else if (!strcmp(a, "--lidar"))
            lidar_arg = v;
        else if (!strcmp(a, "--rig"))
            rig_arg = v;
        else if (!strcmp(a, "--trajectory"))
            traj_arg = v;
        else if (!strcmp(a, "--trajectory-times"))
            times_arg = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--mcap-compression")) {
            mcap_flags = 1;
            if (!strcmp(v, "none"))
                mo.o.compression = SENSIM_MCAP_NONE;
            else if (!strcmp(v, "zstd"))
                mo.o.compression = SENSIM_MCAP_ZSTD;
            else if (!strcmp(v, "lz4"))
                mo.o.compression = SENSIM_MCAP_LZ4;
            else
                return usage("--mcap-compression must be none, zstd or lz4");
        } else if (!strcmp(a, "--mcap-split-mb") || !strcmp(a, "--mcap-split-s")) {
            double x;
            mcap_flags = 1;
            if (parse_numbers(v, &x, 1, 1) != 1 || !(x >= 0.001 && x <= 1e6))
                return usage("--mcap-split-mb / --mcap-split-s need a number in [0.001, 1e6]");
            if (a[13] == 'm') /* --mcap-split-mb: a[12] is the "-" both share (it split by seconds) */
                mo.o.split_bytes = (uint64_t)(x * 1048576.0) < 65536 ? 65536 : (uint64_t)(x * 1048576.0);
            else
                mo.o.split_ns = (int64_t)(x * 1e9);
        } else if (!strcmp(a, "--topic-prefix") || !strcmp(a, "--odom-frame") || !strcmp(a, "--base-frame")) {
            mcap_flags = 1;
            char *dst = a[2] == 't' ? mo.prefix : a[2] == 'o' ? mo.odom_frame : mo.base_frame;
            size_t cap = a[2] == 't' ? sizeof mo.prefix : sizeof mo.odom_frame;
            if (strlen(v) >= cap || (a[2] == 't' && v[0] != '/') || (a[2] != 't' && !v[0]))
                return usage("--topic-prefix needs '/' and a ROS name (under 128 bytes); --odom-frame and "
                             "--base-frame a frame id under 64 bytes");
            snprintf(dst, cap, "%s", v);
        } else if (!strcmp(a, "--threads")) {
            if (!parse_u32(v, &threads) || threads > 1024)
                return usage("--threads needs an integer in 0..1024");
        } else if (!strcmp(a, "--step-ns")) {
            char *end;
            errno = 0;
            long long x = strtoll(v, &end, 10);
            if (end == v || *end || errno || x < 1000 || x > 3600000000000LL)
                return usage("--step-ns needs an integer number of nanoseconds in 1000..3.6e12");
            step_ns = x, step_given = 1;
        } else if (!strcmp(a, "--seed")) {
            uint32_t sd;
            if (!parse_u32(v, &sd) || nglobal == MAX_SETS)
                return usage("--seed needs a non-negative integer");
            snprintf(seedbuf, sizeof seedbuf, "seed=%u", sd);
            global_sets[nglobal++] = seedbuf;
        } else if (!strcmp(a, "--set")) {
            if (!strchr(v, '=') || nglobal == MAX_SETS)
                return usage("--set needs KEY=VALUE");
            global_sets[nglobal++] = v;
        } else if (!strcmp(a, "--shard")) {
            if (!parse_shard(v, &shard_k, &shard_n))
                return usage("--shard needs K/N with 0 <= K < N <= 100000");
        } else if (!strcmp(a, "--frames")) {
            char *end;
            errno = 0;
            long long x = strtoll(v, &end, 10), y;
            if (end == v || *end != ':' || x < 0 || errno || !(v[0] >= '0' && v[0] <= '9'))
                return usage("--frames needs A:B (frame indices, B exclusive, B may be empty)");
            const char *yb = end + 1;
            y = *yb ? strtoll(yb, &end, 10) : INT64_MAX;
            if (*yb && (end == yb || *end || errno || !(*yb >= '0' && *yb <= '9')))
                return usage("--frames needs A:B (two non-negative integers, nothing else)");
            if (y < x)
                return usage("--frames needs A <= B");
            fa = x, fb = y;
        } else if (!strcmp(a, "--format")) {
            static const char *const names[] = {"ply", "ply-ascii", "pcd", "pcd-ascii", "kitti", "carla", "las", "mcap"};
            format = -1;
            for (int k = 0; k < 8; k++)
                if (!strcmp(v, names[k]))
                    format = k == 7 ? FORMAT_MCAP : k;
            if (format < 0)
                return usage("--format must be ply, ply-ascii, pcd, pcd-ascii, kitti, carla, las or mcap");
        } else if (!strcmp(a, "--las-version")) {
            if (strcmp(v, "1.2") && strcmp(v, "1.4"))
                return usage("--las-version must be 1.2 (point format 3, with RGB) or 1.4 (point format 6)");
            las_version = v;
        } else if (!strcmp(a, "--frame")) {
            if (parse_frame_arg(v, &frame))
                return EXIT_USAGE;
        } else if (!strcmp(a, "--motion")) {
            if (!strcmp(v, "causal"))
                g_motion = SENSIM_INTERP_CAUSAL;
            else if (!strcmp(v, "linear"))
                g_motion = SENSIM_INTERP_LINEAR;
            else
                return usage("--motion must be causal (the rig's model) or linear (straight between keys)");
        } else {
            char m[256];
            snprintf(m, sizeof m, "unknown option '%s'", a);
            return usage(m);
        }
    }
    if (g_live.on && out)
        return usage("ros2 publishes: no --out (record with sensim batch --format mcap)");
    if (g_live.pose_kind && traj_arg)
        return usage("--pose-in takes the poses from a topic: no --trajectory");
    if (g_live.pose_kind)
        traj_arg = g_live.pose_topic; /* messages name the topic */
    if (g_live.control_in && (!traj_arg || !strcmp(traj_arg, "-")))
        return usage("--control-in needs --trajectory FILE: its first row is where the vehicle starts");
    if (!scene_arg || !traj_arg || (!out && !g_live.on) || (!lidar_arg == !rig_arg))
        return usage(g_live.on ? "ros2 needs --scene, --trajectory (or --pose-in) and one of --lidar or --rig"
                               : "batch needs --scene, --trajectory, --out and one of --lidar or --rig");
    if (las_version && format != SENSIM_FORMAT_LAS)
        return usage("--las-version goes with --format las");
    if (las_version && !strcmp(las_version, "1.2"))
        format = SENSIM_FORMAT_LAS12;
    if (format != FORMAT_MCAP && mcap_flags)
        return usage("--mcap-*, --topic-prefix, --odom-frame, --base-frame, --no-tf and --no-odom go with --format mcap");
    if (format == FORMAT_MCAP) {
        /* one time-ordered bag per run: written whole, in ROS's frame (REP-103 = native) */
        if (frame != SENSIM_FRAME_NATIVE)
            return usage("--format mcap writes ROS's REP-103 frame (native): --frame carla/ue does not apply");
        if (resume)
            return usage("--format mcap writes one bag per run: --resume applies to per-frame formats (rerun with "
                         "--overwrite)");
        if (images)
            return usage("--images writes per-frame PNGs: not with --format mcap");
        if (shard_n > 1)
            return usage("--format mcap writes one time-ordered bag: no --shard (split a long run with --frames "
                         "A:B into folders)");
    }

    sensor_spec specs[MAX_SENSORS];
    uint32_t nspecs = 0;
    int rc = 0, out_lock = -1;
    if (!g_live.on && (rc = cli_check_out(out)))
        return rc;
    if (rig_arg) {
        if ((rc = load_rig_file(rig_arg, specs, &nspecs)) || (rc = rig_mounts_from_frame(specs, nspecs, frame, rig_arg))) {
            free_specs(specs, nspecs);
            return rc;
        }
    } else {
        memset(&specs[0], 0, sizeof specs[0]);
        snprintf(specs[0].name, sizeof specs[0].name, "lidar");
        snprintf(specs[0].preset, sizeof specs[0].preset, "%s", lidar_arg);
        nspecs = 1;
    }
    for (uint32_t s = 0; s < nspecs && rig_arg; s++)
        if (!strcmp(specs[s].name, "steps")) {
            fprintf(stderr, "sensim: error: %s: a sensor may not be called 'steps' (the per-step JSON folder)\n",
                    rig_arg);
            free_specs(specs, nspecs);
            return EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
        }
    actor_spec *actors = NULL;
    uint32_t nactors = 0;
    if (actors_arg && (rc = load_actors_file(actors_arg, &actors, &nactors))) {
        free(actors);
        free_specs(specs, nspecs);
        return rc;
    }
    traj tr = {0};
    static traj_reader stream; /* --trajectory - (sensim ros2): rows as a host sends them */
    g_live.stream = NULL, g_live.stream_rc = 0;
    if (g_live.on && g_live.pose_kind) {
        struct sigaction ss; /* Ctrl-C while waiting for the first pose stops cleanly */
        memset(&ss, 0, sizeof ss);
        ss.sa_handler = on_sigint;
        sigaction(SIGINT, &ss, NULL);
        sigaction(SIGTERM, &ss, NULL);
        if (times_arg || g_motion != SENSIM_INTERP_CAUSAL || g_live.go_on_stdin || fa > 0) {
            free_specs(specs, nspecs);
            return usage("--pose-in goes with the causal motion model, without --trajectory-times, "
                         "--start-on-stdin or --frames");
        }
        traj_reader_init(&stream, NULL, g_live.pose_topic, frame, NULL);
        g_live.stream = &stream; /* streamed: rows as the topic brings them */
        rc = live_pose_open(&tr);
        if (tr.n >= 1)
            g_live.stream_t0_ns = tr.keys[0].t_ns;
    } else if (g_live.on && g_live.control_in) {
        if (times_arg || g_motion != SENSIM_INTERP_CAUSAL || g_live.go_on_stdin || fa > 0) {
            free_specs(specs, nspecs);
            return usage("--control-in goes with the causal motion model, without --trajectory-times, "
                         "--start-on-stdin or --frames");
        }
        FILE *f = fopen(traj_arg, "r"); /* its first row: the start (a file of one row will do) */
        if (!f) {
            fprintf(stderr, "sensim: error: %s: %s\n", traj_arg, strerror(errno));
            rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
        } else {
            traj_reader_init(&stream, f, traj_arg, frame, NULL);
            rc = traj_read(&stream, &tr, 1);
            traj_reader_free(&stream);
            fclose(f);
            if (!rc && tr.n < 1) {
                fprintf(stderr, "sensim: error: %s: no trajectory row: --control-in starts at its first row\n",
                        traj_arg);
                rc = EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
            }
        }
        if (!rc) {
            traj_reader_init(&stream, NULL, g_live.pose_topic, frame, NULL);
            g_live.stream = &stream; /* streamed: rows as the vehicle model drives them */
            rc = live_control_open(&tr);
            if (tr.n >= 1)
                g_live.stream_t0_ns = tr.keys[0].t_ns;
        }
    } else if (g_live.on && !strcmp(traj_arg, "-")) {
        if (times_arg || g_motion != SENSIM_INTERP_CAUSAL || g_live.go_on_stdin || fa > 0) {
            free_specs(specs, nspecs);
            return usage("--trajectory - (rows on stdin) goes with the causal motion model, without "
                         "--trajectory-times, --start-on-stdin or --frames");
        }
        traj_reader_init(&stream, stdin, "stdin", frame, NULL);
        g_live.stream = &stream;
        rc = traj_read(&stream, &tr, 1); /* the first row sets the run's start; steps wait for the rest */
        if (tr.n >= 1)
            g_live.stream_t0_ns = tr.keys[0].t_ns;
        if (!rc && tr.n < 1) {
            fprintf(stderr, "sensim: error: stdin: no trajectory row before the end of the input\n");
            rc = EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
        }
    } else {
        rc = load_trajectory_file_times(traj_arg, frame, times_arg, &tr);
    }
    if (rc) {
        live_close_early();
        traj_reader_free(&stream);
        free(tr.keys);
        free_specs(specs, nspecs);
        return rc < 0 ? 0 : rc; /* -1: Ctrl-C while waiting for the first pose */
    }

    int kinematic = 0; /* sensors reading accelerations or velocities */
    for (uint32_t s = 0; s < nspecs; s++)
        kinematic |= specs[s].nav || specs[s].radar;
    if (kinematic && !quiet && g_motion == SENSIM_INTERP_CAUSAL && tr.n > 4 &&
        memcmp(tr.keys[0].pose, tr.keys[1].pose, sizeof tr.keys[0].pose) != 0)
        fprintf(stderr, "sensim %s: note: the trajectory starts moving and the motion model has no history "
                        "before its first key: IMU, odometry and radar readings before t = %.9g s (4 key intervals) "
                        "carry start-up errors (up to about twice the acceleration); start the trajectory at rest to "
                        "avoid them\n", CMD_NAME, (double)tr.keys[4].t_ns * 1e-9);
    if ((rc = open_context(threads)))
        return rc;
    sensim_status st;
    sensim_scene *scene = NULL;
    sensim_lidar *lidars[MAX_SENSORS] = {0};
    sensim_frame_sink *sinks[MAX_SENSORS] = {0}; /* each lidar's frame files: the library's sink, as a host's */
    cam_sensor cams[MAX_SENSORS];
    memset(cams, 0, sizeof cams);
    sensim_nav *navs[MAX_SENSORS] = {0};
    sensim_nav_desc nav_desc[MAX_SENSORS];
    sensim_radar *radars[MAX_SENSORS] = {0};
    sensim_radar_desc radar_desc[MAX_SENSORS];
    sensim_point *bufs[2] = {0};
    writer w;
    memset(&w, 0, sizeof w);
    int writer_started = 0;
    actor_set aset = {NULL, actors, nactors};
    if ((st = sensim_scene_create(g_ctx, &scene)) || (st = load_scene(scene_arg, frame, tags_arg, scene))) {
        rc = fail(st);
        goto done;
    }
    aset.scene = scene;
    /* the scene's own parked actors are flattened by the first commit; --actors' moving actors come after it
     * and stay instances (moving a flattened actor would rebuild the static BVH) */
    if ((st = sensim_scene_commit(scene))) {
        rc = fail(st);
        goto done;
    }
    if ((rc = actors_place(&aset, frame)))
        goto done;
    if ((st = sensim_scene_commit(scene))) {
        rc = fail(st);
        goto done;
    }
    uint64_t max_shots = 0;
    for (uint32_t s = 0; s < nspecs; s++) {
        if (specs[s].camera) {
            if ((rc = make_camera(&specs[s], rig_arg, &cams[s])))
                goto done;
            continue;
        }
        if (specs[s].nav) {
            if ((rc = make_nav(&specs[s], rig_arg, &nav_desc[s], &navs[s])))
                goto done;
            continue;
        }
        if (specs[s].radar) {
            if ((rc = make_radar(&specs[s], rig_arg, &radar_desc[s], &radars[s])))
                goto done;
            continue;
        }
        const char *sets[2 * MAX_SETS];
        uint32_t n = 0;
        for (uint32_t k = 0; k < specs[s].nsets; k++)
            sets[n++] = specs[s].sets[k];
        for (uint32_t k = 0; k < nglobal; k++)
            sets[n++] = global_sets[k];
        if ((st = sensim_lidar_create_from_preset(g_ctx, specs[s].preset, sets, n, &lidars[s]))) {
            rc = fail(st);
            goto done;
        }
        sensim_lidar_info li;
        sensim_lidar_get_info(lidars[s], &li);
        max_shots = li.shots_per_frame > max_shots ? li.shots_per_frame : max_shots;
    }
    int64_t periods[MAX_SENSORS];
    for (uint32_t s = 0; s < nspecs; s++) {
        sensim_lidar_info li;
        if (lidars[s])
            sensim_lidar_get_info(lidars[s], &li);
        periods[s] = specs[s].camera ? cams[s].period_ns
                     : navs[s]       ? sensim_nav_period_ns(navs[s])
                     : radars[s]     ? sensim_radar_period_ns(radars[s])
                                     : li.frame_period_ns;
        if (!step_given && (s == 0 || periods[s] < step_ns))
            step_ns = periods[s];
    }
    if (tr.keys[0].t_ns < 0) { /* frames and world steps are numbered from time 0: k covers [k·P, (k+1)·P) */
        fprintf(stderr, "sensim: error: %s: the trajectory starts at %.9g s, before time 0: frames and world steps "
                        "are numbered from 0 s (shift its times to start at 0 or later)\n",
                traj_arg, (double)tr.keys[0].t_ns * 1e-9);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_RANGE;
        goto done;
    }
    /* rows denser than a world step can hold are thinned (streams as they arrive, the same rule) */
    if ((rc = thin_keys(&tr, g_motion == SENSIM_INTERP_CAUSAL ? step_ns : step_ns * TRAJ_KEYS_PER_STEP / 48,
                        traj_arg)))
        goto done;
    g_live.thin_gap_ns = (g_motion == SENSIM_INTERP_CAUSAL ? step_ns : step_ns * TRAJ_KEYS_PER_STEP / 48) /
                         TRAJ_KEYS_PER_STEP;
    g_live.control_step_ns = step_ns; /* --control-in: one model step (and trajectory row) per world step */
    /* output tree and meta.json (identical for every shard: no shard, no clock) */
    if (!g_live.on && !ensure_dir(out)) {
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
        goto done;
    }
    if (!g_live.on) {
        char *meta = NULL;
        size_t meta_len = 0;
        FILE *f = open_memstream(&meta, &meta_len);
        if (!f) {
            fprintf(stderr, "sensim: error: out of memory\n");
            rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
            goto done;
        }
        int ok;
        uint64_t h = strcmp(scene_arg, "street") ? fnv1a_file(scene_arg, &ok) : 0x57EE7ULL;
        fprintf(f, "{\n  \"sensim_version\": \"%s\",\n  \"scene\": ", sensim_version_string());
        json_str(f, scene_arg);
        fprintf(f, ",\n  \"scene_fnv1a64\": \"%016llx\",\n  \"trajectory\": ", (unsigned long long)h);
        json_str(f, traj_arg);
        fprintf(f, ",\n  \"trajectory_rows\": %zu,\n  \"trajectory_fnv1a64\": \"%016llx\",\n", tr.n,
                (unsigned long long)fnv1a_file(traj_arg, &ok));
        if (actors_arg) { /* the actor file and each actor's trajectory identify the run too */
            uint64_t ah = fnv1a_file(actors_arg, &ok);
            for (uint32_t i = 0; i < nactors; i++)
                ah = ah * 1099511628211ULL ^ fnv1a_file(actors[i].trajectory, &ok);
            fprintf(f, "  \"actors\": %u,\n  \"actors_fnv1a64\": \"%016llx\",\n", nactors, (unsigned long long)ah);
        }
        fprintf(f, "  \"format\": \"%s\",\n  \"frame\": \"%s\",\n  \"units\": \"%s\",\n  \"motion\": \"%s\",\n"
                   "  \"command\": [",
                format_name(format), sensim_frame_name(frame), frame == SENSIM_FRAME_UE ? "cm" : "m",
                g_motion == SENSIM_INTERP_CAUSAL ? "causal" : "linear");
        int first = 1;
        for (int i = 0; i < argc; i++) {
            if (!strcmp(argv[i], "--shard") || !strcmp(argv[i], "--threads") || !strcmp(argv[i], "--frames") ||
                !strcmp(argv[i], "--out")) {
                i++;
                continue;
            }
            if (!strcmp(argv[i], "--resume") || !strcmp(argv[i], "--quiet") || !strcmp(argv[i], "--overwrite"))
                continue;
            fprintf(f, "%s", first ? "" : ", ");
            json_str(f, argv[i]);
            first = 0;
        }
        fprintf(f, "],\n  \"sensors\": [");
        for (uint32_t s = 0; s < nspecs; s++) {
            if (specs[s].radar) {
                const sensim_radar_desc *rd = &radar_desc[s];
                fprintf(f, "%s\n    {\"name\": ", s ? "," : "");
                json_str(f, specs[s].name);
                fprintf(f, ", \"type\": \"radar\", \"model\": \"%s\", \"rate_hz\": %.17g, \"frame_period_ns\": %lld, "
                           "\"rays_per_sample\": %llu, \"horizontal_fov\": %.17g, \"vertical_fov\": %.17g, "
                           "\"range\": %.17g, \"file\": \"radar.csv\", \"frame_of_reference\": \"%s\", "
                           "\"azimuth\": \"%s\", \"mount_pose\": ",
                        rd->model == SENSIM_RADAR_PHYSICAL ? "physical" : "carla", rd->rate_hz, (long long)periods[s],
                        (unsigned long long)sensim_radar_rays_per_sample(radars[s]), rd->hfov_deg, rd->vfov_deg,
                        rd->range_m, sensim_frame_name(frame),
                        frame == SENSIM_FRAME_NATIVE ? "positive left (CARLA: negate)" : "positive right (CARLA)");
                json_mount(f, frame, rd->mount_pose);
                json_overrides(f, &specs[s], NULL, 0);
                continue;
            }
            if (specs[s].nav) {
                const sensim_nav_desc *nd = &nav_desc[s];
                fprintf(f, "%s\n    {\"name\": ", s ? "," : "");
                json_str(f, specs[s].name);
                fprintf(f, ", \"type\": \"%s\", \"rate_hz\": %.17g, \"frame_period_ns\": %lld, \"interp\": \"%s\", "
                           "\"frame_of_reference\": \"%s\", \"units\": \"%s\", \"file\": \"%s.csv\", "
                           "\"mount_pose\": ",
                        nav_names[nd->kind], nd->rate_hz, (long long)periods[s],
                        nd->interp == SENSIM_INTERP_CAUSAL ? "causal" : "linear", sensim_frame_name(frame),
                        frame == SENSIM_FRAME_UE ? "cm" : "m", nav_names[nd->kind]);
                json_mount(f, frame, nd->mount_pose);
                if (nd->kind == SENSIM_NAV_GNSS)
                    fprintf(f, ", \"model\": \"%s\", \"reference\": [%.17g, %.17g, %.17g]",
                            nd->gnss_model == SENSIM_GNSS_CARLA ? "carla" : "exact", nd->ref_latitude_deg,
                            nd->ref_longitude_deg, nd->ref_altitude_m);
                json_overrides(f, &specs[s], NULL, 0);
                continue;
            }
            if (specs[s].camera) {
                const cam_sensor *c = &cams[s];
                fprintf(f, "%s\n    {\"name\": ", s ? "," : "");
                json_str(f, specs[s].name);
                fprintf(f, ", \"type\": \"camera\", \"preset\": ");
                json_str(f, specs[s].preset);
                fprintf(f, ", \"model\": ");
                json_str(f, c->d.name);
                fprintf(f, ", \"rate_hz\": %.17g, \"frame_period_ns\": %lld, \"row_readout_ns\": %lld, \"outputs\": [",
                        c->rate_hz, (long long)c->period_ns, (long long)c->d.row_readout_ns);
                static const char *const onames[] = {"depth", "semantic", "instance", "normal", "rgb"};
                for (int k = 0, n = 0; k < 5; k++)
                    if (c->want & (1u << k))
                        fprintf(f, "%s\"%s\"", n++ ? ", " : "", onames[k]);
                fprintf(f, "], \"mount_pose\": ");
                json_mount(f, frame, c->mount);
                fprintf(f, ", \"camera_info\": ");
                cli_json_camera_info(f, c->cam);
                json_overrides(f, &specs[s], NULL, 0);
                continue;
            }
            sensim_lidar_info li;
            sensim_lidar_get_info(lidars[s], &li);
            fprintf(f, "%s\n    {\"name\": ", s ? "," : "");
            json_str(f, specs[s].name);
            fprintf(f, ", \"type\": \"lidar\", \"preset\": ");
            json_str(f, specs[s].preset);
            fprintf(f, ", \"model\": ");
            json_str(f, li.name);
            static const char *const kinds[] = {"mechanical", "table", "risley", "mems", "callback"};
            fprintf(f, ", \"pattern\": \"%s\", \"channels\": %u, \"shots_per_s\": %.17g, \"frame_period_ns\": %lld, "
                       "\"min_range_m\": %.9g, \"max_range_m\": %.9g, \"lidar_id\": %u",
                    li.pattern >= 0 && li.pattern <= 4 ? kinds[li.pattern] : "unknown", li.channel_count, li.shots_per_s, (long long)li.frame_period_ns,
                    (double)li.min_range_m, (double)li.max_range_m, li.lidar_id);
            json_overrides(f, &specs[s], global_sets, nglobal); /* --set and --seed apply to lidars */
        }
        fprintf(f, "\n  ]");
        if (rig_arg)
            fprintf(f, ",\n  \"world_step_ns\": %lld", (long long)step_ns);
        fprintf(f, "\n}\n");
        if (fclose(f) != 0) {
            free(meta);
            fprintf(stderr, "sensim: error: out of memory\n");
            rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
            goto done;
        }
        /* meta.json identifies the run (inputs by hash, sensors, overrides,
         * format; not shard, threads, frames): a folder holds one run. */
        rc = claim_output(out, meta, meta_len, resume, overwrite, shard_k, shard_n, &out_lock);
        free(meta);
        if (rc)
            goto done;
    }
    for (uint32_t s = 0; s <= nspecs && rig_arg && format != FORMAT_MCAP; s++) {
        char d[4200];
        snprintf(d, sizeof d, "%.63s", s < nspecs ? specs[s].name : "steps");
        if (!ensure_out_subdir(out, d)) {
            rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
            goto done;
        }
    }

    /* the frames each sensor renders: those inside the trajectory (selected and sharded by run_rig) */
    uint64_t cap = 2 * (max_shots ? max_shots : 1); /* max_points_per_frame */
    int64_t *first_frame = calloc(nspecs, sizeof *first_frame), *nframes = calloc(nspecs, sizeof *nframes);
    if (!first_frame || !nframes || !(bufs[0] = malloc(cap * sizeof(sensim_point))) ||
        !(bufs[1] = malloc(cap * sizeof(sensim_point)))) {
        fprintf(stderr, "sensim: error: out of memory\n");
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        free(first_frame);
        free(nframes);
        goto done;
    }
    prog pg;
    memset(&pg, 0, sizeof pg);
    pg.n = nspecs;
    for (uint32_t s = 0; s < nspecs; s++) {
        int64_t P = periods[s], t0 = tr.keys[0].t_ns, t1 = traj_end_ns(&tr);
        int64_t r0 = -floordiv(-t0, P), r1 = floordiv(t1, P); /* frames [r·P, (r+1)·P) inside [t0, t1] */
        first_frame[s] = r0;
        nframes[s] = r1 > r0 ? r1 - r0 : 0;
        pg.name[s] = specs[s].name;
    }
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    pthread_t wt;
    if (pthread_create(&wt, NULL, writer_main, &w) != 0) {
        fprintf(stderr, "sensim: error: cannot start the writer thread\n");
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        free(first_frame);
        free(nframes);
        goto done;
    }
    writer_started = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    int tty = isatty(2);
    double t_start = now_s(), scan_s = 0;
    pg.tty = tty, pg.quiet = quiet, pg.t0 = t_start;
    uint64_t done_frames = 0, skipped = 0, points = 0;
    uint64_t captures = 0;
    batch_run B = {out, rig_arg != NULL, frame, resume, quiet, &tr, &aset, scene, specs, nspecs, lidars, cams, navs,
                   nav_desc, radars, radar_desc, sinks, NULL, periods, first_frame, nframes, step_ns, 0, 0, fa, fb,
                   shard_k, shard_n, &w, {bufs[0], bufs[1]}, cap, &pg, 0, 0, 0, 0, 0};
    {
        const int64_t t0 = tr.keys[0].t_ns, t1 = traj_end_ns(&tr);
        B.s0 = -floordiv(-t0, step_ns);
        B.nsteps = floordiv(t1, step_ns) - B.s0;
        if (B.nsteps < 0)
            B.nsteps = 0;
    }
    for (uint32_t s = 0; s < nspecs && !rc && format != FORMAT_MCAP; s++) { /* the library's sinks, as a host's */
        if (specs[s].camera) {
            char cdir[4100];
            snprintf(cdir, sizeof cdir, "%.4000s/%.63s", out, specs[s].name);
            sensim_image_sink_desc isd;
            sensim_image_sink_desc_init(&isd);
            isd.dir = cdir, isd.camera_name = specs[s].name, isd.camera = cams[s].cam, isd.frame = frame;
            isd.outputs = cams[s].want;
            /* captures are encoded and written by the sink's threads while the rig steps on (as many as the
             * scan's threads; the files' bytes do not depend on it), at most 64 MiB of them queued */
            uint32_t nt = sensim_context_thread_count(g_ctx);
            isd.threads = nt < 64 ? nt : 64;
            if ((st = sensim_image_sink_create(&isd, &cams[s].sink)))
                rc = fail(st);
        } else if (lidars[s]) {
            char sdir[4100];
            snprintf(sdir, sizeof sdir, "%.4000s%s%.63s", out, rig_arg ? "/" : "", rig_arg ? specs[s].name : "");
            sensim_frame_sink_desc sd;
            sensim_frame_sink_desc_init(&sd);
            sd.dir = sdir, sd.sensor_name = specs[s].name, sd.format = format, sd.frame = frame;
            sd.images = images, sd.lidar = lidars[s];
            if ((st = sensim_frame_sink_create(&sd, &sinks[s])))
                rc = fail(st);
        }
    }
    if (!rc) {
        rc = format == FORMAT_MCAP ? run_mcap(&B, &mo) : run_rig(&B);
        if (!rc && g_live.stream_rc) /* a streamed row refused: the steps before it were published */
            rc = g_live.stream_rc;
        scan_s += B.scan_s, points += B.points, captures += B.captures, skipped += B.skipped;
    }
    if (rig_arg && !rc && !g_stop && format != FORMAT_MCAP) {
        double mounts[MAX_SENSORS][16];
        for (uint32_t s = 0; s < nspecs; s++) {
            if (specs[s].camera)
                memcpy(mounts[s], cams[s].mount, sizeof mounts[s]);
            else if (navs[s])
                memcpy(mounts[s], nav_desc[s].mount_pose, sizeof mounts[s]);
            else if (radars[s])
                memcpy(mounts[s], radar_desc[s].mount_pose, sizeof mounts[s]);
            else
                sensim_lidar_get_mount_pose(lidars[s], mounts[s]);
        }
        step_plan sp = {out, &tr, specs, nspecs, periods, first_frame, nframes, (const double(*)[16])mounts,
                        step_ns, frame};
        int64_t A, Bs, ba, bb; /* this shard's block of the selected steps */
        shard_block(&B, &A, &Bs, &ba, &bb);
        for (int64_t i = ba; i < bb && !rc && !g_stop; i++) {
            char p[4200];
            snprintf(p, sizeof p, "%.4000s/steps/%06lld.json", out, (long long)(B.s0 + i));
            if (!(resume && file_exists(p)))
                rc = write_step(&sp, B.s0 + i);
        }
    }
    writer_drain(&w);
    sensim_image_sink_stats ist; /* the cameras' sinks, summed: what is on disk and what it cost */
    memset(&ist, 0, sizeof ist);
    uint32_t enc_threads = 0;
    for (uint32_t s = 0; s < nspecs; s++) {
        if (!cams[s].sink)
            continue;
        sensim_status fst = sensim_image_sink_flush(cams[s].sink);
        if (fst && (!rc || rc == -1))
            rc = fail(fst); /* an encoder thread's failure, naming the file */
        sensim_image_sink_stats one;
        if (sensim_image_sink_get_stats(cams[s].sink, &one) == SENSIM_OK) {
            ist.captures += one.captures, ist.bytes += one.bytes, ist.encode_cpu_s += one.encode_cpu_s;
            ist.write_s += one.write_s, ist.wait_s += one.wait_s;
            enc_threads += one.threads;
        }
    }
    if (rc == -1)
        rc = 0; /* cancelled by Ctrl-C: reported as an interruption below */
    if (format != FORMAT_MCAP)
        captures = ist.captures;
    done_frames = w.written + captures + skipped; /* what is on disk, not what was handed to the writers */
    if (format == FORMAT_MCAP) { /* every frame and sample in the bag */
        done_frames = 0;
        for (uint32_t s = 0; s < nspecs; s++)
            done_frames += pg.done[s];
    }
    if (w.error && !rc)
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
    progress(&pg, 1);
    for (uint32_t s = 0; s < nspecs; s++) /* even with --quiet: a silent empty run is a wasted run */
        if (pg.empty[s])
            fprintf(stderr, "sensim %s: warning: lidar '%s': %llu of %llu frames have %s\n", CMD_NAME, specs[s].name,
                    (unsigned long long)pg.empty[s], (unsigned long long)pg.done[s], NO_POINTS_HINT);
    double wall = now_s() - t_start;
    if (!quiet) { /* where the time went: the rig's thread, then the writers' threads beside it */
        double wait_s = w.wait_s + ist.wait_s, step_s = scan_s - B.consume_s;
        fprintf(stderr, "sensim %s: %llu frames (%llu resumed), %llu points in %.2f s; stepping %.2f s, handing "
                        "frames over %.2f s, waiting for the writers %.2f s", CMD_NAME,
                (unsigned long long)done_frames, (unsigned long long)skipped, (unsigned long long)points, wall,
                step_s > 0 ? step_s : 0.0, B.consume_s - wait_s > 0 ? B.consume_s - wait_s : 0.0, wait_s);
        if (format != FORMAT_MCAP)
            fprintf(stderr, "; writer threads: lidar frames %.2f s", w.write_s);
        if (enc_threads)
            fprintf(stderr, ", images %.1f MB: encoding %.2f s CPU on %u threads, writing %.2f s",
                    (double)ist.bytes / 1e6, ist.encode_cpu_s, enc_threads, ist.write_s);
        fputc('\n', stderr);
    }
    if (g_stop && !rc && g_live.on) {
        fprintf(stderr, "sensim ros2: stopped after %llu frames\n", (unsigned long long)done_frames);
    } else if (g_stop && !rc) {
        fprintf(stderr, "sensim batch: interrupted after %llu frames; every written frame is complete; rerun with "
                        "--resume to continue\n",
                (unsigned long long)done_frames);
        rc = EXIT_INTERRUPTED;
    }
    free(first_frame);
    free(nframes);
done:
    if (writer_started) {
        pthread_mutex_lock(&w.mu);
        w.quit = 1;
        pthread_cond_broadcast(&w.cv);
        pthread_mutex_unlock(&w.mu);
        pthread_join(wt, NULL);
    }
    free(bufs[0]);
    free(bufs[1]);
    for (uint32_t s = 0; s < nspecs; s++) {
        sensim_frame_sink_destroy(sinks[s]); /* after the writer thread has ended */
        sensim_lidar_destroy(lidars[s]);
        sensim_image_sink_destroy(cams[s].sink);
        sensim_camera_destroy(cams[s].cam);
        sensim_nav_destroy(navs[s]);
        sensim_radar_destroy(radars[s]);
    }
    free_specs(specs, nspecs);
    free(tr.keys);
    live_close_early(); /* a run that failed before its writer took over */
    traj_reader_free(&stream);
    g_live.stream = NULL;
    for (uint32_t i = 0; i < nactors; i++)
        free(actors[i].tr.keys);
    free(actors);
    sensim_scene_destroy(scene);
    sensim_context_destroy(g_ctx);
    if (out_lock >= 0)
        close(out_lock);
    return rc;
}
