/* p2p_shm_dtype: non-contiguous messages from 8 B to a little over
 * 64 KiB, so that a same-host channel packs them for an inline copy, for a
 * ring, and for a separate (UCX) transfer alike.
 *
 * Two families, each sent and received in every combination of a
 * non-contiguous and a contiguous layout of the same type signature:
 *  - every other double (MPI_Type_vector(n, 1, 2, MPI_DOUBLE)) against n
 *    contiguous MPI_DOUBLEs;
 *  - a struct {int; double; char[3]} with its padding (MPI_Type_create_struct,
 *    resized to the C struct) against the same fields packed with no
 *    holes (15 bytes an element).
 * Round the ring, each case twice: the receive posted after the send
 * (MPI_Isend, MPI_Recv) and before it (MPI_Irecv, barrier, MPI_Isend).
 * The receive buffer starts filled with one byte; afterwards it must equal,
 * byte for byte, that fill with the fields written in: holes and the bytes
 * after the data untouched. MPI_Get_count in the receive type is checked. */
#include "p2p_shm_util.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct elem {
    int i;
    double d;
    char c[3];
};

enum { PACKED_BYTES = 4 + 8 + 3, BLANK = 0xEE, TAG = 60 };
enum kind { STRIDED, DOUBLES, STRUCTS, PACKED };
static const char *kind_name[] = {"strided doubles", "contiguous doubles", "structs with holes",
                                  "packed structs"};

static MPI_Datatype struct_type, packed_type;
static int left, right;

static void make_struct_types(void)
{
    int len[3] = {1, 1, 3};
    MPI_Aint disp[3] = {offsetof(struct elem, i), offsetof(struct elem, d),
                        offsetof(struct elem, c)};
    MPI_Aint packed_disp[3] = {0, 4, 12};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;

    MPI_Type_create_struct(3, len, disp, types, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct elem), &struct_type);
    MPI_Type_free(&t);
    MPI_Type_commit(&struct_type);
    MPI_Type_create_struct(3, len, packed_disp, types, &t);
    MPI_Type_create_resized(t, 0, PACKED_BYTES, &packed_type);
    MPI_Type_free(&t);
    MPI_Type_commit(&packed_type);
}

/* Bytes of a buffer of n elements of kind k (without the guard). */
static size_t bytes_of(enum kind k, int n)
{
    switch (k) {
    case STRIDED: return (size_t)n * 2 * sizeof(double);
    case DOUBLES: return (size_t)n * sizeof(double);
    case STRUCTS: return (size_t)n * sizeof(struct elem);
    default: return (size_t)n * PACKED_BYTES;
    }
}

/* The datatype and count that describe n elements of kind k. */
static MPI_Datatype type_of(enum kind k, int n, int *count)
{
    MPI_Datatype t;

    *count = n;
    switch (k) {
    case STRIDED:
        MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        *count = 1;
        return t;
    case DOUBLES: return MPI_DOUBLE;
    case STRUCTS: return struct_type;
    default: return packed_type;
    }
}

/* Exact values (doubles of small integers and quarters) so that any copy
 * keeps them bit for bit. */
static double dval(unsigned seed, int i)
{
    return (double)(seed % 4096) * 1048576.0 + i + 0.25;
}

/* Writes the message of `seed` (n elements) into buf laid out as kind k:
 * BLANK everywhere, then the fields in their places. */
static void lay_out(unsigned char *buf, enum kind k, int n, unsigned seed)
{
    memset(buf, BLANK, bytes_of(k, n) + SHM_GUARD);
    for (int e = 0; e < n; e++) {
        double d = dval(seed, e);
        int iv = (int)(seed * 31u + (unsigned)e);
        char c[3] = {(char)(e + 1), (char)(seed + (unsigned)e), (char)(e >> 8)};

        switch (k) {
        case STRIDED: memcpy(buf + (size_t)e * 16, &d, 8); break;
        case DOUBLES: memcpy(buf + (size_t)e * 8, &d, 8); break;
        case STRUCTS: {
            struct elem *p = (struct elem *)buf + e;

            p->i = iv;
            p->d = d;
            memcpy(p->c, c, 3);
            break;
        }
        default:
            memcpy(buf + (size_t)e * PACKED_BYTES, &iv, 4);
            memcpy(buf + (size_t)e * PACKED_BYTES + 4, &d, 8);
            memcpy(buf + (size_t)e * PACKED_BYTES + 12, c, 3);
            break;
        }
    }
}

static void one_case(int c, enum kind from, enum kind to, int n, int posted, unsigned char *out,
                     unsigned char *in, unsigned char *expect)
{
    size_t rbytes = bytes_of(to, n);
    int scount, rcount;
    MPI_Datatype stype = type_of(from, n, &scount), rtype = type_of(to, n, &rcount);
    MPI_Request sreq, rreq;
    MPI_Status st;
    char what[160];

    snprintf(what, sizeof what, "case %d: %d elements, %s to %s, receive posted %s", c, n,
             kind_name[from], kind_name[to], posted ? "first" : "late");
    lay_out(out, from, n, shm_msg_seed(1, p2p_rank, right, c));
    lay_out(expect, to, n, shm_msg_seed(1, left, p2p_rank, c));
    memset(in, BLANK, rbytes + SHM_GUARD);

    if (posted) {
        MPI_Irecv(in, rcount, rtype, left, TAG, MPI_COMM_WORLD, &rreq);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Isend(out, scount, stype, right, TAG, MPI_COMM_WORLD, &sreq);
    if (posted)
        p2p_check_ok(what, MPI_Wait(&rreq, &st));
    else
        p2p_check_ok(what, MPI_Recv(in, rcount, rtype, left, TAG, MPI_COMM_WORLD, &st));
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);

    p2p_check_status(what, &st, left, TAG, rtype, rcount);
    for (size_t b = 0; b < rbytes + SHM_GUARD; b++)
        if (in[b] != expect[b])
            p2p_die("%s: byte %zu of %zu (+%d guard) is 0x%02x, expected 0x%02x%s", what, b, rbytes,
                    SHM_GUARD, in[b], expect[b],
                    expect[b] == BLANK ? " (a hole or past the end: must stay untouched)" : "");
    if (from == STRIDED)
        MPI_Type_free(&stype);
    if (to == STRIDED)
        MPI_Type_free(&rtype);
}

int main(int argc, char **argv)
{
    /* doubles: 8 B to 64 KiB + 8, around 477 B, 2, 4, 8 KiB, 64 KiB */
    static const int ndoubles[] = {1,   2,   3,    59,   60,   61,   64,   255,  256,  257,  511,
                                   512, 513, 1023, 1024, 2047, 2048, 4095, 4096, 8191, 8192, 8193};
    /* structs of 15 bytes: 15 B to 64 KiB + 15 */
    static const int nstructs[] = {1,   2,   31,  32,   33,   68,   137,
                                   273, 274, 546, 1092, 2185, 4369, 4370};
    static const enum kind pairs[][2] = {
        {STRIDED, DOUBLES}, {DOUBLES, STRIDED}, {STRIDED, STRIDED},
        {STRUCTS, PACKED},  {PACKED, STRUCTS},  {STRUCTS, STRUCTS},
    };
    size_t max = 2 * 8193 * sizeof(double) + 4370 * sizeof(struct elem) + SHM_GUARD;
    unsigned char *out, *in, *expect;
    int c = 0;

    p2p_init("p2p_shm_dtype", &argc, &argv, MPI_THREAD_SINGLE);
    out = shm_malloc(max);
    in = shm_malloc(max);
    expect = shm_malloc(max);
    if (p2p_size < 2)
        p2p_die("needs at least 2 ranks");
    left = (p2p_rank + p2p_size - 1) % p2p_size;
    right = (p2p_rank + 1) % p2p_size;
    make_struct_types();

    for (int p = 0; p < 6; p++) {
        int structs = pairs[p][0] >= STRUCTS;
        int nn = structs ? (int)(sizeof nstructs / sizeof nstructs[0])
                         : (int)(sizeof ndoubles / sizeof ndoubles[0]);

        for (int s = 0; s < nn; s++)
            for (int posted = 0; posted < 2; posted++, c++)
                one_case(c, pairs[p][0], pairs[p][1], structs ? nstructs[s] : ndoubles[s], posted,
                         out, in, expect);
    }
    MPI_Type_free(&struct_type);
    MPI_Type_free(&packed_type);
    free(out);
    free(in);
    free(expect);
    p2p_finish();
    return 0;
}
