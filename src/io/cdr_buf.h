/* A growable little-endian byte buffer and the CDR (XCDR1 LE) encoding on
 * it: the encoders (mcap_msgs.c) build each message here, the transports
 * (mcap.c's file, ros2_dds.c's DDS) carry the bytes. */
#ifndef SENSIM_CDR_BUF_H
#define SENSIM_CDR_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

#endif
