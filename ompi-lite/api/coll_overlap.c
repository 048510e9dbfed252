/* Whether the send and receive data of a collective share memory, judged
 * by the bytes their datatypes touch, not by the buffer pointers: two
 * MPI_BOTTOMs with struct types of absolute addresses, the classic way to
 * send scattered variables, are different memory; a send buffer that is a
 * process's own block in the receive buffer is the same.
 *
 * First the spans (lowest to highest byte) of the two sides: disjoint
 * spans, the common case, cost one pass over the blocks' bounds. Where the
 * spans meet, the blocks of data of both sides are listed, merged and
 * swept (on the stack up to 64 blocks a side, the scattered variables of
 * an MPI_BOTTOM call); more blocks than MAX_BLOCKS on a side are not
 * judged (taken as not overlapping), as a correct program must never be
 * refused. */
#include "coll_internal.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_BLOCKS = 1 << 16 };

typedef struct {
    uintptr_t start, end;
} range_t;

static const ol_datatype_t *type_of(const ol_api_coll_side_t *s, int i)
{
    return s->types ? s->types[i] : s->dt;
}

static MPI_Count count_of(const ol_api_coll_side_t *s, int i)
{
    return s->counts ? s->counts[i] : s->count;
}

/* Where block i's elements are counted from (MPI_BOTTOM is address 0). */
static uintptr_t origin_of(const ol_api_coll_side_t *s, int i)
{
    uintptr_t buf = (uintptr_t)s->buf;
    if (!s->displs)
        return buf + (uintptr_t)((MPI_Aint)i * s->count * s->dt->extent);
    MPI_Aint displ = s->byte_displs ? s->displs[i] : s->displs[i] * type_of(s, i)->extent;
    return buf + (uintptr_t)displ;
}

static bool has_data(const ol_api_coll_side_t *s, int i)
{
    return count_of(s, i) > 0 && type_of(s, i)->size > 0;
}

/* The bytes from the first to the last byte of data of block i. */
static range_t block_span(const ol_api_coll_side_t *s, int i)
{
    const ol_datatype_t *dt = type_of(s, i);
    MPI_Aint reach = (MPI_Aint)(count_of(s, i) - 1) * dt->extent;
    uintptr_t first = origin_of(s, i) + (uintptr_t)dt->true_lb;
    return (range_t){first + (uintptr_t)(reach < 0 ? reach : 0),
                     first + (uintptr_t)(dt->true_extent + (reach > 0 ? reach : 0))};
}

/* The span of a side's data; false if it has none. */
static bool side_span(const ol_api_coll_side_t *s, range_t *span)
{
    bool any = false;
    for (int i = 0; i < s->n; i++) {
        if (!has_data(s, i))
            continue;
        range_t r = block_span(s, i);
        if (!any || r.start < span->start)
            span->start = r.start;
        if (!any || r.end > span->end)
            span->end = r.end;
        any = true;
    }
    return any;
}

/* Every contiguous block of a side's data (ol_dt_for_each_block). */
static bool for_each_block(const ol_api_coll_side_t *s, ol_dt_block_fn visit, void *ctx)
{
    for (int i = 0; i < s->n; i++)
        if (has_data(s, i) && !ol_dt_for_each_block(type_of(s, i), (const void *)origin_of(s, i),
                                                    count_of(s, i), visit, ctx))
            return false;
    return true;
}

/* A side's blocks: in the caller's small array first, in a larger one
 * (up to MAX_BLOCKS) only where a side has more. */
enum { SMALL_BLOCKS = 64 };

typedef struct {
    range_t *ranges;
    size_t n, capacity;
    range_t *heap;
} block_list_t;

static bool add_block(uintptr_t address, size_t bytes, void *ctx)
{
    block_list_t *list = ctx;
    if (list->n == list->capacity) {
        if (list->heap || !(list->heap = malloc(MAX_BLOCKS * sizeof(range_t))))
            return false; /* more than MAX_BLOCKS, or no memory: not judged */
        memcpy(list->heap, list->ranges, list->n * sizeof(range_t));
        list->ranges = list->heap;
        list->capacity = MAX_BLOCKS;
    }
    list->ranges[list->n++] = (range_t){address, address + bytes};
    return true;
}

static int by_start(const void *x, const void *y)
{
    const range_t *a = x, *b = y;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* The side's blocks of data, sorted and merged where they meet; false if
 * there are more than MAX_BLOCKS. */
static bool list_blocks(const ol_api_coll_side_t *s, block_list_t *list)
{
    if (!for_each_block(s, add_block, list))
        return false;
    qsort(list->ranges, list->n, sizeof(range_t), by_start);
    size_t merged = 0;
    for (size_t k = 0; k < list->n; k++) {
        if (merged > 0 && list->ranges[k].start <= list->ranges[merged - 1].end) {
            if (list->ranges[k].end > list->ranges[merged - 1].end)
                list->ranges[merged - 1].end = list->ranges[k].end;
        } else {
            list->ranges[merged++] = list->ranges[k];
        }
    }
    list->n = merged;
    return true;
}

/* A byte in both sorted, merged lists. */
static bool lists_meet(const block_list_t *a, const block_list_t *b, uintptr_t *where)
{
    size_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        if (a->ranges[i].end <= b->ranges[j].start) {
            i++;
        } else if (b->ranges[j].end <= a->ranges[i].start) {
            j++;
        } else {
            *where = a->ranges[i].start > b->ranges[j].start ? a->ranges[i].start
                                                             : b->ranges[j].start;
            return true;
        }
    }
    return false;
}

bool ol_api_coll_sides_overlap(const ol_api_coll_side_t *a, const ol_api_coll_side_t *b,
                               uintptr_t *where)
{
    range_t span_a, span_b;
    if (!side_span(a, &span_a) || !side_span(b, &span_b) || span_a.end <= span_b.start ||
        span_b.end <= span_a.start)
        return false;
    range_t small_a[SMALL_BLOCKS], small_b[SMALL_BLOCKS];
    block_list_t list_a = {small_a, 0, SMALL_BLOCKS, NULL};
    block_list_t list_b = {small_b, 0, SMALL_BLOCKS, NULL};
    bool meet = list_blocks(a, &list_a) && list_blocks(b, &list_b) &&
                lists_meet(&list_a, &list_b, where);
    free(list_a.heap);
    free(list_b.heap);
    return meet;
}
