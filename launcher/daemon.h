/* The per-host daemon (ompi-lite-daemon): shared state of its parts.
 *
 *   daemon.c        main, the links (to the parent, to child daemons), routing,
 *                   the job's life cycle
 *   daemon_modex.c  fences and direct-modex requests across hosts
 *   daemon_pmix.c   the PMIx server: module upcalls, job registration
 *   daemon_spawn.c  PMIx_Spawn, the table of namespaces
 *   daemon_names.c  PMIx publish, lookup, unpublish (asking mpirun)
 *   daemon_ranks.c  fork/exec of the ranks, reaping, IO forwarding, killing
 *   binding.c       where each local rank runs (hwloc cpusets)
 *   daemon_topo.c   the host topology for PMIx, cached across jobs
 *
 * Threads: everything runs on the main thread's event loop except the PMIx
 * module upcalls, which PMIx runs on its own progress thread. Upcalls only
 * set atomic flags on a rank and post a note on the upcall pipe; the main
 * loop does the rest (and may call PMIx callbacks: PMIx thread-shifts them). */
#ifndef OL_LAUNCHER_DAEMON_H
#define OL_LAUNCHER_DAEMON_H

#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <hwloc.h>

#include "net.h"
#include "ol_netif.h"
#include "ol_state.h"
#include "proto.h"

struct event_base;
struct event;
struct bufferevent;
struct ol_daemon;

/* A namespace: the first job's (spawn_no 0, from LAUNCH) or a spawn's
 * (SPAWN). Every daemon knows every namespace once it is started, so that it
 * can route requests for any process id (gid, see README.md "Spawn"). */
struct ol_djob {
    const ol_msg_launch_t *spec;  /* &d->job for the first job; spawn.job otherwise */
    ol_msg_spawn_t spawn;         /* a spawn's SPAWN message */
    uint32_t spawn_no, gid_base, parent_gid;
    uint32_t nlocal;              /* its processes on this host */
    struct ol_rank **local;       /* those, by local rank */
    uint32_t fence_seq;           /* fences its processes here entered (daemon_modex.c) */
};

/* The most namespaces a job may have (the first and its spawns). */
#define OL_MAX_NSPACES 1024

struct ol_rank {
    struct ol_daemon *d;
    struct ol_djob *job;  /* its namespace */
    uint32_t rank;        /* rank in its namespace */
    uint32_t gid;         /* process id in mpirun's frames: job->gid_base + rank */
    uint32_t idx;         /* index in d->ranks */
    uint32_t local_rank;  /* index among this host's ranks of its namespace */
    const ol_app_t *app;
    pid_t pid;            /* also its process group id */
    bool bound;
    cpu_set_t cpus;       /* when bound */
    struct bufferevent *out, *err; /* NULL once the pipe reached EOF */
    struct bufferevent *in;        /* stdin writer, only for the stdin rank */
    bool in_eof_pending;           /* close `in` once its buffer drains */
    int status_fd;                 /* exec status pipe (read end) until exec is confirmed */
    int exec_errno;                /* non-zero: exec failed; negative: chdir failed */
    bool reaped;
    int wstatus;
    bool reported;                 /* RANK_EXIT sent (or rank counted as finished) */
    struct event *drain_timer;     /* bounds the wait for pipe EOF after reaping */
    /* Set on the PMIx thread, read on the main thread. */
    atomic_bool connected, finalized, aborted;
    atomic_int abort_code;
    char abort_msg[512];           /* PMIx_Abort's message, written before `aborted` is set */
    /* daemon_state.c: the rank's state record and what sampling saw */
    int state_fd;                  /* the record's memfd until the fork; -1 */
    ol_state_record_t *state;      /* mapped until the daemon exits; NULL: none */
    uint64_t seen_seq, seen_sig;
    uint8_t seen_where;
    uint64_t since_ns;             /* when the current call (or user code) was first seen */
    uint32_t repeats;
    pid_t gdb_pid;                 /* --get-stack-traces */
    struct bufferevent *gdb_out;
    char *stack;
};

/* A link to a child daemon (or, before HELLO, a connection proving the key). */
struct ol_dlink {
    struct ol_daemon *d;
    uint32_t node_id;     /* OL_NO_NODE until its HELLO */
    struct bufferevent *bev;
    struct event *timer;  /* authentication deadline */
    bool authed, closed;
    struct ol_dlink *next;
};

struct ol_dfence;         /* daemon_modex.c */
struct ol_dmodex_wait;

struct ol_daemon {
    struct event_base *base;
    struct bufferevent *up;       /* link to the parent; NULL once lost */
    bool up_tcp;
    struct event *sig_ev, *ping_ev;
    int sigfd;
    int upcall_pipe[2];           /* PMIx thread -> main loop notes */
    struct event *upcall_ev;
    uint32_t node_id, nnodes, fanout;
    char *key;
    /* children in the tree */
    uint32_t child_first, nchildren;
    struct ol_dlink **children;   /* by node_id - child_first; NULL until HELLO */
    struct ol_dlink *pending;     /* connections not yet authenticated, newest first */
    uint32_t npending;
    char **listen_addrs;          /* where children reach us (HELLO's addrs) */
    int listen_fds[OL_NET_LISTEN_MAX];
    struct event *listen_evs[OL_NET_LISTEN_MAX];
    int nlisten;
    uint16_t port;
    unsigned link_timeout_ms;     /* TCP_USER_TIMEOUT of every TCP link */
    const char *ifname;           /* OMPI_LITE_IFNAME from mpirun (--ifname), or NULL */
    const char *net_test_speed;   /* OMPI_LITE_NET_TEST_SPEED (--net-test-speed), or NULL */
    ol_netif_list_t netifs;       /* this host's interfaces, those the job uses selected */
    char *pmix_dir;               /* PMIx's private directory (0700), removed at exit */
    int pmix_dir_lock;            /* held while pmix_dir is in use */
    bool have_job;
    ol_msg_launch_t job;
    /* The namespaces, first job first; PMIx's thread reads them, so an
     * entry is complete before njobs counts it, and never moves. */
    struct ol_djob *jobs[OL_MAX_NSPACES];
    atomic_uint njobs;
    struct ol_djob *spawn_pending; /* a SPAWN checked, waiting for SPAWN_GO */
    struct ol_spawn_call *spawn_calls; /* our ranks' PMIx_Spawn calls, waiting for SPAWN_DONE */
    uint32_t next_spawn_req;
    struct ol_name_call *name_calls; /* our ranks' publish/lookup/unpublish, waiting for NAME_RESP */
    uint32_t next_name_req;
    struct ol_rank **ranks;       /* every process on this host, all namespaces; never move */
    uint32_t nranks;              /* processes on this host */
    uint32_t nfinished;
    /* Local ranks in the order they were reaped; exits are reported in
     * that order (daemon_ranks.c). */
    uint32_t *reap_order;
    uint32_t nreaped, nreaped_reported;
    bool job_registered;
    /* Output back-pressure (daemon_ranks.c): above io_bound bytes queued
     * toward the parent, the ranks' pipes and the children's links are
     * not read, until the queue falls to half of it. */
    size_t io_bound;
    bool io_paused;
    bool killing;
    struct event *kill_timer;
    bool orphaned;                /* the parent is gone: kill, clean up, exit */
    bool shutting_down;           /* SHUTDOWN seen: exit once children closed */
    bool exiting;
    int exit_status;
    hwloc_topology_t topo;        /* handed to PMIx; NULL: PMIx discovers */
    /* daemon_modex.c */
    struct ol_dfence *fences;
    uint32_t next_req_id;
    struct ol_dmodex_wait *waits;       /* our requests, waiting for answers */
    struct ol_dmodex_wait *early_reqs;  /* others' requests before the job is registered */
    /* daemon_state.c */
    struct event *state_timer;    /* samples the records */
    uint32_t state_req_id;        /* the STATE_REQ being answered */
    uint32_t stacks_running;      /* gdb processes not yet done */
    struct event *stack_timer;
};

/* Notes the PMIx thread posts to the main loop. */
enum ol_upcall_kind {
    OL_UPCALL_ABORT = 1,        /* local_rank called abort */
    OL_UPCALL_FENCE = 2,        /* ptr: struct ol_fence_req, local part complete */
    OL_UPCALL_DMODEX = 3,       /* ptr: struct ol_dmodex_wait, a local rank wants a remote rank's data */
    OL_UPCALL_DMODEX_DONE = 4,  /* ptr: struct ol_dmodex_wait, PMIx answered a remote request */
    OL_UPCALL_SPAWN = 5,        /* ptr: struct ol_spawn_call, a local rank called PMIx_Spawn */
    OL_UPCALL_NAME = 6,         /* ptr: struct ol_name_call, a local rank publishes, looks up or unpublishes */
};

/* A local rank's PMIx_Spawn, until mpirun's SPAWN_DONE answers it. */
struct ol_spawn_call {
    ol_msg_spawn_req_t req;
    void *cbfunc, *cbdata;        /* pmix_spawn_cbfunc_t and its data */
    struct ol_spawn_call *next;
};

/* A local rank's PMIx_Publish, PMIx_Lookup or PMIx_Unpublish, until
 * mpirun's NAME_RESP answers it. */
struct ol_name_call {
    ol_msg_name_t req;            /* req.op says which; the caller in req.nspace, req.rank */
    void *cbfunc, *cbdata;        /* pmix_lookup_cbfunc_t for a lookup, else pmix_op_cbfunc_t */
    struct ol_name_call *next;
};

struct ol_upcall_note {
    uint32_t kind;
    uint32_t local_rank;          /* the rank's index in d->ranks */
    void *ptr;
};

/* A fence's local part, from the PMIx upcall. */
struct ol_fence_req {
    struct ol_djob *job;          /* the namespace whose fence it is */
    void *cbfunc;                 /* pmix_modex_cbfunc_t */
    void *cbdata;
    uint8_t *data;
    size_t len;
};

/* A direct-modex request: ours (waiting for RESP) or another daemon's (being
 * served by PMIx). */
struct ol_dmodex_wait {
    uint32_t req_id;
    uint32_t node;                /* theirs: where the answer goes */
    uint32_t rank;                /* the process id (gid) whose data it is */
    void *cbfunc, *cbdata;        /* ours: pmix_modex_cbfunc_t and its data */
    int32_t status;               /* served: PMIx's answer */
    uint8_t *data;
    size_t len;
    struct ol_dmodex_wait *next;
};

/* daemon_pmix.c */
int ol_dpmix_init(struct ol_daemon *d, char **err);
/* Registers namespace j and its local processes. */
int ol_dpmix_register_job(struct ol_daemon *d, struct ol_djob *j, char **err);
int ol_dpmix_rank_env(struct ol_daemon *d, struct ol_rank *r, char ***env);
/* Asks PMIx for a local rank's data; OL_UPCALL_DMODEX_DONE follows. */
void ol_dpmix_serve_dmodex(struct ol_daemon *d, struct ol_dmodex_wait *w);
void ol_dpmix_post(uint32_t kind, uint32_t local_rank, void *ptr);
/* PMIx_server_finalize, then removes PMIx's private directory. */
void ol_dpmix_finalize(struct ol_daemon *d);
/* Removes PMIx's private directory (also where init failed). */
void ol_dpmix_remove_dir(struct ol_daemon *d);

/* daemon_spawn.c */
/* The namespace of nspace, or of process id gid; NULL when unknown. */
struct ol_djob *ol_daemon_job_by_nspace(struct ol_daemon *d, const char *nspace);
struct ol_djob *ol_daemon_job_by_gid(struct ol_daemon *d, uint32_t gid);
/* The node of process gid, or OL_NO_NODE. */
uint32_t ol_daemon_node_of(struct ol_daemon *d, uint32_t gid);
/* Adds namespace j's processes on this host to d->ranks. */
void ol_daemon_add_ranks(struct ol_daemon *d, struct ol_djob *j);
void ol_spawn_local_call(struct ol_daemon *d, struct ol_spawn_call *c);
void ol_spawn_check(struct ol_daemon *d, ol_rbuf_t *rb);
void ol_spawn_go(struct ol_daemon *d, uint32_t spawn_no, uint8_t go);
void ol_spawn_done(struct ol_daemon *d, const ol_msg_spawn_done_t *m);
void ol_spawn_free(struct ol_daemon *d);

/* daemon_names.c */
/* Sends a local rank's call to mpirun (answers it at once when mpirun is
 * out of reach). */
void ol_names_local_call(struct ol_daemon *d, struct ol_name_call *c);
/* NAME_RESP for this daemon: answers its call. */
void ol_names_response(struct ol_daemon *d, const ol_msg_name_t *m);
/* The link to mpirun is gone, or the daemon ends: every call still waiting
 * gets PMIX_ERR_UNREACH. */
void ol_names_unreachable(struct ol_daemon *d);

/* daemon_modex.c */
void ol_modex_local_fence(struct ol_daemon *d, struct ol_fence_req *f);
void ol_modex_fence_up(struct ol_daemon *d, const ol_msg_fence_t *m);
void ol_modex_fence_down(struct ol_daemon *d, const ol_msg_fence_t *m);
void ol_modex_local_request(struct ol_daemon *d, struct ol_dmodex_wait *w);
void ol_modex_request(struct ol_daemon *d, const ol_msg_dmodex_t *m);
void ol_modex_served(struct ol_daemon *d, struct ol_dmodex_wait *w);
void ol_modex_response(struct ol_daemon *d, const ol_msg_dmodex_t *m);
/* A namespace was registered (or added without local processes): serve
 * the requests that came before it. */
void ol_modex_job_registered(struct ol_daemon *d);
void ol_modex_free(struct ol_daemon *d);

/* daemon_topo.c: this host's topology, from a per-boot cache when possible */
hwloc_topology_t ol_daemon_load_topology(void);

/* binding.c: the cpus of local rank i (of n) under the job's --map-by/--bind-to;
 * false when the rank is not bound. *desc (malloc'd) describes it. */
bool ol_binding_compute(hwloc_topology_t topo, const ol_msg_launch_t *job, uint32_t i, uint32_t n,
                        cpu_set_t *cpus, char **desc);

/* daemon_ranks.c */
/* Starts the processes d->ranks[first..]: 0, or -1 with *err. */
int ol_ranks_launch(struct ol_daemon *d, uint32_t first, char **err);
/* Reaps every dead child; `first` (the pid SIGCHLD named, or 0) first. */
void ol_ranks_reap(struct ol_daemon *d, pid_t first);
void ol_ranks_kill(struct ol_daemon *d);
/* Signals a rank's process group, or the rank before it made the group. */
void ol_rank_kill(pid_t pid, int sig);
/* SIGKILLs the ranks not reaped yet and waits for them (the daemon exits
 * early), removing their files as a reaping would. */
void ol_ranks_kill_now(struct ol_daemon *d);
void ol_ranks_stdin(struct ol_daemon *d, const uint8_t *data, uint32_t len);
/* OMPI_LITE_OUTPUT_BUFFER from the job's environment (LAUNCH carries
 * mpirun's OMPI_LITE_* and --param), so every host uses mpirun's value. */
void ol_ranks_output_bound(struct ol_daemon *d);
/* Pauses or resumes reading the ranks' output by the queue toward the
 * parent; call after queuing output and when that queue drained. */
void ol_ranks_output_check(struct ol_daemon *d);
void ol_ranks_free(struct ol_daemon *d);

/* daemon_state.c: the ranks' state records */
/* Creates rank r's record before its fork (r->state_fd goes to the child). */
int ol_dstate_create(struct ol_rank *r);
/* After the fork: the daemon keeps the mapping, not the descriptor. */
void ol_dstate_forked(struct ol_rank *r);
/* Starts sampling once the ranks run. */
void ol_dstate_start(struct ol_daemon *d);
/* Answers STATE_REQ with STATE (after the stacks, when asked for them). */
void ol_dstate_request(struct ol_daemon *d, const ol_msg_state_req_t *q);
void ol_dstate_free(struct ol_daemon *d);

/* daemon.c: called by the parts above */
void ol_daemon_send(struct ol_daemon *d, uint16_t type, const ol_wbuf_t *body);
/* Sends toward node `target` (up or to the child holding it); false when
 * target is this daemon. */
bool ol_daemon_route(struct ol_daemon *d, uint32_t target, uint16_t type, const ol_wbuf_t *body);
void ol_daemon_send_children(struct ol_daemon *d, uint16_t type, const void *body, size_t len);
void ol_daemon_rank_finished(struct ol_daemon *d, struct ol_rank *r);
void ol_daemon_report_exit(struct ol_daemon *d, struct ol_rank *r, uint8_t kind, int32_t code);
/* Bytes queued toward the parent (0 without a parent link). */
size_t ol_daemon_up_queued(struct ol_daemon *d);
/* Stops or resumes reading the children's links (their IO goes up too). */
void ol_daemon_children_reading(struct ol_daemon *d, bool on);

#endif
