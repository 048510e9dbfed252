# io_alone (issue 38, see README.md): collective I/O on one host whose
# ranks' pieces interleave but are large, which each rank moves alone,
# checked byte for byte on 1 to 4 ranks.
check_PROGRAMS += test/mpi/io_alone
TESTS += test/mpi/io_alone.sh
EXTRA_DIST += test/mpi/io_alone.sh

test_mpi_io_alone_SOURCES = test/mpi/io_alone.c test/mpi/io_util.h
test_mpi_io_alone_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_io_alone_LDADD = $(MPI_TEST_LIBS)
test_mpi_io_alone_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
