#!/bin/sh
# Builds and installs ompi-lite into ./_install (or $OMPI_LITE_PREFIX) from a
# fresh clone: dependencies, autoreconf, configure, make, make install. Each
# step runs only when needed, so calling it again is cheap.
set -eu
cd "$(dirname "$0")/.."
prefix=${OMPI_LITE_PREFIX:-$PWD/_install}

sh contrib/install-deps.sh

newest_input=$(ls -t configure.ac Makefile.am */local.mk */*/local.mk 2>/dev/null | head -n 1)
if [ ! -x configure ] || [ "$newest_input" -nt configure ]; then
    autoreconf -fi
fi
if [ ! -f config.status ] || [ configure -nt config.status ]; then
    ./configure --prefix="$prefix" --enable-silent-rules
fi
make -j2
make install >/dev/null
