# Launcher tests (included from test/local.mk; paths relative to the top).
# C helpers link PMIx only, never the MPI library.
check_PROGRAMS += test/launcher/pmix_client test/launcher/io_writer
test_launcher_pmix_client_SOURCES = test/launcher/pmix_client.c
test_launcher_pmix_client_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
test_launcher_pmix_client_LDADD = $(PMIX_LIBS)
test_launcher_io_writer_SOURCES = test/launcher/io_writer.c

TESTS += \
	test/launcher/bad_input.sh \
	test/launcher/run_plain.sh \
	test/launcher/pmix_job.sh \
	test/launcher/failures.sh \
	test/launcher/signals.sh \
	test/launcher/stdin.sh
EXTRA_DIST += test/launcher/common.sh test/launcher/bad_input.sh test/launcher/run_plain.sh \
	test/launcher/pmix_job.sh test/launcher/failures.sh test/launcher/signals.sh \
	test/launcher/stdin.sh
