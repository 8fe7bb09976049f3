/*
 * t303-ckwriter: the checkpoint's background writer runs jobs in order,
 * a wait returns once its job and all before it are done, a failure is
 * sticky (later jobs are skipped and freed, the error comes back), and
 * sl_ckpt's pipelined writes end up as the same durable files.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "state/ckpt.h"
#include "state/ckwriter.h"
#include "core/fsutil.h"
#include "state/state.h"
#include "tap.h"

static int order[300], norder, nfreed;

struct job {
	int id;
	int fail; /* 1: this job fails */
	int sleep_us;
};

static int job_run(void *ud, sl_err *err)
{
	struct job *j = ud;
	if (j->sleep_us > 0)
		usleep((useconds_t)j->sleep_us);
	if (j->fail)
		return sl_err_set(err, SL_EIO, "cannot write 'job-%d': boom",
				  j->id);
	order[norder++] = j->id;
	return 0;
}

static void job_free(void *ud)
{
	nfreed++;
	free(ud);
}

static struct job *mk(int id, int fail, int sleep_us)
{
	struct job *j = calloc(1, sizeof *j);
	j->id = id;
	j->fail = fail;
	j->sleep_us = sleep_us;
	return j;
}

static void test_order(void)
{
	sl_ckwriter *w = sl_ckwriter_new();
	int64_t t = 0, t50 = 0;
	int i, inorder = 1;
	sl_err err;
	norder = nfreed = 0;
	for (i = 0; i < 200; i++) {
		t = sl_ckwriter_submit(w, job_run, job_free,
				       mk(i, 0, i % 17 == 0 ? 300 : 0), i / 10,
				       &err);
		if (i == 50)
			t50 = t;
	}
	is_int(t, 200, "tickets count the jobs");
	is_int(sl_ckwriter_wait(w, t50, &err), 0, "wait for job 50");
	ok(norder >= 51, "after waiting for ticket 51 at least 51 jobs ran (%d)",
	   norder);
	is_int(sl_ckwriter_sync(w, &err), 0, "sync");
	is_int(norder, 200, "every job ran");
	for (i = 0; i < norder; i++)
		if (order[i] != i)
			inorder = 0;
	ok(inorder, "jobs ran in the order they were queued");
	is_int(nfreed, 200, "every job was freed");
	ok(!sl_ckwriter_pending(w), "nothing pending after sync");
	ok(sl_ckwriter_batch_us(w, 0) >= 300, "batch 0's time counts its sleep (%lld us)",
	   (long long)sl_ckwriter_batch_us(w, 0));
	is_int(sl_ckwriter_batch_us(w, 99), -1, "an unknown batch has no time");
	sl_ckwriter_free(w);
}

static void test_sticky(void)
{
	sl_ckwriter *w = sl_ckwriter_new();
	sl_err err;
	int64_t t;
	int i;
	norder = nfreed = 0;
	for (i = 0; i < 10; i++)
		(void)sl_ckwriter_submit(w, job_run, job_free,
					 mk(i, i == 3, 200), -1, &err);
	sl_err_clear(&err);
	is_int(sl_ckwriter_sync(w, &err), SL_EIO, "sync returns the failure");
	is_str(err.msg, "cannot write 'job-3': boom", "with the failed job's message");
	is_int(norder, 3, "the jobs before the failure ran, none after it");
	is_int(nfreed, 10, "skipped jobs are freed too");
	sl_err_clear(&err);
	t = sl_ckwriter_submit(w, job_run, job_free, mk(99, 0, 0), -1, &err);
	is_int(t, SL_EIO, "a submit after a failure is refused");
	is_str(err.msg, "cannot write 'job-3': boom", "naming the first failure");
	is_int(nfreed, 11, "and the refused job is freed");
	is_int(norder, 3, "and never runs");
	sl_ckwriter_free(w);
}

static void test_ckpt_async(void)
{
	char dir[] = "/tmp/t303-XXXXXX", p[4300];
	sl_ckpt *c;
	sl_ckpt_offsets o;
	sl_ckpt_plan plan;
	sl_err err;
	int64_t wm = 0;
	char *src[1];
	int i, rc = 0;
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	c = sl_ckpt_open(dir, &err);
	ok(c != NULL, "open");
	is_int(sl_ckpt_set_async(c, true, &err), 0, "writes pipelined");
	sl_ckpt_offsets_init(&o);
	o.nsources = 1;
	o.src = src;
	for (i = 0; i < 20 && rc == 0; i++) {
		char off[32];
		snprintf(off, sizeof off, "%d", i);
		src[0] = off;
		o.watermark_ms = i * 1000;
		rc = sl_ckpt_write_offsets(c, i, &o, false, NULL, &err);
		if (rc == 0)
			rc = sl_ckpt_write_commit(c, i, i * 1000 + 5, NULL, &err);
	}
	o.src = NULL;
	o.nsources = 0;
	sl_ckpt_offsets_release(&o);
	is_int(rc, 0, "20 batches queued");
	is_int(sl_ckpt_sync(c, &err), 0, "sync");
	is_int(sl_ckpt_recover(c, &plan, &err), 0, "recover reads them");
	is_int(plan.last_offsets, 19, "last offsets 19");
	is_int(plan.last_commit, 19, "last commit 19");
	is_int(sl_ckpt_read_commit(c, 7, &wm, &err), 0, "commits/7 reads");
	is_int(wm, 7005, "with its watermark");
	ok(sl_ckpt_batch_write_us(c, 7) > 0, "the writer's time for batch 7 is known");
	/* a write that fails in the background (commits/3 exists) comes back
	 * at the next sync, naming the file; later writes are not done */
	is_int(sl_ckpt_write_commit(c, 3, 0, NULL, &err), 0,
	       "a failing write is queued");
	(void)sl_ckpt_write_commit(c, 20, 0, NULL, &err);
	sl_err_clear(&err);
	is_int(sl_ckpt_sync(c, &err), SL_EIO, "the failure comes back");
	ok(strstr(err.msg, "commits/3' already exists") != NULL, "naming the file: %s",
	   err.msg);
	snprintf(p, sizeof p, "%s/commits/20", dir);
	ok(access(p, F_OK) != 0, "a write queued after the failure was not done");
	sl_ckpt_close(c);
	snprintf(p, sizeof p, "rm -rf '%s'", dir);
	if (system(p) != 0)
		ok(0, "cleanup");
}

/* A pipelined delta is written bare front-coded (ckpt_state.c: LZ4 past
 * the front coding cost more than it saved), read back whole, and
 * records damaged under a valid CRC are still refused as corrupt,
 * naming the file. */
static void test_state_bare(void)
{
	char dir[] = "/tmp/t303z-XXXXXX", p[4300], *data;
	sl_ckpt *c;
	sl_state *s = sl_state_new(), *back = sl_state_new();
	sl_err err;
	size_t len, vlen = 0;
	uint32_t head;
	uint64_t plen;
	const void *v;
	int i, rc = 0;
	if (mkdtemp(dir) == NULL || s == NULL || back == NULL) {
		ok(0, "setup");
		return;
	}
	for (i = 0; i < 5000 && rc == 0; i++) {
		char k[32], val[64];
		snprintf(k, sizeof k, "key-%05d", i);
		snprintf(val, sizeof val, "value-%d-%d", i, i * 7);
		rc = sl_state_put(s, k, strlen(k), val, strlen(val), &err);
	}
	c = sl_ckpt_open(dir, &err);
	is_int(sl_ckpt_set_async(c, true, &err), 0, "pipelined");
	is_int(sl_ckpt_state_save(c, 0, s, 1, false, NULL, 0, &err), 0,
	       "delta queued");
	is_int(sl_ckpt_sync(c, &err), 0, "and written");
	snprintf(p, sizeof p, "%s/state/0/0/1.delta", dir);
	is_int(sl_fs_read(p, &data, &len, NULL, &err), 0, "read the file");
	memcpy(&head, data, 4);
	ok(head == 0x46534c53u,
	   "it starts with the front-coded magic SLSF (a delta stays bare)");
	ok(len < 5000 * 20, "and is smaller than its records (%zu bytes)", len);
	is_int(sl_ckpt_state_load(c, 0, 1, back, NULL, &err), 0, "loads back");
	is_int(sl_state_num_rows(back), 5000, "all 5000 rows");
	v = sl_state_get(back, "key-04321", 9, &vlen);
	ok(v != NULL && vlen == strlen("value-4321-30247") &&
	       memcmp(v, "value-4321-30247", vlen) == 0,
	   "with their values");
	/* damage the records, then make the CRC match again */
	memcpy(&plen, data + len - 16, 8);
	for (i = 40; i < 60; i++)
		data[i] = (char)0xff;
	{
		uint32_t crc = sl_crc32(0, data, plen);
		memcpy(data + len - 8, &crc, 4);
	}
	is_int(sl_fs_write_atomic(p, data, len, true, NULL, NULL, -1, &err), 0,
	       "write the damaged file");
	free(data);
	sl_err_clear(&err);
	is_int(sl_ckpt_state_load(c, 0, 1, back, NULL, &err), SL_ECHECKPOINT,
	       "damaged records are refused");
	ok(strstr(err.msg, "1.delta' is corrupt") != NULL, "naming it: %s", err.msg);
	sl_ckpt_close(c);
	sl_state_free(s);
	sl_state_free(back);
	snprintf(p, sizeof p, "rm -rf '%s'", dir);
	if (system(p) != 0)
		ok(0, "cleanup");
}

int main(void)
{
	test_order();
	test_sticky();
	test_ckpt_async();
	test_state_bare();
	return done_testing();
}
