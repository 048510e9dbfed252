/* The ranks' state records (ompi-lite/include/ol_state.h), as the daemon
 * keeps and reads them: one shared-memory record per rank, created before
 * the fork (so even a rank that never reaches MPI_Init has one) and kept
 * mapped after the rank ends (so a dead rank's last call is still known);
 * a sampler that notes when each rank's current call began; the answer to
 * STATE_REQ, with each rank's stack from gdb when asked.
 *
 * Why sampling: the rank writes no clock (the record must cost a few
 * nanoseconds per call), so "since when" is the first time the daemon saw
 * the call, to within the sampling period. Reading a record is a few cache
 * lines, every SAMPLE_MS: the one timer in the daemon besides the kill grace
 * and the drain bound. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include <mpi.h>

#include "daemon.h"
#include "util.h"

#define SAMPLE_MS 200
#define STACK_TIMEOUT_S 15
#define READ_TRIES 8

/* ---- creating and mapping ---- */

int ol_dstate_create(struct ol_rank *r)
{
    r->state_fd = memfd_create("ompi-lite-state", MFD_CLOEXEC);
    if (r->state_fd < 0)
        return -1;
    void *p = MAP_FAILED;
    if (ftruncate(r->state_fd, sizeof(ol_state_record_t)) == 0)
        p = mmap(NULL, sizeof(ol_state_record_t), PROT_READ | PROT_WRITE, MAP_SHARED, r->state_fd, 0);
    if (p == MAP_FAILED) {
        close(r->state_fd);
        r->state_fd = -1;
        return -1;
    }
    r->state = p;
    r->state->magic = OL_STATE_MAGIC;
    r->state->version = OL_STATE_VERSION;
    r->state->size = sizeof(ol_state_record_t);
    return 0;
}

void ol_dstate_forked(struct ol_rank *r)
{
    if (r->state_fd >= 0)
        close(r->state_fd);
    r->state_fd = -1;
}

/* ---- reading a record ---- */

struct snapshot {
    uint8_t where;
    uint64_t seq;
    bool has_call;
    ol_state_call_t call;
};

/* Copies the slot of call `want`; false when the rank has reused the slot
 * before or during the copy. */
static bool read_call(const ol_state_record_t *rec, uint64_t want, ol_state_call_t *call)
{
    const ol_state_call_t *slot = &rec->history[want & (OL_STATE_HISTORY - 1)];
    *call = *slot;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return call->seq == want && __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) == want;
}

/* A consistent view: the slot must still hold the call it was read for,
 * and no call may have begun meanwhile (the rank keeps running). A rank
 * that calls MPI_Test in a tight loop may never leave the record still for
 * long enough: then the last whole call read stands for it. */
static void read_record(const struct ol_rank *r, struct snapshot *s)
{
    memset(s, 0, sizeof *s);
    const ol_state_record_t *rec = r->state;
    if (rec == NULL || !__atomic_load_n(&rec->attached, __ATOMIC_ACQUIRE)) {
        s->where = OL_WHERE_NO_RECORD;
        return;
    }
    struct snapshot moving = { 0 };
    for (int i = 0; i < READ_TRIES; i++) {
        uint64_t seq = __atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE);
        uint64_t active = __atomic_load_n(&rec->active, __ATOMIC_ACQUIRE);
        uint64_t want = active ? active : seq;
        s->seq = seq;
        s->where = seq == 0 ? OL_WHERE_BEFORE_INIT : active ? OL_WHERE_IN_MPI : OL_WHERE_OUTSIDE;
        if (want == 0)
            return;
        s->has_call = read_call(rec, want, &s->call);
        if (__atomic_load_n(&rec->seq, __ATOMIC_ACQUIRE) == seq)
            return;
        if (s->has_call)
            moving = *s;
    }
    if (moving.has_call)
        *s = moving;
}

/* What identifies "the same call": a rank polling MPI_Test or MPI_Iprobe in
 * a loop is one wait, not thousands of calls. Only the fields the call's
 * flags name count: the others hold what an earlier call left in the slot. */
static uint64_t call_signature(const struct snapshot *s)
{
    const ol_state_call_t *c = &s->call;
    uint16_t f = c->flags;
    const uint64_t v[] = { c->fn,
                           f & OL_STATE_HAS_COMM ? c->ctx : 0,
                           f & (OL_STATE_HAS_DEST | OL_STATE_HAS_ROOT) ? (uint32_t)c->dest : 0,
                           f & OL_STATE_HAS_SOURCE ? (uint32_t)c->source : 0,
                           f & OL_STATE_HAS_TAG ? (uint32_t)c->tag : 0,
                           f & OL_STATE_HAS_RTAG ? (uint32_t)c->rtag : 0,
                           f & OL_STATE_COLLECTIVE ? c->coll_seq : 0,
                           s->has_call };
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        h = (h ^ v[i]) * 1099511628211ull;
    return h;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A new call resets the clock, unless it is the same call again; so does
 * leaving MPI into user code, or entering it. A read that never caught a
 * whole call (a rank polling faster than the read, or the daemon
 * descheduled in the middle of it on a loaded host) tells nothing: it
 * would look like another call and reset the clock of a rank that has
 * polled the same MPI_Testall for seconds ("for 0.0 s", seen once in a
 * parallel make check). */
static void sample_rank(struct ol_rank *r, uint64_t now)
{
    struct snapshot s;
    read_record(r, &s);
    if (r->since_ns != 0 && !s.has_call && s.seq != 0)
        return;
    uint64_t sig = call_signature(&s);
    if (r->since_ns == 0 || sig != r->seen_sig ||
        (s.seq == r->seen_seq && s.where != r->seen_where)) {
        r->since_ns = now;
        r->repeats = 0;
    } else if (s.seq != r->seen_seq) {
        r->repeats += (uint32_t)(s.seq - r->seen_seq);
    }
    r->seen_sig = sig;
    r->seen_seq = s.seq;
    r->seen_where = s.where;
}

static void sample_all(struct ol_daemon *d)
{
    uint64_t now = now_ns();
    for (uint32_t i = 0; i < d->nranks; i++)
        if (d->ranks[i]->pid > 0 && !d->ranks[i]->reaped)
            sample_rank(d->ranks[i], now);
}

static void on_sample(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    sample_all(arg);
}

void ol_dstate_start(struct ol_daemon *d)
{
    struct timeval tv = { 0, SAMPLE_MS * 1000 };
    d->state_timer = event_new(d->base, -1, EV_PERSIST, on_sample, d);
    event_add(d->state_timer, &tv);
    sample_all(d);
}

/* ---- names ---- */

static char *fn_name(const ol_state_record_t *rec, uint16_t fn)
{
    uint32_t len = rec->fn_names_len < OL_STATE_FN_NAMES ? rec->fn_names_len : OL_STATE_FN_NAMES;
    const char *p = rec->fn_names, *end = rec->fn_names + len;
    for (uint16_t i = 0; i < fn && p < end; i++)
        p += strnlen(p, (size_t)(end - p)) + 1;
    if (p >= end)
        return ol_xasprintf("MPI call %u", fn);
    return strndup(p, (size_t)(end - p));
}

static char *comm_name(const ol_state_record_t *rec, uint32_t ctx)
{
    for (uint32_t i = 0; i < OL_STATE_COMMS; i++) {
        const ol_state_comm_t *c = &rec->comms[i];
        if (__atomic_load_n(&c->used, __ATOMIC_ACQUIRE) && c->ctx == ctx)
            return strndup(c->name, sizeof c->name);
    }
    return NULL;
}

/* The predefined datatypes people pass most; others show as derived. */
static char *dtype_name(uint64_t handle)
{
    static const struct { MPI_Datatype dt; const char *name; } known[] = {
        { MPI_CHAR, "char" }, { MPI_SIGNED_CHAR, "signed char" }, { MPI_UNSIGNED_CHAR, "unsigned char" },
        { MPI_BYTE, "byte" }, { MPI_SHORT, "short" }, { MPI_UNSIGNED_SHORT, "unsigned short" },
        { MPI_INT, "int" }, { MPI_UNSIGNED, "unsigned" }, { MPI_LONG, "long" },
        { MPI_UNSIGNED_LONG, "unsigned long" }, { MPI_LONG_LONG, "long long" },
        { MPI_FLOAT, "float" }, { MPI_DOUBLE, "double" }, { MPI_LONG_DOUBLE, "long double" },
        { MPI_INT8_T, "int8_t" }, { MPI_INT16_T, "int16_t" }, { MPI_INT32_T, "int32_t" },
        { MPI_INT64_T, "int64_t" }, { MPI_UINT8_T, "uint8_t" }, { MPI_UINT16_T, "uint16_t" },
        { MPI_UINT32_T, "uint32_t" }, { MPI_UINT64_T, "uint64_t" }, { MPI_C_BOOL, "bool" },
        { MPI_PACKED, "packed" }, { MPI_DOUBLE_INT, "double_int" }, { MPI_2INT, "2int" },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if ((uint64_t)(uintptr_t)known[i].dt == handle)
            return ol_xstrdup(known[i].name);
    return NULL;
}

static void describe_call(const ol_state_record_t *rec, const ol_state_call_t *c, ol_call_desc_t *out)
{
    out->seq = (uint32_t)c->seq;
    out->fn = fn_name(rec, c->fn);
    out->flags = c->flags;
    out->ctx = c->ctx;
    out->comm = (c->flags & OL_STATE_HAS_COMM) ? comm_name(rec, c->ctx) : NULL;
    out->comm_size = c->comm_size;
    out->coll_seq = c->coll_seq;
    out->dest = c->dest;
    out->dest_world = c->dest_world;
    out->tag = c->tag;
    out->source = c->source;
    out->source_world = c->source_world;
    out->rtag = c->rtag;
    out->count = c->count;
    out->dtype = (c->flags & OL_STATE_HAS_DTYPE) ? dtype_name(c->datatype) : NULL;
}

/* The list is current only while the rank is still in the call during
 * which it slept: after that call returned, its requests may have
 * completed (a rank in user code lists nothing). */
static void describe_pending(const ol_state_record_t *rec, const struct snapshot *snap,
                             ol_rank_state_t *s)
{
    uint64_t at = __atomic_load_n(&rec->pending_at, __ATOMIC_ACQUIRE);
    s->pending_known = at != 0 && snap->where == OL_WHERE_IN_MPI && at == snap->seq &&
                       __atomic_load_n(&rec->active, __ATOMIC_ACQUIRE) == at;
    if (!s->pending_known)
        return;
    s->pending_total = rec->pending_total;
    s->npending = rec->pending_count < OL_STATE_PENDING ? rec->pending_count : OL_STATE_PENDING;
    s->pending = ol_xcalloc(s->npending + 1, sizeof *s->pending);
    for (uint32_t i = 0; i < s->npending; i++) {
        const ol_state_op_t *o = &rec->pending[i];
        s->pending[i] = (ol_op_desc_t){ .kind = (uint8_t)o->kind, .comm = comm_name(rec, o->ctx),
                                        .ctx = o->ctx, .peer = o->peer, .peer_world = o->peer_world,
                                        .tag = o->tag, .count = o->count };
    }
}

static char *exit_text(int wstatus)
{
    if (WIFSIGNALED(wstatus))
        return ol_xasprintf("was killed by signal %d (%s)", WTERMSIG(wstatus),
                            ol_signal_name(WTERMSIG(wstatus)));
    return ol_xasprintf("exited with code %d", WEXITSTATUS(wstatus));
}

static void describe_rank(struct ol_rank *r, uint64_t now, ol_rank_state_t *s)
{
    struct snapshot snap;
    read_record(r, &snap);
    s->rank = r->rank;
    s->pid = (uint32_t)r->pid;
    s->where = snap.where;
    if (r->pid <= 0)
        s->where = OL_WHERE_NOT_STARTED;
    else if (r->reaped) {
        s->where = OL_WHERE_EXITED;
        s->exit_text = exit_text(r->wstatus);
    }
    s->since_ms = r->since_ns && !r->reaped ? (uint32_t)((now - r->since_ns) / 1000000) : 0;
    s->repeats = r->repeats;
    s->has_call = snap.has_call;
    if (snap.has_call)
        describe_call(r->state, &snap.call, &s->call);
    if (r->state != NULL && snap.where != OL_WHERE_NO_RECORD)
        describe_pending(r->state, &snap, s);
    s->stack = r->stack;
    r->stack = NULL;
}

static void send_states(struct ol_daemon *d, uint32_t req_id)
{
    sample_all(d);
    /* Read after sampling: a call that sampling saw first (stamped with its
     * own clock reading) must not start after `now`, or its duration
     * wraps around (a rank "in MPI_Finalize for 4154504.7 s"). */
    uint64_t now = now_ns();
    /* The first job's ranks (the first d->ranks) only: mpirun's analysis
     * knows that job's communicators and ranks, not a spawn's. */
    uint32_t n = d->jobs[0] != NULL ? d->jobs[0]->nlocal : 0;
    ol_msg_state_t m = { .req_id = req_id, .node_id = d->node_id, .n = n };
    m.ranks = ol_xcalloc(n + 1, sizeof *m.ranks);
    for (uint32_t i = 0; i < n; i++)
        describe_rank(d->ranks[i], now, &m.ranks[i]);
    ol_wbuf_t w = { 0 };
    ol_msg_state_encode(&m, &w);
    ol_daemon_send(d, OL_MSG_STATE, &w);
    ol_wbuf_free(&w);
    ol_msg_state_free(&m);
}

/* ---- stacks ---- */

static bool gdb_installed(void)
{
    char *path = NULL;
    bool found = ol_find_program("gdb", NULL, NULL, &path) == 0;
    free(path);
    return found;
}

/* gdb's frames ("#0 ...") and thread headers; its chatter otherwise, so
 * that a failure to attach says why. */
static char *filter_stack(const char *out)
{
    char *kept = ol_xstrdup("");
    char *copy = ol_xstrdup(out);
    for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] != '#' && strncmp(line, "Thread ", 7) != 0)
            continue;
        char *next = ol_xasprintf("%s%s\n", kept, line);
        free(kept);
        kept = next;
    }
    free(copy);
    if (*kept)
        return kept;
    free(kept);
    return ol_xasprintf("no stack: gdb could not read it: %s", *out ? out : "(no output)");
}

static void stacks_check_done(struct ol_daemon *d)
{
    if (d->stacks_running > 0)
        return;
    if (d->stack_timer) {
        event_free(d->stack_timer);
        d->stack_timer = NULL;
    }
    send_states(d, d->state_req_id);
}

static void gdb_finished(struct ol_rank *r)
{
    struct evbuffer *in = bufferevent_get_input(r->gdb_out);
    size_t len = evbuffer_get_length(in);
    char *text = ol_xmalloc(len + 1);
    evbuffer_remove(in, text, len);
    text[len] = '\0';
    r->stack = filter_stack(text);
    free(text);
    bufferevent_free(r->gdb_out);
    r->gdb_out = NULL;
    r->gdb_pid = 0; /* reaped by the daemon's SIGCHLD loop, which ignores it */
    r->d->stacks_running--;
    stacks_check_done(r->d);
}

static void on_gdb_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        gdb_finished(arg);
}

static void on_stack_timeout(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct ol_daemon *d = arg;
    for (uint32_t i = 0; i < d->nranks; i++)
        if (d->ranks[i]->gdb_pid > 0)
            kill(d->ranks[i]->gdb_pid, SIGKILL); /* its pipe then reaches EOF */
}

/* Between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn)) exec_gdb(int out, const char *pid)
{
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0)
        dup2(devnull, STDIN_FILENO);
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
    ol_child_reset_signals();
    execlp("gdb", "gdb", "-nx", "-batch", "-p", pid, "-ex", "thread apply all bt", (char *)NULL);
    _exit(127);
}

static void start_gdb(struct ol_daemon *d, struct ol_rank *r)
{
    int p[2];
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)r->pid);
    if (pipe2(p, O_CLOEXEC) != 0) {
        r->stack = ol_xasprintf("no stack: %s", strerror(errno));
        return;
    }
    pid_t child = fork();
    if (child == 0)
        exec_gdb(p[1], pid);
    close(p[1]);
    if (child < 0) {
        close(p[0]);
        r->stack = ol_xasprintf("no stack: cannot start gdb: %s", strerror(errno));
        return;
    }
    r->gdb_pid = child;
    ol_set_nonblock(p[0], true);
    r->gdb_out = bufferevent_socket_new(d->base, p[0], BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(r->gdb_out, NULL, NULL, on_gdb_event, r);
    bufferevent_enable(r->gdb_out, EV_READ);
    d->stacks_running++;
}

/* gdb for every live rank at once (each attach takes about a second). */
static void start_stacks(struct ol_daemon *d)
{
    bool have_gdb = gdb_installed();
    for (uint32_t i = 0; i < d->nranks; i++) {
        struct ol_rank *r = d->ranks[i];
        free(r->stack);
        r->stack = NULL;
        if (r->pid <= 0 || r->reaped)
            continue;
        if (!have_gdb)
            r->stack = ol_xasprintf("no stack: gdb is not installed on host %s", ol_hostname());
        else
            start_gdb(d, r);
    }
    struct timeval tv = { STACK_TIMEOUT_S, 0 };
    d->stack_timer = evtimer_new(d->base, on_stack_timeout, d);
    evtimer_add(d->stack_timer, &tv);
}

void ol_dstate_request(struct ol_daemon *d, const ol_msg_state_req_t *q)
{
    if (d->stacks_running > 0) /* one report at a time; the first one answers */
        return;
    d->state_req_id = q->req_id;
    if (q->stacks && d->have_job)
        start_stacks(d);
    stacks_check_done(d);
}

void ol_dstate_free(struct ol_daemon *d)
{
    if (d->state_timer)
        event_free(d->state_timer);
    d->state_timer = NULL;
    if (d->stack_timer)
        event_free(d->stack_timer);
    d->stack_timer = NULL;
    for (uint32_t i = 0; i < d->nranks; i++) {
        struct ol_rank *r = d->ranks[i];
        if (r->gdb_out)
            bufferevent_free(r->gdb_out);
        if (r->gdb_pid > 0)
            kill(r->gdb_pid, SIGKILL);
        if (r->state)
            munmap(r->state, sizeof(ol_state_record_t));
        if (r->state_fd >= 0)
            close(r->state_fd);
        free(r->stack);
    }
}
