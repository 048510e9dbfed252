/* p2p_shm_threads: MPI_THREAD_MULTIPLE with several threads of a rank
 * sending to and receiving from the same peer at once, so that they share
 * whatever the pair's channel has (one ring, one backlog, one matching
 * queue): small and large messages, on distinct tags.
 *
 * NTHREADS threads per rank; thread t exchanges NITER messages round the
 * ring with thread t of the neighbours on tag TAG0 + t. Each message's size
 * (0 to 256 KiB, crossing every limit) and the way it goes are drawn from
 * a seed both ends share: MPI_Sendrecv; MPI_Isend + MPI_Recv; MPI_Irecv +
 * MPI_Ssend; MPI_Isend + MPI_Improbe (polled) + MPI_Imrecv; or a burst of
 * BURST small MPI_Isends answered by BURST blocking receives. Every
 * message's bytes, status and count are checked, and so their order per
 * tag.
 *
 * With the argument "mprobe" (run as p2p_shm_threads_mprobe), NTHREADS_MPROBE
 * threads a rank, and every exchange but the bursts is MPI_Isend + blocking
 * MPI_Mprobe + MPI_Mrecv: a blocking matched probe must take exactly the
 * first matching message while other threads progress the same channel,
 * never take one and return the next (the first would be lost). */
#include "p2p_shm_util.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    NTHREADS = 4,
    NTHREADS_MPROBE = 8, /* more threads make the race of a lost message likelier */
    NITER = 600,
    NITER_MPROBE = 1000,
    BURST = 32,
    BURST_MAX = 1024, /* bytes of a burst's message: k * 37 % (BURST_MAX + 1) */
    MAX_BYTES = 256 * 1024,
    TAG0 = 80,
};
enum way { SENDRECV, ISEND_RECV, IRECV_SSEND, IMPROBE, BURSTS, NWAYS, MPROBE = NWAYS };
static const char *way_name[NWAYS + 1] = {
    "MPI_Sendrecv",          "MPI_Isend + MPI_Recv",
    "MPI_Irecv + MPI_Ssend", "MPI_Isend + MPI_Improbe + MPI_Imrecv",
    "burst of MPI_Isend",    "MPI_Isend + MPI_Mprobe + MPI_Mrecv"};

static int left, right, only_mprobe;

static void check_in(const char *what, const unsigned char *in, const MPI_Status *st, int tag,
                     size_t n, unsigned seed)
{
    p2p_check_status(what, st, left, tag, MPI_BYTE, (MPI_Count)n);
    shm_check(what, in, n, seed);
    shm_guard_check(what, in + n);
}

static void *run_thread(void *arg)
{
    int t = (int)(long)arg, tag = TAG0 + t, seq = 0;
    /* the same draws as the neighbours' thread t: the ring's ranks agree
     * on every size and way */
    uint64_t rng = shm_seed(9, (unsigned)t, 0);
    unsigned char *out = shm_malloc(MAX_BYTES), *in = shm_malloc(MAX_BYTES + SHM_GUARD);
    unsigned char *bursts = shm_malloc((size_t)BURST * BURST_MAX);
    MPI_Request req[BURST];
    MPI_Message msg;
    MPI_Status st;
    char what[128];

    for (int i = 0; i < (only_mprobe ? NITER_MPROBE : NITER); i++) {
        enum way way = (enum way)shm_below(&rng, NWAYS);
        size_t n = shm_size(&rng, MAX_BYTES);
        int rc = MPI_SUCCESS, flag = 0;

        if (only_mprobe && way != BURSTS)
            way = MPROBE;

        snprintf(what, sizeof what, "thread %d, message %d (%zu bytes, %s)", t, seq, n,
                 way_name[way]);
        if (way == BURSTS) {
            for (int k = 0; k < BURST; k++) {
                size_t m = (size_t)(k * 37 % (BURST_MAX + 1));

                shm_make(bursts + (size_t)k * BURST_MAX, m,
                         shm_msg_seed(t, p2p_rank, right, seq + k));
                MPI_Isend(bursts + (size_t)k * BURST_MAX, (int)m, MPI_BYTE, right, tag,
                          MPI_COMM_WORLD, &req[k]);
            }
            for (int k = 0; k < BURST; k++) {
                size_t m = (size_t)(k * 37 % (BURST_MAX + 1));

                snprintf(what, sizeof what, "thread %d, message %d (%zu bytes, burst)", t, seq + k,
                         m);
                shm_guard_set(in + m);
                p2p_check_ok(what,
                             MPI_Recv(in, MAX_BYTES, MPI_BYTE, left, tag, MPI_COMM_WORLD, &st));
                check_in(what, in, &st, tag, m, shm_msg_seed(t, left, p2p_rank, seq + k));
            }
            p2p_check_ok("MPI_Waitall", MPI_Waitall(BURST, req, MPI_STATUSES_IGNORE));
            seq += BURST;
            continue;
        }

        shm_make(out, n, shm_msg_seed(t, p2p_rank, right, seq));
        shm_guard_set(in + n);
        switch (way) {
        case SENDRECV:
            rc = MPI_Sendrecv(out, (int)n, MPI_BYTE, right, tag, in, MAX_BYTES, MPI_BYTE, left, tag,
                              MPI_COMM_WORLD, &st);
            break;
        case ISEND_RECV:
            MPI_Isend(out, (int)n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req[0]);
            rc = MPI_Recv(in, MAX_BYTES, MPI_BYTE, left, tag, MPI_COMM_WORLD, &st);
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
            break;
        case IRECV_SSEND:
            MPI_Irecv(in, MAX_BYTES, MPI_BYTE, left, tag, MPI_COMM_WORLD, &req[0]);
            p2p_check_ok(what, MPI_Ssend(out, (int)n, MPI_BYTE, right, tag, MPI_COMM_WORLD));
            rc = MPI_Wait(&req[0], &st);
            break;
        case IMPROBE:
            MPI_Isend(out, (int)n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req[0]);
            /* polled, giving the core away between polls: 4 threads a rank
             * share 2 cores */
            for (;;) {
                p2p_check_ok(what, MPI_Improbe(left, tag, MPI_COMM_WORLD, &flag, &msg, &st));
                if (flag)
                    break;
                sched_yield();
            }
            p2p_check_status(what, &st, left, tag, MPI_BYTE, (MPI_Count)n);
            p2p_check_ok(what, MPI_Imrecv(in, MAX_BYTES, MPI_BYTE, &msg, &req[1]));
            rc = MPI_Wait(&req[1], &st);
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
            break;
        default:
            MPI_Isend(out, (int)n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req[0]);
            p2p_check_ok(what, MPI_Mprobe(left, tag, MPI_COMM_WORLD, &msg, &st));
            p2p_check_status(what, &st, left, tag, MPI_BYTE, (MPI_Count)n);
            rc = MPI_Mrecv(in, MAX_BYTES, MPI_BYTE, &msg, &st);
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
            break;
        }
        p2p_check_ok(what, rc);
        check_in(what, in, &st, tag, n, shm_msg_seed(t, left, p2p_rank, seq));
        seq++;
    }
    free(out);
    free(in);
    free(bursts);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t threads[NTHREADS_MPROBE];
    int provided, nthreads;

    only_mprobe = argc > 1 && strcmp(argv[1], "mprobe") == 0;
    provided = p2p_init(only_mprobe ? "p2p_shm_threads_mprobe" : "p2p_shm_threads", &argc, &argv,
                        MPI_THREAD_MULTIPLE);
    if (provided != MPI_THREAD_MULTIPLE)
        p2p_die("MPI_THREAD_MULTIPLE not provided (got %d)", provided);
    if (p2p_size < 2)
        p2p_die("needs at least 2 ranks");
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;

    nthreads = only_mprobe ? NTHREADS_MPROBE : NTHREADS;
    for (long t = 0; t < nthreads; t++)
        if (pthread_create(&threads[t], NULL, run_thread, (void *)t) != 0)
            p2p_die("pthread_create failed");
    for (int t = 0; t < nthreads; t++)
        pthread_join(threads[t], NULL);
    p2p_finish();
    return 0;
}
