build/engine/batch.o: engine/batch.c engine/batch.h engine/buf.h \
 engine/col.h engine/arena.h engine/err.h engine/type.h engine/timeutil.h \
 engine/utf8.h
engine/batch.h:
engine/buf.h:
engine/col.h:
engine/arena.h:
engine/err.h:
engine/type.h:
engine/timeutil.h:
engine/utf8.h:
