/* The algorithm tables and selection, private to coll/.
 *
 * Each collective has a table: its algorithms (name, restrictions, build
 * function), a choose function that applies the thresholds (data, each a
 * parameter), and the parameter that forces an algorithm by name. Forcing
 * one whose restrictions fail logs a warning and falls back to the choice. */
#ifndef OL_COLL_SELECT_H
#define OL_COLL_SELECT_H

#include "coll.h"
#include "ol_params.h"
#include "coll_sched.h"

typedef ol_status_t (*ol_coll_build_t)(ol_sched_t *s, const ol_coll_args_t *a);

/* Restrictions of an algorithm. */
enum {
    OL_ALGO_COMMUTATIVE = 1 << 0, /* the op must be commutative */
    OL_ALGO_POW2 = 1 << 1,        /* the process count must be a power of two */
    OL_ALGO_INTRA = 1 << 2,       /* not on intercommunicators */
    OL_ALGO_CONTIGUOUS = 1 << 3,  /* contiguous datatypes only */
    OL_ALGO_COUNT_GE_SIZE = 1 << 4, /* count >= number of processes */
    OL_ALGO_ONE_JOB = 1 << 5,     /* members of this job only: it reads the job's hosts */
};

typedef struct {
    const char *name;
    unsigned restrictions;
    ol_coll_build_t build;
} ol_coll_algorithm_t;

typedef struct {
    const char *name;                     /* "allreduce" */
    const ol_coll_algorithm_t *algorithms;
    int count;
    /* The automatic choice: an index into algorithms, and why (logged). */
    int (*choose)(const ol_coll_args_t *a, const char **why);
    const char *const *forced;            /* parameter storage: "" or a name */
    const ol_param_t *params;             /* this collective's parameters */
    int nparams;
} ol_coll_table_t;

/* Every collective's table, by kind (select.c). */
extern const ol_coll_table_t *const ol_coll_tables[OL_COLL_KINDS];

/* Collective calls by the way they ran, for the tool interface
 * (api/tool.c): for each kind, by the index of the table's algorithm that
 * built the schedule, or by one of the ways around the tables (the
 * host's shared-memory segment, the two-process shortcut, the device IPC
 * allreduce). A call counts when it is issued (a persistent one at its
 * init, not at each start); the library's own collectives (agreements on
 * context ids ...) count too. The tables are checked at start-up to fit
 * OL_COLL_MAX_ALGORITHMS (ol_coll_params_load). */
#define OL_COLL_MAX_ALGORITHMS 16
enum {
    OL_COLL_RAN_SHM = OL_COLL_MAX_ALGORITHMS,
    OL_COLL_RAN_PAIR,
    OL_COLL_RAN_DEVICE_IPC,
    OL_COLL_RAN_SPLIT,
    OL_COLL_RAN_WAYS
};
/* The name of a way around the tables ("shm", "pair", "device_ipc"). */
const char *ol_coll_ran_name(int way);
uint64_t ol_coll_calls(int kind, int way);

/* For choose functions: formats the reason of a choice with the threshold
 * that made it, e.g. ol_coll_why("bytes %lld < ALLREDUCE_SHORT_MSG=%d",
 * (long long)bytes, short_msg). The text lives in a per-thread buffer until
 * the next call, long enough for the log that follows the choice; it is
 * empty when the info log is off, which is its only reader. */
const char *ol_coll_why(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Where the job's ranks run, for thresholds that differ between shared
 * memory and a network: every rank on one host; one rank on each host
 * (every message crosses the network); several ranks on each of several
 * hosts. It is the job's layout, not the communicator's (the same answer on
 * every rank, without a message), so a communicator that lives on one host
 * of a multi-host job takes the network's thresholds above the shared-memory
 * path's sizes. */
typedef enum { OL_COLL_ONE_HOST, OL_COLL_RANK_PER_HOST, OL_COLL_SHARED_HOSTS } ol_coll_layout_t;
ol_coll_layout_t ol_coll_layout(const ol_comm_t *comm);

/* Bytes a call moves per process, the usual size class of thresholds. */
MPI_Count ol_coll_bytes(const ol_coll_args_t *a);

/* Small blocking collectives on two processes, done without a schedule
 * (pair.c): whether a call is one, and running it. */
bool ol_coll_pair_applies(const ol_coll_args_t *a);
ol_status_t ol_coll_pair_run(const ol_coll_args_t *a);
/* Reduce on two processes of one host, the vector split between them
 * (reduce_split.c). applies answers alike on both; the run sets *taken
 * when both could, and otherwise leaves the call to the table's algorithm
 * (unless it fails). */
bool ol_coll_reduce_split_applies(const ol_coll_args_t *a);
ol_status_t ol_coll_reduce_split(const ol_coll_args_t *a, bool *taken);

/* Blocking allreduce on device memory across the ranks of one host through
 * CUDA IPC (allreduce_device_ipc.c): whether this call takes it (decided
 * alike on every rank: it may run a small agreement), and running it. */
extern int ol_coll_allreduce_device_ipc_bytes;
ol_status_t ol_coll_allreduce_ipc_applies(const ol_coll_args_t *a, long long min_bytes,
                                          bool *applies);
/* *taken false: some rank could not share its vector or map a peer's, all
 * ranks agreed to leave IPC, nothing was written and the caller runs
 * another algorithm. */
ol_status_t ol_coll_allreduce_ipc(const ol_coll_args_t *a, bool *taken);

#endif
