/* Groups: objects and the MPI_Group_* calls. */
#include "gen_impl.h"

#include <stdlib.h>
#include <string.h>

ol_group_t ol_group_empty = {.magic = OL_GROUP_MAGIC, .refcount = 1, .predefined = true,
                             .size = 0, .rank = MPI_UNDEFINED};

/* Groups of up to this many members are searched member by member. */
#define LINEAR_SEARCH_MEMBERS 16

static int by_world_rank(const void *a, const void *b)
{
    int wa = ((const ol_group_member_t *)a)->world_rank;
    int wb = ((const ol_group_member_t *)b)->world_rank;
    return (wa > wb) - (wa < wb);
}

/* What ol_group_rank_of searches, so that translating ranks into a group,
 * comparing groups and making communicators from them take a lookup per
 * rank instead of a scan of the group (MPICH's perf/gtranksperf: 20 ranks
 * into MPI_COMM_WORLD's group took 4.5 times as long as into
 * MPI_COMM_SELF's). False without memory. */
static bool index_group(ol_group_t *g)
{
    g->consecutive = true;
    for (int i = 1; i < g->size && g->consecutive; i++)
        g->consecutive = g->world_ranks[i] == g->world_ranks[0] + i;
    if (g->consecutive || g->size <= LINEAR_SEARCH_MEMBERS)
        return true;
    g->by_world = malloc(sizeof(*g->by_world) * (size_t)g->size);
    if (!g->by_world)
        return false;
    for (int i = 0; i < g->size; i++)
        g->by_world[i] = (ol_group_member_t){.world_rank = g->world_ranks[i], .rank = i};
    qsort(g->by_world, (size_t)g->size, sizeof(*g->by_world), by_world_rank);
    return true;
}

ol_group_t *ol_group_create(int n, const int *world_ranks)
{
    ol_group_t *g = malloc(sizeof(*g));
    int *ranks = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!g || !ranks) {
        free(g);
        free(ranks);
        return NULL;
    }
    *g = (ol_group_t){.magic = OL_GROUP_MAGIC, .refcount = 1, .size = n, .rank = MPI_UNDEFINED,
                      .world_ranks = ranks};
    for (int i = 0; i < n; i++) {
        ranks[i] = world_ranks ? world_ranks[i] : i;
        if (ranks[i] == ol_rt.rank)
            g->rank = i;
    }
    if (!index_group(g)) {
        free(ranks);
        free(g);
        return NULL;
    }
    return g;
}

ol_group_t *ol_group_create_identity(int n)
{
    return ol_group_create(n, NULL);
}

void ol_group_retain(ol_group_t *g)
{
    if (!g->predefined)
        __atomic_add_fetch(&g->refcount, 1, __ATOMIC_RELAXED);
}

void ol_group_release(ol_group_t *g)
{
    if (g->predefined || __atomic_sub_fetch(&g->refcount, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    g->magic = 0;
    if (g->session)
        ol_session_release(g->session);
    free(g->world_ranks);
    free(g->by_world);
    free(g);
}

void ol_group_inherit_session(ol_group_t *g, const ol_group_t *from)
{
    if (from->session && !g->predefined) {
        ol_session_retain(from->session);
        g->session = from->session;
    }
}

ol_group_t *ol_group_from_handle(MPI_Group handle)
{
    if (handle == MPI_GROUP_EMPTY)
        return &ol_group_empty;
    if ((uintptr_t)handle < 4096)
        return NULL; /* MPI_GROUP_NULL */
    ol_group_t *g = (ol_group_t *)handle;
    return g->magic == OL_GROUP_MAGIC ? g : NULL;
}

MPI_Group ol_group_to_handle(ol_group_t *g)
{
    return g == &ol_group_empty ? MPI_GROUP_EMPTY : (MPI_Group)g;
}

int ol_group_rank_of(const ol_group_t *g, int world_rank)
{
    if (g->consecutive) {
        int64_t i = (int64_t)world_rank - (g->size ? g->world_ranks[0] : 0);
        return i >= 0 && i < g->size ? (int)i : MPI_UNDEFINED;
    }
    if (!g->by_world) {
        for (int i = 0; i < g->size; i++)
            if (g->world_ranks[i] == world_rank)
                return i;
        return MPI_UNDEFINED;
    }
    int low = 0, high = g->size - 1;
    while (low <= high) {
        int mid = low + (high - low) / 2, at = g->by_world[mid].world_rank;
        if (at == world_rank)
            return g->by_world[mid].rank;
        if (at < world_rank)
            low = mid + 1;
        else
            high = mid - 1;
    }
    return MPI_UNDEFINED;
}

int ol_group_compare(const ol_group_t *a, const ol_group_t *b)
{
    if (a->size != b->size)
        return MPI_UNEQUAL;
    bool same_order = true;
    for (int i = 0; i < a->size; i++) {
        if (a->world_ranks[i] != b->world_ranks[i])
            same_order = false;
        if (ol_group_rank_of(b, a->world_ranks[i]) == MPI_UNDEFINED)
            return MPI_UNEQUAL;
    }
    return same_order ? MPI_IDENT : MPI_SIMILAR;
}

/* Hands a new group, made from the group from, to the user, or
 * MPI_GROUP_EMPTY when it has no member. */
static int give(ol_group_t *g, const ol_group_t *from, MPI_Group *newgroup)
{
    if (!g)
        return MPI_ERR_NO_MEM;
    ol_group_inherit_session(g, from);
    if (g->size == 0) {
        ol_group_release(g);
        g = &ol_group_empty;
    }
    *newgroup = ol_group_to_handle(g);
    return MPI_SUCCESS;
}

int ol_api_group_size(ol_group_t *group, int *size)
{
    *size = group->size;
    return MPI_SUCCESS;
}

int ol_api_group_rank(ol_group_t *group, int *rank)
{
    *rank = group->rank;
    return MPI_SUCCESS;
}

int ol_api_group_free(MPI_Group *group)
{
    ol_group_t *g = ol_group_from_handle(*group);
    if (!g) {
        ol_api_set_detail("group is not a valid group");
        return MPI_ERR_GROUP;
    }
    ol_group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int ol_api_group_compare(ol_group_t *group1, ol_group_t *group2, int *result)
{
    *result = ol_group_compare(group1, group2);
    return MPI_SUCCESS;
}

int ol_api_group_translate_ranks(ol_group_t *group1, int n, const int ranks1[],
                                 ol_group_t *group2, int ranks2[])
{
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2))) {
        ol_api_set_detail("n is %d or a rank array is NULL", n);
        return MPI_ERR_ARG;
    }
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (ranks1[i] < 0 || ranks1[i] >= group1->size) {
            ol_api_set_detail("ranks1[%d] = %d is not a rank of group1 (size %d)", i, ranks1[i],
                              group1->size);
            return MPI_ERR_RANK;
        }
        ranks2[i] = ol_group_rank_of(group2, group1->world_ranks[ranks1[i]]);
    }
    return MPI_SUCCESS;
}

/* ---- constructors ------------------------------------------------------ */

static int check_ranks(const ol_group_t *g, int n, const int ranks[], const char *arg)
{
    if (n < 0 || n > g->size || (n > 0 && !ranks)) {
        ol_api_set_detail("n = %d is not between 0 and the group size %d", n, g->size);
        return MPI_ERR_ARG;
    }
    char *seen = calloc((size_t)g->size + 1, 1);
    if (!seen)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || seen[ranks[i]]) {
            ol_api_set_detail("%s[%d] = %d is %s", arg, i, ranks[i],
                              ranks[i] < 0 || ranks[i] >= g->size ? "not a rank of the group"
                                                                  : "repeated");
            free(seen);
            return MPI_ERR_RANK;
        }
        seen[ranks[i]] = 1;
    }
    free(seen);
    return MPI_SUCCESS;
}

int ol_api_group_incl(ol_group_t *group, int n, const int ranks[], MPI_Group *newgroup)
{
    int rc = check_ranks(group, n, ranks, "ranks");
    if (rc != MPI_SUCCESS)
        return rc;
    int *world = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!world)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        world[i] = group->world_ranks[ranks[i]];
    rc = give(ol_group_create(n, world), group, newgroup);
    free(world);
    return rc;
}

/* The members of group whose flag is keep, in group order. */
static int filter(const ol_group_t *group, const char *flags, char keep, MPI_Group *newgroup)
{
    int *world = malloc(sizeof(int) * (size_t)(group->size ? group->size : 1));
    if (!world)
        return MPI_ERR_NO_MEM;
    int n = 0;
    for (int i = 0; i < group->size; i++)
        if (flags[i] == keep)
            world[n++] = group->world_ranks[i];
    int rc = give(ol_group_create(n, world), group, newgroup);
    free(world);
    return rc;
}

int ol_api_group_excl(ol_group_t *group, int n, const int ranks[], MPI_Group *newgroup)
{
    int rc = check_ranks(group, n, ranks, "ranks");
    if (rc != MPI_SUCCESS)
        return rc;
    char *excluded = calloc((size_t)group->size + 1, 1);
    if (!excluded)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        excluded[ranks[i]] = 1;
    rc = filter(group, excluded, 0, newgroup);
    free(excluded);
    return rc;
}

/* Expands (first, last, stride) triplets into a rank list, checking them. */
static int expand_ranges(const ol_group_t *g, int n, int ranges[][3], int **ranks, int *count)
{
    if (n < 0 || (n > 0 && !ranges)) {
        ol_api_set_detail("n = %d or ranges is NULL", n);
        return MPI_ERR_ARG;
    }
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0 || first < 0 || first >= g->size || last < 0 || last >= g->size ||
            (stride > 0 && first > last) || (stride < 0 && first < last)) {
            ol_api_set_detail("ranges[%d] = (%d, %d, %d) is not a valid range of a group of %d",
                              i, first, last, stride, g->size);
            return MPI_ERR_RANK;
        }
        total += (last - first) / stride + 1;
    }
    if (total > g->size) {
        ol_api_set_detail("the ranges name %ld ranks, more than the group's %d", total, g->size);
        return MPI_ERR_RANK;
    }
    *ranks = malloc(sizeof(int) * (size_t)(total ? total : 1));
    if (!*ranks)
        return MPI_ERR_NO_MEM;
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int r = ranges[i][0]; ranges[i][2] > 0 ? r <= ranges[i][1] : r >= ranges[i][1];
             r += ranges[i][2])
            (*ranks)[k++] = r;
    *count = k;
    return MPI_SUCCESS;
}

int ol_api_group_range_incl(ol_group_t *group, int n, int ranges[][3], MPI_Group *newgroup)
{
    int *ranks, count;
    int rc = expand_ranges(group, n, ranges, &ranks, &count);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ol_api_group_incl(group, count, ranks, newgroup);
    free(ranks);
    return rc;
}

int ol_api_group_range_excl(ol_group_t *group, int n, int ranges[][3], MPI_Group *newgroup)
{
    int *ranks, count;
    int rc = expand_ranges(group, n, ranges, &ranks, &count);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = ol_api_group_excl(group, count, ranks, newgroup);
    free(ranks);
    return rc;
}

/* Flags of group1's members: 1 when also in group2. */
static char *membership(const ol_group_t *group1, const ol_group_t *group2)
{
    char *in2 = calloc((size_t)group1->size + 1, 1);
    if (in2)
        for (int i = 0; i < group1->size; i++)
            in2[i] = ol_group_rank_of(group2, group1->world_ranks[i]) != MPI_UNDEFINED;
    return in2;
}

int ol_api_group_intersection(ol_group_t *group1, ol_group_t *group2, MPI_Group *newgroup)
{
    char *in2 = membership(group1, group2);
    if (!in2)
        return MPI_ERR_NO_MEM;
    int rc = filter(group1, in2, 1, newgroup);
    free(in2);
    return rc;
}

int ol_api_group_difference(ol_group_t *group1, ol_group_t *group2, MPI_Group *newgroup)
{
    char *in2 = membership(group1, group2);
    if (!in2)
        return MPI_ERR_NO_MEM;
    int rc = filter(group1, in2, 0, newgroup);
    free(in2);
    return rc;
}

/* group1's members, then group2's that are not in group1. */
int ol_api_group_union(ol_group_t *group1, ol_group_t *group2, MPI_Group *newgroup)
{
    int n = group1->size + group2->size;
    int *world = malloc(sizeof(int) * (size_t)(n ? n : 1));
    char *in1 = membership(group2, group1);
    if (!world || !in1) {
        free(world);
        free(in1);
        return MPI_ERR_NO_MEM;
    }
    int k = group1->size;
    memcpy(world, group1->world_ranks, sizeof(int) * (size_t)group1->size);
    for (int i = 0; i < group2->size; i++)
        if (!in1[i])
            world[k++] = group2->world_ranks[i];
    int rc = give(ol_group_create(k, world), group1, newgroup);
    free(world);
    free(in1);
    return rc;
}
