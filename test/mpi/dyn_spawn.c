/* MPI_Comm_spawn, MPI_Comm_spawn_multiple and MPI_Comm_get_parent
 * (dyn_spawn.sh). One program is parent and child:
 *
 *   dyn_spawn parent N            spawns N copies of itself ("child" mode)
 *                                 with argv and an env info key, checks the
 *                                 intercommunicator both ways, merges it
 *   dyn_spawn multiple            spawns two programs (itself twice, with
 *                                 different argv) in one call: APPNUM 0, 1
 *   dyn_spawn missing             spawns a program that does not exist:
 *                                 MPI_ERR_SPAWN with the path and errno text,
 *                                 every errcode set, the parents go on; then
 *                                 maxprocs 0 at the root: MPI_ERR_ARG on all
 *   dyn_spawn toomany N           spawns N more than the job has slots for
 *   dyn_spawn crash               the child dies; mpirun must end the job
 *   dyn_spawn nested              a child spawns a grandchild
 *   dyn_spawn universe N          MPI_UNIVERSE_SIZE is N (the slots mpirun
 *                                 was given), and N - size children fit
 *
 * A child checks its parent intercommunicator (remote size = the parents'
 * world size), receives the parents' token and answers with its own. */
#include "dyn_util.h"

#include <mpi.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char test_name[] = "dyn_spawn";
int world_rank;
static int world_size;
static const char *self_path;
/* The test's tag (the last argument, ol-test-...): passed on to every
 * child, so that the test finds any process left behind. */
static char *tag = "";

/* Parents: every parent sends its rank to every child, then each child
 * answers every parent with 1000 + its rank; then a merge (parents first)
 * and an allreduce over it. */
static void talk_to_children(MPI_Comm inter, int nchildren)
{
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    if (remote != nchildren)
        fail("children in the intercommunicator", remote, nchildren);
    for (int c = 0; c < nchildren; c++)
        check_rc(MPI_Send(&world_rank, 1, MPI_INT, c, 1, inter), "MPI_Send to a child");
    for (int c = 0; c < nchildren; c++) {
        int got;
        check_rc(MPI_Recv(&got, 1, MPI_INT, c, 2, inter, MPI_STATUS_IGNORE), "MPI_Recv");
        if (got != 1000 + c)
            fail("a child's answer", got, 1000 + c);
    }
    MPI_Comm all;
    check_rc(MPI_Intercomm_merge(inter, 0, &all), "MPI_Intercomm_merge");
    int rank, size, sum = 0;
    MPI_Comm_rank(all, &rank);
    MPI_Comm_size(all, &size);
    if (rank != world_rank || size != world_size + nchildren)
        fail("parent's rank in the merged communicator", rank, world_rank);
    check_rc(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, all), "MPI_Allreduce");
    if (sum != size * (size - 1) / 2)
        fail("allreduce over parents and children", sum, size * (size - 1) / 2);
    MPI_Comm_free(&all);
    check_rc(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
}

static void child(int argc, char **argv)
{
    MPI_Comm parent;
    check_rc(MPI_Comm_get_parent(&parent), "MPI_Comm_get_parent");
    if (parent == MPI_COMM_NULL)
        fail("a spawned process has a parent", 0, 1);
    if (argc < 4 || strcmp(argv[2], "arg with spaces") != 0)
        fail("the child's argv[2] is \"arg with spaces\"", argc, 4);
    int nparents = atoi(argv[3]);
    const char *env = getenv("OL_SPAWN_TEST");
    if (!env || strcmp(env, "from-info") != 0)
        fail("OL_SPAWN_TEST from the env info key is set", env != NULL, 1);
    int remote;
    MPI_Comm_remote_size(parent, &remote);
    if (remote != nparents)
        fail("parents in the parent intercommunicator", remote, nparents);
    for (int p = 0; p < nparents; p++) {
        int got;
        check_rc(MPI_Recv(&got, 1, MPI_INT, p, 1, parent, MPI_STATUS_IGNORE), "MPI_Recv");
        if (got != p)
            fail("a parent's token", got, p);
    }
    int answer = 1000 + world_rank;
    for (int p = 0; p < nparents; p++)
        check_rc(MPI_Send(&answer, 1, MPI_INT, p, 2, parent), "MPI_Send to a parent");
    MPI_Comm all;
    check_rc(MPI_Intercomm_merge(parent, 1, &all), "MPI_Intercomm_merge");
    int rank, size, sum = 0;
    MPI_Comm_rank(all, &rank);
    MPI_Comm_size(all, &size);
    if (rank != nparents + world_rank)
        fail("child's rank in the merged communicator", rank, nparents + world_rank);
    check_rc(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, all), "MPI_Allreduce");
    if (sum != size * (size - 1) / 2)
        fail("allreduce over parents and children", sum, size * (size - 1) / 2);
    MPI_Comm_free(&all);
    check_rc(MPI_Comm_disconnect(&parent), "MPI_Comm_disconnect");
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        fail("MPI_Comm_get_parent after the disconnect is MPI_COMM_NULL", 1, 0);
}

static MPI_Info env_info(void)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "env", "OL_SPAWN_TEST=from-info\nOTHER=1");
    return info;
}

static void parent(int n)
{
    char nparents[16];
    snprintf(nparents, sizeof(nparents), "%d", world_size);
    char *args[] = {"child", "arg with spaces", nparents, tag, NULL};
    MPI_Info info = env_info();
    int codes[64];
    MPI_Comm inter;
    int root = world_size - 1; /* the root need not be rank 0 */
    check_rc(MPI_Comm_spawn(self_path, args, n, info, root, MPI_COMM_WORLD, &inter, codes),
             "MPI_Comm_spawn");
    for (int i = 0; i < n; i++)
        if (codes[i] != MPI_SUCCESS)
            fail("errcode of a spawned process", codes[i], MPI_SUCCESS);
    MPI_Info_free(&info);
    talk_to_children(inter, n);
    int universe, flag, *value;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag);
    universe = flag ? *value : -1;
    if (universe < world_size)
        fail("MPI_UNIVERSE_SIZE is at least the job size", universe, world_size);
}

/* Two programs in one call: each child checks its MPI_APPNUM. */
static void multiple(void)
{
    char nparents[16];
    snprintf(nparents, sizeof(nparents), "%d", world_size);
    char *args0[] = {"child-app", "arg with spaces", nparents, "0", tag, NULL};
    char *args1[] = {"child-app", "arg with spaces", nparents, "1", tag, NULL};
    char *commands[] = {(char *)self_path, (char *)self_path};
    char **argvs[] = {args0, args1};
    int maxprocs[] = {1, 2};
    MPI_Info infos[] = {env_info(), env_info()};
    MPI_Comm inter;
    check_rc(MPI_Comm_spawn_multiple(2, commands, argvs, maxprocs, infos, 0, MPI_COMM_WORLD,
                                     &inter, MPI_ERRCODES_IGNORE),
             "MPI_Comm_spawn_multiple");
    MPI_Info_free(&infos[0]);
    MPI_Info_free(&infos[1]);
    talk_to_children(inter, 3);
}

static void child_app(int argc, char **argv)
{
    int *appnum, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
    int want = argc > 4 ? atoi(argv[4]) : -1;
    if (!flag || *appnum != want)
        fail("MPI_APPNUM of a program of MPI_Comm_spawn_multiple", flag ? *appnum : -1, want);
    child(argc, argv);
}

static void missing(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int codes[3] = {-1, -1, -1};
    MPI_Comm inter = MPI_COMM_WORLD;
    int rc = MPI_Comm_spawn("/nonexistent/ol-no-such-program", MPI_ARGV_NULL, 3, MPI_INFO_NULL,
                            0, MPI_COMM_WORLD, &inter, codes);
    int class = -1;
    MPI_Error_class(rc, &class);
    if (class != MPI_ERR_SPAWN)
        fail("error class of spawning a missing program", class, MPI_ERR_SPAWN);
    for (int i = 0; i < 3; i++)
        if (codes[i] == MPI_SUCCESS || codes[i] == -1)
            fail("errcode of a process that could not start", codes[i], MPI_ERR_SPAWN);
    if (inter != MPI_COMM_NULL)
        fail("intercomm after a failed spawn is MPI_COMM_NULL", 0, 1);
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    if (world_rank == 0)
        printf("missing program: %s\n", text);
    /* A bad argument only the root reads fails the call on every rank
     * (the others would otherwise wait for the root in the collective). */
    rc = MPI_Comm_spawn(self_path, MPI_ARGV_NULL, world_rank == 0 ? 0 : 1, MPI_INFO_NULL, 0,
                        MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Error_class(rc, &class);
    if (class != MPI_ERR_ARG)
        fail("error class of maxprocs 0 at the root", class, MPI_ERR_ARG);
}

static void too_many(int n)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char *args[] = {"child", "arg with spaces", "1", tag, NULL};
    MPI_Comm inter;
    int rc = MPI_Comm_spawn(self_path, args, n, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            MPI_ERRCODES_IGNORE);
    int class = -1;
    MPI_Error_class(rc, &class);
    if (class != MPI_ERR_SPAWN)
        fail("error class of spawning more processes than slots", class, MPI_ERR_SPAWN);
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    if (world_rank == 0)
        printf("too many: %s\n", text);
}

static void crash(void)
{
    char *args[] = {"crash-child", tag, NULL};
    MPI_Comm inter;
    check_rc(MPI_Comm_spawn(self_path, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            MPI_ERRCODES_IGNORE),
             "MPI_Comm_spawn");
    int never;
    MPI_Recv(&never, 1, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE); /* the child dies instead */
    fail("the job ends when a spawned process dies", 0, 1);
}

/* The universe is the slots: as many children as are left fit. */
static void fill_universe(int slots)
{
    int *value, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &value, &flag);
    if (!flag || *value != slots)
        fail("MPI_UNIVERSE_SIZE", flag ? *value : -1, slots);
    parent(slots - world_size);
}

static void nested(void)
{
    char *args[] = {"nested-child", tag, NULL};
    MPI_Comm inter;
    check_rc(MPI_Comm_spawn(self_path, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            MPI_ERRCODES_IGNORE),
             "MPI_Comm_spawn");
    int depth = 0;
    check_rc(MPI_Recv(&depth, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE), "MPI_Recv");
    if (depth != 2)
        fail("depth the grandchild reported through the child", depth, 2);
    check_rc(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
}

/* A child that spawns a grandchild, which sends 2 up to it; it passes it on. */
static void nested_child(int depth)
{
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL)
        fail("a nested child has a parent", 0, 1);
    int value = depth;
    if (depth == 1) {
        char *args[] = {"nested-grandchild", tag, NULL};
        MPI_Comm inter;
        check_rc(MPI_Comm_spawn(self_path, args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                                MPI_ERRCODES_IGNORE),
                 "MPI_Comm_spawn of the grandchild");
        check_rc(MPI_Recv(&value, 1, MPI_INT, 0, 3, inter, MPI_STATUS_IGNORE), "MPI_Recv");
        check_rc(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
    }
    int nparents;
    MPI_Comm_remote_size(parent, &nparents);
    for (int p = 0; p < nparents; p++)
        check_rc(MPI_Send(&value, 1, MPI_INT, p, 3, parent), "MPI_Send");
    check_rc(MPI_Comm_disconnect(&parent), "MPI_Comm_disconnect");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    self_path = argv[0];
    if (argc > 1 && strncmp(argv[argc - 1], "ol-test-", 8) == 0)
        tag = argv[argc - 1];
    const char *mode = argc > 1 ? argv[1] : "";
    int n = argc > 2 ? atoi(argv[2]) : 0;
    MPI_Comm parent_comm;
    MPI_Comm_get_parent(&parent_comm);
    if (strcmp(mode, "child") == 0)
        child(argc, argv);
    else if (strcmp(mode, "child-app") == 0)
        child_app(argc, argv);
    else if (strcmp(mode, "crash-child") == 0)
        raise(SIGKILL);
    else if (strcmp(mode, "nested-child") == 0)
        nested_child(1);
    else if (strcmp(mode, "nested-grandchild") == 0)
        nested_child(2);
    else if (parent_comm != MPI_COMM_NULL)
        fail("a process started by mpirun has no parent", 1, 0);
    else if (strcmp(mode, "parent") == 0)
        parent(n);
    else if (strcmp(mode, "multiple") == 0)
        multiple();
    else if (strcmp(mode, "missing") == 0)
        missing();
    else if (strcmp(mode, "toomany") == 0)
        too_many(n);
    else if (strcmp(mode, "crash") == 0)
        crash();
    else if (strcmp(mode, "nested") == 0)
        nested();
    else if (strcmp(mode, "universe") == 0)
        fill_universe(n);
    else
        fail("known mode", 0, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("dyn_spawn %s: OK (pid %d)\n", mode, (int)getpid());
    MPI_Finalize();
    return 0;
}
