/* Actor id -> table index (actor_map.h). The table is the scene's array of actors; its ids are read
 * through a stride so this module knows nothing else of an actor. */
#include "actor_map.h"

#include <stdlib.h>

#define ID(i) (*(const uint32_t *)((const char *)ids + (size_t)(i) * id_stride))

static uint32_t home(const sensim_actor_map *m, uint32_t id)
{
    return (id * UINT32_C(2654435761)) & (m->cap - 1); /* Fibonacci hashing: consecutive ids spread */
}

uint32_t sensim__amap_find(const sensim_actor_map *m, const uint32_t *ids, size_t id_stride, uint32_t id)
{
    if (!m->cap || id == 0)
        return UINT32_MAX;
    for (uint32_t i = home(m, id);; i = (i + 1) & (m->cap - 1)) {
        const uint32_t s = m->slots[i];
        if (!s)
            return UINT32_MAX;
        if (ID(s - 1) == id)
            return s - 1;
    }
}

void sensim__amap_insert(sensim_actor_map *m, const uint32_t *ids, size_t id_stride, uint32_t index)
{
    uint32_t i = home(m, ID(index));
    while (m->slots[i])
        i = (i + 1) & (m->cap - 1);
    m->slots[i] = index + 1;
    m->n++;
}

static int fill(sensim_actor_map *m, uint32_t cap, const uint32_t *ids, size_t id_stride, uint32_t count)
{
    uint32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    free(m->slots);
    m->slots = slots, m->cap = cap, m->n = 0;
    for (uint32_t k = 0; k < count; k++)
        if (ID(k))
            sensim__amap_insert(m, ids, id_stride, k);
    return 0;
}

int sensim__amap_reserve(sensim_actor_map *m, const uint32_t *ids, size_t id_stride, uint32_t count)
{
    if (m->cap && (uint64_t)(m->n + 1) * 2 <= m->cap)
        return 0;
    uint32_t cap = m->cap ? m->cap : 64;
    while ((uint64_t)(m->n + 1) * 2 > cap) {
        if (cap > UINT32_MAX / 2)
            return -1;
        cap *= 2;
    }
    return fill(m, cap, ids, id_stride, count);
}

void sensim__amap_remove(sensim_actor_map *m, const uint32_t *ids, size_t id_stride, uint32_t id)
{
    if (!m->cap || id == 0)
        return;
    const uint32_t mask = m->cap - 1;
    uint32_t i = home(m, id);
    while (m->slots[i] && ID(m->slots[i] - 1) != id)
        i = (i + 1) & mask;
    if (!m->slots[i])
        return;
    m->slots[i] = 0;
    m->n--;
    /* backward shift: an entry after the hole moves into it unless its home lies in (hole, entry] */
    for (uint32_t j = (i + 1) & mask; m->slots[j]; j = (j + 1) & mask) {
        const uint32_t k = home(m, ID(m->slots[j] - 1));
        const int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (!stays) {
            m->slots[i] = m->slots[j];
            m->slots[j] = 0;
            i = j;
        }
    }
}

void sensim__amap_moved(sensim_actor_map *m, uint32_t moved_id, uint32_t from_index, uint32_t to_index)
{
    if (!m->cap || moved_id == 0)
        return;
    for (uint32_t i = home(m, moved_id); m->slots[i]; i = (i + 1) & (m->cap - 1))
        if (m->slots[i] == from_index + 1) {
            m->slots[i] = to_index + 1;
            return;
        }
}

void sensim__amap_free(sensim_actor_map *m)
{
    free(m->slots);
    m->slots = NULL, m->cap = m->n = 0;
}
