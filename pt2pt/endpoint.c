/* UCX endpoints to peers, created on first use: the peer's worker address
 * is looked up through PMIx only when this rank first talks to it, so the
 * start-up cost does not grow with the job. */
#include "endpoint.h"
#include "ol_log.h"
#include "pt2pt.h"

#include <pthread.h>
#include <stdlib.h>

ucp_ep_h *ol_endpoints;

/* Room for other jobs' processes too (ol_runtime.h), so that the array
 * never moves under a reader: pages nobody touches cost no memory. */
ol_status_t ol_ep_init(void)
{
    ol_endpoints = calloc(OL_RT_MAX_PROCS, sizeof(*ol_endpoints));
    return ol_endpoints ? OL_OK : MPI_ERR_NO_MEM;
}

/* Serialises first contacts, which threads may make at once. */
static pthread_mutex_t connect_lock = PTHREAD_MUTEX_INITIALIZER;

static ol_status_t connect_locked(int world_rank, ucp_ep_h *ep)
{
    if (ol_endpoints[world_rank]) { /* another thread was first */
        *ep = ol_endpoints[world_rank];
        return OL_OK;
    }
    void *address;
    size_t length;
    ol_status_t rc = ol_rt_peer_address(world_rank, &address, &length);
    if (rc != OL_OK)
        return rc;
    ucp_ep_params_t params = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
        .address = address,
    };
    ucp_ep_h created;
    ucs_status_t st = ucp_ep_create(ol_rt.ucp_worker, &params, &created);
    ol_rt_free_peer_address(address);
    if (st != UCS_OK) {
        ol_error_detail("cannot connect to rank %d: %s", world_rank, ucs_status_string(st));
        OL_WARN("pt2pt", "cannot connect to rank %d: %s", world_rank, ucs_status_string(st));
        ol_rt_note_peer_lost();
        return MPI_ERR_OTHER;
    }
    OL_TRACE("pt2pt", "connected to rank %d", world_rank);
    __atomic_store_n(&ol_endpoints[world_rank], created, __ATOMIC_RELEASE);
    *ep = created;
    return OL_OK;
}

ol_status_t ol_ep_connect(int world_rank, ucp_ep_h *ep)
{
    pthread_mutex_lock(&connect_lock);
    ol_status_t rc = connect_locked(world_rank, ep);
    pthread_mutex_unlock(&connect_lock);
    return rc;
}

ol_status_t ol_pt2pt_endpoint(int world_rank, ucp_ep_h *ep)
{
    return ol_ep_get(world_rank, ep);
}

static bool request_done(void *request)
{
    return ucp_request_check_status(request) != UCS_INPROGRESS;
}

void ol_ep_close_all(void)
{
    if (!ol_endpoints)
        return;
    ucp_request_param_t param = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = 0};
    for (int r = 0, n = ol_rt_proc_count(); r < n; r++) {
        if (!ol_endpoints[r])
            continue;
        void *req = ucp_ep_close_nbx(ol_endpoints[r], &param);
        if (UCS_PTR_IS_PTR(req)) {
            ol_progress_wait(request_done, req);
            ucp_request_free(req);
        }
    }
    free(ol_endpoints);
    ol_endpoints = NULL;
}
