# Collectives, part of libol_core: the schedule engine, selection, and one
# file per collective (its table) and per algorithm.
libol_core_la_SOURCES += coll/coll.h coll/coll_select.h coll/coll_util.h coll/coll_util.c \
	coll/coll_sched.h coll/coll_sched.c coll/select.c coll/pair.c \
	coll/shm.h coll/shm_segment.c coll/shm_coll.c \
	coll/barrier.c coll/barrier_dissemination.c \
	coll/bcast_util.h coll/bcast.c coll/bcast_binomial.c \
	coll/allreduce.c coll/allreduce_recursive_doubling.c \
	coll/allgather.c coll/allgather_ring.c
# The reduction collectives: reduce, allreduce, reduce_scatter(_block), scan, exscan.
libol_core_la_SOURCES += coll/reduce_util.h coll/reduce_util.c \
	coll/allreduce_ring.c coll/allreduce_rabenseifner.c coll/allreduce_tree.c \
	coll/allreduce_hierarchical.c coll/allreduce_intercomm.c coll/allreduce_device_ipc.c \
	coll/reduce.c coll/reduce_binomial.c coll/reduce_split.c coll/reduce_in_order.c coll/reduce_intercomm.c \
	coll/reduce_scatter.c coll/reduce_scatter_block.c coll/reduce_scatter_ring.c \
	coll/reduce_scatter_recursive_halving.c coll/reduce_scatter_in_order.c \
	coll/reduce_scatter_intercomm.c \
	coll/scan.c coll/exscan.c coll/scan_recursive_doubling.c

# The data-movement collectives beyond the first ones above: bcast, gather,
# scatter, allgather(v), alltoall(v, w), neighbourhood; tables and algorithms.
libol_core_la_SOURCES += coll/alltoall_blocks.h coll/alltoall_blocks.c \
	coll/barrier_linear.c \
	coll/bcast_scatter_allgather.c coll/bcast_pipeline.c coll/bcast_linear.c \
	coll/allgather_recursive_doubling.c coll/allgather_bruck.c \
	coll/allgatherv.c coll/allgatherv_ring.c \
	coll/gather.c coll/gather_binomial.c coll/gather_linear.c coll/gatherv.c \
	coll/scatter.c coll/scatter_binomial.c coll/scatter_linear.c coll/scatterv.c \
	coll/alltoall.c coll/alltoall_pairwise.c coll/alltoall_bruck.c coll/alltoall_linear.c \
	coll/alltoallv.c coll/alltoallw.c \
	coll/neighbor.c coll/neighbor_linear.c
