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

/* Mesh loaders: the first byte picks the load frame; a mesh that loads must also commit. */
typedef sensim_status (*fuzz_mesh_loader)(sensim_scene *, const char *, const char *, size_t,
                                          const sensim_load_options *, uint32_t *);

static inline int fuzz_mesh(fuzz_mesh_loader load, const char *label, const uint8_t *data, size_t size)
{
    sensim_scene *s;
    if (sensim_scene_create(fuzz_ctx(), &s) != SENSIM_OK)
        return 0;
    sensim_load_options o;
    sensim_load_options_init(&o);
    o.frame = size ? data[0] % 4 : 0;
    if (load(s, label, (const char *)data, size, &o, NULL) == SENSIM_OK && sensim_scene_commit(s) != SENSIM_OK)
        __builtin_trap();
    sensim_scene_destroy(s);
    return 0;
}

#endif
