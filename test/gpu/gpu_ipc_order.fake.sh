#!/bin/sh
# gpu_ipc_order.sh against the fake driver (see common.sh): must not skip.
# shellcheck source=test/gpu/gpu_ipc_order.sh
. "$(dirname "$0")/gpu_ipc_order.sh"
