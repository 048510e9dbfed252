/* What the library's MPI_Comm_spawn and the launcher's daemon agree on about
 * PMIx_Spawn (launcher/README.md, "Spawn", has the whole interface).
 *
 * A program that cannot be executed on a target host (not found, not
 * executable, a directory ...) makes PMIx_Spawn fail with a status that
 * carries the errno the daemon's check saw, so that the library can name it
 * (MPI_ERR_SPAWN with strerror(errno)). PMIx reserves the statuses below
 * PMIX_EXTERNAL_ERR_BASE for hosts' own use; errno values are small and
 * positive, so these never collide with PMIx's own statuses. */
#ifndef OL_SPAWN_H
#define OL_SPAWN_H

#include <pmix_common.h>

/* The PMIx status for "errno e prevented the program's start". */
#define OL_SPAWN_ERRNO_STATUS(e) (PMIX_EXTERNAL_ERR_BASE - (e))
/* The errno in such a status, or 0 when the status is not one. */
#define OL_SPAWN_STATUS_ERRNO(st) \
    ((st) < PMIX_EXTERNAL_ERR_BASE && (st) > PMIX_EXTERNAL_ERR_BASE - 4096 ? PMIX_EXTERNAL_ERR_BASE - (st) : 0)

/* pmix_app_t info key: a colon-separated list of directories searched for
 * the program before PATH (MPI's "path" info key). */
#define OL_SPAWN_PATH_KEY "ompi-lite.path"

#endif
