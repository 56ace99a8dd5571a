/* OBJ loader: any bytes give a status, never a crash or an out-of-bounds read. */
#include "fuzz_common.h"
#include "scene_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sensim_scene *s;
    if (sensim_scene_create(fuzz_ctx(), &s) != SENSIM_OK)
        return 0;
    sensim_load_options o;
    sensim_load_options_init(&o);
    o.frame = size ? data[0] % 4 : 0;
    if (sensim__scene_load_obj_mem(s, "fuzz.obj", (const char *)data, size, &o, NULL) == SENSIM_OK)
        sensim_scene_commit(s);
    sensim_scene_destroy(s);
    return 0;
}
