/* Ports and links: see ol_dynamic.h. Plain TCP sockets, used only while
 * two groups meet (connect/accept, join, spawn): what they exchange is
 * small, and their messages afterwards go over UCX. Every wait polls with
 * short timeouts and calls the progress engine between, so that the
 * process keeps answering its peers (a root waiting in MPI_Comm_accept is
 * still the target of windows and the receiver of messages). */
#define _GNU_SOURCE
#include "ol_dynamic.h"
#include "ol_log.h"
#include "ol_netif.h"
#include "ol_params.h"
#include "ol_runtime.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#define PORT_PREFIX "ompi-lite-port:"
#define SECRET_BYTES 16
#define SECRET_HEX (2 * SECRET_BYTES)
/* What a connecting process sends first: the magic and the port's secret. */
#define HELLO_MAGIC "OLPORT1:"
#define HELLO_BYTES (sizeof(HELLO_MAGIC) - 1 + SECRET_HEX)
/* A connection that has not said hello by then is a stranger's. */
enum { HELLO_TIMEOUT_MS = 5000, TCP_CONNECT_TIMEOUT_MS = 2000, POLL_SLICE_MS = 10 };
/* Larger than any group's description: a peer that announces more is not ours. */
#define MAX_SWAP_BYTES ((size_t)1 << 30)

typedef struct port {
    struct port *next;
    int listener;
    char secret[SECRET_HEX + 1];
    char name[MPI_MAX_PORT_NAME];
} port_t;

static port_t *ports;
static pthread_mutex_t ports_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- waiting ------------------------------------------------------------------------- */

/* Milliseconds left until deadline (0: none), at least 0, at most a
 * poll slice (all a caller waits at once); -1 for ever. */
static int left_ms(double deadline)
{
    if (deadline == 0)
        return -1;
    double left = deadline - ol_rt_wtime();
    return left <= 0 ? 0 : left * 1000 >= POLL_SLICE_MS ? POLL_SLICE_MS : (int)(left * 1000) + 1;
}

static double deadline_after_ms(int ms)
{
    return ms > 0 ? ol_rt_wtime() + ms / 1000.0 : 0;
}

/* Polls fd for events in slices, progressing between: 1 ready, 0 timed
 * out, -1 error (errno). */
static int wait_for(int fd, short events, double deadline)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int left = left_ms(deadline);
        int n = poll(&p, 1, left < 0 ? POLL_SLICE_MS : left);
        if (n > 0)
            return 1;
        if (n < 0 && errno != EINTR)
            return -1;
        if (left == 0)
            return 0;
        if (ol_rt.state == OL_RT_RUNNING)
            ol_progress();
    }
}

/* Sends out while receiving in through the nonblocking fd, either of them
 * empty: two roots may send large descriptions at once, which neither
 * socket buffer holds whole. what names the step in the error's sentence. */
static ol_status_t exchange(int fd, const void *out, size_t out_length, void *in,
                            size_t in_length, double deadline, const char *what)
{
    const char *o = out;
    char *i = in;
    while (out_length > 0 || in_length > 0) {
        ssize_t sent = out_length ? send(fd, o, out_length, MSG_NOSIGNAL) : 0;
        if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            ol_error_detail("the connection failed while %s: %s", what, strerror(errno));
            return MPI_ERR_PORT;
        }
        ssize_t got = in_length ? recv(fd, i, in_length, 0) : -1;
        if (got == 0) {
            ol_error_detail("the other process closed the connection while %s", what);
            return MPI_ERR_PORT;
        }
        if (got < 0 && in_length && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            ol_error_detail("the connection failed while %s: %s", what, strerror(errno));
            return MPI_ERR_PORT;
        }
        if (sent > 0) {
            o += sent;
            out_length -= (size_t)sent;
        }
        if (got > 0) {
            i += got;
            in_length -= (size_t)got;
        }
        if (sent > 0 || got > 0)
            continue;
        int ready = wait_for(fd, (short)((out_length ? POLLOUT : 0) | (in_length ? POLLIN : 0)),
                             deadline);
        if (ready <= 0) {
            ol_error_detail("%s while %s", ready == 0 ? "no answer in time" : strerror(errno),
                            what);
            return MPI_ERR_PORT;
        }
    }
    return OL_OK;
}

static int set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        fcntl(fd, F_SETFL, flags | O_NONBLOCK);
    return flags;
}

/* ---- names of ports ------------------------------------------------------------------ */

static bool random_secret(char *hex)
{
    unsigned char bytes[SECRET_BYTES];
    if (getrandom(bytes, sizeof(bytes), 0) != (ssize_t)sizeof(bytes))
        return false;
    for (int i = 0; i < SECRET_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", bytes[i]);
    return true;
}

/* This host's addresses for the name: the interfaces between hosts, then
 * loopback for processes of this host. */
static void append_addresses(char *name, size_t size)
{
    ol_netif_list_t list = {0};
    char *err = NULL;
    if (ol_netif_scan(&list, ol_param.net_test_speed, &err) == 0 &&
        ol_netif_select(&list, ol_param.ifname, &err) == 0) {
        for (size_t i = 0; i < list.n; i++) {
            const ol_netif_t *nif = &list.ifs[i];
            if (!nif->selected || !nif->addr[0] || strcmp(nif->addr, "127.0.0.1") == 0)
                continue;
            size_t used = strlen(name);
            if (used + strlen(nif->addr) + 2 + sizeof("127.0.0.1") > size)
                break;
            snprintf(name + used, size - used, "%s,", nif->addr);
        }
    }
    free(err);
    ol_netif_free(&list);
    size_t used = strlen(name);
    snprintf(name + used, size - used, "127.0.0.1");
}

ol_status_t ol_rt_port_open(char *name)
{
    port_t *p = calloc(1, sizeof(*p));
    if (!p)
        return MPI_ERR_NO_MEM;
    struct sockaddr_in any = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t len = sizeof(any);
    p->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (p->listener < 0 || bind(p->listener, (struct sockaddr *)&any, sizeof(any)) != 0 ||
        listen(p->listener, 64) != 0 ||
        getsockname(p->listener, (struct sockaddr *)&any, &len) != 0) {
        ol_error_detail("cannot listen on a TCP port: %s", strerror(errno));
        if (p->listener >= 0)
            close(p->listener);
        free(p);
        return MPI_ERR_OTHER;
    }
    if (!random_secret(p->secret)) {
        ol_error_detail("no random bits for the port's secret: %s", strerror(errno));
        close(p->listener);
        free(p);
        return MPI_ERR_OTHER;
    }
    snprintf(p->name, sizeof(p->name), PORT_PREFIX "%u:%s:", ntohs(any.sin_port), p->secret);
    append_addresses(p->name, sizeof(p->name));
    snprintf(name, MPI_MAX_PORT_NAME, "%s", p->name);
    pthread_mutex_lock(&ports_lock);
    p->next = ports;
    ports = p;
    pthread_mutex_unlock(&ports_lock);
    OL_INFO("runtime", "opened port %.*s...", (int)(sizeof(PORT_PREFIX) + 5), name);
    return OL_OK;
}

/* The open port of that name, under ports_lock. */
static port_t **find_port(const char *name)
{
    port_t **p = &ports;
    while (*p && strcmp((*p)->name, name) != 0)
        p = &(*p)->next;
    return p;
}

ol_status_t ol_rt_port_close(const char *name)
{
    pthread_mutex_lock(&ports_lock);
    port_t **at = find_port(name), *p = *at;
    if (p)
        *at = p->next;
    pthread_mutex_unlock(&ports_lock);
    if (!p) {
        ol_error_detail("\"%.80s\" is no open port of this process (MPI_Open_port)", name);
        return MPI_ERR_PORT;
    }
    close(p->listener);
    free(p);
    return OL_OK;
}

/* ---- accept and connect --------------------------------------------------------------- */

/* Constant time: how long a wrong guess takes tells nothing. */
static bool same_secret(const char *a, const char *b)
{
    unsigned char diff = 0;
    for (int i = 0; i < SECRET_HEX; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

/* Whether a new connection proves the secret within HELLO_TIMEOUT_MS. */
static bool says_hello(int fd, const char *secret)
{
    char hello[HELLO_BYTES];
    if (exchange(fd, NULL, 0, hello, sizeof(hello), deadline_after_ms(HELLO_TIMEOUT_MS),
                 "reading a connection's hello") != OL_OK) {
        ol_error_detail_take(); /* a stranger's failure is not the caller's error */
        return false;
    }
    return memcmp(hello, HELLO_MAGIC, sizeof(HELLO_MAGIC) - 1) == 0 &&
           same_secret(hello + sizeof(HELLO_MAGIC) - 1, secret);
}

ol_status_t ol_rt_port_accept(const char *name, int *link)
{
    pthread_mutex_lock(&ports_lock);
    port_t *p = *find_port(name);
    int listener = p ? p->listener : -1;
    char secret[SECRET_HEX + 1];
    if (p)
        memcpy(secret, p->secret, sizeof(secret));
    pthread_mutex_unlock(&ports_lock);
    if (!p) {
        ol_error_detail("\"%.80s\" is no open port of this process: the root of "
                        "MPI_Comm_accept must be the process that opened it",
                        name);
        return MPI_ERR_PORT;
    }
    for (;;) {
        if (wait_for(listener, POLLIN, 0) < 0) {
            ol_error_detail("waiting for a connection failed: %s", strerror(errno));
            return MPI_ERR_PORT;
        }
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            continue; /* gone before we took it, or the port was closed meanwhile */
        if (says_hello(fd, secret)) {
            *link = fd;
            return OL_OK;
        }
        OL_WARN("runtime", "a connection to a port did not prove its secret: closed unread");
        close(fd);
    }
}

/* Splits "ompi-lite-port:TCPPORT:SECRET:ADDRS" in place. */
static bool parse_name(char *copy, int *tcp_port, char **secret, char **addresses)
{
    if (strncmp(copy, PORT_PREFIX, sizeof(PORT_PREFIX) - 1) != 0)
        return false;
    char *port = copy + sizeof(PORT_PREFIX) - 1, *end;
    long value = strtol(port, &end, 10);
    if (end == port || *end != ':' || value <= 0 || value > 65535)
        return false;
    *secret = end + 1;
    char *colon = strchr(*secret, ':');
    if (!colon || colon - *secret != SECRET_HEX)
        return false;
    *colon = '\0';
    *tcp_port = (int)value;
    *addresses = colon + 1;
    return true;
}

/* A TCP connection to address:port within TCP_CONNECT_TIMEOUT_MS, or -1
 * with errno. */
static int connect_to(const char *address, int tcp_port)
{
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)tcp_port)};
    if (inet_pton(AF_INET, address, &to.sin_addr) != 1) {
        errno = EINVAL;
        return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&to, sizeof(to)) == 0)
        return fd;
    int err = errno;
    if (err == EINPROGRESS) {
        int ready = wait_for(fd, POLLOUT, deadline_after_ms(TCP_CONNECT_TIMEOUT_MS));
        socklen_t len = sizeof(err);
        if (ready == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0)
            return fd;
        if (ready == 0)
            err = ETIMEDOUT;
    }
    close(fd);
    errno = err;
    return -1;
}

ol_status_t ol_rt_port_connect(const char *name, int *link)
{
    char copy[MPI_MAX_PORT_NAME], *secret, *addresses;
    int tcp_port;
    snprintf(copy, sizeof(copy), "%s", name);
    if (!parse_name(copy, &tcp_port, &secret, &addresses)) {
        ol_error_detail("\"%.80s\" is not a port name of ompi-lite (MPI_Open_port makes them)",
                        name);
        return MPI_ERR_PORT;
    }
    int fd = -1, err = ENOENT;
    for (char *save = NULL, *a = strtok_r(addresses, ",", &save); a && fd < 0;
         a = strtok_r(NULL, ",", &save)) {
        fd = connect_to(a, tcp_port);
        if (fd < 0)
            err = errno;
    }
    if (fd < 0) {
        ol_error_detail("cannot reach the port (TCP port %d): %s; was it closed?", tcp_port,
                        strerror(err));
        return MPI_ERR_PORT;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    char hello[HELLO_BYTES];
    memcpy(hello, HELLO_MAGIC, sizeof(HELLO_MAGIC) - 1);
    memcpy(hello + sizeof(HELLO_MAGIC) - 1, secret, SECRET_HEX);
    ol_status_t rc = exchange(fd, hello, sizeof(hello), NULL, 0,
                              deadline_after_ms(HELLO_TIMEOUT_MS), "saying hello to the port");
    if (rc != OL_OK) {
        close(fd);
        return rc;
    }
    *link = fd;
    return OL_OK;
}

/* ---- links ------------------------------------------------------------------------------ */

ol_status_t ol_rt_link_swap(int link, const void *out, size_t out_length, void **in,
                            size_t *in_length)
{
    int flags = set_nonblocking(link);
    /* In seconds: a timeout of days does not overflow milliseconds. */
    double deadline = ol_param.connect_timeout_s > 0 ? ol_rt_wtime() + ol_param.connect_timeout_s
                                                     : 0;
    const char *what = "swapping the groups' descriptions (OMPI_LITE_CONNECT_TIMEOUT_S)";
    uint64_t mine = out_length, theirs = 0;
    ol_status_t rc = exchange(link, &mine, sizeof(mine), &theirs, sizeof(theirs), deadline, what);
    if (rc == OL_OK && theirs > MAX_SWAP_BYTES) {
        ol_error_detail("the other process announced %llu bytes: not an ompi-lite process",
                        (unsigned long long)theirs);
        rc = MPI_ERR_PORT;
    }
    void *buf = NULL;
    if (rc == OL_OK && !(buf = malloc(theirs ? theirs : 1)))
        rc = MPI_ERR_NO_MEM;
    if (rc == OL_OK)
        rc = exchange(link, out, out_length, buf, theirs, deadline, what);
    if (flags >= 0)
        fcntl(link, F_SETFL, flags);
    if (rc != OL_OK) {
        free(buf);
        return rc;
    }
    *in = buf;
    *in_length = theirs;
    return OL_OK;
}
