/* t301-ckpt: the checkpoint directory: Spark's offsets/commits/metadata
 * text, the recovery rules (fresh, continue, re-run, refused), corrupt and
 * torn files, the lock, state deltas and snapshots, crash points,
 * retention and the spare files it leaves for reuse. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/ckpt.h"
#include "core/crash.h"
#include "core/fsutil.h"
#include "tap.h"

static char root[256];

static const char *slurp(const char *rel)
{
	static char *last;
	char p[512];
	size_t n;
	free(last);
	last = NULL;
	snprintf(p, sizeof p, "%s/%s", root, rel);
	if (sl_fs_read(p, &last, &n, NULL, NULL) < 0)
		return "(missing)";
	return last;
}

static void spit(const char *rel, const char *text)
{
	char p[512];
	FILE *f;
	snprintf(p, sizeof p, "%s/%s", root, rel);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

static int write_batch(sl_ckpt *c, int64_t b, bool commit)
{
	sl_ckpt_offsets o;
	char off[32];
	char *src[2];
	int rc;
	sl_ckpt_offsets_init(&o);
	snprintf(off, sizeof off, "%lld", (long long)b);
	src[0] = off;
	src[1] = NULL;
	o.watermark_ms = b * 1000;
	o.timestamp_ms = 1700000000000 + b;
	o.nsources = 2;
	o.src = src;
	sl_options_set(&o.conf, "spark.sql.streaming.multipleWatermarkPolicy", "min");
	rc = sl_ckpt_write_offsets(c, b, &o, false, NULL, NULL);
	o.src = NULL;
	o.nsources = 0;
	sl_ckpt_offsets_release(&o);
	if (rc == 0 && commit)
		rc = sl_ckpt_write_commit(c, b, (b + 1) * 1000, NULL, NULL);
	return rc;
}

static void formats(void)
{
	sl_err err;
	sl_ckpt *c = sl_ckpt_open(root, &err), *c2;
	char *id, *fp;
	sl_ckpt_offsets o;
	int64_t wm;
	ok(c != NULL, "open creates the checkpoint");
	c2 = sl_ckpt_open(root, &err);
	ok(c2 == NULL && err.code == SL_ECHECKPOINT,
	   "a second open is refused while the lock is held");
	ok(strstr(err.msg, "in use by another running query") != NULL,
	   "lock message: %s", err.msg);
	sl_ckpt_read_metadata(c, &id, &fp, &err);
	ok(id == NULL, "no metadata in a fresh checkpoint");
	sl_ckpt_write_metadata(c, "73f7f943-0a08-4ffb-a504-9fa88ff7612a", "abc", &err);
	is_str(slurp("metadata"),
	       "{\"id\":\"73f7f943-0a08-4ffb-a504-9fa88ff7612a\",\"fingerprint\":\"abc\"}",
	       "metadata text");
	sl_ckpt_read_metadata(c, &id, &fp, &err);
	is_str(id, "73f7f943-0a08-4ffb-a504-9fa88ff7612a", "metadata id read back");
	free(id);
	free(fp);
	write_batch(c, 0, true);
	is_str(slurp("offsets/0"),
	       "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":1700000000000,"
	       "\"conf\":{\"spark.sql.streaming.multipleWatermarkPolicy\":\"min\"}}\n0\n-",
	       "offsets/0 as Spark writes it");
	is_str(slurp("commits/0"), "v1\n{\"nextBatchWatermarkMs\":1000}",
	       "commits/0 as Spark writes it");
	ok(sl_ckpt_read_offsets(c, 0, &o, &err) == 0 && o.nsources == 2 &&
		   strcmp(o.src[0], "0") == 0 && o.src[1] == NULL &&
		   o.timestamp_ms == 1700000000000 &&
		   strcmp(sl_options_get(&o.conf, "spark.sql.streaming.multipleWatermarkPolicy"), "min") == 0,
	   "offsets read back");
	sl_ckpt_offsets_release(&o);
	ok(sl_ckpt_read_commit(c, 0, &wm, &err) == 0 && wm == 1000,
	   "commit read back");
	ok(write_batch(c, 0, false) == SL_EIO, "offsets/0 is never overwritten");
	spit("offsets/9", "v1\n{\"batchWatermarkMs\":5000,\"batchTimestampMs\":1531991878604,\"conf\":{\"spark.sql.shuffle.partitions\":\"5\",\"spark.sql.streaming.stateStore.providerClass\":\"org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider\"}}\n1");
	ok(sl_ckpt_read_offsets(c, 9, &o, &err) == 0 && o.watermark_ms == 5000 &&
		   o.nsources == 1 && strcmp(o.src[0], "1") == 0,
	   "reads Spark 2.3.1's fixture offsets/1");
	sl_ckpt_offsets_release(&o);
	unlink(strcat(strcpy((char[512]){0}, root), "/offsets/9"));
	sl_ckpt_close(c);
	c2 = sl_ckpt_open(root, &err);
	ok(c2 != NULL, "reopen after close");
	sl_ckpt_close(c2);
}

static void expect_plan(const char *what, int64_t L, int64_t C, bool rerun,
			bool torn)
{
	sl_err err;
	sl_ckpt *c = sl_ckpt_open(root, &err);
	sl_ckpt_plan p;
	int rc = sl_ckpt_recover(c, &p, &err);
	ok(rc == 0 && p.last_offsets == L && p.last_commit == C &&
		   p.rerun == rerun && p.torn_last == torn,
	   "%s: L=%lld C=%lld rerun=%d torn=%d", what, (long long)p.last_offsets,
	   (long long)p.last_commit, p.rerun, p.torn_last);
	if (rc != 0)
		diag("%s", err.msg);
	sl_ckpt_close(c);
}

static void expect_refused(const char *what, const char *needle)
{
	sl_err err;
	sl_ckpt *c = sl_ckpt_open(root, &err);
	sl_ckpt_plan p;
	int rc = sl_ckpt_recover(c, &p, &err);
	ok(rc == SL_ECHECKPOINT && strstr(err.msg, needle) != NULL,
	   "%s refused: %s", what, rc ? err.msg : "(accepted)");
	sl_ckpt_close(c);
}

static void recovery(void)
{
	sl_err err;
	sl_ckpt *c;
	expect_plan("committed batch 0", 0, 0, false, false);
	c = sl_ckpt_open(root, &err);
	write_batch(c, 1, true);
	write_batch(c, 2, false);
	sl_ckpt_close(c);
	expect_plan("batch 2 planned, not committed", 2, 1, true, false);
	spit("offsets/2", "v1\n{\"batchWater");
	expect_plan("torn uncommitted offsets/2 is discarded", 1, 1, false, true);
	spit("offsets/2", "");
	expect_plan("empty uncommitted offsets/2 is discarded", 1, 1, false, true);
	spit("offsets/2", "garbage");
	expect_plan("garbage uncommitted offsets/2 is discarded", 1, 1, false, true);
	spit("offsets/2", "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":0,\"conf\":{}}\n2");
	spit("commits/1", "v1\n{\"nextBatch");
	expect_refused("a torn committed file", "commits/1");
	spit("commits/1", "v99\n{}");
	expect_refused("a commit of a newer version", "v99 is newer than supported v1");
	spit("commits/1", "v1\n{\"nextBatchWatermarkMs\":2000}");
	spit("offsets/4", "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":0,\"conf\":{}}\n4");
	expect_refused("a gap in batch ids", "offsets/3 missing");
	spit("offsets/3", "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":0,\"conf\":{}}\n3");
	expect_refused("two uncommitted batches", "commits/3 missing");
	spit("commits/6", "v1\n{}");
	expect_refused("a commit ahead of the offsets", "ahead of offsets/4");
}

static void state_files(void)
{
	sl_err err;
	sl_ckpt *c;
	sl_state *s = sl_state_new(), *r = sl_state_new();
	sl_crash *cr = sl_crash_new();
	int k;
	int64_t v;
	size_t n;
	char p[512];
	snprintf(p, sizeof p, "%s/st", root);
	c = sl_ckpt_open(p, &err);
	for (v = 1; v <= 12; v++) {
		for (k = 0; k < 5; k++) {
			int key = (int)v * 10 + k;
			sl_state_put(s, &key, sizeof key, &v, sizeof v, NULL);
		}
		if (v > 2) {
			int old = (int)(v - 2) * 10;
			sl_state_remove(s, &old, sizeof old);
		}
		ok(sl_ckpt_state_save(c, 0, s, v, v % 10 == 0, NULL, v - 1, &err) == 0,
		   "save version %lld", (long long)v);
		sl_state_commit(s, NULL);
	}
	ok(sl_ckpt_state_load(c, 0, 12, r, NULL, &err) == 0 &&
		   sl_state_num_rows(r) == sl_state_num_rows(s) &&
		   sl_state_version(r) == 12,
	   "load version 12 (snapshot 10 + 2 deltas): %lld rows",
	   (long long)sl_state_num_rows(r));
	k = 113;
	ok(sl_state_get(r, &k, sizeof k, &n) != NULL, "a key of version 11 is there");
	k = 100;
	ok(sl_state_get(r, &k, sizeof k, &n) == NULL, "a removed key is gone");
	ok(sl_ckpt_state_load(c, 0, 5, r, NULL, &err) == 0 && sl_state_num_rows(r) == 5 * 5 - 3,
	   "load an older version 5: %lld rows", (long long)sl_state_num_rows(r));
	/* a torn snapshot falls back to deltas */
	snprintf(p, sizeof p, "st/state/0/0/10.snapshot");
	spit(p, "SLSDxx");
	ok(sl_ckpt_state_load(c, 0, 12, r, NULL, &err) == 0 &&
		   sl_state_num_rows(r) == sl_state_num_rows(s),
	   "a corrupt snapshot falls back to the deltas");
	/* a crash in the middle of writing a delta leaves a torn temp file */
	sl_crash_arm(cr, "mid-state", &err);
	ok(sl_ckpt_state_save(c, 0, s, 13, false, cr, 12, &err) == SL_ECRASH,
	   "mid-state crash: %s", err.msg);
	ok(sl_ckpt_state_load(c, 0, 13, r, NULL, &err) == SL_ECHECKPOINT &&
		   strstr(err.msg, "13.delta") != NULL,
	   "version 13 is not there: %s", err.msg);
	ok(sl_ckpt_sweep(c) == 1, "sweep removes the torn temp file");
	snprintf(p, sizeof p, "st/state/0/0/12.delta");
	spit(p, "SLSD garbage that is long enough");
	ok(sl_ckpt_state_load(c, 0, 12, r, NULL, &err) == SL_ECHECKPOINT &&
		   strstr(err.msg, "12.delta") != NULL &&
		   strstr(err.msg, "checksum") != NULL,
	   "a corrupt delta is refused with its name: %s", err.msg);
	sl_ckpt_close(c);
	sl_state_free(s);
	sl_state_free(r);
	sl_crash_free(cr);
}

static ino_t ino_of(const char *rel)
{
	char p[512];
	struct stat st;
	snprintf(p, sizeof p, "%s/%s", root, rel);
	return stat(p, &st) == 0 ? st.st_ino : 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a directory of the checkpoint, space separated: numbers
 * in order ("2 3 10"), then the others sorted (" .spare.tmp b"). */
static const char *names(const char *rel)
{
	static char out[512];
	char p[512], *other[32];
	int64_t *ids = NULL;
	int n = 0, i, k = 0;
	DIR *d;
	struct dirent *e;
	out[0] = '\0';
	snprintf(p, sizeof p, "%s/%s", root, rel);
	sl_fs_list_ids(p, NULL, &ids, &n, NULL);
	for (i = 0; i < n; i++)
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s%lld",
			 i ? " " : "", (long long)ids[i]);
	free(ids);
	if ((d = opendir(p)) == NULL)
		return out;
	while ((e = readdir(d)) != NULL && k < 32)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    (e->d_name[0] < '0' || e->d_name[0] > '9'))
			other[k++] = strdup(e->d_name);
	closedir(d);
	qsort(other, (size_t)k, sizeof other[0], cmp_name);
	for (i = 0; i < k; i++) {
		snprintf(out + strlen(out), sizeof out - strlen(out), " %s",
			 other[i]);
		free(other[i]);
	}
	return out;
}

/* fsutil's spare: a retired file's inode takes the next write, cut to
 * the new length, and is a temp name in between. */
static void spares(void)
{
	char big[5000], a[512], b[512], c[512], d[512];
	sl_err err;
	bool retired = true;
	ino_t ia;
	sl_crash *cr = sl_crash_new();
	memset(big, 'x', sizeof big);
	snprintf(a, sizeof a, "%s/sp/a", root);
	snprintf(b, sizeof b, "%s/sp/b", root);
	snprintf(c, sizeof c, "%s/sp/c", root);
	snprintf(d, sizeof d, "%s/sp/d", root);
	sl_fs_mkdirs(strcat(strcpy((char[512]){0}, root), "/sp"), &err);
	ok(sl_fs_write_atomic(a, big, sizeof big, false, NULL, NULL, -1, &err) == 0,
	   "a 5000-byte file");
	ia = ino_of("sp/a");
	ok(sl_fs_write_reusing(b, "hello", 5, false, true, a, &retired, NULL, NULL, -1,
			       &err) == 0 && retired,
	   "a write retires a file");
	is_str(names("sp"), " .spare.tmp b", "the retired file is the spare");
	ok(ino_of("sp/.spare.tmp") == ia, "the spare is the retired inode");
	is_str(slurp("sp/b"), "hello", "the write itself is whole");
	ok(sl_fs_write_reusing(c, "world!", 6, false, true, NULL, &retired, NULL, NULL,
			       -1, &err) == 0 && !retired,
	   "the next write takes the spare");
	ok(ino_of("sp/c") == ia, "into the retired inode");
	is_str(slurp("sp/c"), "world!", "cut to its own length: no old bytes");
	is_str(names("sp"), " b c", "no spare left");
	ok(sl_fs_write_reusing(d, "z", 1, false, true, a, &retired, NULL, NULL, -1,
			       &err) == 0 && !retired,
	   "retiring a missing file is no error");
	ok(sl_fs_write_reusing(c, "again", 5, false, true, b, &retired, NULL, NULL, -1,
			       &err) == SL_EIO && !retired,
	   "an existing name is refused: %s", err.msg);
	is_str(slurp("sp/c"), "world!", "and not touched");
	ok(sl_fs_write_reusing(d, "z", 1, true, true, b, &retired, NULL, NULL, -1,
			       &err) == 0 && retired,
	   "overwrite retires too");
	sl_crash_arm(cr, "mid-state", NULL);
	ok(sl_fs_write_reusing(a, "0123456789", 10, false, true, NULL, &retired, cr,
			       "mid-state", 3, &err) == SL_ECRASH,
	   "a crash point in a write through the spare");
	is_str(slurp("sp/.spare.tmp"), "01234", "leaves the spare torn, half");
	ok(sl_fs_sweep_tmp(strcat(strcpy((char[512]){0}, root), "/sp")) == 1,
	   "and recovery sweeps it");
	sl_crash_free(cr);
}

/* Retention keeps the newest `keep` batches; what it retires becomes the
 * spare of the next write (no file created or deleted once it runs); a
 * clean stop leaves exactly the kept files; a crash leaves a run of ids
 * recovery accepts. */
static void retention_run(bool async)
{
	sl_err err = {0};
	sl_ckpt_plan plan;
	sl_ckpt *c;
	char want[512];
	ino_t first[3];
	int64_t b;
	const int keep = 3;
	bool reused = true;
	snprintf(want, sizeof want, "rm -rf %s/ret", root);
	if (system(want) != 0)
		diag("cannot remove %s", want);
	snprintf(want, sizeof want, "%s/ret", root);
	c = sl_ckpt_open(want, &err);
	if (async)
		sl_ckpt_set_async(c, true, &err);
	for (b = 0; b < 12; b++) {
		char off[48];
		write_batch(c, b, true);
		sl_ckpt_purge(c, b + 1 - keep);
		sl_ckpt_sync(c, &err);
		snprintf(off, sizeof off, "ret/offsets/%lld", (long long)b);
		if (b < 3)
			first[b] = ino_of(off);
		else if (b >= 5 && b < 8)
			reused = reused && ino_of(off) == first[b - 5];
		if (b >= 4) {
			snprintf(want, sizeof want, "%lld %lld %lld %lld .spare.tmp",
				 (long long)b - 3, (long long)b - 2,
				 (long long)b - 1, (long long)b);
			is_str(names("ret/offsets"), want,
			       "%s batch %lld: keeps %d, one retired, one spare",
			       async ? "async" : "sync", (long long)b, keep);
		}
	}
	ok(reused, "offsets/5..7 are offsets/0..2's inodes");
	is_str(slurp("ret/offsets/11"),
	       "v1\n{\"batchWatermarkMs\":11000,\"batchTimestampMs\":1700000000011,"
	       "\"conf\":{\"spark.sql.streaming.multipleWatermarkPolicy\":\"min\"}}\n11\n-",
	       "a reused file holds its own batch");
	if (async) { /* a clean stop */
		sl_ckpt_drop_spares(c);
		is_str(names("ret/offsets"), "9 10 11", "clean stop: offsets kept");
		is_str(names("ret/commits"), "9 10 11", "clean stop: commits kept");
		sl_ckpt_close(c);
		return;
	}
	sl_ckpt_close(c); /* as a crash leaves it */
	snprintf(want, sizeof want, "%s/ret", root);
	c = sl_ckpt_open(want, &err);
	sl_ckpt_sweep(c);
	ok(sl_ckpt_recover(c, &plan, &err) == 0 && plan.last_commit == 11 &&
		   !plan.rerun,
	   "recovery after a crash with a spare: continue after 11 (%s)",
	   err.msg);
	is_str(names("ret/offsets"), "8 9 10 11", "the spare swept, 8 still there");
	write_batch(c, 12, true);
	sl_ckpt_purge(c, 13 - keep);
	is_str(names("ret/offsets"), "8 9 10 11 12",
	       "the next purge retires 8 and 9, as spares");
	sl_ckpt_drop_spares(c);
	is_str(names("ret/offsets"), "10 11 12", "dropped at a clean stop");
	sl_ckpt_close(c);
}

static void retention(void)
{
	retention_run(false);
	retention_run(true);
}

int main(void)
{
	char cmd[300];
	snprintf(root, sizeof root, "/tmp/t301-XXXXXX");
	if (mkdtemp(root) == NULL)
		return 1;
	formats();
	recovery();
	state_files();
	spares();
	retention();
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	if (system(cmd) != 0)
		diag("cleanup failed");
	return done_testing();
}
