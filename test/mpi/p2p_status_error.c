/* p2p_status_error: the MPI_ERROR field of a status (MPI 3.2.5). A call
 * that returns one status leaves the field as it was, also when it fails;
 * a call of several completions writes it if and only if it returns
 * MPI_ERR_IN_STATUS. On 2 ranks, under MPI_ERRORS_RETURN; rank 1 sends,
 * rank 0 receives into statuses whose MPI_ERROR holds a marker:
 *  - MPI_Recv, MPI_Probe, MPI_Iprobe, MPI_Mprobe + MPI_Mrecv, MPI_Sendrecv,
 *    MPI_Wait, MPI_Test, MPI_Waitany, MPI_Request_get_status: the marker
 *    stays;
 *  - MPI_Recv of a message longer than its buffer: MPI_ERR_TRUNCATE is
 *    returned, and the marker stays;
 *  - MPI_Waitall, MPI_Testall, MPI_Waitsome on messages that fit: the
 *    markers stay;
 *  - MPI_Waitall on one message that fits and one truncated:
 *    MPI_ERR_IN_STATUS, MPI_SUCCESS in the first status, an error of class
 *    MPI_ERR_TRUNCATE in the second. */
#include "p2p_util.h"

#include <stdio.h>

#define MARK 12345
enum { TAG = 7, N = 4 };

static void mark(MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++)
        st[i].MPI_ERROR = MARK;
}

static void check_marked(const char *what, const MPI_Status *st, int n)
{
    for (int i = 0; i < n; i++)
        if (st[i].MPI_ERROR != MARK)
            p2p_die("%s: status %d's MPI_ERROR became %d", what, i, st[i].MPI_ERROR);
}

static void single_status_calls(void)
{
    int buf[N], peer = 1;
    MPI_Status st;
    MPI_Request req;
    MPI_Message msg;
    int flag = 0;

    mark(&st, 1);
    p2p_check_ok("MPI_Recv", MPI_Recv(buf, N, MPI_INT, peer, TAG, MPI_COMM_WORLD, &st));
    check_marked("MPI_Recv", &st, 1);

    mark(&st, 1);
    p2p_check_ok("MPI_Probe", MPI_Probe(peer, TAG, MPI_COMM_WORLD, &st));
    check_marked("MPI_Probe", &st, 1);
    while (!flag) {
        mark(&st, 1);
        p2p_check_ok("MPI_Iprobe", MPI_Iprobe(peer, TAG, MPI_COMM_WORLD, &flag, &st));
        check_marked("MPI_Iprobe", &st, 1);
    }
    mark(&st, 1);
    p2p_check_ok("MPI_Mprobe", MPI_Mprobe(peer, TAG, MPI_COMM_WORLD, &msg, &st));
    check_marked("MPI_Mprobe", &st, 1);
    mark(&st, 1);
    p2p_check_ok("MPI_Mrecv", MPI_Mrecv(buf, N, MPI_INT, &msg, &st));
    check_marked("MPI_Mrecv", &st, 1);

    mark(&st, 1);
    p2p_check_ok("MPI_Sendrecv", MPI_Sendrecv(buf, N, MPI_INT, peer, TAG, buf, N, MPI_INT, peer,
                                              TAG, MPI_COMM_WORLD, &st));
    check_marked("MPI_Sendrecv", &st, 1);

    p2p_check_ok("MPI_Irecv", MPI_Irecv(buf, N, MPI_INT, peer, TAG, MPI_COMM_WORLD, &req));
    mark(&st, 1);
    p2p_check_ok("MPI_Wait", MPI_Wait(&req, &st));
    check_marked("MPI_Wait", &st, 1);

    p2p_check_ok("MPI_Irecv", MPI_Irecv(buf, N, MPI_INT, peer, TAG, MPI_COMM_WORLD, &req));
    for (flag = 0; !flag;) {
        mark(&st, 1);
        p2p_check_ok("MPI_Request_get_status", MPI_Request_get_status(req, &flag, &st));
        check_marked("MPI_Request_get_status", &st, 1);
    }
    for (flag = 0; !flag;) {
        mark(&st, 1);
        p2p_check_ok("MPI_Test", MPI_Test(&req, &flag, &st));
        check_marked("MPI_Test", &st, 1);
    }

    int index;
    p2p_check_ok("MPI_Irecv", MPI_Irecv(buf, N, MPI_INT, peer, TAG, MPI_COMM_WORLD, &req));
    mark(&st, 1);
    p2p_check_ok("MPI_Waitany", MPI_Waitany(1, &req, &index, &st));
    check_marked("MPI_Waitany", &st, 1);

    mark(&st, 1);
    int rc = MPI_Recv(buf, 1, MPI_INT, peer, TAG, MPI_COMM_WORLD, &st);
    P2P_CHECK_CLASS("MPI_Recv of 4 ints into 1", rc, MPI_ERR_TRUNCATE);
    check_marked("MPI_Recv of 4 ints into 1", &st, 1);
}

static void several_completions(void)
{
    int buf[2][N], peer = 1, outcount, indices[2], flag = 0;
    MPI_Status st[2];
    MPI_Request req[2];

    for (int i = 0; i < 2; i++)
        p2p_check_ok("MPI_Irecv", MPI_Irecv(buf[i], N, MPI_INT, peer, TAG, MPI_COMM_WORLD, &req[i]));
    mark(st, 2);
    p2p_check_ok("MPI_Waitall", MPI_Waitall(2, req, st));
    check_marked("MPI_Waitall", st, 2);

    for (int i = 0; i < 2; i++)
        p2p_check_ok("MPI_Irecv", MPI_Irecv(buf[i], N, MPI_INT, peer, TAG, MPI_COMM_WORLD, &req[i]));
    while (!flag) {
        mark(st, 2);
        p2p_check_ok("MPI_Testall", MPI_Testall(2, req, &flag, st));
        check_marked("MPI_Testall", st, 2);
    }

    p2p_check_ok("MPI_Irecv", MPI_Irecv(buf[0], N, MPI_INT, peer, TAG, MPI_COMM_WORLD, &req[0]));
    mark(st, 2);
    p2p_check_ok("MPI_Waitsome", MPI_Waitsome(1, req, &outcount, indices, st));
    check_marked("MPI_Waitsome", st, 2);

    p2p_check_ok("MPI_Irecv", MPI_Irecv(buf[0], N, MPI_INT, peer, TAG, MPI_COMM_WORLD, &req[0]));
    p2p_check_ok("MPI_Irecv", MPI_Irecv(buf[1], 1, MPI_INT, peer, TAG, MPI_COMM_WORLD, &req[1]));
    mark(st, 2);
    int rc = MPI_Waitall(2, req, st);
    P2P_CHECK_CLASS("MPI_Waitall with a truncated receive", rc, MPI_ERR_IN_STATUS);
    if (st[0].MPI_ERROR != MPI_SUCCESS)
        p2p_die("MPI_Waitall: the receive that fit has MPI_ERROR %d", st[0].MPI_ERROR);
    P2P_CHECK_CLASS("MPI_Waitall: the truncated receive's MPI_ERROR", st[1].MPI_ERROR,
                    MPI_ERR_TRUNCATE);
}

int main(int argc, char **argv)
{
    int data[N] = {1, 2, 3, 4};
    p2p_init("p2p_status_error", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size != 2)
        p2p_die("needs 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (p2p_rank == 0) {
        single_status_calls();
        several_completions();
    } else {
        /* Recv, Probe/Iprobe/Mprobe+Mrecv, Sendrecv, Wait, Test, Waitany,
         * the truncated Recv; Waitall, Testall (2 each), Waitsome, the
         * Waitall with a truncation (2): 14 messages */
        for (int i = 0; i < 14; i++) {
            if (i == 2) { /* the Sendrecv's answer */
                MPI_Recv(data, N, MPI_INT, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(data, N, MPI_INT, 0, TAG, MPI_COMM_WORLD);
                continue;
            }
            MPI_Send(data, N, MPI_INT, 0, TAG, MPI_COMM_WORLD);
        }
    }
    p2p_finish();
    return 0;
}
