/* group_large: group calls on groups of more members than ompi-lite scans
 * one by one (17 or more): each rank builds, from MPI_COMM_WORLD's group,
 * the reversed group, the even ranks, a shuffled permutation and a
 * consecutive run in the middle (MPI_Group_incl with arrays it knows), then
 * checks MPI_Group_translate_ranks between every pair of them (also with
 * MPI_PROC_NULL and ranks that are in one group only), MPI_Group_rank,
 * MPI_Group_compare, MPI_Group_intersection and MPI_Group_difference
 * against what the arrays say; then MPI_Comm_create over the shuffled group
 * must give each rank the rank the array gives it, shown by an allgather of
 * world ranks. Run on 20 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define KINDS 5

static int failures;

static void check(int ok, const char *what, int a, int b)
{
    if (!ok && failures++ < 10)
        printf("group_large: %s (%d, %d)\n", what, a, b);
}

/* The world ranks of group kind k, in group order; their count. */
static int members(int k, int size, int *world)
{
    int n = 0;
    for (int i = 0; i < size; i++) {
        switch (k) {
        case 0: world[n++] = i; break;                      /* the world's */
        case 1: world[n++] = size - 1 - i; break;           /* reversed */
        case 2: if (i % 2 == 0) world[n++] = i; break;      /* even ranks */
        case 3: world[n++] = (i * 7 + 3) % size; break;     /* shuffled (7 prime to size) */
        case 4: if (i >= 2 && i < size - 2) world[n++] = i; break; /* a run */
        }
    }
    return n;
}

/* Rank of world rank w in the array, or MPI_UNDEFINED. */
static int position(const int *world, int n, int w)
{
    for (int i = 0; i < n; i++)
        if (world[i] == w)
            return i;
    return MPI_UNDEFINED;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world_group, groups[KINDS];
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    int *world[KINDS], n[KINDS];
    for (int k = 0; k < KINDS; k++) {
        world[k] = malloc(sizeof(int) * (size_t)size);
        n[k] = members(k, size, world[k]);
        MPI_Group_incl(world_group, n[k], world[k], &groups[k]);
        int r;
        MPI_Group_rank(groups[k], &r);
        check(r == position(world[k], n[k], rank), "MPI_Group_rank", k, r);
    }
    int *in = malloc(sizeof(int) * (size_t)(size + 1)), *out = malloc(sizeof(int) * (size_t)(size + 1));
    for (int a = 0; a < KINDS; a++) {
        for (int b = 0; b < KINDS; b++) {
            for (int i = 0; i < n[a]; i++)
                in[i] = i;
            in[n[a]] = MPI_PROC_NULL;
            MPI_Group_translate_ranks(groups[a], n[a] + 1, in, groups[b], out);
            for (int i = 0; i < n[a]; i++)
                check(out[i] == position(world[b], n[b], world[a][i]),
                      "MPI_Group_translate_ranks", a * KINDS + b, i);
            check(out[n[a]] == MPI_PROC_NULL, "MPI_PROC_NULL not translated to itself", a, b);

            int same_set = n[a] == n[b], same_order = same_set, result;
            for (int i = 0; i < n[a] && same_set; i++) {
                same_set = position(world[b], n[b], world[a][i]) != MPI_UNDEFINED;
                same_order = same_order && world[a][i] == world[b][i];
            }
            MPI_Group_compare(groups[a], groups[b], &result);
            check(result == (same_order ? MPI_IDENT : same_set ? MPI_SIMILAR : MPI_UNEQUAL),
                  "MPI_Group_compare", a, b);

            MPI_Group both, only_a;
            int nboth, nonly;
            MPI_Group_intersection(groups[a], groups[b], &both);
            MPI_Group_difference(groups[a], groups[b], &only_a);
            MPI_Group_size(both, &nboth);
            MPI_Group_size(only_a, &nonly);
            int expect_both = 0;
            for (int i = 0; i < n[a]; i++)
                expect_both += position(world[b], n[b], world[a][i]) != MPI_UNDEFINED;
            check(nboth == expect_both && nonly == n[a] - expect_both,
                  "intersection or difference sizes", a, b);
            MPI_Group_free(&both);
            MPI_Group_free(&only_a);
        }
    }

    MPI_Comm shuffled;
    MPI_Comm_create(MPI_COMM_WORLD, groups[3], &shuffled);
    int *seen = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&rank, 1, MPI_INT, seen, 1, MPI_INT, shuffled);
    for (int i = 0; i < size; i++)
        check(seen[i] == world[3][i], "MPI_Comm_create: a rank in the wrong place", i, seen[i]);
    MPI_Comm_free(&shuffled);

    for (int k = 0; k < KINDS; k++) {
        MPI_Group_free(&groups[k]);
        free(world[k]);
    }
    MPI_Group_free(&world_group);
    free(in);
    free(out);
    free(seen);
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("group_large: %d ranks OK\n", size);
    MPI_Finalize();
    return all != 0;
}
