/*
 * lesson: see lesson.h.  The chunk is plain Lua so that what runs a lesson
 * is exactly what a learner could type: dofile of the lesson, then the
 * helper's finish().  q at a pause raises the helper's L.STOP, which the
 * chunk catches: leaving a lesson is not an error (L.stopped() says so).
 */
#include <ctype.h>
#include <stdbool.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lesson.h"

static bool all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* The sorted-first lessons/NN-*.lua for number n, malloc'd, or NULL. */
static char *find_numbered(long n)
{
	char prefix[32], *best = NULL, *path;
	DIR *d = opendir("lessons");
	struct dirent *e;
	size_t len;

	if (d == NULL)
		return NULL;
	snprintf(prefix, sizeof prefix, "%02ld-", n);
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (strncmp(e->d_name, prefix, strlen(prefix)) != 0 ||
		    len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0)
			continue;
		if (best == NULL || strcmp(e->d_name, best) < 0) {
			free(best);
			best = strdup(e->d_name);
		}
	}
	closedir(d);
	if (best == NULL || asprintf(&path, "lessons/%s", best) < 0)
		path = NULL;
	free(best);
	return path;
}

char *sl_lesson_find(const char *which, char *msg, size_t msgsz)
{
	struct stat st;
	char *path;

	if (all_digits(which)) {
		long n = strtol(which, NULL, 10);
		if ((path = find_numbered(n)) == NULL)
			snprintf(msg, msgsz,
				 "no lesson %ld (lessons/%02ld-*.lua under the "
				 "current directory; 'ls lessons' lists them)",
				 n, n);
		return path;
	}
	if (stat(which, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(msg, msgsz, "no lesson file '%s'", which);
		return NULL;
	}
	return strdup(which);
}

/* Append s as a Lua string literal. */
static void quote(sl_buf *b, const char *s)
{
	sl_buf_addc(b, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sl_buf_addc(b, '\\');
		if (*s == '\n')
			sl_buf_adds(b, "\\n");
		else
			sl_buf_addc(b, *s);
	}
	sl_buf_addc(b, '"');
}

void sl_lesson_chunk(const char *path, const char *mode, sl_buf *out)
{
	sl_buf_adds(out, "local path, mode = ");
	quote(out, path);
	sl_buf_adds(out, ", ");
	quote(out, mode);
	sl_buf_adds(
	    out, "\npackage.loaded['streamlab.lessonmode'] = mode\n"
		 "package.loaded['lesson'] = nil\n"
		 "local dir = path:match('^(.*)/[^/]*$') or '.'\n"
		 "if not package.path:find(dir .. '/lib/?.lua', 1, true) then\n"
		 "  package.path = dir .. '/lib/?.lua;' .. package.path\n"
		 "end\n"
		 "local ok, e = pcall(dofile, path)\n"
		 "local L = require('lesson')\n"
		 "if ok then L.finish()\n"
		 "elseif rawequal(e, L.STOP) then L.stopped()\n"
		 "else error(e, 0) end\n");
}
