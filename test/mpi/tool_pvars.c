/* tool_pvars: ompi-lite's performance variables (MPI_T, issue 39): the
 * counts per path of messages and bytes, the matching queues, the
 * progress engine's timer and the collective calls by algorithm.
 * Usage: tool_pvars MODE, where MODE says which path tool_pvars.sh forced:
 *   rings    the same-host rings (the default on one host): each rank sends
 *            its right neighbour messages of 0, 1, 100, 5000 and 300000
 *            bytes (the last by address, the others in the ring), and 3
 *            empty ones that order the ranks; the handles of
 *            pt2pt_shm_ring_{messages,bytes}_{sent,received} grow by
 *            exactly those, UCX's stay still; the unexpected queue
 *            holds the 3 messages sent before their receives (level and
 *            high-water mark), the posted queue the 2 receives posted
 *            before their messages; handles stopped count nothing more
 *   ucx      OMPI_LITE_P2P_SHM=0: the same messages grow the pt2pt_ucx_shm_*
 *            handles by exactly as much (every rank is on this host), the
 *            rings' stay still
 *   net      ranks on hosts of their own (test/launcher/pvars_netns.sh):
 *            the same messages grow pt2pt_ucx_net_*, the others stay still
 *   timer    2 or more ranks: rank 0's blocking receive of a message rank 1
 *            sends 200 ms late spends at least 150 ms in
 *            runtime_progress_wait_time; nothing counts while stopped
 *   coll     OMPI_LITE_ALLREDUCE_ALGORITHM=ring: 5 MPI_Iallreduce calls grow
 *            coll_allreduce_ring_calls by 5 and no other allreduce
 *            algorithm's
 * Every mode also checks the error classes of the new variables: a level
 * and a high-water mark refuse a reset and a write (MPI_T_ERR_PVAR_NO_WRITE),
 * a level a start (MPI_T_ERR_PVAR_NO_STARTSTOP). Prints
 * "tool_pvars: MODE OK" at rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me = -1, np;
static MPI_T_pvar_session session;

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "tool_pvars: rank %d line %d: ", me, __LINE__); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
            exit(1); \
        } \
    } while (0)

#define EXPECT(call, code) \
    do { \
        int rc_ = (call); \
        CHECK(rc_ == (code), "%s returned %d, not %s", #call, rc_, #code); \
    } while (0)

#define OK(call) EXPECT(call, MPI_SUCCESS)

typedef struct {
    const char *name;
    int var_class;
    MPI_T_pvar_handle handle;
} var_t;

static void open_var(var_t *v, const char *name, int var_class)
{
    int index, count;
    v->name = name;
    v->var_class = var_class;
    EXPECT(MPI_T_pvar_get_index(name, var_class, &index), MPI_SUCCESS);
    OK(MPI_T_pvar_handle_alloc(session, index, NULL, &v->handle, &count));
    CHECK(count == 1, "%s has %d values", name, count);
}

static unsigned long long read_var(const var_t *v)
{
    if (v->var_class == MPI_T_PVAR_CLASS_LEVEL ||
        v->var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK) {
        unsigned value;
        OK(MPI_T_pvar_read(session, v->handle, &value));
        return value;
    }
    unsigned long long value;
    OK(MPI_T_pvar_read(session, v->handle, &value));
    return value;
}

/* ---- the paths --------------------------------------------------------------- */

static const int sizes[] = {0, 1, 100, 5000, 300000};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
#define EARLY 3 /* messages sent before their receives are posted */

enum { MSG_SENT, BYTES_SENT, MSG_RECEIVED, BYTES_RECEIVED, FIELDS };
static const char *const fields[FIELDS] = {"messages_sent", "bytes_sent", "messages_received",
                                           "bytes_received"};

static void open_path(var_t *vars, const char *path, char names[FIELDS][64])
{
    for (int f = 0; f < FIELDS; f++) {
        snprintf(names[f], 64, "pt2pt_%s_%s", path, fields[f]);
        open_var(&vars[f], names[f], MPI_T_PVAR_CLASS_COUNTER);
        OK(MPI_T_pvar_start(session, vars[f].handle));
    }
}

/* An empty message passed round the ring, rank 0 first; each rank may
 * look at its queues once the left's has come (then only the left's
 * earlier messages have arrived), before it passes it on. */
static void pass_token(int tag, void (*look)(const var_t *), const var_t *var)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    if (me == 0)
        OK(MPI_Send(NULL, 0, MPI_BYTE, right, tag, MPI_COMM_WORLD));
    OK(MPI_Recv(NULL, 0, MPI_BYTE, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (look)
        look(var);
    if (me != 0)
        OK(MPI_Send(NULL, 0, MPI_BYTE, right, tag, MPI_COMM_WORLD));
}

static void three_unexpected(const var_t *unexpected)
{
    CHECK(read_var(unexpected) == EARLY, "%llu messages unexpected, not %d",
          read_var(unexpected), EARLY);
}

/* Every rank sends each size to its right and receives from its left;
 * the first EARLY messages before any receive is posted (they wait in the
 * unexpected queue), the others after their receives (which wait in the
 * posted queue). Empty messages order the ranks (2 tokens round the ring,
 * and one to the left to say the receives are posted); no collective runs
 * meanwhile, whose own messages would count too. */
#define SYNCS 3
static void exchange(const var_t *unexpected, const var_t *posted, int rings)
{
    int right = (me + 1) % np, left = (me + np - 1) % np;
    size_t at[NSIZES], total = 0; /* each receive has its own bytes */
    for (int i = 0; i < NSIZES; i++) {
        at[i] = total;
        total += (size_t)sizes[i];
    }
    char *out = malloc((size_t)sizes[NSIZES - 1]), *in = malloc(total);
    memset(out, me + 1, (size_t)sizes[NSIZES - 1]);
    MPI_Request sends[NSIZES], recvs[NSIZES];
    for (int i = 0; i < EARLY; i++)
        OK(MPI_Isend(out, sizes[i], MPI_BYTE, right, i, MPI_COMM_WORLD, &sends[i]));
    pass_token(100, rings ? three_unexpected : NULL, unexpected);
    pass_token(101, NULL, NULL); /* every rank has looked */
    for (int i = EARLY; i < NSIZES; i++)
        OK(MPI_Irecv(in + at[i], sizes[i], MPI_BYTE, left, i, MPI_COMM_WORLD, &recvs[i]));
    if (rings)
        CHECK(read_var(posted) == NSIZES - EARLY, "%llu receives posted, not %d",
              read_var(posted), NSIZES - EARLY);
    /* The left sends the rest once these receives are posted. */
    OK(MPI_Send(NULL, 0, MPI_BYTE, left, 102, MPI_COMM_WORLD));
    OK(MPI_Recv(NULL, 0, MPI_BYTE, right, 102, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int i = EARLY; i < NSIZES; i++)
        OK(MPI_Isend(out, sizes[i], MPI_BYTE, right, i, MPI_COMM_WORLD, &sends[i]));
    for (int i = 0; i < EARLY; i++)
        OK(MPI_Irecv(in + at[i], sizes[i], MPI_BYTE, left, i, MPI_COMM_WORLD, &recvs[i]));
    OK(MPI_Waitall(NSIZES, recvs, MPI_STATUSES_IGNORE));
    OK(MPI_Waitall(NSIZES, sends, MPI_STATUSES_IGNORE));
    for (int i = 0; i < NSIZES; i++)
        for (int k = 0; k < sizes[i]; k++)
            CHECK(in[at[i] + (size_t)k] == (char)(left + 1), "message %d byte %d is %d", i, k,
                  in[at[i] + (size_t)k]);
    free(out);
    free(in);
}

static void check_path(const var_t *vars, unsigned long long messages, unsigned long long bytes)
{
    const unsigned long long want[FIELDS] = {messages, bytes, messages, bytes};
    for (int f = 0; f < FIELDS; f++)
        CHECK(read_var(&vars[f]) == want[f], "%s counted %llu, not %llu", vars[f].name,
              read_var(&vars[f]), want[f]);
}

/* The paths a message may take between hosts' memory (not the device's). */
static const char *const host_paths[] = {"shm_ring", "ucx_shm", "ucx_net"};

static void mode_path(const char *path)
{
    int rings = strcmp(path, "shm_ring") == 0;
    char taken_names[FIELDS][64], idle_names[2][FIELDS][64];
    var_t taken[FIELDS], idle[2][FIELDS], unexpected, high_water, posted;
    open_var(&unexpected, "pt2pt_unexpected_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    open_var(&high_water, "pt2pt_unexpected_queue_high_water", MPI_T_PVAR_CLASS_HIGHWATERMARK);
    open_var(&posted, "pt2pt_posted_queue_length", MPI_T_PVAR_CLASS_LEVEL);
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_T_pvar_start(session, high_water.handle));
    open_path(taken, path, taken_names);
    for (int p = 0, i = 0; p < 3; p++) {
        if (strcmp(host_paths[p], path) != 0) {
            open_path(idle[i], host_paths[p], idle_names[i]);
            i++;
        }
    }

    exchange(&unexpected, &posted, rings);
    for (int f = 0; f < FIELDS; f++) {
        OK(MPI_T_pvar_stop(session, taken[f].handle));
        OK(MPI_T_pvar_stop(session, idle[0][f].handle));
        OK(MPI_T_pvar_stop(session, idle[1][f].handle));
    }
    unsigned long long bytes = 0;
    for (int i = 0; i < NSIZES; i++)
        bytes += (unsigned long long)sizes[i];
    check_path(taken, NSIZES + SYNCS, bytes);
    check_path(idle[0], 0, 0);
    check_path(idle[1], 0, 0);
    CHECK(read_var(&unexpected) == 0 && read_var(&posted) == 0,
          "queues left: %llu unexpected, %llu posted", read_var(&unexpected), read_var(&posted));
    /* The empty messages may have waited there too. */
    if (rings)
        CHECK(read_var(&high_water) >= EARLY && read_var(&high_water) <= EARLY + SYNCS,
              "high-water mark %llu, not %d to %d", read_var(&high_water), EARLY, EARLY + SYNCS);

    /* Stopped handles count nothing more (nor the barrier's messages: no
     * rank starts the next exchange before every one looked). */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    exchange(&unexpected, &posted, rings);
    check_path(taken, NSIZES + SYNCS, bytes);

    /* A level and a high-water mark are read-only; a level runs always. */
    unsigned value = 0;
    EXPECT(MPI_T_pvar_reset(session, posted.handle), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_start(session, posted.handle), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT(MPI_T_pvar_reset(session, high_water.handle), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_write(session, high_water.handle, &value), MPI_T_ERR_PVAR_NO_WRITE);
    EXPECT(MPI_T_pvar_readreset(session, high_water.handle, &value), MPI_T_ERR_PVAR_NO_WRITE);
    /* A reset of every handle skips those that cannot be reset. */
    OK(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES));
    CHECK(read_var(&taken[BYTES_SENT]) == 0, "the reset left %llu",
          read_var(&taken[BYTES_SENT]));
}

/* ---- the timer ----------------------------------------------------------------- */

static void mode_timer(void)
{
    CHECK(np >= 2, "the timer mode needs 2 ranks");
    var_t wait;
    open_var(&wait, "runtime_progress_wait_time", MPI_T_PVAR_CLASS_TIMER);
    int x = 0;
    OK(MPI_Barrier(MPI_COMM_WORLD));
    OK(MPI_T_pvar_start(session, wait.handle));
    if (me == 1) {
        usleep(200000);
        OK(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    } else if (me == 0) {
        OK(MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    OK(MPI_T_pvar_stop(session, wait.handle));
    unsigned long long waited = read_var(&wait);
    if (me == 0)
        CHECK(waited >= 150000000ull && waited < 60000000000ull,
              "waited %llu ns for a message 200 ms late", waited);
    /* Stopped, a wait adds nothing. */
    OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 1) {
        usleep(100000);
        OK(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD));
    } else if (me == 0) {
        OK(MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    CHECK(read_var(&wait) == waited, "a stopped timer went from %llu to %llu", waited,
          read_var(&wait));
}

/* ---- collectives by algorithm ------------------------------------------------------ */

static void mode_coll(void)
{
    static const char *const algorithms[] = {"recursive_doubling", "ring", "rabenseifner",
                                             "tree", "hierarchical"};
    enum { N = sizeof(algorithms) / sizeof(algorithms[0]), CALLS = 5 };
    var_t calls[N];
    char names[N][64];
    for (int a = 0; a < N; a++) {
        snprintf(names[a], sizeof(names[a]), "coll_allreduce_%s_calls", algorithms[a]);
        open_var(&calls[a], names[a], MPI_T_PVAR_CLASS_COUNTER);
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int a = 0; a < N; a++)
        OK(MPI_T_pvar_start(session, calls[a].handle));
    for (int i = 0; i < CALLS; i++) {
        double in[16], out[16];
        for (int k = 0; k < 16; k++)
            in[k] = me + k;
        MPI_Request req;
        OK(MPI_Iallreduce(in, out, 16, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req));
        OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        for (int k = 0; k < 16; k++)
            CHECK(out[k] == (double)np * (np - 1) / 2 + (double)np * k, "allreduce[%d] = %g",
                  k, out[k]);
    }
    for (int a = 0; a < N; a++) {
        OK(MPI_T_pvar_stop(session, calls[a].handle));
        unsigned long long want = strcmp(algorithms[a], "ring") == 0 ? CALLS : 0;
        CHECK(read_var(&calls[a]) == want, "%s counted %llu, not %llu", names[a],
              read_var(&calls[a]), want);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int provided;
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    OK(MPI_T_pvar_session_create(&session));
    if (strcmp(mode, "rings") == 0)
        mode_path("shm_ring");
    else if (strcmp(mode, "ucx") == 0)
        mode_path("ucx_shm");
    else if (strcmp(mode, "net") == 0)
        mode_path("ucx_net");
    else if (strcmp(mode, "timer") == 0)
        mode_timer();
    else if (strcmp(mode, "coll") == 0)
        mode_coll();
    else
        CHECK(0, "unknown mode \"%s\"", mode);
    OK(MPI_T_pvar_session_free(&session));
    OK(MPI_T_finalize());
    OK(MPI_Finalize());
    if (me == 0)
        printf("tool_pvars: %s OK\n", mode);
    return 0;
}
