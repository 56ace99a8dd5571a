/* MTL parsing for the OBJ loader (camera appearance only). */
#ifndef SENSIM_LOAD_MTL_H
#define SENSIM_LOAD_MTL_H

#include "internal.h"

typedef struct sensim_mtl_entry {
    char name[64];
    float kd[3];          /* 1 1 1 unless Kd is given */
    bool has_kd;
    char *map_kd;         /* texture path (resolved against the MTL's folder), or NULL */
    unsigned long long map_line;
} sensim_mtl_entry;

typedef struct sensim_mtl {
    sensim_mtl_entry *e;
    uint32_t n, cap;
} sensim_mtl;

/* Parse MTL text; @p label names it in messages, @p dir (may be NULL)
 * resolves relative map_Kd paths. On failure @p out is empty. */
sensim_status sensim__mtl_parse(const char *label, const char *data, size_t size, const char *dir, sensim_mtl *out);
void sensim__mtl_free(sensim_mtl *m);

#endif
