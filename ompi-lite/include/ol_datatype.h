/* Datatypes: the object behind an MPI_Datatype handle, and the engine that
 * moves typed data (pack and unpack through a resumable cursor).
 *
 * Predefined types are a table indexed by their ABI handle value (below);
 * derived types are ol_datatype_t objects whose address is the handle.
 * ol_dt_from_handle tells them apart by value. */
#ifndef OL_DATATYPE_H
#define OL_DATATYPE_H

#include "ol_common.h"
#include "mpi-ext.h" /* ompi-lite's own predefined types */
#include <stdbool.h>

/* Predefined datatype handles are the standard's, 0x200 ... 0x2ff, and
 * ompi-lite's own of mpi-ext.h, 0x640 ... 0x64f (MPIX_C_FLOAT16,
 * MPIX_C_BF16), which lie outside the 10 bits the standard's code uses
 * (abi/README.md). Tables over the predefined types have OL_DT_SLOTS rows,
 * indexed by OL_DT_SLOT(handle), a constant expression for a constant
 * handle; ol_dt_slot checks a value first. */
#define OL_DT_STANDARD_BASE 0x200
#define OL_DT_STANDARD_COUNT 0x100
#define OL_DT_EXTENSION_BASE 0x640
#define OL_DT_EXTENSION_COUNT 0x10
#define OL_DT_SLOTS (OL_DT_STANDARD_COUNT + OL_DT_EXTENSION_COUNT)
#define OL_DT_SLOT(handle)                                                                     \
    ((uintptr_t)(handle) >= OL_DT_EXTENSION_BASE                                               \
         ? (uintptr_t)(handle) - OL_DT_EXTENSION_BASE + OL_DT_STANDARD_COUNT                   \
         : (uintptr_t)(handle) - OL_DT_STANDARD_BASE)

/* The slot of a handle value in the predefined range, -1 for any other. */
static inline int ol_dt_slot(uintptr_t value)
{
    bool standard = value >= OL_DT_STANDARD_BASE &&
                    value < OL_DT_STANDARD_BASE + OL_DT_STANDARD_COUNT;
    bool extension = value >= OL_DT_EXTENSION_BASE &&
                     value < OL_DT_EXTENSION_BASE + OL_DT_EXTENSION_COUNT;
    return standard || extension ? (int)OL_DT_SLOT(value) : -1;
}

#define OL_DATATYPE_MAGIC 0x6f6c6474U /* "oldt": a live derived datatype */

typedef struct ol_dt_layout ol_dt_layout_t; /* private to datatype/ */
struct ol_attr_list;

typedef struct ol_datatype {
    uint32_t magic;
    int refcount;            /* the handle and every operation in flight */
    bool predefined;
    bool unsupported;        /* an optional predefined type the program's Fortran lacks */
    bool committed;
    /* count elements of the type are one block of count * size bytes at
     * buf + true_lb: the fast path moves them without packing */
    bool contiguous;
    size_t size;             /* bytes of data in one element */
    MPI_Aint lb, extent;     /* as MPI_Type_get_extent says */
    MPI_Aint true_lb, true_extent;
    char name[MPI_MAX_OBJECT_NAME];
    ol_dt_layout_t *layout;  /* derived types: how the data lies */
    void *transport_cache;   /* owned by pt2pt: its description of the type */
    struct ol_attr_list *attrs; /* attributes (api/attr.c); NULL: none */
} ol_datatype_t;

/* Bytes that count elements of dt span from their true lower bound on:
 * what a copy of the whole buffer (gaps included) must hold. */
static inline size_t ol_dt_span(const ol_datatype_t *dt, MPI_Count count)
{
    return count > 0 ? (size_t)((count - 1) * dt->extent + dt->true_extent) : 0;
}

/* Bytes of scratch for count elements of dt laid out as in a user buffer:
 * the span, plus the padding after the last element's data within its
 * extent, which a reduction loop over a C struct reads whole (MPI_DOUBLE_INT
 * is 12 bytes of data in a 16-byte struct). */
static inline size_t ol_dt_scratch_span(const ol_datatype_t *dt, MPI_Count count)
{
    MPI_Aint tail = (dt->lb + dt->extent) - (dt->true_lb + dt->true_extent);
    return ol_dt_span(dt, count) + (count > 0 && tail > 0 ? (size_t)tail : 0);
}

/* Where the data of a buffer of dt begins (buf + true_lb). Computed as an
 * integer: with MPI_BOTTOM (NULL) and a type of absolute addresses, or the
 * private copy an overlapping collective sends from, buf points at no
 * object. */
static inline void *ol_dt_data_at(const void *buf, const ol_datatype_t *dt)
{
    return (void *)((uintptr_t)buf + (uintptr_t)dt->true_lb);
}

/* The buffer address that puts dt's data at `data` (data - true_lb), for
 * scratch laid out like a user buffer. Computed as an integer: with a type
 * of absolute addresses (MPI_BOTTOM) the buffer lies outside any object. */
static inline void *ol_dt_buffer_for(void *data, const ol_datatype_t *dt)
{
    return (void *)((uintptr_t)data - (uintptr_t)dt->true_lb);
}

/* The type's name for a sentence: its MPI name, or what it is. */
static inline const char *ol_dt_name(const ol_datatype_t *dt)
{
    return dt->name[0] ? dt->name : "a derived datatype";
}

/* NULL for MPI_DATATYPE_NULL, an unsupported optional type and anything
 * that is no live datatype. */
ol_datatype_t *ol_dt_from_handle(MPI_Datatype handle);
MPI_Datatype ol_dt_to_handle(const ol_datatype_t *dt);

/* The Fortran types whose size a compiler option changes, as
 * MPI_Abi_set_fortran_info sets them (gfortran's defaults until then: 4, 4,
 * 4 and 8 bytes). COMPLEX and DOUBLE COMPLEX are two REALs and two DOUBLE
 * PRECISIONs, 2INTEGER, 2REAL and 2DOUBLE_PRECISION two of their member. */
typedef struct ol_fortran_sizes {
    size_t integer, logical, real, double_precision;
} ol_fortran_sizes_t;

void ol_dt_get_fortran_sizes(ol_fortran_sizes_t *sizes);
/* Each size must have a twin (ol_dt_fortran_size_exists). Types built
 * from the Fortran types before the call keep the sizes they had. */
void ol_dt_set_fortran_sizes(const ol_fortran_sizes_t *sizes);
/* Whether the Fortran type (MPI_INTEGER, MPI_LOGICAL, MPI_REAL or
 * MPI_DOUBLE_PRECISION) may have this size: whether a type of the same
 * kind with this size in its name exists (MPI_INTEGER8 for 8). */
bool ol_dt_fortran_size_exists(MPI_Datatype fortran_type, size_t size);
/* For INTEGER, LOGICAL, REAL, DOUBLE PRECISION, COMPLEX and DOUBLE COMPLEX,
 * the type of the same kind and size with the size in its name (INTEGER ->
 * INTEGER4 with the default sizes), whose reductions and external32
 * conversion they share; any other type itself. */
const ol_datatype_t *ol_dt_sized_twin(const ol_datatype_t *dt);

/* The optional predefined types (MPI_INTEGER1 ... MPI_COMPLEX32,
 * MPI_DOUBLE_COMPLEX) are supported until the program says otherwise
 * (MPI_Abi_set_fortran_info); an unsupported one is no valid datatype, and
 * MPI_Type_size answers MPI_UNDEFINED for it. */
void ol_dt_set_supported(MPI_Datatype handle, bool supported);
bool ol_dt_is_unsupported(MPI_Datatype handle);

/* Operations in flight keep a derived type alive after MPI_Type_free. */
void ol_dt_retain(ol_datatype_t *dt);
void ol_dt_release(ol_datatype_t *dt);

/* Frees what pt2pt cached in transport_cache; set once by pt2pt. */
extern void (*ol_dt_transport_cache_free)(void *cache);

/* A position in the packed stream of count elements at buf. Packing and
 * unpacking at increasing offsets is linear in the data; any offset works
 * (a transport may resend). */
typedef struct ol_dt_cursor ol_dt_cursor_t;

ol_dt_cursor_t *ol_dt_cursor_create(const ol_datatype_t *dt, const void *buf, MPI_Count count);
void ol_dt_cursor_free(ol_dt_cursor_t *cursor);
/* Bytes packed into dst (at most max) from packed-stream offset. */
size_t ol_dt_cursor_pack(ol_dt_cursor_t *cursor, size_t offset, void *dst, size_t max);
/* Unpacks length bytes of packed stream that start at offset. */
void ol_dt_cursor_unpack(ol_dt_cursor_t *cursor, size_t offset, const void *src, size_t length);

/* Packs/unpacks everything at once (MPI_Pack, collectives' scratch copies). */
void ol_dt_pack_all(const ol_datatype_t *dt, const void *buf, MPI_Count count, void *dst);
void ol_dt_unpack_all(const ol_datatype_t *dt, void *buf, MPI_Count count, const void *src);
/* Unpacks the first `bytes` (at most count * size) of the packed stream: a
 * message shorter than the receive buffer, maybe ending inside an element. */
void ol_dt_unpack_first(const ol_datatype_t *dt, void *buf, MPI_Count count, const void *src,
                        size_t bytes);

/* Basic elements in the first bytes of a stream of this type, or
 * MPI_UNDEFINED when bytes ends inside a basic element (MPI_Get_elements). */
MPI_Count ol_dt_elements_in(const ol_datatype_t *dt, MPI_Count bytes);

/* Constructors behind MPI_Type_*. Arguments are checked by the caller (the
 * API layer says what was wrong); every count, blocklength and displacement
 * arrives widened to MPI_Count, displacements in elements of oldtype unless
 * `bytes` says bytes. `large` says the caller was the _c form, which decides
 * how MPI_Type_get_contents reports the arguments. The result has one user
 * handle; MPI_ERR_NO_MEM is the only failure. */
ol_status_t ol_dt_create_contiguous(MPI_Count count, ol_datatype_t *oldtype, bool large,
                                    ol_datatype_t **newtype);
ol_status_t ol_dt_create_vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                bool bytes, ol_datatype_t *oldtype, bool large,
                                ol_datatype_t **newtype);
/* blocklengths NULL: every block has blocklength (the _block forms). */
ol_status_t ol_dt_create_indexed(MPI_Count count, const MPI_Count *blocklengths,
                                 MPI_Count blocklength, const MPI_Count *displacements, bool bytes,
                                 ol_datatype_t *oldtype, bool large, ol_datatype_t **newtype);
ol_status_t ol_dt_create_struct(MPI_Count count, const MPI_Count *blocklengths,
                                const MPI_Count *displacements, ol_datatype_t *const *types,
                                bool large, ol_datatype_t **newtype);
ol_status_t ol_dt_create_resized(ol_datatype_t *oldtype, MPI_Count lb, MPI_Count extent,
                                 bool large, ol_datatype_t **newtype);
ol_status_t ol_dt_create_dup(ol_datatype_t *oldtype, ol_datatype_t **newtype);
ol_status_t ol_dt_create_subarray(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                                  const MPI_Count *starts, int order, ol_datatype_t *oldtype,
                                  bool large, ol_datatype_t **newtype);
/* dargs already resolved: MPI_DISTRIBUTE_DFLT_DARG is passed through and
 * means the standard's default for the distribution. */
ol_status_t ol_dt_create_darray(int size, int rank, int ndims, const MPI_Count *gsizes,
                                const int *distribs, const int *dargs, const int *psizes,
                                int order, ol_datatype_t *oldtype, bool large,
                                ol_datatype_t **newtype);

/* The type of MPI_Type_create_f90_real/complex/integer (combiner
 * MPI_COMBINER_F90_*; p is ignored for integers) of the named kind:
 * predefined in all but the handle (committed, never freed, the named
 * type's data); the API keeps one per arguments. */
ol_status_t ol_dt_create_f90(int combiner, int p, int r, ol_datatype_t *named,
                             ol_datatype_t **newtype);
bool ol_dt_is_f90(const ol_datatype_t *dt);
/* The one predefined type all of dt's data is made of (the constructors'
 * old types, recursively), NULL if there are several: what a predefined
 * reduction operator runs on. */
const ol_datatype_t *ol_dt_basic_type(const ol_datatype_t *dt);

/* Makes the type usable for communication: computes `contiguous`. */
void ol_dt_commit(ol_datatype_t *dt);
/* MPI_Type_free: the user's handle goes; operations in flight keep the
 * object until they release it. */
void ol_dt_free_handle(ol_datatype_t *dt);

/* What MPI_Type_get_envelope/get_contents answer. The datatypes array holds
 * the constructor's types; a derived one returned to the user must be
 * given a handle with ol_dt_new_handle. */
typedef struct ol_dt_contents {
    int combiner;
    MPI_Count nints, naddrs, ncounts, ntypes;
    const int *ints;
    const MPI_Aint *addrs;
    const MPI_Count *counts;
    ol_datatype_t *const *types;
} ol_dt_contents_t;
void ol_dt_get_contents(const ol_datatype_t *dt, ol_dt_contents_t *contents);
/* One more user handle to an existing derived type (no-op if predefined). */
void ol_dt_new_handle(ol_datatype_t *dt);

/* MPI_Type_toint/fromint: predefined types convert to their handle value,
 * derived ones to an index in a table. */
int ol_dt_to_int(ol_datatype_t *dt);
ol_datatype_t *ol_dt_from_int(int value);

/* Calls visit for each contiguous block of the data of count elements of
 * dt at buf (adjacent blocks may come separately), in typemap order, until
 * it returns false; returns false if it stopped early. Costs one call per
 * block: callers bound the work themselves. */
typedef bool (*ol_dt_block_fn)(uintptr_t address, size_t bytes, void *ctx);
bool ol_dt_for_each_block(const ol_datatype_t *dt, const void *buf, MPI_Count count,
                          ol_dt_block_fn visit, void *ctx);

/* external32 (MPI_Pack_external): bytes of count elements, and conversion
 * of a native packed stream (as ol_dt_pack_all writes it) to external32
 * and back. */
size_t ol_dt_external32_size(const ol_datatype_t *dt, MPI_Count count);
void ol_dt_native_to_external32(const ol_datatype_t *dt, MPI_Count count, const void *native,
                                void *external);
void ol_dt_external32_to_native(const ol_datatype_t *dt, MPI_Count count, const void *external,
                                void *native);

#endif
