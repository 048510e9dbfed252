/* PMIx_Spawn on the daemon's side (main thread): a local rank's call goes
 * up to mpirun as SPAWN_REQ; mpirun places the new processes and sends
 * SPAWN to every daemon; those that host some check the programs there
 * before anything starts (SPAWN_ACK phase 0); then SPAWN_GO starts them
 * (ack phase 1) or drops the spawn, and SPAWN_DONE answers the call.
 * README.md, "Spawn", has the whole exchange.
 *
 * Also the table of namespaces (the first job's and every spawn's), which
 * PMIx's thread reads: entries are complete before njobs counts them. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix_server.h>

#include "daemon.h"
#include "ol_spawn.h"
#include "util.h"

/* ---- the namespaces ---- */

struct ol_djob *ol_daemon_job_by_nspace(struct ol_daemon *d, const char *nspace)
{
    unsigned n = atomic_load(&d->njobs);
    for (unsigned i = 0; i < n; i++) {
        if (PMIX_CHECK_NSPACE(d->jobs[i]->spec->nspace, nspace))
            return d->jobs[i];
    }
    return NULL;
}

struct ol_djob *ol_daemon_job_by_gid(struct ol_daemon *d, uint32_t gid)
{
    unsigned n = atomic_load(&d->njobs);
    for (unsigned i = 0; i < n; i++) {
        struct ol_djob *j = d->jobs[i];
        if (gid >= j->gid_base && gid - j->gid_base < j->spec->job_size)
            return j;
    }
    return NULL;
}

uint32_t ol_daemon_node_of(struct ol_daemon *d, uint32_t gid)
{
    struct ol_djob *j = ol_daemon_job_by_gid(d, gid);
    return j != NULL ? j->spec->rank_node[gid - j->gid_base] : OL_NO_NODE;
}

void ol_daemon_add_ranks(struct ol_daemon *d, struct ol_djob *j)
{
    const ol_msg_launch_t *spec = j->spec;
    for (uint32_t r = 0; r < spec->job_size; r++)
        j->nlocal += spec->rank_node[r] == d->node_id;
    if (j->nlocal == 0)
        return;
    j->local = ol_xcalloc(j->nlocal, sizeof *j->local);
    uint32_t total = d->nranks + j->nlocal;
    struct ol_rank **ranks = realloc(d->ranks, total * sizeof *ranks);
    uint32_t *order = realloc(d->reap_order, total * sizeof *order);
    if (ranks == NULL || order == NULL)
        ol_xmalloc(SIZE_MAX); /* reports and aborts, as every allocation here */
    d->ranks = ranks;
    d->reap_order = order;
    uint32_t i = 0;
    for (uint32_t rank = 0; rank < spec->job_size; rank++) {
        if (spec->rank_node[rank] != d->node_id)
            continue;
        struct ol_rank *r = ol_xcalloc(1, sizeof *r);
        r->d = d;
        r->job = j;
        r->rank = rank;
        r->gid = j->gid_base + rank;
        r->idx = d->nranks;
        r->local_rank = i;
        r->app = ol_launch_app_of(spec, rank);
        r->status_fd = -1;
        r->state_fd = -1;
        atomic_init(&r->connected, false);
        atomic_init(&r->finalized, false);
        atomic_init(&r->aborted, false);
        atomic_init(&r->abort_code, 0);
        j->local[i++] = r;
        d->ranks[d->nranks++] = r;
    }
}

/* ---- a local rank's call ---- */

void ol_spawn_local_call(struct ol_daemon *d, struct ol_spawn_call *c)
{
    c->req.req_id = ++d->next_spawn_req;
    c->req.from_node = d->node_id;
    c->next = d->spawn_calls;
    d->spawn_calls = c;
    ol_wbuf_t w = { 0 };
    ol_msg_spawn_req_encode(&c->req, &w);
    ol_daemon_send(d, OL_MSG_SPAWN_REQ, &w);
    ol_wbuf_free(&w);
}

static void spawn_call_free(struct ol_spawn_call *c)
{
    ol_msg_spawn_req_free(&c->req);
    free(c);
}

void ol_spawn_done(struct ol_daemon *d, const ol_msg_spawn_done_t *m)
{
    for (struct ol_spawn_call **pp = &d->spawn_calls; *pp != NULL; pp = &(*pp)->next) {
        struct ol_spawn_call *c = *pp;
        if (c->req.req_id != m->req_id)
            continue;
        *pp = c->next;
        pmix_spawn_cbfunc_t cb = (pmix_spawn_cbfunc_t)c->cbfunc;
        pmix_nspace_t ns;
        PMIX_LOAD_NSPACE(ns, m->status == PMIX_SUCCESS && m->nspace != NULL ? m->nspace : "");
        cb(m->status, ns, c->cbdata);
        spawn_call_free(c);
        return;
    }
}

/* ---- checking the programs before anything starts ---- */

/* The program of app as the process will exec it (ol_find_program, with
 * "ompi-lite.path" before PATH). 0 with *path, or the errno that stops it:
 * EACCES for a directory, as execve says. */
static int resolve_program(const ol_app_t *app, const char *cwd, char **path)
{
    struct stat st;
    if (stat(cwd, &st) != 0)
        return errno;
    if (!S_ISDIR(st.st_mode))
        return ENOTDIR;
    int err = ol_find_program(app->exe, cwd, app->path, path);
    return err == EISDIR ? EACCES : err;
}

static void send_ack(struct ol_daemon *d, uint32_t spawn_no, uint8_t phase, int err, const char *text)
{
    ol_msg_spawn_ack_t a = { .spawn_no = spawn_no, .node_id = d->node_id, .phase = phase, .err = err,
                             .text = (char *)text };
    ol_wbuf_t w = { 0 };
    ol_msg_spawn_ack_encode(&a, &w);
    ol_daemon_send(d, OL_MSG_SPAWN_ACK, &w);
    ol_wbuf_free(&w);
}

static bool app_has_local(const struct ol_daemon *d, const ol_msg_launch_t *spec, const ol_app_t *app)
{
    for (uint32_t r = app->first_rank; r < app->first_rank + app->np; r++) {
        if (spec->rank_node[r] == d->node_id)
            return true;
    }
    return false;
}

static void djob_free(struct ol_djob *j)
{
    ol_msg_launch_free(&j->spawn.job);
    free(j->local);
    free(j);
}

/* SPAWN: remember the namespace; where some of its processes go here,
 * resolve their programs and say whether they can start. */
void ol_spawn_check(struct ol_daemon *d, ol_rbuf_t *rb)
{
    struct ol_djob *j = ol_xcalloc(1, sizeof *j);
    if (ol_msg_spawn_decode(rb, &j->spawn) != 0) {
        free(j);
        return;
    }
    /* Hosts join the job for a spawn (mpirun then keeps every daemon its
     * own child, so no daemon gains children); an earlier spawn, replayed
     * to a daemon that joined later, names fewer. PMIx's thread reads the
     * count only for processes started after SPAWN_GO, which follows. */
    size_t nodes = ol_strv_len(j->spawn.job.nodes);
    if (nodes > d->nnodes)
        d->nnodes = (uint32_t)nodes;
    j->spec = &j->spawn.job;
    j->spawn_no = j->spawn.spawn_no;
    j->gid_base = j->spawn.gid_base;
    j->parent_gid = j->spawn.parent_gid;
    if (d->spawn_pending != NULL)
        djob_free(d->spawn_pending); /* mpirun handles one spawn at a time */
    d->spawn_pending = j;
    bool local = false;
    for (uint32_t a = 0; a < j->spawn.job.napps; a++) {
        ol_app_t *app = &j->spawn.job.apps[a];
        if (!app_has_local(d, j->spec, app))
            continue;
        local = true;
        char *path = NULL;
        const char *cwd = app->cwd != NULL ? app->cwd : j->spec->cwd;
        int err = resolve_program(app, cwd, &path);
        if (err != 0) {
            ol_info("spawn %u: cannot start %s: %s", j->spawn_no, app->exe, strerror(err));
            send_ack(d, j->spawn_no, 0, err, app->exe);
            return;
        }
        free(app->exe);
        app->exe = path;
    }
    if (local)
        send_ack(d, j->spawn_no, 0, 0, NULL);
}

/* SPAWN_GO: start this host's processes of the spawn (every daemon adds the
 * namespace to its table), or forget the spawn. */
void ol_spawn_go(struct ol_daemon *d, uint32_t spawn_no, uint8_t go)
{
    struct ol_djob *j = d->spawn_pending;
    if (j == NULL || j->spawn_no != spawn_no)
        return;
    d->spawn_pending = NULL;
    unsigned n = atomic_load(&d->njobs);
    if (!go || n >= OL_MAX_NSPACES) {
        djob_free(j);
        return;
    }
    uint32_t first = d->nranks;
    ol_daemon_add_ranks(d, j);
    d->jobs[n] = j;
    atomic_store(&d->njobs, n + 1);
    if (j->nlocal == 0) {
        ol_modex_job_registered(d); /* requests for it may be routed now */
        return;
    }
    char *err = NULL;
    if (ol_dpmix_register_job(d, j, &err) != 0 || ol_ranks_launch(d, first, &err) != 0) {
        send_ack(d, spawn_no, 1, EIO, err);
        free(err);
        /* Started ones are killed by mpirun's KILL; never-started ones are
         * counted as finished now (as for the first job). */
        for (uint32_t i = first; i < d->nranks; i++) {
            if (d->ranks[i]->pid <= 0)
                ol_daemon_rank_finished(d, d->ranks[i]);
        }
        return;
    }
    ol_modex_job_registered(d);
    if (d->state_timer == NULL)
        ol_dstate_start(d); /* a daemon that had no rank of the first job */
    ol_info("spawn %u (%s): started %u processes", spawn_no, j->spec->nspace, j->nlocal);
    send_ack(d, spawn_no, 1, 0, NULL);
}

void ol_spawn_free(struct ol_daemon *d)
{
    while (d->spawn_calls != NULL) {
        struct ol_spawn_call *c = d->spawn_calls;
        d->spawn_calls = c->next;
        spawn_call_free(c);
    }
    if (d->spawn_pending != NULL)
        djob_free(d->spawn_pending);
    d->spawn_pending = NULL;
    unsigned n = atomic_load(&d->njobs);
    for (unsigned i = 0; i < n; i++) {
        if (d->jobs[i]->spawn_no == 0) {
            free(d->jobs[i]->local);
            free(d->jobs[i]);
        } else {
            djob_free(d->jobs[i]);
        }
    }
    atomic_store(&d->njobs, 0);
}
