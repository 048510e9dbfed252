/* comm_attr: attributes on communicators, as MPI-4.1 chapter 7.7 says.
 * Copy callbacks run on MPI_Comm_dup in the order attributes were set,
 * their flag deciding what is copied; MPI_COMM_DUP_FN and
 * MPI_COMM_NULL_COPY_FN are never called; delete callbacks run on
 * MPI_Comm_delete_attr, when MPI_Comm_set_attr replaces a value, and on
 * MPI_Comm_free in the reverse order of setting; a failing copy callback
 * fails the dup with its code, a failing delete callback the free; a freed
 * keyval lives on in its attributes, which can be read and deleted by it, and freeing it
 * again then changes nothing; values go down dup chains; the
 * predefined attributes, on every communicator; the deprecated MPI-1 calls; bad
 * keyvals give MPI_ERR_KEYVAL. Every rank checks the same things. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "comm_attr: rank %d of %d: ", rank, size);
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

/* ---- a log of callbacks: "c<tag>" for copies, "d<tag>" for deletes ------ */

static char events[4096];

static void log_event(char kind, intptr_t tag)
{
    size_t n = strlen(events);
    snprintf(events + n, sizeof(events) - n, "%s%c%ld", n ? " " : "", kind, (long)tag);
}

static void expect_events(const char *want, const char *when)
{
    CHECK(strcmp(events, want) == 0, "%s: callbacks \"%s\", expected \"%s\"", when, events, want);
    events[0] = '\0';
}

/* extra_state is the tag of the keyval; values are small ints. A copy
 * callback copies with flag = (tag is odd), the value plus 100. */
static int copy_cb(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    log_event('c', (intptr_t)extra);
    *flag = (intptr_t)extra % 2;
    *(void **)out = (void *)((intptr_t)in + 100);
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)value;
    log_event('d', (intptr_t)extra);
    return MPI_SUCCESS;
}

static int make_keyval(MPI_Comm_copy_attr_function *copy, intptr_t tag)
{
    int k;
    if (MPI_Comm_create_keyval(copy, delete_cb, &k, (void *)tag) != MPI_SUCCESS)
        die("MPI_Comm_create_keyval failed");
    CHECK(k != MPI_KEYVAL_INVALID, "keyval is MPI_KEYVAL_INVALID");
    return k;
}

static intptr_t get(MPI_Comm comm, int keyval, int *flag)
{
    void *value = NULL;
    int err = MPI_Comm_get_attr(comm, keyval, &value, flag);
    CHECK(err == MPI_SUCCESS, "MPI_Comm_get_attr returned %d", err);
    return (intptr_t)value;
}

static void expect_value(MPI_Comm comm, int keyval, int want_flag, intptr_t want, const char *what)
{
    int flag;
    intptr_t value = get(comm, keyval, &flag);
    CHECK(flag == want_flag && (!flag || value == want), "%s: flag %d value %ld, expected %d %ld",
          what, flag, (long)value, want_flag, (long)want);
}

/* Copy callbacks in set order, flags respected; the DUP_FN keyval copies the
 * value as is, the NULL_COPY_FN one drops it; deletes in reverse order. */
static void callbacks_on_dup_and_free(void)
{
    MPI_Comm a, b;
    int k1 = make_keyval(copy_cb, 1), k2 = make_keyval(copy_cb, 2);
    int k3 = make_keyval(MPI_COMM_DUP_FN, 3), k4 = make_keyval(MPI_COMM_NULL_COPY_FN, 4);
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_set_attr(a, k2, (void *)20);
    MPI_Comm_set_attr(a, k4, (void *)40);
    MPI_Comm_set_attr(a, k1, (void *)10);
    MPI_Comm_set_attr(a, k3, (void *)30);
    expect_events("", "setting four attributes");
    MPI_Comm_dup(a, &b);
    expect_events("c2 c1", "MPI_Comm_dup");
    expect_value(b, k1, 1, 110, "k1 (flag 1) on the dup");
    expect_value(b, k2, 0, 0, "k2 (flag 0) on the dup");
    expect_value(b, k3, 1, 30, "k3 (MPI_COMM_DUP_FN) on the dup");
    expect_value(b, k4, 0, 0, "k4 (MPI_COMM_NULL_COPY_FN) on the dup");
    expect_value(a, k1, 1, 10, "k1 on the original");

    /* replacing runs the delete callback of the old value, once */
    MPI_Comm_set_attr(a, k2, (void *)21);
    expect_events("d2", "replacing k2");
    expect_value(a, k2, 1, 21, "k2 after replacing");
    MPI_Comm_delete_attr(a, k4);
    expect_events("d4", "MPI_Comm_delete_attr of k4");
    expect_value(a, k4, 0, 0, "k4 after deleting it");
    MPI_Comm_delete_attr(a, k4); /* not set: nothing to delete */
    expect_events("", "deleting k4 again");

    MPI_Comm_free(&b);
    expect_events("d3 d1", "freeing the dup");
    MPI_Comm_free(&a);
    expect_events("d3 d1 d2", "freeing the original");
    CHECK(a == MPI_COMM_NULL, "MPI_Comm_free did not set MPI_COMM_NULL");
    MPI_Comm_free_keyval(&k1);
    MPI_Comm_free_keyval(&k2);
    MPI_Comm_free_keyval(&k3);
    MPI_Comm_free_keyval(&k4);
    CHECK(k1 == MPI_KEYVAL_INVALID && k4 == MPI_KEYVAL_INVALID, "free_keyval did not reset");
    expect_events("", "freeing keyvals without attributes");
}

/* A keyval freed while attributes use it: no attribute can be set with it
 * any more, but its attributes are still copied and deleted with their
 * callbacks, and the program may still read them and delete them by the
 * old value (MPI-4.1 7.7.2: the references "need to be explicitly freed by
 * the program", by MPI_Comm_delete_attr or MPI_Comm_free). Once the last
 * one is gone, the value names nothing. */
static void keyval_freed_early(void)
{
    MPI_Comm a, b, c;
    int k = make_keyval(copy_cb, 5), old = k;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_set_attr(a, k, (void *)50);
    MPI_Comm_free_keyval(&k);
    CHECK(k == MPI_KEYVAL_INVALID, "freed keyval is %d", k);
    expect_value(a, old, 1, 50, "get with a freed keyval still in use");
    int again = old; /* freeing it again while in use changes nothing (as MPICH, Open MPI) */
    CHECK(MPI_Comm_free_keyval(&again) == MPI_SUCCESS && again == MPI_KEYVAL_INVALID,
          "a second free of a keyval still in use");
    expect_value(a, old, 1, 50, "get after the second free");
    expect_class(MPI_Comm_set_attr(a, old, NULL), MPI_ERR_KEYVAL, "set with a freed keyval");
    MPI_Comm_dup(a, &b);
    expect_events("c5", "dup with a freed keyval");
    MPI_Comm_dup(a, &c);
    expect_events("c5", "a second dup with a freed keyval");
    CHECK(MPI_Comm_delete_attr(c, old) == MPI_SUCCESS, "delete with a freed keyval in use failed");
    expect_events("d5", "deleting by a freed keyval");
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    expect_events("d5 d5", "freeing both communicators");
    void *v;
    int flag;
    expect_class(MPI_Comm_get_attr(c, old, &v, &flag), MPI_ERR_KEYVAL,
                 "get with a freed keyval no attribute uses");
    again = old;
    expect_class(MPI_Comm_free_keyval(&again), MPI_ERR_KEYVAL,
                 "free of a freed keyval no attribute uses");
    MPI_Comm_free(&c);
}

/* Values through a chain of dups: each copy adds 100. */
static void dup_chain(void)
{
    MPI_Comm c[5];
    int k = make_keyval(copy_cb, 7);
    MPI_Comm_dup(MPI_COMM_WORLD, &c[0]);
    MPI_Comm_set_attr(c[0], k, (void *)7);
    for (int i = 1; i < 5; i++) {
        MPI_Comm_dup(c[i - 1], &c[i]);
        expect_value(c[i], k, 1, 7 + 100 * i, "a value down the dup chain");
    }
    for (int i = 4; i >= 0; i--)
        MPI_Comm_free(&c[i]);
    MPI_Comm_free_keyval(&k);
    expect_events("c7 c7 c7 c7 d7 d7 d7 d7 d7", "the dup chain");
}

/* ---- failing callbacks ------------------------------------------------------ */

static int fail_copy(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c;
    (void)k;
    (void)extra;
    (void)in;
    (void)out;
    *flag = 1;
    log_event('c', 9);
    return MPI_ERR_OTHER;
}

static int fail_delete_once = 0;

static int maybe_fail_delete(MPI_Comm c, int k, void *value, void *extra)
{
    (void)c;
    (void)k;
    (void)value;
    (void)extra;
    log_event('d', 8);
    if (fail_delete_once) {
        fail_delete_once = 0;
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

static void failing_callbacks(void)
{
    MPI_Comm a, b = MPI_COMM_SELF; /* a failed dup must overwrite it */
    int k1 = make_keyval(copy_cb, 1), kf, kd;
    MPI_Comm_create_keyval(fail_copy, MPI_COMM_NULL_DELETE_FN, &kf, NULL);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, maybe_fail_delete, &kd, NULL);
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    MPI_Comm_set_attr(a, k1, (void *)1);
    MPI_Comm_set_attr(a, kf, (void *)2);
    /* the copy of k1 made before the failure is deleted again */
    expect_class(MPI_Comm_dup(a, &b), MPI_ERR_OTHER, "MPI_Comm_dup with a failing copy callback");
    CHECK(b == MPI_COMM_NULL, "the failed dup left newcomm other than MPI_COMM_NULL");
    expect_events("c1 c9 d1", "the failed dup");
    MPI_Comm_delete_attr(a, kf);

    /* a failing delete callback fails the free and leaves the communicator */
    MPI_Comm_set_attr(a, kd, (void *)3);
    fail_delete_once = 1;
    expect_class(MPI_Comm_free(&a), MPI_ERR_OTHER, "MPI_Comm_free with a failing delete");
    CHECK(a != MPI_COMM_NULL, "the failed free reset the handle");
    expect_value(a, k1, 1, 1, "k1 after the failed free");
    fail_delete_once = 1;
    expect_class(MPI_Comm_set_attr(a, kd, (void *)4), MPI_ERR_OTHER, "replace, delete failing");
    expect_value(a, kd, 1, 3, "kd after the failed replace");
    expect_events("d8 d8", "the failed free and replace");
    CHECK(MPI_Comm_free(&a) == MPI_SUCCESS, "the second MPI_Comm_free failed");
    expect_events("d8 d1", "the second free");
    MPI_Comm_free_keyval(&k1);
    MPI_Comm_free_keyval(&kf);
    MPI_Comm_free_keyval(&kd);
}

/* ---- predefined attributes -------------------------------------------------- */

static int predefined(int keyval, int *flag)
{
    int *value = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &value, flag);
    return *flag ? *value : 0;
}

static void predefined_attributes(void)
{
    int flag;
    int tag_ub = predefined(MPI_TAG_UB, &flag);
    CHECK(flag && tag_ub >= 32767, "MPI_TAG_UB: flag %d value %d", flag, tag_ub);
    CHECK(predefined(MPI_HOST, &flag) == MPI_PROC_NULL && flag, "MPI_HOST is not MPI_PROC_NULL");
    int io = predefined(MPI_IO, &flag);
    CHECK(flag && (io == MPI_ANY_SOURCE || io == rank), "MPI_IO is %d", io);
    int wtime_global = predefined(MPI_WTIME_IS_GLOBAL, &flag);
    CHECK(!flag || wtime_global == 0 || wtime_global == 1, "MPI_WTIME_IS_GLOBAL is %d",
          wtime_global);
    int appnum = predefined(MPI_APPNUM, &flag);
    CHECK(!flag || appnum == 0, "MPI_APPNUM of a one-program job is %d", appnum);
    int universe = predefined(MPI_UNIVERSE_SIZE, &flag);
    CHECK(!flag || universe >= size, "MPI_UNIVERSE_SIZE %d < size %d", universe, size);
    int last = predefined(MPI_LASTUSEDCODE, &flag);
    CHECK(flag && last >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE: flag %d value %d", flag, last);
    /* MPI_Attr_get, the deprecated name, sees them too */
    int *p;
    MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag);
    CHECK(flag && *p == tag_ub, "MPI_Attr_get of MPI_TAG_UB");

    /* on every communicator, as MPICH answers them (attr.c) */
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, 0, &split);
    MPI_Comm others[] = {dup, split, MPI_COMM_SELF};
    const char *names[] = {"a duplicate of MPI_COMM_WORLD", "a split", "MPI_COMM_SELF"};
    for (int c = 0; c < 3; c++) {
        p = NULL;
        MPI_Comm_get_attr(others[c], MPI_TAG_UB, &p, &flag);
        CHECK(flag && *p == tag_ub, "MPI_TAG_UB on %s: flag %d value %d", names[c], flag,
              flag ? *p : 0);
        p = NULL;
        MPI_Comm_get_attr(others[c], MPI_UNIVERSE_SIZE, &p, &flag);
        CHECK(flag && *p == universe, "MPI_UNIVERSE_SIZE on %s", names[c]);
    }
    expect_class(MPI_Comm_delete_attr(dup, MPI_TAG_UB), MPI_ERR_KEYVAL,
                 "deleting MPI_TAG_UB from a duplicate");
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);

    /* the program cannot change or free them */
    int key = MPI_TAG_UB;
    expect_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub), MPI_ERR_KEYVAL,
                 "setting MPI_TAG_UB");
    expect_class(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_IO), MPI_ERR_KEYVAL, "deleting MPI_IO");
    expect_class(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL, "freeing MPI_TAG_UB");
    CHECK(predefined(MPI_TAG_UB, &flag) == tag_ub && flag, "MPI_TAG_UB changed");
}

/* ---- the MPI-1 calls and bad keyvals ---------------------------------------- */

static void deprecated_calls(void)
{
    int k, flag;
    void *v;
    MPI_Comm dup;
    MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k, NULL);
    MPI_Attr_put(MPI_COMM_WORLD, k, (void *)77);
    MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag);
    CHECK(flag && v == (void *)77, "MPI_Attr_get after MPI_Attr_put");
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    expect_value(dup, k, 1, 77, "MPI_DUP_FN through MPI_Comm_dup");
    MPI_Attr_delete(MPI_COMM_WORLD, k);
    MPI_Attr_get(MPI_COMM_WORLD, k, &v, &flag);
    CHECK(!flag, "MPI_Attr_get after MPI_Attr_delete");
    MPI_Comm_free(&dup);
    MPI_Keyval_free(&k);
    CHECK(k == MPI_KEYVAL_INVALID, "MPI_Keyval_free did not reset the keyval");

    MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k, NULL);
    MPI_Attr_put(MPI_COMM_WORLD, k, (void *)1);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    expect_value(dup, k, 0, 0, "MPI_NULL_COPY_FN through MPI_Comm_dup");
    MPI_Comm_free(&dup);
    MPI_Attr_delete(MPI_COMM_WORLD, k);
    MPI_Keyval_free(&k);
}

static void bad_keyvals(void)
{
    int flag, k = MPI_KEYVAL_INVALID, tk;
    void *v;
    expect_class(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL,
                 "get with MPI_KEYVAL_INVALID");
    expect_class(MPI_Comm_set_attr(MPI_COMM_WORLD, 123456, NULL), MPI_ERR_KEYVAL,
                 "set with keyval 123456");
    expect_class(MPI_Comm_free_keyval(&k), MPI_ERR_KEYVAL, "free of MPI_KEYVAL_INVALID");
    /* a datatype keyval is no communicator keyval */
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &tk, NULL);
    expect_class(MPI_Comm_set_attr(MPI_COMM_WORLD, tk, NULL), MPI_ERR_KEYVAL,
                 "a datatype keyval on a communicator");
    expect_class(MPI_Comm_free_keyval(&tk), MPI_ERR_KEYVAL,
                 "MPI_Comm_free_keyval of a type keyval");
    MPI_Type_free_keyval(&tk);
    expect_class(MPI_Comm_set_attr(MPI_COMM_NULL, 1, NULL), MPI_ERR_COMM,
                 "set on MPI_COMM_NULL");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    callbacks_on_dup_and_free();
    keyval_freed_early();
    dup_chain();
    failing_callbacks();
    predefined_attributes();
    deprecated_calls();
    bad_keyvals();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_attr: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
