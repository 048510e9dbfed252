/* The daemon's ranks: fork/exec with their stdio on pipes, exec-failure
 * detection, reaping, line-whole forwarding of their output, stdin for the
 * stdin rank, and killing.
 *
 * Invariants:
 * - each rank leads a session and process group of its own (sid == pgid ==
 *   pid), so a kill reaches whatever the rank started too, and where the
 *   kernel shares the CPUs among sessions (autogroup) a rank gets the share
 *   another job's process gets, as with MPICH's launcher; until the child
 *   has called setsid a kill goes to its pid (ol_rank_kill); it also dies with
 *   the daemon (PR_SET_PDEATHSIG), so no rank outlives a daemon that is
 *   SIGKILLed;
 * - a rank is "finished" when it is reaped and both its pipes reached EOF
 *   (or a short drain bound passed): only then is its exit reported, so its
 *   last lines always arrive before mpirun hears it ended;
 * - exits are reported in the order the ranks were reaped, which follows
 *   the order they died (see ol_ranks_reap): when one rank crashes and
 *   another fails because of it, mpirun names the first (its first failure
 *   wins), not whichever pipe happened to close first;
 * - IO frames carry whole lines only (up to IO_MAX_PENDING without a
 *   newline, and the tail at EOF);
 * - output is never dropped and never piles up: above d->io_bound bytes
 *   queued toward the parent the pipes are not read (the ranks block in
 *   write()) until the queue falls to half of it; mpirun does the same
 *   toward its own stdout, so a slow reader there slows the ranks down;
 * - a reaped rank's files in /dev/shm (ol_shm_names.h) are removed: the
 *   library unlinks them once mapped, so what is left belongs to a rank
 *   killed in between, and nobody will unlink it after the job. Their
 *   names end in a secret the daemon does not know, so it removes by
 *   prefix, and only files of its own user. The
 *   collective segments are found by the pid the daemon started: a rank
 *   started through a program that forks the MPI process instead of
 *   exec'ing it (`sh -c 'prog; true'`) leaves those to the next reboot. */
#define _GNU_SOURCE
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "daemon.h"
#include "ol_shm_names.h"
#include "params.h"
#include "util.h"

#define IO_MAX_PENDING (64 * 1024)
#define DRAIN_BOUND_MS 500

extern char **environ;

/* ---- output forwarding ---- */

/* A launcher parameter as the job's environment gives it (mpirun refused
 * a bad value before the launch), else its default. */
static long job_param(const struct ol_daemon *d, int param)
{
    const ol_launcher_param_t *p = &ol_launcher_params[param];
    char *prefix = ol_xasprintf("OMPI_LITE_%s=", p->name);
    long v = p->default_value;
    for (size_t i = 0; d->job.env != NULL && d->job.env[i] != NULL; i++) {
        long given;
        if (strncmp(d->job.env[i], prefix, strlen(prefix)) == 0 &&
            ol_parse_long(d->job.env[i] + strlen(prefix), p->min, p->max, &given) == 0)
            v = given;
    }
    free(prefix);
    return v;
}

void ol_ranks_output_bound(struct ol_daemon *d)
{
    long v = job_param(d, OL_LAUNCHER_OUTPUT_BUFFER);
    d->io_bound = (size_t)v;
    /* The up link's write callback then runs when its queue is at or below
     * half the bound: the moment to read the pipes again. */
    if (d->up != NULL)
        bufferevent_setwatermark(d->up, EV_WRITE, d->io_bound / 2, 0);
}

static void set_pipes_reading(struct ol_daemon *d, bool on)
{
    d->io_paused = !on;
    for (uint32_t i = 0; i < d->nranks; i++) {
        struct bufferevent *bevs[2] = { d->ranks[i]->out, d->ranks[i]->err };
        for (int k = 0; k < 2; k++) {
            if (bevs[k] == NULL)
                continue;
            if (on)
                bufferevent_enable(bevs[k], EV_READ);
            else
                bufferevent_disable(bevs[k], EV_READ);
        }
    }
    ol_daemon_children_reading(d, on);
}

void ol_ranks_output_check(struct ol_daemon *d)
{
    size_t queued = ol_daemon_up_queued(d);
    if (d->io_bound == 0)
        return; /* no job yet */
    if (!d->io_paused && queued > d->io_bound)
        set_pipes_reading(d, false);
    else if (d->io_paused && queued <= d->io_bound / 2)
        set_pipes_reading(d, true);
}

static void send_io(struct ol_rank *r, uint8_t stream, const void *data, size_t len)
{
    ol_msg_io_t m = { .rank = r->gid, .stream = stream, .data = data, .len = (uint32_t)len };
    ol_wbuf_t w = { 0 };
    ol_msg_io_encode(&m, &w);
    ol_daemon_send(r->d, OL_MSG_IO, &w);
    ol_wbuf_free(&w);
    ol_ranks_output_check(r->d);
}

/* Forwards everything up to the last newline (or all of it when `all`, or
 * when a line grew too long to keep waiting for its end). */
static void forward_lines(struct ol_rank *r, struct bufferevent *bev, uint8_t stream, bool all)
{
    struct evbuffer *in = bufferevent_get_input(bev);
    size_t len = evbuffer_get_length(in);
    if (len == 0)
        return;
    const char *p = (const char *)evbuffer_pullup(in, -1);
    size_t take = len;
    if (!all && len < IO_MAX_PENDING) {
        const char *nl = memrchr(p, '\n', len);
        if (nl == NULL)
            return;
        take = (size_t)(nl - p) + 1;
    }
    send_io(r, stream, p, take);
    evbuffer_drain(in, take);
}

static void on_output(struct bufferevent *bev, void *arg)
{
    struct ol_rank *r = arg;
    forward_lines(r, bev, bev == r->out ? OL_STREAM_STDOUT : OL_STREAM_STDERR, false);
}

/* Reports reaped ranks whose output has ended, in reaping order: a rank
 * still draining its pipes holds back those reaped after it (for at most
 * DRAIN_BOUND_MS). */
static void report_reaped(struct ol_daemon *d)
{
    while (d->nreaped_reported < d->nreaped) {
        struct ol_rank *r = d->ranks[d->reap_order[d->nreaped_reported]];
        if (r->out != NULL || r->err != NULL)
            return;
        d->nreaped_reported++;
        if (!r->reported)
            ol_daemon_rank_finished(d, r);
    }
}

static void close_output(struct ol_rank *r, struct bufferevent **slot)
{
    uint8_t stream = *slot == r->out ? OL_STREAM_STDOUT : OL_STREAM_STDERR;
    forward_lines(r, *slot, stream, true);
    bufferevent_free(*slot);
    *slot = NULL;
}

static void on_output_event(struct bufferevent *bev, short what, void *arg)
{
    struct ol_rank *r = arg;
    if (!(what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)))
        return;
    close_output(r, bev == r->out ? &r->out : &r->err);
    report_reaped(r->d);
}

static struct bufferevent *watch_output(struct ol_daemon *d, struct ol_rank *r, int fd)
{
    ol_set_nonblock(fd, true);
    struct bufferevent *bev = bufferevent_socket_new(d->base, fd, BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(bev, on_output, NULL, on_output_event, r);
    bufferevent_enable(bev, EV_READ);
    return bev;
}

/* ---- stdin ---- */

static void on_stdin_written(struct bufferevent *bev, void *arg)
{
    struct ol_rank *r = arg;
    if (r->in_eof_pending && evbuffer_get_length(bufferevent_get_output(bev)) == 0) {
        bufferevent_free(r->in);
        r->in = NULL;
    }
}

static void on_stdin_event(struct bufferevent *bev, short what, void *arg)
{
    (void)bev;
    struct ol_rank *r = arg;
    /* The rank closed its stdin (EPIPE): drop what is left and later input. */
    if (what & (BEV_EVENT_ERROR | BEV_EVENT_EOF)) {
        bufferevent_free(r->in);
        r->in = NULL;
    }
}

void ol_ranks_stdin(struct ol_daemon *d, const uint8_t *data, uint32_t len)
{
    struct ol_rank *r = NULL;
    for (uint32_t i = 0; i < d->nranks; i++) {
        if (d->ranks[i]->gid == d->job.stdin_rank) /* the first job's ranks are gids 0.. */
            r = d->ranks[i];
    }
    if (r == NULL)
        return;
    if (r->in == NULL)
        return;
    if (len == 0) {
        r->in_eof_pending = true;
        on_stdin_written(r->in, r);
        return;
    }
    bufferevent_write(r->in, data, len);
}

/* ---- spawning ---- */

struct rank_fds {
    int in[2], out[2], err[2], status[2];
};

static void close_pair(int p[2])
{
    for (int i = 0; i < 2; i++) {
        if (p[i] >= 0)
            close(p[i]);
        p[i] = -1;
    }
}

static void close_rank_fds(struct rank_fds *f)
{
    close_pair(f->in);
    close_pair(f->out);
    close_pair(f->err);
    close_pair(f->status);
}

static int open_rank_fds(struct ol_daemon *d, struct ol_rank *r, struct rank_fds *f)
{
    f->in[0] = f->in[1] = f->out[0] = f->out[1] = -1;
    f->err[0] = f->err[1] = f->status[0] = f->status[1] = -1;
    bool wants_stdin = r->gid == d->job.stdin_rank; /* never a spawned process */
    if (wants_stdin) {
        if (pipe2(f->in, O_CLOEXEC) != 0)
            goto fail;
    } else if ((f->in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
        goto fail;
    }
    if (pipe2(f->out, O_CLOEXEC) != 0 || pipe2(f->err, O_CLOEXEC) != 0 ||
        pipe2(f->status, O_CLOEXEC) != 0)
        goto fail;
    return 0;
fail:
    close_rank_fds(f);
    return -1;
}

/* Between fork and exec in a multi-threaded parent: async-signal-safe calls
 * only, nothing allocated. */
static void __attribute__((noreturn))
exec_rank_child(const struct ol_rank *r, const struct rank_fds *f, char **env, pid_t parent)
{
    const char *cwd = r->app->cwd != NULL ? r->app->cwd : r->job->spec->cwd;
    int e;
    setsid();
    /* Die with the daemon, and do not start at all if it is already gone. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    if (dup2(f->in[0], STDIN_FILENO) < 0 || dup2(f->out[1], STDOUT_FILENO) < 0 ||
        dup2(f->err[1], STDERR_FILENO) < 0)
        goto fail;
    /* Whatever PMIx or libevent opened without CLOEXEC must not leak. */
    close_range(3, UINT_MAX, CLOSE_RANGE_CLOEXEC);
    /* The one descriptor the rank keeps: its state record (it maps it and
     * closes it at once). */
    if (r->state_fd >= 0)
        fcntl(r->state_fd, F_SETFD, 0);
    ol_child_reset_signals();
    if (r->bound)
        sched_setaffinity(0, sizeof r->cpus, &r->cpus);
    if (chdir(cwd) != 0) {
        e = -errno; /* negative: the directory, not the program */
        goto report;
    }
    execve(r->app->exe, r->app->argv, env);
fail:
    e = errno;
report:
    (void)!write(f->status[1], &e, sizeof e);
    _exit(127);
}

/* Sets each NAME=VALUE of add in *env. */
static void add_environment(char ***env, char *const *add)
{
    for (size_t i = 0; add != NULL && add[i] != NULL; i++) {
        char *eq = strchr(add[i], '=');
        if (eq == NULL)
            continue;
        char *name = strndup(add[i], (size_t)(eq - add[i]));
        ol_env_set(env, name, eq + 1);
        free(name);
    }
}

/* Whether this host's CPU is an AMD one of family 19h (Zen 3 and 4), whose
 * `rep movsb` runs a copy 2-30 times slower when its destination lies 1-63
 * bytes past its source modulo 4 KiB (launcher/README.md, "Copies"). */
static bool cpu_is_amd_family_19h(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, dx;
    char vendor[12];
    if (!__get_cpuid(0, &a, &b, &c, &dx))
        return false;
    memcpy(vendor, &b, 4);
    memcpy(vendor + 4, &dx, 4);
    memcpy(vendor + 8, &c, 4);
    if (memcmp(vendor, "AuthenticAMD", 12) != 0 || !__get_cpuid(1, &a, &b, &c, &dx))
        return false;
    unsigned family = (a >> 8) & 0xf;
    if (family == 0xf)
        family += (a >> 20) & 0xff;
    return family == 0x19;
#else
    return false;
#endif
}

/* VECTOR_COPIES: glibc's memcpy keeps to its vector loops (a threshold for
 * `rep movsb` above any copy), unless the user's GLIBC_TUNABLES sets it. */
static void add_vector_copies(const struct ol_daemon *d, char ***env)
{
    static const char tunable[] = "glibc.cpu.x86_rep_movsb_threshold";
    long wanted = job_param(d, OL_LAUNCHER_VECTOR_COPIES);
    if (wanted == 0 || (wanted < 0 && !cpu_is_amd_family_19h()))
        return;
    const char *given = NULL;
    for (size_t i = 0; (*env)[i] != NULL; i++)
        if (strncmp((*env)[i], "GLIBC_TUNABLES=", 15) == 0)
            given = (*env)[i] + 15;
    if (given != NULL && strstr(given, tunable) != NULL)
        return;
    char *value = ol_xasprintf("%s%s%s=%lu", given ? given : "", given && *given ? ":" : "",
                               tunable, (unsigned long)SIZE_MAX >> 1);
    ol_env_set(env, "GLIBC_TUNABLES", value);
    free(value);
}

static char **rank_environment(struct ol_daemon *d, struct ol_rank *r)
{
    char **env = ol_strv_dup(environ);
    char num[16];
    add_environment(&env, r->job->spec->env);
    add_environment(&env, r->app->env); /* a spawn's own entries win */
    add_vector_copies(d, &env);
    /* Convenience for scripts, like OMPI_COMM_WORLD_RANK / PMI_RANK. */
    snprintf(num, sizeof num, "%u", r->rank);
    ol_env_set(&env, "OMPI_LITE_RANK", num);
    snprintf(num, sizeof num, "%u", r->job->spec->job_size);
    ol_env_set(&env, "OMPI_LITE_SIZE", num);
    snprintf(num, sizeof num, "%u", r->local_rank);
    ol_env_set(&env, "OMPI_LITE_LOCAL_RANK", num);
    snprintf(num, sizeof num, "%u", r->job->nlocal);
    ol_env_set(&env, "OMPI_LITE_LOCAL_SIZE", num);
    if (r->state_fd >= 0) {
        snprintf(num, sizeof num, "%d", r->state_fd);
        ol_env_set(&env, OL_STATE_FD_ENV, num);
    }
    if (ol_dpmix_rank_env(d, r, &env) != 0) {
        ol_strv_free(env);
        return NULL;
    }
    return env;
}

static int spawn_rank(struct ol_daemon *d, struct ol_rank *r, char **err)
{
    struct rank_fds f;
    /* Without a record the rank runs all the same; reports say so. */
    if (ol_dstate_create(r) != 0)
        ol_log(OL_LOG_WARN, "no state record for rank %u: %s", r->rank, strerror(errno));
    char **env = rank_environment(d, r);
    if (env == NULL) {
        *err = ol_xasprintf("PMIx_server_setup_fork failed for rank %u", r->rank);
        return -1;
    }
    if (open_rank_fds(d, r, &f) != 0) {
        *err = ol_xasprintf("cannot create pipes for rank %u: %s", r->rank, strerror(errno));
        ol_strv_free(env);
        return -1;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        exec_rank_child(r, &f, env, parent);
    int fork_errno = errno;
    ol_strv_free(env);
    ol_dstate_forked(r);
    if (pid < 0) {
        close_rank_fds(&f);
        *err = ol_xasprintf("cannot fork rank %u: %s", r->rank, strerror(fork_errno));
        return -1;
    }
    r->pid = pid;
    r->status_fd = f.status[0];
    f.status[0] = -1;
    r->out = watch_output(d, r, f.out[0]);
    f.out[0] = -1;
    r->err = watch_output(d, r, f.err[0]);
    f.err[0] = -1;
    if (f.in[1] >= 0) {
        ol_set_nonblock(f.in[1], true);
        r->in = bufferevent_socket_new(d->base, f.in[1], BEV_OPT_CLOSE_ON_FREE);
        bufferevent_setcb(r->in, NULL, on_stdin_written, on_stdin_event, r);
        bufferevent_enable(r->in, EV_WRITE);
        f.in[1] = -1;
    }
    close_rank_fds(&f);
    return 0;
}

/* Waits for each started child to exec (status pipe closes) or to report
 * why it could not. All children were forked first, so they exec in
 * parallel and this costs one exec, not N. */
static void collect_exec_status(struct ol_daemon *d, uint32_t first)
{
    for (uint32_t i = first; i < d->nranks; i++) {
        struct ol_rank *r = d->ranks[i];
        if (r->status_fd < 0)
            continue;
        int e = 0;
        ssize_t n;
        do {
            n = read(r->status_fd, &e, sizeof e);
        } while (n < 0 && errno == EINTR);
        if (n == (ssize_t)sizeof e)
            r->exec_errno = e != 0 ? e : EIO;
        close(r->status_fd);
        r->status_fd = -1;
    }
}

/* Placement of the processes d->ranks[first..], computed before any fork
 * (hwloc is not async-signal-safe; the child only calls sched_setaffinity),
 * under the first job's --map-by/--bind-to: a spawn's processes take the
 * local slots after those of the processes still running here, so that
 * they do not land on their parents' cores; with the default binding the
 * whole set must fit on the cores (else the new ones run unbound). */
static void compute_bindings(struct ol_daemon *d, uint32_t first)
{
    if (d->job.bind_to == OL_BIND_NONE && !d->job.report_bindings)
        return;
    uint32_t live = 0;
    for (uint32_t i = 0; i < first; i++)
        live += !d->ranks[i]->reaped;
    uint32_t n = live + (d->nranks - first);
    for (uint32_t i = first; i < d->nranks; i++) {
        struct ol_rank *r = d->ranks[i];
        char *desc = NULL;
        r->bound = d->topo != NULL && ol_binding_compute(d->topo, &d->job, live + (i - first), n, &r->cpus, &desc);
        if (d->job.report_bindings) {
            char *who = r->job->spawn_no == 0 ? ol_xasprintf("rank %u", r->rank)
                                              : ol_xasprintf("rank %u of spawn %u", r->rank, r->job->spawn_no);
            char *line = ol_xasprintf("[%s] %s %s\n", ol_hostname(), who, desc ? desc : "is not bound (no topology)");
            send_io(r, OL_STREAM_STDERR, line, strlen(line));
            free(line);
            free(who);
        }
        free(desc);
    }
}

int ol_ranks_launch(struct ol_daemon *d, uint32_t first, char **err)
{
    compute_bindings(d, first);
    for (uint32_t i = first; i < d->nranks; i++) {
        if (spawn_rank(d, d->ranks[i], err) != 0) {
            collect_exec_status(d, first);
            return -1;
        }
    }
    collect_exec_status(d, first);
    return 0;
}

/* ---- reaping and killing ---- */

static struct ol_rank *rank_by_pid(struct ol_daemon *d, pid_t pid)
{
    for (uint32_t i = 0; i < d->nranks; i++) {
        if (d->ranks[i]->pid == pid)
            return d->ranks[i];
    }
    return NULL;
}

/* Moves what the pipe holds into bev's input, without blocking: at most
 * 16 reads, as a process still holding the pipe may go on writing. */
static void take_pipe_rest(struct bufferevent *bev)
{
    int fd = bufferevent_getfd(bev);
    for (int i = 0; i < 16 && evbuffer_read(bufferevent_get_input(bev), fd, 64 * 1024) > 0; i++)
        ;
}

static void on_drain_bound(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    struct ol_rank *r = arg;
    if (r->d->io_paused) {
        /* Not reading (the output queue is full) is not "held open by
         * something the rank started": wait on, or its last output is lost. */
        struct timeval tv = { 0, DRAIN_BOUND_MS * 1000 };
        evtimer_add(r->drain_timer, &tv);
        return;
    }
    /* Something the rank started still holds its pipes: stop waiting, after
     * taking what the pipes hold now (reading may just have resumed). */
    if (r->out != NULL)
        take_pipe_rest(r->out);
    if (r->err != NULL)
        take_pipe_rest(r->err);
    if (r->out != NULL)
        close_output(r, &r->out);
    if (r->err != NULL)
        close_output(r, &r->err);
    report_reaped(r->d);
}

/* Whether the entry name of /dev/shm (open as dir) starts with one of the
 * prefixes and belongs to this user: another user may make files with a
 * job's public prefix, which are not the job's to remove. */
static bool job_file(DIR *dir, const char *name, const char *const *prefixes, size_t n)
{
    bool match = false;
    for (size_t i = 0; i < n && !match; i++)
        match = strncmp(name, prefixes[i], strlen(prefixes[i])) == 0;
    struct stat st;
    return match && fstatat(dirfd(dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
           st.st_uid == geteuid();
}

/* The rank's rings (named by its rank) and the collective segments it
 * made (named by its pid), if any is still there. */
static void remove_shared_files(const struct ol_daemon *d, const struct ol_rank *r)
{
    if (!d->have_job)
        return;
    uint64_t key = ol_job_key(r->job->spec->nspace);
    char name[NAME_MAX + 2], p2p[64], coll[64];
    ol_shm_p2p_prefix(p2p, sizeof(p2p), key, (int)r->rank);
    ol_shm_coll_prefix(coll, sizeof(coll), key, r->pid);
    const char *const prefixes[] = { p2p, coll };
    DIR *dir = opendir("/dev/shm");
    if (dir == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (job_file(dir, e->d_name, prefixes, sizeof prefixes / sizeof prefixes[0])) {
            snprintf(name, sizeof(name), "/%s", e->d_name);
            shm_unlink(name);
        }
    }
    closedir(dir);
}

static void rank_reaped(struct ol_daemon *d, struct ol_rank *r, int wstatus)
{
    remove_shared_files(d, r);
    r->reaped = true;
    r->wstatus = wstatus;
    d->reap_order[d->nreaped++] = r->idx;
    if (r->out != NULL || r->err != NULL) {
        struct timeval tv = { 0, DRAIN_BOUND_MS * 1000 };
        r->drain_timer = evtimer_new(d->base, on_drain_bound, r);
        evtimer_add(r->drain_timer, &tv);
    }
    report_reaped(d);
}

static void reap_pid(struct ol_daemon *d, pid_t pid, int wstatus)
{
    struct ol_rank *r = rank_by_pid(d, pid);
    if (r != NULL && !r->reaped)
        rank_reaped(d, r, wstatus);
}

/* SIGCHLD is not queued: while one is pending, later ones are merged into
 * it and its siginfo names the child that died first. waitpid(-1) returns
 * dead children in fork order, not death order, so that child is reaped
 * first. */
void ol_ranks_reap(struct ol_daemon *d, pid_t first)
{
    int wstatus;
    pid_t pid;
    if (first > 0 && waitpid(first, &wstatus, WNOHANG) == first)
        reap_pid(d, first, wstatus);
    while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0)
        reap_pid(d, pid, wstatus);
}

/* Signals the rank's process group, or the rank alone before its setsid
 * made the group (async-signal-safe: also from on_finish_timeout). */
void ol_rank_kill(pid_t pid, int sig)
{
    if (killpg(pid, sig) != 0)
        kill(pid, sig);
}

static void signal_live_ranks(struct ol_daemon *d, int sig)
{
    for (uint32_t i = 0; i < d->nranks; i++) {
        struct ol_rank *r = d->ranks[i];
        if (r->pid > 0 && !r->reaped)
            ol_rank_kill(r->pid, sig);
    }
}

static void on_kill_grace_over(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    signal_live_ranks(arg, SIGKILL);
}

void ol_ranks_kill(struct ol_daemon *d)
{
    if (d->killing)
        return;
    d->killing = true;
    signal_live_ranks(d, SIGTERM);
    uint32_t ms = d->have_job ? d->job.kill_grace_ms : 0;
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    d->kill_timer = evtimer_new(d->base, on_kill_grace_over, d);
    evtimer_add(d->kill_timer, &tv);
}

void ol_ranks_kill_now(struct ol_daemon *d)
{
    for (uint32_t i = 0; i < d->nranks; i++) {
        struct ol_rank *r = d->ranks[i];
        if (r->pid > 0 && !r->reaped) {
            ol_rank_kill(r->pid, SIGKILL);
            waitpid(r->pid, NULL, 0);
            remove_shared_files(d, r);
        }
    }
}

void ol_ranks_free(struct ol_daemon *d)
{
    ol_dstate_free(d);
    for (uint32_t i = 0; i < d->nranks; i++) {
        struct ol_rank *r = d->ranks[i];
        if (r->out)
            bufferevent_free(r->out);
        if (r->err)
            bufferevent_free(r->err);
        if (r->in)
            bufferevent_free(r->in);
        if (r->drain_timer)
            event_free(r->drain_timer);
        if (r->status_fd >= 0)
            close(r->status_fd);
        free(r);
    }
    if (d->kill_timer)
        event_free(d->kill_timer);
    d->kill_timer = NULL;
    free(d->ranks);
    d->ranks = NULL;
    free(d->reap_order);
    d->reap_order = NULL;
    d->nranks = 0;
}
