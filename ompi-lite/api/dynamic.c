/* Process management (MPI-4.1 chapter 11): spawn, ports, connect/accept,
 * join, published names, disconnect.
 *
 * Two groups that share no communicator meet through a link between
 * their roots (runtime/port.c: a port's TCP connection, the socket of
 * MPI_Comm_join): each group describes its processes (job name, rank in
 * that job, UCX worker address), the roots swap the descriptions and
 * broadcast them in their groups, every process adds the other group's
 * processes to its table (ol_runtime.h), and the two groups agree on a
 * context id through the same link (comm.c). The intercommunicator that
 * results talks over UCX like any other (pt2pt.h). A spawned job's ranks
 * connect to a port their parents' root opened and passed in their
 * environment (OMPI_LITE_PARENT_PORT), inside MPI_Init. */
#include "gen_impl.h"
#include "coll.h"
#include "comm_internal.h"
#include "dynamic.h"
#include "ol_dynamic.h"
#include "ol_info.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PARENT_PORT_VARIABLE "OMPI_LITE_PARENT_PORT"

/* ---- describing a group -------------------------------------------------------------- */

/* One process as the other group learns it; its UCX address follows. */
typedef struct {
    int32_t rank;
    uint32_t address_length;
    char job[sizeof(ol_rt.job_name)];
    char host[sizeof(ol_rt.hostname)];
} identity_t;

/* What the roots swap: a header, then count records of record_size bytes. */
typedef struct {
    uint32_t count;
    uint32_t record_size;
} description_t;

/* Every process of comm describes itself; all get the description
 * (*length bytes, malloc'd): see dynamic.h. */
int ol_dynamic_describe(ol_comm_t *comm, void **description, size_t *length)
{
    const void *address;
    size_t address_length;
    ol_rt_own_address(&address, &address_length);
    uint64_t longest = address_length;
    int rc = ol_coll_allreduce(MPI_IN_PLACE, &longest, 1, ol_dt_from_handle(MPI_UINT64_T),
                               ol_op_from_handle(MPI_MAX), comm);
    if (rc != MPI_SUCCESS)
        return rc;
    size_t record_size = sizeof(identity_t) + (size_t)longest;
    size_t total = sizeof(description_t) + record_size * (size_t)comm->size;
    char *all = malloc(total), *mine = calloc(1, record_size);
    if (!all || !mine) {
        free(all);
        free(mine);
        return MPI_ERR_NO_MEM;
    }
    identity_t *me = (identity_t *)mine;
    me->rank = ol_rt.rank;
    me->address_length = (uint32_t)address_length;
    snprintf(me->job, sizeof(me->job), "%s", ol_rt.job_name);
    snprintf(me->host, sizeof(me->host), "%s", ol_rt.hostname);
    memcpy(mine + sizeof(identity_t), address, address_length);
    *(description_t *)all = (description_t){(uint32_t)comm->size, (uint32_t)record_size};
    ol_datatype_t *bytes = ol_dt_from_handle(MPI_BYTE);
    rc = ol_coll_allgather(mine, (MPI_Count)record_size, bytes, all + sizeof(description_t),
                           (MPI_Count)record_size, bytes, comm);
    free(mine);
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    *description = all;
    *length = total;
    return MPI_SUCCESS;
}

/* The group a description names, its processes added to the table. It
 * came from a process that proved the port's secret (or the program's own
 * socket, or a communicator), but is still checked to hold together. */
int ol_dynamic_group(const void *description, size_t length, ol_group_t **group)
{
    description_t d;
    if (length < sizeof(d)) {
        ol_api_set_detail("the other group's description is cut short");
        return MPI_ERR_OTHER;
    }
    memcpy(&d, description, sizeof(d));
    if (d.count == 0 || d.record_size < sizeof(identity_t) ||
        (length - sizeof(d)) / d.record_size != d.count ||
        (length - sizeof(d)) % d.record_size != 0) {
        ol_api_set_detail("the other group's description does not hold together");
        return MPI_ERR_OTHER;
    }
    int *members = malloc(sizeof(int) * d.count);
    if (!members)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    const char *record = (const char *)description + sizeof(d);
    for (uint32_t i = 0; rc == MPI_SUCCESS && i < d.count; i++, record += d.record_size) {
        identity_t who;
        memcpy(&who, record, sizeof(who));
        who.job[sizeof(who.job) - 1] = '\0';
        who.host[sizeof(who.host) - 1] = '\0';
        if (who.address_length > d.record_size - sizeof(identity_t) || who.rank < 0) {
            ol_api_set_detail("the other group's description does not hold together");
            rc = MPI_ERR_OTHER;
            break;
        }
        rc = ol_rt_proc_index(who.job, who.rank, who.host, record + sizeof(identity_t),
                              who.address_length, &members[i]);
    }
    if (rc == MPI_SUCCESS && !(*group = ol_group_create((int)d.count, members)))
        rc = MPI_ERR_NO_MEM;
    free(members);
    return rc;
}

/* ---- meeting another group ------------------------------------------------------------ */

static ol_status_t swap_over_link(const void *out, void *in, size_t length, void *link)
{
    void *theirs;
    size_t their_length;
    ol_status_t rc = ol_rt_link_swap(*(int *)link, out, length, &theirs, &their_length);
    if (rc != OL_OK)
        return rc;
    if (their_length != length) {
        ol_api_set_detail("the other group's root answered %zu bytes where %zu were due",
                          their_length, length);
        rc = MPI_ERR_OTHER;
    } else {
        memcpy(in, theirs, length);
    }
    free(theirs);
    return rc;
}

/* The root tells the others whether its part went well, with its detail. */
typedef struct {
    int32_t rc;
    char detail[256];
} outcome_t;

static int share_outcome(ol_comm_t *comm, int root, int rc, const char *call)
{
    outcome_t o = {.rc = rc};
    if (comm->rank == root && rc != MPI_SUCCESS) {
        const char *why = ol_error_detail_take();
        snprintf(o.detail, sizeof(o.detail), "%s", why);
        ol_api_set_detail("%s", why);
    }
    int sent = ol_coll_bcast(&o, sizeof(o), ol_dt_from_handle(MPI_BYTE), root, comm);
    if (sent != MPI_SUCCESS)
        return sent;
    if (o.rc != MPI_SUCCESS && comm->rank != root)
        ol_api_set_detail("at the root (rank %d) of %s: %s", root, call,
                          o.detail[0] ? o.detail : "it failed");
    return o.rc;
}

/* Bytes the root has (its *data, *length), to every process of comm. */
static int share_bytes(ol_comm_t *comm, int root, void **data, size_t *length)
{
    uint64_t n = *length;
    ol_datatype_t *bytes = ol_dt_from_handle(MPI_BYTE);
    int rc = ol_coll_bcast(&n, 1, ol_dt_from_handle(MPI_UINT64_T), root, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->rank != root && !(*data = malloc(n ? n : 1)))
        return MPI_ERR_NO_MEM; /* the bcast below then hangs: memory is gone for good */
    *length = n;
    return ol_coll_bcast(*data, (MPI_Count)n, bytes, root, comm);
}

/* After the root's link is made (link_rc at the root: how that went):
 * the intercommunicator of comm's group with the group at the link's
 * other end. The root closes the link if close_link. */
static int meet(ol_comm_t *comm, int root, int link, int link_rc, bool close_link,
                const char *call, MPI_Comm *newcomm)
{
    void *mine = NULL, *theirs = NULL;
    size_t mine_length = 0, their_length = 0;
    int rc = ol_dynamic_describe(comm, &mine, &mine_length);
    if (rc != MPI_SUCCESS)
        return rc;
    bool is_root = comm->rank == root;
    if (is_root) {
        rc = link_rc;
        if (rc == MPI_SUCCESS)
            rc = ol_rt_link_swap(link, mine, mine_length, &theirs, &their_length);
    }
    free(mine);
    rc = share_outcome(comm, root, rc, call);
    if (rc == MPI_SUCCESS)
        rc = share_bytes(comm, root, &theirs, &their_length);
    ol_group_t *remote = NULL;
    if (rc == MPI_SUCCESS)
        rc = ol_dynamic_group(theirs, their_length, &remote);
    free(theirs);
    if (rc == MPI_SUCCESS)
        rc = ol_comm_create_with_remote(comm, root, remote, swap_over_link, &link, newcomm);
    if (is_root && close_link && link_rc == MPI_SUCCESS)
        close(link);
    return rc;
}

static int check_intra(const ol_comm_t *comm)
{
    if (ol_comm_is_inter(comm)) {
        ol_api_set_detail("%s is an intercommunicator; the call takes an intracommunicator",
                          comm->name[0] ? comm->name : "comm");
        return MPI_ERR_COMM;
    }
    return MPI_SUCCESS;
}

static int check_port_name(const char *port_name)
{
    if (!port_name) {
        ol_api_set_detail("port_name is NULL");
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

/* ---- ports ----------------------------------------------------------------------------- */

int ol_api_open_port(MPI_Info info, char *port_name)
{
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc == MPI_SUCCESS)
        rc = check_port_name(port_name);
    return rc == MPI_SUCCESS ? ol_rt_port_open(port_name) : rc;
}

int ol_api_close_port(const char *port_name)
{
    int rc = check_port_name(port_name);
    return rc == MPI_SUCCESS ? ol_rt_port_close(port_name) : rc;
}

/* MPI_Comm_accept and MPI_Comm_connect: the root makes the link through
 * the port (link_through), then the groups meet. */
static int meet_through_port(const char *port_name, int root, ol_comm_t *comm,
                             ol_status_t (*link_through)(const char *, int *),
                             const char *call, MPI_Comm *newcomm)
{
    int rc = check_intra(comm);
    if (rc != MPI_SUCCESS)
        return rc;
    int link = -1, link_rc = MPI_SUCCESS;
    if (comm->rank == root) {
        link_rc = check_port_name(port_name);
        if (link_rc == MPI_SUCCESS)
            link_rc = link_through(port_name, &link);
    }
    return meet(comm, root, link, link_rc, true, call, newcomm);
}

/* info: no hints of ours. */
int ol_api_comm_accept(const char *port_name, MPI_Info info, int root, ol_comm_t *comm,
                       MPI_Comm *newcomm)
{
    (void)info;
    return meet_through_port(port_name, root, comm, ol_rt_port_accept, "MPI_Comm_accept",
                             newcomm);
}

int ol_api_comm_connect(const char *port_name, MPI_Info info, int root, ol_comm_t *comm,
                        MPI_Comm *newcomm)
{
    (void)info;
    return meet_through_port(port_name, root, comm, ol_rt_port_connect, "MPI_Comm_connect",
                             newcomm);
}

int ol_api_comm_join(int fd, MPI_Comm *intercomm)
{
    if (fd < 0 || fcntl(fd, F_GETFL) < 0) {
        ol_api_set_detail("fd %d is not an open file descriptor", fd);
        return MPI_ERR_ARG;
    }
    return meet(&ol_comm_self, 0, fd, MPI_SUCCESS, false, "MPI_Comm_join", intercomm);
}

/* Waits for what is in flight on comm (every process of both groups
 * takes part: a barrier), then frees it. */
int ol_api_comm_disconnect(MPI_Comm *comm)
{
    ol_comm_t *c = ol_comm_from_handle(*comm);
    if (!c || c->predefined) {
        ol_api_set_detail("comm is %s", !c ? "not a valid communicator"
                                           : "predefined, which cannot be disconnected");
        return MPI_ERR_COMM;
    }
    int rc = ol_api_barrier(c, OL_API_BLOCKING, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    return ol_api_comm_free(comm);
}

/* ---- names --------------------------------------------------------------------------- */

static int check_names(const char *service_name, MPI_Info info, const char *port_name)
{
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc == MPI_SUCCESS && !service_name) {
        ol_api_set_detail("service_name is NULL");
        rc = MPI_ERR_ARG;
    }
    return rc == MPI_SUCCESS ? check_port_name(port_name) : rc;
}

int ol_api_publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    int rc = check_names(service_name, info, port_name);
    return rc == MPI_SUCCESS ? ol_rt_name_publish(service_name, port_name) : rc;
}

int ol_api_unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    int rc = check_names(service_name, info, port_name);
    return rc == MPI_SUCCESS ? ol_rt_name_unpublish(service_name, port_name) : rc;
}

int ol_api_lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    int rc = check_names(service_name, info, port_name);
    return rc == MPI_SUCCESS ? ol_rt_name_lookup(service_name, port_name) : rc;
}

/* ---- spawn ----------------------------------------------------------------------------- */

/* A program's request from the MPI arguments at the root: the info keys
 * host, hostfile, add-host, wdir, path and env (NAME=VALUE lines); other
 * keys are hints this launcher does not take. env[0] is the parent port. */
static int spawn_app(const char *command, char **argv, int maxprocs, MPI_Info info,
                     const char *parent_port, ol_rt_spawn_app_t *app, char **env_text)
{
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!command || !*command) {
        ol_api_set_detail("the command to spawn is %s", command ? "empty" : "NULL");
        return MPI_ERR_ARG;
    }
    if (maxprocs <= 0) {
        ol_api_set_detail("maxprocs is %d; it must be at least 1", maxprocs);
        return MPI_ERR_ARG;
    }
    *app = (ol_rt_spawn_app_t){.command = command, .argv = argv, .maxprocs = maxprocs};
    if (hints) {
        app->host = ol_info_get_value(hints, "host");
        app->hostfile = ol_info_get_value(hints, "hostfile");
        app->add_host = ol_info_get_value(hints, "add-host");
        app->wdir = ol_info_get_value(hints, "wdir");
        app->path = ol_info_get_value(hints, "path");
    }
    const char *extra = hints ? ol_info_get_value(hints, "env") : NULL;
    size_t lines = 1;
    for (const char *c = extra; c && *c; c++)
        lines += *c == '\n';
    char *copy = *env_text = extra ? strdup(extra) : NULL;
    app->env = calloc(lines + 2, sizeof(char *));
    char *entry = malloc(strlen(PARENT_PORT_VARIABLE) + 2 + strlen(parent_port));
    if (entry)
        sprintf(entry, "%s=%s", PARENT_PORT_VARIABLE, parent_port);
    if (app->env)
        app->env[0] = entry;
    if (!app->env || !entry || (extra && !copy))
        return MPI_ERR_NO_MEM; /* spawn_apps_free frees what was made */
    size_t n = 1;
    for (char *save = NULL, *line = copy ? strtok_r(copy, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save))
        if (strchr(line, '='))
            app->env[n++] = line;
    return MPI_SUCCESS;
}

/* The entries of env after the first point into env_texts[i]. */
static void spawn_apps_free(ol_rt_spawn_app_t *apps, char **env_texts, int napps)
{
    for (int i = 0; apps && i < napps; i++) {
        if (apps[i].env)
            free(apps[i].env[0]);
        free(apps[i].env);
        free(env_texts[i]);
    }
    free(apps);
    free(env_texts);
}

/* The root's part before the meeting: a port, the spawn, the children's
 * connection. Returns how it went; *link when it went well. */
static int spawn_at_root(int count, char **commands, char ***argvs, const int *maxprocs,
                         const MPI_Info *infos, char *port, int *link)
{
    ol_rt_spawn_app_t *apps = calloc((size_t)count, sizeof(*apps));
    char **env_texts = calloc((size_t)count, sizeof(*env_texts));
    int rc = apps && env_texts ? ol_rt_port_open(port) : MPI_ERR_NO_MEM;
    for (int i = 0; rc == MPI_SUCCESS && i < count; i++)
        rc = spawn_app(commands[i], argvs ? argvs[i] : NULL, maxprocs[i], infos[i], port,
                       &apps[i], &env_texts[i]);
    if (rc == MPI_SUCCESS)
        rc = ol_rt_spawn(apps, count);
    spawn_apps_free(apps, env_texts, count);
    if (rc == MPI_SUCCESS)
        rc = ol_rt_port_accept(port, link);
    return rc;
}

static void fill_errcodes(int *errcodes, int n, int rc)
{
    if (errcodes == MPI_ERRCODES_IGNORE)
        return;
    for (int i = 0; i < n; i++)
        errcodes[i] = rc;
}

/* The arguments only the root reads: a failure there fails the call on
 * every process (the root shares it), instead of leaving them waiting. */
static int check_root_args(int count, char **commands, const int *maxprocs,
                           const MPI_Info *infos)
{
    if (count < 1) {
        ol_api_set_detail("count is %d; MPI_Comm_spawn_multiple starts at least one command",
                          count);
        return MPI_ERR_ARG;
    }
    if (!commands || !maxprocs || !infos) {
        ol_api_set_detail("array_of_commands, array_of_maxprocs and array_of_info must be "
                          "given at the root");
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

static int spawn(int count, char **commands, char ***argvs, const int *maxprocs,
                 const MPI_Info *infos, int root, ol_comm_t *comm, MPI_Comm *intercomm,
                 int *errcodes)
{
    int rc = check_intra(comm);
    if (rc != MPI_SUCCESS)
        return rc;
    char port[MPI_MAX_PORT_NAME] = "";
    int link = -1, link_rc = MPI_SUCCESS, total = 0;
    if (comm->rank == root) {
        link_rc = check_root_args(count, commands, maxprocs, infos);
        for (int i = 0; link_rc == MPI_SUCCESS && i < count; i++)
            total += maxprocs[i] > 0 ? maxprocs[i] : 0;
        if (link_rc == MPI_SUCCESS)
            link_rc = spawn_at_root(count, commands, argvs, maxprocs, infos, port, &link);
    }
    /* Every process fills as many codes as processes were asked for. */
    int sent = ol_coll_bcast(&total, 1, ol_dt_from_handle(MPI_INT), root, comm);
    if (sent != MPI_SUCCESS)
        return sent;
    *intercomm = MPI_COMM_NULL;
    rc = meet(comm, root, link, link_rc, true, count == 1 ? "MPI_Comm_spawn"
                                                         : "MPI_Comm_spawn_multiple",
              intercomm);
    if (comm->rank == root && port[0])
        ol_rt_port_close(port);
    fill_errcodes(errcodes, total, rc);
    return rc;
}

int ol_api_comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                      ol_comm_t *comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *commands[1] = {(char *)command};
    char **argvs[1] = {argv};
    return spawn(1, commands, argv == MPI_ARGV_NULL ? NULL : argvs, &maxprocs, &info, root,
                 comm, intercomm, array_of_errcodes);
}

int ol_api_comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                               const int array_of_maxprocs[], const MPI_Info array_of_info[],
                               int root, ol_comm_t *comm, MPI_Comm *intercomm,
                               int array_of_errcodes[])
{
    return spawn(count, array_of_commands,
                 array_of_argv == MPI_ARGVS_NULL ? NULL : array_of_argv, array_of_maxprocs,
                 array_of_info, root, comm, intercomm, array_of_errcodes);
}

/* ---- the parent ------------------------------------------------------------------------ */

int ol_api_comm_get_parent(MPI_Comm *parent)
{
    *parent = ol_comm_parent ? ol_comm_to_handle(ol_comm_parent) : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int ol_dynamic_start(void)
{
    const char *port = getenv(PARENT_PORT_VARIABLE);
    if (!port)
        return MPI_SUCCESS;
    char name[MPI_MAX_PORT_NAME];
    snprintf(name, sizeof(name), "%s", port);
    unsetenv(PARENT_PORT_VARIABLE); /* not for programs this one starts */
    int link = -1, link_rc = MPI_SUCCESS;
    if (ol_comm_world.rank == 0)
        link_rc = ol_rt_port_connect(name, &link);
    MPI_Comm parent;
    int rc = meet(&ol_comm_world, 0, link, link_rc, true, "the connection to the parents",
                  &parent);
    if (rc == MPI_SUCCESS) {
        ol_comm_parent = ol_comm_from_handle(parent);
        snprintf(ol_comm_parent->name, sizeof(ol_comm_parent->name), "MPI_COMM_PARENT");
    }
    return rc;
}

void ol_dynamic_stop(void)
{
    if (ol_comm_parent) {
        MPI_Comm parent = ol_comm_to_handle(ol_comm_parent);
        ol_api_comm_free(&parent);
    }
}
