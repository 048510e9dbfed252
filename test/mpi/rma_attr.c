/* rma_attr: what a window is, besides its operations.
 *
 * Cases (optional arguments select them, by whole name or component):
 *   attr/create, attr/allocate, attr/shared, attr/dynamic
 *                  MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT (sizes and
 *                  disp_units differ between ranks), MPI_WIN_CREATE_FLAVOR,
 *                  MPI_WIN_MODEL = MPI_WIN_UNIFIED; a dynamic window's base
 *                  is MPI_BOTTOM and its size 0 (shared: one host only)
 *   group/all      MPI_Win_get_group is the communicator's group, also for a
 *                  window over a split communicator
 *   name/all       a new window's name is empty; MPI_Win_set_name/get_name
 *   info/all       MPI_Win_get_info gives a new info object; the hints it
 *                  holds (no_locks, accumulate_ordering, accumulate_ops,
 *                  same_size, same_disp_unit, mpi_accumulate_granularity),
 *                  whether given at creation or by MPI_Win_set_info, have
 *                  values the standard allows (an implementation may drop a
 *                  hint, so only present ones are checked); the info given
 *                  at creation may be freed at once
 *   keyval/all     MPI_Win_create_keyval, set/get/delete attr: the delete
 *                  callback runs with the window, keyval, value and extra
 *                  state when a value is replaced, deleted, and when
 *                  MPI_Win_free frees the window; MPI_Win_free_keyval
 *   errhandler/all a new window's handler is MPI_ERRORS_ARE_FATAL;
 *                  MPI_Win_create_errhandler, set, get, MPI_Win_call_errhandler
 *                  (the handler sees the window and the code), and an actual
 *                  error (a put to a rank outside the group) reaches it
 *   shared_query/all  MPI_Win_allocate_shared of different sizes per rank:
 *                  contiguous by default (rank r's base is rank r-1's base +
 *                  its size), MPI_PROC_NULL gives the lowest rank with memory,
 *                  each rank's disp_unit; loads and stores through the queried
 *                  pointers after MPI_Win_sync + barrier (one host only)
 *   noncontig/all  the same with alloc_shared_noncontig=true: every base is
 *                  valid and distinct, the segments do not overlap
 *   alloc_mem/all  MPI_Alloc_mem memory as a window, MPI_Free_mem after
 *   leak/all       1000 create/free pairs of each flavor (after 50 to warm
 *                  up): /dev/shm does not gain 50 files (other jobs' files
 *                  come and go), VmRSS grows by less than 8 MiB (not
 *                  judged under AddressSanitizer: its quarantine holds
 *                  freed memory; LeakSanitizer judges leaks there)
 *
 * Progress: targets wait in MPI calls (barriers, fences). */
#include "rma_util.h"

#include <dirent.h>
#include <stdint.h>

static int shared_ok;

enum { FL_CREATE, FL_ALLOCATE, FL_SHARED, FL_DYNAMIC };
static const char *flavor_names[] = {"create", "allocate", "shared", "dynamic"};

static MPI_Win make(int flavor, MPI_Aint size, int du, MPI_Info info, MPI_Comm comm, void **base,
                    void **mem)
{
    MPI_Win win;
    *mem = NULL;
    switch (flavor) {
    case FL_CREATE:
        *mem = malloc(size ? size : 1);
        *base = *mem;
        CHECK(MPI_Win_create(*base, size, du, info, comm, &win));
        break;
    case FL_ALLOCATE: CHECK(MPI_Win_allocate(size, du, info, comm, base, &win)); break;
    case FL_SHARED: CHECK(MPI_Win_allocate_shared(size, du, info, comm, base, &win)); break;
    default:
        CHECK(MPI_Win_create_dynamic(info, comm, &win));
        *base = MPI_BOTTOM;
        break;
    }
    return win;
}

static void case_attr(int flavor)
{
    MPI_Aint size = 40 + 8 * rank;
    int du = flavor == FL_DYNAMIC ? 1 : 1 + rank % 3 * 3; /* 1, 4, 7 */
    void *base, *mem;
    MPI_Win win = make(flavor, size, du, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &mem);
    void *abase;
    MPI_Aint *asize;
    int *adu, *aflavor, *amodel, flag;
    CHECK(MPI_Win_get_attr(win, MPI_WIN_BASE, &abase, &flag));
    if (!flag)
        rma_fail("MPI_WIN_BASE not set");
    if (abase != base)
        rma_fail("MPI_WIN_BASE is %p, the window's base is %p", abase, base);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &asize, &flag));
    if (!flag || *asize != (flavor == FL_DYNAMIC ? 0 : size))
        rma_fail("MPI_WIN_SIZE: flag %d, %ld, expected %ld", flag, flag ? (long)*asize : -1L,
                 flavor == FL_DYNAMIC ? 0L : (long)size);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &adu, &flag));
    if (!flag || *adu != du)
        rma_fail("MPI_WIN_DISP_UNIT: flag %d, %d, expected %d", flag, flag ? *adu : -1, du);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &aflavor, &flag));
    int want[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED,
                  MPI_WIN_FLAVOR_DYNAMIC};
    if (!flag || *aflavor != want[flavor])
        rma_fail("MPI_WIN_CREATE_FLAVOR: flag %d, %d, expected %d", flag, flag ? *aflavor : -1,
                 want[flavor]);
    CHECK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &amodel, &flag));
    if (!flag || *amodel != MPI_WIN_UNIFIED)
        rma_fail("MPI_WIN_MODEL: flag %d, %d, expected MPI_WIN_UNIFIED (%d)", flag,
                 flag ? *amodel : -1, MPI_WIN_UNIFIED);
    if (flavor != FL_DYNAMIC && size > 0)
        memset(base, 0x11, size); /* the memory is the window's */
    CHECK(MPI_Win_free(&win));
    free(mem);
}

static void case_group(void)
{
    void *base, *mem;
    MPI_Group wg, g;
    int res;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Win win = make(FL_ALLOCATE, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &mem);
    CHECK(MPI_Win_get_group(win, &g));
    MPI_Group_compare(g, wg, &res);
    if (res != MPI_IDENT)
        rma_fail("MPI_Win_get_group: compare with MPI_COMM_WORLD's group gives %d, expected "
                 "MPI_IDENT",
                 res);
    MPI_Group_free(&g);
    CHECK(MPI_Win_free(&win));

    /* over the odd and even ranks, in reverse order */
    MPI_Comm half;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, nprocs - rank, &half));
    MPI_Group hg;
    MPI_Comm_group(half, &hg);
    win = make(FL_CREATE, 8, 1, MPI_INFO_NULL, half, &base, &mem);
    CHECK(MPI_Win_get_group(win, &g));
    MPI_Group_compare(g, hg, &res);
    if (res != MPI_IDENT)
        rma_fail("MPI_Win_get_group of a window over a split communicator: %d, expected "
                 "MPI_IDENT",
                 res);
    int gsize, grank;
    MPI_Group_size(g, &gsize);
    MPI_Group_rank(g, &grank);
    int hsize, hrank;
    MPI_Comm_size(half, &hsize);
    MPI_Comm_rank(half, &hrank);
    if (gsize != hsize || grank != hrank)
        rma_fail("window group size/rank %d/%d, communicator %d/%d", gsize, grank, hsize, hrank);
    MPI_Group_free(&g);
    MPI_Group_free(&hg);
    CHECK(MPI_Win_free(&win));
    free(mem);
    MPI_Comm_free(&half);
    MPI_Group_free(&wg);
}

static void case_name(void)
{
    void *base, *mem;
    MPI_Win win = make(FL_ALLOCATE, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &mem);
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    memset(name, 'x', sizeof name);
    CHECK(MPI_Win_get_name(win, name, &len));
    if (len != 0 || name[0] != '\0')
        rma_fail("a new window's name is '%.*s' (length %d), expected empty", 40, name, len);
    char want[64];
    snprintf(want, sizeof want, "halo window of rank %d", rank);
    CHECK(MPI_Win_set_name(win, want));
    CHECK(MPI_Win_get_name(win, name, &len));
    if (strcmp(name, want) != 0 || len != (int)strlen(want))
        rma_fail("MPI_Win_get_name: '%s' (length %d), expected '%s' (%zu)", name, len, want,
                 strlen(want));
    CHECK(MPI_Win_set_name(win, "renamed"));
    CHECK(MPI_Win_get_name(win, name, &len));
    if (strcmp(name, "renamed") != 0 || len != 7)
        rma_fail("after renaming: '%s' (length %d), expected 'renamed' (7)", name, len);
    CHECK(MPI_Win_free(&win));
}

/* A hint present in info must have a value the standard allows. */
static void check_hints(MPI_Info info, const char *when)
{
    int nkeys;
    CHECK(MPI_Info_get_nkeys(info, &nkeys));
    for (int k = 0; k < nkeys; k++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int flag;
        CHECK(MPI_Info_get_nthkey(info, k, key));
        CHECK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag));
        if (!flag)
            rma_fail("%s: key %s listed but not found", when, key);
        int ok = 1;
        if (!strcmp(key, "no_locks") || !strcmp(key, "same_size") || !strcmp(key, "same_disp_unit"))
            ok = !strcmp(val, "true") || !strcmp(val, "false");
        else if (!strcmp(key, "accumulate_ops"))
            ok = !strcmp(val, "same_op") || !strcmp(val, "same_op_no_op");
        else if (!strcmp(key, "accumulate_ordering")) {
            if (strcmp(val, "none") != 0) {
                char copy[MPI_MAX_INFO_VAL + 1];
                snprintf(copy, sizeof copy, "%s", val);
                for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ","))
                    ok = ok && (!strcmp(tok, "rar") || !strcmp(tok, "raw") || !strcmp(tok, "war") ||
                                !strcmp(tok, "waw"));
            }
        } else if (!strcmp(key, "mpi_accumulate_granularity")) {
            char *end;
            long g = strtol(val, &end, 10);
            ok = *val && *end == '\0' && g >= 0;
        }
        if (!ok)
            rma_fail("%s: hint %s has the value '%s', which the standard does not allow", when, key,
                     val);
    }
}

static void case_info(void)
{
    MPI_Info info, got;
    CHECK(MPI_Info_create(&info));
    CHECK(MPI_Info_set(info, "no_locks", "false"));
    CHECK(MPI_Info_set(info, "accumulate_ordering", "rar,waw"));
    CHECK(MPI_Info_set(info, "accumulate_ops", "same_op"));
    CHECK(MPI_Info_set(info, "same_size", "true"));
    CHECK(MPI_Info_set(info, "same_disp_unit", "true"));
    CHECK(MPI_Info_set(info, "mpi_accumulate_granularity", "8"));
    for (int flavor = FL_CREATE; flavor <= FL_DYNAMIC; flavor++) {
        if (flavor == FL_SHARED && !shared_ok)
            continue;
        void *base, *mem;
        MPI_Win win = make(flavor, 64, 8, info, MPI_COMM_WORLD, &base, &mem);
        got = MPI_INFO_NULL;
        CHECK(MPI_Win_get_info(win, &got));
        if (got == MPI_INFO_NULL || got == info)
            rma_fail("MPI_Win_get_info on a %s window: not a new info object",
                     flavor_names[flavor]);
        check_hints(got, "MPI_Win_get_info after creation");
        CHECK(MPI_Info_free(&got));
        /* the window is usable: a put to the next rank */
        if (flavor != FL_DYNAMIC) {
            long v = rank;
            CHECK(MPI_Win_fence(0, win));
            CHECK(MPI_Put(&v, 1, MPI_LONG, (rank + 1) % nprocs, 0, 1, MPI_LONG, win));
            CHECK(MPI_Win_fence(0, win));
            if (*(long *)base != (rank + nprocs - 1) % nprocs)
                rma_fail("a %s window created with hints: %ld arrived, expected %d",
                         flavor_names[flavor], *(long *)base, (rank + nprocs - 1) % nprocs);
        }
        MPI_Info set;
        CHECK(MPI_Info_create(&set));
        CHECK(MPI_Info_set(set, "accumulate_ordering", "none"));
        CHECK(MPI_Info_set(set, "accumulate_ops", "same_op_no_op"));
        CHECK(MPI_Win_set_info(win, set));
        CHECK(MPI_Info_free(&set));
        CHECK(MPI_Win_get_info(win, &got));
        check_hints(got, "MPI_Win_get_info after MPI_Win_set_info");
        CHECK(MPI_Info_free(&got));
        CHECK(MPI_Win_free(&win));
        free(mem);
    }
    CHECK(MPI_Info_free(&info));
    /* the info may be freed right after the creation */
    CHECK(MPI_Info_create(&info));
    CHECK(MPI_Info_set(info, "no_locks", "true"));
    void *base, *mem;
    MPI_Win win = make(FL_ALLOCATE, 16, 1, info, MPI_COMM_WORLD, &base, &mem);
    CHECK(MPI_Info_free(&info));
    CHECK(MPI_Win_get_info(win, &got));
    check_hints(got, "MPI_Win_get_info (no_locks=true, info freed)");
    CHECK(MPI_Info_free(&got));
    CHECK(MPI_Win_fence(0, win));
    CHECK(MPI_Win_fence(0, win));
    CHECK(MPI_Win_free(&win));
}

struct deleted {
    int count;
    MPI_Win win;
    int keyval;
    void *value;
    void *extra;
};
static struct deleted dels;
static int extra_token;

static int delete_fn(MPI_Win win, int keyval, void *value, void *extra)
{
    dels.count++;
    dels.win = win;
    dels.keyval = keyval;
    dels.value = value;
    dels.extra = extra;
    return MPI_SUCCESS;
}

static void expect_deleted(int count, MPI_Win win, int keyval, void *value, const char *when)
{
    if (dels.count != count)
        rma_fail("%s: the delete callback ran %d times, expected %d", when, dels.count, count);
    if (count == 0)
        return;
    if ((win != MPI_WIN_NULL && dels.win != win) || dels.keyval != keyval || dels.value != value ||
        dels.extra != &extra_token)
        rma_fail("%s: the delete callback got keyval %d value %p extra %p, expected %d %p %p", when,
                 dels.keyval, dels.value, dels.extra, keyval, value, (void *)&extra_token);
}

static void case_keyval(void)
{
    int kv, other;
    CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_fn, &kv, &extra_token));
    CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &other, NULL));
    void *base, *mem;
    MPI_Win win = make(FL_ALLOCATE, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &mem);
    static int a, b, c;
    void *got;
    int flag = -1;
    memset(&dels, 0, sizeof dels);
    CHECK(MPI_Win_get_attr(win, kv, &got, &flag));
    if (flag)
        rma_fail("an attribute never set is found");
    CHECK(MPI_Win_set_attr(win, kv, &a));
    CHECK(MPI_Win_get_attr(win, kv, &got, &flag));
    if (!flag || got != &a)
        rma_fail("MPI_Win_get_attr: flag %d, %p, expected %p", flag, got, (void *)&a);
    expect_deleted(0, win, kv, NULL, "first set");
    CHECK(MPI_Win_set_attr(win, kv, &b)); /* replaces: &a is deleted */
    expect_deleted(1, win, kv, &a, "replacing the value");
    CHECK(MPI_Win_get_attr(win, kv, &got, &flag));
    if (!flag || got != &b)
        rma_fail("after replacing: flag %d, %p, expected %p", flag, got, (void *)&b);
    CHECK(MPI_Win_set_attr(win, other, &c));
    CHECK(MPI_Win_delete_attr(win, kv));
    expect_deleted(2, win, kv, &b, "MPI_Win_delete_attr");
    CHECK(MPI_Win_get_attr(win, kv, &got, &flag));
    if (flag)
        rma_fail("a deleted attribute is still found");
    CHECK(MPI_Win_get_attr(win, other, &got, &flag));
    if (!flag || got != &c)
        rma_fail("the other keyval's attribute: flag %d, %p, expected %p", flag, got, (void *)&c);
    CHECK(MPI_Win_set_attr(win, kv, &c));
    /* the keyval may be freed while an attribute uses it */
    int kv_copy = kv;
    CHECK(MPI_Win_free_keyval(&kv));
    if (kv != MPI_KEYVAL_INVALID)
        rma_fail("MPI_Win_free_keyval left the keyval %d, expected MPI_KEYVAL_INVALID", kv);
    MPI_Win handle = win;
    CHECK(MPI_Win_free(&win));
    expect_deleted(3, MPI_WIN_NULL, kv_copy, &c, "MPI_Win_free");
    (void)handle;
    CHECK(MPI_Win_free_keyval(&other));
}

static int handler_calls, handler_code;
static MPI_Win handler_win;

static void win_handler(MPI_Win *win, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_win = *win;
}

static void case_errhandler(void)
{
    void *base, *mem;
    MPI_Win win = make(FL_ALLOCATE, 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &mem);
    MPI_Errhandler eh, got;
    CHECK(MPI_Win_get_errhandler(win, &got));
    if (got != MPI_ERRORS_ARE_FATAL)
        rma_fail("a new window's error handler is not MPI_ERRORS_ARE_FATAL");
    CHECK(MPI_Errhandler_free(&got));
    CHECK(MPI_Win_create_errhandler(win_handler, &eh));
    CHECK(MPI_Win_set_errhandler(win, eh));
    CHECK(MPI_Win_get_errhandler(win, &got));
    if (got != eh)
        rma_fail("MPI_Win_get_errhandler does not return the handler set");
    CHECK(MPI_Errhandler_free(&got));
    handler_calls = 0;
    CHECK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    if (handler_calls != 1 || handler_code != MPI_ERR_OTHER || handler_win != win)
        rma_fail("MPI_Win_call_errhandler: the handler ran %d times with code %d, expected once "
                 "with MPI_ERR_OTHER (%d) and the window",
                 handler_calls, handler_code, MPI_ERR_OTHER);
    /* an actual error reaches it */
    long v = 1;
    CHECK(MPI_Win_fence(0, win));
    int rc = MPI_Put(&v, 1, MPI_LONG, nprocs + 3, 0, 1, MPI_LONG, win);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS || handler_calls != 2 || cls != MPI_ERR_RANK)
        rma_fail("MPI_Put to rank %d under a user handler: returned class %d (%s), handler "
                 "calls %d; expected MPI_ERR_RANK and one more call",
                 nprocs + 3, cls, err_text(rc), handler_calls);
    int hcls;
    MPI_Error_class(handler_code, &hcls);
    if (hcls != MPI_ERR_RANK)
        rma_fail("the handler got a code of class %d, expected MPI_ERR_RANK", hcls);
    CHECK(MPI_Win_fence(0, win));
    CHECK(MPI_Errhandler_free(&eh)); /* the window keeps its reference */
    CHECK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    if (handler_calls != 3)
        rma_fail("the handler no longer runs once its handle is freed");
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK(MPI_Win_free(&win));
}

static void shared_common(int noncontig)
{
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        CHECK(MPI_Info_create(&info));
        CHECK(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    }
    /* rank r has 24 * (r + 1) + 8 bytes, disp_unit r + 1; the last rank of
     * three or more has none */
    int none = nprocs >= 3 ? nprocs - 1 : -1;
    MPI_Aint mysize = rank == none ? 0 : 24 * (rank + 1) + 8;
    unsigned char *mine;
    MPI_Win win;
    CHECK(MPI_Win_allocate_shared(mysize, rank + 1, info, MPI_COMM_WORLD, &mine, &win));
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    unsigned char **bases = malloc(sizeof(void *) * nprocs);
    for (int r = 0; r < nprocs; r++) {
        MPI_Aint size;
        int du;
        CHECK(MPI_Win_shared_query(win, r, &size, &du, &bases[r]));
        MPI_Aint want = r == none ? 0 : 24 * (r + 1) + 8;
        if (size != want || du != r + 1)
            rma_fail("MPI_Win_shared_query(%d): size %ld, disp_unit %d; expected %ld, %d", r,
                     (long)size, du, (long)want, r + 1);
        if (r == rank && size > 0 && bases[r] != mine)
            rma_fail("MPI_Win_shared_query(own rank) gives %p, MPI_Win_allocate_shared gave %p",
                     (void *)bases[r], (void *)mine);
        if (!noncontig && r > 0 && r != none && bases[r] != bases[r - 1] + 24 * r + 8)
            rma_fail("contiguous shared window: rank %d's base %p is not rank %d's %p + %d", r,
                     (void *)bases[r], r - 1, (void *)bases[r - 1], 24 * r + 8);
        if (size > 0 && bases[r] == NULL)
            rma_fail("MPI_Win_shared_query(%d): NULL base for %ld bytes", r, (long)size);
    }
    if (noncontig)
        for (int r = 0; r < nprocs; r++)
            for (int s = 0; s < nprocs; s++) {
                if (r == s || r == none || s == none)
                    continue;
                if (bases[r] < bases[s] + 24 * (s + 1) + 8 &&
                    bases[s] < bases[r] + 24 * (r + 1) + 8)
                    rma_fail("noncontig shared window: ranks %d and %d's segments overlap", r, s);
            }
    {
        MPI_Aint size;
        int du;
        unsigned char *b;
        CHECK(MPI_Win_shared_query(win, MPI_PROC_NULL, &size, &du, &b));
        if (b != bases[0] || size != 32)
            rma_fail("MPI_Win_shared_query(MPI_PROC_NULL): %p size %ld, expected rank 0's %p, 32",
                     (void *)b, (long)size, (void *)bases[0]);
    }
    /* stores into my own segment, loads from every other */
    for (MPI_Aint i = 0; i < mysize; i++)
        mine[i] = (unsigned char)(rank * 41 + i);
    CHECK(MPI_Win_sync(win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_Win_sync(win));
    for (int r = 0; r < nprocs; r++) {
        if (r == none)
            continue;
        for (int i = 0; i < 24 * (r + 1) + 8; i++)
            if (bases[r][i] != (unsigned char)(r * 41 + i))
                rma_fail("load through rank %d's queried base, byte %d = 0x%02x, expected 0x%02x",
                         r, i, bases[r][i], (unsigned char)(r * 41 + i));
    }
    /* and stores into the next rank's segment */
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    int nx = (rank + 1) % nprocs;
    if (nx != none)
        bases[nx][0] = (unsigned char)(200 + rank);
    CHECK(MPI_Win_sync(win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_Win_sync(win));
    int pv = (rank + nprocs - 1) % nprocs;
    if (rank != none && mine[0] != (unsigned char)(200 + pv))
        rma_fail("a store by rank %d into my segment: byte 0 = %d, expected %d", pv, mine[0],
                 200 + pv);
    CHECK(MPI_Win_unlock_all(win));
    free(bases);
    CHECK(MPI_Win_free(&win));
}

static void case_alloc_mem(void)
{
    void *p;
    CHECK(MPI_Alloc_mem(4096, MPI_INFO_NULL, &p));
    memset(p, 0, 4096);
    MPI_Win win;
    CHECK(MPI_Win_create(p, 4096, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    long v = 1000 + rank;
    CHECK(MPI_Win_fence(0, win));
    CHECK(MPI_Put(&v, 1, MPI_LONG, (rank + 1) % nprocs, 511, 1, MPI_LONG, win));
    CHECK(MPI_Win_fence(0, win));
    if (((long *)p)[511] != 1000 + (rank + nprocs - 1) % nprocs)
        rma_fail("window over MPI_Alloc_mem memory: %ld arrived, expected %d", ((long *)p)[511],
                 1000 + (rank + nprocs - 1) % nprocs);
    CHECK(MPI_Win_free(&win));
    CHECK(MPI_Free_mem(p));
}

static int count_shm(void)
{
    DIR *d = opendir("/dev/shm");
    int n = 0;
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

static long vmrss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static void case_leak(void)
{
    enum { PAIRS = 1000, WARM = 50 };
    for (int flavor = FL_CREATE; flavor <= FL_DYNAMIC; flavor++) {
        if (flavor == FL_SHARED && !shared_ok)
            continue;
        long rss0 = 0;
        int shm0 = 0;
        for (int k = 0; k < PAIRS + WARM; k++) {
            if (k == WARM) {
                CHECK(MPI_Barrier(MPI_COMM_WORLD));
                shm0 = count_shm();
                rss0 = vmrss_kib();
            }
            void *base, *mem;
            MPI_Win win = make(flavor, 4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &mem);
            if (flavor == FL_DYNAMIC) {
                mem = malloc(256);
                CHECK(MPI_Win_attach(win, mem, 256));
                CHECK(MPI_Win_detach(win, mem));
            }
            CHECK(MPI_Win_free(&win));
            free(mem);
        }
        CHECK(MPI_Barrier(MPI_COMM_WORLD));
        int shm1 = count_shm();
        long rss1 = vmrss_kib();
        /* Other jobs on the machine create and remove files in /dev/shm
         * meanwhile: a leak of this job's windows shows as hundreds of
         * files (one per window or per rank and window), a few are noise. */
        int grew = shm1 - shm0, maxgrew;
        CHECK(MPI_Allreduce(&grew, &maxgrew, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        if (maxgrew >= PAIRS / 20 && rank == 0)
            rma_fail("%d %s windows created and freed: /dev/shm holds %d files more than "
                     "before",
                     PAIRS, flavor_names[flavor], maxgrew);
        /* Under AddressSanitizer freed memory waits in its quarantine, so the
         * resident size grows without a leak; LeakSanitizer judges leaks there. */
        if (rss1 - rss0 > 8 * 1024 && !getenv("ASAN_OPTIONS"))
            rma_fail("%d %s windows created and freed: VmRSS grew from %ld to %ld KiB", PAIRS,
                     flavor_names[flavor], rss0, rss1);
    }
}

int main(int argc, char **argv)
{
    rma_init(&argc, &argv, "rma_attr");
    shared_ok = all_on_one_host();
    for (int f = FL_CREATE; f <= FL_DYNAMIC; f++) {
        char name[32];
        snprintf(name, sizeof name, "attr/%s", flavor_names[f]);
        if ((f != FL_SHARED || shared_ok) && selected(name))
            case_attr(f);
    }
    if (selected("group/all"))
        case_group();
    if (selected("name/all"))
        case_name();
    if (selected("info/all"))
        case_info();
    if (selected("keyval/all"))
        case_keyval();
    if (selected("errhandler/all"))
        case_errhandler();
    if (shared_ok && selected("shared_query/all"))
        shared_common(0);
    if (shared_ok && selected("noncontig/all"))
        shared_common(1);
    if (selected("alloc_mem/all"))
        case_alloc_mem();
    if (selected("leak/all"))
        case_leak();
    rma_finish();
    return 0;
}
