/* Processes of other jobs: see ol_runtime.h. A plain array under a lock:
 * it is read when an endpoint is first made and when a communicator with
 * other jobs' processes is created, never on a message's path. */
#include "ol_runtime.h"
#include "procs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *job;
    int rank;
    void *address;
    size_t length;
    bool on_host;
} proc_t;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static proc_t *procs; /* procs[i] is index ol_rt.size + i */
static int nprocs, capacity;

static int find(const char *job, int rank)
{
    for (int i = 0; i < nprocs; i++)
        if (procs[i].rank == rank && strcmp(procs[i].job, job) == 0)
            return ol_rt.size + i;
    return -1;
}

static ol_status_t add(const char *job, int rank, const char *host, const void *address,
                       size_t length, int *index)
{
    if (ol_rt.size + nprocs >= OL_RT_MAX_PROCS) {
        ol_error_detail("this process knows %d processes already, the most it can", OL_RT_MAX_PROCS);
        return MPI_ERR_NO_MEM;
    }
    if (nprocs == capacity) {
        int grown = capacity ? 2 * capacity : 16;
        proc_t *more = realloc(procs, sizeof(*procs) * (size_t)grown);
        if (!more)
            return MPI_ERR_NO_MEM;
        procs = more;
        capacity = grown;
    }
    proc_t p = {.job = strdup(job), .rank = rank, .address = malloc(length ? length : 1),
                .length = length, .on_host = strcmp(host, ol_rt.hostname) == 0};
    if (!p.job || !p.address) {
        free(p.job);
        free(p.address);
        return MPI_ERR_NO_MEM;
    }
    memcpy(p.address, address, length);
    procs[nprocs] = p;
    *index = ol_rt.size + nprocs;
    __atomic_store_n(&nprocs, nprocs + 1, __ATOMIC_RELEASE);
    return OL_OK;
}

ol_status_t ol_rt_proc_index(const char *job, int rank, const char *host, const void *address,
                             size_t length, int *index)
{
    if (strcmp(job, ol_rt.job_name) == 0) {
        if (rank < 0 || rank >= ol_rt.size) {
            ol_error_detail("a peer names rank %d of this job, which has %d", rank, ol_rt.size);
            return MPI_ERR_OTHER;
        }
        *index = rank;
        return OL_OK;
    }
    pthread_mutex_lock(&lock);
    int found = find(job, rank);
    ol_status_t rc = OL_OK;
    if (found >= 0)
        *index = found;
    else
        rc = add(job, rank, host, address, length, index);
    pthread_mutex_unlock(&lock);
    return rc;
}

bool ol_rt_proc_on_host(int index)
{
    if (index < ol_rt.size)
        return index >= 0 && ol_rt_same_host(index);
    pthread_mutex_lock(&lock); /* the array may move while another thread adds */
    bool on_host = index < ol_rt.size + nprocs && procs[index - ol_rt.size].on_host;
    pthread_mutex_unlock(&lock);
    return on_host;
}

int ol_rt_proc_count(void)
{
    return ol_rt.size + __atomic_load_n(&nprocs, __ATOMIC_ACQUIRE);
}

void ol_rt_proc_identity(int index, const char **job, int *rank)
{
    if (index < ol_rt.size) {
        *job = ol_rt.job_name;
        *rank = index;
        return;
    }
    pthread_mutex_lock(&lock);
    *job = procs[index - ol_rt.size].job; /* its own allocation: stays while the array grows */
    *rank = procs[index - ol_rt.size].rank;
    pthread_mutex_unlock(&lock);
}

int ol_rt_proc_compare(int a, int b)
{
    const char *job_a, *job_b;
    int rank_a, rank_b;
    ol_rt_proc_identity(a, &job_a, &rank_a);
    ol_rt_proc_identity(b, &job_b, &rank_b);
    int by_job = strcmp(job_a, job_b);
    return by_job ? by_job : (rank_a > rank_b) - (rank_a < rank_b);
}

ol_status_t ol_rt_procs_address(int index, void **address, size_t *length)
{
    pthread_mutex_lock(&lock);
    const proc_t *p = &procs[index - ol_rt.size];
    *address = malloc(p->length ? p->length : 1);
    if (*address) {
        memcpy(*address, p->address, p->length);
        *length = p->length;
    }
    pthread_mutex_unlock(&lock);
    return *address ? OL_OK : MPI_ERR_NO_MEM;
}

void ol_rt_procs_clear(void)
{
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nprocs; i++) {
        free(procs[i].job);
        free(procs[i].address);
    }
    free(procs);
    procs = NULL;
    nprocs = capacity = 0;
    pthread_mutex_unlock(&lock);
}
