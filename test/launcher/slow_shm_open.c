/* LD_PRELOAD shim of shm_squat_hostile.sh: gives a watcher in another uid
 * time to act between the files of one job appearing in /dev/shm, so that
 * the test does not depend on who wins a race. The creation of the rings of
 * every rank but 0 waits 300 ms (after rank 0's file is there for anyone
 * to see), and every open of a file that another rank made waits 100 ms
 * (while the maker still has it linked). Never installed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, ms % 1000 * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

int shm_open(const char *name, int oflag, mode_t mode)
{
    static int (*real)(const char *, int, mode_t);
    if (!real)
        real = (int (*)(const char *, int, mode_t))dlsym(RTLD_NEXT, "shm_open");
    if (strstr(name, "ompi-lite-")) {
        const char *p2p = strstr(name, "-p2p-");
        if (!(oflag & O_CREAT))
            pause_ms(100);
        else if (p2p && atoi(p2p + 5) != 0)
            pause_ms(300);
    }
    return real(name, oflag, mode);
}
