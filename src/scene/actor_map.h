/* Actor id -> index in the scene's actor table, in O(1) (issue 66: a linear search per update made
 * updating n actors O(n^2)). Open addressing with linear probing; slots hold index + 1 (0: empty);
 * only actors with an id (> 0) are in it, static instances (id 0) never. */
#ifndef SENSIM_ACTOR_MAP_H
#define SENSIM_ACTOR_MAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct sensim_actor_map {
    uint32_t *slots;
    uint32_t cap; /* a power of two, at least twice the entries (0: nothing allocated) */
    uint32_t n;   /* entries */
} sensim_actor_map;

/* The index of actor @p id among @p ids (the table's ids, indexed like the table), or UINT32_MAX. */
uint32_t sensim__amap_find(const sensim_actor_map *m, const uint32_t *ids, size_t id_stride, uint32_t id);
/* Room for one more entry (grown by rebuilding from the table); 0, or -1 when out of memory (nothing changed). */
int sensim__amap_reserve(sensim_actor_map *m, const uint32_t *ids, size_t id_stride, uint32_t count);
/* Add the actor at @p index (its id > 0, not in the map; room reserved). */
void sensim__amap_insert(sensim_actor_map *m, const uint32_t *ids, size_t id_stride, uint32_t index);
/* Remove @p id (the table still holds it). */
void sensim__amap_remove(sensim_actor_map *m, const uint32_t *ids, size_t id_stride, uint32_t id);
/* The actor @p moved_id moves from @p from_index to @p to_index of the table (call before moving it). */
void sensim__amap_moved(sensim_actor_map *m, uint32_t moved_id, uint32_t from_index, uint32_t to_index);
void sensim__amap_free(sensim_actor_map *m);

#endif
