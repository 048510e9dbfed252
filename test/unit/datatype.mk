# The datatype engine against a reference packer (random nested types), linked
# to the engine directly: it checks the cursor that pt2pt uses, which the MPI
# API does not expose.
check_PROGRAMS += test/unit/dt_engine
TESTS += test/unit/dt_engine
test_unit_dt_engine_SOURCES = test/unit/dt_engine.c
test_unit_dt_engine_CPPFLAGS = $(OL_CORE_CPPFLAGS) -I$(top_srcdir)/ompi-lite/datatype
test_unit_dt_engine_LDADD = libol_core.la
