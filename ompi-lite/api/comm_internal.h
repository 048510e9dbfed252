/* What comm.c offers the API layer's other chapters (topologies) that
 * create communicators: its creation path is otherwise static. */
#ifndef OL_API_COMM_INTERNAL_H
#define OL_API_COMM_INTERNAL_H

#include "ol_comm.h"

/* MPI_Comm_split without the binding: collective over comm, same checks. */
int ol_comm_split_internal(ol_comm_t *comm, int color, int key, MPI_Comm *newcomm);

/* A communicator of comm's group for a library object's own traffic (a
 * window's): collective over comm, with no attributes, hints or topology
 * of comm; errors return. Freed with ol_comm_free_private. */
ol_status_t ol_comm_dup_private(ol_comm_t *comm, ol_comm_t **dup);
void ol_comm_free_private(ol_comm_t *comm);

#endif
