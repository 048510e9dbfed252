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

#endif
