#include "internal.h"
#include "trace.h"

#include <ctype.h>
#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SENSIM_MAX_THREADS 1024u

void sensim_context_desc_init(sensim_context_desc *desc)
{
    if (desc)
        memset(desc, 0, sizeof *desc);
}

static uint32_t resolve_threads(uint32_t n)
{
    if (n != 0)
        return n;
    int p = omp_get_num_procs();
    return p > 0 ? (uint32_t)p : 1u;
}

/* ---- can the OpenMP team of a thread count start? ----
 * libgomp calls exit(1) when it cannot create a team's thread ("Thread creation failed"): a host would
 * die with no status. So a count is tried once before it is accepted: its n - 1 workers (the caller is the
 * team's first thread) are created together, with the stack libgomp gives them, and joined. A count that
 * starts is remembered, and smaller counts are then not tried again. */
static _Atomic uint32_t g_team_ok = 1;

/* libgomp's worker stack: OMP_STACKSIZE, else GOMP_STACKSIZE ("size[B|K|M|G]", K without a unit), else the
 * pthread default (0 here). */
static size_t omp_stack_bytes(void)
{
    const char *v = getenv("OMP_STACKSIZE");
    if (!v || !*v)
        v = getenv("GOMP_STACKSIZE");
    if (!v || !*v)
        return 0;
    errno = 0;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno || end == v)
        return 0;
    while (isspace((unsigned char)*end))
        end++;
    int shift = 10;
    switch (toupper((unsigned char)*end)) {
    case 'B': shift = 0; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    default: break;
    }
    return n > (SIZE_MAX >> shift) ? 0 : (size_t)n << shift;
}

typedef struct team_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
} team_gate;

static void *team_member(void *arg)
{
    team_gate *g = arg;
    pthread_mutex_lock(&g->mu);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    return NULL;
}

static sensim_status check_team(uint32_t n, const char *fn)
{
    if (n <= atomic_load(&g_team_ok))
        return SENSIM_OK;
    pthread_t *t = malloc((n - 1) * sizeof *t);
    if (!t)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: cannot start %u threads (out of memory)", fn, n);
    team_gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    pthread_attr_t a;
    pthread_attr_init(&a);
    size_t stack = omp_stack_bytes();
    if (stack)
        pthread_attr_setstacksize(&a, stack);
    uint32_t started = 0;
    int rc = 0;
    while (started < n - 1 && (rc = pthread_create(&t[started], &a, team_member, &g)) == 0)
        started++;
    pthread_attr_destroy(&a);
    pthread_mutex_lock(&g.mu);
    g.open = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    for (uint32_t k = 0; k < started; k++)
        pthread_join(t[k], NULL);
    free(t);
    pthread_cond_destroy(&g.cv);
    pthread_mutex_destroy(&g.mu);
    if (started < n - 1)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: cannot start %u threads: thread %u failed (%s); the "
                            "address space or the process limit is too small for their stacks (ulimit -v, ulimit "
                            "-u, OMP_STACKSIZE): ask for fewer threads", fn, n, started + 2, strerror(rc));
    uint32_t seen = atomic_load(&g_team_ok);
    while (n > seen && !atomic_compare_exchange_weak(&g_team_ok, &seen, n))
        ;
    return SENSIM_OK;
}

sensim_status sensim_context_create(const sensim_context_desc *desc, sensim_context **out_ctx)
{
    if (!out_ctx)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_context_create: out_ctx is NULL");
    *out_ctx = NULL;
    sensim_context_desc d;
    sensim_context_desc_init(&d);
    if (desc)
        d = *desc;
    if (d.thread_count > SENSIM_MAX_THREADS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "thread_count = %u exceeds %u",
                            d.thread_count, SENSIM_MAX_THREADS);
    sensim_status ts = check_team(resolve_threads(d.thread_count), "sensim_context_create");
    if (ts != SENSIM_OK)
        return ts;
    sensim_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate context");
    atomic_init(&ctx->refs, 1);
    atomic_init(&ctx->cancel, 0);
    ctx->magic = SENSIM_MAGIC_CONTEXT;
    ctx->thread_count = resolve_threads(d.thread_count);
    ctx->log_fn = d.log_fn;
    ctx->log_user = d.log_user;
    sensim_status s = sensim__trace_device_create(ctx);
    if (s != SENSIM_OK) {
        free(ctx);
        return s;
    }
    ctx->pool = sensim__pool_create(); /* NULL (out of memory): every step runs on the caller's thread */
    *out_ctx = ctx;
    return SENSIM_OK;
}

void sensim__context_retain(sensim_context *ctx)
{
    atomic_fetch_add(&ctx->refs, 1);
}

void sensim__desc_arrays_free(sensim_lidar_desc *d)
{
    free((void *)d->elevation_rad);
    free((void *)d->azimuth_offset_rad);
    free((void *)d->firing_offset_ns);
    free((void *)d->table.azimuth_rad);
    free((void *)d->table.elevation_rad);
    free((void *)d->table.channel);
    free((void *)d->table.time_ns);
    memset(d, 0, sizeof *d);
}

void sensim__context_release(sensim_context *ctx)
{
    if (atomic_fetch_sub(&ctx->refs, 1) == 1) {
        for (uint32_t i = 0; i < ctx->registered_count; i++)
            sensim__desc_arrays_free(&ctx->registered[i].desc);
        sensim__trace_device_destroy(ctx);
        sensim__pool_destroy(ctx->pool);
        ctx->magic = SENSIM_MAGIC_DEAD;
        free(ctx);
    }
}

const sensim_lidar_desc *sensim__context_find_pattern(const sensim_context *ctx, const char *name)
{
    for (uint32_t i = 0; i < ctx->registered_count; i++)
        if (strcmp(ctx->registered[i].name, name) == 0)
            return &ctx->registered[i].desc;
    return NULL;
}

void sensim_context_destroy(sensim_context *ctx)
{
    if (ctx && ctx->magic == SENSIM_MAGIC_CONTEXT)
        sensim__context_release(ctx);
}

uint32_t sensim_context_thread_count(const sensim_context *ctx)
{
    return ctx && ctx->magic == SENSIM_MAGIC_CONTEXT ? ctx->thread_count : 0;
}

sensim_status sensim_context_set_cancel(sensim_context *ctx, int32_t cancel)
{
    SENSIM_CHECK_HANDLE(ctx, SENSIM_MAGIC_CONTEXT, "context");
    atomic_store(&ctx->cancel, cancel != 0);
    return SENSIM_OK;
}

sensim_status sensim_context_set_thread_count(sensim_context *ctx, uint32_t n)
{
    SENSIM_CHECK_HANDLE(ctx, SENSIM_MAGIC_CONTEXT, "context");
    if (n > SENSIM_MAX_THREADS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "thread_count = %u exceeds %u", n,
                            SENSIM_MAX_THREADS);
    sensim_status st = check_team(resolve_threads(n), "sensim_context_set_thread_count");
    if (st != SENSIM_OK)
        return st; /* the count stays */
    ctx->thread_count = resolve_threads(n);
    return SENSIM_OK;
}
