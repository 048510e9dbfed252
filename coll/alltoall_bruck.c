/* Alltoall, Bruck's algorithm (Bruck, Ho, Kipnis, Upfal and Weathersby).
 *
 * Cost: ceil(log2 p) steps instead of p - 1; in step k (distance d = 2^k)
 * each process sends to rank + d, in one message, every block whose
 * position has bit k set: about p/2 blocks per step, so each block crosses
 * the wire up to log2 p times (p/2 * log2 p blocks sent per process) and is
 * packed and unpacked locally each time. Fewer, larger messages: small
 * blocks on many processes, where latency dominates (see alltoall.c).
 *
 * Example, p = 4, rank r: blocks are rotated so position i holds the block
 * for rank r + i; step 1 (d = 1) sends positions 1 and 3 to r + 1 and
 * receives r - 1's positions 1 and 3 in their place; step 2 (d = 2) sends
 * positions 2 and 3 to r + 2. Position i then holds the block from rank
 * r - i, which a last local pass puts in place. Works in packed bytes, so
 * any datatypes (and MPI_IN_PLACE: the blocks are packed before any
 * arrives) are only handled at the first and last pass. */
#include "alltoall_blocks.h"
#include "coll_select.h"
#include "coll_util.h"

typedef struct {
    char *blocks;   /* p blocks in rotated order */
    char *out, *in; /* one step's blocks, packed for the wire */
    size_t block;   /* bytes of one block */
    ol_datatype_t *byte;
} bruck_t;

/* Positions with bit d set go out in step d; packs or unpacks them. */
static ol_status_t move_step_blocks(ol_sched_t *s, bruck_t *b, int p, int d, bool pack)
{
    ol_status_t rc = OL_OK;
    MPI_Count n = (MPI_Count)b->block;
    for (int i = 0, c = 0; rc == OL_OK && i < p; i++) {
        if (!(i & d))
            continue;
        char *slot = b->blocks + (size_t)i * b->block, *wire = (pack ? b->out : b->in) + c++ * n;
        rc = pack ? ol_sched_copy(s, slot, n, b->byte, wire, n, b->byte)
                  : ol_sched_copy(s, wire, n, b->byte, slot, n, b->byte);
    }
    return rc;
}

static int blocks_in_step(int p, int d)
{
    int n = 0;
    for (int i = 0; i < p; i++)
        n += (i & d) != 0;
    return n;
}

/* First and last passes between the user's buffers and the rotated blocks. */
static ol_status_t rotate(ol_sched_t *s, const ol_coll_args_t *a, bruck_t *b, bool in)
{
    int me = a->comm->rank, p = a->comm->size;
    MPI_Count n = (MPI_Count)b->block;
    ol_status_t rc = OL_OK;
    for (int i = 0; rc == OL_OK && i < p; i++) {
        char *slot = b->blocks + (size_t)i * b->block;
        if (in) {
            int to = (me + i) % p;
            ol_coll_block_t u =
                ol_coll_in_place(a) ? ol_coll_recv_block(a, to) : ol_coll_send_block(a, to);
            rc = ol_sched_copy(s, u.buf, u.count, u.dt, slot, n, b->byte);
        } else {
            ol_coll_block_t u = ol_coll_recv_block(a, (me - i + p) % p);
            rc = ol_sched_copy(s, slot, n, b->byte, u.buf, u.count, u.dt);
        }
    }
    return rc;
}

ol_status_t ol_coll_alltoall_bruck(ol_sched_t *s, const ol_coll_args_t *a)
{
    int me = a->comm->rank, p = a->comm->size;
    bruck_t b = {.block = (size_t)a->recvcount * a->recvtype->size,
                 .byte = ol_dt_from_handle(MPI_BYTE)};
    size_t most = (size_t)(p / 2 + 1) * b.block;
    b.blocks = ol_sched_buffer(s, (size_t)p * b.block);
    b.out = ol_sched_buffer(s, most);
    b.in = ol_sched_buffer(s, most);
    if (!b.blocks || !b.out || !b.in)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = rotate(s, a, &b, true);
    for (int d = 1, prev = 0; rc == OL_OK && d < p; prev = d, d <<= 1) {
        MPI_Count n = blocks_in_step(p, d) * (MPI_Count)b.block;
        rc = ol_sched_round(s);
        if (rc == OL_OK && prev) /* what the previous step received */
            rc = move_step_blocks(s, &b, p, prev, false);
        if (rc == OL_OK)
            rc = move_step_blocks(s, &b, p, d, true);
        if (rc == OL_OK)
            rc = ol_sched_recv(s, b.in, n, b.byte, (me - d + p) % p);
        if (rc == OL_OK)
            rc = ol_sched_send(s, b.out, n, b.byte, (me + d) % p);
    }
    if (rc == OL_OK)
        rc = ol_sched_round(s);
    int last = 1;
    while (last * 2 < p)
        last *= 2;
    if (rc == OL_OK && p > 1)
        rc = move_step_blocks(s, &b, p, last, false);
    return rc == OL_OK ? rotate(s, a, &b, false) : rc;
}
