# The shared-memory path of the blocking collectives: one program,
# coll_shm.c, built under two names so that each script of the same name
# runs it (common.sh runs the program named like the script): the defaults
# on 2 to 8 ranks (coll_shm.sh); a small limit, slicing from the first
# bytes, and the path off (coll_shm_limits.sh).
coll_shm_programs = test/mpi/coll_shm test/mpi/coll_shm_limits
check_PROGRAMS += $(coll_shm_programs)
coll_shm_scripts = $(coll_shm_programs:=.sh)
TESTS += $(coll_shm_scripts)
EXTRA_DIST += $(coll_shm_scripts)

test_mpi_coll_shm_SOURCES = test/mpi/coll_shm.c
test_mpi_coll_shm_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_shm_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_shm_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
test_mpi_coll_shm_limits_SOURCES = test/mpi/coll_shm.c
test_mpi_coll_shm_limits_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_shm_limits_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_shm_limits_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
