/* For shm_leftovers.sh (plain MPI): a rank killed while a file it made in
 * /dev/shm is still linked.
 *
 *   shm_leftover [MARKER]
 *
 * On 2 ranks. Rank 0 sends its pid to rank 1, prints it, then enters an
 * MPI_Barrier: on one host the barrier goes through a shared-memory segment
 * of the communicator, which rank 0 creates (a file in /dev/shm named after
 * its pid) and unlinks only once rank 1 has mapped it. Rank 1 never enters
 * the barrier: it waits until it sees rank 0's file, prints its name, and
 * kills itself with SIGKILL, so the launcher kills rank 0 inside the
 * barrier with the file still there. MARKER is ignored; tests pass a
 * unique word to find leftover processes. */
#include <dirent.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The name of a file in /dev/shm of ompi-lite whose name has "-<pid>-", or
 * false when there is none. */
static int find_file_of(int pid, char *found, size_t size)
{
    char needle[32];
    snprintf(needle, sizeof(needle), "-%d-", pid);
    DIR *dir = opendir("/dev/shm");
    if (!dir)
        return 0;
    struct dirent *e;
    int hit = 0;
    while (!hit && (e = readdir(dir)) != NULL) {
        if (strncmp(e->d_name, "ompi-lite-", 10) == 0 && strstr(e->d_name, needle)) {
            snprintf(found, size, "%s", e->d_name);
            hit = 1;
        }
    }
    closedir(dir);
    return hit;
}

int main(int argc, char **argv)
{
    int rank, pid;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        pid = (int)getpid();
        MPI_Send(&pid, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        printf("rank 0 pid %d\n", pid);
        fflush(stdout);
        MPI_Barrier(MPI_COMM_WORLD);
        printf("rank 0 left the barrier alone\n");
    } else {
        char name[256];
        MPI_Recv(&pid, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        struct timespec pause = {0, 10 * 1000 * 1000};
        for (int i = 0; i < 1000 && !find_file_of(pid, name, sizeof(name)); i++)
            nanosleep(&pause, NULL);
        if (find_file_of(pid, name, sizeof(name)))
            printf("rank 1 saw %s\n", name);
        fflush(stdout);
        raise(SIGKILL);
    }
    MPI_Finalize();
    return 0;
}
