/* comm_create: communicator creation, checked by group membership, rank
 * order and traffic on the new communicators.
 *
 * 1. MPI_Comm_split: color rank % 3 with key -rank (ranks reversed inside
 *    each color), equal keys (parent order kept), MPI_UNDEFINED for odd
 *    ranks (MPI_COMM_NULL), one color for all (MPI_CONGRUENT with the
 *    parent); a ring of messages on each new communicator.
 * 2. MPI_Comm_create with the group of even ranks (odd ranks get
 *    MPI_COMM_NULL), and with disjoint groups (evens pass the evens, odds
 *    the odds: each gets its own); MPI_GROUP_EMPTY gives MPI_COMM_NULL.
 * 3. MPI_Comm_create_group, called by the first half only, with a tag; the
 *    second half meanwhile builds its own with another tag.
 * 4. MPI_Intercomm_create between the lower and the upper half (leaders:
 *    local rank 0, peer MPI_COMM_WORLD), then point-to-point across it in
 *    both directions (status source is a remote rank), remote size and
 *    group, MPI_Comm_test_inter; a second one built with the groups'
 *    leaders at their last local rank.
 * 5. MPI_Intercomm_merge with high = 0 in the lower half and 1 in the
 *    upper (lower first), the reverse (upper first), and the same flag on
 *    both sides (each half contiguous); traffic on each merged comm.
 * 6. MPI_Comm_dup/MPI_Comm_free 10,000 times: the heap (mallinfo2) must
 *    not grow by more than 256 kB after a warm-up.
 * 7. MPI_Comm_create_from_group: each half passes its group and its own
 *    stringtag at once; the communicator holds the half and has the error
 *    handler passed (MPI_ERRORS_RETURN). A group without the caller gives
 *    MPI_ERR_GROUP, a NULL stringtag MPI_ERR_ARG.
 * 8. MPI_Intercomm_create_from_groups between the halves (leaders: the
 *    lower half's first rank, the upper half's last), checked as in 4. */
#include "topo_util.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every process of comm sends its world rank to the next and checks what
 * it receives from the previous. */
static void ring(MPI_Comm comm, const char *what)
{
    int rank, size, got = -1, expect_world, prev;
    MPI_Group g, world;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    prev = (rank - 1 + size) % size;
    MPI_Sendrecv(&tu_rank, 1, MPI_INT, (rank + 1) % size, 3, &got, 1, MPI_INT, prev, 3, comm,
                 MPI_STATUS_IGNORE);
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(g, 1, &prev, world, &expect_world);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    TU_CHECK(got == expect_world, "%s: ring got %d from rank %d, expected world rank %d", what,
             got, prev, expect_world);
}

/* comm holds exactly world ranks members[0 .. n-1] in that order. */
static void expect_members(MPI_Comm comm, const int *members, int n, const char *what)
{
    int size, rank, all[tu_size];

    TU_CHECK(comm != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    TU_CHECK(size == n, "%s: size %d, expected %d", what, size, n);
    TU_CHECK(members[rank] == tu_rank, "%s: I am rank %d, which should be world rank %d", what,
             rank, members[rank]);
    tu_allgather_ints(&tu_rank, 1, all, comm);
    for (int i = 0; i < n; i++)
        TU_CHECK(all[i] == members[i], "%s: rank %d is world rank %d, expected %d", what, i,
                 all[i], members[i]);
    ring(comm, what);
}

/* ---- split ---- */

static void split(void)
{
    int members[tu_size], n = 0, result;
    MPI_Comm c;

    /* color rank % 3, key -rank: the highest rank of each color first. */
    MPI_Comm_split(MPI_COMM_WORLD, tu_rank % 3, -tu_rank, &c);
    for (int r = tu_size - 1; r >= 0; r--)
        if (r % 3 == tu_rank % 3)
            members[n++] = r;
    expect_members(c, members, n, "split by rank % 3, key -rank");
    MPI_Comm_free(&c);

    /* Equal keys keep the parent's order. */
    MPI_Comm_split(MPI_COMM_WORLD, tu_rank % 2, 7, &c);
    n = 0;
    for (int r = 0; r < tu_size; r++)
        if (r % 2 == tu_rank % 2)
            members[n++] = r;
    expect_members(c, members, n, "split by rank % 2, equal keys");
    MPI_Comm_free(&c);

    MPI_Comm_split(MPI_COMM_WORLD, tu_rank % 2 ? MPI_UNDEFINED : 1, 0, &c);
    if (tu_rank % 2) {
        TU_CHECK(c == MPI_COMM_NULL, "split with MPI_UNDEFINED gave a communicator");
    } else {
        n = 0;
        for (int r = 0; r < tu_size; r += 2)
            members[n++] = r;
        expect_members(c, members, n, "split of even ranks");
        MPI_Comm_free(&c);
    }

    MPI_Comm_split(MPI_COMM_WORLD, 5, tu_rank, &c);
    MPI_Comm_compare(c, MPI_COMM_WORLD, &result);
    TU_CHECK(result == MPI_CONGRUENT, "one color: compare says %d, expected MPI_CONGRUENT",
             result);
    MPI_Comm_free(&c);
}

/* ---- create ---- */

static MPI_Group world_group_of(int parity)
{
    MPI_Group world, g;
    int ranks[tu_size], n = 0;

    for (int r = parity; r < tu_size; r += 2)
        ranks[n++] = r;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, ranks, &g);
    MPI_Group_free(&world);
    return g;
}

static void ranks_of_parity(int parity, int *members, int *n)
{
    *n = 0;
    for (int r = parity; r < tu_size; r += 2)
        members[(*n)++] = r;
}

static void create(void)
{
    int members[tu_size], n;
    MPI_Group evens = world_group_of(0), mine = world_group_of(tu_rank % 2);
    MPI_Comm c;

    MPI_Comm_create(MPI_COMM_WORLD, evens, &c);
    if (tu_rank % 2) {
        TU_CHECK(c == MPI_COMM_NULL, "Comm_create: an odd rank got a communicator");
    } else {
        ranks_of_parity(0, members, &n);
        expect_members(c, members, n, "Comm_create of the evens");
        MPI_Comm_free(&c);
    }

    /* Disjoint groups, one per parity (MPI-2.2). */
    MPI_Comm_create(MPI_COMM_WORLD, mine, &c);
    ranks_of_parity(tu_rank % 2, members, &n);
    expect_members(c, members, n, "Comm_create of my parity");
    MPI_Comm_free(&c);

    MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &c);
    TU_CHECK(c == MPI_COMM_NULL, "Comm_create of MPI_GROUP_EMPTY gave a communicator");
    MPI_Group_free(&evens);
    MPI_Group_free(&mine);
}

static void create_group(void)
{
    int half = tu_size / 2 > 0 ? tu_size / 2 : 1, lower = tu_rank < half;
    int members[tu_size], n = 0;
    MPI_Group world, g;
    MPI_Comm c;

    for (int r = lower ? 0 : half; r < (lower ? half : tu_size); r++)
        members[n++] = r;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, members, &g);
    MPI_Comm_create_group(MPI_COMM_WORLD, g, lower ? 11 : 12, &c);
    expect_members(c, members, n, lower ? "Comm_create_group, lower half"
                                        : "Comm_create_group, upper half");
    MPI_Comm_free(&c);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
}

/* ---- intercommunicators ---- */

/* The lower half [0, h) and the upper half [h, size). */
static int half_size(void)
{
    return tu_size / 2;
}

/* The intercommunicator between the halves; leader: the local rank that
 * leads each half. */
static MPI_Comm make_intercomm(MPI_Comm *local, int leader_last)
{
    int h = half_size(), lower = tu_rank < h, lsize = lower ? h : tu_size - h;
    int local_leader = leader_last ? lsize - 1 : 0;
    int remote_leader = lower ? (leader_last ? tu_size - 1 : h) : (leader_last ? h - 1 : 0);
    MPI_Comm inter;

    MPI_Comm_split(MPI_COMM_WORLD, lower, tu_rank, local);
    MPI_Intercomm_create(*local, local_leader, MPI_COMM_WORLD, remote_leader, 77, &inter);
    return inter;
}

static void check_intercomm(MPI_Comm inter)
{
    int h = half_size(), lower = tu_rank < h, flag, size, rsize, rank;
    int lsize = lower ? h : tu_size - h, remote_first = lower ? h : 0;

    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &rank);
    TU_CHECK(flag && size == lsize && rsize == tu_size - lsize &&
                 rank == tu_rank - (lower ? 0 : h),
             "intercomm: inter %d size %d remote %d rank %d", flag, size, rsize, rank);
    MPI_Group rg, world;
    int r0 = 0, w;
    MPI_Comm_remote_group(inter, &rg);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(rg, 1, &r0, world, &w);
    TU_CHECK(w == remote_first, "intercomm: remote rank 0 is world %d, expected %d", w,
             remote_first);
    MPI_Group_free(&rg);
    MPI_Group_free(&world);

    /* Local rank i sends to remote rank i % rsize; a remote rank that
     * several local ranks reach receives from each of them. */
    int peer = rank % rsize, got = -1;
    MPI_Status st;
    MPI_Request req;
    MPI_Isend(&tu_rank, 1, MPI_INT, peer, 21, inter, &req);
    /* Messages come from the remote ranks j with j % size == rank. */
    for (int j = rank; j < rsize; j += size) {
        MPI_Recv(&got, 1, MPI_INT, j, 21, inter, &st);
        TU_CHECK(st.MPI_SOURCE == j && got == remote_first + j,
                 "intercomm: from remote %d got %d (status source %d), expected world %d", j,
                 got, st.MPI_SOURCE, remote_first + j);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void intercomms(void)
{
    if (tu_size < 2)
        return;
    for (int leader_last = 0; leader_last < 2; leader_last++) {
        MPI_Comm local, inter;
        inter = make_intercomm(&local, leader_last);
        check_intercomm(inter);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&local);
    }
}

/* The merged communicator of the halves with the given high flags. */
static void merge(int high_lower, int high_upper, const char *what)
{
    int h = half_size(), lower = tu_rank < h, members[tu_size], n = 0;
    MPI_Comm local, inter, merged;

    inter = make_intercomm(&local, 0);
    MPI_Intercomm_merge(inter, lower ? high_lower : high_upper, &merged);
    if (high_lower == high_upper) {
        /* Either half may come first; each stays contiguous and in order. */
        int first, size;
        MPI_Comm_size(merged, &size);
        TU_CHECK(size == tu_size, "%s: size %d", what, size);
        int all[tu_size];
        tu_allgather_ints(&tu_rank, 1, all, merged);
        first = all[0] == 0 ? 0 : h;
        for (int r = first; r < tu_size; r++)
            members[n++] = r;
        for (int r = 0; r < first; r++)
            members[n++] = r;
    } else {
        int lower_first = high_lower < high_upper;
        for (int r = lower_first ? 0 : h; r < (lower_first ? h : tu_size); r++)
            members[n++] = r;
        for (int r = lower_first ? h : 0; r < (lower_first ? tu_size : h); r++)
            members[n++] = r;
    }
    expect_members(merged, members, n, what);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

static void merges(void)
{
    if (tu_size < 2)
        return;
    merge(0, 1, "merge, lower low");
    merge(1, 0, "merge, upper low");
    merge(0, 0, "merge, both low");
    merge(1, 1, "merge, both high");
}

/* ---- from groups ---- */

/* The group of world ranks [first, end). */
static MPI_Group world_range(int first, int end, int *members)
{
    MPI_Group world, g;
    int n = 0;

    for (int r = first; r < end; r++)
        members[n++] = r;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, n, members, &g);
    MPI_Group_free(&world);
    return g;
}

static void from_group(void)
{
    int half = tu_size / 2 > 0 ? tu_size / 2 : 1, lower = tu_rank < half;
    int first = lower ? 0 : half, end = lower ? half : tu_size, members[tu_size];
    MPI_Group g = world_range(first, end, members);
    MPI_Errhandler eh;
    MPI_Comm c;

    MPI_Comm_create_from_group(g, lower ? "org.ompi-lite.test.lower" : "org.ompi-lite.test.upper",
                               MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    expect_members(c, members, end - first, "Comm_create_from_group of my half");
    MPI_Comm_get_errhandler(c, &eh);
    TU_CHECK(eh == MPI_ERRORS_RETURN,
             "Comm_create_from_group: the communicator lacks the error handler passed");
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&c);

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_create_from_group(g, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c), cls;
    MPI_Error_class(rc, &cls);
    TU_CHECK(cls == MPI_ERR_ARG, "Comm_create_from_group with a NULL stringtag: class %d", cls);
    if (tu_size > 1) {
        int other_first = lower ? half : 0, other_end = lower ? tu_size : half;
        MPI_Group other = world_range(other_first, other_end, members);
        rc = MPI_Comm_create_from_group(other, "org.ompi-lite.test.other", MPI_INFO_NULL,
                                        MPI_ERRORS_RETURN, &c);
        MPI_Error_class(rc, &cls);
        TU_CHECK(cls == MPI_ERR_GROUP,
                 "Comm_create_from_group of a group without the caller: class %d", cls);
        MPI_Group_free(&other);
    }
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Group_free(&g);
}

static void intercomm_from_groups(void)
{
    if (tu_size < 2)
        return;
    int h = half_size(), lower = tu_rank < h, members[tu_size];
    MPI_Group lower_group = world_range(0, h, members);
    MPI_Group upper_group = world_range(h, tu_size, members);
    MPI_Comm inter;

    /* Leaders: lower rank 0 and upper rank tu_size - h - 1. */
    if (lower)
        MPI_Intercomm_create_from_groups(lower_group, 0, upper_group, tu_size - h - 1,
                                         "org.ompi-lite.test.halves", MPI_INFO_NULL,
                                         MPI_ERRORS_ARE_FATAL, &inter);
    else
        MPI_Intercomm_create_from_groups(upper_group, tu_size - h - 1, lower_group, 0,
                                         "org.ompi-lite.test.halves", MPI_INFO_NULL,
                                         MPI_ERRORS_ARE_FATAL, &inter);
    check_intercomm(inter);
    MPI_Comm_free(&inter);
    MPI_Group_free(&lower_group);
    MPI_Group_free(&upper_group);
}

/* ---- dup/free ---- */

static void dup_free_loop(void)
{
    enum { WARMUP = 200, LOOPS = 10000, SLACK = 256 * 1024 };
    MPI_Comm c;

    for (int i = 0; i < WARMUP; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_free(&c);
    }
    struct mallinfo2 before = mallinfo2();
    for (int i = 0; i < LOOPS; i++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_free(&c);
    }
    struct mallinfo2 after = mallinfo2();
    TU_CHECK(after.uordblks <= before.uordblks + SLACK,
             "%d dup/free pairs grew the heap from %zu to %zu bytes", LOOPS, before.uordblks,
             after.uordblks);
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    ring(c, "dup after the loop");
    MPI_Comm_free(&c);
}

int main(int argc, char **argv)
{
    tu_init(&argc, &argv, "comm_create");
    split();
    create();
    create_group();
    intercomms();
    merges();
    from_group();
    intercomm_from_groups();
    if (argc > 1 && strcmp(argv[1], "dup") == 0)
        dup_free_loop();
    MPI_Barrier(MPI_COMM_WORLD);
    if (tu_rank == 0)
        printf("comm_create: %d ranks OK\n", tu_size);
    MPI_Finalize();
    return 0;
}
