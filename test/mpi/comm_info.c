/* comm_info: info objects (keys in the order first set, replacing keeps the
 * place, the length limits and their error classes, get/get_string/
 * get_valuelen, delete of an absent key, dup independence), MPI_INFO_ENV
 * and MPI_Info_create_env (the same before MPI_Init), and communicator
 * hints: MPI_Comm_set_info merges the standard's hints and ignores other
 * keys, MPI_Comm_get_info returns a new object, dup inherits, dup_with_info
 * replaces. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "comm_info: rank %d of %d: ", rank, size);
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

static void expect_class(int err, int want, const char *what)
{
    int cls = -1;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    CHECK(cls == want, "%s: returned %d (class %d), expected class %d", what, err, cls, want);
}

/* "k1=v1,k2=v2" in nthkey order. */
static void expect_pairs(MPI_Info info, const char *want, const char *what)
{
    char got[4096] = "", key[MPI_MAX_INFO_KEY], value[MPI_MAX_INFO_VAL];
    int n, flag, len;
    MPI_Info_get_nkeys(info, &n);
    for (int i = 0; i < n; i++) {
        MPI_Info_get_nthkey(info, i, key);
        len = sizeof(value);
        MPI_Info_get_string(info, key, &len, value, &flag);
        CHECK(flag, "%s: key %s listed but not found", what, key);
        size_t at = strlen(got);
        snprintf(got + at, sizeof(got) - at, "%s%s=%s", i ? "," : "", key, value);
    }
    CHECK(strcmp(got, want) == 0, "%s: \"%s\", expected \"%s\"", what, got, want);
}

static void order_and_values(void)
{
    MPI_Info info, copy;
    char value[8];
    int flag, len;
    MPI_Info_create(&info);
    expect_pairs(info, "", "a new info");
    MPI_Info_set(info, "b", "2");
    MPI_Info_set(info, "a", "1");
    MPI_Info_set(info, "c", "three");
    MPI_Info_set(info, "b", "22"); /* keeps its place */
    expect_pairs(info, "b=22,a=1,c=three", "after four sets");
    MPI_Info_delete(info, "a");
    expect_pairs(info, "b=22,c=three", "after deleting a");
    expect_class(MPI_Info_delete(info, "a"), MPI_ERR_INFO_NOKEY, "deleting an absent key");

    MPI_Info_get_valuelen(info, "c", &len, &flag);
    CHECK(flag && len == 5, "valuelen of c: flag %d len %d", flag, len);
    MPI_Info_get_valuelen(info, "zz", &len, &flag);
    CHECK(!flag, "valuelen of an absent key");
    /* MPI_Info_get: valuelen characters and a NUL */
    memset(value, 'x', sizeof(value));
    MPI_Info_get(info, "c", 3, value, &flag);
    CHECK(flag && strcmp(value, "thr") == 0, "MPI_Info_get cut to 3: \"%s\"", value);
    /* MPI_Info_get_string: buflen in and out */
    len = 4;
    MPI_Info_get_string(info, "c", &len, value, &flag);
    CHECK(flag && len == 6 && strcmp(value, "thr") == 0, "get_string into 4: %d \"%s\"", len,
          value);
    len = 0;
    MPI_Info_get_string(info, "c", &len, NULL, &flag);
    CHECK(flag && len == 6, "get_string with buflen 0 gives %d", len);
    len = 7;
    MPI_Info_get_string(info, "nope", &len, value, &flag);
    CHECK(!flag && len == 7, "get_string of an absent key: flag %d len %d", flag, len);

    MPI_Info_dup(info, &copy);
    MPI_Info_set(copy, "d", "4");
    MPI_Info_set(info, "b", "5");
    expect_pairs(copy, "b=22,c=three,d=4", "the dup");
    expect_pairs(info, "b=5,c=three", "the original after changing the dup");
    MPI_Info_free(&copy);
    MPI_Info_free(&info);
    CHECK(info == MPI_INFO_NULL && copy == MPI_INFO_NULL, "MPI_Info_free did not reset");
}

static void limits(void)
{
    static char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
    char nth[MPI_MAX_INFO_KEY];
    MPI_Info info;
    int n;
    MPI_Info_create(&info);
    memset(key, 'k', MPI_MAX_INFO_KEY - 1);
    memset(value, 'v', MPI_MAX_INFO_VAL - 1);
    CHECK(MPI_Info_set(info, key, value) == MPI_SUCCESS, "the longest key and value");
    MPI_Info_get_nthkey(info, 0, nth);
    CHECK(strcmp(nth, key) == 0, "the longest key read back");
    key[MPI_MAX_INFO_KEY - 1] = 'k';
    expect_class(MPI_Info_set(info, key, "x"), MPI_ERR_INFO_KEY, "a key too long");
    expect_class(MPI_Info_set(info, "", "x"), MPI_ERR_INFO_KEY, "an empty key");
    value[MPI_MAX_INFO_VAL - 1] = 'v';
    expect_class(MPI_Info_set(info, "k", value), MPI_ERR_INFO_VALUE, "a value too long");
    expect_class(MPI_Info_get_nthkey(info, 1, nth), MPI_ERR_ARG, "nthkey past the end");
    expect_class(MPI_Info_get_nthkey(info, -1, nth), MPI_ERR_ARG, "nthkey -1");
    MPI_Info_get_nkeys(info, &n);
    CHECK(n == 1, "%d keys after the failed sets", n);
    MPI_Info_free(&info);
    expect_class(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO, "set on MPI_INFO_NULL");
    expect_class(MPI_Info_free(&info), MPI_ERR_INFO, "freeing MPI_INFO_NULL");
    expect_class(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO, "nkeys of MPI_INFO_NULL");
}

static void expect_key(MPI_Info info, const char *key, const char *want)
{
    char value[MPI_MAX_INFO_VAL];
    int flag, len = sizeof(value);
    MPI_Info_get_string(info, key, &len, value, &flag);
    CHECK(flag, "MPI_INFO_ENV has no key %s", key);
    CHECK(!want || strcmp(value, want) == 0, "MPI_INFO_ENV %s is \"%s\", expected \"%s\"", key,
          value, want);
}

static void info_env(char **argv)
{
    char wdir[MPI_MAX_INFO_VAL], maxprocs[16];
    MPI_Info env = MPI_INFO_ENV, made;
    getcwd(wdir, sizeof(wdir));
    snprintf(maxprocs, sizeof(maxprocs), "%d", size);
    expect_key(MPI_INFO_ENV, "command", argv[0]);
    expect_key(MPI_INFO_ENV, "argv", "one two");
    expect_key(MPI_INFO_ENV, "maxprocs", maxprocs);
    expect_key(MPI_INFO_ENV, "wdir", wdir);
    expect_key(MPI_INFO_ENV, "thread_level", "MPI_THREAD_SINGLE");
    expect_key(MPI_INFO_ENV, "host", NULL);
    expect_key(MPI_INFO_ENV, "arch", NULL);
    expect_class(MPI_Info_free(&env), MPI_ERR_INFO, "freeing MPI_INFO_ENV");
    expect_class(MPI_Info_set(MPI_INFO_ENV, "a", "b"), MPI_ERR_INFO, "setting MPI_INFO_ENV");

    char *args[] = {"prog", "x", "y z", NULL};
    MPI_Info_create_env(3, args, &made);
    char value[64];
    int flag, len = sizeof(value);
    MPI_Info_get_string(made, "command", &len, value, &flag);
    CHECK(flag && strcmp(value, "prog") == 0, "create_env command \"%s\"", value);
    len = sizeof(value);
    MPI_Info_get_string(made, "argv", &len, value, &flag);
    CHECK(flag && strcmp(value, "x y z") == 0, "create_env argv \"%s\"", value);
    MPI_Info_set(made, "mine", "1"); /* a new object: the program's to change */
    MPI_Info_free(&made);
}

/* MPI_Info_create_env called before MPI_Init says what it says after. */
static void env_before_init(MPI_Info before, int argc, char **argv)
{
    static const char *keys[] = {"command", "argv", "maxprocs", "soft", "host",
                                 "arch", "wdir", "file", "thread_level"};
    MPI_Info after;
    MPI_Info_create_env(argc, argv, &after);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        char was[MPI_MAX_INFO_VAL], is[MPI_MAX_INFO_VAL];
        int had, has, len = sizeof(was);
        MPI_Info_get_string(before, keys[i], &len, was, &had);
        len = sizeof(is);
        MPI_Info_get_string(after, keys[i], &len, is, &has);
        CHECK(had == has && (!had || strcmp(was, is) == 0),
              "create_env before MPI_Init: %s %s \"%s\", after: %s \"%s\"", keys[i],
              had ? "was" : "was absent", had ? was : "", has ? "is" : "is absent",
              has ? is : "");
    }
    MPI_Info_free(&after);
    MPI_Info_free(&before);
}

static void comm_hints(void)
{
    MPI_Comm dup, dup2, dup3;
    MPI_Info info, used;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_get_info(dup, &used);
    expect_pairs(used, "", "hints of a new communicator");
    MPI_Info_free(&used);

    /* The standard's hints are kept, other keys ignored (as MPICH and Open
     * MPI do), so that get_info says what the library knows. */
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Info_set(info, "my_hint", "1");
    MPI_Comm_set_info(dup, info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "changed after set_info");
    MPI_Comm_get_info(dup, &used);
    expect_pairs(used, "mpi_assert_no_any_tag=true", "after set_info");
    MPI_Info_set(used, "scratch", "x"); /* the program's own object */
    MPI_Info_free(&used);
    MPI_Info_free(&info);

    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_exact_length", "false");
    MPI_Comm_set_info(dup, info); /* others keep their values */
    MPI_Comm_get_info(dup, &used);
    expect_pairs(used, "mpi_assert_no_any_tag=true,mpi_assert_exact_length=false",
                 "after a second set_info");
    MPI_Info_free(&used);

    MPI_Comm_dup(dup, &dup2);
    MPI_Comm_get_info(dup2, &used);
    expect_pairs(used, "mpi_assert_no_any_tag=true,mpi_assert_exact_length=false", "hints of a dup");
    MPI_Info_free(&used);
    MPI_Info_set(info, "another_unknown_key", "2");
    MPI_Comm_dup_with_info(dup, info, &dup3);
    MPI_Comm_get_info(dup3, &used);
    expect_pairs(used, "mpi_assert_exact_length=false", "hints of dup_with_info");
    MPI_Info_free(&used);
    MPI_Info_free(&info);

    expect_class(MPI_Comm_set_info(dup, MPI_INFO_NULL), MPI_ERR_INFO, "set_info(MPI_INFO_NULL)");
    MPI_Comm_free(&dup);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup3);
}

int main(int argc, char **argv)
{
    MPI_Info before;
    MPI_Info_create_env(argc, argv, &before);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (argc != 3)
        die("run me with the arguments one two");

    order_and_values();
    limits();
    info_env(argv);
    env_before_init(before, argc, argv);
    comm_hints();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_info: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
