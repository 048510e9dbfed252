# Point-to-point between ranks of one host, written to catch the bugs of a
# same-host channel (rings per pair, inline small messages, large ones
# announced and carried over UCX, backlogs when a ring is full): ordering
# across sizes and send modes, floods, unexpected and posted matching,
# probes, cancel, truncation, derived datatypes, oversubscription and
# threads. Each program test/mpi/p2p_shm_NAME is run by p2p_shm_NAME.sh on
# 2, 3 and 8 ranks where that means something; they are plain MPI and
# share p2p_util.c and p2p_shm_util.c. See the comment at the top of each
# program for what it checks. p2p_shm_threads.c is built twice, so that
# p2p_shm_threads_mprobe.sh (blocking MPI_Mprobe from several threads) is a
# test of its own: common.sh runs the program named like the script.
p2p_shm_programs = \
	test/mpi/p2p_shm_order \
	test/mpi/p2p_shm_flood \
	test/mpi/p2p_shm_match \
	test/mpi/p2p_shm_probe \
	test/mpi/p2p_shm_cancel \
	test/mpi/p2p_shm_send_cancel \
	test/mpi/p2p_shm_truncate \
	test/mpi/p2p_shm_dtype \
	test/mpi/p2p_shm_oversub \
	test/mpi/p2p_shm_threads \
	test/mpi/p2p_shm_threads_mprobe \
	test/mpi/p2p_shm_wake \
	test/mpi/p2p_shm_backlog \
	test/mpi/p2p_shm_shared \
	test/mpi/p2p_shm_stale_seal \
	test/mpi/p2p_shm_full_ring \
	test/mpi/p2p_shm_moved \
	test/mpi/p2p_shm_left
check_PROGRAMS += $(p2p_shm_programs)
# p2p_shm_fallback.sh runs p2p_shm_order with a /dev/shm too small for the
# rings; p2p_shm_nocma.sh runs it and p2p_shm_truncate where the kernel
# refuses process_vm_readv (the deny_cma shim).
p2p_shm_scripts = $(p2p_shm_programs:=.sh) test/mpi/p2p_shm_fallback.sh \
	test/mpi/p2p_shm_nocma.sh
TESTS += $(p2p_shm_scripts)
EXTRA_DIST += $(p2p_shm_scripts)

# The LD_PRELOAD shim of p2p_shm_nocma and p2p_shm_shared: a libtool module,
# never installed.
check_LTLIBRARIES += test/mpi/deny_cma.la
test_mpi_deny_cma_la_SOURCES = test/mpi/deny_cma.c
test_mpi_deny_cma_la_LDFLAGS = -module -avoid-version -rpath /nowhere

P2P_SHM_UTIL = test/mpi/p2p_shm_util.c test/mpi/p2p_shm_util.h \
	test/mpi/p2p_util.c test/mpi/p2p_util.h

test_mpi_p2p_shm_order_SOURCES = test/mpi/p2p_shm_order.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_order_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_order_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_order_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_flood_SOURCES = test/mpi/p2p_shm_flood.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_flood_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_flood_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_flood_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_match_SOURCES = test/mpi/p2p_shm_match.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_match_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_match_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_match_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_probe_SOURCES = test/mpi/p2p_shm_probe.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_probe_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_probe_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_probe_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_cancel_SOURCES = test/mpi/p2p_shm_cancel.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_cancel_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_cancel_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_cancel_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_send_cancel_SOURCES = test/mpi/p2p_shm_send_cancel.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_send_cancel_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_send_cancel_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_send_cancel_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_truncate_SOURCES = test/mpi/p2p_shm_truncate.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_truncate_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_truncate_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_truncate_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_dtype_SOURCES = test/mpi/p2p_shm_dtype.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_dtype_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_dtype_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_dtype_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_oversub_SOURCES = test/mpi/p2p_shm_oversub.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_oversub_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_oversub_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_oversub_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_threads_SOURCES = test/mpi/p2p_shm_threads.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_threads_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_threads_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_p2p_shm_threads_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_threads_mprobe_SOURCES = test/mpi/p2p_shm_threads.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_threads_mprobe_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_threads_mprobe_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_p2p_shm_threads_mprobe_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_wake_SOURCES = test/mpi/p2p_shm_wake.c test/mpi/p2p_util.c test/mpi/p2p_util.h
test_mpi_p2p_shm_wake_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_wake_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_wake_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_backlog_SOURCES = test/mpi/p2p_shm_backlog.c test/mpi/p2p_util.c \
	test/mpi/p2p_util.h
test_mpi_p2p_shm_backlog_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_backlog_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_backlog_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_shared_SOURCES = test/mpi/p2p_shm_shared.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_shared_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_shared_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_shared_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_stale_seal_SOURCES = test/mpi/p2p_shm_stale_seal.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_stale_seal_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_stale_seal_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_stale_seal_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_full_ring_SOURCES = test/mpi/p2p_shm_full_ring.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_full_ring_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_full_ring_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_full_ring_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_moved_SOURCES = test/mpi/p2p_shm_moved.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_moved_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_moved_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_moved_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_shm_left_SOURCES = test/mpi/p2p_shm_left.c $(P2P_SHM_UTIL)
test_mpi_p2p_shm_left_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_shm_left_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_shm_left_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
