/* Windows: creation of the four flavors, the memory of allocated and
 * shared windows, attach and detach, shared queries, and free. */
#include "coll.h"
#include "ol_accel.h"
#include "ol_log.h"
#include "ol_runtime.h"
#include "ol_shm_file.h"
#include "rma_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

ol_win_t *ol_win_from_handle(MPI_Win handle)
{
    if ((uintptr_t)handle < 4096)
        return NULL; /* MPI_WIN_NULL */
    ol_win_t *win = (ol_win_t *)handle;
    return win->magic == OL_WIN_MAGIC ? win : NULL;
}

static void free_state(ol_rma_state_t *s)
{
    free(s->peers);
    free(s->data_pending);
    free(s->apart_pending);
    free(s->touched);
    ol_rma_bundles_free(s);
    free(s->access);
    free(s->lock_type);
    free(s->lock_nocheck);
    free((void *)s->posts);
    free(s->origin_error);
    free(s->pids);
    free(s->remote_bases);
    free(s->probe_addresses);
    while (s->regions) {
        ol_rma_region_t *r = s->regions;
        s->regions = r->next;
        free(r);
    }
    free(s);
}

static ol_rma_state_t *new_state(int size, bool dynamic)
{
    ol_rma_state_t *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->size = size;
    s->exclusive_holder = -1;
    s->naccess = -1;
    s->peers = dynamic ? NULL : calloc((size_t)size, sizeof(*s->peers));
    s->data_pending = calloc((size_t)size, sizeof(int));
    s->apart_pending = calloc((size_t)size, sizeof(int));
    s->touched = calloc((size_t)size, sizeof(bool));
    s->bundles = calloc((size_t)size, sizeof(*s->bundles));
    s->access = calloc((size_t)size, sizeof(int));
    s->lock_type = calloc((size_t)size, sizeof(int));
    s->lock_nocheck = calloc((size_t)size, sizeof(bool));
    s->posts = calloc((size_t)size, sizeof(int));
    s->origin_error = calloc((size_t)size, sizeof(ol_status_t));
    if ((!dynamic && !s->peers) || !s->data_pending || !s->apart_pending || !s->touched ||
        !s->bundles || !s->access || !s->lock_type || !s->lock_nocheck || !s->posts ||
        !s->origin_error) {
        free_state(s);
        return NULL;
    }
    return s;
}

static bool all_on_this_host(const ol_comm_t *comm)
{
    for (int r = 0; r < comm->size; r++)
        if (!ol_rt_same_host(ol_comm_world_rank(comm, r)))
            return false;
    return true;
}

enum { HOST_MEMORY, DEVICE_MEMORY, UNUSABLE_DEVICE_MEMORY };

/* Where the memory the program gave lies. */
static int on_device(const ol_win_spec_t *spec)
{
    if (spec->flavor != MPI_WIN_FLAVOR_CREATE || spec->size == 0 ||
        !ol_accel_is_device(spec->base))
        return HOST_MEMORY;
    return ol_accel_usable() ? DEVICE_MEMORY : UNUSABLE_DEVICE_MEMORY;
}

/* What each process tells the others of its window at creation. */
enum { FACT_SIZE, FACT_DISP_UNIT, FACT_ON_DEVICE, FACT_WANTS_DIRECT, FACT_PID, FACT_BASE,
       FACT_PROBE, FACTS };

/* Every process learns every other's size, displacement unit, and what the
 * direct path needs (whether it wants it, its pid and base for
 * cross-memory attach), in one allgather; all fail together if one's
 * memory cannot be a window's. */
static ol_status_t exchange_facts(ol_rma_state_t *s, const ol_win_spec_t *spec, ol_comm_t *comm)
{
    MPI_Aint mine[FACTS] = {
        [FACT_SIZE] = spec->size,
        [FACT_DISP_UNIT] = spec->disp_unit,
        [FACT_ON_DEVICE] = on_device(spec),
        [FACT_WANTS_DIRECT] = ol_rma_direct_wanted() && all_on_this_host(comm),
        [FACT_PID] = getpid(),
        [FACT_BASE] = (MPI_Aint)(uintptr_t)spec->base,
        [FACT_PROBE] = (MPI_Aint)(uintptr_t)s,
    };
    MPI_Aint *all = malloc(FACTS * sizeof(MPI_Aint) * (size_t)s->size);
    s->pids = calloc((size_t)s->size, sizeof(pid_t));
    s->remote_bases = calloc((size_t)s->size, sizeof(void *));
    s->probe_addresses = calloc((size_t)s->size, sizeof(void *));
    if (!all || !s->pids || !s->remote_bases || !s->probe_addresses) {
        free(all);
        ol_error_detail("out of memory for a window");
        return MPI_ERR_NO_MEM;
    }
    ol_datatype_t *aint = ol_dt_from_handle(MPI_AINT);
    ol_status_t rc = ol_coll_allgather(mine, FACTS, aint, all, FACTS, aint, comm);
    s->direct = true;
    for (int r = 0; rc == MPI_SUCCESS && r < s->size; r++) {
        const MPI_Aint *f = all + (size_t)r * FACTS;
        s->peers[r].size = f[FACT_SIZE];
        s->peers[r].disp_unit = f[FACT_DISP_UNIT];
        s->direct = s->direct && f[FACT_WANTS_DIRECT];
        s->pids[r] = (pid_t)f[FACT_PID];
        s->remote_bases[r] = (void *)(uintptr_t)f[FACT_BASE];
        s->probe_addresses[r] = (void *)(uintptr_t)f[FACT_PROBE];
        /* Device memory is reached through the target's driver: messages. */
        s->direct = s->direct && f[FACT_ON_DEVICE] == HOST_MEMORY;
        s->on_device = s->on_device || f[FACT_ON_DEVICE] != HOST_MEMORY;
        if (f[FACT_ON_DEVICE] == UNUSABLE_DEVICE_MEMORY && rc == MPI_SUCCESS) {
            ol_error_detail("rank %d's base is CUDA device memory, which its library cannot "
                            "use (built without CUDA, or no usable driver)", r);
            rc = MPI_ERR_BUFFER;
        }
    }
    if (s->direct)
        s->control_bytes = ol_rma_control_bytes(s->size);
    free(all);
    return rc;
}

/* ---- shared memory ---------------------------------------------------------- */


/* Where each rank's memory begins in the segment: one after the other
 * (the standard's default), or each on its own pages (noncontig). */
static size_t lay_out(ol_rma_state_t *s, bool noncontig, size_t *offsets)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), at = s->control_bytes;
    for (int r = 0; r < s->size; r++) {
        offsets[r] = at;
        at += (size_t)s->peers[r].size;
        if (noncontig)
            at = (at + page - 1) / page * page;
    }
    return at;
}

/* Rank 0 makes the segment, the others open it once it says its name;
 * everyone agrees whether all could map it before anyone uses it. */
static ol_status_t map_segment(ol_rma_state_t *s, ol_comm_t *comm, size_t bytes)
{
    char name[OL_SHM_NAME_MAX] = "";
    char why[300] = "";
    int fd = -1;
    if (comm->rank == 0) {
        if (!ol_shm_new_coll_name(name, sizeof(name)))
            snprintf(why, sizeof(why), "no random name for a shared segment");
        else if ((fd = ol_shm_create(name, bytes, why, sizeof(why))) < 0)
            name[0] = '\0';
    }
    ol_datatype_t *chars = ol_dt_from_handle(MPI_CHAR);
    ol_status_t rc = ol_coll_bcast(name, sizeof(name), chars, 0, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (comm->rank != 0 && name[0])
        fd = ol_shm_open_made(name, bytes, why, sizeof(why));
    void *map = MAP_FAILED;
    if (fd >= 0) {
        map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED)
            snprintf(why, sizeof(why), "cannot map /dev/shm%s", name);
        close(fd);
    }
    int ok = map != MAP_FAILED, all_ok = 0;
    ol_datatype_t *ints = ol_dt_from_handle(MPI_INT);
    rc = ol_coll_allreduce(&ok, &all_ok, 1, ints, ol_op_from_handle(MPI_LAND), comm);
    if (comm->rank == 0 && name[0]) {
        /* Everyone has tried to open it (the allreduce needed them all). */
        shm_unlink(name);
    }
    if (rc == MPI_SUCCESS && !all_ok) {
        ol_error_detail("the shared window's memory (%zu bytes) could not be mapped by every "
                        "process%s%s", bytes, why[0] ? ": " : "", why);
        rc = MPI_ERR_NO_MEM;
    }
    if (rc != MPI_SUCCESS) {
        if (map != MAP_FAILED)
            munmap(map, bytes);
        return rc;
    }
    s->segment = map;
    s->segment_bytes = bytes;
    return MPI_SUCCESS;
}

static ol_status_t allocate_shared(ol_rma_state_t *s, const ol_win_spec_t *spec, ol_comm_t *comm,
                                   void **base)
{
    size_t *offsets = malloc(sizeof(size_t) * (size_t)s->size);
    if (!offsets)
        return MPI_ERR_NO_MEM;
    /* MPI_Win_allocate's memory is private to each process but for the
     * origins of direct windows: on pages of its own. */
    bool noncontig = spec->noncontig || spec->flavor == MPI_WIN_FLAVOR_ALLOCATE;
    size_t bytes = lay_out(s, noncontig, offsets);
    ol_status_t rc = bytes ? map_segment(s, comm, bytes) : MPI_SUCCESS;
    for (int r = 0; rc == MPI_SUCCESS && r < s->size; r++)
        s->peers[r].shared_base = s->peers[r].size ? (char *)s->segment + offsets[r] : NULL;
    if (rc == MPI_SUCCESS)
        *base = s->peers[comm->rank].shared_base;
    free(offsets);
    return rc;
}

/* ---- direct windows ------------------------------------------------------------ */

/* MPI_Win_create's memory is the program's: others reach it with
 * cross-memory attach, if every process can reach every other (else the
 * window keeps to messages, everyone agreeing). */
static ol_status_t reach_by_cma(ol_rma_state_t *s, ol_comm_t *comm)
{
    int reach = 1, everyone = 0;
    for (int r = 0; reach && r < s->size; r++)
        reach = r == comm->rank || ol_rma_direct_can_reach(s, r);
    ol_status_t rc = ol_coll_allreduce(&reach, &everyone, 1, ol_dt_from_handle(MPI_INT),
                                       ol_op_from_handle(MPI_LAND), comm);
    if (rc == MPI_SUCCESS && !everyone) {
        OL_INFO("rma", "cross-memory attach is not allowed between the window's processes: "
                       "its operations are messages");
        s->direct = false;
        munmap(s->segment, s->segment_bytes);
        s->segment = NULL;
    }
    return rc;
}

/* ---- create and free ---------------------------------------------------------- */

static ol_status_t make_memory(ol_rma_state_t *s, const ol_win_spec_t *spec, ol_comm_t *comm,
                               void **base)
{
    switch (spec->flavor) {
    case MPI_WIN_FLAVOR_CREATE:
        *base = spec->base;
        return s->direct ? map_segment(s, comm, s->control_bytes) : MPI_SUCCESS;
    case MPI_WIN_FLAVOR_ALLOCATE:
        if (s->direct)
            return allocate_shared(s, spec, comm, base);
        *base = NULL;
        if (spec->size == 0)
            return MPI_SUCCESS;
        if (posix_memalign(&s->memory, 64, (size_t)spec->size) != 0) {
            ol_error_detail("no memory for a window of %lld bytes", (long long)spec->size);
            return MPI_ERR_NO_MEM;
        }
        *base = s->memory;
        return MPI_SUCCESS;
    case MPI_WIN_FLAVOR_SHARED:
        return allocate_shared(s, spec, comm, base);
    default:
        *base = NULL;
        return MPI_SUCCESS;
    }
}

ol_status_t ol_rma_win_create(const ol_win_spec_t *spec, ol_comm_t *comm, ol_win_t **out)
{
    bool dynamic = spec->flavor == MPI_WIN_FLAVOR_DYNAMIC;
    /* Every process sees every member's host: they all agree without a word. */
    if (spec->flavor == MPI_WIN_FLAVOR_SHARED && !all_on_this_host(comm)) {
        ol_error_detail("MPI_Win_allocate_shared needs every process of the communicator on "
                        "one host (split it with MPI_Comm_split_type and "
                        "MPI_COMM_TYPE_SHARED first)");
        return MPI_ERR_RMA_SHARED;
    }
    ol_win_t *win = calloc(1, sizeof(*win));
    ol_rma_state_t *s = new_state(comm->size, dynamic);
    if (!win || !s) {
        free(win);
        if (s)
            free_state(s);
        ol_error_detail("out of memory for a window");
        return MPI_ERR_NO_MEM;
    }
    ol_status_t rc = dynamic ? MPI_SUCCESS : exchange_facts(s, spec, comm);
    void *base = NULL;
    if (rc == MPI_SUCCESS)
        rc = make_memory(s, spec, comm, &base);
    if (rc == MPI_SUCCESS && s->direct && spec->flavor == MPI_WIN_FLAVOR_CREATE)
        rc = reach_by_cma(s, comm);
    if (rc == MPI_SUCCESS && s->direct)
        ol_rma_direct_attach_control(s, s->segment);
    s->ordered_accumulates = !spec->unordered_accumulates;
    if (rc == MPI_SUCCESS && !s->direct && !dynamic)
        rc = ol_rma_ucx_setup(s, base, (size_t)spec->size,
                              ol_rma_ucx_wanted() && !s->on_device, comm);
    if (rc != MPI_SUCCESS) {
        if (s->segment)
            munmap(s->segment, s->segment_bytes);
        free(s->memory);
        free_state(s);
        free(win);
        return rc;
    }
    *win = (ol_win_t){.magic = OL_WIN_MAGIC, .flavor = spec->flavor, .comm = comm,
                      .base = base, .size = dynamic ? 0 : spec->size,
                      .disp_unit = dynamic ? 1 : spec->disp_unit,
                      .disp_unit_int = dynamic ? 1 : (int)spec->disp_unit, .state = s};
    s->win = win;
    if (!s->direct) { /* a direct window gets no messages */
        ol_rma_lock_state();
        ol_rma_window_live(s);
        ol_rma_unlock_state();
    }
    *out = win;
    return MPI_SUCCESS;
}

static bool in_access_epoch(const ol_rma_state_t *s)
{
    if (s->lock_all || s->naccess >= 0)
        return true;
    for (int r = 0; r < s->size; r++)
        if (s->lock_type[r])
            return true;
    return false;
}

ol_status_t ol_rma_win_can_free(ol_win_t *win)
{
    ol_rma_state_t *s = win->state;
    ol_rma_lock_state();
    bool busy = in_access_epoch(s) || s->exposed;
    ol_rma_unlock_state();
    if (!busy)
        return MPI_SUCCESS;
    ol_error_detail("the window is still in an epoch (a lock, or post/start not completed): "
                    "end it before MPI_Win_free");
    return MPI_ERR_RMA_SYNC;
}

ol_status_t ol_rma_win_free(ol_win_t *win)
{
    ol_rma_state_t *s = win->state;
    /* This process's operations are done at their targets, then nobody's
     * are in flight once all have come this far. */
    ol_rma_lock_state();
    ol_status_t rc = ol_rma_complete_at_targets(s);
    ol_rma_unlock_state();
    ol_status_t barrier = ol_coll_barrier(win->comm);
    ol_rma_lock_state();
    ol_rma_drain_outgoing(s);
    ol_rma_window_dead(s);
    ol_rma_ucx_free(s);
    ol_rma_unlock_state();
    if (s->segment)
        munmap(s->segment, s->segment_bytes);
    free(s->memory);
    free_state(s);
    win->magic = 0;
    win->state = NULL;
    return rc != MPI_SUCCESS ? rc : barrier;
}

/* ---- dynamic windows ------------------------------------------------------------ */

ol_status_t ol_rma_win_attach(ol_win_t *win, void *base, MPI_Aint size)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        ol_error_detail("MPI_Win_attach needs a window of MPI_Win_create_dynamic");
        return MPI_ERR_RMA_FLAVOR;
    }
    ol_rma_state_t *s = win->state;
    uintptr_t start = (uintptr_t)base;
    ol_rma_lock_state();
    for (ol_rma_region_t *r = s->regions; r; r = r->next)
        if (start < r->base + r->size && r->base < start + (uintptr_t)size) {
            ol_rma_unlock_state();
            ol_error_detail("the memory at %p (%lld bytes) overlaps memory attached before "
                            "at %p (%zu bytes)", base, (long long)size, (void *)r->base,
                            r->size);
            return MPI_ERR_RMA_ATTACH;
        }
    ol_rma_region_t *r = malloc(sizeof(*r));
    if (r) {
        *r = (ol_rma_region_t){.base = start, .size = (size_t)size, .next = s->regions};
        s->regions = r;
    }
    ol_rma_unlock_state();
    if (!r) {
        ol_error_detail("out of memory for an attached region");
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

ol_status_t ol_rma_win_detach(ol_win_t *win, const void *base)
{
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        ol_error_detail("MPI_Win_detach needs a window of MPI_Win_create_dynamic");
        return MPI_ERR_RMA_FLAVOR;
    }
    ol_rma_state_t *s = win->state;
    ol_rma_lock_state();
    for (ol_rma_region_t **r = &s->regions; *r; r = &(*r)->next)
        if ((*r)->base == (uintptr_t)base) {
            ol_rma_region_t *gone = *r;
            *r = gone->next;
            free(gone);
            ol_rma_unlock_state();
            return MPI_SUCCESS;
        }
    ol_rma_unlock_state();
    ol_error_detail("no memory was attached at %p", base);
    return MPI_ERR_RMA_ATTACH;
}

/* ---- shared queries ---------------------------------------------------------------- */

static ol_status_t answer(const ol_rma_peer_t *p, MPI_Aint *size, MPI_Aint *disp_unit,
                         void **base)
{
    *size = p->size;
    *disp_unit = p->disp_unit;
    *base = p->shared_base;
    return MPI_SUCCESS;
}

ol_status_t ol_rma_shared_query(ol_win_t *win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                                void **base)
{
    ol_rma_state_t *s = win->state;
    bool mapped = win->flavor == MPI_WIN_FLAVOR_SHARED ||
                  (win->flavor == MPI_WIN_FLAVOR_ALLOCATE && s->direct);
    if (!mapped) {
        /* Only this process's own memory can be loaded and stored here. */
        if (win->flavor == MPI_WIN_FLAVOR_DYNAMIC || rank != win->comm->rank) {
            ol_error_detail("MPI_Win_shared_query: the window is not of "
                            "MPI_Win_allocate_shared, and rank %d's memory is not shared "
                            "with this process", rank);
            return MPI_ERR_RMA_FLAVOR;
        }
        ol_rma_peer_t me = {win->size, win->disp_unit, win->base};
        return answer(&me, size, disp_unit, base);
    }
    if (rank != MPI_PROC_NULL)
        return answer(&s->peers[rank], size, disp_unit, base);
    for (int r = 0; r < s->size; r++)
        if (s->peers[r].size > 0)
            return answer(&s->peers[r], size, disp_unit, base);
    ol_rma_peer_t none = {0, s->size ? s->peers[0].disp_unit : 1, NULL};
    return answer(&none, size, disp_unit, base);
}
