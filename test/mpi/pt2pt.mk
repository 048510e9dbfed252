# Point-to-point semantics tests (see README.md): each program
# test/mpi/p2p_NAME is run by p2p_NAME.sh through ompi-lite's mpirun with
# several rank counts. The programs are plain MPI and share p2p_util.c.
test_p2p_scripts = \
	test/mpi/p2p_modes.sh \
	test/mpi/p2p_nonblocking.sh \
	test/mpi/p2p_persistent.sh \
	test/mpi/p2p_probe.sh \
	test/mpi/p2p_cancel.sh \
	test/mpi/p2p_cancel_self.sh \
	test/mpi/p2p_sendrecv.sh \
	test/mpi/p2p_order.sh \
	test/mpi/p2p_truncate.sh \
	test/mpi/p2p_status_error.sh \
	test/mpi/p2p_errors.sh \
	test/mpi/p2p_truncate_fatal.sh \
	test/mpi/p2p_threads.sh \
	test/mpi/p2p_large.sh \
	test/mpi/p2p_stress.sh \
	test/mpi/p2p_grequest.sh \
	test/mpi/p2p_bounce.sh

check_PROGRAMS += \
	test/mpi/p2p_modes \
	test/mpi/p2p_nonblocking \
	test/mpi/p2p_persistent \
	test/mpi/p2p_probe \
	test/mpi/p2p_cancel \
	test/mpi/p2p_cancel_self \
	test/mpi/p2p_sendrecv \
	test/mpi/p2p_order \
	test/mpi/p2p_truncate \
	test/mpi/p2p_status_error \
	test/mpi/p2p_errors \
	test/mpi/p2p_truncate_fatal \
	test/mpi/p2p_threads \
	test/mpi/p2p_large \
	test/mpi/p2p_stress \
	test/mpi/p2p_grequest \
	test/mpi/p2p_bounce
TESTS += $(test_p2p_scripts)
EXTRA_DIST += $(test_p2p_scripts)

P2P_UTIL = test/mpi/p2p_util.c test/mpi/p2p_util.h

test_mpi_p2p_modes_SOURCES = test/mpi/p2p_modes.c $(P2P_UTIL)
test_mpi_p2p_modes_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_modes_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_modes_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_nonblocking_SOURCES = test/mpi/p2p_nonblocking.c $(P2P_UTIL)
test_mpi_p2p_nonblocking_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_nonblocking_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_nonblocking_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_persistent_SOURCES = test/mpi/p2p_persistent.c $(P2P_UTIL)
test_mpi_p2p_persistent_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_persistent_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_persistent_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_probe_SOURCES = test/mpi/p2p_probe.c $(P2P_UTIL)
test_mpi_p2p_probe_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_probe_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_probe_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_cancel_SOURCES = test/mpi/p2p_cancel.c $(P2P_UTIL)
test_mpi_p2p_cancel_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_cancel_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_cancel_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_cancel_self_SOURCES = test/mpi/p2p_cancel_self.c $(P2P_UTIL)
test_mpi_p2p_cancel_self_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_cancel_self_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_p2p_cancel_self_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_sendrecv_SOURCES = test/mpi/p2p_sendrecv.c $(P2P_UTIL)
test_mpi_p2p_sendrecv_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_sendrecv_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_sendrecv_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_order_SOURCES = test/mpi/p2p_order.c $(P2P_UTIL)
test_mpi_p2p_order_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_order_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_order_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_status_error_SOURCES = test/mpi/p2p_status_error.c $(P2P_UTIL)
test_mpi_p2p_status_error_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_status_error_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_status_error_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
test_mpi_p2p_truncate_SOURCES = test/mpi/p2p_truncate.c $(P2P_UTIL)
test_mpi_p2p_truncate_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_truncate_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_truncate_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_errors_SOURCES = test/mpi/p2p_errors.c $(P2P_UTIL)
test_mpi_p2p_errors_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_errors_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_errors_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_threads_SOURCES = test/mpi/p2p_threads.c $(P2P_UTIL)
test_mpi_p2p_threads_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_threads_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_p2p_threads_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_large_SOURCES = test/mpi/p2p_large.c $(P2P_UTIL)
test_mpi_p2p_large_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_large_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_large_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_stress_SOURCES = test/mpi/p2p_stress.c $(P2P_UTIL)
test_mpi_p2p_stress_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_stress_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_stress_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_grequest_SOURCES = test/mpi/p2p_grequest.c $(P2P_UTIL)
test_mpi_p2p_grequest_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_grequest_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_p2p_grequest_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_bounce_SOURCES = test/mpi/p2p_bounce.c $(P2P_UTIL)
test_mpi_p2p_bounce_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_bounce_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_p2p_bounce_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_p2p_truncate_fatal_SOURCES = test/mpi/p2p_truncate_fatal.c
test_mpi_p2p_truncate_fatal_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_p2p_truncate_fatal_LDADD = $(MPI_TEST_LIBS)
test_mpi_p2p_truncate_fatal_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
