/* p2p_shm_stale_seal: payload that looks like the next lap's seals.
 *
 * A same-host ring marks the end of each record with a seal, the record's
 * position + 1, which the receiver polls at its position. Old bytes left
 * in the ring must never pass for a seal on a later lap. This test writes
 * such bytes on purpose, between ranks 0 and 1 (argv[1]: the ring's size
 * in bytes; the script sets it, and the pair's first message must be the
 * test's own, at position 0):
 *
 * 1. A lap of 512-line messages (32 KiB - 40 bytes, inline records larger
 *    than those the receiver clears anyway), each of whose lines after the
 *    first begins with the seal that a record starting at that line would
 *    have on the next lap.
 * 2. A lap and a bit of 1-line messages (8 bytes), in ping-pong, so that
 *    rank 1 waits at each next line before rank 0 writes it: the line
 *    still holds what lap 1 left there.
 *
 * Every message's bytes are checked. With a ring whose receiver believed
 * the old words, rank 1 would take the garbage around them for a message.
 * Any other ring size, or a different first position, only makes the test
 * an ordinary exchange of some 4000 messages. */
#include "p2p_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LINE = 64, HEADER = 40, TAG = 3, ACK_TAG = 4, WIDE_LINES = 512 };
enum { WIDE = WIDE_LINES * LINE - HEADER, NARROW = 8 }; /* payload bytes of wide and 1-line records */

/* The payload of a wide message at ring position `at`: pattern bytes, but
 * the first word of each line after the header is that line's next-lap
 * seal. */
static void fill_wide(unsigned char *payload, uint64_t at, uint64_t ring_bytes)
{
    for (int i = 0; i < WIDE; i++)
        payload[i] = (unsigned char)(at / LINE + (uint64_t)i);
    for (int line = 1; line < WIDE_LINES; line++) {
        uint64_t position = at + (uint64_t)line * LINE;
        uint64_t next_lap_seal = position + ring_bytes + 1;
        memcpy(payload + line * LINE - HEADER, &next_lap_seal, sizeof(next_lap_seal));
    }
}

static void fill_narrow(unsigned char *payload, int i)
{
    for (int b = 0; b < NARROW; b++)
        payload[b] = (unsigned char)(i * 7 + b + 1);
}

static void wide_lap(uint64_t ring_bytes)
{
    static unsigned char out[WIDE], in[WIDE], want[WIDE];
    char what[64];
    int n = (int)(ring_bytes / (WIDE_LINES * LINE));
    for (int i = 0; i < n; i++) {
        uint64_t at = (uint64_t)i * WIDE_LINES * LINE;
        if (p2p_rank == 0) {
            fill_wide(out, at, ring_bytes);
            MPI_Send(out, WIDE, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
        } else {
            MPI_Status st;
            MPI_Recv(in, WIDE, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &st);
            fill_wide(want, at, ring_bytes);
            snprintf(what, sizeof what, "wide message %d", i);
            p2p_check_status(what, &st, 0, TAG, MPI_BYTE, WIDE);
            if (memcmp(in, want, WIDE) != 0)
                p2p_die("%s: wrong bytes", what);
        }
    }
}

static void narrow_laps(uint64_t ring_bytes)
{
    unsigned char out[NARROW], in[NARROW], want[NARROW];
    char what[64];
    int n = (int)(ring_bytes / LINE) + 64;
    for (int i = 0; i < n; i++) {
        if (p2p_rank == 0) {
            fill_narrow(out, i);
            MPI_Send(out, NARROW, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, ACK_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Status st;
            MPI_Recv(in, NARROW, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &st);
            fill_narrow(want, i);
            snprintf(what, sizeof what, "narrow message %d", i);
            p2p_check_status(what, &st, 0, TAG, MPI_BYTE, NARROW);
            if (memcmp(in, want, NARROW) != 0)
                p2p_die("%s: wrong bytes", what);
            MPI_Send(NULL, 0, MPI_BYTE, 0, ACK_TAG, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    p2p_init("p2p_shm_stale_seal", &argc, &argv, MPI_THREAD_SINGLE);
    if (argc < 2)
        p2p_die("usage: p2p_shm_stale_seal RING_BYTES");
    uint64_t ring_bytes = strtoull(argv[1], NULL, 0);
    if (p2p_size < 2 || ring_bytes < 4 * WIDE_LINES * LINE)
        p2p_die("needs 2 ranks and a ring of at least %d bytes", 4 * WIDE_LINES * LINE);
    if (p2p_rank < 2) {
        wide_lap(ring_bytes);
        narrow_laps(ring_bytes);
    }
    p2p_finish();
    return 0;
}
