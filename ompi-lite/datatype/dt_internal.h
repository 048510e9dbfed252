/* What the files of datatype/ share: the layout tree that pack and unpack
 * walk, and the private part of a datatype (its constructor arguments for
 * MPI_Type_get_contents, its parts for MPI_Get_elements and external32).
 * See README.md for the representation and its costs. */
#ifndef OL_DT_INTERNAL_H
#define OL_DT_INTERNAL_H

#include "ol_datatype.h"

#include <stdbool.h>

typedef struct ol_dt_node ol_dt_node_t;

/* reps repetitions, stride bytes apart, of either a contiguous block of
 * `bytes` bytes (child == NULL) or an instance of child (`bytes` is then its
 * packed size). Displacements are from the origin of the enclosing node. */
typedef struct ol_dt_entry {
    MPI_Aint disp;
    MPI_Count reps;
    MPI_Aint stride;
    const ol_dt_node_t *child;
    size_t bytes;
    size_t packed_start; /* where the entry begins in its node's packed stream */
} ol_dt_entry_t;

/* The data of one element: entries in typemap order, never empty. A built
 * node and its entries are one allocation; the pair types' are static. */
struct ol_dt_node {
    ol_dt_node_t *next_owned; /* the other nodes of the datatype that owns this one */
    size_t count;
    size_t size; /* packed bytes */
    const ol_dt_entry_t *entries;
};

/* count elements of type, in the packed stream of an element. */
typedef struct ol_dt_part {
    const ol_datatype_t *type;
    MPI_Count count;
} ol_dt_part_t;

/* The arguments of the constructor, as MPI_Type_get_contents returns them. */
typedef struct ol_dt_envelope {
    int combiner;
    MPI_Count nints, naddrs, ncounts, ntypes;
    int *ints;
    MPI_Aint *addrs;
    MPI_Count *counts;
    ol_datatype_t **types; /* retained */
} ol_dt_envelope_t;

/* A datatype's private part. Predefined types with one basic element have
 * none (layout == NULL: size bytes at offset 0); the pair types of
 * MINLOC/MAXLOC have a static one. */
struct ol_dt_layout {
    ol_dt_envelope_t env;
    int handles;                 /* user handles to the type; 0: freed by MPI_Type_free */
    int handle_int;              /* MPI_Type_toint's value, 0 until asked for */
    size_t nparts;
    const ol_dt_part_t *parts;   /* the packed stream of one element, in order */
    MPI_Count elements;          /* basic elements in one element */
    size_t alignment;            /* of the most aligned basic element (struct padding) */
    bool explicit_bounds;        /* resized, or built from a resized type */
    size_t external32_size;      /* bytes of one element in external32 */
    const ol_dt_node_t *root;    /* NULL: the data is size bytes at offset 0, or none */
    ol_dt_node_t *owned;         /* nodes allocated for this type */
    ol_datatype_t *inner;        /* subarray, darray: the type built to describe it;
                                  * f90 types: the named type */
    ol_dt_part_t single_part;    /* parts of a type with one old type */
};

/* A predefined type's external32 size, and its alignment in memory
 * (external32.c). */
size_t ol_dt_basic_external32_size(const ol_datatype_t *basic);
size_t ol_dt_basic_alignment(const ol_datatype_t *basic);

/* The node of a type's data; NULL where the data is size bytes at offset 0
 * (or size is 0: nothing walks a type without data). */
static inline const ol_dt_node_t *ol_dt_root(const ol_datatype_t *dt)
{
    return dt->layout ? dt->layout->root : NULL;
}

static inline MPI_Count ol_dt_elements_per(const ol_datatype_t *dt)
{
    return dt->layout ? dt->layout->elements : 1;
}

static inline size_t ol_dt_external32_size_of(const ol_datatype_t *dt)
{
    return dt->layout ? dt->layout->external32_size : ol_dt_basic_external32_size(dt);
}

static inline size_t ol_dt_alignment(const ol_datatype_t *dt)
{
    return dt->layout ? dt->layout->alignment : ol_dt_basic_alignment(dt);
}

/* The arguments of MPI_Type_create_subarray (sizes, subsizes, starts, order)
 * or _darray (size, rank, sizes = gsizes, distribs, dargs, psizes, order),
 * as get_contents reports them. */
typedef struct ol_dt_array_args {
    int ndims;
    MPI_Count size, rank, order;
    const MPI_Count *sizes, *subsizes, *starts;
    const MPI_Count *distribs, *dargs, *psizes;
} ol_dt_array_args_t;

/* The subarray or darray type whose data is inner's (built from simpler
 * constructors) and whose envelope says combiner with arguments a; takes
 * over the caller's reference to inner (construct.c). */
ol_status_t ol_dt_wrap_array_type(int combiner, ol_datatype_t *inner, ol_datatype_t *oldtype,
                                  bool large, const ol_dt_array_args_t *a,
                                  ol_datatype_t **newtype);

/* Ends a derived type whose last reference went (construct.c). */
void ol_dt_destroy(ol_datatype_t *dt);

/* The handle table of MPI_Type_toint (handles.c): forgets a destroyed type. */
void ol_dt_forget_handle_int(ol_datatype_t *dt);

#endif
