/* An XML document read through the XML helper (xml_read.c): elements as a
 * tree of nodes in document order, their attributes and text, every string
 * NUL-terminated. Built for OpenDRIVE (odr.c); the parser runs in the
 * helper process, never in the host's. */
#ifndef SENSIM_XML_H
#define SENSIM_XML_H

#include "internal.h"

#define SENSIM_XML_NONE UINT32_MAX

typedef struct sensim__xml_node {
    const char *name;
    const char *text;   /* the element's own character data ("" when none) */
    const char **attr;  /* key, value pairs */
    uint32_t nattr;
    uint32_t line;      /* the start tag's line in the file */
    uint32_t parent, first_child, next_sibling; /* SENSIM_XML_NONE when none */
} sensim__xml_node;

typedef struct sensim__xml {
    sensim__xml_node *node; /* node[0] is the root element */
    uint32_t count;
    unsigned char *buf;     /* the helper's answer: the strings live in it */
    const char **attrs;
} sensim__xml;

/* Reads @p path (a regular file of at most @p max_bytes) through sensim-xml.
 * Budgets for a file of B bytes: 512 MiB + 16·B of address space, 10 s + 1 s
 * per MB of CPU, an answer of 64 MiB + 4·B. Errors name the file (and the
 * line for a parse error). */
sensim_status sensim__xml_load(const char *path, uint64_t max_bytes, sensim__xml *out);
/* The document from a helper's answer @p buf of @p len bytes (malloc'd; taken
 * over, freed on failure): every record checked (the fuzz target's entry). */
sensim_status sensim__xml_from_answer(const char *path, unsigned char *buf, size_t len, sensim__xml *out);
void sensim__xml_free(sensim__xml *x);
/* The value of @p key, or NULL. */
const char *sensim__xml_attr(const sensim__xml_node *n, const char *key);
/* The first child of @p at named @p name after @p after (SENSIM_XML_NONE:
 * from the start), or SENSIM_XML_NONE. */
uint32_t sensim__xml_child(const sensim__xml *x, uint32_t at, const char *name, uint32_t after);

#endif
