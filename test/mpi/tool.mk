# The tool information interface (MPI-4.1 chapter 15, MPI_T), issue 39:
# tool.c, run by tool.sh (see there).
check_PROGRAMS += test/mpi/tool
TESTS += test/mpi/tool.sh
EXTRA_DIST += test/mpi/tool.sh

test_mpi_tool_SOURCES = test/mpi/tool.c
test_mpi_tool_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_tool_LDADD = $(MPI_TEST_LIBS)
test_mpi_tool_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
