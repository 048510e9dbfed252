/* Writes NLINES numbered lines of LEN characters to stdout and to stderr,
 * each line in two write() calls with a pause between them in some lines,
 * so a launcher that forwards whatever it reads would split lines between
 * ranks. The last stdout line has no newline when TAIL is given, and the
 * program exits right after its last write: that output must still arrive.
 * Not a PMIx client.
 *
 *   io_writer NLINES LEN [tail] [MARKER]
 * Line format: "<stream> r<RANK> l<I> <LEN x 'x'>" where RANK is $OMPI_LITE_RANK. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void write_split(int fd, const char *line, size_t len, int pause)
{
    size_t half = len / 2;
    (void)!write(fd, line, half);
    if (pause) {
        struct timespec ts = { 0, 200000 };
        nanosleep(&ts, NULL);
    }
    (void)!write(fd, line + half, len - half);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int nlines = atoi(argv[1]);
    int len = atoi(argv[2]);
    int tail = argc > 3 && strcmp(argv[3], "tail") == 0;
    const char *rank = getenv("OMPI_LITE_RANK");
    if (rank == NULL)
        rank = "?";
    char *body = malloc((size_t)len + 1);
    memset(body, 'x', (size_t)len);
    body[len] = '\0';
    char *line = malloc((size_t)len + 64);
    for (int i = 0; i < nlines; i++) {
        for (int fd = 1; fd <= 2; fd++) {
            int last = tail && fd == 1 && i == nlines - 1;
            int n = snprintf(line, (size_t)len + 64, "%s r%s l%d %s%s", fd == 1 ? "out" : "err",
                             rank, i, body, last ? "" : "\n");
            write_split(fd, line, (size_t)n, i % 50 == 0);
        }
    }
    return 0;
}
