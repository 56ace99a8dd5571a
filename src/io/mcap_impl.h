/* The MCAP writer's inside, shared by mcap.c (the container) and mcap_msgs.c
 * (the CDR encoding of each ROS 2 message). */
#ifndef SENSIM_MCAP_IMPL_H
#define SENSIM_MCAP_IMPL_H

#include "internal.h"
#include "ros2_msgdefs.h"
#include "transport.h"

#include <sensim/mcap.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SENSIM_MAGIC_MCAP 0x4D534E53u /* "SNSM" */
#define MAX_TOPICS SENSIM__MAX_TOPICS
#define MAX_NAME 255

/* ---- the writer ---- */
#define SENSIM__MCAP_JOBS 16
#define SENSIM__MCAP_QUEUE_BYTES (UINT64_C(64) << 20)
/* A full chunk on its way to the file: its records, times and message index records (mi; per record its
 * channel and length in mi_ch). */
typedef struct sensim__chunk_job {
    buf chunk, mi, mi_ch;
    int64_t start, end;
} sensim__chunk_job;

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
    /* Every public call on the writer holds mu (recursive: a capture's writes nest), so one writer (or
     * ROS 2 publisher) may be shared by threads and by sinks consumed from several rigs; the calls take
     * turns and each message is whole. */
    pthread_mutex_t mu;
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
    /* The chunk thread (files with compression): compresses and writes full chunks, in order, from a queue
     * of at most SENSIM__MCAP_JOBS chunks and SENSIM__MCAP_QUEUE_BYTES (one chunk always fits) while the
     * caller fills the next. While the queue holds a chunk the file's state (f, off, crc, bytes,
     * chunk_idx, file_chunks, chunks, comp, cw_rec) is the thread's; the caller waits (cw_wait) before it
     * touches them. cw_head, cw_count, cw_queued, cw_quit, cw_err and cw_msg under cw_mu. */
    pthread_t cw_thread;
    pthread_mutex_t cw_mu;
    pthread_cond_t cw_cv;
    int cw_started, cw_quit;
    uint32_t cw_head, cw_count;
    uint64_t cw_queued;
    sensim_status cw_err;
    char cw_msg[1024];
    sensim__chunk_job cw_jobs[SENSIM__MCAP_JOBS];
    buf cw_rec;
    const sensim__transport_ops *tx; /* a live writer's transport (sensim_ros2_open), else NULL: the file */
    void *tx_impl;
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

#endif
