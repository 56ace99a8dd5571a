/* Scenes users have: glTF 2.0 / GLB, FBX, COLLADA and the rest through
 * Assimp (Debian libassimp-dev). Built when meson finds Assimp (feature
 * option `assimp`, auto).
 *
 * What is kept: the node hierarchy's transforms, triangles (Assimp
 * triangulates; points and lines are left out), names and materials.
 * Frames: Assimp hands every format over right-handed and y-up (glTF's own
 * convention); libsensim is z-up, so (x, y, z) -> (x, -z, y), as Blender
 * imports glTF. Units: metres, times the FBX UnitScaleFactor / 100 when the
 * file gives one, times the load option's scale.
 * Meshes: a mesh that one node references is baked into the file's static
 * mesh (one mesh per file, like OBJ); a mesh that several nodes reference
 * becomes one prototype placed by sensim_scene_add_instance at each node, so
 * a forest of one tree costs one tree.
 * Tags: the material's name, else the node's, else the mesh's, through the
 * whole-word matcher and the load's tag mapping file; else the default tag.
 * Materials: scene materials by the material's name (keywords as OBJ
 * usemtl); its base colour (glTF baseColorFactor, else the diffuse colour)
 * and its base-colour (else diffuse) PNG texture become the camera
 * appearance, sampled at the mesh's first UV set (Assimp hands UVs over with
 * v up, as OBJ's vt). Textures are files beside the scene or embedded (GLB);
 * one that cannot be used (missing, not a PNG) leaves the base colour alone
 * and is counted in scene_info.textures_skipped, as for OBJ.
 * A load as SENSIM_MESH_PROTOTYPE (an actor's mesh) bakes every node into
 * the one mesh: instances would be static world.
 * Everything lands in one edit section: the load is whole or the scene is as
 * it was.
 *
 * Isolation: Assimp never runs in the host's process. The helper program
 * sensim-assimp (assimp_helper.c) imports the file under a memory, CPU-time
 * and file-access budget and streams the meshes, materials, textures and
 * node placements back (assimp_wire.h); this file reads that stream as
 * hostile input (every length, count and index checked) within its own
 * byte budget and wall-clock deadline. A crash of the helper (deep nesting,
 * broken accessors), a bomb (zip, node DAG, declared counts) or a hang is
 * an error naming the file; the host and its scene are untouched. */
#define _GNU_SOURCE /* pipe2, posix_spawn_file_actions_addclosefrom_np */
#include "internal.h"
#include "wire_read.h"
#include "scene_impl.h"
#include "assimp_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#define MAX_ELEMS (1u << 30) /* vertices or triangles in one mesh, as add_mesh allows */

/* The helper's budgets for a file of B bytes (documented in scene.h):
 * address space 2 GiB + 64·B (at most 16 GiB), CPU 30 s + 1 s per MB, a
 * wall-clock deadline of twice that plus 10 s, and an answer of at most
 * 256 MiB + 64·B (at most 16 GiB). */
#define GIB (1ull << 30)
static unsigned long long mem_budget(unsigned long long b)
{
    unsigned long long m = 2 * GIB + (b > 16 * GIB / 64 ? 16 * GIB : 64 * b);
    return m > 16 * GIB ? 16 * GIB : m;
}
static unsigned long long cpu_budget(unsigned long long b) { return 30 + b / 1000000; }
static unsigned long long answer_budget(unsigned long long b)
{
    unsigned long long m = (256ull << 20) + (b > 16 * GIB / 64 ? 16 * GIB : 64 * b);
    return m > 16 * GIB ? 16 * GIB : m;
}

/* ---- reading the answer: every length, count and index checked ---- */


/* A length-prefixed name, NUL-terminated in place (the bytes move over their
 * 2-byte length, so the terminator lands inside the record). */
static int take_name(rd *r, const char **s)
{
    uint16_t n;
    if (!take(r, &n, 2) || n > SENSIM_WIRE_MAX_NAME || (size_t)(r->end - r->p) < n)
        return 0;
    unsigned char *dst = (unsigned char *)r->p - 2;
    memmove(dst, r->p, n);
    dst[n] = 0;
    for (uint16_t k = 0; k < n; k++)
        if (dst[k] == 0) /* a NUL inside: the name ends there */
            break;
    *s = (const char *)dst;
    r->p += n;
    return 1;
}

typedef struct imp_tex {
    uint32_t kind, w, h;
    const unsigned char *data;
    size_t len;
} imp_tex;

typedef struct imp_mat {
    uint32_t has;
    float rgba[4];
    const char *name, *tex;
} imp_mat;

typedef struct imp_mesh {
    uint32_t has_tri, material, nv, nt, has_uv;
    const char *name;
    const unsigned char *v, *idx, *uv;
} imp_mesh;

typedef struct imp_place {
    uint32_t mesh;
    double m[16];
    const char *node;
} imp_place;

typedef struct imp {
    double unit;
    imp_tex *tex;
    imp_mat *mat;
    imp_mesh *mesh;
    imp_place *place;
    uint32_t ntex, nmat, nmesh, nplace;
} imp;

static void imp_free(imp *s)
{
    free(s->tex);
    free(s->mat);
    free(s->mesh);
    free(s->place);
    memset(s, 0, sizeof *s);
}

/* Grows *@p arr (of @p size-byte items) to hold one more than *@p n. */
static int grow(void *arr, uint32_t n, size_t size)
{
    void **a = arr;
    if (n != 0 && (n < 16 || (n & (n - 1)))) /* capacity: 16, then powers of two */
        return 1;
    size_t c = n ? 2 * (size_t)n : 16;
    void *q = realloc(*a, c * size);
    if (!q)
        return 0;
    *a = q;
    return 1;
}

static sensim_status parse_answer(const char *path, unsigned char *buf, size_t len, imp *s)
{
    memset(s, 0, sizeof *s);
    s->unit = 1.0;
    if (len < 8 || memcmp(buf, SENSIM_WIRE_MAGIC, 8))
        return sensim__fail(SENSIM_ERR_PARSE, "%s: the importer gave no answer (%zu bytes)", path, len);
    rd all = {buf + 8, buf + len};
    int ended = 0;
    while (!ended && all.p < all.end) {
        uint32_t type;
        uint64_t rl;
        if (!take(&all, &type, 4) || !take(&all, &rl, 8) || rl > (uint64_t)(all.end - all.p))
            return sensim__fail(SENSIM_ERR_PARSE, "%s: the importer's answer is cut short", path);
        rd r = {all.p, all.p + rl};
        all.p += rl;
        int ok = 1;
        switch (type) {
        case SENSIM_WIRE_UNIT:
            ok = take(&r, &s->unit, 8) && s->unit > 0 && s->unit < 1e4;
            break;
        case SENSIM_WIRE_TEXTURE: {
            imp_tex t = {0};
            ok = grow(&s->tex, s->ntex, sizeof t) && take(&r, &t.kind, 4) && take(&r, &t.w, 4) && take(&r, &t.h, 4);
            t.data = r.p, t.len = (size_t)(r.end - r.p);
            ok = ok && (t.kind == 0 ? t.len == t.w : t.kind == 1 && t.w <= 16384 && t.h <= 16384 &&
                                                          t.len == 3ull * t.w * t.h);
            if (ok)
                s->tex[s->ntex++] = t, r.p = r.end;
            break;
        }
        case SENSIM_WIRE_MATERIAL: {
            imp_mat m = {0};
            ok = grow(&s->mat, s->nmat, sizeof m) && take(&r, &m.has, 4) && take(&r, m.rgba, 16) &&
                 take_name(&r, &m.name) && take_name(&r, &m.tex);
            if (ok)
                s->mat[s->nmat++] = m;
            break;
        }
        case SENSIM_WIRE_MESH: {
            imp_mesh m = {0};
            ok = grow(&s->mesh, s->nmesh, sizeof m) && take(&r, &m.has_tri, 4) && take(&r, &m.material, 4) &&
                 take(&r, &m.nv, 4) && take(&r, &m.nt, 4) && take(&r, &m.has_uv, 4) && take_name(&r, &m.name) &&
                 m.nv <= MAX_ELEMS && m.nt <= MAX_ELEMS &&
                 (uint64_t)(r.end - r.p) == 12ull * m.nv + 12ull * m.nt + (m.has_uv ? 8ull * m.nv : 0);
            if (ok) {
                m.v = r.p, m.idx = m.v + 12ull * m.nv, m.uv = m.has_uv ? m.idx + 12ull * m.nt : NULL;
                s->mesh[s->nmesh++] = m, r.p = r.end;
            }
            break;
        }
        case SENSIM_WIRE_PLACEMENT: {
            imp_place q = {0};
            ok = grow(&s->place, s->nplace, sizeof q) && take(&r, &q.mesh, 4) && take(&r, q.m, 128) &&
                 take_name(&r, &q.node);
            if (ok)
                s->place[s->nplace++] = q;
            break;
        }
        case SENSIM_WIRE_ERROR: {
            uint32_t code;
            if (!take(&r, &code, 4) || code < SENSIM_ERR_INVALID_ARGUMENT || code > SENSIM_ERR_CANCELLED)
                code = SENSIM_ERR_PARSE;
            char msg[1600];
            size_t k = 0;
            for (; r.p < r.end && k + 1 < sizeof msg; r.p++) /* printable ASCII and UTF-8 bytes only */
                msg[k++] = *r.p >= 32 && *r.p != 127 ? (char)*r.p : '?';
            msg[k] = 0;
            return sensim__fail((sensim_status)code, "%s", msg);
        }
        case SENSIM_WIRE_END: {
            uint32_t c[4];
            ok = take(&r, c, 16) && c[0] == s->ntex && c[1] == s->nmat && c[2] == s->nmesh && c[3] == s->nplace;
            ended = 1;
            break;
        }
        default:
            ok = 0;
        }
        if (!ok || r.p != r.end)
            return sensim__fail(SENSIM_ERR_PARSE, "%s: the importer's answer has a malformed record (type %u)", path,
                                type);
    }
    if (!ended)
        return sensim__fail(SENSIM_ERR_PARSE, "%s: the importer's answer ends without its last record", path);
    return SENSIM_OK;
}

/* For tests: parse an answer (modified in place) and count what it holds. */
sensim_status sensim__assimp_parse_answer(const char *path, unsigned char *buf, size_t len, uint32_t counts[4])
{
    imp sc;
    sensim_status st = parse_answer(path, buf, len, &sc);
    if (st == SENSIM_OK && counts)
        counts[0] = sc.ntex, counts[1] = sc.nmat, counts[2] = sc.nmesh, counts[3] = sc.nplace;
    imp_free(&sc);
    return st;
}

/* ---- building the scene from the answer ---- */

static void mul(const double a[16], const double b[16], double o[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            o[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] + a[12 + r] * b[4 * c + 3];
}

/* the file's y-up frame to libsensim's z-up: (x, y, z) -> (x, -z, y) */
static const double YUP_TO_ZUP[16] = {1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1};
static const double ZUP_TO_YUP[16] = {1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1};

static int finite_coord(double v)
{
    return v == v && fabs(v) <= SENSIM_MAX_COORD_M;
}

static int32_t tag_for(const char *a, const char *b, const char *c, const sensim_tag_rule *rules, uint32_t nrules,
                       uint8_t def)
{
    const char *names[3] = {a, b, c};
    for (int i = 0; i < 3; i++)
        if (names[i] && names[i][0]) {
            int32_t t = sensim__tag_match(names[i], rules, nrules);
            if (t >= 0)
                return t;
        }
    return def;
}

static const char *material_name(const imp *sc, uint32_t idx, char *buf, size_t cap)
{
    buf[0] = 0;
    if (idx < sc->nmat)
        snprintf(buf, cap, "%.255s", sc->mat[idx].name);
    return buf;
}

/* A mesh's triangles into growable arrays, vertices through @p xf (and
 * checked), per triangle its tag and scene material. */
typedef struct out_mesh {
    float *v;
    uint32_t *idx;
    uint8_t *tags;
    uint16_t *mats;
    float *uvs; /* 6 per triangle once a mesh with UVs arrives (NaN before and where none), else NULL */
    size_t nv, nt, capv, capt;
} out_mesh;

static float f32_at(const unsigned char *p, size_t k)
{
    float f;
    memcpy(&f, p + 4 * k, 4);
    return f;
}

static uint32_t u32_at(const unsigned char *p, size_t k)
{
    uint32_t u;
    memcpy(&u, p + 4 * k, 4);
    return u;
}

static int append(out_mesh *o, const imp_mesh *am, const double xf[16], uint8_t tag, uint16_t mat)
{
    const size_t ntri = am->nt;
    if (o->nv + am->nv > MAX_ELEMS || o->nt + ntri > MAX_ELEMS)
        return -1;
    if (o->nv + am->nv + 2 > o->capv) {
        size_t c = (o->nv + am->nv + 2) * 2;
        float *v = realloc(o->v, 3 * c * sizeof *v);
        if (!v)
            return -2;
        o->v = v, o->capv = c;
    }
    if (o->nt + ntri > o->capt) {
        size_t c = (o->nt + ntri) * 2 + 16;
        uint32_t *i = realloc(o->idx, 3 * c * sizeof *i);
        if (i)
            o->idx = i;
        uint8_t *t = realloc(o->tags, c);
        if (t)
            o->tags = t;
        uint16_t *m = realloc(o->mats, c * sizeof *m);
        if (m)
            o->mats = m;
        float *uv = o->uvs ? realloc(o->uvs, 6 * c * sizeof *uv) : NULL;
        if (uv)
            o->uvs = uv;
        if (!i || !t || !m || (o->uvs && !uv))
            return -2;
        o->capt = c;
    }
    const unsigned char *tc = am->uv;
    if (tc && !o->uvs) { /* the first mesh with UVs: the triangles before it have none */
        if (!(o->uvs = malloc(6 * o->capt * sizeof *o->uvs)))
            return -2;
        for (size_t k = 0; k < 6 * o->nt; k++)
            o->uvs[k] = NAN;
    }
    size_t base = o->nv;
    for (uint32_t k = 0; k < am->nv; k++) {
        double x = f32_at(am->v, 3 * (size_t)k), y = f32_at(am->v, 3 * (size_t)k + 1), z = f32_at(am->v, 3 * (size_t)k + 2);
        double w[3];
        for (int r = 0; r < 3; r++)
            w[r] = xf[r] * x + xf[4 + r] * y + xf[8 + r] * z + xf[12 + r];
        if (!finite_coord(w[0]) || !finite_coord(w[1]) || !finite_coord(w[2]))
            return -3;
        for (int r = 0; r < 3; r++)
            o->v[3 * (base + k) + r] = (float)w[r];
    }
    o->nv += am->nv;
    for (uint32_t f = 0; f < am->nt; f++) {
        uint32_t ix[3];
        for (int r = 0; r < 3; r++) {
            ix[r] = u32_at(am->idx, 3 * (size_t)f + (size_t)r);
            if (ix[r] >= am->nv)
                return -4;
            o->idx[3 * o->nt + (size_t)r] = (uint32_t)(base + ix[r]);
        }
        o->tags[o->nt] = tag;
        o->mats[o->nt] = mat;
        if (o->uvs)
            for (int r = 0; r < 3; r++) {
                float u = tc ? f32_at(tc, 2 * (size_t)ix[r]) : NAN, v = tc ? f32_at(tc, 2 * (size_t)ix[r] + 1) : NAN;
                o->uvs[6 * o->nt + 2 * r] = isfinite(u) ? u : NAN, o->uvs[6 * o->nt + 2 * r + 1] = isfinite(v) ? v : NAN;
            }
        o->nt++;
    }
    return 0;
}

static void out_free(out_mesh *o)
{
    free(o->v);
    free(o->idx);
    free(o->tags);
    free(o->mats);
    free(o->uvs);
    memset(o, 0, sizeof *o);
}

/* Hand @p o to the scene as one mesh (locked). */
static sensim_status commit_mesh(sensim_scene *scene, out_mesh *o, uint32_t flags, uint32_t *out_id)
{
    sensim_mesh m = {0};
    m.vertices = o->v, m.vertex_count = (uint32_t)o->nv;
    m.indices = o->idx, m.triangle_count = (uint32_t)o->nt;
    m.tags = o->tags, m.materials = o->mats, m.uvs = o->uvs;
    m.flags = flags;
    memset(o, 0, sizeof *o);
    return sensim__scene_append_mesh_locked(scene, &m, out_id);
}

/* The material's base-colour (else diffuse) texture as sRGB texels: 1 read,
 * 0 the material has none, -1 it has one that cannot be used (missing, not
 * a PNG, an unreadable embedded image: the caller counts it). Embedded
 * textures ("*N", GLB) are PNG bytes or RGB texels; others are files
 * relative to the scene file's folder, read by libsensim's own PNG reader. */
static int material_texture(const imp *sc, const imp_mat *amat, const char *scene_path, uint8_t **out, uint32_t *w,
                            uint32_t *h, char *why, size_t why_cap)
{
    *out = NULL, *w = *h = 0;
    const char *name = amat->tex;
    if (!name[0])
        return 0;
    if (name[0] == '*') { /* embedded */
        char *end;
        unsigned long k = strtoul(name + 1, &end, 10);
        if (*end || end == name + 1 || k >= sc->ntex) {
            snprintf(why, why_cap, "no embedded texture %s", name);
            return -1;
        }
        const imp_tex *t = &sc->tex[k];
        if (t->kind == 0) { /* compressed: the bytes of a file */
            if (t->len && sensim__png_decode_rgb(scene_path, t->data, t->len, w, h, out) == SENSIM_OK)
                return 1;
            snprintf(why, why_cap, "%s", t->len ? sensim_context_last_error(NULL) : "empty");
            return -1;
        }
        if (t->w < 1 || t->h < 1) {
            snprintf(why, why_cap, "no texels (larger than 16384 on a side?)");
            return -1;
        }
        uint8_t *rgb = malloc(t->len);
        if (!rgb) {
            snprintf(why, why_cap, "out of memory");
            return -1;
        }
        memcpy(rgb, t->data, t->len);
        *out = rgb, *w = t->w, *h = t->h;
        return 1;
    }
    char full[4096];
    const char *slash = strrchr(scene_path, '/');
    if (name[0] == '/' || !slash)
        snprintf(full, sizeof full, "%s", name);
    else
        snprintf(full, sizeof full, "%.*s/%s", (int)(slash - scene_path), scene_path, name);
    if (sensim__png_read_rgb(full, w, h, out) == SENSIM_OK)
        return 1;
    snprintf(why, why_cap, "%s", sensim_context_last_error(NULL)); /* names the file and the reason */
    return -1;
}

/* The extensions Debian 12's Assimp 5.2.5 reads (Importer::GetExtensionList),
 * without .obj and .ply, which libsensim reads itself. A newer Assimp's
 * extra formats are not offered; a file the helper's Assimp cannot read is a
 * parse error naming it. */
bool sensim__assimp_reads(const char *dot)
{
    static const char *const ext[] = {
        ".3d",  ".3ds",   ".3mf", ".ac",   ".ac3d", ".acc",    ".amf",   ".ase",  ".ask",      ".assbin", ".b3d",
        ".blend", ".bsp", ".bvh", ".cob",  ".csm",  ".dae",    ".dxf",   ".enff", ".fbx",      ".glb",    ".gltf",
        ".hmp", ".ifc",   ".ifczip", ".iqm", ".irr", ".irrmesh", ".lwo", ".lws",  ".lxo",      ".md2",    ".md3",
        ".md5anim", ".md5camera", ".md5mesh", ".mdc", ".mdl", ".mesh", ".mot", ".ms3d", ".ndo", ".nff", ".off",
        ".ogex", ".pk3",  ".pmx", ".prj",  ".q3o",  ".q3s",    ".raw",   ".scn",  ".sib",      ".smd",    ".step",
        ".stl", ".stp",   ".ter", ".uc",   ".vta",  ".x",      ".x3d",   ".x3db", ".xgl",      ".xml",    ".zae",
        ".zgl"};
    for (size_t i = 0; dot && i < sizeof ext / sizeof *ext; i++)
        if (strcasecmp(dot, ext[i]) == 0)
            return true;
    return false;
}

sensim_status sensim__scene_load_assimp(sensim_scene *scene, const char *path, const sensim_load_options *opt,
                                        uint32_t *out_mesh_id)
{
    sensim_load_options o;
    sensim_load_options_init(&o);
    if (opt)
        o = *opt;
    if (o.frame != SENSIM_FRAME_NATIVE && o.frame != SENSIM_FRAME_ISO8855)
        return sensim__fail(SENSIM_ERR_INVALID_ARGUMENT,
                            "%s: glTF/Assimp files carry their own frame (y-up, converted to z-up): load them with "
                            "the native frame",
                            path);
    float scale = o.scale == 0 ? 1.0f : o.scale;
    if (!(scale > 0 && scale <= 1e6f))
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: scale %g outside (0, 1e6]", path, (double)scale);
    /* the same file checks as the other loaders: a regular file within the size limit (the helper checks
     * the files this one references the same way) */
    struct stat sb;
    if (stat(path, &sb) != 0)
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return sensim__fail(SENSIM_ERR_IO, "%s: not a regular file", path);
    uint64_t maxb = sensim__load_max_bytes(&o);
    if ((uint64_t)sb.st_size > maxb)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: %lld bytes exceed the limit of %llu", path,
                            (long long)sb.st_size, (unsigned long long)maxb);
    sensim_tag_rule *rules = NULL;
    uint32_t nrules = 0;
    sensim_status st;
    if (o.tag_map_file && (st = sensim__tag_rules_load(o.tag_map_file, &rules, &nrules)) != SENSIM_OK)
        return st;
    unsigned char *answer = NULL;
    size_t answer_len = 0;
    imp sc;
    memset(&sc, 0, sizeof sc);
    const unsigned long long fb = (unsigned long long)sb.st_size;
    if ((st = sensim__helper_run("sensim-assimp", "Assimp", path, maxb, mem_budget(fb), cpu_budget(fb),
                                 answer_budget(fb), &answer, &answer_len)) != SENSIM_OK ||
        (st = parse_answer(path, answer, answer_len, &sc)) != SENSIM_OK) {
        imp_free(&sc);
        free(answer);
        free(rules);
        return st;
    }
    const double unit = sc.unit;
    uint32_t *refs = calloc(sc.nmesh ? sc.nmesh : 1, sizeof *refs);
    if (!refs) {
        imp_free(&sc);
        free(answer);
        free(rules);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    for (uint32_t i = 0; i < sc.nplace; i++)
        if (sc.place[i].mesh < sc.nmesh)
            refs[sc.place[i].mesh]++;
    const double s = (double)scale * unit;
    double S[16] = {s, 0, 0, 0, 0, s, 0, 0, 0, 0, s, 0, 0, 0, 0, 1}, SC[16];
    mul(S, YUP_TO_ZUP, SC); /* file -> native: scale after the axis change */
    uint32_t *proto_id = malloc((sc.nmesh ? sc.nmesh : 1) * sizeof *proto_id);
    uint8_t *tex_done = calloc(sc.nmat ? sc.nmat : 1, 1);
    uint32_t *tex_of = calloc(sc.nmat ? sc.nmat : 1, sizeof *tex_of); /* per material: its scene texture */
    if (!tex_done || !tex_of) {
        free(proto_id);
        proto_id = NULL;
    }
    out_mesh stat = {0};
    st = proto_id ? sensim__scene_edit_begin(scene) : sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    if (st == SENSIM_OK) {
        sensim_scene_mark mark;
        sensim__scene_mark(scene, &mark);
        uint32_t first_id = UINT32_MAX, tex_skipped = 0;
        for (uint32_t k = 0; k < sc.nmesh; k++)
            proto_id[k] = UINT32_MAX;
        char mname[256];
        for (uint32_t i = 0; i < sc.nplace && st == SENSIM_OK; i++) {
            const imp_place *p = &sc.place[i];
            if (p->mesh >= sc.nmesh)
                continue;
            const imp_mesh *am = &sc.mesh[p->mesh];
            if (!am->has_tri)
                continue; /* points and lines only */
            const char *matn = material_name(&sc, am->material, mname, sizeof mname);
            uint8_t tag = (uint8_t)tag_for(matn, p->node, am->name, rules, nrules, o.default_tag);
            uint16_t mat = 0;
            if (matn[0] && (st = sensim__scene_material_for_name(scene, matn, &mat)) != SENSIM_OK)
                break;
            int e = 0;
            if (matn[0] && mat && !tex_done[am->material]) { /* the material's look for cameras, once */
                tex_done[am->material] = 1;
                const imp_mat *amat = &sc.mat[am->material];
                sensim_appearance ap;
                memset(&ap, 0, sizeof ap);
                int have = 0;
                ap.base_color[0] = ap.base_color[1] = ap.base_color[2] = 1;
                if (amat->has) {
                    const float *c = amat->rgba;
                    ap.base_color[0] = c[0] < 0 ? 0 : c[0] > 1 ? 1 : c[0];
                    ap.base_color[1] = c[1] < 0 ? 0 : c[1] > 1 ? 1 : c[1];
                    ap.base_color[2] = c[2] < 0 ? 0 : c[2] > 1 ? 1 : c[2];
                    have = ap.base_color[0] == ap.base_color[0] && ap.base_color[1] == ap.base_color[1] &&
                           ap.base_color[2] == ap.base_color[2];
                    if (!have)
                        ap.base_color[0] = ap.base_color[1] = ap.base_color[2] = 1;
                }
                /* a texture several materials name is decoded and held once (the first such material's) */
                uint32_t tex = 0;
                for (uint32_t k = 0; k < sc.nmat && !tex && amat->tex[0]; k++)
                    if (tex_of[k] && tex_of[k] != UINT32_MAX && !strcmp(sc.mat[k].tex, amat->tex))
                        tex = tex_of[k];
                if (!tex) {
                    uint8_t *texels = NULL;
                    uint32_t tw = 0, th = 0;
                    char why[600] = "";
                    int got = material_texture(&sc, amat, path, &texels, &tw, &th, why, sizeof why);
                    if (got > 0) {
                        st = sensim__scene_add_texture_locked(scene, tw, th, texels, &tex);
                        if (st == SENSIM_ERR_TOO_LARGE) /* past the scene's texture budget: skipped, counted */
                            st = SENSIM_OK, tex = 0, got = -1, snprintf(why, sizeof why, "past the scene's texel budget");
                    }
                    free(texels); /* the scene copied it */
                    if (got < 0) { /* the load goes on; the log names the texture (the count alone did not) */
                        tex_skipped++;
                        sensim__log(scene->ctx, SENSIM_LOG_WARN, "%s: material '%s': texture '%s' not used: %s", path,
                                    matn, amat->tex, why);
                    }
                    if (st != SENSIM_OK)
                        break;
                }
                tex_of[am->material] = tex ? tex : UINT32_MAX;
                have |= tex != 0;
                if (have && (st = sensim__scene_set_appearance_tex_locked(scene, mat, &ap, tex)) != SENSIM_OK)
                    break;
            }
            if (refs[p->mesh] == 1 || (o.flags & SENSIM_MESH_PROTOTYPE)) { /* baked into the file's mesh */
                double xf[16];
                mul(SC, p->m, xf);
                e = append(&stat, am, xf, tag, mat);
            } else { /* a prototype in native axes, placed at each node */
                if (proto_id[p->mesh] == UINT32_MAX) {
                    out_mesh pm = {0};
                    e = append(&pm, am, SC, tag, mat);
                    if (!e && pm.nt == 0) {
                        out_free(&pm);
                        continue;
                    }
                    if (!e && (st = commit_mesh(scene, &pm, SENSIM_MESH_PROTOTYPE, &proto_id[p->mesh])) != SENSIM_OK)
                        break;
                    out_free(&pm);
                    if (first_id == UINT32_MAX)
                        first_id = proto_id[p->mesh];
                }
                if (!e) {
                    /* native pose = (S·C)·G·(S·C)^-1: rotation and scale of C·G·C^-1, translation S·C·t */
                    double cg[16], pose[16];
                    mul(SC, p->m, cg);
                    double inv[16];
                    mul(ZUP_TO_YUP, (double[16]){1 / s, 0, 0, 0, 0, 1 / s, 0, 0, 0, 0, 1 / s, 0, 0, 0, 0, 1}, inv);
                    mul(cg, inv, pose);
                    pose[3] = pose[7] = pose[11] = 0, pose[15] = 1;
                    st = sensim__scene_add_instance_locked(scene, proto_id[p->mesh], pose);
                }
            }
            if (e == -1)
                st = sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: more than %u vertices or triangles in one mesh", path,
                                  (unsigned)MAX_ELEMS);
            else if (e == -2)
                st = sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
            else if (e == -3)
                st = sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: mesh '%s' at node '%s': a vertex is NaN or beyond "
                                  "1e9 m", path, am->name, p->node);
            else if (e == -4)
                st = sensim__fail(SENSIM_ERR_BAD_INDEX, "%s: mesh '%s': a face index beyond its vertices", path,
                                  am->name);
        }
        if (st == SENSIM_OK && stat.nt > 0) {
            uint32_t id;
            if ((st = commit_mesh(scene, &stat, o.flags & SENSIM_MESH_PROTOTYPE, &id)) == SENSIM_OK)
                first_id = id; /* the static mesh is the load's answer when there is one */
        }
        if (st == SENSIM_OK && first_id == UINT32_MAX)
            st = sensim__fail(SENSIM_ERR_EMPTY, "%s: no triangles", path);
        if (st == SENSIM_OK && out_mesh_id)
            *out_mesh_id = first_id;
        if (st == SENSIM_OK)
            scene->tex_skipped += tex_skipped;
        if (st != SENSIM_OK)
            sensim__scene_rollback(scene, &mark);
        sensim__scene_edit_end(scene);
    }
    out_free(&stat);
    free(proto_id);
    free(tex_done);
    free(tex_of);
    free(refs);
    imp_free(&sc);
    free(answer);
    free(rules);
    return st;
}
