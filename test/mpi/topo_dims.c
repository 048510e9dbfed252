/* topo_dims: MPI_Dims_create. The standard's examples ((6,2) -> (3,2),
 * (7,2) -> (7,1), (6,3) with (0,3,0) -> (2,3,1), (7,3) with (0,3,0) ->
 * MPI_ERR_DIMS), balanced splits (dims as close to each other as possible,
 * non-increasing), fixed entries kept, the empty grid, and the errors:
 * nnodes not a multiple of the fixed entries, fixed entries that do not
 * multiply to nnodes, negative entries, negative ndims. Local: every rank
 * checks the same table. */
#include "topo_util.h"

#include <stdio.h>
#include <string.h>

enum { MAXD = 6 };

typedef struct {
    int nnodes, ndims;
    int in[MAXD];
    int out[MAXD]; /* expected dims; ignored when err is set */
    int err;       /* expected error class, or MPI_SUCCESS */
} dims_case_t;

static const dims_case_t cases[] = {
    /* the standard's examples */
    {6, 2, {0, 0}, {3, 2}, MPI_SUCCESS},
    {7, 2, {0, 0}, {7, 1}, MPI_SUCCESS},
    {6, 3, {0, 3, 0}, {2, 3, 1}, MPI_SUCCESS},
    {7, 3, {0, 3, 0}, {0}, MPI_ERR_DIMS},
    /* balanced, non-increasing */
    {1, 3, {0, 0, 0}, {1, 1, 1}, MPI_SUCCESS},
    {8, 3, {0, 0, 0}, {2, 2, 2}, MPI_SUCCESS},
    {12, 2, {0, 0}, {4, 3}, MPI_SUCCESS},
    {16, 3, {0, 0, 0}, {4, 2, 2}, MPI_SUCCESS},
    {30, 2, {0, 0}, {6, 5}, MPI_SUCCESS},
    {36, 3, {0, 0, 0}, {4, 3, 3}, MPI_SUCCESS},
    {64, 4, {0, 0, 0, 0}, {4, 4, 2, 2}, MPI_SUCCESS},
    {120, 3, {0, 0, 0}, {6, 5, 4}, MPI_SUCCESS},
    {210, 4, {0, 0, 0, 0}, {7, 5, 3, 2}, MPI_SUCCESS},
    {1024, 3, {0, 0, 0}, {16, 8, 8}, MPI_SUCCESS},
    /* ties of spread go to the larger smallest factor, then the next (as MPICH) */
    {5040, 3, {0, 0, 0}, {21, 16, 15}, MPI_SUCCESS},
    {5616, 4, {0, 0, 0, 0}, {13, 9, 8, 6}, MPI_SUCCESS},
    {2 * 3 * 5 * 7 * 11 * 13, 2, {0, 0}, {182, 165}, MPI_SUCCESS},
    {97, 3, {0, 0, 0}, {97, 1, 1}, MPI_SUCCESS},
    {1 << 30, 2, {0, 0}, {1 << 15, 1 << 15}, MPI_SUCCESS},
    {2147483647, 2, {0, 0}, {2147483647, 1}, MPI_SUCCESS},
    {5, 6, {0, 0, 0, 0, 0, 0}, {5, 1, 1, 1, 1, 1}, MPI_SUCCESS},
    {7, 1, {0}, {7}, MPI_SUCCESS},
    /* fixed entries kept, the free ones balanced over the rest */
    {8, 3, {2, 0, 0}, {2, 2, 2}, MPI_SUCCESS},
    {24, 3, {0, 0, 2}, {4, 3, 2}, MPI_SUCCESS},
    {24, 3, {0, 1, 0}, {6, 1, 4}, MPI_SUCCESS},
    {6, 2, {3, 2}, {3, 2}, MPI_SUCCESS},
    {6, 2, {2, 3}, {2, 3}, MPI_SUCCESS},
    /* the empty grid holds one process */
    {1, 0, {0}, {0}, MPI_SUCCESS},
    /* errors */
    {2, 0, {0}, {0}, MPI_ERR_DIMS},
    {6, 2, {3, 3}, {0}, MPI_ERR_DIMS},
    {6, 2, {4, 0}, {0}, MPI_ERR_DIMS},
    {6, 2, {12, 0}, {0}, MPI_ERR_DIMS},
    {6, 2, {-1, 0}, {0}, MPI_ERR_DIMS},
    {6, -1, {0}, {0}, MPI_ERR_DIMS},
};

static void run_case(const dims_case_t *c)
{
    int dims[MAXD];

    memcpy(dims, c->in, sizeof(dims));
    int rc = MPI_Dims_create(c->nnodes, c->ndims, dims);
    char what[128];
    snprintf(what, sizeof(what), "Dims_create(%d, %d)", c->nnodes, c->ndims);
    tu_expect_class(rc, c->err, what);
    if (c->err != MPI_SUCCESS)
        return;
    for (int i = 0; i < c->ndims; i++)
        TU_CHECK(dims[i] == c->out[i], "%s: dims[%d] = %d, expected %d", what, i, dims[i],
                 c->out[i]);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "topo_dims");
    /* Dims_create has no communicator: its errors go to MPI_COMM_SELF's
     * handler (MPI_COMM_WORLD's in some implementations). */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        run_case(&cases[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (tu_rank == 0)
        printf("topo_dims: %d ranks OK\n", tu_size);
    MPI_Finalize();
    return 0;
}
