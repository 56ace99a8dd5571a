/* sensim batch, the driver: the run's sensors in one rig (sensim/rig.h) that
 * the trajectory is pushed into and that steps along it, as a C host's rig
 * does; every frame reaches its file through the library's sinks (frame,
 * image and CSV sinks) from the rig's consumers.
 *
 * Work is cut in world steps (OUT/meta.json "world_step_ns"; with --lidar,
 * the lidar's frame period): a sensor frame belongs to the step holding its
 * start. --frames A:B selects steps; --shard K/N gives shard K the K-th
 * contiguous block of them, run by a rig that starts at the block's first
 * step (numbered as in the whole run) and steps on until the block's last
 * frames are complete. Streams (IMU, GNSS, odometry, radar) are written whole
 * by shard 0 from a rig over all selected steps, so their random walks never
 * restart. --resume starts a block's rig at its first step with a frame
 * missing on disk and skips the frames already there. */
#include "batch.h"
#include "drive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { K_LIDAR, K_CAMERA, K_NAV, K_RADAR };

static int kind_of(const batch_run *R, uint32_t s)
{
    return R->specs[s].camera ? K_CAMERA : R->navs[s] ? K_NAV : R->radars[s] ? K_RADAR : K_LIDAR;
}

/* One rig run over world steps [oa, ob) (relative to R->s0) for some of the sensors. */
typedef struct pass {
    batch_run *R;
    int64_t oa, ob;
    int in[MAX_SENSORS];            /* sensor s is in this pass's rig */
    int64_t r_lo[MAX_SENSORS], r_hi[MAX_SENSORS]; /* frames [r_lo, r_hi) of sensor s are this pass's to write */
    void *mem[MAX_SENSORS];
    sensim_ring *ring[MAX_SENSORS];
    sensim_csv_sink *csv[MAX_SENSORS];
    sensim_radar_detection *radar_buf; /* one radar sample's detections, contiguous */
    uint64_t radar_cap;
    uint32_t map[MAX_SENSORS];      /* the rig's sensor index -> the rig file's */
    int rc;                         /* a consumer's exit status (its message printed) */
} pass;

/* Frames [lo, hi) of sensor s whose start lies in world steps [oa, ob) and that lie inside the trajectory. */
static void owned_frames(const batch_run *R, uint32_t s, int64_t oa, int64_t ob, int64_t *lo, int64_t *hi)
{
    const int64_t P = R->periods[s], D = R->step_ns;
    int64_t a = -floordiv(-(R->s0 + oa) * D, P), b = -floordiv(-(R->s0 + ob) * D, P);
    int64_t f0 = R->first_frame[s], f1 = f0 + R->nframes[s];
    *lo = a > f0 ? a : f0;
    *hi = b < f1 ? b : f1;
    if (*hi < *lo)
        *hi = *lo;
}

/* The file whose presence says frame r of sensor s is complete (the JSON is written last). */
static void marker_path(const batch_run *R, uint32_t s, int64_t r, char *p, size_t cap)
{
    if (R->specs[s].camera)
        snprintf(p, cap, "%.4000s/%.63s/%06lld.json", R->out, R->specs[s].name, (long long)r);
    else
        snprintf(p, cap, "%.4000s%s%.63s/frame_%06lld.json", R->out, R->rig_file ? "/" : "",
                 R->rig_file ? R->specs[s].name : "", (long long)r);
}

static int frame_on_disk(const batch_run *R, uint32_t s, int64_t r)
{
    char p[4200];
    marker_path(R, s, r, p, sizeof p);
    return R->resume && file_exists(p);
}

/* A frame this pass writes (and has not on disk already: then counted as resumed). */
static int take_frame(pass *X, uint32_t s, int64_t r)
{
    if (r < X->r_lo[s] || r >= X->r_hi[s])
        return 0;
    if (kind_of(X->R, s) <= K_CAMERA && frame_on_disk(X->R, s, r)) {
        X->R->skipped++;
        X->R->pg->done[s]++;
        return 0;
    }
    return 1;
}

static sensim_status lidar_consumer(void *user, uint32_t index, sensim_ring *ring)
{
    pass *X = user;
    batch_run *R = X->R;
    const uint32_t s = X->map[index];
    sensim_frame_view v;
    sensim_status st;
    const double t0 = now_s();
    while ((st = sensim_ring_peek(ring, &v)) == SENSIM_OK) {
        const int64_t r = (int64_t)v.header->frame_number;
        if (take_frame(X, s, r)) {
            uint64_t n = v.counts[0] + v.counts[1];
            if (R->mc) {
                sensim_status wst = mcap_points(R->mc, s, &v);
                if (wst) {
                    sensim_ring_release(ring);
                    return wst;
                }
            } else { /* the frame's files are written by the writer thread while the rig steps on */
                int slot;
                job *j = writer_slot(R->w, &slot);
                snprintf(j->base, sizeof j->base, "%.4000s%s%.63s/frame_%06lld", R->out, R->rig_file ? "/" : "",
                         R->rig_file ? R->specs[s].name : "", (long long)r);
                n = 0;
                for (int k = 0; k < 2; k++)
                    for (uint64_t i = 0; i < v.counts[k] && n < R->cap; i++)
                        R->bufs[slot][n++] = v.points[k][i];
                j->h = *v.header;
                j->h.point_count = n;
                j->pts = R->bufs[slot];
                j->n = n;
                j->sink = R->sinks[s];
                writer_submit(R->w);
            }
            R->points += n;
            R->pg->done[s]++;
            R->pg->points = R->points;
            R->pg->empty[s] += n == 0;
            progress(R->pg, 0);
        }
        sensim_ring_release(ring);
        if (R->w->error) { /* the writer thread has said which file */
            X->rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
            return SENSIM_ERR_IO;
        }
    }
    R->consume_s += now_s() - t0;
    return st == SENSIM_ERR_RING_EMPTY ? SENSIM_OK : st;
}

static sensim_status camera_consumer(void *user, uint32_t index, sensim_ring *ring)
{
    pass *X = user;
    batch_run *R = X->R;
    const uint32_t s = X->map[index];
    sensim_image_view v;
    sensim_status st;
    const double t0 = now_s();
    while ((st = sensim_ring_peek_image(ring, &v)) == SENSIM_OK) {
        const int64_t r = (int64_t)v.header->frame_number;
        if (take_frame(X, s, r)) {
            sensim_camera_images im;
            memset(&im, 0, sizeof im);
            im.depth = (float *)v.depth, im.semantic = (uint8_t *)v.semantic, im.instance = (uint32_t *)v.instance;
            im.normal = (float *)v.normal, im.rgb = (uint8_t *)v.rgb;
            st = R->mc ? mcap_capture(R->mc, s, &v)
                       : sensim_image_sink_write(R->cams[s].sink, (uint64_t)r, v.header->t_begin_ns,
                                                 v.header->sensor_pose, &im);
            if (st) {
                sensim_ring_release(ring);
                return st;
            }
            R->captures++;
            R->pg->done[s]++;
            progress(R->pg, 0);
        }
        sensim_ring_release(ring);
    }
    R->consume_s += now_s() - t0;
    return st == SENSIM_ERR_RING_EMPTY ? SENSIM_OK : st;
}

static sensim_status stream_consumer(void *user, uint32_t index, sensim_ring *ring)
{
    pass *X = user;
    const uint32_t s = X->map[index];
    sensim_status st = SENSIM_OK;
    for (;;) {
        const sensim_frame_header *h;
        int take;
        if (X->R->navs[s]) {
            const sensim_nav_sample *smp;
            if ((st = sensim_ring_peek_nav(ring, &h, &smp)))
                break;
            if ((take = take_frame(X, s, (int64_t)h->frame_number)))
                st = X->R->mc ? mcap_nav(X->R->mc, s, smp) : sensim_csv_sink_write_nav(X->csv[s], smp);
        } else {
            sensim_frame_view v;
            if ((st = sensim_ring_peek(ring, &v)))
                break;
            h = v.header;
            if ((take = take_frame(X, s, (int64_t)h->frame_number))) {
                uint64_t n = 0; /* the detections, contiguous (a frame may wrap the ring's end) */
                sensim_radar_detection *d = X->radar_buf;
                for (int k = 0; k < 2; k++)
                    for (uint64_t i = 0; i < v.counts[k] && n < X->radar_cap; i++)
                        memcpy(&d[n++], &v.points[k][i], sizeof *d);
                st = X->R->mc ? mcap_radar(X->R->mc, s, h->t_begin_ns, d, n)
                              : sensim_csv_sink_write_radar(X->csv[s], h->t_begin_ns, h->frame_number, d, n);
            }
        }
        if (take && !st) {
            X->R->pg->done[s]++;
            progress(X->R->pg, 0);
        }
        sensim_ring_release(ring);
        if (st)
            return st;
    }
    return st == SENSIM_ERR_RING_EMPTY ? SENSIM_OK : st;
}

/* Frames of one sensor that one step of dt can produce, plus the open one and one spare. */
static uint32_t frames_per_step(int64_t dt, int64_t P)
{
    int64_t n = dt / P + 3;
    return n > 4096 ? 4096 : (uint32_t)n;
}

static int make_ring(pass *X, uint32_t s, int64_t dt)
{
    batch_run *R = X->R;
    sensim_status st;
    size_t size = 0;
    const uint32_t nf = frames_per_step(dt, R->periods[s]);
    switch (kind_of(R, s)) {
    case K_LIDAR: {
        uint64_t cap;
        if ((st = sensim_lidar_ring_size(R->lidars[s], nf, &cap, &size)) || !(X->mem[s] = malloc(size)) ||
            (st = sensim_ring_init(X->mem[s], size, cap, nf, SENSIM_OVERFLOW_FAIL, &X->ring[s])))
            return fail(st ? st : SENSIM_ERR_OUT_OF_MEMORY);
        return 0;
    }
    case K_CAMERA: {
        const cam_sensor *c = &R->cams[s];
        /* instance images carry the tag: the semantic plane is rendered with them (written when asked for) */
        const uint32_t o = c->want | (c->want & SENSIM_CAMERA_INSTANCE ? SENSIM_CAMERA_SEMANTIC : 0);
        if ((st = sensim_image_ring_required_size(c->d.width, c->d.height, o, nf, &size)) ||
            !(X->mem[s] = malloc(size)) ||
            (st = sensim_image_ring_init(X->mem[s], size, c->d.width, c->d.height, o, nf, SENSIM_OVERFLOW_FAIL,
                                         &X->ring[s])))
            return fail(st ? st : SENSIM_ERR_OUT_OF_MEMORY);
        return 0;
    }
    case K_NAV:
        if ((st = sensim_nav_ring_required_size(nf, &size)) || !(X->mem[s] = malloc(size)) ||
            (st = sensim_nav_ring_init(X->mem[s], size, nf, SENSIM_OVERFLOW_FAIL, &X->ring[s])))
            return fail(st ? st : SENSIM_ERR_OUT_OF_MEMORY);
        return 0;
    default: {
        uint64_t rays = sensim_radar_rays_per_sample(R->radars[s]), cap = rays * nf;
        if (rays > X->radar_cap) {
            free(X->radar_buf);
            if (!(X->radar_buf = malloc(rays * sizeof(sensim_radar_detection))))
                return fail(SENSIM_ERR_OUT_OF_MEMORY);
            X->radar_cap = rays;
        }
        if ((st = sensim_ring_required_size(cap, nf, &size)) || !(X->mem[s] = malloc(size)) ||
            (st = sensim_ring_init(X->mem[s], size, cap, nf, SENSIM_OVERFLOW_FAIL, &X->ring[s])))
            return fail(st ? st : SENSIM_ERR_OUT_OF_MEMORY);
        return 0;
    }
    }
}

static int stream_sink(pass *X, uint32_t s)
{
    batch_run *R = X->R;
    char path[4200];
    int kind = kind_of(R, s) == K_RADAR ? SENSIM_CSV_RADAR : R->specs[s].nav - 1;
    snprintf(path, sizeof path, "%.4000s/%.63s/%s.csv", R->out, R->specs[s].name,
             kind == SENSIM_CSV_RADAR ? "radar" : nav_names[kind]);
    sensim_csv_sink_desc d;
    sensim_csv_sink_desc_init(&d);
    d.path = path, d.kind = kind, d.frame = R->frame;
    sensim_status st = sensim_csv_sink_create(&d, &X->csv[s]);
    return st ? fail(st) : 0;
}

/* Where the pass stops stepping: each sensor's last frame complete, its last sample taken, no
 * later than @p t_last (INT64_MIN: no sensor has a frame); the cameras' rolling-shutter span. */
static int64_t pass_end(pass *X, int64_t t_last, int64_t *span)
{
    const batch_run *R = X->R;
    int64_t t_end = INT64_MIN;
    for (uint32_t s = 0; s < R->nspecs; s++) {
        if (!X->in[s])
            continue;
        if (X->r_hi[s] == X->r_lo[s]) {
            X->in[s] = 0;
            continue;
        }
        const int64_t P = R->periods[s], last = X->r_hi[s] - 1;
        /* a frame sensor's last frame must be complete; a stream's last sample taken */
        int64_t e = kind_of(R, s) <= K_CAMERA ? (last + 1) * P : last * P + 1;
        if (kind_of(R, s) == K_CAMERA) {
            int64_t sp = R->cams[s].d.row_readout_ns * (int64_t)(R->cams[s].d.height - 1);
            *span = sp > *span ? sp : *span;
        }
        t_end = e > t_end ? e : t_end;
    }
    return t_end != INT64_MIN && t_end > t_last ? t_last : t_end;
}

/* A streamed trajectory ended at @p t_last: the frames and steps the same rows read from a file
 * give (frames inside [first row, last row], steps before the last row's); the new stop. */
static int64_t stream_ended(pass *X, int64_t t_last, int64_t *span)
{
    const batch_run *R = X->R;
    for (uint32_t s = 0; s < R->nspecs; s++) {
        int64_t r1 = floordiv(t_last, R->periods[s]);
        if (X->in[s] && X->r_hi[s] > r1)
            X->r_hi[s] = r1 > X->r_lo[s] ? r1 : X->r_lo[s];
    }
    int64_t ob = floordiv(t_last, R->step_ns) - R->s0;
    X->ob = ob < X->ob ? (ob > X->oa ? ob : X->oa) : X->ob;
    return pass_end(X, t_last, span);
}

/* Before each step: the moving actors, and a bag's /clock, /tf and odometry for the steps this pass owns. */
static int pass_before(void *user, int64_t t, int64_t dt)
{
    pass *X = user;
    batch_run *R = X->R;
    int rc = actors_move(R->as, t, t + dt);
    if (!rc && R->mc && t < (R->s0 + X->ob) * R->step_ns)
        rc = mcap_step(R->mc, t);
    return rc;
}

static int64_t pass_stream_ended(void *user, int64_t t_last, int64_t *span)
{
    return stream_ended(user, t_last, span);
}

/* The rig's run: set up, push, step, consume. 0, -1 (Ctrl-C) or an exit status after a message. */
static int run_pass(pass *X)
{
    batch_run *R = X->R;
    const traj *tr = R->tr;
    const int64_t D = R->step_ns;
    int64_t t_last = traj_end_ns(tr), span = 0;
    for (uint32_t s = 0; s < R->nspecs; s++)
        if (X->in[s])
            owned_frames(R, s, X->oa, X->ob, &X->r_lo[s], &X->r_hi[s]);
    int64_t t_end = pass_end(X, t_last, &span);
    if (t_end == INT64_MIN)
        return 0;
    const int64_t t_begin = (R->s0 + X->oa) * D;
    sensim_rig *rig = NULL;
    sensim_status st;
    int rc = 0;
    if ((st = sensim_rig_create(g_ctx, &rig)) || (st = sensim_rig_set_time(rig, t_begin)) ||
        (st = sensim_rig_set_world_step(rig, (uint64_t)(R->s0 + X->oa)))) {
        rc = fail(st);
        goto end;
    }
    for (uint32_t s = 0; s < R->nspecs && !rc; s++) {
        if (!X->in[s])
            continue;
        if ((rc = make_ring(X, s, D)))
            break;
        int k = kind_of(R, s);
        sensim_ring_consumer fn = k == K_LIDAR ? lidar_consumer : k == K_CAMERA ? camera_consumer : stream_consumer;
        if (k >= K_NAV && !R->mc && (rc = stream_sink(X, s)))
            break;
        uint32_t idx;
        st = k == K_LIDAR    ? sensim_rig_add_lidar(rig, R->lidars[s], X->ring[s], &idx)
             : k == K_CAMERA ? sensim_rig_add_camera(rig, R->cams[s].cam, R->cams[s].rate_hz, s, X->ring[s], &idx)
             : k == K_NAV    ? sensim_rig_add_nav(rig, R->navs[s], X->ring[s], &idx)
                             : sensim_rig_add_radar(rig, R->radars[s], X->ring[s], &idx);
        /* the consumers know the sensor by its index in the rig file: the rig's index is mapped back */
        if (!st) {
            X->map[idx] = s;
            st = sensim_rig_set_consumer(rig, idx, fn, X);
        }
        if (st)
            rc = fail(st);
    }
    if (!rc) { /* the one driver loop (drive.c), with this pass's hooks */
        drive_run d = {rig, R->scene, (traj *)tr, t_begin, t_end, D, span, g_motion, 0};
        const drive_hooks h = {X, pass_before, NULL, pass_stream_ended, &X->rc};
        rc = drive(&d, &h);
        R->scan_s += d.scan_s;
    }
    for (uint32_t s = 0; s < R->nspecs; s++)
        if (X->csv[s]) {
            if (!rc && !g_stop && (st = sensim_csv_sink_close(X->csv[s])))
                rc = fail(st);
            if (!rc && !g_stop && !R->quiet)
                fprintf(stderr, "sensim batch: %s: %lld samples -> %s/%s/%s.csv\n", R->specs[s].name,
                        (long long)(X->r_hi[s] - X->r_lo[s]), R->out, R->specs[s].name,
                        R->radars[s] ? "radar" : nav_names[R->specs[s].nav - 1]);
        }
end:
    sensim_rig_destroy(rig);
    for (uint32_t s = 0; s < R->nspecs; s++) {
        sensim_csv_sink_destroy(X->csv[s]);
        X->csv[s] = NULL;
        free(X->mem[s]);
        X->mem[s] = NULL;
    }
    return rc;
}

/* The selected world steps [A, B) and shard K's block of them [*ba, *bb) (contiguous, sizes within one). */
void shard_block(const batch_run *R, int64_t *A, int64_t *B, int64_t *ba, int64_t *bb)
{
    int64_t a = R->fa > 0 ? R->fa : 0, b = R->fb < R->nsteps ? R->fb : R->nsteps;
    if (b < a)
        b = a;
    *A = a, *B = b;
    /* b − a < 2^44 (steps of at least 1 µs within ±2^62 ns) and K < 2^17: the products fit */
    *ba = a + (b - a) * (int64_t)R->shard_k / (int64_t)R->shard_n;
    *bb = a + (b - a) * ((int64_t)R->shard_k + 1) / (int64_t)R->shard_n;
}

int run_rig(batch_run *R)
{
    int64_t A, B, ba, bb;
    shard_block(R, &A, &B, &ba, &bb);
    pass streams, frames;
    memset(&streams, 0, sizeof streams);
    memset(&frames, 0, sizeof frames);
    streams.R = frames.R = R;
    streams.oa = A, streams.ob = B;
    frames.oa = ba, frames.ob = bb;
    int nstreams = 0;
    for (uint32_t s = 0; s < R->nspecs; s++) {
        int64_t lo, hi;
        if (kind_of(R, s) <= K_CAMERA) {
            frames.in[s] = 1;
            owned_frames(R, s, ba, bb, &lo, &hi);
            R->pg->total[s] = (uint64_t)(hi - lo);
            continue;
        }
        if (R->shard_k != 0)
            continue;
        owned_frames(R, s, A, B, &lo, &hi);
        R->pg->total[s] = (uint64_t)(hi - lo);
        char path[4200];
        snprintf(path, sizeof path, "%.4000s/%.63s/%s.csv", R->out, R->specs[s].name,
                 R->radars[s] ? "radar" : nav_names[R->specs[s].nav - 1]);
        if (R->resume && file_exists(path)) {
            R->pg->done[s] += (uint64_t)(hi - lo); /* resumed: the stream is whole on disk */
            continue;
        }
        streams.in[s] = 1;
        nstreams++;
    }
    /* --resume: the block's rig starts at its first step with a frame missing on disk */
    for (int found = !R->resume; frames.oa < bb && !found; frames.oa += !found) {
        for (uint32_t s = 0; s < R->nspecs && !found; s++) {
            int64_t lo, hi;
            if (!frames.in[s])
                continue;
            owned_frames(R, s, frames.oa, frames.oa + 1, &lo, &hi);
            for (int64_t r = lo; r < hi && !found; r++)
                found = !frame_on_disk(R, s, r);
        }
        if (!found)
            for (uint32_t s = 0; s < R->nspecs; s++)
                if (frames.in[s]) {
                    int64_t lo, hi;
                    owned_frames(R, s, frames.oa, frames.oa + 1, &lo, &hi);
                    R->skipped += (uint64_t)(hi - lo);
                    R->pg->done[s] += (uint64_t)(hi - lo);
                }
    }
    int rc = 0;
    if (nstreams && frames.oa == A && frames.ob == B) { /* one rig for every sensor: the usual run */
        for (uint32_t s = 0; s < R->nspecs; s++)
            frames.in[s] |= streams.in[s];
        rc = run_pass(&frames);
        free(frames.radar_buf);
        return rc;
    }
    if (nstreams)
        rc = run_pass(&streams);
    if (!rc && !g_stop)
        rc = run_pass(&frames);
    free(streams.radar_buf);
    free(frames.radar_buf);
    return rc;
}
