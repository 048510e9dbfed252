/* Pack and unpack: copies between typed memory and the packed stream (the
 * data of count elements, in typemap order, without holes).
 *
 * The walk is stateless: any range of the packed stream is found by
 * descending the layout tree (a binary search on packed_start per level,
 * divisions for repetitions), then copied block by block with memcpy. A
 * cursor is therefore just (type, buffer, count): resuming at an offset
 * costs O(depth * log entries), and a sequence of increasing offsets is
 * linear in the data. */
#include "dt_internal.h"

#include <stdlib.h>
#include <string.h>

/* Addresses are computed as integers: a displacement may lead outside the
 * buffer's object (negative lb) or start from MPI_BOTTOM (NULL). */
static inline char *at(uintptr_t base, MPI_Aint disp)
{
    return (char *)(base + (uintptr_t)disp);
}

static inline void copy(char *memory, char *packed, size_t n, bool unpack)
{
    if (unpack)
        ol_copy_bytes(memory, packed, n);
    else
        ol_copy_bytes(packed, memory, n);
}

/* n whole blocks of `bytes`, stride apart. The common small sizes get a
 * fixed-size memcpy, which the compiler turns into one load and store. */
static void copy_blocks(char *memory, MPI_Aint stride, size_t bytes, char *packed, size_t n,
                        bool unpack)
{
#define BLOCKS_OF(size)                                                                         \
    for (size_t i = 0; i < n; i++, memory += stride, packed += (size))                          \
        copy(memory, packed, (size), unpack);                                                   \
    return
    switch (bytes) {
    case 4: BLOCKS_OF(4);
    case 8: BLOCKS_OF(8);
    case 16: BLOCKS_OF(16);
    default: BLOCKS_OF(bytes);
    }
#undef BLOCKS_OF
}

static void walk_node(const ol_dt_node_t *node, uintptr_t base, size_t skip, char *packed,
                      size_t length, bool unpack);

/* Copies bytes [skip, skip + length) of the packed stream of entry e of a
 * node whose origin is base. */
static void walk_entry(const ol_dt_entry_t *e, uintptr_t base, size_t skip, char *packed,
                       size_t length, bool unpack)
{
    size_t rep = skip / e->bytes, within = skip % e->bytes;
    uintptr_t address = (uintptr_t)at(base, e->disp + (MPI_Aint)rep * e->stride);
    if (e->child) {
        while (length > 0) {
            size_t n = e->bytes - within < length ? e->bytes - within : length;
            walk_node(e->child, address, within, packed, n, unpack);
            packed += n;
            length -= n;
            within = 0;
            address += (uintptr_t)e->stride;
        }
        return;
    }
    if (within) { /* the rest of a block begun by an earlier call */
        size_t n = e->bytes - within < length ? e->bytes - within : length;
        copy(at(address, (MPI_Aint)within), packed, n, unpack);
        packed += n;
        length -= n;
        address += (uintptr_t)e->stride;
    }
    size_t whole = length / e->bytes;
    copy_blocks((char *)address, e->stride, e->bytes, packed, whole, unpack);
    size_t tail = length - whole * e->bytes;
    if (tail)
        copy(at(address, (MPI_Aint)whole * e->stride), packed + whole * e->bytes, tail, unpack);
}

/* The entry whose packed bytes contain offset skip (skip < node->size). */
static size_t find_entry(const ol_dt_node_t *node, size_t skip)
{
    size_t low = 0, high = node->count;
    while (high - low > 1) {
        size_t middle = low + (high - low) / 2;
        if (node->entries[middle].packed_start <= skip)
            low = middle;
        else
            high = middle;
    }
    return low;
}

static void walk_node(const ol_dt_node_t *node, uintptr_t base, size_t skip, char *packed,
                      size_t length, bool unpack)
{
    for (size_t i = find_entry(node, skip); length > 0; i++) {
        const ol_dt_entry_t *e = &node->entries[i];
        size_t offset = skip - e->packed_start;
        size_t available = (size_t)e->reps * e->bytes - offset;
        size_t n = available < length ? available : length;
        walk_entry(e, base, offset, packed, n, unpack);
        packed += n;
        length -= n;
        skip += n;
    }
}

/* Bytes [offset, offset + length) of the packed stream of count elements
 * at buf; the caller keeps the range inside the stream. */
static void walk(const ol_datatype_t *dt, const void *buf, size_t offset, char *packed,
                 size_t length, bool unpack)
{
    if (length == 0)
        return;
    if (dt->contiguous) {
        copy(at((uintptr_t)buf, dt->true_lb + (MPI_Aint)offset), packed, length, unpack);
        return;
    }
    /* The elements are the repetitions of one entry at the top (walk_entry
     * needs no reps: length bounds it). */
    ol_dt_entry_t elements = {.stride = dt->extent, .child = ol_dt_root(dt), .bytes = dt->size};
    walk_entry(&elements, (uintptr_t)buf, offset, packed, length, unpack);
}

/* The blocks of one element of node (NULL: size bytes at base), in
 * typemap order; false once visit asked to stop. */
static bool visit_node(const ol_dt_node_t *node, uintptr_t base, size_t size,
                       ol_dt_block_fn visit, void *ctx)
{
    if (!node)
        return visit(base, size, ctx);
    for (size_t i = 0; i < node->count; i++) {
        const ol_dt_entry_t *e = &node->entries[i];
        for (MPI_Count r = 0; r < e->reps; r++) {
            uintptr_t address = (uintptr_t)at(base, e->disp + (MPI_Aint)r * e->stride);
            bool go_on = e->child ? visit_node(e->child, address, e->bytes, visit, ctx)
                                  : visit(address, e->bytes, ctx);
            if (!go_on)
                return false;
        }
    }
    return true;
}

bool ol_dt_for_each_block(const ol_datatype_t *dt, const void *buf, MPI_Count count,
                          ol_dt_block_fn visit, void *ctx)
{
    if (dt->size == 0 || count <= 0)
        return true;
    if (dt->contiguous)
        return visit((uintptr_t)at((uintptr_t)buf, dt->true_lb), (size_t)count * dt->size, ctx);
    for (MPI_Count k = 0; k < count; k++)
        if (!visit_node(ol_dt_root(dt), (uintptr_t)at((uintptr_t)buf, (MPI_Aint)k * dt->extent),
                        dt->size, visit, ctx))
            return false;
    return true;
}

struct ol_dt_cursor {
    ol_datatype_t *dt;
    const void *buf;
    size_t total;
};

ol_dt_cursor_t *ol_dt_cursor_create(const ol_datatype_t *dt, const void *buf, MPI_Count count)
{
    ol_dt_cursor_t *cursor = malloc(sizeof(*cursor));
    if (!cursor)
        return NULL;
    /* The type must outlive an operation that MPI_Type_free cannot stop. */
    ol_datatype_t *held = (ol_datatype_t *)dt;
    ol_dt_retain(held);
    *cursor = (ol_dt_cursor_t){.dt = held, .buf = buf, .total = (size_t)count * dt->size};
    return cursor;
}

void ol_dt_cursor_free(ol_dt_cursor_t *cursor)
{
    ol_dt_release(cursor->dt);
    free(cursor);
}

size_t ol_dt_cursor_pack(ol_dt_cursor_t *cursor, size_t offset, void *dst, size_t max)
{
    if (offset >= cursor->total)
        return 0;
    size_t n = cursor->total - offset < max ? cursor->total - offset : max;
    walk(cursor->dt, cursor->buf, offset, dst, n, false);
    return n;
}

void ol_dt_cursor_unpack(ol_dt_cursor_t *cursor, size_t offset, const void *src, size_t length)
{
    if (offset >= cursor->total)
        return;
    size_t n = cursor->total - offset < length ? cursor->total - offset : length;
    walk(cursor->dt, cursor->buf, offset, (char *)src, n, true);
}

void ol_dt_pack_all(const ol_datatype_t *dt, const void *buf, MPI_Count count, void *dst)
{
    walk(dt, buf, 0, dst, (size_t)count * dt->size, false);
}

void ol_dt_unpack_all(const ol_datatype_t *dt, void *buf, MPI_Count count, const void *src)
{
    walk(dt, buf, 0, (char *)src, (size_t)count * dt->size, true);
}

void ol_dt_unpack_first(const ol_datatype_t *dt, void *buf, MPI_Count count, const void *src,
                        size_t bytes)
{
    size_t total = (size_t)count * dt->size;
    walk(dt, buf, 0, (char *)src, bytes < total ? bytes : total, true);
}

/* Basic elements in the first bytes of one element's packed stream
 * (bytes < size), going through its parts in order. */
static MPI_Count elements_in_part_of(const ol_datatype_t *dt, MPI_Count bytes)
{
    if (bytes == 0)
        return 0;
    if (!dt->layout)
        return MPI_UNDEFINED; /* ends inside the one basic element */
    MPI_Count found = 0;
    for (size_t i = 0; i < dt->layout->nparts; i++) {
        const ol_dt_part_t *part = &dt->layout->parts[i];
        MPI_Count part_bytes = part->count * (MPI_Count)part->type->size;
        if (bytes < part_bytes) {
            MPI_Count rest = ol_dt_elements_in(part->type, bytes);
            return rest == MPI_UNDEFINED ? MPI_UNDEFINED : found + rest;
        }
        found += part->count * ol_dt_elements_per(part->type);
        bytes -= part_bytes;
    }
    return found;
}

MPI_Count ol_dt_elements_in(const ol_datatype_t *dt, MPI_Count bytes)
{
    if (dt->size == 0)
        return bytes == 0 ? 0 : MPI_UNDEFINED;
    MPI_Count whole = bytes / (MPI_Count)dt->size;
    MPI_Count rest = elements_in_part_of(dt, bytes % (MPI_Count)dt->size);
    return rest == MPI_UNDEFINED ? MPI_UNDEFINED : whole * ol_dt_elements_per(dt) + rest;
}
