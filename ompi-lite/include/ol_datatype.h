/* Datatypes: the object behind an MPI_Datatype handle.
 *
 * The predefined types are a table indexed by their ABI handle value
 * (0x200 ... 0x2ff); sizes come from the C types of this platform. */
#ifndef OL_DATATYPE_H
#define OL_DATATYPE_H

#include "ol_common.h"
#include <stdbool.h>

typedef struct ol_datatype {
    size_t size;             /* bytes of data in one element */
    MPI_Aint extent;
    bool contiguous;
    bool committed;
    const char *name;
} ol_datatype_t;

/* NULL for MPI_DATATYPE_NULL, unknown handles and predefined types that this
 * platform lacks (e.g. MPI_REAL16 without a 16-byte real). */
ol_datatype_t *ol_dt_from_handle(MPI_Datatype handle);

#endif
