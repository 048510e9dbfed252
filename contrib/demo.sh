#!/bin/sh
# The README's demo: build and install ompi-lite, compile the ring example
# with the installed mpicc and run it on 4 ranks with the installed mpirun.
set -eu
cd "$(dirname "$0")/.."
sh contrib/build.sh
prefix=${OMPI_LITE_PREFIX:-$PWD/_install}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$prefix/bin/mpicc" -O2 -o "$work/ring" contrib/examples/ring.c
# 4 ranks on however many cores this machine has.
"$prefix/bin/mpirun" --oversubscribe -np 4 "$work/ring"
