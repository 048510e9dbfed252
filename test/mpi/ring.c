/* ring: passes a token round all ranks, LAPS times (argv[1], default 1000).
 *
 * Each rank checks the token it receives (the lap number, and the sum of the
 * ranks before it) and the status, adds its own rank and passes the token on;
 * rank 0 checks the full sum n(n-1)/2 after every lap. The tag changes every
 * lap so that a message matched against the wrong receive shows. Rank 0
 * prints the elapsed time: an oversubscribed run (8 ranks on 2 cores) whose
 * blocked ranks spin instead of sleeping shows up as a large time per hop.
 *
 * With one rank the neighbours are MPI_PROC_NULL: the sends and receives
 * complete at once and leave the token as it is. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Sent as two MPI_INTs. */
struct token {
    int lap;
    int sum;
};

static int rank, size;

static void die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "ring: rank %d of %d: ", rank, size);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Tags stay below 32767, the smallest MPI_TAG_UB the standard allows. */
static int lap_tag(int lap)
{
    return lap % 32000;
}

/* The sum of the ranks 0 .. n-1. */
static int sum_below(int n)
{
    return n * (n - 1) / 2;
}

static void check_token(const struct token *t, const MPI_Status *st, int lap, int from,
                        int want_sum)
{
    int count;
    int want_tag = from == MPI_PROC_NULL ? MPI_ANY_TAG : lap_tag(lap);
    int want_count = from == MPI_PROC_NULL ? 0 : 2;

    MPI_Get_count(st, MPI_INT, &count);
    if (st->MPI_SOURCE != from || st->MPI_TAG != want_tag || count != want_count)
        die("lap %d: status source %d tag %d count %d, expected %d, %d, %d", lap,
            st->MPI_SOURCE, st->MPI_TAG, count, from, want_tag, want_count);
    if (t->lap != lap || t->sum != want_sum)
        die("lap %d: token (lap %d, sum %d), expected (lap %d, sum %d)", lap, t->lap,
            t->sum, lap, want_sum);
}

/* Rank 0 starts each lap and checks the token when it comes back. */
static void lead_lap(int lap, int next, int prev)
{
    struct token t = {lap, 0};
    MPI_Status st;

    MPI_Send(&t, 2, MPI_INT, next, lap_tag(lap), MPI_COMM_WORLD);
    /* Poison the token so that a receive that writes nothing shows; with
     * MPI_PROC_NULL neighbours nothing is written by design. */
    if (prev != MPI_PROC_NULL)
        t = (struct token){-1, -1};
    MPI_Recv(&t, 2, MPI_INT, prev, lap_tag(lap), MPI_COMM_WORLD, &st);
    check_token(&t, &st, lap, prev, sum_below(size));
}

static void follow_lap(int lap, int next, int prev)
{
    struct token t = {-1, -1};
    MPI_Status st;

    MPI_Recv(&t, 2, MPI_INT, prev, lap_tag(lap), MPI_COMM_WORLD, &st);
    check_token(&t, &st, lap, prev, sum_below(rank));
    t.sum += rank;
    MPI_Send(&t, 2, MPI_INT, next, lap_tag(lap), MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int laps = argc > 1 ? atoi(argv[1]) : 1000;
    int next, prev;
    double start, elapsed;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (laps < 1)
        die("LAPS must be a positive number, got '%s'", argv[1]);
    next = size == 1 ? MPI_PROC_NULL : (rank + 1) % size;
    prev = size == 1 ? MPI_PROC_NULL : (rank + size - 1) % size;

    /* Start-up of the other ranks is not part of the time per hop. */
    MPI_Barrier(MPI_COMM_WORLD);
    start = MPI_Wtime();
    for (int lap = 0; lap < laps; lap++) {
        if (rank == 0)
            lead_lap(lap, next, prev);
        else
            follow_lap(lap, next, prev);
    }
    elapsed = MPI_Wtime() - start;

    if (rank == 0)
        printf("ring: %d ranks, %d laps OK in %.3f s (%.1f us per hop)\n", size, laps,
               elapsed, 1e6 * elapsed / ((double)laps * size));
    MPI_Finalize();
    return 0;
}
