# GPU tests. Each section of this file is self-contained.

# ---- Fake CUDA driver (test double) ---------------------------------------
# test/gpu/fake_cuda/libcuda.so.1 is a fake CUDA driver for machines without
# a GPU (see test/gpu/fake_cuda/README.md): device memory the host cannot
# touch, copies, CUDA IPC between processes, the ol_reduce_* kernels run on
# the CPU. Built for `make check` only when configure found CUDA (cuda.h
# gives it the real signatures), never installed. A test points the library
# at it with OMPI_LITE_CUDA_LIBRARY=$top_builddir/test/gpu/fake_cuda/libcuda.so.1
# or LD_LIBRARY_PATH=$top_builddir/test/gpu/fake_cuda.
EXTRA_DIST += test/gpu/fake_cuda/README.md test/gpu/fake_cuda/fake_cuda.map
CLEANFILES += test/gpu/fake_cuda/libcuda.so.1
check_LTLIBRARIES =
check_DATA =
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
