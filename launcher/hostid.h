/* Which host a hostfile or --host name means: this host (mpirun forks its
 * daemon) or another one (the launch agent starts it there), and whether
 * two spellings name one machine.
 *
 * This host is: its hostname, any name with the same first label when one
 * of the two has no domain (`node1` and `node1.cluster`), `localhost`, any
 * loopback address (127.0.0.0/8, ::1), any address of its interfaces (IPv4
 * and IPv6, IPv4-mapped IPv6 as IPv4, a `%scope` ignored), and any name
 * that resolves to one of those. Names are resolved all at once and within
 * a bound (a resolver that does not answer, as where no DNS is reachable,
 * costs at most that bound); a name that has not resolved by then is
 * another host, which the launch agent may still know how to reach. */
#ifndef OL_LAUNCHER_HOSTID_H
#define OL_LAUNCHER_HOSTID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One IP address, IPv4 as family 4 in bytes[0..3], IPv6 as family 6. */
struct ol_ipaddr {
    uint8_t family;
    uint8_t bytes[16];
};

/* What a name stands for: its addresses (the literal itself, or what it
 * resolved to; none if it did not resolve) and whether it is this host. */
struct ol_hostid {
    struct ol_ipaddr *addrs;
    size_t naddrs;
    bool self;
};

/* Parses an IPv4 or IPv6 literal (`fe80::1%eth0` without the scope); true
 * and *a set, or false for anything else. */
bool ol_ipaddr_parse(const char *s, struct ol_ipaddr *a);

/* Fills ids[i] for names[i], i < n: literals and this host's own names
 * without a lookup, the other names resolved in parallel, all of them
 * within timeout_ms in all. */
void ol_hostid_resolve(char *const *names, size_t n, int timeout_ms, struct ol_hostid *ids);
/* Whether two names with these ids are one machine: both this host, or an
 * address in common. */
bool ol_hostid_same(const struct ol_hostid *a, const struct ol_hostid *b);
void ol_hostid_free(struct ol_hostid *id);

#endif
