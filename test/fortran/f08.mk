# The mpi_f08 tests (README.md in test/mpi says how the multi-rank scripts
# run): registered only where the Fortran bindings are built.
EXTRA_DIST += test/fortran/f_mpi_f08.sh test/fortran/f_mpi_f08.f90 \
	test/fortran/f_mix_f08.sh test/fortran/f_mix_f08.f90 test/fortran/compile_fail_f08.sh \
	test/fortran/README.md test/fortran/f_callbacks_f08.sh test/fortran/f_callbacks_f08.f90

if OL_HAVE_FORTRAN
TESTS += test/fortran/f_mpi_f08.sh test/fortran/f_mix_f08.sh test/fortran/compile_fail_f08.sh \
	test/fortran/f_callbacks_f08.sh
check_PROGRAMS += test/fortran/f_mpi_f08 test/fortran/f_mix_f08 test/fortran/f_callbacks_f08

test_fortran_f_mpi_f08_SOURCES = test/fortran/f_mpi_f08.f90
test_fortran_f_mpi_f08_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS)
test_fortran_f_mpi_f08_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_mpi_f08_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_fortran_f_mix_f08_SOURCES = test/fortran/f_mix_f08.f90
test_fortran_f_mix_f08_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS)
test_fortran_f_mix_f08_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_mix_f08_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
test_fortran_f_callbacks_f08_SOURCES = test/fortran/f_callbacks_f08.f90
test_fortran_f_callbacks_f08_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS)
test_fortran_f_callbacks_f08_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_callbacks_f08_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
endif
