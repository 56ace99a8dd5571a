/* An output folder holds one run, written by one run at a time.
 *
 * OUT/.sensim.lock carries POSIX record locks (fcntl, so they work on NFS
 * scratch and vanish with the process, even after SIGKILL):
 *   byte 0  the gate: held exclusively while a run checks and writes
 *           meta.json, so two runs never both find the folder empty;
 *   byte 1  the run: exclusive for an unsharded run, shared by the shards
 *           of a job array (their meta.json is the same, check_output
 *           compares it);
 *   byte 2+K shard K of a sharded run, exclusive: one writer per shard.
 * A second writer is refused at once with the folder named. */
#include "batch.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_check_out(const char *out)
{
    size_t n = strlen(out);
    if (n == 0 || n > CLI_OUT_MAX) {
        fprintf(stderr, "sensim: error: --out '%.64s%s' is %zu bytes: the output folder's path must be 1..%d bytes "
                        "(its files' paths must stay under the 4000 bytes every writer accepts)\n",
                out, n > 64 ? "..." : "", n, CLI_OUT_MAX);
        return EXIT_STATUS_BASE + SENSIM_ERR_TOO_LARGE;
    }
    return 0;
}

int ensure_out_subdir(const char *out, const char *sub)
{
    char p[4200];
    if (snprintf(p, sizeof p, "%s/%s", out, sub) >= (int)sizeof p || strlen(p) > 4000) {
        fprintf(stderr, "sensim: error: %.64s.../%s: path too long\n", out, sub);
        return 0;
    }
    struct stat sb;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "sensim: error: cannot create directory %s: %s\n", p, strerror(errno));
        return 0;
    }
    if (lstat(p, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "sensim: error: %s is %s, not a folder of this run: refusing to write through it\n", p,
                S_ISLNK(sb.st_mode) ? "a symbolic link" : "not a directory");
        return 0;
    }
    return 1;
}

static int lock_byte(int fd, off_t at, short type)
{
    struct flock l;
    memset(&l, 0, sizeof l);
    l.l_type = type, l.l_whence = SEEK_SET, l.l_start = at, l.l_len = 1;
    return fcntl(fd, F_SETLK, &l) == 0;
}

static int other_writer(const char *out, const char *why)
{
    fprintf(stderr, "sensim: error: %s is being written by another sensim run (%s; lock %s/.sensim.lock): "
                    "refusing to mix (wait for it, or choose another folder)\n",
            out, why, out);
    return EXIT_STATUS_BASE + SENSIM_ERR_BUSY;
}

/* Remove NAME.tmp.XXXXXX files a killed run left in @p dir (never following links). */
static void sweep_tmp(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[4400];
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p)
            continue;
        struct stat sb;
        if (lstat(p, &sb) != 0)
            continue;
        const char *t = strstr(e->d_name, ".tmp.");
        if (S_ISREG(sb.st_mode) && t && strlen(t) == 11)
            unlink(p);
        else if (S_ISDIR(sb.st_mode) && depth == 0)
            sweep_tmp(p, 1);
    }
    if (d)
        closedir(d);
}

static int write_meta(const char *mp, const char *meta, size_t len)
{
    char mt[4400];
    snprintf(mt, sizeof mt, "%s.tmp.XXXXXX", mp);
    int fd = mkstemp(mt);
    FILE *mf = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (fd >= 0)
        fchmod(fd, 0644);
    int ok = mf && fwrite(meta, 1, len, mf) == len;
    if (mf && fclose(mf) != 0)
        ok = 0;
    else if (!mf && fd >= 0)
        close(fd);
    if (!ok || rename(mt, mp) != 0) {
        fprintf(stderr, "sensim: error: %s: cannot write: %s\n", mp, strerror(errno));
        if (fd >= 0)
            remove(mt);
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    return 0;
}

int claim_output(const char *out, const char *meta, size_t len, int resume, int overwrite, uint32_t shard_k,
                 uint32_t shard_n, int *lock_fd)
{
    char lp[4200], mp[4200];
    snprintf(lp, sizeof lp, "%s/.sensim.lock", out);
    snprintf(mp, sizeof mp, "%s/meta.json", out);
    *lock_fd = -1;
    int fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fprintf(stderr, "sensim: error: %s: cannot open the folder's lock (%s)\n", lp,
                fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    /* the gate is held for milliseconds by a run claiming the folder: wait up to 30 s for it */
    int rc = 0;
    for (int i = 0; !lock_byte(fd, 0, F_WRLCK); i++) {
        if (i == 3000) {
            close(fd);
            return other_writer(out, "it has held the folder's gate for 30 s");
        }
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    if (!lock_byte(fd, 1, F_WRLCK)) { /* someone runs: only shards of one sharded run may share */
        if (shard_n <= 1 || !lock_byte(fd, 1, F_RDLCK))
            rc = other_writer(out, shard_n <= 1 ? "a run or a shard" : "an unsharded run");
    } else {
        sweep_tmp(out, 0); /* nobody else writes here: what a killed run left is ours to remove */
        if (shard_n > 1 && !lock_byte(fd, 1, F_RDLCK))
            rc = other_writer(out, "the run lock");
    }
    if (!rc && shard_n > 1 && !lock_byte(fd, 2 + (off_t)shard_k, F_WRLCK))
        rc = other_writer(out, "the same shard");
    if (!rc)
        rc = check_output(out, mp, meta, len, resume, overwrite, shard_n);
    if (!rc)
        rc = write_meta(mp, meta, len);
    lock_byte(fd, 0, F_UNLCK);
    if (rc) {
        close(fd);
        return rc;
    }
    *lock_fd = fd; /* held until the process ends */
    return 0;
}
