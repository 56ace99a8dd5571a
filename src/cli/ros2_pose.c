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
 * and counted (a republished pose).
 *
 * Every pose is used: the DDS reader keeps only the newest 256 messages, so
 * once the first pose is taken a thread of its own takes each message as it
 * arrives into a queue the rig reads at its own pace (a rig slower than real
 * time lost half of a 150 Hz stream to that history, silently). The queue
 * holds up to POSE_QUEUE_MAX messages (POSE_QUEUE_BYTES); past that a pose
 * is lost, counted, said at the end, and the run fails
 * (SENSIM_ERR_OVERRUN). */
#include "batch.h"
#include "mcap_walk.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { POSE_NONE, POSE_ODOM, POSE_STAMPED, POSE_TF };
static const char *const pose_types[] = {"", "nav_msgs/msg/Odometry", "geometry_msgs/msg/PoseStamped",
                                         "tf2_msgs/msg/TFMessage"};

static struct {
    sensim_ros2_reader *rd;
    uint64_t messages, taken, skipped;
    int64_t last_t;
    size_t cap; /* of the trajectory's keys */
} P = {NULL, 0, 0, 0, INT64_MIN, 0};

/* The queue between the thread taking messages off the reader and the rig (see the top). */
enum { POSE_QUEUE_MAX = 1 << 16 };
#define POSE_QUEUE_BYTES ((size_t)256 << 20)
static struct {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running, stop, left; /* left: the publisher left (after the queue is read, the stream ends) */
    sensim_status err;       /* the reader failed: err_text says how */
    char err_text[400];
    uint8_t **msg;
    size_t *len, head, count, bytes;
    uint8_t *cur; /* the message handed out last (freed at the next) */
    uint64_t lost;
} Q = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void *drain_main(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&Q.mu);
        int stop = Q.stop;
        pthread_mutex_unlock(&Q.mu);
        if (stop)
            return NULL;
        const uint8_t *msg;
        size_t n;
        uint32_t now = 0, ever = 0;
        sensim_status st = sensim_ros2_read(P.rd, 200000000, &msg, &n);
        if (!st && n == 0)
            st = sensim_ros2_reader_publishers(P.rd, &now, &ever);
        uint8_t *copy = !st && n ? malloc(n) : NULL;
        if (copy)
            memcpy(copy, msg, n);
        pthread_mutex_lock(&Q.mu);
        if (st || (n && !copy)) {
            Q.err = st ? st : SENSIM_ERR_OUT_OF_MEMORY;
            snprintf(Q.err_text, sizeof Q.err_text, "%s", st ? sensim_context_last_error(NULL) : "out of memory");
        } else if (n == 0 && ever && !now) {
            Q.left = 1;
        } else if (n && (Q.count == POSE_QUEUE_MAX || Q.bytes + n > POSE_QUEUE_BYTES)) {
            Q.lost++; /* the rig is that far behind: counted, said, and the run fails */
            free(copy);
        } else if (n) {
            size_t at = (Q.head + Q.count) % POSE_QUEUE_MAX;
            Q.msg[at] = copy, Q.len[at] = n, Q.count++, Q.bytes += n;
        }
        const int end = Q.err || Q.left;
        pthread_cond_signal(&Q.cv);
        pthread_mutex_unlock(&Q.mu);
        if (end)
            return NULL;
    }
}

/* Once the first pose is taken (the reader's QoS settled with a publisher matched, so reading it from
 * another thread touches nothing the writer's thread uses). 0 or an exit status. */
static int drain_start(void)
{
    Q.msg = calloc(POSE_QUEUE_MAX, sizeof *Q.msg);
    Q.len = calloc(POSE_QUEUE_MAX, sizeof *Q.len);
    if (!Q.msg || !Q.len || pthread_create(&Q.th, NULL, drain_main, NULL) != 0) {
        free(Q.msg), free(Q.len);
        Q.msg = NULL, Q.len = NULL;
        fprintf(stderr, "sensim: error: %s: cannot start the thread taking its poses\n", g_live.pose_topic);
        return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
    }
    Q.running = 1;
    return 0;
}

static void drain_stop(void)
{
    if (!Q.running)
        return;
    pthread_mutex_lock(&Q.mu);
    Q.stop = 1;
    pthread_mutex_unlock(&Q.mu);
    pthread_join(Q.th, NULL);
    Q.running = 0;
    for (; Q.count; Q.count--, Q.head = (Q.head + 1) % POSE_QUEUE_MAX)
        free(Q.msg[Q.head]);
    free(Q.cur);
    free(Q.msg), free(Q.len);
    Q.cur = NULL, Q.msg = NULL, Q.len = NULL;
}

/* The next message off the queue, waiting up to 0.2 s: 1 (*msg valid until the next call), 0 none yet,
 * 2 the publisher left and every message was read, -1 the reader failed (said). */
static int queue_take(const uint8_t **msg, size_t *n)
{
    free(Q.cur);
    Q.cur = NULL;
    pthread_mutex_lock(&Q.mu);
    if (!Q.count && !Q.err && !Q.left) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 200000000;
        if (ts.tv_nsec >= 1000000000)
            ts.tv_sec++, ts.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&Q.cv, &Q.mu, &ts);
    }
    int got = 0;
    if (Q.count) {
        Q.cur = Q.msg[Q.head], *msg = Q.cur, *n = Q.len[Q.head];
        Q.head = (Q.head + 1) % POSE_QUEUE_MAX, Q.count--, Q.bytes -= *n;
        got = 1;
    } else if (Q.err) {
        fprintf(stderr, "sensim: error: %s\n", Q.err_text);
        g_live.stream_rc = EXIT_STATUS_BASE + (int)Q.err;
        got = -1;
    } else if (Q.left) {
        got = 2;
    }
    pthread_mutex_unlock(&Q.mu);
    return got;
}

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

/* A publication of the topic with another type (DDS matches by type: it never delivers): said in
 * @p out as what was seen and what is expected; "" when there is none. */
static void other_type(char *out, size_t cap)
{
    enum { MAX_EP = 256 };
    sensim_ros2_endpoint *ep = malloc(MAX_EP * sizeof *ep);
    uint32_t n = 0;
    if (ep && sensim_ros2_publications(g_live.m, ep, MAX_EP, &n) == SENSIM_OK)
        for (uint32_t i = 0; i < n && i < MAX_EP; i++)
            if (!strcmp(ep[i].topic, g_live.pose_topic) && strcmp(ep[i].type, pose_types[g_live.pose_kind])) {
                snprintf(out, cap, "the topic carries %.100s, not the %s --pose-in %s: expects (no message "
                                   "will match)", ep[i].type, pose_types[g_live.pose_kind],
                         g_live.pose_kind == POSE_ODOM ? "odom" : g_live.pose_kind == POSE_STAMPED ? "pose" : "tf");
                break;
            }
    free(ep);
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
        size_t n = 0;
        if (Q.running) {
            int q = queue_take(&msg, &n);
            if (q < 0)
                return 0;
            if (q == 2) {
                fprintf(stderr, "sensim ros2: the publisher of %s left: the run ends\n", g_live.pose_topic);
                return 0;
            }
            if (q == 0)
                continue;
        }
        sensim_status st = Q.running ? SENSIM_OK : sensim_ros2_read(P.rd, 200000000, &msg, &n);
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
                char other[320] = "";
                if (!now)
                    other_type(other, sizeof other);
                fprintf(stderr, "sensim ros2: waiting for a pose on %s (%s): %s\n", g_live.pose_topic,
                        pose_types[g_live.pose_kind], now ? "a publisher, no message yet"
                                                          : other[0] ? other : "no publisher yet");
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

int live_writer_open(void)
{
    if (g_live.m)
        return 0;
    sensim_status st = sensim_ros2_open(&g_live.o, &g_live.m);
    if (!st && g_live.node_name[0])
        st = sensim_ros2_set_node(g_live.m, g_live.node_ns, g_live.node_name);
    return st ? fail_status(st) : 0;
}

/* 0, -1 (Ctrl-C before the first pose) or an exit status after a message. */
int live_pose_open(traj *tr)
{
    int rc = live_writer_open();
    if (rc)
        return rc;
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
    return drain_start();
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
    drain_stop();
    sensim_ros2_reader_close(P.rd);
    P.rd = NULL;
    fprintf(stderr, "sensim ros2: %llu pose%s taken from %s (%llu messages; %llu with a stamp not after the last, "
                    "skipped; %llu lost)\n", (unsigned long long)P.taken, P.taken == 1 ? "" : "s", g_live.pose_topic,
            (unsigned long long)P.messages, (unsigned long long)P.skipped, (unsigned long long)Q.lost);
    if (Q.lost) {
        fprintf(stderr, "sensim: error: %s: %llu pose%s lost: the rig fell more than %d messages (%zu MiB) behind "
                        "the publisher\n", g_live.pose_topic, (unsigned long long)Q.lost, Q.lost == 1 ? "" : "s",
                (int)POSE_QUEUE_MAX, POSE_QUEUE_BYTES >> 20);
        if (!g_live.stream_rc)
            g_live.stream_rc = EXIT_STATUS_BASE + SENSIM_ERR_OVERRUN;
    }
}

void live_close_early(void)
{
    live_pose_close();
    live_control_close();
    if (g_live.m) {
        sensim_mcap_close(g_live.m, NULL);
        g_live.m = NULL;
    }
}
