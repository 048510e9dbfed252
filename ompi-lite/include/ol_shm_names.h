/* The names of a job's files in /dev/shm, shared by the library, which
 * makes them, and the per-host daemon, which removes those of a rank that
 * died before it unlinked them (the library unlinks each file once the
 * ranks that need it have mapped it, so only a rank killed in between
 * leaves one behind).
 *
 *   /ompi-lite-<job key>-p2p-<world rank>        pt2pt's rings to that rank
 *   /ompi-lite-<job key>-coll-<pid>-<n>          a communicator's collective
 *                                                segment, made by that pid
 *
 * The job key is a hash of the job's PMIx namespace, so that the library
 * and the daemon compute it alike; plain fixed strings otherwise, so that
 * this header is all the daemon shares with the library. */
#ifndef OL_SHM_NAMES_H
#define OL_SHM_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* FNV-1a: a short, stable name for the namespace. */
static inline uint64_t ol_job_key(const char *nspace)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *nspace; nspace++)
        h = (h ^ (unsigned char)*nspace) * 0x100000001b3ULL;
    return h;
}

static inline void ol_shm_p2p_name(char *name, size_t size, uint64_t job_key, int rank)
{
    snprintf(name, size, "/ompi-lite-%016llx-p2p-%d", (unsigned long long)job_key, rank);
}

#define OL_SHM_COLL_PREFIX "ompi-lite-%016llx-coll-%d-"

/* What the names of the collective segments made by pid start with, without
 * the leading '/' (as a directory listing of /dev/shm shows them). */
static inline void ol_shm_coll_prefix(char *prefix, size_t size, uint64_t job_key, pid_t pid)
{
    snprintf(prefix, size, OL_SHM_COLL_PREFIX, (unsigned long long)job_key, (int)pid);
}

static inline void ol_shm_coll_name(char *name, size_t size, uint64_t job_key, pid_t pid,
                                    unsigned n)
{
    snprintf(name, size, "/" OL_SHM_COLL_PREFIX "%u", (unsigned long long)job_key, (int)pid, n);
}

#endif
