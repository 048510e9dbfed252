/* devcopy_bw: the GPU's own device-to-device copy bandwidth, the yardstick
 * for the device benchmarks (coll_perf --device, osu_bw -d cuda): one large
 * cuMemcpyDtoD (what cudaMemcpy of one large buffer does), timed from the
 * call to the end of a cuStreamSynchronize, several times. Prints the median,
 * min and max of bytes copied per second, in GB/s (10^9) and MB/s (10^6).
 *   devcopy_bw [-s BYTES] [-n COPIES]   (defaults 1G, 11 copies; K M G suffixes)
 * Not an MPI program. Exit 77 when no GPU is usable (with the reason). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "devmem.h"
#include "standalone.h"

/* "1G" -> 2^30 (K, M, G: powers of 1024); 0 when s is not a size. */
static size_t parse_size(const char *s)
{
    char *end;
    size_t v = strtoull(s, &end, 10);
    switch (*end) {
    case 'G': v <<= 10; /* fall through */
    case 'M': v <<= 10; /* fall through */
    case 'K': v <<= 10; end++; break;
    }
    return *end == '\0' ? v : 0;
}

/* One timed copy; bytes per second, or a negative value on a driver error. */
static double timed_copy(void *dst, const void *src, size_t bytes)
{
    double t0 = standalone_now();
    if (devmem_copy(dst, src, bytes) != 0)
        return -1;
    return (double)bytes / (standalone_now() - t0);
}

int main(int argc, char **argv)
{
    size_t bytes = (size_t)1 << 30;
    int copies = 11, c;
    char why[200], name[128];
    void *src, *dst;
    double *rate;

    while ((c = getopt(argc, argv, "s:n:h")) != -1) {
        switch (c) {
        case 's': bytes = parse_size(optarg); break;
        case 'n': copies = atoi(optarg); break;
        default:
            fprintf(c == 'h' ? stdout : stderr, "usage: devcopy_bw [-s BYTES] [-n COPIES]\n");
            return c == 'h' ? 0 : 2;
        }
    }
    if (bytes == 0 || copies < 1) {
        fprintf(stderr, "devcopy_bw: -s and -n must be positive\n");
        return 2;
    }
    if (devmem_init(0, why, sizeof why) != 0) {
        fprintf(stderr, "devcopy_bw: skipped: %s\n", why);
        return 77;
    }
    src = devmem_alloc(bytes);
    dst = devmem_alloc(bytes);
    rate = malloc((size_t)copies * sizeof *rate);
    if (!src || !dst || !rate) {
        fprintf(stderr, "devcopy_bw: cannot allocate 2 x %zu bytes of device memory\n", bytes);
        return 1;
    }
    devmem_set(src, 1, bytes);
    if (timed_copy(dst, src, bytes) < 0) { /* warm-up */
        fprintf(stderr, "devcopy_bw: cuMemcpyDtoD failed\n");
        return 1;
    }
    for (int i = 0; i < copies; i++)
        if ((rate[i] = timed_copy(dst, src, bytes)) < 0) {
            fprintf(stderr, "devcopy_bw: cuMemcpyDtoD failed\n");
            return 1;
        }
    double median = standalone_median(rate, copies);
    devmem_device_name(name, sizeof name);
    printf("# devcopy_bw: %s, %zu bytes device to device, %d copies\n", name, bytes, copies);
    printf("# GB/s(median) Min(GB/s) Max(GB/s) MB/s(median)\n");
    printf("%.2f %.2f %.2f %.1f\n", median / 1e9, rate[0] / 1e9, rate[copies - 1] / 1e9,
           median / 1e6);
    devmem_free(src);
    devmem_free(dst);
    free(rate);
    return 0;
}
