/* sensim ros2 --pose-in KIND:TOPIC: the ego's poses from a ROS 2 topic
 * instead of a trajectory, so a ROS dynamics node closes the loop (as
 * CARLA's ROS bridge lets a ROS vehicle model drive the simulation). Each
 * message becomes a row of a streamed trajectory (`--trajectory -`'s
 * rules: a world step is taken once the poses reach past it; the run ends
 * when the publisher leaves). A row's time is the message's header stamp.
 *
 *   odom:TOPIC       nav_msgs/msg/Odometry     pose.pose
 *   pose:TOPIC       geometry_msgs/msg/PoseStamped
 *   tf:TOPIC[:CHILD] tf2_msgs/msg/TFMessage    the transform whose
 *                    child_frame_id is CHILD (default base_link), its
 *                    parent taken as the world frame (no chain is walked)
 *
 * Poses are REP-103 (sensim's native frame). The messages are hostile:
 * every read is bounded by the message (mcap_walk.c's CDR cursor), a pose
 * must be finite, within 1e9 m, with a unit quaternion and a stamp at or
 * after time 0; a bad one ends the run with a message naming the topic and
 * the message's index. A stamp at or before the last one taken is skipped
 * and counted (a republished pose). */
#include "batch.h"
#include "mcap_walk.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { POSE_NONE, POSE_ODOM, POSE_STAMPED, POSE_TF };
static const char *const pose_types[] = {"", "nav_msgs/msg/Odometry", "geometry_msgs/msg/PoseStamped",
                                         "tf2_msgs/msg/TFMessage"};

static struct {
    sensim_ros2_reader *rd;
    uint64_t messages, taken, skipped;
    int64_t last_t;
    size_t cap; /* of the trajectory's keys */
} P = {NULL, 0, 0, 0, INT64_MIN, 0};

int live_pose_parse(const char *v)
{
    static const char *const kinds[] = {"", "odom:", "pose:", "tf:"};
    for (int k = POSE_ODOM; k <= POSE_TF; k++) {
        size_t n = strlen(kinds[k]);
        if (strncmp(v, kinds[k], n))
            continue;
        const char *topic = v + n, *colon = k == POSE_TF ? strchr(topic, ':') : NULL;
        size_t tl = colon ? (size_t)(colon - topic) : strlen(topic);
        const char *child = colon ? colon + 1 : "base_link";
        if (tl < 2 || tl >= sizeof g_live.pose_topic || topic[0] != '/' || !*child ||
            strlen(child) >= sizeof g_live.pose_child)
            break;
        g_live.pose_kind = k;
        snprintf(g_live.pose_topic, sizeof g_live.pose_topic, "%.*s", (int)tl, topic);
        snprintf(g_live.pose_child, sizeof g_live.pose_child, "%s", child);
        return 0;
    }
    return usage("--pose-in needs odom:TOPIC (nav_msgs/Odometry), pose:TOPIC (geometry_msgs/PoseStamped) or "
                 "tf:TOPIC[:CHILD] (tf2_msgs/TFMessage, the transform to CHILD, default base_link)");
}

static int fail_status(sensim_status st)
{
    fprintf(stderr, "sensim: error: %s\n", sensim_context_last_error(NULL));
    return EXIT_STATUS_BASE + (int)st;
}

/* One pose (position, quaternion) and its stamp from the cursor at a Header. */
static void read_stamped_pose(cdr *r, int64_t *t, char *frame, size_t fcap, char *child, size_t ccap, double xyzq[7])
{
    int32_t sec = (int32_t)cdr_u(r, 4);
    uint32_t nsec = (uint32_t)cdr_u(r, 4);
    *t = nsec > 999999999u ? -1 : (int64_t)sec * 1000000000 + nsec;
    cdr_str(r, frame, fcap);
    if (child)
        cdr_str(r, child, ccap);
    for (int i = 0; i < 7; i++)
        xyzq[i] = cdr_f64(r);
}

/* The message's pose: 1 (a pose), 0 (a TFMessage without CHILD), or -1 and a reason. */
static int decode(const uint8_t *p, size_t n, sensim_pose_key *k, char *why, size_t cap)
{
    if (n < 4 || p[0] != 0 || p[1] != 1) {
        snprintf(why, cap, "not little-endian CDR (encapsulation %02x%02x; %zu bytes)", n ? p[0] : 0,
                 n > 1 ? p[1] : 0, n);
        return -1;
    }
    size_t pad = p[3] & 3u;
    cdr r = {p, n - (pad < n - 4 ? pad : 0), 4, 0};
    char frame[256], child[256];
    double v[7] = {0};
    int64_t t = -1;
    int found = 1;
    if (g_live.pose_kind == POSE_TF) {
        uint64_t count = cdr_u(&r, 4);
        found = 0;
        for (uint64_t i = 0; i < count && !r.bad && !found; i++) {
            read_stamped_pose(&r, &t, frame, sizeof frame, child, sizeof child, v);
            found = !r.bad && !strcmp(child, g_live.pose_child);
        }
    } else {
        read_stamped_pose(&r, &t, frame, sizeof frame, g_live.pose_kind == POSE_ODOM ? child : NULL, sizeof child, v);
    }
    if (r.bad) {
        snprintf(why, cap, "a %s cut short or with a length past its end (%zu bytes)", pose_types[g_live.pose_kind],
                 n);
        return -1;
    }
    if (!found)
        return 0;
    if (t < 0) {
        snprintf(why, cap, "stamp before time 0 or nanosec over 999999999 (frames are numbered from 0 s)");
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if (!(fabs(v[i]) <= 1e9)) {
            snprintf(why, cap, "position (%g, %g, %g) not finite or beyond 1e9 m", v[0], v[1], v[2]);
            return -1;
        }
    if (pose_from_quat(k->pose, v, v + 3, why, cap))
        return -1;
    k->t_ns = t;
    return 1;
}

/* The next pose taken into @p tr: 1; 0 at the end (the publisher left, Ctrl-C, or an error in
 * g_live.stream_rc). @p first: say every 3 s what is awaited. */
static int next_pose(traj *tr, int first)
{
    double next_say = first ? 3.0 : INFINITY, waited = 0;
    for (;;) {
        if (g_stop || g_live.stream_rc)
            return 0;
        const uint8_t *msg;
        size_t n;
        sensim_status st = sensim_ros2_read(P.rd, 200000000, &msg, &n);
        if (st) {
            g_live.stream_rc = fail_status(st);
            return 0;
        }
        if (n == 0) {
            uint32_t now = 0, ever = 0;
            if ((st = sensim_ros2_reader_publishers(P.rd, &now, &ever))) {
                g_live.stream_rc = fail_status(st);
                return 0;
            }
            if (ever && !now) {
                fprintf(stderr, "sensim ros2: the publisher of %s left: the run ends\n", g_live.pose_topic);
                return 0;
            }
            if ((waited += 0.2) >= next_say) {
                fprintf(stderr, "sensim ros2: waiting for a pose on %s (%s): %s\n", g_live.pose_topic,
                        pose_types[g_live.pose_kind], now ? "a publisher, no message yet" : "no publisher yet");
                next_say = waited + 3.0;
            }
            continue;
        }
        P.messages++;
        sensim_pose_key k;
        char why[200];
        int got = decode(msg, n, &k, why, sizeof why);
        if (got < 0) {
            fprintf(stderr, "sensim: error: %s: message %llu: %s\n", g_live.pose_topic,
                    (unsigned long long)P.messages, why);
            g_live.stream_rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
            return 0;
        }
        if (!got)
            continue;
        if (k.t_ns <= P.last_t) { /* republished or out of order: the stream's time only moves on */
            P.skipped++;
            continue;
        }
        if (P.last_t != INT64_MIN && (double)(k.t_ns - P.last_t) * 1e-9 > TRAJ_MAX_GAP_S) {
            fprintf(stderr, "sensim: error: %s: message %llu: stamp %.9g s past the pose before, more than the %g s "
                            "a trajectory may leave to interpolation\n", g_live.pose_topic,
                    (unsigned long long)P.messages, (double)(k.t_ns - P.last_t) * 1e-9, TRAJ_MAX_GAP_S);
            g_live.stream_rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_RANGE;
            return 0;
        }
        P.last_t = k.t_ns;
        if (tr->n == P.cap) {
            size_t c = P.cap ? 2 * P.cap : 256;
            sensim_pose_key *q = realloc(tr->keys, c * sizeof *q);
            if (!q) {
                g_live.stream_rc = fail_status(SENSIM_ERR_OUT_OF_MEMORY);
                return 0;
            }
            tr->keys = q, P.cap = c;
        }
        tr->keys[tr->n++] = k;
        P.taken++;
        return 1;
    }
}

/* 0, -1 (Ctrl-C before the first pose) or an exit status after a message. */
int live_pose_open(traj *tr)
{
    if (!g_live.m) {
        sensim_status st = sensim_ros2_open(&g_live.o, &g_live.m);
        if (!st && g_live.node_name[0])
            st = sensim_ros2_set_node(g_live.m, g_live.node_ns, g_live.node_name);
        if (st)
            return fail_status(st);
    }
    sensim_status st = sensim_ros2_reader_open(g_live.m, g_live.pose_topic, pose_types[g_live.pose_kind], &P.rd);
    if (st)
        return fail_status(st);
    fprintf(stderr, "sensim ros2: the ego's poses from %s (%s)\n", g_live.pose_topic, pose_types[g_live.pose_kind]);
    P.cap = tr->n = 0;
    free(tr->keys);
    tr->keys = NULL;
    if (!next_pose(tr, 1)) {
        if (g_live.stream_rc)
            return g_live.stream_rc;
        if (g_stop) { /* Ctrl-C while waiting: nothing was published, a clean stop */
            fprintf(stderr, "sensim ros2: stopped before the first pose on %s\n", g_live.pose_topic);
            return -1;
        }
        fprintf(stderr, "sensim: error: %s: no pose before its publisher left\n", g_live.pose_topic);
        return EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
    }
    return 0;
}

int live_pose_more(traj *tr)
{
    for (;;) {
        size_t n = tr->n;
        if (!next_pose(tr, 0))
            return 0;
        if (n == 0 || tr->keys[n].t_ns - tr->keys[n - 1].t_ns >= g_live.thin_gap_ns)
            return 1;
        tr->n = n, g_live.stream_dropped++; /* denser than a step holds: thinned as thin_keys does */
    }
}

void live_pose_close(void)
{
    if (!P.rd)
        return;
    sensim_ros2_reader_close(P.rd);
    P.rd = NULL;
    fprintf(stderr, "sensim ros2: %llu pose%s taken from %s (%llu messages; %llu with a stamp not after the last, "
                    "skipped)\n", (unsigned long long)P.taken, P.taken == 1 ? "" : "s", g_live.pose_topic,
            (unsigned long long)P.messages, (unsigned long long)P.skipped);
}

void live_close_early(void)
{
    live_pose_close();
    if (g_live.m) {
        sensim_mcap_close(g_live.m, NULL);
        g_live.m = NULL;
    }
}
