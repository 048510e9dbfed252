# One-sided communication, part of libol_core: windows, the protocol of
# their messages, the origin's operations, synchronisation.
libol_core_la_SOURCES += rma/rma.h rma/rma_internal.h rma/window.c rma/protocol.c rma/ops.c \
	rma/sync.c rma/direct.c rma/ucx.c
EXTRA_DIST += rma/README.md
