/* The runtime's part of dynamic processes (MPI-4.1 chapter 11): ports and
 * the links through them, published names, and spawning. The API layer
 * (api/dynamic.c) builds communicators on top.
 *
 * A port is a TCP listener of one process, named
 *   ompi-lite-port:TCPPORT:SECRET:ADDR,ADDR,...
 * where SECRET is 128 random bits in hex and the addresses are this host's
 * (those OMPI_LITE_IFNAME selects, then 127.0.0.1). The name is the
 * capability: a connection that does not send the secret first is closed
 * unread. A link is a connected socket that two processes' roots use to
 * swap what their groups need (addresses, context ids), then close. */
#ifndef OL_DYNAMIC_H
#define OL_DYNAMIC_H

#include "ol_common.h"

/* A new port of this process; name has MPI_MAX_PORT_NAME bytes. */
ol_status_t ol_rt_port_open(char *name);
/* MPI_ERR_PORT when name is no open port of this process. */
ol_status_t ol_rt_port_close(const char *name);
/* Waits, progressing, for a process to connect to this process's port
 * name with its secret: *link is the connection. */
ol_status_t ol_rt_port_accept(const char *name, int *link);
/* Connects to the port name; MPI_ERR_PORT when it cannot be reached. */
ol_status_t ol_rt_port_connect(const char *name, int *link);

/* Sends out while receiving in (length-prefixed, either side may send
 * first), progressing, within CONNECT_TIMEOUT_S. *in is the caller's to
 * free. The link's file status flags are as before afterwards. */
ol_status_t ol_rt_link_swap(int link, const void *out, size_t out_length, void **in,
                            size_t *in_length);

/* Names of ports (MPI_Publish_name ...), kept where this user's jobs of
 * the host (or all hosts, with a shared NAME_DIR) find them. */
ol_status_t ol_rt_name_publish(const char *service, const char *port);
ol_status_t ol_rt_name_lookup(const char *service, char *port /* MPI_MAX_PORT_NAME */);
ol_status_t ol_rt_name_unpublish(const char *service, const char *port);

/* One program of a spawn: command with argv (NULL-terminated, without the
 * command), maxprocs copies, where (each NULL when not given), and
 * environment entries NAME=VALUE (NULL-terminated) the processes get on
 * top of the job's. */
typedef struct {
    const char *command;
    char **argv;
    int maxprocs;
    const char *host, *hostfile, *add_host, *wdir, *path;
    char **env;
} ol_rt_spawn_app_t;

/* Starts the programs as a new job through the launcher (PMIx_Spawn):
 * all of them or none; MPI_ERR_SPAWN with a detail saying why. */
ol_status_t ol_rt_spawn(const ol_rt_spawn_app_t *apps, int napps);

#endif
