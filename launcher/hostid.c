/* Is a name this host, and do two names mean one machine (see hostid.h).
 *
 * Names are looked up all at once, so a hostfile of many names costs one
 * resolver round trip, and a resolver that never answers costs the bound,
 * not a hang: mpirun cannot start a job before it knows which hosts are
 * its own. */
#define _GNU_SOURCE
#include "hostid.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util.h"

static const uint8_t v4_mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

/* IPv4-mapped IPv6 (::ffff:a.b.c.d) is the IPv4 address: one machine's
 * address compares equal however the resolver spelled it. */
static struct ol_ipaddr from_in6(const struct in6_addr *in6)
{
    struct ol_ipaddr a = { .family = 6 };
    if (memcmp(in6->s6_addr, v4_mapped_prefix, sizeof v4_mapped_prefix) == 0) {
        a.family = 4;
        memcpy(a.bytes, in6->s6_addr + 12, 4);
    } else {
        memcpy(a.bytes, in6->s6_addr, 16);
    }
    return a;
}

static bool from_sockaddr(const struct sockaddr *sa, struct ol_ipaddr *a)
{
    if (sa == NULL)
        return false;
    if (sa->sa_family == AF_INET) {
        *a = (struct ol_ipaddr){ .family = 4 };
        memcpy(a->bytes, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        return true;
    }
    if (sa->sa_family == AF_INET6) {
        *a = from_in6(&((const struct sockaddr_in6 *)sa)->sin6_addr);
        return true;
    }
    return false;
}

bool ol_ipaddr_parse(const char *s, struct ol_ipaddr *a)
{
    char buf[INET6_ADDRSTRLEN + 1];
    size_t len = strcspn(s, "%"); /* a link-local scope names an interface, not a host */
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    struct in_addr in4;
    struct in6_addr in6;
    if (inet_pton(AF_INET, buf, &in4) == 1 && s[len] == '\0') {
        *a = (struct ol_ipaddr){ .family = 4 };
        memcpy(a->bytes, &in4, 4);
        return true;
    }
    if (inet_pton(AF_INET6, buf, &in6) == 1) {
        *a = from_in6(&in6);
        return true;
    }
    return false;
}

static bool ipaddr_equal(const struct ol_ipaddr *a, const struct ol_ipaddr *b)
{
    return a->family == b->family && memcmp(a->bytes, b->bytes, a->family == 4 ? 4 : 16) == 0;
}

static bool is_loopback(const struct ol_ipaddr *a)
{
    static const uint8_t v6_loopback[16] = { [15] = 1 };
    return a->family == 4 ? a->bytes[0] == 127 : memcmp(a->bytes, v6_loopback, 16) == 0;
}

static void add_addr(struct ol_hostid *id, const struct ol_ipaddr *a)
{
    for (size_t i = 0; i < id->naddrs; i++)
        if (ipaddr_equal(&id->addrs[i], a))
            return;
    struct ol_ipaddr *nv = realloc(id->addrs, (id->naddrs + 1) * sizeof *nv);
    if (nv == NULL)
        nv = ol_xmalloc(SIZE_MAX); /* aborts with a message */
    id->addrs = nv;
    id->addrs[id->naddrs++] = *a;
}

/* Every address of every interface, up or down: an address configured
 * here is this host whatever the state of its link. */
static struct ol_hostid local_addrs(void)
{
    struct ol_hostid me = { 0 };
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) != 0)
        return me;
    for (struct ifaddrs *i = ifs; i != NULL; i = i->ifa_next) {
        struct ol_ipaddr a;
        if (from_sockaddr(i->ifa_addr, &a))
            add_addr(&me, &a);
    }
    freeifaddrs(ifs);
    return me;
}

/* This host by its name alone: the hostname (any case), `localhost`, and
 * one of the two without its domain ("node1" names "node1.cluster" and
 * the other way round). */
static bool name_is_self(const char *name)
{
    const char *me = ol_hostname();
    if (strcasecmp(name, me) == 0 || strcasecmp(name, "localhost") == 0)
        return true;
    size_t a = strcspn(name, "."), b = strcspn(me, ".");
    return a == b && strncasecmp(name, me, a) == 0 && (name[a] == '\0' || me[b] == '\0');
}

static bool any_addr_is(const struct ol_hostid *id, const struct ol_hostid *me)
{
    for (size_t i = 0; i < id->naddrs; i++) {
        if (is_loopback(&id->addrs[i]))
            return true;
        for (size_t k = 0; k < me->naddrs; k++)
            if (ipaddr_equal(&id->addrs[i], &me->addrs[k]))
                return true;
    }
    return false;
}

/* Lookups run on threads of their own, one per name, so a resolver that
 * never answers costs the bound only. A thread still running at the bound
 * is left to finish: the set of lookups is freed by whoever leaves it
 * last, mpirun or that thread. (getaddrinfo_a with gai_suspend would do
 * the same, but glibc 2.36 races there: a request finishing as gai_suspend
 * returns walks the returned call's stack, and mpirun crashed on it.) */
struct lookup {
    struct lookup_set *set;
    const char *name;
    struct addrinfo *result;
    bool done;
};

struct lookup_set {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    size_t pending;     /* lookups not done */
    size_t refs;        /* the caller, and each thread not done */
    size_t n;
    struct lookup *v;
    char **names;       /* copies: a thread may outlive the caller's */
};

static void set_release(struct lookup_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        if (set->v[i].result != NULL)
            freeaddrinfo(set->v[i].result);
        free(set->names[i]);
    }
    pthread_cond_destroy(&set->cv);
    pthread_mutex_destroy(&set->lock);
    free(set->v);
    free(set->names);
    free(set);
}

/* Drops one reference under the lock; frees the set after the last. */
static void set_unref_locked(struct lookup_set *set)
{
    bool last = --set->refs == 0;
    pthread_mutex_unlock(&set->lock);
    if (last)
        set_release(set);
}

static void *lookup_thread(void *arg)
{
    static const struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    struct lookup *l = arg;
    struct addrinfo *res = NULL;
    if (getaddrinfo(l->name, NULL, &hints, &res) != 0)
        res = NULL;
    struct lookup_set *set = l->set;
    pthread_mutex_lock(&set->lock);
    l->result = res;
    l->done = true;
    if (--set->pending == 0)
        pthread_cond_signal(&set->cv);
    set_unref_locked(set);
    return NULL;
}

/* Threads start with every signal blocked: mpirun takes its signals from a
 * signalfd, and a lookup thread left running must not take one instead. */
static bool start_lookup(struct lookup *l)
{
    sigset_t all, old;
    pthread_attr_t attr;
    pthread_t t;
    sigfillset(&all);
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&t, &attr, lookup_thread, l);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return rc == 0;
}

static struct timespec deadline_in(int timeout_ms)
{
    struct timespec d;
    clock_gettime(CLOCK_MONOTONIC, &d);
    d.tv_sec += timeout_ms / 1000;
    d.tv_nsec += (long)(timeout_ms % 1000) * 1000000;
    if (d.tv_nsec >= 1000000000) {
        d.tv_sec++;
        d.tv_nsec -= 1000000000;
    }
    return d;
}

static struct lookup_set *set_new(char *const *names, const bool *need, size_t n)
{
    struct lookup_set *set = ol_xcalloc(1, sizeof *set);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&set->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&set->lock, NULL);
    set->n = n;
    set->v = ol_xcalloc(n + 1, sizeof *set->v);
    set->names = ol_xcalloc(n + 1, sizeof *set->names);
    set->refs = 1;
    for (size_t i = 0; i < n; i++) {
        set->names[i] = ol_xstrdup(names[i]);
        set->v[i] = (struct lookup){ .set = set, .name = set->names[i], .done = !need[i] };
    }
    return set;
}

static void resolve_names(char *const *names, const bool *need, size_t n, int timeout_ms,
                          struct ol_hostid *ids)
{
    struct lookup_set *set = set_new(names, need, n);
    pthread_mutex_lock(&set->lock);
    for (size_t i = 0; i < n; i++) {
        if (set->v[i].done)
            continue;
        if (!start_lookup(&set->v[i])) {
            set->v[i].done = true; /* no thread: taken for another host */
            continue;
        }
        set->pending++;
        set->refs++;
    }
    struct timespec deadline = deadline_in(timeout_ms);
    while (set->pending > 0 && pthread_cond_timedwait(&set->cv, &set->lock, &deadline) != ETIMEDOUT)
        ;
    for (size_t i = 0; i < n; i++) {
        if (!set->v[i].done)
            ol_info("host name %s did not resolve in time: taken for another host", names[i]);
        for (struct addrinfo *ai = set->v[i].result; ai != NULL; ai = ai->ai_next) {
            struct ol_ipaddr a;
            if (from_sockaddr(ai->ai_addr, &a))
                add_addr(&ids[i], &a);
        }
    }
    set_unref_locked(set);
}

void ol_hostid_resolve(char *const *names, size_t n, int timeout_ms, struct ol_hostid *ids)
{
    struct ol_hostid me = local_addrs();
    bool *need = ol_xcalloc(n + 1, sizeof *need);
    for (size_t i = 0; i < n; i++) {
        struct ol_ipaddr a;
        ids[i] = (struct ol_hostid){ .self = name_is_self(names[i]) };
        if (ol_ipaddr_parse(names[i], &a))
            add_addr(&ids[i], &a);
        else
            need[i] = !ids[i].self; /* this host's names merge as "self" alone */
    }
    resolve_names(names, need, n, timeout_ms, ids);
    for (size_t i = 0; i < n; i++) {
        ids[i].self |= any_addr_is(&ids[i], &me);
        ol_trace("host %s: %zu address(es), %s", names[i], ids[i].naddrs,
                 ids[i].self ? "this host" : "another host");
    }
    free(need);
    ol_hostid_free(&me);
}

bool ol_hostid_same(const struct ol_hostid *a, const struct ol_hostid *b)
{
    if (a->self && b->self)
        return true;
    for (size_t i = 0; i < a->naddrs; i++)
        for (size_t k = 0; k < b->naddrs; k++)
            if (ipaddr_equal(&a->addrs[i], &b->addrs[k]))
                return true;
    return false;
}

void ol_hostid_free(struct ol_hostid *id)
{
    free(id->addrs);
    *id = (struct ol_hostid){ 0 };
}
