# Launcher tests (included from test/local.mk; paths relative to the top).
# pmix_client and io_writer link PMIx only, never the MPI library; mpi_hosts
# and ring (contrib/examples/ring.c) are plain MPI programs for the
# multi-host, Slurm and Open MPI launcher tests.
check_PROGRAMS += test/launcher/pmix_client test/launcher/io_writer test/launcher/mpi_hosts \
	test/launcher/ring test/launcher/hang test/launcher/split_host test/launcher/exit_after \
	test/launcher/shm_leftover test/launcher/shm_victim test/launcher/shm_squatter
check_PROGRAMS += test/launcher/spawn_client test/launcher/spawn_hosts test/launcher/names_client
test_launcher_names_client_SOURCES = test/launcher/names_client.c
test_launcher_names_client_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
test_launcher_names_client_LDADD = $(PMIX_LIBS)
test_launcher_spawn_hosts_SOURCES = test/launcher/spawn_hosts.c
test_launcher_spawn_hosts_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_launcher_spawn_hosts_LDADD = $(MPI_TEST_LIBS)
test_launcher_spawn_hosts_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
test_launcher_spawn_client_SOURCES = test/launcher/spawn_client.c
test_launcher_spawn_client_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
test_launcher_spawn_client_LDADD = $(PMIX_LIBS)
test_launcher_pmix_client_SOURCES = test/launcher/pmix_client.c
test_launcher_pmix_client_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS)
test_launcher_pmix_client_LDADD = $(PMIX_LIBS)
test_launcher_io_writer_SOURCES = test/launcher/io_writer.c
test_launcher_mpi_hosts_SOURCES = test/launcher/mpi_hosts.c
test_launcher_mpi_hosts_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_launcher_mpi_hosts_LDADD = $(MPI_TEST_LIBS)
test_launcher_mpi_hosts_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
test_launcher_hang_SOURCES = test/launcher/hang.c
test_launcher_hang_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_launcher_hang_LDADD = $(MPI_TEST_LIBS)
test_launcher_hang_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
test_launcher_shm_leftover_SOURCES = test/launcher/shm_leftover.c
test_launcher_shm_leftover_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_launcher_shm_leftover_LDADD = $(MPI_TEST_LIBS)
test_launcher_shm_leftover_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
test_launcher_shm_victim_SOURCES = test/launcher/shm_victim.c
test_launcher_shm_victim_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_launcher_shm_victim_LDADD = $(MPI_TEST_LIBS)
test_launcher_shm_victim_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
test_launcher_shm_squatter_SOURCES = test/launcher/shm_squatter.c
# The LD_PRELOAD shim of shm_squat_hostile.sh: a libtool module, never
# installed.
check_LTLIBRARIES += test/launcher/slow_shm_open.la
test_launcher_slow_shm_open_la_SOURCES = test/launcher/slow_shm_open.c
test_launcher_slow_shm_open_la_LDFLAGS = -module -avoid-version -rpath /nowhere
test_launcher_ring_SOURCES = contrib/examples/ring.c
test_launcher_ring_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_launcher_ring_LDADD = $(MPI_TEST_LIBS)
test_launcher_ring_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_launcher_scripts = \
	test/launcher/bad_input.sh \
	test/launcher/run_plain.sh \
	test/launcher/output_flood.sh \
	test/launcher/options.sh \
	test/launcher/pmix_job.sh test/launcher/spawn.sh \
	test/launcher/failures.sh \
	test/launcher/shm_leftovers.sh \
	test/launcher/shm_squat_hostile.sh \
	test/launcher/shm_squat_known.sh \
	test/launcher/topo_cache_dir.sh \
	test/launcher/exit_status.sh \
	test/launcher/default_binding.sh \
	test/launcher/vector_copies.sh \
	test/launcher/signals.sh \
	test/launcher/stdin.sh \
	test/launcher/own_address.sh \
	test/launcher/netns.sh \
	test/launcher/netns_own_address.sh \
	test/launcher/netns_failures.sh \
	test/launcher/netns_blips.sh \
	test/launcher/netns_ifname.sh \
	test/launcher/spawn_netns.sh \
	test/launcher/pvars_netns.sh \
	test/launcher/connect_netns.sh \
	test/launcher/names_netns.sh \
	test/launcher/strangers.sh \
	test/launcher/hang_deadlocks.sh \
	test/launcher/hang_report.sh \
	test/launcher/slurm.sh \
	test/launcher/openmpi.sh
TESTS += $(test_launcher_scripts)
EXTRA_DIST += test/launcher/common.sh test/launcher/netns_common.sh $(test_launcher_scripts) \
	contrib/netns-hosts.sh contrib/slurm-local.sh

test_launcher_split_host_SOURCES = test/launcher/split_host.c
test_launcher_split_host_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_launcher_split_host_LDADD = $(MPI_TEST_LIBS)
test_launcher_split_host_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_launcher_exit_after_SOURCES = test/launcher/exit_after.c
test_launcher_exit_after_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_launcher_exit_after_LDADD = $(MPI_TEST_LIBS)
test_launcher_exit_after_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
