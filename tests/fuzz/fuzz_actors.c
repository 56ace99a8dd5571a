/* Actor file of `sensim batch --actors`. */
#define _GNU_SOURCE
#include "cli.h"
#include "fuzz_common.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    actor_spec *actors = NULL;
    uint32_t n = 0;
    int rc = load_actors(f, "fuzz.actors", &actors, &n);
    fclose(f);
    for (uint32_t i = 0; rc == 0 && i < n; i++) /* what is accepted is complete */
        if (!actors[i].id || (!actors[i].box[0] && !actors[i].mesh[0]) || !actors[i].trajectory[0])
            __builtin_trap();
    free(actors);
    return 0;
}
