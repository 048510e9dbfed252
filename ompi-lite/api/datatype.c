/* Datatype calls of the API: argument checks that need the standard's
 * wording, then the datatype engine. The int forms widen their arrays to
 * MPI_Count and share the _c forms' code; `large` tells the engine which
 * form was called, for MPI_Type_get_contents. */
#include "gen_impl.h"
#include "ol_api_checks.h"
#include "ol_attr.h"
#include "pt2pt.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ----------------------------------------------------------- */

static int no_memory(void)
{
    ol_api_set_detail("out of memory for a datatype");
    return MPI_ERR_NO_MEM;
}

/* The type a constructor made through *dt (passed by address: the
 * constructor's call is an argument of this one, and sets it). */
static int put_new_type(ol_status_t err, ol_datatype_t *const *dt, MPI_Datatype *newtype)
{
    if (err != MPI_SUCCESS)
        return no_memory();
    *newtype = ol_dt_to_handle(*dt);
    return MPI_SUCCESS;
}

/* An int result that the value does not fit: MPI_UNDEFINED, as the
 * standard's size and count queries say. */
static int int_or_undefined(MPI_Count value)
{
    return value > INT_MAX || value < INT_MIN ? MPI_UNDEFINED : (int)value;
}

static int check_array(const void *array, MPI_Count n, const char *arg)
{
    if (n == 0 || array)
        return MPI_SUCCESS;
    ol_api_set_detail("%s is NULL with %lld entries", arg, (long long)n);
    return MPI_ERR_ARG;
}

static int check_blocklength(MPI_Count blocklength, const char *arg)
{
    if (blocklength >= 0)
        return MPI_SUCCESS;
    ol_api_set_detail("%s is %lld, a blocklength must not be negative", arg,
                      (long long)blocklength);
    return MPI_ERR_ARG;
}

static int check_blocklengths(const MPI_Count *blocklengths, MPI_Count count, const char *arg)
{
    for (MPI_Count i = 0; i < count; i++)
        if (blocklengths[i] < 0) {
            ol_api_set_detail("%s[%lld] is %lld, a blocklength must not be negative", arg,
                              (long long)i, (long long)blocklengths[i]);
            return MPI_ERR_ARG;
        }
    return MPI_SUCCESS;
}

/* Widened copies of the int forms' arrays; NULL stays NULL, and an empty
 * array is a valid (unread) pointer. */
static MPI_Count *widen_ints(const int *values, MPI_Count n)
{
    MPI_Count *wide = malloc((size_t)(n ? n : 1) * sizeof(*wide));
    for (MPI_Count i = 0; wide && i < n; i++)
        wide[i] = values[i];
    return wide;
}

static MPI_Count *widen_aints(const MPI_Aint *values, MPI_Count n)
{
    MPI_Count *wide = malloc((size_t)(n ? n : 1) * sizeof(*wide));
    for (MPI_Count i = 0; wide && i < n; i++)
        wide[i] = values[i];
    return wide;
}

/* The handle of an INOUT MPI_Datatype * (commit, free), which the bindings
 * do not translate. */
static int lookup_inout(MPI_Datatype *handle, ol_datatype_t **dt)
{
    return ol_check_datatype(*handle, "datatype", dt);
}

/* ---- constructors ------------------------------------------------------ */

static int contiguous(MPI_Count count, ol_datatype_t *oldtype, bool large, MPI_Datatype *newtype)
{
    ol_datatype_t *dt = NULL;
    return put_new_type(ol_dt_create_contiguous(count, oldtype, large, &dt), &dt, newtype);
}

int ol_api_type_contiguous(int count, ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    return contiguous(count, oldtype, false, newtype);
}

int ol_api_type_contiguous_c(MPI_Count count, ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    return contiguous(count, oldtype, true, newtype);
}

static int vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride, bool bytes,
                  ol_datatype_t *oldtype, bool large, MPI_Datatype *newtype)
{
    int err = check_blocklength(blocklength, "blocklength");
    if (err != MPI_SUCCESS)
        return err;
    ol_datatype_t *dt = NULL;
    return put_new_type(ol_dt_create_vector(count, blocklength, stride, bytes, oldtype, large, &dt),
                        &dt, newtype);
}

int ol_api_type_vector(int count, int blocklength, int stride, ol_datatype_t *oldtype,
                       MPI_Datatype *newtype)
{
    return vector(count, blocklength, stride, false, oldtype, false, newtype);
}

int ol_api_type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                         ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    return vector(count, blocklength, stride, false, oldtype, true, newtype);
}

int ol_api_type_create_hvector(int count, int blocklength, MPI_Aint stride,
                               ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    return vector(count, blocklength, stride, true, oldtype, false, newtype);
}

int ol_api_type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                 ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    return vector(count, blocklength, stride, true, oldtype, true, newtype);
}

/* blocklengths NULL: the _block forms, every block of blocklength. */
static int indexed(MPI_Count count, const MPI_Count *blocklengths, MPI_Count blocklength,
                   const MPI_Count *displacements, bool bytes, ol_datatype_t *oldtype, bool large,
                   MPI_Datatype *newtype)
{
    int err = blocklengths ? check_blocklengths(blocklengths, count, "array_of_blocklengths")
                           : check_blocklength(blocklength, "blocklength");
    if (err != MPI_SUCCESS)
        return err;
    ol_datatype_t *dt = NULL;
    return put_new_type(ol_dt_create_indexed(count, blocklengths, blocklength, displacements,
                                             bytes, oldtype, large, &dt),
                        &dt, newtype);
}

/* The int forms: check the arrays, widen them, and go on as the _c form. */
static int indexed_widened(MPI_Count count, const int *blocklengths, int blocklength,
                           const int *int_displacements, const MPI_Aint *addr_displacements,
                           ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    const void *displacements = int_displacements ? (const void *)int_displacements
                                                  : (const void *)addr_displacements;
    int err = check_array(displacements, count, "array_of_displacements");
    if (err == MPI_SUCCESS && blocklengths)
        err = check_array(blocklengths, count, "array_of_blocklengths");
    if (err != MPI_SUCCESS)
        return err;
    MPI_Count *wide_lengths = blocklengths ? widen_ints(blocklengths, count) : NULL;
    MPI_Count *wide_displacements = int_displacements ? widen_ints(int_displacements, count)
                                                      : widen_aints(addr_displacements, count);
    if ((blocklengths && !wide_lengths) || !wide_displacements)
        err = no_memory();
    else
        err = indexed(count, wide_lengths, blocklength, wide_displacements, !int_displacements,
                      oldtype, false, newtype);
    free(wide_lengths);
    free(wide_displacements);
    return err;
}

static int indexed_c(MPI_Count count, const MPI_Count *blocklengths, MPI_Count blocklength,
                     const MPI_Count *displacements, bool bytes, ol_datatype_t *oldtype,
                     MPI_Datatype *newtype)
{
    int err = check_array(displacements, count, "array_of_displacements");
    if (err == MPI_SUCCESS && blocklengths)
        err = check_array(blocklengths, count, "array_of_blocklengths");
    if (err != MPI_SUCCESS)
        return err;
    return indexed(count, blocklengths, blocklength, displacements, bytes, oldtype, true, newtype);
}

int ol_api_type_indexed(int count, const int array_of_blocklengths[],
                        const int array_of_displacements[], ol_datatype_t *oldtype,
                        MPI_Datatype *newtype)
{
    return indexed_widened(count, array_of_blocklengths, 0, array_of_displacements, NULL, oldtype,
                           newtype);
}

int ol_api_type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                          const MPI_Count array_of_displacements[], ol_datatype_t *oldtype,
                          MPI_Datatype *newtype)
{
    return indexed_c(count, array_of_blocklengths, 0, array_of_displacements, false, oldtype,
                     newtype);
}

int ol_api_type_create_hindexed(int count, const int array_of_blocklengths[],
                                const MPI_Aint array_of_displacements[], ol_datatype_t *oldtype,
                                MPI_Datatype *newtype)
{
    return indexed_widened(count, array_of_blocklengths, 0, NULL, array_of_displacements, oldtype,
                           newtype);
}

int ol_api_type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                  const MPI_Count array_of_displacements[],
                                  ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    return indexed_c(count, array_of_blocklengths, 0, array_of_displacements, true, oldtype,
                     newtype);
}

int ol_api_type_create_indexed_block(int count, int blocklength,
                                     const int array_of_displacements[], ol_datatype_t *oldtype,
                                     MPI_Datatype *newtype)
{
    return indexed_widened(count, NULL, blocklength, array_of_displacements, NULL, oldtype,
                           newtype);
}

int ol_api_type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                       const MPI_Count array_of_displacements[],
                                       ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    return indexed_c(count, NULL, blocklength, array_of_displacements, false, oldtype, newtype);
}

int ol_api_type_create_hindexed_block(int count, int blocklength,
                                      const MPI_Aint array_of_displacements[],
                                      ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    return indexed_widened(count, NULL, blocklength, NULL, array_of_displacements, oldtype,
                           newtype);
}

int ol_api_type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                        const MPI_Count array_of_displacements[],
                                        ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    return indexed_c(count, NULL, blocklength, array_of_displacements, true, oldtype, newtype);
}

/* The struct's types as objects; each must be a valid datatype. */
static int lookup_types(const MPI_Datatype *handles, MPI_Count count, ol_datatype_t **types)
{
    for (MPI_Count i = 0; i < count; i++) {
        types[i] = ol_dt_from_handle(handles[i]);
        if (!types[i]) {
            ol_api_set_detail("array_of_types[%lld] is %s", (long long)i,
                              handles[i] == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL"
                                                              : "not a valid datatype");
            return MPI_ERR_TYPE;
        }
    }
    return MPI_SUCCESS;
}

static int create_struct(MPI_Count count, const MPI_Count *blocklengths,
                         const MPI_Count *displacements, const MPI_Datatype *handles, bool large,
                         MPI_Datatype *newtype)
{
    int err = check_blocklengths(blocklengths, count, "array_of_blocklengths");
    if (err != MPI_SUCCESS)
        return err;
    ol_datatype_t **types = malloc((size_t)(count ? count : 1) * sizeof(*types));
    if (!types)
        return no_memory();
    ol_datatype_t *dt = NULL;
    err = lookup_types(handles, count, types);
    if (err == MPI_SUCCESS)
        err = put_new_type(ol_dt_create_struct(count, blocklengths, displacements, types, large,
                                               &dt),
                           &dt, newtype);
    free(types);
    return err;
}

static int check_struct_arrays(MPI_Count count, const void *blocklengths,
                               const void *displacements, const MPI_Datatype *types)
{
    int err = check_array(blocklengths, count, "array_of_blocklengths");
    if (err == MPI_SUCCESS)
        err = check_array(displacements, count, "array_of_displacements");
    if (err == MPI_SUCCESS)
        err = check_array(types, count, "array_of_types");
    return err;
}

int ol_api_type_create_struct(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    int err = check_struct_arrays(count, array_of_blocklengths, array_of_displacements,
                                  array_of_types);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Count *lengths = widen_ints(array_of_blocklengths, count);
    MPI_Count *displacements = widen_aints(array_of_displacements, count);
    if (!lengths || !displacements)
        err = no_memory();
    else
        err = create_struct(count, lengths, displacements, array_of_types, false, newtype);
    free(lengths);
    free(displacements);
    return err;
}

int ol_api_type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[],
                                const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    int err = check_struct_arrays(count, array_of_blocklengths, array_of_displacements,
                                  array_of_types);
    if (err != MPI_SUCCESS)
        return err;
    return create_struct(count, array_of_blocklengths, array_of_displacements, array_of_types,
                         true, newtype);
}

static int resized(ol_datatype_t *oldtype, MPI_Count lb, MPI_Count extent, bool large,
                   MPI_Datatype *newtype)
{
    ol_datatype_t *dt = NULL;
    return put_new_type(ol_dt_create_resized(oldtype, lb, extent, large, &dt), &dt, newtype);
}

int ol_api_type_create_resized(ol_datatype_t *oldtype, MPI_Aint lb, MPI_Aint extent,
                               MPI_Datatype *newtype)
{
    return resized(oldtype, lb, extent, false, newtype);
}

int ol_api_type_create_resized_c(ol_datatype_t *oldtype, MPI_Count lb, MPI_Count extent,
                                 MPI_Datatype *newtype)
{
    return resized(oldtype, lb, extent, true, newtype);
}

/* The duplicate takes the attributes their copy callbacks ask for; a
 * failing callback undoes it and its error is the call's. */
int ol_api_type_dup(ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    ol_datatype_t *dt = NULL;
    int err = put_new_type(ol_dt_create_dup(oldtype, &dt), &dt, newtype);
    if (err != MPI_SUCCESS)
        return err;
    err = ol_attr_copy_type(oldtype, dt);
    if (err != MPI_SUCCESS) { /* a copy callback failed: no stale handle left */
        ol_attr_delete_all_type(dt);
        ol_dt_free_handle(dt);
        *newtype = MPI_DATATYPE_NULL;
    }
    return err;
}

/* ---- subarray and darray ----------------------------------------------- */

static int check_order(int order)
{
    if (order == MPI_ORDER_C || order == MPI_ORDER_FORTRAN)
        return MPI_SUCCESS;
    ol_api_set_detail("order is %d, neither MPI_ORDER_C nor MPI_ORDER_FORTRAN", order);
    return MPI_ERR_ARG;
}

/* ndims and the first three of the arrays that have ndims entries. */
static int check_ndims(int ndims, const void *a, const void *b, const void *c)
{
    if (ndims <= 0) {
        ol_api_set_detail("ndims is %d, it must be positive", ndims);
        return MPI_ERR_ARG;
    }
    if (!a || !b || !c) {
        ol_api_set_detail("an array argument of %d dimensions is NULL", ndims);
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

static int check_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                          const MPI_Count *starts)
{
    for (int d = 0; d < ndims; d++) {
        if (sizes[d] <= 0 || subsizes[d] < 0 || subsizes[d] > sizes[d] || starts[d] < 0 ||
            starts[d] > sizes[d] - subsizes[d]) {
            ol_api_set_detail("dimension %d has size %lld, subsize %lld and start %lld: the "
                              "subarray must lie inside the array",
                              d, (long long)sizes[d], (long long)subsizes[d], (long long)starts[d]);
            return MPI_ERR_ARG;
        }
    }
    return MPI_SUCCESS;
}

static int subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                    const MPI_Count *starts, int order, ol_datatype_t *oldtype, bool large,
                    MPI_Datatype *newtype)
{
    int err = check_subarray(ndims, sizes, subsizes, starts);
    if (err == MPI_SUCCESS)
        err = check_order(order);
    if (err != MPI_SUCCESS)
        return err;
    ol_datatype_t *dt = NULL;
    return put_new_type(
        ol_dt_create_subarray(ndims, sizes, subsizes, starts, order, oldtype, large, &dt), &dt,
        newtype);
}

int ol_api_type_create_subarray(int ndims, const int array_of_sizes[],
                                const int array_of_subsizes[], const int array_of_starts[],
                                int order, ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    int err = check_ndims(ndims, array_of_sizes, array_of_subsizes, array_of_starts);
    if (err != MPI_SUCCESS)
        return err;
    MPI_Count *sizes = widen_ints(array_of_sizes, ndims);
    MPI_Count *subsizes = widen_ints(array_of_subsizes, ndims);
    MPI_Count *starts = widen_ints(array_of_starts, ndims);
    if (!sizes || !subsizes || !starts)
        err = no_memory();
    else
        err = subarray(ndims, sizes, subsizes, starts, order, oldtype, false, newtype);
    free(sizes);
    free(subsizes);
    free(starts);
    return err;
}

int ol_api_type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                  const MPI_Count array_of_subsizes[],
                                  const MPI_Count array_of_starts[], int order,
                                  ol_datatype_t *oldtype, MPI_Datatype *newtype)
{
    int err = check_ndims(ndims, array_of_sizes, array_of_subsizes, array_of_starts);
    if (err != MPI_SUCCESS)
        return err;
    return subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order, oldtype,
                    true, newtype);
}

static int check_distribution(int d, MPI_Count gsize, int distrib, int darg, int psize)
{
    if (gsize <= 0 || psize <= 0) {
        ol_api_set_detail("dimension %d has gsize %lld and psize %d: both must be positive", d,
                          (long long)gsize, psize);
        return MPI_ERR_ARG;
    }
    if (distrib == MPI_DISTRIBUTE_NONE) {
        if (psize == 1)
            return MPI_SUCCESS;
        ol_api_set_detail("dimension %d is MPI_DISTRIBUTE_NONE over %d processes, not 1", d, psize);
        return MPI_ERR_ARG;
    }
    if (distrib != MPI_DISTRIBUTE_BLOCK && distrib != MPI_DISTRIBUTE_CYCLIC) {
        ol_api_set_detail("array_of_distribs[%d] is %d, not a distribution", d, distrib);
        return MPI_ERR_ARG;
    }
    if (darg == MPI_DISTRIBUTE_DFLT_DARG)
        return MPI_SUCCESS;
    if (darg <= 0) {
        ol_api_set_detail("array_of_dargs[%d] is %d, it must be positive", d, darg);
        return MPI_ERR_ARG;
    }
    if (distrib == MPI_DISTRIBUTE_BLOCK && (MPI_Count)darg * psize < gsize) {
        ol_api_set_detail("dimension %d: %d processes with blocks of %d cannot hold %lld elements",
                          d, psize, darg, (long long)gsize);
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

static int darray(int size, int rank, int ndims, const MPI_Count *gsizes, const int *distribs,
                  const int *dargs, const int *psizes, int order, ol_datatype_t *oldtype,
                  bool large, MPI_Datatype *newtype)
{
    if (size <= 0 || rank < 0 || rank >= size) {
        ol_api_set_detail("rank %d is not a rank of a group of size %d", rank, size);
        return MPI_ERR_ARG;
    }
    int err = check_ndims(ndims, gsizes, distribs, dargs);
    if (err == MPI_SUCCESS && !psizes) {
        ol_api_set_detail("array_of_psizes is NULL");
        err = MPI_ERR_ARG;
    }
    if (err == MPI_SUCCESS)
        err = check_order(order);
    MPI_Count processes = 1;
    for (int d = 0; err == MPI_SUCCESS && d < ndims; d++) {
        err = check_distribution(d, gsizes[d], distribs[d], dargs[d], psizes[d]);
        processes *= psizes[d];
    }
    if (err == MPI_SUCCESS && processes != size) {
        ol_api_set_detail("the process grid has %lld processes, not size = %d",
                          (long long)processes, size);
        err = MPI_ERR_ARG;
    }
    if (err != MPI_SUCCESS)
        return err;
    ol_datatype_t *dt = NULL;
    return put_new_type(ol_dt_create_darray(size, rank, ndims, gsizes, distribs, dargs, psizes,
                                            order, oldtype, large, &dt),
                        &dt, newtype);
}

int ol_api_type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, ol_datatype_t *oldtype,
                              MPI_Datatype *newtype)
{
    MPI_Count *gsizes = array_of_gsizes && ndims > 0 ? widen_ints(array_of_gsizes, ndims) : NULL;
    if (array_of_gsizes && ndims > 0 && !gsizes)
        return no_memory();
    int err = darray(size, rank, ndims, gsizes, array_of_distribs, array_of_dargs,
                     array_of_psizes, order, oldtype, false, newtype);
    free(gsizes);
    return err;
}

int ol_api_type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                                const int array_of_distribs[], const int array_of_dargs[],
                                const int array_of_psizes[], int order, ol_datatype_t *oldtype,
                                MPI_Datatype *newtype)
{
    return darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                  array_of_psizes, order, oldtype, true, newtype);
}

/* ---- predefined types found by properties ------------------------------ */

typedef struct kind_choice {
    MPI_Datatype type;
    int precision, range; /* decimal digits, as Fortran's PRECISION and RANGE say */
} kind_choice_t;

/* The first (smallest) of the choices with at least precision p and
 * range r; MPI_UNDEFINED leaves one of them free. */
static int choose_kind(const kind_choice_t *choices, size_t n, int p, int r, MPI_Datatype *out)
{
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) {
        ol_api_set_detail("p and r are both MPI_UNDEFINED");
        return MPI_ERR_ARG;
    }
    for (size_t i = 0; i < n; i++)
        if ((p == MPI_UNDEFINED || p <= choices[i].precision) &&
            (r == MPI_UNDEFINED || r <= choices[i].range) &&
            !ol_dt_is_unsupported(choices[i].type)) {
            *out = choices[i].type;
            return MPI_SUCCESS;
        }
    ol_api_set_detail("no Fortran kind has precision %d and range %d", p, r);
    return MPI_ERR_ARG;
}

/* IEEE binary32, binary64 and binary128, as gfortran's REAL kinds 4, 8, 16. */
static const kind_choice_t real_kinds[] = {
    {MPI_REAL4, 6, 37}, {MPI_REAL8, 15, 307}, {MPI_REAL16, 33, 4931}};
static const kind_choice_t complex_kinds[] = {
    {MPI_COMPLEX8, 6, 37}, {MPI_COMPLEX16, 15, 307}, {MPI_COMPLEX32, 33, 4931}};
static const kind_choice_t integer_kinds[] = {
    {MPI_INTEGER1, 0, 2}, {MPI_INTEGER2, 0, 4}, {MPI_INTEGER4, 0, 9},
    {MPI_INTEGER8, 0, 18}, {MPI_INTEGER16, 0, 38}};

/* The types made by the f90 calls: one per (call, p, r), kept for the
 * life of the process, as the standard wants the same handle for the same
 * arguments and forbids freeing it. */
typedef struct f90_type {
    int combiner, p, r;
    ol_datatype_t *dt;
} f90_type_t;

static pthread_mutex_t f90_lock = PTHREAD_MUTEX_INITIALIZER;
static f90_type_t *f90_types;
static size_t n_f90_types, f90_capacity;

static ol_datatype_t *known_f90_type(int combiner, int p, int r)
{
    for (size_t i = 0; i < n_f90_types; i++)
        if (f90_types[i].combiner == combiner && f90_types[i].p == p && f90_types[i].r == r)
            return f90_types[i].dt;
    return NULL;
}

static int remember_f90_type(int combiner, int p, int r, ol_datatype_t *named,
                             ol_datatype_t **dt)
{
    if (n_f90_types == f90_capacity) {
        size_t capacity = f90_capacity ? 2 * f90_capacity : 8;
        f90_type_t *grown = realloc(f90_types, capacity * sizeof(*grown));
        if (!grown)
            return no_memory();
        f90_types = grown;
        f90_capacity = capacity;
    }
    if (ol_dt_create_f90(combiner, p, r, named, dt) != MPI_SUCCESS)
        return no_memory();
    f90_types[n_f90_types++] = (f90_type_t){combiner, p, r, *dt};
    return MPI_SUCCESS;
}

/* The kind of the choices that p and r select, under the f90 combiner. */
static int f90_type(int combiner, const kind_choice_t *choices, size_t n, int p, int r,
                    MPI_Datatype *newtype)
{
    MPI_Datatype named;
    int err = choose_kind(choices, n, p, r, &named);
    if (err != MPI_SUCCESS)
        return err;
    pthread_mutex_lock(&f90_lock);
    ol_datatype_t *dt = known_f90_type(combiner, p, r);
    if (!dt)
        err = remember_f90_type(combiner, p, r, ol_dt_from_handle(named), &dt);
    pthread_mutex_unlock(&f90_lock);
    if (err == MPI_SUCCESS)
        *newtype = ol_dt_to_handle(dt);
    return err;
}

int ol_api_type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_type(MPI_COMBINER_F90_REAL, real_kinds, OL_ARRAY_SIZE(real_kinds), p, r, newtype);
}

int ol_api_type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_type(MPI_COMBINER_F90_COMPLEX, complex_kinds, OL_ARRAY_SIZE(complex_kinds), p, r,
                    newtype);
}

int ol_api_type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    return f90_type(MPI_COMBINER_F90_INTEGER, integer_kinds, OL_ARRAY_SIZE(integer_kinds),
                    MPI_UNDEFINED, r, newtype);
}

int ol_api_type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const MPI_Datatype reals[] = {MPI_REAL2, MPI_REAL4, MPI_REAL8, MPI_REAL16};
    static const MPI_Datatype integers[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4,
                                            MPI_INTEGER8, MPI_INTEGER16};
    static const MPI_Datatype complexes[] = {MPI_COMPLEX4, MPI_COMPLEX8, MPI_COMPLEX16,
                                             MPI_COMPLEX32};
    static const MPI_Datatype logicals[] = {MPI_LOGICAL1, MPI_LOGICAL2, MPI_LOGICAL4,
                                            MPI_LOGICAL8, MPI_LOGICAL16};
    const MPI_Datatype *choices;
    size_t n;
    switch (typeclass) {
    case MPI_TYPECLASS_REAL: choices = reals, n = OL_ARRAY_SIZE(reals); break;
    case MPI_TYPECLASS_INTEGER: choices = integers, n = OL_ARRAY_SIZE(integers); break;
    case MPI_TYPECLASS_COMPLEX: choices = complexes, n = OL_ARRAY_SIZE(complexes); break;
    case MPIX_TYPECLASS_LOGICAL: choices = logicals, n = OL_ARRAY_SIZE(logicals); break;
    default: ol_api_set_detail("typeclass %d is not a type class", typeclass); return MPI_ERR_ARG;
    }
    for (size_t i = 0; i < n; i++)
        if (!ol_dt_is_unsupported(choices[i]) &&
            ol_dt_from_handle(choices[i])->size == (size_t)size) {
            *datatype = choices[i];
            return MPI_SUCCESS;
        }
    ol_api_set_detail("no predefined type of type class %d has size %d", typeclass, size);
    return MPI_ERR_ARG;
}

int ol_api_type_get_value_index(ol_datatype_t *value_type, ol_datatype_t *index_type,
                                MPI_Datatype *pair_type)
{
    static const struct {
        MPI_Datatype value, index, pair;
    } pairs[] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},
        {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_REAL, MPI_INTEGER, MPI_2REAL},
        {MPI_DOUBLE_PRECISION, MPI_INTEGER, MPI_2DOUBLE_PRECISION},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
    };
    MPI_Datatype value = ol_dt_to_handle(value_type), index = ol_dt_to_handle(index_type);
    *pair_type = MPI_DATATYPE_NULL; /* the standard's answer where no pair type exists */
    for (size_t i = 0; i < OL_ARRAY_SIZE(pairs); i++)
        if (pairs[i].value == value && pairs[i].index == index)
            *pair_type = pairs[i].pair;
    return MPI_SUCCESS;
}

/* ---- commit and free --------------------------------------------------- */

int ol_api_type_commit(MPI_Datatype *datatype)
{
    ol_datatype_t *dt;
    int err = lookup_inout(datatype, &dt);
    if (err == MPI_SUCCESS)
        ol_dt_commit(dt);
    return err;
}

int ol_api_type_free(MPI_Datatype *datatype)
{
    ol_datatype_t *dt;
    int err = lookup_inout(datatype, &dt);
    if (err != MPI_SUCCESS)
        return err;
    if (dt->predefined) {
        ol_api_set_detail("datatype is the predefined %s, which cannot be freed", dt->name);
        return MPI_ERR_TYPE;
    }
    if (ol_dt_is_f90(dt)) {
        ol_api_set_detail("datatype (%s) was returned by an MPI_Type_create_f90_ call, which "
                          "makes predefined types that cannot be freed", dt->name);
        return MPI_ERR_TYPE;
    }
    /* Delete callbacks run first; one that fails leaves the type. */
    err = ol_attr_delete_all_type(dt);
    if (err != MPI_SUCCESS)
        return err;
    ol_dt_free_handle(dt);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

/* ---- queries ----------------------------------------------------------- */

int ol_api_type_get_extent(ol_datatype_t *datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

int ol_api_type_get_extent_c(ol_datatype_t *datatype, MPI_Count *lb, MPI_Count *extent)
{
    *lb = datatype->lb;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

int ol_api_type_get_extent_x(ol_datatype_t *datatype, MPI_Count *lb, MPI_Count *extent)
{
    return ol_api_type_get_extent_c(datatype, lb, extent);
}

int ol_api_type_get_true_extent(ol_datatype_t *datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_extent;
    return MPI_SUCCESS;
}

int ol_api_type_get_true_extent_c(ol_datatype_t *datatype, MPI_Count *true_lb,
                                  MPI_Count *true_extent)
{
    *true_lb = datatype->true_lb;
    *true_extent = datatype->true_extent;
    return MPI_SUCCESS;
}

int ol_api_type_get_true_extent_x(ol_datatype_t *datatype, MPI_Count *true_lb,
                                  MPI_Count *true_extent)
{
    return ol_api_type_get_true_extent_c(datatype, true_lb, true_extent);
}

/* The size of a datatype, or MPI_UNDEFINED for an optional type that the
 * program's Fortran lacks (MPI-5.0 section 21.4), which no other call
 * accepts: hence the handle is looked up here. */
int ol_api_type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    if (ol_dt_is_unsupported(datatype)) {
        *size = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    ol_datatype_t *dt;
    int err = ol_check_datatype(datatype, "datatype", &dt);
    if (err == MPI_SUCCESS)
        *size = (MPI_Count)dt->size;
    return err;
}

int ol_api_type_size(MPI_Datatype datatype, int *size)
{
    MPI_Count wide;
    int err = ol_api_type_size_c(datatype, &wide);
    if (err == MPI_SUCCESS)
        *size = int_or_undefined(wide);
    return err;
}

int ol_api_type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return ol_api_type_size_c(datatype, size);
}

int ol_api_type_get_name(ol_datatype_t *datatype, char *type_name, int *resultlen)
{
    if (!type_name) {
        ol_api_set_detail("type_name is NULL");
        return MPI_ERR_ARG;
    }
    size_t length = strlen(datatype->name);
    memcpy(type_name, datatype->name, length + 1);
    *resultlen = (int)length;
    return MPI_SUCCESS;
}

int ol_api_type_set_name(ol_datatype_t *datatype, const char *type_name)
{
    if (!type_name) {
        ol_api_set_detail("type_name is NULL");
        return MPI_ERR_ARG;
    }
    /* longer names are cut to what MPI_MAX_OBJECT_NAME holds */
    size_t length = strnlen(type_name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(datatype->name, type_name, length);
    datatype->name[length] = '\0';
    return MPI_SUCCESS;
}

/* ---- envelope and contents --------------------------------------------- */

static int check_not_large(const ol_dt_contents_t *c)
{
    if (c->ncounts == 0)
        return MPI_SUCCESS;
    ol_api_set_detail("the datatype was made by a large-count (_c) constructor: use the _c "
                      "form of this call");
    return MPI_ERR_TYPE;
}

int ol_api_type_get_envelope(ol_datatype_t *datatype, int *num_integers, int *num_addresses,
                             int *num_datatypes, int *combiner)
{
    ol_dt_contents_t c;
    ol_dt_get_contents(datatype, &c);
    int err = check_not_large(&c);
    if (err != MPI_SUCCESS)
        return err;
    *num_integers = (int)c.nints;
    *num_addresses = (int)c.naddrs;
    *num_datatypes = (int)c.ntypes;
    *combiner = c.combiner;
    return MPI_SUCCESS;
}

int ol_api_type_get_envelope_c(ol_datatype_t *datatype, MPI_Count *num_integers,
                               MPI_Count *num_addresses, MPI_Count *num_large_counts,
                               MPI_Count *num_datatypes, int *combiner)
{
    ol_dt_contents_t c;
    ol_dt_get_contents(datatype, &c);
    *num_integers = c.nints;
    *num_addresses = c.naddrs;
    *num_large_counts = c.ncounts;
    *num_datatypes = c.ntypes;
    *combiner = c.combiner;
    return MPI_SUCCESS;
}

static int check_room(MPI_Count max, MPI_Count needed, const void *array, const char *what)
{
    if (max >= needed && (needed == 0 || array))
        return MPI_SUCCESS;
    ol_api_set_detail("%s: the type has %lld, room was given for %lld", what, (long long)needed,
                      (long long)max);
    return MPI_ERR_ARG;
}

/* Copies the contents out; each derived type returned is a new handle the
 * user frees, as the standard says (not the predefined and f90 ones). */
static int get_contents(ol_datatype_t *datatype, MPI_Count max_integers, MPI_Count max_addresses,
                        MPI_Count max_large_counts, MPI_Count max_datatypes,
                        int array_of_integers[], MPI_Aint array_of_addresses[],
                        MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])
{
    ol_dt_contents_t c;
    ol_dt_get_contents(datatype, &c);
    if (c.combiner == MPI_COMBINER_NAMED) {
        ol_api_set_detail("datatype is the predefined %s, which has no contents", datatype->name);
        return MPI_ERR_TYPE;
    }
    int err = check_room(max_integers, c.nints, array_of_integers, "integers");
    if (err == MPI_SUCCESS)
        err = check_room(max_addresses, c.naddrs, array_of_addresses, "addresses");
    if (err == MPI_SUCCESS)
        err = check_room(max_large_counts, c.ncounts, array_of_large_counts, "large counts");
    if (err == MPI_SUCCESS)
        err = check_room(max_datatypes, c.ntypes, array_of_datatypes, "datatypes");
    if (err != MPI_SUCCESS)
        return err;
    if (c.nints)
        memcpy(array_of_integers, c.ints, (size_t)c.nints * sizeof(int));
    if (c.naddrs)
        memcpy(array_of_addresses, c.addrs, (size_t)c.naddrs * sizeof(MPI_Aint));
    if (c.ncounts)
        memcpy(array_of_large_counts, c.counts, (size_t)c.ncounts * sizeof(MPI_Count));
    for (MPI_Count i = 0; i < c.ntypes; i++) {
        if (!ol_dt_is_f90(c.types[i])) /* predefined in all but the handle */
            ol_dt_new_handle(c.types[i]);
        array_of_datatypes[i] = ol_dt_to_handle(c.types[i]);
    }
    return MPI_SUCCESS;
}

int ol_api_type_get_contents(ol_datatype_t *datatype, int max_integers, int max_addresses,
                             int max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    ol_dt_contents_t c;
    ol_dt_get_contents(datatype, &c);
    int err = check_not_large(&c);
    if (err != MPI_SUCCESS)
        return err;
    return get_contents(datatype, max_integers, max_addresses, 0, max_datatypes,
                        array_of_integers, array_of_addresses, NULL, array_of_datatypes);
}

int ol_api_type_get_contents_c(ol_datatype_t *datatype, MPI_Count max_integers,
                               MPI_Count max_addresses, MPI_Count max_large_counts,
                               MPI_Count max_datatypes, int array_of_integers[],
                               MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                               MPI_Datatype array_of_datatypes[])
{
    return get_contents(datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
                        array_of_integers, array_of_addresses, array_of_large_counts,
                        array_of_datatypes);
}

/* ---- handles as ints --------------------------------------------------- */

int ol_api_type_toint(MPI_Datatype datatype)
{
    ol_datatype_t *dt = ol_dt_from_handle(datatype);
    return dt ? ol_dt_to_int(dt) : (int)(uintptr_t)MPI_DATATYPE_NULL;
}

MPI_Datatype ol_api_type_fromint(int datatype)
{
    ol_datatype_t *dt = ol_dt_from_int(datatype);
    return dt ? ol_dt_to_handle(dt) : MPI_DATATYPE_NULL;
}

/* ---- pack and unpack --------------------------------------------------- */

/* The window [position, position + bytes) must lie in a buffer of size. */
static int check_window(const void *buf, MPI_Count size, MPI_Count position, MPI_Count bytes,
                        const char *buf_name)
{
    if (size < 0 || position < 0) {
        ol_api_set_detail("the packed buffer's size %lld or position %lld is negative",
                          (long long)size, (long long)position);
        return MPI_ERR_ARG;
    }
    if (position > size || bytes > size - position) {
        ol_api_set_detail("%lld bytes at position %lld do not fit in the %lld bytes of %s",
                          (long long)bytes, (long long)position, (long long)size, buf_name);
        return MPI_ERR_TRUNCATE;
    }
    if (bytes > 0 && !buf) {
        ol_api_set_detail("%s is NULL", buf_name);
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

static int pack(const void *inbuf, MPI_Count incount, ol_datatype_t *datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position)
{
    MPI_Count bytes = incount * (MPI_Count)datatype->size;
    int err = check_window(outbuf, outsize, *position, bytes, "outbuf");
    if (err != MPI_SUCCESS)
        return err;
    ol_dt_pack_all(datatype, inbuf, incount, (char *)outbuf + *position);
    *position += bytes;
    return MPI_SUCCESS;
}

static int unpack(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, ol_datatype_t *datatype)
{
    MPI_Count bytes = outcount * (MPI_Count)datatype->size;
    int err = check_window(inbuf, insize, *position, bytes, "inbuf");
    if (err != MPI_SUCCESS)
        return err;
    ol_dt_unpack_all(datatype, outbuf, outcount, (const char *)inbuf + *position);
    *position += bytes;
    return MPI_SUCCESS;
}

int ol_api_pack(const void *inbuf, int incount, ol_datatype_t *datatype, void *outbuf,
                int outsize, int *position, ol_comm_t *comm)
{
    (void)comm; /* the packed format is the same for every peer */
    MPI_Count wide = *position;
    int err = pack(inbuf, incount, datatype, outbuf, outsize, &wide);
    if (err == MPI_SUCCESS)
        *position = (int)wide; /* fits: it is at most outsize */
    return err;
}

int ol_api_pack_c(const void *inbuf, MPI_Count incount, ol_datatype_t *datatype, void *outbuf,
                  MPI_Count outsize, MPI_Count *position, ol_comm_t *comm)
{
    (void)comm;
    return pack(inbuf, incount, datatype, outbuf, outsize, position);
}

int ol_api_unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                  ol_datatype_t *datatype, ol_comm_t *comm)
{
    (void)comm;
    MPI_Count wide = *position;
    int err = unpack(inbuf, insize, &wide, outbuf, outcount, datatype);
    if (err == MPI_SUCCESS)
        *position = (int)wide;
    return err;
}

int ol_api_unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                    MPI_Count outcount, ol_datatype_t *datatype, ol_comm_t *comm)
{
    (void)comm;
    return unpack(inbuf, insize, position, outbuf, outcount, datatype);
}

int ol_api_pack_size(int incount, ol_datatype_t *datatype, ol_comm_t *comm, int *size)
{
    (void)comm;
    MPI_Count bytes = (MPI_Count)incount * (MPI_Count)datatype->size;
    if (bytes > INT_MAX) {
        ol_api_set_detail("%lld packed bytes do not fit in an int: use MPI_Pack_size_c",
                          (long long)bytes);
        return MPI_ERR_VALUE_TOO_LARGE;
    }
    *size = (int)bytes;
    return MPI_SUCCESS;
}

int ol_api_pack_size_c(MPI_Count incount, ol_datatype_t *datatype, ol_comm_t *comm,
                       MPI_Count *size)
{
    (void)comm;
    *size = incount * (MPI_Count)datatype->size;
    return MPI_SUCCESS;
}

/* ---- external32 -------------------------------------------------------- */

static int check_datarep(const char *datarep)
{
    if (datarep && strcmp(datarep, "external32") == 0)
        return MPI_SUCCESS;
    ol_api_set_detail("datarep is \"%s\", only \"external32\" is known",
                      datarep ? datarep : "(null)");
    return MPI_ERR_ARG;
}

/* The native packed stream of count elements at buf: the buffer itself
 * where the type is contiguous, else a packed copy (*scratch, to free). */
static const void *native_stream(const ol_datatype_t *dt, const void *buf, MPI_Count count,
                                 void **scratch)
{
    *scratch = NULL;
    if (dt->contiguous)
        return ol_dt_data_at(buf, dt);
    *scratch = malloc((size_t)count * dt->size + 1);
    if (*scratch)
        ol_dt_pack_all(dt, buf, count, *scratch);
    return *scratch;
}

static int pack_external(const char *datarep, const void *inbuf, MPI_Count incount,
                         ol_datatype_t *datatype, void *outbuf, MPI_Count outsize,
                         MPI_Count *position)
{
    int err = check_datarep(datarep);
    MPI_Count bytes = (MPI_Count)ol_dt_external32_size(datatype, incount);
    if (err == MPI_SUCCESS)
        err = check_window(outbuf, outsize, *position, bytes, "outbuf");
    if (err != MPI_SUCCESS || bytes == 0)
        return err;
    void *scratch;
    const void *native = native_stream(datatype, inbuf, incount, &scratch);
    if (!native)
        return no_memory();
    ol_dt_native_to_external32(datatype, incount, native, (char *)outbuf + *position);
    free(scratch);
    *position += bytes;
    return MPI_SUCCESS;
}

static int unpack_external(const char *datarep, const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount,
                           ol_datatype_t *datatype)
{
    int err = check_datarep(datarep);
    MPI_Count bytes = (MPI_Count)ol_dt_external32_size(datatype, outcount);
    if (err == MPI_SUCCESS)
        err = check_window(inbuf, insize, *position, bytes, "inbuf");
    if (err != MPI_SUCCESS || bytes == 0)
        return err;
    const char *external = (const char *)inbuf + *position;
    if (datatype->contiguous) {
        ol_dt_external32_to_native(datatype, outcount, external, ol_dt_data_at(outbuf, datatype));
    } else {
        void *native = malloc((size_t)outcount * datatype->size + 1);
        if (!native)
            return no_memory();
        ol_dt_external32_to_native(datatype, outcount, external, native);
        ol_dt_unpack_all(datatype, outbuf, outcount, native);
        free(native);
    }
    *position += bytes;
    return MPI_SUCCESS;
}

int ol_api_pack_external(const char *datarep, const void *inbuf, int incount,
                         ol_datatype_t *datatype, void *outbuf, MPI_Aint outsize,
                         MPI_Aint *position)
{
    MPI_Count wide = *position;
    int err = pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, &wide);
    if (err == MPI_SUCCESS)
        *position = (MPI_Aint)wide;
    return err;
}

int ol_api_pack_external_c(const char *datarep, const void *inbuf, MPI_Count incount,
                           ol_datatype_t *datatype, void *outbuf, MPI_Count outsize,
                           MPI_Count *position)
{
    return pack_external(datarep, inbuf, incount, datatype, outbuf, outsize, position);
}

int ol_api_unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                           MPI_Aint *position, void *outbuf, int outcount,
                           ol_datatype_t *datatype)
{
    MPI_Count wide = *position;
    int err = unpack_external(datarep, inbuf, insize, &wide, outbuf, outcount, datatype);
    if (err == MPI_SUCCESS)
        *position = (MPI_Aint)wide;
    return err;
}

int ol_api_unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                             MPI_Count *position, void *outbuf, MPI_Count outcount,
                             ol_datatype_t *datatype)
{
    return unpack_external(datarep, inbuf, insize, position, outbuf, outcount, datatype);
}

int ol_api_pack_external_size(const char *datarep, int incount, ol_datatype_t *datatype,
                              MPI_Aint *size)
{
    int err = check_datarep(datarep);
    if (err == MPI_SUCCESS)
        *size = (MPI_Aint)ol_dt_external32_size(datatype, incount);
    return err;
}

int ol_api_pack_external_size_c(const char *datarep, MPI_Count incount, ol_datatype_t *datatype,
                                MPI_Count *size)
{
    int err = check_datarep(datarep);
    if (err == MPI_SUCCESS)
        *size = (MPI_Count)ol_dt_external32_size(datatype, incount);
    return err;
}

/* ---- addresses --------------------------------------------------------- */

int ol_api_get_address(const void *location, MPI_Aint *address)
{
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

/* Address arithmetic wraps as the machine's does (no signed overflow). */
MPI_Aint ol_api_aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint ol_api_aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

/* ---- elements in a status ---------------------------------------------- */

static int elements(const MPI_Status *status, ol_datatype_t *datatype, MPI_Count *count)
{
    if (status == MPI_STATUS_IGNORE) {
        ol_api_set_detail("status is MPI_STATUS_IGNORE");
        return MPI_ERR_ARG;
    }
    *count = ol_dt_elements_in(datatype, ol_status_get_bytes(status));
    return MPI_SUCCESS;
}

int ol_api_get_elements(const MPI_Status *status, ol_datatype_t *datatype, int *count)
{
    MPI_Count wide;
    int err = elements(status, datatype, &wide);
    if (err == MPI_SUCCESS)
        *count = int_or_undefined(wide);
    return err;
}

int ol_api_get_elements_c(const MPI_Status *status, ol_datatype_t *datatype, MPI_Count *count)
{
    return elements(status, datatype, count);
}

int ol_api_get_elements_x(const MPI_Status *status, ol_datatype_t *datatype, MPI_Count *count)
{
    return elements(status, datatype, count);
}

int ol_api_status_set_elements_c(MPI_Status *status, ol_datatype_t *datatype, MPI_Count count)
{
    ol_status_set_bytes(status, count * (MPI_Count)datatype->size);
    return MPI_SUCCESS;
}

int ol_api_status_set_elements(MPI_Status *status, ol_datatype_t *datatype, int count)
{
    return ol_api_status_set_elements_c(status, datatype, count);
}

int ol_api_status_set_elements_x(MPI_Status *status, ol_datatype_t *datatype, MPI_Count count)
{
    return ol_api_status_set_elements_c(status, datatype, count);
}
