# MPI-IO tests, issue 38 (see README.md): four programs, each run by the
# script of the same name on 1 to 4 ranks with the harness's scratch
# directory as their first argument, and io_shared_netns.sh, which runs
# io_access's shared-pointer parts on two network-namespace hosts. The
# programs were first checked against MPICH and Open MPI. io_failure: a rank
# killed in a collective write, and a full disk. io_rounds: many rounds of
# two-phase I/O, also where a rank that sleeps wakes only for a message.
test_io_scripts = test/mpi/io_access.sh test/mpi/io_views.sh test/mpi/io_datarep.sh \
	test/mpi/io_manage.sh test/mpi/io_failure.sh test/mpi/io_rounds.sh \
	test/launcher/io_shared_netns.sh

check_PROGRAMS += test/mpi/io_access test/mpi/io_views test/mpi/io_datarep test/mpi/io_manage \
	test/mpi/io_failure test/mpi/io_rounds
TESTS += $(test_io_scripts)
EXTRA_DIST += $(test_io_scripts)

test_mpi_io_access_SOURCES = test/mpi/io_access.c test/mpi/io_util.h
test_mpi_io_access_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_io_access_LDADD = $(MPI_TEST_LIBS)
test_mpi_io_access_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_io_views_SOURCES = test/mpi/io_views.c test/mpi/io_util.h
test_mpi_io_views_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_io_views_LDADD = $(MPI_TEST_LIBS)
test_mpi_io_views_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_io_datarep_SOURCES = test/mpi/io_datarep.c test/mpi/io_util.h
test_mpi_io_datarep_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_io_datarep_LDADD = $(MPI_TEST_LIBS)
test_mpi_io_datarep_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_io_manage_SOURCES = test/mpi/io_manage.c test/mpi/io_util.h
test_mpi_io_manage_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_io_manage_LDADD = $(MPI_TEST_LIBS)
test_mpi_io_manage_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_io_failure_SOURCES = test/mpi/io_failure.c
test_mpi_io_failure_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_io_failure_LDADD = $(MPI_TEST_LIBS)
test_mpi_io_failure_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_io_rounds_SOURCES = test/mpi/io_rounds.c
test_mpi_io_rounds_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_io_rounds_LDADD = $(MPI_TEST_LIBS)
test_mpi_io_rounds_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
