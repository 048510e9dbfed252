/* Communicators: the object behind an MPI_Comm handle.
 *
 * Predefined handles are small integers (the standard ABI), user-created
 * communicators are pointers to ol_comm_t; ol_comm_from_handle tells them
 * apart by value, since no valid pointer is below one page. */
#ifndef OL_COMM_H
#define OL_COMM_H

#include "ol_common.h"
#include "ol_group.h"

#define OL_COMM_MAGIC 0x6f6c636dU /* "olcm": a live communicator */

struct ol_bsend_buffer;
struct ol_topo;
struct ol_attr_list;
struct ol_info;
struct ol_coll_shm;

typedef struct ol_comm {
    uint32_t magic;
    uint32_t context_id;     /* see pt2pt/tag_layout.h for its width */
    int rank;                /* this process's rank in the (local) group */
    int size;                /* size of the (local) group */
    /* Point-to-point ranks name processes of the remote group on an
     * intercommunicator, of the local group otherwise. */
    int peer_size;
    const int *world_ranks;  /* peer rank -> world rank; NULL: identity */
    ol_group_t *group;
    ol_group_t *remote_group; /* intercommunicators only */
    bool predefined;
    /* Members of other jobs too (MPI_Comm_spawn, connect/accept, join):
     * its messages go over UCX (pt2pt.h), and its collectives choose from
     * what every member knows alike, not from this job's hosts. */
    bool spans_jobs;
    int coll_tag_base;       /* shifts collective tags (MPI_Comm_create_group) */
    /* The rank that messages carry in their tag, by rank; NULL: the rank
     * itself. A view of a subgroup (MPI_Comm_create_group) carries the
     * parent's ranks: agreements of different subgroups on one parent then
     * never take each other's messages. */
    const int *tag_ranks;
    unsigned coll_sequence;  /* collective calls so far: names their traffic */
    /* The program's collective calls so far, while state reports are on
     * (ol_state.h): the number a report gives a call. coll_sequence also
     * counts the library's own collectives. */
    unsigned user_collectives;
    uint64_t coll_logged[32]; /* per collective, size classes whose choice was logged */
    int8_t device_ipc_ready;  /* all members on one host with CUDA: 0 not yet agreed, 1, -1 */
    struct ol_coll_shm *coll_shm; /* the collectives' shared-memory segment; NULL: not tried */
    MPI_Errhandler errhandler;
    struct ol_bsend_buffer *bsend_buffer; /* MPI_Comm_attach_buffer; NULL: none */
    /* The session the communicator derives from (its group came from one of
     * the session's process sets; api/session.c), which it holds a
     * reference to, and that session's MPI_Session_attach_buffer slot, which
     * buffered sends use when the communicator has no buffer of its own.
     * Both NULL for the world model's communicators. */
    struct ol_session *session;
    struct ol_bsend_buffer **session_bsend_buffer;
    struct ol_topo *topo;                 /* Cartesian/graph topology; NULL: none */
    struct ol_attr_list *attrs;           /* attributes; NULL: none */
    struct ol_info *info;                 /* hints given with set_info/dup_with_info */
    char name[MPI_MAX_OBJECT_NAME];
} ol_comm_t;

extern ol_comm_t ol_comm_world;
extern ol_comm_t ol_comm_self;

ol_status_t ol_comm_init_predefined(void);
void ol_comm_finalize_predefined(void);

ol_comm_t *ol_comm_from_handle(MPI_Comm handle);
MPI_Comm ol_comm_to_handle(ol_comm_t *comm);

static inline bool ol_comm_is_inter(const ol_comm_t *comm)
{
    return comm->remote_group != NULL;
}

static inline int ol_comm_world_rank(const ol_comm_t *comm, int rank)
{
    return comm->world_ranks ? comm->world_ranks[rank] : rank;
}

static inline int ol_comm_tag_rank(const ol_comm_t *comm, int rank)
{
    return OL_UNLIKELY(comm->tag_ranks != NULL) ? comm->tag_ranks[rank] : rank;
}

#endif
