/* Cartesian topologies and MPI_Dims_create.
 *
 * Ranks are laid out row-major: the last dimension varies fastest, so in a
 * 2 x 3 grid rank 4 has coordinates (1, 1). reorder is ignored: the
 * process of rank r in comm_old keeps rank r in the grid. */
#include "gen_impl.h"
#include "topo_internal.h"

#include <stdlib.h>

/* ---- grid arithmetic ----------------------------------------------------------- */

static void coords_of(const struct ol_topo *topo, int rank, int *coords)
{
    for (int i = topo->ndims - 1; i >= 0; i--) {
        coords[i] = rank % topo->dims[i];
        rank /= topo->dims[i];
    }
}

/* x moved into 0 .. d - 1 on a ring of d; long long: x may be a coordinate
 * plus a displacement near INT_MAX. */
static int wrap(long long x, int d)
{
    return (int)(((x % d) + d) % d);
}

/* The neighbour at displacement disp along direction, or MPI_PROC_NULL
 * past a non-periodic edge. */
static int neighbor(const struct ol_topo *topo, int rank, int direction, long long disp)
{
    int coords[topo->ndims > 0 ? topo->ndims : 1];
    coords_of(topo, rank, coords);
    long long x = coords[direction] + disp;
    int d = topo->dims[direction];
    if (x < 0 || x >= d) {
        if (!topo->periods[direction])
            return MPI_PROC_NULL;
        x = wrap(x, d);
    }
    /* Moving along one dimension changes the rank by that dimension's
     * stride: the product of the dimensions after it. */
    int stride = 1;
    for (int i = topo->ndims - 1; i > direction; i--)
        stride *= topo->dims[i];
    return rank + (int)(x - coords[direction]) * stride;
}

ol_status_t ol_topo_cart_neighbors(struct ol_topo *topo, int rank)
{
    topo->indegree = topo->outdegree = 2 * topo->ndims;
    topo->in = ol_topo_ints(NULL, topo->indegree);
    topo->out = ol_topo_ints(NULL, topo->outdegree);
    if (!topo->in || !topo->out)
        return MPI_ERR_NO_MEM;
    for (int d = 0; d < topo->ndims; d++) {
        topo->in[2 * d] = topo->out[2 * d] = neighbor(topo, rank, d, -1);
        topo->in[2 * d + 1] = topo->out[2 * d + 1] = neighbor(topo, rank, d, 1);
    }
    return OL_OK;
}

/* ---- arguments ------------------------------------------------------------------ */

/* ndims, dims and periods of Cart_create and Cart_map; *nodes is the
 * number of processes of the grid, which must fit in size. */
static int check_grid(int ndims, const int dims[], const int periods[], int size, int *nodes)
{
    if (ndims < 0) {
        ol_api_set_detail("ndims %d is negative", ndims);
        return MPI_ERR_DIMS;
    }
    if (ndims > 0 && (!dims || !periods)) {
        ol_api_set_detail("dims or periods is NULL");
        return MPI_ERR_ARG;
    }
    long long product = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0) {
            ol_api_set_detail("dims[%d] = %d is not positive", i, dims[i]);
            return MPI_ERR_DIMS;
        }
        product *= dims[i];
        if (product > size) {
            ol_api_set_detail("the grid needs more processes than the %d of the communicator",
                              size);
            return MPI_ERR_ARG;
        }
    }
    *nodes = (int)product;
    return MPI_SUCCESS;
}

static int check_maxdims(int maxdims)
{
    if (maxdims >= 0)
        return MPI_SUCCESS;
    ol_api_set_detail("maxdims %d is negative", maxdims);
    return MPI_ERR_ARG;
}

static int min(int a, int b)
{
    return a < b ? a : b;
}

/* ---- construction --------------------------------------------------------------- */

static struct ol_topo *cart_new(int ndims, const int dims[], const int periods[])
{
    struct ol_topo *topo = ol_topo_new(MPI_CART);
    if (!topo)
        return NULL;
    topo->ndims = ndims;
    topo->dims = ol_topo_ints(dims, ndims);
    topo->periods = ol_topo_ints(NULL, ndims);
    if (!topo->dims || !topo->periods) {
        ol_topo_free(topo);
        return NULL;
    }
    for (int i = 0; i < ndims; i++)
        topo->periods[i] = periods[i] != 0;
    return topo;
}

int ol_api_cart_create(ol_comm_t *comm_old, int ndims, const int dims[], const int periods[],
                       int reorder, MPI_Comm *comm_cart)
{
    (void)reorder;
    int nodes;
    *comm_cart = MPI_COMM_NULL; /* what a failed call leaves, as in MPICH */
    int rc = check_grid(ndims, dims, periods, comm_old->size, &nodes);
    if (rc != MPI_SUCCESS)
        return rc;
    struct ol_topo *topo = cart_new(ndims, dims, periods);
    if (!topo)
        return MPI_ERR_NO_MEM;
    int color = comm_old->rank < nodes ? 0 : MPI_UNDEFINED;
    return ol_topo_create_comm(comm_old, color, comm_old->rank, topo, comm_cart);
}

/* Each process lands in the subgrid of the processes that share its
 * coordinates in the dropped dimensions: the color numbers those
 * coordinates row-major, the parent rank keeps the row-major order. */
int ol_api_cart_sub(ol_comm_t *comm, const int remain_dims[], MPI_Comm *newcomm)
{
    struct ol_topo *cart = ol_topo_of(comm, MPI_CART);
    if (!cart)
        return MPI_ERR_TOPOLOGY;
    if (cart->ndims > 0 && !remain_dims) {
        ol_api_set_detail("remain_dims is NULL");
        return MPI_ERR_ARG;
    }
    int n = cart->ndims, kept = 0, color = 0;
    int coords[n > 0 ? n : 1], dims[n > 0 ? n : 1], periods[n > 0 ? n : 1];
    coords_of(cart, comm->rank, coords);
    for (int i = 0; i < n; i++) {
        if (remain_dims[i]) {
            dims[kept] = cart->dims[i];
            periods[kept++] = cart->periods[i];
        } else {
            color = color * cart->dims[i] + coords[i];
        }
    }
    struct ol_topo *topo = cart_new(kept, dims, periods);
    if (!topo)
        return MPI_ERR_NO_MEM;
    return ol_topo_create_comm(comm, color, comm->rank, topo, newcomm);
}

/* ---- queries -------------------------------------------------------------------- */

int ol_api_cartdim_get(ol_comm_t *comm, int *ndims)
{
    struct ol_topo *cart = ol_topo_of(comm, MPI_CART);
    if (!cart)
        return MPI_ERR_TOPOLOGY;
    *ndims = cart->ndims;
    return MPI_SUCCESS;
}

/* At most maxdims entries are written: the arrays' length. */
int ol_api_cart_get(ol_comm_t *comm, int maxdims, int dims[], int periods[], int coords[])
{
    struct ol_topo *cart = ol_topo_of(comm, MPI_CART);
    if (!cart)
        return MPI_ERR_TOPOLOGY;
    int rc = check_maxdims(maxdims);
    if (rc != MPI_SUCCESS)
        return rc;
    int n = min(maxdims, cart->ndims);
    if (n > 0 && (!dims || !periods || !coords)) {
        ol_api_set_detail("dims, periods or coords is NULL");
        return MPI_ERR_ARG;
    }
    int mine[cart->ndims > 0 ? cart->ndims : 1];
    coords_of(cart, comm->rank, mine);
    for (int i = 0; i < n; i++) {
        dims[i] = cart->dims[i];
        periods[i] = cart->periods[i];
        coords[i] = mine[i];
    }
    return MPI_SUCCESS;
}

int ol_api_cart_rank(ol_comm_t *comm, const int coords[], int *rank)
{
    struct ol_topo *cart = ol_topo_of(comm, MPI_CART);
    if (!cart)
        return MPI_ERR_TOPOLOGY;
    if (cart->ndims > 0 && !coords) {
        ol_api_set_detail("coords is NULL");
        return MPI_ERR_ARG;
    }
    int r = 0;
    for (int i = 0; i < cart->ndims; i++) {
        int c = coords[i], d = cart->dims[i];
        if (c < 0 || c >= d) {
            if (!cart->periods[i]) {
                ol_api_set_detail("coords[%d] = %d is outside 0 .. %d of a non-periodic "
                                  "dimension", i, c, d - 1);
                return MPI_ERR_RANK;
            }
            c = wrap(c, d);
        }
        r = r * d + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int ol_api_cart_coords(ol_comm_t *comm, int rank, int maxdims, int coords[])
{
    struct ol_topo *cart = ol_topo_of(comm, MPI_CART);
    if (!cart)
        return MPI_ERR_TOPOLOGY;
    if (rank < 0 || rank >= comm->size) {
        ol_api_set_detail("rank %d is not a rank of the %d-process grid", rank, comm->size);
        return MPI_ERR_RANK;
    }
    int rc = check_maxdims(maxdims);
    if (rc != MPI_SUCCESS)
        return rc;
    int n = min(maxdims, cart->ndims);
    if (n > 0 && !coords) {
        ol_api_set_detail("coords is NULL");
        return MPI_ERR_ARG;
    }
    int all[cart->ndims > 0 ? cart->ndims : 1];
    coords_of(cart, rank, all);
    for (int i = 0; i < n; i++)
        coords[i] = all[i];
    return MPI_SUCCESS;
}

int ol_api_cart_shift(ol_comm_t *comm, int direction, int disp, int *rank_source,
                      int *rank_dest)
{
    struct ol_topo *cart = ol_topo_of(comm, MPI_CART);
    if (!cart)
        return MPI_ERR_TOPOLOGY;
    if (direction < 0 || direction >= cart->ndims) {
        ol_api_set_detail("direction %d is not a dimension of the %d-dimensional grid",
                          direction, cart->ndims);
        return MPI_ERR_ARG;
    }
    *rank_source = neighbor(cart, comm->rank, direction, -(long long)disp);
    *rank_dest = neighbor(cart, comm->rank, direction, disp);
    return MPI_SUCCESS;
}

/* With reorder ignored, the map keeps ranks: those beyond the grid are
 * not in it. */
int ol_api_cart_map(ol_comm_t *comm, int ndims, const int dims[], const int periods[],
                    int *newrank)
{
    int nodes;
    int rc = check_grid(ndims, dims, periods, comm->size, &nodes);
    if (rc != MPI_SUCCESS)
        return rc;
    *newrank = comm->rank < nodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- MPI_Dims_create ------------------------------------------------------------ */

/* The search for the most balanced split of n into k factors: every
 * non-increasing k-tuple of divisors whose product is n, keeping the one
 * with the least spread (largest minus smallest factor), and on a tie the
 * one whose smallest factor is larger, then its second smallest, and so
 * on, as MPICH does (5040 in 3: (21, 16, 15), not (20, 18, 14); 5616 in 4:
 * (13, 9, 8, 6), not (13, 12, 6, 6)), so that programs see the same grids
 * under both. Factors are drawn from the divisors of the
 * original n, which include the divisors of every partial quotient.
 * Example: 16 in 3 -> (4, 2, 2), spread 2, not (4, 4, 1), spread 3. */
typedef struct {
    int k;
    const int *divisors; /* ascending */
    int ndivisors;
    int *cur, *best;
    int best_spread;     /* -1 until a tuple is found */
} factor_search_t;

/* True when f to the power m is at least n: a first factor f can head m
 * factors of product n only if so, since the others are at most f. */
static bool power_reaches(int f, int m, int n)
{
    long long p = 1;
    for (int i = 0; i < m && p < n; i++)
        p *= f;
    return p >= n;
}

/* Of two tuples of one spread: whether cur's factors, smallest first, are
 * larger at the first place they differ. */
static bool larger_from_smallest(const factor_search_t *s)
{
    for (int i = s->k - 1; i >= 0; i--)
        if (s->cur[i] != s->best[i])
            return s->cur[i] > s->best[i];
    return false;
}

static void keep_if_better(factor_search_t *s)
{
    int spread = s->cur[0] - s->cur[s->k - 1];
    if (s->best_spread >= 0 && spread > s->best_spread)
        return;
    if (spread == s->best_spread && !larger_from_smallest(s))
        return;
    s->best_spread = spread;
    for (int i = 0; i < s->k; i++)
        s->best[i] = s->cur[i];
}

/* Chooses factor i of the tuple, at most cap, for the quotient n left. */
static void search_factors(factor_search_t *s, int i, int n, int cap)
{
    if (i == s->k - 1) {
        if (n <= cap) {
            s->cur[i] = n;
            keep_if_better(s);
        }
        return;
    }
    for (int j = s->ndivisors - 1; j >= 0; j--) {
        int f = s->divisors[j];
        if (f > cap || n % f)
            continue;
        if (!power_reaches(f, s->k - i, n))
            break; /* smaller factors cannot reach n either */
        /* The smallest factor will be at most f: no better from here on. */
        if (i > 0 && s->best_spread >= 0 && s->cur[0] - f > s->best_spread)
            break;
        s->cur[i] = f;
        search_factors(s, i + 1, n / f, f);
    }
}

/* The divisors of n, ascending, in a new array. */
static int *divisors_of(int n, int *count)
{
    int small = 0, large = 0;
    for (long long d = 1; d * d <= n; d++)
        if (n % d == 0)
            small++;
    int *div = malloc(sizeof(int) * 2 * (size_t)small);
    if (!div)
        return NULL;
    int *upper = div + small; /* the divisors above sqrt(n), descending */
    small = 0;
    for (long long d = 1; d * d <= n; d++) {
        if (n % d)
            continue;
        div[small++] = (int)d;
        if (d * d != n)
            upper[large++] = (int)(n / d);
    }
    for (int i = 0; i < large; i++)
        div[small + i] = upper[large - 1 - i];
    *count = small + large;
    return div;
}

/* The k factors of n, most balanced, non-increasing, into out. */
static int balanced_factors(int n, int k, int *out)
{
    int cur[k];
    factor_search_t s = {.k = k, .cur = cur, .best = out, .best_spread = -1};
    int *div = divisors_of(n, &s.ndivisors);
    if (!div)
        return MPI_ERR_NO_MEM;
    s.divisors = div;
    search_factors(&s, 0, n, n);
    free(div);
    return MPI_SUCCESS;
}

static int check_dims_args(int nnodes, int ndims, const int dims[])
{
    if (nnodes < 1) {
        ol_api_set_detail("nnodes %d is not positive", nnodes);
        return MPI_ERR_ARG;
    }
    if (ndims < 0) {
        ol_api_set_detail("ndims %d is negative", ndims);
        return MPI_ERR_DIMS;
    }
    if (ndims > 0 && !dims) {
        ol_api_set_detail("dims is NULL");
        return MPI_ERR_ARG;
    }
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0) {
            ol_api_set_detail("dims[%d] = %d is negative", i, dims[i]);
            return MPI_ERR_DIMS;
        }
    }
    return MPI_SUCCESS;
}

/* Entries of dims that are not zero are kept; the zeros get the most
 * balanced factors of what is left of nnodes, non-increasing. */
int ol_api_dims_create(int nnodes, int ndims, int dims[])
{
    int rc = check_dims_args(nnodes, ndims, dims);
    if (rc != MPI_SUCCESS)
        return rc;
    long long fixed = 1;
    int free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] == 0)
            free_dims++;
        else if ((fixed *= dims[i]) > nnodes)
            break;
    }
    if (fixed > nnodes || nnodes % fixed || (free_dims == 0 && fixed != nnodes)) {
        ol_api_set_detail("%d processes cannot fill the dimensions given in dims", nnodes);
        return MPI_ERR_DIMS;
    }
    if (free_dims == 0)
        return MPI_SUCCESS;
    int factors[free_dims];
    rc = balanced_factors(nnodes / (int)fixed, free_dims, factors);
    for (int i = 0, j = 0; rc == MPI_SUCCESS && i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = factors[j++];
    return rc;
}
