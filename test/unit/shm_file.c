/* The /dev/shm files of ol_shm_file.h, without a job: new names differ and
 * carry 128 random bits (and the test-only parameter's form when it is
 * set); a created file is mode 0600 whatever the umask, and a name that
 * exists is refused and left as it was; a file made by another rank is
 * opened only when it is a regular file (not a link) of this user, mode
 * exactly 0600 and of the size expected, and the reason names the file. */
#include "ol_params.h"
#include "ol_runtime.h"
#include "ol_shm_file.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { BYTES = 8192 };

static int failures;

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

/* Whether s is count lowercase hex digits and nothing more. */
static bool all_hex(const char *s, size_t count)
{
    size_t n = strspn(s, "0123456789abcdef");
    return n == count && s[n] == '\0';
}

static void test_names(void)
{
    char a[OL_SHM_NAME_MAX], b[OL_SHM_NAME_MAX], prefix[64];
    check(ol_shm_new_p2p_name(a, sizeof(a)) && ol_shm_new_p2p_name(b, sizeof(b)),
          "p2p names made");
    check(strcmp(a, b) != 0, "two p2p names differ");
    snprintf(prefix, sizeof(prefix), "/ompi-lite-%016llx-p2p-%d-",
             (unsigned long long)ol_rt.job_key, ol_rt.rank);
    check(strncmp(a, prefix, strlen(prefix)) == 0, "a p2p name starts with job and rank");
    check(all_hex(a + strlen(prefix), 32), "a p2p name ends with 32 hex digits");
    check(ol_shm_new_coll_name(a, sizeof(a)), "a coll name made");
    snprintf(prefix, sizeof(prefix), "/ompi-lite-%016llx-coll-%d-",
             (unsigned long long)ol_rt.job_key, (int)getpid());
    check(strncmp(a, prefix, strlen(prefix)) == 0, "a coll name starts with job and pid");
    check(all_hex(a + strlen(prefix), 32), "a coll name ends with 32 hex digits");

    ol_param.shm_test_name = "/ol-unit-names";
    check(ol_shm_new_coll_name(a, sizeof(a)) && ol_shm_new_coll_name(b, sizeof(b)),
          "test names made");
    snprintf(prefix, sizeof(prefix), "/ol-unit-names-coll-%d-", ol_rt.rank);
    check(strncmp(a, prefix, strlen(prefix)) == 0 && strcmp(a, b) != 0,
          "test names follow the parameter and count");
    ol_param.shm_test_name = "";
}

static mode_t mode_of(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? st.st_mode & 07777 : 0;
}

/* Creates name under umask, checks the file, removes it. */
static void test_create_under(mode_t mask)
{
    char name[OL_SHM_NAME_MAX], why[256];
    ol_shm_new_p2p_name(name, sizeof(name));
    mode_t old = umask(mask);
    int fd = ol_shm_create(name, BYTES, why, sizeof(why));
    umask(old);
    check(fd >= 0, why);
    if (fd < 0)
        return;
    check(mode_of(fd) == 0600, "a created file is mode 0600 whatever the umask");
    struct stat st;
    check(fstat(fd, &st) == 0 && st.st_size == BYTES && st.st_uid == geteuid(),
          "a created file has its size and owner");
    close(fd);
    fd = ol_shm_open_made(name, BYTES, why, sizeof(why));
    check(fd >= 0, "a file ol_shm_create made opens");
    if (fd >= 0)
        close(fd);
    shm_unlink(name);
}

/* Makes name (mode, bytes of 'Q') as anyone might; the descriptor. */
static int make_squat(const char *name, mode_t mode, size_t bytes)
{
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, mode);
    char q[BYTES];
    memset(q, 'Q', sizeof(q));
    if (fd < 0 || fchmod(fd, mode) != 0 || write(fd, q, bytes) != (ssize_t)bytes) {
        perror("make_squat");
        exit(99);
    }
    return fd;
}

static void test_existing_refused(void)
{
    char name[OL_SHM_NAME_MAX], why[256];
    ol_shm_new_p2p_name(name, sizeof(name));
    int squat = make_squat(name, 0666, BYTES / 2);
    check(ol_shm_create(name, BYTES, why, sizeof(why)) < 0, "an existing name is not created");
    check(strstr(why, name) && strstr(why, "exists already"), why);
    struct stat st;
    char first = 0;
    check(fstat(squat, &st) == 0 && st.st_size == BYTES / 2 && (st.st_mode & 07777) == 0666 &&
              pread(squat, &first, 1, 0) == 1 && first == 'Q',
          "an existing file is left as it was");
    close(squat);
    shm_unlink(name);
}

/* ol_shm_open_made refuses the file, for a reason with expected in it. */
static void expect_refused(const char *name, size_t bytes, const char *expected)
{
    char why[256] = "";
    int fd = ol_shm_open_made(name, bytes, why, sizeof(why));
    char what[512];
    snprintf(what, sizeof(what), "%s refused for '%s' (got: '%s')", name, expected, why);
    check(fd < 0 && strstr(why, expected) && strstr(why, name), what);
    if (fd >= 0)
        close(fd);
}

static void test_unfit_refused(void)
{
    char name[OL_SHM_NAME_MAX], link_name[OL_SHM_NAME_MAX + 16], path[OL_SHM_NAME_MAX + 32];
    ol_shm_new_p2p_name(name, sizeof(name));
    int fd = make_squat(name, 0666, BYTES);
    expect_refused(name, BYTES, "mode 0666");
    fchmod(fd, 0640);
    expect_refused(name, BYTES, "mode 0640");
    fchmod(fd, 0600);
    expect_refused(name, BYTES * 2, "8192 bytes");
    if (geteuid() == 0) {
        check(fchown(fd, 65534, 65534) == 0, "fchown");
        expect_refused(name, BYTES, "owned by uid 65534");
    }
    /* A link to a good file of this user is not followed. */
    if (geteuid() == 0)
        check(fchown(fd, 0, 0) == 0, "fchown back");
    snprintf(link_name, sizeof(link_name), "%s-link", name);
    snprintf(path, sizeof(path), "/dev/shm%s", link_name);
    check(symlink(name + 1, path) == 0, "symlink");
    expect_refused(link_name, BYTES, "cannot open");
    unlink(path);
    close(fd);
    shm_unlink(name);
    expect_refused(name, BYTES, "No such file");
}

int main(void)
{
    ol_params_load();
    ol_rt.rank = 3;
    ol_rt.job_key = 0x1234abcd5678ef90ULL;
    test_names();
    test_create_under(0);
    test_create_under(0277);
    test_existing_refused();
    test_unfit_refused();
    if (failures == 0)
        printf("shm_file: ok\n");
    return failures ? 1 : 0;
}
