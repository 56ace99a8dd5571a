#include "pattern_csv.h"
#include "parse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS (UINT64_C(1) << 32)

void sensim__csv_free(sensim_csv_table *t)
{
    free(t->az_rad);
    free(t->el_rad);
    free(t->time_ns);
    memset(t, 0, sizeof *t);
}

/* Parse one cell [b, e) as a number; spaces around it allowed. */
static int cell_number(const char *b, const char *e, double *out)
{
    b = sensim__skip_space(b, e);
    while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    const char *p = b;
    if (b == e || !sensim__parse_double(&p, e, out) || p != e)
        return 0;
    return 1;
}

sensim_status sensim__csv_load(const char *path, int time_seconds, double period_s, sensim_csv_table *out)
{
    memset(out, 0, sizeof *out);
    char *data;
    size_t size;
    sensim_status st = sensim__read_file(path, UINT64_C(1) << 30, &data, &size);
    if (st != SENSIM_OK)
        return st;
    st = sensim__csv_parse(path, data, size, time_seconds, period_s, out);
    free(data);
    return st;
}

sensim_status sensim__csv_parse(const char *path, const char *data, size_t size, int time_seconds, double period_s,
                                sensim_csv_table *out)
{
    memset(out, 0, sizeof *out);
    sensim_status st = SENSIM_OK;
    /* upper bound of rows: one per line terminator (LF or CR) + 1 */
    uint64_t cap = 1;
    for (size_t i = 0; i < size; i++)
        cap += data[i] == '\n' || data[i] == '\r';
    if (cap > MAX_ROWS)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: more than 2^32 rows", path);
    double *tsec = NULL;
    out->az_rad = malloc(cap * sizeof(double));
    out->el_rad = malloc(cap * sizeof(double));
    if (time_seconds)
        tsec = malloc(cap * sizeof(double));
    if (!out->az_rad || !out->el_rad || (time_seconds && !tsec)) {
        free(tsec);
        sensim__csv_free(out);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: cannot allocate %llu rows", path, (unsigned long long)cap);
    }
    sensim_lines it = {data, data + size, 0, NULL};
    const char *lb, *le;
    uint64_t n = 0;
    bool first = true;
    st = SENSIM_OK;
    while (st == SENSIM_OK && sensim__next_line(&it, &lb, &le)) {
        unsigned long long ln = (unsigned long long)it.line_no;
        if (sensim__skip_space(lb, le) == le)
            continue;
        const char *cells[3][2];
        int nc = 0;
        const char *c = lb;
        while (nc < 3) {
            const char *comma = memchr(c, ',', (size_t)(le - c));
            cells[nc][0] = c;
            cells[nc][1] = comma ? comma : le;
            nc++;
            if (!comma)
                break;
            c = comma + 1;
        }
        double v[3];
        bool numeric = true;
        for (int k = 0; k < nc && numeric; k++)
            numeric = cell_number(cells[k][0], cells[k][1], &v[k]);
        if (first && !numeric) {
            first = false; /* header line such as Time/s,Azimuth/deg,Zenith/deg */
            if (nc < 3)
                st = sensim__fail(SENSIM_ERR_PARSE, "%s:%llu: header has fewer than 3 columns", path, ln);
            continue;
        }
        first = false;
        if (nc < 3) {
            st = sensim__fail(SENSIM_ERR_PARSE, "%s:%llu: %d column(s), need time, azimuth, zenith", path, ln, nc);
            break;
        }
        for (int k = 0; k < 3; k++)
            if (!cell_number(cells[k][0], cells[k][1], &v[k])) {
                int w = (int)(cells[k][1] - cells[k][0]);
                st = sensim__fail(SENSIM_ERR_PARSE, "%s:%llu: column %d '%.*s' is not a number", path, ln, k + 1,
                                  w > 40 ? 40 : w, cells[k][0]);
                break;
            }
        if (st != SENSIM_OK)
            break;
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2])) {
            st = sensim__fail(SENSIM_ERR_NOT_FINITE, "%s:%llu: NaN or infinite value", path, ln);
            break;
        }
        if (v[2] < 0.0 || v[2] > 180.0) {
            st = sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s:%llu: zenith %g deg outside [0, 180]", path, ln, v[2]);
            break;
        }
        if (time_seconds) {
            if (!(fabs(v[0]) <= 1e9)) {
                st = sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s:%llu: time %g s outside +-1e9 s", path, ln, v[0]);
                break;
            }
            if (n > 0 && v[0] < tsec[n - 1]) {
                st = sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s:%llu: time %.9g s goes backwards (previous %.9g s)",
                                  path, ln, v[0], tsec[n - 1]);
                break;
            }
            tsec[n] = v[0];
        }
        out->az_rad[n] = v[1] * SENSIM_PI / 180.0;
        out->el_rad[n] = (90.0 - v[2]) * SENSIM_PI / 180.0;
        n++;
    }
    if (st == SENSIM_OK && n == 0)
        st = sensim__fail(SENSIM_ERR_EMPTY, "%s: no pattern rows", path);
    if (st == SENSIM_OK && time_seconds) {
        out->time_ns = malloc(n * sizeof(int64_t));
        if (!out->time_ns)
            st = sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        for (uint64_t i = 0; st == SENSIM_OK && i < n; i++)
            out->time_ns[i] = (int64_t)llround((tsec[i] - tsec[0]) * 1e9);
        if (st == SENSIM_OK) {
            int64_t last = out->time_ns[n - 1];
            int64_t period = period_s > 0 ? (int64_t)llround(fmin(period_s, 1e9) * 1e9)
                                          : (n > 1 ? last + (int64_t)llround((double)last / (double)(n - 1)) : 1);
            if (period <= last)
                st = sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                                  "%s: table period %lld ns must exceed the last row's time %lld ns", path,
                                  (long long)period, (long long)last);
            out->period_ns = period;
        }
    }
    free(tsec);
    if (st != SENSIM_OK) {
        sensim__csv_free(out);
        return st;
    }
    out->n = n;
    return SENSIM_OK;
}
