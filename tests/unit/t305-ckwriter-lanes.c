/*
 * t305-ckwriter-lanes: the writer's two lanes (state/ckwriter.h, issue 18
 * item 6).  A job's stage (a temp file's data and flush) runs on the data
 * lane while earlier jobs still run on the name lane; runs stay strictly
 * in queue order, each after its own stage; a stage waits for earlier
 * jobs with its key (a directory's spare); the first failure in queue
 * order wins, a stage's as a run's; a batch's writer time counts the two
 * lanes' overlapping work once.  No timing guesses: each overlap is
 * proven by a job that can only finish when the other ran beside it
 * (with a 5 s way out, so a broken writer fails instead of hanging).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "state/ckwriter.h"
#include "tap.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int flags[16];
static char log_[256];
static int nfreed;
static int64_t dur[26][2]; /* per job name: stage, run (us) */
static int seen[26];       /* per job name: its stage saw its flag set */

static void note(char c)
{
	size_t n;
	pthread_mutex_lock(&mu);
	n = strlen(log_);
	if (n + 1 < sizeof log_) {
		log_[n] = c;
		log_[n + 1] = '\0';
	}
	pthread_mutex_unlock(&mu);
}

static void set_flag(int i)
{
	pthread_mutex_lock(&mu);
	flags[i] = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static int get_flag(int i)
{
	int v;
	pthread_mutex_lock(&mu);
	v = flags[i];
	pthread_mutex_unlock(&mu);
	return v;
}

/* Wait up to 5 s for flag i: 1 when it came. */
static int wait_flag(int i)
{
	int64_t until = sl_clock_monotonic_us() + 5000000;
	int v;
	pthread_mutex_lock(&mu);
	while (!(v = flags[i]) && sl_clock_monotonic_us() < until) {
		pthread_mutex_unlock(&mu);
		usleep(1000);
		pthread_mutex_lock(&mu);
	}
	pthread_mutex_unlock(&mu);
	return v;
}

struct job {
	char name;      /* logged: upper case = stage, lower case = run */
	int wait_for;   /* run (or stage) waits for this flag (-1: none) */
	int set_after;  /* then sets this flag (-1: none) */
	int stage_wait; /* stage waits for this flag (-1: none) */
	int stage_set;  /* stage sets this flag when done (-1: none) */
	int fail_stage, fail_run;
	int start_set;  /* run sets this flag when it starts (-1: none) */
	int saw_flag;   /* stage: note whether this flag is set (-1: no) */
	int sleep_us;     /* in the stage */
	int run_sleep_us; /* in the run */
};

static int stage_fn(void *ud, sl_err *err)
{
	struct job *j = ud;
	int64_t t0 = sl_clock_monotonic_us();
	if (j->saw_flag >= 0)
		seen[j->name - 'a'] = get_flag(j->saw_flag);
	note((char)(j->name - 'a' + 'A'));
	if (j->stage_wait >= 0)
		(void)wait_flag(j->stage_wait);
	if (j->sleep_us > 0)
		usleep((useconds_t)j->sleep_us);
	if (j->stage_set >= 0)
		set_flag(j->stage_set);
	dur[j->name - 'a'][0] = sl_clock_monotonic_us() - t0;
	if (j->fail_stage)
		return sl_err_set(err, SL_EIO, "cannot write '%c': stage", j->name);
	return 0;
}

static int run_fn(void *ud, sl_err *err)
{
	struct job *j = ud;
	int64_t t0 = sl_clock_monotonic_us();
	note(j->name);
	if (j->start_set >= 0)
		set_flag(j->start_set);
	if (j->wait_for >= 0 && !wait_flag(j->wait_for))
		note('!'); /* the flag never came: no overlap */
	if (j->run_sleep_us > 0)
		usleep((useconds_t)j->run_sleep_us);
	if (j->set_after >= 0)
		set_flag(j->set_after);
	dur[j->name - 'a'][1] = sl_clock_monotonic_us() - t0;
	if (j->fail_run)
		return sl_err_set(err, SL_EIO, "cannot write '%c': run", j->name);
	return 0;
}

static void free_fn(void *ud)
{
	pthread_mutex_lock(&mu);
	nfreed++;
	pthread_mutex_unlock(&mu);
	free(ud);
}

static struct job *mk(char name)
{
	struct job *j = calloc(1, sizeof *j);
	j->name = name;
	j->wait_for = j->set_after = j->stage_wait = j->stage_set = -1;
	j->start_set = j->saw_flag = -1;
	return j;
}

static void reset(void)
{
	memset(flags, 0, sizeof flags);
	memset(dur, 0, sizeof dur);
	memset(seen, 0, sizeof seen);
	log_[0] = '\0';
	nfreed = 0;
}

static int64_t sub(sl_ckwriter *w, struct job *j, bool staged, int64_t batch,
		   uint64_t key)
{
	sl_err err;
	return sl_ckwriter_submit_staged(w, staged ? stage_fn : NULL, run_fn,
					 free_fn, j, batch, key, &err);
}

/* a's run can only end once b's stage ran beside it: the data lane
 * works ahead of the name lane; runs stay in order. */
static void test_overlap(void)
{
	sl_ckwriter *w = sl_ckwriter_new();
	struct job *a = mk('a'), *b = mk('b'), *c = mk('c');
	sl_err err;
	int64_t ua, ub;
	reset();
	a->start_set = 4; /* b's stage waits for a's run to begin, */
	b->stage_wait = 4;
	b->sleep_us = 30000; /* sleeps 30 ms beside it, */
	b->stage_set = 1;
	a->wait_for = 1; /* and only then may a's run end */
	(void)sub(w, a, false, 7, 0);
	(void)sub(w, b, true, 7, 11);
	(void)sub(w, c, true, 8, 12);
	is_int(sl_ckwriter_sync(w, &err), 0, "three jobs written");
	ok(strchr(log_, '!') == NULL,
	   "a's run ended only because b's stage ran meanwhile (%s)", log_);
	ok(strstr(log_, "aB") != NULL || strstr(log_, "Ba") != NULL,
	   "b's stage began while a ran (%s)", log_);
	{
		const char *pa = strchr(log_, 'a'), *pb = strchr(log_, 'b'),
			   *pc = strchr(log_, 'c'), *sb = strchr(log_, 'B'),
			   *sc = strchr(log_, 'C');
		ok(pa && pb && pc && pa < pb && pb < pc, "runs in queue order (%s)",
		   log_);
		ok(sb && sc && sb < pb && sc < pc,
		   "each run after its own stage (%s)", log_);
	}
	is_int(nfreed, 3, "every job freed");
	/* batch 7: b's stage slept 30 ms inside a's run: the union of
	 * the intervals counts those 30 ms once, not twice */
	ua = sl_ckwriter_batch_us(w, 7);
	ub = sl_ckwriter_batch_us(w, 8);
	ok(ua >= dur[0][1], "batch 7's writer time covers a's run (%lld >= %lld us)",
	   (long long)ua, (long long)dur[0][1]);
	ok(ua <= dur[0][1] + dur[1][0] + dur[1][1] - 25000,
	   "and counts the 30 ms both lanes worked at once once (%lld us; "
	   "a's run %lld, b's stage %lld, b's run %lld)",
	   (long long)ua, (long long)dur[0][1], (long long)dur[1][0],
	   (long long)dur[1][1]);
	ok(ub >= 0, "batch 8's time is known (%lld us)", (long long)ub);
	sl_ckwriter_free(w);
}

/* The same key: a stage starts only once the earlier job with that key
 * has run (fsutil's spare is that job's until it is published). */
static void test_key(void)
{
	sl_ckwriter *w = sl_ckwriter_new();
	struct job *a = mk('a'), *b = mk('b'), *c = mk('c');
	sl_err err;
	reset();
	a->run_sleep_us = 20000; /* a's run is slow: b's stage goes ahead */
	b->stage_wait = 5;   /* b (another key) stages while a runs */
	a->start_set = 5;
	a->set_after = 6; /* a's run is over */
	c->saw_flag = 6;
	(void)sub(w, a, true, -1, 5);
	(void)sub(w, b, true, -1, 6);
	(void)sub(w, c, true, -1, 5);
	is_int(sl_ckwriter_sync(w, &err), 0, "written");
	sl_ckwriter_free(w);
	{
		const char *ra = strchr(log_, 'a'), *rb = strchr(log_, 'b'),
			   *sb = strchr(log_, 'B'), *sc = strchr(log_, 'C');
		ok(ra && sb && rb && sb < rb, "b's stage went ahead (%s)", log_);
		ok(seen[2] && ra && sc && ra < sc,
		   "c's stage (a's key) began only after a's run ended (%s)", log_);
	}
}

/* A stage's failure: the jobs before it run, it and every later job
 * are skipped (freed, never run), and its error comes back; an earlier
 * run's failure wins over a later stage's. */
static void test_fail(void)
{
	sl_ckwriter *w = sl_ckwriter_new();
	struct job *j;
	sl_err err;
	int64_t t;
	reset();
	(void)sub(w, mk('a'), true, -1, 1);
	j = mk('b');
	j->fail_stage = 1;
	(void)sub(w, j, true, -1, 2);
	(void)sub(w, mk('c'), true, -1, 3);
	(void)sub(w, mk('d'), false, -1, 0);
	sl_err_clear(&err);
	is_int(sl_ckwriter_sync(w, &err), SL_EIO, "the stage's failure comes back");
	is_str(err.msg, "cannot write 'b': stage", "naming the job");
	ok(strchr(log_, 'a') != NULL, "the job before it ran (%s)", log_);
	ok(strchr(log_, 'b') == NULL && strchr(log_, 'c') == NULL &&
	       strchr(log_, 'd') == NULL,
	   "neither it nor a later job ran (%s)", log_);
	is_int(nfreed, 4, "all four freed");
	t = sub(w, mk('e'), true, -1, 4);
	is_int(t, SL_EIO, "a submit after it is refused");
	sl_ckwriter_free(w);

	w = sl_ckwriter_new();
	reset();
	j = mk('a');
	j->fail_run = 1;
	j->wait_for = 3; /* b's stage fails meanwhile */
	(void)sub(w, j, false, -1, 0);
	j = mk('b');
	j->fail_stage = 1;
	j->stage_set = 3;
	(void)sub(w, j, true, -1, 9);
	sl_err_clear(&err);
	is_int(sl_ckwriter_sync(w, &err), SL_EIO, "two failures");
	is_str(err.msg, "cannot write 'a': run",
	       "the first in queue order is reported, though b's stage failed first");
	sl_ckwriter_free(w);
}

int main(void)
{
	test_overlap();
	test_key();
	test_fail();
	return done_testing();
}
