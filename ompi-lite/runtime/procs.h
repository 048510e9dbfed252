/* The table of other jobs' processes (ol_runtime.h), private to runtime/. */
#ifndef OL_RT_PROCS_H
#define OL_RT_PROCS_H

#include "ol_common.h"

/* A copy of the address of another job's process index (>= ol_rt.size). */
ol_status_t ol_rt_procs_address(int index, void **address, size_t *length);
/* Forgets every other job's process: the runtime ends. */
void ol_rt_procs_clear(void);

#endif
