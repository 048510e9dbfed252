/* Windows whose memory UCX reaches by itself (README.md, "UCX RMA"): each
 * process registers its window memory with UCX at creation and hands the
 * others its remote key; then contiguous pieces of puts and gets are UCX
 * puts and gets, and single-element integer accumulates UCX atomics. The
 * rest of the window (locks, post and complete, every other operation)
 * stays on the messages of protocol.c. */
#include "coll.h"
#include "ol_accel.h"
#include "ol_log.h"
#include "rma_internal.h"

#include <stdlib.h>
#include <string.h>

/* Operations that want something done when UCX has completed them: a
 * get's data unpacked into the result buffer, a packed copy freed, a
 * request completed. */
typedef struct ucx_op {
    _Atomic int remaining;  /* UCX requests not yet complete, +1 while being issued */
    _Atomic int status;     /* the first failure (ucs_status_t) */
    char *scratch;          /* owned: packed origin data, or where a get lands */
    uint64_t operand[2];    /* atomics: the operand, and the reply */
    void *result;           /* where the fetched data goes (unpacked from scratch or reply) */
    MPI_Count result_count;
    ol_datatype_t *result_dt; /* retained */
    ol_request_t *request;  /* completed once done; NULL: none */
    struct ol_rma_ucx *window; /* whose stack of finished operations it joins; NULL: none */
    struct ucx_op *next;
} ucx_op_t;

/* A window's UCX state. */
struct ol_rma_ucx {
    ucp_mem_h memh;          /* this process's memory; NULL when it has none */
    ucp_ep_h *eps;           /* per rank */
    ucp_rkey_h *rkeys;       /* per rank; NULL where the rank has no memory */
    uint64_t *bases;         /* per rank: the address of its memory there */
    bool *touched;           /* per rank: UCX operations since the last flush */
    uint8_t *last_kind;      /* per rank: the kind of UCX operation issued last (OP_*) */
    bool *over_tcp;          /* per rank: on another host, and no RDMA card here */
    ucx_op_t plain;          /* counts the puts and gets nothing waits for by themselves */
    /* Those that do, once UCX is done with them: pushed by whoever ends
     * them (a thread in UCX's progress, or the issuer), taken all at once
     * by ol_rma_ucx_reap, so finishing costs nothing per operation still in
     * flight (100000 gets in one epoch took minutes with a list scanned at
     * every progress). */
    _Atomic(ucx_op_t *) finished;
};

enum { OP_NONE, OP_PUT, OP_GET, OP_ATOMIC };

/* ---- completion ------------------------------------------------------------------ */

/* One of op's UCX requests, or its issuing, is over; after the last, op
 * joins the finished ones. */
static void one_less(ucx_op_t *op)
{
    if (atomic_fetch_sub(&op->remaining, 1) != 1 || !op->window)
        return;
    ucx_op_t *head = atomic_load(&op->window->finished);
    do
        op->next = head;
    while (!atomic_compare_exchange_weak(&op->window->finished, &head, op));
}

static void ucx_done(void *request, ucs_status_t status, void *user_data)
{
    ucx_op_t *op = user_data;
    int ok = UCS_OK;
    if (status != UCS_OK)
        atomic_compare_exchange_strong(&op->status, &ok, status);
    ucp_request_free(request);
    one_less(op);
}

static ucp_request_param_t param_for(ucx_op_t *op)
{
    return (ucp_request_param_t){
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.send = ucx_done,
        .user_data = op,
    };
}

/* What ucp_*_nbx returned: counted while in flight, a failure recorded. */
static void track(ucx_op_t *op, ucs_status_ptr_t r)
{
    if (UCS_PTR_IS_PTR(r)) {
        atomic_fetch_add(&op->remaining, 1);
    } else if (UCS_PTR_IS_ERR(r)) {
        int ok = UCS_OK;
        atomic_compare_exchange_strong(&op->status, &ok, UCS_PTR_STATUS(r));
    }
}

static ol_status_t status_of(ucx_op_t *op, const char *what)
{
    int st = atomic_load(&op->status);
    if (st == UCS_OK)
        return MPI_SUCCESS;
    ol_error_detail("%s through UCX failed: %s", what, ucs_status_string((ucs_status_t)st));
    return MPI_ERR_OTHER;
}

/* An operation UCX has completed: its data delivered, its request done. */
static void finish(ucx_op_t *op)
{
    ol_status_t rc = status_of(op, "a one-sided operation");
    if (rc == MPI_SUCCESS && op->result) {
        const void *from = op->scratch ? (const void *)op->scratch : (const void *)&op->operand[1];
        rc = ol_pt2pt_unpack(from, op->result, op->result_count, op->result_dt);
    }
    if (op->result_dt)
        ol_dt_release(op->result_dt);
    free(op->scratch);
    if (op->request)
        ol_request_complete(op->request, rc);
    free(op);
}

int ol_rma_ucx_reap(ol_rma_state_t *s, ol_status_t *error)
{
    int done = 0;
    for (ucx_op_t *op = atomic_exchange(&s->ucx->finished, NULL), *next; op; op = next) {
        next = op->next;
        if (!op->request && error && *error == MPI_SUCCESS)
            *error = status_of(op, "a one-sided operation");
        finish(op);
        done++;
    }
    return done;
}

static ucx_op_t *new_op(ol_rma_state_t *s, ol_request_t *request)
{
    ucx_op_t *op = calloc(1, sizeof(*op));
    if (!op) {
        ol_error_detail("out of memory for a one-sided operation");
        return NULL;
    }
    atomic_init(&op->remaining, 1);
    op->request = request;
    op->window = s->ucx;
    return op;
}

/* Where an operation's completion is recorded: an entry of its own when a
 * request waits for it or something is to be done then (work_at_end),
 * else the window's count of the operations nothing waits for by
 * themselves. */
static ucx_op_t *completion_for(ol_rma_state_t *s, ol_request_t *request, bool work_at_end)
{
    if (request || work_at_end)
        return new_op(s, request);
    atomic_fetch_add(&s->ucx->plain.remaining, 1); /* issued() takes it back */
    return &s->ucx->plain;
}

/* The issuing is over: what is left to complete is UCX's. */
static void issued(ucx_op_t *op)
{
    one_less(op);
}

/* ---- flushes ------------------------------------------------------------------------ */

static bool request_done(void *request)
{
    return ucp_request_check_status(request) != UCS_INPROGRESS;
}

/* Waits until UCX has completed every operation to target (-1: to every
 * rank this process reached through UCX) at the target. Lock held. */
ol_status_t ol_rma_ucx_flush(ol_rma_state_t *s, int target)
{
    struct ol_rma_ucx *u = s->ucx;
    ucp_request_param_t param = {.op_attr_mask = 0};
    ucs_status_t failed = UCS_OK;
    for (int r = 0; r < s->size; r++) {
        if ((target >= 0 && r != target) || !u->touched[r])
            continue;
        u->touched[r] = false;
        u->last_kind[r] = OP_NONE;
        ucs_status_ptr_t req = ucp_ep_flush_nbx(u->eps[r], &param);
        if (UCS_PTR_IS_PTR(req)) {
            ol_rma_wait_until(request_done, req);
            ucs_status_t st = ucp_request_check_status(req);
            ucp_request_free(req);
            if (st != UCS_OK && failed == UCS_OK)
                failed = st;
        } else if (UCS_PTR_IS_ERR(req) && failed == UCS_OK) {
            failed = UCS_PTR_STATUS(req);
        }
    }
    ol_status_t rc = MPI_SUCCESS;
    ol_rma_ucx_reap(s, &rc);
    if (rc == MPI_SUCCESS && (failed != UCS_OK || atomic_load(&u->plain.status) != UCS_OK)) {
        ol_error_detail("a one-sided operation through UCX failed: %s",
                        ucs_status_string(failed != UCS_OK ? failed
                                                           : (ucs_status_t)u->plain.status));
        atomic_store(&u->plain.status, UCS_OK);
        rc = MPI_ERR_OTHER;
    }
    return rc;
}

/* ---- operations ---------------------------------------------------------------------- */

/* One origin's operations on a target happen there in the order issued,
 * whichever way each goes: a get sees the put or accumulate before it, and
 * a put does not overtake a get before it, as in Open MPI (ARMCI-MPI's
 * location consistency rests on it; MPI itself orders only accumulates, by
 * accumulate_ordering's default). UCX orders the operations on an endpoint
 * only across a fence: one comes before a UCX operation of another kind
 * (put, get, atomic) to the same target, and before an atomic behind
 * another unless accumulate_ordering is "none". Operations of one kind in
 * a row (osu_put_bw's windows) take none. The messages and UCX are kept in
 * order in ol_rma_ucx_issue. */
static void keep_order(ol_rma_state_t *s, int target, uint8_t kind)
{
    struct ol_rma_ucx *u = s->ucx;
    uint8_t last = u->touched[target] ? u->last_kind[target] : OP_NONE;
    if (last != OP_NONE && (last != kind || (kind == OP_ATOMIC && s->ordered_accumulates)))
        ucp_worker_fence(ol_rt.ucp_worker);
    u->touched[target] = true;
    u->last_kind[target] = kind;
}

/* One UCX put (or get) per block of the target layout, from (into) the
 * packed bytes at data; op_done counts them until UCX completes them. */
static void move_blocks(ol_rma_state_t *s, int target, int64_t disp,
                        const ol_rma_block_t *blocks, size_t nblocks, char *data, bool put,
                        ucx_op_t *op_done)
{
    struct ol_rma_ucx *u = s->ucx;
    ucp_request_param_t param = param_for(op_done);
    keep_order(s, target, put ? OP_PUT : OP_GET);
    for (size_t i = 0; i < nblocks; i++) {
        uint64_t at = u->bases[target] + (uint64_t)(disp + blocks[i].offset);
        track(op_done, put ? ucp_put_nbx(u->eps[target], data, blocks[i].length, at,
                                         u->rkeys[target], &param)
                           : ucp_get_nbx(u->eps[target], data, blocks[i].length, at,
                                         u->rkeys[target], &param));
        data += blocks[i].length;
    }
    issued(op_done);
}

/* Where the contiguous origin data of a put is: the program's buffer, or a
 * packed copy the operation owns. */
static ol_status_t put_source(const ol_rma_op_t *op, size_t bytes, const char **data,
                              char **owned)
{
    *owned = NULL;
    if (op->origin_dt->contiguous && !ol_accel_is_device(op->origin)) {
        *data = ol_dt_data_at(op->origin, op->origin_dt);
        return MPI_SUCCESS;
    }
    *owned = malloc(bytes);
    if (!*owned) {
        ol_error_detail("out of memory for %zu bytes of origin data", bytes);
        return MPI_ERR_NO_MEM;
    }
    *data = *owned;
    return ol_pt2pt_pack(op->origin, op->origin_count, op->origin_dt, *owned);
}

static ol_status_t put(ol_rma_state_t *s, const ol_rma_op_t *op, int64_t disp,
                       const ol_rma_block_t *blocks, size_t nblocks, ol_request_t *request)
{
    size_t bytes = (size_t)op->origin_count * op->origin_dt->size;
    const char *data;
    char *owned;
    ol_status_t rc = put_source(op, bytes, &data, &owned);
    if (rc != MPI_SUCCESS) {
        free(owned);
        return rc;
    }
    ucx_op_t *op_done = completion_for(s, request, owned != NULL);
    if (!op_done) {
        free(owned);
        return MPI_ERR_NO_MEM;
    }
    if (owned)
        op_done->scratch = owned;
    move_blocks(s, op->target, disp, blocks, nblocks, (char *)data, true, op_done);
    return MPI_SUCCESS;
}

static ol_status_t get(ol_rma_state_t *s, const ol_rma_op_t *op, int64_t disp,
                       const ol_rma_block_t *blocks, size_t nblocks, ol_request_t *request)
{
    if (op->result_dt->contiguous && !ol_accel_is_device(op->result)) {
        /* Straight into the program's buffer: nothing to do at the end. */
        ucx_op_t *op_done = completion_for(s, request, false);
        if (!op_done)
            return MPI_ERR_NO_MEM;
        move_blocks(s, op->target, disp, blocks, nblocks,
                    ol_dt_data_at(op->result, op->result_dt), false, op_done);
        return MPI_SUCCESS;
    }
    size_t bytes = (size_t)op->result_count * op->result_dt->size;
    char *scratch = malloc(bytes);
    if (!scratch) {
        ol_error_detail("out of memory for %zu bytes of a get", bytes);
        return MPI_ERR_NO_MEM;
    }
    ucx_op_t *op_done = new_op(s, request);
    if (!op_done) {
        free(scratch);
        return MPI_ERR_NO_MEM;
    }
    op_done->scratch = scratch;
    op_done->result = op->result;
    op_done->result_count = op->result_count;
    op_done->result_dt = op->result_dt;
    ol_dt_retain(op->result_dt);
    move_blocks(s, op->target, disp, blocks, nblocks, scratch, false, op_done);
    return MPI_SUCCESS;
}

/* ---- atomics ------------------------------------------------------------------------------ */

/* The UCX atomic that does an accumulate's op, or false. */
static bool atomic_for(const ol_rma_op_t *op, ucp_atomic_op_t *opcode)
{
    if (op->kind == OL_RMA_COMPARE_AND_SWAP) {
        *opcode = UCP_ATOMIC_OP_CSWAP;
        return true;
    }
    MPI_Op handle = ol_op_to_handle(op->op);
    bool fetches = op->kind == OL_RMA_GET_ACCUMULATE;
    if (handle == MPI_SUM || (handle == MPI_NO_OP && fetches))
        *opcode = UCP_ATOMIC_OP_ADD; /* MPI_NO_OP: adds 0 */
    else if (handle == MPI_REPLACE)
        *opcode = UCP_ATOMIC_OP_SWAP;
    else if (handle == MPI_BAND)
        *opcode = UCP_ATOMIC_OP_AND;
    else if (handle == MPI_BOR)
        *opcode = UCP_ATOMIC_OP_OR;
    else if (handle == MPI_BXOR)
        *opcode = UCP_ATOMIC_OP_XOR;
    else
        return false;
    return true;
}

/* An accumulate-kind operation UCX can do as one atomic: one element of a
 * 4- or 8-byte integer, at one place, with an op UCX has, in another
 * process's memory (UCX 1.13's loopback transport stores 0 where a
 * fetching XOR should store the XOR: a process's accumulates on its own
 * memory take the messages). */
static bool as_atomic(const ol_rma_state_t *s, const ol_rma_op_t *op, const ol_datatype_t *basic,
                      size_t nblocks, ucp_atomic_op_t *opcode)
{
    const ol_datatype_t *type = op->kind == OL_RMA_COMPARE_AND_SWAP ? op->target_dt : basic;
    return s->cpu_atomic_accumulates && op->target != s->win->comm->rank && nblocks == 1 &&
           ol_rma_atomic_type(type) &&
           (size_t)op->target_count * op->target_dt->size == type->size &&
           atomic_for(op, opcode);
}

static ol_status_t atomic(ol_rma_state_t *s, const ol_rma_op_t *op, ucp_atomic_op_t opcode,
                          size_t size, uint64_t at, ol_request_t *request)
{
    struct ol_rma_ucx *u = s->ucx;
    ucx_op_t *op_done = new_op(s, request);
    if (!op_done)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = MPI_SUCCESS;
    MPI_Op handle = op->op ? ol_op_to_handle(op->op) : MPI_OP_NULL;
    if (op->kind == OL_RMA_COMPARE_AND_SWAP) {
        /* UCX compares with the operand and swaps in the reply buffer's value. */
        rc = ol_pt2pt_pack(op->compare, 1, op->origin_dt, &op_done->operand[0]);
        if (rc == MPI_SUCCESS)
            rc = ol_pt2pt_pack(op->origin, 1, op->origin_dt, &op_done->operand[1]);
    } else if (handle != MPI_NO_OP) {
        rc = ol_pt2pt_pack(op->origin, 1, op->origin_dt, &op_done->operand[0]);
    }
    if (rc != MPI_SUCCESS) {
        op_done->request = NULL; /* the caller completes it with the error */
        issued(op_done);
        return rc;
    }
    if (op->kind != OL_RMA_ACCUMULATE) {
        op_done->result = op->result;
        op_done->result_count = op->result_count;
        op_done->result_dt = op->result_dt;
        ol_dt_retain(op->result_dt);
    }
    ucp_request_param_t param = param_for(op_done);
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
    param.datatype = ucp_dt_make_contig(size);
    /* A swap always fetches in UCX; the others fetch when MPI asks. */
    if (op->kind != OL_RMA_ACCUMULATE || opcode == UCP_ATOMIC_OP_SWAP) {
        param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
        param.reply_buffer = &op_done->operand[1];
    }
    keep_order(s, op->target, OP_ATOMIC);
    track(op_done, ucp_atomic_op_nbx(u->eps[op->target], opcode, &op_done->operand[0], 1, at,
                                     u->rkeys[op->target], &param));
    issued(op_done);
    return MPI_SUCCESS;
}

/* ---- issuing --------------------------------------------------------------------------- */

/* Over TCP, UCX makes a put or a get an active message, and its flush a
 * second one with an answer; the messages of protocol.c take small
 * operations and their flush together (a bundle). Between 2 namespace
 * hosts, UCX -> messages: put + flush 8 B-2 KiB 25-33 -> 15-16 us, 8 KiB
 * 27 -> 16.5; get + flush 25 -> 15; osu_put_bw 4 KiB 0.38-0.48 -> 1.3 GB/s;
 * with 64 KiB messages in bundles, 16 KiB put + flush 39-42 -> 27-28 us,
 * osu_put_bw 16 KiB 1.2-1.3 -> 1.5-2.1 GB/s. From 32 KiB UCX's zero-copy
 * puts are faster (osu_put_bw 32 KiB by messages 1.0-1.1 against 2.1-2.3
 * GB/s), though a lone 32 KiB put + flush is not. Gets of every
 * size take the messages: UCX answers a get with copied 8 KiB pieces
 * (osu_get_bw 16 KiB-1 MiB 0.9-1.3 GB/s), where a large get's data sent
 * apart is one zero-copy message (1.5-3.6 GB/s). */
#define SMALL_OVER_TCP_BYTES 16384

static bool by_messages_over_tcp(const struct ol_rma_ucx *u, const ol_rma_op_t *op)
{
    if (!u->over_tcp[op->target])
        return false;
    if (op->kind == OL_RMA_PUT)
        return (size_t)op->origin_count * op->origin_dt->size <= SMALL_OVER_TCP_BYTES;
    return op->kind == OL_RMA_GET;
}

/* A fence of two processes can end before the target handled the messages
 * sent before it (sync.c); a UCX operation, which bypasses them, must not
 * overtake them. */
static ol_status_t settle_messages(ol_rma_state_t *s, int target)
{
    if (!s->messages_unsettled)
        return MPI_SUCCESS;
    s->messages_unsettled = false;
    return ol_rma_flush_messages(s, target);
}

/* Whether this process's messages to target may not all have been handled
 * there: operations since its last flush, or answers still to come. */
static bool messages_in_flight(const ol_rma_state_t *s, int target)
{
    return s->touched[target] || s->data_pending[target] > 0;
}

/* An operation about to take the messages: UCX's operations to the same
 * target, which the target's handling of messages does not wait for, are
 * completed there first. */
static ol_status_t by_messages(ol_rma_state_t *s, int target)
{
    return s->ucx->touched[target] ? ol_rma_ucx_flush(s, target) : MPI_SUCCESS;
}

/* Each operation goes one way, through UCX or as a message, and one
 * origin's operations on a target stay in order across the two (see
 * keep_order): an operation that would go through UCX while messages to
 * its target may be unhandled goes as a message too, behind them, where
 * a flush's round trip would cost as much as the message (ARMCI-MPI's
 * accumulates, then a get: the get as a message); only an atomic, which
 * must stay atomic with the other processes' UCX atomics (a compare-and-
 * swap by message is not), waits for that flush instead. An operation
 * that goes as a message first waits for UCX to complete the operations
 * before it. */
ol_status_t ol_rma_ucx_issue(ol_rma_state_t *s, const ol_rma_op_t *op,
                             const ol_datatype_t *basic, int64_t disp,
                             const ol_rma_block_t *blocks, size_t nblocks,
                             ol_request_t *request, bool *done)
{
    struct ol_rma_ucx *u = s->ucx;
    *done = false;
    if (!u->rkeys[op->target])
        return MPI_SUCCESS; /* no memory there: the messages report the range */
    bool put_or_get = op->kind == OL_RMA_PUT || op->kind == OL_RMA_GET;
    ucp_atomic_op_t opcode;
    /* Other accumulates the target applies with the CPU's atomics when the
     * window has UCX's (protocol.c), so that they are atomic with them. */
    if (put_or_get ? by_messages_over_tcp(u, op) || messages_in_flight(s, op->target)
                   : !as_atomic(s, op, basic, nblocks, &opcode))
        return by_messages(s, op->target);
    ol_status_t rc = settle_messages(s, op->target);
    if (rc == MPI_SUCCESS && !put_or_get && messages_in_flight(s, op->target))
        rc = ol_rma_flush_messages(s, op->target);
    if (rc != MPI_SUCCESS)
        return rc;
    *done = true;
    if (put_or_get)
        return op->kind == OL_RMA_PUT ? put(s, op, disp, blocks, nblocks, request)
                                      : get(s, op, disp, blocks, nblocks, request);
    const ol_datatype_t *type = op->kind == OL_RMA_COMPARE_AND_SWAP ? op->target_dt : basic;
    uint64_t at = u->bases[op->target] + (uint64_t)(disp + blocks[0].offset);
    return atomic(s, op, opcode, type->size, at, request);
}

/* ---- windows ---------------------------------------------------------------------------- */

static void free_ucx(struct ol_rma_ucx *u, int size)
{
    if (!u)
        return;
    for (int r = 0; u->rkeys && r < size; r++)
        if (u->rkeys[r])
            ucp_rkey_destroy(u->rkeys[r]);
    if (u->memh)
        ucp_mem_unmap(ol_rt.ucp_context, u->memh);
    free(u->eps);
    free(u->rkeys);
    free(u->bases);
    free(u->touched);
    free(u->last_kind);
    free(u->over_tcp);
    free(u);
}

/* This process's memory registered, its remote key packed (none for no
 * memory). */
static bool register_memory(struct ol_rma_ucx *u, void *base, size_t size, void **rkey,
                            size_t *rkey_bytes)
{
    *rkey = NULL;
    *rkey_bytes = 0;
    if (size == 0)
        return true;
    ucp_mem_map_params_t params = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
        .address = base,
        .length = size,
    };
    ucs_status_t st = ucp_mem_map(ol_rt.ucp_context, &params, &u->memh);
    if (st == UCS_OK)
        st = ucp_rkey_pack(ol_rt.ucp_context, u->memh, rkey, rkey_bytes);
    if (st != UCS_OK)
        OL_INFO("rma", "UCX cannot register a window's %zu bytes (%s): its operations are "
                       "messages", size, ucs_status_string(st));
    return st == UCS_OK;
}

/* Whether every process said yes to each of n questions (answers[i]). */
static bool all_agree_n(int *answers, int n, ol_comm_t *comm, ol_status_t *rc)
{
    int everyone[2] = {0, 0};
    *rc = ol_coll_allreduce(answers, everyone, n, ol_dt_from_handle(MPI_INT),
                            ol_op_from_handle(MPI_LAND), comm);
    for (int i = 0; i < n; i++)
        answers[i] = *rc == MPI_SUCCESS && everyone[i];
    return answers[0];
}

static bool all_agree(bool mine, ol_comm_t *comm, ol_status_t *rc)
{
    int answer = mine;
    return all_agree_n(&answer, 1, comm, rc);
}

/* Every process's remote key and memory address, gathered (keys padded to
 * the longest), each key unpacked for its endpoint here. */
static bool unpack_keys(struct ol_rma_ucx *u, ol_comm_t *comm, void *base, const void *rkey,
                        size_t rkey_bytes, ol_status_t *rc)
{
    int n = comm->size;
    MPI_Count mine[2] = {(MPI_Count)rkey_bytes, (MPI_Count)(uintptr_t)base};
    MPI_Count *facts = calloc((size_t)n * 2, sizeof(MPI_Count));
    ol_datatype_t *count_type = ol_dt_from_handle(MPI_COUNT);
    *rc = facts ? ol_coll_allgather(mine, 2, count_type, facts, 2, count_type, comm)
                : MPI_ERR_NO_MEM;
    size_t longest = 1;
    for (int r = 0; *rc == MPI_SUCCESS && r < n; r++)
        if ((size_t)facts[2 * r] > longest)
            longest = (size_t)facts[2 * r];
    char *padded = *rc == MPI_SUCCESS ? calloc(1, longest) : NULL;
    char *all = padded ? malloc(longest * (size_t)n) : NULL;
    if (*rc == MPI_SUCCESS && !all)
        *rc = MPI_ERR_NO_MEM;
    if (*rc == MPI_SUCCESS) {
        if (rkey_bytes)
            memcpy(padded, rkey, rkey_bytes);
        ol_datatype_t *bytes = ol_dt_from_handle(MPI_BYTE);
        *rc = ol_coll_allgather(padded, (MPI_Count)longest, bytes, all, (MPI_Count)longest,
                                bytes, comm);
    }
    bool ok = *rc == MPI_SUCCESS;
    bool rdma = ol_rt_host_has_rdma();
    for (int r = 0; ok && r < n; r++) {
        u->bases[r] = (uint64_t)facts[2 * r + 1];
        u->over_tcp[r] = !rdma && !ol_rt_same_host(ol_comm_world_rank(comm, r));
        if (ol_pt2pt_endpoint(ol_comm_world_rank(comm, r), &u->eps[r]) != MPI_SUCCESS)
            ok = false;
        else if (facts[2 * r] &&
                 ucp_ep_rkey_unpack(u->eps[r], all + longest * (size_t)r, &u->rkeys[r]) != UCS_OK)
            ok = false;
    }
    free(all);
    free(padded);
    free(facts);
    return ok;
}

ol_status_t ol_rma_ucx_setup(ol_rma_state_t *s, void *base, size_t size, bool wanted,
                             ol_comm_t *comm)
{
    ol_status_t rc;
    int wishes[2] = {wanted, ol_rma_ucx_atomics_wanted()};
    if (!all_agree_n(wishes, 2, comm, &rc))
        return rc;
    struct ol_rma_ucx *u = calloc(1, sizeof(*u));
    int n = comm->size;
    bool ok = u != NULL;
    if (ok) {
        u->eps = calloc((size_t)n, sizeof(*u->eps));
        u->rkeys = calloc((size_t)n, sizeof(*u->rkeys));
        u->bases = calloc((size_t)n, sizeof(*u->bases));
        u->touched = calloc((size_t)n, sizeof(*u->touched));
        u->last_kind = calloc((size_t)n, sizeof(*u->last_kind));
        u->over_tcp = calloc((size_t)n, sizeof(*u->over_tcp));
        ok = u->eps && u->rkeys && u->bases && u->touched && u->last_kind && u->over_tcp;
    }
    void *rkey = NULL;
    size_t rkey_bytes = 0;
    ok = ok && register_memory(u, base, size, &rkey, &rkey_bytes);
    if (!all_agree(ok, comm, &rc)) {
        if (rkey)
            ucp_rkey_buffer_release(rkey);
        free_ucx(u, n);
        return rc;
    }
    ok = unpack_keys(u, comm, base, rkey, rkey_bytes, &rc);
    if (rkey)
        ucp_rkey_buffer_release(rkey);
    if (rc != MPI_SUCCESS || !all_agree(ok, comm, &rc)) {
        if (rc == MPI_SUCCESS)
            OL_INFO("rma", "%s", "a process could not take every remote key of a window: its "
                                 "operations are messages");
        free_ucx(u, n);
        return rc;
    }
    s->cpu_atomic_accumulates = wishes[1]; /* origins use UCX's atomics too */
    s->ucx = u;
    return MPI_SUCCESS;
}

void ol_rma_ucx_free(ol_rma_state_t *s)
{
    if (!s->ucx)
        return;
    ol_rma_ucx_reap(s, NULL);
    free_ucx(s->ucx, s->size);
    s->ucx = NULL;
}
