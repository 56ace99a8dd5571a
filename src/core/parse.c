#include "parse.h"
#include "internal.h"

#include <math.h>
#include <string.h>

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

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

const char *sensim__skip_space(const char *p, const char *end)
{
    while (p < end && is_space(*p))
        p++;
    return p;
}

bool sensim__line_content(const char **b, const char **e)
{
    const char *hash = memchr(*b, '#', (size_t)(*e - *b));
    if (hash)
        *e = hash;
    *b = sensim__skip_space(*b, *e);
    return *b < *e;
}

const char *sensim__token(const char *p, const char *end, const char **tok_end)
{
    p = sensim__skip_space(p, end);
    const char *q = p;
    while (q < end && !is_space(*q))
        q++;
    *tok_end = q;
    return p;
}

bool sensim__token_is(const char *b, const char *e, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(e - b) == n && memcmp(b, word, n) == 0;
}

static bool terminator_ok(const char *p, const char *end)
{
    return p >= end || is_space(*p) || *p == ',' || *p == '/';
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
