/* Finding and starting daemons. A daemon on mpirun's own host is forked:
 * with a socketpair as its link when mpirun is its tree parent (trusted by
 * construction), else it connects to its parent daemon over TCP. A daemon
 * elsewhere is started by the launch agent (`ssh HOST COMMAND` by default)
 * and connects to its parent (mpirun or a daemon) over TCP. Either way the
 * key travels on the daemon's stdin (a pipe from mpirun, through the agent
 * for a remote one): never on a command line, and never in an environment,
 * which /proc shows for a process's whole life and ranks would inherit.
 * The first frame on a TCP link proves it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpirun.h"
#include "util.h"

#define DAEMON_NAME "ompi-lite-daemon"

static char *executable_or_null(char *path)
{
    if (path != NULL && access(path, X_OK) == 0)
        return path;
    free(path);
    return NULL;
}

char *ol_mpirun_find_daemon(void)
{
    const char *env = getenv("OMPI_LITE_DAEMON");
    if (env != NULL && *env != '\0')
        return executable_or_null(ol_xstrdup(env));
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    char *found = NULL;
    if (n > 0) {
        self[n] = '\0';
        const char *dir = dirname(self);
        found = executable_or_null(ol_xasprintf("%s/%s", dir, DAEMON_NAME));
        if (found == NULL)
            found = executable_or_null(ol_xasprintf("%s/../libexec/%s", dir, DAEMON_NAME));
    }
#ifdef OL_LIBEXECDIR
    if (found == NULL)
        found = executable_or_null(ol_xasprintf("%s/%s", OL_LIBEXECDIR, DAEMON_NAME));
#endif
    return found;
}

/* A word for the remote shell that the launch agent (ssh) hands it to. */
static char *shell_quote(const char *w)
{
    if (w[0] != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./:,@%") == strlen(w))
        return ol_xstrdup(w);
    size_t n = 2;
    for (const char *p = w; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *q = ol_xmalloc(n + 1), *o = q;
    *o++ = '\'';
    for (const char *p = w; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

static char *join_commas(char *const *v)
{
    char *out = ol_xstrdup("");
    for (size_t i = 0; v[i] != NULL; i++) {
        char *n = ol_xasprintf("%s%s%s", out, i ? "," : "", v[i]);
        free(out);
        out = n;
    }
    return out;
}

/* The daemon's arguments: where to connect (or the socketpair), its place
 * in the tree, the link timeout, the interfaces to use, where to listen.
 * The key is never among them. */
static char **daemon_argv(const struct ol_daemon_start *s, int parent_fd)
{
    char **v = ol_xcalloc(1, sizeof *v);
    char num[32];
    ol_strv_append(&v, s->daemon_exe);
    if (s->connect_addrs == NULL) {
        snprintf(num, sizeof num, "%d", parent_fd);
        ol_strv_append(&v, "--parent-fd");
        ol_strv_append(&v, num);
    } else {
        char *addrs = join_commas(s->connect_addrs);
        char *target = ol_xasprintf("%s:%u", addrs, (unsigned)s->connect_port);
        ol_strv_append(&v, "--connect");
        ol_strv_append(&v, target);
        free(target);
        free(addrs);
    }
    snprintf(num, sizeof num, "%u", s->node_id);
    ol_strv_append(&v, "--node-id");
    ol_strv_append(&v, num);
    snprintf(num, sizeof num, "%u", s->nnodes);
    ol_strv_append(&v, "--nnodes");
    ol_strv_append(&v, num);
    snprintf(num, sizeof num, "%u", s->fanout);
    ol_strv_append(&v, "--fanout");
    ol_strv_append(&v, num);
    snprintf(num, sizeof num, "%ld", s->link_timeout_ms);
    ol_strv_append(&v, "--link-timeout-ms");
    ol_strv_append(&v, num);
    if (s->ifname != NULL) {
        ol_strv_append(&v, "--ifname");
        ol_strv_append(&v, s->ifname);
    }
    if (s->net_test_speed != NULL) {
        ol_strv_append(&v, "--net-test-speed");
        ol_strv_append(&v, s->net_test_speed);
    }
    if (s->listen_addrs != NULL && s->listen_addrs[0] != NULL) {
        char *addrs = join_commas(s->listen_addrs);
        ol_strv_append(&v, "--listen");
        ol_strv_append(&v, addrs);
        free(addrs);
    }
    return v;
}

/* AGENT-WORDS HOST "[env PATH=P/bin:$PATH LD_LIBRARY_PATH=P/lib:...] DAEMON ARGS",
 * the way Open MPI hands its daemon to ssh: one command line for the
 * remote shell. */
static char **agent_argv(const struct ol_daemon_start *s, char **dargv)
{
    char **v = ol_xcalloc(1, sizeof *v);
    char *copy = ol_xstrdup(s->agent), *save = NULL;
    for (char *w = strtok_r(copy, " \t", &save); w != NULL; w = strtok_r(NULL, " \t", &save))
        ol_strv_append(&v, w);
    free(copy);
    ol_strv_append(&v, s->host);
    char *cmd = ol_xstrdup("");
    if (s->prefix != NULL) {
        free(cmd);
        char *p = shell_quote(s->prefix);
        cmd = ol_xasprintf("env PATH=%s/bin:$PATH LD_LIBRARY_PATH=%s/lib:$LD_LIBRARY_PATH ", p, p);
        free(p);
    }
    for (size_t i = 0; dargv[i] != NULL; i++) {
        char *q = shell_quote(dargv[i]);
        char *n = ol_xasprintf("%s%s%s", cmd, i ? " " : "", q);
        free(q);
        free(cmd);
        cmd = n;
    }
    ol_strv_append(&v, cmd);
    free(cmd);
    return v;
}

int ol_mpirun_start_daemon(const struct ol_daemon_start *s, pid_t *pid, int *link_fd, int *out_fd, char **err)
{
    int sv[2] = { -1, -1 }, in[2] = { -1, -1 }, out[2] = { -1, -1 };
    bool remote = s->agent != NULL;
    *link_fd = *out_fd = -1;
    if (s->connect_addrs == NULL && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        goto sys_fail;
    if (pipe2(in, O_CLOEXEC) != 0 || (remote && pipe2(out, O_CLOEXEC) != 0))
        goto sys_fail;
    char **dargv = daemon_argv(s, sv[1]);
    char **argv = remote ? agent_argv(s, dargv) : ol_strv_dup(dargv);
    ol_strv_free(dargv);
    pid_t child = fork();
    if (child == 0) {
        /* Its own process group: a terminal's Ctrl-C reaches mpirun only,
         * and mpirun decides how the job ends. */
        setpgid(0, 0);
        if (sv[1] >= 0)
            ol_set_cloexec(sv[1], false);
        dup2(in[0], STDIN_FILENO);
        if (remote) {
            dup2(out[1], STDOUT_FILENO);
            dup2(out[1], STDERR_FILENO);
        }
        ol_child_reset_signals();
        execvp(argv[0], argv);
        fprintf(stderr, "cannot execute %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int fork_errno = errno;
    char *what = ol_xstrdup(argv[0]);
    ol_strv_free(argv);
    if (sv[1] >= 0)
        close(sv[1]);
    close(in[0]);
    if (remote)
        close(out[1]);
    if (child < 0) {
        if (sv[0] >= 0)
            close(sv[0]);
        close(in[1]);
        if (remote)
            close(out[0]);
        *err = ol_xasprintf("mpirun: cannot start %s: %s", what, strerror(fork_errno));
        free(what);
        return -1;
    }
    free(what);
    /* 65 bytes fit the pipe: this never blocks, and EOF follows. */
    char *line = ol_xasprintf("%s\n", s->key);
    (void)!write(in[1], line, strlen(line));
    free(line);
    close(in[1]);
    if (remote)
        *out_fd = out[0];
    *pid = child;
    *link_fd = sv[0];
    return 0;
sys_fail:
    *err = ol_xasprintf("mpirun: cannot create a socket or pipe for a daemon: %s", strerror(errno));
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
    }
    return -1;
}
