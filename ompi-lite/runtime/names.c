/* Published names (MPI_Publish_name and kin; ol_dynamic.h): the job's
 * name service (PMIx), and a file a name in one directory of the user's,
 * so that any job of the user that sees the directory finds it, whichever
 * mpirun started it. A file is made
 * whole aside and linked into place, so a reader never sees half of it and
 * two jobs publishing one name at once cannot both succeed. The name of
 * the file is a hash of the service's name, which may hold any character;
 * the file says the service's name too, and a lookup checks it. */
#define _GNU_SOURCE
#include "ol_dynamic.h"
#include "ol_log.h"
#include "pmix_client.h"
#include "ol_params.h"
#include "ol_user_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_SERVICE = 4096 };

/* The directory of names, made 0700 if missing; NULL with the detail set. */
static char *names_dir(void)
{
    char why[512];
    char *dir = NULL;
    if (ol_param.name_dir && *ol_param.name_dir) {
        dir = strdup(ol_param.name_dir);
    } else {
        char *user = ol_user_dir(why, sizeof(why));
        if (!user) {
            ol_error_detail("no directory for published names: %s", why);
            return NULL;
        }
        if (asprintf(&dir, "%s/names", user) < 0)
            dir = NULL;
        free(user);
    }
    if (!dir)
        return NULL;
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        ol_error_detail("cannot create %s for published names: %s", dir, strerror(errno));
    } else if (ol_dir_unfit(dir, why, sizeof(why))) {
        ol_error_detail("%s (OMPI_LITE_NAME_DIR) cannot hold published names: %s", dir, why);
    } else {
        return dir;
    }
    free(dir);
    return NULL;
}

static char *entry_path(const char *dir, const char *service)
{
    uint64_t h = 14695981039346656037ull; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)service; *c; c++)
        h = (h ^ *c) * 1099511628211ull;
    char *path = NULL;
    return asprintf(&path, "%s/name-%016llx", dir, (unsigned long long)h) < 0 ? NULL : path;
}

static ol_status_t check_service(const char *service)
{
    size_t n = strlen(service);
    if (n == 0 || n >= MAX_SERVICE || strchr(service, '\n')) {
        ol_error_detail("a service name must have 1 to %d bytes and no newline", MAX_SERVICE - 1);
        return MPI_ERR_ARG;
    }
    return OL_OK;
}

/* What the entry at path says: its service and port (in buffers of
 * MAX_SERVICE and MPI_MAX_PORT_NAME bytes). ENOENT in errno when absent. */
static bool read_entry(const char *path, char *service, char *port)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buf[MAX_SERVICE + MPI_MAX_PORT_NAME + 2];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    char *newline = strchr(buf, '\n');
    if (!newline)
        return false;
    *newline = '\0';
    char *end = strchr(newline + 1, '\n');
    if (end)
        *end = '\0';
    size_t service_length = (size_t)(newline - buf), port_length = strlen(newline + 1);
    if (service_length >= MAX_SERVICE || port_length >= MPI_MAX_PORT_NAME)
        return false;
    memcpy(service, buf, service_length + 1);
    memcpy(port, newline + 1, port_length + 1);
    return true;
}

/* Writes the entry aside and links it into place: EEXIST when taken. */
static int write_entry(const char *dir, const char *path, const char *service, const char *port)
{
    char *aside = NULL;
    if (asprintf(&aside, "%s/.new-%d-XXXXXX", dir, (int)getpid()) < 0)
        return ENOMEM;
    int fd = mkstemp(aside);
    int err = 0;
    if (fd < 0) {
        err = errno;
    } else {
        FILE *f = fdopen(fd, "w");
        if (!f || fprintf(f, "%s\n%s\n", service, port) < 0 || fclose(f) != 0)
            err = errno ? errno : EIO;
        if (err == 0 && link(aside, path) != 0)
            err = errno;
        unlink(aside);
    }
    free(aside);
    return err;
}

/* The directory's part of a publish: MPI_ERR_SERVICE when the name is
 * there already (*taken) or cannot be written (detail set). */
static ol_status_t dir_publish(const char *service, const char *port, bool *taken)
{
    char *dir = names_dir(), *path = dir ? entry_path(dir, service) : NULL;
    if (!path) {
        free(dir);
        return dir ? MPI_ERR_NO_MEM : MPI_ERR_SERVICE;
    }
    ol_status_t rc = OL_OK;
    int err = write_entry(dir, path, service, port);
    *taken = err == EEXIST;
    if (err == EEXIST) {
        ol_error_detail("\"%.200s\" is published already (by a job of this user, in %s; "
                        "MPI_Unpublish_name removes it)",
                        service, dir);
        rc = MPI_ERR_SERVICE;
    } else if (err != 0) {
        ol_error_detail("cannot publish \"%.200s\" in %s: %s", service, dir, strerror(err));
        rc = MPI_ERR_SERVICE;
    }
    free(path);
    free(dir);
    return rc;
}

/* The directory's entry of service, checked to be that service's:
 * MPI_ERR_NAME when none is published. */
static ol_status_t find_entry(const char *service, char **path, char *port)
{
    char *dir = names_dir();
    if (!dir)
        return MPI_ERR_NAME;
    *path = entry_path(dir, service);
    char *found = malloc(MAX_SERVICE);
    ol_status_t rc = *path && found ? OL_OK : MPI_ERR_NO_MEM;
    if (rc == OL_OK && (!read_entry(*path, found, port) || strcmp(found, service) != 0)) {
        ol_error_detail("no port is published under \"%.200s\" (in this job, nor in %s)",
                        service, dir);
        rc = MPI_ERR_NAME;
    }
    free(found);
    free(dir);
    if (rc != OL_OK) {
        free(*path);
        *path = NULL;
    }
    return rc;
}

/* Names go to the job's name service (the launcher's, through PMIx: every
 * process of the mpirun, on every host, finds them) and to the directory
 * (the user's other mpiruns find them there). A name the directory holds
 * already, from another job, fails the publish and is taken back from the
 * job's service; a directory that cannot be written leaves the name to the
 * job alone, with a warning. */
ol_status_t ol_rt_name_publish(const char *service, const char *port)
{
    ol_status_t rc = check_service(service);
    if (rc != OL_OK)
        return rc;
    ol_pmix_name_t in_job = ol_pmix_name_publish(service, port);
    if (in_job == OL_PMIX_NAME_TAKEN) {
        ol_error_detail("\"%.200s\" is published already by a process of this job "
                        "(MPI_Unpublish_name removes it)",
                        service);
        return MPI_ERR_SERVICE;
    }
    bool taken = false;
    rc = dir_publish(service, port, &taken);
    if (rc == OL_OK || in_job != OL_PMIX_NAME_DONE)
        return rc;
    if (taken) {
        ol_pmix_name_unpublish(service);
        return rc;
    }
    OL_WARN("runtime", "%s: only this job's processes will find it", ol_error_detail_take());
    return OL_OK;
}

ol_status_t ol_rt_name_lookup(const char *service, char *port)
{
    ol_status_t rc = check_service(service);
    if (rc != OL_OK || ol_pmix_name_lookup(service, port) == OL_PMIX_NAME_DONE)
        return rc;
    char *path = NULL;
    rc = find_entry(service, &path, port);
    free(path);
    return rc;
}

/* The job's service must name the same port, if it has the name. */
static ol_status_t job_unpublish(const char *service, const char *port, bool *removed)
{
    char published[MPI_MAX_PORT_NAME];
    if (ol_pmix_name_lookup(service, published) != OL_PMIX_NAME_DONE)
        return OL_OK;
    if (strcmp(published, port) != 0) {
        ol_error_detail("\"%.200s\" is published with another port than the one given",
                        service);
        return MPI_ERR_SERVICE;
    }
    *removed = ol_pmix_name_unpublish(service) == OL_PMIX_NAME_DONE;
    return OL_OK;
}

static ol_status_t dir_unpublish(const char *service, const char *port, bool *removed)
{
    char *path = NULL, published[MPI_MAX_PORT_NAME];
    ol_status_t rc = find_entry(service, &path, published);
    if (rc == MPI_ERR_NAME) {
        ol_error_detail_take();
        return OL_OK;
    }
    if (rc == OL_OK && strcmp(published, port) != 0) {
        ol_error_detail("\"%.200s\" is published with another port than the one given",
                        service);
        rc = MPI_ERR_SERVICE;
    }
    if (rc == OL_OK && unlink(path) != 0) {
        ol_error_detail("cannot remove the name \"%.200s\": %s", service, strerror(errno));
        rc = MPI_ERR_SERVICE;
    }
    *removed = rc == OL_OK;
    free(path);
    return rc;
}

ol_status_t ol_rt_name_unpublish(const char *service, const char *port)
{
    bool in_job = false, in_dir = false;
    ol_status_t rc = check_service(service);
    if (rc == OL_OK)
        rc = job_unpublish(service, port, &in_job);
    if (rc == OL_OK)
        rc = dir_unpublish(service, port, &in_dir);
    if (rc == OL_OK && !in_job && !in_dir) {
        ol_error_detail("no port is published under \"%.200s\"", service);
        rc = MPI_ERR_SERVICE; /* the class MPI_Unpublish_name gives for an unknown name */
    }
    return rc;
}
