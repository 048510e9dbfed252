/* topo_cart: Cartesian topologies, checked against the row-major layout the
 * standard defines (the last dimension varies fastest).
 *
 * 1. For 1, 2 and 3 dimensions (dims from MPI_Dims_create over all ranks)
 *    and three period patterns (none, all, alternating): MPI_Topo_test,
 *    MPI_Cartdim_get, MPI_Cart_get, MPI_Cart_coords / MPI_Cart_rank round
 *    trips for every rank, MPI_Cart_rank of coordinates moved by whole
 *    periods, and MPI_Cart_shift along every dimension with displacements
 *    -2*d-1 .. 2*d+1 (MPI_PROC_NULL past non-periodic edges) compared with
 *    the neighbour computed here; then a message to the +1 neighbour of
 *    each dimension arrives from the -1 neighbour.
 * 2. A grid smaller than the job: the processes beyond it get
 *    MPI_COMM_NULL, MPI_Cart_map says MPI_UNDEFINED for them.
 * 3. MPI_Cart_sub of a 2-D grid into rows and columns, of a 3-D grid
 *    keeping dimensions 0 and 2, and keeping none: sizes, ranks (the
 *    row-major order of the kept coordinates), dims and periods.
 * 4. MPI_Comm_dup keeps the topology. */
#include "topo_util.h"

#include <stdio.h>
#include <stdlib.h>

enum { MAXD = 3 };

/* The coordinates of rank r in a grid of dims, row-major. */
static void coords_of(int r, int ndims, const int *dims, int *coords)
{
    for (int i = ndims - 1; i >= 0; i--) {
        coords[i] = r % dims[i];
        r /= dims[i];
    }
}

static int rank_of(int ndims, const int *dims, const int *coords)
{
    int r = 0;

    for (int i = 0; i < ndims; i++)
        r = r * dims[i] + coords[i];
    return r;
}

/* The expected neighbour of rank r at displacement disp along dimension d. */
static int expected_neighbor(int r, int ndims, const int *dims, const int *periods, int d,
                             int disp)
{
    int c[MAXD];

    coords_of(r, ndims, dims, c);
    c[d] += disp;
    if (c[d] < 0 || c[d] >= dims[d]) {
        if (!periods[d])
            return MPI_PROC_NULL;
        c[d] = ((c[d] % dims[d]) + dims[d]) % dims[d];
    }
    return rank_of(ndims, dims, c);
}

static void check_get(MPI_Comm cart, int ndims, const int *dims, const int *periods, int rank)
{
    int status, nd, gd[MAXD], gp[MAXD], gc[MAXD], c[MAXD];

    MPI_Topo_test(cart, &status);
    TU_CHECK(status == MPI_CART, "Topo_test says %d, expected MPI_CART", status);
    MPI_Cartdim_get(cart, &nd);
    TU_CHECK(nd == ndims, "Cartdim_get says %d, expected %d", nd, ndims);
    MPI_Cart_get(cart, MAXD, gd, gp, gc);
    coords_of(rank, ndims, dims, c);
    for (int i = 0; i < ndims; i++)
        TU_CHECK(gd[i] == dims[i] && gp[i] == (periods[i] != 0) && gc[i] == c[i],
                 "Cart_get dimension %d: dims %d periods %d coords %d, expected %d %d %d", i,
                 gd[i], gp[i], gc[i], dims[i], periods[i] != 0, c[i]);
}

static void check_round_trips(MPI_Comm cart, int ndims, const int *dims, const int *periods,
                              int size)
{
    for (int r = 0; r < size; r++) {
        int c[MAXD], expect[MAXD], back;

        MPI_Cart_coords(cart, r, MAXD, c);
        coords_of(r, ndims, dims, expect);
        for (int i = 0; i < ndims; i++)
            TU_CHECK(c[i] == expect[i], "Cart_coords(%d)[%d] = %d, expected %d", r, i, c[i],
                     expect[i]);
        MPI_Cart_rank(cart, c, &back);
        TU_CHECK(back == r, "Cart_rank(Cart_coords(%d)) = %d", r, back);
        /* Whole periods away on the periodic dimensions: the same rank. */
        for (int i = 0; i < ndims; i++)
            if (periods[i])
                c[i] += (r % 2 ? -3 : 2) * dims[i];
        MPI_Cart_rank(cart, c, &back);
        TU_CHECK(back == r, "Cart_rank of rank %d's coordinates moved by periods = %d", r,
                 back);
    }
}

static void check_shifts(MPI_Comm cart, int ndims, const int *dims, const int *periods,
                         int rank)
{
    for (int d = 0; d < ndims; d++) {
        for (int disp = -2 * dims[d] - 1; disp <= 2 * dims[d] + 1; disp++) {
            int src, dst;
            int esrc = expected_neighbor(rank, ndims, dims, periods, d, -disp);
            int edst = expected_neighbor(rank, ndims, dims, periods, d, disp);

            MPI_Cart_shift(cart, d, disp, &src, &dst);
            TU_CHECK(src == esrc && dst == edst,
                     "Cart_shift(direction %d, disp %d): source %d dest %d, expected %d %d", d,
                     disp, src, dst, esrc, edst);
        }
    }
}

/* A message to the +1 neighbour of each dimension comes from the -1 one. */
static void check_traffic(MPI_Comm cart, int ndims, int rank)
{
    for (int d = 0; d < ndims; d++) {
        int src, dst, got = -1;
        MPI_Status st;

        MPI_Cart_shift(cart, d, 1, &src, &dst);
        MPI_Sendrecv(&rank, 1, MPI_INT, dst, d, &got, 1, MPI_INT, src, d, cart, &st);
        if (src != MPI_PROC_NULL)
            TU_CHECK(got == src && st.MPI_SOURCE == src,
                     "dimension %d: got %d from %d, expected a message from %d", d, got,
                     st.MPI_SOURCE, src);
    }
}

static void full_grids(void)
{
    for (int ndims = 1; ndims <= MAXD; ndims++) {
        for (int pattern = 0; pattern < 3; pattern++) {
            int dims[MAXD] = {0, 0, 0}, periods[MAXD], rank, size;
            MPI_Comm cart;

            MPI_Dims_create(tu_size, ndims, dims);
            for (int i = 0; i < ndims; i++)
                periods[i] = pattern == 0 ? 0 : pattern == 1 ? 1 : i % 2 == 0;
            MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart);
            TU_CHECK(cart != MPI_COMM_NULL, "Cart_create of all ranks gave MPI_COMM_NULL");
            MPI_Comm_rank(cart, &rank);
            MPI_Comm_size(cart, &size);
            TU_CHECK(rank == tu_rank && size == tu_size,
                     "the grid has rank %d of %d, expected %d of %d", rank, size, tu_rank,
                     tu_size);
            check_get(cart, ndims, dims, periods, rank);
            check_round_trips(cart, ndims, dims, periods, size);
            check_shifts(cart, ndims, dims, periods, rank);
            check_traffic(cart, ndims, rank);
            MPI_Comm_free(&cart);
        }
    }
}

static void smaller_grid(void)
{
    int n = tu_size > 1 ? tu_size - 1 : 1, periods = 1, newrank;
    MPI_Comm cart;

    MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &periods, 1, &cart);
    MPI_Cart_map(MPI_COMM_WORLD, 1, &n, &periods, &newrank);
    if (tu_rank >= n) {
        TU_CHECK(cart == MPI_COMM_NULL, "rank %d is beyond a grid of %d but got a comm",
                 tu_rank, n);
        TU_CHECK(newrank == MPI_UNDEFINED, "Cart_map gave %d beyond the grid", newrank);
        return;
    }
    TU_CHECK(cart != MPI_COMM_NULL, "rank %d of a grid of %d got MPI_COMM_NULL", tu_rank, n);
    TU_CHECK(newrank == tu_rank, "Cart_map gave %d, expected %d", newrank, tu_rank);
    check_get(cart, 1, &n, &periods, tu_rank);
    check_shifts(cart, 1, &n, &periods, tu_rank);
    check_traffic(cart, 1, tu_rank);
    MPI_Comm_free(&cart);
}

/* Checks the subgrid of keep[] of a grid of dims made from all ranks. */
static void check_sub(int ndims, const int *dims, const int *periods, const int *keep)
{
    int c[MAXD], kdims[MAXD], kperiods[MAXD], kc[MAXD], kept = 0, rank, size, nd;
    MPI_Comm cart, sub;

    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart);
    MPI_Cart_sub(cart, keep, &sub);
    coords_of(tu_rank, ndims, dims, c);
    for (int i = 0; i < ndims; i++) {
        if (keep[i]) {
            kdims[kept] = dims[i];
            kperiods[kept] = periods[i];
            kc[kept++] = c[i];
        }
    }
    int expect_size = 1;
    for (int i = 0; i < kept; i++)
        expect_size *= kdims[i];
    MPI_Comm_rank(sub, &rank);
    MPI_Comm_size(sub, &size);
    TU_CHECK(size == expect_size && rank == rank_of(kept, kdims, kc),
             "Cart_sub keeping %d dims: rank %d of %d, expected %d of %d", kept, rank, size,
             rank_of(kept, kdims, kc), expect_size);
    MPI_Cartdim_get(sub, &nd);
    TU_CHECK(nd == kept, "Cart_sub: Cartdim_get says %d, expected %d", nd, kept);
    check_get(sub, kept, kdims, kperiods, rank);
    check_shifts(sub, kept, kdims, kperiods, rank);
    check_traffic(sub, kept, rank);
    /* The processes of my subgrid are those sharing my dropped coordinates. */
    for (int r = 0; r < size; r++) {
        int w, wc[MAXD];
        MPI_Group g, world;

        MPI_Comm_group(sub, &g);
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_translate_ranks(g, 1, &r, world, &w);
        MPI_Group_free(&g);
        MPI_Group_free(&world);
        coords_of(w, ndims, dims, wc);
        for (int i = 0; i < ndims; i++)
            TU_CHECK(keep[i] || wc[i] == c[i],
                     "Cart_sub: world rank %d in my subgrid differs in dropped dimension %d", w,
                     i);
    }
    MPI_Comm_free(&sub);
    MPI_Comm_free(&cart);
}

static void subgrids(void)
{
    int dims2[2] = {0, 0}, periods2[2] = {1, 0};
    int dims3[3] = {0, 0, 0}, periods3[3] = {0, 1, 1};
    int rows[2] = {0, 1}, cols[2] = {1, 0}, none[2] = {0, 0}, outer[3] = {1, 0, 1};

    MPI_Dims_create(tu_size, 2, dims2);
    MPI_Dims_create(tu_size, 3, dims3);
    check_sub(2, dims2, periods2, rows);
    check_sub(2, dims2, periods2, cols);
    check_sub(2, dims2, periods2, none);
    check_sub(3, dims3, periods3, outer);
}

static void dup_keeps_topology(void)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    MPI_Comm cart, copy;

    MPI_Dims_create(tu_size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_dup(cart, &copy);
    MPI_Comm_free(&cart);
    check_get(copy, 2, dims, periods, tu_rank);
    check_shifts(copy, 2, dims, periods, tu_rank);
    check_traffic(copy, 2, tu_rank);
    MPI_Comm_free(&copy);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "topo_cart");
    full_grids();
    smaller_grid();
    subgrids();
    dup_keeps_topology();
    MPI_Barrier(MPI_COMM_WORLD);
    if (tu_rank == 0)
        printf("topo_cart: %d ranks OK\n", tu_size);
    MPI_Finalize();
    return 0;
}
