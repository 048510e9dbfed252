/* p2p_util: see p2p_util.h. */
#include "p2p_util.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int p2p_rank, p2p_size;
static const char *test_name = "p2p";

int p2p_init(const char *name, int *argc, char ***argv, int required)
{
    int provided;

    test_name = name;
    MPI_Init_thread(argc, argv, required, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &p2p_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p2p_size);
    return provided;
}

void p2p_finish(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (p2p_rank == 0)
        printf("%s: %d ranks OK\n", test_name, p2p_size);
    fflush(stdout);
    MPI_Finalize();
}

void p2p_die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s: rank %d of %d: ", test_name, p2p_rank, p2p_size);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort(); /* MPI_Abort does not return; this says so to the compiler */
}

unsigned char p2p_byte(unsigned seed, size_t i)
{
    uint32_t x = seed * 0x9E3779B1u ^ (uint32_t)i ^ (uint32_t)(i >> 32) * 0x85EBCA6Bu;

    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    return (unsigned char)(x ^ x >> 8);
}

void p2p_fill(void *buf, size_t n, unsigned seed)
{
    unsigned char *p = buf;

    for (size_t i = 0; i < n; i++)
        p[i] = p2p_byte(seed, i);
}

void p2p_check_data(const char *what, const void *buf, size_t n, unsigned seed)
{
    const unsigned char *p = buf;

    for (size_t i = 0; i < n; i++)
        if (p[i] != p2p_byte(seed, i))
            p2p_die("%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, n, p[i],
                    p2p_byte(seed, i));
}

void p2p_check_fill(const char *what, const void *buf, size_t n, unsigned char value)
{
    const unsigned char *p = buf;

    for (size_t i = 0; i < n; i++)
        if (p[i] != value)
            p2p_die("%s: byte %zu is 0x%02x, expected it untouched (0x%02x)", what, i, p[i],
                    value);
}

void p2p_check_status(const char *what, const MPI_Status *st, int source, int tag,
                      MPI_Datatype dt, MPI_Count count)
{
    MPI_Count got = -1;

    MPI_Get_count_c(st, dt, &got);
    if (st->MPI_SOURCE != source || st->MPI_TAG != tag || got != count)
        p2p_die("%s: status source %d tag %d count %lld, expected source %d tag %d count %lld",
                what, st->MPI_SOURCE, st->MPI_TAG, (long long)got, source, tag,
                (long long)count);
}

void p2p_check_empty(const char *what, const MPI_Status *st)
{
    p2p_check_status(what, st, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_BYTE, 0);
    if (st->MPI_ERROR != MPI_SUCCESS)
        p2p_die("%s: an empty status holds error %d", what, st->MPI_ERROR);
}

void p2p_check_proc_null(const char *what, const MPI_Status *st)
{
    p2p_check_status(what, st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_BYTE, 0);
}

void p2p_check_ok(const char *what, int rc)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int len;

    if (rc == MPI_SUCCESS)
        return;
    MPI_Error_string(rc, text, &len);
    p2p_die("%s failed with error %d (%s)", what, rc, text);
}

void p2p_check_class(const char *what, int rc, int err_class, const char *class_name)
{
    char text[MPI_MAX_ERROR_STRING] = "";
    int got, len;

    if (rc == MPI_SUCCESS)
        p2p_die("%s succeeded, expected %s", what, class_name);
    MPI_Error_class(rc, &got);
    MPI_Error_string(rc, text, &len);
    if (got != err_class)
        p2p_die("%s: error class %d (%s), expected %s (%d)", what, got, text, class_name,
                err_class);
}
