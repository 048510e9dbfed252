/* TCP for the launcher: listening, connecting to one of several addresses,
 * this host's addresses, socket tuning that makes a vanished peer visible
 * within a second, and the per-job key.
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
 * not acknowledged data for OL_NET_USER_TIMEOUT_MS: a host that vanishes is
 * noticed in well under a second. */
#define OL_NET_PING_MS 100
#define OL_NET_USER_TIMEOUT_MS 300

/* A fresh random key as OL_KEY_HEX_LEN hex digits (malloc'd). */
char *ol_net_new_key(void);
bool ol_net_key_equal(const char *a, const void *b, size_t blen);

/* Listens on every interface, any port: fd (non-blocking, close-on-exec)
 * and *port, or -1 with *err. */
int ol_net_listen(uint16_t *port, char **err);
/* This host's IPv4 addresses, non-loopback first, loopback last. */
char **ol_net_local_addrs(void);
/* Connects to the first of addrs:port that answers within timeout_ms each;
 * a connected blocking fd, or -1 with *err naming what was tried. */
int ol_net_connect_any(char *const *addrs, uint16_t port, int timeout_ms, char **err);
/* No Nagle, and the user timeout above. */
void ol_net_tune(int fd);

#endif
