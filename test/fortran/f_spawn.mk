# MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE from Fortran (README.md here):
# f_spawn.f90 through mpif.h, f_spawn_f08.f90 through mpi_f08. Registered
# only where the Fortran bindings are built.
EXTRA_DIST += test/fortran/f_spawn.sh test/fortran/f_spawn.f90 \
	test/fortran/f_spawn_f08.sh test/fortran/f_spawn_f08.f90

if OL_HAVE_FORTRAN
TESTS += test/fortran/f_spawn.sh test/fortran/f_spawn_f08.sh
check_PROGRAMS += test/fortran/f_spawn test/fortran/f_spawn_f08

# mpif.h programs pass buffers of several types to one external.
test_fortran_f_spawn_SOURCES = test/fortran/f_spawn.f90
test_fortran_f_spawn_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS) $(OL_FC_ALLOW_MISMATCH)
test_fortran_f_spawn_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_spawn_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_fortran_f_spawn_f08_SOURCES = test/fortran/f_spawn_f08.f90
test_fortran_f_spawn_f08_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS)
test_fortran_f_spawn_f08_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_spawn_f08_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
endif
