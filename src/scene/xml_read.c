/* Reading an XML document through the helper sensim-xml (xml_helper.c,
 * xml_wire.h): the answer is hostile input, every length, count and nesting
 * checked; strings are NUL-terminated in place. */
#include "xml.h"
#include "wire_read.h"
#include "xml_wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MIB (1ull << 20)


/* A string of @p n bytes at r->p moved @p shift bytes back (over its length
 * prefix) and NUL-terminated; a NUL inside ends it there. */
static const char *take_str(rd *r, size_t n, size_t shift)
{
    if ((size_t)(r->end - r->p) < n)
        return NULL;
    char *dst = (char *)r->p - shift;
    memmove(dst, r->p, n);
    dst[n] = 0;
    r->p += n;
    return dst;
}

static const char *skip(rd *r, size_t n)
{
    if ((size_t)(r->end - r->p) < n)
        return NULL;
    r->p += n;
    return "";
}

const char *sensim__xml_attr(const sensim__xml_node *n, const char *key)
{
    for (uint32_t i = 0; i < n->nattr; i++)
        if (!strcmp(n->attr[2 * i], key))
            return n->attr[2 * i + 1];
    return NULL;
}

uint32_t sensim__xml_child(const sensim__xml *x, uint32_t at, const char *name, uint32_t after)
{
    uint32_t c = after == SENSIM_XML_NONE ? x->node[at].first_child : x->node[after].next_sibling;
    for (; c != SENSIM_XML_NONE; c = x->node[c].next_sibling)
        if (!strcmp(x->node[c].name, name))
            return c;
    return SENSIM_XML_NONE;
}

void sensim__xml_free(sensim__xml *x)
{
    free(x->node);
    free(x->attrs);
    free(x->buf);
    memset(x, 0, sizeof *x);
}

static sensim_status bad(const char *path, const char *what)
{
    return sensim__fail(SENSIM_ERR_PARSE, "%s: the XML helper's answer is malformed (%s)", path, what);
}

/* Two passes over the records: count, then fill. */
static sensim_status parse(const char *path, sensim__xml *x, size_t len)
{
    if (len < 8 || memcmp(x->buf, SENSIM_XML_MAGIC, 8))
        return bad(path, "no magic");
    uint64_t nodes = 0, attrs = 0;
    for (int pass = 0; pass < 2; pass++) {
        rd r = {x->buf + 8, x->buf + len};
        uint32_t stack[SENSIM_XML_MAX_DEPTH + 1], depth = 0, last_child[SENSIM_XML_MAX_DEPTH + 1];
        uint32_t k = 0, a = 0;
        int ended = 0;
        while (!ended) {
            uint32_t type, n;
            if (!take(&r, &type, 4) || !take(&r, &n, 4) || (size_t)(r.end - r.p) < n)
                return bad(path, "a truncated record: the helper stopped early");
            rd body = {r.p, r.p + n};
            r.p += n;
            switch (type) {
            case SENSIM_XML_OPEN: {
                uint32_t line;
                uint16_t nl, na;
                if (depth > SENSIM_XML_MAX_DEPTH - 1 || (depth == 0 && k > 0) || !take(&body, &line, 4) ||
                    !take(&body, &nl, 2) || nl > SENSIM_XML_MAX_NAME)
                    return bad(path, "an element");
                const char *name = pass ? take_str(&body, nl, 2) : skip(&body, nl);
                if (!name || !take(&body, &na, 2) || na > SENSIM_XML_MAX_ATTRS)
                    return bad(path, "an element");
                for (uint16_t i = 0; i < na; i++) {
                    uint16_t kl;
                    uint32_t vl;
                    const char *key, *val;
                    if (!take(&body, &kl, 2) || kl > SENSIM_XML_MAX_NAME)
                        return bad(path, "an attribute");
                    key = pass ? take_str(&body, kl, 2) : skip(&body, kl);
                    if (!key || !take(&body, &vl, 4) || vl > SENSIM_XML_MAX_VALUE)
                        return bad(path, "an attribute");
                    val = pass ? take_str(&body, vl, 4) : skip(&body, vl);
                    if (!val)
                        return bad(path, "an attribute");
                    if (pass)
                        x->attrs[a + 2 * i] = key, x->attrs[a + 2 * i + 1] = val;
                }
                if (pass) {
                    sensim__xml_node *nd = &x->node[k];
                    nd->name = name, nd->text = "", nd->attr = na ? &x->attrs[a] : NULL, nd->nattr = na;
                    nd->line = line, nd->first_child = nd->next_sibling = SENSIM_XML_NONE;
                    nd->parent = depth ? stack[depth - 1] : SENSIM_XML_NONE;
                    if (depth) {
                        if (last_child[depth - 1] == SENSIM_XML_NONE)
                            x->node[stack[depth - 1]].first_child = k;
                        else
                            x->node[last_child[depth - 1]].next_sibling = k;
                        last_child[depth - 1] = k;
                    }
                }
                stack[depth] = k, last_child[depth] = SENSIM_XML_NONE, depth++;
                k++, a += 2u * na;
                if (k > SENSIM_XML_MAX_ELEMENTS)
                    return bad(path, "too many elements");
                break;
            }
            case SENSIM_XML_TEXT:
                if (!depth || n > SENSIM_XML_MAX_TEXT)
                    return bad(path, "text outside an element");
                if (pass) { /* a later run of text replaces the earlier (OpenDRIVE elements hold one) */
                    const char *t = take_str(&body, n, 8);
                    if (t)
                        x->node[stack[depth - 1]].text = t;
                }
                break;
            case SENSIM_XML_CLOSE:
                if (!depth)
                    return bad(path, "an unopened element closed");
                depth--;
                break;
            case SENSIM_XML_ERROR: {
                uint32_t st;
                if (!take(&body, &st, 4) || st == SENSIM_OK || st > 64)
                    return bad(path, "an error record");
                char msg[1200];
                size_t m = (size_t)(body.end - body.p) < sizeof msg - 1 ? (size_t)(body.end - body.p) : sizeof msg - 1;
                memcpy(msg, body.p, m);
                msg[m] = 0;
                for (size_t i = 0; i < m; i++)
                    if ((unsigned char)msg[i] < 32)
                        msg[i] = ' ';
                return sensim__fail((sensim_status)st, "%s", msg);
            }
            case SENSIM_XML_END: {
                uint32_t count;
                if (!take(&body, &count, 4) || count != k || depth)
                    return bad(path, "the element count");
                ended = 1;
                break;
            }
            default:
                return bad(path, "an unknown record");
            }
        }
        if (!k)
            return sensim__fail(SENSIM_ERR_PARSE, "%s: no XML element", path);
        if (!pass) {
            nodes = k, attrs = a;
            x->node = calloc(nodes, sizeof *x->node);
            x->attrs = calloc(attrs ? attrs : 1, sizeof *x->attrs);
            if (!x->node || !x->attrs)
                return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        }
    }
    x->count = (uint32_t)nodes;
    return SENSIM_OK;
}

sensim_status sensim__xml_load(const char *path, uint64_t max_bytes, sensim__xml *out)
{
    memset(out, 0, sizeof *out);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return sensim__fail(SENSIM_ERR_IO, "%s: not a regular file", path);
    if ((uint64_t)sb.st_size > max_bytes)
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: %lld bytes exceed the limit of %llu", path,
                            (long long)sb.st_size, (unsigned long long)max_bytes);
    const unsigned long long b = (unsigned long long)sb.st_size;
    size_t len = 0;
    sensim_status st = sensim__helper_run("sensim-xml", "expat", path, max_bytes, 512 * MIB + 16 * b,
                                          10 + b / 1000000, 64 * MIB + 4 * b, &out->buf, &len);
    if (st != SENSIM_OK)
        return st;
    return sensim__xml_from_answer(path, out->buf, len, out);
}

sensim_status sensim__xml_from_answer(const char *path, unsigned char *buf, size_t len, sensim__xml *out)
{
    memset(out, 0, sizeof *out);
    out->buf = buf;
    sensim_status st = parse(path, out, len);
    if (st != SENSIM_OK)
        sensim__xml_free(out);
    return st;
}
