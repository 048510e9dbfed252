/* The predefined datatypes, indexed by OL_DT_SLOT(handle), and the
 * translation between handles and datatype objects.
 *
 * Sizes come from this platform's C types; Fortran types use the sizes of
 * gfortran's defaults (INTEGER, REAL, LOGICAL: 4 bytes) until a Fortran
 * layer sets those of its compiler (MPI_Abi_set_fortran_info). The pair
 * types of MINLOC/MAXLOC are two basic elements each and may have holes
 * (SHORT_INT: 6 bytes of data in an 8-byte extent, with a hole after the
 * short), so they carry a static layout like a derived struct's (the last
 * number of PAIR_LAYOUT is the pair's size in external32). The Fortran
 * pairs have no hole whatever their size: their data is one block. */
#include "dt_internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

/* Handles below this are the ABI's predefined constants, never an object. */
#define DT_RESERVED_HANDLES 0x1000

static ol_datatype_t predefined[OL_DT_SLOTS];

#define BASIC(handle) (&predefined[OL_DT_SLOT(handle)])

/* A pair type's layout: its two members as the C struct lays them out. */
#define PAIR_LAYOUT(id, a, ha, b, hb, ext32)                                                         \
    struct id { a first; b second; };                                                           \
    static const ol_dt_entry_t id##_entries[2] = {                                              \
        {.reps = 1, .bytes = sizeof(a)},                                                        \
        {.disp = offsetof(struct id, second), .reps = 1, .bytes = sizeof(b),                    \
         .packed_start = sizeof(a)}};                                                           \
    static const ol_dt_node_t id##_node = {                                                     \
        .count = 2, .size = sizeof(a) + sizeof(b), .entries = id##_entries};                    \
    static const ol_dt_part_t id##_parts[2] = {{BASIC(ha), 1}, {BASIC(hb), 1}};                \
    static struct ol_dt_layout id##_layout = {                                                  \
        .env = {.combiner = MPI_COMBINER_NAMED}, .nparts = 2, .parts = id##_parts,              \
        .elements = 2, .alignment = _Alignof(struct id), .external32_size = (ext32),      \
        .root = &id##_node}

PAIR_LAYOUT(float_int, float, MPI_FLOAT, int, MPI_INT, 8);
PAIR_LAYOUT(double_int, double, MPI_DOUBLE, int, MPI_INT, 12);
PAIR_LAYOUT(long_int, long, MPI_LONG, int, MPI_INT, 8);
PAIR_LAYOUT(two_int, int, MPI_INT, int, MPI_INT, 8);
PAIR_LAYOUT(short_int, short, MPI_SHORT, int, MPI_INT, 6);
PAIR_LAYOUT(long_double_int, long double, MPI_LONG_DOUBLE, int, MPI_INT, 20);

/* A Fortran pair: two members of `member` bytes, one block (root NULL). */
#define FORTRAN_PAIR_LAYOUT(id, h, member)                                                      \
    static const ol_dt_part_t id##_parts[2] = {{BASIC(h), 1}, {BASIC(h), 1}};                   \
    static struct ol_dt_layout id##_layout = {                                                  \
        .env = {.combiner = MPI_COMBINER_NAMED}, .nparts = 2, .parts = id##_parts,              \
        .elements = 2, .alignment = (member), .external32_size = 2 * (member)}

FORTRAN_PAIR_LAYOUT(two_real, MPI_REAL, 4);
FORTRAN_PAIR_LAYOUT(two_double_precision, MPI_DOUBLE_PRECISION, 8);
FORTRAN_PAIR_LAYOUT(two_integer, MPI_INTEGER, 4);

/* Each macro names the type itself (#handle): one level further down, the
 * argument would already be expanded to its value. */
#define ENTRY(handle, nm, sz, ext, true_ext, lay)                                               \
    [OL_DT_SLOT(handle)] = {                                                                    \
        .refcount = 1, .predefined = true, .committed = true,                                   \
        .contiguous = (sz) == (size_t)(ext), .size = (sz), .extent = (MPI_Aint)(ext),           \
        .true_extent = (MPI_Aint)(true_ext), .name = nm, .layout = (lay)}
#define SIMPLE(handle, type) ENTRY(handle, #handle, sizeof(type), sizeof(type), sizeof(type), NULL)
/* A handle with two names in the ABI: MPI_Type_get_name gives the older
 * one, as MPICH and Open MPI do (MPICH's typename test expects it). */
#define ALIASED(handle, type, nm) ENTRY(handle, nm, sizeof(type), sizeof(type), sizeof(type), NULL)
#define BYTES(handle, n) ENTRY(handle, #handle, n, n, n, NULL)
#define MEMBER_SIZE(id, member) sizeof(((struct id *)0)->member)
#define PAIR(handle, id)                                                                        \
    ENTRY(handle, #handle, MEMBER_SIZE(id, first) + MEMBER_SIZE(id, second), sizeof(struct id), \
          offsetof(struct id, second) + MEMBER_SIZE(id, second), &id##_layout)

static ol_datatype_t predefined[OL_DT_SLOTS] = {
    SIMPLE(MPI_AINT, MPI_Aint),
    SIMPLE(MPI_COUNT, MPI_Count),
    SIMPLE(MPI_OFFSET, MPI_Offset),
    BYTES(MPI_PACKED, 1),
    SIMPLE(MPI_SHORT, short),
    SIMPLE(MPI_INT, int),
    SIMPLE(MPI_LONG, long),
    ALIASED(MPI_LONG_LONG, long long, "MPI_LONG_LONG_INT"),
    SIMPLE(MPI_UNSIGNED_SHORT, unsigned short),
    SIMPLE(MPI_UNSIGNED, unsigned),
    SIMPLE(MPI_UNSIGNED_LONG, unsigned long),
    SIMPLE(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    SIMPLE(MPI_FLOAT, float),
    ALIASED(MPI_C_FLOAT_COMPLEX, float _Complex, "MPI_C_COMPLEX"),
    BYTES(MPI_CXX_FLOAT_COMPLEX, 2 * sizeof(float)),
    SIMPLE(MPI_DOUBLE, double),
    BYTES(MPI_C_DOUBLE_COMPLEX, 2 * sizeof(double)),
    BYTES(MPI_CXX_DOUBLE_COMPLEX, 2 * sizeof(double)),
    BYTES(MPI_LOGICAL, 4),
    BYTES(MPI_INTEGER, 4),
    BYTES(MPI_REAL, 4),
    BYTES(MPI_COMPLEX, 8),
    BYTES(MPI_DOUBLE_PRECISION, 8),
    BYTES(MPI_DOUBLE_COMPLEX, 16),
    BYTES(MPI_CHARACTER, 1),
    SIMPLE(MPI_LONG_DOUBLE, long double),
    BYTES(MPI_C_LONG_DOUBLE_COMPLEX, 2 * sizeof(long double)),
    BYTES(MPI_CXX_LONG_DOUBLE_COMPLEX, 2 * sizeof(long double)),
    PAIR(MPI_FLOAT_INT, float_int),
    PAIR(MPI_DOUBLE_INT, double_int),
    PAIR(MPI_LONG_INT, long_int),
    PAIR(MPI_2INT, two_int),
    PAIR(MPI_SHORT_INT, short_int),
    PAIR(MPI_LONG_DOUBLE_INT, long_double_int),
    ENTRY(MPI_2REAL, "MPI_2REAL", 8, 8, 8, &two_real_layout),
    ENTRY(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 16, 16,
          &two_double_precision_layout),
    ENTRY(MPI_2INTEGER, "MPI_2INTEGER", 8, 8, 8, &two_integer_layout),
    SIMPLE(MPI_C_BOOL, _Bool),
    BYTES(MPI_CXX_BOOL, 1),
    SIMPLE(MPI_WCHAR, wchar_t),
    SIMPLE(MPI_INT8_T, int8_t),
    SIMPLE(MPI_UINT8_T, uint8_t),
    SIMPLE(MPI_CHAR, char),
    SIMPLE(MPI_SIGNED_CHAR, signed char),
    SIMPLE(MPI_UNSIGNED_CHAR, unsigned char),
    BYTES(MPI_BYTE, 1),
    SIMPLE(MPI_INT16_T, int16_t),
    SIMPLE(MPI_UINT16_T, uint16_t),
    SIMPLE(MPI_INT32_T, int32_t),
    SIMPLE(MPI_UINT32_T, uint32_t),
    SIMPLE(MPI_INT64_T, int64_t),
    SIMPLE(MPI_UINT64_T, uint64_t),
    BYTES(MPI_LOGICAL1, 1),
    BYTES(MPI_INTEGER1, 1),
    BYTES(MPI_LOGICAL2, 2),
    BYTES(MPI_INTEGER2, 2),
    BYTES(MPI_REAL2, 2),
    BYTES(MPI_LOGICAL4, 4),
    BYTES(MPI_INTEGER4, 4),
    BYTES(MPI_REAL4, 4),
    BYTES(MPI_COMPLEX4, 4),
    BYTES(MPI_LOGICAL8, 8),
    BYTES(MPI_INTEGER8, 8),
    BYTES(MPI_REAL8, 8),
    BYTES(MPI_COMPLEX8, 8),
    BYTES(MPI_LOGICAL16, 16),
    BYTES(MPI_INTEGER16, 16),
    BYTES(MPI_REAL16, 16),
    BYTES(MPI_COMPLEX16, 16),
    BYTES(MPI_COMPLEX32, 32),
    /* mpi-ext.h: IEEE binary16 and bfloat16 */
    ENTRY(MPIX_C_FLOAT16, "MPIX_C_FLOAT16", 2, 2, 2, NULL),
    ENTRY(MPIX_C_BF16, "MPIX_C_BF16", 2, 2, 2, NULL),
};

ol_datatype_t *ol_dt_from_handle(MPI_Datatype handle)
{
    uintptr_t value = (uintptr_t)handle;
    if (value < DT_RESERVED_HANDLES) {
        int slot = ol_dt_slot(value);
        if (slot < 0)
            return NULL;
        ol_datatype_t *dt = &predefined[slot];
        return dt->predefined && !dt->unsupported ? dt : NULL;
    }
    /* A derived type's handle is its address; the magic number and the
     * count of user handles catch most stale and foreign ones. */
    ol_datatype_t *dt = (ol_datatype_t *)handle;
    if (OL_UNLIKELY(dt->magic != OL_DATATYPE_MAGIC || dt->layout->handles <= 0))
        return NULL;
    return dt;
}

MPI_Datatype ol_dt_to_handle(const ol_datatype_t *dt)
{
    if (!dt->predefined)
        return (MPI_Datatype)dt;
    size_t slot = (size_t)(dt - predefined);
    return (MPI_Datatype)(uintptr_t)(slot < OL_DT_STANDARD_COUNT
                                         ? OL_DT_STANDARD_BASE + slot
                                         : OL_DT_EXTENSION_BASE + slot - OL_DT_STANDARD_COUNT);
}

/* ---- the Fortran types' sizes and the optional types ------------------- */

/* The types of each Fortran kind with the size in their name, indexed by
 * log2 of the size; NULL where there is none (no 1-byte REAL). */
#define BY_SIZE 6
static const MPI_Datatype integers_by_size[BY_SIZE] = {
    MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER16};
static const MPI_Datatype logicals_by_size[BY_SIZE] = {
    MPI_LOGICAL1, MPI_LOGICAL2, MPI_LOGICAL4, MPI_LOGICAL8, MPI_LOGICAL16};
static const MPI_Datatype reals_by_size[BY_SIZE] = {
    MPI_DATATYPE_NULL, MPI_REAL2, MPI_REAL4, MPI_REAL8, MPI_REAL16};
static const MPI_Datatype complexes_by_size[BY_SIZE] = {
    MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_COMPLEX4, MPI_COMPLEX8, MPI_COMPLEX16,
    MPI_COMPLEX32};

static const MPI_Datatype *sized_types_of(MPI_Datatype fortran_type)
{
    if (fortran_type == MPI_INTEGER)
        return integers_by_size;
    if (fortran_type == MPI_LOGICAL)
        return logicals_by_size;
    if (fortran_type == MPI_REAL || fortran_type == MPI_DOUBLE_PRECISION)
        return reals_by_size;
    if (fortran_type == MPI_COMPLEX || fortran_type == MPI_DOUBLE_COMPLEX)
        return complexes_by_size;
    return NULL;
}

static MPI_Datatype sized_type(const MPI_Datatype *by_size, size_t size)
{
    for (int k = 0; k < BY_SIZE; k++)
        if ((size_t)1 << k == size)
            return by_size[k];
    return MPI_DATATYPE_NULL;
}

bool ol_dt_fortran_size_exists(MPI_Datatype fortran_type, size_t size)
{
    const MPI_Datatype *by_size = sized_types_of(fortran_type);
    return by_size && sized_type(by_size, size) != MPI_DATATYPE_NULL;
}

const ol_datatype_t *ol_dt_sized_twin(const ol_datatype_t *dt)
{
    const MPI_Datatype *by_size = dt->predefined ? sized_types_of(ol_dt_to_handle(dt)) : NULL;
    return by_size ? BASIC(sized_type(by_size, dt->size)) : dt;
}

void ol_dt_get_fortran_sizes(ol_fortran_sizes_t *sizes)
{
    *sizes = (ol_fortran_sizes_t){.integer = BASIC(MPI_INTEGER)->size,
                                  .logical = BASIC(MPI_LOGICAL)->size,
                                  .real = BASIC(MPI_REAL)->size,
                                  .double_precision = BASIC(MPI_DOUBLE_PRECISION)->size};
}

static void set_size(MPI_Datatype handle, size_t size)
{
    ol_datatype_t *dt = BASIC(handle);
    dt->size = size;
    dt->extent = dt->true_extent = (MPI_Aint)size;
}

static void set_pair_size(MPI_Datatype handle, size_t member)
{
    set_size(handle, 2 * member);
    BASIC(handle)->layout->alignment = member;
    BASIC(handle)->layout->external32_size = 2 * member;
}

void ol_dt_set_fortran_sizes(const ol_fortran_sizes_t *sizes)
{
    set_size(MPI_INTEGER, sizes->integer);
    set_size(MPI_LOGICAL, sizes->logical);
    set_size(MPI_REAL, sizes->real);
    set_size(MPI_DOUBLE_PRECISION, sizes->double_precision);
    set_size(MPI_COMPLEX, 2 * sizes->real);
    set_size(MPI_DOUBLE_COMPLEX, 2 * sizes->double_precision);
    set_pair_size(MPI_2INTEGER, sizes->integer);
    set_pair_size(MPI_2REAL, sizes->real);
    set_pair_size(MPI_2DOUBLE_PRECISION, sizes->double_precision);
}

void ol_dt_set_supported(MPI_Datatype handle, bool supported)
{
    BASIC(handle)->unsupported = !supported;
}

bool ol_dt_is_unsupported(MPI_Datatype handle)
{
    uintptr_t value = (uintptr_t)handle;
    int slot = ol_dt_slot(value);
    return slot >= 0 && predefined[slot].unsupported;
}
