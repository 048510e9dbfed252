/* What the collective chapters of the API (coll.c, coll_reduce.c) share. */
#ifndef OL_API_COLL_INTERNAL_H
#define OL_API_COLL_INTERNAL_H

#include "coll.h"
#include "ol_api.h"

/* Runs a (blocking), starts it (nonblocking) or prepares it (persistent),
 * setting *request for the last two. */
int ol_api_coll_issue(const ol_coll_args_t *a, ol_api_how_t how, MPI_Request *request);

#endif
