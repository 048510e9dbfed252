/* The per-host daemon (ompi-lite-daemon): shared state of its parts.
 *
 *   daemon.c        main, the link to mpirun, the job's life cycle
 *   daemon_pmix.c   the PMIx server: module upcalls, job registration
 *   daemon_ranks.c  fork/exec of the ranks, reaping, IO forwarding, killing
 *   daemon_topo.c   the host topology for PMIx, cached across jobs
 *
 * Threads: everything runs on the main thread's event loop except the PMIx
 * module upcalls, which PMIx runs on its own progress thread. Upcalls only
 * set atomic flags on a rank and post a note on the upcall pipe; the main
 * loop does the rest. */
#ifndef OL_LAUNCHER_DAEMON_H
#define OL_LAUNCHER_DAEMON_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <hwloc.h>

#include "proto.h"

struct event_base;
struct event;
struct bufferevent;
struct ol_daemon;

struct ol_rank {
    struct ol_daemon *d;
    uint32_t rank;        /* rank in the job */
    uint32_t local_rank;  /* index among this host's ranks */
    pid_t pid;            /* also its process group id */
    struct bufferevent *out, *err; /* NULL once the pipe reached EOF */
    struct bufferevent *in;        /* stdin writer, only for the stdin rank */
    bool in_eof_pending;           /* close `in` once its buffer drains */
    int status_fd;                 /* exec status pipe (read end) until exec is confirmed */
    int exec_errno;                /* non-zero: exec (or chdir) failed */
    bool reaped;
    int wstatus;
    bool reported;                 /* RANK_EXIT sent (or rank counted as finished) */
    struct event *drain_timer;     /* bounds the wait for pipe EOF after reaping */
    /* Set on the PMIx thread, read on the main thread. */
    atomic_bool connected, finalized, aborted;
    atomic_int abort_code;
};

struct ol_daemon {
    struct event_base *base;
    struct bufferevent *up;       /* link to mpirun; NULL once lost */
    struct event *sig_ev;
    int sigfd;
    int upcall_pipe[2];           /* PMIx thread -> main loop notes */
    struct event *upcall_ev;
    uint32_t node_id;
    bool have_job;
    ol_msg_launch_t job;
    struct ol_rank *ranks;
    uint32_t nranks;              /* ranks on this host */
    uint32_t first_rank;
    uint32_t nfinished;
    bool job_registered;
    bool killing;
    struct event *kill_timer;
    bool orphaned;                /* mpirun is gone: kill, clean up, exit */
    bool exiting;
    int exit_status;
    hwloc_topology_t topo;        /* handed to PMIx; NULL: PMIx discovers */
};

/* Notes the PMIx thread posts to the main loop. */
enum ol_upcall_kind { OL_UPCALL_ABORT = 1 };
struct ol_upcall_note {
    uint32_t kind;
    uint32_t local_rank;
};

/* daemon_pmix.c */
int ol_dpmix_init(struct ol_daemon *d, char **err);
int ol_dpmix_register_job(struct ol_daemon *d, char **err);
int ol_dpmix_rank_env(struct ol_daemon *d, struct ol_rank *r, char ***env);
void ol_dpmix_finalize(struct ol_daemon *d);

/* daemon_topo.c: this host's topology, from a per-boot cache when possible */
hwloc_topology_t ol_daemon_load_topology(void);

/* daemon_ranks.c */
int ol_ranks_launch(struct ol_daemon *d, char **err);
void ol_ranks_reap(struct ol_daemon *d);
void ol_ranks_kill(struct ol_daemon *d);
void ol_ranks_stdin(struct ol_daemon *d, const uint8_t *data, uint32_t len);
void ol_ranks_free(struct ol_daemon *d);

/* daemon.c: called by the parts above */
void ol_daemon_send(struct ol_daemon *d, uint16_t type, const ol_wbuf_t *body);
void ol_daemon_rank_finished(struct ol_daemon *d, struct ol_rank *r);
void ol_daemon_report_exit(struct ol_daemon *d, struct ol_rank *r, uint8_t kind, int32_t code);

#endif
