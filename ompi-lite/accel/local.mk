# The accel layer (device memory: ompi-lite/accel/README.md), part of
# libol_core (included from ompi-lite/local.mk).
libol_core_la_SOURCES += ompi-lite/include/ol_accel.h \
	ompi-lite/accel/accel_internal.h ompi-lite/accel/cuda_driver.h \
	ompi-lite/accel/params.c ompi-lite/accel/driver.c ompi-lite/accel/memtype.c \
	ompi-lite/accel/context.c ompi-lite/accel/pools.c ompi-lite/accel/ipc.c \
	ompi-lite/accel/reduce.c
EXTRA_DIST += ompi-lite/accel/README.md ompi-lite/accel/kernels.cu \
	ompi-lite/accel/embed_fatbin.py

if OL_HAVE_CUDA
# driver.c checks its declarations against cuda.h.
libol_core_la_CPPFLAGS += -I$(CUDA_DIR)/include

# The reduction kernels: machine code for the oldest architecture of each
# major version this nvcc builds for (it runs on every later minor version:
# sm_80 code on sm_86/87/88/89, sm_120 on sm_121), plus PTX of the newest
# for GPUs that come later (the driver compiles it), compressed for size and
# embedded as a byte array. One cubin per major version halves the nvcc
# time of one per architecture (see accel/README.md).
nodist_libol_core_la_SOURCES = ompi-lite/accel/kernels_fatbin.c
CLEANFILES += ompi-lite/accel/kernels.fatbin ompi-lite/accel/kernels_fatbin.c
ompi-lite/accel/kernels.fatbin: $(srcdir)/ompi-lite/accel/kernels.cu
	$(AM_V_GEN)$(MKDIR_P) ompi-lite/accel && \
	codes=`$(NVCC) --list-gpu-code | sed -n 's/^sm_//p' | sort -n | \
		awk '{ major = int($$1 / 10) } major != last { print; last = major }'` && \
	newest=`$(NVCC) --list-gpu-arch | sed -n 's/^compute_//p' | sort -n | tail -n 1` && \
	gencode= && for c in $$codes; do gencode="$$gencode -gencode arch=compute_$$c,code=sm_$$c"; done && \
	$(NVCC) -fatbin -compress-mode=size $$gencode \
		-gencode arch=compute_$$newest,code=compute_$$newest \
		-o $@ $(srcdir)/ompi-lite/accel/kernels.cu
ompi-lite/accel/kernels_fatbin.c: ompi-lite/accel/kernels.fatbin $(srcdir)/ompi-lite/accel/embed_fatbin.py
	$(AM_V_GEN)$(PYTHON) $(srcdir)/ompi-lite/accel/embed_fatbin.py ompi-lite/accel/kernels.fatbin $@
endif
