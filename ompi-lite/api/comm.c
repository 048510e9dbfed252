/* Communicator objects and the queries on them. */
#include "gen_impl.h"

#include <string.h>

ol_comm_t ol_comm_world;
ol_comm_t ol_comm_self;

/* Context ids 0 and 1 are WORLD's and SELF's; others come from the
 * communicator layer's allocator. */
static void init_comm(ol_comm_t *comm, uint32_t context_id, int rank, int size,
                      const int *world_ranks, const char *name)
{
    memset(comm, 0, sizeof(*comm));
    comm->magic = OL_COMM_MAGIC;
    comm->context_id = context_id;
    comm->rank = rank;
    comm->size = size;
    comm->world_ranks = world_ranks;
    comm->errhandler = MPI_ERRORS_ARE_FATAL;
    strncpy(comm->name, name, sizeof(comm->name) - 1);
}

void ol_comm_init_predefined(void)
{
    static int self_world_rank;
    self_world_rank = ol_rt.rank;
    init_comm(&ol_comm_world, 0, ol_rt.rank, ol_rt.size, NULL, "MPI_COMM_WORLD");
    init_comm(&ol_comm_self, 1, 0, 1, &self_world_rank, "MPI_COMM_SELF");
}

ol_comm_t *ol_comm_from_handle(MPI_Comm handle)
{
    if (handle == MPI_COMM_WORLD)
        return &ol_comm_world;
    if (handle == MPI_COMM_SELF)
        return &ol_comm_self;
    uintptr_t value = (uintptr_t)handle;
    if (value < 4096)
        return NULL; /* MPI_COMM_NULL or another predefined handle */
    ol_comm_t *comm = (ol_comm_t *)handle;
    return comm->magic == OL_COMM_MAGIC ? comm : NULL;
}

int ol_api_comm_rank(ol_comm_t *comm, int *rank)
{
    *rank = comm->rank;
    return MPI_SUCCESS;
}

int ol_api_comm_size(ol_comm_t *comm, int *size)
{
    *size = comm->size;
    return MPI_SUCCESS;
}
