/* Environmental inquiries: versions, names, clocks; memory allocation. */
#include "gen_impl.h"
#include "ol_config.h"
#include "ol_info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucp/api/ucp_version.h>

const char *ol_api_library_version(void)
{
    static char text[256];
    if (!text[0])
        snprintf(text, sizeof(text),
                 "ompi-lite %s (MPI %d.%d, standard ABI %d.%d; UCX %s, PMIx %s, hwloc %s, CUDA %s)",
                 PACKAGE_VERSION, MPI_VERSION, MPI_SUBVERSION, MPI_ABI_VERSION,
                 MPI_ABI_SUBVERSION, OL_UCX_VERSION, OL_PMIX_VERSION, OL_HWLOC_VERSION,
                 OL_CUDA_BUILT);
    return text;
}

int ol_api_get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int ol_api_get_library_version(char *version, int *resultlen)
{
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", ol_api_library_version());
    *resultlen = n;
    return MPI_SUCCESS;
}

int ol_api_abi_get_version(int *abi_major, int *abi_minor)
{
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}

/* The sizes of the C types that the standard ABI lets differ between
 * platforms (MPI-5.0 section 21.3). */
int ol_api_abi_get_info(MPI_Info *info)
{
    static const struct {
        const char *key;
        size_t size;
    } sizes[] = {{"mpi_aint_size", sizeof(MPI_Aint)},
                 {"mpi_count_size", sizeof(MPI_Count)},
                 {"mpi_offset_size", sizeof(MPI_Offset)}};
    ol_info_t *out = ol_info_create();
    ol_status_t rc = MPI_SUCCESS;
    for (size_t i = 0; out && i < OL_ARRAY_SIZE(sizes) && rc == MPI_SUCCESS; i++)
        rc = ol_info_set_size(out, sizes[i].key, sizes[i].size);
    return ol_info_give(out, rc, info);
}

int ol_api_get_processor_name(char *name, int *resultlen)
{
    int n = snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", ol_rt.hostname);
    *resultlen = n < MPI_MAX_PROCESSOR_NAME ? n : MPI_MAX_PROCESSOR_NAME - 1;
    return MPI_SUCCESS;
}

double ol_api_wtime(void)
{
    return ol_rt_wtime();
}

/* MPI leaves the meaning of profiling levels to the tools that intercept
 * MPI_Pcontrol; the library itself has none and returns at once, as the
 * standard's profiling interface says. */
int ol_api_pcontrol(const int level)
{
    (void)level;
    return MPI_SUCCESS;
}

double ol_api_wtick(void)
{
    struct timespec res;
    clock_getres(CLOCK_MONOTONIC, &res);
    return (double)res.tv_sec + 1e-9 * (double)res.tv_nsec;
}

/* ---- memory allocation (MPI_Alloc_mem) ---------------------------------------- */

/* Memory of MPI_Alloc_mem starts on a cache line, as buffers that the
 * vectorised copies and reductions read best do; the info key
 * mpi_minimum_memory_alignment asks for more. */
enum { ALLOC_MEM_ALIGNMENT = 64 };

static size_t alignment_hint(const ol_info_t *hints)
{
    const char *value = hints ? ol_info_get_value(hints, "mpi_minimum_memory_alignment") : NULL;
    if (!value)
        return ALLOC_MEM_ALIGNMENT;
    char *end;
    unsigned long long alignment = strtoull(value, &end, 10);
    /* A value that is no power of two is ignored, as hints may be. */
    if (*end || alignment < ALLOC_MEM_ALIGNMENT || (alignment & (alignment - 1)))
        return ALLOC_MEM_ALIGNMENT;
    return (size_t)alignment;
}

int ol_api_alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc != MPI_SUCCESS)
        return rc;
    if (size < 0) {
        ol_api_set_detail("size is %lld, negative", (long long)size);
        return MPI_ERR_ARG;
    }
    size_t alignment = alignment_hint(hints);
    void *base;
    if (posix_memalign(&base, alignment, size > 0 ? (size_t)size : 1) != 0) {
        ol_api_set_detail("no memory for %lld bytes aligned to %zu", (long long)size, alignment);
        return MPI_ERR_NO_MEM;
    }
    *(void **)baseptr = base;
    return MPI_SUCCESS;
}

int ol_api_free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}
