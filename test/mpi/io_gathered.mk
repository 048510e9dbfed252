# io_gathered (issue 38, see README.md): one round of two-phase collective
# I/O of thousands of small interleaved pieces, which the aggregator writes
# gathered from where they arrived, checked byte for byte on 1 to 4 ranks.
check_PROGRAMS += test/mpi/io_gathered
TESTS += test/mpi/io_gathered.sh
EXTRA_DIST += test/mpi/io_gathered.sh

test_mpi_io_gathered_SOURCES = test/mpi/io_gathered.c test/mpi/io_util.h
test_mpi_io_gathered_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_io_gathered_LDADD = $(MPI_TEST_LIBS)
test_mpi_io_gathered_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
