/* PMIx client: see pmix_client.h. */
#include "pmix_client.h"
#include "ol_log.h"
#include "ol_runtime.h"
#include "ol_shm_names.h"
#include "ol_dynamic.h"
#include "ol_spawn.h"

#include <pmix.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pmix_proc_t self_proc;
static bool pmix_started;   /* between ol_pmix_start and ol_pmix_stop */

/* The runtime may end and start again in one process (sessions, then
 * MPI_Init): PMIx_Init stays done from the first start to the process's
 * exit, as PMIx 4.2 does not take a PMIx_Init after PMIx_Finalize well (a
 * fence of a process that starts again fails with PARTIAL SUCCESS while a
 * peer is still in its PMIx_Finalize, and this process's own data is gone
 * from PMIx_Get). The launcher learns that the process finalized from the
 * PMIx_Finalize made at exit, when no runtime runs any more. */
static bool pmix_connected;
/* How many times the runtime started: the keys of each start are apart,
 * so that a lookup never finds what a peer put before it started again. */
static unsigned generation;

static int job_uint32(const char *key, pmix_rank_t rank, int fallback)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    PMIX_LOAD_PROCID(&proc, self_proc.nspace, rank);
    if (PMIx_Get(&proc, key, NULL, 0, &val) != PMIX_SUCCESS || !val)
        return fallback;
    int result = fallback;
    switch (val->type) {
    case PMIX_UINT32: result = (int)val->data.uint32; break;
    case PMIX_UINT16: result = (int)val->data.uint16; break;
    case PMIX_INT: result = val->data.integer; break;
    case PMIX_PROC_RANK: result = (int)val->data.rank; break;
    default: break;
    }
    PMIX_VALUE_RELEASE(val);
    return result;
}

/* World ranks on this host, one bit each (PMIX_LOCAL_PEERS); NULL when
 * PMIx does not say (then only this rank is known to be here). */
static uint64_t *local_peers;

static void mark_local_peer(long r)
{
    if (r >= 0 && r < ol_rt.size)
        local_peers[r / 64] |= (uint64_t)1 << (r % 64);
}

bool ol_rt_same_host(int world_rank)
{
    if (world_rank == ol_rt.rank)
        return true;
    return local_peers && world_rank >= 0 && world_rank < ol_rt.size &&
           (local_peers[world_rank / 64] >> (world_rank % 64)) & 1;
}

/* Reads PMIX_LOCAL_PEERS into local_peers; returns the lowest of them. */
static int read_local_peers(void)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    int lowest = (int)self_proc.rank;
    PMIX_LOAD_PROCID(&proc, self_proc.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&proc, PMIX_LOCAL_PEERS, NULL, 0, &val) != PMIX_SUCCESS || !val)
        return lowest;
    if (val->type == PMIX_STRING && val->data.string)
        local_peers = calloc(((size_t)ol_rt.size + 63) / 64, sizeof(*local_peers));
    if (local_peers) {
        for (char *p = val->data.string; *p;) {
            char *end;
            long r = strtol(p, &end, 10);
            if (end == p)
                break;
            mark_local_peer(r);
            if (r < lowest)
                lowest = (int)r;
            p = *end == ',' ? end + 1 : end;
        }
    }
    PMIX_VALUE_RELEASE(val);
    return lowest;
}

/* The server's environment variables tell whether a launcher started this
 * process: PMIx_Init without a server prints nothing and fails. */
static bool launched(void)
{
    return getenv("PMIX_NAMESPACE") || getenv("PMIX_SERVER_URI41") ||
           getenv("PMIX_SERVER_URI4") || getenv("PMIX_SERVER_URI3") ||
           getenv("PMIX_SERVER_URI2") || getenv("PMIX_SERVER_URI21");
}

static void finalize_at_exit(void)
{
    /* A process that exits with the runtime running did not finalize: the
     * launcher must see so. */
    if (!pmix_started)
        PMIx_Finalize(NULL, 0);
}

static ol_status_t connect_once(void)
{
    if (pmix_connected)
        return OL_OK;
    pmix_status_t rc = PMIx_Init(&self_proc, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        ol_error_detail("a launcher started this process (its PMIx variables are set), but "
                        "PMIx_Init failed: %s",
                        PMIx_Error_string(rc));
        return MPI_ERR_INTERN;
    }
    pmix_connected = true;
    atexit(finalize_at_exit);
    return OL_OK;
}

ol_status_t ol_pmix_start(bool *singleton)
{
    *singleton = !launched();
    if (*singleton)
        return OL_OK;
    ol_status_t rc = connect_once();
    if (rc != OL_OK)
        return rc;
    pmix_started = true;
    generation++;
    ol_rt.rank = (int)self_proc.rank;
    ol_rt.size = job_uint32(PMIX_JOB_SIZE, PMIX_RANK_WILDCARD, 0);
    if (ol_rt.size < 1) {
        ol_error_detail("the PMIx server gives no job size");
        return MPI_ERR_INTERN;
    }
    ol_rt.local_size = job_uint32(PMIX_LOCAL_SIZE, PMIX_RANK_WILDCARD, 1);
    ol_rt.num_hosts = job_uint32(PMIX_NUM_NODES, PMIX_RANK_WILDCARD, 0);
    ol_rt.local_rank = job_uint32(PMIX_LOCAL_RANK, self_proc.rank, 0);
    ol_rt.node_rank = job_uint32(PMIX_NODE_RANK, self_proc.rank, 0);
    ol_rt.appnum = job_uint32(PMIX_APPNUM, self_proc.rank, 0);
    ol_rt.universe_size = job_uint32(PMIX_UNIV_SIZE, PMIX_RANK_WILDCARD, ol_rt.size);
    if (ol_rt.universe_size < ol_rt.size)
        ol_rt.universe_size = ol_rt.size;
    ol_rt.node_leader = read_local_peers();
    ol_rt.job_key = ol_job_key(self_proc.nspace);
    snprintf(ol_rt.job_name, sizeof(ol_rt.job_name), "%s", self_proc.nspace);
    return OL_OK;
}

void ol_pmix_stop(void)
{
    free(local_peers);
    local_peers = NULL;
    pmix_started = false;
}

/* key as this start of the runtime puts and looks it up. */
static void key_of_this_start(char *out, size_t size, const char *key)
{
    snprintf(out, size, "%s.%u", key, generation);
}

ol_status_t ol_pmix_publish(const char *key, const void *data, size_t length)
{
    if (!pmix_started)
        return OL_OK;
    char full_key[PMIX_MAX_KEYLEN + 1];
    key_of_this_start(full_key, sizeof(full_key), key);
    pmix_value_t value;
    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_BYTE_OBJECT;
    value.data.bo.bytes = (char *)data;
    value.data.bo.size = length;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, full_key, &value);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        OL_WARN("runtime", "PMIx_Put of %s failed: %s", key, PMIx_Error_string(rc));
        return MPI_ERR_INTERN;
    }
    return OL_OK;
}

ol_status_t ol_pmix_lookup(int rank, const char *key, void **data, size_t *length)
{
    pmix_proc_t proc;
    pmix_value_t *val = NULL;
    char full_key[PMIX_MAX_KEYLEN + 1];
    key_of_this_start(full_key, sizeof(full_key), key);
    PMIX_LOAD_PROCID(&proc, self_proc.nspace, (pmix_rank_t)rank);
    pmix_status_t rc = PMIx_Get(&proc, full_key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || !val || val->type != PMIX_BYTE_OBJECT) {
        OL_WARN("runtime", "PMIx_Get of %s for rank %d failed: %s", key, rank,
                PMIx_Error_string(rc));
        if (val)
            PMIX_VALUE_RELEASE(val);
        return MPI_ERR_INTERN;
    }
    /* Take the bytes out of the value, so the caller frees one buffer. */
    *data = val->data.bo.bytes;
    *length = val->data.bo.size;
    val->data.bo.bytes = NULL;
    val->data.bo.size = 0;
    PMIX_VALUE_RELEASE(val);
    return OL_OK;
}

typedef struct {
    volatile bool done;
    pmix_status_t status;
} fence_state_t;

/* Held by the completion callback from its first touch of the fence's state
 * to its last touch of the worker. The waiter sees done as soon as it is
 * stored, possibly before the callback has signalled the worker; taking the
 * lock once afterwards waits for the callback to be out of both, so that the
 * fence's state (on the waiter's stack) and the worker (destroyed right
 * after the closing fence of MPI_Finalize) outlive it. Static: the callback
 * still unlocks it after the waiter may have returned. */
static pthread_mutex_t fence_callback_lock = PTHREAD_MUTEX_INITIALIZER;

/* Runs on PMIx's thread: wake the rank sleeping on the UCX worker. */
static void fence_complete(pmix_status_t status, void *cbdata)
{
    fence_state_t *fence = cbdata;
    pthread_mutex_lock(&fence_callback_lock);
    fence->status = status;
    __atomic_store_n(&fence->done, true, __ATOMIC_RELEASE);
    ucp_worker_signal(ol_rt.ucp_worker);
    pthread_mutex_unlock(&fence_callback_lock);
}

static bool fence_done(void *arg)
{
    return __atomic_load_n(&((fence_state_t *)arg)->done, __ATOMIC_ACQUIRE);
}

static void wait_fence(fence_state_t *fence)
{
    ol_progress_wait(fence_done, fence);
    pthread_mutex_lock(&fence_callback_lock);
    pthread_mutex_unlock(&fence_callback_lock);
}

/* The fence keeps UCX progressing, so that peers still flushing their
 * endpoints to this rank (at finalize) are not stalled by it. */
ol_status_t ol_pmix_fence(void)
{
    if (!pmix_started)
        return OL_OK;
    fence_state_t fence = {.done = false, .status = PMIX_SUCCESS};
    pmix_status_t rc = PMIx_Fence_nb(NULL, 0, NULL, 0, fence_complete, &fence);
    if (rc == PMIX_SUCCESS) {
        wait_fence(&fence);
        rc = fence.status;
    } else if (rc == PMIX_OPERATION_SUCCEEDED) {
        rc = PMIX_SUCCESS; /* completed at once, no callback comes */
    }
    if (rc != PMIX_SUCCESS) {
        ol_error_detail("the job's fence did not complete (PMIx: %s): another process of the "
                        "job has ended or lost its connection",
                        PMIx_Error_string(rc));
        OL_WARN("runtime", "PMIx_Fence failed: %s", PMIx_Error_string(rc));
        ol_rt_note_peer_lost();
        return MPI_ERR_INTERN;
    }
    return OL_OK;
}

/* A string the job's data holds under key, qualified by a host name or
 * not (host NULL); NULL when PMIx does not say. The caller frees it. */
static char *job_string(const char *key, const char *host)
{
    pmix_proc_t proc;
    pmix_info_t qualifier;
    pmix_value_t *val = NULL;
    PMIX_LOAD_PROCID(&proc, self_proc.nspace, PMIX_RANK_WILDCARD);
    if (host)
        PMIX_INFO_LOAD(&qualifier, PMIX_HOSTNAME, host, PMIX_STRING);
    pmix_status_t rc = PMIx_Get(&proc, key, host ? &qualifier : NULL, host ? 1 : 0, &val);
    if (host)
        PMIX_INFO_DESTRUCT(&qualifier);
    char *text = NULL;
    if (rc == PMIX_SUCCESS && val && val->type == PMIX_STRING && val->data.string)
        text = strdup(val->data.string);
    if (val)
        PMIX_VALUE_RELEASE(val);
    return text;
}

char *ol_pmix_host_list(void)
{
    return pmix_started ? job_string(PMIX_NODE_LIST, NULL) : NULL;
}

char *ol_pmix_host_peers(const char *host)
{
    return pmix_started ? job_string(PMIX_LOCAL_PEERS, host) : NULL;
}

/* "3,0,2" -> the ranks of the job in it, in increasing order; 0 ranks when
 * list is NULL. */
static int parse_ranks(const char *list, int **ranks)
{
    int n = 0;
    *ranks = malloc(sizeof(int) * (size_t)ol_rt.size);
    if (!*ranks || !list)
        return 0;
    char *present = calloc((size_t)ol_rt.size, 1);
    if (!present)
        return 0;
    for (const char *p = list; *p;) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p)
            break;
        if (r >= 0 && r < ol_rt.size)
            present[r] = 1;
        p = *end == ',' ? end + 1 : end;
    }
    for (int r = 0; r < ol_rt.size; r++)
        if (present[r])
            (*ranks)[n++] = r;
    free(present);
    return n;
}

/* This host alone, with the ranks PMIx said are local (or this rank):
 * what a launcher that gives no node list lets a process know. */
static ol_status_t this_host_only(ol_rt_host_t **hosts, int *nhosts)
{
    ol_rt_host_t *h = calloc(1, sizeof(*h));
    int *ranks = malloc(sizeof(int) * (size_t)ol_rt.size);
    if (!h || !ranks) {
        free(h);
        free(ranks);
        return MPI_ERR_NO_MEM;
    }
    snprintf(h->name, sizeof(h->name), "%s", ol_rt.hostname);
    for (int r = 0; r < ol_rt.size; r++)
        if (ol_rt_same_host(r))
            ranks[h->nranks++] = r;
    h->ranks = ranks;
    *hosts = h;
    *nhosts = 1;
    return OL_OK;
}

static int by_lowest_rank(const void *a, const void *b)
{
    const ol_rt_host_t *x = a, *y = b;
    int rx = x->nranks ? x->ranks[0] : INT_MAX, ry = y->nranks ? y->ranks[0] : INT_MAX;
    return (rx > ry) - (rx < ry);
}

ol_status_t ol_rt_hosts(ol_rt_host_t **hosts, int *nhosts)
{
    char *list = ol_pmix_host_list();
    if (!list)
        return this_host_only(hosts, nhosts);
    int n = 1;
    for (const char *c = list; *c; c++)
        n += *c == ',';
    ol_rt_host_t *h = calloc((size_t)n, sizeof(*h));
    if (!h) {
        free(list);
        return MPI_ERR_NO_MEM;
    }
    int used = 0;
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        char *peers = ol_pmix_host_peers(name);
        snprintf(h[used].name, sizeof(h[used].name), "%s", name);
        h[used].nranks = parse_ranks(peers, &h[used].ranks);
        free(peers);
        if (!h[used].ranks) {
            ol_rt_hosts_free(h, used);
            free(list);
            return MPI_ERR_NO_MEM;
        }
        used++;
    }
    free(list);
    qsort(h, (size_t)used, sizeof(*h), by_lowest_rank);
    *hosts = h;
    *nhosts = used;
    return OL_OK;
}

void ol_rt_hosts_free(ol_rt_host_t *hosts, int nhosts)
{
    for (int i = 0; i < nhosts; i++)
        free(hosts[i].ranks);
    free(hosts);
}

void ol_pmix_abort(int exit_code, const char *message)
{
    if (pmix_connected)
        PMIx_Abort(exit_code, message, NULL, 0);
}

/* ---- spawn (ol_dynamic.h) ------------------------------------------------------------- */

/* The PMIx form of one program: pointers into app, the info loaded. */
static bool app_to_pmix(const ol_rt_spawn_app_t *app, pmix_app_t *out, char ***argv)
{
    int n = 0;
    while (app->argv && app->argv[n])
        n++;
    *argv = calloc((size_t)n + 2, sizeof(char *));
    if (!*argv)
        return false;
    (*argv)[0] = (char *)app->command;
    for (int i = 0; i < n; i++)
        (*argv)[i + 1] = app->argv[i];
    *out = (pmix_app_t){.cmd = (char *)app->command, .argv = *argv, .env = app->env,
                        .cwd = (char *)app->wdir, .maxprocs = app->maxprocs};
    const char *keys[] = {PMIX_HOST, PMIX_HOSTFILE, PMIX_ADD_HOST, PMIX_WDIR, OL_SPAWN_PATH_KEY};
    const char *values[] = {app->host, app->hostfile, app->add_host, app->wdir, app->path};
    size_t ninfo = 0;
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        ninfo += values[k] != NULL;
    if (ninfo == 0)
        return true;
    PMIX_INFO_CREATE(out->info, ninfo);
    if (!out->info)
        return false;
    for (size_t k = 0, i = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
        if (values[k])
            PMIX_INFO_LOAD(&out->info[i++], keys[k], values[k], PMIX_STRING);
    out->ninfo = ninfo;
    return true;
}

/* A sentence for a failed spawn of apps. */
static void explain_spawn_failure(pmix_status_t st, const ol_rt_spawn_app_t *apps, int napps)
{
    int total = 0;
    for (int i = 0; i < napps; i++)
        total += apps[i].maxprocs;
    int err = OL_SPAWN_STATUS_ERRNO(st);
    const char *program = napps == 1 ? apps[0].command : "one of the programs";
    if (err)
        ol_error_detail("cannot start %s%s%s: %s", napps == 1 ? "'" : "", program,
                        napps == 1 ? "'" : "", strerror(err));
    else if (st == PMIX_ERR_OUT_OF_RESOURCE)
        ol_error_detail("not enough free slots for %d more processes on the job's hosts "
                        "(hostfile or --host slots; mpirun --oversubscribe allows more)",
                        total);
    else if (st == PMIX_ERR_NOT_FOUND)
        ol_error_detail("a host named by the info key host, hostfile or add-host is unknown "
                        "or cannot be reached");
    else if (st == PMIX_ERR_NOT_SUPPORTED)
        ol_error_detail("the launcher of this job does not spawn processes (Slurm's srun, for "
                        "one, does not): start the job with mpirun to spawn (PMIx: %s)",
                        PMIx_Error_string(st));
    else
        ol_error_detail("the launcher could not start the processes (PMIx: %s)",
                        PMIx_Error_string(st));
}

ol_status_t ol_rt_spawn(const ol_rt_spawn_app_t *apps, int napps)
{
    if (!pmix_started) {
        ol_error_detail("a process started without mpirun cannot spawn: start it with "
                        "mpirun -np 1");
        return MPI_ERR_SPAWN;
    }
    pmix_app_t *papps = calloc((size_t)napps, sizeof(*papps));
    char ***argvs = calloc((size_t)napps, sizeof(*argvs));
    bool built = papps && argvs;
    for (int i = 0; built && i < napps; i++)
        built = app_to_pmix(&apps[i], &papps[i], &argvs[i]);
    pmix_status_t st = PMIX_ERR_NOMEM;
    char nspace[PMIX_MAX_NSLEN + 1] = "";
    if (built)
        st = PMIx_Spawn(NULL, 0, papps, (size_t)napps, nspace);
    for (int i = 0; papps && argvs && i < napps; i++) {
        if (papps[i].info)
            PMIX_INFO_FREE(papps[i].info, papps[i].ninfo);
        free(argvs[i]);
    }
    free(papps);
    free(argvs);
    if (st == PMIX_SUCCESS) {
        OL_INFO("runtime", "spawned job %s", nspace);
        return OL_OK;
    }
    if (st == PMIX_ERR_NOMEM) {
        ol_error_detail("out of memory for the spawn request");
        return MPI_ERR_NO_MEM;
    }
    explain_spawn_failure(st, apps, napps);
    return MPI_ERR_SPAWN;
}

/* ---- the job's name service ------------------------------------------------------------ */

/* What a status of the name calls means; absent is the status's meaning
 * of "not there" (NOT_FOUND). */
static ol_pmix_name_t name_outcome(pmix_status_t st)
{
    switch (st) {
    case PMIX_SUCCESS: return OL_PMIX_NAME_DONE;
    case PMIX_ERR_NOT_FOUND: return OL_PMIX_NAME_ABSENT;
    case PMIX_ERR_DUPLICATE_KEY: return OL_PMIX_NAME_TAKEN;
    default:
        OL_INFO("runtime", "the launcher keeps no names (PMIx: %s)", PMIx_Error_string(st));
        return OL_PMIX_NAME_NO_SERVICE;
    }
}

/* PMIx keys are at most PMIX_MAX_KEYLEN bytes: a longer name is left to
 * the directory, rather than cut to collide with another. */
static bool fits_key(const char *service)
{
    return strlen(service) <= PMIX_MAX_KEYLEN;
}

/* The range every name is published in and looked up from: the session,
 * every process this mpirun started (spawned ones too). */
static void load_range(pmix_info_t *info)
{
    pmix_data_range_t range = PMIX_RANGE_SESSION;
    PMIX_INFO_LOAD(info, PMIX_RANGE, &range, PMIX_DATA_RANGE);
}

ol_pmix_name_t ol_pmix_name_publish(const char *service, const char *port)
{
    if (!pmix_started || !fits_key(service))
        return OL_PMIX_NAME_NO_SERVICE;
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], service, port, PMIX_STRING);
    load_range(&info[1]);
    pmix_status_t st = PMIx_Publish(info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    return name_outcome(st);
}

ol_pmix_name_t ol_pmix_name_lookup(const char *service, char *port)
{
    if (!pmix_started || !fits_key(service))
        return OL_PMIX_NAME_NO_SERVICE;
    pmix_pdata_t data;
    pmix_info_t range;
    PMIX_PDATA_CONSTRUCT(&data);
    PMIX_LOAD_KEY(data.key, service);
    load_range(&range);
    pmix_status_t st = PMIx_Lookup(&data, 1, &range, 1);
    if (st == PMIX_SUCCESS && (data.value.type != PMIX_STRING || !data.value.data.string ||
                               strlen(data.value.data.string) >= MPI_MAX_PORT_NAME))
        st = PMIX_ERR_NOT_FOUND;
    if (st == PMIX_SUCCESS)
        snprintf(port, MPI_MAX_PORT_NAME, "%s", data.value.data.string);
    PMIX_PDATA_DESTRUCT(&data);
    PMIX_INFO_DESTRUCT(&range);
    return name_outcome(st);
}

ol_pmix_name_t ol_pmix_name_unpublish(const char *service)
{
    if (!pmix_started || !fits_key(service))
        return OL_PMIX_NAME_NO_SERVICE;
    char *keys[2] = {(char *)service, NULL};
    pmix_info_t range;
    load_range(&range);
    pmix_status_t st = PMIx_Unpublish(keys, &range, 1);
    PMIX_INFO_DESTRUCT(&range);
    return name_outcome(st);
}
