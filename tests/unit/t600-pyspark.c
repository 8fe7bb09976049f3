/* pyspark: the exact PySpark text of a few plans (engine/pyspark.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver/pyspark.h"
#include "sources/source.h"
#include "expr/sqlexpr.h"
#include "tap.h"

static sl_expr *X(const char *sql)
{
	sl_err err;
	sl_expr *e = sl_sqlexpr_parse(sql, &err);
	if (e == NULL)
		fprintf(stderr, "# parse '%s': %s\n", sql, err.msg);
	return e;
}

static sl_plan *rate(void)
{
	sl_options o;
	sl_source_desc *d;
	sl_plan *p;
	sl_options_init(&o);
	sl_options_set(&o, "rowsPerSecond", "5");
	d = sl_source_desc_new("rate", NULL, NULL, &o, NULL);
	p = d ? sl_plan_stream(d, NULL) : NULL;
	sl_source_desc_free(d);
	sl_options_release(&o);
	return p;
}

static sl_plan *memory(const char *ddl)
{
	sl_type *t = sl_type_parse_ddl(ddl, NULL);
	sl_memstream *m = t ? sl_memstream_new(t, NULL) : NULL;
	sl_source_desc *d = m ? sl_source_desc_memory(m, NULL) : NULL;
	sl_plan *p = d ? sl_plan_stream(d, NULL) : NULL;
	sl_source_desc_free(d);
	sl_memstream_free(m);
	sl_type_free(t);
	return p;
}

/* Take ownership of in; return the new plan (in freed). */
static sl_plan *then(sl_plan *in, sl_plan *out)
{
	sl_plan_free(in);
	return out;
}

static char *query_text(sl_plan *p, const sl_pyspark_sink *w, sl_session *s)
{
	sl_buf b;
	sl_buf_init(&b);
	if (p == NULL || sl_pyspark_query(p, w, s, &b, NULL) < 0) {
		sl_buf_release(&b);
		return strdup("(failed)");
	}
	return sl_buf_detach(&b);
}

static void rate_console(void)
{
	sl_plan *p = rate();
	sl_expr *sel[2];
	sl_pyspark_sink w;
	sl_options o;
	char *t;
	p = then(p, sl_plan_filter(p, X("value % 2 = 0"), NULL));
	sel[0] = X("value * 10 AS v");
	sel[1] = X("timestamp");
	p = then(p, sl_plan_project(p, sel, 2, NULL));
	sl_options_init(&o);
	sl_options_set(&o, "numRows", "5");
	memset(&w, 0, sizeof w);
	w.format = "console";
	w.mode = SL_MODE_APPEND;
	w.trigger.kind = SL_TRIGGER_PROCESSING;
	w.trigger.interval_us = 10000000;
	w.name = "evens";
	w.opts = &o;
	t = query_text(p, &w, NULL);
	is_str(t,
	       "# The same query on Apache Spark 3.5 (exported by streamlab).\n"
	       "# Run it with:\n"
	       "#   spark-submit query.py\n"
	       "from pyspark.sql import SparkSession, functions as F, types as T\n"
	       "\n"
	       "spark = (\n"
	       "    SparkSession.builder\n"
	       "    .appName(\"evens\")\n"
	       "    # streamlab computes in UTC\n"
	       "    .config(\"spark.sql.session.timeZone\", \"UTC\")\n"
	       "    .getOrCreate()\n"
	       ")\n"
	       "\n"
	       "rate_stream = (\n"
	       "    spark.readStream\n"
	       "    .format(\"rate\")\n"
	       "    .option(\"rowsPerSecond\", \"5\")\n"
	       "    .load()\n"
	       ")\n"
	       "\n"
	       "result = (\n"
	       "    rate_stream\n"
	       "    .filter(\"(value % 2) = 0\")\n"
	       "    .selectExpr(\"value * 10 AS v\", \"timestamp\")\n"
	       ")\n"
	       "\n"
	       "query = (\n"
	       "    result.writeStream\n"
	       "    .format(\"console\")\n"
	       "    .outputMode(\"append\")\n"
	       "    .option(\"numRows\", \"5\")\n"
	       "    # streamlab used a temporary checkpoint: keep this one to restart\n"
	       "    .option(\"checkpointLocation\", \"/tmp/checkpoints/evens\")\n"
	       "    .queryName(\"evens\")\n"
	       "    .trigger(processingTime=\"10 seconds\")\n"
	       "    .start()\n"
	       ")\n"
	       "\n"
	       "query.awaitTermination()\n",
	       "rate -> filter -> selectExpr -> console, processingTime: the whole program");
	free(t);
	sl_options_release(&o);
	sl_plan_free(p);
}

static void windowed(void)
{
	sl_plan *p = memory("event_time TIMESTAMP, word STRING, n INT");
	sl_session *s = sl_session_new();
	sl_expr *keys[2], *aggs[2];
	sl_pyspark_sink w;
	sl_options o;
	char *t;
	p = then(p, sl_plan_watermark(p, "event_time", "10 minutes", NULL));
	keys[0] = X("window(event_time, '10 minutes', '5 minutes')");
	keys[1] = X("word");
	aggs[0] = X("count(*) AS count");
	aggs[1] = X("sum(n) / count(n)");
	p = then(p, sl_plan_aggregate(p, keys, 2, aggs, 2, NULL));
	sl_session_conf_set(s, "spark.sql.streaming.statefulOperator.allowMultiple",
			    "false", NULL);
	sl_options_init(&o);
	sl_options_set(&o, "checkpointLocation", "/data/ck");
	memset(&w, 0, sizeof w);
	w.format = "memory";
	w.mode = SL_MODE_APPEND;
	w.trigger.kind = SL_TRIGGER_AVAILABLE_NOW;
	w.name = "counts";
	w.opts = &o;
	t = query_text(p, &w, s);
	ok(strstr(t, "    .config(\"spark.sql.streaming.statefulOperator."
		     "allowMultiple\", \"false\")\n") != NULL,
	   "a conf that is not Spark's default is exported");
	ok(strstr(t, "multipleWatermarkPolicy") == NULL,
	   "a conf left at its default is not");
	ok(strstr(t, "# tests (MemoryStream).  TODO: read your real source here") &&
	   strstr(t, "memory_stream = (\n    spark.readStream\n"
		     "    .format(\"json\")\n"
		     "    .schema(\"event_time TIMESTAMP, word STRING, n INT\")\n"
		     "    .load(\"/tmp/streamlab/input/memory_stream\")\n)\n"),
	   "a memory stream becomes a marked JSON file stand-in, same schema");
	ok(strstr(t, "result = (\n"
		     "    memory_stream\n"
		     "    .withWatermark(\"event_time\", \"10 minutes\")\n"
		     "    .groupBy(F.window(\"event_time\", \"10 minutes\", "
		     "\"5 minutes\"), \"word\")\n"
		     "    .agg(F.count(F.lit(1)).alias(\"count\"), "
		     "F.expr(\"sum(n) / count(n)\"))\n"
		     ")\n") != NULL,
	   "watermark, sliding window (EXPAND undone), aggregates");
	ok(strstr(t, "    .option(\"checkpointLocation\", \"/data/ck\")\n"
		     "    .queryName(\"counts\")\n"
		     "    .trigger(availableNow=True)\n") != NULL,
	   "the user's checkpoint, queryName, availableNow");
	ok(strstr(t, "temporary checkpoint") == NULL, "no placeholder then");
	if (strstr(t, "result = (") == NULL || !strstr(t, ".agg("))
		fprintf(stderr, "%s", t);
	free(t);
	sl_options_release(&o);
	sl_session_free(s);
	sl_plan_free(p);
}

static void join_union_foreach(void)
{
	sl_plan *a = memory("id INT, v STRING"), *b = memory("id INT, v STRING");
	sl_plan *u = sl_plan_union(a, b, NULL), *j;
	const char *using[] = {"id"};
	sl_pyspark_sink w;
	char *t;
	j = sl_plan_join(u, a, NULL, using, 1, "inner", NULL);
	memset(&w, 0, sizeof w);
	w.foreach_batch = true;
	w.mode = SL_MODE_APPEND;
	w.trigger.kind = SL_TRIGGER_ONCE;
	t = query_text(j, &w, NULL);
	ok(strstr(t, "left = (\n    memory_stream.union(memory_stream_2)\n)\n") != NULL,
	   "union of two streams in its own variable");
	ok(strstr(t, "result = (\n    left.join(memory_stream_3, [\"id\"], \"inner\")\n)\n") != NULL,
	   "join using a column");
	ok(strstr(t, "def process_batch(batch_df, batch_id):\n    # TODO:") != NULL &&
	   strstr(t, "    .foreachBatch(process_batch)\n    .outputMode(\"append\")\n") != NULL,
	   "foreachBatch: a stub function, marked TODO");
	ok(strstr(t, "    .trigger(once=True)\n") != NULL, "Trigger.Once");
	free(t);
	sl_plan_free(j);
	sl_plan_free(u);
	sl_plan_free(a);
	sl_plan_free(b);
}

static void kafka_and_names(void)
{
	sl_pyspark_sink w;
	sl_buf out;
	sl_plan *p = rate();
	sl_expr *e[1];
	e[0] = X("CAST(value AS STRING)");
	p = then(p, sl_plan_project(p, e, 1, NULL));
	p = then(p, sl_plan_with_column(p, "say \"hi\"", X("'it\\'s'"), NULL));
	memset(&w, 0, sizeof w);
	w.format = "kafka";
	sl_buf_init(&out);
	is_int(sl_pyspark_query(p, &w, NULL, &out, NULL), 0, "kafka sink exported");
	ok(strstr(sl_buf_cstr(&out), "#   spark-submit --packages "
		  "org.apache.spark:spark-sql-kafka-0-10_2.12:3.5.0 query.py\n") &&
	   strstr(sl_buf_cstr(&out), "    .config(\"spark.jars.packages\", "
		  "\"org.apache.spark:spark-sql-kafka-0-10_2.12:3.5.0\")\n"),
	   "the Kafka package is named");
	ok(strstr(sl_buf_cstr(&out), "    # TODO: your Kafka brokers (streamlab used its embedded cluster)\n"
		  "    .option(\"kafka.bootstrap.servers\", \"localhost:9092\")\n") != NULL,
	   "embedded cluster -> localhost:9092, marked");
	ok(strstr(sl_buf_cstr(&out), "    .selectExpr(\"CAST(value AS STRING)\")\n") != NULL,
	   "the CAST the user wrote");
	ok(strstr(sl_buf_cstr(&out), "    .withColumn(\"say \\\"hi\\\"\", F.lit(\"it's\"))\n") != NULL,
	   "Python string escapes");
	sl_buf_release(&out);

	sl_buf_init(&out);
	is_int(sl_pyspark_dataframe(p, NULL, &out, NULL), 0, "a DataFrame alone");
	ok(strstr(sl_buf_cstr(&out), "# result is a streaming DataFrame: start it with") &&
	   strstr(sl_buf_cstr(&out), "writeStream\n") == NULL,
	   "no writer for a DataFrame alone");
	sl_buf_release(&out);
	sl_plan_free(p);
}

int main(void)
{
	rate_console();
	windowed();
	join_union_foreach();
	kafka_and_names();
	done_testing();
}
