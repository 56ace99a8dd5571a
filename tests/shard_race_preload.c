/* Test-only LD_PRELOAD shim for tests/test_shard_race.sh: makes the race
 * between shards of one job array happen every time. When the batch command
 * lists its output folder (after its open of meta.json failed), the shim
 * first renames SENSIM_RACE_META_FROM to SENSIM_RACE_META_TO, as another
 * shard finishing its meta.json in that instant would. Only listings of
 * SENSIM_RACE_DIR trigger it, once. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

DIR *opendir(const char *name)
{
    static DIR *(*real)(const char *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "opendir");
    static int done;
    const char *from = getenv("SENSIM_RACE_META_FROM"), *to = getenv("SENSIM_RACE_META_TO");
    const char *dir = getenv("SENSIM_RACE_DIR");
    if (!done && from && to && dir && strcmp(name, dir) == 0) {
        done = 1;
        if (rename(from, to) != 0)
            perror("shard_race_preload: rename");
    }
    return real(name);
}
