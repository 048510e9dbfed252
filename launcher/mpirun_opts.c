/* mpirun's command line. Options come before the program; the first word
 * that is not an option (or the word after "--") is the program, and
 * everything after it belongs to the program, up to a lone ':' that starts
 * the next program of an MPMD job (whose options, e.g. -np, follow it). Names are accepted with one
 * or two dashes, as Open MPI does (-np, --np, -oversubscribe ...), and an
 * option's value either follows as the next word or after '='. To add an
 * option, add a row to `options`. */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mpirun.h"
#include "params.h"
#include "util.h"

typedef int (*opt_apply_fn)(struct mpirun_opts *o, char **vals, char **err);

struct opt_spec {
    const char *names[6]; /* without dashes */
    const char *value_name; /* NULL: a flag without a value */
    int nvals;              /* words of value (0, 1, or 2 for -genv NAME VALUE) */
    opt_apply_fn apply;
    const char *help;
};

static struct mpirun_app *cur_app(struct mpirun_opts *o)
{
    return &o->apps[o->napps - 1];
}

static int apply_np(struct mpirun_opts *o, char **v, char **err)
{
    long n;
    if (ol_parse_long(v[0], 1, OL_NP_MAX, &n) == 0) {
        cur_app(o)->np = n;
        return 0;
    }
    /* A positive number too large (even for a long) is told the limit. */
    bool digits = v[0][0] != '\0' && v[0][strspn(v[0], "0123456789")] == '\0';
    if (digits && v[0][strspn(v[0], "0")] != '\0')
        *err = ol_xasprintf("mpirun: -np %s is above the limit of %ld processes", v[0], OL_NP_MAX);
    else
        *err = ol_xasprintf("mpirun: -np needs a positive number of processes, not '%s'", v[0]);
    return -1;
}

#define FLAG_FN(fn, field)                                            \
    static int fn(struct mpirun_opts *o, char **v, char **err)       \
    {                                                                 \
        (void)v;                                                      \
        (void)err;                                                    \
        o->field = true;                                              \
        return 0;                                                     \
    }
FLAG_FN(apply_oversubscribe, oversubscribe)
FLAG_FN(apply_allow_root, allow_run_as_root) /* root is allowed anyway */
FLAG_FN(apply_help, help)
FLAG_FN(apply_version, version)
FLAG_FN(apply_report_bindings, report_bindings)
FLAG_FN(apply_tag_output, tag_output)
FLAG_FN(apply_get_stack_traces, get_stack_traces)
FLAG_FN(apply_report_state, report_state)

static int apply_stdin(struct mpirun_opts *o, char **v, char **err)
{
    if (strcmp(v[0], "none") == 0)
        o->stdin_none = true;
    else if (strcmp(v[0], "0") != 0) {
        *err = ol_xasprintf("mpirun: --stdin takes 0 or none, not '%s'", v[0]);
        return -1;
    }
    return 0;
}

static void replace(char **slot, const char *v)
{
    free(*slot);
    *slot = ol_xstrdup(v);
}

static int apply_hostfile(struct mpirun_opts *o, char **v, char **err)
{
    (void)err;
    replace(&o->hostfile, v[0]);
    return 0;
}

static int apply_host(struct mpirun_opts *o, char **v, char **err)
{
    (void)err;
    char *joined = o->hosts ? ol_xasprintf("%s,%s", o->hosts, v[0]) : ol_xstrdup(v[0]);
    free(o->hosts);
    o->hosts = joined;
    return 0;
}

static int apply_npernode(struct mpirun_opts *o, char **v, char **err)
{
    if (ol_parse_long(v[0], 1, 1L << 20, &o->npernode) != 0) {
        *err = ol_xasprintf("mpirun: -N needs a positive number of processes per host, not '%s'", v[0]);
        return -1;
    }
    return 0;
}

struct name_value {
    const char *name;
    int value;
};

static int lookup(const struct name_value *t, const char *s, size_t len, int *out)
{
    for (; t->name != NULL; t++) {
        if (strlen(t->name) == len && strncasecmp(t->name, s, len) == 0) {
            *out = t->value;
            return 0;
        }
    }
    return -1;
}

static int apply_map_by(struct mpirun_opts *o, char **v, char **err)
{
    static const struct name_value kinds[] = {
        { "slot", OL_MAP_SLOT }, { "node", OL_MAP_NODE }, { "core", OL_MAP_CORE },
        { "socket", OL_MAP_SOCKET }, { "package", OL_MAP_SOCKET }, { "numa", OL_MAP_NUMA }, { NULL, 0 },
    };
    const char *colon = strchr(v[0], ':');
    int kind;
    size_t len = colon ? (size_t)(colon - v[0]) : strlen(v[0]);
    if (lookup(kinds, v[0], len, &kind) != 0) {
        *err = ol_xasprintf("mpirun: --map-by takes slot, node, core, socket or numa (with :PE=n), not '%s'", v[0]);
        return -1;
    }
    o->map_by = (enum ol_map_by)kind;
    if (colon != NULL) {
        if (strncasecmp(colon + 1, "PE=", 3) != 0 || ol_parse_long(colon + 4, 1, 4096, &o->pe) != 0) {
            *err = ol_xasprintf("mpirun: --map-by modifier must be PE=n with n >= 1, not '%s'", colon + 1);
            return -1;
        }
    }
    return 0;
}

static int apply_bind_to(struct mpirun_opts *o, char **v, char **err)
{
    static const struct name_value kinds[] = {
        { "none", OL_BIND_NONE }, { "core", OL_BIND_CORE }, { "socket", OL_BIND_SOCKET },
        { "package", OL_BIND_SOCKET }, { "numa", OL_BIND_NUMA }, { NULL, 0 },
    };
    int kind;
    if (lookup(kinds, v[0], strlen(v[0]), &kind) != 0) {
        *err = ol_xasprintf("mpirun: --bind-to takes core, socket, numa or none, not '%s'", v[0]);
        return -1;
    }
    o->bind_to = (enum ol_bind_to)kind;
    o->bind_given = true;
    return 0;
}

static bool valid_env_name(const char *s, size_t len)
{
    if (len == 0 || isdigit((unsigned char)s[0]))
        return false;
    for (size_t i = 0; i < len; i++) {
        if (!isalnum((unsigned char)s[i]) && s[i] != '_')
            return false;
    }
    return true;
}

/* -x NAME=VALUE, or -x NAME: the value mpirun has (nothing if unset). */
static int apply_export(struct mpirun_opts *o, char **v, char **err)
{
    const char *eq = strchr(v[0], '=');
    size_t len = eq ? (size_t)(eq - v[0]) : strlen(v[0]);
    if (!valid_env_name(v[0], len)) {
        *err = ol_xasprintf("mpirun: -x needs NAME or NAME=VALUE, not '%s'", v[0]);
        return -1;
    }
    char *name = strndup(v[0], len);
    const char *value = eq ? eq + 1 : getenv(name);
    if (value != NULL)
        ol_env_set(&o->env, name, value);
    free(name);
    return 0;
}

static int apply_genv(struct mpirun_opts *o, char **v, char **err)
{
    if (!valid_env_name(v[0], strlen(v[0]))) {
        *err = ol_xasprintf("mpirun: -genv needs NAME VALUE, not '%s'", v[0]);
        return -1;
    }
    ol_env_set(&o->env, v[0], v[1]);
    return 0;
}

/* --param NAME=VALUE is OMPI_LITE_NAME=VALUE for the ranks (and for mpirun,
 * which reads its own parameters from the same place). */
static int apply_param(struct mpirun_opts *o, char **v, char **err)
{
    const char *eq = strchr(v[0], '=');
    if (eq == NULL || !valid_env_name(v[0], (size_t)(eq - v[0]))) {
        *err = ol_xasprintf("mpirun: --param needs NAME=VALUE, not '%s'", v[0]);
        return -1;
    }
    const char *name = v[0];
    if (strncasecmp(name, "OMPI_LITE_", 10) == 0)
        name += 10;
    char *full = ol_xasprintf("OMPI_LITE_%.*s", (int)(eq - name), name);
    for (char *c = full; *c; c++)
        *c = (char)toupper((unsigned char)*c);
    ol_env_set(&o->env, full, eq + 1);
    free(full);
    return 0;
}

/* --ifname LIST is OMPI_LITE_IFNAME=LIST: the ranks' UCX devices on every
 * host, and mpirun's and the daemons' own links (read back below). */
static int apply_ifname(struct mpirun_opts *o, char **v, char **err)
{
    if (v[0][0] == '\0') {
        *err = ol_xstrdup("mpirun: --ifname needs a list of interface names (ib0, ^docker,lo, =eth1)");
        return -1;
    }
    ol_env_set(&o->env, "OMPI_LITE_IFNAME", v[0]);
    return 0;
}

static int apply_output_filename(struct mpirun_opts *o, char **v, char **err)
{
    (void)err;
    replace(&o->output_dir, v[0]);
    return 0;
}

static int apply_timeout(struct mpirun_opts *o, char **v, char **err)
{
    if (ol_parse_long(v[0], 1, 1L << 30, &o->timeout_s) != 0) {
        *err = ol_xasprintf("mpirun: --timeout needs a positive number of seconds, not '%s'", v[0]);
        return -1;
    }
    o->timeout_from = "--timeout";
    return 0;
}

/* Without --timeout, MPIEXEC_TIMEOUT limits the job, as in MPICH's and Open
 * MPI's launchers: test harnesses (MPICH's runtests) set it for every test
 * and count on the launcher to end a hung one. 0 or empty means no limit. */
static int read_mpiexec_timeout(struct mpirun_opts *o, char **err)
{
    const char *v = getenv("MPIEXEC_TIMEOUT");
    if (o->timeout_from != NULL || v == NULL || *v == '\0')
        return 0;
    if (ol_parse_long(v, 0, 1L << 30, &o->timeout_s) != 0) {
        *err = ol_xasprintf("mpirun: MPIEXEC_TIMEOUT must be a number of seconds, not '%s'", v);
        return -1;
    }
    o->timeout_from = "MPIEXEC_TIMEOUT";
    return 0;
}

static int apply_launch_agent(struct mpirun_opts *o, char **v, char **err)
{
    if (v[0][strspn(v[0], " \t")] == '\0') {
        *err = ol_xasprintf("mpirun: --launch-agent needs a command");
        return -1;
    }
    replace(&o->launch_agent, v[0]);
    return 0;
}

static int apply_wdir(struct mpirun_opts *o, char **v, char **err)
{
    (void)err;
    replace(&o->wdir, v[0]);
    return 0;
}

static int apply_prefix(struct mpirun_opts *o, char **v, char **err)
{
    (void)err;
    replace(&o->prefix, v[0]);
    return 0;
}

static const struct opt_spec options[] = {
    { { "np", "n", "c" }, "N", 1, apply_np, "start N processes (default: every slot); per program with ':'" },
    { { "hostfile", "machinefile", "f" }, "FILE", 1, apply_hostfile,
      "hosts: 'host slots=N [max_slots=M]' or 'host:N' lines" },
    { { "host", "H" }, "H[:N],...", 1, apply_host, "hosts and slots (default 1) on the command line" },
    { { "npernode", "N", "ppn", "pernode-n" }, "N", 1, apply_npernode, "N processes on every host" },
    { { "map-by" }, "KIND[:PE=n]", 1, apply_map_by, "slot (default), node, core, socket, numa; PE=n cores per process" },
    { { "bind-to" }, "KIND", 1, apply_bind_to, "core, socket, numa or none (default core, none where a host has more ranks than cores)" },
    { { "report-bindings" }, NULL, 0, apply_report_bindings, "print the cores each process is bound to" },
    { { "oversubscribe" }, NULL, 0, apply_oversubscribe, "allow more processes than slots" },
    { { "x" }, "NAME[=VALUE]", 1, apply_export, "set NAME for the processes (mpirun's value if none given)" },
    { { "genv" }, "NAME VALUE", 2, apply_genv, "set NAME to VALUE for the processes (MPICH spelling)" },
    { { "param", "mca" }, "NAME=VALUE", 1, apply_param, "ompi-lite parameter: OMPI_LITE_NAME=VALUE" },
    { { "ifname" }, "LIST", 1, apply_ifname,
      "network interfaces between hosts, as OMPI_LITE_IFNAME: ib0 | =eth1 | ^docker,lo | mlx5_0:1" },
    { { "tag-output", "prepend-rank", "l" }, NULL, 0, apply_tag_output, "prefix every output line with [rank]" },
    { { "output-filename", "output-file" }, "DIR", 1, apply_output_filename,
      "write rank R's output to DIR/1/rank.R/stdout and stderr" },
    { { "timeout" }, "SECONDS", 1, apply_timeout,
      "end the job after SECONDS, with a report of what every rank is doing" },
    { { "get-stack-traces" }, NULL, 0, apply_get_stack_traces,
      "reports (--timeout, SIGUSR1) add each rank's stack (gdb)" },
    { { "report-state" }, "[PID]", 0, apply_report_state,
      "alone: ask the running mpirun (PID, or the only one) for a state report; SIGUSR1 does the same" },
    { { "launch-agent", "launcher-exec", "bootstrap-exec" }, "CMD", 1, apply_launch_agent,
      "command that runs 'CMD HOST COMMAND' on another host (default ssh)" },
    { { "wdir", "wd", "cwd" }, "DIR", 1, apply_wdir, "working directory of the processes" },
    { { "prefix" }, "DIR", 1, apply_prefix, "ompi-lite's install prefix on the other hosts" },
    { { "allow-run-as-root" }, NULL, 0, apply_allow_root, "accepted for compatibility; root is allowed" },
    { { "stdin" }, "0|none", 1, apply_stdin, "rank that receives mpirun's stdin (default 0)" },
    { { "help", "h" }, NULL, 0, apply_help, "print this help" },
    { { "version", "V" }, NULL, 0, apply_version, "print the version" },
};
#define NOPTIONS (sizeof options / sizeof options[0])
#define MAX_NAMES 6

static const struct opt_spec *find_option(const char *name, size_t len)
{
    for (size_t i = 0; i < NOPTIONS; i++) {
        for (size_t k = 0; k < MAX_NAMES && options[i].names[k] != NULL; k++) {
            if (strlen(options[i].names[k]) == len && strncmp(options[i].names[k], name, len) == 0)
                return &options[i];
        }
    }
    return NULL;
}

/* Applies the option in argv[*i] (consuming its value words if needed). */
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
    char *vals[2] = { NULL, NULL };
    int k = 0;
    if (spec->nvals > 0 && eq != NULL)
        vals[k++] = (char *)eq + 1;
    else if (spec->nvals == 0 && eq != NULL) {
        *err = ol_xasprintf("mpirun: option '%.*s' takes no value", (int)(eq - word), word);
        return -1;
    }
    for (; k < spec->nvals; k++) {
        if (*i + 1 >= argc) {
            *err = ol_xasprintf("mpirun: option '%s' needs a value (%s)", word, spec->value_name);
            return -1;
        }
        vals[k] = argv[++*i];
    }
    return spec->apply(o, vals, err);
}

static void new_app(struct mpirun_opts *o)
{
    struct mpirun_app *nv = realloc(o->apps, (o->napps + 1) * sizeof *nv);
    if (nv == NULL)
        nv = ol_xmalloc(SIZE_MAX);
    o->apps = nv;
    o->apps[o->napps++] = (struct mpirun_app){ 0 };
}

/* A parameter's text as mpirun sees it: the environment, overridden by
 * --param (and --ifname); NULL or "" where unset. Points into either. */
static const char *param_text(const struct mpirun_opts *o, const char *name)
{
    const char *v = getenv(name);
    size_t nlen = strlen(name);
    for (size_t k = 0; o->env != NULL && o->env[k] != NULL; k++) {
        if (strncmp(o->env[k], name, nlen) == 0 && o->env[k][nlen] == '=')
            v = o->env[k] + nlen + 1;
    }
    return v;
}

/* The library's network parameters that mpirun and the daemons follow too
 * (rows of the library's table, see ol_netif.h). */
static void read_net_params(struct mpirun_opts *o)
{
    const char *ifname = param_text(o, "OMPI_LITE_IFNAME");
    const char *speeds = param_text(o, "OMPI_LITE_NET_TEST_SPEED");
    o->ifname = ifname && *ifname ? ol_xstrdup(ifname) : NULL;
    o->net_test_speed = speeds && *speeds ? ol_xstrdup(speeds) : NULL;
}

/* Reads mpirun's own parameters: the environment, overridden by --param. */
static int read_params(struct mpirun_opts *o, char **err)
{
    long oversubscribe, vector_copies; /* the latter read to refuse a bad value now */
    struct { int param; long *out; } read[] = {
        { OL_LAUNCHER_KILL_GRACE_MS, &o->kill_grace_ms },
        { OL_LAUNCHER_TREE_FANOUT, &o->fanout },
        { OL_LAUNCHER_OVERSUBSCRIBE, &oversubscribe },
        { OL_LAUNCHER_RESOLVE_MS, &o->resolve_ms },
        { OL_LAUNCHER_LINK_TIMEOUT_MS, &o->link_timeout_ms },
        { OL_LAUNCHER_OUTPUT_BUFFER, &o->output_buffer },
        { OL_LAUNCHER_OUTPUT_UMASK, &o->output_umask },
        { OL_LAUNCHER_VECTOR_COPIES, &vector_copies },
    };
    for (size_t i = 0; i < sizeof read / sizeof read[0]; i++) {
        const ol_launcher_param_t *p = &ol_launcher_params[read[i].param];
        char *name = ol_xasprintf("OMPI_LITE_%s", p->name);
        const char *v = param_text(o, name);
        *read[i].out = p->default_value;
        int bad = v != NULL && ol_parse_long(v, p->min, p->max, read[i].out) != 0;
        if (bad)
            *err = ol_xasprintf("mpirun: %s must be a number from %ld to %ld, not '%s'", name,
                                p->min, p->max, v);
        free(name);
        if (bad)
            return -1;
    }
    o->oversubscribe |= oversubscribe != 0;
    read_net_params(o);
    return 0;
}

int ol_mpirun_parse(int argc, char **argv, struct mpirun_opts *o, char **err)
{
    memset(o, 0, sizeof *o);
    o->pe = 1;
    o->env = ol_xcalloc(1, sizeof *o->env);
    new_app(o);
    int i = 1;
    while (i < argc) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            if (parse_one(argc, argv, &i, o, err) != 0)
                return -1;
            if (o->help || o->version)
                return 1;
            if (o->report_state) {
                o->report_pid = i + 1 < argc ? argv[i + 1] : NULL;
                return 2;
            }
            i++;
            continue;
        }
        /* The program and its arguments, up to a lone ':' (MPMD). */
        if (i >= argc || strcmp(argv[i], ":") == 0)
            break;
        int start = i;
        while (i < argc && strcmp(argv[i], ":") != 0)
            i++;
        struct mpirun_app *app = cur_app(o);
        app->argv = ol_xcalloc((size_t)(i - start) + 1, sizeof *app->argv);
        memcpy(app->argv, &argv[start], (size_t)(i - start) * sizeof *app->argv);
        if (i < argc) { /* ':' */
            i++;
            new_app(o);
        }
    }
    for (size_t a = 0; a < o->napps; a++) {
        if (o->apps[a].argv == NULL) {
            *err = ol_xasprintf(o->napps == 1 ? "mpirun: no program to run (usage: mpirun -np N PROGRAM [ARGS...])"
                                              : "mpirun: no program after ':' (usage: mpirun -np N A : -np M B)");
            return -1;
        }
        if (o->napps > 1 && o->apps[a].np == 0) {
            *err = ol_xasprintf("mpirun: with several programs (':'), each needs -np (missing for '%s')",
                                o->apps[a].argv[0]);
            return -1;
        }
    }
    /* As Open MPI: PE=n means n cores per process; otherwise each daemon
     * binds to cores unless its host is oversubscribed. */
    if (!o->bind_given)
        o->bind_to = o->pe > 1 ? OL_BIND_CORE : OL_BIND_DEFAULT;
    if (read_params(o, err) != 0 || read_mpiexec_timeout(o, err) != 0)
        return -1;
    for (size_t a = 0; a < o->napps; a++) {
        if (ol_mpirun_resolve_program(o->apps[a].argv[0], &o->apps[a].exe, err) != 0)
            return -1;
    }
    return 0;
}

void ol_mpirun_opts_free(struct mpirun_opts *o)
{
    for (size_t a = 0; a < o->napps; a++) {
        free(o->apps[a].argv);
        free(o->apps[a].exe);
    }
    free(o->apps);
    free(o->hostfile);
    free(o->hosts);
    free(o->output_dir);
    free(o->launch_agent);
    free(o->wdir);
    free(o->prefix);
    free(o->ifname);
    free(o->net_test_speed);
    ol_strv_free(o->env);
    memset(o, 0, sizeof *o);
}

void ol_mpirun_print_help(void)
{
    printf("Usage: mpirun [OPTIONS] PROGRAM [ARGS...] [: [-np N] PROGRAM2 [ARGS...]]...   (also: mpiexec)\n"
           "Starts an MPI job through one ompi-lite daemon per host.\n\n"
           "Options (one or two dashes; values as the next word or after '='):\n");
    for (size_t i = 0; i < NOPTIONS; i++) {
        char names[96];
        size_t len = 0;
        for (size_t k = 0; k < MAX_NAMES && options[i].names[k] != NULL; k++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s%s", k ? ", " : "",
                                    strlen(options[i].names[k]) > 1 ? "--" : "-", options[i].names[k]);
        if (options[i].value_name)
            snprintf(names + len, sizeof names - len, " %s", options[i].value_name);
        printf("  %-40s %s\n", names, options[i].help);
    }
    printf("\nWithout --hostfile or --host: this host, one slot per core.\n"
           "Environment: OMPI_LITE_DEBUG=warn|info|trace, OMPI_LITE_KILL_GRACE_MS (default 1000):\n"
           "time between SIGTERM and SIGKILL when a job is ended; OMPI_LITE_TREE_FANOUT (default 8):\n"
           "daemons per tree level; OMPI_LITE_OVERSUBSCRIBE=1: as --oversubscribe;\n"
           "MPIEXEC_TIMEOUT: seconds, as --timeout when that is not given.\n"
           "Exit status: 0 when every rank exits 0 after MPI_Finalize; otherwise the failing\n"
           "rank's exit code, 128+signal, or its MPI_Abort code; 124 when --timeout expired.\n");
}

long ol_mpirun_local_cores(void)
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

/* How mpirun says why a file is no program. */
static const char *unfit_text(int err)
{
    switch (err) {
    case ENOENT: return "does not exist";
    case EISDIR: return "is a directory";
    case EACCES: return "is not executable";
    default: return strerror(err);
    }
}

int ol_mpirun_resolve_program(const char *name, char **path, char **err)
{
    int why = ol_find_program(name, NULL, NULL, path);
    if (why == 0)
        return 0;
    if (strchr(name, '/') != NULL)
        *err = ol_xasprintf("mpirun: cannot run '%s': it %s", name, unfit_text(why));
    else if (why != ENOENT)
        *err = ol_xasprintf("mpirun: cannot run '%s': found in PATH, but it %s", name,
                            unfit_text(why));
    else
        *err = ol_xasprintf("mpirun: cannot run '%s': not found in PATH", name);
    return -1;
}
