/* A PMIx client for names_netns.sh: published names through the
 * launcher (PMIx_Publish, PMIx_Lookup, PMIx_Unpublish), as MPI's
 * Publish_name, Lookup_name and Unpublish_name use them. Each step prints
 * one line with PMIx's name of the status, "what: STATUS [value V owner NS:R]":
 *
 *   names_client pair      2 ranks: rank 0 publishes ol-test-svc; after a
 *       fence, rank 1 looks it up, publishes it again, publishes an
 *       integer, looks up with PMIX_WAIT, unpublishes it twice and looks it
 *       up again; after a fence, rank 0 looks it up, then publishes two
 *       keys at once, then one new and one taken, and unpublishes its own
 *   names_client parent PROG   rank 0 publishes ol-test-parent, then
 *       spawns 1 process of PROG (argv: "child")
 *   names_client child     looks up ol-test-parent and says whether its
 *       owner is its parent */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

static const char *status_name(pmix_status_t rc)
{
    return rc == PMIX_SUCCESS ? "SUCCESS" : PMIx_Error_string(rc);
}

static void say(const pmix_proc_t *me, const char *what, pmix_status_t rc)
{
    printf("rank %u %s: %s\n", me->rank, what, status_name(rc));
    fflush(stdout);
}

static pmix_status_t publish_string(const char *key, const char *value)
{
    pmix_info_t info[2];
    pmix_data_range_t range = PMIX_RANGE_SESSION;
    PMIX_INFO_LOAD(&info[0], key, value, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_RANGE, &range, PMIX_DATA_RANGE);
    pmix_status_t rc = PMIx_Publish(info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    return rc;
}

/* Looks key up (with PMIX_WAIT when wait) and prints the answer; the
 * owner in *owner when found. */
static pmix_status_t lookup(const pmix_proc_t *me, const char *what, const char *key, int wait,
                            pmix_proc_t *owner)
{
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    pmix_info_t info[2];
    pmix_data_range_t range = PMIX_RANGE_SESSION;
    int all = 0;
    PMIX_INFO_LOAD(&info[0], PMIX_RANGE, &range, PMIX_DATA_RANGE);
    if (wait)
        PMIX_INFO_LOAD(&info[1], PMIX_WAIT, &all, PMIX_INT);
    pmix_status_t rc = PMIx_Lookup(&pd, 1, info, wait ? 2 : 1);
    if (rc == PMIX_SUCCESS && pd.value.type == PMIX_STRING) {
        printf("rank %u %s: SUCCESS value %s owner %s:%u\n", me->rank, what, pd.value.data.string,
               pd.proc.nspace, pd.proc.rank);
        fflush(stdout);
        if (owner != NULL)
            *owner = pd.proc;
    } else {
        say(me, what, rc == PMIX_SUCCESS ? PMIX_ERR_BAD_PARAM : rc);
    }
    PMIX_PDATA_DESTRUCT(&pd);
    return rc;
}

static pmix_status_t unpublish(const char *key)
{
    char *keys[] = { (char *)key, NULL };
    return PMIx_Unpublish(keys, NULL, 0);
}

static void fence(void)
{
    PMIx_Fence(NULL, 0, NULL, 0);
}

/* Several keys in one call: published together, or none when one is
 * named twice; unpublished all at once (no keys: the caller's). */
static void several(const pmix_proc_t *me)
{
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], "ol-test-a", "a", PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], "ol-test-b", "b", PMIX_STRING);
    say(me, "publish a and b", PMIx_Publish(info, 2));
    PMIX_INFO_DESTRUCT(&info[1]);
    PMIX_INFO_LOAD(&info[1], "ol-test-a", "again", PMIX_STRING);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_LOAD(&info[0], "ol-test-c", "c", PMIX_STRING);
    say(me, "publish c and a", PMIx_Publish(info, 2));
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    lookup(me, "lookup b", "ol-test-b", 0, NULL);
    lookup(me, "lookup c", "ol-test-c", 0, NULL);
    say(me, "unpublish its own", PMIx_Unpublish(NULL, NULL, 0));
    lookup(me, "lookup a", "ol-test-a", 0, NULL);
    say(me, "unpublish its own again", PMIx_Unpublish(NULL, NULL, 0));
}

static int pair(const pmix_proc_t *me)
{
    if (me->rank == 0)
        say(me, "publish", publish_string("ol-test-svc", "port-of-rank-0"));
    fence();
    if (me->rank == 1) {
        lookup(me, "lookup", "ol-test-svc", 0, NULL);
        say(me, "publish again", publish_string("ol-test-svc", "port-of-rank-1"));
        pmix_info_t num;
        int v = 7;
        PMIX_INFO_LOAD(&num, "ol-test-int", &v, PMIX_INT);
        say(me, "publish an integer", PMIx_Publish(&num, 1));
        PMIX_INFO_DESTRUCT(&num);
        lookup(me, "lookup with wait", "ol-test-svc", 1, NULL);
        say(me, "unpublish", unpublish("ol-test-svc"));
        say(me, "unpublish again", unpublish("ol-test-svc"));
        lookup(me, "lookup after unpublish", "ol-test-svc", 0, NULL);
    }
    fence();
    if (me->rank == 0) {
        lookup(me, "lookup after unpublish", "ol-test-svc", 0, NULL);
        several(me);
    }
    return 0;
}

static int parent(const pmix_proc_t *me, const char *prog)
{
    if (me->rank != 0)
        return 0;
    say(me, "publish", publish_string("ol-test-parent", "port-of-the-parent"));
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(prog);
    char *cargv[] = { (char *)prog, "child", NULL };
    app.argv = cargv;
    app.maxprocs = 1;
    pmix_nspace_t ns = "";
    say(me, "spawn", PMIx_Spawn(NULL, 0, &app, 1, ns));
    free(app.cmd);
    return 0;
}

static int child(const pmix_proc_t *me)
{
    char host[256] = "?";
    gethostname(host, sizeof host);
    printf("child %u on %s\n", me->rank, host);
    pmix_proc_t owner, wild;
    if (lookup(me, "child lookup", "ol-test-parent", 0, &owner) != PMIX_SUCCESS)
        return 0;
    PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    int is_parent = PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v) == PMIX_SUCCESS &&
                    PMIX_CHECK_PROCID(v->data.proc, &owner);
    if (v != NULL)
        PMIX_VALUE_RELEASE(v);
    printf("rank %u owner is the parent: %s\n", me->rank, is_parent ? "yes" : "no");
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    if (argc < 2 || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 2;
    int rc = 2;
    if (strcmp(argv[1], "pair") == 0)
        rc = pair(&me);
    else if (strcmp(argv[1], "parent") == 0 && argc > 2)
        rc = parent(&me, argv[2]);
    else if (strcmp(argv[1], "child") == 0)
        rc = child(&me);
    PMIx_Finalize(NULL, 0);
    return rc;
}
