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

char *ol_net_new_key(void)
{
    uint8_t raw[OL_KEY_HEX_LEN / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            /* No entropy source at all: refuse rather than use a guessable key. */
            ol_log(OL_LOG_ERROR, "getrandom failed: %s", strerror(errno));
            abort();
        }
        got += (size_t)n;
    }
    char *hex = ol_xmalloc(OL_KEY_HEX_LEN + 1);
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(hex + 2 * i, 3, "%02x", raw[i]);
    return hex;
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

int ol_net_listen(uint16_t *port, char **err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *err = ol_xasprintf("cannot create a TCP socket: %s", strerror(errno));
        return -1;
    }
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t len = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 1024) != 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
        *err = ol_xasprintf("cannot listen on TCP: %s", strerror(errno));
        close(fd);
        return -1;
    }
    *port = ntohs(sa.sin_port);
    return fd;
}

char **ol_net_local_addrs(void)
{
    char **out = ol_xcalloc(1, sizeof *out);
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) != 0)
        return out;
    for (int loop = 0; loop < 2; loop++) {
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
            ol_net_tune(fd);
            return fd;
        }
    }
    *err = ol_xasprintf("cannot connect to port %u of %s%s: %s", (unsigned)port,
                        addrs && addrs[0] ? addrs[0] : "?", addrs && addrs[0] && addrs[1] ? " and others" : "",
                        why);
    return -1;
}

void ol_net_tune(int fd)
{
    int one = 1;
    unsigned timeout = OL_NET_USER_TIMEOUT_MS;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &timeout, sizeof timeout);
}
