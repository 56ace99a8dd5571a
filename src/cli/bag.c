/* sensim bag info FILE.mcap: topics, types, counts, time range and
 * compression of a bag, as `ros2 bag info` prints them.
 * sensim bag echo FILE.mcap TOPIC [-n N]: its messages as YAML, as
 * `ros2 topic echo` prints them, decoded from the ros2msg definitions the
 * bag itself stores (any message type, not only sensim's). Both read with
 * the command's own MCAP reader (mcap_walk.c) and treat the file as hostile:
 * definitions are parsed with limits (64 types, 256 fields, nesting 16),
 * every read is bounded by the message. */
#include "cli.h"
#include "mcap_walk.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ID 65536 /* MCAP's schema and channel ids are uint16: every one has its slot */
#define MAX_TYPES 64
#define MAX_FIELDS 256
#define MAX_DEPTH 16
#define SHOWN_ELEMENTS 16 /* longer arrays print as ros2 topic echo --no-arr does */

typedef struct field {
    char type[128], name[64];
    int array;       /* 0 scalar, 1 dynamic, 2 fixed */
    uint32_t length; /* fixed arrays */
} field;

typedef struct msgtype {
    char name[128]; /* "pkg/Type" (the "msg/" dropped) */
    field *f;
    int nf;
} msgtype;

typedef struct schema {
    int set;
    char name[128], encoding[32];
    char *text; /* the definition, NUL-terminated copy */
} schema;

typedef struct channel {
    int set;
    uint16_t schema;
    char topic[256], encoding[32];
    uint64_t count;
} channel;

typedef struct bag {
    const char *path, *want_topic;
    schema sc[MAX_ID];
    channel ch[MAX_ID];
    uint64_t messages, t_min, t_max, chunks, chunk_comp[3];
    int64_t shown, limit;
    msgtype types[MAX_TYPES];
    int ntypes, types_of; /* the schema the types were parsed from, + 1 */
    int rc;
} bag;

static int bag_fail(bag *b, const char *what)
{
    fprintf(stderr, "sensim: error: %s: %s\n", b->path, what);
    return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
}

/* a length-prefixed (u32) string of a record into @p out */
static int rec_str(cdr *r, char *out, size_t cap)
{
    uint64_t n = cdr_le(r, 4);
    if (r->bad || n > r->n - r->at)
        return r->bad = 1, 0;
    size_t k = n < cap - 1 ? (size_t)n : cap - 4;
    memcpy(out, r->p + r->at, k);
    if (k < n) /* longer than the slot: cut, and said so */
        memcpy(out + k, "...", 3), k += 3;
    out[k] = 0;
    r->at += (size_t)n;
    return 1;
}

/* ---- ros2msg definitions ---- */

static void norm_type(const char *t, const char *pkg, char *out, size_t cap)
{
    const char *m = strstr(t, "/msg/");
    if (m)
        snprintf(out, cap, "%.*s/%s", (int)(m - t), t, m + 5);
    else if (!strchr(t, '/') && pkg[0] && strcmp(t, "Header"))
        snprintf(out, cap, "%s/%s", pkg, t);
    else if (!strcmp(t, "Header"))
        snprintf(out, cap, "std_msgs/Header");
    else
        snprintf(out, cap, "%s", t);
}

static int is_primitive(const char *t)
{
    static const char *const p[] = {"bool", "byte", "char", "int8", "uint8", "int16", "uint16", "int32",
                                    "uint32", "int64", "uint64", "float32", "float64", "string", "wstring"};
    for (size_t i = 0; i < sizeof p / sizeof *p; i++)
        if (!strcmp(t, p[i]))
            return 1;
    return 0;
}

/* Parse schema @p s into b->types (the main type first). */
static int parse_defs(bag *b, const schema *s)
{
    for (int i = 0; i < b->ntypes; i++)
        free(b->types[i].f);
    b->ntypes = 0;
    char pkg[128] = "";
    msgtype *cur = &b->types[b->ntypes++];
    memset(cur, 0, sizeof *cur);
    norm_type(s->name, "", cur->name, sizeof cur->name);
    const char *slash = strchr(cur->name, '/');
    snprintf(pkg, sizeof pkg, "%.*s", slash ? (int)(slash - cur->name) : 0, cur->name);
    for (const char *line = s->text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char l[512];
        snprintf(l, sizeof l, "%.*s", (int)(n < sizeof l - 1 ? n : sizeof l - 1), line);
        line = end ? end + 1 : NULL;
        char *hash = strchr(l, '#');
        if (hash)
            *hash = 0;
        if (!strncmp(l, "MSG:", 4)) { /* a dependency's section */
            if (b->ntypes == MAX_TYPES)
                return -1;
            cur = &b->types[b->ntypes++];
            memset(cur, 0, sizeof *cur);
            char t[128] = "";
            if (sscanf(l + 4, " %127s", t) != 1)
                return -1;
            norm_type(t, "", cur->name, sizeof cur->name);
            slash = strchr(cur->name, '/');
            snprintf(pkg, sizeof pkg, "%.*s", slash ? (int)(slash - cur->name) : 0, cur->name);
            continue;
        }
        char t[128], name[64];
        if (l[0] == '=' || sscanf(l, " %127s %63s", t, name) != 2 || strchr(name, '=') || strchr(l, '='))
            continue; /* separators, blank lines, constants */
        if (cur->nf == MAX_FIELDS)
            return -1;
        if (!cur->f && !(cur->f = calloc(MAX_FIELDS, sizeof *cur->f)))
            return -1;
        field *f = &cur->f[cur->nf++];
        memset(f, 0, sizeof *f);
        char *br = strchr(t, '[');
        if (br) {
            f->array = br[1] == ']' || br[1] == '<' ? 1 : 2;
            f->length = f->array == 2 ? (uint32_t)strtoul(br + 1, NULL, 10) : 0;
            *br = 0;
        }
        char *bound = strstr(t, "<=");
        if (bound)
            *bound = 0; /* string<=N */
        if (is_primitive(t))
            snprintf(f->type, sizeof f->type, "%s", t);
        else
            norm_type(t, pkg, f->type, sizeof f->type);
        snprintf(f->name, sizeof f->name, "%s", name);
    }
    return 0;
}

static const msgtype *find_type(const bag *b, const char *name)
{
    for (int i = 0; i < b->ntypes; i++)
        if (!strcmp(b->types[i].name, name))
            return &b->types[i];
    return NULL;
}

/* ---- decoding and printing ---- */

/* A message is decoded whole into a buffer (open_memstream) and printed only when all of it decoded: a
 * malformed one prints nothing of itself, only the error (issue 62 item 15). */
static FILE *echo_out;
static int print_msg(bag *b, cdr *r, const msgtype *m, int depth, int first_inline);

/* Prints @p m decoded from @p r, then "---", to stdout when the whole of it decodes: 0, or -1 with nothing
 * printed and r->at the offset in the message where decoding stopped. */
static int echo_whole(bag *b, cdr *r, const msgtype *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return -1;
    echo_out = mem;
    int rc = print_msg(b, r, m, 0, 0);
    echo_out = NULL;
    if (fclose(mem) || !buf)
        rc = -1;
    if (!rc) {
        fwrite(buf, 1, len, stdout);
        fputs("---\n", stdout);
    }
    free(buf);
    return rc;
}

static void print_double(double v)
{
    char s[40];
    for (int p = 1; p <= 17; p++) { /* the shortest that reads back, as Python's repr */
        snprintf(s, sizeof s, "%.*g", p, v);
        if (strtod(s, NULL) == v)
            break;
    }
    if (!strpbrk(s, ".eEni")) /* 3 -> 3.0, as a float */
        strcat(s, ".0");
    fputs(s, echo_out);
}

static int prim_size(const char *t)
{
    if (!strcmp(t, "float64") || !strcmp(t, "int64") || !strcmp(t, "uint64"))
        return 8;
    if (!strcmp(t, "float32") || !strcmp(t, "int32") || !strcmp(t, "uint32"))
        return 4;
    if (!strcmp(t, "int16") || !strcmp(t, "uint16"))
        return 2;
    return 1;
}

static void print_prim(cdr *r, const char *t)
{
    if (!strcmp(t, "string") || !strcmp(t, "wstring")) {
        /* the whole string, however long: uint32 length with its NUL, then the bytes */
        uint64_t len = cdr_u(r, 4);
        if (r->bad || len > r->n - r->at) {
            r->bad = 1;
            return;
        }
        const char *s = (const char *)r->p + r->at;
        size_t n = len ? (size_t)len - 1 : 0;
        r->at += (size_t)len;
        const char *nul = memchr(s, 0, n);
        n = nul ? (size_t)(nul - s) : n;
        /* plain when YAML reads it back as the same string (as ros2 topic echo prints frame ids), else
         * single-quoted with ' doubled; control characters as '?' */
        static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/.-";
        size_t ok = 0;
        while (ok < n && strchr(safe, s[ok]))
            ok++;
        int plain = n && ok == n && !strchr("-.0123456789", s[0]) && !(n == 4 && !memcmp(s, "true", 4)) &&
                    !(n == 5 && !memcmp(s, "false", 5)) && !(n == 4 && !memcmp(s, "null", 4));
        if (plain) {
            fwrite(s, 1, n, echo_out);
            return;
        }
        fprintf(echo_out, "'");
        for (size_t i = 0; i < n; i++)
            fprintf(echo_out, s[i] == '\'' ? "''" : "%c", (unsigned char)s[i] < 32 ? '?' : s[i]);
        fprintf(echo_out, "'");
        return;
    }
    int k = prim_size(t);
    uint64_t u = cdr_u(r, k);
    if (!strcmp(t, "float64")) {
        double d;
        memcpy(&d, &u, 8);
        print_double(d);
    } else if (!strcmp(t, "float32")) {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, 4);
        print_double((double)f);
    } else if (!strcmp(t, "bool")) {
        fprintf(echo_out, u ? "true" : "false");
    } else if (t[0] == 'i') { /* signed */
        int64_t v = k == 8 ? (int64_t)u : k == 4 ? (int32_t)u : k == 2 ? (int16_t)u : (int8_t)u;
        fprintf(echo_out, "%" PRId64, v);
    } else {
        fprintf(echo_out, "%" PRIu64, u);
    }
}

static void indent(int n)
{
    for (int i = 0; i < n; i++)
        fprintf(echo_out, "  ");
}

static int print_msg(bag *b, cdr *r, const msgtype *m, int depth, int first_inline);

static int print_value(bag *b, cdr *r, const field *f, int depth)
{
    if (is_primitive(f->type)) {
        fprintf(echo_out, " ");
        print_prim(r, f->type);
        fprintf(echo_out, "\n");
        return 0;
    }
    fprintf(echo_out, "\n");
    const msgtype *m = find_type(b, f->type);
    if (!m && (!strcmp(f->type, "builtin_interfaces/Time") || !strcmp(f->type, "builtin_interfaces/Duration"))) {
        int32_t sec = (int32_t)cdr_u(r, 4);
        uint32_t ns = (uint32_t)cdr_u(r, 4);
        indent(depth + 1), fprintf(echo_out, "sec: %" PRId32 "\n", sec);
        indent(depth + 1), fprintf(echo_out, "nanosec: %" PRIu32 "\n", ns);
        return 0;
    }
    return m ? print_msg(b, r, m, depth + 1, 0) : -1;
}

/* The fields of @p m at @p depth (the first on the current line after a list's "- " when
 * @p first_inline), as ros2 topic echo prints them. */
static int print_msg(bag *b, cdr *r, const msgtype *m, int depth, int first_inline)
{
    if (depth > MAX_DEPTH)
        return -1;
    for (int i = 0; i < m->nf && !r->bad; i++) {
        const field *f = &m->f[i];
        if (i || !first_inline)
            indent(depth);
        fprintf(echo_out, "%s:", f->name);
        if (!f->array) {
            if (print_value(b, r, f, depth))
                return -1;
            continue;
        }
        uint64_t n = f->array == 2 ? f->length : cdr_u(r, 4);
        if (r->bad || n > r->n) /* every element takes a byte at least */
            return r->bad = 1, -1;
        if (is_primitive(f->type) && n > SHOWN_ELEMENTS) { /* skipped whole, named as --no-arr does */
            int k = strcmp(f->type, "string") && strcmp(f->type, "wstring") ? prim_size(f->type) : 0;
            if (k) {
                cdr_u(r, k); /* align to the first element */
                r->at -= (size_t)k;
                if (r->bad || n * (uint64_t)k > r->n - r->at)
                    return r->bad = 1, -1;
                r->at += (size_t)(n * (uint64_t)k);
            } else {
                char tmp[8];
                for (uint64_t j = 0; j < n && !r->bad; j++)
                    cdr_str(r, tmp, sizeof tmp);
            }
            fprintf(echo_out, " '<sequence type: %s, length: %" PRIu64 ">'\n", f->type, n);
            continue;
        }
        if (n == 0) {
            fprintf(echo_out, " []\n");
            continue;
        }
        fprintf(echo_out, "\n");
        const msgtype *sub = is_primitive(f->type) ? NULL : find_type(b, f->type);
        if (!is_primitive(f->type) && !sub)
            return -1;
        for (uint64_t j = 0; j < n && !r->bad; j++) {
            indent(depth);
            fprintf(echo_out, "- ");
            if (sub) {
                if (print_msg(b, r, sub, depth + 1, 1))
                    return -1;
            } else {
                print_prim(r, f->type);
                fprintf(echo_out, "\n");
            }
        }
    }
    return r->bad ? -1 : 0;
}

/* ---- the walk ---- */

static int on_record(void *user, uint8_t op, const uint8_t *c, size_t len)
{
    bag *b = user;
    cdr r = {c, len, 0, 0};
    if (op == 0x03) { /* schema: id, name, encoding, data */
        uint16_t id = (uint16_t)cdr_le(&r, 2);
        schema *s = &b->sc[id ];
        if (!rec_str(&r, s->name, sizeof s->name) || !rec_str(&r, s->encoding, sizeof s->encoding))
            return bag_fail(b, "a malformed schema record");
        uint64_t n = cdr_le(&r, 4);
        if (r.bad || n > len - r.at)
            return bag_fail(b, "a malformed schema record");
        free(s->text);
        if (!(s->text = malloc((size_t)n + 1)))
            return EXIT_STATUS_BASE + SENSIM_ERR_OUT_OF_MEMORY;
        memcpy(s->text, c + r.at, (size_t)n);
        s->text[n] = 0;
        s->set = 1;
        if (b->types_of == (id ) + 1)
            b->types_of = 0; /* redefined: parse again */
    } else if (op == 0x04) { /* channel: id, schema id, topic, message encoding */
        uint16_t id = (uint16_t)cdr_le(&r, 2), sid = (uint16_t)cdr_le(&r, 2);
        channel *h = &b->ch[id];
        if (!rec_str(&r, h->topic, sizeof h->topic) || !rec_str(&r, h->encoding, sizeof h->encoding))
            return bag_fail(b, "a malformed channel record");
        h->schema = sid, h->set = 1;
    } else if (op == 0x05 && len >= 22) { /* message: channel, sequence, log time, publish time, data */
        uint16_t id = (uint16_t)cdr_le(&r, 2);
        cdr_le(&r, 4);
        uint64_t t = cdr_le(&r, 8);
        b->messages++;
        b->t_min = b->messages == 1 || t < b->t_min ? t : b->t_min;
        b->t_max = t > b->t_max ? t : b->t_max;
        if (!b->ch[id].set)
            return 0;
        b->ch[id].count++;
        if (!b->want_topic || strcmp(b->ch[id].topic, b->want_topic) || (b->limit >= 0 && b->shown >= b->limit))
            return 0;
        const schema *s = &b->sc[b->ch[id].schema ];
        if (!s->set || strcmp(s->encoding, "ros2msg") || strcmp(b->ch[id].encoding, "cdr"))
            return bag_fail(b, "the topic's messages are not cdr with a ros2msg schema");
        if (b->types_of != (b->ch[id].schema ) + 1) {
            if (parse_defs(b, s))
                return bag_fail(b, "a message definition past the reader's limits");
            b->types_of = (b->ch[id].schema ) + 1;
        }
        cdr m = {c + 22, len - 22, 4, 0};
        if (len < 26 || c[23] != 1)
            return bag_fail(b, "a message that is not little-endian CDR");
        if (echo_whole(b, &m, &b->types[0])) {
            fprintf(stderr,
                    "sensim: error: %s: message %" PRIu64 " of %s does not match %s (decoding stopped at byte %zu "
                    "of %zu)\n",
                    b->path, b->shown, b->ch[id].topic, s->name, m.at, m.n);
            return EXIT_STATUS_BASE + SENSIM_ERR_PARSE;
        }
        b->shown++;
    }
    return 0;
}

static void on_chunk(void *user, const char *comp, uint64_t usize, uint64_t csize)
{
    bag *b = user;
    b->chunks++;
    b->chunk_comp[!strcmp(comp, "zstd") ? 1 : !strcmp(comp, "lz4") ? 2 : 0]++;
    (void)usize, (void)csize;
}

static void print_time(const char *label, uint64_t ns)
{
    time_t s = (time_t)(ns / 1000000000u);
    struct tm tm;
    char d[64] = "";
    if (gmtime_r(&s, &tm))
        strftime(d, sizeof d, "%b %e %Y %H:%M:%S", &tm);
    printf("%-19s%s.%09" PRIu64 " (%" PRIu64 ".%09" PRIu64 ")\n", label, d, ns % 1000000000u,
           ns / 1000000000u, ns % 1000000000u);
}

static void bag_free(bag *b)
{
    for (int i = 0; i < MAX_ID; i++)
        free(b->sc[i].text);
    for (int i = 0; i < b->ntypes; i++)
        free(b->types[i].f);
    free(b);
}

/* One live message of ros2msg definition @p def (type @p type) printed as ros2 topic echo prints it, for
 * sensim topic echo: 0, or -1 when it does not match its definition (nothing of it printed; @p out_offset the
 * byte where decoding stopped). */
int echo_cdr(const char *type, const char *def, const uint8_t *msg, size_t n, size_t *out_offset)
{
    static bag *eb;
    static char parsed[128];
    if (!eb && !(eb = calloc(1, sizeof *eb)))
        return -1;
    if (strcmp(parsed, type)) {
        schema sc = {1, "", "ros2msg", (char *)def};
        snprintf(sc.name, sizeof sc.name, "%s", type);
        if (parse_defs(eb, &sc))
            return -1;
        snprintf(parsed, sizeof parsed, "%s", type);
    }
    size_t pad = n >= 4 ? msg[3] & 3u : 0;
    cdr r = {msg, n - (n >= 4 + pad ? pad : 0), 4, 0};
    *out_offset = 0;
    if (n < 4 || msg[1] != 1) /* the encapsulation header: little-endian plain CDR only */
        return -1;
    int rc = echo_whole(eb, &r, &eb->types[0]);
    *out_offset = r.at;
    return rc;
}

int cmd_bag(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[2], "info") && strcmp(argv[2], "echo")))
        return usage("bag needs 'info FILE.mcap' or 'echo FILE.mcap TOPIC [-n N]'");
    int echo = !strcmp(argv[2], "echo");
    bag *b = calloc(1, sizeof *b);
    if (!b)
        return fail(SENSIM_ERR_OUT_OF_MEMORY);
    b->path = argv[3], b->limit = -1;
    if (echo) {
        if (argc < 5) {
            free(b);
            return usage("bag echo needs FILE.mcap TOPIC [-n N]");
        }
        b->want_topic = argv[4];
        for (int i = 5; i < argc; i++) {
            uint32_t n;
            if (!strcmp(argv[i], "-n") && i + 1 < argc && parse_u32(argv[i + 1], &n)) {
                b->limit = n, i++;
            } else {
                free(b);
                return usage_option(argv[i], 0);
            }
        }
    } else if (argc > 4) {
        free(b);
        return usage_option(argv[4], 0);
    }
    mcap_walker w = {b->path, b, on_record, on_chunk, 0, 0};
    int rc = mcap_walk_file(&w);
    if (!rc && echo) {
        int found = 0;
        for (int i = 0; i < MAX_ID; i++)
            found |= b->ch[i].set && !strcmp(b->ch[i].topic, b->want_topic);
        if (!found) {
            fprintf(stderr, "sensim: error: %s: no topic '%s' (sensim bag info lists them)\n", b->path, b->want_topic);
            rc = EXIT_STATUS_BASE + SENSIM_ERR_NOT_FOUND;
        }
    }
    if (!rc && !echo) {
        const char *slash = strrchr(b->path, '/');
        printf("%-19s%s\n", "Files:", slash ? slash + 1 : b->path);
        printf("%-19s%.1f KiB\n", "Bag size:", (double)w.file_bytes / 1024.0);
        printf("%-19s%s\n", "Storage id:", "mcap");
        uint64_t d = b->messages ? b->t_max - b->t_min : 0;
        printf("%-19s%" PRIu64 ".%09" PRIu64 "s\n", "Duration:", d / 1000000000u, d % 1000000000u);
        print_time("Start:", b->messages ? b->t_min : 0);
        print_time("End:", b->messages ? b->t_max : 0);
        printf("%-19s%" PRIu64 "\n", "Messages:", b->messages);
        printf("%-19s%" PRIu64 " (none %" PRIu64 ", zstd %" PRIu64 ", lz4 %" PRIu64 ")\n", "Chunks:", b->chunks,
               b->chunk_comp[0], b->chunk_comp[1], b->chunk_comp[2]);
        int first = 1;
        for (int i = 0; i < MAX_ID; i++) {
            if (!b->ch[i].set)
                continue;
            const schema *s = &b->sc[b->ch[i].schema ];
            printf("%-19sTopic: %s | Type: %s | Count: %" PRIu64 " | Serialization Format: %s\n",
                   first ? "Topic information:" : "", b->ch[i].topic, s->set ? s->name : "?", b->ch[i].count,
                   b->ch[i].encoding);
            first = 0;
        }
    }
    bag_free(b);
    return rc;
}
