# Unit tests of the standard-ABI header: its constants against the ABI table,
# and that it compiles cleanly as C and C++ with every prototype present.
TESTS += test/unit/abi-constants.sh test/unit/header-compiles.sh
EXTRA_DIST += test/unit/abi-constants.sh test/unit/header-compiles.sh \
	ompi-lite/abi/README.md ompi-lite/abi/constants.tsv ompi-lite/abi/functions.tsv \
	ompi-lite/api/functions.def ompi-lite/api/fntable.py ompi-lite/api/gen_mpi_h.py
# The accel layer without a GPU (or without a loaded driver): memory types,
# the driver watch, the build facts, the kernel table, MPIX_Query_cuda_support.
check_PROGRAMS += test/unit/accel_host
TESTS += test/unit/accel_host
test_unit_accel_host_SOURCES = test/unit/accel_host.c
test_unit_accel_host_CPPFLAGS = $(OL_CORE_CPPFLAGS)
test_unit_accel_host_LDADD = libol_core.la libmpi_abi.la
# ol_progress_wait never asks its condition again after a true answer.
check_PROGRAMS += test/unit/progress_wait
TESTS += test/unit/progress_wait
test_unit_progress_wait_SOURCES = test/unit/progress_wait.c
test_unit_progress_wait_CPPFLAGS = $(OL_CORE_CPPFLAGS)
test_unit_progress_wait_LDADD = libol_core.la libmpi_abi.la
# The /dev/shm files the ranks of a host share (ol_shm_file.h): secret
# names, mode 0600, an existing name refused, unfit files not opened.
check_PROGRAMS += test/unit/shm_file
TESTS += test/unit/shm_file
test_unit_shm_file_SOURCES = test/unit/shm_file.c
test_unit_shm_file_CPPFLAGS = $(OL_CORE_CPPFLAGS)
test_unit_shm_file_LDADD = libol_core.la libmpi_abi.la
# The reduction loops of the 16-bit floating-point types, scalar and F16C,
# bit for bit against the tests' reference (test/mpi/half_ref.h).
check_PROGRAMS += test/unit/op_half
TESTS += test/unit/op_half
test_unit_op_half_SOURCES = test/unit/op_half.c test/mpi/half_ref.h
test_unit_op_half_CPPFLAGS = $(OL_CORE_CPPFLAGS) -I$(top_srcdir)/test/mpi
test_unit_op_half_LDADD = libol_core.la libmpi_abi.la -lm
# The complex-product kernels are compiled without fused multiply-adds, so
# that they round as the host does (needs nvcc: only where configure found
# CUDA).
EXTRA_DIST += test/unit/kernel_fma.sh
if OL_HAVE_CUDA
TESTS += test/unit/kernel_fma.sh
AM_TESTS_ENVIRONMENT += NVCC='$(NVCC)'; export NVCC;
endif
