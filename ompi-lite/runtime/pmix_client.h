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
/* Ends this start of the runtime. The PMIx client itself stays until the
 * process exits, where it finalizes if no runtime runs then (see
 * pmix_client.c): the runtime may start again. */
void ol_pmix_stop(void);

/* Keys are those of one start of the runtime: a lookup finds what the
 * peer published in the same start. */
ol_status_t ol_pmix_publish(const char *key, const void *data, size_t length);
ol_status_t ol_pmix_lookup(int rank, const char *key, void **data, size_t *length);
/* Waits until every rank of the job has arrived (and committed its data). */
ol_status_t ol_pmix_fence(void);
void ol_pmix_abort(int exit_code, const char *message);
/* The job's hosts, comma separated (PMIX_NODE_LIST), and the world ranks
 * on one of them, comma separated (its PMIX_LOCAL_PEERS); NULL when PMIx
 * does not say (or for a singleton). The caller frees them. */
char *ol_pmix_host_list(void);
char *ol_pmix_host_peers(const char *host);

/* The job's name service (MPI_Publish_name and kin), which the launcher
 * keeps for every process of the mpirun, on every host. NO_SERVICE: no
 * launcher, or one that keeps no names (Slurm's). */
typedef enum {
    OL_PMIX_NAME_DONE,
    OL_PMIX_NAME_ABSENT,     /* lookup, unpublish: nobody published it */
    OL_PMIX_NAME_TAKEN,      /* publish: another publish has it */
    OL_PMIX_NAME_NO_SERVICE,
} ol_pmix_name_t;
ol_pmix_name_t ol_pmix_name_publish(const char *service, const char *port);
/* port has MPI_MAX_PORT_NAME bytes. */
ol_pmix_name_t ol_pmix_name_lookup(const char *service, char *port);
ol_pmix_name_t ol_pmix_name_unpublish(const char *service);

#endif
