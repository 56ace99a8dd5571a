#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Per-thread error text, as Embree keeps errors per device and thread. */
static _Thread_local char tls_error[1024];

sensim_status sensim__fail(sensim_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_error, sizeof tls_error, fmt, ap);
    va_end(ap);
    return status;
}

sensim_status sensim__fail_prefixed(sensim_status status, const char *prefix)
{
    char msg[sizeof tls_error];
    memcpy(msg, tls_error, sizeof msg); /* the text is rewritten in place below */
    return sensim__fail(status, "%.400s: %s", prefix, msg);
}

const char *sensim_context_last_error(const sensim_context *ctx)
{
    (void)ctx;
    return tls_error;
}

void sensim__log(const sensim_context *ctx, int32_t level, const char *fmt, ...)
{
    if (!ctx || !ctx->log_fn)
        return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    ctx->log_fn(ctx->log_user, level, buf);
}

const char *sensim_status_string(sensim_status s)
{
    switch (s) {
    case SENSIM_OK: return "SENSIM_OK: success";
    case SENSIM_ERR_INVALID_ARGUMENT: return "SENSIM_ERR_INVALID_ARGUMENT: invalid argument";
    case SENSIM_ERR_OUT_OF_MEMORY: return "SENSIM_ERR_OUT_OF_MEMORY: out of memory";
    case SENSIM_ERR_IO: return "SENSIM_ERR_IO: file cannot be read or written";
    case SENSIM_ERR_PARSE: return "SENSIM_ERR_PARSE: malformed input";
    case SENSIM_ERR_OUT_OF_RANGE: return "SENSIM_ERR_OUT_OF_RANGE: value out of range";
    case SENSIM_ERR_NOT_FINITE: return "SENSIM_ERR_NOT_FINITE: NaN or infinity";
    case SENSIM_ERR_BAD_INDEX: return "SENSIM_ERR_BAD_INDEX: index does not exist";
    case SENSIM_ERR_EMPTY: return "SENSIM_ERR_EMPTY: nothing in it";
    case SENSIM_ERR_NOT_COMMITTED: return "SENSIM_ERR_NOT_COMMITTED: scene not committed";
    case SENSIM_ERR_RING_FULL: return "SENSIM_ERR_RING_FULL: ring full, nothing written";
    case SENSIM_ERR_RING_EMPTY: return "SENSIM_ERR_RING_EMPTY: no complete frame";
    case SENSIM_ERR_BAD_HANDLE: return "SENSIM_ERR_BAD_HANDLE: invalid handle";
    case SENSIM_ERR_TOO_LARGE: return "SENSIM_ERR_TOO_LARGE: size too large or too small";
    case SENSIM_ERR_UNKNOWN_KEY: return "SENSIM_ERR_UNKNOWN_KEY: unknown key";
    case SENSIM_ERR_NOT_FOUND: return "SENSIM_ERR_NOT_FOUND: not found";
    case SENSIM_ERR_BUSY: return "SENSIM_ERR_BUSY: in use by a scan";
    case SENSIM_ERR_TIME_ORDER: return "SENSIM_ERR_TIME_ORDER: time goes backwards";
    case SENSIM_ERR_OVERRUN: return "SENSIM_ERR_OVERRUN: frame dropped while read";
    case SENSIM_ERR_BACKEND: return "SENSIM_ERR_BACKEND: backend error (Embree, Cyclone DDS) or backend not built in";
    case SENSIM_ERR_DUPLICATE: return "SENSIM_ERR_DUPLICATE: id already in use";
    case SENSIM_ERR_CANCELLED: return "SENSIM_ERR_CANCELLED: cancelled by the host";
    default: return "unknown status";
    }
}

const char *sensim_version_string(void)
{
    return SENSIM_VERSION_STRING;
}

uint32_t sensim_version_number(void)
{
    return SENSIM_VERSION_MAJOR * 10000u + SENSIM_VERSION_MINOR * 100u + SENSIM_VERSION_PATCH;
}

bool sensim__finite_array_f(const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

bool sensim__finite_array_d(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return false;
    return true;
}

sensim_status sensim__read_file(const char *path, uint64_t max_bytes, char **out_data,
                                size_t *out_size)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode)) /* a FIFO or device could block or never end */
        return sensim__fail(SENSIM_ERR_IO, "%s: not a regular file", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot seek (not a regular file?)", path);
    }
    long len = ftell(f);
    if (len < 0) {
        fclose(f);
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot tell size (not a regular file?)", path);
    }
    if ((uint64_t)len > max_bytes) {
        fclose(f);
        return sensim__fail(SENSIM_ERR_TOO_LARGE, "%s: %ld bytes exceeds the limit of %llu bytes",
                            path, len, (unsigned long long)max_bytes);
    }
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    if (!buf) {
        fclose(f);
        return sensim__fail(SENSIM_ERR_OUT_OF_MEMORY, "%s: cannot allocate %ld bytes", path, len);
    }
    size_t got = fread(buf, 1, (size_t)len, f);
    int err = ferror(f);
    fclose(f);
    if (err || got != (size_t)len) {
        free(buf);
        return sensim__fail(SENSIM_ERR_IO, "%s: read error", path);
    }
    buf[len] = '\0';
    *out_data = buf;
    *out_size = (size_t)len;
    return SENSIM_OK;
}

sensim_status sensim__check_pose(const double pose[16], const char *what)
{
    if (!sensim__finite_array_d(pose, 16))
        return sensim__fail(SENSIM_ERR_NOT_FINITE, "%s has a NaN or infinite element", what);
    for (int i = 0; i < 3; i++)
        if (fabs(pose[12 + i]) > SENSIM_MAX_COORD_M)
            return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: translation %c = %g m beyond the limit of %g m", what,
                                "xyz"[i], pose[12 + i], SENSIM_MAX_COORD_M);
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++)
            if (fabs(pose[4 * c + r]) > 1e6)
                return sensim__fail(SENSIM_ERR_OUT_OF_RANGE,
                                    "%s: linear element (%d, %d) = %g beyond the limit of 1e6", what, r, c,
                                    pose[4 * c + r]);
    if (pose[3] != 0.0 || pose[7] != 0.0 || pose[11] != 0.0 || pose[15] != 1.0)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s: last row must be (0, 0, 0, 1)", what);
    return SENSIM_OK;
}

sensim_status sensim__check_time(int64_t t, const char *what)
{
    if (t > SENSIM_MAX_TIME_NS || t < -SENSIM_MAX_TIME_NS)
        return sensim__fail(SENSIM_ERR_OUT_OF_RANGE, "%s = %lld ns outside +-2^62 ns (146 years)", what,
                            (long long)t);
    return SENSIM_OK;
}

FILE *sensim__create_tmp(const char *path, char *tmp, size_t cap)
{
    /* A fresh name created with O_EXCL (mkstemp): never an existing file or
     * a symlink planted in the output folder. */
    if (snprintf(tmp, cap, "%s.tmp.XXXXXX", path) >= (int)cap) {
        sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: path too long", path);
        return NULL;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        sensim__fail(SENSIM_ERR_IO, "%s: cannot create a temporary file: %s", path, strerror(errno));
        return NULL;
    }
    (void)fchmod(fd, 0644); /* mkstemp's 0600 would hide outputs from other users */
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        int e = errno;
        close(fd);
        remove(tmp);
        sensim__fail(SENSIM_ERR_IO, "%s: cannot open a temporary file: %s", path, strerror(e));
    }
    return f;
}

sensim_status sensim__commit_tmp(FILE *f, const char *tmp, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        remove(tmp);
        return sensim__fail(SENSIM_ERR_IO, "%s: write failed (disk full?)", path);
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        return sensim__fail(SENSIM_ERR_IO, "%s: cannot rename into place: %s", path, strerror(e));
    }
    return SENSIM_OK;
}

sensim_status sensim__check_sink_strings(const char *fn, const char *path, const char *name)
{
    size_t pl = strlen(path);
    if (pl == 0 || pl > 4000)
        return sensim__fail(pl ? SENSIM_ERR_TOO_LARGE : SENSIM_ERR_INVALID_ARGUMENT, "%s: the path is %s", fn,
                            pl ? "longer than 4000 bytes" : "empty");
    if (!name)
        return SENSIM_OK;
    size_t nl = strlen(name);
    int bad = nl == 0 || nl > 63;
    for (size_t i = 0; i < nl; i++)
        bad |= name[i] == '"' || name[i] == '\\' || (unsigned char)name[i] < 0x20;
    return bad ? sensim__fail(SENSIM_ERR_INVALID_ARGUMENT, "%s: the name must be 1..63 bytes without quotes, "
                                                           "backslashes or control characters", fn)
               : SENSIM_OK;
}

uint32_t sensim__edit_distance(const char *a, const char *b, uint32_t cap)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 63 || nb > 63)
        return cap + 1;
    uint32_t row[64];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (uint32_t)j;
    for (size_t i = 1; i <= na; i++) {
        uint32_t diag = row[0], best = row[0] = (uint32_t)i;
        for (size_t j = 1; j <= nb; j++) {
            uint32_t up = row[j], cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            uint32_t v = diag + cost;
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            row[j] = v, diag = up;
            if (v < best)
                best = v;
        }
        if (best > cap)
            return cap + 1;
    }
    return row[nb] > cap ? cap + 1 : row[nb];
}

const char *sensim_frame_name(int32_t frame)
{
    return frame == SENSIM_FRAME_CARLA ? "carla" : frame == SENSIM_FRAME_UE ? "ue" : "native";
}
