# GPU tests. Each section of this file is self-contained.

# ---- Fake CUDA driver (test double) ---------------------------------------
# test/gpu/fake_cuda/libcuda.so.1 is a fake CUDA driver for machines without
# a GPU (see test/gpu/fake_cuda/README.md): device memory the host cannot
# touch, copies, CUDA IPC between processes, the ol_reduce_* kernels run on
# the CPU. Built for `make check` only when configure found CUDA (cuda.h
# gives it the real signatures), never installed. A test points the library
# at it with OMPI_LITE_CUDA_LIBRARY=$top_builddir/test/gpu/fake_cuda/libcuda.so.1
# or LD_LIBRARY_PATH=$top_builddir/test/gpu/fake_cuda.
EXTRA_DIST += test/gpu/fake_cuda/README.md test/gpu/fake_cuda/fake_cuda.map \
	test/gpu/fake_cuda/fake_cuda_old.map
CLEANFILES += test/gpu/fake_cuda/libcuda.so.1 test/gpu/fake_cuda/old/libcuda.so.1
if OL_HAVE_CUDA
# A libtool module with a fixed export list (fake_cuda.map), then copied to
# the exact name programs dlopen.
check_LTLIBRARIES += test/gpu/fake_cuda/libfake_cuda.la
test_gpu_fake_cuda_libfake_cuda_la_SOURCES = test/gpu/fake_cuda/fake_cuda.c \
	test/gpu/fake_cuda/fake_cuda_kernels.c test/gpu/fake_cuda/fake_cuda.h
test_gpu_fake_cuda_libfake_cuda_la_CPPFLAGS = -I$(CUDA_DIR)/include
test_gpu_fake_cuda_libfake_cuda_la_LDFLAGS = -module -avoid-version -rpath /nowhere \
	-Wl,--version-script=$(srcdir)/test/gpu/fake_cuda/fake_cuda.map
test_gpu_fake_cuda_libfake_cuda_la_LIBADD = -lpthread
EXTRA_test_gpu_fake_cuda_libfake_cuda_la_DEPENDENCIES = test/gpu/fake_cuda/fake_cuda.map

check_DATA += test/gpu/fake_cuda/libcuda.so.1
test/gpu/fake_cuda/libcuda.so.1: test/gpu/fake_cuda/libfake_cuda.la
	$(AM_V_GEN)cp test/gpu/fake_cuda/.libs/libfake_cuda.so $@

# The same fake as a driver too old for ompi-lite: fake_cuda_old.map leaves
# out the entry points a CUDA 10.2 driver lacks. In old/, so that
# LD_LIBRARY_PATH can choose it (gpu_unusable_driver.sh).
check_LTLIBRARIES += test/gpu/fake_cuda/libfake_cuda_old.la
test_gpu_fake_cuda_libfake_cuda_old_la_SOURCES = $(test_gpu_fake_cuda_libfake_cuda_la_SOURCES)
test_gpu_fake_cuda_libfake_cuda_old_la_CPPFLAGS = -I$(CUDA_DIR)/include
test_gpu_fake_cuda_libfake_cuda_old_la_LDFLAGS = -module -avoid-version -rpath /nowhere \
	-Wl,--version-script=$(srcdir)/test/gpu/fake_cuda/fake_cuda_old.map
test_gpu_fake_cuda_libfake_cuda_old_la_LIBADD = -lpthread
EXTRA_test_gpu_fake_cuda_libfake_cuda_old_la_DEPENDENCIES = test/gpu/fake_cuda/fake_cuda_old.map

check_DATA += test/gpu/fake_cuda/old/libcuda.so.1
test/gpu/fake_cuda/old/libcuda.so.1: test/gpu/fake_cuda/libfake_cuda_old.la
	$(AM_V_GEN)$(MKDIR_P) test/gpu/fake_cuda/old && \
	cp test/gpu/fake_cuda/.libs/libfake_cuda_old.so $@

# The fake's own contract, checked without MPI. It finds libcuda.so.1 next
# to itself, so it depends on the copy.
check_PROGRAMS += test/gpu/fake_cuda/selftest
test_gpu_fake_cuda_selftest_SOURCES = test/gpu/fake_cuda/selftest.c
test_gpu_fake_cuda_selftest_CPPFLAGS = -I$(CUDA_DIR)/include
test_gpu_fake_cuda_selftest_LDADD = -ldl
EXTRA_test_gpu_fake_cuda_selftest_DEPENDENCIES = test/gpu/fake_cuda/libcuda.so.1
TESTS += test/gpu/fake_cuda/selftest
endif
# ---- end of fake CUDA driver ------------------------------------------------

# ---- GPU tests on device buffers (test/gpu/README.md) ----------------------
# Programs test/gpu/gpu_NAME, run by gpu_NAME.sh through mpirun on 2 to 4
# ranks under the harness's timeout; each exits 77 (skipped) where no GPU is
# usable. Device memory through test/bench/devmem.c (the CUDA driver opened
# with dlopen): they build without CUDA. gpu_NAME.fake.sh runs the same
# script against the fake driver of test/gpu/fake_cuda (only where configure
# found CUDA and so builds the fake), where they must not skip.
test_gpu_scripts = \
	test/gpu/gpu_query.sh \
	test/gpu/gpu_p2p.sh \
	test/gpu/gpu_p2p_semantics.sh \
	test/gpu/gpu_coll.sh \
	test/gpu/gpu_reduce.sh \
	test/gpu/gpu_allreduce_algos.sh \
	test/gpu/gpu_allreduce_ipc.sh \
	test/gpu/gpu_allreduce_fallback.sh \
	test/gpu/gpu_bad_input.sh \
	test/gpu/gpu_context.sh \
	test/gpu/gpu_misaligned.sh \
	test/gpu/gpu_old_driver.sh \
	test/gpu/gpu_unusable_driver.sh \
	test/gpu/gpu_memtype.sh \
	test/gpu/gpu_pools.sh \
	test/gpu/gpu_ipc_order.sh \
	test/gpu/gpu_ipc_cache.sh \
	test/gpu/gpu_half.sh \
	test/gpu/gpu_rma.sh \
	test/gpu/gpu_host_only.sh \
	test/gpu/gpu_part.sh \
	test/gpu/gpu_io.sh \
	test/gpu/gpu_bench.sh
test_gpu_fake_scripts = $(test_gpu_scripts:.sh=.fake.sh)
test_gpu_programs = \
	test/gpu/gpu_query \
	test/gpu/gpu_p2p \
	test/gpu/gpu_p2p_semantics \
	test/gpu/gpu_coll \
	test/gpu/gpu_reduce \
	test/gpu/gpu_bad_input \
	test/gpu/gpu_context \
	test/gpu/gpu_misaligned \
	test/gpu/gpu_memtype \
	test/gpu/gpu_pools \
	test/gpu/gpu_ipc_order \
	test/gpu/gpu_ipc_cache \
	test/gpu/gpu_half \
	test/gpu/gpu_host_only \
	test/gpu/gpu_rma \
	test/gpu/gpu_part \
	test/gpu/gpu_io

check_PROGRAMS += $(test_gpu_programs)
TESTS += $(test_gpu_scripts)
if OL_HAVE_CUDA
TESTS += $(test_gpu_fake_scripts)
endif
AM_TESTS_ENVIRONMENT += \
	OL_FAKE_CUDA_DIR='$(abs_builddir)/test/gpu/fake_cuda'; export OL_FAKE_CUDA_DIR;
EXTRA_DIST += $(test_gpu_scripts) $(test_gpu_fake_scripts) test/gpu/common.sh \
	test/gpu/README.md test/gpu/run-gpu-suite.sh

GPU_TEST_UTIL = test/gpu/gpu_test.c test/gpu/gpu_test.h test/bench/devmem.c test/bench/devmem.h
GPU_TEST_CPPFLAGS = $(MPI_TEST_INCLUDES) -I$(top_srcdir)/test/bench
GPU_TEST_LIBS = $(MPI_TEST_LIBS) -ldl

test_gpu_gpu_query_SOURCES = test/gpu/gpu_query.c $(GPU_TEST_UTIL)
test_gpu_gpu_query_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_query_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_query_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_p2p_SOURCES = test/gpu/gpu_p2p.c $(GPU_TEST_UTIL)
test_gpu_gpu_p2p_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_p2p_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_p2p_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_p2p_semantics_SOURCES = test/gpu/gpu_p2p_semantics.c $(GPU_TEST_UTIL)
test_gpu_gpu_p2p_semantics_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_p2p_semantics_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_p2p_semantics_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_coll_SOURCES = test/gpu/gpu_coll.c $(GPU_TEST_UTIL)
test_gpu_gpu_coll_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_coll_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_coll_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_reduce_SOURCES = test/gpu/gpu_reduce.c $(GPU_TEST_UTIL)
test_gpu_gpu_reduce_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_reduce_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_reduce_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_bad_input_SOURCES = test/gpu/gpu_bad_input.c $(GPU_TEST_UTIL)
test_gpu_gpu_bad_input_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_bad_input_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_bad_input_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_context_SOURCES = test/gpu/gpu_context.c $(GPU_TEST_UTIL)
test_gpu_gpu_context_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_context_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_context_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_misaligned_SOURCES = test/gpu/gpu_misaligned.c $(GPU_TEST_UTIL)
test_gpu_gpu_misaligned_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_misaligned_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_misaligned_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_memtype_SOURCES = test/gpu/gpu_memtype.c $(GPU_TEST_UTIL)
test_gpu_gpu_memtype_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_memtype_LDADD = $(GPU_TEST_LIBS) -lpthread
test_gpu_gpu_memtype_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_pools_SOURCES = test/gpu/gpu_pools.c $(GPU_TEST_UTIL)
test_gpu_gpu_pools_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_pools_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_pools_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

# What ol_accel_is_device costs with a driver loaded (ompi-lite/accel/README.md);
# a measurement, built by make check but not run by it.
check_PROGRAMS += test/gpu/memtype_cost
test_gpu_memtype_cost_SOURCES = test/gpu/memtype_cost.c test/bench/devmem.c test/bench/devmem.h
test_gpu_memtype_cost_CPPFLAGS = $(OL_CORE_CPPFLAGS) -I$(top_srcdir)/test/bench
test_gpu_memtype_cost_LDADD = libol_core.la libmpi_abi.la -ldl
test_gpu_gpu_ipc_order_SOURCES = test/gpu/gpu_ipc_order.c $(GPU_TEST_UTIL)
test_gpu_gpu_ipc_order_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_ipc_order_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_ipc_order_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_ipc_cache_SOURCES = test/gpu/gpu_ipc_cache.c $(GPU_TEST_UTIL)
test_gpu_gpu_ipc_cache_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_ipc_cache_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_ipc_cache_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_rma_SOURCES = test/gpu/gpu_rma.c $(GPU_TEST_UTIL)
test_gpu_gpu_rma_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_rma_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_rma_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_half_SOURCES = test/gpu/gpu_half.c test/mpi/half_ref.h $(GPU_TEST_UTIL)
test_gpu_gpu_half_CPPFLAGS = $(GPU_TEST_CPPFLAGS) -I$(top_srcdir)/test/mpi
test_gpu_gpu_half_LDADD = $(GPU_TEST_LIBS) -lm
test_gpu_gpu_half_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_host_only_SOURCES = test/gpu/gpu_host_only.c $(GPU_TEST_UTIL)
test_gpu_gpu_host_only_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_host_only_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_host_only_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_part_SOURCES = test/gpu/gpu_part.c $(GPU_TEST_UTIL)
test_gpu_gpu_part_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_part_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_part_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

test_gpu_gpu_io_SOURCES = test/gpu/gpu_io.c $(GPU_TEST_UTIL)
test_gpu_gpu_io_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_io_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_io_LDFLAGS = $(MPI_TEST_LINK_FLAGS)

# coll_perf_nccl (test/bench/local.mk, where configure found NCCL): skips
# cleanly, and with a real GPU gives right results.
if OL_HAVE_NCCL
TESTS += test/gpu/gpu_nccl.sh
if OL_HAVE_CUDA
TESTS += test/gpu/gpu_nccl.fake.sh
endif
endif
EXTRA_DIST += test/gpu/gpu_nccl.sh test/gpu/gpu_nccl.fake.sh

# run-gpu-suite.sh's own checks before it runs anything (no GPU, a C library
# too old), on a tree laid out like the carried one.
TESTS += test/gpu/run_gpu_suite_checks.sh
EXTRA_DIST += test/gpu/run_gpu_suite_checks.sh


# The GPU machine's suite (run-gpu-suite.sh) takes the programs from a
# directory carried there; contrib/gpu-carry.sh builds them with this target.
gpu-test-programs: $(test_gpu_programs)
.PHONY: gpu-test-programs
# ---- end of the GPU tests ----------------------------------------------------
include test/gpu/gpu_pvars.mk
