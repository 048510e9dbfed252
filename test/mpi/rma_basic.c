/* rma_basic: MPI_Put and MPI_Get in every window flavor and every
 * synchronisation mode, with contiguous and derived datatypes on either side.
 *
 * Cases are named FLAVOR/SYNC/PATTERN (PATTERN: ring, all):
 *   FLAVOR: create1, create8 (MPI_Win_create, disp_unit 1 and 8), allocate1,
 *           allocate8 (MPI_Win_allocate), shared1, shared8
 *           (MPI_Win_allocate_shared, only when every rank is on one host),
 *           dynamic (MPI_Win_create_dynamic + attach/detach, addresses from
 *           MPI_Get_address exchanged as MPI_Aint)
 *   SYNC:   fence, fence_assert (NOPRECEDE / NOSTORE|NOPUT|NOSUCCEED), pscw,
 *           pscw_test (MPI_Win_test loop instead of MPI_Win_wait),
 *           lock_shared, lock_excl (MPI_Win_lock/unlock per target),
 *           lock_all, flush, flush_all (remote completion checked by the
 *           target inside the epoch), flush_local, flush_local_all (the origin
 *           buffer is overwritten right after the local flush, or read in the
 *           case of a get)
 * Optional arguments name the cases to run: a whole name or some of its
 * components ("fence", "ring", "dynamic/all").
 *
 * Each case runs two rounds, Put then Get, in its pattern: ring (rank r
 * accesses rank r+1) or all (every rank accesses every rank, itself
 * included). In a round, each origin transfers
 * every "pairing" below to its own slot at the target, all in one epoch:
 *
 *   origin                 target
 *   13 x MPI_INT           13 x MPI_INT          (odd contiguous)
 *   3 x vector(3,2,3,int)  18 x MPI_INT          (vector at the origin)
 *   18 x MPI_INT           3 x vector(3,2,3,int) (vector at the target)
 *   3 x indexed            3 x struct of ints with gaps
 *   1 x contiguous(6,int)  1 x indexed (blocks out of order)
 *   5 x struct{int,double,short} with gaps   5 x the same packed (extent 14)
 *   3 x the packed struct  3 x struct with its fields out of order
 *   7 x MPI_BYTE           7 x MPI_BYTE
 *   0 x MPI_INT            0 x MPI_INT           (nothing moves)
 *   1 x MPI_DOUBLE         1 x MPI_DOUBLE
 *
 * With disp_unit 1 every target offset is 4 mod 8 (ints aligned, doubles
 * not). The test keeps a byte-level model of each type's map (written by
 * hand next to the constructor) and checks every byte of the target window
 * (after a put) or of the origin buffer (after a get), including the bytes
 * between and around the transferred elements, and for create and dynamic
 * windows 64 bytes on either side of the exposed memory.
 *
 * Progress: ompi-lite progresses passive-target operations inside MPI calls
 * of the target, so every target waits for its origins in an MPI call
 * (MPI_Barrier, MPI_Win_wait/test, MPI_Win_unlock_all); nothing spins on
 * memory. */
#include "rma_util.h"

#include <stdint.h>

#define MAXB 8 /* basic elements per layout element */

struct layout {
    const char *name;
    MPI_Datatype type;
    int nb;        /* basic elements in one element */
    int off[MAXB]; /* their byte offsets, in type map order */
    int sz[MAXB];  /* their sizes */
    int extent;
};

enum { L_INT, L_BYTE, L_DOUBLE, L_CONTIG6, L_VEC, L_IDX, L_ISTRUCT, L_MGAP, L_MPACK, L_MGAP2, NL };
static struct layout lay[NL];

struct pairing {
    int olay, ocount, tlay, tcount;
};
static const struct pairing pairs[] = {
    {L_INT, 13, L_INT, 13},     {L_VEC, 3, L_INT, 18},    {L_INT, 18, L_VEC, 3},
    {L_IDX, 3, L_ISTRUCT, 3},   {L_CONTIG6, 1, L_IDX, 1}, {L_MGAP, 5, L_MPACK, 5},
    {L_MPACK, 3, L_MGAP2, 3},   {L_BYTE, 7, L_BYTE, 7},   {L_INT, 0, L_INT, 0},
    {L_DOUBLE, 1, L_DOUBLE, 1},
};
#define NP ((int)(sizeof pairs / sizeof pairs[0]))

static void commit(MPI_Datatype *t)
{
    CHECK(MPI_Type_commit(t));
}

static void set_basic(int l, const char *name, MPI_Datatype t, int size)
{
    lay[l] = (struct layout){name, t, 1, {0}, {size}, size};
}

static MPI_Datatype resized(MPI_Datatype t, int extent)
{
    MPI_Datatype r;
    CHECK(MPI_Type_create_resized(t, 0, extent, &r));
    MPI_Type_free(&t);
    commit(&r);
    return r;
}

static MPI_Datatype mstruct(const int off[3], int extent)
{
    int bl[3] = {1, 1, 1};
    MPI_Aint d[3] = {off[0], off[1], off[2]};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_SHORT}, t;
    CHECK(MPI_Type_create_struct(3, bl, d, types, &t));
    return resized(t, extent);
}

static void make_layouts(void)
{
    set_basic(L_INT, "MPI_INT", MPI_INT, 4);
    set_basic(L_BYTE, "MPI_BYTE", MPI_BYTE, 1);
    set_basic(L_DOUBLE, "MPI_DOUBLE", MPI_DOUBLE, 8);

    struct layout *c = &lay[L_CONTIG6];
    *c = (struct layout){"contiguous(6,int)",   MPI_DATATYPE_NULL,  6,
                         {0, 4, 8, 12, 16, 20}, {4, 4, 4, 4, 4, 4}, 24};
    CHECK(MPI_Type_contiguous(6, MPI_INT, &c->type));
    commit(&c->type);

    /* ints 0,1, 3,4, 6,7: extent ((3-1)*3+2)*4 = 32 */
    struct layout *v = &lay[L_VEC];
    *v = (struct layout){"vector(3,2,3,int)",    MPI_DATATYPE_NULL,  6,
                         {0, 4, 12, 16, 24, 28}, {4, 4, 4, 4, 4, 4}, 32};
    CHECK(MPI_Type_vector(3, 2, 3, MPI_INT, &v->type));
    commit(&v->type);

    /* blocks {1 at int 5, 3 at int 0, 2 at int 10}: map order 5,0,1,2,10,11;
     * lb 0, ub 48 */
    struct layout *x = &lay[L_IDX];
    *x = (struct layout){"indexed({1,3,2},{5,0,10})", MPI_DATATYPE_NULL,  6,
                         {20, 0, 4, 8, 40, 44},       {4, 4, 4, 4, 4, 4}, 48};
    int ibl[3] = {1, 3, 2}, idi[3] = {5, 0, 10};
    CHECK(MPI_Type_indexed(3, ibl, idi, MPI_INT, &x->type));
    commit(&x->type);

    /* 2 ints at byte 4, 4 ints at byte 20, resized to [0, 40) */
    struct layout *s = &lay[L_ISTRUCT];
    *s = (struct layout){"struct(2 int @4, 4 int @20) extent 40",
                         MPI_DATATYPE_NULL,
                         6,
                         {4, 8, 20, 24, 28, 32},
                         {4, 4, 4, 4, 4, 4},
                         40};
    {
        int bl[2] = {2, 4};
        MPI_Aint d[2] = {4, 20};
        MPI_Datatype ty[2] = {MPI_INT, MPI_INT}, t;
        CHECK(MPI_Type_create_struct(2, bl, d, ty, &t));
        s->type = resized(t, 40);
    }

    /* struct {int @0, double @8, short @20} extent 24 */
    static const int g[3] = {0, 8, 20}, p[3] = {0, 4, 12}, g2[3] = {16, 0, 10};
    lay[L_MGAP] = (struct layout){
        "struct{int@0,double@8,short@20} extent 24", mstruct(g, 24), 3, {0, 8, 20}, {4, 8, 2}, 24};
    lay[L_MPACK] = (struct layout){
        "struct{int@0,double@4,short@12} extent 14", mstruct(p, 14), 3, {0, 4, 12}, {4, 8, 2}, 14};
    lay[L_MGAP2] = (struct layout){"struct{int@16,double@0,short@10} extent 32",
                                   mstruct(g2, 32),
                                   3,
                                   {16, 0, 10},
                                   {4, 8, 2},
                                   32};

    /* The test's own consistency: each pairing has one signature. */
    for (int p = 0; p < NP; p++) {
        const struct layout *o = &lay[pairs[p].olay], *t = &lay[pairs[p].tlay];
        if (o->nb * pairs[p].ocount != t->nb * pairs[p].tcount)
            rma_fail("test bug: pairing %d has different element counts", p);
        for (int k = 0; k < o->nb * pairs[p].ocount; k++)
            if (o->sz[k % o->nb] != t->sz[k % t->nb])
                rma_fail("test bug: pairing %d: signatures differ at element %d", p, k);
        int osize, tsize;
        MPI_Type_size(o->type, &osize);
        MPI_Type_size(t->type, &tsize);
        if (osize * pairs[p].ocount != tsize * pairs[p].tcount)
            rma_fail("pairing %d: MPI_Type_size %d x %d != %d x %d", p, osize, pairs[p].ocount,
                     tsize, pairs[p].tcount);
    }
}

/* Bytes spanned by count elements of layout l. */
static int footprint(int l, int count)
{
    if (count == 0)
        return 0;
    int end = 0;
    for (int k = 0; k < lay[l].nb; k++)
        if (lay[l].off[k] + lay[l].sz[k] > end)
            end = lay[l].off[k] + lay[l].sz[k];
    return (count - 1) * lay[l].extent + end;
}

/* Byte offset of basic element k of count elements of layout l. */
static int elem_off(int l, int k)
{
    return (k / lay[l].nb) * lay[l].extent + lay[l].off[k % lay[l].nb];
}

static int elem_size(int l, int k)
{
    return lay[l].sz[k % lay[l].nb];
}

static int nelem(int l, int count)
{
    return lay[l].nb * count;
}

/* Data patterns: target memory, put data, initial get buffers. */
static unsigned char tfill(int t, long i)
{
    return (unsigned char)(0xC3 ^ (t * 29 + i * 7));
}
static unsigned char ofill(int o, int t, int p, long j)
{
    return (unsigned char)(o * 37 + t * 11 + p * 53 + j * 5 + 1);
}
static unsigned char gfill(int o, int t, int p, long j)
{
    return (unsigned char)(0x3C ^ (o * 5 + t * 13 + p * 3 + j * 11));
}

#define GUARD 16 /* window bytes before the first slot and after the last */
#define OUTER 64 /* bytes outside the window checked for create and dynamic */

enum { FL_CREATE, FL_ALLOCATE, FL_SHARED, FL_DYNAMIC };
static const char *flavor_names[] = {"create", "allocate", "shared", "dynamic"};

enum {
    S_FENCE,
    S_FENCE_ASSERT,
    S_PSCW,
    S_PSCW_TEST,
    S_LOCK_SHARED,
    S_LOCK_EXCL,
    S_LOCK_ALL,
    S_FLUSH,
    S_FLUSH_ALL,
    S_FLUSH_LOCAL,
    S_FLUSH_LOCAL_ALL,
    NS
};
static const char *sync_names[] = {"fence",       "fence_assert", "pscw",           "pscw_test",
                                   "lock_shared", "lock_excl",    "lock_all",       "flush",
                                   "flush_all",   "flush_local",  "flush_local_all"};

enum { PAT_RING, PAT_ALL };
static const char *pat_names[] = {"ring", "all-to-all"};

/* One case: the window and its layout of slots. */
struct ctx {
    int flavor, du, sync, pat;
    MPI_Win win;
    unsigned char *mem;  /* what the test allocated (create, dynamic) */
    unsigned char *base; /* the window's memory at this rank */
    long outer;          /* checked bytes outside the window on either side */
    long win_bytes, slot, oslot;
    long toff[NP], ooff[NP];
    MPI_Aint *dyn_base;  /* dynamic: every rank's attached address */
    unsigned char *obuf; /* nprocs origin regions of oslot bytes */
    unsigned char *expect;
    int *owner; /* per expected byte: pairing*1000000 + origin*1000 + element, or -1 */
    MPI_Group origins, targets;
};

static int is_target_of(const struct ctx *c, int origin, int target)
{
    return c->pat == PAT_ALL || target == (origin + 1) % nprocs;
}

static void layout_slots(struct ctx *c)
{
    int mis = c->du == 1 ? 4 : 0;
    long at = 0, oat = 0;
    for (int p = 0; p < NP; p++) {
        c->toff[p] = at + mis;
        at += (footprint(pairs[p].tlay, pairs[p].tcount) + mis + 7) / 8 * 8 + 8;
        c->ooff[p] = oat + 8;
        oat += (footprint(pairs[p].olay, pairs[p].ocount) + 7) / 8 * 8 + 16;
    }
    c->slot = at;
    c->oslot = oat + 8;
    c->win_bytes = GUARD + nprocs * c->slot + GUARD;
}

/* Target byte offset in the window of origin o's pairing p. */
static long target_byte(const struct ctx *c, int o, int p)
{
    return GUARD + o * c->slot + c->toff[p];
}

static MPI_Aint target_disp(const struct ctx *c, int t, int p)
{
    long b = target_byte(c, rank, p);
    if (c->flavor == FL_DYNAMIC)
        return MPI_Aint_add(c->dyn_base[t], b);
    if (b % c->du)
        rma_fail("test bug: offset %ld not a multiple of disp_unit %d", b, c->du);
    return b / c->du;
}

static void make_window(struct ctx *c)
{
    MPI_Info info = MPI_INFO_NULL;
    layout_slots(c);
    c->outer = (c->flavor == FL_CREATE || c->flavor == FL_DYNAMIC) ? OUTER : 0;
    c->dyn_base = NULL;
    c->mem = NULL;
    switch (c->flavor) {
    case FL_CREATE:
        c->mem = malloc(c->win_bytes + 2 * OUTER);
        c->base = c->mem + OUTER;
        CHECK(MPI_Win_create(c->base, c->win_bytes, c->du, MPI_INFO_NULL, MPI_COMM_WORLD, &c->win));
        break;
    case FL_ALLOCATE:
        CHECK(MPI_Win_allocate(c->win_bytes, c->du, info, MPI_COMM_WORLD, &c->base, &c->win));
        break;
    case FL_SHARED:
        CHECK(
            MPI_Win_allocate_shared(c->win_bytes, c->du, info, MPI_COMM_WORLD, &c->base, &c->win));
        break;
    case FL_DYNAMIC: {
        c->mem = malloc(c->win_bytes + 2 * OUTER);
        c->base = c->mem + OUTER;
        CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &c->win));
        CHECK(MPI_Win_attach(c->win, c->base, c->win_bytes));
        MPI_Aint mine;
        CHECK(MPI_Get_address(c->base, &mine));
        c->dyn_base = malloc(sizeof(MPI_Aint) * nprocs);
        CHECK(MPI_Allgather(&mine, 1, MPI_AINT, c->dyn_base, 1, MPI_AINT, MPI_COMM_WORLD));
        break;
    }
    }
    CHECK(MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN));
    c->obuf = malloc(nprocs * c->oslot);
    long total = c->win_bytes + 2 * c->outer;
    if ((long)nprocs * c->oslot > total)
        total = (long)nprocs * c->oslot;
    c->expect = malloc(total);
    c->owner = malloc(total * sizeof(int));

    /* PSCW groups: who accesses me, whom I access. */
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int *o = malloc(sizeof(int) * nprocs), *t = malloc(sizeof(int) * nprocs), no = 0, nt = 0;
    for (int r = 0; r < nprocs; r++) {
        if (is_target_of(c, r, rank))
            o[no++] = r;
        if (is_target_of(c, rank, r))
            t[nt++] = r;
    }
    MPI_Group_incl(world, no, o, &c->origins);
    MPI_Group_incl(world, nt, t, &c->targets);
    MPI_Group_free(&world);
    free(o);
    free(t);
}

static void free_window(struct ctx *c)
{
    if (c->flavor == FL_DYNAMIC) {
        CHECK(MPI_Win_detach(c->win, c->base));
        free(c->dyn_base);
    }
    CHECK(MPI_Win_free(&c->win));
    if (c->win != MPI_WIN_NULL)
        rma_fail("MPI_Win_free left the handle set");
    free(c->mem);
    free(c->obuf);
    free(c->expect);
    free(c->owner);
    MPI_Group_free(&c->origins);
    MPI_Group_free(&c->targets);
}

/* The bytes of this rank's window and around it: index 0 is c->outer bytes
 * before the window. */
static void fill_target(struct ctx *c)
{
    unsigned char *m = c->base - c->outer;
    for (long i = 0; i < c->win_bytes + 2 * c->outer; i++)
        m[i] = tfill(rank, i);
}

static void fill_origin(struct ctx *c, int is_put)
{
    memset(c->obuf, 0x77, nprocs * c->oslot);
    for (int t = 0; t < nprocs; t++)
        for (int p = 0; p < NP; p++) {
            long n = footprint(pairs[p].olay, pairs[p].ocount) + 8;
            unsigned char *o = c->obuf + t * c->oslot + c->ooff[p] - 4;
            for (long j = 0; j < n; j++)
                o[j] = is_put ? ofill(rank, t, p, j) : gfill(rank, t, p, j);
        }
}

static void clobber_origin(struct ctx *c)
{
    memset(c->obuf, 0xEE, nprocs * c->oslot);
}

static void describe_owner(int who, char *buf, size_t len)
{
    if (who < 0)
        snprintf(buf, len, "a byte no operation may touch");
    else {
        int p = who / 1000000, o = who / 1000 % 1000, k = who % 1000;
        snprintf(buf, len, "element %d of pairing %d (%d x %s -> %d x %s) from origin %d", k, p,
                 pairs[p].ocount, lay[pairs[p].olay].name, pairs[p].tcount, lay[pairs[p].tlay].name,
                 o);
    }
}

static const char *round_name(const struct ctx *c, int is_put)
{
    static char buf[160];
    snprintf(buf, sizeof buf, "%s %s, %s, disp_unit %d, %d ranks", is_put ? "MPI_Put" : "MPI_Get",
             pat_names[c->pat], sync_names[c->sync], c->du, nprocs);
    return buf;
}

/* Target side: the window (and the outer bytes) hold the fill pattern,
 * overwritten by every put aimed at this rank. */
static void check_target(struct ctx *c, int is_put)
{
    long total = c->win_bytes + 2 * c->outer;
    for (long i = 0; i < total; i++) {
        c->expect[i] = tfill(rank, i);
        c->owner[i] = -1;
    }
    if (is_put)
        for (int o = 0; o < nprocs; o++) {
            if (!is_target_of(c, o, rank))
                continue;
            for (int p = 0; p < NP; p++) {
                const struct pairing *pp = &pairs[p];
                long tb = c->outer + target_byte(c, o, p);
                for (int k = 0; k < nelem(pp->tlay, pp->tcount); k++) {
                    long to = tb + elem_off(pp->tlay, k);
                    long from = 4 + elem_off(pp->olay, k); /* origin region starts 4 early */
                    for (int b = 0; b < elem_size(pp->tlay, k); b++) {
                        c->expect[to + b] = ofill(o, rank, p, from + b);
                        c->owner[to + b] = p * 1000000 + o * 1000 + k;
                    }
                }
            }
        }
    const unsigned char *m = c->base - c->outer;
    for (long i = 0; i < total; i++)
        if (m[i] != c->expect[i]) {
            char who[256];
            describe_owner(c->owner[i], who, sizeof who);
            rma_fail("%s: target memory byte %ld (window offset %ld) = 0x%02x, expected 0x%02x "
                     "(%s)",
                     round_name(c, is_put), i, i - c->outer, m[i], c->expect[i], who);
        }
}

/* Origin side of a get: each region holds its initial pattern except the
 * elements read from the target. */
static void check_origin_get(struct ctx *c)
{
    for (int t = 0; t < nprocs; t++) {
        if (!is_target_of(c, rank, t))
            continue;
        for (int p = 0; p < NP; p++) {
            const struct pairing *pp = &pairs[p];
            long n = footprint(pp->olay, pp->ocount) + 8;
            unsigned char *o = c->obuf + t * c->oslot + c->ooff[p] - 4;
            for (long j = 0; j < n; j++) {
                c->expect[j] = gfill(rank, t, p, j);
                c->owner[j] = -1;
            }
            long tb = c->outer + target_byte(c, rank, p);
            for (int k = 0; k < nelem(pp->olay, pp->ocount); k++) {
                long to = 4 + elem_off(pp->olay, k);
                long from = tb + elem_off(pp->tlay, k);
                for (int b = 0; b < elem_size(pp->olay, k); b++) {
                    c->expect[to + b] = tfill(t, from + b);
                    c->owner[to + b] = p * 1000000 + t * 1000 + k;
                }
            }
            for (long j = 0; j < n; j++)
                if (o[j] != c->expect[j]) {
                    char who[256];
                    describe_owner(c->owner[j], who, sizeof who);
                    rma_fail("%s: from target %d, origin buffer byte %ld of pairing %d = 0x%02x, "
                             "expected 0x%02x (%s; 'origin' there means the target read)",
                             round_name(c, 0), t, j - 4, p, o[j], c->expect[j], who);
                }
        }
    }
}

static void issue_ops(struct ctx *c, int t, int is_put)
{
    for (int p = 0; p < NP; p++) {
        const struct pairing *pp = &pairs[p];
        void *o = c->obuf + t * c->oslot + c->ooff[p];
        MPI_Aint d = target_disp(c, t, p);
        if (is_put)
            check(MPI_Put(o, pp->ocount, lay[pp->olay].type, t, d, pp->tcount, lay[pp->tlay].type,
                          c->win),
                  "MPI_Put");
        else
            check(MPI_Get(o, pp->ocount, lay[pp->olay].type, t, d, pp->tcount, lay[pp->tlay].type,
                          c->win),
                  "MPI_Get");
    }
}

static void issue_all(struct ctx *c, int is_put)
{
    for (int i = 1; i <= nprocs; i++) {
        int t = (rank + i) % nprocs; /* start with the next rank, end with self */
        if (is_target_of(c, rank, t))
            issue_ops(c, t, is_put);
    }
}

/* Local access to this rank's window memory between passive-target rounds:
 * inside a lock of itself. */
static void lock_self(struct ctx *c, int type)
{
    CHECK(MPI_Win_lock(type, rank, 0, c->win));
    CHECK(MPI_Win_sync(c->win));
}

static void unlock_self(struct ctx *c)
{
    CHECK(MPI_Win_sync(c->win));
    CHECK(MPI_Win_unlock(rank, c->win));
}

static void round_active(struct ctx *c, int is_put)
{
    fill_target(c);
    fill_origin(c, is_put);
    switch (c->sync) {
    case S_FENCE:
    case S_FENCE_ASSERT: {
        int a = c->sync == S_FENCE_ASSERT;
        CHECK(MPI_Win_fence(a ? MPI_MODE_NOPRECEDE : 0, c->win));
        issue_all(c, is_put);
        CHECK(
            MPI_Win_fence(a ? MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOSUCCEED : 0, c->win));
        break;
    }
    case S_PSCW:
    case S_PSCW_TEST:
        CHECK(MPI_Win_post(c->origins, 0, c->win));
        CHECK(MPI_Win_start(c->targets, 0, c->win));
        issue_all(c, is_put);
        CHECK(MPI_Win_complete(c->win));
        if (c->sync == S_PSCW)
            CHECK(MPI_Win_wait(c->win));
        else {
            int flag = 0;
            long tries = 0;
            while (!flag) {
                CHECK(MPI_Win_test(c->win, &flag)); /* an MPI call: progress */
                tries++;
            }
            /* MPI_Win_test once more would be erroneous: the epoch is over. */
            (void)tries;
        }
        break;
    }
    check_target(c, is_put);
    if (!is_put)
        check_origin_get(c);
}

static void round_passive(struct ctx *c, int is_put)
{
    lock_self(c, MPI_LOCK_EXCLUSIVE);
    fill_target(c);
    unlock_self(c);
    fill_origin(c, is_put);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    int checked = 0;
    switch (c->sync) {
    case S_LOCK_SHARED:
    case S_LOCK_EXCL:
        for (int i = 1; i <= nprocs; i++) {
            int t = (rank + i) % nprocs;
            if (!is_target_of(c, rank, t))
                continue;
            CHECK(MPI_Win_lock(c->sync == S_LOCK_EXCL ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, 0,
                               c->win));
            issue_ops(c, t, is_put);
            CHECK(MPI_Win_unlock(t, c->win));
        }
        break;
    case S_LOCK_ALL:
        CHECK(MPI_Win_lock_all(0, c->win));
        issue_all(c, is_put);
        CHECK(MPI_Win_unlock_all(c->win));
        break;
    case S_FLUSH:
    case S_FLUSH_ALL:
        /* Remote completion: once the origins have flushed and met in the
         * barrier, each target sees the data (after MPI_Win_sync) while
         * the epoch is still open. */
        CHECK(MPI_Win_lock_all(0, c->win));
        issue_all(c, is_put);
        if (c->sync == S_FLUSH_ALL)
            CHECK(MPI_Win_flush_all(c->win));
        else
            for (int t = 0; t < nprocs; t++)
                if (is_target_of(c, rank, t))
                    CHECK(MPI_Win_flush(t, c->win));
        if (!is_put)
            check_origin_get(c);
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(MPI_Win_sync(c->win));
        check_target(c, is_put);
        checked = 1;
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        CHECK(MPI_Win_unlock_all(c->win));
        break;
    case S_FLUSH_LOCAL:
    case S_FLUSH_LOCAL_ALL:
        /* Local completion: a put's origin buffer may be reused at once
         * (the target must still get the old data), a get's data is there. */
        CHECK(MPI_Win_lock_all(0, c->win));
        issue_all(c, is_put);
        if (c->sync == S_FLUSH_LOCAL_ALL)
            CHECK(MPI_Win_flush_local_all(c->win));
        else
            for (int t = 0; t < nprocs; t++)
                if (is_target_of(c, rank, t))
                    CHECK(MPI_Win_flush_local(t, c->win));
        if (is_put)
            clobber_origin(c);
        else
            check_origin_get(c);
        CHECK(MPI_Win_unlock_all(c->win));
        break;
    }
    if (!is_put && !checked)
        check_origin_get(c);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (!checked) {
        lock_self(c, MPI_LOCK_SHARED);
        check_target(c, is_put);
        unlock_self(c);
    }
}

static void run_case(int flavor, int du, int sync)
{
    for (int pat = PAT_RING; pat <= PAT_ALL; pat++) {
        char name[64];
        if (flavor == FL_DYNAMIC)
            snprintf(name, sizeof name, "%s/%s/%s", flavor_names[flavor], sync_names[sync],
                     pat == PAT_RING ? "ring" : "all");
        else
            snprintf(name, sizeof name, "%s%d/%s/%s", flavor_names[flavor], du, sync_names[sync],
                     pat == PAT_RING ? "ring" : "all");
        if (!selected(name))
            continue;
        struct ctx c = {.flavor = flavor, .du = du, .sync = sync, .pat = pat};
        make_window(&c);
        for (int is_put = 1; is_put >= 0; is_put--) {
            if (sync <= S_PSCW_TEST)
                round_active(&c, is_put);
            else
                round_passive(&c, is_put);
        }
        free_window(&c);
    }
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, "rma_basic");
    make_layouts();
    int shared_ok = all_on_one_host();
    if (!shared_ok && rank == 0)
        printf("rma_basic: ranks on several hosts: no MPI_Win_allocate_shared cases\n");
    for (int flavor = FL_CREATE; flavor <= FL_DYNAMIC; flavor++)
        for (int du = 1; du <= 8; du += 7) {
            if (flavor == FL_DYNAMIC && du == 8)
                continue; /* a dynamic window's disp_unit is 1 */
            if (flavor == FL_SHARED && !shared_ok)
                continue;
            for (int sync = 0; sync < NS; sync++)
                run_case(flavor, du, sync);
        }
    for (int l = L_CONTIG6; l < NL; l++)
        MPI_Type_free(&lay[l].type);
    rma_finish();
    return 0;
}
