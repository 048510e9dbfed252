/* What the files of io/ share and nobody else sees. */
#ifndef OL_IO_INTERNAL_H
#define OL_IO_INTERNAL_H

#include "io.h"
#include "ol_common.h"
#include "ol_log.h"

#include <sys/uio.h>

/* Every process learns the error of the lowest rank that failed (error is
 * an errno, 0 for none), as the class of ol_io_errno_class with "could not
 * <verb>" and path; MPI_SUCCESS when none failed. */
ol_status_t ol_io_agree(ol_comm_t *comm, int error, const char *verb, const char *path);

/* The same for an error class: every process returns the class of the
 * lowest rank whose `mine` is no success, what naming the step. */
ol_status_t ol_io_agree_class(ol_comm_t *comm, ol_status_t mine, const char *what);

/* The rounds of a collective write that fits one window but is larger
 * than this (IO_CB_WRITE_ROUND_KIB); 0: one round. */
MPI_Offset ol_io_write_round_bytes(void);

/* Sets the view of this process alone (open's default view, and the
 * local part of MPI_File_set_view). */
ol_status_t ol_io_set_view_local(ol_file_t *file, MPI_Offset disp, ol_datatype_t *etype,
                                 ol_datatype_t *filetype, const char *datarep);

/* ---- representations (datarep.c) ---------------------------------------- */

const ol_io_datarep_t *ol_io_datarep_find(const char *name);
/* True when the representation stores every type as memory does. */
bool ol_io_datarep_is_native(const ol_io_datarep_t *rep);
/* Bytes of count elements of dt in the file, or -1 with a detail when the
 * representation cannot size dt's layout. */
MPI_Offset ol_io_datarep_bytes(const ol_io_datarep_t *rep, const ol_datatype_t *dt,
                               MPI_Count count);
/* Converts count elements of dt at buf (the program's buffer, host
 * memory) to the file's representation in file (ol_io_datarep_bytes), and
 * back. */
ol_status_t ol_io_datarep_to_file(const ol_io_datarep_t *rep, const void *buf, MPI_Count count,
                                  ol_datatype_t *dt, void *file);
ol_status_t ol_io_datarep_from_file(const ol_io_datarep_t *rep, void *buf, MPI_Count count,
                                    ol_datatype_t *dt, const void *file);

/* dt as rep lays it out in the file (layout.c): a new committed type, to
 * free with ol_dt_free_handle. */
ol_status_t ol_io_layout_twin(const ol_io_datarep_t *rep, const ol_datatype_t *dt,
                              ol_datatype_t **twin);

/* ---- the view's map (view.c) --------------------------------------------- */

/* Calls visit for each run of the file that view bytes [start, start +
 * length) of the data (in the file's representation) lie in, in order,
 * with the offset of the run's first byte in those data, until visit
 * returns false; runs that touch are one. Offsets are absolute bytes of
 * the file. */
typedef bool (*ol_io_run_fn)(MPI_Offset file_offset, MPI_Offset length, MPI_Offset data_offset,
                             void *ctx);
bool ol_io_map_walk(const ol_io_view_t *view, MPI_Offset start, MPI_Offset length,
                    ol_io_run_fn visit, void *ctx);

/* ---- data in the file's representation (access.c) ----------------------- */

/* The bytes an access moves, laid out as the file holds them, one after
 * the other: the program's buffer itself where it can be, else a copy. */
typedef struct {
    char *bytes;
    MPI_Offset length;  /* in the file's representation */
    MPI_Count native;   /* bytes of the program's data */
    bool copied;        /* bytes is ours: unpack (reads) and free */
} ol_io_stream_t;

ol_status_t ol_io_stream_make(const ol_file_t *file, const ol_io_access_t *access,
                              ol_io_stream_t *stream);
/* Reads: the first `got` bytes arrived; moves them to the program's
 * buffer. Frees the stream either way. */
ol_status_t ol_io_stream_finish(const ol_file_t *file, const ol_io_access_t *access,
                                ol_io_stream_t *stream, MPI_Offset got);
/* The status of an access that moved `moved` of the stream's bytes. */
void ol_io_status(const ol_io_stream_t *stream, MPI_Offset moved, MPI_Status *status);

/* Whole-buffer pread/pwrite: retried on short transfers and EINTR. pread
 * stops at the end of the file: *done says how far it got. Return errno. */
int ol_io_pread_full(int fd, void *buf, MPI_Offset length, MPI_Offset offset, MPI_Offset *done);
int ol_io_pwrite_full(int fd, const void *buf, MPI_Offset length, MPI_Offset offset);
/* pwritev of iov[0 .. n) at offset, retried alike (it advances iov). */
int ol_io_pwritev_full(int fd, struct iovec *iov, int n, MPI_Offset offset);


/* The runs of the file that data bytes [start, start + length) of a view
 * lie in, each with its offset in the data: in file order, which is data
 * order (filetypes only go forward). */
typedef struct {
    MPI_Offset file, length, data;
} piece_t;
typedef struct {
    piece_t *pieces;
    size_t count, capacity;
    bool out_of_memory;
} pieces_t;
ol_status_t ol_io_pieces(const ol_io_view_t *view, MPI_Offset start, MPI_Offset length,
                         pieces_t *pieces);

/* A lock on bytes [offset, offset + length) of fd (the file's or its
 * shared pointer's), shared or exclusive, waited for, that excludes the
 * other processes and the other threads of this one; and its release. */
int ol_io_lock(ol_file_t *file, int fd, bool exclusive, MPI_Offset offset, MPI_Offset length);
void ol_io_unlock(ol_file_t *file, int fd, MPI_Offset offset, MPI_Offset length);
/* The end of the last byte of pieces i .. j - 1 (they may overlap in a
 * view of a file opened read-only). */
MPI_Offset ol_io_pieces_end(const pieces_t *pieces, size_t i, size_t j);

/* MPI_ERR_READ_ONLY / MPI_ERR_ACCESS for a write / read the amode forbids. */
ol_status_t ol_io_check_direction(const ol_file_t *file, bool write);

/* Moves data between the stream and the runs of the file it maps to,
 * independently (data sieving, locks in atomic mode). sieve_writes: whether
 * a write may be sieved; not where other processes write between its
 * pieces at once, piece by piece and so without a lock (a sieved write
 * would put back its stale copy of their bytes). *moved: stream bytes moved
 * (a read stops at the end of the file). */
ol_status_t ol_io_move(ol_file_t *file, bool write, bool sieve_writes, ol_io_stream_t *stream,
                       MPI_Offset start, MPI_Offset *moved);

#endif
