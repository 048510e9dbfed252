/* TCP for the launcher: listening on the addresses a job uses, connecting
 * to one of several addresses, this host's addresses, socket tuning that
 * makes a vanished peer visible within seconds, and the per-job key.
 *
 * The key authenticates links: the first frame on every TCP link is AUTH
 * with the key; the accepting side compares it (constant time) and drops
 * the connection otherwise. The key reaches daemons on their stdin (remote)
 * or in their environment (forked), never on a command line. It keeps out
 * strangers who can reach the port; it is not a defence against someone who
 * can read the traffic. */
#ifndef OL_LAUNCHER_NET_H
#define OL_LAUNCHER_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OL_KEY_HEX_LEN 64
/* Links send PING this often, and the kernel gives up on a peer that has
 * not acknowledged data for the link timeout (OMPI_LITE_LINK_TIMEOUT_MS,
 * TCP_USER_TIMEOUT): a host that vanishes is noticed within that time,
 * while a shorter loss of packets is only retransmission. */
#define OL_NET_PING_MS 100
/* Addresses one listener may be bound to (one socket each, one port). */
#define OL_NET_LISTEN_MAX 16
/* Connections that have not proved the key yet, per listener; a new one
 * beyond this pushes out the oldest (a daemon proves the key in its first
 * round trip, so the oldest is a stranger's). */
#define OL_NET_PENDING_MAX 64

/* nbytes fresh random bytes as 2 * nbytes hex digits (malloc'd); aborts
 * where the kernel has no entropy to give, rather than be guessable. */
char *ol_net_random_hex(size_t nbytes);
/* A fresh random key as OL_KEY_HEX_LEN hex digits (malloc'd). */
char *ol_net_new_key(void);
bool ol_net_key_equal(const char *a, const void *b, size_t blen);

/* Listens on each IPv4 address of addrs (at most OL_NET_LISTEN_MAX), all
 * on one port: the number of sockets put in fds (non-blocking,
 * close-on-exec) and *port, or -1 with *err. */
int ol_net_listen(char *const *addrs, uint16_t *port, int *fds, char **err);
/* This host's IPv4 addresses, non-loopback first, loopback last (only
 * with_loopback). */
char **ol_net_local_addrs(bool with_loopback);
/* The local addresses from which this host reaches each of peers (IPv4
 * literals), as the routing table says, each once; NULL when some peer is
 * not an IPv4 address or has no route. */
char **ol_net_source_addrs(char *const *peers);
/* The local address of a connected socket, or NULL. */
char *ol_net_sock_addr(int fd);
/* Connects to the first of addrs:port that answers within timeout_ms each;
 * a connected blocking fd, or -1 with *err naming what was tried. */
int ol_net_connect_any(char *const *addrs, uint16_t port, int timeout_ms, char **err);
/* No Nagle, and the link timeout (ms of unacknowledged data before the
 * kernel breaks the connection). */
void ol_net_tune(int fd, unsigned timeout_ms);

#endif
