/* mpirun's command line. Options come before the program; the first word
 * that is not an option (or the word after "--") is the program, and
 * everything after it belongs to the program. Names are accepted with one
 * or two dashes, as Open MPI does (-np, --np, -oversubscribe ...), and an
 * option's value either follows as the next word or after '='. To add an
 * option, add a row to `options`. */
#define _GNU_SOURCE
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpirun.h"
#include "util.h"

typedef int (*opt_apply_fn)(struct mpirun_opts *o, const char *value, char **err);

struct opt_spec {
    const char *names[3]; /* without dashes */
    const char *value_name; /* NULL: a flag without a value */
    opt_apply_fn apply;
    const char *help;
};

static int apply_np(struct mpirun_opts *o, const char *v, char **err)
{
    long n;
    if (ol_parse_long(v, 1, 1L << 24, &n) != 0) {
        *err = ol_xasprintf("mpirun: -np needs a positive number of processes, not '%s'", v);
        return -1;
    }
    o->np = n;
    return 0;
}

static int apply_oversubscribe(struct mpirun_opts *o, const char *v, char **err)
{
    (void)v;
    (void)err;
    o->oversubscribe = true; /* one host, no slot limit yet: accepted for compatibility */
    return 0;
}

static int apply_allow_root(struct mpirun_opts *o, const char *v, char **err)
{
    (void)v;
    (void)err;
    o->allow_run_as_root = true; /* running as root is not refused; accepted for compatibility */
    return 0;
}

static int apply_stdin(struct mpirun_opts *o, const char *v, char **err)
{
    if (strcmp(v, "none") == 0)
        o->stdin_none = true;
    else if (strcmp(v, "0") != 0) {
        *err = ol_xasprintf("mpirun: --stdin takes 0 or none, not '%s'", v);
        return -1;
    }
    return 0;
}

static int apply_help(struct mpirun_opts *o, const char *v, char **err)
{
    (void)v;
    (void)err;
    o->help = true;
    return 0;
}

static int apply_version(struct mpirun_opts *o, const char *v, char **err)
{
    (void)v;
    (void)err;
    o->version = true;
    return 0;
}

static const struct opt_spec options[] = {
    { { "np", "n", "c" }, "N", apply_np, "start N processes (default: the number of cores)" },
    { { "oversubscribe" }, NULL, apply_oversubscribe, "allow more processes than cores (always allowed)" },
    { { "allow-run-as-root" }, NULL, apply_allow_root, "accepted for compatibility; root is allowed" },
    { { "stdin" }, "0|none", apply_stdin, "rank that receives mpirun's stdin (default 0)" },
    { { "help", "h" }, NULL, apply_help, "print this help" },
    { { "version", "V" }, NULL, apply_version, "print the version" },
};
#define NOPTIONS (sizeof options / sizeof options[0])

static const struct opt_spec *find_option(const char *name, size_t len)
{
    for (size_t i = 0; i < NOPTIONS; i++) {
        for (size_t k = 0; k < 3 && options[i].names[k] != NULL; k++) {
            if (strlen(options[i].names[k]) == len && strncmp(options[i].names[k], name, len) == 0)
                return &options[i];
        }
    }
    return NULL;
}

/* Applies the option in argv[*i] (consuming its value word if needed). */
static int parse_one(int argc, char **argv, int *i, struct mpirun_opts *o, char **err)
{
    const char *word = argv[*i];
    const char *name = word + (word[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct opt_spec *spec = find_option(name, len);
    if (spec == NULL) {
        *err = ol_xasprintf("mpirun: unknown option '%s' (see mpirun --help)", word);
        return -1;
    }
    const char *value = NULL;
    if (spec->value_name != NULL) {
        if (eq != NULL)
            value = eq + 1;
        else if (*i + 1 < argc)
            value = argv[++*i];
        else {
            *err = ol_xasprintf("mpirun: option '%s' needs a value (%s)", word, spec->value_name);
            return -1;
        }
    } else if (eq != NULL) {
        *err = ol_xasprintf("mpirun: option '%.*s' takes no value", (int)(eq - word), word);
        return -1;
    }
    return spec->apply(o, value, err);
}

int ol_mpirun_parse(int argc, char **argv, struct mpirun_opts *o, char **err)
{
    memset(o, 0, sizeof *o);
    o->kill_grace_ms = 1000;
    const char *grace = getenv("OMPI_LITE_KILL_GRACE_MS");
    if (grace != NULL && ol_parse_long(grace, 0, 3600000, &o->kill_grace_ms) != 0) {
        *err = ol_xasprintf("mpirun: OMPI_LITE_KILL_GRACE_MS must be milliseconds, not '%s'", grace);
        return -1;
    }
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (argv[i][0] != '-' || argv[i][1] == '\0')
            break;
        if (parse_one(argc, argv, &i, o, err) != 0)
            return -1;
        if (o->help || o->version)
            return 1;
    }
    if (i >= argc) {
        *err = ol_xasprintf("mpirun: no program to run (usage: mpirun -np N PROGRAM [ARGS...])");
        return -1;
    }
    o->prog_argv = &argv[i];
    if (o->np == 0)
        o->np = ol_mpirun_default_np();
    return ol_mpirun_resolve_program(argv[i], &o->exe, err) == 0 ? 0 : -1;
}

void ol_mpirun_print_help(void)
{
    printf("Usage: mpirun [OPTIONS] PROGRAM [ARGS...]   (also: mpiexec)\n"
           "Starts PROGRAM as an MPI job of N processes through a per-host ompi-lite daemon.\n\n"
           "Options (one or two dashes; values as the next word or after '='):\n");
    for (size_t i = 0; i < NOPTIONS; i++) {
        char names[64];
        size_t len = 0;
        for (size_t k = 0; k < 3 && options[i].names[k] != NULL; k++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s%s", k ? ", " : "",
                                    strlen(options[i].names[k]) > 1 ? "--" : "-", options[i].names[k]);
        if (options[i].value_name)
            snprintf(names + len, sizeof names - len, " %s", options[i].value_name);
        printf("  %-28s %s\n", names, options[i].help);
    }
    printf("\nEnvironment: OMPI_LITE_DEBUG=warn|info|trace, OMPI_LITE_KILL_GRACE_MS (default 1000):\n"
           "time between SIGTERM and SIGKILL when a job is ended.\n"
           "Exit status: 0 when every rank exits 0 after MPI_Finalize; otherwise the failing\n"
           "rank's exit code, 128+signal, or its MPI_Abort code.\n");
}

long ol_mpirun_default_np(void)
{
    /* Physical cores, as Open MPI counts them; logical CPUs if hwloc fails. */
    long n = 0;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0)
            n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        hwloc_topology_destroy(topo);
    }
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
}

/* 0 when path is a regular executable file; otherwise -1 and a reason. */
static int check_executable(const char *path, const char **why)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        *why = errno == ENOENT ? "does not exist" : strerror(errno);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        *why = "is a directory";
        return -1;
    }
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
        *why = "is not executable";
        return -1;
    }
    return 0;
}

int ol_mpirun_resolve_program(const char *name, char **path, char **err)
{
    const char *why;
    if (strchr(name, '/') != NULL) {
        if (check_executable(name, &why) != 0) {
            *err = ol_xasprintf("mpirun: cannot run '%s': it %s", name, why);
            return -1;
        }
        *path = ol_xstrdup(name);
        return 0;
    }
    const char *env_path = getenv("PATH");
    char *dirs = ol_xstrdup(env_path ? env_path : "/usr/local/bin:/usr/bin:/bin");
    const char *found_why = NULL;
    char *save = NULL;
    /* strtok_r would skip empty entries, which mean the current directory. */
    for (char *dir = dirs; dir != NULL; dir = save) {
        save = strchr(dir, ':');
        if (save != NULL)
            *save++ = '\0';
        char *cand = ol_xasprintf("%s/%s", *dir ? dir : ".", name);
        if (check_executable(cand, &why) == 0) {
            *path = cand;
            free(dirs);
            return 0;
        }
        if (strcmp(why, "does not exist") != 0 && found_why == NULL)
            found_why = why;
        free(cand);
    }
    free(dirs);
    if (found_why != NULL)
        *err = ol_xasprintf("mpirun: cannot run '%s': found in PATH, but it %s", name, found_why);
    else
        *err = ol_xasprintf("mpirun: cannot run '%s': not found in PATH", name);
    return -1;
}
