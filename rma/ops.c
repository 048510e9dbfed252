/* The origin's side of the operations: checks, the target layout, the
 * message, and the answer to wait for (README.md). */
#include "ol_accel.h"
#include "rma_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = {
    "MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Compare_and_swap",
};

/* ---- the target layout ------------------------------------------------------ */

typedef struct {
    ol_rma_block_t *blocks; /* `one`, or memory of its own */
    size_t n, capacity;
    bool failed;
    ol_rma_block_t one;     /* a contiguous type's single block: no malloc per operation */
} layout_t;

static bool add_block(uintptr_t address, size_t bytes, void *ctx)
{
    layout_t *l = ctx;
    int64_t offset = (int64_t)address;
    if (l->n && l->blocks[l->n - 1].offset + (int64_t)l->blocks[l->n - 1].length == offset) {
        l->blocks[l->n - 1].length += bytes;
        return true;
    }
    if (l->n == l->capacity) {
        size_t capacity = l->capacity ? 2 * l->capacity : 16;
        ol_rma_block_t *grown = realloc(l->blocks, capacity * sizeof(*grown));
        if (!grown) {
            l->failed = true;
            return false;
        }
        l->blocks = grown;
        l->capacity = capacity;
    }
    l->blocks[l->n++] = (ol_rma_block_t){offset, bytes};
    return true;
}

/* The blocks of count elements of dt from displacement 0. */
static ol_status_t target_layout(const ol_datatype_t *dt, MPI_Count count, layout_t *l)
{
    *l = (layout_t){0};
    if (dt->contiguous) {
        l->one = (ol_rma_block_t){dt->true_lb, (uint64_t)count * dt->size};
        l->blocks = &l->one;
        l->n = 1;
        return MPI_SUCCESS;
    }
    ol_dt_for_each_block(dt, NULL, count, add_block, l);
    if (l->failed) {
        free(l->blocks);
        ol_error_detail("out of memory for the layout of %lld elements of %s",
                        (long long)count, ol_dt_name(dt));
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

static void free_layout(layout_t *l)
{
    if (l->blocks != &l->one)
        free(l->blocks);
}

/* Every block inside the target's window: checked here for windows whose
 * sizes everyone knows; a dynamic window's target checks its own. */
static ol_status_t check_range(const ol_rma_state_t *s, const ol_rma_op_t *op, int64_t disp,
                               const layout_t *l)
{
    if (!s->peers)
        return MPI_SUCCESS;
    const ol_rma_peer_t *peer = &s->peers[op->target];
    for (size_t i = 0; i < l->n; i++) {
        int64_t start = disp + l->blocks[i].offset;
        int64_t end = start + (int64_t)l->blocks[i].length;
        if (l->blocks[i].length && (start < 0 || end > (int64_t)peer->size)) {
            ol_error_detail("%s: %lld elements of %s at target_disp %lld (disp_unit %lld) "
                            "address bytes %lld to %lld of rank %d's window, which has %lld",
                            op_names[op->kind], (long long)op->target_count,
                            ol_dt_name(op->target_dt), (long long)op->target_disp,
                            (long long)peer->disp_unit, (long long)start, (long long)end,
                            op->target, (long long)peer->size);
            return MPI_ERR_RMA_RANGE;
        }
    }
    return MPI_SUCCESS;
}

/* ---- argument checks ---------------------------------------------------------- */

static size_t bytes_of(MPI_Count count, const ol_datatype_t *dt)
{
    return dt ? (size_t)count * dt->size : 0;
}

static ol_status_t same_size(const ol_rma_op_t *op, const char *what, MPI_Count count,
                             const ol_datatype_t *dt)
{
    size_t target = bytes_of(op->target_count, op->target_dt);
    if (bytes_of(count, dt) == target)
        return MPI_SUCCESS;
    ol_error_detail("%s: the %s data (%lld x %s, %zu bytes) and the target data (%lld x %s, "
                    "%zu bytes) differ in size", op_names[op->kind], what, (long long)count,
                    ol_dt_name(dt), bytes_of(count, dt), (long long)op->target_count,
                    ol_dt_name(op->target_dt), target);
    return MPI_ERR_TYPE;
}

/* Accumulates: a predefined op (not a user's), on data made of one
 * predefined type, the same on both sides, on which the op is defined. */
static ol_status_t check_accumulate(const ol_rma_op_t *op, const ol_datatype_t **basic)
{
    MPI_Op handle = ol_op_to_handle(op->op);
    if (!op->op->predefined || (handle == MPI_NO_OP && op->kind == OL_RMA_ACCUMULATE)) {
        ol_error_detail("%s: op must be a predefined operation%s (not %s)", op_names[op->kind],
                        op->kind == OL_RMA_ACCUMULATE ? " other than MPI_NO_OP" : "",
                        op->op->name ? op->op->name : "a user-defined one");
        return MPI_ERR_OP;
    }
    *basic = ol_dt_basic_type(op->target_dt);
    const ol_datatype_t *origin = handle == MPI_NO_OP ? *basic : ol_dt_basic_type(op->origin_dt);
    if (!*basic || origin != *basic) {
        ol_error_detail("%s: the origin and target data must be of one and the same predefined "
                        "type (origin %s, target %s)", op_names[op->kind],
                        ol_dt_name(op->origin_dt), ol_dt_name(op->target_dt));
        return MPI_ERR_TYPE;
    }
    if (handle != MPI_REPLACE && handle != MPI_NO_OP && !ol_op_loop(op->op, *basic)) {
        ol_error_detail("%s: %s is not defined on %s", op_names[op->kind], op->op->name,
                        ol_dt_name(*basic));
        return MPI_ERR_OP;
    }
    return MPI_SUCCESS;
}

/* The types MPI_Compare_and_swap takes (MPI-4.1 12.3.4): predefined C and
 * Fortran integers, logicals, the multi-language types and byte, which are
 * those MPI_BAND or MPI_LAND is defined on (not floating point, complex
 * or the pair types). */
static bool swappable(const ol_datatype_t *dt)
{
    return dt->predefined && (ol_op_loop(ol_op_from_handle(MPI_BAND), dt) ||
                              ol_op_loop(ol_op_from_handle(MPI_LAND), dt));
}

static ol_status_t check_sizes(const ol_rma_op_t *op)
{
    switch (op->kind) {
    case OL_RMA_PUT:
    case OL_RMA_ACCUMULATE:
        return same_size(op, "origin", op->origin_count, op->origin_dt);
    case OL_RMA_GET:
        return same_size(op, "origin", op->result_count, op->result_dt);
    case OL_RMA_GET_ACCUMULATE:
        if (ol_op_to_handle(op->op) != MPI_NO_OP) {
            ol_status_t rc = same_size(op, "origin", op->origin_count, op->origin_dt);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        return same_size(op, "result", op->result_count, op->result_dt);
    case OL_RMA_COMPARE_AND_SWAP:
        return MPI_SUCCESS;
    }
    return MPI_SUCCESS;
}

/* No byte moves on either side: nothing to check but rank and epoch, and
 * nothing to do (zero counts, or types of size zero). */
static bool moves_nothing(const ol_rma_op_t *op)
{
    return bytes_of(op->target_count, op->target_dt) == 0 &&
           bytes_of(op->origin_count, op->origin_dt) == 0 &&
           bytes_of(op->result_count, op->result_dt) == 0;
}

static ol_status_t check(const ol_rma_state_t *s, const ol_rma_op_t *op, const ol_datatype_t **basic)
{
    if (op->target < 0 || op->target >= s->size) {
        ol_error_detail("%s: target_rank %d is not a rank of the window's group (size %d)",
                        op_names[op->kind], op->target, s->size);
        return MPI_ERR_RANK;
    }
    if (!ol_rma_in_epoch(s, op->target)) {
        ol_error_detail("%s: no epoch gives access to rank %d's memory: call MPI_Win_fence, "
                        "MPI_Win_start, MPI_Win_lock or MPI_Win_lock_all first",
                        op_names[op->kind], op->target);
        return MPI_ERR_RMA_SYNC;
    }
    *basic = NULL;
    if (moves_nothing(op))
        return MPI_SUCCESS;
    if (op->kind == OL_RMA_ACCUMULATE || op->kind == OL_RMA_GET_ACCUMULATE) {
        ol_status_t rc = check_accumulate(op, basic);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (op->kind == OL_RMA_COMPARE_AND_SWAP && !swappable(op->target_dt)) {
        ol_error_detail("MPI_Compare_and_swap: datatype must be a predefined integer, logical "
                        "or byte type, not %s", ol_dt_name(op->target_dt));
        return MPI_ERR_TYPE;
    }
    return check_sizes(op);
}

/* ---- the message ------------------------------------------------------------------ */

/* How many bytes travel to the target: the origin data packed (for a
 * compare-and-swap, the new value and then the compared one). */
static size_t payload_bytes_of(const ol_rma_op_t *op)
{
    bool sends = op->kind == OL_RMA_PUT || op->kind == OL_RMA_ACCUMULATE ||
                 op->kind == OL_RMA_COMPARE_AND_SWAP ||
                 (op->kind == OL_RMA_GET_ACCUMULATE && ol_op_to_handle(op->op) != MPI_NO_OP);
    if (!sends)
        return 0;
    size_t one = bytes_of(op->origin_count, op->origin_dt);
    return op->kind == OL_RMA_COMPARE_AND_SWAP ? 2 * one : one;
}

static ol_status_t pack_payload(const ol_rma_op_t *op, char *dst)
{
    ol_status_t rc = ol_pt2pt_pack(op->origin, op->origin_count, op->origin_dt, dst);
    if (rc == MPI_SUCCESS && op->kind == OL_RMA_COMPARE_AND_SWAP)
        rc = ol_pt2pt_pack(op->compare, 1, op->origin_dt,
                           dst + bytes_of(op->origin_count, op->origin_dt));
    return rc;
}

/* The payload in memory of its own (the caller frees it); NULL for none. */
static ol_status_t payload_of(const ol_rma_op_t *op, char **payload, size_t *bytes)
{
    *payload = NULL;
    *bytes = payload_bytes_of(op);
    if (*bytes == 0)
        return MPI_SUCCESS;
    *payload = malloc(*bytes);
    if (!*payload) {
        ol_error_detail("out of memory for %zu bytes of origin data", *bytes);
        return MPI_ERR_NO_MEM;
    }
    ol_status_t rc = pack_payload(op, *payload);
    if (rc != MPI_SUCCESS) {
        free(*payload);
        *payload = NULL;
    }
    return rc;
}

static const uint8_t msg_kinds[] = {
    [OL_RMA_PUT] = MSG_PUT,
    [OL_RMA_GET] = MSG_GET,
    [OL_RMA_ACCUMULATE] = MSG_ACCUMULATE,
    [OL_RMA_GET_ACCUMULATE] = MSG_GET_ACCUMULATE,
    [OL_RMA_COMPARE_AND_SWAP] = MSG_COMPARE_AND_SWAP,
};

static bool brings_data_back(ol_rma_kind_t kind)
{
    return kind == OL_RMA_GET || kind == OL_RMA_GET_ACCUMULATE ||
           kind == OL_RMA_COMPARE_AND_SWAP;
}

static ol_status_t send_op(ol_rma_state_t *s, const ol_rma_op_t *op, const ol_datatype_t *basic,
                           int64_t disp, layout_t *l, ol_request_t *request)
{
    ol_rma_msg_t hdr = {.kind = msg_kinds[op->kind], .disp = disp,
                        .bytes = bytes_of(op->target_count, op->target_dt),
                        .nblocks = l->n, .op = (uintptr_t)(op->op ? ol_op_to_handle(op->op) : 0),
                        .basic = (uintptr_t)(basic ? ol_dt_to_handle((ol_datatype_t *)basic) : 0)};
    if (l->n == 1) { /* one block: said by disp alone */
        hdr.disp += l->blocks[0].offset;
        hdr.nblocks = 0;
    }
    /* The answer is expected, and a get's data apart has its receive,
     * before the message is made: posting a receive may progress, which
     * sends the bundles. */
    ol_rma_pending_t *p = NULL;
    ol_status_t rc = MPI_SUCCESS;
    if (brings_data_back(op->kind)) {
        p = ol_rma_expect(s, op->target, true, op->result, op->result_count, op->result_dt,
                          request);
        if (!p) {
            ol_error_detail("out of memory for an operation's reply");
            return MPI_ERR_NO_MEM;
        }
        hdr.id = p->id;
        if (op->kind == OL_RMA_GET && ol_rma_get_apart(hdr.bytes) &&
            (rc = ol_rma_receive_apart(s, p)) != MPI_SUCCESS)
            return rc;
    }
    /* The origin data is packed straight into the message, which a small
     * one is built in its bundle. */
    size_t payload_bytes = payload_bytes_of(op), bytes;
    char *payload;
    char *msg = ol_rma_message_in_bundle(s, op->target, &hdr, l->blocks, payload_bytes, &payload,
                                         &bytes);
    bool in_bundle = msg != NULL;
    if (!in_bundle)
        msg = ol_rma_message_new(&hdr, l->blocks, payload_bytes, &payload, &bytes);
    rc = !msg ? MPI_ERR_NO_MEM : payload_bytes ? pack_payload(op, payload) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) {
        if (p)
            ol_rma_unexpect(s, p);
        if (!in_bundle)
            free(msg);
        return rc;
    }
    if (in_bundle)
        ol_rma_message_join_bundle(s, op->target, bytes);
    else
        rc = ol_rma_message_send_later(s, op->target, msg, bytes);
    /* An operation that brings an answer back is complete at the target
     * when the answer arrives, which every synchronisation waits for
     * anyway (data_pending); only the others need a flush's round trip. */
    if (rc == MPI_SUCCESS && !brings_data_back(op->kind))
        s->touched[op->target] = true;
    return rc;
}

/* ---- direct windows: the origin does the operation itself ------------------------- */

/* Reads (write false) or writes the target's blocks from or into the packed
 * bytes at data. */
static ol_status_t move_blocks(ol_rma_state_t *s, int target, int64_t disp, const layout_t *l,
                               char *data, bool write)
{
    ol_status_t rc = MPI_SUCCESS;
    for (size_t i = 0; rc == MPI_SUCCESS && i < l->n; i++) {
        int64_t at = disp + l->blocks[i].offset;
        rc = write ? ol_rma_direct_write(s, target, at, data, l->blocks[i].length)
                   : ol_rma_direct_read(s, target, at, data, l->blocks[i].length);
        data += l->blocks[i].length;
    }
    return rc;
}

/* An accumulate's read, combine and write, in turn with every other
 * accumulate on the target's memory; what it read goes to the result
 * buffer of the fetching kinds. */
static ol_status_t direct_update(ol_rma_state_t *s, const ol_rma_op_t *op,
                                 const ol_datatype_t *basic, int64_t disp, const layout_t *l,
                                 const char *data, char *old, size_t bytes)
{
    ol_status_t rc = move_blocks(s, op->target, disp, l, old, false);
    if (rc == MPI_SUCCESS && brings_data_back(op->kind) && bytes)
        rc = ol_pt2pt_unpack(old, op->result, op->result_count, op->result_dt);
    MPI_Op handle = op->op ? ol_op_to_handle(op->op) : MPI_OP_NULL;
    if (rc != MPI_SUCCESS || handle == MPI_NO_OP)
        return rc;
    if (op->kind == OL_RMA_COMPARE_AND_SWAP) {
        if (memcmp(old, data + bytes, bytes) != 0)
            return MPI_SUCCESS;
        memcpy(old, data, bytes);
    } else if (handle == MPI_REPLACE) {
        memcpy(old, data, bytes);
    } else {
        rc = ol_rma_combine(op->op, (ol_datatype_t *)basic, data, old, bytes / basic->size);
    }
    return rc == MPI_SUCCESS ? move_blocks(s, op->target, disp, l, old, true) : rc;
}

/* The origin data of a direct operation: in place where it is one block
 * of host memory, a compare-and-swap's two values in pair, else packed
 * into *owned (the caller frees it). */
static ol_status_t direct_payload(const ol_rma_op_t *op, const char **data, char **owned,
                                  char pair[64])
{
    *owned = NULL;
    if (op->kind != OL_RMA_COMPARE_AND_SWAP && op->origin_dt && op->origin_dt->contiguous &&
        !ol_accel_is_device(op->origin)) {
        *data = ol_dt_data_at(op->origin, op->origin_dt);
        return MPI_SUCCESS;
    }
    if (op->kind == OL_RMA_COMPARE_AND_SWAP && op->origin_dt->size <= 32) {
        *data = pair; /* the new value and the compared one, on the stack */
        return pack_payload(op, pair);
    }
    size_t bytes;
    ol_status_t rc = payload_of(op, owned, &bytes);
    *data = *owned;
    return rc;
}

/* An accumulate of any kind on one block of memory mapped here, of a type
 * whose packed and C layouts agree: applied where the data lies, in turn
 * with every other accumulate on that memory (its accumulate word); what
 * was there goes to the result of the fetching kinds. */
static bool mapped_one_block(const ol_rma_state_t *s, const ol_rma_op_t *op,
                             const ol_datatype_t *type, const layout_t *l)
{
    return s->peers[op->target].shared_base && l->n == 1 &&
           type->size == (size_t)type->extent;
}

static ol_status_t mapped_update(ol_rma_state_t *s, const ol_rma_op_t *op,
                                 const ol_datatype_t *type, int64_t disp, const layout_t *l,
                                 const char *data, size_t bytes)
{
    char *at = (char *)s->peers[op->target].shared_base + disp + l->blocks[0].offset;
    bool fetches = brings_data_back(op->kind);
    char small[64];
    char *old = !fetches ? NULL : bytes <= sizeof(small) ? small : malloc(bytes);
    if (fetches && !old) {
        ol_error_detail("out of memory for %zu bytes of an accumulate's result", bytes);
        return MPI_ERR_NO_MEM;
    }
    MPI_Op handle = op->op ? ol_op_to_handle(op->op) : MPI_OP_NULL;
    ol_status_t rc = MPI_SUCCESS;
    ol_rma_direct_acc_begin(s, op->target);
    if (fetches)
        memcpy(old, at, bytes);
    if (op->kind == OL_RMA_COMPARE_AND_SWAP) { /* data: the new value, then the compared one */
        if (memcmp(at, data + bytes, bytes) == 0)
            memcpy(at, data, bytes);
    } else if (handle == MPI_REPLACE) {
        memcpy(at, data, bytes);
    } else if (handle != MPI_NO_OP) {
        rc = ol_op_apply(op->op, data, at, (MPI_Count)(bytes / type->size),
                         (ol_datatype_t *)type);
    }
    ol_rma_direct_acc_end(s, op->target);
    if (fetches && rc == MPI_SUCCESS)
        rc = ol_pt2pt_unpack(old, op->result, op->result_count, op->result_dt);
    if (old != small)
        free(old);
    return rc;
}

/* A get's data straight into the result buffer where it is one block of
 * host memory, else through a packed copy. */
static ol_status_t direct_get(ol_rma_state_t *s, const ol_rma_op_t *op, int64_t disp,
                              const layout_t *l, size_t bytes)
{
    if (op->result_dt->contiguous && !ol_accel_is_device(op->result))
        return move_blocks(s, op->target, disp, l, ol_dt_data_at(op->result, op->result_dt),
                           false);
    char *packed = malloc(bytes ? bytes : 1);
    if (!packed) {
        ol_error_detail("out of memory for %zu bytes of a get", bytes);
        return MPI_ERR_NO_MEM;
    }
    ol_status_t rc = move_blocks(s, op->target, disp, l, packed, false);
    if (rc == MPI_SUCCESS && bytes)
        rc = ol_pt2pt_unpack(packed, op->result, op->result_count, op->result_dt);
    free(packed);
    return rc;
}

static ol_status_t direct_op(ol_rma_state_t *s, const ol_rma_op_t *op,
                             const ol_datatype_t *basic, int64_t disp, const layout_t *l)
{
    size_t bytes = bytes_of(op->target_count, op->target_dt);
    if (op->kind == OL_RMA_GET)
        return direct_get(s, op, disp, l, bytes);
    const char *data;
    char *owned, pair[64];
    ol_status_t rc = direct_payload(op, &data, &owned, pair);
    if (rc != MPI_SUCCESS)
        return rc;
    const ol_datatype_t *type = op->kind == OL_RMA_COMPARE_AND_SWAP ? op->target_dt : basic;
    if (op->kind == OL_RMA_PUT) {
        rc = move_blocks(s, op->target, disp, l, (char *)data, true);
    } else if (mapped_one_block(s, op, type, l)) {
        rc = mapped_update(s, op, type, disp, l, data, bytes);
    } else {
        char *old = malloc(bytes ? bytes : 1);
        rc = old ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS) {
            ol_rma_direct_acc_begin(s, op->target);
            rc = direct_update(s, op, basic, disp, l, data, old, bytes);
            ol_rma_direct_acc_end(s, op->target);
        }
        free(old);
    }
    free(owned);
    return rc;
}

/* A request complete at once: the data left in a copy of its own. */
static ol_status_t completed_request(ol_request_t **request)
{
    *request = ol_request_alloc(OL_REQ_RMA);
    if (!*request) {
        ol_error_detail("out of memory for a request");
        return MPI_ERR_NO_MEM;
    }
    ol_request_complete(*request, MPI_SUCCESS);
    return MPI_SUCCESS;
}

/* Where the op's `bytes` of contiguous target data lie, when the target's
 * memory is mapped here, an epoch reaches it and they fit in its window;
 * NULL else (the general path then does the op or says what is wrong). */
static char *mapped_target(ol_rma_state_t *s, const ol_rma_op_t *op, int64_t bytes)
{
    if (!s->direct || op->target < 0 || op->target >= s->size ||
        !s->peers[op->target].shared_base || !op->target_dt->contiguous || bytes <= 0 ||
        bytes != (int64_t)op->target_count * (int64_t)op->target_dt->size ||
        !ol_rma_in_epoch(s, op->target))
        return NULL;
    const ol_rma_peer_t *peer = &s->peers[op->target];
    int64_t start = (int64_t)op->target_disp * peer->disp_unit + op->target_dt->true_lb;
    if (start < 0 || start > (int64_t)peer->size - bytes)
        return NULL;
    return (char *)peer->shared_base + start;
}

/* memcpy, with the sizes of one element copied inline: a call to the C
 * library's was a tenth of an 8-byte put's 19 ns. */
static inline void copy_bytes(char *dst, const char *src, size_t bytes)
{
    switch (bytes) {
    case 1: __builtin_memcpy(dst, src, 1); break;
    case 2: __builtin_memcpy(dst, src, 2); break;
    case 4: __builtin_memcpy(dst, src, 4); break;
    case 8: __builtin_memcpy(dst, src, 8); break;
    case 16: __builtin_memcpy(dst, src, 16); break;
    default: memcpy(dst, src, bytes);
    }
}

/* A put or get of contiguous host data within memory mapped here, in an
 * epoch: the common case of a one-host window, done at once, without the
 * general path's layout and checks (osu_get_bw of 8 B: 47 -> 21 ns an
 * operation). False for anything else, which the general path does or
 * refuses with its reason. */
static bool direct_contiguous(ol_rma_state_t *s, const ol_rma_op_t *op)
{
    bool put = op->kind == OL_RMA_PUT;
    if (!put && op->kind != OL_RMA_GET)
        return false;
    ol_datatype_t *here_dt = put ? op->origin_dt : op->result_dt;
    MPI_Count count = put ? op->origin_count : op->result_count;
    void *buf = put ? (void *)op->origin : op->result;
    if (!here_dt->contiguous || ol_accel_is_device(buf))
        return false;
    int64_t bytes = (int64_t)count * (int64_t)here_dt->size;
    char *there = mapped_target(s, op, bytes);
    if (!there)
        return false;
    char *here = ol_dt_data_at(buf, here_dt);
    if (put)
        copy_bytes(there, here, (size_t)bytes);
    else
        copy_bytes(here, there, (size_t)bytes);
    return true;
}

/* Whether an accumulate of one predefined type on both sides (and in the
 * result), in host memory, is as simple as the fast path below takes. */
static bool simple_accumulate(const ol_rma_op_t *op)
{
    const ol_datatype_t *dt = op->target_dt;
    if ((op->kind != OL_RMA_ACCUMULATE && op->kind != OL_RMA_GET_ACCUMULATE) ||
        !op->op->predefined || op->origin_dt != dt || !dt->predefined ||
        dt->size != (size_t)dt->extent || ol_accel_is_device(op->origin))
        return false;
    return op->kind == OL_RMA_ACCUMULATE ||
           (op->result_dt == dt && op->result_count == op->origin_count &&
            !ol_accel_is_device(op->result));
}

/* An MPI_Accumulate, MPI_Get_accumulate or MPI_Fetch_and_op of contiguous
 * host data of one predefined type (the same on both sides and in the
 * result) with a predefined op defined on it, within memory mapped here,
 * in an epoch: applied at once under the target's accumulate word, without
 * the general path's layout and checks (osu_acc_latency of 4-128 B:
 * 0.07-0.13 -> 0.04 us; osu_fop_latency 0.07-0.08 -> 0.04). False for anything
 * else, which the general path does or refuses with its reason. */
static bool direct_contiguous_accumulate(ol_rma_state_t *s, const ol_rma_op_t *op)
{
    if (!simple_accumulate(op))
        return false;
    const ol_datatype_t *dt = op->target_dt;
    MPI_Op handle = ol_op_to_handle(op->op);
    bool fetch = op->kind == OL_RMA_GET_ACCUMULATE;
    ol_op_loop_t loop = handle == MPI_REPLACE || handle == MPI_NO_OP ? NULL
                                                                       : ol_op_loop(op->op, dt);
    int64_t bytes = (int64_t)op->origin_count * (int64_t)dt->size;
    bool known = loop || handle == MPI_REPLACE || (fetch && handle == MPI_NO_OP);
    char *there = known ? mapped_target(s, op, bytes) : NULL;
    if (!there)
        return false;
    ol_rma_direct_acc_begin(s, op->target);
    if (fetch)
        memcpy(op->result, there, (size_t)bytes);
    if (loop)
        loop(op->origin, there, (size_t)op->origin_count);
    else if (handle == MPI_REPLACE)
        memmove(there, op->origin, (size_t)bytes);
    ol_rma_direct_acc_end(s, op->target);
    return true;
}

ol_status_t ol_rma_issue(ol_win_t *win, const ol_rma_op_t *op, ol_request_t **request)
{
    ol_rma_state_t *s = win->state;
    if (op->target == MPI_PROC_NULL)
        return request ? completed_request(request) : MPI_SUCCESS;
    if (!request && (direct_contiguous(s, op) || direct_contiguous_accumulate(s, op)))
        return MPI_SUCCESS;
    ol_rma_lock_state();
    const ol_datatype_t *basic;
    ol_status_t rc = check(s, op, &basic);
    if (rc == MPI_SUCCESS && moves_nothing(op)) {
        ol_rma_unlock_state();
        return request ? completed_request(request) : MPI_SUCCESS;
    }
    int64_t disp = 0;
    layout_t l = {0};
    if (rc == MPI_SUCCESS) {
        MPI_Aint unit = s->peers ? s->peers[op->target].disp_unit : 1;
        disp = (int64_t)op->target_disp * unit;
        rc = target_layout(op->target_dt, op->target_count, &l);
    }
    if (rc == MPI_SUCCESS)
        rc = check_range(s, op, disp, &l);
    if (rc == MPI_SUCCESS && s->direct) {
        /* Done here and now: complete at the origin and at the target. */
        ol_rma_unlock_state();
        rc = direct_op(s, op, basic, disp, &l);
        free_layout(&l);
        if (rc != MPI_SUCCESS)
            return rc;
        return request ? completed_request(request) : MPI_SUCCESS;
    }
    /* A request of UCX's operations completes when UCX is done with the
     * origin's buffers; of the messages', with a get's reply (the origin
     * data of the others left in the message). */
    ol_request_t *req = NULL;
    if (rc == MPI_SUCCESS && request && (s->ucx || brings_data_back(op->kind))) {
        req = ol_request_alloc(OL_REQ_RMA);
        rc = req ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    }
    bool by_ucx = false;
    if (rc == MPI_SUCCESS && s->ucx)
        rc = ol_rma_ucx_issue(s, op, basic, disp, l.blocks, l.n, req, &by_ucx);
    if (rc == MPI_SUCCESS && !by_ucx)
        rc = send_op(s, op, basic, disp, &l, brings_data_back(op->kind) ? req : NULL);
    ol_rma_unlock_state();
    free_layout(&l);
    if (rc != MPI_SUCCESS) {
        if (req) { /* never handed out: completion's claim and ours */
            ol_request_complete(req, rc);
            ol_request_free_when_complete(req);
        }
        return rc;
    }
    if (req && !by_ucx && !brings_data_back(op->kind))
        ol_request_complete(req, MPI_SUCCESS);
    if (req) {
        *request = req;
        return MPI_SUCCESS;
    }
    return request ? completed_request(request) : MPI_SUCCESS;
}
