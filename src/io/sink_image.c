/* Image sinks (sensim/sink.h): camera captures in CARLA's synchronized-collection layout. */
#include "internal.h"
#include "ring_impl.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SENSIM_MAGIC_IMAGE_SINK 0x4B534953u

struct sensim_image_sink {
    uint32_t magic;
    char dir[4001];
    char name[64];
    const sensim_camera *camera;
    sensim_camera_info info;
    int32_t frame;
    uint32_t outputs;
    uint8_t *img; /* 3 bytes a pixel: one 8-bit RGB image at a time */
};

static const char *const output_names[] = {"depth", "semantic", "instance", "normal", "rgb"};

void sensim_image_sink_desc_init(sensim_image_sink_desc *d)
{
    if (d)
        memset(d, 0, sizeof *d);
}

sensim_status sensim_image_sink_create(const sensim_image_sink_desc *d, sensim_image_sink **out)
{
    if (!d || !out || !d->dir || !d->camera_name)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_create: NULL argument");
    *out = NULL;
    sensim_status st = sensim__check_sink_strings("sensim_image_sink_create", d->dir, d->camera_name);
    if (st != SENSIM_OK)
        return st;
    if (d->frame < SENSIM_FRAME_NATIVE || d->frame > SENSIM_FRAME_ISO8855 || (d->outputs & ~UINT32_C(31)))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_create: frame %d or outputs 0x%x unknown",
                            d->frame, d->outputs);
    if (d->reserved[0] || d->reserved[1] || d->reserved[2] || d->reserved[3])
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_create: reserved fields must be zero");
    sensim_camera_info info;
    st = sensim_camera_get_info(d->camera, &info); /* checks the handle */
    if (st != SENSIM_OK)
        return st;
    sensim_image_sink *s = calloc(1, sizeof *s);
    uint8_t *img = s ? malloc((size_t)info.width * info.height * 3) : NULL;
    if (!img) {
        free(s);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_image_sink_create: %u x %u scratch image", info.width,
                            info.height);
    }
    s->magic = SENSIM_MAGIC_IMAGE_SINK;
    snprintf(s->dir, sizeof s->dir, "%s", d->dir);
    snprintf(s->name, sizeof s->name, "%s", d->camera_name);
    s->camera = d->camera;
    s->info = info;
    s->frame = d->frame == SENSIM_FRAME_ISO8855 ? SENSIM_FRAME_NATIVE : d->frame;
    s->outputs = d->outputs;
    s->img = img;
    *out = s;
    return SENSIM_OK;
}

void sensim_image_sink_destroy(sensim_image_sink *s)
{
    if (!s || s->magic != SENSIM_MAGIC_IMAGE_SINK)
        return;
    s->magic = SENSIM_MAGIC_DEAD;
    free(s->img);
    free(s);
}

/* mkdir DIR/SUB unless it exists as a folder. */
static sensim_status sub_dir(const sensim_image_sink *s, const char *sub, char *d, size_t cap)
{
    snprintf(d, cap, "%s/%s", s->dir, sub);
    struct stat sb;
    if (mkdir(d, 0777) != 0 && errno != EEXIST)
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot create the folder: %s", d, strerror(errno));
    if (stat(d, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return sensim__fail(SENSIM_ERR_IO, "%s exists and is not a folder", d);
    return SENSIM_OK;
}

static sensim_status out_png(const sensim_image_sink *s, const char *sub, const char *stem, const uint8_t *px)
{
    char d[4200], p[4300];
    sensim_status st = sub_dir(s, sub, d, sizeof d);
    if (st != SENSIM_OK)
        return st;
    snprintf(p, sizeof p, "%s/%s.png", d, stem);
    return sensim_write_png(p, s->info.width, s->info.height, 3, 8, px, (size_t)s->info.width * 3);
}

/* PFM (grayscale "Pf", little-endian, rows bottom to top). */
static sensim_status write_pfm(const sensim_image_sink *s, const char *stem, const float *depth)
{
    char d[4200], path[4300], tmp[4400];
    sensim_status st = sub_dir(s, "depth", d, sizeof d);
    if (st != SENSIM_OK)
        return st;
    snprintf(path, sizeof path, "%s/%s.pfm", d, stem);
    FILE *f = sensim__create_tmp(path, tmp, sizeof tmp);
    if (!f)
        return SENSIM_ERR_IO;
    const uint32_t w = s->info.width, h = s->info.height;
    fprintf(f, "Pf\n%u %u\n-1.0\n", w, h);
    for (uint32_t y = h; y-- > 0;)
        fwrite(depth + (size_t)y * w, sizeof(float), w, f);
    return sensim__commit_tmp(f, tmp, path);
}

static void json_numbers(FILE *f, const double *v, int n)
{
    for (int k = 0; k < n; k++)
        fprintf(f, "%s%.17g", k ? ", " : "[", v[k]);
    fputc(']', f);
}

sensim_status sensim_image_sink_write(sensim_image_sink *s, uint64_t number, int64_t t_ns, const double pose[16],
                                      const sensim_camera_images *im)
{
    if (!s || s->magic != SENSIM_MAGIC_IMAGE_SINK || !pose || !im)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_write: %s",
                            s && s->magic == SENSIM_MAGIC_IMAGE_SINK ? "NULL pose or images" : "not an image sink");
    uint32_t held = (im->depth ? SENSIM_CAMERA_DEPTH : 0) | (im->semantic ? SENSIM_CAMERA_SEMANTIC : 0) |
                    (im->instance ? SENSIM_CAMERA_INSTANCE : 0) | (im->normal ? SENSIM_CAMERA_NORMAL : 0) |
                    (im->rgb ? SENSIM_CAMERA_RGB : 0);
    uint32_t want = s->outputs ? s->outputs : held;
    if (want & ~held)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_write: the images lack outputs 0x%x",
                            want & ~held);
    char stem[32];
    snprintf(stem, sizeof stem, "%06llu", (unsigned long long)number);
    const size_t px = (size_t)s->info.width * s->info.height;
    uint8_t *img = s->img;
    sensim_status st = SENSIM_OK;
    if (want & SENSIM_CAMERA_DEPTH) { /* CARLA's 24-bit encoding in a PNG, and float metres in a PFM */
        for (size_t p = 0; p < px; p++)
            sensim_depth_to_carla_rgb(im->depth[p], &img[3 * p]);
        if ((st = out_png(s, "depth", stem, img)) != SENSIM_OK || (st = write_pfm(s, stem, im->depth)) != SENSIM_OK)
            return st;
    }
    if (want & SENSIM_CAMERA_SEMANTIC) { /* CARLA raw: tag in red; and the CityScapes palette */
        for (size_t p = 0; p < px; p++)
            img[3 * p] = im->semantic[p], img[3 * p + 1] = img[3 * p + 2] = 0;
        if ((st = out_png(s, "semantic", stem, img)) != SENSIM_OK)
            return st;
        for (size_t p = 0; p < px; p++)
            sensim_tag_color(im->semantic[p], &img[3 * p]);
        if ((st = out_png(s, "semantic_cityscapes", stem, img)) != SENSIM_OK)
            return st;
    }
    if (want & SENSIM_CAMERA_INSTANCE) { /* CARLA 0.9.14+: R tag (when held), G id low byte, B id high byte */
        for (size_t p = 0; p < px; p++)
            img[3 * p] = im->semantic ? im->semantic[p] : 0, img[3 * p + 1] = (uint8_t)(im->instance[p] & 255),
            img[3 * p + 2] = (uint8_t)((im->instance[p] >> 8) & 255);
        if ((st = out_png(s, "instance", stem, img)) != SENSIM_OK)
            return st;
    }
    if (want & SENSIM_CAMERA_NORMAL) { /* (n + 1) / 2 in each channel, optical frame */
        for (size_t p = 0; p < 3 * px; p++)
            img[p] = (uint8_t)lround((im->normal[p] + 1.0) * 127.5);
        if ((st = out_png(s, "normal", stem, img)) != SENSIM_OK)
            return st;
    }
    if ((want & SENSIM_CAMERA_RGB) && (st = out_png(s, "rgb", stem, im->rgb)) != SENSIM_OK)
        return st;
    /* the capture's JSON last: its presence marks a finished capture (batch --resume) */
    char path[4300], tmp[4400];
    snprintf(path, sizeof path, "%s/%s.json", s->dir, stem);
    FILE *f = sensim__create_tmp(path, tmp, sizeof tmp);
    if (!f)
        return SENSIM_ERR_IO;
    double out_pose[16];
    sensim_pose_matrix_to_frame(s->frame, pose, out_pose);
    fprintf(f, "{\"t_ns\": %lld, \"camera\": \"%s\", \"frame_of_reference\": \"%s\", \"units\": \"%s\",\n"
               " \"depth\": \"%s\", \"outputs\": [",
            (long long)t_ns, s->name,
            s->frame == SENSIM_FRAME_CARLA ? "carla" : s->frame == SENSIM_FRAME_UE ? "ue" : "native",
            s->frame == SENSIM_FRAME_UE ? "cm" : "m",
            !strcmp(s->info.distortion_model, "equidistant") ? "along the ray" : "planar");
    for (int k = 0, n = 0; k < 5; k++)
        if (want & (1u << k))
            fprintf(f, "%s\"%s\"", n++ ? ", " : "", output_names[k]);
    fprintf(f, "], \"sensor_pose\": ");
    json_numbers(f, out_pose, 16);
    fprintf(f, ",\n \"camera_info\": {\"width\": %u, \"height\": %u, \"distortion_model\": \"%s\", \"D\": ",
            s->info.width, s->info.height, s->info.distortion_model);
    json_numbers(f, s->info.d, 5);
    fprintf(f, ", \"K\": ");
    json_numbers(f, s->info.k, 9);
    fprintf(f, ", \"R\": ");
    json_numbers(f, s->info.r, 9);
    fprintf(f, ", \"P\": ");
    json_numbers(f, s->info.p, 12);
    fprintf(f, "}}\n");
    return sensim__commit_tmp(f, tmp, path);
}

sensim_status sensim_image_sink_consume(void *sink, uint32_t sensor_index, sensim_ring *ring)
{
    (void)sensor_index;
    sensim_image_sink *s = sink;
    if (!s || s->magic != SENSIM_MAGIC_IMAGE_SINK)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_consume: not an image sink");
    sensim_status st = sensim__ring_check(ring);
    if (st != SENSIM_OK)
        return st;
    if (sensim__ring_kind(ring) != SENSIM__RING_IMAGES)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_consume: an image sink takes an image "
                                                         "ring");
    sensim_image_view v;
    while ((st = sensim_ring_peek_image(ring, &v)) == SENSIM_OK) {
        if (v.width != s->info.width || v.height != s->info.height)
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_sink_consume: the ring holds %u x %u "
                                "images, the camera takes %u x %u", v.width, v.height, s->info.width, s->info.height);
        sensim_camera_images im;
        memset(&im, 0, sizeof im);
        im.depth = (float *)v.depth, im.semantic = (uint8_t *)v.semantic, im.instance = (uint32_t *)v.instance;
        im.normal = (float *)v.normal, im.rgb = (uint8_t *)v.rgb;
        st = sensim_image_sink_write(s, v.header->frame_number, v.header->t_begin_ns, v.header->sensor_pose, &im);
        sensim_status rel = sensim_ring_release(ring);
        if (st != SENSIM_OK)
            return st;
        if (rel != SENSIM_OK)
            return rel;
    }
    return st == SENSIM_ERR_RING_EMPTY ? SENSIM_OK : st;
}
