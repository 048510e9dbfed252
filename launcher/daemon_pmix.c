/* The daemon's PMIx server: the module the PMIx library calls up into, and
 * the registration of a job's namespace and clients.
 *
 * Upcalls run on PMIx's progress thread. They touch only the atomics of a
 * rank and the upcall pipe (see daemon.h), and every call is answered
 * exactly once (by the upcall itself, or by the main loop for what needs
 * other hosts or mpirun), because the client is blocked until then. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_server.h>

#include "daemon.h"
#include "ol_spawn.h"
#include "ol_user_dir.h"
#include "util.h"

/* ---- waiting for PMIx's non-blocking registration calls ---- */

struct op_wait {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int pending;
    pmix_status_t status;
};

static void op_wait_init(struct op_wait *w)
{
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->pending = 0;
    w->status = PMIX_SUCCESS;
}

static void op_wait_done(pmix_status_t status, void *cbdata)
{
    struct op_wait *w = cbdata;
    pthread_mutex_lock(&w->lock);
    if (status != PMIX_SUCCESS && w->status == PMIX_SUCCESS)
        w->status = status;
    w->pending--;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

/* Accounts for a call's immediate return: SUCCESS means the callback will
 * come; anything else (including OPERATION_SUCCEEDED) means it will not. */
static void op_wait_started(struct op_wait *w, pmix_status_t rc)
{
    pthread_mutex_lock(&w->lock);
    w->pending++;
    pthread_mutex_unlock(&w->lock);
    if (rc != PMIX_SUCCESS)
        op_wait_done(rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc, w);
}

static pmix_status_t op_wait_all(struct op_wait *w)
{
    pthread_mutex_lock(&w->lock);
    while (w->pending > 0)
        pthread_cond_wait(&w->cond, &w->lock);
    pmix_status_t st = w->status;
    pthread_mutex_unlock(&w->lock);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    return st;
}

/* ---- module upcalls ---- */

static struct ol_daemon *the_daemon;

void ol_dpmix_post(uint32_t kind, uint32_t local_rank, void *ptr)
{
    struct ol_upcall_note note = { .kind = kind, .local_rank = local_rank, .ptr = ptr };
    /* Smaller than PIPE_BUF, so the write is atomic; the pipe is blocking on
     * this end, and the main loop drains it promptly. */
    ssize_t n;
    do {
        n = write(the_daemon->upcall_pipe[1], &note, sizeof note);
    } while (n < 0 && errno == EINTR);
}

static pmix_status_t client_connected(const pmix_proc_t *proc, void *server_object,
                                      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    struct ol_rank *r = server_object;
    if (r != NULL)
        atomic_store(&r->connected, true);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t client_finalized(const pmix_proc_t *proc, void *server_object,
                                      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    struct ol_rank *r = server_object;
    /* Recorded before the client is released, so before it can exit and be
     * reaped: the reaper never sees a finalized rank as unfinalized. */
    if (r != NULL)
        atomic_store(&r->finalized, true);
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static pmix_status_t client_abort(const pmix_proc_t *proc, void *server_object, int status,
                                  const char msg[], pmix_proc_t procs[], size_t nprocs,
                                  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc;
    /* Aborting a subset of the job is treated as aborting the whole job:
     * MPI_Abort on any communicator ends the job in this implementation. */
    (void)procs;
    (void)nprocs;
    struct ol_rank *r = server_object;
    if (r != NULL) {
        /* mpirun tells MPI_Abort from the library's fatal-error path by it. */
        snprintf(r->abort_msg, sizeof r->abort_msg, "%s", msg != NULL ? msg : "");
        atomic_store(&r->abort_code, status);
        atomic_store(&r->aborted, true);
        ol_dpmix_post(OL_UPCALL_ABORT, r->idx, NULL);
    }
    if (cbfunc != NULL)
        cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

static void release_fence_data(void *cbdata)
{
    free(cbdata);
}

/* True when every participant of a fence runs on this host (of any
 * namespace: a spawn's fences with its parent are local on one host). */
static bool all_local(const pmix_proc_t procs[], size_t nprocs)
{
    struct ol_daemon *d = the_daemon;
    if (d->nnodes == 1)
        return true;
    for (size_t i = 0; i < nprocs; i++) {
        struct ol_djob *j = ol_daemon_job_by_nspace(d, procs[i].nspace);
        if (j == NULL || procs[i].rank == PMIX_RANK_WILDCARD || procs[i].rank >= j->spec->job_size ||
            j->spec->rank_node[procs[i].rank] != d->node_id)
            return false;
    }
    return true;
}

/* The namespace a fence covers whole (its wildcard, or as many of its
 * ranks as it has: PMIx may hand over its expanded list), or NULL. */
static struct ol_djob *namespace_fenced(const pmix_proc_t procs[], size_t nprocs)
{
    struct ol_djob *j = nprocs > 0 ? ol_daemon_job_by_nspace(the_daemon, procs[0].nspace) : NULL;
    if (j == NULL)
        return NULL;
    if (nprocs == 1 && procs[0].rank == PMIX_RANK_WILDCARD)
        return j;
    if (nprocs != j->spec->job_size)
        return NULL;
    for (size_t i = 0; i < nprocs; i++) {
        if (!PMIX_CHECK_NSPACE(procs[i].nspace, procs[0].nspace) || procs[i].rank >= nprocs)
            return NULL;
    }
    return j;
}

/* Fences among this host's ranks only (always the case on one host): when
 * PMIx calls this every contribution has arrived and `data` already holds
 * all of them, so hand it straight back. That covers PMIX_COLLECT_DATA too.
 * `data` belongs to PMIx and may be freed once we return, so we return a
 * copy and free it when PMIx calls the release function. Fences across
 * hosts go to the main loop and through the tree (daemon_modex.c); those
 * must be job-wide, which MPI's are. */
static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void)info;
    (void)ninfo;
    if (cbfunc == NULL)
        return PMIX_SUCCESS;
    char *copy = NULL;
    if (ndata > 0) {
        copy = malloc(ndata);
        if (copy == NULL)
            return PMIX_ERR_NOMEM;
        memcpy(copy, data, ndata);
    }
    if (all_local(procs, nprocs)) {
        cbfunc(PMIX_SUCCESS, copy, ndata, cbdata, copy ? release_fence_data : NULL, copy);
        return PMIX_SUCCESS;
    }
    /* Fences across hosts count on every daemon with processes of the
     * namespace taking part: a namespace's whole set (the first job's or a
     * spawn's). */
    struct ol_djob *j = namespace_fenced(procs, nprocs);
    if (j == NULL) {
        free(copy);
        return PMIX_ERR_NOT_SUPPORTED; /* fences of a subset spanning hosts */
    }
    struct ol_fence_req *req = malloc(sizeof *req);
    if (req == NULL) {
        free(copy);
        return PMIX_ERR_NOMEM;
    }
    *req = (struct ol_fence_req){ .job = j, .cbfunc = (void *)cbfunc, .cbdata = cbdata,
                                  .data = (uint8_t *)copy, .len = ndata };
    ol_dpmix_post(OL_UPCALL_FENCE, 0, req);
    return PMIX_SUCCESS;
}

/* PMIx serves local peers' data itself; this is for a rank on another host. */
static pmix_status_t direct_modex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    struct ol_djob *j = ol_daemon_job_by_nspace(the_daemon, proc->nspace);
    if (the_daemon->nnodes == 1 || cbfunc == NULL || j == NULL || proc->rank >= j->spec->job_size)
        return PMIX_ERR_NOT_FOUND;
    struct ol_dmodex_wait *w = calloc(1, sizeof *w);
    if (w == NULL)
        return PMIX_ERR_NOMEM;
    w->rank = j->gid_base + proc->rank;
    w->cbfunc = (void *)cbfunc;
    w->cbdata = cbdata;
    ol_dpmix_post(OL_UPCALL_DMODEX, 0, w);
    return PMIX_SUCCESS;
}

/* PMIx's answer to another daemon's request (on PMIx's thread): copy it,
 * since `data` lives only during this call, and let the main loop send it. */
static void dmodex_served(pmix_status_t status, char *data, size_t ndata, void *cbdata)
{
    struct ol_dmodex_wait *w = cbdata;
    w->status = status;
    if (status == PMIX_SUCCESS && ndata > 0) {
        w->data = malloc(ndata);
        if (w->data == NULL)
            w->status = PMIX_ERR_NOMEM;
        else {
            memcpy(w->data, data, ndata);
            w->len = ndata;
        }
    }
    ol_dpmix_post(OL_UPCALL_DMODEX_DONE, 0, w);
}

void ol_dpmix_serve_dmodex(struct ol_daemon *d, struct ol_dmodex_wait *w)
{
    pmix_proc_t proc;
    struct ol_djob *j = ol_daemon_job_by_gid(d, w->rank);
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    if (j != NULL) {
        PMIX_LOAD_PROCID(&proc, j->spec->nspace, w->rank - j->gid_base);
        rc = PMIx_server_dmodex_request(&proc, dmodex_served, w);
    }
    if (rc != PMIX_SUCCESS) {
        w->status = rc;
        ol_modex_served(d, w);
    }
}

/* ---- PMIx_Spawn ---- */

static char *info_string(const pmix_info_t info[], size_t ninfo, const char *key)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], key) && info[i].value.type == PMIX_STRING &&
            info[i].value.data.string != NULL)
            return ol_xstrdup(info[i].value.data.string);
    }
    return NULL;
}

static void copy_spawn_app(ol_spawn_app_t *to, const pmix_app_t *app)
{
    to->cmd = ol_xstrdup(app->cmd != NULL ? app->cmd : "");
    to->argv = app->argv != NULL ? ol_strv_dup(app->argv) : ol_xcalloc(1, sizeof *to->argv);
    if (to->argv[0] == NULL)
        ol_strv_append(&to->argv, to->cmd);
    to->env = app->env != NULL ? ol_strv_dup(app->env) : ol_xcalloc(1, sizeof *to->env);
    /* PMIx's client fills cwd with the caller's directory: the user's
     * PMIX_WDIR (MPI's "wdir") wins over it. */
    to->cwd = info_string(app->info, app->ninfo, PMIX_WDIR);
    if (to->cwd == NULL && app->cwd != NULL)
        to->cwd = ol_xstrdup(app->cwd);
    to->maxprocs = app->maxprocs > 0 ? (uint32_t)app->maxprocs : 0;
    to->host = info_string(app->info, app->ninfo, PMIX_HOST);
    to->hostfile = info_string(app->info, app->ninfo, PMIX_HOSTFILE);
    to->add_host = info_string(app->info, app->ninfo, PMIX_ADD_HOST);
    to->path = info_string(app->info, app->ninfo, OL_SPAWN_PATH_KEY);
}

/* A local rank's PMIx_Spawn: copied (PMIx owns the arguments) and handed
 * to the main loop, which asks mpirun (daemon_spawn.c). */
static pmix_status_t spawn_upcall(const pmix_proc_t *proc, const pmix_info_t job_info[], size_t ninfo,
                                  const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                                  void *cbdata)
{
    (void)job_info;
    (void)ninfo;
    struct ol_djob *j = ol_daemon_job_by_nspace(the_daemon, proc->nspace);
    if (j == NULL || proc->rank >= j->spec->job_size || napps == 0 || cbfunc == NULL)
        return PMIX_ERR_BAD_PARAM;
    struct ol_spawn_call *c = ol_xcalloc(1, sizeof *c);
    c->req.parent_gid = j->gid_base + proc->rank;
    c->req.napps = (uint32_t)napps;
    c->req.apps = ol_xcalloc(napps, sizeof *c->req.apps);
    for (size_t a = 0; a < napps; a++)
        copy_spawn_app(&c->req.apps[a], &apps[a]);
    c->cbfunc = (void *)cbfunc;
    c->cbdata = cbdata;
    ol_dpmix_post(OL_UPCALL_SPAWN, 0, c);
    return PMIX_SUCCESS;
}

/* ---- published names (daemon_names.c asks mpirun) ----
 *
 * Values are strings (MPI's port names). Every name is seen by the whole
 * job, whatever PMIX_RANGE says: PMIx lets a server keep one range
 * (pmix_server.h, publish). Lookups never wait: PMIX_WAIT is refused. */

/* PMIx's attributes ("pmix.range", "pmix.persist", the "pmix.euid" PMIx
 * adds ...) are directives of the call, not names. */
static bool is_directive(const char *key)
{
    return strncmp(key, "pmix.", 5) == 0;
}

/* The caller's call, ready for the main loop; NULL for a rank not of the
 * job. */
static struct ol_name_call *name_call_new(uint8_t op, const pmix_proc_t *proc, uint32_t n, void *cbfunc,
                                          void *cbdata)
{
    if (ol_daemon_job_by_nspace(the_daemon, proc->nspace) == NULL)
        return NULL;
    struct ol_name_call *c = ol_xcalloc(1, sizeof *c);
    c->req.op = op;
    c->req.nspace = ol_xstrdup(proc->nspace);
    c->req.rank = proc->rank;
    c->req.names = ol_xcalloc(n + 1, sizeof *c->req.names);
    c->cbfunc = cbfunc;
    c->cbdata = cbdata;
    return c;
}

static void name_call_free(struct ol_name_call *c)
{
    ol_msg_name_free(&c->req);
    free(c);
}

static pmix_status_t publish_upcall(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    if (cbfunc == NULL)
        return PMIX_ERR_BAD_PARAM;
    struct ol_name_call *c = name_call_new(OL_NAME_PUBLISH, proc, (uint32_t)ninfo, (void *)cbfunc, cbdata);
    if (c == NULL)
        return PMIX_ERR_BAD_PARAM;
    for (size_t i = 0; i < ninfo; i++) {
        if (is_directive(info[i].key))
            continue;
        if (info[i].value.type != PMIX_STRING || info[i].value.data.string == NULL) {
            name_call_free(c);
            return PMIX_ERR_NOT_SUPPORTED; /* only strings are kept */
        }
        ol_name_t *nm = &c->req.names[c->req.n++];
        nm->key = ol_xstrdup(info[i].key);
        nm->value = ol_xstrdup(info[i].value.data.string);
    }
    if (c->req.n == 0) {
        name_call_free(c);
        return PMIX_ERR_BAD_PARAM; /* nothing to publish */
    }
    ol_dpmix_post(OL_UPCALL_NAME, 0, c);
    return PMIX_SUCCESS;
}

/* Lookup and unpublish: the keys named (NULL for unpublish: all the
 * caller's). */
static pmix_status_t keys_upcall(uint8_t op, const pmix_proc_t *proc, char **keys, void *cbfunc, void *cbdata)
{
    uint32_t n = 0;
    while (keys != NULL && keys[n] != NULL)
        n++;
    if (cbfunc == NULL || (op == OL_NAME_LOOKUP && n == 0))
        return PMIX_ERR_BAD_PARAM;
    struct ol_name_call *c = name_call_new(op, proc, n, cbfunc, cbdata);
    if (c == NULL)
        return PMIX_ERR_BAD_PARAM;
    for (uint32_t i = 0; i < n; i++)
        c->req.names[i].key = ol_xstrdup(keys[i]);
    c->req.n = n;
    ol_dpmix_post(OL_UPCALL_NAME, 0, c);
    return PMIX_SUCCESS;
}

static pmix_status_t lookup_upcall(const pmix_proc_t *proc, char **keys, const pmix_info_t info[], size_t ninfo,
                                   pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
    for (size_t i = 0; i < ninfo; i++) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_WAIT))
            return PMIX_ERR_NOT_SUPPORTED; /* answers come at once, found or not */
    }
    return keys_upcall(OL_NAME_LOOKUP, proc, keys, (void *)cbfunc, cbdata);
}

static pmix_status_t unpublish_upcall(const pmix_proc_t *proc, char **keys, const pmix_info_t info[],
                                      size_t ninfo, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)info;
    (void)ninfo;
    return keys_upcall(OL_NAME_UNPUBLISH, proc, keys, (void *)cbfunc, cbdata);
}

static pmix_server_module_t module = {
    .client_connected = client_connected,
    .client_finalized = client_finalized,
    .abort = client_abort,
    .fence_nb = fence_nb,
    .direct_modex = direct_modex,
    .publish = publish_upcall,
    .lookup = lookup_upcall,
    .unpublish = unpublish_upcall,
    .spawn = spawn_upcall,
};

/* ---- PMIx's private directory ----
 *
 * PMIx 4.2 keeps its data store (pmix_dstor_* directories of shared-memory
 * files, megabytes) in the server's tmpdir, /tmp by default, where a daemon
 * killed by SIGKILL left them for good. We give PMIx a fresh directory of
 * its own, 0700 (nobody else may look in), as pmix.XXXXXX in the user's
 * directory. The daemon holds a lock on it for its life: a later daemon
 * that can take the lock knows the owner is gone and removes it. The
 * directory gets its final name only once locked, so a sweep never sees
 * one being set up. */
#define PMIX_DIR_PREFIX "pmix."

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Removes the directories whose daemon is gone (their lock is free). */
static void sweep_dead_dirs(const char *userdir)
{
    DIR *dp = opendir(userdir);
    if (dp == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (strncmp(e->d_name, PMIX_DIR_PREFIX, strlen(PMIX_DIR_PREFIX)) != 0)
            continue;
        char *path = ol_xasprintf("%s/%s", userdir, e->d_name);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
            ol_info("removing %s, left by a daemon that is gone", path);
            remove_tree(path);
        }
        if (fd >= 0)
            close(fd);
        free(path);
    }
    closedir(dp);
}

/* Creates and locks the private directory: 0, or -1 with *err. */
static int make_pmix_dir(struct ol_daemon *d, char **err)
{
    char why[128];
    char *userdir = ol_user_dir(why, sizeof why);
    const char *tmp = getenv("TMPDIR");
    char *scratch;
    if (userdir != NULL) {
        sweep_dead_dirs(userdir);
        scratch = ol_xasprintf("%s/new-" PMIX_DIR_PREFIX "XXXXXX", userdir);
    } else {
        /* Someone else holds the user's directory's name: a directory of our
         * own anyway, which only this daemon removes. */
        scratch = ol_xasprintf("%s/ompi-lite-" PMIX_DIR_PREFIX "XXXXXX", tmp && *tmp ? tmp : "/tmp");
    }
    if (mkdtemp(scratch) == NULL) {
        *err = ol_xasprintf("cannot create a directory for PMIx (%s): %s", scratch, strerror(errno));
        free(scratch);
        free(userdir);
        return -1;
    }
    d->pmix_dir_lock = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    flock(d->pmix_dir_lock, LOCK_EX);
    if (userdir != NULL) {
        d->pmix_dir = ol_xasprintf("%s/%s", userdir, strrchr(scratch, '/') + 1 + strlen("new-"));
        if (rename(scratch, d->pmix_dir) != 0) {
            free(d->pmix_dir);
            d->pmix_dir = ol_xstrdup(scratch);
        }
        free(scratch);
    } else {
        d->pmix_dir = scratch;
    }
    free(userdir);
    return 0;
}

int ol_dpmix_init(struct ol_daemon *d, char **err)
{
    the_daemon = d;
    if (make_pmix_dir(d, err) != 0)
        return -1;
    char *server_ns = ol_xasprintf("ompi-lite-daemon.%s.%d", ol_hostname(), (int)getpid());
    pmix_rank_t server_rank = d->node_id;
    bool no = false, yes = true;
    pmix_info_t info[9];
    size_t ninfo = 0;
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_NSPACE, server_ns, PMIX_STRING);
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_RANK, &server_rank, PMIX_PROC_RANK);
    /* No tool or system rendezvous (those are listeners and files for
     * anyone who finds them); the ranks learn the address from their
     * environment. PMIx 4.2 has no unix-socket transport any more: the one
     * listener is TCP on 127.0.0.1, IPv4 only, and strangers who reach it
     * cannot name the job's namespace (it has 128 random bits). */
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_SYSTEM_SUPPORT, &no, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_REMOTE_CONNECTIONS, &no, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_TCP_DISABLE_IPV6, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_TMPDIR, d->pmix_dir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SYSTEM_TMPDIR, d->pmix_dir, PMIX_STRING);
    /* PMIx's own credential: the uid the client states (native), never
     * munge. Where munged runs, PMIx 4.2 would prefer munge, and a
     * credential from a client then fails the server's check whenever
     * munged stops or restarts (with a new key) between the client's start
     * and its connection: the rank dies in MPI_Init with UNREACHABLE. The
     * job's secret is the namespace, as above; the ranks follow the
     * server's choice (PMIX_SECURITY_MODE in their environment). */
    setenv("PMIX_MCA_psec", "native", 1);
    /* Our topology (cached across jobs) spares PMIx its own discovery; the
     * object must live until PMIx_server_finalize. */
    d->topo = ol_daemon_load_topology();
    pmix_topology_t topo = { .source = "hwloc", .topology = d->topo };
    if (d->topo != NULL)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_TOPOLOGY2, &topo, PMIX_TOPO);
    pmix_status_t rc = PMIx_server_init(&module, info, ninfo);
    for (size_t i = 0; i < ninfo; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    free(server_ns);
    if (rc != PMIX_SUCCESS) {
        *err = ol_xasprintf("PMIx_server_init failed: %s", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

/* ---- job registration ---- */

/* "a,b,c" of node n's ranks. */
static char *rank_list(const ol_msg_launch_t *job, uint32_t node)
{
    size_t cap = 16, len = 0;
    char *s = ol_xmalloc(cap);
    s[0] = '\0';
    for (uint32_t r = 0; r < job->job_size; r++) {
        if (job->rank_node[r] != node)
            continue;
        if (len + 12 >= cap) {
            cap *= 2;
            char *n = realloc(s, cap);
            if (n == NULL)
                n = ol_xmalloc(SIZE_MAX);
            s = n;
        }
        len += (size_t)snprintf(s + len, cap - len, "%s%u", len ? "," : "", r);
    }
    return s;
}

static bool node_has_ranks(const ol_msg_launch_t *job, uint32_t node)
{
    for (uint32_t r = 0; r < job->job_size; r++) {
        if (job->rank_node[r] == node)
            return true;
    }
    return false;
}

/* ";"-separated rank lists per node, the input of PMIx_generate_ppn. Nodes
 * without processes of the namespace (a spawn's) are left out, here and in
 * node_list alike, so that the two maps stay parallel. */
static char *proc_map_input(const ol_msg_launch_t *job)
{
    char *out = ol_xstrdup("");
    for (size_t n = 0; job->nodes[n] != NULL; n++) {
        if (!node_has_ranks(job, (uint32_t)n))
            continue;
        char *list = rank_list(job, (uint32_t)n);
        char *next = ol_xasprintf("%s%s%s", out, *out ? ";" : "", list);
        free(list);
        free(out);
        out = next;
    }
    return out;
}

static char *node_list(const ol_msg_launch_t *job, uint32_t *count)
{
    char *out = ol_xstrdup("");
    *count = 0;
    for (size_t n = 0; job->nodes[n] != NULL; n++) {
        if (!node_has_ranks(job, (uint32_t)n))
            continue;
        char *next = ol_xasprintf("%s%s%s", out, *out ? "," : "", job->nodes[n]);
        free(out);
        out = next;
        ++*count;
    }
    return out;
}

/* A PMIX_DATA_ARRAY of pmix_info_t, owned by `slot` once attached. */
static pmix_info_t *attach_info_array(pmix_info_t *slot, const char *key, size_t n)
{
    pmix_data_array_t *arr;
    PMIX_DATA_ARRAY_CREATE(arr, n, PMIX_INFO);
    PMIX_LOAD_KEY(slot->key, key);
    slot->value.type = PMIX_DATA_ARRAY;
    slot->value.data.darray = arr;
    return arr->array;
}

static void load_proc_data(pmix_info_t *slot, struct ol_daemon *d, struct ol_rank *r)
{
    pmix_info_t *pi = attach_info_array(slot, PMIX_PROC_DATA, 7);
    pmix_rank_t rank = r->rank, app_rank = r->rank - r->app->first_rank;
    uint16_t local_rank = (uint16_t)r->local_rank;
    uint32_t appnum = (uint32_t)(r->app - r->job->spec->apps), nodeid = d->node_id;
    PMIX_INFO_LOAD(&pi[0], PMIX_RANK, &rank, PMIX_PROC_RANK); /* must come first */
    PMIX_INFO_LOAD(&pi[1], PMIX_LOCAL_RANK, &local_rank, PMIX_UINT16);
    PMIX_INFO_LOAD(&pi[2], PMIX_NODE_RANK, &local_rank, PMIX_UINT16);
    PMIX_INFO_LOAD(&pi[3], PMIX_APPNUM, &appnum, PMIX_UINT32);
    PMIX_INFO_LOAD(&pi[4], PMIX_HOSTNAME, ol_hostname(), PMIX_STRING);
    PMIX_INFO_LOAD(&pi[5], PMIX_NODEID, &nodeid, PMIX_UINT32);
    PMIX_INFO_LOAD(&pi[6], PMIX_APP_RANK, &app_rank, PMIX_PROC_RANK);
}

static void load_app_info(pmix_info_t *slot, const ol_app_t *app, uint32_t appnum)
{
    pmix_info_t *ai = attach_info_array(slot, PMIX_APP_INFO_ARRAY, 3);
    uint32_t size = app->np;
    pmix_rank_t leader = app->first_rank;
    PMIX_INFO_LOAD(&ai[0], PMIX_APPNUM, &appnum, PMIX_UINT32); /* must come first */
    PMIX_INFO_LOAD(&ai[1], PMIX_APP_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&ai[2], PMIX_APPLDR, &leader, PMIX_PROC_RANK);
}

static void load_local_node_info(pmix_info_t *slot, struct ol_daemon *d, const struct ol_djob *j,
                                 const char *peers)
{
    pmix_info_t *ni = attach_info_array(slot, PMIX_NODE_INFO_ARRAY, 6);
    uint32_t nodeid = d->node_id, local_size = j->nlocal;
    pmix_rank_t leader = j->local[0]->rank;
    PMIX_INFO_LOAD(&ni[0], PMIX_NODEID, &nodeid, PMIX_UINT32);
    PMIX_INFO_LOAD(&ni[1], PMIX_HOSTNAME, ol_hostname(), PMIX_STRING);
    PMIX_INFO_LOAD(&ni[2], PMIX_LOCAL_SIZE, &local_size, PMIX_UINT32);
    PMIX_INFO_LOAD(&ni[3], PMIX_NODE_SIZE, &local_size, PMIX_UINT32);
    PMIX_INFO_LOAD(&ni[4], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIX_INFO_LOAD(&ni[5], PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
}

enum { JOB_KEYS = 15 };

/* Job-level keys, the local node's array, one array per app, then one
 * PROC_DATA per local rank. */
static pmix_info_t *build_job_info(struct ol_daemon *d, const struct ol_djob *j, size_t *ninfo)
{
    const ol_msg_launch_t *job = j->spec;
    char *peers = rank_list(job, d->node_id);
    uint32_t num_nodes;
    char *nodes = node_list(job, &num_nodes);
    char *ppn_in = proc_map_input(job);
    char *node_regex = NULL, *ppn_regex = NULL;
    PMIx_generate_regex(nodes, &node_regex);
    PMIx_generate_ppn(ppn_in, &ppn_regex);

    size_t n = JOB_KEYS + 1 + job->napps + j->nlocal;
    pmix_info_t *info;
    PMIX_INFO_CREATE(info, n);
    uint32_t job_size = job->job_size, local_size = j->nlocal, appnum = 0;
    uint32_t app_size = job->apps[0].np;
    uint32_t univ_size = job->univ_size > job_size ? job->univ_size : job_size;
    pmix_rank_t leader = j->local[0]->rank, app_leader = 0;
    size_t k = 0;
    PMIX_INFO_LOAD(&info[k++], PMIX_JOBID, job->nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_JOB_SIZE, &job_size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_UNIV_SIZE, &univ_size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_MAX_PROCS, &univ_size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_APP_SIZE, &app_size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_APPNUM, &appnum, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_APPLDR, &app_leader, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&info[k++], PMIX_NUM_NODES, &num_nodes, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_NODE_MAP, node_regex, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[k++], PMIX_PROC_MAP, ppn_regex, PMIX_REGEX);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_SIZE, &local_size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&info[k++], PMIX_HOSTNAME, ol_hostname(), PMIX_STRING);
    struct ol_djob *parent = j->spawn_no > 0 ? ol_daemon_job_by_gid(d, j->parent_gid) : NULL;
    if (parent != NULL) {
        pmix_proc_t pid;
        PMIX_LOAD_PROCID(&pid, parent->spec->nspace, j->parent_gid - parent->gid_base);
        PMIX_INFO_LOAD(&info[k++], PMIX_PARENT_ID, &pid, PMIX_PROC);
    }
    load_local_node_info(&info[k++], d, j, peers);
    for (uint32_t a = 0; a < job->napps; a++)
        load_app_info(&info[k++], &job->apps[a], a);
    for (uint32_t i = 0; i < j->nlocal; i++)
        load_proc_data(&info[k++], d, j->local[i]);
    free(peers);
    free(nodes);
    free(ppn_in);
    free(node_regex);
    free(ppn_regex);
    *ninfo = k;
    return info;
}

int ol_dpmix_register_job(struct ol_daemon *d, struct ol_djob *j, char **err)
{
    size_t ninfo;
    const char *nspace = j->spec->nspace;
    pmix_info_t *info = build_job_info(d, j, &ninfo);
    struct op_wait w;
    op_wait_init(&w);
    op_wait_started(&w, PMIx_server_register_nspace(nspace, (int)j->nlocal, info, ninfo,
                                                    op_wait_done, &w));
    /* Local support (fabric credentials, device settings) for the job; a
     * no-op on plain hosts, kept so that such hosts work unchanged. */
    op_wait_started(&w, PMIx_server_setup_local_support(nspace, info, ninfo, op_wait_done, &w));
    /* Clients may be registered while the namespace registration is still
     * in flight: PMIx orders them on its thread. */
    for (uint32_t i = 0; i < j->nlocal; i++) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, nspace, j->local[i]->rank);
        op_wait_started(&w, PMIx_server_register_client(&proc, getuid(), getgid(), j->local[i],
                                                        op_wait_done, &w));
    }
    pmix_status_t rc = op_wait_all(&w);
    PMIX_INFO_FREE(info, ninfo);
    if (rc != PMIX_SUCCESS) {
        *err = ol_xasprintf("PMIx registration of job %s failed: %s", nspace,
                            PMIx_Error_string(rc));
        return -1;
    }
    d->job_registered = true;
    return 0;
}

int ol_dpmix_rank_env(struct ol_daemon *d, struct ol_rank *r, char ***env)
{
    pmix_proc_t proc;
    (void)d;
    PMIX_LOAD_PROCID(&proc, r->job->spec->nspace, r->rank);
    return PMIx_server_setup_fork(&proc, env) == PMIX_SUCCESS ? 0 : -1;
}

void ol_dpmix_finalize(struct ol_daemon *d)
{
    /* Finalize releases the namespace and its clients with everything else;
     * deregistering first only costs. Called once the daemon's shutdown
     * watchdog is armed: PMIx 4.2 can hang here (daemon.c). */
    d->job_registered = false;
    PMIx_server_finalize();
    if (d->topo != NULL)
        hwloc_topology_destroy(d->topo);
    d->topo = NULL;
    ol_dpmix_remove_dir(d);
}

void ol_dpmix_remove_dir(struct ol_daemon *d)
{
    if (d->pmix_dir == NULL)
        return;
    remove_tree(d->pmix_dir);
    free(d->pmix_dir);
    d->pmix_dir = NULL;
    close(d->pmix_dir_lock);
    d->pmix_dir_lock = -1;
}
