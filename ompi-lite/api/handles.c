/* MPI_X_toint/MPI_X_fromint for communicators, groups, operations, info
 * objects, error handlers, requests, messages, windows, sessions and files
 * (datatypes have theirs in the datatype engine).
 *
 * A predefined handle's int is its ABI value (all below PREDEFINED_LIMIT).
 * A user object gets a slot of one table, shared by every kind, on its
 * first toint; the int is USER_BASE + slot. Each kind's own validity check
 * (magic numbers) keeps an int of one kind from converting to another. The
 * objects this file knows of give their slot back when destroyed
 * (ol_handle_forget), for the next object to take; the others keep it, and
 * a later object that malloc places at the same address takes it over, so
 * the table stays as small as the set of addresses in use. */
#include "gen_impl.h"
#include "handles.h"
#include "ol_errhandler.h"
#include "ol_info.h"
#include "pt2pt.h"

#include <pthread.h>
#include <stdlib.h>

#define PREDEFINED_LIMIT 0x1000
/* Far above the datatype engine's ints (0x10000 + slot), so that an int
 * of one table is not mistaken for an int of the other. */
#define USER_BASE 0x100000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const void **slots;
static int nslots, capacity;
/* Slots given back (ol_handle_forget), taken again first. */
static int *free_slots;
static int nfree;

/* Which slot an object has: open addressing by the object's address
 * (linear probing), so that toint and forget cost the same with one
 * object converted as with thousands (a Fortran program converts every
 * request it starts). index_size is a power of two, at least twice the
 * slots. */
typedef struct {
    const void *object; /* NULL: empty */
    int slot;
} index_entry_t;
static index_entry_t *index_entries;
static size_t index_size;

static size_t home_of(const void *object)
{
    uintptr_t x = (uintptr_t)object;
    x ^= x >> 33; /* addresses differ in their middle bits */
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return (size_t)x & (index_size - 1);
}

/* Where object is, or the empty entry where it would go. */
static index_entry_t *find_entry(const void *object)
{
    size_t i = home_of(object);
    while (index_entries[i].object && index_entries[i].object != object)
        i = (i + 1) & (index_size - 1);
    return &index_entries[i];
}

static bool index_grow(void)
{
    size_t old_size = index_size;
    index_entry_t *old = index_entries;
    size_t size = old_size ? 2 * old_size : 128;
    index_entry_t *grown = calloc(size, sizeof(*grown));
    if (!grown)
        return false;
    index_entries = grown;
    index_size = size;
    for (size_t i = 0; i < old_size; i++)
        if (old[i].object)
            *find_entry(old[i].object) = old[i];
    free(old);
    return true;
}

/* Takes the entry out, moving later ones of its run back, so that every
 * object stays reachable from its home without tombstones. */
static void index_remove(index_entry_t *e)
{
    size_t hole = (size_t)(e - index_entries), i = hole;
    e->object = NULL;
    for (;;) {
        i = (i + 1) & (index_size - 1);
        if (!index_entries[i].object)
            return;
        size_t home = home_of(index_entries[i].object);
        /* Entry i may fill the hole if its home is not in (hole, i]. */
        if (((i - home) & (index_size - 1)) >= ((i - hole) & (index_size - 1))) {
            index_entries[hole] = index_entries[i];
            index_entries[i].object = NULL;
            hole = i;
        }
    }
}

/* A slot for a new object: one given back, or a new one; -1 without memory. */
static int new_slot(void)
{
    if (nfree > 0)
        return free_slots[--nfree];
    if (nslots == capacity) {
        int grown_capacity = capacity ? 2 * capacity : 64;
        const void **grown = realloc(slots, sizeof(*grown) * (size_t)grown_capacity);
        int *grown_free = realloc(free_slots, sizeof(*grown_free) * (size_t)grown_capacity);
        if (grown)
            slots = grown;
        if (grown_free)
            free_slots = grown_free;
        if (!grown || !grown_free)
            return -1;
        capacity = grown_capacity;
    }
    return nslots++;
}

/* The slot of object, or a new one; -1 without memory. Lock held. */
static int slot_of(const void *object)
{
    if ((size_t)nslots * 2 >= index_size && !index_grow())
        return -1;
    index_entry_t *e = find_entry(object);
    if (e->object)
        return e->slot;
    int slot = new_slot();
    if (slot < 0)
        return -1;
    slots[slot] = object;
    *e = (index_entry_t){object, slot};
    return slot;
}

void ol_handle_forget(const void *object)
{
    pthread_mutex_lock(&lock);
    index_entry_t *e = index_size ? find_entry(object) : NULL;
    if (e && e->object) {
        slots[e->slot] = NULL;
        free_slots[nfree++] = e->slot;
        index_remove(e);
    }
    pthread_mutex_unlock(&lock);
}

/* The int of a handle that valid() accepts; of null otherwise (also when
 * no slot can be had: the program sees the null handle, not a crash). */
static int to_int(const void *handle, bool (*valid)(const void *), const void *null)
{
    if (!valid(handle))
        return (int)(uintptr_t)null;
    if ((uintptr_t)handle < PREDEFINED_LIMIT)
        return (int)(uintptr_t)handle;
    pthread_mutex_lock(&lock);
    int slot = slot_of(handle);
    pthread_mutex_unlock(&lock);
    return slot >= 0 ? USER_BASE + slot : (int)(uintptr_t)null;
}

static const void *from_int(int value, bool (*valid)(const void *), const void *null)
{
    const void *handle = NULL;
    if (value >= 0 && value < PREDEFINED_LIMIT) {
        handle = (const void *)(uintptr_t)value;
    } else if (value >= USER_BASE) {
        pthread_mutex_lock(&lock);
        if (value - USER_BASE < nslots)
            handle = slots[value - USER_BASE];
        pthread_mutex_unlock(&lock);
    }
    return handle && valid(handle) ? handle : null;
}

/* ---- the kinds ----------------------------------------------------------- */

static bool is_comm(const void *h)
{
    return ol_comm_from_handle((MPI_Comm)h) != NULL;
}

int ol_api_comm_toint(MPI_Comm comm)
{
    return to_int(comm, is_comm, MPI_COMM_NULL);
}

MPI_Comm ol_api_comm_fromint(int comm)
{
    return (MPI_Comm)from_int(comm, is_comm, MPI_COMM_NULL);
}

static bool is_win(const void *h)
{
    return ol_win_from_handle((MPI_Win)h) != NULL;
}

int ol_api_win_toint(MPI_Win win)
{
    return to_int(win, is_win, MPI_WIN_NULL);
}

MPI_Win ol_api_win_fromint(int win)
{
    return (MPI_Win)from_int(win, is_win, MPI_WIN_NULL);
}

static bool is_file(const void *h)
{
    return ol_file_from_handle((MPI_File)h) != NULL;
}

int ol_api_file_toint(MPI_File file)
{
    return to_int(file, is_file, MPI_FILE_NULL);
}

MPI_File ol_api_file_fromint(int file)
{
    return (MPI_File)from_int(file, is_file, MPI_FILE_NULL);
}

static bool is_group(const void *h)
{
    return ol_group_from_handle((MPI_Group)h) != NULL;
}

int ol_api_group_toint(MPI_Group group)
{
    return to_int(group, is_group, MPI_GROUP_NULL);
}

MPI_Group ol_api_group_fromint(int group)
{
    return (MPI_Group)from_int(group, is_group, MPI_GROUP_NULL);
}

static bool is_op(const void *h)
{
    return ol_op_from_handle((MPI_Op)h) != NULL;
}

int ol_api_op_toint(MPI_Op op)
{
    return to_int(op, is_op, MPI_OP_NULL);
}

MPI_Op ol_api_op_fromint(int op)
{
    return (MPI_Op)from_int(op, is_op, MPI_OP_NULL);
}

static bool is_info(const void *h)
{
    return ol_info_from_handle((MPI_Info)h) != NULL;
}

int ol_api_info_toint(MPI_Info info)
{
    return to_int(info, is_info, MPI_INFO_NULL);
}

MPI_Info ol_api_info_fromint(int info)
{
    return (MPI_Info)from_int(info, is_info, MPI_INFO_NULL);
}

/* A handler of any kind of object. */
static bool is_errhandler(const void *h)
{
    MPI_Errhandler handler = (MPI_Errhandler)h;
    return ol_errhandler_fits_comm(handler) || ol_errhandler_fits_win(handler) ||
           ol_errhandler_fits_session(handler) || ol_errhandler_fits_file(handler);
}

int ol_api_errhandler_toint(MPI_Errhandler errhandler)
{
    return to_int(errhandler, is_errhandler, MPI_ERRHANDLER_NULL);
}

MPI_Errhandler ol_api_errhandler_fromint(int errhandler)
{
    return (MPI_Errhandler)from_int(errhandler, is_errhandler, MPI_ERRHANDLER_NULL);
}

static bool is_request(const void *h)
{
    return ol_request_from_handle((MPI_Request)h) != NULL;
}

int ol_api_request_toint(MPI_Request request)
{
    return to_int(request, is_request, MPI_REQUEST_NULL);
}

MPI_Request ol_api_request_fromint(int request)
{
    return (MPI_Request)from_int(request, is_request, MPI_REQUEST_NULL);
}

static bool is_message(const void *h)
{
    return ol_message_from_handle((MPI_Message)h) != NULL;
}

int ol_api_message_toint(MPI_Message message)
{
    return to_int(message, is_message, MPI_MESSAGE_NULL);
}

MPI_Message ol_api_message_fromint(int message)
{
    return (MPI_Message)from_int(message, is_message, MPI_MESSAGE_NULL);
}

static bool is_session(const void *h)
{
    return ol_session_from_handle((MPI_Session)h) != NULL;
}

int ol_api_session_toint(MPI_Session session)
{
    return to_int(session, is_session, MPI_SESSION_NULL);
}

MPI_Session ol_api_session_fromint(int session)
{
    return (MPI_Session)from_int(session, is_session, MPI_SESSION_NULL);
}
