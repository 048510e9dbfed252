/* Handles as ints (MPI_Comm_toint ...): predefined handles are their ABI
 * value; a user object gets a slot in one table shared by every kind, on
 * its first toint. The datatype engine keeps its own (datatype/handles.c). */
#ifndef OL_HANDLES_H
#define OL_HANDLES_H

/* The object is being destroyed: its int no longer names it. */
void ol_handle_forget(const void *object);

#endif
