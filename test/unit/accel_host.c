/* The accel layer on a machine without a GPU or with no driver loaded:
 * host memory is host, the driver is not opened behind the program's back,
 * the watch notices newly loaded libraries (and keeps the one it watches
 * mapped), the facts match the build, and device reductions are offered
 * for exactly the (op, type) pairs the kernels cover. */
#define _GNU_SOURCE
#include "ol_config.h"
#include "mpi.h"
#include "mpi-ext.h"
#include "ol_accel.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int failures;

#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                    \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

static bool maps_mention(const char *name)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    bool found = false;
    while (f && !found && fgets(line, sizeof(line), f))
        found = strstr(line, name) != NULL;
    if (f)
        fclose(f);
    return found;
}

static int global_buffer[64];

static void check_host_buffers(void)
{
    int stack_buffer[16];
    char *small = malloc(64);
    char *large = malloc(8 << 20); /* from mmap in glibc */
    void *mapped = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(!ol_accel_is_device(stack_buffer), "stack buffer taken for device memory");
    CHECK(!ol_accel_is_device(global_buffer), "global buffer taken for device memory");
    CHECK(!ol_accel_is_device(small), "malloc(64) taken for device memory");
    CHECK(!ol_accel_is_device(large), "malloc(8 MiB) taken for device memory");
    CHECK(mapped != MAP_FAILED && !ol_accel_is_device(mapped), "mmap'd buffer");
    CHECK(!ol_accel_is_device(NULL), "NULL taken for device memory");
    munmap(mapped, 1 << 16);
    free(large);
    free(small);
}

/* A glibc library this process has not loaded yet, NULL if none. */
static const char *unloaded_library(void)
{
    static const char *const candidates[] = {"libanl.so.1", "libBrokenLocale.so.1",
                                             "libthread_db.so.1", "libutil.so.1"};
    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
        if (!dlopen(candidates[i], RTLD_LAZY | RTLD_NOLOAD) && !maps_mention(candidates[i]))
            return candidates[i];
    return NULL;
}

/* Loading a library arms the one-load test; the slow path then finds no
 * driver and watches the new last entry, which a dlclose cannot unmap. */
static void check_watch(void)
{
    const char *name = unloaded_library();
    if (!name) {
        printf("watch: no unloaded glibc library to load, not checked\n");
        return;
    }
    CHECK(*ol_accel_link_tail_next == NULL, "the watch is armed before any load");
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    CHECK(handle != NULL, "dlopen %s: %s", name, dlerror());
    if (!handle)
        return;
    CHECK(*ol_accel_link_tail_next != NULL, "loading %s did not arm the watch", name);
    int host;
    CHECK(!ol_accel_is_device(&host), "host buffer after loading %s", name);
    CHECK(!ol_accel_driver_loaded, "%s taken for the CUDA driver", name);
    CHECK(*ol_accel_link_tail_next == NULL, "the watch did not move to %s", name);
    dlclose(handle);
    CHECK(maps_mention(name), "%s, now watched, was unmapped by dlclose", name);
    CHECK(!ol_accel_is_device(&host), "host buffer after dlclose of %s", name);
}

static void check_facts(void)
{
#ifdef OL_HAVE_CUDA
    CHECK(ol_accel_built(), "configure found CUDA, but ol_accel_built() is false");
    CHECK(strcmp(OL_CUDA_BUILT, "yes") == 0, "OL_CUDA_BUILT is %s", OL_CUDA_BUILT);
#else
    CHECK(!ol_accel_built(), "configure found no CUDA, but ol_accel_built() is true");
    CHECK(strcmp(OL_CUDA_BUILT, "no") == 0, "OL_CUDA_BUILT is %s", OL_CUDA_BUILT);
#endif
}

static bool can_reduce(MPI_Op op, MPI_Datatype dt)
{
    return ol_op_device_kernel(ol_op_from_handle(op), ol_dt_from_handle(dt));
}

static void check_kernel_table(void)
{
    bool built = ol_accel_built();
    CHECK(can_reduce(MPI_SUM, MPI_DOUBLE) == built, "MPI_SUM on MPI_DOUBLE");
    CHECK(can_reduce(MPI_BXOR, MPI_UINT64_T) == built, "MPI_BXOR on MPI_UINT64_T");
    CHECK(can_reduce(MPI_PROD, MPI_C_FLOAT_COMPLEX) == built, "MPI_PROD on complex float");
    CHECK(can_reduce(MPI_LXOR, MPI_C_BOOL) == built, "MPI_LXOR on MPI_C_BOOL");
    CHECK(can_reduce(MPI_MAX, MPI_LONG) == built, "MPI_MAX on MPI_LONG");
    CHECK(!can_reduce(MPI_MAX, MPI_C_DOUBLE_COMPLEX), "max is not defined on complex");
    CHECK(!can_reduce(MPI_BAND, MPI_FLOAT), "bitwise ops are not defined on float");
    CHECK(!can_reduce(MPI_SUM, MPI_C_BOOL), "sum is not defined on MPI_C_BOOL");
    CHECK(!can_reduce(MPI_SUM, MPI_LONG_DOUBLE), "no kernel for long double");
    CHECK(!can_reduce(MPI_MAXLOC, MPI_DOUBLE_INT), "no kernel for pair types");
    CHECK(!can_reduce(MPI_REPLACE, MPI_INT), "MPI_REPLACE is no reduction");
}

/* Here there is no GPU: device buffers are refused with a sentence that
 * says why, and MPIX_Query_cuda_support says 0. Where a driver can be
 * opened (a GPU machine), only the sentence is checked. */
static void check_unsupported(void)
{
    void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    int fake_device_buffer;
    CHECK(ol_accel_unsupported("the send buffer", &fake_device_buffer) == MPI_ERR_BUFFER,
          "ol_accel_unsupported is not MPI_ERR_BUFFER");
    const char *why = ol_error_detail_take();
    CHECK(strncmp(why, "the send buffer 0x", strlen("the send buffer 0x")) == 0, "detail: %s", why);
    if (driver) {
        printf("a CUDA driver is installed here: MPIX_Query_cuda_support() = %d, not checked\n",
               MPIX_Query_cuda_support());
        return;
    }
    CHECK(strstr(why, ol_accel_built() ? "libcuda.so.1" : "built without CUDA support"),
          "detail: %s", why);
    CHECK(!ol_accel_usable(), "usable without a driver");
    CHECK(ol_accel_visible_devices() == 0, "GPUs visible without a driver");
    CHECK(MPIX_Query_cuda_support() == 0, "MPIX_Query_cuda_support() is not 0");
    CHECK(PMPIX_Query_cuda_support() == 0, "PMPIX_Query_cuda_support() is not 0");
}

int main(void)
{
    CHECK(ol_accel_init(0, 1) == MPI_SUCCESS, "ol_accel_init failed");
    check_host_buffers();
    CHECK(!maps_mention("libcuda"), "a libcuda was mapped though the program loaded none");
    check_watch();
    CHECK(!maps_mention("libcuda"), "a libcuda was mapped though the program loaded none");
    check_facts();
    check_kernel_table();
    check_unsupported();
    ol_accel_finalize();
    if (failures)
        fprintf(stderr, "%d checks failed\n", failures);
    else
        printf("accel_host: all checks passed\n");
    return failures ? 1 : 0;
}
