build/engine/col.o: engine/col.c engine/col.h engine/arena.h engine/err.h \
 engine/type.h engine/buf.h
engine/col.h:
engine/arena.h:
engine/err.h:
engine/type.h:
engine/buf.h:
