/* Where this copy of libsensim runs from: its build tree (tests, examples,
 * Python from a checkout) or an installation. */
#define _GNU_SOURCE /* dladdr */
#include "internal.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool sensim__running_uninstalled(void)
{
    static const char anchor; /* an object of this module: dladdr names the file holding it */
    Dl_info info;
    if (!dladdr(&anchor, &info) || !info.dli_fname)
        return false;
    char self[PATH_MAX], root[PATH_MAX];
    if (!realpath(info.dli_fname, self) || !realpath(SENSIM_BUILD_ROOT, root))
        return false;
    size_t n = strlen(root);
    return strncmp(self, root, n) == 0 && self[n] == '/';
}

const char *sensim__libexec_path(const char *program, char *buf, size_t cap)
{
    if (sensim__running_uninstalled()) {
        snprintf(buf, cap, "%s/%s", SENSIM_BUILD_ROOT, program);
        return buf;
    }
    /* beside the installed library (DESTDIR, a moved prefix), else where it was installed */
    static const char anchor;
    Dl_info info;
    char self[PATH_MAX];
    if (dladdr(&anchor, &info) && info.dli_fname && realpath(info.dli_fname, self)) {
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            snprintf(buf, cap, "%s/%s/%s", self, SENSIM_LIBEXEC_FROM_LIBDIR, program);
            if (access(buf, X_OK) == 0)
                return buf;
        }
    }
    snprintf(buf, cap, "%s/%s", SENSIM_INSTALL_LIBEXEC_DIR, program);
    return buf;
}

/* The installed presets beside this copy of the library (DESTDIR, a moved or
 * copied prefix): computed once, since where the library runs from cannot
 * change while it is loaded. */
static char preset_dir_beside[PATH_MAX];
static pthread_once_t preset_dir_once = PTHREAD_ONCE_INIT;

static void find_preset_dir_beside(void)
{
    static const char anchor;
    Dl_info info;
    char self[PATH_MAX], dir[PATH_MAX + 64];
    struct stat st;
    if (!dladdr(&anchor, &info) || !info.dli_fname || !realpath(info.dli_fname, self))
        return;
    char *slash = strrchr(self, '/');
    if (!slash)
        return;
    *slash = 0;
    if (snprintf(dir, sizeof dir, "%s/%s", self, SENSIM_PRESET_FROM_LIBDIR) >= (int)sizeof dir)
        return;
    if (realpath(dir, preset_dir_beside) && stat(preset_dir_beside, &st) == 0 && S_ISDIR(st.st_mode))
        return;
    preset_dir_beside[0] = 0;
}

const char *sensim__preset_dir_beside_library(void)
{
    pthread_once(&preset_dir_once, find_preset_dir_beside);
    return preset_dir_beside[0] ? preset_dir_beside : NULL;
}
