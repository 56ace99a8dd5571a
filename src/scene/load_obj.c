/* Wavefront OBJ loader: one file becomes one mesh with per-triangle tags. */
#include "load_mtl.h"
#include "parse.h"
#include "scene_impl.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ELEMS (1u << 30)
#define NAME_SLOTS (1u << 17)

typedef struct growbuf {
    void *data;
    size_t len, cap, elem;
} growbuf;

static bool gb_grow(growbuf *b)
{
    size_t cap = b->cap ? b->cap * 2 : 1024;
    void *n = realloc(b->data, cap * b->elem + 4 * sizeof(float));
    if (!n)
        return false;
    b->data = n;
    b->cap = cap;
    sensim__advise_huge(n, cap * b->elem);
    return true;
}

/* Inline, with the element's size a constant at each call (it must equal
 * b->elem): the loader pushes every coordinate and index, and a libc
 * memcpy call each was 10 % of an OBJ load. */
static inline bool gb_push(growbuf *b, const void *v, size_t elem)
{
    assert(elem == b->elem);
    if (b->len == b->cap && !gb_grow(b))
        return false;
    memcpy((char *)b->data + b->len * elem, v, elem);
    b->len++;
    return true;
}

/* OBJ statements that carry nothing a lidar needs; accepted and skipped. */
static const char *const ignored_keywords[] = {
    "vn", "vp", "s", "l", "p", "cstype", "deg", "bmat", "step", "curv", "curv2",
    "surf", "parm", "trim", "hole", "scrv", "sp", "end", "con", "mg", "bevel", "c_interp",
    "d_interp", "lod", "maplib", "usemap", "shadow_obj", "trace_obj", "ctech", "stech", "call", "csh",
};

static int32_t tag_of_rest(const char *b, const char *e, const sensim_tag_rule *rules, uint32_t nrules)
{
    char name[256];
    size_t n = (size_t)(e - b);
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, b, n);
    name[n] = '\0';
    return sensim__tag_match(name, rules, nrules);
}

static sensim_status load_obj(sensim_scene *scene, const char *path, const sensim_load_options *opt,
                              uint32_t *out_mesh_id, const char *mem, size_t mem_size);

/* 1-based index of usemtl name @p name in the file's name table, 0 if unused. */
static uint16_t find_name(const growbuf *names, const uint16_t *slot, const char *name)
{
    if (!slot)
        return 0;
    for (uint32_t i = sensim__fnv1a(name, strlen(name)) & (NAME_SLOTS - 1); slot[i]; i = (i + 1) & (NAME_SLOTS - 1))
        if (strcmp((const char *)names->data + 64 * (slot[i] - 1), name) == 0)
            return slot[i];
    return 0;
}

sensim_status sensim_scene_load_obj(sensim_scene *scene, const char *path, const sensim_load_options *opt,
                                    uint32_t *out_mesh_id)
{
    return load_obj(scene, path, opt, out_mesh_id, NULL, 0);
}

sensim_status sensim__scene_load_obj_mem(sensim_scene *scene, const char *label, const char *data, size_t size,
                                         const sensim_load_options *opt, uint32_t *out_mesh_id)
{
    return load_obj(scene, label, opt, out_mesh_id, data ? data : "", size);
}

static sensim_status load_obj(sensim_scene *scene, const char *path, const sensim_load_options *opt,
                              uint32_t *out_mesh_id, const char *mem, size_t mem_size)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!path)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_load_obj: NULL argument");
    sensim_load_input in;
    sensim_status st = sensim__load_options(path, opt, &in);
    if (st != SENSIM_OK)
        return st;
    const sensim_load_options o = in.o;
    const float scale = in.scale;
    /* the file a chunk at a time: peak memory is the mesh, not the mesh plus the text */
    sensim_line_source src;
    if (mem)
        sensim__source_mem(&src, mem, mem_size);
    else if ((st = sensim__source_open(&src, path, sensim__load_max_bytes(&o))) != SENSIM_OK)
        return st;
    sensim_tag_rule *rules = NULL;
    uint32_t nrules = 0;
    if (o.tag_map_file && (st = sensim__tag_rules_load(o.tag_map_file, &rules, &nrules)) != SENSIM_OK) {
        sensim__source_close(&src);
        return st;
    }

    growbuf verts = {.elem = sizeof(float)}, idx = {.elem = sizeof(uint32_t)},
            tags = {.elem = 1}, poly = {.elem = sizeof(uint32_t)}, mats = {.elem = sizeof(uint16_t)},
            names = {.elem = 64}, texc = {.elem = 2 * sizeof(float)}, ptex = {.elem = sizeof(int64_t)},
            tuv = {.elem = 6 * sizeof(float)}, libs = {.elem = 256};
    bool any_uv = false;
    uint32_t mtl_missing = 0, tex_skipped = 0;
    sensim_mtl mtl = {0};
    sensim_appearance *apps = NULL; /* per MTL entry, when it is used and coloured */
    uint8_t **texels = NULL;
    int32_t mtl_tag = -1, grp_tag = -1;
    uint16_t cur_mat = 0; /* 1-based index into names, 0 = none */
    uint16_t *name_slot = NULL; /* hash of names: 1-based index, 0 = empty */
    const char *lb, *le;
    st = SENSIM_OK;
#define FAIL(code, ...)                                                                        \
    do {                                                                                       \
        st = sensim__fail(code, __VA_ARGS__);                                                  \
        goto done;                                                                             \
    } while (0)

    while (sensim__source_next(&src, &lb, &le)) {
        const char *ke;
        const char *kb = sensim__token(lb, le, &ke);
        if (kb == ke || *kb == '#')
            continue;
        unsigned long long ln = (unsigned long long)src.it.line_no;
        if (sensim__token_is(kb, ke, "v")) {
            const char *p = ke;
            for (int c = 0; c < 3; c++) {
                double v;
                p = sensim__skip_space(p, le);
                if (!sensim__parse_double(&p, le, &v))
                    FAIL(SENSIM_ERR_PARSE, "%s:%llu: vertex needs 3 numbers (component %d)", path, ln, c + 1);
                if (!isfinite(v) || !isfinite((float)(v * scale)))
                    FAIL(SENSIM_ERR_NOT_FINITE, "%s:%llu: vertex component %d is not finite", path, ln, c + 1);
                if (fabs(v * scale) > SENSIM_MAX_COORD_M * (o.frame == SENSIM_FRAME_UE ? 100.0 : 1.0))
                    FAIL(SENSIM_ERR_OUT_OF_RANGE, "%s:%llu: vertex component %d = %g beyond the limit of %g m", path,
                         ln, c + 1, v * scale, SENSIM_MAX_COORD_M);
                float f = (float)(v * scale);
                if (!gb_push(&verts, &f, sizeof f))
                    FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
            }
            /* optional w or vertex colour: must still be numbers */
            for (;;) {
                double v;
                p = sensim__skip_space(p, le);
                if (p >= le)
                    break;
                if (!sensim__parse_double(&p, le, &v))
                    FAIL(SENSIM_ERR_PARSE, "%s:%llu: unexpected text after vertex", path, ln);
            }
            if (verts.len / 3 > MAX_ELEMS)
                FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: more than 2^30 vertices", path, ln);
        } else if (sensim__token_is(kb, ke, "vt")) {
            /* u [v [w]]: texture coordinates (v defaults to 0, w is ignored) */
            float uv[2] = {0, 0};
            const char *p = ke;
            int n = 0;
            for (;; n++) {
                double v;
                p = sensim__skip_space(p, le);
                if (p >= le)
                    break;
                if (n == 3 || !sensim__parse_double(&p, le, &v))
                    FAIL(SENSIM_ERR_PARSE, "%s:%llu: vt needs 1 to 3 numbers", path, ln);
                if (!isfinite(v) || fabs(v) > 1e6)
                    FAIL(isfinite(v) ? SENSIM_ERR_OUT_OF_RANGE : SENSIM_ERR_NOT_FINITE,
                         "%s:%llu: vt component %d = %g (finite, |x| <= 1e6)", path, ln, n + 1, v);
                if (n < 2)
                    uv[n] = (float)v;
            }
            if (n == 0)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: vt needs 1 to 3 numbers", path, ln);
            if (!gb_push(&texc, uv, sizeof uv))
                FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
            if (texc.len > MAX_ELEMS)
                FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: more than 2^30 texture coordinates", path, ln);
        } else if (sensim__token_is(kb, ke, "mtllib")) {
            /* material libraries: read after the geometry parsed (file loads only) */
            const char *p = ke;
            for (;;) {
                const char *te, *tb = sensim__token(p, le, &te);
                if (tb == te)
                    break;
                char name[256] = {0};
                if ((size_t)(te - tb) >= sizeof name || memchr(tb, '\0', (size_t)(te - tb)))
                    FAIL(SENSIM_ERR_PARSE, "%s:%llu: mtllib file name longer than 255 bytes or with a NUL", path, ln);
                memcpy(name, tb, (size_t)(te - tb));
                if (libs.len == 64)
                    FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: more than 64 mtllib files", path, ln);
                if (!gb_push(&libs, name, sizeof name))
                    FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
                p = te;
            }
        } else if (sensim__token_is(kb, ke, "f")) {
            uint64_t nv = verts.len / 3;
            poly.len = 0;
            ptex.len = 0;
            const char *p = ke;
            for (;;) {
                const char *te;
                const char *tb = sensim__token(p, le, &te);
                if (tb == te)
                    break;
                const char *q = tb;
                int64_t i;
                if (!sensim__parse_int(&q, te, &i))
                    FAIL(SENSIM_ERR_PARSE, "%s:%llu: bad face vertex '%.*s'", path, ln, (int)(te - tb), tb);
                /* the rest (/vt/vn) must be numbers or empty; vt is kept */
                int64_t vt = 0;
                for (int part = 1; q < te; part++) {
                    if (*q != '/' || part > 2)
                        FAIL(SENSIM_ERR_PARSE, "%s:%llu: bad face vertex '%.*s'", path, ln, (int)(te - tb), tb);
                    q++;
                    int64_t x = 0;
                    if (q < te && *q != '/' && !sensim__parse_int(&q, te, &x))
                        FAIL(SENSIM_ERR_PARSE, "%s:%llu: bad face vertex '%.*s'", path, ln, (int)(te - tb), tb);
                    if (part == 1)
                        vt = x;
                }
                if (vt != 0) {
                    int64_t nt = (int64_t)texc.len, kt = vt > 0 ? vt - 1 : nt + vt;
                    if (kt < 0 || kt >= nt)
                        FAIL(SENSIM_ERR_BAD_INDEX, "%s:%llu: texture coordinate index %lld out of range (%lld so far)",
                             path, ln, (long long)vt, (long long)nt);
                    vt = kt + 1;
                }
                if (!gb_push(&ptex, &vt, sizeof vt))
                    FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
                int64_t k = i > 0 ? i - 1 : (int64_t)nv + i;
                if (i == 0 || k < 0 || (uint64_t)k >= nv)
                    FAIL(SENSIM_ERR_BAD_INDEX, "%s:%llu: face index %lld out of range (%llu vertices so far)",
                         path, ln, (long long)i, (unsigned long long)nv);
                uint32_t u = (uint32_t)k;
                if (!gb_push(&poly, &u, sizeof u))
                    FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
                p = te;
            }
            if (poly.len < 3)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: face with %zu vertices (needs 3 or more)", path, ln, poly.len);
            uint8_t tag = (uint8_t)(mtl_tag >= 0 ? mtl_tag : grp_tag >= 0 ? grp_tag : o.default_tag);
            const uint32_t *pv = poly.data;
            const int64_t *pt = ptex.data;
            for (size_t j = 1; j + 1 < poly.len; j++) {
                uint32_t tri[3] = {pv[0], pv[j], pv[j + 1]};
                /* corner UVs; NaN marks a triangle without them */
                float uv[6];
                const size_t corner[3] = {0, j, j + 1};
                bool has = pt[0] && pt[j] && pt[j + 1];
                for (int c = 0; c < 3; c++) {
                    const float *t = has ? (const float *)texc.data + 2 * (pt[corner[c]] - 1) : NULL;
                    uv[2 * c] = t ? t[0] : NAN;
                    uv[2 * c + 1] = t ? t[1] : NAN;
                }
                if (has && !any_uv) { /* the first triangle with UVs: the ones before it get NaN */
                    float none[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
                    for (size_t q = 0; q < tags.len; q++)
                        if (!gb_push(&tuv, none, sizeof none))
                            FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
                    any_uv = true;
                }
                if (any_uv && !gb_push(&tuv, uv, sizeof uv)) /* none kept (24 bytes a triangle) until then */
                    FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
                for (int c = 0; c < 3; c++)
                    if (!gb_push(&idx, &tri[c], sizeof tri[c]))
                        FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
                if (!gb_push(&tags, &tag, sizeof tag) || !gb_push(&mats, &cur_mat, sizeof cur_mat))
                    FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
            }
            if (tags.len > MAX_ELEMS)
                FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: more than 2^30 triangles", path, ln);
        } else if (sensim__token_is(kb, ke, "usemtl")) {
            const char *nb = sensim__skip_space(ke, le), *ne = le;
            while (ne > nb && (ne[-1] == ' ' || ne[-1] == '\t'))
                ne--;
            mtl_tag = tag_of_rest(nb, ne, rules, nrules);
            char name[64] = {0};
            size_t nl = (size_t)(ne - nb);
            if (nl >= sizeof name)
                FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: usemtl name of %zu bytes (at most %zu)", path, ln, nl,
                     sizeof name - 1);
            if (memchr(nb, '\0', nl))
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: NUL byte in usemtl name", path, ln);
            memcpy(name, nb, nl);
            cur_mat = 0;
            if (nl > 0) {
                if (!name_slot) {
                    name_slot = calloc(NAME_SLOTS, sizeof *name_slot);
                    if (!name_slot)
                        FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
                }
                /* FNV-1a into a table of 2^17 slots: at most 65 535 names, so
                 * probes stay short whatever the file (was a linear search) */
                uint32_t i = sensim__fnv1a(name, nl) & (NAME_SLOTS - 1);
                for (; name_slot[i]; i = (i + 1) & (NAME_SLOTS - 1))
                    if (strcmp((const char *)names.data + 64 * (name_slot[i] - 1), name) == 0) {
                        cur_mat = name_slot[i];
                        break;
                    }
                if (cur_mat == 0) {
                    if (names.len >= 65535)
                        FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: more than 65535 material names", path, ln);
                    if (!gb_push(&names, name, sizeof name))
                        FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
                    cur_mat = (uint16_t)names.len;
                    name_slot[i] = cur_mat;
                }
            }
        } else if (sensim__token_is(kb, ke, "g") || sensim__token_is(kb, ke, "o")) {
            grp_tag = tag_of_rest(sensim__skip_space(ke, le), le, rules, nrules);
        } else {
            bool known = false;
            for (size_t k = 0; k < sizeof ignored_keywords / sizeof ignored_keywords[0]; k++)
                if (sensim__token_is(kb, ke, ignored_keywords[k]))
                    known = true;
            if (!known)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: unknown OBJ statement '%.*s'", path, ln,
                     (int)(ke - kb > 40 ? 40 : ke - kb), kb);
        }
    }
    if ((st = src.err) != SENSIM_OK)
        goto done;
    if (tags.len == 0)
        FAIL(SENSIM_ERR_EMPTY, "%s:%llu: no faces in file", path, (unsigned long long)src.it.line_no);
    sensim__source_close(&src); /* the text is done with before the mesh is built */

    /* material libraries and their textures, before the scene is touched
     * (a file load only: from memory, mtllib is not followed) */
    if (!mem && libs.len) {
        char dir[4096];
        const char *slash = strrchr(path, '/');
        size_t dl = slash ? (size_t)(slash - path) : 1;
        if (dl >= sizeof dir - 300)
            FAIL(SENSIM_ERR_TOO_LARGE, "%s: path too long to resolve mtllib", path);
        memcpy(dir, slash ? path : ".", dl);
        dir[dl] = '\0';
        for (size_t k = 0; k < libs.len; k++) {
            char lp[4400], *text = NULL;
            const char *lib = (const char *)libs.data + 256 * k;
            snprintf(lp, sizeof lp, "%s%s%s", lib[0] == '/' ? "" : dir, lib[0] == '/' ? "" : "/", lib);
            size_t tl;
            if (access(lp, F_OK) != 0) { /* a library that is not there: counted, the geometry still loads */
                mtl_missing++;
                continue;
            }
            if ((st = sensim__read_file(lp, 16u << 20, &text, &tl)) != SENSIM_OK)
                goto done;
            sensim_mtl one;
            st = sensim__mtl_parse(lp, text, tl, dir, &one);
            free(text);
            if (st != SENSIM_OK)
                goto done;
            /* append: a later library's definition of a name wins */
            for (uint32_t e = 0; e < one.n; e++) {
                if (mtl.n == mtl.cap) {
                    uint32_t cap = mtl.cap ? 2 * mtl.cap : 16;
                    sensim_mtl_entry *ne = realloc(mtl.e, cap * sizeof *ne);
                    if (!ne) {
                        sensim__mtl_free(&one);
                        FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", lp);
                    }
                    mtl.e = ne, mtl.cap = cap;
                }
                mtl.e[mtl.n++] = one.e[e];
                one.e[e].map_kd = NULL;
            }
            sensim__mtl_free(&one);
        }
        apps = calloc(mtl.n + 1, sizeof *apps);
        texels = calloc(mtl.n + 1, sizeof *texels);
        if (!apps || !texels)
            FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        for (uint32_t e = 0; e < mtl.n; e++) {
            const sensim_mtl_entry *me = &mtl.e[e];
            if (!find_name(&names, name_slot, me->name) || (!me->has_kd && !me->map_kd))
                continue;
            memcpy(apps[e].base_color, me->kd, sizeof me->kd);
            /* a texture that cannot be used (missing, not a PNG, ...): Kd alone, counted */
            if (me->map_kd && sensim__png_read_rgb(me->map_kd, &apps[e].texture_width, &apps[e].texture_height,
                                                   &texels[e]) == SENSIM_OK)
                apps[e].texture = texels[e];
            else if (me->map_kd)
                tex_skipped++, apps[e].texture_width = apps[e].texture_height = 0;
            apps[e].reserved[0] = 1; /* marks "set it" (cleared before use) */
        }
    }

    {
        sensim_mesh m = {0};
        m.vertex_count = (uint32_t)(verts.len / 3);
        m.triangle_count = (uint32_t)tags.len;
        m.vertices = verts.data; /* gb_push keeps 16 spare bytes for Embree */
        m.indices = idx.data;
        m.tags = tags.data;
        sensim__vertices_from_frame(m.vertices, m.vertex_count, o.frame); /* frame checked on entry */
        m.flags = o.flags & SENSIM_MESH_PROTOTYPE;
        m.materials = mats.data;
        m.uvs = any_uv ? tuv.data : NULL;
        if (any_uv)
            tuv.data = NULL;
        verts.data = idx.data = tags.data = mats.data = NULL;
        /* usemtl names become scene materials (ids) only now that the file
         * parsed, in the same edit section as the mesh: the load lands whole
         * or, on failure, the scene is as it was. */
        uint16_t *map = calloc(names.len + 1, sizeof *map);
        st = map ? sensim__scene_edit_begin(scene) : sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        if (st == SENSIM_OK) {
            sensim_scene_mark mark;
            sensim__scene_mark(scene, &mark);
            for (size_t k = 0; st == SENSIM_OK && k < names.len; k++)
                st = sensim__scene_material_for_name(scene, (const char *)names.data + 64 * k, &map[k + 1]);
            /* MTL appearances of the used materials (the last definition of a name wins) */
            for (uint32_t e = 0; st == SENSIM_OK && apps && e < mtl.n; e++) {
                if (!apps[e].reserved[0])
                    continue;
                apps[e].reserved[0] = 0;
                st = sensim__scene_set_appearance_locked(scene, map[find_name(&names, name_slot, mtl.e[e].name)],
                                                         &apps[e]);
            }
            if (st == SENSIM_OK) {
                for (size_t t = 0; t < m.triangle_count; t++)
                    m.materials[t] = map[m.materials[t]];
                uint32_t dropped = sensim__mesh_drop_duplicates(&m, scene->ctx->thread_count);
                st = sensim__scene_append_mesh_locked(scene, &m, out_mesh_id);
                if (st == SENSIM_OK) {
                    scene->duplicates_dropped += dropped;
                    scene->mtl_missing += mtl_missing;
                    scene->tex_skipped += tex_skipped;
                }
            } else {
                sensim__mesh_free(&m);
                st = sensim__fail_prefixed(st, path);
            }
            if (st != SENSIM_OK)
                sensim__scene_rollback(scene, &mark);
            sensim__scene_edit_end(scene);
        } else {
            sensim__mesh_free(&m);
        }
        free(map);
    }
#undef FAIL
done:
    free(rules);
    free(verts.data);
    free(idx.data);
    free(tags.data);
    free(poly.data);
    free(mats.data);
    free(names.data);
    free(name_slot);
    free(texc.data);
    free(ptex.data);
    free(tuv.data);
    free(libs.data);
    for (uint32_t e = 0; texels && e < mtl.n; e++)
        free(texels[e]);
    free(texels);
    free(apps);
    sensim__mtl_free(&mtl);
    sensim__source_close(&src);
    return st;
}
