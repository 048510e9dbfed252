/* What the launcher answers to PMIx_Spawn (launcher/README.md), shared by
 * the launcher and the library. Besides PMIx's own statuses
 * (PMIX_ERR_OUT_OF_RESOURCE: not enough slots; PMIX_ERR_NOT_FOUND: a host
 * named in the request is unknown), a program that cannot be executed on
 * some host answers with the errno of that failure, in the range PMIx
 * leaves to its users. */
#ifndef OL_SPAWN_H
#define OL_SPAWN_H

#include <pmix_common.h>

#define OL_SPAWN_ERRNO_STATUS(e) (PMIX_EXTERNAL_ERR_BASE - (e))
/* The errno of such a status, or 0 for another status. */
#define OL_SPAWN_STATUS_ERRNO(st) \
    ((st) < PMIX_EXTERNAL_ERR_BASE && (st) > PMIX_EXTERNAL_ERR_BASE - 4096 \
         ? PMIX_EXTERNAL_ERR_BASE - (st) : 0)

/* The info key of an app: directories to look for its program in, before
 * PATH (MPI's "path" info key). */
#define OL_SPAWN_PATH_KEY "ompi-lite.path"

#endif
