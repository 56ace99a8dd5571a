/* Rig file of `sensim batch`. */
#define _GNU_SOURCE
#include "cli.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    sensor_spec specs[MAX_SENSORS];
    uint32_t n = 0;
    load_rig(f, "fuzz.rig", specs, &n);
    fclose(f);
    free_specs(specs, n);
    return 0;
}
