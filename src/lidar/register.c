/* sensim_context_register_pattern (sensim/context.h): a pattern is checked
 * by building a lidar from it, then copied into the context's table, which
 * the context (core/context.c) looks up by name and frees. Here, on the
 * lidar floor, so the context never calls up into the lidar. */
#include "lidar_impl.h"

#include <stdlib.h>
#include <string.h>

static void *dup(const void *src, size_t n)
{
    if (!src || n == 0)
        return NULL;
    void *p = malloc(n);
    if (p)
        memcpy(p, src, n);
    return p;
}

sensim_status sensim_context_register_pattern(sensim_context *ctx, const char *name, const sensim_lidar_desc *desc)
{
    SENSIM_CHECK_HANDLE(ctx, SENSIM_MAGIC_CONTEXT, "context");
    if (!name || !desc)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_context_register_pattern: NULL argument");
    size_t len = strlen(name);
    if (len == 0 || len > 31)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "pattern name '%s' must have 1..31 characters", name);
    for (size_t i = 0; i < len; i++)
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_' ||
              name[i] == '-'))
            return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "pattern name '%s' has characters other than a-z 0-9 _ -",
                                name);
    /* validate by building a lidar from it */
    sensim_lidar *probe;
    sensim_status st = sensim_lidar_create(ctx, desc, &probe);
    if (st != SENSIM_OK)
        return st;
    sensim_lidar_destroy(probe);
    sensim_registered *slot = NULL;
    for (uint32_t i = 0; i < ctx->registered_count; i++)
        if (strcmp(ctx->registered[i].name, name) == 0)
            slot = &ctx->registered[i];
    if (!slot && ctx->registered_count == SENSIM_MAX_REGISTERED)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "more than %d registered patterns", SENSIM_MAX_REGISTERED);
    sensim_lidar_desc d = *desc;
    size_t nch = desc->channel_count, nt = (size_t)desc->table.shot_count;
    d.name = NULL;
    d.elevation_rad = dup(desc->elevation_rad, nch * sizeof(float));
    d.azimuth_offset_rad = dup(desc->azimuth_offset_rad, nch * sizeof(float));
    d.firing_offset_ns = dup(desc->firing_offset_ns, nch * sizeof(int32_t));
    bool table = desc->pattern == SENSIM_PATTERN_TABLE;
    d.table.azimuth_rad = table ? dup(desc->table.azimuth_rad, nt * sizeof(float)) : NULL;
    d.table.elevation_rad = table ? dup(desc->table.elevation_rad, nt * sizeof(float)) : NULL;
    d.table.channel = table ? dup(desc->table.channel, nt * sizeof(uint16_t)) : NULL;
    d.table.time_ns = table ? dup(desc->table.time_ns, nt * sizeof(int64_t)) : NULL;
    if ((desc->elevation_rad && !d.elevation_rad) || (desc->azimuth_offset_rad && !d.azimuth_offset_rad) ||
        (desc->firing_offset_ns && !d.firing_offset_ns) || (table && !d.table.azimuth_rad) ||
        (table && !d.table.elevation_rad) || (table && desc->table.channel && !d.table.channel) ||
        (table && desc->table.time_ns && !d.table.time_ns)) {
        sensim__desc_arrays_free(&d);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot copy pattern '%s'", name);
    }
    if (slot) {
        sensim__desc_arrays_free(&slot->desc);
    } else {
        slot = &ctx->registered[ctx->registered_count++];
    }
    memcpy(slot->name, name, len + 1);
    slot->desc = d;
    return SENSIM_OK;
}
