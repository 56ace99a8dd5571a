/* Preset parser and lidar validation: any text gives a status or a lidar. */
#include "fuzz_common.h"
#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sensim_lidar *l = NULL;
    /* table_file paths resolve next to the label: a directory that does not exist */
    if (sensim__lidar_from_preset_mem(fuzz_ctx(), "/nonexistent-sensim-fuzz/fuzz.preset", (const char *)data, size,
                                      NULL, 0, &l) == SENSIM_OK) {
        sensim_lidar_info li;
        uint64_t n;
        sensim_lidar_get_info(l, &li);
        sensim_lidar_count_shots(l, 0, li.frame_period_ns, &n);
        sensim_lidar_destroy(l);
    }
    return 0;
}
