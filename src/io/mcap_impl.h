/* The MCAP writer's inside, shared by mcap.c (the container) and mcap_msgs.c
 * (the CDR encoding of each ROS 2 message). */
#ifndef SENSIM_MCAP_IMPL_H
#define SENSIM_MCAP_IMPL_H

#include "internal.h"
#include "ros2_msgdefs.h"

#include <sensim/mcap.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENSIM_MAGIC_MCAP 0x4D534E53u /* "SNSM" */
#define MAX_TOPICS 1024
#define MAX_NAME 255

/* ---- growable little-endian byte buffer ---- */
typedef struct buf {
    uint8_t *p;
    size_t n, cap;
    int oom;
} buf;

static inline int b_reserve(buf *b, size_t more)
{
    if (b->oom)
        return 0;
    if (more > SIZE_MAX / 2 - b->n) {
        b->oom = 1;
        return 0;
    }
    if (b->n + more <= b->cap)
        return 1;
    size_t c = b->cap ? b->cap : 4096;
    while (c < b->n + more)
        c *= 2;
    uint8_t *q = realloc(b->p, c);
    if (!q) {
        b->oom = 1;
        return 0;
    }
    b->p = q, b->cap = c;
    return 1;
}

static inline void b_put(buf *b, const void *d, size_t n)
{
    if (n && b_reserve(b, n)) {
        memcpy(b->p + b->n, d, n);
        b->n += n;
    }
}

static inline void b_u8(buf *b, uint8_t v) { b_put(b, &v, 1); }
static inline void b_u16(buf *b, uint16_t v) { uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)}; b_put(b, x, 2); }
static inline void b_u32(buf *b, uint32_t v)
{
    uint8_t x[4];
    for (int i = 0; i < 4; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    b_put(b, x, 4);
}
static inline void b_u64(buf *b, uint64_t v)
{
    uint8_t x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (uint8_t)(v >> (8 * i));
    b_put(b, x, 8);
}
/* MCAP String: uint32 byte length + bytes, no NUL */
static inline void b_str(buf *b, const char *s)
{
    size_t n = strlen(s);
    b_u32(b, (uint32_t)n);
    b_put(b, s, n);
}
/* a record: opcode, u64 content length patched in by rec_end */
static inline size_t rec_begin(buf *b, uint8_t op)
{
    b_u8(b, op);
    size_t at = b->n;
    b_u64(b, 0);
    return at;
}
static inline void rec_end(buf *b, size_t at)
{
    if (b->oom)
        return;
    uint64_t len = b->n - at - 8;
    for (int i = 0; i < 8; i++)
        b->p[at + i] = (uint8_t)(len >> (8 * i));
}

/* ---- CDR (XCDR1 LE): alignment from the byte after the 4-byte header ---- */
static inline void c_align(buf *b, size_t a)
{
    static const uint8_t z[8] = {0};
    size_t pad = (a - (b->n - 4) % a) % a;
    b_put(b, z, pad);
}
static inline void c_u8(buf *b, uint8_t v) { b_u8(b, v); }
static inline void c_u16(buf *b, uint16_t v) { c_align(b, 2); b_u16(b, v); }
static inline void c_u32(buf *b, uint32_t v) { c_align(b, 4); b_u32(b, v); }
static inline void c_f64(buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    c_align(b, 8);
    b_u64(b, u);
}
static inline void c_f64s(buf *b, const double *v, int n)
{
    for (int i = 0; i < n; i++)
        c_f64(b, v[i]);
}
/* CDR string: uint32 length including the NUL, bytes, NUL */
static inline void c_str(buf *b, const char *s)
{
    size_t n = strlen(s);
    c_u32(b, (uint32_t)(n + 1));
    b_put(b, s, n + 1);
}
static inline void c_begin(buf *b)
{
    static const uint8_t enc[4] = {0x00, 0x01, 0x00, 0x00}; /* CDR_LE */
    b->n = 0;
    b->oom = 0;
    b_put(b, enc, 4);
}
static inline void c_time(buf *b, int64_t t)
{
    int64_t s = t >= 0 ? t / 1000000000 : -((-t + 999999999) / 1000000000);
    c_u32(b, (uint32_t)(int32_t)s);
    c_u32(b, (uint32_t)(t - s * 1000000000));
}
static inline void c_header(buf *b, int64_t stamp, const char *frame_id)
{
    c_time(b, stamp);
    c_str(b, frame_id);
}

/* ---- the writer ---- */
typedef struct sensim__dds sensim__dds; /* ros2_dds.c: a live writer's DDS participant and writers */

typedef struct topic {
    char name[MAX_NAME + 1];
    int32_t type;
    uint32_t sequence;
    uint64_t file_count;    /* messages in the current file */
    uint64_t *idx;          /* (log time, offset) pairs of the open chunk */
    size_t nidx, capidx;
    int in_file;            /* channel record written in the current file */
    uint16_t *ring_of;      /* sensim_mcap_set_ring_order: a channel's ring (rank by elevation), or NULL */
    uint32_t nring;
} topic;

struct sensim_mcap {
    _Atomic uint32_t magic;
    char prefix[4001];
    sensim_mcap_options o;
    topic *topics;
    uint32_t ntopics;
    /* current file */
    FILE *f;
    char path[4100], tmp[4200];
    uint32_t file_index;
    uint64_t off;           /* bytes in the current file */
    uint32_t crc;           /* CRC-32 of the data section so far */
    uint64_t file_msgs, file_chunks;
    int64_t file_start, file_end; /* earliest and latest log time in the file */
    int schema_in_file[SENSIM__ROS2_TYPES];
    buf chunk_idx;          /* Chunk Index records of the current file */
    /* open chunk */
    buf chunk;
    int64_t chunk_start, chunk_end;
    /* scratch */
    buf msg, rec, comp;
    /* totals */
    uint64_t messages, chunks, bytes;
    uint32_t files, done_files;
    sensim_status failed;
    sensim__dds *live;      /* sensim_ros2_open: messages are published, not stored */
    int64_t stamp_offset_ns; /* sensim_mcap_set_stamp_offset: added to header stamps and /clock */
};

/* The frame id argument of messages without a header. */
extern const char sensim__mcap_no_frame[];
#define NO_FRAME sensim__mcap_no_frame

/* Checks shared by every write: handle, topic of the right type, times, frame id. */
sensim_status sensim__mcap_check_write(sensim_mcap *m, uint16_t tp, int32_t type, int64_t log_ns, int64_t stamp,
                                       const char *frame_id, const char *fn);
/* A frame id: 1..255 bytes of letters, digits, '_', '/', '.', '-'. */
int sensim__mcap_valid_frame(const char *s);
/* 1 and *out = its handle when the writer has topic @p name of @p type. */
int sensim__mcap_find_topic(const sensim_mcap *m, const char *name, int32_t type, uint16_t *out);
/* sensim_mcap_set_ring_order from a mechanical lidar's beam table (other patterns: nothing). */
sensim_status sensim__mcap_ring_order_of(sensim_mcap *m, uint16_t tp, const sensim_lidar *lidar);
/* The serialized message in m->msg becomes a Message record of topic @p tp. */
sensim_status sensim__mcap_emit(sensim_mcap *m, uint16_t tp, int64_t log_ns);

/* Live writers (ros2_dds.c): topic @p i's DDS topic and writer; m->msg published on topic @p tp;
 * messages a reliable writer gave up on; the participant deleted. */
sensim_status sensim__dds_add_topic(sensim__dds *d, uint32_t i, const char *name, int32_t type);
sensim_status sensim__dds_publish(sensim_mcap *m, uint16_t tp);
uint64_t sensim__dds_dropped(const sensim__dds *d);
void sensim__dds_close(sensim__dds *d);

#endif
