# Sessions and process sets (MPI-4.1 11.3), issue 39: session.c, run by
# session.sh on 1 to 4 ranks and as a singleton, and by
# test/launcher/session_netns.sh on 2 network-namespace hosts (see
# README.md).
test_session_scripts = test/mpi/session.sh test/launcher/session_netns.sh

check_PROGRAMS += test/mpi/session
TESTS += $(test_session_scripts)
EXTRA_DIST += $(test_session_scripts)

test_mpi_session_SOURCES = test/mpi/session.c
test_mpi_session_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_session_LDADD = $(MPI_TEST_LIBS)
test_mpi_session_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
