/* Collective data access: two-phase I/O (see README.md).
 *
 * Every process tells the others the range of the file it touches. Where
 * ranges interleave (or collective buffering is forced on), a few
 * processes, the aggregators (one per host by default), each take a
 * contiguous domain of the union of the ranges and move it in rounds of at
 * most cb_buffer_size bytes: in each round, every process sends each
 * aggregator whose window it touches a header (pieces, bytes), then the
 * list of its pieces there and, for a write, their data, which is one
 * contiguous stretch of its stream; the aggregator writes the window's
 * span in one request (gathered from where the pieces arrived, or from the
 * window, read first where the pieces leave holes), or reads it in one
 * request and sends each process its bytes back, one contiguous message
 * each way through a staging area. With more than one round the aggregator
 * has two windows, and the file request of one runs (on a thread of its
 * own, the mover) while the other's messages flow. Where ranges do not
 * interleave each process moves its own data, as independent access would.
 *
 * An access is a small state machine advanced by the progress engine
 * (OL_PROGRESS_IO), so nonblocking collectives move while the program
 * computes in other MPI calls; the blocking forms start one and wait.
 * Messages go over the file's private communicator, tagged by the access's
 * sequence number (all processes start collectives on a file in the same
 * order) and the kind of message. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "io_internal.h"
#include "pt2pt.h"
#include "ol_runtime.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

enum { TAG_RANGE, TAG_HEADER, TAG_LIST, TAG_DATA, TAG_REPLY, TAG_ERROR, TAG_KINDS = 8 };
enum { SEQ_MODULUS = 1 << 18 }; /* seq * TAG_KINDS stays below MPI_TAG_UB (2^23 - 1) */

typedef struct {
    MPI_Offset lo, hi; /* the bytes of the file the process touches; lo == hi: none */
    MPI_Offset leader; /* the world rank of its host's first process */
    int64_t pieces;    /* how many runs of the file they are */
    MPI_Offset bytes;  /* and their bytes */
} range_t;

typedef enum {
    PHASE_RANGES,
    PHASE_HEADERS,
    PHASE_LISTS,
    PHASE_DATA,    /* writes: the pieces' bytes, into the staging area (or the window) */
    PHASE_REPLIES, /* reads: the pieces' bytes, out of the staging area (or the window) */
    PHASE_FLUSH,   /* after the last round: the aggregator's last write completes */
    PHASE_ERRORS
} phase_t;

/* A piece of a window in file order, and where its bytes are when the
 * round's write gathers them (the staging area, or the aggregator's own
 * stream). */
typedef struct {
    MPI_Offset offset, length;
    char *data;
} segment_t;

/* The aggregator's one file request in flight, made by the mover thread
 * (below) while messages flow: round k's pieces being written while round
 * k + 1's arrive, or the window of round k + 1 being read while round k's
 * pieces leave. */
typedef struct file_io {
    int fd;
    bool write;
    const segment_t *segments; /* what it moves, in file order, no gap between them */
    size_t nsegments;
    segment_t whole;           /* the one segment of a window's span */
    MPI_Offset done;           /* bytes a read moved (it stops at the end of the file) */
    int error;                 /* its errno */
    atomic_bool busy;
    struct file_io *next;      /* in the mover's queue */
} file_io_t;

/* What one aggregator gets from one process in a round. */
typedef struct {
    int64_t header[2]; /* pieces, bytes */
    MPI_Offset *list;  /* (offset, length) pairs */
} incoming_t;

typedef struct io_op {
    ol_file_t *file;
    ol_io_access_t access;
    ol_io_stream_t stream;
    pieces_t mine;
    int seq;
    phase_t phase;
    range_t *ranges;
    int *aggregators, naggregators, my_aggregator; /* -1: not one */
    MPI_Offset *bounds;    /* domain a is [bounds[a], bounds[a + 1]) */
    MPI_Offset window;     /* cb_buffer_size */
    int64_t rounds, round;
    int64_t (*out_headers)[2]; /* per aggregator, this round */
    MPI_Offset **out_lists;
    incoming_t *in;        /* per process, when an aggregator */
    char *buffer;          /* the aggregator's window: byte i is byte window_lo + i of the file */
    char *staging;         /* its messages: each process's pieces of the window, one
                              after the other in rank order (at most a window of them) */
    char *spare, *spare_staging; /* the other window and its staging, with more than one
                              round: the one the file request moves meanwhile */
    char *memory;          /* what they are cut from */
    bool own_buffer;       /* not the file's (another access of the file holds that) */
    bool staged;           /* this round's pieces go through the staging area */
    file_io_t io;
    bool read_ahead;       /* this round's window was read during the last one */
    MPI_Offset window_lo, span_lo, span_hi; /* this round's window, and what it moves */
    segment_t *segments;   /* every process's pieces of the window, in file order */
    size_t nsegments;
    bool overlapping;      /* two of them share bytes (the program wrote some twice) */
    ol_io_run_t *holes;    /* what the pieces leave out of the span */
    size_t nholes;
    int *errors;           /* per process, the last phase */
    ol_request_t **pending;
    int npending, capacity;
    int discards;          /* receives posted truncated on purpose, in this phase */
    bool atomic;           /* the file's mode and hints when the access started: every */
    ol_io_switch_t cb;     /* process decides the same way whatever changes meanwhile */
    int error;             /* errno of this process's own failure */
    ol_status_t failure;   /* a failure that is no errno (memory, messages, arguments) */
    bool others_hurt;      /* it may have cost other processes data (not just this one's
                              own arguments): they fail too */
    ol_request_t *request;
    struct io_op *next;
} io_op_t;

static io_op_t *ops;
static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;

static int tag(const io_op_t *op, int kind)
{
    return op->seq * TAG_KINDS + kind;
}

static ol_datatype_t *bytes_type(void)
{
    return ol_dt_from_handle(MPI_BYTE);
}

static void fail(io_op_t *op, ol_status_t rc)
{
    if (rc == MPI_SUCCESS)
        return;
    if (op->failure == MPI_SUCCESS)
        op->failure = rc;
    op->others_hurt = true;
}

static void track(io_op_t *op, ol_status_t rc, ol_request_t *req)
{
    if (rc != MPI_SUCCESS) {
        fail(op, rc);
        return;
    }
    if (op->npending == op->capacity) {
        int capacity = op->capacity ? 2 * op->capacity : 16;
        ol_request_t **more = realloc(op->pending, (size_t)capacity * sizeof(*more));
        if (!more) {
            ol_request_wait_complete(req);
            ol_request_free_when_complete(req);
            fail(op, MPI_ERR_NO_MEM);
            return;
        }
        op->pending = more;
        op->capacity = capacity;
    }
    op->pending[op->npending++] = req;
}

static void send_to(io_op_t *op, const void *buf, MPI_Offset bytes, int peer, int kind)
{
    ol_request_t *req = NULL;
    ol_status_t rc = ol_pt2pt_isend(buf, bytes, bytes_type(), peer, tag(op, kind),
                                    op->file->comm, OL_TAGSPACE_USER, OL_SEND_STANDARD, &req);
    track(op, rc, req);
}

static void receive_from(io_op_t *op, void *buf, MPI_Offset bytes, int peer, int kind)
{
    ol_request_t *req = NULL;
    ol_status_t rc = ol_pt2pt_irecv(buf, bytes, bytes_type(), peer, tag(op, kind),
                                    op->file->comm, OL_TAGSPACE_USER, &req);
    track(op, rc, req);
}

/* Takes a message and drops its bytes: the receive is truncated. */
static void discard_from(io_op_t *op, int peer, int kind)
{
    ol_request_t *req = NULL;
    ol_status_t rc = ol_pt2pt_irecv(NULL, 0, bytes_type(), peer, tag(op, kind), op->file->comm,
                                    OL_TAGSPACE_USER, &req);
    if (rc == MPI_SUCCESS)
        op->discards++;
    track(op, rc, req);
}

/* True once every message of the phase has gone and come. */
static bool phase_done(io_op_t *op)
{
    while (op->npending > 0) {
        ol_request_t *req = op->pending[op->npending - 1];
        if (!ol_request_is_complete(req))
            return false;
        if (req->error == MPI_ERR_TRUNCATE && op->discards > 0)
            op->discards--; /* a message dropped on purpose */
        else if (req->error != MPI_SUCCESS)
            fail(op, req->error);
        ol_request_free_when_complete(req);
        op->npending--;
    }
    return true;
}

/* ---- the plan: ranges, aggregators, domains ------------------------------------ */

static int nprocs(const io_op_t *op)
{
    return op->file->comm->size;
}

static int by_start(const void *a, const void *b)
{
    MPI_Offset x = ((const range_t *)a)->lo, y = ((const range_t *)b)->lo;
    return (x > y) - (x < y);
}

/* Whether two processes' ranges overlap: sorted by their start, a range
 * would begin before an earlier one ends. */
static bool interleaved(const io_op_t *op)
{
    int n = nprocs(op), used = 0;
    range_t *sorted = malloc((size_t)n * sizeof(range_t));
    if (!sorted)
        return true; /* two-phase I/O is right either way */
    for (int r = 0; r < n; r++)
        if (op->ranges[r].lo < op->ranges[r].hi)
            sorted[used++] = op->ranges[r];
    qsort(sorted, (size_t)used, sizeof(range_t), by_start);
    bool overlap = false;
    MPI_Offset end = 0;
    for (int k = 0; k < used && !overlap; k++) {
        overlap = k > 0 && sorted[k].lo < end;
        end = sorted[k].hi > end ? sorted[k].hi : end;
    }
    free(sorted);
    return overlap;
}

static bool one_host(const io_op_t *op)
{
    for (int r = 1; r < nprocs(op); r++)
        if (op->ranges[r].leader != op->ranges[0].leader)
            return false;
    return true;
}

/* Whether every process's pieces average at least `bytes`. */
static bool pieces_average(const io_op_t *op, MPI_Offset bytes)
{
    for (int r = 0; r < nprocs(op); r++) {
        const range_t *range = &op->ranges[r];
        if (range->pieces > 0 && range->bytes < bytes * range->pieces)
            return false;
    }
    return true;
}

/* Two-phase I/O gives the file system few large requests from few clients
 * where the processes' pieces interleave. On one host the processes share
 * one client, the page cache, and a request per piece costs only its
 * system call: there each process moves its own pieces where they average
 * ALONE_PIECE_BYTES or more, and the calls cost less than two-phase's
 * copies through one aggregator (io_tile, 4 ranks: README.md). */
enum { ALONE_PIECE_BYTES = 4 << 10 };

static bool two_phase(const io_op_t *op)
{
    if (op->cb == OL_IO_DISABLE || op->atomic)
        return false;
    if (op->cb == OL_IO_ENABLE)
        return true;
    return interleaved(op) && !(one_host(op) && pieces_average(op, ALONE_PIECE_BYTES));
}

/* Aggregators: the first process of each host, in rank order; with
 * cb_nodes, that many, taking the second process of each host after the
 * first ones, and so on. */
static ol_status_t choose_aggregators(io_op_t *op)
{
    int n = nprocs(op);
    int *order = malloc((size_t)n * sizeof(int)), *nth = malloc((size_t)n * sizeof(int));
    op->aggregators = malloc((size_t)n * sizeof(int));
    if (!order || !nth || !op->aggregators) {
        free(order);
        free(nth);
        return MPI_ERR_NO_MEM;
    }
    int hosts = 0;
    for (int r = 0; r < n; r++) {
        nth[r] = 0;
        for (int s = 0; s < r; s++)
            nth[r] += op->ranges[s].leader == op->ranges[r].leader;
        hosts += nth[r] == 0;
    }
    int count = 0;
    for (int level = 0; count < n; level++)
        for (int r = 0; r < n; r++)
            if (nth[r] == level)
                order[count++] = r;
    int wanted = op->file->hints.cb_nodes > 0 ? op->file->hints.cb_nodes : hosts;
    op->naggregators = wanted < n ? wanted : n;
    op->my_aggregator = -1;
    for (int a = 0; a < op->naggregators; a++) {
        op->aggregators[a] = order[a];
        if (order[a] == op->file->comm->rank)
            op->my_aggregator = a;
    }
    free(order);
    free(nth);
    return MPI_SUCCESS;
}

/* Rounds of op->window bytes that the largest domain takes. */
static int64_t rounds_of(const io_op_t *op)
{
    int64_t most = 0;
    for (int a = 0; a < op->naggregators; a++) {
        MPI_Offset length = op->bounds[a + 1] - op->bounds[a];
        int64_t rounds = (length + op->window - 1) / op->window;
        most = rounds > most ? rounds : most;
    }
    return most;
}

/* The union of the ranges in naggregators domains of equal size, their
 * boundaries on multiples of the striping unit where one is given. */
static ol_status_t cut_domains(io_op_t *op)
{
    MPI_Offset lo = INT64_MAX, hi = 0;
    for (int r = 0; r < nprocs(op); r++) {
        if (op->ranges[r].lo == op->ranges[r].hi)
            continue;
        lo = op->ranges[r].lo < lo ? op->ranges[r].lo : lo;
        hi = op->ranges[r].hi > hi ? op->ranges[r].hi : hi;
    }
    if (lo > hi)
        lo = hi;
    int na = op->naggregators;
    op->bounds = malloc((size_t)(na + 1) * sizeof(MPI_Offset));
    if (!op->bounds)
        return MPI_ERR_NO_MEM;
    MPI_Offset size = (hi - lo + na - 1) / na, unit = op->file->hints.striping_unit;
    op->bounds[0] = lo;
    for (int a = 1; a < na; a++) {
        MPI_Offset b = lo + a * size;
        if (unit > 0)
            b = b / unit * unit;
        b = b < op->bounds[a - 1] ? op->bounds[a - 1] : b;
        op->bounds[a] = b > hi ? hi : b;
    }
    op->bounds[na] = hi;
    /* cb_buffer_size is what the windows take in all: one window, or two
     * of half of it where the access takes more than one round. A write
     * that fits one window but is larger than a write round takes rounds
     * of that size, so that each one's write overlaps the next one's
     * messages (16 MiB by 4 ranks: README.md). */
    MPI_Offset total = op->file->hints.cb_buffer_size > 0 ? op->file->hints.cb_buffer_size : 1;
    MPI_Offset round = ol_io_write_round_bytes();
    op->window = total;
    op->rounds = rounds_of(op);
    if (op->rounds == 1 && op->access.write && round > 0 && round <= total / 2) {
        op->window = round;
        op->rounds = rounds_of(op);
    } else if (op->rounds > 1) {
        op->window = total > 1 ? total / 2 : 1;
        op->rounds = rounds_of(op);
    }
    return MPI_SUCCESS;
}

static void window_of(const io_op_t *op, int a, int64_t round, MPI_Offset *lo, MPI_Offset *hi)
{
    *lo = op->bounds[a] + round * op->window;
    *hi = *lo + op->window;
    if (*hi > op->bounds[a + 1])
        *hi = op->bounds[a + 1];
    if (*lo > *hi)
        *lo = *hi;
}

static bool touches(const range_t *range, MPI_Offset lo, MPI_Offset hi)
{
    return range->lo < range->hi && range->lo < hi && lo < range->hi;
}

/* ---- phases ------------------------------------------------------------------- */

static void start_ranges(io_op_t *op)
{
    const ol_file_t *f = op->file;
    int me = f->comm->rank;
    range_t *mine = &op->ranges[me];
    mine->leader = ol_rt.node_leader;
    if (op->mine.count > 0) {
        mine->lo = op->mine.pieces[0].file;
        mine->hi = ol_io_pieces_end(&op->mine, 0, op->mine.count);
        mine->pieces = (int64_t)op->mine.count;
        mine->bytes = op->stream.length;
    }
    for (int r = 0; r < nprocs(op); r++) {
        if (r == me)
            continue;
        send_to(op, mine, sizeof *mine, r, TAG_RANGE);
        receive_from(op, &op->ranges[r], sizeof(range_t), r, TAG_RANGE);
    }
    op->phase = PHASE_RANGES;
}

/* My pieces inside [lo, hi): first index and count, clipped at the edges. */
static void my_pieces_in(const io_op_t *op, MPI_Offset lo, MPI_Offset hi, size_t *first,
                         size_t *count)
{
    const pieces_t *p = &op->mine;
    size_t low = 0, high = p->count;
    while (low < high) { /* the first piece that ends after lo */
        size_t mid = (low + high) / 2;
        if (p->pieces[mid].file + p->pieces[mid].length <= lo)
            low = mid + 1;
        else
            high = mid;
    }
    size_t end = low;
    while (end < p->count && p->pieces[end].file < hi)
        end++;
    *first = low;
    *count = end - low;
}

static void clip(const piece_t *piece, MPI_Offset lo, MPI_Offset hi, piece_t *out)
{
    MPI_Offset start = piece->file > lo ? piece->file : lo;
    MPI_Offset end = piece->file + piece->length < hi ? piece->file + piece->length : hi;
    *out = (piece_t){start, end - start, piece->data + (start - piece->file)};
}

static void start_headers(io_op_t *op)
{
    int me = op->file->comm->rank;
    for (int a = 0; a < op->naggregators; a++) {
        MPI_Offset lo, hi;
        window_of(op, a, op->round, &lo, &hi);
        op->out_headers[a][0] = op->out_headers[a][1] = 0;
        if (!touches(&op->ranges[me], lo, hi))
            continue;
        size_t first, count;
        my_pieces_in(op, lo, hi, &first, &count);
        MPI_Offset bytes = 0;
        for (size_t k = first; k < first + count; k++) {
            piece_t piece;
            clip(&op->mine.pieces[k], lo, hi, &piece);
            bytes += piece.length;
        }
        op->out_headers[a][0] = (int64_t)count;
        op->out_headers[a][1] = bytes;
        send_to(op, op->out_headers[a], sizeof op->out_headers[a], op->aggregators[a],
                TAG_HEADER);
    }
    if (op->my_aggregator >= 0) {
        MPI_Offset lo, hi;
        window_of(op, op->my_aggregator, op->round, &lo, &hi);
        for (int r = 0; r < nprocs(op); r++) {
            incoming_t *in = &op->in[r];
            in->header[0] = in->header[1] = 0;
            if (touches(&op->ranges[r], lo, hi))
                receive_from(op, in->header, sizeof in->header, r, TAG_HEADER);
        }
    }
    op->phase = PHASE_HEADERS;
}

static void start_lists(io_op_t *op)
{
    for (int a = 0; a < op->naggregators; a++) {
        free(op->out_lists[a]);
        op->out_lists[a] = NULL;
        int64_t count = op->out_headers[a][0];
        if (count == 0)
            continue;
        MPI_Offset lo, hi;
        window_of(op, a, op->round, &lo, &hi);
        size_t first, n;
        my_pieces_in(op, lo, hi, &first, &n);
        MPI_Offset *list = malloc((size_t)count * 2 * sizeof(MPI_Offset));
        if (!list) {
            fail(op, MPI_ERR_NO_MEM);
            return;
        }
        piece_t piece;
        for (size_t k = 0; k < n; k++) {
            clip(&op->mine.pieces[first + k], lo, hi, &piece);
            list[2 * k] = piece.file;
            list[2 * k + 1] = piece.length;
        }
        op->out_lists[a] = list;
        send_to(op, list, count * 2 * (MPI_Offset)sizeof(MPI_Offset), op->aggregators[a],
                TAG_LIST);
    }
    for (int r = 0; op->my_aggregator >= 0 && r < nprocs(op); r++) {
        incoming_t *in = &op->in[r];
        free(in->list);
        in->list = NULL;
        if (in->header[0] == 0)
            continue;
        in->list = malloc((size_t)in->header[0] * 2 * sizeof(MPI_Offset));
        if (!in->list) {
            fail(op, MPI_ERR_NO_MEM);
            return;
        }
        receive_from(op, in->list, in->header[0] * 2 * (MPI_Offset)sizeof(MPI_Offset), r,
                     TAG_LIST);
    }
    op->phase = PHASE_LISTS;
}

static int by_offset(const void *a, const void *b)
{
    MPI_Offset x = ((const segment_t *)a)->offset, y = ((const segment_t *)b)->offset;
    return (x > y) - (x < y);
}

/* Where this process's stretch of its stream for aggregator a's window of
 * this round begins: its pieces there, one after the other. */
static char *my_stretch(const io_op_t *op, int a)
{
    MPI_Offset lo, hi;
    window_of(op, a, op->round, &lo, &hi);
    size_t first, n;
    my_pieces_in(op, lo, hi, &first, &n);
    piece_t piece;
    clip(&op->mine.pieces[first], lo, hi, &piece);
    return op->stream.bytes + piece.data;
}

/* Where process r's pieces of a staged round lie at the aggregator: its
 * own in its stream (they take no message: a send to itself would copy
 * them once more), the others' one after the other, in rank order, in the
 * staging area, from *at on, which it advances. */
static char *staged_stretch(const io_op_t *op, int r, MPI_Offset *at)
{
    if (r == op->file->comm->rank)
        return my_stretch(op, op->my_aggregator);
    char *stretch = op->staging + *at;
    *at += op->in[r].header[1];
    return stretch;
}

/* Every process's pieces of the window in file order (op->segments; with
 * where their bytes lie, for a staged write), the span [span_lo, span_hi)
 * they cover, and the holes they leave in it (op->holes, for a write to
 * read first). Pieces of one collective may overlap (the program wrote the
 * same bytes twice, which the standard leaves undefined there), so they
 * are merged. */
static void requested_span(io_op_t *op)
{
    size_t n = 0;
    for (int r = 0; r < nprocs(op); r++)
        n += (size_t)op->in[r].header[0];
    free(op->segments);
    free(op->holes);
    op->segments = malloc((n + 1) * sizeof(*op->segments));
    op->holes = malloc((n + 1) * sizeof(*op->holes));
    op->nsegments = n;
    op->span_lo = op->span_hi = 0;
    op->nholes = 0;
    op->overlapping = false;
    if (!op->segments || !op->holes) {
        op->nsegments = 0;
        fail(op, MPI_ERR_NO_MEM);
        return;
    }
    bool gathered = op->access.write && op->staged;
    MPI_Offset at = 0;
    size_t k = 0;
    for (int r = 0; r < nprocs(op); r++) {
        const incoming_t *in = &op->in[r];
        char *data = gathered && in->header[0] > 0 ? staged_stretch(op, r, &at) : NULL;
        for (int64_t p = 0; p < in->header[0]; p++) {
            op->segments[k++] = (segment_t){in->list[2 * p], in->list[2 * p + 1], data};
            data = data ? data + in->list[2 * p + 1] : NULL;
        }
    }
    qsort(op->segments, n, sizeof(*op->segments), by_offset);
    const segment_t *seg = op->segments;
    MPI_Offset end = n ? seg[0].offset : 0;
    op->span_lo = end;
    for (k = 0; k < n; k++) {
        if (seg[k].offset > end)
            op->holes[op->nholes++] = (ol_io_run_t){end, seg[k].offset - end};
        op->overlapping |= seg[k].offset < end;
        if (seg[k].offset + seg[k].length > end)
            end = seg[k].offset + seg[k].length;
    }
    op->span_hi = end;
}

/* A process's pieces of this window as a type over the window's buffer,
 * cut at `end` (the end of the file, for replies); NULL with no byte. */
static ol_status_t pieces_type(const io_op_t *op, const incoming_t *in, MPI_Offset end,
                               ol_datatype_t **type)
{
    int64_t n = in->header[0];
    MPI_Count *lengths = malloc(((size_t)n + 1) * sizeof(MPI_Count));
    MPI_Count *displs = malloc(((size_t)n + 1) * sizeof(MPI_Count));
    int64_t used = 0;
    for (int64_t k = 0; lengths && displs && k < n; k++) {
        MPI_Offset start = in->list[2 * k], length = in->list[2 * k + 1];
        if (start + length > end)
            length = end > start ? end - start : 0;
        if (length == 0)
            break;
        displs[used] = start - op->window_lo;
        lengths[used++] = length;
    }
    ol_status_t rc = !lengths || !displs ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    *type = NULL;
    if (rc == MPI_SUCCESS && used > 0)
        rc = ol_dt_create_indexed(used, lengths, 0, displs, true, bytes_type(), true, type);
    if (*type)
        ol_dt_commit(*type);
    free(lengths);
    free(displs);
    return rc;
}

/* Copies a process's pieces of the window, cut at `end` (the end of the
 * file, for replies), into (pack) or out of its stretch of the staging
 * area. Returns the bytes. */
static MPI_Offset stage_pieces(const io_op_t *op, const incoming_t *in, char *stretch,
                               MPI_Offset end, bool pack)
{
    MPI_Offset at = 0;
    for (int64_t k = 0; k < in->header[0]; k++) {
        MPI_Offset start = in->list[2 * k], length = in->list[2 * k + 1];
        if (start + length > end)
            length = end > start ? end - start : 0;
        if (length == 0)
            break;
        char *window = op->buffer + (start - op->window_lo);
        memcpy(pack ? stretch + at : window, pack ? window : stretch + at, (size_t)length);
        at += length;
    }
    return at;
}

/* A write's pieces, arrived in the staging area (the aggregator's own in
 * its stream), into the window. */
static void unstage_all(io_op_t *op)
{
    MPI_Offset at = 0;
    for (int r = 0; r < nprocs(op); r++) {
        if (op->in[r].header[0] == 0)
            continue;
        stage_pieces(op, &op->in[r], staged_stretch(op, r, &at), INT64_MAX, false);
    }
}

static MPI_Offset incoming_bytes(const io_op_t *op)
{
    MPI_Offset bytes = 0;
    for (int r = 0; r < nprocs(op); r++)
        bytes += op->in[r].header[1];
    return bytes;
}

/* Sends (reads) or receives (writes) each process's pieces of the window.
 * Contiguous messages through the staging area where the round's pieces
 * fit there (they do unless processes ask for the same bytes): pt2pt moves
 * those by the receiver's copy out of the sender's memory, on one host, in
 * parallel on the receivers' cores; a message of a derived type over the
 * window goes through UCX's generic datatypes, packed in fragments by both
 * sides in turn (1 MiB read by 4 ranks, 256-byte pieces: 0.5-7 ms against
 * 0.35-0.75 staged). Else straight from or into the window with such a type. */
static void move_pieces(io_op_t *op, bool send, MPI_Offset end)
{
    op->staged = op->buffer && incoming_bytes(op) <= op->window;
    MPI_Offset at = 0;
    for (int r = 0; r < nprocs(op); r++) {
        const incoming_t *in = &op->in[r];
        if (in->header[0] == 0)
            continue;
        if (!op->buffer) {
            /* No window (no memory, recorded): the messages still go, empty
             * or truncated, so that nobody waits for them. */
            if (send)
                send_to(op, NULL, 0, r, TAG_REPLY);
            else
                discard_from(op, r, TAG_DATA);
            continue;
        }
        if (op->staged) {
            char *stretch = staged_stretch(op, r, &at);
            MPI_Offset bytes = send ? stage_pieces(op, in, stretch, end, true) : in->header[1];
            if (r == op->file->comm->rank)
                continue; /* its own, in place already (reads) or to be taken from there */
            if (send)
                send_to(op, stretch, bytes, r, TAG_REPLY);
            else
                receive_from(op, stretch, bytes, r, TAG_DATA);
            continue;
        }
        ol_datatype_t *type;
        ol_status_t rc = pieces_type(op, in, end, &type);
        ol_request_t *req = NULL;
        if (rc == MPI_SUCCESS && send)
            rc = ol_pt2pt_isend(op->buffer, type ? 1 : 0, type ? type : bytes_type(), r,
                                tag(op, TAG_REPLY), op->file->comm, OL_TAGSPACE_USER,
                                OL_SEND_STANDARD, &req);
        else if (rc == MPI_SUCCESS)
            rc = ol_pt2pt_irecv(op->buffer, type ? 1 : 0, type ? type : bytes_type(), r,
                                tag(op, TAG_DATA), op->file->comm, OL_TAGSPACE_USER, &req);
        if (type)
            ol_dt_free_handle(type); /* the request holds it while in flight */
        track(op, rc, req);
    }
}

/* Sends (writes) or receives (reads) this process's stretch of its stream
 * for each aggregator's window of this round: one contiguous stretch, as
 * the pieces of a window are in stream order. */
static void my_stretches(io_op_t *op, bool send)
{
    for (int a = 0; a < op->naggregators; a++) {
        if (op->out_headers[a][0] == 0)
            continue;
        if (a == op->my_aggregator && op->staged)
            continue; /* the aggregator's own stretch takes no message (staged_stretch) */
        char *stretch = my_stretch(op, a);
        if (send)
            send_to(op, stretch, op->out_headers[a][1], op->aggregators[a], TAG_DATA);
        else
            receive_from(op, stretch, op->out_headers[a][1], op->aggregators[a], TAG_REPLY);
    }
}

static void start_data(io_op_t *op)
{
    if (op->my_aggregator >= 0) {
        MPI_Offset hi;
        window_of(op, op->my_aggregator, op->round, &op->window_lo, &hi);
        move_pieces(op, false, INT64_MAX);
    }
    my_stretches(op, true);
    op->phase = PHASE_DATA;
}

/* ---- the aggregator's file request ------------------------------------------- */

/* Segments that follow each other in the file without a gap, written in
 * one pass from wherever their bytes are (pwritev, IOV_BATCH at a time):
 * the kernel gathers them into the file's pages, so a round's pieces need
 * no copy into a window first. Returns errno. */
static int write_segments(int fd, const segment_t *segments, size_t n)
{
    enum { IOV_BATCH = 1024 }; /* POSIX's least IOV_MAX, Linux's */
    struct iovec iov[IOV_BATCH];
    size_t k = 0;
    while (k < n) {
        MPI_Offset offset = segments[k].offset;
        int batch = 0;
        for (; batch < IOV_BATCH && k < n; batch++, k++)
            iov[batch] = (struct iovec){segments[k].data, (size_t)segments[k].length};
        int error = ol_io_pwritev_full(fd, iov, batch, offset);
        if (error)
            return error;
    }
    return 0;
}

/* Makes a request now, in whichever thread calls. */
static void file_io_move(file_io_t *io)
{
    if (io->write) {
        io->error = write_segments(io->fd, io->segments, io->nsegments);
        return;
    }
    const segment_t *window = &io->segments[0];
    io->error = ol_io_pread_full(io->fd, window->data, window->length, window->offset,
                                 &io->done);
}

/* The thread that makes the aggregators' file requests while messages
 * flow, one after the other in the order they came; started by the first,
 * it sleeps on its condition between them, and MPI_Finalize ends it once
 * it has made those queued (ol_io_finalize). POSIX asynchronous I/O
 * (aio_write) takes one buffer, so a round's pieces had to be copied into
 * a window first; this thread writes them gathered from where they
 * arrived. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool started, stopping;
    pthread_t thread;
    file_io_t *head, **tail;
} mover = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, 0, NULL,
           &mover.head};

/* Moves what is queued until ol_io_finalize asks it to stop and nothing
 * is left. */
static void *mover_main(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&mover.lock);
    for (;;) {
        while (!mover.head && !mover.stopping)
            pthread_cond_wait(&mover.wake, &mover.lock);
        if (!mover.head)
            break;
        file_io_t *io = mover.head;
        mover.head = io->next;
        if (!mover.head)
            mover.tail = &mover.head;
        pthread_mutex_unlock(&mover.lock);
        file_io_move(io);
        atomic_store_explicit(&io->busy, false, memory_order_release);
        pthread_mutex_lock(&mover.lock);
    }
    pthread_mutex_unlock(&mover.lock);
    return NULL;
}

/* The thread takes no signal: the program's threads get them all. */
static bool mover_start(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    bool started = pthread_create(&mover.thread, NULL, mover_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (started)
        pthread_setname_np(mover.thread, "ol-io-mover"); /* what top -H and gdb show */
    return started;
}

void ol_io_finalize(void)
{
    pthread_mutex_lock(&mover.lock);
    bool started = mover.started;
    mover.stopping = true;
    pthread_cond_signal(&mover.wake);
    pthread_mutex_unlock(&mover.lock);
    if (started)
        pthread_join(mover.thread, NULL);
    mover.started = mover.stopping = false;
}

/* Queues io for the mover thread; false where no thread could start. */
static bool mover_take(file_io_t *io)
{
    pthread_mutex_lock(&mover.lock);
    if (!mover.started)
        mover.started = mover_start();
    if (mover.started) {
        atomic_store_explicit(&io->busy, true, memory_order_relaxed);
        io->next = NULL;
        *mover.tail = io;
        mover.tail = &io->next;
        pthread_cond_signal(&mover.wake);
    }
    bool taken = mover.started;
    pthread_mutex_unlock(&mover.lock);
    return taken;
}

/* Starts moving the segments (a read: one, the window) between the file
 * and memory, to go on while messages flow; moves them now where no
 * thread could start. They stay in place until file_io_done. */
static void file_io_start(io_op_t *op, bool write, const segment_t *segments, size_t n)
{
    file_io_t *io = &op->io;
    io->fd = op->file->fd;
    io->write = write;
    io->segments = segments;
    io->nsegments = n;
    io->done = 0;
    io->error = 0;
    if (!mover_take(io))
        file_io_move(io);
}

/* True once the file request is done (its error is the access's), or
 * when none is in flight. */
static bool file_io_done(io_op_t *op)
{
    file_io_t *io = &op->io;
    if (atomic_load_explicit(&io->busy, memory_order_acquire))
        return false;
    if (io->error && !op->error)
        op->error = io->error;
    return true;
}

/* A window with holes in a file this process cannot read: piece by piece. */
static int write_pieces(const io_op_t *op)
{
    int error = 0;
    for (int r = 0; r < nprocs(op) && !error; r++) {
        const incoming_t *in = &op->in[r];
        for (int64_t k = 0; k < in->header[0] && !error; k++)
            error = ol_io_pwrite_full(op->file->fd, op->buffer + (in->list[2 * k] - op->window_lo),
                                      in->list[2 * k + 1], in->list[2 * k]);
    }
    return error;
}

/* Reads the holes the pieces leave into the window, under the lock the
 * caller holds, so that they keep the file's bytes. */
static int read_holes(const io_op_t *op)
{
    for (size_t k = 0; k < op->nholes; k++) {
        const ol_io_run_t *hole = &op->holes[k];
        char *at = op->buffer + (hole->offset - op->window_lo);
        MPI_Offset got;
        int error = ol_io_pread_full(op->file->fd, at, hole->length, hole->offset, &got);
        if (error)
            return error;
        if (got < hole->length)
            memset(at + got, 0, (size_t)(hole->length - got));
    }
    return 0;
}

/* The aggregator of a write, once every piece has arrived: the span in
 * one request, gathered from where the pieces arrived where they tile it
 * (else from the window, the staged pieces copied there first), which the
 * mover thread makes while the next round's pieces arrive; the last
 * round's now, as nothing would overlap it (the thread and the polls while
 * it runs cost more than they save: 1 MiB by 4 ranks 0.5-1.4 GB/s against
 * 1.1-2.9 made at once). Where the pieces leave holes, now, under an exclusive
 * lock, the holes read first: a lock is never held across messages (a
 * process waiting for it must not be the one whose data this waits for)
 * nor across progress (its mutex serves this thread's other accesses). */
static void write_window(io_op_t *op)
{
    requested_span(op);
    MPI_Offset lo = op->span_lo, length = op->span_hi - lo;
    if (length <= 0 || op->error || !op->buffer)
        return;
    bool gathered = op->staged && op->nholes == 0 && !op->overlapping;
    if (op->staged && !gathered)
        unstage_all(op);
    char *span = op->buffer + (lo - op->window_lo);
    if (op->nholes == 0) {
        op->io.whole = (segment_t){lo, length, span};
        const segment_t *segments = gathered ? op->segments : &op->io.whole;
        size_t n = gathered ? op->nsegments : 1;
        if (op->round + 1 < op->rounds)
            file_io_start(op, true, segments, n);
        else
            op->error = write_segments(op->file->fd, segments, n);
        return;
    }
    if (!op->file->readable) {
        op->error = write_pieces(op);
        return;
    }
    int error = ol_io_lock(op->file, op->file->fd, true, lo, length);
    if (error) {
        op->error = error;
        return;
    }
    error = read_holes(op);
    if (!error)
        error = ol_io_pwrite_full(op->file->fd, span, length, lo);
    ol_io_unlock(op->file, op->file->fd, lo, length);
    op->error = error;
}

/* With more rounds to come: the next window, read whole into the other
 * buffer while this round's pieces leave (the domains cut the union of the
 * ranges, so the windows inside are what the processes asked for, but for
 * the holes between their pieces). */
static void read_next_window(io_op_t *op)
{
    op->read_ahead = false;
    if (!op->spare || op->error || op->round + 1 >= op->rounds)
        return;
    MPI_Offset lo, hi;
    window_of(op, op->my_aggregator, op->round + 1, &lo, &hi);
    if (hi <= lo)
        return;
    op->io.whole = (segment_t){lo, hi - lo, op->spare};
    file_io_start(op, false, &op->io.whole, 1);
    op->read_ahead = true;
}

/* Reads the window's requested span and sends each process its pieces,
 * only the bytes before the end of the file: the reply may land straight
 * in the program's buffer, whose bytes past the end keep their contents. */
static void serve_reads(io_op_t *op)
{
    MPI_Offset hi, got = 0;
    window_of(op, op->my_aggregator, op->round, &op->window_lo, &hi);
    if (op->read_ahead) {
        move_pieces(op, true, op->window_lo + op->io.done);
    } else {
        requested_span(op);
        MPI_Offset lo = op->span_lo, length = op->span_hi - lo;
        if (length > 0 && !op->error && op->buffer)
            op->error = ol_io_pread_full(op->file->fd, op->buffer + (lo - op->window_lo), length,
                                         lo, &got);
        move_pieces(op, true, lo + got);
    }
    read_next_window(op);
}

static void start_replies(io_op_t *op)
{
    if (op->my_aggregator >= 0)
        serve_reads(op);
    my_stretches(op, false);
    op->phase = PHASE_REPLIES;
}

/* Each process's outcome for the others: an errno, or minus the class of a
 * failure that is none (memory, a bad argument, a message). */
static void start_errors(io_op_t *op)
{
    int me = op->file->comm->rank;
    op->errors[me] = op->error ? op->error : op->others_hurt ? -op->failure : 0;
    for (int r = 0; r < nprocs(op); r++) {
        if (r == me)
            continue;
        send_to(op, &op->errors[me], sizeof(int), r, TAG_ERROR);
        receive_from(op, &op->errors[r], sizeof(int), r, TAG_ERROR);
    }
    op->phase = PHASE_ERRORS;
}

/* The next round, in the other window, or the end of the last write
 * before the agreement on errors. */
static void next_round(io_op_t *op)
{
    if (op->spare) {
        char *window = op->buffer, *staging = op->staging;
        op->buffer = op->spare;
        op->staging = op->spare_staging;
        op->spare = window;
        op->spare_staging = staging;
    }
    if (++op->round < op->rounds)
        start_headers(op);
    else
        op->phase = PHASE_FLUSH;
}

/* The file's window memory, unless another access of the file holds it:
 * a window and its staging area, two of each with more than one round. */
static void take_window_buffer(io_op_t *op)
{
    ol_file_t *f = op->file;
    MPI_Offset need = (op->rounds > 1 ? 4 : 2) * op->window;
    op->own_buffer = f->window_busy;
    if (op->own_buffer) {
        op->memory = malloc((size_t)need);
    } else {
        if (f->window_bytes < need) {
            free(f->window_buffer);
            f->window_buffer = malloc((size_t)need);
            f->window_bytes = f->window_buffer ? need : 0;
        }
        op->memory = f->window_buffer;
        f->window_busy = op->memory != NULL;
    }
    if (!op->memory)
        return;
    op->buffer = op->memory;
    op->staging = op->buffer + op->window;
    if (op->rounds > 1) {
        op->spare = op->staging + op->window;
        op->spare_staging = op->spare + op->window;
    }
}

static void give_window_buffer(io_op_t *op)
{
    if (op->own_buffer)
        free(op->memory);
    else if (op->memory)
        op->file->window_busy = false;
    op->memory = op->buffer = op->staging = op->spare = op->spare_staging = NULL;
}

static ol_status_t prepare_two_phase(io_op_t *op)
{
    int n = nprocs(op);
    ol_status_t rc = choose_aggregators(op);
    if (rc == MPI_SUCCESS)
        rc = cut_domains(op);
    if (rc != MPI_SUCCESS)
        return rc;
    op->out_headers = calloc((size_t)op->naggregators, sizeof(*op->out_headers));
    op->out_lists = calloc((size_t)op->naggregators, sizeof(*op->out_lists));
    op->in = calloc((size_t)n, sizeof(*op->in));
    if (op->my_aggregator >= 0)
        take_window_buffer(op);
    if (!op->out_headers || !op->out_lists || !op->in ||
        (op->my_aggregator >= 0 && !op->buffer)) {
        ol_error_detail("out of memory for a collective access of %s (an aggregator takes "
                        "twice cb_buffer_size, %lld bytes: its windows and their messages)",
                        op->file->path, (long long)op->file->hints.cb_buffer_size * 2);
        return MPI_ERR_NO_MEM;
    }
    OL_TRACE("io", "collective %s of %s: two-phase, %d aggregators, %lld rounds of %lld bytes",
             op->access.write ? "write" : "read", op->file->path, op->naggregators,
             (long long)op->rounds, (long long)op->window);
    return MPI_SUCCESS;
}

/* Without interleaving, each process moves its own data. */
static void move_alone(io_op_t *op)
{
    MPI_Offset moved;
    /* Not where others write between our pieces at once; in atomic mode
     * the whole span is locked. */
    bool sieve_writes = op->atomic || !interleaved(op);
    ol_status_t rc = ol_io_move(op->file, op->access.write, sieve_writes, &op->stream,
                                op->access.offset * op->file->view.etype_bytes, &moved);
    if (rc != MPI_SUCCESS)
        op->failure = rc; /* its own data alone */
}

typedef enum { STEP_WAITING, STEP_WAITING_FILE, STEP_ADVANCED, STEP_FINISHED } step_t;

/* Where the aggregator's file request must have ended: before the next
 * write starts (a write's data phase), before this round's window is
 * served (a read's lists), and before the errors are told. */
static bool awaits_file_io(const io_op_t *op)
{
    switch (op->phase) {
    case PHASE_DATA:
        return op->access.write;
    case PHASE_LISTS:
        return !op->access.write;
    case PHASE_FLUSH:
        return true;
    default:
        return false;
    }
}

/* Takes the next phase once the current one's messages have all gone and
 * come. A process that failed goes on with the others (they wait for its
 * messages), moving no data, and ends with its error. */
static step_t step(io_op_t *op)
{
    if (!phase_done(op))
        return STEP_WAITING;
    if (awaits_file_io(op) && !file_io_done(op))
        return STEP_WAITING_FILE;
    switch (op->phase) {
    case PHASE_RANGES:
        if (!two_phase(op)) {
            /* Each process moved its own data and nobody else's, so its
             * outcome is its own: no agreement on errors, which would hold
             * every rank until the slowest write ended (README.md). */
            if (op->failure == MPI_SUCCESS)
                move_alone(op);
            return STEP_FINISHED;
        }
        fail(op, prepare_two_phase(op));
        op->round = -1;
        next_round(op);
        break;
    case PHASE_HEADERS:
        start_lists(op);
        break;
    case PHASE_LISTS:
        if (op->access.write)
            start_data(op);
        else
            start_replies(op);
        break;
    case PHASE_DATA:
        if (op->my_aggregator >= 0)
            write_window(op);
        next_round(op);
        break;
    case PHASE_REPLIES:
        next_round(op);
        break;
    case PHASE_FLUSH:
        start_errors(op);
        break;
    case PHASE_ERRORS:
        return STEP_FINISHED;
    }
    return STEP_ADVANCED;
}

/* Bytes of my stream before the end of the file: what a read delivered. */
static MPI_Offset read_before_end(const io_op_t *op)
{
    MPI_Offset size;
    if (ol_io_get_size(op->file, &size) != MPI_SUCCESS)
        return 0;
    for (size_t k = 0; k < op->mine.count; k++) {
        const piece_t *p = &op->mine.pieces[k];
        if (p->file + p->length > size)
            return p->data + (size > p->file ? size - p->file : 0);
    }
    return op->stream.length;
}

static ol_status_t outcome(io_op_t *op)
{
    if (op->failure != MPI_SUCCESS)
        return op->failure; /* its sentence was recorded where it happened */
    for (int r = 0; r < nprocs(op); r++) {
        int code = op->errors[r];
        if (code == 0)
            continue;
        const char *what = op->access.write ? "write" : "read";
        if (code < 0) {
            ol_error_detail("the collective %s of %s failed at rank %d (error class %d), "
                            "so its data may be incomplete", what, op->file->path, r, -code);
            return -code;
        }
        char where[96];
        if (r == op->file->comm->rank)
            snprintf(where, sizeof where, "could not %s", what);
        else
            snprintf(where, sizeof where, "rank %d (an aggregator) could not %s", r, what);
        return ol_io_errno_class(code, where, op->file->path);
    }
    return MPI_SUCCESS;
}

static void free_op(io_op_t *op)
{
    for (int a = 0; op->out_lists && a < op->naggregators; a++)
        free(op->out_lists[a]);
    for (int r = 0; op->in && r < nprocs(op); r++)
        free(op->in[r].list);
    free(op->out_lists);
    free(op->out_headers);
    free(op->in);
    give_window_buffer(op);
    free(op->errors);
    free(op->ranges);
    free(op->aggregators);
    free(op->bounds);
    free(op->segments);
    free(op->holes);
    free(op->pending);
    free(op->mine.pieces);
    free(op);
}

static void finish(io_op_t *op)
{
    ol_status_t rc = outcome(op);
    MPI_Offset moved = op->stream.length;
    if (rc == MPI_SUCCESS && !op->access.write)
        moved = read_before_end(op);
    ol_status_t finished = ol_io_stream_finish(op->file, &op->access, &op->stream,
                                               rc == MPI_SUCCESS ? moved : 0);
    if (rc == MPI_SUCCESS)
        rc = finished;
    ol_request_t *req = op->request;
    if (rc == MPI_SUCCESS)
        ol_io_status(&op->stream, moved, &req->status);
    req->status.MPI_ERROR = rc;
    ol_dt_release(op->access.dt);
    free_op(op);
    ol_request_complete(req, rc);
}

/* Steps every access as far as it goes now. A phase whose messages all
 * complete at once (small sends, nothing to receive) is followed by the
 * next in the same call, and every phase taken counts as an event: no
 * message would wake a process that slept with such a phase done. So does
 * an access that waits for its file request alone, whose end wakes nobody
 * either: a waiting rank polls then, giving its core away between polls,
 * as the mover thread does the copy. */
static int advance_all(void)
{
    if (pthread_mutex_trylock(&ops_lock) != 0)
        return 0;
    int events = 0;
    bool file_waits = false;
    io_op_t **link = &ops;
    while (*link) {
        io_op_t *op = *link;
        step_t taken;
        while ((taken = step(op)) == STEP_ADVANCED)
            events++;
        if (taken == STEP_WAITING_FILE) {
            events++;
            file_waits = true;
        }
        if (taken == STEP_FINISHED) {
            *link = op->next;
            finish(op);
            events++;
        } else {
            link = &op->next;
        }
    }
    if (!ops)
        ol_progress_hooks[OL_PROGRESS_IO] = NULL;
    pthread_mutex_unlock(&ops_lock);
    if (file_waits)
        sched_yield();
    return events;
}

ol_status_t ol_io_access_all(ol_file_t *f, const ol_io_access_t *a, ol_request_t **request)
{
    io_op_t *op = calloc(1, sizeof(*op));
    if (!op) {
        ol_error_detail("out of memory for a collective access");
        return MPI_ERR_NO_MEM;
    }
    op->file = f;
    op->access = *a;
    op->seq = (int)(f->collective_seq++ % SEQ_MODULUS);
    op->atomic = f->atomic;
    op->cb = a->write ? f->hints.cb_write : f->hints.cb_read;
    op->request = ol_request_alloc(OL_REQ_IO);
    if (op->request)
        op->request->owner = f;
    op->ranges = calloc((size_t)f->comm->size, sizeof(range_t));
    op->errors = calloc((size_t)f->comm->size, sizeof(int));
    ol_status_t rc = !op->request || !op->ranges || !op->errors ? MPI_ERR_NO_MEM : a->error;
    if (rc == MPI_SUCCESS)
        rc = ol_io_check_direction(f, a->write);
    if (rc == MPI_SUCCESS)
        rc = ol_io_stream_make(f, a, &op->stream);
    if (rc == MPI_SUCCESS)
        rc = ol_io_pieces(&f->view, a->offset * f->view.etype_bytes, op->stream.length,
                          &op->mine);
    if (rc != MPI_SUCCESS) {
        /* The others still wait for this process: it takes part, empty,
         * and ends with its own error. */
        ol_io_stream_finish(f, a, &op->stream, 0);
        op->stream = (ol_io_stream_t){0};
        op->mine = (pieces_t){0};
        if (!op->request || !op->ranges || !op->errors) {
            if (op->request) {
                ol_request_complete(op->request, MPI_ERR_NO_MEM);
                ol_request_free_when_complete(op->request);
            }
            free_op(op);
            ol_error_detail("out of memory for a collective access");
            return MPI_ERR_NO_MEM;
        }
        op->failure = rc;
    }
    ol_dt_retain(a->dt);
    *request = op->request;
    pthread_mutex_lock(&ops_lock);
    start_ranges(op);
    op->next = ops;
    ops = op;
    ol_progress_hooks[OL_PROGRESS_IO] = advance_all;
    pthread_mutex_unlock(&ops_lock);
    return MPI_SUCCESS;
}
