/* The conversions of ol_fortran.h: sentinels, LOGICAL literals, arrays,
 * strings, attribute values, and telling the C library about the compiler. */
#include "ol_fortran.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sentinel COMMON blocks of mpif.h and the mpi module. A program's
 * COMMON binds to these definitions, and the glue, built -fPIC with them
 * visible, reaches them through the same symbols: one address each. */
OL_F_EXPORT MPI_Fint mpi_fortran_bottom_;
OL_F_EXPORT MPI_Fint mpi_fortran_in_place_;
OL_F_EXPORT MPI_Fint mpi_fortran_buffer_automatic_;
OL_F_EXPORT MPI_Fint mpi_fortran_errcodes_ignore_[1];
OL_F_EXPORT MPI_Fint mpi_fortran_unweighted_[1];
OL_F_EXPORT MPI_Fint mpi_fortran_weights_empty_[1];
OL_F_EXPORT char mpi_fortran_argv_null_[1];
OL_F_EXPORT char mpi_fortran_argvs_null_[1];

/* ---- the compiler's types ------------------------------------------------------ */

void ol_fortran_describe(int sizes[4], signed char true_bytes[16], signed char false_bytes[16],
                         int has_integer[5], int has_real[4]);

/* gfortran's until the constructor has asked the compiler. */
MPI_Fint ol_f_true = 1, ol_f_false = 0;

static struct {
    int sizes[4];
    signed char true_bytes[16], false_bytes[16];
    int has_integer[5], has_real[4];
} compiler;

/* At load time, before any conversion: the literals the glue converts with. */
__attribute__((constructor)) static void ask_compiler(void)
{
    ol_fortran_describe(compiler.sizes, compiler.true_bytes, compiler.false_bytes,
                        compiler.has_integer, compiler.has_real);
    if (compiler.sizes[1] == (int)sizeof(MPI_Fint)) {
        memcpy(&ol_f_true, compiler.true_bytes, sizeof(MPI_Fint));
        memcpy(&ol_f_false, compiler.false_bytes, sizeof(MPI_Fint));
    }
}

static void set_flag(MPI_Info info, const char *key, int yes)
{
    PMPI_Info_set(info, key, yes ? "true" : "false");
}

static void set_size(MPI_Info info, const char *key, int size)
{
    char text[16];
    snprintf(text, sizeof text, "%d", size);
    PMPI_Info_set(info, key, text);
}

static const char *const size_keys[4] = {"mpi_integer_size", "mpi_logical_size", "mpi_real_size",
                                         "mpi_double_precision_size"};
/* Sized INTEGER and LOGICAL types of 1 ... 16 bytes; REAL of 2 ... 16 and
 * the COMPLEX of twice their size. */
static const char *const integer_keys[5] = {"mpi_integer1_supported", "mpi_integer2_supported",
                                            "mpi_integer4_supported", "mpi_integer8_supported",
                                            "mpi_integer16_supported"};
static const char *const logical_keys[5] = {"mpi_logical1_supported", "mpi_logical2_supported",
                                            "mpi_logical4_supported", "mpi_logical8_supported",
                                            "mpi_logical16_supported"};
static const char *const real_keys[4] = {"mpi_real2_supported", "mpi_real4_supported",
                                         "mpi_real8_supported", "mpi_real16_supported"};
static const char *const complex_keys[4] = {"mpi_complex4_supported", "mpi_complex8_supported",
                                            "mpi_complex16_supported",
                                            "mpi_complex32_supported"};

static void register_types(void)
{
    MPI_Info info;
    if (PMPI_Info_create(&info) != MPI_SUCCESS)
        return;
    for (int i = 0; i < 4; i++)
        set_size(info, size_keys[i], compiler.sizes[i]);
    for (int i = 0; i < 5; i++) {
        set_flag(info, integer_keys[i], compiler.has_integer[i]);
        set_flag(info, logical_keys[i], compiler.has_integer[i]);
    }
    for (int i = 0; i < 4; i++) {
        set_flag(info, real_keys[i], compiler.has_real[i]);
        set_flag(info, complex_keys[i], compiler.has_real[i]);
    }
    set_flag(info, "mpi_double_complex_supported", 1);
    PMPI_Abi_set_fortran_info(info);
    PMPI_Info_free(&info);
    PMPI_Abi_set_fortran_booleans(compiler.sizes[1], compiler.true_bytes, compiler.false_bytes);
}

void ol_f_register_types(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_types);
}

/* ---- arrays ------------------------------------------------------------------ */

static void *array_for(MPI_Fint n, size_t size, void *stack)
{
    if (n <= OL_F_STACK_HANDLES)
        return stack; /* also n < 0: the C call refuses the count */
    return malloc((size_t)n * size);
}

void ol_f_release(void *array, void *stack)
{
    if (array != stack)
        free(array);
}

MPI_Request *ol_f_requests_in(const MPI_Fint *requests, MPI_Fint n, MPI_Request *stack)
{
    MPI_Request *c = array_for(n, sizeof(*c), stack);
    for (MPI_Fint i = 0; c && i < n; i++)
        c[i] = PMPI_Request_fromint(requests[i]);
    return c;
}

void ol_f_requests_out(MPI_Request *c_requests, MPI_Fint *requests, MPI_Fint n,
                       MPI_Request *stack)
{
    for (MPI_Fint i = 0; i < n; i++)
        requests[i] = PMPI_Request_toint(c_requests[i]);
    ol_f_release(c_requests, stack);
}

MPI_Datatype *ol_f_types_in(const MPI_Fint *types, MPI_Fint n, MPI_Datatype *stack, int convert)
{
    MPI_Datatype *c = array_for(n, sizeof(*c), stack);
    for (MPI_Fint i = 0; c && i < n; i++)
        c[i] = convert ? PMPI_Type_fromint(types[i]) : MPI_DATATYPE_NULL;
    return c;
}

void ol_f_types_out(MPI_Datatype *c_types, MPI_Fint *types, MPI_Fint n, MPI_Datatype *stack,
                    int convert)
{
    for (MPI_Fint i = 0; convert && i < n; i++)
        types[i] = PMPI_Type_toint(c_types[i]);
    ol_f_release(c_types, stack);
}

int *ol_f_logicals_in(const MPI_Fint *logicals, MPI_Fint n, int *stack, int convert)
{
    int *c = array_for(n, sizeof(*c), stack);
    for (MPI_Fint i = 0; c && i < n; i++)
        c[i] = convert ? ol_f_logical_in(logicals[i]) : 0;
    return c;
}

void ol_f_logicals_out(int *c_logicals, MPI_Fint *logicals, MPI_Fint n, int *stack, int convert)
{
    for (MPI_Fint i = 0; convert && i < n; i++)
        logicals[i] = ol_f_logical_out(c_logicals[i]);
    ol_f_release(c_logicals, stack);
}

int ol_f_cartdim(MPI_Comm comm)
{
    int ndims = 0, topology = MPI_UNDEFINED;
    if (PMPI_Topo_test(comm, &topology) != MPI_SUCCESS || topology != MPI_CART)
        return 0;
    return PMPI_Cartdim_get(comm, &ndims) == MPI_SUCCESS ? ndims : 0;
}

int ol_f_group_size(MPI_Comm comm)
{
    int inter = 0, size = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if ((inter ? PMPI_Comm_remote_size(comm, &size) : PMPI_Comm_size(comm, &size)) != MPI_SUCCESS)
        return 0;
    return size;
}

int ol_f_degree(MPI_Comm comm, int out)
{
    int topology = MPI_UNDEFINED, rank = 0, n = 0, indegree = 0, outdegree = 0, weighted = 0;
    if (PMPI_Topo_test(comm, &topology) != MPI_SUCCESS)
        return 0;
    switch (topology) {
    case MPI_CART:
        return 2 * ol_f_cartdim(comm);
    case MPI_GRAPH:
        if (PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS &&
            PMPI_Graph_neighbors_count(comm, rank, &n) == MPI_SUCCESS)
            return n;
        return 0;
    case MPI_DIST_GRAPH:
        if (PMPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted) ==
            MPI_SUCCESS)
            return out ? outdegree : indegree;
        return 0;
    default:
        return 0;
    }
}

/* ---- strings ------------------------------------------------------------------- */

char *ol_f_string_in(const char *string, size_t len, int strip_leading)
{
    size_t start = 0;
    while (len > 0 && string[len - 1] == ' ')
        len--;
    while (strip_leading && start < len && string[start] == ' ')
        start++;
    char *c = malloc(len - start + 1);
    if (c) {
        memcpy(c, string + start, len - start);
        c[len - start] = '\0';
    }
    return c;
}

void ol_f_string_out(char *string, size_t len, const char *c_string)
{
    size_t n = strlen(c_string);
    if (n > len)
        n = len;
    memcpy(string, c_string, n);
    memset(string + n, ' ', len - n);
}

/* ---- attributes -------------------------------------------------------------- */

MPI_Aint ol_f_attribute_value(MPI_Fint keyval, void *value, ol_f_attr_object_t on)
{
    static const int predefined[] = {MPI_TAG_UB,      MPI_IO,           MPI_HOST,
                                     MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_LASTUSEDCODE,
                                     MPI_UNIVERSE_SIZE};
    for (size_t i = 0; on == OL_F_ON_COMM && value && i < sizeof predefined / sizeof *predefined;
         i++)
        if (keyval == predefined[i])
            return *(const int *)value;
    /* A window's: its base is the address itself, its size an MPI_Aint,
     * the others ints (MPI-4.1 12.2.6). */
    if (on == OL_F_ON_WIN && value && keyval == MPI_WIN_SIZE)
        return *(const MPI_Aint *)value;
    if (on == OL_F_ON_WIN && value &&
        (keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR ||
         keyval == MPI_WIN_MODEL))
        return *(const int *)value;
    return ol_f_cell_value(value);
}

/* Cells are handed out from chunks that are never freed: whether a C
 * value is a cell is then whether it lies in a chunk, which is safe to ask
 * of any value C code stored (often a small integer cast to a pointer).
 * An attribute's cell may be shared by its copies (MPI_COMM_DUP_FN copies
 * the C value), so no cell is given back: a cell is 8 bytes per value a
 * Fortran program sets. */
#define CELLS_PER_CHUNK 1024
static struct cell_chunk {
    MPI_Aint cells[CELLS_PER_CHUNK];
    int used;
    struct cell_chunk *next;
} *cell_chunks;
static pthread_mutex_t cell_lock = PTHREAD_MUTEX_INITIALIZER;

MPI_Aint *ol_f_cell_new(MPI_Aint value)
{
    MPI_Aint *cell = NULL;
    pthread_mutex_lock(&cell_lock);
    if (!cell_chunks || cell_chunks->used == CELLS_PER_CHUNK) {
        struct cell_chunk *c = calloc(1, sizeof(*c));
        if (c) {
            c->next = cell_chunks;
            cell_chunks = c;
        }
    }
    if (cell_chunks && cell_chunks->used < CELLS_PER_CHUNK) {
        cell = &cell_chunks->cells[cell_chunks->used++];
        *cell = value;
    }
    pthread_mutex_unlock(&cell_lock);
    return cell;
}

MPI_Aint ol_f_cell_value(const void *value)
{
    MPI_Aint found = (MPI_Aint)value;
    uintptr_t p = (uintptr_t)value;
    pthread_mutex_lock(&cell_lock);
    for (struct cell_chunk *c = cell_chunks; c; c = c->next) {
        uintptr_t start = (uintptr_t)c->cells, end = (uintptr_t)(c->cells + c->used);
        if (p >= start && p < end && (p - start) % sizeof(MPI_Aint) == 0) {
            found = *(const MPI_Aint *)value;
            break;
        }
    }
    pthread_mutex_unlock(&cell_lock);
    return found;
}
