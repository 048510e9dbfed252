/* What comm.c offers the API layer's other chapters (topologies) that
 * create communicators: its creation path is otherwise static. */
#ifndef OL_API_COMM_INTERNAL_H
#define OL_API_COMM_INTERNAL_H

#include "ol_comm.h"

/* MPI_Comm_split without the binding: collective over comm, same checks. */
int ol_comm_split_internal(ol_comm_t *comm, int color, int key, MPI_Comm *newcomm);

#endif
