# One-sided communication (MPI RMA) tests, issue 36 (see README.md): seven
# programs, each run by the script of the same name on 1 to 4 ranks, and
# rma_netns.sh, which runs the ring cases of rma_basic and rma_acc, and
# rma_messages, on two network-namespace hosts. The programs were first
# checked against Open MPI and MPICH; they link against ompi-lite once it
# exports MPI_Win_* and kin.
test_rma_scripts = test/mpi/rma_basic.sh test/mpi/rma_acc.sh test/mpi/rma_attr.sh \
	test/mpi/rma_errors.sh test/mpi/rma_progress.sh test/mpi/rma_messages.sh \
	test/mpi/rma_fence.sh test/launcher/rma_netns.sh

check_PROGRAMS += test/mpi/rma_basic test/mpi/rma_acc test/mpi/rma_attr test/mpi/rma_errors \
	test/mpi/rma_progress test/mpi/rma_messages test/mpi/rma_fence
TESTS += $(test_rma_scripts)
EXTRA_DIST += $(test_rma_scripts)

test_mpi_rma_basic_SOURCES = test/mpi/rma_basic.c test/mpi/rma_util.h
test_mpi_rma_basic_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_rma_basic_LDADD = $(MPI_TEST_LIBS)
test_mpi_rma_basic_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_rma_acc_SOURCES = test/mpi/rma_acc.c test/mpi/rma_util.h
test_mpi_rma_acc_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_rma_acc_LDADD = $(MPI_TEST_LIBS)
test_mpi_rma_acc_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_rma_attr_SOURCES = test/mpi/rma_attr.c test/mpi/rma_util.h
test_mpi_rma_attr_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_rma_attr_LDADD = $(MPI_TEST_LIBS)
test_mpi_rma_attr_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_rma_errors_SOURCES = test/mpi/rma_errors.c test/mpi/rma_util.h
test_mpi_rma_errors_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_rma_errors_LDADD = $(MPI_TEST_LIBS)
test_mpi_rma_errors_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_rma_progress_SOURCES = test/mpi/rma_progress.c
test_mpi_rma_progress_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_rma_progress_LDADD = $(MPI_TEST_LIBS)
test_mpi_rma_progress_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_rma_messages_SOURCES = test/mpi/rma_messages.c
test_mpi_rma_messages_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_rma_messages_LDADD = $(MPI_TEST_LIBS)
test_mpi_rma_messages_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_mpi_rma_fence_SOURCES = test/mpi/rma_fence.c
test_mpi_rma_fence_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_mpi_rma_fence_LDADD = $(MPI_TEST_LIBS)
test_mpi_rma_fence_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
