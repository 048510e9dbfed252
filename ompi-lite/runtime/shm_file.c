/* Files in /dev/shm shared by the ranks of a host: see ol_shm_file.h. */
#define _GNU_SOURCE
#include "ol_shm_file.h"
#include "ol_params.h"
#include "ol_runtime.h"
#include "ol_shm_names.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

/* OL_SHM_SECRET_CHARS hex digits from the kernel's random generator (not
 * from a pid, a time or a counter: another user knows or can try those). */
static bool random_secret(char *secret)
{
    unsigned char bytes[OL_SHM_SECRET_CHARS / 2];
    size_t got = 0;
    while (got < sizeof(bytes)) {
        ssize_t n = getrandom(bytes + got, sizeof(bytes) - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(bytes); i++)
        snprintf(secret + 2 * i, 3, "%02x", bytes[i]);
    return true;
}

/* The test-only name of this rank's n-th file of kind; false without the
 * parameter. */
static bool test_name(char *name, size_t size, const char *kind, unsigned n)
{
    const char *base = ol_param.shm_test_name;
    if (!base || !*base)
        return false;
    snprintf(name, size, "%s%s-%s-%d-%u", base[0] == '/' ? "" : "/", base, kind, ol_rt.rank, n);
    return true;
}

bool ol_shm_new_p2p_name(char *name, size_t size)
{
    static _Atomic unsigned made;
    char secret[OL_SHM_SECRET_CHARS + 1];
    if (test_name(name, size, "p2p", made++))
        return true;
    name[0] = '\0';
    if (!random_secret(secret))
        return false;
    ol_shm_p2p_name(name, size, ol_rt.job_key, ol_rt.rank, secret);
    return true;
}

bool ol_shm_new_coll_name(char *name, size_t size)
{
    static _Atomic unsigned made; /* threads may set up segments of different communicators */
    char secret[OL_SHM_SECRET_CHARS + 1];
    if (test_name(name, size, "coll", made++))
        return true;
    name[0] = '\0';
    if (!random_secret(secret))
        return false;
    ol_shm_coll_name(name, size, ol_rt.job_key, getpid(), secret);
    return true;
}

/* Whether the file open on fd may be mapped as a segment of bytes that a
 * rank of this job made; why says what is wrong otherwise. */
static bool fit_to_map(int fd, const char *name, size_t bytes, char *why, size_t why_size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        snprintf(why, why_size, "cannot fstat /dev/shm%s: %s", name, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(why, why_size, "/dev/shm%s is not a regular file", name);
    else if (st.st_uid != geteuid())
        snprintf(why, why_size, "/dev/shm%s is owned by uid %u, not by this user (uid %u)", name,
                 (unsigned)st.st_uid, (unsigned)geteuid());
    else if ((st.st_mode & 07777) != 0600)
        snprintf(why, why_size, "/dev/shm%s has mode %04o, not 0600", name,
                 (unsigned)(st.st_mode & 07777));
    else if ((size_t)st.st_size != bytes)
        snprintf(why, why_size, "/dev/shm%s has %lld bytes, not the %zu expected", name,
                 (long long)st.st_size, bytes);
    else
        return true;
    return false;
}

int ol_shm_create(const char *name, size_t bytes, char *why, size_t why_size)
{
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR | O_NOFOLLOW, 0600);
    if (fd < 0 && errno == EEXIST) {
        snprintf(why, why_size, "/dev/shm%s exists already, made by someone else: not opened",
                 name);
        return -1;
    }
    if (fd < 0) {
        snprintf(why, why_size, "cannot create /dev/shm%s: %s", name, strerror(errno));
        return -1;
    }
    /* The umask may have taken the owner's bits, never added others'; the
     * readers want exactly 0600. */
    int err = fchmod(fd, 0600) != 0 ? errno : 0;
    if (err)
        snprintf(why, why_size, "cannot set the mode of /dev/shm%s: %s", name, strerror(err));
    else if ((err = posix_fallocate(fd, 0, (off_t)bytes)) != 0)
        snprintf(why, why_size, "cannot allocate %zu bytes for /dev/shm%s: %s (is /dev/shm small "
                 "or full?)", bytes, name, strerror(err));
    else if (!fit_to_map(fd, name, bytes, why, why_size))
        err = EPERM;
    if (err) {
        close(fd);
        shm_unlink(name); /* ours: O_EXCL made it */
        return -1;
    }
    return fd;
}

int ol_shm_open_made(const char *name, size_t bytes, char *why, size_t why_size)
{
    int fd = shm_open(name, O_RDWR | O_NOFOLLOW, 0);
    if (fd < 0) {
        snprintf(why, why_size, "cannot open /dev/shm%s: %s", name, strerror(errno));
        return -1;
    }
    if (!fit_to_map(fd, name, bytes, why, why_size)) {
        close(fd);
        return -1;
    }
    return fd;
}
