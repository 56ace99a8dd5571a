/* sensim view: one self-contained HTML page (three.js embedded, no network
 * at view time) that plays the frames of a run: points coloured by tag,
 * intensity, height or range, camera images beside them, sensor poses and
 * the trajectory, a time slider.
 *
 * Inputs: a `sensim batch` / `sensim scan` output folder (frame_*.ply at its
 * top or in one folder per sensor, camera captures in NAME/rgb/ or
 * NAME/semantic_cityscapes/ with NAME/NNNNNN.json), one PLY file, or an
 * MCAP bag (PointCloud2, /tf, /tf_static, rgb8 Image). */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "view.h"
#include "viewer_assets.h"

/* ---- output ---- */
static void b64(FILE *f, const uint8_t *p, size_t n)
{
    static const char T[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[4];
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        out[0] = T[v >> 18], out[1] = T[(v >> 12) & 63];
        out[2] = i + 1 < n ? T[(v >> 6) & 63] : '=';
        out[3] = i + 2 < n ? T[v & 63] : '=';
        fwrite(out, 1, 4, f);
    }
}

static int b64_file(FILE *out, const char *path)
{
    FILE *f;
    int rc = open_regular_file(path, &f);
    if (rc)
        return rc;
    uint8_t buf[3 * 4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        b64(out, buf, n);
    fclose(f);
    return 0;
}

static int cmp_cloud(const void *a, const void *b)
{
    const cloud *x = a, *y = b;
    int s = strcmp(x->sensor, y->sensor);
    return x->t_ns < y->t_ns ? -1 : x->t_ns > y->t_ns ? 1 : s;
}

/* "sensor" names are folder names: letters, digits, '_' and '-' (checked) */
static int safe_name(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-'))
            return 0;
    return 1;
}

static int write_page(const view_data *V, const char *out, uint64_t *nframes)
{
    /* view frames: distinct frame start times */
    int64_t *ts = malloc((V->nclouds + 1) * sizeof *ts);
    if (!ts)
        return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
    size_t nt = 0;
    for (size_t i = 0; i < V->nclouds; i++)
        if (!nt || ts[nt - 1] != V->clouds[i].t_ns)
            ts[nt++] = V->clouds[i].t_ns;
    *nframes = nt;
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s", out); /* the page's folder and its parents first */
    char *slash = strrchr(tmp, '/');
    if (slash && slash != tmp) {
        *slash = 0;
        if (!ensure_dir(tmp)) {
            free(ts);
            return EXIT_STATUS_BASE + SENSIM_ERR_IO;
        }
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", out);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "sensim: error: %s: cannot create: %s\n", out, strerror(errno));
        if (fd >= 0)
            close(fd), remove(tmp);
        free(ts);
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    fchmod(fd, 0644);
    const char *tpl = sensim_viewer_template;
    int rc = 0;
    while (*tpl && !rc) {
        const char *at = strchr(tpl, '@');
        if (!at) {
            fputs(tpl, f);
            break;
        }
        fwrite(tpl, 1, (size_t)(at - tpl), f);
        if (!strncmp(at, "@FRAMES@", 8)) {
            fprintf(f, "%zu", nt);
            tpl = at + 8;
        } else if (!strncmp(at, "@THREE@", 7)) {
            b64(f, sensim_viewer_three, sensim_viewer_three_len);
            tpl = at + 7;
        } else if (!strncmp(at, "@DATA@", 6)) {
            tpl = at + 6;
            fprintf(f, "{\"palette\": [");
            for (uint32_t t = 0; t < 256; t++) {
                uint8_t rgb[3];
                sensim_tag_color(t, rgb);
                fprintf(f, "%s[%u,%u,%u]", t ? "," : "", rgb[0], rgb[1], rgb[2]);
            }
            fprintf(f, "],\n\"tag_names\": [");
            for (uint32_t t = 0; t < 29; t++)
                fprintf(f, "%s\"%s\"", t ? "," : "", sensim_tag_name(t));
            fprintf(f, "],\n\"clouds\": [");
            for (size_t i = 0; i < V->nclouds; i++) {
                const cloud *c = &V->clouds[i];
                fprintf(f, "%s\n{\"sensor\": \"%s\", \"t_ns\": %lld, \"n\": %u, \"pose\": [", i ? "," : "",
                        c->sensor, (long long)c->t_ns, c->n);
                for (int k = 0; k < 16; k++)
                    fprintf(f, "%s%.17g", k ? "," : "", c->pose[k]);
                fprintf(f, "], \"xyz\": \"");
                b64(f, (const uint8_t *)c->xyz, 12 * (size_t)c->n);
                fprintf(f, "\", \"range\": \"");
                b64(f, (const uint8_t *)c->range, 4 * (size_t)c->n);
                fprintf(f, "\", \"tag\": \"");
                b64(f, c->tag, c->n);
                fprintf(f, "\", \"intensity\": \"");
                b64(f, c->inten, c->n);
                fprintf(f, "\"}");
            }
            fprintf(f, "],\n\"frame_t\": [");
            for (size_t k = 0; k < nt; k++)
                fprintf(f, "%s%lld", k ? "," : "", (long long)ts[k]);
            fprintf(f, "],\n\"frame_clouds\": [");
            for (size_t k = 0, i = 0; k < nt; k++) {
                fprintf(f, "%s[", k ? "," : "");
                for (int first = 1; i < V->nclouds && V->clouds[i].t_ns == ts[k]; i++, first = 0)
                    fprintf(f, "%s%zu", first ? "" : ",", i);
                fprintf(f, "]");
            }
            /* the trajectory: origins of the first sensor's frames */
            fprintf(f, "],\n\"trajectory\": [");
            for (size_t i = 0, m = 0; i < V->nclouds; i++)
                if (!strcmp(V->clouds[i].sensor, V->clouds[0].sensor))
                    fprintf(f, "%s[%.9g,%.9g,%.9g]", m++ ? "," : "", V->clouds[i].pose[12], V->clouds[i].pose[13],
                            V->clouds[i].pose[14]);
            fprintf(f, "],\n\"images\": [");
            for (size_t i = 0; i < V->nimages && !rc; i++) {
                fprintf(f, "%s\n{\"sensor\": \"%s\", \"t_ns\": %lld, \"png\": \"", i ? "," : "", V->images[i].sensor,
                        (long long)V->images[i].t_ns);
                rc = b64_file(f, V->images[i].path);
                fprintf(f, "\"}");
            }
            fprintf(f, "]}");
        } else {
            fputc('@', f);
            tpl = at + 1;
        }
    }
    free(ts);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad || rc || rename(tmp, out) != 0) {
        if (!rc)
            fprintf(stderr, "sensim: error: %s: cannot write: %s\n", out, strerror(errno));
        remove(tmp);
        return rc ? rc : EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    return 0;
}

int cmd_view(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    uint32_t max_points = 200000, max_total = 10000000;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (a[0] != '-' && !in) {
            in = a;
            continue;
        }
        if (!v)
            return usage_option(a, 1);
        i++;
        if (!strcmp(a, "--out"))
            out = v;
        else if (!strcmp(a, "--max-points")) {
            if (!parse_u32(v, &max_points) || max_points < 1 || max_points > 10000000)
                return usage("--max-points needs an integer in 1..10^7 (points per frame drawn)");
        } else if (!strcmp(a, "--max-total-points")) {
            if (!parse_u32(v, &max_total) || max_total < 1 || max_total > 100000000)
                return usage("--max-total-points needs an integer in 1..10^8 (points of all frames on the page)");
        } else {
            return usage_option(a, 0);
        }
    }
    if (!in || !out)
        return usage("view needs an input (a run folder or a PLY file) and --out FILE.html");
    view_data V = {0};
    V.max_points = max_points;
    V.points_budget = max_total;
    V.pixels_budget = VIEW_IMAGE_PIXELS;
    V.cloud_cap = MAX_CLOUDS, V.image_cap = MAX_IMAGES;
    V.clouds = calloc(V.cloud_cap, sizeof *V.clouds);
    V.images = calloc(V.image_cap, sizeof *V.images);
    int rc = 0;
    if (!V.clouds || !V.images) {
        fprintf(stderr, "sensim: error: out of memory\n");
        rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
    } else if (view_is_dir(in)) {
        rc = view_read_folder(&V, in, "lidar");
        size_t n;
        char **names = view_list_dir(in, &n);
        for (size_t i = 0; i < n && !rc; i++) {
            char p[4200];
            snprintf(p, sizeof p, "%.4000s/%s", in, names[i]);
            if (strcmp(names[i], "steps") && strlen(names[i]) < 64 && safe_name(names[i]) && view_is_dir(p))
                rc = view_read_folder(&V, p, names[i]);
        }
        view_free_list(names, n);
        if (!rc && V.nclouds == 0)
            rc = view_fail("%s: no frame_*.ply here or in a sensor folder%s", in, "");
    } else if (view_ends_with(in, ".mcap")) {
        rc = view_read_mcap(&V, in);
    } else if (view_ends_with(in, ".ply")) {
        rc = view_read_ply(in, "lidar", max_points, &V.clouds[0]);
        V.nclouds = rc ? 0 : 1;
    } else {
        fprintf(stderr, "sensim: error: %s: not a run folder, a .ply or an .mcap file\n", in);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    uint64_t nframes = 0;
    if (!rc) {
        qsort(V.clouds, V.nclouds, sizeof *V.clouds, cmp_cloud);
        rc = write_page(&V, out, &nframes);
    }
    if (!rc) {
        uint64_t pts = 0;
        for (size_t i = 0; i < V.nclouds; i++)
            pts += V.clouds[i].n;
        fprintf(stderr, "sensim view: %s: %llu frames, %zu clouds, %llu points drawn, %zu images\n", out,
                (unsigned long long)nframes, V.nclouds, (unsigned long long)pts, V.nimages);
        if (V.clouds_dropped || V.images_dropped)
            fprintf(stderr,
                    "sensim view: warning: left out %zu clouds and %zu images past the page's budget (%llu points: "
                    "--max-total-points, or fewer per frame with --max-points; %llu image pixels)\n",
                    V.clouds_dropped, V.images_dropped, (unsigned long long)V.points_budget,
                    (unsigned long long)V.pixels_budget);
    }
    view_free(&V);
    return rc;
}
