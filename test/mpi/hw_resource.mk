# MPI_Get_hw_resource_info (MPI-4.1), issue 39: hw_resource.c, run by
# hw_resource.sh (see there).
check_PROGRAMS += test/mpi/hw_resource
TESTS += test/mpi/hw_resource.sh
EXTRA_DIST += test/mpi/hw_resource.sh

test_mpi_hw_resource_SOURCES = test/mpi/hw_resource.c
test_mpi_hw_resource_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_hw_resource_LDADD = $(MPI_TEST_LIBS)
test_mpi_hw_resource_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
