/* This user's private directory on the host, $TMPDIR/ompi-lite-UID (or
 * under /tmp): the topology cache of the daemons, the names of published
 * ports. Its name is predictable, so another user may have made it first,
 * or made it a link: it is used only when it is a directory (not a link)
 * of this user that no one else may enter. Plain libc, built into the
 * library and the launcher alike. */
#ifndef OL_USER_DIR_H
#define OL_USER_DIR_H

#include <stddef.h>

/* The directory's path (malloc'd), made 0700 when missing; NULL with why
 * (a sentence) when it is unfit or cannot be made. */
char *ol_user_dir(char *why, size_t size);
/* What makes the existing directory dir unfit to hold private files, in
 * why, or NULL when it is fit. */
const char *ol_dir_unfit(const char *dir, char *why, size_t size);

#endif
