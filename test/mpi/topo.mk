# Topology and communicator-creation tests: each program test/mpi/NAME is
# run by NAME.sh through ompi-lite's mpirun with several rank counts. The
# programs are plain MPI and share topo_util.c (checks, and exchanges over
# point-to-point only).
test_topo_scripts = \
	test/mpi/topo_cart.sh test/mpi/topo_dims.sh test/mpi/topo_graph.sh \
	test/mpi/topo_errors.sh test/mpi/comm_create.sh test/mpi/split_type.sh \
	test/mpi/comm_idup.sh test/mpi/group_large.sh

test_topo_programs = \
	test/mpi/topo_cart test/mpi/topo_dims test/mpi/topo_graph \
	test/mpi/topo_errors test/mpi/comm_create test/mpi/split_type \
	test/mpi/comm_idup test/mpi/group_large

check_PROGRAMS += $(test_topo_programs)
TESTS += $(test_topo_scripts)
EXTRA_DIST += $(test_topo_scripts)

TOPO_UTIL = test/mpi/topo_util.c test/mpi/topo_util.h

test_mpi_topo_cart_SOURCES = test/mpi/topo_cart.c $(TOPO_UTIL)
test_mpi_topo_cart_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_topo_cart_LDADD = $(MPI_TEST_LIBS)
test_mpi_topo_cart_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_topo_dims_SOURCES = test/mpi/topo_dims.c $(TOPO_UTIL)
test_mpi_topo_dims_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_topo_dims_LDADD = $(MPI_TEST_LIBS)
test_mpi_topo_dims_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_topo_graph_SOURCES = test/mpi/topo_graph.c $(TOPO_UTIL)
test_mpi_topo_graph_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_topo_graph_LDADD = $(MPI_TEST_LIBS)
test_mpi_topo_graph_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_topo_errors_SOURCES = test/mpi/topo_errors.c $(TOPO_UTIL)
test_mpi_topo_errors_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_topo_errors_LDADD = $(MPI_TEST_LIBS)
test_mpi_topo_errors_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_comm_idup_SOURCES = test/mpi/comm_idup.c
test_mpi_comm_idup_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_comm_idup_LDADD = $(MPI_TEST_LIBS)
test_mpi_comm_idup_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_group_large_SOURCES = test/mpi/group_large.c
test_mpi_group_large_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_group_large_LDADD = $(MPI_TEST_LIBS)
test_mpi_group_large_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_comm_create_SOURCES = test/mpi/comm_create.c $(TOPO_UTIL)
test_mpi_comm_create_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_comm_create_LDADD = $(MPI_TEST_LIBS)
test_mpi_comm_create_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_split_type_SOURCES = test/mpi/split_type.c $(TOPO_UTIL)
test_mpi_split_type_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_split_type_LDADD = $(MPI_TEST_LIBS)
test_mpi_split_type_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

TESTS += test/mpi/intercomm_ops.sh
EXTRA_DIST += test/mpi/intercomm_ops.sh
check_PROGRAMS += test/mpi/intercomm_ops
test_mpi_intercomm_ops_SOURCES = test/mpi/intercomm_ops.c
test_mpi_intercomm_ops_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_intercomm_ops_LDADD = $(MPI_TEST_LIBS)
test_mpi_intercomm_ops_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

TESTS += test/mpi/comm_threads.sh
EXTRA_DIST += test/mpi/comm_threads.sh
check_PROGRAMS += test/mpi/comm_threads
test_mpi_comm_threads_SOURCES = test/mpi/comm_threads.c
test_mpi_comm_threads_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_comm_threads_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_comm_threads_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

TESTS += test/mpi/intercomm_rooted.sh
EXTRA_DIST += test/mpi/intercomm_rooted.sh
check_PROGRAMS += test/mpi/intercomm_rooted
test_mpi_intercomm_rooted_SOURCES = test/mpi/intercomm_rooted.c
test_mpi_intercomm_rooted_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_intercomm_rooted_LDADD = $(MPI_TEST_LIBS)
test_mpi_intercomm_rooted_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
