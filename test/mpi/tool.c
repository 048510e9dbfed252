/* tool: the tool information interface (MPI-4.1 chapter 15, MPI_T).
 *
 *   tool list        singleton: MPI_T before MPI_Init; prints every
 *                    control variable as "cvar NAME int|char VALUE" for
 *                    tool.sh to hold against ompi_lite_info --params
 *   tool structure   any MPI, any rank count: what the chapter promises of
 *                    every variable and category (names found by index and
 *                    back, reads of the announced count, read-only ones
 *                    refuse a write), the error classes of bad indices,
 *                    names, handles and sessions, MPI_T before MPI_Init and
 *                    after MPI_Finalize with its reference count
 *   tool own         ompi-lite, 2 or more ranks: a control variable set
 *                    through the environment (OMPI_LITE_YIELD_US=123), a
 *                    collective's variable written while MPI runs (not
 *                    before: MPI_T_ERR_CVAR_SET_NOT_NOW), a counter that
 *                    grows with rank 0's messages only while started, a
 *                    level that refuses start and reset
 *
 * Prints "tool: MODE OK" on success; a failed check prints what differed
 * and exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mode = "";

/* Checks the chapter leaves to the implementation (a null handle need not
 * be caught, MPICH 4.0 crashes on some) run on ompi-lite only. */
static int on_ompi_lite;

#define CHECK(cond, ...) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "tool %s: line %d: ", mode, __LINE__); \
            fprintf(stderr, __VA_ARGS__); \
            fprintf(stderr, "\n"); \
            exit(1); \
        } \
    } while (0)

#define EXPECT(call, code) \
    do { \
        int rc_ = (call); \
        CHECK(rc_ == (code), "%s returned %d, not %s (%d)", #call, rc_, #code, (code)); \
    } while (0)

#define OK(call) EXPECT(call, MPI_SUCCESS)

/* again: a second, nested start (Open MPI 4.1 leaves provided unset
 * there). */
static void tool_start(int again)
{
    int provided = -1;
    OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    if (!again || on_ompi_lite)
        CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d",
              provided);
}

/* One of the MPI_T_BIND_ constants (their values differ between MPIs, and
 * MPI_T_BIND_MPI_SESSION is MPI-4's). */
static int is_bind(int bind)
{
    static const int binds[] = {
        MPI_T_BIND_NO_OBJECT, MPI_T_BIND_MPI_COMM,    MPI_T_BIND_MPI_DATATYPE,
        MPI_T_BIND_MPI_ERRHANDLER, MPI_T_BIND_MPI_FILE, MPI_T_BIND_MPI_GROUP,
        MPI_T_BIND_MPI_OP,    MPI_T_BIND_MPI_REQUEST, MPI_T_BIND_MPI_WIN,
        MPI_T_BIND_MPI_MESSAGE, MPI_T_BIND_MPI_INFO,
#ifdef MPI_T_BIND_MPI_SESSION
        MPI_T_BIND_MPI_SESSION,
#endif
    };
    for (size_t i = 0; i < sizeof(binds) / sizeof(binds[0]); i++)
        if (bind == binds[i])
            return 1;
    return 0;
}

/* ---- control variables -------------------------------------------------- */

typedef struct {
    char name[256];
    MPI_Datatype type;
    int scope;
} cvar_info_t;

static void cvar_info(int i, cvar_info_t *v)
{
    int len = 0, verbosity = -1, bind = -1, desc_len = 0;
    MPI_T_enum enumtype;
    /* The length first (name_len 0), then the name in a buffer that size. */
    OK(MPI_T_cvar_get_info(i, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(len >= 2 && len <= (int)sizeof(v->name), "cvar %d: name length %d", i, len);
    int got = len;
    OK(MPI_T_cvar_get_info(i, v->name, &got, &verbosity, &v->type, &enumtype, NULL, &desc_len,
                           &bind, &v->scope));
    CHECK(got == len && (int)strlen(v->name) == len - 1, "cvar %d: name %s of %d, said %d", i,
          v->name, got, len);
    CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL,
          "cvar %s: verbosity %d", v->name, verbosity);
    CHECK(is_bind(bind), "cvar %s: bind %d", v->name, bind);
    CHECK(v->scope >= MPI_T_SCOPE_CONSTANT && v->scope <= MPI_T_SCOPE_ALL_EQ,
          "cvar %s: scope %d", v->name, v->scope);
    /* The length counts the null (Open MPI 4.1 says 0 for an empty one). */
    CHECK(desc_len >= (on_ompi_lite ? 2 : 0), "cvar %s: description length %d", v->name,
          desc_len);
    int back = -1;
    OK(MPI_T_cvar_get_index(v->name, &back));
    CHECK(back == i, "cvar %s: index %d, found at %d", v->name, i, back);
    /* A truncated name: 3 characters and the null, *len says 4. */
    char shortname[8] = "xxxxxxx";
    if (len <= 4)
        return; /* too short to cut */
    got = 4;
    OK(MPI_T_cvar_get_info(i, shortname, &got, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
    CHECK(got == 4 && strncmp(shortname, v->name, 3) == 0 && shortname[3] == '\0',
          "cvar %s: truncated to \"%s\", length %d", v->name, shortname, got);
}

/* The value as text: ints and strings (what tool.sh compares); other types
 * are read into a buffer of the announced count and left out. */
static void cvar_value(int i, const cvar_info_t *v, char *text, size_t size)
{
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    int count = -1;
    OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK(h != MPI_T_CVAR_HANDLE_NULL && count >= 0, "cvar %s: handle, count %d", v->name,
          count);
    /* Room for count elements of 16 bytes, the largest type a variable has. */
    char *buf = calloc((size_t)count + 1, 16);
    CHECK(buf, "out of memory");
    OK(MPI_T_cvar_read(h, buf));
    text[0] = '\0';
    if (v->type == MPI_INT && count == 1)
        snprintf(text, size, "%d", *(int *)buf);
    else if (v->type == MPI_CHAR) {
        CHECK(memchr(buf, '\0', (size_t)count + 1) != NULL, "cvar %s: no null in %d chars",
              v->name, count);
        snprintf(text, size, "%s", buf);
    }
    if (v->scope == MPI_T_SCOPE_CONSTANT || v->scope == MPI_T_SCOPE_READONLY)
        EXPECT(MPI_T_cvar_write(h, buf), MPI_T_ERR_CVAR_SET_NEVER);
    free(buf);
    OK(MPI_T_cvar_handle_free(&h));
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar %s: the freed handle is not null", v->name);
}

static int cvar_find(const char *name)
{
    int i = -1;
    OK(MPI_T_cvar_get_index(name, &i));
    return i;
}

static void check_cvars(int print)
{
    int n = -1;
    OK(MPI_T_cvar_get_num(&n));
    CHECK(n >= 0, "%d cvars", n);
    for (int i = 0; i < n; i++) {
        cvar_info_t v;
        char text[4096];
        cvar_info(i, &v);
        cvar_value(i, &v, text, sizeof(text));
        if (print)
            printf("cvar %s %s %s\n", v.name, v.type == MPI_INT ? "int" : "char", text);
    }
    if (on_ompi_lite) /* Open MPI 4.1 answers MPI_T_ERR_INVALID */
        EXPECT(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
               MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
    int i, count;
    MPI_T_cvar_handle h;
    EXPECT(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_cvar_get_index("no such variable", &i), MPI_T_ERR_INVALID_NAME);
    int value[4];
    if (on_ompi_lite)
        EXPECT(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, value), MPI_T_ERR_INVALID_HANDLE);
}

/* ---- categories ------------------------------------------------------------ */

static void check_categories(void)
{
    int ncat = -1, ncvar, npvar;
    OK(MPI_T_category_get_num(&ncat));
    OK(MPI_T_cvar_get_num(&ncvar));
    OK(MPI_T_pvar_get_num(&npvar));
    for (int c = 0; c < ncat; c++) {
        char name[256];
        int len = sizeof(name), nc = -1, np = -1, nsub = -1, back = -1;
        OK(MPI_T_category_get_info(c, name, &len, NULL, NULL, &nc, &np, &nsub));
        CHECK(nc >= 0 && np >= 0 && nsub >= 0, "category %s: %d %d %d", name, nc, np, nsub);
        OK(MPI_T_category_get_index(name, &back));
        CHECK(back == c, "category %s: index %d, found at %d", name, c, back);
        int *idx = malloc(sizeof(int) * (size_t)(nc + np + nsub + 1));
        CHECK(idx, "out of memory");
        OK(MPI_T_category_get_cvars(c, nc, idx));
        for (int k = 0; k < nc; k++)
            CHECK(idx[k] >= 0 && idx[k] < ncvar, "category %s: cvar %d", name, idx[k]);
        OK(MPI_T_category_get_pvars(c, np, idx));
        for (int k = 0; k < np; k++)
            CHECK(idx[k] >= 0 && idx[k] < npvar, "category %s: pvar %d", name, idx[k]);
        OK(MPI_T_category_get_categories(c, nsub, idx));
        for (int k = 0; k < nsub; k++)
            CHECK(idx[k] >= 0 && idx[k] < ncat && idx[k] != c, "category %s: sub %d", name,
                  idx[k]);
        free(idx);
    }
    int i, update = -1;
    EXPECT(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_T_ERR_INVALID_INDEX);
    EXPECT(MPI_T_category_get_index("no such category", &i), MPI_T_ERR_INVALID_NAME);
    OK(MPI_T_category_changed(&update));
}

/* ---- performance variables ------------------------------------------------- */

static void check_pvars(void)
{
    int n = -1;
    OK(MPI_T_pvar_get_num(&n));
    for (int i = 0; i < n; i++) {
        char name[256];
        int len = sizeof(name), cls = -1, ro = -1, cont = -1, atomic = -1, back = -1;
        MPI_Datatype type;
        OK(MPI_T_pvar_get_info(i, name, &len, NULL, &cls, &type, NULL, NULL, NULL, NULL, &ro,
                               &cont, &atomic));
        CHECK(cls >= MPI_T_PVAR_CLASS_STATE && cls <= MPI_T_PVAR_CLASS_GENERIC,
              "pvar %s: class %d", name, cls);
        OK(MPI_T_pvar_get_index(name, cls, &back));
        CHECK(back == i, "pvar %s: index %d, found at %d", name, i, back);
    }
    int i, count;
    MPI_T_pvar_session session;
    MPI_T_pvar_handle h;
    char name[64];
    int len = sizeof(name), cls, ro, cont, atomic;
    MPI_Datatype type;
    EXPECT(MPI_T_pvar_get_info(n, name, &len, NULL, &cls, &type, NULL, NULL, NULL, NULL, &ro,
                               &cont, &atomic),
           MPI_T_ERR_INVALID_INDEX);
    if (on_ompi_lite) /* MPICH 4.0 crashes here */
        EXPECT(MPI_T_pvar_get_index("no such variable", MPI_T_PVAR_CLASS_COUNTER, &i),
               MPI_T_ERR_INVALID_NAME);
    if (on_ompi_lite)
        EXPECT(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, 0, NULL, &h, &count),
               MPI_T_ERR_INVALID_SESSION);
    OK(MPI_T_pvar_session_create(&session));
    EXPECT(MPI_T_pvar_handle_alloc(session, n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    unsigned long long value[4];
    if (on_ompi_lite)
        EXPECT(MPI_T_pvar_read(session, MPI_T_PVAR_HANDLE_NULL, value),
               MPI_T_ERR_INVALID_HANDLE);
    OK(MPI_T_pvar_session_free(&session));
    CHECK(session == MPI_T_PVAR_SESSION_NULL, "the freed session is not null");
}

static void check_all(int print)
{
    check_cvars(print);
    check_categories();
    check_pvars();
}

/* ---- ompi-lite's own variables ----------------------------------------------- */

static int pvar_find(const char *name, int cls)
{
    int i = -1;
    OK(MPI_T_pvar_get_index(name, cls, &i));
    return i;
}

static unsigned long long read_counter(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0;
    OK(MPI_T_pvar_read(s, h, &v));
    return v;
}

/* Rank 0 sends n small messages to rank 1; everyone waits for the end. */
static void traffic(int rank, int n)
{
    int x = 0;
    for (int k = 0; k < n; k++) {
        if (rank == 0)
            OK(MPI_Send(&k, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
        else if (rank == 1)
            OK(MPI_Recv(&x, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_counter(int rank)
{
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h, level;
    int count;
    unsigned long long v;
    OK(MPI_T_pvar_session_create(&s));
    OK(MPI_T_pvar_handle_alloc(s, pvar_find("pt2pt_shm_messages_sent", MPI_T_PVAR_CLASS_COUNTER),
                               NULL, &h, &count));
    CHECK(count == 1, "count %d", count);
    /* Not started: traffic does not count. */
    traffic(rank, 5);
    CHECK(read_counter(s, h) == 0, "a handle not started counted");
    OK(MPI_T_pvar_start(s, h));
    traffic(rank, 20);
    v = read_counter(s, h);
    if (rank == 0)
        CHECK(v >= 20, "rank 0 sent 20 messages, the counter says %llu", v);
    OK(MPI_T_pvar_stop(s, h));
    unsigned long long stopped = read_counter(s, h);
    CHECK(stopped >= v, "stopping lost counts: %llu then %llu", v, stopped);
    traffic(rank, 10);
    CHECK(read_counter(s, h) == stopped, "a stopped handle counted on");
    OK(MPI_T_pvar_readreset(s, h, &v));
    CHECK(v == stopped && read_counter(s, h) == 0, "readreset: %llu (had %llu), then not 0", v,
          stopped);
    /* A level: continuous (no start, stop) and read-only (no reset). */
    OK(MPI_T_pvar_handle_alloc(s, pvar_find("pt2pt_sends_in_flight", MPI_T_PVAR_CLASS_LEVEL),
                               NULL, &level, &count));
    EXPECT(MPI_T_pvar_start(s, level), MPI_T_ERR_PVAR_NO_STARTSTOP);
    EXPECT(MPI_T_pvar_reset(s, level), MPI_T_ERR_PVAR_NO_WRITE);
    unsigned in_flight = 99;
    OK(MPI_T_pvar_read(s, level, &in_flight));
    CHECK(in_flight == 0, "%u sends in flight with none issued", in_flight);
    /* All handles: the level is passed over. */
    OK(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES));
    OK(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES));
    EXPECT(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &v), MPI_T_ERR_INVALID_HANDLE);
    OK(MPI_T_pvar_handle_free(s, &level));
    EXPECT(MPI_T_pvar_handle_free(s, &level), MPI_T_ERR_INVALID_HANDLE);
    MPI_T_pvar_handle stale = h;
    OK(MPI_T_pvar_session_free(&s));
    OK(MPI_T_pvar_session_create(&s));
    EXPECT(MPI_T_pvar_read(s, stale, &v), MPI_T_ERR_INVALID_HANDLE);
    OK(MPI_T_pvar_session_free(&s));
}

/* A variable a collective reads at each call: written while MPI runs. */
static void check_write(const char *name, int before_init)
{
    MPI_T_cvar_handle h;
    int count, scope;
    int i = cvar_find(name);
    OK(MPI_T_cvar_get_info(i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &scope));
    CHECK(scope == MPI_T_SCOPE_ALL_EQ, "%s: scope %d", name, scope);
    OK(MPI_T_cvar_handle_alloc(i, NULL, &h, &count));
    CHECK(count >= 5, "%s: count %d", name, count);
    char value[512] = "";
    if (before_init) {
        EXPECT(MPI_T_cvar_write(h, "ring"), MPI_T_ERR_CVAR_SET_NOT_NOW);
    } else {
        OK(MPI_T_cvar_write(h, "ring"));
        OK(MPI_T_cvar_read(h, value));
        CHECK(strcmp(value, "ring") == 0, "%s reads \"%s\" after writing ring", name, value);
        int sum = 0, one = 1, size;
        OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
        CHECK(sum == size, "allreduce with the ring forced: %d", sum);
        OK(MPI_T_cvar_write(h, ""));
    }
    OK(MPI_T_cvar_handle_free(&h));
    EXPECT(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE);
}

static void check_env_cvar(void)
{
    MPI_T_cvar_handle h;
    int count, value = -1;
    OK(MPI_T_cvar_handle_alloc(cvar_find("OMPI_LITE_YIELD_US"), NULL, &h, &count));
    OK(MPI_T_cvar_read(h, &value));
    CHECK(value == 123, "OMPI_LITE_YIELD_US=123 reads %d", value);
    EXPECT(MPI_T_cvar_write(h, &value), MPI_T_ERR_CVAR_SET_NEVER);
    OK(MPI_T_cvar_handle_free(&h));
}

/* ---- modes ----------------------------------------------------------------- */

static void before_and_after(void)
{
    int n;
    EXPECT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    EXPECT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
}

int main(int argc, char **argv)
{
    mode = argc > 1 ? argv[1] : "";
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    OK(MPI_Get_library_version(version, &len));
    on_ompi_lite = strstr(version, "ompi-lite") != NULL;
    int rank = 0, size = 1;
    if (strcmp(mode, "list") == 0) {
        before_and_after();
        tool_start(0);
        check_all(1);
        OK(MPI_T_finalize());
        printf("tool: list OK\n");
        return 0;
    }
    if (strcmp(mode, "structure") != 0 && strcmp(mode, "own") != 0) {
        fprintf(stderr, "usage: tool list|structure|own\n");
        return 2;
    }
    int own = strcmp(mode, "own") == 0;
    CHECK(!own || on_ompi_lite, "own checks ompi-lite's variables: %s", version);
    before_and_after();
    /* Twice: reference counted, one finalize leaves it running. */
    tool_start(0);
    tool_start(1);
    OK(MPI_T_finalize());
    check_all(0);
    if (own) {
        check_env_cvar();
        check_write("OMPI_LITE_ALLREDUCE_ALGORITHM", 1);
    }
    OK(MPI_Init(&argc, &argv));
    OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    check_all(0);
    if (own) {
        CHECK(size >= 2, "own needs 2 ranks");
        check_write("OMPI_LITE_ALLREDUCE_ALGORITHM", 0);
        check_counter(rank);
    }
    OK(MPI_Finalize());
    /* After MPI_Finalize: still running, until its last finalize. */
    check_all(0);
    OK(MPI_T_finalize());
    before_and_after();
    if (rank == 0)
        printf("tool: %s OK\n", mode);
    return 0;
}
