/* external32, the portable representation of MPI_Pack_external: big-endian,
 * IEEE floating point, and the sizes of the standard's table (a C long is
 * 4 bytes, a long double a 16-byte binary128, a wchar_t 2 bytes).
 *
 * Conversion goes through the native packed stream: a type's stream is its
 * parts' streams in order (dt_internal.h), so the walk needs no layout, and
 * a type with one old type converts count * n old elements in one go. */
#include "dt_internal.h"

#include <float.h>
#include <string.h>

#if LDBL_MANT_DIG != 113 && !defined(__SIZEOF_FLOAT128__)
#error "external32 needs long double to be binary128, or the compiler's __float128"
#endif

enum kind {
    RAW,         /* bytes that need no conversion */
    SIGNED,      /* two's complement integer: sign-extended when it widens */
    UNSIGNED,    /* zero-extended */
    IEEE,        /* same format in both: only the byte order changes */
    COMPLEX,     /* two IEEE halves */
    LONG_DOUBLE, /* native long double <-> binary128 */
    LONG_DOUBLE_COMPLEX,
};

typedef struct external {
    unsigned char size;
    unsigned char kind;
} external_t;

#define X(handle, size, kind) [OL_DT_SLOT(handle)] = {size, kind}

/* binary16 is IEEE; bfloat16, which the standard's table lacks, travels the
 * same way: its 2 bytes big-endian. */
static const external_t externals[OL_DT_SLOTS] = {
    X(MPI_AINT, 8, SIGNED), X(MPI_COUNT, 8, SIGNED), X(MPI_OFFSET, 8, SIGNED),
    X(MPI_PACKED, 1, RAW), X(MPI_SHORT, 2, SIGNED), X(MPI_INT, 4, SIGNED),
    X(MPI_LONG, 4, SIGNED), X(MPI_LONG_LONG, 8, SIGNED), X(MPI_UNSIGNED_SHORT, 2, UNSIGNED),
    X(MPI_UNSIGNED, 4, UNSIGNED), X(MPI_UNSIGNED_LONG, 4, UNSIGNED),
    X(MPI_UNSIGNED_LONG_LONG, 8, UNSIGNED), X(MPI_FLOAT, 4, IEEE),
    X(MPI_C_FLOAT_COMPLEX, 8, COMPLEX), X(MPI_CXX_FLOAT_COMPLEX, 8, COMPLEX),
    X(MPI_DOUBLE, 8, IEEE), X(MPI_C_DOUBLE_COMPLEX, 16, COMPLEX),
    X(MPI_CXX_DOUBLE_COMPLEX, 16, COMPLEX), X(MPI_CHARACTER, 1, RAW),
    X(MPI_LONG_DOUBLE, 16, LONG_DOUBLE), X(MPI_C_LONG_DOUBLE_COMPLEX, 32, LONG_DOUBLE_COMPLEX),
    X(MPI_CXX_LONG_DOUBLE_COMPLEX, 32, LONG_DOUBLE_COMPLEX), X(MPI_C_BOOL, 1, RAW),
    X(MPI_CXX_BOOL, 1, RAW), X(MPI_WCHAR, 2, UNSIGNED), X(MPI_INT8_T, 1, RAW),
    X(MPI_UINT8_T, 1, RAW), X(MPI_CHAR, 1, RAW), X(MPI_SIGNED_CHAR, 1, RAW),
    X(MPI_UNSIGNED_CHAR, 1, RAW), X(MPI_BYTE, 1, RAW), X(MPI_INT16_T, 2, SIGNED),
    X(MPI_UINT16_T, 2, UNSIGNED), X(MPI_INT32_T, 4, SIGNED), X(MPI_UINT32_T, 4, UNSIGNED),
    X(MPI_INT64_T, 8, SIGNED), X(MPI_UINT64_T, 8, UNSIGNED), X(MPI_LOGICAL1, 1, RAW),
    X(MPI_INTEGER1, 1, RAW), X(MPI_LOGICAL2, 2, SIGNED), X(MPI_INTEGER2, 2, SIGNED),
    X(MPI_REAL2, 2, IEEE), X(MPI_LOGICAL4, 4, SIGNED), X(MPI_INTEGER4, 4, SIGNED),
    X(MPI_REAL4, 4, IEEE), X(MPI_COMPLEX4, 4, COMPLEX), X(MPI_LOGICAL8, 8, SIGNED),
    X(MPI_INTEGER8, 8, SIGNED), X(MPI_REAL8, 8, IEEE), X(MPI_COMPLEX8, 8, COMPLEX),
    X(MPI_LOGICAL16, 16, SIGNED), X(MPI_INTEGER16, 16, SIGNED), X(MPI_REAL16, 16, IEEE),
    X(MPI_COMPLEX16, 16, COMPLEX), X(MPI_COMPLEX32, 32, COMPLEX),
    X(MPIX_C_FLOAT16, 2, IEEE), X(MPIX_C_BF16, 2, IEEE),
};

/* INTEGER, REAL and the other Fortran types of variable size convert as
 * their sized twin (INTEGER4 by default, as the standard's table has it). */
static const external_t *external_of(const ol_datatype_t *basic)
{
    return &externals[OL_DT_SLOT(ol_dt_to_handle(ol_dt_sized_twin(basic)))];
}

size_t ol_dt_basic_external32_size(const ol_datatype_t *basic)
{
    return external_of(basic)->size;
}

size_t ol_dt_basic_alignment(const ol_datatype_t *basic)
{
    switch (external_of(basic)->kind) {
    case COMPLEX: return basic->size / 2;
    case LONG_DOUBLE:
    case LONG_DOUBLE_COMPLEX: return _Alignof(long double);
    default: return basic->size;
    }
}

/* Byte i of a native value of n bytes, least significant first. */
static inline unsigned char *significant_byte(unsigned char *value, size_t n, size_t i)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    (void)n;
    return value + i;
#else
    return value + n - 1 - i;
#endif
}

/* Between a native integer of n bytes and a big-endian one of m bytes:
 * narrowing keeps the low bytes (the standard leaves overflow undefined),
 * widening extends the sign when is_signed. */
static void integer_to_external(const unsigned char *native, size_t n, unsigned char *ext,
                                size_t m, bool is_signed)
{
    unsigned char top = *significant_byte((unsigned char *)native, n, n - 1);
    unsigned char extension = is_signed && (top & 0x80) ? 0xff : 0;
    for (size_t i = 0; i < m; i++)
        ext[m - 1 - i] = i < n ? *significant_byte((unsigned char *)native, n, i) : extension;
}

static void integer_from_external(const unsigned char *ext, size_t m, unsigned char *native,
                                  size_t n, bool is_signed)
{
    unsigned char extension = is_signed && (ext[0] & 0x80) ? 0xff : 0;
    for (size_t i = 0; i < n; i++)
        *significant_byte(native, n, i) = i < m ? ext[m - 1 - i] : extension;
}

static void long_double_to_external(const unsigned char *native, unsigned char *ext)
{
#if LDBL_MANT_DIG == 113
    integer_to_external(native, 16, ext, 16, false);
#else
    long double value;
    memcpy(&value, native, sizeof(value));
    __float128 quad = (__float128)value;
    integer_to_external((const unsigned char *)&quad, 16, ext, 16, false);
#endif
}

static void long_double_from_external(const unsigned char *ext, unsigned char *native)
{
#if LDBL_MANT_DIG == 113
    integer_from_external(ext, 16, native, 16, false);
#else
    __float128 quad;
    integer_from_external(ext, 16, (unsigned char *)&quad, 16, false);
    long double value = (long double)quad;
    memcpy(native, &value, sizeof(value));
#endif
}

/* One basic element; the halves of a complex number convert separately. */
static void convert_one(const external_t *x, size_t n, const unsigned char *from,
                        unsigned char *to, bool to_external)
{
    size_t m = x->size;
    switch (x->kind) {
    case RAW: memcpy(to, from, n); return;
    case SIGNED:
    case UNSIGNED:
    case IEEE:
        if (to_external)
            integer_to_external(from, n, to, m, x->kind == SIGNED);
        else
            integer_from_external(from, m, to, n, x->kind == SIGNED);
        return;
    case COMPLEX: {
        external_t half = {(unsigned char)(m / 2), IEEE};
        convert_one(&half, n / 2, from, to, to_external);
        convert_one(&half, n / 2, from + (to_external ? n : m) / 2,
                    to + (to_external ? m : n) / 2, to_external);
        return;
    }
    case LONG_DOUBLE:
        if (to_external)
            long_double_to_external(from, to);
        else
            long_double_from_external(from, to);
        return;
    case LONG_DOUBLE_COMPLEX: {
        external_t half = {16, LONG_DOUBLE};
        convert_one(&half, n / 2, from, to, to_external);
        convert_one(&half, n / 2, from + (to_external ? n / 2 : 16),
                    to + (to_external ? 16 : n / 2), to_external);
        return;
    }
    }
}

static void convert(const ol_datatype_t *dt, MPI_Count count, const unsigned char **from,
                    unsigned char **to, bool to_external)
{
    const struct ol_dt_layout *layout = dt->layout;
    if (!layout) {
        const external_t *x = external_of(dt);
        size_t from_size = to_external ? dt->size : x->size;
        size_t to_size = to_external ? x->size : dt->size;
        for (MPI_Count k = 0; k < count; k++, *from += from_size, *to += to_size)
            convert_one(x, dt->size, *from, *to, to_external);
        return;
    }
    if (layout->nparts == 1) {
        convert(layout->parts[0].type, count * layout->parts[0].count, from, to, to_external);
        return;
    }
    for (MPI_Count k = 0; k < count; k++)
        for (size_t i = 0; i < layout->nparts; i++)
            convert(layout->parts[i].type, layout->parts[i].count, from, to, to_external);
}

size_t ol_dt_external32_size(const ol_datatype_t *dt, MPI_Count count)
{
    return (size_t)count * ol_dt_external32_size_of(dt);
}

void ol_dt_native_to_external32(const ol_datatype_t *dt, MPI_Count count, const void *native,
                                void *external)
{
    const unsigned char *from = native;
    unsigned char *to = external;
    convert(dt, count, &from, &to, true);
}

void ol_dt_external32_to_native(const ol_datatype_t *dt, MPI_Count count, const void *external,
                                void *native)
{
    const unsigned char *from = external;
    unsigned char *to = native;
    convert(dt, count, &from, &to, false);
}
