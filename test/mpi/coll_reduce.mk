# The reduction collectives: one program, coll_reduce.c, built under three
# names so that each script of the same name runs it (common.sh runs the
# program named like the script): the automatic choice, every algorithm
# forced, and reproducible mode.
coll_reduce_programs = test/mpi/coll_reduce test/mpi/coll_reduce_algos test/mpi/coll_reduce_repro
check_PROGRAMS += $(coll_reduce_programs)
coll_reduce_scripts = $(coll_reduce_programs:=.sh)
TESTS += $(coll_reduce_scripts)
EXTRA_DIST += $(coll_reduce_scripts)

test_mpi_coll_reduce_SOURCES = test/mpi/coll_reduce.c
test_mpi_coll_reduce_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_reduce_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_reduce_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
test_mpi_coll_reduce_algos_SOURCES = test/mpi/coll_reduce.c
test_mpi_coll_reduce_algos_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_reduce_algos_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_reduce_algos_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
test_mpi_coll_reduce_repro_SOURCES = test/mpi/coll_reduce.c
test_mpi_coll_reduce_repro_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_reduce_repro_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_reduce_repro_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

# MPI_Reduce on 2 ranks split between them (coll/reduce_split.c), and its
# fallbacks: a strided type on one rank, the kernel refusing the writes or
# the reads (the deny_cma shim of p2p_shm.mk).
check_PROGRAMS += test/mpi/coll_reduce_split
TESTS += test/mpi/coll_reduce_split.sh
EXTRA_DIST += test/mpi/coll_reduce_split.sh
test_mpi_coll_reduce_split_SOURCES = test/mpi/coll_reduce_split.c
test_mpi_coll_reduce_split_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_reduce_split_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_reduce_split_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
