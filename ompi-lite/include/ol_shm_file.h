/* The files in /dev/shm that ranks of a job on one host share (pt2pt's
 * rings, the collective segments): made so that no other user can read
 * or write them or make them first, and checked before they are mapped.
 *
 * A file that ranks map is a channel every byte of their messages may
 * cross, and whose words tell them what to read and write in each other's
 * memory (process_vm_readv). So: each name has a secret random part
 * (ol_shm_names.h) that the maker tells only its job; the maker creates
 * it with O_EXCL, mode 0600; a name that exists already is someone else's
 * and is never opened; and a rank that opens a file another rank made
 * maps it only if it is a regular file of this user, mode exactly 0600,
 * of the size the job expects. Whoever finds a file unfit says so (one
 * warning naming it) and its caller takes the path without that file, as
 * all the ranks that would share it agree (see the callers). */
#ifndef OL_SHM_FILE_H
#define OL_SHM_FILE_H

#include <stdbool.h>
#include <stddef.h>

/* Room for any name of ol_shm_names.h, and for a test name (below). */
enum { OL_SHM_NAME_MAX = 128 };

/* A new name for this rank's rings, or for a collective segment it makes,
 * with fresh random bytes in it; false (and name "") when the system gives
 * none. The test-only parameter OMPI_LITE_SHM_TEST_NAME makes the names
 * VALUE-p2p-RANK-N and VALUE-coll-RANK-N instead, which a test can compute
 * and make first. */
bool ol_shm_new_p2p_name(char *name, size_t size);
bool ol_shm_new_coll_name(char *name, size_t size);

/* Creates name (O_EXCL, mode 0600 whatever the umask) with bytes
 * allocated, so that a full tmpfs fails here and not with SIGBUS at a later
 * write: the open descriptor, or -1 with no file left and why filled with
 * a sentence that names the file ("cannot create /dev/shm/...: File
 * exists"). */
int ol_shm_create(const char *name, size_t bytes, char *why, size_t why_size);

/* Opens name, made by another rank with ol_shm_create, for reading and
 * writing: the descriptor, or -1 and why (naming the file) when it is not
 * there or must not be mapped: a link, not a regular file, another owner,
 * a mode other than 0600, not bytes long. */
int ol_shm_open_made(const char *name, size_t bytes, char *why, size_t why_size);

#endif
