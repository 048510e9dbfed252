/* MPI-IO: files, views, data representations and data access; the
 * interface the API layer calls (api/file.c).
 *
 * A file is opened collectively over a private duplicate of the program's
 * communicator (made and freed by the API layer), which carries all of the
 * file's traffic. Positions given here are in etypes from the start of the
 * view, as the standard counts them; the individual file pointer lives in
 * ol_file_t, the shared one in a small file beside the data (shared.c).
 * Functions return MPI error classes and record a sentence with
 * ol_error_detail on failure. See README.md. */
#ifndef OL_IO_H
#define OL_IO_H

#include "ol_comm.h"
#include "ol_datatype.h"
#include "request.h"

#include <pthread.h>

#define OL_FILE_MAGIC 0x6f6c666cU /* "olfl" */

struct ol_info;
typedef struct ol_io_datarep ol_io_datarep_t;

/* A run of bytes of the file. */
typedef struct {
    MPI_Offset offset, length;
} ol_io_run_t;

/* One instance of a view's filetype, flattened in the file's
 * representation: its data runs (offsets from the instance's start,
 * ascending, as the standard requires of filetypes), the data bytes before
 * each, and where the next instance begins. */
typedef struct {
    ol_io_run_t *runs;
    MPI_Offset *before;
    size_t nruns;
    MPI_Offset size;   /* data bytes of one instance */
    MPI_Offset extent; /* from one instance to the next */
} ol_io_map_t;

typedef struct {
    MPI_Offset disp;
    ol_datatype_t *etype, *filetype;
    char datarep[MPI_MAX_DATAREP_STRING];
    const ol_io_datarep_t *rep;
    MPI_Offset etype_bytes; /* an etype's bytes in the file */
    ol_io_map_t map;
} ol_io_view_t;

/* Hints in use (MPI-4.1 14.2.8 and ROMIO's spellings): see README.md. */
typedef enum { OL_IO_AUTOMATIC, OL_IO_ENABLE, OL_IO_DISABLE } ol_io_switch_t;
typedef struct {
    MPI_Offset cb_buffer_size;
    int cb_nodes;                 /* 0: one aggregator per host */
    ol_io_switch_t cb_read, cb_write;
    ol_io_switch_t ds_read, ds_write;
    MPI_Offset ind_rd_buffer_size, ind_wr_buffer_size;
    MPI_Offset striping_unit;     /* 0: none given */
} ol_io_hints_t;

typedef struct ol_file {
    uint32_t magic;
    ol_comm_t *comm;      /* the private duplicate (the API layer's to free) */
    char *path;
    int amode;
    int fd;
    bool readable;        /* opened for reading too (data sieving of writes) */
    /* Byte-range locks of one process do not exclude each other (the
     * kernel's locks are per open file description): its threads take
     * this around every lock they hold. */
    pthread_mutex_t range_mutex;
    bool atomic;
    ol_io_view_t view;
    MPI_Offset position;  /* the individual file pointer, in etypes */
    int shared_fd;        /* the shared file pointer's file; -1: none could be made */
    char *shared_path;
    char shared_problem[160]; /* why there is none */
    uint32_t collective_seq; /* numbers the collective accesses: their tags */
    /* An aggregator's window, kept from one collective access to the next
     * (a fresh 16 MiB costs its page faults every time). */
    char *window_buffer;
    MPI_Offset window_bytes;
    bool window_busy;
    ol_io_hints_t hints;
    /* The API layer's. */
    MPI_Errhandler errhandler;
    struct ol_info *info;
    ol_request_t *split;  /* a split collective begun and not yet ended */
    bool split_write;
    MPI_Status split_status;
} ol_file_t;

ol_file_t *ol_file_from_handle(MPI_File handle);
static inline MPI_File ol_file_to_handle(ol_file_t *file)
{
    return (MPI_File)file;
}

/* ---- files (file.c) ---------------------------------------------------------- */

/* What a file does when the program gives no hint: the parameters of io/
 * (IO_CB_BUFFER_KIB ...), loaded at start-up. */
void ol_io_params_load(void);
/* At MPI_Finalize: ends the thread that makes collective accesses' file
 * requests, once it has made those queued. */
void ol_io_finalize(void);
void ol_io_params_print(FILE *out);
void ol_io_hints_default(ol_io_hints_t *hints);

/* Collective over comm (kept by the file). Every process returns the same
 * class: the error of the lowest rank that failed. */
ol_status_t ol_io_open(ol_comm_t *comm, const char *path, int amode,
                       const ol_io_hints_t *hints, ol_file_t **file);
/* Collective: deletes the file if opened with MPI_MODE_DELETE_ON_CLOSE. */
ol_status_t ol_io_close(ol_file_t *file);
ol_status_t ol_io_delete(const char *path);
ol_status_t ol_io_set_size(ol_file_t *file, MPI_Offset size);
ol_status_t ol_io_preallocate(ol_file_t *file, MPI_Offset size);
ol_status_t ol_io_get_size(ol_file_t *file, MPI_Offset *size);
ol_status_t ol_io_sync(ol_file_t *file);
ol_status_t ol_io_set_atomicity(ol_file_t *file, bool atomic);
/* The error class of a failed system call on the file, with the sentence. */
ol_status_t ol_io_errno_class(int error, const char *what, const char *path);

/* ---- views and representations (view.c, datarep.c) --------------------------- */

ol_status_t ol_io_set_view(ol_file_t *file, MPI_Offset disp, ol_datatype_t *etype,
                           ol_datatype_t *filetype, const char *datarep);
/* The absolute byte of the file where view offset (in etypes) lies. */
MPI_Offset ol_io_byte_offset(const ol_file_t *file, MPI_Offset offset);
/* Bytes of dt in the file's representation (MPI_File_get_type_extent). */
ol_status_t ol_io_type_extent(const ol_file_t *file, ol_datatype_t *dt, MPI_Count *extent);
/* A representation's functions: the int-count pair (MPI_Register_datarep)
 * or the large-count one (MPI_Register_datarep_c); NULL ones convert
 * nothing (MPI_CONVERSION_FN_NULL). */
typedef struct {
    MPI_Datarep_conversion_function *read_fn, *write_fn;
    MPI_Datarep_conversion_function_c *read_fn_c, *write_fn_c;
    MPI_Datarep_extent_function *extent_fn;
    void *extra_state;
} ol_io_datarep_fns_t;
ol_status_t ol_io_register_datarep(const char *name, const ol_io_datarep_fns_t *fns);
void ol_io_view_release(ol_io_view_t *view);

/* ---- data access (access.c, collective.c, shared.c) -------------------------- */

typedef struct {
    bool write;
    void *buf;
    MPI_Count count;
    ol_datatype_t *dt;
    MPI_Offset offset; /* etypes from the start of the view */
    /* A collective access whose arguments were wrong at this process
     * alone: it takes part, moving nothing, so that the others do not wait
     * for it in vain, and ends with this error. */
    ol_status_t error;
} ol_io_access_t;

/* Independent access, done on return; status says the bytes moved. */
ol_status_t ol_io_access(ol_file_t *file, const ol_io_access_t *access, MPI_Status *status);
/* Collective access, started: *request completes with it (two-phase I/O
 * between the processes, advanced by the progress engine). Fails at once
 * only without memory for the request; any other error of this process
 * completes the request with it. */
ol_status_t ol_io_access_all(ol_file_t *file, const ol_io_access_t *access,
                             ol_request_t **request);
/* A request already complete with status and error (nonblocking
 * independent access, which finishes at once). */
ol_request_t *ol_io_done_request(ol_file_t *file, ol_status_t error, const MPI_Status *status);
/* Etypes that access moves (its data over the etype's size). */
MPI_Offset ol_io_etypes_of(const ol_file_t *file, MPI_Count count, const ol_datatype_t *dt);

/* The shared file pointer: fetch and add, in etypes (atomic across
 * processes and hosts that share the file system), read, set. */
ol_status_t ol_io_shared_fetch_add(ol_file_t *file, MPI_Offset etypes, MPI_Offset *before);
ol_status_t ol_io_shared_get(ol_file_t *file, MPI_Offset *position);
ol_status_t ol_io_shared_set(ol_file_t *file, MPI_Offset position);
/* Collective parts of open and close: makes / removes the pointer's file. */
ol_status_t ol_io_shared_open(ol_file_t *file);
void ol_io_shared_close(ol_file_t *file);

#endif
