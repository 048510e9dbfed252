# The installed mpifort, pkg-config file and CMake's FindMPI (README.md
# here): registered only where the Fortran bindings are built.
EXTRA_DIST += test/fortran/installed_fortran.sh
if OL_HAVE_FORTRAN
TESTS += test/fortran/installed_fortran.sh
endif
