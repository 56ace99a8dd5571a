/* The command's MCAP reader: records in file order, chunks decompressed. */
#include "mcap_walk.h"
#include "cli.h"

#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

static int walk_fail(const char *fmt, const char *path, const char *what)
{
    fprintf(stderr, "sensim: error: ");
    fprintf(stderr, fmt, path, what);
    fprintf(stderr, "\n");
    return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
}

static uint64_t le(const uint8_t *p, int k)
{
    uint64_t v = 0;
    for (int i = k - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* A chunk's records, decompressed when the chunk says so. Budgets: a chunk
 * declares at most MCAP_CHUNK_MAX bytes (sensim writes 1 MiB chunks, a
 * larger message alone: a 2.3 M-point cloud is 74 MB), and a whole walk
 * decompresses at most max(4 GiB, 64 x the file): an MCAP of 66 KB chunks
 * each claiming 2^31 bytes of zeros is refused in well under a second
 * instead of taking 2.1 GB and a minute a chunk. */
static int walk(mcap_walker *w, const uint8_t *p, size_t n, int depth);

static int chunk(mcap_walker *w, const uint8_t *c, size_t len)
{
    cdr r = {c, len, 0, 0};
    cdr_le(&r, 8), cdr_le(&r, 8); /* message start and end times */
    uint64_t usize = cdr_le(&r, 8);
    cdr_le(&r, 4); /* crc */
    uint64_t cl = cdr_le(&r, 4);
    char comp[16] = "";
    if (!r.bad && cl < 16 && cl <= len - r.at)
        memcpy(comp, c + r.at, (size_t)cl), r.at += (size_t)cl;
    else
        r.bad = 1;
    uint64_t rl = cdr_le(&r, 8);
    if (r.bad || rl > len - r.at)
        return walk_fail("%s: a malformed chunk%s", w->path, "");
    if (comp[0] && usize > MCAP_CHUNK_MAX) {
        fprintf(stderr, "sensim: error: %s: a chunk declares %llu bytes uncompressed, above the %llu MiB budget of "
                        "one chunk\n", w->path, (unsigned long long)usize, (unsigned long long)(MCAP_CHUNK_MAX >> 20));
        return EXIT_STATUS_BASE + SENSIM_ERR_TOO_LARGE;
    }
    const uint64_t total = w->file_bytes * MCAP_RATIO_MAX > MCAP_TOTAL_MIN ? w->file_bytes * MCAP_RATIO_MAX
                                                                          : MCAP_TOTAL_MIN;
    if (comp[0] && usize > total - w->decompressed) {
        fprintf(stderr, "sensim: error: %s: its chunks decompress to more than %llu MiB, the budget of one file "
                        "(4 GiB, or %d x its %llu bytes if larger)\n",
                w->path, (unsigned long long)(total >> 20), MCAP_RATIO_MAX, (unsigned long long)w->file_bytes);
        return EXIT_STATUS_BASE + SENSIM_ERR_TOO_LARGE;
    }
    if (comp[0])
        w->decompressed += usize;
    if (w->on_chunk)
        w->on_chunk(w->user, comp, usize, rl);
    const uint8_t *data = c + r.at;
    uint8_t *buf = NULL;
    if (comp[0]) {
        buf = malloc(usize ? usize : 1);
        if (!buf)
            return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        size_t got = (size_t)-1;
        if (!strcmp(comp, "zstd")) {
            got = ZSTD_decompress(buf, usize, data, rl);
            if (ZSTD_isError(got) || got != usize)
                got = (size_t)-1;
        } else if (!strcmp(comp, "lz4")) {
            LZ4F_dctx *dc;
            size_t dst = usize, src = rl;
            if (!LZ4F_isError(LZ4F_createDecompressionContext(&dc, LZ4F_VERSION))) {
                size_t e = LZ4F_decompress(dc, buf, &dst, data, &src, NULL);
                got = LZ4F_isError(e) || e != 0 || dst != usize ? (size_t)-1 : dst;
                LZ4F_freeDecompressionContext(dc);
            }
        }
        if (got == (size_t)-1) {
            free(buf);
            return walk_fail("%s: a chunk's '%s' compression cannot be undone", w->path, comp);
        }
        data = buf, rl = usize;
    }
    int e = walk(w, data, (size_t)rl, 1);
    free(buf);
    return e;
}

static int walk(mcap_walker *w, const uint8_t *p, size_t n, int depth)
{
    size_t at = 0;
    while (at + 9 <= n) {
        uint8_t op = p[at];
        uint64_t len = le(p + at + 1, 8);
        if (len > n - at - 9)
            return walk_fail("%s: a record runs past the end of the %s", w->path, depth ? "chunk" : "file");
        const uint8_t *c = p + at + 9;
        int e = 0;
        if (op == 0x06 && depth == 0)
            e = chunk(w, c, (size_t)len);
        else if (op == 0x0F && depth == 0)
            break; /* data end: the summary repeats what was read */
        else
            e = w->on_record(w->user, op, c, (size_t)len);
        if (e)
            return e;
        at += 9 + (size_t)len;
    }
    return 0;
}

int mcap_walk_file(mcap_walker *w)
{
    FILE *f;
    int rc = open_regular_file(w->path, &f);
    if (rc)
        return rc;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = size > 16 ? malloc((size_t)size) : NULL;
    if (!data || fread(data, 1, (size_t)size, f) != (size_t)size) {
        free(data);
        fclose(f);
        return size > 16 ? EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY : walk_fail("%s: too short for MCAP%s", w->path, "");
    }
    fclose(f);
    w->file_bytes = (uint64_t)size, w->decompressed = 0;
    static const uint8_t magic[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};
    rc = memcmp(data, magic, 8) ? walk_fail("%s: no MCAP magic%s", w->path, "") : walk(w, data + 8, (size_t)size - 8, 0);
    free(data);
    return rc;
}

uint64_t cdr_le(cdr *r, int k)
{
    if (r->bad || r->at + (size_t)k > r->n) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = le(r->p + r->at, k);
    r->at += (size_t)k;
    return v;
}

uint64_t cdr_u(cdr *r, int k)
{
    size_t off = r->at - 4; /* CDR aligns from the byte after the 4-byte encapsulation header */
    r->at += ((size_t)k - off % (size_t)k) % (size_t)k;
    return cdr_le(r, k);
}

double cdr_f64(cdr *r)
{
    uint64_t u = cdr_u(r, 8);
    double d;
    memcpy(&d, &u, 8);
    return d;
}

void cdr_str(cdr *r, char *out, size_t cap)
{
    uint64_t len = cdr_u(r, 4);
    if (r->bad || len > r->n - r->at) {
        r->bad = 1;
        out[0] = 0;
        return;
    }
    size_t k = len && len - 1 < cap - 1 ? (size_t)len - 1 : (len ? cap - 1 : 0);
    memcpy(out, r->p + r->at, k);
    out[k] = 0;
    r->at += (size_t)len;
}
