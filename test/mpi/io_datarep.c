/* io_datarep: data representations (MPI-4.1 section 14.5).
 *
 *   native      the file holds the memory's bytes
 *   internal    what is written reads back equal (the format is the
 *               library's own); get_view names it
 *   external32  the file holds big-endian 4-byte ints and 8-byte IEEE
 *               doubles, rank r's N values at view offsets r*N after a
 *               displacement of 16 bytes; they read back equal;
 *               MPI_File_get_type_extent gives the external32 sizes
 *   user        MPI_Register_datarep of a representation that stores each
 *               int as 8 big-endian bytes, with read and write conversion
 *               functions and a file extent function: the file holds the
 *               converted ints, they read back equal, the functions ran,
 *               get_type_extent(MPI_INT) is 8
 *   plain       MPI_Register_datarep without conversion functions
 *               (MPI_CONVERSION_FN_NULL): the file holds native bytes
 * and the errors: MPI_ERR_UNSUPPORTED_DATAREP for a view in a
 * representation nobody registered, MPI_ERR_DUP_DATAREP for registering a
 * name twice.
 *
 * Usage: io_datarep DIRECTORY */
#include "io_util.h"

#include <stdint.h>

#define N 7      /* values per rank */
#define DISP 16  /* bytes before the view */

static int int_value(int r, int i)
{
    /* bytes that differ from each other, and negative values */
    return (i % 2 ? -1 : 1) * (0x01020304 + r * 0x10000 + i * 0x101);
}

static double double_value(int r, int i)
{
    return (i % 2 ? -1 : 1) * (r + i / 8.0 + 1e-3) * (i == 3 ? 1e300 : 1.0);
}

/* V as N big-endian bytes. */
static void put_be(unsigned char *out, uint64_t v, int nbytes)
{
    for (int b = nbytes - 1; b >= 0; b--) {
        out[b] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
}

static uint64_t get_be(const unsigned char *in, int nbytes)
{
    uint64_t v = 0;
    for (int b = 0; b < nbytes; b++)
        v = v << 8 | in[b];
    return v;
}

static MPI_File fresh_open(const char *name)
{
    MPI_File fh;
    if (rank == 0)
        unlink(io_path(name));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_File_open(MPI_COMM_WORLD, io_path(name), MPI_MODE_RDWR | MPI_MODE_CREATE,
                        MPI_INFO_NULL, &fh));
    return fh;
}

static void sync_all(MPI_File fh)
{
    CHECK(MPI_File_sync(fh));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_File_sync(fh));
}

static void check_datarep_name(MPI_File fh, const char *want)
{
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING + 1];
    CHECK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    if (strcmp(rep, want) != 0)
        io_fail("get_view: datarep \"%s\", expected \"%s\"", rep, want);
    check_eq(disp, DISP, "get_view displacement");
}

/* Every rank writes its N values of TYPE (4-byte ints or 8-byte doubles)
 * at view offset r*N in representation REP, then reads the next rank's
 * back and compares them with the values. */
static void write_and_read(const char *name, const char *rep, MPI_Datatype type)
{
    MPI_File fh = fresh_open(name);
    MPI_Status st;
    int is_int = type == MPI_INT;
    int ibuf[N], iback[N];
    double dbuf[N], dback[N];
    for (int i = 0; i < N; i++) {
        ibuf[i] = int_value(rank, i);
        dbuf[i] = double_value(rank, i);
    }
    CHECK(MPI_File_set_view(fh, DISP, type, type, rep, MPI_INFO_NULL));
    /* MPICH 4.0 (ROMIO) names "internal" "native" in get_view:
     * IO_SKIP=internal_name */
    if (strcmp(rep, "internal") != 0 || !skip_known("internal_name"))
        check_datarep_name(fh, rep);
    CHECK(MPI_File_write_at_all(fh, (MPI_Offset)rank * N, is_int ? (void *)ibuf : (void *)dbuf,
                                N, type, &st));
    int n;
    CHECK(MPI_Get_count(&st, type, &n));
    check_eq(n, N, "MPI_Get_count of the write");
    sync_all(fh);
    int from = (rank + 1) % nprocs;
    memset(iback, 0, sizeof iback);
    memset(dback, 0, sizeof dback);
    CHECK(MPI_File_read_at_all(fh, (MPI_Offset)from * N, is_int ? (void *)iback : (void *)dback,
                               N, type, &st));
    CHECK(MPI_Get_count(&st, type, &n));
    check_eq(n, N, "MPI_Get_count of the read");
    for (int i = 0; i < N; i++) {
        if (is_int && iback[i] != int_value(from, i))
            io_fail("read back rank %d's int %d: expected %d, got %d", from, i, int_value(from, i),
                    iback[i]);
        if (!is_int && memcmp(&dback[i], &(double){double_value(from, i)}, 8) != 0)
            io_fail("read back rank %d's double %d: expected %.17g, got %.17g", from, i,
                    double_value(from, i), dback[i]);
    }
    CHECK(MPI_File_close(&fh));
}

static void native_rep(void)
{
    step("native");
    write_and_read("datarep_native.dat", "native", MPI_INT);
    if (rank != 0)
        return;
    size_t len = DISP + (size_t)nprocs * N * 4;
    unsigned char *want = calloc(len, 1);
    for (int r = 0; r < nprocs; r++)
        for (int i = 0; i < N; i++) {
            int v = int_value(r, i);
            memcpy(want + DISP + ((size_t)r * N + i) * 4, &v, 4);
        }
    check_file(io_path("datarep_native.dat"), want, len);
    free(want);
}

static void internal_rep(void)
{
    step("internal");
    /* Open MPI 4.1 (OMPIO) refuses "internal" with
     * MPI_ERR_UNSUPPORTED_DATAREP, though every library must support it:
     * IO_SKIP=internal */
    if (skip_known("internal"))
        return;
    write_and_read("datarep_internal_i.dat", "internal", MPI_INT);
    write_and_read("datarep_internal_d.dat", "internal", MPI_DOUBLE);
}

static void external32_rep(void)
{
    step("external32 ints");
    write_and_read("datarep_ext32_i.dat", "external32", MPI_INT);
    if (rank == 0) {
        size_t len = DISP + (size_t)nprocs * N * 4;
        unsigned char *want = calloc(len, 1);
        for (int r = 0; r < nprocs; r++)
            for (int i = 0; i < N; i++)
                put_be(want + DISP + ((size_t)r * N + i) * 4, (uint32_t)int_value(r, i), 4);
        check_file(io_path("datarep_ext32_i.dat"), want, len);
        free(want);
    }
    step("external32 doubles");
    write_and_read("datarep_ext32_d.dat", "external32", MPI_DOUBLE);
    if (rank == 0) {
        size_t len = DISP + (size_t)nprocs * N * 8;
        unsigned char *want = calloc(len, 1);
        for (int r = 0; r < nprocs; r++)
            for (int i = 0; i < N; i++) {
                double d = double_value(r, i);
                uint64_t bits;
                memcpy(&bits, &d, 8); /* IEEE binary64 on every host the tests run on */
                put_be(want + DISP + ((size_t)r * N + i) * 8, bits, 8);
            }
        check_file(io_path("datarep_ext32_d.dat"), want, len);
        free(want);
    }

    step("external32 type extents");
    MPI_File fh = fresh_open("datarep_ext32_x.dat");
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    static const struct {
        MPI_Datatype t;
        const char *name;
        MPI_Aint size;
    } sizes[] = {{MPI_INT, "MPI_INT", 4},       {MPI_DOUBLE, "MPI_DOUBLE", 8},
                 {MPI_SHORT, "MPI_SHORT", 2},   {MPI_LONG_LONG, "MPI_LONG_LONG", 8},
                 {MPI_FLOAT, "MPI_FLOAT", 4},   {MPI_CHAR, "MPI_CHAR", 1},
                 {MPI_INT64_T, "MPI_INT64_T", 8}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        MPI_Aint ext;
        CHECK(MPI_File_get_type_extent(fh, sizes[k].t, &ext));
        if (ext != sizes[k].size)
            io_fail("MPI_File_get_type_extent(%s) in external32: got %ld, expected %ld",
                    sizes[k].name, (long)ext, (long)sizes[k].size);
    }
    CHECK(MPI_File_close(&fh));
}

/* The user representation "ol_wide8": each int as 8 big-endian bytes. */
struct wide_calls {
    int reads, writes, extents;
};

static int wide_extent(MPI_Datatype type, MPI_Aint *extent, void *state)
{
    ((struct wide_calls *)state)->extents++;
    if (type != MPI_INT)
        return MPI_ERR_TYPE;
    *extent = 8;
    return MPI_SUCCESS;
}

/* position counts ints into the (tiled) memory type, here MPI_INT. */
static int wide_write(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                      MPI_Offset position, void *state)
{
    ((struct wide_calls *)state)->writes++;
    if (type != MPI_INT)
        return MPI_ERR_TYPE;
    const int *in = (const int *)userbuf + position;
    for (int i = 0; i < count; i++)
        put_be((unsigned char *)filebuf + 8 * i, (uint64_t)(int64_t)in[i], 8);
    return MPI_SUCCESS;
}

static int wide_read(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                     MPI_Offset position, void *state)
{
    ((struct wide_calls *)state)->reads++;
    if (type != MPI_INT)
        return MPI_ERR_TYPE;
    int *out = (int *)userbuf + position;
    for (int i = 0; i < count; i++)
        out[i] = (int)(int64_t)get_be((const unsigned char *)filebuf + 8 * i, 8);
    return MPI_SUCCESS;
}

/* A representation without conversion functions: the data is stored as
 * native, with the extents the extent function gives (the native ones). */
static int plain_extent(MPI_Datatype type, MPI_Aint *extent, void *state)
{
    ((struct wide_calls *)state)->extents++;
    MPI_Aint lb;
    return MPI_Type_get_extent(type, &lb, extent);
}

static void plain_rep(void)
{
    static struct wide_calls calls;
    step("MPI_Register_datarep without conversions");
    /* Open MPI 4.1 fails every registration with MPI_ERR_CONVERSION:
     * IO_SKIP=user_datarep */
    if (skip_known("user_datarep"))
        return;
    CHECK(MPI_Register_datarep("ol_plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                               plain_extent, &calls));
    /* MPICH 4.0 refuses views in registered representations ("only native
     * data representation currently supported"): IO_SKIP=user_view */
    if (!skip_known("user_view")) {
        write_and_read("datarep_plain.dat", "ol_plain", MPI_INT);
        if (rank == 0) {
            size_t len = DISP + (size_t)nprocs * N * 4;
            unsigned char *want = calloc(len, 1);
            for (int r = 0; r < nprocs; r++)
                for (int i = 0; i < N; i++) {
                    int v = int_value(r, i);
                    memcpy(want + DISP + ((size_t)r * N + i) * 4, &v, 4);
                }
            check_file(io_path("datarep_plain.dat"), want, len);
            free(want);
        }
    }

    step("MPI_ERR_DUP_DATAREP");
    CHECK_CLASS(MPI_Register_datarep("ol_plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                     plain_extent, &calls),
                MPI_ERR_DUP_DATAREP);
    /* The predefined names are defined already as well. MPICH 4.0 lets
     * "external32" be registered again: IO_SKIP=dup_predefined */
    if (!skip_known("dup_predefined"))
        CHECK_CLASS(MPI_Register_datarep("external32", MPI_CONVERSION_FN_NULL,
                                         MPI_CONVERSION_FN_NULL, plain_extent, &calls),
                    MPI_ERR_DUP_DATAREP);
}

static void user_rep(void)
{
    static struct wide_calls calls;
    step("MPI_Register_datarep with conversions");
    /* Neither MPICH 4.0 nor Open MPI 4.1 supports conversion functions
     * (MPI_ERR_CONVERSION at registration): IO_SKIP=user_conversion */
    if (skip_known("user_conversion"))
        return;
    CHECK(MPI_Register_datarep("ol_wide8", wide_read, wide_write, wide_extent, &calls));
    write_and_read("datarep_user.dat", "ol_wide8", MPI_INT);
    if (calls.reads == 0 || calls.writes == 0 || calls.extents == 0)
        io_fail("the conversion functions ran %d (read), %d (write), %d (extent) times, "
                "expected each at least once",
                calls.reads, calls.writes, calls.extents);
    if (rank == 0) {
        size_t len = DISP + (size_t)nprocs * N * 8;
        unsigned char *want = calloc(len, 1);
        for (int r = 0; r < nprocs; r++)
            for (int i = 0; i < N; i++)
                put_be(want + DISP + ((size_t)r * N + i) * 8, (uint64_t)(int64_t)int_value(r, i),
                       8);
        check_file(io_path("datarep_user.dat"), want, len);
        free(want);
    }
    step("MPI_File_get_type_extent in ol_wide8");
    MPI_File fh = fresh_open("datarep_user_x.dat");
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "ol_wide8", MPI_INFO_NULL));
    MPI_Aint ext;
    CHECK(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    check_eq(ext, 8, "MPI_File_get_type_extent(MPI_INT) in ol_wide8");
    CHECK(MPI_File_close(&fh));
    step("ol_wide8 through an interleaved vector filetype");
    /* Each rank's pairs of ints every 2 * nprocs ints: in the file the
     * vector's stride counts 8-byte ints, and its extent is that of the
     * representation (MPI-4.1 14.5). Collective buffering is forced on so
     * that the two-phase path maps it too. */
    MPI_Datatype pairs;
    CHECK(MPI_Type_vector(3, 2, 2 * nprocs, MPI_INT, &pairs));
    CHECK(MPI_Type_commit(&pairs));
    MPI_Info cb;
    CHECK(MPI_Info_create(&cb));
    CHECK(MPI_Info_set(cb, "romio_cb_write", "enable"));
    CHECK(MPI_Info_set(cb, "romio_cb_read", "enable"));
    fh = fresh_open("datarep_user_v.dat");
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * 16, MPI_INT, pairs, "ol_wide8", cb));
    CHECK(MPI_File_get_type_extent(fh, pairs, &ext));
    check_eq(ext, (4 * nprocs + 2) * 8, "MPI_File_get_type_extent of the vector in ol_wide8");
    int mine[6], back[6];
    for (int i = 0; i < 6; i++)
        mine[i] = int_value(rank, i);
    MPI_Status st;
    CHECK(MPI_File_write_at_all(fh, 0, mine, 6, MPI_INT, &st));
    sync_all(fh);
    CHECK(MPI_File_read_at_all(fh, 0, back, 6, MPI_INT, &st));
    for (int i = 0; i < 6; i++)
        check_eq(back[i], mine[i], "an int read back through the vector in ol_wide8");
    CHECK(MPI_File_close(&fh));
    CHECK(MPI_Info_free(&cb));
    CHECK(MPI_Type_free(&pairs));
    if (rank == 0) {
        /* up to the last rank's last int, 4 * nprocs + 1 ints into its view */
        size_t len = (size_t)(nprocs - 1) * 16 + (size_t)(4 * nprocs + 2) * 8;
        unsigned char *want = calloc(len, 1);
        for (int r = 0; r < nprocs; r++)
            for (int i = 0; i < 6; i++)
                put_be(want + (size_t)r * 16 + ((size_t)(i / 2) * 2 * nprocs + i % 2) * 8,
                       (uint64_t)(int64_t)int_value(r, i), 8);
        check_file(io_path("datarep_user_v.dat"), want, len);
        free(want);
    }
    step("MPI_ERR_DUP_DATAREP of ol_wide8");
    CHECK_CLASS(MPI_Register_datarep("ol_wide8", wide_read, wide_write, wide_extent, &calls),
                MPI_ERR_DUP_DATAREP);
}

static void unknown_rep(void)
{
    step("MPI_ERR_UNSUPPORTED_DATAREP");
    MPI_File fh = fresh_open("datarep_unknown.dat");
    CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "ol_no_such_rep", MPI_INFO_NULL),
                MPI_ERR_UNSUPPORTED_DATAREP);
    /* the handle still works once given a view again (Open MPI 4.1 leaves
     * it unusable in the view it had) */
    CHECK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    int v = 42 + rank, back = 0;
    MPI_Status st;
    CHECK(MPI_File_write_at_all(fh, (MPI_Offset)rank * 4, &v, 1, MPI_INT, &st));
    sync_all(fh);
    CHECK(MPI_File_read_at(fh, (MPI_Offset)rank * 4, &back, 1, MPI_INT, &st));
    check_eq(back, v, "an int written after the failed set_view");
    CHECK(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, "io_datarep");
    native_rep();
    internal_rep();
    external32_rep();
    unknown_rep();
    plain_rep();
    user_rep();
    io_finish();
    return 0;
}
