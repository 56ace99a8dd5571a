/* Live ROS 2 over Cyclone DDS: the MCAP writer's messages (the CDR bytes a
 * bag holds, built by mcap_msgs.c) published as DDS samples instead of
 * stored. ROS 2's RMWs name a topic /a/b "rt/a/b" and a type pkg/msg/Name
 * "pkg::msg::dds_::Name_"; a sample is the message's CDR with its 4-byte
 * encapsulation header. The bytes go through a sertype of our own that
 * carries them as they are (as rmw_cyclonedds does with its serializer's
 * output), so nothing is serialized twice and the wire equals the bag. */
#include "mcap_impl.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

void sensim_ros2_options_init(sensim_ros2_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->domain_id = -1;
    o->qos = SENSIM_ROS2_QOS_PROFILES;
}

/* ROS_DOMAIN_ID: unset or empty → 0; otherwise digits only, 0..232. */
static sensim_status env_domain(int32_t *out)
{
    const char *e = getenv("ROS_DOMAIN_ID");
    *out = 0;
    if (!e || !*e)
        return SENSIM_OK;
    long v = 0;
    for (const char *p = e; *p; p++) {
        if (*p < '0' || *p > '9' || p - e > 3)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                                "sensim_ros2_open: environment ROS_DOMAIN_ID='%.40s' is not an integer in 0..232", e);
        v = v * 10 + (*p - '0');
    }
    if (v > 232)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_ros2_open: environment ROS_DOMAIN_ID=%ld outside 0..232",
                            v);
    *out = (int32_t)v;
    return SENSIM_OK;
}

#ifndef SENSIM_HAVE_DDS

int sensim_ros2_available(void) { return 0; }

sensim_status sensim_ros2_open(const sensim_ros2_options *options, sensim_mcap **out)
{
    (void)options;
    if (out)
        *out = NULL;
    return sensim__fail(SENSIM_ERR_BACKEND, "sensim_ros2_open: libsensim was built without Cyclone DDS "
                                            "(install cyclonedds-dev and rebuild)");
}

sensim_status sensim_ros2_subscribers(const sensim_mcap *m, uint16_t tp, uint32_t *out_count)
{
    (void)m, (void)tp;
    if (out_count)
        *out_count = 0;
    return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_subscribers: not a live writer (built without "
                                                     "Cyclone DDS)");
}

sensim_status sensim__dds_add_topic(sensim__dds *d, uint32_t i, const char *name, int32_t type)
{
    (void)d, (void)i, (void)name, (void)type;
    return SENSIM_ERR_BACKEND;
}
sensim_status sensim_ros2_incompatible(const sensim_mcap *m, uint16_t tp, uint32_t *out_count,
                                       const char **out_policy)
{
    (void)m, (void)tp;
    if (out_count)
        *out_count = 0;
    if (out_policy)
        *out_policy = "";
    return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_incompatible: not a live writer (built without "
                                                     "Cyclone DDS)");
}
sensim_status sensim_ros2_set_node(sensim_mcap *m, const char *ns, const char *name)
{
    (void)m, (void)ns, (void)name;
    return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_set_node: not a live writer (built without "
                                                     "Cyclone DDS)");
}
sensim_status sensim__dds_publish(sensim_mcap *m, uint16_t tp) { (void)m, (void)tp; return SENSIM_ERR_BACKEND; }
uint64_t sensim__dds_dropped(const sensim__dds *d) { (void)d; return 0; }
void sensim__dds_close(sensim__dds *d) { (void)d; }

#else

/* Cyclone's headers use GNU C's `asm`; libsensim is strict C11 */
#ifndef asm
#define asm __asm__
#endif
#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>
#include <dds/ddsi/ddsi_sertype.h>

#define SENSIM__ROS_GRAPH (-1) /* topic_qos(): ros_discovery_info */

struct sensim__dds {
    dds_entity_t participant;
    dds_entity_t graph;                   /* ros_discovery_info's writer */
    const struct ddsi_sertype *graph_type;
    char node_ns[256], node_name[256];    /* the node the writers belong to */
    uint32_t nwriters;
    dds_entity_t writers[MAX_TOPICS];
    const struct ddsi_sertype *types[MAX_TOPICS]; /* each writer's sertype (DDS's, maybe shared) */
    int32_t qos;
    uint64_t dropped;
};

int sensim_ros2_available(void) { return 1; }

static sensim_status graph_open(sensim__dds *d);

static sensim_status graph_publish(sensim__dds *d, const char *fn);

/* ---- a sertype whose samples are CDR bytes, carried as they are ---- */

typedef struct raw_sample {
    const void *p;
    size_t n;
} raw_sample;

typedef struct raw_serdata {
    struct ddsi_serdata c;
    uint32_t n;         /* bytes, encapsulation header included */
    unsigned char *p;   /* n rounded up to 4, zero padded (DDS may read up to there) */
} raw_serdata;

static const struct ddsi_serdata_ops raw_serdata_ops;

static raw_serdata *raw_new(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind, size_t n)
{
    if (n > UINT32_MAX - 4)
        return NULL;
    raw_serdata *d = calloc(1, sizeof *d);
    size_t cap = (n + 3) & ~(size_t)3;
    if (!d || !(d->p = malloc(cap ? cap : 4))) { /* the caller fills n bytes: only the padding is zeroed */
        free(d);
        return NULL;
    }
    memset(d->p + n, 0, (cap ? cap : 4) - n);
    ddsi_serdata_init(&d->c, type, kind);
    d->c.hash = type ? type->serdata_basehash : 0; /* keyless: one instance */
    d->n = (uint32_t)n;
    return d;
}

static bool raw_eqkey(const struct ddsi_serdata *a, const struct ddsi_serdata *b)
{
    (void)a, (void)b;
    return true; /* ROS types have no key */
}

/* whole 4-byte words, DATA and DATA_FRAG alike: the encapsulation options count the padding */
static uint32_t raw_size(const struct ddsi_serdata *d) { return (((const raw_serdata *)d)->n + 3) & ~3u; }

static void raw_free(struct ddsi_serdata *d)
{
    raw_serdata *r = (raw_serdata *)d;
    free(r->p);
    free(r);
}

/* Received data is never read here: the writer's process has no reader of these topics. */
static struct ddsi_serdata *raw_from_ser(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind,
                                         const struct nn_rdata *fragchain, size_t size)
{
    (void)type, (void)kind, (void)fragchain, (void)size;
    return NULL;
}

static struct ddsi_serdata *raw_from_ser_iov(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind,
                                             ddsrt_msg_iovlen_t niov, const ddsrt_iovec_t *iov, size_t size)
{
    raw_serdata *d = raw_new(type, kind, size);
    if (!d)
        return NULL;
    size_t at = 0;
    for (ddsrt_msg_iovlen_t i = 0; i < niov && at < size; i++) {
        size_t k = iov[i].iov_len < size - at ? iov[i].iov_len : size - at;
        memcpy(d->p + at, iov[i].iov_base, k);
        at += k;
    }
    return &d->c;
}

static struct ddsi_serdata *raw_from_keyhash(const struct ddsi_sertype *type, const struct ddsi_keyhash *kh)
{
    (void)kh;
    raw_serdata *d = raw_new(type, SDK_KEY, 0);
    return d ? &d->c : NULL;
}

static struct ddsi_serdata *raw_from_sample(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind,
                                            const void *sample)
{
    const raw_sample *s = sample;
    size_t n = kind == SDK_DATA ? s->n : 0;
    raw_serdata *d = raw_new(type, kind, n);
    if (!d)
        return NULL;
    if (n)
        memcpy(d->p, s->p, n);
    return &d->c;
}

static void raw_to_ser(const struct ddsi_serdata *d, size_t off, size_t sz, void *dst)
{
    memcpy(dst, ((const raw_serdata *)d)->p + off, sz);
}

static struct ddsi_serdata *raw_to_ser_ref(const struct ddsi_serdata *d, size_t off, size_t sz, ddsrt_iovec_t *ref)
{
    ref->iov_base = ((const raw_serdata *)d)->p + off;
    ref->iov_len = (ddsrt_iov_len_t)sz;
    return ddsi_serdata_ref(d);
}

static void raw_to_ser_unref(struct ddsi_serdata *d, const ddsrt_iovec_t *ref)
{
    (void)ref;
    ddsi_serdata_unref(d);
}

static bool raw_to_sample(const struct ddsi_serdata *d, void *sample, void **bufptr, void *buflim)
{
    (void)bufptr, (void)buflim;
    raw_sample *s = sample;
    s->p = ((const raw_serdata *)d)->p;
    s->n = ((const raw_serdata *)d)->n;
    return true;
}

static struct ddsi_serdata *raw_to_untyped(const struct ddsi_serdata *d)
{
    raw_serdata *u = raw_new(d->type, SDK_KEY, 0);
    if (!u)
        return NULL;
    u->c.type = NULL;
    return &u->c;
}

static bool raw_untyped_to_sample(const struct ddsi_sertype *type, const struct ddsi_serdata *d, void *sample,
                                  void **bufptr, void *buflim)
{
    (void)type, (void)d, (void)bufptr, (void)buflim;
    raw_sample *s = sample;
    s->p = NULL, s->n = 0;
    return true;
}

static size_t raw_print(const struct ddsi_sertype *type, const struct ddsi_serdata *d, char *out, size_t size)
{
    (void)type;
    int k = snprintf(out, size, "(CDR, %u bytes)", ((const raw_serdata *)d)->n);
    return k < 0 ? 0 : (size_t)k;
}

static void raw_get_keyhash(const struct ddsi_serdata *d, struct ddsi_keyhash *kh, bool force_md5)
{
    (void)d, (void)force_md5;
    memset(kh, 0, sizeof *kh);
}

static const struct ddsi_serdata_ops raw_serdata_ops = {
    .eqkey = raw_eqkey,
    .get_size = raw_size,
    .from_ser = raw_from_ser,
    .from_ser_iov = raw_from_ser_iov,
    .from_keyhash = raw_from_keyhash,
    .from_sample = raw_from_sample,
    .to_ser = raw_to_ser,
    .to_ser_ref = raw_to_ser_ref,
    .to_ser_unref = raw_to_ser_unref,
    .to_sample = raw_to_sample,
    .to_untyped = raw_to_untyped,
    .untyped_to_sample = raw_untyped_to_sample,
    .free = raw_free,
    .print = raw_print,
    .get_keyhash = raw_get_keyhash,
};

static void raw_type_free(struct ddsi_sertype *t)
{
    ddsi_sertype_fini(t);
    free(t);
}

static void raw_zero_samples(const struct ddsi_sertype *t, void *samples, size_t count)
{
    (void)t;
    memset(samples, 0, count * sizeof(raw_sample));
}

static void raw_realloc_samples(void **ptrs, const struct ddsi_sertype *t, void *old, size_t oldcount, size_t count)
{
    (void)t;
    raw_sample *s = realloc(old, (count ? count : 1) * sizeof *s);
    if (s && count > oldcount)
        memset(s + oldcount, 0, (count - oldcount) * sizeof *s);
    for (size_t i = 0; i < count; i++)
        ptrs[i] = s ? &s[i] : NULL;
}

static void raw_free_samples(const struct ddsi_sertype *t, void **ptrs, size_t count, dds_free_op_t op)
{
    (void)t;
    if (count && (op & DDS_FREE_ALL_BIT))
        free(ptrs[0]);
}

static bool raw_type_equal(const struct ddsi_sertype *a, const struct ddsi_sertype *b)
{
    (void)a, (void)b;
    return true; /* the common part (type name, ops) is compared by DDS */
}

static uint32_t raw_type_hash(const struct ddsi_sertype *t)
{
    (void)t;
    return 0;
}

static size_t raw_serialized_size(const struct ddsi_sertype *t, const void *sample)
{
    (void)t;
    return (((const raw_sample *)sample)->n + 3) & ~(size_t)3;
}

static bool raw_serialize_into(const struct ddsi_sertype *t, const void *sample, void *dst, size_t dst_size)
{
    (void)t;
    const raw_sample *s = sample;
    size_t padded = (s->n + 3) & ~(size_t)3;
    if (dst_size < padded)
        return false;
    memcpy(dst, s->p, s->n);
    memset((char *)dst + s->n, 0, padded - s->n);
    return true;
}

static const struct ddsi_sertype_ops raw_sertype_ops = {
    .version = ddsi_sertype_v0,
    .arg = NULL,
    .free = raw_type_free,
    .zero_samples = raw_zero_samples,
    .realloc_samples = raw_realloc_samples,
    .free_samples = raw_free_samples,
    .equal = raw_type_equal,
    .hash = raw_type_hash,
    .get_serialized_size = raw_serialized_size,
    .serialize_into = raw_serialize_into,
};

/* "pkg/msg/Name" → "pkg::msg::dds_::Name_" */
static void dds_type_name(char *dst, size_t cap, const char *ros)
{
    const char *last = strrchr(ros, '/');
    size_t pre = (size_t)(last - ros), k = 0;
    for (size_t i = 0; i < pre && k + 3 < cap; i++) {
        if (ros[i] == '/')
            dst[k++] = ':', dst[k++] = ':';
        else
            dst[k++] = ros[i];
    }
    snprintf(dst + k, cap - k, "::dds_::%s_", last + 1);
}

/* ---- the writer ---- */

static sensim_status dds_fail(const char *fn, const char *what, dds_return_t rc)
{
    return sensim__fail(SENSIM_ERR_BACKEND, "%s: %s: %s", fn, what, dds_strretcode(rc));
}

/* Cyclone reads the files CYCLONEDDS_URI names (file://PATH, comma
 * separated, beside inline XML) with plain blocking reads: a FIFO there
 * blocks the participant's creation forever, a device never ends. Each
 * must be a regular file of at most 16 MiB before Cyclone sees it. */
static sensim_status check_cyclone_uri(void)
{
    const char *u = getenv("CYCLONEDDS_URI");
    for (const char *f = u ? strstr(u, "file://") : NULL; f; f = strstr(f, "file://")) {
        f += 7;
        size_t n = strcspn(f, ", \t\r\n");
        char path[PATH_MAX];
        if (n == 0 || n >= sizeof path)
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "CYCLONEDDS_URI: a file:// entry %s",
                                n ? "longer than PATH_MAX" : "without a path");
        memcpy(path, f, n);
        path[n] = 0;
        struct stat sb;
        if (stat(path, &sb) != 0)
            return sensim__fail(SENSIM_ERR_IO, "CYCLONEDDS_URI: %s: %s", path, strerror(errno));
        if (!S_ISREG(sb.st_mode) || sb.st_size > (16 << 20))
            return sensim__fail(SENSIM_ERR_IO, "CYCLONEDDS_URI: %s is %s: refusing it (Cyclone DDS would block or "
                                "read without end)", path, S_ISREG(sb.st_mode) ? "larger than 16 MiB"
                                : S_ISFIFO(sb.st_mode) ? "a FIFO, not a regular file" : "not a regular file");
    }
    return SENSIM_OK;
}

sensim_status sensim_ros2_open(const sensim_ros2_options *options, sensim_mcap **out)
{
    if (out)
        *out = NULL;
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_open: out_writer is NULL");
    sensim_ros2_options o;
    sensim_ros2_options_init(&o);
    if (options)
        o = *options;
    for (int i = 0; i < 4; i++)
        if (o.reserved[i])
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_open: options.reserved[%d] is not zero", i);
    if (o.qos != SENSIM_ROS2_QOS_PROFILES && o.qos != SENSIM_ROS2_QOS_RELIABLE)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_open: qos %d unknown", o.qos);
    if (o.domain_id < -1 || o.domain_id > 232)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_ros2_open: domain_id %d outside -1..232", o.domain_id);
    sensim_status st;
    if (o.domain_id == -1 && (st = env_domain(&o.domain_id)))
        return st;
    if ((st = check_cyclone_uri()))
        return st;
    sensim_mcap *m = calloc(1, sizeof *m);
    sensim__dds *d = calloc(1, sizeof *d);
    if (!m || !d || !(m->topics = calloc(MAX_TOPICS, sizeof *m->topics))) {
        free(m);
        free(d);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_ros2_open: out of memory");
    }
    /* as rmw_cyclonedds: the participant's user data names its security enclave */
    dds_qos_t *q = dds_create_qos();
    if (q)
        dds_qset_userdata(q, "enclave=/;", 10);
    d->participant = dds_create_participant((dds_domainid_t)o.domain_id, q, NULL);
    dds_delete_qos(q);
    if (d->participant < 0) {
        st = dds_fail("sensim_ros2_open", "cannot create a DDS participant (check CYCLONEDDS_URI)", d->participant);
        free(m->topics);
        free(m);
        free(d);
        return st;
    }
    d->qos = o.qos;
    if ((st = graph_open(d))) {
        dds_delete(d->participant);
        free(m->topics);
        free(m);
        free(d);
        return st;
    }
    snprintf(m->prefix, sizeof m->prefix, "ROS 2 domain %d", o.domain_id);
    snprintf(m->path, sizeof m->path, "ROS 2 domain %d", o.domain_id);
    m->live = d;
    m->magic = SENSIM_MAGIC_MCAP;
    *out = m;
    return SENSIM_OK;
}

/* The QoS a ROS 2 publisher of this type uses (sensim/mcap.h), set policy by
 * policy as rmw_cyclonedds sets a writer's (create_readwrite_qos), so the
 * announcement carries the same entries: a reliable writer blocks without
 * limit (DDS_INFINITY; the DDS default is 100 ms, which Cyclone leaves out
 * of the announcement, and RTPS stacks that want the entry drop the writer),
 * a best-effort one 0; transient local adds the durability service of the
 * history; automatic liveliness with an infinite lease; no autodispose. */
static dds_qos_t *topic_qos(int32_t type, int32_t mode)
{
    dds_qos_t *q = dds_create_qos();
    if (!q)
        return NULL;
    sensim__ros2_profile p = sensim__ros2_profile_of(type);
    int best_effort = !p.reliable;
    dds_qset_writer_data_lifecycle(q, false);
    if (mode == SENSIM_ROS2_QOS_RELIABLE && type != SENSIM__ROS_GRAPH) {
        best_effort = 0;
        dds_qset_history(q, DDS_HISTORY_KEEP_ALL, DDS_LENGTH_UNLIMITED);
    } else {
        dds_qset_history(q, DDS_HISTORY_KEEP_LAST, p.depth);
    }
    dds_qset_reliability(q, best_effort ? DDS_RELIABILITY_BEST_EFFORT : DDS_RELIABILITY_RELIABLE,
                         best_effort ? 0 : DDS_INFINITY);
    if (p.transient_local) {
        dds_history_kind_t hk;
        int32_t hd;
        dds_qget_history(q, &hk, &hd);
        dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
        dds_qset_durability_service(q, 0, hk, hd, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
    } else {
        dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
    }
    dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_INFINITY);
    dds_data_representation_id_t xcdr1 = DDS_DATA_REPRESENTATION_XCDR1;
    dds_qset_data_representation(q, 1, &xcdr1);
    return q;
}

/* ---- the ROS graph: ros_discovery_info ----
 * rmw_dds_common's ParticipantEntitiesInfo, as every rmw publishes it on the
 * DDS topic "ros_discovery_info" (no "rt" prefix; reliable, keep last 1,
 * transient local): the participant's GID and its nodes, each with the GIDs
 * of its readers and writers. A GID is the entity's 16-byte DDS GUID, as
 * rmw_cyclonedds makes it, in the 16-byte Gid of Iron and later (Humble's
 * was 24 bytes). Without it `ros2 node list` shows no node and `ros2 topic
 * info -v` no node name. Republished whenever a writer is added (the latest
 * sample replaces the earlier one for late joiners). */

static void put_gid(buf *b, dds_entity_t e)
{
    dds_guid_t g;
    memset(&g, 0, sizeof g);
    dds_get_guid(e, &g);
    b_put(b, g.v, 16); /* uint8[16]: no length, alignment 1 */
}

/* RTPS carries a payload in whole 4-byte words (raw_size): the padding goes on the wire, and the
 * encapsulation options' two low bits say how many bytes of it there are (XTypes 1.3, 7.6.3.1.2), so a
 * reader knows where the message ends. A bag stores the message as it is (options 0). */
static void mark_padding(uint8_t *p, size_t n)
{
    if (n >= 4)
        p[3] = (uint8_t)((p[3] & ~3u) | (uint8_t)(((n + 3) & ~(size_t)3) - n));
}

static sensim_status graph_publish(sensim__dds *d, const char *fn)
{
    if (d->graph <= 0)
        return SENSIM_OK;
    buf b = {0};
    c_begin(&b);
    put_gid(&b, d->participant);
    c_u32(&b, 1); /* one node */
    c_str(&b, d->node_ns);
    c_str(&b, d->node_name);
    c_u32(&b, 0); /* readers */
    c_u32(&b, d->nwriters);
    for (uint32_t i = 0; i < d->nwriters; i++)
        put_gid(&b, d->writers[i]);
    if (b.oom) {
        free(b.p);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    mark_padding(b.p, b.n);
    raw_sample smp = {b.p, b.n};
    dds_return_t rc = dds_write(d->graph, &smp);
    free(b.p);
    return rc < 0 ? dds_fail(fn, "ros_discovery_info", rc) : SENSIM_OK;
}

static sensim_status graph_open(sensim__dds *d)
{
    snprintf(d->node_ns, sizeof d->node_ns, "/");
    snprintf(d->node_name, sizeof d->node_name, "sensim");
    struct ddsi_sertype *st = calloc(1, sizeof *st);
    dds_qos_t *q = topic_qos(SENSIM__ROS_GRAPH, SENSIM_ROS2_QOS_PROFILES);
    if (!st || !q) {
        free(st);
        dds_delete_qos(q);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_ros2_open: out of memory");
    }
    ddsi_sertype_init(st, "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_", &raw_sertype_ops, &raw_serdata_ops,
                      true);
    dds_entity_t t = dds_create_topic_sertype(d->participant, "ros_discovery_info", &st, q, NULL, NULL);
    if (t < 0) {
        dds_delete_qos(q);
        raw_type_free(st);
        return dds_fail("sensim_ros2_open", "ros_discovery_info", t);
    }
    d->graph = dds_create_writer(d->participant, t, q, NULL);
    dds_delete_qos(q);
    if (d->graph < 0)
        return dds_fail("sensim_ros2_open", "ros_discovery_info", d->graph);
    d->graph_type = st;
    return graph_publish(d, "sensim_ros2_open");
}

/* A ROS name token run: letters, digits, '_' and '/' separators, not starting with a digit. */
static int ros_name_ok(const char *s, int is_ns)
{
    size_t n = strlen(s);
    if (n == 0 || n > 200)
        return 0;
    if (is_ns && (s[0] != '/' || (n > 1 && s[n - 1] == '/')))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
        if (c == '/' ? !is_ns || (i > 0 && s[i - 1] == '/') : !alnum)
            return 0;
        if (c >= '0' && c <= '9' && (i == 0 || s[i - 1] == '/'))
            return 0;
    }
    return 1;
}

sensim_status sensim_ros2_set_node(sensim_mcap *m, const char *ns, const char *name)
{
    if (!m || !ns || !name)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_set_node: NULL argument");
    if (m->magic != SENSIM_MAGIC_MCAP)
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_ros2_set_node: writer is not a live writer");
    if (!m->live)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_set_node: a bag writer has no node");
    if (!ros_name_ok(ns, 1))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_set_node: namespace '%.60s' is not a ROS "
                            "namespace ('/' or '/a/b': letters, digits, '_', no token starting with a digit)", ns);
    if (!ros_name_ok(name, 0))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_set_node: node name '%.60s' is not a ROS "
                            "node name (letters, digits, '_', not starting with a digit)", name);
    snprintf(m->live->node_ns, sizeof m->live->node_ns, "%s", ns);
    snprintf(m->live->node_name, sizeof m->live->node_name, "%s", name);
    return graph_publish(m->live, "sensim_ros2_set_node");
}

sensim_status sensim__dds_add_topic(sensim__dds *d, uint32_t i, const char *name, int32_t type)
{
    char dname[300], tname[128];
    snprintf(dname, sizeof dname, "rt%s", name);
    dds_type_name(tname, sizeof tname, sensim__ros2_type_names[type]);
    struct ddsi_sertype *st = calloc(1, sizeof *st);
    if (!st)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap_add_topic: out of memory");
    ddsi_sertype_init(st, tname, &raw_sertype_ops, &raw_serdata_ops, true);
    dds_qos_t *q = topic_qos(type, d->qos);
    if (!q) {
        raw_type_free(st);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap_add_topic: out of memory");
    }
    /* the topic takes the sertype (or an equal one it already has, freeing ours) */
    dds_entity_t t = dds_create_topic_sertype(d->participant, dname, &st, q, NULL, NULL);
    if (t < 0) {
        dds_delete_qos(q);
        raw_type_free(st);
        return dds_fail("sensim_mcap_add_topic", dname, t);
    }
    dds_entity_t w = dds_create_writer(d->participant, t, q, NULL);
    dds_delete_qos(q);
    if (w < 0)
        return dds_fail("sensim_mcap_add_topic", dname, w);
    d->writers[i] = w;
    d->types[i] = st;
    d->nwriters = i + 1;
    return graph_publish(d, "sensim_mcap_add_topic");
}

sensim_status sensim__dds_publish(sensim_mcap *m, uint16_t tp)
{
    sensim__dds *d = m->live;
    dds_return_t rc;
    buf *b = &m->msg;
    size_t n = b->n, padded = (n + 3) & ~(size_t)3;
    uint8_t *fresh = n <= UINT32_MAX - 4 && b_reserve(b, padded - n) ? malloc(b->cap) : NULL;
    raw_serdata *sd = fresh ? calloc(1, sizeof *sd) : NULL;
    if (!b->oom)
        mark_padding(b->p, n);
    if (sd) {
        /* the message's buffer becomes the sample (no copy); the writer goes on in a fresh one */
        memset(b->p + n, 0, padded - n);
        ddsi_serdata_init(&sd->c, d->types[tp], SDK_DATA);
        sd->c.hash = d->types[tp]->serdata_basehash;
        sd->p = b->p, sd->n = (uint32_t)n;
        b->p = fresh, b->n = 0;
        rc = dds_writecdr(d->writers[tp], &sd->c); /* takes the sample's reference */
    } else {
        free(fresh);
        b->oom = 0;
        raw_sample s = {b->p, n}; /* short of memory for a second buffer: DDS copies it */
        rc = dds_write(d->writers[tp], &s);
    }
    if (rc == DDS_RETCODE_TIMEOUT) {
        d->dropped++;
        return SENSIM_OK;
    }
    if (rc < 0)
        return dds_fail("sensim_mcap_write", m->topics[tp].name, rc);
    m->messages++;
    m->bytes += n;
    return SENSIM_OK;
}

uint64_t sensim__dds_dropped(const sensim__dds *d) { return d->dropped; }

sensim_status sensim_ros2_subscribers(const sensim_mcap *m, uint16_t tp, uint32_t *out_count)
{
    if (out_count)
        *out_count = 0;
    if (!m || !out_count)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_subscribers: NULL argument");
    if (m->magic != SENSIM_MAGIC_MCAP)
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_ros2_subscribers: writer is not a live writer");
    if (!m->live)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_subscribers: a bag writer has no subscribers");
    if (tp >= m->ntopics)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_subscribers: topic %u was never added", tp);
    dds_publication_matched_status_t s;
    dds_return_t rc = dds_get_publication_matched_status(m->live->writers[tp], &s);
    if (rc < 0)
        return dds_fail("sensim_ros2_subscribers", m->topics[tp].name, rc);
    *out_count = s.current_count;
    return SENSIM_OK;
}

static const char *policy_name(dds_qos_policy_id_t id)
{
    switch (id) {
    case DDS_DURABILITY_QOS_POLICY_ID: return "DURABILITY";
    case DDS_DEADLINE_QOS_POLICY_ID: return "DEADLINE";
    case DDS_LIVELINESS_QOS_POLICY_ID: return "LIVELINESS";
    case DDS_RELIABILITY_QOS_POLICY_ID: return "RELIABILITY";
    case DDS_HISTORY_QOS_POLICY_ID: return "HISTORY";
    case DDS_PARTITION_QOS_POLICY_ID: return "PARTITION";
    case DDS_OWNERSHIP_QOS_POLICY_ID: return "OWNERSHIP";
    case DDS_DESTINATIONORDER_QOS_POLICY_ID: return "DESTINATION_ORDER";
    case DDS_PRESENTATION_QOS_POLICY_ID: return "PRESENTATION";
    case DDS_LATENCYBUDGET_QOS_POLICY_ID: return "LATENCY_BUDGET";
    case DDS_DATA_REPRESENTATION_QOS_POLICY_ID: return "DATA_REPRESENTATION";
    case DDS_INVALID_QOS_POLICY_ID: return "";
    default: return "another policy";
    }
}

sensim_status sensim_ros2_incompatible(const sensim_mcap *m, uint16_t tp, uint32_t *out_count,
                                       const char **out_policy)
{
    if (out_count)
        *out_count = 0;
    if (out_policy)
        *out_policy = "";
    if (!m || !out_count)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_incompatible: NULL argument");
    if (m->magic != SENSIM_MAGIC_MCAP)
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_ros2_incompatible: writer is not a live writer");
    if (!m->live)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_incompatible: a bag writer has no readers");
    if (tp >= m->ntopics)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_incompatible: topic %u was never added", tp);
    dds_offered_incompatible_qos_status_t s;
    dds_return_t rc = dds_get_offered_incompatible_qos_status(m->live->writers[tp], &s);
    if (rc < 0)
        return dds_fail("sensim_ros2_incompatible", m->topics[tp].name, rc);
    *out_count = s.total_count;
    if (out_policy)
        *out_policy = s.total_count ? policy_name((dds_qos_policy_id_t)s.last_policy_id) : "";
    return SENSIM_OK;
}

void sensim__dds_close(sensim__dds *d)
{
    if (!d)
        return;
    if (d->participant > 0)
        dds_delete(d->participant); /* writers and topics with it */
    free(d);
}

#endif
