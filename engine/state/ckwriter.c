/*
 * ckwriter: a FIFO of jobs and one thread that runs them in order.
 */
#include "state/ckwriter.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"

#define NTIMES 1024 /* per-batch job time, by batch id modulo */

struct wjob {
	struct wjob *next;
	sl_ckwriter_fn run;
	sl_ckwriter_free_fn free_fn;
	void *job;
	int64_t batch;
};

struct sl_ckwriter {
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	pthread_t thr;
	bool started, quit;
	struct wjob *head, *tail;
	int64_t queued, finished; /* tickets: jobs queued / done so far */
	int rc;                   /* the first failure, sticky */
	sl_err err;
	int64_t tbatch[NTIMES], tus[NTIMES];
};

static void account(sl_ckwriter *w, int64_t batch, int64_t us)
{
	int k;
	if (batch < 0)
		return;
	k = (int)(batch % NTIMES);
	if (w->tbatch[k] != batch) {
		w->tbatch[k] = batch;
		w->tus[k] = 0;
	}
	w->tus[k] += us;
}

/* Run one job unless an earlier one failed; called without the lock. */
static int run_job(struct wjob *j, int failed, sl_err *e, int64_t *us)
{
	int64_t t0 = sl_clock_monotonic_us();
	int rc = failed ? 0 : j->run(j->job, e);
	*us = sl_clock_monotonic_us() - t0;
	if (j->free_fn != NULL)
		j->free_fn(j->job);
	return rc;
}

static void *writer_main(void *ud)
{
	sl_ckwriter *w = ud;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		struct wjob *j;
		sl_err e;
		int rc, failed;
		int64_t us;
		while (w->head == NULL && !w->quit)
			pthread_cond_wait(&w->work, &w->mu);
		if (w->head == NULL)
			break;
		j = w->head; /* stays queued while it runs: pending() sees it */
		failed = w->rc;
		pthread_mutex_unlock(&w->mu);
		sl_err_clear(&e);
		rc = run_job(j, failed, &e, &us);
		pthread_mutex_lock(&w->mu);
		w->head = j->next;
		if (w->head == NULL)
			w->tail = NULL;
		if (rc < 0 && w->rc == 0) {
			w->rc = rc;
			w->err = e;
		}
		account(w, j->batch, us);
		w->finished++;
		free(j);
		pthread_cond_broadcast(&w->done);
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
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->done, NULL);
	for (k = 0; k < NTIMES; k++)
		w->tbatch[k] = -1;
	return w;
}

void sl_ckwriter_free(sl_ckwriter *w)
{
	if (w == NULL)
		return;
	(void)sl_ckwriter_sync(w, NULL);
	if (w->started) {
		pthread_mutex_lock(&w->mu);
		w->quit = true;
		pthread_cond_signal(&w->work);
		pthread_mutex_unlock(&w->mu);
		pthread_join(w->thr, NULL);
	}
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->done);
	free(w);
}

static int failure(sl_ckwriter *w, sl_err *err)
{
	if (err != NULL)
		*err = w->err;
	return w->rc;
}

int64_t sl_ckwriter_submit(sl_ckwriter *w, sl_ckwriter_fn run,
			   sl_ckwriter_free_fn free_fn, void *job,
			   int64_t batch, sl_err *err)
{
	struct wjob *j = calloc(1, sizeof *j);
	int64_t ticket;
	if (j == NULL) {
		if (free_fn != NULL)
			free_fn(job);
		return sl_err_nomem(err);
	}
	j->run = run;
	j->free_fn = free_fn;
	j->job = job;
	j->batch = batch;
	pthread_mutex_lock(&w->mu);
	if (w->rc < 0) {
		int rc = failure(w, err);
		pthread_mutex_unlock(&w->mu);
		if (free_fn != NULL)
			free_fn(job);
		free(j);
		return rc;
	}
	if (!w->started && pthread_create(&w->thr, NULL, writer_main, w) == 0)
		w->started = true;
	ticket = ++w->queued;
	if (!w->started) { /* no thread: run it here, in order */
		sl_err e;
		int64_t us;
		int rc;
		pthread_mutex_unlock(&w->mu);
		sl_err_clear(&e);
		rc = run_job(j, 0, &e, &us);
		pthread_mutex_lock(&w->mu);
		account(w, batch, us);
		w->finished++;
		free(j);
		if (rc < 0) {
			w->rc = rc;
			w->err = e;
			rc = failure(w, err);
			pthread_mutex_unlock(&w->mu);
			return rc;
		}
		pthread_mutex_unlock(&w->mu);
		return ticket;
	}
	if (w->tail != NULL)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->mu);
	return ticket;
}

int sl_ckwriter_wait(sl_ckwriter *w, int64_t ticket, sl_err *err)
{
	int rc;
	pthread_mutex_lock(&w->mu);
	while (w->finished < ticket && w->rc == 0)
		pthread_cond_wait(&w->done, &w->mu);
	/* after a failure, later jobs are skipped quickly: wait for them
	 * too, so nothing runs once the caller gives up */
	while (w->rc < 0 && w->finished < w->queued)
		pthread_cond_wait(&w->done, &w->mu);
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
	int k;
	if (batch < 0)
		return -1;
	k = (int)(batch % NTIMES);
	pthread_mutex_lock(&w->mu);
	if (w->tbatch[k] == batch)
		us = w->tus[k];
	pthread_mutex_unlock(&w->mu);
	return us;
}
