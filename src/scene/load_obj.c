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

static bool gb_reserve(growbuf *b, size_t n)
{
    while (b->cap - b->len < n)
        if (!gb_grow(b))
            return false;
    return true;
}

static bool gb_append(growbuf *b, const void *v, size_t n)
{
    if (n == 0) /* v may be NULL then */
        return true;
    if (!gb_reserve(b, n))
        return false;
    memcpy((char *)b->data + b->len * b->elem, v, n * b->elem);
    b->len += n;
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

/* What a loaded file becomes, and the scratch of one face. */
typedef struct obj_out {
    growbuf verts, idx, tags, mats; /* floats x y z; 3 indices, a tag and a material a triangle */
    growbuf texc, tuv;              /* vt entries (u v); corner UVs a triangle once any face has them */
    growbuf poly, ptex;             /* one face: vertex indices, 1-based vt (0 = none) */
    bool any_uv;
} obj_out;

typedef enum obj_v_result { OBJ_V_OK, OBJ_V_SYNTAX, OBJ_V_NOT_FINITE, OBJ_V_RANGE, OBJ_V_TRAILING } obj_v_result;

/* A "v" line after its keyword: x y z scaled to metres (finite, within
 * @p limit), then optional w or colour numbers, checked and dropped. On
 * failure *comp is the component (0-based) and *val its scaled value. */
static obj_v_result parse_v(const char *p, const char *le, float scale, double limit, float out[3], int *comp,
                            double *val)
{
    for (int c = 0; c < 3; c++) {
        double v;
        *comp = c;
        p = sensim__skip_space(p, le);
        if (!sensim__parse_double(&p, le, &v))
            return OBJ_V_SYNTAX;
        if (!isfinite(v) || !isfinite((float)(v * scale)))
            return OBJ_V_NOT_FINITE;
        if (fabs(v * scale) > limit) {
            *val = v * scale;
            return OBJ_V_RANGE;
        }
        out[c] = (float)(v * scale);
    }
    for (;;) {
        double v;
        p = sensim__skip_space(p, le);
        if (p >= le)
            return OBJ_V_OK;
        if (!sensim__parse_double(&p, le, &v))
            return OBJ_V_TRAILING;
    }
}

/* A "vt" line after its keyword: u [v [w]] (v defaults to 0, w is
 * ignored). SENSIM_ERR_PARSE for a count other than 1..3 or a non-number;
 * NOT_FINITE / OUT_OF_RANGE (|x| > 1e6) with the component and value. */
static sensim_status parse_vt(const char *p, const char *le, float uv[2], int *comp, double *val)
{
    uv[0] = uv[1] = 0;
    int n = 0;
    for (;; n++) {
        double v;
        p = sensim__skip_space(p, le);
        if (p >= le)
            break;
        *comp = n;
        if (n == 3 || !sensim__parse_double(&p, le, &v))
            return SENSIM_ERR_PARSE;
        if (!isfinite(v) || fabs(v) > 1e6) {
            *val = v;
            return isfinite(v) ? SENSIM_ERR_OUT_OF_RANGE : SENSIM_ERR_NOT_FINITE;
        }
        if (n < 2)
            uv[n] = (float)v;
    }
    return n == 0 ? SENSIM_ERR_PARSE : SENSIM_OK;
}

/* One face corner token: "v", "v/vt", "v//vn" or "v/vt/vn" (the parts
 * after a slash numbers or empty; vn is dropped, vt 0 when absent). */
static bool face_corner(const char *tb, const char *te, int64_t *vi, int64_t *vt)
{
    const char *q = tb;
    if (!sensim__parse_int(&q, te, vi))
        return false;
    *vt = 0;
    for (int part = 1; q < te; part++) {
        if (*q != '/' || part > 2)
            return false;
        q++;
        int64_t x = 0;
        if (q < te && *q != '/' && !sensim__parse_int(&q, te, &x))
            return false;
        if (part == 1)
            *vt = x;
    }
    return true;
}

/* A corner's indices as written (1-based, or negative: relative to the
 * @p nv vertices and @p nt vts so far) to a 0-based vertex and a 1-based
 * vt (0 = none). 0, or 1 for a vt out of range, 2 for a vertex. */
static int resolve_corner(int64_t i, int64_t vt, uint64_t nv, int64_t nt, uint32_t *k, int64_t *kt)
{
    *kt = 0;
    if (vt != 0) {
        int64_t t = vt > 0 ? vt - 1 : nt + vt;
        if (t < 0 || t >= nt)
            return 1;
        *kt = t + 1;
    }
    int64_t v = i > 0 ? i - 1 : (int64_t)nv + i;
    if (i == 0 || v < 0 || (uint64_t)v >= nv)
        return 2;
    *k = (uint32_t)v;
    return 0;
}

/* The face in ob->poly / ob->ptex as a fan of triangles. False when out of memory. */
static bool emit_polygon(obj_out *ob, uint8_t tag, uint16_t mat)
{
    const uint32_t *pv = ob->poly.data;
    const int64_t *pt = ob->ptex.data;
    for (size_t j = 1; j + 1 < ob->poly.len; j++) {
        uint32_t tri[3] = {pv[0], pv[j], pv[j + 1]};
        /* corner UVs; NaN marks a triangle without them */
        float uv[6];
        const size_t corner[3] = {0, j, j + 1};
        bool has = pt[0] && pt[j] && pt[j + 1];
        for (int c = 0; c < 3; c++) {
            const float *t = has ? (const float *)ob->texc.data + 2 * (pt[corner[c]] - 1) : NULL;
            uv[2 * c] = t ? t[0] : NAN;
            uv[2 * c + 1] = t ? t[1] : NAN;
        }
        if (has && !ob->any_uv) { /* the first triangle with UVs: the ones before it get NaN */
            float none[6] = {NAN, NAN, NAN, NAN, NAN, NAN};
            for (size_t q = 0; q < ob->tags.len; q++)
                if (!gb_push(&ob->tuv, none, sizeof none))
                    return false;
            ob->any_uv = true;
        }
        if (ob->any_uv && !gb_push(&ob->tuv, uv, sizeof uv)) /* none kept (24 bytes a triangle) until then */
            return false;
        for (int c = 0; c < 3; c++)
            if (!gb_push(&ob->idx, &tri[c], sizeof tri[c]))
                return false;
        if (!gb_push(&ob->tags, &tag, sizeof tag) || !gb_push(&ob->mats, &mat, sizeof mat))
            return false;
    }
    return true;
}

/* ---- the common lines parsed on the context's threads ----
 * A window of the read buffer (whole lines) is cut at line ends into one
 * part a thread. In its part a thread parses the runs ("segments") of
 * lines that are blank, comments, ignored statements, or v / vt / f lines
 * that parse, into values; every other line (usemtl, g, o, mtllib, and
 * any line with an error) is left out. The serial loop applies each
 * segment when it reaches it, in file order: face indices are resolved
 * and checked there against the counts at the face's line, with the
 * state (tag, material) of that point of the file. A face that fails a
 * check ends the segment at its line, which the serial loop reads again
 * and names the error of. So the mesh, the messages and their line numbers
 * do not depend on the thread count or where the parts were cut. */
enum { OBJ_WINDOW = 4 << 20, OBJ_MIN_WINDOW = 32 << 10, OBJ_MAX_PARTS = 16 };

typedef struct obj_face {
    uint32_t nv, nt, corners; /* the segment's vertices and vts before this face's line; corner count */
} obj_face;

typedef struct obj_corner {
    int64_t v, vt; /* as written */
} obj_corner;

typedef struct obj_seg {
    const char *b, *e;   /* its lines: from the first one's start to past the last one's end */
    uint64_t lines;
    size_t v0, v1, t0, t1, f0, f1, c0, r0, r1; /* its values in the part's buffers */
    /* Plain faces (positive indices, no vt) are also fanned into triangles
     * of 0-based indices here, while all of the segment's faces are plain
     * (`plain`). They are valid when every (1-based) index is at most the
     * vertices before its line: index - (the segment's vertices before the
     * line) <= the vertices before the segment; `need` is the largest
     * left side. */
    int64_t need;
    bool plain;
} obj_seg;

typedef struct obj_part {
    growbuf verts, texc, faces, corners, tris, segs;
} obj_part;

/* Copies into the mesh's arrays that the serial loop only reserved: done
 * on the threads while they parse the next window (or at the end). */
typedef struct obj_job {
    const obj_part *w;
    size_t vsrc, vdst, nv;       /* floats of vertices */
    size_t rsrc, rdst, nr;       /* indices of plain triangles (nr / 3 tags and materials from rdst / 3) */
    uint8_t tag;
    uint16_t mat;
} obj_job;

typedef struct obj_fast {
    obj_part *part;     /* two sets of OBJ_MAX_PARTS (the window parsed, the one being copied), allocated on first use */
    growbuf jobs;
    int set, nparts, cur_part; /* set of the window; its parts; the one being applied */
    size_t cur_seg;
    const char *scanned_to; /* end of the window */
    uint64_t gen;           /* src.total when the window was cut: another value means the buffer was refilled */
    bool off;
} obj_fast;

static void obj_fast_free(obj_fast *f)
{
    free(f->jobs.data);
    for (int p = 0; f->part && p < 2 * OBJ_MAX_PARTS; p++) {
        obj_part *w = &f->part[p];
        free(w->verts.data), free(w->texc.data), free(w->faces.data), free(w->corners.data), free(w->tris.data);
        free(w->segs.data);
    }
    free(f->part);
    memset(f, 0, sizeof *f);
}

/* One line into part @p w (segment @p s open or about to be); false for a
 * line the serial loop must read (nothing of it kept). */
static bool obj_scan_line(obj_part *w, obj_seg *s, const char *lb, const char *le, float scale, double vlimit)
{
    const char *ke, *kb = sensim__token(lb, le, &ke);
    if (kb == ke || *kb == '#')
        return true;
    size_t kl = (size_t)(ke - kb);
    if (kl == 1 && *kb == 'v') {
        float xyz[3];
        int c;
        double bad;
        return parse_v(ke, le, scale, vlimit, xyz, &c, &bad) == OBJ_V_OK && gb_append(&w->verts, xyz, 3);
    }
    if (kl == 2 && kb[0] == 'v' && kb[1] == 't') {
        float uv[2];
        int c;
        double bad;
        return parse_vt(ke, le, uv, &c, &bad) == SENSIM_OK && gb_push(&w->texc, uv, sizeof uv);
    }
    if (kl == 1 && *kb == 'f') {
        obj_face f = {(uint32_t)((w->verts.len - s->v0) / 3), (uint32_t)(w->texc.len - s->t0), 0};
        size_t c0 = w->corners.len;
        for (const char *p = ke;;) {
            const char *te, *tb = sensim__token(p, le, &te);
            if (tb == te)
                break;
            obj_corner c;
            if (!face_corner(tb, te, &c.v, &c.vt) || !gb_push(&w->corners, &c, sizeof c)) {
                w->corners.len = c0;
                return false;
            }
            f.corners++;
            p = te;
        }
        if (f.corners < 3 || !gb_push(&w->faces, &f, sizeof f)) {
            w->corners.len = c0;
            return false;
        }
        const obj_corner *cs = (const obj_corner *)w->corners.data + c0;
        int64_t top = 0;
        for (uint32_t j = 0; s->plain && j < f.corners; j++) {
            s->plain = cs[j].v > 0 && cs[j].v <= (int64_t)UINT32_MAX && cs[j].vt == 0;
            top = cs[j].v > top ? cs[j].v : top;
        }
        if (s->plain) {
            s->need = top - (int64_t)f.nv > s->need ? top - (int64_t)f.nv : s->need;
            size_t r0 = w->tris.len;
            for (uint32_t j = 1; s->plain && j + 1 < f.corners; j++) {
                uint32_t t[3] = {(uint32_t)(cs[0].v - 1), (uint32_t)(cs[j].v - 1), (uint32_t)(cs[j + 1].v - 1)};
                if (!gb_append(&w->tris, t, 3))
                    w->tris.len = r0, s->plain = false;
            }
        }
        return true;
    }
    for (size_t k = 0; k < sizeof ignored_keywords / sizeof ignored_keywords[0]; k++)
        if (sensim__token_is(kb, ke, ignored_keywords[k]))
            return true;
    return false;
}

static void obj_scan_part(obj_part *w, const char *b, const char *e, float scale, double vlimit)
{
    w->verts.len = w->texc.len = w->faces.len = w->corners.len = w->tris.len = w->segs.len = 0;
    sensim_lines it = {b, e, 0, NULL};
    const char *lb, *le;
    obj_seg s = {0};
    bool open = false;
    for (;;) {
        const char *at = it.cur;
        bool more = sensim__next_line(&it, &lb, &le);
        if (!open)
            s = (obj_seg){.b = at, .v0 = w->verts.len, .t0 = w->texc.len, .f0 = w->faces.len, .c0 = w->corners.len,
                          .r0 = w->tris.len, .plain = true};
        if (more && obj_scan_line(w, &s, lb, le, scale, vlimit)) {
            open = true;
            s.lines++;
            s.e = it.cur;
            continue;
        }
        if (open) {
            s.v1 = w->verts.len, s.t1 = w->texc.len, s.f1 = w->faces.len, s.r1 = w->tris.len;
            if (!gb_push(&w->segs, &s, sizeof s)) { /* the rest is left to the serial loop */
                w->verts.len = s.v0, w->texc.len = s.t0, w->faces.len = s.f0, w->corners.len = s.c0, w->tris.len = s.r0;
                return;
            }
            open = false;
        }
        if (!more)
            return;
    }
}

/* Start of the line after the first LF at or after @p at, within [at, end); end if none. */
static const char *after_lf(const char *at, const char *end)
{
    const char *lf = at < end ? memchr(at, '\n', (size_t)(end - at)) : NULL;
    return lf ? lf + 1 : end;
}

static void obj_run_job(obj_out *ob, const obj_job *j)
{
    if (j->nv)
        memcpy((float *)ob->verts.data + j->vdst, (const float *)j->w->verts.data + j->vsrc, j->nv * sizeof(float));
    if (j->nr == 0)
        return;
    memcpy((uint32_t *)ob->idx.data + j->rdst, (const uint32_t *)j->w->tris.data + j->rsrc, j->nr * sizeof(uint32_t));
    memset((uint8_t *)ob->tags.data + j->rdst / 3, j->tag, j->nr / 3);
    uint16_t *m = (uint16_t *)ob->mats.data + j->rdst / 3;
    for (size_t t = 0; t < j->nr / 3; t++)
        m[t] = j->mat;
}

/* The copies reserved so far, on the threads. */
static void obj_fast_flush(obj_fast *f, obj_out *ob, uint32_t threads)
{
    const int nj = (int)f->jobs.len;
    const obj_job *jobs = f->jobs.data;
#pragma omp parallel for num_threads(threads < OBJ_MAX_PARTS ? threads : OBJ_MAX_PARTS) schedule(dynamic, 1) if (nj > 1)
    for (int k = 0; k < nj; k++)
        obj_run_job(ob, &jobs[k]);
    f->jobs.len = 0;
}

/* Cut the next window from the reader's position and parse its parts,
 * beside the copies of the window before (the other set of parts). */
static void obj_fast_scan(obj_fast *f, sensim_line_source *src, obj_out *ob, uint32_t threads, float scale,
                          double vlimit)
{
    const char *b = src->it.cur, *end = src->it.end;
    const char *we = (size_t)(end - b) > OBJ_WINDOW ? after_lf(b + OBJ_WINDOW, end) : end;
    int np = threads < OBJ_MAX_PARTS ? (int)threads : OBJ_MAX_PARTS;
    const char *cut[OBJ_MAX_PARTS + 1];
    cut[0] = b;
    for (int p = 1; p < np; p++) {
        const char *c = after_lf(b + (size_t)(we - b) * (size_t)p / (size_t)np, we);
        cut[p] = c < cut[p - 1] ? cut[p - 1] : c;
    }
    cut[np] = we;
    f->set ^= 1;
    obj_part *set = &f->part[f->set * OBJ_MAX_PARTS];
    const int nj = (int)f->jobs.len;
    const obj_job *jobs = f->jobs.data;
#pragma omp parallel for num_threads(np) schedule(dynamic, 1) if (np > 1)
    for (int k = 0; k < np + nj; k++) {
        if (k >= np) {
            obj_run_job(ob, &jobs[k - np]);
            continue;
        }
        const int p = k;
        obj_part *w = &set[p];
        obj_scan_part(w, cut[p], cut[p + 1], scale, vlimit);
    }
    f->jobs.len = 0;
    f->nparts = np, f->cur_part = 0, f->cur_seg = 0;
    f->scanned_to = we;
    f->gen = src->total;
}

/* Apply segment @p s of part @p w: its vts now, its vertices and plain
 * triangles reserved and left to a copy job, any other faces now. Returns
 * how many of its faces were added: all of them, or fewer when a face
 * fails a check (vertices and vts after that face's line taken back);
 * SIZE_MAX when none of the segment was (a limit would be crossed, or
 * memory ran out before anything changed). *oom when memory ran out. */
static size_t obj_apply(obj_fast *f, obj_out *ob, const obj_part *w, const obj_seg *s, uint8_t tag, uint16_t mat,
                        bool *oom)
{
    const uint64_t nv0 = ob->verts.len / 3, nt0 = ob->texc.len, nf = s->f1 - s->f0;
    const size_t ntri = (s->r1 - s->r0) / 3;
    if (nv0 + (s->v1 - s->v0) / 3 > MAX_ELEMS || nt0 + (s->t1 - s->t0) > MAX_ELEMS)
        return SIZE_MAX;
    const bool plain = s->plain && !ob->any_uv && s->need <= (int64_t)nv0 && ob->tags.len + ntri <= MAX_ELEMS;
    if (!gb_reserve(&f->jobs, 1) || !gb_reserve(&ob->verts, s->v1 - s->v0) ||
        (plain && (!gb_reserve(&ob->idx, 3 * ntri) || !gb_reserve(&ob->tags, ntri) || !gb_reserve(&ob->mats, ntri))) ||
        !gb_append(&ob->texc, (const float *)w->texc.data + 2 * s->t0, s->t1 - s->t0))
        return SIZE_MAX;
    obj_job *j = (obj_job *)f->jobs.data + f->jobs.len++;
    *j = (obj_job){.w = w, .vsrc = s->v0, .vdst = ob->verts.len, .nv = s->v1 - s->v0, .tag = tag, .mat = mat};
    ob->verts.len += j->nv;
    if (plain) { /* all valid, no UVs to carry: the triangles as they are */
        j->rsrc = s->r0, j->rdst = ob->idx.len, j->nr = 3 * ntri;
        ob->idx.len += 3 * ntri, ob->tags.len += ntri, ob->mats.len += ntri;
        return nf;
    }
    const obj_face *fc = (const obj_face *)w->faces.data + s->f0;
    const obj_corner *c = (const obj_corner *)w->corners.data + s->c0;
    for (size_t k = 0; k < nf; c += fc[k].corners, k++) {
        const uint64_t nv = nv0 + fc[k].nv;
        const int64_t nt = (int64_t)(nt0 + fc[k].nt);
        bool ok = ob->tags.len + fc[k].corners - 2 <= MAX_ELEMS;
        ob->poly.len = ob->ptex.len = 0;
        for (uint32_t q = 0; ok && q < fc[k].corners; q++) {
            uint32_t u;
            int64_t kt;
            ok = resolve_corner(c[q].v, c[q].vt, nv, nt, &u, &kt) == 0 && gb_push(&ob->ptex, &kt, sizeof kt) &&
                 gb_push(&ob->poly, &u, sizeof u);
        }
        if (ok && !emit_polygon(ob, tag, mat))
            *oom = true;
        if (!ok || *oom) {
            ob->verts.len = 3 * nv, ob->texc.len = (size_t)nt, j->nv = 3 * fc[k].nv;
            return k;
        }
    }
    return nf;
}

/* Start of the line of face @p k of segment @p s, and the lines before it. */
static const char *obj_face_line(const obj_seg *s, size_t k, uint64_t *lines)
{
    sensim_lines it = {s->b, s->e, 0, NULL};
    const char *lb, *le;
    while (sensim__next_line(&it, &lb, &le)) {
        const char *ke, *kb = sensim__token(lb, le, &ke);
        if (ke - kb == 1 && *kb == 'f' && k-- == 0) {
            *lines = it.line_no - 1;
            return lb;
        }
    }
    *lines = s->lines; /* not reached: a segment has that many faces */
    return s->e;
}

/* Before each line of the serial loop: cut and parse a new window when
 * the reader has passed the last one, and apply the segment that starts
 * at the reader's position. 1 when one was applied (the reader moved past
 * it), 0 when the serial loop reads the next line, -1 when memory ran out
 * (the reader is before the face's line). */
static int obj_fast_step(obj_fast *f, sensim_line_source *src, obj_out *ob, uint32_t threads, float scale,
                         double vlimit, uint8_t tag, uint16_t mat)
{
    if (f->off || threads < 2)
        return 0;
    if (f->part && f->gen != src->total) /* the buffer was refilled: the window is gone */
        f->nparts = 0, f->scanned_to = NULL;
    if (f->cur_part >= f->nparts && (!f->scanned_to || src->it.cur >= f->scanned_to)) {
        if ((size_t)(src->it.end - src->it.cur) < OBJ_MIN_WINDOW)
            return 0;
        if (!f->part && !(f->part = calloc(2 * OBJ_MAX_PARTS, sizeof *f->part))) {
            f->off = true; /* the serial loop alone */
            return 0;
        }
        for (int p = 0; p < 2 * OBJ_MAX_PARTS; p++) {
            obj_part *w = &f->part[p];
            w->verts.elem = sizeof(float), w->texc.elem = 2 * sizeof(float), w->faces.elem = sizeof(obj_face);
            w->corners.elem = sizeof(obj_corner), w->tris.elem = sizeof(uint32_t), w->segs.elem = sizeof(obj_seg);
        }
        obj_fast_scan(f, src, ob, threads, scale, vlimit);
    }
    for (; f->cur_part < f->nparts; f->cur_part++, f->cur_seg = 0) {
        const obj_part *w = &f->part[f->set * OBJ_MAX_PARTS + f->cur_part];
        const obj_seg *sg = (const obj_seg *)w->segs.data;
        while (f->cur_seg < w->segs.len && sg[f->cur_seg].b < src->it.cur)
            f->cur_seg++; /* passed by the serial loop */
        if (f->cur_seg == w->segs.len)
            continue;
        const obj_seg *s = &sg[f->cur_seg];
        if (s->b != src->it.cur)
            return 0;
        bool oom = false;
        size_t done = obj_apply(f, ob, w, s, tag, mat, &oom);
        f->cur_seg++;
        if (done == SIZE_MAX)
            return 0;
        uint64_t lines = s->lines;
        const char *at = done == s->f1 - s->f0 ? s->e : obj_face_line(s, done, &lines);
        src->it.cur = at, src->it.line_no += lines, src->it.lf = NULL;
        if (done != s->f1 - s->f0) /* the serial loop reads that face again and names its error */
            f->nparts = 0;
        return oom ? -1 : 1;
    }
    return 0;
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

    obj_out ob = {.verts = {.elem = sizeof(float)}, .idx = {.elem = sizeof(uint32_t)}, .tags = {.elem = 1},
                  .mats = {.elem = sizeof(uint16_t)}, .texc = {.elem = 2 * sizeof(float)},
                  .tuv = {.elem = 6 * sizeof(float)}, .poly = {.elem = sizeof(uint32_t)},
                  .ptex = {.elem = sizeof(int64_t)}};
    growbuf names = {.elem = 64}, libs = {.elem = 256};
    obj_fast fast = {.jobs = {.elem = sizeof(obj_job)}};
    uint32_t mtl_missing = 0, tex_skipped = 0;
    sensim_mtl mtl = {0};
    sensim_appearance *apps = NULL; /* per MTL entry, when it is used and coloured */
    uint8_t **texels = NULL;
    uint32_t *tex_src = NULL, *tex_idx = NULL; /* per MTL entry: the entry whose decoded texture it shares; its index */
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

    const double vlimit = SENSIM_MAX_COORD_M * (o.frame == SENSIM_FRAME_UE ? 100.0 : 1.0);
    for (;;) {
        /* runs of common lines parsed on the context's threads, applied here in file order */
        int fr = obj_fast_step(&fast, &src, &ob, scene->ctx->thread_count, scale, vlimit,
                               (uint8_t)(mtl_tag >= 0 ? mtl_tag : grp_tag >= 0 ? grp_tag : o.default_tag), cur_mat);
        if (fr > 0)
            continue;
        if (fr < 0)
            FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, (unsigned long long)src.it.line_no + 1);
        if (!sensim__source_next(&src, &lb, &le))
            break;
        const char *ke;
        const char *kb = sensim__token(lb, le, &ke);
        if (kb == ke || *kb == '#')
            continue;
        unsigned long long ln = (unsigned long long)src.it.line_no;
        if (sensim__token_is(kb, ke, "v")) {
            float xyz[3];
            int c = 0;
            double bad = 0;
            switch (parse_v(ke, le, scale, vlimit, xyz, &c, &bad)) {
            case OBJ_V_SYNTAX:
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: vertex needs 3 numbers (component %d)", path, ln, c + 1);
            case OBJ_V_NOT_FINITE:
                FAIL(SENSIM_ERR_NOT_FINITE, "%s:%llu: vertex component %d is not finite", path, ln, c + 1);
            case OBJ_V_RANGE:
                FAIL(SENSIM_ERR_OUT_OF_RANGE, "%s:%llu: vertex component %d = %g beyond the limit of %g m", path, ln,
                     c + 1, bad, SENSIM_MAX_COORD_M);
            case OBJ_V_TRAILING:
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: unexpected text after vertex", path, ln);
            case OBJ_V_OK:
                break;
            }
            for (int k = 0; k < 3; k++)
                if (!gb_push(&ob.verts, &xyz[k], sizeof xyz[k]))
                    FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
            if (ob.verts.len / 3 > MAX_ELEMS)
                FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: more than 2^30 vertices", path, ln);
        } else if (sensim__token_is(kb, ke, "vt")) {
            float uv[2];
            int c = 0;
            double bad = 0;
            sensim_status vs = parse_vt(ke, le, uv, &c, &bad);
            if (vs == SENSIM_ERR_PARSE)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: vt needs 1 to 3 numbers", path, ln);
            if (vs != SENSIM_OK)
                FAIL(vs, "%s:%llu: vt component %d = %g (finite, |x| <= 1e6)", path, ln, c + 1, bad);
            if (!gb_push(&ob.texc, uv, sizeof uv))
                FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
            if (ob.texc.len > MAX_ELEMS)
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
            uint64_t nv = ob.verts.len / 3;
            ob.poly.len = 0;
            ob.ptex.len = 0;
            const char *p = ke;
            for (;;) {
                const char *te;
                const char *tb = sensim__token(p, le, &te);
                if (tb == te)
                    break;
                int64_t i, vt;
                if (!face_corner(tb, te, &i, &vt))
                    FAIL(SENSIM_ERR_PARSE, "%s:%llu: bad face vertex '%.*s'", path, ln, (int)(te - tb), tb);
                int64_t nt = (int64_t)ob.texc.len, kt;
                uint32_t u;
                int bad = resolve_corner(i, vt, nv, nt, &u, &kt);
                if (bad == 1)
                    FAIL(SENSIM_ERR_BAD_INDEX, "%s:%llu: texture coordinate index %lld out of range (%lld so far)",
                         path, ln, (long long)vt, (long long)nt);
                if (bad == 2)
                    FAIL(SENSIM_ERR_BAD_INDEX, "%s:%llu: face index %lld out of range (%llu vertices so far)",
                         path, ln, (long long)i, (unsigned long long)nv);
                if (!gb_push(&ob.ptex, &kt, sizeof kt) || !gb_push(&ob.poly, &u, sizeof u))
                    FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
                p = te;
            }
            if (ob.poly.len < 3)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: face with %zu vertices (needs 3 or more)", path, ln, ob.poly.len);
            uint8_t tag = (uint8_t)(mtl_tag >= 0 ? mtl_tag : grp_tag >= 0 ? grp_tag : o.default_tag);
            if (!emit_polygon(&ob, tag, cur_mat))
                FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", path, ln);
            if (ob.tags.len > MAX_ELEMS)
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
    obj_fast_flush(&fast, &ob, scene->ctx->thread_count); /* the copies still reserved */
    if (ob.tags.len == 0)
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
            if (st != SENSIM_OK) {
                char pre[320]; /* the OBJ that named it, too */
                snprintf(pre, sizeof pre, "%.200s: mtllib", path);
                st = sensim__fail_prefixed(st, pre);
                goto done;
            }
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
        tex_src = calloc(mtl.n + 1, sizeof *tex_src);
        tex_idx = calloc(mtl.n + 1, sizeof *tex_idx);
        if (!apps || !texels || !tex_src || !tex_idx)
            FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        for (uint32_t e = 0; e < mtl.n; e++) {
            const sensim_mtl_entry *me = &mtl.e[e];
            tex_src[e] = e;
            if (!find_name(&names, name_slot, me->name) || (!me->has_kd && !me->map_kd))
                continue;
            memcpy(apps[e].base_color, me->kd, sizeof me->kd);
            /* a file several materials name is decoded once and shared (40 materials on one 8192² PNG: one
             * decode, one copy in the scene) */
            for (uint32_t k = 0; me->map_kd && k < e && tex_src[e] == e; k++)
                if (apps[k].texture && tex_src[k] == k && mtl.e[k].map_kd && !strcmp(mtl.e[k].map_kd, me->map_kd))
                    tex_src[e] = k;
            /* a texture that cannot be used (missing, not a PNG, ...): Kd alone, counted */
            if (tex_src[e] != e)
                apps[e].texture_width = apps[tex_src[e]].texture_width,
                apps[e].texture_height = apps[tex_src[e]].texture_height, apps[e].texture = texels[tex_src[e]];
            else if (me->map_kd && sensim__png_read_rgb(me->map_kd, &apps[e].texture_width, &apps[e].texture_height,
                                                        &texels[e]) == SENSIM_OK)
                apps[e].texture = texels[e];
            else if (me->map_kd)
                tex_skipped++, apps[e].texture_width = apps[e].texture_height = 0;
            apps[e].reserved[0] = 1; /* marks "set it" (cleared before use) */
        }
    }

    {
        sensim_mesh m = {0};
        m.vertex_count = (uint32_t)(ob.verts.len / 3);
        m.triangle_count = (uint32_t)ob.tags.len;
        m.vertices = ob.verts.data; /* gb_push keeps 16 spare bytes for Embree */
        m.indices = ob.idx.data;
        m.tags = ob.tags.data;
        sensim__vertices_from_frame(m.vertices, m.vertex_count, o.frame); /* frame checked on entry */
        m.flags = o.flags & SENSIM_MESH_PROTOTYPE;
        m.materials = ob.mats.data;
        m.uvs = ob.any_uv ? ob.tuv.data : NULL;
        if (ob.any_uv)
            ob.tuv.data = NULL;
        ob.verts.data = ob.idx.data = ob.tags.data = ob.mats.data = NULL;
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
                /* the texture once per file (past the scene's texture budget: skipped and counted) */
                uint32_t ts = tex_src[e];
                if (apps[e].texture && !tex_idx[ts]) {
                    st = sensim__scene_add_texture_locked(scene, apps[ts].texture_width, apps[ts].texture_height,
                                                          texels[ts], &tex_idx[ts]);
                    if (st == SENSIM_ERR_TOO_LARGE)
                        st = SENSIM_OK, tex_idx[ts] = UINT32_MAX, tex_skipped++;
                }
                sensim_appearance b = apps[e];
                b.texture = NULL, b.texture_width = b.texture_height = 0;
                if (st == SENSIM_OK)
                    st = sensim__scene_set_appearance_tex_locked(
                        scene, map[find_name(&names, name_slot, mtl.e[e].name)], &b,
                        apps[e].texture && tex_idx[ts] != UINT32_MAX ? tex_idx[ts] : 0);
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
    free(ob.verts.data);
    free(ob.idx.data);
    free(ob.tags.data);
    free(ob.poly.data);
    free(ob.mats.data);
    free(names.data);
    free(name_slot);
    free(ob.texc.data);
    free(ob.ptex.data);
    free(ob.tuv.data);
    free(libs.data);
    for (uint32_t e = 0; texels && e < mtl.n; e++)
        free(texels[e]);
    free(texels);
    free(tex_src);
    free(tex_idx);
    free(apps);
    sensim__mtl_free(&mtl);
    sensim__source_close(&src);
    obj_fast_free(&fast);
    return st;
}
