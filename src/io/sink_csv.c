/* CSV sinks (sensim/sink.h): navigation streams and radar detections as `sensim batch` writes them. */
#include "internal.h"
#include "ring_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENSIM_MAGIC_CSV_SINK 0x4B534353u

struct sensim_csv_sink {
    uint32_t magic;
    int32_t kind, frame;
    int closed;
    FILE *f;
    char path[4001], tmp[4100];
    const sensim_ring *ring; /* the ring it writes (bound by the first consume) */
    /* every call but destroy holds it (recursive: consume writes rows): a sink shared by rigs stepped on
     * several threads, or written by several, takes turns and each row is whole */
    pthread_mutex_t mu;
};

/* return (call) with the sink locked around it; a bad handle is refused by the call itself */
#define CSV_LOCKED(s, call)                                                                                   \
    do {                                                                                                      \
        const int locked_ = (s) && (s)->magic == SENSIM_MAGIC_CSV_SINK;                                       \
        if (locked_)                                                                                          \
            pthread_mutex_lock(&(s)->mu);                                                                     \
        sensim_status st_ = (call);                                                                           \
        if (locked_)                                                                                          \
            pthread_mutex_unlock(&(s)->mu);                                                                   \
        return st_;                                                                                           \
    } while (0)

void sensim_csv_sink_desc_init(sensim_csv_sink_desc *d)
{
    if (d)
        memset(d, 0, sizeof *d);
}

sensim_status sensim_csv_sink_create(const sensim_csv_sink_desc *d, sensim_csv_sink **out)
{
    if (!d || !out || !d->path)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_csv_sink_create: NULL argument");
    *out = NULL;
    sensim_status st = sensim__check_sink_strings("sensim_csv_sink_create", d->path, NULL);
    if (st != SENSIM_OK)
        return st;
    if (d->kind < SENSIM_CSV_IMU || d->kind > SENSIM_CSV_RADAR || d->frame < SENSIM_FRAME_NATIVE ||
        d->frame > SENSIM_FRAME_ISO8855)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_csv_sink_create: kind %d or frame %d unknown", d->kind,
                            d->frame);
    if (d->reserved[0] || d->reserved[1] || d->reserved[2] || d->reserved[3])
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_csv_sink_create: reserved fields must be zero");
    sensim_csv_sink *s = calloc(1, sizeof *s);
    if (!s)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_csv_sink_create: out of memory");
    s->magic = SENSIM_MAGIC_CSV_SINK;
    s->kind = d->kind;
    s->frame = d->frame == SENSIM_FRAME_ISO8855 ? SENSIM_FRAME_NATIVE : d->frame;
    snprintf(s->path, sizeof s->path, "%s", d->path);
    if (!(s->f = sensim__create_tmp(s->path, s->tmp, sizeof s->tmp))) {
        free(s);
        return SENSIM_ERR_IO;
    }
    static const char *const header[] = {
        "t_ns,ax,ay,az,gx,gy,gz,compass_rad",
        "t_ns,latitude_deg,longitude_deg,altitude_m",
        "t_ns,x,y,z,qw,qx,qy,qz,vx,vy,vz,vx_body,vy_body,vz_body,wx,wy,wz,ax,ay,az",
        "t_ns,sample,depth_m,azimuth_rad,altitude_rad,velocity_mps,rcs_dbsm,snr_db,object_id,tag",
        "t_ns,sample,depth_cm,azimuth_rad,altitude_rad,velocity_cmps,rcs_dbsm,snr_db,object_id,tag"};
    fprintf(s->f, "%s\n", header[s->kind == SENSIM_CSV_RADAR && s->frame == SENSIM_FRAME_UE ? 4 : s->kind]);
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&s->mu, &a);
    pthread_mutexattr_destroy(&a);
    *out = s;
    return SENSIM_OK;
}

static sensim_status check_open(const sensim_csv_sink *s, const char *fn)
{
    if (!s || s->magic != SENSIM_MAGIC_CSV_SINK)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: not a CSV sink", fn);
    if (s->closed)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: %s is closed", fn, s->path);
    return SENSIM_OK;
}

/* A vector into the sink's frame: CARLA and UE mirror y (x, −y, z) and, for a
 * pseudo-vector (angular velocity, rotation axis), give (−x, y, −z); UE's
 * linear quantities are in centimetres (ros-bridge transforms.py, imu.py;
 * reference/carla_sensors.md). Native leaves it. */
static void vec_to_frame(int32_t frame, const double *v, int pseudo, double *o)
{
    if (frame != SENSIM_FRAME_CARLA && frame != SENSIM_FRAME_UE) {
        o[0] = v[0], o[1] = v[1], o[2] = v[2];
        return;
    }
    const double k = frame == SENSIM_FRAME_UE && !pseudo ? 100.0 : 1.0;
    o[0] = (pseudo ? -v[0] : v[0]) * k, o[1] = (pseudo ? v[1] : -v[1]) * k, o[2] = (pseudo ? -v[2] : v[2]) * k;
}

static sensim_status write_nav_unlocked(sensim_csv_sink *s, const sensim_nav_sample *smp)
{
    sensim_status st = check_open(s, "sensim_csv_sink_write_nav");
    if (st != SENSIM_OK)
        return st;
    if (!smp || s->kind == SENSIM_CSV_RADAR || smp->kind != s->kind)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_csv_sink_write_nav: %s", smp ? "a sample of "
                            "another kind than the sink's" : "sample is NULL");
    FILE *f = s->f;
    fprintf(f, "%lld", (long long)smp->t_ns);
    if (s->kind == SENSIM_CSV_IMU) {
        double v[7];
        vec_to_frame(s->frame, smp->accel, 0, v);
        vec_to_frame(s->frame, smp->gyro, 1, v + 3);
        v[6] = smp->compass_rad;
        for (int i = 0; i < 7; i++)
            fprintf(f, ",%.17g", v[i]);
    } else if (s->kind == SENSIM_CSV_GNSS) {
        fprintf(f, ",%.17g,%.17g,%.17g", smp->latitude_deg, smp->longitude_deg, smp->altitude_m);
    } else {
        double p[3], q[4] = {smp->orientation[0]}, vw[3], vb[3], w[3], a[3]; /* the rotation S·R·S: axis mirrored */
        vec_to_frame(s->frame, &smp->orientation[1], 1, &q[1]);
        vec_to_frame(s->frame, smp->position, 0, p);
        vec_to_frame(s->frame, smp->velocity_world, 0, vw);
        vec_to_frame(s->frame, smp->velocity_body, 0, vb);
        vec_to_frame(s->frame, smp->angular_velocity, 1, w);
        vec_to_frame(s->frame, smp->acceleration_world, 0, a);
        const double *g[6] = {p, q, vw, vb, w, a};
        const int len[6] = {3, 4, 3, 3, 3, 3};
        for (int k = 0; k < 6; k++)
            for (int i = 0; i < len[k]; i++)
                fprintf(f, ",%.17g", g[k][i]);
    }
    fputc('\n', f);
    return ferror(f) ? sensim__fail(SENSIM_ERR_IO, "%s: write failed (disk full?)", s->path) : SENSIM_OK;
}

static sensim_status write_radar_unlocked(sensim_csv_sink *s, int64_t t_ns, uint64_t sample,
                                          const sensim_radar_detection *det, uint64_t n)
{
    sensim_status st = check_open(s, "sensim_csv_sink_write_radar");
    if (st != SENSIM_OK)
        return st;
    if (s->kind != SENSIM_CSV_RADAR || (n && !det))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_csv_sink_write_radar: %s",
                            s->kind != SENSIM_CSV_RADAR ? "not a radar sink" : "detections is NULL");
    const int mirror = s->frame == SENSIM_FRAME_CARLA || s->frame == SENSIM_FRAME_UE;
    const double scale = s->frame == SENSIM_FRAME_UE ? 100.0 : 1.0;
    for (uint64_t i = 0; i < n; i++)
        fprintf(s->f, "%lld,%llu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%u,%u\n", (long long)t_ns, (unsigned long long)sample,
                scale * (double)det[i].depth_m, mirror ? -(double)det[i].azimuth_rad : (double)det[i].azimuth_rad,
                (double)det[i].altitude_rad, scale * (double)det[i].velocity_mps, (double)det[i].rcs_dbsm,
                (double)det[i].snr_db, det[i].object_id, det[i].tag);
    return ferror(s->f) ? sensim__fail(SENSIM_ERR_IO, "%s: write failed (disk full?)", s->path) : SENSIM_OK;
}

static sensim_status consume_unlocked(void *sink, uint32_t sensor_index, sensim_ring *ring)
{
    (void)sensor_index;
    sensim_csv_sink *s = sink;
    sensim_status st = check_open(s, "sensim_csv_sink_consume");
    if (st == SENSIM_OK)
        st = sensim__ring_check(ring);
    if (st != SENSIM_OK)
        return st;
    const int32_t want = s->kind == SENSIM_CSV_RADAR ? SENSIM__RING_POINTS : SENSIM__RING_NAV;
    if (sensim__ring_kind(ring) != want)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_csv_sink_consume: this sink takes a %s",
                            want == SENSIM__RING_NAV ? "navigation ring" : "radar's point ring");
    char what[4200];
    snprintf(what, sizeof what, "%.4000s: a second sensor's rows would mix with them", s->path);
    if ((st = sensim__sink_bind(&s->ring, ring, "sensim_csv_sink_consume", what)) != SENSIM_OK)
        return st;
    if (want == SENSIM__RING_NAV) {
        const sensim_frame_header *h;
        const sensim_nav_sample *smp;
        while ((st = sensim_ring_peek_nav(ring, &h, &smp)) == SENSIM_OK) {
            st = sensim_csv_sink_write_nav(s, smp);
            sensim_status rel = sensim_ring_release(ring);
            if (st != SENSIM_OK || (st = rel) != SENSIM_OK)
                return st;
        }
        return st == SENSIM_ERR_RING_EMPTY ? SENSIM_OK : st;
    }
    sensim_frame_view v;
    while ((st = sensim_ring_peek(ring, &v)) == SENSIM_OK) {
        for (int k = 0; k < 2 && st == SENSIM_OK; k++) /* the records are sensim_radar_detection (32 bytes) */
            st = sensim_csv_sink_write_radar(s, v.header->t_begin_ns, v.header->frame_number,
                                             (const sensim_radar_detection *)(const void *)v.points[k], v.counts[k]);
        sensim_status rel = sensim_ring_release(ring);
        if (st != SENSIM_OK || (st = rel) != SENSIM_OK)
            return st;
    }
    return st == SENSIM_ERR_RING_EMPTY ? SENSIM_OK : st;
}

static sensim_status close_unlocked(sensim_csv_sink *s)
{
    sensim_status st = check_open(s, "sensim_csv_sink_close");
    if (st != SENSIM_OK)
        return st;
    s->closed = 1;
    FILE *f = s->f;
    s->f = NULL;
    return sensim__commit_tmp(f, s->tmp, s->path);
}

void sensim_csv_sink_destroy(sensim_csv_sink *s)
{
    if (!s || s->magic != SENSIM_MAGIC_CSV_SINK)
        return;
    if (s->f) {
        fclose(s->f);
        remove(s->tmp);
    }
    s->magic = SENSIM_MAGIC_DEAD;
    pthread_mutex_destroy(&s->mu);
    free(s);
}

sensim_status sensim_csv_sink_write_nav(sensim_csv_sink *s, const sensim_nav_sample *smp)
{
    CSV_LOCKED(s, write_nav_unlocked(s, smp));
}

sensim_status sensim_csv_sink_write_radar(sensim_csv_sink *s, int64_t t_ns, uint64_t sample,
                                          const sensim_radar_detection *det, uint64_t n)
{
    CSV_LOCKED(s, write_radar_unlocked(s, t_ns, sample, det, n));
}

sensim_status sensim_csv_sink_consume(void *sink, uint32_t sensor_index, sensim_ring *ring)
{
    sensim_csv_sink *s = sink;
    CSV_LOCKED(s, consume_unlocked(sink, sensor_index, ring));
}

sensim_status sensim_csv_sink_close(sensim_csv_sink *s)
{
    CSV_LOCKED(s, close_unlocked(s));
}
