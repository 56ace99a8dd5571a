/* Parsers from other projects (Assimp, expat) never run in the host's
 * process: a helper program in libexecdir/sensim parses the file under a
 * memory and CPU-time budget (helper_child.h) and streams what libsensim
 * needs back on a pipe, which the caller then reads as hostile input. This
 * runs such a helper and collects its answer within a byte budget and a
 * wall-clock deadline; a crash, a budget or a hang of the helper is an error
 * naming the file, and the host is untouched. */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addclosefrom_np */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;


static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV, a crash";
    case SIGBUS: return "SIGBUS, a crash";
    case SIGABRT: return "SIGABRT: an abort, often memory exhausted";
    case SIGILL: return "SIGILL, a crash";
    case SIGFPE: return "SIGFPE, a crash";
    case SIGXCPU: return "SIGXCPU: its CPU-time budget ran out";
    case SIGKILL: return "SIGKILL";
    default: return "a signal";
    }
}

sensim_status sensim__helper_run(const char *program, const char *who, const char *path,
                                 unsigned long long max_bytes, unsigned long long mem, unsigned long long cpu,
                                 unsigned long long budget, unsigned char **out, size_t *len)
{
    *out = NULL, *len = 0;
    char helper[4200], a2[32], a3[32], a4[32];
    sensim__libexec_path(program, helper, sizeof helper);
    snprintf(a2, sizeof a2, "%llu", max_bytes);
    snprintf(a3, sizeof a3, "%llu", mem);
    snprintf(a4, sizeof a4, "%llu", cpu);
    char *argv[] = {helper, (char *)path, a2, a3, a4, NULL};
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot make a pipe for the %s helper: %s", path, who, strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    posix_spawn_file_actions_addclosefrom_np(&fa, 3); /* none of the host's descriptors */
#endif
    pid_t pid;
    int e = posix_spawn(&pid, helper, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (e != 0) {
        close(fds[0]);
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot run the %s helper %s: %s", path, who, helper, strerror(e));
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    const double deadline = mono_s() + 2.0 * (double)cpu + 10.0;
    int why = 0; /* 1 answer too long, 2 deadline, 3 out of memory, 4 read error */
    while (buf) {
        double left = deadline - mono_s();
        if (left <= 0) {
            why = 2;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int r = poll(&p, 1, left > 1000 ? 1000000 : (int)(left * 1000) + 1);
        if (r < 0 && errno != EINTR) {
            why = 4;
            break;
        }
        if (r <= 0)
            continue;
        if (n == cap) {
            if (cap >= budget) {
                why = 1;
                break;
            }
            size_t c = cap * 2 > budget ? (size_t)budget : cap * 2;
            unsigned char *q = realloc(buf, c);
            if (!q) {
                why = 3;
                break;
            }
            buf = q, cap = c;
        }
        ssize_t k = read(fds[0], buf + n, cap - n);
        if (k < 0 && errno != EINTR && errno != EAGAIN) {
            why = 4;
            break;
        }
        if (k == 0)
            break; /* the helper closed its end: done or dead */
        if (k > 0)
            n += (size_t)k;
    }
    if (!buf)
        why = 3;
    close(fds[0]);
    if (why)
        kill(pid, SIGKILL);
    int ws = 0;
    pid_t w;
    while ((w = waitpid(pid, &ws, 0)) < 0 && errno == EINTR)
        ;
    const int reaped = w == pid; /* a host ignoring SIGCHLD reaps it itself: the answer alone decides */
    sensim_status st = SENSIM_OK;
    if (why == 1)
        st = sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: the importer's answer passed its budget of %llu bytes", path,
                          budget);
    else if (why == 2)
        st = sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: the importer (%s) did not finish within %.0f s: stopped",
                          path, who, 2.0 * (double)cpu + 10.0);
    else if (why == 3)
        st = sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory for the importer's answer", path);
    else if (why == 4)
        st = sensim__fail(SENSIM_ERR_IO, "%s: reading the importer's answer: %s", path, strerror(errno));
    else if (reaped && WIFSIGNALED(ws))
        st = sensim__fail(WTERMSIG(ws) == SIGXCPU ? SENSIM_ERR_TOO_LARGE : SENSIM_ERR_PARSE,
                          "%s: the importer (%s, in its own process) was stopped by signal %d (%s) on this "
                          "file: it is malformed, nested too deeply or too large; nothing was loaded",
                          path, who, WTERMSIG(ws), signal_name(WTERMSIG(ws)));
    else if (reaped && WIFEXITED(ws) && WEXITSTATUS(ws) == SENSIM_HELPER_EXIT_USAGE)
        st = sensim__fail(SENSIM_ERR_IO, "%s: the %s helper %s refused its arguments", path, who, helper);
    else if (reaped && WIFEXITED(ws) && WEXITSTATUS(ws) == 127)
        st = sensim__fail(SENSIM_ERR_IO, "%s: the %s helper %s could not start", path, who, helper);
    if (st != SENSIM_OK) {
        free(buf);
        return st;
    }
    *out = buf, *len = n;
    return SENSIM_OK;
}
