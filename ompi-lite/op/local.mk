# Reduction operators, part of libol_core (included from ompi-lite/local.mk).
libol_core_la_SOURCES += ompi-lite/include/ol_op.h ompi-lite/op/predefined.c ompi-lite/op/apply.c \
	ompi-lite/op/apply_device.c ompi-lite/op/half.h ompi-lite/op/half.c
