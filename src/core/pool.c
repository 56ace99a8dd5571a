/* The context's worker pool (DESIGN.md, the host contract: the library's
 * threads never spin against the host's).
 *
 * Workers are plain threads that block on a condition variable between
 * runs (after a spin of tens of microseconds, for the next block of the
 * same call): nothing of the library runs or polls while the host runs its
 * own model. A run hands out tasks 0 .. n-1 in index order to the caller
 * and the workers; what a task writes is its own (a sensor's ring and
 * counters), so the output is the same for any worker count and any
 * schedule. Workers start at the first run that needs them (a context that
 * never steps a rig of several sensors starts none); a worker that cannot
 * start leaves the pool smaller, never a failure, since the caller alone
 * completes any run. One run at a time: a caller that finds the pool busy
 * (two rigs stepped on two threads) runs its tasks itself. */
#include "internal.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

/* The thread count a stage on this thread may use (0: the context's): 1 on
 * a pool task, whose stage must not start a team of its own on top. */
static _Thread_local uint32_t tls_threads;

uint32_t sensim__threads(const sensim_context *ctx)
{
    return tls_threads ? tls_threads : ctx->thread_count;
}

struct sensim__pool {
    pthread_mutex_t run_mu; /* one run at a time (trylock: a busy pool is not waited for) */
    pthread_mutex_t mu;     /* everything below but ticket and completed */
    pthread_cond_t go, done;
    pthread_t *threads;
    uint32_t started, cap; /* workers running, room in threads */
    uint32_t gen;          /* the run's number: a worker joins the runs it has not seen */
    uint32_t n, limit;     /* the run's tasks; workers with index >= limit sit it out */
    sensim__pool_fn fn;
    void *arg;
    int quit;
    _Atomic uint64_t ticket;    /* gen << 32 | next task: a worker late for a run claims nothing of the next */
    _Atomic uint32_t completed; /* tasks of this run finished */
    _Atomic uint32_t gen_seen;  /* gen, for a worker's short spin without the lock */
};

/* A worker's spin before it blocks, and the caller's before it waits for the last task: 2000 pauses, tens
 * of microseconds, so the blocks of one call do not each pay a wake-up; never longer, since the host's
 * threads may need the core (bench/cosim_rtf.py with a core kept busy: BENCHMARKS.md). */
#define SPIN 2000
#if defined(__x86_64__) || defined(__i386__)
#define PAUSE() __builtin_ia32_pause()
#else
#define PAUSE() ((void)0)
#endif

typedef struct worker_start {
    sensim__pool *p;
    uint32_t index, seen; /* seen: the last run before it started (it joins the next) */
} worker_start;

/* Claim and run tasks of run @p gen (of @p n) until none is left. */
static void work(sensim__pool *p, uint32_t gen, uint32_t n, sensim__pool_fn fn, void *arg, uint32_t who)
{
    for (;;) {
        uint64_t t = atomic_load(&p->ticket);
        do {
            if ((uint32_t)(t >> 32) != gen || (uint32_t)t >= n)
                return;
        } while (!atomic_compare_exchange_weak(&p->ticket, &t, t + 1));
        fn(arg, (uint32_t)t, who);
        if (atomic_fetch_add(&p->completed, 1) + 1 == n) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_broadcast(&p->done);
            pthread_mutex_unlock(&p->mu);
        }
    }
}

static void *worker(void *v)
{
    worker_start ws = *(worker_start *)v;
    free(v);
    sensim__pool *p = ws.p;
    tls_threads = 1;
    uint32_t seen = ws.seen;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        if (!p->quit && p->gen == seen) { /* the next block of the same call often follows at once */
            pthread_mutex_unlock(&p->mu);
            for (int k = 0; k < SPIN && atomic_load_explicit(&p->gen_seen, memory_order_acquire) == seen; k++)
                PAUSE();
            pthread_mutex_lock(&p->mu);
        }
        while (!p->quit && p->gen == seen)
            pthread_cond_wait(&p->go, &p->mu);
        if (p->quit)
            break;
        seen = p->gen;
        if (ws.index + 1 >= p->limit)
            continue; /* this run may use fewer threads than the pool has */
        uint32_t n = p->n;
        sensim__pool_fn fn = p->fn;
        void *arg = p->arg;
        pthread_mutex_unlock(&p->mu);
        work(p, seen, n, fn, arg, ws.index + 1);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

sensim__pool *sensim__pool_create(void)
{
    sensim__pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->run_mu, NULL);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    return p;
}

/* Up to @p want workers (p->mu held). Signals are blocked in them: a host's
 * handlers run on the host's threads. */
static void grow(sensim__pool *p, uint32_t want)
{
    if (want <= p->started)
        return;
    if (want > p->cap) {
        pthread_t *t = realloc(p->threads, want * sizeof *t);
        if (!t)
            return;
        p->threads = t, p->cap = want;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    while (p->started < want) {
        worker_start *ws = malloc(sizeof *ws);
        if (!ws)
            break;
        ws->p = p, ws->index = p->started, ws->seen = p->gen;
        if (pthread_create(&p->threads[p->started], NULL, worker, ws) != 0) {
            free(ws);
            break; /* fewer workers: the run still completes */
        }
        p->started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void sensim__pool_run(sensim__pool *p, uint32_t n, uint32_t threads, sensim__pool_fn fn, void *arg)
{
    if (n == 0)
        return;
    if (!p || n == 1 || threads <= 1 || pthread_mutex_trylock(&p->run_mu) != 0) {
        for (uint32_t i = 0; i < n; i++)
            fn(arg, i, 0);
        return;
    }
    uint32_t want = (threads < n ? threads : n) - 1;
    pthread_mutex_lock(&p->mu);
    grow(p, want);
    p->gen++;
    p->n = n, p->limit = want + 1, p->fn = fn, p->arg = arg;
    atomic_store_explicit(&p->gen_seen, p->gen, memory_order_release);
    atomic_store(&p->completed, 0);
    atomic_store(&p->ticket, (uint64_t)p->gen << 32);
    const uint32_t gen = p->gen;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    const uint32_t saved = tls_threads;
    tls_threads = 1;
    work(p, gen, n, fn, arg, 0);
    tls_threads = saved;
    for (int k = 0; k < SPIN && atomic_load_explicit(&p->completed, memory_order_acquire) < n; k++)
        PAUSE();
    pthread_mutex_lock(&p->mu);
    while (atomic_load(&p->completed) < n)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&p->run_mu);
}

uint32_t sensim__pool_workers(sensim__pool *p)
{
    if (!p)
        return 0;
    pthread_mutex_lock(&p->mu);
    uint32_t n = p->started;
    pthread_mutex_unlock(&p->mu);
    return n;
}

void sensim__pool_destroy(sensim__pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (uint32_t i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->run_mu);
    free(p);
}
