/* Allreduce on an intercommunicator: each group gets the reduction of the
 * other group's vectors. With no intracommunicator at hand, only messages
 * between the groups are used, through each group's rank 0 (A0, B0):
 * every member of B sends its vector to A0, which reduces them in rank
 * order into R(B); A0 hands R(B) to B0, which sends it to every member of
 * A; and the same the other way round.
 *
 * Cost: 4 steps; A0 receives |B| vectors and B0 sends |A|: (|A| + |B| + 2)
 * * n * size bytes through each leader. Linear, for correctness and small
 * groups. Any op: the reduction runs in rank order.
 *
 * Example, A = {a0, a1}, B = {b0, b1, b2}: b0, b1, b2 send to a0 and a0, a1
 * to b0; a0 computes x(b0) op x(b1) op x(b2), b0 computes x(a0) op x(a1);
 * a0 and b0 swap them; b0 sends R(B) to a0 and a1, a0 sends R(A) to b0, b1
 * and b2. */
#include "reduce_util.h"
#include "coll_util.h"

ol_status_t ol_coll_gather_reduce(ol_sched_t *s, void *result, MPI_Count n, ol_datatype_t *dt,
                                 ol_op_t *op, int remote)
{
    void **in = ol_sched_scratch(s, sizeof(void *) * (size_t)remote);
    if (!in)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = OL_OK;
    for (int j = 0; rc == OL_OK && j < remote; j++) {
        in[j] = j == remote - 1 ? result : ol_sched_scratch_typed(s, dt, n);
        rc = in[j] ? ol_sched_recv(s, in[j], n, dt, j) : MPI_ERR_NO_MEM;
    }
    if (rc == OL_OK)
        rc = ol_sched_round(s);
    for (int j = remote - 2; rc == OL_OK && j >= 0; j--)
        rc = ol_sched_reduce(s, in[j], result, n, dt, op);
    return rc;
}

ol_status_t ol_coll_allreduce_intercomm_into(ol_sched_t *s, ol_comm_t *comm, const void *sendbuf,
                                             void *recvbuf, MPI_Count n, ol_datatype_t *dt,
                                             ol_op_t *op)
{
    bool leader = comm->rank == 0;
    void *theirs = leader ? ol_sched_scratch_typed(s, dt, n) : NULL; /* R(remote group) */
    void *ours = leader ? ol_sched_scratch_typed(s, dt, n) : NULL;   /* R(local group) */
    if (leader && (!theirs || !ours))
        return MPI_ERR_NO_MEM;
    ol_status_t rc = ol_sched_send(s, sendbuf, n, dt, 0);
    if (rc == OL_OK && leader)
        rc = ol_coll_gather_reduce(s, theirs, n, dt, op, comm->peer_size);
    if (rc == OL_OK && leader) { /* the leaders swap: each gets its own group's reduction */
        rc = ol_sched_round(s);
        if (rc == OL_OK)
            rc = ol_sched_send(s, theirs, n, dt, 0);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, ours, n, dt, 0);
    }
    if (rc == OL_OK)
        rc = ol_sched_round(s);
    for (int j = 0; rc == OL_OK && leader && j < comm->peer_size; j++)
        rc = ol_sched_send(s, ours, n, dt, j);
    return rc == OL_OK ? ol_sched_recv(s, recvbuf, n, dt, 0) : rc;
}

ol_status_t ol_coll_allreduce_intercomm(ol_sched_t *s, const ol_coll_args_t *a)
{
    /* in place only where forced on an intracommunicator */
    const void *in = ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    return ol_coll_allreduce_intercomm_into(s, a->comm, in, a->recvbuf, a->recvcount,
                                            a->recvtype, a->op);
}
