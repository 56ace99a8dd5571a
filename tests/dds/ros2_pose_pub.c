/* A ROS 2 node that publishes the ego's poses, written against Cyclone DDS
 * alone (types from tests/dds/ros2_msgs.idl through idlc), for
 * `sensim ros2 --pose-in` (tests/test_ros2.py).
 *
 * Usage: ros2_pose_pub KIND TOPIC POSES [--child CHILD] [--repeat K] [--bad K]
 *   KIND odom (nav_msgs/Odometry), pose (geometry_msgs/PoseStamped) or tf
 *   (tf2_msgs/TFMessage: a distractor map -> other transform, then
 *   odom -> CHILD, default base_link); POSES: TUM rows "t x y z qx qy qz qw".
 *   --repeat K: row K is sent twice (a republished pose); --bad K: row K's
 *   x is NaN; --hz H: one row every 1/H s (a node publishing at its rate;
 *   without it every row at once); --as DDS_TYPE: the messages go out under
 *   another type's name (nav_msgs::msg::dds_::Odometry_), without XTypes
 *   information: a mislabelled publisher whose messages do not decode as
 *   the type it names (sensim topic echo, issue 62 item 15).
 * QoS reliable, volatile, keep all: discovery is asymmetric (this writer may
 * match the reader before the reader knows this writer, and the reader drops
 * what comes from writers it does not know yet); keep all holds every pose
 * until the reader acknowledges it, so none is lost to that race, which a
 * keep-last-10 writer sending 101 poses at once loses to.
 * Prints "ready", then "matched" once a reader matched, sends every row,
 * waits for the acknowledgements and prints "acked"; exits when stdin ends
 * (its writer leaving ends the stream for the reader). */
#ifndef asm
#define asm __asm__
#endif
#include "ros2_msgs.h"
#include "dds_node.h"

#include <dds/dds.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, dds_return_t rc)
{
    node_die("ros2_pose_pub", what, rc);
}

typedef struct row {
    double t, v[7];
} row;

static builtin_interfaces_msg_dds__Time_ stamp(double t)
{
    builtin_interfaces_msg_dds__Time_ s;
    long long ns = llround(t * 1e9);
    s.sec = (int32_t)(ns / 1000000000);
    s.nanosec = (uint32_t)(ns % 1000000000);
    return s;
}

static geometry_msgs_msg_dds__Pose_ pose_of(const row *r)
{
    geometry_msgs_msg_dds__Pose_ p;
    p.position.x = r->v[0], p.position.y = r->v[1], p.position.z = r->v[2];
    p.orientation.x = r->v[3], p.orientation.y = r->v[4], p.orientation.z = r->v[5], p.orientation.w = r->v[6];
    return p;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: ros2_pose_pub odom|pose|tf TOPIC POSES [--child C] [--repeat K] [--bad K] [--hz H] [--as DDS_TYPE]\n");
        return 2;
    }
    const char *kind = argv[1], *child = "base_link", *as = NULL;
    long repeat = -1, bad = -1;
    double hz = 0;
    for (int i = 4; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--child"))
            child = argv[i + 1];
        else if (!strcmp(argv[i], "--repeat"))
            repeat = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--bad"))
            bad = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--hz"))
            hz = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--as"))
            as = argv[i + 1];
    }
    FILE *f = fopen(argv[3], "r");
    if (!f)
        die(argv[3], -1);
    row *rows = NULL;
    size_t n = 0, cap = 0;
    row r;
    while (fscanf(f, "%lf %lf %lf %lf %lf %lf %lf %lf", &r.t, &r.v[0], &r.v[1], &r.v[2], &r.v[3], &r.v[4], &r.v[5],
                  &r.v[6]) == 8) {
        if (n == cap && !(rows = realloc(rows, (cap = cap ? 2 * cap : 256) * sizeof *rows)))
            die("out of memory", -1);
        rows[n++] = r;
    }
    fclose(f);
    const dds_topic_descriptor_t *desc = !strcmp(kind, "odom")   ? &nav_msgs_msg_dds__Odometry__desc
                                         : !strcmp(kind, "pose") ? &geometry_msgs_msg_dds__PoseStamped__desc
                                                                 : &tf2_msgs_msg_dds__TFMessage__desc;
    dds_entity_t pp = node_participant("ros2_pose_pub");
    char name[300];
    snprintf(name, sizeof name, "rt%s", argv[2]);
    dds_qos_t *q = dds_create_qos();
    dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
    dds_qset_history(q, DDS_HISTORY_KEEP_ALL, DDS_LENGTH_UNLIMITED);
    dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
    dds_topic_descriptor_t relabelled = {desc->m_size, desc->m_align,
                                         desc->m_flagset & ~(uint32_t)DDS_TOPIC_XTYPES_METADATA, desc->m_nkeys,
                                         as, desc->m_keys, desc->m_nops, desc->m_ops, desc->m_meta, {NULL, 0},
                                         {NULL, 0}, desc->restrict_data_representation};
    if (as)
        desc = &relabelled;
    dds_entity_t tp = dds_create_topic(pp, desc, name, NULL, NULL);
    if (tp < 0)
        die("dds_create_topic", tp);
    dds_entity_t w = dds_create_writer(pp, tp, q, NULL);
    dds_delete_qos(q);
    if (w < 0)
        die("dds_create_writer", w);
    node_wait_matched(w);
    for (size_t i = 0; i < n; i++) {
        if (hz > 0 && i > 0)
            dds_sleepfor((dds_duration_t)(1e9 / hz)); /* the node's rate, not a wait for a state */
        for (int again = 0; again < 1 + ((long)i == repeat); again++) {
            row x = rows[i];
            if ((long)i == bad)
                x.v[0] = NAN;
            dds_return_t rc;
            if (!strcmp(kind, "odom")) {
                nav_msgs_msg_dds__Odometry_ m;
                memset(&m, 0, sizeof m);
                m.header.stamp = stamp(x.t);
                m.header.frame_id = "odom";
                m.child_frame_id = (char *)child;
                m.pose.pose = pose_of(&x);
                rc = dds_write(w, &m);
            } else if (!strcmp(kind, "pose")) {
                geometry_msgs_msg_dds__PoseStamped_ m;
                m.header.stamp = stamp(x.t);
                m.header.frame_id = "odom";
                m.pose = pose_of(&x);
                rc = dds_write(w, &m);
            } else {
                geometry_msgs_msg_dds__TransformStamped_ t[2];
                memset(t, 0, sizeof t);
                t[0].header.stamp = stamp(x.t), t[0].header.frame_id = "map", t[0].child_frame_id = "other";
                t[0].transform.rotation.w = 1, t[0].transform.translation.x = 1e3;
                t[1].header.stamp = stamp(x.t), t[1].header.frame_id = "odom", t[1].child_frame_id = (char *)child;
                geometry_msgs_msg_dds__Pose_ p = pose_of(&x);
                t[1].transform.translation.x = p.position.x, t[1].transform.translation.y = p.position.y;
                t[1].transform.translation.z = p.position.z, t[1].transform.rotation = p.orientation;
                tf2_msgs_msg_dds__TFMessage_ m;
                m.transforms._length = m.transforms._maximum = 2;
                m.transforms._buffer = t;
                m.transforms._release = false;
                rc = dds_write(w, &m);
            }
            if (rc < 0)
                die("dds_write", rc);
        }
    }
    dds_return_t rc = dds_wait_for_acks(w, DDS_SECS(60));
    printf(rc == 0 ? "acked\n" : "not acked\n");
    fflush(stdout);
    while (getchar() != EOF)
        ;
    dds_delete(pp);
    free(rows);
    return 0;
}
