/* ompi_lite_info: what this build of ompi-lite is and how it is tuned.
 *   ompi_lite_info            version, build configuration and parameters
 *   ompi_lite_info --params   the parameters only
 *   ompi_lite_info --net      this host's interfaces and RDMA ports, their
 *                             speeds, and which ones a job would use */
#include "mpi.h"
#include "ol_config.h"
#include "coll.h"
#include "rma.h"
#include "io.h"
#include "pt2pt.h"
#include "ol_accel.h"
#include "ol_netif.h"
#include "ol_params.h"
#include "params.h"
#include "ol_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The path reductions on device buffers take here, and why. */
static void print_device_reductions(const ol_accel_facts_t *facts)
{
    if (facts->kernels)
        printf("  Device reductions: CUDA kernels\n");
    else if (*facts->kernels_problem)
        printf("  Device reductions: staged through host memory, because %s\n",
               facts->kernels_problem);
    else
        printf("  Device reductions: none, device buffers are refused (%s)\n",
               facts->built ? facts->problem : "no CUDA support");
}

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
    print_device_reductions(&facts);
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

static void print_netif(const ol_netif_t *nif)
{
    char speed[32];
    ol_netif_speed_text(nif->speed_mbps, speed, sizeof(speed));
    const char *kind = nif->rdma ? "ib" : "tcp";
    const char *note = !nif->usable ? (nif->rdma ? " (port not active)" : " (down or no IPv4)")
                       : nif->loopback ? " (loopback)"
                       : nif->bridge   ? " (container bridge)"
                                       : "";
    printf("  %c %-16s %-15s %-14s %s%s\n", nif->selected ? '*' : ' ', nif->name,
           nif->addr[0] ? nif->addr : "-", speed, kind, note);
}

/* --net: what a job between hosts would use here, from OMPI_LITE_IFNAME
 * (and OMPI_LITE_NET_TEST_SPEED) as the ranks and daemons read them. */
static int print_net(void)
{
    ol_netif_list_t list;
    char *err = NULL, host[256] = "";
    gethostname(host, sizeof(host) - 1);
    if (ol_netif_scan(&list, ol_param.net_test_speed, &err) != 0) {
        fprintf(stderr, "ompi_lite_info: %s\n", err ? err : "out of memory");
        free(err);
        return 1;
    }
    int rc = 0;
    if (ol_netif_select(&list, ol_param.ifname, &err) != 0) {
        fprintf(stderr, "ompi_lite_info: host %s: %s\n", host, err ? err : "out of memory");
        rc = 1;
    }
    const char *spec = ol_param.ifname;
    printf("Network interfaces of %s (* = used between hosts, %s):\n", host,
           spec && *spec ? "OMPI_LITE_IFNAME" : "default: no loopback or container bridge");
    if (spec && *spec)
        printf("  OMPI_LITE_IFNAME=%s\n", spec);
    printf("    %-16s %-15s %-14s %s\n", "name", "IPv4 address", "speed", "UCX transport");
    for (size_t i = 0; i < list.n; i++)
        print_netif(&list.ifs[i]);
    free(err);
    ol_netif_free(&list);
    return rc;
}

int main(int argc, char **argv)
{
    int params_only = 0, net = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--params") == 0) {
            params_only = 1;
        } else if (strcmp(argv[i], "--net") == 0) {
            net = 1;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("ompi-lite %s\n", PACKAGE_VERSION);
            return 0;
        } else {
            fprintf(stderr, "ompi_lite_info: unknown option %s (try --params, --net or --version)\n",
                    argv[i]);
            return 2;
        }
    }
    ol_params_load();
    if (net)
        return print_net();
    ol_coll_params_load();
    ol_pt2pt_params_load();
    if (!params_only) {
        print_build();
        printf("\nParameters (environment variables; mpirun --param NAME=VALUE sets them too):\n");
    }
    ol_params_print(stdout);
    ol_pt2pt_params_print(stdout);
    ol_coll_params_print(stdout);
    ol_rma_params_print(stdout);
    ol_io_params_print(stdout);
    ol_launcher_params_print(stdout);
    ol_state_params_print(stdout);
    ol_accel_params_print(stdout);
    return 0;
}
