/* sensim collect: CARLA's synchronous-collection layout in one command, a
 * thin driver over the rig. The rig file's first lidar and first camera are
 * stepped together at the collection rate (--rate, 10 Hz by default) along
 * the trajectory, and each step k writes
 *   rgb/NNNNNN.png       the camera's colour image
 *   depth/NNNNNN.png     CARLA's 24-bit depth encoding (far plane 1000 m)
 *   semseg/NNNNNN.png    CityScapes colours; semseg_raw/NNNNNN.png the tag in R (CARLA raw)
 *   lidar/NNNNNN.ply     the lidar shots fired during the step (CARLA slices a turn
 *                        into ticks the same way), CARLA's frame (y right)
 *   meta/NNNNNN.json     time, ego/lidar/camera poses in CARLA's frame, the camera's K
 * (NNNNNN = k; each file through a temporary, the JSON last; a step's files are
 * written by one of --threads writer threads while the rig steps on, at most
 * 2 x threads steps held, the same bytes for any count). The camera
 * captures at the step's start, the lidar covers [k/rate, (k+1)/rate).
 * OUT/meta.json identifies the run as batch's does (inputs by hash, rig,
 * rate, frame): a folder holds one run, locked while it is written;
 * --resume continues it from the first step without its meta/ JSON,
 * --overwrite replaces it (and removes the earlier run's steps beyond this
 * run's). --shard K/N writes the K-th of N contiguous blocks of the steps:
 * shards of one run share the folder (its meta.json names no shard) and
 * together write the whole run's files. The lidar's ring holds every frame a step can touch, and a step
 * a ring refuses ends the run with an error: no step is written short.
 * Inputs (trajectory, rig mounts, scene) are read in --frame (native by
 * default; carla reads them as a CARLA script types them). */
#include "batch.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* point buffers of the lidar (ring and one step's copy): --rate chooses how many frames a step holds */
#define COLLECT_LIDAR_BUDGET 2147483648.0 /* the ring and the writer jobs' copies of a step (one at least) */
#define WANT (SENSIM_CAMERA_DEPTH | SENSIM_CAMERA_SEMANTIC | SENSIM_CAMERA_RGB)
/* the camera's outputs (its rig section's `outputs`) that collect writes */
#define WANTS(c) ((c)->want & WANT)

typedef struct collect {
    const char *out;
    sensim_lidar *lidar;
    sensim_ring *lring;
    cam_sensor cam;
    sensim_ring *cring;
    sensim_point *buf; /* the step's job's points while its data is taken off the ring */
    uint64_t cap, delivered_frame, delivered;
    int max_jobs;      /* writer jobs the lidar's budget allows (COLLECT_LIDAR_BUDGET) */
    int have_cam, have_lidar;
} collect;

static int write_json_pose(FILE *f, const char *name, const double m[16])
{
    double loc[3], rot[3];
    if (sensim_pose_to_frame(SENSIM_FRAME_CARLA, m, loc, rot) != SENSIM_OK)
        return 0;
    for (int i = 0; i < 3; i++) /* no "-0": a native 0 mirrors to -0.0 */
        loc[i] += 0.0, rot[i] += 0.0;
    fprintf(f, "  \"%s\": {\"location\": [%.17g, %.17g, %.17g], \"rotation_pitch_yaw_roll_deg\": [%.17g, %.17g, %.17g]}",
            name, loc[0], loc[1], loc[2], rot[0], rot[1], rot[2]);
    return 1;
}

/* The lidar's points fired in this step: what completed frames hold past what earlier steps took,
 * then the open frame's new points; their time offsets from the step's start @p t0. */
static void take(collect *C, const sensim_frame_view *v, uint64_t from, int64_t t0, uint64_t *n)
{
    uint64_t idx = 0;
    for (int s = 0; s < 2; s++)
        for (uint64_t i = 0; i < v->counts[s]; i++, idx++)
            if (idx >= from && *n < C->cap) { /* cap holds every frame a step can touch (checked below) */
                sensim_point p = v->points[s][i];
                int64_t t = v->header->t_begin_ns + (int64_t)p.t_offset_ns - t0;
                p.t_offset_ns = (uint32_t)(t < 0 ? 0 : t);
                C->buf[(*n)++] = p;
            }
}

static int step_points(collect *C, int64_t t0, uint64_t *n, sensim_frame_header *h)
{
    *n = 0;
    sensim_ring_stats rs;
    if (sensim_ring_get_stats(C->lring, &rs) == SENSIM_OK && (rs.scans_refused || rs.points_lost)) {
        fprintf(stderr, "sensim: error: the lidar's ring refused %llu scans: refusing to write a short step\n",
                (unsigned long long)rs.scans_refused);
        return EXIT_STATUS_BASE + SENSIM_ERR_RING_FULL;
    }
    sensim_frame_view v;
    for (;;) {
        sensim_status st = sensim_ring_peek(C->lring, &v);
        if (st == SENSIM_ERR_RING_EMPTY)
            break;
        if (st)
            return fail(st);
        take(C, &v, v.header->frame_number == C->delivered_frame ? C->delivered : 0, t0, n);
        *h = *v.header;
        C->delivered_frame = UINT64_MAX, C->delivered = 0;
        sensim_ring_release(C->lring);
    }
    if (sensim_ring_peek_open(C->lring, &v) == SENSIM_OK) {
        take(C, &v, v.header->frame_number == C->delivered_frame ? C->delivered : 0, t0, n);
        C->delivered_frame = v.header->frame_number, C->delivered = v.counts[0] + v.counts[1];
        *h = *v.header;
    }
    return 0;
}

/* One step's data, copied off the rig's rings, and the files it becomes: written by a writer thread while
 * the rig steps on (each step's files by one thread, in the order below, so its meta/ JSON comes last). */
typedef struct step_job {
    uint64_t k;
    int64_t t0, t1;
    double ego[16], lidar_pose[16], cam_pose[16];
    int have_lp, have_cp;
    sensim_frame_header h;
    sensim_point *pts; /* C->cap points */
    uint64_t n;
    uint32_t W, H;
    uint8_t *rgb, *sem, *scratch; /* W x H x 3, W x H, W x H x 3 */
    float *depth;
    int has_rgb, has_depth, has_sem;
} step_job;

#define MAX_STEP_WRITERS 8
typedef struct step_writers {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th[MAX_STEP_WRITERS];
    int nth;
    step_job *jobs;
    int njobs;
    int *queue, qhead, qcount; /* jobs to write, in step order */
    int *free_jobs, nfree;
    int busy;                  /* jobs being written */
    int quit, rc;              /* rc: the first failure's exit status (its message printed) */
    const collect *C;
} step_writers;

static int png_or_fail(const char *path, uint32_t w, uint32_t h, uint32_t ch, const void *px)
{
    sensim_status st = sensim_write_png(path, w, h, ch, 8, px, (size_t)w * ch);
    return st ? fail(st) : 0;
}

/* Step @p j's files: lidar/, rgb/, depth/, semseg/, semseg_raw/, then meta/ (any thread). */
static int write_step_files(const collect *C, step_job *j)
{
    char path[4300], tmp[4400];
    int rc = 0;
    const unsigned long long k = (unsigned long long)j->k;
    if (j->have_lp) {
        snprintf(path, sizeof path, "%.4000s/lidar/%06llu.ply", C->out, k);
        sensim_status st = sensim_write_points_frame(path, SENSIM_FORMAT_PLY, SENSIM_FRAME_CARLA, &j->h, j->pts, j->n);
        if (st)
            return fail(st);
    }
    const size_t px = (size_t)j->W * j->H;
    if (j->has_rgb) {
        snprintf(path, sizeof path, "%.4000s/rgb/%06llu.png", C->out, k);
        rc = png_or_fail(path, j->W, j->H, 3, j->rgb);
    }
    if (j->has_depth && !rc) {
        for (size_t p = 0; p < px; p++)
            sensim_depth_to_carla_rgb(j->depth[p], j->scratch + 3 * p);
        snprintf(path, sizeof path, "%.4000s/depth/%06llu.png", C->out, k);
        rc = png_or_fail(path, j->W, j->H, 3, j->scratch);
    }
    if (j->has_sem && !rc) {
        for (size_t p = 0; p < px; p++)
            sensim_tag_color(j->sem[p], j->scratch + 3 * p);
        snprintf(path, sizeof path, "%.4000s/semseg/%06llu.png", C->out, k);
        rc = png_or_fail(path, j->W, j->H, 3, j->scratch);
        for (size_t p = 0; !rc && p < px; p++)
            j->scratch[3 * p] = j->sem[p], j->scratch[3 * p + 1] = j->scratch[3 * p + 2] = 0;
        snprintf(path, sizeof path, "%.4000s/semseg_raw/%06llu.png", C->out, k);
        if (!rc)
            rc = png_or_fail(path, j->W, j->H, 3, j->scratch);
    }
    if (rc)
        return rc;
    snprintf(path, sizeof path, "%.4000s/meta/%06llu.json", C->out, k);
    FILE *f = cli_tmp_create(path, tmp, sizeof tmp);
    if (!f)
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    fprintf(f, "{\n  \"frame\": %llu,\n  \"timestamp\": %.9f,\n  \"t_begin_ns\": %lld,\n  \"t_end_ns\": %lld,\n", k,
            (double)j->t0 * 1e-9, (long long)j->t0, (long long)j->t1);
    fprintf(f, "  \"frame_of_reference\": \"carla\",\n");
    write_json_pose(f, "ego", j->ego);
    if (j->have_lp) {
        fprintf(f, ",\n");
        write_json_pose(f, "lidar", j->lidar_pose);
        fprintf(f, ",\n  \"lidar_points\": %llu", (unsigned long long)j->n);
    }
    if (j->have_cp) {
        sensim_camera_info ci;
        sensim_camera_get_info(C->cam.cam, &ci);
        fprintf(f, ",\n");
        write_json_pose(f, "camera", j->cam_pose);
        fprintf(f, ",\n  \"camera_K\": [%.17g, 0, %.17g, 0, %.17g, %.17g, 0, 0, 1], \"width\": %u, \"height\": %u, "
                   "\"fov\": %.17g",
                ci.k[0], ci.k[2], ci.k[4], ci.k[5], ci.width, ci.height, ci.hfov_deg);
    }
    fprintf(f, "\n}\n");
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "sensim: error: %s: cannot write: %s\n", path, strerror(errno));
        remove(tmp);
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    return 0;
}

static void *writer_thread(void *arg)
{
    step_writers *W = arg;
    pthread_mutex_lock(&W->mu);
    for (;;) {
        while (!W->qcount && !W->quit)
            pthread_cond_wait(&W->cv, &W->mu);
        if (!W->qcount)
            break;
        int j = W->queue[W->qhead];
        W->qhead = (W->qhead + 1) % W->njobs;
        W->qcount--;
        W->busy++;
        int skip = W->rc != 0; /* after a failure: nothing more */
        pthread_mutex_unlock(&W->mu);
        int rc = skip ? 0 : write_step_files(W->C, &W->jobs[j]);
        pthread_mutex_lock(&W->mu);
        if (rc && !W->rc)
            W->rc = rc;
        W->busy--;
        W->free_jobs[W->nfree++] = j;
        pthread_cond_broadcast(&W->cv);
    }
    pthread_mutex_unlock(&W->mu);
    return NULL;
}

/* The writer threads collect runs: the scan's threads, 1..8. */
static int writer_threads(void)
{
    uint32_t n = sensim_context_thread_count(g_ctx);
    return n < 1 ? 1 : n > MAX_STEP_WRITERS ? MAX_STEP_WRITERS : (int)n;
}

/* @p nth writer threads and 2 x nth jobs, each with room for a step (fewer when the lidar's step copies
 * would exceed collect's budget: C->max_jobs, at least one). 0, or an exit status after a message. */
static int writers_start(step_writers *W, const collect *C, int nth)
{
    memset(W, 0, sizeof *W);
    W->C = C;
    nth = nth < 1 ? 1 : nth > MAX_STEP_WRITERS ? MAX_STEP_WRITERS : nth;
    W->njobs = 2 * nth;
    if (C->have_lidar && W->njobs > C->max_jobs)
        W->njobs = C->max_jobs < 1 ? 1 : C->max_jobs;
    if (nth > W->njobs)
        nth = W->njobs;
    W->jobs = calloc((size_t)W->njobs, sizeof *W->jobs);
    W->queue = calloc((size_t)W->njobs, sizeof *W->queue);
    W->free_jobs = calloc((size_t)W->njobs, sizeof *W->free_jobs);
    int ok = W->jobs && W->queue && W->free_jobs;
    const size_t px = C->have_cam ? (size_t)C->cam.d.width * C->cam.d.height : 0;
    for (int i = 0; ok && i < W->njobs; i++) {
        step_job *j = &W->jobs[i];
        ok = (!C->have_lidar || (j->pts = malloc(C->cap * sizeof *j->pts))) &&
             (!px || ((j->rgb = malloc(3 * px)) && (j->sem = malloc(px)) && (j->scratch = malloc(3 * px)) &&
                      (j->depth = malloc(px * sizeof *j->depth))));
        W->free_jobs[W->nfree++] = i;
    }
    pthread_mutex_init(&W->mu, NULL);
    pthread_cond_init(&W->cv, NULL);
    for (int t = 0; ok && t < nth; t++) {
        ok = pthread_create(&W->th[t], NULL, writer_thread, W) == 0;
        W->nth += ok;
    }
    return ok ? 0 : fail(SENSIM_ERR_OUT_OF_MEMORY);
}

/* Every queued step written, the threads ended: the first failure's exit status, or 0. */
static int writers_stop(step_writers *W)
{
    pthread_mutex_lock(&W->mu);
    W->quit = 1;
    pthread_cond_broadcast(&W->cv);
    pthread_mutex_unlock(&W->mu);
    for (int t = 0; t < W->nth; t++)
        pthread_join(W->th[t], NULL);
    for (int i = 0; W->jobs && i < W->njobs; i++) {
        step_job *j = &W->jobs[i];
        free(j->pts), free(j->rgb), free(j->sem), free(j->scratch), free(j->depth);
    }
    free(W->jobs), free(W->queue), free(W->free_jobs);
    pthread_cond_destroy(&W->cv);
    pthread_mutex_destroy(&W->mu);
    return W->rc;
}

/* Step k's data off the rings into a free job (waiting for one), handed to the writers. */
static int collect_step(collect *C, step_writers *W, uint64_t k, int64_t t0, int64_t t1, const double ego[16])
{
    pthread_mutex_lock(&W->mu);
    while (!W->nfree && !W->rc)
        pthread_cond_wait(&W->cv, &W->mu);
    int rc = W->rc, ji = rc ? -1 : W->free_jobs[--W->nfree];
    pthread_mutex_unlock(&W->mu);
    if (rc)
        return rc;
    step_job *j = &W->jobs[ji];
    j->k = k, j->t0 = t0, j->t1 = t1, j->n = 0;
    memcpy(j->ego, ego, sizeof j->ego);
    j->have_lp = j->have_cp = j->has_rgb = j->has_depth = j->has_sem = 0;
    if (C->have_lidar) {
        memset(&j->h, 0, sizeof j->h);
        C->buf = j->pts;
        if ((rc = step_points(C, t0, &j->n, &j->h)))
            goto give_back;
        j->have_lp = 1;
        double mount[16]; /* the lidar's pose at the step's start: the platform's, times its mount */
        sensim_lidar_get_mount_pose(C->lidar, mount);
        mat4_mul(ego, mount, j->lidar_pose);
        /* the file's header describes the step, not the lidar frames it cuts from: its span, scanned whole,
         * the lidar's pose at its start (meta/'s "lidar"), world step k; so a step's bytes do not depend on
         * where its frames began (a run resumed or sharded mid-frame writes the whole run's) */
        j->h.frame_number = k, j->h.t_begin_ns = t0, j->h.t_end_ns = t1, j->h.point_count = j->n;
        j->h.flags = 0, j->h.scanned_ns = t1 - t0, j->h.world_step_first = j->h.world_step_last = k;
        memcpy(j->h.sensor_pose, j->lidar_pose, sizeof j->h.sensor_pose);
    }
    if (C->have_cam) {
        sensim_image_view v;
        sensim_status st = sensim_ring_peek_image(C->cring, &v);
        if (st == SENSIM_OK) {
            const size_t px = (size_t)v.width * v.height;
            j->W = v.width, j->H = v.height;
            memcpy(j->cam_pose, v.header->sensor_pose, sizeof j->cam_pose);
            j->have_cp = 1;
            if ((j->has_rgb = v.rgb != NULL))
                memcpy(j->rgb, v.rgb, 3 * px);
            if ((j->has_depth = v.depth != NULL))
                memcpy(j->depth, v.depth, px * sizeof *j->depth);
            if ((j->has_sem = v.semantic != NULL))
                memcpy(j->sem, v.semantic, px);
            sensim_ring_release(C->cring);
        } else if (st != SENSIM_ERR_RING_EMPTY) {
            rc = fail(st);
            goto give_back;
        }
    }
    pthread_mutex_lock(&W->mu);
    W->queue[(W->qhead + W->qcount) % W->njobs] = ji;
    W->qcount++;
    pthread_cond_broadcast(&W->cv);
    pthread_mutex_unlock(&W->mu);
    return 0;
give_back:
    pthread_mutex_lock(&W->mu);
    W->free_jobs[W->nfree++] = ji;
    pthread_mutex_unlock(&W->mu);
    return rc;
}

/* The run's identity (OUT/meta.json): what the files depend on, inputs by content. */
static char *collect_meta(int argc, char **argv, const char *scene_arg, const char *rig_arg, const char *traj_arg,
                          size_t rows, size_t *len)
{
    char *meta = NULL;
    FILE *f = open_memstream(&meta, len);
    if (!f)
        return NULL;
    int ok;
    uint64_t h = strcmp(scene_arg, "street") ? fnv1a_file(scene_arg, &ok) : 0x57EE7ULL;
    fprintf(f, "{\n  \"sensim_version\": \"%s\",\n  \"command\": \"collect\",\n  \"scene\": ",
            sensim_version_string());
    json_str(f, scene_arg);
    fprintf(f, ",\n  \"scene_fnv1a64\": \"%016llx\",\n  \"rig\": ", (unsigned long long)h);
    json_str(f, rig_arg);
    fprintf(f, ",\n  \"rig_fnv1a64\": \"%016llx\",\n  \"trajectory\": ", (unsigned long long)fnv1a_file(rig_arg, &ok));
    json_str(f, traj_arg);
    fprintf(f, ",\n  \"trajectory_rows\": %zu,\n  \"trajectory_fnv1a64\": \"%016llx\",\n  \"arguments\": [", rows,
            (unsigned long long)fnv1a_file(traj_arg, &ok));
    int first = 1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--out") || !strcmp(argv[i], "--threads") || !strcmp(argv[i], "--shard")) {
            i++;
            continue;
        }
        if (!strcmp(argv[i], "--resume") || !strcmp(argv[i], "--overwrite"))
            continue;
        fprintf(f, "%s", first ? "" : ", ");
        json_str(f, argv[i]);
        first = 0;
    }
    fprintf(f, "]\n}\n");
    if (fclose(f) != 0) {
        free(meta);
        return NULL;
    }
    return meta;
}

/* --overwrite: an earlier run's step files numbered @p from and up (this run writes the others again). */
static void remove_steps_from(const char *out, uint64_t from)
{
    static const char *const dirs[] = {"rgb", "depth", "semseg", "semseg_raw", "lidar", "meta"};
    for (int d = 0; d < 6; d++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", out, dirs[d]);
        struct stat sb;
        if (lstat(p, &sb) != 0 || !S_ISDIR(sb.st_mode))
            continue;
        DIR *dir = opendir(p);
        struct dirent *e;
        while (dir && (e = readdir(dir))) {
            char *end;
            unsigned long long k = strtoull(e->d_name, &end, 10);
            if (end - e->d_name < 6 || e->d_name[0] < '0' || e->d_name[0] > '9' || k < from ||
                (strcmp(end, ".png") && strcmp(end, ".ply") && strcmp(end, ".json")))
                continue;
            char fp[4500];
            snprintf(fp, sizeof fp, "%s/%s", p, e->d_name);
            unlink(fp);
        }
        if (dir)
            closedir(dir);
    }
}

int cmd_collect(int argc, char **argv)
{
    const char *scene_arg = NULL, *rig_arg = NULL, *traj_arg = NULL, *out = NULL;
    double rate = 10;
    uint32_t threads = 0, shard_k = 0, shard_n = 1;
    int resume = 0, overwrite = 0;
    int32_t frame = SENSIM_FRAME_NATIVE; /* of what the user typed: trajectory, rig mounts, scene */
    g_flatten = FLATTEN_DEFAULT;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--resume") || !strcmp(a, "--overwrite")) {
            *(a[2] == 'r' ? &resume : &overwrite) = 1;
            continue;
        }
        if (!v)
            return usage_option(a, 1);
        i++;
        if (!strcmp(a, "--scene"))
            scene_arg = v;
        else if (!strcmp(a, "--rig"))
            rig_arg = v;
        else if (!strcmp(a, "--trajectory"))
            traj_arg = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--rate")) {
            if (parse_numbers(v, &rate, 1, 1) != 1 || !(rate >= 0.1 && rate <= 1000))
                return usage("--rate needs steps per second in [0.1, 1000]");
        } else if (!strcmp(a, "--threads")) {
            if (!parse_u32(v, &threads) || threads > 1024)
                return usage("--threads needs 0..1024");
        } else if (!strcmp(a, "--shard")) {
            if (!parse_shard(v, &shard_k, &shard_n))
                return usage("--shard needs K/N with 0 <= K < N <= 100000");
        } else if (!strcmp(a, "--frame")) {
            if (parse_frame_arg(v, &frame))
                return EXIT_USAGE;
        } else if (!strcmp(a, "--flatten-actors")) {
            if (!parse_u32(v, &g_flatten))
                return usage("--flatten-actors needs a triangle budget 0..4294967295");
        } else
            return usage_option(a, 0);
    }
    if (!scene_arg || !rig_arg || !traj_arg || !out)
        return usage("collect needs --scene, --rig, --trajectory and --out");
    if (resume && overwrite)
        return usage("--resume continues the folder's run, --overwrite replaces it: not both");
    int rc = cli_check_out(out);
    if (rc || (rc = open_context(threads)))
        return rc;
    static sensor_spec specs[MAX_SENSORS];
    uint32_t nspecs = 0;
    traj tr = {0};
    collect C;
    memset(&C, 0, sizeof C);
    C.out = out, C.delivered_frame = UINT64_MAX;
    sensim_scene *scene = NULL;
    sensim_rig *rig = NULL;
    void *lmem = NULL, *cmem = NULL;
    int out_lock = -1;
    sensim_status st;
    const int64_t step = (int64_t)floor(1e9 / rate + 0.5);
    if ((rc = load_rig_file(rig_arg, specs, &nspecs)) || (rc = rig_mounts_from_frame(specs, nspecs, frame, rig_arg)) ||
        (rc = load_trajectory_file(traj_arg, frame, &tr)))
        goto done;
    if (tr.n < 2) {
        fprintf(stderr, "sensim: error: %s: a trajectory of two keys at least\n", traj_arg);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
        goto done;
    }
    if ((rc = thin_keys(&tr, step, traj_arg)))
        goto done;
    if ((st = sensim_scene_create(g_ctx, &scene)) || (st = load_scene(scene_arg, frame, NULL, scene)) ||
        (st = sensim_scene_commit(scene)) || (st = sensim_rig_create(g_ctx, &rig))) {
        rc = fail(st);
        goto done;
    }
    for (uint32_t s = 0; s < nspecs && !rc; s++) {
        const sensor_spec *sp = &specs[s];
        if (sp->camera && !C.have_cam) {
            if ((rc = make_camera(sp, rig_arg, &C.cam)))
                break;
            size_t size;
            uint32_t W = C.cam.d.width, H = C.cam.d.height;
            if (!WANTS(&C.cam)) {
                fprintf(stderr, "sensim: error: %s: the camera's outputs hold none of depth, semantic, rgb\n", rig_arg);
                rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
                break;
            }
            if ((st = sensim_image_ring_required_size(W, H, WANTS(&C.cam), 2, &size)) || !(cmem = malloc(size)) ||
                (st = sensim_image_ring_init(cmem, size, W, H, WANTS(&C.cam), 2, SENSIM_OVERFLOW_FAIL, &C.cring)) ||
                (st = sensim_rig_add_camera(rig, C.cam.cam, rate, s, C.cring, NULL))) {
                rc = fail(st ? st : SENSIM_ERR_OUT_OF_MEMORY);
                break;
            }
            C.have_cam = 1;
        } else if (!sp->camera && !sp->nav && !sp->radar && !C.have_lidar) {
            uint64_t cap;
            size_t size;
            sensim_lidar_info li;
            if ((st = sensim_lidar_create_from_preset(g_ctx, sp->preset, sp->sets, sp->nsets, &C.lidar)) ||
                (st = sensim_lidar_get_info(C.lidar, &li))) {
                rc = fail(st);
                break;
            }
            /* a step touches at most ceil(step / period) + 1 frames; the ring holds one more */
            const uint64_t touch = (uint64_t)((step + li.frame_period_ns - 1) / li.frame_period_ns) + 1;
            /* the ring (touch + 1 frames) and a writer job's copy of a step (touch frames); more jobs as the
             * budget allows (writers_start) */
            const double frame_bytes = (double)li.max_points_per_frame * sizeof(sensim_point);
            const double bytes = frame_bytes * (double)(2 * touch + 1);
            const double jobs = frame_bytes > 0 ? (COLLECT_LIDAR_BUDGET - frame_bytes * (double)(touch + 1)) /
                                                      (frame_bytes * (double)touch)
                                                : 2.0 * MAX_STEP_WRITERS;
            C.max_jobs = jobs >= 2.0 * MAX_STEP_WRITERS ? 2 * MAX_STEP_WRITERS : jobs < 1 ? 1 : (int)jobs;
            if (bytes > COLLECT_LIDAR_BUDGET) {
                fprintf(stderr, "sensim: error: --rate %g: a step of the lidar '%s' needs %.0f MB of point buffers, "
                                "above collect's budget of %.0f MB (a higher --rate)\n",
                        rate, sp->name, bytes / 1e6, COLLECT_LIDAR_BUDGET / 1e6);
                rc = EXIT_STATUS_BASE + SENSIM_ERR_TOO_LARGE;
                break;
            }
            if ((st = sensim_lidar_ring_size(C.lidar, (uint32_t)touch + 1, &cap, &size)) || !(lmem = malloc(size)) ||
                (st = sensim_ring_init(lmem, size, cap, (uint32_t)touch + 1, SENSIM_OVERFLOW_FAIL, &C.lring)) ||
                (st = sensim_rig_add_lidar(rig, C.lidar, C.lring, NULL))) {
                rc = fail(st ? st : SENSIM_ERR_OUT_OF_MEMORY);
                break;
            }
            C.cap = li.max_points_per_frame * touch, C.have_lidar = 1;
        }
    }
    if (!rc && !C.have_lidar && !C.have_cam) {
        fprintf(stderr, "sensim: error: %s: no lidar and no camera to collect from\n", rig_arg);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
    }
    if (rc)
        goto done;
    const int64_t t_first = tr.keys[0].t_ns, t_last = tr.keys[tr.n - 1].t_ns;
    const uint64_t nsteps = (uint64_t)((t_last - t_first) / step);
    size_t meta_len = 0;
    char *meta = collect_meta(argc, argv, scene_arg, rig_arg, traj_arg, tr.n, &meta_len);
    if (!meta) {
        rc = fail(SENSIM_ERR_OUT_OF_MEMORY);
        goto done;
    }
    if (!ensure_dir(out))
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
    else
        rc = claim_output(out, meta, meta_len, resume, overwrite, shard_k, shard_n, &out_lock);
    free(meta);
    static const char *const dirs[] = {"rgb", "depth", "semseg", "semseg_raw", "lidar", "meta"};
    for (int d = 0; d < 6 && !rc; d++) {
        const uint32_t w = C.have_cam ? WANTS(&C.cam) : 0;
        if ((d == 0 && !(w & SENSIM_CAMERA_RGB)) || (d == 1 && !(w & SENSIM_CAMERA_DEPTH)) ||
            ((d == 2 || d == 3) && !(w & SENSIM_CAMERA_SEMANTIC)) || (d == 4 && !C.have_lidar))
            continue;
        if (!ensure_out_subdir(out, dirs[d]))
            rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    if (rc)
        goto done;
    if (overwrite)
        remove_steps_from(out, nsteps);
    /* --shard K/N: the K-th of N contiguous blocks of the steps, [ka, kb) (sizes within one; nsteps < 2^44,
     * N <= 100000: the products fit). A block's rig starts at its first step as --resume's does, so the
     * shards' files are the whole run's, byte for byte. */
    const uint64_t ka = nsteps * shard_k / shard_n, kb = nsteps * ((uint64_t)shard_k + 1) / shard_n;
    uint64_t k = ka; /* --resume: from the first step of the block whose meta/ JSON (written last) is missing */
    while (resume && k < kb) {
        char p[4200];
        snprintf(p, sizeof p, "%s/meta/%06llu.json", out, (unsigned long long)k);
        if (!file_exists(p))
            break;
        k++;
    }
    const uint64_t k0 = k;
    if ((st = sensim_rig_set_time(rig, t_first + (int64_t)k0 * step)) || (st = sensim_rig_set_world_step(rig, k0))) {
        rc = fail(st);
        goto done;
    }
    /* each step's files are written by a writer thread (as many as the scan's threads) while the rig steps on;
     * a file's bytes depend on its step only, so any count writes the same files */
    step_writers writers;
    if ((rc = writers_start(&writers, &C, writer_threads()))) {
        writers_stop(&writers);
        goto done;
    }
    /* keys from the 4 before the first step's (the motion model's stencil) */
    size_t pushed = key_at(&tr, t_first + (int64_t)k0 * step);
    pushed = pushed > 4 ? pushed - 4 : 0;
    for (; k < kb && !rc; k++) {
        const int64_t t0 = t_first + (int64_t)k * step;
        /* keys up to the step's end and one past it (thinned to fit the rig's 4096) */
        while (pushed < tr.n && (pushed == 0 || tr.keys[pushed - 1].t_ns < t0 + step)) {
            const int jump = pushed > 0 && tr.keys[pushed].t_ns == tr.keys[pushed - 1].t_ns; /* a reset */
            if ((st = (jump ? sensim_rig_jump_to_pose : sensim_rig_push_pose)(rig, tr.keys[pushed].t_ns,
                                                                              tr.keys[pushed].pose))) {
                rc = fail(st);
                break;
            }
            pushed++;
        }
        sensim_rig_step_result res;
        if (!rc && (st = sensim_rig_step(rig, scene, step, NULL, &res)))
            rc = fail(st);
        if (!rc && res.sensors_refused) { /* the rings hold a step's frames: never write a short step */
            fprintf(stderr, "sensim: error: step %llu: %u sensors' rings refused it (overflow); nothing of it was "
                            "written\n",
                    (unsigned long long)k, res.sensors_refused);
            rc = EXIT_STATUS_BASE + SENSIM_ERR_RING_FULL;
        }
        sensim_kinematics kin;
        if (!rc && (st = sensim_rig_platform_at(rig, t0, &kin)))
            rc = fail(st);
        if (!rc)
            rc = collect_step(&C, &writers, k, t0, t0 + step, kin.pose);
    }
    int wrc = writers_stop(&writers); /* every step handed over is on disk (or the first failure said) */
    if (!rc)
        rc = wrc;
    if (!rc && shard_n > 1)
        printf("collected %llu steps of %g s into %s (shard %u/%u: steps %llu to %llu)%s\n",
               (unsigned long long)(k - k0), 1.0 / rate, out, shard_k, shard_n, (unsigned long long)ka,
               (unsigned long long)kb, k0 > ka ? " (resumed)" : "");
    else if (!rc)
        printf("collected %llu steps of %g s into %s%s\n", (unsigned long long)(k - k0), 1.0 / rate, out,
               k0 ? " (resumed)" : "");
done:
    sensim_rig_destroy(rig);
    sensim_lidar_destroy(C.lidar);
    if (C.have_cam)
        sensim_camera_destroy(C.cam.cam);
    sensim_scene_destroy(scene);
    free(lmem), free(cmem), free(tr.keys);
    for (uint32_t s = 0; s < nspecs; s++)
        for (uint32_t j = 0; j < specs[s].nowned; j++)
            free(specs[s].owned[j]);
    if (out_lock >= 0)
        close(out_lock);
    return rc;
}
