/* UCX helpers that the files of pt2pt/ share (private to pt2pt/). */
#ifndef OL_PT2PT_UCX_OPS_H
#define OL_PT2PT_UCX_OPS_H

#include "pt2pt.h"
#include "ucx_datatype.h"
#include <ucp/api/ucp.h>

ol_status_t ol_ucx_status(ucs_status_t st);
void ol_ucx_fill_recv_status(MPI_Status *status, const ucp_tag_recv_info_t *info,
                             ucs_status_t st);
/* The UCX tag and mask that match (source, tag) in a communicator. */
void ol_ucx_match_of(const ol_comm_t *comm, ol_tagspace_t space, int source, int tag,
                     ucp_tag_t *ucx_tag, ucp_tag_t *mask);
/* Completion callback of receives whose user data is an ol_request_t. */
void ol_ucx_recv_done(void *ucx_request, ucs_status_t st, const ucp_tag_recv_info_t *info,
                      void *user_data);

/* The receive of req as UCX sees it: the user's buffer, or the pinned host
 * buffer a receive into device memory lands in (req->landing). */
ol_status_t ol_ucx_describe_recv(ol_request_t *req, ol_ucx_data_t *data);
/* Gives back what ol_ucx_describe_recv took, for a receive UCX did not take. */
void ol_ucx_forget_recv(ol_request_t *req);

#endif
