/* Definitions every layer of ompi-lite shares.
 *
 * The internal status type is an MPI error class (MPI_SUCCESS, MPI_ERR_RANK,
 * ...): every layer returns one, the API layer decides what the user sees.
 * Keeping the internal and external codes the same avoids a translation table
 * that would have to grow with every new error. */
#ifndef OL_COMMON_H
#define OL_COMMON_H

#include "mpi.h"
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef int ol_status_t;

#define OL_OK MPI_SUCCESS

#define OL_LIKELY(x) __builtin_expect(!!(x), 1)
#define OL_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Symbols of the MPI interface are the only ones the library exports. */
#define OL_EXPORT __attribute__((visibility("default")))

/* Records, for this thread, a sentence saying what went wrong ("invalid
 * rank 9 in argument dest ..."), where the error is first seen; the API
 * layer's error handler prints it with the error class. */
void ol_error_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The sentence recorded since the last call, or "" ; clears it. */
const char *ol_error_detail_take(void);

#define OL_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* memcpy of a message's bytes, in pieces of at most 256 KiB, as Open MPI
 * copies (128 KiB). One memcpy of several MiB ran slower here than the
 * same bytes in pieces (2-core AMD EPYC, glibc 2.36, one 16 MiB buffer
 * copied 20 times, best run: 24-34 GB/s whole, 39-42 in 128-384 KiB
 * pieces, 21-31 in 1-2 MiB pieces); in a 2-rank MPI_Allgather of 32 MiB,
 * whose own block is one such copy, medians of 6 alternating runs went
 * from 3842 to 3216 us (Open MPI 3307). Sizes known when compiled below
 * the piece stay one memcpy. */
static inline void ol_copy_bytes(void *dst, const void *src, size_t bytes)
{
    enum { PIECE = 256 * 1024 };
    char *to = dst;
    const char *from = src;
    for (; bytes > PIECE; bytes -= PIECE, to += PIECE, from += PIECE)
        memcpy(to, from, PIECE);
    memcpy(to, from, bytes);
}

/* The body of a loop that polls a word another core writes: it tells the
 * core that it spins (x86 pause, Arm yield), so that the store it waits for
 * ends the loop without the pipeline flush of a speculated load. */
static inline void ol_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
