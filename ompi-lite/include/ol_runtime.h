/* The runtime: process start and end (PMIx client, UCX context and worker),
 * the job's facts, and the progress engine every blocking call waits in. */
#ifndef OL_RUNTIME_H
#define OL_RUNTIME_H

#include "ol_common.h"
#include <stdbool.h>
#include <pthread.h>
#include <ucp/api/ucp.h>

typedef enum {
    OL_RT_NOT_STARTED = 0,
    OL_RT_RUNNING,
    OL_RT_FINALIZED,
} ol_rt_state_t;

typedef struct {
    ol_rt_state_t state;
    int thread_level;        /* granted MPI_THREAD_* */
    int rank;                /* in MPI_COMM_WORLD */
    int size;
    int local_rank;          /* among the ranks of this host */
    int local_size;
    int num_hosts;           /* hosts of the job; 0: the launcher did not say */
    int node_rank;
    int node_leader;         /* lowest world rank on this host */
    int appnum;
    int universe_size;       /* processes the launcher can start in all (its slots) */
    bool singleton;          /* started without a PMIx server */
    char hostname[256];
    ucp_context_h ucp_context;
    ucp_worker_h ucp_worker;
    int worker_efd;          /* UCX wakeup fd: blocked ranks sleep on it */
    int spin_us;             /* how long a waiting rank polls before sleeping */
    bool core_per_local_rank; /* this host has a core for each of the job's ranks on it */
    uint64_t job_key;        /* a hash of the PMIx namespace: groups shared files (ol_shm_names.h) */
    char job_name[256];      /* the PMIx namespace; a singleton makes up one no other can have */
} ol_runtime_t;

extern ol_runtime_t ol_rt;

/* What the layer that owns UCX requests (pt2pt) needs of the UCX context:
 * the runtime cannot know it, so the caller of ol_rt_init passes it down. */
typedef struct {
    size_t request_size;
    void (*request_init)(void *request);
} ol_rt_request_spec_t;

/* The device layer above (accel): started between PMIx and UCX, so that
 * UCX's CUDA transports find the GPU it chose, and ended after the closing
 * fence, when no peer reads this process's device memory any more. Before
 * that fence, release_peers closes what this process mapped of its peers'
 * memory, so that after it every process may free what it shared. The
 * caller of ol_rt_init passes it down, as the runtime links against no
 * layer above it. */
typedef struct {
    ol_status_t (*init)(int local_rank, int local_size);
    void (*finalize)(void);
    void (*release_peers)(void);
} ol_rt_device_t;

/* Starts PMIx (or a singleton), the device layer (device may be NULL) and
 * UCX. */
ol_status_t ol_rt_init(int requested_thread_level, const ol_rt_request_spec_t *requests,
                       const ol_rt_device_t *device);
ol_status_t ol_rt_finalize(void);

/* Ends the whole job with this exit code; message goes to stderr first.
 * After ol_rt_note_peer_lost, the message waits a moment: another process
 * of the job has ended, the launcher is ending the job for that reason and
 * says so, and this process's error, a consequence, would only hide the
 * cause; it is printed if the job goes on all the same. */
void ol_rt_abort(int exit_code, const char *message) __attribute__((noreturn));

/* An error showed that another process of the job is gone (its
 * connection failed, a fence could not complete). */
void ol_rt_note_peer_lost(void);

/* Waits until every rank of the job has called it (a PMIx fence). */
ol_status_t ol_rt_fence(void);

/* The UCX worker address another rank published at start-up. The returned
 * buffer is the caller's to free with ol_rt_free_peer_address(). */
ol_status_t ol_rt_peer_address(int world_rank, void **address, size_t *length);
void ol_rt_free_peer_address(void *address);

/* Processes of other jobs (MPI_Comm_spawn, MPI_Comm_connect/accept,
 * MPI_Comm_join) take indices from ol_rt.size up, in the space of world
 * ranks, so that groups, communicators and endpoints name them as they
 * name the job's own ranks. A process is known by its job's name and its
 * rank there, and reached at the UCX worker address it sent. Indices stay
 * until the runtime ends. */
enum { OL_RT_MAX_PROCS = 1 << 20 };
/* The index of (job, rank), added with address and the name of its host
 * if new. A process of this job gets its world rank (the rest unused). */
ol_status_t ol_rt_proc_index(const char *job, int rank, const char *host, const void *address,
                             size_t length, int *index);
/* Whether index runs on this host: a world rank PMIx calls local, another
 * job's process whose host has this one's name. Unlike ol_rt_same_host,
 * which answers for the job's own ranks only (what they share: segments,
 * IPC), true for other jobs' processes too: UCX reaches those by shared
 * memory as well. */
bool ol_rt_proc_on_host(int index);
/* Processes known: world ranks and the others' indices are below it. */
int ol_rt_proc_count(void);
/* Who index is: its job's name (valid until the runtime ends) and rank. */
void ol_rt_proc_identity(int index, const char **job, int *rank);
/* A total order of processes that every process computes alike: by job
 * name, then rank (negative, zero, positive as for strcmp). */
int ol_rt_proc_compare(int a, int b);
/* This process's UCX worker address (the runtime's; do not free). */
void ol_rt_own_address(const void **address, size_t *length);

/* Bytes this rank shares with the others of its job under key (a PMIx put
 * and commit): they can look them up after the next ol_rt_fence. What a
 * lookup returns is the caller's to free(). A singleton shares nothing. */
ol_status_t ol_rt_share(const char *key, const void *data, size_t length);
ol_status_t ol_rt_lookup(int world_rank, const char *key, void **data, size_t *length);

/* Work the layers above UCX advance on every progress call, one slot per
 * layer, each NULL while its layer has nothing in flight, so the fast path
 * pays a load a slot. A hook returns the number of events it made; the
 * device protocol's returns how many of its operations are in flight, so
 * that waiting ranks poll rather than sleep while copies run on a GPU,
 * which wake nobody. */
typedef enum {
    OL_PROGRESS_COLL,  /* collective schedules (coll/coll_sched.c) */
    OL_PROGRESS_RMA,   /* the messages of live windows, which a target handles in
                          whatever MPI call it makes (rma/) */
    OL_PROGRESS_PART,  /* partitioned receives whose handshake is in flight
                          (pt2pt/part.c) */
    OL_PROGRESS_IO,    /* collective file accesses between their phases (io/) */
    OL_PROGRESS_ACCEL, /* the device-message protocol's operations (pt2pt/device.c) */
    OL_PROGRESS_LAYERS
} ol_progress_layer_t;
extern int (*volatile ol_progress_hooks[OL_PROGRESS_LAYERS])(void);

/* True when no layer has work in flight. */
static inline bool ol_progress_hooks_idle(void)
{
    for (int i = 0; i < OL_PROGRESS_LAYERS; i++)
        if (ol_progress_hooks[i])
            return false;
    return true;
}

/* A channel of pt2pt that UCX does not see (the shared-memory rings of
 * pt2pt/shm_ring.c): polled on every progress call before UCX, and told
 * before a rank sleeps on UCX's event fd, so that its senders wake it.
 * sleep_begin returns false when something arrived meanwhile: no sleep
 * then. owes_progress is true while the rank's progress owes work that
 * nobody will wake it for (a receive's last chunks that its sender may
 * copy): a waiting rank must not sleep then. close runs
 * in MPI_Finalize after the last fence, before UCX stops (what peers sent
 * through UCX for the channel has arrived by then); it sets ol_rt_channel
 * to NULL. NULL without the channel. */
typedef struct {
    int (*progress)(void);
    bool (*sleep_begin)(void);
    void (*sleep_end)(void);
    bool (*owes_progress)(void);
    void (*close)(void);
} ol_rt_channel_t;
extern const ol_rt_channel_t *ol_rt_channel;

/* Whether a waiting rank may sleep: not while it owes progress. */
static inline bool ol_rt_may_sleep(void)
{
    const ol_rt_channel_t *channel = ol_rt_channel;
    return !channel || !channel->owes_progress();
}

/* Under MPI_THREAD_MULTIPLE, UCX progress and pt2pt's matching (see
 * pt2pt/match.c) exclude each other. Recursive: a completion callback that
 * runs under it may start a send. */
extern pthread_mutex_t ol_rt_match_lock;

/* Progress: one call advances every outstanding operation. */
static inline int ol_progress(void)
{
    const ol_rt_channel_t *channel = ol_rt_channel;
    int events = channel ? channel->progress() : 0;
    bool threads = ol_rt.thread_level == MPI_THREAD_MULTIPLE;
    if (OL_UNLIKELY(threads))
        pthread_mutex_lock(&ol_rt_match_lock);
    events += (int)ucp_worker_progress(ol_rt.ucp_worker);
    if (OL_UNLIKELY(threads))
        pthread_mutex_unlock(&ol_rt_match_lock);
    for (int i = 0; i < OL_PROGRESS_LAYERS; i++) {
        int (*hook)(void) = ol_progress_hooks[i];
        if (hook)
            events += hook();
    }
    return events;
}

/* Waits until done(arg) is true, progressing; spins for spin_us and then
 * sleeps on the worker's event fd so that oversubscribed ranks yield. done
 * is not called again once it has answered true, so it may act on what it
 * finds (take a probed message out of matching). */
void ol_progress_wait(bool (*done)(void *arg), void *arg);
/* Nanoseconds spent in ol_progress_wait while ol_progress_wait_timed was
 * not 0 (the tool interface's timer; api/tool.c counts its started
 * handles there). */
extern int ol_progress_wait_timed;
uint64_t ol_progress_wait_ns(void);

/* The phases of ol_progress_wait, for loops that wait for something UCX
 * does not signal (the collectives' shared memory) and sleep their own
 * way. Where one wait is: spinning until spin_until, then yielding until
 * yield_until (both set at the first look at the clock). */
typedef struct {
    bool spinning;
    unsigned polls;
    double spin_until, yield_until;
} ol_wait_phase_t;

ol_wait_phase_t ol_wait_start(void);
/* After an idle poll: true to poll again (at once while spinning, after
 * giving the core away while yielding, or while the rank owes progress),
 * false to sleep. */
bool ol_wait_poll_again(ol_wait_phase_t *w);
/* Whether a wait whose progress call made progress starts its phases
 * again (progress.c says when). */
bool ol_wait_restarts_on_progress(void);
/* ol_progress, and a wakeup for threads of this rank asleep on the worker
 * when it made progress they may be waiting for. */
int ol_progress_and_wake(void);
/* ol_progress for the calls a program polls with (MPI_Test and kin):
 * where the job's ranks share this host's cores, a poll that moved nothing
 * hands the core to another rank (ol_poll_found_nothing). */
int ol_progress_poll(void);
/* A polling call (MPI_Iprobe, MPI_Win_test, MPI_Parrived) found nothing:
 * where ranks share cores, the core goes to another rank (progress.c says
 * why). */
void ol_poll_found_nothing(void);

double ol_rt_wtime(void);

/* True when world_rank runs on this host (PMIx's local peers). */
bool ol_rt_same_host(int world_rank);

/* A host of the job and its world ranks, in increasing order. */
typedef struct {
    char name[256];
    int nranks;
    int *ranks;
} ol_rt_host_t;

/* The job's hosts, in the order of their lowest ranks (the process sets
 * by host of MPI_Session_get_nth_pset), from PMIx's node list and each
 * node's local peers; this host alone where the launcher gives no node
 * list. Free them with ol_rt_hosts_free. */
ol_status_t ol_rt_hosts(ol_rt_host_t **hosts, int *nhosts);
void ol_rt_hosts_free(ol_rt_host_t *hosts, int nhosts);

/* True when the host has a core for each rank of the job on it (online
 * cores: ranks bound to one core each still have one apiece); read once at
 * start-up, so every rank of the host answers alike for the whole job. */
bool ol_rt_core_per_local_rank(void);
/* True where the host has an InfiniBand or RoCE device (/sys/class/infiniband). */
bool ol_rt_host_has_rdma(void);

#endif
