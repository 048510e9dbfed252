# Attributes, info objects, error handlers and handle conversion: each
# program NAME is run by NAME.sh through mpirun (see README.md).
comm_extras_scripts = \
	test/mpi/comm_attr.sh test/mpi/comm_attr_type.sh test/mpi/comm_attr_loop.sh \
	test/mpi/comm_info.sh test/mpi/comm_errh.sh test/mpi/handles.sh

check_PROGRAMS += \
	test/mpi/comm_attr test/mpi/comm_attr_type test/mpi/comm_attr_loop \
	test/mpi/comm_info test/mpi/comm_errh test/mpi/handles
TESTS += $(comm_extras_scripts)
EXTRA_DIST += $(comm_extras_scripts)

test_mpi_comm_attr_SOURCES = test/mpi/comm_attr.c
test_mpi_comm_attr_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_comm_attr_LDADD = $(MPI_TEST_LIBS)
test_mpi_comm_attr_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_comm_attr_type_SOURCES = test/mpi/comm_attr_type.c
test_mpi_comm_attr_type_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_comm_attr_type_LDADD = $(MPI_TEST_LIBS)
test_mpi_comm_attr_type_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_comm_attr_loop_SOURCES = test/mpi/comm_attr_loop.c
test_mpi_comm_attr_loop_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_comm_attr_loop_LDADD = $(MPI_TEST_LIBS)
test_mpi_comm_attr_loop_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_comm_info_SOURCES = test/mpi/comm_info.c
test_mpi_comm_info_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_comm_info_LDADD = $(MPI_TEST_LIBS)
test_mpi_comm_info_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_comm_errh_SOURCES = test/mpi/comm_errh.c
test_mpi_comm_errh_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_comm_errh_LDADD = $(MPI_TEST_LIBS)
test_mpi_comm_errh_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_handles_SOURCES = test/mpi/handles.c
test_mpi_handles_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_handles_LDADD = $(MPI_TEST_LIBS)
test_mpi_handles_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
