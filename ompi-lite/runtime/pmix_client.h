/* The runtime's use of PMIx, private to runtime/: job facts, the exchange of
 * UCX addresses (the "modex"), fences and abort. A process that no launcher
 * started (no PMIx variables) is a singleton, and these calls answer for a
 * one-rank job. */
#ifndef OL_RT_PMIX_CLIENT_H
#define OL_RT_PMIX_CLIENT_H

#include "ol_common.h"
#include <stdbool.h>

/* Starts the PMIx client and fills ol_rt's job facts. *singleton: no
 * launcher started this process (OL_OK, nothing filled). A process that a
 * launcher started but that cannot reach its server, or learn its job's
 * size, fails: running on as a job of one would give wrong answers. */
ol_status_t ol_pmix_start(bool *singleton);
void ol_pmix_stop(void);

ol_status_t ol_pmix_publish(const char *key, const void *data, size_t length);
ol_status_t ol_pmix_lookup(int rank, const char *key, void **data, size_t *length);
/* Waits until every rank of the job has arrived (and committed its data). */
ol_status_t ol_pmix_fence(void);
void ol_pmix_abort(int exit_code, const char *message);

#endif
