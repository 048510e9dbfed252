#!/bin/sh
# gpu_nccl.sh against the fake driver (see common.sh): the skips only;
# NCCL itself needs the real driver.
# shellcheck source=test/gpu/gpu_nccl.sh
. "$(dirname "$0")/gpu_nccl.sh"
