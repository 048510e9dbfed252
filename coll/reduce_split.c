/* Reduce on two processes of one host, the vector split between them.
 *
 * Through messages the root copies the other's whole vector out of its
 * memory (by address, pt2pt/README.md) and reduces it alone while the
 * other waits. Here both work, on each other's buffers through the
 * kernel's cross-memory calls (ol_pt2pt_read_memory): the root reads the
 * first two thirds of the other's vector into its receive buffer and
 * combines its own into them; the other reads the last third of the
 * root's, combines its own into it and writes the result into the root's
 * receive buffer. The other's third costs a copy more per element (the
 * write back), hence the uneven split. Both begin with one message each
 * way that says where their buffers are and whether they can (contiguous
 * host buffers, elements of one size, the kernel letting them), and end
 * with one that says each is done and how it went, so that neither
 * returns while the other still reads or writes its buffers. Where either
 * cannot, both run the table's algorithm after it. Only commutative ops:
 * each process combines in its own order.
 *
 * Measured on the 2-core Intel Xeon VM (2026-12-07), osu_reduce (float
 * sum), 2 ranks, ompi-lite alone, four alternating pairs, us:
 *
 *   bytes                64 KiB    128 KiB    256 KiB    1 MiB    4 MiB
 *   messages            5.7-5.7   11.2-11.4  22.1-22.4  150-157  671-683
 *   split, root's 3/5   5.9-7.3    9.0-10.9  16.5-20.6   65-82   399-467
 *
 * and the root's share, three runs each: 1/2 128 KiB 10.0-10.6, 1 MiB
 * 80-83; 2/3 8.7-9.2, 75-81; 3/4 9.3-9.7, 90-93. Below 128 KiB the two
 * exchanges and the cross-memory calls cost more than they save
 * (REDUCE_SPLIT_BYTES in reduce.c). */
#include "coll_util.h"
#include "reduce_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Bytes per cross-memory call, and the other's scratch: read and then
 * combined while in cache, and under glibc's threshold for mapping a block
 * of its own, so that the scratch comes from the heap without page
 * faults. */
enum { CHUNK_BYTES = 65536 };

/* What each process tells the other first. Both split the vector at the
 * same element only where their elements are of one size (MPI_INT x 2n on
 * one side and a pair of ints x n on the other have one signature). */
typedef struct {
    uint64_t contribution; /* the data of this process's vector */
    uint64_t result;       /* the root's: where the result's data goes */
    int32_t able;          /* 1: this process can take its part */
    uint32_t elem;         /* bytes of its datatype's element */
} hello_t;

typedef struct {
    const ol_coll_args_t *a;
    int peer, tag;
    size_t elem;      /* bytes of one element */
    const char *mine; /* this process's vector's data */
    char *result;     /* the root's result's data (NULL elsewhere) */
    hello_t theirs;
} split_t;

bool ol_coll_reduce_split_applies(const ol_coll_args_t *a)
{
    const char *forced = *ol_coll_tables[a->kind]->forced;
    return a->kind == OL_COLL_REDUCE && a->comm->size == 2 && !ol_comm_is_inter(a->comm) &&
           !ol_coll_reproducible && !(forced && *forced) && a->op->commutative &&
           ol_coll_layout(a->comm) == OL_COLL_ONE_HOST &&
           ol_coll_bytes(a) >= ol_coll_reduce_split_bytes;
}

/* Whether this process can take its part: its side only. */
static bool able_here(const split_t *s)
{
    const ol_datatype_t *dt = s->a->recvtype;
    return !ol_coll_on_device(s->a) && dt->contiguous && s->elem > 0 &&
           s->elem <= CHUNK_BYTES && ol_pt2pt_reaches_memory(s->a->comm, s->peer);
}

/* Sends `out` to the peer while receiving as many bytes into `in`. */
static ol_status_t exchange(const split_t *s, const void *out, void *in, size_t bytes)
{
    ol_datatype_t *byte = ol_dt_from_handle(MPI_BYTE);
    return ol_coll_sendrecv(out, (MPI_Count)bytes, byte, s->peer, in, (MPI_Count)bytes, byte,
                            s->peer, s->tag, s->a->comm);
}

static ol_status_t memory_failed(const split_t *s, const char *what)
{
    ol_error_detail("MPI_Reduce: %s the memory of rank %d failed (%s)", what, s->peer,
                    strerror(errno));
    return MPI_ERR_OTHER;
}

/* inout = in op inout over n elements whose data start at in and inout. */
static ol_status_t combine(const split_t *s, const char *in, char *inout, MPI_Count n)
{
    ol_datatype_t *dt = s->a->recvtype;
    return ol_op_apply(s->a->op, ol_dt_buffer_for((void *)in, dt), ol_dt_buffer_for(inout, dt),
                       n, dt);
}

/* The root's part, elements [start, end): the other's vector read into
 * the result, or beside it in scratch where the result is the root's own
 * vector (in place). */
static ol_status_t root_part(const split_t *s, MPI_Count start, MPI_Count end, char *scratch)
{
    bool in_place = s->mine == s->result;
    MPI_Count step = (MPI_Count)(CHUNK_BYTES / s->elem);
    for (MPI_Count k = start; k < end; k += step) {
        MPI_Count n = end - k < step ? end - k : step;
        size_t at = (size_t)k * s->elem, bytes = (size_t)n * s->elem;
        char *theirs = in_place ? scratch : s->result + at;
        if (!ol_pt2pt_read_memory(s->a->comm, s->peer, theirs, s->theirs.contribution + at, bytes))
            return memory_failed(s, "reading");
        ol_status_t rc = in_place ? combine(s, theirs, s->result + at, n)
                                  : combine(s, s->mine + at, theirs, n);
        if (rc != OL_OK)
            return rc;
    }
    return OL_OK;
}

/* A kernel that lets a process read another's memory lets it write there
 * too (pt2pt/shm_ring.h), but a seccomp policy may refuse the write alone:
 * then the other hands what it has not written back to the root, and no
 * later call of this process splits. */
static bool writes_refused;

/* The other's part, elements [start, count): the root's vector read into
 * scratch, this process's combined into it, the result written back; in
 * *written, where the results written end (count when all were). */
static ol_status_t other_part(const split_t *s, MPI_Count start, MPI_Count count, char *scratch,
                              MPI_Count *written)
{
    MPI_Count step = (MPI_Count)(CHUNK_BYTES / s->elem);
    for (*written = start; *written < count; *written += step) {
        MPI_Count k = *written, n = count - k < step ? count - k : step;
        size_t at = (size_t)k * s->elem, bytes = (size_t)n * s->elem;
        if (!ol_pt2pt_read_memory(s->a->comm, s->peer, scratch, s->theirs.contribution + at,
                                  bytes))
            return memory_failed(s, "reading");
        ol_status_t rc = combine(s, s->mine + at, scratch, n);
        if (rc != OL_OK)
            return rc;
        if (!ol_pt2pt_write_memory(s->a->comm, s->peer, s->theirs.result + at, scratch, bytes)) {
            __atomic_store_n(&writes_refused, true, __ATOMIC_RELAXED);
            return OL_OK; /* the root takes the rest */
        }
    }
    *written = count;
    return OL_OK;
}

/* What each process tells the other at the end. */
typedef struct {
    int32_t outcome;   /* an error class, OL_OK: done */
    int32_t unused;
    int64_t written;   /* the other's: where the results it wrote end */
} done_t;

/* This process's part, the root's the first two thirds of the elements,
 * the other's the rest: into done. */
static void take_part(const split_t *s, bool root, char *scratch, done_t *done)
{
    MPI_Count count = s->a->recvcount, split = count - count / 3, written = count;
    done->outcome = root ? root_part(s, 0, split, scratch)
                         : other_part(s, split, count, scratch, &written);
    done->written = written;
}

ol_status_t ol_coll_reduce_split(const ol_coll_args_t *a, bool *taken)
{
    ol_datatype_t *dt = a->recvtype;
    bool root = a->comm->rank == a->root;
    const void *mine = root && ol_coll_in_place(a) ? a->recvbuf : a->sendbuf;
    split_t s = {.a = a, .peer = 1 - a->comm->rank, .tag = ol_sched_next_tag(a->comm),
                 .elem = dt->size, .mine = ol_dt_data_at(mine, dt),
                 .result = root ? ol_dt_data_at(a->recvbuf, dt) : NULL};
    char *scratch = malloc(CHUNK_BYTES);
    hello_t hello = {.contribution = (uint64_t)(uintptr_t)s.mine,
                     .result = (uint64_t)(uintptr_t)s.result,
                     .able = scratch && !__atomic_load_n(&writes_refused, __ATOMIC_RELAXED) &&
                             able_here(&s),
                     .elem = (uint32_t)s.elem};
    *taken = false;
    ol_status_t rc = exchange(&s, &hello, &s.theirs, sizeof(hello));
    if (rc != OL_OK || !hello.able || !s.theirs.able || hello.elem != s.theirs.elem) {
        free(scratch);
        return rc;
    }
    *taken = true;
    done_t done, theirs = {0};
    take_part(&s, root, scratch, &done);
    rc = exchange(&s, &done, &theirs, sizeof(done));
    MPI_Count count = a->recvcount;
    MPI_Count handed_back = root ? theirs.written : done.written;
    if (rc == OL_OK && done.outcome == OL_OK && theirs.outcome == OL_OK && handed_back < count) {
        /* the other's writes were refused: the root takes the rest, and
         * the other waits until it has read what it needs */
        if (root)
            done.outcome = root_part(&s, handed_back, count, scratch);
        rc = exchange(&s, &done, &theirs, sizeof(done));
    }
    free(scratch);
    if (rc != OL_OK)
        return rc;
    if (done.outcome != OL_OK)
        return done.outcome;
    if (theirs.outcome != OL_OK)
        ol_error_detail("MPI_Reduce: rank %d could not reduce its part of the vector", s.peer);
    return theirs.outcome;
}
