/* memcpy_bw: the machine's memcpy bandwidth, the ceiling for a copy through
 * shared memory, printed beside the MPI bandwidths by contrib/compare.sh.
 * Copies a buffer larger than the caches several times and prints the median
 * (and min, max) in MB/s of bytes copied (10^6 bytes per second).
 *   memcpy_bw [-s BYTES] [-n COPIES]   (defaults 256 MiB, 11 copies)
 * Not an MPI program. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "standalone.h"

static unsigned sink;

int main(int argc, char **argv)
{
    size_t bytes = (size_t)256 << 20;
    int copies = 11, c;
    void *src, *dst;
    double *mbs;

    while ((c = getopt(argc, argv, "s:n:h")) != -1) {
        switch (c) {
        case 's': bytes = strtoull(optarg, NULL, 0); break;
        case 'n': copies = atoi(optarg); break;
        default:
            fprintf(c == 'h' ? stdout : stderr, "usage: memcpy_bw [-s BYTES] [-n COPIES]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (bytes == 0 || copies < 1) {
        fprintf(stderr, "memcpy_bw: -s and -n must be positive\n");
        return 2;
    }
    mbs = malloc((size_t)copies * sizeof *mbs);
    if (!mbs || posix_memalign(&src, 4096, bytes) || posix_memalign(&dst, 4096, bytes)) {
        fprintf(stderr, "memcpy_bw: cannot allocate 2 x %zu bytes\n", bytes);
        return 1;
    }
    memset(src, 1, bytes);
    memset(dst, 2, bytes);
    memcpy(dst, src, bytes); /* warm-up */
    for (int i = 0; i < copies; i++) {
        double t0 = standalone_now();
        memcpy(dst, src, bytes);
        sink += ((volatile unsigned char *)dst)[i]; /* the copy is used: not optimised away */
        mbs[i] = (double)bytes / (standalone_now() - t0) / 1e6;
    }
    double median = standalone_median(mbs, copies);
    printf("# memcpy_bw: %zu bytes, %d copies\n# MB/s(median) Min(MB/s) Max(MB/s)\n", bytes, copies);
    printf("%.1f %.1f %.1f\n", median, mbs[0], mbs[copies - 1]);
    free(mbs);
    free(src);
    free(dst);
    return 0;
}
