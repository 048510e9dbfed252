/* comm_errh: user error handlers on communicators (called through the
 * error of a call and through MPI_Comm_call_errhandler, with the right
 * communicator and code; the call returns the code the handler leaves;
 * reference counts of get/free/set; inheritance by dup), bad handlers, and
 * the error classes, codes and strings a program adds and removes.
 *
 * With the argument "fatal" or "abort", rank 0 calls
 * MPI_Comm_call_errhandler on MPI_COMM_WORLD with an added code under
 * MPI_ERRORS_ARE_FATAL or MPI_ERRORS_ABORT: the job must end, saying so. */
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int rank, size;

static void die(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "comm_errh: rank %d of %d: ", rank, size);
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

static int error_class_of(int err)
{
    int cls = -1;
    MPI_Error_class(err, &cls);
    return cls;
}

static void expect_class(int err, int want, const char *what)
{
    int cls = err == MPI_SUCCESS ? MPI_SUCCESS : error_class_of(err);
    CHECK(cls == want, "%s: returned %d (class %d), expected class %d", what, err, cls, want);
}

/* What the handler saw, and the code it leaves (0: leave it as is). */
static int calls, seen_code, replace_with;
static MPI_Comm seen_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    seen_comm = *comm;
    seen_code = *code;
    if (replace_with)
        *code = replace_with;
}

static void user_handler(void)
{
    MPI_Comm dup, dup2;
    MPI_Errhandler eh, got;
    int buf = 0;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(dup, eh);
    MPI_Comm_get_errhandler(dup, &got);
    CHECK(got == eh, "MPI_Comm_get_errhandler returned another handler");
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh); /* dup still holds it */
    CHECK(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not reset");

    int err = MPI_Send(&buf, 1, MPI_INT, size + 5, 0, dup);
    CHECK(calls == 1 && seen_comm == dup, "MPI_Send error: %d calls, comm ok %d", calls,
          seen_comm == dup);
    expect_class(seen_code, MPI_ERR_RANK, "the code the handler saw");
    CHECK(err == seen_code, "MPI_Send returned %d, the handler saw %d", err, seen_code);

    /* the call returns the code the handler leaves */
    int mine;
    MPI_Add_error_class(&mine);
    replace_with = mine;
    err = MPI_Recv(&buf, 1, MPI_INT, 0, -7, dup, MPI_STATUS_IGNORE);
    CHECK(calls == 2 && err == mine, "the handler's code: returned %d, expected %d", err, mine);
    expect_class(seen_code, MPI_ERR_TAG, "the code of MPI_Recv with tag -7");
    replace_with = 0;

    /* MPI_Comm_call_errhandler: the handler gets the code; the call succeeds */
    err = MPI_Comm_call_errhandler(dup, mine);
    CHECK(err == MPI_SUCCESS && calls == 3 && seen_code == mine && seen_comm == dup,
          "MPI_Comm_call_errhandler: %d, %d calls, code %d", err, calls, seen_code);

    /* a dup inherits the handler */
    MPI_Comm_dup(dup, &dup2);
    MPI_Comm_call_errhandler(dup2, MPI_ERR_OTHER);
    CHECK(calls == 4 && seen_comm == dup2, "the dup's handler: %d calls", calls);
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&dup);

    /* MPI_ERRORS_RETURN through MPI_Comm_call_errhandler */
    CHECK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER) == MPI_SUCCESS && calls == 4,
          "MPI_Comm_call_errhandler under MPI_ERRORS_RETURN");
    MPI_Remove_error_class(mine);
}

static void predefined_and_bad_handlers(void)
{
    MPI_Errhandler eh, null = MPI_ERRHANDLER_NULL;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_get_errhandler(dup, &eh);
    CHECK(eh == MPI_ERRORS_ARE_FATAL, "the handler of dup is not MPI_ERRORS_ARE_FATAL");
    MPI_Errhandler_free(&eh); /* as for any handle get returns */
    CHECK(eh == MPI_ERRHANDLER_NULL, "freeing a predefined handler did not reset it");
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    CHECK(eh == MPI_ERRORS_RETURN, "the handler of MPI_COMM_WORLD");
    MPI_Errhandler_free(&eh);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    expect_class(MPI_Comm_set_errhandler(dup, MPI_ERRHANDLER_NULL), MPI_ERR_ERRHANDLER,
                 "setting MPI_ERRHANDLER_NULL");
    expect_class(MPI_Errhandler_free(&null), MPI_ERR_ERRHANDLER, "freeing MPI_ERRHANDLER_NULL");
    expect_class(MPI_Comm_create_errhandler(NULL, &eh), MPI_ERR_ARG, "a NULL function");
    MPI_Comm_free(&dup);
}

static void added_codes(void)
{
    int cls, code, code2, got, len, flag, *last;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Add_error_class(&cls);
    CHECK(cls > MPI_ERR_LASTCODE, "an added class %d <= MPI_ERR_LASTCODE", cls);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    CHECK(flag && *last == cls, "MPI_LASTUSEDCODE %d after adding %d", *last, cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_code(MPI_ERR_ARG, &code2); /* predefined classes take codes too */
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag);
    CHECK(code != cls && code2 != code && *last == code2, "codes %d %d, MPI_LASTUSEDCODE %d",
          code, code2, *last);
    CHECK(error_class_of(code) == cls && error_class_of(cls) == cls &&
              error_class_of(code2) == MPI_ERR_ARG,
          "MPI_Error_class of added codes");

    MPI_Error_string(code, text, &len);
    CHECK(len == 0 && text[0] == '\0', "the string of a code without one: \"%s\"", text);
    MPI_Add_error_string(cls, "my class");
    MPI_Add_error_string(code, "my code");
    MPI_Add_error_string(code, "my code, again"); /* replaces */
    MPI_Error_string(code, text, &len);
    CHECK(strcmp(text, "my code, again") == 0 && len == (int)strlen(text), "code string \"%s\"",
          text);
    MPI_Error_string(cls, text, &len);
    CHECK(strcmp(text, "my class") == 0, "class string \"%s\"", text);

    expect_class(MPI_Add_error_string(MPI_ERR_ARG, "no"), MPI_ERR_ARG,
                 "a string for a predefined class");
    expect_class(MPI_Add_error_code(code, &got), MPI_ERR_ARG, "a code of a code");
    expect_class(MPI_Remove_error_class(cls), MPI_ERR_ARG, "removing a class with codes");
    expect_class(MPI_Remove_error_code(cls), MPI_ERR_ARG, "removing a class as a code");
    MPI_Remove_error_string(code);
    expect_class(MPI_Remove_error_string(code), MPI_ERR_ARG, "removing an absent string");
    MPI_Remove_error_code(code);
    MPI_Remove_error_code(code2);
    MPI_Remove_error_class(cls);
    expect_class(MPI_Error_class(code, &got), MPI_ERR_ARG, "the class of a removed code");
    expect_class(MPI_Error_string(cls, text, &len), MPI_ERR_ARG, "the string of a removed class");
}

static void raise_fatal(MPI_Errhandler handler)
{
    int cls, code;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_string(code, "comm_errh deliberate error");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, handler);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
    else
        sleep(30); /* until the job is ended */
    die("still running after the error");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        raise_fatal(strcmp(argv[1], "abort") == 0 ? MPI_ERRORS_ABORT : MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    user_handler();
    predefined_and_bad_handlers();
    added_codes();

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_errh: %d ranks OK\n", size);
    MPI_Finalize();
    return 0;
}
