/* Fences and direct-modex requests of a job that spans hosts (main thread).
 *
 * Fences: MPI's fences are namespace-wide (the first job's, or one spawn's)
 * and entered in the same order by every process of it, so the n-th fence
 * of this daemon's processes of a namespace is that namespace's n-th
 * fence: (namespace, sequence number) needs no agreement. A daemon
 * combines its processes' part (handed over by PMIx once all local ones
 * entered) with the FENCE_UP of each child whose subtree holds processes
 * of the namespace, sends the concatenation up, and completes the fence
 * when FENCE_DOWN comes from mpirun with everyone's data. Daemons whose
 * subtree holds none of a spawn's processes take no part.
 * Cost: one message up and one down per tree edge; mpirun handles only its
 * direct children, never every daemon.
 *
 * Direct modex: PMIx asks (direct_modex upcall) for a remote rank's data
 * (of any namespace: requests name the process id, gid);
 * we send DMODEX_REQ routed to that rank's daemon, which asks its PMIx
 * server (PMIx_server_dmodex_request: it waits until the rank has
 * committed) and sends the blob back in DMODEX_RESP, routed to us. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "daemon.h"
#include "tree.h"
#include "util.h"

struct ol_dfence {
    struct ol_djob *job;
    uint32_t seq;
    uint32_t count;               /* parts in: local + children */
    ol_wbuf_t data;
    struct ol_fence_req *local;   /* NULL until our ranks entered */
    bool sent_up;
    struct ol_dfence *next;
};

static struct ol_dfence *fence_get(struct ol_daemon *d, struct ol_djob *j, uint32_t seq)
{
    struct ol_dfence **pp = &d->fences;
    while (*pp != NULL && ((*pp)->job != j || (*pp)->seq != seq))
        pp = &(*pp)->next;
    if (*pp == NULL) {
        *pp = ol_xcalloc(1, sizeof **pp);
        (*pp)->job = j;
        (*pp)->seq = seq;
    }
    return *pp;
}

static void fence_free(struct ol_daemon *d, struct ol_dfence *f)
{
    for (struct ol_dfence **pp = &d->fences; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == f) {
            *pp = f->next;
            break;
        }
    }
    if (f->local != NULL)
        free(f->local->data);
    free(f->local);
    ol_wbuf_free(&f->data);
    free(f);
}

/* Parts a fence of namespace j waits for here: our processes' (if any run
 * here) and one per child whose subtree holds some of them. */
static uint32_t fence_parts(const struct ol_daemon *d, const struct ol_djob *j)
{
    uint32_t parts = j->nlocal > 0;
    for (uint32_t c = 0; c < d->nchildren; c++)
        parts += ol_tree_subtree_holds(d->child_first + c, d->fanout, j->spec->rank_node, j->spec->job_size);
    return parts;
}

static void fence_maybe_up(struct ol_daemon *d, struct ol_dfence *f)
{
    if (f->sent_up || f->count < fence_parts(d, f->job))
        return;
    f->sent_up = true;
    ol_msg_fence_t m = { .spawn_no = f->job->spawn_no, .seq = f->seq, .data = f->data.data,
                         .len = (uint32_t)f->data.len };
    ol_wbuf_t w = { 0 };
    ol_msg_fence_encode(&m, &w);
    ol_daemon_send(d, OL_MSG_FENCE_UP, &w);
    ol_wbuf_free(&w);
    ol_wbuf_free(&f->data);
    if (f->local == NULL)
        fence_free(d, f); /* FENCE_DOWN has nothing to complete here */
}

static struct ol_djob *job_by_spawn_no(struct ol_daemon *d, uint32_t spawn_no)
{
    unsigned n = atomic_load(&d->njobs);
    for (unsigned i = 0; i < n; i++) {
        if (d->jobs[i]->spawn_no == spawn_no)
            return d->jobs[i];
    }
    return NULL;
}

void ol_modex_local_fence(struct ol_daemon *d, struct ol_fence_req *req)
{
    struct ol_dfence *f = fence_get(d, req->job, ++req->job->fence_seq);
    f->local = req;
    ol_w_append(&f->data, req->data, req->len);
    free(req->data);
    req->data = NULL;
    f->count++;
    fence_maybe_up(d, f);
}

void ol_modex_fence_up(struct ol_daemon *d, const ol_msg_fence_t *m)
{
    struct ol_djob *j = job_by_spawn_no(d, m->spawn_no);
    if (j == NULL)
        return; /* cannot be: a daemon forwards SPAWN_GO before it starts anything */
    struct ol_dfence *f = fence_get(d, j, m->seq);
    ol_w_append(&f->data, m->data, m->len);
    f->count++;
    fence_maybe_up(d, f);
}

static void release_copy(void *cbdata)
{
    free(cbdata);
}

void ol_modex_fence_down(struct ol_daemon *d, const ol_msg_fence_t *m)
{
    struct ol_djob *j = job_by_spawn_no(d, m->spawn_no);
    struct ol_dfence *f = d->fences;
    while (f != NULL && (f->job != j || f->seq != m->seq))
        f = f->next;
    if (f == NULL || f->local == NULL)
        return; /* none of the namespace's processes run here */
    /* PMIx may keep the data until it calls the release function. */
    uint8_t *copy = NULL;
    if (m->len > 0) {
        copy = ol_xmalloc(m->len);
        memcpy(copy, m->data, m->len);
    }
    pmix_modex_cbfunc_t cb = (pmix_modex_cbfunc_t)f->local->cbfunc;
    cb(PMIX_SUCCESS, (char *)copy, m->len, f->local->cbdata, copy ? release_copy : NULL, copy);
    fence_free(d, f);
}

/* ---- direct modex ---- */

static void send_request(struct ol_daemon *d, const struct ol_dmodex_wait *w)
{
    ol_msg_dmodex_t m = { .req_id = w->req_id, .node = d->node_id, .rank = w->rank };
    ol_wbuf_t b = { 0 };
    ol_msg_dmodex_req_encode(&m, &b);
    ol_daemon_route(d, ol_daemon_node_of(d, w->rank), OL_MSG_DMODEX_REQ, &b);
    ol_wbuf_free(&b);
}

void ol_modex_local_request(struct ol_daemon *d, struct ol_dmodex_wait *w)
{
    pmix_modex_cbfunc_t cb = (pmix_modex_cbfunc_t)w->cbfunc;
    uint32_t node = ol_daemon_node_of(d, w->rank);
    if (node == OL_NO_NODE || node == d->node_id) {
        cb(PMIX_ERR_NOT_FOUND, NULL, 0, w->cbdata, NULL, NULL);
        free(w);
        return;
    }
    w->req_id = ++d->next_req_id;
    w->next = d->waits;
    d->waits = w;
    send_request(d, w);
}

void ol_modex_request(struct ol_daemon *d, const ol_msg_dmodex_t *m)
{
    uint32_t node = ol_daemon_node_of(d, m->rank);
    if (node != OL_NO_NODE) {
        ol_wbuf_t b = { 0 };
        ol_msg_dmodex_req_encode(m, &b);
        bool routed = ol_daemon_route(d, node, OL_MSG_DMODEX_REQ, &b);
        ol_wbuf_free(&b);
        if (routed)
            return;
    }
    struct ol_dmodex_wait *w = ol_xcalloc(1, sizeof *w);
    w->req_id = m->req_id;
    w->node = m->node;
    w->rank = m->rank;
    if (!d->job_registered || node == OL_NO_NODE) {
        /* The job (or the spawn: SPAWN_GO reaches the daemons one by one)
         * reached the asker first: serve once we have it. Before we know
         * the namespace we cannot route either, so it may only be for us. */
        w->next = d->early_reqs;
        d->early_reqs = w;
        return;
    }
    ol_dpmix_serve_dmodex(d, w);
}

void ol_modex_job_registered(struct ol_daemon *d)
{
    struct ol_dmodex_wait *list = d->early_reqs;
    d->early_reqs = NULL; /* those still unknown go back there */
    while (list != NULL) {
        struct ol_dmodex_wait *w = list;
        list = w->next;
        ol_msg_dmodex_t m = { .req_id = w->req_id, .node = w->node, .rank = w->rank };
        free(w);
        ol_modex_request(d, &m);
    }
}

void ol_modex_served(struct ol_daemon *d, struct ol_dmodex_wait *w)
{
    ol_msg_dmodex_t m = { .req_id = w->req_id, .node = w->node, .status = w->status,
                          .data = w->data, .len = (uint32_t)w->len };
    ol_wbuf_t b = { 0 };
    ol_msg_dmodex_resp_encode(&m, &b);
    if (!ol_daemon_route(d, w->node, OL_MSG_DMODEX_RESP, &b))
        ol_modex_response(d, &m);
    ol_wbuf_free(&b);
    free(w->data);
    free(w);
}

void ol_modex_response(struct ol_daemon *d, const ol_msg_dmodex_t *m)
{
    if (m->node != d->node_id) {
        ol_wbuf_t b = { 0 };
        ol_msg_dmodex_resp_encode(m, &b);
        ol_daemon_route(d, m->node, OL_MSG_DMODEX_RESP, &b);
        ol_wbuf_free(&b);
        return;
    }
    for (struct ol_dmodex_wait **pp = &d->waits; *pp != NULL; pp = &(*pp)->next) {
        struct ol_dmodex_wait *w = *pp;
        if (w->req_id != m->req_id)
            continue;
        *pp = w->next;
        uint8_t *copy = NULL;
        if (m->len > 0) {
            copy = ol_xmalloc(m->len);
            memcpy(copy, m->data, m->len);
        }
        pmix_modex_cbfunc_t cb = (pmix_modex_cbfunc_t)w->cbfunc;
        cb(m->status, (char *)copy, m->len, w->cbdata, copy ? release_copy : NULL, copy);
        free(w);
        return;
    }
}

void ol_modex_free(struct ol_daemon *d)
{
    /* Outstanding PMIx callbacks die with PMIx_server_finalize. */
    while (d->fences != NULL)
        fence_free(d, d->fences);
    struct ol_dmodex_wait *lists[2] = { d->waits, d->early_reqs };
    for (int i = 0; i < 2; i++) {
        while (lists[i] != NULL) {
            struct ol_dmodex_wait *w = lists[i];
            lists[i] = w->next;
            free(w->data);
            free(w);
        }
    }
    d->waits = d->early_reqs = NULL;
}
