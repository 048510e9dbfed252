/* Small helpers shared by mpirun and the host daemon: logging, number
 * parsing, fd flags, full writes, signalfd set-up and NULL-terminated string
 * vectors. Nothing here knows about MPI, PMIx or the wire protocol, so the
 * library may move it to a common place later. */
#ifndef OL_LAUNCHER_UTIL_H
#define OL_LAUNCHER_UTIL_H

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Log levels, chosen by OMPI_LITE_DEBUG=warn|info|trace (default: warn). */
enum ol_log_level { OL_LOG_ERROR = 0, OL_LOG_WARN = 1, OL_LOG_INFO = 2, OL_LOG_TRACE = 3 };

void ol_log_init(const char *progname);
bool ol_log_enabled(enum ol_log_level level);
void ol_log(enum ol_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define ol_info(...) do { if (ol_log_enabled(OL_LOG_INFO)) ol_log(OL_LOG_INFO, __VA_ARGS__); } while (0)
#define ol_trace(...) do { if (ol_log_enabled(OL_LOG_TRACE)) ol_log(OL_LOG_TRACE, __VA_ARGS__); } while (0)

/* Parses all of s as a decimal integer within [min, max]; 0 on success,
 * -1 (and *out untouched) otherwise. */
int ol_parse_long(const char *s, long min, long max, long *out);

void *ol_xmalloc(size_t n);
void *ol_xcalloc(size_t n, size_t size);
char *ol_xstrdup(const char *s);
char *ol_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int ol_set_nonblock(int fd, bool on);
int ol_set_cloexec(int fd, bool on);
/* Writes all of buf, retrying on EINTR and waiting on EAGAIN; 0 or -1. */
int ol_write_all(int fd, const void *buf, size_t len);

/* Blocks sigs in the calling thread (so threads started later inherit the
 * mask) and returns a non-blocking, close-on-exec signalfd for them. */
int ol_signalfd_open(const int *sigs, size_t nsigs);
/* Reads one pending signal number from a signalfd; 0 when none is left. */
int ol_signalfd_read(int fd);
/* The same, and *pid: the process that sent it (for SIGCHLD, the child
 * whose change raised it). */
int ol_signalfd_read_pid(int fd, pid_t *pid);
/* For a child between fork and exec: unblock everything and restore default
 * dispositions (async-signal-safe). */
void ol_child_reset_signals(void);

/* NULL-terminated vectors of malloc'd strings. */
size_t ol_strv_len(char *const *v);
char **ol_strv_dup(char *const *v);
void ol_strv_append(char ***v, const char *s);
void ol_strv_free(char **v);
/* Sets NAME=VALUE in an environment vector, replacing an existing NAME. */
void ol_env_set(char ***env, const char *name, const char *value);

/* The program file that name means, as execvp finds it: with a '/', the
 * path itself, relative to cwd (NULL: to the working directory); otherwise
 * the first executable file of that name in the colon-separated
 * directories of first_dirs (NULL: none), then of PATH, an empty entry
 * meaning cwd. 0 with *path (malloc'd), or the errno that stops it:
 * ENOENT where nothing has the name, EISDIR for a directory, EACCES for a
 * file this user may not execute (a directory or file found on the way
 * wins over ENOENT, as in execvp). */
int ol_find_program(const char *name, const char *cwd, const char *first_dirs, char **path);

const char *ol_signal_name(int sig);
const char *ol_hostname(void);

#endif
