# Datatype tests at the MPI level. dt_api runs as a singleton (the program
# itself is the test); dt_sendrecv runs on 2 and 3 ranks (dt_sendrecv.sh);
# fortran_abi, the Fortran types' registration, on 1 to 3 (fortran_abi.sh);
# dt_f90, the types of MPI_Type_create_f90_*, on 1 and 2 (dt_f90.sh).
check_PROGRAMS += test/mpi/dt_api test/mpi/dt_sendrecv test/mpi/fortran_abi test/mpi/dt_f90
TESTS += test/mpi/dt_api test/mpi/dt_sendrecv.sh test/mpi/fortran_abi.sh test/mpi/dt_f90.sh
EXTRA_DIST += test/mpi/dt_sendrecv.sh test/mpi/fortran_abi.sh test/mpi/dt_f90.sh

test_mpi_dt_api_SOURCES = test/mpi/dt_api.c
test_mpi_dt_api_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_dt_api_LDADD = $(MPI_TEST_LIBS)
test_mpi_dt_api_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_dt_sendrecv_SOURCES = test/mpi/dt_sendrecv.c
test_mpi_dt_sendrecv_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_dt_sendrecv_LDADD = $(MPI_TEST_LIBS)
test_mpi_dt_sendrecv_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_fortran_abi_SOURCES = test/mpi/fortran_abi.c
test_mpi_fortran_abi_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_fortran_abi_LDADD = $(MPI_TEST_LIBS)
test_mpi_fortran_abi_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_dt_f90_SOURCES = test/mpi/dt_f90.c
test_mpi_dt_f90_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_dt_f90_LDADD = $(MPI_TEST_LIBS)
test_mpi_dt_f90_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
