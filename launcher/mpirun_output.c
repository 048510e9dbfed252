/* The ranks' output as mpirun writes it: to its own stdout/stderr, with
 * `[rank] ` before every line under --tag-output, or to
 * DIR/1/rank.R/stdout and .../stderr under --output-filename DIR (Open MPI's
 * layout). Each IO frame holds whole lines of one rank and is written with
 * one write, so lines of different ranks never interleave; a rank's last
 * output may end without a newline, and if another rank speaks next, that
 * line is ended first. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpirun_output.h"
#include "util.h"

struct ol_output {
    bool tag;
    char *dir;                  /* DIR/1, or NULL */
    uint32_t nranks;
    int *fds;                   /* 2 per rank, -1 until opened */
    bool warned;
    uint32_t open_line_rank[2]; /* stdout, stderr: rank whose line is unfinished */
};

static int mkdir_p(const char *path)
{
    char *p = ol_xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST) {
                free(p);
                return -1;
            }
            *s = '/';
        }
    }
    int rc = mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

struct ol_output *ol_output_new(bool tag, const char *dir, uint32_t nranks, char **err)
{
    struct ol_output *o = ol_xcalloc(1, sizeof *o);
    o->tag = tag;
    o->nranks = nranks;
    o->open_line_rank[0] = o->open_line_rank[1] = OL_NO_RANK;
    if (dir != NULL) {
        o->dir = ol_xasprintf("%s/1", dir);
        if (mkdir_p(o->dir) != 0) {
            *err = ol_xasprintf("mpirun: cannot create the output directory '%s': %s", o->dir, strerror(errno));
            free(o->dir);
            free(o);
            return NULL;
        }
        o->fds = ol_xmalloc(2 * (size_t)nranks * sizeof *o->fds);
        for (size_t i = 0; i < 2 * (size_t)nranks; i++)
            o->fds[i] = -1;
    }
    return o;
}

static int file_fd(struct ol_output *o, uint32_t rank, int s)
{
    int *slot = &o->fds[2 * (size_t)rank + (size_t)s];
    if (*slot >= 0)
        return *slot;
    char *rdir = ol_xasprintf("%s/rank.%u", o->dir, rank);
    char *path = ol_xasprintf("%s/%s", rdir, s ? "stderr" : "stdout");
    if (mkdir_p(rdir) == 0)
        *slot = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_APPEND, 0644);
    if (*slot < 0 && !o->warned) {
        o->warned = true;
        ol_log(OL_LOG_WARN, "cannot write %s: %s; that output goes to the terminal", path, strerror(errno));
    }
    free(rdir);
    free(path);
    return *slot;
}

void ol_output_write(struct ol_output *o, uint32_t rank, int stream, const uint8_t *data, size_t len)
{
    int s = stream == OL_STREAM_STDERR ? 1 : 0;
    if (len == 0)
        return;
    if (o->dir != NULL && rank < o->nranks) {
        int fd = file_fd(o, rank, s);
        if (fd >= 0) {
            (void)ol_write_all(fd, data, len);
            return;
        }
    }
    int fd = s ? STDERR_FILENO : STDOUT_FILENO;
    bool open_other = o->open_line_rank[s] != OL_NO_RANK && o->open_line_rank[s] != rank;
    bool at_start = o->open_line_rank[s] == OL_NO_RANK || open_other;
    if (!o->tag) {
        if (open_other)
            (void)ol_write_all(fd, "\n", 1);
        (void)ol_write_all(fd, data, len);
    } else {
        /* Build the tagged text so that it still goes out in one write. */
        char tag[24];
        int tlen = snprintf(tag, sizeof tag, "[%u] ", rank);
        size_t lines = 1;
        for (size_t i = 0; i < len; i++)
            lines += data[i] == '\n';
        char *buf = ol_xmalloc(len + 1 + lines * (size_t)tlen);
        size_t n = 0;
        if (open_other)
            buf[n++] = '\n';
        for (size_t i = 0; i < len; i++) {
            if (at_start) {
                memcpy(buf + n, tag, (size_t)tlen);
                n += (size_t)tlen;
            }
            buf[n++] = (char)data[i];
            at_start = data[i] == '\n';
        }
        (void)ol_write_all(fd, buf, n);
        free(buf);
    }
    o->open_line_rank[s] = data[len - 1] == '\n' ? OL_NO_RANK : rank;
}

void ol_output_free(struct ol_output *o)
{
    if (o == NULL)
        return;
    for (size_t i = 0; o->fds != NULL && i < 2 * (size_t)o->nranks; i++) {
        if (o->fds[i] >= 0)
            close(o->fds[i]);
    }
    free(o->fds);
    free(o->dir);
    free(o);
}
