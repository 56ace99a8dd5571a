/* Live ROS 2 over Cyclone DDS: a writer's transport (transport.h) that
 * publishes the messages (the CDR bytes a bag holds, built by mcap_msgs.c)
 * as DDS samples instead of storing them. ROS 2's RMWs name a topic /a/b
 * "rt/a/b" and a type pkg/msg/Name "pkg::msg::dds_::Name_"; a sample is the
 * message's CDR with its 4-byte encapsulation header, carried by the
 * sertype of dds_raw.c. The participant also publishes the ROS graph
 * (ros_discovery_info) and hosts the readers of ros2_read.c. */
#include "internal.h"

#include <sensim/mcap.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#else

#include "dds_impl.h"

#include <ctype.h>
#include <pthread.h>
#include <signal.h>
#include <dds/ddsrt/environ.h>
#include <dds/ddsrt/heap.h>
#include <dds/ddsrt/xmlparser.h>
#include <strings.h>

int sensim_ros2_available(void) { return 1; }

static sensim_status graph_open(sensim__dds *d);
static void dds_close(void *impl);

/* ---- the writer ---- */


/* CYCLONEDDS_URI is input: Cyclone reads every source it lists before the
 * participant exists, and two kinds of value make that unbounded.
 *
 * Files (file://PATH or a plain PATH, comma separated) are read with plain
 * blocking reads: a FIFO there blocks the participant's creation forever, a
 * device never ends. Each must be a regular file of at most 16 MiB.
 *
 * Discovery/MaxAutoParticipantIndex: for every unicast peer given without a
 * port, Cyclone adds one address per participant index 0..max to the peer
 * set in rtps_init, one allocation each, in a loop nothing interrupts
 * (2000000000 grew the process by 75 MB/s, deaf to SIGINT and SIGTERM). The
 * largest index is 119: the DDSI-RTPS port mapping Cyclone uses (base 7400,
 * domain gain 250, participant gain 2, offsets up to 11) gives index 120
 * the next domain's discovery port, and Cyclone's own manual bounds an
 * explicit ParticipantIndex below 120. With it, the peers are bounded too:
 * at most 1024 peers at the full range (122 880 addresses, a few MB).
 *
 * The sources are read here with Cyclone's own tokenizer (ddsrt_xmlp, the
 * parser dds_create_participant uses, with its options for inline XML:
 * `</>` closes, a missing close ends the input), names matched as Cyclone
 * matches them (any case; in inline XML a prefix of the name), ${VAR}
 * expanded by Cyclone's function. Whatever Cyclone itself would reject is
 * left to it: it fails the participant with its own message. */
#define CYCLONE_MAX_AUTO_INDEX 119
#define CYCLONE_MAX_PEER_ADDRESSES (1024 * (CYCLONE_MAX_AUTO_INDEX + 1))
#define CFG_DEPTH 32

typedef struct cfg_scan {
    const char *source;          /* the file, or "inline XML" */
    int inline_xml;
    uint32_t domain;
    int depth;
    char names[CFG_DEPTH][32];   /* the open elements (cut at 31 bytes: longer names match nothing here) */
    long long max_index;         /* the last MaxAutoParticipantIndex read (Cyclone's default: 9) */
    uint64_t peers;
    char where[PATH_MAX + 32];   /* file:line of the last peer, for the message */
    sensim_status st;
} cfg_scan;

/* Does element @p name stand for Cyclone's @p full? Any case; inline XML also takes a prefix. */
static int cfg_is(const cfg_scan *c, const char *name, const char *full)
{
    size_t n = strlen(name);
    return n && (!strcasecmp(name, full) || (c->inline_xml && n < strlen(full) && !strncasecmp(name, full, n)));
}

static int cfg_open(void *varg, uintptr_t parentinfo, uintptr_t *eleminfo, const char *name, int line)
{
    cfg_scan *c = varg;
    (void)parentinfo, (void)eleminfo;
    if (c->depth < CFG_DEPTH)
        snprintf(c->names[c->depth], sizeof c->names[0], "%s", strlen(name) < sizeof c->names[0] ? name : "");
    c->depth++;
    if (c->depth >= 2 && c->depth <= CFG_DEPTH && cfg_is(c, name, "Peer")) {
        int under_peers = 0;
        for (int i = 0; i < c->depth - 1; i++)
            under_peers |= cfg_is(c, c->names[i], "Peers");
        if (under_peers) {
            c->peers++;
            snprintf(c->where, sizeof c->where, "%s:%d", c->source, line);
        }
    }
    return 0;
}

static int cfg_attr(void *varg, uintptr_t eleminfo, const char *name, const char *value, int line)
{
    (void)varg, (void)eleminfo, (void)name, (void)value, (void)line;
    return 0;
}

static int cfg_data(void *varg, uintptr_t eleminfo, const char *data, int line)
{
    cfg_scan *c = varg;
    (void)eleminfo;
    if (c->depth < 2 || c->depth > CFG_DEPTH || !cfg_is(c, c->names[c->depth - 1], "MaxAutoParticipantIndex") ||
        !cfg_is(c, c->names[c->depth - 2], "Discovery"))
        return 0;
    char *x = ddsrt_expand_envvars(data, c->domain);
    if (!x)
        return 0;
    const char *v = x;
    while (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n')
        v++;
    char *end;
    errno = 0;
    long long n = strtoll(v, &end, 0);
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (end != v && !*end) { /* not a number: Cyclone refuses it itself */
        c->max_index = n;
        if (n > CYCLONE_MAX_AUTO_INDEX) {
            c->st = sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "CYCLONEDDS_URI: %s:%d: Discovery/MaxAutoParticipantIndex "
                                 "%.40s is above %d: refusing it (Cyclone DDS would add an address for every index "
                                 "up to it to each unicast peer, without bound; %d is the most one domain's ports "
                                 "hold)", c->source, line, v, CYCLONE_MAX_AUTO_INDEX, CYCLONE_MAX_AUTO_INDEX);
            ddsrt_free(x);
            return -1;
        }
    }
    ddsrt_free(x);
    return 0;
}

static int cfg_close(void *varg, uintptr_t eleminfo, int line)
{
    cfg_scan *c = varg;
    (void)eleminfo, (void)line;
    c->depth--;
    return 0;
}

static void cfg_error(void *varg, const char *msg, int line)
{
    (void)varg, (void)msg, (void)line; /* Cyclone reports its own parse errors */
}

static sensim_status check_cyclone_uri(uint32_t domain)
{
    const char *u = getenv("CYCLONEDDS_URI");
    if (!u)
        return SENSIM_OK;
    static const struct ddsrt_xmlp_callbacks cb = {cfg_open, cfg_attr, cfg_data, cfg_close, cfg_error};
    cfg_scan c;
    memset(&c, 0, sizeof c);
    c.domain = domain, c.max_index = 9;
    char *copy = strdup(u);
    if (!copy)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_ros2_open: out of memory");
    /* Cyclone's loop over the sources (ddsi_config_init): inline XML runs to where its parser stops,
     * a file name to the next comma; spaces and commas between sources skipped */
    char *cursor = copy;
    sensim_status st = SENSIM_OK;
    while (cursor && *cursor && !st) {
        while (*cursor && (isspace((unsigned char)*cursor) || *cursor == ','))
            cursor++;
        if (!*cursor)
            break;
        char *tok = cursor;
        struct ddsrt_xmlp_state *qx;
        FILE *fp = NULL;
        if (tok[0] == '<') {
            c.source = "inline XML", c.inline_xml = 1;
            qx = ddsrt_xmlp_new_string(tok, &c, &cb);
            if (qx)
                ddsrt_xmlp_set_options(qx, DDSRT_XMLP_ANONYMOUS_CLOSE_TAG | DDSRT_XMLP_MISSING_CLOSE_AS_EOF);
        } else {
            char *comma = strchr(tok, ',');
            cursor = comma ? comma + 1 : NULL;
            if (comma)
                *comma = 0;
            const char *path = tok; /* Cyclone opens the token as it is, else what follows file:// */
            struct stat sb;
            if (stat(path, &sb) != 0 && !strncmp(tok, "file://", 7)) {
                path = tok + 7;
                if (!*path) {
                    st = sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "CYCLONEDDS_URI: a file:// entry without a path");
                    break;
                }
            }
            if (stat(path, &sb) != 0) {
                st = sensim__fail(SENSIM_ERR_IO, "CYCLONEDDS_URI: %s: %s", path, strerror(errno));
                break;
            }
            if (!S_ISREG(sb.st_mode) || sb.st_size > (16 << 20)) {
                st = sensim__fail(SENSIM_ERR_IO, "CYCLONEDDS_URI: %s is %s: refusing it (Cyclone DDS would block "
                                  "or read without end)", path, S_ISREG(sb.st_mode) ? "larger than 16 MiB"
                                  : S_ISFIFO(sb.st_mode) ? "a FIFO, not a regular file" : "not a regular file");
                break;
            }
            if (!(fp = fopen(path, "r"))) {
                st = sensim__fail(SENSIM_ERR_IO, "CYCLONEDDS_URI: %s: %s", path, strerror(errno));
                break;
            }
            c.source = path, c.inline_xml = 0;
            qx = ddsrt_xmlp_new_file(fp, &c, &cb);
        }
        if (!qx) {
            if (fp)
                fclose(fp);
            break;
        }
        c.depth = 0;
        int ok = ddsrt_xmlp_parse(qx) >= 0;
        st = c.st;
        if (!fp && ok)
            cursor = tok + ddsrt_xmlp_get_bufpos(qx);
        ddsrt_xmlp_free(qx);
        if (fp)
            fclose(fp);
        if (!ok) /* a parse error: Cyclone stops there too, and says why */
            break;
    }
    free(copy);
    if (!st && c.peers && c.peers * (uint64_t)(c.max_index + 1) > CYCLONE_MAX_PEER_ADDRESSES)
        st = sensim__fail(SENSIM_ERR_TOO_LARGE, "CYCLONEDDS_URI: %s: %llu Discovery/Peers/Peer entries with "
                          "MaxAutoParticipantIndex %lld make %llu peer addresses, above %d: refusing them (Cyclone "
                          "DDS makes one per peer and index)", c.where, (unsigned long long)c.peers, c.max_index,
                          (unsigned long long)(c.peers * (uint64_t)(c.max_index + 1)), CYCLONE_MAX_PEER_ADDRESSES);
    return st;
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
    for (int i = 0; i < 3; i++)
        if (o.reserved[i] || o.reserved_i32)
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_open: options.reserved%s is not zero",
                                o.reserved_i32 ? "_i32" : "[]");
    if (o.graph_gid_bytes != 0 && o.graph_gid_bytes != 16 && o.graph_gid_bytes != 24)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_open: graph_gid_bytes %d is not 16 (Iron and "
                            "later) or 24 (Humble)", o.graph_gid_bytes);
    if (o.qos != SENSIM_ROS2_QOS_PROFILES && o.qos != SENSIM_ROS2_QOS_RELIABLE)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_open: qos %d unknown", o.qos);
    if (o.domain_id < -1 || o.domain_id > 232)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_ros2_open: domain_id %d outside -1..232", o.domain_id);
    sensim_status st;
    if (o.domain_id == -1 && (st = env_domain(&o.domain_id)))
        return st;
    if ((st = check_cyclone_uri((uint32_t)o.domain_id)))
        return st;
    sensim__dds *d = calloc(1, sizeof *d);
    if (!d)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_ros2_open: out of memory");
    /* as rmw_cyclonedds: the participant's user data names its security enclave */
    dds_qos_t *q = dds_create_qos();
    if (q)
        dds_qset_userdata(q, "enclave=/;", 10);
    d->participant = dds_create_participant((dds_domainid_t)o.domain_id, q, NULL);
    dds_delete_qos(q);
    if (d->participant < 0) {
        st = sensim__dds_fail("sensim_ros2_open", "cannot create a DDS participant (check CYCLONEDDS_URI)",
                              d->participant);
        free(d);
        return st;
    }
    d->qos = o.qos;
    d->gid_bytes = o.graph_gid_bytes ? o.graph_gid_bytes : 16;
    if ((st = graph_open(d))) {
        dds_close(d);
        return st;
    }
    char label[32];
    snprintf(label, sizeof label, "ROS 2 domain %d", o.domain_id);
    return sensim__mcap_open_transport(&sensim__dds_ops, d, label, out); /* closes d on failure */
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
 * sample replaces the earlier one for late joiners). Iron and later: the
 * writer's USER_DATA is "typehash=<ParticipantEntitiesInfo's RIHS01>;". */

static void put_gid(buf *b, dds_entity_t e, int bytes)
{
    static const uint8_t zero[8] = {0};
    dds_guid_t g;
    memset(&g, 0, sizeof g);
    dds_get_guid(e, &g);
    b_put(b, g.v, 16); /* uint8[16] (Humble: char[24], the GUID then zeros): no length, alignment 1 */
    b_put(b, zero, (size_t)bytes - 16);
}


sensim_status sensim__dds_graph_publish(sensim__dds *d, const char *fn)
{
    if (d->graph <= 0)
        return SENSIM_OK;
    buf b = {0};
    c_begin(&b);
    put_gid(&b, d->participant, d->gid_bytes);
    c_u32(&b, 1); /* one node */
    c_str(&b, d->node_ns);
    c_str(&b, d->node_name);
    c_u32(&b, d->nreaders);
    for (uint32_t i = 0; i < d->nreaders; i++)
        put_gid(&b, d->readers[i], d->gid_bytes);
    c_u32(&b, d->nwriters);
    for (uint32_t i = 0; i < d->nwriters; i++)
        put_gid(&b, d->writers[i], d->gid_bytes);
    if (b.oom) {
        free(b.p);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    }
    sensim__dds_mark_padding(b.p, b.n);
    raw_sample smp = {b.p, b.n};
    dds_return_t rc = dds_write(d->graph, &smp);
    free(b.p);
    return rc < 0 ? sensim__dds_fail(fn, "ros_discovery_info", rc) : SENSIM_OK;
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
    ddsi_sertype_init(st, "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_", &sensim__raw_sertype_ops, &sensim__raw_serdata_ops,
                      true);
    dds_entity_t t = dds_create_topic_sertype(d->participant, "ros_discovery_info", &st, q, NULL, NULL);
    if (t < 0) {
        dds_delete_qos(q);
        sensim__raw_type_free(st);
        return sensim__dds_fail("sensim_ros2_open", "ros_discovery_info", t);
    }
    /* as the data writers' (dds_add_topic): rmw_cyclonedds of Iron and later makes ros_discovery_info's
       endpoints as any other, USER_DATA naming the type's hash */
    if (d->gid_bytes == 16) {
        char ud[100];
        int n = snprintf(ud, sizeof ud, "typehash=%s;", sensim__ros2_graph_type_hash);
        dds_qset_userdata(q, ud, (size_t)n);
    }
    d->graph = dds_create_writer(d->participant, t, q, NULL);
    dds_delete_qos(q);
    if (d->graph < 0)
        return sensim__dds_fail("sensim_ros2_open", "ros_discovery_info", d->graph);
    d->graph_type = st;
    return sensim__dds_graph_publish(d, "sensim_ros2_open");
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

sensim__dds *sensim__dds_of(const sensim_mcap *m, const char *fn, sensim_status *st)
{
    sensim__dds *d = sensim__mcap_transport(m, &sensim__dds_ops);
    *st = SENSIM_OK;
    if (!d)
        *st = !m ? sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: writer is NULL", fn)
              : !sensim__mcap_is_open(m)
                  ? sensim__fail(SENSIM_ERR_BAD_HANDLE, "%s: writer is not a live writer", fn)
                  : sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: a bag writer has no DDS side (sensim_ros2_open "
                                 "makes a live one)", fn);
    return d;
}

/* The DDS writer of topic @p tp, or 0 after a message. */
static dds_entity_t writer_of(const sensim_mcap *m, uint16_t tp, const char *fn, sensim_status *st)
{
    sensim__dds *d = sensim__dds_of(m, fn, st);
    if (!d)
        return 0;
    if (tp >= d->nwriters) {
        *st = sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: topic %u was never added", fn, tp);
        return 0;
    }
    return d->writers[tp];
}

static sensim_status set_node(sensim_mcap *m, const char *ns, const char *name)
{
    sensim_status st;
    sensim__dds *d = sensim__dds_of(m, "sensim_ros2_set_node", &st);
    if (!d)
        return st;
    if (!ns || !name)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_set_node: NULL argument");
    if (!ros_name_ok(ns, 1))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_set_node: namespace '%.60s' is not a ROS "
                            "namespace ('/' or '/a/b': letters, digits, '_', no token starting with a digit)", ns);
    if (!ros_name_ok(name, 0))
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_set_node: node name '%.60s' is not a ROS "
                            "node name (letters, digits, '_', not starting with a digit)", name);
    snprintf(d->node_ns, sizeof d->node_ns, "%s", ns);
    snprintf(d->node_name, sizeof d->node_name, "%s", name);
    return sensim__dds_graph_publish(d, "sensim_ros2_set_node");
}

static sensim_status dds_add_topic(void *impl, uint32_t i, const char *name, int32_t type)
{
    sensim__dds *d = impl;
    char dname[300], tname[128];
    snprintf(dname, sizeof dname, "rt%s", name);
    sensim__dds_type_name(tname, sizeof tname, sensim__ros2_type_names[type]);
    struct ddsi_sertype *st = calloc(1, sizeof *st);
    if (!st)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap_add_topic: out of memory");
    ddsi_sertype_init(st, tname, &sensim__raw_sertype_ops, &sensim__raw_serdata_ops, true);
    dds_qos_t *q = topic_qos(type, d->qos);
    if (!q) {
        sensim__raw_type_free(st);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_mcap_add_topic: out of memory");
    }
    /* the topic takes the sertype (or an equal one it already has, freeing ours) */
    dds_entity_t t = dds_create_topic_sertype(d->participant, dname, &st, q, NULL, NULL);
    if (t < 0) {
        dds_delete_qos(q);
        sensim__raw_type_free(st);
        return sensim__dds_fail("sensim_mcap_add_topic", dname, t);
    }
    /* as rmw_cyclonedds of Iron and later: the writer's USER_DATA names the type's RIHS01 hash
       ("typehash=RIHS01_<hex>;"), which Jazzy's tools match endpoints by; Humble's rmw sends none */
    if (d->gid_bytes == 16) {
        char ud[100];
        int n = snprintf(ud, sizeof ud, "typehash=%s;", sensim__ros2_type_hashes[type]);
        dds_qset_userdata(q, ud, (size_t)n);
    }
    dds_entity_t w = dds_create_writer(d->participant, t, q, NULL);
    dds_delete_qos(q);
    if (w < 0)
        return sensim__dds_fail("sensim_mcap_add_topic", dname, w);
    d->writers[i] = w;
    d->types[i] = st;
    d->nwriters = i + 1;
    return sensim__dds_graph_publish(d, "sensim_mcap_add_topic");
}

static sensim_status dds_send(void *impl, uint32_t tp, const char *name, buf *b, int *sent)
{
    sensim__dds *d = impl;
    dds_return_t rc;
    size_t n = b->n, padded = (n + 3) & ~(size_t)3;
    *sent = 0;
    uint8_t *fresh = n <= UINT32_MAX - 4 && b_reserve(b, padded - n) ? malloc(b->cap) : NULL;
    raw_serdata *sd = fresh ? calloc(1, sizeof *sd) : NULL;
    if (!b->oom)
        sensim__dds_mark_padding(b->p, n);
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
        raw_sample smp = {b->p, n}; /* short of memory for a second buffer: DDS copies it */
        rc = dds_write(d->writers[tp], &smp);
    }
    if (rc == DDS_RETCODE_TIMEOUT) {
        d->dropped++;
        return SENSIM_OK;
    }
    if (rc < 0)
        return sensim__dds_fail("sensim_mcap_write", name, rc);
    *sent = 1;
    return SENSIM_OK;
}

static uint64_t dds_dropped(const void *impl) { return ((const sensim__dds *)impl)->dropped; }

static sensim_status subscribers(const sensim_mcap *m, uint16_t tp, uint32_t *out_count)
{
    if (out_count)
        *out_count = 0;
    if (!out_count)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_subscribers: NULL argument");
    sensim_status st;
    dds_entity_t w = writer_of(m, tp, "sensim_ros2_subscribers", &st);
    if (!w)
        return st;
    dds_publication_matched_status_t s;
    dds_return_t rc = dds_get_publication_matched_status(w, &s);
    if (rc < 0)
        return sensim__dds_fail("sensim_ros2_subscribers", "a topic's writer", rc);
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

static sensim_status incompatible(const sensim_mcap *m, uint16_t tp, uint32_t *out_count, const char **out_policy)
{
    if (out_count)
        *out_count = 0;
    if (out_policy)
        *out_policy = "";
    if (!out_count)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_ros2_incompatible: NULL argument");
    sensim_status st;
    dds_entity_t w = writer_of(m, tp, "sensim_ros2_incompatible", &st);
    if (!w)
        return st;
    dds_offered_incompatible_qos_status_t s;
    dds_return_t rc = dds_get_offered_incompatible_qos_status(w, &s);
    if (rc < 0)
        return sensim__dds_fail("sensim_ros2_incompatible", "a topic's writer", rc);
    *out_count = s.total_count;
    if (out_policy)
        *out_policy = s.total_count ? policy_name((dds_qos_policy_id_t)s.last_policy_id) : "";
    return SENSIM_OK;
}

static void *delete_entity(void *arg)
{
    dds_delete((dds_entity_t)(intptr_t)arg);
    return NULL;
}

/* Closing. A reliable writer whose samples a matched reader has not
 * acknowledged is kept by Cyclone for WriterLingerDuration (1 s by default)
 * before it goes, and dds_delete waits for that: a reader that vanished
 * without saying so (a subscriber killed or crashed, still matched until its
 * lease of 10 s ends) made a close wait 1 s per topic, one topic after the
 * other (8 s for a rig of 4 sensors: past the CLI's 3 s grace after Ctrl-C).
 * The writers are deleted side by side, one short-lived thread each (signals
 * blocked, so they go to the caller's threads as before): a close waits one
 * linger at most. A thread that cannot be made deletes its writer in line. */
static void dds_close(void *impl)
{
    sensim__dds *d = impl;
    if (!d)
        return;
    if (d->participant > 0) {
        pthread_t t[SENSIM__MAX_TOPICS + 1];
        int made[SENSIM__MAX_TOPICS + 1] = {0};
        uint32_t n = 0;
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        pthread_attr_t at;
        int have_at = pthread_attr_init(&at) == 0;
        if (have_at)
            pthread_attr_setstacksize(&at, 256 << 10);
        for (uint32_t i = 0; i <= d->nwriters && i <= SENSIM__MAX_TOPICS; i++) {
            dds_entity_t w = i < d->nwriters ? d->writers[i] : d->graph;
            if (w <= 0)
                continue;
            made[n] = pthread_create(&t[n], have_at ? &at : NULL, delete_entity, (void *)(intptr_t)w) == 0;
            if (!made[n])
                dds_delete(w);
            n++;
        }
        if (have_at)
            pthread_attr_destroy(&at);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        for (uint32_t i = 0; i < n; i++)
            if (made[i])
                pthread_join(t[i], NULL);
        dds_delete(d->participant); /* readers and topics with it */
    }
    free(d);
}

const sensim__transport_ops sensim__dds_ops = {dds_add_topic, dds_send, dds_dropped, dds_close};

/* The writer's lock around each call (mcap_impl.h): a publisher is shared by threads. */
sensim_status sensim_ros2_set_node(sensim_mcap *m, const char *ns, const char *name)
{
    SENSIM__MCAP_LOCKED(m, set_node(m, ns, name));
}

sensim_status sensim_ros2_subscribers(const sensim_mcap *m, uint16_t tp, uint32_t *out_count)
{
    SENSIM__MCAP_LOCKED(m, subscribers(m, tp, out_count));
}

sensim_status sensim_ros2_incompatible(const sensim_mcap *m, uint16_t tp, uint32_t *out_count,
                                       const char **out_policy)
{
    SENSIM__MCAP_LOCKED(m, incompatible(m, tp, out_count, out_policy));
}

#endif
