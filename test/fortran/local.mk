# Fortran tests (README.md in test/mpi says how the multi-rank scripts run):
# registered only where the Fortran bindings are built. f_use_mpi and
# f_mpif_h are one source, f_mpi.F90, under the two interfaces.
EXTRA_DIST += test/fortran/common.sh test/fortran/f_use_mpi.sh test/fortran/f_mpif_h.sh \
	test/fortran/mixed.sh test/fortran/compile_fail.sh test/fortran/f_mpi.F90 \
	test/fortran/mixed_main.c test/fortran/mixed_sub.f90 \
	test/fortran/f_rma.sh test/fortran/f_rma.f90 test/fortran/f_callbacks.F90 \
	test/fortran/f_callbacks_mpi.sh test/fortran/f_callbacks_mpif_h.sh

if OL_HAVE_FORTRAN
TESTS += test/fortran/f_use_mpi.sh test/fortran/f_mpif_h.sh test/fortran/mixed.sh \
	test/fortran/compile_fail.sh test/fortran/f_rma.sh test/fortran/f_callbacks_mpi.sh \
	test/fortran/f_callbacks_mpif_h.sh
check_PROGRAMS += test/fortran/f_use_mpi test/fortran/f_mpif_h test/fortran/mixed test/fortran/f_rma \
	test/fortran/f_callbacks_mpi test/fortran/f_callbacks_mpif_h
FORTRAN_TEST_LIBS = libmpi_abi_f.la libmpi_abi.la
FORTRAN_TEST_FLAGS = -I$(top_builddir)/ompi-lite/fortran

test_fortran_f_use_mpi_SOURCES = test/fortran/f_mpi.F90
test_fortran_f_use_mpi_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS) -DUSE_MPI_MODULE
test_fortran_f_use_mpi_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_use_mpi_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

# gfortran 10 and later refuse one external called with different types,
# which is what mpif.h programs do with buffers: they need this flag. Its
# module `checks` goes into test/fortran, as f_callbacks_mpif_h's below
# (a fresh clone's parallel build once failed renaming checks.mod).
test_fortran_f_mpif_h_SOURCES = test/fortran/f_mpi.F90
test_fortran_f_mpif_h_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS) $(OL_FC_ALLOW_MISMATCH) \
	-J test/fortran
test_fortran_f_mpif_h_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_mpif_h_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_fortran_f_rma_SOURCES = test/fortran/f_rma.f90
test_fortran_f_rma_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS)
test_fortran_f_rma_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_rma_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

# f_callbacks.F90 under both interfaces, as f_mpi.F90.
test_fortran_f_callbacks_mpi_SOURCES = test/fortran/f_callbacks.F90
test_fortran_f_callbacks_mpi_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS) -DUSE_MPI_MODULE
test_fortran_f_callbacks_mpi_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_callbacks_mpi_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_fortran_f_callbacks_mpif_h_SOURCES = test/fortran/f_callbacks.F90
# Its module `callbacks` goes into test/fortran (-J): in the build's top
# folder, where the other compilation writes its own, two compilations in
# parallel renamed one callbacks.mod at once (gfortran: "Cannot rename
# module file").
test_fortran_f_callbacks_mpif_h_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS) $(OL_FC_ALLOW_MISMATCH) \
	-J test/fortran
test_fortran_f_callbacks_mpif_h_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_f_callbacks_mpif_h_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_fortran_mixed_SOURCES = test/fortran/mixed_main.c test/fortran/mixed_sub.f90
test_fortran_mixed_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_fortran_mixed_FCFLAGS = $(FCFLAGS) $(FORTRAN_TEST_FLAGS)
test_fortran_mixed_LDADD = $(FORTRAN_TEST_LIBS)
test_fortran_mixed_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
endif
include test/fortran/f08.mk
include test/fortran/f_large_f08.mk
include test/fortran/installed_fortran.mk
include test/fortran/f_spawn.mk
