/* Independent data access: the program's data as the file holds it (the
 * stream), and its moves to and from the runs of the view, with data
 * sieving for many small runs and byte-range locks in atomic mode. */
#define _GNU_SOURCE
#include "io_internal.h"
#include "ol_accel.h"
#include "pt2pt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- system calls ---------------------------------------------------------- */

int ol_io_pread_full(int fd, void *buf, MPI_Offset length, MPI_Offset offset, MPI_Offset *done)
{
    *done = 0;
    while (*done < length) {
        ssize_t n = pread(fd, (char *)buf + *done, (size_t)(length - *done), offset + *done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return 0; /* the end of the file */
        *done += n;
    }
    return 0;
}

int ol_io_pwritev_full(int fd, struct iovec *iov, int n, MPI_Offset offset)
{
    int k = 0;
    for (;;) {
        while (k < n && iov[k].iov_len == 0)
            k++;
        if (k == n)
            return 0;
        ssize_t moved = pwritev(fd, iov + k, n - k, offset);
        if (moved < 0 && errno == EINTR)
            continue;
        if (moved < 0)
            return errno;
        if (moved == 0)
            return ENOSPC; /* a write that makes no progress: nothing more fits */
        offset += moved;
        for (; k < n && (size_t)moved >= iov[k].iov_len; k++)
            moved -= (ssize_t)iov[k].iov_len;
        if (k < n) {
            iov[k].iov_base = (char *)iov[k].iov_base + moved;
            iov[k].iov_len -= (size_t)moved;
        }
    }
}

int ol_io_pwrite_full(int fd, const void *buf, MPI_Offset length, MPI_Offset offset)
{
    struct iovec iov = {(void *)buf, (size_t)length};
    return ol_io_pwritev_full(fd, &iov, 1, offset);
}

/* Open file description locks exclude other processes (and survive no
 * close of another descriptor, unlike process locks); the file's mutex
 * excludes this process's other threads, which share the description. */
int ol_io_lock(ol_file_t *f, int fd, bool exclusive, MPI_Offset offset, MPI_Offset length)
{
    pthread_mutex_lock(&f->range_mutex);
    struct flock lock = {.l_type = exclusive ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET,
                         .l_start = offset, .l_len = length};
    while (fcntl(fd, F_OFD_SETLKW, &lock) != 0) {
        if (errno != EINTR) {
            int error = errno;
            pthread_mutex_unlock(&f->range_mutex);
            return error;
        }
    }
    return 0;
}

void ol_io_unlock(ol_file_t *f, int fd, MPI_Offset offset, MPI_Offset length)
{
    struct flock lock = {.l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = offset,
                         .l_len = length};
    (void)fcntl(fd, F_OFD_SETLK, &lock);
    pthread_mutex_unlock(&f->range_mutex);
}

MPI_Offset ol_io_pieces_end(const pieces_t *p, size_t i, size_t j)
{
    MPI_Offset end = 0;
    for (size_t k = i; k < j; k++)
        if (p->pieces[k].file + p->pieces[k].length > end)
            end = p->pieces[k].file + p->pieces[k].length;
    return end;
}

/* ---- the stream ---------------------------------------------------------- */

static ol_status_t no_memory(MPI_Offset bytes)
{
    ol_error_detail("out of memory for %lld bytes of file data", (long long)bytes);
    return MPI_ERR_NO_MEM;
}

/* The program's data in host memory laid out as in its buffer: the buffer
 * itself, or a copy of a device buffer's span (*copy, to free). */
static ol_status_t host_view(const ol_io_access_t *a, char **copy, void **host)
{
    *copy = NULL;
    *host = a->buf;
    if (!a->buf || !ol_accel_is_device(a->buf))
        return MPI_SUCCESS;
    if (!ol_accel_usable())
        return ol_accel_unsupported("the buffer", a->buf);
    ol_status_t rc = ol_accel_copy_span_to_host(a->buf, a->count, a->dt, copy);
    if (rc == MPI_ERR_NO_MEM)
        return no_memory((MPI_Offset)ol_dt_span(a->dt, a->count));
    if (rc != MPI_SUCCESS)
        return rc;
    *host = ol_dt_buffer_for(*copy, a->dt);
    return MPI_SUCCESS;
}

ol_status_t ol_io_stream_make(const ol_file_t *f, const ol_io_access_t *a, ol_io_stream_t *s)
{
    const ol_io_view_t *view = &f->view;
    *s = (ol_io_stream_t){.native = a->count * (MPI_Count)a->dt->size};
    if (s->native % (MPI_Count)view->etype->size != 0) {
        ol_error_detail("%lld elements of %s hold %lld bytes, no whole number of etypes (%s, "
                        "%zu bytes)", (long long)a->count, ol_dt_name(a->dt),
                        (long long)s->native, ol_dt_name(view->etype), view->etype->size);
        return MPI_ERR_TYPE;
    }
    s->length = ol_io_datarep_bytes(view->rep, a->dt, a->count);
    if (s->length < 0)
        return MPI_ERR_UNSUPPORTED_DATAREP;
    bool device = a->buf && ol_accel_is_device(a->buf);
    if (ol_io_datarep_is_native(view->rep) && a->dt->contiguous && !device) {
        s->bytes = ol_dt_data_at(a->buf, a->dt);
        return MPI_SUCCESS;
    }
    s->bytes = malloc((size_t)s->length + 1);
    if (!s->bytes)
        return no_memory(s->length);
    s->copied = true;
    if (!a->write)
        return MPI_SUCCESS;
    char *copy;
    void *host;
    ol_status_t rc = host_view(a, &copy, &host);
    if (rc == MPI_SUCCESS)
        rc = ol_io_datarep_to_file(view->rep, host, a->count, a->dt, s->bytes);
    free(copy);
    if (rc != MPI_SUCCESS) {
        free(s->bytes);
        s->bytes = NULL;
    }
    return rc;
}

/* Reads: what arrived goes to the program's buffer. Native data unpacks
 * byte for byte (a read cut short by the end of the file leaves the rest
 * of the buffer untouched); converted data in whole elements. */
static ol_status_t deliver(const ol_file_t *f, const ol_io_access_t *a, ol_io_stream_t *s,
                           MPI_Offset got)
{
    char *copy;
    void *host;
    ol_status_t rc = host_view(a, &copy, &host);
    if (rc != MPI_SUCCESS)
        return rc;
    if (ol_io_datarep_is_native(f->view.rep)) {
        ol_dt_cursor_t *cursor = ol_dt_cursor_create(a->dt, host, a->count);
        if (!cursor) {
            free(copy);
            return no_memory(got);
        }
        ol_dt_cursor_unpack(cursor, 0, s->bytes, (size_t)got);
        ol_dt_cursor_free(cursor);
    } else {
        MPI_Offset per_element = a->count ? s->length / a->count : 0;
        MPI_Count whole = per_element ? got / per_element : 0;
        rc = ol_io_datarep_from_file(f->view.rep, host, whole, a->dt, s->bytes);
    }
    if (rc == MPI_SUCCESS && copy)
        rc = ol_accel_copy(ol_dt_data_at(a->buf, a->dt), copy, ol_dt_span(a->dt, a->count));
    free(copy);
    return rc;
}

ol_status_t ol_io_stream_finish(const ol_file_t *f, const ol_io_access_t *a, ol_io_stream_t *s,
                                MPI_Offset got)
{
    ol_status_t rc = MPI_SUCCESS;
    if (s->copied && !a->write && got > 0)
        rc = deliver(f, a, s, got);
    if (s->copied)
        free(s->bytes);
    s->bytes = NULL;
    return rc;
}

void ol_io_status(const ol_io_stream_t *s, MPI_Offset moved, MPI_Status *status)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return;
    MPI_Count bytes = s->length == s->native || s->length == 0
                          ? moved
                          : (MPI_Count)((__int128)moved * s->native / s->length);
    ol_status_set_bytes(status, bytes);
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    status->MPI_ERROR = MPI_SUCCESS;
    ol_status_set_cancelled(status, false);
}

/* ---- moves ------------------------------------------------------------------ */

static bool collect(MPI_Offset file_offset, MPI_Offset length, MPI_Offset data_offset, void *ctx)
{
    pieces_t *p = ctx;
    if (p->count == p->capacity) {
        size_t capacity = p->capacity ? 2 * p->capacity : 16;
        piece_t *more = realloc(p->pieces, capacity * sizeof(*more));
        if (!more) {
            p->out_of_memory = true;
            return false;
        }
        p->pieces = more;
        p->capacity = capacity;
    }
    p->pieces[p->count++] = (piece_t){file_offset, length, data_offset};
    return true;
}

ol_status_t ol_io_pieces(const ol_io_view_t *view, MPI_Offset start, MPI_Offset length,
                         pieces_t *p)
{
    *p = (pieces_t){0};
    ol_io_map_walk(view, start, length, collect, p);
    if (!p->out_of_memory)
        return MPI_SUCCESS;
    free(p->pieces);
    p->pieces = NULL;
    return no_memory((MPI_Offset)(p->capacity * sizeof(piece_t)));
}

/* The pieces of [a, b) that start at piece i: how many fit a window of
 * `window` bytes from the first one's offset. */
static size_t window_end(const pieces_t *p, size_t i, MPI_Offset window)
{
    MPI_Offset limit = p->pieces[i].file + window;
    size_t j = i + 1;
    while (j < p->count && p->pieces[j].file + p->pieces[j].length <= limit)
        j++;
    return j;
}

static int sieve_write(ol_file_t *f, const pieces_t *p, size_t i, size_t j, const char *data,
                       bool locked, char **buffer, MPI_Offset *room)
{
    int fd = f->fd;
    MPI_Offset lo = p->pieces[i].file, hi = ol_io_pieces_end(p, i, j);
    MPI_Offset span = hi - lo, covered = 0;
    if (span > *room) {
        char *bigger = realloc(*buffer, (size_t)span);
        if (!bigger)
            return ENOMEM;
        *buffer = bigger;
        *room = span;
    }
    for (size_t k = i; k < j; k++)
        covered += p->pieces[k].length;
    bool holes = covered < span, take_lock = holes && !locked;
    int error = take_lock ? ol_io_lock(f, fd, true, lo, span) : 0;
    if (error)
        return error;
    MPI_Offset got = 0;
    if (!error && holes)
        error = ol_io_pread_full(fd, *buffer, span, lo, &got);
    if (!error && holes && got < span)
        memset(*buffer + got, 0, (size_t)(span - got));
    for (size_t k = i; !error && k < j; k++)
        memcpy(*buffer + (p->pieces[k].file - lo), data + p->pieces[k].data,
               (size_t)p->pieces[k].length);
    if (!error)
        error = ol_io_pwrite_full(fd, *buffer, span, lo);
    if (take_lock)
        ol_io_unlock(f, fd, lo, span);
    return error;
}

/* Reads pieces i..j-1 in one read of their span. *moved: data bytes
 * delivered before the first one the file's end cut. Returns errno; sets
 * *ended at the end of the file. */
static int sieve_read(int fd, const pieces_t *p, size_t i, size_t j, char *data, char **buffer,
                      MPI_Offset *room, MPI_Offset *moved, bool *ended)
{
    MPI_Offset lo = p->pieces[i].file, hi = ol_io_pieces_end(p, i, j);
    MPI_Offset span = hi - lo, got;
    if (span > *room) {
        char *bigger = realloc(*buffer, (size_t)span);
        if (!bigger)
            return ENOMEM;
        *buffer = bigger;
        *room = span;
    }
    int error = ol_io_pread_full(fd, *buffer, span, lo, &got);
    for (size_t k = i; !error && k < j; k++) {
        const piece_t *piece = &p->pieces[k];
        MPI_Offset have = got - (piece->file - lo);
        MPI_Offset take = have < piece->length ? (have > 0 ? have : 0) : piece->length;
        memcpy(data + piece->data, *buffer + (piece->file - lo), (size_t)take);
        *moved = piece->data + take;
        if (take < piece->length) {
            *ended = true;
            break;
        }
    }
    return error;
}

static int move_one(int fd, bool write, const piece_t *piece, char *data, MPI_Offset *moved,
                    bool *ended)
{
    if (write) {
        int error = ol_io_pwrite_full(fd, data + piece->data, piece->length, piece->file);
        if (!error)
            *moved = piece->data + piece->length;
        return error;
    }
    MPI_Offset got;
    int error = ol_io_pread_full(fd, data + piece->data, piece->length, piece->file, &got);
    *moved = piece->data + got;
    *ended = got < piece->length;
    return error;
}

/* Sieving moves the holes between the pieces too, to save a system call
 * per piece: it pays while the holes cost less than the calls. From the
 * page cache (io_tile, 4 ranks, /dev/shm, README.md) a read per piece cost
 * about what reading HOLE_BYTES_PER_READ_CALL bytes of holes did: pieces
 * of 512 bytes between holes of 512 were read sieved at 5.2-6.4 GB/s, 4.2-5.4
 * piece by piece, pieces of 1 KiB (holes of 1 KiB) 2.4-2.5 against 2.6-3.1,
 * and of 8 KiB 16-18 against 31-36. A write per piece costs more (the
 * ranks' writes take turns at the file's lock), and a sieved write reads
 * and writes its holes back under a lock of its own: 1 KiB pieces wrote
 * 3.1-3.2 GB/s sieved against 1.2-1.4, 8 KiB pieces 2.1-5.3 against
 * 4.4-6.6, 32 KiB pieces 3.1-3.8 against 4.9-6.5. */
enum { HOLE_BYTES_PER_READ_CALL = 1 << 10, HOLE_BYTES_PER_WRITE_CALL = 4 << 10 };

static bool sieve(const ol_file_t *f, bool write, bool sieve_writes, const pieces_t *p)
{
    ol_io_switch_t setting = write ? f->hints.ds_write : f->hints.ds_read;
    if (setting == OL_IO_DISABLE || p->count < 2 || (write && (!f->readable || !sieve_writes)))
        return false;
    if (setting == OL_IO_ENABLE)
        return true;
    MPI_Offset data = p->pieces[p->count - 1].data + p->pieces[p->count - 1].length;
    MPI_Offset span = ol_io_pieces_end(p, 0, p->count) - p->pieces[0].file;
    MPI_Offset per_call = write ? HOLE_BYTES_PER_WRITE_CALL : HOLE_BYTES_PER_READ_CALL;
    return span - data < (MPI_Offset)p->count * per_call;
}

static int move_pieces(ol_file_t *f, bool write, bool sieve_writes, const pieces_t *p,
                       char *data, MPI_Offset *moved)
{
    MPI_Offset window = write ? f->hints.ind_wr_buffer_size : f->hints.ind_rd_buffer_size;
    bool sieving = sieve(f, write, sieve_writes, p), ended = false;
    char *buffer = NULL;
    MPI_Offset room = 0;
    int error = 0;
    for (size_t i = 0; i < p->count && !error && !ended;) {
        size_t j = sieving ? window_end(p, i, window) : i + 1;
        if (j == i + 1)
            error = move_one(f->fd, write, &p->pieces[i], data, moved, &ended);
        else if (write)
            error = sieve_write(f, p, i, j, data, f->atomic, &buffer, &room);
        else
            error = sieve_read(f->fd, p, i, j, data, &buffer, &room, moved, &ended);
        if (!error && write && j > i + 1)
            *moved = p->pieces[j - 1].data + p->pieces[j - 1].length;
        i = j;
    }
    free(buffer);
    return error;
}

ol_status_t ol_io_move(ol_file_t *f, bool write, bool sieve_writes, ol_io_stream_t *s,
                       MPI_Offset start, MPI_Offset *moved)
{
    *moved = 0;
    pieces_t p;
    ol_status_t rc = ol_io_pieces(&f->view, start, s->length, &p);
    if (rc != MPI_SUCCESS)
        return rc;
    if (p.count == 0)
        return MPI_SUCCESS;
    MPI_Offset lo = p.pieces[0].file;
    MPI_Offset span = ol_io_pieces_end(&p, 0, p.count) - lo;
    int error = f->atomic ? ol_io_lock(f, f->fd, write, lo, span) : 0;
    if (!error) {
        error = move_pieces(f, write, sieve_writes, &p, s->bytes, moved);
        if (f->atomic)
            ol_io_unlock(f, f->fd, lo, span);
    }
    free(p.pieces);
    if (error)
        return ol_io_errno_class(error, write ? "could not write" : "could not read", f->path);
    return MPI_SUCCESS;
}

/* ---- independent access ------------------------------------------------------ */

ol_status_t ol_io_check_direction(const ol_file_t *f, bool write)
{
    if (write && (f->amode & MPI_MODE_RDONLY)) {
        ol_error_detail("cannot write to %s: the file was opened MPI_MODE_RDONLY", f->path);
        return MPI_ERR_READ_ONLY;
    }
    if (!write && (f->amode & MPI_MODE_WRONLY)) {
        ol_error_detail("cannot read from %s: the file was opened MPI_MODE_WRONLY", f->path);
        return MPI_ERR_ACCESS;
    }
    return MPI_SUCCESS;
}

ol_status_t ol_io_access(ol_file_t *f, const ol_io_access_t *a, MPI_Status *status)
{
    ol_status_t rc = ol_io_check_direction(f, a->write);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_io_stream_t s;
    rc = ol_io_stream_make(f, a, &s);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Offset moved = 0;
    rc = ol_io_move(f, a->write, true, &s, a->offset * f->view.etype_bytes, &moved);
    ol_status_t finished = ol_io_stream_finish(f, a, &s, rc == MPI_SUCCESS ? moved : 0);
    if (rc == MPI_SUCCESS)
        rc = finished;
    if (rc == MPI_SUCCESS)
        ol_io_status(&s, moved, status);
    return rc;
}

MPI_Offset ol_io_etypes_of(const ol_file_t *f, MPI_Count count, const ol_datatype_t *dt)
{
    return (MPI_Offset)(count * (MPI_Count)dt->size) / (MPI_Offset)f->view.etype->size;
}

ol_request_t *ol_io_done_request(ol_file_t *f, ol_status_t error, const MPI_Status *status)
{
    ol_request_t *req = ol_request_alloc(OL_REQ_IO);
    if (!req)
        return NULL;
    req->owner = f;
    if (status)
        req->status = *status;
    req->status.MPI_ERROR = error;
    ol_request_complete(req, error);
    return req;
}
