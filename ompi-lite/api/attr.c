/* Attributes: keyvals, the values cached on communicators, datatypes and
 * windows, the copy and delete callbacks, and the predefined attributes of
 * MPI_COMM_WORLD and of every window. */
#include "gen_impl.h"
#include "ol_attr.h"
#include "ol_errhandler.h"
#include "tag_layout.h"

#include <pthread.h>
#include <stdlib.h>

/* ---- keyvals ----------------------------------------------------------------- */

typedef enum { FOR_COMM, FOR_TYPE, FOR_WIN } kind_t;

static const char *const kind_names[] = {"communicator", "datatype", "window"};

/* The callbacks as created; MPI_*_NULL_COPY_FN and MPI_*_DUP_FN are the
 * values 0 and 1 (the standard ABI), which are never called. */
typedef union {
    MPI_Comm_copy_attr_function *comm;
    MPI_Type_copy_attr_function *type;
    MPI_Win_copy_attr_function *win;
} copy_fn_t;

typedef union {
    MPI_Comm_delete_attr_function *comm;
    MPI_Type_delete_attr_function *type;
    MPI_Win_delete_attr_function *win;
} delete_fn_t;

#define FN_NULL ((uintptr_t)0)
#define FN_DUP ((uintptr_t)1)

typedef struct {
    int id;           /* the keyval as the program sees it */
    kind_t kind;
    bool freed;       /* MPI_*_free_keyval was called: the program may no longer use it */
    int refs;         /* the program's handle until freed, and every attribute */
    copy_fn_t copy;
    delete_fn_t del;
    void *extra_state;
} keyval_t;

/* User keyvals are ints from KEYVAL_BASE on, above the predefined
 * attribute keys (MPI_TAG_UB ... MPI_UNIVERSE_SIZE); a slot is reused once
 * the handle and every attribute of its keyval are gone. */
#define KEYVAL_BASE 0x400

static pthread_mutex_t keyval_lock = PTHREAD_MUTEX_INITIALIZER;
static keyval_t **keyvals;
static int nkeyvals, keyval_capacity;

static int free_keyval_slot(void)
{
    for (int i = 0; i < nkeyvals; i++)
        if (!keyvals[i])
            return i;
    if (nkeyvals == keyval_capacity) {
        int capacity = keyval_capacity ? 2 * keyval_capacity : 32;
        keyval_t **grown = realloc(keyvals, sizeof(*grown) * (size_t)capacity);
        if (!grown)
            return -1;
        keyvals = grown;
        keyval_capacity = capacity;
    }
    return nkeyvals++;
}

static int create_keyval(kind_t kind, copy_fn_t copy, delete_fn_t del, void *extra_state,
                         int *keyval)
{
    keyval_t *k = malloc(sizeof(*k));
    pthread_mutex_lock(&keyval_lock);
    int slot = k ? free_keyval_slot() : -1;
    if (slot >= 0) {
        *k = (keyval_t){.id = KEYVAL_BASE + slot, .kind = kind, .refs = 1, .copy = copy,
                        .del = del, .extra_state = extra_state};
        keyvals[slot] = k;
        *keyval = k->id;
    }
    pthread_mutex_unlock(&keyval_lock);
    if (slot >= 0)
        return MPI_SUCCESS;
    free(k);
    ol_api_set_detail("out of memory for a keyval");
    return MPI_ERR_NO_MEM;
}

static void keyval_retain(keyval_t *k)
{
    pthread_mutex_lock(&keyval_lock);
    k->refs++;
    pthread_mutex_unlock(&keyval_lock);
}

static void keyval_release(keyval_t *k)
{
    pthread_mutex_lock(&keyval_lock);
    bool last = --k->refs == 0;
    if (last)
        keyvals[k->id - KEYVAL_BASE] = NULL;
    pthread_mutex_unlock(&keyval_lock);
    if (last)
        free(k);
}

static bool is_predefined_key(int keyval)
{
    return keyval >= MPI_TAG_UB && keyval <= MPI_UNIVERSE_SIZE;
}

typedef enum { LIVE, IN_USE } liveness_t;

/* The keyval of that kind the program names, or NULL with the detail
 * said. LIVE: not freed. IN_USE: or freed while attributes still use it,
 * which MPI_*_delete_attr must still delete (MPI-4.1 7.7.2) and
 * MPI_*_get_attr may still read. */
static keyval_t *lookup_keyval(int keyval, kind_t kind, const char *arg, liveness_t need)
{
    keyval_t *k = NULL;
    pthread_mutex_lock(&keyval_lock);
    if (keyval >= KEYVAL_BASE && keyval - KEYVAL_BASE < nkeyvals)
        k = keyvals[keyval - KEYVAL_BASE];
    bool live = k && (!k->freed || (need == IN_USE && k->refs > 0));
    kind_t made_for = live ? k->kind : kind;
    pthread_mutex_unlock(&keyval_lock);
    if (live && made_for == kind)
        return k;
    if (live)
        ol_api_set_detail("%s %d was made for a %s, not a %s", arg, keyval, kind_names[made_for],
                          kind_names[kind]);
    else
        ol_api_set_detail("%s %d is %s", arg, keyval,
                          is_predefined_key(keyval)
                              ? "a predefined attribute, which only MPI sets"
                          : keyval == MPI_KEYVAL_INVALID ? "MPI_KEYVAL_INVALID"
                                                         : "not a valid keyval");
    return NULL;
}

static keyval_t *lookup(int keyval, kind_t kind, const char *arg)
{
    return lookup_keyval(keyval, kind, arg, LIVE);
}

/* Freeing again a keyval that attributes still use changes nothing, as in
 * MPICH and Open MPI: programs free a keyval in its own delete callback and
 * once more themselves (MPICH's keyval_double_free tests). One whose
 * attributes are all gone is no keyval any more: MPI_ERR_KEYVAL. */
static int free_keyval(int *keyval, kind_t kind)
{
    keyval_t *k = lookup_keyval(*keyval, kind, "keyval", IN_USE);
    if (!k)
        return MPI_ERR_KEYVAL;
    pthread_mutex_lock(&keyval_lock);
    bool freed_before = k->freed;
    k->freed = true;
    pthread_mutex_unlock(&keyval_lock);
    if (!freed_before)
        keyval_release(k); /* the attributes that use it keep it alive */
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

/* ---- attribute lists ------------------------------------------------------- */

typedef struct attr {
    struct attr *prev, *next;
    keyval_t *keyval;
    void *value;
} attr_t;

/* In the order the attributes were first set; replacing a value keeps
 * its place. */
struct ol_attr_list {
    attr_t *first, *last;
};

/* An object attributes hang on, as its callbacks see it. */
typedef struct {
    kind_t kind;
    void *handle; /* its MPI_Comm, MPI_Datatype or MPI_Win */
    struct ol_attr_list **list;
} object_t;

static object_t comm_object(ol_comm_t *comm)
{
    return (object_t){FOR_COMM, ol_comm_to_handle(comm), &comm->attrs};
}

static object_t type_object(ol_datatype_t *dt)
{
    return (object_t){FOR_TYPE, ol_dt_to_handle(dt), &dt->attrs};
}

static attr_t *find(const object_t *obj, const keyval_t *k)
{
    for (attr_t *a = *obj->list ? (*obj->list)->first : NULL; a; a = a->next)
        if (a->keyval == k)
            return a;
    return NULL;
}

static ol_status_t append(const object_t *obj, keyval_t *k, void *value)
{
    struct ol_attr_list *list = *obj->list;
    if (!list && !(list = *obj->list = calloc(1, sizeof(*list))))
        return MPI_ERR_NO_MEM;
    attr_t *a = malloc(sizeof(*a));
    if (!a)
        return MPI_ERR_NO_MEM;
    *a = (attr_t){.prev = list->last, .keyval = k, .value = value};
    if (list->last)
        list->last->next = a;
    else
        list->first = a;
    list->last = a;
    keyval_retain(k);
    return OL_OK;
}

/* Unlinks and frees a; the list goes with its last attribute. */
static void unlink_attr(const object_t *obj, attr_t *a)
{
    struct ol_attr_list *list = *obj->list;
    *(a->prev ? &a->prev->next : &list->first) = a->next;
    *(a->next ? &a->next->prev : &list->last) = a->prev;
    keyval_release(a->keyval);
    free(a);
    if (!list->first) {
        free(list);
        *obj->list = NULL;
    }
}

/* ---- callbacks ----------------------------------------------------------- */

static int call_copy(const keyval_t *k, const object_t *old, void *in, void **out, int *flag)
{
    uintptr_t fn = (uintptr_t)k->copy.comm; /* every member has the same representation */
    *flag = 0;
    if (fn == FN_NULL)
        return MPI_SUCCESS;
    if (fn == FN_DUP) {
        *out = in;
        *flag = 1;
        return MPI_SUCCESS;
    }
    switch (k->kind) {
    case FOR_COMM:
        return k->copy.comm((MPI_Comm)old->handle, k->id, k->extra_state, in, out, flag);
    case FOR_TYPE:
        return k->copy.type((MPI_Datatype)old->handle, k->id, k->extra_state, in, out, flag);
    default:
        return k->copy.win((MPI_Win)old->handle, k->id, k->extra_state, in, out, flag);
    }
}

static int call_delete(const keyval_t *k, const object_t *obj, void *value)
{
    if ((uintptr_t)k->del.comm == FN_NULL)
        return MPI_SUCCESS;
    switch (k->kind) {
    case FOR_COMM:
        return k->del.comm((MPI_Comm)obj->handle, k->id, value, k->extra_state);
    case FOR_TYPE:
        return k->del.type((MPI_Datatype)obj->handle, k->id, value, k->extra_state);
    default:
        return k->del.win((MPI_Win)obj->handle, k->id, value, k->extra_state);
    }
}

static int callback_failed(const char *which, const keyval_t *k, int rc)
{
    ol_api_set_detail("the %s callback of keyval %d returned error %d", which, k->id, rc);
    return rc;
}

/* ---- what the calls do, for any kind of object --------------------------- */

static int set_attr(const object_t *obj, int keyval, void *value)
{
    keyval_t *k = lookup(keyval, obj->kind, "keyval");
    if (!k)
        return MPI_ERR_KEYVAL;
    attr_t *a = find(obj, k);
    if (!a) {
        if (append(obj, k, value) == OL_OK)
            return MPI_SUCCESS;
        ol_api_set_detail("out of memory for an attribute");
        return MPI_ERR_NO_MEM;
    }
    /* The old value goes as if deleted: its callback runs first, and a
     * failing one leaves the old value in place. */
    int rc = call_delete(k, obj, a->value);
    if (rc != MPI_SUCCESS)
        return callback_failed("delete", k, rc);
    a->value = value;
    return MPI_SUCCESS;
}

static int get_attr(const object_t *obj, int keyval, void *attribute_val, int *flag)
{
    keyval_t *k = lookup_keyval(keyval, obj->kind, "keyval", IN_USE);
    if (!k)
        return MPI_ERR_KEYVAL;
    const attr_t *a = find(obj, k);
    *flag = a != NULL;
    if (a)
        *(void **)attribute_val = a->value;
    return MPI_SUCCESS;
}

/* Deleting an attribute that is not set does nothing. */
static int delete_attr(const object_t *obj, int keyval)
{
    keyval_t *k = lookup_keyval(keyval, obj->kind, "keyval", IN_USE);
    if (!k)
        return MPI_ERR_KEYVAL;
    attr_t *a = find(obj, k);
    if (!a)
        return MPI_SUCCESS;
    int rc = call_delete(k, obj, a->value);
    if (rc != MPI_SUCCESS)
        return callback_failed("delete", k, rc);
    unlink_attr(obj, a);
    return MPI_SUCCESS;
}

/* The last set goes first (MPI-4.1 7.7). */
static ol_status_t delete_all(const object_t *obj)
{
    while (*obj->list) {
        attr_t *a = (*obj->list)->last;
        int rc = call_delete(a->keyval, obj, a->value);
        if (rc != MPI_SUCCESS)
            return callback_failed("delete", a->keyval, rc);
        unlink_attr(obj, a);
    }
    return OL_OK;
}

/* Keyvals the program has freed still copy: their attributes live on. */
static ol_status_t copy_all(const object_t *old, const object_t *new)
{
    for (attr_t *a = *old->list ? (*old->list)->first : NULL; a; a = a->next) {
        void *value = NULL;
        int flag;
        int rc = call_copy(a->keyval, old, a->value, &value, &flag);
        if (rc != MPI_SUCCESS)
            return callback_failed("copy", a->keyval, rc);
        if (flag && append(new, a->keyval, value) != OL_OK) {
            ol_api_set_detail("out of memory for an attribute");
            return MPI_ERR_NO_MEM;
        }
    }
    return OL_OK;
}

/* ---- communicators --------------------------------------------------------- */

ol_status_t ol_attr_copy_comm(ol_comm_t *old, ol_comm_t *new)
{
    object_t from = comm_object(old), to = comm_object(new);
    return copy_all(&from, &to);
}

ol_status_t ol_attr_delete_all_comm(ol_comm_t *comm)
{
    object_t obj = comm_object(comm);
    return delete_all(&obj);
}

/* The predefined attributes: a pointer to an int, as the standard says
 * for C. Every process can do I/O: MPI_IO is MPI_ANY_SOURCE (MPI-4.1
 * 9.1.2). Clocks are not synchronized. The standard attaches them to
 * MPI_COMM_WORLD, and to the communicators a session's groups make;
 * ompi-lite answers them on every communicator, as MPICH does: programs
 * ask a duplicate or a split for MPI_TAG_UB (OSHMPI's active messages,
 * CP2K, Nek5000), and Open MPI's "not set" there is a known complaint. */
static struct {
    int tag_ub, host, io, wtime_is_global, appnum, universe_size;
} world_values;
static pthread_once_t world_values_once = PTHREAD_ONCE_INIT;

static void set_world_values(void)
{
    world_values.tag_ub = OL_TAG_UB;
    world_values.host = MPI_PROC_NULL;
    world_values.io = MPI_ANY_SOURCE;
    world_values.wtime_is_global = 0;
    world_values.appnum = ol_rt.appnum;
    world_values.universe_size = ol_rt.universe_size;
}

static const int *world_value(int keyval)
{
    pthread_once(&world_values_once, set_world_values);
    switch (keyval) {
    case MPI_TAG_UB:
        return &world_values.tag_ub;
    case MPI_HOST:
        return &world_values.host;
    case MPI_IO:
        return &world_values.io;
    case MPI_WTIME_IS_GLOBAL:
        return &world_values.wtime_is_global;
    case MPI_APPNUM:
        return &world_values.appnum;
    case MPI_UNIVERSE_SIZE:
        return &world_values.universe_size;
    default:
        return ol_error_last_used_code();
    }
}

static int create_comm_keyval(MPI_Comm_copy_attr_function *copy,
                              MPI_Comm_delete_attr_function *del, int *keyval, void *extra_state)
{
    return create_keyval(FOR_COMM, (copy_fn_t){.comm = copy}, (delete_fn_t){.comm = del},
                         extra_state, keyval);
}

int ol_api_comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                              MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                              int *comm_keyval, void *extra_state)
{
    return create_comm_keyval(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state);
}

int ol_api_comm_free_keyval(int *comm_keyval)
{
    return free_keyval(comm_keyval, FOR_COMM);
}

int ol_api_comm_set_attr(ol_comm_t *comm, int comm_keyval, void *attribute_val)
{
    object_t obj = comm_object(comm);
    return set_attr(&obj, comm_keyval, attribute_val);
}

int ol_api_comm_get_attr(ol_comm_t *comm, int comm_keyval, void *attribute_val, int *flag)
{
    if (is_predefined_key(comm_keyval)) {
        *flag = 1;
        *(const int **)attribute_val = world_value(comm_keyval);
        return MPI_SUCCESS;
    }
    object_t obj = comm_object(comm);
    return get_attr(&obj, comm_keyval, attribute_val, flag);
}

int ol_api_comm_delete_attr(ol_comm_t *comm, int comm_keyval)
{
    object_t obj = comm_object(comm);
    return delete_attr(&obj, comm_keyval);
}

/* The MPI-1 names, deprecated: the same calls. */
int ol_api_keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                         void *extra_state)
{
    return create_comm_keyval(copy_fn, delete_fn, keyval, extra_state);
}

int ol_api_keyval_free(int *keyval)
{
    return free_keyval(keyval, FOR_COMM);
}

int ol_api_attr_put(ol_comm_t *comm, int keyval, void *attribute_val)
{
    return ol_api_comm_set_attr(comm, keyval, attribute_val);
}

int ol_api_attr_get(ol_comm_t *comm, int keyval, void *attribute_val, int *flag)
{
    return ol_api_comm_get_attr(comm, keyval, attribute_val, flag);
}

int ol_api_attr_delete(ol_comm_t *comm, int keyval)
{
    return ol_api_comm_delete_attr(comm, keyval);
}

/* ---- datatypes ------------------------------------------------------------- */

ol_status_t ol_attr_copy_type(ol_datatype_t *old, ol_datatype_t *new)
{
    object_t from = type_object(old), to = type_object(new);
    return copy_all(&from, &to);
}

ol_status_t ol_attr_delete_all_type(ol_datatype_t *dt)
{
    object_t obj = type_object(dt);
    return delete_all(&obj);
}

int ol_api_type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                              MPI_Type_delete_attr_function *type_delete_attr_fn,
                              int *type_keyval, void *extra_state)
{
    return create_keyval(FOR_TYPE, (copy_fn_t){.type = type_copy_attr_fn},
                         (delete_fn_t){.type = type_delete_attr_fn}, extra_state, type_keyval);
}

int ol_api_type_free_keyval(int *type_keyval)
{
    return free_keyval(type_keyval, FOR_TYPE);
}

int ol_api_type_set_attr(ol_datatype_t *datatype, int type_keyval, void *attribute_val)
{
    object_t obj = type_object(datatype);
    return set_attr(&obj, type_keyval, attribute_val);
}

int ol_api_type_get_attr(ol_datatype_t *datatype, int type_keyval, void *attribute_val, int *flag)
{
    object_t obj = type_object(datatype);
    return get_attr(&obj, type_keyval, attribute_val, flag);
}

int ol_api_type_delete_attr(ol_datatype_t *datatype, int type_keyval)
{
    object_t obj = type_object(datatype);
    return delete_attr(&obj, type_keyval);
}

/* ---- windows ---------------------------------------------------------------- */

int ol_api_win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                             MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                             void *extra_state)
{
    return create_keyval(FOR_WIN, (copy_fn_t){.win = win_copy_attr_fn},
                         (delete_fn_t){.win = win_delete_attr_fn}, extra_state, win_keyval);
}

int ol_api_win_free_keyval(int *win_keyval)
{
    return free_keyval(win_keyval, FOR_WIN);
}

static object_t win_object(ol_win_t *win)
{
    return (object_t){FOR_WIN, ol_win_to_handle(win), &win->attrs};
}

static bool is_window_key(int keyval)
{
    return keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL;
}

/* The predefined window attributes (MPI-4.1 12.2.6): the base address
 * itself, pointers to the others. */
static void *window_value(ol_win_t *win, int keyval)
{
    static const int unified = MPI_WIN_UNIFIED;
    switch (keyval) {
    case MPI_WIN_BASE:
        return win->base;
    case MPI_WIN_SIZE:
        return &win->size;
    case MPI_WIN_DISP_UNIT:
        return &win->disp_unit_int;
    case MPI_WIN_CREATE_FLAVOR:
        return &win->flavor;
    default:
        return (void *)&unified;
    }
}

int ol_api_win_set_attr(ol_win_t *win, int win_keyval, void *attribute_val)
{
    if (is_window_key(win_keyval)) {
        ol_api_set_detail("win_keyval %d is a predefined window attribute, which cannot be set",
                          win_keyval);
        return MPI_ERR_KEYVAL;
    }
    object_t obj = win_object(win);
    return set_attr(&obj, win_keyval, attribute_val);
}

int ol_api_win_get_attr(ol_win_t *win, int win_keyval, void *attribute_val, int *flag)
{
    if (is_window_key(win_keyval)) {
        *flag = 1;
        *(void **)attribute_val = window_value(win, win_keyval);
        return MPI_SUCCESS;
    }
    object_t obj = win_object(win);
    return get_attr(&obj, win_keyval, attribute_val, flag);
}

int ol_api_win_delete_attr(ol_win_t *win, int win_keyval)
{
    if (is_window_key(win_keyval)) {
        ol_api_set_detail("win_keyval %d is a predefined window attribute, which cannot be "
                          "deleted", win_keyval);
        return MPI_ERR_KEYVAL;
    }
    object_t obj = win_object(win);
    return delete_attr(&obj, win_keyval);
}

ol_status_t ol_attr_delete_all_win(ol_win_t *win)
{
    object_t obj = win_object(win);
    return delete_all(&obj);
}
