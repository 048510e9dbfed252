# The shared-memory path of the blocking collectives (see coll_shm.c):
# coll_shm.sh runs the program on 2 to 8 ranks with the path's limits at
# their defaults and small, and once with the path off.
check_PROGRAMS += test/mpi/coll_shm
TESTS += test/mpi/coll_shm.sh
EXTRA_DIST += test/mpi/coll_shm.sh

test_mpi_coll_shm_SOURCES = test/mpi/coll_shm.c
test_mpi_coll_shm_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_shm_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_shm_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
