/* What the generated bindings and the hand-written implementations of the
 * API layer share: internal objects and the error path. */
#ifndef OL_API_H
#define OL_API_H

#include "ol_comm.h"
#include "ol_datatype.h"
#include "ol_group.h"
#include "ol_op.h"
#include "ol_runtime.h"
#include "rma.h"
#include "io.h"

/* The API layer's name for ol_error_detail (ol_common.h). */
#define ol_api_set_detail ol_error_detail

/* The communicator whose handler takes the error being returned, when the
 * call has none among its arguments (MPI_Wait: the request's). */
void ol_api_set_error_comm(ol_comm_t *comm);

/* Hands an error to the communicator's handler (comm may be NULL: the
 * handler of MPI_COMM_SELF). Returns err when the handler returns. */
int ol_api_raise(const char *function, ol_comm_t *comm, int err);
/* The same for a call on a window: the window's handler (win NULL: as
 * ol_api_raise with no communicator). */
int ol_api_raise_win(const char *function, ol_win_t *win, int err);

/* The same for a call on a file: the file's handler; file NULL: the
 * handler of MPI_FILE_NULL, which MPI_File_open and MPI_File_delete use
 * (MPI_ERRORS_RETURN unless the program changed it). */
int ol_api_raise_file(const char *function, ol_file_t *file, int err);
MPI_Errhandler ol_api_file_default_errhandler(void);
/* The file whose request's error is being returned (MPI_Wait ...). */
void ol_api_set_error_file(ol_file_t *file);
void ol_api_set_file_default_errhandler(MPI_Errhandler handler);

/* Sessions (session.c). NULL for MPI_SESSION_NULL and anything that is no
 * live session (a finalized one included). */
typedef struct ol_session ol_session_t;
ol_session_t *ol_session_from_handle(MPI_Session handle);
MPI_Session ol_session_to_handle(ol_session_t *session);
MPI_Errhandler ol_session_errhandler(const ol_session_t *session);
/* The session's error handler takes the error (session NULL: as
 * ol_api_raise with no communicator). */
int ol_api_raise_session(const char *function, ol_session_t *session, int err);
/* The error of MPI_Session_init goes to the handler it was given (MPI-4.1
 * 11.3.1); one that is no session handler leaves it to ol_api_raise. */
int ol_api_raise_session_init(const char *function, MPI_Errhandler errhandler, int err);

/* Sessions and the objects derived from them: a session lives until it
 * is finalized and the last group and communicator made from its process
 * sets are freed (they hold references), so that a communicator's
 * session_bsend_buffer stays valid. ol_session_bsend_slot gives that slot
 * (NULL for NULL: the world model). */
void ol_session_retain(ol_session_t *session);
void ol_session_release(ol_session_t *session);
struct ol_bsend_buffer **ol_session_bsend_slot(ol_session_t *session);
/* A group made from others (MPI_Group_incl ..., a split's) derives from
 * the session of the group it was made from. */
void ol_group_inherit_session(ol_group_t *group, const ol_group_t *from);

/* Attach, detach (int size) and iflush of a buffered-send buffer slot
 * (pt2pt.c): the process's, a communicator's or a session's. */
int ol_api_buffer_attach_to(struct ol_bsend_buffer **slot, void *buffer, MPI_Count size);
int ol_api_buffer_detach_int(struct ol_bsend_buffer **slot, void *buffer_addr, int *size);
int ol_api_buffer_iflush_of(struct ol_bsend_buffer **slot, MPI_Request *request);

/* The runtime, held by the world model and by every live session (init.c):
 * the first hold starts it with the required thread level, the last
 * release ends it. *provided: the level it runs at. */
int ol_api_runtime_hold(int required, int *provided);
int ol_api_runtime_release(void);

/* How a collective is issued: the blocking, nonblocking (MPI_I...) and
 * persistent (..._init) forms of a collective share one implementation,
 * which takes this and the request of the last two (gen_bindings.py). */
typedef enum { OL_API_BLOCKING, OL_API_NONBLOCKING, OL_API_PERSISTENT } ol_api_how_t;

/* The library's name and version, as MPI_Get_library_version says it. */
const char *ol_api_library_version(void);

#endif
