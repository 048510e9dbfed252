/* MPI_Init and MPI_Finalize, and the runtime they share with sessions
 * (session.c): the API layer starts the layers below it in order (runtime,
 * pt2pt) and stops them in reverse. */
#include "gen_impl.h"
#include "coll.h"
#include "dynamic.h"
#include "ol_accel.h"
#include "ol_attr.h"
#include "pt2pt.h"

#include <pthread.h>
#include <stdio.h>

static pthread_t main_thread;

/* The runtime (PMIx, UCX, pt2pt, the predefined communicators) is held by
 * the world model, from MPI_Init to MPI_Finalize, and by each live
 * session (MPI-4.1 11.2, 11.3): the first holder starts it, the last one
 * ends it, so that a process may use both models, in either order, and
 * start again (sessions, or MPI_Init once) after everything has ended.
 * Starting and ending are collective over the job (PMIx fences): every
 * process must take and give back the runtime in the same pattern. */
static pthread_mutex_t holders_lock = PTHREAD_MUTEX_INITIALIZER;
static int holders;

/* The world model alone: MPI_Initialized and MPI_Finalized say this. */
static enum { WORLD_NOT_STARTED, WORLD_RUNNING, WORLD_FINALIZED } world;

static int start_runtime(int required)
{
    int level = required;
    if (level != MPI_THREAD_SINGLE && level != MPI_THREAD_FUNNELED &&
        level != MPI_THREAD_SERIALIZED && level != MPI_THREAD_MULTIPLE)
        level = MPI_THREAD_SINGLE;
    /* A progress thread of rma/ needs the runtime's locks (provided may be
     * above required, as the standard allows). */
    ol_rma_params_load();
    if (ol_rma_progress_interval_us() > 0)
        level = MPI_THREAD_MULTIPLE;
    static const ol_rt_device_t accel = {ol_accel_init, ol_accel_finalize,
                                         ol_accel_release_peers};
    ol_status_t rc = ol_rt_init(level, &ol_pt2pt_request_spec, &accel);
    ol_coll_params_load();
    ol_io_params_load();
    if (rc == OL_OK)
        rc = ol_pt2pt_init();
    if (rc != OL_OK) {
        const char *why = ol_error_detail_take();
        if (why[0])
            ol_api_set_detail("the runtime could not start: %s", why);
        else
            ol_api_set_detail("the runtime could not start (OMPI_LITE_DEBUG=warn says why)");
        return rc;
    }
    return ol_comm_init_predefined();
}

static int stop_runtime(void)
{
    /* Endpoints flush what is in flight; the runtime's closing fence keeps
     * progressing, so no rank tears down its worker while a peer flushes. */
    ol_rma_finalize();
    ol_io_finalize();
    ol_pt2pt_finalize();
    ol_comm_finalize_predefined();
    return ol_rt_finalize();
}

int ol_api_runtime_hold(int required, int *provided)
{
    pthread_mutex_lock(&holders_lock);
    int rc = holders == 0 ? start_runtime(required) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS) {
        holders++;
        *provided = ol_rt.thread_level;
    }
    pthread_mutex_unlock(&holders_lock);
    return rc;
}

int ol_api_runtime_release(void)
{
    pthread_mutex_lock(&holders_lock);
    int rc = --holders == 0 ? stop_runtime() : MPI_SUCCESS;
    pthread_mutex_unlock(&holders_lock);
    return rc;
}

static int start(int required, int *provided)
{
    if (world != WORLD_NOT_STARTED) {
        ol_api_set_detail(world == WORLD_RUNNING ? "MPI is already initialized"
                                                 : "MPI cannot start again after MPI_Finalize "
                                                   "(sessions can: MPI_Session_init)");
        return MPI_ERR_OTHER;
    }
    int level;
    int rc = ol_api_runtime_hold(required, &level);
    if (rc != MPI_SUCCESS)
        return rc;
    world = WORLD_RUNNING;
    main_thread = pthread_self();
    if (provided)
        *provided = level;
    return ol_dynamic_start();
}

int ol_api_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return start(MPI_THREAD_SINGLE, NULL);
}

int ol_api_init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    return start(required, provided);
}

int ol_api_finalize(void)
{
    /* The binding lets this through while a session holds the runtime. */
    if (world != WORLD_RUNNING) {
        ol_api_set_detail(world == WORLD_NOT_STARTED ? "called before MPI_Init"
                                                     : "MPI_Finalize was called already");
        return MPI_ERR_OTHER;
    }
    /* MPI_Finalize first frees MPI_COMM_SELF's attributes (MPI-4.1 11.2.2):
     * libraries hook their clean-up on it. */
    int rc = ol_attr_delete_all_comm(&ol_comm_self);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_dynamic_stop();
    world = WORLD_FINALIZED;
    return ol_api_runtime_release();
}

int ol_api_initialized(int *flag)
{
    *flag = world != WORLD_NOT_STARTED;
    return MPI_SUCCESS;
}

int ol_api_finalized(int *flag)
{
    *flag = world == WORLD_FINALIZED;
    return MPI_SUCCESS;
}

int ol_api_query_thread(int *provided)
{
    *provided = ol_rt.thread_level;
    return MPI_SUCCESS;
}

int ol_api_is_thread_main(int *flag)
{
    *flag = pthread_equal(pthread_self(), main_thread);
    return MPI_SUCCESS;
}

int ol_api_abort(ol_comm_t *comm, int errorcode)
{
    char unnamed[64], message[512];
    const char *what = comm->name;
    if (!*what) { /* a communicator the program made and did not name */
        snprintf(unnamed, sizeof(unnamed), "a communicator of %d processes", comm->size);
        what = unnamed;
    }
    snprintf(message, sizeof(message), "ompi-lite: MPI_Abort(%s, %d) called by rank %d on host %s",
             what, errorcode, ol_rt.rank, ol_rt.hostname);
    ol_rt_abort(errorcode, message);
}
