/* mpirun's parts:
 *   mpirun.c        main, the event loop, the daemon links, routing, failure policy
 *   mpirun_opts.c   command line (a table of options, MPMD) and program lookup
 *   mpirun_output.c ranks' output (tags, --output-filename) and stdin forwarding
 *   mpirun_start.c  finding and starting daemons: fork here, the launch agent elsewhere
 *   mpirun_names.c  the job's published names (PMIx publish, lookup, unpublish)
 *   hostfile.c      hostfiles and --host lists, one entry per machine
 *   hostid.c        is a name this host, do two names mean one machine
 *   mapping.c       which host each rank runs on
 *   tree.c, net.c   (shared with the daemon) routing tree, TCP and the job key */
#ifndef OL_LAUNCHER_MPIRUN_H
#define OL_LAUNCHER_MPIRUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hostid.h"
#include "proto.h"

/* The most processes one job may have (all programs of an MPMD job
 * together); messages that refuse more name it. */
#define OL_NP_MAX (1L << 24)

struct mpirun_app {
    long np;             /* 0 until given */
    char **argv;         /* NULL-terminated, points into main's argv */
    char *exe;           /* resolved program path (malloc'd) */
};

struct mpirun_opts {
    struct mpirun_app *apps;
    size_t napps;
    bool oversubscribe;
    bool allow_run_as_root;
    bool stdin_none;
    bool help, version;
    long kill_grace_ms;
    char *hostfile;
    char *hosts;         /* --host lists, joined with ',' (malloc'd) */
    long npernode;
    enum ol_map_by map_by;
    long pe;             /* 1 unless :PE=n */
    enum ol_bind_to bind_to;
    bool bind_given;
    bool report_bindings;
    bool tag_output;
    char *output_dir;
    long timeout_s;      /* 0: none */
    const char *timeout_from; /* "--timeout" or "MPIEXEC_TIMEOUT", for the report */
    bool get_stack_traces; /* reports carry each rank's stack */
    bool report_state;   /* mpirun --report-state [PID]: ask a running mpirun */
    const char *report_pid; /* its pid (points into argv), or NULL */
    char *launch_agent;  /* default "ssh" */
    char *wdir;
    char *prefix;
    char **env;          /* NAME=VALUE for every rank (-x, -genv, --param) */
    long fanout;         /* routing tree fan-out (OMPI_LITE_TREE_FANOUT) */
    long resolve_ms;     /* bound on host name lookups (OMPI_LITE_RESOLVE_MS) */
    long link_timeout_ms; /* TCP_USER_TIMEOUT of the links (OMPI_LITE_LINK_TIMEOUT_MS) */
    long output_buffer;  /* bytes of output queued before reading stops (OMPI_LITE_OUTPUT_BUFFER) */
    long output_umask;   /* --output-filename files with the umask (OMPI_LITE_OUTPUT_UMASK) */
    char *ifname;        /* OMPI_LITE_IFNAME (--ifname), or NULL */
    char *net_test_speed; /* OMPI_LITE_NET_TEST_SPEED (tests only), or NULL */
};

/* 0: run; 1: stop with success (--help, --version); 2: --report-state;
 * -1: *err is the one line to print (malloc'd). */
int ol_mpirun_parse(int argc, char **argv, struct mpirun_opts *o, char **err);
void ol_mpirun_opts_free(struct mpirun_opts *o);
void ol_mpirun_print_help(void);
/* Finds the program like execvp would; 0, or -1 with *err set. */
int ol_mpirun_resolve_program(const char *name, char **path, char **err);
long ol_mpirun_local_cores(void);

/* hostfile.c */
struct ol_host {
    char *name;          /* this host's entry: ol_hostname(), however it was spelled */
    long slots;
    long max_slots;      /* 0: no limit */
    struct ol_hostid id; /* set by ol_hostlist_unify */
};
struct ol_hostlist {
    struct ol_host *v;
    size_t n;
};
int ol_hostfile_read(const char *path, struct ol_hostlist *hl, char **err);
int ol_hostlist_parse_hosts(const char *spec, struct ol_hostlist *hl, char **err);
void ol_hostlist_add(struct ol_hostlist *hl, const char *name, size_t len, long slots, long max_slots);
void ol_hostlist_free(struct ol_hostlist *hl);
/* Finds out which entries are this host (id.self) and merges the entries
 * that name one machine into the first of them, slots added up as for a
 * host named twice; this host's entry takes the name ol_hostname().
 * Lookups take at most resolve_ms in all. */
void ol_hostlist_unify(struct ol_hostlist *hl, int resolve_ms);
/* Whether two entries of unified lists are one machine. */
bool ol_host_same(const struct ol_host *a, const struct ol_host *b);

/* mapping.c */
struct ol_map_req {
    enum ol_map_by by;
    long pe;
    long npernode;       /* 0: not given */
    bool oversubscribe;
};
long ol_map_default_np(const struct ol_hostlist *hl, const struct ol_map_req *req);
/* *out[rank] = index of the rank's host in hl; 0, or -1 with *err. */
int ol_map_ranks(const struct ol_hostlist *hl, const struct ol_map_req *req, long np, uint32_t **out, char **err);

/* mpirun_start.c */
struct ol_daemon_start {
    const char *daemon_exe;  /* path on the target host */
    uint32_t node_id, nnodes, fanout;
    const char *key;
    char *const *connect_addrs; /* NULL: forked daemon with a socketpair */
    uint16_t connect_port;
    char *const *listen_addrs;  /* where a forked daemon with children listens, or NULL */
    long link_timeout_ms;
    const char *ifname;      /* OMPI_LITE_IFNAME, or NULL */
    const char *net_test_speed; /* OMPI_LITE_NET_TEST_SPEED, or NULL */
    const char *host;        /* for the launch agent */
    const char *agent;       /* NULL: fork here */
    const char *prefix;      /* --prefix, or NULL */
};
/* Path of ompi-lite-daemon next to mpirun (build tree), in
 * ../libexec (install tree), in the configured libexecdir, or from
 * $OMPI_LITE_DAEMON; NULL when none is executable. */
char *ol_mpirun_find_daemon(void);
/* Starts one daemon. *link_fd: mpirun's end of the socketpair (forked, no
 * connect_addrs) or -1; *out_fd: read end of the agent's or daemon's
 * stdout+stderr, or -1. 0, or -1 with *err. */
int ol_mpirun_start_daemon(const struct ol_daemon_start *s, pid_t *pid, int *link_fd, int *out_fd, char **err);

/* mpirun_net.c */
struct ol_host_links {
    const char *host;        /* as the daemon named itself */
    char *const *netifs;     /* HELLO's lines (ol_netif_describe) */
};
/* The line mpirun warns with when some host uses a link slower than the
 * fastest interface that is usable on every host (malloc'd), or NULL. */
char *ol_mpirun_slow_link(const struct ol_host_links *hosts, size_t n);

/* mpirun_names.c: the job's table of published names */
struct ol_names;
struct ol_names *ol_names_new(void);
void ol_names_free(struct ol_names *t);
/* Serves a NAME_REQ: its PMIx status; a lookup's names found go to
 * resp->names (resp->n of them, copies: ol_msg_name_free). */
int32_t ol_names_serve(struct ol_names *t, const ol_msg_name_t *req, ol_msg_name_t *resp);

#endif
