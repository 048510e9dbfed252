/* Files: open, close, delete, size, sync and atomic mode; what the hints
 * default to; the error class of a failed system call. */
#define _GNU_SOURCE
#include "io_internal.h"
#include "coll.h"
#include "ol_param_table.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cb_buffer_kib, cb_nodes, ind_rd_kib, ind_wr_kib, cb_write_round_kib;

/* The defaults of the hints a program does not give (measurements in
 * README.md). */
static const ol_param_t io_params[] = {
    {"IO_CB_BUFFER_KIB", OL_PARAM_INT, "16384",
     "KiB an aggregator of two-phase collective I/O moves per round (the hint cb_buffer_size "
     "overrides it per file): larger means fewer rounds of messages and more memory.",
     &cb_buffer_kib, 4, 1 << 22},
    {"IO_CB_WRITE_ROUND_KIB", OL_PARAM_INT, "8192",
     "KiB of the rounds of a two-phase collective write whose part at an aggregator fits one "
     "round (cb_buffer_size) but is larger than this: more rounds, so that the write of each "
     "runs while the next one's data arrive; 0 keeps one round. The time to write a round's "
     "data is the part that overlaps nothing.",
     &cb_write_round_kib, 0, 1 << 22},
    {"IO_CB_NODES", OL_PARAM_INT, "0",
     "aggregators of two-phase collective I/O (the hint cb_nodes overrides it per file); "
     "0: one per host.",
     &cb_nodes, 0, 1 << 20},
    {"IO_IND_RD_KIB", OL_PARAM_INT, "4096",
     "KiB of the window that an independent read of many small pieces reads at once (data "
     "sieving; the hint ind_rd_buffer_size overrides it per file).",
     &ind_rd_kib, 4, 1 << 20},
    {"IO_IND_WR_KIB", OL_PARAM_INT, "512",
     "KiB of the window that an independent write of many small pieces reads, patches and "
     "writes back under a lock (the hint ind_wr_buffer_size overrides it per file).",
     &ind_wr_kib, 4, 1 << 20},
};

void ol_io_params_load(void)
{
    ol_param_table_load(io_params, OL_ARRAY_SIZE(io_params));
}

void ol_io_params_print(FILE *out)
{
    ol_param_table_print(io_params, OL_ARRAY_SIZE(io_params), out);
}

void ol_io_hints_default(ol_io_hints_t *hints)
{
    *hints = (ol_io_hints_t){
        .cb_buffer_size = (MPI_Offset)cb_buffer_kib << 10,
        .cb_nodes = cb_nodes,
        .cb_read = OL_IO_AUTOMATIC,
        .cb_write = OL_IO_AUTOMATIC,
        .ds_read = OL_IO_AUTOMATIC,
        .ds_write = OL_IO_AUTOMATIC,
        .ind_rd_buffer_size = (MPI_Offset)ind_rd_kib << 10,
        .ind_wr_buffer_size = (MPI_Offset)ind_wr_kib << 10,
        .striping_unit = 0,
    };
}

MPI_Offset ol_io_write_round_bytes(void)
{
    return (MPI_Offset)cb_write_round_kib << 10;
}

ol_status_t ol_io_errno_class(int error, const char *what, const char *path)
{
    ol_error_detail("%s %s: %s", what, path, strerror(error));
    switch (error) {
    case ENOENT:
    case ENOTDIR:
        return MPI_ERR_NO_SUCH_FILE;
    case EEXIST:
        return MPI_ERR_FILE_EXISTS;
    case EACCES:
    case EPERM:
        return MPI_ERR_ACCESS;
    case ENOSPC:
    case EDQUOT:
        return MPI_ERR_NO_SPACE;
    case EROFS:
        return MPI_ERR_READ_ONLY;
    case EISDIR:
    case ENAMETOOLONG:
    case ELOOP:
        return MPI_ERR_BAD_FILE;
    case EBUSY:
    case ETXTBSY:
        return MPI_ERR_FILE_IN_USE;
    case ENOMEM:
        return MPI_ERR_NO_MEM;
    default:
        return MPI_ERR_IO;
    }
}

/* The first nonzero value of mine over the ranks of comm (*value, 0 for
 * none) and the rank that gave it. */
static ol_status_t first_failure(ol_comm_t *comm, int mine, int *value, int *who)
{
    int *all = malloc((size_t)comm->size * sizeof(int));
    if (!all) {
        ol_error_detail("out of memory to agree on the outcome of a file operation");
        return MPI_ERR_NO_MEM;
    }
    ol_datatype_t *int_type = ol_dt_from_handle(MPI_INT);
    ol_status_t rc = ol_coll_allgather(&mine, 1, int_type, all, 1, int_type, comm);
    *value = 0;
    for (int r = 0; rc == MPI_SUCCESS && r < comm->size && *value == 0; r++) {
        *value = all[r];
        *who = r;
    }
    free(all);
    return rc;
}

ol_status_t ol_io_agree(ol_comm_t *comm, int error, const char *verb, const char *path)
{
    int first, who;
    ol_status_t rc = first_failure(comm, error, &first, &who);
    if (rc != MPI_SUCCESS || first == 0)
        return rc;
    char what[64];
    if (who == comm->rank)
        snprintf(what, sizeof what, "could not %s", verb);
    else
        snprintf(what, sizeof what, "rank %d could not %s", who, verb);
    return ol_io_errno_class(first, what, path);
}

ol_status_t ol_io_agree_class(ol_comm_t *comm, ol_status_t mine, const char *what)
{
    int first, who;
    ol_status_t rc = first_failure(comm, mine, &first, &who);
    if (rc != MPI_SUCCESS || first == MPI_SUCCESS)
        return rc;
    if (who != comm->rank) /* mine keeps its own sentence */
        ol_error_detail("rank %d could not %s (error class %d)", who, what, first);
    return first;
}

static ol_status_t check_amode(int amode)
{
    int access = amode & (MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY);
    if (access != MPI_MODE_RDONLY && access != MPI_MODE_RDWR && access != MPI_MODE_WRONLY) {
        ol_error_detail("amode 0x%x has %s of MPI_MODE_RDONLY, MPI_MODE_RDWR and "
                        "MPI_MODE_WRONLY: exactly one is required",
                        amode, access ? "more than one" : "none");
        return MPI_ERR_AMODE;
    }
    if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL))) {
        ol_error_detail("amode 0x%x asks for MPI_MODE_RDONLY with MPI_MODE_%s, which the "
                        "standard forbids", amode,
                        amode & MPI_MODE_CREATE ? "CREATE" : "EXCL");
        return MPI_ERR_AMODE;
    }
    if (access == MPI_MODE_RDWR && (amode & MPI_MODE_SEQUENTIAL)) {
        ol_error_detail("amode 0x%x asks for MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL, which the "
                        "standard forbids", amode);
        return MPI_ERR_AMODE;
    }
    int known = MPI_MODE_RDONLY | MPI_MODE_RDWR | MPI_MODE_WRONLY | MPI_MODE_CREATE |
                MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN |
                MPI_MODE_SEQUENTIAL | MPI_MODE_APPEND;
    if (amode & ~known) {
        ol_error_detail("amode 0x%x has bits 0x%x that name no MPI_MODE_ constant", amode,
                        amode & ~known);
        return MPI_ERR_AMODE;
    }
    return MPI_SUCCESS;
}

/* Write-only files are opened for reading too where the system lets us:
 * data sieving reads the holes it writes around. */
static int open_flags(int amode, bool create, bool exclusive)
{
    int flags = O_CLOEXEC;
    if (amode & MPI_MODE_RDONLY)
        flags |= O_RDONLY;
    else
        flags |= O_RDWR;
    if (create)
        flags |= O_CREAT;
    if (exclusive)
        flags |= O_EXCL;
    return flags;
}

static int open_file(const char *path, int amode, bool create, bool exclusive, bool *readable)
{
    int fd = open(path, open_flags(amode, create, exclusive), 0666);
    *readable = true;
    if (fd < 0 && errno == EACCES && (amode & MPI_MODE_WRONLY)) {
        fd = open(path, (open_flags(amode, create, exclusive) & ~O_RDWR) | O_WRONLY, 0666);
        *readable = false;
    }
    return fd;
}

/* Rank 0 creates the file (exclusively if asked) before the others open
 * it, so that MPI_MODE_EXCL fails once, not on every rank but one. */
static ol_status_t open_everywhere(ol_file_t *f, const char *path, int amode)
{
    bool create = amode & MPI_MODE_CREATE, exclusive = amode & MPI_MODE_EXCL;
    int error = 0;
    if (create && f->comm->rank == 0) {
        f->fd = open_file(path, amode, true, exclusive, &f->readable);
        error = f->fd < 0 ? errno : 0;
    }
    if (create) {
        ol_status_t rc = ol_coll_bcast(&error, 1, ol_dt_from_handle(MPI_INT), 0, f->comm);
        if (rc != MPI_SUCCESS)
            return rc;
        if (error)
            return ol_io_errno_class(error, f->comm->rank == 0 ? "could not create"
                                                                : "rank 0 could not create",
                                     path);
    }
    if (!create || f->comm->rank != 0) {
        f->fd = open_file(path, amode, false, false, &f->readable);
        error = f->fd < 0 ? errno : 0;
    }
    return ol_io_agree(f->comm, error, "open", path);
}

static void close_fd(ol_file_t *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
}

static void free_file(ol_file_t *f)
{
    close_fd(f);
    free(f->window_buffer);
    pthread_mutex_destroy(&f->range_mutex);
    ol_io_view_release(&f->view);
    free(f->path);
    f->magic = 0;
    free(f);
}

ol_status_t ol_io_open(ol_comm_t *comm, const char *path, int amode, const ol_io_hints_t *hints,
                       ol_file_t **file)
{
    ol_status_t rc = check_amode(amode);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_file_t *f = calloc(1, sizeof(*f));
    char *copy = strdup(path);
    if (!f || !copy) {
        free(f);
        free(copy);
        ol_error_detail("out of memory for a file");
        return MPI_ERR_NO_MEM;
    }
    f->magic = OL_FILE_MAGIC;
    f->comm = comm;
    f->path = copy;
    f->amode = amode;
    f->fd = -1;
    f->shared_fd = -1;
    f->hints = *hints;
    pthread_mutex_init(&f->range_mutex, NULL);
    rc = ol_io_set_view_local(f, 0, ol_dt_from_handle(MPI_BYTE), ol_dt_from_handle(MPI_BYTE),
                              "native");
    if (rc == MPI_SUCCESS)
        rc = open_everywhere(f, path, amode);
    if (rc == MPI_SUCCESS)
        rc = ol_io_shared_open(f);
    if (rc == MPI_SUCCESS && (amode & MPI_MODE_APPEND)) {
        /* Both pointers at the end; without a shared pointer (shared.c
         * says why) the file opens all the same. */
        MPI_Offset size = 0;
        ol_status_t mine = ol_io_get_size(f, &size);
        f->position = size;
        if (mine == MPI_SUCCESS && comm->rank == 0 && f->shared_fd >= 0)
            mine = ol_io_shared_set(f, size);
        rc = ol_io_agree_class(comm, mine, "open the file at its end (MPI_MODE_APPEND)");
    }
    if (rc != MPI_SUCCESS) {
        ol_io_shared_close(f);
        free_file(f);
        return rc;
    }
    *file = f;
    return MPI_SUCCESS;
}

ol_status_t ol_io_close(ol_file_t *f)
{
    int error = f->fd >= 0 && close(f->fd) != 0 ? errno : 0;
    f->fd = -1;
    ol_status_t rc = ol_io_agree(f->comm, error, "close", f->path);
    ol_io_shared_close(f);
    if (rc == MPI_SUCCESS && (f->amode & MPI_MODE_DELETE_ON_CLOSE)) {
        ol_status_t deleted = MPI_SUCCESS;
        if (f->comm->rank == 0 && unlink(f->path) != 0)
            deleted = ol_io_errno_class(errno, "could not delete (MPI_MODE_DELETE_ON_CLOSE)",
                                        f->path);
        rc = ol_io_agree_class(f->comm, deleted, "delete the file (MPI_MODE_DELETE_ON_CLOSE)");
    }
    free_file(f);
    return rc;
}

ol_status_t ol_io_delete(const char *path)
{
    if (unlink(path) != 0)
        return ol_io_errno_class(errno, "could not delete", path);
    return MPI_SUCCESS;
}

/* Rank 0 changes the file, the others learn how it went. */
static ol_status_t by_rank_zero(ol_file_t *f, int (*change)(int fd, MPI_Offset size),
                                MPI_Offset size, const char *what)
{
    int error = 0;
    if (f->comm->rank == 0)
        error = change(f->fd, size);
    ol_status_t rc = ol_coll_bcast(&error, 1, ol_dt_from_handle(MPI_INT), 0, f->comm);
    if (rc == MPI_SUCCESS && error)
        rc = ol_io_errno_class(error, f->comm->rank == 0 ? what : "rank 0 could not change",
                               f->path);
    return rc;
}

static int truncate_to(int fd, MPI_Offset size)
{
    return ftruncate(fd, size) == 0 ? 0 : errno;
}

/* Never shrinks the file (MPI-4.1 14.2.5). */
static int allocate_to(int fd, MPI_Offset size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return errno;
    if (size <= st.st_size)
        return 0;
    return posix_fallocate(fd, 0, size);
}

static ol_status_t check_writable(const ol_file_t *f, const char *what)
{
    if (f->amode & MPI_MODE_RDONLY) {
        ol_error_detail("%s %s: the file was opened MPI_MODE_RDONLY", what, f->path);
        return MPI_ERR_READ_ONLY;
    }
    return MPI_SUCCESS;
}

ol_status_t ol_io_set_size(ol_file_t *f, MPI_Offset size)
{
    if (size < 0) {
        ol_error_detail("size is %lld, negative", (long long)size);
        return MPI_ERR_ARG;
    }
    ol_status_t rc = check_writable(f, "cannot resize");
    return rc != MPI_SUCCESS ? rc : by_rank_zero(f, truncate_to, size, "could not resize");
}

ol_status_t ol_io_preallocate(ol_file_t *f, MPI_Offset size)
{
    if (size < 0) {
        ol_error_detail("size is %lld, negative", (long long)size);
        return MPI_ERR_ARG;
    }
    ol_status_t rc = check_writable(f, "cannot preallocate");
    return rc != MPI_SUCCESS ? rc : by_rank_zero(f, allocate_to, size, "could not preallocate");
}

ol_status_t ol_io_get_size(ol_file_t *f, MPI_Offset *size)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return ol_io_errno_class(errno, "could not read the size of", f->path);
    *size = st.st_size;
    return MPI_SUCCESS;
}

/* Each process's fsync has its own outcome, as in ROMIO's and OMPIO's: a
 * write-back error shows to every descriptor of the file, so each process
 * that wrote learns it, and the standard's sync-barrier-sync is the
 * program's to call. Agreeing on the outcome held every process until the
 * slowest had written: io_tile, 4 ranks on 2 cores, 1 MiB in /dev/shm,
 * independent writes 5.4-8.9 GB/s agreeing, 20-28 without (four
 * alternating pairs; Open MPI 6.3-10.6). */
ol_status_t ol_io_sync(ol_file_t *f)
{
    if (fsync(f->fd) == 0 || errno == EINVAL) /* EINVAL: a file that cannot be synced */
        return MPI_SUCCESS;
    return ol_io_errno_class(errno, "could not sync", f->path);
}

ol_status_t ol_io_set_atomicity(ol_file_t *f, bool atomic)
{
    f->atomic = atomic;
    return ol_coll_barrier(f->comm);
}

ol_file_t *ol_file_from_handle(MPI_File handle)
{
    ol_file_t *f = (ol_file_t *)handle;
    if ((uintptr_t)handle < 4096)
        return NULL;
    return f->magic == OL_FILE_MAGIC ? f : NULL;
}
