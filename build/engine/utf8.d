build/engine/utf8.o: engine/utf8.c engine/utf8.h
engine/utf8.h:
