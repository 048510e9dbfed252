/* MPI_Type_toint/fromint: an int for a datatype handle (for Fortran, which
 * keeps handles in INTEGERs). A predefined handle's int is its ABI value; a
 * derived type gets a slot in a table on its first toint, and keeps it until
 * it is destroyed. Slots are ints from DERIVED_BASE on, far above every
 * predefined value. */
#include "dt_internal.h"

#include <pthread.h>
#include <stdlib.h>

#define DERIVED_BASE 0x10000
/* The ABI keeps handle values below this for predefined constants (ours of
 * mpi-ext.h among them). */
#define PREDEFINED_LIMIT 0x1000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ol_datatype_t **slots;
static int nslots, capacity;

/* A free slot, growing the table when there is none; -1 without memory. */
static int free_slot(void)
{
    for (int i = 0; i < nslots; i++)
        if (!slots[i])
            return i;
    if (nslots == capacity) {
        int grown_capacity = capacity ? 2 * capacity : 64;
        ol_datatype_t **grown = realloc(slots, (size_t)grown_capacity * sizeof(*grown));
        if (!grown)
            return -1;
        slots = grown;
        capacity = grown_capacity;
    }
    return nslots++;
}

int ol_dt_to_int(ol_datatype_t *dt)
{
    if (dt->predefined)
        return (int)(uintptr_t)ol_dt_to_handle(dt);
    pthread_mutex_lock(&lock);
    if (!dt->layout->handle_int) {
        int slot = free_slot();
        if (slot >= 0) {
            slots[slot] = dt;
            dt->layout->handle_int = DERIVED_BASE + slot;
        }
    }
    int value = dt->layout->handle_int;
    pthread_mutex_unlock(&lock);
    return value ? value : (int)(uintptr_t)MPI_DATATYPE_NULL;
}

ol_datatype_t *ol_dt_from_int(int value)
{
    if (value < DERIVED_BASE)
        return value >= 0 && value < PREDEFINED_LIMIT ? ol_dt_from_handle((MPI_Datatype)(uintptr_t)value)
                                                      : NULL;
    pthread_mutex_lock(&lock);
    ol_datatype_t *dt = value - DERIVED_BASE < nslots ? slots[value - DERIVED_BASE] : NULL;
    pthread_mutex_unlock(&lock);
    return dt && dt->layout->handles > 0 ? dt : NULL;
}

void ol_dt_forget_handle_int(ol_datatype_t *dt)
{
    if (!dt->layout->handle_int)
        return;
    pthread_mutex_lock(&lock);
    slots[dt->layout->handle_int - DERIVED_BASE] = NULL;
    pthread_mutex_unlock(&lock);
}
