/* Communicators: the object behind an MPI_Comm handle.
 *
 * Predefined handles are small integers (the standard ABI), user-created
 * communicators are pointers to ol_comm_t; ol_comm_from_handle tells them
 * apart by value, since no valid pointer is below one page. */
#ifndef OL_COMM_H
#define OL_COMM_H

#include "ol_common.h"

#define OL_COMM_MAGIC 0x6f6c636dU /* "olcm": a live user communicator */

typedef struct ol_comm {
    uint32_t magic;
    uint32_t context_id;     /* see pt2pt/tag_layout.h for its width */
    int rank;                /* this process's rank in the communicator */
    int size;
    const int *world_ranks;  /* comm rank -> world rank; NULL: identity */
    int coll_sequence;       /* collective calls so far, tags their traffic */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
} ol_comm_t;

extern ol_comm_t ol_comm_world;
extern ol_comm_t ol_comm_self;

void ol_comm_init_predefined(void);

ol_comm_t *ol_comm_from_handle(MPI_Comm handle);

static inline int ol_comm_world_rank(const ol_comm_t *comm, int rank)
{
    return comm->world_ranks ? comm->world_ranks[rank] : rank;
}

#endif
