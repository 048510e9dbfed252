# The launcher: mpirun (also installed as mpiexec) and the per-host daemon.
# Included from the top Makefile.am, so paths are relative to the top.

bin_PROGRAMS += launcher/mpirun
# The daemon is started by mpirun only, so it is not on the user's PATH;
# mpirun finds it next to itself (build tree) or in ../libexec (install).
libexec_PROGRAMS += launcher/ompi-lite-daemon

# ompi-lite/runtime/netif.c is the one file of the library the launcher
# builds too: plain libc and /sys, so that mpirun, the daemons and the ranks
# choose the same interfaces from OMPI_LITE_IFNAME.
launcher_common_sources = launcher/proto.c launcher/proto.h launcher/util.c launcher/util.h \
	launcher/net.c launcher/net.h launcher/tree.c launcher/tree.h launcher/params.c launcher/params.h \
	ompi-lite/runtime/netif.c ompi-lite/include/ol_netif.h

launcher_mpirun_SOURCES = launcher/mpirun.c launcher/mpirun.h launcher/mpirun_opts.c \
	launcher/mpirun_start.c launcher/mpirun_output.c launcher/mpirun_output.h \
	launcher/hostfile.c launcher/hostid.c launcher/hostid.h launcher/mapping.c launcher/mpirun_state.c launcher/mpirun_state.h launcher/mpirun_net.c \
	launcher/mpirun_names.c \
	$(launcher_common_sources)
launcher_mpirun_CPPFLAGS = $(AM_CPPFLAGS) -DOL_LIBEXECDIR='"$(libexecdir)"' \
	-I$(top_srcdir)/ompi-lite/include
launcher_mpirun_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(LIBEVENT_CFLAGS) $(HWLOC_CFLAGS) $(AX_PTHREAD_FLAGS)
launcher_mpirun_LDADD = $(LIBEVENT_LIBS) $(HWLOC_LIBS)
launcher_mpirun_LDFLAGS = $(AX_PTHREAD_FLAGS)

launcher_ompi_lite_daemon_SOURCES = launcher/daemon.c launcher/daemon.h launcher/daemon_pmix.c \
	launcher/daemon_ranks.c launcher/daemon_topo.c launcher/daemon_modex.c launcher/binding.c \
	launcher/daemon_state.c launcher/daemon_spawn.c launcher/daemon_names.c \
	ompi-lite/runtime/user_dir.c ompi-lite/include/ol_user_dir.h $(launcher_common_sources)
# The state records' layout (ol_state.h) and mpi.h's datatype handles, for
# naming what a rank waits in; no code of the library.
launcher_ompi_lite_daemon_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/ompi-lite/include
launcher_ompi_lite_daemon_CFLAGS = $(AM_CFLAGS) $(PMIX_CFLAGS) $(LIBEVENT_CFLAGS) $(HWLOC_CFLAGS) $(AX_PTHREAD_FLAGS)
launcher_ompi_lite_daemon_LDADD = $(PMIX_LIBS) $(LIBEVENT_LIBS) $(HWLOC_LIBS)
launcher_ompi_lite_daemon_LDFLAGS = $(AX_PTHREAD_FLAGS)

EXTRA_DIST += launcher/README.md contrib/bench-startup.sh contrib/examples/hello.c

# mpiexec is mpirun. The top Makefile.am chains these from its
# install-exec-hook and uninstall-hook.
install-exec-hook-launcher:
	cd $(DESTDIR)$(bindir) && rm -f mpiexec$(EXEEXT) && ln -s mpirun$(EXEEXT) mpiexec$(EXEEXT)
uninstall-hook-launcher:
	rm -f $(DESTDIR)$(bindir)/mpiexec$(EXEEXT)
.PHONY: install-exec-hook-launcher uninstall-hook-launcher
