# Test harness: automake's parallel harness; every test runs under a timeout
# (test/with-timeout.sh, default 120 s, TEST_TIMEOUT overrides), exit 77 = skipped.
TEST_EXTENSIONS = .sh
LOG_COMPILER = $(SHELL) $(top_srcdir)/test/with-timeout.sh
SH_LOG_COMPILER = $(SHELL) $(top_srcdir)/test/with-timeout.sh
AM_TESTS_ENVIRONMENT = \
	top_srcdir='$(abs_top_srcdir)'; top_builddir='$(abs_top_builddir)'; \
	MPIRUN='$(abs_top_builddir)/launcher/mpirun'; OL_PREFIX='$(prefix)'; \
	OMPI_LITE_OVERSUBSCRIBE=1; export OMPI_LITE_OVERSUBSCRIBE; \
	PYTHON='$(PYTHON)'; CC='$(CC)'; CXX='$(CXX)'; FC='$(FC)'; \
	export top_srcdir top_builddir MPIRUN OL_PREFIX PYTHON CC CXX FC;
EXTRA_DIST += test/with-timeout.sh test/run-tests.sh test/unit/installed-tools.sh test/harness.sh
TESTS += test/unit/installed-tools.sh

# Programs linked against the build tree's library without libtool wrapper
# scripts, so mpirun execs the real binary.
MPI_TEST_LIBS = libmpi_abi.la
MPI_TEST_LINK_FLAGS = -no-install
MPI_TEST_INCLUDES = -I$(top_srcdir)/ompi-lite/include

include test/unit/local.mk
include test/unit/datatype.mk
include test/mpi/local.mk
include test/mpi/datatype.mk
include test/launcher/local.mk
include test/mpi/pt2pt.mk
include test/mpi/comm_extras.mk
include test/mpi/topo.mk
include test/mpi/coll_move.mk
include test/mpi/coll_reduce.mk
include test/mpi/half.mk
include test/mpi/coll_shm.mk
include test/mpi/p2p_shm.mk
include test/bench/local.mk
include test/gpu/local.mk
include test/fortran/local.mk
