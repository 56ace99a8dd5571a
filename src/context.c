#include "internal.h"
#include "trace.h"

#include <omp.h>
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
    sensim_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate context");
    atomic_init(&ctx->refs, 1);
    ctx->thread_count = resolve_threads(d.thread_count);
    ctx->log_fn = d.log_fn;
    ctx->log_user = d.log_user;
    sensim_status s = sensim__trace_device_create(ctx);
    if (s != SENSIM_OK) {
        free(ctx);
        return s;
    }
    *out_ctx = ctx;
    return SENSIM_OK;
}

void sensim__context_retain(sensim_context *ctx)
{
    atomic_fetch_add(&ctx->refs, 1);
}

void sensim__context_release(sensim_context *ctx)
{
    if (atomic_fetch_sub(&ctx->refs, 1) == 1) {
        sensim__trace_device_destroy(ctx);
        free(ctx);
    }
}

void sensim_context_destroy(sensim_context *ctx)
{
    if (ctx)
        sensim__context_release(ctx);
}

uint32_t sensim_context_thread_count(const sensim_context *ctx)
{
    return ctx ? ctx->thread_count : 0;
}

sensim_status sensim_context_set_thread_count(sensim_context *ctx, uint32_t n)
{
    if (!ctx)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_context_set_thread_count: ctx is NULL");
    if (n > SENSIM_MAX_THREADS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "thread_count = %u exceeds %u", n,
                            SENSIM_MAX_THREADS);
    ctx->thread_count = resolve_threads(n);
    return SENSIM_OK;
}
