/* io_util.h: what the MPI-IO tests (io_access, io_views, io_datarep,
 * io_manage) share: start-up with the scratch directory from argv[1], the
 * failure report, the checks of a call's return code and error class, file
 * names inside the scratch directory, and rank 0's POSIX view of a file.
 *
 * The first failure prints the program, the rank, the step and what differed
 * on stderr and calls MPI_Abort, so that the job exits non-zero. */
#ifndef IO_UTIL_H
#define IO_UTIL_H

#include <mpi.h>
#include "peer_skips.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rank, nprocs;
static const char *prog = "io";
static const char *io_dir;
static char cur_step[128] = "(start)";
static int steps_run;

static inline void io_fail(const char *fmt, ...)
{
    va_list ap;
    char text[1024];
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: rank %d: %s: %s\n", prog, rank, cur_step, text);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Names the step that the next failure will be reported in. */
static inline void step(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cur_step, sizeof cur_step, fmt, ap);
    va_end(ap);
    steps_run++;
}

static const char *err_text(int rc)
{
    static char text[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    text[0] = '\0';
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "(MPI_Error_string failed for %d)", rc);
    return text;
}

/* The call must have succeeded. */
static inline void check(int rc, const char *call)
{
    if (rc != MPI_SUCCESS)
        io_fail("%s failed: %s", call, err_text(rc));
}

#define CHECK(call) check((call), #call)

/* The call must have failed with error class want. */
static inline void check_class(int rc, int want, const char *wname, const char *call)
{
    int cls = MPI_SUCCESS;
    if (rc == MPI_SUCCESS)
        io_fail("%s succeeded, expected %s", call, wname);
    MPI_Error_class(rc, &cls);
    if (cls != want) {
        int got_len = 0;
        char got_name[MPI_MAX_ERROR_STRING + 1] = "";
        MPI_Error_string(cls, got_name, &got_len);
        io_fail("%s returned class %d (%s; \"%s\"), expected %s (%d)", call, cls, got_name,
                err_text(rc), wname, want);
    }
}

#define CHECK_CLASS(call, cls) check_class((call), (cls), #cls, #call)

/* The integer values must be equal. */
static inline void check_eq(long long got, long long want, const char *what)
{
    if (got != want)
        io_fail("%s: got %lld, expected %lld", what, got, want);
}

/* MPI_Init, rank and size, and the scratch directory from argv[1]: every
 * file a test makes goes there (the scripts pass the harness's $work). */
static inline void io_init(int *argc, char ***argv, const char *name)
{
    prog = name;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (*argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: %s DIRECTORY (a scratch directory all ranks see)\n", name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    io_dir = (*argv)[1];
}

/* DIR/NAME in a static buffer of its own per slot (two names at once). */
static const char *io_path(const char *name)
{
    static char buf[2][4096];
    static int slot;
    slot ^= 1;
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", io_dir, name);
    return buf[slot];
}

/* The whole file at PATH read with plain POSIX calls; its length in *len.
 * The caller frees the buffer. */
static unsigned char *posix_slurp(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        io_fail("open(%s): %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0)
        io_fail("fstat(%s): %s", path, strerror(errno));
    unsigned char *buf = malloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            io_fail("read(%s) at %zu: %s", path, got, n < 0 ? strerror(errno) : "early EOF");
        got += (size_t)n;
    }
    close(fd);
    *len = got;
    return buf;
}

/* Writes LEN bytes of BUF as the whole file PATH with POSIX calls. */
static inline void posix_write_file(const char *path, const void *buf, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        io_fail("open(%s): %s", path, strerror(errno));
    const unsigned char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            io_fail("write(%s): %s", path, strerror(errno));
        p += n;
        len -= (size_t)n;
    }
    if (close(fd) != 0)
        io_fail("close(%s): %s", path, strerror(errno));
}

/* The file at PATH must hold exactly the LEN bytes of WANT: the first
 * differing offset, or the lengths, are reported. */
static inline void check_file(const char *path, const void *want, size_t len)
{
    size_t got_len;
    unsigned char *got = posix_slurp(path, &got_len);
    const unsigned char *w = want;
    size_t n = got_len < len ? got_len : len;
    for (size_t i = 0; i < n; i++)
        if (got[i] != w[i])
            io_fail("%s: byte at offset %zu: expected 0x%02x, got 0x%02x", path, i, w[i], got[i]);
    if (got_len != len)
        io_fail("%s: %zu bytes, expected %zu", path, got_len, len);
    free(got);
}

/* Whether PATH exists. */
static inline int path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Whether the environment variable IO_SKIP (a comma-separated list) names
 * this check. Only for running the tests against other MPI libraries whose
 * known deviations would hide the rest (see README.md); the test scripts
 * never set it. */
static inline int skip_known(const char *token)
{
    return peer_skip("IO_SKIP", token, rank, prog);
}

/* The summary line, then MPI_Finalize. */
static inline void io_finish(void)
{
    step("(end)");
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("%s: %d ranks OK\n", prog, nprocs);
    fflush(stdout);
    MPI_Finalize();
}

#endif
