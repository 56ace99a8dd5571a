/* Tag mapping files, then the whole-word matcher over names cut from the
 * same input (with and without the rules). */
#include "fuzz_common.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sensim_tag_rule *rules = NULL;
    uint32_t n = 0;
    if (sensim__tag_rules_parse("fuzz.tags", (const char *)data, size, &rules, &n) != SENSIM_OK)
        rules = NULL, n = 0;
    if (n > 16) /* matching is checked with small rule sets: keep 10^6 runs short */
        n = 16;
    char name[300];
    for (size_t off = 0; off < size && off < 2 * 97; off += 97) { /* two names: keep 10^6 runs short */
        size_t len = size - off < sizeof name - 1 ? size - off : sizeof name - 1;
        memcpy(name, data + off, len);
        name[len] = '\0';
        int32_t a = sensim__tag_match(name, rules, n), b = sensim_tag_from_name(name);
        if (a < -1 || a > SENSIM_TAG_MAX || b < -1 || b > SENSIM_TAG_MAX)
            __builtin_trap();
        if (n == 0 && a != b) /* no rules: the built-in table alone */
            __builtin_trap();
    }
    free(rules);
    return 0;
}
