/* Trajectory and rig files of `sensim batch`: parsers from a FILE*, and the
 * small number parsers the subcommands share. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parse_u32(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || v > 0xFFFFFFFFul || s[0] == '-')
        return 0;
    *out = (uint32_t)v;
    return 1;
}

/* Comma-separated finite numbers; returns how many (between lo and hi), 0 on error. */
int parse_numbers(const char *s, double *v, int lo, int hi)
{
    const char *p = s;
    int n = 0;
    while (n < hi) {
        char *end;
        errno = 0;
        v[n] = strtod(p, &end);
        if (end == p || errno || !isfinite(v[n]))
            return 0;
        for (const char *c = p; c < end; c++) /* decimal only: strtod's hex (0x10) and inf/nan are not numbers here */
            if (!strchr("0123456789+-.eE \t", *c))
                return 0;
        n++;
        p = end;
        if (*p != ',')
            break;
        p++;
    }
    return (*p || n < lo) ? 0 : n;
}

int parse_shard(const char *v, uint32_t *k, uint32_t *n)
{
    char *end;
    if (!(v[0] >= '0' && v[0] <= '9'))
        return 0;
    unsigned long a = strtoul(v, &end, 10), b;
    if (end == v || *end != '/' || !(end[1] >= '0' && end[1] <= '9') || (b = strtoul(end + 1, &end, 10)) == 0 ||
        *end || a >= b || b > 100000)
        return 0;
    *k = (uint32_t)a, *n = (uint32_t)b;
    return 1;
}

int open_regular_file(const char *path, FILE **f)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; only regular
     * files are read (a FIFO could block forever, /dev/zero never ends). */
    *f = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        fprintf(stderr, "sensim: error: %s: cannot open: %s\n", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    if (!S_ISREG(sb.st_mode)) {
        fprintf(stderr, "sensim: error: %s: not a regular file (%s)\n", path,
                S_ISDIR(sb.st_mode) ? "a directory" : S_ISFIFO(sb.st_mode) ? "a FIFO" :
                S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode) ? "a device" : "a special file");
        close(fd);
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    if (sb.st_size > (off_t)1 << 30) {
        fprintf(stderr, "sensim: error: %s: %lld bytes exceeds the limit of 1 GiB\n", path, (long long)sb.st_size);
        close(fd);
        return EXIT_STATUS_BASE + SENSIM_ERR_TOO_LARGE;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    if (!(*f = fdopen(fd, "r"))) {
        fprintf(stderr, "sensim: error: %s: cannot open: %s\n", path, strerror(errno));
        close(fd);
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    return 0;
}

/* Next line of @p f into @p line (cap bytes, NUL-terminated, line end
 * kept). 1: a line; 0: end of file; -1: error already reported (line too
 * long, or a NUL byte: text after it would otherwise be silently ignored). */
int next_line(FILE *f, const char *path, unsigned long long ln, char *line, size_t cap)
{
    size_t n = 0;
    int c = EOF;
    while (n + 1 < cap && (c = getc(f)) != EOF) {
        if (c == '\0') {
            fprintf(stderr, "sensim: error: %s:%llu: NUL byte in the line\n", path, ln);
            return -1;
        }
        line[n++] = (char)c;
        if (c == '\n')
            break;
    }
    line[n] = '\0';
    if (n + 1 == cap && c != '\n') {
        fprintf(stderr, "sensim: error: %s:%llu: line longer than %zu bytes\n", path, ln, cap - 2);
        return -1;
    }
    return n > 0 ? 1 : 0;
}

/* The content of a line in place: the # comment cut off, blanks and the
 * line end trimmed on both sides; NULL for a blank or comment-only line. */
size_t section_name(const char *p, const char *kind, const char **name)
{
    const size_t k = strlen(kind);
    if (p[0] != '[' || strncmp(p + 1, kind, k) != 0 || p[1 + k] != ' ')
        return 0;
    const char *q = p + 2 + k;
    size_t nl = 0;
    while (nl < 64 && ((q[nl] >= 'A' && q[nl] <= 'Z') || (q[nl] >= 'a' && q[nl] <= 'z') ||
                       (q[nl] >= '0' && q[nl] <= '9') || q[nl] == '_' || q[nl] == '-'))
        nl++;
    if (nl == 0 || nl > 63 || strcmp(q + nl, "]") != 0) /* the whole header, exactly */
        return 0;
    *name = q;
    return nl;
}

char *line_content(char *line)
{
    char *c = strchr(line, '#');
    if (c)
        *c = '\0';
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
        line[--len] = '\0';
    while (*line == ' ' || *line == '\t')
        line++;
    return *line ? line : NULL;
}

/* Split trimmed content "key = value" in place; 0 without "=". */
int split_key_value(char *p, char **key, char **value)
{
    char *eq = strchr(p, '=');
    if (!eq)
        return 0;
    char *ke = eq, *v = eq + 1;
    while (ke > p && (ke[-1] == ' ' || ke[-1] == '\t'))
        ke--;
    *ke = '\0';
    while (*v == ' ' || *v == '\t')
        v++;
    *key = p, *value = v;
    return 1;
}

int load_trajectory_file(const char *path, int32_t frame, traj *t)
{
    return load_trajectory_file_times(path, frame, NULL, t);
}

int thin_keys(traj *t, int64_t step_ns, const char *label)
{
    const int64_t gap = step_ns / TRAJ_KEYS_PER_STEP;
    if (t->n < 3 || gap <= 0)
        return 0;
    size_t w = 1;
    /* both rows of a jump (two at one time: the old segment's end and the new pose) are kept */
#define JUMP_ROW(i) (((i) > 0 && t->keys[i].t_ns == t->keys[(i) - 1].t_ns) || \
                     ((i) + 1 < t->n && t->keys[i].t_ns == t->keys[(i) + 1].t_ns))
    for (size_t i = 1; i < t->n; i++)
        if (i == t->n - 1 || t->keys[i].t_ns - t->keys[w - 1].t_ns >= gap || JUMP_ROW(i))
            t->keys[w++] = t->keys[i];
#undef JUMP_ROW
    if (w < t->n && w > 2 && t->keys[w - 1].t_ns - t->keys[w - 2].t_ns < gap && /* the last row replaces its */
        t->keys[w - 1].t_ns != t->keys[w - 2].t_ns && t->keys[w - 2].t_ns != t->keys[w - 3].t_ns) /* too-close
                                                                                      predecessor, not a jump's */
        t->keys[w - 2] = t->keys[w - 1], w--;
    if (w < t->n)
        fprintf(stderr, "sensim: note: %s: %zu rows thinned to %zu (one at least every %lld ns: a world step of %lld ns "
                        "holds %d keys)\n",
                label, t->n, w, (long long)gap, (long long)step_ns, TRAJ_KEYS_PER_STEP);
    t->n = w;
    return 0;
}

int load_trajectory_file_times(const char *path, int32_t frame, const char *times_path, traj *t)
{
    FILE *f;
    int rc = open_regular_file(path, &f);
    if (rc)
        return rc;
    rc = load_trajectory_times(f, path, frame, times_path, t);
    fclose(f);
    return rc;
}

int load_rig_file(const char *path, sensor_spec *specs, uint32_t *count)
{
    FILE *f;
    int rc = open_regular_file(path, &f);
    if (rc)
        return rc;
    rc = load_rig(f, path, specs, count);
    fclose(f);
    return rc;
}

void free_specs(sensor_spec *specs, uint32_t count)
{
    for (uint32_t s = 0; s < count; s++)
        for (uint32_t k = 0; k < specs[s].nowned; k++)
            free(specs[s].owned[k]);
}

int msg_fail(const char *fmt, const char *a, unsigned long long line, const char *b)
{
    fprintf(stderr, "sensim: error: ");
    fprintf(stderr, fmt, a, line, b);
    fprintf(stderr, "\n");
    return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
}

/* Whitespace-separated finite numbers of @p s into v (at most cap): how many, or -1 for anything else. */
static int ws_numbers(const char *s, double *v, int cap)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            return n;
        char *end;
        double x = strtod(s, &end);
        if (end == s || n == cap || !isfinite(x) || (*end && *end != ' ' && *end != '\t'))
            return -1;
        v[n++] = x;
        s = end;
    }
}

/* KITTI's camera axes (x right, y down, z forward) to x forward, y left, z up. */
int pose_from_quat(double m[16], const double xyz[3], const double q[4], char *why, size_t cap)
{
    double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(fabs(qn - 1.0) <= 1e-2)) { /* NaN too */
        snprintf(why, cap, "quaternion (qx,qy,qz,qw) has norm %g, not 1", qn);
        return 1;
    }
    double x = q[0] / qn, y = q[1] / qn, z = q[2] / qn, q0 = q[3] / qn;
    m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y + q0 * z), m[2] = 2 * (x * z - q0 * y), m[3] = 0;
    m[4] = 2 * (x * y - q0 * z), m[5] = 1 - 2 * (x * x + z * z), m[6] = 2 * (y * z + q0 * x), m[7] = 0;
    m[8] = 2 * (x * z + q0 * y), m[9] = 2 * (y * z - q0 * x), m[10] = 1 - 2 * (x * x + y * y), m[11] = 0;
    m[12] = xyz[0], m[13] = xyz[1], m[14] = xyz[2], m[15] = 1;
    return 0;
}

static void kitti_to_native(const double r[12], double m[16])
{
    /* T (row-major 3x4, camera frame) -> C·T·C^T with C rows (0 0 1), (-1 0 0), (0 -1 0) */
    static const double C[3][3] = {{0, 0, 1}, {-1, 0, 0}, {0, -1, 0}};
    double R[3][3], t[3], A[3][3];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            R[i][j] = r[4 * i + j];
        t[i] = r[4 * i + 3];
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            A[i][j] = 0;
            for (int k = 0; k < 3; k++)
                for (int l = 0; l < 3; l++)
                    A[i][j] += C[i][k] * R[k][l] * C[j][l];
        }
    for (int c = 0; c < 3; c++)
        for (int rr = 0; rr < 3; rr++)
            m[4 * c + rr] = A[rr][c];
    for (int i = 0; i < 3; i++)
        m[12 + i] = C[i][0] * t[0] + C[i][1] * t[1] + C[i][2] * t[2];
    m[3] = m[7] = m[11] = 0, m[15] = 1;
}

/* The times of a KITTI times.txt (one time in seconds a line) into *out. */
static int load_times(const char *path, double **out, size_t *n)
{
    FILE *f;
    int rc = open_regular_file(path, &f);
    if (rc)
        return rc;
    char line[256];
    unsigned long long ln = 0;
    size_t cap = 0;
    int got;
    *out = NULL, *n = 0;
    while (rc == 0 && (got = next_line(f, path, ln + 1, line, sizeof line)) > 0) {
        ln++;
        double v;
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (line[strspn(line, " \t")] == '#')
            continue;
        int k = ws_numbers(line, &v, 1);
        if (k == 0)
            continue;
        if (k != 1 || fabs(v) > 9e9) {
            rc = msg_fail("%s:%llu: expected one time in seconds%s", path, ln, "");
            break;
        }
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            double *q = realloc(*out, cap * sizeof *q);
            if (!q) {
                rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
                break;
            }
            *out = q;
        }
        (*out)[(*n)++] = v;
    }
    if (got < 0 && rc == 0)
        rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
    fclose(f);
    return rc;
}

/* The next key of @p t at @p seconds (grown as needed): 0, or an exit status
 * after a message when two rows fall within one nanosecond (unless @p jump:
 * the second of two rows with the same time, which the rig takes as a jump). */
static int next_key(traj *t, size_t *cap, double seconds, const char *path, unsigned long long ln,
                    sensim_pose_key **out, int jump)
{
    if (t->n == *cap) {
        size_t c = *cap ? 2 * *cap : 1024;
        sensim_pose_key *nk = realloc(t->keys, c * sizeof *nk);
        if (!nk)
            return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        t->keys = nk, *cap = c;
    }
    sensim_pose_key *k = &t->keys[t->n];
    k->t_ns = llround(seconds * 1e9);
    if (t->n && k->t_ns <= t->keys[t->n - 1].t_ns && !(jump && k->t_ns == t->keys[t->n - 1].t_ns))
        return msg_fail("%s:%llu: two rows within the same nanosecond%s", path, ln, "");
    *out = k;
    return 0;
}

int load_trajectory(FILE *f, const char *path, int32_t frame, traj *t)
{
    return load_trajectory_times(f, path, frame, NULL, t);
}

/* ---- trajectory: t,x,y,z,roll,pitch,yaw (s, m, deg) or t,x,y,z,qw,qx,qy,qz
 * with that header; TUM (t x y z qx qy qz qw, no header); KITTI poses (3x4
 * row-major a line, with @p times_path) ---- */
void traj_reader_init(traj_reader *r, FILE *f, const char *path, int32_t frame, const char *times_path)
{
    memset(r, 0, sizeof *r);
    r->f = f, r->path = path, r->frame = frame, r->times_path = times_path;
    r->quat = -1;
    r->prev_t = -INFINITY;
}

void traj_reader_free(traj_reader *r)
{
    free(r->times);
    r->times = NULL;
}

int traj_read(traj_reader *r, traj *t, size_t until)
{
    FILE *f = r->f;
    const char *path = r->path, *times_path = r->times_path;
    const int32_t frame = r->frame;
    char line[4096];
    unsigned long long ln = r->ln;
    int quat = r->quat; /* 0 Euler CSV, 1 quaternion CSV, 2 TUM, 3 KITTI */
    double *times = r->times;
    size_t ntimes = r->ntimes;
    size_t cap = r->cap;
    int rc = 0;
    double prev_t = r->prev_t;
    int got = 1;
    while (t->n < until && (got = next_line(f, path, ln + 1, line, sizeof line)) > 0) {
        ln++;
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
        if (quat < 0) {
            double probe[13];
            int np = ws_numbers(line, probe, 13);
            if (np == 8 || np == 12) { /* TUM or KITTI: no header, this line is data */
                quat = np == 8 ? 2 : 3;
                if (frame != SENSIM_FRAME_NATIVE) {
                    rc = msg_fail("%s:%llu: TUM and KITTI trajectories only in the native frame%s", path, ln, "");
                    break;
                }
                if (quat == 3 && !times_path) {
                    rc = msg_fail("%s:%llu: KITTI poses (12 numbers a line) need their times file "
                                  "(--trajectory-times times.txt)%s", path, ln, "");
                    break;
                }
                if (quat == 3 && (rc = load_times(times_path, &times, &ntimes)))
                    break;
            }
        }
        if (quat == 2 || quat == 3) {
            double w[12];
            int want = quat == 2 ? 8 : 12;
            if (ws_numbers(line, w, 12) != want) {
                rc = msg_fail("%s:%llu: expected %s numbers separated by spaces", path, ln, quat == 2 ? "8" : "12");
                break;
            }
            size_t row = t->n;
            if (quat == 3 && row >= ntimes) {
                rc = msg_fail("%s:%llu: more poses than times in the times file%s", path, ln, "");
                break;
            }
            double tt = quat == 2 ? w[0] : times[row];
            const int jump = tt == prev_t && !r->prev_jump; /* two rows at one time: a jump */
            if (!(tt > prev_t || jump) || fabs(tt) > 9e9) {
                rc = msg_fail("%s:%llu: time must increase (two rows at one time are a jump, a third is not) and stay "
                              "within 9e9 s%s", path, ln, "");
                break;
            }
            r->prev_jump = jump;
            if (prev_t > -INFINITY && tt - prev_t > TRAJ_MAX_GAP_S) {
                char why[160];
                snprintf(why, sizeof why, "time jumps %.9g s past the row before, more than the %g s between two rows a "
                                          "trajectory may leave to interpolation", tt - prev_t, TRAJ_MAX_GAP_S);
                rc = msg_fail("%s:%llu: %s", path, ln, why);
                break;
            }
            prev_t = tt;
            sensim_pose_key *k;
            if ((rc = next_key(t, &cap, tt, path, ln, &k, jump)))
                break;
            double *m = k->pose;
            if (quat == 2) { /* TUM: t x y z qx qy qz qw (the scalar last) */
                char why[96];
                if (pose_from_quat(m, w + 1, w + 4, why, sizeof why)) {
                    rc = msg_fail("%s:%llu: %s", path, ln, why);
                    break;
                }
            } else { /* KITTI: a rotation within 1e-3, converted from camera axes */
                double worst = 0;
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++) {
                        double d = 0;
                        for (int c = 0; c < 3; c++)
                            d += w[4 * i + c] * w[4 * j + c];
                        worst = fmax(worst, fabs(d - (i == j)));
                    }
                if (worst > 1e-3) {
                    rc = msg_fail("%s:%llu: the 3x3 part is not a rotation%s", path, ln, "");
                    break;
                }
                kitti_to_native(w, m);
            }
            if (fabs(m[12]) > 1e9 || fabs(m[13]) > 1e9 || fabs(m[14]) > 1e9) {
                rc = msg_fail("%s:%llu: position beyond 1e9 m%s", path, ln, "");
                break;
            }
            t->n++;
            continue;
        }
        if (quat < 0) {
            char h[4096];
            size_t k = 0;
            for (size_t i = 0; i <= len && k < sizeof h - 1; i++)
                if (line[i] != ' ' && line[i] != '\t')
                    h[k++] = line[i];
            h[k] = '\0';
            if (!strcmp(h, "t,x,y,z,roll,pitch,yaw"))
                quat = 0;
            else if (!strcmp(h, "t,x,y,z,qw,qx,qy,qz"))
                quat = 1;
            else {
                rc = msg_fail("%s:%llu: header must be t,x,y,z,roll,pitch,yaw or t,x,y,z,qw,qx,qy,qz (or the file "
                              "TUM rows t x y z qx qy qz qw, or KITTI 3x4 poses)%s", path, ln, "");
                break;
            }
            continue;
        }
        double v[8];
        int n = parse_numbers(line, v, quat ? 8 : 7, quat ? 8 : 7);
        if (n == 0) {
            rc = msg_fail("%s:%llu: expected %s finite numbers", path, ln, quat ? "8" : "7");
            break;
        }
        const int jump = v[0] == prev_t && !r->prev_jump; /* two rows at one time: a jump */
        if (!(v[0] > prev_t || jump)) {
            rc = msg_fail("%s:%llu: time must increase (two rows at one time are a jump, a third is not)%s", path, ln,
                          "");
            break;
        }
        r->prev_jump = jump;
        if (fabs(v[0]) > 9e9) {
            rc = msg_fail("%s:%llu: time out of range%s", path, ln, "");
            break;
        }
        if (prev_t > -INFINITY && v[0] - prev_t > TRAJ_MAX_GAP_S) {
            char why[160];
            snprintf(why, sizeof why, "time jumps %.9g s past the row before, more than the %g s between two rows a "
                                      "trajectory may leave to interpolation", v[0] - prev_t, TRAJ_MAX_GAP_S);
            rc = msg_fail("%s:%llu: %s", path, ln, why);
            break;
        }
        prev_t = v[0];
        sensim_pose_key *k;
        if ((rc = next_key(t, &cap, v[0], path, ln, &k, jump)))
            break;
        if (quat) {
            /* A unit quaternion within 1e-2 (files rounded to two decimals
             * pass, then it is normalised): any other norm means a wrong
             * column order or garbage, and huge components overflowed the
             * norm to infinity (once: identity). */
            double qn = sqrt(v[4] * v[4] + v[5] * v[5] + v[6] * v[6] + v[7] * v[7]);
            if (!(fabs(qn - 1.0) <= 1e-2) || frame != SENSIM_FRAME_NATIVE) {
                char why[128];
                snprintf(why, sizeof why, frame != SENSIM_FRAME_NATIVE ? "quaternions only in the native frame"
                                                                       : "quaternion (qw,qx,qy,qz) has norm %g, not 1", qn);
                rc = msg_fail("%s:%llu: %s", path, ln, why);
                break;
            }
            double w = v[4] / qn, x = v[5] / qn, y = v[6] / qn, z = v[7] / qn, *m = k->pose;
            m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y + w * z), m[2] = 2 * (x * z - w * y), m[3] = 0;
            m[4] = 2 * (x * y - w * z), m[5] = 1 - 2 * (x * x + z * z), m[6] = 2 * (y * z + w * x), m[7] = 0;
            m[8] = 2 * (x * z + w * y), m[9] = 2 * (y * z - w * x), m[10] = 1 - 2 * (x * x + y * y), m[11] = 0;
            m[12] = v[1], m[13] = v[2], m[14] = v[3], m[15] = 1;
        } else {
            int carla = frame == SENSIM_FRAME_CARLA || frame == SENSIM_FRAME_UE;
            double rot[3] = {carla ? v[5] : v[4], carla ? v[6] : v[5], carla ? v[4] : v[6]};
            sensim_status st = sensim_pose_from_frame(frame, &v[1], rot, k->pose);
            if (st) {
                rc = msg_fail("%s:%llu: %s", path, ln, sensim_context_last_error(NULL));
                break;
            }
        }
        t->n++;
    }
    if (got < 0 && rc == 0)
        rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
    r->eof = got <= 0 || rc;
    r->ln = ln, r->quat = quat, r->times = times, r->ntimes = ntimes, r->cap = cap, r->prev_t = prev_t;
    return rc;
}

int load_trajectory_times(FILE *f, const char *path, int32_t frame, const char *times_path, traj *t)
{
    traj_reader r;
    traj_reader_init(&r, f, path, frame, times_path);
    int rc = traj_read(&r, t, SIZE_MAX);
    if (rc == 0 && r.quat == 3 && t->n != r.ntimes) {
        fprintf(stderr, "sensim: error: %s: %zu poses but %zu times in %s\n", path, t->n, r.ntimes, times_path);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
    }
    traj_reader_free(&r);
    if (rc == 0 && t->n < 2) {
        fprintf(stderr, "sensim: error: %s: a trajectory needs at least 2 rows\n", path);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
    }
    return rc;
}

/* ---- rig file: [sensor NAME] sections with type = lidar|camera, preset = ... and preset keys ---- */
int load_rig(FILE *f, const char *path, sensor_spec *specs, uint32_t *count)
{
    char line[4096];
    unsigned long long ln = 0;
    int rc = 0;
    sensor_spec *cur = NULL;
    int got = 0;
    while (rc == 0 && (got = next_line(f, path, ln + 1, line, sizeof line)) > 0) {
        ln++;
        char *p = line_content(line), *k, *v;
        if (!p)
            continue;
        if (*p == '[') {
            char name[64];
            const char *q;
            const size_t nl = section_name(p, "sensor", &q);
            if (!nl) {
                rc = msg_fail("%s:%llu: expected [sensor NAME] (NAME: 1 to 63 of A-Z a-z 0-9 _ -)%s", path, ln, "");
                break;
            }
            memcpy(name, q, nl);
            name[nl] = '\0';
            if (*count == MAX_SENSORS) {
                rc = msg_fail("%s:%llu: more than 16 sensors%s", path, ln, "");
                break;
            }
            for (uint32_t i = 0; i < *count; i++)
                if (!strcmp(specs[i].name, name))
                    rc = msg_fail("%s:%llu: sensor '%s' defined twice", path, ln, name);
            cur = &specs[(*count)++];
            memset(cur, 0, sizeof *cur);
            snprintf(cur->name, sizeof cur->name, "%s", name);
            continue;
        }
        if (!cur || !split_key_value(p, &k, &v)) {
            rc = msg_fail("%s:%llu: %s", path, ln, cur ? "expected key = value" : "a key before any [sensor NAME]");
            break;
        }
        if (!strcmp(k, "type")) {
            static const char *const navs[] = {"imu", "gnss", "odometry"};
            cur->camera = !strcmp(v, "camera");
            cur->nav = 0;
            for (int j = 0; j < 3; j++)
                if (!strcmp(v, navs[j]))
                    cur->nav = 1 + j;
            cur->radar = !strcmp(v, "radar");
            if (strcmp(v, "lidar") && !cur->camera && !cur->nav && !cur->radar) {
                rc = msg_fail("%s:%llu: type must be lidar, camera, radar, imu, gnss or odometry, not '%.64s'", path,
                              ln, v);
                break;
            }
            if (cur->type_given++) {
                rc = msg_fail("%s:%llu: type given twice for sensor '%s'", path, ln, cur->name);
                break;
            }
            continue;
        }
        if (!strcmp(k, "preset")) {
            if (cur->preset[0]) {
                rc = msg_fail("%s:%llu: preset given twice for sensor '%s'", path, ln, cur->name);
                break;
            }
            if (strlen(v) >= sizeof cur->preset || !*v) {
                rc = msg_fail("%s:%llu: preset %s", path, ln, *v ? "name longer than 1023 bytes" : "is empty");
                break;
            }
            snprintf(cur->preset, sizeof cur->preset, "%s", v);
            continue;
        }
        if (cur->nsets == MAX_SETS) {
            rc = msg_fail("%s:%llu: too many keys%s", path, ln, "");
            break;
        }
        size_t kl = strlen(k);
        for (uint32_t j = 0; j < cur->nsets && rc == 0; j++)
            if (!strncmp(cur->sets[j], k, kl) && cur->sets[j][kl] == '=') {
                fprintf(stderr, "sensim: error: %s:%llu: key '%.64s' given twice for sensor '%s'\n", path, ln, k,
                        cur->name);
                rc = EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
            }
        if (rc)
            break;
        char *kv = malloc(strlen(k) + strlen(v) + 2);
        if (!kv) {
            rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
            break;
        }
        sprintf(kv, "%s=%s", k, v);
        cur->owned[cur->nowned++] = kv;
        cur->sets[cur->nsets++] = kv;
    }
    if (got < 0 && rc == 0)
        rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
    for (uint32_t i = 0; rc == 0 && i < *count; i++) {
        sensor_spec *sp = &specs[i];
        if ((sp->nav || sp->radar) && sp->preset[0]) {
            fprintf(stderr, "sensim: error: %s: sensor '%s' is a %s: it takes keys, no preset\n", path, sp->name,
                    sp->radar ? "radar" : "navigation sensor");
            rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
        } else if (sp->camera && !sp->preset[0]) {
            snprintf(sp->preset, sizeof sp->preset, "carla_default");
        } else if (!sp->nav && !sp->radar && !sp->preset[0]) {
            fprintf(stderr, "sensim: error: %s: sensor '%s' has no preset\n", path, sp->name);
            rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
        }
    }
    if (rc == 0 && *count == 0) {
        fprintf(stderr, "sensim: error: %s: no [sensor NAME] section\n", path);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
    }
    return rc;
}


/* ---- camera file: key = value lines (sensim_camera_desc_set keys), an optional first preset = NAME ---- */
int load_camera(FILE *f, const char *path, sensim_camera_desc *d)
{
    char line[4096], seen[64][64];
    unsigned long long ln = 0;
    int got, keys = 0;
    sensim_camera_desc_init(d);
    while ((got = next_line(f, path, ln + 1, line, sizeof line)) > 0) {
        ln++;
        char *p = line_content(line), *k, *v;
        if (!p)
            continue;
        if (!split_key_value(p, &k, &v))
            return msg_fail("%s:%llu: %s", path, ln, "expected key = value");
        if (!strcmp(k, "preset") && keys)
            return msg_fail("%s:%llu: %s", path, ln, "preset must come before the other keys (it sets them all)");
        for (int j = 0; j < keys && j < 64; j++) /* a key given twice would silently keep the last value */
            if (!strncmp(seen[j], k, sizeof seen[j] - 1) && strlen(k) < sizeof seen[j]) {
                fprintf(stderr, "sensim: error: %s:%llu: key '%.64s' given twice\n", path, ln, k);
                return EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
            }
        if (keys < 64)
            snprintf(seen[keys], sizeof seen[keys], "%s", k);
        sensim_status st = !strcmp(k, "preset") ? sensim_camera_desc_preset(v, d) : sensim_camera_desc_set(d, k, v);
        if (st != SENSIM_OK) {
            msg_fail("%s:%llu: %s", path, ln, sensim_context_last_error(NULL));
            return EXIT_STATUS_BASE + (int)st;
        }
        keys++;
    }
    if (got < 0 || ferror(f)) {
        if (got >= 0)
            fprintf(stderr, "sensim: error: %s: read error\n", path);
        return EXIT_STATUS_BASE + (got < 0 ? SENSIM_ERR_PARSE : SENSIM_ERR_IO);
    }
    return 0;
}

int load_camera_file(const char *path, sensim_camera_desc *d)
{
    FILE *f;
    int rc = open_regular_file(path, &f);
    if (rc)
        return rc;
    rc = load_camera(f, path, d);
    fclose(f);
    return rc;
}




int load_number_rows(const char *path, const char *header, int cols, uint32_t max_rows, double **out, uint32_t *n)
{
    FILE *f;
    *out = NULL, *n = 0;
    int rc = open_regular_file(path, &f);
    if (rc)
        return rc;
    char line[4096];
    unsigned long long ln = 0;
    int got;
    double *rows = NULL;
    uint32_t cap = 0;
    while (rc == 0 && (got = next_line(f, path, ln + 1, line, sizeof line)) > 0) {
        ln++;
        char *p = line_content(line);
        if (!p)
            continue;
        if (*n == 0 && !rows && !strcmp(p, header)) /* the optional header line */
            continue;
        double v[16];
        if (parse_numbers(p, v, cols, cols) != cols) {
            char want[160];
            snprintf(want, sizeof want, "expected %d comma-separated finite numbers (%s)", cols, header);
            rc = msg_fail("%s:%llu: %s", path, ln, want);
            break;
        }
        if (*n == max_rows) {
            rc = msg_fail("%s:%llu: more rows than the limit%s", path, ln, "");
            break;
        }
        if (*n == cap) {
            uint32_t c = cap ? 2 * cap : 64;
            double *r = realloc(rows, (size_t)c * cols * sizeof *r);
            if (!r) {
                rc = msg_fail("%s:%llu: out of memory%s", path, ln, "");
                break;
            }
            rows = r, cap = c;
        }
        memcpy(&rows[(size_t)*n * cols], v, cols * sizeof *v);
        (*n)++;
    }
    if (got < 0 && rc == 0)
        rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
    fclose(f);
    if (rc) {
        free(rows);
        *n = 0;
        return rc;
    }
    *out = rows;
    return 0;
}

/* The set "KEY=..." of @p sp, or NULL. */
static const char **find_set(sensor_spec *sp, const char *key)
{
    size_t kl = strlen(key);
    for (uint32_t j = 0; j < sp->nsets; j++)
        if (!strncmp(sp->sets[j], key, kl) && sp->sets[j][kl] == '=')
            return &sp->sets[j];
    return NULL;
}

int rig_mounts_from_frame(sensor_spec *specs, uint32_t count, int32_t frame, const char *path)
{
    if (frame == SENSIM_FRAME_NATIVE || frame == SENSIM_FRAME_ISO8855)
        return 0;
    for (uint32_t i = 0; i < count; i++) {
        sensor_spec *sp = &specs[i];
        const char **xs = find_set(sp, "mount_xyz_m"), **rs = find_set(sp, "mount_rpy_deg");
        if (!xs && !rs)
            continue;
        double xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0};
        if ((xs && parse_numbers(strchr(*xs, '=') + 1, xyz, 3, 3) != 3) ||
            (rs && parse_numbers(strchr(*rs, '=') + 1, rpy, 3, 3) != 3)) {
            fprintf(stderr, "sensim: error: %s: sensor '%s': mount_xyz_m and mount_rpy_deg need three numbers "
                    "each\n", path, sp->name);
            return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
        }
        /* typed in the run's frame (CARLA: y right, yaw clockwise, pitch up; UE: centimetres):
         * the same pose in native numbers for the sensors' own parsers */
        double M[16], loc[3], rot[3];
        const double carla_rot[3] = {rpy[1], rpy[2], rpy[0]}; /* sensim_pose_from_frame: pitch, yaw, roll */
        sensim_status st = sensim_pose_from_frame(frame, xyz, carla_rot, M);
        if (!st)
            st = sensim_pose_to_frame(SENSIM_FRAME_NATIVE, M, loc, rot);
        if (st) {
            fprintf(stderr, "sensim: error: %s: sensor '%s': mount: %s\n", path, sp->name,
                    sensim_context_last_error(NULL));
            return EXIT_STATUS_BASE + (int)st;
        }
        char buf[2][160];
        snprintf(buf[0], sizeof buf[0], "mount_xyz_m=%.17g,%.17g,%.17g", loc[0], loc[1], loc[2]);
        snprintf(buf[1], sizeof buf[1], "mount_rpy_deg=%.17g,%.17g,%.17g", rot[0], rot[1], rot[2]);
        for (int k = 0; k < 2; k++) {
            const char **slot = k == 0 ? xs : rs;
            if (!slot) {
                if (sp->nsets == MAX_SETS) {
                    fprintf(stderr, "sensim: error: %s: sensor '%s': too many keys\n", path, sp->name);
                    return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
                }
                slot = &sp->sets[sp->nsets++];
            }
            char *kv = strdup(buf[k]);
            if (!kv || sp->nowned == MAX_SETS) {
                free(kv);
                return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
            }
            sp->owned[sp->nowned++] = kv;
            *slot = kv;
        }
    }
    return 0;
}
