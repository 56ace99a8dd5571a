/* The stream the XML helper (sensim-xml, xml_helper.c) writes on its stdout
 * and xml_read.c reads: an XML document's elements, attributes and text,
 * flattened, so that the XML parser (expat) never runs in the host's
 * process.
 *
 * Little-endian (the helper runs on the same machine), no padding: an
 * 8-byte magic, then records { u32 type, u32 length, length bytes }:
 *   OPEN   u32 line, u16 name length, name, u16 attributes, then per
 *          attribute u16 key length, key, u32 value length, value
 *   TEXT   the element's character data so far (UTF-8; whitespace-only runs
 *          are not sent)
 *   CLOSE  (nothing): the innermost open element ends
 *   ERROR  u32 sensim_status, the message (the helper's last record)
 *   END    u32 elements (the last record)
 * The reader checks every length, count and nesting: it trusts nothing the
 * helper says, since a hostile file may have taken the helper over. */
#ifndef SENSIM_XML_WIRE_H
#define SENSIM_XML_WIRE_H

#define SENSIM_XML_MAGIC "SNSIMXM1"
enum {
    SENSIM_XML_OPEN = 1,
    SENSIM_XML_TEXT = 2,
    SENSIM_XML_CLOSE = 3,
    SENSIM_XML_ERROR = 4,
    SENSIM_XML_END = 5,
};

/* limits (the helper refuses past them; the reader checks them again) */
#define SENSIM_XML_MAX_DEPTH 256
#define SENSIM_XML_MAX_ELEMENTS (1u << 24)
#define SENSIM_XML_MAX_NAME 1023
#define SENSIM_XML_MAX_ATTRS 256
#define SENSIM_XML_MAX_VALUE (1u << 20)
#define SENSIM_XML_MAX_TEXT (1u << 20)

#endif
