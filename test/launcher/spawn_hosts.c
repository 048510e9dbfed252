/* For the multi-host spawn test (spawn_netns.sh), plain MPI:
 *
 *   spawn_hosts NPARENTS NCHILDREN [KEY VALUE WHERE]
 *
 * World ranks 0..NPARENTS-1 spawn NCHILDREN copies of this program together
 * (the other world ranks only wait for them), with the info key KEY set to
 * VALUE ("host", "add-host", "hostfile") when given; WHERE is the host the
 * children must run on ("-": any), or "fail": the spawn must fail (the
 * parents print "parents: spawn failed: ERROR TEXT" and go on). Every
 * child finds its processor name, gathers its
 * siblings' (the children's MPI_Init and MPI_Allgather cross hosts when
 * they are placed on several), passes 256 KiB round the children's ring
 * (each child's data from its left neighbour: a peer's address comes from
 * its daemon, possibly on another host), answers every parent's token, and
 * prints
 *     child R of N on NAME: OK (children on NAME,NAME...)
 * The parents check the answers; rank 0 prints "parents: N children OK".
 * Any mismatch prints what was wrong and aborts. */
#include <mpi.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RING_INTS (64 * 1024)

static int world_rank;

static void fail(const char *what)
{
    fprintf(stderr, "spawn_hosts rank %d: %s\n", world_rank, what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check_rc(int rc, const char *call)
{
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(rc, text, &len);
        fprintf(stderr, "spawn_hosts rank %d: %s failed: %s\n", world_rank, call, text);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* "a,b": the distinct names of all (size entries of MPI_MAX_PROCESSOR_NAME). */
static void distinct_names(const char *all, int size, char *out, size_t cap)
{
    out[0] = '\0';
    for (int i = 0; i < size; i++) {
        const char *name = all + (size_t)i * MPI_MAX_PROCESSOR_NAME;
        int seen = 0;
        for (int k = 0; k < i && !seen; k++)
            seen = strcmp(name, all + (size_t)k * MPI_MAX_PROCESSOR_NAME) == 0;
        if (!seen && strlen(out) + strlen(name) + 2 < cap) {
            if (out[0] != '\0')
                strcat(out, ",");
            strcat(out, name);
        }
    }
}

static void ring_check(int rank, int size)
{
    int *out = malloc(RING_INTS * sizeof(int)), *in = malloc(RING_INTS * sizeof(int));
    if (out == NULL || in == NULL)
        fail("out of memory");
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < RING_INTS; i++)
        out[i] = rank * RING_INTS + i;
    check_rc(MPI_Sendrecv(out, RING_INTS, MPI_INT, next, 7, in, RING_INTS, MPI_INT, prev, 7, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE),
             "MPI_Sendrecv round the children");
    for (int i = 0; i < RING_INTS; i++) {
        if (in[i] != prev * RING_INTS + i)
            fail("wrong data from the left neighbour among the children");
    }
    free(out);
    free(in);
}

static void child(MPI_Comm parent, const char *want_host)
{
    int size, nparents, len;
    char name[MPI_MAX_PROCESSOR_NAME] = { 0 };
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_remote_size(parent, &nparents);
    MPI_Get_processor_name(name, &len);
    if (strcmp(want_host, "-") != 0 && strcmp(name, want_host) != 0) {
        fprintf(stderr, "spawn_hosts child %d: runs on %s, not on %s\n", world_rank, name, want_host);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    if (all == NULL)
        fail("out of memory");
    check_rc(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                           MPI_COMM_WORLD),
             "MPI_Allgather of the children's names");
    ring_check(world_rank, size);
    for (int p = 0; p < nparents; p++) {
        int token, answer = 1000 + world_rank;
        check_rc(MPI_Recv(&token, 1, MPI_INT, p, 1, parent, MPI_STATUS_IGNORE), "MPI_Recv from a parent");
        if (token != p)
            fail("a parent's token");
        check_rc(MPI_Send(&answer, 1, MPI_INT, p, 2, parent), "MPI_Send to a parent");
    }
    char hosts[1024];
    distinct_names(all, size, hosts, sizeof hosts);
    printf("child %d of %d on %s: OK (children on %s)\n", world_rank, size, name, hosts);
    fflush(stdout);
    free(all);
    check_rc(MPI_Comm_disconnect(&parent), "MPI_Comm_disconnect");
}

/* The spawn was to fail: say how, on every parent's behalf once. */
static void spawn_failed_as_expected(MPI_Comm group, int rc)
{
    int rank, len;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Comm_rank(group, &rank);
    if (rc == MPI_SUCCESS)
        fail("MPI_Comm_spawn succeeded where it had to fail");
    MPI_Error_string(rc, text, &len);
    if (rank == 0)
        printf("parents: spawn failed: %s\n", text);
}

static void parents(MPI_Comm group, const char *self, int nchildren, const char *key, const char *value,
                    const char *where)
{
    MPI_Info info = MPI_INFO_NULL;
    if (key != NULL) {
        MPI_Info_create(&info);
        MPI_Info_set(info, key, value);
    }
    char *args[] = { "child", (char *)where, NULL };
    int *codes = malloc((size_t)nchildren * sizeof(int));
    MPI_Comm inter;
    if (codes == NULL)
        fail("out of memory");
    MPI_Comm_set_errhandler(group, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_spawn(self, args, nchildren, info, 0, group, &inter, codes);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (strcmp(where, "fail") == 0) {
        spawn_failed_as_expected(group, rc);
        free(codes);
        return;
    }
    check_rc(rc, "MPI_Comm_spawn");
    for (int c = 0; c < nchildren; c++) {
        if (codes[c] != MPI_SUCCESS)
            fail("an error code of MPI_Comm_spawn");
    }
    int rank;
    MPI_Comm_rank(group, &rank);
    for (int c = 0; c < nchildren; c++)
        check_rc(MPI_Send(&rank, 1, MPI_INT, c, 1, inter), "MPI_Send to a child");
    for (int c = 0; c < nchildren; c++) {
        int answer;
        check_rc(MPI_Recv(&answer, 1, MPI_INT, c, 2, inter, MPI_STATUS_IGNORE), "MPI_Recv from a child");
        if (answer != 1000 + c)
            fail("a child's answer");
    }
    check_rc(MPI_Comm_disconnect(&inter), "MPI_Comm_disconnect");
    if (rank == 0)
        printf("parents: %d children OK\n", nchildren);
    free(codes);
}

int main(int argc, char **argv)
{
    MPI_Comm parent;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        child(parent, argc > 2 ? argv[2] : "-");
    } else {
        if (argc < 3) {
            fprintf(stderr, "usage: spawn_hosts NPARENTS NCHILDREN [KEY VALUE WHERE]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        int nparents = atoi(argv[1]);
        MPI_Comm group;
        MPI_Comm_split(MPI_COMM_WORLD, world_rank < nparents ? 0 : MPI_UNDEFINED, world_rank, &group);
        if (group != MPI_COMM_NULL) {
            bool keyed = argc > 5;
            parents(group, argv[0], atoi(argv[2]), keyed ? argv[3] : NULL, keyed ? argv[4] : NULL,
                    keyed ? argv[5] : "-");
            MPI_Comm_free(&group);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
