build/engine/type.o: engine/type.c engine/type.h engine/buf.h \
 engine/err.h engine/col.h engine/arena.h
engine/type.h:
engine/buf.h:
engine/err.h:
engine/col.h:
engine/arena.h:
