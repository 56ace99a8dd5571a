/* Small, bounded text scanning shared by the OBJ, PLY and preset parsers.
 * Nothing here reads past `end` or crosses a line end. */
#ifndef SENSIM_PARSE_H
#define SENSIM_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sensim/common.h>

typedef struct sensim_lines {
    const char *cur;
    const char *end;
    uint64_t line_no; /* 1-based number of the line last returned */
    const char *lf;   /* the next LF at or after cur, end if none; NULL = not searched yet */
} sensim_lines;

/* Next line without its terminator (LF, CRLF or CR). False at end of input. */
bool sensim__next_line(sensim_lines *it, const char **out_begin, const char **out_end);

/* Lines of a file read in chunks (a few MiB held, not the whole file), or of
 * bytes in memory; the same lines and line numbers as sensim__next_line()
 * over the whole input. A line is only handed out whole: the buffer grows
 * for a line longer than it (up to the file's size). */
typedef struct sensim_line_source {
    sensim_lines it;  /* over buf[0, it.end): whole lines only, until EOF */
    void *file;       /* FILE *; NULL for memory input */
    char *buf;
    size_t cap, len;  /* buffer size, bytes in it */
    uint64_t total;   /* bytes read so far */
    uint64_t max_bytes;
    const char *path;
    sensim_status err; /* SENSIM_OK, or why sensim__source_next() stopped early */
    bool eof;
} sensim_line_source;

/* Open @p path (a regular file of at most @p max_bytes: else a status and a
 * message naming it). */
sensim_status sensim__source_open(sensim_line_source *s, const char *path, uint64_t max_bytes);
/* Memory input (not copied; must outlive the source). */
void sensim__source_mem(sensim_line_source *s, const char *data, size_t size);
/* Next line; false at end of input or on a read error (then s->err and the
 * last error are set). */
bool sensim__source_next(sensim_line_source *s, const char **out_begin, const char **out_end);
void sensim__source_close(sensim_line_source *s);

/* Space or tab (and \v, \f): what separates tokens. Inline: the loaders
 * call these for every token. */
static inline bool sensim__is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

static inline const char *sensim__skip_space(const char *p, const char *end)
{
    while (p < end && sensim__is_space(*p))
        p++;
    return p;
}

/* A "key = value" line's content: the # comment cut off, leading blanks
 * skipped (*b and *e updated); false for a blank or comment-only line. */
bool sensim__line_content(const char **b, const char **e);
/* Token [begin, end) of non-space characters. */
static inline const char *sensim__token(const char *p, const char *end, const char **tok_end)
{
    p = sensim__skip_space(p, end);
    const char *q = p;
    while (q < end && !sensim__is_space(*q))
        q++;
    *tok_end = q;
    return p;
}
bool sensim__token_is(const char *b, const char *e, const char *word);

/* Decimal number: [+-] digits [. digits] [(e|E) [+-] digits], or nan/inf/infinity.
 * Advances *p past it. Returns false (and leaves *p) if no number starts at *p
 * or if it is followed by a character other than space, tab, ',' '/' or end. */
bool sensim__parse_double(const char **p, const char *end, double *out);
/* Signed integer in [INT64_MIN, INT64_MAX]; same termination rules. */
bool sensim__parse_int(const char **p, const char *end, int64_t *out);

/* A descriptor key's number: the whole value, finite, in [lo, hi]; the
 * message names @p what ("radar"), the key and the value. */
sensim_status sensim__key_number(const char *what, const char *key, const char *value, double lo, double hi,
                                 double *out);

#endif
