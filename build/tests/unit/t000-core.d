build/tests/unit/t000-core: tests/unit/t000-core.c engine/batch.h \
 engine/buf.h engine/col.h engine/arena.h engine/err.h engine/type.h \
 tests/tap.h engine/timeutil.h engine/type.h
engine/batch.h:
engine/buf.h:
engine/col.h:
engine/arena.h:
engine/err.h:
engine/type.h:
tests/tap.h:
engine/timeutil.h:
engine/type.h:
