/* The ranks' output as mpirun writes it (see mpirun_output.c). */
#ifndef OL_LAUNCHER_MPIRUN_OUTPUT_H
#define OL_LAUNCHER_MPIRUN_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

struct ol_output;

struct ol_output_conf {
    bool tag;                /* --tag-output */
    const char *dir;         /* --output-filename, or NULL */
    bool umask_modes;        /* OUTPUT_UMASK: the user's umask, not 0700/0600 */
    uint32_t nranks;
    size_t bound;            /* OUTPUT_BUFFER: bytes queued for stdout/stderr */
};

/* NULL with *err when the directory cannot be made or the writer thread
 * cannot start. */
struct ol_output *ol_output_new(const struct ol_output_conf *c, char **err);
/* Queues (or writes, under --output-filename: DIR/1/rank.R/, a spawn's
 * DIR/1/spawn.K/rank.R/) whole lines of process gid, rank `rank` of spawn
 * spawn_no (0: the first job, tagged `[rank]`; others `[spawn_no,rank]`);
 * stream: enum ol_stream. */
void ol_output_write(struct ol_output *o, uint32_t gid, uint32_t spawn_no, uint32_t rank, int stream,
                     const uint8_t *data, size_t len);
/* mpirun's own text (a state report) on stderr, after the ranks' output
 * queued before it. */
void ol_output_text(struct ol_output *o, const char *text);
/* More than the bound is queued: stop reading what produces output until
 * the descriptor below says otherwise. */
bool ol_output_over(struct ol_output *o);
/* Readable when the queue fell to half the bound after being over it, or
 * when a write to stdout/stderr failed (a closed pipe). */
int ol_output_event_fd(const struct ol_output *o);
/* Empties the event descriptor; the first write error, if any: its errno
 * (0: none) and the stream (1 stdout, 2 stderr). */
int ol_output_event(struct ol_output *o, int *stream);
/* Drops what is queued and whatever comes later (the job is being killed
 * on a signal: its output need not wait for a stalled reader). */
void ol_output_drop(struct ol_output *o);
/* Writes out what is queued (unless dropped) and frees o. */
void ol_output_free(struct ol_output *o);

#endif
