/* What the generated bindings and the hand-written implementations of the
 * API layer share: internal objects and the error path. */
#ifndef OL_API_H
#define OL_API_H

#include "ol_comm.h"
#include "ol_datatype.h"
#include "ol_runtime.h"

/* Records a sentence saying what was wrong ("invalid rank 9 in argument
 * dest ..."); the error handler prints it. Per thread, overwritten by the
 * next error. */
void ol_api_set_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Hands an error to the communicator's handler (comm may be NULL: the
 * handler of MPI_COMM_SELF). Returns err when the handler returns. */
int ol_api_raise(const char *function, ol_comm_t *comm, int err);

/* The library's name and version, as MPI_Get_library_version says it. */
const char *ol_api_library_version(void);

#endif
