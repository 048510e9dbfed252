/* A PMIx client that does what ompi-lite's MPI_Init does, for the launcher
 * tests (linked with PMIx only, not the MPI library).
 *
 *   pmix_client check N [MARKER]       PMIx_Init, Put "ol.ucx.addr", Commit,
 *       Fence (no data collection), then check the job info against a job
 *       of N ranks on this one host and Get every peer's key; Finalize.
 *       Prints "rank R ok" and exits 0, or says what was wrong and exits 1.
 *   pmix_client hosts N NODES [MARKER]  the same for a job of N ranks on NODES
 *       hosts: local rank and size as the launcher's OMPI_LITE_LOCAL_* say,
 *       host name, the node map's entry of this host (PMIx_Resolve_peers of
 *       the host name gives this host's ranks), every peer's key (remote
 *       ones by direct modex), then a
 *       second fence that collects data. Prints "rank R ok on HOST".
 *   pmix_client appnum [MARKER]         prints "rank R appnum A"
 *   pmix_client exit CODE RANK [MARKER]      rank RANK exits CODE; the others wait
 *   pmix_client abort CODE RANK [MARKER]     rank RANK calls PMIx_Abort(CODE)
 *   pmix_client signal SIG RANK [MARKER]     rank RANK raises SIG
 *   pmix_client nofinalize RANK [MARKER]     rank RANK exits 0 without PMIx_Finalize
 *   pmix_client sleep SECONDS [MARKER]       every rank sleeps, then finalizes
 *
 * "The others wait" means they sleep up to 30 s: a launcher that does not
 * kill them makes the test slow and the process-table check fail. MARKER
 * is ignored; tests pass a unique word to find leftover processes. */
#include <pmix.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;

#define FAIL(...) do { fprintf(stderr, "rank %u: ", me.rank); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); return 1; } while (0)

static int get_value(const pmix_proc_t *proc, const char *key, pmix_value_t **val)
{
    pmix_status_t rc = PMIx_Get(proc, key, NULL, 0, val);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "rank %u: PMIx_Get(%s, rank %d) failed: %s\n", me.rank, key, (int)proc->rank,
                PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

static int get_uint(const pmix_proc_t *proc, const char *key, unsigned long *out)
{
    pmix_value_t *v;
    if (get_value(proc, key, &v) != 0)
        return -1;
    int rc = 0;
    switch (v->type) {
    case PMIX_UINT32: *out = v->data.uint32; break;
    case PMIX_UINT16: *out = v->data.uint16; break;
    case PMIX_UINT64: *out = v->data.uint64; break;
    case PMIX_UINT8: *out = v->data.uint8; break;
    case PMIX_INT: *out = (unsigned long)v->data.integer; break;
    case PMIX_PROC_RANK: *out = v->data.rank; break;
    case PMIX_SIZE: *out = v->data.size; break;
    default:
        fprintf(stderr, "rank %u: %s has unexpected type %d\n", me.rank, key, (int)v->type);
        rc = -1;
    }
    PMIX_VALUE_RELEASE(v);
    return rc;
}

static void make_blob(unsigned rank, char *buf, size_t len)
{
    /* Not a string: includes a NUL and varies with the rank. */
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)((rank * 31 + i * 7) & 0xff);
}

#define BLOB_LEN 48

static int check_uint(const pmix_proc_t *proc, const char *key, unsigned long want)
{
    unsigned long got;
    if (get_uint(proc, key, &got) != 0)
        return -1;
    if (got != want) {
        fprintf(stderr, "rank %u: %s is %lu, expected %lu\n", me.rank, key, got, want);
        return -1;
    }
    return 0;
}

/* MPI_UNIVERSE_SIZE: the hosts' slots, never below the job's size. */
static int check_univ_size(const pmix_proc_t *proc, unsigned long job_size)
{
    unsigned long got;
    if (get_uint(proc, PMIX_UNIV_SIZE, &got) != 0)
        return -1;
    if (got < job_size) {
        fprintf(stderr, "rank %u: %s is %lu, below the job size %lu\n", me.rank, PMIX_UNIV_SIZE, got, job_size);
        return -1;
    }
    return 0;
}

static int check_peers_blobs(unsigned n)
{
    for (unsigned r = 0; r < n; r++) {
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, me.nspace, r);
        pmix_value_t *v;
        if (get_value(&peer, "ol.ucx.addr", &v) != 0)
            return -1;
        char want[BLOB_LEN];
        make_blob(r, want, sizeof want);
        int bad = v->type != PMIX_BYTE_OBJECT || v->data.bo.size != BLOB_LEN ||
                  memcmp(v->data.bo.bytes, want, BLOB_LEN) != 0;
        PMIX_VALUE_RELEASE(v);
        if (bad) {
            fprintf(stderr, "rank %u: ol.ucx.addr of rank %u has the wrong contents\n", me.rank, r);
            return -1;
        }
    }
    return 0;
}

static int run_check(unsigned n)
{
    char blob[BLOB_LEN];
    make_blob(me.rank, blob, sizeof blob);
    pmix_value_t val;
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = blob;
    val.data.bo.size = sizeof blob;
    if (PMIx_Put(PMIX_GLOBAL, "ol.ucx.addr", &val) != PMIX_SUCCESS)
        FAIL("PMIx_Put failed");
    if (PMIx_Commit() != PMIX_SUCCESS)
        FAIL("PMIx_Commit failed");
    if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
        FAIL("PMIx_Fence failed");

    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (me.rank >= n)
        FAIL("rank %u out of range for %u ranks", me.rank, n);
    if (check_uint(&job, PMIX_JOB_SIZE, n) || check_univ_size(&job, n) ||
        check_uint(&job, PMIX_LOCAL_SIZE, n) || check_uint(&job, PMIX_NUM_NODES, 1) ||
        check_uint(&me, PMIX_LOCAL_RANK, me.rank) || check_uint(&me, PMIX_NODE_RANK, me.rank) ||
        check_uint(&me, PMIX_APPNUM, 0))
        return 1;

    pmix_value_t *v;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    if (get_value(&me, PMIX_HOSTNAME, &v) != 0)
        return 1;
    int bad = v->type != PMIX_STRING || strcmp(v->data.string, host) != 0;
    PMIX_VALUE_RELEASE(v);
    if (bad)
        FAIL("PMIX_HOSTNAME is not %s", host);

    if (get_value(&job, PMIX_LOCAL_PEERS, &v) != 0)
        return 1;
    char want[4096] = "";
    for (unsigned r = 0; r < n; r++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s%u", r ? "," : "", r);
    bad = v->type != PMIX_STRING || strcmp(v->data.string, want) != 0;
    PMIX_VALUE_RELEASE(v);
    if (bad)
        FAIL("PMIX_LOCAL_PEERS is not %s", want);

    if (check_peers_blobs(n) != 0)
        return 1;
    printf("rank %u ok\n", me.rank);
    return 0;
}

static int env_uint(const char *name)
{
    const char *v = getenv(name);
    return v ? atoi(v) : -1;
}

/* The node map names this host as its PMIx HOSTNAME does, however the
 * hostfile spelled it (an address, say): resolving the name gives exactly
 * this host's ranks. */
static int check_own_node(const char *host, int lsize)
{
    pmix_proc_t *procs = NULL;
    size_t n = 0;
    pmix_status_t rc = PMIx_Resolve_peers(host, me.nspace, &procs, &n);
    if (rc != PMIX_SUCCESS)
        FAIL("PMIx_Resolve_peers(%s) failed: %s", host, PMIx_Error_string(rc));
    bool found = false;
    for (size_t i = 0; i < n; i++)
        found |= procs[i].rank == me.rank;
    if (procs != NULL)
        PMIX_PROC_FREE(procs, n);
    if (n != (size_t)lsize || !found)
        FAIL("PMIx_Resolve_peers(%s) gave %zu ranks, expected %d with this one", host, n, lsize);
    return 0;
}

static int run_hosts(unsigned n, unsigned nodes)
{
    char blob[BLOB_LEN];
    make_blob(me.rank, blob, sizeof blob);
    pmix_value_t val;
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = blob;
    val.data.bo.size = sizeof blob;
    if (PMIx_Put(PMIX_GLOBAL, "ol.ucx.addr", &val) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS)
        FAIL("PMIx_Put/Commit failed");
    if (PMIx_Fence(NULL, 0, NULL, 0) != PMIX_SUCCESS)
        FAIL("PMIx_Fence failed");
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    int lsize = env_uint("OMPI_LITE_LOCAL_SIZE"), lrank = env_uint("OMPI_LITE_LOCAL_RANK");
    if (check_uint(&job, PMIX_JOB_SIZE, n) || check_uint(&job, PMIX_NUM_NODES, nodes) ||
        check_uint(&job, PMIX_LOCAL_SIZE, (unsigned long)lsize) ||
        check_uint(&me, PMIX_LOCAL_RANK, (unsigned long)lrank) ||
        check_uint(&me, PMIX_NODE_RANK, (unsigned long)lrank) || check_uint(&me, PMIX_APPNUM, 0))
        return 1;
    pmix_value_t *v;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    if (get_value(&me, PMIX_HOSTNAME, &v) != 0)
        return 1;
    int bad = v->type != PMIX_STRING || strcmp(v->data.string, host) != 0;
    PMIX_VALUE_RELEASE(v);
    if (bad)
        FAIL("PMIX_HOSTNAME is not %s", host);
    if (check_own_node(host, lsize) != 0 || check_peers_blobs(n) != 0)
        return 1;
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIx_Fence(NULL, 0, &collect, 1) != PMIX_SUCCESS)
        FAIL("PMIx_Fence with data collection failed");
    printf("rank %u ok on %s\n", me.rank, host);
    return 0;
}

static void wait_to_be_killed(void)
{
    for (int i = 0; i < 30; i++)
        sleep(1);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: pmix_client check|hosts|appnum|exit|abort|signal|nofinalize|sleep ARGS...\n");
        return 2;
    }
    const char *mode = argv[1];
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    int status = 0;
    if (strcmp(mode, "check") == 0) {
        status = run_check((unsigned)atoi(argv[2]));
    } else if (strcmp(mode, "hosts") == 0 && argc >= 4) {
        status = run_hosts((unsigned)atoi(argv[2]), (unsigned)atoi(argv[3]));
    } else if (strcmp(mode, "appnum") == 0) {
        unsigned long a = 99;
        if (get_uint(&me, PMIX_APPNUM, &a) != 0)
            status = 1;
        printf("rank %u appnum %lu\n", me.rank, a);
    } else if (strcmp(mode, "sleep") == 0) {
        sleep((unsigned)atoi(argv[2]));
    } else if (strcmp(mode, "nofinalize") == 0) {
        if (me.rank == (unsigned)atoi(argv[2]))
            return 0;
        wait_to_be_killed();
    } else if (argc >= 4) {
        int value = atoi(argv[2]);
        if (me.rank != (unsigned)atoi(argv[3])) {
            wait_to_be_killed();
        } else if (strcmp(mode, "exit") == 0) {
            printf("rank %u exits with %d\n", me.rank, value);
            fflush(stdout);
            return value;
        } else if (strcmp(mode, "abort") == 0) {
            PMIx_Abort(value, "test abort", NULL, 0);
            wait_to_be_killed();
        } else if (strcmp(mode, "signal") == 0) {
            raise(value);
            wait_to_be_killed();
        }
    }
    PMIx_Finalize(NULL, 0);
    return status;
}
