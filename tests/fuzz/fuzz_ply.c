/* PLY loader (ascii and binary): any bytes give a status, never a crash or an out-of-bounds read. */
#include "fuzz_common.h"
#include "scene_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_mesh(sensim__scene_load_ply_mem, "fuzz.ply", data, size);
}
