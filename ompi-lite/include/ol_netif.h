/* Which network interfaces a job uses between hosts: this host's
 * interfaces and RDMA ports with their link speeds, and the choice among
 * them that OMPI_LITE_IFNAME makes (or the default rule). Shared, as plain
 * code over libc and /sys, by the library (UCX_NET_DEVICES of the ranks),
 * the launcher (the addresses its listeners bind to, what a daemon reports
 * to mpirun) and ompi_lite_info --net, so that all three make one choice.
 * Errors are returned as text (malloc'd), never printed.
 *
 * OMPI_LITE_IFNAME takes NCCL's syntax (NCCL_SOCKET_IFNAME, NCCL_IB_HCA):
 *   ib0,eth      interfaces whose names start with ib0 or eth
 *   =eth1        exactly eth1 ('=' makes every entry exact)
 *   ^docker,lo   all but those ('^' first: every entry excludes)
 *   mlx5_0:1     RDMA ports go by DEVICE:PORT, as UCX names them
 * Every entry of an including list must match a usable interface here
 * (one that is up with an IPv4 address, or an active RDMA port). */
#ifndef OL_NETIF_H
#define OL_NETIF_H

#include <stdbool.h>
#include <stddef.h>

#define OL_NETIF_NAME_MAX 64
#define OL_NETIF_ADDR_MAX 16 /* INET_ADDRSTRLEN */

typedef struct {
    char name[OL_NETIF_NAME_MAX]; /* interface, or RDMA DEVICE:PORT */
    char addr[OL_NETIF_ADDR_MAX]; /* its first IPv4 address; "" for none or RDMA */
    long speed_mbps;              /* link speed, -1 unknown */
    bool rdma;                    /* an InfiniBand/RoCE port (UCX's ib transports) */
    bool usable;                  /* up with an IPv4 address, or an active port */
    bool loopback;
    bool bridge;                  /* a container or VM bridge (docker0, virbr0 ...) */
    bool selected;                /* a job uses it between hosts (ol_netif_select) */
} ol_netif_t;

typedef struct {
    ol_netif_t *ifs;
    size_t n;
} ol_netif_list_t;

/* This host's interfaces (getifaddrs; speeds from /sys/class/net/NAME/speed)
 * and RDMA ports (/sys/class/infiniband), none selected yet. test_speeds
 * (OMPI_LITE_NET_TEST_SPEED, NULL or "" for none): NAME=MBPS,... replaces
 * the speed read for those names (a tc-limited link shows no lower speed
 * in /sys). 0, or -1 with *err. */
int ol_netif_scan(ol_netif_list_t *list, const char *test_speeds, char **err);
void ol_netif_free(ol_netif_list_t *list);

/* Marks what a job uses between hosts. spec NULL or "": the default rule,
 * every usable interface but loopback and container bridges, unless
 * nothing else is usable (then all, as UCX would choose). An excluding
 * list takes the default's interfaces less its matches; an including list
 * takes its matches, loopback included if named. 0, or -1 with *err
 * naming the entry that matches nothing usable and what this host has. */
int ol_netif_select(ol_netif_list_t *list, const char *spec, char **err);

/* Whether spec (see above) takes the interface name; NULL/"" takes all. */
bool ol_netif_spec_takes(const char *spec, const char *name);

/* The selected names, comma-separated (for UCX_NET_DEVICES), malloc'd. */
char *ol_netif_selected_names(const ol_netif_list_t *list);

/* The fastest selected entry, or NULL. */
const ol_netif_t *ol_netif_fastest_selected(const ol_netif_list_t *list);

/* "100 Gb/s", "100 Mb/s", "speed unknown". */
void ol_netif_speed_text(long mbps, char *buf, size_t size);

/* One line per entry for mpirun: "NAME SPEED FLAGS" with FLAGS letters
 * s (selected), u (usable), r (RDMA), l (loopback), b (bridge), or "-". */
char *ol_netif_describe(const ol_netif_t *nif);
/* The reverse; 0, or -1 on a malformed line. */
int ol_netif_parse(const char *line, ol_netif_t *nif);

#endif
