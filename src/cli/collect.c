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
 * (NNNNNN = k; each file through a temporary, the JSON last). The camera
 * captures at the step's start, the lidar covers [k/rate, (k+1)/rate).
 * Inputs (trajectory, rig mounts, scene) are read in --frame (native by
 * default; carla reads them as a CARLA script types them). */
#include "batch.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WANT (SENSIM_CAMERA_DEPTH | SENSIM_CAMERA_SEMANTIC | SENSIM_CAMERA_RGB)
/* the camera's outputs (its rig section's `outputs`) that collect writes */
#define WANTS(c) ((c)->want & WANT)

typedef struct collect {
    const char *out;
    sensim_lidar *lidar;
    sensim_ring *lring;
    cam_sensor cam;
    sensim_ring *cring;
    sensim_point *buf;
    uint64_t cap, delivered_frame, delivered;
    int have_cam, have_lidar;
    uint8_t *rgb;
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
            if (idx >= from && *n < C->cap) {
                sensim_point p = v->points[s][i];
                int64_t t = v->header->t_begin_ns + (int64_t)p.t_offset_ns - t0;
                p.t_offset_ns = (uint32_t)(t < 0 ? 0 : t);
                C->buf[(*n)++] = p;
            }
}

static int step_points(collect *C, int64_t t0, uint64_t *n, sensim_frame_header *h)
{
    *n = 0;
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

static int png_or_fail(const char *path, uint32_t w, uint32_t h, uint32_t ch, const void *px)
{
    sensim_status st = sensim_write_png(path, w, h, ch, 8, px, (size_t)w * ch);
    return st ? fail(st) : 0;
}

static int collect_step(collect *C, uint64_t k, int64_t t0, int64_t t1, const double ego[16])
{
    char path[4300], tmp[4400];
    int rc = 0;
    double lidar_pose[16], cam_pose[16];
    uint64_t n = 0;
    int have_lp = 0, have_cp = 0;
    if (C->have_lidar) {
        sensim_frame_header h;
        memset(&h, 0, sizeof h);
        if ((rc = step_points(C, t0, &n, &h)))
            return rc;
        have_lp = 1;
        double mount[16]; /* the lidar's pose at the step's start: the platform's, times its mount */
        sensim_lidar_get_mount_pose(C->lidar, mount);
        mat4_mul(ego, mount, lidar_pose);
        h.frame_number = k, h.t_begin_ns = t0, h.t_end_ns = t1, h.point_count = n;
        snprintf(path, sizeof path, "%.4000s/lidar/%06llu.ply", C->out, (unsigned long long)k);
        sensim_status st = sensim_write_points_frame(path, SENSIM_FORMAT_PLY, SENSIM_FRAME_CARLA, &h, C->buf, n);
        if (st)
            return fail(st);
    }
    if (C->have_cam) {
        sensim_image_view v;
        sensim_status st = sensim_ring_peek_image(C->cring, &v);
        if (st == SENSIM_OK) {
            const uint32_t W = v.width, H = v.height;
            memcpy(cam_pose, v.header->sensor_pose, sizeof cam_pose);
            have_cp = 1;
            if (v.rgb) {
                snprintf(path, sizeof path, "%.4000s/rgb/%06llu.png", C->out, (unsigned long long)k);
                rc = png_or_fail(path, W, H, 3, v.rgb);
            }
            if (v.depth && !rc) {
                for (size_t p = 0; p < (size_t)W * H; p++)
                    sensim_depth_to_carla_rgb(v.depth[p], C->rgb + 3 * p);
                snprintf(path, sizeof path, "%.4000s/depth/%06llu.png", C->out, (unsigned long long)k);
                rc = png_or_fail(path, W, H, 3, C->rgb);
            }
            if (v.semantic && !rc) {
                for (size_t p = 0; p < (size_t)W * H; p++)
                    sensim_tag_color(v.semantic[p], C->rgb + 3 * p);
                snprintf(path, sizeof path, "%.4000s/semseg/%06llu.png", C->out, (unsigned long long)k);
                rc = png_or_fail(path, W, H, 3, C->rgb);
                for (size_t p = 0; !rc && p < (size_t)W * H; p++)
                    C->rgb[3 * p] = v.semantic[p], C->rgb[3 * p + 1] = C->rgb[3 * p + 2] = 0;
                snprintf(path, sizeof path, "%.4000s/semseg_raw/%06llu.png", C->out, (unsigned long long)k);
                if (!rc)
                    rc = png_or_fail(path, W, H, 3, C->rgb);
            }
            sensim_ring_release(C->cring);
            if (rc)
                return rc;
        } else if (st != SENSIM_ERR_RING_EMPTY) {
            return fail(st);
        }
    }
    snprintf(path, sizeof path, "%.4000s/meta/%06llu.json", C->out, (unsigned long long)k);
    FILE *f = cli_tmp_create(path, tmp, sizeof tmp);
    if (!f)
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    fprintf(f, "{\n  \"frame\": %llu,\n  \"timestamp\": %.9f,\n  \"t_begin_ns\": %lld,\n  \"t_end_ns\": %lld,\n",
            (unsigned long long)k, (double)t0 * 1e-9, (long long)t0, (long long)t1);
    fprintf(f, "  \"frame_of_reference\": \"carla\",\n");
    write_json_pose(f, "ego", ego);
    if (have_lp) {
        fprintf(f, ",\n");
        write_json_pose(f, "lidar", lidar_pose);
        fprintf(f, ",\n  \"lidar_points\": %llu", (unsigned long long)n);
    }
    if (have_cp) {
        sensim_camera_info ci;
        sensim_camera_get_info(C->cam.cam, &ci);
        fprintf(f, ",\n");
        write_json_pose(f, "camera", cam_pose);
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

int cmd_collect(int argc, char **argv)
{
    const char *scene_arg = NULL, *rig_arg = NULL, *traj_arg = NULL, *out = NULL;
    double rate = 10;
    uint32_t threads = 0;
    int32_t frame = SENSIM_FRAME_NATIVE; /* of what the user typed: trajectory, rig mounts, scene */
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
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
        } else if (!strcmp(a, "--frame")) {
            if (parse_frame_arg(v, &frame))
                return EXIT_USAGE;
        } else
            return usage_option(a, 0);
    }
    if (!scene_arg || !rig_arg || !traj_arg || !out)
        return usage("collect needs --scene, --rig, --trajectory and --out");
    int rc = open_context(threads);
    if (rc)
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
    sensim_status st;
    if ((rc = load_rig_file(rig_arg, specs, &nspecs)) || (rc = rig_mounts_from_frame(specs, nspecs, frame, rig_arg)) ||
        (rc = load_trajectory_file(traj_arg, frame, &tr)))
        goto done;
    if (tr.n < 2) {
        rc = msg_fail("%s: a trajectory of two keys at least%s", traj_arg, 0, "");
        goto done;
    }
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
                rc = msg_fail("%s: the camera's outputs hold none of depth, semantic, rgb%s", rig_arg, 0, "");
                break;
            }
            if ((st = sensim_image_ring_required_size(W, H, WANTS(&C.cam), 2, &size)) || !(cmem = malloc(size)) ||
                !(C.rgb = malloc((size_t)W * H * 3)) ||
                (st = sensim_image_ring_init(cmem, size, W, H, WANTS(&C.cam), 2, SENSIM_OVERFLOW_FAIL, &C.cring)) ||
                (st = sensim_rig_add_camera(rig, C.cam.cam, rate, s, C.cring, NULL))) {
                rc = fail(st ? st : SENSIM_ERR_OUT_OF_MEMORY);
                break;
            }
            C.have_cam = 1;
        } else if (!sp->camera && !sp->nav && !sp->radar && !C.have_lidar) {
            uint64_t cap;
            size_t size;
            if ((st = sensim_lidar_create_from_preset(g_ctx, sp->preset, sp->sets, sp->nsets, &C.lidar)) ||
                (st = sensim_lidar_ring_size(C.lidar, 4, &cap, &size)) || !(lmem = malloc(size)) ||
                !(C.buf = malloc(cap * sizeof *C.buf)) ||
                (st = sensim_ring_init(lmem, size, cap, 4, SENSIM_OVERFLOW_FAIL, &C.lring)) ||
                (st = sensim_rig_add_lidar(rig, C.lidar, C.lring, NULL))) {
                rc = fail(st ? st : SENSIM_ERR_OUT_OF_MEMORY);
                break;
            }
            C.cap = cap, C.have_lidar = 1;
        }
    }
    if (!rc && !C.have_lidar && !C.have_cam)
        rc = msg_fail("%s: no lidar and no camera to collect from%s", rig_arg, 0, "");
    static const char *const dirs[] = {"", "/rgb", "/depth", "/semseg", "/semseg_raw", "/lidar", "/meta"};
    for (int d = 0; d < 7 && !rc; d++) {
        char p[4200];
        snprintf(p, sizeof p, "%.4000s%s", out, dirs[d]);
        const uint32_t w = C.have_cam ? WANTS(&C.cam) : 0;
        if ((d == 1 && !(w & SENSIM_CAMERA_RGB)) || (d == 2 && !(w & SENSIM_CAMERA_DEPTH)) ||
            ((d == 3 || d == 4) && !(w & SENSIM_CAMERA_SEMANTIC)) || (d == 5 && !C.have_lidar))
            continue;
        if (!ensure_dir(p))
            rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    if (rc)
        goto done;
    const int64_t t_first = tr.keys[0].t_ns, t_last = tr.keys[tr.n - 1].t_ns;
    const int64_t step = (int64_t)floor(1e9 / rate + 0.5);
    if ((st = sensim_rig_set_time(rig, t_first))) {
        rc = fail(st);
        goto done;
    }
    size_t pushed = 0;
    uint64_t k = 0;
    for (int64_t t0 = t_first; t0 + step <= t_last && !rc; t0 += step, k++) {
        /* keys up to the step's end and one past it (the rig's window holds 4096 ahead) */
        while (pushed < tr.n && (pushed == 0 || tr.keys[pushed - 1].t_ns < t0 + step)) {
            if ((st = sensim_rig_push_pose(rig, tr.keys[pushed].t_ns, tr.keys[pushed].pose))) {
                rc = fail(st);
                break;
            }
            pushed++;
        }
        sensim_rig_step_result res;
        if (!rc && (st = sensim_rig_step(rig, scene, step, NULL, &res)))
            rc = fail(st);
        sensim_kinematics kin;
        if (!rc && (st = sensim_rig_platform_at(rig, t0, &kin)))
            rc = fail(st);
        if (!rc)
            rc = collect_step(&C, k, t0, t0 + step, kin.pose);
    }
    if (!rc)
        printf("collected %llu steps of %g s into %s\n", (unsigned long long)k, 1.0 / rate, out);
done:
    sensim_rig_destroy(rig);
    sensim_lidar_destroy(C.lidar);
    if (C.have_cam)
        sensim_camera_destroy(C.cam.cam);
    sensim_scene_destroy(scene);
    free(lmem), free(cmem), free(C.buf), free(C.rgb), free(tr.keys);
    for (uint32_t s = 0; s < nspecs; s++)
        for (uint32_t j = 0; j < specs[s].nowned; j++)
            free(specs[s].owned[j]);
    return rc;
}
