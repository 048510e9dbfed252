/* rma_util.h: what the one-sided tests (rma_basic, rma_acc, rma_attr,
 * rma_errors) share: the failure report, the check of a call's return code,
 * and the selection of cases by the names given on the command line.
 *
 * A case is named by components joined with '/' ("create1/fence/ring"); it
 * runs when no names are given, or when an argument is made only of its
 * components ("fence", "ring", "create1/ring", the whole name).
 * An argument that selects no case at all is an error (a typo would
 * otherwise pass silently). The first failure prints the program, the rank,
 * the case and what was expected on stderr, and calls MPI_Abort, so that the
 * job exits non-zero. */
#ifndef RMA_UTIL_H
#define RMA_UTIL_H

#include <mpi.h>
#include "peer_skips.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs;
static const char *prog = "rma";
static char cur_case[128] = "";

static int sel_argc;
static char **sel_argv;
static int *sel_used;
static int cases_run;

static void rma_fail(const char *fmt, ...)
{
    va_list ap;
    char text[1024];
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: rank %d: case %s: %s\n", prog, rank, cur_case, text);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static const char *err_text(int rc)
{
    static char text[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    text[0] = '\0';
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "(MPI_Error_string failed for %d)", rc);
    return text;
}

/* The call must have succeeded. */
static void check(int rc, const char *call)
{
    if (rc != MPI_SUCCESS)
        rma_fail("%s failed: %s", call, err_text(rc));
}

#define CHECK(call) check((call), #call)

static void rma_init(int *argc, char ***argv, const char *name)
{
    prog = name;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    sel_argc = *argc - 1;
    sel_argv = *argv + 1;
    sel_used = calloc((size_t)sel_argc + 1, sizeof(int));
}

/* Whether component c (of length n) is one of the '/'-separated
 * components of name. */
static int has_component(const char *name, const char *c, size_t n)
{
    const char *p = name;
    for (;;) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, c, n) == 0)
            return 1;
        if (!e)
            return 0;
        p = e + 1;
    }
}

/* Whether case NAME ("A/B/C") runs: with no arguments, always; else when an
 * argument is the whole name or made only of components of the name ("B",
 * "A/C"). Sets cur_case when it runs. */
static int selected(const char *name)
{
    int yes = sel_argc == 0;
    for (int i = 0; i < sel_argc; i++) {
        const char *a = sel_argv[i];
        int match = *a != '\0';
        while (match && *a) {
            const char *e = strchr(a, '/');
            size_t len = e ? (size_t)(e - a) : strlen(a);
            match = has_component(name, a, len);
            a = e ? e + 1 : a + len;
        }
        if (match) {
            sel_used[i] = 1;
            yes = 1;
        }
    }
    if (yes) {
        snprintf(cur_case, sizeof cur_case, "%s", name);
        cases_run++;
    }
    return yes;
}

/* Every argument must have selected a case; then the summary line. */
static void rma_finish(void)
{
    for (int i = 0; i < sel_argc; i++)
        if (!sel_used[i]) {
            snprintf(cur_case, sizeof cur_case, "(arguments)");
            rma_fail("no case is named '%s'", sel_argv[i]);
        }
    snprintf(cur_case, sizeof cur_case, "(end)");
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("%s: %d ranks OK (%d cases)\n", prog, nprocs, cases_run);
    fflush(stdout);
    free(sel_used);
    MPI_Finalize();
}

/* Whether the environment variable RMA_SKIP (a comma-separated list) names
 * this sub-case. Only for checking the tests against other MPI libraries
 * whose known bugs would hide the rest (see README.md); the test scripts
 * never set it. */
static inline int skip_known(const char *token)
{
    return peer_skip("RMA_SKIP", token, rank, prog);
}

/* Whether every process of MPI_COMM_WORLD is on one host (shared memory
 * windows possible). */
static inline int all_on_one_host(void)
{
    MPI_Comm node;
    int nsize;
    CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    int local = nsize == nprocs, all;
    CHECK(MPI_Allreduce(&local, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD));
    return all;
}

#endif
