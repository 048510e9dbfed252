/* The state report: each rank's state (as its daemon read it from the
 * rank's record) grouped into lines, and the matching analysis that says
 * why a rank waits: a receive whose source has no matching send pending, a
 * send whose destination has posted no matching receive, a collective that
 * some ranks of its communicator have not entered.
 *
 *   ompi-lite state report (4 ranks, 3.0 s after the start):
 *     ranks 0-2 (h0, h1): MPI_Barrier #1 on MPI_COMM_WORLD for 2.9 s; rank 3 has not entered it
 *     rank 3 (h1, pid 4411): MPI_Recv(source=0, tag=9, MPI_COMM_WORLD, 1 int) for 2.9 s;
 *         rank 0 has no matching send pending (it is in MPI_Barrier #1 on MPI_COMM_WORLD)
 *   after the report: ... */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "mpirun_state.h"
#include "ol_state.h"
#include "util.h"

#define NO_ANSWER 0xff /* `where` of a rank whose daemon did not answer */

struct ol_report {
    uint32_t n;
    const char *const *host;
    ol_rank_state_t *ranks; /* by rank */
};

struct ol_report *ol_report_new(uint32_t job_size)
{
    struct ol_report *rep = ol_xcalloc(1, sizeof *rep);
    rep->n = job_size;
    rep->ranks = ol_xcalloc(job_size + 1, sizeof *rep->ranks);
    for (uint32_t r = 0; r < job_size; r++) {
        rep->ranks[r].rank = r;
        rep->ranks[r].where = NO_ANSWER;
    }
    return rep;
}

void ol_report_set_hosts(struct ol_report *rep, const char *const *host)
{
    rep->host = host;
}

void ol_report_add(struct ol_report *rep, ol_msg_state_t *m)
{
    for (uint32_t i = 0; i < m->n; i++) {
        ol_rank_state_t *s = &m->ranks[i];
        if (s->rank >= rep->n)
            continue;
        ol_rank_state_free(&rep->ranks[s->rank]);
        rep->ranks[s->rank] = *s;
        memset(s, 0, sizeof *s);
    }
}

bool ol_report_has_mpi(const struct ol_report *rep)
{
    for (uint32_t r = 0; r < rep->n; r++)
        if (rep->ranks[r].has_call)
            return true;
    return false;
}

void ol_report_free(struct ol_report *rep)
{
    if (rep == NULL)
        return;
    for (uint32_t r = 0; r < rep->n; r++)
        ol_rank_state_free(&rep->ranks[r]);
    free(rep->ranks);
    free(rep);
}

/* ---- a growing string ---- */

struct text {
    char *s;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    char *piece;
    va_start(ap, fmt);
    if (vasprintf(&piece, fmt, ap) < 0)
        piece = NULL;
    va_end(ap);
    char *next = ol_xasprintf("%s%s", t->s ? t->s : "", piece ? piece : "");
    free(piece);
    free(t->s);
    t->s = next;
}

/* ---- describing a call ---- */

static bool has(const ol_call_desc_t *c, unsigned flag)
{
    return (c->flags & flag) != 0;
}

static void add_rank_arg(struct text *t, const char *name, int32_t rank, int32_t world, bool world_comm)
{
    if (rank == MPI_ANY_SOURCE)
        add(t, "%s=MPI_ANY_SOURCE", name);
    else if (rank == MPI_PROC_NULL)
        add(t, "%s=MPI_PROC_NULL", name);
    else if (world_comm || rank == world)
        add(t, "%s=%d", name, rank);
    else
        add(t, "%s=%d (rank %d)", name, rank, world);
}

static void add_tag_arg(struct text *t, const char *name, int32_t tag)
{
    if (tag == MPI_ANY_TAG)
        add(t, ", %s=MPI_ANY_TAG", name);
    else
        add(t, ", %s=%d", name, tag);
}

static const char *comm_of(const ol_call_desc_t *c)
{
    return c->comm ? c->comm : "a communicator";
}

static void add_count(struct text *t, const ol_call_desc_t *c, const char *sep)
{
    if (!has(c, OL_STATE_HAS_COUNT))
        return;
    if (c->dtype)
        add(t, "%s%lld %s%s", sep, (long long)c->count, c->dtype, c->count == 1 ? "" : "s");
    else
        add(t, "%s%lld elements of a derived datatype", sep, (long long)c->count);
}

/* "MPI_Allreduce #12 on MPI_COMM_WORLD, 8 doubles" or
 * "MPI_Recv(source=3, tag=9, MPI_COMM_WORLD, 1 int)". */
static void add_call(struct text *t, const ol_call_desc_t *c)
{
    bool world = c->comm && strcmp(c->comm, "MPI_COMM_WORLD") == 0;
    if (has(c, OL_STATE_COLLECTIVE)) {
        add(t, "%s #%u on %s", c->fn, c->coll_seq + 1, comm_of(c));
        if (has(c, OL_STATE_HAS_ROOT))
            add(t, ", root %d", c->dest);
        add_count(t, c, ", ");
        return;
    }
    if (!has(c, OL_STATE_HAS_COMM)) {
        add(t, "%s", c->fn);
        return;
    }
    add(t, "%s(", c->fn);
    const char *sep = "";
    if (has(c, OL_STATE_HAS_DEST)) {
        add_rank_arg(t, "dest", c->dest, c->dest_world, world);
        if (has(c, OL_STATE_HAS_TAG))
            add_tag_arg(t, "tag", c->tag);
        sep = ", ";
    }
    if (has(c, OL_STATE_HAS_SOURCE)) {
        add(t, "%s", sep);
        add_rank_arg(t, "source", c->source, c->source_world, world);
        if (has(c, OL_STATE_HAS_RTAG))
            add_tag_arg(t, has(c, OL_STATE_HAS_DEST) ? "recvtag" : "tag", c->rtag);
        sep = ", ";
    }
    add(t, "%s%s", sep, comm_of(c));
    add_count(t, c, ", ");
    add(t, ")");
}

static const char *op_name(uint8_t kind)
{
    return kind == OL_STATE_OP_SEND ? "send" : kind == OL_STATE_OP_RECV ? "receive" : "collective";
}

/* A blocking collective runs as a request of its own: not worth listing
 * beside the call itself. */
static bool is_own_collective(const ol_rank_state_t *s, const ol_op_desc_t *o)
{
    return o->kind == OL_STATE_OP_COLL && s->has_call && (s->call.flags & OL_STATE_COLLECTIVE) &&
           o->ctx == s->call.ctx;
}

/* "; pending: receive from 3 tag 9 on MPI_COMM_WORLD, ..." (empty when none). */
static char *pending_text(const ol_rank_state_t *s)
{
    struct text t = { ol_xstrdup("") };
    uint32_t shown = 0;
    for (uint32_t i = 0; s->pending_known && i < s->npending && shown < 4; i++) {
        const ol_op_desc_t *o = &s->pending[i];
        if (is_own_collective(s, o))
            continue;
        add(&t, "%s%s", shown++ ? ", " : "; pending: ", op_name(o->kind));
        if (o->kind == OL_STATE_OP_SEND)
            add(&t, " to %d tag %d", o->peer_world, o->tag);
        else if (o->kind == OL_STATE_OP_RECV && o->peer == MPI_ANY_SOURCE)
            add(&t, " from any source tag %d", o->tag);
        else if (o->kind == OL_STATE_OP_RECV)
            add(&t, " from %d tag %d", o->peer_world, o->tag);
        add(&t, " on %s", o->comm ? o->comm : "a communicator");
    }
    if (shown > 0 && s->pending_total > s->npending)
        add(&t, " and %u more", s->pending_total - s->npending);
    return t.s;
}

/* What a rank does, without when and who: the key that groups ranks. */
static char *describe(const ol_rank_state_t *s)
{
    struct text t = { NULL };
    switch (s->where) {
    case OL_WHERE_IN_MPI:
        if (s->has_call)
            add_call(&t, &s->call);
        else
            add(&t, "in a nested MPI call");
        break;
    case OL_WHERE_OUTSIDE:
        if (s->has_call && strcmp(s->call.fn, "MPI_Finalize") == 0) {
            add(&t, "in user code after MPI_Finalize");
            break;
        }
        add(&t, "in user code (outside MPI); last MPI call ");
        if (s->has_call)
            add_call(&t, &s->call);
        break;
    case OL_WHERE_BEFORE_INIT:
        add(&t, "has made no MPI call yet");
        break;
    case OL_WHERE_EXITED:
        add(&t, "is dead: it %s", s->exit_text ? s->exit_text : "ended");
        if (s->has_call) {
            add(&t, "; last MPI call ");
            add_call(&t, &s->call);
        }
        break;
    case OL_WHERE_NOT_STARTED:
        add(&t, "was not started");
        break;
    case OL_WHERE_NO_RECORD:
        add(&t, "has no state record (not an ompi-lite MPI program, or OMPI_LITE_STATE=0)");
        break;
    default:
        add(&t, "unknown: its daemon did not answer");
        break;
    }
    return t.s;
}

/* ---- the matching analysis ---- */

static bool tag_matches(int32_t want, int32_t tag)
{
    return want == MPI_ANY_TAG || want == tag;
}

static bool in_p2p(const ol_rank_state_t *s, unsigned flag)
{
    return s->where == OL_WHERE_IN_MPI && s->has_call && (s->call.flags & flag) &&
           !(s->call.flags & OL_STATE_COLLECTIVE);
}

/* Does rank s send to `to` with a tag `want` on ctx (in its current call or
 * a pending request)? */
static bool sends_to(const ol_rank_state_t *s, uint32_t to, int32_t want, uint32_t ctx)
{
    const ol_call_desc_t *c = &s->call;
    if (in_p2p(s, OL_STATE_HAS_DEST) && c->dest_world == (int32_t)to && c->ctx == ctx &&
        (!(c->flags & OL_STATE_HAS_TAG) || tag_matches(want, c->tag)))
        return true;
    for (uint32_t i = 0; s->pending_known && i < s->npending; i++) {
        const ol_op_desc_t *o = &s->pending[i];
        if (o->kind == OL_STATE_OP_SEND && o->peer_world == (int32_t)to && o->ctx == ctx &&
            tag_matches(want, o->tag))
            return true;
    }
    return false;
}

static bool source_matches(int32_t source, uint32_t from)
{
    return source == MPI_ANY_SOURCE || source == (int32_t)from;
}

/* Does rank s receive from `from` a message with tag on ctx? */
static bool receives_from(const ol_rank_state_t *s, uint32_t from, int32_t tag, uint32_t ctx)
{
    const ol_call_desc_t *c = &s->call;
    if (in_p2p(s, OL_STATE_HAS_SOURCE) && c->ctx == ctx &&
        source_matches(c->source == MPI_ANY_SOURCE ? c->source : c->source_world, from) &&
        (!(c->flags & OL_STATE_HAS_RTAG) || tag_matches(c->rtag, tag)))
        return true;
    for (uint32_t i = 0; s->pending_known && i < s->npending; i++) {
        const ol_op_desc_t *o = &s->pending[i];
        if (o->kind == OL_STATE_OP_RECV && o->ctx == ctx &&
            source_matches(o->peer == MPI_ANY_SOURCE ? o->peer : o->peer_world, from) &&
            tag_matches(o->tag, tag))
            return true;
    }
    return false;
}

static void add_peer_doing(struct text *t, const ol_rank_state_t *peer)
{
    char *d = describe(peer);
    add(t, " (it %s%s)", peer->where == OL_WHERE_IN_MPI ? "is in " : "", d);
    free(d);
}

/* The blocked receive of rank r: who could send it. */
static void analyse_receive(const struct ol_report *rep, const ol_rank_state_t *s, struct text *t)
{
    const ol_call_desc_t *c = &s->call;
    int32_t tag = (c->flags & OL_STATE_HAS_RTAG) ? c->rtag : MPI_ANY_TAG;
    if (c->source == MPI_PROC_NULL)
        return;
    if (c->source == MPI_ANY_SOURCE) {
        for (uint32_t q = 0; q < rep->n; q++)
            if (q != s->rank && sends_to(&rep->ranks[q], s->rank, tag, c->ctx)) {
                add(t, "; rank %u has a matching send pending", q);
                return;
            }
        add(t, "; no rank has a matching send pending");
        return;
    }
    if (c->source_world < 0 || (uint32_t)c->source_world >= rep->n)
        return;
    const ol_rank_state_t *peer = &rep->ranks[c->source_world];
    if (sends_to(peer, s->rank, tag, c->ctx)) {
        add(t, "; rank %d has a matching send pending", c->source_world);
        return;
    }
    add(t, "; rank %d has no matching send pending", c->source_world);
    add_peer_doing(t, peer);
}

/* The blocked send of rank r: has its destination posted the receive? */
static void analyse_send(const struct ol_report *rep, const ol_rank_state_t *s, struct text *t)
{
    const ol_call_desc_t *c = &s->call;
    if (c->dest_world < 0 || (uint32_t)c->dest_world >= rep->n)
        return;
    const ol_rank_state_t *peer = &rep->ranks[c->dest_world];
    int32_t tag = (c->flags & OL_STATE_HAS_TAG) ? c->tag : 0;
    if (receives_from(peer, s->rank, tag, c->ctx)) {
        add(t, "; rank %d has posted a matching receive", c->dest_world);
        return;
    }
    add(t, "; rank %d has posted no matching receive", c->dest_world);
    add_peer_doing(t, peer);
}

static bool in_same_collective(const ol_rank_state_t *s, const ol_call_desc_t *c)
{
    return s->where == OL_WHERE_IN_MPI && s->has_call && (s->call.flags & OL_STATE_COLLECTIVE) &&
           s->call.ctx == c->ctx && s->call.coll_seq == c->coll_seq && strcmp(s->call.fn, c->fn) == 0;
}

static void add_ranks(struct text *t, const uint32_t *v, uint32_t n);

/* A collective: which ranks of its communicator are not in it. Members are
 * known when it spans the job (MPI_COMM_WORLD or a duplicate); otherwise
 * only how many are in. */
static void analyse_collective(const struct ol_report *rep, const ol_rank_state_t *s, struct text *t)
{
    const ol_call_desc_t *c = &s->call;
    uint32_t *missing = ol_xcalloc(rep->n + 1, sizeof *missing);
    uint32_t nmissing = 0, nin = 0;
    for (uint32_t q = 0; q < rep->n; q++) {
        if (in_same_collective(&rep->ranks[q], c))
            nin++;
        else
            missing[nmissing++] = q;
    }
    if ((uint32_t)c->comm_size == rep->n && nmissing > 0) {
        add(t, "; %s ", nmissing == 1 ? "rank" : "ranks");
        add_ranks(t, missing, nmissing);
        add(t, " %s not entered it", nmissing == 1 ? "has" : "have");
    } else if ((uint32_t)c->comm_size != rep->n && nin < (uint32_t)c->comm_size) {
        add(t, "; %u of its %d ranks are in it", nin, c->comm_size);
    }
    free(missing);
}

/* A rank waiting on requests (MPI_Wait...): its first pending receive,
 * analysed as if it were a blocking one. */
static void analyse_pending(const struct ol_report *rep, const ol_rank_state_t *s, struct text *t)
{
    for (uint32_t i = 0; s->pending_known && i < s->npending; i++) {
        const ol_op_desc_t *o = &s->pending[i];
        if (o->kind != OL_STATE_OP_RECV)
            continue;
        ol_rank_state_t as_call = *s;
        as_call.call.flags = OL_STATE_HAS_COMM | OL_STATE_HAS_SOURCE | OL_STATE_HAS_RTAG;
        as_call.call.ctx = o->ctx;
        as_call.call.source = o->peer;
        as_call.call.source_world = o->peer_world;
        as_call.call.rtag = o->tag;
        analyse_receive(rep, &as_call, t);
        return;
    }
}

static void analyse(const struct ol_report *rep, const ol_rank_state_t *s, struct text *t)
{
    if (s->where != OL_WHERE_IN_MPI || !s->has_call)
        return;
    if (s->call.flags & OL_STATE_COLLECTIVE)
        analyse_collective(rep, s, t);
    else if (s->call.flags & OL_STATE_HAS_SOURCE)
        analyse_receive(rep, s, t);
    else if (s->call.flags & OL_STATE_HAS_DEST)
        analyse_send(rep, s, t);
    else
        analyse_pending(rep, s, t);
}

/* ---- grouping and printing ---- */

/* "0-2,5" */
static void add_ranks(struct text *t, const uint32_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        add(t, "%s%u", i ? "," : "", v[i]);
        if (j > i)
            add(t, "-%u", v[j]);
        i = j;
    }
}

static void add_hosts(struct text *t, const struct ol_report *rep, const uint32_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        bool seen = false;
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = strcmp(rep->host[v[k]], rep->host[v[i]]) == 0;
        if (!seen)
            add(t, "%s%s", i ? ", " : "", rep->host[v[i]]);
    }
}

static void add_since(struct text *t, const ol_rank_state_t *s)
{
    if (s->where != OL_WHERE_IN_MPI && s->where != OL_WHERE_OUTSIDE)
        return;
    add(t, " for %.1f s", s->since_ms / 1000.0);
    if (s->repeats > 0)
        add(t, " (called %u more times)", s->repeats);
}

static void add_group(struct text *t, const struct ol_report *rep, const uint32_t *v, uint32_t n,
                      const char *desc, const char *pending)
{
    const ol_rank_state_t *first = &rep->ranks[v[0]];
    if (n == 1) {
        add(t, "  rank %u (%s", v[0], rep->host[v[0]]);
        if (first->pid)
            add(t, ", pid %u", first->pid);
        add(t, "): %s", desc);
    } else {
        add(t, "  ranks ");
        add_ranks(t, v, n);
        add(t, " (");
        add_hosts(t, rep, v, n);
        add(t, "): %s", desc);
    }
    /* The group's shortest time: all of them have waited at least that. */
    const ol_rank_state_t *shortest = first;
    for (uint32_t i = 1; i < n; i++)
        if (rep->ranks[v[i]].since_ms < shortest->since_ms)
            shortest = &rep->ranks[v[i]];
    add_since(t, shortest);
    add(t, "%s", pending);
    analyse(rep, first, t);
    add(t, "\n");
}

static void add_stacks(struct text *t, const struct ol_report *rep)
{
    for (uint32_t r = 0; r < rep->n; r++) {
        const ol_rank_state_t *s = &rep->ranks[r];
        if (s->stack == NULL)
            continue;
        add(t, "  stack of rank %u (%s, pid %u):\n", r, rep->host[r], s->pid);
        char *copy = ol_xstrdup(s->stack);
        for (char *save = NULL, *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
            add(t, "    %s\n", line);
        free(copy);
    }
}

char *ol_report_format(const struct ol_report *rep, double uptime_s, const char *after)
{
    struct text t = { NULL };
    add(&t, "ompi-lite state report (%u ranks, %.1f s after the start):\n", rep->n, uptime_s);
    char **desc = ol_xcalloc(rep->n + 1, sizeof *desc);
    char **pending = ol_xcalloc(rep->n + 1, sizeof *pending);
    for (uint32_t r = 0; r < rep->n; r++) {
        desc[r] = describe(&rep->ranks[r]);
        pending[r] = pending_text(&rep->ranks[r]);
    }
    bool *done = ol_xcalloc(rep->n + 1, sizeof *done);
    uint32_t *members = ol_xcalloc(rep->n + 1, sizeof *members);
    /* Groups of more than one rank first (what most do), then the ranks
     * that differ, each in rank order. */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t r = 0; r < rep->n; r++) {
            if (done[r])
                continue;
            uint32_t n = 0;
            for (uint32_t q = r; q < rep->n; q++)
                if (!done[q] && strcmp(desc[q], desc[r]) == 0 && strcmp(pending[q], pending[r]) == 0)
                    members[n++] = q;
            if (pass == 0 && n == 1)
                continue;
            for (uint32_t i = 0; i < n; i++)
                done[members[i]] = true;
            add_group(&t, rep, members, n, desc[r], pending[r]);
        }
    }
    add_stacks(&t, rep);
    add(&t, "after the report: %s\n", after);
    for (uint32_t r = 0; r < rep->n; r++) {
        free(desc[r]);
        free(pending[r]);
    }
    free(desc);
    free(pending);
    free(done);
    free(members);
    return t.s;
}

/* ---- mpirun --report-state ---- */

/* mpirun processes of this user other than this one, found by their
 * executable being this one's. */
static int find_running(pid_t *found, int max)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
        return 0;
    self[n] = '\0';
    DIR *dir = opendir("/proc");
    if (dir == NULL)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        long pid;
        if (ol_parse_long(e->d_name, 1, INT_MAX, &pid) != 0 || pid == getpid())
            continue;
        char link[64], exe[PATH_MAX];
        snprintf(link, sizeof link, "/proc/%ld/exe", pid);
        ssize_t k = readlink(link, exe, sizeof exe - 1);
        if (k < 0)
            continue;
        exe[k] = '\0';
        if (strcmp(exe, self) == 0 && count < max)
            found[count++] = (pid_t)pid;
    }
    closedir(dir);
    return count;
}

int ol_report_request_running(const char *pid_text)
{
    pid_t pids[16];
    int n;
    long pid;
    if (pid_text != NULL) {
        if (ol_parse_long(pid_text, 1, INT_MAX, &pid) != 0) {
            fprintf(stderr, "mpirun: --report-state takes the pid of a running mpirun, not '%s'\n", pid_text);
            return 1;
        }
        pids[0] = (pid_t)pid;
        n = 1;
    } else if ((n = find_running(pids, 16)) != 1) {
        fprintf(stderr, "mpirun: --report-state: %s running mpirun of this user; name its pid\n",
                n == 0 ? "there is no" : "there is more than one");
        return 1;
    }
    if (kill(pids[0], SIGUSR1) != 0) {
        fprintf(stderr, "mpirun: cannot signal mpirun %d: %s\n", (int)pids[0], strerror(errno));
        return 1;
    }
    printf("mpirun: asked mpirun %d for a state report; it prints it on its standard error\n",
           (int)pids[0]);
    return 0;
}
