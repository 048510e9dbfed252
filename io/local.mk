# MPI-IO, part of libol_core: files, views, representations, independent
# and collective (two-phase) data access, the shared file pointer.
libol_core_la_SOURCES += io/io.h io/io_internal.h io/file.c io/view.c io/datarep.c \
	io/access.c io/collective.c io/shared.c io/layout.c
EXTRA_DIST += io/README.md
