/* mpirun / mpiexec: starts one daemon per host (today: the local one),
 * hands it the job, prints the ranks' output, and decides how the job
 * ends. The first abnormal end of any rank (non-zero exit, signal,
 * PMIx_Abort, exit without finalize) or of a daemon, or a signal to mpirun,
 * ends the whole job: every daemon gets KILL, and mpirun prints one line
 * saying what happened, after all output, and exits non-zero. */
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
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "mpirun.h"
#include "proto.h"
#include "util.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0.1.0"
#endif

#define STDIN_CHUNK (64 * 1024)
#define STDIN_HIGH_WATER (1024 * 1024)
/* Beyond the daemons' own kill grace, before mpirun SIGKILLs them. */
#define WATCHDOG_EXTRA_MS 3000

struct mpirun;

struct dconn {
    struct mpirun *m;
    uint32_t node_id;
    pid_t pid;            /* > 0 for a daemon mpirun forked */
    struct bufferevent *bev;
    char *host;
    bool hello, done, closed;
};

struct mpirun {
    struct event_base *base;
    struct mpirun_opts opts;
    ol_msg_launch_t job;
    struct dconn *daemons;
    uint32_t ndaemons, ndone, nclosed;
    /* The first failure wins; later ones are consequences of the kill. */
    bool failed;
    char *fail_line;
    int exit_code;
    struct event *watchdog;
    int sigfd;
    struct event *sig_ev;
    int nsignals;
    uint32_t open_line_rank[2]; /* stdout, stderr: rank whose line is unfinished */
    /* stdin forwarding */
    struct event *stdin_ev;
    struct dconn *stdin_daemon;
    bool stdin_paused, stdin_done;
};

/* ---- ending the job ---- */

static void send_to_all(struct mpirun *m, uint16_t type)
{
    for (uint32_t i = 0; i < m->ndaemons; i++) {
        if (!m->daemons[i].closed)
            ol_frame_send(m->daemons[i].bev, type, NULL);
    }
}

static void kill_local_daemons(struct mpirun *m)
{
    /* Their ranks die with them (PR_SET_PDEATHSIG). */
    for (uint32_t i = 0; i < m->ndaemons; i++) {
        if (m->daemons[i].pid > 0 && !m->daemons[i].closed)
            kill(m->daemons[i].pid, SIGKILL);
    }
}

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    kill_local_daemons(arg);
}

/* Records the first failure (taking ownership of line) and ends the job. */
static void job_failed(struct mpirun *m, char *line, int exit_code)
{
    if (m->failed) {
        free(line);
        return;
    }
    m->failed = true;
    m->fail_line = line;
    m->exit_code = exit_code ? exit_code : 1;
    send_to_all(m, OL_MSG_KILL);
    long ms = m->opts.kill_grace_ms + WATCHDOG_EXTRA_MS;
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    m->watchdog = evtimer_new(m->base, on_watchdog, m);
    evtimer_add(m->watchdog, &tv);
}

static const char *host_of(struct mpirun *m, uint32_t rank)
{
    uint32_t first = 0;
    for (uint32_t n = 0; m->job.nodes[n] != NULL; n++) {
        if (rank < first + m->job.ppn[n])
            return m->job.nodes[n];
        first += m->job.ppn[n];
    }
    return "?";
}

static void rank_ended(struct mpirun *m, const ol_msg_rank_exit_t *e)
{
    char *what;
    int code;
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
        what = ol_xasprintf("called MPI_Abort with code %d", e->code);
        code = e->code;
        break;
    case OL_EXIT_NO_FINALIZE:
        what = ol_xasprintf("exited without calling MPI_Finalize");
        code = 1;
        break;
    default: /* OL_EXIT_EXEC_FAILED */
        what = ol_xasprintf("could not start %s: %s", m->job.exe, strerror(e->code));
        code = 127;
        break;
    }
    job_failed(m, ol_xasprintf("mpirun: rank %u (pid %u on host %s) %s", e->rank, e->pid,
                               host_of(m, e->rank), what), code);
    free(what);
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
    struct dconn *dc = m->stdin_daemon;
    if (dc->closed || m->failed) {
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

static void on_daemon_drained(struct bufferevent *bev, void *arg)
{
    (void)bev;
    struct dconn *dc = arg;
    struct mpirun *m = dc->m;
    if (m->stdin_paused && m->stdin_ev != NULL && m->stdin_daemon == dc) {
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

static void stdin_start(struct mpirun *m, struct dconn *dc)
{
    struct stat st;
    m->stdin_daemon = dc;
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

/* ---- messages from daemons ---- */

static void send_launch(struct mpirun *m, struct dconn *dc)
{
    m->job.node_id = dc->node_id;
    ol_wbuf_t w = { 0 };
    ol_msg_launch_encode(&m->job, &w);
    ol_frame_send(dc->bev, OL_MSG_LAUNCH, &w);
    ol_wbuf_free(&w);
    uint32_t first = 0;
    for (uint32_t n = 0; n < dc->node_id; n++)
        first += m->job.ppn[n];
    uint32_t sr = m->job.stdin_rank;
    if (sr != OL_NO_RANK && sr >= first && sr < first + m->job.ppn[dc->node_id])
        stdin_start(m, dc);
}

static void handle_hello(struct mpirun *m, struct dconn *dc, ol_rbuf_t *rb)
{
    ol_msg_hello_t h;
    if (dc->hello || ol_msg_hello_decode(rb, &h) != 0 || h.version != OL_PROTO_VERSION ||
        h.node_id != dc->node_id) {
        job_failed(m, ol_xasprintf("mpirun: daemon %u sent a bad HELLO (version mismatch?)", dc->node_id), 1);
        return;
    }
    ol_trace("HELLO from daemon %u", dc->node_id);
    dc->hello = true;
    dc->host = h.hostname;
    if (m->failed) /* e.g. Ctrl-C during start-up */
        ol_frame_send(dc->bev, OL_MSG_KILL, NULL);
    else
        send_launch(m, dc);
}

static void handle_io(struct mpirun *m, ol_rbuf_t *rb)
{
    ol_msg_io_t io;
    if (ol_msg_io_decode(rb, &io) != 0 || io.len == 0)
        return;
    /* One frame holds whole lines of one rank: one write keeps them whole.
     * Only a rank's last output (or an overlong line) can end without a
     * newline; if another rank speaks next, end that line first so that
     * the two do not run together. One rank's output stays byte-exact. */
    int s = io.stream == OL_STREAM_STDERR ? 1 : 0;
    int fd = s ? STDERR_FILENO : STDOUT_FILENO;
    if (m->open_line_rank[s] != OL_NO_RANK && m->open_line_rank[s] != io.rank)
        (void)ol_write_all(fd, "\n", 1);
    (void)ol_write_all(fd, io.data, io.len);
    m->open_line_rank[s] = io.data[io.len - 1] == '\n' ? OL_NO_RANK : io.rank;
}

static void handle_job_done(struct mpirun *m, struct dconn *dc)
{
    if (dc->done)
        return;
    dc->done = true;
    if (++m->ndone == m->ndaemons)
        send_to_all(m, OL_MSG_SHUTDOWN);
}

static void handle_frame(struct mpirun *m, struct dconn *dc, uint16_t type, uint8_t *body, uint32_t len)
{
    ol_rbuf_t rb = { .p = body, .left = len };
    switch (type) {
    case OL_MSG_HELLO:
        handle_hello(m, dc, &rb);
        break;
    case OL_MSG_IO:
        handle_io(m, &rb);
        break;
    case OL_MSG_RANK_EXIT: {
        ol_msg_rank_exit_t e;
        if (ol_msg_rank_exit_decode(&rb, &e) == 0) {
            rank_ended(m, &e);
            ol_msg_rank_exit_free(&e);
        }
        break;
    }
    case OL_MSG_ERROR: {
        ol_msg_error_t e;
        if (ol_msg_error_decode(&rb, &e) == 0) {
            job_failed(m, ol_xasprintf("mpirun: daemon on host %s: %s", dc->host ? dc->host : "?", e.text), 1);
            ol_msg_error_free(&e);
        }
        break;
    }
    case OL_MSG_JOB_DONE:
        handle_job_done(m, dc);
        break;
    default:
        ol_log(OL_LOG_WARN, "ignoring unexpected %s message from a daemon", ol_msg_type_name(type));
        break;
    }
}

static void daemon_closed(struct mpirun *m, struct dconn *dc)
{
    if (dc->closed)
        return;
    dc->closed = true;
    if (!dc->done) {
        const char *why = dc->hello ? "exited unexpectedly" : "could not start or failed during start-up";
        job_failed(m, ol_xasprintf("mpirun: the ompi-lite daemon on host %s %s", dc->host ? dc->host : ol_hostname(), why), 1);
    }
    if (++m->nclosed == m->ndaemons)
        event_base_loopexit(m->base, NULL);
}

static void on_daemon_read(struct bufferevent *bev, void *arg)
{
    struct dconn *dc = arg;
    uint16_t type;
    uint8_t *body;
    uint32_t len;
    int rc;
    while (!dc->closed && (rc = ol_frame_pop(bufferevent_get_input(bev), &type, &body, &len)) != 0) {
        if (rc < 0) {
            job_failed(dc->m, ol_xasprintf("mpirun: malformed message from the daemon on %s", dc->host ? dc->host : "?"), 1);
            kill_local_daemons(dc->m);
            return;
        }
        handle_frame(dc->m, dc, type, body, len);
        free(body);
    }
}

static void on_daemon_event(struct bufferevent *bev, short what, void *arg)
{
    struct dconn *dc = arg;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
        on_daemon_read(bev, arg); /* anything still buffered comes first */
        daemon_closed(dc->m, dc);
    }
}

/* ---- signals ---- */

static void on_signal(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct mpirun *m = arg;
    int sig;
    while ((sig = ol_signalfd_read(fd)) > 0) {
        if (sig == SIGCHLD)
            continue; /* daemons are reaped at the end; their sockets tell us first */
        if (++m->nsignals > 1) {
            /* Impatient user: no grace. */
            kill_local_daemons(m);
            continue;
        }
        job_failed(m, ol_xasprintf("mpirun: received signal %d (%s); the job was killed", sig,
                                   ol_signal_name(sig)), 128 + sig);
    }
}

/* ---- set-up ---- */

static char *make_nspace(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return ol_xasprintf("ompi-lite.%s.%d.%lx%05lx", ol_hostname(), (int)getpid(),
                        (unsigned long)tv.tv_sec, (unsigned long)tv.tv_usec);
}

static void build_job(struct mpirun *m)
{
    ol_msg_launch_t *j = &m->job;
    char cwd[4096];
    j->nspace = make_nspace();
    j->job_size = (uint32_t)m->opts.np;
    j->nodes = ol_xcalloc(2, sizeof *j->nodes);
    j->nodes[0] = ol_xstrdup(ol_hostname());
    j->ppn = ol_xcalloc(1, sizeof *j->ppn);
    j->ppn[0] = j->job_size;
    j->stdin_rank = stdin_wanted(m) ? 0 : OL_NO_RANK;
    j->kill_grace_ms = (uint32_t)m->opts.kill_grace_ms;
    j->exe = ol_xstrdup(m->opts.exe);
    j->cwd = ol_xstrdup(getcwd(cwd, sizeof cwd) ? cwd : "/");
    j->argv = ol_strv_dup(m->opts.prog_argv);
    j->env = ol_xcalloc(1, sizeof *j->env);
}

static int start_daemons(struct mpirun *m, char **err)
{
    char *daemon_exe = ol_mpirun_find_daemon();
    if (daemon_exe == NULL) {
        *err = ol_xasprintf("mpirun: cannot find ompi-lite-daemon next to mpirun, in ../libexec, or in $OMPI_LITE_DAEMON");
        return -1;
    }
    m->ndaemons = 1;
    m->daemons = ol_xcalloc(1, sizeof *m->daemons);
    struct dconn *dc = &m->daemons[0];
    dc->m = m;
    dc->node_id = 0;
    int fd = ol_mpirun_start_local_daemon(daemon_exe, 0, &dc->pid, err);
    free(daemon_exe);
    if (fd < 0)
        return -1;
    ol_set_nonblock(fd, true);
    dc->bev = bufferevent_socket_new(m->base, fd, BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(dc->bev, on_daemon_read, on_daemon_drained, on_daemon_event, dc);
    bufferevent_enable(dc->bev, EV_READ | EV_WRITE);
    return 0;
}

static int setup_loop(struct mpirun *m)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };
    signal(SIGPIPE, SIG_IGN);
    m->sigfd = ol_signalfd_open(sigs, sizeof sigs / sizeof sigs[0]);
    m->base = event_base_new();
    if (m->sigfd < 0 || m->base == NULL)
        return -1;
    m->sig_ev = event_new(m->base, m->sigfd, EV_READ | EV_PERSIST, on_signal, m);
    event_add(m->sig_ev, NULL);
    return 0;
}

/* Every daemon has closed its link; wait for the ones we forked so that
 * nothing of the job is left when mpirun returns. */
static void reap_local_daemons(struct mpirun *m)
{
    for (uint32_t i = 0; i < m->ndaemons; i++) {
        if (m->daemons[i].pid > 0) {
            while (waitpid(m->daemons[i].pid, NULL, 0) < 0 && errno == EINTR)
                ;
        }
    }
}

static void cleanup(struct mpirun *m)
{
    stdin_stop(m);
    for (uint32_t i = 0; i < m->ndaemons; i++) {
        bufferevent_free(m->daemons[i].bev);
        free(m->daemons[i].host);
    }
    free(m->daemons);
    if (m->watchdog)
        event_free(m->watchdog);
    event_free(m->sig_ev);
    event_base_free(m->base);
    ol_msg_launch_free(&m->job);
    free(m->opts.exe);
    free(m->fail_line);
}

int main(int argc, char **argv)
{
    struct mpirun m = { .sigfd = -1, .open_line_rank = { OL_NO_RANK, OL_NO_RANK } };
    char *err = NULL;
    ol_log_init("mpirun");
    int rc = ol_mpirun_parse(argc, argv, &m.opts, &err);
    if (rc != 0) {
        if (m.opts.help)
            ol_mpirun_print_help();
        else if (m.opts.version)
            printf("mpirun (ompi-lite) %s\n", PACKAGE_VERSION);
        else
            fprintf(stderr, "%s\n", err);
        free(err);
        free(m.opts.exe);
        return rc > 0 ? 0 : 1;
    }
    if (setup_loop(&m) != 0) {
        fprintf(stderr, "mpirun: cannot set up the event loop: %s\n", strerror(errno));
        return 1;
    }
    build_job(&m);
    if (start_daemons(&m, &err) != 0) {
        fprintf(stderr, "%s\n", err);
        free(err);
        return 1;
    }
    ol_trace("daemons started");
    event_base_dispatch(m.base);
    reap_local_daemons(&m);
    ol_trace("daemons reaped");
    int status = 0;
    if (m.failed) {
        fprintf(stderr, "%s\n", m.fail_line);
        status = m.exit_code;
    }
    cleanup(&m);
    return status;
}
