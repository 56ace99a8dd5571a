/* The actor file of `sensim batch --actors` (docs/formats.md, Actors). */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- actor file: [actor NAME] sections with id, tag, mesh = box L W H | FILE, trajectory = FILE ---- */
static int cmp_actor_id(const void *a, const void *b)
{
    const actor_spec *x = *(const actor_spec *const *)a, *y = *(const actor_spec *const *)b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x > y) - (x < y); /* file order */
}

int load_actors(FILE *f, const char *path, actor_spec **out, uint32_t *count)
{
    actor_spec *actors = *out;
    uint32_t cap = *count;
    char line[4096];
    unsigned long long ln = 0;
    int rc = 0, got;
    actor_spec *cur = NULL;
    while (rc == 0 && (got = next_line(f, path, ln + 1, line, sizeof line)) > 0) {
        ln++;
        char *p = line_content(line), *k, *v;
        if (!p)
            continue;
        if (*p == '[') {
            const char *q;
            const size_t nl = section_name(p, "actor", &q);
            if (!nl) {
                rc = msg_fail("%s:%llu: expected [actor NAME] (NAME: 1 to 63 of A-Z a-z 0-9 _ -)%s", path, ln, "");
                break;
            }
            if (*count == MAX_ACTORS) {
                rc = msg_fail("%s:%llu: more than 65536 actors (the actor file's budget)%s", path, ln, "");
                break;
            }
            if (*count == cap) {
                uint32_t nc = cap ? 2 * cap : 16;
                actor_spec *g = realloc(actors, (size_t)nc * sizeof *g);
                if (!g) {
                    fprintf(stderr, "sensim: error: %s:%llu: out of memory for %u actors\n", path, ln, nc);
                    rc = EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
                    break;
                }
                actors = *out = g, cap = nc;
            }
            cur = &actors[(*count)++];
            memset(cur, 0, sizeof *cur);
            memcpy(cur->name, q, nl);
            cur->tag = -1;
            continue;
        }
        if (!cur || !split_key_value(p, &k, &v)) {
            rc = msg_fail("%s:%llu: %s", path, ln, cur ? "expected key = value" : "a key before any [actor NAME]");
            break;
        }
        static const char *const actor_keys[] = {"id", "tag", "mesh", "trajectory"};
        for (unsigned j = 0; j < 4; j++)
            if (!strcmp(k, actor_keys[j])) {
                if (cur->keys_seen & (1u << j)) {
                    fprintf(stderr, "sensim: error: %s:%llu: key '%s' given twice for actor '%s'\n", path, ln, k,
                            cur->name);
                    rc = EXIT_STATUS_BASE + SENSIM_ERR_DUPLICATE;
                }
                cur->keys_seen |= 1u << j;
            }
        if (rc)
            break;
        if (!strcmp(k, "id")) {
            uint32_t id;
            if (!parse_u32(v, &id) || id == 0) {
                rc = msg_fail("%s:%llu: id must be an integer in 1..4294967295, not '%.64s'", path, ln, v);
                break;
            }
            cur->id = id;
        } else if (!strcmp(k, "tag")) {
            if ((cur->tag = sensim_tag_from_label(v)) < 0) {
                rc = msg_fail("%s:%llu: tag '%.64s' is neither a CARLA tag name nor 0..28", path, ln, v);
                break;
            }
        } else if (!strcmp(k, "mesh")) {
            if (strncmp(v, "box", 3) == 0 && (v[3] == ' ' || v[3] == '\t')) {
                double b[3];
                char *c = v + 3, *end;
                int n = 0;
                for (; n < 3; n++, c = end) {
                    errno = 0;
                    b[n] = strtod(c, &end);
                    if (end == c || errno || !isfinite(b[n]) || !(b[n] > 0 && b[n] <= 1e4))
                        break;
                }
                while (*c == ' ' || *c == '\t')
                    c++;
                if (n != 3 || *c) {
                    rc = msg_fail("%s:%llu: mesh = box L W H needs three sizes in (0, 1e4] m%s", path, ln, "");
                    break;
                }
                memcpy(cur->box, b, sizeof b);
            } else if (strlen(v) < sizeof cur->mesh && *v) {
                snprintf(cur->mesh, sizeof cur->mesh, "%s", v);
            } else {
                rc = msg_fail("%s:%llu: mesh must be 'box L W H' or a file path (at most 1023 bytes)%s", path, ln, "");
                break;
            }
        } else if (!strcmp(k, "trajectory")) {
            if (strlen(v) >= sizeof cur->trajectory || !*v) {
                rc = msg_fail("%s:%llu: trajectory path empty or longer than 1023 bytes%s", path, ln, "");
                break;
            }
            snprintf(cur->trajectory, sizeof cur->trajectory, "%s", v);
        } else {
            rc = msg_fail("%s:%llu: unknown actor key '%.64s' (id, tag, mesh, trajectory)", path, ln, k);
            break;
        }
    }
    if (got < 0 && rc == 0)
        rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
    for (uint32_t i = 0; rc == 0 && i < *count; i++) {
        const actor_spec *a = &actors[i];
        const char *miss = !a->id ? "id" : (!a->box[0] && !a->mesh[0]) ? "mesh" : !a->trajectory[0] ? "trajectory" : NULL;
        if (miss) {
            fprintf(stderr, "sensim: error: %s: actor '%s' needs %s\n", path, a->name, miss);
            rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
        }
    }
    if (rc == 0 && *count > 1) { /* ids unique: sorted by id (then file order), the later of two equal is named */
        const actor_spec **by = malloc((size_t)*count * sizeof *by);
        if (!by) {
            fprintf(stderr, "sensim: error: %s: out of memory for the actors\n", path);
            return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        }
        for (uint32_t i = 0; i < *count; i++)
            by[i] = &actors[i];
        qsort(by, *count, sizeof *by, cmp_actor_id);
        const actor_spec *dup = NULL;
        for (uint32_t i = 1; i < *count; i++)
            if (by[i]->id == by[i - 1]->id && (!dup || by[i] < dup))
                dup = by[i];
        free(by);
        if (dup) {
            fprintf(stderr, "sensim: error: %s: actor '%s' needs a unique id\n", path, dup->name);
            rc = EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
        }
    }
    if (rc == 0 && *count == 0) {
        fprintf(stderr, "sensim: error: %s: no [actor NAME] section\n", path);
        rc = EXIT_STATUS_BASE + SENSIM_ERR_EMPTY;
    }
    return rc;
}

int load_actors_file(const char *path, actor_spec **out, uint32_t *count)
{
    FILE *f;
    int rc = open_regular_file(path, &f);
    if (rc)
        return rc;
    rc = load_actors(f, path, out, count);
    actor_spec *actors = *out;
    fclose(f);
    /* relative mesh and trajectory paths are relative to the actor file's folder */
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    for (uint32_t i = 0; rc == 0 && i < *count && dl; i++) {
        char *fields[2] = {actors[i].mesh, actors[i].trajectory};
        for (int k = 0; k < 2; k++) {
            char tmp[1024];
            if (!fields[k][0] || fields[k][0] == '/')
                continue;
            if (dl + strlen(fields[k]) >= sizeof tmp) {
                fprintf(stderr, "sensim: error: %s: actor '%s': path longer than 1023 bytes\n", path, actors[i].name);
                return EXIT_STATUS_BASE + SENSIM_ERR_TOO_LARGE;
            }
            snprintf(tmp, sizeof tmp, "%.*s%s", (int)dl, path, fields[k]);
            memcpy(fields[k], tmp, strlen(tmp) + 1);
        }
    }
    return rc;
}
