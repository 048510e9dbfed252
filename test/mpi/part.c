/* part: partitioned communication (MPI_Psend_init, MPI_Precv_init,
 * MPI_Pready*, MPI_Parrived). Each rank sends to its right neighbour and
 * receives from its left one (itself on one rank).
 *
 * 1. Early: the sender marks partition 0 only, then waits for the
 *    receiver's word that partition 0 arrived (MPI_Parrived, data checked,
 *    the last partition not arrived yet) before it marks the others: an
 *    implementation that sends at MPI_Wait hangs here.
 * 2. Grid, ROUNDS restarts each, data of every round different: equal
 *    partition counts; different ones (6 x 10 ints into 4 x 15); 3000
 *    partitions of one double (more partitions than data messages) into
 *    6 of 500; 8 x 3 ints into a strided type of 4 ints whose elements
 *    sender partitions end inside (gaps untouched). Marked one by one in
 *    reverse, by MPI_Pready_range halves, or by MPI_Pready_list odd then
 *    even; the receiver polls MPI_Parrived and checks each partition as
 *    soon as it has arrived, then MPI_Wait and its status.
 * 3. Order: two sends of one (dest, tag) match the receives in the order
 *    of the initialization calls, not of the starts.
 * 4. Threads (MPI_THREAD_MULTIPLE): 4 threads mark 64 partitions at once.
 * 5. MPI_PROC_NULL on both sides; MPI_Parrived of a null or inactive
 *    request is true.
 * 6. Errors under MPI_ERRORS_RETURN: MPI_Pready before MPI_Start, twice, or
 *    on a receive or an ordinary request: MPI_ERR_REQUEST; out of range:
 *    MPI_ERR_ARG; negative partitions: MPI_ERR_ARG; a send longer than the
 *    receive: MPI_ERR_TRUNCATE at the receiver's MPI_Wait.
 * With the argument "fatal", one MPI_Pready out of range under
 * MPI_ERRORS_ARE_FATAL (part.sh checks the message). */
#include "p2p_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 30, THREADS = 4, THREAD_PARTS = 64, THREAD_COUNT = 33, TAG = 7 };

static int left, right;

static int value(int src, int round, int i)
{
    return src * 1000003 + round * 7919 + i;
}

/* ---- 1. partitions leave as they become ready -------------------------------- */

static void early(void)
{
    enum { PARTS = 4, COUNT = 1000 };
    int *sbuf = malloc(sizeof(int) * PARTS * COUNT), *rbuf = malloc(sizeof(int) * PARTS * COUNT);
    MPI_Request send, recv;
    p2p_check_ok("Psend_init", MPI_Psend_init(sbuf, PARTS, COUNT, MPI_INT, right, TAG,
                                              MPI_COMM_WORLD, MPI_INFO_NULL, &send));
    p2p_check_ok("Precv_init", MPI_Precv_init(rbuf, PARTS, COUNT, MPI_INT, left, TAG,
                                              MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
    for (int i = 0; i < PARTS * COUNT; i++)
        sbuf[i] = value(p2p_rank, 0, i);
    MPI_Request both[2] = {send, recv};
    p2p_check_ok("Startall", MPI_Startall(2, both));
    p2p_check_ok("Pready 0", MPI_Pready(0, send));
    int flag = 0;
    while (!flag)
        p2p_check_ok("Parrived 0", MPI_Parrived(recv, 0, &flag));
    for (int i = 0; i < COUNT; i++)
        if (rbuf[i] != value(left, 0, i))
            p2p_die("early: partition 0 element %d is %d, expected %d", i, rbuf[i],
                    value(left, 0, i));
    p2p_check_ok("Parrived last", MPI_Parrived(recv, PARTS - 1, &flag));
    if (flag)
        p2p_die("early: the last partition arrived before its sender marked it");
    /* Tell the sender (our left) we saw partition 0; learn the same of ours. */
    int word = 1;
    p2p_check_ok("Sendrecv", MPI_Sendrecv(&word, 1, MPI_INT, left, 99, &word, 1, MPI_INT, right,
                                          99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    p2p_check_ok("Pready_range", MPI_Pready_range(1, PARTS - 1, send));
    p2p_check_ok("Waitall", MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
    for (int i = 0; i < PARTS * COUNT; i++)
        if (rbuf[i] != value(left, 0, i))
            p2p_die("early: element %d is %d, expected %d", i, rbuf[i], value(left, 0, i));
    MPI_Request_free(&send);
    MPI_Request_free(&recv);
    free(sbuf);
    free(rbuf);
}

/* ---- 2. the grid --------------------------------------------------------- */

typedef enum { ONE_BY_ONE, RANGES, LISTS } marking_t;

typedef struct {
    const char *name;
    int send_parts, send_count;   /* of send_type */
    MPI_Datatype send_type;
    int recv_parts, recv_count;   /* of recv_type, whose elements hold recv_ints ints */
    int strided;                  /* recv_type: 2 blocks of 2 ints, stride 3, extent 6 ints */
} shape_t;

static void mark(MPI_Request send, int parts, marking_t how)
{
    if (how == ONE_BY_ONE) {
        for (int p = parts - 1; p >= 0; p--)
            p2p_check_ok("Pready", MPI_Pready(p, send));
    } else if (how == RANGES) {
        p2p_check_ok("Pready_range", MPI_Pready_range(parts / 2, parts - 1, send));
        if (parts / 2 > 0)
            p2p_check_ok("Pready_range", MPI_Pready_range(0, parts / 2 - 1, send));
    } else {
        int *list = malloc(sizeof(int) * (size_t)parts), n = 0;
        for (int first = 1; first >= 0; first--) {
            n = 0;
            for (int p = first; p < parts; p += 2)
                list[n++] = p;
            p2p_check_ok("Pready_list", MPI_Pready_list(n, list, send));
        }
        free(list);
    }
}

/* Ints of the message, in order, that element slot e of the receive holds
 * (-1: a gap of the strided type). */
static int int_at(const shape_t *s, int slot)
{
    if (!s->strided)
        return slot;
    int element = slot / 6, at = slot % 6;
    return at == 2 || at == 5 ? -1 : element * 4 + (at < 2 ? at : at - 1);
}

static void check_partition(const shape_t *s, const int *rbuf, int part, int round)
{
    int per = s->recv_count * (s->strided ? 6 : 1);
    for (int slot = part * per; slot < (part + 1) * per; slot++) {
        int i = int_at(s, slot);
        int want = i < 0 ? -7 : value(left, round, i);
        if (rbuf[slot] != want)
            p2p_die("%s round %d: receive partition %d, int %d is %d, expected %d", s->name,
                    round, part, slot, rbuf[slot], want);
    }
}

static void run_shape(const shape_t *s, marking_t how)
{
    MPI_Datatype recv_type = MPI_INT;
    if (s->strided) {
        MPI_Datatype vec;
        MPI_Type_vector(2, 2, 3, MPI_INT, &vec);
        MPI_Type_create_resized(vec, 0, 6 * sizeof(int), &recv_type);
        MPI_Type_free(&vec);
        MPI_Type_commit(&recv_type);
    }
    int send_ints = s->send_parts * s->send_count * (s->send_type == MPI_DOUBLE ? 2 : 1);
    int recv_slots = s->recv_parts * s->recv_count * (s->strided ? 6 : 1);
    int *sbuf = malloc(sizeof(int) * (size_t)send_ints);
    int *rbuf = malloc(sizeof(int) * (size_t)recv_slots);
    MPI_Request send, recv;
    p2p_check_ok("Psend_init", MPI_Psend_init(sbuf, s->send_parts, s->send_count, s->send_type,
                                              right, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &send));
    p2p_check_ok("Precv_init", MPI_Precv_init(rbuf, s->recv_parts, s->recv_count, recv_type,
                                              left, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
    int *seen = malloc(sizeof(int) * (size_t)s->recv_parts);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < send_ints; i++)
            sbuf[i] = value(p2p_rank, round, i);
        for (int i = 0; i < recv_slots; i++)
            rbuf[i] = -7;
        p2p_check_ok("Start recv", MPI_Start(&recv));
        p2p_check_ok("Start send", MPI_Start(&send));
        mark(send, s->send_parts, how);
        memset(seen, 0, sizeof(int) * (size_t)s->recv_parts);
        for (int left_to_see = s->recv_parts; left_to_see > 0;) {
            for (int p = 0; p < s->recv_parts; p++) {
                int flag;
                if (seen[p])
                    continue;
                p2p_check_ok("Parrived", MPI_Parrived(recv, p, &flag));
                if (!flag)
                    continue;
                check_partition(s, rbuf, p, round);
                seen[p] = 1;
                left_to_see--;
            }
        }
        MPI_Status st;
        p2p_check_ok("Wait recv", MPI_Wait(&recv, &st));
        p2p_check_status(s->name, &st, left, TAG, MPI_INT, send_ints);
        p2p_check_ok("Wait send", MPI_Wait(&send, MPI_STATUS_IGNORE));
        for (int p = 0; p < s->recv_parts; p++)
            check_partition(s, rbuf, p, round);
    }
    p2p_check_ok("Request_free", MPI_Request_free(&send));
    p2p_check_ok("Request_free", MPI_Request_free(&recv));
    if (send != MPI_REQUEST_NULL || recv != MPI_REQUEST_NULL)
        p2p_die("%s: MPI_Request_free left a handle", s->name);
    if (s->strided)
        MPI_Type_free(&recv_type);
    free(seen);
    free(sbuf);
    free(rbuf);
}

static void grid(void)
{
    static const shape_t shapes[] = {
        {"equal", 8, 100, MPI_INT, 8, 100, 0},
        {"6x10 into 4x15", 6, 10, MPI_INT, 4, 15, 0},
        {"3000 doubles into 6x1000 ints", 3000, 1, MPI_DOUBLE, 6, 1000, 0},
        {"8x3 ints into a strided type", 8, 3, MPI_INT, 3, 2, 1},
        {"zero bytes", 3, 0, MPI_INT, 5, 0, 0},
    };
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
        for (marking_t how = ONE_BY_ONE; how <= LISTS; how++)
            run_shape(&shapes[s], how);
}

/* ---- 3. matching in the order of the initialization calls -------------------- */

static void order(void)
{
    int a[4], b[4], ra[4], rb[4];
    MPI_Request sa, sb, rqa, rqb;
    for (int i = 0; i < 4; i++) {
        a[i] = value(p2p_rank, 1, i);
        b[i] = value(p2p_rank, 2, i);
    }
    MPI_Psend_init(a, 2, 2, MPI_INT, right, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &sa);
    MPI_Psend_init(b, 4, 1, MPI_INT, right, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &sb);
    MPI_Precv_init(ra, 1, 4, MPI_INT, left, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &rqa);
    MPI_Precv_init(rb, 2, 2, MPI_INT, left, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &rqb);
    p2p_check_ok("Start b", MPI_Start(&sb));
    MPI_Pready_range(0, 3, sb);
    p2p_check_ok("Wait b", MPI_Wait(&sb, MPI_STATUS_IGNORE));
    p2p_check_ok("Start rb", MPI_Start(&rqb));
    p2p_check_ok("Start ra", MPI_Start(&rqa));
    p2p_check_ok("Start a", MPI_Start(&sa));
    MPI_Pready_range(0, 1, sa);
    MPI_Request all[3] = {sa, rqa, rqb};
    p2p_check_ok("Waitall", MPI_Waitall(3, all, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4; i++)
        if (ra[i] != value(left, 1, i) || rb[i] != value(left, 2, i))
            p2p_die("order: element %d: first receive %d (expected %d), second %d (expected %d)",
                    i, ra[i], value(left, 1, i), rb[i], value(left, 2, i));
    MPI_Request_free(&sa);
    MPI_Request_free(&sb);
    MPI_Request_free(&rqa);
    MPI_Request_free(&rqb);
}

/* ---- 4. threads mark partitions at once ---------------------------------------- */

typedef struct {
    MPI_Request send;
    int first;
} marker_t;

static void *marker(void *arg)
{
    const marker_t *m = arg;
    for (int p = m->first; p < THREAD_PARTS; p += THREADS)
        p2p_check_ok("Pready in a thread", MPI_Pready(p, m->send));
    return NULL;
}

static void threads(void)
{
    enum { N = THREAD_PARTS * THREAD_COUNT };
    int *sbuf = malloc(sizeof(int) * N), *rbuf = malloc(sizeof(int) * N);
    MPI_Request send, recv;
    MPI_Psend_init(sbuf, THREAD_PARTS, THREAD_COUNT, MPI_INT, right, TAG, MPI_COMM_WORLD,
                   MPI_INFO_NULL, &send);
    MPI_Precv_init(rbuf, 2, N / 2, MPI_INT, left, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &recv);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N; i++) {
            sbuf[i] = value(p2p_rank, round, i);
            rbuf[i] = -1;
        }
        MPI_Request both[2] = {recv, send};
        p2p_check_ok("Startall", MPI_Startall(2, both));
        pthread_t t[THREADS];
        marker_t m[THREADS];
        for (int i = 0; i < THREADS; i++) {
            m[i] = (marker_t){send, i};
            if (pthread_create(&t[i], NULL, marker, &m[i]) != 0)
                p2p_die("pthread_create failed");
        }
        for (int i = 0; i < THREADS; i++)
            pthread_join(t[i], NULL);
        p2p_check_ok("Waitall", MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
        for (int i = 0; i < N; i++)
            if (rbuf[i] != value(left, round, i))
                p2p_die("threads round %d: element %d is %d, expected %d", round, i, rbuf[i],
                        value(left, round, i));
    }
    MPI_Request_free(&send);
    MPI_Request_free(&recv);
    free(sbuf);
    free(rbuf);
}

/* ---- 5. MPI_PROC_NULL and inactive requests ------------------------------------ */

static void proc_null(void)
{
    int buf[6] = {0};
    MPI_Request send, recv;
    MPI_Psend_init(buf, 3, 2, MPI_INT, MPI_PROC_NULL, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &send);
    MPI_Precv_init(buf, 2, 3, MPI_INT, MPI_PROC_NULL, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &recv);
    int flag = 0;
    p2p_check_ok("Parrived inactive", MPI_Parrived(recv, 0, &flag));
    if (!flag)
        p2p_die("MPI_Parrived of an inactive request says false");
    flag = 0;
    p2p_check_ok("Parrived null", MPI_Parrived(MPI_REQUEST_NULL, 0, &flag));
    if (!flag)
        p2p_die("MPI_Parrived of MPI_REQUEST_NULL says false");
    for (int round = 0; round < 3; round++) {
        MPI_Request both[2] = {send, recv};
        MPI_Startall(2, both);
        MPI_Pready_range(0, 2, send);
        MPI_Status st[2];
        p2p_check_ok("Waitall PROC_NULL", MPI_Waitall(2, both, st));
        p2p_check_proc_null("partitioned receive from MPI_PROC_NULL", &st[1]);
    }
    MPI_Request_free(&send);
    MPI_Request_free(&recv);
}

/* ---- 6. errors ----------------------------------------------------------- */

static void errors(void)
{
    int sbuf[8], rbuf[4];
    MPI_Request send, recv, plain;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN); /* calls on no request's comm */
    P2P_CHECK_CLASS("Psend_init with -1 partitions",
                    MPI_Psend_init(sbuf, -1, 1, MPI_INT, right, TAG, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &send),
                    MPI_ERR_ARG);
    /* 8 ints sent into 4: the receive is truncated. */
    for (int i = 0; i < 8; i++)
        sbuf[i] = i;
    MPI_Psend_init(sbuf, 4, 2, MPI_INT, right, TAG + 1, MPI_COMM_WORLD, MPI_INFO_NULL, &send);
    MPI_Precv_init(rbuf, 2, 2, MPI_INT, left, TAG + 1, MPI_COMM_WORLD, MPI_INFO_NULL, &recv);
    P2P_CHECK_CLASS("Pready before MPI_Start", MPI_Pready(0, send), MPI_ERR_REQUEST);
    MPI_Start(&send);
    MPI_Start(&recv);
    P2P_CHECK_CLASS("Pready of partition 4 of 4", MPI_Pready(4, send), MPI_ERR_ARG);
    P2P_CHECK_CLASS("Pready of partition -1", MPI_Pready(-1, send), MPI_ERR_ARG);
    P2P_CHECK_CLASS("Pready_range 3..1", MPI_Pready_range(3, 1, send), MPI_ERR_ARG);
    int bad_list[2] = {1, 9};
    P2P_CHECK_CLASS("Pready_list with 9", MPI_Pready_list(2, bad_list, send), MPI_ERR_ARG);
    P2P_CHECK_CLASS("Pready on a receive", MPI_Pready(0, recv), MPI_ERR_REQUEST);
    int flag;
    P2P_CHECK_CLASS("Parrived on a send", MPI_Parrived(send, 0, &flag), MPI_ERR_REQUEST);
    P2P_CHECK_CLASS("Parrived of partition 2 of 2", MPI_Parrived(recv, 2, &flag), MPI_ERR_ARG);
    p2p_check_ok("Pready 1", MPI_Pready(1, send));
    P2P_CHECK_CLASS("Pready 1 again", MPI_Pready(1, send), MPI_ERR_REQUEST);
    int dup_list[2] = {0, 1};
    P2P_CHECK_CLASS("Pready_list with a ready one", MPI_Pready_list(2, dup_list, send),
                    MPI_ERR_REQUEST);
    p2p_check_ok("Pready_list 0 2 3", MPI_Pready_list(3, (int[]){0, 2, 3}, send));
    p2p_check_ok("Wait send", MPI_Wait(&send, MPI_STATUS_IGNORE));
    P2P_CHECK_CLASS("Wait of a truncated partitioned receive", MPI_Wait(&recv, MPI_STATUS_IGNORE),
                    MPI_ERR_TRUNCATE);
    MPI_Request_free(&send);
    MPI_Request_free(&recv);
    MPI_Send_init(sbuf, 1, MPI_INT, right, TAG, MPI_COMM_WORLD, &plain);
    P2P_CHECK_CLASS("Pready on MPI_Send_init's request", MPI_Pready(0, plain), MPI_ERR_REQUEST);
    P2P_CHECK_CLASS("Pready on MPI_REQUEST_NULL", MPI_Pready(0, MPI_REQUEST_NULL),
                    MPI_ERR_REQUEST);
    MPI_Request_free(&plain);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static void fatal(void)
{
    int buf[4];
    MPI_Request send;
    MPI_Psend_init(buf, 4, 1, MPI_INT, MPI_PROC_NULL, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &send);
    MPI_Start(&send);
    MPI_Pready(4, send); /* ends the job */
}

int main(int argc, char **argv)
{
    int provided = p2p_init("part", &argc, &argv, MPI_THREAD_MULTIPLE);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    if (argc > 1 && strcmp(argv[1], "fatal") == 0)
        fatal();
    early();
    grid();
    order();
    if (provided == MPI_THREAD_MULTIPLE)
        threads();
    else if (p2p_rank == 0)
        printf("part: no MPI_THREAD_MULTIPLE, threads skipped\n");
    proc_null();
    errors();
    p2p_finish();
    return 0;
}
