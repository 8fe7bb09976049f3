build/engine/buf.o: engine/buf.c engine/buf.h
engine/buf.h:
