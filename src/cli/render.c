/* sensim render: one camera image set of a scene, in the layout of a CARLA
 * synchronized collection (OUT/<output>/000000.png plus OUT/000000.json). */
#include "batch.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Camera from a preset name, or else from a camera file (cli_files.c). */
int load_camera_arg(const char *what, sensim_camera_desc *d)
{
    if (sensim_camera_desc_preset(what, d) == SENSIM_OK)
        return 0;
    if (access(what, F_OK) != 0) {
        fprintf(stderr, "sensim: error: --camera %s: neither a camera preset (carla_default, pinhole_720p, "
                        "pinhole_1080p, fisheye_190) nor a file\n", what);
        return EXIT_STATUS_BASE + SENSIM_ERR_NOT_FOUND;
    }
    return load_camera_file(what, d);
}

static const char *const output_names[] = {"depth", "semantic", "instance", "normal", "rgb"};

int parse_camera_outputs(const char *p, uint32_t *want)
{
    *want = 0;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n && (*p == ' ' || *p == '\t'))
            p++, n--;
        size_t m = n;
        while (m && (p[m - 1] == ' ' || p[m - 1] == '\t'))
            m--;
        int found = 0;
        for (int k = 0; k < 5; k++)
            if (strlen(output_names[k]) == m && !strncmp(p, output_names[k], m))
                *want |= 1u << k, found = 1;
        if (!found) {
            fprintf(stderr, "sensim: error: outputs: '%.*s' is not one of depth, semantic, instance, normal, rgb\n",
                    (int)(m > 64 ? 64 : m), p);
            return EXIT_USAGE;
        }
        p += n + (e != NULL);
    }
    if (!*want) {
        fprintf(stderr, "sensim: error: outputs: empty\n");
        return EXIT_USAGE;
    }
    return 0;
}

int camera_write_capture(const char *dir, uint64_t number, const sensim_camera *cam, const char *name, uint32_t want,
                         const sensim_camera_images *im, const double pose[16], int64_t t_ns, int32_t frame)
{
    sensim_image_sink_desc d;
    sensim_image_sink_desc_init(&d);
    d.dir = dir, d.camera_name = name, d.camera = cam, d.frame = frame, d.outputs = want;
    sensim_image_sink *sink;
    sensim_status st = sensim_image_sink_create(&d, &sink);
    if (st == SENSIM_OK)
        st = sensim_image_sink_write(sink, number, t_ns, pose, im);
    sensim_image_sink_destroy(sink);
    return st ? fail(st) : 0;
}

int cmd_render(int argc, char **argv)
{
    const char *scene_arg = NULL, *cam_arg = "carla_default", *out = NULL, *outputs = "depth,semantic,instance,normal,rgb";
    const char *tags = NULL, *sets[MAX_SETS];
    uint32_t nsets = 0, threads = 0;
    double pose_in[6] = {0};
    g_flatten = FLATTEN_DEFAULT;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return usage_option(a, 1);
        i++;
        if (!strcmp(a, "--scene"))
            scene_arg = v;
        else if (!strcmp(a, "--camera"))
            cam_arg = v;
        else if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--outputs"))
            outputs = v;
        else if (!strcmp(a, "--tags"))
            tags = v;
        else if (!strcmp(a, "--flatten-actors")) {
            if (!parse_u32(v, &g_flatten))
                return usage("--flatten-actors needs a triangle budget 0..4294967295");
        }
        else if (!strcmp(a, "--pose")) {
            if (parse_numbers(v, pose_in, 6, 6) != 6)
                return usage("--pose needs six finite numbers x,y,z,roll,pitch,yaw (metres, degrees)");
        } else if (!strcmp(a, "--threads")) {
            if (!parse_u32(v, &threads))
                return usage("--threads needs a count");
        } else if (!strcmp(a, "--set")) {
            if (nsets == MAX_SETS)
                return usage("too many --set");
            sets[nsets++] = v;
        } else
            return usage_option(a, 0);
    }
    if (!scene_arg || !out)
        return usage("render needs --scene and --out");
    uint32_t want;
    if (parse_camera_outputs(outputs, &want))
        return EXIT_USAGE;
    sensim_camera_desc d;
    int rc = load_camera_arg(cam_arg, &d);
    if (rc)
        return rc;
    for (uint32_t k = 0; k < nsets; k++) {
        char key[128];
        const char *eq = strchr(sets[k], '=');
        if (!eq || eq - sets[k] >= (ptrdiff_t)sizeof key)
            return usage("--set needs KEY=VALUE");
        memcpy(key, sets[k], (size_t)(eq - sets[k]));
        key[eq - sets[k]] = '\0';
        sensim_status st = sensim_camera_desc_set(&d, key, eq + 1);
        if (st)
            return fail(st);
    }
    if ((rc = open_context(threads)))
        return rc;
    sensim_scene *scene = NULL;
    sensim_camera *cam = NULL;
    sensim_status st;
    size_t px = 0;
    float *depth = NULL, *nrm = NULL;
    uint8_t *sem = NULL, *rgb = NULL, *img = NULL;
    uint32_t *inst = NULL;
    if ((st = sensim_scene_create(g_ctx, &scene)) || (st = load_scene(scene_arg, SENSIM_FRAME_NATIVE, tags, scene)) ||
        (st = sensim_scene_commit(scene)) || (st = sensim_camera_create(g_ctx, &d, &cam))) {
        rc = fail(st);
        goto done;
    }
    px = (size_t)d.width * d.height;
    sensim_camera_images im = {0};
    if (((want & 1) && !(im.depth = depth = malloc(px * sizeof *depth))) ||
        ((want & 6) && !(im.semantic = sem = malloc(px))) ||
        ((want & 4) && !(im.instance = inst = malloc(px * sizeof *inst))) ||
        ((want & 8) && !(im.normal = nrm = malloc(px * 3 * sizeof *nrm))) ||
        ((want & 16) && !(im.rgb = rgb = malloc(px * 3))) || !(img = malloc(px * 3))) {
        fprintf(stderr, "sensim: error: out of memory for %ux%u images\n", d.width, d.height);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        goto done;
    }
    sensim_pose_key key = {0};
    const double rot[3] = {pose_in[3], pose_in[4], pose_in[5]};
    if ((st = sensim_pose_from_frame(SENSIM_FRAME_NATIVE, pose_in, rot, key.pose))) {
        rc = fail(st);
        goto done;
    }
    sensim_motion m = {.keys = &key, .key_count = 1};
    double cam_pose[16];
    if ((st = sensim_camera_render(cam, scene, &m, 0, &im, cam_pose))) {
        rc = fail(st);
        goto done;
    }
    if (!ensure_dir(out)) {
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
        goto done;
    }
    int out_lock; /* the folder's run lock, as batch and collect take it (held until exit) */
    if ((rc = claim_output(out, NULL, 0, 0, 0, 0, 1, &out_lock)))
        goto done;
    if ((rc = camera_write_capture(out, 0, cam, d.name, want, &im, cam_pose, 0, SENSIM_FRAME_NATIVE)))
        goto done;
    printf("rendered %s %ux%u into %s\n", d.name, d.width, d.height, out);
done:
    free(depth), free(nrm), free(sem), free(rgb), free(img), free(inst);
    sensim_camera_destroy(cam);
    sensim_scene_destroy(scene);
    sensim_context_destroy(g_ctx);
    return rc;
}
