/* Shared by the fuzz targets: one context for the whole run. */
#ifndef SENSIM_FUZZ_COMMON_H
#define SENSIM_FUZZ_COMMON_H

#include <sensim/sensim.h>

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline sensim_context *fuzz_ctx(void)
{
    static sensim_context *ctx;
    if (!ctx) {
        sensim_context_desc d;
        sensim_context_desc_init(&d);
        d.thread_count = 1;
        if (sensim_context_create(&d, &ctx) != SENSIM_OK)
            __builtin_trap();
    }
    return ctx;
}

#endif
