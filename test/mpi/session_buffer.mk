# Buffers attached to sessions for buffered sends (MPI-4.1 3.6.1), issue
# 39: session_buffer.c, run by session_buffer.sh (see there).
check_PROGRAMS += test/mpi/session_buffer
TESTS += test/mpi/session_buffer.sh
EXTRA_DIST += test/mpi/session_buffer.sh

test_mpi_session_buffer_SOURCES = test/mpi/session_buffer.c
test_mpi_session_buffer_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_session_buffer_LDADD = $(MPI_TEST_LIBS)
test_mpi_session_buffer_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
