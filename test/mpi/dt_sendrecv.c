/* dt_sendrecv: derived datatypes between ranks 0 and 1 with MPI_Send and
 * MPI_Recv: a vector of doubles, a struct with holes, a subarray, and an
 * indexed type received as a differently shaped type of the same signature.
 * Every byte of the receive buffer is checked: the data where the type has
 * it, the untouched fill pattern in the holes. Ranks other than 0 and 1
 * only take part in the final barrier-free finalize. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define FILL 0xa5
#define BUF_BYTES 4096

static int failures;

/* The bytes a receive of count elements of t into a FILL-ed buffer must
 * leave: what unpacking the packed stream of the sent data gives. */
static void expected_receive(const void *sent, int send_count, MPI_Datatype send_type,
                             unsigned char *expected, int recv_count, MPI_Datatype recv_type)
{
    static unsigned char packed[BUF_BYTES];
    int position = 0;
    MPI_Pack(sent, send_count, send_type, packed, sizeof(packed), &position, MPI_COMM_SELF);
    memset(expected, FILL, BUF_BYTES);
    position = 0;
    MPI_Unpack(packed, sizeof(packed), &position, expected, recv_count, recv_type, MPI_COMM_SELF);
}

static void exchange(int rank, const char *what, MPI_Datatype send_type, int send_count,
                     MPI_Datatype recv_type, int recv_count, int tag)
{
    static unsigned char send_buf[BUF_BYTES], recv_buf[BUF_BYTES], expected[BUF_BYTES];
    for (int i = 0; i < BUF_BYTES; i++)
        send_buf[i] = (unsigned char)(i * 7 + 3);
    MPI_Type_commit(&send_type);
    MPI_Type_commit(&recv_type);
    if (rank == 0) {
        MPI_Send(send_buf, send_count, send_type, 1, tag, MPI_COMM_WORLD);
    } else if (rank == 1) {
        memset(recv_buf, FILL, sizeof(recv_buf));
        MPI_Status status;
        int err = MPI_Recv(recv_buf, recv_count, recv_type, 0, tag, MPI_COMM_WORLD, &status);
        expected_receive(send_buf, send_count, send_type, expected, recv_count, recv_type);
        if (err != MPI_SUCCESS || memcmp(recv_buf, expected, BUF_BYTES) != 0) {
            for (int i = 0; i < BUF_BYTES; i++)
                if (recv_buf[i] != expected[i]) {
                    fprintf(stderr, "dt_sendrecv: %s: byte %d is 0x%02x, expected 0x%02x\n",
                            what, i, recv_buf[i], expected[i]);
                    break;
                }
            failures++;
        }
    }
    MPI_Type_free(&recv_type);
    MPI_Type_free(&send_type);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            printf("dt_sendrecv: needs 2 ranks, skipped\n");
        MPI_Finalize();
        return 77;
    }
    MPI_Datatype a, b;

    /* every third double, 40 of them */
    MPI_Type_vector(40, 1, 3, MPI_DOUBLE, &a);
    MPI_Type_dup(a, &b);
    exchange(rank, "vector of doubles", a, 2, b, 2, 1);

    /* {char at 0, double at 8, 3 shorts at 20}: holes at 1-7 and 16-19 */
    MPI_Type_create_struct(3, (int[]){1, 1, 3}, (MPI_Aint[]){0, 8, 20},
                           (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE, MPI_SHORT}, &a);
    MPI_Type_dup(a, &b);
    exchange(rank, "struct with holes", a, 5, b, 5, 2);

    /* a 5 x 4 x 3 block in the middle of a 8 x 8 x 8 float array */
    MPI_Type_create_subarray(3, (int[]){8, 8, 8}, (int[]){5, 4, 3}, (int[]){1, 2, 3}, MPI_ORDER_C,
                             MPI_FLOAT, &a);
    MPI_Type_dup(a, &b);
    exchange(rank, "subarray", a, 1, b, 1, 3);

    /* 12 ints as indexed blocks {3, 1, 4, 4} sent, received as every other int */
    MPI_Type_indexed(4, (int[]){3, 1, 4, 4}, (int[]){20, 0, 9, 2}, MPI_INT, &a);
    MPI_Type_vector(12, 1, 2, MPI_INT, &b);
    exchange(rank, "indexed into vector", a, 3, b, 3, 4);

    if (rank == 1)
        printf("dt_sendrecv: %s\n", failures ? "FAILED" : "OK");
    MPI_Finalize();
    return failures ? 1 : 0;
}
