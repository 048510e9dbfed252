/* The job's published names (PMIx_Publish, PMIx_Lookup, PMIx_Unpublish):
 * one table in mpirun, for every namespace of the job (the first job's and
 * every spawn's) on every host, so that names published on one host are
 * found on all. A name stays until it is unpublished or mpirun ends; a
 * process that ends leaves its names, as MPI's name service does.
 * README.md, "Published names", has the rules. */
#include <stdlib.h>
#include <string.h>

#include <pmix_common.h> /* the status numbers only: mpirun links no PMIx */

#include "mpirun.h"
#include "util.h"

/* A job publishes a handful of names (one per service); a list is enough. */
struct ol_names {
    ol_name_t *v;
    size_t n, cap;
};

struct ol_names *ol_names_new(void)
{
    return ol_xcalloc(1, sizeof(struct ol_names));
}

static void name_clear(ol_name_t *nm)
{
    free(nm->key);
    free(nm->value);
    free(nm->nspace);
}

void ol_names_free(struct ol_names *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->n; i++)
        name_clear(&t->v[i]);
    free(t->v);
    free(t);
}

static ol_name_t *find(struct ol_names *t, const char *key)
{
    for (size_t i = 0; i < t->n; i++) {
        if (strcmp(t->v[i].key, key) == 0)
            return &t->v[i];
    }
    return NULL;
}

static void remove_at(struct ol_names *t, size_t i)
{
    name_clear(&t->v[i]);
    t->v[i] = t->v[--t->n];
}

/* A key named twice in one request counts as a duplicate, as if the
 * first had been stored already. */
static bool named_before(const ol_msg_name_t *req, uint32_t i)
{
    for (uint32_t k = 0; k < i; k++) {
        if (strcmp(req->names[k].key, req->names[i].key) == 0)
            return true;
    }
    return false;
}

/* All or nothing: one key taken (by anyone in the job) refuses them all.
 * The caller becomes the names' publisher. */
static int32_t publish(struct ol_names *t, const ol_msg_name_t *req)
{
    if (req->nspace == NULL || req->n == 0)
        return PMIX_ERR_BAD_PARAM;
    for (uint32_t i = 0; i < req->n; i++) {
        if (req->names[i].value == NULL)
            return PMIX_ERR_BAD_PARAM;
        if (find(t, req->names[i].key) != NULL || named_before(req, i))
            return PMIX_ERR_DUPLICATE_KEY;
    }
    for (uint32_t i = 0; i < req->n; i++) {
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 8;
            ol_name_t *v = realloc(t->v, t->cap * sizeof *v);
            if (v == NULL)
                ol_xmalloc(SIZE_MAX); /* reports and aborts, as every allocation here */
            t->v = v;
        }
        const ol_name_t *nm = &req->names[i];
        t->v[t->n++] = (ol_name_t){ .key = ol_xstrdup(nm->key), .value = ol_xstrdup(nm->value),
                                    .nspace = ol_xstrdup(req->nspace), .rank = req->rank };
    }
    return PMIX_SUCCESS;
}

/* The names found (copies, with their publishers), NOT_FOUND when none
 * is; never waits for a name to appear. */
static int32_t lookup(struct ol_names *t, const ol_msg_name_t *req, ol_msg_name_t *resp)
{
    resp->names = ol_xcalloc(req->n + 1, sizeof *resp->names);
    for (uint32_t i = 0; i < req->n; i++) {
        const ol_name_t *nm = find(t, req->names[i].key);
        if (nm == NULL)
            continue;
        resp->names[resp->n++] = (ol_name_t){ .key = ol_xstrdup(nm->key), .value = ol_xstrdup(nm->value),
                                              .nspace = ol_xstrdup(nm->nspace), .rank = nm->rank };
    }
    return resp->n > 0 ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
}

/* No keys: every name the caller published, as PMIx_Unpublish with NULL
 * keys means; NOT_FOUND when it has none. */
static int32_t unpublish_own(struct ol_names *t, const ol_msg_name_t *req)
{
    if (req->nspace == NULL)
        return PMIX_ERR_BAD_PARAM;
    int32_t st = PMIX_ERR_NOT_FOUND;
    for (size_t i = t->n; i-- > 0;) {
        if (t->v[i].rank == req->rank && strcmp(t->v[i].nspace, req->nspace) == 0) {
            remove_at(t, i);
            st = PMIX_SUCCESS;
        }
    }
    return st;
}

/* The keys named, whoever published them (MPI lets any process unpublish),
 * all or nothing: NOT_FOUND when one is not published. */
static int32_t unpublish(struct ol_names *t, const ol_msg_name_t *req)
{
    if (req->n == 0)
        return unpublish_own(t, req);
    for (uint32_t i = 0; i < req->n; i++) {
        if (find(t, req->names[i].key) == NULL)
            return PMIX_ERR_NOT_FOUND;
    }
    for (uint32_t i = 0; i < req->n; i++) {
        ol_name_t *nm = find(t, req->names[i].key);
        if (nm != NULL) /* a key named twice is gone the second time */
            remove_at(t, (size_t)(nm - t->v));
    }
    return PMIX_SUCCESS;
}

int32_t ol_names_serve(struct ol_names *t, const ol_msg_name_t *req, ol_msg_name_t *resp)
{
    switch (req->op) {
    case OL_NAME_PUBLISH:
        return publish(t, req);
    case OL_NAME_LOOKUP:
        return lookup(t, req, resp);
    case OL_NAME_UNPUBLISH:
        return unpublish(t, req);
    default:
        return PMIX_ERR_BAD_PARAM;
    }
}
