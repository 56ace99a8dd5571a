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
 * A second writer is refused at once with the folder named.
 *
 * The lock file is a path, and a path can be unlinked under a running run
 * (`rm OUT/.sensim.lock`): the next run would create a new file and lock
 * it. So the run also holds flock(2) on the folder itself, exclusive or
 * shared as byte 1, which no unlink removes. Where the file system has no
 * flock on folders (NFS emulates it with record locks that a read-only
 * folder descriptor cannot take exclusively) the record locks alone guard.
 *
 * A file system without locks at all (ENOLCK, some FUSE and NFS mounts
 * without lockd) is said as such at once: no run could be kept out.
 *
 * scan, render and placement keep no meta.json but take the same locks
 * (claim_output with meta NULL), so they never write into a folder a batch
 * or collect holds, and the other way round. */
#include "batch.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* 1 held, 0 held by another process, -1 the file system keeps no locks (errno set). */
static int lock_byte(int fd, off_t at, short type)
{
    struct flock l;
    memset(&l, 0, sizeof l);
    l.l_type = type, l.l_whence = SEEK_SET, l.l_start = at, l.l_len = 1;
    if (fcntl(fd, F_SETLK, &l) == 0)
        return 1;
    return errno == EAGAIN || errno == EACCES ? 0 : -1;
}

static int other_writer(const char *out, const char *why)
{
    fprintf(stderr, "sensim: error: %s is being written by another sensim run (%s; lock %s/.sensim.lock): "
                    "refusing to mix (wait for it, or choose another folder)\n",
            out, why, out);
    return EXIT_STATUS_BASE + SENSIM_ERR_BUSY;
}

static int no_locks(const char *out)
{
    fprintf(stderr, "sensim: error: %s: the file system keeps no file locks (%s): a second run writing into the "
                    "folder could not be kept out; choose an output folder on a local disk or a mount with locks "
                    "(NFS with lockd)\n",
            out, strerror(errno));
    return EXIT_STATUS_BASE + SENSIM_ERR_IO;
}

/* flock on the folder itself, held until exit (see the top). 1 held or not
 * supported here, 0 held by another run. */
static int g_dir_fd = -1;
static int lock_dir(int dfd, int shared)
{
    if (flock(dfd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0)
        return 1;
    return errno != EWOULDBLOCK;
}

static int is_tmp_name(const char *name)
{
    const char *t = strstr(name, ".tmp.");
    return t && strlen(t) == 11;
}

/* Walk the folder @p dfd down to OUT/a/b/c without following a link: with
 * @p sweep remove NAME.tmp.XXXXXX files a killed run left; refuse a link to
 * a folder (a writer would write through it: OUT/rgb -> /elsewhere), naming
 * it. 0, or an exit status after one line. Closes @p dfd. */
static int walk_out(int dfd, const char *path, int depth, int sweep)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return 0;
    }
    struct dirent *e;
    int rc = 0;
    while (!rc && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        struct stat sb, tb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISLNK(sb.st_mode) && fstatat(dirfd(d), e->d_name, &tb, 0) == 0 && S_ISDIR(tb.st_mode)) {
            fprintf(stderr, "sensim: error: %s/%s is a symbolic link to a folder, not a folder of this run: "
                            "refusing to write through it (remove the link)\n", path, e->d_name);
            rc = EXIT_STATUS_BASE + SENSIM_ERR_IO;
        } else if (S_ISREG(sb.st_mode) && sweep && is_tmp_name(e->d_name)) {
            unlinkat(dirfd(d), e->d_name, 0);
        } else if (S_ISDIR(sb.st_mode) && depth < 3) {
            int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            char p[4400];
            if (sub >= 0 && snprintf(p, sizeof p, "%s/%s", path, e->d_name) < (int)sizeof p)
                rc = walk_out(sub, p, depth + 1, sweep);
            else if (sub >= 0)
                close(sub);
        }
    }
    closedir(d);
    return rc;
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

/* Whether @p mp holds exactly @p meta (read without following a link, never blocking on a FIFO). */
static int same_meta(const char *mp, const char *meta, size_t len)
{
    int fd = open(mp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    char *old = fd >= 0 ? malloc(len + 1) : NULL;
    ssize_t n = 0, k = 0;
    while (old && (size_t)n <= len && (k = read(fd, old + n, len + 1 - (size_t)n)) > 0)
        n += k;
    int same = old && k >= 0 && (size_t)n == len && memcmp(old, meta, len) == 0;
    free(old);
    if (fd >= 0)
        close(fd);
    return same;
}

/* meta NULL: a command that keeps no meta.json (scan, render, placement) takes the locks only. */
int claim_output(const char *out, const char *meta, size_t len, int resume, int overwrite, uint32_t shard_k,
                 uint32_t shard_n, int *lock_fd)
{
    char mp[4200];
    snprintf(mp, sizeof mp, "%s/meta.json", out);
    *lock_fd = -1;
    int dfd = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int fd = dfd < 0 ? -1 : openat(dfd, ".sensim.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fprintf(stderr, "sensim: error: %s/.sensim.lock: cannot open the folder's lock (%s)\n", out,
                fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        if (dfd >= 0)
            close(dfd);
        return EXIT_STATUS_BASE + SENSIM_ERR_IO;
    }
    /* the gate is held for milliseconds by a run claiming the folder: wait up to 30 s for it */
    int rc = 0, got;
    for (int i = 0; (got = lock_byte(fd, 0, F_WRLCK)) != 1; i++) {
        if (got < 0 || i == 3000) {
            rc = got < 0 ? no_locks(out) : other_writer(out, "it has held the folder's gate for 30 s");
            close(fd);
            close(dfd);
            return rc;
        }
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    int joined = 0; /* a shard beside live shards of a run */
    if ((got = lock_byte(fd, 1, F_WRLCK)) < 0) {
        rc = no_locks(out);
    } else if (!got || !lock_dir(dfd, 0)) { /* someone runs: only shards of one sharded run may share */
        /* (the folder's flock without byte 1: the lock file was removed under a live run) */
        if (got)
            lock_byte(fd, 1, F_UNLCK);
        if (shard_n <= 1 || lock_byte(fd, 1, F_RDLCK) != 1 || !lock_dir(dfd, 1))
            rc = other_writer(out, shard_n <= 1 ? "a run or a shard"
                                   : got ? "the folder is locked though its lock file was removed" : "an unsharded run");
        joined = 1;
    } else {
        rc = walk_out(dup(dfd), out, 0, 1); /* nobody else writes here: what a killed run left is ours to remove */
        if (!rc && shard_n > 1 && (lock_byte(fd, 1, F_RDLCK) != 1 || !lock_dir(dfd, 1)))
            rc = other_writer(out, "the run lock");
    }
    if (!rc && shard_n > 1 && lock_byte(fd, 2 + (off_t)shard_k, F_WRLCK) != 1)
        rc = other_writer(out, "the same shard");
    if (!rc && joined)
        rc = walk_out(dup(dfd), out, 0, 0);
    /* --overwrite replaces a finished run, never one a live shard writes: beside live shards the folder's
     * meta.json must be this run's (the shards of one job array may all carry --overwrite) */
    if (!rc && meta && joined && overwrite && !same_meta(mp, meta, len))
        rc = other_writer(out, "shards of a different run are writing it: --overwrite does not replace a live run");
    if (!rc && meta)
        rc = check_output(out, mp, meta, len, resume, overwrite, shard_n);
    if (!rc && meta)
        rc = write_meta(mp, meta, len);
    lock_byte(fd, 0, F_UNLCK);
    if (rc) {
        close(fd);
        close(dfd);
        return rc;
    }
    g_dir_fd = dfd; /* held until the process ends, as the lock file */
    *lock_fd = fd;
    return 0;
}
