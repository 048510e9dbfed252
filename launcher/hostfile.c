/* Host lists: hostfiles in Open MPI syntax (`host slots=N max_slots=M`,
 * also `max-slots`) and MPICH syntax (`host:N`), `#` comments and blank
 * lines; and --host lists (`a:2,b,c:4`). A host is a name, an IPv4
 * address, or an IPv6 address (`fd00::2`, or `[fd00::2]:N` with a count).
 * A host named twice adds up its slots, as both peers do, also when the
 * two spellings differ (a name and its address, or this host's name and
 * one of its addresses: see hostid.h). A host without a count has one slot
 * (we cannot count a remote host's cores before a daemon runs there). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mpirun.h"
#include "util.h"

#define SLOTS_MAX (1L << 20)
/* No sensible hostfile line comes near this; a longer one is a wrong file
 * (a binary, a log), and quoting it would flood the terminal. */
#define LINE_MAX_BYTES 4096
/* What an error message quotes of the offending word or line. */
#define QUOTE_MAX 60

static bool valid_host_name(const char *s, size_t len)
{
    struct ol_ipaddr a;
    if (memchr(s, ':', len) != NULL) /* only an IPv6 address has colons */
        return s[len] == '\0' && ol_ipaddr_parse(s, &a);
    if (len == 0 || len > 255)
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char)s[i]) && s[i] != '.' && s[i] != '-' && s[i] != '_')
            return false;
    }
    return true;
}

/* Splits a host word into the host and its MPICH count (NULL if none):
 * `host`, `host:N`, an IPv6 address (two colons or more, no count), or
 * `[ADDR]` and `[ADDR]:N`. -1 for a '[' without its ']', or junk after it. */
static int split_host_word(char *word, char **host, char **count)
{
    *count = NULL;
    if (word[0] == '[') {
        char *close = strchr(word, ']');
        if (close == NULL || (close[1] != '\0' && close[1] != ':'))
            return -1;
        *close = '\0';
        *host = word + 1;
        if (close[1] == ':')
            *count = close + 2;
        return 0;
    }
    *host = word;
    char *colon = strchr(word, ':');
    if (colon != NULL && strchr(colon + 1, ':') == NULL) {
        *colon = '\0';
        *count = colon + 1;
    }
    return 0;
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
    for (size_t i = 0; i < hl->n; i++) {
        free(hl->v[i].name);
        ol_hostid_free(&hl->v[i].id);
    }
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
    char *word = strtok_r(line, " \t", &save), *host, *count;
    long slots = 1, max_slots = 0;
    if (split_host_word(word, &host, &count) != 0) {
        *why = "bad host name";
        *bad = word;
        return -1;
    }
    if (count != NULL && parse_count(count, &slots) != 0) { /* MPICH: host:N */
        *why = "bad slot count";
        *bad = count;
        return -1;
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
        bool is_slots = strcmp(kv, "slots") == 0 || strcmp(kv, "count") == 0 || strcmp(kv, "cpu") == 0;
        bool is_max = strcmp(kv, "max_slots") == 0 || strcmp(kv, "max-slots") == 0;
        /* The key first: `foo=bar` is an unknown key, not a bad number. */
        if (!is_slots && !is_max) {
            *why = "unknown key";
            *bad = kv;
            return -1;
        }
        if (parse_count(eq + 1, &v) != 0) {
            *why = "bad number";
            *bad = eq + 1;
            return -1;
        }
        if (is_slots)
            slots = v;
        else
            max_slots = v;
    }
    if (max_slots > 0 && slots > max_slots) {
        *why = "slots is larger than max_slots";
        *bad = host;
        return -1;
    }
    ol_hostlist_add(hl, host, strlen(host), slots, max_slots);
    return 0;
}

/* At most QUOTE_MAX bytes of s, for a message that stays one short line. */
static char *quote(const char *s)
{
    size_t n = strlen(s);
    return n <= QUOTE_MAX ? ol_xstrdup(s) : ol_xasprintf("%.*s...", QUOTE_MAX, s);
}

/* Why raw (n bytes, newline stripped) cannot be a hostfile line, or NULL
 * (malloc'd): a NUL byte would silently cut the line short for the string
 * functions, so `host\0junk slots=9` would read as `host`. */
static char *raw_line_problem(const char *raw, size_t n)
{
    if (n > LINE_MAX_BYTES)
        return ol_xasprintf("line too long (%zu bytes; at most %d)", n, LINE_MAX_BYTES);
    if (memchr(raw, '\0', n) != NULL)
        return ol_xstrdup("NUL byte in the line");
    return NULL;
}

/* The one line for a bad hostfile line; its words are quoted short. */
static char *line_error(const char *path, long lineno, const char *why, const char *bad, const char *line)
{
    if (bad == NULL)
        return ol_xasprintf("mpirun: %s:%ld: %s", path, lineno, why);
    char *qb = quote(bad), *ql = quote(line);
    char *e = ol_xasprintf("mpirun: %s:%ld: %s '%s' in '%s' (expected 'host slots=N [max_slots=M]' or 'host:N')",
                           path, lineno, why, qb, ql);
    free(qb);
    free(ql);
    return e;
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
    ssize_t n;
    int rc = 0;
    while ((n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        char *problem = raw_line_problem(line, (size_t)n);
        if (problem != NULL) {
            *err = line_error(path, lineno, problem, NULL, NULL);
            free(problem);
            rc = -1;
            break;
        }
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
            *err = line_error(path, lineno, why, bad, copy);
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
        char *whole = ol_xstrdup(item), *host, *count;
        if (split_host_word(item, &host, &count) != 0 || (count != NULL && parse_count(count, &slots) != 0) ||
            !valid_host_name(host, strlen(host))) {
            *err = ol_xasprintf("mpirun: bad --host entry '%s' (expected host or host:N)", whole);
            free(whole);
            rc = -1;
            break;
        }
        free(whole);
        ol_hostlist_add(hl, host, strlen(host), slots, 0);
    }
    free(copy);
    if (rc == 0 && hl->n == 0) {
        *err = ol_xasprintf("mpirun: --host '%s' names no host", spec);
        rc = -1;
    }
    return rc;
}

/* Adds entry src's slots to dst, as for a host named twice. */
static void merge_slots(struct ol_host *dst, const struct ol_host *src)
{
    dst->slots += src->slots;
    if (src->max_slots > 0)
        dst->max_slots += src->max_slots;
}

bool ol_host_same(const struct ol_host *a, const struct ol_host *b)
{
    return strcasecmp(a->name, b->name) == 0 || ol_hostid_same(&a->id, &b->id);
}

void ol_hostlist_unify(struct ol_hostlist *hl, int resolve_ms)
{
    char **names = ol_xcalloc(hl->n + 1, sizeof *names);
    struct ol_hostid *ids = ol_xcalloc(hl->n + 1, sizeof *ids);
    for (size_t i = 0; i < hl->n; i++)
        names[i] = hl->v[i].name;
    ol_hostid_resolve(names, hl->n, resolve_ms, ids);
    size_t kept = 0;
    for (size_t i = 0; i < hl->n; i++) {
        struct ol_host h = hl->v[i];
        ol_hostid_free(&h.id);
        h.id = ids[i];
        size_t k = 0;
        while (k < kept && !ol_host_same(&hl->v[k], &h))
            k++;
        if (k < kept) { /* the first spelling keeps its place in the map's order */
            ol_info("hosts %s and %s are one machine: %s has %ld slots", hl->v[k].name, h.name,
                    hl->v[k].name, hl->v[k].slots + h.slots);
            merge_slots(&hl->v[k], &h);
            free(h.name);
            ol_hostid_free(&h.id);
            continue;
        }
        /* This host goes by its hostname whatever the hostfile called it,
         * as in Open MPI: messages, the node map and PMIx's HOSTNAME agree. */
        if (h.id.self && strcmp(h.name, ol_hostname()) != 0) {
            free(h.name);
            h.name = ol_xstrdup(ol_hostname());
        }
        hl->v[kept++] = h;
    }
    hl->n = kept;
    free(names);
    free(ids);
}
