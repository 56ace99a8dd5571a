/* Semantic tags: names, colours, and name -> tag matching by whole words. */
#include "internal.h"
#include "parse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const tag_names[SENSIM_TAG_MAX + 1] = {
    "Unlabeled", "Roads", "SideWalks", "Building", "Wall", "Fence", "Pole",
    "TrafficLight", "TrafficSign", "Vegetation", "Terrain", "Sky", "Pedestrian",
    "Rider", "Car", "Truck", "Bus", "Train", "Motorcycle", "Bicycle", "Static",
    "Dynamic", "Other", "Water", "RoadLine", "Ground", "Bridge", "RailTrack",
    "GuardRail",
};

/* Built-in names, as whole words: a key matches a run of the name's words
 * (split on non-alphanumerics, camelCase and letter/digit boundaries)
 * whose concatenation is the key, the key + "s" or the key + "es". The
 * longest run wins; ties go to the earlier entry. */
static const struct {
    const char *key;
    uint8_t tag;
} name_table[] = {
    {"roadline", 24}, {"lanemarking", 24}, {"lanemarkings", 24}, {"crosswalk", 24},
    {"guardrail", 28}, {"railtrack", 27}, {"railway", 27}, {"rail", 27},
    {"sidewalk", 2}, {"pavement", 2}, {"road", 1}, {"street", 1}, {"asphalt", 1},
    {"building", 3}, {"house", 3}, {"wall", 4}, {"fence", 5},
    {"trafficlight", 7}, {"trafficsign", 8}, {"roadsign", 8}, {"streetsign", 8}, {"sign", 8},
    {"streetlight", 6}, {"lamppost", 6}, {"pole", 6},
    {"vegetation", 9}, {"tree", 9}, {"bush", 9}, {"hedge", 9},
    {"terrain", 10}, {"grass", 10}, {"sky", 11}, {"pedestrian", 12}, {"person", 12},
    {"rider", 13}, {"truck", 15}, {"bus", 16}, {"train", 17}, {"motorcycle", 18},
    {"motorbike", 18}, {"bicycle", 19}, {"bike", 19}, {"car", 14}, {"vehicle", 14},
    {"static", 20}, {"dynamic", 21}, {"water", 23}, {"ground", 25}, {"bridge", 26},
    {"other", 22},
};

#define MAX_WORDS 24
#define WORD_LEN 48

typedef struct words {
    char w[MAX_WORDS][WORD_LEN];
    size_t len[MAX_WORDS];
    int n;
} words;

static int cls(int c)
{
    return islower(c) ? 1 : isupper(c) ? 2 : isdigit(c) ? 3 : 0;
}

/* Split @p name into lower-case words. */
static void split_words(const char *name, words *out)
{
    out->n = 0;
    size_t len = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        int c = cls(*p), prev = p > (const unsigned char *)name ? cls(p[-1]) : 0, next = cls(p[1]);
        bool cut = c == 0 || prev == 0 || (prev == 1 && c == 2) || ((prev == 3) != (c == 3)) ||
                   (prev == 2 && c == 2 && next == 1);
        if (cut && len > 0) {
            out->w[out->n][len] = '\0';
            out->len[out->n] = len;
            if (++out->n == MAX_WORDS)
                return;
            len = 0;
        }
        if (c == 0)
            continue;
        if (len + 1 < WORD_LEN)
            out->w[out->n][len++] = (char)tolower(*p);
    }
    if (len > 0) {
        out->w[out->n][len] = '\0';
        out->len[out->n] = len;
        out->n++;
    }
}

/* Longest run of @p nw words (from any position) whose concatenation is
 * @p key or its plural (+s, +es); 0 if none. Compared in place, word by word. */
static int run_length(const words *nw, const char *key)
{
    size_t kl = strlen(key);
    int best = 0;
    for (int i = 0; i < nw->n; i++) {
        size_t pos = 0;
        for (int j = i; j < nw->n && j < i + 4; j++) {
            const char *w = nw->w[j];
            size_t wl = nw->len[j], left = kl - pos;
            if (wl <= left) {
                if (memcmp(key + pos, w, wl) != 0)
                    break;
                pos += wl;
                if (pos == kl) {
                    int run = j - i + 1;
                    /* a plural ending as a word of its own ("car s") */
                    if (j + 1 < nw->n && j + 1 < i + 4 &&
                        (!strcmp(nw->w[j + 1], "s") || !strcmp(nw->w[j + 1], "es")))
                        run++;
                    if (run > best)
                        best = run;
                    break;
                }
            } else {
                /* the word runs past the key: only a plural ending may follow */
                const char *rest = w + left;
                if (memcmp(key + pos, w, left) == 0 && (!strcmp(rest, "s") || !strcmp(rest, "es")) &&
                    j - i + 1 > best)
                    best = j - i + 1;
                break;
            }
        }
    }
    return best;
}

int32_t sensim__tag_match(const char *name, const sensim_tag_rule *rules, uint32_t nrules)
{
    if (!name)
        return -1;
    words nw;
    split_words(name, &nw);
    int32_t tag = -1;
    int best = 0;
    for (uint32_t i = 0; i < nrules; i++) {
        int r = run_length(&nw, rules[i].key);
        if (r > best)
            best = r, tag = rules[i].tag;
    }
    if (tag >= 0)
        return tag;
    for (size_t i = 0; i < sizeof name_table / sizeof name_table[0]; i++) {
        int r = run_length(&nw, name_table[i].key);
        if (r > best)
            best = r, tag = name_table[i].tag;
    }
    return tag;
}

int32_t sensim_tag_from_name(const char *name)
{
    return sensim__tag_match(name, NULL, 0);
}

int32_t sensim_tag_from_label(const char *label)
{
    if (!label)
        return -1;
    char *end;
    long v = strtol(label, &end, 10);
    if (end != label && *end == '\0')
        return v >= 0 && v <= SENSIM_TAG_MAX ? (int32_t)v : -1;
    for (int t = 0; t <= SENSIM_TAG_MAX; t++)
        if (!strcasecmp(label, tag_names[t]))
            return t;
    return -1;
}

sensim_status sensim__tag_rules_load(const char *path, sensim_tag_rule **out, uint32_t *out_n)
{
    *out = NULL;
    *out_n = 0;
    char *data;
    size_t size;
    sensim_status st = sensim__read_file(path, 1u << 20, &data, &size);
    if (st != SENSIM_OK)
        return st;
    st = sensim__tag_rules_parse(path, data, size, out, out_n);
    free(data);
    return st;
}

sensim_status sensim__tag_rules_parse(const char *path, const char *data, size_t size, sensim_tag_rule **out,
                                      uint32_t *out_n)
{
    *out = NULL;
    *out_n = 0;
    sensim_tag_rule *r = NULL;
    uint32_t n = 0;
    sensim_lines it = {data, data + size, 0, NULL};
    const char *lb, *le;
    while (sensim__next_line(&it, &lb, &le)) {
        const char *p = lb;
        if (!sensim__line_content(&p, &le))
            continue;
        const char *eq = memchr(p, '=', (size_t)(le - p));
        char key[64], val[64];
        size_t kl = 0, vl = 0;
        bool long_key = false;
        if (eq) {
            for (const char *c = p; c < eq; c++) /* the key's words, concatenated lower-case */
                if (isalnum((unsigned char)*c)) {
                    if (kl + 1 < sizeof key)
                        key[kl++] = (char)tolower((unsigned char)*c);
                    else
                        long_key = true;
                }
            const char *v = sensim__skip_space(eq + 1, le), *ve = le;
            while (ve > v && isspace((unsigned char)ve[-1]))
                ve--;
            vl = (size_t)(ve - v) < sizeof val - 1 ? (size_t)(ve - v) : sizeof val - 1;
            memcpy(val, v, vl);
        }
        key[kl] = '\0';
        val[vl] = '\0';
        int32_t tag = sensim_tag_from_label(val);
        const char *why = !eq ? "expected 'name = tag'" : kl == 0 ? "the name has no letters or digits"
                          : long_key ? "the name has more than 63 letters and digits"
                          : tag < 0 ? "the tag must be a CARLA tag name (Car, Roads, ...) or 0..28" : NULL;
        if (!why && n == 4096)
            why = "more than 4096 rules";
        if (why) {
            free(r);
            return sensim__fail(SENSIM_ERR_PARSE, "%s:%llu: %s", path, (unsigned long long)it.line_no, why);
        }
        if (n % 64 == 0) {
            sensim_tag_rule *nr = realloc(r, (n + 64) * sizeof *nr);
            if (!nr) {
                free(r);
                return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
            }
            r = nr;
        }
        memcpy(r[n].key, key, kl + 1);
        r[n].tag = (uint8_t)tag;
        n++;
    }
    *out = r;
    *out_n = n;
    return SENSIM_OK;
}

const char *sensim_tag_name(uint32_t tag)
{
    return tag <= SENSIM_TAG_MAX ? tag_names[tag] : "";
}

static const uint8_t tag_rgb[SENSIM_TAG_MAX + 1][3] = {
    {0, 0, 0},       {128, 64, 128},  {244, 35, 232}, {70, 70, 70},    {102, 102, 156}, {190, 153, 153},
    {153, 153, 153}, {250, 170, 30},  {220, 220, 0},  {107, 142, 35},  {152, 251, 152}, {70, 130, 180},
    {220, 20, 60},   {255, 0, 0},     {0, 0, 142},    {0, 0, 70},      {0, 60, 100},    {0, 80, 100},
    {0, 0, 230},     {119, 11, 32},   {110, 190, 160}, {170, 120, 50}, {55, 90, 80},    {45, 60, 150},
    {157, 234, 50},  {81, 0, 81},     {150, 100, 100}, {230, 150, 140}, {180, 165, 180},
};

void sensim_tag_color(uint32_t tag, uint8_t out[3])
{
    if (!out)
        return;
    if (tag > SENSIM_TAG_MAX)
        tag = 0;
    memcpy(out, tag_rgb[tag], 3);
}
