// The public headers compile as C++ (extern "C", no C-only constructs).
#include <sensim/sensim.h>

static_assert(sizeof(sensim_point) == 32, "record is 32 bytes");

int main()
{
    sensim_context *ctx = nullptr;
    if (sensim_context_create(nullptr, &ctx) != SENSIM_OK)
        return 1;
    sensim_context_destroy(ctx);
    return 0;
}
