/* p2p_errors: argument errors of the point-to-point calls under
 * MPI_ERRORS_RETURN, each followed by a normal exchange round the ring that
 * proves nothing was lost or left behind.
 *
 * Only errors the library can detect: requests that are null or not
 * persistent where those are wrong (MPI_Start, MPI_Startall,
 * MPI_Request_free), a NULL buffer with a positive count, a negative count,
 * a tag above MPI_TAG_UB (1 << 30 is above the largest the standard ABI
 * allows ompi-lite; the attribute query may not exist yet) or negative,
 * MPI_DATATYPE_NULL, and a rank >= the communicator's size. At the end no
 * message may be left unreceived (MPI_Iprobe with both wildcards). */
#include "p2p_util.h"

#include <stdio.h>

enum { BIG_TAG = 1 << 30, EXCHANGE_TAG = 77, PENDING_TAG = 78 };

static int left, right;
static int ibuf[4];
static MPI_Request pending; /* a nonblocking receive, not persistent */

static int start_nonpersistent(void)
{
    return MPI_Start(&pending);
}

static int startall_nonpersistent(void)
{
    return MPI_Startall(1, &pending);
}

static int start_null(void)
{
    MPI_Request req = MPI_REQUEST_NULL;

    return MPI_Start(&req);
}

static int free_null(void)
{
    MPI_Request req = MPI_REQUEST_NULL;

    return MPI_Request_free(&req);
}

static int send_null_buffer(void)
{
    return MPI_Send(NULL, 4, MPI_INT, right, 1, MPI_COMM_WORLD);
}

static int isend_null_buffer(void)
{
    MPI_Request req;

    return MPI_Isend(NULL, 4, MPI_INT, right, 1, MPI_COMM_WORLD, &req);
}

static int irecv_null_buffer(void)
{
    MPI_Request req;

    return MPI_Irecv(NULL, 4, MPI_INT, left, 1, MPI_COMM_WORLD, &req);
}

static int send_negative_count(void)
{
    return MPI_Send(ibuf, -1, MPI_INT, right, 1, MPI_COMM_WORLD);
}

static int irecv_negative_count(void)
{
    MPI_Request req;

    return MPI_Irecv(ibuf, -3, MPI_INT, left, 1, MPI_COMM_WORLD, &req);
}

static int send_init_negative_count(void)
{
    MPI_Request req;

    return MPI_Send_init(ibuf, -1, MPI_INT, right, 1, MPI_COMM_WORLD, &req);
}

static int send_big_tag(void)
{
    return MPI_Send(ibuf, 1, MPI_INT, right, BIG_TAG, MPI_COMM_WORLD);
}

static int issend_big_tag(void)
{
    MPI_Request req;

    return MPI_Issend(ibuf, 1, MPI_INT, right, BIG_TAG, MPI_COMM_WORLD, &req);
}

static int irecv_big_tag(void)
{
    MPI_Request req;

    return MPI_Irecv(ibuf, 1, MPI_INT, left, BIG_TAG, MPI_COMM_WORLD, &req);
}

static int send_any_tag(void)
{
    return MPI_Send(ibuf, 1, MPI_INT, right, MPI_ANY_TAG, MPI_COMM_WORLD);
}

static int send_datatype_null(void)
{
    return MPI_Send(ibuf, 1, MPI_DATATYPE_NULL, right, 1, MPI_COMM_WORLD);
}

static int irecv_datatype_null(void)
{
    MPI_Request req;

    return MPI_Irecv(ibuf, 1, MPI_DATATYPE_NULL, left, 1, MPI_COMM_WORLD, &req);
}

static int isend_bad_rank(void)
{
    MPI_Request req;

    return MPI_Isend(ibuf, 1, MPI_INT, p2p_size, 1, MPI_COMM_WORLD, &req);
}

static int irecv_bad_rank(void)
{
    MPI_Request req;

    return MPI_Irecv(ibuf, 1, MPI_INT, p2p_size + 3, 1, MPI_COMM_WORLD, &req);
}

static int recv_init_bad_rank(void)
{
    MPI_Request req;

    return MPI_Recv_init(ibuf, 1, MPI_INT, p2p_size, 1, MPI_COMM_WORLD, &req);
}

static int iprobe_bad_rank(void)
{
    int flag;

    return MPI_Iprobe(p2p_size, 1, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

static int sendrecv_bad_rank(void)
{
    return MPI_Sendrecv(ibuf, 1, MPI_INT, right, 1, ibuf + 1, 1, MPI_INT, p2p_size, 1,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static const struct {
    const char *call;
    int (*run)(void);
    int err_class;
    const char *class_name;
} cases[] = {
#define CASE(call, fn, cls) {call, fn, cls, #cls}
    CASE("MPI_Start of a nonpersistent request", start_nonpersistent, MPI_ERR_REQUEST),
    CASE("MPI_Startall of a nonpersistent request", startall_nonpersistent, MPI_ERR_REQUEST),
    CASE("MPI_Start of MPI_REQUEST_NULL", start_null, MPI_ERR_REQUEST),
    CASE("MPI_Request_free of MPI_REQUEST_NULL", free_null, MPI_ERR_REQUEST),
    CASE("MPI_Send of 4 ints from NULL", send_null_buffer, MPI_ERR_BUFFER),
    CASE("MPI_Isend of 4 ints from NULL", isend_null_buffer, MPI_ERR_BUFFER),
    CASE("MPI_Irecv of 4 ints into NULL", irecv_null_buffer, MPI_ERR_BUFFER),
    CASE("MPI_Send of count -1", send_negative_count, MPI_ERR_COUNT),
    CASE("MPI_Irecv of count -3", irecv_negative_count, MPI_ERR_COUNT),
    CASE("MPI_Send_init of count -1", send_init_negative_count, MPI_ERR_COUNT),
    CASE("MPI_Send with tag 1 << 30", send_big_tag, MPI_ERR_TAG),
    CASE("MPI_Issend with tag 1 << 30", issend_big_tag, MPI_ERR_TAG),
    CASE("MPI_Irecv with tag 1 << 30", irecv_big_tag, MPI_ERR_TAG),
    CASE("MPI_Send with tag MPI_ANY_TAG", send_any_tag, MPI_ERR_TAG),
    CASE("MPI_Send of MPI_DATATYPE_NULL", send_datatype_null, MPI_ERR_TYPE),
    CASE("MPI_Irecv of MPI_DATATYPE_NULL", irecv_datatype_null, MPI_ERR_TYPE),
    CASE("MPI_Isend to rank size", isend_bad_rank, MPI_ERR_RANK),
    CASE("MPI_Irecv from rank size+3", irecv_bad_rank, MPI_ERR_RANK),
    CASE("MPI_Recv_init from rank size", recv_init_bad_rank, MPI_ERR_RANK),
    CASE("MPI_Iprobe of rank size", iprobe_bad_rank, MPI_ERR_RANK),
    CASE("MPI_Sendrecv from rank size", sendrecv_bad_rank, MPI_ERR_RANK),
#undef CASE
};

/* One int each way round the ring, tagged with the case number. */
static void exchange(const char *after, int round)
{
    int out = round * 1000 + p2p_rank, in = -1;
    char what[128];
    MPI_Status st;

    snprintf(what, sizeof what, "the exchange after %s", after);
    p2p_check_ok(what, MPI_Sendrecv(&out, 1, MPI_INT, right, EXCHANGE_TAG, &in, 1, MPI_INT,
                                    left, EXCHANGE_TAG, MPI_COMM_WORLD, &st));
    p2p_check_status(what, &st, left, EXCHANGE_TAG, MPI_INT, 1);
    if (in != round * 1000 + left)
        p2p_die("%s: got %d, expected %d", what, in, round * 1000 + left);
}

/* The receive that MPI_Start was wrongly given still works. */
static void complete_pending(void)
{
    int out = 4242 + p2p_rank;
    MPI_Status st;

    MPI_Send(&out, 1, MPI_INT, right, PENDING_TAG, MPI_COMM_WORLD);
    p2p_check_ok("MPI_Wait of the receive given to MPI_Start", MPI_Wait(&pending, &st));
    p2p_check_status("the receive given to MPI_Start", &st, left, PENDING_TAG, MPI_INT, 1);
    if (ibuf[3] != 4242 + left)
        p2p_die("the receive given to MPI_Start got %d, expected %d", ibuf[3], 4242 + left);
}

int main(int argc, char **argv)
{
    int flag;

    p2p_init("p2p_errors", &argc, &argv, MPI_THREAD_SINGLE);
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    MPI_Irecv(&ibuf[3], 1, MPI_INT, left, PENDING_TAG, MPI_COMM_WORLD, &pending);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        p2p_check_class(cases[i].call, cases[i].run(), cases[i].err_class, cases[i].class_name);
        exchange(cases[i].call, (int)i);
    }
    complete_pending();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag)
        p2p_die("a message is left over after the failed calls");
    p2p_finish();
    return 0;
}
