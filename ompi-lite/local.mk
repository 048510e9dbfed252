# The library libmpi_abi: API bindings (generated), runtime, datatypes, accel,
# plus the pt2pt/ and coll/ layers that pt2pt/local.mk and coll/local.mk add
# to the convenience library libol_core.
include_HEADERS += ompi-lite/include/mpi.h ompi-lite/include/mpi-ext.h
noinst_LTLIBRARIES = libol_core.la
lib_LTLIBRARIES += libmpi_abi.la

OL_CORE_CPPFLAGS = -I$(top_srcdir)/ompi-lite/include -I$(top_builddir)/ompi-lite/include \
	-I$(top_srcdir)/ompi-lite/api -I$(top_builddir)/ompi-lite/api \
	-I$(top_srcdir)/pt2pt -I$(top_srcdir)/coll -I$(top_srcdir)/rma -I$(top_srcdir)/io \
	$(UCX_CFLAGS) $(PMIX_CFLAGS) $(HWLOC_CFLAGS)
OL_CORE_CFLAGS = $(AM_CFLAGS) $(OL_VECTORIZE_CFLAGS) $(OL_STRINGOP_CFLAGS) -fvisibility=hidden \
	-pthread
OL_CORE_LIBS = $(UCX_LIBS) $(PMIX_LIBS) $(HWLOC_LIBS) -lpthread

libol_core_la_CPPFLAGS = $(OL_CORE_CPPFLAGS)
libol_core_la_CFLAGS = $(OL_CORE_CFLAGS)
libol_core_la_LIBADD = $(OL_CORE_LIBS)
libol_core_la_SOURCES = \
	ompi-lite/include/ol_common.h ompi-lite/include/ol_log.h ompi-lite/include/ol_params.h \
	ompi-lite/include/ol_runtime.h ompi-lite/include/ol_comm.h ompi-lite/include/ol_datatype.h \
	ompi-lite/runtime/params.c ompi-lite/runtime/log.c ompi-lite/runtime/init.c \
	ompi-lite/runtime/progress.c ompi-lite/runtime/pmix_client.c ompi-lite/runtime/pmix_client.h \
	ompi-lite/runtime/error_detail.c ompi-lite/runtime/param_table.c \
	ompi-lite/runtime/state.c ompi-lite/include/ol_state.h ompi-lite/include/ol_shm_names.h \
	ompi-lite/runtime/shm_file.c ompi-lite/include/ol_shm_file.h \
	ompi-lite/runtime/netif.c ompi-lite/include/ol_netif.h ompi-lite/include/ol_counter.h \
	ompi-lite/runtime/procs.c ompi-lite/runtime/procs.h \
	ompi-lite/runtime/port.c ompi-lite/runtime/names.c ompi-lite/include/ol_dynamic.h \
	ompi-lite/include/ol_spawn.h ompi-lite/runtime/user_dir.c ompi-lite/include/ol_user_dir.h \
	ompi-lite/datatype/predefined.c
include ompi-lite/datatype/local.mk
include ompi-lite/op/local.mk
include ompi-lite/accel/local.mk

# The API layer: hand-written implementations, and the bindings generated
# from functions.def for exactly the functions those files implement.
OL_API_IMPL = \
	ompi-lite/api/init.c ompi-lite/api/environment.c ompi-lite/api/errors.c \
	ompi-lite/api/comm.c ompi-lite/api/pt2pt.c ompi-lite/api/coll.c \
	ompi-lite/api/datatype.c ompi-lite/api/request.c ompi-lite/api/group.c \
	ompi-lite/api/attr.c ompi-lite/api/info.c ompi-lite/api/errhandler.c \
	ompi-lite/api/handles.c ompi-lite/api/handles.h \
	ompi-lite/api/topo.c ompi-lite/api/topo_cart.c ompi-lite/api/topo_graph.c \
	ompi-lite/api/topo_internal.h ompi-lite/api/comm_internal.h ompi-lite/api/coll_internal.h \
	ompi-lite/api/coll_reduce.c ompi-lite/api/op.c ompi-lite/api/fortran_abi.c \
	ompi-lite/api/fortran_status.c ompi-lite/api/win.c ompi-lite/api/part.c \
	ompi-lite/api/session.c ompi-lite/api/file.c ompi-lite/api/tool.c \
	ompi-lite/api/hw_resource.c ompi-lite/api/hw_resource.h \
	ompi-lite/api/dynamic.c ompi-lite/api/dynamic.h
OL_API_GENERATED = ompi-lite/api/gen_bindings.c ompi-lite/api/gen_impl.h
BUILT_SOURCES += $(OL_API_GENERATED)
CLEANFILES += $(OL_API_GENERATED)
EXTRA_DIST += ompi-lite/api/gen_bindings.py
$(OL_API_GENERATED): ompi-lite/api/gen-stamp
ompi-lite/api/gen-stamp: $(srcdir)/ompi-lite/api/gen_bindings.py $(srcdir)/ompi-lite/api/fntable.py \
		$(srcdir)/ompi-lite/api/functions.def $(OL_API_IMPL:%=$(srcdir)/%)
	$(AM_V_GEN)$(MKDIR_P) ompi-lite/api && $(PYTHON) $(srcdir)/ompi-lite/api/gen_bindings.py \
		$(srcdir)/ompi-lite/api/functions.def ompi-lite/api/gen_bindings.c ompi-lite/api/gen_impl.h \
		$(OL_API_IMPL:%=$(srcdir)/%) && touch $@
CLEANFILES += ompi-lite/api/gen-stamp

libmpi_abi_la_CPPFLAGS = $(OL_CORE_CPPFLAGS)
libmpi_abi_la_CFLAGS = $(OL_CORE_CFLAGS)
libmpi_abi_la_SOURCES = $(OL_API_IMPL) $(OL_API_GENERATED) \
	ompi-lite/api/ol_api.h ompi-lite/api/ol_api_checks.h \
	ompi-lite/api/context_id.h ompi-lite/api/context_id.c \
	ompi-lite/api/coll_overlap.c \
	ompi-lite/api/mpix.c \
	launcher/params.c launcher/params.h
libmpi_abi_la_LIBADD = libol_core.la $(OL_CORE_LIBS)
# libmpi_abi.so.1, as the standard ABI names it.
libmpi_abi_la_LDFLAGS = -version-info 1:0:0 -no-undefined

include ompi-lite/fortran/local.mk
include ompi-lite/tools/local.mk
