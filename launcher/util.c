#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *log_prog = "ompi-lite";
static enum ol_log_level log_threshold = OL_LOG_WARN;

void ol_log_init(const char *progname)
{
    log_prog = progname;
    const char *lvl = getenv("OMPI_LITE_DEBUG");
    if (lvl == NULL)
        return;
    if (strcmp(lvl, "info") == 0)
        log_threshold = OL_LOG_INFO;
    else if (strcmp(lvl, "trace") == 0)
        log_threshold = OL_LOG_TRACE;
    else if (strcmp(lvl, "error") == 0)
        log_threshold = OL_LOG_ERROR;
}

bool ol_log_enabled(enum ol_log_level level)
{
    return level <= log_threshold;
}

void ol_log(enum ol_log_level level, const char *fmt, ...)
{
    if (!ol_log_enabled(level))
        return;
    /* One buffer, one write: lines from mpirun and the daemon do not mix. */
    char line[2048];
    int n;
    if (log_threshold >= OL_LOG_TRACE) {
        /* Wall-clock stamps line up mpirun's and the daemons' traces when
         * measuring start-up. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        n = snprintf(line, sizeof line, "%ld.%06ld %s[%s:%d]: ", (long)(ts.tv_sec % 1000),
                     ts.tv_nsec / 1000, log_prog, ol_hostname(), (int)getpid());
    } else {
        n = snprintf(line, sizeof line, "%s[%s:%d]: ", log_prog, ol_hostname(), (int)getpid());
    }
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof line)
        n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line - 1)
        n = sizeof line - 2;
    line[n++] = '\n';
    (void)ol_write_all(STDERR_FILENO, line, (size_t)n);
}

int ol_parse_long(const char *s, long min, long max, long *out)
{
    if (s == NULL || *s == '\0')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static void *oom(void)
{
    /* The launcher cannot do anything useful without memory. */
    static const char msg[] = "ompi-lite launcher: out of memory\n";
    (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
    abort();
}

void *ol_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    return p ? p : oom();
}

void *ol_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    return p ? p : oom();
}

char *ol_xstrdup(const char *s)
{
    char *p = strdup(s);
    return p ? p : oom();
}

char *ol_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? oom() : s;
}

int ol_set_nonblock(int fd, bool on)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return -1;
    fl = on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK);
    return fcntl(fd, F_SETFL, fl);
}

int ol_set_cloexec(int fd, bool on)
{
    int fl = fcntl(fd, F_GETFD);
    if (fl < 0)
        return -1;
    fl = on ? (fl | FD_CLOEXEC) : (fl & ~FD_CLOEXEC);
    return fcntl(fd, F_SETFD, fl);
}

int ol_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* Someone made the descriptor non-blocking (it may be shared with
             * our parent); wait until it drains rather than drop output. */
            struct pollfd pfd = { .fd = fd, .events = POLLOUT };
            (void)poll(&pfd, 1, -1);
        } else {
            return -1;
        }
    }
    return 0;
}

int ol_signalfd_open(const int *sigs, size_t nsigs)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < nsigs; i++)
        sigaddset(&set, sigs[i]);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
        return -1;
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int ol_signalfd_read_pid(int fd, pid_t *pid)
{
    struct signalfd_siginfo si;
    ssize_t n;
    do {
        n = read(fd, &si, sizeof si);
    } while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof si)
        return 0;
    *pid = (pid_t)si.ssi_pid;
    return (int)si.ssi_signo;
}

int ol_signalfd_read(int fd)
{
    pid_t pid;
    return ol_signalfd_read_pid(fd, &pid);
}

void ol_child_reset_signals(void)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* Ignored dispositions survive exec; handled ones are reset anyway. */
    for (int s = 1; s < NSIG; s++) {
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_DFL);
    }
}

size_t ol_strv_len(char *const *v)
{
    size_t n = 0;
    while (v != NULL && v[n] != NULL)
        n++;
    return n;
}

char **ol_strv_dup(char *const *v)
{
    size_t n = ol_strv_len(v);
    char **out = ol_xcalloc(n + 1, sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i] = ol_xstrdup(v[i]);
    return out;
}

void ol_strv_append(char ***v, const char *s)
{
    size_t n = ol_strv_len(*v);
    char **nv = realloc(*v, (n + 2) * sizeof *nv);
    if (nv == NULL)
        oom();
    nv[n] = ol_xstrdup(s);
    nv[n + 1] = NULL;
    *v = nv;
}

void ol_strv_free(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

void ol_env_set(char ***env, const char *name, const char *value)
{
    size_t nlen = strlen(name);
    char *entry = ol_xasprintf("%s=%s", name, value);
    for (size_t i = 0; *env != NULL && (*env)[i] != NULL; i++) {
        if (strncmp((*env)[i], name, nlen) == 0 && (*env)[i][nlen] == '=') {
            free((*env)[i]);
            (*env)[i] = entry;
            return;
        }
    }
    ol_strv_append(env, entry);
    free(entry);
}

const char *ol_signal_name(int sig)
{
    const char *d = sigdescr_np(sig);
    return d ? d : "unknown signal";
}

const char *ol_hostname(void)
{
    static char name[HOST_NAME_MAX + 1];
    if (name[0] == '\0' && gethostname(name, sizeof name - 1) != 0)
        strcpy(name, "localhost");
    return name;
}

/* 0 when path is a regular file this user may execute, else why not. */
static int program_unfit(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return EACCES;
    return 0;
}

/* dir/name, dir relative to cwd unless absolute (malloc'd). */
static char *path_in(const char *cwd, const char *dir, const char *name)
{
    if (dir[0] == '/' || cwd == NULL)
        return ol_xasprintf("%s/%s", *dir ? dir : ".", name);
    return ol_xasprintf("%s/%s/%s", cwd, *dir ? dir : ".", name);
}

/* Searches the directories of list for name; *err keeps the most telling
 * failure. strtok would skip the empty entries, which mean cwd. */
static char *search_dirs(const char *list, const char *cwd, const char *name, int *err)
{
    if (list == NULL)
        return NULL;
    char *dirs = ol_xstrdup(list), *next = NULL, *found = NULL;
    for (char *dir = dirs; dir != NULL && found == NULL; dir = next) {
        next = strchr(dir, ':');
        if (next != NULL)
            *next++ = '\0';
        char *candidate = path_in(cwd, dir, name);
        int why = program_unfit(candidate);
        if (why == 0)
            found = candidate;
        else {
            if (why != ENOENT && why != ENOTDIR && *err == ENOENT)
                *err = why;
            free(candidate);
        }
    }
    free(dirs);
    return found;
}

int ol_find_program(const char *name, const char *cwd, const char *first_dirs, char **path)
{
    if (strchr(name, '/') != NULL) {
        char *p = name[0] == '/' || cwd == NULL ? ol_xstrdup(name)
                                                : ol_xasprintf("%s/%s", cwd, name);
        int why = program_unfit(p);
        if (why != 0) {
            free(p);
            return why;
        }
        *path = p;
        return 0;
    }
    int err = ENOENT;
    const char *env_path = getenv("PATH");
    *path = search_dirs(first_dirs, cwd, name, &err);
    if (*path == NULL)
        *path = search_dirs(env_path ? env_path : "/usr/local/bin:/usr/bin:/bin", cwd, name, &err);
    return *path != NULL ? 0 : err;
}
