/* Data representations (MPI-4.1 14.5): "native" and "internal" store data
 * as memory holds it, "external32" big-endian in the standard's sizes
 * (the datatype engine converts), and the program's own through
 * MPI_Register_datarep, whose functions convert and size. */
#include "io_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef enum { REP_NATIVE, REP_EXTERNAL32, REP_USER } rep_kind_t;

struct ol_io_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    rep_kind_t kind;
    ol_io_datarep_fns_t fns;
    struct ol_io_datarep *next;
};

static struct ol_io_datarep builtin[] = {
    {.name = "native", .kind = REP_NATIVE},
    {.name = "internal", .kind = REP_NATIVE},
    {.name = "external32", .kind = REP_EXTERNAL32},
};
static struct ol_io_datarep *registered; /* never freed: they live as long as the process */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

/* Lock held for the registered ones. */
static struct ol_io_datarep *find_locked(const char *name)
{
    for (size_t i = 0; i < OL_ARRAY_SIZE(builtin); i++)
        if (strcmp(builtin[i].name, name) == 0)
            return &builtin[i];
    struct ol_io_datarep *rep = registered;
    while (rep && strcmp(rep->name, name) != 0)
        rep = rep->next;
    return rep;
}

const ol_io_datarep_t *ol_io_datarep_find(const char *name)
{
    pthread_mutex_lock(&registry_lock);
    const ol_io_datarep_t *rep = find_locked(name);
    pthread_mutex_unlock(&registry_lock);
    return rep;
}

bool ol_io_datarep_is_native(const ol_io_datarep_t *rep)
{
    return rep->kind == REP_NATIVE;
}

ol_status_t ol_io_register_datarep(const char *name, const ol_io_datarep_fns_t *fns)
{
    if (strlen(name) >= MPI_MAX_DATAREP_STRING) {
        ol_error_detail("datarep \"%s\" is longer than MPI_MAX_DATAREP_STRING - 1 (%d)", name,
                        MPI_MAX_DATAREP_STRING - 1);
        return MPI_ERR_ARG;
    }
    if (!fns->extent_fn) {
        ol_error_detail("dtype_file_extent_fn is NULL: a representation must size its types");
        return MPI_ERR_ARG;
    }
    struct ol_io_datarep *rep = calloc(1, sizeof(*rep));
    if (!rep) {
        ol_error_detail("out of memory to register a representation");
        return MPI_ERR_NO_MEM;
    }
    /* Without conversion functions the data is accessed in the native
     * representation (MPI-4.1 14.5.3). */
    bool converts = fns->read_fn || fns->write_fn || fns->read_fn_c || fns->write_fn_c;
    *rep = (struct ol_io_datarep){.kind = converts ? REP_USER : REP_NATIVE, .fns = *fns};
    snprintf(rep->name, sizeof rep->name, "%s", name);
    pthread_mutex_lock(&registry_lock);
    bool taken = find_locked(name) != NULL;
    if (!taken) {
        rep->next = registered;
        registered = rep;
    }
    pthread_mutex_unlock(&registry_lock);
    if (taken) {
        free(rep);
        ol_error_detail("datarep \"%s\" is defined already", name);
        return MPI_ERR_DUP_DATAREP;
    }
    return MPI_SUCCESS;
}

/* The bytes of one element of a predefined type in a user's
 * representation: its extent function's answer. */
static MPI_Offset user_extent(const ol_io_datarep_t *rep, const ol_datatype_t *basic)
{
    MPI_Aint extent = 0;
    int rc = rep->fns.extent_fn(ol_dt_to_handle(basic), &extent, rep->fns.extra_state);
    if (rc != MPI_SUCCESS || extent < 0) {
        ol_error_detail("the extent function of datarep \"%s\" failed for %s (code %d)",
                        rep->name, ol_dt_name(basic), rc);
        return -1;
    }
    return extent;
}

MPI_Offset ol_io_datarep_bytes(const ol_io_datarep_t *rep, const ol_datatype_t *dt,
                               MPI_Count count)
{
    switch (rep->kind) {
    case REP_NATIVE:
        return (MPI_Offset)dt->size * count;
    case REP_EXTERNAL32:
        return (MPI_Offset)ol_dt_external32_size(dt, count);
    case REP_USER:
        break;
    }
    if (dt->size == 0)
        return 0;
    if (dt->predefined || ol_dt_is_f90(dt)) {
        MPI_Offset one = user_extent(rep, dt);
        return one < 0 ? -1 : one * count;
    }
    ol_datatype_t *twin;
    if (ol_io_layout_twin(rep, dt, &twin) != MPI_SUCCESS)
        return -1;
    MPI_Offset bytes = (MPI_Offset)twin->size * count;
    ol_dt_free_handle(twin);
    return bytes;
}

/* The program's conversion functions, called once for the whole buffer
 * (position 0). */
static ol_status_t convert(const ol_io_datarep_t *rep, bool to_file, void *buf, MPI_Count count,
                           ol_datatype_t *dt, void *file)
{
    const ol_io_datarep_fns_t *fns = &rep->fns;
    MPI_Datarep_conversion_function_c *large = to_file ? fns->write_fn_c : fns->read_fn_c;
    MPI_Datarep_conversion_function *small = to_file ? fns->write_fn : fns->read_fn;
    void *extra = fns->extra_state;
    int rc;
    if (large) {
        rc = large(buf, ol_dt_to_handle(dt), count, file, 0, extra);
    } else if (small && count <= INT32_MAX) {
        rc = small(buf, ol_dt_to_handle(dt), (int)count, file, 0, extra);
    } else if (small) {
        ol_error_detail("count %lld exceeds what the int conversion functions of datarep "
                        "\"%s\" take", (long long)count, rep->name);
        return MPI_ERR_COUNT;
    } else if (to_file) { /* MPI_CONVERSION_FN_NULL: the native representation */
        ol_dt_pack_all(dt, buf, count, file);
        return MPI_SUCCESS;
    } else {
        ol_dt_unpack_all(dt, buf, count, file);
        return MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS) {
        ol_error_detail("the %s conversion function of datarep \"%s\" returned %d",
                        to_file ? "write" : "read", rep->name, rc);
        return rc;
    }
    return MPI_SUCCESS;
}

ol_status_t ol_io_datarep_to_file(const ol_io_datarep_t *rep, const void *buf, MPI_Count count,
                                  ol_datatype_t *dt, void *file)
{
    if (rep->kind == REP_NATIVE) {
        ol_dt_pack_all(dt, buf, count, file);
        return MPI_SUCCESS;
    }
    if (rep->kind == REP_USER)
        return convert(rep, true, (void *)buf, count, dt, file);
    char *native = malloc((size_t)dt->size * (size_t)count + 1);
    if (!native) {
        ol_error_detail("out of memory to convert to external32");
        return MPI_ERR_NO_MEM;
    }
    ol_dt_pack_all(dt, buf, count, native);
    ol_dt_native_to_external32(dt, count, native, file);
    free(native);
    return MPI_SUCCESS;
}

ol_status_t ol_io_datarep_from_file(const ol_io_datarep_t *rep, void *buf, MPI_Count count,
                                    ol_datatype_t *dt, const void *file)
{
    if (rep->kind == REP_NATIVE) {
        ol_dt_unpack_all(dt, buf, count, file);
        return MPI_SUCCESS;
    }
    if (rep->kind == REP_USER)
        return convert(rep, false, buf, count, dt, (void *)file);
    char *native = malloc((size_t)dt->size * (size_t)count + 1);
    if (!native) {
        ol_error_detail("out of memory to convert from external32");
        return MPI_ERR_NO_MEM;
    }
    ol_dt_external32_to_native(dt, count, file, native);
    ol_dt_unpack_all(dt, buf, count, native);
    free(native);
    return MPI_SUCCESS;
}
