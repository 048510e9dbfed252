/* Allreduce, hierarchical: a binomial reduce among the members on each host
 * to the host's leader (its lowest rank in the communicator), an allreduce
 * among the leaders (binomial reduce and broadcast), then a binomial
 * broadcast on each host; every phase pipelined in segments of
 * ALLREDUCE_SEGMENT_BYTES. Only the leaders' phase crosses the network.
 *
 * Which host each member is on is learned once per member list: the first
 * call on a communicator allgathers every member's node leader (a world
 * rank) and keeps it, keyed by the members' world ranks, for every later
 * communicator with the same members. That first allgather blocks, also in
 * a nonblocking call.
 *
 * Cost: with h hosts of q members, 2 ceil(log2 q) + 2 ceil(log2 h) steps of
 * the whole vector (plus pipeline fill); n * size * 2 ceil(log2 h) bytes
 * per leader cross the network, against 2 (p - 1) / p * n * size per rank
 * for the ring. Commutative ops only (a host's members need not be
 * consecutive ranks).
 *
 * Example, p = 6 on hosts A = {0, 2, 4}, B = {1, 3, 5}: 2 and 4 reduce into
 * 0, 3 and 5 into 1; 0 and 1 allreduce; 0 broadcasts to 2 and 4, 1 to 3
 * and 5. */
#include "reduce_util.h"
#include "coll_util.h"
#include "ol_runtime.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

extern int ol_coll_allreduce_segment_bytes;

/* Member lists seen so far and their node leaders: the host of a process
 * depends only on its world rank, so a list learned once serves every
 * communicator with those members, and every member of the list learned it
 * in the same call (it was collective), so all agree whether to allgather. */
typedef struct hosts {
    struct hosts *next;
    int size;
    int *world;  /* the members' world ranks */
    int *leader; /* their node leaders */
} hosts_t;

static hosts_t *known;
static pthread_mutex_t known_lock = PTHREAD_MUTEX_INITIALIZER;

static const int *find_leaders(const ol_comm_t *comm)
{
    const int *found = NULL;
    pthread_mutex_lock(&known_lock);
    for (const hosts_t *h = known; h && !found; h = h->next) {
        if (h->size != comm->size)
            continue;
        int i = 0;
        while (i < comm->size && h->world[i] == ol_comm_world_rank(comm, i))
            i++;
        if (i == comm->size)
            found = h->leader;
    }
    pthread_mutex_unlock(&known_lock);
    return found;
}

/* The node leader of every member, from the cache or one allgather. */
static ol_status_t node_leaders(ol_comm_t *comm, const int **leaders)
{
    if ((*leaders = find_leaders(comm)))
        return OL_OK;
    hosts_t *h = malloc(sizeof(*h));
    int *arrays = malloc(sizeof(int) * 2 * (size_t)comm->size);
    if (!h || !arrays) {
        free(h);
        free(arrays);
        return MPI_ERR_NO_MEM;
    }
    *h = (hosts_t){.size = comm->size, .world = arrays, .leader = arrays + comm->size};
    ol_datatype_t *ints = ol_dt_from_handle(MPI_INT);
    ol_status_t rc = ol_coll_allgather(&ol_rt.node_leader, 1, ints, h->leader, 1, ints, comm);
    if (rc != OL_OK) {
        free(arrays);
        free(h);
        return rc;
    }
    for (int i = 0; i < comm->size; i++)
        h->world[i] = ol_comm_world_rank(comm, i);
    pthread_mutex_lock(&known_lock);
    h->next = known;
    known = h;
    pthread_mutex_unlock(&known_lock);
    *leaders = h->leader;
    return OL_OK;
}

ol_status_t ol_coll_allreduce_hierarchical(ol_sched_t *s, const ol_coll_args_t *a)
{
    int rank = a->comm->rank, p = a->comm->size;
    MPI_Count n = a->recvcount;
    ol_datatype_t *dt = a->recvtype;
    const int *leader_of;
    ol_status_t rc = node_leaders(a->comm, &leader_of);
    if (rc != OL_OK)
        return rc;
    /* local: my host's members in rank order; leaders: each host's first
     * member (node leaders are world ranks: `seen` marks the hosts met) */
    int *local = ol_sched_scratch(s, sizeof(int) * (size_t)p);
    int *leaders = ol_sched_scratch(s, sizeof(int) * (size_t)p);
    bool *seen = ol_sched_scratch(s, (size_t)ol_rt.size);
    if (!local || !leaders || !seen)
        return MPI_ERR_NO_MEM;
    int nlocal = 0, nleaders = 0, me_local = 0, me_leader = -1;
    for (int i = 0; i < p; i++) {
        if (leader_of[i] == leader_of[rank]) {
            if (i == rank)
                me_local = nlocal;
            local[nlocal++] = i;
        }
        if (!seen[leader_of[i]]) {
            seen[leader_of[i]] = true;
            if (i == rank)
                me_leader = nleaders;
            leaders[nleaders++] = i;
        }
    }
    MPI_Count seg = ol_coll_segment_count(ol_coll_allreduce_segment_bytes, dt);
    const void *mine = ol_coll_in_place(a) ? NULL : a->sendbuf;
    if (rc == OL_OK)
        rc = ol_coll_tree_reduce(s, a->recvbuf, mine, n, dt, a->op, local, nlocal, me_local, seg);
    if (rc == OL_OK && me_leader >= 0)
        rc = ol_coll_tree_reduce(s, a->recvbuf, NULL, n, dt, a->op, leaders, nleaders, me_leader,
                                 seg);
    if (rc == OL_OK && me_leader >= 0)
        rc = ol_coll_tree_bcast(s, a->recvbuf, n, dt, leaders, nleaders, me_leader, seg);
    if (rc == OL_OK)
        rc = ol_coll_tree_bcast(s, a->recvbuf, n, dt, local, nlocal, me_local, seg);
    return rc;
}
