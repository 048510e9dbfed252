#!/bin/sh
# gpu_pvars: the device paths' performance variables (see gpu_pvars.c) on 2
# ranks of one host, through CUDA IPC (the default) and staged
# (OMPI_LITE_DEVICE_IPC=0). Skipped (77) without a GPU.
# shellcheck source=test/gpu/common.sh
. "$(dirname "$0")/common.sh"

run_gpu 2 ipc
OMPI_LITE_DEVICE_IPC=0 run_gpu 2 staged
