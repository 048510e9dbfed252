/* MPI-IO (MPI-4.1 chapter 14): file handles, their hints, views, error
 * handlers, and the data-access calls that io/ carries out. Each access
 * call names its positioning (explicit offset, individual or shared file
 * pointer), its synchronism (blocking, nonblocking, split collective) and
 * its coordination (independent or collective); the helpers below turn
 * that into one io/ call. */
#include "comm_internal.h"
#include "gen_impl.h"
#include "handles.h"
#include "ol_errhandler.h"
#include "ol_info.h"
#include "coll.h"
#include "pt2pt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- hints -------------------------------------------------------------------- */

static bool parse_size(const char *value, MPI_Offset *out)
{
    char *end;
    long long v = strtoll(value, &end, 10);
    if (end == value || *end || v <= 0)
        return false;
    *out = v;
    return true;
}

static void parse_switch(const char *value, ol_io_switch_t *out)
{
    if (strcmp(value, "enable") == 0 || strcmp(value, "true") == 0)
        *out = OL_IO_ENABLE;
    else if (strcmp(value, "disable") == 0 || strcmp(value, "false") == 0)
        *out = OL_IO_DISABLE;
    else if (strcmp(value, "automatic") == 0)
        *out = OL_IO_AUTOMATIC;
}

/* The hints ompi-lite acts upon (README.md of io/); values it cannot read
 * are ignored, as the standard asks of hints. */
static void parse_hints(const ol_info_t *info, ol_io_hints_t *h)
{
    const char *v;
    MPI_Offset n;
    if (!info)
        return;
    if ((v = ol_info_get_value(info, "cb_buffer_size")) && parse_size(v, &n))
        h->cb_buffer_size = n;
    if ((v = ol_info_get_value(info, "cb_nodes")) && parse_size(v, &n) && n <= INT32_MAX)
        h->cb_nodes = (int)n;
    if ((v = ol_info_get_value(info, "collective_buffering"))) {
        parse_switch(v, &h->cb_write);
        parse_switch(v, &h->cb_read);
    }
    if ((v = ol_info_get_value(info, "romio_cb_write")))
        parse_switch(v, &h->cb_write);
    if ((v = ol_info_get_value(info, "romio_cb_read")))
        parse_switch(v, &h->cb_read);
    if ((v = ol_info_get_value(info, "romio_ds_write")))
        parse_switch(v, &h->ds_write);
    if ((v = ol_info_get_value(info, "romio_ds_read")))
        parse_switch(v, &h->ds_read);
    if ((v = ol_info_get_value(info, "ind_rd_buffer_size")) && parse_size(v, &n))
        h->ind_rd_buffer_size = n;
    if ((v = ol_info_get_value(info, "ind_wr_buffer_size")) && parse_size(v, &n))
        h->ind_wr_buffer_size = n;
    if ((v = ol_info_get_value(info, "striping_unit")) && parse_size(v, &n))
        h->striping_unit = n;
}

static const char *switch_name(ol_io_switch_t s)
{
    return s == OL_IO_ENABLE ? "enable" : s == OL_IO_DISABLE ? "disable" : "automatic";
}

/* The file's info: the program's hints, with the values in use of those
 * ompi-lite acts upon. */
static ol_status_t keep_hints(ol_file_t *f, const ol_info_t *given)
{
    /* New hints replace the program's old ones; none given keeps them. */
    ol_info_t *info = given     ? ol_info_dup(given)
                      : f->info ? ol_info_dup(f->info)
                                : ol_info_create();
    const ol_io_hints_t *h = &f->hints;
    int hosts = ol_rt.num_hosts > 0 ? ol_rt.num_hosts : 1;
    char nodes[32];
    snprintf(nodes, sizeof nodes, "%d", h->cb_nodes > 0 ? h->cb_nodes : hosts);
    ol_status_t rc = info ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = ol_info_set_size(info, "cb_buffer_size", (size_t)h->cb_buffer_size);
    if (rc == MPI_SUCCESS)
        rc = ol_info_set(info, "cb_nodes", nodes);
    if (rc == MPI_SUCCESS)
        rc = ol_info_set(info, "romio_cb_write", switch_name(h->cb_write));
    if (rc == MPI_SUCCESS)
        rc = ol_info_set(info, "romio_cb_read", switch_name(h->cb_read));
    if (rc == MPI_SUCCESS)
        rc = ol_info_set(info, "romio_ds_write", switch_name(h->ds_write));
    if (rc == MPI_SUCCESS)
        rc = ol_info_set(info, "romio_ds_read", switch_name(h->ds_read));
    if (rc == MPI_SUCCESS)
        rc = ol_info_set_size(info, "ind_rd_buffer_size", (size_t)h->ind_rd_buffer_size);
    if (rc == MPI_SUCCESS)
        rc = ol_info_set_size(info, "ind_wr_buffer_size", (size_t)h->ind_wr_buffer_size);
    if (rc == MPI_SUCCESS && h->striping_unit > 0)
        rc = ol_info_set_size(info, "striping_unit", (size_t)h->striping_unit);
    if (rc != MPI_SUCCESS) {
        if (info)
            ol_info_release(info);
        ol_api_set_detail("out of memory for a file's hints");
        return MPI_ERR_NO_MEM;
    }
    if (f->info)
        ol_info_release(f->info);
    f->info = info;
    return MPI_SUCCESS;
}

/* ---- opening and closing ---------------------------------------------------------- */

/* ROMIO lets a name say its file system ("ufs:/data/x"); ompi-lite has one
 * way to each, so it takes the path after such a prefix. */
static const char *path_of(const char *filename)
{
    static const char *const prefixes[] = {"ufs:", "nfs:", "lustre:", "gpfs:", "panfs:",
                                           "pvfs2:", "xfs:"};
    for (size_t i = 0; i < OL_ARRAY_SIZE(prefixes); i++)
        if (strncmp(filename, prefixes[i], strlen(prefixes[i])) == 0)
            return filename + strlen(prefixes[i]);
    return filename;
}

int ol_api_file_open(ol_comm_t *comm, const char *filename, int amode, MPI_Info info,
                     MPI_File *fh)
{
    *fh = MPI_FILE_NULL;
    if (ol_comm_is_inter(comm)) {
        ol_api_set_detail("comm is an intercommunicator: files open over intracommunicators");
        return MPI_ERR_COMM;
    }
    if (!filename) {
        ol_api_set_detail("filename is NULL");
        return MPI_ERR_BAD_FILE;
    }
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_io_hints_t parsed;
    ol_io_hints_default(&parsed);
    parse_hints(hints, &parsed);
    ol_comm_t *dup;
    rc = ol_comm_dup_private(comm, &dup);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_file_t *f;
    rc = ol_io_open(dup, path_of(filename), amode, &parsed, &f);
    if (rc != MPI_SUCCESS) {
        ol_comm_free_private(dup);
        return rc;
    }
    f->errhandler = ol_api_file_default_errhandler();
    ol_errhandler_retain(f->errhandler);
    rc = keep_hints(f, hints);
    if (rc != MPI_SUCCESS) {
        MPI_File handle = ol_file_to_handle(f);
        ol_api_file_close(&handle);
        return rc;
    }
    *fh = ol_file_to_handle(f);
    return MPI_SUCCESS;
}

int ol_api_file_close(MPI_File *fh)
{
    ol_file_t *f = ol_file_from_handle(*fh);
    if (!f) {
        ol_api_set_detail("fh is %s", *fh == MPI_FILE_NULL ? "MPI_FILE_NULL"
                                                           : "not a valid file handle");
        return MPI_ERR_FILE;
    }
    if (f->split) {
        ol_api_set_detail("a split collective access on the file was begun and not ended");
        return MPI_ERR_OTHER;
    }
    ol_comm_t *comm = f->comm;
    MPI_Errhandler errhandler = f->errhandler;
    ol_info_t *info = f->info;
    ol_handle_forget(f);
    int rc = ol_io_close(f);
    ol_comm_free_private(comm);
    ol_errhandler_release(errhandler);
    if (info)
        ol_info_release(info);
    *fh = MPI_FILE_NULL;
    return rc;
}

int ol_api_file_delete(const char *filename, MPI_Info info)
{
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!filename) {
        ol_api_set_detail("filename is NULL");
        return MPI_ERR_BAD_FILE;
    }
    return ol_io_delete(path_of(filename));
}

/* ---- management -------------------------------------------------------------------- */

int ol_api_file_set_size(ol_file_t *fh, MPI_Offset size)
{
    return ol_io_set_size(fh, size);
}

int ol_api_file_preallocate(ol_file_t *fh, MPI_Offset size)
{
    return ol_io_preallocate(fh, size);
}

int ol_api_file_get_size(ol_file_t *fh, MPI_Offset *size)
{
    return ol_io_get_size(fh, size);
}

int ol_api_file_get_group(ol_file_t *fh, MPI_Group *group)
{
    ol_group_retain(fh->comm->group);
    *group = ol_group_to_handle(fh->comm->group);
    return MPI_SUCCESS;
}

int ol_api_file_get_amode(ol_file_t *fh, int *amode)
{
    *amode = fh->amode;
    return MPI_SUCCESS;
}

int ol_api_file_set_info(ol_file_t *fh, MPI_Info info)
{
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc != MPI_SUCCESS)
        return rc;
    parse_hints(hints, &fh->hints);
    rc = keep_hints(fh, hints);
    if (rc == MPI_SUCCESS)
        rc = ol_coll_barrier(fh->comm); /* collective, as the standard says */
    return rc;
}

int ol_api_file_get_info(ol_file_t *fh, MPI_Info *info_used)
{
    ol_info_t *copy = ol_info_dup(fh->info);
    return ol_info_give(copy, MPI_SUCCESS, info_used);
}

int ol_api_file_set_atomicity(ol_file_t *fh, int flag)
{
    return ol_io_set_atomicity(fh, flag != 0);
}

int ol_api_file_get_atomicity(ol_file_t *fh, int *flag)
{
    *flag = fh->atomic;
    return MPI_SUCCESS;
}

int ol_api_file_sync(ol_file_t *fh)
{
    return ol_io_sync(fh);
}

/* ---- error handlers ----------------------------------------------------------------- */

int ol_api_file_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    ol_file_t *f = ol_file_from_handle(file);
    if (!f && file != MPI_FILE_NULL) {
        ol_api_set_detail("file is not a valid file handle");
        return MPI_ERR_FILE;
    }
    if (!ol_errhandler_fits_file(errhandler)) {
        ol_api_set_detail("errhandler is not a valid error handler for a file");
        return MPI_ERR_ERRHANDLER;
    }
    if (!f) {
        ol_api_set_file_default_errhandler(errhandler);
        return MPI_SUCCESS;
    }
    ol_errhandler_retain(errhandler);
    ol_errhandler_release(f->errhandler);
    f->errhandler = errhandler;
    return MPI_SUCCESS;
}

int ol_api_file_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    ol_file_t *f = ol_file_from_handle(file);
    if (!f && file != MPI_FILE_NULL) {
        ol_api_set_detail("file is not a valid file handle");
        return MPI_ERR_FILE;
    }
    *errhandler = f ? f->errhandler : ol_api_file_default_errhandler();
    ol_errhandler_retain(*errhandler);
    return MPI_SUCCESS;
}

/* ---- views ------------------------------------------------------------------------- */

int ol_api_file_set_view(ol_file_t *fh, MPI_Offset disp, ol_datatype_t *etype,
                         ol_datatype_t *filetype, const char *datarep, MPI_Info info)
{
    const ol_info_t *hints;
    int rc = ol_info_hints(info, &hints);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!datarep) {
        ol_api_set_detail("datarep is NULL");
        return MPI_ERR_ARG;
    }
    if (fh->split) {
        ol_api_set_detail("a split collective access on the file was begun and not ended");
        return MPI_ERR_OTHER;
    }
    if (hints) {
        parse_hints(hints, &fh->hints);
        rc = keep_hints(fh, hints);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return ol_io_set_view(fh, disp, etype, filetype, datarep);
}

int ol_api_file_get_view(ol_file_t *fh, MPI_Offset *disp, MPI_Datatype *etype,
                         MPI_Datatype *filetype, char *datarep)
{
    if (!datarep) {
        ol_api_set_detail("datarep is NULL");
        return MPI_ERR_ARG;
    }
    *disp = fh->view.disp;
    /* Derived types come back as new handles the program frees. */
    ol_dt_new_handle(fh->view.etype);
    ol_dt_new_handle(fh->view.filetype);
    *etype = ol_dt_to_handle(fh->view.etype);
    *filetype = ol_dt_to_handle(fh->view.filetype);
    snprintf(datarep, MPI_MAX_DATAREP_STRING, "%s", fh->view.datarep);
    return MPI_SUCCESS;
}

int ol_api_file_get_byte_offset(ol_file_t *fh, MPI_Offset offset, MPI_Offset *disp)
{
    if (offset < 0) {
        ol_api_set_detail("offset is %lld, negative", (long long)offset);
        return MPI_ERR_ARG;
    }
    *disp = ol_io_byte_offset(fh, offset);
    return MPI_SUCCESS;
}

int ol_api_file_get_type_extent_c(ol_file_t *fh, ol_datatype_t *datatype, MPI_Count *extent)
{
    return ol_io_type_extent(fh, datatype, extent);
}

int ol_api_file_get_type_extent(ol_file_t *fh, ol_datatype_t *datatype, MPI_Aint *extent)
{
    MPI_Count wide;
    int rc = ol_io_type_extent(fh, datatype, &wide);
    if (rc == MPI_SUCCESS)
        *extent = (MPI_Aint)wide;
    return rc;
}

int ol_api_register_datarep_c(const char *datarep,
                              MPI_Datarep_conversion_function_c *read_conversion_fn,
                              MPI_Datarep_conversion_function_c *write_conversion_fn,
                              MPI_Datarep_extent_function *dtype_file_extent_fn,
                              void *extra_state)
{
    if (!datarep) {
        ol_api_set_detail("datarep is NULL");
        return MPI_ERR_ARG;
    }
    ol_io_datarep_fns_t fns = {.read_fn_c = read_conversion_fn,
                               .write_fn_c = write_conversion_fn,
                               .extent_fn = dtype_file_extent_fn, .extra_state = extra_state};
    return ol_io_register_datarep(datarep, &fns);
}

int ol_api_register_datarep(const char *datarep,
                            MPI_Datarep_conversion_function *read_conversion_fn,
                            MPI_Datarep_conversion_function *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    if (!datarep) {
        ol_api_set_detail("datarep is NULL");
        return MPI_ERR_ARG;
    }
    ol_io_datarep_fns_t fns = {.read_fn = read_conversion_fn,
                               .write_fn = write_conversion_fn,
                               .extent_fn = dtype_file_extent_fn, .extra_state = extra_state};
    return ol_io_register_datarep(datarep, &fns);
}

/* ---- positions --------------------------------------------------------------------- */

static int check_not_sequential(const ol_file_t *f, const char *what)
{
    if (f->amode & MPI_MODE_SEQUENTIAL) {
        ol_api_set_detail("%s: the file was opened MPI_MODE_SEQUENTIAL, which allows only "
                          "the shared file pointer", what);
        return MPI_ERR_UNSUPPORTED_OPERATION;
    }
    return MPI_SUCCESS;
}

/* Etypes of the view that lie before the file's end: where MPI_SEEK_END
 * counts from. */
static int view_end(ol_file_t *f, MPI_Offset *end)
{
    MPI_Offset size;
    int rc = ol_io_get_size(f, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    const ol_io_view_t *v = &f->view;
    MPI_Offset data = 0;
    if (size > v->disp && v->map.size > 0) {
        MPI_Offset rel = size - v->disp;
        data = rel / v->map.extent * v->map.size;
        MPI_Offset rem = rel % v->map.extent;
        for (size_t i = 0; i < v->map.nruns && v->map.runs[i].offset < rem; i++) {
            MPI_Offset in = rem - v->map.runs[i].offset;
            data += in < v->map.runs[i].length ? in : v->map.runs[i].length;
        }
    }
    *end = (data + v->etype_bytes - 1) / v->etype_bytes;
    return MPI_SUCCESS;
}

static int new_position(ol_file_t *f, MPI_Offset current, MPI_Offset offset, int whence,
                        MPI_Offset *position)
{
    MPI_Offset base;
    if (whence == MPI_SEEK_SET) {
        base = 0;
    } else if (whence == MPI_SEEK_CUR) {
        base = current;
    } else if (whence == MPI_SEEK_END) {
        int rc = view_end(f, &base);
        if (rc != MPI_SUCCESS)
            return rc;
    } else {
        ol_api_set_detail("whence is %d: not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END", whence);
        return MPI_ERR_ARG;
    }
    if (base + offset < 0) {
        ol_api_set_detail("the file pointer would move to %lld etypes, before the view's start",
                          (long long)(base + offset));
        return MPI_ERR_ARG;
    }
    *position = base + offset;
    return MPI_SUCCESS;
}

int ol_api_file_seek(ol_file_t *fh, MPI_Offset offset, int whence)
{
    int rc = check_not_sequential(fh, "cannot seek");
    if (rc == MPI_SUCCESS)
        rc = new_position(fh, fh->position, offset, whence, &fh->position);
    return rc;
}

int ol_api_file_get_position(ol_file_t *fh, MPI_Offset *offset)
{
    *offset = fh->position;
    return MPI_SUCCESS;
}

int ol_api_file_seek_shared(ol_file_t *fh, MPI_Offset offset, int whence)
{
    /* Collective: every process waits for rank 0 to have moved it. */
    int rc = MPI_SUCCESS;
    if (fh->comm->rank == 0) {
        MPI_Offset current = 0, position;
        if (whence == MPI_SEEK_CUR)
            rc = ol_io_shared_get(fh, &current);
        if (rc == MPI_SUCCESS)
            rc = new_position(fh, current, offset, whence, &position);
        if (rc == MPI_SUCCESS)
            rc = ol_io_shared_set(fh, position);
    }
    int agreed = ol_coll_bcast(&rc, 1, ol_dt_from_handle(MPI_INT), 0, fh->comm);
    if (agreed != MPI_SUCCESS)
        return agreed;
    if (rc != MPI_SUCCESS && fh->comm->rank != 0)
        ol_api_set_detail("rank 0 could not move the shared file pointer");
    return rc;
}

int ol_api_file_get_position_shared(ol_file_t *fh, MPI_Offset *offset)
{
    return ol_io_shared_get(fh, offset);
}

/* ---- data access ------------------------------------------------------------------- */

/* Ordered accesses start where the shared pointer is, rank after rank. */
typedef enum { AT_EXPLICIT, AT_INDIVIDUAL, AT_SHARED, AT_ORDERED } positioning_t;

/* Where an access begins, in etypes of the view; moves the individual or
 * shared pointer past it (by the data asked for). */
static int position_for(ol_file_t *f, positioning_t at, MPI_Offset offset, MPI_Count count,
                        ol_datatype_t *dt, MPI_Offset *start)
{
    int rc = MPI_SUCCESS;
    if (at != AT_SHARED)
        rc = check_not_sequential(f, at == AT_EXPLICIT ? "explicit offsets"
                                                       : "the individual file pointer");
    if (rc != MPI_SUCCESS)
        return rc;
    if (dt->size > 0 && (count * (MPI_Count)dt->size) % (MPI_Count)f->view.etype->size != 0) {
        ol_api_set_detail("%lld elements of %s are no whole number of etypes (%s)",
                          (long long)count, ol_dt_name(dt), ol_dt_name(f->view.etype));
        return MPI_ERR_TYPE;
    }
    MPI_Offset etypes = ol_io_etypes_of(f, count, dt);
    switch (at) {
    case AT_EXPLICIT:
        if (offset < 0) {
            ol_api_set_detail("offset is %lld, negative", (long long)offset);
            return MPI_ERR_ARG;
        }
        *start = offset;
        return MPI_SUCCESS;
    case AT_INDIVIDUAL:
        *start = f->position;
        f->position += etypes;
        return MPI_SUCCESS;
    case AT_SHARED:
        return ol_io_shared_fetch_add(f, etypes, start);
    case AT_ORDERED:
        break;
    }
    return MPI_ERR_INTERN;
}

static int independent(ol_file_t *f, positioning_t at, MPI_Offset offset, bool write, void *buf,
                       MPI_Count count, ol_datatype_t *dt, MPI_Status *status)
{
    ol_io_access_t a = {.write = write, .buf = buf, .count = count, .dt = dt};
    MPI_Offset before = f->position;
    int rc = position_for(f, at, offset, count, dt, &a.offset);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Status mine;
    rc = ol_io_access(f, &a, &mine);
    if (at == AT_INDIVIDUAL) /* by what moved: a read that met the end stops there */
        f->position = before + (rc == MPI_SUCCESS ? ol_status_get_bytes(&mine) /
                                                        (MPI_Offset)f->view.etype->size
                                                  : 0);
    if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE)
        *status = mine;
    return rc;
}

static int nonblocking(ol_file_t *f, positioning_t at, MPI_Offset offset, bool write, void *buf,
                       MPI_Count count, ol_datatype_t *dt, MPI_Request *request)
{
    /* Independent accesses finish at once: the request is complete. */
    MPI_Status status;
    int rc = independent(f, at, offset, write, buf, count, dt, &status);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_request_t *req = ol_io_done_request(f, MPI_SUCCESS, &status);
    if (!req) {
        ol_api_set_detail("out of memory for a request");
        return MPI_ERR_NO_MEM;
    }
    *request = ol_request_to_handle(req);
    return MPI_SUCCESS;
}

/* Starts a collective access. Wrong arguments at this process still start
 * it (the others wait for its messages): the request then ends with their
 * error, which is also returned. */
static int start_collective(ol_file_t *f, positioning_t at, MPI_Offset offset, bool write,
                            void *buf, MPI_Count count, ol_datatype_t *dt, ol_request_t **req)
{
    ol_io_access_t a = {.write = write, .buf = buf, .count = count, .dt = dt};
    a.error = position_for(f, at, offset, count, dt, &a.offset);
    int rc = ol_io_access_all(f, &a, req);
    return rc != MPI_SUCCESS ? rc : a.error;
}

/* A nonblocking or split call that failed here: the access goes on for the
 * others' sake, and nobody waits for it. */
static int started_in_vain(int rc, ol_request_t *req)
{
    if (rc != MPI_SUCCESS && req)
        ol_request_free_when_complete(req);
    return rc;
}

/* Waits for a collective access; the error of a call whose own arguments
 * were wrong (local) comes first. */
static int wait_collective(ol_request_t *req, MPI_Status *status, int local)
{
    ol_request_wait_complete(req);
    int rc = local != MPI_SUCCESS ? local : req->error;
    MPI_Status done = req->status;
    ol_request_free_when_complete(req);
    if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE)
        *status = done;
    return rc;
}

/* Etypes a read moved, from its status; the status may be the program's
 * MPI_STATUS_IGNORE, when the caller passes its own. */
static MPI_Offset moved_etypes(const ol_file_t *f, const MPI_Status *status)
{
    return ol_status_get_bytes(status) / (MPI_Offset)f->view.etype->size;
}

static int collective(ol_file_t *f, positioning_t at, MPI_Offset offset, bool write, void *buf,
                      MPI_Count count, ol_datatype_t *dt, MPI_Status *status)
{
    ol_request_t *req = NULL;
    MPI_Offset before = f->position;
    MPI_Status mine;
    int rc = start_collective(f, at, offset, write, buf, count, dt, &req);
    if (req)
        rc = wait_collective(req, &mine, rc);
    if (rc == MPI_SUCCESS && status != MPI_STATUS_IGNORE)
        *status = mine;
    /* As independent accesses: a read moves the pointer by what arrived. */
    if (at == AT_INDIVIDUAL && (rc != MPI_SUCCESS || !write))
        f->position = before + (rc == MPI_SUCCESS ? moved_etypes(f, &mine) : 0);
    return rc;
}

static int icollective(ol_file_t *f, positioning_t at, MPI_Offset offset, bool write, void *buf,
                       MPI_Count count, ol_datatype_t *dt, MPI_Request *request)
{
    ol_request_t *req = NULL;
    int rc = start_collective(f, at, offset, write, buf, count, dt, &req);
    if (rc == MPI_SUCCESS)
        *request = ol_request_to_handle(req);
    return started_in_vain(rc, req);
}

/* Ordered access: the shared pointer moves by everyone's data at once, and
 * each process's data goes after that of the ranks below it. */
static int ordered_offset(ol_file_t *f, MPI_Count count, ol_datatype_t *dt, MPI_Offset *start)
{
    int n = f->comm->size;
    MPI_Offset mine = ol_io_etypes_of(f, count, dt), *all = malloc((size_t)n * sizeof(MPI_Offset));
    if (!all) {
        ol_api_set_detail("out of memory for an ordered access");
        return MPI_ERR_NO_MEM;
    }
    ol_datatype_t *offsets = ol_dt_from_handle(MPI_OFFSET);
    int rc = ol_coll_allgather(&mine, 1, offsets, all, 1, offsets, f->comm);
    MPI_Offset below = 0, total = 0, base = 0;
    for (int r = 0; r < n; r++) {
        below += r < f->comm->rank ? all[r] : 0;
        total += all[r];
    }
    free(all);
    int shared_rc = MPI_SUCCESS;
    if (rc == MPI_SUCCESS && f->comm->rank == 0)
        shared_rc = ol_io_shared_fetch_add(f, total, &base);
    MPI_Offset message[2] = {base, shared_rc};
    if (rc == MPI_SUCCESS)
        rc = ol_coll_bcast(message, 2, offsets, 0, f->comm);
    if (rc == MPI_SUCCESS && message[1] != MPI_SUCCESS) {
        if (f->comm->rank != 0)
            ol_api_set_detail("rank 0 could not move the shared file pointer");
        rc = (int)message[1];
    }
    *start = message[0] + below;
    return rc;
}

static int ordered(ol_file_t *f, bool write, void *buf, MPI_Count count, ol_datatype_t *dt,
                   ol_request_t **req)
{
    MPI_Offset start;
    int rc = ordered_offset(f, count, dt, &start);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_io_access_t a = {.write = write, .buf = buf, .count = count, .dt = dt, .offset = start};
    return ol_io_access_all(f, &a, req);
}

static int ordered_wait(ol_file_t *f, bool write, void *buf, MPI_Count count, ol_datatype_t *dt,
                        MPI_Status *status)
{
    ol_request_t *req;
    int rc = ordered(f, write, buf, count, dt, &req);
    return rc == MPI_SUCCESS ? wait_collective(req, status, MPI_SUCCESS) : rc;
}

/* Split collectives: one at a time per file (MPI-4.1 14.4.5); the begin
 * call starts the collective, the end call waits for it. */
static int begin_split(ol_file_t *f, positioning_t at, MPI_Offset offset, bool write, void *buf,
                       MPI_Count count, ol_datatype_t *dt)
{
    if (f->split) {
        ol_api_set_detail("a split collective access on the file is begun already: end it "
                          "first (one at a time per file)");
        return MPI_ERR_OTHER;
    }
    ol_request_t *req = NULL;
    int rc = at == AT_ORDERED ? ordered(f, write, buf, count, dt, &req)
                              : start_collective(f, at, offset, write, buf, count, dt, &req);
    if (rc != MPI_SUCCESS)
        return started_in_vain(rc, req);
    f->split = req;
    f->split_write = write;
    return MPI_SUCCESS;
}

static int end_split(ol_file_t *f, bool write, MPI_Status *status)
{
    if (!f->split || f->split_write != write) {
        ol_api_set_detail("no split collective %s was begun on the file",
                          write ? "write" : "read");
        return MPI_ERR_OTHER;
    }
    ol_request_t *req = f->split;
    f->split = NULL;
    return wait_collective(req, status, MPI_SUCCESS);
}

/* The calls themselves: each names its positioning, synchronism and
 * coordination. */

int ol_api_file_read_at_c(ol_file_t *fh, MPI_Offset offset, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return independent(fh, AT_EXPLICIT, offset, false, (void *)buf, count, datatype, status);
}

int ol_api_file_read_c(ol_file_t *fh, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return independent(fh, AT_INDIVIDUAL, 0, false, (void *)buf, count, datatype, status);
}

int ol_api_file_read_shared_c(ol_file_t *fh, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return independent(fh, AT_SHARED, 0, false, (void *)buf, count, datatype, status);
}

int ol_api_file_iread_at_c(ol_file_t *fh, MPI_Offset offset, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Request *request)
{
    return nonblocking(fh, AT_EXPLICIT, offset, false, (void *)buf, count, datatype, request);
}

int ol_api_file_iread_c(ol_file_t *fh, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Request *request)
{
    return nonblocking(fh, AT_INDIVIDUAL, 0, false, (void *)buf, count, datatype, request);
}

int ol_api_file_iread_shared_c(ol_file_t *fh, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Request *request)
{
    return nonblocking(fh, AT_SHARED, 0, false, (void *)buf, count, datatype, request);
}

int ol_api_file_read_at_all_c(ol_file_t *fh, MPI_Offset offset, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return collective(fh, AT_EXPLICIT, offset, false, (void *)buf, count, datatype, status);
}

int ol_api_file_read_all_c(ol_file_t *fh, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return collective(fh, AT_INDIVIDUAL, 0, false, (void *)buf, count, datatype, status);
}

int ol_api_file_iread_at_all_c(ol_file_t *fh, MPI_Offset offset, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Request *request)
{
    return icollective(fh, AT_EXPLICIT, offset, false, (void *)buf, count, datatype, request);
}

int ol_api_file_iread_all_c(ol_file_t *fh, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Request *request)
{
    return icollective(fh, AT_INDIVIDUAL, 0, false, (void *)buf, count, datatype, request);
}

int ol_api_file_read_ordered_c(ol_file_t *fh, void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return ordered_wait(fh, false, (void *)buf, count, datatype, status);
}

int ol_api_file_read_at_all_begin_c(ol_file_t *fh, MPI_Offset offset, void *buf, MPI_Count count, ol_datatype_t *datatype)
{
    return begin_split(fh, AT_EXPLICIT, offset, false, (void *)buf, count, datatype);
}

int ol_api_file_read_all_begin_c(ol_file_t *fh, void *buf, MPI_Count count, ol_datatype_t *datatype)
{
    return begin_split(fh, AT_INDIVIDUAL, 0, false, (void *)buf, count, datatype);
}

int ol_api_file_read_ordered_begin_c(ol_file_t *fh, void *buf, MPI_Count count, ol_datatype_t *datatype)
{
    return begin_split(fh, AT_ORDERED, 0, false, (void *)buf, count, datatype);
}

int ol_api_file_read_at_all_end(ol_file_t *fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return end_split(fh, false, status);
}

int ol_api_file_read_all_end(ol_file_t *fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return end_split(fh, false, status);
}

int ol_api_file_read_ordered_end(ol_file_t *fh, void *buf, MPI_Status *status)
{
    (void)buf;
    return end_split(fh, false, status);
}

int ol_api_file_write_at_c(ol_file_t *fh, MPI_Offset offset, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return independent(fh, AT_EXPLICIT, offset, true, (void *)buf, count, datatype, status);
}

int ol_api_file_write_c(ol_file_t *fh, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return independent(fh, AT_INDIVIDUAL, 0, true, (void *)buf, count, datatype, status);
}

int ol_api_file_write_shared_c(ol_file_t *fh, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return independent(fh, AT_SHARED, 0, true, (void *)buf, count, datatype, status);
}

int ol_api_file_iwrite_at_c(ol_file_t *fh, MPI_Offset offset, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Request *request)
{
    return nonblocking(fh, AT_EXPLICIT, offset, true, (void *)buf, count, datatype, request);
}

int ol_api_file_iwrite_c(ol_file_t *fh, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Request *request)
{
    return nonblocking(fh, AT_INDIVIDUAL, 0, true, (void *)buf, count, datatype, request);
}

int ol_api_file_iwrite_shared_c(ol_file_t *fh, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Request *request)
{
    return nonblocking(fh, AT_SHARED, 0, true, (void *)buf, count, datatype, request);
}

int ol_api_file_write_at_all_c(ol_file_t *fh, MPI_Offset offset, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return collective(fh, AT_EXPLICIT, offset, true, (void *)buf, count, datatype, status);
}

int ol_api_file_write_all_c(ol_file_t *fh, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return collective(fh, AT_INDIVIDUAL, 0, true, (void *)buf, count, datatype, status);
}

int ol_api_file_iwrite_at_all_c(ol_file_t *fh, MPI_Offset offset, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Request *request)
{
    return icollective(fh, AT_EXPLICIT, offset, true, (void *)buf, count, datatype, request);
}

int ol_api_file_iwrite_all_c(ol_file_t *fh, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Request *request)
{
    return icollective(fh, AT_INDIVIDUAL, 0, true, (void *)buf, count, datatype, request);
}

int ol_api_file_write_ordered_c(ol_file_t *fh, const void *buf, MPI_Count count, ol_datatype_t *datatype, MPI_Status *status)
{
    return ordered_wait(fh, true, (void *)buf, count, datatype, status);
}

int ol_api_file_write_at_all_begin_c(ol_file_t *fh, MPI_Offset offset, const void *buf, MPI_Count count, ol_datatype_t *datatype)
{
    return begin_split(fh, AT_EXPLICIT, offset, true, (void *)buf, count, datatype);
}

int ol_api_file_write_all_begin_c(ol_file_t *fh, const void *buf, MPI_Count count, ol_datatype_t *datatype)
{
    return begin_split(fh, AT_INDIVIDUAL, 0, true, (void *)buf, count, datatype);
}

int ol_api_file_write_ordered_begin_c(ol_file_t *fh, const void *buf, MPI_Count count, ol_datatype_t *datatype)
{
    return begin_split(fh, AT_ORDERED, 0, true, (void *)buf, count, datatype);
}

int ol_api_file_write_at_all_end(ol_file_t *fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return end_split(fh, true, status);
}

int ol_api_file_write_all_end(ol_file_t *fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return end_split(fh, true, status);
}

int ol_api_file_write_ordered_end(ol_file_t *fh, const void *buf, MPI_Status *status)
{
    (void)buf;
    return end_split(fh, true, status);
}
