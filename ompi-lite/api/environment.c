/* Environmental inquiries: versions, names, clocks. */
#include "gen_impl.h"
#include "ol_config.h"

#include <stdio.h>
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
 * MPI_Pcontrol; the library itself has none and returns at once (MPI-4.1
 * section 15.2.4). */
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
