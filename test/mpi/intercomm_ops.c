/* intercomm_ops: MPI_Comm_split and MPI_Comm_create on an
 * intercommunicator, and MPI_Intercomm_create refusing one as local_comm.
 *
 * The world is split into a low half (group A) and a high half (group B)
 * joined by an intercommunicator. Splitting it by color = rank % 2 must
 * give, for each color, the A members of that color facing the B members
 * of that color, ordered by key (reversed rank). Creating it with "every
 * other member" groups must give those subgroups facing each other. Every
 * result is checked by sizes and by a message exchanged across it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int world_rank, world_size;

static void die(const char *what, int got, int want)
{
    fprintf(stderr, "intercomm_ops: rank %d: %s is %d, expected %d\n", world_rank, what, got, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void expect(const char *what, int got, int want)
{
    if (got != want)
        die(what, got, want);
}

/* Members of [first, first + n) with rank % 2 == color. */
static int count_color(int first, int n, int color)
{
    int c = 0;
    for (int r = first; r < first + n; r++)
        c += r % 2 == color;
    return c;
}

/* Local rank 0 of each side swaps world ranks across the intercommunicator;
 * returns the world rank of the other side's rank 0. */
static int swap_leaders(MPI_Comm inter)
{
    int rank, other = -1;
    MPI_Comm_rank(inter, &rank);
    if (rank == 0)
        MPI_Sendrecv(&world_rank, 1, MPI_INT, 0, 7, &other, 1, MPI_INT, 0, 7, inter,
                     MPI_STATUS_IGNORE);
    return other;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size < 2) {
        printf("intercomm_ops: needs 2 ranks or more\n");
        MPI_Finalize();
        return 77;
    }
    int half = world_size / 2, in_a = world_rank < half;
    int a_size = half, b_size = world_size - half;
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, in_a, world_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? half : 0, 3, &inter);

    /* Split by parity, keys reversing the order. */
    MPI_Comm split;
    int color = world_rank % 2;
    MPI_Comm_split(inter, color, -world_rank, &split);
    int my_count = in_a ? count_color(0, a_size, color) : count_color(half, b_size, color);
    int other_count = in_a ? count_color(half, b_size, color) : count_color(0, a_size, color);
    if (other_count == 0) {
        if (split != MPI_COMM_NULL)
            die("a split with an empty remote side (MPI_COMM_NULL is 1)", 0, 1);
    } else {
        int size, rsize, rank, flag;
        MPI_Comm_test_inter(split, &flag);
        expect("test_inter of the split", flag, 1);
        MPI_Comm_size(split, &size);
        MPI_Comm_remote_size(split, &rsize);
        MPI_Comm_rank(split, &rank);
        expect("local size of the split", size, my_count);
        expect("remote size of the split", rsize, other_count);
        int higher = 0; /* key -world_rank: the highest world rank comes first */
        for (int r = in_a ? 0 : half; r < (in_a ? half : world_size); r++)
            higher += r % 2 == color && r > world_rank;
        expect("rank in the split (keys reversed)", rank, higher);
        int other = swap_leaders(split);
        if (rank == 0) {
            int first = -1; /* the other side's highest rank of this color */
            for (int r = in_a ? half : 0; r < (in_a ? world_size : half); r++)
                if (r % 2 == color)
                    first = r;
            expect("world rank of the other side's leader", other, first);
        }
        MPI_Comm_free(&split);
    }

    /* Create with every other member of each side. */
    MPI_Group group, sub;
    MPI_Comm_group(inter, &group);
    int n = 0, ranks[64];
    int lsize;
    MPI_Comm_size(inter, &lsize);
    for (int r = 0; r < lsize && n < 64; r += 2)
        ranks[n++] = r;
    MPI_Group_incl(group, n, ranks, &sub);
    MPI_Comm created;
    MPI_Comm_create(inter, sub, &created);
    int lrank;
    MPI_Comm_rank(inter, &lrank);
    if (lrank % 2) {
        if (created != MPI_COMM_NULL)
            die("Comm_create result of a non-member (MPI_COMM_NULL is 1)", 0, 1);
    } else {
        int rsize;
        MPI_Comm_remote_size(created, &rsize);
        int other_side = in_a ? b_size : a_size;
        expect("remote size of the created intercommunicator", rsize, (other_side + 1) / 2);
        int other = swap_leaders(created);
        if (lrank == 0)
            expect("world rank of the created's other leader", other, in_a ? half : 0);
        MPI_Comm_free(&created);
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&group);

    /* An intercommunicator cannot be local_comm. */
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    MPI_Comm bad;
    int rc = MPI_Intercomm_create(inter, 0, MPI_COMM_WORLD, 0, 9, &bad);
    int cls;
    MPI_Error_class(rc, &cls);
    expect("the error class of Intercomm_create on an intercommunicator", cls, MPI_ERR_COMM);

    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    if (world_rank == 0)
        printf("intercomm_ops: %d ranks OK\n", world_size);
    MPI_Finalize();
    return 0;
}
