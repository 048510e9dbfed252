/* Collective calls of the API: they check what the generated bindings
 * cannot (the arrays of the v and w forms, MPI_IN_PLACE where the standard
 * does not allow it, the topology of neighbourhood collectives), widen the
 * int arrays of the non-_c forms, and hand one ol_coll_args_t to coll/.
 * Each implementation serves the blocking, nonblocking (MPI_I...) and
 * persistent (..._init) forms of its collective (gen_bindings.py passes
 * how); all three build the same schedule. The arguments only matter while
 * the schedule is built, so widened arrays are freed as soon as the call
 * has been issued. */
#include "coll_internal.h"
#include "gen_impl.h"
#include "ol_api_checks.h"
#include "ol_topo.h"

#include <stdlib.h>

int ol_api_coll_issue(const ol_coll_args_t *a, ol_api_how_t how, MPI_Request *request)
{
    ol_request_t *req;
    int rc;
    if (how == OL_API_BLOCKING)
        return ol_coll_run(a);
    rc = how == OL_API_NONBLOCKING ? ol_coll_start(a, &req) : ol_coll_prepare(a, &req);
    if (rc == MPI_SUCCESS)
        *request = ol_request_to_handle(req);
    return rc;
}

/* The one block of a gather's (allgather's) send or a scatter's receive. */
static ol_api_coll_side_t one_block(const void *buf, MPI_Count count, const ol_datatype_t *dt)
{
    return (ol_api_coll_side_t){.buf = buf, .n = 1, .count = count, .dt = dt};
}

/* n blocks, one per process: from the arrays of a v or w form, or, without
 * them, count elements each one after another, which are one block of
 * n * count (so that the check costs the same for any number of
 * processes). */
static ol_api_coll_side_t blocks(const void *buf, int n, MPI_Count count, const MPI_Count *counts,
                                 const MPI_Aint *displs, const ol_datatype_t *dt,
                                 ol_datatype_t *const *types)
{
    if (!counts)
        return one_block(buf, (MPI_Count)n * count, dt);
    return (ol_api_coll_side_t){.buf = buf, .n = n, .counts = counts, .displs = displs,
                                .byte_displs = types != NULL, .dt = dt, .types = types};
}

static ol_api_coll_side_t send_blocks(const ol_coll_args_t *a, int n)
{
    return blocks(a->sendbuf, n, a->sendcount, a->sendcounts, a->sdispls, a->sendtype,
                  a->sendtypes);
}

static ol_api_coll_side_t recv_blocks(const ol_coll_args_t *a, int n)
{
    return blocks(a->recvbuf, n, a->recvcount, a->recvcounts, a->rdispls, a->recvtype,
                  a->recvtypes);
}

/* Issues a, unless the send and receive data of this process share memory
 * (send, recv): erroneous (MPI-4.1 2.5.2; MPI_IN_PLACE is the way to say
 * it), and refused at once with MPI_ERR_BUFFER before any message, as
 * MPICH refuses it (Open MPI 4.1 runs most such calls as given). The call
 * then takes no part, so the others' call waits for a correct one of this
 * process (MPICH's test suite makes one), and every process's calls on the
 * communicator stay in step. */
static int issue_unaliased(const ol_coll_args_t *a, const ol_api_coll_side_t *send,
                           const ol_api_coll_side_t *recv, ol_api_how_t how, MPI_Request *request)
{
    uintptr_t where;
    if (a->sendbuf != MPI_IN_PLACE && a->recvbuf != MPI_IN_PLACE &&
        ol_api_coll_sides_overlap(send, recv, &where)) {
        ol_api_set_detail("sendbuf and recvbuf share memory (the byte at %p is in both): pass "
                          "MPI_IN_PLACE where the data is already in place",
                          (void *)where);
        return MPI_ERR_BUFFER;
    }
    return ol_api_coll_issue(a, how, request);
}

/* ---- checks ----------------------------------------------------------- */

static int not_in_place(const void *buf, const char *arg)
{
    if (buf != MPI_IN_PLACE)
        return MPI_SUCCESS;
    ol_api_set_detail("%s is MPI_IN_PLACE, which this call does not allow here", arg);
    return MPI_ERR_BUFFER;
}

/* One side of a v or w form: n blocks, the arrays given, no count
 * negative, no block with data at address 0 (a NULL buffer is MPI_BOTTOM,
 * where the displacements may be absolute addresses), every type
 * committed. types: one per block (w forms, displacements in bytes), or
 * NULL when every block is of dt (displacements in its extents). */
static int check_side(const void *buf, const MPI_Count *counts, const MPI_Aint *displs,
                      ol_datatype_t *dt, ol_datatype_t *const *types, int n, const char *side)
{
    if (n > 0 && (!counts || !displs)) {
        ol_api_set_detail("the %scounts or the displacements array is NULL", side);
        return MPI_ERR_ARG;
    }
    for (int i = 0; i < n; i++) {
        if (counts[i] < 0) {
            ol_api_set_detail("%scounts[%d] is %lld, a count must not be negative", side, i,
                              (long long)counts[i]);
            return MPI_ERR_COUNT;
        }
        ol_datatype_t *type = types ? types[i] : dt;
        MPI_Aint displ = types ? displs[i] : displs[i] * type->extent;
        int rc = ol_check_buffer_at(buf, displ, counts[i], type,
                                    *side == 's' ? "sendbuf" : "recvbuf");
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The process's neighbour counts, or MPI_ERR_TOPOLOGY without a topology. */
static int neighbor_counts(const ol_comm_t *comm, int *indegree, int *outdegree)
{
    const int *sources, *destinations;
    if (!comm->topo) {
        ol_api_set_detail("%s has no topology", comm->name[0] ? comm->name : "the communicator");
        return MPI_ERR_TOPOLOGY;
    }
    ol_topo_neighbors(comm->topo, indegree, &sources, outdegree, &destinations);
    return MPI_SUCCESS;
}

/* ---- int arrays of the non-_c forms ------------------------------------ */

/* The int arrays of a call, as coll/ takes them; NULL stays NULL. */
typedef struct {
    MPI_Count *sendcounts, *recvcounts;
    MPI_Aint *sdispls, *rdispls;
} wide_t;

static MPI_Count *wide_counts(const int *v, int n)
{
    MPI_Count *w = malloc(sizeof(*w) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; w && i < n; i++)
        w[i] = v[i];
    return w;
}

static MPI_Aint *wide_displs(const int *v, int n)
{
    MPI_Aint *w = malloc(sizeof(*w) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; w && i < n; i++)
        w[i] = v[i];
    return w;
}

static void free_wide(wide_t *w)
{
    free(w->sendcounts);
    free(w->recvcounts);
    free(w->sdispls);
    free(w->rdispls);
}

/* Widens the send arrays (nsend entries) and the receive arrays (nrecv). */
static int widen(wide_t *w, int nsend, const int *sendcounts, const int *sdispls, int nrecv,
                 const int *recvcounts, const int *rdispls)
{
    *w = (wide_t){0};
    bool ok = true;
    if (sendcounts)
        ok = ok && (w->sendcounts = wide_counts(sendcounts, nsend));
    if (sdispls)
        ok = ok && (w->sdispls = wide_displs(sdispls, nsend));
    if (recvcounts)
        ok = ok && (w->recvcounts = wide_counts(recvcounts, nrecv));
    if (rdispls)
        ok = ok && (w->rdispls = wide_displs(rdispls, nrecv));
    if (ok)
        return MPI_SUCCESS;
    free_wide(w);
    return MPI_ERR_NO_MEM;
}

/* The datatypes of a w form, translated and checked. */
static int translate_types(const MPI_Datatype *handles, int n, const char *arg,
                           ol_datatype_t ***types)
{
    *types = NULL;
    if (n > 0 && !handles) {
        ol_api_set_detail("%s is NULL", arg);
        return MPI_ERR_ARG;
    }
    ol_datatype_t **t = malloc(sizeof(*t) * (size_t)(n > 0 ? n : 1));
    if (!t)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        int rc = ol_check_datatype(handles[i], arg, &t[i]);
        if (rc != MPI_SUCCESS) {
            free(t);
            return rc;
        }
    }
    *types = t;
    return MPI_SUCCESS;
}

/* ---- barrier and bcast ---------------------------------------------------- */

int ol_api_barrier(ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    return ol_api_coll_issue(&(ol_coll_args_t){.kind = OL_COLL_BARRIER, .comm = comm}, how,
                             request);
}

int ol_api_bcast_c(void *buffer, MPI_Count count, ol_datatype_t *datatype, int root,
                   ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    int rc = not_in_place(buffer, "buffer");
    if (rc != MPI_SUCCESS)
        return rc;
    ol_coll_args_t a = {.kind = OL_COLL_BCAST,
                        .recvbuf = buffer,
                        .recvcount = count,
                        .recvtype = datatype,
                        .root = root,
                        .comm = comm};
    return ol_api_coll_issue(&a, how, request);
}

/* ---- gather, gatherv, scatter, scatterv ------------------------------------ */

/* Rooted collectives: the root (MPI_ROOT on an intercommunicator) and the
 * processes that send to it or receive from it (every process of an
 * intracommunicator but the root, the remote group of an
 * intercommunicator); the rest of the root's group takes no part. */
static bool at_root(const ol_coll_args_t *a)
{
    return ol_api_is_root(a->comm, a->root);
}

static bool at_leaf(const ol_coll_args_t *a)
{
    return ol_comm_is_inter(a->comm) ? a->root >= 0 : a->comm->rank != a->root;
}

/* Gather and scatter, v forms too: MPI_IN_PLACE only as the buffer the
 * root of an intracommunicator keeps its own block in (sendbuf of gather,
 * recvbuf of scatter), where the same memory must not be given instead. */
static int rooted(const ol_coll_args_t *a, ol_api_how_t how, MPI_Request *request)
{
    bool gathers = a->kind == OL_COLL_GATHER || a->kind == OL_COLL_GATHERV;
    int rc = MPI_SUCCESS;
    if (at_root(a))
        rc = gathers ? not_in_place(a->recvbuf, "recvbuf") : not_in_place(a->sendbuf, "sendbuf");
    if (rc == MPI_SUCCESS && at_leaf(a))
        rc = gathers ? not_in_place(a->sendbuf, "sendbuf") : not_in_place(a->recvbuf, "recvbuf");
    if (rc == MPI_SUCCESS && at_root(a) && a->kind == OL_COLL_GATHERV)
        rc = check_side(a->recvbuf, a->recvcounts, a->rdispls, a->recvtype, NULL,
                        a->comm->peer_size, "recv");
    if (rc == MPI_SUCCESS && at_root(a) && a->kind == OL_COLL_SCATTERV)
        rc = check_side(a->sendbuf, a->sendcounts, a->sdispls, a->sendtype, NULL,
                        a->comm->peer_size, "send");
    if (rc != MPI_SUCCESS)
        return rc;
    if (!at_root(a) || ol_comm_is_inter(a->comm))
        return ol_api_coll_issue(a, how, request);
    int n = a->comm->peer_size;
    ol_api_coll_side_t all = gathers ? recv_blocks(a, n) : send_blocks(a, n);
    ol_api_coll_side_t own = gathers ? one_block(a->sendbuf, a->sendcount, a->sendtype)
                                     : one_block(a->recvbuf, a->recvcount, a->recvtype);
    return gathers ? issue_unaliased(a, &own, &all, how, request)
                   : issue_unaliased(a, &all, &own, how, request);
}

/* Gather and scatter: one block each way per process. */
static ol_coll_args_t rooted_args(ol_coll_kind_t kind, const void *sendbuf, MPI_Count sendcount,
                                  ol_datatype_t *sendtype, void *recvbuf, MPI_Count recvcount,
                                  ol_datatype_t *recvtype, int root, ol_comm_t *comm)
{
    return (ol_coll_args_t){.kind = kind,
                            .sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .sendcount = sendcount,
                            .recvcount = recvcount,
                            .sendtype = sendtype,
                            .recvtype = recvtype,
                            .root = root,
                            .comm = comm};
}

int ol_api_gather_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                    void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype, int root,
                    ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    ol_coll_args_t a = rooted_args(OL_COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                   recvtype, root, comm);
    return rooted(&a, how, request);
}

int ol_api_scatter_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                     void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype, int root,
                     ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    ol_coll_args_t a = rooted_args(OL_COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, root, comm);
    return rooted(&a, how, request);
}

/* The receive arrays of gatherv (send arrays of scatterv) are the root's. */
static int root_blocks(const ol_comm_t *comm, int root)
{
    return ol_api_is_root(comm, root) ? comm->peer_size : 0;
}

int ol_api_gatherv_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                     void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                     ol_datatype_t *recvtype, int root, ol_comm_t *comm, ol_api_how_t how,
                     MPI_Request *request)
{
    ol_coll_args_t a = {.kind = OL_COLL_GATHERV,
                        .sendbuf = sendbuf,
                        .recvbuf = recvbuf,
                        .sendcount = sendcount,
                        .sendtype = sendtype,
                        .recvcounts = recvcounts,
                        .rdispls = displs,
                        .recvtype = recvtype,
                        .root = root,
                        .comm = comm};
    return rooted(&a, how, request);
}

int ol_api_gatherv(const void *sendbuf, int sendcount, ol_datatype_t *sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], ol_datatype_t *recvtype, int root,
                   ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    wide_t w;
    int n = root_blocks(comm, root);
    int rc = widen(&w, 0, NULL, NULL, n, n ? recvcounts : NULL, n ? displs : NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ol_api_gatherv_c(sendbuf, sendcount, sendtype, recvbuf, w.recvcounts, w.rdispls, recvtype,
                          root, comm, how, request);
    free_wide(&w);
    return rc;
}

int ol_api_scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                      ol_datatype_t *sendtype, void *recvbuf, MPI_Count recvcount,
                      ol_datatype_t *recvtype, int root, ol_comm_t *comm, ol_api_how_t how,
                      MPI_Request *request)
{
    ol_coll_args_t a = {.kind = OL_COLL_SCATTERV,
                        .sendbuf = sendbuf,
                        .sendcounts = sendcounts,
                        .sdispls = displs,
                        .sendtype = sendtype,
                        .recvbuf = recvbuf,
                        .recvcount = recvcount,
                        .recvtype = recvtype,
                        .root = root,
                        .comm = comm};
    return rooted(&a, how, request);
}

int ol_api_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                    ol_datatype_t *sendtype, void *recvbuf, int recvcount, ol_datatype_t *recvtype,
                    int root, ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    wide_t w;
    int n = root_blocks(comm, root);
    int rc = widen(&w, n, n ? sendcounts : NULL, n ? displs : NULL, 0, NULL, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ol_api_scatterv_c(sendbuf, w.sendcounts, w.sdispls, sendtype, recvbuf, recvcount, recvtype,
                           root, comm, how, request);
    free_wide(&w);
    return rc;
}

/* ---- allgather(v), alltoall(v, w) and the neighbourhood forms ------------ */

static bool has_send_arrays(ol_coll_kind_t kind)
{
    return kind == OL_COLL_ALLTOALLV || kind == OL_COLL_ALLTOALLW ||
           kind == OL_COLL_NEIGHBOR_ALLTOALLV || kind == OL_COLL_NEIGHBOR_ALLTOALLW;
}

static bool has_recv_arrays(ol_coll_kind_t kind)
{
    return has_send_arrays(kind) || kind == OL_COLL_ALLGATHERV ||
           kind == OL_COLL_NEIGHBOR_ALLGATHERV;
}

static bool is_neighbor(ol_coll_kind_t kind)
{
    return kind >= OL_COLL_NEIGHBOR_ALLGATHER && kind <= OL_COLL_NEIGHBOR_ALLTOALLW;
}

/* Every process sends and receives: MPI_IN_PLACE only as the send buffer
 * of an intracommunicator's allgather(v) or alltoall(v, w). nsend and
 * nrecv: the number of blocks of the send and receive arrays. */
static int exchange(const ol_coll_args_t *a, int nsend, int nrecv, ol_api_how_t how,
                    MPI_Request *request)
{
    int rc = not_in_place(a->recvbuf, "recvbuf");
    if (rc == MPI_SUCCESS && (is_neighbor(a->kind) || ol_comm_is_inter(a->comm)))
        rc = not_in_place(a->sendbuf, "sendbuf");
    if (rc == MPI_SUCCESS && has_send_arrays(a->kind) && a->sendbuf != MPI_IN_PLACE)
        rc = check_side(a->sendbuf, a->sendcounts, a->sdispls, a->sendtype, a->sendtypes, nsend,
                        "send");
    if (rc == MPI_SUCCESS && has_recv_arrays(a->kind))
        rc = check_side(a->recvbuf, a->recvcounts, a->rdispls, a->recvtype, a->recvtypes, nrecv,
                        "recv");
    if (rc != MPI_SUCCESS)
        return rc;
    if (is_neighbor(a->kind) || ol_comm_is_inter(a->comm))
        return ol_api_coll_issue(a, how, request);
    bool allgather = a->kind == OL_COLL_ALLGATHER || a->kind == OL_COLL_ALLGATHERV;
    ol_api_coll_side_t send = allgather ? one_block(a->sendbuf, a->sendcount, a->sendtype)
                                        : send_blocks(a, nsend);
    ol_api_coll_side_t recv = recv_blocks(a, nrecv);
    return issue_unaliased(a, &send, &recv, how, request);
}

/* The blocks of the arrays: for the neighbourhood forms the process's
 * degrees (MPI_ERR_TOPOLOGY without a topology), otherwise one per process
 * of the (remote) group. */
static int block_counts(const ol_comm_t *comm, ol_coll_kind_t kind, int *nsend, int *nrecv)
{
    if (is_neighbor(kind))
        return neighbor_counts(comm, nrecv, nsend);
    *nsend = *nrecv = comm->peer_size;
    return MPI_SUCCESS;
}

/* Forms with scalar counts: allgather, alltoall, neighbour allgather and
 * alltoall. */
static int exchange_c(ol_coll_kind_t kind, const void *sendbuf, MPI_Count sendcount,
                      ol_datatype_t *sendtype, void *recvbuf, MPI_Count recvcount,
                      ol_datatype_t *recvtype, ol_comm_t *comm, ol_api_how_t how,
                      MPI_Request *request)
{
    int nsend, nrecv;
    int rc = block_counts(comm, kind, &nsend, &nrecv);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_coll_args_t a = {.kind = kind,
                        .sendbuf = sendbuf,
                        .recvbuf = recvbuf,
                        .sendcount = sendcount,
                        .recvcount = recvcount,
                        .sendtype = sendtype,
                        .recvtype = recvtype,
                        .comm = comm};
    return exchange(&a, nsend, nrecv, how, request);
}

/* Allgatherv and neighbour allgatherv. */
static int allgatherv_c(ol_coll_kind_t kind, const void *sendbuf, MPI_Count sendcount,
                        ol_datatype_t *sendtype, void *recvbuf, const MPI_Count *recvcounts,
                        const MPI_Aint *displs, ol_datatype_t *recvtype, ol_comm_t *comm,
                        ol_api_how_t how, MPI_Request *request)
{
    int nsend, nrecv;
    int rc = block_counts(comm, kind, &nsend, &nrecv);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_coll_args_t a = {.kind = kind,
                        .sendbuf = sendbuf,
                        .recvbuf = recvbuf,
                        .sendcount = sendcount,
                        .sendtype = sendtype,
                        .recvcounts = recvcounts,
                        .rdispls = displs,
                        .recvtype = recvtype,
                        .comm = comm};
    return exchange(&a, nsend, nrecv, how, request);
}

static int allgatherv_int(ol_coll_kind_t kind, const void *sendbuf, int sendcount,
                          ol_datatype_t *sendtype, void *recvbuf, const int *recvcounts,
                          const int *displs, ol_datatype_t *recvtype, ol_comm_t *comm,
                          ol_api_how_t how, MPI_Request *request)
{
    int nsend, nrecv;
    wide_t w;
    int rc = block_counts(comm, kind, &nsend, &nrecv);
    if (rc == MPI_SUCCESS)
        rc = widen(&w, 0, NULL, NULL, nrecv, recvcounts, displs);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = allgatherv_c(kind, sendbuf, sendcount, sendtype, recvbuf, w.recvcounts, w.rdispls,
                      recvtype, comm, how, request);
    free_wide(&w);
    return rc;
}

/* Alltoallv and neighbour alltoallv. */
static int alltoallv_c(ol_coll_kind_t kind, const void *sendbuf, const MPI_Count *sendcounts,
                       const MPI_Aint *sdispls, ol_datatype_t *sendtype, void *recvbuf,
                       const MPI_Count *recvcounts, const MPI_Aint *rdispls,
                       ol_datatype_t *recvtype, ol_comm_t *comm, ol_api_how_t how,
                       MPI_Request *request)
{
    int nsend, nrecv;
    int rc = block_counts(comm, kind, &nsend, &nrecv);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_coll_args_t a = {.kind = kind,
                        .sendbuf = sendbuf,
                        .recvbuf = recvbuf,
                        .sendcounts = sendcounts,
                        .sdispls = sdispls,
                        .sendtype = sendtype,
                        .recvcounts = recvcounts,
                        .rdispls = rdispls,
                        .recvtype = recvtype,
                        .comm = comm};
    return exchange(&a, nsend, nrecv, how, request);
}

static int alltoallv_int(ol_coll_kind_t kind, const void *sendbuf, const int *sendcounts,
                         const int *sdispls, ol_datatype_t *sendtype, void *recvbuf,
                         const int *recvcounts, const int *rdispls, ol_datatype_t *recvtype,
                         ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    int nsend, nrecv;
    wide_t w;
    bool in_place = sendbuf == MPI_IN_PLACE; /* the send arrays are then ignored */
    int rc = block_counts(comm, kind, &nsend, &nrecv);
    if (rc == MPI_SUCCESS)
        rc = widen(&w, nsend, in_place ? NULL : sendcounts, in_place ? NULL : sdispls, nrecv,
                   recvcounts, rdispls);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = alltoallv_c(kind, sendbuf, w.sendcounts, w.sdispls, sendtype, recvbuf, w.recvcounts,
                     w.rdispls, recvtype, comm, how, request);
    free_wide(&w);
    return rc;
}

/* Alltoallw and neighbour alltoallw: displacements in bytes, a datatype
 * per block. */
static int alltoallw_c(ol_coll_kind_t kind, const void *sendbuf, const MPI_Count *sendcounts,
                       const MPI_Aint *sdispls, const MPI_Datatype *sendtypes, void *recvbuf,
                       const MPI_Count *recvcounts, const MPI_Aint *rdispls,
                       const MPI_Datatype *recvtypes, ol_comm_t *comm, ol_api_how_t how,
                       MPI_Request *request)
{
    int nsend, nrecv;
    ol_datatype_t **stypes = NULL, **rtypes = NULL;
    int rc = block_counts(comm, kind, &nsend, &nrecv);
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE)
        rc = translate_types(sendtypes, nsend, "sendtypes", &stypes);
    if (rc == MPI_SUCCESS)
        rc = translate_types(recvtypes, nrecv, "recvtypes", &rtypes);
    if (rc == MPI_SUCCESS) {
        ol_coll_args_t a = {.kind = kind,
                            .sendbuf = sendbuf,
                            .recvbuf = recvbuf,
                            .sendcounts = sendcounts,
                            .sdispls = sdispls,
                            .sendtypes = stypes,
                            .recvcounts = recvcounts,
                            .rdispls = rdispls,
                            .recvtypes = rtypes,
                            .comm = comm};
        rc = exchange(&a, nsend, nrecv, how, request);
    }
    free(stypes);
    free(rtypes);
    return rc;
}

/* Alltoallw's int form: int counts and displacements. */
static int alltoallw_int(const void *sendbuf, const int *sendcounts, const int *sdispls,
                         const MPI_Datatype *sendtypes, void *recvbuf, const int *recvcounts,
                         const int *rdispls, const MPI_Datatype *recvtypes, ol_comm_t *comm,
                         ol_api_how_t how, MPI_Request *request)
{
    wide_t w;
    int n = comm->peer_size;
    bool in_place = sendbuf == MPI_IN_PLACE;
    int rc = widen(&w, n, in_place ? NULL : sendcounts, in_place ? NULL : sdispls, n, recvcounts,
                   rdispls);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = alltoallw_c(OL_COLL_ALLTOALLW, sendbuf, w.sendcounts, w.sdispls, sendtypes, recvbuf,
                     w.recvcounts, w.rdispls, recvtypes, comm, how, request);
    free_wide(&w);
    return rc;
}

/* Neighbour alltoallw's int form: int counts, MPI_Aint displacements. */
static int neighbor_alltoallw_int(const void *sendbuf, const int *sendcounts,
                                  const MPI_Aint *sdispls, const MPI_Datatype *sendtypes,
                                  void *recvbuf, const int *recvcounts, const MPI_Aint *rdispls,
                                  const MPI_Datatype *recvtypes, ol_comm_t *comm, ol_api_how_t how,
                                  MPI_Request *request)
{
    int nsend, nrecv;
    wide_t w;
    int rc = neighbor_counts(comm, &nrecv, &nsend);
    if (rc == MPI_SUCCESS)
        rc = widen(&w, nsend, sendcounts, NULL, nrecv, recvcounts, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = alltoallw_c(OL_COLL_NEIGHBOR_ALLTOALLW, sendbuf, w.sendcounts, sdispls, sendtypes, recvbuf,
                     w.recvcounts, rdispls, recvtypes, comm, how, request);
    free_wide(&w);
    return rc;
}

int ol_api_allgather_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                       void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype, ol_comm_t *comm,
                       ol_api_how_t how, MPI_Request *request)
{
    return exchange_c(OL_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      comm, how, request);
}

int ol_api_alltoall_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                      void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype, ol_comm_t *comm,
                      ol_api_how_t how, MPI_Request *request)
{
    return exchange_c(OL_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                      comm, how, request);
}

int ol_api_neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                                void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype,
                                ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    return exchange_c(OL_COLL_NEIGHBOR_ALLGATHER, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, comm, how, request);
}

int ol_api_neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                               void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype,
                               ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    return exchange_c(OL_COLL_NEIGHBOR_ALLTOALL, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                      recvtype, comm, how, request);
}

int ol_api_allgatherv(const void *sendbuf, int sendcount, ol_datatype_t *sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], ol_datatype_t *recvtype,
                      ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    return allgatherv_int(OL_COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                          displs, recvtype, comm, how, request);
}

int ol_api_allgatherv_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                        void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        ol_datatype_t *recvtype, ol_comm_t *comm, ol_api_how_t how,
                        MPI_Request *request)
{
    return allgatherv_c(OL_COLL_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                        displs, recvtype, comm, how, request);
}

int ol_api_neighbor_allgatherv(const void *sendbuf, int sendcount, ol_datatype_t *sendtype,
                               void *recvbuf, const int recvcounts[], const int displs[],
                               ol_datatype_t *recvtype, ol_comm_t *comm, ol_api_how_t how,
                               MPI_Request *request)
{
    return allgatherv_int(OL_COLL_NEIGHBOR_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf,
                          recvcounts, displs, recvtype, comm, how, request);
}

int ol_api_neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                                 void *recvbuf, const MPI_Count recvcounts[],
                                 const MPI_Aint displs[], ol_datatype_t *recvtype, ol_comm_t *comm,
                                 ol_api_how_t how, MPI_Request *request)
{
    return allgatherv_c(OL_COLL_NEIGHBOR_ALLGATHERV, sendbuf, sendcount, sendtype, recvbuf,
                        recvcounts, displs, recvtype, comm, how, request);
}

int ol_api_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     ol_datatype_t *sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], ol_datatype_t *recvtype, ol_comm_t *comm,
                     ol_api_how_t how, MPI_Request *request)
{
    return alltoallv_int(OL_COLL_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                         recvcounts, rdispls, recvtype, comm, how, request);
}

int ol_api_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                       ol_datatype_t *sendtype, void *recvbuf, const MPI_Count recvcounts[],
                       const MPI_Aint rdispls[], ol_datatype_t *recvtype, ol_comm_t *comm,
                       ol_api_how_t how, MPI_Request *request)
{
    return alltoallv_c(OL_COLL_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                       recvcounts, rdispls, recvtype, comm, how, request);
}

int ol_api_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                              ol_datatype_t *sendtype, void *recvbuf, const int recvcounts[],
                              const int rdispls[], ol_datatype_t *recvtype, ol_comm_t *comm,
                              ol_api_how_t how, MPI_Request *request)
{
    return alltoallv_int(OL_COLL_NEIGHBOR_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype,
                         recvbuf, recvcounts, rdispls, recvtype, comm, how, request);
}

int ol_api_neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], ol_datatype_t *sendtype, void *recvbuf,
                                const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                ol_datatype_t *recvtype, ol_comm_t *comm, ol_api_how_t how,
                                MPI_Request *request)
{
    return alltoallv_c(OL_COLL_NEIGHBOR_ALLTOALLV, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                       recvcounts, rdispls, recvtype, comm, how, request);
}

int ol_api_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                     const int rdispls[], const MPI_Datatype recvtypes[], ol_comm_t *comm,
                     ol_api_how_t how, MPI_Request *request)
{
    return alltoallw_int(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                         recvtypes, comm, how, request);
}

int ol_api_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                       const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], ol_comm_t *comm,
                       ol_api_how_t how, MPI_Request *request)
{
    return alltoallw_c(OL_COLL_ALLTOALLW, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                       recvcounts, rdispls, recvtypes, comm, how, request);
}

int ol_api_neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                              ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    return neighbor_alltoallw_int(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                  rdispls, recvtypes, comm, how, request);
}

int ol_api_neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                ol_comm_t *comm, ol_api_how_t how, MPI_Request *request)
{
    return alltoallw_c(OL_COLL_NEIGHBOR_ALLTOALLW, sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                       recvcounts, rdispls, recvtypes, comm, how, request);
}
