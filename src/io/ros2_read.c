/* Live readers (sensim_ros2_reader, sensim/mcap.h): a topic's messages as
 * their CDR bytes, on a live writer's participant, listed on its node in
 * ros_discovery_info. */
#include "internal.h"

#include <sensim/mcap.h>

#include "ros2_msgdefs.h"

#include <string.h>

const char *sensim_ros2_message_definition(const char *ros_type)
{
    for (int i = 0; ros_type && i < SENSIM__ROS2_TYPES; i++)
        if (!strcmp(ros_type, sensim__ros2_type_names[i]))
            return sensim__ros2_msgdefs[i];
    return NULL;
}

#ifndef SENSIM_HAVE_DDS

sensim_status sensim_ros2_publications(sensim_mcap *m, sensim_ros2_endpoint *out, uint32_t cap, uint32_t *out_count)
{
    (void)m, (void)out, (void)cap;
    if (out_count)
        *out_count = 0;
    return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_publications: not a live writer (built without "
                                                     "Cyclone DDS)");
}

sensim_status sensim_ros2_reader_open(sensim_mcap *m, const char *topic, const char *ros_type,
                                      sensim_ros2_reader **out)
{
    (void)m, (void)topic, (void)ros_type;
    if (out)
        *out = NULL;
    return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_reader_open: not a live writer (built without "
                                                     "Cyclone DDS)");
}
sensim_status sensim_ros2_read(sensim_ros2_reader *r, int64_t timeout_ns, const uint8_t **out_cdr, size_t *out_size)
{
    (void)r, (void)timeout_ns;
    if (out_cdr)
        *out_cdr = NULL;
    if (out_size)
        *out_size = 0;
    return sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_ros2_read: not an open reader (built without Cyclone DDS)");
}
sensim_status sensim_ros2_reader_publishers(const sensim_ros2_reader *r, uint32_t *out_now, uint32_t *out_ever)
{
    (void)r;
    if (out_now)
        *out_now = 0;
    if (out_ever)
        *out_ever = 0;
    return sensim__fail(SENSIM_ERR_BAD_HANDLE, "sensim_ros2_reader_publishers: not an open reader (built without "
                                               "Cyclone DDS)");
}
void sensim_ros2_reader_close(sensim_ros2_reader *r) { (void)r; }

#else

#include "dds_impl.h"

/* ---- reading: a topic's messages as CDR bytes (sensim_ros2_reader) ---- */

#define SENSIM_MAGIC_ROS2_READER 0x52534452u /* "RDSR" */

struct sensim_ros2_reader {
    uint32_t magic;
    const sensim_mcap *m;      /* the writer whose participant it is on */
    sensim__dds *d;
    dds_entity_t dtopic, reader;
    int qos_known;             /* the QoS came from publications (else ROS's default until one is refused) */
    char dname[300], tname[128];
    const char *type_hash;     /* RIHS01 hash of a type libsensim knows (ros2_msgdefs.c), else NULL */
    struct ddsi_serdata *held; /* the sample the last read returned */
    char topic[256];
};

/* The QoS `ros2 topic echo` would pick: reliable unless a publisher is best effort, transient local
 * when every publisher is; with no publisher known, ROS's default (reliable, volatile), made best effort
 * later if a best-effort publisher is refused for it (sensim_ros2_read). Keep last READ_DEPTH. *npubs:
 * the publications of this topic and type seen. */
static dds_qos_t *reader_qos(dds_entity_t pp, const char *dname, const char *tname, int *npubs,
                             int force_best_effort)
{
    int n = 0, best_effort = 0, all_tl = 1;
    dds_entity_t rd = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
    if (rd > 0) {
        void *eps[32] = {0};
        dds_sample_info_t info[32];
        dds_return_t k;
        while ((k = dds_take(rd, eps, info, 32, 32)) > 0) { /* a reader of our own: taking empties it */
            for (int i = 0; i < k; i++) {
                const dds_builtintopic_endpoint_t *e = eps[i];
                if (!info[i].valid_data || !e->topic_name || strcmp(e->topic_name, dname) || !e->type_name ||
                    strcmp(e->type_name, tname))
                    continue;
                dds_reliability_kind_t rk = DDS_RELIABILITY_RELIABLE;
                dds_durability_kind_t dk = DDS_DURABILITY_VOLATILE;
                dds_duration_t blk;
                dds_qget_reliability(e->qos, &rk, &blk);
                dds_qget_durability(e->qos, &dk);
                n++;
                best_effort |= rk == DDS_RELIABILITY_BEST_EFFORT;
                all_tl &= dk == DDS_DURABILITY_TRANSIENT_LOCAL;
            }
            dds_return_loan(rd, eps, k);
        }
        dds_delete(rd);
    }
    *npubs = n;
    dds_qos_t *q = dds_create_qos();
    if (!q)
        return NULL;
    dds_qset_reliability(q, best_effort || force_best_effort ? DDS_RELIABILITY_BEST_EFFORT : DDS_RELIABILITY_RELIABLE,
                         DDS_INFINITY);
    dds_qset_durability(q, n && all_tl ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
    dds_qset_history(q, DDS_HISTORY_KEEP_LAST, READ_DEPTH);
    return q;
}

/* (Re)create the reader with the QoS the publications known now call for. */
static sensim_status reader_make(sensim_ros2_reader *r, int force_best_effort)
{
    int npubs = 0;
    dds_qos_t *q = reader_qos(r->d->participant, r->dname, r->tname, &npubs, force_best_effort);
    if (!q)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_ros2_reader_open: out of memory");
    if (r->type_hash && r->d->gid_bytes == 16) { /* as rmw_cyclonedds of Iron and later (ros2_dds.c) */
        char ud[100];
        int n = snprintf(ud, sizeof ud, "typehash=%s;", r->type_hash);
        dds_qset_userdata(q, ud, (size_t)n);
    }
    dds_entity_t rd = dds_create_reader(r->d->participant, r->dtopic, q, NULL);
    dds_delete_qos(q);
    if (rd < 0)
        return sensim__dds_fail("sensim_ros2_reader_open", r->dname, rd);
    sensim__dds *d = r->d;
    for (uint32_t i = 0; i < d->nreaders; i++)
        if (d->readers[i] == r->reader)
            d->readers[i] = rd;
    if (r->reader > 0)
        dds_delete(r->reader);
    r->reader = rd, r->qos_known = npubs > 0 || force_best_effort;
    return SENSIM_OK;
}

static sensim_status reader_open(sensim_mcap *m, const char *name, const char *ros_type, sensim_ros2_reader **out)
{
    const char *tn = name;
    if (out)
        *out = NULL;
    sensim_status st0;
    sensim__dds *d = sensim__dds_of(m, "sensim_ros2_reader_open", &st0);
    if (!d)
        return st0;
    if (!tn || !ros_type || !out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_reader_open: NULL argument");
    if (!sensim__mcap_valid_topic(tn))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_reader_open: topic '%.80s' is not a ROS "
                            "topic name ('/' then letters, digits, '_' and '/', at most 255 bytes)", tn);
    const char *sl = strchr(ros_type, '/');
    if (!sl || !strchr(sl + 1, '/') || strlen(ros_type) > 100 || strchr(ros_type, ':'))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_reader_open: type '%.100s' is not pkg/msg/Name",
                            ros_type);
    sensim_ros2_reader *r = calloc(1, sizeof *r);
    struct ddsi_sertype *st = calloc(1, sizeof *st);
    if (!r || !st) {
        free(r);
        free(st);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_ros2_reader_open: out of memory");
    }
    snprintf(r->dname, sizeof r->dname, "rt%s", tn);
    sensim__dds_type_name(r->tname, sizeof r->tname, ros_type);
    ddsi_sertype_init(st, r->tname, &sensim__raw_sertype_ops, &sensim__raw_serdata_ops, true);
    r->dtopic = dds_create_topic_sertype(d->participant, r->dname, &st, NULL, NULL, NULL);
    if (r->dtopic < 0) {
        sensim__raw_type_free(st);
        sensim_status e = sensim__dds_fail("sensim_ros2_reader_open", r->dname, r->dtopic);
        free(r);
        return e;
    }
    r->m = m, r->d = d;
    for (int i = 0; i < SENSIM__ROS2_TYPES && !r->type_hash; i++)
        if (!strcmp(ros_type, sensim__ros2_type_names[i]))
            r->type_hash = sensim__ros2_type_hashes[i];
    sensim_status e = reader_make(r, 0);
    int listed = !e && d->nreaders < MAX_READERS; /* the graph names at most MAX_READERS readers */
    if (listed)
        d->readers[d->nreaders++] = r->reader;
    if (!e)
        e = sensim__dds_graph_publish(d, "sensim_ros2_reader_open");
    if (e) {
        if (listed)
            d->nreaders--;
        if (r->reader > 0)
            dds_delete(r->reader);
        dds_delete(r->dtopic);
        free(r);
        return e;
    }
    snprintf(r->topic, sizeof r->topic, "%s", tn);
    r->magic = SENSIM_MAGIC_ROS2_READER;
    *out = r;
    return SENSIM_OK;
}

/* "pkg::msg::dds_::Name_" -> "pkg/msg/Name"; 0 when the name is not a ROS type's */
static int ros_type_of(const char *dds, char *out, size_t cap)
{
    const char *d = strstr(dds, "::dds_::");
    size_t n = strlen(dds);
    if (!d || n < 2 || dds[n - 1] != '_' || (size_t)(d - dds) + 9 > n || n >= cap)
        return 0;
    size_t k = 0;
    for (const char *p = dds; p < d; p++) {
        if (p[0] == ':' && p[1] == ':')
            out[k++] = '/', p++;
        else
            out[k++] = *p;
    }
    snprintf(out + k, cap - k, "/%.*s", (int)(n - (size_t)(d + 8 - dds) - 1), d + 8);
    return 1;
}

static sensim_status publications(sensim_mcap *m, sensim_ros2_endpoint *out, uint32_t cap, uint32_t *out_count)
{
    if (out_count)
        *out_count = 0;
    sensim_status st;
    sensim__dds *d = sensim__dds_of(m, "sensim_ros2_publications", &st);
    if (!d)
        return st;
    if (!out_count || (!out && cap))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_publications: NULL argument");
    dds_entity_t rd = dds_create_reader(d->participant, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
    if (rd < 0)
        return sensim__dds_fail("sensim_ros2_publications", "DCPSPublication", rd);
    uint32_t n = 0;
    void *eps[32] = {0};
    dds_sample_info_t info[32];
    dds_return_t k;
    while ((k = dds_take(rd, eps, info, 32, 32)) > 0) {
        for (int i = 0; i < k; i++) {
            const dds_builtintopic_endpoint_t *e = eps[i];
            sensim_ros2_endpoint x;
            memset(&x, 0, sizeof x);
            if (!info[i].valid_data || info[i].instance_state != DDS_IST_ALIVE || !e->topic_name ||
                strncmp(e->topic_name, "rt/", 3) || strlen(e->topic_name) - 2 >= sizeof x.topic || !e->type_name ||
                !ros_type_of(e->type_name, x.type, sizeof x.type))
                continue;
            snprintf(x.topic, sizeof x.topic, "%s", e->topic_name + 2);
            dds_reliability_kind_t rk = DDS_RELIABILITY_RELIABLE;
            dds_durability_kind_t dk = DDS_DURABILITY_VOLATILE;
            dds_history_kind_t hk = DDS_HISTORY_KEEP_LAST;
            dds_duration_t blk;
            int32_t depth = 1;
            dds_qget_reliability(e->qos, &rk, &blk);
            dds_qget_durability(e->qos, &dk);
            dds_qget_history(e->qos, &hk, &depth);
            x.reliable = rk == DDS_RELIABILITY_RELIABLE;
            x.transient_local = dk == DDS_DURABILITY_TRANSIENT_LOCAL;
            x.depth = hk == DDS_HISTORY_KEEP_ALL ? -1 : depth;
            memcpy(x.gid, e->key.v, 16);
            if (n < cap)
                out[n] = x;
            n++;
        }
        dds_return_loan(rd, eps, k);
    }
    dds_delete(rd);
    if (k < 0)
        return sensim__dds_fail("sensim_ros2_publications", "DCPSPublication", k);
    *out_count = n;
    return SENSIM_OK;
}

static sensim_status reader_check(const sensim_ros2_reader *r, const char *fn)
{
    if (!r)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: reader is NULL", fn);
    if (r->magic != SENSIM_MAGIC_ROS2_READER || sensim__mcap_transport(r->m, &sensim__dds_ops) != r->d)
        return sensim__fail(SENSIM_ERR_BAD_HANDLE, "%s: not an open reader of an open writer", fn);
    return SENSIM_OK;
}

sensim_status sensim_ros2_read(sensim_ros2_reader *r, int64_t timeout_ns, const uint8_t **out_cdr, size_t *out_size)
{
    if (out_cdr)
        *out_cdr = NULL;
    if (out_size)
        *out_size = 0;
    sensim_status st = reader_check(r, "sensim_ros2_read");
    if (st)
        return st;
    if (!out_cdr || !out_size)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_read: NULL output");
    if (timeout_ns < 0 || timeout_ns > INT64_C(3600000000000))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_ros2_read: timeout %lld ns outside [0, 1 h]",
                            (long long)timeout_ns);
    if (r->held) {
        ddsi_serdata_unref(r->held);
        r->held = NULL;
    }
    if (!r->qos_known) {
        /* opened reliable before any publisher was known: a best-effort one is refused for RELIABILITY and
         * never delivered anything, so the reader is made again, best effort, losing nothing */
        dds_requested_incompatible_qos_status_t iq;
        dds_subscription_matched_status_t ms;
        if (dds_get_requested_incompatible_qos_status(r->reader, &iq) >= 0 && iq.total_count > 0 &&
            iq.last_policy_id == DDS_RELIABILITY_QOS_POLICY_ID &&
            dds_get_subscription_matched_status(r->reader, &ms) >= 0 && ms.total_count == 0) {
            if ((st = reader_make(r, 1)))
                return st;
            sensim__dds_graph_publish(r->d, "sensim_ros2_read");
        }
    }
    int64_t until = dds_time() + timeout_ns;
    for (;;) {
        struct ddsi_serdata *sd = NULL;
        dds_sample_info_t info;
        dds_return_t n = dds_takecdr(r->reader, &sd, 1, &info, DDS_ANY_STATE);
        if (n < 0)
            return sensim__dds_fail("sensim_ros2_read", r->topic, n);
        if (n == 1 && info.valid_data) {
            r->held = sd;
            *out_cdr = ((const raw_serdata *)sd)->p;
            *out_size = ((const raw_serdata *)sd)->n;
            return SENSIM_OK;
        }
        if (n == 1)
            ddsi_serdata_unref(sd); /* a writer's disposal or unregistration: no data */
        int64_t left = until - dds_time();
        if (n == 0 && left <= 0)
            return SENSIM_OK; /* nothing within the timeout: *out_size 0 */
        if (n == 0) {
            dds_entity_t ws = dds_create_waitset(r->d->participant);
            dds_entity_t rc = dds_create_readcondition(r->reader, DDS_ANY_STATE);
            if (ws > 0 && rc > 0)
                dds_waitset_attach(ws, rc, 0), dds_waitset_wait(ws, NULL, 0, left);
            if (rc > 0)
                dds_delete(rc);
            if (ws > 0)
                dds_delete(ws);
            if (ws <= 0 || rc <= 0)
                return sensim__fail(SENSIM_ERR_BACKEND, "sensim_ros2_read: %s: cannot wait for data", r->topic);
        }
    }
}

sensim_status sensim_ros2_reader_publishers(const sensim_ros2_reader *r, uint32_t *out_now, uint32_t *out_ever)
{
    if (out_now)
        *out_now = 0;
    if (out_ever)
        *out_ever = 0;
    sensim_status st = reader_check(r, "sensim_ros2_reader_publishers");
    if (st)
        return st;
    dds_subscription_matched_status_t m;
    dds_return_t rc = dds_get_subscription_matched_status(r->reader, &m);
    if (rc < 0)
        return sensim__dds_fail("sensim_ros2_reader_publishers", r->topic, rc);
    if (out_now)
        *out_now = m.current_count;
    if (out_ever)
        *out_ever = m.total_count;
    return SENSIM_OK;
}

void sensim_ros2_reader_close(sensim_ros2_reader *r)
{
    if (!r || r->magic != SENSIM_MAGIC_ROS2_READER)
        return;
    r->magic = 0;
    if (r->held)
        ddsi_serdata_unref(r->held);
    if (sensim__mcap_transport(r->m, &sensim__dds_ops) == r->d) { /* the writer still open */
        sensim__dds *d = r->d;
        for (uint32_t i = 0; i < d->nreaders; i++)
            if (d->readers[i] == r->reader) {
                d->readers[i] = d->readers[--d->nreaders];
                break;
            }
        dds_delete(r->reader);
        dds_delete(r->dtopic);
        sensim__dds_graph_publish(d, "sensim_ros2_reader_close");
    }
    free(r);
}

/* The writer's lock around each call on it (mcap_impl.h): a publisher is shared by threads. */
sensim_status sensim_ros2_reader_open(sensim_mcap *m, const char *name, const char *ros_type,
                                      sensim_ros2_reader **out)
{
    SENSIM__MCAP_LOCKED(m, reader_open(m, name, ros_type, out));
}

sensim_status sensim_ros2_publications(sensim_mcap *m, sensim_ros2_endpoint *out, uint32_t cap, uint32_t *out_count)
{
    SENSIM__MCAP_LOCKED(m, publications(m, out, cap, out_count));
}

#endif
