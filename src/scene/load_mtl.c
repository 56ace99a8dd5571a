/* Wavefront MTL: the camera appearance of OBJ materials (newmtl, Kd, map_Kd). */
#include "load_mtl.h"
#include "parse.h"

#include <stdlib.h>
#include <string.h>

void sensim__mtl_free(sensim_mtl *m)
{
    for (uint32_t i = 0; i < m->n; i++)
        free(m->e[i].map_kd);
    free(m->e);
    memset(m, 0, sizeof *m);
}

/* Rest of the line without surrounding blanks. */
static void trimmed(const char *b, const char *e, const char **ob, const char **oe)
{
    b = sensim__skip_space(b, e);
    while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    *ob = b, *oe = e;
}

sensim_status sensim__mtl_parse(const char *label, const char *data, size_t size, const char *dir, sensim_mtl *out)
{
    memset(out, 0, sizeof *out);
    sensim_lines it = {data, data + size, 0, NULL};
    const char *lb, *le;
    sensim_mtl_entry *cur = NULL;
    sensim_status st = SENSIM_OK;
    unsigned long long statements = 0, first = 0;
#define FAIL(code, ...)                                                                        \
    do {                                                                                       \
        st = sensim__fail(code, __VA_ARGS__);                                                  \
        goto done;                                                                             \
    } while (0)
    while (sensim__next_line(&it, &lb, &le)) {
        const char *ke, *kb = sensim__token(lb, le, &ke), *rb, *re;
        unsigned long long ln = (unsigned long long)it.line_no;
        if (kb == ke || *kb == '#')
            continue;
        trimmed(ke, le, &rb, &re);
        if (memchr(lb, '\0', (size_t)(le - lb)))
            FAIL(SENSIM_ERR_PARSE, "%s:%llu: NUL byte", label, ln);
        if (!statements++)
            first = ln;
        if (sensim__token_is(kb, ke, "newmtl")) {
            size_t nl = (size_t)(re - rb);
            if (nl == 0 || nl >= sizeof cur->name)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: newmtl needs a name of 1..%zu bytes", label, ln,
                     sizeof cur->name - 1);
            if (out->n == 65535)
                FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: more than 65535 materials", label, ln);
            if (out->n == out->cap) {
                uint32_t cap = out->cap ? 2 * out->cap : 16;
                sensim_mtl_entry *e = realloc(out->e, cap * sizeof *e);
                if (!e)
                    FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", label, ln);
                out->e = e, out->cap = cap;
            }
            cur = &out->e[out->n++];
            memset(cur, 0, sizeof *cur);
            memcpy(cur->name, rb, nl);
            cur->kd[0] = cur->kd[1] = cur->kd[2] = 1.0f;
        } else if (sensim__token_is(kb, ke, "Kd")) {
            if (!cur)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: Kd before any newmtl", label, ln);
            double v[3];
            int n = 0;
            const char *p = rb;
            while (n < 3 && p < re && sensim__parse_double(&p, re, &v[n]))
                n++, p = sensim__skip_space(p, re);
            if ((n != 1 && n != 3) || p != re)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: Kd needs 1 or 3 numbers (r g b; spectral and xyz forms are not "
                                       "read)", label, ln);
            for (int c = 0; c < 3; c++) {
                double x = v[n == 1 ? 0 : c];
                if (!(x >= 0 && x <= 1))
                    FAIL(x == x && x - x == 0 ? SENSIM_ERR_OUT_OF_RANGE : SENSIM_ERR_NOT_FINITE,
                         "%s:%llu: Kd component %d = %g outside [0, 1]", label, ln, c + 1, x);
                cur->kd[c] = (float)x;
            }
            cur->has_kd = true;
        } else if (sensim__token_is(kb, ke, "map_Kd")) {
            if (!cur)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: map_Kd before any newmtl", label, ln);
            /* options (-s, -o, -bm, ...) come first: the file is the last token */
            const char *fb = re;
            while (fb > rb && fb[-1] != ' ' && fb[-1] != '\t')
                fb--;
            size_t fl = (size_t)(re - fb), dl = dir ? strlen(dir) : 0;
            if (fl == 0)
                FAIL(SENSIM_ERR_PARSE, "%s:%llu: map_Kd needs a file name", label, ln);
            if (fl + dl > 4000)
                FAIL(SENSIM_ERR_TOO_LARGE, "%s:%llu: map_Kd path longer than 4000 bytes", label, ln);
            free(cur->map_kd);
            cur->map_kd = malloc(dl + fl + 2);
            if (!cur->map_kd)
                FAIL(SENSIM_ERR_OUT_OF_MEMORY, "%s:%llu: out of memory", label, ln);
            if (*fb == '/' || dl == 0)
                memcpy(cur->map_kd, fb, fl), cur->map_kd[fl] = '\0';
            else
                snprintf(cur->map_kd, dl + fl + 2, "%s/%.*s", dir, (int)fl, fb);
            cur->map_line = ln;
        }
        /* everything else (Ka, Ks, Ns, d, illum, other maps, ...) is not a camera colour: skipped */
    }
    /* a file an mtllib names that defines no material is not a material library
     * (mtllib ../../etc/passwd): refused, naming it, rather than read as nothing */
    if (statements && out->n == 0)
        FAIL(SENSIM_ERR_PARSE, "%s:%llu: not a material library (an MTL file): no newmtl in %llu statements", label,
             first, statements);
#undef FAIL
done:
    if (st != SENSIM_OK)
        sensim__mtl_free(out);
    return st;
}
