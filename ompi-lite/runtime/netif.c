/* This host's network interfaces and the choice OMPI_LITE_IFNAME makes
 * among them (see ol_netif.h). libc and /sys only: the launcher compiles
 * this file too, so it calls nothing else of the library. */
#define _GNU_SOURCE
#include "ol_netif.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bridges that container and VM managers make for their guests: a peer on
 * another host is never reached through them, but UCX would offer them. */
static const char *const bridge_prefixes[] = { "docker", "br-", "virbr", "lxcbr", "lxdbr",
                                               "cni", "podman", "flannel", "cali" };

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool is_bridge_name(const char *name)
{
    for (size_t i = 0; i < sizeof bridge_prefixes / sizeof bridge_prefixes[0]; i++) {
        if (starts_with(name, bridge_prefixes[i]))
            return true;
    }
    return false;
}

/* The first line of a /sys file, or "" where it cannot be read (a veth's
 * speed reads fine, a loopback's fails with EINVAL). */
static void read_line(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    if (fgets(buf, (int)size, f) == NULL)
        buf[0] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

static long netdev_speed(const char *name)
{
    char path[256], line[64];
    snprintf(path, sizeof path, "/sys/class/net/%s/speed", name);
    read_line(path, line, sizeof line);
    char *end;
    long v = strtol(line, &end, 10);
    return end != line && v > 0 ? v : -1;
}

static ol_netif_t *add_entry(ol_netif_list_t *list, const char *name)
{
    for (size_t i = 0; i < list->n; i++) {
        if (strcmp(list->ifs[i].name, name) == 0)
            return &list->ifs[i];
    }
    ol_netif_t *grown = realloc(list->ifs, (list->n + 1) * sizeof *grown);
    if (grown == NULL)
        return NULL;
    list->ifs = grown;
    ol_netif_t *nif = &list->ifs[list->n++];
    memset(nif, 0, sizeof *nif);
    snprintf(nif->name, sizeof nif->name, "%s", name);
    nif->speed_mbps = -1;
    return nif;
}

/* Interfaces as getifaddrs lists them (one row per address: the first
 * IPv4 address of each is kept). */
static int scan_netdevs(ol_netif_list_t *list, char **err)
{
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) != 0) {
        *err = strdup("cannot list this host's network interfaces (getifaddrs failed)");
        return -1;
    }
    int rc = 0;
    for (struct ifaddrs *i = ifs; i != NULL && rc == 0; i = i->ifa_next) {
        ol_netif_t *nif = add_entry(list, i->ifa_name);
        if (nif == NULL) {
            rc = -1;
            *err = strdup("out of memory listing network interfaces");
            break;
        }
        nif->loopback = (i->ifa_flags & IFF_LOOPBACK) != 0;
        nif->bridge = is_bridge_name(nif->name);
        if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET || nif->addr[0])
            continue;
        inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, nif->addr,
                  sizeof nif->addr);
        nif->usable = (i->ifa_flags & IFF_UP) && (i->ifa_flags & IFF_RUNNING);
    }
    freeifaddrs(ifs);
    for (size_t k = 0; rc == 0 && k < list->n; k++)
        list->ifs[k].speed_mbps = netdev_speed(list->ifs[k].name);
    return rc;
}

/* "100 Gb/sec (4X EDR)" -> 100000. */
static long rdma_rate(const char *line)
{
    char *end;
    double gbps = strtod(line, &end);
    return end != line && gbps > 0 ? (long)(gbps * 1000.0 + 0.5) : -1;
}

static int scan_rdma_device(ol_netif_list_t *list, const char *dev)
{
    char path[512];
    snprintf(path, sizeof path, "/sys/class/infiniband/%s/ports", dev);
    DIR *ports = opendir(path);
    if (ports == NULL)
        return 0;
    int rc = 0;
    for (struct dirent *p; rc == 0 && (p = readdir(ports)) != NULL;) {
        if (p->d_name[0] == '.')
            continue;
        char name[OL_NETIF_NAME_MAX], line[128];
        /* Device names are short (mlx5_0); the bounds keep the name whole. */
        snprintf(name, sizeof name, "%.40s:%.16s", dev, p->d_name);
        ol_netif_t *nif = add_entry(list, name);
        if (nif == NULL) {
            rc = -1;
            break;
        }
        nif->rdma = true;
        snprintf(path, sizeof path, "/sys/class/infiniband/%s/ports/%s/state", dev, p->d_name);
        read_line(path, line, sizeof line);
        nif->usable = strstr(line, "ACTIVE") != NULL;
        snprintf(path, sizeof path, "/sys/class/infiniband/%s/ports/%s/rate", dev, p->d_name);
        read_line(path, line, sizeof line);
        nif->speed_mbps = rdma_rate(line);
    }
    closedir(ports);
    return rc;
}

static int scan_rdma(ol_netif_list_t *list, char **err)
{
    DIR *dir = opendir("/sys/class/infiniband");
    if (dir == NULL)
        return 0; /* no RDMA device */
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] != '.')
            rc = scan_rdma_device(list, e->d_name);
    }
    closedir(dir);
    if (rc != 0)
        *err = strdup("out of memory listing RDMA devices");
    return rc;
}

/* NAME=MBPS,... over what /sys says. */
static void apply_test_speeds(ol_netif_list_t *list, const char *spec)
{
    char *copy = strdup(spec ? spec : ""), *save = NULL;
    for (char *w = copy ? strtok_r(copy, ",", &save) : NULL; w != NULL; w = strtok_r(NULL, ",", &save)) {
        char *eq = strrchr(w, '=');
        if (eq == NULL)
            continue;
        *eq = '\0';
        char *end;
        long mbps = strtol(eq + 1, &end, 10);
        for (size_t i = 0; i < list->n && end != eq + 1 && *end == '\0'; i++) {
            if (strcmp(list->ifs[i].name, w) == 0)
                list->ifs[i].speed_mbps = mbps > 0 ? mbps : -1;
        }
    }
    free(copy);
}

int ol_netif_scan(ol_netif_list_t *list, const char *test_speeds, char **err)
{
    list->ifs = NULL;
    list->n = 0;
    if (scan_netdevs(list, err) != 0 || scan_rdma(list, err) != 0) {
        ol_netif_free(list);
        return -1;
    }
    apply_test_speeds(list, test_speeds);
    return 0;
}

void ol_netif_free(ol_netif_list_t *list)
{
    free(list->ifs);
    list->ifs = NULL;
    list->n = 0;
}

/* One entry of a list against a name: a prefix, or with exact the whole
 * name (for an RDMA port, its device's name too: "=mlx5_0" takes its
 * ports). */
static bool entry_takes(const char *entry, size_t len, bool exact, const char *name)
{
    if (len == 0)
        return false;
    if (!exact)
        return strncmp(name, entry, len) == 0;
    size_t nlen = strlen(name), dev = strcspn(name, ":");
    return (nlen == len || dev == len) && strncmp(name, entry, len) == 0;
}

/* The list's entries after its '^' and '=' marks. */
static const char *spec_entries(const char *spec, bool *exclude, bool *exact)
{
    *exclude = spec[0] == '^';
    spec += *exclude;
    *exact = spec[0] == '=';
    return spec + *exact;
}

static bool list_takes(const char *entries, bool exact, const char *name)
{
    for (const char *p = entries; *p;) {
        size_t len = strcspn(p, ",");
        if (entry_takes(p, len, exact, name))
            return true;
        p += len;
        p += *p == ',';
    }
    return false;
}

bool ol_netif_spec_takes(const char *spec, const char *name)
{
    if (spec == NULL || spec[0] == '\0')
        return true;
    bool exclude, exact;
    const char *entries = spec_entries(spec, &exclude, &exact);
    return list_takes(entries, exact, name) != exclude;
}

static bool default_takes(const ol_netif_t *nif)
{
    return nif->usable && !nif->loopback && !nif->bridge;
}

/* "eth0, eth1 (down), lo, mlx5_0:1 (inactive)": what this host has. */
static char *inventory(const ol_netif_list_t *list)
{
    size_t size = 1;
    for (size_t i = 0; i < list->n; i++)
        size += strlen(list->ifs[i].name) + 24;
    char *out = malloc(size);
    if (out == NULL)
        return NULL;
    out[0] = '\0';
    for (size_t i = 0; i < list->n; i++) {
        const ol_netif_t *nif = &list->ifs[i];
        const char *state = nif->usable ? "" : nif->rdma ? " (inactive)" : " (down or no IPv4)";
        snprintf(out + strlen(out), size - strlen(out), "%s%s%s", i ? ", " : "", nif->name, state);
    }
    return out;
}

static int fail_entry(const ol_netif_list_t *list, const char *spec, const char *entry,
                      size_t len, char **err)
{
    char *have = inventory(list);
    if (asprintf(err, "no usable network interface matches '%.*s' of OMPI_LITE_IFNAME=%s; "
                      "this host has %s", (int)len, entry, spec, have && *have ? have : "none") < 0)
        *err = NULL;
    free(have);
    return -1;
}

/* Each entry of an including list takes some usable interface. */
static int check_entries(const ol_netif_list_t *list, const char *spec, const char *entries,
                         bool exact, char **err)
{
    for (const char *p = entries; *p;) {
        size_t len = strcspn(p, ",");
        bool found = len == 0;
        for (size_t i = 0; i < list->n && !found; i++)
            found = list->ifs[i].usable && entry_takes(p, len, exact, list->ifs[i].name);
        if (!found)
            return fail_entry(list, spec, p, len, err);
        p += len;
        p += *p == ',';
    }
    return 0;
}

static size_t count_selected(const ol_netif_list_t *list)
{
    size_t n = 0;
    for (size_t i = 0; i < list->n; i++)
        n += list->ifs[i].selected;
    return n;
}

static void clear_selected(ol_netif_list_t *list)
{
    for (size_t i = 0; i < list->n; i++)
        list->ifs[i].selected = false;
}

/* The default rule, and where it leaves nothing, every usable entry. */
static void select_default(ol_netif_list_t *list)
{
    for (size_t i = 0; i < list->n; i++)
        list->ifs[i].selected = default_takes(&list->ifs[i]);
    if (count_selected(list) > 0)
        return;
    for (size_t i = 0; i < list->n; i++)
        list->ifs[i].selected = list->ifs[i].usable;
}

int ol_netif_select(ol_netif_list_t *list, const char *spec, char **err)
{
    select_default(list);
    if (spec == NULL || spec[0] == '\0')
        return 0;
    clear_selected(list);
    bool exclude, exact;
    const char *entries = spec_entries(spec, &exclude, &exact);
    if (!exclude && check_entries(list, spec, entries, exact, err) != 0) {
        clear_selected(list);
        return -1;
    }
    /* Excluding keeps the default's rule: loopback and bridges only where
     * nothing else is left. */
    for (int pass = 0; pass < (exclude ? 2 : 1) && count_selected(list) == 0; pass++) {
        for (size_t i = 0; i < list->n; i++) {
            ol_netif_t *nif = &list->ifs[i];
            bool listed = list_takes(entries, exact, nif->name);
            nif->selected = exclude ? nif->usable && !listed && (pass || default_takes(nif))
                                    : nif->usable && listed;
        }
    }
    if (count_selected(list) > 0)
        return 0;
    char *have = inventory(list);
    if (asprintf(err, "OMPI_LITE_IFNAME=%s leaves no usable network interface; this host has %s",
                 spec, have && *have ? have : "none") < 0)
        *err = NULL;
    free(have);
    return -1;
}

char *ol_netif_selected_names(const ol_netif_list_t *list)
{
    size_t size = 1;
    for (size_t i = 0; i < list->n; i++)
        size += strlen(list->ifs[i].name) + 1;
    char *out = malloc(size);
    if (out == NULL)
        return NULL;
    out[0] = '\0';
    for (size_t i = 0; i < list->n; i++) {
        const ol_netif_t *nif = &list->ifs[i];
        if (!nif->selected)
            continue;
        snprintf(out + strlen(out), size - strlen(out), "%s%s", out[0] ? "," : "", nif->name);
    }
    return out;
}

const ol_netif_t *ol_netif_fastest_selected(const ol_netif_list_t *list)
{
    const ol_netif_t *best = NULL;
    for (size_t i = 0; i < list->n; i++) {
        const ol_netif_t *nif = &list->ifs[i];
        if (nif->selected && (best == NULL || nif->speed_mbps > best->speed_mbps))
            best = nif;
    }
    return best;
}

void ol_netif_speed_text(long mbps, char *buf, size_t size)
{
    if (mbps <= 0)
        snprintf(buf, size, "speed unknown");
    else if (mbps >= 1000)
        snprintf(buf, size, "%g Gb/s", (double)mbps / 1000.0);
    else
        snprintf(buf, size, "%ld Mb/s", mbps);
}

char *ol_netif_describe(const ol_netif_t *nif)
{
    char flags[8], *f = flags, *out;
    if (nif->selected)
        *f++ = 's';
    if (nif->usable)
        *f++ = 'u';
    if (nif->rdma)
        *f++ = 'r';
    if (nif->loopback)
        *f++ = 'l';
    if (nif->bridge)
        *f++ = 'b';
    if (f == flags)
        *f++ = '-';
    *f = '\0';
    return asprintf(&out, "%s %ld %s", nif->name, nif->speed_mbps, flags) < 0 ? NULL : out;
}

int ol_netif_parse(const char *line, ol_netif_t *nif)
{
    char flags[16];
    memset(nif, 0, sizeof *nif);
    /* The width bounds the name to its field (OL_NETIF_NAME_MAX - 1). */
    if (sscanf(line, "%63s %ld %15s", nif->name, &nif->speed_mbps, flags) != 3)
        return -1;
    nif->selected = strchr(flags, 's') != NULL;
    nif->usable = strchr(flags, 'u') != NULL;
    nif->rdma = strchr(flags, 'r') != NULL;
    nif->loopback = strchr(flags, 'l') != NULL;
    nif->bridge = strchr(flags, 'b') != NULL;
    return 0;
}
