/* Selection and the ways to run a collective (see coll.h, coll_select.h). */
#include "coll_select.h"
#include "ol_accel.h"
#include "coll_util.h"
#include "reduce_util.h"
#include "shm.h"
#include "ol_counter.h"
#include "ol_log.h"
#include "ol_param_table.h"
#include "ol_runtime.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Each collective's table lives in its own file. */
#define TABLE(name) extern const ol_coll_table_t ol_coll_##name##_table
TABLE(barrier);
TABLE(bcast);
TABLE(reduce);
TABLE(allreduce);
TABLE(gather);
TABLE(gatherv);
TABLE(scatter);
TABLE(scatterv);
TABLE(allgather);
TABLE(allgatherv);
TABLE(alltoall);
TABLE(alltoallv);
TABLE(alltoallw);
TABLE(reduce_scatter);
TABLE(reduce_scatter_block);
TABLE(scan);
TABLE(exscan);
TABLE(neighbor_allgather);
TABLE(neighbor_allgatherv);
TABLE(neighbor_alltoall);
TABLE(neighbor_alltoallv);
TABLE(neighbor_alltoallw);

const ol_coll_table_t *const ol_coll_tables[OL_COLL_KINDS] = {
    [OL_COLL_BARRIER] = &ol_coll_barrier_table,
    [OL_COLL_BCAST] = &ol_coll_bcast_table,
    [OL_COLL_REDUCE] = &ol_coll_reduce_table,
    [OL_COLL_ALLREDUCE] = &ol_coll_allreduce_table,
    [OL_COLL_GATHER] = &ol_coll_gather_table,
    [OL_COLL_GATHERV] = &ol_coll_gatherv_table,
    [OL_COLL_SCATTER] = &ol_coll_scatter_table,
    [OL_COLL_SCATTERV] = &ol_coll_scatterv_table,
    [OL_COLL_ALLGATHER] = &ol_coll_allgather_table,
    [OL_COLL_ALLGATHERV] = &ol_coll_allgatherv_table,
    [OL_COLL_ALLTOALL] = &ol_coll_alltoall_table,
    [OL_COLL_ALLTOALLV] = &ol_coll_alltoallv_table,
    [OL_COLL_ALLTOALLW] = &ol_coll_alltoallw_table,
    [OL_COLL_REDUCE_SCATTER] = &ol_coll_reduce_scatter_table,
    [OL_COLL_REDUCE_SCATTER_BLOCK] = &ol_coll_reduce_scatter_block_table,
    [OL_COLL_SCAN] = &ol_coll_scan_table,
    [OL_COLL_EXSCAN] = &ol_coll_exscan_table,
    [OL_COLL_NEIGHBOR_ALLGATHER] = &ol_coll_neighbor_allgather_table,
    [OL_COLL_NEIGHBOR_ALLGATHERV] = &ol_coll_neighbor_allgatherv_table,
    [OL_COLL_NEIGHBOR_ALLTOALL] = &ol_coll_neighbor_alltoall_table,
    [OL_COLL_NEIGHBOR_ALLTOALLV] = &ol_coll_neighbor_alltoallv_table,
    [OL_COLL_NEIGHBOR_ALLTOALLW] = &ol_coll_neighbor_alltoallw_table,
};

static uint64_t calls[OL_COLL_KINDS][OL_COLL_RAN_WAYS];

static void count_call(const ol_coll_args_t *a, int way)
{
    ol_counter_add(&calls[a->kind][way], 1);
}

uint64_t ol_coll_calls(int kind, int way)
{
    return ol_counter_read(&calls[kind][way]);
}

const char *ol_coll_ran_name(int way)
{
    static const char *const names[] = {"shm", "pair", "device_ipc", "split"};
    return names[way - OL_COLL_RAN_SHM];
}

MPI_Count ol_coll_bytes(const ol_coll_args_t *a)
{
    if (a->recvtype && a->recvcount)
        return a->recvcount * (MPI_Count)a->recvtype->size;
    if (a->sendtype)
        return a->sendcount * (MPI_Count)a->sendtype->size;
    return 0;
}

ol_coll_layout_t ol_coll_layout(const ol_comm_t *comm)
{
    /* Members of two jobs know different hosts, but must choose alike:
     * the layout whose algorithms read no host facts. */
    if (comm->spans_jobs)
        return OL_COLL_RANK_PER_HOST;
    /* local_size == size on one rank means every rank is on its host. */
    if (ol_rt.local_size >= ol_rt.size)
        return OL_COLL_ONE_HOST;
    /* num_hosts 0 (unknown) falls to the shared case, as the hierarchical
     * allreduce always assumed. */
    return ol_rt.num_hosts == ol_rt.size ? OL_COLL_RANK_PER_HOST : OL_COLL_SHARED_HOSTS;
}

static bool is_pow2(int n)
{
    return n > 0 && (n & (n - 1)) == 0;
}

/* Why an algorithm cannot run this call, or NULL when it can. */
static const char *unmet(const ol_coll_algorithm_t *algo, const ol_coll_args_t *a)
{
    unsigned r = algo->restrictions;
    if ((r & OL_ALGO_COMMUTATIVE) && a->op && !a->op->commutative)
        return "the op is not commutative";
    if ((r & OL_ALGO_POW2) && !is_pow2(a->comm->size))
        return "the process count is not a power of two";
    if ((r & OL_ALGO_INTRA) && ol_comm_is_inter(a->comm))
        return "the communicator is an intercommunicator";
    if ((r & OL_ALGO_ONE_JOB) && a->comm->spans_jobs)
        return "the communicator has members of other jobs";
    if ((r & OL_ALGO_CONTIGUOUS) &&
        ((a->sendtype && !a->sendtype->contiguous) || (a->recvtype && !a->recvtype->contiguous)))
        return "the datatype is not contiguous";
    if ((r & OL_ALGO_COUNT_GE_SIZE) && (a->recvcount ? a->recvcount : a->sendcount) < a->comm->size)
        return "the count is smaller than the process count";
    return NULL;
}

static int forced_choice(const ol_coll_table_t *t, const ol_coll_args_t *a)
{
    const char *name = *t->forced;
    if (!name || !*name)
        return -1;
    for (int i = 0; i < t->count; i++) {
        if (strcmp(t->algorithms[i].name, name) != 0)
            continue;
        const char *why = unmet(&t->algorithms[i], a);
        if (!why)
            return i;
        OL_WARN("coll", "%s algorithm %s cannot run here (%s): choosing another", t->name,
                name, why);
        return -1;
    }
    OL_WARN("coll", "%s has no algorithm named %s: choosing one", t->name, name);
    return -1;
}

const char *ol_coll_why(const char *fmt, ...)
{
    static _Thread_local char buf[160];
    /* Only the info log reads it: formatting it anyway cost a quarter of a
     * 2-rank 64-byte alltoall through the segment (0.23 us a call). */
    if (!ol_log_enabled(OL_LOG_INFO, "coll"))
        return "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    return buf;
}

/* "ALLREDUCE_ALGORITHM": the parameter that forces the collective's
 * algorithm. */
static const char *forced_param_name(const ol_coll_table_t *t)
{
    for (int i = 0; i < t->nparams; i++)
        if (t->params[i].storage == (const void *)t->forced)
            return t->params[i].name;
    return "?";
}

/* "forced by OMPI_LITE_ALLREDUCE_ALGORITHM=ring". */
static const char *forced_why(const ol_coll_table_t *t)
{
    return ol_coll_why("forced by OMPI_LITE_%s=%s", forced_param_name(t), *t->forced);
}

/* "; ALLREDUCE_SHORT_MSG=2048, ..." : the values of the collective's
 * numeric parameters (its thresholds), so that an automatic choice can be
 * read against them. Strings (the forcing parameter) are left out: they
 * are empty when the choice is automatic. */
static void format_thresholds(const ol_coll_table_t *t, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < t->nparams && used < size; i++) {
        const ol_param_t *p = &t->params[i];
        if (p->type != OL_PARAM_INT)
            continue;
        int n = snprintf(out + used, size - used, "%s%s=%d", used ? ", " : "; ", p->name,
                         *(const int *)p->storage);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* Logs the choice once per communicator, collective and size class: one
 * bit test per call when info is on, one branch when it is off. */
static void log_choice(const ol_coll_table_t *t, const ol_coll_args_t *a, const char *algorithm,
                       const char *why, bool with_thresholds)
{
    if (!ol_log_enabled(OL_LOG_INFO, "coll"))
        return;
    MPI_Count bytes = ol_coll_bytes(a);
    int size_class = bytes > 0 ? 64 - __builtin_clzll((unsigned long long)bytes) : 0;
    uint64_t bit = (uint64_t)1 << (size_class & 63);
    uint64_t *logged = &a->comm->coll_logged[a->kind];
    if (*logged & bit)
        return;
    *logged |= bit;
    char thresholds[256] = "";
    if (with_thresholds)
        format_thresholds(t, thresholds, sizeof(thresholds));
    OL_INFO("coll", "%s on %s (%d processes, %lld bytes, size class %d): %s (%s%s)", t->name,
            a->comm->name[0] ? a->comm->name : "a communicator", a->comm->size,
            (long long)bytes, size_class, algorithm, why, thresholds);
}

ol_status_t ol_coll_schedule(const ol_coll_args_t *a, ol_sched_t **sched)
{
    const ol_coll_table_t *t = ol_coll_tables[a->kind];
    const char *why;
    int index = forced_choice(t, a);
    bool forced = index >= 0;
    if (forced)
        why = forced_why(t);
    else
        index = t->choose(a, &why);
    log_choice(t, a, t->algorithms[index].name, why, !forced);
    count_call(a, index);
    ol_sched_t *s = ol_sched_create(a->comm);
    if (!s)
        return MPI_ERR_NO_MEM;
    if (OL_UNLIKELY(ol_coll_on_device(a)))
        ol_sched_use_device(s);
    ol_status_t rc = t->algorithms[index].build(s, a);
    if (rc != OL_OK) {
        ol_sched_free(s);
        return rc;
    }
    *sched = s;
    return OL_OK;
}

ol_status_t ol_coll_run(const ol_coll_args_t *a)
{
    if (a->kind == OL_COLL_ALLREDUCE && ol_accel_built()) {
        bool ipc;
        ol_status_t rc = ol_coll_allreduce_ipc_applies(a, ol_coll_allreduce_device_ipc_bytes, &ipc);
        if (rc != OL_OK)
            return rc;
        if (ipc) {
            log_choice(ol_coll_tables[a->kind], a, "device_ipc",
                       ol_coll_why("device memory, one host, >= ALLREDUCE_DEVICE_IPC_BYTES=%d",
                                   ol_coll_allreduce_device_ipc_bytes),
                       false);
            bool taken;
            rc = ol_coll_allreduce_ipc(a, &taken);
            if (taken) {
                count_call(a, OL_COLL_RAN_DEVICE_IPC);
                return rc;
            }
        }
    }
    bool shm;
    ol_status_t rc = ol_coll_shm_applies(a, &shm);
    if (rc != OL_OK)
        return rc;
    if (shm) {
        log_choice(ol_coll_tables[a->kind], a, "shm", ol_coll_shm_why(a), false);
        count_call(a, OL_COLL_RAN_SHM);
        return ol_coll_shm_run(a);
    }
    if (ol_coll_reduce_split_applies(a)) {
        bool taken;
        rc = ol_coll_reduce_split(a, &taken);
        if (taken) {
            log_choice(ol_coll_tables[a->kind], a, "split",
                       ol_coll_why("2 processes of one host, >= REDUCE_SPLIT_BYTES=%d",
                                   ol_coll_reduce_split_bytes),
                       false);
            count_call(a, OL_COLL_RAN_SPLIT);
        }
        if (taken || rc != OL_OK)
            return rc;
    }
    if (ol_coll_pair_applies(a)) {
        log_choice(ol_coll_tables[a->kind], a, "pair",
                   "blocking, 2 processes, small contiguous messages", false);
        count_call(a, OL_COLL_RAN_PAIR);
        return ol_coll_pair_run(a);
    }
    ol_sched_t *s;
    rc = ol_coll_schedule(a, &s);
    return rc == OL_OK ? ol_sched_run(s) : rc;
}

ol_status_t ol_coll_start(const ol_coll_args_t *a, ol_request_t **request)
{
    ol_sched_t *s;
    ol_status_t rc = ol_coll_schedule(a, &s);
    if (rc != OL_OK)
        return rc;
    return ol_sched_start(s, false, request);
}

ol_status_t ol_coll_prepare(const ol_coll_args_t *a, ol_request_t **request)
{
    ol_sched_t *s;
    ol_status_t rc = ol_coll_schedule(a, &s);
    if (rc != OL_OK)
        return rc;
    return ol_sched_prepare(s, request);
}

ol_status_t ol_coll_restart(ol_request_t *request)
{
    return ol_sched_restart(request);
}

/* A forced algorithm of another name is a typo the user must hear of, at
 * start-up (the calls that then choose their own say so in the warn log
 * only). */
static void check_forced_name(const ol_coll_table_t *t)
{
    if (t->count > OL_COLL_MAX_ALGORITHMS) /* a table that outgrew its counters */
        fprintf(stderr, "ompi-lite: internal error: %s has %d algorithms, more than "
                "OL_COLL_MAX_ALGORITHMS (%d) in coll_select.h\n", t->name, t->count,
                OL_COLL_MAX_ALGORITHMS);
    const char *name = *t->forced;
    if (!name || !*name)
        return;
    for (int i = 0; i < t->count; i++)
        if (strcmp(t->algorithms[i].name, name) == 0)
            return;
    char known[256] = "";
    for (int i = 0; i < t->count; i++)
        snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s", i ? ", " : "",
                 t->algorithms[i].name);
    fprintf(stderr, "ompi-lite: OMPI_LITE_%s=%s is not an algorithm of %s (%s); each call "
            "chooses its own\n", forced_param_name(t), name, t->name, known);
}

void ol_coll_params_load(void)
{
    for (int k = 0; k < OL_COLL_KINDS; k++) {
        ol_param_table_load(ol_coll_tables[k]->params, (size_t)ol_coll_tables[k]->nparams);
        check_forced_name(ol_coll_tables[k]);
    }
    ol_param_table_load(ol_coll_shm_params, (size_t)ol_coll_shm_nparams);
}

void ol_coll_params_print(FILE *out)
{
    for (int k = 0; k < OL_COLL_KINDS; k++)
        ol_param_table_print(ol_coll_tables[k]->params, (size_t)ol_coll_tables[k]->nparams, out);
    ol_param_table_print(ol_coll_shm_params, (size_t)ol_coll_shm_nparams, out);
}

/* ---- shortcuts -------------------------------------------------------------- */

ol_status_t ol_coll_barrier(ol_comm_t *comm)
{
    return ol_coll_run(&(ol_coll_args_t){.kind = OL_COLL_BARRIER, .comm = comm});
}

ol_status_t ol_coll_bcast(void *buf, MPI_Count count, ol_datatype_t *dt, int root, ol_comm_t *comm)
{
    return ol_coll_run(&(ol_coll_args_t){.kind = OL_COLL_BCAST, .recvbuf = buf, .recvcount = count,
                                         .recvtype = dt, .root = root, .comm = comm});
}

ol_status_t ol_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                              ol_datatype_t *dt, ol_op_t *op, ol_comm_t *comm)
{
    return ol_coll_run(&(ol_coll_args_t){.kind = OL_COLL_ALLREDUCE, .sendbuf = sendbuf,
                                         .recvbuf = recvbuf, .sendcount = count, .recvcount = count,
                                         .sendtype = dt, .recvtype = dt, .op = op, .comm = comm});
}

ol_status_t ol_coll_allgather(const void *sendbuf, MPI_Count sendcount, ol_datatype_t *sendtype,
                              void *recvbuf, MPI_Count recvcount, ol_datatype_t *recvtype,
                              ol_comm_t *comm)
{
    return ol_coll_run(&(ol_coll_args_t){.kind = OL_COLL_ALLGATHER, .sendbuf = sendbuf,
                                         .recvbuf = recvbuf, .sendcount = sendcount,
                                         .recvcount = recvcount, .sendtype = sendtype,
                                         .recvtype = recvtype, .comm = comm});
}
