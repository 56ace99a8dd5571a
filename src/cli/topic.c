/* sensim topic list | echo TOPIC | hz TOPIC: live ROS 2 topics on a domain
 * without a ROS installation, as `ros2 topic list -v`, `ros2 topic echo`
 * and `ros2 topic hz` show them (sensim bag does the same for files). A
 * participant of its own (sensim_ros2_open, no topics) discovers the
 * publications and reads a topic as CDR bytes (sensim_ros2_reader); echo
 * decodes with the ros2msg definitions libsensim writes into bags (the
 * types sensim publishes), and prints only the size of other types. */
#include "cli.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t g_topic_stop;
static void on_stop(int sig)
{
    (void)sig;
    g_topic_stop = 1;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int topic_fail(sensim_status st)
{
    fprintf(stderr, "sensim: error: %s\n", sensim_context_last_error(NULL));
    return EXIT_STATUS_BASE + (int)st;
}

/* The publications seen after waiting @p wait_s for discovery (a list the caller frees). */
static int discover(sensim_mcap *m, double wait_s, sensim_ros2_endpoint **out, uint32_t *n)
{
    double until = mono() + wait_s;
    struct timespec nap = {0, 50000000};
    while (mono() < until && !g_topic_stop)
        nanosleep(&nap, NULL); /* discovery runs in DDS's threads: the wait is the point */
    uint32_t k = 0;
    sensim_status st = sensim_ros2_publications(m, NULL, 0, &k);
    *out = st ? NULL : calloc(k ? k : 1, sizeof **out);
    if (!st && !*out)
        return topic_fail(SENSIM_ERR_OUT_OF_MEMORY);
    if (!st)
        st = sensim_ros2_publications(m, *out, k, n);
    if (st)
        return topic_fail(st);
    *n = *n < k ? *n : k;
    return 0;
}

static int by_topic(const void *a, const void *b)
{
    const sensim_ros2_endpoint *x = a, *y = b;
    int c = strcmp(x->topic, y->topic);
    return c ? c : strcmp(x->type, y->type);
}

static int topic_list(sensim_mcap *m, double wait_s, int verbose)
{
    sensim_ros2_endpoint *e = NULL;
    uint32_t n = 0;
    int rc = discover(m, wait_s, &e, &n);
    if (rc)
        return rc;
    qsort(e, n, sizeof *e, by_topic);
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        while (j < n && !strcmp(e[j].topic, e[i].topic) && !strcmp(e[j].type, e[i].type))
            j++;
        if (!verbose) {
            printf("%s\n", e[i].topic);
        } else {
            printf("%s [%s] %u publisher%s:", e[i].topic, e[i].type, j - i, j - i == 1 ? "" : "s");
            for (uint32_t k = i; k < j; k++) {
                char depth[24];
                snprintf(depth, sizeof depth, e[k].depth < 0 ? "keep all" : "keep last %d", e[k].depth);
                printf("%s %s, %s, %s", k > i ? ";" : "", e[k].reliable ? "reliable" : "best effort",
                       e[k].transient_local ? "transient local" : "volatile", depth);
            }
            printf("\n");
        }
        i = j;
    }
    free(e);
    return 0;
}

/* The type of @p topic's publishers (the first seen), waiting for discovery up to @p wait_s. */
static int type_of(sensim_mcap *m, const char *topic, double wait_s, char *type, size_t cap)
{
    for (double t0 = mono(); !g_topic_stop;) {
        sensim_ros2_endpoint *e = NULL;
        uint32_t n = 0;
        int rc = discover(m, 0.2, &e, &n);
        if (rc)
            return rc;
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(e[i].topic, topic)) {
                snprintf(type, cap, "%s", e[i].type);
                free(e);
                return 0;
            }
        free(e);
        if (mono() - t0 >= wait_s) {
            fprintf(stderr, "sensim: error: no publisher of %s seen in %g s (give --type to wait for one)\n", topic,
                    wait_s);
            return EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
        }
    }
    fprintf(stderr, "sensim: interrupted\n"); /* a signal while waiting for a publisher (it said nothing, exit 18) */
    return EXIT_INTERRUPTED;
}

static int topic_read(sensim_mcap *m, const char *topic, const char *type, int hz, int64_t limit, double timeout_s,
                      uint32_t window)
{
    sensim_ros2_reader *r = NULL;
    sensim_status st = sensim_ros2_reader_open(m, topic, type, &r);
    if (st)
        return topic_fail(st);
    const char *def = sensim_ros2_message_definition(type);
    if (!hz && !def)
        fprintf(stderr, "sensim topic: %s is %s, a type sensim does not know: each message's size only\n", topic,
                type);
    double *arr = hz ? calloc(window, sizeof *arr) : NULL;
    if (hz && !arr) {
        sensim_ros2_reader_close(r);
        return topic_fail(SENSIM_ERR_OUT_OF_MEMORY);
    }
    int64_t got = 0;
    uint64_t seen = 0;
    double last_msg = mono(), last_say = mono();
    int rc = 0;
    while (!g_topic_stop && (limit < 0 || got < limit)) {
        const uint8_t *msg;
        size_t n, at = 0;
        if ((st = sensim_ros2_read(r, 200000000, &msg, &n))) {
            rc = topic_fail(st);
            break;
        }
        double now = mono();
        if (n == 0) {
            if (timeout_s > 0 && now - last_msg >= timeout_s) {
                fprintf(stderr, "sensim topic: no message on %s for %g s\n", topic, timeout_s);
                rc = got ? 0 : EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
                break;
            }
        } else if (hz) {
            arr[seen % window] = now;
            seen++, got++;
            last_msg = now;
        } else {
            got++;
            last_msg = now;
            if (!def)
                printf("(%zu bytes of CDR)\n---\n", n);
            else if (echo_cdr(type, def, msg, n, &at)) { /* printed only when it decoded whole */
                fprintf(stderr,
                        "sensim: error: %s: message %lld does not match %s (decoding stopped at byte %zu of %zu); "
                        "nothing of it printed\n",
                        topic, (long long)got, type, at, n);
                rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
                break;
            }
            fflush(stdout);
        }
        if (hz && now - last_say >= 1.0 && seen >= 2) { /* as ros2 topic hz: over the last `window` arrivals */
            uint64_t k = seen < window ? seen : window;
            double first = arr[(seen - k) % window], lastt = arr[(seen - 1) % window], mn = INFINITY, mx = 0, s2 = 0;
            double mean = (lastt - first) / (double)(k - 1);
            for (uint64_t i = seen - k + 1; i < seen; i++) {
                double d = arr[i % window] - arr[(i - 1) % window];
                mn = fmin(mn, d), mx = fmax(mx, d), s2 += (d - mean) * (d - mean);
            }
            printf("average rate: %.3f\n\tmin: %.3fs max: %.3fs std dev: %.5fs window: %llu\n",
                   mean > 0 ? 1.0 / mean : 0.0, mn, mx, sqrt(s2 / (double)(k - 1)), (unsigned long long)k);
            fflush(stdout);
            last_say = now;
        }
    }
    free(arr);
    sensim_ros2_reader_close(r);
    return rc;
}

int cmd_topic(int argc, char **argv)
{
    const char *sub = argc > 2 ? argv[2] : "", *topic = NULL, *type = NULL;
    int verbose = 0;
    double wait_s = 2.0, timeout_s = 0;
    int64_t limit = -1;
    uint32_t window = 10000, domain = UINT32_MAX;
    sensim_ros2_options o;
    sensim_ros2_options_init(&o);
    int first = !strcmp(sub, "list") ? 3 : 4;
    if (strcmp(sub, "list") && strcmp(sub, "echo") && strcmp(sub, "hz"))
        return usage("sensim topic list [-v] | echo TOPIC | hz TOPIC");
    if (first == 4) {
        topic = argc > 3 ? argv[3] : NULL;
        if (!topic || topic[0] != '/')
            return usage("sensim topic echo|hz needs a topic name (/a/b)");
    }
    for (int i = first; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double x;
        if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
            verbose = 1;
            continue;
        }
        if (!v)
            return usage_option(a, 1);
        i++;
        if (!strcmp(a, "--domain")) {
            if (!parse_u32(v, &domain) || domain > 232)
                return usage("--domain needs a DDS domain id in 0..232");
        } else if (!strcmp(a, "--wait") && parse_numbers(v, &x, 1, 1) == 1 && x >= 0 && x <= 3600) {
            wait_s = x;
        } else if (!strcmp(a, "--timeout") && parse_numbers(v, &x, 1, 1) == 1 && x > 0 && x <= 1e6) {
            timeout_s = x;
        } else if (!strcmp(a, "-n") && parse_numbers(v, &x, 1, 1) == 1 && x >= 1 && x <= 1e12) {
            limit = (int64_t)x;
        } else if (!strcmp(a, "--window") && parse_u32(v, &window) && window >= 2 && window <= 1000000) {
            (void)0;
        } else if (!strcmp(a, "--ros-distro")) {
            if (parse_ros_distro(v, &o))
                return EXIT_USAGE;
        } else if (!strcmp(a, "--type")) {
            type = v;
        } else {
            char msg[160];
            snprintf(msg, sizeof msg, "%.60s: not an option of sensim topic %s, or a value out of range", a, sub);
            return usage(msg);
        }
    }
    if (!sensim_ros2_available()) {
        fprintf(stderr, "sensim: error: this sensim was built without Cyclone DDS (install cyclonedds-dev, "
                        "rebuild)\n");
        return EXIT_STATUS_BASE + SENSIM_ERR_BACKEND;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    cli_stop_watchdog(&g_topic_stop);
    if (domain != UINT32_MAX)
        o.domain_id = (int32_t)domain;
    sensim_mcap *m = NULL;
    sensim_status st = sensim_ros2_open(&o, &m);
    if (!st)
        st = sensim_ros2_set_node(m, "/", "sensim_topic");
    if (st) {
        sensim_mcap_close(m, NULL);
        int rc = topic_fail(st);
        if (g_topic_stop) /* a signal cut Cyclone's startup short */
            fprintf(stderr, "sensim: interrupted\n"), rc = EXIT_INTERRUPTED;
        return rc;
    }
    char found[128];
    int rc = 0;
    if (!strcmp(sub, "list"))
        rc = topic_list(m, wait_s, verbose);
    else if (!type && !(rc = type_of(m, topic, wait_s, found, sizeof found)))
        type = found;
    if (!rc && topic)
        rc = topic_read(m, topic, type, !strcmp(sub, "hz"), limit, timeout_s, window);
    sensim_mcap_close(m, NULL);
    return rc;
}
