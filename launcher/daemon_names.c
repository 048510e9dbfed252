/* PMIx_Publish, PMIx_Lookup and PMIx_Unpublish on the daemon's side (main
 * thread): a local rank's call goes up to mpirun as NAME_REQ, which keeps
 * the job's table and answers with NAME_RESP, routed back here. Every call
 * is answered exactly once: by mpirun's answer, or with PMIX_ERR_UNREACH
 * when the link to mpirun is gone (then, and at the daemon's end), so that
 * no client waits for ever. README.md, "Published names". */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "daemon.h"
#include "util.h"

/* The PMIx callback, with the names a lookup found (copied by PMIx before
 * the callback returns, as for every PMIx callback's data). */
static void answer(struct ol_name_call *c, pmix_status_t status, const ol_msg_name_t *resp)
{
    if (c->req.op != OL_NAME_LOOKUP) {
        ((pmix_op_cbfunc_t)c->cbfunc)(status, c->cbdata);
        return;
    }
    size_t n = status == PMIX_SUCCESS && resp != NULL ? resp->n : 0;
    pmix_pdata_t *pd = NULL;
    if (n > 0)
        PMIX_PDATA_CREATE(pd, n);
    for (size_t i = 0; i < n; i++) {
        const ol_name_t *nm = &resp->names[i];
        pmix_proc_t owner;
        PMIX_LOAD_PROCID(&owner, nm->nspace != NULL ? nm->nspace : "", nm->rank);
        PMIX_PDATA_LOAD(&pd[i], &owner, nm->key, nm->value != NULL ? nm->value : "", PMIX_STRING);
    }
    ((pmix_lookup_cbfunc_t)c->cbfunc)(status, pd, n, c->cbdata);
    if (pd != NULL)
        PMIX_PDATA_FREE(pd, n);
}

static void call_free(struct ol_name_call *c)
{
    ol_msg_name_free(&c->req);
    free(c);
}

void ol_names_local_call(struct ol_daemon *d, struct ol_name_call *c)
{
    if (d->up == NULL) { /* mpirun is out of reach: the job is ending */
        answer(c, PMIX_ERR_UNREACH, NULL);
        call_free(c);
        return;
    }
    c->req.req_id = ++d->next_name_req;
    c->req.node = d->node_id;
    c->next = d->name_calls;
    d->name_calls = c;
    ol_wbuf_t w = { 0 };
    ol_msg_name_encode(&c->req, &w);
    ol_daemon_send(d, OL_MSG_NAME_REQ, &w);
    ol_wbuf_free(&w);
}

void ol_names_response(struct ol_daemon *d, const ol_msg_name_t *m)
{
    for (struct ol_name_call **pp = &d->name_calls; *pp != NULL; pp = &(*pp)->next) {
        struct ol_name_call *c = *pp;
        if (c->req.req_id != m->req_id)
            continue;
        *pp = c->next;
        answer(c, m->status, m);
        call_free(c);
        return;
    }
}

void ol_names_unreachable(struct ol_daemon *d)
{
    while (d->name_calls != NULL) {
        struct ol_name_call *c = d->name_calls;
        d->name_calls = c->next;
        answer(c, PMIX_ERR_UNREACH, NULL);
        call_free(c);
    }
}
