/* Attributes: keyvals and the values cached on communicators, datatypes and
 * windows, with the copy and delete callbacks the standard defines. */
#ifndef OL_ATTR_H
#define OL_ATTR_H

#include "ol_comm.h"
#include "ol_datatype.h"

/* On MPI_Comm_dup: runs every copy callback of old's attributes, in the
 * order they were set, caching what they ask for on new. On a failing
 * callback returns its code; what was copied stays on new, for
 * ol_attr_delete_all_comm to undo. */
ol_status_t ol_attr_copy_comm(ol_comm_t *old, ol_comm_t *new);
/* On MPI_Comm_free: runs every delete callback, the last set first, then
 * frees the list. A failing callback stops it and returns its code; the
 * attributes not yet deleted stay. */
ol_status_t ol_attr_delete_all_comm(ol_comm_t *comm);

/* The same for datatypes (MPI_Type_dup, MPI_Type_free). */
ol_status_t ol_attr_copy_type(ol_datatype_t *old, ol_datatype_t *new);
ol_status_t ol_attr_delete_all_type(ol_datatype_t *dt);

/* On MPI_Win_free (the window's type is rma/'s). */
struct ol_win;
ol_status_t ol_attr_delete_all_win(struct ol_win *win);

#endif
