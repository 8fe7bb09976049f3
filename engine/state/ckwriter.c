/*
 * ckwriter: a FIFO of jobs and two threads (lanes) that run them.
 *
 * The name lane takes the queue's head once its stage (if any) is done,
 * runs it, and only then looks at the next: jobs' runs are strictly in
 * order, each finished before the next starts.  The data lane walks the
 * queue ahead of it, in order too, running stages; a stage waits while an
 * earlier job with the same key is still queued (a directory's spare is
 * then the previous write's to publish: fsutil.h).  The first failure in
 * queue order, a stage's or a run's, is sticky: later stages and runs are
 * skipped.
 */
#include "state/ckwriter.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

#define NTIMES 1024 /* per-batch job time, by batch id modulo */
#define NSPANS 8    /* busy intervals kept per batch (then merged) */

struct wjob {
	struct wjob *next;
	sl_ckwriter_fn stage, run;
	sl_ckwriter_free_fn free_fn;
	void *job;
	int64_t batch;
	uint64_t key;
	bool staged; /* stage done (or none, or skipped) */
	bool stage_inline; /* no data lane: the name lane stages it */
	int stage_rc;
	sl_err stage_err;
};

/* The intervals the lanes spent on one batch's jobs: their union is its
 * time (two lanes on the same batch at once count once). */
struct spans {
	int64_t batch;
	int n;
	int64_t s[NSPANS], e[NSPANS];
};

struct sl_ckwriter {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* any change: a job queued, staged, done, quit */
	pthread_t thr[2];
	int nthr;
	bool quit, stage_failed;
	struct wjob *head, *tail; /* queued, not yet run (or running) */
	struct wjob *stage_next;  /* the data lane's next job */
	int64_t queued, finished; /* tickets: jobs queued / done so far */
	int rc;                   /* the first failure, sticky */
	sl_err err;
	struct spans times[NTIMES];
};

/* Under the lock. */
static void account(sl_ckwriter *w, int64_t batch, int64_t s, int64_t e)
{
	struct spans *t;
	if (batch < 0)
		return;
	t = &w->times[batch % NTIMES];
	if (t->batch != batch) {
		t->batch = batch;
		t->n = 0;
	}
	if (t->n == NSPANS) { /* widen the last: an upper bound */
		if (s < t->s[NSPANS - 1])
			t->s[NSPANS - 1] = s;
		if (e > t->e[NSPANS - 1])
			t->e[NSPANS - 1] = e;
		return;
	}
	t->s[t->n] = s;
	t->e[t->n] = e;
	t->n++;
}

static int64_t spans_union(const struct spans *t)
{
	int64_t s[NSPANS], e[NSPANS], total = 0, cur_s = 0, cur_e = 0;
	int i, k, n = t->n;
	memcpy(s, t->s, sizeof s);
	memcpy(e, t->e, sizeof e);
	for (i = 1; i < n; i++) /* insertion sort by start: n <= 8 */
		for (k = i; k > 0 && s[k] < s[k - 1]; k--) {
			int64_t x = s[k], y = e[k];
			s[k] = s[k - 1];
			e[k] = e[k - 1];
			s[k - 1] = x;
			e[k - 1] = y;
		}
	for (i = 0; i < n; i++) {
		if (i == 0 || s[i] > cur_e) {
			total += cur_e - cur_s;
			cur_s = s[i];
			cur_e = e[i];
		} else if (e[i] > cur_e) {
			cur_e = e[i];
		}
	}
	return total + cur_e - cur_s;
}

/* An earlier job with j's key is still queued (under the lock). */
static bool key_busy(const sl_ckwriter *w, const struct wjob *j)
{
	const struct wjob *p;
	if (j->key == 0)
		return false;
	for (p = w->head; p != NULL && p != j; p = p->next)
		if (p->key == j->key)
			return true;
	return false;
}

static void *data_lane(void *ud)
{
	sl_ckwriter *w = ud;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct wjob *j;
		sl_err e;
		int rc;
		int64_t t0, t1;
		while ((j = w->stage_next) == NULL && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (j == NULL)
			break;
		if (j->stage != NULL && !w->stage_failed && w->rc == 0) {
			while (key_busy(w, j) && w->rc == 0)
				pthread_cond_wait(&w->cv, &w->mu);
		}
		if (j->stage == NULL || w->stage_failed || w->rc < 0) {
			j->staged = true; /* nothing to do, or skipped */
			w->stage_next = j->next;
			pthread_cond_broadcast(&w->cv);
			continue;
		}
		pthread_mutex_unlock(&w->mu);
		sl_err_clear(&e);
		t0 = sl_clock_monotonic_us();
		rc = j->stage(j->job, &e);
		t1 = sl_clock_monotonic_us();
		pthread_mutex_lock(&w->mu);
		account(w, j->batch, t0, t1);
		j->stage_rc = rc;
		if (rc < 0) {
			j->stage_err = e;
			w->stage_failed = true;
		}
		j->staged = true;
		w->stage_next = j->next;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* Run one job (its stage is done) unless an earlier one failed; called
 * without the lock.  *s, *e: when it ran. */
static int run_job(struct wjob *j, int failed, sl_err *err, int64_t *s,
		   int64_t *e)
{
	int rc = 0;
	*s = sl_clock_monotonic_us();
	if (!failed && j->stage_inline)
		j->stage_rc = j->stage(j->job, &j->stage_err);
	if (!failed && j->stage_rc < 0) {
		rc = j->stage_rc;
		*err = j->stage_err;
	} else if (!failed && j->run != NULL) {
		rc = j->run(j->job, err);
	}
	*e = sl_clock_monotonic_us();
	if (j->free_fn != NULL)
		j->free_fn(j->job);
	return rc;
}

static void *name_lane(void *ud)
{
	sl_ckwriter *w = ud;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct wjob *j;
		sl_err e;
		int rc, failed;
		int64_t s, t;
		while ((w->head == NULL && !w->quit) ||
		       (w->head != NULL && !w->head->staged))
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->head == NULL)
			break;
		j = w->head; /* stays queued while it runs: pending() sees it */
		failed = w->rc;
		pthread_mutex_unlock(&w->mu);
		sl_err_clear(&e);
		rc = run_job(j, failed, &e, &s, &t);
		pthread_mutex_lock(&w->mu);
		w->head = j->next;
		if (w->head == NULL)
			w->tail = NULL;
		if (rc < 0 && w->rc == 0) {
			w->rc = rc;
			w->err = e;
		}
		if (j->run != NULL)
			account(w, j->batch, s, t);
		w->finished++;
		free(j);
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

sl_ckwriter *sl_ckwriter_new(void)
{
	sl_ckwriter *w = calloc(1, sizeof *w);
	int k;
	if (w == NULL)
		return NULL;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	for (k = 0; k < NTIMES; k++)
		w->times[k].batch = -1;
	return w;
}

void sl_ckwriter_free(sl_ckwriter *w)
{
	int k;
	if (w == NULL)
		return;
	(void)sl_ckwriter_sync(w, NULL);
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	for (k = 0; k < w->nthr; k++)
		pthread_join(w->thr[k], NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w);
}

static int failure(sl_ckwriter *w, sl_err *err)
{
	if (err != NULL)
		*err = w->err;
	return w->rc;
}

/* Both lanes, at the first submit; false when a thread cannot start (then
 * none runs and jobs run in the caller). */
static bool start_lanes(sl_ckwriter *w)
{
	if (w->nthr == 2)
		return true;
	if (w->nthr == 0) {
		if (pthread_create(&w->thr[0], NULL, name_lane, w) != 0)
			return false;
		w->nthr = 1;
	}
	if (pthread_create(&w->thr[1], NULL, data_lane, w) != 0)
		return false; /* the name lane waits for stages: inline */
	w->nthr = 2;
	return true;
}

/* No lanes: stage and run here, in order (under the lock on entry and
 * return). */
static int64_t run_inline(sl_ckwriter *w, struct wjob *j, int64_t ticket,
			  sl_err *err)
{
	sl_err e;
	int64_t s, t;
	int rc = 0;
	pthread_mutex_unlock(&w->mu);
	sl_err_clear(&e);
	j->stage_inline = j->stage != NULL;
	rc = run_job(j, 0, &e, &s, &t);
	pthread_mutex_lock(&w->mu);
	account(w, j->batch, s, t);
	w->finished++;
	free(j);
	if (rc < 0) {
		w->rc = rc;
		w->err = e;
		return failure(w, err);
	}
	return ticket;
}

int64_t sl_ckwriter_submit_staged(sl_ckwriter *w, sl_ckwriter_fn stage,
				  sl_ckwriter_fn run,
				  sl_ckwriter_free_fn free_fn, void *job,
				  int64_t batch, uint64_t key, sl_err *err)
{
	struct wjob *j = calloc(1, sizeof *j);
	int64_t ticket;
	if (j == NULL) {
		if (free_fn != NULL)
			free_fn(job);
		return sl_err_nomem(err);
	}
	j->stage = stage;
	j->run = run;
	j->free_fn = free_fn;
	j->job = job;
	j->batch = batch;
	j->key = key;
	pthread_mutex_lock(&w->mu);
	if (w->rc < 0) {
		int rc = failure(w, err);
		pthread_mutex_unlock(&w->mu);
		if (free_fn != NULL)
			free_fn(job);
		free(j);
		return rc;
	}
	ticket = ++w->queued;
	if (!start_lanes(w) && w->head == NULL) {
		ticket = run_inline(w, j, ticket, err);
		pthread_mutex_unlock(&w->mu);
		return ticket;
	}
	if (w->nthr < 2) { /* only the name lane: it stages too */
		j->staged = true;
		j->stage_inline = j->stage != NULL;
	} else if (w->stage_next == NULL) {
		w->stage_next = j;
	}
	if (w->tail != NULL)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return ticket;
}

int64_t sl_ckwriter_submit(sl_ckwriter *w, sl_ckwriter_fn run,
			   sl_ckwriter_free_fn free_fn, void *job,
			   int64_t batch, sl_err *err)
{
	return sl_ckwriter_submit_staged(w, NULL, run, free_fn, job, batch, 0,
					 err);
}

int sl_ckwriter_wait(sl_ckwriter *w, int64_t ticket, sl_err *err)
{
	int rc;
	pthread_mutex_lock(&w->mu);
	while (w->finished < ticket && w->rc == 0)
		pthread_cond_wait(&w->cv, &w->mu);
	/* after a failure, later jobs are skipped quickly: wait for them
	 * too, so nothing runs once the caller gives up */
	while (w->rc < 0 && w->finished < w->queued)
		pthread_cond_wait(&w->cv, &w->mu);
	rc = w->rc < 0 ? failure(w, err) : 0;
	pthread_mutex_unlock(&w->mu);
	return rc;
}

int sl_ckwriter_sync(sl_ckwriter *w, sl_err *err)
{
	int64_t t;
	pthread_mutex_lock(&w->mu);
	t = w->queued;
	pthread_mutex_unlock(&w->mu);
	return sl_ckwriter_wait(w, t, err);
}

int sl_ckwriter_pending(sl_ckwriter *w)
{
	int p;
	pthread_mutex_lock(&w->mu);
	p = w->finished < w->queued;
	pthread_mutex_unlock(&w->mu);
	return p;
}

int64_t sl_ckwriter_batch_us(sl_ckwriter *w, int64_t batch)
{
	int64_t us = -1;
	const struct spans *t;
	if (batch < 0)
		return -1;
	pthread_mutex_lock(&w->mu);
	t = &w->times[batch % NTIMES];
	if (t->batch == batch && t->n > 0)
		us = spans_union(t);
	pthread_mutex_unlock(&w->mu);
	return us;
}
