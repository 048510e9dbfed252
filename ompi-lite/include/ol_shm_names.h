/* The names of a job's files in /dev/shm, shared by the library, which
 * makes them, and the per-host daemon, which removes those of a rank that
 * died before it unlinked them (the library unlinks each file once the
 * ranks that need it have mapped it, so only a rank killed in between
 * leaves one behind).
 *
 *   /ompi-lite-<job>-p2p-<world rank>-<secret>   pt2pt's rings to that rank
 *   /ompi-lite-<job>-coll-<pid>-<secret>         a communicator's collective
 *                                                segment, made by that pid
 *
 * <job> is a hash of the job's PMIx namespace: public, it only groups a
 * job's files, so that the daemon finds a reaped rank's by prefix. <secret>
 * is OL_SHM_SECRET_CHARS hex digits of fresh random bytes for each file
 * (ol_shm_file.h), told to the other ranks through PMIx or a message of
 * the job: another user who can list /dev/shm cannot make a file of that
 * name first, as it would with a name it can compute (and no name seen in
 * a listing tells the next one). Plain fixed strings otherwise, so that
 * this header is all the daemon shares with the library. */
#ifndef OL_SHM_NAMES_H
#define OL_SHM_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* 128 bits. */
#define OL_SHM_SECRET_CHARS 32

/* FNV-1a: a short, stable name for the namespace. */
static inline uint64_t ol_job_key(const char *nspace)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *nspace; nspace++)
        h = (h ^ (unsigned char)*nspace) * 0x100000001b3ULL;
    return h;
}

#define OL_SHM_P2P_PREFIX "ompi-lite-%016llx-p2p-%d-"
#define OL_SHM_COLL_PREFIX "ompi-lite-%016llx-coll-%d-"

/* What the names of rank's rings, and of the collective segments made by
 * pid, start with, without the leading '/' (as a directory listing of
 * /dev/shm shows them); the trailing '-' keeps rank 1 from matching 10. */
static inline void ol_shm_p2p_prefix(char *prefix, size_t size, uint64_t job_key, int rank)
{
    snprintf(prefix, size, OL_SHM_P2P_PREFIX, (unsigned long long)job_key, rank);
}

static inline void ol_shm_coll_prefix(char *prefix, size_t size, uint64_t job_key, pid_t pid)
{
    snprintf(prefix, size, OL_SHM_COLL_PREFIX, (unsigned long long)job_key, (int)pid);
}

static inline void ol_shm_p2p_name(char *name, size_t size, uint64_t job_key, int rank,
                                   const char *secret)
{
    snprintf(name, size, "/" OL_SHM_P2P_PREFIX "%s", (unsigned long long)job_key, rank, secret);
}

static inline void ol_shm_coll_name(char *name, size_t size, uint64_t job_key, pid_t pid,
                                    const char *secret)
{
    snprintf(name, size, "/" OL_SHM_COLL_PREFIX "%s", (unsigned long long)job_key, (int)pid,
             secret);
}

#endif
