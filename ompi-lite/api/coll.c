/* Collective calls of the API: they hand over to coll/. */
#include "gen_impl.h"
#include "coll.h"

int ol_api_barrier(ol_comm_t *comm)
{
    return ol_coll_barrier(comm);
}
