/* sensim view's readers: run folders (frame_*.ply, camera captures), PLY
 * point files and MCAP bags. Every input is hostile: sizes are checked
 * against the file before anything is allocated, records against their
 * container, and a failure names the file. */
#include "cli.h"
#include "view.h"
#include "mcap_walk.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


int view_fail(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "sensim: error: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
}

/* ---- PLY point files (binary little endian, any property order) ---- */
static int ply_type_size(const char *t)
{
    static const char *const n1[] = {"char", "uchar", "int8", "uint8"};
    static const char *const n2[] = {"short", "ushort", "int16", "uint16"};
    static const char *const n4[] = {"int", "uint", "float", "int32", "uint32", "float32"};
    static const char *const n8[] = {"double", "float64"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(t, n1[i]) || !strcmp(t, n2[i]))
            return !strcmp(t, n1[i]) ? 1 : 2;
    for (int i = 0; i < 6; i++)
        if (!strcmp(t, n4[i]))
            return 4;
    for (int i = 0; i < 2; i++)
        if (!strcmp(t, n8[i]))
            return 8;
    return 0;
}

/* Read a PLY point file into @p c (subsampled to max_points). Frames and
 * units from its comments: CARLA (y negated) and UE (cm) files are brought
 * back to the native frame in metres. */
int view_read_ply(const char *path, const char *sensor, uint32_t max_points, cloud *c)
{
    FILE *f;
    int rc = open_regular_file(path, &f);
    if (rc)
        return rc;
    memset(c, 0, sizeof *c);
    snprintf(c->sensor, sizeof c->sensor, "%s", sensor);
    c->pose[0] = c->pose[5] = c->pose[10] = c->pose[15] = 1;
    char line[1024];
    unsigned long long ln = 0, count = 0;
    int in_vertex = 0, binary = 0, ended = 0, after_vertex = 0;
    int off_x = -1, off_y = -1, off_z = -1, off_i = -1, off_r = -1, off_t = -1, stride = 0;
    int frame = 0; /* 0 native, 1 carla, 2 ue */
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t L = strlen(line);
        if (L == sizeof line - 1 && line[L - 1] != '\n') {
            fclose(f);
            return view_fail("%s: header line %s longer than 1023 bytes", path, "");
        }
        if (ln == 1 && strcmp(line, "ply\n")) {
            fclose(f);
            return view_fail("%s:1: not a PLY file%s", path, "");
        }
        char w0[64] = "", w1[64] = "", w2[64] = "";
        sscanf(line, "%63s %63s %63s", w0, w1, w2);
        if (!strcmp(w0, "format")) {
            binary = !strcmp(w1, "binary_little_endian") && !strcmp(w2, "1.0");
        } else if (!strcmp(w0, "comment")) {
            if (!strcmp(w1, "t_begin_ns"))
                c->t_ns = strtoll(w2, NULL, 10);
            else if (!strcmp(w1, "frame"))
                frame = !strcmp(w2, "carla") ? 1 : !strcmp(w2, "ue") ? 2 : 0;
            else if (!strcmp(w1, "sensor_pose")) {
                const char *p = strstr(line, "sensor_pose") + 11;
                double v[16];
                int k = 0;
                char *end;
                for (; k < 16; k++, p = end) {
                    v[k] = strtod(p, &end);
                    if (end == p || !(v[k] == v[k]) || v[k] > 1e12 || v[k] < -1e12)
                        break;
                }
                if (k != 16) {
                    fclose(f);
                    char where[64];
                    snprintf(where, sizeof where, "%llu", ln);
                    return view_fail("%s:%s: sensor_pose needs 16 finite numbers", path, where);
                }
                memcpy(c->pose, v, sizeof v);
            }
        } else if (!strcmp(w0, "element")) {
            if (in_vertex)
                after_vertex = 1;
            in_vertex = !strcmp(w1, "vertex");
            if (in_vertex) {
                char *end;
                errno = 0;
                count = strtoull(w2, &end, 10);
                if (errno || *end || w2[0] == '-') {
                    fclose(f);
                    return view_fail("%s: bad vertex count '%s'", path, w2);
                }
            }
        } else if (!strcmp(w0, "property") && in_vertex) {
            int sz = ply_type_size(w1);
            if (!sz) {
                fclose(f);
                return view_fail("%s: vertex property type '%s' not supported (lists are not points)", path, w1);
            }
            int *slot = !strcmp(w2, "x") ? &off_x : !strcmp(w2, "y") ? &off_y : !strcmp(w2, "z") ? &off_z
                        : !strcmp(w2, "intensity") ? &off_i : !strcmp(w2, "range") ? &off_r
                        : !strcmp(w2, "tag") ? &off_t : NULL;
            int want = slot == &off_t ? 1 : 4;
            if (slot && (sz != want || (want == 4 && strcmp(w1, "float") && strcmp(w1, "float32")))) {
                fclose(f);
                return view_fail("%s: property %s must be float (tag: uchar)", path, w2);
            }
            if (slot)
                *slot = stride;
            if (stride > 4096) {
                fclose(f);
                return view_fail("%s: vertex records over 4 KiB%s", path, "");
            }
            stride += sz;
        } else if (!strcmp(w0, "end_header")) {
            ended = 1;
            break;
        }
        if (ln > 2000) {
            fclose(f);
            return view_fail("%s: no end_header in 2000 lines%s", path, "");
        }
    }
    if (!ended || !binary || off_x < 0 || off_y < 0 || off_z < 0 || after_vertex) {
        fclose(f);
        return view_fail("%s: %s", path,
                         !ended ? "no end_header" : !binary ? "only binary_little_endian 1.0 PLY is read"
                         : after_vertex ? "elements after vertex are not read (a point file has only vertices)"
                                        : "vertex needs float x, y, z");
    }
    long pos = ftell(f);
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || pos < 0 || count > (uint64_t)(sb.st_size - pos) / (uint64_t)stride) {
        fclose(f);
        return view_fail("%s: %s vertices do not fit in the file", path, "the declared");
    }
    uint64_t step = max_points && count > max_points ? (count + max_points - 1) / max_points : 1;
    uint64_t n = (count + step - 1) / step;
    c->xyz = malloc(12 * (n ? n : 1));
    c->range = malloc(4 * (n ? n : 1));
    c->tag = calloc(n ? n : 1, 1);
    c->inten = calloc(n ? n : 1, 1);
    uint8_t *rec = malloc((size_t)stride);
    if (!c->xyz || !c->range || !c->tag || !c->inten || !rec) {
        free(rec);
        fclose(f);
        fprintf(stderr, "sensim: error: out of memory for %s\n", path);
        return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
    }
    const float u = frame == 2 ? 0.01f : 1.0f, sy = frame ? -1.0f : 1.0f;
    uint32_t k = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (fread(rec, 1, (size_t)stride, f) != (size_t)stride) {
            free(rec);
            fclose(f);
            return view_fail("%s: truncated vertex data%s", path, "");
        }
        if (i % step)
            continue;
        float x, y, z, in = 0, r;
        memcpy(&x, rec + off_x, 4), memcpy(&y, rec + off_y, 4), memcpy(&z, rec + off_z, 4);
        x *= u, y *= u * sy, z *= u;
        if (!(x == x && y == y && z == z) || x > 1e9f || x < -1e9f || y > 1e9f || y < -1e9f || z > 1e9f ||
            z < -1e9f)
            x = y = z = 0; /* a NaN or absurd point is drawn at the sensor, not as NaN */
        if (off_i >= 0)
            memcpy(&in, rec + off_i, 4);
        if (off_r >= 0)
            memcpy(&r, rec + off_r, 4), r *= u;
        else
            r = sqrtf(x * x + y * y + z * z);
        c->xyz[3 * k] = x, c->xyz[3 * k + 1] = y, c->xyz[3 * k + 2] = z;
        c->range[k] = r == r ? r : 0;
        c->inten[k] = (uint8_t)(in >= 1 ? 255 : in > 0 ? in * 255 + 0.5f : 0);
        c->tag[k] = off_t >= 0 ? rec[off_t] : 0;
        k++;
    }
    free(rec);
    fclose(f);
    c->n = k;
    if (frame) { /* pose S·M·S (CARLA) back to native; UE translation in cm */
        double *p = c->pose;
        for (int i = 0; i < 3; i++)
            p[12 + i] *= frame == 2 ? 0.01 : 1.0;
        p[1] = -p[1], p[4] = -p[4], p[6] = -p[6], p[9] = -p[9], p[13] = -p[13];
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in @p dir (caller frees each and the array). */
char **view_list_dir(const char *dir, size_t *n)
{
    DIR *d = opendir(dir);
    *n = 0;
    if (!d)
        return NULL;
    size_t cap = 64;
    char **v = malloc(cap * sizeof *v);
    struct dirent *e;
    while (v && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (*n == cap) {
            char **w = realloc(v, 2 * cap * sizeof *v);
            if (!w)
                break;
            v = w, cap *= 2;
        }
        v[(*n)++] = strdup(e->d_name);
    }
    closedir(d);
    if (v)
        qsort(v, *n, sizeof *v, cmp_str);
    return v;
}

void view_free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

int view_is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int view_ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

/* Lidar frames (frame_*.ply) and camera captures of one folder. */
int view_read_folder(view_data *V, const char *dir, const char *sensor)
{
    size_t n;
    char **names = view_list_dir(dir, &n);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%.4000s/%s", dir, names[i]);
        if (!strncmp(names[i], "frame_", 6) && view_ends_with(names[i], ".ply")) {
            if (V->nclouds == V->cloud_cap) {
                rc = view_fail("%s: more frames than the page takes (%s)", dir, "100000");
                break;
            }
            cloud *c = &V->clouds[V->nclouds];
            rc = view_read_ply(p, sensor, V->max_points, c);
            if (!rc && V->points_total + c->n > V->points_budget) { /* the page's budget: left out, counted */
                free(c->xyz), free(c->range), free(c->tag), free(c->inten);
                memset(c, 0, sizeof *c);
                V->clouds_dropped++;
            } else if (!rc) {
                V->points_total += c->n;
                V->nclouds++;
            }
        }
    }
    /* camera captures: NAME/NNNNNN.json with t_ns, image in rgb/ (or the CityScapes semantic image) */
    const char *sub = NULL;
    char rgb[4200];
    snprintf(rgb, sizeof rgb, "%.4000s/rgb", dir);
    if (view_is_dir(rgb))
        sub = "rgb";
    else {
        snprintf(rgb, sizeof rgb, "%.4000s/semantic_cityscapes", dir);
        if (view_is_dir(rgb))
            sub = "semantic_cityscapes";
    }
    for (size_t i = 0; i < n && !rc && sub; i++) {
        size_t L = strlen(names[i]);
        if (L != 11 || !view_ends_with(names[i], ".json") || strspn(names[i], "0123456789") != 6)
            continue;
        char jp[4200], buf[512];
        snprintf(jp, sizeof jp, "%.4000s/%s", dir, names[i]);
        FILE *f;
        if ((rc = open_regular_file(jp, &f)))
            break;
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[got] = 0;
        const char *t = strstr(buf, "\"t_ns\":");
        if (!t) {
            rc = view_fail("%s: no \"t_ns\" in its first 511 bytes%s", jp, "");
            break;
        }
        if (V->nimages == V->image_cap) {
            rc = view_fail("%s: more captures than the page takes (%s)", dir, "20000");
            break;
        }
        image *im = &V->images[V->nimages];
        snprintf(im->sensor, sizeof im->sensor, "%s", sensor);
        im->t_ns = strtoll(t + 7, NULL, 10);
        snprintf(im->path, sizeof im->path, "%.4000s/%s/%.6s.png", dir, sub, names[i]);
        if (access(im->path, R_OK) == 0)
            V->nimages++;
    }
    view_free_list(names, n);
    return rc;
}


/* ---- MCAP input (a bag libsensim or rosbag2 wrote): PointCloud2 with
 * float32 x, y, z (and intensity, range, tag when present), placed by /tf
 * (odom -> base_link, the latest at or before the stamp) and /tf_static
 * (base_link -> the cloud's frame); Image rgb8 beside the view. ---- */
typedef cdr rd; /* the shared CDR cursor (mcap_walk.h) */
#define rd_le cdr_le

typedef struct tfkey {
    int64_t t;
    size_t order; /* place in the file */
    double pose[16];
} tfkey;

static int cmp_tfkey(const void *a, const void *b)
{
    const tfkey *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

typedef struct mount {
    char frame[64];
    double pose[16];
} mount;

typedef struct mcap_state {
    char topic[256][256];
    uint16_t chan_schema[256];
    char schema[256][64];
    tfkey *tf;
    size_t ntf, captf;
    mount mounts[64];
    size_t nmounts;
    const char *path;
    view_data *V;
    int rc;
} mcap_state;

static void pose_from(double t[3], double q[4] /* x y z w */, double out[16])
{
    double x = q[0], y = q[1], z = q[2], w = q[3], nn = sqrt(x * x + y * y + z * z + w * w);
    if (!(nn > 0.5 && nn < 2)) {
        x = y = z = 0, w = 1, nn = 1;
    }
    x /= nn, y /= nn, z /= nn, w /= nn;
    double m[16] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y), 0,
                    2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x), 0,
                    2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y), 0,
                    t[0], t[1], t[2], 1};
    memcpy(out, m, sizeof m);
}

static void mul4(const double a[16], const double b[16], double o[16])
{
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++)
            o[4 * c + r] = a[r] * b[4 * c] + a[4 + r] * b[4 * c + 1] + a[8 + r] * b[4 * c + 2] + a[12 + r] * b[4 * c + 3];
}

static int finite16(const double *v)
{
    for (int i = 0; i < 16; i++)
        if (!(v[i] > -1e12 && v[i] < 1e12))
            return 0;
    return 1;
}

static void on_tf(mcap_state *S, rd *r, int is_static)
{
    uint64_t n = cdr_u(r, 4);
    for (uint64_t i = 0; i < n && !r->bad && i < 65536; i++) {
        int64_t sec = (int32_t)cdr_u(r, 4);
        int64_t ns = (int64_t)cdr_u(r, 4);
        char parent[64], child[64];
        cdr_str(r, parent, sizeof parent);
        cdr_str(r, child, sizeof child);
        double t[3], q[4], m[16];
        for (int k = 0; k < 3; k++)
            t[k] = cdr_f64(r);
        for (int k = 0; k < 4; k++)
            q[k] = cdr_f64(r);
        if (r->bad)
            return;
        pose_from(t, q, m);
        if (!finite16(m))
            continue;
        if (is_static) {
            if (S->nmounts < 64) {
                snprintf(S->mounts[S->nmounts].frame, 64, "%s", child);
                memcpy(S->mounts[S->nmounts++].pose, m, sizeof m);
            }
        } else {
            if (S->ntf == S->captf) {
                size_t c = S->captf ? 2 * S->captf : 256;
                tfkey *k = realloc(S->tf, c * sizeof *k);
                if (!k)
                    return;
                S->tf = k, S->captf = c;
            }
            S->tf[S->ntf].t = sec * 1000000000 + ns;
            S->tf[S->ntf].order = S->ntf;
            memcpy(S->tf[S->ntf++].pose, m, sizeof m);
        }
    }
}

static void on_cloud(mcap_state *S, rd *r)
{
    view_data *V = S->V;
    if (V->nclouds == V->cloud_cap)
        return;
    int64_t sec = (int32_t)cdr_u(r, 4), ns = (int64_t)cdr_u(r, 4);
    char frame[64];
    cdr_str(r, frame, sizeof frame);
    uint64_t height = cdr_u(r, 4), width = cdr_u(r, 4), nf = cdr_u(r, 4);
    int ox = -1, oy = -1, oz = -1, oi = -1, orr = -1, ot = -1;
    for (uint64_t i = 0; i < nf && !r->bad && i < 256; i++) {
        char name[32];
        cdr_str(r, name, sizeof name);
        uint64_t off = cdr_u(r, 4), dt = rd_le(r, 1), cnt = cdr_u(r, 4);
        (void)cnt;
        int f32 = dt == 7, *slot = !strcmp(name, "x") ? &ox : !strcmp(name, "y") ? &oy : !strcmp(name, "z") ? &oz
                                   : !strcmp(name, "intensity") && f32 ? &oi : !strcmp(name, "range") && f32 ? &orr
                                   : !strcmp(name, "tag") && dt == 2 ? &ot : NULL;
        if (slot && (slot == &ot || f32) && off < 65536)
            *slot = (int)off;
    }
    uint64_t big = rd_le(r, 1), step = cdr_u(r, 4);
    (void)cdr_u(r, 4); /* row_step */
    uint64_t len = cdr_u(r, 4);
    if (r->bad || big || ox < 0 || oy < 0 || oz < 0 || step == 0 || step > 65536 || len > r->n - r->at ||
        height * width > len / step || (uint64_t)ox + 4 > step || (uint64_t)oy + 4 > step || (uint64_t)oz + 4 > step ||
        (oi >= 0 && (uint64_t)oi + 4 > step) || (orr >= 0 && (uint64_t)orr + 4 > step) ||
        (ot >= 0 && (uint64_t)ot + 1 > step))
        return; /* not a cloud of points this page can draw */
    const uint8_t *d = r->p + r->at;
    uint64_t count = height * width;
    uint64_t every = V->max_points && count > V->max_points ? (count + V->max_points - 1) / V->max_points : 1;
    uint64_t n = (count + every - 1) / every;
    if (V->points_total + n > V->points_budget) { /* the page's budget: left out, counted */
        V->clouds_dropped++;
        return;
    }
    cloud *c = &V->clouds[V->nclouds];
    memset(c, 0, sizeof *c);
    snprintf(c->sensor, sizeof c->sensor, "%s", frame);
    for (char *p = c->sensor; *p; p++) /* the page's JSON: names of letters, digits, '_', '-' */
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-'))
            *p = '_';
    c->t_ns = sec * 1000000000 + ns;
    c->xyz = malloc(12 * (n ? n : 1)), c->range = malloc(4 * (n ? n : 1));
    c->tag = calloc(n ? n : 1, 1), c->inten = calloc(n ? n : 1, 1);
    if (!c->xyz || !c->range || !c->tag || !c->inten) {
        S->rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        return;
    }
    uint32_t k = 0;
    for (uint64_t i = 0; i < count; i += every, k++) {
        const uint8_t *p = d + i * step;
        float x, y, z, in = 0, rg;
        memcpy(&x, p + ox, 4), memcpy(&y, p + oy, 4), memcpy(&z, p + oz, 4);
        if (!(x > -1e9f && x < 1e9f && y > -1e9f && y < 1e9f && z > -1e9f && z < 1e9f))
            x = y = z = 0;
        if (oi >= 0)
            memcpy(&in, p + oi, 4);
        if (orr >= 0)
            memcpy(&rg, p + orr, 4);
        else
            rg = sqrtf(x * x + y * y + z * z);
        c->xyz[3 * k] = x, c->xyz[3 * k + 1] = y, c->xyz[3 * k + 2] = z;
        c->range[k] = rg == rg ? rg : 0;
        c->inten[k] = (uint8_t)(in >= 1 ? 255 : in > 0 ? in * 255 + 0.5f : 0);
        c->tag[k] = ot >= 0 ? p[ot] : 0;
    }
    c->n = k;
    V->points_total += k;
    /* the pose: odom <- base at the stamp, then base <- frame (tf is attached after reading all) */
    c->pose[0] = c->pose[5] = c->pose[10] = c->pose[15] = 1;
    snprintf(c->frame, sizeof c->frame, "%s", frame);
    V->nclouds++;
}

static void on_image(mcap_state *S, rd *r)
{
    view_data *V = S->V;
    if (V->nimages == V->image_cap)
        return;
    int64_t sec = (int32_t)cdr_u(r, 4), ns = (int64_t)cdr_u(r, 4);
    char frame[64], enc[32];
    cdr_str(r, frame, sizeof frame);
    uint64_t h = cdr_u(r, 4), w = cdr_u(r, 4);
    cdr_str(r, enc, sizeof enc);
    (void)rd_le(r, 1);
    uint64_t step = cdr_u(r, 4), len = cdr_u(r, 4);
    if (r->bad || strcmp(enc, "rgb8") || w == 0 || h == 0 || w > 8192 || h > 8192 || step < 3 * w ||
        len > r->n - r->at || step * h > len)
        return;
    if (V->pixels_total + w * h > V->pixels_budget) { /* the page's budget: left out, counted */
        V->images_dropped++;
        return;
    }
    if (!V->tmpdir[0]) {
        snprintf(V->tmpdir, sizeof V->tmpdir, "/tmp/sensim_view_XXXXXX");
        if (!mkdtemp(V->tmpdir)) {
            V->tmpdir[0] = 0;
            return;
        }
    }
    image *im = &V->images[V->nimages];
    snprintf(im->path, sizeof im->path, "%s/%zu.png", V->tmpdir, V->nimages);
    if (sensim_write_png(im->path, (uint32_t)w, (uint32_t)h, 3, 8, r->p + r->at, (size_t)step) != SENSIM_OK)
        return;
    snprintf(im->sensor, sizeof im->sensor, "%s", frame);
    for (char *p = im->sensor; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-'))
            *p = '_';
    im->t_ns = sec * 1000000000 + ns;
    V->nimages++;
    V->pixels_total += w * h;
}


static void on_message(mcap_state *S, const uint8_t *c, size_t len)
{
    if (len < 22 + 4)
        return;
    uint16_t ch = (uint16_t)(c[0] | c[1] << 8);
    if (ch >= 256 || !S->topic[ch][0])
        return;
    const char *type = S->schema[S->chan_schema[ch] & 255];
    rd r = {c + 22, len - 22, 4, 0};
    if (c[23] != 1) /* CDR_LE */
        return;
    if (!strcmp(type, "sensor_msgs/msg/PointCloud2"))
        on_cloud(S, &r);
    else if (!strcmp(type, "tf2_msgs/msg/TFMessage"))
        on_tf(S, &r, !strcmp(S->topic[ch], "/tf_static"));
    else if (!strcmp(type, "sensor_msgs/msg/Image"))
        on_image(S, &r);
}

/* Schemas, channels and messages (mcap_walk.c walks the file and its chunks). */
static int on_record(void *user, uint8_t op, const uint8_t *c, size_t len)
{
    mcap_state *S = user;
    rd r = {c, len, 0, 0};
    if (op == 0x03 && len >= 6) { /* schema: id, name */
        uint16_t id = (uint16_t)rd_le(&r, 2);
        uint64_t sl = rd_le(&r, 4);
        if (!r.bad && sl < 64 && sl <= len - 6)
            memcpy(S->schema[id & 255], c + 6, (size_t)sl), S->schema[id & 255][sl] = 0;
    } else if (op == 0x04 && len >= 8) { /* channel: id, schema id, topic */
        uint16_t id = (uint16_t)rd_le(&r, 2), sid = (uint16_t)rd_le(&r, 2);
        uint64_t tl = rd_le(&r, 4);
        if (!r.bad && id < 256 && tl < 256 && tl <= len - 8) {
            memcpy(S->topic[id], c + 8, (size_t)tl), S->topic[id][tl] = 0;
            S->chan_schema[id] = sid;
        }
    } else if (op == 0x05) {
        on_message(S, c, len);
    }
    return S->rc;
}

int view_read_mcap(view_data *V, const char *path)
{
    mcap_state *S = calloc(1, sizeof *S);
    if (!S)
        return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
    S->path = path, S->V = V;
    mcap_walker w = {path, S, on_record, NULL, 0, 0};
    int rc = mcap_walk_file(&w);
    /* place the clouds: odom <- base_link at the stamp (latest at or before; of equal stamps the last in
     * the file), base_link <- frame. Keys sorted by (stamp, file order) once, each cloud a binary search:
     * n log n, where a bag of many /tf messages took clouds x keys. */
    if (S->ntf) /* qsort takes no NULL, even for none */
        qsort(S->tf, S->ntf, sizeof *S->tf, cmp_tfkey);
    for (size_t i = 0; i < V->nclouds && !rc; i++) {
        cloud *c = &V->clouds[i];
        double base[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, mnt[16];
        memcpy(mnt, base, sizeof mnt);
        size_t lo = 0, hi = S->ntf; /* the first key after the stamp */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (S->tf[mid].t <= c->t_ns)
                lo = mid + 1;
            else
                hi = mid;
        }
        const tfkey *best = lo ? &S->tf[lo - 1] : NULL;
        if (best)
            memcpy(base, best->pose, sizeof base);
        for (size_t k = 0; k < S->nmounts; k++)
            if (!strcmp(S->mounts[k].frame, c->frame))
                memcpy(mnt, S->mounts[k].pose, sizeof mnt);
        mul4(base, mnt, c->pose);
    }
    free(S->tf);
    free(S);
    if (!rc && V->nclouds == 0)
        return view_fail("%s: no PointCloud2 message with float x, y, z%s", path, "");
    return rc;
}


void view_free(view_data *V)
{
    for (size_t i = 0; V->clouds && i < V->cloud_cap && i <= V->nclouds; i++) {
        free(V->clouds[i].xyz);
        free(V->clouds[i].range);
        free(V->clouds[i].tag);
        free(V->clouds[i].inten);
    }
    if (V->tmpdir[0]) { /* only the images this run decoded into it */
        for (size_t i = 0; i < V->nimages; i++)
            if (!strncmp(V->images[i].path, V->tmpdir, strlen(V->tmpdir)))
                remove(V->images[i].path);
        if (V->nimages < V->image_cap) { /* a PNG written for an image that was then not counted */
            char p[64];
            snprintf(p, sizeof p, "%s/%zu.png", V->tmpdir, V->nimages);
            remove(p);
        }
        rmdir(V->tmpdir);
        V->tmpdir[0] = 0;
    }
    free(V->clouds);
    free(V->images);
    V->clouds = NULL;
    V->images = NULL;
}
