# Collectives, part of libol_core.
libol_core_la_SOURCES += coll/coll.h coll/barrier.c coll/barrier_dissemination.c
