/* mpirun / mpiexec: maps the job onto hosts, starts one daemon per host
 * (wired as a tree above OMPI_LITE_TREE_FANOUT hosts), hands them the job,
 * prints the ranks' output, routes fences and direct-modex requests between
 * subtrees, and decides how the job ends. The first abnormal end of any
 * rank (non-zero exit, signal, PMIx_Abort, exit without finalize) or of a
 * daemon, a signal to mpirun, or --timeout ends the whole job: every daemon
 * gets KILL, and mpirun prints one line saying what happened, after all
 * output, and exits non-zero. */
#define _GNU_SOURCE
#ifdef HAVE_CONFIG_H
#include "ol_config.h" /* PACKAGE_VERSION */
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "mpirun.h"
#include "mpirun_output.h"
#include "mpirun_state.h"
#include "net.h"
#include "ol_netif.h"
#include "ol_spawn.h"
#include "proto.h"
#include "tree.h"
#include "util.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

#define STDIN_CHUNK (64 * 1024)
#define STDIN_HIGH_WATER (1024 * 1024)
/* Beyond the daemons' own kill grace, before mpirun SIGKILLs what it started. */
#define WATCHDOG_EXTRA_MS 3000
/* A TCP connection must prove the key and say HELLO within this. */
#define AUTH_TIMEOUT_S 10
#define AGENT_TAIL_MAX 4096
#define TIMEOUT_EXIT_CODE 124
/* How long a state report waits for the daemons' answers: gdb takes about
 * a second per rank, in parallel, and the daemons stop it after 15 s. */
#define REPORT_WAIT_MS 3000
#define REPORT_STACKS_WAIT_MS 20000
/* After SHUTDOWN: a daemon bounds its own end at 5 s (daemon.c); one that
 * is still connected this long after (stopped, wedged in the kernel) is
 * killed, named, and not waited for. */
#define SHUTDOWN_WAIT_MS 8000

struct mpirun;

enum node_state { NODE_NEW, NODE_STARTING, NODE_UP, NODE_DONE, NODE_DEAD };

struct node {
    struct mpirun *m;
    uint32_t id;
    char *name;                 /* as the hostfile says */
    char *host;                 /* as the daemon says (HELLO), or NULL */
    bool local;
    enum node_state state;
    pid_t pid;                  /* forked daemon or launch agent; 0: none */
    bool reaped;
    int wstatus;
    struct bufferevent *bev;    /* the link, for mpirun's direct children */
    bool tcp;                   /* the link is TCP (pinged) */
    bool link_closed;
    struct bufferevent *agent_out; /* the agent's stdout+stderr */
    char *agent_tail;           /* its output before HELLO */
    bool agent_exited_early;    /* report once agent_out reaches EOF */
    uint16_t port;              /* from HELLO: where its children connect */
    char **addrs;
    char **netifs;              /* from HELLO: its interfaces (ol_netif_describe) */
    char **ips;                 /* its IPv4 addresses as resolved here (none: unknown) */
    long slots;                 /* the hostfile's (or --host's) slots */
    bool late;                  /* started during the job, for a spawn */
    bool awaited;               /* the spawn being served waits for its HELLO */
};

/* A PMIx_Spawn being served (one at a time; later ones wait in line). */
struct spawn_op {
    ol_msg_spawn_req_t req;
    ol_msg_spawn_t sp;          /* once placed */
    uint32_t acks_wanted, acks;
    uint8_t phase;              /* the SPAWN_ACK phase awaited */
    uint32_t *node_of;          /* placed, while daemons start for it */
    uint32_t np;
    uint32_t starting;          /* daemons started for it, not yet up */
    int err;                    /* the first errno a daemon's check gave */
    char *err_prog;
    uint32_t err_node;
    struct spawn_op *next;
};

struct pconn {                  /* an accepted TCP connection before HELLO */
    struct mpirun *m;
    struct bufferevent *bev;
    struct event *timer;
    bool authed;
    struct pconn *next;
};

struct fence {                  /* fence seq of namespace spawn_no (0: the first job) */
    uint32_t spawn_no, seq, count;
    ol_wbuf_t data;
    struct fence *next;
};

struct mpirun {
    struct event_base *base;
    struct mpirun_opts opts;
    ol_msg_launch_t job;
    struct node *nodes;         /* never moves: room for nodes_cap */
    uint32_t nnodes, nodes_cap, fanout;
    /* The hosts of the hostfile (or --host) and the node of each
     * (OL_NO_NODE: no daemon yet; a spawn may start one there). */
    struct ol_hostlist hosts;
    uint32_t *host_node;
    uint32_t child_first, nchildren; /* mpirun's direct children */
    char *key;
    char *daemon_exe;
    int listen_fds[OL_NET_LISTEN_MAX];
    struct event *listen_evs[OL_NET_LISTEN_MAX];
    int nlisten;
    uint16_t port;
    char **addrs;               /* what the listeners are bound to */
    ol_netif_list_t netifs;     /* this host's interfaces, the job's selected */
    struct pconn *pending;      /* newest first */
    uint32_t npending;
    uint32_t nhello;
    bool launched, shutdown_sent, force_exit;
    /* Processes by id (gid): the first job's ranks 0..job_size-1, then
     * each spawn's (README.md, "Spawn"). */
    uint32_t nprocs;
    uint32_t *proc_node;
    uint8_t *rank_running;
    ol_msg_spawn_t **spawns;    /* spawns[k]: spawn k+1 */
    uint32_t nspawns;
    struct spawn_op *spawn_ops; /* the first is being served */
    struct ol_names *names;     /* published names, for the whole job (mpirun_names.c) */
    /* The first failure wins; later ones are consequences of the kill.
     * It is recorded when it happens, before any state report, so that
     * nothing after it (the daemons finishing while the report is being
     * gathered) can make the job end with status 0. */
    bool failed;
    char *fail_line;
    int exit_code;
    bool killing;               /* KILL went down: the job is being ended */
    struct event *watchdog, *timeout_ev, *ping_ev, *shutdown_ev;
    int sigfd;
    struct event *sig_ev;
    int nsignals;
    struct ol_output *out;
    struct event *output_ev;    /* the output queue fell below its bound, or a write failed */
    bool reading_paused;        /* the output queue is full: daemons' links are not read */
    struct fence *fences;
    /* The state report being gathered (one at a time), and what follows
     * it: the job goes on, or it ends (the failure is already recorded). */
    struct ol_report *report;
    uint32_t report_id, report_waiting;
    struct event *report_timer;
    bool report_ends_job;
    struct timespec started;
    /* stdin forwarding */
    struct event *stdin_ev;
    struct node *stdin_link;
    bool stdin_paused, stdin_done;
};

static void start_node(struct mpirun *m, struct node *n);
static void late_node_up(struct mpirun *m, struct node *n);
static void check_finished(struct mpirun *m);
static void set_links_reading(struct mpirun *m, bool on);

static const char *node_host(const struct node *n)
{
    return n->host ? n->host : n->name;
}

/* ---- sending ---- */

static void send_down_all(struct mpirun *m, uint16_t type, const ol_wbuf_t *body)
{
    for (uint32_t i = 0; i < m->nchildren; i++) {
        struct node *n = &m->nodes[m->child_first + i];
        if (n->bev != NULL && !n->link_closed)
            ol_frame_send(n->bev, type, body);
    }
}

/* The direct child whose subtree holds node t (NULL when that link is gone). */
static struct node *hop_to(struct mpirun *m, uint32_t t)
{
    uint32_t hop = ol_tree_next_hop(OL_TREE_ROOT, t, m->fanout);
    if (hop >= m->nnodes)
        return NULL;
    struct node *n = &m->nodes[hop];
    return n->bev != NULL && !n->link_closed ? n : NULL;
}

/* ---- ending the job ---- */

static void kill_started(struct mpirun *m, int sig)
{
    /* Forked daemons take their ranks with them (PR_SET_PDEATHSIG); an agent
     * that is a daemon by exec (the netns agent) too; with ssh the remote
     * daemon sees its link close. */
    for (uint32_t i = 0; i < m->nnodes; i++) {
        if (m->nodes[i].pid > 0 && !m->nodes[i].reaped)
            kill(m->nodes[i].pid, sig);
    }
}

static void on_force_exit(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct mpirun *m = arg;
    m->force_exit = true;
    event_base_loopexit(m->base, NULL);
}

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct mpirun *m = arg;
    kill_started(m, SIGKILL);
    /* Remote daemons we cannot kill: give their links a moment to close. */
    struct timeval tv = { 1, 0 };
    event_base_once(m->base, -1, EV_TIMEOUT, on_force_exit, m, &tv);
}

/* Records the first failure (taking ownership of line): its line and exit
 * status are final from here on. False when an earlier failure won. The
 * status is exit_code even when 0: MPI_Abort(comm, 0) ends the job with
 * status 0, as the standard advises (MPI-4.1 11.6: the errorcode is
 * returned to the invoking environment) and Open MPI and MPICH do; codes
 * that stop a whole run early with it, and OpenSHMEM's shmem_global_exit(0)
 * over MPI, expect it. */
static bool record_failure(struct mpirun *m, char *line, int exit_code)
{
    if (m->failed) {
        free(line);
        return false;
    }
    ol_trace("job failed: %s", line);
    m->failed = true;
    m->fail_line = line;
    m->exit_code = exit_code;
    return true;
}

/* Ends the job after a recorded failure: KILL down the tree, and a
 * watchdog in case the daemons do not finish. */
static void end_job(struct mpirun *m)
{
    if (m->killing)
        return;
    m->killing = true;
    send_down_all(m, OL_MSG_KILL, NULL);
    /* Daemons not yet up are not started or are stopped now. */
    for (uint32_t i = 0; i < m->nnodes; i++) {
        struct node *n = &m->nodes[i];
        if (n->state == NODE_NEW)
            n->state = NODE_DEAD;
        else if (n->state == NODE_STARTING && n->pid > 0 && !n->reaped)
            kill(n->pid, SIGKILL);
    }
    long ms = m->opts.kill_grace_ms + WATCHDOG_EXTRA_MS;
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    m->watchdog = evtimer_new(m->base, on_watchdog, m);
    evtimer_add(m->watchdog, &tv);
    check_finished(m);
}

/* The first failure ends the job at once (later ones are ignored). */
static void job_failed(struct mpirun *m, char *line, int exit_code)
{
    if (record_failure(m, line, exit_code))
        end_job(m);
}

static const char *host_of_rank(struct mpirun *m, uint32_t gid)
{
    if (gid >= m->nprocs)
        return "?";
    return node_host(&m->nodes[m->proc_node[gid]]);
}

/* The spawn process gid belongs to, or NULL for the first job's ranks. */
static const ol_msg_spawn_t *spawn_of(const struct mpirun *m, uint32_t gid)
{
    for (uint32_t k = 0; k < m->nspawns; k++) {
        const ol_msg_spawn_t *sp = m->spawns[k];
        if (gid >= sp->gid_base && gid - sp->gid_base < sp->job.job_size)
            return sp;
    }
    return NULL;
}

/* "rank 3", or "rank 1 of spawn 2" (malloc'd). */
static char *proc_label(const struct mpirun *m, uint32_t gid)
{
    const ol_msg_spawn_t *sp = spawn_of(m, gid);
    if (sp == NULL)
        return ol_xasprintf("rank %u", gid);
    return ol_xasprintf("rank %u of spawn %u", gid - sp->gid_base, sp->spawn_no);
}

/* ---- state reports ---- */

static double seconds_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) + 1e-9 * (double)(now.tv_nsec - t0->tv_nsec);
}

/* Prints the report (when it says something) and does what was to follow. */
static void report_finish(struct mpirun *m)
{
    const char **hosts = ol_xcalloc(m->job.job_size + 1, sizeof *hosts);
    for (uint32_t r = 0; r < m->job.job_size; r++)
        hosts[r] = host_of_rank(m, r);
    struct ol_report *rep = m->report;
    bool ends = m->report_ends_job;
    m->report = NULL;
    m->report_ends_job = false;
    if (m->report_timer)
        event_del(m->report_timer);
    ol_report_set_hosts(rep, hosts);
    /* After a rank's death, a job that never entered MPI has nothing to say. */
    if (!ends || m->exit_code == TIMEOUT_EXIT_CODE || ol_report_has_mpi(rep)) {
        char *text = ol_report_format(rep, seconds_since(&m->started),
                                      ends ? "the job is ended, as the next line says" : "the job goes on");
        ol_output_text(m->out, text); /* after the ranks' lines queued before it */
        free(text);
    }
    ol_report_free(rep);
    free(hosts);
    if (ends)
        end_job(m);
    check_finished(m); /* the daemons may have finished meanwhile */
}

static void on_report_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct mpirun *m = arg;
    if (m->report != NULL)
        report_finish(m); /* ranks whose daemon did not answer show as such */
}

/* Asks every daemon for its ranks' states; ends_job: the job ends after
 * the report (its failure is recorded), else it goes on. False when no
 * report can be made now: no job yet, one is being gathered, or the job is
 * already being killed or shut down. */
static bool report_start(struct mpirun *m, bool ends_job)
{
    if (!m->launched || m->report != NULL || m->killing || m->shutdown_sent)
        return false;
    m->report = ol_report_new(m->job.job_size);
    m->report_id++;
    m->report_waiting = 0;
    /* A daemon that is done still answers: it waits for SHUTDOWN, which
     * check_finished holds back while a report is being gathered. */
    for (uint32_t i = 0; i < m->nnodes; i++)
        m->report_waiting += m->nodes[i].state == NODE_UP || m->nodes[i].state == NODE_DONE;
    m->report_ends_job = ends_job;
    ol_msg_state_req_t q = { .req_id = m->report_id, .stacks = m->opts.get_stack_traces };
    ol_wbuf_t w = { 0 };
    ol_msg_state_req_encode(&q, &w);
    send_down_all(m, OL_MSG_STATE_REQ, &w);
    ol_wbuf_free(&w);
    long ms = m->opts.get_stack_traces ? REPORT_STACKS_WAIT_MS : REPORT_WAIT_MS;
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    if (m->report_timer == NULL)
        m->report_timer = evtimer_new(m->base, on_report_timeout, m);
    evtimer_add(m->report_timer, &tv);
    if (m->report_waiting == 0)
        report_finish(m);
    return true;
}

static void handle_state(struct mpirun *m, ol_rbuf_t *rb)
{
    ol_msg_state_t st;
    if (ol_msg_state_decode(rb, &st) != 0)
        return;
    if (m->report != NULL && st.req_id == m->report_id) {
        ol_report_add(m->report, &st);
        if (--m->report_waiting == 0)
            report_finish(m);
    }
    ol_msg_state_free(&st);
}

/* A failure that the ranks' states explain: recorded now, reported, and
 * then the job is ended. */
static void job_failed_reported(struct mpirun *m, char *line, int code)
{
    if (record_failure(m, line, code) && !report_start(m, true))
        end_job(m);
}

/* PMIx_Abort comes from MPI_Abort or from the library's error path
 * (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT, an error outside any handler);
 * its message tells which. The prefix is the library's wording, in
 * ompi-lite/api/errors.c (report_and_abort): "ompi-lite: error in FN on
 * rank R (...): detail [error string]". failures.sh checks both. */
#define LIB_FATAL_PREFIX "ompi-lite: error in "

static char *abort_text(const ol_msg_rank_exit_t *e)
{
    const char *msg = e->msg != NULL ? e->msg : "";
    if (strncmp(msg, LIB_FATAL_PREFIX, strlen(LIB_FATAL_PREFIX)) != 0)
        return ol_xasprintf("called MPI_Abort with code %d", e->code);
    const char *fn = msg + strlen(LIB_FATAL_PREFIX);
    int fnlen = (int)strcspn(fn, " :");
    const char *open = strrchr(msg, '[');
    const char *close = open != NULL ? strchr(open, ']') : NULL;
    if (close != NULL)
        return ol_xasprintf("stopped on an error in %.*s: %.*s (the error handler was fatal; exit code %d)", fnlen,
                            fn, (int)(close - open - 1), open + 1, e->code);
    return ol_xasprintf("stopped on an error in %.*s (the error handler was fatal; exit code %d)", fnlen, fn,
                        e->code);
}

static void rank_ended(struct mpirun *m, const ol_msg_rank_exit_t *e)
{
    char *what;
    int code;
    if (e->rank < m->nprocs && e->kind != OL_EXIT_ABORT)
        m->rank_running[e->rank] = 0;
    const ol_msg_spawn_t *sp = spawn_of(m, e->rank);
    const ol_msg_launch_t *job = sp != NULL ? &sp->job : &m->job;
    uint32_t rank = sp != NULL ? e->rank - sp->gid_base : e->rank;
    switch (e->kind) {
    case OL_EXIT_NORMAL:
        return;
    case OL_EXIT_CODE:
        what = ol_xasprintf("exited with code %d", e->code);
        code = e->code;
        break;
    case OL_EXIT_SIGNAL:
        what = ol_xasprintf("was killed by signal %d (%s)", e->code, ol_signal_name(e->code));
        code = 128 + e->code;
        break;
    case OL_EXIT_ABORT:
        what = abort_text(e);
        code = e->code;
        break;
    case OL_EXIT_NO_FINALIZE:
        what = ol_xasprintf("exited without calling MPI_Finalize");
        code = 1;
        break;
    default: /* OL_EXIT_EXEC_FAILED; a negative code: chdir failed */
        if (e->code < 0)
            what = ol_xasprintf("could not change to directory %s: %s", job->cwd, strerror(-e->code));
        else
            what = ol_xasprintf("could not start %s: %s",
                                rank < job->job_size ? ol_launch_app_of(job, rank)->exe : "?",
                                strerror(e->code));
        code = 127;
        break;
    }
    char *label = proc_label(m, e->rank);
    char *line = ol_xasprintf("mpirun: %s (pid %u on host %s) %s", label, e->pid, host_of_rank(m, e->rank), what);
    free(label);
    /* A rank that died unasked: what were the others doing? */
    if (e->kind == OL_EXIT_CODE || e->kind == OL_EXIT_SIGNAL || e->kind == OL_EXIT_NO_FINALIZE)
        job_failed_reported(m, line, code);
    else
        job_failed(m, line, code);
    free(what);
}

/* "0-3,5 on host a; 7 on host b" for the ranks still running. */
/* "0-1,3 on host a; 2 on host b": the running processes gids
 * base..base+size-1, numbered from 0, by host (malloc'd, "" for none). */
static char *running_in(const struct mpirun *m, uint32_t base, uint32_t size)
{
    char *s = ol_xstrdup("");
    for (uint32_t n = 0; n < m->nnodes; n++) {
        char *list = ol_xstrdup("");
        for (uint32_t r = 0; r < size; r++) {
            if (m->proc_node[base + r] != n || !m->rank_running[base + r])
                continue;
            uint32_t e = r;
            while (e + 1 < size && m->proc_node[base + e + 1] == n && m->rank_running[base + e + 1])
                e++;
            char *next = e > r ? ol_xasprintf("%s%s%u-%u", list, *list ? "," : "", r, e)
                               : ol_xasprintf("%s%s%u", list, *list ? "," : "", r);
            free(list);
            list = next;
            r = e;
        }
        if (*list) {
            char *next = ol_xasprintf("%s%s%s on host %s", s, *s ? "; " : "", list, node_host(&m->nodes[n]));
            free(s);
            s = next;
        }
        free(list);
    }
    return s;
}

/* The first job's running ranks, then each spawn's ("spawn 1: 0-1 on
 * host b"), separated by "; " (malloc'd). */
static char *running_ranks(struct mpirun *m)
{
    char *s = running_in(m, 0, m->job.job_size);
    for (uint32_t k = 0; k < m->nspawns; k++) {
        const ol_msg_spawn_t *sp = m->spawns[k];
        char *part = running_in(m, sp->gid_base, sp->job.job_size);
        if (*part) {
            char *next = ol_xasprintf("%s%sspawn %u: %s", s, *s ? "; " : "", sp->spawn_no, part);
            free(s);
            s = next;
        }
        free(part);
    }
    return s;
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct mpirun *m = arg;
    char *ranks = running_ranks(m);
    job_failed_reported(m, ol_xasprintf("mpirun: the job did not finish within %ld s (%s); still running: %s",
                                        m->opts.timeout_s, m->opts.timeout_from, *ranks ? ranks : "no rank (daemons starting)"),
                        TIMEOUT_EXIT_CODE);
    free(ranks);
}

/* A daemon and everything below it in the tree is gone. */
static void mark_subtree_dead(struct mpirun *m, uint32_t id)
{
    m->nodes[id].state = NODE_DEAD;
    uint32_t first, count;
    ol_tree_children(id, m->fanout, m->nnodes, &first, &count);
    for (uint32_t i = 0; i < count; i++)
        mark_subtree_dead(m, first + i);
}

static void node_lost(struct mpirun *m, struct node *n, const char *why)
{
    enum node_state was = n->state;
    mark_subtree_dead(m, n->id);
    if (was != NODE_DONE && was != NODE_DEAD && !m->shutdown_sent)
        job_failed(m, ol_xasprintf("mpirun: the ompi-lite daemon on host %s %s", node_host(n), why), 1);
    check_finished(m);
}

static bool links_open(const struct mpirun *m)
{
    for (uint32_t i = 0; i < m->nchildren; i++) {
        const struct node *n = &m->nodes[m->child_first + i];
        if (n->bev != NULL && !n->link_closed)
            return true;
    }
    return false;
}

/* Daemons still connected SHUTDOWN_WAIT_MS after SHUTDOWN: named, killed
 * where we started them, and not waited for. */
static void on_shutdown_overdue(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct mpirun *m = arg;
    for (uint32_t i = 0; i < m->nchildren; i++) {
        struct node *n = &m->nodes[m->child_first + i];
        if (n->bev != NULL && !n->link_closed)
            fprintf(stderr, "mpirun: the ompi-lite daemon on host %s did not finish within %d s after the job; it was killed\n",
                    node_host(n), SHUTDOWN_WAIT_MS / 1000);
    }
    kill_started(m, SIGKILL);
    m->force_exit = true;
    event_base_loopexit(m->base, NULL);
}

/* SHUTDOWN once every daemon is done (or gone) and no state report is
 * being gathered (the daemons must stay to answer it); leave the loop once
 * every direct link is closed and no daemon is still being started. */
static void check_finished(struct mpirun *m)
{
    bool all_done = true;
    for (uint32_t i = 0; i < m->nnodes; i++) {
        enum node_state s = m->nodes[i].state;
        if (s != NODE_DONE && s != NODE_DEAD)
            all_done = false;
    }
    if (!all_done)
        return;
    if (m->report != NULL) {
        /* No answer can come any more: print what we have (that ends here). */
        if (!links_open(m))
            report_finish(m);
        return;
    }
    if (!m->shutdown_sent) {
        m->shutdown_sent = true;
        send_down_all(m, OL_MSG_SHUTDOWN, NULL);
        struct timeval tv = { SHUTDOWN_WAIT_MS / 1000, (SHUTDOWN_WAIT_MS % 1000) * 1000 };
        m->shutdown_ev = evtimer_new(m->base, on_shutdown_overdue, m);
        evtimer_add(m->shutdown_ev, &tv);
    }
    if (!links_open(m))
        event_base_loopexit(m->base, NULL);
}

/* ---- stdin ---- */

static void stdin_stop(struct mpirun *m)
{
    if (m->stdin_ev != NULL) {
        event_free(m->stdin_ev);
        m->stdin_ev = NULL;
    }
}

static void on_stdin(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct mpirun *m = arg;
    struct node *dc = m->stdin_link;
    if (dc->link_closed || m->failed) {
        stdin_stop(m);
        return;
    }
    uint8_t buf[STDIN_CHUNK];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    ol_wbuf_t w = { 0 };
    ol_w_bytes(&w, buf, n > 0 ? (size_t)n : 0); /* empty = EOF */
    ol_frame_send(dc->bev, OL_MSG_STDIN, &w);
    ol_wbuf_free(&w);
    if (n <= 0) {
        m->stdin_done = true;
        stdin_stop(m);
    } else if (evbuffer_get_length(bufferevent_get_output(dc->bev)) > STDIN_HIGH_WATER) {
        m->stdin_paused = true;
        event_del(m->stdin_ev);
    } else if (!(event_get_events(m->stdin_ev) & EV_READ)) {
        /* A regular file never blocks and epoll refuses it: keep going
         * from the loop, one chunk per turn. */
        event_active(m->stdin_ev, EV_TIMEOUT, 0);
    }
}

static void on_link_drained(struct bufferevent *bev, void *arg)
{
    (void)bev;
    struct node *dc = arg;
    struct mpirun *m = dc->m;
    if (m->stdin_paused && m->stdin_ev != NULL && m->stdin_link == dc) {
        m->stdin_paused = false;
        if (event_get_events(m->stdin_ev) & EV_READ)
            event_add(m->stdin_ev, NULL);
        else
            event_active(m->stdin_ev, EV_TIMEOUT, 0);
    }
}

/* Rank 0 gets stdin unless it is /dev/null, closed, a terminal we do not
 * own (background job), or --stdin none was given. */
static bool stdin_wanted(const struct mpirun *m)
{
    struct stat st, null_st;
    if (m->opts.stdin_none || fstat(STDIN_FILENO, &st) != 0)
        return false;
    if (S_ISCHR(st.st_mode) && stat("/dev/null", &null_st) == 0 && st.st_rdev == null_st.st_rdev)
        return false;
    if (isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) != getpgrp())
        return false;
    return true;
}

static void stdin_start(struct mpirun *m)
{
    struct stat st;
    if (m->job.stdin_rank == OL_NO_RANK)
        return;
    struct node *dc = hop_to(m, m->job.rank_node[m->job.stdin_rank]);
    if (dc == NULL)
        return;
    m->stdin_link = dc;
    bufferevent_setwatermark(dc->bev, EV_WRITE, STDIN_HIGH_WATER / 4, 0);
    if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) {
        /* No EV_READ: never added to epoll, only made active by hand. */
        m->stdin_ev = event_new(m->base, STDIN_FILENO, 0, on_stdin, m);
        event_active(m->stdin_ev, EV_TIMEOUT, 0);
    } else {
        ol_set_nonblock(STDIN_FILENO, true);
        m->stdin_ev = event_new(m->base, STDIN_FILENO, EV_READ | EV_PERSIST, on_stdin, m);
        event_add(m->stdin_ev, NULL);
    }
}

/* ---- output back-pressure ---- */

/* Stops or resumes reading every daemon link: while mpirun's output queue
 * is full, the daemons' queues fill behind it and they stop reading their
 * ranks' pipes. Frames already read are still handled (a few KiB). */
static void set_links_reading(struct mpirun *m, bool on)
{
    m->reading_paused = !on;
    for (uint32_t i = 0; i < m->nchildren; i++) {
        struct node *n = &m->nodes[m->child_first + i];
        if (n->bev == NULL || n->link_closed)
            continue;
        if (on)
            bufferevent_enable(n->bev, EV_READ);
        else
            bufferevent_disable(n->bev, EV_READ);
    }
}

/* Output nobody can read any more (`mpirun ... | head`) ends the job, as a
 * rank's death does; the peers' launchers end it too. */
static void output_failed(struct mpirun *m, int e, int stream)
{
    const char *name = stream == 2 ? "standard error" : "standard output";
    job_failed(m, ol_xasprintf("mpirun: cannot write the ranks' output to its %s (%s); the job was killed",
                               name, strerror(e)),
               e == EPIPE ? 128 + SIGPIPE : 1);
}

static void on_output_event(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct mpirun *m = arg;
    int stream;
    int e = ol_output_event(m->out, &stream);
    if (e != 0)
        output_failed(m, e, stream);
    if (m->reading_paused && !ol_output_over(m->out))
        set_links_reading(m, true);
}

/* ---- messages from daemons ---- */

/* A host is known by the name its daemon gives itself (HELLO), not by the
 * hostfile's spelling (an address, a short name, an ssh alias): the node
 * map then names the host as the daemon's PMIx HOSTNAME does, so a rank
 * finds its own node in it (PMIx_Resolve_peers). Open MPI renames its nodes
 * the same way. A name two daemons both claim (two machines each calling
 * itself "localhost") keeps the spellings, which at least differ. */
static void name_nodes_as_daemons_say(struct mpirun *m)
{
    for (uint32_t i = 0; i < m->nnodes; i++) {
        const char *own = m->nodes[i].host;
        bool unique = own != NULL && *own != '\0';
        for (uint32_t k = 0; k < m->nnodes && unique; k++)
            unique = k == i || m->nodes[k].host == NULL || strcmp(m->nodes[k].host, own) != 0;
        if (unique && strcmp(m->job.nodes[i], own) != 0) {
            ol_trace("host %s calls itself %s", m->job.nodes[i], own);
            free(m->job.nodes[i]);
            m->job.nodes[i] = ol_xstrdup(own);
        }
    }
}

static void send_launch(struct mpirun *m)
{
    m->launched = true;
    name_nodes_as_daemons_say(m);
    ol_wbuf_t w = { 0 };
    ol_msg_launch_encode(&m->job, &w);
    send_down_all(m, OL_MSG_LAUNCH, &w);
    ol_wbuf_free(&w);
    memset(m->rank_running, 1, m->job.job_size);
    ol_trace("LAUNCH sent");
    stdin_start(m);
}

/* Once every daemon said which links its host uses: one warning where a
 * host uses a slower one than the hosts share (mpirun_net.c). */
static void warn_slow_links(struct mpirun *m)
{
    struct ol_host_links *hosts = ol_xcalloc(m->nnodes, sizeof *hosts);
    for (uint32_t i = 0; i < m->nnodes; i++)
        hosts[i] = (struct ol_host_links){ .host = node_host(&m->nodes[i]), .netifs = m->nodes[i].netifs };
    char *line = ol_mpirun_slow_link(hosts, m->nnodes);
    if (line != NULL)
        fprintf(stderr, "%s\n", line);
    free(line);
    free(hosts);
}

/* via: the direct child the frame came through. */
static void handle_hello(struct mpirun *m, struct node *via, ol_rbuf_t *rb)
{
    ol_msg_hello_t h;
    if (ol_msg_hello_decode(rb, &h) != 0) {
        job_failed(m, ol_xasprintf("mpirun: the daemon on host %s sent a bad HELLO (another ompi-lite version?)",
                                   node_host(via)), 1);
        return;
    }
    struct node *n = h.node_id < m->nnodes ? &m->nodes[h.node_id] : NULL;
    if (n == NULL || (n != via && ol_tree_next_hop(OL_TREE_ROOT, h.node_id, m->fanout) != via->id) ||
        n->state != NODE_STARTING) {
        ol_log(OL_LOG_WARN, "ignoring an unexpected HELLO for node %u", h.node_id);
        ol_msg_hello_free(&h);
        return;
    }
    ol_trace("HELLO from daemon %u (%s)", n->id, h.hostname);
    n->state = NODE_UP;
    n->host = h.hostname;
    n->port = h.port;
    n->addrs = h.addrs;
    n->netifs = h.netifs;
    if (m->failed) /* e.g. Ctrl-C during start-up: the KILL went out before */
        ol_frame_send(n == via ? n->bev : via->bev, OL_MSG_KILL, NULL);
    if (n->late) {
        if (!m->failed)
            late_node_up(m, n);
        return;
    }
    uint32_t first, count;
    ol_tree_children(n->id, m->fanout, m->nnodes, &first, &count);
    for (uint32_t i = 0; i < count && !m->failed; i++)
        start_node(m, &m->nodes[first + i]);
    if (++m->nhello == m->nnodes && !m->failed) {
        warn_slow_links(m);
        send_launch(m);
    }
}

/* The first job (0) or spawn k's namespace, or NULL. */
static const ol_msg_launch_t *namespace_of(const struct mpirun *m, uint32_t spawn_no)
{
    if (spawn_no == 0)
        return &m->job;
    return spawn_no <= m->nspawns ? &m->spawns[spawn_no - 1]->job : NULL;
}

/* The direct children whose subtree holds processes of namespace j: the
 * parts its fences wait for. */
static uint32_t fence_parts(const struct mpirun *m, const ol_msg_launch_t *j)
{
    uint32_t parts = 0;
    for (uint32_t c = 0; c < m->nchildren; c++)
        parts += ol_tree_subtree_holds(m->child_first + c, m->fanout, j->rank_node, j->job_size);
    return parts;
}

static void handle_fence_up(struct mpirun *m, ol_rbuf_t *rb)
{
    ol_msg_fence_t f;
    if (ol_msg_fence_decode(rb, &f) != 0)
        return;
    const ol_msg_launch_t *j = namespace_of(m, f.spawn_no);
    if (j == NULL)
        return;
    struct fence **pp = &m->fences;
    while (*pp != NULL && ((*pp)->spawn_no != f.spawn_no || (*pp)->seq != f.seq))
        pp = &(*pp)->next;
    if (*pp == NULL) {
        *pp = ol_xcalloc(1, sizeof **pp);
        (*pp)->spawn_no = f.spawn_no;
        (*pp)->seq = f.seq;
    }
    struct fence *fc = *pp;
    /* Blobs of PMIx servers concatenate: PMIx unpacks them one by one. */
    ol_w_append(&fc->data, f.data, f.len);
    if (++fc->count < fence_parts(m, j))
        return;
    ol_msg_fence_t down = { .spawn_no = fc->spawn_no, .seq = fc->seq, .data = fc->data.data,
                            .len = (uint32_t)fc->data.len };
    ol_wbuf_t w = { 0 };
    ol_msg_fence_encode(&down, &w);
    send_down_all(m, OL_MSG_FENCE_DOWN, &w);
    ol_wbuf_free(&w);
    *pp = fc->next;
    ol_wbuf_free(&fc->data);
    free(fc);
}

static void route_down(struct mpirun *m, uint32_t target, uint16_t type, const uint8_t *body, uint32_t len)
{
    struct node *hop = target < m->nnodes ? hop_to(m, target) : NULL;
    if (hop != NULL)
        ol_frame_send_raw(hop->bev, type, body, len);
}

/* ---- PMIx_Spawn (README.md, "Spawn") ---- */

static void spawn_start(struct mpirun *m);
static void late_node_failed(struct mpirun *m, struct node *n, const char *why);
static int listen_for_daemons(struct mpirun *m, char **err);
static char **ipv4_strings(const struct ol_hostid *id);

/* Answers the asking daemon's rank, and serves the next spawn in line. */
static void spawn_reply(struct mpirun *m, int32_t status, const char *nspace)
{
    struct spawn_op *op = m->spawn_ops;
    ol_msg_spawn_done_t done = { .req_id = op->req.req_id, .to_node = op->req.from_node, .status = status,
                                 .nspace = (char *)nspace };
    ol_wbuf_t w = { 0 };
    ol_msg_spawn_done_encode(&done, &w);
    route_down(m, op->req.from_node, OL_MSG_SPAWN_DONE, w.data, (uint32_t)w.len);
    ol_wbuf_free(&w);
    m->spawn_ops = op->next;
    ol_msg_spawn_req_free(&op->req);
    free(op->err_prog);
    free(op->node_of);
    free(op);
    if (m->spawn_ops != NULL)
        spawn_start(m);
}

static void spawn_enqueue(struct mpirun *m, struct spawn_op *op)
{
    struct spawn_op **pp = &m->spawn_ops;
    while (*pp != NULL)
        pp = &(*pp)->next;
    *pp = op;
    if (m->spawn_ops == op)
        spawn_start(m);
}

/* The node a host name of PMIX_HOST/PMIX_HOSTFILE means, or OL_NO_NODE. */
static uint32_t node_named(struct mpirun *m, const char *name)
{
    for (uint32_t i = 0; i < m->nnodes; i++) {
        const struct node *n = &m->nodes[i];
        if (strcmp(n->name, name) == 0 || (n->host != NULL && strcmp(n->host, name) == 0) ||
            (n->local && (strcmp(name, "localhost") == 0 || strcmp(name, ol_hostname()) == 0)))
            return i;
    }
    return OL_NO_NODE;
}

/* A new node for host h, started once the spawn is placed (a flat tree
 * only: every daemon is mpirun's child, so no daemon needs to take a
 * child); OL_NO_NODE when there is no room. */
static uint32_t node_add(struct mpirun *m, const struct ol_host *h)
{
    if (m->nnodes >= m->nodes_cap || m->nnodes >= m->fanout)
        return OL_NO_NODE;
    uint32_t id = m->nnodes++;
    m->nodes[id] = (struct node){ .m = m, .id = id, .name = ol_xstrdup(h->name), .local = h->id.self,
                                  .ips = ipv4_strings(&h->id), .slots = h->slots, .late = true };
    m->nchildren = m->nnodes;
    return id;
}

/* Nodes added by a placement that then failed: never started, forgotten. */
static void nodes_forget(struct mpirun *m, uint32_t keep)
{
    while (m->nnodes > keep) {
        struct node *n = &m->nodes[--m->nnodes];
        for (size_t h = 0; h < m->hosts.n; h++) {
            if (m->host_node[h] == n->id)
                m->host_node[h] = OL_NO_NODE;
        }
        free(n->name);
        ol_strv_free(n->ips);
        memset(n, 0, sizeof *n);
    }
    m->nchildren = m->nnodes;
}

static int32_t too_many_hosts(struct mpirun *m, const char *name, char **why)
{
    *why = ol_xasprintf("host %s would make the job's hosts more than %u (OMPI_LITE_TREE_FANOUT): "
                        "hosts join a running job only while every daemon is mpirun's child",
                        name, m->fanout);
    return PMIX_ERR_OUT_OF_RESOURCE;
}

/* The node for a host the spawn names: a node of the job, a host of the
 * job's hostfile without a daemon yet, or (add = true: add-host, a
 * spawn's hostfile) any host. New nodes get a daemon once the spawn is
 * placed. PMIx status, *id or *why. */
static int32_t node_for_host(struct mpirun *m, const struct ol_host *h, bool add, uint32_t *id, char **why)
{
    *id = node_named(m, h->name);
    if (*id != OL_NO_NODE && m->nodes[*id].state == NODE_DEAD) {
        *why = ol_xasprintf("host %s is gone (its daemon ended or could not start)", h->name);
        return PMIX_ERR_NOT_FOUND;
    }
    if (*id != OL_NO_NODE)
        return PMIX_SUCCESS;
    for (size_t k = 0; k < m->hosts.n; k++) {
        if (!ol_host_same(&m->hosts.v[k], h))
            continue;
        if (m->host_node[k] != OL_NO_NODE) {
            *id = m->host_node[k];
            return PMIX_SUCCESS;
        }
        if ((*id = node_add(m, &m->hosts.v[k])) == OL_NO_NODE)
            return too_many_hosts(m, h->name, why);
        m->host_node[k] = *id;
        return PMIX_SUCCESS;
    }
    if (!add) {
        *why = ol_xasprintf("host %s is not a host of this job (the info key add-host adds one)", h->name);
        return PMIX_ERR_NOT_FOUND;
    }
    if ((*id = node_add(m, h)) == OL_NO_NODE)
        return too_many_hosts(m, h->name, why);
    return PMIX_SUCCESS;
}

/* Marks in allowed[] the nodes an app may use: those its host, hostfile
 * and add-host keys name (starting daemons there where none runs), or
 * every node. PMIx status, *why on failure. */
static int32_t allowed_nodes(struct mpirun *m, const ol_spawn_app_t *app, bool *allowed, char **why)
{
    struct ol_hostlist named = { 0 }, added = { 0 };
    char *err = NULL;
    bool any = app->host != NULL || app->hostfile != NULL || app->add_host != NULL;
    for (uint32_t i = 0; i < m->nodes_cap; i++)
        allowed[i] = !any;
    if ((app->host != NULL && ol_hostlist_parse_hosts(app->host, &named, &err) != 0) ||
        (app->add_host != NULL && ol_hostlist_parse_hosts(app->add_host, &added, &err) != 0) ||
        (app->hostfile != NULL && ol_hostfile_read(app->hostfile, &added, &err) != 0)) {
        *why = err;
        ol_hostlist_free(&named);
        ol_hostlist_free(&added);
        return PMIX_ERR_NOT_FOUND;
    }
    ol_hostlist_unify(&named, (int)m->opts.resolve_ms);
    ol_hostlist_unify(&added, (int)m->opts.resolve_ms);
    int32_t st = PMIX_SUCCESS;
    struct ol_hostlist *lists[2] = { &named, &added };
    for (int l = 0; l < 2 && st == PMIX_SUCCESS; l++) {
        for (size_t h = 0; h < lists[l]->n && st == PMIX_SUCCESS; h++) {
            uint32_t id;
            st = node_for_host(m, &lists[l]->v[h], l == 1, &id, why);
            if (st == PMIX_SUCCESS)
                allowed[id] = true;
        }
    }
    ol_hostlist_free(&named);
    ol_hostlist_free(&added);
    return st;
}

/* Free slots of node i (slots minus its running processes) into node_of. */
static void fill_slots(struct mpirun *m, uint32_t i, long *used, uint32_t *node_of, uint32_t *next, uint32_t *left)
{
    while (used[i] < m->nodes[i].slots && *left > 0) {
        used[i]++;
        node_of[(*next)++] = i;
        --*left;
    }
}

/* Places every process of the spawn: free slots of the allowed nodes in
 * node order (slots minus running processes); where no host is named and
 * those do not suffice, the job's hostfile hosts that run no daemon yet, in
 * their order; then, oversubscribed, round robin. PMIx status, *why on
 * failure. */
static int32_t place_spawn(struct mpirun *m, const ol_msg_spawn_req_t *req, uint32_t *node_of, char **why)
{
    long *used = ol_xcalloc(m->nodes_cap, sizeof *used);
    bool *allowed = ol_xcalloc(m->nodes_cap, sizeof *allowed);
    for (uint32_t g = 0; g < m->nprocs; g++)
        used[m->proc_node[g]] += m->rank_running[g];
    int32_t st = PMIX_SUCCESS;
    uint32_t next = 0;
    for (uint32_t a = 0; a < req->napps && st == PMIX_SUCCESS; a++) {
        const ol_spawn_app_t *app = &req->apps[a];
        st = allowed_nodes(m, app, allowed, why);
        uint32_t left = app->maxprocs;
        for (uint32_t i = 0; i < m->nnodes && left > 0 && st == PMIX_SUCCESS; i++) {
            if (allowed[i])
                fill_slots(m, i, used, node_of, &next, &left);
        }
        bool any = app->host != NULL || app->hostfile != NULL || app->add_host != NULL;
        for (size_t h = 0; h < m->hosts.n && left > 0 && !any && st == PMIX_SUCCESS; h++) {
            if (m->host_node[h] != OL_NO_NODE || m->hosts.v[h].slots <= 0)
                continue;
            uint32_t id = node_add(m, &m->hosts.v[h]);
            if (id == OL_NO_NODE)
                break; /* no room for daemons: oversubscribe the others, or refuse */
            m->host_node[h] = id;
            allowed[id] = true;
            fill_slots(m, id, used, node_of, &next, &left);
        }
        if (st == PMIX_SUCCESS && left > 0 && !m->opts.oversubscribe) {
            *why = ol_xasprintf("%u processes of %s need %u more slots than the hosts have free "
                                "(--oversubscribe or OMPI_LITE_OVERSUBSCRIBE=1 allows more)",
                                app->maxprocs, app->cmd, left);
            st = PMIX_ERR_OUT_OF_RESOURCE;
        }
        for (uint32_t i = 0; st == PMIX_SUCCESS && left > 0; i = (i + 1) % m->nnodes) {
            if (allowed[i]) {
                node_of[next++] = i;
                left--;
            }
        }
    }
    free(used);
    free(allowed);
    return st;
}

/* The nodes' names as the node maps give them: the first job's (named
 * after HELLO), then those of the nodes added since (malloc'd). */
static char **node_names(const struct mpirun *m)
{
    char **v = ol_strv_dup(m->job.nodes);
    for (uint32_t i = (uint32_t)ol_strv_len(m->job.nodes); i < m->nnodes; i++)
        ol_strv_append(&v, node_host(&m->nodes[i]));
    return v;
}

/* The new namespace as SPAWN carries it: the first job's settings, the
 * apps of the call. */
static void build_spawn(struct mpirun *m, const ol_msg_spawn_req_t *req, uint32_t np, uint32_t *node_of,
                        ol_msg_spawn_t *sp)
{
    ol_msg_launch_t *j = &sp->job;
    sp->spawn_no = m->nspawns + 1;
    sp->gid_base = m->nprocs;
    sp->parent_gid = req->parent_gid;
    /* The first job's namespace is a secret of 128 random bits; this one
     * shares it. */
    j->nspace = ol_xasprintf("%s.spawn%u", m->job.nspace, sp->spawn_no);
    j->job_size = np;
    j->nodes = node_names(m);
    j->rank_node = node_of;
    j->stdin_rank = OL_NO_RANK;
    j->kill_grace_ms = m->job.kill_grace_ms;
    /* Bound by the first job's rules, after the processes running there
     * (daemon_ranks.c). */
    j->map_by = m->job.map_by;
    j->bind_to = m->job.bind_to;
    j->report_bindings = m->job.report_bindings;
    j->pe = m->job.pe;
    j->univ_size = m->job.univ_size;
    j->cwd = ol_xstrdup(m->job.cwd);
    j->env = ol_strv_dup(m->job.env);
    j->napps = req->napps;
    j->apps = ol_xcalloc(req->napps, sizeof *j->apps);
    uint32_t first = 0;
    for (uint32_t a = 0; a < req->napps; a++) {
        const ol_spawn_app_t *in = &req->apps[a];
        ol_app_t *app = &j->apps[a];
        app->first_rank = first;
        app->np = in->maxprocs;
        app->exe = ol_xstrdup(in->cmd);
        app->argv = ol_strv_dup(in->argv);
        app->env = ol_strv_dup(in->env);
        app->cwd = in->cwd != NULL ? ol_xstrdup(in->cwd) : NULL;
        app->path = in->path != NULL ? ol_xstrdup(in->path) : NULL;
        first += in->maxprocs;
    }
}

/* Distinct nodes of the spawn's processes: the acks to wait for. */
static uint32_t spawn_node_count(const struct mpirun *m, const ol_msg_launch_t *j)
{
    bool *seen = ol_xcalloc(m->nnodes, sizeof *seen);
    uint32_t n = 0;
    for (uint32_t r = 0; r < j->job_size; r++) {
        n += !seen[j->rank_node[r]];
        seen[j->rank_node[r]] = true;
    }
    free(seen);
    return n;
}

static void spawn_failed(struct mpirun *m, int32_t status, char *why)
{
    const struct spawn_op *op = m->spawn_ops;
    char *parent = proc_label(m, op->req.parent_gid);
    fprintf(stderr, "mpirun: %s could not spawn %s: %s\n", parent, op->req.apps[0].cmd, why);
    free(parent);
    free(why);
    spawn_reply(m, status, NULL);
}

/* Sends SPAWN for the placed processes: every daemon runs by now. */
static void spawn_send(struct mpirun *m, struct spawn_op *op)
{
    build_spawn(m, &op->req, op->np, op->node_of, &op->sp);
    op->node_of = NULL; /* the message owns it */
    op->acks_wanted = spawn_node_count(m, &op->sp.job);
    op->phase = 0;
    ol_wbuf_t w = { 0 };
    ol_msg_spawn_encode(&op->sp, &w);
    send_down_all(m, OL_MSG_SPAWN, &w);
    ol_wbuf_free(&w);
}

/* The listener for remote daemons, made when the first one is started
 * (a job of this host alone has none until then). */
static int ensure_listening(struct mpirun *m, char **err)
{
    if (m->nlisten > 0)
        return 0;
    ol_strv_free(m->addrs);
    m->addrs = NULL;
    return listen_for_daemons(m, err);
}

/* Starts daemons on the nodes from `first` on, which the spawn being
 * served waits for (late_node_up). */
static void start_late_nodes(struct mpirun *m, struct spawn_op *op, uint32_t first)
{
    uint32_t last = m->nnodes;
    for (uint32_t i = first; i < last; i++) {
        struct node *n = &m->nodes[i];
        char *err = NULL;
        if (!n->local && ensure_listening(m, &err) != 0) {
            late_node_failed(m, n, err);
            free(err);
            return;
        }
        n->awaited = true;
        op->starting++;
        start_node(m, n);
        if (m->spawn_ops != op)
            return; /* it failed, and the spawn with it */
    }
}

static void spawn_start(struct mpirun *m)
{
    struct spawn_op *op = m->spawn_ops;
    uint64_t np = 0;
    for (uint32_t a = 0; a < op->req.napps; a++)
        np += op->req.apps[a].maxprocs;
    if (m->killing || m->shutdown_sent || !m->launched) {
        spawn_reply(m, PMIX_ERR_JOB_TERMINATED, NULL);
        return;
    }
    if (np + m->nprocs > OL_NP_MAX || m->nspawns + 1 >= 1024 /* the daemons' OL_MAX_NSPACES */) {
        spawn_failed(m, PMIX_ERR_OUT_OF_RESOURCE,
                     ol_xasprintf("the job would exceed %ld processes or 1023 spawns", OL_NP_MAX));
        return;
    }
    uint32_t *node_of = ol_xcalloc(np, sizeof *node_of);
    char *why = NULL;
    uint32_t nodes_before = m->nnodes;
    int32_t st = place_spawn(m, &op->req, node_of, &why);
    if (st != PMIX_SUCCESS) {
        nodes_forget(m, nodes_before);
        free(node_of);
        spawn_failed(m, st, why);
        return;
    }
    op->node_of = node_of;
    op->np = (uint32_t)np;
    if (m->nnodes > nodes_before)
        start_late_nodes(m, op, nodes_before);
    else
        spawn_send(m, op);
}

/* A daemon started for a spawn said HELLO: it learns the job (LAUNCH with
 * the current node names; no rank of the first job runs there) and every
 * spawn so far (SPAWN, SPAWN_GO), as a daemon that was there from the
 * start knows them; the spawn goes on once all its daemons are up. */
static void late_node_up(struct mpirun *m, struct node *n)
{
    char **first_nodes = m->job.nodes;
    m->job.nodes = node_names(m);
    ol_wbuf_t w = { 0 };
    ol_msg_launch_encode(&m->job, &w);
    ol_frame_send(n->bev, OL_MSG_LAUNCH, &w);
    ol_wbuf_free(&w);
    ol_strv_free(m->job.nodes);
    m->job.nodes = first_nodes;
    for (uint32_t k = 0; k < m->nspawns; k++) {
        ol_wbuf_t b = { 0 };
        ol_msg_spawn_encode(m->spawns[k], &b);
        ol_frame_send(n->bev, OL_MSG_SPAWN, &b);
        ol_wbuf_free(&b);
        ol_msg_spawn_go_encode(m->spawns[k]->spawn_no, 1, &b);
        ol_frame_send(n->bev, OL_MSG_SPAWN_GO, &b);
        ol_wbuf_free(&b);
    }
    struct spawn_op *op = m->spawn_ops;
    if (!n->awaited || op == NULL)
        return;
    n->awaited = false;
    if (--op->starting == 0)
        spawn_send(m, op);
}

/* A daemon started for a spawn could not start: the spawn fails (the job
 * goes on), with the agent's words. */
static void late_node_failed(struct mpirun *m, struct node *n, const char *why)
{
    if (strncmp(why, "mpirun: ", 8) == 0)
        why += 8; /* the start's own lines begin so; ours is a spawn's line */
    n->state = NODE_DEAD;
    /* Nodes of the same placement not started yet never will be. */
    for (uint32_t i = 0; i < m->nnodes; i++) {
        if (m->nodes[i].state == NODE_NEW)
            m->nodes[i].state = NODE_DEAD;
    }
    struct spawn_op *op = m->spawn_ops;
    if (!n->awaited || op == NULL) {
        fprintf(stderr, "mpirun: %s\n", why);
        return;
    }
    for (uint32_t i = 0; i < m->nnodes; i++)
        m->nodes[i].awaited = false;
    op->starting = 0;
    free(op->node_of);
    op->node_of = NULL;
    spawn_failed(m, PMIX_ERR_NOT_FOUND, ol_xstrdup(why));
}

static void spawn_go(struct mpirun *m, struct spawn_op *op, uint8_t go)
{
    ol_wbuf_t w = { 0 };
    ol_msg_spawn_go_encode(op->sp.spawn_no, go, &w);
    send_down_all(m, OL_MSG_SPAWN_GO, &w);
    ol_wbuf_free(&w);
}

/* The programs are there on every host: the processes become part of the
 * job (the job ends only when they end too), and start. */
static void spawn_commit(struct mpirun *m, struct spawn_op *op)
{
    ol_msg_launch_t *j = &op->sp.job;
    m->spawns = realloc(m->spawns, (m->nspawns + 1) * sizeof *m->spawns);
    m->proc_node = realloc(m->proc_node, (m->nprocs + j->job_size) * sizeof *m->proc_node);
    m->rank_running = realloc(m->rank_running, m->nprocs + j->job_size);
    if (m->spawns == NULL || m->proc_node == NULL || m->rank_running == NULL)
        ol_xmalloc(SIZE_MAX); /* reports and aborts */
    ol_msg_spawn_t *sp = ol_xmalloc(sizeof *sp);
    *sp = op->sp;
    memset(&op->sp, 0, sizeof op->sp);
    m->spawns[m->nspawns++] = sp;
    for (uint32_t r = 0; r < sp->job.job_size; r++) { /* op->sp (j) is cleared by now */
        m->proc_node[m->nprocs + r] = sp->job.rank_node[r];
        m->rank_running[m->nprocs + r] = 1;
        /* A daemon whose ranks were all done has work again. */
        if (m->nodes[sp->job.rank_node[r]].state == NODE_DONE)
            m->nodes[sp->job.rank_node[r]].state = NODE_UP;
    }
    m->nprocs += sp->job.job_size;
    op->acks = 0;
    op->phase = 1;
    struct spawn_op tmp = { .sp = *sp };
    spawn_go(m, &tmp, 1);
}

static void spawn_acked(struct mpirun *m, const ol_msg_spawn_ack_t *a)
{
    struct spawn_op *op = m->spawn_ops;
    uint32_t no = op == NULL ? 0 : op->phase == 0 ? op->sp.spawn_no : m->nspawns;
    if (op == NULL || a->spawn_no != no || a->phase != op->phase)
        return;
    if (a->err != 0 && op->err == 0) {
        op->err = a->err;
        op->err_prog = ol_xstrdup(a->text != NULL ? a->text : "?");
        op->err_node = a->node_id < m->nnodes ? a->node_id : 0;
    }
    if (++op->acks < op->acks_wanted)
        return;
    if (op->phase == 0 && op->err != 0) {
        /* Nothing started anywhere: the daemons forget it. */
        spawn_go(m, op, 0);
        ol_msg_launch_free(&op->sp.job);
        char *why = ol_xasprintf("cannot execute %s on host %s: %s", op->err_prog,
                                 node_host(&m->nodes[op->err_node]), strerror(op->err));
        spawn_failed(m, OL_SPAWN_ERRNO_STATUS(op->err), why);
    } else if (op->phase == 0) {
        spawn_commit(m, op);
    } else if (op->err != 0) {
        /* A daemon could not register or fork: the job ends, as at start. */
        job_failed(m, ol_xasprintf("mpirun: daemon on host %s: spawn %u: %s", node_host(&m->nodes[op->err_node]),
                                   m->nspawns, op->err_prog), 1);
        spawn_reply(m, PMIX_ERROR, NULL);
    } else {
        spawn_reply(m, PMIX_SUCCESS, m->spawns[m->nspawns - 1]->job.nspace);
    }
}

/* A rank's PMIx_Publish, PMIx_Lookup or PMIx_Unpublish, through its
 * daemon: answered at once from the job's table (never waits). */
static void handle_name_req(struct mpirun *m, ol_rbuf_t *rb)
{
    ol_msg_name_t req, resp = { 0 };
    if (ol_msg_name_decode(rb, &req) != 0)
        return;
    resp.req_id = req.req_id;
    resp.node = req.node;
    resp.op = req.op;
    resp.status = ol_names_serve(m->names, &req, &resp);
    ol_wbuf_t w = { 0 };
    ol_msg_name_encode(&resp, &w);
    route_down(m, req.node, OL_MSG_NAME_RESP, w.data, (uint32_t)w.len);
    ol_wbuf_free(&w);
    ol_msg_name_free(&resp);
    ol_msg_name_free(&req);
}

static void handle_frame(struct mpirun *m, struct node *via, uint16_t type, uint8_t *body, uint32_t len)
{
    ol_rbuf_t rb = { .p = body, .left = len };
    switch (type) {
    case OL_MSG_HELLO:
        handle_hello(m, via, &rb);
        break;
    case OL_MSG_IO: {
        ol_msg_io_t io;
        if (ol_msg_io_decode(&rb, &io) == 0) {
            const ol_msg_spawn_t *sp = spawn_of(m, io.rank);
            ol_output_write(m->out, io.rank, sp ? sp->spawn_no : 0, sp ? io.rank - sp->gid_base : io.rank,
                            io.stream, io.data, io.len);
        }
        if (!m->reading_paused && ol_output_over(m->out))
            set_links_reading(m, false);
        break;
    }
    case OL_MSG_RANK_EXIT: {
        ol_msg_rank_exit_t e;
        if (ol_msg_rank_exit_decode(&rb, &e) == 0) {
            rank_ended(m, &e);
            ol_msg_rank_exit_free(&e);
        }
        break;
    }
    case OL_MSG_ERROR:
    case OL_MSG_LOST: {
        ol_msg_error_t e;
        if (ol_msg_error_decode(&rb, &e) != 0 || e.node_id >= m->nnodes)
            break;
        struct node *n = &m->nodes[e.node_id];
        if (type == OL_MSG_ERROR)
            job_failed(m, ol_xasprintf("mpirun: daemon on host %s: %s", node_host(n), e.text), 1);
        else if (m->shutdown_sent)
            /* After the job (a daemon's own end took too long): said, but
             * the job's outcome is the ranks', already known. */
            fprintf(stderr, "mpirun: the ompi-lite daemon on host %s %s\n", node_host(n), e.text);
        else if (n->state == NODE_STARTING && n->pid > 0 && !n->reaped)
            ; /* not connected yet: its agent's exit tells more */
        else
            node_lost(m, n, e.text);
        ol_msg_error_free(&e);
        break;
    }
    case OL_MSG_JOB_DONE: {
        uint32_t id;
        if (ol_msg_u32_decode(&rb, &id) == 0 && id < m->nnodes && m->nodes[id].state == NODE_UP) {
            m->nodes[id].state = NODE_DONE;
            check_finished(m);
        }
        break;
    }
    case OL_MSG_FENCE_UP:
        handle_fence_up(m, &rb);
        break;
    case OL_MSG_DMODEX_REQ: {
        ol_msg_dmodex_t d;
        if (ol_msg_dmodex_req_decode(&rb, &d) == 0 && d.rank < m->nprocs)
            route_down(m, m->proc_node[d.rank], type, body, len);
        break;
    }
    case OL_MSG_DMODEX_RESP: {
        ol_msg_dmodex_t d;
        if (ol_msg_dmodex_resp_decode(&rb, &d) == 0)
            route_down(m, d.node, type, body, len);
        break;
    }
    case OL_MSG_STATE:
        handle_state(m, &rb);
        break;
    case OL_MSG_SPAWN_REQ: {
        struct spawn_op *op = ol_xcalloc(1, sizeof *op);
        if (ol_msg_spawn_req_decode(&rb, &op->req) != 0) {
            free(op);
            break;
        }
        spawn_enqueue(m, op);
        break;
    }
    case OL_MSG_NAME_REQ:
        handle_name_req(m, &rb);
        break;
    case OL_MSG_SPAWN_ACK: {
        ol_msg_spawn_ack_t a;
        if (ol_msg_spawn_ack_decode(&rb, &a) == 0) {
            spawn_acked(m, &a);
            free(a.text);
        }
        break;
    }
    case OL_MSG_PING:
        break;
    default:
        ol_log(OL_LOG_WARN, "ignoring unexpected %s message from a daemon", ol_msg_type_name(type));
        break;
    }
}

static void link_closed(struct mpirun *m, struct node *n, short what)
{
    if (n->link_closed)
        return;
    n->link_closed = true;
    int err = EVUTIL_SOCKET_ERROR();
    if (n->state == NODE_STARTING)
        node_lost(m, n, "could not start or failed during start-up");
    else if ((what & BEV_EVENT_ERROR) && err != 0 && err != ECONNRESET) {
        char *why = ol_xasprintf("stopped answering (%s): the host or its network is gone", strerror(err));
        node_lost(m, n, why);
        free(why);
    } else {
        node_lost(m, n, "exited unexpectedly");
    }
    check_finished(m);
}

static void on_link_read(struct bufferevent *bev, void *arg)
{
    struct node *n = arg;
    uint16_t type;
    uint8_t *body;
    uint32_t len;
    int rc;
    while (!n->link_closed && (rc = ol_frame_pop(bufferevent_get_input(bev), &type, &body, &len)) != 0) {
        if (rc < 0) {
            job_failed(n->m, ol_xasprintf("mpirun: malformed message from the daemon on %s", node_host(n)), 1);
            kill_started(n->m, SIGKILL);
            return;
        }
        handle_frame(n->m, n, type, body, len);
        free(body);
    }
}

static void on_link_event(struct bufferevent *bev, short what, void *arg)
{
    struct node *n = arg;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
        on_link_read(bev, arg); /* anything still buffered comes first */
        link_closed(n->m, n, what);
    }
}

static void attach_link(struct mpirun *m, struct node *n, struct bufferevent *bev, bool tcp)
{
    n->bev = bev;
    n->tcp = tcp;
    bufferevent_setcb(bev, on_link_read, on_link_drained, on_link_event, n);
    bufferevent_enable(bev, m->reading_paused ? EV_WRITE : EV_READ | EV_WRITE);
}

/* ---- TCP: accepting daemons that prove the key ---- */

static void pconn_free(struct mpirun *m, struct pconn *p, bool keep_bev)
{
    for (struct pconn **pp = &m->pending; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            m->npending--;
            break;
        }
    }
    if (!keep_bev)
        bufferevent_free(p->bev);
    event_free(p->timer);
    free(p);
}

static void on_pconn_read(struct bufferevent *bev, void *arg)
{
    struct pconn *p = arg;
    struct mpirun *m = p->m;
    uint16_t type;
    uint8_t *body;
    uint32_t len, id;
    int rc = ol_handshake_read(bufferevent_get_input(bev), m->key, &p->authed, &type, &body,
                               &len, &id);
    if (rc == 0)
        return;
    if (rc > 0 && id < m->nnodes && ol_tree_parent(id, m->fanout) == OL_TREE_ROOT &&
        m->nodes[id].bev == NULL && m->nodes[id].state == NODE_STARTING) {
        struct node *n = &m->nodes[id];
        pconn_free(m, p, true);
        bufferevent_setwatermark(bev, EV_READ, 0, 0);
        attach_link(m, n, bev, true);
        handle_frame(m, n, type, body, len);
        free(body);
        on_link_read(bev, n); /* frames that came with it */
        return;
    }
    if (rc > 0)
        free(body);
    /* Wrong key, a malformed frame or an unexpected daemon: drop it. */
    ol_info("dropped a connection that did not prove the job key");
    pconn_free(m, p, false);
}

static void on_pconn_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    struct pconn *p = arg;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        pconn_free(p->m, p, false);
}

static void on_pconn_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct pconn *p = arg;
    pconn_free(p->m, p, false);
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
    (void)what;
    struct mpirun *m = arg;
    int fd;
    while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
        ol_net_tune(fd, (unsigned)m->opts.link_timeout_ms);
        if (m->npending >= OL_NET_PENDING_MAX) {
            struct pconn *oldest = m->pending;
            while (oldest->next != NULL)
                oldest = oldest->next;
            ol_info("too many connections without the key: dropped the oldest");
            pconn_free(m, oldest, false);
        }
        struct pconn *p = ol_xcalloc(1, sizeof *p);
        p->m = m;
        p->bev = bufferevent_socket_new(m->base, fd, BEV_OPT_CLOSE_ON_FREE);
        p->timer = evtimer_new(m->base, on_pconn_timeout, p);
        struct timeval tv = { AUTH_TIMEOUT_S, 0 };
        evtimer_add(p->timer, &tv);
        /* A stranger costs at most this much buffer until the key is proved. */
        bufferevent_setwatermark(p->bev, EV_READ, 0, OL_HANDSHAKE_MAX);
        bufferevent_setcb(p->bev, on_pconn_read, NULL, on_pconn_event, p);
        bufferevent_enable(p->bev, EV_READ | EV_WRITE);
        p->next = m->pending;
        m->pending = p;
        m->npending++;
    }
}

static void on_ping(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct mpirun *m = arg;
    for (uint32_t i = 0; i < m->nchildren; i++) {
        struct node *n = &m->nodes[m->child_first + i];
        if (n->tcp && !n->link_closed)
            ol_frame_send(n->bev, OL_MSG_PING, NULL);
    }
}

/* ---- starting daemons ---- */

static void agent_failed(struct mpirun *m, struct node *n)
{
    char *why;
    const char *tail = n->agent_tail && *n->agent_tail ? n->agent_tail : NULL;
    if (tail == NULL && WIFEXITED(n->wstatus))
        why = ol_xasprintf("it exited with status %d", WEXITSTATUS(n->wstatus));
    else if (tail == NULL)
        why = ol_xasprintf("it was killed by signal %d", WTERMSIG(n->wstatus));
    else
        why = ol_xstrdup(tail);
    char *line = ol_xasprintf("cannot start the ompi-lite daemon on host %s with '%s': %s", n->name,
                              m->opts.launch_agent ? m->opts.launch_agent : "ssh", why);
    free(why);
    if (n->late) {
        late_node_failed(m, n, line); /* the spawn fails; the job goes on */
        free(line);
        check_finished(m);
        return;
    }
    mark_subtree_dead(m, n->id);
    job_failed(m, ol_xasprintf("mpirun: %s", line), 1);
    free(line);
    check_finished(m);
}

static void on_agent_out(struct bufferevent *bev, void *arg)
{
    struct node *n = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    char *line;
    size_t len;
    while ((line = evbuffer_readln(in, &len, EVBUFFER_EOL_CRLF)) != NULL) {
        if (n->state == NODE_STARTING || n->state == NODE_NEW) {
            /* Keep the last line: it says why the agent failed, if it does. */
            if (len > 0 && len < AGENT_TAIL_MAX) {
                free(n->agent_tail);
                n->agent_tail = line;
                continue;
            }
        } else {
            /* The daemon's own warnings, once it runs. */
            char *l = ol_xasprintf("%s\n", line);
            (void)ol_write_all(STDERR_FILENO, l, strlen(l));
            free(l);
        }
        free(line);
    }
}

static void on_agent_out_event(struct bufferevent *bev, short what, void *arg)
{
    struct node *n = arg;
    if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
        return;
    on_agent_out(bev, arg);
    /* A last line without a newline. */
    struct evbuffer *in = bufferevent_get_input(bev);
    size_t len = evbuffer_get_length(in);
    if (len > 0 && len < AGENT_TAIL_MAX && n->state == NODE_STARTING) {
        free(n->agent_tail);
        n->agent_tail = ol_xmalloc(len + 1);
        evbuffer_remove(in, n->agent_tail, len);
        n->agent_tail[len] = '\0';
    }
    bufferevent_free(n->agent_out);
    n->agent_out = NULL;
    if (n->agent_exited_early)
        agent_failed(n->m, n);
}

/* The IPv4 addresses of this host's interfaces that the job uses
 * (OMPI_LITE_IFNAME, or the default rule: no loopback, no container
 * bridge); none where it uses RDMA ports only. */
static char **selected_addrs(const struct mpirun *m)
{
    char **v = ol_xcalloc(1, sizeof *v);
    for (size_t i = 0; i < m->netifs.n && ol_strv_len(v) < OL_NET_LISTEN_MAX; i++) {
        if (m->netifs.ifs[i].selected && m->netifs.ifs[i].addr[0])
            ol_strv_append(&v, m->netifs.ifs[i].addr);
    }
    return v;
}

/* The addresses from which this host reaches the hosts of the daemons
 * whose tree parent is `parent`: where those daemons will connect to. With
 * OMPI_LITE_IFNAME, those of the interfaces it takes: the daemons' links
 * then take that network too, as the ranks do. Where one of them has no
 * IPv4 address known here (a name only the launch agent knows), every
 * address of the default rule's interfaces: still never the wildcard, so
 * never loopback, a container bridge or an interface the job does not need. */
static char **addrs_toward_children(struct mpirun *m, uint32_t parent)
{
    char **chosen = m->opts.ifname ? selected_addrs(m) : NULL;
    if (chosen != NULL && chosen[0] != NULL)
        return chosen;
    ol_strv_free(chosen);
    char **peers = ol_xcalloc(1, sizeof *peers);
    bool unknown = false;
    for (uint32_t i = 0; i < m->nnodes; i++) {
        struct node *n = &m->nodes[i];
        if (ol_tree_parent(i, m->fanout) != parent || n->local)
            continue;
        unknown |= n->ips[0] == NULL;
        for (size_t k = 0; n->ips[k] != NULL; k++)
            ol_strv_append(&peers, n->ips[k]);
    }
    char **out = unknown ? NULL : ol_net_source_addrs(peers);
    ol_strv_free(peers);
    if (out == NULL || out[0] == NULL || ol_strv_len(out) > OL_NET_LISTEN_MAX) {
        ol_strv_free(out);
        out = selected_addrs(m);
    }
    if (out[0] == NULL) {
        ol_strv_free(out);
        out = ol_net_local_addrs(false);
    }
    return out;
}

static int listen_for_daemons(struct mpirun *m, char **err)
{
    char *why = NULL;
    m->addrs = addrs_toward_children(m, OL_TREE_ROOT);
    m->nlisten = ol_net_listen(m->addrs, &m->port, m->listen_fds, &why);
    if (m->nlisten < 0) {
        m->nlisten = 0;
        *err = ol_xasprintf("mpirun: %s", why);
        free(why);
        return -1;
    }
    for (int i = 0; i < m->nlisten; i++)
        ol_info("daemons connect to %s:%u%s", m->addrs[i], (unsigned)m->port,
                m->opts.ifname ? " (an interface OMPI_LITE_IFNAME takes)" : "");
    for (int i = 0; i < m->nlisten; i++) {
        m->listen_evs[i] = event_new(m->base, m->listen_fds[i], EV_READ | EV_PERSIST, on_accept, m);
        event_add(m->listen_evs[i], NULL);
    }
    struct timeval tv = { 0, OL_NET_PING_MS * 1000 };
    m->ping_ev = event_new(m->base, -1, EV_PERSIST, on_ping, m);
    event_add(m->ping_ev, &tv);
    return 0;
}

static void start_node(struct mpirun *m, struct node *n)
{
    char *err = NULL, *remote_exe = NULL;
    uint32_t parent = ol_tree_parent(n->id, m->fanout);
    struct ol_daemon_start s = {
        .daemon_exe = m->daemon_exe, .node_id = n->id, .nnodes = m->nnodes, .fanout = m->fanout,
        .key = m->key, .host = n->name, .prefix = m->opts.prefix,
        .link_timeout_ms = m->opts.link_timeout_ms,
        .ifname = m->opts.ifname, .net_test_speed = m->opts.net_test_speed,
    };
    uint32_t first, nkids;
    char **listen = NULL;
    ol_tree_children(n->id, m->fanout, m->nnodes, &first, &nkids);
    if (n->local && parent == OL_TREE_ROOT && nkids > 0)
        s.listen_addrs = listen = addrs_toward_children(m, n->id);
    if (parent == OL_TREE_ROOT) {
        if (!n->local) {
            s.connect_addrs = m->addrs;
            s.connect_port = m->port;
        }
    } else {
        s.connect_addrs = m->nodes[parent].addrs;
        s.connect_port = m->nodes[parent].port;
    }
    if (!n->local) {
        s.agent = m->opts.launch_agent ? m->opts.launch_agent : "ssh";
        if (m->opts.prefix != NULL)
            s.daemon_exe = remote_exe = ol_xasprintf("%s/libexec/ompi-lite-daemon", m->opts.prefix);
    }
    int link_fd, out_fd;
    n->state = NODE_STARTING;
    int started = ol_mpirun_start_daemon(&s, &n->pid, &link_fd, &out_fd, &err);
    ol_strv_free(listen);
    if (started != 0) {
        free(remote_exe);
        if (n->late) {
            late_node_failed(m, n, err);
            free(err);
            return;
        }
        mark_subtree_dead(m, n->id);
        job_failed(m, err, 1);
        return;
    }
    free(remote_exe);
    ol_trace("started daemon %u for host %s (pid %d)", n->id, n->name, (int)n->pid);
    if (link_fd >= 0) {
        ol_set_nonblock(link_fd, true);
        attach_link(m, n, bufferevent_socket_new(m->base, link_fd, BEV_OPT_CLOSE_ON_FREE), false);
    }
    if (out_fd >= 0) {
        ol_set_nonblock(out_fd, true);
        n->agent_out = bufferevent_socket_new(m->base, out_fd, BEV_OPT_CLOSE_ON_FREE);
        bufferevent_setcb(n->agent_out, on_agent_out, NULL, on_agent_out_event, n);
        bufferevent_enable(n->agent_out, EV_READ);
    }
}

/* This host's interfaces and OMPI_LITE_IFNAME's choice among them: where
 * mpirun listens; an IFNAME that takes nothing here stops the job now,
 * naming the host and what it has (each daemon checks its own host). */
static int scan_netifs(struct mpirun *m, char **err)
{
    char *why = NULL;
    if (ol_netif_scan(&m->netifs, m->opts.net_test_speed, &why) == 0 &&
        ol_netif_select(&m->netifs, m->opts.ifname, &why) == 0)
        return 0;
    *err = ol_xasprintf("mpirun: host %s: %s", ol_hostname(), why ? why : "out of memory");
    free(why);
    return -1;
}

static int start_daemons(struct mpirun *m, char **err)
{
    m->daemon_exe = ol_mpirun_find_daemon();
    if (m->daemon_exe == NULL) {
        *err = ol_xasprintf("mpirun: cannot find ompi-lite-daemon next to mpirun, in ../libexec, or in $OMPI_LITE_DAEMON");
        return -1;
    }
    if (scan_netifs(m, err) != 0)
        return -1;
    m->key = ol_net_new_key();
    ol_tree_children(OL_TREE_ROOT, m->fanout, m->nnodes, &m->child_first, &m->nchildren);
    bool need_listen = false;
    for (uint32_t i = 0; i < m->nchildren; i++)
        need_listen |= !m->nodes[m->child_first + i].local;
    if (need_listen && listen_for_daemons(m, err) != 0)
        return -1;
    for (uint32_t i = 0; i < m->nchildren && !m->failed; i++)
        start_node(m, &m->nodes[m->child_first + i]);
    if (m->failed) {
        *err = m->fail_line;
        m->fail_line = NULL;
        return -1;
    }
    return 0;
}

/* ---- signals ---- */

static void reap_children(struct mpirun *m)
{
    int wstatus;
    pid_t pid;
    while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
        for (uint32_t i = 0; i < m->nnodes; i++) {
            struct node *n = &m->nodes[i];
            if (n->pid != pid)
                continue;
            n->reaped = true;
            n->wstatus = wstatus;
            /* An agent that ends before its daemon said HELLO failed to
             * start it: report once its output is read to the end. */
            if (!n->local && n->state == NODE_STARTING) {
                n->agent_exited_early = true;
                if (n->agent_out == NULL)
                    agent_failed(m, n);
            } else if (n->state == NODE_STARTING && n->late) {
                late_node_failed(m, n, "the ompi-lite daemon could not start");
            } else if (n->state == NODE_STARTING) {
                mark_subtree_dead(m, n->id);
                job_failed(m, ol_xasprintf("mpirun: the ompi-lite daemon on host %s could not start", n->name), 1);
            }
        }
    }
    check_finished(m);
}

static void on_signal(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct mpirun *m = arg;
    int sig;
    while ((sig = ol_signalfd_read(fd)) > 0) {
        if (sig == SIGCHLD) {
            reap_children(m);
            continue;
        }
        if (sig == SIGUSR1) {
            if (!report_start(m, false))
                fprintf(stderr, "mpirun: no state report now (%s)\n",
                        m->report ? "one is being gathered" : "the job is not running");
            continue;
        }
        if (++m->nsignals > 1) {
            /* Impatient user: no grace. */
            kill_started(m, SIGKILL);
            continue;
        }
        /* The user wants the job gone: output still queued (a reader that
         * stopped reading) must not hold the kill up. */
        ol_output_drop(m->out);
        if (m->reading_paused)
            set_links_reading(m, true);
        job_failed(m, ol_xasprintf("mpirun: received signal %d (%s); the job was killed", sig,
                                   ol_signal_name(sig)), 128 + sig);
    }
}

/* ---- set-up ---- */

/* The job's PMIx namespace. The PMIx server listens on loopback TCP, where
 * any local user can connect, and a connection that claims a rank of a
 * registered namespace (even one PMIx then refuses) can wedge PMIx 4.2's
 * server; one that names an unknown namespace is turned away harmlessly.
 * So the name carries 128 random bits that only the job's own processes
 * see (their environment); host and pid are for people reading it. */
static char *make_nspace(void)
{
    char *secret = ol_net_random_hex(16);
    char *ns = ol_xasprintf("ompi-lite.%s.%d.%s", ol_hostname(), (int)getpid(), secret);
    free(secret);
    return ns;
}

/* The hosts named by --hostfile and --host; none named: this host with one
 * slot per core. */
static int read_hosts(struct mpirun *m, struct ol_hostlist *hl, char **err)
{
    const struct mpirun_opts *o = &m->opts;
    int resolve_ms = (int)o->resolve_ms;
    if (o->hostfile != NULL) {
        if (ol_hostfile_read(o->hostfile, hl, err) != 0)
            return -1;
        ol_hostlist_unify(hl, resolve_ms);
    }
    if (o->hosts != NULL) {
        struct ol_hostlist given = { 0 };
        if (ol_hostlist_parse_hosts(o->hosts, &given, err) != 0)
            return -1;
        ol_hostlist_unify(&given, resolve_ms);
        if (o->hostfile != NULL) {
            /* --host picks hosts of the hostfile, as in Open MPI, in any
             * spelling of them. */
            for (size_t i = 0; i < given.n; i++) {
                size_t k = 0;
                while (k < hl->n && !ol_host_same(&hl->v[k], &given.v[i]))
                    k++;
                if (k == hl->n) {
                    *err = ol_xasprintf("mpirun: --host names %s, which is not in hostfile '%s'",
                                        given.v[i].name, o->hostfile);
                    ol_hostlist_free(&given);
                    return -1;
                }
                given.v[i].max_slots = hl->v[k].max_slots;
            }
        }
        ol_hostlist_free(hl);
        *hl = given;
    }
    if (hl->n == 0) {
        long cores = ol_mpirun_local_cores();
        ol_hostlist_add(hl, ol_hostname(), strlen(ol_hostname()), cores, 0);
        hl->v[0].id.self = true;
    }
    return 0;
}

/* A host's IPv4 addresses as resolved here, as strings. */
static char **ipv4_strings(const struct ol_hostid *id)
{
    char **v = ol_xcalloc(1, sizeof *v);
    for (size_t i = 0; i < id->naddrs; i++) {
        char buf[INET_ADDRSTRLEN];
        if (id->addrs[i].family == 4 && inet_ntop(AF_INET, id->addrs[i].bytes, buf, sizeof buf) != NULL)
            ol_strv_append(&v, buf);
    }
    return v;
}

/* Ranks are mapped onto hosts; hosts that got ranks become the job's nodes. */
static int build_job(struct mpirun *m, char **err)
{
    struct mpirun_opts *o = &m->opts;
    ol_msg_launch_t *j = &m->job;
    struct ol_hostlist hl = { 0 };
    if (read_hosts(m, &hl, err) != 0) {
        ol_hostlist_free(&hl);
        return -1;
    }
    /* Without a hostfile or --host, the local host has one slot per core:
     * more processes need --oversubscribe (or OMPI_LITE_OVERSUBSCRIBE=1), as
     * with Open MPI's mpirun. */
    struct ol_map_req req = { .by = o->map_by, .pe = o->pe, .npernode = o->npernode,
                              .oversubscribe = o->oversubscribe };
    if (o->napps == 1 && o->apps[0].np == 0) {
        o->apps[0].np = ol_map_default_np(&hl, &req);
        if (o->apps[0].np <= 0) {
            *err = ol_xasprintf("mpirun: the hosts have no slot for a process (each needs %ld)", o->pe);
            ol_hostlist_free(&hl);
            return -1;
        }
    }
    long np = 0;
    for (size_t a = 0; a < o->napps; a++)
        np += o->apps[a].np;
    uint32_t *rank_host;
    if (np > OL_NP_MAX) {
        *err = ol_xasprintf("mpirun: %ld processes in all are above the limit of %ld", np, OL_NP_MAX);
        ol_hostlist_free(&hl);
        return -1;
    }
    if (ol_map_ranks(&hl, &req, np, &rank_host, err) != 0) {
        ol_hostlist_free(&hl);
        return -1;
    }
    /* Node ids in host order, for hosts that hold ranks. */
    uint32_t *host_node = ol_xcalloc(hl.n, sizeof *host_node);
    for (size_t h = 0; h < hl.n; h++)
        host_node[h] = OL_NO_NODE;
    for (long r = 0; r < np; r++)
        host_node[rank_host[r]] = 0;
    j->nodes = ol_xcalloc(hl.n + 1, sizeof *j->nodes);
    /* Room for the hosts a spawn may add (a flat tree: FANOUT at most). */
    m->nodes_cap = (uint32_t)hl.n + (uint32_t)o->fanout;
    m->nodes = ol_xcalloc(m->nodes_cap, sizeof *m->nodes);
    for (size_t h = 0; h < hl.n; h++) {
        if (host_node[h] == OL_NO_NODE)
            continue;
        uint32_t id = m->nnodes++;
        host_node[h] = id;
        j->nodes[id] = ol_xstrdup(hl.v[h].name);
        m->nodes[id] = (struct node){ .m = m, .id = id, .name = ol_xstrdup(hl.v[h].name),
                                      .local = hl.v[h].id.self, .ips = ipv4_strings(&hl.v[h].id),
                                      .slots = hl.v[h].slots };
    }
    /* MPI_UNIVERSE_SIZE: every slot of the job's hosts, as Open MPI counts
     * it; never below the job's size (oversubscribed). */
    long univ = 0;
    for (size_t h = 0; h < hl.n; h++)
        univ += hl.v[h].slots;
    j->univ_size = (uint32_t)(univ > np ? (univ > OL_NP_MAX ? OL_NP_MAX : univ) : np);
    j->job_size = (uint32_t)np;
    j->rank_node = ol_xcalloc((size_t)np, sizeof *j->rank_node);
    for (long r = 0; r < np; r++)
        j->rank_node[r] = host_node[rank_host[r]];
    free(rank_host);
    m->hosts = hl;
    m->host_node = host_node;

    char cwd[4096];
    j->nspace = make_nspace();
    j->stdin_rank = stdin_wanted(m) ? 0 : OL_NO_RANK;
    j->kill_grace_ms = (uint32_t)o->kill_grace_ms;
    j->map_by = (uint8_t)o->map_by;
    j->bind_to = (uint8_t)o->bind_to;
    j->report_bindings = o->report_bindings;
    j->pe = (uint16_t)o->pe;
    j->cwd = ol_xstrdup(o->wdir ? o->wdir : getcwd(cwd, sizeof cwd) ? cwd : "/");
    /* Ranks elsewhere do not inherit mpirun's environment: carry the
     * ompi-lite parameters (as Open MPI carries OMPI_MCA_*), then -x/--param. */
    extern char **environ;
    j->env = ol_xcalloc(1, sizeof *j->env);
    for (size_t i = 0; environ[i] != NULL; i++) {
        if (strncmp(environ[i], "OMPI_LITE_", 10) == 0 && strncmp(environ[i], "OMPI_LITE_DAEMON=", 17) != 0)
            ol_strv_append(&j->env, environ[i]);
    }
    for (size_t i = 0; o->env[i] != NULL; i++)
        ol_strv_append(&j->env, o->env[i]);
    j->napps = (uint32_t)o->napps;
    j->apps = ol_xcalloc(o->napps, sizeof *j->apps);
    uint32_t first = 0;
    for (size_t a = 0; a < o->napps; a++) {
        j->apps[a].first_rank = first;
        j->apps[a].np = (uint32_t)o->apps[a].np;
        j->apps[a].exe = ol_xstrdup(o->apps[a].exe);
        j->apps[a].argv = ol_strv_dup(o->apps[a].argv);
        first += j->apps[a].np;
    }
    m->rank_running = ol_xcalloc((size_t)np, 1);
    m->nprocs = (uint32_t)np;
    m->proc_node = ol_xmalloc((size_t)np * sizeof *m->proc_node);
    memcpy(m->proc_node, j->rank_node, (size_t)np * sizeof *m->proc_node);
    m->fanout = (uint32_t)o->fanout;
    return 0;
}

static int setup_loop(struct mpirun *m)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1 };
    signal(SIGPIPE, SIG_IGN);
    m->sigfd = ol_signalfd_open(sigs, sizeof sigs / sizeof sigs[0]);
    m->base = event_base_new();
    if (m->sigfd < 0 || m->base == NULL)
        return -1;
    m->sig_ev = event_new(m->base, m->sigfd, EV_READ | EV_PERSIST, on_signal, m);
    event_add(m->sig_ev, NULL);
    m->output_ev = event_new(m->base, ol_output_event_fd(m->out), EV_READ | EV_PERSIST, on_output_event, m);
    event_add(m->output_ev, NULL);
    if (m->opts.timeout_s > 0) {
        struct timeval tv = { m->opts.timeout_s, 0 };
        m->timeout_ev = evtimer_new(m->base, on_timeout, m);
        evtimer_add(m->timeout_ev, &tv);
    }
    return 0;
}

/* Every direct link is closed; wait for what we started so that nothing of
 * the job is left when mpirun returns. A daemon that ended normally exits
 * right after closing its link; anything else is killed. */
static void reap_started(struct mpirun *m)
{
    for (uint32_t i = 0; i < m->nnodes; i++) {
        struct node *n = &m->nodes[i];
        if (n->pid <= 0 || n->reaped)
            continue;
        bool normal = n->state == NODE_DONE && !m->force_exit;
        for (int tries = 0; normal && tries < 200; tries++) {
            if (waitpid(n->pid, NULL, WNOHANG) != 0)
                goto reaped;
            struct timespec ts = { 0, 10 * 1000 * 1000 };
            nanosleep(&ts, NULL);
        }
        kill(n->pid, SIGKILL);
        while (waitpid(n->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    reaped:
        n->reaped = true;
    }
}

static void cleanup(struct mpirun *m)
{
    stdin_stop(m);
    while (m->pending != NULL)
        pconn_free(m, m->pending, false);
    for (uint32_t i = 0; i < m->nnodes; i++) {
        struct node *n = &m->nodes[i];
        if (n->bev)
            bufferevent_free(n->bev);
        if (n->agent_out)
            bufferevent_free(n->agent_out);
        free(n->name);
        free(n->host);
        free(n->agent_tail);
        ol_strv_free(n->addrs);
        ol_strv_free(n->netifs);
        ol_strv_free(n->ips);
    }
    free(m->nodes);
    ol_hostlist_free(&m->hosts);
    free(m->host_node);
    while (m->fences != NULL) {
        struct fence *f = m->fences;
        m->fences = f->next;
        ol_wbuf_free(&f->data);
        free(f);
    }
    if (m->watchdog)
        event_free(m->watchdog);
    if (m->timeout_ev)
        event_free(m->timeout_ev);
    if (m->report_timer)
        event_free(m->report_timer);
    ol_report_free(m->report);
    if (m->ping_ev)
        event_free(m->ping_ev);
    if (m->shutdown_ev)
        event_free(m->shutdown_ev);
    for (int i = 0; i < m->nlisten; i++) {
        event_free(m->listen_evs[i]);
        close(m->listen_fds[i]);
    }
    event_free(m->sig_ev);
    if (m->output_ev)
        event_free(m->output_ev);
    event_base_free(m->base);
    ol_msg_launch_free(&m->job);
    ol_output_free(m->out);
    ol_mpirun_opts_free(&m->opts);
    ol_strv_free(m->addrs);
    ol_netif_free(&m->netifs);
    for (uint32_t k = 0; k < m->nspawns; k++) {
        ol_msg_launch_free(&m->spawns[k]->job);
        free(m->spawns[k]);
    }
    free(m->spawns);
    ol_names_free(m->names);
    free(m->proc_node);
    free(m->rank_running);
    free(m->daemon_exe);
    free(m->key);
    free(m->fail_line);
}

/* Descriptors 0-2 that mpirun was started without are taken now, before
 * anything else gets those numbers (output written into a daemon's link
 * would be a protocol error): stdin reads /dev/null, and stdout/stderr
 * become a pipe with no reader, so that output fails as into a closed
 * pipe and ends the job the same way. */
static void hold_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int p[2];
        if (fd == 0) {
            int nul = open("/dev/null", O_RDONLY);
            if (nul > 0) {
                dup2(nul, 0);
                close(nul);
            }
        } else if (pipe(p) == 0) {
            /* fd is free, so one end may have landed on it: the write end
             * must be there (dup2 drops a read end sitting at fd). */
            if (p[1] != fd) {
                dup2(p[1], fd);
                close(p[1]);
            }
            if (p[0] != fd)
                close(p[0]);
        }
    }
}

int main(int argc, char **argv)
{
    struct mpirun m = { .sigfd = -1 };
    char *err = NULL;
    hold_std_fds();
    ol_log_init("mpirun");
    clock_gettime(CLOCK_MONOTONIC, &m.started);
    int rc = ol_mpirun_parse(argc, argv, &m.opts, &err);
    if (rc == 2) {
        rc = ol_report_request_running(m.opts.report_pid);
        ol_mpirun_opts_free(&m.opts);
        return rc;
    }
    if (rc != 0) {
        if (m.opts.help)
            ol_mpirun_print_help();
        else if (m.opts.version)
            printf("mpirun (ompi-lite) %s\n", PACKAGE_VERSION);
        else
            fprintf(stderr, "%s\n", err);
        free(err);
        ol_mpirun_opts_free(&m.opts);
        return rc > 0 ? 0 : 1;
    }
    if (build_job(&m, &err) != 0 ||
        (m.out = ol_output_new(&(struct ol_output_conf){ .tag = m.opts.tag_output,
                                                         .dir = m.opts.output_dir,
                                                         .umask_modes = m.opts.output_umask != 0,
                                                         .nranks = m.job.job_size,
                                                         .bound = (size_t)m.opts.output_buffer },
                               &err)) == NULL) {
        fprintf(stderr, "%s\n", err);
        free(err);
        return 1;
    }
    if (setup_loop(&m) != 0) {
        fprintf(stderr, "mpirun: cannot set up the event loop: %s\n", strerror(errno));
        return 1;
    }
    if (start_daemons(&m, &err) != 0) {
        /* Whatever did start is stopped before the one line. */
        kill_started(&m, SIGKILL);
        reap_started(&m);
        fprintf(stderr, "%s\n", err);
        free(err);
        return 1;
    }
    ol_trace("daemons started");
    m.names = ol_names_new();
    event_base_dispatch(m.base);
    reap_started(&m);
    ol_trace("daemons reaped");
    /* The ranks' last lines come before mpirun's own; after a forced exit
     * (the daemons did not finish) a stalled reader is not waited for. */
    if (m.force_exit)
        ol_output_drop(m.out);
    ol_output_free(m.out);
    m.out = NULL;
    int status = 0;
    if (m.failed) {
        fprintf(stderr, "%s\n", m.fail_line);
        status = m.exit_code;
    }
    cleanup(&m);
    return status;
}
