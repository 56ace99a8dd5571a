#include "parse.h"
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool sensim__next_line(sensim_lines *it, const char **out_begin, const char **out_end)
{
    if (it->cur >= it->end)
        return false;
    /* memchr for LF (remembered, so a CR-only file is not searched again
     * per line), then for a CR before it (CR-only and CRLF files) */
    const char *b = it->cur;
    if (!it->lf || it->lf < b) {
        it->lf = memchr(b, '\n', (size_t)(it->end - b));
        if (!it->lf)
            it->lf = it->end;
    }
    const char *p = it->lf;
    const char *cr = memchr(b, '\r', (size_t)(p - b));
    if (cr)
        p = cr;
    *out_begin = b;
    *out_end = p;
    if (p < it->end) {
        if (*p == '\r' && p + 1 < it->end && p[1] == '\n')
            p++;
        p++;
    }
    it->cur = p;
    it->line_no++;
    return true;
}

/* ---- lines of a file, a chunk at a time ---- */

enum { SOURCE_CHUNK = 4 << 20 };

void sensim__source_mem(sensim_line_source *s, const char *data, size_t size)
{
    memset(s, 0, sizeof *s);
    s->it = (sensim_lines){data, data + size, 0, NULL};
    s->eof = true;
}

sensim_status sensim__source_open(sensim_line_source *s, const char *path, uint64_t max_bytes)
{
    memset(s, 0, sizeof *s);
    s->eof = true; /* nothing to read until the file is open */
    struct stat sb;
    if (stat(path, &sb) != 0)
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode)) /* a FIFO or device could block or never end */
        return sensim__fail(SENSIM_ERR_IO, "%s: not a regular file", path);
    if ((uint64_t)sb.st_size > max_bytes)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: %lld bytes exceeds the limit of %llu bytes", path,
                            (long long)sb.st_size, (unsigned long long)max_bytes);
    FILE *f = fopen(path, "rb");
    if (!f)
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    s->cap = (uint64_t)sb.st_size + 1 < SOURCE_CHUNK ? (size_t)sb.st_size + 1 : SOURCE_CHUNK;
    if (!(s->buf = malloc(s->cap + 1))) {
        fclose(f);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: cannot allocate a read buffer", path);
    }
    setvbuf(f, NULL, _IONBF, 0); /* whole chunks go straight into buf */
    s->file = f, s->path = path, s->max_bytes = max_bytes, s->eof = false;
    s->it = (sensim_lines){s->buf, s->buf, 0, NULL};
    return SENSIM_OK;
}

/* Keep the partial last line, read more behind it, and hand the iterator
 * the whole lines (to the last LF; everything at EOF). */
static bool source_refill(sensim_line_source *s)
{
    FILE *f = s->file;
    size_t keep = (size_t)(s->buf + s->len - s->it.cur);
    memmove(s->buf, s->it.cur, keep);
    s->len = keep;
    for (;;) {
        if (s->len == s->cap) { /* one line fills the buffer: grow it (the file's size bounds it) */
            size_t cap = s->cap * 2;
            char *nb = cap > s->cap ? realloc(s->buf, cap + 1) : NULL;
            if (!nb) {
                s->err = sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: a line of over %zu bytes", s->path, s->len);
                return false;
            }
            s->buf = nb, s->cap = cap;
        }
        size_t got = fread(s->buf + s->len, 1, s->cap - s->len, f);
        if (got == 0 && ferror(f)) {
            s->err = sensim__fail(SENSIM_ERR_IO, "%s: read error: %s", s->path, strerror(errno));
            return false;
        }
        s->len += got, s->total += got;
        if (s->total > s->max_bytes) { /* it grew while read */
            s->err = sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: more than the limit of %llu bytes", s->path,
                                  (unsigned long long)s->max_bytes);
            return false;
        }
        s->eof = got == 0 || feof(f);
        const char *lf = NULL;
        for (size_t k = s->len; k > keep && !lf; k--) /* the last LF, in what was just read */
            if (s->buf[k - 1] == '\n')
                lf = s->buf + k;
        if (s->eof || lf) {
            s->buf[s->len] = '\0';
            uint64_t line_no = s->it.line_no;
            s->it = (sensim_lines){s->buf, s->eof ? s->buf + s->len : lf, line_no, NULL};
            return true;
        }
        keep = s->len;
    }
}

bool sensim__source_next(sensim_line_source *s, const char **out_begin, const char **out_end)
{
    while (!sensim__next_line(&s->it, out_begin, out_end)) {
        if (s->eof || s->err != SENSIM_OK || !source_refill(s))
            return false;
    }
    return true;
}

void sensim__source_close(sensim_line_source *s)
{
    if (s->file)
        fclose(s->file);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

bool sensim__line_content(const char **b, const char **e)
{
    const char *hash = memchr(*b, '#', (size_t)(*e - *b));
    if (hash)
        *e = hash;
    *b = sensim__skip_space(*b, *e);
    return *b < *e;
}

bool sensim__token_is(const char *b, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - b) == n && memcmp(b, word, n) == 0;
}

static bool terminator_ok(const char *p, const char *end)
{
    return p >= end || sensim__is_space(*p) || *p == ',' || *p == '/';
}

static bool match_ci(const char *p, const char *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - p) < n)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (c != word[i])
            return false;
    }
    return true;
}

static const double pow10_pos[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

bool sensim__parse_double(const char **pp, const char *end, double *out)
{
    const char *p = *pp;
    bool neg = false;
    if (p < end && (*p == '+' || *p == '-')) {
        neg = *p == '-';
        p++;
    }
    if (match_ci(p, end, "nan") || match_ci(p, end, "inf")) {
        bool nan = match_ci(p, end, "nan");
        p += 3;
        if (!nan && match_ci(p, end, "inity"))
            p += 5;
        if (!terminator_ok(p, end))
            return false;
        *out = nan ? NAN : (neg ? -INFINITY : INFINITY);
        *pp = p;
        return true;
    }
    uint64_t mant = 0;
    int digits = 0, exp10 = 0;
    bool any = false;
    while (p < end && *p >= '0' && *p <= '9') {
        any = true;
        if (digits < 19) {
            mant = mant * 10 + (uint64_t)(*p - '0');
            if (mant)
                digits++;
        } else if (exp10 < 100000) {
            exp10++; /* digits beyond 19 only scale; capped so a huge run cannot overflow */
        }
        p++;
    }
    if (p < end && *p == '.') {
        p++;
        while (p < end && *p >= '0' && *p <= '9') {
            any = true;
            if (digits < 19) {
                mant = mant * 10 + (uint64_t)(*p - '0');
                if (mant)
                    digits++;
                if (exp10 > -100000)
                    exp10--;
            }
            p++;
        }
    }
    if (!any)
        return false;
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        bool eneg = false;
        if (q < end && (*q == '+' || *q == '-')) {
            eneg = *q == '-';
            q++;
        }
        if (q >= end || *q < '0' || *q > '9')
            return false;
        int e = 0;
        while (q < end && *q >= '0' && *q <= '9') {
            if (e < 100000)
                e = e * 10 + (*q - '0');
            q++;
        }
        exp10 += eneg ? -e : e;
        p = q;
    }
    if (!terminator_ok(p, end))
        return false;
    double v = (double)mant;
    if (mant != 0) {
        if (exp10 >= 0 && exp10 <= 22)
            v *= pow10_pos[exp10];
        else if (exp10 < 0 && exp10 >= -22)
            v /= pow10_pos[-exp10];
        else
            v *= pow(10.0, exp10);
    }
    *out = neg ? -v : v;
    *pp = p;
    return true;
}

bool sensim__parse_int(const char **pp, const char *end, int64_t *out)
{
    const char *p = *pp;
    bool neg = false;
    if (p < end && (*p == '+' || *p == '-')) {
        neg = *p == '-';
        p++;
    }
    if (p >= end || *p < '0' || *p > '9')
        return false;
    /* Overflow of the accumulator is checked digit by digit: a number beyond
     * the int64 range is refused, never wrapped (18446744073709551617 once
     * read as 1). */
    uint64_t v = 0, limit = neg ? (UINT64_C(1) << 63) : (uint64_t)INT64_MAX;
    for (const char *q = end - p > 18 ? p + 18 : end; p < q && *p >= '0' && *p <= '9'; p++)
        v = v * 10 + (uint64_t)(*p - '0'); /* 18 digits cannot overflow: no check */
    while (p < end && *p >= '0' && *p <= '9') {
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (limit - d) / 10)
            return false;
        v = v * 10 + d;
        p++;
    }
    if (!terminator_ok(p, end))
        return false;
    *out = neg ? (v == (UINT64_C(1) << 63) ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    *pp = p;
    return true;
}

sensim_status sensim__key_number(const char *what, const char *key, const char *value, double lo, double hi,
                                 double *out)
{
    const char *p = value, *end = value + strlen(value);
    double v;
    if (!sensim__parse_double(&p, end, &v) || sensim__skip_space(p, end) != end)
        return sensim__fail(SENSIM_ERR_PARSE, "%s key %s: '%.64s' is not a number", what, key, value);
    if (!isfinite(v))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s key %s: %.64s", what, key, value);
    if (v < lo || v > hi)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s key %s: %.64s outside [%g, %g]", what, key, value, lo, hi);
    *out = v;
    return SENSIM_OK;
}
