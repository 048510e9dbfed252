/* Info objects and the MPI_Info_* calls; MPI_INFO_ENV. */
#include "gen_impl.h"
#include "handles.h"
#include "ol_info.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define OL_INFO_MAGIC 0x6f6c696eU /* "olin" */

typedef struct {
    char *key, *value;
} pair_t;

struct ol_info {
    uint32_t magic;
    bool predefined; /* MPI_INFO_ENV: never changed or freed */
    int n, capacity;
    pair_t *pairs;   /* in the order keys were first set: MPI_Info_get_nthkey */
};

static ol_info_t info_env = {.magic = OL_INFO_MAGIC, .predefined = true};
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

/* ---- objects --------------------------------------------------------------- */

ol_info_t *ol_info_create(void)
{
    ol_info_t *info = calloc(1, sizeof(*info));
    if (info)
        info->magic = OL_INFO_MAGIC;
    return info;
}

static int find(const ol_info_t *info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->pairs[i].key, key) == 0)
            return i;
    return -1;
}

static ol_status_t append(ol_info_t *info, const char *key, const char *value)
{
    if (info->n == info->capacity) {
        int capacity = info->capacity ? 2 * info->capacity : 8;
        pair_t *grown = realloc(info->pairs, sizeof(*grown) * (size_t)capacity);
        if (!grown)
            return MPI_ERR_NO_MEM;
        info->pairs = grown;
        info->capacity = capacity;
    }
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return MPI_ERR_NO_MEM;
    }
    info->pairs[info->n++] = (pair_t){k, v};
    return OL_OK;
}

const char *ol_info_get_value(const ol_info_t *info, const char *key)
{
    int i = find(info, key);
    return i >= 0 ? info->pairs[i].value : NULL;
}

ol_status_t ol_info_set(ol_info_t *info, const char *key, const char *value)
{
    int i = find(info, key);
    if (i < 0)
        return append(info, key, value);
    char *v = strdup(value);
    if (!v)
        return MPI_ERR_NO_MEM;
    free(info->pairs[i].value);
    info->pairs[i].value = v;
    return OL_OK;
}

ol_status_t ol_info_set_size(ol_info_t *info, const char *key, size_t value)
{
    char text[24];
    snprintf(text, sizeof(text), "%zu", value);
    return ol_info_set(info, key, text);
}

/* Sets every pair of from on info, keeping info's other pairs. */
static ol_status_t merge(ol_info_t *info, const ol_info_t *from)
{
    ol_status_t rc = OL_OK;
    for (int i = 0; rc == OL_OK && i < from->n; i++)
        rc = ol_info_set(info, from->pairs[i].key, from->pairs[i].value);
    return rc;
}

ol_info_t *ol_info_dup(const ol_info_t *info)
{
    ol_info_t *copy = ol_info_create();
    if (copy && merge(copy, info) != OL_OK) {
        ol_info_release(copy);
        return NULL;
    }
    return copy;
}

void ol_info_release(ol_info_t *info)
{
    if (info->predefined)
        return;
    for (int i = 0; i < info->n; i++) {
        free(info->pairs[i].key);
        free(info->pairs[i].value);
    }
    free(info->pairs);
    ol_handle_forget(info);
    info->magic = 0;
    free(info);
}

/* ---- MPI_INFO_ENV ---------------------------------------------------------- */

/* The command line: from argv when the caller has it, else from
 * /proc/self/cmdline (NUL-separated words). Words after the command are
 * joined by spaces, cut to what an info value holds. */
static void set_command_line(ol_info_t *info, int argc, char **argv)
{
    char line[MPI_MAX_INFO_VAL] = "", args[MPI_MAX_INFO_VAL] = "";
    char *words[64];
    if (!argv) {
        FILE *f = fopen("/proc/self/cmdline", "r");
        size_t n = f ? fread(line, 1, sizeof(line) - 1, f) : 0;
        if (f)
            fclose(f);
        line[n] = '\0';
        argc = 0;
        for (size_t at = 0; at < n && argc < (int)OL_ARRAY_SIZE(words); at += strlen(line + at) + 1)
            words[argc++] = line + at;
        argv = words;
    }
    if (argc < 1 || !argv[0])
        return;
    size_t used = 0;
    for (int i = 1; i < argc && argv[i] && used < sizeof(args) - 1; i++)
        used += (size_t)snprintf(args + used, sizeof(args) - used, "%s%s", i > 1 ? " " : "",
                                 argv[i]);
    char command[MPI_MAX_INFO_VAL];
    snprintf(command, sizeof(command), "%s", argv[0]);
    ol_info_set(info, "command", command);
    if (argc > 1)
        ol_info_set(info, "argv", args);
}

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_FUNNELED:
        return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
        return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE:
        return "MPI_THREAD_MULTIPLE";
    default:
        return "MPI_THREAD_SINGLE";
    }
}

/* The job's size, before MPI_Init too (MPI_Info_create_env may be called
 * then, and must answer the same): mpirun tells every rank; a process
 * started otherwise is a singleton until MPI_Init says more. */
static int job_size(void)
{
    if (ol_rt.size > 0)
        return ol_rt.size;
    const char *size = getenv("OMPI_LITE_SIZE");
    return size && atoi(size) > 0 ? atoi(size) : 1;
}

/* The keys the standard reserves for MPI_INFO_ENV that this process can
 * answer ("soft" and "file" it cannot: it was not started by spawn). A
 * pair that finds no memory is left out: the object stays usable. */
static void fill_env(ol_info_t *info, int argc, char **argv)
{
    char value[MPI_MAX_INFO_VAL];
    struct utsname uts;
    set_command_line(info, argc, argv);
    snprintf(value, sizeof(value), "%d", job_size());
    ol_info_set(info, "maxprocs", value);
    if (ol_rt.hostname[0])
        ol_info_set(info, "host", ol_rt.hostname);
    else if (gethostname(value, sizeof(value)) == 0)
        ol_info_set(info, "host", value);
    if (uname(&uts) == 0)
        ol_info_set(info, "arch", uts.machine);
    if (getcwd(value, sizeof(value)))
        ol_info_set(info, "wdir", value);
    ol_info_set(info, "thread_level", thread_level_name(ol_rt.thread_level));
}

static void make_env(void)
{
    fill_env(&info_env, 0, NULL);
}

ol_info_t *ol_info_from_handle(MPI_Info handle)
{
    if (handle == MPI_INFO_ENV) {
        pthread_once(&env_once, make_env);
        return &info_env;
    }
    if ((uintptr_t)handle < 4096)
        return NULL; /* MPI_INFO_NULL */
    ol_info_t *info = (ol_info_t *)handle;
    return info->magic == OL_INFO_MAGIC ? info : NULL;
}

MPI_Info ol_info_to_handle(ol_info_t *info)
{
    return info == &info_env ? MPI_INFO_ENV : (MPI_Info)info;
}

/* ---- argument checks ------------------------------------------------------- */

ol_status_t ol_info_hints(MPI_Info handle, const ol_info_t **hints)
{
    *hints = ol_info_from_handle(handle);
    if (*hints || handle == MPI_INFO_NULL)
        return MPI_SUCCESS;
    ol_api_set_detail("info is not a valid info object");
    return MPI_ERR_INFO;
}

static int lookup(MPI_Info handle, ol_info_t **info)
{
    *info = ol_info_from_handle(handle);
    if (*info)
        return MPI_SUCCESS;
    ol_api_set_detail("info is %s",
                      handle == MPI_INFO_NULL ? "MPI_INFO_NULL" : "not a valid info object");
    return MPI_ERR_INFO;
}

/* A user info: MPI_INFO_ENV describes the process and does not change. */
static int lookup_mutable(MPI_Info handle, ol_info_t **info)
{
    int rc = lookup(handle, info);
    if (rc == MPI_SUCCESS && (*info)->predefined) {
        ol_api_set_detail("MPI_INFO_ENV cannot be changed or freed");
        rc = MPI_ERR_INFO;
    }
    return rc;
}

/* Keys are 1 to MPI_MAX_INFO_KEY - 1 characters, so that a key and its
 * NUL fit the MPI_MAX_INFO_KEY bytes MPI_Info_get_nthkey may write. */
static int check_key(const char *key)
{
    if (!key) {
        ol_api_set_detail("key is NULL");
        return MPI_ERR_INFO_KEY;
    }
    size_t n = strlen(key);
    if (n > 0 && n < MPI_MAX_INFO_KEY)
        return MPI_SUCCESS;
    ol_api_set_detail("key \"%.40s%s\" has %zu characters (1 to %d allowed)", key,
                      n > 40 ? "..." : "", n, MPI_MAX_INFO_KEY - 1);
    return MPI_ERR_INFO_KEY;
}

static int check_value(const char *value)
{
    if (!value) {
        ol_api_set_detail("value is NULL");
        return MPI_ERR_INFO_VALUE;
    }
    size_t n = strlen(value);
    if (n < MPI_MAX_INFO_VAL)
        return MPI_SUCCESS;
    ol_api_set_detail("value has %zu characters (at most %d allowed)", n, MPI_MAX_INFO_VAL - 1);
    return MPI_ERR_INFO_VALUE;
}

static int no_memory(void)
{
    ol_api_set_detail("out of memory for an info object");
    return MPI_ERR_NO_MEM;
}

/* The value of key in info, or NULL; checks both. */
static int lookup_value(MPI_Info handle, const char *key, const char **value)
{
    ol_info_t *info;
    int rc = lookup(handle, &info);
    if (rc == MPI_SUCCESS)
        rc = check_key(key);
    if (rc == MPI_SUCCESS)
        *value = ol_info_get_value(info, key);
    return rc;
}

/* ---- the calls ------------------------------------------------------------- */

int ol_info_give(ol_info_t *info, ol_status_t filled, MPI_Info *handle)
{
    if (info && filled != MPI_SUCCESS)
        ol_info_release(info);
    if (!info || filled != MPI_SUCCESS)
        return no_memory();
    *handle = ol_info_to_handle(info);
    return MPI_SUCCESS;
}

static int give(ol_info_t *info, MPI_Info *handle)
{
    return ol_info_give(info, MPI_SUCCESS, handle);
}

int ol_api_info_create(MPI_Info *info)
{
    return give(ol_info_create(), info);
}

int ol_api_info_create_env(int argc, char *argv[], MPI_Info *info)
{
    ol_info_t *env = ol_info_create();
    if (env)
        fill_env(env, argc, argv);
    return give(env, info);
}

int ol_api_info_dup(MPI_Info info, MPI_Info *newinfo)
{
    ol_info_t *i;
    int rc = lookup(info, &i);
    return rc == MPI_SUCCESS ? give(ol_info_dup(i), newinfo) : rc;
}

int ol_api_info_free(MPI_Info *info)
{
    ol_info_t *i;
    int rc = lookup_mutable(*info, &i);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_info_release(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

int ol_api_info_set(MPI_Info info, const char *key, const char *value)
{
    ol_info_t *i;
    int rc = lookup_mutable(info, &i);
    if (rc == MPI_SUCCESS)
        rc = check_key(key);
    if (rc == MPI_SUCCESS)
        rc = check_value(value);
    if (rc == MPI_SUCCESS && ol_info_set(i, key, value) != OL_OK)
        rc = no_memory();
    return rc;
}

int ol_api_info_delete(MPI_Info info, const char *key)
{
    ol_info_t *i;
    int rc = lookup_mutable(info, &i);
    if (rc == MPI_SUCCESS)
        rc = check_key(key);
    if (rc != MPI_SUCCESS)
        return rc;
    int at = find(i, key);
    if (at < 0) {
        ol_api_set_detail("key \"%s\" is not in the info object", key);
        return MPI_ERR_INFO_NOKEY;
    }
    free(i->pairs[at].key);
    free(i->pairs[at].value);
    memmove(&i->pairs[at], &i->pairs[at + 1], sizeof(pair_t) * (size_t)(i->n - at - 1));
    i->n--;
    return MPI_SUCCESS;
}

/* Deprecated in MPI-4.0 for MPI_Info_get_string: value has room for
 * valuelen characters and a NUL; a longer value is cut. */
int ol_api_info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    const char *v;
    int rc = lookup_value(info, key, &v);
    if (rc != MPI_SUCCESS)
        return rc;
    if (valuelen < 0 || !value) {
        ol_api_set_detail("valuelen is %d and value %s", valuelen, value ? "given" : "NULL");
        return MPI_ERR_ARG;
    }
    *flag = v != NULL;
    if (v)
        snprintf(value, (size_t)valuelen + 1, "%s", v);
    return MPI_SUCCESS;
}

/* *buflen: the size of value on entry, the value's length with its NUL on
 * return; a value that does not fit is cut to buflen - 1 characters. */
int ol_api_info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    const char *v;
    int rc = lookup_value(info, key, &v);
    if (rc != MPI_SUCCESS)
        return rc;
    if (*buflen < 0 || (*buflen > 0 && !value)) {
        ol_api_set_detail("buflen is %d and value %s", *buflen, value ? "given" : "NULL");
        return MPI_ERR_ARG;
    }
    *flag = v != NULL;
    if (!v)
        return MPI_SUCCESS;
    if (*buflen > 0)
        snprintf(value, (size_t)*buflen, "%s", v);
    *buflen = (int)strlen(v) + 1;
    return MPI_SUCCESS;
}

int ol_api_info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    const char *v;
    int rc = lookup_value(info, key, &v);
    if (rc != MPI_SUCCESS)
        return rc;
    *flag = v != NULL;
    if (v)
        *valuelen = (int)strlen(v);
    return MPI_SUCCESS;
}

int ol_api_info_get_nkeys(MPI_Info info, int *nkeys)
{
    ol_info_t *i;
    int rc = lookup(info, &i);
    if (rc == MPI_SUCCESS)
        *nkeys = i->n;
    return rc;
}

int ol_api_info_get_nthkey(MPI_Info info, int n, char *key)
{
    ol_info_t *i;
    int rc = lookup(info, &i);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n < 0 || n >= i->n || !key) {
        ol_api_set_detail("n is %d, the info object has %d keys (key %s)", n, i->n,
                          key ? "given" : "NULL");
        return MPI_ERR_ARG;
    }
    snprintf(key, MPI_MAX_INFO_KEY, "%s", i->pairs[n].key);
    return MPI_SUCCESS;
}
