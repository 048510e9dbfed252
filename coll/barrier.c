/* Barrier selection. Dissemination is optimal in rounds for every process
 * count; other algorithms join the table when measurements justify them. */
#include "coll.h"
#include "ol_log.h"

ol_status_t ol_coll_barrier_dissemination(ol_comm_t *comm);

ol_status_t ol_coll_barrier(ol_comm_t *comm)
{
    if (comm->size == 1)
        return OL_OK;
    return ol_coll_barrier_dissemination(comm);
}
