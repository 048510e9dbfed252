/* The tool information interface (MPI-4.1 chapter 15, MPI_T).
 *
 * Control variables are the rows of the parameter tables, the same list
 * `ompi_lite_info --params` prints, named by their environment variable
 * (OMPI_LITE_SPIN_US), one category per subsystem. The tables are found
 * through the print functions every subsystem has for ompi_lite_info
 * (ol_param_table_set_visitor), so a new row is a new variable. A
 * parameter read once at start-up is MPI_T_SCOPE_READONLY: writing it is
 * MPI_T_ERR_CVAR_SET_NEVER. The collectives read theirs at every call
 * (forcing an algorithm, the size thresholds): those are writable while
 * the runtime runs, scope MPI_T_SCOPE_ALL_EQ since every process must
 * choose the same algorithm; before MPI_Init and after MPI_Finalize a
 * write is MPI_T_ERR_CVAR_SET_NOT_NOW (start-up reads the environment
 * again). The launcher's parameters (mpirun's, which a process only sees
 * in its environment) are MPI_T_SCOPE_CONSTANT, in category "launcher".
 *
 * Performance variables are counters the layers keep per process
 * (ol_counter.h: they count only while a handle of a counter is started;
 * no clock unless a timer's is):
 * point-to-point's (ol_pt2pt_counters: messages and bytes sent and received
 * per path, the rings' matching queues), the progress engine's wait timer
 * (read the clock only while a handle of it is started) and the
 * collectives' calls by algorithm (coll_select.h); the list is built at
 * the first MPI_T_init_thread, names and all. A counter or timer counts,
 * per handle, while the handle is started; a level is the current value,
 * continuous and read-only; a high-water mark is read-only and begins again
 * from the current length when any handle of it is started (the mark is
 * the library's, one for all handles).
 *
 * No events and no event sources are declared: MPI_T_event_get_num and
 * MPI_T_source_get_num say 0, and the calls on an index, a registration
 * or an instance answer MPI_T_ERR_INVALID_INDEX or _HANDLE. No variable
 * has an enumeration (every int parameter is a number), so the enum calls
 * answer MPI_T_ERR_INVALID_HANDLE.
 *
 * Every call takes one lock, so MPI_THREAD_MULTIPLE is provided. The
 * calls return their error codes and invoke no error handler
 * (gen_bindings.py, is_tool). */
#include "gen_impl.h"
#include "coll.h"
#include "coll_select.h"
#include "ol_accel.h"
#include "ol_counter.h"
#include "ol_param_table.h"
#include "ol_state.h"
#include "pt2pt.h"
#include "../../launcher/params.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The longest value a writable string variable takes, null included. */
#define STRING_MAX 256

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int initialized; /* MPI_T_init_thread calls not yet finalized */

/* ---- categories ------------------------------------------------------ */

enum { CAT_RUNTIME, CAT_PT2PT, CAT_COLL, CAT_RMA, CAT_IO, CAT_ACCEL, CAT_LAUNCHER, CATEGORIES };

static const struct {
    const char *name, *desc;
} categories[CATEGORIES] = {
    [CAT_RUNTIME] = {"runtime", "start-up, progress, logging, the UCX settings the library "
                                "applies, the state record of hang reports"},
    [CAT_PT2PT] = {"pt2pt", "point-to-point: same-host rings, large-message copies, "
                            "datatypes, device buffers"},
    [CAT_COLL] = {"coll", "collectives: algorithms (forcing one) and their size thresholds, "
                          "the shared-memory segment"},
    [CAT_RMA] = {"rma", "one-sided communication"},
    [CAT_IO] = {"io", "MPI-IO: the defaults of the collective-buffering and data-sieving hints"},
    [CAT_ACCEL] = {"accel", "device (GPU) buffers"},
    [CAT_LAUNCHER] = {"launcher", "mpirun and its daemons: what this process was started with "
                                  "(read-only here)"},
};

/* ---- control variables ------------------------------------------------ */

typedef struct {
    const ol_param_t *row;
    int category;
    bool writable; /* read at every use (the collectives' own tables) */
} cvar_t;

/* The launcher's table in the library's row format, so that it is read
 * from the environment as the others are. */
static ol_param_t launcher_rows[OL_LAUNCHER_PARAMS];
static int launcher_values[OL_LAUNCHER_PARAMS];
static char launcher_defaults[OL_LAUNCHER_PARAMS][24];

static void launcher_print(FILE *out)
{
    for (int i = 0; i < OL_LAUNCHER_PARAMS; i++) {
        const ol_launcher_param_t *p = &ol_launcher_params[i];
        snprintf(launcher_defaults[i], sizeof(launcher_defaults[i]), "%ld", p->default_value);
        launcher_rows[i] = (ol_param_t){p->name, OL_PARAM_INT, launcher_defaults[i], p->help,
                                        &launcher_values[i], p->min, p->max};
    }
    ol_param_table_load_quiet(launcher_rows, OL_LAUNCHER_PARAMS);
    ol_param_table_print(launcher_rows, OL_LAUNCHER_PARAMS, out);
}

static cvar_t *cvars;
static int ncvars;
static int collecting; /* the category of the tables being listed */

static void collect_table(const ol_param_t *table, size_t rows, void *arg)
{
    (void)arg;
    bool writable = false;
    for (int k = 0; k < OL_COLL_KINDS; k++)
        writable |= collecting == CAT_COLL && ol_coll_tables[k]->params == table;
    cvar_t *grown = realloc(cvars, (size_t)(ncvars + (int)rows) * sizeof(*grown));
    if (!grown)
        return;
    cvars = grown;
    for (size_t i = 0; i < rows; i++)
        cvars[ncvars++] = (cvar_t){&table[i], collecting, writable};
}

/* Lists every table once per process, by subsystem, in the order
 * ompi_lite_info prints them. Before the runtime ever ran, the values are
 * loaded from the environment (quietly: MPI_Init reports bad ones), so a
 * tool sees what MPI_Init will use. */
static int collect_cvars(void)
{
    if (cvars)
        return MPI_SUCCESS;
    static const struct {
        int category;
        void (*print)(FILE *);
    } lists[] = {
        {CAT_RUNTIME, ol_params_print},   {CAT_RUNTIME, ol_state_params_print},
        {CAT_PT2PT, ol_pt2pt_params_print}, {CAT_COLL, ol_coll_params_print},
        {CAT_RMA, ol_rma_params_print},   {CAT_IO, ol_io_params_print},
        {CAT_ACCEL, ol_accel_params_print},
        {CAT_LAUNCHER, launcher_print},
    };
    ol_param_table_set_visitor(collect_table, NULL);
    for (size_t i = 0; i < OL_ARRAY_SIZE(lists); i++) {
        collecting = lists[i].category;
        lists[i].print(NULL);
    }
    ol_param_table_set_visitor(NULL, NULL);
    if (!cvars)
        return MPI_T_ERR_MEMORY;
    if (ol_rt.state == OL_RT_NOT_STARTED)
        for (int i = 0; i < ncvars; i++)
            ol_param_table_load_quiet(cvars[i].row, 1);
    return MPI_SUCCESS;
}

static int cvar_verbosity(const cvar_t *v)
{
    const char *help = v->row->help, *name = v->row->name;
    size_t len = strlen(name);
    if (strncmp(help, "for tests only", 14) == 0)
        return MPI_T_VERBOSITY_MPIDEV_ALL;
    if (strncmp(name, "DEBUG", 5) == 0 ||
        (len > 10 && strcmp(name + len - 10, "_ALGORITHM") == 0))
        return MPI_T_VERBOSITY_USER_BASIC;
    return MPI_T_VERBOSITY_TUNER_BASIC;
}

static const char *cvar_string(const cvar_t *v)
{
    const char *s = *(const char *const *)v->row->storage;
    return s ? s : "";
}

/* Elements of a read: an int, or a string's characters with the null. */
static int cvar_count(const cvar_t *v)
{
    if (v->row->type == OL_PARAM_INT)
        return 1;
    int len = (int)strlen(cvar_string(v)) + 1;
    return v->writable && len < STRING_MAX ? STRING_MAX : len;
}

typedef struct cvar_handle {
    const cvar_t *var;
    struct cvar_handle *next;
} cvar_handle_t;

static cvar_handle_t *cvar_handles;

/* ---- performance variables -------------------------------------------- */

typedef struct {
    const char *name, *desc;
    int var_class; /* MPI_T_PVAR_CLASS_COUNTER, _LEVEL, _HIGHWATERMARK or _TIMER */
    int category;
    uint64_t (*value)(int arg);
    int arg;
    void (*restart)(void); /* a high-water mark's: from the current level on */
} pvar_t;

static uint64_t ring_messages_sent(int arg)
{
    (void)arg;
    ol_pt2pt_counters_t c;
    ol_pt2pt_counters(&c);
    return c.ring_messages_sent;
}

static uint64_t copy_chunks_written(int arg)
{
    (void)arg;
    ol_pt2pt_counters_t c;
    ol_pt2pt_counters(&c);
    return c.copy_chunks_written;
}

static uint64_t copy_bytes_written(int arg)
{
    (void)arg;
    ol_pt2pt_counters_t c;
    ol_pt2pt_counters(&c);
    return c.copy_bytes_written;
}

static uint64_t sends_in_flight(int arg)
{
    (void)arg;
    ol_pt2pt_counters_t c;
    ol_pt2pt_counters(&c);
    return c.sends_in_flight;
}

static uint64_t backlogged_peers(int arg)
{
    (void)arg;
    ol_pt2pt_counters_t c;
    ol_pt2pt_counters(&c);
    return c.backlogged_peers;
}

static uint64_t unexpected_queue(int arg)
{
    (void)arg;
    ol_pt2pt_counters_t c;
    ol_pt2pt_counters(&c);
    return c.unexpected;
}

static uint64_t unexpected_high_water(int arg)
{
    (void)arg;
    ol_pt2pt_counters_t c;
    ol_pt2pt_counters(&c);
    return c.unexpected_high_water;
}

static uint64_t posted_queue(int arg)
{
    (void)arg;
    ol_pt2pt_counters_t c;
    ol_pt2pt_counters(&c);
    return c.posted;
}

static uint64_t progress_wait_ns(int arg)
{
    (void)arg;
    return ol_progress_wait_ns();
}

/* The paths' counters: arg is path * 4 + the field, in the order of
 * ol_p2p_path_counts_t. */
static uint64_t path_count(int arg)
{
    ol_pt2pt_counters_t c;
    ol_pt2pt_counters(&c);
    const ol_p2p_path_counts_t *p = &c.paths[arg / 4];
    const uint64_t fields[] = {p->messages_sent, p->bytes_sent, p->messages_received,
                               p->bytes_received};
    return fields[arg % 4];
}

/* arg is kind * OL_COLL_RAN_WAYS + way. */
static uint64_t coll_calls(int arg)
{
    return ol_coll_calls(arg / OL_COLL_RAN_WAYS, arg % OL_COLL_RAN_WAYS);
}

static const pvar_t fixed_pvars[] = {
    {"pt2pt_shm_messages_sent",
     "messages this process sent to processes of its host through the shared-memory rings "
     "(point-to-point and the collectives' own; from the runtime's start)",
     MPI_T_PVAR_CLASS_COUNTER, CAT_PT2PT, ring_messages_sent, 0, NULL},
    {"pt2pt_shm_copy_chunks_written",
     "chunks of large same-host messages this process, as their sender, wrote into the "
     "receivers' memory while it waited (the rest the receivers read)",
     MPI_T_PVAR_CLASS_COUNTER, CAT_PT2PT, copy_chunks_written, 0, NULL},
    {"pt2pt_shm_copy_bytes_written", "bytes of those chunks", MPI_T_PVAR_CLASS_COUNTER,
     CAT_PT2PT, copy_bytes_written, 0, NULL},
    {"pt2pt_sends_in_flight",
     "nonblocking sends handed to UCX that it has not completed yet", MPI_T_PVAR_CLASS_LEVEL,
     CAT_PT2PT, sends_in_flight, 0, NULL},
    {"pt2pt_shm_backlogged_peers",
     "processes of this host whose ring from this process is full, with messages waiting "
     "in this process for room", MPI_T_PVAR_CLASS_LEVEL, CAT_PT2PT, backlogged_peers, 0, NULL},
    {"pt2pt_unexpected_queue_length",
     "messages that arrived through the same-host rings and wait for a receive (0 when UCX "
     "matches, in jobs across hosts: UCX keeps its unexpected messages to itself)",
     MPI_T_PVAR_CLASS_LEVEL, CAT_PT2PT, unexpected_queue, 0, NULL},
    {"pt2pt_unexpected_queue_high_water",
     "the longest the unexpected queue of the rings was since the handle was started; "
     "starting any handle of it starts the mark again from the current length",
     MPI_T_PVAR_CLASS_HIGHWATERMARK, CAT_PT2PT, unexpected_high_water, 0,
     ol_pt2pt_reset_unexpected_high_water},
    {"pt2pt_posted_queue_length",
     "receives posted in the same-host rings' matching that no message has matched yet "
     "(0 when UCX matches)", MPI_T_PVAR_CLASS_LEVEL, CAT_PT2PT, posted_queue, 0, NULL},
    {"runtime_progress_wait_time",
     "nanoseconds this process spent waiting in the progress engine (blocking calls, "
     "MPI_Wait and kin) while the handle was started; the clock is read only while some "
     "handle of it is started", MPI_T_PVAR_CLASS_TIMER, CAT_RUNTIME, progress_wait_ns, 0, NULL},
};

static const struct {
    const char *name, *desc;
} path_names[OL_P2P_PATHS] = {
    [OL_P2P_PATH_SHM_RING] = {"shm_ring", "through the shared-memory rings of a one-host job "
                                          "(bytes in the ring, or copied by address)"},
    [OL_P2P_PATH_UCX_SHM] = {"ucx_shm", "through UCX's tag matching, to or from a process of "
                                        "this host: UCX's shared-memory transports (posix, "
                                        "sysv, cma)"},
    [OL_P2P_PATH_UCX_NET] = {"ucx_net", "through UCX's tag matching, to or from a process of "
                                        "another host: UCX's network transports (tcp, or "
                                        "InfiniBand where UCX finds it)"},
    [OL_P2P_PATH_DEVICE_IPC] = {"device_ipc", "from or into device memory by a device-to-"
                                              "device copy through CUDA IPC"},
    [OL_P2P_PATH_DEVICE_STAGED] = {"device_staged", "from or into device memory staged through "
                                                    "pinned host buffers"},
};

static const char *const path_fields[4] = {"messages_sent", "bytes_sent", "messages_received",
                                           "bytes_received"};

/* Built at the first MPI_T_init_thread: the fixed ones, the paths'
 * counters and the collectives' calls by algorithm (from their tables).
 * The names live as long as the process. */
static pvar_t *pvars;
static int npvars;

/* A level is continuous and read-only; a high-water mark is read-only
 * (only starting it begins the mark again); counters and the timer count
 * from a base while started, and may be reset and written. */
static bool is_level(const pvar_t *p)
{
    return p->var_class == MPI_T_PVAR_CLASS_LEVEL;
}

static bool is_readonly(const pvar_t *p)
{
    return is_level(p) || p->var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK;
}

static bool is_timer(const pvar_t *p)
{
    return p->var_class == MPI_T_PVAR_CLASS_TIMER;
}

typedef struct pvar_handle {
    struct pvar_session *session;
    const pvar_t *var;
    bool started;
    uint64_t accumulated; /* counted while started, up to base */
    uint64_t base;        /* the variable's value when last started, read or reset */
    struct pvar_handle *next;
} pvar_handle_t;

typedef struct pvar_session {
    pvar_handle_t *handles;
    struct pvar_session *next;
} pvar_session_t;

static pvar_session_t *sessions;

static void handle_free(pvar_handle_t *h);

/* ---- shared helpers ----------------------------------------------------- */

/* MPI-4.1 15.3.3: *len 0 asks for the length (null included); otherwise
 * at most *len - 1 characters and a null are copied, and *len says how
 * many with the null. A NULL len (or name) is ignored. */
static void put_string(const char *s, char *out, int *len)
{
    if (!len)
        return;
    int full = (int)strlen(s) + 1;
    if (*len <= 0 || !out) {
        *len = full;
        return;
    }
    int n = *len < full ? *len : full;
    memcpy(out, s, (size_t)n - 1);
    out[n - 1] = '\0';
    *len = n;
}

#define SET(ptr, value) \
    do { \
        if (ptr) \
            *(ptr) = (value); \
    } while (0)

/* Each call's first step: the lock, and whether MPI_T runs. */
static int enter(void)
{
    pthread_mutex_lock(&lock);
    if (initialized > 0)
        return MPI_SUCCESS;
    pthread_mutex_unlock(&lock);
    return MPI_T_ERR_NOT_INITIALIZED;
}

static int leave(int rc)
{
    pthread_mutex_unlock(&lock);
    return rc;
}

#define ENTER() \
    do { \
        int entered_ = enter(); \
        if (entered_ != MPI_SUCCESS) \
            return entered_; \
    } while (0)

/* ---- the list of performance variables ---------------------------------- */

static char *name_of(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b);
    char *name = malloc(n);
    if (name)
        snprintf(name, n, fmt, a, b);
    return name;
}

static bool add_pvar(int *at, const pvar_t *p)
{
    if (!p->name)
        return false;
    pvars[(*at)++] = *p;
    return true;
}

static bool add_path_pvars(int *at)
{
    bool ok = true;
    for (int path = 0; ok && path < OL_P2P_PATHS; path++)
        for (int f = 0; ok && f < 4; f++)
            ok = add_pvar(at, &(pvar_t){name_of("pt2pt_%s_%s", path_names[path].name,
                                                path_fields[f]),
                                        path_names[path].desc, MPI_T_PVAR_CLASS_COUNTER,
                                        CAT_PT2PT, path_count, path * 4 + f, NULL});
    return ok;
}

static const char *const coll_calls_desc =
    "calls of this collective that ran this algorithm (counted when issued: a persistent "
    "collective at its init; the library's own collectives too)";

/* Each collective's algorithms, then the ways around the tables (the
 * device IPC one is allreduce's alone, the split reduce's). */
static bool add_coll_pvars(int *at)
{
    bool ok = true;
    for (int k = 0; ok && k < OL_COLL_KINDS; k++) {
        const ol_coll_table_t *t = ol_coll_tables[k];
        for (int way = 0; ok && way < OL_COLL_RAN_WAYS; way++) {
            if ((way >= t->count && way < OL_COLL_RAN_SHM) ||
                (way == OL_COLL_RAN_DEVICE_IPC && k != OL_COLL_ALLREDUCE) ||
                (way == OL_COLL_RAN_SPLIT && k != OL_COLL_REDUCE))
                continue;
            const char *algorithm = way < OL_COLL_RAN_SHM ? t->algorithms[way].name
                                                          : ol_coll_ran_name(way);
            ok = add_pvar(at, &(pvar_t){name_of("coll_%s_%s_calls", t->name, algorithm),
                                        coll_calls_desc, MPI_T_PVAR_CLASS_COUNTER, CAT_COLL,
                                        coll_calls, k * OL_COLL_RAN_WAYS + way, NULL});
        }
    }
    return ok;
}

static int build_pvars(void)
{
    if (pvars)
        return MPI_SUCCESS;
    int most = (int)OL_ARRAY_SIZE(fixed_pvars) + OL_P2P_PATHS * 4 +
               OL_COLL_KINDS * OL_COLL_RAN_WAYS;
    pvars = calloc((size_t)most, sizeof(*pvars));
    if (!pvars)
        return MPI_T_ERR_MEMORY;
    int n = 0;
    for (size_t i = 0; i < OL_ARRAY_SIZE(fixed_pvars); i++)
        pvars[n++] = fixed_pvars[i];
    if (!add_path_pvars(&n) || !add_coll_pvars(&n)) {
        for (int i = (int)OL_ARRAY_SIZE(fixed_pvars); i < n; i++)
            free((char *)pvars[i].name);
        free(pvars);
        pvars = NULL;
        return MPI_T_ERR_MEMORY;
    }
    npvars = n;
    return MPI_SUCCESS;
}

/* ---- initialisation ----------------------------------------------------- */

int ol_api_t_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    pthread_mutex_lock(&lock);
    int rc = collect_cvars();
    if (rc == MPI_SUCCESS)
        rc = build_pvars();
    if (rc == MPI_SUCCESS) {
        initialized++;
        /* Every call holds the lock: any level is provided as asked. */
        *provided = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                    : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                     : required;
    }
    return leave(rc);
}

static void free_all_handles(void)
{
    while (cvar_handles) {
        cvar_handle_t *h = cvar_handles;
        cvar_handles = h->next;
        free(h);
    }
    while (sessions) {
        pvar_session_t *s = sessions;
        sessions = s->next;
        while (s->handles) {
            pvar_handle_t *h = s->handles;
            s->handles = h->next;
            handle_free(h);
        }
        free(s);
    }
}

int ol_api_t_finalize(void)
{
    ENTER();
    /* The last finalize ends the interface: its handles and sessions go. */
    if (--initialized == 0)
        free_all_handles();
    return leave(MPI_SUCCESS);
}

/* ---- control variables: queries ----------------------------------------- */

static const cvar_t *cvar_at(int index)
{
    return index >= 0 && index < ncvars ? &cvars[index] : NULL;
}

int ol_api_t_cvar_get_num(int *num_cvar)
{
    ENTER();
    if (!num_cvar)
        return leave(MPI_T_ERR_INVALID);
    *num_cvar = ncvars;
    return leave(MPI_SUCCESS);
}

int ol_api_t_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                           MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                           int *desc_len, int *bind, int *scope)
{
    ENTER();
    const cvar_t *v = cvar_at(cvar_index);
    if (!v)
        return leave(MPI_T_ERR_INVALID_INDEX);
    char full[128];
    snprintf(full, sizeof(full), "OMPI_LITE_%s", v->row->name);
    put_string(full, name, name_len);
    SET(verbosity, cvar_verbosity(v));
    SET(datatype, v->row->type == OL_PARAM_INT ? MPI_INT : MPI_CHAR);
    SET(enumtype, MPI_T_ENUM_NULL);
    put_string(v->row->help, desc, desc_len);
    SET(bind, MPI_T_BIND_NO_OBJECT);
    SET(scope, v->writable                   ? MPI_T_SCOPE_ALL_EQ
               : v->category == CAT_LAUNCHER ? MPI_T_SCOPE_CONSTANT
                                             : MPI_T_SCOPE_READONLY);
    return leave(MPI_SUCCESS);
}

int ol_api_t_cvar_get_index(const char *name, int *cvar_index)
{
    ENTER();
    if (!name || !cvar_index)
        return leave(MPI_T_ERR_INVALID);
    if (strncmp(name, "OMPI_LITE_", 10) == 0)
        for (int i = 0; i < ncvars; i++)
            if (strcmp(cvars[i].row->name, name + 10) == 0) {
                *cvar_index = i;
                return leave(MPI_SUCCESS);
            }
    return leave(MPI_T_ERR_INVALID_NAME);
}

/* ---- control variables: handles, read, write ---------------------------- */

static cvar_handle_t *cvar_handle_find(MPI_T_cvar_handle handle)
{
    for (cvar_handle_t *h = cvar_handles; h; h = h->next)
        if ((MPI_T_cvar_handle)h == handle)
            return h;
    return NULL;
}

int ol_api_t_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                               int *count)
{
    (void)obj_handle; /* every variable binds to no object */
    ENTER();
    const cvar_t *v = cvar_at(cvar_index);
    if (!v)
        return leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return leave(MPI_T_ERR_INVALID);
    cvar_handle_t *h = malloc(sizeof(*h));
    if (!h)
        return leave(MPI_T_ERR_MEMORY);
    *h = (cvar_handle_t){v, cvar_handles};
    cvar_handles = h;
    *handle = (MPI_T_cvar_handle)h;
    *count = cvar_count(v);
    return leave(MPI_SUCCESS);
}

int ol_api_t_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    ENTER();
    if (!handle)
        return leave(MPI_T_ERR_INVALID);
    for (cvar_handle_t **at = &cvar_handles; *at; at = &(*at)->next) {
        if ((MPI_T_cvar_handle)*at != *handle)
            continue;
        cvar_handle_t *h = *at;
        *at = h->next;
        free(h);
        *handle = MPI_T_CVAR_HANDLE_NULL;
        return leave(MPI_SUCCESS);
    }
    return leave(MPI_T_ERR_INVALID_HANDLE);
}

int ol_api_t_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    ENTER();
    cvar_handle_t *h = cvar_handle_find(handle);
    if (!h)
        return leave(MPI_T_ERR_INVALID_HANDLE);
    if (!buf)
        return leave(MPI_T_ERR_INVALID);
    const cvar_t *v = h->var;
    if (v->row->type == OL_PARAM_INT)
        *(int *)buf = __atomic_load_n((const int *)v->row->storage, __ATOMIC_RELAXED);
    else
        strcpy(buf, cvar_string(v));
    return leave(MPI_SUCCESS);
}

/* The values a row takes: its range (0, 0: any int). */
static bool int_in_range(const ol_param_t *p, int value)
{
    return (p->min == 0 && p->max == 0) || (value >= p->min && value <= p->max);
}

/* A written string outlives every later write: a collective on another
 * thread may still be reading the value it replaced. They are kept on a
 * list (for the life of the process, a few bytes a write). */
typedef struct written {
    struct written *next;
    char text[];
} written_t;
static written_t *written_strings;

static int write_string(const cvar_t *v, const char *text)
{
    size_t length = strnlen(text, STRING_MAX);
    if (length >= STRING_MAX)
        return MPI_T_ERR_INVALID;
    written_t *w = malloc(sizeof(*w) + length + 1);
    if (!w)
        return MPI_T_ERR_MEMORY;
    memcpy(w->text, text, length + 1);
    w->next = written_strings;
    written_strings = w;
    __atomic_store_n((const char **)v->row->storage, (const char *)w->text, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

int ol_api_t_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    ENTER();
    cvar_handle_t *h = cvar_handle_find(handle);
    if (!h)
        return leave(MPI_T_ERR_INVALID_HANDLE);
    const cvar_t *v = h->var;
    if (!v->writable)
        return leave(MPI_T_ERR_CVAR_SET_NEVER);
    /* Start-up reads the environment again, and would undo the write. */
    if (ol_rt.state != OL_RT_RUNNING)
        return leave(MPI_T_ERR_CVAR_SET_NOT_NOW);
    if (!buf)
        return leave(MPI_T_ERR_INVALID);
    if (v->row->type == OL_PARAM_STRING)
        return leave(write_string(v, buf));
    int value = *(const int *)buf;
    if (!int_in_range(v->row, value))
        return leave(MPI_T_ERR_INVALID);
    __atomic_store_n((int *)v->row->storage, value, __ATOMIC_RELAXED);
    return leave(MPI_SUCCESS);
}

/* ---- performance variables: queries ------------------------------------- */

int ol_api_t_pvar_get_num(int *num_pvar)
{
    ENTER();
    if (!num_pvar)
        return leave(MPI_T_ERR_INVALID);
    *num_pvar = npvars;
    return leave(MPI_SUCCESS);
}

int ol_api_t_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                           int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                           char *desc, int *desc_len, int *bind, int *readonly, int *continuous,
                           int *atomic)
{
    ENTER();
    if (pvar_index < 0 || pvar_index >= npvars)
        return leave(MPI_T_ERR_INVALID_INDEX);
    const pvar_t *p = &pvars[pvar_index];
    put_string(p->name, name, name_len);
    SET(verbosity, MPI_T_VERBOSITY_TUNER_BASIC);
    SET(var_class, p->var_class);
    SET(datatype, is_readonly(p) ? MPI_UNSIGNED : MPI_UNSIGNED_LONG_LONG);
    SET(enumtype, MPI_T_ENUM_NULL);
    put_string(p->desc, desc, desc_len);
    SET(bind, MPI_T_BIND_NO_OBJECT);
    SET(readonly, is_readonly(p));
    SET(continuous, is_level(p));
    /* A counter's handle reads and resets under the interface's lock from
     * one reading of the variable: no count is lost between the two. */
    SET(atomic, !is_readonly(p));
    return leave(MPI_SUCCESS);
}

int ol_api_t_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    ENTER();
    if (!name || !pvar_index)
        return leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < npvars; i++)
        if (pvars[i].var_class == var_class && strcmp(pvars[i].name, name) == 0) {
            *pvar_index = i;
            return leave(MPI_SUCCESS);
        }
    return leave(MPI_T_ERR_INVALID_NAME);
}

/* ---- performance variables: sessions and handles ------------------------ */

static pvar_session_t *session_find(MPI_T_pvar_session handle)
{
    for (pvar_session_t *s = sessions; s; s = s->next)
        if ((MPI_T_pvar_session)s == handle)
            return s;
    return NULL;
}

/* MPI_T_PVAR_ALL_HANDLES is no handle of its own: callers that accept it
 * test for it first. */
static pvar_handle_t *handle_find(pvar_session_t *s, MPI_T_pvar_handle handle)
{
    for (pvar_handle_t *h = s->handles; h; h = h->next)
        if ((MPI_T_pvar_handle)h == handle)
            return h;
    return NULL;
}

int ol_api_t_pvar_session_create(MPI_T_pvar_session *session)
{
    ENTER();
    if (!session)
        return leave(MPI_T_ERR_INVALID);
    pvar_session_t *s = calloc(1, sizeof(*s));
    if (!s)
        return leave(MPI_T_ERR_MEMORY);
    s->next = sessions;
    sessions = s;
    *session = (MPI_T_pvar_session)s;
    return leave(MPI_SUCCESS);
}

int ol_api_t_pvar_session_free(MPI_T_pvar_session *session)
{
    ENTER();
    if (!session)
        return leave(MPI_T_ERR_INVALID);
    for (pvar_session_t **at = &sessions; *at; at = &(*at)->next) {
        if ((MPI_T_pvar_session)*at != *session)
            continue;
        pvar_session_t *s = *at;
        *at = s->next;
        while (s->handles) {
            pvar_handle_t *h = s->handles;
            s->handles = h->next;
            handle_free(h);
        }
        free(s);
        *session = MPI_T_PVAR_SESSION_NULL;
        return leave(MPI_SUCCESS);
    }
    return leave(MPI_T_ERR_INVALID_SESSION);
}

int ol_api_t_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                               MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle; /* every variable binds to no object */
    ENTER();
    pvar_session_t *s = session_find(session);
    if (!s)
        return leave(MPI_T_ERR_INVALID_SESSION);
    if (pvar_index < 0 || pvar_index >= npvars)
        return leave(MPI_T_ERR_INVALID_INDEX);
    if (!handle || !count)
        return leave(MPI_T_ERR_INVALID);
    pvar_handle_t *h = calloc(1, sizeof(*h));
    if (!h)
        return leave(MPI_T_ERR_MEMORY);
    const pvar_t *p = &pvars[pvar_index];
    /* A continuous variable runs from its allocation on. */
    *h = (pvar_handle_t){s, p, is_level(p), 0, p->value(p->arg), s->handles};
    s->handles = h;
    *handle = (MPI_T_pvar_handle)h;
    *count = 1;
    return leave(MPI_SUCCESS);
}

int ol_api_t_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    ENTER();
    pvar_session_t *s = session_find(session);
    if (!s)
        return leave(MPI_T_ERR_INVALID_SESSION);
    if (!handle)
        return leave(MPI_T_ERR_INVALID);
    for (pvar_handle_t **at = &s->handles; *at; at = &(*at)->next) {
        if ((MPI_T_pvar_handle)*at != *handle)
            continue;
        pvar_handle_t *h = *at;
        *at = h->next;
        handle_free(h);
        *handle = MPI_T_PVAR_HANDLE_NULL;
        return leave(MPI_SUCCESS);
    }
    return leave(MPI_T_ERR_INVALID_HANDLE);
}

/* What a counter counted since base. The runtime starting again (a
 * session after MPI_Finalize) counts from 0: what it counted since is all
 * new. */
static uint64_t counted_since(uint64_t base, uint64_t now)
{
    return now >= base ? now - base : now;
}

/* The value a handle shows: a level's current one, a high-water mark's
 * current one while started (else where it stood at the stop), a
 * counter's count while started; *now is the variable's value it was
 * taken from. */
static uint64_t handle_value(const pvar_handle_t *h, uint64_t *now)
{
    const pvar_t *p = h->var;
    *now = p->value(p->arg);
    if (is_level(p))
        return *now;
    if (p->var_class == MPI_T_PVAR_CLASS_HIGHWATERMARK)
        return h->started ? *now : h->accumulated;
    return h->accumulated + (h->started ? counted_since(h->base, *now) : 0);
}

/* A started timer handle makes the progress engine read the clock. */
static void handle_start(pvar_handle_t *h)
{
    if (h->started)
        return;
    if (h->var->restart)
        h->var->restart();
    if (is_timer(h->var))
        __atomic_add_fetch(&ol_progress_wait_timed, 1, __ATOMIC_RELAXED);
    else if (h->var->var_class == MPI_T_PVAR_CLASS_COUNTER)
        __atomic_add_fetch(&ol_counters_started, 1, __ATOMIC_RELAXED);
    h->base = h->var->value(h->var->arg);
    h->started = true;
}

static void handle_stop(pvar_handle_t *h)
{
    if (!h->started || is_level(h->var))
        return;
    uint64_t now;
    h->accumulated = handle_value(h, &now);
    h->started = false;
    if (is_timer(h->var))
        __atomic_sub_fetch(&ol_progress_wait_timed, 1, __ATOMIC_RELAXED);
    else if (h->var->var_class == MPI_T_PVAR_CLASS_COUNTER)
        __atomic_sub_fetch(&ol_counters_started, 1, __ATOMIC_RELAXED);
}

static void handle_free(pvar_handle_t *h)
{
    handle_stop(h);
    free(h);
}

/* Sets a counter's handle to value, counting on from here. */
static void handle_set(pvar_handle_t *h, uint64_t value, uint64_t now)
{
    h->accumulated = value;
    h->base = now;
}

static void put_value(const pvar_handle_t *h, uint64_t value, void *buf)
{
    if (is_readonly(h->var))
        *(unsigned *)buf = value > UINT_MAX ? UINT_MAX : (unsigned)value;
    else
        *(unsigned long long *)buf = value;
}

typedef enum { START, STOP, RESET } all_op_t;

/* Start, stop or reset one handle, or all of a session's (those a start,
 * stop or reset applies to; MPI-4.1 15.3.7). */
static int for_handles(MPI_T_pvar_session session, MPI_T_pvar_handle handle, all_op_t op)
{
    pvar_session_t *s = session_find(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    bool all = handle == MPI_T_PVAR_ALL_HANDLES;
    pvar_handle_t *one = all ? NULL : handle_find(s, handle);
    if (!all && !one)
        return MPI_T_ERR_INVALID_HANDLE;
    for (pvar_handle_t *h = all ? s->handles : one; h; h = all ? h->next : NULL) {
        if (is_level(h->var) || (op == RESET && is_readonly(h->var))) {
            if (!all)
                return op == RESET ? MPI_T_ERR_PVAR_NO_WRITE : MPI_T_ERR_PVAR_NO_STARTSTOP;
            continue;
        }
        if (op == START)
            handle_start(h);
        else if (op == STOP)
            handle_stop(h);
        else
            handle_set(h, 0, h->var->value(h->var->arg));
    }
    return MPI_SUCCESS;
}

int ol_api_t_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    ENTER();
    return leave(for_handles(session, handle, START));
}

int ol_api_t_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    ENTER();
    return leave(for_handles(session, handle, STOP));
}

int ol_api_t_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    ENTER();
    return leave(for_handles(session, handle, RESET));
}

/* The handle of a read or write (MPI_T_PVAR_ALL_HANDLES is no handle
 * there). */
static int one_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf,
                      pvar_handle_t **out)
{
    pvar_session_t *s = session_find(session);
    if (!s)
        return MPI_T_ERR_INVALID_SESSION;
    *out = handle == MPI_T_PVAR_ALL_HANDLES ? NULL : handle_find(s, handle);
    if (!*out)
        return MPI_T_ERR_INVALID_HANDLE;
    return buf ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

int ol_api_t_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    ENTER();
    pvar_handle_t *h;
    int rc = one_handle(session, handle, buf, &h);
    if (rc == MPI_SUCCESS) {
        uint64_t now;
        put_value(h, handle_value(h, &now), buf);
    }
    return leave(rc);
}

int ol_api_t_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    ENTER();
    pvar_handle_t *h;
    int rc = one_handle(session, handle, buf, &h);
    if (rc == MPI_SUCCESS && is_readonly(h->var))
        rc = MPI_T_ERR_PVAR_NO_WRITE;
    if (rc == MPI_SUCCESS) {
        uint64_t now;
        put_value(h, handle_value(h, &now), buf);
        handle_set(h, 0, now);
    }
    return leave(rc);
}

int ol_api_t_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    ENTER();
    pvar_handle_t *h;
    int rc = one_handle(session, handle, buf, &h);
    if (rc == MPI_SUCCESS && is_readonly(h->var))
        rc = MPI_T_ERR_PVAR_NO_WRITE;
    if (rc == MPI_SUCCESS)
        handle_set(h, *(const unsigned long long *)buf, h->var->value(h->var->arg));
    return leave(rc);
}

/* ---- categories ----------------------------------------------------------- */

int ol_api_t_category_get_num(int *num_cat)
{
    ENTER();
    if (!num_cat)
        return leave(MPI_T_ERR_INVALID);
    *num_cat = CATEGORIES;
    return leave(MPI_SUCCESS);
}

static int cvars_in(int cat)
{
    int n = 0;
    for (int i = 0; i < ncvars; i++)
        n += cvars[i].category == cat;
    return n;
}

static int pvars_in(int cat)
{
    int n = 0;
    for (int i = 0; i < npvars; i++)
        n += pvars[i].category == cat;
    return n;
}

int ol_api_t_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                               int *desc_len, int *num_cvars, int *num_pvars,
                               int *num_categories)
{
    ENTER();
    if (cat_index < 0 || cat_index >= CATEGORIES)
        return leave(MPI_T_ERR_INVALID_INDEX);
    put_string(categories[cat_index].name, name, name_len);
    put_string(categories[cat_index].desc, desc, desc_len);
    SET(num_cvars, cvars_in(cat_index));
    SET(num_pvars, pvars_in(cat_index));
    SET(num_categories, 0);
    return leave(MPI_SUCCESS);
}

int ol_api_t_category_get_index(const char *name, int *cat_index)
{
    ENTER();
    if (!name || !cat_index)
        return leave(MPI_T_ERR_INVALID);
    for (int i = 0; i < CATEGORIES; i++)
        if (strcmp(categories[i].name, name) == 0) {
            *cat_index = i;
            return leave(MPI_SUCCESS);
        }
    return leave(MPI_T_ERR_INVALID_NAME);
}

/* The first len indices of a category's members: a NULL array is
 * allowed where len is 0. */
static int check_members(int cat_index, int len, const int *indices)
{
    if (cat_index < 0 || cat_index >= CATEGORIES)
        return MPI_T_ERR_INVALID_INDEX;
    return len < 0 || (len > 0 && !indices) ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

int ol_api_t_category_get_cvars(int cat_index, int len, int indices[])
{
    ENTER();
    int rc = check_members(cat_index, len, indices);
    for (int i = 0, n = 0; rc == MPI_SUCCESS && i < ncvars && n < len; i++)
        if (cvars[i].category == cat_index)
            indices[n++] = i;
    return leave(rc);
}

int ol_api_t_category_get_pvars(int cat_index, int len, int indices[])
{
    ENTER();
    int rc = check_members(cat_index, len, indices);
    for (int i = 0, n = 0; rc == MPI_SUCCESS && i < npvars && n < len; i++)
        if (pvars[i].category == cat_index)
            indices[n++] = i;
    return leave(rc);
}

int ol_api_t_category_get_categories(int cat_index, int len, int indices[])
{
    ENTER();
    return leave(check_members(cat_index, len, indices)); /* no subcategories */
}

int ol_api_t_category_get_num_events(int cat_index, int *num_events)
{
    ENTER();
    if (cat_index < 0 || cat_index >= CATEGORIES)
        return leave(MPI_T_ERR_INVALID_INDEX);
    if (!num_events)
        return leave(MPI_T_ERR_INVALID);
    *num_events = 0;
    return leave(MPI_SUCCESS);
}

int ol_api_t_category_get_events(int cat_index, int len, int indices[])
{
    ENTER();
    return leave(check_members(cat_index, len, indices)); /* no events */
}

int ol_api_t_category_changed(int *update_number)
{
    ENTER();
    if (!update_number)
        return leave(MPI_T_ERR_INVALID);
    *update_number = 0; /* the lists are fixed when MPI_T starts */
    return leave(MPI_SUCCESS);
}

/* ---- enumerations: none ------------------------------------------------- */

int ol_api_t_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    (void)enumtype, (void)num, (void)name, (void)name_len;
    ENTER();
    return leave(MPI_T_ERR_INVALID_HANDLE);
}

int ol_api_t_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    (void)enumtype, (void)indx, (void)value, (void)name, (void)name_len;
    ENTER();
    return leave(MPI_T_ERR_INVALID_HANDLE);
}

/* ---- events and their sources: none declared ---------------------------- */

int ol_api_t_source_get_num(int *num_sources)
{
    ENTER();
    if (!num_sources)
        return leave(MPI_T_ERR_INVALID);
    *num_sources = 0;
    return leave(MPI_SUCCESS);
}

int ol_api_t_source_get_info(int source_index, char *name, int *name_len, char *desc,
                             int *desc_len, MPI_T_source_order *ordering,
                             MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info)
{
    (void)source_index, (void)name, (void)name_len, (void)desc, (void)desc_len;
    (void)ordering, (void)ticks_per_second, (void)max_ticks, (void)info;
    ENTER();
    return leave(MPI_T_ERR_INVALID_INDEX);
}

int ol_api_t_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    (void)source_index, (void)timestamp;
    ENTER();
    return leave(MPI_T_ERR_INVALID_INDEX);
}

int ol_api_t_event_get_num(int *num_events)
{
    ENTER();
    if (!num_events)
        return leave(MPI_T_ERR_INVALID);
    *num_events = 0;
    return leave(MPI_SUCCESS);
}

int ol_api_t_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                            MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                            int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                            int *desc_len, int *bind)
{
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc;
    (void)desc_len, (void)bind;
    ENTER();
    return leave(MPI_T_ERR_INVALID_INDEX);
}

int ol_api_t_event_get_index(const char *name, int *event_index)
{
    ENTER();
    if (!name || !event_index)
        return leave(MPI_T_ERR_INVALID);
    return leave(MPI_T_ERR_INVALID_NAME);
}

int ol_api_t_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                                MPI_T_event_registration *event_registration)
{
    (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
    ENTER();
    return leave(MPI_T_ERR_INVALID_INDEX);
}

/* No registration and no instance can exist: every call on one is given
 * an invalid handle. */
static int no_event_handle(void)
{
    ENTER();
    return leave(MPI_T_ERR_INVALID_HANDLE);
}

int ol_api_t_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                               MPI_T_event_free_cb_function free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    return no_event_handle();
}

int ol_api_t_event_handle_get_info(MPI_T_event_registration event_registration,
                                   MPI_Info *info_used)
{
    (void)event_registration, (void)info_used;
    return no_event_handle();
}

int ol_api_t_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration, (void)info;
    return no_event_handle();
}

int ol_api_t_event_register_callback(MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                     MPI_T_event_cb_function event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data;
    (void)event_cb_function;
    return no_event_handle();
}

int ol_api_t_event_callback_get_info(MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety, (void)info_used;
    return no_event_handle();
}

int ol_api_t_event_callback_set_info(MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    return no_event_handle();
}

int ol_api_t_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                       MPI_T_event_dropped_cb_function dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    return no_event_handle();
}

int ol_api_t_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance, (void)element_index, (void)buffer;
    return no_event_handle();
}

int ol_api_t_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance, (void)buffer;
    return no_event_handle();
}

int ol_api_t_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance, (void)event_timestamp;
    return no_event_handle();
}

int ol_api_t_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance, (void)source_index;
    return no_event_handle();
}
