/* Endpoints to peers, private to pt2pt/. */
#ifndef OL_PT2PT_ENDPOINT_H
#define OL_PT2PT_ENDPOINT_H

#include "ol_runtime.h"

ol_status_t ol_ep_init(void);
void ol_ep_close_all(void);
ol_status_t ol_ep_connect(int world_rank, ucp_ep_h *ep);
/* By world rank; NULL until first use. */
extern ucp_ep_h *ol_endpoints;

/* The endpoint to a world rank; the fast path is one array load. */
static inline ol_status_t ol_ep_get(int world_rank, ucp_ep_h *ep)
{
    ucp_ep_h e = ol_endpoints[world_rank];
    if (OL_LIKELY(e != NULL)) {
        *ep = e;
        return OL_OK;
    }
    return ol_ep_connect(world_rank, ep);
}

#endif
