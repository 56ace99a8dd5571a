/* sensim batch: the writer thread, per-frame JSON, progress, and the run folder's meta.json check. */
#include "batch.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

const char *format_name(int32_t format)
{
    static const char *const e[] = {"ply", "ply-ascii", "pcd", "pcd-ascii", "kitti", "carla", "las", "las-1.2", "mcap"};
    return e[format];
}

/* One lidar frame through its sink (points, images, the JSON last: its
 * presence marks a finished frame for --resume); library errors are per
 * thread, so the text is copied here, on the writer thread. */
static int write_job(writer *w, job *j)
{
    if (sensim_frame_sink_write(j->sink, &j->h, j->pts, j->n) != SENSIM_OK) {
        snprintf(w->message, sizeof w->message, "%s", sensim_context_last_error(NULL));
        return 0;
    }
    return 1;
}

void *writer_main(void *arg)
{
    writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->count == 0 && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->count == 0 && w->quit)
            break;
        job *j = &w->slots[w->head];
        pthread_mutex_unlock(&w->mu);
        double t0 = now_s();
        int ok = write_job(w, j);
        double dt = now_s() - t0;
        pthread_mutex_lock(&w->mu);
        w->write_s += dt;
        if (ok)
            w->written++;
        if (!ok && !w->error) {
            w->error = 1;
            fprintf(stderr, "sensim: error: %s\n", w->message[0] ? w->message : "writing a frame failed");
        }
        j->full = 0;
        w->head = (w->head + 1) % 2;
        w->count--;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Take a free slot (waits while both are being written). */
job *writer_slot(writer *w, int *index)
{
    pthread_mutex_lock(&w->mu);
    if (w->count == 2) {
        double t0 = now_s();
        while (w->count == 2)
            pthread_cond_wait(&w->cv, &w->mu);
        w->wait_s += now_s() - t0;
    }
    *index = (w->head + w->count) % 2;
    job *j = &w->slots[*index];
    pthread_mutex_unlock(&w->mu);
    return j;
}

void writer_submit(writer *w)
{
    pthread_mutex_lock(&w->mu);
    w->slots[(w->head + w->count) % 2].full = 1;
    w->count++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void writer_drain(writer *w)
{
    pthread_mutex_lock(&w->mu);
    while (w->count > 0)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

/* ---- progress ---- */

void progress(prog *p, int final)
{
    double now = now_s(), el = now - p->t0;
    uint64_t done = 0, total = 0;
    for (uint32_t s = 0; s < p->n; s++)
        done += p->done[s], total += p->total[s];
    if (p->quiet || (!final && !p->tty && now - p->last < 5.0 && done != total) ||
        (!p->tty && p->shown == done && p->last > 0))
        return;
    p->last = now;
    p->shown = done;
    double rate = el > 0 ? p->points / el : 0, eta = done && done < total ? el / done * (total - done) : 0;
    if (g_live.stream) { /* a streamed trajectory: no end known, counts only */
        fprintf(stderr, "%ssensim ros2: %llu frames, %.2f Mpts/s%s", p->tty ? "\r" : "", (unsigned long long)done,
                rate / 1e6, p->tty && !final ? " " : "\n");
        return;
    }
    char per[1024] = "";
    size_t o = 0;
    for (uint32_t s = 0; s < p->n && p->n > 1 && o < sizeof per; s++)
        o += (size_t)snprintf(per + o, sizeof per - o, "%s%s %llu/%llu", s ? ", " : " (", p->name[s],
                              (unsigned long long)p->done[s], (unsigned long long)p->total[s]);
    if (p->n > 1 && o < sizeof per)
        snprintf(per + o, sizeof per - o, ")");
    if (p->tty) {
        int w = 30, fill = total ? (int)(w * (done < total ? done : total) / total) : w;
        fprintf(stderr, "\r[%.*s%*s] %llu/%llu%s, %.2f Mpts/s, ETA %.0f s ", fill, "##############################",
                w - fill, "", (unsigned long long)done, (unsigned long long)total, per, rate / 1e6, eta);
        if (final)
            fputc('\n', stderr);
    } else {
        fprintf(stderr, "sensim %s: %llu/%llu%s, %.2f Mpts/s, ETA %.0f s\n", CMD_NAME, (unsigned long long)done,
                (unsigned long long)total, per, rate / 1e6, eta);
    }
}

uint64_t fnv1a_file(const char *path, int *ok)
{
    uint64_t h = 1469598103934665603ULL;
    FILE *f = fopen(path, "rb");
    *ok = f != NULL;
    if (!f)
        return 0;
    unsigned char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ULL;
    fclose(f);
    return h;
}

/* Length of the well-formed UTF-8 sequence at @p s (1..4), 0 if none. */
static int utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    int n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || (n == 2 && c < 0xC2) || (n == 4 && c > 0xF4))
        return 0;
    for (int i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((n == 3 && c == 0xE0 && s[1] < 0xA0) || (n == 3 && c == 0xED && s[1] >= 0xA0) ||
        (n == 4 && c == 0xF0 && s[1] < 0x90) || (n == 4 && c == 0xF4 && s[1] >= 0x90))
        return 0; /* overlong, surrogate, beyond U+10FFFF */
    return n;
}

/* A JSON string that is valid UTF-8 for any bytes: control characters
 * escaped, bytes that are not UTF-8 written as U+FFFD. */
void json_str(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    while (*s) {
        int n = utf8_len(s);
        if (n == 0) {
            fputs("\\ufffd", f);
            s++;
            continue;
        }
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if (*s < 0x20 || *s == 0x7F)
            fprintf(f, "\\u%04x", *s);
        else
            fwrite(s, 1, (size_t)n, f);
        s += n;
    }
    fputc('"', f);
}

/* ', "overrides": [...]}' closing a sensor's meta.json entry: its rig keys, then @p extra. */
void json_overrides(FILE *f, const sensor_spec *sp, const char *const *extra, uint32_t nextra)
{
    fprintf(f, ", \"overrides\": [");
    for (uint32_t k = 0; k < sp->nsets + nextra; k++) {
        fprintf(f, "%s", k ? ", " : "");
        json_str(f, k < sp->nsets ? sp->sets[k] : extra[k - sp->nsets]);
    }
    fprintf(f, "]}");
}

int file_exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

/* Whether the run may write into @p out: 0, or an exit status after one
 * line. A folder holds one run: an existing meta.json must describe this
 * run (same inputs, sensors, overrides and format) unless --overwrite; a
 * folder with other files and no meta.json is refused unless --overwrite;
 * a finished or partial run is only continued with --resume (shards of one
 * run share the folder). */
int check_output(const char *out, const char *mp, const char *meta, size_t len, int resume, int overwrite,
                 uint32_t shard_n)
{
    if (overwrite)
        return 0;
    int fd, tries = 0;
again:
    /* non-blocking and regular only: a FIFO planted as meta.json must not hang the run */
    fd = open(mp, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd >= 0 && (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))) {
        close(fd);
        fprintf(stderr, "sensim: error: %s is not a regular file: refusing to use this folder\n", mp);
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (fd >= 0 && !f)
        close(fd);
    if (!f) {
        DIR *d = opendir(out);
        struct dirent *e;
        int other = 0, meta_now = 0;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, "meta.json"))
                meta_now = 1;
            else if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, ".sensim.lock") &&
                     strncmp(e->d_name, "meta.json.tmp.", 14) != 0) /* a shard writing meta.json right now */
                other = 1;
        }
        if (d)
            closedir(d);
        /* Another shard renamed its meta.json in between our open and this
         * listing (shards of a job array start together and reach this point
         * within microseconds; its frames may already be there): compare
         * with it instead of refusing the folder. */
        if (meta_now && tries++ < 8)
            goto again;
        other |= meta_now; /* listed but never readable: not ours to replace */
        if (other) {
            fprintf(stderr, "sensim: error: %s is not empty and holds no meta.json of a run: refusing to mix "
                            "(choose an empty folder, or --overwrite)\n", out);
            return EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
        }
        return 0;
    }
    char *old = malloc(len + 2);
    size_t n = old ? fread(old, 1, len + 1, f) : 0;
    fclose(f);
    if (!old) {
        fprintf(stderr, "sensim: error: out of memory\n");
        return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
    }
    old[n] = '\0';
    if (n == len && memcmp(old, meta, len) == 0) {
        free(old);
        if (resume || shard_n > 1)
            return 0;
        fprintf(stderr, "sensim: error: %s already holds this run: --resume to continue it, --overwrite to "
                        "render every frame again\n", out);
        return EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
    }
    /* name the first line that differs */
    const char *a = old, *b = meta;
    while (*a && *b) {
        const char *ae = strchr(a, '\n'), *be = strchr(b, '\n');
        size_t al = ae ? (size_t)(ae - a) : strlen(a), bl = be ? (size_t)(be - b) : strlen(b);
        if (al != bl || memcmp(a, b, al) != 0)
            break;
        a += al + (ae != NULL);
        b += bl + (be != NULL);
    }
    while (*a == ' ')
        a++;
    while (*b == ' ')
        b++;
    int an = (int)(strchr(a, '\n') ? strchr(a, '\n') - a : (ptrdiff_t)strlen(a));
    int bn = (int)(strchr(b, '\n') ? strchr(b, '\n') - b : (ptrdiff_t)strlen(b));
    fprintf(stderr, "sensim: error: %s holds another run (%s): it has %.*s%s, this run %.*s%s; nothing was "
                    "written (another folder, or --overwrite)\n",
            mp, resume ? "--resume refused" : "refusing to mix", an > 160 ? 160 : an, a, an > 160 ? "..." : "",
            bn > 160 ? 160 : bn, b, bn > 160 ? "..." : "");
    free(old);
    return EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
}

/* The command's JSON numbers: [a, b, ...] at %.17g (the library's writers have their own, io/sink_image.c:
 * the command cannot reach the library's internals, and a number writer is not ABI). */
void cli_json_numbers(FILE *f, const double *v, int n)
{
    for (int k = 0; k < n; k++)
        fprintf(f, "%s%.17g", k ? ", " : "[", v[k]);
    fputc(']', f);
}

void cli_json_camera_info(FILE *f, const sensim_camera *cam)
{
    sensim_camera_info ci;
    sensim_camera_get_info(cam, &ci);
    fprintf(f, "{\"width\": %u, \"height\": %u, \"distortion_model\": \"%s\", \"D\": ", ci.width, ci.height,
            ci.distortion_model);
    cli_json_numbers(f, ci.d, 5);
    fprintf(f, ", \"K\": ");
    cli_json_numbers(f, ci.k, 9);
    fprintf(f, ", \"R\": ");
    cli_json_numbers(f, ci.r, 9);
    fprintf(f, ", \"P\": ");
    cli_json_numbers(f, ci.p, 12);
    fprintf(f, "}");
}
