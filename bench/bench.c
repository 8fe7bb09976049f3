/*
 * bench: throughput of the batch operators (run by `make bench-engine`;
 * not a test).  Builds batches of 100k rows (ts TIMESTAMP, product_id INT with
 * 1000 keys, amount INT) from a fixed-seed generator and pushes 10 M rows
 * through compiled operator trees, exactly as a streaming driver will push
 * micro-batches:
 *   1. groupBy(product_id).agg(count(*), sum(amount))
 *   2. the same grouped by a STRING key ("p0042")
 *   3. filter(amount > 50).select(product_id, amount * 2)
 *   4. state size: bytes per group of an INT-keyed count + sum over 1 M keys
 * Prints rows/s, groups and peak RSS.  Benchmarks may read the real clock:
 * clock_gettime(CLOCK_MONOTONIC) here only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "exec/agg.h"
#include "core/engine.h"
#include "exec/exec.h"
#include "exec/hash.h"
#include "expr/sqlexpr.h"

#define BATCH 100000
#define NPOOL 8
#define TOTAL 10000000

static uint64_t rng = 42;

static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static void die(const char *what, const sl_err *err)
{
	fprintf(stderr, "bench: %s: %s\n", what, err->msg);
	exit(1);
}

static sl_batch *make_batch(sl_type *schema, bool string_key, int64_t t0)
{
	sl_col *c[3];
	int64_t i;
	char key[16];
	c[0] = sl_col_new(schema->fields[0].type, BATCH);
	c[1] = sl_col_new(schema->fields[1].type, BATCH);
	c[2] = sl_col_new(schema->fields[2].type, BATCH);
	for (i = 0; i < BATCH; i++) {
		uint32_t k = rnd() % 1000;
		sl_col_i64(c[0])[i] = t0 + i * 1000;
		if (string_key) {
			int n = snprintf(key, sizeof key, "p%04u", k);
			sl_col_set_str(c[1], i, key, (size_t)n);
		} else {
			sl_col_i32(c[1])[i] = (int32_t)k;
		}
		sl_col_i32(c[2])[i] = (int32_t)(rnd() % 100);
	}
	return sl_batch_new(schema, BATCH, c);
}

/* A sink that only counts what reaches it. */
static int64_t sunk;
static int count_push(sl_op *op, int side, sl_batch *in, sl_err *err)
{
	(void)op;
	(void)side;
	(void)err;
	sunk += in->nrows;
	return 0;
}
static int count_finish(sl_op *op, int side, sl_err *err)
{
	(void)op;
	(void)side;
	(void)err;
	return 0;
}
static const struct sl_op_ops count_ops = {
	.name = "count", .push = count_push, .finish = count_finish, .free = NULL,
};

/* Push TOTAL rows (the pool, cyclically) through the plan's operators. */
static void run(const char *name, sl_plan *p, sl_batch **pool)
{
	sl_err err;
	sl_op *sink = sl_op_new(&count_ops, NULL, &err), *root, *leaf;
	double t0, t1;
	int64_t pushed = 0;
	int i = 0;
	sunk = 0;
	root = sl_exec_compile(p, sink, &err);
	if (root == NULL)
		die(name, &err);
	for (leaf = root; leaf->nchild > 0; leaf = leaf->child[0])
		;
	t0 = now();
	while (pushed < TOTAL) {
		if (leaf->ops->push(leaf, 0, pool[i++ % NPOOL], &err) < 0)
			die(name, &err);
		pushed += BATCH;
	}
	if (leaf->ops->finish(leaf, 0, &err) < 0)
		die(name, &err);
	t1 = now();
	printf("%-44s %8.1f M rows/s  %6.3f s  out %lld rows  peak RSS %ld MiB\n",
	       name, (double)pushed / (t1 - t0) / 1e6, t1 - t0,
	       (long long)sunk, peak_rss_kb() / 1024);
	sl_op_free(sink);
}

static sl_plan *group_count_sum(sl_plan *in)
{
	sl_err err;
	sl_expr *k[1], *a[2];
	sl_plan *p;
	k[0] = sl_sqlexpr_parse("product_id", &err);
	a[0] = sl_sqlexpr_parse("count(*)", &err);
	a[1] = sl_sqlexpr_parse("sum(amount)", &err);
	p = sl_plan_aggregate(in, k, 1, a, 2, &err);
	if (p == NULL)
		die("aggregate", &err);
	return p;
}

static void bench_state_size(void)
{
	sl_err err;
	sl_type *it = sl_type_prim(SL_INT);
	sl_hash_groups *t = sl_hash_groups_new(&it, 1, &err);
	sl_agg *cnt = sl_agg_new("count", false, true, NULL, 0, 0, &err);
	sl_agg *sum = sl_agg_new("sum", false, false, &it, 1, 0, &err);
	sl_col *keys = sl_col_new(it, BATCH), *vals = sl_col_new(it, BATCH);
	int32_t *gids = malloc(BATCH * sizeof *gids);
	int64_t i, b, ng;
	size_t bytes;
	for (b = 0; b < 10; b++) { /* 1 M distinct keys */
		for (i = 0; i < BATCH; i++) {
			sl_col_i32(keys)[i] = (int32_t)(b * BATCH + i);
			sl_col_i32(vals)[i] = (int32_t)i;
		}
		if (sl_hash_groups_insert(t, &keys, BATCH, false, gids, &err) < 0)
			die("state", &err);
		ng = sl_hash_groups_count(t);
		if (sl_agg_update(cnt, gids, BATCH, ng, &vals, &err) < 0 ||
		    sl_agg_update(sum, gids, BATCH, ng, &vals, &err) < 0)
			die("state", &err);
	}
	ng = sl_hash_groups_count(t);
	bytes = sl_hash_groups_bytes(t) + sl_agg_bytes(cnt) + sl_agg_bytes(sum);
	printf("%-44s %lld groups, %.1f bytes/group (key + table + count + sum)\n",
	       "state size, INT key, count + sum", (long long)ng,
	       (double)bytes / (double)ng);
	sl_hash_groups_free(t);
	sl_agg_free(cnt);
	sl_agg_free(sum);
	sl_col_free(keys);
	sl_col_free(vals);
	free(gids);
}

int main(void)
{
	sl_err err;
	sl_type *s_int = sl_type_parse_ddl("ts TIMESTAMP, product_id INT, amount INT", &err);
	sl_type *s_str = sl_type_parse_ddl("ts TIMESTAMP, product_id STRING, amount INT", &err);
	sl_batch *pool[NPOOL], *spool[NPOOL];
	sl_plan *in, *sin, *p, *f;
	sl_expr *e[2];
	int i;
	sl_engine_tune_malloc(); /* as the streamlab program does */
	for (i = 0; i < NPOOL; i++) {
		pool[i] = make_batch(s_int, false, (int64_t)i * BATCH * 1000);
		spool[i] = make_batch(s_str, true, (int64_t)i * BATCH * 1000);
	}
	in = sl_plan_local(pool[0], &err);
	sin = sl_plan_local(spool[0], &err);
	printf("streamlab bench: %d rows in batches of %d\n", TOTAL, BATCH);

	p = group_count_sum(in);
	run("groupBy(product_id INT) count+sum", p, pool);
	sl_plan_free(p);

	p = group_count_sum(sin);
	run("groupBy(product_id STRING) count+sum", p, spool);
	sl_plan_free(p);

	f = sl_plan_filter(in, sl_sqlexpr_parse("amount > 50", &err), &err);
	e[0] = sl_sqlexpr_parse("product_id", &err);
	e[1] = sl_sqlexpr_parse("amount * 2 AS a2", &err);
	p = f ? sl_plan_project(f, e, 2, &err) : NULL;
	if (p == NULL)
		die("filter+project", &err);
	run("filter(amount > 50).select(id, amount * 2)", p, pool);
	sl_plan_free(p);
	sl_plan_free(f);

	bench_state_size();

	sl_plan_free(in);
	sl_plan_free(sin);
	for (i = 0; i < NPOOL; i++) {
		sl_batch_free(pool[i]);
		sl_batch_free(spool[i]);
	}
	sl_type_free(s_int);
	sl_type_free(s_str);
	return 0;
}
