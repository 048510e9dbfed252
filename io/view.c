/* Views: the displacement, etype, filetype and representation through
 * which a process sees the file, and the flattened map of the filetype
 * that turns a position in the view's data into bytes of the file. */
#include "io_internal.h"
#include "coll.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    ol_io_run_t *runs;
    size_t count, capacity;
    bool out_of_memory;
} runs_builder_t;

static bool add_block(uintptr_t address, size_t bytes, void *ctx)
{
    runs_builder_t *b = ctx;
    MPI_Offset offset = (MPI_Offset)(intptr_t)address;
    if (bytes == 0)
        return true;
    if (b->count > 0 && b->runs[b->count - 1].offset + b->runs[b->count - 1].length == offset) {
        b->runs[b->count - 1].length += (MPI_Offset)bytes; /* adjacent: one run */
        return true;
    }
    if (b->count == b->capacity) {
        size_t capacity = b->capacity ? 2 * b->capacity : 16;
        ol_io_run_t *runs = realloc(b->runs, capacity * sizeof(*runs));
        if (!runs) {
            b->out_of_memory = true;
            return false;
        }
        b->runs = runs;
        b->capacity = capacity;
    }
    b->runs[b->count++] = (ol_io_run_t){offset, (MPI_Offset)bytes};
    return true;
}

/* What the standard requires of an etype's and a filetype's typemap
 * (MPI-4.1 14.3): displacements not negative and not decreasing, and no
 * byte twice where the file may be written. */
typedef struct {
    MPI_Offset last_start, last_end;
    bool started;
    const char *problem;
} layout_check_t;

static bool check_block(uintptr_t address, size_t bytes, void *ctx)
{
    layout_check_t *c = ctx;
    MPI_Offset offset = (MPI_Offset)(intptr_t)address;
    if (bytes == 0)
        return true;
    if (offset < 0)
        c->problem = "has a negative displacement";
    else if (c->started && offset < c->last_start)
        c->problem = "has decreasing displacements";
    else if (c->started && offset < c->last_end)
        c->problem = "overlaps itself";
    c->started = true;
    c->last_start = offset;
    if (offset + (MPI_Offset)bytes > c->last_end)
        c->last_end = offset + (MPI_Offset)bytes;
    return c->problem == NULL;
}

/* ROMIO's class for such views, which programs and suites written against
 * it check for (the standard names none). */
static ol_status_t check_layout(const ol_datatype_t *dt, const char *role, bool writable)
{
    layout_check_t c = {0};
    ol_dt_for_each_block(dt, NULL, 1, check_block, &c);
    bool overlap_only = c.problem && strcmp(c.problem, "overlaps itself") == 0;
    if (!c.problem || (overlap_only && !writable))
        return MPI_SUCCESS;
    ol_error_detail("the %s %s, which the standard forbids in a view%s (MPI-4.1 14.3)", role,
                    c.problem, overlap_only ? " of a file opened for writing" : "");
    return MPI_ERR_IO;
}

/* The filetype's runs in the native layout, which a representation that
 * sizes types as memory does keeps. */
static ol_status_t flatten(const ol_datatype_t *filetype, ol_io_map_t *map)
{
    runs_builder_t b = {0};
    ol_dt_for_each_block(filetype, NULL, 1, add_block, &b);
    if (b.out_of_memory) {
        free(b.runs);
        ol_error_detail("out of memory to flatten the filetype");
        return MPI_ERR_NO_MEM;
    }
    MPI_Offset *before = malloc((b.count + 1) * sizeof(*before));
    if (!before) {
        free(b.runs);
        ol_error_detail("out of memory to flatten the filetype");
        return MPI_ERR_NO_MEM;
    }
    MPI_Offset sum = 0;
    for (size_t i = 0; i < b.count; i++) {
        before[i] = sum;
        sum += b.runs[i].length;
    }
    *map = (ol_io_map_t){.runs = b.runs, .before = before, .nruns = b.count, .size = sum,
                         .extent = filetype->extent};
    return MPI_SUCCESS;
}

/* A representation that sizes types otherwise than memory (a registered
 * one, or external32 for the few types whose sizes differ) maps the
 * filetype's layout in the file (layout.c). */
static ol_status_t map_in_file(const ol_io_view_t *view, ol_io_map_t *map)
{
    ol_datatype_t *twin;
    ol_status_t rc = ol_io_layout_twin(view->rep, view->filetype, &twin);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = flatten(twin, map);
    ol_dt_free_handle(twin);
    return rc;
}

void ol_io_view_release(ol_io_view_t *view)
{
    free(view->map.runs);
    free(view->map.before);
    if (view->etype)
        ol_dt_release(view->etype);
    if (view->filetype)
        ol_dt_release(view->filetype);
    memset(view, 0, sizeof(*view));
}

static ol_status_t check_view_types(const ol_datatype_t *etype, const ol_datatype_t *filetype)
{
    if (!etype->committed || !filetype->committed) {
        ol_error_detail("the %s is not committed", etype->committed ? "filetype" : "etype");
        return MPI_ERR_TYPE;
    }
    if (etype->size == 0) {
        ol_error_detail("the etype holds no data");
        return MPI_ERR_TYPE;
    }
    if (filetype->size % etype->size != 0) {
        ol_error_detail("the filetype's %zu bytes of data are no whole number of etypes of %zu "
                        "bytes", filetype->size, etype->size);
        return MPI_ERR_TYPE;
    }
    if (filetype->extent <= 0 && filetype->size > 0) {
        ol_error_detail("the filetype's extent is %lld: it must be positive",
                        (long long)filetype->extent);
        return MPI_ERR_TYPE;
    }
    return MPI_SUCCESS;
}

ol_status_t ol_io_set_view_local(ol_file_t *f, MPI_Offset disp, ol_datatype_t *etype,
                                 ol_datatype_t *filetype, const char *datarep)
{
    const ol_io_datarep_t *rep = ol_io_datarep_find(datarep);
    if (!rep) {
        ol_error_detail("datarep \"%s\" is neither native, internal, external32 nor one the "
                        "program registered", datarep);
        return MPI_ERR_UNSUPPORTED_DATAREP;
    }
    ol_status_t rc = check_view_types(etype, filetype);
    bool writable = !(f->amode & MPI_MODE_RDONLY);
    if (rc == MPI_SUCCESS)
        rc = check_layout(etype, "etype", writable);
    if (rc == MPI_SUCCESS)
        rc = check_layout(filetype, "filetype", writable);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_io_view_t view = {.disp = disp, .etype = etype, .filetype = filetype, .rep = rep};
    snprintf(view.datarep, sizeof view.datarep, "%s", datarep);
    view.etype_bytes = ol_io_datarep_bytes(rep, etype, 1);
    if (view.etype_bytes < 0)
        return MPI_ERR_UNSUPPORTED_DATAREP;
    bool same_sizes = ol_io_datarep_bytes(rep, filetype, 1) == (MPI_Offset)filetype->size &&
                      view.etype_bytes == (MPI_Offset)etype->size;
    rc = same_sizes ? flatten(filetype, &view.map) : map_in_file(&view, &view.map);
    if (rc != MPI_SUCCESS)
        return rc;
    ol_dt_retain(etype);
    ol_dt_retain(filetype);
    ol_io_view_release(&f->view);
    f->view = view;
    f->position = 0;
    return MPI_SUCCESS;
}

ol_status_t ol_io_set_view(ol_file_t *f, MPI_Offset disp, ol_datatype_t *etype,
                           ol_datatype_t *filetype, const char *datarep)
{
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(f->amode & MPI_MODE_SEQUENTIAL)) {
            ol_error_detail("disp is MPI_DISPLACEMENT_CURRENT, which only a file opened with "
                            "MPI_MODE_SEQUENTIAL takes");
            return MPI_ERR_ARG;
        }
        MPI_Offset shared;
        ol_status_t rc = ol_io_shared_get(f, &shared);
        if (rc != MPI_SUCCESS)
            return rc;
        disp = ol_io_byte_offset(f, shared);
    } else if (disp < 0) {
        ol_error_detail("disp is %lld, negative", (long long)disp);
        return MPI_ERR_ARG;
    }
    /* The shared pointer restarts at the view's beginning once every
     * process has read it (MPI_DISPLACEMENT_CURRENT above). */
    ol_status_t rc = ol_coll_barrier(f->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ol_io_set_view_local(f, disp, etype, filetype, datarep);
    if (rc == MPI_SUCCESS && f->comm->rank == 0)
        rc = ol_io_shared_set(f, 0);
    ol_status_t synced = ol_coll_barrier(f->comm);
    return rc != MPI_SUCCESS ? rc : synced;
}

/* Where data byte `position` of the view lies: the instance, then the run
 * (binary search over the bytes before each run). */
static MPI_Offset locate(const ol_io_map_t *map, MPI_Offset position, size_t *run)
{
    MPI_Offset instance = position / map->size, within = position % map->size;
    size_t low = 0, high = map->nruns;
    while (high - low > 1) {
        size_t mid = (low + high) / 2;
        if (map->before[mid] <= within)
            low = mid;
        else
            high = mid;
    }
    *run = low;
    return instance;
}

/* Whether the filetype's instances follow one another with no hole, as
 * the default view's MPI_BYTE does: the view's data is then one stretch of
 * the file. */
static bool dense(const ol_io_map_t *map)
{
    return map->nruns == 1 && map->runs[0].offset == 0 && map->runs[0].length == map->extent;
}

bool ol_io_map_walk(const ol_io_view_t *view, MPI_Offset start, MPI_Offset length,
                    ol_io_run_fn visit, void *ctx)
{
    const ol_io_map_t *map = &view->map;
    if (length <= 0 || map->size == 0)
        return true;
    if (dense(map))
        return visit(view->disp + start, length, 0, ctx);
    size_t run;
    MPI_Offset instance = locate(map, start, &run);
    MPI_Offset skip = start % map->size - map->before[run];
    MPI_Offset data = 0;
    /* Runs that touch in the file (the last of one instance and the first
     * of the next) are visited as one piece. */
    MPI_Offset piece_at = -1, piece_length = 0, piece_data = 0;
    while (data < length) {
        const ol_io_run_t *r = &map->runs[run];
        MPI_Offset take = r->length - skip;
        if (take > length - data)
            take = length - data;
        MPI_Offset where = view->disp + instance * map->extent + r->offset + skip;
        if (piece_at >= 0 && piece_at + piece_length == where) {
            piece_length += take;
        } else {
            if (piece_at >= 0 && !visit(piece_at, piece_length, piece_data, ctx))
                return false;
            piece_at = where;
            piece_length = take;
            piece_data = data;
        }
        data += take;
        skip = 0;
        if (++run == map->nruns) {
            run = 0;
            instance++;
        }
    }
    return visit(piece_at, piece_length, piece_data, ctx);
}

static bool first_run(MPI_Offset file_offset, MPI_Offset length, MPI_Offset data_offset, void *ctx)
{
    (void)length;
    (void)data_offset;
    *(MPI_Offset *)ctx = file_offset;
    return false;
}

MPI_Offset ol_io_byte_offset(const ol_file_t *f, MPI_Offset offset)
{
    const ol_io_view_t *view = &f->view;
    if (view->map.size == 0)
        return view->disp;
    MPI_Offset position = offset * view->etype_bytes, where = view->disp;
    ol_io_map_walk(view, position, 1, first_run, &where);
    return where;
}

ol_status_t ol_io_type_extent(const ol_file_t *f, ol_datatype_t *dt, MPI_Count *extent)
{
    if (ol_io_datarep_is_native(f->view.rep)) {
        *extent = dt->extent;
        return MPI_SUCCESS;
    }
    ol_datatype_t *twin;
    ol_status_t rc = ol_io_layout_twin(f->view.rep, dt, &twin);
    if (rc != MPI_SUCCESS)
        return rc;
    *extent = twin->extent;
    ol_dt_free_handle(twin);
    return MPI_SUCCESS;
}
