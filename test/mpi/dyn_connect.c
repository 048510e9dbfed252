/* MPI_Open_port, MPI_Comm_accept/connect, MPI_Publish_name/Lookup_name,
 * MPI_Comm_join and MPI_Comm_disconnect (dyn_connect.sh).
 *
 *   dyn_connect split SERVICE       one job: the lower half of the ranks
 *                                   accepts, the upper half connects
 *   dyn_connect server SERVICE      two jobs meet through the published
 *   dyn_connect client SERVICE      name SERVICE (started by two mpiruns)
 *   dyn_connect join-server FILE    two jobs' rank 0 meet over a socket
 *   dyn_connect join-client FILE    (MPI_Comm_join): the server writes its
 *                                   TCP port to FILE
 *   dyn_connect errors              the error classes
 *
 * Over every intercommunicator made: each process sends its rank to every
 * remote process and checks what arrives; an allreduce across the groups
 * (sum of the remote group's ranks); a merge (the accepting group first)
 * and a broadcast over it; then MPI_Comm_disconnect. */
#include "dyn_util.h"

#include <mpi.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

const char test_name[] = "dyn_connect";
int world_rank;
static int world_size;

/* The traffic every new intercommunicator must carry. first: this side
 * goes first in the merge. */
static void exercise(MPI_Comm inter, int first)
{
    int rank, size, remote_size, flag;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &remote_size);
    MPI_Comm_test_inter(inter, &flag);
    if (!flag)
        fail("MPI_Comm_test_inter", flag, 1);
    for (int r = 0; r < remote_size; r++)
        check_rc(MPI_Send(&rank, 1, MPI_INT, r, 7, inter), "MPI_Send");
    for (int r = 0; r < remote_size; r++) {
        int got = -1;
        MPI_Status status;
        check_rc(MPI_Recv(&got, 1, MPI_INT, r, 7, inter, &status), "MPI_Recv");
        if (got != r || status.MPI_SOURCE != r)
            fail("rank sent by a remote process", got, r);
    }
    int sum = 0, want = remote_size * (remote_size - 1) / 2;
    check_rc(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, inter), "MPI_Allreduce");
    if (sum != want)
        fail("allreduce over the intercommunicator", sum, want);
    MPI_Comm merged;
    check_rc(MPI_Intercomm_merge(inter, !first, &merged), "MPI_Intercomm_merge");
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    if (msize != size + remote_size)
        fail("size of the merged communicator", msize, size + remote_size);
    if (mrank != (first ? rank : remote_size + rank))
        fail("rank in the merged communicator", mrank, first ? rank : remote_size + rank);
    int word = mrank == msize - 1 ? 4242 : 0;
    check_rc(MPI_Bcast(&word, 1, MPI_INT, msize - 1, merged), "MPI_Bcast");
    if (word != 4242)
        fail("broadcast over the merged communicator", word, 4242);
    int big[4096];
    for (int i = 0; i < 4096; i++)
        big[i] = mrank == 0 ? i : -1;
    check_rc(MPI_Bcast(big, 4096, MPI_INT, 0, merged), "MPI_Bcast");
    for (int i = 0; i < 4096; i++)
        if (big[i] != i)
            fail("16 KiB broadcast element", big[i], i);
    MPI_Comm_free(&merged);
    check_rc(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
    if (inter != MPI_COMM_NULL)
        fail("handle after MPI_Comm_disconnect is MPI_COMM_NULL", 0, 1);
}

/* A stranger who knows the port's TCP port but not its secret (the name
 * is ompi-lite-port:TCPPORT:SECRET:ADDRESSES): connects, says hello with
 * a wrong secret, leaves. The accepting root must drop it unread and go on
 * waiting for the real connection. */
static void stranger_knocks(const char *port)
{
    int tcp_port = 0;
    if (sscanf(port, "ompi-lite-port:%d:", &tcp_port) != 1)
        fail("the port name has its TCP port where ompi-lite puts it", 0, 1);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)tcp_port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
        fail("a stranger reaches the port's TCP port", 0, 1);
    char hello[41];
    snprintf(hello, sizeof(hello), "OLPORT1:%032d", 7);
    if (write(fd, hello, 40) != 40)
        fail("the stranger's hello is written", 0, 1);
    close(fd);
}

static void split(const char *service)
{
    int upper = world_rank >= world_size / 2;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, upper, world_rank, &half);
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    if (!upper) {
        if (world_rank == 0) {
            check_rc(MPI_Open_port(MPI_INFO_NULL, port), "MPI_Open_port");
            check_rc(MPI_Publish_name(service, MPI_INFO_NULL, port), "MPI_Publish_name");
        }
        MPI_Barrier(MPI_COMM_WORLD); /* published before anyone looks */
        check_rc(MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter), "MPI_Comm_accept");
        if (world_rank == 0) {
            check_rc(MPI_Unpublish_name(service, MPI_INFO_NULL, port), "MPI_Unpublish_name");
            check_rc(MPI_Close_port(port), "MPI_Close_port");
        }
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        int root = world_size / 2 == world_size - 1 ? 0 : 1; /* not always rank 0 of the half */
        int hrank;
        MPI_Comm_rank(half, &hrank);
        if (hrank == root) {
            check_rc(MPI_Lookup_name(service, MPI_INFO_NULL, port), "MPI_Lookup_name");
            stranger_knocks(port);
        }
        check_rc(MPI_Comm_connect(port, MPI_INFO_NULL, root, half, &inter), "MPI_Comm_connect");
    }
    exercise(inter, !upper);
    MPI_Comm_free(&half);
}

static void server(const char *service)
{
    char port[MPI_MAX_PORT_NAME] = "";
    if (world_rank == 0) {
        check_rc(MPI_Open_port(MPI_INFO_NULL, port), "MPI_Open_port");
        check_rc(MPI_Publish_name(service, MPI_INFO_NULL, port), "MPI_Publish_name");
    }
    MPI_Comm inter;
    check_rc(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), "MPI_Comm_accept");
    if (world_rank == 0) {
        check_rc(MPI_Unpublish_name(service, MPI_INFO_NULL, port), "MPI_Unpublish_name");
        check_rc(MPI_Close_port(port), "MPI_Close_port");
    }
    exercise(inter, 1);
}

static void client(const char *service)
{
    char port[MPI_MAX_PORT_NAME] = "";
    if (world_rank == 0) {
        /* The server may not have published yet: look for 30 s. The
         * errors of calls without an object go to MPI_COMM_SELF's handler. */
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        int rc = MPI_ERR_NAME;
        for (int tries = 0; tries < 300 && rc != MPI_SUCCESS; tries++) {
            rc = MPI_Lookup_name(service, MPI_INFO_NULL, port);
            if (rc != MPI_SUCCESS)
                usleep(100000);
        }
        check_rc(rc, "MPI_Lookup_name (30 s)");
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Comm inter;
    check_rc(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter),
             "MPI_Comm_connect");
    exercise(inter, 0);
}

/* ---- MPI_Comm_join: only rank 0 of each job joins; the others wait. ---- */

static void join_over(int fd, int first)
{
    MPI_Comm inter;
    check_rc(MPI_Comm_join(fd, &inter), "MPI_Comm_join");
    int remote_size;
    MPI_Comm_remote_size(inter, &remote_size);
    if (remote_size != 1)
        fail("remote size after MPI_Comm_join", remote_size, 1);
    exercise(inter, first);
    close(fd);
}

static void join_server(const char *file)
{
    if (world_rank == 0) {
        int listener = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t len = sizeof(a);
        if (bind(listener, (struct sockaddr *)&a, sizeof(a)) || listen(listener, 1) ||
            getsockname(listener, (struct sockaddr *)&a, &len))
            fail("listening socket", -1, 0);
        char tmp[4096];
        snprintf(tmp, sizeof(tmp), "%s.tmp", file);
        FILE *f = fopen(tmp, "w");
        fprintf(f, "%d\n", ntohs(a.sin_port));
        fclose(f);
        rename(tmp, file);
        int fd = accept(listener, NULL, NULL);
        close(listener);
        join_over(fd, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void join_client(const char *file)
{
    if (world_rank == 0) {
        int port = 0;
        for (int tries = 0; tries < 300 && port == 0; tries++) {
            FILE *f = fopen(file, "r");
            if (!f || fscanf(f, "%d", &port) != 1)
                usleep(100000);
            if (f)
                fclose(f);
        }
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (port == 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
            fail("connecting to the join server", port, 1);
        join_over(fd, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- errors ---- */

static void expect_class(int rc, int want, const char *call)
{
    int class = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &class);
    if (class != want) {
        fprintf(stderr, "dyn_connect rank %d: %s: error class %d, expected %d\n", world_rank,
                call, class, want);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char port[MPI_MAX_PORT_NAME], other[MPI_MAX_PORT_NAME];
    MPI_Comm inter = MPI_COMM_NULL;
    check_rc(MPI_Open_port(MPI_INFO_NULL, port), "MPI_Open_port");
    check_rc(MPI_Close_port(port), "MPI_Close_port");
    expect_class(MPI_Close_port(port), MPI_ERR_PORT, "MPI_Close_port of a closed port");
    expect_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT,
                 "MPI_Comm_connect to a closed port");
    expect_class(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter), MPI_ERR_PORT,
                 "MPI_Comm_accept on a closed port");
    expect_class(MPI_Comm_connect("no such port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter),
                 MPI_ERR_PORT, "MPI_Comm_connect to a malformed port name");
    /* The root's failure reaches every rank of the group. */
    expect_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), MPI_ERR_PORT,
                 "MPI_Comm_connect of the world to a closed port");
    if (inter != MPI_COMM_NULL)
        fail("newcomm after a failed connect is MPI_COMM_NULL", 0, 1);
    char service[64];
    snprintf(service, sizeof(service), "ol-none-%d-%d", (int)getpid(), world_rank);
    expect_class(MPI_Lookup_name(service, MPI_INFO_NULL, other), MPI_ERR_NAME,
                 "MPI_Lookup_name of an unpublished name");
    expect_class(MPI_Unpublish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE,
                 "MPI_Unpublish_name of an unpublished name");
    check_rc(MPI_Open_port(MPI_INFO_NULL, port), "MPI_Open_port");
    check_rc(MPI_Publish_name(service, MPI_INFO_NULL, port), "MPI_Publish_name");
    expect_class(MPI_Publish_name(service, MPI_INFO_NULL, port), MPI_ERR_SERVICE,
                 "MPI_Publish_name of a published name");
    check_rc(MPI_Lookup_name(service, MPI_INFO_NULL, other), "MPI_Lookup_name");
    if (strcmp(other, port) != 0)
        fail("port found by MPI_Lookup_name is the one published", 0, 1);
    expect_class(MPI_Unpublish_name(service, MPI_INFO_NULL, "another port"), MPI_ERR_SERVICE,
                 "MPI_Unpublish_name with another port");
    check_rc(MPI_Unpublish_name(service, MPI_INFO_NULL, port), "MPI_Unpublish_name");
    check_rc(MPI_Close_port(port), "MPI_Close_port");
    expect_class(MPI_Comm_join(-1, &inter), MPI_ERR_ARG, "MPI_Comm_join of fd -1");
    MPI_Comm dup = MPI_COMM_WORLD;
    expect_class(MPI_Comm_disconnect(&dup), MPI_ERR_COMM, "MPI_Comm_disconnect(MPI_COMM_WORLD)");
    MPI_Comm parent;
    check_rc(MPI_Comm_get_parent(&parent), "MPI_Comm_get_parent");
    if (parent != MPI_COMM_NULL)
        fail("MPI_Comm_get_parent of a job nobody spawned is MPI_COMM_NULL", 0, 1);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const char *mode = argc > 1 ? argv[1] : "";
    const char *arg = argc > 2 ? argv[2] : "";
    if (strcmp(mode, "split") == 0)
        split(arg);
    else if (strcmp(mode, "server") == 0)
        server(arg);
    else if (strcmp(mode, "client") == 0)
        client(arg);
    else if (strcmp(mode, "join-server") == 0)
        join_server(arg);
    else if (strcmp(mode, "join-client") == 0)
        join_client(arg);
    else if (strcmp(mode, "errors") == 0)
        errors();
    else
        fail("known mode", 0, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("dyn_connect %s: OK\n", mode);
    MPI_Finalize();
    return 0;
}
