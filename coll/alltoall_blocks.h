/* The blocks of the data-movement collectives, peer by peer (private to
 * coll/).
 *
 * Every data-movement collective is an alltoallw with some blocks empty or
 * shared: gather sends one block to the root and the root receives one from
 * each peer, allgather sends the same block to every peer, a neighbourhood
 * collective exchanges with the topology's neighbours only. These two
 * functions say, from the call's kind and arguments, which block this process
 * sends to peer (or neighbour index) i and which it receives from it, so the
 * linear, pairwise and ring algorithms are written once for all kinds. */
#ifndef OL_COLL_ALLTOALL_BLOCKS_H
#define OL_COLL_ALLTOALL_BLOCKS_H

#include "coll_sched.h"

typedef struct {
    void *buf;
    MPI_Count count;
    ol_datatype_t *dt;
} ol_coll_block_t;

/* What this process sends to peer i. For allgather(v) with MPI_IN_PLACE:
 * its own block of recvbuf. */
ol_coll_block_t ol_coll_send_block(const ol_coll_args_t *a, int i);
/* Where what comes from peer i lands. */
ol_coll_block_t ol_coll_recv_block(const ol_coll_args_t *a, int i);

/* Alltoall(v, w) with MPI_IN_PLACE: the blocks to send are overwritten by
 * blocks received, so the schedule first packs them into scratch. *out is a
 * copy of a whose send side describes that snapshot (packed bytes), and a
 * itself otherwise. The snapshot is taken by the steps added now, in the
 * current round, each time the schedule runs. */
ol_status_t ol_coll_alltoall_snapshot(ol_sched_t *s, const ol_coll_args_t *a, ol_coll_args_t *out);

#endif
