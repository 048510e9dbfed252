# The datatype engine, part of libol_core (included from ompi-lite/local.mk).
libol_core_la_SOURCES += \
	ompi-lite/datatype/dt_internal.h ompi-lite/datatype/construct.c \
	ompi-lite/datatype/array.c ompi-lite/datatype/engine.c \
	ompi-lite/datatype/external32.c ompi-lite/datatype/handles.c
EXTRA_DIST += ompi-lite/datatype/README.md
