/* p2p_large: one message of more than 2^31 bytes with the large-count
 * calls. Rank 0 sends NBYTES MPI_BYTEs with MPI_Send_c to rank 1, which
 * receives them with MPI_Recv_c; MPI_Get_count_c must give NBYTES exactly
 * and MPI_Get_count (int) MPI_UNDEFINED.
 *
 * Filling and checking 2 GiB byte by byte would take most of the run, so
 * every 4 KiB page is one byte value plus its page number in the first 8
 * bytes: the receiver checks every page's number and middle byte, and every
 * byte of the pages around the 2^31 boundary and at both ends. */
#include "p2p_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE 4096
#define NBYTES (((MPI_Count)1 << 31) + PAGE)
#define NPAGES ((size_t)(NBYTES / PAGE))

static unsigned char page_byte(size_t p)
{
    return (unsigned char)(p * 131 + 7);
}

static void fill(unsigned char *buf)
{
    for (size_t p = 0; p < NPAGES; p++) {
        uint64_t id = p;

        memset(buf + p * PAGE, page_byte(p), PAGE);
        memcpy(buf + p * PAGE, &id, sizeof id);
    }
}

static void check_page_fully(const unsigned char *buf, size_t p)
{
    uint64_t id;

    memcpy(&id, buf + p * PAGE, sizeof id);
    if (id != p)
        p2p_die("page %zu (byte offset %zu) holds page number %llu", p, p * PAGE,
                (unsigned long long)id);
    for (size_t i = sizeof id; i < PAGE; i++)
        if (buf[p * PAGE + i] != page_byte(p))
            p2p_die("byte %zu is 0x%02x, expected 0x%02x", p * PAGE + i, buf[p * PAGE + i],
                    page_byte(p));
}

static void check(const unsigned char *buf)
{
    size_t boundary = ((size_t)1 << 31) / PAGE;
    size_t full[] = {0, 1, boundary - 1, boundary, NPAGES - 1};

    for (size_t p = 0; p < NPAGES; p++) {
        uint64_t id;

        memcpy(&id, buf + p * PAGE, sizeof id);
        if (id != p || buf[p * PAGE + PAGE / 2] != page_byte(p))
            p2p_die("page %zu (byte offset %zu): page number %llu, middle byte 0x%02x, "
                    "expected 0x%02x",
                    p, p * PAGE, (unsigned long long)id, buf[p * PAGE + PAGE / 2],
                    page_byte(p));
    }
    for (size_t k = 0; k < sizeof full / sizeof full[0]; k++)
        check_page_fully(buf, full[k]);
}

int main(int argc, char **argv)
{
    unsigned char *buf;
    MPI_Count count = -1;
    MPI_Status st;
    double t;
    int icount = 0;

    p2p_init("p2p_large", &argc, &argv, MPI_THREAD_SINGLE);
    if (p2p_size != 2)
        p2p_die("run me on 2 ranks");
    buf = malloc((size_t)NBYTES);
    if (!buf)
        p2p_die("cannot allocate %lld bytes", (long long)NBYTES);

    if (p2p_rank == 0) {
        fill(buf);
        MPI_Barrier(MPI_COMM_WORLD);
        p2p_check_ok("MPI_Send_c", MPI_Send_c(buf, NBYTES, MPI_BYTE, 1, 3, MPI_COMM_WORLD));
    } else {
        memset(buf, 0, (size_t)NBYTES);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        p2p_check_ok("MPI_Recv_c", MPI_Recv_c(buf, NBYTES, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st));
        t = MPI_Wtime() - t;
        if (st.MPI_SOURCE != 0 || st.MPI_TAG != 3)
            p2p_die("status source %d tag %d, expected 0 and 3", st.MPI_SOURCE, st.MPI_TAG);
        MPI_Get_count_c(&st, MPI_BYTE, &count);
        if (count != NBYTES)
            p2p_die("MPI_Get_count_c gave %lld, expected %lld", (long long)count,
                    (long long)NBYTES);
        MPI_Get_count(&st, MPI_BYTE, &icount);
        if (icount != MPI_UNDEFINED)
            p2p_die("MPI_Get_count (int) gave %d, expected MPI_UNDEFINED", icount);
        check(buf);
        printf("p2p_large: %lld bytes in %.2f s\n", (long long)NBYTES, t);
    }
    free(buf);
    p2p_finish();
    return 0;
}
