#include "ring_impl.h"

#include <string.h>

#define RING_MAGIC UINT64_C(0x31474e524d4e4553) /* "SENMRNG1" */
#define MAX_POINTS (UINT64_C(1) << 40)
#define MAX_FRAMES (UINT32_C(1) << 24)

/* Lives at the start of the caller's memory; headers then points follow. */
struct sensim_ring {
    uint64_t magic;
    uint64_t point_capacity;
    uint32_t frame_capacity;
    int32_t policy;
    uint64_t headers_offset;
    uint64_t points_offset;

    /* shared between producer and consumer */
    _Atomic uint64_t frame_tail; /* oldest frame not yet released */
    _Atomic uint64_t frame_head; /* frames published */
    _Atomic uint64_t stat_written, stat_dropped_frames, stat_dropped_points, stat_lost,
        stat_refused_scans, stat_refused_points;

    /* consumer private */
    uint64_t peeked;
    int32_t has_peeked;

    /* producer private */
    int32_t open;         /* 1: slot prod_head holds the open frame */
    uint64_t prod_head;   /* frames closed (published or pending) */
    uint64_t write_point; /* next point slot, monotonic */
    /* transaction */
    int32_t tx_open;
    int32_t tx_overflow;
    uint64_t tx_prod_head, tx_write_point, tx_would_write, tx_lost;
    uint64_t tx_dropped_frames, tx_dropped_points; /* frames of this transaction dropped */
    sensim_frame_header tx_open_header;

    /* image rings (img_blocks > 0): every frame is one set of camera images
     * taking img_blocks 32-byte records; the point capacity is a whole
     * number of frames, so an image never wraps */
    uint32_t img_width, img_height, img_outputs;
    uint64_t img_blocks;          /* 32-byte blocks a frame's payload takes (images or a nav sample) */
    int32_t kind;                 /* SENSIM__RING_POINTS, _IMAGES, _NAV */
    uint64_t img_offset[5]; /* byte offset of each plane in a frame: depth, semantic, instance, normal, rgb */
};

static sensim_frame_header *hdr(sensim_ring *r, uint64_t i)
{
    return (sensim_frame_header *)((char *)r + r->headers_offset) + (i % r->frame_capacity);
}

static sensim_point *pts(sensim_ring *r)
{
    return (sensim_point *)((char *)r + r->points_offset);
}

static uint64_t align64(uint64_t v)
{
    return (v + 63) & ~UINT64_C(63);
}

sensim_status sensim_ring_required_size(uint64_t point_capacity, uint32_t frame_capacity, size_t *out_size)
{
    if (!out_size)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_required_size: out_size is NULL");
    if (point_capacity == 0 || point_capacity > MAX_POINTS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "point_capacity = %llu outside 1..2^40",
                            (unsigned long long)point_capacity);
    if (frame_capacity == 0 || frame_capacity > MAX_FRAMES)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "frame_capacity = %u outside 1..2^24", frame_capacity);
    uint64_t size = align64(sizeof(struct sensim_ring)) +
                    align64((uint64_t)frame_capacity * sizeof(sensim_frame_header)) +
                    point_capacity * sizeof(sensim_point);
    if (size > SIZE_MAX)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "ring of %llu points does not fit in memory",
                            (unsigned long long)point_capacity);
    *out_size = (size_t)size;
    return SENSIM_OK;
}

sensim_status sensim_ring_init(void *mem, size_t size, uint64_t point_capacity, uint32_t frame_capacity,
                               int32_t policy, sensim_ring **out_ring)
{
    if (!mem || !out_ring)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_init: NULL argument");
    if ((uintptr_t)mem % 8 != 0)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_init: memory not 8-byte aligned");
    if (policy != SENSIM_OVERFLOW_FAIL && policy != SENSIM_OVERFLOW_DROP_OLDEST)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_init: overflow policy %d unknown", policy);
    size_t need;
    sensim_status st = sensim_ring_required_size(point_capacity, frame_capacity, &need);
    if (st != SENSIM_OK)
        return st;
    if (size < need)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_ring_init: %zu bytes given, %zu needed", size, need);
    struct sensim_ring *r = mem;
    memset(r, 0, sizeof *r);
    r->point_capacity = point_capacity;
    r->frame_capacity = frame_capacity;
    r->policy = policy;
    r->headers_offset = align64(sizeof *r);
    r->points_offset = r->headers_offset + align64((uint64_t)frame_capacity * sizeof(sensim_frame_header));
    atomic_init(&r->frame_tail, 0);
    atomic_init(&r->frame_head, 0);
    /* pre-touch: one write a page, so the first scan's stores do not fault */
    volatile unsigned char *bytes = mem;
    for (size_t off = sizeof *r; off < need; off += 4096)
        bytes[off] = 0;
    r->magic = RING_MAGIC;
    *out_ring = r;
    return SENSIM_OK;
}

sensim_status sensim__ring_check(const sensim_ring *ring)
{
    if (!ring)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "ring is NULL");
    if (ring->magic != RING_MAGIC)
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "ring memory was not initialised by sensim_ring_init");
    return SENSIM_OK;
}

sensim_status sensim__sink_bind(const sensim_ring **bound, const sensim_ring *ring, const char *fn,
                                const char *what)
{
    if (!*bound)
        *bound = ring;
    if (*bound == ring)
        return SENSIM_OK;
    return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: this sink writes another ring's frames (%s); one sink "
                        "per sensor: give this ring a sink of its own", fn, what);
}

/* ---------------- producer ---------------- */

static uint64_t tail_point(sensim_ring *r)
{
    uint64_t tail = atomic_load(&r->frame_tail);
    if (tail < r->prod_head)
        return hdr(r, tail)->first_point;
    if (r->open)
        return hdr(r, r->prod_head)->first_point;
    return r->write_point;
}

/* Drop the oldest closed frame (DROP_OLDEST). False if there is none. */
static bool drop_oldest(sensim_ring *r)
{
    uint64_t tail = atomic_load(&r->frame_tail);
    while (tail < r->prod_head) {
        uint64_t n = hdr(r, tail)->point_count;
        if (atomic_compare_exchange_strong(&r->frame_tail, &tail, tail + 1)) {
            atomic_fetch_add(&r->stat_dropped_frames, 1);
            atomic_fetch_add(&r->stat_dropped_points, n);
            if (tail >= r->tx_prod_head) { /* a frame of the running transaction */
                r->tx_dropped_frames++;
                r->tx_dropped_points += n;
            }
            return true;
        }
        /* the consumer released it meanwhile: tail was reloaded, try again */
    }
    return false;
}

void sensim__ring_tx_begin(sensim_ring *r)
{
    r->tx_open = r->open;
    r->tx_overflow = 0;
    r->tx_prod_head = r->prod_head;
    r->tx_write_point = r->write_point;
    r->tx_would_write = 0;
    r->tx_lost = 0;
    r->tx_dropped_frames = r->tx_dropped_points = 0;
    if (r->open)
        r->tx_open_header = *hdr(r, r->prod_head);
}

bool sensim__ring_tx_failed(const sensim_ring *r)
{
    return r->tx_overflow != 0;
}

void sensim__ring_tx_abort(sensim_ring *r)
{
    /* Frames of this transaction that DROP_OLDEST dropped never existed for
     * the consumer (frame_head was not advanced): take them off the tail and
     * out of the counters. Older frames it dropped stay dropped. */
    uint64_t tail = atomic_load(&r->frame_tail);
    if (tail > r->tx_prod_head) {
        atomic_store(&r->frame_tail, r->tx_prod_head);
        atomic_fetch_sub(&r->stat_dropped_frames, r->tx_dropped_frames);
        atomic_fetch_sub(&r->stat_dropped_points, r->tx_dropped_points);
    }
    atomic_fetch_sub(&r->stat_lost, r->tx_lost);
    r->prod_head = r->tx_prod_head;
    r->write_point = r->tx_write_point;
    r->open = r->tx_open;
    if (r->open)
        *hdr(r, r->prod_head) = r->tx_open_header;
}

sensim_status sensim__ring_tx_end(sensim_ring *r, uint64_t *out_written, uint64_t *out_lost)
{
    *out_lost = r->tx_lost;
    *out_written = r->tx_overflow ? 0 : r->tx_would_write;
    if (r->tx_overflow) {
        /* FAIL policy: undo everything this scan did. */
        r->prod_head = r->tx_prod_head;
        r->write_point = r->tx_write_point;
        r->open = r->tx_open;
        if (r->open)
            *hdr(r, r->prod_head) = r->tx_open_header;
        atomic_fetch_add(&r->stat_refused_scans, 1);
        atomic_fetch_add(&r->stat_refused_points, r->tx_would_write);
        return sensim__fail(SENSIM_ERR_RING_FULL,
                            "ring full: the scan needs room for at least %llu more points or frames than free; "
                            "nothing was written (policy FAIL); read frames and retry",
                            (unsigned long long)r->tx_would_write);
    }
    uint64_t published = r->prod_head - atomic_load(&r->frame_head);
    atomic_fetch_add(&r->stat_written, published);
    atomic_store_explicit(&r->frame_head, r->prod_head, memory_order_release);
    return SENSIM_OK;
}

void sensim__ring_close_frame(sensim_ring *r)
{
    if (!r->open)
        return;
    sensim_frame_header *h = hdr(r, r->prod_head);
    if (h->scanned_ns != h->t_end_ns - h->t_begin_ns)
        h->flags |= SENSIM_FRAME_PARTIAL;
    r->open = 0;
    r->prod_head++;
}

void sensim__ring_open_frame(sensim_ring *r, uint64_t number, int64_t t_begin_ns, int64_t t_end_ns,
                             const double pose[16], uint32_t lidar_id, uint64_t world_step)
{
    if (r->open) {
        sensim_frame_header *h = hdr(r, r->prod_head);
        if (h->frame_number == number && h->lidar_id == lidar_id)
            return;
        sensim__ring_close_frame(r); /* a different frame: the old one ends incomplete */
    }
    if (r->tx_overflow)
        return;
    while (r->prod_head - atomic_load(&r->frame_tail) >= r->frame_capacity) {
        if (r->policy == SENSIM_OVERFLOW_FAIL) {
            r->tx_overflow = 1;
            return;
        }
        if (!drop_oldest(r))
            return; /* cannot happen: a full header table holds closed frames */
    }
    sensim_frame_header *h = hdr(r, r->prod_head);
    memset(h, 0, sizeof *h);
    h->frame_number = number;
    h->t_begin_ns = t_begin_ns;
    h->t_end_ns = t_end_ns;
    h->first_point = r->write_point;
    memcpy(h->sensor_pose, pose, sizeof h->sensor_pose);
    h->lidar_id = lidar_id;
    h->world_step_first = h->world_step_last = world_step;
    r->open = 1;
}

void sensim__ring_add_scanned(sensim_ring *r, int64_t ns, uint64_t world_step)
{
    if (r->open) {
        hdr(r, r->prod_head)->scanned_ns += ns;
        hdr(r, r->prod_head)->world_step_last = world_step;
    }
}

const double *sensim__ring_open_pose(const sensim_ring *cr)
{
    sensim_ring *r = (sensim_ring *)cr;
    return r->open ? hdr(r, r->prod_head)->sensor_pose : NULL;
}

void sensim__ring_push(sensim_ring *r, const sensim_point *pt)
{
    if (r->tx_overflow || !r->open) {
        r->tx_would_write++;
        return;
    }
    while (r->write_point - tail_point(r) >= r->point_capacity) {
        if (r->policy == SENSIM_OVERFLOW_FAIL) {
            r->tx_overflow = 1;
            r->tx_would_write++;
            return;
        }
        if (!drop_oldest(r)) {
            /* the open frame alone fills the ring: this point is lost, counted */
            hdr(r, r->prod_head)->lost_points++;
            atomic_fetch_add(&r->stat_lost, 1);
            r->tx_lost++;
            return;
        }
    }
    pts(r)[r->write_point % r->point_capacity] = *pt;
    r->write_point++;
    r->tx_would_write++;
    hdr(r, r->prod_head)->point_count++;
}

uint64_t sensim__ring_reserve(sensim_ring *r, uint64_t n, sensim_point **span0, uint64_t *n0, sensim_point **span1)
{
    *span0 = *span1 = NULL;
    *n0 = 0;
    if (n == 0)
        return 0;
    if (r->tx_overflow || !r->open) {
        r->tx_would_write += n;
        return 0;
    }
    uint64_t fit = n;
    while (r->write_point + fit - tail_point(r) > r->point_capacity) {
        if (r->policy == SENSIM_OVERFLOW_FAIL) {
            r->tx_overflow = 1;
            r->tx_would_write += n;
            return 0;
        }
        if (!drop_oldest(r)) {
            /* the open frame alone fills the ring: keep what fits, count the rest */
            uint64_t room = r->point_capacity - (r->write_point - tail_point(r));
            uint64_t lost = fit - room;
            hdr(r, r->prod_head)->lost_points += lost;
            atomic_fetch_add(&r->stat_lost, lost);
            r->tx_lost += lost;
            fit = room;
            break;
        }
    }
    uint64_t start = r->write_point % r->point_capacity;
    uint64_t first = fit < r->point_capacity - start ? fit : r->point_capacity - start;
    *span0 = pts(r) + start;
    *n0 = first;
    *span1 = pts(r);
    r->write_point += fit;
    r->tx_would_write += fit;
    hdr(r, r->prod_head)->point_count += fit;
    return fit;
}

/* ---------------- consumer ---------------- */

/* The points of frame @p h: one span, or two where it wraps around the ring's end. */
static void view_of(sensim_ring *r, const sensim_frame_header *h, sensim_frame_view *out)
{
    uint64_t start = h->first_point % r->point_capacity, n = h->point_count;
    uint64_t first = n < r->point_capacity - start ? n : r->point_capacity - start;
    out->header = h;
    out->points[0] = pts(r) + start;
    out->counts[0] = first;
    out->points[1] = pts(r);
    out->counts[1] = n - first;
}

sensim_status sensim_ring_peek(sensim_ring *r, sensim_frame_view *out)
{
    sensim_status st = sensim__ring_check(r);
    if (st != SENSIM_OK)
        return st;
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_peek: out_view is NULL");
    if (r->kind != SENSIM__RING_POINTS)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_peek: this ring holds %s; read it with %s",
                            r->kind == SENSIM__RING_IMAGES ? "camera images" : "navigation samples",
                            r->kind == SENSIM__RING_IMAGES ? "sensim_ring_peek_image" : "sensim_ring_peek_nav");
    uint64_t head = atomic_load_explicit(&r->frame_head, memory_order_acquire);
    uint64_t tail = atomic_load(&r->frame_tail);
    if (tail >= head)
        return SENSIM_ERR_RING_EMPTY;
    view_of(r, hdr(r, tail), out);
    r->peeked = tail;
    r->has_peeked = 1;
    return SENSIM_OK;
}

sensim_status sensim_ring_peek_open(sensim_ring *r, sensim_frame_view *out)
{
    sensim_status st = sensim__ring_check(r);
    if (st != SENSIM_OK)
        return st;
    if (!out || r->kind != SENSIM__RING_POINTS)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_peek_open: %s",
                            out ? "not a point ring" : "out_view is NULL");
    if (!r->open)
        return SENSIM_ERR_RING_EMPTY;
    view_of(r, hdr(r, r->prod_head), out);
    return SENSIM_OK;
}

sensim_status sensim_ring_release(sensim_ring *r)
{
    sensim_status st = sensim__ring_check(r);
    if (st != SENSIM_OK)
        return st;
    uint64_t expect;
    if (r->has_peeked) {
        expect = r->peeked;
    } else {
        expect = atomic_load(&r->frame_tail);
    }
    r->has_peeked = 0;
    if (expect >= atomic_load_explicit(&r->frame_head, memory_order_acquire))
        return SENSIM_ERR_RING_EMPTY;
    uint64_t want = expect;
    if (!atomic_compare_exchange_strong(&r->frame_tail, &want, expect + 1))
        return sensim__fail(SENSIM_ERR_OVERRUN, "frame %llu was dropped by the producer while being read",
                            (unsigned long long)expect);
    return SENSIM_OK;
}

sensim_status sensim_ring_pop(sensim_ring *r, sensim_frame_header *out_header, sensim_point *dst,
                              uint64_t cap, uint64_t *out_count)
{
    sensim_frame_view v;
    sensim_status st = sensim_ring_peek(r, &v);
    if (st != SENSIM_OK)
        return st;
    uint64_t n = v.counts[0] + v.counts[1];
    if (out_count)
        *out_count = n;
    if (out_header)
        *out_header = *v.header;
    if (!dst) {
        r->has_peeked = 0;
        return SENSIM_OK;
    }
    if (cap < n) {
        r->has_peeked = 0;
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_ring_pop: frame has %llu points, dst holds %llu",
                            (unsigned long long)n, (unsigned long long)cap);
    }
    memcpy(dst, v.points[0], v.counts[0] * sizeof *dst);
    memcpy(dst + v.counts[0], v.points[1], v.counts[1] * sizeof *dst);
    return sensim_ring_release(r);
}

sensim_status sensim_ring_get_stats(const sensim_ring *cr, sensim_ring_stats *out)
{
    sensim_status st = sensim__ring_check(cr);
    if (st != SENSIM_OK)
        return st;
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_get_stats: out_stats is NULL");
    sensim_ring *r = (sensim_ring *)cr;
    memset(out, 0, sizeof *out);
    out->frames_written = atomic_load(&r->stat_written);
    out->frames_dropped = atomic_load(&r->stat_dropped_frames);
    out->points_dropped = atomic_load(&r->stat_dropped_points);
    out->points_lost = atomic_load(&r->stat_lost);
    out->scans_refused = atomic_load(&r->stat_refused_scans);
    out->points_refused = atomic_load(&r->stat_refused_points);
    if (r->img_blocks) { /* image and nav rings count frames' payloads, not 32-byte blocks */
        out->points_dropped /= r->img_blocks;
        out->points_lost /= r->img_blocks;
        out->points_refused /= r->img_blocks;
    }
    uint64_t head = atomic_load(&r->frame_head), tail = atomic_load(&r->frame_tail);
    out->frames_ready = head > tail ? head - tail : 0;
    return SENSIM_OK;
}

/* ---------------- image rings ---------------- */

#define IMG_PLANES 5
static const uint32_t plane_bit[IMG_PLANES] = {SENSIM_CAMERA_DEPTH, SENSIM_CAMERA_SEMANTIC, SENSIM_CAMERA_INSTANCE,
                                               SENSIM_CAMERA_NORMAL, SENSIM_CAMERA_RGB};
static const uint32_t plane_bytes[IMG_PLANES] = {4, 1, 4, 12, 3}; /* per pixel */
#define ALL_OUTPUTS (SENSIM_CAMERA_DEPTH | SENSIM_CAMERA_SEMANTIC | SENSIM_CAMERA_INSTANCE | SENSIM_CAMERA_NORMAL | \
                     SENSIM_CAMERA_RGB)

/* Planes of one frame, each 64-byte aligned; the frame size in 32-byte blocks. */
static sensim_status image_layout(const char *fn, uint32_t w, uint32_t h, uint32_t outputs, uint64_t off[IMG_PLANES],
                                  uint64_t *blocks)
{
    if (w < 1 || w > 16384 || h < 1 || h > 16384)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: image %u x %u outside 1..16384 pixels a side", fn, w, h);
    if (outputs == 0 || (outputs & ~(uint32_t)ALL_OUTPUTS))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: outputs 0x%x must be a non-empty set of "
                                                         "SENSIM_CAMERA_* bits", fn, outputs);
    uint64_t at = 0;
    for (int i = 0; i < IMG_PLANES; i++) {
        off[i] = UINT64_MAX;
        if (!(outputs & plane_bit[i]))
            continue;
        off[i] = at;
        at = align64(at + (uint64_t)w * h * plane_bytes[i]);
    }
    *blocks = at / sizeof(sensim_point);
    return SENSIM_OK;
}

sensim_status sensim_image_ring_required_size(uint32_t w, uint32_t h, uint32_t outputs, uint32_t frame_capacity,
                                              size_t *out_size)
{
    uint64_t off[IMG_PLANES], blocks;
    if (!out_size)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_ring_required_size: out_size is NULL");
    sensim_status st = image_layout("sensim_image_ring_required_size", w, h, outputs, off, &blocks);
    if (st != SENSIM_OK)
        return st;
    if (frame_capacity == 0 || frame_capacity > MAX_FRAMES || blocks * frame_capacity > MAX_POINTS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_image_ring_required_size: %u frames of %llu bytes: "
                                                     "frame_capacity outside 1..2^24 or more than 32 TiB",
                            frame_capacity, (unsigned long long)(blocks * sizeof(sensim_point)));
    return sensim_ring_required_size(blocks * frame_capacity, frame_capacity, out_size);
}

sensim_status sensim_image_ring_init(void *mem, size_t size, uint32_t w, uint32_t h, uint32_t outputs,
                                     uint32_t frame_capacity, int32_t policy, sensim_ring **out_ring)
{
    uint64_t off[IMG_PLANES], blocks;
    size_t need;
    if (!mem || !out_ring)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_image_ring_init: NULL argument");
    sensim_status st = sensim_image_ring_required_size(w, h, outputs, frame_capacity, &need);
    if (st != SENSIM_OK)
        return st;
    image_layout("sensim_image_ring_init", w, h, outputs, off, &blocks);
    if ((st = sensim_ring_init(mem, size, blocks * frame_capacity, frame_capacity, policy, out_ring)) != SENSIM_OK)
        return st;
    struct sensim_ring *r = *out_ring;
    r->img_width = w;
    r->img_height = h;
    r->img_outputs = outputs;
    r->img_blocks = blocks;
    r->kind = SENSIM__RING_IMAGES;
    memcpy(r->img_offset, off, sizeof off);
    return SENSIM_OK;
}

#define NAV_BLOCKS ((sizeof(sensim_nav_sample) + sizeof(sensim_point) - 1) / sizeof(sensim_point))

sensim_status sensim_nav_ring_required_size(uint32_t frame_capacity, size_t *out_size)
{
    if (!out_size)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_nav_ring_required_size: out_size is NULL");
    if (frame_capacity == 0 || frame_capacity > MAX_FRAMES)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_nav_ring_required_size: frame_capacity = %u outside "
                                                     "1..2^24", frame_capacity);
    return sensim_ring_required_size(NAV_BLOCKS * frame_capacity, frame_capacity, out_size);
}

sensim_status sensim_nav_ring_init(void *mem, size_t size, uint32_t frame_capacity, int32_t policy,
                                   sensim_ring **out_ring)
{
    size_t need;
    if (!mem || !out_ring)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_nav_ring_init: NULL argument");
    sensim_status st = sensim_nav_ring_required_size(frame_capacity, &need);
    if (st != SENSIM_OK ||
        (st = sensim_ring_init(mem, size, NAV_BLOCKS * frame_capacity, frame_capacity, policy, out_ring)) != SENSIM_OK)
        return st;
    (*out_ring)->img_blocks = NAV_BLOCKS;
    (*out_ring)->kind = SENSIM__RING_NAV;
    return SENSIM_OK;
}

int32_t sensim__ring_kind(const sensim_ring *ring)
{
    return ring->kind;
}

uint32_t sensim__ring_frame_capacity(const sensim_ring *ring)
{
    return ring->frame_capacity;
}

void *sensim__ring_payload_reserve(sensim_ring *r)
{
    sensim_point *s0, *s1;
    uint64_t n0;
    if (sensim__ring_reserve(r, r->img_blocks, &s0, &n0, &s1) != r->img_blocks)
        return NULL; /* FAIL and full: the transaction is refused */
    return s0;      /* frames are whole multiples of the capacity's unit: never wrapped */
}

sensim_status sensim_ring_peek_nav(sensim_ring *r, const sensim_frame_header **out_header,
                                   const sensim_nav_sample **out_sample)
{
    sensim_status st = sensim__ring_check(r);
    if (st != SENSIM_OK)
        return st;
    if (!out_header || !out_sample)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_peek_nav: NULL argument");
    if (r->kind != SENSIM__RING_NAV)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_peek_nav: not a navigation ring");
    uint64_t head = atomic_load_explicit(&r->frame_head, memory_order_acquire);
    uint64_t tail = atomic_load(&r->frame_tail);
    if (tail >= head)
        return SENSIM_ERR_RING_EMPTY;
    const sensim_frame_header *h = hdr(r, tail);
    *out_header = h;
    *out_sample = (const sensim_nav_sample *)(pts(r) + h->first_point % r->point_capacity);
    r->peeked = tail;
    r->has_peeked = 1;
    return SENSIM_OK;
}

void sensim__ring_image_format(const sensim_ring *ring, uint32_t *w, uint32_t *h, uint32_t *outputs)
{
    *w = ring->img_width;
    *h = ring->img_height;
    *outputs = ring->img_outputs;
}

static void image_planes(const sensim_ring *r, char *base, sensim_camera_images *im)
{
    memset(im, 0, sizeof *im);
    im->depth = r->img_offset[0] != UINT64_MAX ? (float *)(base + r->img_offset[0]) : NULL;
    im->semantic = r->img_offset[1] != UINT64_MAX ? (uint8_t *)(base + r->img_offset[1]) : NULL;
    im->instance = r->img_offset[2] != UINT64_MAX ? (uint32_t *)(base + r->img_offset[2]) : NULL;
    im->normal = r->img_offset[3] != UINT64_MAX ? (float *)(base + r->img_offset[3]) : NULL;
    im->rgb = r->img_offset[4] != UINT64_MAX ? (uint8_t *)(base + r->img_offset[4]) : NULL;
}

bool sensim__ring_image_reserve(sensim_ring *r, sensim_camera_images *im)
{
    void *p = sensim__ring_payload_reserve(r);
    if (!p)
        return false;
    image_planes(r, p, im);
    return true;
}

sensim_status sensim_ring_peek_image(sensim_ring *r, sensim_image_view *out)
{
    sensim_status st = sensim__ring_check(r);
    if (st != SENSIM_OK)
        return st;
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_peek_image: out_view is NULL");
    if (r->kind != SENSIM__RING_IMAGES)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ring_peek_image: not an image ring");
    uint64_t head = atomic_load_explicit(&r->frame_head, memory_order_acquire);
    uint64_t tail = atomic_load(&r->frame_tail);
    if (tail >= head)
        return SENSIM_ERR_RING_EMPTY;
    const sensim_frame_header *h = hdr(r, tail);
    sensim_camera_images im;
    image_planes(r, (char *)(pts(r) + h->first_point % r->point_capacity), &im);
    memset(out, 0, sizeof *out);
    out->header = h;
    out->width = r->img_width;
    out->height = r->img_height;
    out->outputs = r->img_outputs;
    out->depth = im.depth;
    out->semantic = im.semantic;
    out->instance = im.instance;
    out->normal = im.normal;
    out->rgb = im.rgb;
    r->peeked = tail;
    r->has_peeked = 1;
    return SENSIM_OK;
}

static const sensim_field point_fields[] = {
    {"x", 0, SENSIM_FIELD_FLOAT32, 1},
    {"y", 4, SENSIM_FIELD_FLOAT32, 1},
    {"z", 8, SENSIM_FIELD_FLOAT32, 1},
    {"intensity", 12, SENSIM_FIELD_FLOAT32, 1},
    {"range", 16, SENSIM_FIELD_FLOAT32, 1},
    {"t_offset_ns", 20, SENSIM_FIELD_UINT32, 1},
    {"object_id", 24, SENSIM_FIELD_UINT32, 1},
    {"channel", 28, SENSIM_FIELD_UINT16, 1},
    {"tag", 30, SENSIM_FIELD_UINT8, 1},
    {"flags", 31, SENSIM_FIELD_UINT8, 1},
};

_Static_assert(sizeof(sensim_point) == 32, "point record must be 32 bytes");
_Static_assert(offsetof(sensim_point, flags) == 31, "point record layout");

const sensim_field *sensim_point_fields(uint32_t *out_count)
{
    if (out_count)
        *out_count = (uint32_t)(sizeof point_fields / sizeof point_fields[0]);
    return point_fields;
}
