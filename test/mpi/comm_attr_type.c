/* comm_attr_type: attributes on datatypes (copied by MPI_Type_dup, deleted
 * by MPI_Type_free and MPI_Type_delete_attr, also on predefined types; a
 * failing copy callback fails the dup),
 * and window keyvals, which exist before windows do. */
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, size;

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "comm_attr_type: rank %d of %d: ", rank, size);
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

static int copies, deletes;
static MPI_Datatype seen_type;

static int copy_cb(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)keyval;
    (void)extra;
    copies++;
    seen_type = old;
    *(void **)out = (void *)((intptr_t)in * 2);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Datatype type, int keyval, void *value, void *extra)
{
    (void)keyval;
    (void)value;
    (void)extra;
    deletes++;
    seen_type = type;
    return MPI_SUCCESS;
}

static intptr_t get(MPI_Datatype t, int k, int *flag)
{
    void *v = NULL;
    int err = MPI_Type_get_attr(t, k, &v, flag);
    CHECK(err == MPI_SUCCESS, "MPI_Type_get_attr returned %d", err);
    return (intptr_t)v;
}

static void derived_types(int k)
{
    MPI_Datatype t, d;
    int flag;
    MPI_Type_contiguous(3, MPI_INT, &t);
    MPI_Type_set_attr(t, k, (void *)21);
    CHECK(get(t, k, &flag) == 21 && flag, "the value set on a derived type");
    MPI_Type_dup(t, &d);
    CHECK(copies == 1 && seen_type == t, "MPI_Type_dup: %d copies", copies);
    CHECK(get(d, k, &flag) == 42 && flag, "the copied value on the dup");
    MPI_Type_set_attr(d, k, (void *)5);
    CHECK(deletes == 1 && seen_type == d, "replacing on the dup: %d deletes", deletes);
    MPI_Type_free(&t);
    CHECK(deletes == 2 && t == MPI_DATATYPE_NULL, "MPI_Type_free: %d deletes", deletes);
    MPI_Type_delete_attr(d, k);
    CHECK(deletes == 3, "MPI_Type_delete_attr: %d deletes", deletes);
    get(d, k, &flag);
    CHECK(!flag, "the attribute is still set after MPI_Type_delete_attr");
    MPI_Type_free(&d);
    CHECK(deletes == 3, "freeing a type without attributes ran a delete callback");
}

static void predefined_types(int k)
{
    int flag;
    MPI_Type_set_attr(MPI_DOUBLE, k, (void *)8);
    CHECK(get(MPI_DOUBLE, k, &flag) == 8 && flag, "an attribute on MPI_DOUBLE");
    get(MPI_INT, k, &flag);
    CHECK(!flag, "MPI_INT has the attribute set on MPI_DOUBLE");
    MPI_Type_delete_attr(MPI_DOUBLE, k);
    CHECK(seen_type == MPI_DOUBLE, "the delete callback got another type");
}

static int failing_copy(MPI_Datatype old, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)old;
    (void)keyval;
    (void)extra;
    (void)in;
    (void)out;
    *flag = 1;
    return MPI_ERR_OTHER;
}

/* A failing copy callback fails MPI_Type_dup with its code and leaves
 * MPI_DATATYPE_NULL, not the handle of a type already freed. */
static void failed_dup(void)
{
    MPI_Datatype t, d = MPI_INT;
    int k, cls = -1;
    MPI_Type_create_keyval(failing_copy, MPI_TYPE_NULL_DELETE_FN, &k, NULL);
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_set_attr(t, k, (void *)1);
    int err = MPI_Type_dup(t, &d);
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_OTHER, "MPI_Type_dup with a failing copy callback returned %d", err);
    CHECK(d == MPI_DATATYPE_NULL, "the failed MPI_Type_dup left newtype not MPI_DATATYPE_NULL");
    MPI_Type_free(&t);
    MPI_Type_free_keyval(&k);
}

static void expect_keyval_error(int err, const char *what)
{
    int cls = -1;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_KEYVAL, "%s: returned %d, expected MPI_ERR_KEYVAL", what, err);
}

static void window_keyvals(void)
{
    int w1, w2, ck;
    MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &w1, NULL);
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &w2, NULL);
    CHECK(w1 != w2 && w1 != MPI_KEYVAL_INVALID, "window keyvals %d and %d", w1, w2);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ck, NULL);
    expect_keyval_error(MPI_Win_free_keyval(&ck), "MPI_Win_free_keyval of a comm keyval");
    expect_keyval_error(MPI_Comm_set_attr(MPI_COMM_WORLD, w1, NULL), "a window keyval on a comm");
    MPI_Win_free_keyval(&w1);
    MPI_Win_free_keyval(&w2);
    CHECK(w1 == MPI_KEYVAL_INVALID && w2 == MPI_KEYVAL_INVALID, "MPI_Win_free_keyval");
    int stale = ck;
    MPI_Comm_free_keyval(&ck);
    expect_keyval_error(MPI_Comm_free_keyval(&stale), "freeing a keyval twice");
}

int main(int argc, char **argv)
{
    int k;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    MPI_Type_create_keyval(copy_cb, delete_cb, &k, NULL);
    derived_types(k);
    predefined_types(k);
    failed_dup();
    expect_keyval_error(MPI_Comm_get_attr(MPI_COMM_WORLD, k, &(void *){NULL}, &(int){0}),
                        "a datatype keyval on a communicator");
    MPI_Type_free_keyval(&k);
    CHECK(k == MPI_KEYVAL_INVALID, "MPI_Type_free_keyval did not reset the keyval");
    window_keyvals();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_attr_type: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
