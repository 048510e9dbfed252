/* session_buffer: buffers for buffered sends attached to a session
 * (MPI-4.1 3.6.1). Usage: session_buffer MODE. Modes:
 *   use     a communicator from mpi://WORLD of a session (and one duplicated
 *           and one split from it) sends round a ring with MPI_Bsend,
 *           MPI_Ibsend and MPI_Bsend_init through the session's buffer,
 *           messages of 0, 1, 1000 and 200000 doubles, data checked; the
 *           communicator's own buffer comes first (a too small one makes
 *           MPI_Bsend fail while the session's is large); detach gives back
 *           the address and size (int and _c forms) and waits for the
 *           messages, so the buffer may be overwritten at once;
 *           MPI_BUFFER_AUTOMATIC; flush and iflush
 *   world   MPI_Init beside a session: MPI_COMM_WORLD does not use the
 *           session's buffer (MPI_ERR_BUFFER), the session's communicator
 *           falls back on the process's buffer once the session's is gone;
 *           a finalized session (MPI_ERR_SESSION)
 *   errors  MPI_ERRORS_RETURN: MPI_Bsend with no buffer anywhere
 *           (MPI_ERR_BUFFER), a second attach (MPI_ERR_BUFFER), a negative
 *           size (MPI_ERR_ARG), detach with nothing attached (NULL, 0),
 *           finalize with a buffer still attached
 *   fatal   MPI_Bsend with no buffer under MPI_ERRORS_ARE_FATAL: the job
 *           ends, saying why
 * Prints "session_buffer: MODE OK" at rank 0. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me = -1, np;

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "session_buffer: rank %d: ", me);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) \
            die(__VA_ARGS__); \
    } while (0)

#define OK(call) \
    do { \
        int rc_ = (call); \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); \
    } while (0)

static void expect_class(int err, int want, const char *what)
{
    int cls = err;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    CHECK(cls == want, "%s: returned %d (class %d), expected class %d", what, err, cls, want);
}

static const int counts[] = {0, 1, 1000, 200000};
#define NCOUNTS ((int)(sizeof(counts) / sizeof(counts[0])))

/* The bytes a buffer needs for one of each message, three times over
 * (three send forms in flight at once at most). */
static int buffer_bytes(void)
{
    int total = 0;
    for (int i = 0; i < NCOUNTS; i++) {
        int packed;
        MPI_Pack_size(counts[i], MPI_DOUBLE, MPI_COMM_SELF, &packed);
        total += packed + MPI_BSEND_OVERHEAD;
    }
    return 3 * total;
}

static double value(int sender, int form, int i)
{
    return sender * 1e6 + form * 1e5 + i;
}

static MPI_Comm session_comm(MPI_Session s, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    OK(MPI_Group_free(&g));
    return c;
}

/* Every rank sends to its right, with the three buffered forms, each
 * message size, and receives from its left: the sends complete before the
 * receives are posted, so the data must be in the attached buffer. */
static void ring(MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int c = 0; c < NCOUNTS; c++) {
        int n = counts[c];
        double *out = malloc(sizeof(double) * (size_t)(n + 1));
        double *in = malloc(sizeof(double) * (size_t)(n + 1));
        for (int form = 0; form < 3; form++) {
            for (int i = 0; i < n; i++)
                out[i] = value(rank, form, i);
            MPI_Request req;
            if (form == 0) {
                OK(MPI_Bsend(out, n, MPI_DOUBLE, right, form, comm));
            } else if (form == 1) {
                OK(MPI_Ibsend(out, n, MPI_DOUBLE, right, form, comm, &req));
                OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            } else {
                OK(MPI_Bsend_init(out, n, MPI_DOUBLE, right, form, comm, &req));
                OK(MPI_Start(&req));
                OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
                OK(MPI_Request_free(&req));
            }
            /* The copy was taken: the user's buffer is free again. */
            memset(out, 0, sizeof(double) * (size_t)n);
        }
        for (int form = 0; form < 3; form++) {
            MPI_Status st;
            int got;
            OK(MPI_Recv(in, n, MPI_DOUBLE, left, form, comm, &st));
            MPI_Get_count(&st, MPI_DOUBLE, &got);
            CHECK(got == n, "form %d: received %d doubles, sent %d", form, got, n);
            for (int i = 0; i < n; i++)
                CHECK(in[i] == value(left, form, i), "form %d count %d: element %d is %g, not %g",
                      form, n, i, in[i], value(left, form, i));
        }
        free(out);
        free(in);
    }
}

/* The communicator's own buffer comes before the session's: one too small
 * for a message makes MPI_Bsend fail on it. */
static void own_buffer_first(MPI_Comm comm)
{
    static char tiny[MPI_BSEND_OVERHEAD + 8];
    double payload[64] = {0};
    OK(MPI_Comm_attach_buffer(comm, tiny, (int)sizeof(tiny)));
    int rank;
    MPI_Comm_rank(comm, &rank);
    expect_class(MPI_Bsend(payload, 64, MPI_DOUBLE, rank, 0, comm), MPI_ERR_BUFFER,
                 "MPI_Bsend through a communicator buffer too small");
    void *addr;
    int size;
    OK(MPI_Comm_detach_buffer(comm, &addr, &size));
    CHECK(addr == tiny && size == (int)sizeof(tiny), "communicator detach gave %p %d", addr, size);
}

/* A large message sent by address: detach must wait until the receiver
 * has it, so overwriting the buffer right after cannot change what
 * arrives. */
static void detach_waits(MPI_Session s, MPI_Comm comm, void *buffer, int bytes)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int n = counts[NCOUNTS - 1];
    double *out = malloc(sizeof(double) * (size_t)n), *in = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++)
        out[i] = value(rank, 7, i);
    MPI_Request rreq;
    OK(MPI_Bsend(out, n, MPI_DOUBLE, (rank + 1) % size, 7, comm));
    OK(MPI_Irecv(in, n, MPI_DOUBLE, (rank + size - 1) % size, 7, comm, &rreq));
    void *addr;
    MPI_Count got_size;
    OK(MPI_Session_detach_buffer_c(s, &addr, &got_size));
    CHECK(addr == buffer && got_size == bytes, "session detach gave %p %lld, attached %p %d", addr,
          (long long)got_size, buffer, bytes);
    memset(buffer, 0xee, (size_t)bytes);
    OK(MPI_Wait(&rreq, MPI_STATUS_IGNORE));
    int left = (rank + size - 1) % size;
    for (int i = 0; i < n; i++)
        CHECK(in[i] == value(left, 7, i), "after detach: element %d is %g, not %g", i, in[i],
              value(left, 7, i));
    free(out);
    free(in);
}

static void mode_use(void)
{
    MPI_Session s;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Comm comm = session_comm(s, "session_buffer.use");
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    MPI_Comm dup, half;
    OK(MPI_Comm_dup(comm, &dup));
    OK(MPI_Comm_split(comm, me % 2, -me, &half));

    int bytes = buffer_bytes();
    char *buffer = malloc((size_t)bytes);
    OK(MPI_Session_attach_buffer(s, buffer, bytes));
    /* The buffer holds one ring's messages: a rank whose neighbour is slow
     * to receive may still hold them when the next ring starts. */
    ring(comm);
    OK(MPI_Session_flush_buffer(s));
    ring(dup);
    OK(MPI_Session_flush_buffer(s));
    ring(half);
    own_buffer_first(dup);
    OK(MPI_Session_flush_buffer(s));
    MPI_Request flushed;
    OK(MPI_Session_iflush_buffer(s, &flushed));
    OK(MPI_Wait(&flushed, MPI_STATUS_IGNORE));
    void *addr;
    int size;
    OK(MPI_Session_detach_buffer(s, &addr, &size));
    CHECK(addr == buffer && size == bytes, "detach gave %p %d, attached %p %d", addr, size,
          (void *)buffer, bytes);

    /* The _c forms, and a detach that must wait for a message. */
    OK(MPI_Session_attach_buffer_c(s, buffer, (MPI_Count)bytes));
    detach_waits(s, comm, buffer, bytes);

    /* The library's own memory, message by message. */
    OK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0));
    ring(half);
    OK(MPI_Session_detach_buffer(s, &addr, &size));
    CHECK(addr == MPI_BUFFER_AUTOMATIC, "detach of MPI_BUFFER_AUTOMATIC gave %p", addr);

    OK(MPI_Comm_free(&half));
    OK(MPI_Comm_free(&dup));
    OK(MPI_Comm_free(&comm));
    OK(MPI_Session_finalize(&s));
    free(buffer);
}

/* A buffer under the world model and one under a session, side by side. */
static void mode_world(void)
{
    OK(MPI_Init(NULL, NULL));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Session s;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Comm comm = session_comm(s, "session_buffer.world");
    int bytes = buffer_bytes();
    char *session_buffer = malloc((size_t)bytes), *process_buffer = malloc((size_t)bytes);
    OK(MPI_Session_attach_buffer(s, session_buffer, bytes));
    double x = 1;
    expect_class(MPI_Bsend(&x, 1, MPI_DOUBLE, me, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "MPI_Bsend on MPI_COMM_WORLD with only a session buffer");
    ring(comm);
    OK(MPI_Buffer_attach(process_buffer, bytes));
    ring(MPI_COMM_WORLD);
    void *addr;
    int size;
    OK(MPI_Session_detach_buffer(s, &addr, &size));
    CHECK(addr == session_buffer, "session detach gave %p", addr);
    ring(comm); /* now through the process's buffer */
    OK(MPI_Buffer_detach(&addr, &size));
    CHECK(addr == process_buffer && size == bytes, "process detach gave %p %d", addr, size);
    expect_class(MPI_Bsend(&x, 1, MPI_DOUBLE, 0, 0, comm), MPI_ERR_BUFFER,
                 "MPI_Bsend on the session's communicator with no buffer left");
    OK(MPI_Comm_free(&comm));
    MPI_Session gone = s;
    OK(MPI_Session_finalize(&s));
    /* Errors with no live session go to MPI_COMM_SELF's handler. */
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    expect_class(MPI_Session_attach_buffer(gone, session_buffer, bytes), MPI_ERR_SESSION,
                 "MPI_Session_attach_buffer on a finalized session");
    OK(MPI_Finalize());
    free(session_buffer);
    free(process_buffer);
}

static void mode_errors(void)
{
    MPI_Session s;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Comm comm = session_comm(s, "session_buffer.errors");
    MPI_Comm_rank(comm, &me);
    double x = 1;
    expect_class(MPI_Bsend(&x, 1, MPI_DOUBLE, me, 0, comm), MPI_ERR_BUFFER,
                 "MPI_Bsend with no buffer attached anywhere");
    void *addr = &x;
    int size = 5;
    OK(MPI_Session_detach_buffer(s, &addr, &size));
    CHECK(addr == NULL && size == 0, "detach with nothing attached gave %p %d", addr, size);
    static char buffer[4096];
    expect_class(MPI_Session_attach_buffer(s, buffer, -1), MPI_ERR_ARG,
                 "MPI_Session_attach_buffer with a negative size");
    OK(MPI_Session_attach_buffer(s, buffer, (int)sizeof(buffer)));
    expect_class(MPI_Session_attach_buffer(s, buffer, (int)sizeof(buffer)), MPI_ERR_BUFFER,
                 "a second MPI_Session_attach_buffer");
    OK(MPI_Comm_free(&comm));
    OK(MPI_Session_finalize(&s)); /* with the buffer still attached */
}

static void mode_fatal(void)
{
    MPI_Session s;
    OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s));
    MPI_Group g;
    MPI_Comm comm;
    OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
    OK(MPI_Comm_create_from_group(g, "session_buffer.fatal", MPI_INFO_NULL,
                                  MPI_ERRORS_ARE_FATAL, &comm));
    MPI_Comm_rank(comm, &me);
    double x = 1;
    MPI_Bsend(&x, 1, MPI_DOUBLE, me, 0, comm);
    die("MPI_Bsend without a buffer returned under MPI_ERRORS_ARE_FATAL");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "use") == 0)
        mode_use();
    else if (strcmp(mode, "world") == 0)
        mode_world();
    else if (strcmp(mode, "errors") == 0)
        mode_errors();
    else if (strcmp(mode, "fatal") == 0)
        mode_fatal();
    else
        die("unknown mode \"%s\"", mode);
    if (me == 0)
        printf("session_buffer: %s OK\n", mode);
    return 0;
}
