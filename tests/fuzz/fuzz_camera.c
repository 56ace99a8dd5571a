/* Camera file of `sensim render` (key = value lines). */
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
    sensim_camera_desc d;
    int rc = load_camera(f, "fuzz.cam", &d);
    fclose(f);
    /* what the parser accepts, creation checks again: small images only, to keep the fuzzer fast */
    if (rc == 0 && (uint64_t)d.width * d.height <= 4096) {
        sensim_camera *c = NULL;
        if (sensim_camera_create(fuzz_ctx(), &d, &c) == SENSIM_OK) {
            double uv[2], dir[3], p[3] = {0.3, -0.2, 1.0};
            if (sensim_camera_project(c, p, uv) == SENSIM_OK)
                sensim_camera_unproject(c, uv[0], uv[1], dir);
        }
        sensim_camera_destroy(c);
    }
    return 0;
}
