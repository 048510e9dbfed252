/* Groups: ordered sets of processes, as world ranks. */
#ifndef OL_GROUP_H
#define OL_GROUP_H

#include "ol_common.h"

#define OL_GROUP_MAGIC 0x6f6c6772U /* "olgr" */

typedef struct ol_group_member {
    int world_rank, rank;
} ol_group_member_t;

typedef struct ol_group {
    uint32_t magic;
    int refcount;            /* handles and communicators that use it */
    bool predefined;         /* MPI_GROUP_EMPTY: never freed */
    int size;
    int rank;                /* this process's rank in it, or MPI_UNDEFINED */
    int *world_ranks;        /* group rank -> world rank */
    /* For ol_group_rank_of: whether world_ranks run consecutively up from
     * world_ranks[0], else (above a few members) the members ordered by
     * world rank, for a binary search; NULL: search world_ranks. */
    bool consecutive;
    struct ol_group_member *by_world;
    /* The session whose process set it comes from, directly or through
     * group operations (a reference, api/session.c); NULL: the world model. */
    struct ol_session *session;
} ol_group_t;

extern ol_group_t ol_group_empty;

/* A new group of n world ranks (copied), refcount 1; NULL without memory. */
ol_group_t *ol_group_create(int n, const int *world_ranks);
/* The group of world ranks 0 .. n - 1. */
ol_group_t *ol_group_create_identity(int n);
void ol_group_retain(ol_group_t *group);
void ol_group_release(ol_group_t *group);

ol_group_t *ol_group_from_handle(MPI_Group handle);
MPI_Group ol_group_to_handle(ol_group_t *group);

/* Rank in group of a world rank, or MPI_UNDEFINED. */
int ol_group_rank_of(const ol_group_t *group, int world_rank);

/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL. */
int ol_group_compare(const ol_group_t *a, const ol_group_t *b);

#endif
