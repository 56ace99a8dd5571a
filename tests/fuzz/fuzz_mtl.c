/* Wavefront MTL (the camera appearance of OBJ materials); textures are not read. */
#include "load_mtl.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sensim_mtl m;
    if (sensim__mtl_parse("fuzz.mtl", (const char *)data, size, "/nonexistent", &m) == SENSIM_OK) {
        for (uint32_t i = 0; i < m.n; i++) /* what is accepted is in range */
            if (!(m.e[i].kd[0] >= 0 && m.e[i].kd[0] <= 1 && m.e[i].kd[1] >= 0 && m.e[i].kd[1] <= 1 &&
                  m.e[i].kd[2] >= 0 && m.e[i].kd[2] <= 1 && m.e[i].name[0]))
                __builtin_trap();
        sensim__mtl_free(&m);
    }
    return 0;
}
