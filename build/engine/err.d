build/engine/err.o: engine/err.c engine/err.h
engine/err.h:
