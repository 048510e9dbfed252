# The 16-bit floating-point types (MPIX_C_FLOAT16, MPIX_C_BF16, MPI_REAL2)
# on host buffers, bit for bit against the reference of half_ref.h.
check_PROGRAMS += test/mpi/half
TESTS += test/mpi/half.sh
EXTRA_DIST += test/mpi/half.sh
test_mpi_half_SOURCES = test/mpi/half.c test/mpi/half_ref.h
test_mpi_half_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_half_LDADD = $(MPI_TEST_LIBS) -lm
test_mpi_half_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
