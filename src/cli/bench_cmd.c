/* sensim bench: the full pipeline against bare Embree loops on the same rays. */
#include "cli.h"
#include "street.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_PRESETS 32

/* What one rep measures, frame k of the lidar: the pipeline, the bare
 * loops over the same primary rays, and the secondary rays (mirror rays,
 * transmissions) the pipeline traced in that frame, one at a time. */
enum { T_PIPE, T_NAIVE, T_P8, T_P16, T_TILED, T_PATTERN, T_SECONDARY, T_COUNT };
static const int32_t bare_variant[T_COUNT] = {-1, SENSIM_BENCH_NAIVE, SENSIM_BENCH_PACKET8, SENSIM_BENCH_PACKET16,
                                              SENSIM_BENCH_TILED16, SENSIM_BENCH_PATTERN16, SENSIM_BENCH_SECONDARY};

static sensim_ring *frame_ring(const sensim_lidar *l, void **mem)
{
    sensim_lidar_info li;
    sensim_lidar_get_info(l, &li);
    size_t size;
    sensim_ring *ring = NULL;
    *mem = NULL;
    if (sensim_ring_required_size(2 * li.shots_per_frame, 2, &size) || !(*mem = malloc(size)) ||
        sensim_ring_init(*mem, size, 2 * li.shots_per_frame, 2, SENSIM_OVERFLOW_DROP_OLDEST, &ring)) {
        free(*mem);
        *mem = NULL;
        return NULL;
    }
    return ring;
}

/* Scan frame @p k of @p l (a static lidar at @p pose) into @p ring; *dt: the wall time. */
static sensim_status scan_frame(sensim_lidar *l, sensim_scene *scene, const double pose[16], int k, sensim_ring *ring,
                                sensim_scan_result *res, double *dt)
{
    sensim_lidar_info li;
    sensim_lidar_get_info(l, &li);
    double a = now_s();
    sensim_status st = sensim_lidar_scan(l, scene, k * li.frame_period_ns, (k + 1) * li.frame_period_ns, pose,
                                         ring, res);
    *dt = now_s() - a;
    sensim_ring_release(ring);
    return st;
}

/* @p rec (recording) scans frame @p k and the secondary rays it traced are
 * timed into *s; a record too small for them grows (x8, and @p rec,
 * rewound, scans the frame again) up to SENSIM_BENCH_MAX_RAYS. */
static sensim_status time_secondary(sensim_lidar *rec, sensim_scene *scene, const double pose[16], int k,
                                    sensim_ring *ring, uint64_t *cap, double *s)
{
    for (;;) {
        sensim_scan_result res;
        double dt;
        uint64_t r;
        sensim_status st = scan_frame(rec, scene, pose, k, ring, &res, &dt);
        if (st == SENSIM_OK)
            st = sensim_bench_trace(rec, scene, 0, 0, pose, SENSIM_BENCH_SECONDARY, s, &r, NULL);
        if (st != SENSIM_ERR_TOO_LARGE || *cap >= SENSIM_BENCH_MAX_RAYS)
            return st;
        *cap = *cap > SENSIM_BENCH_MAX_RAYS / 8 ? SENSIM_BENCH_MAX_RAYS : *cap * 8;
        if ((st = sensim_bench_record_secondary(rec, *cap)) != SENSIM_OK || (st = sensim_lidar_rewind(rec)) != SENSIM_OK)
            return st; /* a rewound lidar may scan frame k again */
    }
}

/* Frames 2 .. reps+1 after two warm-up frames, every measure of a frame
 * right after the pipeline's (t[T_*][rep]): steal on a shared machine comes
 * in bursts of seconds, and a burst then slows the measures a ratio pairs
 * together instead of one side. @p rec is a second lidar of the preset that
 * records the secondary rays (its own scan of the frame, not timed).
 * *bare_rays: the rays a bare loop traces over a frame. */
#define WARMUP 2
static sensim_status time_lidar(sensim_lidar *l, sensim_lidar *rec, sensim_scene *scene, const double pose[16],
                                int reps, double t[T_COUNT][64], uint64_t *points, uint64_t *shots,
                                uint64_t *pipe_rays, uint64_t *bare_rays)
{
    void *mem = NULL, *rmem = NULL;
    sensim_ring *ring = frame_ring(l, &mem), *rring = frame_ring(rec, &rmem);
    sensim_status st = ring && rring ? SENSIM_OK : SENSIM_ERR_OUT_OF_MEMORY;
    sensim_lidar_info li;
    sensim_lidar_get_info(l, &li);
    uint64_t cap = 2 * li.shots_per_frame + 1024;
    if (st == SENSIM_OK)
        st = sensim_bench_record_secondary(rec, cap);
    for (int k = 0; st == SENSIM_OK && k < reps + WARMUP; k++) {
        sensim_scan_result res;
        double dt, s;
        if ((st = scan_frame(l, scene, pose, k, ring, &res, &dt)) != SENSIM_OK)
            break;
        for (int v = T_NAIVE; st == SENSIM_OK && v < T_COUNT; v++) {
            uint64_t r = 0;
            st = v == T_SECONDARY ? time_secondary(rec, scene, pose, k, rring, &cap, &s)
                                  : sensim_bench_trace(l, scene, k * li.frame_period_ns, (k + 1) * li.frame_period_ns,
                                                       pose, bare_variant[v], &s, &r, NULL);
            if (st == SENSIM_OK && k >= WARMUP)
                t[v][k - WARMUP] = s;
            if (v == T_NAIVE)
                *bare_rays = r;
        }
        if (st == SENSIM_OK && k >= WARMUP)
            t[T_PIPE][k - WARMUP] = dt, *points = res.points, *shots = res.shots, *pipe_rays = res.rays_traced;
    }
    free(mem);
    free(rmem);
    return st;
}

/* The median of @p v[0..n) (sorted in place). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cli_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The median wall time of a frame of @p l while the platform drives from
 * @p pose at 10 m/s, turning at 10 deg/s, on the rig's motion model
 * (SENSIM_INTERP_CAUSAL): every shot's pose from the motion, as in a
 * host that pushes poses. */
static sensim_status time_moving(sensim_lidar *l, sensim_scene *scene, const double pose[16], int reps, double *med)
{
    void *mem = NULL;
    sensim_ring *ring = frame_ring(l, &mem);
    sensim_status st = ring ? SENSIM_OK : SENSIM_ERR_OUT_OF_MEMORY;
    sensim_lidar_info li;
    sensim_lidar_get_info(l, &li);
    const double v[3] = {10.0, 0.0, 0.0}, w[3] = {0.0, 0.0, 10.0 * 3.14159265358979323846 / 180.0};
    double dt[64];
    for (int k = 0; st == SENSIM_OK && k < reps + WARMUP; k++) {
        const int64_t t0 = k * li.frame_period_ns, t1 = t0 + li.frame_period_ns;
        sensim_pose_key keys[2];
        sensim_motion m = {.keys = keys, .key_count = 2, .interp = SENSIM_INTERP_CAUSAL};
        if ((st = sensim_motion_from_velocity(pose, t0, t1, v, w, keys)) != SENSIM_OK)
            break;
        double a = now_s();
        st = sensim_lidar_scan_motion(l, scene, t0, t1, &m, ring, NULL);
        if (k >= WARMUP)
            dt[k - WARMUP] = now_s() - a;
        sensim_ring_release(ring);
    }
    if (st == SENSIM_OK)
        *med = median(dt, reps);
    free(mem);
    return st;
}

/* The median over the reps of the bare time over the pipeline's time of the same rep. */
static double paired_ratio(const double *bare, const double *pipe, int n)
{
    double r[64];
    for (int k = 0; k < n; k++)
        r[k] = bare[k] / pipe[k];
    return median(r, n);
}

/* Depth + semantic renders of @p preset from @p pose against the bare tiled
 * loop over the same rays, interleaved rep by rep; 0 or an exit status. */
static int bench_camera(const char *preset, const sensim_scene *scene, const char *scene_arg, uint64_t triangles,
                        const double pose[16], int reps, int json)
{
    sensim_camera_desc d;
    sensim_camera *cam = NULL;
    sensim_status st = sensim_camera_desc_preset(preset, &d);
    if (st == SENSIM_OK)
        st = sensim_camera_create(g_ctx, &d, &cam);
    if (st != SENSIM_OK)
        return fail(st);
    size_t px = (size_t)d.width * d.height;
    float *depth = malloc(px * sizeof *depth);
    uint8_t *sem = malloc(px);
    double *tb = malloc((size_t)reps * sizeof *tb), *tr = malloc((size_t)reps * sizeof *tr);
    int rc = depth && sem && tb && tr ? 0 : fail(SENSIM_ERR_OUT_OF_MEMORY);
    sensim_pose_key key = {0};
    memcpy(key.pose, pose, sizeof key.pose);
    sensim_motion m = {.keys = &key, .key_count = 1};
    sensim_camera_images ds = {.depth = depth, .semantic = sem};
    uint64_t rays = 0, hits = 0;
    for (int r = -2; !rc && r < reps; r++) { /* two warm-ups, then bare and render alternately */
        double b, t0;
        if ((st = sensim_bench_camera_trace(cam, scene, pose, &b, &rays, &hits)) == SENSIM_OK) {
            t0 = now_s();
            st = sensim_camera_render(cam, scene, &m, 0, &ds, NULL);
        }
        if (st != SENSIM_OK)
            rc = fail(st);
        else if (r >= 0)
            tb[r] = b, tr[r] = now_s() - t0;
    }
    if (!rc) {
        qsort(tb, (size_t)reps, sizeof *tb, cli_cmp_double);
        qsort(tr, (size_t)reps, sizeof *tr, cli_cmp_double);
        double b = tb[reps / 2], r = tr[reps / 2];
        if (json)
            printf("{\"camera\": \"%s\", \"scene\": \"%s\", \"triangles\": %llu, \"threads\": %u, \"reps\": %d, "
                   "\"width\": %u, \"height\": %u, \"camera_render_ms\": %.4f, \"camera_embree_tiled_ms\": %.4f, "
                   "\"camera_ratio_vs_embree_tiled\": %.4f, \"camera_ns_per_pixel\": %.3f}\n",
                   preset, scene_arg, (unsigned long long)triangles, sensim_context_thread_count(g_ctx), reps, d.width,
                   d.height, r * 1e3, b * 1e3, b / r, r * 1e9 / (double)px);
        else
            printf("camera %s %ux%u depth + semantic: %.2f ms (%.1f ns/pixel), bare rtcIntersect16 over 4x4 tiles "
                   "%.2f ms: vs tiled %.3f\n", preset, d.width, d.height, r * 1e3, r * 1e9 / (double)px, b * 1e3, b / r);
    }
    free(depth), free(sem), free(tb), free(tr);
    sensim_camera_destroy(cam);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    const char *scene_arg = "street", *presets[MAX_PRESETS], *sets[64], *cameras[MAX_PRESETS];
    int ncameras = 0;
    uint32_t nsets = 0;
    int npresets = 0, reps = 5, json = 0;
    uint32_t threads = 0, detail = 12;
    g_flatten = FLATTEN_DEFAULT;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            json = 1;
            continue;
        }
        if (!v)
            return usage_option(a, 1);
        i++;
        if (!strcmp(a, "--scene"))
            scene_arg = v;
        else if (!strcmp(a, "--lidar") || !strcmp(a, "--preset")) { /* --preset: the older name */
            if (npresets == MAX_PRESETS)
                return usage("at most 32 lidars per bench run");
            presets[npresets++] = v;
        } else if (!strcmp(a, "--camera")) {
            if (ncameras == MAX_PRESETS)
                return usage("at most 32 cameras per bench run");
            cameras[ncameras++] = v;
        } else if (!strcmp(a, "--set")) {
            if (!strchr(v, '=') || nsets == 64)
                return usage(nsets == 64 ? "at most 64 --set overrides" : "--set needs KEY=VALUE");
            sets[nsets++] = v;
        } else if (!strcmp(a, "--reps")) {
            uint32_t r;
            if (!parse_u32(v, &r) || r < 1 || r > 50)
                return usage("--reps needs 1..50");
            reps = (int)r;
        } else if (!strcmp(a, "--threads")) {
            if (!parse_u32(v, &threads) || threads > 1024)
                return usage("--threads needs 0..1024");
        } else if (!strcmp(a, "--detail")) {
            if (!parse_u32(v, &detail) || detail < 1 || detail > 64)
                return usage("--detail needs 1..64");
        } else if (!strcmp(a, "--flatten-actors")) {
            if (!parse_u32(v, &g_flatten))
                return usage("--flatten-actors needs a triangle budget 0..4294967295");
        } else {
            return usage_option(a, 0);
        }
    }
    if (npresets == 0 && ncameras == 0) {
        static const char *const def[] = {"vlp16", "pandar64", "pandar128", "mid40", "avia", "mems_m1"};
        for (int i = 0; i < 6; i++)
            presets[npresets++] = def[i];
    }
    int rc = open_context(threads);
    if (rc)
        return rc;
    sensim_status st;
    sensim_scene *scene = NULL;
    double t0 = now_s(), load_s = 0, bytes = 0;
    if ((st = sensim_scene_create(g_ctx, &scene))) {
        rc = fail(st);
        goto out;
    }
    if (!strcmp(scene_arg, "street")) {
        street_info si;
        st = g_flatten ? sensim_scene_set_flatten(scene, g_flatten) : SENSIM_OK;
        if (!st)
            st = street_scene_build(scene, 400.0f, detail, &si);
    } else {
        struct stat sb;
        if (stat(scene_arg, &sb) == 0)
            bytes = (double)sb.st_size;
        st = load_scene(scene_arg, SENSIM_FRAME_NATIVE, NULL, scene);
    }
    load_s = now_s() - t0;
    if (st) {
        rc = fail(st);
        goto out;
    }
    double c0 = now_s();
    if ((st = sensim_scene_commit(scene))) {
        rc = fail(st);
        goto out;
    }
    double commit_s = now_s() - c0;
    sensim_scene_info si;
    sensim_scene_get_info(scene, &si);
    double mtri = si.triangle_count / 1e6, bvh_mb = sensim_context_backend_bytes(g_ctx) / 1048576.0;
    uint32_t nthreads = sensim_context_thread_count(g_ctx);
    if (!json) {
        printf("scene %s: %.3f M triangles, %u actors (%u flattened); load %.3f s%s; commit %.3f s (%.3f s per M "
               "triangles); backend memory %.1f MB (%.1f MB per M triangles)\n",
               scene_arg, mtri, si.actor_count, si.flattened_count, load_s,
               bytes > 0 ? "" : " (procedural)", commit_s, mtri > 0 ? commit_s / mtri : 0, bvh_mb,
               mtri > 0 ? bvh_mb / mtri : 0);
        if (bytes > 0)
            printf("load throughput %.1f MB/s\n", bytes / 1048576.0 / load_s);
        printf("%u threads, median of %d (min-max); ratios: the median of bare / pipeline within a rep; vs same: "
               "the best bare loop plus the pipeline's secondary rays one at a time; moving: a frame driving "
               "(10 m/s, 10 deg/s, the rig's motion model) over a frame standing\n", nthreads, reps);
        if (npresets)
            printf("%-10s %11s %11s %8s %20s %18s %18s %9s %9s %9s %9s %9s %7s %7s\n", "preset", "shots/s", "points/s", "x real",
               "pipeline ms", "embree naive ms", "embree best ms", "vs best", "vs naive", "vs tiled", "vs b+pat",
               "vs same", "1->N", "moving");
    }
    const double pose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1.8, 1};
    for (int i = 0; i < npresets && !rc; i++) {
        sensim_lidar *l;
        if ((st = sensim_lidar_create_from_preset(g_ctx, presets[i], sets, nsets, &l))) {
            rc = fail(st);
            break;
        }
        sensim_lidar_info li;
        sensim_lidar_get_info(l, &li);
        sensim_lidar *rec = NULL;
        double t[T_COUNT][64];
        uint64_t points = 0, rays = 0, fired = 0, pipe_rays = 0;
        if ((st = sensim_lidar_create_from_preset(g_ctx, presets[i], sets, nsets, &rec)) ||
            (st = time_lidar(l, rec, scene, pose, reps, t, &points, &fired, &pipe_rays, &rays)))
            rc = fail(st);
        sensim_lidar_destroy(rec);
        if (rc) {
            sensim_lidar_destroy(l);
            break;
        }
        /* thread scaling: the same pipeline on one thread */
        double one_med = 0;
        if (nthreads > 1) {
            sensim_lidar *l1;
            void *mem = NULL;
            sensim_ring *ring = NULL;
            sensim_context_set_thread_count(g_ctx, 1);
            if (!sensim_lidar_create_from_preset(g_ctx, presets[i], sets, nsets, &l1)) {
                double one[64];
                sensim_scan_result res;
                int k = 0;
                if ((ring = frame_ring(l1, &mem)))
                    for (double dt; k < reps + WARMUP && !scan_frame(l1, scene, pose, k, ring, &res, &dt); k++)
                        if (k >= WARMUP)
                            one[k - WARMUP] = dt;
                if (k == reps + WARMUP)
                    one_med = median(one, reps);
                free(mem);
                sensim_lidar_destroy(l1);
            }
            sensim_context_set_thread_count(g_ctx, nthreads);
        }
        /* a driving platform: a new lidar of the preset, frames with a pose per shot (a rewound
         * one would replay its Risley or MEMS pattern: sensim_lidar_rewind) */
        double moving_med = 0;
        sensim_lidar *lm = NULL;
        if ((st = sensim_lidar_create_from_preset(g_ctx, presets[i], sets, nsets, &lm)) ||
            (st = time_moving(lm, scene, pose, reps, &moving_med))) {
            rc = fail(st);
            sensim_lidar_destroy(lm);
            sensim_lidar_destroy(l);
            break;
        }
        sensim_lidar_destroy(lm);
        /* ratios: the median over the reps of bare / pipeline in the same rep */
        double ratio[T_COUNT], med[T_COUNT], lo[T_COUNT], hi[T_COUNT], same[64];
        for (int v = 0; v < T_COUNT; v++) {
            ratio[v] = paired_ratio(t[v], t[T_PIPE], reps);
            double c[64];
            memcpy(c, t[v], (size_t)reps * sizeof *c);
            med[v] = median(c, reps), lo[v] = c[0], hi[v] = c[reps - 1];
        }
        int best = T_NAIVE; /* the fastest bare loop over the primaries, by median */
        for (int v = T_P8; v <= T_TILED; v++)
            if (med[v] < med[best])
                best = v;
        for (int k = 0; k < reps; k++) /* every ray the pipeline traced: the best loop, then the secondaries */
            same[k] = t[best][k] + t[T_SECONDARY][k];
        double same_ratio = paired_ratio(same, t[T_PIPE], reps), same_med = median(same, reps);
        double pipe_ms = med[T_PIPE];
        double scaling = nthreads > 1 && one_med > 0 ? one_med / pipe_ms : 1.0;
        /* the bare loops trace every beam sub-ray: rays a shot = beam_subrays */
        double shots = (double)fired, period = li.frame_period_ns * 1e-9;
        double rays_per_shot = fired ? (double)rays / (double)fired : 0.0;
        if (json) {
            printf("{\"preset\": \"%s\", \"scene\": \"%s\", \"triangles\": %llu, \"threads\": %u, \"reps\": %d, "
                   "\"shots_per_s\": %.1f, \"points_per_s\": %.1f, \"realtime_factor\": %.4f, "
                   "\"pipeline_frame_ms\": %.4f, \"embree_naive_ms\": %.4f, \"embree_best_ms\": %.4f, "
                   "\"ratio_vs_embree_best\": %.4f, \"ratio_vs_embree_naive\": %.4f, \"thread_scaling\": %.4f, "
                   "\"embree_tiled_ms\": %.4f, \"ratio_vs_embree_tiled\": %.4f, \"embree_with_pattern_ms\": %.4f, "
                   "\"ratio_vs_embree_with_pattern\": %.4f, \"bare_rays_per_shot\": %.3f, "
                   "\"pipeline_rays_per_shot\": %.4f, \"embree_secondary_ms\": %.4f, "
                   "\"embree_same_rays_ms\": %.4f, \"ratio_vs_embree_same_rays\": %.4f, "
                   "\"moving_frame_ms\": %.4f, \"moving_over_static\": %.4f}\n",
                   presets[i], scene_arg, (unsigned long long)si.triangle_count, nthreads, reps, shots / pipe_ms,
                   points / pipe_ms, period / pipe_ms, pipe_ms * 1e3, med[T_NAIVE] * 1e3, med[best] * 1e3,
                   ratio[best], ratio[T_NAIVE], scaling, med[T_TILED] * 1e3, ratio[T_TILED],
                   med[T_PATTERN] * 1e3, ratio[T_PATTERN], rays_per_shot,
                   fired ? (double)pipe_rays / (double)fired : 0.0, med[T_SECONDARY] * 1e3, same_med * 1e3,
                   same_ratio, moving_med * 1e3, moving_med / pipe_ms);
        } else {
            printf("%-10s %11.0f %11.0f %8.2f %7.2f (%5.2f-%5.2f) %6.2f (%4.2f-%4.2f) %6.2f (%4.2f-%4.2f) %9.3f %9.3f "
                   "%9.3f %9.3f %9.3f %7.2f %7.2f\n",
                   presets[i], shots / pipe_ms, points / pipe_ms, period / pipe_ms, pipe_ms * 1e3, lo[T_PIPE] * 1e3,
                   hi[T_PIPE] * 1e3, med[T_NAIVE] * 1e3, lo[T_NAIVE] * 1e3, hi[T_NAIVE] * 1e3, med[best] * 1e3,
                   lo[best] * 1e3, hi[best] * 1e3, ratio[best], ratio[T_NAIVE], ratio[T_TILED], ratio[T_PATTERN],
                   same_ratio, scaling, moving_med / pipe_ms);
        }
        sensim_lidar_destroy(l);
    }
    /* cameras: 1.6 m above the road, looking along it */
    const double cpose[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1.6, 1};
    for (int i = 0; i < ncameras && !rc; i++)
        rc = bench_camera(cameras[i], scene, scene_arg, si.triangle_count, cpose, reps, json);
out:
    sensim_scene_destroy(scene);
    sensim_context_destroy(g_ctx);
    return rc;
}
