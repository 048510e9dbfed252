/* rma_fence: data handed from one fence epoch to the next, hundreds of
 * times. Each rank's window holds ints x[0..4], BIG more and a PILE;
 * every round, each rank:
 *
 *   fence; stores x = {it + 1, -1, -1, -1, 2} in its own window;
 *   fence; multiplies the next rank's x[0] and x[4] by 3, its own x[1]
 *          and the BIG ints after x[4] of the next rank by 5 (MPI_PROD: no
 *          processor or UCX atomic does it, so the target handles it as a
 *          message between hosts, an origin sends one to itself, and a
 *          big one makes a fence of two processes wait for it to be
 *          handled) and puts it into the next rank's x[2];
 *   fence; gets the next rank's x[0], puts it + 5 into its x[3] and
 *          1000 + it into its x[4] (puts and gets may bypass the messages
 *          of the epoch before: they must not overtake them), and gets the
 *          last BIG int of the rank after next, which a third rank's
 *          product made (from 3 ranks: a fence must not let this rank's get
 *          in before the other origin's operations are done);
 *   fence; checks what it got and what arrived in its own window;
 *
 * then a few rounds of many accumulates and a get behind them (below).
 * The first argument, if any, is the number of rounds (default 300).
 *
 * rma_fence.sh says which path each run takes.
 *
 * Every value depends on the epoch before, so a fence that returns before
 * an operation of its epoch is done at the target, or lets one of the next
 * epoch in too early, gives a wrong number. Prints "rma_fence: N ranks OK
 * (R rounds)"; the first wrong value aborts the job with what was
 * expected. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

enum { DEFAULT_ROUNDS = 300, WORDS = 5, BIG = 40960, PILE = 8192, PILES = 200, PILE_ROUNDS = 5 };

static int rank;

static void expect(int got, int want, const char *what, int it)
{
    if (got == want)
        return;
    fprintf(stderr, "rma_fence: rank %d: round %d: %s is %d, expected %d\n", rank, it, what,
            got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void fence(int assert, MPI_Win win, int it)
{
    int rc = MPI_Win_fence(assert, win);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "rma_fence: rank %d: round %d: MPI_Win_fence returned %d\n", rank, it,
                rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Then PILES accumulates of PILE ints each from every rank to the next, a
 * fence, and a get of what they made. Rank 0 sleeps before its own, so
 * the accumulates of the rank before it wait; it handles them only once
 * it is in the fence, after its marker went out, so that rank's fence of
 * two can end first: its get must still see them all (through UCX it
 * waits for them, rma/ucx.c; without that wait it got 0 of 200). From 3
 * ranks, the rank two before rank 0 gets from it too: its fence must not
 * end before another origin's accumulates there are done. */
static void piled_accumulates(MPI_Win win, int *pile, int next, int far)
{
    static int ones[PILE];
    for (int i = 0; i < PILE; i++) {
        ones[i] = 1;
        pile[i] = 0;
    }
    for (int round = 1; round <= PILE_ROUNDS; round++) {
        fence(round == 1 ? MPI_MODE_NOPRECEDE : 0, win, round);
        if (rank == 0)
            usleep(20000);
        for (int i = 0; i < PILES; i++)
            MPI_Accumulate(ones, PILE, MPI_INT, next, WORDS + BIG, PILE, MPI_INT, MPI_SUM, win);
        fence(0, win, round);
        int got = -1, got_far = -1;
        MPI_Get(&got, 1, MPI_INT, next, WORDS + BIG + PILE - 1, 1, MPI_INT, win);
        MPI_Get(&got_far, 1, MPI_INT, far, WORDS + BIG + PILE - 1, 1, MPI_INT, win);
        fence(round == PILE_ROUNDS ? MPI_MODE_NOSUCCEED : 0, win, round);
        expect(got, PILES * round, "the next rank's last int got after its accumulates", round);
        expect(got_far, PILES * round,
               "the last int of the rank after next got after the accumulates of the rank "
               "before it", round);
    }
}

int main(int argc, char **argv)
{
    int size, *x;
    MPI_Win win;
    MPI_Init(&argc, &argv);
    int rounds = argc > 1 ? atoi(argv[1]) : DEFAULT_ROUNDS;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Win_allocate((WORDS + BIG + PILE) * sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &x, &win);
    int next = (rank + 1) % size, far = (rank + 2) % size, three = 3;
    static int fives[1 + BIG];
    for (int i = 0; i <= BIG; i++)
        fives[i] = 5;
    for (int it = 0; it < rounds; it++) {
        fence(it == 0 ? MPI_MODE_NOPRECEDE : 0, win, it);
        int stored[WORDS] = {it + 1, -1, -1, -1, 2};
        for (int i = 0; i < WORDS; i++)
            x[i] = stored[i];
        for (int i = WORDS; i < WORDS + BIG; i++)
            x[i] = it;

        fence(0, win, it);
        MPI_Accumulate(&three, 1, MPI_INT, next, 0, 1, MPI_INT, MPI_PROD, win);
        MPI_Accumulate(&three, 1, MPI_INT, next, 4, 1, MPI_INT, MPI_PROD, win);
        MPI_Accumulate(fives, 1, MPI_INT, rank, 1, 1, MPI_INT, MPI_PROD, win);
        MPI_Accumulate(fives + 1, BIG, MPI_INT, next, WORDS, BIG, MPI_INT, MPI_PROD, win);
        MPI_Put(&it, 1, MPI_INT, next, 2, 1, MPI_INT, win);

        fence(0, win, it);
        int got = -1, got_far = -1, plus5 = it + 5, late = 1000 + it;
        MPI_Get(&got, 1, MPI_INT, next, 0, 1, MPI_INT, win);
        MPI_Get(&got_far, 1, MPI_INT, far, WORDS + BIG - 1, 1, MPI_INT, win);
        MPI_Put(&plus5, 1, MPI_INT, next, 3, 1, MPI_INT, win);
        MPI_Put(&late, 1, MPI_INT, next, 4, 1, MPI_INT, win);

        fence(it == rounds - 1 ? MPI_MODE_NOSUCCEED : 0, win, it);
        expect(got, 3 * (it + 1), "the next rank's x[0] got after its product", it);
        expect(got_far, 5 * it, "the last int of the rank after next, got after the big "
               "product of the rank before it", it);
        expect(x[0], 3 * (it + 1), "x[0] after the previous rank's product", it);
        expect(x[1], -5, "x[1] after its own product", it);
        expect(x[2], it, "x[2] put by the previous rank", it);
        expect(x[WORDS + BIG - 1], 5 * it, "the last int after the previous rank's big product",
               it);
        expect(x[3], it + 5, "x[3] put by the previous rank", it);
        expect(x[4], 1000 + it, "x[4] put over the product of the epoch before", it);
    }
    piled_accumulates(win, x + WORDS + BIG, next, far);
    MPI_Win_free(&win);
    if (rank == 0)
        printf("rma_fence: %d ranks OK (%d rounds)\n", size, rounds);
    MPI_Finalize();
    return 0;
}
