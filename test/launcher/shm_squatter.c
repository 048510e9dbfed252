/* For shm_squat_hostile.sh: another user on the host of a job, run under a
 * uid of its own (setpriv), who watches /dev/shm while the job runs.
 *
 *   shm_squatter RANKS
 *
 * Every ompi-lite file that appears, it tries to open for reading (it must
 * get EACCES, or ENOENT once the job unlinked it); from the name of a
 * rank's rings, "...-p2p-R<rest>", it computes the names the other ranks'
 * rings would have were only the rank to differ, "...-p2p-K<rest>" for K <
 * RANKS, and makes each first, mode 0666 and the size of the one it saw,
 * as a user who wants to read or steer the job's messages would. On
 * SIGTERM it looks whether the job wrote into any file it made (a job that
 * mapped one would have), removes them, and prints
 *
 *   seen N denied N gone N readable N squatted N written N
 *
 * after a line for each event ("denied NAME", "READABLE NAME", "squatted
 * NAME", "WRITTEN NAME"). "watching" comes first, once the watch is set. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { MAX_SQUATS = 1024, NAME_BYTES = 512 };

static volatile sig_atomic_t stop;
static char squats[MAX_SQUATS][NAME_BYTES];
/* Kept open: the job's daemon may unlink a file of a rank's name. */
static int squat_fds[MAX_SQUATS];
static int nsquats;
static int seen, denied, gone, readable, written;

static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

static int is_squat(const char *name)
{
    for (int i = 0; i < nsquats; i++)
        if (strcmp(squats[i], name) == 0)
            return 1;
    return 0;
}

/* The size of /dev/shm/name once its maker has sized it (0: gone or never). */
static off_t size_of(const char *name)
{
    char path[NAME_BYTES + 16];
    snprintf(path, sizeof(path), "/dev/shm/%.*s", NAME_BYTES - 1, name);
    for (int i = 0; i < 200; i++) {
        struct stat st;
        if (stat(path, &st) != 0)
            return 0;
        if (st.st_size > 0)
            return st.st_size;
        struct timespec t = {0, 1000000};
        nanosleep(&t, NULL);
    }
    return 0;
}

static void try_to_read(const char *name)
{
    char path[NAME_BYTES + 16];
    snprintf(path, sizeof(path), "/dev/shm/%.*s", NAME_BYTES - 1, name);
    int fd = open(path, O_RDONLY | O_NOFOLLOW);
    if (fd >= 0) {
        readable++;
        printf("READABLE %s\n", name);
        close(fd);
    } else if (errno == EACCES) {
        denied++;
        printf("denied %s\n", name);
    } else {
        gone++;
        printf("gone %s (%s)\n", name, strerror(errno));
    }
}

static void squat(const char *name, off_t size)
{
    char path[NAME_BYTES + 16];
    if (nsquats == MAX_SQUATS || strlen(name) >= NAME_BYTES)
        return;
    snprintf(path, sizeof(path), "/dev/shm/%.*s", NAME_BYTES - 1, name);
    int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0666);
    if (fd < 0)
        return; /* the job's own file is there already */
    if (fchmod(fd, 0666) != 0 || ftruncate(fd, size) != 0)
        perror("shm_squatter: fchmod/ftruncate");
    squat_fds[nsquats] = fd;
    snprintf(squats[nsquats++], NAME_BYTES, "%s", name);
    printf("squatted %s\n", name);
}

/* The names of the other ranks' rings, were only the rank to differ. */
static void squat_siblings(const char *name, int ranks)
{
    const char *p2p = strstr(name, "-p2p-");
    if (!p2p)
        return;
    off_t size = size_of(name);
    if (size == 0)
        return;
    const char *rest = p2p + 5;
    while (*rest >= '0' && *rest <= '9')
        rest++;
    for (int k = 0; k < ranks; k++) {
        char sibling[NAME_BYTES];
        snprintf(sibling, sizeof(sibling), "%.*s-p2p-%d%s", (int)(p2p - name), name, k, rest);
        if (strcmp(sibling, name) != 0)
            squat(sibling, size);
    }
}

static void on_created(const char *name, int ranks)
{
    if (strncmp(name, "ompi-lite-", 10) != 0 || is_squat(name))
        return;
    seen++;
    try_to_read(name);
    squat_siblings(name, ranks);
    fflush(stdout);
}

/* Whether the job wrote into the file (any byte not zero), then removes it. */
static void check_squat(const char *name, int fd)
{
    static char buf[65536];
    char path[NAME_BYTES + 16];
    snprintf(path, sizeof(path), "/dev/shm/%.*s", NAME_BYTES - 1, name);
    int dirty = 0;
    ssize_t n;
    off_t at = 0;
    while (!dirty && (n = pread(fd, buf, sizeof(buf), at)) > 0) {
        for (ssize_t i = 0; i < n && !dirty; i++)
            dirty = buf[i] != 0;
        at += n;
    }
    close(fd);
    if (dirty) {
        written++;
        printf("WRITTEN %s\n", name);
    }
    unlink(path);
}

int main(int argc, char **argv)
{
    int ranks = argc > 1 ? atoi(argv[1]) : 0;
    if (ranks < 1) {
        fprintf(stderr, "usage: shm_squatter RANKS\n");
        return 2;
    }
    struct sigaction sa = {.sa_handler = on_term};
    sigaction(SIGTERM, &sa, NULL);
    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (in < 0 || inotify_add_watch(in, "/dev/shm", IN_CREATE) < 0) {
        perror("shm_squatter: inotify");
        return 2;
    }
    printf("watching\n");
    fflush(stdout);
    char events[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    while (!stop) {
        struct pollfd p = {in, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0)
            continue;
        ssize_t n = read(in, events, sizeof(events));
        for (char *e = events; n > 0 && e < events + n;) {
            struct inotify_event *ev = (struct inotify_event *)e;
            if (ev->len > 0)
                on_created(ev->name, ranks);
            e += sizeof(*ev) + ev->len;
        }
    }
    for (int i = 0; i < nsquats; i++)
        check_squat(squats[i], squat_fds[i]);
    printf("seen %d denied %d gone %d readable %d squatted %d written %d\n", seen, denied, gone,
           readable, nsquats, written);
    return 0;
}
