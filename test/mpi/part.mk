# Partitioned communication (see part.c): MPI_Psend_init, MPI_Precv_init,
# MPI_Pready*, MPI_Parrived on 1 to 4 ranks.
check_PROGRAMS += test/mpi/part
TESTS += test/mpi/part.sh
EXTRA_DIST += test/mpi/part.sh

test_mpi_part_SOURCES = test/mpi/part.c $(P2P_UTIL)
test_mpi_part_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_part_LDADD = $(MPI_TEST_LIBS) -lpthread
test_mpi_part_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
