/* Derived datatypes: construction, commit, reference counting, and the
 * envelope that MPI_Type_get_contents answers from.
 *
 * A constructor computes the bounds from its old types' bounds, records its
 * arguments, and builds the layout node of one element (see README.md):
 * entries that point at the old types' nodes, which stay alive because a
 * type holds a reference to each old type. */
#include "dt_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void (*ol_dt_transport_cache_free)(void *cache) = NULL;

/* A struct of a few blocks used once (reps 1) is copied into its parent
 * rather than referenced: one level less to walk, at a small memory cost. */
#define INLINE_MAX_ENTRIES 16

typedef struct derived {
    ol_datatype_t dt;
    struct ol_dt_layout layout;
} derived_t;

/* ---- reference counting ------------------------------------------------ */

void ol_dt_retain(ol_datatype_t *dt)
{
    if (!dt->predefined)
        __atomic_fetch_add(&dt->refcount, 1, __ATOMIC_RELAXED);
}

void ol_dt_release(ol_datatype_t *dt)
{
    if (!dt->predefined && __atomic_sub_fetch(&dt->refcount, 1, __ATOMIC_ACQ_REL) == 0)
        ol_dt_destroy(dt);
}

void ol_dt_new_handle(ol_datatype_t *dt)
{
    if (dt->predefined)
        return;
    __atomic_fetch_add(&dt->layout->handles, 1, __ATOMIC_RELAXED);
    ol_dt_retain(dt);
}

void ol_dt_free_handle(ol_datatype_t *dt)
{
    __atomic_fetch_sub(&dt->layout->handles, 1, __ATOMIC_RELAXED);
    ol_dt_release(dt);
}

static void free_nodes(ol_dt_node_t *node)
{
    while (node) {
        ol_dt_node_t *next = node->next_owned;
        free(node);
        node = next;
    }
}

void ol_dt_destroy(ol_datatype_t *dt)
{
    struct ol_dt_layout *layout = dt->layout;
    if (dt->transport_cache && ol_dt_transport_cache_free)
        ol_dt_transport_cache_free(dt->transport_cache);
    ol_dt_forget_handle_int(dt);
    for (MPI_Count i = 0; i < layout->env.ntypes; i++)
        ol_dt_release(layout->env.types[i]);
    if (layout->inner)
        ol_dt_release(layout->inner);
    if (layout->parts != &layout->single_part)
        free((void *)layout->parts);
    free_nodes(layout->owned);
    free(layout->env.addrs); /* the start of the envelope's one allocation */
    dt->magic = 0;
    free(dt);
}

static ol_datatype_t *new_derived(int combiner)
{
    derived_t *d = calloc(1, sizeof(*d));
    if (!d)
        return NULL;
    d->dt.magic = OL_DATATYPE_MAGIC;
    d->dt.refcount = 1;
    d->dt.layout = &d->layout;
    d->layout.handles = 1;
    d->layout.env.combiner = combiner;
    d->layout.nparts = 1;
    d->layout.parts = &d->layout.single_part;
    return &d->dt;
}

/* ---- the envelope ------------------------------------------------------ */

/* How an argument appears in get_contents: integer arguments that stay int
 * in the _c forms (ndims, order, distribs ...), and those that become
 * MPI_Count there (counts, blocklengths, int or address displacements). */
enum arg_kind { ARG_INT_ALWAYS, ARG_INT, ARG_ADDR };

typedef struct env_arg {
    enum arg_kind kind;
    MPI_Count n;
    const MPI_Count *values;
} env_arg_t;

static ol_status_t set_envelope(ol_datatype_t *dt, bool large, const env_arg_t *args,
                                size_t nargs, ol_datatype_t *const *types, MPI_Count ntypes)
{
    ol_dt_envelope_t *env = &dt->layout->env;
    for (size_t i = 0; i < nargs; i++) {
        if (args[i].kind == ARG_INT_ALWAYS || (!large && args[i].kind == ARG_INT))
            env->nints += args[i].n;
        else if (large)
            env->ncounts += args[i].n;
        else
            env->naddrs += args[i].n;
    }
    /* One allocation, most strictly aligned arrays first. */
    size_t bytes = (size_t)env->naddrs * sizeof(MPI_Aint) + (size_t)env->ncounts * sizeof(MPI_Count) +
                   (size_t)ntypes * sizeof(ol_datatype_t *) + (size_t)env->nints * sizeof(int);
    char *mem = malloc(bytes ? bytes : 1);
    if (!mem)
        return MPI_ERR_NO_MEM;
    env->addrs = (MPI_Aint *)mem;
    env->counts = (MPI_Count *)(env->addrs + env->naddrs);
    env->types = (ol_datatype_t **)(env->counts + env->ncounts);
    env->ints = (int *)(env->types + ntypes);
    MPI_Count ni = 0, na = 0, nc = 0;
    for (size_t i = 0; i < nargs; i++)
        for (MPI_Count k = 0; k < args[i].n; k++) {
            MPI_Count v = args[i].values[k];
            if (args[i].kind == ARG_INT_ALWAYS || (!large && args[i].kind == ARG_INT))
                env->ints[ni++] = (int)v;
            else if (large)
                env->counts[nc++] = v;
            else
                env->addrs[na++] = (MPI_Aint)v;
        }
    env->ntypes = ntypes;
    for (MPI_Count k = 0; k < ntypes; k++) {
        env->types[k] = types[k];
        ol_dt_retain(types[k]);
    }
    return MPI_SUCCESS;
}

void ol_dt_get_contents(const ol_datatype_t *dt, ol_dt_contents_t *c)
{
    static const struct ol_dt_layout named = {.env = {.combiner = MPI_COMBINER_NAMED}};
    const ol_dt_envelope_t *env = dt->predefined ? &named.env : &dt->layout->env;
    *c = (ol_dt_contents_t){.combiner = env->combiner, .nints = env->nints,
                            .naddrs = env->naddrs, .ncounts = env->ncounts,
                            .ntypes = env->ntypes, .ints = env->ints, .addrs = env->addrs,
                            .counts = env->counts, .types = env->types};
}

/* ---- bounds ------------------------------------------------------------ */

typedef struct bounds {
    MPI_Aint lb, ub, true_lb, true_ub;
    bool any, any_data;
} bounds_t;

/* reps copies of child, child->extent apart, the first at disp. */
static void bounds_add(bounds_t *b, const ol_datatype_t *child, MPI_Aint disp, MPI_Count reps)
{
    if (reps <= 0)
        return;
    MPI_Aint span = (MPI_Aint)(reps - 1) * child->extent;
    MPI_Aint low = disp + (span < 0 ? span : 0), high = disp + (span > 0 ? span : 0);
    MPI_Aint lb = low + child->lb, ub = high + child->lb + child->extent;
    if (!b->any || lb < b->lb)
        b->lb = lb;
    if (!b->any || ub > b->ub)
        b->ub = ub;
    b->any = true;
    if (child->size == 0)
        return;
    MPI_Aint true_lb = low + child->true_lb, true_ub = high + child->true_lb + child->true_extent;
    if (!b->any_data || true_lb < b->true_lb)
        b->true_lb = true_lb;
    if (!b->any_data || true_ub > b->true_ub)
        b->true_ub = true_ub;
    b->any_data = true;
}

static void set_bounds(ol_datatype_t *dt, const bounds_t *b)
{
    dt->lb = b->any ? b->lb : 0;
    dt->extent = b->any ? b->ub - b->lb : 0;
    dt->true_lb = b->any_data ? b->true_lb : 0;
    dt->true_extent = b->any_data ? b->true_ub - b->true_lb : 0;
}

/* ---- the layout node --------------------------------------------------- */

typedef struct builder {
    ol_dt_entry_t *entries;
    size_t count, capacity;
    bool out_of_memory;
} builder_t;

static void push_entry(builder_t *b, const ol_dt_entry_t *e)
{
    if (b->count == b->capacity) {
        size_t capacity = b->capacity ? 2 * b->capacity : 8;
        ol_dt_entry_t *grown = realloc(b->entries, capacity * sizeof(*grown));
        if (!grown) {
            b->out_of_memory = true;
            return;
        }
        b->entries = grown;
        b->capacity = capacity;
    }
    b->entries[b->count++] = *e;
}

/* Joins e to the last entry where the two are one contiguous block, or
 * equal blocks at a regular stride (an indexed type that is a vector). */
static bool merge_entry(builder_t *b, const ol_dt_entry_t *e)
{
    if (b->count == 0 || e->reps != 1)
        return false;
    ol_dt_entry_t *last = &b->entries[b->count - 1];
    if (!last->child && !e->child && last->reps == 1 &&
        last->disp + (MPI_Aint)last->bytes == e->disp) {
        last->bytes += e->bytes;
        return true;
    }
    if (last->child != e->child || last->bytes != e->bytes)
        return false;
    if (last->reps == 1) {
        last->stride = e->disp - last->disp;
        last->reps = 2;
        return true;
    }
    if (e->disp == last->disp + (MPI_Aint)last->reps * last->stride) {
        last->reps++;
        return true;
    }
    return false;
}

static void add_entry(builder_t *b, ol_dt_entry_t e)
{
    if (!e.child && (e.reps == 1 || e.stride == (MPI_Aint)e.bytes)) {
        e.bytes *= (size_t)e.reps;
        e.reps = 1;
    }
    if (!merge_entry(b, &e))
        push_entry(b, &e);
}

/* reps instances of child (NULL: a block of bytes), stride apart, at disp. */
static void add_node(builder_t *b, MPI_Aint disp, MPI_Count reps, MPI_Aint stride,
                     const ol_dt_node_t *child, size_t bytes)
{
    if (reps <= 0 || bytes == 0)
        return;
    if (child && reps == 1 && child->count <= INLINE_MAX_ENTRIES) {
        for (size_t i = 0; i < child->count; i++) {
            const ol_dt_entry_t *c = &child->entries[i];
            add_node(b, disp + c->disp, c->reps, c->stride, c->child, c->bytes);
        }
        return;
    }
    if (child && child->count == 1 && child->entries[0].reps == 1) {
        /* each instance is one instance of the child's only entry */
        disp += child->entries[0].disp;
        child = child->entries[0].child;
    }
    add_entry(b, (ol_dt_entry_t){.disp = disp, .reps = reps, .stride = stride, .child = child,
                                 .bytes = bytes});
}

static void add_type(builder_t *b, MPI_Aint disp, MPI_Count reps, const ol_datatype_t *child)
{
    add_node(b, disp, reps, child->extent, ol_dt_root(child), child->size);
}

/* The node of what b collected, owned by dt; NULL (with no error) when
 * there is no data. */
static ol_status_t finish_node(builder_t *b, ol_datatype_t *dt, const ol_dt_node_t **node)
{
    *node = NULL;
    if (b->out_of_memory) {
        free(b->entries);
        return MPI_ERR_NO_MEM;
    }
    if (b->count == 0)
        return MPI_SUCCESS;
    ol_dt_node_t *n = malloc(sizeof(*n) + b->count * sizeof(ol_dt_entry_t));
    if (!n) {
        free(b->entries);
        return MPI_ERR_NO_MEM;
    }
    ol_dt_entry_t *entries = (ol_dt_entry_t *)(n + 1);
    size_t packed = 0;
    for (size_t i = 0; i < b->count; i++) {
        entries[i] = b->entries[i];
        entries[i].packed_start = packed;
        packed += (size_t)entries[i].reps * entries[i].bytes;
    }
    free(b->entries);
    *n = (ol_dt_node_t){.next_owned = dt->layout->owned, .count = b->count, .size = packed,
                        .entries = entries};
    dt->layout->owned = n;
    *node = n;
    return MPI_SUCCESS;
}

/* ---- what every constructor finishes with ------------------------------ */

static void set_single_part(ol_datatype_t *dt, const ol_datatype_t *oldtype, MPI_Count count)
{
    struct ol_dt_layout *layout = dt->layout;
    layout->single_part = (ol_dt_part_t){oldtype, count};
    layout->elements = count * ol_dt_elements_per(oldtype);
    layout->external32_size = (size_t)count * ol_dt_external32_size_of(oldtype);
    dt->size = (size_t)count * oldtype->size;
}

/* Frees a type whose construction failed part way. */
static ol_status_t abandon(ol_datatype_t *dt, ol_status_t err)
{
    ol_dt_release(dt);
    return err;
}

static ol_status_t finish(ol_datatype_t *dt, builder_t *b, const bounds_t *bounds,
                          ol_datatype_t **newtype)
{
    ol_status_t err = finish_node(b, dt, &dt->layout->root);
    if (err != MPI_SUCCESS)
        return abandon(dt, err);
    set_bounds(dt, bounds);
    *newtype = dt;
    return MPI_SUCCESS;
}

/* ---- constructors -------------------------------------------------------- */

ol_status_t ol_dt_create_contiguous(MPI_Count count, ol_datatype_t *oldtype, bool large,
                                    ol_datatype_t **newtype)
{
    ol_datatype_t *dt = new_derived(MPI_COMBINER_CONTIGUOUS);
    if (!dt)
        return MPI_ERR_NO_MEM;
    env_arg_t args[] = {{ARG_INT, 1, &count}};
    ol_status_t err = set_envelope(dt, large, args, OL_ARRAY_SIZE(args), &oldtype, 1);
    if (err != MPI_SUCCESS)
        return abandon(dt, err);
    set_single_part(dt, oldtype, count);
    builder_t b = {0};
    bounds_t bounds = {0};
    add_type(&b, 0, count, oldtype);
    bounds_add(&bounds, oldtype, 0, count);
    return finish(dt, &b, &bounds, newtype);
}

ol_status_t ol_dt_create_vector(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                bool bytes, ol_datatype_t *oldtype, bool large,
                                ol_datatype_t **newtype)
{
    ol_datatype_t *dt = new_derived(bytes ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR);
    if (!dt)
        return MPI_ERR_NO_MEM;
    env_arg_t args[] = {{ARG_INT, 1, &count}, {ARG_INT, 1, &blocklength},
                        {bytes ? ARG_ADDR : ARG_INT, 1, &stride}};
    ol_status_t err = set_envelope(dt, large, args, OL_ARRAY_SIZE(args), &oldtype, 1);
    if (err != MPI_SUCCESS)
        return abandon(dt, err);
    set_single_part(dt, oldtype, count * blocklength);
    MPI_Aint stride_bytes = bytes ? (MPI_Aint)stride : (MPI_Aint)stride * oldtype->extent;

    /* One entry: count instances of a block node (blocklength old types). */
    builder_t block = {0};
    add_type(&block, 0, blocklength, oldtype);
    const ol_dt_node_t *block_node;
    err = finish_node(&block, dt, &block_node);
    if (err != MPI_SUCCESS)
        return abandon(dt, err);
    builder_t b = {0};
    add_node(&b, 0, count, stride_bytes, block_node, (size_t)blocklength * oldtype->size);

    bounds_t bounds = {0};
    if (count > 0) {
        bounds_add(&bounds, oldtype, 0, blocklength);
        bounds_add(&bounds, oldtype, (MPI_Aint)(count - 1) * stride_bytes, blocklength);
    }
    return finish(dt, &b, &bounds, newtype);
}

static int indexed_combiner(const MPI_Count *blocklengths, bool bytes)
{
    if (blocklengths)
        return bytes ? MPI_COMBINER_HINDEXED : MPI_COMBINER_INDEXED;
    return bytes ? MPI_COMBINER_HINDEXED_BLOCK : MPI_COMBINER_INDEXED_BLOCK;
}

ol_status_t ol_dt_create_indexed(MPI_Count count, const MPI_Count *blocklengths,
                                 MPI_Count blocklength, const MPI_Count *displacements, bool bytes,
                                 ol_datatype_t *oldtype, bool large, ol_datatype_t **newtype)
{
    ol_datatype_t *dt = new_derived(indexed_combiner(blocklengths, bytes));
    if (!dt)
        return MPI_ERR_NO_MEM;
    env_arg_t args[] = {{ARG_INT, 1, &count},
                        {ARG_INT, blocklengths ? count : 1, blocklengths ? blocklengths : &blocklength},
                        {bytes ? ARG_ADDR : ARG_INT, count, displacements}};
    ol_status_t err = set_envelope(dt, large, args, OL_ARRAY_SIZE(args), &oldtype, 1);
    if (err != MPI_SUCCESS)
        return abandon(dt, err);
    builder_t b = {0};
    bounds_t bounds = {0};
    MPI_Count total = 0;
    for (MPI_Count i = 0; i < count; i++) {
        MPI_Count len = blocklengths ? blocklengths[i] : blocklength;
        MPI_Aint disp = bytes ? (MPI_Aint)displacements[i]
                              : (MPI_Aint)displacements[i] * oldtype->extent;
        add_type(&b, disp, len, oldtype);
        bounds_add(&bounds, oldtype, disp, len);
        total += len;
    }
    set_single_part(dt, oldtype, total);
    return finish(dt, &b, &bounds, newtype);
}

/* The standard pads a struct's extent to the alignment of its most aligned
 * member, as a C compiler pads a struct, unless a member has explicitly set
 * bounds (MPI_Type_create_resized), which the user then controls. */
static void pad_struct_extent(ol_datatype_t *dt, bounds_t *bounds, ol_datatype_t *const *types,
                              MPI_Count count)
{
    size_t alignment = 1;
    for (MPI_Count i = 0; i < count; i++) {
        if (types[i]->layout && types[i]->layout->explicit_bounds) {
            dt->layout->explicit_bounds = true;
            return;
        }
        size_t a = ol_dt_alignment(types[i]);
        alignment = a > alignment ? a : alignment;
    }
    dt->layout->alignment = alignment;
    MPI_Aint extent = bounds->ub - bounds->lb;
    MPI_Aint rest = extent % (MPI_Aint)alignment;
    if (bounds->any && rest != 0)
        bounds->ub += (MPI_Aint)alignment - rest;
}

static ol_status_t set_struct_parts(ol_datatype_t *dt, MPI_Count count,
                                    const MPI_Count *blocklengths, ol_datatype_t *const *types)
{
    struct ol_dt_layout *layout = dt->layout;
    ol_dt_part_t *parts = malloc((size_t)(count ? count : 1) * sizeof(*parts));
    if (!parts)
        return MPI_ERR_NO_MEM;
    for (MPI_Count i = 0; i < count; i++) {
        parts[i] = (ol_dt_part_t){types[i], blocklengths[i]};
        layout->elements += blocklengths[i] * ol_dt_elements_per(types[i]);
        layout->external32_size += (size_t)blocklengths[i] * ol_dt_external32_size_of(types[i]);
        dt->size += (size_t)blocklengths[i] * types[i]->size;
    }
    layout->parts = parts;
    layout->nparts = (size_t)count;
    return MPI_SUCCESS;
}

ol_status_t ol_dt_create_struct(MPI_Count count, const MPI_Count *blocklengths,
                                const MPI_Count *displacements, ol_datatype_t *const *types,
                                bool large, ol_datatype_t **newtype)
{
    ol_datatype_t *dt = new_derived(MPI_COMBINER_STRUCT);
    if (!dt)
        return MPI_ERR_NO_MEM;
    env_arg_t args[] = {{ARG_INT, 1, &count}, {ARG_INT, count, blocklengths},
                        {ARG_ADDR, count, displacements}};
    ol_status_t err = set_envelope(dt, large, args, OL_ARRAY_SIZE(args), types, count);
    if (err == MPI_SUCCESS)
        err = set_struct_parts(dt, count, blocklengths, types);
    if (err != MPI_SUCCESS)
        return abandon(dt, err);
    builder_t b = {0};
    bounds_t bounds = {0};
    for (MPI_Count i = 0; i < count; i++) {
        add_type(&b, (MPI_Aint)displacements[i], blocklengths[i], types[i]);
        bounds_add(&bounds, types[i], (MPI_Aint)displacements[i], blocklengths[i]);
    }
    pad_struct_extent(dt, &bounds, types, count);
    return finish(dt, &b, &bounds, newtype);
}

/* A type with oldtype's data where oldtype has it (resized, dup, and the
 * types that subarray and darray build). */
static ol_datatype_t *new_same_data(int combiner, ol_datatype_t *oldtype)
{
    ol_datatype_t *dt = new_derived(combiner);
    if (!dt)
        return NULL;
    dt->layout->root = ol_dt_root(oldtype);
    dt->layout->alignment = ol_dt_alignment(oldtype);
    dt->layout->explicit_bounds = oldtype->layout && oldtype->layout->explicit_bounds;
    dt->true_lb = oldtype->true_lb;
    dt->true_extent = oldtype->true_extent;
    dt->lb = oldtype->lb;
    dt->extent = oldtype->extent;
    return dt;
}

ol_status_t ol_dt_create_resized(ol_datatype_t *oldtype, MPI_Count lb, MPI_Count extent,
                                 bool large, ol_datatype_t **newtype)
{
    ol_datatype_t *dt = new_same_data(MPI_COMBINER_RESIZED, oldtype);
    if (!dt)
        return MPI_ERR_NO_MEM;
    env_arg_t args[] = {{ARG_ADDR, 1, &lb}, {ARG_ADDR, 1, &extent}};
    ol_status_t err = set_envelope(dt, large, args, OL_ARRAY_SIZE(args), &oldtype, 1);
    if (err != MPI_SUCCESS)
        return abandon(dt, err);
    set_single_part(dt, oldtype, 1);
    dt->lb = (MPI_Aint)lb;
    dt->extent = (MPI_Aint)extent;
    dt->layout->explicit_bounds = true;
    *newtype = dt;
    return MPI_SUCCESS;
}

ol_status_t ol_dt_create_dup(ol_datatype_t *oldtype, ol_datatype_t **newtype)
{
    ol_datatype_t *dt = new_same_data(MPI_COMBINER_DUP, oldtype);
    if (!dt)
        return MPI_ERR_NO_MEM;
    ol_status_t err = set_envelope(dt, false, NULL, 0, &oldtype, 1);
    if (err != MPI_SUCCESS)
        return abandon(dt, err);
    set_single_part(dt, oldtype, 1);
    if (oldtype->committed)
        ol_dt_commit(dt);
    *newtype = dt;
    return MPI_SUCCESS;
}

/* The type of MPI_Type_create_f90_real/complex/integer: the named type's
 * data and bounds under an envelope that names the call and its arguments
 * (p and r; r alone for integers), with no old types (MPI-4.1 5.1.13).
 * inner keeps the named type for ol_dt_basic_type. */
ol_status_t ol_dt_create_f90(int combiner, int p, int r, ol_datatype_t *named,
                             ol_datatype_t **newtype)
{
    ol_datatype_t *dt = new_same_data(combiner, named);
    if (!dt)
        return MPI_ERR_NO_MEM;
    const MPI_Count precision = p, range = r;
    env_arg_t real_args[] = {{ARG_INT_ALWAYS, 1, &precision}, {ARG_INT_ALWAYS, 1, &range}};
    env_arg_t integer_args[] = {{ARG_INT_ALWAYS, 1, &range}};
    bool integer = combiner == MPI_COMBINER_F90_INTEGER;
    ol_status_t err = set_envelope(dt, false, integer ? integer_args : real_args,
                                   integer ? OL_ARRAY_SIZE(integer_args) : OL_ARRAY_SIZE(real_args),
                                   NULL, 0);
    if (err != MPI_SUCCESS)
        return abandon(dt, err);
    set_single_part(dt, named, 1);
    dt->layout->inner = named;
    snprintf(dt->name, sizeof(dt->name), "%s", named->name);
    ol_dt_commit(dt);
    *newtype = dt;
    return MPI_SUCCESS;
}

bool ol_dt_is_f90(const ol_datatype_t *dt)
{
    int combiner = dt->predefined ? MPI_COMBINER_NAMED : dt->layout->env.combiner;
    return combiner == MPI_COMBINER_F90_REAL || combiner == MPI_COMBINER_F90_COMPLEX ||
           combiner == MPI_COMBINER_F90_INTEGER;
}

const ol_datatype_t *ol_dt_basic_type(const ol_datatype_t *dt)
{
    if (dt->predefined)
        return dt;
    if (ol_dt_is_f90(dt))
        return dt->layout->inner;
    ol_dt_contents_t c;
    ol_dt_get_contents(dt, &c);
    const ol_datatype_t *basic = NULL;
    for (MPI_Count k = 0; k < c.ntypes; k++) {
        const ol_datatype_t *b = ol_dt_basic_type(c.types[k]);
        if (!b || (basic && b != basic))
            return NULL;
        basic = b;
    }
    return basic;
}

ol_status_t ol_dt_wrap_array_type(int combiner, ol_datatype_t *inner, ol_datatype_t *oldtype,
                                  bool large, const ol_dt_array_args_t *a,
                                  ol_datatype_t **newtype)
{
    ol_datatype_t *dt = new_same_data(combiner, inner);
    if (!dt) {
        ol_dt_release(inner);
        return MPI_ERR_NO_MEM;
    }
    dt->layout->inner = inner;
    const MPI_Count nd = a->ndims;
    env_arg_t subarray_args[] = {{ARG_INT_ALWAYS, 1, &nd}, {ARG_INT, nd, a->sizes},
                                 {ARG_INT, nd, a->subsizes}, {ARG_INT, nd, a->starts},
                                 {ARG_INT_ALWAYS, 1, &a->order}};
    env_arg_t darray_args[] = {{ARG_INT_ALWAYS, 1, &a->size}, {ARG_INT_ALWAYS, 1, &a->rank},
                               {ARG_INT_ALWAYS, 1, &nd}, {ARG_INT, nd, a->sizes},
                               {ARG_INT_ALWAYS, nd, a->distribs}, {ARG_INT_ALWAYS, nd, a->dargs},
                               {ARG_INT_ALWAYS, nd, a->psizes}, {ARG_INT_ALWAYS, 1, &a->order}};
    ol_status_t err = combiner == MPI_COMBINER_SUBARRAY
                          ? set_envelope(dt, large, subarray_args, OL_ARRAY_SIZE(subarray_args),
                                         &oldtype, 1)
                          : set_envelope(dt, large, darray_args, OL_ARRAY_SIZE(darray_args),
                                         &oldtype, 1);
    if (err != MPI_SUCCESS)
        return abandon(dt, err);
    set_single_part(dt, oldtype, oldtype->size ? (MPI_Count)(inner->size / oldtype->size) : 0);
    *newtype = dt;
    return MPI_SUCCESS;
}

/* ---- commit ------------------------------------------------------------ */

/* count elements are one block of count * size bytes at buf + true_lb when
 * an element's data is one block and elements follow each other without a
 * gap. */
void ol_dt_commit(ol_datatype_t *dt)
{
    if (dt->predefined)
        return;
    const ol_dt_node_t *root = dt->layout->root;
    bool one_block = !root || (root->count == 1 && !root->entries[0].child &&
                               root->entries[0].reps == 1);
    dt->contiguous = dt->size == 0 || (one_block && (MPI_Aint)dt->size == dt->extent);
    dt->committed = true;
}
