/* Error handlers: the predefined ones are ABI constants; user handlers
 * (MPI_Comm_create_errhandler ...) are reference-counted objects, held by
 * their handle and by every object they are set on. Also the error classes
 * and codes a program adds (MPI_Add_error_class ...). */
#ifndef OL_ERRHANDLER_H
#define OL_ERRHANDLER_H

#include "ol_common.h"

/* No-ops on the predefined handlers. */
void ol_errhandler_retain(MPI_Errhandler handler);
void ol_errhandler_release(MPI_Errhandler handler);

/* True for MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT and MPI_ERRORS_RETURN. */
bool ol_errhandler_is_predefined(MPI_Errhandler handler);

/* True for a predefined handler or a live user handler made for
 * communicators: what MPI_Comm_set_errhandler accepts. */
bool ol_errhandler_fits_comm(MPI_Errhandler handler);

/* The same for windows (MPI_Win_set_errhandler). */
bool ol_errhandler_fits_win(MPI_Errhandler handler);
/* And for files (MPI_File_set_errhandler). */
bool ol_errhandler_fits_file(MPI_Errhandler handler);
/* And for sessions (MPI_Session_init, MPI_Session_set_errhandler). */
bool ol_errhandler_fits_session(MPI_Errhandler handler);

/* Runs a user communicator handler as the standard says: with the
 * communicator's handle and the code, which it may change; returns the
 * code it leaves. handler must be a user handler (!is_predefined). */
int ol_errhandler_call_comm(MPI_Errhandler handler, MPI_Comm comm, int code);
int ol_errhandler_call_win(MPI_Errhandler handler, MPI_Win win, int code);
int ol_errhandler_call_file(MPI_Errhandler handler, MPI_File file, int code);
int ol_errhandler_call_session(MPI_Errhandler handler, MPI_Session session, int code);

/* The value of the MPI_LASTUSEDCODE attribute, kept current by
 * MPI_Add_error_class/code (errors.c). */
const int *ol_error_last_used_code(void);

#endif
