/* split_type: MPI_Comm_split_type, on one host.
 *
 * 1. MPI_COMM_TYPE_SHARED groups every rank of the host: all of
 *    MPI_COMM_WORLD here, ordered by key (-rank reverses it).
 * 2. MPI_COMM_TYPE_HW_GUIDED with mpi_hw_resource_type "mpi_shared_memory",
 *    "Machine" and "hwloc://Machine": the same group as SHARED
 *    (MPI_CONGRUENT); with an unknown value or without the key (or with
 *    MPI_INFO_NULL): MPI_COMM_NULL everywhere.
 * 3. HW_GUIDED "PU" and "Core": the group is the ranks whose CPU affinity
 *    is the same as mine when every rank is bound to one core (argument
 *    "bound", run with --bind-to core); unbound on a machine of several
 *    PUs, "PU" gives MPI_COMM_NULL, and "Core" either MPI_COMM_NULL or the
 *    host.
 * 4. MPI_COMM_TYPE_HW_UNGUIDED: each result is MPI_COMM_NULL or strictly
 *    smaller than its parent, with mpi_hw_resource_type in its info;
 *    applied again and again it ends in MPI_COMM_NULL. Bound ranks with
 *    different affinities are split (not MPI_COMM_NULL).
 * 5. MPI_COMM_TYPE_RESOURCE_GUIDED with mpi_pset_name "mpi://WORLD" (all,
 *    MPI_CONGRUENT with MPI_COMM_WORLD), "mpi://SELF" (alone), an unknown
 *    name (MPI_COMM_NULL), and mpi_hw_resource_type "mpi_shared_memory"
 *    (as SHARED).
 * 6. split_type MPI_UNDEFINED gives MPI_COMM_NULL; an unknown split_type
 *    is MPI_ERR_ARG. */
#define _GNU_SOURCE
#include "topo_util.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

enum { MASK_WORDS = 4 }; /* the first 128 CPUs, as ints */

static void my_mask(int *words)
{
    cpu_set_t set;

    memset(words, 0, sizeof(int) * MASK_WORDS);
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        tu_die("sched_getaffinity failed");
    for (int cpu = 0; cpu < 32 * MASK_WORDS; cpu++)
        if (CPU_ISSET(cpu, &set))
            words[cpu / 32] = (int)((unsigned)words[cpu / 32] | 1u << (cpu % 32));
}

static int cpus_in(const int *words)
{
    int n = 0;

    for (int i = 0; i < MASK_WORDS; i++)
        n += __builtin_popcount((unsigned)words[i]);
    return n;
}

static int same_mask(const int *a, const int *b)
{
    return memcmp(a, b, sizeof(int) * MASK_WORDS) == 0;
}

/* The world affinity masks of all ranks. */
static int masks[1024][MASK_WORDS];

static MPI_Comm split_hw(int type, const char *key, const char *value)
{
    MPI_Info info = MPI_INFO_NULL;
    MPI_Comm c;

    if (key) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    MPI_Comm_split_type(MPI_COMM_WORLD, type, tu_rank, info, &c);
    if (key)
        MPI_Info_free(&info);
    return c;
}

static void expect_congruent(MPI_Comm a, MPI_Comm b, const char *what)
{
    int result;

    TU_CHECK(a != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
    MPI_Comm_compare(a, b, &result);
    TU_CHECK(result == MPI_CONGRUENT, "%s: compare says %d, expected MPI_CONGRUENT", what,
             result);
}

static void expect_null(MPI_Comm c, const char *what)
{
    TU_CHECK(c == MPI_COMM_NULL, "%s: a communicator, expected MPI_COMM_NULL", what);
}

static void free_unless_null(MPI_Comm *c)
{
    if (*c != MPI_COMM_NULL)
        MPI_Comm_free(c);
}

static MPI_Comm shared(void)
{
    MPI_Comm host, reversed;
    int size, rank;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, tu_rank, MPI_INFO_NULL, &host);
    TU_CHECK(host != MPI_COMM_NULL, "SHARED: MPI_COMM_NULL");
    expect_congruent(host, MPI_COMM_WORLD, "SHARED on one host");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -tu_rank, MPI_INFO_NULL,
                        &reversed);
    MPI_Comm_size(reversed, &size);
    MPI_Comm_rank(reversed, &rank);
    TU_CHECK(size == tu_size && rank == tu_size - 1 - tu_rank,
             "SHARED with key -rank: rank %d of %d, expected %d", rank, size,
             tu_size - 1 - tu_rank);
    MPI_Comm_free(&reversed);
    return host;
}

static void guided_host(MPI_Comm host)
{
    const char *host_wide[] = {"mpi_shared_memory", "Machine", "hwloc://Machine"};
    MPI_Comm c;

    for (int i = 0; i < 3; i++) {
        c = split_hw(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", host_wide[i]);
        expect_congruent(c, host, host_wide[i]);
        MPI_Comm_free(&c);
    }
    c = split_hw(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "NoSuchResource");
    expect_null(c, "HW_GUIDED of an unknown resource");
    c = split_hw(MPI_COMM_TYPE_HW_GUIDED, "other_key", "Machine");
    expect_null(c, "HW_GUIDED without mpi_hw_resource_type");
    c = split_hw(MPI_COMM_TYPE_HW_GUIDED, NULL, NULL);
    expect_null(c, "HW_GUIDED with MPI_INFO_NULL");
}

/* c holds exactly the ranks of MPI_COMM_WORLD whose mask is mine. */
static void expect_same_affinity(MPI_Comm c, const char *what)
{
    int size, n = 0, all[tu_size];

    TU_CHECK(c != MPI_COMM_NULL, "%s: MPI_COMM_NULL for a bound rank", what);
    MPI_Comm_size(c, &size);
    tu_allgather_ints(&tu_rank, 1, all, c);
    for (int r = 0; r < tu_size; r++)
        if (same_mask(masks[r], masks[tu_rank]))
            TU_CHECK(all[n++] == r, "%s: world rank %d shares my CPUs but is not rank %d", what,
                     r, n - 1);
    TU_CHECK(n == size, "%s: size %d, but %d ranks share my CPUs", what, size, n);
}

static void guided_cores(MPI_Comm host, int bound)
{
    MPI_Comm pu = split_hw(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "PU");
    MPI_Comm core = split_hw(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "Core");
    int ncpus = cpus_in(masks[tu_rank]);

    if (bound) {
        expect_same_affinity(core, "Core, bound to a core");
        if (ncpus == 1)
            expect_same_affinity(pu, "PU, bound to a single PU");
    } else if (ncpus > 1) {
        expect_null(pu, "PU, unbound on several PUs");
        if (core != MPI_COMM_NULL)
            expect_congruent(core, host, "Core, unbound");
    }
    free_unless_null(&pu);
    free_unless_null(&core);
}

/* The info of an HW_UNGUIDED result names the resource it split at. */
static void expect_resource_named(MPI_Comm c, int level)
{
    MPI_Info info;
    char value[MPI_MAX_INFO_VAL + 1];
    int len = MPI_MAX_INFO_VAL, flag = 0;

    MPI_Comm_get_info(c, &info);
    MPI_Info_get_string(info, "mpi_hw_resource_type", &len, value, &flag);
    MPI_Info_free(&info);
    TU_CHECK(flag && value[0], "HW_UNGUIDED level %d: no mpi_hw_resource_type in its info",
             level);
}

/* Splits again and again: each level strictly smaller, down to NULL. */
static void unguided(int bound)
{
    MPI_Comm parent = MPI_COMM_WORLD, c;
    int parent_size = tu_size, levels = 0, others_differ = 0;

    for (int r = 0; r < tu_size; r++)
        others_differ |= !same_mask(masks[r], masks[tu_rank]);
    for (;;) {
        int size;

        MPI_Comm_split_type(parent, MPI_COMM_TYPE_HW_UNGUIDED, 0, MPI_INFO_NULL, &c);
        if (parent != MPI_COMM_WORLD)
            MPI_Comm_free(&parent);
        if (c == MPI_COMM_NULL)
            break;
        MPI_Comm_size(c, &size);
        TU_CHECK(size < parent_size, "HW_UNGUIDED level %d: size %d is not below %d", levels,
                 size, parent_size);
        expect_resource_named(c, levels);
        parent = c;
        parent_size = size;
        levels++;
    }
    TU_CHECK(!(bound && others_differ) || levels > 0,
             "HW_UNGUIDED did not split ranks bound to different cores");
    TU_CHECK(tu_size > 1 || levels == 0, "HW_UNGUIDED split a single process");
}

static void resource_guided(MPI_Comm host)
{
    MPI_Comm c;
    int size;

    c = split_hw(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://WORLD");
    expect_congruent(c, MPI_COMM_WORLD, "RESOURCE_GUIDED mpi://WORLD");
    MPI_Comm_free(&c);
    c = split_hw(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://SELF");
    TU_CHECK(c != MPI_COMM_NULL, "RESOURCE_GUIDED mpi://SELF: MPI_COMM_NULL");
    MPI_Comm_size(c, &size);
    TU_CHECK(size == 1, "RESOURCE_GUIDED mpi://SELF: size %d", size);
    MPI_Comm_free(&c);
    c = split_hw(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "app://nothing");
    expect_null(c, "RESOURCE_GUIDED of an unknown process set");
    c = split_hw(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_hw_resource_type", "mpi_shared_memory");
    expect_congruent(c, host, "RESOURCE_GUIDED mpi_shared_memory");
    MPI_Comm_free(&c);
}

static void odd_types(void)
{
    MPI_Comm c = MPI_COMM_WORLD;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &c);
    expect_null(c, "split_type MPI_UNDEFINED");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    tu_expect_class(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &c),
                    MPI_ERR_ARG, "split_type 12345");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int bound = argc > 1 && strcmp(argv[1], "bound") == 0, mine[MASK_WORDS];

    tu_init(&argc, &argv, "split_type");
    TU_CHECK(tu_size <= 1024, "more ranks than the test holds");
    my_mask(mine);
    tu_allgather_ints(mine, MASK_WORDS, &masks[0][0], MPI_COMM_WORLD);

    MPI_Comm host = shared();
    guided_host(host);
    guided_cores(host, bound);
    unguided(bound);
    resource_guided(host);
    odd_types();
    MPI_Comm_free(&host);
    MPI_Barrier(MPI_COMM_WORLD);
    if (tu_rank == 0)
        printf("split_type: %d ranks OK%s\n", tu_size, bound ? " (bound)" : "");
    MPI_Finalize();
    return 0;
}
