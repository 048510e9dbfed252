# Unit tests of the standard-ABI header: its constants against the ABI table,
# and that it compiles cleanly as C and C++ with every prototype present.
TESTS += test/unit/abi-constants.sh test/unit/header-compiles.sh
EXTRA_DIST += test/unit/abi-constants.sh test/unit/header-compiles.sh \
	ompi-lite/abi/README.md ompi-lite/abi/constants.tsv ompi-lite/abi/functions.tsv \
	ompi-lite/api/functions.def ompi-lite/api/fntable.py ompi-lite/api/gen_mpi_h.py
