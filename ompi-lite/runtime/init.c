/* Process start and end: parameters, PMIx (or singleton), UCX context and
 * worker, and the publication of this rank's UCX address. */
#define _GNU_SOURCE /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP, process_vm_readv */
#include "ol_log.h"
#include "ol_netif.h"
#include "ol_params.h"
#include "ol_runtime.h"
#include "pmix_client.h"
#include "procs.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#define UCX_ADDRESS_KEY "ol.ucx.addr"

ol_runtime_t ol_rt;
pthread_mutex_t ol_rt_match_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
const ol_rt_channel_t *ol_rt_channel;

static ucp_address_t *own_address;
static size_t own_address_length;

bool ol_rt_core_per_local_rank(void)
{
    return ol_rt.core_per_local_rank;
}

static bool cores_for_local_ranks(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return ol_rt.local_size <= (cores > 0 ? cores : 1);
}

/* Whether this rank is held to its share of the host's cores or fewer
 * (mpirun binds each rank to a core of its own by default), so that no
 * other rank of the job runs on its cores. */
static bool bound_to_own_cores(void)
{
    cpu_set_t set;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores <= 0 || sched_getaffinity(0, sizeof(set), &set) != 0)
        return false;
    return (long)CPU_COUNT(&set) * ol_rt.local_size <= cores;
}

/* Busy polling before yielding (see progress.c) pays only when every local
 * rank has a core. Unbound ranks (other launchers, --bind-to none) may
 * share a core for a while (other jobs on the other), and a rank that
 * spins keeps its peer off that core for the whole spin: osu_allreduce, 2
 * ranks, 1-8 KiB, 53-58 us per call in such runs with 50 us spins, 7.6 at
 * worst with 5 us; 0.7-8 us either way otherwise. So 5 us for them. A
 * bound rank spins 50 us: beside busy processes of other jobs each wait
 * that ends in a sleep hands its core to one of them until the wakeup,
 * and a longer spin ends more waits before that. 2 ranks beside two busy
 * processes (contrib/compare.sh --busy 2), osu_bibw 4 KiB, eight
 * alternating runs: 3.5-4.2 GB/s with 5 us, 4.6-5.5 with 50 (the faster
 * peer 5.2-5.8); three series of the 4-128 KiB tables in pt2pt/README.md
 * "Busy cores". A quiet host sees no change: there the yields that follow
 * the spin return at once, and the rank polls as it did spinning. */
static int choose_spin_us(void)
{
    if (ol_param.spin_us >= 0)
        return ol_param.spin_us;
    if (!ol_rt_core_per_local_rank())
        return 0;
    return bound_to_own_cores() ? 50 : 5;
}

bool ol_rt_host_has_rdma(void)
{
    DIR *dir = opendir("/sys/class/infiniband");
    if (!dir)
        return false;
    bool found = false;
    for (struct dirent *e; !found && (e = readdir(dir));)
        found = e->d_name[0] != '.';
    closedir(dir);
    return found;
}

/* True where UCX reaches every peer of this rank over its TCP transport: the
 * rank is alone on its host (no shared-memory peer) and the host has no
 * InfiniBand or RoCE device (UCX's only other network transport as Debian
 * builds it). A setting for TCP's sake must stop there, because UCX takes
 * one value for all the endpoints of a context: a rendezvous threshold fit
 * for TCP would take single-copy (cma) rendezvous from shared memory
 * between 8 KiB and it, and zero-copy from RDMA. */
static bool peers_over_tcp_only(void)
{
    return ol_rt.size > 1 && ol_rt.local_size == 1 && !ol_rt_host_has_rdma();
}

/* True where UCX reaches every peer over shared memory: the whole job runs
 * on this host. */
static bool peers_over_shm_only(void)
{
    return ol_rt.size > 1 && ol_rt.local_size == ol_rt.size;
}

/* True where UCX reaches some peers over shared memory and the others over
 * TCP: several ranks on this host, and ranks on other hosts, none with
 * InfiniBand or RoCE here. */
static bool peers_over_shm_and_tcp(void)
{
    return ol_rt.local_size > 1 && ol_rt.local_size < ol_rt.size && !ol_rt_host_has_rdma();
}

/* UCX's TCP transport receives a peer's active messages into buffers of its
 * own UCX_TCP_RX_SEG_SIZE and sends them as large as that: a rank with
 * larger segments than its peer fails UCX's assertion there (3 ranks on 2
 * hosts, the one alone on its host with the TCP-only value, crashed in
 * MPICH's large_message). So every rank takes the same value, chosen from
 * what the whole job sees alike, its size and its host count, not from
 * this host's ranks or devices. Its pieces that UCX packs itself (a
 * non-contiguous message's, through ompi-lite's generic datatype) are
 * bounded by UCX_TCP_TX_SEG_SIZE instead, 8 KiB by default: the same value
 * there lets them be as large.
 *
 * A TCP endpoint in the middle of a message holds one receive buffer, and
 * UCX's pool keeps every buffer it grew to: segments larger than UCX's
 * 64 KiB are for jobs of at most this many ranks (127 x 512 KiB is 64 MiB,
 * what UCX's own segments cost with 1024 peers). */
#define LARGE_TCP_SEGMENT_MAX_RANKS 128

static bool large_segments_fit_job(void)
{
    return ol_rt.size <= LARGE_TCP_SEGMENT_MAX_RANKS;
}

/* One rank per host: every peer is over TCP. */
static bool large_segments_over_tcp_only(void)
{
    return ol_rt.size > 1 && ol_rt.num_hosts == ol_rt.size && large_segments_fit_job();
}

/* Several hosts, some with several ranks (an unknown host count, 0, picks
 * neither: UCX's own value everywhere). */
static bool large_segments_over_shm_and_tcp(void)
{
    return ol_rt.num_hosts > 1 && ol_rt.num_hosts < ol_rt.size && large_segments_fit_job();
}

/* Whether the kernel lets this process read and write another's memory,
 * tried on itself: a container may forbid either, and UCX then leaves its
 * cma transport out. */
static bool kernel_allows_cma(void)
{
    uint64_t word = 1, copy = 0;
    struct iovec here = {&copy, sizeof(copy)}, there = {&word, sizeof(word)};
    return process_vm_readv(getpid(), &here, 1, &there, 1, 0) == sizeof(word) &&
           process_vm_writev(getpid(), &here, 1, &there, 1, 0) == sizeof(word);
}

#define TCP_SEG_USER_VARS "UCX_TCP_RX_SEG_SIZE UCX_TCP_TX_SEG_SIZE UCX_TLS"

/* UCX settings whose defaults ompi-lite changes (each a row of the parameter
 * table, OMPI_LITE_UCX_<NAME>, with the measurements behind it in its help).
 * A setting is applied with ucp_config_modify only where the user has set
 * none of the UCX variables that control it: a user's UCX_ variable always
 * wins, and only where its condition (if any) holds. An empty value keeps
 * UCX's own default. ucp_config_modify reaches a transport's setting only
 * through a prefix its whole family shares (MM_ for posix and sysv); one
 * of a single transport (CMA_) is set in this process's environment,
 * which UCX reads when it opens the transport. */
static const struct {
    const char *ucx_name;         /* for ucp_config_modify, without UCX_ */
    const char *const *value;     /* the parameter */
    const char *user_vars;        /* UCX variables that mean "the user chose" */
    bool (*applies)(void);        /* NULL: always */
    bool by_environment;          /* a single transport's setting */
} ucx_defaults[] = {
    {"MM_FIFO_SIZE", &ol_param.ucx_mm_fifo_size,
     "UCX_MM_FIFO_SIZE UCX_POSIX_FIFO_SIZE UCX_SYSV_FIFO_SIZE", NULL, false},
    {"MM_FIFO_ELEM_SIZE", &ol_param.ucx_mm_fifo_elem_size,
     "UCX_MM_FIFO_ELEM_SIZE UCX_POSIX_FIFO_ELEM_SIZE UCX_SYSV_FIFO_ELEM_SIZE", NULL, false},
    {"RNDV_THRESH", &ol_param.ucx_tcp_rndv_thresh, "UCX_RNDV_THRESH", peers_over_tcp_only, false},
    {"RNDV_THRESH", &ol_param.ucx_shm_rndv_thresh, "UCX_RNDV_THRESH", peers_over_shm_only, false},
    {"RNDV_THRESH", &ol_param.ucx_mixed_rndv_thresh, "UCX_RNDV_THRESH", peers_over_shm_and_tcp,
     false},
    /* Not where the user picks the transports (or, for cma, the kernel
     * forbids it): were the transport not among them, UCX would warn of an
     * unused variable. */
    {"TCP_PUT_ENABLE", &ol_param.ucx_tcp_put_enable, "UCX_TCP_PUT_ENABLE UCX_TLS", NULL, true},
    /* A rank's send segments must fit its peers' receive segments: both
     * take the same value, and a user's setting of either stops both. */
    {"TCP_RX_SEG_SIZE", &ol_param.ucx_tcp_seg_size, TCP_SEG_USER_VARS,
     large_segments_over_tcp_only, true},
    {"TCP_TX_SEG_SIZE", &ol_param.ucx_tcp_seg_size, TCP_SEG_USER_VARS,
     large_segments_over_tcp_only, true},
    {"TCP_RX_SEG_SIZE", &ol_param.ucx_mixed_seg_size, TCP_SEG_USER_VARS,
     large_segments_over_shm_and_tcp, true},
    {"TCP_TX_SEG_SIZE", &ol_param.ucx_mixed_seg_size, TCP_SEG_USER_VARS,
     large_segments_over_shm_and_tcp, true},
    {"ATOMIC_MODE", &ol_param.ucx_atomic_mode, "UCX_ATOMIC_MODE", NULL, false},
    {"CMA_SEG_SIZE", &ol_param.ucx_cma_seg_size, "UCX_CMA_SEG_SIZE UCX_TLS", kernel_allows_cma,
     true},
};

static bool user_set_any(const char *vars)
{
    char name[64];
    for (const char *p = vars; *p;) {
        size_t n = strcspn(p, " ");
        if (n > 0 && n < sizeof(name)) {
            memcpy(name, p, n);
            name[n] = '\0';
            if (getenv(name))
                return true;
        }
        p += n;
        p += strspn(p, " ");
    }
    return false;
}

static ucs_status_t set_ucx_default(ucp_config_t *config, const char *name, const char *value,
                                    bool by_environment)
{
    if (!by_environment)
        return ucp_config_modify(config, name, value);
    char variable[64];
    snprintf(variable, sizeof(variable), "UCX_%s", name);
    return setenv(variable, value, 0) == 0 ? UCS_OK : UCS_ERR_NO_MEMORY;
}

/* The defaults set through ucp_config_modify (those set in the environment
 * show there), for the sentence of a failed start. */
static char config_defaults[256];

static void note_config_default(const char *name, const char *value)
{
    size_t used = strlen(config_defaults);
    snprintf(config_defaults + used, sizeof(config_defaults) - used, "%sUCX_%s=%s",
             used ? ", " : "", name, value);
}

static void apply_ucx_defaults(ucp_config_t *config)
{
    /* What the user set is read before any row sets a variable of its own
     * (UCX_TCP_RX_SEG_SIZE is the user's sign for the row after it). */
    enum { ROWS = sizeof(ucx_defaults) / sizeof(ucx_defaults[0]) };
    bool user_chose[ROWS];
    for (size_t i = 0; i < ROWS; i++)
        user_chose[i] = user_set_any(ucx_defaults[i].user_vars);
    for (size_t i = 0; i < ROWS; i++) {
        const char *value = *ucx_defaults[i].value;
        if (!value || !*value || user_chose[i] ||
            (ucx_defaults[i].applies && !ucx_defaults[i].applies()))
            continue;
        ucs_status_t st = set_ucx_default(config, ucx_defaults[i].ucx_name, value,
                                          ucx_defaults[i].by_environment);
        if (st != UCS_OK)
            OL_WARN("runtime", "cannot set UCX_%s=%s: %s", ucx_defaults[i].ucx_name, value,
                    ucs_status_string(st));
        else
            OL_INFO("runtime", "UCX_%s=%s (ompi-lite's default)", ucx_defaults[i].ucx_name, value);
        if (st == UCS_OK && !ucx_defaults[i].by_environment)
            note_config_default(ucx_defaults[i].ucx_name, value);
    }
}

/* Which network devices a rank's UCX uses, said once per host (local rank
 * 0) at info level: each with its transport and link speed, and why. */
static void log_net_choice(const ol_netif_list_t *list, const char *why)
{
    if (ol_rt.local_rank != 0 || !ol_log_enabled(OL_LOG_INFO, "runtime"))
        return;
    char text[512] = "";
    for (size_t i = 0; i < list->n; i++) {
        const ol_netif_t *nif = &list->ifs[i];
        char speed[32];
        size_t used = strlen(text);
        if (!nif->selected)
            continue;
        ol_netif_speed_text(nif->speed_mbps, speed, sizeof(speed));
        snprintf(text + used, sizeof(text) - used, "%s%s (%s, %s)", used ? ", " : "", nif->name,
                 nif->rdma ? "ib" : "tcp", speed);
    }
    OL_INFO("runtime", "host %s: ranks reach other hosts over %s (%s)", ol_rt.hostname,
            text[0] ? text : "no network device", why);
}

/* Where the user chose UCX's devices, what UCX_NET_DEVICES names ("all" or
 * unset: every usable one), for the log only. */
static const char *mark_user_devices(ol_netif_list_t *list, char *spec, size_t size)
{
    const char *devices = getenv("UCX_NET_DEVICES");
    bool all = devices == NULL || strcmp(devices, "all") == 0;
    snprintf(spec, size, "=%s", all ? "" : devices);
    for (size_t i = 0; i < list->n; i++)
        list->ifs[i].selected = list->ifs[i].usable && (all || ol_netif_spec_takes(spec, list->ifs[i].name));
    return devices ? "the user's UCX_NET_DEVICES" : "the user's UCX_TLS, UCX's choice of devices";
}

/* OMPI_LITE_IFNAME made concrete for this host, as UCX_NET_DEVICES: the
 * NCCL-style list (prefixes, '^', '=') becomes the names of this host's
 * interfaces and RDMA ports that it takes. Without it, a job on several
 * hosts gets the default rule (no loopback, no container bridge while
 * another interface is up): UCX 1.13 offers lo and docker0 to peers on
 * other hosts. A user's UCX_NET_DEVICES or UCX_TLS wins. An IFNAME that
 * takes nothing here fails the start (the daemon refuses it earlier; this
 * is for other launchers). */
static ol_status_t choose_net_devices(ucp_config_t *config)
{
    const char *spec = ol_param.ifname;
    bool asked = spec != NULL && spec[0] != '\0';
    if (ol_rt.singleton || (!asked && ol_rt.num_hosts <= 1))
        return OL_OK;
    ol_netif_list_t list;
    char *err = NULL, user_spec[256];
    if (ol_netif_scan(&list, ol_param.net_test_speed, &err) != 0) {
        OL_WARN("runtime", "leaving UCX's network devices alone: %s", err ? err : "out of memory");
        free(err);
        return OL_OK;
    }
    ol_status_t rc = OL_OK;
    if (ol_netif_select(&list, spec, &err) != 0) {
        ol_error_detail("host %s: %s", ol_rt.hostname, err ? err : "out of memory");
        rc = MPI_ERR_OTHER;
    } else if (user_set_any("UCX_NET_DEVICES UCX_TLS")) {
        if (asked)
            OL_WARN("runtime", "OMPI_LITE_IFNAME=%s leaves UCX alone: the user set "
                               "UCX_NET_DEVICES or UCX_TLS", spec);
        log_net_choice(&list, mark_user_devices(&list, user_spec, sizeof(user_spec)));
    } else {
        char *names = ol_netif_selected_names(&list);
        ucs_status_t st = names ? ucp_config_modify(config, "NET_DEVICES", names) : UCS_ERR_NO_MEMORY;
        if (st == UCS_OK) {
            note_config_default("NET_DEVICES", names);
            OL_INFO("runtime", "UCX_NET_DEVICES=%s (%s)", names, asked ? "OMPI_LITE_IFNAME" : "ompi-lite's default");
        } else {
            OL_WARN("runtime", "cannot set UCX_NET_DEVICES=%s: %s", names ? names : "",
                    ucs_status_string(st));
        }
        log_net_choice(&list, asked ? "OMPI_LITE_IFNAME" : "default: no loopback or container bridge");
        free(names);
    }
    free(err);
    ol_netif_free(&list);
    return rc;
}

/* The UCX_ variables of the environment (the user's, and those that
 * ompi-lite's defaults set there), for the sentence of a failed start: a
 * bad one is the usual cause, and UCX names the setting only in its own
 * log line, if at all. */
static void ucx_variables(char *out, size_t size)
{
    extern char **environ;
    size_t used = 0;
    out[0] = '\0';
    for (char **e = environ; *e && used + 1 < size; e++) {
        if (strncmp(*e, "UCX_", 4) != 0)
            continue;
        int n = snprintf(out + used, size - used, "%s%s", used ? ", " : "", *e);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* A failed step of the start: why, for MPI_Init's message and the log. */
static ol_status_t ucx_start_failed(const char *step, ucs_status_t st)
{
    char variables[256];
    ucx_variables(variables, sizeof(variables));
    ol_error_detail("UCX did not start (%s: %s)%s%s%s%s", step, ucs_status_string(st),
                    variables[0] ? "; UCX variables in the environment: " : "", variables,
                    config_defaults[0] ? "; set from OMPI_LITE_UCX_* parameters: " : "",
                    config_defaults);
    OL_WARN("runtime", "UCX start failed in %s: %s", step, ucs_status_string(st));
    return MPI_ERR_INTERN;
}

static ol_status_t ucx_start(int thread_level, const ol_rt_request_spec_t *requests)
{
    ucp_params_t params = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                      UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_ESTIMATED_NUM_PPN |
                      (requests->request_size ? UCP_PARAM_FIELD_REQUEST_SIZE : 0) |
                      (requests->request_init ? UCP_PARAM_FIELD_REQUEST_INIT : 0),
        /* RMA and atomics: windows' puts, gets and atomics (rma/ucx.c). */
        .features = UCP_FEATURE_TAG | UCP_FEATURE_WAKEUP | UCP_FEATURE_RMA |
                    UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64,
        .request_size = requests->request_size,
        .request_init = requests->request_init,
        .mt_workers_shared = 0,
        .estimated_num_eps = (size_t)ol_rt.size,
        .estimated_num_ppn = (size_t)ol_rt.local_size,
    };
    ucp_config_t *config;
    const char *step = "ucp_config_read";
    ucs_status_t st = ucp_config_read(NULL, NULL, &config);
    if (st != UCS_OK)
        goto fail;
    apply_ucx_defaults(config);
    ol_status_t rc = choose_net_devices(config);
    if (rc != OL_OK) {
        ucp_config_release(config);
        OL_WARN("runtime", "%s", "OMPI_LITE_IFNAME takes no interface of this host");
        return rc;
    }
    step = "ucp_init";
    st = ucp_init(&params, config, &ol_rt.ucp_context);
    ucp_config_release(config);
    if (st != UCS_OK)
        goto fail;

    ucp_worker_params_t wparams = {
        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
        .thread_mode = thread_level == MPI_THREAD_MULTIPLE ? UCS_THREAD_MODE_MULTI
                                                           : UCS_THREAD_MODE_SINGLE,
    };
    step = "ucp_worker_create";
    st = ucp_worker_create(ol_rt.ucp_context, &wparams, &ol_rt.ucp_worker);
    if (st != UCS_OK)
        goto fail_cleanup;
    step = "ucp_worker_get_efd";
    st = ucp_worker_get_efd(ol_rt.ucp_worker, &ol_rt.worker_efd);
    if (st != UCS_OK)
        goto fail_worker;
    step = "ucp_worker_get_address";
    st = ucp_worker_get_address(ol_rt.ucp_worker, &own_address, &own_address_length);
    if (st != UCS_OK)
        goto fail_worker;
    return OL_OK;

fail_worker:
    ucp_worker_destroy(ol_rt.ucp_worker);
fail_cleanup:
    ucp_cleanup(ol_rt.ucp_context);
fail:
    return ucx_start_failed(step, st);
}

static void ucx_stop(void)
{
    ucp_worker_release_address(ol_rt.ucp_worker, own_address);
    ucp_worker_destroy(ol_rt.ucp_worker);
    ucp_cleanup(ol_rt.ucp_context);
}

static void set_singleton_facts(void)
{
    ol_rt.singleton = true;
    ol_rt.rank = 0;
    ol_rt.size = 1;
    ol_rt.local_rank = 0;
    ol_rt.local_size = 1;
    ol_rt.num_hosts = 1;
    ol_rt.node_rank = 0;
    ol_rt.node_leader = 0;
    ol_rt.appnum = 0;
    ol_rt.universe_size = 1;
    /* Unlike any other process's, so that MPI_Comm_connect and
     * MPI_Comm_join tell singletons apart. */
    uint64_t nonce = 0;
    if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
        nonce = (uint64_t)ol_rt_wtime() * 1000000007u;
    snprintf(ol_rt.job_name, sizeof(ol_rt.job_name), "singleton.%.200s.%d.%016llx", ol_rt.hostname,
             (int)getpid(), (unsigned long long)nonce);
}

static const ol_rt_device_t *device_layer;

static void device_finalize(void)
{
    if (device_layer)
        device_layer->finalize();
}

ol_status_t ol_rt_init(int requested_thread_level, const ol_rt_request_spec_t *requests,
                       const ol_rt_device_t *device)
{
    device_layer = device;
    ol_params_load();
    gethostname(ol_rt.hostname, sizeof(ol_rt.hostname) - 1);
    ol_log_init();
    bool singleton;
    ol_status_t rc = ol_pmix_start(&singleton);
    if (rc != OL_OK)
        goto fail_pmix;
    if (singleton)
        set_singleton_facts();
    ol_rt.thread_level = requested_thread_level;
    ol_rt.core_per_local_rank = cores_for_local_ranks();
    ol_rt.spin_us = choose_spin_us();
    /* Before UCX, so that its CUDA transports find the GPU chosen here. */
    rc = device ? device->init(ol_rt.local_rank, ol_rt.local_size) : OL_OK;
    if (rc != OL_OK)
        goto fail_pmix;

    rc = ucx_start(requested_thread_level, requests);
    if (rc != OL_OK)
        goto fail_pmix;
    rc = ol_pmix_publish(UCX_ADDRESS_KEY, own_address, own_address_length);
    if (rc != OL_OK)
        goto fail_ucx;
    rc = ol_pmix_fence();
    if (rc != OL_OK)
        goto fail_ucx;
    ol_rt.state = OL_RT_RUNNING;
    OL_INFO("runtime", "started: rank %d of %d (local %d of %d)%s, spin %d us", ol_rt.rank,
            ol_rt.size, ol_rt.local_rank, ol_rt.local_size,
            ol_rt.singleton ? ", singleton" : "", ol_rt.spin_us);
    return OL_OK;

fail_ucx:
    ucx_stop();
fail_pmix:
    device_finalize();
    ol_pmix_stop();
    return rc;
}

ol_status_t ol_rt_fence(void)
{
    return ol_pmix_fence();
}

ol_status_t ol_rt_finalize(void)
{
    if (device_layer)
        device_layer->release_peers();
    /* No rank may tear down its worker while a peer may still need it. */
    ol_status_t rc = ol_pmix_fence();
    if (ol_rt_channel)
        ol_rt_channel->close();
    /* After the fence: no peer reads or maps our memory through IPC any more. */
    device_finalize();
    ucx_stop();
    ol_rt_procs_clear();
    ol_pmix_stop();
    ol_rt.state = OL_RT_FINALIZED;
    return rc;
}

static bool peer_lost;

void ol_rt_note_peer_lost(void)
{
    __atomic_store_n(&peer_lost, true, __ATOMIC_RELAXED);
}

/* Long enough for the launcher to end a job whose process died (it kills
 * the others within milliseconds), short enough not to matter where it
 * does not. */
enum { PEER_LOST_GRACE_MS = 2000 };

void ol_rt_abort(int exit_code, const char *message)
{
    if (__atomic_load_n(&peer_lost, __ATOMIC_RELAXED) && ol_rt.size > 1)
        usleep(PEER_LOST_GRACE_MS * 1000);
    if (message && *message)
        fprintf(stderr, "%s\n", message);
    fflush(stderr);
    fflush(stdout);
    ol_pmix_abort(exit_code, message ? message : "");
    _exit(exit_code);
}

ol_status_t ol_rt_peer_address(int world_rank, void **address, size_t *length)
{
    if (world_rank >= ol_rt.size)
        return ol_rt_procs_address(world_rank, address, length);
    if (world_rank == ol_rt.rank) {
        *address = malloc(own_address_length);
        if (!*address)
            return MPI_ERR_NO_MEM;
        memcpy(*address, own_address, own_address_length);
        *length = own_address_length;
        return OL_OK;
    }
    return ol_pmix_lookup(world_rank, UCX_ADDRESS_KEY, address, length);
}

void ol_rt_own_address(const void **address, size_t *length)
{
    *address = own_address;
    *length = own_address_length;
}

void ol_rt_free_peer_address(void *address)
{
    free(address);
}

ol_status_t ol_rt_share(const char *key, const void *data, size_t length)
{
    return ol_pmix_publish(key, data, length);
}

ol_status_t ol_rt_lookup(int world_rank, const char *key, void **data, size_t *length)
{
    return ol_pmix_lookup(world_rank, key, data, length);
}
