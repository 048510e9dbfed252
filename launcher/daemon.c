/* ompi-lite-daemon: the per-host daemon that mpirun starts. It is the PMIx
 * server of its host's ranks; it starts them, forwards their output, and
 * reports how each one ended. In a tree it also relays its children's
 * messages up, the job and commands down, and combines fences. Policy
 * (when the job has failed, what the user sees) belongs to mpirun; the
 * daemon only carries out KILL and SHUTDOWN.
 *
 * Usage (by mpirun only):
 *   ompi-lite-daemon (--parent-fd FD | --connect ADDR[,ADDR...]:PORT)
 *                    --node-id N --nnodes M --fanout K
 *                    [--link-timeout-ms MS] [--listen ADDR[,ADDR...]]
 * FD is a connected stream socket to mpirun (forked daemon); otherwise the
 * daemon connects to its parent over TCP and proves the job key. The key
 * is the first line of stdin, always (never the environment, which the
 * ranks would inherit and /proc shows for the daemon's whole life).
 * --listen: where a daemon with children and no TCP parent listens; with
 * a TCP parent it listens on the address its parent link uses, or with
 * --ifname LIST (OMPI_LITE_IFNAME) on those of the interfaces it takes.
 * --net-test-speed (tests only) declares link speeds (ol_netif.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon.h"
#include "net.h"
#include "params.h"
#include "tree.h"
#include "util.h"

#define AUTH_TIMEOUT_S 10
#define CONNECT_TIMEOUT_MS 3000
/* What follows the event loop (the last frames, PMIx_server_finalize) gets
 * this long; see arm_finish_watchdog. */
#define FINISH_TIMEOUT_S 5

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

size_t ol_daemon_up_queued(struct ol_daemon *d)
{
    return d->up != NULL ? evbuffer_get_length(bufferevent_get_output(d->up)) : 0;
}

void ol_daemon_children_reading(struct ol_daemon *d, bool on)
{
    for (uint32_t i = 0; i < d->nchildren; i++) {
        struct ol_dlink *l = d->children[i];
        if (l == NULL || l->closed)
            continue;
        if (on)
            bufferevent_enable(l->bev, EV_READ);
        else
            bufferevent_disable(l->bev, EV_READ);
    }
}

static struct ol_dlink *child_link(struct ol_daemon *d, uint32_t node)
{
    if (node < d->child_first || node - d->child_first >= d->nchildren)
        return NULL;
    struct ol_dlink *l = d->children[node - d->child_first];
    return l != NULL && !l->closed ? l : NULL;
}

bool ol_daemon_route(struct ol_daemon *d, uint32_t target, uint16_t type, const ol_wbuf_t *body)
{
    if (target == d->node_id)
        return false;
    uint32_t hop = ol_tree_next_hop(d->node_id, target, d->fanout);
    if (hop == OL_TREE_UP) {
        ol_daemon_send(d, type, body);
    } else {
        struct ol_dlink *l = child_link(d, hop);
        if (l != NULL)
            ol_frame_send(l->bev, type, body);
    }
    return true;
}

void ol_daemon_send_children(struct ol_daemon *d, uint16_t type, const void *body, size_t len)
{
    for (uint32_t i = 0; i < d->nchildren; i++) {
        struct ol_dlink *l = d->children[i];
        if (l != NULL && !l->closed)
            ol_frame_send_raw(l->bev, type, body, len);
    }
}

static void send_error(struct ol_daemon *d, uint16_t type, uint32_t node, uint32_t rank, const char *text)
{
    ol_msg_error_t m = { .node_id = node, .rank = rank, .text = (char *)text };
    ol_wbuf_t w = { 0 };
    ol_msg_error_encode(&m, &w);
    ol_daemon_send(d, type, &w);
    ol_wbuf_free(&w);
}

void ol_daemon_report_exit(struct ol_daemon *d, struct ol_rank *r, uint8_t kind, int32_t code)
{
    ol_msg_rank_exit_t m = { .rank = r->gid, .pid = (uint32_t)r->pid, .kind = kind, .code = code,
                             .msg = kind == OL_EXIT_ABORT && r->abort_msg[0] ? (char *)r->abort_msg : NULL };
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

static bool children_open(struct ol_daemon *d)
{
    for (uint32_t i = 0; i < d->nchildren; i++) {
        if (d->children[i] != NULL && !d->children[i]->closed)
            return true;
    }
    return false;
}

static void daemon_job_finished(struct ol_daemon *d)
{
    ol_trace("all local ranks finished");
    if (d->orphaned) {
        if (!children_open(d))
            daemon_exit_loop(d, 1);
        return;
    }
    ol_wbuf_t w = { 0 };
    ol_msg_u32_encode(d->node_id, &w);
    ol_daemon_send(d, OL_MSG_JOB_DONE, &w);
    ol_wbuf_free(&w);
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

static void handle_launch(struct ol_daemon *d, ol_rbuf_t *rb, const uint8_t *body, uint32_t len)
{
    char *err = NULL;
    if (d->have_job || ol_msg_launch_decode(rb, &d->job) != 0 ||
        ol_strv_len(d->job.nodes) != d->nnodes) {
        send_error(d, OL_MSG_ERROR, d->node_id, OL_NO_RANK, "malformed or repeated LAUNCH message");
        daemon_exit_loop(d, 1);
        return;
    }
    d->have_job = true;
    ol_ranks_output_bound(d);
    /* Children start theirs while we start ours. */
    ol_daemon_send_children(d, OL_MSG_LAUNCH, body, len);
    struct ol_djob *j = ol_xcalloc(1, sizeof *j);
    j->spec = &d->job;
    j->parent_gid = OL_NO_RANK;
    ol_daemon_add_ranks(d, j);
    d->jobs[0] = j;
    atomic_store(&d->njobs, 1);
    if (d->nranks == 0) {
        daemon_job_finished(d);
        return;
    }
    ol_trace("LAUNCH received");
    if (ol_dpmix_register_job(d, j, &err) != 0 || ol_ranks_launch(d, 0, &err) != 0) {
        send_error(d, OL_MSG_ERROR, d->node_id, OL_NO_RANK, err);
        free(err);
        /* Ranks already started die; the job then counts as finished once
         * each is reaped. Never-started ranks count as finished now. */
        ol_ranks_kill(d);
        for (uint32_t i = 0; i < d->nranks; i++) {
            if (d->ranks[i]->pid <= 0) {
                d->ranks[i]->reported = true;
                if (++d->nfinished == d->nranks)
                    daemon_job_finished(d);
            }
        }
        return;
    }
    ol_modex_job_registered(d);
    ol_dstate_start(d);
    ol_trace("ranks started");
    ol_info("job %s: started %u ranks", d->job.nspace, d->nranks);
}

static void shutdown_now(struct ol_daemon *d)
{
    d->shutting_down = true;
    if (!children_open(d))
        daemon_exit_loop(d, 0);
}

/* A frame from the parent. */
static void handle_down(struct ol_daemon *d, uint16_t type, uint8_t *body, uint32_t len)
{
    ol_rbuf_t rb = { .p = body, .left = len };
    switch (type) {
    case OL_MSG_LAUNCH:
        handle_launch(d, &rb, body, len);
        break;
    case OL_MSG_STDIN: {
        if (!d->have_job || d->job.stdin_rank >= d->job.job_size) /* the first job's only */
            break;
        ol_wbuf_t w = { .data = body, .len = len, .cap = len };
        if (ol_daemon_route(d, d->job.rank_node[d->job.stdin_rank], type, &w))
            break;
        uint32_t n;
        const uint8_t *p = ol_r_bytes(&rb, &n);
        if (!rb.failed)
            ol_ranks_stdin(d, p, n);
        break;
    }
    case OL_MSG_KILL:
        ol_daemon_send_children(d, type, body, len);
        ol_ranks_kill(d);
        if (!d->have_job)
            daemon_job_finished(d);
        break;
    case OL_MSG_SHUTDOWN:
        ol_daemon_send_children(d, type, body, len);
        shutdown_now(d);
        break;
    case OL_MSG_SPAWN:
        ol_daemon_send_children(d, type, body, len);
        ol_spawn_check(d, &rb);
        break;
    case OL_MSG_SPAWN_GO: {
        uint32_t no;
        uint8_t go;
        ol_daemon_send_children(d, type, body, len);
        if (ol_msg_spawn_go_decode(&rb, &no, &go) == 0)
            ol_spawn_go(d, no, go);
        break;
    }
    case OL_MSG_SPAWN_DONE: {
        ol_msg_spawn_done_t m;
        if (ol_msg_spawn_done_decode(&rb, &m) != 0)
            break;
        ol_wbuf_t w = { .data = body, .len = len, .cap = len };
        if (!ol_daemon_route(d, m.to_node, type, &w))
            ol_spawn_done(d, &m);
        free(m.nspace);
        break;
    }
    case OL_MSG_NAME_RESP: {
        ol_msg_name_t m;
        if (ol_msg_name_decode(&rb, &m) != 0)
            break;
        ol_wbuf_t w = { .data = body, .len = len, .cap = len };
        if (!ol_daemon_route(d, m.node, type, &w))
            ol_names_response(d, &m);
        ol_msg_name_free(&m);
        break;
    }
    case OL_MSG_FENCE_DOWN: {
        ol_msg_fence_t f;
        ol_daemon_send_children(d, type, body, len);
        if (ol_msg_fence_decode(&rb, &f) == 0)
            ol_modex_fence_down(d, &f);
        break;
    }
    case OL_MSG_DMODEX_REQ: {
        ol_msg_dmodex_t m;
        if (ol_msg_dmodex_req_decode(&rb, &m) == 0)
            ol_modex_request(d, &m);
        break;
    }
    case OL_MSG_DMODEX_RESP: {
        ol_msg_dmodex_t m;
        if (ol_msg_dmodex_resp_decode(&rb, &m) == 0)
            ol_modex_response(d, &m);
        break;
    }
    case OL_MSG_STATE_REQ: {
        ol_msg_state_req_t q;
        ol_daemon_send_children(d, type, body, len);
        if (ol_msg_state_req_decode(&rb, &q) == 0)
            ol_dstate_request(d, &q);
        break;
    }
    case OL_MSG_PING:
        break;
    default:
        ol_log(OL_LOG_WARN, "ignoring unexpected %s message from the parent", ol_msg_type_name(type));
        break;
    }
}

/* A frame from a child daemon: most go up unchanged. */
static void handle_up(struct ol_daemon *d, struct ol_dlink *l, uint16_t type, uint8_t *body, uint32_t len)
{
    ol_rbuf_t rb = { .p = body, .left = len };
    (void)l;
    switch (type) {
    case OL_MSG_FENCE_UP: {
        ol_msg_fence_t f;
        if (ol_msg_fence_decode(&rb, &f) == 0)
            ol_modex_fence_up(d, &f);
        break;
    }
    case OL_MSG_DMODEX_REQ: {
        ol_msg_dmodex_t m;
        if (ol_msg_dmodex_req_decode(&rb, &m) == 0)
            ol_modex_request(d, &m);
        break;
    }
    case OL_MSG_DMODEX_RESP: {
        ol_msg_dmodex_t m;
        if (ol_msg_dmodex_resp_decode(&rb, &m) == 0)
            ol_modex_response(d, &m);
        break;
    }
    case OL_MSG_PING:
        break;
    default: /* HELLO, IO, RANK_EXIT, ERROR, LOST, JOB_DONE */
        if (d->up != NULL)
            ol_frame_send_raw(d->up, type, body, len);
        if (type == OL_MSG_IO)
            ol_ranks_output_check(d);
        break;
    }
}

/* ---- the link to the parent ---- */

static void lost_parent(struct ol_daemon *d)
{
    if (d->up != NULL) {
        bufferevent_free(d->up);
        d->up = NULL;
    }
    ol_names_unreachable(d); /* mpirun will not answer them now */
    ol_ranks_output_check(d); /* nothing is queued now: read the pipes to their end */
    if (d->orphaned)
        return;
    d->orphaned = true;
    /* Children learn it the same way: their link closes. */
    for (uint32_t i = 0; i < d->nchildren; i++) {
        struct ol_dlink *l = d->children[i];
        if (l != NULL && !l->closed) {
            bufferevent_free(l->bev);
            l->bev = NULL;
            l->closed = true;
        }
    }
    if (d->shutting_down || !d->have_job || d->nfinished == d->nranks) {
        daemon_exit_loop(d, d->shutting_down ? 0 : 1);
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
            ol_log(OL_LOG_ERROR, "malformed frame from the parent");
            lost_parent(d);
            return;
        }
        handle_down(d, type, body, len);
        free(body);
    }
}

/* The queue toward the parent fell to its low mark (half the output bound). */
static void on_up_written(struct bufferevent *bev, void *arg)
{
    (void)bev;
    ol_ranks_output_check(arg);
}

static void on_up_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        lost_parent(arg);
}

/* ---- links to children ---- */

static void unlink_pending(struct ol_daemon *d, struct ol_dlink *l)
{
    for (struct ol_dlink **pp = &d->pending; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == l) {
            *pp = l->next;
            d->npending--;
            break;
        }
    }
}

static void link_free(struct ol_daemon *d, struct ol_dlink *l)
{
    unlink_pending(d, l);
    if (l->bev != NULL)
        bufferevent_free(l->bev);
    if (l->timer != NULL)
        event_free(l->timer);
    free(l);
}

static void child_closed(struct ol_daemon *d, struct ol_dlink *l, short what)
{
    if (l->closed)
        return;
    l->closed = true;
    int err = EVUTIL_SOCKET_ERROR();
    bufferevent_free(l->bev);
    l->bev = NULL;
    if (!d->shutting_down && !d->orphaned) {
        char *why = (what & BEV_EVENT_ERROR) && err != 0 && err != ECONNRESET
                        ? ol_xasprintf("stopped answering (%s): the host or its network is gone", strerror(err))
                        : ol_xstrdup("exited unexpectedly");
        send_error(d, OL_MSG_LOST, l->node_id, OL_NO_RANK, why);
        free(why);
    }
    if ((d->shutting_down || (d->orphaned && d->nfinished == d->nranks)) && !children_open(d))
        daemon_exit_loop(d, d->shutting_down ? 0 : 1);
}

static void on_child_read(struct bufferevent *bev, void *arg)
{
    struct ol_dlink *l = arg;
    struct ol_daemon *d = l->d;
    uint16_t type;
    uint8_t *body;
    uint32_t len;
    int rc;
    while (!l->closed && (rc = ol_frame_pop(bufferevent_get_input(bev), &type, &body, &len)) != 0) {
        if (rc < 0) {
            child_closed(d, l, BEV_EVENT_EOF);
            return;
        }
        handle_up(d, l, type, body, len);
        free(body);
    }
}

static void on_child_event(struct bufferevent *bev, short what, void *arg)
{
    struct ol_dlink *l = arg;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
        on_child_read(bev, arg);
        child_closed(l->d, l, what);
    }
}

/* Before HELLO: the first frame must be AUTH with the key, the second a
 * HELLO from one of our children that is not connected yet. */
static void on_pending_read(struct bufferevent *bev, void *arg)
{
    struct ol_dlink *l = arg;
    struct ol_daemon *d = l->d;
    uint16_t type;
    uint8_t *body;
    uint32_t len, id;
    int rc = ol_handshake_read(bufferevent_get_input(bev), d->key, &l->authed, &type, &body,
                               &len, &id);
    if (rc == 0)
        return;
    if (rc > 0 && id >= d->child_first && id - d->child_first < d->nchildren &&
        d->children[id - d->child_first] == NULL) {
        unlink_pending(d, l);
        bufferevent_setwatermark(bev, EV_READ, 0, 0);
        event_free(l->timer);
        l->timer = NULL;
        l->node_id = id;
        d->children[id - d->child_first] = l;
        bufferevent_setcb(bev, on_child_read, NULL, on_child_event, l);
        handle_up(d, l, type, body, len); /* the HELLO goes up */
        free(body);
        on_child_read(bev, l);
        return;
    }
    if (rc > 0)
        free(body);
    ol_info("dropped a connection that did not prove the job key");
    link_free(d, l);
}

static void on_pending_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    struct ol_dlink *l = arg;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        link_free(l->d, l);
}

static void on_pending_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct ol_dlink *l = arg;
    link_free(l->d, l);
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
    (void)what;
    struct ol_daemon *d = arg;
    int fd;
    while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
        ol_net_tune(fd, d->link_timeout_ms);
        if (d->npending >= OL_NET_PENDING_MAX) {
            struct ol_dlink *oldest = d->pending;
            while (oldest->next != NULL)
                oldest = oldest->next;
            ol_info("too many connections without the key: dropped the oldest");
            link_free(d, oldest);
        }
        struct ol_dlink *l = ol_xcalloc(1, sizeof *l);
        l->d = d;
        l->node_id = OL_NO_NODE;
        l->bev = bufferevent_socket_new(d->base, fd, BEV_OPT_CLOSE_ON_FREE);
        l->timer = evtimer_new(d->base, on_pending_timeout, l);
        struct timeval tv = { AUTH_TIMEOUT_S, 0 };
        evtimer_add(l->timer, &tv);
        /* A stranger costs at most this much buffer until the key is proved. */
        bufferevent_setwatermark(l->bev, EV_READ, 0, OL_HANDSHAKE_MAX);
        bufferevent_setcb(l->bev, on_pending_read, NULL, on_pending_event, l);
        bufferevent_enable(l->bev, EV_READ | EV_WRITE);
        l->next = d->pending;
        d->pending = l;
        d->npending++;
    }
}

static void on_ping(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct ol_daemon *d = arg;
    if (d->up != NULL && d->up_tcp)
        ol_frame_send(d->up, OL_MSG_PING, NULL);
    ol_daemon_send_children(d, OL_MSG_PING, NULL, 0);
}

/* ---- signals and PMIx notes ---- */

static void on_signal(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct ol_daemon *d = arg;
    int sig;
    pid_t pid;
    while ((sig = ol_signalfd_read_pid(fd, &pid)) > 0) {
        if (sig == SIGCHLD)
            ol_ranks_reap(d, pid);
        else /* SIGTERM/SIGINT/SIGHUP, or mpirun died (PDEATHSIG) */
            lost_parent(d);
    }
}

static void on_upcall_note(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    struct ol_daemon *d = arg;
    struct ol_upcall_note note;
    while (read(fd, &note, sizeof note) == (ssize_t)sizeof note) {
        switch (note.kind) {
        case OL_UPCALL_ABORT:
            if (note.local_rank < d->nranks) {
                struct ol_rank *r = d->ranks[note.local_rank];
                /* Reported now, not at exit: the rank may wait in PMIx_Abort. */
                ol_daemon_report_exit(d, r, OL_EXIT_ABORT, atomic_load(&r->abort_code));
            }
            break;
        case OL_UPCALL_FENCE:
            ol_modex_local_fence(d, note.ptr);
            break;
        case OL_UPCALL_DMODEX:
            ol_modex_local_request(d, note.ptr);
            break;
        case OL_UPCALL_DMODEX_DONE:
            ol_modex_served(d, note.ptr);
            break;
        case OL_UPCALL_SPAWN:
            ol_spawn_local_call(d, note.ptr);
            break;
        case OL_UPCALL_NAME:
            ol_names_local_call(d, note.ptr);
            break;
        }
    }
}

/* ---- start-up ---- */

struct daemon_args {
    int parent_fd;
    char **connect_addrs;
    uint16_t connect_port;
    char **listen_addrs;
};

static char **split_commas(char *spec)
{
    char *save = NULL;
    char **v = ol_xcalloc(1, sizeof *v);
    for (char *s = strtok_r(spec, ",", &save); s != NULL; s = strtok_r(NULL, ",", &save))
        ol_strv_append(&v, s);
    return v;
}

static int parse_args(int argc, char **argv, struct ol_daemon *d, struct daemon_args *a)
{
    long v;
    a->parent_fd = -1;
    d->fanout = 1u << 30;
    d->nnodes = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--parent-fd") == 0 && i + 1 < argc &&
            ol_parse_long(argv[++i], 0, 1 << 20, &v) == 0) {
            a->parent_fd = (int)v;
        } else if (strcmp(argv[i], "--connect") == 0 && i + 1 < argc) {
            char *spec = argv[++i], *colon = strrchr(spec, ':');
            if (colon == NULL || ol_parse_long(colon + 1, 1, 65535, &v) != 0)
                return -1;
            a->connect_port = (uint16_t)v;
            *colon = '\0';
            a->connect_addrs = split_commas(spec);
        } else if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
            a->listen_addrs = split_commas(argv[++i]);
        } else if (strcmp(argv[i], "--ifname") == 0 && i + 1 < argc) {
            d->ifname = argv[++i];
        } else if (strcmp(argv[i], "--net-test-speed") == 0 && i + 1 < argc) {
            d->net_test_speed = argv[++i];
        } else if (strcmp(argv[i], "--link-timeout-ms") == 0 && i + 1 < argc &&
                   ol_parse_long(argv[++i], 1, 1L << 30, &v) == 0) {
            d->link_timeout_ms = (unsigned)v;
        } else if (strcmp(argv[i], "--node-id") == 0 && i + 1 < argc &&
                   ol_parse_long(argv[++i], 0, UINT32_MAX - 2, &v) == 0) {
            d->node_id = (uint32_t)v;
        } else if (strcmp(argv[i], "--nnodes") == 0 && i + 1 < argc &&
                   ol_parse_long(argv[++i], 1, UINT32_MAX - 2, &v) == 0) {
            d->nnodes = (uint32_t)v;
        } else if (strcmp(argv[i], "--fanout") == 0 && i + 1 < argc &&
                   ol_parse_long(argv[++i], 1, 1L << 30, &v) == 0) {
            d->fanout = (uint32_t)v;
        } else {
            return -1;
        }
    }
    if ((a->parent_fd >= 0) == (a->connect_addrs != NULL) || d->node_id >= d->nnodes)
        return -1;
    return 0;
}

/* The key: the first line of stdin, from mpirun directly (forked) or
 * through the launch agent. */
static char *read_key(void)
{
    char buf[OL_KEY_HEX_LEN + 2];
    size_t got = 0;
    while (got < sizeof buf - 1) {
        ssize_t n = read(STDIN_FILENO, buf + got, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || buf[got] == '\n')
            break;
        got++;
    }
    buf[got] = '\0';
    return got == OL_KEY_HEX_LEN ? ol_xstrdup(buf) : NULL;
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

static int setup_events(struct ol_daemon *d, int up_fd)
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
    ol_set_cloexec(up_fd, true);
    ol_set_nonblock(up_fd, true);
    d->up = bufferevent_socket_new(d->base, up_fd, BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(d->up, on_up_read, on_up_written, on_up_event, d);
    bufferevent_enable(d->up, EV_READ | EV_WRITE);
    if (d->up_tcp || d->nchildren > 0) {
        struct timeval tv = { 0, OL_NET_PING_MS * 1000 };
        d->ping_ev = event_new(d->base, -1, EV_PERSIST, on_ping, d);
        event_add(d->ping_ev, &tv);
    }
    return 0;
}

/* The IPv4 addresses of the interfaces the job uses (at most
 * OL_NET_LISTEN_MAX); none where it uses RDMA ports only. */
static char **selected_addrs(const ol_netif_list_t *l)
{
    char **v = ol_xcalloc(1, sizeof *v);
    for (size_t i = 0; i < l->n && ol_strv_len(v) < OL_NET_LISTEN_MAX; i++) {
        if (l->ifs[i].selected && l->ifs[i].addr[0])
            ol_strv_append(&v, l->ifs[i].addr);
    }
    return v;
}

/* This host's interfaces and the choice OMPI_LITE_IFNAME makes among them:
 * for the listener and for HELLO (mpirun compares the hosts' links). 0, or
 * -1 with *err (an IFNAME that takes nothing here, with what the host has). */
static int choose_netifs(struct ol_daemon *d, char **err)
{
    if (ol_netif_scan(&d->netifs, d->net_test_speed, err) != 0)
        return -1;
    return ol_netif_select(&d->netifs, d->ifname, err);
}

/* HELLO's netifs: one line per interface (ol_netif_describe). */
static char **describe_netifs(const ol_netif_list_t *l)
{
    char **v = ol_xcalloc(1, sizeof *v);
    for (size_t i = 0; i < l->n; i++) {
        char *line = ol_netif_describe(&l->ifs[i]);
        if (line != NULL)
            ol_strv_append(&v, line);
        free(line);
    }
    return v;
}

/* Where children will reach us: what mpirun said (--listen), else with
 * OMPI_LITE_IFNAME the addresses of the interfaces it takes, else the
 * address our TCP parent link leaves from (the network the job uses),
 * else every non-loopback address. Never the wildcard address. */
static char **listen_addrs(struct ol_daemon *d, struct daemon_args *a, int up_fd)
{
    if (a->listen_addrs != NULL && a->listen_addrs[0] != NULL)
        return ol_strv_dup(a->listen_addrs);
    char **chosen = d->ifname ? selected_addrs(&d->netifs) : NULL;
    if (chosen != NULL && chosen[0] != NULL)
        return chosen;
    ol_strv_free(chosen);
    char *own = d->up_tcp ? ol_net_sock_addr(up_fd) : NULL;
    if (own != NULL && strncmp(own, "127.", 4) != 0) {
        char **v = ol_xcalloc(1, sizeof *v);
        ol_strv_append(&v, own);
        free(own);
        return v;
    }
    /* A parent on this very host (loopback): children may be here too. */
    bool loopback = own != NULL;
    free(own);
    return ol_net_local_addrs(loopback);
}

static int setup_children(struct ol_daemon *d, struct daemon_args *a, int up_fd, char **err)
{
    ol_tree_children(d->node_id, d->fanout, d->nnodes, &d->child_first, &d->nchildren);
    if (d->nchildren == 0)
        return 0;
    if (d->key == NULL) {
        *err = ol_xstrdup("no job key to check child daemons with");
        return -1;
    }
    d->children = ol_xcalloc(d->nchildren, sizeof *d->children);
    d->listen_addrs = listen_addrs(d, a, up_fd);
    d->nlisten = ol_net_listen(d->listen_addrs, &d->port, d->listen_fds, err);
    return d->nlisten < 0 ? -1 : 0;
}

static void send_hello(struct ol_daemon *d)
{
    char *none[] = { NULL };
    ol_msg_hello_t m = { .version = OL_PROTO_VERSION, .node_id = d->node_id, .pid = (uint32_t)getpid(),
                         .hostname = (char *)ol_hostname(), .port = d->port,
                         .addrs = d->listen_addrs ? d->listen_addrs : none };
    m.netifs = describe_netifs(&d->netifs);
    ol_wbuf_t w = { 0 };
    ol_msg_hello_encode(&m, &w);
    ol_daemon_send(d, OL_MSG_HELLO, &w);
    ol_wbuf_free(&w);
    ol_strv_free(m.netifs);
}

/* Makes sure the last frames reach the parent: those queued in the loop's
 * last round (the STATE answering a STATE_REQ that came just before
 * SHUTDOWN, an ERROR before exiting) were never written by libevent. A
 * socket bufferevent keeps the start of its output buffer frozen while it
 * owns the writing, and evbuffer_write() on a frozen buffer writes nothing;
 * the loop is over, so we take the writing over: unfreeze, write blocking. */
static void flush_upstream(struct ol_daemon *d)
{
    if (d->up == NULL)
        return;
    int fd = bufferevent_getfd(d->up);
    struct evbuffer *out = bufferevent_get_output(d->up);
    if (fd < 0 || evbuffer_get_length(out) == 0)
        return;
    bufferevent_disable(d->up, EV_WRITE);
    evbuffer_unfreeze(out, 1);
    ol_set_nonblock(fd, false);
    while (evbuffer_get_length(out) > 0) {
        if (evbuffer_write(out, fd) <= 0) {
            ol_info("could not send the last %zu bytes to the parent: %s", evbuffer_get_length(out),
                    strerror(errno));
            break;
        }
    }
}

static void teardown(struct ol_daemon *d)
{
    ol_ranks_free(d);
    ol_modex_free(d);
    ol_spawn_free(d);
    if (d->have_job)
        ol_msg_launch_free(&d->job);
    if (d->up)
        bufferevent_free(d->up);
    while (d->pending != NULL)
        link_free(d, d->pending);
    for (uint32_t i = 0; i < d->nchildren; i++) {
        if (d->children[i] != NULL)
            link_free(d, d->children[i]);
    }
    free(d->children);
    for (int i = 0; i < d->nlisten; i++) {
        if (d->listen_evs[i])
            event_free(d->listen_evs[i]);
        close(d->listen_fds[i]);
    }
    ol_strv_free(d->listen_addrs);
    ol_netif_free(&d->netifs);
    if (d->ping_ev)
        event_free(d->ping_ev);
    event_free(d->sig_ev);
    event_free(d->upcall_ev);
    event_base_free(d->base);
    free(d->key);
}

/* A frame as bytes, header and body, for writing without the event loop. */
static void whole_frame(uint16_t type, const ol_wbuf_t *body, ol_wbuf_t *frame)
{
    uint32_t n = (uint32_t)body->len;
    uint8_t hdr[OL_FRAME_HDR_LEN] = { (uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8), (uint8_t)n,
                                      (uint8_t)(type >> 8), (uint8_t)type, 0, 0 };
    ol_w_append(frame, hdr, sizeof hdr);
    ol_w_append(frame, body->data, body->len);
}

/* ---- the bounded end ----
 *
 * After the loop the daemon flushes its last frames and finalizes PMIx.
 * PMIx 4.2 can hang in PMIx_server_finalize for ever (after a stranger's
 * connection claimed a rank of the job, or on a lock its progress thread
 * left taken), and mpirun would wait for us for ever. So that part gets
 * FINISH_TIMEOUT_S: then SIGALRM's handler kills the ranks that are left,
 * tells the parent (LOST about ourselves, which mpirun prints) and exits.
 * The handler makes async-signal-safe calls only, on data prepared here. */
static struct {
    struct ol_daemon *d;
    int up_fd;                   /* set once the last frames are out */
    ol_wbuf_t frame;
} finish;

static void on_finish_timeout(int sig)
{
    (void)sig;
    struct ol_daemon *d = finish.d;
    for (uint32_t i = 0; i < d->nranks; i++) {
        if (d->ranks[i]->pid > 0 && !d->ranks[i]->reaped)
            ol_rank_kill(d->ranks[i]->pid, SIGKILL);
    }
    if (finish.up_fd >= 0)
        (void)!send(finish.up_fd, finish.frame.data, finish.frame.len, MSG_NOSIGNAL | MSG_DONTWAIT);
    _exit(1);
}

static void arm_finish_watchdog(struct ol_daemon *d)
{
    char text[128];
    snprintf(text, sizeof text, "did not finish within %d s after the job (PMIx_server_finalize hung); it was killed",
             FINISH_TIMEOUT_S);
    ol_msg_error_t m = { .node_id = d->node_id, .rank = OL_NO_RANK, .text = text };
    ol_wbuf_t body = { 0 };
    ol_msg_error_encode(&m, &body);
    whole_frame(OL_MSG_LOST, &body, &finish.frame);
    ol_wbuf_free(&body);
    finish.d = d;
    finish.up_fd = -1;
    struct sigaction sa = { .sa_handler = on_finish_timeout };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm(FINISH_TIMEOUT_S);
}

/* Connects to the parent and proves the key; the fd, or -1 (logged). */
static int connect_parent(struct ol_daemon *d, struct daemon_args *a)
{
    char *err = NULL;
    int fd = ol_net_connect_any(a->connect_addrs, a->connect_port, CONNECT_TIMEOUT_MS, &err);
    if (fd < 0) {
        ol_log(OL_LOG_ERROR, "%s", err);
        free(err);
        return -1;
    }
    ol_net_tune(fd, d->link_timeout_ms);
    ol_wbuf_t body = { 0 }, frame = { 0 };
    ol_w_bytes(&body, d->key, strlen(d->key));
    /* By hand: no event loop yet, and this must go out first. */
    whole_frame(OL_MSG_AUTH, &body, &frame);
    int rc = ol_write_all(fd, frame.data, frame.len);
    ol_wbuf_free(&body);
    ol_wbuf_free(&frame);
    if (rc != 0) {
        close(fd);
        return -1;
    }
    d->up_tcp = true;
    return fd;
}

int main(int argc, char **argv)
{
    struct ol_daemon d = { .sigfd = -1, .upcall_pipe = { -1, -1 }, .pmix_dir_lock = -1 };
    d.link_timeout_ms = (unsigned)ol_launcher_params[OL_LAUNCHER_LINK_TIMEOUT_MS].default_value;
    struct daemon_args a = { 0 };
    char *err = NULL;
    ol_log_init("ompi-lite-daemon");
    if (parse_args(argc, argv, &d, &a) != 0) {
        fprintf(stderr, "ompi-lite-daemon: started by mpirun only (usage: --parent-fd FD | --connect "
                        "ADDRS:PORT, --node-id N --nnodes M --fanout K)\n");
        return 2;
    }
    d.key = read_key();
    if (a.connect_addrs != NULL && d.key == NULL) {
        ol_log(OL_LOG_ERROR, "no job key on stdin or in the environment");
        return 2;
    }
    /* mpirun (or the agent) dying takes us down the same way as a lost link. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    sanitize_std_fds();
    /* An IFNAME this host cannot follow ends the daemon before it connects:
     * mpirun listens on that network only, so this host may not reach it;
     * the line reaches mpirun through the agent's output (which names the
     * host) either way. */
    if (choose_netifs(&d, &err) != 0) {
        ol_log(OL_LOG_ERROR, "%s", err ? err : "out of memory");
        return 1;
    }
    int up_fd = a.parent_fd;
    if (a.connect_addrs != NULL && (up_fd = connect_parent(&d, &a)) < 0)
        return 1;
    ol_strv_free(a.connect_addrs);
    if (setup_children(&d, &a, up_fd, &err) != 0 || setup_events(&d, up_fd) != 0) {
        ol_log(OL_LOG_ERROR, "cannot set up: %s", err ? err : strerror(errno));
        return 1;
    }
    ol_strv_free(a.listen_addrs);
    for (int i = 0; i < d.nlisten; i++) {
        d.listen_evs[i] = event_new(d.base, d.listen_fds[i], EV_READ | EV_PERSIST, on_accept, &d);
        event_add(d.listen_evs[i], NULL);
    }
    if (ol_dpmix_init(&d, &err) != 0) {
        send_error(&d, OL_MSG_ERROR, d.node_id, OL_NO_RANK, err);
        flush_upstream(&d);
        free(err);
        ol_dpmix_remove_dir(&d);
        teardown(&d);
        return 1;
    }
    ol_trace("PMIx server up");
    send_hello(&d);
    event_base_dispatch(d.base);
    arm_finish_watchdog(&d);
    flush_upstream(&d);
    finish.up_fd = d.up != NULL ? bufferevent_getfd(d.up) : -1;
    /* Ranks are all reaped here, unless we were told to exit early. */
    if (d.nfinished < d.nranks) {
        ol_ranks_kill(&d);
        ol_ranks_kill_now(&d);
    }
    ol_names_unreachable(&d); /* answered before PMIx goes, as every upcall is */
    ol_trace("finalizing PMIx");
    ol_dpmix_finalize(&d);
    ol_trace("exiting");
    teardown(&d);
    alarm(0);
    ol_wbuf_free(&finish.frame);
    return d.exit_status;
}
