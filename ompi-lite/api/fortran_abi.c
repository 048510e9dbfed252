/* Fortran type registration of the standard ABI (MPI-5.0 section 21.4.1):
 * a Fortran layer built on the C library tells it the sizes of the Fortran
 * types its compiler uses and which optional types it has
 * (MPI_Abi_set_fortran_info), and its literals of .TRUE. and .FALSE.
 * (MPI_Abi_set_fortran_booleans).
 *
 * Until then the library assumes gfortran's defaults (INTEGER, LOGICAL,
 * REAL: 4 bytes, DOUBLE PRECISION: 8, every optional type present), and
 * MPI_Abi_get_fortran_info says so; the literals are unset, and the logical
 * ops write 1 and 0. The sizes change MPI_Type_size and everything that
 * moves or reduces the types (datatype/predefined.c); an unsupported
 * optional type becomes an invalid datatype whose MPI_Type_size is
 * MPI_UNDEFINED. Each may be set once, before anything uses the types: a
 * type built from MPI_INTEGER keeps the size MPI_INTEGER had. Both calls
 * work before MPI_Init, where a Fortran layer makes them. */
#include "gen_impl.h"
#include "ol_info.h"
#include "ol_op.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The keys of the sizes: the type each sizes and its field. */
static const struct {
    const char *key;
    MPI_Datatype type;
    size_t offset;
} size_keys[] = {
    {"mpi_integer_size", MPI_INTEGER, offsetof(ol_fortran_sizes_t, integer)},
    {"mpi_logical_size", MPI_LOGICAL, offsetof(ol_fortran_sizes_t, logical)},
    {"mpi_real_size", MPI_REAL, offsetof(ol_fortran_sizes_t, real)},
    {"mpi_double_precision_size", MPI_DOUBLE_PRECISION,
     offsetof(ol_fortran_sizes_t, double_precision)},
};

/* The keys of the optional types. */
static const struct {
    const char *key;
    MPI_Datatype type;
} optional_keys[] = {
    {"mpi_logical1_supported", MPI_LOGICAL1},   {"mpi_logical2_supported", MPI_LOGICAL2},
    {"mpi_logical4_supported", MPI_LOGICAL4},   {"mpi_logical8_supported", MPI_LOGICAL8},
    {"mpi_logical16_supported", MPI_LOGICAL16}, {"mpi_integer1_supported", MPI_INTEGER1},
    {"mpi_integer2_supported", MPI_INTEGER2},   {"mpi_integer4_supported", MPI_INTEGER4},
    {"mpi_integer8_supported", MPI_INTEGER8},   {"mpi_integer16_supported", MPI_INTEGER16},
    {"mpi_real2_supported", MPI_REAL2},         {"mpi_real4_supported", MPI_REAL4},
    {"mpi_real8_supported", MPI_REAL8},         {"mpi_real16_supported", MPI_REAL16},
    {"mpi_complex4_supported", MPI_COMPLEX4},   {"mpi_complex8_supported", MPI_COMPLEX8},
    {"mpi_complex16_supported", MPI_COMPLEX16}, {"mpi_complex32_supported", MPI_COMPLEX32},
    {"mpi_double_complex_supported", MPI_DOUBLE_COMPLEX},
};

static pthread_mutex_t registration_lock = PTHREAD_MUTEX_INITIALIZER;
static bool fortran_info_set;

static size_t *size_field(ol_fortran_sizes_t *sizes, size_t key)
{
    return (size_t *)((char *)sizes + size_keys[key].offset);
}

/* ---- MPI_Abi_get_fortran_info ------------------------------------------- */

static ol_status_t describe(ol_info_t *info)
{
    ol_fortran_sizes_t sizes;
    ol_dt_get_fortran_sizes(&sizes);
    ol_status_t rc = MPI_SUCCESS;
    for (size_t i = 0; i < OL_ARRAY_SIZE(size_keys) && rc == MPI_SUCCESS; i++)
        rc = ol_info_set_size(info, size_keys[i].key, *size_field(&sizes, i));
    for (size_t i = 0; i < OL_ARRAY_SIZE(optional_keys) && rc == MPI_SUCCESS; i++)
        rc = ol_info_set(info, optional_keys[i].key,
                         ol_dt_is_unsupported(optional_keys[i].type) ? "false" : "true");
    return rc;
}

int ol_api_abi_get_fortran_info(MPI_Info *info)
{
    ol_info_t *out = ol_info_create();
    pthread_mutex_lock(&registration_lock);
    ol_status_t rc = out ? describe(out) : MPI_SUCCESS;
    pthread_mutex_unlock(&registration_lock);
    return ol_info_give(out, rc, info);
}

/* ---- MPI_Abi_set_fortran_info ------------------------------------------- */

static int read_size(const ol_info_t *info, size_t key, ol_fortran_sizes_t *sizes)
{
    const char *value = ol_info_get_value(info, size_keys[key].key);
    if (!value)
        return MPI_SUCCESS;
    char *end;
    long n = strtol(value, &end, 10);
    if (end != value && *end == '\0' && n > 0 &&
        ol_dt_fortran_size_exists(size_keys[key].type, (size_t)n)) {
        *size_field(sizes, key) = (size_t)n;
        return MPI_SUCCESS;
    }
    ol_api_set_detail("%s is \"%.40s\": not a size this library has types of (%s)",
                      size_keys[key].key, value,
                      size_keys[key].type == MPI_INTEGER || size_keys[key].type == MPI_LOGICAL
                          ? "1, 2, 4, 8 or 16"
                          : "2, 4, 8 or 16");
    return MPI_ERR_INFO_VALUE;
}

static int read_supported(const ol_info_t *info, size_t key, bool *supported)
{
    const char *value = ol_info_get_value(info, optional_keys[key].key);
    if (!value || strcasecmp(value, "true") == 0 || strcasecmp(value, "false") == 0) {
        *supported = value ? strcasecmp(value, "true") == 0
                           : !ol_dt_is_unsupported(optional_keys[key].type);
        return MPI_SUCCESS;
    }
    ol_api_set_detail("%s is \"%.40s\", not true or false", optional_keys[key].key, value);
    return MPI_ERR_INFO_VALUE;
}

/* Reads every key the library knows before it changes anything: a call
 * with a bad value changes nothing (other keys are ignored, as for any
 * info argument). */
static int apply(const ol_info_t *info)
{
    ol_fortran_sizes_t sizes;
    ol_dt_get_fortran_sizes(&sizes);
    bool supported[OL_ARRAY_SIZE(optional_keys)];
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < OL_ARRAY_SIZE(size_keys) && rc == MPI_SUCCESS; i++)
        rc = read_size(info, i, &sizes);
    for (size_t i = 0; i < OL_ARRAY_SIZE(optional_keys) && rc == MPI_SUCCESS; i++)
        rc = read_supported(info, i, &supported[i]);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_dt_set_fortran_sizes(&sizes);
    for (size_t i = 0; i < OL_ARRAY_SIZE(optional_keys); i++)
        ol_dt_set_supported(optional_keys[i].type, supported[i]);
    return MPI_SUCCESS;
}

int ol_api_abi_set_fortran_info(MPI_Info info)
{
    const ol_info_t *given;
    int rc = ol_info_hints(info, &given);
    if (rc == MPI_SUCCESS && !given) {
        ol_api_set_detail("info is MPI_INFO_NULL");
        rc = MPI_ERR_INFO;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    pthread_mutex_lock(&registration_lock);
    if (fortran_info_set) {
        ol_api_set_detail("the Fortran types were set by an earlier call, which only the first "
                          "may do: MPI_Abi_get_fortran_info tells what they are");
        rc = MPI_ERR_ABI;
    } else {
        rc = apply(given);
        fortran_info_set = rc == MPI_SUCCESS;
    }
    pthread_mutex_unlock(&registration_lock);
    return rc;
}

/* ---- MPI_Abi_get/set_fortran_booleans ------------------------------------- */

static int check_logical_size(int logical_size)
{
    if (logical_size > 0 && (logical_size & (logical_size - 1)) == 0)
        return MPI_SUCCESS;
    ol_api_set_detail("logical_size is %d, not a power of two", logical_size);
    return MPI_ERR_ARG;
}

int ol_api_abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false,
                                    int *is_set)
{
    int rc = check_logical_size(logical_size);
    if (rc != MPI_SUCCESS)
        return rc;
    pthread_mutex_lock(&registration_lock);
    *is_set = ol_op_get_fortran_booleans((size_t)logical_size, logical_true, logical_false);
    pthread_mutex_unlock(&registration_lock);
    return MPI_SUCCESS;
}

int ol_api_abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    int rc = check_logical_size(logical_size);
    if (rc == MPI_SUCCESS && !ol_op_fortran_logical_size_exists((size_t)logical_size)) {
        ol_api_set_detail("logical_size is %d: the logical ops reduce LOGICALs of 1, 2, 4 and "
                          "8 bytes", logical_size);
        rc = MPI_ERR_ARG;
    } else if (rc == MPI_SUCCESS && (!logical_true || !logical_false)) {
        ol_api_set_detail("%s is NULL", logical_true ? "logical_false" : "logical_true");
        rc = MPI_ERR_ARG;
    } else if (rc == MPI_SUCCESS && memcmp(logical_true, logical_false, logical_size) == 0) {
        ol_api_set_detail("logical_true and logical_false are the same value");
        rc = MPI_ERR_ARG;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    pthread_mutex_lock(&registration_lock);
    unsigned char t[8], f[8];
    if (ol_op_get_fortran_booleans((size_t)logical_size, t, f)) {
        ol_api_set_detail("the literals of a %d-byte LOGICAL were set by an earlier call, which "
                          "only the first may do", logical_size);
        rc = MPI_ERR_ABI;
    } else {
        ol_op_set_fortran_booleans((size_t)logical_size, logical_true, logical_false);
    }
    pthread_mutex_unlock(&registration_lock);
    return rc;
}
