/* comm_idup: MPI_Comm_idup is nonblocking, and MPI_Comm_create_group calls
 * of changing subgroups do not mix.
 *
 * 1. Rank 0 receives a synchronous message from every other rank before it
 *    calls MPI_Comm_idup; the others call MPI_Comm_idup first and send
 *    after. A blocking agreement would deadlock here. The duplicate is
 *    congruent with MPI_COMM_WORLD and an allreduce on it is right.
 * 2. Four MPI_Comm_idup of MPI_COMM_WORLD in flight at once, between two
 *    MPI_Iallreduce on it, all completed by one MPI_Waitall: four distinct
 *    working communicators, and both sums right.
 * 3. The same as 1 on an intercommunicator (lower and upper half): each
 *    group's local rank 0 receives from its group before its idup; then
 *    messages cross the duplicate both ways.
 * 4. 50 rounds of MPI_Comm_create_group over a random subgroup (the same
 *    draw on every rank, tag 0), a barrier and an allreduce on it: ranks
 *    left out run ahead into the next round's creation.
 * 5. Even ranks call MPI_Comm_create_group over all ranks, then
 *    MPI_Comm_idup; odd ranks the other way round (MPICH's
 *    comm_create_group_idup): the idup's agreement, waiting for the even
 *    ranks, must not keep the create_group's from ending. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

enum { HELLO_TAG = 5, ROUNDS = 50 };

static int rank, size;

static void die(const char *fmt, int a, int b)
{
    fprintf(stderr, "comm_idup: rank %d: ", rank);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The sum of the ranks of comm, checked; and its relation to `like`. */
static void check_working(MPI_Comm comm, MPI_Comm like)
{
    int r, n, sum = 0, result;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    MPI_Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, comm);
    if (sum != n * (n - 1) / 2)
        die("an allreduce on a duplicate summed %d, expected %d", sum, n * (n - 1) / 2);
    MPI_Comm_compare(comm, like, &result);
    if (result != MPI_CONGRUENT)
        die("a duplicate compares as %d with its parent, expected %d", result, MPI_CONGRUENT);
}

/* Local rank 0 of comm hears from every other local rank, with a
 * synchronous send, before it calls MPI_Comm_idup of parent. */
static void late_leader(MPI_Comm comm, MPI_Comm parent, MPI_Comm *dup)
{
    int r, n, hello;
    MPI_Request req;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    if (r == 0) {
        for (int i = 1; i < n; i++) {
            MPI_Recv(&hello, 1, MPI_INT, i, HELLO_TAG, comm, MPI_STATUS_IGNORE);
            if (hello != i)
                die("local rank %d said %d", i, hello);
        }
        MPI_Comm_idup(parent, dup, &req);
    } else {
        MPI_Comm_idup(parent, dup, &req);
        MPI_Ssend(&r, 1, MPI_INT, 0, HELLO_TAG, comm);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void in_flight_together(void)
{
    MPI_Comm dups[4];
    MPI_Request reqs[6];
    int one = 1, before = 0, after = 0, result;
    MPI_Iallreduce(&one, &before, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
    for (int i = 0; i < 4; i++)
        MPI_Comm_idup(MPI_COMM_WORLD, &dups[i], &reqs[1 + i]);
    MPI_Iallreduce(&one, &after, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[5]);
    MPI_Waitall(6, reqs, MPI_STATUSES_IGNORE);
    if (before != size || after != size)
        die("allreduces around the idups summed %d and %d", before, after);
    for (int i = 0; i < 4; i++) {
        check_working(dups[i], MPI_COMM_WORLD);
        for (int j = 0; j < i; j++) {
            MPI_Comm_compare(dups[i], dups[j], &result);
            if (result != MPI_CONGRUENT)
                die("two duplicates compare as %d, expected %d", result, MPI_CONGRUENT);
        }
    }
    for (int i = 0; i < 4; i++)
        MPI_Comm_free(&dups[i]);
}

static void intercomm_dup(void)
{
    int lower = rank < size / 2;
    MPI_Comm half, inter, dup;
    MPI_Comm_split(MPI_COMM_WORLD, lower, rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, lower ? size / 2 : 0, 7, &inter);
    late_leader(half, inter, &dup);
    int r, remote_size, out, in;
    MPI_Comm_rank(dup, &r);
    MPI_Comm_remote_size(dup, &remote_size);
    out = rank;
    /* Local rank r sends its world rank to remote rank r % remote size, so
     * it hears from the remote ranks i with i % local size == r. */
    MPI_Request req;
    MPI_Isend(&out, 1, MPI_INT, r % remote_size, HELLO_TAG, dup, &req);
    int local_size;
    MPI_Comm_size(dup, &local_size);
    for (int i = 0; i < remote_size; i++) {
        if (i % local_size != r)
            continue;
        MPI_Recv(&in, 1, MPI_INT, i, HELLO_TAG, dup, MPI_STATUS_IGNORE);
        int from = lower ? size / 2 + i : i;
        if (in != from)
            die("received %d across the duplicate, expected %d", in, from);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

static void create_group_rounds(void)
{
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int *members = malloc(sizeof(int) * (size_t)size);
    for (int round = 0; round < ROUNDS; round++) {
        srand((unsigned)round); /* the same draw on every rank */
        int n = 0, in = 0;
        for (int i = 0; i < size; i++) {
            if (rand() % 2) {
                members[n++] = i;
                in |= i == rank;
            }
        }
        if (!in)
            continue;
        MPI_Group g;
        MPI_Comm c;
        MPI_Group_incl(world, n, members, &g);
        MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c);
        MPI_Barrier(c);
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
        if (sum != n)
            die("round %d: an allreduce over the subgroup summed %d", round, sum);
        MPI_Comm_free(&c);
        MPI_Group_free(&g);
    }
    free(members);
    MPI_Group_free(&world);
}

static void idup_beside_create_group(void)
{
    MPI_Group world;
    MPI_Comm grouped, dup;
    MPI_Request req;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    if (rank % 2 == 0) {
        MPI_Comm_create_group(MPI_COMM_WORLD, world, 0, &grouped);
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
        MPI_Comm_create_group(MPI_COMM_WORLD, world, 0, &grouped);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check_working(dup, MPI_COMM_WORLD);
    check_working(grouped, MPI_COMM_WORLD);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&grouped);
    MPI_Group_free(&world);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    MPI_Comm dup;
    late_leader(MPI_COMM_WORLD, MPI_COMM_WORLD, &dup);
    check_working(dup, MPI_COMM_WORLD);
    MPI_Comm_free(&dup);
    in_flight_together();
    if (size >= 2)
        intercomm_dup();
    create_group_rounds();
    idup_beside_create_group();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_idup: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
