/* session: the session model (MPI-4.1 11.3) alone and beside the world
 * model. Usage: session NP MODE [TAG]. Each mode checks, in every session
 * it opens, the process sets (mpi://WORLD, mpi://SELF, then one
 * ompi-lite://host/<name> per host, the length protocol of
 * MPI_Session_get_nth_pset, "mpi_size"), the groups made from them (size,
 * members, this process's rank), a communicator from mpi://WORLD whose
 * allreduce gives the right sums, and a communicator from this host's set
 * whose members all run on this host. Modes:
 *   session-first   a session, MPI_Init, MPI_Finalize, the session still
 *                   working, its finalize; then a new session (the runtime
 *                   starts again); errors and error handlers on the way
 *   world-first     MPI_Init, two sessions at once, their finalize, the
 *                   world still working, MPI_Finalize, then a session
 *   init-after      a session, its finalize (the runtime ends), then
 *                   MPI_Init and MPI_Finalize
 *   repeat          five sessions one after the other, each the only one
 *   list            rank 0 prints "pset NAME MPI_SIZE" for each set
 *   null-fatal      MPI_Group_from_session_pset on MPI_SESSION_NULL under
 *                   the default handler: the job must end, saying so
 *   name-fatal      an unknown process set name under a session whose
 *                   handler is MPI_ERRORS_ARE_FATAL: the same
 * Prints "session: MODE OK" at rank 0. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int np;    /* the job's size, from the command line */
static int me;    /* rank in mpi://WORLD */

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "session: rank %d: ", me);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1); /* the launcher ends the job: no communicator is needed */
}

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) \
            die(__VA_ARGS__); \
    } while (0)

#define OK(call) \
    do { \
        int rc_ = (call); \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_); \
    } while (0)

static int class_of(int err)
{
    int cls = -1;
    MPI_Error_class(err, &cls);
    return cls;
}

static void expect_class(int err, int want, const char *what)
{
    int cls = err == MPI_SUCCESS ? MPI_SUCCESS : class_of(err);
    CHECK(cls == want, "%s: returned %d (class %d), expected class %d", what, err, cls, want);
}

/* ---- process sets ---------------------------------------------------------- */

static char *nth_pset(MPI_Session s, int n)
{
    int len = 0;
    OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &len, NULL));
    CHECK(len > 1 && len < 1024, "pset %d: length %d", n, len);
    char *name = malloc((size_t)len);
    int given = len;
    OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &given, name));
    CHECK(given == len && (int)strlen(name) + 1 == len, "pset %d: \"%s\" has length %d, said %d",
          n, name, given, len);
    /* A short buffer gets the name cut, terminated, and the full length. */
    char cut[4] = "xxx";
    given = 3;
    OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, n, &given, cut));
    CHECK(given == len && strncmp(cut, name, 2) == 0 && cut[2] == '\0',
          "pset %d cut to 3 bytes: \"%s\", length %d", n, cut, given);
    return name;
}

static int pset_size(MPI_Session s, const char *name)
{
    MPI_Info info;
    char value[32];
    int flag = 0;
    OK(MPI_Session_get_pset_info(s, name, &info));
    OK(MPI_Info_get_string(info, "mpi_size", &(int){sizeof(value)}, value, &flag));
    CHECK(flag, "%s: no mpi_size in its info", name);
    OK(MPI_Info_free(&info));
    return atoi(value);
}

static MPI_Group pset_group(MPI_Session s, const char *name)
{
    MPI_Group g;
    OK(MPI_Group_from_session_pset(s, name, &g));
    return g;
}

/* World ranks of g's members, checked to be increasing. */
static void check_members_ordered(MPI_Group g, MPI_Group world, const char *name)
{
    int n;
    OK(MPI_Group_size(g, &n));
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        in[i] = i;
    OK(MPI_Group_translate_ranks(g, n, in, world, out));
    for (int i = 0; i < n; i++)
        CHECK(out[i] >= 0 && out[i] < np && (i == 0 || out[i] > out[i - 1]),
              "%s: member %d is world rank %d", name, i, out[i]);
    free(in);
    free(out);
}

static const char *processor_name(void)
{
    static char name[MPI_MAX_PROCESSOR_NAME];
    int len;
    OK(MPI_Get_processor_name(name, &len));
    return name;
}

/* A communicator over a group of s, checked with an allreduce: the sum of
 * (rank + 1) and a vector whose element i sums to n * i + rank sum. */
static MPI_Comm comm_from(MPI_Group g, const char *tag)
{
    MPI_Comm c;
    OK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
    int n, r, gr;
    OK(MPI_Comm_size(c, &n));
    OK(MPI_Comm_rank(c, &r));
    OK(MPI_Group_rank(g, &gr));
    CHECK(r == gr, "%s: communicator rank %d, group rank %d", tag, r, gr);
    int one = r + 1, sum = 0;
    OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == n * (n + 1) / 2, "%s: allreduce sum %d, expected %d", tag, sum, n * (n + 1) / 2);
    enum { LEN = 10000 };
    double *v = malloc(sizeof(double) * LEN), *w = malloc(sizeof(double) * LEN);
    for (int i = 0; i < LEN; i++)
        v[i] = i + r;
    OK(MPI_Allreduce(v, w, LEN, MPI_DOUBLE, MPI_SUM, c));
    for (int i = 0; i < LEN; i++)
        CHECK(w[i] == (double)n * i + n * (n - 1) / 2, "%s: element %d is %g", tag, i, w[i]);
    free(v);
    free(w);
    return c;
}

/* Every member of a host communicator reports this host's name. */
static void check_same_host(MPI_Comm c, const char *pset)
{
    int n;
    OK(MPI_Comm_size(c, &n));
    char *names = malloc((size_t)n * MPI_MAX_PROCESSOR_NAME);
    OK(MPI_Allgather(processor_name(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names,
                     MPI_MAX_PROCESSOR_NAME, MPI_CHAR, c));
    for (int i = 0; i < n; i++)
        CHECK(strcmp(names + (size_t)i * MPI_MAX_PROCESSOR_NAME, processor_name()) == 0,
              "%s: member %d runs on %s", pset, i, names + (size_t)i * MPI_MAX_PROCESSOR_NAME);
    free(names);
}

/* The sets of s, their groups and communicators; sets this process's
 * world rank (me). */
static void check_session(MPI_Session s, const char *tag)
{
    int npsets;
    OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets));
    CHECK(npsets >= 3, "%d process sets, expected WORLD, SELF and at least one host", npsets);
    char *world_name = nth_pset(s, 0), *self_name = nth_pset(s, 1);
    CHECK(strcmp(world_name, "mpi://WORLD") == 0, "pset 0 is %s", world_name);
    CHECK(strcmp(self_name, "mpi://SELF") == 0, "pset 1 is %s", self_name);
    CHECK(pset_size(s, world_name) == np, "mpi://WORLD has mpi_size %d", pset_size(s, world_name));
    CHECK(pset_size(s, self_name) == 1, "mpi://SELF has mpi_size %d", pset_size(s, self_name));

    MPI_Group world = pset_group(s, world_name), self = pset_group(s, self_name);
    int size, rank, zero = 0, self_in_world;
    OK(MPI_Group_size(world, &size));
    OK(MPI_Group_rank(world, &me));
    CHECK(size == np && me >= 0 && me < np, "mpi://WORLD group: size %d, rank %d", size, me);
    OK(MPI_Group_size(self, &size));
    OK(MPI_Group_rank(self, &rank));
    OK(MPI_Group_translate_ranks(self, 1, &zero, world, &self_in_world));
    CHECK(size == 1 && rank == 0 && self_in_world == me,
          "mpi://SELF group: size %d, rank %d, world rank %d", size, rank, self_in_world);
    CHECK(pset_size(s, "mpi://self") == 1, "mpi://self (lower case) is not mpi://SELF");

    /* Host sets: together every process once, this process in the set of
     * its own host, and only there. */
    char host_pset[MPI_MAX_PROCESSOR_NAME + 32];
    snprintf(host_pset, sizeof(host_pset), "ompi-lite://host/%s", processor_name());
    int total = 0, mine = 0;
    for (int i = 2; i < npsets; i++) {
        char *name = nth_pset(s, i);
        CHECK(strncmp(name, "ompi-lite://host/", 17) == 0, "pset %d is %s", i, name);
        MPI_Group g = pset_group(s, name);
        OK(MPI_Group_size(g, &size));
        OK(MPI_Group_rank(g, &rank));
        CHECK(size == pset_size(s, name) && size > 0, "%s: group size %d", name, size);
        check_members_ordered(g, world, name);
        CHECK((rank != MPI_UNDEFINED) == (strcmp(name, host_pset) == 0),
              "%s: this process (on %s) has rank %d there", name, processor_name(), rank);
        mine += rank != MPI_UNDEFINED;
        total += size;
        OK(MPI_Group_free(&g));
        free(name);
    }
    CHECK(total == np && mine == 1, "host sets hold %d processes, this one %d times", total, mine);

    char ctag[64];
    snprintf(ctag, sizeof(ctag), "session-test/%s/world", tag);
    MPI_Comm wcomm = comm_from(world, ctag);
    OK(MPI_Comm_free(&wcomm));

    MPI_Group host = pset_group(s, host_pset);
    snprintf(ctag, sizeof(ctag), "session-test/%s/host", tag);
    MPI_Comm hcomm = comm_from(host, ctag);
    check_same_host(hcomm, host_pset);
    OK(MPI_Comm_free(&hcomm));

    OK(MPI_Group_free(&host));
    OK(MPI_Group_free(&world));
    OK(MPI_Group_free(&self));
    free(world_name);
    free(self_name);
}

static MPI_Session open_session(const char *thread_level, MPI_Errhandler errh)
{
    MPI_Info info = MPI_INFO_NULL;
    if (thread_level) {
        OK(MPI_Info_create(&info));
        OK(MPI_Info_set(info, "thread_level", thread_level));
    }
    MPI_Session s = MPI_SESSION_NULL;
    OK(MPI_Session_init(info, errh, &s));
    CHECK(s != MPI_SESSION_NULL, "MPI_Session_init gave MPI_SESSION_NULL");
    if (info != MPI_INFO_NULL)
        OK(MPI_Info_free(&info));
    return s;
}

static void close_session(MPI_Session *s)
{
    OK(MPI_Session_finalize(s));
    CHECK(*s == MPI_SESSION_NULL, "MPI_Session_finalize left the handle set");
}

static void expect_world(int initialized, int finalized, const char *when)
{
    int i = -1, f = -1;
    OK(MPI_Initialized(&i));
    OK(MPI_Finalized(&f));
    CHECK(i == initialized && f == finalized, "%s: MPI_Initialized %d, MPI_Finalized %d", when, i,
          f);
}

/* ---- error handlers and bad input -------------------------------------------- */

static int handler_calls, handler_code;
static MPI_Session handler_session;

static void session_handler(MPI_Session *s, int *code, ...)
{
    handler_calls++;
    handler_session = *s;
    handler_code = *code;
}

static void comm_handler(MPI_Comm *c, int *code, ...)
{
    (void)c;
    (void)code;
}

/* Errors on a live session go to its handler. */
static void check_session_errors(MPI_Session s)
{
    MPI_Group g;
    MPI_Info info;
    char value[64];
    int flag = 0;
    OK(MPI_Session_get_info(s, &info));
    OK(MPI_Info_get_string(info, "thread_level", &(int){sizeof(value)}, value, &flag));
    CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0, "thread_level is %s",
          flag ? value : "not set");
    OK(MPI_Info_free(&info));

    /* MPI_ERRORS_RETURN, as the session was opened with. */
    expect_class(MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), MPI_ERR_ARG,
                 "MPI_Group_from_session_pset of an unknown name");
    expect_class(MPI_Session_get_pset_info(s, "ompi-lite://host/", &info), MPI_ERR_ARG,
                 "MPI_Session_get_pset_info of an unknown name");
    expect_class(MPI_Group_from_session_pset(s, NULL, &g), MPI_ERR_ARG,
                 "MPI_Group_from_session_pset of NULL");
    int len = 0;
    expect_class(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 1000, &len, NULL), MPI_ERR_ARG,
                 "MPI_Session_get_nth_pset past the last set");

    /* A user handler: called with the session and the code, which the call
     * returns. */
    MPI_Errhandler eh, got, ceh;
    OK(MPI_Session_create_errhandler(session_handler, &eh));
    OK(MPI_Session_set_errhandler(s, eh));
    OK(MPI_Session_get_errhandler(s, &got));
    CHECK(got == eh, "MPI_Session_get_errhandler gave another handler");
    OK(MPI_Errhandler_free(&got));
    OK(MPI_Errhandler_free(&eh)); /* the session keeps its reference */
    int err = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
    CHECK(handler_calls == 1 && handler_session == s && class_of(handler_code) == MPI_ERR_ARG &&
              err == handler_code,
          "unknown name under a user handler: %d calls, code %d, returned %d", handler_calls,
          handler_code, err);
    OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
    CHECK(handler_calls == 2 && handler_code == MPI_ERR_OTHER,
          "MPI_Session_call_errhandler: %d calls, code %d", handler_calls, handler_code);

    /* A communicator's handler is no session's. */
    OK(MPI_Comm_create_errhandler(comm_handler, &ceh));
    expect_class(MPI_Session_set_errhandler(s, ceh), MPI_ERR_ERRHANDLER,
                 "MPI_Session_set_errhandler with a communicator's handler");
    CHECK(handler_calls == 3, "that error did not reach the session's handler");
    OK(MPI_Errhandler_free(&ceh));
    OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));

    /* Handle conversions. */
    CHECK(MPI_Session_fromint(MPI_Session_toint(s)) == s, "toint/fromint lose the session");
    CHECK(MPI_Session_f2c(MPI_Session_c2f(s)) == s, "c2f/f2c lose the session");
    CHECK(MPI_Session_fromint(MPI_Session_toint(MPI_SESSION_NULL)) == MPI_SESSION_NULL,
          "toint/fromint of MPI_SESSION_NULL");
}

/* Errors with no live session go to MPI_COMM_SELF's handler, which the
 * world model lets the program set. */
static void check_dead_sessions(void)
{
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    MPI_Group g;
    int n;
    expect_class(MPI_Group_from_session_pset(MPI_SESSION_NULL, "mpi://WORLD", &g),
                 MPI_ERR_SESSION, "MPI_Group_from_session_pset on MPI_SESSION_NULL");
    MPI_Session s = open_session(NULL, MPI_ERRORS_RETURN), old = s;
    close_session(&s);
    expect_class(MPI_Session_get_num_psets(old, MPI_INFO_NULL, &n), MPI_ERR_SESSION,
                 "MPI_Session_get_num_psets on a finalized session");
    expect_class(MPI_Session_finalize(&old), MPI_ERR_SESSION, "a second MPI_Session_finalize");
    MPI_Errhandler ceh;
    OK(MPI_Comm_create_errhandler(comm_handler, &ceh));
    expect_class(MPI_Session_init(MPI_INFO_NULL, ceh, &s), MPI_ERR_ERRHANDLER,
                 "MPI_Session_init with a communicator's handler");
    OK(MPI_Errhandler_free(&ceh));
    OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
}

/* ---- the world model beside ------------------------------------------------- */

static void check_world(void)
{
    int size, rank;
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(size == np && rank == me, "MPI_COMM_WORLD: size %d, rank %d (session said %d)", size,
          rank, me);
    int sum = 0;
    OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == np * (np - 1) / 2, "world allreduce: %d", sum);
}

/* ---- modes -------------------------------------------------------------------- */

static void session_first(void)
{
    expect_world(0, 0, "before anything");
    MPI_Session s = open_session("MPI_THREAD_MULTIPLE", MPI_ERRORS_RETURN);
    expect_world(0, 0, "with a session");
    check_session(s, "first");
    check_session_errors(s);
    int provided;
    OK(MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d", provided);
    expect_world(1, 0, "after MPI_Init");
    check_world();
    check_dead_sessions();
    OK(MPI_Finalize());
    expect_world(1, 1, "after MPI_Finalize");
    check_session(s, "after-finalize");
    close_session(&s);
    s = open_session(NULL, MPI_ERRORS_RETURN);
    check_session(s, "again");
    close_session(&s);
    expect_world(1, 1, "at the end");
}

static void world_first(void)
{
    OK(MPI_Init(NULL, NULL));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    MPI_Session a = open_session(NULL, MPI_ERRORS_RETURN);
    MPI_Session b = open_session(NULL, MPI_ERRORS_RETURN);
    CHECK(a != b, "two sessions share a handle");
    check_session(a, "a");
    check_session(b, "b");
    /* Groups of two sessions' WORLD are the same processes. */
    MPI_Group ga, gb;
    int result;
    OK(MPI_Group_from_session_pset(a, "mpi://WORLD", &ga));
    OK(MPI_Group_from_session_pset(b, "mpi://WORLD", &gb));
    OK(MPI_Group_compare(ga, gb, &result));
    CHECK(result == MPI_IDENT, "the two sessions' mpi://WORLD compare %d", result);
    /* Communicators of both at once, neither mixing with the other. */
    MPI_Comm ca = comm_from(ga, "session-test/two/a"), cb = comm_from(gb, "session-test/two/b");
    int x = me == 0 ? 111 : -1, y = me == np - 1 ? 222 : -1;
    OK(MPI_Bcast(&x, 1, MPI_INT, 0, ca));
    OK(MPI_Bcast(&y, 1, MPI_INT, np - 1, cb));
    CHECK(x == 111 && y == 222, "broadcasts on two sessions' communicators: %d %d", x, y);
    OK(MPI_Comm_free(&ca));
    OK(MPI_Comm_free(&cb));
    OK(MPI_Group_free(&ga));
    OK(MPI_Group_free(&gb));
    close_session(&a);
    check_world();
    close_session(&b);
    check_dead_sessions();
    check_world();
    OK(MPI_Finalize());
    MPI_Session s = open_session(NULL, MPI_ERRORS_RETURN);
    check_session(s, "after-world");
    close_session(&s);
}

static void init_after(void)
{
    MPI_Session s = open_session(NULL, MPI_ERRORS_RETURN);
    check_session(s, "before-init");
    close_session(&s);
    expect_world(0, 0, "after the session");
    OK(MPI_Init(NULL, NULL));
    check_world();
    OK(MPI_Finalize());
    expect_world(1, 1, "after MPI_Finalize");
}

static void repeat(void)
{
    for (int i = 0; i < 5; i++) {
        char tag[16];
        snprintf(tag, sizeof(tag), "repeat%d", i);
        MPI_Session s = open_session(NULL, MPI_ERRORS_RETURN);
        check_session(s, tag);
        close_session(&s);
    }
}

static void list(void)
{
    MPI_Session s = open_session(NULL, MPI_ERRORS_RETURN);
    MPI_Group world = pset_group(s, "mpi://WORLD");
    OK(MPI_Group_rank(world, &me));
    OK(MPI_Group_free(&world));
    int npsets;
    OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets));
    for (int i = 0; i < npsets && me == 0; i++) {
        char *name = nth_pset(s, i);
        printf("pset %s %d\n", name, pset_size(s, name));
        free(name);
    }
    close_session(&s);
}

static void fatal(const char *mode)
{
    MPI_Session s = open_session(NULL, MPI_ERRORS_ARE_FATAL);
    MPI_Group g;
    if (strcmp(mode, "null-fatal") == 0)
        MPI_Group_from_session_pset(MPI_SESSION_NULL, "mpi://WORLD", &g);
    else
        MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
    die("%s: the call returned", mode);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        die("usage: session NP MODE [TAG]");
    np = atoi(argv[1]);
    const char *mode = argv[2];
    if (strcmp(mode, "session-first") == 0)
        session_first();
    else if (strcmp(mode, "world-first") == 0)
        world_first();
    else if (strcmp(mode, "init-after") == 0)
        init_after();
    else if (strcmp(mode, "repeat") == 0)
        repeat();
    else if (strcmp(mode, "list") == 0)
        list();
    else if (strstr(mode, "-fatal"))
        fatal(mode);
    else
        die("unknown mode %s", mode);
    if (me == 0)
        printf("session: %s OK\n", mode);
    return 0;
}
