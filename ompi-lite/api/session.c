/* Sessions (MPI-4.1 11.3): MPI_Session_init and MPI_Session_finalize, the
 * process sets a session offers and the groups made from them, a
 * session's info and error handler. Each live session holds the runtime
 * (init.c), so sessions and the world model share it in any order.
 *
 * Process sets, the same list in every process of the job, in this order:
 *   mpi://WORLD                  every process of the job
 *   mpi://SELF                   the calling process
 *   ompi-lite://host/<hostname>  the processes on one host, one set per
 *                                host of the job, hosts by their lowest rank
 * Each set's info has "mpi_size". Names match without regard to case. A
 * communicator over a set's group comes from MPI_Comm_create_from_group.
 *
 * The groups of a session's sets, the groups made from them and the
 * communicators made from those derive from the session: each holds a
 * reference, so the object outlives MPI_Session_finalize until the last of
 * them is freed. Buffered sends on such a communicator without a buffer of
 * its own use the session's (MPI_Session_attach_buffer), through the slot
 * the communicator points at (ol_comm_t.session_bsend_buffer); the buffer
 * code itself is pt2pt/bsend.c's, shared with the process's and the
 * communicators' buffers. */
#include "gen_impl.h"
#include "handles.h"
#include "pt2pt.h"
#include "ol_errhandler.h"
#include "ol_info.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HOST_PSET_PREFIX "ompi-lite://host/"

typedef struct {
    char *name;
    ol_group_t *group;
} pset_t;

struct ol_session {
    ol_session_t *next; /* the list of live sessions */
    int refcount;       /* the live handle, and each derived group and communicator */
    ol_bsend_buffer_t *bsend_buffer; /* MPI_Session_attach_buffer; NULL: none */
    MPI_Errhandler errhandler;
    int thread_level;   /* what the runtime provides */
    int npsets;
    pset_t *psets;
};

/* Sessions are found in this list, never through the handle's memory: a
 * finalized session's handle, which a program may still hold, names
 * nothing then. */
static ol_session_t *live;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

ol_session_t *ol_session_from_handle(MPI_Session handle)
{
    ol_session_t *found = NULL;
    pthread_mutex_lock(&live_lock);
    for (ol_session_t *s = live; s && !found; s = s->next)
        if ((MPI_Session)s == handle)
            found = s;
    pthread_mutex_unlock(&live_lock);
    return found;
}

MPI_Session ol_session_to_handle(ol_session_t *session)
{
    return (MPI_Session)session;
}

MPI_Errhandler ol_session_errhandler(const ol_session_t *session)
{
    return session->errhandler;
}

/* ---- thread levels ------------------------------------------------------------ */

static const struct {
    int level;
    const char *name;
} thread_levels[] = {
    {MPI_THREAD_SINGLE, "MPI_THREAD_SINGLE"},
    {MPI_THREAD_FUNNELED, "MPI_THREAD_FUNNELED"},
    {MPI_THREAD_SERIALIZED, "MPI_THREAD_SERIALIZED"},
    {MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE"},
};

/* The level the info key "thread_level" asks for: MPI_THREAD_SINGLE when
 * absent, or a value that names no level (a hint the library ignores, as
 * the standard wants; MPI_Session_get_info says what was granted). */
static int requested_level(const ol_info_t *hints)
{
    const char *value = hints ? ol_info_get_value(hints, "thread_level") : NULL;
    for (size_t i = 0; value && i < OL_ARRAY_SIZE(thread_levels); i++)
        if (strcmp(value, thread_levels[i].name) == 0)
            return thread_levels[i].level;
    return MPI_THREAD_SINGLE;
}

static const char *level_name(int level)
{
    for (size_t i = 0; i < OL_ARRAY_SIZE(thread_levels); i++)
        if (thread_levels[i].level == level)
            return thread_levels[i].name;
    return "MPI_THREAD_SINGLE";
}

/* ---- process sets ------------------------------------------------------------- */

static void free_psets(pset_t *psets, int n)
{
    for (int i = 0; i < n; i++) {
        free(psets[i].name);
        if (psets[i].group)
            ol_group_release(psets[i].group);
    }
    free(psets);
}

/* Fills one set of session s; false without memory. */
static bool set_pset(ol_session_t *s, pset_t *p, const char *prefix, const char *name,
                     ol_group_t *group)
{
    size_t length = strlen(prefix) + strlen(name) + 1;
    p->group = group;
    if (group) {
        ol_session_retain(s);
        group->session = s;
    }
    p->name = malloc(length);
    if (p->name)
        snprintf(p->name, length, "%s%s", prefix, name);
    return p->name && p->group;
}

static int build_psets(ol_session_t *s)
{
    ol_rt_host_t *hosts;
    int nhosts;
    if (ol_rt_hosts(&hosts, &nhosts) != OL_OK) {
        ol_api_set_detail("out of memory for the list of the job's hosts");
        return MPI_ERR_NO_MEM;
    }
    s->psets = calloc((size_t)(2 + nhosts), sizeof(pset_t));
    bool made = s->psets != NULL;
    if (made) {
        s->npsets = 2 + nhosts;
        made = set_pset(s, &s->psets[0], "mpi://", "WORLD",
                        ol_group_create_identity(ol_rt.size)) &&
               set_pset(s, &s->psets[1], "mpi://", "SELF", ol_group_create(1, &ol_rt.rank));
    }
    for (int i = 0; made && i < nhosts; i++)
        made = set_pset(s, &s->psets[2 + i], HOST_PSET_PREFIX, hosts[i].name,
                        ol_group_create(hosts[i].nranks, hosts[i].ranks));
    ol_rt_hosts_free(hosts, nhosts);
    if (made)
        return MPI_SUCCESS;
    ol_api_set_detail("out of memory for the session's process sets");
    return MPI_ERR_NO_MEM;
}

/* Names match without regard to case: programs written for MPICH ask for
 * "mpi://self", and host names have no case either. */
static const pset_t *find_pset(const ol_session_t *s, const char *name)
{
    for (int i = 0; i < s->npsets; i++)
        if (strcasecmp(s->psets[i].name, name) == 0)
            return &s->psets[i];
    return NULL;
}

/* The set called name, or MPI_ERR_ARG saying what is wrong with name. */
static int lookup_pset(const ol_session_t *s, const char *name, const pset_t **pset)
{
    if (!name) {
        ol_api_set_detail("pset_name is NULL");
        return MPI_ERR_ARG;
    }
    *pset = find_pset(s, name);
    if (*pset)
        return MPI_SUCCESS;
    ol_api_set_detail("pset_name \"%.200s\" is no process set of this session (it has "
                      "mpi://WORLD, mpi://SELF and " HOST_PSET_PREFIX
                      "<host> for each host; MPI_Session_get_nth_pset lists them)",
                      name);
    return MPI_ERR_ARG;
}

/* The info argument of the pset queries: hints that none of them takes,
 * but it must be MPI_INFO_NULL or a live info. */
static int check_query_info(MPI_Info info)
{
    const ol_info_t *hints;
    return ol_info_hints(info, &hints);
}

/* ---- init and finalize --------------------------------------------------------- */

void ol_session_retain(ol_session_t *s)
{
    __atomic_add_fetch(&s->refcount, 1, __ATOMIC_RELAXED);
}

void ol_session_release(ol_session_t *s)
{
    if (__atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    ol_errhandler_release(s->errhandler);
    free(s);
}

ol_bsend_buffer_t **ol_session_bsend_slot(ol_session_t *s)
{
    return &s->bsend_buffer;
}

/* What the live session holds: its sets (whose groups hold references to
 * it), its buffer, once its messages have left, and the handle's
 * reference. */
static void session_end(ol_session_t *s)
{
    void *buffer;
    MPI_Count size;
    ol_bsend_detach(&s->bsend_buffer, &buffer, &size);
    free_psets(s->psets, s->npsets);
    s->psets = NULL;
    s->npsets = 0;
    ol_session_release(s);
}

int ol_api_session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    if (!ol_errhandler_fits_session(errhandler)) {
        ol_api_set_detail("errhandler is not an error handler for a session (a predefined "
                          "one, or one of MPI_Session_create_errhandler)");
        return MPI_ERR_ERRHANDLER;
    }
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_session_t *s = calloc(1, sizeof(*s));
    if (!s) {
        ol_api_set_detail("out of memory for a session");
        return MPI_ERR_NO_MEM;
    }
    s->refcount = 1;
    s->errhandler = errhandler;
    ol_errhandler_retain(errhandler);
    rc = ol_api_runtime_hold(requested_level(hints), &s->thread_level);
    if (rc != MPI_SUCCESS) {
        session_end(s);
        return rc;
    }
    rc = build_psets(s);
    if (rc != MPI_SUCCESS) {
        session_end(s);
        ol_api_runtime_release();
        return rc;
    }
    pthread_mutex_lock(&live_lock);
    s->next = live;
    live = s;
    pthread_mutex_unlock(&live_lock);
    *session = ol_session_to_handle(s);
    return MPI_SUCCESS;
}

/* Takes s out of the live list; false when another thread finalized it
 * first. */
static bool unlink_live(ol_session_t *s)
{
    bool found = false;
    pthread_mutex_lock(&live_lock);
    for (ol_session_t **p = &live; *p; p = &(*p)->next) {
        if (*p == s) {
            *p = s->next;
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&live_lock);
    return found;
}

int ol_api_session_finalize(MPI_Session *session)
{
    ol_session_t *s = ol_session_from_handle(*session);
    if (!s || !unlink_live(s)) {
        ol_api_set_detail("session is %s", *session == MPI_SESSION_NULL
                                               ? "MPI_SESSION_NULL"
                                               : "not a live session (finalized already, or "
                                                 "never initialized)");
        return MPI_ERR_SESSION;
    }
    ol_handle_forget(s);
    session_end(s);
    *session = MPI_SESSION_NULL;
    return ol_api_runtime_release();
}

/* ---- queries -------------------------------------------------------------------- */

int ol_api_session_get_num_psets(ol_session_t *session, MPI_Info info, int *npset_names)
{
    int rc = check_query_info(info);
    if (rc == MPI_SUCCESS)
        *npset_names = session->npsets;
    return rc;
}

/* With *pset_len 0, only the length the name needs (with its terminating
 * NUL) comes back in *pset_len; otherwise the name, cut to *pset_len - 1
 * characters, and that length too. */
int ol_api_session_get_nth_pset(ol_session_t *session, MPI_Info info, int n, int *pset_len,
                                char *pset_name)
{
    int rc = check_query_info(info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n < 0 || n >= session->npsets) {
        ol_api_set_detail("n is %d, but the session has process sets 0 to %d", n,
                          session->npsets - 1);
        return MPI_ERR_ARG;
    }
    if (*pset_len < 0 || (*pset_len > 0 && !pset_name)) {
        ol_api_set_detail(*pset_len < 0 ? "*pset_len is negative"
                                        : "pset_name is NULL but *pset_len is not 0");
        return MPI_ERR_ARG;
    }
    const char *name = session->psets[n].name;
    int needed = (int)strlen(name) + 1;
    if (*pset_len > 0)
        snprintf(pset_name, (size_t)*pset_len, "%s", name);
    *pset_len = needed;
    return MPI_SUCCESS;
}

int ol_api_session_get_pset_info(ol_session_t *session, const char *pset_name, MPI_Info *info)
{
    const pset_t *pset;
    int rc = lookup_pset(session, pset_name, &pset);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_info_t *result = ol_info_create();
    return ol_info_give(result,
                        result ? ol_info_set_size(result, "mpi_size", (size_t)pset->group->size)
                               : MPI_ERR_NO_MEM,
                        info);
}

int ol_api_group_from_session_pset(ol_session_t *session, const char *pset_name,
                                   MPI_Group *newgroup)
{
    const pset_t *pset;
    int rc = lookup_pset(session, pset_name, &pset);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_group_retain(pset->group);
    *newgroup = ol_group_to_handle(pset->group);
    return MPI_SUCCESS;
}

/* The hint the session uses: the thread level it was granted. */
int ol_api_session_get_info(ol_session_t *session, MPI_Info *info_used)
{
    ol_info_t *result = ol_info_create();
    return ol_info_give(result,
                        result ? ol_info_set(result, "thread_level",
                                             level_name(session->thread_level))
                               : MPI_ERR_NO_MEM,
                        info_used);
}

/* ---- error handler ---------------------------------------------------------------- */

int ol_api_session_set_errhandler(ol_session_t *session, MPI_Errhandler errhandler)
{
    if (!ol_errhandler_fits_session(errhandler)) {
        ol_api_set_detail("errhandler is not an error handler for a session (a predefined "
                          "one, or one of MPI_Session_create_errhandler)");
        return MPI_ERR_ERRHANDLER;
    }
    ol_errhandler_retain(errhandler);
    ol_errhandler_release(session->errhandler);
    session->errhandler = errhandler;
    return MPI_SUCCESS;
}

/* A new reference: the program frees it with MPI_Errhandler_free. */
int ol_api_session_get_errhandler(ol_session_t *session, MPI_Errhandler *errhandler)
{
    ol_errhandler_retain(session->errhandler);
    *errhandler = session->errhandler;
    return MPI_SUCCESS;
}

/* ---- buffers for buffered sends (MPI-4.1 3.6.1) --------------------------------- */

int ol_api_session_attach_buffer_c(ol_session_t *session, void *buffer, MPI_Count size)
{
    return ol_api_buffer_attach_to(&session->bsend_buffer, buffer, size);
}

/* Waits until the messages in the buffer have left. */
int ol_api_session_detach_buffer_c(ol_session_t *session, void *buffer_addr, MPI_Count *size)
{
    return ol_bsend_detach(&session->bsend_buffer, (void **)buffer_addr, size);
}

int ol_api_session_detach_buffer(ol_session_t *session, void *buffer_addr, int *size)
{
    return ol_api_buffer_detach_int(&session->bsend_buffer, buffer_addr, size);
}

int ol_api_session_flush_buffer(ol_session_t *session)
{
    return ol_bsend_flush(&session->bsend_buffer);
}

int ol_api_session_iflush_buffer(ol_session_t *session, MPI_Request *request)
{
    return ol_api_buffer_iflush_of(&session->bsend_buffer, request);
}
