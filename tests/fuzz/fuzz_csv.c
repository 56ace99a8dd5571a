/* Livox CSV parser, by index and by seconds. */
#include "fuzz_common.h"
#include "pattern_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sensim_csv_table t;
    int seconds = size && (data[0] & 1);
    if (sensim__csv_parse("fuzz.csv", (const char *)data, size, seconds, 0.0, &t) == SENSIM_OK)
        sensim__csv_free(&t);
    return 0;
}
