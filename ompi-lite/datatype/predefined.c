/* The predefined datatypes, indexed by ABI handle value - 0x200.
 *
 * Sizes come from this platform's C types; Fortran types use the sizes of
 * gfortran's defaults (INTEGER, REAL, LOGICAL: 4 bytes). The pair types of
 * MINLOC/MAXLOC have holes (DOUBLE_INT: 12 bytes of data in a 16-byte
 * extent), which is why size and extent are separate. */
#include "ol_datatype.h"

#include <stdbool.h>
#include <wchar.h>

#define DT_BASE 0x200
#define DT_COUNT 0x100

#define PAIR_EXTENT(a, b) sizeof(struct { a first; b second; })
#define ENTRY(handle, sz, ext, nm)                                                            \
    [(uintptr_t)(handle) - DT_BASE] = {                                                      \
        .size = (sz), .extent = (MPI_Aint)(ext), .contiguous = (sz) == (size_t)(ext),        \
        .committed = true, .name = nm }
#define SIMPLE(handle, type) ENTRY(handle, sizeof(type), sizeof(type), #handle)
#define BYTES(handle, n) ENTRY(handle, n, n, #handle)
#define PAIR(handle, a, b) ENTRY(handle, sizeof(a) + sizeof(b), PAIR_EXTENT(a, b), #handle)

static ol_datatype_t predefined[DT_COUNT] = {
    SIMPLE(MPI_AINT, MPI_Aint),
    SIMPLE(MPI_COUNT, MPI_Count),
    SIMPLE(MPI_OFFSET, MPI_Offset),
    BYTES(MPI_PACKED, 1),
    SIMPLE(MPI_SHORT, short),
    SIMPLE(MPI_INT, int),
    SIMPLE(MPI_LONG, long),
    SIMPLE(MPI_LONG_LONG, long long),
    SIMPLE(MPI_UNSIGNED_SHORT, unsigned short),
    SIMPLE(MPI_UNSIGNED, unsigned),
    SIMPLE(MPI_UNSIGNED_LONG, unsigned long),
    SIMPLE(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    SIMPLE(MPI_FLOAT, float),
    BYTES(MPI_C_FLOAT_COMPLEX, 2 * sizeof(float)),
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
    PAIR(MPI_FLOAT_INT, float, int),
    PAIR(MPI_DOUBLE_INT, double, int),
    PAIR(MPI_LONG_INT, long, int),
    PAIR(MPI_2INT, int, int),
    PAIR(MPI_SHORT_INT, short, int),
    PAIR(MPI_LONG_DOUBLE_INT, long double, int),
    BYTES(MPI_2REAL, 8),
    BYTES(MPI_2DOUBLE_PRECISION, 16),
    BYTES(MPI_2INTEGER, 8),
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
};

ol_datatype_t *ol_dt_from_handle(MPI_Datatype handle)
{
    uintptr_t value = (uintptr_t)handle;
    if (value < DT_BASE || value >= DT_BASE + DT_COUNT)
        return NULL; /* derived datatypes arrive with the datatype engine */
    ol_datatype_t *dt = &predefined[value - DT_BASE];
    return dt->name ? dt : NULL;
}
