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
#include <unistd.h>

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

/* Where the numbered lessons are: beside the program, never the current
 * directory (a folder of someone else's could hold a lessons/ of its own
 * code; issue 16 finding 13).  In order: $STREAMLAB_LESSONS (an explicit
 * choice), then <dir of the program>/lessons (the source tree's
 * ./streamlab), <dir>/../lessons (build/streamlab), and
 * <dir>/../share/streamlab/lessons (an install prefix); the first that
 * holds lib/lesson.lua.  Writes it into out (n bytes); false when none. */
static bool lessons_dir(char *out, size_t n)
{
	static const char *const rel[] = { "lessons", "../lessons",
					   "../share/streamlab/lessons" };
	char exe[4096], probe[4200];
	const char *env = getenv("STREAMLAB_LESSONS");
	struct stat st;
	ssize_t k;
	char *slash;

	if (env != NULL && *env != '\0') {
		snprintf(out, n, "%s", env);
		return true;
	}
	if ((k = readlink("/proc/self/exe", exe, sizeof exe - 1)) <= 0)
		return false;
	exe[k] = '\0';
	if ((slash = strrchr(exe, '/')) == NULL)
		return false;
	*slash = '\0';
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		snprintf(probe, sizeof probe, "%s/%s/lib/lesson.lua", exe, rel[i]);
		if (stat(probe, &st) == 0 && S_ISREG(st.st_mode))
			return snprintf(out, n, "%s/%s", exe, rel[i]) < (int)n;
	}
	return false;
}

/* The sorted-first DIR/NN-*.lua for number n, malloc'd, or NULL. */
static char *find_numbered(const char *dir, long n)
{
	char prefix[32], *best = NULL, *path;
	DIR *d = opendir(dir);
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
	if (best == NULL || asprintf(&path, "%s/%s", dir, best) < 0)
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
		char dir[4096];
		if (!lessons_dir(dir, sizeof dir)) {
			snprintf(msg, msgsz,
				 "no lessons folder beside the program (set "
				 "STREAMLAB_LESSONS, or name the file: "
				 "streamlab lesson ./lessons/%02ld-name.lua)",
				 n);
			return NULL;
		}
		if ((path = find_numbered(dir, n)) == NULL)
			snprintf(msg, msgsz,
				 "no lesson %ld (%s/%02ld-*.lua; ls %s lists "
				 "them)",
				 n, dir, n, dir);
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
