/* Reading a helper's answer (assimp_wire.h, xml_wire.h) as hostile input:
 * a cursor that never passes the end. Private to the readers (load_assimp.c,
 * xml_read.c). */
#ifndef SENSIM_WIRE_READ_H
#define SENSIM_WIRE_READ_H

#include <stddef.h>
#include <string.h>

typedef struct rd {
    unsigned char *p, *end;
} rd;

/* @p n bytes into @p dst, or 0 (nothing consumed) when fewer are left */
static inline int take(rd *r, void *dst, size_t n)
{
    if ((size_t)(r->end - r->p) < n)
        return 0;
    memcpy(dst, r->p, n);
    r->p += n;
    return 1;
}

#endif
