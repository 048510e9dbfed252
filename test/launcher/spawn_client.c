/* A PMIx client for the spawn tests (test/launcher/spawn*.sh), standing in
 * for MPI_Comm_spawn before the library has it.
 *
 *   spawn_client parent PROG NP [WDIR [HOST]]  rank 0 calls PMIx_Spawn of
 *       PROG (argv: "child"), NP processes, env SPAWN_TEST=added, and
 *       prints "spawn status S nspace NS" (S: the pmix status number);
 *       every rank then prints "parent R done" and finalizes
 *   spawn_client child [die|hang...]  prints "child R of N parent NS:R
 *       env=V cwd=D"; with "die", rank 1 kills itself with SIGKILL first;
 *       with a word starting "hang" (hang-MARKER), every child then waits
 *       for a signal */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

static int child(const pmix_proc_t *me, int argc, char **argv)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me->nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    uint32_t size = 0;
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) == PMIX_SUCCESS) {
        size = v->data.uint32;
        PMIX_VALUE_RELEASE(v);
    }
    char parent[PMIX_MAX_NSLEN + 16] = "none";
    if (PMIx_Get(&wild, PMIX_PARENT_ID, NULL, 0, &v) == PMIX_SUCCESS) {
        snprintf(parent, sizeof parent, "%s:%u", v->data.proc->nspace, v->data.proc->rank);
        PMIX_VALUE_RELEASE(v);
    }
    if (argc > 2 && strcmp(argv[2], "die") == 0 && me->rank == 1)
        raise(SIGKILL);
    char cwd[PATH_MAX];
    const char *env = getenv("SPAWN_TEST");
    printf("child %u of %u parent %s env=%s cwd=%s\n", me->rank, size, parent, env ? env : "unset",
           getcwd(cwd, sizeof cwd) ? cwd : "?");
    fflush(stdout);
    if (argc > 2 && strncmp(argv[2], "hang", 4) == 0)
        pause();
    return 0;
}

static int parent(const pmix_proc_t *me, int argc, char **argv)
{
    if (argc < 4)
        return 2;
    if (me->rank == 0) {
        pmix_app_t app;
        PMIX_APP_CONSTRUCT(&app);
        app.cmd = strdup(argv[2]);
        char *cargv[] = { argv[2], "child", argc > 6 ? argv[6] : NULL, NULL };
        app.argv = cargv;
        char *env[] = { "SPAWN_TEST=added", NULL };
        app.env = env;
        app.maxprocs = atoi(argv[3]);
        size_t ninfo = (argc > 4 && *argv[4]) + (argc > 5 && *argv[5]);
        pmix_info_t info[2];
        size_t k = 0;
        if (argc > 4 && *argv[4])
            PMIX_INFO_LOAD(&info[k++], PMIX_WDIR, argv[4], PMIX_STRING);
        if (argc > 5 && *argv[5])
            PMIX_INFO_LOAD(&info[k++], PMIX_HOST, argv[5], PMIX_STRING);
        app.info = ninfo ? info : NULL;
        app.ninfo = ninfo;
        pmix_nspace_t ns = "";
        pmix_status_t rc = PMIx_Spawn(NULL, 0, &app, 1, ns);
        printf("spawn status %d nspace %s\n", rc, rc == PMIX_SUCCESS ? ns : "-");
        fflush(stdout);
        free(app.cmd);
    }
    printf("parent %u done\n", me->rank);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    pmix_proc_t me;
    if (argc < 2 || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
        return 2;
    int rc = strcmp(argv[1], "child") == 0 ? child(&me, argc, argv) : parent(&me, argc, argv);
    PMIx_Finalize(NULL, 0);
    return rc;
}
