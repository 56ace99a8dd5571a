/* PLY loader (ascii, binary little and big endian): one file, one mesh. */
#include "parse.h"
#include "scene_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ELEMENTS 16
#define MAX_PROPS 64
#define MAX_ELEMS (1u << 30)

enum ply_type { T_NONE, T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_F32, T_F64 };
enum ply_format { F_ASCII, F_LE, F_BE };

typedef struct ply_prop {
    char name[32];
    enum ply_type type;       /* scalar type, or list item type */
    enum ply_type count_type; /* T_NONE for scalars */
} ply_prop;

typedef struct ply_elem {
    char name[32];
    uint64_t count;
    ply_prop props[MAX_PROPS];
    int nprops;
} ply_elem;

static enum ply_type parse_type(const char *b, const char *e)
{
    static const struct { const char *n; enum ply_type t; } tab[] = {
        {"char", T_I8}, {"int8", T_I8}, {"uchar", T_U8}, {"uint8", T_U8},
        {"short", T_I16}, {"int16", T_I16}, {"ushort", T_U16}, {"uint16", T_U16},
        {"int", T_I32}, {"int32", T_I32}, {"uint", T_U32}, {"uint32", T_U32},
        {"float", T_F32}, {"float32", T_F32}, {"double", T_F64}, {"float64", T_F64},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (sensim__token_is(b, e, tab[i].n))
            return tab[i].t;
    return T_NONE;
}

static size_t type_size(enum ply_type t)
{
    static const size_t sz[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};
    return sz[t];
}

static bool is_integer_type(enum ply_type t)
{
    return t != T_F32 && t != T_F64 && t != T_NONE;
}

typedef struct bin_cursor {
    const unsigned char *p, *end;
    bool swap;
} bin_cursor;

static bool bin_read(bin_cursor *c, enum ply_type t, double *out)
{
    size_t n = type_size(t);
    if ((size_t)(c->end - c->p) < n)
        return false;
    unsigned char b[8];
    for (size_t i = 0; i < n; i++)
        b[i] = c->swap ? c->p[n - 1 - i] : c->p[i];
    c->p += n;
    switch (t) {
    case T_I8: *out = (int8_t)b[0]; break;
    case T_U8: *out = b[0]; break;
    case T_I16: { int16_t v; memcpy(&v, b, 2); *out = v; } break;
    case T_U16: { uint16_t v; memcpy(&v, b, 2); *out = v; } break;
    case T_I32: { int32_t v; memcpy(&v, b, 4); *out = v; } break;
    case T_U32: { uint32_t v; memcpy(&v, b, 4); *out = v; } break;
    case T_F32: { float v; memcpy(&v, b, 4); *out = v; } break;
    case T_F64: { double v; memcpy(&v, b, 8); *out = v; } break;
    default: return false;
    }
    return true;
}

static bool host_is_le(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

typedef struct ply_reader {
    enum ply_format fmt;
    bin_cursor bin;
    sensim_lines text;
    const char *lb, *le, *lp; /* current ascii line and position */
} ply_reader;

/* Start a record: ascii reads the next non-empty line. */
static bool rec_begin(ply_reader *r)
{
    if (r->fmt != F_ASCII)
        return true;
    while (sensim__next_line(&r->text, &r->lb, &r->le)) {
        r->lp = sensim__skip_space(r->lb, r->le);
        if (r->lp < r->le)
            return true;
    }
    return false;
}

static bool rec_value(ply_reader *r, enum ply_type t, double *out)
{
    if (r->fmt != F_ASCII)
        return bin_read(&r->bin, t, out);
    r->lp = sensim__skip_space(r->lp, r->le);
    if (r->lp >= r->le)
        return false;
    return sensim__parse_double(&r->lp, r->le, out);
}

static bool rec_end_ok(ply_reader *r)
{
    return r->fmt != F_ASCII || sensim__skip_space(r->lp, r->le) == r->le;
}

static sensim_status load_ply(sensim_scene *scene, const char *path, const sensim_load_options *opt,
                              uint32_t *out_mesh_id, const char *mem, size_t mem_size);

/* Room for one more triangle: false when over 2^30 (*too_many) or out of memory. */
static bool grow_tris(uint32_t **idx, uint8_t **tags, uint64_t ntri, uint64_t *tri_cap, bool *too_many)
{
    *too_many = false;
    if (ntri < *tri_cap)
        return true;
    uint64_t cap = *tri_cap ? *tri_cap * 2 : 1024;
    if (cap > MAX_ELEMS) {
        *too_many = true;
        return false;
    }
    uint32_t *ni = realloc(*idx, cap * 3 * sizeof *ni);
    if (!ni)
        return false;
    *idx = ni;
    uint8_t *nt = realloc(*tags, cap);
    if (!nt)
        return false;
    *tags = nt;
    *tri_cap = cap;
    return true;
}

sensim_status sensim_scene_load_ply(sensim_scene *scene, const char *path, const sensim_load_options *opt,
                                    uint32_t *out_mesh_id)
{
    return load_ply(scene, path, opt, out_mesh_id, NULL, 0);
}

sensim_status sensim__scene_load_ply_mem(sensim_scene *scene, const char *label, const char *data, size_t size,
                                         const sensim_load_options *opt, uint32_t *out_mesh_id)
{
    return load_ply(scene, label, opt, out_mesh_id, data ? data : "", size);
}

static sensim_status load_ply(sensim_scene *scene, const char *path, const sensim_load_options *opt,
                              uint32_t *out_mesh_id, const char *mem, size_t mem_size)
{
    SENSIM_CHECK_HANDLE(scene, SENSIM_MAGIC_SCENE, "scene");
    if (!path)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "sensim_scene_load_ply: NULL argument");
    sensim_load_input in;
    sensim_status st = sensim__load_begin(path, opt, mem, mem_size, &in);
    if (st != SENSIM_OK)
        return st;
    const sensim_load_options o = in.o;
    const float scale = in.scale;
    const char *data = in.data;
    const size_t size = in.size;

    ply_elem *elems = calloc(MAX_ELEMENTS, sizeof *elems);
    int nelems = 0;
    float *verts = NULL;
    uint32_t *idx = NULL;
    uint8_t *tags = NULL;
    uint64_t ntri = 0, tri_cap = 0;
    ply_reader r = {0};
    r.text = (sensim_lines){data, data + size, 0, NULL};
    const char *lb, *le;
#define FAIL(code, ...)                                                                        \
    do {                                                                                       \
        st = sensim__fail(code, __VA_ARGS__);                                                  \
        goto done;                                                                             \
    } while (0)
    if (!elems)
        FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);

    /* ---- header ---- */
    if (!sensim__next_line(&r.text, &lb, &le) || !sensim__token_is(lb, le, "ply"))
        FAIL(SENSIM_ERR_PARSE, "%s:1: not a PLY file (first line must be 'ply')", path);
    bool have_format = false, header_done = false;
    while (sensim__next_line(&r.text, &lb, &le)) {
        unsigned long long ln = (unsigned long long)r.text.line_no;
        const char *ke;
        const char *kb = sensim__token(lb, le, &ke);
        if (sensim__token_is(kb, ke, "comment") || sensim__token_is(kb, ke, "obj_info") || kb == ke)
            continue;
        if (sensim__token_is(kb, ke, "end_header")) {
            header_done = true;
            break;
        }
        if (sensim__token_is(kb, ke, "format")) {
            if (have_format)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: second format line", path, ln);
            const char *fe;
            const char *fb = sensim__token(ke, le, &fe);
            if (sensim__token_is(fb, fe, "ascii"))
                r.fmt = F_ASCII;
            else if (sensim__token_is(fb, fe, "binary_little_endian"))
                r.fmt = F_LE;
            else if (sensim__token_is(fb, fe, "binary_big_endian"))
                r.fmt = F_BE;
            else
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: unknown PLY format '%.*s'", path, ln, (int)(fe - fb), fb);
            have_format = true;
        } else if (sensim__token_is(kb, ke, "element")) {
            if (nelems == MAX_ELEMENTS)
                FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: more than %d elements", path, ln, MAX_ELEMENTS);
            const char *ne, *ce;
            const char *nb = sensim__token(ke, le, &ne);
            const char *cb = sensim__token(ne, le, &ce);
            const char *p = cb;
            int64_t count;
            if (nb == ne || ne - nb >= 32 || !sensim__parse_int(&p, ce, &count) || p != ce || count < 0)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: bad element line", path, ln);
            ply_elem *el = &elems[nelems++];
            memcpy(el->name, nb, (size_t)(ne - nb));
            el->count = (uint64_t)count;
        } else if (sensim__token_is(kb, ke, "property")) {
            if (nelems == 0)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: property before any element", path, ln);
            ply_elem *el = &elems[nelems - 1];
            if (el->nprops == MAX_PROPS)
                FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: more than %d properties", path, ln, MAX_PROPS);
            ply_prop *pr = &el->props[el->nprops];
            const char *te;
            const char *tb = sensim__token(ke, le, &te);
            if (sensim__token_is(tb, te, "list")) {
                const char *ce2, *ie;
                const char *cb2 = sensim__token(te, le, &ce2);
                const char *ib = sensim__token(ce2, le, &ie);
                pr->count_type = parse_type(cb2, ce2);
                pr->type = parse_type(ib, ie);
                if (pr->count_type == T_NONE || !is_integer_type(pr->count_type) || pr->type == T_NONE)
                    FAIL(SENSIM_ERR_PARSE, "%s:%llu: bad list property types", path, ln);
                te = ie;
            } else {
                pr->type = parse_type(tb, te);
                if (pr->type == T_NONE)
                    FAIL(SENSIM_ERR_PARSE, "%s:%llu: unknown property type '%.*s'", path, ln, (int)(te - tb), tb);
            }
            const char *nme;
            const char *nmb = sensim__token(te, le, &nme);
            if (nmb == nme || nme - nmb >= 32 || sensim__skip_space(nme, le) != le)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: bad property name", path, ln);
            memcpy(pr->name, nmb, (size_t)(nme - nmb));
            el->nprops++;
        } else {
            FAIL(SENSIM_ERR_PARSE, "%s:%llu: unknown header line '%.*s'", path, ln,
                 (int)(ke - kb > 40 ? 40 : ke - kb), kb);
        }
    }
    if (!header_done)
        FAIL(SENSIM_ERR_PARSE, "%s:%llu: file ends before end_header", path, (unsigned long long)r.text.line_no);
    if (!have_format)
        FAIL(SENSIM_ERR_PARSE, "%s: header has no format line", path);

    int vi = -1, fi = -1, px = -1, py = -1, pz = -1, plist = -1, ptag = -1;
    for (int e = 0; e < nelems; e++) {
        if (strcmp(elems[e].name, "vertex") == 0 && vi < 0)
            vi = e;
        if (strcmp(elems[e].name, "face") == 0 && fi < 0)
            fi = e;
    }
    if (vi < 0 || fi < 0)
        FAIL(SENSIM_ERR_EMPTY, "%s: needs element vertex and element face", path);
    for (int k = 0; k < elems[vi].nprops; k++) {
        const ply_prop *pr = &elems[vi].props[k];
        if (pr->count_type != T_NONE)
            continue;
        if (!strcmp(pr->name, "x")) px = k;
        if (!strcmp(pr->name, "y")) py = k;
        if (!strcmp(pr->name, "z")) pz = k;
    }
    for (int k = 0; k < elems[fi].nprops; k++) {
        const ply_prop *pr = &elems[fi].props[k];
        if (pr->count_type != T_NONE &&
            (!strcmp(pr->name, "vertex_indices") || !strcmp(pr->name, "vertex_index")) && plist < 0) {
            if (!is_integer_type(pr->type))
                FAIL(SENSIM_ERR_PARSE, "%s: face %s must be an integer list", path, pr->name);
            plist = k;
        }
        if (pr->count_type == T_NONE && !strcmp(pr->name, "tag"))
            ptag = k;
    }
    if (px < 0 || py < 0 || pz < 0)
        FAIL(SENSIM_ERR_PARSE, "%s: element vertex lacks scalar x, y or z", path);
    if (plist < 0)
        FAIL(SENSIM_ERR_PARSE, "%s: element face lacks list vertex_indices", path);
    uint64_t nv = elems[vi].count;
    if (nv > MAX_ELEMS || elems[fi].count > MAX_ELEMS)
        FAIL(SENSIM_ERR_TOO_LARGE, "%s: more than 2^30 vertices or faces", path);
    /* Every record takes at least one byte: a count beyond the remaining bytes
     * is a lie, caught before allocating for it. */
    size_t body = (size_t)(data + size - r.text.cur);
    for (int e = 0; e < nelems; e++)
        if (elems[e].count > body && elems[e].nprops > 0)
            FAIL(SENSIM_ERR_PARSE, "%s: element %s claims %llu records but only %zu bytes follow the header",
                 path, elems[e].name, (unsigned long long)elems[e].count, body);

    verts = malloc(((size_t)nv * 3 + 4) * sizeof(float));
    if (!verts)
        FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s: cannot allocate %llu vertices", path, (unsigned long long)nv);
    memset(verts + nv * 3, 0, 4 * sizeof(float));

    r.bin.p = (const unsigned char *)r.text.cur;
    r.bin.end = (const unsigned char *)(data + size);
    r.bin.swap = (r.fmt == F_LE) != host_is_le();

    /* ---- body ---- */
    /* The common binary layouts read without the per-value path: float x y z
     * vertices, faces of a uchar count and 32-bit indices, in the host's
     * byte order. A record they cannot take whole and valid (short data, a
     * bad count or index, a value not finite) goes the general way, which
     * names the error as it always did. */
    const bool raw = r.fmt != F_ASCII && !r.bin.swap;
    const bool fast_vert = raw && elems[vi].nprops == 3 && px == 0 && py == 1 && pz == 2 &&
                           elems[vi].props[0].type == T_F32 && elems[vi].props[1].type == T_F32 &&
                           elems[vi].props[2].type == T_F32;
    const bool fast_face = raw && elems[fi].nprops == 1 && plist == 0 && elems[fi].props[0].count_type == T_U8 &&
                           (elems[fi].props[0].type == T_I32 || elems[fi].props[0].type == T_U32);
    const bool signed_idx = elems[fi].props[0].type == T_I32;
    for (int e = 0; e < nelems; e++) {
        const ply_elem *el = &elems[e];
        if (el->nprops == 0)
            continue; /* records without properties hold no data (any count, read in no time) */
        for (uint64_t rec = 0; rec < el->count; rec++) {
            if (fast_vert && e == vi && r.bin.end - r.bin.p >= 12) {
                float f[3], g[3];
                memcpy(f, r.bin.p, sizeof f);
                bool ok = true;
                for (int c = 0; c < 3; c++) {
                    double v = f[c];
                    g[c] = (float)(v * scale);
                    ok &= isfinite(v) && isfinite(g[c]);
                }
                if (ok) {
                    memcpy(&verts[rec * 3], g, sizeof g);
                    r.bin.p += 12;
                    continue;
                }
            }
            if (fast_face && e == fi && r.bin.end - r.bin.p >= 1) {
                const unsigned char *q = r.bin.p;
                const uint32_t n = q[0];
                bool ok = n >= 3 && (size_t)(r.bin.end - q - 1) >= 4 * (size_t)n;
                for (uint32_t j = 0; ok && j < n; j++) {
                    uint32_t u;
                    memcpy(&u, q + 1 + 4 * j, 4);
                    ok = (signed_idx ? (int32_t)u >= 0 : true) && (uint64_t)u < nv;
                }
                if (ok) {
                    uint32_t first, prev, u;
                    memcpy(&first, q + 1, 4);
                    memcpy(&prev, q + 5, 4);
                    for (uint32_t j = 2; j < n; j++) {
                        bool too_many;
                        if (!grow_tris(&idx, &tags, ntri, &tri_cap, &too_many))
                            FAIL(too_many ? SENSIM_ERR_TOO_LARGE : SENSIM_ERR_OUT_OF_MEMORY, "%s: %s", path,
                                 too_many ? "more than 2^30 triangles" : "out of memory");
                        memcpy(&u, q + 1 + 4 * j, 4);
                        idx[ntri * 3] = first, idx[ntri * 3 + 1] = prev, idx[ntri * 3 + 2] = u;
                        tags[ntri++] = o.default_tag;
                        prev = u;
                    }
                    r.bin.p = q + 1 + 4 * n;
                    continue;
                }
            }
            unsigned long long where = r.fmt == F_ASCII ? (unsigned long long)r.text.line_no + 1
                                                       : (unsigned long long)rec;
            const char *unit = r.fmt == F_ASCII ? "line" : "record";
            if (!rec_begin(&r))
                FAIL(SENSIM_ERR_PARSE, "%s: file ends in element %s at record %llu of %llu", path, el->name,
                     (unsigned long long)rec, (unsigned long long)el->count);
            if (r.fmt == F_ASCII)
                where = (unsigned long long)r.text.line_no;
            uint8_t face_tag = o.default_tag;
            for (int k = 0; k < el->nprops; k++) {
                const ply_prop *pr = &el->props[k];
                double v;
                if (pr->count_type == T_NONE) {
                    if (!rec_value(&r, pr->type, &v))
                        FAIL(SENSIM_ERR_PARSE, "%s: %s %llu: element %s property %s truncated or malformed",
                             path, unit, where, el->name, pr->name);
                    if (e == vi && (k == px || k == py || k == pz)) {
                        float f = (float)(v * scale);
                        if (!isfinite(v) || !isfinite(f))
                            FAIL(SENSIM_ERR_NOT_FINITE, "%s: %s %llu: vertex %llu %s is not finite", path, unit,
                                 where, (unsigned long long)rec, pr->name);
                        verts[rec * 3 + (k == px ? 0 : k == py ? 1 : 2)] = f;
                    }
                    if (e == fi && k == ptag) {
                        if (!(v >= 0 && v <= SENSIM_TAG_MAX) || v != floor(v))
                            FAIL(SENSIM_ERR_OUT_OF_RANGE, "%s: %s %llu: face tag %g outside 0..%d", path, unit,
                                 where, v, SENSIM_TAG_MAX);
                        face_tag = (uint8_t)v;
                    }
                    continue;
                }
                double cnt;
                if (!rec_value(&r, pr->count_type, &cnt) || cnt < 0 || cnt != floor(cnt) || cnt > 1e6)
                    FAIL(SENSIM_ERR_PARSE, "%s: %s %llu: element %s list %s has a bad count", path, unit, where,
                         el->name, pr->name);
                uint32_t n = (uint32_t)cnt;
                bool is_face_list = e == fi && k == plist;
                if (is_face_list && n < 3)
                    FAIL(SENSIM_ERR_PARSE, "%s: %s %llu: face %llu has %u vertices (needs 3 or more)", path, unit,
                         where, (unsigned long long)rec, n);
                uint32_t first = 0, prev = 0;
                for (uint32_t j = 0; j < n; j++) {
                    if (!rec_value(&r, pr->type, &v))
                        FAIL(SENSIM_ERR_PARSE, "%s: %s %llu: element %s list %s truncated or malformed", path,
                             unit, where, el->name, pr->name);
                    if (!is_face_list)
                        continue;
                    if (!(v >= 0 && v < (double)nv) || v != floor(v))
                        FAIL(SENSIM_ERR_BAD_INDEX, "%s: %s %llu: face %llu vertex index %g out of range (%llu vertices)",
                             path, unit, where, (unsigned long long)rec, v, (unsigned long long)nv);
                    uint32_t u = (uint32_t)v;
                    if (j == 0) {
                        first = u;
                    } else if (j >= 2) {
                        bool too_many;
                        if (!grow_tris(&idx, &tags, ntri, &tri_cap, &too_many))
                            FAIL(too_many ? SENSIM_ERR_TOO_LARGE : SENSIM_ERR_OUT_OF_MEMORY, "%s: %s", path,
                                 too_many ? "more than 2^30 triangles" : "out of memory");
                        idx[ntri * 3] = first;
                        idx[ntri * 3 + 1] = prev;
                        idx[ntri * 3 + 2] = u;
                        tags[ntri] = 255; /* set below once the face's tag is known */
                        ntri++;
                    }
                    prev = u;
                }
            }
            if (e == fi)
                for (uint64_t t = ntri; t > 0 && tags[t - 1] == 255; t--)
                    tags[t - 1] = face_tag;
            if (!rec_end_ok(&r))
                FAIL(SENSIM_ERR_PARSE, "%s: line %llu: extra values in element %s record", path, where, el->name);
        }
    }
    if (ntri == 0)
        FAIL(SENSIM_ERR_EMPTY, "%s: no faces", path);

    {
        sensim_mesh m = {0};
        m.vertex_count = (uint32_t)nv;
        m.triangle_count = (uint32_t)ntri;
        m.vertices = verts;
        m.indices = idx;
        m.tags = tags;
        sensim__vertices_from_frame(m.vertices, m.vertex_count, o.frame); /* frame checked on entry */
        m.flags = o.flags & SENSIM_MESH_PROTOTYPE;
        m.materials = calloc(ntri, sizeof(uint16_t));
        verts = NULL;
        idx = NULL;
        tags = NULL;
        if (!m.materials) {
            sensim__mesh_free(&m);
            FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        }
        uint32_t dropped = sensim__mesh_drop_duplicates(&m, scene->ctx->thread_count);
        if ((st = sensim__scene_edit_begin(scene)) != SENSIM_OK) {
            sensim__mesh_free(&m);
        } else {
            if ((st = sensim__scene_append_mesh_locked(scene, &m, out_mesh_id)) == SENSIM_OK)
                scene->duplicates_dropped += dropped;
            else
                st = sensim__fail_prefixed(st, path);
            sensim__scene_edit_end(scene);
        }
    }
#undef FAIL
done:
    free(elems);
    free(verts);
    free(idx);
    free(tags);
    free(in.owned);
    return st;
}
