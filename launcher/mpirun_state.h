/* The job-wide state report: what every rank is doing, from the daemons'
 * STATE answers (see mpirun_state.c). */
#ifndef OL_LAUNCHER_MPIRUN_STATE_H
#define OL_LAUNCHER_MPIRUN_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "proto.h"

struct ol_report;

/* A report for a job of job_size ranks. */
struct ol_report *ol_report_new(uint32_t job_size);
/* host[r] names rank r's host (as HELLO said); kept until the report is freed. */
void ol_report_set_hosts(struct ol_report *rep, const char *const *host);
/* Takes the ranks of one daemon's STATE (m->ranks is emptied). */
void ol_report_add(struct ol_report *rep, ol_msg_state_t *m);
/* The report: a header, one line per group of ranks doing the same thing,
 * one per rank that differs (with what its peers do), the stacks, and
 * `after` as the last line (what mpirun does next). malloc'd. */
char *ol_report_format(const struct ol_report *rep, double uptime_s, const char *after);
/* True when some rank ever entered MPI (a report would say something). */
bool ol_report_has_mpi(const struct ol_report *rep);
void ol_report_free(struct ol_report *rep);

/* mpirun --report-state [PID]: asks a running mpirun (PID, or the only one
 * of this user) for a report with SIGUSR1; it prints the report on its
 * standard error. Returns mpirun's exit status. */
int ol_report_request_running(const char *pid);

#endif
