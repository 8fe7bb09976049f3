build/engine/timeutil.o: engine/timeutil.c engine/timeutil.h engine/buf.h \
 engine/err.h
engine/timeutil.h:
engine/buf.h:
engine/err.h:
