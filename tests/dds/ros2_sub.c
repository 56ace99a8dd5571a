/* A ROS 2 subscriber written against Cyclone DDS alone: the message types
 * come from tests/dds/ros2_msgs.idl compiled by idlc, not from libsensim.
 * It takes each topic twice: decoded by idlc's types (printed as JSON with
 * the keys tests/node/check_mcap.mjs prints for a bag), and as the raw CDR
 * bytes that came over the wire.
 *
 * Usage: ros2_sub OUTDIR [--timeout S] [--probe-reliable | --best-effort] [--count-only] [--graph]
 *                TOPIC:TYPE:COUNT...
 *   TYPE: PointCloud2 Image CameraInfo Imu NavSatFix Odometry TFMessage Clock CarlaEgoVehicleStatus
 *         CarlaEgoVehicleInfo
 * Domain from ROS_DOMAIN_ID; network from CYCLONEDDS_URI. Prints "ready"
 * once its readers exist and "matched" once every reader has matched a
 * writer, then exits 0 when every topic has COUNT messages (OUTDIR/NAME.jsonl
 * and OUTDIR/NAME.cdr: u32 length + bytes per message, NAME the topic with
 * '/' as '_'), or 1 at the timeout (default 120 s) saying what is missing.
 * /tf_static and .../vehicle_info are read transient-local (a late subscriber
 * gets them). With "matched" it prints "userdata TOPIC TEXT" for each
 * topic's first matched writer (its USER_DATA QoS; TEXT "-" when empty);
 * --graph: then "userdata ros_discovery_info TEXT" for the ros_discovery_info
 * writer of that writer's participant (DCPSPublication; TEXT "none" when it
 * has none after 10 s).
 * --probe-reliable: one reliable, volatile reader on the one topic; exits 0
 * printing "incompatible POLICY_ID" when DDS reports the writer's QoS does
 * not offer what it asks (--hold: the reader stays until SIGTERM), 1 if it
 * matches instead. --best-effort: best-effort
 * readers (they match every writer; bench/ros2_overhead.py's load). SIGTERM or
 * SIGINT ends it (exit 1) with what it received written out. --count-only:
 * one reader a topic, samples taken and counted, "TOPIC N" lines at the end. */
#ifndef asm
#define asm __asm__
#endif
#include "ros2_msgs.h"

#include <dds/dds.h>
#include <dds/ddsi/ddsi_serdata.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t g_term;
static int g_hold; /* --hold: a probe's reader stays after its verdict until SIGTERM */ /* SIGTERM/SIGINT: stop, keeping what was received */
static void on_term(int sig)
{
    (void)sig;
    g_term = 1;
}

#define MAX_SPECS 32

typedef struct spec {
    char topic[256], type[32], name[256];
    const dds_topic_descriptor_t *desc;
    long want, got, got_raw; /* decoded, raw */
    dds_entity_t rd, rd_raw;
    FILE *json, *raw;
} spec;

static const struct {
    const char *name;
    const dds_topic_descriptor_t *desc;
} TYPES[] = {
    {"PointCloud2", &sensor_msgs_msg_dds__PointCloud2__desc},
    {"Image", &sensor_msgs_msg_dds__Image__desc},
    {"CameraInfo", &sensor_msgs_msg_dds__CameraInfo__desc},
    {"Imu", &sensor_msgs_msg_dds__Imu__desc},
    {"NavSatFix", &sensor_msgs_msg_dds__NavSatFix__desc},
    {"Odometry", &nav_msgs_msg_dds__Odometry__desc},
    {"TFMessage", &tf2_msgs_msg_dds__TFMessage__desc},
    {"Clock", &rosgraph_msgs_msg_dds__Clock__desc},
    {"CarlaEgoVehicleStatus", &carla_msgs_msg_dds__CarlaEgoVehicleStatus__desc},
    {"CarlaEgoVehicleInfo", &carla_msgs_msg_dds__CarlaEgoVehicleInfo__desc},
};

static void print_control(FILE *f, const carla_msgs_msg_dds__CarlaEgoVehicleControl_ *c)
{
    fprintf(f, "{\"throttle\": %.9g, \"steer\": %.9g, \"brake\": %.9g, \"hand_brake\": %s, \"reverse\": %s, "
               "\"gear\": %d, \"manual_gear_shift\": %s}",
            c->throttle, c->steer, c->brake, c->hand_brake ? "true" : "false", c->reverse ? "true" : "false",
            c->gear, c->manual_gear_shift ? "true" : "false");
}

/* The first matched writer's USER_DATA ("typehash=RIHS01_...;" from a ROS 2 Iron or later publisher). */
static void print_userdata(const spec *s)
{
    dds_instance_handle_t ih[4];
    dds_return_t n = dds_get_matched_publications(s->rd, ih, 4);
    void *ud = NULL;
    size_t sz = 0;
    if (n > 0) {
        dds_builtintopic_endpoint_t *ep = dds_get_matched_publication_data(s->rd, ih[0]);
        if (ep) {
            if (!dds_qget_userdata(ep->qos, &ud, &sz))
                ud = NULL, sz = 0;
            dds_builtintopic_free_endpoint(ep);
        }
    }
    printf("userdata %s %.*s\n", s->topic, sz ? (int)sz : 1, sz ? (const char *)ud : "-");
    dds_free(ud);
}

static void die(const char *what, dds_return_t rc)
{
    fprintf(stderr, "ros2_sub: %s: %s\n", what, rc < 0 ? dds_strretcode(rc) : "failed");
    exit(2);
}

/* --graph: the USER_DATA of the ros_discovery_info writer of the participant of @p rd's first matched writer. */
static void print_graph_userdata(dds_entity_t pp, dds_entity_t rd)
{
    dds_instance_handle_t ih;
    dds_guid_t ppant;
    dds_builtintopic_endpoint_t *ep = dds_get_matched_publications(rd, &ih, 1) > 0
                                          ? dds_get_matched_publication_data(rd, ih) : NULL;
    if (!ep) {
        printf("userdata ros_discovery_info none\n");
        return;
    }
    ppant = ep->participant_key;
    dds_builtintopic_free_endpoint(ep);
    dds_entity_t pubs = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
    if (pubs < 0)
        die("dds_create_reader DCPSPublication", pubs);
    int found = 0;
    dds_time_t until = dds_time() + DDS_SECS(10);
    while (!found && dds_time() < until) {
        void *smp[32] = {0};
        dds_sample_info_t si[32];
        dds_return_t n = dds_read(pubs, smp, si, 32, 32);
        for (int i = 0; i < n && !found; i++) {
            const dds_builtintopic_endpoint_t *e = smp[i];
            void *ud = NULL;
            size_t sz = 0;
            if (!si[i].valid_data || !e->topic_name || strcmp(e->topic_name, "ros_discovery_info") ||
                memcmp(&e->participant_key, &ppant, sizeof ppant))
                continue;
            found = 1;
            if (!dds_qget_userdata(e->qos, &ud, &sz))
                ud = NULL, sz = 0;
            printf("userdata ros_discovery_info %.*s\n", sz ? (int)sz : 1, sz ? (const char *)ud : "-");
            dds_free(ud);
        }
        if (n > 0)
            dds_return_loan(pubs, smp, n);
        if (!found)
            dds_sleepfor(DDS_MSECS(20));
    }
    if (!found)
        printf("userdata ros_discovery_info none\n");
    dds_delete(pubs);
}

static long long stamp_ns(builtin_interfaces_msg_dds__Time_ t)
{
    return (long long)t.sec * 1000000000LL + (long long)t.nanosec;
}

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void jnums(FILE *f, const double *v, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%.17g", i ? ", " : "", v[i]);
    fputc(']', f);
}

static void jheader(FILE *f, const std_msgs_msg_dds__Header_ *h)
{
    fprintf(f, "\"stamp_ns\": \"%lld\", \"frame_id\": ", stamp_ns(h->stamp));
    jstr(f, h->frame_id);
}

static void print_cloud(FILE *f, const sensor_msgs_msg_dds__PointCloud2_ *m)
{
    fputc('{', f);
    jheader(f, &m->header);
    fprintf(f, ", \"width\": %u, \"height\": %u, \"point_step\": %u, \"row_step\": %u, \"is_dense\": %s, "
               "\"is_bigendian\": %s, \"bytes\": %u, \"fields\": [",
            m->width, m->height, m->point_step, m->row_step, m->is_dense ? "true" : "false",
            m->is_bigendian ? "true" : "false", m->data._length);
    long off[3] = {-1, -1, -1};
    for (uint32_t i = 0; i < m->fields._length; i++) {
        const sensor_msgs_msg_dds__PointField_ *pf = &m->fields._buffer[i];
        fprintf(f, "%s\"%s:%u:%u:%u\"", i ? ", " : "", pf->name, pf->offset, pf->datatype, pf->count);
        for (int k = 0; k < 3; k++)
            if (pf->name[0] == "xyz"[k] && !pf->name[1] && pf->datatype == 7)
                off[k] = pf->offset;
    }
    fputc(']', f);
    if (off[0] >= 0 && off[1] >= 0 && off[2] >= 0 && (uint64_t)m->width * m->point_step <= m->data._length) {
        double s[3] = {0, 0, 0};
        for (uint32_t i = 0; i < m->width; i++)
            for (int k = 0; k < 3; k++) {
                float v;
                memcpy(&v, m->data._buffer + (size_t)i * m->point_step + off[k], 4);
                s[k] += v;
            }
        fprintf(f, ", \"sum_xyz\": ");
        jnums(f, s, 3);
    }
    fputc('}', f);
}

static void print_msg(FILE *f, const char *type, const void *p)
{
    if (!strcmp(type, "PointCloud2")) {
        print_cloud(f, p);
    } else if (!strcmp(type, "Image")) {
        const sensor_msgs_msg_dds__Image_ *m = p;
        uint64_t h = 1469598103934665603ULL;
        for (uint32_t i = 0; i < m->data._length; i++)
            h = (h ^ m->data._buffer[i]) * 1099511628211ULL;
        fputc('{', f);
        jheader(f, &m->header);
        fprintf(f, ", \"width\": %u, \"height\": %u, \"encoding\": ", m->width, m->height);
        jstr(f, m->encoding);
        fprintf(f, ", \"step\": %u, \"bytes\": %u, \"fnv1a64\": \"%016llx\"}", m->step, m->data._length,
                (unsigned long long)h);
    } else if (!strcmp(type, "CameraInfo")) {
        const sensor_msgs_msg_dds__CameraInfo_ *m = p;
        fputc('{', f);
        jheader(f, &m->header);
        fprintf(f, ", \"width\": %u, \"height\": %u, \"k\": ", m->width, m->height);
        jnums(f, m->k, 9);
        fprintf(f, ", \"d\": ");
        jnums(f, m->d._buffer, (int)m->d._length);
        fprintf(f, ", \"distortion_model\": ");
        jstr(f, m->distortion_model);
        fputc('}', f);
    } else if (!strcmp(type, "Imu")) {
        const sensor_msgs_msg_dds__Imu_ *m = p;
        double a[3] = {m->linear_acceleration.x, m->linear_acceleration.y, m->linear_acceleration.z};
        double w[3] = {m->angular_velocity.x, m->angular_velocity.y, m->angular_velocity.z};
        double q[4] = {m->orientation.x, m->orientation.y, m->orientation.z, m->orientation.w};
        fputc('{', f);
        jheader(f, &m->header);
        fprintf(f, ", \"accel\": ");
        jnums(f, a, 3);
        fprintf(f, ", \"gyro\": ");
        jnums(f, w, 3);
        fprintf(f, ", \"q\": ");
        jnums(f, q, 4);
        fprintf(f, ", \"cov_gyro\": ");
        jnums(f, m->angular_velocity_covariance, 9);
        fprintf(f, ", \"cov_accel\": ");
        jnums(f, m->linear_acceleration_covariance, 9);
        fputc('}', f);
    } else if (!strcmp(type, "NavSatFix")) {
        const sensor_msgs_msg_dds__NavSatFix_ *m = p;
        fputc('{', f);
        jheader(f, &m->header);
        fprintf(f, ", \"lat\": %.17g, \"lon\": %.17g, \"alt\": %.17g, \"status\": %d, \"service\": %u, "
                   "\"cov_type\": %u, \"cov\": ",
                m->latitude, m->longitude, m->altitude, m->status.status, m->status.service,
                m->position_covariance_type);
        jnums(f, m->position_covariance, 9);
        fputc('}', f);
    } else if (!strcmp(type, "Odometry")) {
        const nav_msgs_msg_dds__Odometry_ *m = p;
        const geometry_msgs_msg_dds__Pose_ *ps = &m->pose.pose;
        double pp[3] = {ps->position.x, ps->position.y, ps->position.z};
        double q[4] = {ps->orientation.x, ps->orientation.y, ps->orientation.z, ps->orientation.w};
        double v[3] = {m->twist.twist.linear.x, m->twist.twist.linear.y, m->twist.twist.linear.z};
        fputc('{', f);
        jheader(f, &m->header);
        fprintf(f, ", \"child\": ");
        jstr(f, m->child_frame_id);
        fprintf(f, ", \"p\": ");
        jnums(f, pp, 3);
        fprintf(f, ", \"q\": ");
        jnums(f, q, 4);
        fprintf(f, ", \"v\": ");
        jnums(f, v, 3);
        fputc('}', f);
    } else if (!strcmp(type, "CarlaEgoVehicleStatus")) {
        const carla_msgs_msg_dds__CarlaEgoVehicleStatus_ *m = p;
        const geometry_msgs_msg_dds__Accel_ *a = &m->acceleration;
        double lin[3] = {a->linear.x, a->linear.y, a->linear.z}, ang[3] = {a->angular.x, a->angular.y, a->angular.z};
        double q[4] = {m->orientation.x, m->orientation.y, m->orientation.z, m->orientation.w};
        fputc('{', f);
        jheader(f, &m->header);
        fprintf(f, ", \"velocity\": %.9g, \"accel\": ", m->velocity);
        jnums(f, lin, 3);
        fprintf(f, ", \"angular_accel\": ");
        jnums(f, ang, 3);
        fprintf(f, ", \"q\": ");
        jnums(f, q, 4);
        fprintf(f, ", \"control\": ");
        print_control(f, &m->control);
        fputc('}', f);
    } else if (!strcmp(type, "CarlaEgoVehicleInfo")) {
        const carla_msgs_msg_dds__CarlaEgoVehicleInfo_ *m = p;
        fprintf(f, "{\"id\": %u, \"type\": ", m->id);
        jstr(f, m->type);
        fprintf(f, ", \"rolename\": ");
        jstr(f, m->rolename);
        fprintf(f, ", \"wheels\": [");
        for (uint32_t i = 0; i < m->wheels._length; i++) {
            const carla_msgs_msg_dds__CarlaEgoVehicleInfoWheel_ *w = &m->wheels._buffer[i];
            double pos[3] = {w->position.x, w->position.y, w->position.z};
            fprintf(f, "%s{\"radius\": %.9g, \"max_steer_angle\": %.9g, \"tire_friction\": %.9g, \"position\": ",
                    i ? ", " : "", w->radius, w->max_steer_angle, w->tire_friction);
            jnums(f, pos, 3);
            fputc('}', f);
        }
        double com[3] = {m->center_of_mass.x, m->center_of_mass.y, m->center_of_mass.z};
        fprintf(f, "], \"max_rpm\": %.9g, \"mass\": %.9g, \"drag_coefficient\": %.9g, \"use_gear_autobox\": %s, "
                   "\"center_of_mass\": ",
                m->max_rpm, m->mass, m->drag_coefficient, m->use_gear_autobox ? "true" : "false");
        jnums(f, com, 3);
        fputc('}', f);
    } else if (!strcmp(type, "TFMessage")) {
        const tf2_msgs_msg_dds__TFMessage_ *m = p;
        fprintf(f, "{\"transforms\": [");
        for (uint32_t i = 0; i < m->transforms._length; i++) {
            const geometry_msgs_msg_dds__TransformStamped_ *x = &m->transforms._buffer[i];
            const geometry_msgs_msg_dds__Transform_ *tr = &x->transform;
            double t[3] = {tr->translation.x, tr->translation.y, tr->translation.z};
            double q[4] = {tr->rotation.x, tr->rotation.y, tr->rotation.z, tr->rotation.w};
            fprintf(f, "%s{\"parent\": ", i ? ", " : "");
            jstr(f, x->header.frame_id);
            fprintf(f, ", \"child\": ");
            jstr(f, x->child_frame_id);
            fprintf(f, ", \"stamp_ns\": \"%lld\", \"t\": ", stamp_ns(x->header.stamp));
            jnums(f, t, 3);
            fprintf(f, ", \"q\": ");
            jnums(f, q, 4);
            fputc('}', f);
        }
        fprintf(f, "]}");
    } else {
        const rosgraph_msgs_msg_dds__Clock_ *m = p;
        fprintf(f, "{\"clock_ns\": \"%lld\"}", stamp_ns(m->clock));
    }
    fputc('\n', f);
}

static int g_count_only; /* --count-only: take and count, nothing decoded or written */

static void take_all(spec *s)
{
    void *buf[16] = {0};
    dds_sample_info_t info[16];
    dds_return_t n;
    while ((n = dds_take(s->rd, buf, info, 16, 16)) > 0) {
        for (int i = 0; i < n; i++)
            if (info[i].valid_data) {
                if (!g_count_only)
                    print_msg(s->json, s->type, buf[i]);
                s->got++;
            }
        dds_return_loan(s->rd, buf, n);
    }
    if (n < 0)
        die("dds_take", n);
    if (g_count_only) {
        s->got_raw = s->got;
        return;
    }
    struct ddsi_serdata *sd[16];
    while ((n = dds_takecdr(s->rd_raw, sd, 16, info, DDS_ANY_STATE)) > 0) {
        for (int i = 0; i < n; i++) {
            if (info[i].valid_data) {
                uint32_t len = ddsi_serdata_size(sd[i]);
                unsigned char *b = malloc(len ? len : 1);
                if (!b)
                    die("out of memory", -1);
                ddsi_serdata_to_ser(sd[i], 0, len, b);
                fwrite(&len, 4, 1, s->raw);
                fwrite(b, 1, len, s->raw);
                free(b);
                s->got_raw++;
            }
            ddsi_serdata_unref(sd[i]);
        }
    }
    if (n < 0)
        die("dds_takecdr", n);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ros2_sub OUTDIR [--timeout S] [--probe-reliable] TOPIC:TYPE:COUNT...\n");
        return 2;
    }
    const char *out = argv[1];
    double timeout = 120;
    int probe = 0, best_effort = 0, graph = 0;
    spec specs[MAX_SPECS];
    int ns = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
            timeout = atof(argv[++i]);
            continue;
        }
        if (!strcmp(argv[i], "--hold")) {
            g_hold = 1;
            continue;
        }
        if (!strcmp(argv[i], "--probe-reliable")) {
            probe = 1;
            continue;
        }
        if (!strcmp(argv[i], "--best-effort")) {
            best_effort = 1;
            continue;
        }
        if (!strcmp(argv[i], "--count-only")) {
            g_count_only = 1;
            continue;
        }
        if (!strcmp(argv[i], "--graph")) {
            graph = 1;
            continue;
        }
        spec *s = &specs[ns];
        memset(s, 0, sizeof *s);
        char *c1 = strchr(argv[i], ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (ns == MAX_SPECS || !c2 || c1 - argv[i] >= 255 || c2 - c1 - 1 >= 31) {
            fprintf(stderr, "ros2_sub: bad spec '%s'\n", argv[i]);
            return 2;
        }
        memcpy(s->topic, argv[i], (size_t)(c1 - argv[i]));
        memcpy(s->type, c1 + 1, (size_t)(c2 - c1 - 1));
        s->want = atol(c2 + 1);
        for (size_t k = 0; k < sizeof TYPES / sizeof TYPES[0]; k++)
            if (!strcmp(TYPES[k].name, s->type))
                s->desc = TYPES[k].desc;
        if (!s->desc) {
            fprintf(stderr, "ros2_sub: unknown type '%s'\n", s->type);
            return 2;
        }
        memcpy(s->name, s->topic + 1, strlen(s->topic));
        for (char *p = s->name; *p; p++)
            if (*p == '/')
                *p = '_';
        ns++;
    }
    const char *dom = getenv("ROS_DOMAIN_ID");
    dds_entity_t pp = dds_create_participant(dom && *dom ? (dds_domainid_t)atoi(dom) : 0, NULL, NULL);
    if (pp < 0)
        die("dds_create_participant", pp);
    dds_entity_t ws = dds_create_waitset(pp);
    for (int i = 0; i < ns; i++) {
        spec *s = &specs[i];
        char dname[300];
        snprintf(dname, sizeof dname, "rt%s", s->topic);
        dds_entity_t tp = dds_create_topic(pp, s->desc, dname, NULL, NULL);
        if (tp < 0)
            die(dname, tp);
        dds_qos_t *q = dds_create_qos();
        dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
        if (probe) {
            dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
            dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
            s->rd = dds_create_reader(pp, tp, q, NULL);
            dds_delete_qos(q);
            if (s->rd < 0)
                die("dds_create_reader", s->rd);
            dds_set_status_mask(s->rd, DDS_REQUESTED_INCOMPATIBLE_QOS_STATUS | DDS_SUBSCRIPTION_MATCHED_STATUS);
            dds_waitset_attach(ws, s->rd, i);
            break;
        }
        dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
        size_t tl = strlen(s->topic);
        int latched = !strcmp(s->topic, "/tf_static") || (tl >= 13 && !strcmp(s->topic + tl - 13, "/vehicle_info"));
        if (best_effort && !latched) /* a latched topic's history comes to a reliable reader */
            dds_qset_reliability(q, DDS_RELIABILITY_BEST_EFFORT, 0);
        dds_qset_durability(q, latched ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
        s->rd = dds_create_reader(pp, tp, q, NULL);
        if (g_count_only) {
            dds_delete_qos(q);
            if (s->rd < 0)
                die("dds_create_reader", s->rd);
            dds_waitset_attach(ws, dds_create_readcondition(s->rd, DDS_ANY_STATE), i);
            continue;
        }
        s->rd_raw = dds_create_reader(pp, tp, q, NULL);
        dds_delete_qos(q);
        if (s->rd < 0 || s->rd_raw < 0)
            die("dds_create_reader", s->rd < 0 ? s->rd : s->rd_raw);
        char path[600];
        snprintf(path, sizeof path, "%s/%s.jsonl", out, s->name);
        s->json = fopen(path, "w");
        snprintf(path, sizeof path, "%s/%s.cdr", out, s->name);
        s->raw = fopen(path, "wb");
        if (!s->json || !s->raw) {
            fprintf(stderr, "ros2_sub: cannot write %s\n", path);
            return 2;
        }
        dds_waitset_attach(ws, dds_create_readcondition(s->rd, DDS_ANY_STATE), i);
        dds_waitset_attach(ws, dds_create_readcondition(s->rd_raw, DDS_ANY_STATE), i);
        dds_set_status_mask(s->rd, DDS_SUBSCRIPTION_MATCHED_STATUS);
        dds_set_status_mask(s->rd_raw, DDS_SUBSCRIPTION_MATCHED_STATUS);
        dds_waitset_attach(ws, s->rd, i);
        dds_waitset_attach(ws, s->rd_raw, i);
    }
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);
    printf("ready\n");
    fflush(stdout);
    dds_time_t deadline = dds_time() + (dds_duration_t)(timeout * 1e9);
    int matched = 0, rc = 1;
    for (;;) {
        if (probe) {
            dds_requested_incompatible_qos_status_t iq;
            dds_subscription_matched_status_t ms;
            dds_get_requested_incompatible_qos_status(specs[0].rd, &iq);
            dds_get_subscription_matched_status(specs[0].rd, &ms);
            if (iq.total_count > 0) {
                printf("incompatible %u\n", iq.last_policy_id);
                fflush(stdout);
                rc = 0;
                while (g_hold && !g_term) /* --hold: the reader stays until SIGTERM (the writer sees it too) */
                    dds_sleepfor(DDS_MSECS(10));
                break;
            }
            if (ms.current_count > 0) {
                printf("matched\n");
                break;
            }
        } else {
            int all = 1, done = 1;
            for (int i = 0; i < ns; i++) {
                dds_subscription_matched_status_t a, b;
                dds_get_subscription_matched_status(specs[i].rd, &a);
                b = a;
                if (!g_count_only)
                    dds_get_subscription_matched_status(specs[i].rd_raw, &b);
                all &= a.current_count > 0 && b.current_count > 0;
                take_all(&specs[i]);
                done &= specs[i].got >= specs[i].want && specs[i].got_raw >= specs[i].want;
            }
            if (all && !matched) {
                matched = 1;
                printf("matched\n");
                for (int i = 0; i < ns && !g_count_only; i++)
                    print_userdata(&specs[i]);
                if (graph && ns > 0)
                    print_graph_userdata(pp, specs[0].rd);
                fflush(stdout);
            }
            if (done) {
                rc = 0;
                break;
            }
        }
        fflush(stdout);
        if (g_term)
            break;
        if (dds_time() >= deadline) {
            for (int i = 0; i < ns && !probe; i++)
                fprintf(stderr, "ros2_sub: %s: %ld (raw %ld) of %ld messages\n", specs[i].topic, specs[i].got,
                        specs[i].got_raw, specs[i].want);
            fprintf(stderr, "ros2_sub: timed out after %g s\n", timeout);
            break;
        }
        dds_waitset_wait_until(ws, NULL, 0, deadline < dds_time() + DDS_MSECS(100) ? deadline : dds_time() + DDS_MSECS(100));
    }
    for (int i = 0; i < ns && !probe; i++) {
        if (g_count_only) {
            printf("%s %ld\n", specs[i].topic, specs[i].got);
            continue;
        }
        fclose(specs[i].json);
        fclose(specs[i].raw);
    }
    fflush(stdout);
    dds_delete(pp);
    return rc;
}
