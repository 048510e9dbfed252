/* A datatype as a representation lays it out in the file (MPI-4.1 14.5):
 * every predefined element takes the representation's bytes of it, and
 * constructors that count in elements of their old type (contiguous,
 * vector, indexed, subarray, darray) scale with it, while displacements
 * the program gave in bytes (hvector, hindexed, struct, resized) stay as
 * given -- the standard has programs compute those with
 * MPI_File_get_type_extent. The twin is rebuilt from the type's envelope,
 * each predefined type replaced by that many bytes. */
#include "io_internal.h"

#include <stdlib.h>

/* The envelope's integer arguments: ints, or counts for a type made by a
 * large-count (_c) constructor, which records them there. */
typedef struct {
    const ol_dt_contents_t *c;
    bool large;
} args_t;

static MPI_Count arg(const args_t *a, int i)
{
    return a->large ? a->c->counts[i] : a->c->ints[i];
}

/* Byte displacements: addrs, or counts after the large form's integers. */
static MPI_Count byte_arg(const args_t *a, int i, int counts_before)
{
    return a->large ? a->c->counts[counts_before + i] : a->c->addrs[i];
}

static MPI_Count *widen(const args_t *a, int first, MPI_Count n)
{
    MPI_Count *out = malloc(((size_t)n + 1) * sizeof(MPI_Count));
    for (MPI_Count i = 0; out && i < n; i++)
        out[i] = arg(a, first + (int)i);
    return out;
}

static MPI_Count *widen_bytes(const args_t *a, int counts_before, MPI_Count n)
{
    MPI_Count *out = malloc(((size_t)n + 1) * sizeof(MPI_Count));
    for (MPI_Count i = 0; out && i < n; i++)
        out[i] = byte_arg(a, (int)i, counts_before);
    return out;
}

static ol_status_t named_twin(const ol_io_datarep_t *rep, const ol_datatype_t *dt,
                              ol_datatype_t **twin)
{
    MPI_Offset bytes = ol_io_datarep_bytes(rep, dt, 1);
    if (bytes < 0)
        return MPI_ERR_UNSUPPORTED_DATAREP;
    return ol_dt_create_contiguous(bytes, ol_dt_from_handle(MPI_BYTE), true, twin);
}

static ol_status_t indexed_twin(const args_t *a, bool bytes, bool block, ol_datatype_t *old,
                                ol_datatype_t **twin)
{
    MPI_Count n = arg(a, 0);
    MPI_Count *lengths = block ? NULL : widen(a, 1, n);
    int first_disp = block ? 2 : 1 + (int)n;
    MPI_Count *displs = bytes ? widen_bytes(a, first_disp, n) : widen(a, first_disp, n);
    ol_status_t rc = (!block && !lengths) || !displs
                         ? MPI_ERR_NO_MEM
                         : ol_dt_create_indexed(n, lengths, block ? arg(a, 1) : 0, displs, bytes,
                                                old, true, twin);
    free(lengths);
    free(displs);
    return rc;
}

static ol_status_t struct_twin(const args_t *a, ol_datatype_t *const *olds, ol_datatype_t **twin)
{
    MPI_Count n = arg(a, 0);
    MPI_Count *lengths = widen(a, 1, n), *displs = widen_bytes(a, 1 + (int)n, n);
    ol_status_t rc = !lengths || !displs
                         ? MPI_ERR_NO_MEM
                         : ol_dt_create_struct(n, lengths, displs, olds, true, twin);
    free(lengths);
    free(displs);
    return rc;
}

static ol_status_t subarray_twin(const args_t *a, ol_datatype_t *old, ol_datatype_t **twin)
{
    const ol_dt_contents_t *c = a->c;
    int n = c->ints[0];
    MPI_Count *dims = malloc(3 * ((size_t)n + 1) * sizeof(MPI_Count));
    if (!dims)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < 3 * n; i++)
        dims[i] = a->large ? c->counts[i] : c->ints[1 + i];
    int order = a->large ? c->ints[1] : c->ints[3 * n + 1];
    ol_status_t rc = ol_dt_create_subarray(n, dims, dims + n, dims + 2 * n, order, old, true,
                                           twin);
    free(dims);
    return rc;
}

static ol_status_t darray_twin(const args_t *a, ol_datatype_t *old, ol_datatype_t **twin)
{
    const ol_dt_contents_t *c = a->c;
    int n = c->ints[2];
    MPI_Count *gsizes = malloc(((size_t)n + 1) * sizeof(MPI_Count));
    if (!gsizes)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        gsizes[i] = a->large ? c->counts[i] : c->ints[3 + i];
    const int *rest = a->large ? c->ints + 3 : c->ints + 3 + n; /* distribs, dargs, psizes, order */
    ol_status_t rc = ol_dt_create_darray(c->ints[0], c->ints[1], n, gsizes, rest, rest + n,
                                         rest + 2 * n, rest[3 * n], old, true, twin);
    free(gsizes);
    return rc;
}

static ol_status_t build(const args_t *a, ol_datatype_t *const *olds, ol_datatype_t **twin)
{
    ol_datatype_t *old = olds[0];
    switch (a->c->combiner) {
    case MPI_COMBINER_DUP:
        return ol_dt_create_dup(old, twin);
    case MPI_COMBINER_CONTIGUOUS:
        return ol_dt_create_contiguous(arg(a, 0), old, true, twin);
    case MPI_COMBINER_VECTOR:
        return ol_dt_create_vector(arg(a, 0), arg(a, 1), arg(a, 2), false, old, true, twin);
    case MPI_COMBINER_HVECTOR:
        return ol_dt_create_vector(arg(a, 0), arg(a, 1), byte_arg(a, 0, 2), true, old, true,
                                   twin);
    case MPI_COMBINER_INDEXED:
        return indexed_twin(a, false, false, old, twin);
    case MPI_COMBINER_HINDEXED:
        return indexed_twin(a, true, false, old, twin);
    case MPI_COMBINER_INDEXED_BLOCK:
        return indexed_twin(a, false, true, old, twin);
    case MPI_COMBINER_HINDEXED_BLOCK:
        return indexed_twin(a, true, true, old, twin);
    case MPI_COMBINER_STRUCT:
        return struct_twin(a, olds, twin);
    case MPI_COMBINER_SUBARRAY:
        return subarray_twin(a, old, twin);
    case MPI_COMBINER_DARRAY:
        return darray_twin(a, old, twin);
    case MPI_COMBINER_RESIZED:
        return ol_dt_create_resized(old, a->large ? a->c->counts[0] : a->c->addrs[0],
                                    a->large ? a->c->counts[1] : a->c->addrs[1], true, twin);
    default:
        ol_error_detail("a datatype of combiner %d has no layout in a file", a->c->combiner);
        return MPI_ERR_UNSUPPORTED_DATAREP;
    }
}

ol_status_t ol_io_layout_twin(const ol_io_datarep_t *rep, const ol_datatype_t *dt,
                              ol_datatype_t **twin)
{
    if (dt->predefined || ol_dt_is_f90(dt))
        return named_twin(rep, dt, twin);
    ol_dt_contents_t c;
    ol_dt_get_contents(dt, &c);
    ol_datatype_t **olds = calloc((size_t)c.ntypes + 1, sizeof(*olds));
    if (!olds)
        return MPI_ERR_NO_MEM;
    ol_status_t rc = MPI_SUCCESS;
    for (MPI_Count i = 0; rc == MPI_SUCCESS && i < c.ntypes; i++)
        rc = ol_io_layout_twin(rep, c.types[i], &olds[i]);
    args_t a = {.c = &c, .large = c.ncounts > 0};
    if (rc == MPI_SUCCESS)
        rc = build(&a, olds, twin);
    for (MPI_Count i = 0; i < c.ntypes; i++)
        if (olds[i])
            ol_dt_free_handle(olds[i]);
    free(olds);
    if (rc == MPI_SUCCESS)
        ol_dt_commit(*twin);
    return rc;
}
