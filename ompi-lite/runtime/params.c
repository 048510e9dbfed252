/* The parameter table (see ol_params.h). Adding a tunable is adding a row. */
#include "ol_common.h"
#include "ol_param_table.h"

#include <limits.h>

struct ol_param_values ol_param;

static const ol_param_t param_table[] = {
    {"DEBUG", OL_PARAM_STRING, "",
     "log level: warn, info or trace (empty: errors only)", &ol_param.debug, 0, 0},
    {"DEBUG_SUBSYS", OL_PARAM_STRING, "",
     "comma-separated subsystems to log (runtime,pt2pt,coll,api); empty: all",
     &ol_param.debug_subsys, 0, 0},
    {"SPIN_US", OL_PARAM_INT, "-1",
     "microseconds a waiting rank polls before it starts yielding (see YIELD_US); "
     "-1: 50 for a rank bound to its own core (mpirun's default), 5 for unbound ranks "
     "with a core each, 0 when oversubscribed (50 us measured 53-58 us per small "
     "allreduce in runs where two unbound ranks shared a core: a spinning rank keeps "
     "its peer off the core for the whole spin)",
     &ol_param.spin_us, -1, INT_MAX},
    {"YIELD_US", OL_PARAM_INT, "200",
     "microseconds a waiting rank then keeps polling but gives its core away between "
     "polls (sched_yield) before it sleeps on the UCX event fd (4 ranks on 2 cores: 8 B "
     "allreduce 28-65 us sleeping at once, 11-14 with 100 us of yielding; 1 ms and more "
     "slowed 256 KiB reduces)",
     &ol_param.yield_us, 0, INT_MAX},
    {"WAIT_POLL_MS", OL_PARAM_INT, "100",
     "longest sleep of a waiting rank between two progress calls (a safety net "
     "for wakeups a transport does not signal)",
     &ol_param.wait_poll_ms, 1, INT_MAX},
    {"SHM_TEST_NAME", OL_PARAM_STRING, "",
     "for tests only: the files this job makes in /dev/shm are named VALUE-p2p-RANK-N and "
     "VALUE-coll-RANK-N (RANK in MPI_COMM_WORLD, N counting that rank's files of the kind from "
     "0) instead of with a secret random part, so that a test can make one first and see the "
     "job refuse it; any user can then do that, so never set it otherwise (empty: random names)",
     &ol_param.shm_test_name, 0, 0},
    {"IFNAME", OL_PARAM_STRING, "",
     "the network interfaces a job uses between hosts, in NCCL's syntax (NCCL_SOCKET_IFNAME): "
     "a comma list of name prefixes (ib0,eth), '=' first for exact names (=eth1), '^' first "
     "to exclude (^docker,lo); RDMA ports as DEVICE:PORT (mlx5_0:1). It steers mpirun's and "
     "the daemons' links (mpirun --ifname LIST sets it too) and the ranks' UCX_NET_DEVICES, on "
     "every host, unless the user sets UCX_NET_DEVICES or UCX_TLS; a name that matches no "
     "usable interface of some host stops the job at start-up, naming the host and its "
     "interfaces. Read by the library, mpirun and the daemons. Empty: what UCX chooses, less "
     "loopback and container bridges (docker0, virbr0 ...) between hosts where another "
     "interface is up",
     &ol_param.ifname, 0, 0},
    {"NET_TEST_SPEED", OL_PARAM_STRING, "",
     "for tests only: NAME=MBPS,... replaces the link speed read from /sys for those "
     "interfaces (a link limited with tc shows no lower speed there), in what OMPI_LITE_DEBUG="
     "info, mpirun's slow-link warning and ompi_lite_info --net say; never set it otherwise "
     "(empty: the speeds /sys gives)",
     &ol_param.net_test_speed, 0, 0},
    {"CONNECT_TIMEOUT_S", OL_PARAM_INT, "300",
     "seconds MPI_Comm_connect waits for the port's owner to call MPI_Comm_accept (and either "
     "side for the other's answers) before it fails with MPI_ERR_PORT; 0: wait for ever",
     &ol_param.connect_timeout_s, 0, INT_MAX},
    {"NAME_DIR", OL_PARAM_STRING, "",
     "the directory where MPI_Publish_name keeps the names of this user's jobs, so that "
     "MPI_Lookup_name finds them from another mpirun: a directory on a file system all hosts "
     "share lets jobs on different hosts meet (empty: $TMPDIR/ompi-lite-UID/names, or under "
     "/tmp, which serves the jobs of this host). It must belong to the user and be closed to "
     "others, or publishing fails naming it",
     &ol_param.name_dir, 0, 0},
    {"UCX_MM_FIFO_SIZE", OL_PARAM_STRING, "256",
     "UCX_MM_FIFO_SIZE unless the user sets UCX_MM_/POSIX_/SYSV_FIFO_SIZE (empty: UCX's "
     "64): slots of a rank's shared-memory receive FIFO (a power of two). With UCX's 64, a "
     "window of 64 rendezvous sends (osu_bw) fills it; sends that then wait in UCX's "
     "pending queue wake no rank sleeping on the event fd, and stall until its next "
     "WAIT_POLL_MS timeout: osu_bw at 64 KiB-1 MiB measured 1.2-2.5 GB/s with 64 against "
     "8-12 GB/s with 256 (1024 measured no better)",
     &ol_param.ucx_mm_fifo_size, 0, 0},
    {"UCX_MM_FIFO_ELEM_SIZE", OL_PARAM_STRING, "512",
     "UCX_MM_FIFO_ELEM_SIZE unless the user sets UCX_MM_/POSIX_/SYSV_FIFO_ELEM_SIZE "
     "(empty: UCX's 128): bytes of a shared-memory FIFO slot. A message that fits one "
     "with UCX's headers (up to 477 B with 512, 93 B with 128) goes inline (eager "
     "short) instead of through a separate buffer (eager bcopy): osu_latency at 128 "
     "and 256 B went from 0.27 to 0.19 and 0.21 us, other sizes unchanged; the FIFO "
     "grows to 512 x 256 = 128 KiB per rank",
     &ol_param.ucx_mm_fifo_elem_size, 0, 0},
    {"UCX_TCP_RNDV_THRESH", OL_PARAM_STRING, "256K",
     "UCX_RNDV_THRESH for a rank that UCX connects to every peer over TCP (alone on its "
     "host, which has no InfiniBand/RoCE device), unless the user sets UCX_RNDV_THRESH "
     "(empty: UCX's auto, 19 KB there; 256K is UCX's own threshold for sends that may "
     "buffer). Over TCP a rendezvous costs a round trip of control messages (tens of us "
     "between hosts) that a copy of a few hundred KiB does not: 2 ranks on 2 namespace "
     "hosts, medians of 7 alternating runs, osu_latency 32/64/128 KiB 243/265/283 us with "
     "auto, 126/105/157 with 256K, 117/253/266 with 64K; medians of 3: osu_bw 32 KiB 260 -> "
     "1170 MB/s, 64 KiB-4 MiB 1.04-1.8x; osu_bibw 32 KiB 301 -> 929, 512 KiB-1 MiB "
     "0.83-0.9x; 4-rank osu_allreduce unchanged within the noise (32 KiB 571 -> 368 us)",
     &ol_param.ucx_tcp_rndv_thresh, 0, 0},
    {"UCX_SHM_RNDV_THRESH", OL_PARAM_STRING, "65537",
     "UCX_RNDV_THRESH for the ranks of a job that runs on one host, unless the user sets "
     "UCX_RNDV_THRESH (empty: UCX's auto, which takes a single-copy rendezvous from about "
     "8 KiB): messages of up to 64 KiB go eager through the shared-memory FIFO, copied in by "
     "the sender while the receiver copies out, instead of waiting for a rendezvous "
     "handshake. 2 ranks, osu_latency at load 5, auto -> 65537: 16 KiB 3.4-17 -> 1.0-1.1 us, "
     "32 KiB 4.5-19 -> 1.7-1.9, 64 KiB 14-27 -> 3.2-3.4 (Open MPI 3.0, 4.1, 6.2-7.0); "
     "osu_bw 16 KiB 2.7-3.1 -> 15-22 GB/s, 32 and 64 KiB the same within the noise. Eager "
     "128 KiB messages were 3-6x slower (bw 0.9 against 5.3 GB/s), hence the 64 KiB bound",
     &ol_param.ucx_shm_rndv_thresh, 0, 0},
    {"UCX_MIXED_RNDV_THRESH", OL_PARAM_STRING, "131073",
     "UCX_RNDV_THRESH for a rank that reaches some peers over shared memory and others "
     "over TCP (several ranks per host, on several hosts without InfiniBand/RoCE), unless "
     "the user sets UCX_RNDV_THRESH (empty: UCX's auto, about 8 KiB to shared-memory peers "
     "and 19 KB over TCP). Up to 128 KiB eager, as a compromise of the two: 4 ranks on 2 "
     "namespace hosts, medians of 5 alternating runs, auto -> 131073 -> 262144, us: bcast "
     "16/64/128 KiB 68/180/197 -> 13/50/78 -> 11/63/106; allgather 16/128 KiB 176/425 -> "
     "84/302 -> 84/349, 512 KiB 811 -> 1078 -> 1322; alltoall 32/128 KiB 282/423 -> "
     "126/315 -> 122/296; allreduce 32/128 KiB 153/224 -> 111/178 -> 104/215, 256 KiB "
     "352 -> 399 -> 366; osu_latency between the two ranks of a host 16/128 KiB 4.3/12.5 "
     "-> 2.1/7.6 -> 2.0/7.5; osu_bw 16 KiB 4.9 -> 9.7 GB/s, 128 KiB 11.7 -> 10.1",
     &ol_param.ucx_mixed_rndv_thresh, 0, 0},
    {"UCX_TCP_PUT_ENABLE", OL_PARAM_STRING, "n",
     "UCX_TCP_PUT_ENABLE unless the user sets it or UCX_TLS (empty: UCX's y): whether a "
     "rendezvous over TCP (from UCX_TCP_RNDV_THRESH) moves its data by UCX's put "
     "emulation; n makes UCX send it as active messages. 2 ranks on 2 namespace hosts, "
     "2 alternating runs each, y -> n: osu_latency 512 KiB/1/2/4 MiB 365-433/834-851/"
     "1432-1577/2502-3175 -> 122-144/286-352/668-847/1435-1673 us; osu_bw 2-4 MiB "
     "1.4-2.0 -> 2.3-2.7 GB/s; osu_bibw 1-4 MiB 1.9-2.5 -> 2.1-3.9 GB/s; 128-512 KiB the "
     "same within the noise (30% between runs)",
     &ol_param.ucx_tcp_put_enable, 0, 0},
    {"UCX_ATOMIC_MODE", OL_PARAM_STRING, "cpu",
     "UCX_ATOMIC_MODE unless the user sets it (empty: UCX's guess): cpu makes UCX's atomics "
     "atomic with respect to the CPU's, which a window's target uses for the accumulates "
     "that come as messages; device atomics would be faster on some network cards but not "
     "atomic with those.",
     &ol_param.ucx_atomic_mode, 0, 0},
    {"UCX_TCP_SEG_SIZE", OL_PARAM_STRING, "132096",
     "UCX_TCP_RX_SEG_SIZE and UCX_TCP_TX_SEG_SIZE of every rank of a job with one rank per "
     "host, of at most 128 ranks (each TCP peer in the middle of a message holds a buffer of "
     "this size), unless the user sets either or UCX_TLS (empty: UCX's 64K and 8K). Every "
     "rank takes the same, since a rank's pieces must fit its peers' buffers. The receive "
     "size is the largest active message over TCP, so the size of the pieces in which UCX "
     "sends an eager message and a rendezvous' data. With 64K a 64 KiB message no longer "
     "fits one with its headers and goes as two; 129 KiB holds a 128 KiB piece and the "
     "headers. 2 ranks on 2 namespace hosts, medians of 5 alternating runs, 64K -> 129K: "
     "osu_bw 64 KiB-4 MiB 1.0-2.2 -> 2.8-3.5 GB/s (Open MPI 1.5-2.0), osu_bibw 32 KiB-4 MiB "
     "1.2-1.6x, osu_latency 128/256 KiB 59/105 -> 48/80 us, below unchanged. Larger pieces "
     "lost: osu_bw 256 KiB-4 MiB 0.6-0.9x with 257K or 512K. The send size bounds the pieces "
     "UCX packs itself, those of a non-contiguous message (a generic datatype): medians of 3 "
     "alternating runs, osu_bw_vector 16 KiB-16 MiB 0.65-0.89 GB/s with 8K, 1.6-4.5 with 129K "
     "(Open MPI 1.2-2.1); contiguous osu_latency, osu_bw and osu_bibw the same within the "
     "noise",
     &ol_param.ucx_tcp_seg_size, 0, 0},
    {"UCX_MIXED_SEG_SIZE", OL_PARAM_STRING, "512K",
     "UCX_TCP_RX_SEG_SIZE and UCX_TCP_TX_SEG_SIZE of every rank of a job on several hosts, some "
     "with several ranks, of at most 128 ranks, unless the user sets either or UCX_TLS (empty: "
     "UCX's 64K and 8K). There the ranks of a host share its cores with the kernel's TCP work, "
     "and fewer, larger pieces cost less of both: 4 ranks on 2 namespace hosts, alltoall of 512 "
     "KiB blocks, 64K -> 512K: 1.2-1.4 -> 0.5-0.7 ms of system time per call and rank, 3.2-3.5 -> "
     "1.6-1.8 ms a call. Medians of 3 alternating runs, time with 129K / 512K relative to 64K: "
     "osu_alltoall 512 KiB-4 MiB 0.75-0.90 / 0.50-0.83, osu_allgather 512 KiB 0.78 / 0.69, "
     "osu_allreduce 2/4 MiB 0.75/0.77 / 0.66/0.48; osu_bcast 1-2 MiB 1.1-1.5 either way (noise: 4 "
     "MiB 0.66 / 0.85); with the send size 8K -> 512K, osu_bw_vector between the hosts 16 KiB-4 "
     "MiB 0.61-0.91 -> 1.2-3.5 GB/s (2 runs)",
     &ol_param.ucx_mixed_seg_size, 0, 0},
    {"UCX_CMA_SEG_SIZE", OL_PARAM_STRING, "1G",
     "UCX_CMA_SEG_SIZE unless the user sets it or UCX_TLS (empty: UCX's 512K): the most "
     "bytes one process_vm_readv of a single-copy rendezvous between ranks of a host moves "
     "(jobs over several hosts; one-host jobs copy large messages themselves, see "
     "P2P_SHM_CMA_BYTES). UCX cuts a 1 MiB message in two calls by default, Open MPI makes "
     "one. 2 ranks, medians of 5 runs side by side with Open MPI and MPICH, ratio to the "
     "faster, 512K -> one call: osu_bw 1/2/4 MiB 0.95/0.94/0.90 -> 0.97/0.98/0.97, osu_bibw "
     "0.99/0.93/0.90 -> 1.00/1.01/1.01. Not more than 2 GiB - 4 KiB: Linux moves at most "
     "that in one call, and UCX 1.13 takes a shorter call for the whole (test p2p_large)",
     &ol_param.ucx_cma_seg_size, 0, 0},
};

int ol_params_load(void)
{
    return ol_param_table_load(param_table, OL_ARRAY_SIZE(param_table));
}

void ol_params_print(FILE *out)
{
    ol_param_table_print(param_table, OL_ARRAY_SIZE(param_table), out);
}
