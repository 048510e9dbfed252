/* The shared file pointer: eight bytes in a file of its own, read and
 * advanced under a byte-range lock, so that it is right across processes
 * and hosts that share the file system (MPI-4.1 14.4.4).
 *
 * Rank 0 makes the file at open, under an unguessable name, private to
 * the user (0600, O_EXCL, no symbolic link followed), beside the data file
 * or, where that directory is not writable and every process runs on this
 * host, in the temporary directory; the others open it by name and check
 * that it is the file rank 0 made (device, inode, owner), and rank 0
 * removes the name as soon as all have it open, so that nothing is left
 * behind whatever becomes of the job. */
#define _GNU_SOURCE
#include "io_internal.h"
#include "coll.h"
#include "ol_runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

enum { NAME_MAX_BYTES = 4096 };

static bool all_on_this_host(const ol_comm_t *comm)
{
    for (int r = 0; r < comm->size; r++)
        if (!ol_rt_same_host(ol_comm_world_rank(comm, r)))
            return false;
    return true;
}

/* Makes the pointer's file in dir; returns the fd, or -1 with errno. */
static int make_in(const char *dir, char *name)
{
    unsigned char random[16];
    if (getrandom(random, sizeof random, 0) != (ssize_t)sizeof random)
        return -1;
    int n = snprintf(name, NAME_MAX_BYTES, "%s/.ompi-lite-shfp-", dir);
    for (size_t i = 0; i < sizeof random && n < NAME_MAX_BYTES - 3; i++)
        n += snprintf(name + n, NAME_MAX_BYTES - (size_t)n, "%02x", random[i]);
    return open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

static int make_pointer_file(const ol_file_t *f, char *name, int *error)
{
    char *copy = strdup(f->path);
    if (!copy) {
        *error = ENOMEM;
        return -1;
    }
    int fd = make_in(dirname(copy), name);
    free(copy);
    if (fd < 0 && all_on_this_host(f->comm)) {
        const char *tmp = getenv("TMPDIR");
        fd = make_in(tmp && *tmp ? tmp : "/tmp", name);
    }
    *error = fd < 0 ? errno : 0;
    return fd;
}

static void no_pointer(ol_file_t *f, const char *why, int error)
{
    snprintf(f->shared_problem, sizeof f->shared_problem, "%s: %s", why, strerror(error));
}

/* What rank 0 tells the others: the name, and which file it is, so that
 * a file another user put in its place by the time they open it (a
 * directory others may write) is refused. */
typedef struct {
    int error;
    uint64_t device, inode;
    char name[NAME_MAX_BYTES];
} pointer_file_t;

/* Opens rank 0's file and checks that it is the same, and ours. */
static int open_made(ol_file_t *f, const pointer_file_t *made)
{
    f->shared_fd = open(made->name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (f->shared_fd < 0)
        return errno;
    struct stat st;
    if (fstat(f->shared_fd, &st) != 0)
        return errno;
    /* Device numbers are a host's own (an NFS mount's differs between
     * hosts): compared only with rank 0 on this host. */
    bool same_host = ol_rt_same_host(ol_comm_world_rank(f->comm, 0));
    if ((same_host && (uint64_t)st.st_dev != made->device) ||
        (uint64_t)st.st_ino != made->inode || st.st_uid != geteuid() || !S_ISREG(st.st_mode))
        return EPERM;
    return 0;
}

ol_status_t ol_io_shared_open(ol_file_t *f)
{
    pointer_file_t *made = calloc(1, sizeof(*made));
    if (!made) {
        ol_error_detail("out of memory to open %s", f->path);
        return MPI_ERR_NO_MEM;
    }
    struct stat st;
    if (f->comm->rank == 0) {
        f->shared_fd = make_pointer_file(f, made->name, &made->error);
        if (f->shared_fd >= 0 && fstat(f->shared_fd, &st) == 0) {
            made->device = (uint64_t)st.st_dev;
            made->inode = (uint64_t)st.st_ino;
        }
    }
    ol_datatype_t *ints = ol_dt_from_handle(MPI_INT);
    ol_status_t rc = ol_coll_bcast(made, sizeof(*made), ol_dt_from_handle(MPI_BYTE), 0, f->comm);
    int error = made->error;
    if (rc == MPI_SUCCESS && !error && f->comm->rank != 0)
        error = open_made(f, made);
    int worst = error;
    if (rc == MPI_SUCCESS)
        rc = ol_coll_allreduce(&error, &worst, 1, ints, ol_op_from_handle(MPI_MAX), f->comm);
    if (f->comm->rank == 0 && f->shared_fd >= 0)
        unlink(made->name);
    if (rc == MPI_SUCCESS && worst) {
        if (f->shared_fd >= 0)
            close(f->shared_fd);
        f->shared_fd = -1;
        no_pointer(f, "no file for the shared file pointer could be made beside the file "
                      "and opened by every process", worst);
        OL_INFO("io", "%s: %s", f->path, f->shared_problem);
    }
    free(made);
    return rc;
}

void ol_io_shared_close(ol_file_t *f)
{
    if (f->shared_fd >= 0)
        close(f->shared_fd);
    f->shared_fd = -1;
}

static ol_status_t unavailable(const ol_file_t *f)
{
    ol_error_detail("the shared file pointer of %s is unavailable (%s)", f->path,
                    f->shared_problem);
    return MPI_ERR_IO;
}

static int read_pointer(int fd, MPI_Offset *value)
{
    MPI_Offset got;
    *value = 0;
    return ol_io_pread_full(fd, value, sizeof *value, 0, &got);
}

static ol_status_t under_lock(ol_file_t *f, bool exclusive, MPI_Offset add, bool set,
                              MPI_Offset *value)
{
    if (f->shared_fd < 0)
        return unavailable(f);
    int error = ol_io_lock(f, f->shared_fd, exclusive, 0, sizeof(MPI_Offset));
    if (error)
        return ol_io_errno_class(error, "could not lock the shared file pointer of", f->path);
    MPI_Offset current = 0;
    if (!set)
        error = read_pointer(f->shared_fd, &current);
    if (!error && exclusive) {
        MPI_Offset next = set ? *value : current + add;
        error = ol_io_pwrite_full(f->shared_fd, &next, sizeof next, 0);
    }
    ol_io_unlock(f, f->shared_fd, 0, sizeof(MPI_Offset));
    if (error)
        return ol_io_errno_class(error, "could not move the shared file pointer of", f->path);
    if (!set)
        *value = current;
    return MPI_SUCCESS;
}

ol_status_t ol_io_shared_fetch_add(ol_file_t *f, MPI_Offset etypes, MPI_Offset *before)
{
    return under_lock(f, true, etypes, false, before);
}

ol_status_t ol_io_shared_get(ol_file_t *f, MPI_Offset *position)
{
    return under_lock(f, false, 0, false, position);
}

ol_status_t ol_io_shared_set(ol_file_t *f, MPI_Offset position)
{
    return under_lock(f, true, 0, true, &position);
}
