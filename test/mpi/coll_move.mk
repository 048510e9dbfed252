# The data-movement collectives' tests (see coll_move.c, coll_move_errors.c,
# coll_mismatch.c and coll_bottom.c): one program runs the whole grid per rank count;
# coll_move.sh runs it on 1 to 8 ranks under each forced algorithm.
test_coll_move_scripts = test/mpi/coll_move.sh test/mpi/coll_move_errors.sh \
	test/mpi/coll_mismatch.sh test/mpi/coll_bottom.sh

check_PROGRAMS += test/mpi/coll_move test/mpi/coll_move_errors test/mpi/coll_mismatch \
	test/mpi/coll_bottom
TESTS += $(test_coll_move_scripts)
EXTRA_DIST += $(test_coll_move_scripts)

test_mpi_coll_move_SOURCES = test/mpi/coll_move.c
test_mpi_coll_move_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_move_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_move_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_coll_move_errors_SOURCES = test/mpi/coll_move_errors.c
test_mpi_coll_move_errors_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_move_errors_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_move_errors_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_coll_mismatch_SOURCES = test/mpi/coll_mismatch.c
test_mpi_coll_mismatch_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_mismatch_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_mismatch_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_coll_bottom_SOURCES = test/mpi/coll_bottom.c
test_mpi_coll_bottom_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_coll_bottom_LDADD = $(MPI_TEST_LIBS)
test_mpi_coll_bottom_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
