/* t301-ckpt: the checkpoint directory: Spark's offsets/commits/metadata
 * text, the recovery rules (fresh, continue, re-run, refused), corrupt and
 * torn files, the lock, state deltas and snapshots, crash points. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ckpt.h"
#include "crash.h"
#include "fsutil.h"
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
	ok(sl_ckpt_state_load(c, 0, 12, r, &err) == 0 &&
		   sl_state_num_rows(r) == sl_state_num_rows(s) &&
		   sl_state_version(r) == 12,
	   "load version 12 (snapshot 10 + 2 deltas): %lld rows",
	   (long long)sl_state_num_rows(r));
	k = 113;
	ok(sl_state_get(r, &k, sizeof k, &n) != NULL, "a key of version 11 is there");
	k = 100;
	ok(sl_state_get(r, &k, sizeof k, &n) == NULL, "a removed key is gone");
	ok(sl_ckpt_state_load(c, 0, 5, r, &err) == 0 && sl_state_num_rows(r) == 5 * 5 - 3,
	   "load an older version 5: %lld rows", (long long)sl_state_num_rows(r));
	/* a torn snapshot falls back to deltas */
	snprintf(p, sizeof p, "st/state/0/0/10.snapshot");
	spit(p, "SLSDxx");
	ok(sl_ckpt_state_load(c, 0, 12, r, &err) == 0 &&
		   sl_state_num_rows(r) == sl_state_num_rows(s),
	   "a corrupt snapshot falls back to the deltas");
	/* a crash in the middle of writing a delta leaves a torn temp file */
	sl_crash_arm(cr, "mid-state", &err);
	ok(sl_ckpt_state_save(c, 0, s, 13, false, cr, 12, &err) == SL_ECRASH,
	   "mid-state crash: %s", err.msg);
	ok(sl_ckpt_state_load(c, 0, 13, r, &err) == SL_ECHECKPOINT &&
		   strstr(err.msg, "13.delta") != NULL,
	   "version 13 is not there: %s", err.msg);
	ok(sl_ckpt_sweep(c) == 1, "sweep removes the torn temp file");
	snprintf(p, sizeof p, "st/state/0/0/12.delta");
	spit(p, "SLSD garbage that is long enough");
	ok(sl_ckpt_state_load(c, 0, 12, r, &err) == SL_ECHECKPOINT &&
		   strstr(err.msg, "12.delta") != NULL &&
		   strstr(err.msg, "checksum") != NULL,
	   "a corrupt delta is refused with its name: %s", err.msg);
	sl_ckpt_close(c);
	sl_state_free(s);
	sl_state_free(r);
	sl_crash_free(cr);
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
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	if (system(cmd) != 0)
		diag("cleanup failed");
	return done_testing();
}
