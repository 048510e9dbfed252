/* Communicators: objects, the predefined ones, creation (dup, split,
 * create, intercommunicators), comparison, names, freeing. */
#include "gen_impl.h"
#include "coll.h"
#include "comm_internal.h"
#include "context_id.h"
#include "dynamic.h"
#include "hw_resource.h"
#include "ol_attr.h"
#include "ol_errhandler.h"
#include "ol_info.h"
#include "ol_state.h"
#include "ol_topo.h"
#include "pt2pt.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

ol_comm_t ol_comm_world;
ol_comm_t ol_comm_self;

/* Collective tags of communicator management that are not collectives:
 * leaders' exchanges and the transient views below. All of them stay below
 * OL_PART_TAG_FIRST, where partitioned communication's data begins
 * (pt2pt/tag_layout.h). */
enum {
    TAG_LEADERS = OL_COLL_TAG_RANGE,     /* + user tag, Intercomm_create */
    LOCAL_VIEW_TAG_BASE = 2 * OL_COLL_TAG_RANGE,
    /* MPI_Comm_create_group's views: bases 3 .. 3 + GROUP_VIEWS - 1 ranges */
    GROUP_VIEWS = OL_PART_TAG_FIRST / OL_COLL_TAG_RANGE - 3,
};
_Static_assert((3 + GROUP_VIEWS) * OL_COLL_TAG_RANGE <= OL_PART_TAG_FIRST,
               "group views' tags must stay below partitioned data");

/* ---- objects --------------------------------------------------------------- */

ol_comm_t *ol_comm_parent;

static bool has_other_jobs(const ol_group_t *group)
{
    for (int i = 0; i < group->size; i++)
        if (group->world_ranks[i] >= ol_rt.size)
            return true;
    return false;
}

/* A communicator over group (and remote_group for an intercommunicator);
 * takes over the callers' references to the groups. It derives from the
 * session its group derives from. */
static ol_comm_t *comm_new(uint32_t context_id, ol_group_t *group, ol_group_t *remote_group,
                           MPI_Errhandler errhandler)
{
    ol_comm_t *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    const ol_group_t *peers = remote_group ? remote_group : group;
    c->magic = OL_COMM_MAGIC;
    c->context_id = context_id;
    c->group = group;
    c->remote_group = remote_group;
    c->rank = group->rank;
    c->size = group->size;
    c->peer_size = peers->size;
    c->world_ranks = peers->world_ranks;
    c->spans_jobs = has_other_jobs(group) || (remote_group && has_other_jobs(remote_group));
    if (c->spans_jobs)
        ol_pt2pt_context_over_ucx(context_id, true);
    c->errhandler = errhandler;
    ol_errhandler_retain(errhandler);
    if (group->session) {
        ol_session_retain(group->session);
        c->session = group->session;
        c->session_bsend_buffer = ol_session_bsend_slot(group->session);
    }
    return c;
}

static void comm_destroy(ol_comm_t *c)
{
    ol_coll_comm_release(c);
    ol_errhandler_release(c->errhandler);
    if (c->topo)
        ol_topo_free(c->topo);
    if (c->info)
        ol_info_release(c->info);
    if (c->spans_jobs)
        ol_pt2pt_context_over_ucx(c->context_id, false);
    if (c == ol_comm_parent)
        ol_comm_parent = NULL;
    ol_cid_release(c->context_id);
    ol_group_release(c->group);
    if (c->remote_group)
        ol_group_release(c->remote_group);
    if (c->session)
        ol_session_release(c->session);
    c->magic = 0;
    free(c);
}

static void init_predefined(ol_comm_t *c, uint32_t context_id, ol_group_t *group, const char *name)
{
    *c = (ol_comm_t){.magic = OL_COMM_MAGIC, .context_id = context_id, .group = group,
                     .rank = group->rank, .size = group->size, .peer_size = group->size,
                     .world_ranks = group->world_ranks, .predefined = true,
                     .errhandler = MPI_ERRORS_ARE_FATAL};
    snprintf(c->name, sizeof(c->name), "%s", name);
}

ol_status_t ol_comm_init_predefined(void)
{
    ol_cid_init();
    ol_group_t *world = ol_group_create_identity(ol_rt.size);
    ol_group_t *self = ol_group_create(1, &ol_rt.rank);
    if (!world || !self)
        return MPI_ERR_NO_MEM;
    init_predefined(&ol_comm_world, 0, world, "MPI_COMM_WORLD");
    ol_comm_world.world_ranks = NULL; /* identity: the fast path skips the lookup */
    init_predefined(&ol_comm_self, 1, self, "MPI_COMM_SELF");
    return OL_OK;
}

void ol_comm_finalize_predefined(void)
{
    ol_coll_comm_release(&ol_comm_world);
    ol_coll_comm_release(&ol_comm_self);
    ol_group_release(ol_comm_world.group);
    ol_group_release(ol_comm_self.group);
}

ol_comm_t *ol_comm_from_handle(MPI_Comm handle)
{
    if (handle == MPI_COMM_WORLD)
        return &ol_comm_world;
    if (handle == MPI_COMM_SELF)
        return &ol_comm_self;
    if ((uintptr_t)handle < 4096)
        return NULL; /* MPI_COMM_NULL or another predefined handle */
    ol_comm_t *comm = (ol_comm_t *)handle;
    return comm->magic == OL_COMM_MAGIC ? comm : NULL;
}

MPI_Comm ol_comm_to_handle(ol_comm_t *comm)
{
    if (comm == &ol_comm_world)
        return MPI_COMM_WORLD;
    if (comm == &ol_comm_self)
        return MPI_COMM_SELF;
    return (MPI_Comm)comm;
}

/* ---- agreements ------------------------------------------------------------ */

/* The same in every participant of an agreement on parent, and distinct
 * for the agreements of one process: nonblocking ones (MPI_Comm_idup) on
 * one parent differ by the collective sequence number each took. */
static uint64_t agreement_priority(const ol_comm_t *parent, unsigned sequence)
{
    return (uint64_t)parent->context_id << 32 | sequence;
}

static ol_status_t and_over(ol_comm_t *comm, uint64_t *words, int n)
{
    return ol_coll_allreduce(MPI_IN_PLACE, words, n, ol_dt_from_handle(MPI_UINT64_T),
                             ol_op_from_handle(MPI_BAND), comm);
}

static ol_status_t and_intra(uint64_t *words, int n, void *comm)
{
    return and_over(comm, words, n);
}

/* The local group of an intercommunicator as an intracommunicator, on the
 * same context with shifted collective tags: for agreements only. */
static void local_view(const ol_comm_t *inter, ol_comm_t *view)
{
    *view = *inter;
    ol_coll_comm_view(view);
    view->remote_group = NULL;
    view->peer_size = inter->size;
    view->world_ranks = inter->group->world_ranks;
    view->coll_tag_base = LOCAL_VIEW_TAG_BASE;
}

/* A leader ANDs its group's words with the other group's, from its peer
 * leader over comm. */
static ol_status_t and_with_peer(uint64_t *words, int n, int peer, int tag, ol_comm_t *comm)
{
    uint64_t remote[n];
    ol_datatype_t *u64 = ol_dt_from_handle(MPI_UINT64_T);
    ol_status_t rc = ol_coll_sendrecv(words, n, u64, peer, remote, n, u64, peer, tag, comm);
    for (int i = 0; rc == OL_OK && i < n; i++)
        words[i] &= remote[i];
    return rc;
}

/* Local AND, then the two leaders (rank 0 of each group) swap and AND their
 * results over the intercommunicator, then each leader broadcasts. */
static ol_status_t and_inter(uint64_t *words, int n, void *intercomm)
{
    ol_comm_t *inter = intercomm, view;
    local_view(inter, &view);
    ol_status_t rc = and_over(&view, words, n);
    if (rc == OL_OK && inter->rank == 0)
        rc = and_with_peer(words, n, 0, OL_COLL_TAG_RANGE - 1, inter);
    if (rc == OL_OK)
        rc = ol_coll_bcast(words, n, ol_dt_from_handle(MPI_UINT64_T), 0, &view);
    return rc;
}

static ol_status_t new_context_id(ol_comm_t *parent, uint32_t *id)
{
    if (!ol_comm_is_inter(parent) && parent->size == 1)
        return ol_cid_allocate_local(id);
    return ol_cid_allocate(ol_comm_is_inter(parent) ? and_inter : and_intra, parent,
                           agreement_priority(parent, parent->coll_sequence), id);
}

/* ---- the hints a communicator keeps ----------------------------------------------- */

/* The communicator hints of the standard (MPI-4.1 7.4.4). ompi-lite keeps
 * these and returns them from MPI_Comm_get_info; it ignores other keys, as
 * the standard allows and as MPICH and Open MPI do, so that get_info says
 * which hints the library knows (MPICH's comm_info test checks it). */
static const char *const comm_hint_keys[] = {
    "mpi_assert_no_any_tag", "mpi_assert_no_any_source", "mpi_assert_exact_length",
    "mpi_assert_allow_overtaking",
};

/* A new info: the pairs of base (may be NULL), then the recognized hints of
 * given over them; NULL without memory. Built aside, so that running out of
 * memory changes nothing. */
static ol_info_t *recognized_hints(const ol_info_t *given, const ol_info_t *base)
{
    ol_info_t *info = base ? ol_info_dup(base) : ol_info_create();
    for (size_t i = 0; info && i < sizeof comm_hint_keys / sizeof comm_hint_keys[0]; i++) {
        const char *value = ol_info_get_value(given, comm_hint_keys[i]);
        if (value && ol_info_set(info, comm_hint_keys[i], value) != OL_OK) {
            ol_info_release(info);
            info = NULL;
        }
    }
    return info;
}

/* ---- dup ---------------------------------------------------------------------- */

/* What a duplicate inherits besides the groups: topology, hints (the
 * given ones for dup_with_info, else the parent's), attributes. */
static int inherit(ol_comm_t *comm, ol_comm_t *c, const ol_info_t *info)
{
    if (comm->topo && ol_topo_dup(comm->topo, &c->topo) != OL_OK)
        return MPI_ERR_NO_MEM;
    if (info ? !(c->info = recognized_hints(info, NULL))
             : comm->info && !(c->info = ol_info_dup(comm->info)))
        return MPI_ERR_NO_MEM;
    return ol_attr_copy_comm(comm, c);
}

/* The duplicate of comm on the agreed context id; *newcomm is written only
 * when it is made. */
static int dup_with_id(ol_comm_t *comm, const ol_info_t *info, uint32_t id, MPI_Comm *newcomm)
{
    int rc;
    ol_group_retain(comm->group);
    if (comm->remote_group)
        ol_group_retain(comm->remote_group);
    ol_comm_t *c = comm_new(id, comm->group, comm->remote_group, comm->errhandler);
    if (!c) {
        ol_group_release(comm->group);
        if (comm->remote_group)
            ol_group_release(comm->remote_group);
        ol_cid_release(id);
        return MPI_ERR_NO_MEM;
    }
    rc = inherit(comm, c, info);
    if (rc != MPI_SUCCESS) {
        ol_attr_delete_all_comm(c);
        comm_destroy(c);
        return rc;
    }
    *newcomm = ol_comm_to_handle(c);
    return MPI_SUCCESS;
}

/* A failed duplicate (an attribute copy callback returned an error, say)
 * leaves MPI_COMM_NULL in *newcomm, as MPICH and Open MPI do, so that no
 * stale handle is used; idup sets it the same way until its agreement ends. */
static int dup_comm(ol_comm_t *comm, const ol_info_t *info, MPI_Comm *newcomm)
{
    uint32_t id;
    *newcomm = MPI_COMM_NULL;
    int rc = new_context_id(comm, &id);
    return rc == MPI_SUCCESS ? dup_with_id(comm, info, id, newcomm) : rc;
}

ol_status_t ol_comm_dup_private(ol_comm_t *comm, ol_comm_t **dup)
{
    uint32_t id;
    ol_status_t rc = new_context_id(comm, &id);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_group_retain(comm->group);
    ol_comm_t *c = comm_new(id, comm->group, NULL, MPI_ERRORS_RETURN);
    if (!c) {
        ol_group_release(comm->group);
        ol_cid_release(id);
        ol_api_set_detail("out of memory for a communicator");
        return MPI_ERR_NO_MEM;
    }
    snprintf(c->name, sizeof(c->name), "a window's private communicator");
    *dup = c;
    return MPI_SUCCESS;
}

void ol_comm_free_private(ol_comm_t *comm)
{
    comm_destroy(comm);
}

int ol_api_comm_dup(ol_comm_t *comm, MPI_Comm *newcomm)
{
    return dup_comm(comm, NULL, newcomm);
}

int ol_api_comm_dup_with_info(ol_comm_t *comm, MPI_Info info, MPI_Comm *newcomm)
{
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    return rc == MPI_SUCCESS ? dup_comm(comm, hints, newcomm) : rc;
}

/* ---- idup ---------------------------------------------------------------------- */

/* MPI_Comm_idup returns before the other processes have called it: its
 * context-id agreement (context_id.h) runs as nonblocking allreduces that
 * progress advances, each step started when the previous one completes
 * (ol_coll_followup). On an intercommunicator a step is two: the AND in the
 * local group, then the allreduce between the groups, which gives each
 * group the other's AND. The call takes one collective sequence number of
 * the parent, and every step runs on views of the parent that keep it, so
 * that the agreement's messages, repeated or not, meet no other collective
 * of the parent. The duplicate is made, and *newcomm written, when the
 * agreement ends. */
typedef struct idup {
    ol_comm_t *parent;
    ol_info_t *info;          /* MPI_Comm_idup_with_info's hints (a copy), or NULL */
    MPI_Comm *newcomm;
    ol_request_t *request;    /* the user's */
    unsigned sequence;        /* the parent's collective sequence number it took */
    ol_comm_t local, between; /* the views: the (local) group, and for an
                                 intercommunicator the two groups */
    ol_cid_agreement_t agreement;
    uint64_t remote[OL_CID_WORDS];
    bool between_groups;      /* the step in flight is the allreduce between the groups */
    ol_request_t *step;       /* the collective in flight */
    struct idup *next;
} idup_t;

static idup_t *idups;        /* agreements in flight */
static pthread_mutex_t idups_lock = PTHREAD_MUTEX_INITIALIZER;
/* A thread found idups_lock held when a step may have completed: the holder
 * looks again once it has let go. Without it the completion was lost: the
 * followup runs only from the collectives' progress hook, which goes away
 * with the last active schedule, so an agreement whose last step completed
 * meanwhile waited for ever (comm_threads' idups, 1 run in a few hundred). */
static bool idups_missed;

static ol_status_t start_and(idup_t *d, bool between_groups)
{
    ol_comm_t *view = between_groups ? &d->between : &d->local;
    view->coll_sequence = d->sequence;
    d->between_groups = between_groups;
    ol_datatype_t *u64 = ol_dt_from_handle(MPI_UINT64_T);
    ol_coll_args_t a = {.kind = OL_COLL_ALLREDUCE,
                        .sendbuf = between_groups ? (void *)d->agreement.words : MPI_IN_PLACE,
                        .recvbuf = between_groups ? d->remote : d->agreement.words,
                        .sendcount = OL_CID_WORDS,
                        .recvcount = OL_CID_WORDS,
                        .sendtype = u64,
                        .recvtype = u64,
                        .op = ol_op_from_handle(MPI_BAND),
                        .comm = view};
    return ol_coll_start(&a, &d->step);
}

/* The agreement has ended (rc: how): the duplicate, and the user's request. */
static void idup_finish(idup_t *d, int rc, uint32_t id)
{
    if (rc == MPI_SUCCESS)
        rc = dup_with_id(d->parent, d->info, id, d->newcomm);
    if (rc == MPI_SUCCESS)
        ol_state_publish_comm(ol_comm_from_handle(*d->newcomm)); /* for hang reports */
    if (d->info)
        ol_info_release(d->info);
    ol_request_complete(d->request, rc);
    free(d);
}

/* Moves d on as far as its steps complete; true when it has ended. */
static bool idup_advance(idup_t *d)
{
    while (ol_request_is_complete(d->step)) {
        ol_status_t rc = d->step->error;
        ol_request_free_when_complete(d->step);
        uint32_t id = 0;
        if (rc == OL_OK && ol_comm_is_inter(d->parent) && !d->between_groups) {
            rc = start_and(d, true);
        } else if (rc == OL_OK) {
            for (int i = 0; d->between_groups && i < OL_CID_WORDS; i++)
                d->agreement.words[i] &= d->remote[i];
            ol_cid_step_t step = ol_cid_next(&d->agreement, &id);
            if (step != OL_CID_AGAIN) {
                idup_finish(d, step == OL_CID_AGREED ? MPI_SUCCESS : MPI_ERR_INTERN, id);
                return true;
            }
            rc = start_and(d, false);
        }
        if (rc != OL_OK) {
            ol_cid_abandon(&d->agreement);
            idup_finish(d, rc, 0);
            return true;
        }
    }
    return false;
}

static int advance_listed(void)
{
    int events = 0;
    for (idup_t **link = &idups; *link;) {
        idup_t *d = *link, *next = d->next; /* an ended d is freed */
        if (idup_advance(d)) {
            *link = next;
            events++;
        } else {
            link = &d->next;
        }
    }
    if (!idups)
        ol_coll_followup = NULL;
    return events;
}

static int idups_advance(void)
{
    int events = 0;
    do {
        if (pthread_mutex_trylock(&idups_lock) != 0) {
            /* Another thread is at it (this one, perhaps, starting an
             * idup): it looks again when it lets go. */
            __atomic_store_n(&idups_missed, true, __ATOMIC_SEQ_CST);
            return events;
        }
        __atomic_store_n(&idups_missed, false, __ATOMIC_SEQ_CST);
        events += advance_listed();
        pthread_mutex_unlock(&idups_lock);
    } while (__atomic_load_n(&idups_missed, __ATOMIC_SEQ_CST));
    return events;
}

/* A communicator of this process alone needs no agreement: done at once. */
static int idup_alone(ol_comm_t *comm, const ol_info_t *info, MPI_Comm *newcomm,
                      MPI_Request *request)
{
    ol_request_t *req = ol_request_alloc(OL_REQ_COMPOUND);
    if (!req)
        return MPI_ERR_NO_MEM;
    int rc = dup_comm(comm, info, newcomm);
    if (rc != MPI_SUCCESS) {
        ol_request_release(req);
        return rc;
    }
    ol_status_set_empty(&req->status);
    ol_request_complete(req, MPI_SUCCESS);
    *request = ol_request_to_handle(req);
    return MPI_SUCCESS;
}

static int idup(ol_comm_t *comm, const ol_info_t *info, MPI_Comm *newcomm, MPI_Request *request)
{
    if (!ol_comm_is_inter(comm) && comm->size == 1)
        return idup_alone(comm, info, newcomm, request);
    idup_t *d = calloc(1, sizeof(*d));
    ol_request_t *req = ol_request_alloc(OL_REQ_COMPOUND);
    if (!d || !req || (info && !(d->info = ol_info_dup(info)))) {
        free(d);
        if (req)
            ol_request_release(req);
        return MPI_ERR_NO_MEM;
    }
    ol_status_set_empty(&req->status);
    *newcomm = MPI_COMM_NULL; /* until the agreement ends */
    d->parent = comm;
    d->newcomm = newcomm;
    d->request = req;
    d->sequence = comm->coll_sequence++;
    if (ol_comm_is_inter(comm)) {
        local_view(comm, &d->local);
        d->between = *comm;
        ol_coll_comm_view(&d->between);
    } else {
        d->local = *comm;
        ol_coll_comm_view(&d->local);
    }
    *request = ol_request_to_handle(req);
    ol_cid_begin(&d->agreement, agreement_priority(comm, d->sequence));
    ol_status_t rc = start_and(d, false);
    if (rc != OL_OK) {
        ol_cid_abandon(&d->agreement);
        if (d->info)
            ol_info_release(d->info);
        free(d);
        ol_request_release(req);
        return rc;
    }
    pthread_mutex_lock(&idups_lock);
    if (!idup_advance(d)) {
        d->next = idups;
        idups = d;
        ol_coll_followup = idups_advance;
    }
    pthread_mutex_unlock(&idups_lock);
    if (__atomic_load_n(&idups_missed, __ATOMIC_SEQ_CST))
        idups_advance();
    return MPI_SUCCESS;
}

int ol_api_comm_idup(ol_comm_t *comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup(comm, NULL, newcomm, request);
}

int ol_api_comm_idup_with_info(ol_comm_t *comm, MPI_Info info, MPI_Comm *newcomm,
                               MPI_Request *request)
{
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    return rc == MPI_SUCCESS ? idup(comm, hints, newcomm, request) : rc;
}

/* ---- split --------------------------------------------------------------------- */

typedef struct {
    int color, key, rank;
} member_t;

static int by_key_then_rank(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* The members of group whose (color, key) pair has color, ordered by key;
 * the new group derives from group's session. */
static ol_group_t *group_of_color(const ol_group_t *group, const int *pairs, int color)
{
    size_t n_all = (size_t)(group->size ? group->size : 1);
    member_t *members = malloc(sizeof(*members) * n_all);
    int *world = malloc(sizeof(int) * n_all);
    ol_group_t *g = NULL;
    if (members && world) {
        int n = 0;
        for (int r = 0; r < group->size; r++)
            if (pairs[2 * r] == color)
                members[n++] = (member_t){color, pairs[2 * r + 1], r};
        qsort(members, (size_t)n, sizeof(*members), by_key_then_rank);
        for (int i = 0; i < n; i++)
            world[i] = group->world_ranks[members[i].rank];
        g = ol_group_create(n, world);
    }
    if (g)
        ol_group_inherit_session(g, group);
    free(members);
    free(world);
    return g;
}

static int exchange_groups(ol_comm_t *local, const ol_group_t *mine, int local_leader,
                           ol_comm_t *peer, int remote_leader, int tag, ol_group_t **remote);

/* Gives a new intercommunicator of local and remote, or MPI_COMM_NULL when
 * either is empty or this process is not in local; takes the groups. */
static int give_inter(ol_comm_t *inter, uint32_t id, ol_group_t *local, ol_group_t *remote,
                      MPI_Comm *newcomm)
{
    ol_comm_t *c = NULL;
    if (local && remote && local->rank != MPI_UNDEFINED && local->size && remote->size) {
        c = comm_new(id, local, remote, inter->errhandler);
        if (c) {
            *newcomm = ol_comm_to_handle(c);
            return MPI_SUCCESS;
        }
    }
    if (local)
        ol_group_release(local);
    if (remote)
        ol_group_release(remote);
    ol_cid_release(id);
    *newcomm = MPI_COMM_NULL;
    return local && remote ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* Split of an intercommunicator: each group splits its members by color
 * and key; the intercommunicator of a color joins the two groups' parts of
 * that color (MPI_COMM_NULL where either part is empty). */
static int split_inter(ol_comm_t *inter, int color, int key, MPI_Comm *newcomm)
{
    ol_comm_t view;
    local_view(inter, &view);
    int rsize = inter->remote_group->size;
    int *pairs = malloc(sizeof(int) * 2 * (size_t)inter->size);
    int *remote_pairs = malloc(sizeof(int) * 2 * (size_t)rsize);
    int mine[2] = {color, key};
    ol_datatype_t *ints = ol_dt_from_handle(MPI_INT);
    int rc = pairs && remote_pairs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = ol_coll_allgather(mine, 2, ints, pairs, 2, ints, &view);
    if (rc == MPI_SUCCESS && inter->rank == 0)
        rc = ol_coll_sendrecv(pairs, 2 * inter->size, ints, 0, remote_pairs, 2 * rsize, ints, 0,
                              OL_COLL_TAG_RANGE - 3, inter);
    if (rc == MPI_SUCCESS)
        rc = ol_coll_bcast(remote_pairs, 2 * rsize, ints, 0, &view);
    uint32_t id;
    if (rc == MPI_SUCCESS)
        rc = new_context_id(inter, &id);
    if (rc == MPI_SUCCESS && color == MPI_UNDEFINED) {
        ol_cid_release(id);
        *newcomm = MPI_COMM_NULL;
    } else if (rc == MPI_SUCCESS) {
        rc = give_inter(inter, id, group_of_color(inter->group, pairs, color),
                        group_of_color(inter->remote_group, remote_pairs, color), newcomm);
    }
    free(pairs);
    free(remote_pairs);
    return rc;
}

static int split(ol_comm_t *comm, int color, int key, MPI_Comm *newcomm)
{
    if (color < 0 && color != MPI_UNDEFINED) {
        ol_api_set_detail("color %d is negative and not MPI_UNDEFINED", color);
        return MPI_ERR_ARG;
    }
    if (ol_comm_is_inter(comm))
        return split_inter(comm, color, key, newcomm);
    int *pairs = malloc(sizeof(int) * 2 * (size_t)comm->size);
    if (!pairs)
        return MPI_ERR_NO_MEM;
    int mine[2] = {color, key};
    ol_datatype_t *ints = ol_dt_from_handle(MPI_INT);
    int rc = ol_coll_allgather(mine, 2, ints, pairs, 2, ints, comm);
    /* Every process agrees, including those with MPI_UNDEFINED: processes
     * of different colors may share the id, their groups are disjoint. */
    uint32_t id;
    if (rc == MPI_SUCCESS)
        rc = new_context_id(comm, &id);
    if (rc != MPI_SUCCESS) {
        free(pairs);
        return rc;
    }
    if (color == MPI_UNDEFINED) {
        ol_cid_release(id);
        free(pairs);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    ol_group_t *g = group_of_color(comm->group, pairs, color);
    free(pairs);
    ol_comm_t *c = g ? comm_new(id, g, NULL, comm->errhandler) : NULL;
    if (!c) {
        if (g)
            ol_group_release(g);
        ol_cid_release(id);
        return MPI_ERR_NO_MEM;
    }
    *newcomm = ol_comm_to_handle(c);
    return MPI_SUCCESS;
}

int ol_api_comm_split(ol_comm_t *comm, int color, int key, MPI_Comm *newcomm)
{
    return split(comm, color, key, newcomm);
}

int ol_comm_split_internal(ol_comm_t *comm, int color, int key, MPI_Comm *newcomm)
{
    return split(comm, color, key, newcomm);
}

/* ---- split by type --------------------------------------------------------------- */

/* The color of this process's host: the lowest world rank on it. */
static int host_color(void)
{
    return ol_rt.node_leader;
}

/* The index of this process's object of an mpi_hw_resource_type value
 * (an hwloc type name such as "NUMANode" or "L3Cache", optionally as
 * "hwloc://NUMANode"; "mpi_shared_memory" is the host, index 0), or -1 for
 * no value, an unknown one, or no such object holding the process. */
static int guided_index(const char *type)
{
    if (!type)
        return -1;
    if (strcmp(type, "mpi_shared_memory") == 0)
        return 0;
    if (strncmp(type, "hwloc://", 8) == 0)
        type += 8;
    ol_hw_view_t hw;
    if (!ol_hw_open(&hw))
        return -1;
    int depth, index = -1;
    if (hwloc_type_sscanf_as_depth(type, NULL, hw.topo, &depth) == 0)
        index = ol_hw_index_at_depth(&hw, depth);
    ol_hw_close(&hw);
    return index;
}

/* The hardware levels MPI_COMM_TYPE_HW_UNGUIDED tries below the host, from
 * the largest. */
static const hwloc_obj_type_t unguided_levels[] = {
    HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE,
    HWLOC_OBJ_L1CACHE, HWLOC_OBJ_CORE,     HWLOC_OBJ_PU,
};
enum { PLACE_FIELDS = 1 + OL_ARRAY_SIZE(unguided_levels) };

/* A process's place: its host, then its object index at each level. */
static void my_place(int *place)
{
    place[0] = host_color();
    ol_hw_view_t hw;
    bool known = ol_hw_open(&hw);
    for (size_t l = 0; l < OL_ARRAY_SIZE(unguided_levels); l++)
        place[1 + l] = known ? ol_hw_index_at_depth(&hw, hwloc_get_type_depth(hw.topo,
                                                                        unguided_levels[l]))
                             : -1;
    if (known)
        ol_hw_close(&hw);
}

/* The color of the group of processes on my host with my value of field f
 * of their places (n fields each): the lowest rank among them, so that
 * colors of different hosts differ. MPI_UNDEFINED when my value is -1. */
static int place_color(const int *places, int n, int size, int me, int f)
{
    const int *mine = places + (size_t)me * (size_t)n;
    if (f < 0 || mine[f] < 0)
        return MPI_UNDEFINED;
    for (int r = 0; r < size; r++) {
        const int *theirs = places + (size_t)r * (size_t)n;
        if (theirs[0] == mine[0] && theirs[f] == mine[f])
            return r;
    }
    return MPI_UNDEFINED; /* not reached: r = me matches */
}

/* The first field of the places that splits comm into strictly smaller
 * groups: the host (0) when comm spans several, else the first level at
 * which some process is held by an object but not all by the same one;
 * -1 when none does. */
static int splitting_field(const int *places, int n, int size)
{
    for (int f = 0; f < n; f++) {
        bool held = false, same = true;
        for (int r = 0; r < size; r++) {
            int v = places[(size_t)r * (size_t)n + f];
            held = held || v >= 0;
            same = same && v == places[f];
        }
        if (held && !same)
            return f;
    }
    return -1;
}

/* Every process gives its place (n ints, the host first); each splits by
 * the last field, or for HW_UNGUIDED by the first that splits comm, which
 * *field says. */
static int split_by_places(ol_comm_t *comm, const int *place, int n, bool unguided, int key,
                           MPI_Comm *newcomm, int *field)
{
    int *places = malloc(sizeof(int) * (size_t)n * (size_t)comm->size);
    if (!places)
        return MPI_ERR_NO_MEM;
    ol_datatype_t *ints = ol_dt_from_handle(MPI_INT);
    int rc = ol_coll_allgather(place, n, ints, places, n, ints, comm);
    *field = unguided ? splitting_field(places, n, comm->size) : n - 1;
    int color = place_color(places, n, comm->size, comm->rank, *field);
    free(places);
    return rc == MPI_SUCCESS ? split(comm, color, key, newcomm) : rc;
}

/* Groups share the object of the type the info names; every process takes
 * part even without a usable value, so that all make the same calls. */
static int split_guided(ol_comm_t *comm, const char *type, int key, MPI_Comm *newcomm)
{
    int place[2] = {host_color(), guided_index(type)}, field;
    return split_by_places(comm, place, 2, false, key, newcomm, &field);
}

/* The standard has HW_UNGUIDED say which level it split at: the new
 * communicator's info holds mpi_hw_resource_type. */
static int label_level(MPI_Comm *newcomm, int field)
{
    const char *name = field == 0 ? "mpi_shared_memory"
                                  : hwloc_obj_type_string(unguided_levels[field - 1]);
    ol_info_t *info = ol_info_create();
    if (!info || ol_info_set(info, "mpi_hw_resource_type", name) != OL_OK) {
        if (info)
            ol_info_release(info);
        ol_api_comm_free(newcomm);
        return MPI_ERR_NO_MEM;
    }
    ol_comm_from_handle(*newcomm)->info = info;
    return MPI_SUCCESS;
}

static int split_unguided(ol_comm_t *comm, int key, MPI_Comm *newcomm)
{
    int place[PLACE_FIELDS], field;
    my_place(place);
    int rc = split_by_places(comm, place, PLACE_FIELDS, true, key, newcomm, &field);
    if (rc != MPI_SUCCESS || *newcomm == MPI_COMM_NULL)
        return rc;
    return label_level(newcomm, field);
}

/* The process sets every process belongs to: mpi://WORLD, one group of
 * all; mpi://SELF, a group of each process alone. */
static int pset_color(const ol_comm_t *comm, const char *name)
{
    if (name && strcmp(name, "mpi://WORLD") == 0)
        return 0;
    if (name && strcmp(name, "mpi://SELF") == 0)
        return comm->rank;
    return MPI_UNDEFINED;
}

static const char *info_value(const ol_info_t *info, const char *key)
{
    return info ? ol_info_get_value(info, key) : NULL;
}

/* A hardware resource type guides as for HW_GUIDED; otherwise a process
 * set name does. */
static int split_resource_guided(ol_comm_t *comm, const ol_info_t *info, int key,
                                 MPI_Comm *newcomm)
{
    const char *type = info_value(info, "mpi_hw_resource_type");
    if (type)
        return split_guided(comm, type, key, newcomm);
    return split(comm, pset_color(comm, info_value(info, "mpi_pset_name")), key, newcomm);
}

/* A value the split types cannot use gives MPI_COMM_NULL, not an error,
 * as the standard says for the guided types. */
int ol_api_comm_split_type(ol_comm_t *comm, int split_type, int key, MPI_Info info,
                           MPI_Comm *newcomm)
{
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc != MPI_SUCCESS)
        return rc;
    switch (split_type) {
    case MPI_UNDEFINED:
        return split(comm, MPI_UNDEFINED, key, newcomm);
    case MPI_COMM_TYPE_SHARED:
        return split(comm, host_color(), key, newcomm);
    case MPI_COMM_TYPE_HW_GUIDED:
        return split_guided(comm, info_value(hints, "mpi_hw_resource_type"), key, newcomm);
    case MPI_COMM_TYPE_HW_UNGUIDED:
        return split_unguided(comm, key, newcomm);
    case MPI_COMM_TYPE_RESOURCE_GUIDED:
        return split_resource_guided(comm, hints, key, newcomm);
    default:
        ol_api_set_detail("split_type %d is not a split type", split_type);
        return MPI_ERR_ARG;
    }
}

/* ---- create ------------------------------------------------------------------ */

/* True when every member of group is a process of comm's group. */
static bool is_subgroup(const ol_group_t *group, const ol_group_t *of)
{
    for (int i = 0; i < group->size; i++)
        if (ol_group_rank_of(of, group->world_ranks[i]) == MPI_UNDEFINED)
            return false;
    return true;
}

/* MPI_Comm_create on an intercommunicator: each side names a subgroup of
 * its own group; the leaders swap them. */
static int create_inter(ol_comm_t *inter, ol_group_t *group, MPI_Comm *newcomm)
{
    ol_comm_t view;
    local_view(inter, &view);
    ol_group_t *remote = NULL;
    int rc = exchange_groups(&view, group, 0, inter, 0, 0, &remote);
    uint32_t id;
    if (rc == MPI_SUCCESS)
        rc = new_context_id(inter, &id);
    if (rc != MPI_SUCCESS) {
        if (remote)
            ol_group_release(remote);
        return rc;
    }
    ol_group_retain(group);
    return give_inter(inter, id, group, remote, newcomm);
}

int ol_api_comm_create(ol_comm_t *comm, ol_group_t *group, MPI_Comm *newcomm)
{
    if (!is_subgroup(group, comm->group)) {
        ol_api_set_detail("group has processes that are not in the communicator");
        return MPI_ERR_GROUP;
    }
    if (ol_comm_is_inter(comm))
        return create_inter(comm, group, newcomm);
    uint32_t id;
    int rc = new_context_id(comm, &id);
    if (rc != MPI_SUCCESS)
        return rc;
    if (group->rank == MPI_UNDEFINED) {
        ol_cid_release(id);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    ol_group_retain(group);
    ol_comm_t *c = comm_new(id, group, NULL, comm->errhandler);
    if (!c) {
        ol_group_release(group);
        ol_cid_release(id);
        return MPI_ERR_NO_MEM;
    }
    *newcomm = ol_comm_to_handle(c);
    return MPI_SUCCESS;
}

/* The communicator over group, a subgroup of comm that holds the caller.
 * Only the group's members call it: they agree among themselves, on the
 * parent's context, with collective tags shifted by tag. */
static int create_from_subgroup(ol_comm_t *comm, ol_group_t *group, int tag, MPI_Comm *newcomm)
{
    int *parent_ranks = malloc(sizeof(int) * (size_t)group->size);
    if (!parent_ranks)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < group->size; i++)
        parent_ranks[i] = ol_group_rank_of(comm->group, group->world_ranks[i]);
    ol_comm_t view = *comm;
    ol_coll_comm_view(&view);
    view.group = group;
    view.rank = group->rank;
    view.size = view.peer_size = group->size;
    view.world_ranks = group->world_ranks;
    view.tag_ranks = parent_ranks;
    view.coll_tag_base = (3 + tag % GROUP_VIEWS) * OL_COLL_TAG_RANGE;
    /* Members may have called other collectives of the parent (MPI_Comm_idup
     * takes a sequence number) in another order around this call. Threads
     * creating groups at once on one parent differ by tag, which orders
     * their agreements alike in every process (MPICH's
     * comm_create_group_threads2 livelocked on equal priorities). */
    view.coll_sequence = 0;
    uint32_t id;
    int rc = ol_cid_allocate(and_intra, &view,
                             agreement_priority(comm, 0x80000000u | (unsigned)(tag & 0x7fffffff)),
                             &id);
    free(parent_ranks);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_group_retain(group);
    ol_comm_t *c = comm_new(id, group, NULL, comm->errhandler);
    if (!c) {
        ol_group_release(group);
        ol_cid_release(id);
        return MPI_ERR_NO_MEM;
    }
    *newcomm = ol_comm_to_handle(c);
    return MPI_SUCCESS;
}

int ol_api_comm_create_group(ol_comm_t *comm, ol_group_t *group, int tag, MPI_Comm *newcomm)
{
    if (ol_comm_is_inter(comm)) {
        ol_api_set_detail("MPI_Comm_create_group needs an intracommunicator");
        return MPI_ERR_COMM;
    }
    if (!is_subgroup(group, comm->group) || group->rank == MPI_UNDEFINED) {
        ol_api_set_detail("group must be a subgroup of the communicator that includes the caller");
        return MPI_ERR_GROUP;
    }
    return create_from_subgroup(comm, group, tag, newcomm);
}

/* ---- communicators from groups alone (MPI_Comm_create_from_group) ------------- */

/* Without sessions every group is a group of MPI_COMM_WORLD's processes, so
 * the processes that name one stringtag agree over WORLD, as for
 * MPI_Comm_create_group, on a tag that the string hashes to (FNV-1a): calls
 * with different strings run at once without mixing their messages. */
static int stringtag_tag(const char *stringtag)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)stringtag; *c; c++)
        h = (h ^ *c) * 16777619u;
    return (int)(h & 0x7fffffff);
}

static int check_from_group(const ol_group_t *group, const char *name, const char *stringtag,
                            MPI_Errhandler errhandler, MPI_Info info, const ol_info_t **hints)
{
    if (!stringtag) {
        ol_api_set_detail("stringtag is NULL");
        return MPI_ERR_ARG;
    }
    if (group->rank == MPI_UNDEFINED) {
        ol_api_set_detail("the calling process is not in %s", name);
        return MPI_ERR_GROUP;
    }
    if (!ol_errhandler_fits_comm(errhandler)) {
        ol_api_set_detail("errhandler is not a valid error handler for a communicator");
        return MPI_ERR_ERRHANDLER;
    }
    return ol_info_hints(info, hints);
}

/* The new communicator's own error handler and info hints. */
static int adopt(MPI_Comm handle, MPI_Errhandler errhandler, const ol_info_t *hints)
{
    ol_comm_t *c = ol_comm_from_handle(handle);
    ol_errhandler_retain(errhandler);
    ol_errhandler_release(c->errhandler);
    c->errhandler = errhandler;
    if (hints && !(c->info = recognized_hints(hints, NULL))) {
        MPI_Comm doomed = handle;
        ol_api_comm_free(&doomed);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

int ol_api_comm_create_from_group(ol_group_t *group, const char *stringtag, MPI_Info info,
                                  MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    const ol_info_t *hints;
    int rc = check_from_group(group, "group", stringtag, errhandler, info, &hints);
    if (rc == MPI_SUCCESS)
        rc = create_from_subgroup(&ol_comm_world, group, stringtag_tag(stringtag), newcomm);
    return rc == MPI_SUCCESS ? adopt(*newcomm, errhandler, hints) : rc;
}

/* ---- intercommunicators -------------------------------------------------------- */

/* Over a peer_comm with other jobs' processes, the leaders swap what
 * those can read of their groups (dynamic.h) instead of world ranks. */
static int exchange_descriptions(ol_comm_t *local, int local_leader, ol_comm_t *peer,
                                 int remote_leader, int leader_tag, ol_group_t **remote)
{
    void *mine = NULL, *theirs = NULL;
    size_t length;
    uint64_t lengths[2] = {0, 0}; /* mine, theirs */
    ol_datatype_t *bytes = ol_dt_from_handle(MPI_BYTE), *u64 = ol_dt_from_handle(MPI_UINT64_T);
    int rc = ol_dynamic_describe(local, &mine, &length);
    lengths[0] = length;
    if (rc == MPI_SUCCESS && local->rank == local_leader)
        rc = ol_coll_sendrecv(&lengths[0], 1, u64, remote_leader, &lengths[1], 1, u64,
                              remote_leader, leader_tag, peer);
    if (rc == MPI_SUCCESS)
        rc = ol_coll_bcast(&lengths[1], 1, u64, local_leader, local);
    if (rc == MPI_SUCCESS && !(theirs = malloc(lengths[1] ? lengths[1] : 1)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && local->rank == local_leader)
        rc = ol_coll_sendrecv(mine, (MPI_Count)lengths[0], bytes, remote_leader, theirs,
                              (MPI_Count)lengths[1], bytes, remote_leader, leader_tag, peer);
    if (rc == MPI_SUCCESS)
        rc = ol_coll_bcast(theirs, (MPI_Count)lengths[1], bytes, local_leader, local);
    if (rc == MPI_SUCCESS)
        rc = ol_dynamic_group(theirs, lengths[1], remote);
    free(mine);
    free(theirs);
    return rc;
}

/* Leaders swap their groups' world ranks over peer_comm; then each leader
 * broadcasts the remote group in its local communicator. */
static int exchange_groups(ol_comm_t *local, const ol_group_t *mine, int local_leader,
                           ol_comm_t *peer, int remote_leader, int tag, ol_group_t **remote)
{
    ol_datatype_t *ints = ol_dt_from_handle(MPI_INT);
    int leader_tag = TAG_LEADERS + tag % (OL_PART_TAG_FIRST - TAG_LEADERS);
    int spans = local->rank == local_leader && peer->spans_jobs;
    int rc = ol_coll_bcast(&spans, 1, ints, local_leader, local);
    if (rc != MPI_SUCCESS || spans)
        return rc != MPI_SUCCESS ? rc
                                 : exchange_descriptions(local, local_leader, peer, remote_leader,
                                                         leader_tag, remote);
    int size = mine->size, remote_size = 0;
    if (local->rank == local_leader)
        rc = ol_coll_sendrecv(&size, 1, ints, remote_leader, &remote_size, 1, ints,
                              remote_leader, leader_tag, peer);
    if (rc == MPI_SUCCESS)
        rc = ol_coll_bcast(&remote_size, 1, ints, local_leader, local);
    int *ranks = malloc(sizeof(int) * (size_t)(remote_size ? remote_size : 1));
    if (!ranks)
        return MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && local->rank == local_leader)
        rc = ol_coll_sendrecv(mine->world_ranks, size, ints, remote_leader, ranks, remote_size,
                              ints, remote_leader, leader_tag, peer);
    if (rc == MPI_SUCCESS)
        rc = ol_coll_bcast(ranks, remote_size, ints, local_leader, local);
    if (rc == MPI_SUCCESS && !(*remote = ol_group_create(remote_size, ranks)))
        rc = MPI_ERR_NO_MEM;
    free(ranks);
    return rc;
}

/* The agreement of MPI_Intercomm_create: the groups share no context yet,
 * so the leaders meet over peer_comm. */
typedef struct {
    ol_comm_t *local;
    int local_leader;
    ol_comm_t *peer;
    int remote_leader;
    int tag;
} creation_t;

static ol_status_t and_creation(uint64_t *words, int n, void *arg)
{
    creation_t *how = arg;
    ol_status_t rc = and_over(how->local, words, n);
    if (rc == OL_OK && how->local->rank == how->local_leader)
        rc = and_with_peer(words, n, how->remote_leader, how->tag, how->peer);
    if (rc == OL_OK)
        rc = ol_coll_bcast(words, n, ol_dt_from_handle(MPI_UINT64_T), how->local_leader,
                           how->local);
    return rc;
}

int ol_api_intercomm_create(ol_comm_t *local_comm, int local_leader, MPI_Comm peer_comm,
                            int remote_leader, int tag, MPI_Comm *newintercomm)
{
    if (ol_comm_is_inter(local_comm)) {
        ol_api_set_detail("local_comm must be an intracommunicator");
        return MPI_ERR_COMM;
    }
    if (local_leader < 0 || local_leader >= local_comm->size) {
        ol_api_set_detail("local_leader %d is not a rank of local_comm", local_leader);
        return MPI_ERR_RANK;
    }
    ol_comm_t *peer = NULL;
    if (local_comm->rank == local_leader) { /* peer_comm matters at the leader only */
        peer = ol_comm_from_handle(peer_comm);
        if (!peer) {
            ol_api_set_detail("peer_comm is not a valid communicator");
            return MPI_ERR_COMM;
        }
        if (remote_leader < 0 || remote_leader >= peer->peer_size) {
            ol_api_set_detail("remote_leader %d is not a rank of peer_comm", remote_leader);
            return MPI_ERR_RANK;
        }
    }
    ol_group_t *remote;
    int rc = exchange_groups(local_comm, local_comm->group, local_leader, peer, remote_leader,
                             tag, &remote);
    if (rc != MPI_SUCCESS)
        return rc;
    creation_t how = {local_comm, local_leader, peer, remote_leader,
                      TAG_LEADERS + tag % (OL_PART_TAG_FIRST - TAG_LEADERS)};
    uint32_t id;
    rc = ol_cid_allocate(and_creation, &how,
                         agreement_priority(local_comm, local_comm->coll_sequence), &id);
    if (rc != MPI_SUCCESS) {
        ol_group_release(remote);
        return rc;
    }
    ol_group_retain(local_comm->group);
    ol_comm_t *c = comm_new(id, local_comm->group, remote, local_comm->errhandler);
    if (!c) {
        ol_group_release(local_comm->group);
        ol_group_release(remote);
        ol_cid_release(id);
        return MPI_ERR_NO_MEM;
    }
    *newintercomm = ol_comm_to_handle(c);
    return MPI_SUCCESS;
}

/* The agreement with a group that shares no communicator with this one
 * (api/dynamic.c): the roots swap through the caller's link, and the root
 * broadcasts the outcome with the words, so that a failed swap fails the
 * call everywhere instead of leaving the others waiting. */
typedef struct {
    ol_comm_t *local;
    int root;
    ol_comm_swap_t swap;
    void *ctx;
} remote_creation_t;

static ol_status_t and_remote(uint64_t *words, int n, void *arg)
{
    remote_creation_t *how = arg;
    ol_status_t rc = and_over(how->local, words, n);
    uint64_t shared[n + 1], theirs[n];
    if (how->local->rank == how->root) {
        if (rc == OL_OK)
            rc = how->swap(words, theirs, sizeof(theirs), how->ctx);
        for (int i = 0; rc == OL_OK && i < n; i++)
            words[i] &= theirs[i];
        memcpy(shared, words, sizeof(theirs));
        shared[n] = (uint64_t)rc;
    }
    ol_status_t sent = ol_coll_bcast(shared, n + 1, ol_dt_from_handle(MPI_UINT64_T), how->root,
                                     how->local);
    if (sent != OL_OK)
        return sent;
    if (shared[n] != OL_OK) {
        if (how->local->rank != how->root)
            ol_api_set_detail("the root could not agree with the other group on a context id");
        return (ol_status_t)shared[n];
    }
    memcpy(words, shared, sizeof(theirs));
    return OL_OK;
}

int ol_comm_create_with_remote(ol_comm_t *comm, int root, ol_group_t *remote,
                               ol_comm_swap_t swap, void *ctx, MPI_Comm *newcomm)
{
    remote_creation_t how = {comm, root, swap, ctx};
    uint32_t id;
    int rc = ol_cid_allocate(and_remote, &how, agreement_priority(comm, comm->coll_sequence), &id);
    if (rc != MPI_SUCCESS) {
        ol_group_release(remote);
        return rc;
    }
    ol_group_retain(comm->group);
    ol_comm_t *c = comm_new(id, comm->group, remote, comm->errhandler);
    if (!c) {
        ol_group_release(comm->group);
        ol_group_release(remote);
        ol_cid_release(id);
        return MPI_ERR_NO_MEM;
    }
    *newcomm = ol_comm_to_handle(c);
    return MPI_SUCCESS;
}

/* Each group first agrees on a communicator of its own, then their leaders
 * meet over WORLD, as MPI_Intercomm_create does. */
int ol_api_intercomm_create_from_groups(ol_group_t *local_group, int local_leader,
                                        ol_group_t *remote_group, int remote_leader,
                                        const char *stringtag, MPI_Info info,
                                        MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    const ol_info_t *hints;
    int rc = check_from_group(local_group, "local_group", stringtag, errhandler, info, &hints);
    if (rc != MPI_SUCCESS)
        return rc;
    if (local_leader < 0 || local_leader >= local_group->size) {
        ol_api_set_detail("local_leader %d is not a rank of local_group", local_leader);
        return MPI_ERR_RANK;
    }
    if (remote_leader < 0 || remote_leader >= remote_group->size) {
        ol_api_set_detail("remote_leader %d is not a rank of remote_group", remote_leader);
        return MPI_ERR_RANK;
    }
    int tag = stringtag_tag(stringtag);
    MPI_Comm local;
    rc = create_from_subgroup(&ol_comm_world, local_group, tag, &local);
    if (rc != MPI_SUCCESS)
        return rc;
    int remote_leader_in_world = remote_group->world_ranks[remote_leader];
    rc = ol_api_intercomm_create(ol_comm_from_handle(local), local_leader,
                                 ol_comm_to_handle(&ol_comm_world), remote_leader_in_world, tag,
                                 newintercomm);
    ol_api_comm_free(&local);
    return rc == MPI_SUCCESS ? adopt(*newintercomm, errhandler, hints) : rc;
}

int ol_api_intercomm_merge(ol_comm_t *intercomm, int high, MPI_Comm *newintracomm)
{
    if (!ol_comm_is_inter(intercomm)) {
        ol_api_set_detail("intercomm is not an intercommunicator");
        return MPI_ERR_COMM;
    }
    /* Which group goes first: the one that said high = false; on a tie,
     * the one whose first process comes first in the order of processes
     * that all jobs share (world rank within one job). */
    ol_comm_t view;
    local_view(intercomm, &view);
    int mine = high != 0, theirs = 0;
    ol_datatype_t *ints = ol_dt_from_handle(MPI_INT);
    int rc = MPI_SUCCESS;
    if (intercomm->rank == 0)
        rc = ol_coll_sendrecv(&mine, 1, ints, 0, &theirs, 1, ints, 0, OL_COLL_TAG_RANGE - 2,
                              intercomm);
    if (rc == MPI_SUCCESS)
        rc = ol_coll_bcast(&theirs, 1, ints, 0, &view);
    uint32_t id;
    if (rc == MPI_SUCCESS)
        rc = new_context_id(intercomm, &id);
    if (rc != MPI_SUCCESS)
        return rc;
    bool local_first = mine != theirs ? mine < theirs
                                      : ol_rt_proc_compare(intercomm->group->world_ranks[0],
                                                           intercomm->remote_group->world_ranks[0]) < 0;
    const ol_group_t *first = local_first ? intercomm->group : intercomm->remote_group;
    const ol_group_t *second = local_first ? intercomm->remote_group : intercomm->group;
    int n = first->size + second->size;
    int *world = malloc(sizeof(int) * (size_t)n);
    ol_group_t *g = NULL;
    if (world) {
        memcpy(world, first->world_ranks, sizeof(int) * (size_t)first->size);
        memcpy(world + first->size, second->world_ranks, sizeof(int) * (size_t)second->size);
        g = ol_group_create(n, world);
        free(world);
    }
    if (g)
        ol_group_inherit_session(g, intercomm->group);
    ol_comm_t *c = g ? comm_new(id, g, NULL, intercomm->errhandler) : NULL;
    if (!c) {
        if (g)
            ol_group_release(g);
        ol_cid_release(id);
        return MPI_ERR_NO_MEM;
    }
    *newintracomm = ol_comm_to_handle(c);
    return MPI_SUCCESS;
}

/* ---- hints --------------------------------------------------------------------- */

int ol_api_comm_set_info(ol_comm_t *comm, MPI_Info info)
{
    const ol_info_t *hints = ol_info_from_handle(info);
    if (!hints) {
        ol_api_set_detail("info is %s",
                          info == MPI_INFO_NULL ? "MPI_INFO_NULL" : "not a valid info object");
        return MPI_ERR_INFO;
    }
    ol_info_t *merged = recognized_hints(hints, comm->info);
    if (!merged) {
        ol_api_set_detail("out of memory for the hints of %s", comm->name);
        return MPI_ERR_NO_MEM;
    }
    if (comm->info)
        ol_info_release(comm->info);
    comm->info = merged;
    return MPI_SUCCESS;
}

/* A new info object, the program's to free; empty when no hint is set. */
int ol_api_comm_get_info(ol_comm_t *comm, MPI_Info *info_used)
{
    ol_info_t *copy = comm->info ? ol_info_dup(comm->info) : ol_info_create();
    if (!copy) {
        ol_api_set_detail("out of memory for an info object");
        return MPI_ERR_NO_MEM;
    }
    *info_used = ol_info_to_handle(copy);
    return MPI_SUCCESS;
}

/* ---- queries ------------------------------------------------------------------- */

int ol_api_comm_rank(ol_comm_t *comm, int *rank)
{
    *rank = comm->rank;
    return MPI_SUCCESS;
}

int ol_api_comm_size(ol_comm_t *comm, int *size)
{
    *size = comm->size;
    return MPI_SUCCESS;
}

int ol_api_comm_remote_size(ol_comm_t *comm, int *size)
{
    if (!ol_comm_is_inter(comm)) {
        ol_api_set_detail("comm is not an intercommunicator");
        return MPI_ERR_COMM;
    }
    *size = comm->remote_group->size;
    return MPI_SUCCESS;
}

int ol_api_comm_test_inter(ol_comm_t *comm, int *flag)
{
    *flag = ol_comm_is_inter(comm);
    return MPI_SUCCESS;
}

static int give_group(ol_group_t *g, MPI_Group *group)
{
    ol_group_retain(g);
    *group = ol_group_to_handle(g);
    return MPI_SUCCESS;
}

int ol_api_comm_group(ol_comm_t *comm, MPI_Group *group)
{
    return give_group(comm->group, group);
}

int ol_api_comm_remote_group(ol_comm_t *comm, MPI_Group *group)
{
    if (!ol_comm_is_inter(comm)) {
        ol_api_set_detail("comm is not an intercommunicator");
        return MPI_ERR_COMM;
    }
    return give_group(comm->remote_group, group);
}

int ol_api_comm_compare(ol_comm_t *comm1, ol_comm_t *comm2, int *result)
{
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (ol_comm_is_inter(comm1) != ol_comm_is_inter(comm2)) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int local = ol_group_compare(comm1->group, comm2->group);
    int remote = ol_comm_is_inter(comm1)
                     ? ol_group_compare(comm1->remote_group, comm2->remote_group)
                     : MPI_IDENT;
    if (local == MPI_IDENT && remote == MPI_IDENT)
        *result = MPI_CONGRUENT;
    else if (local != MPI_UNEQUAL && remote != MPI_UNEQUAL)
        *result = MPI_SIMILAR;
    else
        *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
}

int ol_api_comm_set_name(ol_comm_t *comm, const char *comm_name)
{
    if (!comm_name) {
        ol_api_set_detail("comm_name is NULL");
        return MPI_ERR_ARG;
    }
    snprintf(comm->name, sizeof(comm->name), "%s", comm_name);
    return MPI_SUCCESS;
}

int ol_api_comm_get_name(ol_comm_t *comm, char *comm_name, int *resultlen)
{
    if (!comm_name) {
        ol_api_set_detail("comm_name is NULL");
        return MPI_ERR_ARG;
    }
    *resultlen = snprintf(comm_name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
    return MPI_SUCCESS;
}

/* ---- free ------------------------------------------------------------------------ */

int ol_api_comm_free(MPI_Comm *comm)
{
    ol_comm_t *c = ol_comm_from_handle(*comm);
    if (!c) {
        ol_api_set_detail("comm is not a valid communicator");
        return MPI_ERR_COMM;
    }
    if (c->predefined) {
        ol_api_set_detail("%s cannot be freed", c->name);
        return MPI_ERR_COMM;
    }
    /* Delete callbacks run first; one that fails leaves the communicator. */
    int rc = ol_attr_delete_all_comm(c);
    if (rc != MPI_SUCCESS)
        return rc;
    if (c->bsend_buffer) {
        void *buffer;
        MPI_Count size;
        ol_bsend_detach(ol_bsend_slot(c), &buffer, &size);
    }
    comm_destroy(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
