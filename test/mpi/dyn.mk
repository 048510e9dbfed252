# Process management (see dyn_connect.c, dyn_spawn.c): ports, accept/connect,
# names and join within a job and between two mpiruns; spawn on one host.
check_PROGRAMS += test/mpi/dyn_connect test/mpi/dyn_spawn
TESTS += test/mpi/dyn_connect.sh test/mpi/dyn_spawn.sh
EXTRA_DIST += test/mpi/dyn_connect.sh test/mpi/dyn_spawn.sh

test_mpi_dyn_connect_SOURCES = test/mpi/dyn_connect.c test/mpi/dyn_util.h
test_mpi_dyn_connect_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_dyn_connect_LDADD = $(MPI_TEST_LIBS)
test_mpi_dyn_connect_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_dyn_spawn_SOURCES = test/mpi/dyn_spawn.c test/mpi/dyn_util.h
test_mpi_dyn_spawn_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_dyn_spawn_LDADD = $(MPI_TEST_LIBS)
test_mpi_dyn_spawn_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
