/* Subarray and distributed-array types, built from simpler constructors.
 *
 * Both select, in each dimension of a global array, a set of indices made
 * of equal blocks at a regular step (a subarray: one block; a BLOCK
 * distribution: one block; CYCLIC(b): blocks of b every psize * b, plus a
 * shorter last block). The type is built from the fastest dimension out:
 *   T_0 = oldtype, and for each dimension d, with row_d the bytes one index
 *   of d spans (oldtype's extent times the sizes of the faster dimensions),
 *   T_d+1 = struct { hvector(nblocks, block, step * row_d, R) at first * row_d,
 *                    last x R after the full blocks }
 *   where R is T_d resized to [0, row_d) (so that consecutive indices of d
 *   are row_d apart), or oldtype itself for the fastest dimension;
 * and the result is resized to [0, the whole array), as the standard says.
 * Typemap order is array order, as required: slower dimensions outside. */
#include "dt_internal.h"

#include <stdlib.h>

typedef struct dim_blocks {
    MPI_Count first;   /* index where the first block starts */
    MPI_Count block;   /* indices in each full block */
    MPI_Count nblocks; /* full blocks */
    MPI_Count step;    /* indices from one block's start to the next */
    MPI_Count last;    /* indices in a shorter block after the full ones */
} dim_blocks_t;

/* The indices of one dimension, as a type of R (one index every row bytes). */
static ol_status_t dimension_type(ol_datatype_t *r, const dim_blocks_t *d, MPI_Aint row,
                                  ol_datatype_t **out)
{
    ol_datatype_t *full;
    ol_status_t err = ol_dt_create_vector(d->nblocks, d->block, d->step * row, true, r, false,
                                          &full);
    if (err != MPI_SUCCESS)
        return err;
    ol_datatype_t *types[2] = {full, r};
    MPI_Count lengths[2] = {1, d->last};
    MPI_Count displacements[2] = {d->first * row, (d->first + d->nblocks * d->step) * row};
    err = ol_dt_create_struct(d->last ? 2 : 1, lengths, displacements, types, false, out);
    ol_dt_release(full);
    return err;
}

/* The type of the selected indices of an array of ndims dimensions; takes
 * a reference to each intermediate type only while it builds on it. */
static ol_status_t array_type(int ndims, const MPI_Count *sizes, const dim_blocks_t *dims,
                              int order, ol_datatype_t *oldtype, ol_datatype_t **out)
{
    ol_datatype_t *current = oldtype;
    ol_dt_retain(current);
    MPI_Aint row = oldtype->extent;
    ol_status_t err = MPI_SUCCESS;
    for (int k = 0; k < ndims && err == MPI_SUCCESS; k++) {
        int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
        ol_datatype_t *r = current, *next;
        if (k > 0)
            err = ol_dt_create_resized(current, 0, row, false, &r);
        if (err == MPI_SUCCESS) {
            err = dimension_type(r, &dims[d], row, &next);
            if (r != current)
                ol_dt_release(r);
        }
        ol_dt_release(current);
        current = err == MPI_SUCCESS ? next : NULL;
        row *= (MPI_Aint)sizes[d];
    }
    if (err != MPI_SUCCESS)
        return err;
    err = ol_dt_create_resized(current, 0, row, false, out);
    ol_dt_release(current);
    return err;
}

ol_status_t ol_dt_create_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                                  const MPI_Count *starts, int order, ol_datatype_t *oldtype,
                                  bool large, ol_datatype_t **newtype)
{
    dim_blocks_t *dims = malloc((size_t)ndims * sizeof(*dims));
    if (!dims)
        return MPI_ERR_NO_MEM;
    for (int d = 0; d < ndims; d++)
        dims[d] = (dim_blocks_t){.first = starts[d], .block = subsizes[d],
                                 .nblocks = subsizes[d] > 0};
    ol_datatype_t *inner;
    ol_status_t err = array_type(ndims, sizes, dims, order, oldtype, &inner);
    free(dims);
    if (err != MPI_SUCCESS)
        return err;
    ol_dt_array_args_t args = {.ndims = ndims, .order = order, .sizes = sizes,
                               .subsizes = subsizes, .starts = starts};
    return ol_dt_wrap_array_type(MPI_COMBINER_SUBARRAY, inner, oldtype, large, &args, newtype);
}

/* BLOCK: one block of ceil(gsize / psize) indices (or darg) per process. */
static dim_blocks_t block_distribution(MPI_Count gsize, int darg, int psize, int coord)
{
    MPI_Count block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
    MPI_Count first = coord * block;
    MPI_Count mine = gsize - first < block ? gsize - first : block;
    if (mine <= 0)
        return (dim_blocks_t){0};
    return (dim_blocks_t){.first = first, .block = mine, .nblocks = 1};
}

/* CYCLIC(b): blocks of b indices dealt to the processes in turn. */
static dim_blocks_t cyclic_distribution(MPI_Count gsize, int darg, int psize, int coord)
{
    MPI_Count block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    MPI_Count first = coord * block, cycle = (MPI_Count)psize * block;
    if (first >= gsize)
        return (dim_blocks_t){0};
    MPI_Count span = gsize - first;
    MPI_Count rest = span % cycle;
    MPI_Count mine = span / cycle * block + (rest < block ? rest : block);
    return (dim_blocks_t){.first = first, .block = block, .nblocks = mine / block,
                          .step = cycle, .last = mine % block};
}

/* This process's indices in each dimension; the process grid is row-major
 * whatever the array's order. */
static void darray_dimensions(int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                              const int *dargs, const int *psizes, dim_blocks_t *dims)
{
    for (int d = ndims - 1; d >= 0; d--) {
        int coord = rank % psizes[d];
        rank /= psizes[d];
        if (distribs[d] == MPI_DISTRIBUTE_BLOCK)
            dims[d] = block_distribution(gsizes[d], dargs[d], psizes[d], coord);
        else if (distribs[d] == MPI_DISTRIBUTE_CYCLIC)
            dims[d] = cyclic_distribution(gsizes[d], dargs[d], psizes[d], coord);
        else /* MPI_DISTRIBUTE_NONE: the whole dimension (psize is 1) */
            dims[d] = (dim_blocks_t){.block = gsizes[d], .nblocks = 1};
    }
}

ol_status_t ol_dt_create_darray(int size, int rank, int ndims, const MPI_Count *gsizes,
                                const int *distribs, const int *dargs, const int *psizes,
                                int order, ol_datatype_t *oldtype, bool large,
                                ol_datatype_t **newtype)
{
    dim_blocks_t *dims = malloc((size_t)ndims * sizeof(*dims));
    /* get_contents reports the int arrays too: widened copies for the envelope */
    MPI_Count *wide = malloc(3 * (size_t)ndims * sizeof(*wide));
    ol_datatype_t *inner = NULL;
    ol_status_t err = MPI_ERR_NO_MEM;
    if (dims && wide) {
        darray_dimensions(rank, ndims, gsizes, distribs, dargs, psizes, dims);
        err = array_type(ndims, gsizes, dims, order, oldtype, &inner);
    }
    if (err == MPI_SUCCESS) {
        for (int d = 0; d < ndims; d++) {
            wide[d] = distribs[d];
            wide[ndims + d] = dargs[d];
            wide[2 * ndims + d] = psizes[d];
        }
        ol_dt_array_args_t args = {.ndims = ndims, .size = size, .rank = rank, .order = order,
                                   .sizes = gsizes, .distribs = wide, .dargs = wide + ndims,
                                   .psizes = wide + 2 * ndims};
        err = ol_dt_wrap_array_type(MPI_COMBINER_DARRAY, inner, oldtype, large, &args, newtype);
    }
    free(wide);
    free(dims);
    return err;
}
