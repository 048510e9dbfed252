/* What the collective chapters of the API (coll.c, coll_reduce.c) share. */
#ifndef OL_API_COLL_INTERNAL_H
#define OL_API_COLL_INTERNAL_H

#include "coll.h"
#include "ol_api.h"

/* Runs a (blocking), starts it (nonblocking) or prepares it (persistent),
 * setting *request for the last two. */
int ol_api_coll_issue(const ol_coll_args_t *a, ol_api_how_t how, MPI_Request *request);

/* One side of a collective's data at a process: n blocks, block i of
 * counts[i] (or count) elements of types[i] (or dt) at displs[i] (bytes
 * for the w forms, elements otherwise) from buf; without displs the blocks
 * follow each other, count elements of dt apart. */
typedef struct ol_api_coll_side {
    const void *buf;
    int n;
    MPI_Count count;
    const MPI_Count *counts;
    const MPI_Aint *displs;
    bool byte_displs;
    const ol_datatype_t *dt;
    ol_datatype_t *const *types;
} ol_api_coll_side_t;

/* Whether the data of a and b share a byte (*where: one of them), judged
 * by the bytes the datatypes touch (coll_overlap.c). */
bool ol_api_coll_sides_overlap(const ol_api_coll_side_t *a, const ol_api_coll_side_t *b,
                               uintptr_t *where);

#endif
