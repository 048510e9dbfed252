# The mpi_f08 large-count procedures with callbacks (README.md here):
# registered only where the Fortran bindings are built.
EXTRA_DIST += test/fortran/f_large_f08.sh test/fortran/f_large_f08.f90

if OL_HAVE_FORTRAN
TESTS += test/fortran/f_large_f08.sh
check_PROGRAMS += test/fortran/f_large_f08
test_fortran_f_large_f08_SOURCES = test/fortran/f_large_f08.f90
test_fortran_f_large_f08_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS)
test_fortran_f_large_f08_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_large_f08_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
endif
