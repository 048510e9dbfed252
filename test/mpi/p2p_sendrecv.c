/* p2p_sendrecv: MPI_Sendrecv, MPI_Sendrecv_replace, MPI_Isendrecv and
 * MPI_Isendrecv_replace, with 1 and 100000 ints (eager and rendezvous).
 *
 * 1. Round the ring: each rank sends right and receives from the left in
 *    one call; data and status checked.
 * 2. Along a chain (the ring cut between the last rank and rank 0): the
 *    ends send to or receive from MPI_PROC_NULL, whose receive leaves the
 *    buffer untouched with the status of MPI_PROC_NULL (and, for the replace forms,
 *    the buffer keeps the rank's own data).
 * 3. Each rank with itself as both destination and source.
 * 4. Along the chain with counts growing by one from rank to rank: each
 *    rank receives one element less than its buffer holds; the last
 *    element stays as it was (for the replace forms, the rank's own data). */
#include "p2p_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum call { SENDRECV, REPLACE, ISENDRECV, IREPLACE, NCALLS };

static const char *const call_name[NCALLS] = {"MPI_Sendrecv", "MPI_Sendrecv_replace",
                                              "MPI_Isendrecv", "MPI_Isendrecv_replace"};
static const int counts[] = {1, 100000};
enum { MAXCOUNT = 100000 + 8, SENDTAG_BASE = 100 }; /* room for a count + rank */

static int *sendbuf, *recvbuf;

static unsigned seed_of(int src, enum call c, int count)
{
    return (unsigned)src * 1009u + (unsigned)c * 101u + (unsigned)count;
}

/* One call of kind c: send count ints to dest, receive from source; for the
 * replace forms the data goes through recvbuf alone. */
static void run_call(enum call c, int count, int dest, int source, int tag, MPI_Status *st)
{
    MPI_Request req;
    int rc;

    switch (c) {
    case SENDRECV:
        rc = MPI_Sendrecv(sendbuf, count, MPI_INT, dest, tag, recvbuf, count, MPI_INT, source,
                          tag, MPI_COMM_WORLD, st);
        break;
    case REPLACE:
        rc = MPI_Sendrecv_replace(recvbuf, count, MPI_INT, dest, tag, source, tag,
                                  MPI_COMM_WORLD, st);
        break;
    case ISENDRECV:
        rc = MPI_Isendrecv(sendbuf, count, MPI_INT, dest, tag, recvbuf, count, MPI_INT, source,
                           tag, MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, st);
        break;
    default:
        rc = MPI_Isendrecv_replace(recvbuf, count, MPI_INT, dest, tag, source, tag,
                                   MPI_COMM_WORLD, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, st);
        break;
    }
    p2p_check_ok(call_name[c], rc);
}

static int replaces(enum call c)
{
    return c == REPLACE || c == IREPLACE;
}

/* The bytes of recvbuf from `from` on must be as before the call: the
 * rank's own data for the replace forms, the 0x6B filling for the others. */
static void check_rest(const char *what, enum call c, int count, size_t from)
{
    size_t bytes = (size_t)count * sizeof(int);
    const unsigned char *got = (const unsigned char *)recvbuf;

    if (!replaces(c)) {
        p2p_check_fill(what, got + from, bytes - from, 0x6B);
        return;
    }
    for (size_t i = from; i < bytes; i++)
        if (got[i] != p2p_byte(seed_of(p2p_rank, c, count), i))
            p2p_die("%s: byte %zu of %zu, beyond what was received, is 0x%02x, expected the "
                    "rank's own 0x%02x",
                    what, i, bytes, got[i], p2p_byte(seed_of(p2p_rank, c, count), i));
}

/* Sends count ints to dest, receives up to count from source, which sends
 * source_count (either may be MPI_PROC_NULL). */
static void exchange(const char *how, enum call c, int count, int dest, int source,
                     int source_count)
{
    size_t bytes = (size_t)count * sizeof(int);
    int tag = SENDTAG_BASE + c;
    char what[160];
    MPI_Status st;

    snprintf(what, sizeof what, "%s of %d ints %s (to %d, from %d)", call_name[c], count, how,
             dest, source);
    p2p_fill(sendbuf, bytes, seed_of(p2p_rank, c, count));
    if (replaces(c))
        memcpy(recvbuf, sendbuf, bytes);
    else
        memset(recvbuf, 0x6B, bytes);
    run_call(c, count, dest, source, tag, &st);
    if (source == MPI_PROC_NULL) {
        p2p_check_proc_null(what, &st);
        check_rest(what, c, count, 0); /* nothing came */
        return;
    }
    p2p_check_status(what, &st, source, tag, MPI_INT, source_count);
    p2p_check_data(what, recvbuf, (size_t)source_count * sizeof(int),
                   seed_of(source, c, source_count));
    check_rest(what, c, count, (size_t)source_count * sizeof(int));
}

int main(int argc, char **argv)
{
    int left, right, chain_left, chain_right;

    p2p_init("p2p_sendrecv", &argc, &argv, MPI_THREAD_SINGLE);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    chain_left = p2p_rank == 0 ? MPI_PROC_NULL : left;
    chain_right = p2p_rank == p2p_size - 1 ? MPI_PROC_NULL : right;
    sendbuf = malloc(MAXCOUNT * sizeof(int));
    recvbuf = malloc(MAXCOUNT * sizeof(int));
    if (!sendbuf || !recvbuf)
        p2p_die("out of memory");

    for (int c = 0; c < NCALLS; c++)
        for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
            int n = counts[k];

            exchange("round the ring", c, n, right, left, n);
            exchange("along the chain", c, n, chain_right, chain_left, n);
            exchange("with itself", c, n, p2p_rank, p2p_rank, n);
            exchange("along the chain, one more int per rank", c, n + p2p_rank, chain_right,
                     chain_left, n + p2p_rank - 1);
        }
    free(sendbuf);
    free(recvbuf);
    p2p_finish();
    return 0;
}
