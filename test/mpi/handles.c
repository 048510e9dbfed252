/* handles: MPI_X_toint/MPI_X_fromint round trips for communicators, groups,
 * operations, info objects, error handlers, requests and messages:
 * predefined handles are their ABI value, null handles the null value, user
 * objects distinct ints that convert back to the same handle, also after
 * other objects were freed; an int that names nothing converts to null. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

static int rank, size;

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "handles: rank %d of %d: ", rank, size);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) \
            die(__VA_ARGS__); \
    } while (0)

/* A predefined handle's int is its value in the standard ABI. */
#define PREDEFINED(kind, h) \
    CHECK(MPI_##kind##_toint(h) == (int)(intptr_t)(h) && \
              MPI_##kind##_fromint((int)(intptr_t)(h)) == (h), \
          "%s does not convert to its ABI value", #h)

#define ROUND_TRIP(kind, h) \
    CHECK(MPI_##kind##_fromint(MPI_##kind##_toint(h)) == (h), "%s does not round-trip", #h)

static void predefined(void)
{
    PREDEFINED(Comm, MPI_COMM_WORLD);
    PREDEFINED(Comm, MPI_COMM_SELF);
    PREDEFINED(Comm, MPI_COMM_NULL);
    PREDEFINED(Group, MPI_GROUP_EMPTY);
    PREDEFINED(Group, MPI_GROUP_NULL);
    PREDEFINED(Op, MPI_SUM);
    PREDEFINED(Op, MPI_MAXLOC);
    PREDEFINED(Op, MPI_OP_NULL);
    PREDEFINED(Info, MPI_INFO_NULL);
    PREDEFINED(Info, MPI_INFO_ENV);
    PREDEFINED(Errhandler, MPI_ERRHANDLER_NULL);
    PREDEFINED(Errhandler, MPI_ERRORS_ARE_FATAL);
    PREDEFINED(Errhandler, MPI_ERRORS_ABORT);
    PREDEFINED(Errhandler, MPI_ERRORS_RETURN);
    PREDEFINED(Request, MPI_REQUEST_NULL);
    PREDEFINED(Message, MPI_MESSAGE_NULL);
    PREDEFINED(Message, MPI_MESSAGE_NO_PROC);
}

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
}

static void user_objects(void)
{
    MPI_Comm c1, c2, c3;
    MPI_Group g;
    MPI_Info info;
    MPI_Errhandler eh;
    MPI_Comm_dup(MPI_COMM_WORLD, &c1);
    MPI_Comm_dup(MPI_COMM_WORLD, &c2);
    MPI_Comm_group(c1, &g);
    MPI_Info_create(&info);
    MPI_Comm_create_errhandler(on_error, &eh);
    int i1 = MPI_Comm_toint(c1), i2 = MPI_Comm_toint(c2);
    CHECK(i1 != i2 && i1 != MPI_Comm_toint(MPI_COMM_NULL), "two communicators: %d, %d", i1, i2);
    CHECK(MPI_Comm_toint(c1) == i1, "a second toint of a communicator changed its int");
    ROUND_TRIP(Comm, c1);
    ROUND_TRIP(Comm, c2);
    ROUND_TRIP(Group, g);
    ROUND_TRIP(Info, info);
    ROUND_TRIP(Errhandler, eh);
    int ints[] = {MPI_Comm_toint(c1), MPI_Group_toint(g), MPI_Info_toint(info),
                  MPI_Errhandler_toint(eh)};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            CHECK(ints[i] != ints[j], "objects of two kinds share the int %d", ints[i]);
    /* an int of one kind is no handle of another */
    CHECK(MPI_Group_fromint(MPI_Comm_toint(c1)) == MPI_GROUP_NULL, "a comm's int as a group");
    CHECK(MPI_Info_fromint(MPI_Errhandler_toint(eh)) == MPI_INFO_NULL, "an errhandler as info");

    /* ints survive other objects' frees; new objects convert too */
    MPI_Comm_free(&c1);
    MPI_Info_free(&info);
    MPI_Comm_dup(MPI_COMM_WORLD, &c3);
    ROUND_TRIP(Comm, c3);
    CHECK(MPI_Comm_fromint(i2) == c2, "c2's int after freeing c1");
    MPI_Info_create(&info);
    ROUND_TRIP(Info, info);
    MPI_Info_free(&info);
    MPI_Errhandler_free(&eh);
    MPI_Group_free(&g);
    MPI_Comm_free(&c2);
    MPI_Comm_free(&c3);

    CHECK(MPI_Comm_fromint(-12345) == MPI_COMM_NULL, "fromint of -12345");
    CHECK(MPI_Info_fromint(0x7fffffff) == MPI_INFO_NULL, "fromint of 0x7fffffff");
}

static void requests_and_messages(void)
{
    int out = rank, in = -1, flag = 0;
    MPI_Request r;
    MPI_Message m;
    MPI_Irecv(&in, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_SELF, &r);
    ROUND_TRIP(Request, r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Isend(&out, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &r);
    ROUND_TRIP(Request, r);
    while (!flag)
        MPI_Improbe(0, 5, MPI_COMM_SELF, &flag, &m, MPI_STATUS_IGNORE);
    ROUND_TRIP(Message, m);
    MPI_Mrecv(&in, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(in == rank && m == MPI_MESSAGE_NULL, "the message to self");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    predefined();
    user_objects();
    requests_and_messages();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("handles: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
