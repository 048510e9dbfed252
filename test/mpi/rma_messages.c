/* rma_messages: the message protocol of one-sided operations
 * (rma/README.md, "The protocol"): every rank accesses the next one, in
 * passive-target epochs, with
 *  - 20000 8-byte puts to distinct slots, then one flush (the bundles fill
 *    and leave on their own many times over);
 *  - accumulates and, between them, MPI_Get_accumulate with MPI_NO_OP on
 *    the same slot, which must see every accumulate issued before it (the
 *    default accumulate_ordering);
 *  - 200 request-based gets completed by MPI_Waitall alone;
 *  - puts of 12-17 KiB and accumulates of 8-60 KiB in one epoch, so that
 *    messages of up to 64 KiB wait in bundles, bundles fill and leave, and
 *    the puts past the messages' bound go through UCX between them;
 *  - on a dynamic window, good puts around one outside the attached region:
 *    the flush returns MPI_ERR_RMA_RANGE, the good ones are done;
 *  - large gets, whose data travels apart from the replies: several in
 *    flight, one request-based, strided on the target side and on the
 *    origin side, and on a dynamic window one outside the region between
 *    good ones (MPI_ERR_RMA_RANGE, and the good ones bring their own data);
 *    and in a post-start-complete-wait epoch and under an exclusive lock,
 *    after which the target at once changes the memory read (past
 *    MPI_Win_wait, or as soon as its own exclusive lock is granted): the
 *    origin must have the data of before;
 *  - a put completed by MPI_Win_flush_local, then a point-to-point message
 *    to the target saying so: the target, once it has the message, finds
 *    the put's data in its memory (flush_local completes at the target, as
 *    with Open MPI's and MPICH's UCX paths; OSHMPI's locks rely on it).
 * The targets check their memory after a barrier. Run with the messages
 * (OMPI_LITE_RMA_UCX=0 or between hosts) for the protocol to be taken. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PUTS 20000
#define ACC_SLOTS 16
#define ACC_ROUNDS 50
#define RGETS 200
#define DYN_INTS 8
#define BIG_INTS 65536 /* a large get's window: 256 KiB */
#define PIECE_INTS 4096 /* 16 KiB, above the size whose data comes apart */

static int failures;

static void check(int ok, const char *what, int rank)
{
    if (!ok) {
        printf("rma_messages: rank %d: %s\n", rank, what);
        failures++;
    }
}

static int64_t put_value(int origin, int i)
{
    return (int64_t)origin * 1000003 + i;
}

static void many_puts(int rank, int size)
{
    int64_t *mem;
    MPI_Win win;
    MPI_Win_allocate(PUTS * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &mem, &win);
    for (int i = 0; i < PUTS; i++)
        mem[i] = -1;
    int64_t *values = malloc(PUTS * sizeof(int64_t));
    for (int i = 0; i < PUTS; i++)
        values[i] = put_value(rank, i);
    MPI_Barrier(MPI_COMM_WORLD);
    int next = (rank + 1) % size;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < PUTS; i++)
        MPI_Put(&values[i], 1, MPI_INT64_T, next, i, 1, MPI_INT64_T, win);
    MPI_Win_flush(next, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int prev = (rank + size - 1) % size, wrong = 0;
    for (int i = 0; i < PUTS; i++)
        wrong += mem[i] != put_value(prev, i);
    check(wrong == 0, "puts: slots hold other values than the origin put", rank);
    free(values);
    MPI_Win_free(&win);
}

static void ordered_accumulates(int rank, int size)
{
    int64_t *mem;
    MPI_Win win;
    MPI_Win_allocate(ACC_SLOTS * sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &mem, &win);
    for (int i = 0; i < ACC_SLOTS; i++)
        mem[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int next = (rank + 1) % size, unordered = 0;
    int64_t one = 1, unused = 0, seen;
    MPI_Win_lock_all(0, win);
    for (int round = 1; round <= ACC_ROUNDS; round++) {
        for (int slot = 0; slot < ACC_SLOTS; slot++)
            MPI_Accumulate(&one, 1, MPI_INT64_T, next, slot, 1, MPI_INT64_T, MPI_SUM, win);
        int slot = round % ACC_SLOTS;
        MPI_Get_accumulate(&unused, 1, MPI_INT64_T, &seen, 1, MPI_INT64_T, next, slot, 1,
                           MPI_INT64_T, MPI_NO_OP, win);
        MPI_Win_flush_local(next, win);
        unordered += seen != round;
    }
    MPI_Win_unlock_all(win);
    check(unordered == 0, "accumulates: a fetch missed accumulates issued before it", rank);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < ACC_SLOTS; i++)
        check(mem[i] == ACC_ROUNDS, "accumulates: a slot's sum is wrong", rank);
    MPI_Win_free(&win);
}

static void request_gets(int rank, int size)
{
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(RGETS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < RGETS; i++)
        mem[i] = rank * RGETS + i;
    MPI_Barrier(MPI_COMM_WORLD);
    int next = (rank + 1) % size, got[RGETS], wrong = 0;
    MPI_Request requests[RGETS];
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < RGETS; i++)
        MPI_Rget(&got[i], 1, MPI_INT, next, i, 1, MPI_INT, win, &requests[i]);
    MPI_Waitall(RGETS, requests, MPI_STATUSES_IGNORE);
    for (int i = 0; i < RGETS; i++)
        wrong += got[i] != next * RGETS + i;
    MPI_Win_unlock_all(win);
    check(wrong == 0, "request-based gets: wrong data after MPI_Waitall", rank);
    MPI_Win_free(&win);
}

/* The medium operations' sizes, in ints: puts, then accumulates (each
 * applied twice). */
static const int MEDIUM_PUTS[] = {3072, 4096, 4352, 4096};
static const int MEDIUM_ACCS[] = {2048, 8192, 15360, 15360};
#define MEDIUM_COUNT 4

static int medium_value(int origin, int i)
{
    return origin * 7919 + i % 10007;
}

static void medium_operations(int rank, int size)
{
    int total = 0;
    for (int k = 0; k < MEDIUM_COUNT; k++)
        total += MEDIUM_PUTS[k] + MEDIUM_ACCS[k];
    int *mem, *values = malloc(total * sizeof(int));
    MPI_Win win;
    MPI_Win_allocate(total * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    for (int i = 0; i < total; i++) {
        mem[i] = 1;
        values[i] = medium_value(rank, i);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int next = (rank + 1) % size, at = 0;
    MPI_Win_lock_all(0, win);
    for (int k = 0; k < MEDIUM_COUNT; k++) {
        MPI_Put(&values[at], MEDIUM_PUTS[k], MPI_INT, next, at, MEDIUM_PUTS[k], MPI_INT, win);
        at += MEDIUM_PUTS[k];
    }
    for (int round = 0; round < 2; round++)
        for (int k = 0, acc_at = at; k < MEDIUM_COUNT; acc_at += MEDIUM_ACCS[k++])
            MPI_Accumulate(&values[acc_at], MEDIUM_ACCS[k], MPI_INT, next, acc_at,
                           MEDIUM_ACCS[k], MPI_INT, MPI_SUM, win);
    MPI_Win_flush(next, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int prev = (rank + size - 1) % size, wrong = 0;
    for (int i = 0; i < total; i++)
        wrong += mem[i] != (i < at ? medium_value(prev, i) : 1 + 2 * medium_value(prev, i));
    check(wrong == 0, "medium puts and accumulates: the target holds other values", rank);
    free(values);
    MPI_Win_free(&win);
}

static void range_error_in_bundle(int rank, int size)
{
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int mem[DYN_INTS];
    for (int i = 0; i < DYN_INTS; i++)
        mem[i] = -1;
    MPI_Win_attach(win, mem, sizeof(mem));
    MPI_Aint mine, base;
    MPI_Get_address(mem, &mine);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Sendrecv(&mine, 1, MPI_AINT, prev, 0, &base, 1, MPI_AINT, next, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int values[DYN_INTS];
    for (int i = 0; i < DYN_INTS; i++)
        values[i] = rank + i;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < DYN_INTS / 2; i++)
        MPI_Put(&values[i], 1, MPI_INT, next, MPI_Aint_add(base, i * (MPI_Aint)sizeof(int)), 1,
                MPI_INT, win);
    int outside = MPI_Put(&values[0], 1, MPI_INT, next,
                          MPI_Aint_add(base, DYN_INTS * (MPI_Aint)sizeof(int) + 4096), 1, MPI_INT,
                          win);
    for (int i = DYN_INTS / 2; i < DYN_INTS; i++)
        MPI_Put(&values[i], 1, MPI_INT, next, MPI_Aint_add(base, i * (MPI_Aint)sizeof(int)), 1,
                MPI_INT, win);
    int flushed = MPI_Win_flush(next, win), klass = MPI_SUCCESS;
    if (outside != MPI_SUCCESS)
        MPI_Error_class(outside, &klass);
    else if (flushed != MPI_SUCCESS)
        MPI_Error_class(flushed, &klass);
    check(klass == MPI_ERR_RMA_RANGE, "dynamic window: a put outside the region was not "
                                      "MPI_ERR_RMA_RANGE at the put or the flush", rank);
    check(MPI_Win_flush(next, win) == MPI_SUCCESS, "dynamic window: the error came twice", rank);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    int wrong = 0;
    for (int i = 0; i < DYN_INTS; i++)
        wrong += mem[i] != prev + i;
    check(wrong == 0, "dynamic window: the good puts around the bad one were not all done",
          rank);
    MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
}

static int big_value(int owner, int i)
{
    return owner * BIG_INTS + i;
}

/* Gets of 16-64 KiB from next's window of MPI_Win_allocate, several in
 * flight at once, one of them request-based; then the even ints of its
 * first half (a strided target), and its first 16 KiB into every other int
 * of a buffer (a strided origin). */
static void large_gets_allocated(int rank, int size)
{
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(BIG_INTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                     &win);
    for (int i = 0; i < BIG_INTS; i++)
        mem[i] = big_value(rank, i);
    MPI_Barrier(MPI_COMM_WORLD);
    int next = (rank + 1) % size, wrong = 0;
    int *got = malloc(2 * BIG_INTS * sizeof(int));
    for (int i = 0; i < 2 * BIG_INTS; i++)
        got[i] = -1;
    MPI_Win_lock_all(0, win);
    int pieces = BIG_INTS / 2 / PIECE_INTS;
    for (int k = 0; k < pieces; k++)
        MPI_Get(got + k * PIECE_INTS, PIECE_INTS, MPI_INT, next, k * PIECE_INTS, PIECE_INTS,
                MPI_INT, win);
    MPI_Request request;
    MPI_Rget(got + BIG_INTS / 2, BIG_INTS / 2, MPI_INT, next, BIG_INTS / 2, BIG_INTS / 2, MPI_INT,
             win, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Win_flush(next, win);
    for (int i = 0; i < BIG_INTS; i++)
        wrong += got[i] != big_value(next, i);
    check(wrong == 0, "large gets: wrong data after the flush", rank);

    MPI_Datatype every_other;
    MPI_Type_vector(BIG_INTS / 4, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Get(got, BIG_INTS / 4, MPI_INT, next, 0, 1, every_other, win);
    MPI_Win_flush(next, win);
    wrong = 0;
    for (int i = 0; i < BIG_INTS / 4; i++)
        wrong += got[i] != big_value(next, 2 * i);
    check(wrong == 0, "large gets: wrong data from a strided target", rank);
    for (int i = 0; i < 2 * BIG_INTS; i++)
        got[i] = -1;
    MPI_Get(got, 1, every_other, next, 0, BIG_INTS / 4, MPI_INT, win);
    MPI_Win_flush(next, win);
    wrong = 0;
    for (int i = 0; i < BIG_INTS / 2; i++)
        wrong += got[i] != (i % 2 ? -1 : big_value(next, i / 2));
    check(wrong == 0, "large gets: wrong data into a strided origin", rank);
    MPI_Type_free(&every_other);
    MPI_Win_unlock_all(win);
    free(got);
    MPI_Win_free(&win);
}

/* On a dynamic window: a large get from outside the attached region,
 * between two good ones; each good one brings its own data. */
static void large_gets_dynamic(int rank, int size)
{
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int *mem = malloc(BIG_INTS * sizeof(int));
    for (int i = 0; i < BIG_INTS; i++)
        mem[i] = big_value(rank, i);
    MPI_Win_attach(win, mem, BIG_INTS * sizeof(int));
    MPI_Aint mine, base;
    MPI_Get_address(mem, &mine);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Sendrecv(&mine, 1, MPI_AINT, prev, 0, &base, 1, MPI_AINT, next, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int *first = malloc(PIECE_INTS * sizeof(int)), *bad = malloc(PIECE_INTS * sizeof(int)),
        *last = malloc(PIECE_INTS * sizeof(int));
    MPI_Win_lock_all(0, win);
    int rc1 = MPI_Get(first, PIECE_INTS, MPI_INT, next, base, PIECE_INTS, MPI_INT, win);
    int outside = MPI_Get(bad, PIECE_INTS, MPI_INT, next,
                          MPI_Aint_add(base, BIG_INTS * (MPI_Aint)sizeof(int) + 4096), PIECE_INTS,
                          MPI_INT, win);
    int rc2 = MPI_Get(last, PIECE_INTS, MPI_INT, next,
                      MPI_Aint_add(base, (BIG_INTS - PIECE_INTS) * (MPI_Aint)sizeof(int)),
                      PIECE_INTS, MPI_INT, win);
    int flushed = MPI_Win_flush(next, win), klass = MPI_SUCCESS;
    if (outside != MPI_SUCCESS)
        MPI_Error_class(outside, &klass);
    else if (flushed != MPI_SUCCESS)
        MPI_Error_class(flushed, &klass);
    check(klass == MPI_ERR_RMA_RANGE, "dynamic window: a large get outside the region was not "
                                      "MPI_ERR_RMA_RANGE at the get or the flush", rank);
    check(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS, "dynamic window: a good large get failed",
          rank);
    MPI_Win_unlock_all(win);
    int wrong = 0;
    for (int i = 0; i < PIECE_INTS; i++)
        wrong += first[i] != big_value(next, i) ||
                 last[i] != big_value(next, BIG_INTS - PIECE_INTS + i);
    check(wrong == 0, "dynamic window: the good large gets around the bad one brought wrong data",
          rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    free(first);
    free(bad);
    free(last);
    free(mem);
}

/* A large get in a post-start-complete-wait epoch, then under an
 * exclusive lock: once MPI_Win_wait returns, or its own exclusive lock is
 * granted, the target's memory is its own again, and it changes it. */
static void large_get_then_change(int rank, int size)
{
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(BIG_INTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                     &win);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, wrong = 0;
    int *got = malloc(BIG_INTS * sizeof(int));
    MPI_Group world, to, from;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &next, &to);
    MPI_Group_incl(world, 1, &prev, &from);
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < BIG_INTS; i++)
            mem[i] = big_value(rank, i);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_post(from, 0, win);
        MPI_Win_start(to, 0, win);
        MPI_Get(got, BIG_INTS, MPI_INT, next, 0, BIG_INTS, MPI_INT, win);
        MPI_Win_complete(win);
        MPI_Win_wait(win);
        for (int i = 0; i < BIG_INTS; i++)
            mem[i] = -1;
        for (int i = 0; i < BIG_INTS; i++)
            wrong += got[i] != big_value(next, i);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    check(wrong == 0, "a large get in a post-start-complete-wait epoch saw the target's memory "
                      "changed after MPI_Win_wait", rank);
    wrong = 0;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < BIG_INTS; i++)
            mem[i] = big_value(rank, i);
        MPI_Barrier(MPI_COMM_WORLD);
        /* The token says next is locked by this rank: next's own lock
         * waits for this rank's unlock. */
        int token = 0;
        MPI_Request sent;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win);
        MPI_Isend(&token, 1, MPI_INT, next, round, MPI_COMM_WORLD, &sent);
        MPI_Get(got, BIG_INTS, MPI_INT, next, 0, BIG_INTS, MPI_INT, win);
        MPI_Win_unlock(next, win);
        MPI_Recv(&token, 1, MPI_INT, prev, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
        for (int i = 0; i < BIG_INTS; i++)
            mem[i] = -1;
        MPI_Win_unlock(rank, win);
        MPI_Wait(&sent, MPI_STATUS_IGNORE);
        for (int i = 0; i < BIG_INTS; i++)
            wrong += got[i] != big_value(next, i);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    check(wrong == 0, "a large get under an exclusive lock saw the target's memory changed "
                      "after the unlock", rank);
    MPI_Group_free(&world);
    MPI_Group_free(&to);
    MPI_Group_free(&from);
    free(got);
    MPI_Win_free(&win);
}

#define TOLD_ROUNDS 300
#define TOLD_INTS 1024 /* 4 KiB a put: a message of its own */

static void flush_local_then_tell(int rank, int size)
{
    int *mem, *data = malloc(TOLD_INTS * sizeof(int));
    MPI_Win win;
    MPI_Win_allocate(TOLD_INTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                     &win);
    for (int i = 0; i < TOLD_INTS; i++)
        mem[i] = -1;
    MPI_Barrier(MPI_COMM_WORLD);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, stale = 0;
    MPI_Win_lock_all(0, win);
    for (int round = 0; round < TOLD_ROUNDS; round++) {
        for (int i = 0; i < TOLD_INTS; i++)
            data[i] = round;
        MPI_Put(data, TOLD_INTS, MPI_INT, next, 0, TOLD_INTS, MPI_INT, win);
        MPI_Win_flush_local(next, win);
        MPI_Sendrecv_replace(&round, 0, MPI_INT, next, 7, prev, 7, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
        MPI_Win_sync(win);
        stale += mem[0] != round || mem[TOLD_INTS - 1] != round;
        MPI_Barrier(MPI_COMM_WORLD); /* the next round's put comes after this look */
    }
    MPI_Win_unlock_all(win);
    check(stale == 0, "flush_local: a put's data was not there when the origin said so", rank);
    free(data);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    many_puts(rank, size);
    ordered_accumulates(rank, size);
    request_gets(rank, size);
    medium_operations(rank, size);
    range_error_in_bundle(rank, size);
    large_gets_allocated(rank, size);
    large_gets_dynamic(rank, size);
    large_get_then_change(rank, size);
    flush_local_then_tell(rank, size);
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("rma_messages: %d ranks OK\n", size);
    MPI_Finalize();
    return all != 0;
}
