/* sensim view's readers of hostile files: byte 0 picks the reader (even: a
 * PLY point file, odd: an MCAP bag), the rest is the file, served from a
 * memfd (regular, as the readers require). What is accepted is sane: point
 * counts within the subsampling limit, finite coordinates and poses. */
#define _GNU_SOURCE
#include "cli.h"
#include "fuzz_common.h"
#include "view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int fd = memfd_create("fuzz_view", 0);
    if (fd < 0)
        return 0;
    if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    view_data V;
    memset(&V, 0, sizeof V);
    V.max_points = 1000;
    V.cloud_cap = 8, V.image_cap = 4; /* small: the limits are reached too */
    V.points_budget = 4000, V.pixels_budget = 1u << 20;
    V.clouds = calloc(V.cloud_cap, sizeof *V.clouds);
    V.images = calloc(V.image_cap, sizeof *V.images);
    if (V.clouds && V.images) {
        int rc = (data[0] & 1) ? view_read_mcap(&V, path) : view_read_ply(path, "lidar", 1000, &V.clouds[0]);
        if (!(data[0] & 1) && !rc)
            V.nclouds = 1;
        for (size_t i = 0; !rc && i < V.nclouds; i++) {
            const cloud *c = &V.clouds[i];
            if (c->n > 1000)
                __builtin_trap();
            for (uint32_t k = 0; k < 3 * c->n; k++)
                if (!isfinite(c->xyz[k]))
                    __builtin_trap();
            for (int k = 0; k < 16; k++)
                if (!isfinite(c->pose[k]))
                    __builtin_trap();
        }
    }
    view_free(&V);
    close(fd);
    return 0;
}
