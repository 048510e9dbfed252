/* ompi_lite_info: what this build of ompi-lite is and how it is tuned.
 *   ompi_lite_info            version, build configuration and parameters
 *   ompi_lite_info --params   the parameters only */
#include "mpi.h"
#include "ol_config.h"
#include "coll.h"
#include "pt2pt.h"
#include "ol_accel.h"
#include "ol_params.h"
#include "params.h"
#include "ol_state.h"

#include <stdio.h>
#include <string.h>

/* Whether CUDA support is built, and what the driver on this machine
 * says (the driver is opened for this). */
static void print_cuda(void)
{
    ol_accel_facts_t facts;
    ol_accel_facts(&facts);
    printf("  CUDA support:   %s\n", facts.built ? "yes (device buffers, reduction kernels)"
                                                 : "no (configure found no nvcc)");
    if (facts.driver_version > 0)
        printf("  CUDA driver:    %s, version %d.%d\n", facts.driver_library,
               facts.driver_version / 1000, facts.driver_version % 1000 / 10);
    else
        printf("  CUDA driver:    none (%s)\n", facts.problem);
    if (facts.driver_version > 0)
        printf("  GPUs visible:   %d\n", facts.visible_devices);
}

static void print_build(void)
{
    printf("ompi-lite %s\n", PACKAGE_VERSION);
    printf("  MPI standard:   %d.%d, standard ABI %d.%d (libmpi_abi.so.1)\n", MPI_VERSION,
           MPI_SUBVERSION, MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
    printf("  UCX:            %s\n", OL_UCX_VERSION);
    printf("  PMIx:           %s\n", OL_PMIX_VERSION);
    printf("  hwloc:          %s\n", OL_HWLOC_VERSION);
    printf("  libevent:       %s\n", OL_LIBEVENT_VERSION);
    print_cuda();
}

int main(int argc, char **argv)
{
    int params_only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--params") == 0) {
            params_only = 1;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("ompi-lite %s\n", PACKAGE_VERSION);
            return 0;
        } else {
            fprintf(stderr, "ompi_lite_info: unknown option %s (try --params or --version)\n",
                    argv[i]);
            return 2;
        }
    }
    ol_params_load();
    ol_coll_params_load();
    ol_pt2pt_params_load();
    if (!params_only) {
        print_build();
        printf("\nParameters (environment variables; mpirun --param NAME=VALUE sets them too):\n");
    }
    ol_params_print(stdout);
    ol_pt2pt_params_print(stdout);
    ol_coll_params_print(stdout);
    ol_launcher_params_print(stdout);
    ol_state_params_print(stdout);
    ol_accel_params_print(stdout);
    return 0;
}
