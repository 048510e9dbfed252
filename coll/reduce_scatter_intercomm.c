/* Reduce_scatter and Reduce_scatter_block on an intercommunicator: the
 * reduction of one group's vectors is scattered over the other group. Both
 * groups' vectors have n = the sum of the local blocks elements; an
 * intercommunicator allreduce (allreduce_intercomm.c) brings each process
 * the whole reduction of the other group into scratch, and it keeps its
 * block.
 *
 * Cost: that of the intercommunicator allreduce (4 linear steps through
 * each group's rank 0) plus a local copy of the block.
 *
 * Example, A = {a0, a1} with blocks 1 and 2, B = {b0, b1, b2} with blocks
 * 1, 1, 1: every vector has 3 elements; a1 gets elements 1-2 of
 * x(b0) op x(b1) op x(b2), b2 element 2 of x(a0) op x(a1). On an
 * intracommunicator (forced) the same steps reduce the process's own group. */
#include "reduce_util.h"
#include "coll_util.h"

ol_status_t ol_coll_reduce_scatter_intercomm(ol_sched_t *s, const ol_coll_args_t *a)
{
    int rank = a->comm->rank;
    ol_datatype_t *dt = a->recvtype;
    const MPI_Count *starts = ol_coll_reduce_scatter_starts(s, a);
    if (!starts)
        return MPI_ERR_NO_MEM;
    MPI_Count n = starts[a->comm->size], mine = starts[rank + 1] - starts[rank];
    void *all = ol_sched_scratch_typed(s, dt, n);
    if (!all)
        return MPI_ERR_NO_MEM;
    const void *in = ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    ol_status_t rc = ol_coll_allreduce_intercomm_into(s, a->comm, in, all, n, dt, a->op);
    if (rc == OL_OK)
        rc = ol_sched_round(s);
    return rc == OL_OK ? ol_sched_copy(s, ol_coll_at(all, starts[rank], dt), mine, dt,
                                       a->recvbuf, mine, dt)
                       : rc;
}
