# The device paths' performance variables (issue 39): gpu_pvars.c, run by
# gpu_pvars.sh, and against the fake driver by gpu_pvars.fake.sh (see
# local.mk for the GPU tests' conventions).
check_PROGRAMS += test/gpu/gpu_pvars
TESTS += test/gpu/gpu_pvars.sh
if OL_HAVE_CUDA
TESTS += test/gpu/gpu_pvars.fake.sh
endif
EXTRA_DIST += test/gpu/gpu_pvars.sh test/gpu/gpu_pvars.fake.sh

test_gpu_gpu_pvars_SOURCES = test/gpu/gpu_pvars.c $(GPU_TEST_UTIL)
test_gpu_gpu_pvars_CPPFLAGS = $(GPU_TEST_CPPFLAGS)
test_gpu_gpu_pvars_LDADD = $(GPU_TEST_LIBS)
test_gpu_gpu_pvars_LDFLAGS = $(MPI_TEST_LINK_FLAGS)
# The GPU machine's suite runs every gpu_*.sh: its programs come from here.
gpu-test-programs: test/gpu/gpu_pvars
