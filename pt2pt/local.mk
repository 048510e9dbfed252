# Point-to-point over UCX, part of libol_core.
libol_core_la_SOURCES += pt2pt/pt2pt.h pt2pt/tag_layout.h pt2pt/endpoint.h pt2pt/endpoint.c \
	pt2pt/request.h pt2pt/request.c pt2pt/send_recv.c pt2pt/ucx_datatype.h pt2pt/ucx_datatype.c \
	pt2pt/ucx_ops.h pt2pt/probe.c pt2pt/bsend.c pt2pt/device.h pt2pt/device.c \
	pt2pt/match.h pt2pt/match.c pt2pt/shm_ring.h pt2pt/shm_ring.c \
	pt2pt/shm_copy.h pt2pt/shm_copy.c pt2pt/part.c pt2pt/path_counters.h
