/*
 * t308-fs-pool: the pool of emptied files (core/fsutil.h).  A given file
 * leaves its name and sits in the pool empty; a write that is not
 * durable takes it (the same inode, the new bytes), a durable one never
 * does; a pool file another process took is passed by; no pool, no
 * keeping; the pool keeps at most 4096 files, unlinking past that.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "core/fsutil.h"
#include "tap.h"

static char root[] = "/tmp/t308-XXXXXX", pool[200];
static sl_err err;

static ino_t inode_of(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? st.st_ino : 0;
}

static int pool_files(off_t *bytes)
{
	DIR *d = opendir(pool);
	struct dirent *e;
	int n = 0;
	*bytes = 0;
	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char p[512];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof p, "%s/%s", pool, e->d_name);
		if (stat(p, &st) == 0)
			*bytes += st.st_size;
		n++;
	}
	closedir(d);
	return n;
}

static void put(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

static int read_is(const char *p, const char *want)
{
	char *data = NULL;
	size_t len;
	int eq = sl_fs_read(p, &data, &len, NULL, &err) == 0 &&
		 len == strlen(want) && memcmp(data, want, len) == 0;
	free(data);
	return eq;
}

int main(void)
{
	char a[300], b[300], c[300], d[300];
	ino_t ia, ic;
	off_t bytes;
	int n, i;
	if (mkdtemp(root) == NULL)
		return 1;
	snprintf(pool, sizeof pool, "%s/pool", root);
	snprintf(a, sizeof a, "%s/a", root);
	snprintf(b, sizeof b, "%s/b", root);
	snprintf(c, sizeof c, "%s/c", root);
	snprintf(d, sizeof d, "%s/d", root);
	sl_fs_pool_use(pool);

	put(a, "old bytes of a removed checkpoint");
	ia = inode_of(a);
	sl_fs_pool_give(a);
	n = pool_files(&bytes);
	ok(!sl_fs_exists(a) && n == 1 && bytes == 0,
	   "a given file leaves its name and sits in the pool, empty (%d files, %lld bytes)",
	   n, (long long)bytes);

	ok(sl_fs_write(b, "hello", 5, true, false, NULL, NULL, 0, &err) == 0,
	   "a write that is not durable");
	ok(inode_of(b) == ia && read_is(b, "hello") && pool_files(&bytes) == 0,
	   "takes the pool's file: the same inode, the new bytes, the pool empty");

	put(c, "x");
	ic = inode_of(c);
	sl_fs_pool_give(c);
	ok(sl_fs_write(d, "durable", 7, true, true, NULL, NULL, 0, &err) == 0 &&
	       inode_of(d) != ic && read_is(d, "durable") &&
	       pool_files(&bytes) == 1,
	   "a durable write never takes from the pool");

	{ /* another process took the pool's file: passed by */
		DIR *dd = opendir(pool);
		struct dirent *e;
		char p[512];
		while ((e = readdir(dd)) != NULL)
			if (e->d_name[0] != '.') {
				snprintf(p, sizeof p, "%s/%s", pool, e->d_name);
				unlink(p);
			}
		closedir(dd);
	}
	unlink(b);
	ok(sl_fs_write(b, "fresh", 5, true, false, NULL, NULL, 0, &err) == 0 &&
	       read_is(b, "fresh"),
	   "a pool file taken by another process is passed by: a new file");

	for (i = 0; i < 4100; i++) {
		char p[300];
		snprintf(p, sizeof p, "%s/f%d", root, i);
		put(p, "y");
		sl_fs_pool_give(p);
	}
	n = pool_files(&bytes);
	ok(n == 4096 && bytes == 0, "the pool keeps at most 4096 files (%d)", n);
	{
		char p[300];
		int left = 0;
		for (i = 0; i < 4100; i++) {
			snprintf(p, sizeof p, "%s/f%d", root, i);
			left += sl_fs_exists(p);
		}
		ok(left == 0, "past it a given file is unlinked (%d left)", left);
	}

	sl_fs_pool_use("");
	put(a, "z");
	sl_fs_pool_give(a);
	ok(!sl_fs_exists(a) && pool_files(&bytes) == 4096,
	   "no pool: a given file is unlinked");

	{ /* clean up */
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
		if (system(cmd) != 0)
			diag("cleanup failed");
	}
	return done_testing();
}
