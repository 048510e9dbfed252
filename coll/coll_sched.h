/* Collective schedules: a collective algorithm written as rounds of
 * sends, receives, local reductions and copies. Operations of one round run
 * concurrently; a round starts when the previous one has completed. The
 * progress engine advances every started schedule (ol_progress_hooks[OL_PROGRESS_COLL]), so
 * nonblocking collectives move while the caller is in any MPI call, and a
 * blocking collective is a schedule started and waited for.
 *
 * A schedule owns its scratch memory and is reusable: persistent
 * collectives start the same schedule again. */
#ifndef OL_COLL_COLL_SCHED_H
#define OL_COLL_COLL_SCHED_H

#include "coll.h"
#include "pt2pt.h"

typedef struct ol_sched ol_sched_t;

/* A new, empty schedule for one collective call on comm; it takes the
 * communicator's next collective sequence number, which names its traffic. */
ol_sched_t *ol_sched_create(ol_comm_t *comm);
/* Takes that number without a schedule, for a call done another way: the
 * tag of its traffic. */
int ol_sched_next_tag(ol_comm_t *comm);
void ol_sched_free(ol_sched_t *s);

/* Scratch memory that lives as long as the schedule (zeroed). */
void *ol_sched_scratch(ol_sched_t *s, size_t bytes);
/* The same, not zeroed: for data the schedule writes before it reads. */
void *ol_sched_buffer(ol_sched_t *s, size_t bytes);
/* Typed scratch of this schedule goes to device memory: the call's buffers
 * are there, so its messages and reductions stay on the device. */
void ol_sched_use_device(ol_sched_t *s);
/* Scratch for count elements of dt, laid out like a user buffer (device
 * memory after ol_sched_use_device). */
void *ol_sched_scratch_typed(ol_sched_t *s, const ol_datatype_t *dt, MPI_Count count);

/* Steps of the current round. Ranks are ranks of the schedule's
 * communicator (of the remote group on an intercommunicator). */
ol_status_t ol_sched_send(ol_sched_t *s, const void *buf, MPI_Count count, ol_datatype_t *dt,
                          int peer);
ol_status_t ol_sched_recv(ol_sched_t *s, void *buf, MPI_Count count, ol_datatype_t *dt, int peer);
/* inout = in op inout. */
ol_status_t ol_sched_reduce(ol_sched_t *s, const void *in, void *inout, MPI_Count count,
                            ol_datatype_t *dt, ol_op_t *op);
/* Typed copy; the two type signatures must match in size. */
ol_status_t ol_sched_copy(ol_sched_t *s, const void *src, MPI_Count src_count,
                          ol_datatype_t *src_dt, void *dst, MPI_Count dst_count,
                          ol_datatype_t *dst_dt);
/* Ends the current round: later steps wait for every earlier one. */
ol_status_t ol_sched_round(ol_sched_t *s);

/* Starts the schedule; *request completes when its last round has. With
 * persistent, the request survives completion and ol_sched_restart runs the
 * schedule again. */
ol_status_t ol_sched_start(ol_sched_t *s, bool persistent, ol_request_t **request);
/* An inactive persistent request for the schedule, started by restart. */
ol_status_t ol_sched_prepare(ol_sched_t *s, ol_request_t **request);
ol_status_t ol_sched_restart(ol_request_t *request);

/* Starts, waits for and frees the schedule: a blocking collective. */
ol_status_t ol_sched_run(ol_sched_t *s);

#endif
