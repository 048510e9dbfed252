# Tools: compiler wrappers, pkg-config file, ompi_lite_info.
bin_SCRIPTS += ompi-lite/tools/mpicc
pkgconfig_DATA += ompi-lite/tools/ompi-lite.pc
EXTRA_DIST += ompi-lite/tools/mpicc.in ompi-lite/tools/ompi-lite.pc.in \
	ompi-lite/tools/mpifort.in ompi-lite/tools/ompi-lite-fortran.pc.in
if OL_HAVE_FORTRAN
bin_SCRIPTS += ompi-lite/tools/mpifort
pkgconfig_DATA += ompi-lite/tools/ompi-lite-fortran.pc
endif

bin_PROGRAMS += ompi-lite/tools/ompi_lite_info
ompi_lite_tools_ompi_lite_info_SOURCES = ompi-lite/tools/ompi_lite_info.c launcher/params.c
ompi_lite_tools_ompi_lite_info_CPPFLAGS = $(OL_CORE_CPPFLAGS) -I$(top_srcdir)/launcher
ompi_lite_tools_ompi_lite_info_LDADD = libol_core.la

# mpicxx is mpicc under another name; libmpi.so is a link-time alias of
# libmpi_abi.so for build systems that ask for -lmpi.
install-exec-hook: install-exec-hook-launcher
	cd $(DESTDIR)$(bindir) && rm -f mpicxx && $(LN_S) mpicc mpicxx
if OL_HAVE_FORTRAN
	cd $(DESTDIR)$(bindir) && rm -f mpif90 mpif77 && $(LN_S) mpifort mpif90 && \
		$(LN_S) mpifort mpif77
endif
	cd $(DESTDIR)$(libdir) && rm -f libmpi.so && $(LN_S) libmpi_abi.so libmpi.so
uninstall-hook: uninstall-hook-launcher
	rm -f $(DESTDIR)$(bindir)/mpicxx $(DESTDIR)$(libdir)/libmpi.so
	rm -f $(DESTDIR)$(bindir)/mpif90 $(DESTDIR)$(bindir)/mpif77
