/* Finding and starting daemons. Today: the one local daemon, forked, with
 * a socketpair as its link (trusted by construction, so no key is needed).
 * Remote daemons will be started by a launch agent and connect back over
 * TCP, proving the per-job key; the rest of mpirun only sees a connected
 * socket per daemon either way. */
#define _GNU_SOURCE
#include <errno.h>
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

int ol_mpirun_start_local_daemon(const char *daemon_exe, uint32_t node_id, pid_t *pid, char **err)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        *err = ol_xasprintf("mpirun: cannot create a socket for the daemon: %s", strerror(errno));
        return -1;
    }
    char fd_arg[16], node_arg[16];
    snprintf(fd_arg, sizeof fd_arg, "%d", sv[1]);
    snprintf(node_arg, sizeof node_arg, "%u", node_id);
    char *const argv[] = { (char *)daemon_exe, "--parent-fd", fd_arg, "--node-id", node_arg, NULL };
    pid_t child = fork();
    if (child == 0) {
        /* Its own process group: a terminal's Ctrl-C reaches mpirun only,
         * and mpirun decides how the job ends. */
        setpgid(0, 0);
        ol_set_cloexec(sv[1], false);
        ol_child_reset_signals();
        execv(daemon_exe, argv);
        _exit(127);
    }
    int fork_errno = errno;
    close(sv[1]);
    if (child < 0) {
        close(sv[0]);
        *err = ol_xasprintf("mpirun: cannot start %s: %s", daemon_exe, strerror(fork_errno));
        return -1;
    }
    *pid = child;
    return sv[0];
}
