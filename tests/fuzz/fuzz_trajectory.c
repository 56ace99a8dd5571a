/* Trajectory CSV of `sensim batch`. */
#define _GNU_SOURCE
#include "cli.h"
#include "fuzz_common.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    traj t = {0};
    load_trajectory(f, "fuzz.csv", size > 1 ? data[size - 1] % 3 : 0, &t);
    fclose(f);
    free(t.keys);
    return 0;
}
