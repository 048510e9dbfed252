/* dt_engine: the datatype engine against a reference packer.
 *
 * Random nested types (vector of struct of indexed ..., negative
 * displacements and strides, resized extents, zero-length blocks, holey
 * pair types, subarrays and darrays) are built with the engine, and their
 * typemaps are also computed here by a plain recursive walk of the
 * constructor arguments: the list of basic elements (offset, length) in
 * typemap order. Each type is then packed with ol_dt_pack_all and with a
 * cursor in random chunks (increasing offsets, then random ones), unpacked
 * back the same two ways, and compared byte for byte with the reference,
 * including that unpacking leaves the holes of the buffer alone. Sizes,
 * true bounds and MPI_Get_elements counts are checked too.
 *
 * usage: dt_engine [seed [cases]]; the seed is printed so a failure can be
 * replayed. */
#include "dt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CHILDREN 4
#define MAX_BASIC_ELEMENTS 20000
#define MAX_SPAN (1 << 20)

enum kind { BASIC, CONTIGUOUS, VECTOR, HVECTOR, INDEXED, HINDEXED, INDEXED_BLOCK,
            HINDEXED_BLOCK, STRUCT, RESIZED, DUP, SUBARRAY, DARRAY, NKINDS };

typedef struct desc {
    enum kind kind;
    ol_datatype_t *dt;
    MPI_Count n, blocklength, stride;
    MPI_Count blocklengths[8], displacements[8];
    struct desc *children[MAX_CHILDREN];
    int ndims, order, size, rank;
    MPI_Count sizes[3], subsizes[3], starts[3];
    int distribs[3], dargs[3], psizes[3];
} desc_t;

typedef struct block {
    MPI_Aint offset;
    size_t length;
} block_t;

typedef struct typemap {
    block_t *blocks;
    size_t count;
    bool overflow;
} typemap_t;

static unsigned long long rng_state;
static int failures, moved; /* moved: cases whose data was packed and compared */

static unsigned random_below(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng_state >> 33) % n);
}

static int random_between(int low, int high)
{
    return low + (int)random_below((unsigned)(high - low + 1));
}

#define CHECK(cond, ...)                                                                        \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "dt_engine: %s:%d: ", __FILE__, __LINE__);                         \
            fprintf(stderr, __VA_ARGS__);                                                       \
            fputc('\n', stderr);                                                                \
            failures++;                                                                         \
            return false;                                                                       \
        }                                                                                       \
    } while (0)

/* ---- the reference typemap --------------------------------------------- */

static void add_block(typemap_t *map, MPI_Aint offset, size_t length)
{
    if (map->count == MAX_BASIC_ELEMENTS) {
        map->overflow = true;
        return;
    }
    map->blocks[map->count++] = (block_t){offset, length};
}

static const MPI_Datatype basics[] = {MPI_BYTE, MPI_SHORT, MPI_INT, MPI_DOUBLE, MPI_SHORT_INT,
                                      MPI_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_2INT};

static void reference_basic(const ol_datatype_t *dt, MPI_Aint at, typemap_t *map)
{
    if (dt == ol_dt_from_handle(MPI_SHORT_INT)) {
        struct { short s; int i; } pair;
        add_block(map, at, sizeof(short));
        add_block(map, at + (MPI_Aint)((char *)&pair.i - (char *)&pair), sizeof(int));
    } else if (dt == ol_dt_from_handle(MPI_DOUBLE_INT)) {
        add_block(map, at, sizeof(double));
        add_block(map, at + (MPI_Aint)sizeof(double), sizeof(int));
    } else if (dt == ol_dt_from_handle(MPI_2INT)) {
        add_block(map, at, sizeof(int));
        add_block(map, at + (MPI_Aint)sizeof(int), sizeof(int));
    } else {
        add_block(map, at, dt->size);
    }
}

static void reference(const desc_t *d, MPI_Aint at, typemap_t *map);

/* The darray's owner test of one global index, from the standard's rules. */
static bool owns(const desc_t *d, int dim, MPI_Count index, int coord)
{
    MPI_Count g = d->sizes[dim];
    int p = d->psizes[dim], darg = d->dargs[dim];
    switch (d->distribs[dim]) {
    case MPI_DISTRIBUTE_BLOCK: {
        MPI_Count b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return index / b == coord;
    }
    case MPI_DISTRIBUTE_CYCLIC: {
        MPI_Count b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        return (index / b) % p == coord;
    }
    default: return true;
    }
}

/* Subarray and darray: every index of the array in array order, kept when
 * selected. */
static void reference_array(const desc_t *d, MPI_Aint at, typemap_t *map)
{
    const desc_t *old = d->children[0];
    int coords[3] = {0}, rest = d->rank;
    for (int k = d->ndims - 1; d->kind == DARRAY && k >= 0; k--) {
        coords[k] = rest % d->psizes[k];
        rest /= d->psizes[k];
    }
    MPI_Count total = 1, index[3] = {0};
    for (int k = 0; k < d->ndims; k++)
        total *= d->sizes[k];
    for (MPI_Count linear = 0; linear < total; linear++) {
        /* index of linear in array order: fastest dimension last (C) or first */
        MPI_Count r = linear;
        for (int k = 0; k < d->ndims; k++) {
            int dim = d->order == MPI_ORDER_C ? d->ndims - 1 - k : k;
            index[dim] = r % d->sizes[dim];
            r /= d->sizes[dim];
        }
        bool selected = true;
        for (int k = 0; k < d->ndims; k++) {
            if (d->kind == SUBARRAY)
                selected &= index[k] >= d->starts[k] && index[k] < d->starts[k] + d->subsizes[k];
            else
                selected &= owns(d, k, index[k], coords[k]);
        }
        if (selected)
            reference(old, at + (MPI_Aint)linear * old->dt->extent, map);
    }
}

static void reference(const desc_t *d, MPI_Aint at, typemap_t *map)
{
    const desc_t *old = d->children[0];
    MPI_Aint ext = old ? old->dt->extent : 0;
    switch (d->kind) {
    case BASIC: reference_basic(d->dt, at, map); return;
    case CONTIGUOUS:
        for (MPI_Count i = 0; i < d->n; i++)
            reference(old, at + (MPI_Aint)i * ext, map);
        return;
    case VECTOR:
    case HVECTOR:
        for (MPI_Count i = 0; i < d->n; i++)
            for (MPI_Count j = 0; j < d->blocklength; j++) {
                MPI_Aint start = d->kind == VECTOR ? (MPI_Aint)d->stride * ext : (MPI_Aint)d->stride;
                reference(old, at + (MPI_Aint)i * start + (MPI_Aint)j * ext, map);
            }
        return;
    case INDEXED:
    case HINDEXED:
    case INDEXED_BLOCK:
    case HINDEXED_BLOCK:
        for (MPI_Count i = 0; i < d->n; i++) {
            bool block = d->kind == INDEXED_BLOCK || d->kind == HINDEXED_BLOCK;
            bool bytes = d->kind == HINDEXED || d->kind == HINDEXED_BLOCK;
            MPI_Count length = block ? d->blocklength : d->blocklengths[i];
            MPI_Aint start = bytes ? (MPI_Aint)d->displacements[i] : (MPI_Aint)d->displacements[i] * ext;
            for (MPI_Count j = 0; j < length; j++)
                reference(old, at + start + (MPI_Aint)j * ext, map);
        }
        return;
    case STRUCT:
        for (MPI_Count i = 0; i < d->n; i++)
            for (MPI_Count j = 0; j < d->blocklengths[i]; j++)
                reference(d->children[i], at + (MPI_Aint)d->displacements[i] +
                                              (MPI_Aint)j * d->children[i]->dt->extent,
                          map);
        return;
    case RESIZED:
    case DUP: reference(old, at, map); return;
    case SUBARRAY:
    case DARRAY: reference_array(d, at, map); return;
    case NKINDS: return;
    }
}

/* ---- random types ------------------------------------------------------ */

static desc_t *random_type(int depth);

static void free_desc(desc_t *d)
{
    if (!d)
        return;
    for (int i = 0; i < MAX_CHILDREN; i++)
        free_desc(d->children[i]);
    if (d->kind != BASIC)
        ol_dt_free_handle(d->dt);
    free(d);
}

static void random_subarray(desc_t *d)
{
    d->ndims = random_between(1, 3);
    d->order = random_below(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    for (int k = 0; k < d->ndims; k++) {
        d->sizes[k] = random_between(1, 6);
        d->subsizes[k] = random_between(0, (int)d->sizes[k]);
        d->starts[k] = random_between(0, (int)(d->sizes[k] - d->subsizes[k]));
    }
}

static void random_darray(desc_t *d)
{
    static const int distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                                   MPI_DISTRIBUTE_NONE};
    d->ndims = random_between(1, 3);
    d->order = random_below(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    d->size = 1;
    for (int k = 0; k < d->ndims; k++) {
        d->sizes[k] = random_between(1, 9);
        d->distribs[k] = distribs[random_below(3)];
        d->psizes[k] = d->distribs[k] == MPI_DISTRIBUTE_NONE ? 1 : random_between(1, 3);
        d->dargs[k] = MPI_DISTRIBUTE_DFLT_DARG;
        if (d->distribs[k] == MPI_DISTRIBUTE_CYCLIC && random_below(2))
            d->dargs[k] = random_between(1, 3);
        if (d->distribs[k] == MPI_DISTRIBUTE_BLOCK && random_below(2))
            d->dargs[k] = (int)((d->sizes[k] + d->psizes[k] - 1) / d->psizes[k]) + random_between(0, 2);
        d->size *= d->psizes[k];
    }
    d->rank = random_between(0, d->size - 1);
}

static ol_status_t build(desc_t *d)
{
    ol_datatype_t *old = d->children[0] ? d->children[0]->dt : NULL;
    bool large = random_below(2);
    switch (d->kind) {
    case CONTIGUOUS: return ol_dt_create_contiguous(d->n, old, large, &d->dt);
    case VECTOR:
    case HVECTOR:
        return ol_dt_create_vector(d->n, d->blocklength, d->stride, d->kind == HVECTOR, old, large,
                                   &d->dt);
    case INDEXED:
    case HINDEXED:
        return ol_dt_create_indexed(d->n, d->blocklengths, 0, d->displacements,
                                    d->kind == HINDEXED, old, large, &d->dt);
    case INDEXED_BLOCK:
    case HINDEXED_BLOCK:
        return ol_dt_create_indexed(d->n, NULL, d->blocklength, d->displacements,
                                    d->kind == HINDEXED_BLOCK, old, large, &d->dt);
    case STRUCT: {
        ol_datatype_t *types[MAX_CHILDREN];
        for (MPI_Count i = 0; i < d->n; i++)
            types[i] = d->children[i]->dt;
        return ol_dt_create_struct(d->n, d->blocklengths, d->displacements, types, large, &d->dt);
    }
    case RESIZED:
        return ol_dt_create_resized(old, d->displacements[0], d->displacements[1], large, &d->dt);
    case DUP: return ol_dt_create_dup(old, &d->dt);
    case SUBARRAY:
        return ol_dt_create_subarray(d->ndims, d->sizes, d->subsizes, d->starts, d->order, old,
                                     large, &d->dt);
    case DARRAY:
        return ol_dt_create_darray(d->size, d->rank, d->ndims, d->sizes, d->distribs, d->dargs,
                                   d->psizes, d->order, old, large, &d->dt);
    default: return MPI_ERR_INTERN;
    }
}

static void random_arguments(desc_t *d, int depth)
{
    MPI_Aint ext = d->children[0]->dt->extent;
    d->n = random_between(0, 5);
    d->blocklength = random_between(0, 3);
    d->stride = random_between(-6, 6);
    if (d->kind == HVECTOR)
        d->stride = d->stride * (ext ? ext : 1) + random_between(-3, 3);
    for (int i = 0; i < 8; i++) {
        d->blocklengths[i] = random_between(0, 3);
        d->displacements[i] = random_between(-8, 8);
        if (d->kind == HINDEXED || d->kind == HINDEXED_BLOCK || d->kind == STRUCT)
            d->displacements[i] = d->displacements[i] * 8 + random_between(-2, 2);
    }
    if (random_below(3) == 0) { /* regular displacements: an indexed type that is a vector */
        MPI_Count step = random_between(-3, 3) * (d->kind == HINDEXED || d->kind == STRUCT ? 8 : 1);
        for (int i = 1; i < 8; i++)
            d->displacements[i] = d->displacements[0] + i * step;
    }
    if (d->kind == STRUCT) {
        d->n = random_between(1, MAX_CHILDREN);
        for (int i = 1; i < d->n; i++)
            d->children[i] = random_type(depth - 1);
    }
    if (d->kind == RESIZED) {
        d->displacements[0] = random_between(-16, 16);         /* lb */
        d->displacements[1] = random_between(0, 3) * 8 + random_between(0, 8); /* extent */
    }
    if (d->kind == SUBARRAY)
        random_subarray(d);
    if (d->kind == DARRAY)
        random_darray(d);
}

static desc_t *random_type(int depth)
{
    desc_t *d = calloc(1, sizeof(*d));
    d->kind = depth <= 0 ? BASIC : (enum kind)random_below(NKINDS);
    if (d->kind == BASIC) {
        d->dt = ol_dt_from_handle(basics[random_below(OL_ARRAY_SIZE(basics))]);
        return d;
    }
    d->children[0] = random_type(depth - 1 - (int)random_below(2));
    random_arguments(d, depth);
    if (build(d) != MPI_SUCCESS) {
        fprintf(stderr, "dt_engine: building a type of kind %d failed\n", d->kind);
        exit(1);
    }
    return d;
}

/* ---- the checks -------------------------------------------------------- */

/* The typemap of count elements, offsets relative to the buffer. */
static bool full_typemap(const desc_t *d, MPI_Count count, typemap_t *map)
{
    map->count = 0;
    map->overflow = false;
    for (MPI_Count k = 0; k < count; k++)
        reference(d, (MPI_Aint)k * d->dt->extent, map);
    return !map->overflow;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed + i * 131 + (i >> 8));
}

typedef struct arena {
    unsigned char *memory, *expected, *packed, *scratch;
    MPI_Aint low; /* offset of memory[0] from the buffer origin */
    size_t span, bytes;
} arena_t;

static void reference_pack(const typemap_t *map, const arena_t *a, unsigned char *out)
{
    for (size_t i = 0; i < map->count; i++) {
        memcpy(out, a->memory + (map->blocks[i].offset - a->low), map->blocks[i].length);
        out += map->blocks[i].length;
    }
}

static void reference_unpack(const typemap_t *map, const arena_t *a, unsigned char *memory,
                             const unsigned char *in)
{
    for (size_t i = 0; i < map->count; i++) {
        memcpy(memory + (map->blocks[i].offset - a->low), in, map->blocks[i].length);
        in += map->blocks[i].length;
    }
}

static bool check_cursor_pack(const desc_t *d, MPI_Count count, arena_t *a, void *buf)
{
    ol_dt_cursor_t *cursor = ol_dt_cursor_create(d->dt, buf, count);
    memset(a->scratch, 0, a->bytes);
    size_t offset = 0;
    while (offset < a->bytes) {
        size_t chunk = random_below(4) ? random_between(1, 61) : random_between(1, 4096);
        size_t n = ol_dt_cursor_pack(cursor, offset, a->scratch + offset, chunk);
        CHECK(n == (chunk < a->bytes - offset ? chunk : a->bytes - offset),
              "cursor packed %zu of %zu bytes at %zu", n, chunk, offset);
        offset += n;
    }
    CHECK(memcmp(a->scratch, a->packed, a->bytes) == 0, "cursor pack differs");
    for (int i = 0; i < 8 && a->bytes > 0; i++) { /* resends: any offset, any order */
        size_t at = random_below((unsigned)a->bytes), len = random_between(1, 100);
        unsigned char piece[100];
        size_t n = ol_dt_cursor_pack(cursor, at, piece, len);
        CHECK(memcmp(piece, a->packed + at, n) == 0, "cursor repack at %zu differs", at);
    }
    ol_dt_cursor_free(cursor);
    return true;
}

static bool check_unpack(const desc_t *d, MPI_Count count, const typemap_t *map, arena_t *a,
                         void *buf)
{
    /* the buffer unpacked into starts as another pattern; holes must keep it */
    unsigned char *target = a->memory;
    fill(a->expected, a->span, 77);
    memcpy(a->scratch, a->expected, a->span);
    reference_unpack(map, a, a->expected, a->packed);

    memcpy(target, a->scratch, a->span);
    ol_dt_unpack_all(d->dt, buf, count, a->packed);
    CHECK(memcmp(target, a->expected, a->span) == 0, "unpack_all differs");

    memcpy(target, a->scratch, a->span);
    ol_dt_cursor_t *cursor = ol_dt_cursor_create(d->dt, buf, count);
    for (size_t offset = 0; offset < a->bytes;) {
        size_t chunk = random_below(4) ? random_between(1, 61) : random_between(1, 4096);
        chunk = chunk < a->bytes - offset ? chunk : a->bytes - offset;
        ol_dt_cursor_unpack(cursor, offset, a->packed + offset, chunk);
        offset += chunk;
    }
    ol_dt_cursor_free(cursor);
    CHECK(memcmp(target, a->expected, a->span) == 0, "cursor unpack differs");
    return true;
}

/* MPI_Get_elements' count for a random byte count, against the typemap. */
static bool check_elements(const desc_t *d, const typemap_t *map, size_t bytes)
{
    size_t cut = bytes ? random_below((unsigned)bytes + 1) : 0, seen = 0;
    MPI_Count expected = 0;
    for (size_t i = 0; i < map->count && seen < cut; i++) {
        seen += map->blocks[i].length;
        expected = seen <= cut ? expected + 1 : MPI_UNDEFINED;
    }
    MPI_Count got = ol_dt_elements_in(d->dt, (MPI_Count)cut);
    CHECK(got == expected, "elements in %zu bytes: %lld, expected %lld", cut, (long long)got,
          (long long)expected);
    return true;
}

static bool check_bounds(const desc_t *d, const typemap_t *one)
{
    size_t size = 0;
    MPI_Aint low = 0, high = 0;
    for (size_t i = 0; i < one->count; i++) {
        size += one->blocks[i].length;
        MPI_Aint lo = one->blocks[i].offset, hi = lo + (MPI_Aint)one->blocks[i].length;
        low = i == 0 || lo < low ? lo : low;
        high = i == 0 || hi > high ? hi : high;
    }
    CHECK(size == d->dt->size, "size %zu, expected %zu", d->dt->size, size);
    if (size > 0)
        CHECK(d->dt->true_lb == low && d->dt->true_extent == high - low,
              "true bounds [%ld, +%ld), expected [%ld, +%ld)", (long)d->dt->true_lb,
              (long)d->dt->true_extent, (long)low, (long)(high - low));
    return true;
}

static bool check_type(const desc_t *d, typemap_t *map)
{
    if (!full_typemap(d, 1, map) || !check_bounds(d, map))
        return map->overflow; /* too big a type is skipped, not failed */
    ol_dt_commit(d->dt);
    MPI_Count count = random_between(1, 3);
    if (!full_typemap(d, count, map))
        return true;
    arena_t a = {0};
    MPI_Aint high = 0;
    for (size_t i = 0; i < map->count; i++) {
        MPI_Aint lo = map->blocks[i].offset, hi = lo + (MPI_Aint)map->blocks[i].length;
        a.low = i == 0 || lo < a.low ? lo : a.low;
        high = i == 0 || hi > high ? hi : high;
        a.bytes += map->blocks[i].length;
    }
    a.span = (size_t)(high - a.low);
    if (a.span > MAX_SPAN)
        return true;
    a.low -= 16; /* a margin that must stay untouched */
    a.span += 32;
    a.memory = malloc(a.span);
    a.expected = malloc(a.span);
    a.packed = malloc(a.bytes + 1);
    a.scratch = malloc(a.span > a.bytes ? a.span : a.bytes + 1);
    fill(a.memory, a.span, (unsigned)random_below(256));
    moved += a.bytes > 0;
    void *buf = a.memory - a.low;
    reference_pack(map, &a, a.packed);
    memset(a.scratch, 0, a.bytes);
    ol_dt_pack_all(d->dt, buf, count, a.scratch);
    bool ok = true;
    if (memcmp(a.scratch, a.packed, a.bytes) != 0) {
        fprintf(stderr, "dt_engine: pack_all differs\n");
        failures++;
        ok = false;
    }
    ok = ok && check_cursor_pack(d, count, &a, buf) && check_unpack(d, count, map, &a, buf) &&
         check_elements(d, map, a.bytes);
    free(a.memory);
    free(a.expected);
    free(a.packed);
    free(a.scratch);
    return ok;
}

/* A million-element vector must stay one layout entry, and move fast. */
static bool check_big_vector(void)
{
    const MPI_Count n = 1 << 20;
    ol_datatype_t *dt, *pair = ol_dt_from_handle(MPI_SHORT_INT), *vec_pair;
    ol_dt_create_vector(n, 1, 2, false, ol_dt_from_handle(MPI_DOUBLE), false, &dt);
    ol_dt_create_vector(n, 1, 3, false, pair, false, &vec_pair);
    ol_dt_commit(dt);
    ol_dt_commit(vec_pair);
    CHECK(dt->layout->root->count == 1, "a vector of doubles has %zu entries",
          dt->layout->root->count);
    CHECK(vec_pair->layout->root->count == 1, "a vector of pairs has %zu entries",
          vec_pair->layout->root->count);
    double *src = malloc(2 * (size_t)n * sizeof(double)), *packed = malloc((size_t)n * sizeof(double));
    for (MPI_Count i = 0; i < 2 * n; i++)
        src[i] = (double)i;
    clock_t start = clock();
    ol_dt_pack_all(dt, src, 1, packed);
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    for (MPI_Count i = 0; i < n; i++)
        CHECK(packed[i] == (double)(2 * i), "big vector element %lld", (long long)i);
    printf("dt_engine: packed a vector of 2^20 doubles in %.2f ms\n", seconds * 1e3);
    free(src);
    free(packed);
    ol_dt_free_handle(dt);
    ol_dt_free_handle(vec_pair);
    return true;
}

int main(int argc, char **argv)
{
    unsigned long long seed = argc > 1 ? strtoull(argv[1], NULL, 0) : (unsigned long long)time(NULL);
    int cases = argc > 2 ? atoi(argv[2]) : 2000;
    printf("dt_engine: seed %llu, %d cases (replay: dt_engine %llu %d)\n", seed, cases, seed, cases);
    rng_state = seed;
    typemap_t map = {.blocks = malloc(MAX_BASIC_ELEMENTS * sizeof(block_t))};
    int checked = 0;
    for (int i = 0; i < cases && failures == 0; i++) {
        desc_t *d = random_type(random_between(1, 4));
        if (!check_type(d, &map) && failures)
            fprintf(stderr, "dt_engine: case %d (kind %d) failed\n", i, d->kind);
        checked++;
        free_desc(d);
    }
    check_big_vector();
    free(map.blocks);
    printf("dt_engine: %d cases (%d with data moved), %d failures\n", checked, moved, failures);
    return failures ? 1 : 0;
}
