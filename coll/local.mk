# Collectives, part of libol_core: the schedule engine, selection, and one
# file per collective (its table) and per algorithm.
libol_core_la_SOURCES += coll/coll.h coll/coll_select.h coll/coll_util.h coll/coll_util.c \
	coll/coll_sched.h coll/coll_sched.c coll/select.c \
	coll/barrier.c coll/barrier_dissemination.c \
	coll/bcast.c coll/bcast_binomial.c \
	coll/allreduce.c coll/allreduce_recursive_doubling.c \
	coll/allgather.c coll/allgather_ring.c
