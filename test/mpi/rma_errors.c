/* rma_errors: erroneous one-sided calls under MPI_ERRORS_RETURN on the
 * window (and on MPI_COMM_WORLD and MPI_COMM_SELF, for MPI_WIN_NULL): each
 * returns the error class the standard or issue 36 names, the error string
 * is printed, the target memory is untouched, and the window (or a new one)
 * still works afterwards.
 *
 * Cases (optional arguments select them):
 *   rank/all     MPI_Put/MPI_Get/MPI_Accumulate to rank size, size+1 or -7, and
 *                MPI_Win_lock of rank size: MPI_ERR_RANK; MPI_PROC_NULL is a
 *                no-op that succeeds
 *   range/all    puts, gets and accumulates past the end of the target's
 *                64-byte window (displacement past the end, a count that
 *                runs past it, a negative displacement, through a vector
 *                target type whose extent runs past it):
 *                MPI_ERR_RMA_RANGE (a negative displacement: MPI_ERR_DISP is
 *                accepted too), and every target byte unchanged.
 *                Open MPI 4.1.4 and MPICH 4.0.2 detect none of these: their
 *                calls succeed (MPICH's range check is on the target side
 *                only with some transports); run this case only on ompi-lite.
 *   sync/all     an operation outside any epoch, MPI_Win_flush outside a
 *                passive-target epoch, MPI_Win_complete without
 *                MPI_Win_start, MPI_Win_wait without MPI_Win_post,
 *                MPI_Win_unlock_all without MPI_Win_lock_all, MPI_Win_lock
 *                of a rank already locked: MPI_ERR_RMA_SYNC
 *   unlock/all   MPI_Win_unlock of a rank never locked: MPI_ERR_RMA_SYNC
 *   free/all     MPI_Win_free inside a lock epoch: MPI_ERR_RMA_SYNC through the
 *                window's handler, the window kept with its attributes
 *   flavor/all   MPI_Win_attach/detach on a window that is not dynamic:
 *                MPI_ERR_RMA_FLAVOR; MPI_Win_shared_query on an
 *                MPI_Win_create window for another rank's memory: either
 *                MPI_ERR_RMA_FLAVOR (MPI-3 wording, issue 36) or, as MPI-4.0
 *                and later say when the memory is not shared, success with
 *                size 0 (both are accepted)
 *   attach/all   MPI_Win_attach of a region overlapping one already attached
 *                (the standard calls it erroneous; issue 36 asks for
 *                MPI_ERR_RMA_ATTACH). Open MPI 4.1.4 returns
 *                MPI_ERR_RMA_ATTACH; MPICH 4.0.2 accepts the region.
 *   count/all    a negative origin or target count: MPI_ERR_COUNT
 *   win/all      MPI_WIN_NULL to MPI_Put, MPI_Win_fence, MPI_Win_lock and
 *                MPI_Win_free: MPI_ERR_WIN
 *   cas/all      MPI_Compare_and_swap on MPI_FLOAT, MPI_DOUBLE or a derived
 *                type of 4 bytes: MPI_ERR_TYPE (integer, logical,
 *                multi-language and byte types only, MPI-4.1 12.3.4), the
 *                target untouched; MPI_C_BOOL, MPI_BYTE and MPI_AINT swap
 */
#include "rma_util.h"

#include <string.h>

static int verbose = 1;

/* The call returned an error of class want; prints its string. */
static void expect_class(int rc, int want, const char *wname, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != want) {
        char wtext[MPI_MAX_ERROR_STRING + 1];
        int len;
        MPI_Error_string(want, wtext, &len);
        rma_fail("%s: returned %s (class %d), expected %s (%s)", what,
                 rc == MPI_SUCCESS ? "MPI_SUCCESS" : err_text(rc), cls, wname, wtext);
    }
    const char *text = err_text(rc);
    if (text[0] == '\0')
        rma_fail("%s: the error string of %s is empty", what, wname);
    if (verbose && rank == 0)
        printf("rma_errors: %s: %s -> %s\n", cur_case, what, text);
}

#define EXPECT(call, cls) expect_class((call), cls, #cls, #call)

static MPI_Win alloc_win(MPI_Aint size, int du, unsigned char **mem)
{
    MPI_Win win;
    CHECK(MPI_Win_allocate(size, du, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    return win;
}

static void fill(unsigned char *m, int n)
{
    for (int i = 0; i < n; i++)
        m[i] = (unsigned char)(rank * 13 + i);
}

static void expect_untouched(const unsigned char *m, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        if (m[i] != (unsigned char)(rank * 13 + i))
            rma_fail("%s: target rank %d byte %d = 0x%02x, expected 0x%02x (untouched)", what, rank,
                     i, m[i], (unsigned char)(rank * 13 + i));
}

/* A correct put after the errors: the window still works. */
static void still_works(MPI_Win win, unsigned char *m, int at)
{
    unsigned char v = (unsigned char)(0xA0 + rank);
    CHECK(MPI_Win_fence(0, win));
    CHECK(MPI_Put(&v, 1, MPI_BYTE, (rank + 1) % nprocs, at, 1, MPI_BYTE, win));
    CHECK(MPI_Win_fence(0, win));
    unsigned char want = (unsigned char)(0xA0 + (rank + nprocs - 1) % nprocs);
    if (m[at] != want)
        rma_fail("after the errors, a put delivered 0x%02x, expected 0x%02x", m[at], want);
}

static void case_rank(void)
{
    unsigned char *m;
    MPI_Win win = alloc_win(64, 1, &m);
    fill(m, 64);
    long v = 5;
    CHECK(MPI_Win_fence(0, win));
    EXPECT(MPI_Put(&v, 1, MPI_LONG, nprocs, 0, 1, MPI_LONG, win), MPI_ERR_RANK);
    /* -7: no special rank in any ABI (MPI_PROC_NULL is -1, -2 or -3) */
    EXPECT(MPI_Get(&v, 1, MPI_LONG, -7, 0, 1, MPI_LONG, win), MPI_ERR_RANK);
    EXPECT(MPI_Accumulate(&v, 1, MPI_LONG, nprocs + 1, 0, 1, MPI_LONG, MPI_SUM, win), MPI_ERR_RANK);
    CHECK(MPI_Put(&v, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, win));
    CHECK(MPI_Win_fence(0, win));
    expect_untouched(m, 64, "operations to bad ranks");
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, nprocs, 0, win), MPI_ERR_RANK);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    still_works(win, m, 3);
    CHECK(MPI_Win_free(&win));
}

static void case_range(void)
{
    unsigned char *m;
    MPI_Win win = alloc_win(64, 1, &m);
    fill(m, 64);
    long v[20] = {0};
    int t = (rank + 1) % nprocs;
    MPI_Datatype vec; /* 3 longs every 3: extent 7 longs = 56 bytes */
    CHECK(MPI_Type_vector(3, 1, 3, MPI_LONG, &vec));
    CHECK(MPI_Type_commit(&vec));
    CHECK(MPI_Win_fence(0, win));
    EXPECT(MPI_Put(v, 1, MPI_LONG, t, 60, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(v, 9, MPI_LONG, t, 0, 9, MPI_LONG, win), MPI_ERR_RMA_RANGE);
    /* a negative displacement: MPI_ERR_DISP (Open MPI) or MPI_ERR_RMA_RANGE */
    {
        int rc = MPI_Put(v, 1, MPI_LONG, t, -8, 1, MPI_LONG, win), cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        if (cls == MPI_ERR_DISP)
            expect_class(rc, MPI_ERR_DISP, "MPI_ERR_DISP", "MPI_Put at displacement -8");
        else
            expect_class(rc, MPI_ERR_RMA_RANGE, "MPI_ERR_RMA_RANGE", "MPI_Put at displacement -8");
    }
    EXPECT(MPI_Put(v, 3, MPI_LONG, t, 16, 1, vec, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Get(v, 2, MPI_LONG, t, 56, 2, MPI_LONG, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Accumulate(v, 1, MPI_LONG, t, 64, 1, MPI_LONG, MPI_SUM, win), MPI_ERR_RMA_RANGE);
    CHECK(MPI_Win_fence(0, win));
    expect_untouched(m, 64, "operations past the window");
    /* with disp_unit 8: displacement 8 is byte 64, past the end */
    CHECK(MPI_Win_free(&win));
    win = alloc_win(64, 8, &m);
    fill(m, 64);
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    EXPECT(MPI_Put(v, 1, MPI_LONG, t, 8, 1, MPI_LONG, win), MPI_ERR_RMA_RANGE);
    EXPECT(MPI_Put(v, 2, MPI_LONG, t, 7, 2, MPI_LONG, win), MPI_ERR_RMA_RANGE);
    CHECK(MPI_Win_unlock(t, win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    expect_untouched(m, 64, "operations past the window (disp_unit 8, passive target)");
    CHECK(MPI_Win_unlock(rank, win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_Type_free(&vec);
    CHECK(MPI_Win_free(&win));
}

static void case_sync(void)
{
    unsigned char *m;
    MPI_Win win = alloc_win(64, 1, &m);
    fill(m, 64);
    long v = 1;
    int t = (rank + 1) % nprocs;
    /* no epoch has been opened on this window */
    EXPECT(MPI_Put(&v, 1, MPI_LONG, t, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Get(&v, 1, MPI_LONG, t, 0, 1, MPI_LONG, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Accumulate(&v, 1, MPI_LONG, t, 0, 1, MPI_LONG, MPI_SUM, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush(t, win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_flush_all(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_complete(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_wait(win), MPI_ERR_RMA_SYNC);
    EXPECT(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC);
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    expect_untouched(m, 64, "operations outside an epoch");
    /* locking a rank this process already holds */
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_ERR_RMA_SYNC);
    CHECK(MPI_Win_unlock(t, win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    still_works(win, m, 5);
    CHECK(MPI_Win_free(&win));
}

static void case_unlock(void)
{
    unsigned char *m;
    MPI_Win win = alloc_win(64, 1, &m);
    EXPECT(MPI_Win_unlock((rank + 1) % nprocs, win), MPI_ERR_RMA_SYNC);
    /* locked another rank, unlocking this one */
    if (nprocs > 1) {
        CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % nprocs, 0, win));
        EXPECT(MPI_Win_unlock(rank, win), MPI_ERR_RMA_SYNC);
        CHECK(MPI_Win_unlock((rank + 1) % nprocs, win));
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    still_works(win, m, 7);
    CHECK(MPI_Win_free(&win));
}

static int deletes;
static int count_delete(MPI_Win win, int keyval, void *value, void *extra)
{
    (void)win, (void)keyval, (void)value, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

/* MPI_Win_free inside a lock epoch: the window's own handler hears
 * MPI_ERR_RMA_SYNC, and the window stays whole (handle, attributes). */
static void case_free(void)
{
    unsigned char *m;
    MPI_Win win = alloc_win(64, 1, &m);
    int key;
    CHECK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_delete, &key, NULL));
    CHECK(MPI_Win_set_attr(win, key, NULL));
    CHECK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win));
    MPI_Win kept = win;
    EXPECT(MPI_Win_free(&kept), MPI_ERR_RMA_SYNC);
    if (kept != win || deletes != 0)
        rma_fail("MPI_Win_free in an epoch: handle %s, %d attribute deletes (expected none)",
                 kept == win ? "kept" : "changed", deletes);
    CHECK(MPI_Win_unlock(rank, win));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    still_works(win, m, 9);
    CHECK(MPI_Win_free(&win));
    if (deletes != 1)
        rma_fail("MPI_Win_free: the attribute's delete callback ran %d times, not once", deletes);
    CHECK(MPI_Win_free_keyval(&key));
}

static void case_flavor(void)
{
    unsigned char *m, buf[64];
    MPI_Win win = alloc_win(64, 1, &m);
    EXPECT(MPI_Win_attach(win, buf, sizeof buf), MPI_ERR_RMA_FLAVOR);
    EXPECT(MPI_Win_detach(win, m), MPI_ERR_RMA_FLAVOR);
    CHECK(MPI_Win_free(&win));

    unsigned char *cm = malloc(64);
    CHECK(MPI_Win_create(cm, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    EXPECT(MPI_Win_attach(win, buf, sizeof buf), MPI_ERR_RMA_FLAVOR);
    if (nprocs > 1) {
        MPI_Aint size = -1;
        int du = -1;
        void *base = (void *)&size;
        int rc = MPI_Win_shared_query(win, (rank + 1) % nprocs, &size, &du, &base);
        if (rc == MPI_SUCCESS) {
            /* MPI-4: the memory is not shared: size 0 */
            if (size != 0)
                rma_fail("MPI_Win_shared_query on an MPI_Win_create window over malloc "
                         "memory: success with size %ld, expected size 0 or "
                         "MPI_ERR_RMA_FLAVOR",
                         (long)size);
            if (rank == 0)
                printf("rma_errors: %s: MPI_Win_shared_query on a create window: size 0 "
                       "(MPI-4)\n",
                       cur_case);
        } else
            expect_class(rc, MPI_ERR_RMA_FLAVOR, "MPI_ERR_RMA_FLAVOR",
                         "MPI_Win_shared_query on an MPI_Win_create window");
    }
    CHECK(MPI_Win_free(&win));
    free(cm);
}

static void case_attach(void)
{
    MPI_Win win;
    CHECK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    CHECK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    unsigned char *buf = malloc(256);
    CHECK(MPI_Win_attach(win, buf, 128));
    EXPECT(MPI_Win_attach(win, buf + 64, 128), MPI_ERR_RMA_ATTACH);
    EXPECT(MPI_Win_attach(win, buf, 16), MPI_ERR_RMA_ATTACH);
    /* adjacent is fine */
    CHECK(MPI_Win_attach(win, buf + 128, 64));
    /* the window works on the first region */
    MPI_Aint mine, *addrs = malloc(sizeof(MPI_Aint) * nprocs);
    CHECK(MPI_Get_address(buf, &mine));
    CHECK(MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD));
    memset(buf, 0, 192);
    int t = (rank + 1) % nprocs, p = (rank + nprocs - 1) % nprocs;
    unsigned char v[2] = {(unsigned char)(0x40 + rank), (unsigned char)(0x80 + rank)};
    CHECK(MPI_Win_fence(0, win));
    CHECK(MPI_Put(&v[0], 1, MPI_BYTE, t, MPI_Aint_add(addrs[t], 100), 1, MPI_BYTE, win));
    CHECK(MPI_Put(&v[1], 1, MPI_BYTE, t, MPI_Aint_add(addrs[t], 150), 1, MPI_BYTE, win));
    CHECK(MPI_Win_fence(0, win));
    if (buf[100] != 0x40 + p || buf[150] != 0x80 + p)
        rma_fail("dynamic window after the refused attach: bytes 100 and 150 are 0x%02x, 0x%02x, "
                 "expected 0x%02x, 0x%02x",
                 buf[100], buf[150], 0x40 + p, 0x80 + p);
    CHECK(MPI_Win_detach(win, buf + 128));
    CHECK(MPI_Win_detach(win, buf));
    CHECK(MPI_Win_free(&win));
    free(buf);
    free(addrs);
}

static void case_count(void)
{
    unsigned char *m;
    MPI_Win win = alloc_win(64, 1, &m);
    fill(m, 64);
    long v[4] = {0};
    int t = (rank + 1) % nprocs;
    CHECK(MPI_Win_fence(0, win));
    EXPECT(MPI_Put(v, -1, MPI_LONG, t, 0, 1, MPI_LONG, win), MPI_ERR_COUNT);
    EXPECT(MPI_Put(v, 1, MPI_LONG, t, 0, -1, MPI_LONG, win), MPI_ERR_COUNT);
    EXPECT(MPI_Get(v, -3, MPI_LONG, t, 0, -3, MPI_LONG, win), MPI_ERR_COUNT);
    EXPECT(MPI_Accumulate(v, -1, MPI_LONG, t, 0, -1, MPI_LONG, MPI_SUM, win), MPI_ERR_COUNT);
    CHECK(MPI_Win_fence(0, win));
    expect_untouched(m, 64, "negative counts");
    still_works(win, m, 9);
    CHECK(MPI_Win_free(&win));
}

static void case_cas(void)
{
    unsigned char *m;
    MPI_Win win = alloc_win(64, 1, &m);
    fill(m, 64);
    int t = (rank + 1) % nprocs;
    double value = 2.5, compare = 0, result;
    MPI_Datatype four_bytes;
    CHECK(MPI_Type_contiguous(4, MPI_BYTE, &four_bytes));
    CHECK(MPI_Type_commit(&four_bytes));
    CHECK(MPI_Win_fence(0, win));
    EXPECT(MPI_Compare_and_swap(&value, &compare, &result, MPI_FLOAT, t, 0, win), MPI_ERR_TYPE);
    EXPECT(MPI_Compare_and_swap(&value, &compare, &result, MPI_DOUBLE, t, 8, win), MPI_ERR_TYPE);
    EXPECT(MPI_Compare_and_swap(&value, &compare, &result, four_bytes, t, 16, win),
           MPI_ERR_TYPE);
    CHECK(MPI_Win_fence(0, win));
    expect_untouched(m, 64, "compare-and-swap of types it does not take");
    CHECK(MPI_Type_free(&four_bytes));
    CHECK(MPI_Win_free(&win));

    /* the types it takes: each swaps the zero it finds at the target */
    unsigned char *z;
    win = alloc_win(64, 1, &z);
    memset(z, 0, 64);
    _Bool yes = 1, no = 0, was_bool = 1;
    unsigned char byte = 7, zero_byte = 0, was_byte = 1;
    MPI_Aint aint = 123456, zero_aint = 0, was_aint = 1;
    CHECK(MPI_Win_fence(0, win));
    CHECK(MPI_Compare_and_swap(&yes, &no, &was_bool, MPI_C_BOOL, t, 0, win));
    CHECK(MPI_Compare_and_swap(&byte, &zero_byte, &was_byte, MPI_BYTE, t, 1, win));
    CHECK(MPI_Compare_and_swap(&aint, &zero_aint, &was_aint, MPI_AINT, t, 8, win));
    CHECK(MPI_Win_fence(0, win));
    MPI_Aint got_aint;
    memcpy(&got_aint, z + 8, sizeof(got_aint));
    if (was_bool || was_byte || was_aint || z[0] != 1 || z[1] != 7 || got_aint != 123456) {
        fprintf(stderr, "rma_errors: rank %d: compare-and-swap of C_BOOL/BYTE/AINT: found %d %d "
                "%ld, left %d %d %ld\n", rank, (int)was_bool, (int)was_byte, (long)was_aint,
                (int)z[0], (int)z[1], (long)got_aint);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CHECK(MPI_Win_free(&win));
}

static void case_win(void)
{
    long v = 0;
    MPI_Win null = MPI_WIN_NULL;
    EXPECT(MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_fence(0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, MPI_WIN_NULL), MPI_ERR_WIN);
    EXPECT(MPI_Win_free(&null), MPI_ERR_WIN);
}

/* "fatal-range" (only when named first): a put past the window under the
 * default handler, which ends the job; the script checks the message. */
static void fatal_range(void)
{
    unsigned char *m;
    long v = 0;
    MPI_Win win;
    CHECK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &m, &win));
    CHECK(MPI_Win_fence(0, win));
    MPI_Put(&v, 1, MPI_LONG, (rank + 1) % nprocs, 60, 1, MPI_LONG, win);
    rma_fail("MPI_Put past the window returned under MPI_ERRORS_ARE_FATAL");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "fatal-range") == 0) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
        fatal_range();
    }
    rma_init(&argc, &argv, "rma_errors");
    /* errors with no window to raise them on (MPI_WIN_NULL) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if (selected("rank/all"))
        case_rank();
    if (selected("range/all"))
        case_range();
    if (selected("sync/all"))
        case_sync();
    if (selected("unlock/all"))
        case_unlock();
    if (selected("free/all"))
        case_free();
    if (selected("flavor/all"))
        case_flavor();
    if (selected("attach/all"))
        case_attach();
    if (selected("count/all"))
        case_count();
    if (selected("win/all"))
        case_win();
    if (selected("cas/all"))
        case_cas();
    rma_finish();
    return 0;
}
