/*
 * replay: the main of a fuzz target built without libFuzzer (see fuzz.h).
 * With no arguments it runs every file of tests/fuzz/corpus/FUZZ_NAME/
 * (relative to the current directory, the repository root under prove),
 * sorted, as one TAP test each; with arguments, each named file.  A crash
 * is the test failing (prove sees the signal); a return is a pass.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#ifndef FUZZ_NAME
#error "FUZZ_NAME names the corpus folder"
#endif
#define STR_(x) #x
#define STR(x)	STR_(x)

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = NULL;
	size_t n = 0, cap = 0, k;
	if (f == NULL)
		return -1;
	for (;;) {
		if (n == cap) {
			unsigned char *nb = realloc(buf, cap = cap ? 2 * cap : 4096);
			if (nb == NULL) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		if ((k = fread(buf + n, 1, cap - n, f)) == 0)
			break;
		n += k;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	const char *dir = "tests/fuzz/corpus/" STR(FUZZ_NAME);
	char **names = NULL, path[4096];
	size_t n = 0, i;
	struct dirent *e;
	DIR *d;
	if (argc > 1) {
		for (int a = 1; a < argc; a++)
			if (run_file(argv[a]) < 0)
				fprintf(stderr, "replay: cannot read %s\n", argv[a]);
		return 0;
	}
	if ((d = opendir(dir)) == NULL) {
		printf("1..0 # SKIP no corpus %s\n", dir);
		return 0;
	}
	while ((e = readdir(d)) != NULL) {
		char **nn;
		if (e->d_name[0] == '.')
			continue;
		if ((nn = realloc(names, (n + 1) * sizeof *names)) == NULL)
			return 1;
		names = nn;
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp);
	printf("1..%zu\n", n);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		fflush(stdout);
		printf("%s %zu - %s %s\n", run_file(path) == 0 ? "ok" : "not ok",
		       i + 1, STR(FUZZ_NAME), names[i]);
		free(names[i]);
	}
	free(names);
	return 0;
}
