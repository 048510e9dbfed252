/* mpirun's parts:
 *   mpirun.c        main, the event loop, failure policy, output
 *   mpirun_opts.c   command line (a table of options) and program lookup
 *   mpirun_start.c  finding and starting daemons (fork today; a launch
 *                   agent such as ssh for other hosts later) */
#ifndef OL_LAUNCHER_MPIRUN_H
#define OL_LAUNCHER_MPIRUN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct mpirun_opts {
    long np;             /* 0 until given; then > 0 */
    bool oversubscribe;
    bool allow_run_as_root;
    bool stdin_none;
    bool help, version;
    long kill_grace_ms;
    char **prog_argv;    /* points into main's argv */
    char *exe;           /* resolved program path (malloc'd) */
};

/* 0: run; 1: stop with success (--help, --version); -1: *err is the one
 * line to print (malloc'd). */
int ol_mpirun_parse(int argc, char **argv, struct mpirun_opts *o, char **err);
void ol_mpirun_print_help(void);
/* Finds the program like execvp would; 0, or -1 with *err set. */
int ol_mpirun_resolve_program(const char *name, char **path, char **err);
long ol_mpirun_default_np(void);

/* Path of ompi-lite-daemon next to mpirun (build tree), in
 * ../libexec (install tree), in the configured libexecdir, or from
 * $OMPI_LITE_DAEMON; NULL when none is executable. */
char *ol_mpirun_find_daemon(void);
/* Forks the daemon for node_id on this host; returns mpirun's end of a
 * connected socket, or -1 with *err set. */
int ol_mpirun_start_local_daemon(const char *daemon_exe, uint32_t node_id, pid_t *pid, char **err);

#endif
