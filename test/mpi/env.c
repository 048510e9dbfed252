/* env: the environment calls, before MPI_Init, in the job and after
 * MPI_Finalize. argv[1] is the expected job size: the test runs this program
 * under mpirun and also directly, as a singleton (size 1, rank 0).
 *
 * Checked: rank and size of MPI_COMM_WORLD and MPI_COMM_SELF;
 * MPI_Initialized and MPI_Finalized at each stage; MPI_Init_thread's provided
 * level; MPI_Get_version (the version of mpi.h; 5.0 for the standard ABI)
 * and MPI_Abi_get_version (1.0), which may be called before MPI_Init;
 * MPI_Get_library_version (names ompi-lite when built against it) and
 * MPI_Get_processor_name (non-empty, length = strlen); MPI_Wtime measures a
 * sleep in seconds and MPI_Wtick is positive; MPI_Pcontrol returns
 * MPI_SUCCESS. MPI_Alloc_mem gives writable memory aligned to 64 bytes, or
 * to the mpi_minimum_memory_alignment hint (4096), also for size 0, which
 * MPI_Free_mem takes back; a negative size gives MPI_ERR_ARG and a handle
 * that is no info MPI_ERR_INFO (MPI_ERRORS_RETURN on MPI_COMM_SELF, where
 * errors of calls without a communicator go). */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size;
static int in_job; /* between MPI_Init_thread and MPI_Finalize */

static void die(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "env: ");
    if (size > 0) /* known once MPI_Init_thread has returned */
        fprintf(stderr, "rank %d of %d: ", rank, size);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    if (in_job)
        MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void check_state(const char *when, int want_initialized, int want_finalized)
{
    int initialized = -1, finalized = -1;

    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized != want_initialized || finalized != want_finalized)
        die("%s: MPI_Initialized %d, MPI_Finalized %d, expected %d and %d", when,
            initialized, finalized, want_initialized, want_finalized);
}

static void check_versions(void)
{
    int version = -1, subversion = -1;

    MPI_Get_version(&version, &subversion);
    if (version != MPI_VERSION || subversion != MPI_SUBVERSION)
        die("MPI_Get_version says %d.%d, mpi.h says %d.%d", version, subversion,
            MPI_VERSION, MPI_SUBVERSION);
#if defined(MPI_ABI_VERSION)
    int abi_major = -1, abi_minor = -1;

    if (version != 5 || subversion != 0)
        die("MPI_Get_version says %d.%d, the standard ABI is MPI 5.0", version,
            subversion);
    MPI_Abi_get_version(&abi_major, &abi_minor);
    if (abi_major != 1 || abi_minor != 0)
        die("MPI_Abi_get_version says %d.%d, expected 1.0", abi_major, abi_minor);
#endif
}

/* Returns the library's version string; only ompi-lite is required to name
 * itself (the suite also runs against Open MPI). */
static const char *check_library_version(void)
{
    static char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1, open_mpi;

    text[0] = '\0';
    MPI_Get_library_version(text, &len);
    open_mpi = strstr(text, "Open MPI") != NULL;
    /* Open MPI 4.1 counts the terminating NUL in len. */
    if (open_mpi && len > 0 && (size_t)len == strlen(text) + 1)
        len--;
    if (len <= 0 || len >= MPI_MAX_LIBRARY_VERSION_STRING || (size_t)len != strlen(text))
        die("MPI_Get_library_version: length %d for \"%s\"", len, text);
    if (!open_mpi && !strstr(text, "ompi-lite"))
        die("MPI_Get_library_version does not name ompi-lite: \"%s\"", text);
    return text;
}

static void check_ranks(int want_size)
{
    int self_rank = -1, self_size = -1;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != want_size || rank < 0 || rank >= size)
        die("MPI_COMM_WORLD: rank %d of %d, expected a size of %d", rank, size,
            want_size);
    MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
    MPI_Comm_size(MPI_COMM_SELF, &self_size);
    if (self_rank != 0 || self_size != 1)
        die("MPI_COMM_SELF: rank %d of %d, expected 0 of 1", self_rank, self_size);
}

/* A 20 ms sleep must measure as at least 20 ms and, to catch a wrong unit,
 * well under 10 s. */
static void check_clock(void)
{
    struct timespec nap = {0, 20 * 1000 * 1000};
    double tick = MPI_Wtick(), start = MPI_Wtime(), elapsed;

    nanosleep(&nap, NULL);
    elapsed = MPI_Wtime() - start;
    if (elapsed < 0.020 || elapsed > 10.0)
        die("MPI_Wtime measured a 20 ms sleep as %g s", elapsed);
    if (!(tick > 0.0 && tick < 1.0))
        die("MPI_Wtick is %g s, expected between 0 and 1", tick);
}

static void check_processor_name(void)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = -1;

    name[0] = '\0';
    MPI_Get_processor_name(name, &len);
    if (len <= 0 || len >= MPI_MAX_PROCESSOR_NAME || (size_t)len != strlen(name))
        die("MPI_Get_processor_name: length %d for \"%s\"", len, name);
}

static void check_one_alloc(MPI_Aint size, MPI_Info info, size_t alignment)
{
    char *base = NULL;
    int rc = MPI_Alloc_mem(size, info, &base);

    if (rc != MPI_SUCCESS || !base)
        die("MPI_Alloc_mem of %ld bytes returned %d, base %p", (long)size, rc, (void *)base);
    if ((uintptr_t)base % alignment)
        die("MPI_Alloc_mem of %ld bytes gave %p, not aligned to %zu", (long)size, (void *)base,
            alignment);
    memset(base, 0xA5, (size_t)size);
    for (MPI_Aint i = 0; i < size; i++)
        if ((unsigned char)base[i] != 0xA5)
            die("MPI_Alloc_mem memory does not keep what was written at byte %ld", (long)i);
    if (MPI_Free_mem(base) != MPI_SUCCESS)
        die("MPI_Free_mem failed");
}

static void check_alloc_mem(void)
{
    static long not_an_object[8];
    MPI_Info info;
    int rc, cls;
    void *base;

    check_one_alloc(0, MPI_INFO_NULL, 64);
    check_one_alloc(1000, MPI_INFO_NULL, 64);
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_minimum_memory_alignment", "4096");
    check_one_alloc(1 << 20, info, 4096);
    MPI_Info_free(&info);

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = MPI_Alloc_mem(-1, MPI_INFO_NULL, &base);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_ARG)
        die("MPI_Alloc_mem of -1 bytes: error class %d, expected MPI_ERR_ARG (%d)", cls,
            MPI_ERR_ARG);
    rc = MPI_Alloc_mem(8, (MPI_Info)(void *)not_an_object, &base);
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_INFO)
        die("MPI_Alloc_mem with an info handle that is no info: error class %d, expected "
            "MPI_ERR_INFO (%d)",
            cls, MPI_ERR_INFO);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
}

static void check_pcontrol(void)
{
    if (MPI_Pcontrol(1) != MPI_SUCCESS || MPI_Pcontrol(0, "phase") != MPI_SUCCESS)
        die("MPI_Pcontrol did not return MPI_SUCCESS");
}

static void check_thread_level(int provided)
{
    if (provided != MPI_THREAD_SINGLE && provided != MPI_THREAD_FUNNELED &&
        provided != MPI_THREAD_SERIALIZED && provided != MPI_THREAD_MULTIPLE)
        die("MPI_Init_thread provided %d, not a thread level", provided);
}

int main(int argc, char **argv)
{
    int want_size = argc > 1 ? atoi(argv[1]) : 1;
    int provided = -1;
    const char *library;

    check_state("before MPI_Init_thread", 0, 0);
    check_versions();
    check_library_version();

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    in_job = 1;
    check_ranks(want_size);
    check_thread_level(provided);
    check_state("after MPI_Init_thread", 1, 0);
    check_versions();
    library = check_library_version();
    check_clock();
    check_processor_name();
    check_alloc_mem();
    check_pcontrol();

    /* Rank 0 reports only once every rank has passed. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("env: %d ranks OK, MPI %d.%d, %.*s\n", size, MPI_VERSION, MPI_SUBVERSION,
               (int)strcspn(library, "\n"), library);
    MPI_Finalize();
    in_job = 0;
    check_state("after MPI_Finalize", 1, 1);
    check_versions();
    return 0;
}
