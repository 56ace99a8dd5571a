/* Frame sinks (sensim/sink.h): the per-frame files of `sensim batch`, for any rig. */
#include "internal.h"
#include "lidar_impl.h"
#include "ring_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENSIM_MAGIC_SINK 0x4B4E5353u

struct sensim_frame_sink {
    uint32_t magic;
    char dir[4001];
    char name[64];
    int32_t format, frame;
    uint32_t images;
    const sensim_lidar *lidar;
    const sensim_ring *ring; /* the ring it writes (bound by the first consume) */
    sensim_point *buf; /* a popped frame (consume), grown to the largest frame seen */
    uint64_t cap;
    pthread_mutex_t mu; /* write and consume hold it: a sink shared by rigs on several threads takes turns */
};

sensim_status sensim_write_frame_image_set(const sensim_lidar *lidar, const sensim_point *pts, uint64_t n,
                                           const char *base, uint32_t mask)
{
    static const char *const names[] = {"range", "intensity", "label", "range_preview", "bev"};
    if (!base || (n && !pts) || (mask & ~UINT32_C(31)) || (mask && !lidar))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_write_frame_image_set: NULL argument or unknown "
                                                         "image bits 0x%x", mask);
    char p[5][4200];
    for (int k = 0; k < 5; k++)
        snprintf(p[k], sizeof p[k], "%.4090s_%s.png", base, names[k]);
    sensim_status st = SENSIM_OK;
    if (mask & (SENSIM_SINK_IMAGE_RANGE | SENSIM_SINK_IMAGE_INTENSITY | SENSIM_SINK_IMAGE_LABEL))
        st = sensim_write_frame_images(lidar, pts, n, 0, (mask & SENSIM_SINK_IMAGE_RANGE) ? p[0] : NULL,
                                       (mask & SENSIM_SINK_IMAGE_INTENSITY) ? p[1] : NULL,
                                       (mask & SENSIM_SINK_IMAGE_LABEL) ? p[2] : NULL, NULL, NULL);
    if (!st && (mask & SENSIM_SINK_IMAGE_PREVIEW))
        st = sensim_write_range_preview(lidar, pts, n, 0, 0, p[3], NULL, NULL);
    if (!st && (mask & SENSIM_SINK_IMAGE_BEV))
        st = sensim_write_bev_png(p[4], pts, n, NULL, NULL);
    return st;
}

void sensim_frame_sink_desc_init(sensim_frame_sink_desc *d)
{
    if (d)
        memset(d, 0, sizeof *d);
}

sensim_status sensim_frame_sink_create(const sensim_frame_sink_desc *d, sensim_frame_sink **out)
{
    if (!d || !out || !d->dir || !d->sensor_name)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_frame_sink_create: NULL argument");
    *out = NULL;
    sensim_status st = sensim__check_sink_strings("sensim_frame_sink_create", d->dir, d->sensor_name);
    if (st != SENSIM_OK)
        return st;
    if (d->format < SENSIM_FORMAT_PLY || d->format > SENSIM_FORMAT_LAS12)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_frame_sink_create: format %d unknown", d->format);
    if (d->frame < SENSIM_FRAME_NATIVE || d->frame > SENSIM_FRAME_ISO8855 ||
        (d->format == SENSIM_FORMAT_CARLA && d->frame == SENSIM_FRAME_UE))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_frame_sink_create: frame %d %s", d->frame,
                            d->format == SENSIM_FORMAT_CARLA ? "(CARLA records are in metres: not UE)" : "unknown");
    if ((d->images & ~UINT32_C(31)) || (d->images && !d->lidar))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_frame_sink_create: images 0x%x %s", d->images,
                            d->images & ~UINT32_C(31) ? "has unknown bits" : "need the lidar");
    if (d->lidar && d->lidar->magic != SENSIM_MAGIC_LIDAR)
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_frame_sink_create: lidar is not a lidar");
    if (d->reserved_u32 || d->reserved[0] || d->reserved[1] || d->reserved[2] || d->reserved[3])
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_frame_sink_create: reserved fields must be zero");
    sensim_frame_sink *s = calloc(1, sizeof *s);
    if (!s)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_frame_sink_create: out of memory");
    s->magic = SENSIM_MAGIC_SINK;
    snprintf(s->dir, sizeof s->dir, "%s", d->dir);
    snprintf(s->name, sizeof s->name, "%s", d->sensor_name);
    s->format = d->format;
    s->frame = d->frame == SENSIM_FRAME_ISO8855 ? SENSIM_FRAME_NATIVE : d->frame;
    s->images = d->images;
    s->lidar = d->lidar;
    pthread_mutex_init(&s->mu, NULL);
    *out = s;
    return SENSIM_OK;
}

void sensim_frame_sink_destroy(sensim_frame_sink *s)
{
    if (!s || s->magic != SENSIM_MAGIC_SINK)
        return;
    s->magic = SENSIM_MAGIC_DEAD;
    pthread_mutex_destroy(&s->mu);
    free(s->buf);
    free(s);
}

/* The frame's JSON, through an exclusive temporary renamed into place. */
static sensim_status write_json(const sensim_frame_sink *s, const char *base, const sensim_frame_header *h,
                                uint64_t n)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%.4090s.json", base);
    FILE *f = sensim__create_tmp(path, tmp, sizeof tmp);
    if (!f)
        return SENSIM_ERR_IO;
    fprintf(f, "{\"sensor\": \"%s\", \"frame\": %llu, \"t_begin_ns\": %lld, \"t_end_ns\": %lld, \"points\": %llu, "
               "\"lost_points\": %llu, \"partial\": %s, \"sensor_pose\": [",
            s->name, (unsigned long long)h->frame_number, (long long)h->t_begin_ns, (long long)h->t_end_ns,
            (unsigned long long)n, (unsigned long long)h->lost_points,
            (h->flags & SENSIM_FRAME_PARTIAL) ? "true" : "false");
    double pose[16];
    sensim_pose_matrix_to_frame(s->frame, h->sensor_pose, pose);
    for (int i = 0; i < 16; i++)
        fprintf(f, "%s%.17g", i ? ", " : "", pose[i]);
    fprintf(f, "], \"frame_of_reference\": \"%s\", \"units\": \"%s\"%s}\n", sensim_frame_name(s->frame),
            s->frame == SENSIM_FRAME_UE ? "cm" : "m",
            n ? ""
              : ", \"warning\": \"no points: every beam missed or fell inside the minimum range; check the mount "
                "height (mount_xyz_m) and the trajectory's z (a lidar at z = 0 sits in the road)\"");
    return sensim__commit_tmp(f, tmp, path);
}

static sensim_status write_frame(sensim_frame_sink *s, const sensim_frame_header *h, const sensim_point *pts,
                                 uint64_t n)
{
    static const char *const ext[] = {"ply", "ply", "pcd", "pcd", "bin", "bin", "las", "las"};
    char base[4100], path[4200];
    snprintf(base, sizeof base, "%s/frame_%06llu", s->dir, (unsigned long long)h->frame_number);
    snprintf(path, sizeof path, "%s.%s", base, ext[s->format]);
    sensim_status st = sensim_write_points_frame(path, s->format, s->frame, h, pts, n);
    if (st == SENSIM_OK && s->images)
        st = sensim_write_frame_image_set(s->lidar, pts, n, base, s->images);
    /* the JSON last: its presence marks a finished frame (batch --resume) */
    return st == SENSIM_OK ? write_json(s, base, h, n) : st;
}

sensim_status sensim_frame_sink_write(sensim_frame_sink *s, const sensim_frame_header *h, const sensim_point *pts,
                                      uint64_t n)
{
    if (!s || s->magic != SENSIM_MAGIC_SINK || !h || (n && !pts))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_frame_sink_write: %s",
                            s && s->magic == SENSIM_MAGIC_SINK ? "NULL header or points" : "not a frame sink");
    pthread_mutex_lock(&s->mu);
    sensim_status st = write_frame(s, h, pts, n);
    pthread_mutex_unlock(&s->mu);
    return st;
}

static sensim_status consume(sensim_frame_sink *s, sensim_ring *ring)
{
    sensim_status st = sensim__ring_check(ring);
    if (st != SENSIM_OK)
        return st;
    if (sensim__ring_kind(ring) != SENSIM__RING_POINTS)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_frame_sink_consume: a frame sink takes a point ring");
    char what[4200];
    snprintf(what, sizeof what, "%.4000s/frame_NNNNNN.*: a second lidar's frames would overwrite them", s->dir);
    if ((st = sensim__sink_bind(&s->ring, ring, "sensim_frame_sink_consume", what)) != SENSIM_OK)
        return st;
    for (;;) {
        sensim_frame_header h;
        uint64_t n;
        st = sensim_ring_pop(ring, &h, NULL, 0, &n);
        if (st == SENSIM_ERR_RING_EMPTY)
            return SENSIM_OK;
        if (st != SENSIM_OK)
            return st;
        if (n > s->cap) {
            sensim_point *b = realloc(s->buf, (size_t)n * sizeof *b);
            if (!b)
                return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_frame_sink_consume: %llu points",
                                    (unsigned long long)n);
            s->buf = b, s->cap = n;
        }
        if ((st = sensim_ring_pop(ring, &h, s->buf, s->cap, &n)) != SENSIM_OK ||
            (st = write_frame(s, &h, s->buf, n)) != SENSIM_OK)
            return st;
    }
}

sensim_status sensim_frame_sink_consume(void *sink, uint32_t sensor_index, sensim_ring *ring)
{
    (void)sensor_index;
    sensim_frame_sink *s = sink;
    if (!s || s->magic != SENSIM_MAGIC_SINK)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_frame_sink_consume: not a frame sink");
    pthread_mutex_lock(&s->mu);
    sensim_status st = consume(s, ring);
    pthread_mutex_unlock(&s->mu);
    return st;
}
