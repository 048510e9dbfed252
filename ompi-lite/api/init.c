/* MPI_Init and MPI_Finalize: the API layer starts the layers below it in
 * order (runtime, pt2pt) and stops them in reverse. */
#include "gen_impl.h"
#include "coll.h"
#include "ol_accel.h"
#include "ol_attr.h"
#include "pt2pt.h"

#include <pthread.h>
#include <stdio.h>

static pthread_t main_thread;

static int start(int required, int *provided)
{
    if (ol_rt.state != OL_RT_NOT_STARTED) {
        ol_api_set_detail(ol_rt.state == OL_RT_RUNNING ? "MPI is already initialized"
                                                       : "MPI cannot start again after MPI_Finalize");
        return MPI_ERR_OTHER;
    }
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
    rc = ol_comm_init_predefined();
    if (rc != OL_OK)
        return rc;
    main_thread = pthread_self();
    if (provided)
        *provided = level;
    return MPI_SUCCESS;
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
    /* MPI_Finalize first frees MPI_COMM_SELF's attributes (MPI-4.1 11.2.2):
     * libraries hook their clean-up on it. */
    int rc = ol_attr_delete_all_comm(&ol_comm_self);
    if (rc != MPI_SUCCESS)
        return rc;
    /* Endpoints flush what is in flight; the runtime's closing fence keeps
     * progressing, so no rank tears down its worker while a peer flushes. */
    ol_rma_finalize();
    ol_pt2pt_finalize();
    ol_comm_finalize_predefined();
    return ol_rt_finalize();
}

int ol_api_initialized(int *flag)
{
    *flag = ol_rt.state != OL_RT_NOT_STARTED;
    return MPI_SUCCESS;
}

int ol_api_finalized(int *flag)
{
    *flag = ol_rt.state == OL_RT_FINALIZED;
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
