/* ompi-lite-daemon: the per-host daemon that mpirun starts. It is the PMIx
 * server of its host's ranks; it starts them, forwards their output, and
 * reports how each one ended. Policy (when the job has failed, what the user
 * sees) belongs to mpirun; the daemon only carries out KILL and SHUTDOWN.
 *
 * Usage (by mpirun only): ompi-lite-daemon --parent-fd FD [--node-id N]
 * FD is a connected stream socket to mpirun. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon.h"
#include "util.h"

static void daemon_exit_loop(struct ol_daemon *d, int status)
{
    d->exiting = true;
    d->exit_status = status;
    event_base_loopbreak(d->base);
}

void ol_daemon_send(struct ol_daemon *d, uint16_t type, const ol_wbuf_t *body)
{
    if (d->up != NULL)
        ol_frame_send(d->up, type, body);
}

static void send_error(struct ol_daemon *d, uint32_t rank, const char *text)
{
    ol_msg_error_t m = { .rank = rank, .text = (char *)text };
    ol_wbuf_t w = { 0 };
    ol_msg_error_encode(&m, &w);
    ol_daemon_send(d, OL_MSG_ERROR, &w);
    ol_wbuf_free(&w);
}

void ol_daemon_report_exit(struct ol_daemon *d, struct ol_rank *r, uint8_t kind, int32_t code)
{
    ol_msg_rank_exit_t m = { .rank = r->rank, .pid = (uint32_t)r->pid, .kind = kind, .code = code };
    ol_wbuf_t w = { 0 };
    ol_msg_rank_exit_encode(&m, &w);
    ol_daemon_send(d, OL_MSG_RANK_EXIT, &w);
    ol_wbuf_free(&w);
}

/* How the rank ended, from its wait status and what it told PMIx. */
static void classify_exit(const struct ol_rank *r, uint8_t *kind, int32_t *code)
{
    int st = r->wstatus;
    if (atomic_load(&r->aborted)) {
        *kind = OL_EXIT_ABORT;
        *code = atomic_load(&r->abort_code);
    } else if (r->exec_errno != 0) {
        *kind = OL_EXIT_EXEC_FAILED;
        *code = r->exec_errno;
    } else if (WIFSIGNALED(st)) {
        *kind = OL_EXIT_SIGNAL;
        *code = WTERMSIG(st);
    } else if (WEXITSTATUS(st) != 0) {
        *kind = OL_EXIT_CODE;
        *code = WEXITSTATUS(st);
    } else if (atomic_load(&r->connected) && !atomic_load(&r->finalized)) {
        *kind = OL_EXIT_NO_FINALIZE;
        *code = 0;
    } else {
        *kind = OL_EXIT_NORMAL;
        *code = 0;
    }
}

static void daemon_job_finished(struct ol_daemon *d)
{
    ol_trace("all local ranks finished");
    if (d->orphaned) {
        daemon_exit_loop(d, 1);
        return;
    }
    ol_daemon_send(d, OL_MSG_JOB_DONE, NULL);
}

void ol_daemon_rank_finished(struct ol_daemon *d, struct ol_rank *r)
{
    uint8_t kind;
    int32_t code;
    r->reported = true;
    if (r->drain_timer != NULL)
        event_del(r->drain_timer);
    classify_exit(r, &kind, &code);
    ol_trace("rank %u (pid %d) finished: kind %u code %d", r->rank, (int)r->pid, kind, code);
    ol_daemon_report_exit(d, r, kind, code);
    if (++d->nfinished == d->nranks)
        daemon_job_finished(d);
}

/* ---- the job ---- */

static void setup_ranks(struct ol_daemon *d)
{
    ol_msg_launch_local_ranks(&d->job, &d->first_rank, &d->nranks);
    d->ranks = ol_xcalloc(d->nranks, sizeof *d->ranks);
    for (uint32_t i = 0; i < d->nranks; i++) {
        struct ol_rank *r = &d->ranks[i];
        r->d = d;
        r->rank = d->first_rank + i;
        r->local_rank = i;
        r->status_fd = -1;
        atomic_init(&r->connected, false);
        atomic_init(&r->finalized, false);
        atomic_init(&r->aborted, false);
        atomic_init(&r->abort_code, 0);
    }
}

static void handle_launch(struct ol_daemon *d, ol_rbuf_t *rb)
{
    char *err = NULL;
    if (d->have_job || ol_msg_launch_decode(rb, &d->job) != 0) {
        send_error(d, OL_NO_RANK, "malformed or repeated LAUNCH message");
        daemon_exit_loop(d, 1);
        return;
    }
    d->have_job = true;
    setup_ranks(d);
    if (d->nranks == 0) {
        daemon_job_finished(d);
        return;
    }
    ol_trace("LAUNCH received");
    if (ol_dpmix_register_job(d, &err) != 0 || ol_ranks_launch(d, &err) != 0) {
        send_error(d, OL_NO_RANK, err);
        free(err);
        /* Ranks already started die; the job then counts as finished once
         * each is reaped. Never-started ranks count as finished now. */
        ol_ranks_kill(d);
        for (uint32_t i = 0; i < d->nranks; i++) {
            if (d->ranks[i].pid <= 0) {
                d->ranks[i].reported = true;
                if (++d->nfinished == d->nranks)
                    daemon_job_finished(d);
            }
        }
        return;
    }
    ol_trace("ranks started");
    ol_info("job %s: started ranks %u..%u", d->job.nspace, d->first_rank, d->first_rank + d->nranks - 1);
}

static void handle_frame(struct ol_daemon *d, uint16_t type, uint8_t *body, uint32_t len)
{
    ol_rbuf_t rb = { .p = body, .left = len };
    switch (type) {
    case OL_MSG_LAUNCH:
        handle_launch(d, &rb);
        break;
    case OL_MSG_STDIN: {
        uint32_t n;
        const uint8_t *p = ol_r_bytes(&rb, &n);
        if (!rb.failed && d->have_job)
            ol_ranks_stdin(d, p, n);
        break;
    }
    case OL_MSG_KILL:
        ol_ranks_kill(d);
        if (!d->have_job)
            daemon_job_finished(d);
        break;
    case OL_MSG_SHUTDOWN:
        daemon_exit_loop(d, 0);
        break;
    default:
        ol_log(OL_LOG_WARN, "ignoring unexpected %s message from mpirun", ol_msg_type_name(type));
        break;
    }
}

/* ---- the link to mpirun ---- */

static void lost_mpirun(struct ol_daemon *d)
{
    if (d->up != NULL) {
        bufferevent_free(d->up);
        d->up = NULL;
    }
    if (d->orphaned)
        return;
    d->orphaned = true;
    if (!d->have_job || d->nfinished == d->nranks) {
        daemon_exit_loop(d, 1);
        return;
    }
    ol_ranks_kill(d);
}

static void on_up_read(struct bufferevent *bev, void *arg)
{
    struct ol_daemon *d = arg;
    uint16_t type;
    uint8_t *body;
    uint32_t len;
    int rc;
    while (!d->exiting && d->up != NULL &&
           (rc = ol_frame_pop(bufferevent_get_input(bev), &type, &body, &len)) != 0) {
        if (rc < 0) {
            ol_log(OL_LOG_ERROR, "malformed frame from mpirun");
            lost_mpirun(d);
            return;
        }
        handle_frame(d, type, body, len);
        free(body);
    }
}

static void on_up_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        lost_mpirun(arg);
}

/* ---- signals and PMIx notes ---- */

static void on_signal(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct ol_daemon *d = arg;
    int sig;
    while ((sig = ol_signalfd_read(fd)) > 0) {
        if (sig == SIGCHLD)
            ol_ranks_reap(d);
        else /* SIGTERM/SIGINT/SIGHUP, or mpirun died (PDEATHSIG) */
            lost_mpirun(d);
    }
}

static void on_upcall_note(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct ol_daemon *d = arg;
    struct ol_upcall_note note;
    while (read(fd, &note, sizeof note) == (ssize_t)sizeof note) {
        if (note.kind == OL_UPCALL_ABORT && note.local_rank < d->nranks) {
            struct ol_rank *r = &d->ranks[note.local_rank];
            /* Reported now, not at exit: the rank may wait in PMIx_Abort. */
            ol_daemon_report_exit(d, r, OL_EXIT_ABORT, atomic_load(&r->abort_code));
        }
    }
}

/* ---- start-up ---- */

static int parse_args(int argc, char **argv, int *parent_fd, uint32_t *node_id)
{
    long v;
    *parent_fd = -1;
    *node_id = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--parent-fd") == 0 && i + 1 < argc &&
            ol_parse_long(argv[++i], 0, 1 << 20, &v) == 0)
            *parent_fd = (int)v;
        else if (strcmp(argv[i], "--node-id") == 0 && i + 1 < argc &&
                 ol_parse_long(argv[++i], 0, UINT32_MAX - 1, &v) == 0)
            *node_id = (uint32_t)v;
        else
            return -1;
    }
    return *parent_fd >= 0 ? 0 : -1;
}

/* Ranks get fds 0-2 by dup2: those must not be free in the daemon, or a
 * pipe could land on them and lose its close-on-exec protection. Stdin is
 * mpirun's business, so the daemon never holds the terminal. */
static void sanitize_std_fds(void)
{
    int fd = open("/dev/null", O_RDWR);
    if (fd < 0)
        return;
    dup2(fd, STDIN_FILENO);
    for (int i = 1; i <= 2; i++) {
        if (fcntl(i, F_GETFD) < 0)
            dup2(fd, i);
    }
    if (fd > 2)
        close(fd);
}

static int setup_events(struct ol_daemon *d, int parent_fd)
{
    static const int sigs[] = { SIGCHLD, SIGTERM, SIGINT, SIGHUP };
    /* Before PMIx starts its thread, so the thread inherits the mask and
     * every signal comes out of the signalfd. */
    d->sigfd = ol_signalfd_open(sigs, sizeof sigs / sizeof sigs[0]);
    if (d->sigfd < 0 || pipe2(d->upcall_pipe, O_CLOEXEC) != 0)
        return -1;
    ol_set_nonblock(d->upcall_pipe[0], true);
    signal(SIGPIPE, SIG_IGN);
    d->base = event_base_new();
    if (d->base == NULL)
        return -1;
    d->sig_ev = event_new(d->base, d->sigfd, EV_READ | EV_PERSIST, on_signal, d);
    d->upcall_ev = event_new(d->base, d->upcall_pipe[0], EV_READ | EV_PERSIST, on_upcall_note, d);
    event_add(d->sig_ev, NULL);
    event_add(d->upcall_ev, NULL);
    ol_set_cloexec(parent_fd, true);
    ol_set_nonblock(parent_fd, true);
    d->up = bufferevent_socket_new(d->base, parent_fd, BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(d->up, on_up_read, NULL, on_up_event, d);
    bufferevent_enable(d->up, EV_READ | EV_WRITE);
    return 0;
}

static void send_hello(struct ol_daemon *d)
{
    ol_msg_hello_t m = { .version = OL_PROTO_VERSION, .node_id = d->node_id,
                         .pid = (uint32_t)getpid(), .hostname = (char *)ol_hostname() };
    ol_wbuf_t w = { 0 };
    ol_msg_hello_encode(&m, &w);
    ol_daemon_send(d, OL_MSG_HELLO, &w);
    ol_wbuf_free(&w);
}

/* Makes sure the last frames (JOB_DONE, RANK_EXIT) reach mpirun. */
static void flush_upstream(struct ol_daemon *d)
{
    if (d->up == NULL)
        return;
    int fd = bufferevent_getfd(d->up);
    struct evbuffer *out = bufferevent_get_output(d->up);
    ol_set_nonblock(fd, false);
    evbuffer_write(out, fd);
    while (evbuffer_get_length(out) > 0 && evbuffer_write(out, fd) > 0)
        ;
}

static void teardown(struct ol_daemon *d)
{
    ol_ranks_free(d);
    if (d->have_job)
        ol_msg_launch_free(&d->job);
    if (d->up)
        bufferevent_free(d->up);
    event_free(d->sig_ev);
    event_free(d->upcall_ev);
    event_base_free(d->base);
}

int main(int argc, char **argv)
{
    struct ol_daemon d = { .sigfd = -1, .upcall_pipe = { -1, -1 } };
    int parent_fd;
    char *err = NULL;
    ol_log_init("ompi-lite-daemon");
    if (parse_args(argc, argv, &parent_fd, &d.node_id) != 0) {
        fprintf(stderr, "ompi-lite-daemon: started by mpirun only (usage: --parent-fd FD [--node-id N])\n");
        return 2;
    }
    /* A local mpirun that dies takes us down the same way as a lost link. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    sanitize_std_fds();
    if (setup_events(&d, parent_fd) != 0) {
        ol_log(OL_LOG_ERROR, "cannot set up the event loop: %s", strerror(errno));
        return 1;
    }
    if (ol_dpmix_init(&d, &err) != 0) {
        send_error(&d, OL_NO_RANK, err);
        flush_upstream(&d);
        free(err);
        teardown(&d);
        return 1;
    }
    ol_trace("PMIx server up");
    send_hello(&d);
    event_base_dispatch(d.base);
    flush_upstream(&d);
    /* Ranks are all reaped here, unless we were told to exit early. */
    if (d.nfinished < d.nranks) {
        ol_ranks_kill(&d);
        for (uint32_t i = 0; i < d.nranks; i++) {
            if (d.ranks[i].pid > 0 && !d.ranks[i].reaped) {
                killpg(d.ranks[i].pid, SIGKILL);
                waitpid(d.ranks[i].pid, NULL, 0);
            }
        }
    }
    ol_trace("finalizing PMIx");
    ol_dpmix_finalize(&d);
    ol_trace("exiting");
    teardown(&d);
    return d.exit_status;
}
