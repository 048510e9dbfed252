# Benchmarks (see test/bench/README.md): OSU-style point-to-point,
# collective and one-sided (RMA) latency and bandwidth, a nccl-tests-style
# collective benchmark, the machine's memcpy bandwidth and the GPU's copy bandwidth. Plain MPI: contrib/compare.sh builds the
# same sources against Open MPI and MPICH. Installed as programs; the test
# scripts run each one briefly with -c (data checked, times not asserted).
BENCH_COMMON = test/bench/bench.c test/bench/bench.h
BENCH_WINDOW = test/bench/window.c test/bench/window.h
BENCH_COLL = test/bench/osu_coll.c test/bench/osu_coll.h $(BENCH_COMMON)
BENCH_RMA = test/bench/osu_rma.c test/bench/osu_rma.h $(BENCH_COMMON)

# Linked by libtool without $(MPI_TEST_LINK_FLAGS) (-no-install): installed
# programs must find the installed library. In the build tree the libtool
# wrapper puts the build's library first, and mpirun runs the wrapper.
bench_built = \
	test/bench/osu_latency test/bench/osu_bw test/bench/osu_bibw \
	test/bench/osu_bw_vector test/bench/osu_mbw_mr test/bench/osu_barrier
bench_built += test/bench/osu_reduce test/bench/osu_allreduce test/bench/osu_reduce_scatter
bench_built += test/bench/osu_bcast test/bench/osu_allgather test/bench/osu_alltoall
bench_built += test/bench/coll_perf
bench_built += test/bench/osu_put_latency test/bench/osu_get_latency test/bench/osu_put_bw \
	test/bench/osu_get_bw test/bench/osu_acc_latency test/bench/osu_fop_latency \
	test/bench/osu_cas_latency
bin_PROGRAMS += $(bench_built) test/bench/memcpy_bw test/bench/core_round_trip \
	test/bench/devcopy_bw
# Device memory through the CUDA driver opened at run time (no CUDA needed to
# build): coll_perf --device, devcopy_bw, and osu_latency and osu_bw built
# with -DBENCH_DEVICE (-d cuda, -g). test/gpu/gpu_bench.sh runs them.
BENCH_DEVMEM = test/bench/devmem.c test/bench/devmem.h
BENCH_DEVICE = test/bench/bench_device.c $(BENCH_DEVMEM)
EXTRA_DIST += test/bench/README.md test/bench/plots/osu_latency.png \
	test/bench/plots/osu_latency.csv

test_bench_scripts = \
	test/bench/osu_latency.sh test/bench/osu_bw.sh test/bench/osu_bibw.sh \
	test/bench/osu_bw_vector.sh \
	test/bench/osu_mbw_mr.sh test/bench/osu_barrier.sh test/bench/memcpy_bw.sh \
	test/bench/core_round_trip.sh
test_bench_scripts += test/bench/osu_reduce.sh test/bench/osu_allreduce.sh \
	test/bench/osu_reduce_scatter.sh
test_bench_scripts += test/bench/osu_bcast.sh test/bench/osu_allgather.sh \
	test/bench/osu_alltoall.sh test/bench/coll_perf.sh
test_bench_scripts += test/bench/osu_put_latency.sh test/bench/osu_get_latency.sh \
	test/bench/osu_put_bw.sh test/bench/osu_get_bw.sh test/bench/osu_acc_latency.sh \
	test/bench/osu_fop_latency.sh test/bench/osu_cas_latency.sh
TESTS += $(test_bench_scripts)
EXTRA_DIST += $(test_bench_scripts) test/bench/common.sh

test_bench_osu_latency_SOURCES = test/bench/osu_latency.c $(BENCH_COMMON) $(BENCH_DEVICE)
test_bench_osu_latency_CPPFLAGS = $(MPI_TEST_INCLUDES) -DBENCH_DEVICE
test_bench_osu_latency_LDADD = $(MPI_TEST_LIBS) -ldl

test_bench_osu_bw_SOURCES = test/bench/osu_bw.c $(BENCH_WINDOW) $(BENCH_COMMON) $(BENCH_DEVICE)
test_bench_osu_bw_CPPFLAGS = $(MPI_TEST_INCLUDES) -DBENCH_DEVICE
test_bench_osu_bw_LDADD = $(MPI_TEST_LIBS) -ldl

test_bench_osu_bibw_SOURCES = test/bench/osu_bibw.c $(BENCH_WINDOW) $(BENCH_COMMON)
test_bench_osu_bibw_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_bibw_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_bw_vector_SOURCES = test/bench/osu_bw_vector.c $(BENCH_COMMON)
test_bench_osu_bw_vector_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_bw_vector_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_mbw_mr_SOURCES = test/bench/osu_mbw_mr.c $(BENCH_WINDOW) $(BENCH_COMMON)
test_bench_osu_mbw_mr_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_mbw_mr_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_barrier_SOURCES = test/bench/osu_barrier.c $(BENCH_COLL)
test_bench_osu_barrier_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_barrier_LDADD = $(MPI_TEST_LIBS)

test_bench_memcpy_bw_SOURCES = test/bench/memcpy_bw.c test/bench/standalone.h

test_bench_core_round_trip_SOURCES = test/bench/core_round_trip.c test/bench/standalone.h

test_bench_devcopy_bw_SOURCES = test/bench/devcopy_bw.c test/bench/standalone.h $(BENCH_DEVMEM)
test_bench_devcopy_bw_LDADD = -ldl

test_bench_osu_reduce_SOURCES = test/bench/osu_reduce.c $(BENCH_COLL)
test_bench_osu_reduce_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_reduce_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_allreduce_SOURCES = test/bench/osu_allreduce.c $(BENCH_COLL)
test_bench_osu_allreduce_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_allreduce_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_reduce_scatter_SOURCES = test/bench/osu_reduce_scatter.c $(BENCH_COLL)
test_bench_osu_reduce_scatter_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_reduce_scatter_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_bcast_SOURCES = test/bench/osu_bcast.c $(BENCH_COLL)
test_bench_osu_bcast_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_bcast_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_allgather_SOURCES = test/bench/osu_allgather.c $(BENCH_COLL)
test_bench_osu_allgather_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_allgather_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_alltoall_SOURCES = test/bench/osu_alltoall.c $(BENCH_COLL)
test_bench_osu_alltoall_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_alltoall_LDADD = $(MPI_TEST_LIBS)

# One-sided (RMA): osu_rma.c is the driver, each program names its operation.
test_bench_osu_put_latency_SOURCES = test/bench/osu_put_latency.c $(BENCH_RMA)
test_bench_osu_put_latency_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_put_latency_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_get_latency_SOURCES = test/bench/osu_get_latency.c $(BENCH_RMA)
test_bench_osu_get_latency_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_get_latency_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_put_bw_SOURCES = test/bench/osu_put_bw.c $(BENCH_RMA)
test_bench_osu_put_bw_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_put_bw_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_get_bw_SOURCES = test/bench/osu_get_bw.c $(BENCH_RMA)
test_bench_osu_get_bw_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_get_bw_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_acc_latency_SOURCES = test/bench/osu_acc_latency.c $(BENCH_RMA)
test_bench_osu_acc_latency_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_acc_latency_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_fop_latency_SOURCES = test/bench/osu_fop_latency.c $(BENCH_RMA)
test_bench_osu_fop_latency_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_fop_latency_LDADD = $(MPI_TEST_LIBS)

test_bench_osu_cas_latency_SOURCES = test/bench/osu_cas_latency.c $(BENCH_RMA)
test_bench_osu_cas_latency_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_osu_cas_latency_LDADD = $(MPI_TEST_LIBS)

# io_tile: MPI-IO bandwidth, IOR / mpi-tile-io style (issue 38).
EXTRA_DIST += test/bench/io_tile.c test/bench/io_tile.sh
bin_PROGRAMS += test/bench/io_tile
TESTS += test/bench/io_tile.sh
test_bench_io_tile_SOURCES = test/bench/io_tile.c $(BENCH_COMMON)
test_bench_io_tile_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_io_tile_LDADD = $(MPI_TEST_LIBS)

# coll_perf.c is the measuring loop of both coll_perf (MPI's collectives,
# coll_mpi.c) and its twin coll_perf_nccl (NCCL's, coll_nccl.c).
BENCH_COLL_PERF = test/bench/coll_perf.c test/bench/coll_perf.h $(BENCH_DEVMEM) $(BENCH_COMMON)
test_bench_coll_perf_SOURCES = test/bench/coll_mpi.c $(BENCH_COLL_PERF)
test_bench_coll_perf_CPPFLAGS = $(MPI_TEST_INCLUDES)
test_bench_coll_perf_LDADD = $(MPI_TEST_LIBS) -ldl

# Where configure found NCCL (nccl.h and libnccl): coll_perf_nccl, the same
# measurements of NCCL on device buffers, one rank per GPU, bootstrapped over
# MPI. test/gpu/gpu_nccl.sh checks it; run-gpu-suite.sh compares the two.
if OL_HAVE_NCCL
bin_PROGRAMS += test/bench/coll_perf_nccl
test_bench_coll_perf_nccl_SOURCES = test/bench/coll_nccl.c $(BENCH_COLL_PERF)
test_bench_coll_perf_nccl_CPPFLAGS = $(MPI_TEST_INCLUDES) $(NCCL_CPPFLAGS)
test_bench_coll_perf_nccl_LDFLAGS = $(NCCL_LDFLAGS)
test_bench_coll_perf_nccl_LDADD = $(MPI_TEST_LIBS) $(NCCL_LIBS) -ldl
endif

# osu_latency_f08: osu_latency in Fortran (use mpi_f08), where the Fortran
# bindings are built; contrib/fortran-latency.sh runs the two side by side.
EXTRA_DIST += test/bench/osu_latency_f08.f90 test/bench/osu_latency_f08.sh
if OL_HAVE_FORTRAN
bin_PROGRAMS += test/bench/osu_latency_f08
TESTS += test/bench/osu_latency_f08.sh
test_bench_osu_latency_f08_SOURCES = test/bench/osu_latency_f08.f90
test_bench_osu_latency_f08_FCFLAGS = $(FCFLAGS) -I$(top_builddir)/ompi-lite/fortran
test_bench_osu_latency_f08_LDADD = libmpi_abi_f.la libmpi_abi.la
endif
