/* sensim-xml: the XML helper. Parses one XML file with expat (Debian
 * libexpat1-dev) under the budgets of helper_child.h and writes its
 * elements, attributes and text on stdout (xml_wire.h). libsensim runs it
 * (xml_read.c) so that a parser fault costs the helper, never the host. The
 * file must be a regular file within MAX_FILE_BYTES. External entities are
 * not loaded (expat's default); expat's amplification guard stops entity
 * bombs. */
#include "xml_wire.h"
#include "helper_child.h"

#include <sensim/common.h>

#include <expat.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static FILE *out;
static const char *xml_path;
static XML_Parser parser;
static unsigned depth, elements;
static char *text; /* the open element's character data */
static size_t text_len, text_cap;

static void put(const void *p, size_t n) { fwrite(p, 1, n, out); }
static void put_u32(uint32_t v) { put(&v, 4); }
static void put_u16(uint16_t v) { put(&v, 2); }
static void rec(uint32_t type, uint32_t len) { put_u32(type), put_u32(len); }

static void fail(sensim_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fail(sensim_status st, const char *fmt, ...)
{
    char msg[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t n = strlen(msg);
    rec(SENSIM_XML_ERROR, (uint32_t)(4 + n));
    put_u32((uint32_t)st);
    put(msg, n);
    fflush(out);
    exit(0);
}

static unsigned long line(void) { return (unsigned long)XML_GetCurrentLineNumber(parser); }

static void flush_text(void)
{
    size_t i = 0;
    while (i < text_len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
        i++;
    if (i < text_len) {
        rec(SENSIM_XML_TEXT, (uint32_t)text_len);
        put(text, text_len);
    }
    text_len = 0;
}

static void XMLCALL on_start(void *ud, const XML_Char *name, const XML_Char **attr)
{
    (void)ud;
    flush_text();
    if (++depth > SENSIM_XML_MAX_DEPTH)
        fail(SENSIM_ERR_TOO_LARGE, "%s:%lu: elements nested deeper than %u", xml_path, line(), SENSIM_XML_MAX_DEPTH);
    if (++elements > SENSIM_XML_MAX_ELEMENTS)
        fail(SENSIM_ERR_TOO_LARGE, "%s:%lu: more than %u elements", xml_path, line(), SENSIM_XML_MAX_ELEMENTS);
    size_t nlen = strlen(name), na = 0, len = 4 + 2 + nlen + 2;
    if (nlen > SENSIM_XML_MAX_NAME)
        fail(SENSIM_ERR_TOO_LARGE, "%s:%lu: an element name of %zu bytes (at most %u)", xml_path, line(), nlen,
             SENSIM_XML_MAX_NAME);
    for (; attr[2 * na]; na++) {
        size_t k = strlen(attr[2 * na]), v = strlen(attr[2 * na + 1]);
        if (na >= SENSIM_XML_MAX_ATTRS || k > SENSIM_XML_MAX_NAME || v > SENSIM_XML_MAX_VALUE)
            fail(SENSIM_ERR_TOO_LARGE, "%s:%lu: <%s>: more than %u attributes or one longer than %u bytes",
                 xml_path, line(), name, SENSIM_XML_MAX_ATTRS, SENSIM_XML_MAX_VALUE);
        len += 2 + k + 4 + v;
    }
    rec(SENSIM_XML_OPEN, (uint32_t)len);
    put_u32((uint32_t)line());
    put_u16((uint16_t)nlen);
    put(name, nlen);
    put_u16((uint16_t)na);
    for (size_t i = 0; i < na; i++) {
        size_t k = strlen(attr[2 * i]), v = strlen(attr[2 * i + 1]);
        put_u16((uint16_t)k);
        put(attr[2 * i], k);
        put_u32((uint32_t)v);
        put(attr[2 * i + 1], v);
    }
}

static void XMLCALL on_end(void *ud, const XML_Char *name)
{
    (void)ud, (void)name;
    flush_text();
    depth--;
    rec(SENSIM_XML_CLOSE, 0);
}

static void XMLCALL on_text(void *ud, const XML_Char *s, int n)
{
    (void)ud;
    if (text_len + (size_t)n > SENSIM_XML_MAX_TEXT)
        fail(SENSIM_ERR_TOO_LARGE, "%s:%lu: an element's text is longer than %u bytes", xml_path, line(),
             SENSIM_XML_MAX_TEXT);
    if (text_len + (size_t)n > text_cap) {
        size_t c = text_cap ? text_cap : 256;
        while (c < text_len + (size_t)n)
            c *= 2;
        char *q = realloc(text, c);
        if (!q)
            fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", xml_path);
        text = q, text_cap = c;
    }
    memcpy(text + text_len, s, (size_t)n);
    text_len += (size_t)n;
}

int main(int argc, char **argv)
{
    unsigned long long max_file_bytes;
    int rc = sensim_helper_start(argc, argv, "sensim-xml", &max_file_bytes);
    if (rc)
        return rc;
    out = stdout;
    static char obuf[1 << 16];
    setvbuf(out, obuf, _IOFBF, sizeof obuf);
    put(SENSIM_XML_MAGIC, 8);
    xml_path = argv[1];
    int fd = open(xml_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0)
        fail(SENSIM_ERR_IO, "%s: cannot open: %s", xml_path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        fail(SENSIM_ERR_IO, "%s: not a regular file", xml_path);
    if ((unsigned long long)sb.st_size > max_file_bytes)
        fail(SENSIM_ERR_TOO_LARGE, "%s: %lld bytes exceed the limit of %llu", xml_path, (long long)sb.st_size,
             max_file_bytes);
    parser = XML_ParserCreate(NULL);
    if (!parser)
        fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", xml_path);
    XML_SetElementHandler(parser, on_start, on_end);
    XML_SetCharacterDataHandler(parser, on_text);
    for (;;) {
        void *buf = XML_GetBuffer(parser, 1 << 16);
        if (!buf)
            fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", xml_path);
        ssize_t n = read(fd, buf, 1 << 16);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            fail(SENSIM_ERR_IO, "%s: read: %s", xml_path, strerror(errno));
        }
        if (XML_ParseBuffer(parser, (int)n, n == 0) == XML_STATUS_ERROR)
            fail(SENSIM_ERR_PARSE, "%s:%lu:%lu: %s", xml_path, (unsigned long)XML_GetErrorLineNumber(parser),
                 (unsigned long)XML_GetErrorColumnNumber(parser) + 1, XML_ErrorString(XML_GetErrorCode(parser)));
        if (n == 0)
            break;
    }
    rec(SENSIM_XML_END, 4);
    put_u32(elements);
    return fflush(out) != 0;
}
