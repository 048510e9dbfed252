/* Host lists: hostfiles in Open MPI syntax (`host slots=N max_slots=M`,
 * also `max-slots`) and MPICH syntax (`host:N`), `#` comments and blank
 * lines; and --host lists (`a:2,b,c:4`). A host named twice adds up its
 * slots, as both peers do. A host without a count has one slot (we cannot
 * count a remote host's cores before a daemon runs there). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpirun.h"
#include "util.h"

#define SLOTS_MAX (1L << 20)

static bool valid_host_name(const char *s, size_t len)
{
    if (len == 0 || len > 255)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '-' && s[i] != '_')
            return false;
    }
    return true;
}

void ol_hostlist_add(struct ol_hostlist *hl, const char *name, size_t len, long slots, long max_slots)
{
    for (size_t i = 0; i < hl->n; i++) {
        if (strlen(hl->v[i].name) == len && strncmp(hl->v[i].name, name, len) == 0) {
            hl->v[i].slots += slots;
            if (max_slots > 0)
                hl->v[i].max_slots += max_slots;
            return;
        }
    }
    struct ol_host *nv = realloc(hl->v, (hl->n + 1) * sizeof *nv);
    if (nv == NULL)
        nv = ol_xmalloc(SIZE_MAX); /* aborts with a message */
    hl->v = nv;
    hl->v[hl->n] = (struct ol_host){ .name = strndup(name, len), .slots = slots, .max_slots = max_slots };
    hl->n++;
}

void ol_hostlist_free(struct ol_hostlist *hl)
{
    for (size_t i = 0; i < hl->n; i++)
        free(hl->v[i].name);
    free(hl->v);
    hl->v = NULL;
    hl->n = 0;
}

static int parse_count(const char *s, long *out)
{
    return ol_parse_long(s, 0, SLOTS_MAX, out);
}

/* One non-empty, comment-free line; *why says what is wrong. */
static int parse_line(char *line, struct ol_hostlist *hl, const char **why, char **bad)
{
    char *save = NULL;
    char *host = strtok_r(line, " \t", &save);
    long slots = 1, max_slots = 0;
    char *colon = strchr(host, ':');
    if (colon != NULL) { /* MPICH: host:N */
        *colon = '\0';
        if (parse_count(colon + 1, &slots) != 0) {
            *why = "bad slot count";
            *bad = colon + 1;
            return -1;
        }
    }
    if (!valid_host_name(host, strlen(host))) {
        *why = "bad host name";
        *bad = host;
        return -1;
    }
    for (char *kv; (kv = strtok_r(NULL, " \t", &save)) != NULL;) {
        char *eq = strchr(kv, '=');
        long v;
        if (eq == NULL) {
            *why = "expected key=value";
            *bad = kv;
            return -1;
        }
        *eq = '\0';
        if (parse_count(eq + 1, &v) != 0) {
            *why = "bad number";
            *bad = eq + 1;
            return -1;
        }
        if (strcmp(kv, "slots") == 0 || strcmp(kv, "count") == 0 || strcmp(kv, "cpu") == 0)
            slots = v;
        else if (strcmp(kv, "max_slots") == 0 || strcmp(kv, "max-slots") == 0)
            max_slots = v;
        else {
            *why = "unknown key";
            *bad = kv;
            return -1;
        }
    }
    if (max_slots > 0 && slots > max_slots) {
        *why = "slots is larger than max_slots";
        *bad = host;
        return -1;
    }
    ol_hostlist_add(hl, host, strlen(host), slots, max_slots);
    return 0;
}

int ol_hostfile_read(const char *path, struct ol_hostlist *hl, char **err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        *err = ol_xasprintf("mpirun: cannot read hostfile '%s': %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    int rc = 0;
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line + strspn(line, " \t");
        if (*p == '\0')
            continue;
        const char *why;
        char *bad;
        char *copy = ol_xstrdup(p);
        if (parse_line(p, hl, &why, &bad) != 0) {
            *err = ol_xasprintf("mpirun: %s:%ld: %s '%s' in '%s' (expected 'host slots=N [max_slots=M]' or 'host:N')",
                                path, lineno, why, bad, copy);
            free(copy);
            rc = -1;
            break;
        }
        free(copy);
    }
    if (rc == 0 && ferror(f)) {
        *err = ol_xasprintf("mpirun: cannot read hostfile '%s': %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && hl->n == 0) {
        *err = ol_xasprintf("mpirun: hostfile '%s' names no host", path);
        rc = -1;
    }
    free(line);
    fclose(f);
    return rc;
}

int ol_hostlist_parse_hosts(const char *spec, struct ol_hostlist *hl, char **err)
{
    char *copy = ol_xstrdup(spec), *save = NULL;
    int rc = 0;
    for (char *item = strtok_r(copy, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
        long slots = 1;
        char *colon = strchr(item, ':');
        size_t len = colon ? (size_t)(colon - item) : strlen(item);
        if ((colon != NULL && parse_count(colon + 1, &slots) != 0) || !valid_host_name(item, len)) {
            *err = ol_xasprintf("mpirun: bad --host entry '%s' (expected host or host:N)", item);
            rc = -1;
            break;
        }
        ol_hostlist_add(hl, item, len, slots, 0);
    }
    free(copy);
    if (rc == 0 && hl->n == 0) {
        *err = ol_xasprintf("mpirun: --host '%s' names no host", spec);
        rc = -1;
    }
    return rc;
}

bool ol_host_is_local(const char *name)
{
    const char *me = ol_hostname();
    if (strcmp(name, me) == 0 || strcmp(name, "localhost") == 0 || strcmp(name, "127.0.0.1") == 0)
        return true;
    /* "node1" names "node1.cluster" and the other way round. */
    size_t a = strcspn(name, "."), b = strcspn(me, ".");
    return a == b && strncmp(name, me, a) == 0 && (name[a] == '\0' || me[b] == '\0');
}
