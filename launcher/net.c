#define _GNU_SOURCE
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util.h"

char *ol_net_random_hex(size_t nbytes)
{
    uint8_t *raw = ol_xmalloc(nbytes);
    size_t got = 0;
    while (got < nbytes) {
        ssize_t n = getrandom(raw + got, nbytes - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* No entropy source at all: refuse rather than be guessable. */
            ol_log(OL_LOG_ERROR, "getrandom failed: %s", strerror(errno));
            abort();
        }
        got += (size_t)n;
    }
    char *hex = ol_xmalloc(2 * nbytes + 1);
    for (size_t i = 0; i < nbytes; i++)
        snprintf(hex + 2 * i, 3, "%02x", raw[i]);
    hex[2 * nbytes] = '\0';
    free(raw);
    return hex;
}

char *ol_net_new_key(void)
{
    return ol_net_random_hex(OL_KEY_HEX_LEN / 2);
}

bool ol_net_key_equal(const char *a, const void *b, size_t blen)
{
    size_t alen = strlen(a);
    if (alen != blen)
        return false;
    const unsigned char *pa = (const unsigned char *)a, *pb = b;
    unsigned char diff = 0;
    for (size_t i = 0; i < alen; i++)
        diff |= pa[i] ^ pb[i];
    return diff == 0;
}

/* One listening socket on addr:port (port 0: any); the fd or -1. */
static int listen_one(const char *addr, uint16_t *port)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(*port) };
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    socklen_t len = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 1024) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

int ol_net_listen(char *const *addrs, uint16_t *port, int *fds, char **err)
{
    size_t n = ol_strv_len(addrs);
    if (n == 0 || n > OL_NET_LISTEN_MAX) {
        *err = ol_xasprintf("cannot listen on TCP: %zu addresses to listen on", n);
        return -1;
    }
    /* The first socket picks the port, the others take the same one; where
     * it is taken on another address, start over with a new port. */
    for (int attempt = 0; attempt < 8; attempt++) {
        size_t k = 0;
        *port = 0;
        while (k < n && (fds[k] = listen_one(addrs[k], port)) >= 0)
            k++;
        if (k == n)
            return (int)n;
        int e = errno;
        size_t bad = k;
        while (k > 0)
            close(fds[--k]);
        if (e != EADDRINUSE || bad == 0) {
            *err = ol_xasprintf("cannot listen on TCP at %s: %s", addrs[bad], strerror(e));
            return -1;
        }
    }
    *err = ol_xasprintf("cannot listen on TCP: no port is free on all of %s and the others", addrs[0]);
    return -1;
}

char **ol_net_local_addrs(bool with_loopback)
{
    char **out = ol_xcalloc(1, sizeof *out);
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) != 0)
        return out;
    for (int loop = 0; loop < (with_loopback ? 2 : 1); loop++) {
        for (struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next) {
            if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP))
                continue;
            if (!!(i->ifa_flags & IFF_LOOPBACK) != loop)
                continue;
            char buf[INET_ADDRSTRLEN];
            inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, buf, sizeof buf);
            ol_strv_append(&out, buf);
        }
    }
    freeifaddrs(ifs);
    return out;
}

static bool strv_has(char *const *v, const char *s)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++) {
        if (strcmp(v[i], s) == 0)
            return true;
    }
    return false;
}

char *ol_net_sock_addr(int fd)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    char buf[INET_ADDRSTRLEN];
    if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0 || sa.sin_family != AF_INET ||
        inet_ntop(AF_INET, &sa.sin_addr, buf, sizeof buf) == NULL)
        return NULL;
    return ol_xstrdup(buf);
}

/* Connecting a UDP socket sends nothing; it only asks the routing table
 * which local address packets to peer leave from. */
static char *route_source(const char *peer)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(9) };
    if (inet_pton(AF_INET, peer, &sa.sin_addr) != 1)
        return NULL;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    char *src = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? ol_net_sock_addr(fd) : NULL;
    close(fd);
    return src;
}

char **ol_net_source_addrs(char *const *peers)
{
    char **out = ol_xcalloc(1, sizeof *out);
    for (size_t i = 0; peers != NULL && peers[i] != NULL; i++) {
        char *src = route_source(peers[i]);
        if (src == NULL) {
            ol_strv_free(out);
            return NULL;
        }
        if (!strv_has(out, src))
            ol_strv_append(&out, src);
        free(src);
    }
    return out;
}

static int connect_one(const char *addr, uint16_t port, int timeout_ms, const char **why)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
    if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
        *why = "not an IPv4 address";
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *why = strerror(errno);
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS) {
        *why = strerror(errno);
        close(fd);
        return -1;
    }
    struct pollfd p = { .fd = fd, .events = POLLOUT };
    int n;
    do {
        n = poll(&p, 1, timeout_ms);
    } while (n < 0 && errno == EINTR);
    int soerr = 0;
    socklen_t len = sizeof soerr;
    if (n == 0) {
        *why = "timed out";
        close(fd);
        return -1;
    }
    if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0) {
        *why = strerror(soerr ? soerr : errno);
        close(fd);
        return -1;
    }
    ol_set_nonblock(fd, false);
    return fd;
}

int ol_net_connect_any(char *const *addrs, uint16_t port, int timeout_ms, char **err)
{
    const char *why = "no address to try";
    for (size_t i = 0; addrs != NULL && addrs[i] != NULL; i++) {
        int fd = connect_one(addrs[i], port, timeout_ms, &why);
        if (fd >= 0) {
            return fd;
        }
    }
    *err = ol_xasprintf("cannot connect to port %u of %s%s: %s", (unsigned)port,
                        addrs && addrs[0] ? addrs[0] : "?", addrs && addrs[0] && addrs[1] ? " and others" : "",
                        why);
    return -1;
}

void ol_net_tune(int fd, unsigned timeout_ms)
{
    int one = 1;
    unsigned timeout = timeout_ms;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &timeout, sizeof timeout);
}
