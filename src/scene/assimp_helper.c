/* sensim-assimp: imports one scene file with Assimp in a process of its own
 * and writes what libsensim needs of it on stdout (assimp_wire.h).
 *
 * libsensim runs it for every glTF/FBX/COLLADA/... load, so that a file that
 * crashes Assimp (deep nesting overflowing the stack, out-of-range accessors),
 * exhausts memory (zip and node-DAG bombs) or spins (declared counts) takes
 * down this process, not the host simulator. Its limits, set here before
 * anything is parsed:
 *   - address space MEM_LIMIT bytes (not under AddressSanitizer, whose
 *     shadow memory needs terabytes of it), no core files;
 *   - CPU_SECONDS of CPU time (SIGXCPU past it);
 *   - an error Assimp logs (it repairs some and goes on: an index out of range
 *     replaced) fails the load, naming it;
 *   - every file Assimp opens (the scene and whatever it references: glTF
 *     buffers and images, MTL, ...) is opened without blocking and must be a
 *     regular file of at most MAX_FILE_BYTES: a FIFO, a device or a
 *     directory is refused by name.
 *
 * Usage: sensim-assimp FILE MAX_FILE_BYTES MEM_LIMIT CPU_SECONDS
 * Exit 0 after the END record, 1 after an ERROR record, 64 for bad
 * arguments. Not a user command: installed in libexecdir/sensim. */
#include "assimp_wire.h"
#include "helper_child.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>

#include <sensim/common.h>

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/material.h>
#include <assimp/metadata.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <assimp/texture.h>

#include <jansson.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static FILE *out;
static char assimp_error[600]; /* the first error Assimp logged (it may repair and go on: we do not) */

static void on_log(const char *msg, char *user)
{
    (void)user;
    if (!assimp_error[0] && !strncmp(msg, "Error,", 6)) {
        const char *m = msg + 6;
        while (*m == ' ')
            m++;
        if (!strncmp(m, "T0: ", 4))
            m += 4;
        /* a repair that changes nothing we read: a mesh without a material gets Assimp's default
         * one, which we load as any material without a name we know (the default reflectivity) */
        if (strstr(m, "no material assigned to mesh, setting default material"))
            return;
        snprintf(assimp_error, sizeof assimp_error, "%s", m);
        size_t n = strlen(assimp_error);
        while (n && (assimp_error[n - 1] == '\n' || assimp_error[n - 1] == '\r'))
            assimp_error[--n] = 0;
    }
}
static const char *scene_path; /* the file asked for: a referenced file's message names it too */
static unsigned long long max_file_bytes;
static char refused[1300]; /* why the last file Assimp asked for was refused */

static void put(const void *p, size_t n)
{
    if (n && fwrite(p, 1, n, out) != n)
        exit(1); /* the reader went away */
}

static void rec(uint32_t type, uint64_t len)
{
    put(&type, 4);
    put(&len, 8);
}

static void put_u32(uint32_t v) { put(&v, 4); }

static void put_name(const char *s)
{
    size_t n = strlen(s);
    uint16_t k = (uint16_t)(n > SENSIM_WIRE_MAX_NAME ? SENSIM_WIRE_MAX_NAME : n);
    put(&k, 2);
    put(s, k);
}

static size_t name_len(const char *s)
{
    size_t n = strlen(s);
    return 2 + (n > SENSIM_WIRE_MAX_NAME ? SENSIM_WIRE_MAX_NAME : n);
}

static void fail(int status, const char *fmt, ...)
{
    char msg[1500];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n >= sizeof msg ? sizeof msg - 1 : (size_t)n;
    rec(SENSIM_WIRE_ERROR, 4 + len);
    put_u32((uint32_t)status);
    put(msg, len);
    fflush(out);
    exit(1);
}

/* ---- files Assimp opens: non-blocking, regular, within the size limit ---- */

static size_t f_read(struct aiFile *f, char *buf, size_t size, size_t count)
{
    return fread(buf, size, count, (FILE *)f->UserData);
}
static size_t f_write(struct aiFile *f, const char *buf, size_t size, size_t count) { return 0; }
static size_t f_tell(struct aiFile *f) { return (size_t)ftell((FILE *)f->UserData); }
static size_t f_size(struct aiFile *f)
{
    struct stat sb;
    return fstat(fileno((FILE *)f->UserData), &sb) == 0 ? (size_t)sb.st_size : 0;
}
static void f_flush(struct aiFile *f) {}
static enum aiReturn f_seek(struct aiFile *f, size_t off, enum aiOrigin origin)
{
    int whence = origin == aiOrigin_SET ? SEEK_SET : origin == aiOrigin_CUR ? SEEK_CUR : SEEK_END;
    if (off > (size_t)INT64_MAX)
        return aiReturn_FAILURE;
    return fseeko((FILE *)f->UserData, (off_t)off, whence) == 0 ? aiReturn_SUCCESS : aiReturn_FAILURE;
}

/* "SCENE: references REF" for a file the scene names, "SCENE" for itself */
static const char *who(const char *path, char *buf, size_t cap)
{
    if (!strcmp(path, scene_path))
        snprintf(buf, cap, "%.1000s", path);
    else
        snprintf(buf, cap, "%.500s: references %.500s", scene_path, path);
    return buf;
}

static struct aiFile *f_open(struct aiFileIO *io, const char *path, const char *mode)
{
    char w[1100];
    if (strpbrk(mode, "wa+")) {
        snprintf(refused, sizeof refused, "%s: the importer asked to write it (refused)", who(path, w, sizeof w));
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(refused, sizeof refused, "%s: cannot open: %s", who(path, w, sizeof w), strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(refused, sizeof refused, "%s: not a regular file (%s)", who(path, w, sizeof w),
                 S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISDIR(sb.st_mode) ? "a directory" : "a device or socket");
        close(fd);
        return NULL;
    }
    if ((unsigned long long)sb.st_size > max_file_bytes) {
        snprintf(refused, sizeof refused, "%s: %lld bytes exceed the limit of %llu", who(path, w, sizeof w),
                 (long long)sb.st_size, max_file_bytes);
        close(fd);
        return NULL;
    }
    FILE *fp = fdopen(fd, "rb");
    struct aiFile *f = calloc(1, sizeof *f);
    if (!fp || !f) {
        if (fp)
            fclose(fp);
        else
            close(fd);
        free(f);
        return NULL;
    }
    f->ReadProc = f_read, f->WriteProc = f_write, f->TellProc = f_tell, f->FileSizeProc = f_size;
    f->SeekProc = f_seek, f->FlushProc = f_flush, f->UserData = (aiUserData)fp;
    return f;
}

static void f_close(struct aiFileIO *io, struct aiFile *f)
{
    if (f) {
        fclose((FILE *)f->UserData);
        free(f);
    }
}

/* ---- glTF: the parts Assimp's messages do not name ----
 * Assimp says "No suitable reader found" for a truncated .gltf, "Invalid byteLength exceeds size of actual
 * data" for a short buffer file and "Accessor with offset/length (0/400) is out of range" without naming
 * buffer, view or accessor. The JSON is read here first (Jansson: line and column of a syntax error) and
 * the references checked by index; only a lower bound of each size is checked (padding and strides only add
 * to it), so no file Assimp reads is refused. Missing and irregular files are left to the file hooks above,
 * which name them. */

static char json_error[1400]; /* why Jansson refused the file's JSON */

static json_int_t jidx(json_t *o, const char *key) /* a non-negative integer member, else -1 */
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? json_integer_value(v) : -1;
}

static json_t *jarr(json_t *root, const char *key, size_t *n)
{
    json_t *a = json_object_get(root, key);
    *n = json_is_array(a) ? json_array_size(a) : 0;
    return a;
}

static void check_gltf_json(const char *path, json_t *root, long long bin_len)
{
    size_t nb, nv, na, nm, ni, nt;
    json_t *buffers = jarr(root, "buffers", &nb), *views = jarr(root, "bufferViews", &nv);
    json_t *accs = jarr(root, "accessors", &na), *meshes = jarr(root, "meshes", &nm);
    json_t *images = jarr(root, "images", &ni), *textures = jarr(root, "textures", &nt);
    char dir[1100];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    for (size_t i = 0; i < nb; i++) {
        json_t *b = json_array_get(buffers, i);
        json_int_t want = jidx(b, "byteLength");
        const char *uri = json_string_value(json_object_get(b, "uri"));
        if (want < 0)
            continue;
        if (!uri) { /* a GLB's BIN chunk */
            if (bin_len >= 0 && want > bin_len)
                fail(SENSIM_ERR_PARSE, "%s: buffer %zu (the GLB's BIN chunk): %lld bytes, its byteLength says %lld "
                     "(truncated?)", path, i, bin_len, (long long)want);
            continue;
        }
        if (!strncmp(uri, "data:", 5) || strchr(uri, '%'))
            continue; /* decoded by Assimp */
        char full[2300];
        snprintf(full, sizeof full, uri[0] == '/' ? "%.0s%.1100s" : "%.1100s/%.1100s", dir, uri);
        struct stat sb;
        if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode) && (long long)sb.st_size < (long long)want)
            fail(SENSIM_ERR_PARSE, "%s: buffer %zu (%.500s): %lld bytes, its byteLength says %lld (truncated?)", path,
                 i, uri, (long long)sb.st_size, (long long)want);
    }
    for (size_t i = 0; i < nv; i++) {
        json_t *v = json_array_get(views, i);
        json_int_t b = jidx(v, "buffer"), off = jidx(v, "byteOffset"), len = jidx(v, "byteLength");
        if (json_object_get(v, "buffer") && (b < 0 || (size_t)b >= nb))
            fail(SENSIM_ERR_PARSE, "%s: bufferView %zu names buffer %lld; the file has %zu", path, i, (long long)b,
                 nb);
        json_int_t blen = b >= 0 ? jidx(json_array_get(buffers, (size_t)b), "byteLength") : -1;
        off = off < 0 ? 0 : off;
        if (blen >= 0 && len >= 0 && (off > blen || len > blen - off))
            fail(SENSIM_ERR_PARSE, "%s: bufferView %zu: bytes %lld..%lld, beyond buffer %lld's byteLength %lld", path,
                 i, (long long)off, (long long)off + (long long)len, (long long)b, (long long)blen);
    }
    for (size_t i = 0; i < na; i++) {
        json_t *a = json_array_get(accs, i);
        if (!json_object_get(a, "bufferView"))
            continue; /* zeros, or sparse only */
        json_int_t v = jidx(a, "bufferView"), off = jidx(a, "byteOffset"), count = jidx(a, "count");
        if (v < 0 || (size_t)v >= nv)
            fail(SENSIM_ERR_PARSE, "%s: accessor %zu names bufferView %lld; the file has %zu", path, i, (long long)v,
                 nv);
        json_int_t ct = jidx(a, "componentType");
        const char *type = json_string_value(json_object_get(a, "type"));
        int comp = ct == 5120 || ct == 5121 ? 1 : ct == 5122 || ct == 5123 ? 2 : ct == 5125 || ct == 5126 ? 4 : 0;
        static const char *const types[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
        static const int ncomp[] = {1, 2, 3, 4, 4, 9, 16};
        int k = 0;
        for (int t = 0; type && t < 7; t++)
            k = strcmp(type, types[t]) ? k : ncomp[t];
        json_t *view = json_array_get(views, (size_t)v);
        json_int_t vlen = jidx(view, "byteLength"), stride = jidx(view, "byteStride");
        if (!comp || !k || count < 1 || vlen < 0 || count > ((json_int_t)1 << 40))
            continue; /* Assimp's to say */
        long long elem = (long long)comp * k, st = stride > elem ? (long long)stride : elem;
        long long need = (off < 0 ? 0 : (long long)off) + ((long long)count - 1) * st + elem;
        if (need > (long long)vlen)
            fail(SENSIM_ERR_PARSE, "%s: accessor %zu (%lld x %s): needs %lld bytes of bufferView %lld, which has "
                 "%lld", path, i, (long long)count, type, need, (long long)v, (long long)vlen);
    }
    for (size_t m = 0; m < nm; m++) {
        size_t np;
        json_t *prims = jarr(json_array_get(meshes, m), "primitives", &np);
        for (size_t p = 0; p < np; p++) {
            json_t *pr = json_array_get(prims, p), *attrs = json_object_get(pr, "attributes"), *val;
            const char *key;
            json_object_foreach(attrs, key, val)
            {
                json_int_t a = json_is_integer(val) ? json_integer_value(val) : -1;
                if (a < 0 || (size_t)a >= na)
                    fail(SENSIM_ERR_PARSE, "%s: mesh %zu primitive %zu: attribute %.100s names accessor %lld; the "
                         "file has %zu", path, m, p, key, (long long)a, na);
            }
            json_int_t ix = jidx(pr, "indices");
            if (json_object_get(pr, "indices") && (ix < 0 || (size_t)ix >= na))
                fail(SENSIM_ERR_PARSE, "%s: mesh %zu primitive %zu: indices name accessor %lld; the file has %zu",
                     path, m, p, (long long)ix, na);
        }
    }
    for (size_t i = 0; i < nt; i++) {
        json_t *t = json_array_get(textures, i);
        json_int_t src = jidx(t, "source");
        if (json_object_get(t, "source") && (src < 0 || (size_t)src >= ni))
            fail(SENSIM_ERR_PARSE, "%s: texture %zu names image %lld; the file has %zu", path, i, (long long)src, ni);
    }
    for (size_t i = 0; i < ni; i++) {
        json_t *im = json_array_get(images, i);
        json_int_t v = jidx(im, "bufferView");
        if (json_object_get(im, "bufferView") && (v < 0 || (size_t)v >= nv))
            fail(SENSIM_ERR_PARSE, "%s: image %zu names bufferView %lld; the file has %zu", path, i, (long long)v, nv);
    }
}

static uint32_t le32(const unsigned char *p) { return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static void check_gltf(const char *path)
{
    const char *dot = strrchr(path, '.');
    int glb = dot && !strcasecmp(dot, ".glb");
    if (!dot || (!glb && strcasecmp(dot, ".gltf")))
        return;
    FILE *f = fopen(path, "rb");
    struct stat sb;
    if (!f || fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) || (unsigned long long)sb.st_size > max_file_bytes) {
        if (f)
            fclose(f);
        return; /* the file hooks say why */
    }
    size_t n = (size_t)sb.st_size;
    unsigned char *d = malloc(n ? n : 1);
    if (!d || fread(d, 1, n, f) != n) {
        free(d);
        fclose(f);
        return;
    }
    fclose(f);
    const char *text = (const char *)d;
    size_t tlen = n;
    long long bin_len = -1;
    if (glb) { /* header (magic, version, length), chunk JSON, then chunk BIN */
        if (n < 20 || memcmp(d, "glTF", 4) || le32(d + 16) != 0x4E4F534Au || le32(d + 12) > n - 20) {
            free(d);
            return; /* Assimp's to say */
        }
        tlen = le32(d + 12), text = (const char *)d + 20;
        size_t at = 20 + tlen;
        if (at + 8 <= n && le32(d + at + 4) == 0x004E4942u)
            bin_len = (long long)(le32(d + at) <= n - at - 8 ? le32(d + at) : n - at - 8);
    }
    json_error_t e;
    json_t *root = json_loadb(text, tlen, 0, &e);
    if (!root) {
        /* a cut file is refused here; Jansson's other complaints (a number past double, trailing bytes) may be
         * JSON Assimp's reader takes: said only if Assimp fails too ("No suitable reader found" names nothing) */
        snprintf(json_error, sizeof json_error, "%s: %snot valid JSON at line %d, column %d (byte %d of %zu): %s",
                 path, glb ? "the JSON chunk is " : "", e.line, e.column, e.position, tlen, e.text);
        if (json_error_code(&e) == json_error_premature_end_of_input)
            fail(SENSIM_ERR_PARSE, "%s (the file is truncated)", json_error);
    }
    if (json_is_object(root))
        check_gltf_json(path, root, bin_len);
    json_decref(root);
    free(d);
}

/* ---- the node walk: placements of meshes, depth- and count-limited ---- */

static unsigned long nodes;

static void mat_from_ai(const struct aiMatrix4x4 *a, double o[16])
{
    /* aiMatrix4x4 is row-major: a1 a2 a3 a4 is the first row */
    const double r[16] = {a->a1, a->a2, a->a3, a->a4, a->b1, a->b2, a->b3, a->b4,
                          a->c1, a->c2, a->c3, a->c4, a->d1, a->d2, a->d3, a->d4};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            o[4 * j + i] = r[4 * i + j];
}

static void mul(const double a[16], const double b[16], double o[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            o[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] + a[12 + r] * b[4 * c + 3];
}

static uint32_t placements;

static void visit(const char *path, const struct aiNode *node, const double parent[16], int depth)
{
    if (!node)
        return;
    if (depth > SENSIM_WIRE_MAX_DEPTH || ++nodes > SENSIM_WIRE_MAX_NODES)
        fail(SENSIM_ERR_TOO_LARGE, "%s: node tree deeper than %d or over %u nodes", path, SENSIM_WIRE_MAX_DEPTH,
             SENSIM_WIRE_MAX_NODES);
    double local[16], g[16];
    mat_from_ai(&node->mTransformation, local);
    mul(parent, local, g);
    /* a transform that flattens (zero scale) or is not finite loses the geometry silently; a root that
     * mirrors the whole file is a COLLADA unit below zero */
    const double det = g[0] * (g[5] * g[10] - g[9] * g[6]) - g[4] * (g[1] * g[10] - g[9] * g[2]) +
                       g[8] * (g[1] * g[6] - g[5] * g[2]);
    if ((node->mNumMeshes || depth == 0) && !(fabs(det) > 1e-30 && fabs(det) < 1e30))
        fail(SENSIM_ERR_PARSE, "%s: node '%.200s': its transform is singular or not finite (determinant %g; a "
             "COLLADA <unit meter=\"0\">?)", path, node->mName.data, det);
    if (depth == 0 && det < 0)
        fail(SENSIM_ERR_PARSE, "%s: the root transform mirrors the whole file (determinant %g; a COLLADA unit "
             "below 0?)", path, det);
    for (unsigned i = 0; i < node->mNumMeshes; i++) {
        rec(SENSIM_WIRE_PLACEMENT, 4 + 128 + name_len(node->mName.data));
        put_u32(node->mMeshes[i]);
        put(g, sizeof g);
        put_name(node->mName.data);
        placements++;
    }
    for (unsigned i = 0; i < node->mNumChildren; i++)
        visit(path, node->mChildren[i], g, depth + 1);
}

static void send_material(const struct aiMaterial *m)
{
    struct aiString name, tex;
    name.length = 0, name.data[0] = 0, tex.length = 0, tex.data[0] = 0;
    aiGetMaterialString(m, AI_MATKEY_NAME, &name);
    struct aiColor4D c = {1, 1, 1, 1};
    uint32_t has = aiGetMaterialColor(m, AI_MATKEY_BASE_COLOR, &c) == aiReturn_SUCCESS ||
                   aiGetMaterialColor(m, AI_MATKEY_COLOR_DIFFUSE, &c) == aiReturn_SUCCESS;
    if (aiGetMaterialTexture(m, aiTextureType_BASE_COLOR, 0, &tex, NULL, NULL, NULL, NULL, NULL, NULL) !=
            aiReturn_SUCCESS &&
        aiGetMaterialTexture(m, aiTextureType_DIFFUSE, 0, &tex, NULL, NULL, NULL, NULL, NULL, NULL) != aiReturn_SUCCESS)
        tex.data[0] = 0;
    const float rgba[4] = {c.r, c.g, c.b, c.a};
    size_t tl = strlen(tex.data);
    uint16_t tk = (uint16_t)(tl > 1023 ? 1023 : tl);
    rec(SENSIM_WIRE_MATERIAL, 4 + 16 + name_len(name.data) + 2 + tk);
    put_u32(has);
    put(rgba, 16);
    put_name(name.data);
    put(&tk, 2);
    put(tex.data, tk);
}

static void send_mesh(const struct aiMesh *am)
{
    uint32_t ntri = 0;
    for (unsigned f = 0; f < am->mNumFaces; f++)
        ntri += am->mFaces[f].mNumIndices == 3;
    const struct aiVector3D *tc = am->mTextureCoords[0];
    const uint32_t nv = am->mNumVertices, has_tri = (am->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) != 0;
    uint64_t len = 20 + name_len(am->mName.data) + 12ull * nv + 12ull * ntri + (tc ? 8ull * nv : 0);
    rec(SENSIM_WIRE_MESH, len);
    put_u32(has_tri);
    put_u32(am->mMaterialIndex);
    put_u32(nv);
    put_u32(ntri);
    put_u32(tc != NULL);
    put_name(am->mName.data);
    for (uint32_t k = 0; k < nv; k++) {
        const float v[3] = {am->mVertices[k].x, am->mVertices[k].y, am->mVertices[k].z};
        put(v, 12);
    }
    for (unsigned f = 0; f < am->mNumFaces; f++)
        if (am->mFaces[f].mNumIndices == 3)
            put(am->mFaces[f].mIndices, 12);
    if (tc)
        for (uint32_t k = 0; k < nv; k++) {
            const float uv[2] = {tc[k].x, tc[k].y};
            put(uv, 8);
        }
}

static void send_texture(const struct aiTexture *t)
{
    if (!t || !t->pcData) {
        rec(SENSIM_WIRE_TEXTURE, 12);
        put_u32(0), put_u32(0), put_u32(0);
        return;
    }
    if (t->mHeight == 0) { /* compressed: mWidth bytes of an image file */
        rec(SENSIM_WIRE_TEXTURE, 12 + (uint64_t)t->mWidth);
        put_u32(0), put_u32(t->mWidth), put_u32(0);
        put(t->pcData, t->mWidth);
        return;
    }
    if (t->mWidth > 16384 || t->mHeight > 16384) { /* refused by the reader too: send nothing to decode */
        rec(SENSIM_WIRE_TEXTURE, 12);
        put_u32(1), put_u32(0), put_u32(0);
        return;
    }
    rec(SENSIM_WIRE_TEXTURE, 12 + 3ull * t->mWidth * t->mHeight);
    put_u32(1), put_u32(t->mWidth), put_u32(t->mHeight);
    for (size_t p = 0; p < (size_t)t->mWidth * t->mHeight; p++) { /* aiTexel is b, g, r, a */
        const unsigned char rgb[3] = {t->pcData[p].r, t->pcData[p].g, t->pcData[p].b};
        put(rgb, 3);
    }
}

int main(int argc, char **argv)
{
    int rc = sensim_helper_start(argc, argv, "sensim-assimp", &max_file_bytes);
    if (rc)
        return rc;
    out = stdout;
    static char obuf[1 << 16];
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    put(SENSIM_WIRE_MAGIC, 8);
    const char *path = scene_path = argv[1];
    struct aiLogStream log = {on_log, NULL};
    aiAttachLogStream(&log);
    struct aiFileIO io = {f_open, f_close, NULL};
    check_gltf(path);
    /* A file without geometry (a COLLADA of empty nodes, a BVH skeleton) is given a stand-in mesh by Assimp's
     * SkeletonMeshBuilder (8 triangles per node, material "SkeletonMaterial"), which loaded as geometry: off,
     * so such a file has no meshes and the loader refuses it as any file without triangles. */
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props)
        fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    const struct aiScene *sc = aiImportFileExWithProperties(
        path, aiProcess_Triangulate | aiProcess_SortByPType | aiProcess_ValidateDataStructure, &io, props);
    aiReleasePropertyStore(props);
    if (!sc || !sc->mRootNode) {
        if (refused[0])
            fail(SENSIM_ERR_IO, "%s", refused);
        if (json_error[0])
            fail(SENSIM_ERR_PARSE, "%s", json_error);
        const char *e = aiGetErrorString();
        int oom = e && (strstr(e, "bad_alloc") || strstr(e, "memory"));
        fail(oom ? SENSIM_ERR_TOO_LARGE : SENSIM_ERR_PARSE, "%s: %s%s", path, e && *e ? e : "not imported",
             oom ? " (the importer's memory budget)" : "");
    }
    if (assimp_error[0]) /* e.g. "OFF: Vertex index is out of range": Assimp replaced it and went on */
        fail(SENSIM_ERR_PARSE, "%s: the importer reported an error it would have repaired silently: %s", path,
             assimp_error);
    double unit = 1.0; /* FBX says how many cm a unit is */
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
    rec(SENSIM_WIRE_UNIT, 8);
    put(&unit, 8);
    for (unsigned k = 0; k < sc->mNumTextures; k++)
        send_texture(sc->mTextures[k]);
    for (unsigned k = 0; k < sc->mNumMaterials; k++)
        send_material(sc->mMaterials[k]);
    for (unsigned k = 0; k < sc->mNumMeshes; k++)
        send_mesh(sc->mMeshes[k]);
    static const double ident[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    visit(path, sc->mRootNode, ident, 0);
    rec(SENSIM_WIRE_END, 16);
    put_u32(sc->mNumTextures), put_u32(sc->mNumMaterials), put_u32(sc->mNumMeshes), put_u32(placements);
    if (fflush(out) != 0)
        return 1;
    aiReleaseImport(sc);
    return 0;
}
