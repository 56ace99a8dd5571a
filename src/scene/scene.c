/* MAP_POPULATE is a Linux extension that the project's -D_POSIX_C_SOURCE
 * hides: without this big_zeroed() silently fell back to calloc. */
#define _DEFAULT_SOURCE 1
#include "motion.h"
#include "scene_impl.h"

#include <omp.h>
#include <sys/mman.h>

#include "trace.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <strings.h>

/* the actor table's ids, as actor_map.c reads them */
#define ACTOR_IDS(scene) (&(scene)->actors[0].id), sizeof(sensim_actor)

#define SENSIM_MAX_MESH_TRIANGLES (1u << 30)

void sensim_mesh_desc_init(sensim_mesh_desc *desc)
{
    if (desc)
        memset(desc, 0, sizeof *desc);
}

void sensim_load_options_init(sensim_load_options *opt)
{
    if (opt)
        memset(opt, 0, sizeof *opt);
}

sensim_status sensim_scene_create(sensim_context *ctx, sensim_scene **out_scene)
{
    SENSIM_CHECK_HANDLE(ctx, SENSIM_MAGIC_CONTEXT, "context");
    if (!out_scene)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_create: NULL argument");
    *out_scene = NULL;
    sensim_scene *s = calloc(1, sizeof *s);
    if (!s)
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot allocate scene");
    s->magic = SENSIM_MAGIC_SCENE;
    s->ctx = ctx;
    atomic_init(&s->use, 0);
    s->dirty = s->bounds_dirty = true;
    sensim__context_retain(ctx);
    *out_scene = s;
    return SENSIM_OK;
}

void sensim__mesh_free(sensim_mesh *m)
{
    sensim__trace_mesh_release(m);
    free(m->vertices);
    free(m->indices);
    free(m->tags);
    free(m->materials);
    free(m->uvs);
    memset(m, 0, sizeof *m);
}

void sensim_scene_destroy(sensim_scene *scene)
{
    if (!scene || scene->magic != SENSIM_MAGIC_SCENE)
        return;
    scene->magic = SENSIM_MAGIC_DEAD; /* new scans and edits are refused from here */
    /* Scans or edits already running on other threads hold the counter: wait
     * for them instead of freeing the BVH under them. */
    for (;;) {
        int expected = 0;
        if (atomic_compare_exchange_weak(&scene->use, &expected, -1))
            break;
        sched_yield();
    }
    sensim__trace_scene_release(scene);
    for (uint32_t i = 0; i < scene->mesh_count; i++)
        sensim__mesh_free(&scene->meshes[i]);
    free(scene->meshes);
    free(scene->actors);
    sensim__amap_free(&scene->actor_map);
    free(scene->mats);
    free(scene->cmats);
    free(scene->mat_hash);
    for (uint32_t i = 0; i < scene->tex_count; i++)
        free(scene->textures[i].rgb);
    free(scene->textures);
    sensim_context *ctx = scene->ctx;
    free(scene);
    sensim__context_release(ctx);
}

sensim_status sensim__scene_edit_begin(sensim_scene *scene)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    int expected = 0;
    if (!atomic_compare_exchange_strong(&scene->use, &expected, -1))
        return sensim__fail(SENSIM_ERR_BUSY, "scene edit refused: %s",
                            expected > 0 ? "a scan is running on it" : "another edit is running");
    return SENSIM_OK;
}

void sensim__scene_edit_end(sensim_scene *scene)
{
    atomic_store(&scene->use, 0);
}

sensim_status sensim__scene_read_begin(const sensim_scene *cscene)
{
    sensim_scene *scene = (sensim_scene *)cscene; /* only the use counter changes */
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    int v = atomic_load(&scene->use);
    do {
        if (v < 0)
            return sensim__fail(SENSIM_ERR_BUSY, "scene in use: it is being edited or destroyed");
    } while (!atomic_compare_exchange_weak(&scene->use, &v, v + 1));
    return SENSIM_OK;
}

void sensim__scene_read_end(const sensim_scene *cscene)
{
    atomic_fetch_sub(&((sensim_scene *)cscene)->use, 1);
}

sensim_status sensim__scene_scan_begin(const sensim_scene *cscene)
{
    sensim_scene *scene = (sensim_scene *)cscene;
    sensim_status st = sensim__scene_read_begin(scene);
    if (st != SENSIM_OK)
        return st == SENSIM_ERR_BUSY ? sensim__fail(st, "scan refused: the scene is being edited") : st;
    /* The fields are read while our share of the counter keeps edits out,
     * and only then is the share given back. */
    if (scene->dirty) {
        bool ever = scene->ever_committed;
        atomic_fetch_sub(&scene->use, 1);
        return sensim__fail(SENSIM_ERR_NOT_COMMITTED, ever ? "scene has staged edits: call sensim_scene_commit"
                                                           : "scene was never committed: call sensim_scene_commit");
    }
    return SENSIM_OK;
}

void sensim__scene_scan_end(const sensim_scene *cscene)
{
    atomic_fetch_sub(&((sensim_scene *)cscene)->use, 1);
}


/* Triangle @p t as its three vertex positions sorted lexicographically
 * (-0 taken as +0), so that the same face in any vertex order compares equal. */
static void tri_key(const sensim_mesh *m, uint32_t t, float k[9])
{
    const float *v[3];
    for (int i = 0; i < 3; i++)
        v[i] = &m->vertices[3 * (size_t)m->indices[3 * (size_t)t + i]];
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if ((v[j][0] < v[i][0] || (v[j][0] == v[i][0] && (v[j][1] < v[i][1] ||
                                                               (v[j][1] == v[i][1] && v[j][2] < v[i][2]))))) {
                const float *x = v[i];
                v[i] = v[j], v[j] = x;
            }
    for (int i = 0; i < 3; i++)
        for (int c = 0; c < 3; c++)
            k[3 * i + c] = v[i][c] == 0.0f ? 0.0f : v[i][c];
}

/* A vertex position's hash (-0 taken as +0). */
static inline uint64_t vertex_hash(const float *v)
{
    uint32_t b[3];
    for (int c = 0; c < 3; c++) {
        float f = v[c] == 0.0f ? 0.0f : v[c];
        memcpy(&b[c], &f, 4);
    }
    uint64_t h = (b[0] * UINT64_C(0x9e3779b97f4a7c15)) ^ (b[1] * UINT64_C(0xc2b2ae3d27d4eb4f)) ^
                 ((uint64_t)b[2] << 32 | b[2]) * UINT64_C(0x165667b19e3779f9);
    h = (h ^ (h >> 31)) * UINT64_C(0xbf58476d1ce4e5b9);
    return h ^ (h >> 29);
}

/* Triangle @p t's hash: the same for its vertices in any order (a sum of
 * the vertices' hashes, mixed), so no sorting on the common path. */
static inline uint64_t tri_hash(const sensim_mesh *m, uint32_t t)
{
    const uint32_t *ix = &m->indices[3 * (size_t)t];
    uint64_t h = vertex_hash(&m->vertices[3 * (size_t)ix[0]]) + vertex_hash(&m->vertices[3 * (size_t)ix[1]]) +
                 vertex_hash(&m->vertices[3 * (size_t)ix[2]]);
    h = (h ^ (h >> 33)) * UINT64_C(0xff51afd7ed558ccd);
    return h ^ (h >> 33);
}

static inline bool bit_get(const uint64_t *b, uint64_t i)
{
    return b[i >> 6] >> (i & 63) & 1;
}

/* Zeroed memory for a table probed at random: mapped whole at once
 * (MAP_POPULATE) where that exists, which on a VM costs a fraction of
 * faulting its pages in one by one from random probes. */
static void *big_zeroed(size_t bytes)
{
#if defined(__linux__) && defined(MAP_POPULATE)
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
#else
    return calloc(1, bytes);
#endif
}

static void big_free(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MAP_POPULATE)
    if (p)
        munmap(p, bytes);
#else
    (void)bytes;
    free(p);
#endif
}

#define SENSIM_MAX_THREADS_DEDUP 64

/* Pass 1 over triangles [t0, t1): each one's bit (its hash's low bits) in `bit`. */
static void dup_bits(const sensim_mesh *m, uint32_t t0, uint32_t t1, uint64_t bits, uint32_t *bit)
{
    for (uint32_t t = t0; t < t1; t++) {
        if (t + 64 < t1) /* the hardware prefetcher does not keep up with the index stream here */
            __builtin_prefetch(&m->indices[3 * (size_t)(t + 64)]);
        bit[t] = (uint32_t)(tri_hash(m, t) & (bits - 1));
    }
}

/* Pass 2 over all triangles, marking only the bits in [b0, b1) (a range of
 * whole words, one thread's): each bit in `seen` and, when it was already
 * marked, in `clash`. Returns how many triangles landed on a bit already
 * seen, plus one for each bit that became a clash: the same sum whatever
 * the thread count, since each bit is marked by one thread in file order. */
static uint64_t dup_mark(const uint32_t *bit, uint32_t n, uint64_t b0, uint64_t b1, uint64_t *seen, uint64_t *clash)
{
    enum { PF = 32 };
    uint64_t cand = 0;
    for (uint32_t t = 0; t < n; t++) {
        if (t + PF < n && bit[t + PF] >= b0 && bit[t + PF] < b1)
            __builtin_prefetch(&seen[bit[t + PF] >> 6], 1);
        const uint64_t h = bit[t];
        if (h < b0 || h >= b1)
            continue;
        const uint64_t w = h >> 6, mask = UINT64_C(1) << (h & 63);
        if (seen[w] & mask) {
            cand += 1 + !(clash[w] & mask);
            clash[w] |= mask;
        } else {
            seen[w] |= mask;
        }
    }
    return cand;
}

/* Pass 3 over [t0, t1) (t0 a multiple of 64): bit t of `flag` set for the
 * triangles on clash bits, the only ones that can be duplicates. */
static void dup_flag(const uint32_t *bit, uint32_t t0, uint32_t t1, const uint64_t *clash, uint64_t *flag)
{
    enum { PF = 32 };
    for (uint32_t t = t0; t < t1; t++) {
        if (t + PF < t1)
            __builtin_prefetch(&clash[bit[t + PF] >> 6]);
        if (bit_get(clash, bit[t]))
            flag[t >> 6] |= UINT64_C(1) << (t & 63);
    }
}

uint32_t sensim__mesh_drop_duplicates(sensim_mesh *m, uint32_t threads)
{
    uint32_t n = m->triangle_count;
    if (n < 2)
        return 0;
    /* Bitmaps of 16 bits a triangle (16 MB for 8 M triangles; at most 2^32
     * bits, so 4 for a mesh over 2^28 triangles) instead of a hash table of
     * 16 bytes a triangle. Pass 1 (parallel by triangles) stores each
     * triangle's bit; pass 2 (parallel by bit ranges) marks it in `seen`
     * and, when it was already marked, in `clash`. Two equal triangles have
     * equal hashes, so only triangles on a clash bit (about 1 in 16 when
     * there are no duplicates) can be duplicates: pass 3 (parallel) flags
     * them, pass 4 checks the flagged ones in file order in a small exact
     * table (the first of equal triangles is kept). */
    uint64_t bits = 1024;
    while (bits < 16 * (uint64_t)n && bits < (UINT64_C(1) << 32))
        bits *= 2;
    uint64_t *seen = big_zeroed(bits / 8), *clash = big_zeroed(bits / 8);
    uint64_t *flag = calloc((n + 63) / 64, sizeof *flag);
    uint32_t *bit = malloc((size_t)n * sizeof *bit);
    uint64_t cand = 0;
    if (!seen || !clash || !flag || !bit) {
        big_free(seen, bits / 8), big_free(clash, bits / 8), free(flag), free(bit);
        return 0;
    }
    const uint32_t th = threads < SENSIM_MAX_THREADS_DEDUP ? threads : SENSIM_MAX_THREADS_DEDUP;
    const int nth = n >= (1u << 16) && th > 1 ? (int)th : 1;
    const uint32_t per = (uint32_t)((((uint64_t)n + (uint64_t)nth - 1) / (uint64_t)nth + 63) / 64 * 64);
    const uint64_t bper = (bits / (uint64_t)nth + 63) / 64 * 64;
    uint64_t part[SENSIM_MAX_THREADS_DEDUP] = {0}; /* per bit range, summed after the join */
#pragma omp parallel num_threads(nth) if (nth > 1)
    {
        /* the hashes by triangle ranges; the bits by bit ranges (no atomics:
         * each word of seen and clash has one writer) */
#pragma omp for schedule(static)
        for (int k = 0; k < nth; k++) {
            uint64_t t0 = (uint64_t)k * per, t1 = t0 + per;
            dup_bits(m, (uint32_t)(t0 < n ? t0 : n), (uint32_t)(t1 < n ? t1 : n), bits, bit);
        }
#pragma omp for schedule(static)
        for (int k = 0; k < nth; k++) {
            uint64_t b0 = (uint64_t)k * bper, b1 = b0 + bper;
            part[k] = dup_mark(bit, n, b0 < bits ? b0 : bits, b1 < bits ? b1 : bits, seen, clash);
        }
    }
    for (int k = 0; k < nth; k++)
        cand += part[k];
    big_free(seen, bits / 8);
    if (cand) {
#pragma omp parallel for num_threads(nth) if (nth > 1)
        for (int k = 0; k < nth; k++) { /* ranges start at multiples of 64: no word of flag is shared */
            uint64_t t0 = (uint64_t)k * per, t1 = t0 + per;
            dup_flag(bit, (uint32_t)(t0 < n ? t0 : n), (uint32_t)(t1 < n ? t1 : n), clash, flag);
        }
    }
    big_free(clash, bits / 8);
    free(bit);
    if (!cand) {
        free(flag);
        return 0;
    }
    /* slot: fingerprint (high 32 bits of the hash) << 32 | triangle + 1; 0 = empty.
     * A probe compares the two triangles' sorted vertices only when the
     * fingerprints match. At most half full: cand triangles go in. */
    uint64_t cap = 16;
    while (cap < 2 * cand)
        cap *= 2;
    uint64_t *slot = calloc(cap, sizeof *slot);
    if (!slot) {
        free(flag);
        return 0;
    }
    uint32_t dropped = 0;
    for (uint32_t w = 0; w < (n + 63) / 64; w++)
        for (uint64_t b = flag[w]; b; b &= b - 1) {
            uint32_t t = 64 * w + (uint32_t)__builtin_ctzll(b);
            uint64_t h = tri_hash(m, t), fp = h >> 32, i = h & (cap - 1);
            bool dup = false, have_k = false;
            float k[9], o[9];
            for (; slot[i]; i = (i + 1) & (cap - 1)) {
                if (slot[i] >> 32 != fp)
                    continue;
                if (!have_k)
                    tri_key(m, t, k), have_k = true;
                tri_key(m, (uint32_t)slot[i] - 1, o);
                if (memcmp(k, o, sizeof k) == 0) {
                    dup = true;
                    break;
                }
            }
            if (dup)
                dropped++;
            else
                slot[i] = fp << 32 | (uint64_t)(t + 1), flag[w] &= ~(UINT64_C(1) << (t & 63)); /* kept */
        }
    free(slot);
    if (dropped) { /* flag now marks the dropped: compact in place, in order */
        uint32_t kept = 0;
        for (uint32_t t = 0; t < n; t++) {
            if (bit_get(flag, t))
                continue;
            if (kept != t) {
                memmove(&m->indices[3 * (size_t)kept], &m->indices[3 * (size_t)t], 3 * sizeof *m->indices);
                m->tags[kept] = m->tags[t];
                m->materials[kept] = m->materials[t];
                if (m->uvs)
                    memmove(&m->uvs[6 * (size_t)kept], &m->uvs[6 * (size_t)t], 6 * sizeof *m->uvs);
            }
            kept++;
        }
        m->triangle_count = kept;
    }
    free(flag);
    return dropped;
}

sensim_status sensim__scene_append_mesh_locked(sensim_scene *scene, sensim_mesh *mesh, uint32_t *out_id)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const uint64_t ni = 3 * (uint64_t)mesh->triangle_count;
    for (uint64_t t = 0; t < ni; t++) {
        if (t % 16 == 0 && t + 256 < ni)
            __builtin_prefetch(&mesh->indices[t + 256]);
        const float *v = &mesh->vertices[3 * (size_t)mesh->indices[t]];
        for (int c = 0; c < 3; c++) {
            lo[c] = v[c] < lo[c] ? v[c] : lo[c];
            hi[c] = v[c] > hi[c] ? v[c] : hi[c];
        }
    }
    memcpy(mesh->lo, lo, sizeof lo);
    memcpy(mesh->hi, hi, sizeof hi);
    for (int c = 0; c < 3; c++)
        if (mesh->lo[c] < -SENSIM_MAX_COORD_M || mesh->hi[c] > SENSIM_MAX_COORD_M) {
            double v = mesh->lo[c] < -SENSIM_MAX_COORD_M ? mesh->lo[c] : mesh->hi[c];
            sensim__mesh_free(mesh);
            /* such a vertex loaded but was never hit: refuse it instead */
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "mesh vertex %c = %g m beyond the limit of %g m", "xyz"[c],
                                v, SENSIM_MAX_COORD_M);
        }
    if (scene->mesh_count == UINT32_MAX - 1) {
        sensim__mesh_free(mesh);
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "scene: too many meshes");
    }
    if (scene->mesh_count == scene->mesh_cap) {
        uint32_t cap = scene->mesh_cap ? (scene->mesh_cap > UINT32_MAX / 4 ? UINT32_MAX - 1 : scene->mesh_cap * 2) : 8;
        sensim_mesh *nm = realloc(scene->meshes, (size_t)cap * sizeof *nm);
        if (!nm) {
            sensim__mesh_free(mesh);
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot grow mesh table");
        }
        scene->meshes = nm;
        scene->mesh_cap = cap;
    }
    uint32_t id = scene->mesh_count++;
    scene->meshes[id] = *mesh;
    if (!(mesh->flags & SENSIM_MESH_PROTOTYPE))
        scene->static_dirty = true;
    scene->dirty = scene->bounds_dirty = true;
    if (out_id)
        *out_id = id;
    return SENSIM_OK;
}

sensim_status sensim__scene_append_mesh(sensim_scene *scene, sensim_mesh *mesh, uint32_t *out_id)
{
    sensim_status st = sensim__scene_edit_begin(scene);
    if (st != SENSIM_OK) {
        sensim__mesh_free(mesh);
        return st;
    }
    st = sensim__scene_append_mesh_locked(scene, mesh, out_id);
    sensim__scene_edit_end(scene);
    return st;
}

void sensim__scene_mark(const sensim_scene *scene, sensim_scene_mark *mark)
{
    mark->mat_count = scene->mat_count;
    mark->tex_count = scene->tex_count;
    mark->mesh_count = scene->mesh_count;
    mark->actor_count = scene->actor_count;
    mark->instance_count = scene->instance_count;
    mark->dirty = scene->dirty;
    mark->static_dirty = scene->static_dirty;
}

void sensim__scene_rollback(sensim_scene *scene, const sensim_scene_mark *mark)
{
    /* Materials created since the mark go; the ids below it are untouched
     * (material_for_name only appends). */
    if (scene->mat_count > mark->mat_count) {
        scene->mat_count = mark->mat_count;
        sensim__scene_rebuild_mat_hash(scene);
    }
    /* textures added since the mark: no committed material refers to them */
    while (scene->tex_count > mark->tex_count) {
        sensim_texture *t = &scene->textures[--scene->tex_count];
        scene->tex_bytes -= (uint64_t)t->w * t->h * 3;
        free(t->rgb);
    }
    /* meshes and instances appended since the mark (a multi-mesh load) */
    while (scene->mesh_count > mark->mesh_count)
        sensim__mesh_free(&scene->meshes[--scene->mesh_count]);
    while (scene->actor_count > mark->actor_count) { /* no allocation: a rollback cannot fail */
        const uint32_t id = scene->actors[scene->actor_count - 1].id;
        sensim__amap_remove(&scene->actor_map, ACTOR_IDS(scene), id);
        scene->actor_count--;
    }
    scene->instance_count = mark->instance_count;
    scene->dirty = mark->dirty;
    scene->static_dirty = mark->static_dirty;
    scene->bounds_dirty = true; /* meshes or materials may have gone: walked again at the next commit */
}

sensim_status sensim_scene_add_mesh(sensim_scene *scene, const sensim_mesh_desc *d, uint32_t *out_id)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!d)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_add_mesh: NULL argument");
    if (d->triangle_count == 0 || d->vertex_count == 0)
        return sensim__fail(SENSIM_ERR_EMPTY, "sensim_scene_add_mesh: %u vertices, %u triangles",
                            d->vertex_count, d->triangle_count);
    if (!d->vertices || !d->indices)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_add_mesh: vertices or indices NULL");
    if (d->triangle_count > SENSIM_MAX_MESH_TRIANGLES || d->vertex_count > SENSIM_MAX_MESH_TRIANGLES)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "sensim_scene_add_mesh: more than 2^30 triangles or vertices");
    if (d->flags & ~SENSIM_MESH_PROTOTYPE)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_add_mesh: unknown flags 0x%x", d->flags);
    if (d->tag > SENSIM_TAG_MAX)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_scene_add_mesh: tag = %u > %d", d->tag, SENSIM_TAG_MAX);
    size_t nv = (size_t)d->vertex_count * 3, nt = d->triangle_count;
    for (size_t i = 0; i < nv; i++)
        if (!isfinite(d->vertices[i]))
            return sensim__fail(SENSIM_ERR_NOT_FINITE, "sensim_scene_add_mesh: vertex %zu component %zu is %g",
                                i / 3, i % 3, (double)d->vertices[i]);
    for (size_t i = 0; i < nt * 3; i++)
        if (d->indices[i] >= d->vertex_count)
            return sensim__fail(SENSIM_ERR_BAD_INDEX, "sensim_scene_add_mesh: triangle %zu index %u >= vertex_count %u",
                                i / 3, d->indices[i], d->vertex_count);
    if (d->reserved[0] || d->reserved[1] || d->reserved[2] || d->reserved[3] || d->reserved[4])
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_add_mesh: reserved fields must be zero");
    if (d->triangle_uvs)
        for (size_t i = 0; i < nt * 6; i++)
            if (!isfinite(d->triangle_uvs[i]) || fabsf(d->triangle_uvs[i]) > 1e6f)
                return sensim__fail(isfinite(d->triangle_uvs[i]) ? SENSIM_ERR_OUT_OF_RANGE : SENSIM_ERR_NOT_FINITE,
                                    "sensim_scene_add_mesh: triangle %zu uv %zu is %g (finite, |x| <= 1e6)", i / 6,
                                    i % 6, (double)d->triangle_uvs[i]);
    if (d->triangle_tags)
        for (size_t i = 0; i < nt; i++)
            if (d->triangle_tags[i] > SENSIM_TAG_MAX)
                return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_scene_add_mesh: triangle %zu tag %u > %d",
                                    i, d->triangle_tags[i], SENSIM_TAG_MAX);

    sensim_mesh m = {0};
    m.vertex_count = d->vertex_count;
    m.triangle_count = d->triangle_count;
    m.flags = d->flags;
    m.vertices = malloc((nv + 1) * sizeof(float));
    m.indices = malloc(nt * 3 * sizeof(uint32_t));
    m.tags = malloc(nt);
    m.materials = malloc(nt * sizeof(uint16_t));
    m.uvs = d->triangle_uvs ? malloc(nt * 6 * sizeof(float)) : NULL;
    if (!m.vertices || !m.indices || !m.tags || !m.materials || (d->triangle_uvs && !m.uvs)) {
        sensim__mesh_free(&m);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "sensim_scene_add_mesh: cannot copy %zu triangles", nt);
    }
    memcpy(m.vertices, d->vertices, nv * sizeof(float));
    m.vertices[nv] = 0.0f;
    memcpy(m.indices, d->indices, nt * 3 * sizeof(uint32_t));
    if (m.uvs)
        memcpy(m.uvs, d->triangle_uvs, nt * 6 * sizeof(float));
    for (size_t i = 0; i < nt; i++) {
        m.tags[i] = d->triangle_tags ? d->triangle_tags[i] : d->tag;
        m.materials[i] = d->triangle_materials ? d->triangle_materials[i] : d->material_id;
    }
    return sensim__scene_append_mesh(scene, &m, out_id);
}

static sensim_status check_pose(const double pose[16])
{
    sensim_status st = sensim__check_pose(pose, "actor pose");
    if (st != SENSIM_OK)
        return st;
    double det = pose[0] * (pose[5] * pose[10] - pose[9] * pose[6]) -
                 pose[4] * (pose[1] * pose[10] - pose[9] * pose[2]) +
                 pose[8] * (pose[1] * pose[6] - pose[5] * pose[2]);
    if (fabs(det) < 1e-12)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "actor pose rotation part is singular (det = %g)", det);
    return SENSIM_OK;
}

static sensim_actor *find_actor(sensim_scene *scene, uint32_t id)
{
    if (!scene->actor_count)
        return NULL;
    const uint32_t i = sensim__amap_find(&scene->actor_map, ACTOR_IDS(scene), id);
    return i == UINT32_MAX ? NULL : &scene->actors[i];
}

/* Append an actor (id > 0) or a static instance (id 0); the caller holds the edit section. */
static sensim_status append_actor(sensim_scene *scene, uint32_t mesh_id, uint32_t actor_id, const double pose[16])
{
    if (scene->actor_count == scene->actor_cap) {
        uint32_t cap = scene->actor_cap ? scene->actor_cap * 2 : 16;
        sensim_actor *na = realloc(scene->actors, cap * sizeof *na);
        if (!na)
            return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot grow actor table");
        scene->actors = na;
        scene->actor_cap = cap;
    }
    if (actor_id && sensim__amap_reserve(&scene->actor_map, ACTOR_IDS(scene), scene->actor_count))
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot grow the actor id table");
    sensim_actor *a = &scene->actors[scene->actor_count++];
    memset(a, 0, sizeof *a);
    a->id = actor_id;
    a->mesh = mesh_id;
    memcpy(a->pose, pose, sizeof a->pose);
    a->parked = !scene->ever_committed;
    if (actor_id)
        sensim__amap_insert(&scene->actor_map, ACTOR_IDS(scene), scene->actor_count - 1);
    scene->instance_count += actor_id == 0;
    scene->dirty = true;
    return SENSIM_OK;
}

/* An actor (id > 0) or a static instance (id 0) of mesh @p mesh_id. */
static sensim_status add_instance(sensim_scene *scene, uint32_t mesh_id, uint32_t actor_id, const double pose[16],
                                  const char *fn)
{
    if (!pose)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: NULL argument", fn);
    sensim_status st = check_pose(pose);
    if (st != SENSIM_OK)
        return st;
    /* the mesh and actor tables are read only inside the edit section */
    if ((st = sensim__scene_edit_begin(scene)) != SENSIM_OK)
        return st;
    if (mesh_id >= scene->mesh_count) {
        uint32_t n = scene->mesh_count;
        sensim__scene_edit_end(scene);
        return sensim__fail(SENSIM_ERR_BAD_INDEX, "%s: mesh %u does not exist (%u meshes)", fn, mesh_id, n);
    }
    if (actor_id && find_actor(scene, actor_id)) {
        sensim__scene_edit_end(scene);
        return sensim__fail(SENSIM_ERR_DUPLICATE, "%s: actor id %u already exists", fn, actor_id);
    }
    if (scene->actor_count == UINT32_MAX / 2) {
        sensim__scene_edit_end(scene);
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: too many actors and instances", fn);
    }
    st = append_actor(scene, mesh_id, actor_id, pose);
    sensim__scene_edit_end(scene);
    return st;
}

sensim_status sensim__scene_add_instance_locked(sensim_scene *scene, uint32_t mesh_id, const double pose[16])
{
    sensim_status st = check_pose(pose);
    if (st == SENSIM_OK && scene->actor_count == UINT32_MAX / 2)
        st = sensim__fail(SENSIM_ERR_TOO_LARGE, "too many actors and instances");
    return st != SENSIM_OK ? st : append_actor(scene, mesh_id, 0, pose);
}

sensim_status sensim_scene_add_actor(sensim_scene *scene, uint32_t mesh_id, uint32_t actor_id,
                                     const double pose[16])
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (actor_id == 0)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_add_actor: actor id 0 is reserved for static world");
    return add_instance(scene, mesh_id, actor_id, pose, "sensim_scene_add_actor");
}

sensim_status sensim_scene_add_instance(sensim_scene *scene, uint32_t mesh_id, const double pose[16])
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    return add_instance(scene, mesh_id, 0, pose, "sensim_scene_add_instance");
}

sensim_status sensim_scene_set_actor_pose(sensim_scene *scene, uint32_t actor_id, const double pose[16])
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!pose)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_set_actor_pose: NULL argument");
    sensim_status st = check_pose(pose);
    if (st != SENSIM_OK)
        return st;
    if ((st = sensim__scene_edit_begin(scene)) != SENSIM_OK)
        return st;
    sensim_actor *a = find_actor(scene, actor_id);
    if (a) {
        if (a->moving || memcmp(a->pose, pose, sizeof a->pose) != 0)
            a->parked = false; /* the same pose again keeps it parked (hosts that push every pose) */
        memcpy(a->pose, pose, sizeof a->pose);
        a->moving = false;
        scene->dirty = true;
    }
    sensim__scene_edit_end(scene);
    return a ? SENSIM_OK
             : sensim__fail(SENSIM_ERR_NOT_FOUND, "sensim_scene_set_actor_pose: no actor %u", actor_id);
}

sensim_status sensim_scene_set_motion_interval(sensim_scene *scene, int64_t t0, int64_t t1)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (sensim__check_time(t0, "sensim_scene_set_motion_interval: t0_ns") != SENSIM_OK ||
        sensim__check_time(t1, "sensim_scene_set_motion_interval: t1_ns") != SENSIM_OK)
        return SENSIM_ERR_OUT_OF_RANGE;
    if (t1 <= t0)
        return sensim__fail(SENSIM_ERR_TIME_ORDER, "sensim_scene_set_motion_interval: t1 %lld <= t0 %lld",
                            (long long)t1, (long long)t0);
    sensim_status st = sensim__scene_edit_begin(scene);
    if (st != SENSIM_OK)
        return st;
    if (scene->motion_t0 != t0 || scene->motion_t1 != t1) {
        scene->motion_t0 = t0;
        scene->motion_t1 = t1;
        scene->dirty = true;
    }
    sensim__scene_edit_end(scene);
    return SENSIM_OK;
}

sensim_status sensim_scene_set_actor_motion(sensim_scene *scene, uint32_t actor_id, const double p0[16],
                                            const double p1[16])
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!p0 || !p1)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_set_actor_motion: NULL argument");
    sensim_status st = sensim__check_pose(p0, "sensim_scene_set_actor_motion: p0");
    if (st == SENSIM_OK)
        st = sensim__check_pose(p1, "sensim_scene_set_actor_motion: p1");
    if (st != SENSIM_OK)
        return st;
    if (!sensim__mat4_is_rigid(p0) || !sensim__mat4_is_rigid(p1))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "sensim_scene_set_actor_motion: poses must be rigid");
    st = sensim__scene_edit_begin(scene);
    if (st != SENSIM_OK)
        return st;
    sensim_actor *a = find_actor(scene, actor_id);
    if (a) {
        memcpy(a->pose, p0, sizeof a->pose);
        memcpy(a->pose1, p1, sizeof a->pose1);
        a->moving = true;
        a->parked = false;
        scene->dirty = true;
    }
    sensim__scene_edit_end(scene);
    return a ? SENSIM_OK
             : sensim__fail(SENSIM_ERR_NOT_FOUND, "sensim_scene_set_actor_motion: no actor %u", actor_id);
}

void sensim__actor_pose_at(const sensim_actor *a, double u, double out[16])
{
    if (!a->moving || u <= 0) {
        memcpy(out, a->pose, sizeof a->pose);
        return;
    }
    if (u >= 1) {
        memcpy(out, a->pose1, sizeof a->pose1);
        return;
    }
    double q0[4], q1[4], q[4], t[3];
    sensim__quat_from_mat(a->pose, q0);
    sensim__quat_from_mat(a->pose1, q1);
    sensim__quat_slerp(q0, q1, u, q);
    for (int i = 0; i < 3; i++)
        t[i] = a->pose[12 + i] + u * (a->pose1[12 + i] - a->pose[12 + i]);
    sensim__mat_from_quat(q, t, out);
}

void sensim__actor_velocity_at(const sensim_scene *scene, const sensim_actor *a, int64_t t, double v[3],
                                double w[3])
{
    v[0] = v[1] = v[2] = w[0] = w[1] = w[2] = 0;
    if (!a->moving || scene->motion_t1 <= scene->motion_t0 || t < scene->motion_t0 || t > scene->motion_t1)
        return; /* held before and after its interval */
    const double dt = (double)(scene->motion_t1 - scene->motion_t0) * 1e-9;
    double q0[4], q1[4], phi[3];
    sensim__quat_from_mat(a->pose, q0);
    sensim__quat_from_mat(a->pose1, q1);
    sensim__quat_log_rel(q0, q1, phi);
    for (int i = 0; i < 3; i++) {
        v[i] = (a->pose1[12 + i] - a->pose[12 + i]) / dt;
        w[i] = (a->pose[i] * phi[0] + a->pose[4 + i] * phi[1] + a->pose[8 + i] * phi[2]) / dt; /* R0·φ */
    }
}

const sensim_actor *sensim__scene_actor_by_id(const sensim_scene *scene, uint32_t id)
{
    if (!scene->actor_count || id == 0)
        return NULL;
    const uint32_t i = sensim__amap_find(&scene->actor_map, ACTOR_IDS(scene), id);
    return i == UINT32_MAX ? NULL : &scene->actors[i];
}

sensim_status sensim_scene_remove_actor(sensim_scene *scene, uint32_t actor_id)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    sensim_status st = sensim__scene_edit_begin(scene);
    if (st != SENSIM_OK)
        return st;
    sensim_actor *a = find_actor(scene, actor_id);
    if (a) {
        const uint32_t idx = (uint32_t)(a - scene->actors), last = scene->actor_count - 1;
        sensim__amap_remove(&scene->actor_map, ACTOR_IDS(scene), actor_id);
        if (idx != last)
            sensim__amap_moved(&scene->actor_map, scene->actors[last].id, last, idx);
        *a = scene->actors[last];
        scene->actor_count--;
        scene->dirty = true;
    }
    sensim__scene_edit_end(scene);
    return a ? SENSIM_OK : sensim__fail(SENSIM_ERR_NOT_FOUND, "sensim_scene_remove_actor: no actor %u", actor_id);
}

sensim_status sensim_scene_set_flatten(sensim_scene *scene, uint64_t max_triangles)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    sensim_status st = sensim__scene_edit_begin(scene);
    if (st != SENSIM_OK)
        return st;
    if (scene->flatten_budget != max_triangles) {
        scene->flatten_budget = max_triangles;
        scene->dirty = true;
    }
    sensim__scene_edit_end(scene);
    return SENSIM_OK;
}

sensim_status sensim_scene_commit(sensim_scene *scene)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    sensim_status st = sensim__scene_edit_begin(scene);
    if (st != SENSIM_OK)
        return st;
    uint32_t static_meshes = 0;
    for (uint32_t i = 0; i < scene->mesh_count; i++)
        static_meshes += !(scene->meshes[i].flags & SENSIM_MESH_PROTOTYPE);
    if (static_meshes == 0 && scene->actor_count == 0) {
        sensim__scene_edit_end(scene);
        return sensim__fail(SENSIM_ERR_EMPTY, "sensim_scene_commit: no static mesh and no actor");
    }
    st = sensim__trace_commit(scene);
    if (st == SENSIM_OK && scene->mat_count != scene->cmat_count) {
        sensim_mat_entry *c = realloc(scene->cmats, scene->mat_count * sizeof *c);
        if (!c)
            st = sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "cannot copy the material table");
        else
            scene->cmats = c;
    }
    if (st == SENSIM_OK) {
        if (scene->mat_count)
            memcpy(scene->cmats, scene->mats, scene->mat_count * sizeof *scene->cmats);
        scene->cmat_count = scene->mat_count;
        if (scene->bounds_dirty) /* once per change of meshes or materials, not per actor move */
            sensim__scene_echo_bounds(scene);
        scene->bounds_dirty = false;
        scene->dirty = false;
        scene->static_dirty = false;
        scene->ever_committed = true;
    }
    sensim__scene_edit_end(scene);
    return st;
}

sensim_status sensim_scene_get_info(const sensim_scene *scene, sensim_scene_info *out)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!out)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_get_info: NULL argument");
    sensim_status st = sensim__scene_read_begin(scene);
    if (st != SENSIM_OK)
        return st;
    memset(out, 0, sizeof *out);
    out->mesh_count = scene->mesh_count;
    out->actor_count = scene->actor_count - scene->instance_count;
    out->instance_count = scene->instance_count;
    out->flattened_count = scene->flat_count;
    for (uint32_t i = 0; i < scene->mesh_count; i++) {
        out->triangle_count += scene->meshes[i].triangle_count;
        out->vertex_count += scene->meshes[i].vertex_count;
    }
    out->committed = !scene->dirty;
    out->duplicate_triangles_dropped = scene->duplicates_dropped;
    out->material_files_missing = scene->mtl_missing;
    out->textures_skipped = scene->tex_skipped;
    sensim__scene_read_end(scene);
    return SENSIM_OK;
}

sensim_status sensim__load_options(const char *path, const sensim_load_options *opt, sensim_load_input *in)
{
    memset(in, 0, sizeof *in);
    sensim_load_options_init(&in->o);
    if (opt)
        in->o = *opt;
    in->scale = in->o.scale == 0.0f ? 1.0f : in->o.scale;
    if (!isfinite(in->scale) || in->scale < 0.0f)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: load option scale = %g must be > 0", path,
                            (double)in->scale);
    if (in->o.default_tag > SENSIM_TAG_MAX)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: default_tag = %u > %d", path, in->o.default_tag,
                            SENSIM_TAG_MAX);
    if (in->o.frame < SENSIM_FRAME_NATIVE || in->o.frame > SENSIM_FRAME_ISO8855)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: load option frame = %d unknown", path, in->o.frame);
    return SENSIM_OK;
}

sensim_status sensim__load_begin(const char *path, const sensim_load_options *opt, const char *mem, size_t mem_size,
                                 sensim_load_input *in)
{
    sensim_status st = sensim__load_options(path, opt, in);
    if (st != SENSIM_OK)
        return st;
    if (mem) {
        in->data = mem, in->size = mem_size;
        return SENSIM_OK;
    }
    uint64_t max_bytes = sensim__load_max_bytes(&in->o);
    char *data;
    st = sensim__read_file(path, max_bytes, &data, &in->size);
    if (st == SENSIM_OK)
        in->data = in->owned = data;
    return st;
}
