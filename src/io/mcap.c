/* rosbag2-compatible MCAP writer: the container (records, chunks, indexes,
 * summary, splits) and the CDR encoding of the ROS 2 messages libsensim
 * writes. Byte layouts: MCAP spec (foxglove/mcap website/docs/spec), ROS 2
 * profile (registry.md), XCDR1 little endian with the 4-byte encapsulation
 * header and alignment counted from the byte after it. */
#include "internal.h"
#include "motion.h"
#include "mcap_impl.h"
#include "ros2_msgdefs.h"

#include <errno.h>
#include <lz4frame.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libdeflate.h> /* CRC-32 (PCLMUL where the CPU has it; the values of zlib's crc32) */
#include <zstd.h>


static const uint8_t MCAP_MAGIC[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

enum { OP_HEADER = 1, OP_FOOTER, OP_SCHEMA, OP_CHANNEL, OP_MESSAGE, OP_CHUNK, OP_MESSAGE_INDEX, OP_CHUNK_INDEX,
       OP_STATISTICS = 0x0B, OP_SUMMARY_OFFSET = 0x0E, OP_DATA_END = 0x0F };


void sensim_mcap_options_init(sensim_mcap_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->compression = SENSIM_MCAP_ZSTD;
    o->zstd_level = 3;
    o->chunk_bytes = 1u << 20;
}

static sensim_status fail_io(sensim_mcap *m, sensim_status st, const char *what)
{
    if (!m->failed)
        m->failed = st;
    if (st == SENSIM_ERR_OUT_OF_MEMORY)
        return sensim__fail(st, "%s: out of memory while writing %s", what, m->path);
    return sensim__fail(st, "%s: %s: write failed: %s", what, m->path, strerror(errno ? errno : EIO));
}

/* bytes into the file; with @p crc: counted in that CRC (the data section's) */
static int f_write(sensim_mcap *m, const void *d, size_t n, uint32_t *crc)
{
    if (n == 0)
        return 1;
    if (fwrite(d, 1, n, m->f) != n)
        return 0;
    if (crc)
        *crc = libdeflate_crc32(*crc, d, n);
    m->off += n;
    m->bytes += n;
    return 1;
}

static void qos_yaml(char *out, size_t cap, int32_t type)
{
    sensim__ros2_profile p = sensim__ros2_profile_of(type); /* what the live writer offers (ros2_dds.c) */
    static const char *const inf = "    sec: 9223372036\n    nsec: 854775807\n";
    snprintf(out, cap,
             "- history: 1\n  depth: %d\n  reliability: %d\n  durability: %d\n  deadline:\n%s  lifespan:\n%s"
             "  liveliness: 1\n  liveliness_lease_duration:\n%s  avoid_ros_namespace_conventions: false",
             p.depth, p.reliable ? 1 : 2 /* best_effort */, p.transient_local ? 1 : 2 /* volatile */, inf, inf, inf);
}

static void schema_record(buf *b, int32_t type)
{
    size_t at = rec_begin(b, OP_SCHEMA);
    b_u16(b, (uint16_t)(type + 1));
    b_str(b, sensim__ros2_type_names[type]);
    b_str(b, "ros2msg");
    b_str(b, sensim__ros2_msgdefs[type]);
    rec_end(b, at);
}

static void channel_record(buf *b, const topic *t, uint16_t id)
{
    char qos[600];
    qos_yaml(qos, sizeof qos, t->type);
    size_t at = rec_begin(b, OP_CHANNEL);
    b_u16(b, id);
    b_u16(b, (uint16_t)(t->type + 1));
    b_str(b, t->name);
    b_str(b, "cdr");
    /* rosbag2 (Jazzy) also writes the type's RIHS01 hash; Humble's reader ignores the key */
    const char *hash = sensim__ros2_type_hashes[t->type];
    size_t mlen = 4 + strlen("offered_qos_profiles") + 4 + strlen(qos) + 4 + strlen("topic_type_hash") + 4 +
                  strlen(hash);
    b_u32(b, (uint32_t)mlen);
    b_str(b, "offered_qos_profiles");
    b_str(b, qos);
    b_str(b, "topic_type_hash");
    b_str(b, hash);
    rec_end(b, at);
}

/* schema (once per file) and channel of topic @p i into the data section */
static int announce(sensim_mcap *m, uint32_t i)
{
    topic *t = &m->topics[i];
    m->rec.n = 0;
    m->rec.oom = 0;
    if (!m->schema_in_file[t->type]) {
        schema_record(&m->rec, t->type);
        m->schema_in_file[t->type] = 1;
    }
    channel_record(&m->rec, t, (uint16_t)(i + 1));
    t->in_file = 1;
    return !m->rec.oom && f_write(m, m->rec.p, m->rec.n, &m->crc);
}

static sensim_status open_file(sensim_mcap *m)
{
    snprintf(m->path, sizeof m->path, "%s_%u.mcap", m->prefix, m->file_index);
    m->f = sensim__create_tmp(m->path, m->tmp, sizeof m->tmp);
    if (!m->f) {
        m->failed = SENSIM_ERR_IO;
        return SENSIM_ERR_IO;
    }
    m->off = 0;
    m->crc = 0;
    m->file_msgs = m->file_chunks = 0;
    m->file_start = INT64_MAX, m->file_end = INT64_MIN;
    memset(m->schema_in_file, 0, sizeof m->schema_in_file);
    m->chunk_idx.n = 0;
    m->files++;
    buf *b = &m->rec;
    b->n = 0;
    b->oom = 0;
    b_put(b, MCAP_MAGIC, 8);
    size_t at = rec_begin(b, OP_HEADER);
    b_str(b, "ros2");
    char lib[64];
    snprintf(lib, sizeof lib, "libsensim %s", sensim_version_string());
    b_str(b, lib);
    rec_end(b, at);
    if (b->oom || !f_write(m, b->p, b->n, &m->crc))
        return fail_io(m, b->oom ? SENSIM_ERR_OUT_OF_MEMORY : SENSIM_ERR_IO, "sensim_mcap");
    for (uint32_t i = 0; i < m->ntopics; i++) {
        m->topics[i].in_file = 0;
        m->topics[i].file_count = 0;
        if (!announce(m, i))
            return fail_io(m, m->rec.oom ? SENSIM_ERR_OUT_OF_MEMORY : SENSIM_ERR_IO, "sensim_mcap");
    }
    return SENSIM_OK;
}

/* The open chunk's message index records (one per channel present, in channel order) into @p j->mi, each
 * one's channel and length into j->mi_ch; the topics' indexes start again. */
static int build_indexes(sensim_mcap *m, sensim__chunk_job *j)
{
    buf *mi = &j->mi, *ch = &j->mi_ch;
    mi->n = ch->n = 0;
    mi->oom = ch->oom = 0;
    for (uint32_t i = 0; i < m->ntopics; i++) {
        topic *t = &m->topics[i];
        if (!t->nidx)
            continue;
        size_t before = mi->n;
        size_t at = rec_begin(mi, OP_MESSAGE_INDEX);
        b_u16(mi, (uint16_t)(i + 1));
        b_u32(mi, (uint32_t)(t->nidx * 8));
        for (size_t k = 0; k < t->nidx; k++)
            b_u64(mi, t->idx[k]);
        rec_end(mi, at);
        t->nidx = 0;
        b_u16(ch, (uint16_t)(i + 1));
        b_u64(ch, mi->n - before);
    }
    return !mi->oom && !ch->oom;
}

/* Chunk @p j into the file: the Chunk record (compressed), the Message Index records, and its Chunk Index
 * record kept for the summary. Run by the chunk thread, or by the caller without compression. Touches only
 * the file's state and @p j; a failure is returned after sensim__fail (the caller fails the writer). */
static sensim_status write_job(sensim_mcap *m, const sensim__chunk_job *j)
{
    const buf *chunk = &j->chunk;
    const char *cname = "";
    const uint8_t *data = chunk->p;
    size_t dlen = chunk->n;
    m->comp.n = 0;
    m->comp.oom = 0;
    if (m->o.compression == SENSIM_MCAP_ZSTD) {
        size_t bound = ZSTD_compressBound(dlen);
        if (!b_reserve(&m->comp, bound))
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap: out of memory while writing %s", m->path);
        size_t r = ZSTD_compress(m->comp.p, bound, data, dlen, m->o.zstd_level);
        if (ZSTD_isError(r))
            return sensim__fail(SENSIM_ERR_IO, "%s: zstd: %s", m->path, ZSTD_getErrorName(r));
        data = m->comp.p, dlen = r, cname = "zstd";
    } else if (m->o.compression == SENSIM_MCAP_LZ4) {
        size_t bound = LZ4F_compressFrameBound(dlen, NULL);
        if (!b_reserve(&m->comp, bound))
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap: out of memory while writing %s", m->path);
        size_t r = LZ4F_compressFrame(m->comp.p, bound, data, dlen, NULL);
        if (LZ4F_isError(r))
            return sensim__fail(SENSIM_ERR_IO, "%s: lz4: %s", m->path, LZ4F_getErrorName(r));
        data = m->comp.p, dlen = r, cname = "lz4";
    }
    uint64_t chunk_start = m->off;
    buf *b = &m->cw_rec;
    b->n = 0;
    b->oom = 0;
    size_t at = rec_begin(b, OP_CHUNK);
    b_u64(b, (uint64_t)j->start);
    b_u64(b, (uint64_t)j->end);
    b_u64(b, chunk->n);
    b_u32(b, libdeflate_crc32(0, chunk->p, chunk->n));
    b_str(b, cname);
    b_u64(b, dlen);
    /* content length: the fields so far plus the records, patched by hand */
    uint64_t len = b->n - at - 8 + dlen;
    for (int i = 0; i < 8 && !b->oom; i++)
        b->p[at + i] = (uint8_t)(len >> (8 * i));
    errno = 0;
    if (b->oom)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap: out of memory while writing %s", m->path);
    if (!f_write(m, b->p, b->n, &m->crc) || !f_write(m, data, dlen, &m->crc))
        return sensim__fail(SENSIM_ERR_IO, "sensim_mcap: %s: write failed: %s", m->path, strerror(errno ? errno : EIO));
    uint64_t chunk_len = m->off - chunk_start;
    /* message indexes, one per channel present, in channel order: their offsets go into the chunk index */
    uint64_t mi_start = m->off;
    buf offs = {0};
    size_t pos = 0;
    for (size_t k = 0; k + 10 <= j->mi_ch.n; k += 10) {
        const uint8_t *e = j->mi_ch.p + k; /* little endian, as b_u16 and b_u64 wrote them */
        uint16_t id = (uint16_t)(e[0] | e[1] << 8);
        uint64_t n = 0;
        for (int i = 0; i < 8; i++)
            n |= (uint64_t)e[2 + i] << (8 * i);
        b_u16(&offs, id);
        b_u64(&offs, m->off);
        if (!f_write(m, j->mi.p + pos, n, &m->crc)) {
            free(offs.p);
            return sensim__fail(SENSIM_ERR_IO, "sensim_mcap: %s: write failed: %s", m->path,
                                strerror(errno ? errno : EIO));
        }
        pos += n;
    }
    buf *ci = &m->chunk_idx;
    at = rec_begin(ci, OP_CHUNK_INDEX);
    b_u64(ci, (uint64_t)j->start);
    b_u64(ci, (uint64_t)j->end);
    b_u64(ci, chunk_start);
    b_u64(ci, chunk_len);
    b_u32(ci, (uint32_t)offs.n);
    b_put(ci, offs.p, offs.n);
    b_u64(ci, m->off - mi_start);
    b_str(ci, cname);
    b_u64(ci, dlen);
    b_u64(ci, chunk->n);
    rec_end(ci, at);
    int oom = ci->oom || offs.oom;
    free(offs.p);
    if (oom)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap: out of memory while writing %s", m->path);
    m->file_chunks++;
    m->chunks++;
    return SENSIM_OK;
}

/* The chunk thread: writes the queued chunks in order while the caller fills the next ones. */
static void *chunk_main(void *arg)
{
    sensim_mcap *m = arg;
    pthread_mutex_lock(&m->cw_mu);
    for (;;) {
        while (!m->cw_count && !m->cw_quit)
            pthread_cond_wait(&m->cw_cv, &m->cw_mu);
        if (!m->cw_count)
            break;
        sensim__chunk_job *j = &m->cw_jobs[m->cw_head];
        int skip = m->cw_err != SENSIM_OK; /* after a failure: nothing more */
        pthread_mutex_unlock(&m->cw_mu);
        sensim_status st = skip ? SENSIM_OK : write_job(m, j);
        pthread_mutex_lock(&m->cw_mu);
        if (st && !m->cw_err) {
            m->cw_err = st;
            snprintf(m->cw_msg, sizeof m->cw_msg, "%s", sensim_context_last_error(NULL));
        }
        m->cw_queued -= j->chunk.n;
        if (j->chunk.cap > SENSIM__MCAP_QUEUE_BYTES / SENSIM__MCAP_JOBS) { /* kept buffers stay within the budget */
            free(j->chunk.p);
            memset(&j->chunk, 0, sizeof j->chunk);
        }
        m->cw_head = (m->cw_head + 1) % SENSIM__MCAP_JOBS;
        m->cw_count--;
        pthread_cond_broadcast(&m->cw_cv);
    }
    pthread_mutex_unlock(&m->cw_mu);
    return NULL;
}

/* The thread's failure, if any, fails the writer (under cw_mu). */
static sensim_status cw_error(sensim_mcap *m)
{
    sensim_status st = m->cw_err;
    if (st == SENSIM_OK)
        return SENSIM_OK;
    if (!m->failed)
        m->failed = st;
    return sensim__fail(st, "%s", m->cw_msg);
}

/* Wait until the queue is empty (the file's state is the caller's again). */
static sensim_status cw_wait(sensim_mcap *m)
{
    if (!m->cw_started)
        return SENSIM_OK;
    pthread_mutex_lock(&m->cw_mu);
    while (m->cw_count)
        pthread_cond_wait(&m->cw_cv, &m->cw_mu);
    sensim_status st = cw_error(m);
    pthread_mutex_unlock(&m->cw_mu);
    return st;
}

/* The open chunk goes to the file: queued for the chunk thread when compressed (the caller goes on filling
 * the next chunk; the bytes are those of writing it here, in the same order), written here otherwise. */
static sensim_status flush_chunk(sensim_mcap *m)
{
    if (m->chunk.n == 0)
        return SENSIM_OK;
    sensim_status st;
    const int threaded = m->o.compression != SENSIM_MCAP_NONE;
    if (threaded && !m->cw_started) {
        if (pthread_create(&m->cw_thread, NULL, chunk_main, m) != 0)
            return fail_io(m, SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap (the chunk thread)");
        m->cw_started = 1;
    }
    pthread_mutex_lock(&m->cw_mu); /* room: a free job, and the bytes (one chunk always fits) */
    while (m->cw_count == SENSIM__MCAP_JOBS ||
           (m->cw_count && m->cw_queued + m->chunk.n > SENSIM__MCAP_QUEUE_BYTES && !m->cw_err))
        pthread_cond_wait(&m->cw_cv, &m->cw_mu);
    st = cw_error(m);
    const uint32_t ji = (m->cw_head + m->cw_count) % SENSIM__MCAP_JOBS; /* read under the lock: the thread moves them */
    pthread_mutex_unlock(&m->cw_mu);
    if (st)
        return st;
    /* the free job is the caller's until queued: its emptied buffer is filled next */
    sensim__chunk_job *j = &m->cw_jobs[ji];
    buf t = j->chunk;
    j->chunk = m->chunk;
    m->chunk = t;
    m->chunk.n = 0;
    m->chunk.oom = 0;
    j->start = m->chunk_start, j->end = m->chunk_end;
    if (!build_indexes(m, j))
        return fail_io(m, SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap");
    if (!threaded) {
        if ((st = write_job(m, j)) && !m->failed)
            m->failed = st;
        return st;
    }
    pthread_mutex_lock(&m->cw_mu);
    m->cw_queued += j->chunk.n;
    m->cw_count++;
    pthread_cond_broadcast(&m->cw_cv);
    pthread_mutex_unlock(&m->cw_mu);
    return SENSIM_OK;
}

/* data end, summary, summary offsets, footer; rename into place */
static sensim_status finish_file(sensim_mcap *m)
{
    sensim_status st = flush_chunk(m);
    if (st || (st = cw_wait(m)))
        return st;
    buf *b = &m->rec;
    b->n = 0;
    b->oom = 0;
    size_t at = rec_begin(b, OP_DATA_END);
    b_u32(b, m->crc);
    rec_end(b, at);
    uint64_t summary_start = m->off + b->n;
    size_t groups[4][2]; /* start offsets in b (relative to summary start), lengths */
    size_t base = b->n;
    /* schemas */
    groups[0][0] = b->n;
    for (int ty = 0; ty < SENSIM__ROS2_TYPES; ty++) {
        int used = 0;
        for (uint32_t i = 0; i < m->ntopics; i++)
            used |= m->topics[i].type == ty;
        if (used)
            schema_record(b, ty);
    }
    groups[0][1] = b->n - groups[0][0];
    groups[1][0] = b->n;
    for (uint32_t i = 0; i < m->ntopics; i++)
        channel_record(b, &m->topics[i], (uint16_t)(i + 1));
    groups[1][1] = b->n - groups[1][0];
    groups[2][0] = b->n;
    at = rec_begin(b, OP_STATISTICS);
    b_u64(b, m->file_msgs);
    uint16_t nschema = 0;
    for (int ty = 0; ty < SENSIM__ROS2_TYPES; ty++) {
        int used = 0;
        for (uint32_t i = 0; i < m->ntopics; i++)
            used |= m->topics[i].type == ty;
        nschema = (uint16_t)(nschema + used);
    }
    b_u16(b, nschema);
    b_u32(b, m->ntopics);
    b_u32(b, 0); /* attachments */
    b_u32(b, 0); /* metadata */
    b_u32(b, (uint32_t)m->file_chunks);
    b_u64(b, m->file_msgs ? (uint64_t)m->file_start : 0);
    b_u64(b, m->file_msgs ? (uint64_t)m->file_end : 0);
    b_u32(b, m->ntopics * 10u);
    for (uint32_t i = 0; i < m->ntopics; i++) {
        b_u16(b, (uint16_t)(i + 1));
        b_u64(b, m->topics[i].file_count);
    }
    rec_end(b, at);
    groups[2][1] = b->n - groups[2][0];
    groups[3][0] = b->n;
    b_put(b, m->chunk_idx.p, m->chunk_idx.n);
    groups[3][1] = b->n - groups[3][0];
    uint64_t so_start = summary_start + (b->n - base);
    static const uint8_t ops[4] = {OP_SCHEMA, OP_CHANNEL, OP_STATISTICS, OP_CHUNK_INDEX};
    for (int g = 0; g < 4; g++) {
        if (!groups[g][1])
            continue;
        at = rec_begin(b, OP_SUMMARY_OFFSET);
        b_u8(b, ops[g]);
        b_u64(b, summary_start + (groups[g][0] - base));
        b_u64(b, groups[g][1]);
        rec_end(b, at);
    }
    b_u8(b, OP_FOOTER); /* length written now: the summary CRC covers it */
    b_u64(b, 20);
    b_u64(b, summary_start);
    b_u64(b, so_start);
    /* summary CRC: from the summary start through summary_offset_start */
    uint32_t scrc = b->oom ? 0 : libdeflate_crc32(0, b->p + base, b->n - base);
    b_u32(b, scrc);
    b_put(b, MCAP_MAGIC, 8);
    if (b->oom)
        return fail_io(m, SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap_close");
    errno = 0;
    if (!f_write(m, b->p, b->n, NULL) || fflush(m->f) != 0 || ferror(m->f)) {
        st = fail_io(m, SENSIM_ERR_IO, "sensim_mcap_close");
        return st;
    }
    int e = fclose(m->f);
    m->f = NULL;
    if (e != 0 || rename(m->tmp, m->path) != 0) {
        remove(m->tmp);
        m->failed = SENSIM_ERR_IO;
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot finish the file: %s", m->path, strerror(errno));
    }
    m->done_files++;
    m->file_index++;
    return SENSIM_OK;
}

sensim_status sensim_mcap_open(const char *prefix, const sensim_mcap_options *options, sensim_mcap **out)
{
    if (out)
        *out = NULL;
    if (!prefix || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_open: NULL argument");
    if (!*prefix || strlen(prefix) > 4000)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_open: prefix empty or over 4000 bytes");
    sensim_mcap_options o;
    sensim_mcap_options_init(&o);
    if (options)
        o = *options;
    for (int i = 0; i < 4; i++)
        if (o.reserved[i])
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_open: options.reserved[%d] is not zero", i);
    if (o.compression < SENSIM_MCAP_NONE || o.compression > SENSIM_MCAP_LZ4)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_open: compression %d unknown", o.compression);
    if (o.zstd_level < 1 || o.zstd_level > 19)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_mcap_open: zstd_level %d outside 1..19", o.zstd_level);
    if (o.chunk_bytes < 1024 || o.chunk_bytes > (256u << 20))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_mcap_open: chunk_bytes %llu outside 1 KiB..256 MiB",
                            (unsigned long long)o.chunk_bytes);
    if (o.split_bytes && o.split_bytes < 65536)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_mcap_open: split_bytes %llu below 64 KiB",
                            (unsigned long long)o.split_bytes);
    if (o.split_ns < 0 || (o.split_ns && o.split_ns < 1000000))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_mcap_open: split_ns %lld: 0 or at least 1 ms",
                            (long long)o.split_ns);
    sensim_mcap *m = calloc(1, sizeof *m);
    if (!m || !(m->topics = calloc(MAX_TOPICS, sizeof *m->topics))) {
        free(m);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap_open: out of memory");
    }
    snprintf(m->prefix, sizeof m->prefix, "%s", prefix);
    m->o = o;
    pthread_mutex_init(&m->cw_mu, NULL);
    pthread_cond_init(&m->cw_cv, NULL);
    sensim__mcap_init_lock(m);
    m->magic = SENSIM_MAGIC_MCAP;
    *out = m;
    return SENSIM_OK;
}

#define CHECK_MCAP(m, fn)                                                                                     \
    do {                                                                                                    \
        if (!(m))                                                                                           \
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: writer is NULL", fn);              \
        if ((m)->magic != SENSIM_MAGIC_MCAP)                                                                \
            return sensim__fail(SENSIM_ERR_BAD_HANDLE, "%s: writer is not a live MCAP writer", fn);  \
    } while (0)

sensim_status sensim__mcap_open_transport(const sensim__transport_ops *ops, void *impl, const char *label,
                                          sensim_mcap **out)
{
    *out = NULL;
    sensim_mcap *m = calloc(1, sizeof *m);
    if (!m || !(m->topics = calloc(MAX_TOPICS, sizeof *m->topics))) {
        free(m);
        ops->close(impl);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_ros2_open: out of memory");
    }
    snprintf(m->prefix, sizeof m->prefix, "%s", label);
    snprintf(m->path, sizeof m->path, "%s", label);
    m->tx = ops, m->tx_impl = impl;
    pthread_mutex_init(&m->cw_mu, NULL);
    pthread_cond_init(&m->cw_cv, NULL);
    sensim__mcap_init_lock(m);
    m->magic = SENSIM_MAGIC_MCAP;
    *out = m;
    return SENSIM_OK;
}

void *sensim__mcap_transport(const sensim_mcap *m, const sensim__transport_ops *ops)
{
    return m && m->magic == SENSIM_MAGIC_MCAP && m->tx == ops ? m->tx_impl : NULL;
}

int sensim__mcap_is_open(const sensim_mcap *m) { return m && m->magic == SENSIM_MAGIC_MCAP; }

sensim_status sensim_mcap_close(sensim_mcap *m, uint32_t *out_files)
{
    if (out_files)
        *out_files = 0;
    if (!m)
        return SENSIM_OK;
    CHECK_MCAP(m, "sensim_mcap_close");
    pthread_mutex_lock(&m->mu); /* a call on another thread finishes first */
    sensim_status st = m->failed;
    if (!st && m->f)
        st = finish_file(m);
    sensim_status wst = cw_wait(m); /* a failed run may still have a chunk in the thread */
    if (!st)
        st = wst;
    if (m->cw_started) {
        pthread_mutex_lock(&m->cw_mu);
        m->cw_quit = 1;
        pthread_cond_broadcast(&m->cw_cv);
        pthread_mutex_unlock(&m->cw_mu);
        pthread_join(m->cw_thread, NULL);
    }
    if (st) {
        if (m->f)
            fclose(m->f);
        if (m->f || m->tmp[0])
            remove(m->tmp);
        if (st == m->failed)
            sensim__fail(st, "sensim_mcap_close: %s was not finished (an earlier write failed); removed", m->path);
    }
    if (out_files)
        *out_files = m->done_files;
    m->magic = SENSIM_MAGIC_DEAD;
    if (m->tx)
        m->tx->close(m->tx_impl);
    pthread_mutex_unlock(&m->mu);
    pthread_mutex_destroy(&m->mu);
    for (uint32_t i = 0; i < m->ntopics; i++) {
        free(m->topics[i].idx);
        free(m->topics[i].ring_of);
    }
    free(m->topics);
    free(m->chunk.p);
    for (int k = 0; k < SENSIM__MCAP_JOBS; k++)
        free(m->cw_jobs[k].chunk.p), free(m->cw_jobs[k].mi.p), free(m->cw_jobs[k].mi_ch.p);
    free(m->cw_rec.p);
    pthread_cond_destroy(&m->cw_cv);
    pthread_mutex_destroy(&m->cw_mu);
    free(m->chunk_idx.p);
    free(m->msg.p);
    free(m->rec.p);
    free(m->comp.p);
    free(m);
    return st;
}

static sensim_status get_stats(const sensim_mcap *m, sensim_mcap_stats *s)
{
    CHECK_MCAP(m, "sensim_mcap_get_stats");
    if (!s)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_get_stats: out_stats is NULL");
    /* the counts include the chunk being written (the writer's own thread: the caller's, by contract) */
    (void)cw_wait((sensim_mcap *)m);
    memset(s, 0, sizeof *s);
    s->messages = m->messages;
    s->chunks = m->chunks;
    s->bytes = m->bytes;
    s->files = m->files;
    s->topics = m->ntopics;
    s->dropped = m->tx ? m->tx->dropped(m->tx_impl) : 0;
    return SENSIM_OK;
}

int sensim__mcap_valid_topic(const char *s)
{
    size_t n = strlen(s);
    if (n < 2 || n > MAX_NAME || s[0] != '/' || s[n - 1] == '/')
        return 0;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (c == '/' && s[i - 1] == '/')
            return 0;
        if (c >= '0' && c <= '9' && s[i - 1] == '/') /* ROS 2 (rmw_validate_full_topic_name): a token never
                                                         starts with a digit */
            return 0;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/'))
            return 0;
    }
    return 1;
}

int sensim__mcap_valid_frame(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > MAX_NAME)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/' ||
              c == '.' || c == '-'))
            return 0;
    }
    return 1;
}

int sensim__mcap_find_topic(const sensim_mcap *m, const char *name, int32_t type, uint16_t *out)
{
    for (uint32_t i = 0; m && m->magic == SENSIM_MAGIC_MCAP && i < m->ntopics; i++)
        if (m->topics[i].type == type && !strcmp(m->topics[i].name, name)) {
            *out = (uint16_t)i;
            return 1;
        }
    return 0;
}

static sensim_status add_topic(sensim_mcap *m, const char *name, int32_t type, uint16_t *out)
{
    CHECK_MCAP(m, "sensim_mcap_add_topic");
    if (!name || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_add_topic: NULL argument");
    if (!sensim__mcap_valid_topic(name))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT,
                            "sensim_mcap_add_topic: topic '%.300s' is not a ROS name ('/' then letters, digits, '_' "
                            "and single '/', at most 255 bytes)",
                            name);
    if (type < 0 || type >= SENSIM__ROS2_TYPES)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_add_topic: type %d unknown", type);
    if (m->failed)
        return sensim__fail(SENSIM_ERR_IO, "sensim_mcap_add_topic: the writer failed earlier");
    for (uint32_t i = 0; i < m->ntopics; i++)
        if (!strcmp(m->topics[i].name, name))
            return sensim__fail(SENSIM_ERR_DUPLICATE, "sensim_mcap_add_topic: topic %s already added", name);
    if (m->ntopics == MAX_TOPICS)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_mcap_add_topic: more than %d topics", MAX_TOPICS);
    topic *t = &m->topics[m->ntopics];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    t->type = type;
    if (m->tx) {
        sensim_status st = m->tx->add_topic(m->tx_impl, m->ntopics, name, type);
        if (st)
            return st; /* the topic is not added; the writer stays usable */
    }
    *out = (uint16_t)m->ntopics++;
    sensim_status wst = m->f ? cw_wait(m) : SENSIM_OK; /* the channel record goes after the chunk in flight */
    if (wst)
        return wst;
    if (m->f && !announce(m, *out))
        return fail_io(m, m->rec.oom ? SENSIM_ERR_OUT_OF_MEMORY : SENSIM_ERR_IO, "sensim_mcap_add_topic");
    return SENSIM_OK;
}

typedef struct elev_index {
    float e;
    uint32_t i;
} elev_index;

static int by_elevation(const void *pa, const void *pb)
{
    const elev_index *a = pa, *b = pb;
    if (a->e != b->e)
        return a->e < b->e ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static sensim_status set_ring_order(sensim_mcap *m, uint16_t tp, const float *elevation_rad, uint32_t channels)
{
    if (!m || (!elevation_rad && channels))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_set_ring_order: NULL argument");
    if (m->magic != SENSIM_MAGIC_MCAP)
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_mcap_set_ring_order: writer is not a live MCAP writer");
    if (tp >= m->ntopics || m->topics[tp].type != SENSIM_ROS_POINTCLOUD2)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_set_ring_order: topic %u is not a PointCloud2 "
                            "topic of this writer", tp);
    if (channels > 65535)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_mcap_set_ring_order: %u channels (at most 65535)",
                            channels);
    for (uint32_t i = 0; i < channels; i++)
        if (!isfinite(elevation_rad[i]))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_mcap_set_ring_order: elevation_rad[%u] is not finite",
                                i);
    uint16_t *r = channels ? malloc(channels * sizeof *r) : NULL;
    elev_index *by = channels ? malloc(channels * sizeof *by) : NULL;
    if (channels && (!r || !by)) {
        free(r), free(by);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap_set_ring_order: out of memory");
    }
    /* ring = how many channels point lower (equal elevations: the lower channel first), as
     * velodyne_pointcloud numbers its rings from the calibration's vertical angles: the rank in a sort */
    for (uint32_t i = 0; i < channels; i++)
        by[i].e = elevation_rad[i], by[i].i = i;
    if (channels)
        qsort(by, channels, sizeof *by, by_elevation);
    for (uint32_t k = 0; k < channels; k++)
        r[by[k].i] = (uint16_t)k;
    free(by);
    free(m->topics[tp].ring_of);
    m->topics[tp].ring_of = r, m->topics[tp].nring = channels;
    return SENSIM_OK;
}

static sensim_status set_stamp_offset(sensim_mcap *m, int64_t offset_ns)
{
    if (!m)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_set_stamp_offset: writer is NULL");
    if (m->magic != SENSIM_MAGIC_MCAP)
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_mcap_set_stamp_offset: writer is not a live MCAP writer");
    if (offset_ns < -(INT64_C(1) << 61) || offset_ns > (INT64_C(1) << 61))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_mcap_set_stamp_offset: %lld ns outside +-2^61",
                            (long long)offset_ns);
    m->stamp_offset_ns = offset_ns;
    return SENSIM_OK;
}

/* A mechanical lidar's beams ordered by elevation on @p tp; other patterns keep the laser id. */
sensim_status sensim__mcap_ring_order_of(sensim_mcap *m, uint16_t tp, const sensim_lidar *lidar)
{
    sensim_lidar_info info;
    uint32_t n = 0;
    sensim_status st = sensim_lidar_get_info(lidar, &info);
    if (st || info.pattern != SENSIM_PATTERN_MECHANICAL)
        return st;
    if ((st = sensim_lidar_get_elevations(lidar, NULL, 0, &n)) || n == 0)
        return st;
    float *e = malloc(n * sizeof *e);
    if (!e)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap_set_ring_order: out of memory");
    st = sensim_lidar_get_elevations(lidar, e, n, &n);
    if (!st)
        st = sensim_mcap_set_ring_order(m, tp, e, n);
    free(e);
    return st;
}

static sensim_status topic_of(const sensim_mcap *m, uint16_t tp, const char **out_name, int32_t *out_type)
{
    if (out_name)
        *out_name = NULL;
    if (out_type)
        *out_type = -1;
    if (!m || !out_name)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_topic: NULL argument");
    if (m->magic != SENSIM_MAGIC_MCAP)
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_mcap_topic: writer is not a live MCAP writer");
    if (tp >= m->ntopics)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_mcap_topic: topic %u was never added", tp);
    *out_name = m->topics[tp].name;
    if (out_type)
        *out_type = m->topics[tp].type;
    return SENSIM_OK;
}

/* Checks shared by every write: handle, topic of the right type, times, the
 * frame id (NO_FRAME for messages without a header). */
const char sensim__mcap_no_frame[] = "";
sensim_status sensim__mcap_check_write(sensim_mcap *m, uint16_t tp, int32_t type, int64_t log_ns, int64_t stamp,
                                       const char *frame_id, const char *fn)
{
    if (!m)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: writer is NULL", fn);
    if (m->magic != SENSIM_MAGIC_MCAP)
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "%s: writer is not a live MCAP writer", fn);
    if (m->failed)
        return sensim__fail(SENSIM_ERR_IO, "%s: the writer failed earlier (%s)", fn, m->path);
    if (tp >= m->ntopics)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: topic %u was never added", fn, tp);
    if (m->topics[tp].type != type && !(type == SENSIM_ROS_TF && m->topics[tp].type == SENSIM_ROS_TF_STATIC))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: topic %s carries %s", fn, m->topics[tp].name,
                            sensim__ros2_type_names[m->topics[tp].type]);
    if (log_ns < 0 || log_ns > SENSIM_MAX_TIME_NS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: log time %lld ns outside [0, 2^62]", fn, (long long)log_ns);
    /* builtin_interfaces/Time: int32 seconds, the stamp offset included (|offset| <= 2^61: no overflow) */
    if (stamp < INT64_C(-2147483648) * 1000000000 || stamp > INT64_C(2147483647) * 1000000000 + 999999999 ||
        stamp + m->stamp_offset_ns < INT64_C(-2147483648) * 1000000000 ||
        stamp + m->stamp_offset_ns > INT64_C(2147483647) * 1000000000 + 999999999)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: stamp %lld ns%s beyond builtin_interfaces/Time (int32 s)", fn,
                            (long long)stamp, m->stamp_offset_ns ? " plus the stamp offset" : "");
    if (frame_id != sensim__mcap_no_frame && !sensim__mcap_valid_frame(frame_id))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT,
                            "%s: frame id '%.300s' empty, over 255 bytes or with characters other than letters, "
                            "digits, '_', '/', '.', '-'",
                            fn, frame_id);
    return SENSIM_OK;
}

/* The serialized message in m->msg becomes a Message record of topic @p tp. */
sensim_status sensim__mcap_emit(sensim_mcap *m, uint16_t tp, int64_t log_ns)
{
    if (m->msg.oom)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap: out of memory for a message");
    sensim_status st;
    if (m->tx) {
        size_t n = m->msg.n;
        int sent = 0;
        if ((st = m->tx->send(m->tx_impl, tp, m->topics[tp].name, &m->msg, &sent)))
            return st;
        m->messages += (uint64_t)sent;
        m->bytes += sent ? n : 0;
        return SENSIM_OK;
    }
    if (m->f && m->o.split_bytes && (st = cw_wait(m))) /* the size decides: the chunk in flight counts */
        return st;
    if (m->f && ((m->o.split_ns && m->file_msgs && log_ns - m->file_start >= m->o.split_ns) ||
                 (m->o.split_bytes && m->off + m->chunk.n + m->msg.n >= m->o.split_bytes && m->file_msgs > 0)))
        if ((st = finish_file(m)))
            return st;
    if (!m->f && (st = open_file(m)))
        return st;
    size_t rec_len = 1 + 8 + 2 + 4 + 8 + 8 + m->msg.n;
    if (m->chunk.n && m->chunk.n + rec_len > m->o.chunk_bytes && (st = flush_chunk(m)))
        return st;
    topic *t = &m->topics[tp];
    if (t->nidx + 2 > t->capidx) {
        size_t c = t->capidx ? 2 * t->capidx : 64;
        uint64_t *q = realloc(t->idx, c * sizeof *q);
        if (!q)
            return fail_io(m, SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap");
        t->idx = q, t->capidx = c;
    }
    if (m->chunk.n == 0)
        m->chunk_start = log_ns, m->chunk_end = log_ns;
    t->idx[t->nidx++] = (uint64_t)log_ns;
    t->idx[t->nidx++] = m->chunk.n;
    buf *c = &m->chunk;
    size_t at = rec_begin(c, OP_MESSAGE);
    b_u16(c, (uint16_t)(tp + 1));
    b_u32(c, t->sequence++);
    b_u64(c, (uint64_t)log_ns);
    b_u64(c, (uint64_t)log_ns);
    b_put(c, m->msg.p, m->msg.n);
    rec_end(c, at);
    if (c->oom)
        return fail_io(m, SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap");
    m->chunk_start = log_ns < m->chunk_start ? log_ns : m->chunk_start;
    m->chunk_end = log_ns > m->chunk_end ? log_ns : m->chunk_end;
    m->file_start = log_ns < m->file_start ? log_ns : m->file_start;
    m->file_end = log_ns > m->file_end ? log_ns : m->file_end;
    m->file_msgs++;
    m->messages++;
    t->file_count++;
    if (c->n >= m->o.chunk_bytes)
        return flush_chunk(m);
    return SENSIM_OK;
}

/* ---- the writer's lock: every public call takes its turn ---- */
void sensim__mcap_init_lock(sensim_mcap *m)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&m->mu, &a);
    pthread_mutexattr_destroy(&a);
}

int sensim__mcap_lock(const sensim_mcap *m)
{
    if (!m || m->magic != SENSIM_MAGIC_MCAP)
        return 0;
    pthread_mutex_lock(&((sensim_mcap *)m)->mu);
    return 1;
}

void sensim__mcap_unlock(const sensim_mcap *m)
{
    pthread_mutex_unlock(&((sensim_mcap *)m)->mu);
}

sensim_status sensim_mcap_get_stats(const sensim_mcap *m, sensim_mcap_stats *s)
{
    SENSIM__MCAP_LOCKED(m, get_stats(m, s));
}

sensim_status sensim_mcap_add_topic(sensim_mcap *m, const char *name, int32_t type, uint16_t *out)
{
    SENSIM__MCAP_LOCKED(m, add_topic(m, name, type, out));
}

sensim_status sensim_mcap_set_ring_order(sensim_mcap *m, uint16_t tp, const float *elevation_rad, uint32_t channels)
{
    SENSIM__MCAP_LOCKED(m, set_ring_order(m, tp, elevation_rad, channels));
}

sensim_status sensim_mcap_set_stamp_offset(sensim_mcap *m, int64_t offset_ns)
{
    SENSIM__MCAP_LOCKED(m, set_stamp_offset(m, offset_ns));
}

sensim_status sensim_mcap_topic(const sensim_mcap *m, uint16_t tp, const char **out_name, int32_t *out_type)
{
    SENSIM__MCAP_LOCKED(m, topic_of(m, tp, out_name, out_type));
}
