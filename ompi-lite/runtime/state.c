/* The per-rank state record (ol_state.h): mapping it, the communicator
 * names, and the pending list written on the slow path. */
#define _GNU_SOURCE
#include "ol_state.h"
#include "ol_comm.h"
#include "ol_param_table.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

ol_state_record_t *ol_state_rec;
void (*ol_state_pending_writer)(ol_state_record_t *record);

static int state_on;
static const ol_param_t params[] = {
    {"STATE", OL_PARAM_INT, "1",
     "keep the state record that mpirun's hang reports read (0: off; the record "
     "costs a few stores per MPI call)",
     &state_on, 0, 1},
};

void ol_state_params_print(FILE *out)
{
    ol_param_table_print(params, sizeof(params) / sizeof(params[0]), out);
}

static ol_state_record_t *map_record(void)
{
    const char *text = getenv(OL_STATE_FD_ENV);
    if (!text || !*text)
        return NULL;
    char *end;
    long fd = strtol(text, &end, 10);
    if (*end || fd < 3)
        return NULL;
    void *p = mmap(NULL, sizeof(ol_state_record_t), PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd,
                   0);
    /* The mapping keeps the memory; the descriptor must not reach the
     * programs this rank may start. */
    close((int)fd);
    unsetenv(OL_STATE_FD_ENV);
    if (p == MAP_FAILED)
        return NULL;
    ol_state_record_t *r = p;
    if (r->magic != OL_STATE_MAGIC || r->version != OL_STATE_VERSION ||
        r->size != sizeof(ol_state_record_t)) {
        munmap(p, sizeof(ol_state_record_t));
        return NULL;
    }
    return r;
}

void ol_state_attach(const char *names, uint32_t len)
{
    ol_param_table_load(params, sizeof(params) / sizeof(params[0]));
    ol_state_record_t *r = map_record();
    if (!r || !state_on) {
        if (r)
            munmap(r, sizeof(*r));
        return;
    }
    if (len > OL_STATE_FN_NAMES)
        len = OL_STATE_FN_NAMES;
    memcpy(r->fn_names, names, len);
    r->fn_names_len = len;
    r->pid = (int32_t)getpid();
    __atomic_store_n(&r->attached, 1, __ATOMIC_RELEASE);
    /* Under Yama's ptrace restrictions, let the daemon's gdb take stacks. */
    prctl(PR_SET_PTRACER, getppid(), 0, 0, 0);
    ol_state_rec = r;
}

/* The slot of a context id, a free one, or the oldest. */
static ol_state_comm_t *comm_slot(ol_state_record_t *r, uint32_t ctx)
{
    for (uint32_t i = 0; i < OL_STATE_COMMS; i++)
        if (r->comms[i].used && r->comms[i].ctx == ctx)
            return &r->comms[i];
    for (uint32_t i = 0; i < OL_STATE_COMMS; i++)
        if (!r->comms[i].used)
            return &r->comms[i];
    return &r->comms[r->comm_next++ % OL_STATE_COMMS];
}

void ol_state_publish_comm(const ol_comm_t *comm)
{
    ol_state_record_t *r = ol_state_rec;
    if (!r || !comm)
        return;
    ol_state_comm_t *s = comm_slot(r, comm->context_id);
    s->used = 0; /* a reader skips the slot while it changes */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    s->ctx = comm->context_id;
    s->size = comm->size;
    const char *name = comm->name[0] ? comm->name
                                     : ol_comm_is_inter(comm) ? "an intercommunicator"
                                                              : "a communicator";
    size_t n = strnlen(name, sizeof(s->name) - 1);
    memcpy(s->name, name, n);
    s->name[n] = '\0';
    __atomic_store_n(&s->used, 1, __ATOMIC_RELEASE);
}

void ol_state_note_pending(void)
{
    ol_state_record_t *r = ol_state_rec;
    if (r && ol_state_pending_writer)
        ol_state_pending_writer(r);
}
