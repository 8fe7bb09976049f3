build/engine/arena.o: engine/arena.c engine/arena.h
engine/arena.h:
