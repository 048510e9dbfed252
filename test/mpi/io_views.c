/* io_views: file views (MPI-4.1 section 14.3): MPI_File_set_view and
 * get_view with an etype and a filetype per rank, written by all ranks.
 *
 * Cases (each written collectively and independently, each into a file of
 * its own, and both files must be the same as the model's):
 *   vector   ints, vector(3 blocks of 2, stride 2n+1) resized to 3 periods,
 *            displacement 8r: the ranks interleave, one int per period is
 *            a hole
 *   indexed  ints, blocks of 1, 3, 2 at 0, 2, 7 in a 10-int slot per rank
 *   neglb    ints, 2 ints resized to lower bound -4 and extent 2n+1 ints,
 *            displacement 4 + 8r (the first int of each period is a hole)
 *   memvec   the vector view with every other int of memory (a
 *            non-contiguous memory type over a non-contiguous filetype;
 *            the memory between the ints stays untouched on reading)
 *   sub_c, sub_f   doubles, subarray of a 6x5x7 array, C and Fortran order,
 *            a block per rank (MPI_Dims_create grid), displacement 24
 *   darray_c  doubles, darray of 5x6x7, C order, BLOCK x CYCLIC x CYCLIC(2)
 *   darray_f  doubles, darray of 7x6, Fortran order, CYCLIC x BLOCK
 * Before each write rank 0 fills the file with a byte pattern; after it the
 * holes must still hold it. The model is written here by hand from the
 * standard's definitions (typemap tiling, array orders, distributions),
 * never from the library's datatype calls. Each rank reads its elements
 * back through the view, and checks MPI_File_get_view (displacement,
 * etype, the filetype's combiner), MPI_File_get_byte_offset for every
 * element, and MPI_File_get_type_extent of the filetype.
 *
 * Then MPI_DISPLACEMENT_CURRENT on a file opened MPI_MODE_SEQUENTIAL: the
 * new view starts where the shared pointer stood.
 *
 * Usage: io_views DIRECTORY */
#include "io_util.h"

enum { VECTOR, INDEXED, NEGLB, MEMVEC, SUB_C, SUB_F, DARRAY_C, DARRAY_F, NCASES };
static const char *case_names[NCASES] = {"vector", "indexed", "neglb",    "memvec",
                                         "sub_c",  "sub_f",   "darray_c", "darray_f"};

struct vcase {
    MPI_Datatype etype, filetype, memtype;
    int esize;       /* bytes of an etype */
    int mem_stride;  /* etypes from one element to the next in memory */
    MPI_Offset disp; /* in bytes */
    int count;       /* elements this rank writes */
    long long *off;  /* their byte offsets in the file, in order */
};

/* The fill of a byte that no rank writes. */
static unsigned char fill_byte(size_t i)
{
    return (unsigned char)(0x80 | (i * 7 % 127));
}

/* The bytes of element k of rank r in case c. */
static void elem_bytes(int c, int r, int k, int esize, unsigned char *out)
{
    if (esize == 4) {
        int v = c * 1000000 + r * 10000 + k + 1;
        memcpy(out, &v, 4);
    } else {
        double v = c * 1e6 + r * 1e4 + k + 0.5;
        memcpy(out, &v, 8);
    }
}

/* Coordinates of rank r in a grid of dims, row-major (as Cartesian
 * topologies and darray lay processes out, whatever the array order). */
static void grid_coords(int r, int nd, const int *dims, int *coords)
{
    for (int d = nd - 1; d >= 0; d--) {
        coords[d] = r % dims[d];
        r /= dims[d];
    }
}

/* Which process coordinate owns index i of a dimension of g elements over
 * p processes, distributed as dist with argument darg. */
static int darray_owner(int i, int g, int p, int dist, int darg)
{
    if (dist == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return i / b;
    }
    int c = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (i / c) % p;
}

/* The array elements rank r holds, as byte offsets disp + esize * (linear
 * index in the array's order), in the array's order: that is the order of
 * a subarray's or a darray's typemap. A subarray block is [start, start +
 * size) per dimension with the block decomposition start = c*g/p. */
static int owned_offsets(int r, int nd, const int *g, int order, int is_darray,
                         const int *dist, const int *darg, MPI_Offset disp, int esize,
                         long long *off)
{
    int dims[3] = {0, 0, 0}, coords[3], idx[3];
    MPI_Dims_create(nprocs, nd, dims);
    grid_coords(r, nd, dims, coords);
    long long total = 1;
    for (int d = 0; d < nd; d++)
        total *= g[d];
    int n = 0;
    for (long long lin = 0; lin < total; lin++) {
        long long rest = lin;
        if (order == MPI_ORDER_C)
            for (int d = nd - 1; d >= 0; d--) {
                idx[d] = (int)(rest % g[d]);
                rest /= g[d];
            }
        else
            for (int d = 0; d < nd; d++) {
                idx[d] = (int)(rest % g[d]);
                rest /= g[d];
            }
        int mine = 1;
        for (int d = 0; d < nd && mine; d++) {
            if (is_darray)
                mine = darray_owner(idx[d], g[d], dims[d], dist[d], darg[d]) == coords[d];
            else
                mine = idx[d] >= coords[d] * g[d] / dims[d] &&
                       idx[d] < (coords[d] + 1) * g[d] / dims[d];
        }
        if (mine)
            off[n++] = disp + lin * esize;
    }
    return n;
}

/* Subarray and darray parameters of the double cases. */
static const int sub_g[3] = {6, 5, 7};
static const int dar_c_g[3] = {5, 6, 7};
static const int dar_c_dist[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                                  MPI_DISTRIBUTE_CYCLIC};
static const int dar_c_darg[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, 2};
static const int dar_f_g[2] = {7, 6};
static const int dar_f_dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
static const int dar_f_darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
#define SUB_DISP 24

/* The model of case c for rank r: displacement, count, offsets; and, when
 * r is this rank, the MPI types. */
static void build(int c, int r, struct vcase *v)
{
    const int n = nprocs, P = 2 * nprocs + 1;
    int mk = r == rank;
    memset(v, 0, sizeof *v);
    v->filetype = v->memtype = MPI_DATATYPE_NULL;
    v->off = malloc(256 * sizeof(long long)); /* the largest case has 210 */
    v->mem_stride = 1;
    v->esize = c <= MEMVEC ? 4 : 8;
    v->etype = c <= MEMVEC ? MPI_INT : MPI_DOUBLE;
    MPI_Datatype t;
    switch (c) {
    case VECTOR:
    case MEMVEC:
        /* 4 tiles of 3 periods: blocks of 2 ints at 2r of each period */
        v->disp = 8 * r;
        v->count = 24;
        for (int k = 0; k < v->count; k++) {
            int tile = k / 6, b = k % 6 / 2, e = k % 2;
            v->off[k] = v->disp + 4LL * (tile * 3 * P + b * P + e);
        }
        if (mk) {
            CHECK(MPI_Type_vector(3, 2, P, MPI_INT, &t));
            CHECK(MPI_Type_create_resized(t, 0, 3LL * P * 4, &v->filetype));
            MPI_Type_free(&t);
        }
        if (c == MEMVEC) {
            v->mem_stride = 2;
            if (mk)
                CHECK(MPI_Type_create_resized(MPI_INT, 0, 8, &v->memtype));
        }
        break;
    case INDEXED: {
        static const int bl[3] = {1, 3, 2}, dp[3] = {0, 2, 7}, pos[6] = {0, 2, 3, 4, 7, 8};
        v->disp = 40LL * r;
        v->count = 18;
        for (int k = 0; k < v->count; k++)
            v->off[k] = v->disp + 4LL * (k / 6 * 10 * n + pos[k % 6]);
        if (mk) {
            CHECK(MPI_Type_indexed(3, bl, dp, MPI_INT, &t));
            CHECK(MPI_Type_create_resized(t, 0, 40LL * n, &v->filetype));
            MPI_Type_free(&t);
        }
        break;
    }
    case NEGLB:
        /* tile t's copy of the 2 ints sits at disp + t * extent: the lower
         * bound only sets the extent */
        v->disp = 4 + 8LL * r;
        v->count = 10;
        for (int k = 0; k < v->count; k++)
            v->off[k] = v->disp + 4LL * (k / 2 * P + k % 2);
        if (mk) {
            CHECK(MPI_Type_contiguous(2, MPI_INT, &t));
            CHECK(MPI_Type_create_resized(t, -4, 4LL * P, &v->filetype));
            MPI_Type_free(&t);
        }
        break;
    case SUB_C:
    case SUB_F: {
        int order = c == SUB_C ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        v->disp = SUB_DISP;
        v->count = owned_offsets(r, 3, sub_g, order, 0, NULL, NULL, v->disp, 8, v->off);
        if (mk) {
            int dims[3] = {0, 0, 0}, co[3], sub[3], st[3];
            MPI_Dims_create(nprocs, 3, dims);
            grid_coords(r, 3, dims, co);
            for (int d = 0; d < 3; d++) {
                st[d] = co[d] * sub_g[d] / dims[d];
                sub[d] = (co[d] + 1) * sub_g[d] / dims[d] - st[d];
            }
            CHECK(MPI_Type_create_subarray(3, sub_g, sub, st, order, MPI_DOUBLE, &v->filetype));
        }
        break;
    }
    case DARRAY_C:
    case DARRAY_F: {
        int nd = c == DARRAY_C ? 3 : 2;
        int order = c == DARRAY_C ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        const int *g = c == DARRAY_C ? dar_c_g : dar_f_g;
        const int *dist = c == DARRAY_C ? dar_c_dist : dar_f_dist;
        const int *darg = c == DARRAY_C ? dar_c_darg : dar_f_darg;
        v->disp = 0;
        v->count = owned_offsets(r, nd, g, order, 1, dist, darg, 0, 8, v->off);
        if (mk) {
            int dims[3] = {0, 0, 0};
            MPI_Dims_create(nprocs, nd, dims);
            CHECK(MPI_Type_create_darray(nprocs, r, nd, g, dist, darg, dims, order, MPI_DOUBLE,
                                         &v->filetype));
        }
        break;
    }
    }
    if (mk) {
        CHECK(MPI_Type_commit(&v->filetype));
        if (v->memtype == MPI_DATATYPE_NULL)
            v->memtype = v->etype;
        else
            CHECK(MPI_Type_commit(&v->memtype));
    }
}

static void free_case(struct vcase *v)
{
    MPI_Type_free(&v->filetype);
    if (v->memtype != v->etype)
        MPI_Type_free(&v->memtype);
    free(v->off);
}

/* A case built for rank r: only this rank's has datatypes to free. */
static void drop_case(int r, struct vcase *v)
{
    if (r == rank)
        free_case(v);
    else
        free(v->off);
}

/* The file as a serial writer makes it: the fill, then every rank's
 * elements at their offsets. */
static unsigned char *model_image(int c, size_t *len)
{
    long long end = 0;
    struct vcase v;
    for (int r = 0; r < nprocs; r++) {
        build(c, r, &v);
        for (int k = 0; k < v.count; k++)
            if (v.off[k] + v.esize > end)
                end = v.off[k] + v.esize;
        drop_case(r, &v);
    }
    *len = (size_t)end + 8; /* 8 bytes after the data keep their fill too */
    unsigned char *img = malloc(*len);
    for (size_t i = 0; i < *len; i++)
        img[i] = fill_byte(i);
    for (int r = 0; r < nprocs; r++) {
        build(c, r, &v);
        for (int k = 0; k < v.count; k++)
            elem_bytes(c, r, k, v.esize, img + v.off[k]);
        drop_case(r, &v);
    }
    return img;
}

/* What MPI_File_get_view returns must be what set_view was given; derived
 * types it returns are new ones for the caller to free. */
static void check_view(MPI_File fh, const struct vcase *v, const char *datarep)
{
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING + 1];
    CHECK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    check_eq(disp, v->disp, "MPI_File_get_view displacement");
    /* a predefined etype comes back as itself */
    if (et != v->etype)
        io_fail("MPI_File_get_view: etype is not the one set");
    if (strcmp(rep, datarep) != 0)
        io_fail("MPI_File_get_view: datarep \"%s\", expected \"%s\"", rep, datarep);
    /* A new type with the same typemap (MPICH and Open MPI return a dup,
     * whose combiner is MPI_COMBINER_DUP): derived, same size and bounds. */
    int ni, na, nt, comb, size, wsize;
    CHECK(MPI_Type_get_envelope(ft, &ni, &na, &nt, &comb));
    if (comb == MPI_COMBINER_NAMED)
        io_fail("MPI_File_get_view returned a predefined type for a derived filetype");
    CHECK(MPI_Type_size(ft, &size));
    CHECK(MPI_Type_size(v->filetype, &wsize));
    check_eq(size, wsize, "size of the filetype from get_view");
    MPI_Aint lb, ext, wlb, wext;
    CHECK(MPI_Type_get_extent(ft, &lb, &ext));
    CHECK(MPI_Type_get_extent(v->filetype, &wlb, &wext));
    check_eq(lb, wlb, "lower bound of the filetype from get_view");
    check_eq(ext, wext, "extent of the filetype from get_view");
    CHECK(MPI_Type_free(&ft));

    /* every element's byte offset, and the filetype's extent in the file */
    for (int k = 0; k < v->count; k++) {
        MPI_Offset b;
        CHECK(MPI_File_get_byte_offset(fh, k, &b));
        if (b != v->off[k])
            io_fail("MPI_File_get_byte_offset(%d): got %lld, expected %lld", k, (long long)b,
                    v->off[k]);
    }
    MPI_Aint fext;
    CHECK(MPI_File_get_type_extent(fh, v->filetype, &fext));
    check_eq(fext, wext, "MPI_File_get_type_extent of the filetype (native)");
}

static void run_case(int c, int coll)
{
    char name[64];
    struct vcase v;
    MPI_File fh;
    MPI_Status st;
    step("%s/%s", case_names[c], coll ? "collective" : "independent");
    snprintf(name, sizeof name, "views_%s_%s.dat", case_names[c], coll ? "coll" : "indep");
    build(c, rank, &v);
    size_t len = 0;
    unsigned char *img = NULL;
    if (rank == 0) {
        img = model_image(c, &len);
        /* the fill alone, as the file to write into */
        unsigned char *fill = malloc(len);
        for (size_t i = 0; i < len; i++)
            fill[i] = fill_byte(i);
        posix_write_file(io_path(name), fill, len);
        free(fill);
    }
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_File_open(MPI_COMM_WORLD, io_path(name), MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK(MPI_File_set_view(fh, v.disp, v.etype, v.filetype, "native", MPI_INFO_NULL));
    check_view(fh, &v, "native");

    /* memory: the elements mem_stride etypes apart, 0x3c between */
    size_t mlen = (size_t)v.count * v.mem_stride * v.esize;
    unsigned char *mem = malloc(mlen + 1);
    memset(mem, 0x3c, mlen + 1);
    for (int k = 0; k < v.count; k++)
        elem_bytes(c, rank, k, v.esize, mem + (size_t)k * v.mem_stride * v.esize);
    if (coll)
        CHECK(MPI_File_write_all(fh, mem, v.count, v.memtype, &st));
    else
        CHECK(MPI_File_write(fh, mem, v.count, v.memtype, &st));
    int n;
    CHECK(MPI_Get_elements(&st, v.etype, &n));
    check_eq(n, v.count, "MPI_Get_elements of the write");
    CHECK(MPI_File_sync(fh));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_File_sync(fh));

    /* read back through the view into a buffer of 0x77 */
    unsigned char *back = malloc(mlen + 1);
    memset(back, 0x77, mlen + 1);
    CHECK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    if (coll)
        CHECK(MPI_File_read_all(fh, back, v.count, v.memtype, &st));
    else
        CHECK(MPI_File_read(fh, back, v.count, v.memtype, &st));
    CHECK(MPI_Get_elements(&st, v.etype, &n));
    check_eq(n, v.count, "MPI_Get_elements of the read");
    for (size_t i = 0; i <= mlen; i++) {
        int in_elem = i < mlen && (i / v.esize) % v.mem_stride == 0;
        unsigned char want = in_elem ? mem[i] : 0x77;
        if (back[i] != want)
            io_fail("read back: memory byte %zu (element %zu): expected 0x%02x, got 0x%02x%s", i,
                    i / v.esize / v.mem_stride, want, back[i],
                    in_elem ? "" : " (a gap of the memory type)");
    }
    CHECK(MPI_File_close(&fh));
    if (rank == 0) {
        check_file(io_path(name), img, len);
        free(img);
    }
    free(mem);
    free(back);
    free_case(&v);
}

/* MPI_DISPLACEMENT_CURRENT: on a file opened with MPI_MODE_SEQUENTIAL the
 * new view's displacement is the shared pointer's byte position. */
static void displacement_current(void)
{
    MPI_File fh;
    MPI_Status st;
    MPI_Offset disp;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING + 1];
    const int B = 5;
    const char *name = "views_current.dat";
    step("MPI_DISPLACEMENT_CURRENT");
    if (rank == 0)
        unlink(io_path(name));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(MPI_File_open(MPI_COMM_WORLD, io_path(name),
                        MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL,
                        &fh));
    /* a header of r+1 bytes per rank, in rank order: n(n+1)/2 bytes */
    unsigned char hdr[64];
    memset(hdr, 'a' + rank, sizeof hdr);
    CHECK(MPI_File_write_ordered(fh, hdr, rank + 1, MPI_BYTE, &st));
    CHECK(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                            MPI_INFO_NULL));
    const long long hlen = (long long)nprocs * (nprocs + 1) / 2;
    CHECK(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    check_eq(disp, hlen, "displacement of a view set at MPI_DISPLACEMENT_CURRENT");
    /* set_view put the shared pointer at the view's start: the ints follow
     * the header at once (the file shows it; ROMIO refuses
     * get_position_shared on a sequential file) */
    int data[5];
    for (int i = 0; i < B; i++)
        data[i] = rank * 100 + i;
    CHECK(MPI_File_write_ordered(fh, data, B, MPI_INT, &st));
    CHECK(MPI_File_close(&fh));
    if (rank != 0)
        return;
    size_t len = (size_t)hlen + (size_t)nprocs * B * sizeof(int);
    unsigned char *want = malloc(len), *p = want;
    for (int r = 0; r < nprocs; r++)
        for (int i = 0; i <= r; i++)
            *p++ = (unsigned char)('a' + r);
    for (int r = 0; r < nprocs; r++)
        for (int i = 0; i < B; i++, p += sizeof(int)) {
            int x = r * 100 + i;
            memcpy(p, &x, sizeof x);
        }
    check_file(io_path(name), want, len);
    free(want);
}

int main(int argc, char **argv)
{
    io_init(&argc, &argv, "io_views");
    for (int c = 0; c < NCASES; c++) {
        run_case(c, 1);
        run_case(c, 0);
    }
    displacement_current();
    io_finish();
    return 0;
}
