/* sensim run SURVEY.json: one reviewable file for a whole run.
 *
 * A survey is a JSON object whose keys are the options of one command,
 * without the leading "--" ("command" names the command, batch by default):
 * the run is exactly `sensim COMMAND --key value ...` in the file's key
 * order, parsed by that command's own parser. So every flag has a survey key
 * and every survey key is a flag, by construction, and a survey is checked
 * as strictly as a command line. Values:
 *   "text" -> --key text          12 / 0.5 -> --key 12 / --key 0.5
 *   true   -> --key (a switch)    false    -> nothing
 *   [1, 2, 3]       -> --key 1,2,3 (numbers: one comma-separated value)
 *   ["a", "b"]      -> --key a --key b (strings: the option repeated)
 *   "set": {"k": v} -> --set k=v for each member
 * Keys starting with "_" are comments. Relative paths are relative to the
 * survey's folder (the run starts there). Parsed with Jansson (Debian
 * libjansson-dev): duplicate keys are refused, errors name file, line and
 * column. */
#define _GNU_SOURCE
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SURVEY_MAX_BYTES (16u << 20)
#define SURVEY_MAX_ARGS 4096

typedef struct argbuf {
    char *v[SURVEY_MAX_ARGS];
    int n;
} argbuf;

static int survey_error(const char *path, const char *key, const char *msg)
{
    if (key)
        fprintf(stderr, "sensim: error: %s: key \"%.100s\": %s\n", path, key, msg);
    else
        fprintf(stderr, "sensim: error: %s: %s\n", path, msg);
    return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
}

static int push(argbuf *a, const char *s)
{
    if (a->n == SURVEY_MAX_ARGS - 1)
        return -1;
    if (!(a->v[a->n] = strdup(s)))
        return -1;
    a->n++;
    return 0;
}

/* A number as the command line would spell it: integers exactly, reals
 * with every digit (%.17g round-trips a double). */
static void number_text(const json_t *v, char *buf, size_t cap)
{
    if (json_is_integer(v))
        snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
    else
        snprintf(buf, cap, "%.17g", json_real_value(v));
}

static int key_ok(const char *k)
{
    if (!*k || *k == '-' || strlen(k) > 64)
        return 0;
    for (const char *p = k; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
            return 0;
    return 1;
}

/* The options of one key. 0, or an exit status after a message. */
static int add_key(argbuf *a, const char *path, const char *key, const json_t *v)
{
    char opt[80], buf[512];
    snprintf(opt, sizeof opt, "--%s", key);
    if (!key_ok(key))
        return survey_error(path, key, "keys are option names: a-z, 0-9 and '-', as in `sensim COMMAND --help`");
    int bad = 0;
    switch (json_typeof(v)) {
    case JSON_TRUE:
        bad = push(a, opt);
        break;
    case JSON_FALSE:
        break;
    case JSON_STRING:
        if (strlen(json_string_value(v)) != json_string_length(v))
            return survey_error(path, key, "the text holds a NUL character");
        bad = push(a, opt) || push(a, json_string_value(v));
        break;
    case JSON_INTEGER:
    case JSON_REAL:
        number_text(v, buf, sizeof buf);
        bad = push(a, opt) || push(a, buf);
        break;
    case JSON_ARRAY: {
        size_t n = json_array_size(v), i;
        json_t *e;
        if (n == 0)
            return survey_error(path, key, "an empty list");
        int numbers = json_is_number(json_array_get(v, 0));
        json_array_foreach(v, i, e) {
            if (numbers ? !json_is_number(e) : !json_is_string(e))
                return survey_error(path, key, "a list holds numbers only (one comma-separated value) or strings "
                                               "only (the option repeated)");
        }
        if (numbers) {
            size_t len = 0;
            char *joined = malloc(32 * n + 1);
            if (!joined)
                return survey_error(path, key, "out of memory");
            json_array_foreach(v, i, e) {
                number_text(e, buf, sizeof buf);
                len += (size_t)sprintf(joined + len, "%s%s", i ? "," : "", buf);
            }
            bad = push(a, opt) || push(a, joined);
            free(joined);
        } else {
            json_array_foreach(v, i, e) {
                if (strlen(json_string_value(e)) != json_string_length(e))
                    return survey_error(path, key, "a text holds a NUL character");
                bad = bad || push(a, opt) || push(a, json_string_value(e));
            }
        }
        break;
    }
    case JSON_OBJECT: {
        if (strcmp(key, "set"))
            return survey_error(path, key, "only \"set\" takes an object ({\"KEY\": value} overrides)");
        const char *k;
        json_t *e;
        json_object_foreach((json_t *)v, k, e) {
            char val[400];
            if (json_is_string(e) && strlen(json_string_value(e)) == json_string_length(e))
                snprintf(val, sizeof val, "%s", json_string_value(e));
            else if (json_is_number(e))
                number_text(e, val, sizeof val);
            else if (json_is_boolean(e))
                snprintf(val, sizeof val, "%s", json_is_true(e) ? "true" : "false");
            else
                return survey_error(path, key, "a \"set\" member must be text, a number or true/false");
            char kv[1024];
            int len = snprintf(kv, sizeof kv, "%s=%s", k, val);
            if (len < 0 || (size_t)len >= sizeof kv || strlen(val) >= sizeof val - 1)
                return survey_error(path, key, "an override is too long");
            bad = bad || push(a, opt) || push(a, kv);
        }
        break;
    }
    default:
        return survey_error(path, key, "null is not a value (leave the key out)");
    }
    return bad ? survey_error(path, key, "too many options") : 0;
}

int cmd_run(int argc, char **argv, cli_dispatch_fn dispatch)
{
    int dry = 0, first_extra = 3;
    const char *path = argc > 2 ? argv[2] : NULL;
    if (path && !strcmp(path, "--dry-run")) {
        dry = 1;
        path = argc > 3 ? argv[3] : NULL;
        first_extra = 4;
    }
    if (!path || path[0] == '-')
        return usage("run needs a survey file: sensim run [--dry-run] SURVEY.json [OPTION VALUE]...");
    FILE *f;
    int rc = open_regular_file(path, &f);
    if (rc)
        return rc;
    char *text = malloc(SURVEY_MAX_BYTES + 1);
    size_t n = text ? fread(text, 1, SURVEY_MAX_BYTES + 1, f) : 0;
    int rerr = ferror(f);
    fclose(f);
    if (!text || rerr || n > SURVEY_MAX_BYTES) {
        free(text);
        return survey_error(path, NULL, !text ? "out of memory" : rerr ? "read error" : "larger than 16 MiB");
    }
    json_error_t err;
    json_t *root = json_loadb(text, n, JSON_REJECT_DUPLICATES, &err);
    free(text);
    if (!root) {
        fprintf(stderr, "sensim: error: %s:%d:%d: %s\n", path, err.line, err.column, err.text);
        return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
    }
    argbuf a = {.n = 0};
    const char *command = "batch";
    rc = 0;
    if (!json_is_object(root))
        rc = survey_error(path, NULL, "a survey is one JSON object of option keys");
    json_t *c = rc ? NULL : json_object_get(root, "command");
    if (c) {
        static const char *const ok[] = {"scan", "batch", "render", "bench", "demo", "placement"}; /* no positionals */
        size_t k = 0;
        while (k < 6 && !(json_is_string(c) && !strcmp(json_string_value(c), ok[k])))
            k++;
        if (k == 6)
            rc = survey_error(path, "command", "one of scan, batch, render, bench, demo, placement");
        else
            command = ok[k];
    }
    if (!rc && (push(&a, argv[0]) || push(&a, command)))
        rc = survey_error(path, NULL, "out of memory");
    const char *key;
    json_t *v;
    if (!rc)
        json_object_foreach(root, key, v) {
            if (!strcmp(key, "command") || key[0] == '_')
                continue;
            if ((rc = add_key(&a, path, key, v)) != 0)
                break;
        }
    json_decref(root);
    for (int i = first_extra; !rc && i < argc; i++) /* options after the survey: appended, so they win */
        if (push(&a, argv[i]))
            rc = survey_error(path, NULL, "too many options");
    if (rc) {
        for (int i = 0; i < a.n; i++)
            free(a.v[i]);
        return rc;
    }
    a.v[a.n] = NULL;
    /* the run starts in the survey's folder: its relative paths are relative to the file */
    char *dir_copy = strdup(path), *dir = dir_copy ? dirname(dir_copy) : NULL;
    if (!dir || chdir(dir) != 0) {
        fprintf(stderr, "sensim: error: %s: cannot enter the survey's folder: %s\n", path, strerror(errno));
        rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
    } else if (dry) {
        printf("cd '%s' &&", dir);
        for (int i = 0; i < a.n; i++) {
            const char *s = i ? a.v[i] : "sensim";
            int plain = *s != 0;
            for (const char *p = s; *p; p++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=.,:/+", *p))
                    plain = 0;
            if (plain) {
                printf(" %s", s);
            } else {
                printf(" '");
                for (const char *p = s; *p; p++)
                    *p == '\'' ? printf("'\\''") : putchar(*p);
                printf("'");
            }
        }
        printf("\n");
    } else {
        cli_set_survey(path);
        rc = dispatch(a.n, a.v);
    }
    free(dir_copy);
    for (int i = 0; i < a.n; i++)
        free(a.v[i]);
    return rc;
}
