# The Fortran bindings (README.md here): libmpi_abi_f, mpif.h, the mpi and
# mpi_f08 modules, generated from functions.def and the C bindings by
# gen_fortran.py.
# Built only where configure found a Fortran compiler (OL_HAVE_FORTRAN).
EXTRA_DIST += ompi-lite/fortran/gen_fortran.py ompi-lite/fortran/README.md
OL_FORTRAN_GENERATED = ompi-lite/fortran/mpif.h ompi-lite/fortran/mpi_module.f90 \
	ompi-lite/fortran/fortran_glue.c ompi-lite/fortran/mpi_f08_types.f90 \
	ompi-lite/fortran/mpi_f08_module.f90 ompi-lite/fortran/fortran_f08_glue.c
OL_FORTRAN_MODULES = ompi-lite/fortran/mpi.mod ompi-lite/fortran/mpi_f08_types.mod \
	ompi-lite/fortran/mpi_f08.mod
CLEANFILES += $(OL_FORTRAN_GENERATED) ompi-lite/fortran/gen-stamp $(OL_FORTRAN_MODULES) \
	ompi-lite/fortran/mpi_module.o ompi-lite/fortran/mpi_f08_types_mod.o \
	ompi-lite/fortran/mpi_f08_module.o

if OL_HAVE_FORTRAN
BUILT_SOURCES += $(OL_FORTRAN_GENERATED) $(OL_FORTRAN_MODULES)
lib_LTLIBRARIES += libmpi_abi_f.la
nodist_include_HEADERS = ompi-lite/fortran/mpif.h $(OL_FORTRAN_MODULES)

$(OL_FORTRAN_GENERATED): ompi-lite/fortran/gen-stamp
# The C bindings say which functions the library exports: Fortran binds those.
ompi-lite/fortran/gen-stamp: $(srcdir)/ompi-lite/fortran/gen_fortran.py \
		$(srcdir)/ompi-lite/api/fntable.py $(srcdir)/ompi-lite/api/functions.def \
		$(srcdir)/ompi-lite/abi/constants.tsv ompi-lite/api/gen-stamp
	$(AM_V_GEN)$(MKDIR_P) ompi-lite/fortran && $(PYTHON) $(srcdir)/ompi-lite/fortran/gen_fortran.py \
		$(srcdir)/ompi-lite/api/functions.def $(srcdir)/ompi-lite/abi/constants.tsv \
		ompi-lite/api/gen_bindings.c ompi-lite/fortran && touch $@

# The module has no code (constants, COMMON sentinels, interfaces): only its
# mpi.mod is used, so its object is not linked anywhere.
ompi-lite/fortran/mpi.mod: ompi-lite/fortran/mpi_module.f90
	$(AM_V_FC)$(FC) $(FCFLAGS) -c -J ompi-lite/fortran -o ompi-lite/fortran/mpi_module.o \
		ompi-lite/fortran/mpi_module.f90

# mpi_f08_types holds the comparison operators' code, so the library links
# its object (compiled again there); mpi_f08, like mpi, only its .mod.
ompi-lite/fortran/mpi_f08_types.mod: ompi-lite/fortran/mpi_f08_types.f90
	$(AM_V_FC)$(FC) $(FCFLAGS) -c -J ompi-lite/fortran -o ompi-lite/fortran/mpi_f08_types_mod.o \
		ompi-lite/fortran/mpi_f08_types.f90
ompi-lite/fortran/mpi_f08.mod: ompi-lite/fortran/mpi_f08_module.f90 \
		ompi-lite/fortran/mpi_f08_types.mod
	$(AM_V_FC)$(FC) $(FCFLAGS) -c -I ompi-lite/fortran -J ompi-lite/fortran \
		-o ompi-lite/fortran/mpi_f08_module.o ompi-lite/fortran/mpi_f08_module.f90

libmpi_abi_f_la_SOURCES = ompi-lite/fortran/ol_fortran.h ompi-lite/fortran/glue_support.c \
	ompi-lite/fortran/glue_special.c ompi-lite/fortran/glue_extra.c ompi-lite/fortran/glue_spawn.c \
	ompi-lite/fortran/glue_f08.c \
	ompi-lite/fortran/fortran_types.f90
nodist_libmpi_abi_f_la_SOURCES = ompi-lite/fortran/fortran_glue.c \
	ompi-lite/fortran/fortran_f08_glue.c ompi-lite/fortran/mpi_f08_types.f90
libmpi_abi_f_la_FCFLAGS = $(FCFLAGS) -J ompi-lite/fortran
libmpi_abi_f_la_CPPFLAGS = -I$(top_srcdir)/ompi-lite/include -I$(top_srcdir)/ompi-lite/fortran
libmpi_abi_f_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden -pthread
libmpi_abi_f_la_LIBADD = libmpi_abi.la -lpthread
libmpi_abi_f_la_LDFLAGS = -version-info 1:0:0 -no-undefined
endif
