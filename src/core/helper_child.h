/* The start of a parser helper program (sensim-assimp, sensim-xml): what
 * every helper does before it reads its file. Included by the helpers'
 * main files only (each is its own program; helper.c runs them).
 *
 * Arguments: FILE MAX_FILE_BYTES MEM_LIMIT CPU_SECONDS. The helper dies with
 * its host (PR_SET_PDEATHSIG), leaves no core file, and runs under
 * RLIMIT_CPU and RLIMIT_AS (under AddressSanitizer, which reserves terabytes
 * of address space, its RSS limit instead). */
#ifndef SENSIM_HELPER_CHILD_H
#define SENSIM_HELPER_CHILD_H

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>

/* Exit status of a helper that refused its arguments (helper.c reports it). */
#define SENSIM_HELPER_EXIT_USAGE 64

#if defined(__SANITIZE_ADDRESS__)
#define SENSIM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SENSIM_UNDER_ASAN 1
#endif
#endif

#ifdef SENSIM_UNDER_ASAN
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "hard_rss_limit_mb=3072:allocator_may_return_null=1"; }
#endif

static int sensim_helper_parse_ull(const char *s, unsigned long long *v)
{
    char *end;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return *s >= '0' && *s <= '9' && !*end && !errno;
}

/* Checks the arguments and sets the limits: 0, or the exit status to return
 * (the usage is printed on stderr, which the library points at /dev/null). */
static int sensim_helper_start(int argc, char **argv, const char *name, unsigned long long *max_file_bytes)
{
    unsigned long long mem, cpu;
    if (argc != 5 || !sensim_helper_parse_ull(argv[2], max_file_bytes) || !sensim_helper_parse_ull(argv[3], &mem) ||
        !sensim_helper_parse_ull(argv[4], &cpu)) {
        fprintf(stderr, "usage: %s FILE MAX_FILE_BYTES MEM_LIMIT CPU_SECONDS (libsensim runs it)\n", name);
        return SENSIM_HELPER_EXIT_USAGE;
    }
    /* Die with the host: a SIGKILLed host's helper would parse on for
     * seconds. The parent may have gone before this call (the kernel then
     * sends nothing): its end of our stdout pipe is closed, which poll
     * reports as an error on ours. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct pollfd pp = {1, 0, 0};
    if (poll(&pp, 1, 0) == 1 && (pp.revents & POLLERR))
        return SENSIM_HELPER_EXIT_USAGE;
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl); /* a crash here is an answer, not a core file */
    rl.rlim_cur = rl.rlim_max = (rlim_t)cpu;
    setrlimit(RLIMIT_CPU, &rl);
#ifndef SENSIM_UNDER_ASAN
    rl.rlim_cur = rl.rlim_max = (rlim_t)mem;
    setrlimit(RLIMIT_AS, &rl);
#endif
    return 0;
}

#endif
