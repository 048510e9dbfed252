/* hw_resource: MPI_Get_hw_resource_info. Usage: hw_resource [bound].
 * Checks, in every process: the info has keys, each "hwloc://<type>" with
 * the value "true" or "false"; "hwloc://Machine" is "true"; "hwloc://PU"
 * is "true" exactly when the process may run on one CPU
 * (sched_getaffinity), and with "bound" (mpirun --bind-to core)
 * "hwloc://Core" is "true"; each key, given to MPI_Comm_split_type as
 * MPI_COMM_TYPE_RESOURCE_GUIDED's "mpi_hw_resource_type", gives a
 * communicator to the processes where it is "true" and MPI_COMM_NULL
 * where it is "false"; the info is a real one (MPI_Info_dup, _free); a
 * NULL hw_info is MPI_ERR_ARG. Prints "hw_resource: N ranks OK" at rank 0. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me;

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "hw_resource: rank %d: ", me); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
            exit(1); \
        } \
    } while (0)

#define OK(call) \
    do { \
        int rc_ = (call); \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); \
    } while (0)

/* The value of key in info: 1 "true", 0 "false", -1 absent. */
static int flag_of(MPI_Info info, const char *key)
{
    char value[16];
    int len = sizeof(value), found;
    OK(MPI_Info_get_string(info, key, &len, value, &found));
    if (!found)
        return -1;
    CHECK(strcmp(value, "true") == 0 || strcmp(value, "false") == 0,
          "%s has the value \"%s\", neither true nor false", key, value);
    return strcmp(value, "true") == 0;
}

static int cpus_allowed(void)
{
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof(set), &set) == 0, "sched_getaffinity failed");
    return CPU_COUNT(&set);
}

/* Every process splits by the same key (the keys come in the same order on
 * one host): those where it is true get a communicator of processes that
 * share that object, the others MPI_COMM_NULL. */
static void split_by(const char *key, int mine)
{
    MPI_Info hints;
    MPI_Comm comm;
    OK(MPI_Info_create(&hints));
    OK(MPI_Info_set(hints, "mpi_hw_resource_type", key));
    OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_RESOURCE_GUIDED, 0, hints, &comm));
    CHECK((comm != MPI_COMM_NULL) == mine, "split by %s (%s here) gave %s", key,
          mine ? "true" : "false", comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : "a communicator");
    if (comm != MPI_COMM_NULL)
        OK(MPI_Comm_free(&comm));
    OK(MPI_Info_free(&hints));
}

int main(int argc, char **argv)
{
    int bound = argc > 1 && strcmp(argv[1], "bound") == 0, np;
    OK(MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    MPI_Info info, copy;
    OK(MPI_Get_hw_resource_info(&info));
    int nkeys;
    OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys >= 2, "only %d keys", nkeys);
    int all_same;
    OK(MPI_Allreduce(&nkeys, &all_same, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    CHECK(all_same == nkeys, "%d keys here, %d elsewhere on this host", nkeys, all_same);
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1];
        OK(MPI_Info_get_nthkey(info, i, key));
        CHECK(strncmp(key, "hwloc://", 8) == 0 && key[8], "key %d is \"%s\"", i, key);
        split_by(key, flag_of(info, key));
    }
    CHECK(flag_of(info, "hwloc://Machine") == 1, "hwloc://Machine is not true");
    int pu = flag_of(info, "hwloc://PU");
    CHECK(pu == (cpus_allowed() == 1), "hwloc://PU is %d, but the process may run on %d CPUs", pu,
          cpus_allowed());
    if (bound)
        CHECK(flag_of(info, "hwloc://Core") == 1, "bound to a core, but hwloc://Core is not true");

    OK(MPI_Info_dup(info, &copy));
    OK(MPI_Info_free(&copy));
    OK(MPI_Info_free(&info));
    int rc = MPI_Get_hw_resource_info(NULL), cls = rc;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_ARG, "a NULL hw_info gave class %d, not MPI_ERR_ARG", cls);

    OK(MPI_Finalize());
    if (me == 0)
        printf("hw_resource: %d ranks OK%s\n", np, bound ? " (bound)" : "");
    return 0;
}
