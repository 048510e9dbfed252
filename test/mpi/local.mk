# Multi-rank MPI tests: each program NAME is run by NAME.sh through ompi-lite's
# mpirun with several rank counts (see README.md). The programs are plain MPI.
test_mpi_scripts = \
	test/mpi/ring.sh test/mpi/matrix.sh test/mpi/wildcards.sh test/mpi/env.sh \
	test/mpi/exit3.sh test/mpi/abort.sh test/mpi/bad_rank.sh test/mpi/errors_return.sh \
	test/mpi/finalize_race.sh test/mpi/bad_params.sh test/mpi/finalize_orphans.sh

check_PROGRAMS += \
	test/mpi/ring test/mpi/matrix test/mpi/wildcards test/mpi/env \
	test/mpi/exit3 test/mpi/abort test/mpi/bad_rank test/mpi/errors_return \
	test/mpi/finalize_race test/mpi/bad_params test/mpi/finalize_orphans
TESTS += $(test_mpi_scripts)
EXTRA_DIST += $(test_mpi_scripts) test/mpi/common.sh test/mpi/README.md test/mpi/peer_skips.h
include test/mpi/rma.mk
include test/mpi/part.mk
include test/mpi/session.mk
include test/mpi/tool.mk
include test/mpi/session_buffer.mk
include test/mpi/hw_resource.mk
include test/mpi/tool_pvars.mk
include test/mpi/io.mk
include test/mpi/io_gathered.mk
include test/mpi/io_alone.mk
include test/mpi/dyn.mk

test_mpi_ring_SOURCES = test/mpi/ring.c
test_mpi_ring_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_ring_LDADD = $(MPI_TEST_LIBS)
test_mpi_ring_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

# The ring program again, run by bad_params.sh under its own name.
test_mpi_bad_params_SOURCES = test/mpi/ring.c
test_mpi_bad_params_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_bad_params_LDADD = $(MPI_TEST_LIBS)
test_mpi_bad_params_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_finalize_orphans_SOURCES = test/mpi/finalize_orphans.c
test_mpi_finalize_orphans_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_finalize_orphans_LDADD = $(MPI_TEST_LIBS)
test_mpi_finalize_orphans_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_matrix_SOURCES = test/mpi/matrix.c
test_mpi_matrix_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_matrix_LDADD = $(MPI_TEST_LIBS)
test_mpi_matrix_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_wildcards_SOURCES = test/mpi/wildcards.c
test_mpi_wildcards_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_wildcards_LDADD = $(MPI_TEST_LIBS)
test_mpi_wildcards_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_env_SOURCES = test/mpi/env.c
test_mpi_env_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_env_LDADD = $(MPI_TEST_LIBS)
test_mpi_env_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_exit3_SOURCES = test/mpi/exit3.c
test_mpi_exit3_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_exit3_LDADD = $(MPI_TEST_LIBS)
test_mpi_exit3_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_abort_SOURCES = test/mpi/abort.c
test_mpi_abort_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_abort_LDADD = $(MPI_TEST_LIBS)
test_mpi_abort_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_bad_rank_SOURCES = test/mpi/bad_rank.c
test_mpi_bad_rank_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_bad_rank_LDADD = $(MPI_TEST_LIBS)
test_mpi_bad_rank_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_errors_return_SOURCES = test/mpi/errors_return.c
test_mpi_errors_return_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_errors_return_LDADD = $(MPI_TEST_LIBS)
test_mpi_errors_return_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_finalize_race_SOURCES = test/mpi/finalize_race.c
test_mpi_finalize_race_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_finalize_race_LDADD = $(MPI_TEST_LIBS)
test_mpi_finalize_race_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

# The LD_PRELOAD shim of finalize_race: a libtool module, never installed.
check_LTLIBRARIES += test/mpi/late_signal.la
test_mpi_late_signal_la_SOURCES = test/mpi/late_signal.c
test_mpi_late_signal_la_CPPFLAGS = $(UCX_CFLAGS)
test_mpi_late_signal_la_LDFLAGS = -module -avoid-version -rpath /nowhere
test_mpi_late_signal_la_LIBADD = -ldl
