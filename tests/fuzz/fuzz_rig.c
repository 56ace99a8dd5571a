/* Rig file of `sensim batch`. */
#define _GNU_SOURCE
#include "cli.h"
#include "fuzz_common.h"

#include <stdio.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    sensor_spec specs[MAX_SENSORS];
    uint32_t n = 0;
    int rc = load_rig(f, "fuzz.rig", specs, &n);
    fclose(f);
    /* navigation sections: their keys through the descriptor parser, then creation */
    for (uint32_t s = 0; rc == 0 && s < n; s++) {
        if (!specs[s].nav)
            continue;
        sensim_nav_desc d;
        sensim_nav_desc_init(&d, specs[s].nav - 1);
        for (uint32_t k = 0; k < specs[s].nsets; k++) {
            char key[64];
            const char *eq = strchr(specs[s].sets[k], '=');
            snprintf(key, sizeof key, "%.*s", (int)(eq - specs[s].sets[k] < 63 ? eq - specs[s].sets[k] : 63),
                     specs[s].sets[k]);
            sensim_nav_desc_set(&d, key, eq + 1);
        }
        sensim_nav *nav = NULL;
        if (sensim_nav_create(fuzz_ctx(), &d, &nav) == SENSIM_OK) {
            sensim_pose_key key = {0, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
            sensim_nav_sample smp;
            sensim_nav_sample_at(nav, &key, 1, 3, &smp);
        }
        sensim_nav_destroy(nav);
    }
    free_specs(specs, n);
    return 0;
}
