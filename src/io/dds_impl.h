/* The DDS side of live writers (Cyclone DDS, as rmw_cyclonedds), shared by
 * ros2_dds.c (the participant, its writers, the ROS graph: the writer's
 * transport), dds_raw.c (the sertype carrying CDR bytes as they are) and
 * ros2_read.c (readers). Only built with SENSIM_HAVE_DDS. */
#ifndef SENSIM_DDS_IMPL_H
#define SENSIM_DDS_IMPL_H

#include "internal.h"
#include "ros2_msgdefs.h"
#include "transport.h"

/* Cyclone's headers use GNU C's `asm`; libsensim is strict C11 */
#ifndef asm
#define asm __asm__
#endif
#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>
#include <dds/ddsi/ddsi_sertype.h>

#define SENSIM__ROS_GRAPH (-1)     /* topic type of ros_discovery_info (sensim__ros2_profile_of) */
#define READ_MAX_BYTES (64u << 20) /* a received sample above this is dropped (sensim_ros2_reader_open) */
#define READ_DEPTH 256             /* samples a reader holds before the oldest goes */
#define MAX_READERS 64

typedef struct sensim__dds sensim__dds;

struct sensim__dds {
    dds_entity_t participant;
    dds_entity_t graph;                   /* ros_discovery_info's writer */
    const struct ddsi_sertype *graph_type;
    char node_ns[256], node_name[256];    /* the node the writers belong to */
    uint32_t nwriters, nreaders;
    int gid_bytes;                        /* 16, or 24 for Humble (sensim_ros2_options.graph_gid_bytes) */
    dds_entity_t writers[SENSIM__MAX_TOPICS];
    dds_entity_t readers[MAX_READERS];    /* sensim_ros2_reader's, for the graph */
    const struct ddsi_sertype *types[SENSIM__MAX_TOPICS]; /* each writer's sertype (DDS's, maybe shared) */
    int32_t qos;
    uint64_t dropped;
};

/* A sample: its CDR bytes (encapsulation header first). */
typedef struct raw_sample {
    const void *p;
    size_t n;
} raw_sample;

typedef struct raw_serdata {
    struct ddsi_serdata c;
    uint32_t n;         /* bytes, encapsulation header included */
    unsigned char *p;   /* n rounded up to 4, zero padded (DDS may read up to there) */
} raw_serdata;

/* dds_raw.c: the sertype (every topic's, sensim_ros2_open's and readers'), its type's release, the
 * DDS name of ROS type "pkg/msg/Name" ("pkg::msg::dds_::Name_"), DDS failures as statuses, and the
 * padding count in a payload's encapsulation options. */
extern const struct ddsi_sertype_ops sensim__raw_sertype_ops;
extern const struct ddsi_serdata_ops sensim__raw_serdata_ops;
void sensim__raw_type_free(struct ddsi_sertype *t);
void sensim__dds_type_name(char *dst, size_t cap, const char *ros);
sensim_status sensim__dds_fail(const char *fn, const char *what, dds_return_t rc);
void sensim__dds_mark_padding(uint8_t *p, size_t n);

/* ros2_dds.c: the transport; a live writer's DDS side (else a failure status in *st, the message
 * naming @p fn); ros_discovery_info republished (after a reader or writer came or went). */
extern const sensim__transport_ops sensim__dds_ops;
sensim__dds *sensim__dds_of(const sensim_mcap *m, const char *fn, sensim_status *st);
sensim_status sensim__dds_graph_publish(sensim__dds *d, const char *fn);

#endif
