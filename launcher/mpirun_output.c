/* The ranks' output as mpirun writes it: to its own stdout/stderr, with
 * `[rank] ` (a spawned process: `[spawn,rank]`) before every line under --tag-output, or to
 * DIR/1/rank.R/stdout and .../stderr under --output-filename DIR (Open MPI's
 * layout; rank R of spawn K: DIR/1/spawn.K/rank.R/). Each IO frame holds whole lines of one rank and is written with
 * one write, so lines of different ranks never interleave; a rank's last
 * output may end without a newline, and if another rank speaks next, that
 * line is ended first.
 *
 * stdout and stderr are written by a thread of their own, from one queue
 * (so the order between the two streams is the order output arrived in):
 * a slow reader (`mpirun ... | slow`) blocks that thread, never the event
 * loop, which must keep answering signals, fences and daemons. The queue
 * is bounded: above OUTPUT_BUFFER bytes mpirun stops reading the daemons'
 * links (ol_output_over), their queues fill, they stop reading the ranks'
 * pipes, and the ranks block in write(); nothing is dropped. Making stdout
 * non-blocking instead would change a file description mpirun shares with
 * its shell and the other commands of a pipeline.
 *
 * --output-filename files are opened below the directory the user named
 * with openat and O_NOFOLLOW at every level mpirun creates (`1`, `rank.R`,
 * the file), mode 0700/0600 unless OUTPUT_UMASK asks for the umask: in a
 * shared directory another user cannot redirect a rank's output through a
 * planted symbolic link, nor read it. Regular files do not block, so they
 * are written directly. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpirun_output.h"
#include "util.h"

struct chunk {
    struct chunk *next;
    int stream;                 /* 0 stdout, 1 stderr */
    size_t len;
    char data[];
};

struct ol_output {
    bool tag;
    int dirfd;                  /* DIR/1 under --output-filename, or -1 */
    char *dir;                  /* its path, for messages */
    mode_t dir_mode, file_mode;
    uint32_t nranks;            /* slots in fds: the first job's, more once spawns write */
    int *fds;                   /* 2 per process (gid), -1 until opened */
    bool warned;
    uint32_t open_line_rank[2]; /* stdout, stderr: rank whose line is unfinished */
    /* The writer thread and its queue; the fields below are under lock. */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    struct chunk *head, *tail;
    size_t queued, bound;
    bool over;                  /* above bound; cleared (and told) at bound/2 */
    bool closing;               /* no more chunks: write the rest and end */
    bool dropping;              /* discard queued and later output */
    bool dead[2];               /* writing this stream failed: discard it */
    int werr, werr_stream;      /* the first failure, until it is taken */
    int notify[2];              /* writer -> event loop */
};

/* ---- the writer thread ---- */

static void notify_loop(struct ol_output *o)
{
    (void)!write(o->notify[1], "", 1);
}

/* Writes one chunk (outside the lock); its errno on failure. */
static int write_chunk(const struct chunk *c)
{
    int fd = c->stream ? STDERR_FILENO : STDOUT_FILENO;
    return ol_write_all(fd, c->data, c->len) == 0 ? 0 : errno;
}

/* Books a written (or discarded) chunk; tells the loop when it may read
 * again or when a stream failed. */
static void chunk_done(struct ol_output *o, struct chunk *c, int e)
{
    bool tell = false;
    o->queued -= c->len;
    if (e != 0 && !o->dead[c->stream]) {
        /* A closed pipe stays closed: drop this stream from now on. */
        o->dead[c->stream] = true;
        if (o->werr == 0) {
            o->werr = e;
            o->werr_stream = c->stream + 1;
        }
        tell = true;
    }
    if (o->over && o->queued <= o->bound / 2) {
        o->over = false;
        tell = true;
    }
    if (tell)
        notify_loop(o);
    free(c);
}

static void *writer_main(void *arg)
{
    struct ol_output *o = arg;
    pthread_mutex_lock(&o->lock);
    for (;;) {
        while (o->head == NULL && !o->closing)
            pthread_cond_wait(&o->cond, &o->lock);
        struct chunk *c = o->head;
        if (c == NULL)
            break;
        o->head = c->next;
        if (o->head == NULL)
            o->tail = NULL;
        bool skip = o->dropping || o->dead[c->stream];
        pthread_mutex_unlock(&o->lock);
        int e = skip ? 0 : write_chunk(c);
        pthread_mutex_lock(&o->lock);
        chunk_done(o, c, e);
    }
    pthread_mutex_unlock(&o->lock);
    return NULL;
}

/* Takes ownership of c. */
static void enqueue(struct ol_output *o, struct chunk *c)
{
    c->next = NULL;
    pthread_mutex_lock(&o->lock);
    if (o->dropping || o->dead[c->stream]) {
        pthread_mutex_unlock(&o->lock);
        free(c);
        return;
    }
    if (o->tail != NULL)
        o->tail->next = c;
    else
        o->head = c;
    o->tail = c;
    o->queued += c->len;
    if (o->queued > o->bound)
        o->over = true;
    pthread_cond_signal(&o->cond);
    pthread_mutex_unlock(&o->lock);
}

static struct chunk *chunk_new(int stream, size_t cap)
{
    struct chunk *c = ol_xmalloc(sizeof *c + cap);
    c->stream = stream;
    c->len = 0;
    return c;
}

static int start_writer(struct ol_output *o)
{
    if (pipe2(o->notify, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->cond, NULL);
    /* Signals stay with the loop's signalfd: the thread blocks them all. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&o->thread, NULL, writer_main, o);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

/* ---- --output-filename ---- */

/* Makes the directory the user named and its parents (symbolic links in
 * that path are the user's own). */
static int mkdir_p(const char *path, mode_t mode)
{
    char *p = ol_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, mode) != 0 && errno != EEXIST) {
                free(p);
                return -1;
            }
            *s = '/';
        }
    }
    int rc = mkdir(p, mode) != 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

/* Makes (if needed) and opens directory `name` below dirfd, refusing a
 * symbolic link there. */
static int open_subdir(int dirfd, const char *name, mode_t mode)
{
    if (mkdirat(dirfd, name, mode) != 0 && errno != EEXIST)
        return -1;
    return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Why opening `name` below dirfd failed, said plainly for a planted link
 * (O_NOFOLLOW's ELOOP reads "Too many levels of symbolic links"). */
static const char *open_error(int dirfd, const char *name, int e)
{
    struct stat st;
    if (dirfd >= 0 && fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        return "it is a symbolic link, which mpirun does not follow";
    return strerror(e);
}

static int open_output_dir(struct ol_output *o, const char *dir, char **err)
{
    o->dir = ol_xasprintf("%s/1", dir);
    int top = mkdir_p(dir, o->dir_mode) == 0 ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (top >= 0)
        o->dirfd = open_subdir(top, "1", o->dir_mode);
    if (o->dirfd < 0) {
        int e = errno;
        *err = ol_xasprintf("mpirun: cannot create the output directory '%s': %s", o->dir,
                            top >= 0 ? open_error(top, "1", e) : strerror(e));
    }
    if (top >= 0)
        close(top);
    return o->dirfd < 0 ? -1 : 0;
}

/* The descriptor slot of process gid's stream s, growing the table for a
 * spawn's processes (gids after the first job's ranks). */
static int *fd_slot(struct ol_output *o, uint32_t gid, int s)
{
    if (gid >= o->nranks) {
        size_t n = (size_t)gid + 1 > 2 * (size_t)o->nranks ? (size_t)gid + 1 : 2 * (size_t)o->nranks;
        int *v = realloc(o->fds, 2 * n * sizeof *v);
        if (v == NULL)
            ol_xmalloc(SIZE_MAX); /* reports and aborts, as every allocation here */
        for (size_t i = 2 * (size_t)o->nranks; i < 2 * n; i++)
            v[i] = -1;
        o->fds = v;
        o->nranks = (uint32_t)n;
    }
    return &o->fds[2 * (size_t)gid + (size_t)s];
}

/* DIR/1/rank.R/stdout|stderr for the first job's rank R, DIR/1/spawn.K/
 * rank.R/... for rank R of spawn K; -1 (warned once) when it cannot be. */
static int file_fd(struct ol_output *o, uint32_t gid, uint32_t spawn_no, uint32_t rank, int s)
{
    int *slot = fd_slot(o, gid, s);
    if (*slot >= 0)
        return *slot;
    char rname[64], sname[32];
    const char *fname = s ? "stderr" : "stdout";
    snprintf(sname, sizeof sname, "spawn.%u", spawn_no);
    int parent = spawn_no == 0 ? o->dirfd : open_subdir(o->dirfd, sname, o->dir_mode);
    snprintf(rname, sizeof rname, "%s%srank.%u", spawn_no ? sname : "", spawn_no ? "/" : "", rank);
    const char *leaf = rname + (spawn_no ? strlen(sname) + 1 : 0); /* rank.R */
    int rfd = parent < 0 ? -1 : open_subdir(parent, leaf, o->dir_mode);
    int e = errno;
    const char *why = NULL;
    if (rfd < 0) {
        why = parent < 0 ? open_error(o->dirfd, sname, e) : open_error(parent, leaf, e);
    } else {
        *slot = openat(rfd, fname, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
                       o->file_mode);
        if (*slot < 0)
            why = open_error(rfd, fname, errno);
        close(rfd);
    }
    if (parent >= 0 && parent != o->dirfd)
        close(parent);
    if (*slot < 0 && !o->warned) {
        o->warned = true;
        ol_log(OL_LOG_WARN, "cannot write %s/%s%s%s: %s; that output goes to the terminal", o->dir, rname,
               rfd < 0 ? "" : "/", rfd < 0 ? "" : fname, why);
    }
    return *slot;
}

/* ---- the interface ---- */

struct ol_output *ol_output_new(const struct ol_output_conf *c, char **err)
{
    struct ol_output *o = ol_xcalloc(1, sizeof *o);
    o->tag = c->tag;
    o->nranks = c->nranks;
    o->bound = c->bound;
    o->dirfd = -1;
    o->notify[0] = o->notify[1] = -1;
    o->open_line_rank[0] = o->open_line_rank[1] = OL_NO_RANK;
    o->dir_mode = c->umask_modes ? 0777 : 0700;
    o->file_mode = c->umask_modes ? 0666 : 0600;
    if (c->dir != NULL) {
        if (open_output_dir(o, c->dir, err) != 0)
            goto fail;
        o->fds = ol_xmalloc(2 * (size_t)c->nranks * sizeof *o->fds);
        for (size_t i = 0; i < 2 * (size_t)c->nranks; i++)
            o->fds[i] = -1;
    }
    if (start_writer(o) != 0) {
        *err = ol_xasprintf("mpirun: cannot start the output thread: %s", strerror(errno));
        goto fail;
    }
    return o;
fail:
    if (o->notify[0] >= 0) {
        close(o->notify[0]);
        close(o->notify[1]);
    }
    if (o->dirfd >= 0)
        close(o->dirfd);
    free(o->fds);
    free(o->dir);
    free(o);
    return NULL;
}

/* The frame's text as it goes out: the newline ending another rank's
 * unfinished line, and the tags under --tag-output. */
static struct chunk *format_lines(struct ol_output *o, uint32_t gid, uint32_t spawn_no, uint32_t rank, int s,
                                  const uint8_t *data, size_t len)
{
    bool open_other = o->open_line_rank[s] != OL_NO_RANK && o->open_line_rank[s] != gid;
    bool at_start = o->open_line_rank[s] == OL_NO_RANK || open_other;
    char tag[32];
    int tlen = 0;
    size_t lines = 1;
    if (o->tag) {
        tlen = spawn_no == 0 ? snprintf(tag, sizeof tag, "[%u] ", rank)
                             : snprintf(tag, sizeof tag, "[%u,%u] ", spawn_no, rank);
        for (size_t i = 0; i < len; i++)
            lines += data[i] == '\n';
    }
    struct chunk *c = chunk_new(s, len + 1 + lines * (size_t)tlen);
    if (open_other)
        c->data[c->len++] = '\n';
    if (!o->tag) {
        memcpy(c->data + c->len, data, len);
        c->len += len;
        return c;
    }
    for (size_t i = 0; i < len; i++) {
        if (at_start) {
            memcpy(c->data + c->len, tag, (size_t)tlen);
            c->len += (size_t)tlen;
        }
        c->data[c->len++] = (char)data[i];
        at_start = data[i] == '\n';
    }
    return c;
}

void ol_output_write(struct ol_output *o, uint32_t gid, uint32_t spawn_no, uint32_t rank, int stream,
                     const uint8_t *data, size_t len)
{
    int s = stream == OL_STREAM_STDERR ? 1 : 0;
    if (len == 0)
        return;
    if (o->dirfd >= 0) {
        int fd = file_fd(o, gid, spawn_no, rank, s);
        if (fd >= 0) {
            (void)ol_write_all(fd, data, len);
            return;
        }
    }
    enqueue(o, format_lines(o, gid, spawn_no, rank, s, data, len));
    o->open_line_rank[s] = data[len - 1] == '\n' ? OL_NO_RANK : gid;
}

void ol_output_text(struct ol_output *o, const char *text)
{
    size_t len = strlen(text);
    struct chunk *c = chunk_new(1, len);
    memcpy(c->data, text, len);
    c->len = len;
    enqueue(o, c);
}

bool ol_output_over(struct ol_output *o)
{
    pthread_mutex_lock(&o->lock);
    bool over = o->over;
    pthread_mutex_unlock(&o->lock);
    return over;
}

int ol_output_event_fd(const struct ol_output *o)
{
    return o->notify[0];
}

int ol_output_event(struct ol_output *o, int *stream)
{
    char buf[64];
    while (read(o->notify[0], buf, sizeof buf) > 0)
        ;
    pthread_mutex_lock(&o->lock);
    int e = o->werr;
    *stream = o->werr_stream;
    o->werr = 0;
    pthread_mutex_unlock(&o->lock);
    return e;
}

void ol_output_drop(struct ol_output *o)
{
    pthread_mutex_lock(&o->lock);
    o->dropping = true;
    pthread_cond_signal(&o->cond);
    pthread_mutex_unlock(&o->lock);
}

void ol_output_free(struct ol_output *o)
{
    if (o == NULL)
        return;
    pthread_mutex_lock(&o->lock);
    o->closing = true;
    bool dropping = o->dropping;
    pthread_cond_signal(&o->cond);
    pthread_mutex_unlock(&o->lock);
    if (dropping) {
        /* The writer may be blocked in write() on a reader that stopped
         * reading; mpirun exits right after this, which ends the thread.
         * Its state stays allocated for it until then. */
        pthread_detach(o->thread);
        return;
    }
    pthread_join(o->thread, NULL);
    for (size_t i = 0; o->fds != NULL && i < 2 * (size_t)o->nranks; i++) {
        if (o->fds[i] >= 0)
            close(o->fds[i]);
    }
    if (o->dirfd >= 0)
        close(o->dirfd);
    close(o->notify[0]);
    close(o->notify[1]);
    pthread_mutex_destroy(&o->lock);
    pthread_cond_destroy(&o->cond);
    free(o->fds);
    free(o->dir);
    free(o);
}
