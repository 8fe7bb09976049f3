/*
 * t502-recovery: the checkpoint in the micro-batch driver.  A windowed
 * count (memory source, watermark 10 s, append, json file sink) runs a
 * fixed schedule of inputs; for every crash point it crashes at a batch
 * (in-process: sl_query_crash; real: this binary re-executed with
 * STREAMLAB_CRASH, dying with _exit), restarts from the checkpoint and
 * finishes.  The sink (read back through _spark_metadata), the final
 * watermark and the state must equal the uncrashed run's, with no temp
 * files left.  Then corrupt logs (zero-length, truncated, garbage, v99):
 * each is recovered by rule or refused naming the file, and a refused
 * start leaves the checkpoint byte for byte as it was; another query's
 * checkpoint and a second query on a locked one are refused.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "state/ckpt.h"
#include "formats/fileformat.h"
#include "core/fsutil.h"
#include "plan/plan.h"
#include "driver/query.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"
#include "tap.h"

static sl_err err;
static char root[256];
static const char *self;

#define NSTEPS 7
/* one addData per step: event seconds */
static const char *const steps[NSTEPS] = {
	"{\"value\":1}\n{\"value\":2}\n{\"value\":3}\n",
	"{\"value\":12}\n{\"value\":14}\n",
	"{\"value\":25}\n{\"value\":4}\n",
	"{\"value\":7}\n{\"value\":27}\n",
	"{\"value\":33}\n{\"value\":38}\n",
	"{\"value\":51}\n",
	"{\"value\":70}\n",
};

/* ---------------------------------------------------------- the query */

typedef struct run {
	sl_session *s;
	sl_type *t;
	sl_memstream *ms;
	sl_plan *plan;
	sl_query *q;
	char ck[300], out[300];
	int added;
} run;

static sl_plan *sel(sl_plan *in, const char *e1, const char *e2)
{
	sl_expr *e[2];
	int n = 0;
	sl_plan *p;
	e[n++] = sl_sqlexpr_parse(e1, &err);
	if (e2 != NULL)
		e[n++] = sl_sqlexpr_parse(e2, &err);
	p = in ? sl_plan_project(in, e, n, &err) : NULL;
	sl_plan_free(in);
	return p;
}

/* value -> eventTime, watermark 10 s, count per 10 s window (size:
 * "10 seconds"; another size is another query) */
static sl_plan *windowed(sl_memstream *ms, const char *size)
{
	sl_source_desc *d = sl_source_desc_memory(ms, &err);
	sl_plan *p = d ? sl_plan_stream(d, &err) : NULL, *w;
	sl_expr *k[1], *a[1];
	char win[96];
	sl_source_desc_free(d);
	p = sel(p, "value", "timestamp_seconds(value) AS eventTime");
	w = p ? sl_plan_watermark(p, "eventTime", "10 seconds", &err) : NULL;
	sl_plan_free(p);
	snprintf(win, sizeof win, "window(eventTime, '%s') AS window", size);
	k[0] = sl_sqlexpr_parse(win, &err);
	a[0] = sl_sqlexpr_parse("count(*) AS count", &err);
	p = w ? sl_plan_aggregate(w, k, 1, a, 1, &err) : NULL;
	sl_plan_free(w);
	return sel(p, "CAST(window.start AS BIGINT) AS start", "count");
}

static void add(run *r, int i)
{
	sl_options o;
	const char *j = steps[i];
	sl_batch *b;
	sl_options_init(&o);
	b = sl_format_read_buf("json", "t", j, strlen(j), r->t, &o, &err);
	if (b == NULL || sl_memstream_add(r->ms, b, &err) < 0)
		diag("addData failed: %s", err.msg);
	sl_batch_free(b);
	r->added = i + 1;
}

static void run_init(run *r, const char *name, const char *size)
{
	memset(r, 0, sizeof *r);
	snprintf(r->ck, sizeof r->ck, "%s/%s/ck", root, name);
	snprintf(r->out, sizeof r->out, "%s/%s/out", root, name);
	r->s = sl_session_new();
	sl_clock_set_manual(sl_session_clock(r->s), 1767268800000000LL);
	r->t = sl_type_parse_ddl("value INT", &err);
	r->ms = sl_memstream_new(r->t, &err);
	r->plan = windowed(r->ms, size ? size : "10 seconds");
}

static int start(run *r)
{
	sl_query_opts o;
	sl_options so;
	memset(&o, 0, sizeof o);
	sl_options_init(&so);
	sl_options_set(&so, "path", r->out);
	o.mode = SL_MODE_APPEND;
	o.format = "json";
	o.sink_opts = &so;
	o.checkpoint = r->ck;
	r->q = sl_query_start(r->s, r->plan, &o, &err);
	sl_options_release(&so);
	return r->q != NULL ? 0 : err.code;
}

static void run_release(run *r)
{
	if (r->q != NULL) {
		sl_query_stop(r->q);
		sl_query_free(r->q);
	}
	sl_session_free(r->s);
	sl_plan_free(r->plan);
	sl_memstream_free(r->ms);
	sl_type_free(r->t);
}

/* Advance the clock 1 s, add step i, process. */
static int step(run *r, int i)
{
	sl_clock_advance(sl_session_clock(r->s), 1000000);
	add(r, i);
	return sl_query_process_all_available(r->q, &err);
}

/* ---------------------------------------------------------- results */

typedef struct result {
	char rows[2048];  /* sorted "start:count;" from the sink */
	char state[2048]; /* sorted hex key=value of the last state version */
	int64_t wm;       /* commits/<last>'s nextBatchWatermarkMs */
	int tmp;          /* temp files left in the checkpoint and sink */
} result;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sink_rows(const char *out, char *dst, size_t n)
{
	char **files = NULL, *line[256];
	int nf = 0, i, nl = 0;
	int64_t k;
	sl_type *st = sl_type_parse_ddl("start BIGINT, count BIGINT", &err);
	sl_options o;
	sl_options_init(&o);
	dst[0] = '\0';
	if (sl_format_list(out, &files, &nf, &err) < 0) {
		snprintf(dst, n, "(list: %s)", err.msg);
		sl_type_free(st);
		return;
	}
	for (i = 0; i < nf; i++) {
		sl_batch *b = sl_format_read_file("json", files[i], st, &o, &err);
		for (k = 0; b != NULL && k < b->nrows && nl < 256; k++) {
			char buf[64];
			snprintf(buf, sizeof buf, "%lld:%lld",
				 (long long)sl_col_i64(b->cols[0])[k],
				 (long long)sl_col_i64(b->cols[1])[k]);
			line[nl++] = strdup(buf);
		}
		sl_batch_free(b);
	}
	qsort(line, (size_t)nl, sizeof *line, cmp_str);
	for (i = 0; i < nl; i++) {
		strncat(dst, line[i], n - strlen(dst) - 2);
		strncat(dst, ";", n - strlen(dst) - 1);
		free(line[i]);
	}
	sl_format_list_free(files, nf);
	sl_type_free(st);
}

typedef struct dump {
	char *e[256];
	int n;
} dump;

static int dump_one(void *ud, const void *k, size_t kl, const void *v,
		    size_t vl)
{
	dump *d = ud;
	sl_buf b;
	size_t i;
	if (d->n == 256)
		return 0;
	sl_buf_init(&b);
	for (i = 0; i < kl; i++)
		sl_buf_printf(&b, "%02x", ((const unsigned char *)k)[i]);
	sl_buf_addc(&b, '=');
	for (i = 0; i < vl; i++)
		sl_buf_printf(&b, "%02x", ((const unsigned char *)v)[i]);
	d->e[d->n++] = sl_buf_detach(&b);
	return 0;
}

static int ntmp;
static int count_tmp(const char *p, const struct stat *st, int fl,
		     struct FTW *f)
{
	const char *base = p + f->base;
	size_t l = strlen(base);
	(void)st;
	(void)fl;
	if (base[0] == '.' && l > 4 && strcmp(base + l - 4, ".tmp") == 0)
		ntmp++;
	return 0;
}

static void collect(const run *r, result *res)
{
	char dir[400];
	int64_t *ids = NULL, last;
	int n = 0, i;
	sl_ckpt *c = sl_ckpt_open_ro(r->ck, &err);
	sl_state *st = sl_state_new();
	dump d;
	/* stopped first: a snapshot is written on its own thread, off the
	 * batch's path, so a running query may hold a temp file right now */
	if (r->q != NULL)
		sl_query_stop(r->q);
	memset(res, 0, sizeof *res);
	sink_rows(r->out, res->rows, sizeof res->rows);
	snprintf(dir, sizeof dir, "%s/commits", r->ck);
	sl_fs_list_ids(dir, NULL, &ids, &n, NULL);
	last = n > 0 ? ids[n - 1] : -1;
	free(ids);
	res->wm = -1;
	if (c != NULL && last >= 0) {
		sl_ckpt_read_commit(c, last, &res->wm, &err);
		d.n = 0;
		if (sl_ckpt_state_load(c, 0, last + 1, st, NULL, &err) == 0)
			sl_state_foreach(st, dump_one, &d);
		else
			snprintf(res->state, sizeof res->state, "(%s)", err.msg);
		qsort(d.e, (size_t)d.n, sizeof *d.e, cmp_str);
		for (i = 0; i < d.n; i++) {
			strncat(res->state, d.e[i],
				sizeof res->state - strlen(res->state) - 2);
			strncat(res->state, ";",
				sizeof res->state - strlen(res->state) - 1);
			free(d.e[i]);
		}
	}
	sl_state_free(st);
	sl_ckpt_close(c);
	ntmp = 0;
	nftw(r->ck, count_tmp, 16, FTW_PHYS);
	nftw(r->out, count_tmp, 16, FTW_PHYS);
	res->tmp = ntmp;
}

static int nevents(sl_query *q, sl_event_kind kind, const char *text)
{
	uint64_t first, last, i;
	int n = 0;
	sl_feed_range(sl_query_feed(q), &first, &last);
	for (i = first; i && i <= last; i++) {
		const sl_event *e = sl_feed_get(sl_query_feed(q), i);
		if (e != NULL && e->kind == kind &&
		    (text == NULL || strstr(e->text, text) != NULL))
			n++;
	}
	return n;
}

/* ---------------------------------------------------------- scenarios */

static result ref;
static int64_t ref_batch[NSTEPS]; /* the first batch id of each step */

static void reference(void)
{
	run r;
	int i;
	run_init(&r, "ref", NULL);
	ok(start(&r) == 0, "reference query starts (%s)", err.msg);
	for (i = 0; i < NSTEPS && r.q != NULL; i++) {
		ref_batch[i] = sl_query_last_batch_id(r.q) + 1;
		if (step(&r, i) != 0)
			diag("reference step %d: %s", i, err.msg);
	}
	collect(&r, &ref);
	diag("reference: rows %s wm %lld", ref.rows, (long long)ref.wm);
	is_str(ref.rows, "0:4;10:2;20:2;30:2;50:1;",
	       "reference: each window once, the late row dropped");
	is_int(ref.wm, 60000, "reference: final watermark 60 s");
	ok(ref.state[0] != '\0', "reference: the open window is in state");
	is_int(ref.tmp, 0, "reference: no temp files");
	run_release(&r);
}

static void compare(const char *what, const run *r)
{
	result res;
	collect(r, &res);
	is_str(res.rows, ref.rows, "%s: sink rows equal the uncrashed run's",
	       what);
	is_int(res.wm, ref.wm, "%s: watermark equal", what);
	is_str(res.state, ref.state, "%s: state equal", what);
	is_int(res.tmp, 0, "%s: no temp files left", what);
}

static const char *const points[] = {
	"after-offsets", "mid-state",  "after-state", "mid-sink",
	"after-sink",    "before-commit", "mid-commit", "after-commit",
};
#define NPOINTS 8
#define CRASH_STEP 2

static void in_process(const char *point, const char *again)
{
	run r;
	sl_query *q2 = NULL, *q3;
	char name[64], what[96];
	int i, rc;
	bool before_commit = strcmp(point, "after-commit") != 0;
	snprintf(name, sizeof name, "ip-%s%s%s", point, again ? "-" : "",
		 again ? again : "");
	snprintf(what, sizeof what, "in-process %s%s%s", point,
		 again ? " then " : "", again ? again : "");
	run_init(&r, name, NULL);
	if (start(&r) != 0) {
		ok(0, "%s: start: %s", what, err.msg);
		run_release(&r);
		return;
	}
	for (i = 0; i < CRASH_STEP; i++)
		step(&r, i);
	is_int(sl_query_crash(r.q, point, &err), 0, "%s: armed", what);
	rc = step(&r, CRASH_STEP);
	is_int(rc, SL_ECRASH, "%s: the batch stops at the point", what);
	ok(!sl_query_is_active(r.q), "%s: the query is inactive", what);
	is_int(nevents(r.q, SL_EV_CRASH, point), 1, "%s: SL_EV_CRASH", what);
	if (again != NULL) { /* crash again during the recovery's re-run */
		q2 = sl_query_restart(r.q, &err);
		ok(q2 != NULL, "%s: first restart (%s)", what, err.msg);
		if (q2 == NULL)
			goto out;
		sl_query_crash(q2, again, &err);
		rc = sl_query_process_all_available(q2, &err);
		is_int(rc, SL_ECRASH, "%s: the re-run crashes too", what);
		sl_query_free(r.q);
		r.q = q2;
	}
	q3 = sl_query_restart(r.q, &err);
	ok(q3 != NULL, "%s: restart (%s)", what, q3 ? "" : err.msg);
	if (q3 == NULL)
		goto out;
	is_str(sl_query_id(q3), sl_query_id(r.q), "%s: same id", what);
	ok(strcmp(sl_query_run_id(q3), sl_query_run_id(r.q)) != 0,
	   "%s: new runId", what);
	sl_query_free(r.q);
	r.q = q3;
	is_int(sl_query_process_all_available(r.q, &err), 0,
	       "%s: recovers (%s)", what, err.msg);
	if (before_commit)
		is_int(nevents(r.q, SL_EV_REPLAY, "re-ran batch"), 1,
		       "%s: SL_EV_REPLAY re-ran the batch", what);
	else
		is_int(nevents(r.q, SL_EV_REPLAY, NULL), 0,
		       "%s: a committed batch is not re-run", what);
	if (again == NULL &&
	    (strcmp(point, "after-sink") == 0 ||
	     strcmp(point, "before-commit") == 0 ||
	     strcmp(point, "mid-commit") == 0))
		is_int(nevents(r.q, SL_EV_SINK, "already committed: skipped"), 1,
		       "%s: the sink skipped its logged batch", what);
	for (i = CRASH_STEP + 1; i < NSTEPS; i++)
		if (step(&r, i) != 0)
			diag("%s: step %d: %s", what, i, err.msg);
	compare(what, &r);
out:
	run_release(&r);
}

/* Child: run up to and including the crash step with STREAMLAB_CRASH
 * set; the process must die at the point. */
static int child_main(const char *name)
{
	run r;
	int i;
	run_init(&r, name, NULL);
	if (start(&r) != 0)
		return 2;
	for (i = 0; i <= CRASH_STEP; i++)
		step(&r, i);
	run_release(&r);
	return 0; /* reached only if the point never hit */
}

static void real_process(const char *point)
{
	char name[64], what[96], env[96];
	pid_t pid;
	int status = 0, i;
	run r;
	snprintf(name, sizeof name, "rp-%s", point);
	snprintf(what, sizeof what, "real %s", point);
	snprintf(env, sizeof env, "%s:%lld", point,
		 (long long)ref_batch[CRASH_STEP]);
	pid = fork();
	if (pid == 0) {
		setenv("STREAMLAB_CRASH", env, 1);
		execl(self, self, "child", name, root, (char *)NULL);
		_exit(3);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 137,
	   "%s: the process died at the point (status %d)", what,
	   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	/* a new process: the same input again, the same checkpoint */
	run_init(&r, name, NULL);
	for (i = 0; i <= CRASH_STEP; i++)
		add(&r, i);
	if (start(&r) != 0) {
		ok(0, "%s: restart: %s", what, err.msg);
		run_release(&r);
		return;
	}
	is_int(sl_query_process_all_available(r.q, &err), 0,
	       "%s: recovers (%s)", what, err.msg);
	for (i = CRASH_STEP + 1; i < NSTEPS; i++)
		step(&r, i);
	compare(what, &r);
	run_release(&r);
}

/* ---------------------------------------------------------- corruption */

/* name, size and crc of every file under dir, to compare before/after */
static sl_buf snap;
static int snap_one(const char *p, const struct stat *st, int fl,
		    struct FTW *f)
{
	char *data = NULL;
	size_t n = 0;
	(void)st;
	(void)f;
	if (fl != FTW_F)
		return 0;
	sl_fs_read(p, &data, &n, NULL, NULL);
	sl_buf_printf(&snap, "%s %zu %08x\n", p, n,
		      (unsigned)sl_crc32(0, data ? data : "", n));
	free(data);
	return 0;
}

static char *snapshot(const char *dir)
{
	sl_buf_init(&snap);
	nftw(dir, snap_one, 16, FTW_PHYS);
	return sl_buf_detach(&snap);
}

static void put(const char *path, const char *text, size_t n)
{
	FILE *f = fopen(path, "w");
	if (f != NULL) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
}

static const struct {
	const char *name, *text;
	size_t len;
} damage[] = {
	{"zero-length", "", 0},
	{"truncated", "v1\n{\"batchWat", 13},
	{"garbage", "\x7f""ELF\x01\x02garbage", 11},
	{"v99", "v99\n{\"batchWatermarkMs\":0}", 26},
};
#define NDAMAGE 4

/* A run crashed at after-offsets in the crash step: the newest offsets
 * file is not committed. */
static void uncommitted_offsets(int k)
{
	run r;
	char name[64], what[96], p[400];
	int i;
	snprintf(name, sizeof name, "co-%s", damage[k].name);
	snprintf(what, sizeof what, "%s uncommitted offsets", damage[k].name);
	run_init(&r, name, NULL);
	start(&r);
	for (i = 0; i < CRASH_STEP; i++)
		step(&r, i);
	sl_query_crash(r.q, "after-offsets", &err);
	step(&r, CRASH_STEP);
	snprintf(p, sizeof p, "%s/offsets/%lld", r.ck,
		 (long long)ref_batch[CRASH_STEP]);
	put(p, damage[k].text, damage[k].len);
	sl_query_free(r.q);
	r.q = NULL;
	ok(start(&r) == 0, "%s: discarded by rule, the query starts (%s)",
	   what, r.q ? "" : err.msg);
	if (r.q == NULL) {
		run_release(&r);
		return;
	}
	is_int(sl_query_process_all_available(r.q, &err), 0,
	       "%s: the batch is planned again", what);
	for (i = CRASH_STEP + 1; i < NSTEPS; i++)
		step(&r, i);
	compare(what, &r);
	run_release(&r);
}

/* A finished run; damage a committed file; the start is refused naming
 * it, and nothing changes. */
static void refused(const char *rel, int k, const char *size)
{
	run r;
	char name[64], what[96], p[400], *before, *after;
	int i;
	snprintf(name, sizeof name, "cr-%s-%d", rel, k);
	for (i = 0; name[i]; i++)
		if (name[i] == '/')
			name[i] = '_';
	snprintf(what, sizeof what, "%s %s", k >= 0 ? damage[k].name : "plan",
		 rel);
	run_init(&r, name, NULL);
	start(&r);
	for (i = 0; i < 3; i++)
		step(&r, i);
	sl_query_stop(r.q);
	if (strcmp(rel, "offsets") == 0 || strcmp(rel, "commits") == 0) {
		/* the newest: the one a restart needs */
		snprintf(p, sizeof p, "%s/%s/%lld", r.ck, rel,
			 (long long)sl_query_last_batch_id(r.q));
		rel = strstr(p, rel);
	} else {
		snprintf(p, sizeof p, "%s/%s", r.ck, rel);
	}
	if (k >= 0)
		put(p, damage[k].text, damage[k].len);
	sl_query_free(r.q);
	r.q = NULL;
	if (size != NULL) { /* another query on this checkpoint */
		sl_plan_free(r.plan);
		r.plan = windowed(r.ms, size);
	}
	before = snapshot(r.ck);
	ok(start(&r) != 0, "%s: refused", what);
	ok(strstr(err.msg, k >= 0 ? rel : "metadata") != NULL,
	   "%s: names the file: %s", what, err.msg);
	after = snapshot(r.ck);
	is_str(after, before, "%s: the checkpoint is unchanged", what);
	free(before);
	free(after);
	run_release(&r);
}

static void locked(void)
{
	run r, r2;
	char *before, *after;
	run_init(&r, "lock", NULL);
	start(&r);
	step(&r, 0);
	run_init(&r2, "lock", NULL);
	before = snapshot(r.ck);
	ok(start(&r2) != 0, "a second query on the same checkpoint is refused");
	ok(strstr(err.msg, "in use by another running query") != NULL,
	   "lock: %s", err.msg);
	after = snapshot(r.ck);
	is_str(after, before, "lock: the checkpoint is unchanged");
	free(before);
	free(after);
	run_release(&r2);
	run_release(&r);
}

static void checkpoint_json(void)
{
	run r;
	const char *j;
	run_init(&r, "json", NULL);
	start(&r);
	step(&r, 0);
	sl_query_crash(r.q, "after-sink", &err);
	step(&r, 1);
	j = sl_query_checkpoint_json(r.q);
	ok(j != NULL && strstr(j, "\"batches\":[{\"batchId\":0,\"offsets\":[0],"
				  "\"watermarkMs\":0,") != NULL,
	   "checkpoint json: batch 0's offsets and watermark");
	ok(j != NULL && strstr(j, "\"stateVersion\":2,\"sinkLog\":true,"
				  "\"committed\":false}]") != NULL,
	   "checkpoint json: batch 1 logged by the sink, not committed: %s",
	   j ? j : "(null)");
	ok(sl_query_checkpoint_dir(r.q) != NULL &&
	   sl_query_checkpoint_dir(r.q)[0] == '/',
	   "checkpoint dir is absolute");
	run_release(&r);
}

int main(int argc, char **argv)
{
	char cmd[400];
	int i, k;
	self = argv[0];
	snprintf(root, sizeof root, "%s/t502-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (argc == 4 && strcmp(argv[1], "child") == 0) {
		snprintf(root, sizeof root, "%s", argv[3]);
		return child_main(argv[2]);
	}
	if (mkdtemp(root) == NULL)
		return 1;
	reference();
	for (i = 0; i < NPOINTS; i++)
		in_process(points[i], NULL);
	in_process("after-state", "mid-sink");
	in_process("mid-commit", "after-offsets");
	for (i = 0; i < NPOINTS; i++)
		real_process(points[i]);
	for (k = 0; k < NDAMAGE; k++) {
		uncommitted_offsets(k);
		refused("offsets", k, NULL);
		refused("commits", k, NULL);
		refused("metadata", k, NULL);
		refused("state/0/0/4.delta", k, NULL);
	}
	refused("metadata", -1, "20 seconds");
	locked();
	checkpoint_json();
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	if (system(cmd) != 0)
		diag("could not remove %s", root);
	done_testing();
}
