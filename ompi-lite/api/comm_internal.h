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

/* The intercommunicator to the parents of a spawned job
 * (MPI_Comm_get_parent); NULL when there is none or it was freed. */
extern ol_comm_t *ol_comm_parent;

/* Swaps length bytes with the root of another group (the roots of both
 * call it alike); for ol_comm_create_with_remote. */
typedef ol_status_t (*ol_comm_swap_t)(const void *out, void *in, size_t length, void *ctx);

/* An intercommunicator of comm's group (every process of the
 * intracommunicator comm calls it) with remote, a group of processes that
 * make the same call on their side: the context id is agreed through their
 * root and this side's root, which swap through swap (called at root
 * only). Takes over the caller's reference to remote, also on failure. */
int ol_comm_create_with_remote(ol_comm_t *comm, int root, ol_group_t *remote,
                               ol_comm_swap_t swap, void *ctx, MPI_Comm *newcomm);

#endif
