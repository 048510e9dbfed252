# Collectives, part of libol_core.
libol_core_la_SOURCES += coll/coll.h coll/coll_util.h coll/coll_util.c coll/select.c \
	coll/barrier_dissemination.c coll/bcast_binomial.c coll/allreduce_recursive_doubling.c \
	coll/allgather_ring.c
