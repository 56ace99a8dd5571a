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
 * it was. */
#include "internal.h"
#include "scene_impl.h"

#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/metadata.h>
#include <assimp/texture.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_DEPTH 256
#define MAX_ELEMS (1u << 30) /* vertices or triangles in one mesh, as add_mesh allows */
#define MAX_NODES (1u << 22)

typedef struct placement {
    uint32_t mesh;      /* aiScene mesh index */
    double m[16];       /* node-to-file transform, column-major (y-up file frame) */
    const char *node;   /* node name */
} placement;

typedef struct walk {
    placement *p;
    size_t n, cap;
    size_t nodes;
    int bad;
} walk;

static void mat_from_ai(const struct aiMatrix4x4 *a, double out[16])
{
    /* aiMatrix4x4 is row-major: a1 a2 a3 a4 is the first row */
    const double r[16] = {a->a1, a->a2, a->a3, a->a4, a->b1, a->b2, a->b3, a->b4,
                          a->c1, a->c2, a->c3, a->c4, a->d1, a->d2, a->d3, a->d4};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            out[4 * j + i] = r[4 * i + j];
}

static void mul(const double a[16], const double b[16], double o[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            o[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] + a[12 + r] * b[4 * c + 3];
}

static void visit(const struct aiNode *node, const double parent[16], int depth, walk *w)
{
    if (!node || w->bad)
        return;
    if (depth > MAX_DEPTH || ++w->nodes > MAX_NODES) {
        w->bad = 1;
        return;
    }
    double local[16], g[16];
    mat_from_ai(&node->mTransformation, local);
    mul(parent, local, g);
    for (unsigned i = 0; i < node->mNumMeshes; i++) {
        if (w->n == w->cap) {
            size_t c = w->cap ? 2 * w->cap : 64;
            placement *q = realloc(w->p, c * sizeof *q);
            if (!q) {
                w->bad = 2;
                return;
            }
            w->p = q, w->cap = c;
        }
        placement *p = &w->p[w->n++];
        p->mesh = node->mMeshes[i];
        memcpy(p->m, g, sizeof g);
        p->node = node->mName.data;
    }
    for (unsigned i = 0; i < node->mNumChildren; i++)
        visit(node->mChildren[i], g, depth + 1, w);
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

static const char *material_name(const struct aiScene *sc, unsigned idx, char *buf, size_t cap)
{
    buf[0] = 0;
    if (idx >= sc->mNumMaterials)
        return buf;
    struct aiString s;
    if (aiGetMaterialString(sc->mMaterials[idx], AI_MATKEY_NAME, &s) == aiReturn_SUCCESS)
        snprintf(buf, cap, "%.255s", s.data);
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

static int append(out_mesh *o, const struct aiMesh *am, const double xf[16], uint8_t tag, uint16_t mat)
{
    size_t ntri = 0;
    for (unsigned f = 0; f < am->mNumFaces; f++)
        ntri += am->mFaces[f].mNumIndices == 3;
    if (o->nv + am->mNumVertices > MAX_ELEMS || o->nt + ntri > MAX_ELEMS)
        return -1;
    if (o->nv + am->mNumVertices + 2 > o->capv) {
        size_t c = (o->nv + am->mNumVertices + 2) * 2;
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
    const struct aiVector3D *tc = am->mTextureCoords[0];
    if (tc && !o->uvs) { /* the first mesh with UVs: the triangles before it have none */
        if (!(o->uvs = malloc(6 * o->capt * sizeof *o->uvs)))
            return -2;
        for (size_t k = 0; k < 6 * o->nt; k++)
            o->uvs[k] = NAN;
    }
    size_t base = o->nv;
    for (unsigned k = 0; k < am->mNumVertices; k++) {
        const struct aiVector3D *p = &am->mVertices[k];
        double x = p->x, y = p->y, z = p->z;
        double w[3];
        for (int r = 0; r < 3; r++)
            w[r] = xf[r] * x + xf[4 + r] * y + xf[8 + r] * z + xf[12 + r];
        if (!finite_coord(w[0]) || !finite_coord(w[1]) || !finite_coord(w[2]))
            return -3;
        for (int r = 0; r < 3; r++)
            o->v[3 * (base + k) + r] = (float)w[r];
    }
    o->nv += am->mNumVertices;
    for (unsigned f = 0; f < am->mNumFaces; f++) {
        const struct aiFace *fc = &am->mFaces[f];
        if (fc->mNumIndices != 3)
            continue;
        for (int r = 0; r < 3; r++) {
            if (fc->mIndices[r] >= am->mNumVertices)
                return -4;
            o->idx[3 * o->nt + (size_t)r] = (uint32_t)(base + fc->mIndices[r]);
        }
        o->tags[o->nt] = tag;
        o->mats[o->nt] = mat;
        if (o->uvs)
            for (int r = 0; r < 3; r++) {
                float u = tc ? tc[fc->mIndices[r]].x : NAN, v = tc ? tc[fc->mIndices[r]].y : NAN;
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
 * textures ("*N", GLB) are PNG bytes or raw BGRA texels; others are files
 * relative to the scene file's folder. */
static int material_texture(const struct aiScene *sc, const struct aiMaterial *amat, const char *scene_path,
                            uint8_t **out, uint32_t *w, uint32_t *h)
{
    struct aiString tp;
    *out = NULL, *w = *h = 0;
    if (aiGetMaterialTexture(amat, aiTextureType_BASE_COLOR, 0, &tp, NULL, NULL, NULL, NULL, NULL, NULL) !=
            aiReturn_SUCCESS &&
        aiGetMaterialTexture(amat, aiTextureType_DIFFUSE, 0, &tp, NULL, NULL, NULL, NULL, NULL, NULL) !=
            aiReturn_SUCCESS)
        return 0;
    const char *name = tp.data;
    if (name[0] == '*') { /* embedded */
        char *end;
        unsigned long k = strtoul(name + 1, &end, 10);
        if (*end || end == name + 1 || k >= sc->mNumTextures || !sc->mTextures[k])
            return -1;
        const struct aiTexture *t = sc->mTextures[k];
        if (t->mHeight == 0) /* compressed: mWidth bytes of a file */
            return sensim__png_decode_rgb(scene_path, t->pcData, t->mWidth, w, h, out) == SENSIM_OK ? 1 : -1;
        if (t->mWidth < 1 || t->mWidth > 16384 || t->mHeight > 16384 || !t->pcData)
            return -1;
        uint8_t *rgb = malloc((size_t)t->mWidth * t->mHeight * 3);
        if (!rgb)
            return -1;
        for (size_t p = 0; p < (size_t)t->mWidth * t->mHeight; p++) /* aiTexel is b, g, r, a */
            rgb[3 * p] = t->pcData[p].r, rgb[3 * p + 1] = t->pcData[p].g, rgb[3 * p + 2] = t->pcData[p].b;
        *out = rgb, *w = t->mWidth, *h = t->mHeight;
        return 1;
    }
    char full[4096];
    const char *slash = strrchr(scene_path, '/');
    if (name[0] == '/' || !slash)
        snprintf(full, sizeof full, "%s", name);
    else
        snprintf(full, sizeof full, "%.*s/%s", (int)(slash - scene_path), scene_path, name);
    return sensim__png_read_rgb(full, w, h, out) == SENSIM_OK ? 1 : -1;
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
    /* the same file checks as the other loaders: a regular file within the size limit */
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
    const struct aiScene *sc = aiImportFile(path, aiProcess_Triangulate | aiProcess_SortByPType |
                                                      aiProcess_ValidateDataStructure);
    if (!sc || !sc->mRootNode) {
        free(rules);
        return sensim__fail(SENSIM_ERR_PARSE, "%s: %s", path, aiGetErrorString());
    }
    /* unit: FBX says how many cm a unit is */
    double unit = 1.0;
    const struct aiMetadata *md = sc->mMetaData;
    for (unsigned i = 0; md && i < md->mNumProperties; i++) {
        if (strcmp(md->mKeys[i].data, "UnitScaleFactor") || !md->mValues[i].mData)
            continue;
        double f = md->mValues[i].mType == AI_DOUBLE ? *(const double *)md->mValues[i].mData
                   : md->mValues[i].mType == AI_FLOAT ? *(const float *)md->mValues[i].mData
                                                      : 0;
        if (f > 0 && f < 1e6)
            unit = f / 100.0;
    }
    walk w = {0};
    static const double ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    visit(sc->mRootNode, ident, 0, &w);
    uint32_t *refs = calloc(sc->mNumMeshes ? sc->mNumMeshes : 1, sizeof *refs);
    if (w.bad || !refs) {
        free(refs);
        free(w.p);
        aiReleaseImport(sc);
        free(rules);
        return w.bad == 1 ? sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: node tree deeper than %d or over %u nodes", path,
                                         MAX_DEPTH, MAX_NODES)
                          : sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    for (size_t i = 0; i < w.n; i++)
        if (w.p[i].mesh < sc->mNumMeshes)
            refs[w.p[i].mesh]++;
    const double s = (double)scale * unit;
    double S[16] = {s, 0, 0, 0, 0, s, 0, 0, 0, 0, s, 0, 0, 0, 0, 1}, SC[16];
    mul(S, YUP_TO_ZUP, SC); /* file -> native: scale after the axis change */
    uint32_t *proto_id = malloc((sc->mNumMeshes ? sc->mNumMeshes : 1) * sizeof *proto_id);
    uint8_t *tex_done = calloc(sc->mNumMaterials ? sc->mNumMaterials : 1, 1);
    if (!tex_done) {
        free(proto_id);
        proto_id = NULL;
    }
    out_mesh stat = {0};
    st = proto_id ? sensim__scene_edit_begin(scene) : sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    if (st == SENSIM_OK) {
        sensim_scene_mark mark;
        sensim__scene_mark(scene, &mark);
        uint32_t first_id = UINT32_MAX, tex_skipped = 0;
        for (unsigned k = 0; k < sc->mNumMeshes; k++)
            proto_id[k] = UINT32_MAX;
        char mname[256];
        for (size_t i = 0; i < w.n && st == SENSIM_OK; i++) {
            const placement *p = &w.p[i];
            if (p->mesh >= sc->mNumMeshes)
                continue;
            const struct aiMesh *am = sc->mMeshes[p->mesh];
            if (!(am->mPrimitiveTypes & aiPrimitiveType_TRIANGLE))
                continue; /* points and lines only */
            const char *matn = material_name(sc, am->mMaterialIndex, mname, sizeof mname);
            uint8_t tag = (uint8_t)tag_for(matn, p->node, am->mName.data, rules, nrules, o.default_tag);
            uint16_t mat = 0;
            if (matn[0] && (st = sensim__scene_material_for_name(scene, matn, &mat)) != SENSIM_OK)
                break;
            int e = 0;
            if (matn[0] && mat && !tex_done[am->mMaterialIndex]) { /* the material's look for cameras, once */
                tex_done[am->mMaterialIndex] = 1;
                struct aiColor4D c;
                sensim_appearance ap;
                memset(&ap, 0, sizeof ap);
                const struct aiMaterial *amat = sc->mMaterials[am->mMaterialIndex];
                int have = 0;
                ap.base_color[0] = ap.base_color[1] = ap.base_color[2] = 1;
                if (aiGetMaterialColor(amat, AI_MATKEY_BASE_COLOR, &c) == aiReturn_SUCCESS ||
                    aiGetMaterialColor(amat, AI_MATKEY_COLOR_DIFFUSE, &c) == aiReturn_SUCCESS) {
                    ap.base_color[0] = c.r < 0 ? 0 : c.r > 1 ? 1 : c.r;
                    ap.base_color[1] = c.g < 0 ? 0 : c.g > 1 ? 1 : c.g;
                    ap.base_color[2] = c.b < 0 ? 0 : c.b > 1 ? 1 : c.b;
                    have = ap.base_color[0] == ap.base_color[0] && ap.base_color[1] == ap.base_color[1] &&
                           ap.base_color[2] == ap.base_color[2];
                    if (!have)
                        ap.base_color[0] = ap.base_color[1] = ap.base_color[2] = 1;
                }
                uint8_t *texels = NULL;
                if (material_texture(sc, amat, path, &texels, &ap.texture_width, &ap.texture_height) < 0)
                    tex_skipped++;
                ap.texture = texels;
                have |= texels != NULL;
                if (have && (st = sensim__scene_set_appearance_locked(scene, mat, &ap)) != SENSIM_OK) {
                    free(texels);
                    break;
                }
                free(texels); /* the scene copied it */
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
                                  "1e9 m", path, am->mName.data, p->node);
            else if (e == -4)
                st = sensim__fail(SENSIM_ERR_BAD_INDEX, "%s: mesh '%s': a face index beyond its vertices", path,
                                  am->mName.data);
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
    free(refs);
    free(w.p);
    free(rules);
    aiReleaseImport(sc);
    return st;
}
