/* The runtime's use of PMIx, private to runtime/: job facts, the exchange of
 * UCX addresses (the "modex"), fences and abort. Without a PMIx server the
 * process is a singleton and these calls answer for a one-rank job. */
#ifndef OL_RT_PMIX_CLIENT_H
#define OL_RT_PMIX_CLIENT_H

#include "ol_common.h"
#include <stdbool.h>

/* Starts the PMIx client and fills ol_rt's job facts; false: no server. */
bool ol_pmix_start(void);
void ol_pmix_stop(void);

ol_status_t ol_pmix_publish(const char *key, const void *data, size_t length);
ol_status_t ol_pmix_lookup(int rank, const char *key, void **data, size_t *length);
/* Waits until every rank of the job has arrived (and committed its data). */
ol_status_t ol_pmix_fence(void);
void ol_pmix_abort(int exit_code, const char *message);

#endif
