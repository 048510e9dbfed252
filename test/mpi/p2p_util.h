/* p2p_util: what the point-to-point tests (p2p_*.c) share: start-up, fatal
 * checks that name the test, the rank and what differed, and a byte pattern
 * that tells one message from another. Not a test itself. */
#ifndef P2P_UTIL_H
#define P2P_UTIL_H

#include <mpi.h>
#include <stddef.h>

extern int p2p_rank, p2p_size;

/* MPI_Init_thread with `required`; returns the level provided. Sets the
 * name printed by every message, p2p_rank and p2p_size. */
int p2p_init(const char *name, int *argc, char ***argv, int required);

/* Barrier, "NAME: N ranks OK" from rank 0, MPI_Finalize. */
void p2p_finish(void);

/* Prints "NAME: rank R of N: <message>" on stderr and aborts the job. */
void p2p_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Byte i of the message that `seed` identifies: a hash of both, so that a
 * message from the wrong sender, or shifted by any offset, is caught. */
unsigned char p2p_byte(unsigned seed, size_t i);
void p2p_fill(void *buf, size_t n, unsigned seed);
/* Dies naming `what`, the first wrong byte, its value and the expected one. */
void p2p_check_data(const char *what, const void *buf, size_t n, unsigned seed);
/* Dies when any of the n bytes at buf is not `value` (untouched memory). */
void p2p_check_fill(const char *what, const void *buf, size_t n, unsigned char value);

/* The status says source, tag and count elements of dt; MPI_ERROR is not
 * looked at (the standard sets it only for calls that return
 * MPI_ERR_IN_STATUS). */
void p2p_check_status(const char *what, const MPI_Status *st, int source, int tag,
                      MPI_Datatype dt, MPI_Count count);
/* An empty status (a null or inactive request): source MPI_ANY_SOURCE,
 * tag MPI_ANY_TAG, error MPI_SUCCESS, count 0. */
void p2p_check_empty(const char *what, const MPI_Status *st);
/* The status of a receive from MPI_PROC_NULL: source MPI_PROC_NULL, tag
 * MPI_ANY_TAG, count 0. */
void p2p_check_proc_null(const char *what, const MPI_Status *st);

/* rc is MPI_SUCCESS. */
void p2p_check_ok(const char *what, int rc);
/* rc is an error of class err_class (named class_name in the message). */
void p2p_check_class(const char *what, int rc, int err_class, const char *class_name);
#define P2P_CHECK_CLASS(what, rc, cls) p2p_check_class(what, rc, cls, #cls)

#endif
