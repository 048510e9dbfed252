# The performance variables of issue 39 (per-path message and byte counts,
# matching queues, progress timer, collective calls by algorithm):
# tool_pvars.c, run by tool_pvars.sh (see there).
check_PROGRAMS += test/mpi/tool_pvars
TESTS += test/mpi/tool_pvars.sh
EXTRA_DIST += test/mpi/tool_pvars.sh

test_mpi_tool_pvars_SOURCES = test/mpi/tool_pvars.c
test_mpi_tool_pvars_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_tool_pvars_LDADD = $(MPI_TEST_LIBS)
test_mpi_tool_pvars_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
