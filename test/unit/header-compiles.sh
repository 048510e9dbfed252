#!/bin/sh
# Checks that mpi.h
#  1. compiles without a warning in a user program as C89, C99, C11, C++11
#     and C++17 (-Wall -Wextra -pedantic -Werror),
#  2. declares an MPI_ and a PMPI_ prototype for every function of
#     ompi-lite/abi/functions.tsv, and functions.def lists exactly those,
#  3. is what ompi-lite/api/gen_mpi_h.py writes from the tables (--check).
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
CC=${CC:-cc}
CXX=${CXX:-c++}
PYTHON=${PYTHON:-python3}
include=$top_srcdir/ompi-lite/include
functions=$top_srcdir/ompi-lite/abi/functions.tsv
failed=0

fail() { echo "header-compiles: FAIL: $*"; failed=1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# A user program touching each sort of name the header gives: types, handle
# and sentinel constants, callback types, version macros in #if, prototypes.
# C89 rules (declarations first, no // comments) so one file serves all.
cat > "$tmp/user.c" <<'EOF'
#include <mpi.h>

#if MPI_VERSION != 5 || MPI_SUBVERSION != 0 || MPI_ABI_VERSION != 1
#error "version macros"
#endif

static void sum_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in; (void)inout; (void)len; (void)type;
}

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm; (void)keyval; (void)extra; (void)in; (void)out;
    *flag = 0;
    return MPI_SUCCESS;
}

static void handler_fn(MPI_Comm *comm, int *code, ...)
{
    (void)comm; (void)code;
}

int use_header(void);
int use_header(void)
{
    MPI_Status status;
    MPI_Request requests[2];
    MPI_Op op = MPI_OP_NULL;
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    MPI_User_function *user_fn = sum_fn;
    MPI_Comm_copy_attr_function *copy = copy_fn;
    MPI_Comm_errhandler_function *on_error = handler_fn;
    MPI_Aint disp = 0;
    MPI_Offset offset = MPI_DISPLACEMENT_CURRENT;
    MPI_Count count = 0;
    char name[MPI_MAX_PROCESSOR_NAME];
    int keyval = MPI_KEYVAL_INVALID, len = 0, err;

    status.MPI_SOURCE = MPI_ANY_SOURCE;
    requests[0] = requests[1] = MPI_REQUEST_NULL;
    err = MPI_Init(NULL, NULL);
    err |= MPI_Op_create(user_fn, 1, &op);
    err |= MPI_Comm_create_errhandler(on_error, &handler);
    err |= MPI_Comm_create_keyval(copy, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    err |= MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
    err |= MPI_Get_processor_name(name, &len);
    err |= MPI_Send(MPI_BOTTOM, 0, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    err |= MPI_Recv(name, (int)sizeof name, MPI_CHAR, MPI_ANY_SOURCE, MPI_ANY_TAG,
                    MPI_COMM_WORLD, &status);
    err |= MPI_Irecv(name, 1, MPI_CHAR, 0, 0, MPI_COMM_SELF, &requests[0]);
    err |= MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    err |= MPI_Allreduce(MPI_IN_PLACE, &disp, 1, MPI_AINT, MPI_SUM, MPI_COMM_WORLD);
    err |= MPI_Bcast_c(&offset, 1, MPI_OFFSET, 0, MPI_COMM_WORLD);
    err |= MPI_Get_count_c(&status, MPI_BYTE, &count);
    err |= MPI_Pcontrol(1, "phase");
    err |= MPI_Comm_toint(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)));
    err |= MPI_Finalize();
    return err + (int)MPI_Wtime() + status.MPI_ERROR;
}
EOF
cp "$tmp/user.c" "$tmp/user.cc"

for std in c89 c99 c11; do
    $CC -std=$std -Wall -Wextra -pedantic -Wstrict-prototypes -Werror -I"$include" \
        -c "$tmp/user.c" -o "$tmp/user.o" > "$tmp/cc.log" 2>&1 \
        || { cat "$tmp/cc.log"; fail "a user program does not compile cleanly as $std"; }
done
for std in c++11 c++17; do
    $CXX -std=$std -Wall -Wextra -pedantic -Werror -I"$include" \
        -c "$tmp/user.cc" -o "$tmp/user.o" > "$tmp/cc.log" 2>&1 \
        || { cat "$tmp/cc.log"; fail "a user program does not compile cleanly as $std"; }
done

# Every function's address, as both names. Casting to void (*)(void) is
# the portable way to hold any function pointer, and GCC exempts it from
# -Wcast-function-type; an undeclared name is an error.
{
    echo '#include <mpi.h>'
    echo 'typedef void (*any_fn)(void);'
    echo 'extern const any_fn abi_functions[];'
    echo 'const any_fn abi_functions[] = {'
    awk -F '\t' 'NR > 1 { printf "    (any_fn)%s, (any_fn)P%s,\n", $1, $1 }' "$functions"
    echo '    (any_fn)0'
    echo '};'
} > "$tmp/functions.c"
$CC -std=c11 -Wall -Wextra -pedantic -Werror -I"$include" \
    -c "$tmp/functions.c" -o "$tmp/functions.o" > "$tmp/cc.log" 2>&1 \
    || { grep -i 'error' "$tmp/cc.log"; fail "mpi.h lacks prototypes of functions.tsv"; }

# functions.def must list the functions of functions.tsv, no more, no less
# (and parse, which fntable checks line by line).
PYTHONDONTWRITEBYTECODE=1 "$PYTHON" - "$top_srcdir" <<'EOF' || fail "functions.def does not match functions.tsv"
import os, sys
top = sys.argv[1]
sys.path.insert(0, os.path.join(top, "ompi-lite", "api"))
import fntable
table = [f.name for f in fntable.load(os.path.join(top, "ompi-lite", "api", "functions.def"))]
with open(os.path.join(top, "ompi-lite", "abi", "functions.tsv")) as f:
    abi = [line.split("\t")[0] for line in f.read().splitlines()[1:]]
for name in sorted(set(abi) - set(table)):
    print("missing from functions.def:", name)
for name in sorted(set(table) - set(abi)):
    print("not in functions.tsv:", name)
sys.exit(0 if set(table) == set(abi) and len(table) == len(abi) else 1)
EOF

"$PYTHON" "$top_srcdir/ompi-lite/api/gen_mpi_h.py" --check \
    || fail "ompi-lite/include/mpi.h is not what gen_mpi_h.py writes"

[ $failed -eq 0 ] || exit 1
echo "header-compiles: mpi.h compiles as C89/C99/C11/C++11/C++17 and declares" \
     "$(($(wc -l < "$functions") - 1)) functions twice"
exit 0
