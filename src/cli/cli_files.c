/* Trajectory and rig files of `sensim batch`: parsers from a FILE*, and the
 * small number parsers the subcommands share. */
#include "cli.h"

#include <errno.h>
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
        n++;
        p = end;
        if (*p != ',')
            break;
        p++;
    }
    return (*p || n < lo) ? 0 : n;
}

static int with_file(const char *path, FILE **f)
{
    *f = fopen(path, "r");
    if (!*f) {
        fprintf(stderr, "sensim: error: %s: cannot open: %s\n", path, strerror(errno));
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    return 0;
}

int load_trajectory_file(const char *path, int32_t frame, traj *t)
{
    FILE *f;
    int rc = with_file(path, &f);
    if (rc)
        return rc;
    rc = load_trajectory(f, path, frame, t);
    fclose(f);
    return rc;
}

int load_rig_file(const char *path, sensor_spec *specs, uint32_t *count)
{
    FILE *f;
    int rc = with_file(path, &f);
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

/* ---- trajectory: t,x,y,z,roll,pitch,yaw (s, m, deg) or t,x,y,z,qw,qx,qy,qz ---- */
int load_trajectory(FILE *f, const char *path, int32_t frame, traj *t)
{
    char line[4096];
    unsigned long long ln = 0;
    int quat = -1;
    size_t cap = 0;
    int rc = 0;
    double prev_t = -INFINITY;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' '))
            line[--len] = '\0';
        if (len == 0 || line[0] == '#')
            continue;
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
                rc = msg_fail("%s:%llu: header must be t,x,y,z,roll,pitch,yaw or t,x,y,z,qw,qx,qy,qz%s", path, ln, "");
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
        if (!(v[0] > prev_t)) {
            rc = msg_fail("%s:%llu: time must increase%s", path, ln, "");
            break;
        }
        if (fabs(v[0]) > 9e9) {
            rc = msg_fail("%s:%llu: time out of range%s", path, ln, "");
            break;
        }
        prev_t = v[0];
        if (t->n == cap) {
            cap = cap ? 2 * cap : 1024;
            sensim_pose_key *nk = realloc(t->keys, cap * sizeof *nk);
            if (!nk) {
                rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
                break;
            }
            t->keys = nk;
        }
        sensim_pose_key *k = &t->keys[t->n];
        k->t_ns = llround(v[0] * 1e9);
        if (t->n && k->t_ns <= t->keys[t->n - 1].t_ns) {
            rc = msg_fail("%s:%llu: two rows within the same nanosecond%s", path, ln, "");
            break;
        }
        if (quat) {
            double qn = sqrt(v[4] * v[4] + v[5] * v[5] + v[6] * v[6] + v[7] * v[7]);
            if (qn < 1e-9 || frame != SENSIM_FRAME_NATIVE) {
                rc = msg_fail("%s:%llu: %s", path, ln, qn < 1e-9 ? "zero quaternion" : "quaternions only in the native frame");
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
    if (rc == 0 && t->n < 2) {
        fprintf(stderr, "sensim: error: %s: a trajectory needs at least 2 rows\n", path);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
    }
    return rc;
}

/* ---- rig file: [sensor NAME] sections with preset = ... and preset keys ---- */
int load_rig(FILE *f, const char *path, sensor_spec *specs, uint32_t *count)
{
    char line[4096];
    unsigned long long ln = 0;
    int rc = 0;
    sensor_spec *cur = NULL;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        ln++;
        char *c = strchr(line, '#');
        if (c)
            *c = '\0';
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = '\0';
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            continue;
        if (*p == '[') {
            char name[64];
            if (sscanf(p, "[sensor %63[A-Za-z0-9_-]]", name) != 1 || p[strlen(p) - 1] != ']') {
                rc = msg_fail("%s:%llu: expected [sensor NAME] (NAME of A-Z a-z 0-9 _ -)%s", path, ln, "");
                break;
            }
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
        char *eq = strchr(p, '=');
        if (!cur || !eq) {
            rc = msg_fail("%s:%llu: %s", path, ln, cur ? "expected key = value" : "a key before any [sensor NAME]");
            break;
        }
        char *k = p, *ke = eq;
        while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
            ke--;
        *ke = '\0';
        char *v = eq + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if (!strcmp(k, "preset")) {
            snprintf(cur->preset, sizeof cur->preset, "%s", v);
            continue;
        }
        if (cur->nsets == MAX_SETS) {
            rc = msg_fail("%s:%llu: too many keys%s", path, ln, "");
            break;
        }
        char *kv = malloc(strlen(k) + strlen(v) + 2);
        if (!kv) {
            rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
            break;
        }
        sprintf(kv, "%s=%s", k, v);
        cur->owned[cur->nowned++] = kv;
        cur->sets[cur->nsets++] = kv;
    }
    for (uint32_t i = 0; rc == 0 && i < *count; i++)
        if (!specs[i].preset[0]) {
            fprintf(stderr, "sensim: error: %s: sensor '%s' has no preset\n", path, specs[i].name);
            rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
        }
    if (rc == 0 && *count == 0) {
        fprintf(stderr, "sensim: error: %s: no [sensor NAME] section\n", path);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
    }
    return rc;
}

