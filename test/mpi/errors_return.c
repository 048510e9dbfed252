/* errors_return: with MPI_ERRORS_RETURN set, calls with a bad argument return
 * an error code of the right class, and MPI_Error_string describes it; the
 * job then carries on: neighbouring ranks exchange a message and every rank
 * finalizes normally.
 *
 * The bad calls would complete or block if the argument went unchecked; the
 * harness's timeout catches a call that blocks. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int rank, size;
static int ibuf[4];

static void die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "errors_return: rank %d of %d: ", rank, size);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int send_to_bad_rank(void)
{
    return MPI_Send(ibuf, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
}

static int send_negative_count(void)
{
    return MPI_Send(ibuf, -1, MPI_INT, rank, 0, MPI_COMM_WORLD);
}

static int send_negative_tag(void)
{
    return MPI_Send(ibuf, 1, MPI_INT, rank, -5, MPI_COMM_WORLD);
}

static int send_on_comm_null(void)
{
    return MPI_Send(ibuf, 1, MPI_INT, rank, 0, MPI_COMM_NULL);
}

static int recv_into_null(void)
{
    return MPI_Recv(NULL, 4, MPI_INT, rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static int recv_from_bad_rank(void)
{
    return MPI_Recv(ibuf, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static int recv_negative_tag(void)
{
    return MPI_Recv(ibuf, 1, MPI_INT, rank, -5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static const struct {
    const char *call;
    int (*run)(void);
    int err_class;
    const char *class_name;
} cases[] = {
    {"MPI_Send to rank size+5", send_to_bad_rank, MPI_ERR_RANK, "MPI_ERR_RANK"},
    {"MPI_Send of count -1", send_negative_count, MPI_ERR_COUNT, "MPI_ERR_COUNT"},
    {"MPI_Send with tag -5", send_negative_tag, MPI_ERR_TAG, "MPI_ERR_TAG"},
    {"MPI_Send on MPI_COMM_NULL", send_on_comm_null, MPI_ERR_COMM, "MPI_ERR_COMM"},
    {"MPI_Recv of 4 ints into NULL", recv_into_null, MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
    {"MPI_Recv from rank size+5", recv_from_bad_rank, MPI_ERR_RANK, "MPI_ERR_RANK"},
    {"MPI_Recv with tag -5", recv_negative_tag, MPI_ERR_TAG, "MPI_ERR_TAG"},
};

/* Runs one bad call; rank 0 prints what the library said about it. */
static void check_case(size_t i)
{
    char text[MPI_MAX_ERROR_STRING];
    int err, err_class, len = -1;

    err = cases[i].run();
    if (err == MPI_SUCCESS)
        die("%s succeeded, expected %s", cases[i].call, cases[i].class_name);
    MPI_Error_class(err, &err_class);
    if (err_class != cases[i].err_class)
        die("%s: error class %d, expected %s (%d)", cases[i].call, err_class,
            cases[i].class_name, cases[i].err_class);
    text[0] = '\0';
    MPI_Error_string(err, text, &len);
    if (len <= 0 || len >= MPI_MAX_ERROR_STRING || (size_t)len != strlen(text))
        die("%s: MPI_Error_string gave length %d for \"%s\"", cases[i].call, len, text);
    if (rank == 0)
        printf("errors_return: %s: %s: %s\n", cases[i].call, cases[i].class_name, text);
}

/* Pairs of ranks (0, 1), (2, 3) ... swap a message; a last odd rank has no
 * partner. */
static void exchange(void)
{
    int partner = rank ^ 1, out = 1000 + rank, in = -1;
    MPI_Status st;

    if (partner >= size)
        return;
    if (rank < partner)
        MPI_Send(&out, 1, MPI_INT, partner, 9, MPI_COMM_WORLD);
    MPI_Recv(&in, 1, MPI_INT, partner, 9, MPI_COMM_WORLD, &st);
    if (rank > partner)
        MPI_Send(&out, 1, MPI_INT, partner, 9, MPI_COMM_WORLD);
    if (in != 1000 + partner || st.MPI_SOURCE != partner || st.MPI_TAG != 9)
        die("after the errors, received %d from %d tag %d, expected %d from %d tag 9", in,
            st.MPI_SOURCE, st.MPI_TAG, 1000 + partner, partner);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* An error on MPI_COMM_NULL has no communicator of its own: MPI-4 raises
     * it on MPI_COMM_SELF, older libraries on MPI_COMM_WORLD. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(i);
    exchange();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("errors_return: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
