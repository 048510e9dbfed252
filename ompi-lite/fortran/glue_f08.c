/* The choice buffers of mpi_f08 (ol_fortran.h: ol_f08_buffer_t): a
 * TYPE(*), DIMENSION(..) argument arrives as a TS 29113 descriptor
 * (CFI_cdesc_t), which may describe a non-contiguous array section. The
 * standard asks that such a section behave as if its elements were laid
 * end to end in a contiguous buffer (MPI_SUBARRAYS_SUPPORTED).
 *
 * Blocking calls copy the section into a contiguous buffer and, for the
 * buffers the call may write, back after it: any datatype, any count
 * arrays (the v forms), any number of buffers sharing one datatype.
 * Calls whose buffer outlives them (nonblocking, persistent, RMA request
 * forms) cannot copy back at completion without a hook into every
 * completion call, so they describe the section with a datatype built from
 * the descriptor's strides instead; that takes a datatype without holes
 * whose extent divides the element length (every predefined type over an
 * array of its kind does), and anything else is refused with
 * MPI_ERR_BUFFER rather than sent wrongly. */
#include "ol_fortran.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t element_count(const CFI_cdesc_t *desc)
{
    size_t n = 1;
    for (int i = 0; i < desc->rank; i++)
        n *= (size_t)desc->dim[i].extent;
    return n;
}

/* Element `k` in array element order (the first subscript fastest). */
static char *element_address(const CFI_cdesc_t *desc, size_t k)
{
    char *p = desc->base_addr;
    for (int i = 0; i < desc->rank; i++) {
        size_t n = (size_t)desc->dim[i].extent;
        p += (ptrdiff_t)(k % n) * desc->dim[i].sm;
        k /= n;
    }
    return p;
}

/* ol_f08_is_contiguous beyond rank 1. */
int ol_f08_contiguous_ranks(const CFI_cdesc_t *desc)
{
    CFI_index_t expected = (CFI_index_t)desc->elem_len;
    for (int i = 0; i < desc->rank; i++) {
        if (desc->dim[i].extent == 0)
            return 1;
        if (desc->dim[i].extent > 1 && desc->dim[i].sm != expected)
            return 0;
        expected *= desc->dim[i].extent;
    }
    return 1;
}

/* ol_f08_buffer_copy of a non-contiguous section; b is its plain buffer. */
int ol_f08_buffer_copy_section(const CFI_cdesc_t *desc, ol_f08_buffer_t *b)
{
    size_t n = element_count(desc), len = desc->elem_len;
    b->copy = malloc(n * len > 0 ? n * len : 1);
    if (!b->copy)
        return MPI_ERR_NO_MEM;
    for (size_t k = 0; k < n; k++)
        memcpy((char *)b->copy + k * len, element_address(desc, k), len);
    b->base = b->copy;
    return MPI_SUCCESS;
}

void ol_f08_buffer_copy_back_section(ol_f08_buffer_t *b, int write_back)
{
    size_t n = element_count(b->desc), len = b->desc->elem_len;
    for (size_t k = 0; write_back && k < n; k++)
        memcpy(element_address(b->desc, k), (char *)b->copy + k * len, len);
    free(b->copy);
    b->copy = NULL;
}

/* A datatype whose `count` items fill the bytes they span, from offset 0. */
static int without_holes(MPI_Datatype type, MPI_Aint *extent)
{
    int size = 0;
    MPI_Aint lb, true_lb, true_extent;
    if (PMPI_Type_size(type, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent(type, &lb, extent) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS)
        return -1;
    return size > 0 && size == *extent && lb == 0 && true_lb == 0 && true_extent == *extent;
}

/* ol_f08_buffer_typed of a non-contiguous section; b is its plain buffer. */
int ol_f08_buffer_typed_section(const CFI_cdesc_t *desc, MPI_Count count, MPI_Datatype type,
                                ol_f08_buffer_t *b, const char **why)
{
    if (count < 0) {
        *why = "this buffer must be contiguous: a non-contiguous array section is taken only "
               "where the call has a count and datatype of its own for it";
        return MPI_ERR_BUFFER;
    }
    MPI_Aint extent = 0;
    int dense = without_holes(type, &extent);
    if (dense < 0)
        return MPI_SUCCESS; /* not a datatype: the call itself says so */
    if (!dense || (size_t)extent > desc->elem_len || desc->elem_len % (size_t)extent) {
        *why = "a non-contiguous array section in a call whose buffer outlives it needs a "
               "datatype without holes whose extent divides the array element's length; "
               "pass a contiguous array, or describe the layout with a derived datatype";
        return MPI_ERR_BUFFER;
    }
    MPI_Count per_element = (MPI_Count)(desc->elem_len / (size_t)extent);
    MPI_Count elements = (count + per_element - 1) / per_element;
    if ((size_t)elements > element_count(desc) || elements > INT_MAX) {
        *why = "the count is larger than the array section holds";
        return MPI_ERR_BUFFER;
    }
    int n = (int)elements, *lengths = malloc(sizeof(int) * (size_t)n);
    MPI_Aint *displacements = malloc(sizeof(MPI_Aint) * (size_t)n);
    int rc = MPI_ERR_NO_MEM;
    if (lengths && displacements) {
        for (int k = 0; k < n; k++) {
            lengths[k] = (int)per_element;
            displacements[k] = element_address(desc, (size_t)k) - (char *)desc->base_addr;
        }
        lengths[n - 1] = (int)(count - per_element * (n - 1));
        rc = PMPI_Type_create_hindexed(n, lengths, displacements, type, &b->section);
        if (rc == MPI_SUCCESS)
            rc = PMPI_Type_commit(&b->section);
    }
    free(lengths);
    free(displacements);
    if (rc == MPI_SUCCESS) {
        b->count = 1;
        b->type = b->section;
    }
    return rc;
}

void ol_f08_buffer_release_section(ol_f08_buffer_t *b)
{
    PMPI_Type_free(&b->section);
}

void ol_f08_refuse(const char *fn_name, MPI_Comm comm, const char *why, MPI_Fint *ierror)
{
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    if (comm == MPI_COMM_NULL)
        comm = MPI_COMM_SELF;
    if (PMPI_Comm_get_errhandler(comm, &handler) == MPI_SUCCESS) {
        if (handler == MPI_ERRORS_ARE_FATAL)
            fprintf(stderr, "%s: MPI_ERR_BUFFER: %s\n", fn_name, why);
        PMPI_Errhandler_free(&handler);
    }
    PMPI_Comm_call_errhandler(comm, MPI_ERR_BUFFER);
    ol_f_set_ierror(ierror, MPI_ERR_BUFFER);
}
