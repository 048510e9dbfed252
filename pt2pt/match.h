/* MPI matching, private to pt2pt/: UCX's tag matching, or, when every rank
 * of the job runs on this host, ompi-lite's own over shared-memory rings
 * (match.c, shm_ring.h). The calls mirror UCX's tag API: the same tags and
 * masks (tag_layout.h), callbacks and request rules (a request is freed
 * with ol_match_request_free; a receive's callback always runs, possibly
 * inside the call that posted it), so the rest of pt2pt does not know which
 * one runs. Sends whose tag no MPI receive matches (the device protocol's
 * control messages and side channel) stay on UCX. */
#ifndef OL_PT2PT_MATCH_H
#define OL_PT2PT_MATCH_H

#include "ol_counter.h"
#include "tag_layout.h"
#include "ucx_datatype.h"
#include <stdio.h>
#include <ucp/api/ucp.h>

typedef void *ol_match_message_t; /* a message taken out of matching by a probe */

/* Collective over the job: every rank decides alike which matching runs.
 * ol_match_finalize, in pt2pt's finalize, pushes out what waits for ring
 * room; the rings themselves go in the runtime channel's close, after the
 * last fence (match.c). */
ol_status_t ol_match_init(void);
void ol_match_finalize(void);
void ol_match_params_load(void);
void ol_match_params_print(FILE *out);
/* Messages sent into the rings since the start; peers with a backlog. */
uint64_t ol_match_messages_sent(void);
unsigned ol_match_backlogged_peers(void);
/* The lengths of the unexpected and posted queues of the rings' matching,
 * and the unexpected queue's high-water mark (0 while UCX matches). */
void ol_match_queue_levels(unsigned *unexpected, unsigned *unexpected_high_water, unsigned *posted);
/* Contexts whose messages go through UCX's matching although the rings
 * run: communicators with other jobs' processes, which the rings do not
 * join (ol_pt2pt_context_over_ucx). All of a context's messages take one
 * path, so MPI's order within a communicator holds. A bit a context id. */
extern uint64_t ol_match_ucx_contexts[OL_MAX_CONTEXT_IDS / 64];
extern unsigned ol_match_ucx_contexts_live; /* bits set: most jobs have none */
static inline bool ol_match_tag_over_ucx(ucp_tag_t tag)
{
    if (OL_LIKELY(__atomic_load_n(&ol_match_ucx_contexts_live, __ATOMIC_RELAXED) == 0))
        return false;
    uint32_t id = (uint32_t)((tag & OL_CONTEXT_MASK) >> OL_CONTEXT_SHIFT);
    return (__atomic_load_n(&ol_match_ucx_contexts[id / 64], __ATOMIC_RELAXED) >> (id % 64)) & 1;
}

/* Counts a message a receive's callback got when UCX matched it (the
 * rings' matching counts every message as it meets its receive): a flag
 * test inline, so that a receive over the rings pays no call. */
extern bool ol_match_by_ucx;
struct ol_comm;
void ol_match_count_ucx_message(const ucp_tag_recv_info_t *info, ucs_status_t st,
                                const struct ol_comm *comm);
static inline void ol_match_count_ucx_received(const ucp_tag_recv_info_t *info, ucs_status_t st,
                                               const struct ol_comm *comm)
{
    if (ol_counters_on() && (ol_match_by_ucx || ol_match_tag_over_ucx(info->sender_tag)))
        ol_match_count_ucx_message(info, st, comm);
}

/* A send of data to world rank peer (ep is its endpoint) with MPI's tag;
 * sync: completes once a receive matched it. blocking_standard: a blocking
 * MPI_Send, whose caller waits for it now: up to 64 KiB it completes
 * without its receive, as programs that exchange with MPI_Send before
 * MPI_Recv need; on one host its caller waits with ol_match_send_move
 * (sends of contiguous data on one host go by address from
 * P2P_SHM_CMA_BYTES, above 8 KiB). Returns NULL when complete at once, a request,
 * or an error pointer (UCS_PTR_IS_ERR). *seq names the message for
 * ol_match_cancel_send (0: it cannot be cancelled). */
void *ol_match_send(ucp_ep_h ep, int peer, const ol_ucx_data_t *data, ucp_tag_t tag, bool sync,
                    bool blocking_standard, const ucp_request_param_t *param, uint32_t *seq);
/* Whether a blocking standard send's request may be moved aside: one by
 * address, of at most 64 KiB. */
bool ol_match_send_movable(void *request);
/* A movable request that has not completed: copies its message aside if
 * the receiver has not begun to copy it, so that the caller may go on.
 * True when moved: the send is complete for its caller, who frees the
 * request and never looks at its status again. */
bool ol_match_send_move(void *request);

/* Posts a receive of data matching (tag, mask) from world rank peer (-1:
 * any source); param has a callback and UCP_OP_ATTR_FLAG_NO_IMM_CMPL. When
 * UCX took an arrived message, its tag is stored in *sender_tag and
 * *sender_known set before the callback runs (see match.c for why). A
 * receive whose message waits at hand in the rings completes inside the
 * call, its callback given a NULL request, and the call returns NULL. */
void *ol_match_recv(const ol_ucx_data_t *data, int peer, ucp_tag_t tag, ucp_tag_t mask,
                    const ucp_request_param_t *param, uint64_t *sender_tag, bool *sender_known);

/* Before a blocking receive from world rank peer posts, with the rings:
 * while the rank has nothing else to progress (no receive posted, nothing
 * owed, no collective schedule, one thread in MPI), watches only that
 * sender's ring, for up to a microsecond, so that ol_match_recv then finds
 * the message at hand and completes without a receive object or a pass of
 * the progress engine. Otherwise returns at once. */
void ol_match_await_sender(int peer, ucp_tag_t tag, ucp_tag_t mask);

/* A look for an arrived message matching (tag, mask); with remove, the
 * message leaves matching and must be received with ol_match_msg_recv. */
ol_match_message_t ol_match_probe(ucp_tag_t tag, ucp_tag_t mask, bool remove,
                                  ucp_tag_recv_info_t *info);
void *ol_match_msg_recv(const ol_ucx_data_t *data, ol_match_message_t message,
                        const ucp_request_param_t *param);

/* A receive that has not matched completes with UCS_ERR_CANCELED; one that
 * has goes on. */
void ol_match_cancel(void *request);

/* Asks world rank peer, another rank, to take back message seq (from
 * ol_match_send) if no receive has it yet and no probe has reported it: the
 * answer comes to ol_match_cancel_answered(asker) in a later progress call;
 * a message taken back lets its send complete too (before or after the
 * answer). False: the message cannot be taken back (it did not go through
 * the shared-memory rings, it went to this rank itself, or memory ran out),
 * and no answer comes. */
bool ol_match_cancel_send(int peer, uint32_t seq, void *asker);
/* Defined by the caller of ol_match_cancel_send (send_recv.c). */
void ol_match_cancel_answered(void *asker, bool taken_back);
/* The same for message seq that this rank sent itself, answered at once:
 * true if it was taken back. Its send then completes in a later progress
 * call, on this rank's own work alone (its ring, or UCX to itself). */
bool ol_match_cancel_own_send(uint32_t seq);
/* Frees a request of these calls; NULL (a receive done inside
 * ol_match_recv) is no request. */
void ol_match_request_free(void *request);
ucs_status_t ol_match_request_status(void *request);

#endif
