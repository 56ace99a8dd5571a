/* sensim ros2: the batch driver (one rig, the bag's consumers) publishing
 * live over DDS (sensim_ros2_open) instead of writing a bag: the same
 * topics, types, frame ids and stamps as `sensim batch --format mcap`,
 * paced by the wall clock (--rate). */
#include "batch.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

live_opts g_live;
static double g_run_start; /* wall time the first step began (after waiting for subscribers) */

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define NAP_MAX_S 0.05

static void nap_until(double t_s)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t_s;
    ts.tv_nsec = (long)((t_s - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec > 999999999)
        ts.tv_nsec = 999999999;
    /* EINTR (Ctrl-C) returns early when the signal lands on this thread; it may land on another
     * (OpenMP's, Cyclone's): the callers sleep at most NAP_MAX_S at a time and look at g_stop */
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Always end on a signal. The handlers only set a flag, and the run stops at
 * its next step and closes DDS; but some Cyclone calls do not return on a
 * signal (a reliable write blocks without limit while a subscriber does not
 * read, a lookup of a peer's name, whatever a config makes it do before the
 * participant exists). This thread watches the flag: STOP_GRACE_S after it
 * was set, a process still running ends with 130, without closing DDS (the
 * peers see it leave when its lease ends). Used by sensim ros2 and sensim
 * topic; it polls 20 times a second, which costs nothing measurable. */
#define STOP_GRACE_S 3

static void *stop_watchdog(void *arg)
{
    volatile sig_atomic_t *watched = arg;
    struct timespec tick = {0, 50 * 1000 * 1000};
    while (!__atomic_load_n(watched, __ATOMIC_RELAXED))
        nanosleep(&tick, NULL);
    double end = mono_s() + STOP_GRACE_S;
    while (mono_s() < end)
        nanosleep(&tick, NULL);
    static const char msg[] = "sensim: interrupted; still inside Cyclone DDS 3 s after the signal: ending without "
                              "closing it\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        (void)0;
    _exit(EXIT_INTERRUPTED);
}

void cli_stop_watchdog(volatile sig_atomic_t *flag)
{
    pthread_t t;
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    /* the watchdog never takes the signals (any other thread may: the sleepers poll g_stop) */
    pthread_sigmask(SIG_BLOCK, &block, &old);
    if (pthread_create(&t, NULL, stop_watchdog, (void *)flag) == 0)
        pthread_detach(t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Is topic @p name one --wait-subscribers waits for? */
static int waited_for(const char *name)
{
    if (!g_live.nwait_topics)
        return 1;
    for (int i = 0; i < g_live.nwait_topics; i++)
        if (!strcmp(g_live.wait_topics[i], name))
            return 1;
    return 0;
}

/* Waiting for subscribers, and saying every 3 s which topics still lack one, and which readers DDS
 * refused for incompatible QoS (they will never match: a reliable reader of a best-effort cloud). */
static int wait_subscribers(sensim_mcap *m, uint32_t topics)
{
    for (int i = 0; i < g_live.nwait_topics; i++) {
        int found = 0;
        for (uint16_t t = 0; t < topics && !found; t++) {
            const char *name = NULL;
            found = sensim_mcap_topic(m, t, &name, NULL) == SENSIM_OK && !strcmp(name, g_live.wait_topics[i]);
        }
        if (!found) {
            fprintf(stderr, "sensim: error: --wait-subscribers: this run publishes no topic %s\n",
                    g_live.wait_topics[i]);
            return EXIT_USAGE;
        }
    }
    fprintf(stderr, "sensim ros2: waiting for a subscriber on %s%u topics (Ctrl-C stops)\n",
            g_live.nwait_topics ? "" : "each of the ", g_live.nwait_topics ? (uint32_t)g_live.nwait_topics : topics);
    double next_say = mono_s() + 3.0;
    for (;;) {
        uint32_t missing = 0;
        int say = mono_s() >= next_say;
        char lacking[1024] = "";
        for (uint16_t t = 0; t < topics; t++) {
            const char *name = NULL;
            if (sensim_mcap_topic(m, t, &name, NULL) || !waited_for(name))
                continue;
            uint32_t n = 0, bad = 0;
            const char *policy = "";
            sensim_status st = sensim_ros2_subscribers(m, t, &n);
            if (!st)
                st = sensim_ros2_incompatible(m, t, &bad, &policy);
            if (st) {
                fprintf(stderr, "sensim: error: %s\n", sensim_context_last_error(NULL));
                return EXIT_STATUS_BASE + (int)st;
            }
            missing += n == 0;
            if (say && n == 0 && strlen(lacking) + strlen(name) + 3 < sizeof lacking)
                snprintf(lacking + strlen(lacking), sizeof lacking - strlen(lacking), "%s%s", *lacking ? ", " : "",
                         name);
            if (say && bad)
                fprintf(stderr, "sensim ros2: %s refused %u reader%s for incompatible QoS (last: %s; this topic "
                                "offers its ROS 2 profile, see --qos)\n", name, bad, bad == 1 ? "" : "s", policy);
        }
        if (!missing)
            break;
        if (say) {
            fprintf(stderr, "sensim ros2: still no subscriber on %u topic%s: %s\n", missing, missing == 1 ? "" : "s",
                    lacking);
            next_say = mono_s() + 3.0;
        }
        if (g_stop)
            return -1;
        nap_until(mono_s() + 0.01); /* polling discovery state, not timing anything */
    }
    return 0;
}

int live_start(sensim_mcap *m)
{
    sensim_mcap_stats ms;
    sensim_mcap_get_stats(m, &ms);
    if (g_live.wait_subscribers) {
        int rc = wait_subscribers(m, ms.topics);
        if (rc)
            return rc;
    }
    if (g_live.go_on_stdin) {
        fprintf(stderr, "sensim ros2: matched; starting when a line arrives on stdin\n");
        int c;
        while ((c = getchar()) != EOF && c != '\n')
            ;
    }
    g_run_start = mono_s();
    return 0;
}

/* Pacing against the wall clock, and the truth about it: a step whose wall time has already passed is
 * late; while steps are late a line every second says how far behind and since when (world time), and
 * live_end() sums up (steps late, worst lag). A lag under 1 ms is scheduling noise, not late. */
static struct {
    int started;
    int64_t t0, behind_since;
    double w0, worst, last_said;
    uint64_t steps, late;
} g_pace;

/* The stamps' clock, set at the first step: world time (sim), + a fixed epoch, or the wall clock then. */
static int stamp_clock(sensim_mcap *m, int64_t t)
{
    int64_t off = g_live.stamp_offset_ns;
    if (g_live.stamp_wall) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        off = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec - t;
    }
    sensim_status st = off ? sensim_mcap_set_stamp_offset(m, off) : SENSIM_OK;
    if (st) {
        fprintf(stderr, "sensim: error: %s\n", sensim_context_last_error(NULL));
        return EXIT_STATUS_BASE + (int)st;
    }
    return 0;
}

int live_pace(sensim_mcap *m, int64_t t)
{
    static int stamped;
    if (!stamped) {
        stamped = 1;
        int rc = stamp_clock(m, t);
        if (rc)
            return rc;
    }
    if (!(g_live.rate > 0))
        return 0;
    double now = mono_s();
    if (!g_pace.started) {
        g_pace.started = 1, g_pace.t0 = t, g_pace.w0 = now, g_pace.behind_since = INT64_MIN;
        return 0;
    }
    double target = g_pace.w0 + (double)(t - g_pace.t0) * 1e-9 / g_live.rate, lag = now - target;
    g_pace.steps++;
    if (lag > 1e-3) {
        g_pace.late++;
        g_pace.worst = fmax(g_pace.worst, lag);
        if (g_pace.behind_since == INT64_MIN)
            g_pace.behind_since = t;
        if (now - g_pace.last_said >= 1.0) {
            g_pace.last_said = now;
            fprintf(stderr, "sensim ros2: behind real time%s by %.3f s at world %.3f s (behind since world %.3f s; "
                            "%llu of %llu steps late)\n",
                    g_live.rate == 1.0 ? "" : " x rate", lag, (double)t * 1e-9, (double)g_pace.behind_since * 1e-9,
                    (unsigned long long)g_pace.late, (unsigned long long)g_pace.steps);
        }
        return 0; /* no nap: catching up */
    }
    if (g_pace.behind_since != INT64_MIN && g_pace.last_said > 0)
        fprintf(stderr, "sensim ros2: back on time at world %.3f s\n", (double)t * 1e-9);
    g_pace.behind_since = INT64_MIN, g_pace.last_said = 0;
    while (!g_stop && mono_s() < target)
        nap_until(fmin(target, mono_s() + NAP_MAX_S));
    return 0;
}

void live_end(sensim_mcap *m)
{
    (void)m;
    fprintf(stderr, "sensim ros2: stepped and %s in %.3f s\n", g_live.dry_run ? "discarded (dry run)" : "published",
            mono_s() - g_run_start);
    if (g_live.rate > 0 && g_pace.steps)
        fprintf(stderr, "sensim ros2: paced at %g x real time: %llu of %llu steps late (%.1f %%), worst lag %.3f s\n",
                g_live.rate, (unsigned long long)g_pace.late, (unsigned long long)g_pace.steps,
                100.0 * (double)g_pace.late / (double)g_pace.steps, g_pace.worst);
    if (g_live.linger_s == 0 || g_stop)
        return;
    if (g_live.linger_s < 0)
        fprintf(stderr, "sensim ros2: run done; holding /tf_static for late subscribers until Ctrl-C\n");
    else
        fprintf(stderr, "sensim ros2: run done; holding /tf_static for late subscribers for %g s (Ctrl-C ends)\n",
                g_live.linger_s);
    double end = g_live.linger_s < 0 ? INFINITY : mono_s() + g_live.linger_s;
    while (!g_stop && mono_s() < end)
        nap_until(fmin(end, mono_s() + NAP_MAX_S));
}

const char *live_stream_name(void) { return g_live.pose_kind || g_live.control_in ? g_live.pose_topic : "stdin"; }

int live_more_keys(traj *tr)
{
    if (g_live.pose_kind)
        return g_live.stream ? live_pose_more(tr) : 0;
    if (g_live.control_in)
        return g_live.stream ? live_control_more(tr) : 0;
    traj_reader *r = g_live.stream;
    for (;;) {
        if (!r || r->eof || g_stop || g_live.stream_rc)
            return 0;
        size_t n = tr->n;
        int rc = traj_read(r, tr, n + 1);
        if (rc && !g_stop) /* a row refused (the message names stdin:line); Ctrl-C mid-read is not a failure */
            g_live.stream_rc = rc;
        if (rc || tr->n == n)
            return 0;
        if (n == 0)
            g_live.stream_t0_ns = tr->keys[0].t_ns;
        if (n == 0 || tr->keys[n].t_ns - tr->keys[n - 1].t_ns >= g_live.thin_gap_ns ||
            tr->keys[n].t_ns == tr->keys[n - 1].t_ns) /* a jump's row is kept */
            return 1;
        tr->n = n, g_live.stream_dropped++; /* denser than a step holds: thinned as thin_keys does */
    }
}

void live_forget_keys(traj *tr, size_t *pushed)
{
    if (!g_live.stream || tr->n < 2 * LIVE_KEEP_ROWS || *pushed <= 8)
        return;
    size_t drop = tr->n - LIVE_KEEP_ROWS;
    if (drop > *pushed - 8)
        drop = *pushed - 8;
    memmove(tr->keys, tr->keys + drop, (tr->n - drop) * sizeof *tr->keys);
    tr->n -= drop, *pushed -= drop;
}

const char *live_domain(void)
{
    static char b[16];
    const char *e = getenv("ROS_DOMAIN_ID");
    if (g_live.o.domain_id >= 0)
        snprintf(b, sizeof b, "%d", g_live.o.domain_id);
    else
        snprintf(b, sizeof b, "%.4s", e && *e ? e : "0"); /* sensim_ros2_open checked it */
    return b;
}

/* --wait-subscribers=/a,/b: the topics to wait for (kept in g_live until the process ends) */
static int split_topics(const char *list)
{
    static char copy[4096];
    static char *names[256];
    if (!*list || strlen(list) >= sizeof copy)
        return usage("--wait-subscribers=TOPIC,TOPIC... needs topic names (under 4096 bytes in all)");
    snprintf(copy, sizeof copy, "%s", list);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (n == 256 || t[0] != '/')
            return usage("--wait-subscribers=TOPIC,TOPIC...: up to 256 topic names, each starting with '/'");
        names[n++] = t;
    }
    g_live.wait_topics = names, g_live.nwait_topics = n;
    return 0;
}

int cmd_ros2(int argc, char **argv)
{
    memset(&g_live, 0, sizeof g_live);
    g_live.on = 1;
    g_live.rate = 1.0;
    sensim_ros2_options_init(&g_live.o);
    char **av = calloc((size_t)argc + 3, sizeof *av);
    if (!av) {
        fprintf(stderr, "sensim: error: out of memory\n");
        return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
    }
    int n = 0;
    av[n++] = argv[0];
    av[n++] = argv[1];
    int rc = 0;
    for (int i = 2; i < argc && !rc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--wait-subscribers")) {
            g_live.wait_subscribers = 1;
        } else if (!strncmp(a, "--wait-subscribers=", 19)) {
            g_live.wait_subscribers = 1;
            if ((rc = split_topics(a + 19)))
                break;
        } else if (!strcmp(a, "--node")) {
            if (!v) {
                rc = usage_option(a, 1);
                break;
            }
            i++;
            const char *slash = strrchr(v, '/');
            size_t nsl = slash ? (size_t)(slash - v) : 0;
            if (strlen(v) >= sizeof g_live.node_name || nsl >= sizeof g_live.node_ns || (slash && v[0] != '/')) {
                rc = usage("--node needs NAME or /NAMESPACE/NAME (a ROS node name, under 224 bytes)");
                break;
            }
            snprintf(g_live.node_ns, sizeof g_live.node_ns, "%.*s", (int)(nsl ? nsl : 1), nsl ? v : "/");
            snprintf(g_live.node_name, sizeof g_live.node_name, "%s", slash ? slash + 1 : v);
        } else if (!strcmp(a, "--dry-run")) {
            g_live.dry_run = 1;
        } else if (!strcmp(a, "--start-on-stdin")) {
            g_live.go_on_stdin = 1;
        } else if (!strcmp(a, "--ros-distro")) {
            if (!v) {
                rc = usage_option(a, 1);
                break;
            }
            i++;
            if ((rc = parse_ros_distro(v, &g_live.o)))
                break;
        } else if (!strcmp(a, "--pose-in")) {
            if (!v) {
                rc = usage_option(a, 1);
                break;
            }
            i++;
            if ((rc = live_pose_parse(v)))
                break;
        } else if (!strcmp(a, "--control-in")) {
            if (!v) {
                rc = usage_option(a, 1);
                break;
            }
            i++;
            if ((rc = live_control_parse(v)))
                break;
        } else if (!strcmp(a, "--stamp")) {
            double x;
            if (!v) {
                rc = usage_option(a, 1);
                break;
            }
            i++;
            if (!strcmp(v, "wall"))
                g_live.stamp_wall = 1;
            else if (!strcmp(v, "sim"))
                g_live.stamp_wall = 0, g_live.stamp_offset_ns = 0;
            else if (parse_numbers(v, &x, 1, 1) == 1 && x >= 0 && x <= 2147483647.0 - 1e6)
                g_live.stamp_offset_ns = (int64_t)llround(x * 1e9);
            else
                rc = usage("--stamp needs sim (world time, default), wall (wall clock at the first step + world "
                           "time) or an epoch in seconds (0..2^31 - 1e6)");
        } else if (!strcmp(a, "--rate") || !strcmp(a, "--domain") || !strcmp(a, "--qos") || !strcmp(a, "--linger")) {
            if (!v) {
                rc = usage_option(a, 1);
                break;
            }
            i++;
            double x;
            if (!strcmp(a, "--rate")) {
                g_live.rate_given = 1;
                if (!strcmp(v, "realtime"))
                    g_live.rate = 1.0;
                else if (!strcmp(v, "max"))
                    g_live.rate = 0.0;
                else if (parse_numbers(v, &x, 1, 1) == 1 && x >= 1e-3 && x <= 1e6)
                    g_live.rate = x;
                else
                    rc = usage("--rate needs realtime, max or a factor in [0.001, 1e6] (world s per wall s)");
            } else if (!strcmp(a, "--domain")) {
                uint32_t d;
                if (parse_u32(v, &d) && d <= 232)
                    g_live.o.domain_id = (int32_t)d;
                else
                    rc = usage("--domain needs a DDS domain id in 0..232 (default: ROS_DOMAIN_ID, else 0)");
            } else if (!strcmp(a, "--qos")) {
                if (!strcmp(v, "ros"))
                    g_live.o.qos = SENSIM_ROS2_QOS_PROFILES;
                else if (!strcmp(v, "reliable"))
                    g_live.o.qos = SENSIM_ROS2_QOS_RELIABLE;
                else
                    rc = usage("--qos must be ros (each topic's ROS 2 profile) or reliable (every topic reliable, "
                               "keep all)");
            } else if (!strcmp(v, "forever")) {
                g_live.linger_s = -1;
            } else if (parse_numbers(v, &x, 1, 1) == 1 && x >= 0 && x <= 1e6) {
                g_live.linger_s = x;
            } else {
                rc = usage("--linger needs seconds in [0, 1e6] or forever");
            }
        } else if (!strcmp(a, "--out") || !strcmp(a, "--format") || !strcmp(a, "--resume") ||
                   !strcmp(a, "--overwrite") || !strcmp(a, "--shard") || !strcmp(a, "--images") ||
                   !strncmp(a, "--mcap-", 7) || !strcmp(a, "--frame") || !strcmp(a, "--las-version")) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s writes files: sensim ros2 publishes (record with sensim batch --format mcap)",
                     a);
            rc = usage(msg);
        } else {
            av[n++] = argv[i];
        }
    }
    if (!rc && !sensim_ros2_available()) {
        fprintf(stderr, "sensim: error: this sensim was built without Cyclone DDS (install cyclonedds-dev, "
                        "rebuild)\n");
        rc = EXIT_STATUS_BASE + SENSIM_ERR_BACKEND;
    }
    if (!rc && g_live.pose_kind && g_live.control_in)
        rc = usage("--pose-in and --control-in: the ego's motion comes from one of them");
    if (!rc && g_live.pose_kind && !g_live.rate_given)
        g_live.rate = 0; /* the poses arrive at their own pace: pacing again would only add lag */
    if (!rc) {
        av[n++] = "--format";
        av[n++] = "mcap";
        cli_stop_watchdog(&g_stop);
        rc = cmd_batch(n, av);
    }
    free(av);
    if (rc > 0 && rc != EXIT_INTERRUPTED && g_stop) {
        /* the signal cut a call short (Cyclone's open of a file it was blocked on fails, and the
         * participant with it): the run ended because it was asked to */
        fprintf(stderr, "sensim: interrupted\n");
        rc = EXIT_INTERRUPTED;
    }
    return rc;
}
