/* The user's private directory: see ol_user_dir.h. */
#define _GNU_SOURCE
#include "ol_user_dir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *ol_dir_unfit(const char *dir, char *why, size_t size)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        snprintf(why, size, "cannot lstat it: %s", strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        snprintf(why, size, "not a directory (a link or a file)");
    else if (st.st_uid != geteuid())
        snprintf(why, size, "owned by uid %u, not by this user (uid %u)", (unsigned)st.st_uid,
                 (unsigned)geteuid());
    else if (st.st_mode & 077)
        snprintf(why, size, "mode %04o lets other users in (0700 expected)",
                 (unsigned)(st.st_mode & 07777));
    else
        return NULL;
    return why;
}

char *ol_user_dir(char *why, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = NULL;
    if (asprintf(&dir, "%s/ompi-lite-%u", tmp && *tmp ? tmp : "/tmp", (unsigned)getuid()) < 0) {
        snprintf(why, size, "out of memory");
        return NULL;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(why, size, "%s: cannot create it: %s", dir, strerror(errno));
    } else if (ol_dir_unfit(dir, why, size) == NULL) {
        return dir;
    } else {
        char reason[160];
        snprintf(reason, sizeof(reason), "%s", why);
        snprintf(why, size, "%s: %s", dir, reason);
    }
    free(dir);
    return NULL;
}
