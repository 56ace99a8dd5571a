/* The command's MCAP reader (sensim view, sensim bag): the records of a
 * bag, chunks decompressed (zstd, lz4) and walked in file order. Reads
 * hostile files: every length checked against what holds it. */
#ifndef SENSIM_MCAP_WALK_H
#define SENSIM_MCAP_WALK_H

#include <stddef.h>
#include <stdint.h>

#define MCAP_CHUNK_MAX ((uint64_t)512 << 20) /* one chunk's declared uncompressed bytes */
#define MCAP_TOTAL_MIN ((uint64_t)4 << 30)   /* a walk decompresses at most this, */
#define MCAP_RATIO_MAX 64                    /* or this many times the file's size when larger */

typedef struct mcap_walker {
    const char *path;
    void *user;
    /* Every record but chunks (and after the data end, nothing): op code, body. A non-zero return
     * stops the walk and is its result. */
    int (*on_record)(void *user, uint8_t op, const uint8_t *body, size_t len);
    /* Optional: each chunk's compression ("" none), its sizes. */
    void (*on_chunk)(void *user, const char *compression, uint64_t uncompressed, uint64_t compressed);
    uint64_t file_bytes;   /* set by mcap_walk_file */
    uint64_t decompressed; /* bytes the walk's chunks decompressed to so far */
} mcap_walker;

/* Walk the MCAP file w->path: 0, or an exit status after a one-line message naming the file
 * (not a regular file, no magic, a record past its end, a chunk that cannot be decompressed). */
int mcap_walk_file(mcap_walker *w);

/* A CDR cursor over one message body (after the 4-byte encapsulation header, alignment from it). */
typedef struct cdr {
    const uint8_t *p;
    size_t n, at;
    int bad;
} cdr;

uint64_t cdr_le(cdr *r, int bytes);                 /* little-endian, unaligned */
uint64_t cdr_u(cdr *r, int bytes);                  /* aligned to its size */
double cdr_f64(cdr *r);
void cdr_str(cdr *r, char *out, size_t cap);        /* uint32 length with its NUL, then bytes */

#endif
