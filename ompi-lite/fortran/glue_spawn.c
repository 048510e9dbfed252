/* MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE (HANDWRITTEN in gen_fortran.py):
 * their commands and argv are arrays of CHARACTER(LEN=*) (one hidden
 * length per array, its elements'), where C has arrays of C strings.
 *
 * An argv ends at its first all-blank element; each element, as each
 * command, loses its leading and trailing blanks (MPI-4.1 11.8.2 says so
 * of Fortran's command and argv); blanks inside stay: "a b" is one
 * argument.
 * SPAWN_MULTIPLE's ARRAY_OF_ARGV(COUNT, *) holds command i's argv in row
 * i, elements COUNT apart in memory; its ARRAY_OF_COMMANDS has exactly
 * COUNT elements, no blank terminator. MPI_ARGV_NULL, MPI_ARGVS_NULL and
 * MPI_ERRCODES_IGNORE arrive as the addresses of their COMMON blocks.
 *
 * These arguments mean something only at the root, and elsewhere may be
 * anything (an unterminated argv, say), so only the root converts them;
 * the others pass NULL, which the C library does not read there. */
#include "ol_fortran.h"

#include <stdlib.h>
#include <string.h>

extern MPI_Fint mpi_fortran_errcodes_ignore_[1];
extern char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];

static void free_strings(char **strings)
{
    for (size_t i = 0; strings && strings[i]; i++)
        free(strings[i]);
    free(strings);
}

static int is_blank(const char *element, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (element[i] != ' ')
            return 0;
    return 1;
}

/* Strings of `len` characters, `stride` elements apart from `first`:
 * `count` of them, or with `count` < 0 those before the first blank one.
 * A NULL-terminated array of C strings without leading and trailing
 * blanks, for
 * free_strings; NULL without memory. */
static char **strings_in(const char *first, size_t len, size_t stride, MPI_Fint count)
{
    size_t n = 0;
    if (count >= 0)
        n = (size_t)count;
    else
        while (!is_blank(first + n * stride * len, len))
            n++;
    char **c = calloc(n + 1, sizeof(*c));
    for (size_t i = 0; c && i < n; i++) {
        c[i] = ol_f_string_in(first + i * stride * len, len, 1);
        if (!c[i]) {
            free_strings(c);
            return NULL;
        }
    }
    return c;
}

/* Whether this process is `root` of `comm` (no for an invalid
 * communicator, which the C call then refuses with its own sentence). */
static int is_root(MPI_Comm comm, MPI_Fint root)
{
    int rank = MPI_PROC_NULL;
    return comm != MPI_COMM_NULL && PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == root;
}

static int *errcodes_in(MPI_Fint *array_of_errcodes)
{
    return array_of_errcodes == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE
                                                             : array_of_errcodes;
}

OL_F_EXPORT void pmpi_comm_spawn_(const char *command, const char *argv, const MPI_Fint *maxprocs,
                                  const MPI_Fint *info, const MPI_Fint *root, const MPI_Fint *comm,
                                  MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
                                  MPI_Fint *ierror, size_t command_len, size_t argv_len)
{
    MPI_Comm comm_c = OL_F_FROMINT(MPI_Comm, Comm, *comm);
    MPI_Info info_c = OL_F_FROMINT(MPI_Info, Info, *info);
    char *command_c = NULL, **argv_c = MPI_ARGV_NULL;
    int with_argv = argv != mpi_fortran_argv_null_;
    if (is_root(comm_c, *root)) {
        command_c = ol_f_string_in(command, command_len, 1);
        if (with_argv)
            argv_c = strings_in(argv, argv_len, 1, -1);
        if (!command_c || (with_argv && !argv_c)) {
            free(command_c);
            free_strings(argv_c);
            ol_f_set_ierror(ierror, MPI_ERR_NO_MEM);
            return;
        }
    }
    MPI_Comm intercomm_c = MPI_COMM_NULL;
    int rc = PMPI_Comm_spawn(command_c, argv_c, *maxprocs, info_c, *root, comm_c, &intercomm_c,
                             errcodes_in(array_of_errcodes));
    if (rc == MPI_SUCCESS)
        *intercomm = PMPI_Comm_toint(intercomm_c);
    free(command_c);
    free_strings(argv_c);
    ol_f_set_ierror(ierror, rc);
}
OL_F_ALIASES(comm_spawn, pmpi_comm_spawn_)
OL_F08_ALIASES(comm_spawn, pmpi_comm_spawn_)

/* What SPAWN_MULTIPLE's root gives C: arrays of `count` entries; argvs
 * stays MPI_ARGVS_NULL (the ABI's NULL) where the program passed that. */
typedef struct {
    char **commands;
    char ***argvs;
    MPI_Info *infos;
} spawn_arrays_t;

static void spawn_arrays_free(spawn_arrays_t *a, MPI_Fint count)
{
    free_strings(a->commands);
    for (MPI_Fint i = 0; a->argvs && i < count; i++)
        free_strings(a->argvs[i]);
    free(a->argvs);
    free(a->infos);
}

/* The root's conversion: MPI_SUCCESS or MPI_ERR_NO_MEM, `a` to free in
 * either case. A negative count converts nothing: the C call refuses it. */
static int spawn_arrays_in(spawn_arrays_t *a, MPI_Fint count, const char *commands,
                           size_t commands_len, const char *argvs, size_t argvs_len,
                           const MPI_Fint *infos)
{
    int with_argvs = argvs != mpi_fortran_argvs_null_;
    *a = (spawn_arrays_t){NULL, MPI_ARGVS_NULL, NULL};
    if (count < 0)
        return MPI_SUCCESS;
    a->commands = strings_in(commands, commands_len, 1, count);
    a->infos = malloc(((size_t)count + 1) * sizeof(*a->infos));
    if (with_argvs)
        a->argvs = calloc((size_t)count + 1, sizeof(*a->argvs));
    if (!a->commands || !a->infos || (with_argvs && !a->argvs))
        return MPI_ERR_NO_MEM;
    for (MPI_Fint i = 0; i < count; i++)
        a->infos[i] = OL_F_FROMINT(MPI_Info, Info, infos[i]);
    /* command i's argv is row i: its elements `count` apart */
    for (MPI_Fint i = 0; with_argvs && i < count; i++)
        if (!(a->argvs[i] = strings_in(argvs + (size_t)i * argvs_len, argvs_len,
                                       (size_t)count, -1)))
            return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

OL_F_EXPORT void pmpi_comm_spawn_multiple_(const MPI_Fint *count, const char *array_of_commands,
                                           const char *array_of_argv,
                                           const MPI_Fint *array_of_maxprocs,
                                           const MPI_Fint *array_of_info, const MPI_Fint *root,
                                           const MPI_Fint *comm, MPI_Fint *intercomm,
                                           MPI_Fint *array_of_errcodes, MPI_Fint *ierror,
                                           size_t array_of_commands_len, size_t array_of_argv_len)
{
    MPI_Comm comm_c = OL_F_FROMINT(MPI_Comm, Comm, *comm);
    spawn_arrays_t a = {NULL, MPI_ARGVS_NULL, NULL};
    if (is_root(comm_c, *root)) {
        int rc = spawn_arrays_in(&a, *count, array_of_commands, array_of_commands_len,
                                 array_of_argv, array_of_argv_len, array_of_info);
        if (rc != MPI_SUCCESS) {
            spawn_arrays_free(&a, *count);
            ol_f_set_ierror(ierror, rc);
            return;
        }
    }
    MPI_Comm intercomm_c = MPI_COMM_NULL;
    int rc = PMPI_Comm_spawn_multiple(*count, a.commands, a.argvs, array_of_maxprocs, a.infos,
                                      *root, comm_c, &intercomm_c,
                                      errcodes_in(array_of_errcodes));
    if (rc == MPI_SUCCESS)
        *intercomm = PMPI_Comm_toint(intercomm_c);
    spawn_arrays_free(&a, *count);
    ol_f_set_ierror(ierror, rc);
}
OL_F_ALIASES(comm_spawn_multiple, pmpi_comm_spawn_multiple_)
OL_F08_ALIASES(comm_spawn_multiple, pmpi_comm_spawn_multiple_)
