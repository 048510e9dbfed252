/* The GPU tests' shared helpers; see gpu_test.h. */
#include "gpu_test.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"

int gt_rank, gt_size;
static const char *test_name = "gpu_test";
static int failures;

/* At most this many failure messages per rank; the count goes on. */
#define MAX_MESSAGES 30

static void vreport(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: rank %d: ", test_name, gt_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
}

void gt_fail(const char *fmt, ...)
{
    va_list ap;
    if (failures++ >= MAX_MESSAGES)
        return;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
}

void gt_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

int gt_failures(void)
{
    return failures;
}

int gt_check_rc(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS) {
        MPI_Error_string(rc, msg, &len);
        gt_fail("%s returned error %d (%s), expected MPI_SUCCESS", what, rc, msg);
    }
    return rc;
}

static int local_rank(void)
{
    MPI_Comm host;
    int local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_rank(host, &local);
    MPI_Comm_free(&host);
    return local;
}

static int gpu_required(void)
{
    const char *required = getenv("OL_GPU_TEST_REQUIRE_GPU");
    return required && strcmp(required, "1") == 0;
}

int gt_open_gpu(void)
{
    char why[256];
    int failed, any_failed, local = local_rank();

    failed = devmem_init(local, why, sizeof why) != 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (failed && (gt_rank == 0 || local == 0)) /* one line per host */
        fprintf(stderr, "%s: rank %d: %s%s\n", test_name, gt_rank,
                gpu_required() ? "FAILED: a GPU is required here (OL_GPU_TEST_REQUIRE_GPU=1): " : "",
                why);
    return !any_failed;
}

void gt_skip(void)
{
    if (gt_rank == 0)
        printf("%s: %s\n", test_name, gpu_required() ? "FAILED: no GPU" : "skipped: no GPU");
    MPI_Finalize();
    exit(gpu_required() ? 1 : 77);
}

void gt_start(const char *name, int *argc, char ***argv)
{
    test_name = name;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &gt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &gt_size);
}

void gt_init(const char *name, int *argc, char ***argv)
{
    gt_start(name, argc, argv);
    if (!gt_open_gpu())
        gt_skip();
}

void gt_init_threads(const char *name, int *argc, char ***argv)
{
    int provided;
    test_name = name;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &gt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &gt_size);
    if (provided < MPI_THREAD_MULTIPLE)
        gt_die("MPI_Init_thread provided thread level %d, not MPI_THREAD_MULTIPLE", provided);
    if (!gt_open_gpu())
        gt_skip();
}

int gt_finish(void)
{
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (gt_rank == 0) {
        if (total)
            printf("%s: FAILED: %d problems on %d ranks\n", test_name, total, gt_size);
        else
            printf("%s: OK (%d ranks)\n", test_name, gt_size);
        fflush(stdout);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}

const char *gt_mem_name(enum gt_mem mem)
{
    return mem == GT_DEVICE ? "device" : "host";
}

void *gt_alloc(enum gt_mem mem, size_t bytes)
{
    void *p = mem == GT_DEVICE ? devmem_alloc(bytes) : malloc(bytes ? bytes : 1);
    if (!p)
        gt_die("cannot allocate %zu bytes of %s memory", bytes, gt_mem_name(mem));
    return p;
}

void gt_free(enum gt_mem mem, void *buf)
{
    if (mem == GT_DEVICE)
        devmem_free(buf);
    else
        free(buf);
}

void gt_put(enum gt_mem mem, void *buf, const void *host, size_t bytes)
{
    if (bytes == 0)
        return;
    if (mem == GT_HOST)
        memcpy(buf, host, bytes);
    else if (devmem_to_device(buf, host, bytes) != 0)
        gt_die("cuMemcpyHtoD of %zu bytes to %p failed", bytes, buf);
}

void gt_get(enum gt_mem mem, void *host, const void *buf, size_t bytes)
{
    if (bytes == 0)
        return;
    if (mem == GT_HOST)
        memcpy(host, buf, bytes);
    else if (devmem_to_host(host, buf, bytes) != 0)
        gt_die("cuMemcpyDtoH of %zu bytes from %p failed", bytes, buf);
}

void gt_set(enum gt_mem mem, void *buf, unsigned char value, size_t bytes)
{
    if (bytes == 0)
        return;
    if (mem == GT_HOST)
        memset(buf, value, bytes);
    else if (devmem_set(buf, value, bytes) != 0)
        gt_die("cuMemsetD8 of %zu bytes at %p failed", bytes, buf);
}

/* A grown-on-demand host buffer; *have is its size. */
static void *grow(void **buf, size_t *have, size_t bytes)
{
    if (*have < bytes || !*buf) {
        free(*buf);
        *buf = malloc(bytes ? bytes : 1);
        *have = bytes;
        if (!*buf)
            gt_die("cannot allocate %zu bytes of host memory", bytes);
    }
    return *buf;
}

/* For the helpers here; gt_scratch is the caller's own. */
static void *staging(size_t bytes)
{
    static void *buf;
    static size_t have;
    return grow(&buf, &have, bytes);
}

void *gt_scratch(size_t bytes)
{
    static void *buf;
    static size_t have;
    return grow(&buf, &have, bytes);
}

/* Two bytes of a hash of the seed, mixed with the offset: every 8 bytes the
 * second one comes in, so seeds whose first bytes collide still differ. */
static unsigned pattern_hash(unsigned seed)
{
    return (seed + 1u) * 2654435761u;
}

static unsigned char pattern_byte(unsigned h, size_t i)
{
    unsigned second = (i >> 3) & 1 ? (h >> 16) & 0xffu : 0;
    return (unsigned char)((h >> 24) + i * 7u + (i >> 9) * 13u + second);
}

unsigned char gt_byte(unsigned seed, size_t i)
{
    return pattern_byte(pattern_hash(seed), i);
}

void gt_fill(void *host, size_t bytes, unsigned seed)
{
    unsigned char *p = host;
    unsigned h = pattern_hash(seed);
    for (size_t i = 0; i < bytes; i++)
        p[i] = pattern_byte(h, i);
}

void gt_put_pattern(enum gt_mem mem, void *buf, size_t bytes, unsigned seed)
{
    void *host = mem == GT_HOST ? buf : staging(bytes);
    gt_fill(host, bytes, seed);
    if (mem == GT_DEVICE)
        gt_put(mem, buf, host, bytes);
}

/* Records a failure for `wrong` bytes, the first at `first`. */
static size_t report(const char *what, size_t wrong, size_t first, size_t bytes, unsigned got,
                     unsigned want)
{
    if (wrong)
        gt_fail("%s: %zu of %zu bytes wrong; the first at offset %zu is 0x%02x, expected 0x%02x",
                what, wrong, bytes, first, got, want);
    return wrong;
}

size_t gt_check_bytes(const char *what, const void *got, const void *want, size_t bytes)
{
    const unsigned char *g = got, *w = want;
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < bytes; i++)
        if (g[i] != w[i] && wrong++ == 0)
            first = i;
    return report(what, wrong, first, bytes, wrong ? g[first] : 0, wrong ? w[first] : 0);
}

size_t gt_check_pattern(const char *what, const void *host, size_t bytes, unsigned seed)
{
    const unsigned char *g = host;
    unsigned h = pattern_hash(seed);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < bytes; i++)
        if (g[i] != pattern_byte(h, i) && wrong++ == 0)
            first = i;
    return report(what, wrong, first, bytes, wrong ? g[first] : 0, gt_byte(seed, first));
}

size_t gt_check_buffer(const char *what, enum gt_mem mem, const void *buf, size_t bytes,
                       unsigned seed)
{
    const void *host = buf;
    if (mem == GT_DEVICE) {
        host = staging(bytes);
        gt_get(mem, (void *)host, buf, bytes);
    }
    return gt_check_pattern(what, host, bytes, seed);
}

size_t gt_check_value(const char *what, enum gt_mem mem, const void *buf, size_t bytes,
                      unsigned char value)
{
    const unsigned char *g = buf;
    size_t wrong = 0, first = 0;
    if (mem == GT_DEVICE) {
        g = staging(bytes);
        gt_get(mem, (void *)g, buf, bytes);
    }
    for (size_t i = 0; i < bytes; i++)
        if (g[i] != value && wrong++ == 0)
            first = i;
    return report(what, wrong, first, bytes, wrong ? g[first] : 0, value);
}
