/*
 * t405-sink: the streaming sinks on small batches: the console block
 * (exact text), the memory sink (append, complete, a re-sent batch id
 * skipped), the json/csv file sinks (deterministic part names, the
 * _spark_metadata/N entries, the skip rule across a reopen, an aborted
 * attempt's part file replaced, a stray file invisible to readers, reading
 * the directory back, log compaction and cleanup as Spark's), foreachBatch,
 * noop, and the errors verbatim.
 * File tests work in a mkdtemp directory under /tmp.
 */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plan/catalog.h"
#include "formats/fileformat.h"
#include "driver/session.h"
#include "sinks/sink.h"
#include "tap.h"

static char root[64];
static sl_type *schema; /* a BIGINT, b STRING */

static sl_batch *rows(const char *json)
{
	sl_err err;
	sl_batch *b = sl_format_read_buf("json", "test", json, strlen(json),
					 schema, NULL, &err);
	if (b == NULL)
		diag("rows: %s", err.msg);
	return b;
}

static char *path(const char *rel)
{
	static char p[4][512];
	static int k;
	k = (k + 1) & 3;
	snprintf(p[k], sizeof p[k], "%s/%s", root, rel);
	return p[k];
}

static char *slurp(const char *file)
{
	static char buf[8192];
	FILE *f = fopen(file, "r");
	size_t n;
	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void put(const char *file, const char *text)
{
	FILE *f = fopen(file, "w");
	fputs(text, f);
	fclose(f);
}

static bool exists(const char *file)
{
	return access(file, F_OK) == 0;
}

/* add_batch returning "ok", "skipped" or the error message. */
static const char *add(sl_sink *s, int64_t id, sl_batch *b)
{
	static char out[600];
	bool skipped = false;
	sl_err err;
	sl_err_clear(&err);
	if (s->ops->add_batch(s, id, b, &skipped, &err) != 0) {
		snprintf(out, sizeof out, "%s", err.msg);
		return out;
	}
	return skipped ? "skipped" : "ok";
}

static const char *describe(const sl_sink *s)
{
	static char out[600];
	sl_buf b;
	sl_buf_init(&b);
	s->ops->describe(s, &b);
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&b));
	sl_buf_release(&b);
	return out;
}

static const char *open_err(sl_session *sess, const char *format,
			    sl_options *o, sl_outmode mode, const char *name)
{
	static char out[600];
	sl_err err;
	sl_sink *s;
	sl_err_clear(&err);
	s = sl_sink_open(sl_session_sink_host(sess), format, o, mode, name, "qid", &err);
	if (s != NULL) {
		sl_sink_close(s);
		return "opened";
	}
	snprintf(out, sizeof out, "%d %s", err.code, err.msg);
	return out;
}

/* ---- console ---- */

static sl_buf console_out;

static void capture(void *ud, const char *s, size_t n)
{
	(void)ud;
	sl_buf_add(&console_out, s, n);
}

static void test_console(sl_session *sess)
{
	sl_options o;
	sl_err err;
	sl_sink *s;
	sl_batch *b2 = rows("{\"a\":1,\"b\":\"x\"}\n{\"a\":22,\"b\":"
			    "\"a very long string of 25c\"}\n");
	sl_batch *b0 = sl_batch_empty(schema);
	sl_buf_init(&console_out);
	sl_session_set_output(sess, capture, NULL);
	sl_options_init(&o);
	s = sl_sink_open(sl_session_sink_host(sess), "console", &o, SL_MODE_APPEND, NULL, "qid", &err);
	ok(s != NULL, "console: opens with defaults");
	is_str(describe(s), "org.apache.spark.sql.execution.streaming.ConsoleTable$",
	       "console: description");
	is_str(add(s, 0, b2), "ok", "console: batch 0");
	is_str(sl_buf_cstr(&console_out),
	       "-------------------------------------------\n"
	       "Batch: 0\n"
	       "-------------------------------------------\n"
	       "+---+--------------------+\n"
	       "|  a|                   b|\n"
	       "+---+--------------------+\n"
	       "|  1|                   x|\n"
	       "| 22|a very long strin...|\n"
	       "+---+--------------------+\n"
	       "\n",
	       "console: the Batch block, a truncated show() table, an empty line");
	sl_buf_clear(&console_out);
	is_str(add(s, 1, b0), "ok", "console: empty batch 1");
	is_str(sl_buf_cstr(&console_out),
	       "-------------------------------------------\n"
	       "Batch: 1\n"
	       "-------------------------------------------\n"
	       "+---+---+\n"
	       "|  a|  b|\n"
	       "+---+---+\n"
	       "+---+---+\n"
	       "\n",
	       "console: an empty batch prints its header table");
	sl_sink_close(s);

	sl_options_set(&o, "numRows", "1");
	sl_options_set(&o, "truncate", "false");
	s = sl_sink_open(sl_session_sink_host(sess), "Console", &o, SL_MODE_COMPLETE, NULL, "qid", &err);
	ok(s != NULL, "console: numRows=1 truncate=false (format name any case)");
	sl_buf_clear(&console_out);
	is_str(add(s, 7, b2), "ok", "console: batch 7");
	is_str(sl_buf_cstr(&console_out),
	       "-------------------------------------------\n"
	       "Batch: 7\n"
	       "-------------------------------------------\n"
	       "+---+---+\n"
	       "|a  |b  |\n"
	       "+---+---+\n"
	       "|1  |x  |\n"
	       "+---+---+\n"
	       "only showing top 1 row\n"
	       "\n",
	       "console: numRows cuts the table; truncate=false left-aligns (Spark)");
	sl_sink_close(s);

	sl_options_set(&o, "numRows", "0");
	is_str(open_err(sess, "console", &o, SL_MODE_APPEND, NULL),
	       "-2 option 'numRows': must be a positive integer, got '0'",
	       "console: numRows must be positive");
	sl_options_set(&o, "numRows", "5");
	sl_options_set(&o, "truncate", "maybe");
	is_str(open_err(sess, "console", &o, SL_MODE_APPEND, NULL),
	       "-2 option 'truncate': expected 'true', 'false' or a number of "
	       "characters, got 'maybe'",
	       "console: bad truncate names the option");
	sl_options_set(&o, "truncate", "3");
	s = sl_sink_open(sl_session_sink_host(sess), "console", &o, SL_MODE_APPEND, NULL, "qid", &err);
	sl_buf_clear(&console_out);
	add(s, 2, b2);
	ok(strstr(sl_buf_cstr(&console_out), "|  1|  x|\n| 22|a v|\n") != NULL,
	   "console: truncate=3 cuts cells to 3 characters");
	sl_sink_close(s);
	sl_options_release(&o);
	sl_session_set_output(sess, NULL, NULL);
	sl_buf_release(&console_out);
	sl_batch_free(b2);
	sl_batch_free(b0);
}

/* ---- memory ---- */

static int64_t table_rows(sl_session *sess, const char *name)
{
	sl_err err;
	sl_batch *b = sl_catalog_get(sl_session_catalog(sess), name, &err);
	int64_t n;
	if (b == NULL)
		return -1;
	n = b->nrows;
	sl_batch_free(b);
	return n;
}

static void test_memory(sl_session *sess)
{
	sl_batch *b2 = rows("{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y\"}\n");
	sl_batch *b1 = rows("{\"a\":3,\"b\":\"z\"}\n");
	sl_err err;
	sl_sink *s;
	is_str(open_err(sess, "memory", NULL, SL_MODE_APPEND, NULL),
	       "-3 queryName must be specified for memory sink",
	       "memory: queryName required");
	s = sl_sink_open(sl_session_sink_host(sess), "memory", NULL, SL_MODE_APPEND, "out", "qid", &err);
	ok(s != NULL, "memory: opens");
	is_str(describe(s), "MemorySink", "memory: description");
	is_int(table_rows(sess, "out"), -1, "memory: no table before a batch");
	is_int(sl_sink_prepare(s, schema, &err), 0, "memory: prepare");
	is_int(table_rows(sess, "out"), 0, "memory: prepare makes an empty table");
	is_str(add(s, 0, b2), "ok", "memory append: batch 0");
	is_str(add(s, 1, b1), "ok", "memory append: batch 1");
	is_int(table_rows(sess, "OUT"), 3, "memory append: batches add up");
	is_str(add(s, 1, b1), "skipped", "memory: a re-sent batch 1 is skipped");
	is_str(add(s, 0, b2), "skipped", "memory: an older batch is skipped");
	is_int(table_rows(sess, "out"), 3, "memory: skipped batches add nothing");
	sl_sink_close(s);
	is_int(table_rows(sess, "out"), 3, "memory: the table outlives the query");

	s = sl_sink_open(sl_session_sink_host(sess), "memory", NULL, SL_MODE_UPDATE, "out", "qid", &err);
	is_int(table_rows(sess, "out"), -1, "memory: a new start replaces the table");
	is_str(add(s, 0, b1), "ok", "memory update: batch 0");
	is_str(add(s, 1, b1), "ok", "memory update: batch 1");
	is_int(table_rows(sess, "out"), 2, "memory update appends");
	sl_sink_close(s);

	s = sl_sink_open(sl_session_sink_host(sess), "memory", NULL, SL_MODE_COMPLETE, "agg", "qid", &err);
	is_str(add(s, 0, b2), "ok", "memory complete: batch 0");
	is_int(table_rows(sess, "agg"), 2, "memory complete: 2 rows");
	is_str(add(s, 1, b1), "ok", "memory complete: batch 1");
	is_int(table_rows(sess, "agg"), 1, "memory complete replaces the table");
	is_str(add(s, 1, b2), "skipped", "memory complete: re-sent batch skipped");
	is_int(table_rows(sess, "agg"), 1, "memory complete: still batch 1's rows");
	sl_sink_close(s);
	sl_batch_free(b2);
	sl_batch_free(b1);
}

/* ---- file sinks ---- */

static char *log_line(const char *file)
{
	static char out[1024];
	struct stat st;
	stat(file, &st);
	snprintf(out, sizeof out,
		 "{\"path\":\"file://%s\",\"size\":%lld,\"isDir\":false,"
		 "\"modificationTime\":%lld,\"blockReplication\":1,"
		 "\"blockSize\":33554432,\"action\":\"add\"}\n",
		 file, (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000);
	return out;
}

static const char *ls(const char *dir)
{
	static char out[2048];
	char **files;
	int n, k;
	sl_err err;
	size_t rl = strlen(dir) + 1;
	if (sl_format_list(dir, &files, &n, &err) != 0) {
		snprintf(out, sizeof out, "ERR %s", err.msg);
		return out;
	}
	out[0] = '\0';
	for (k = 0; k < n; k++) {
		if (k)
			strcat(out, " ");
		strcat(out, files[k] + rl);
	}
	sl_format_list_free(files, n);
	return out;
}

static int64_t read_back(const char *format, const char *dir,
			 const sl_options *o, int64_t *sum)
{
	char **files;
	int n, k;
	int64_t total = 0;
	sl_err err;
	*sum = 0;
	if (sl_format_list(dir, &files, &n, &err) != 0)
		return -1;
	for (k = 0; k < n; k++) {
		sl_batch *b = sl_format_read_file(format, files[k], schema, o, &err);
		int64_t i;
		if (b == NULL) {
			diag("read %s: %s", files[k], err.msg);
			total = -1;
			break;
		}
		for (i = 0; i < b->nrows; i++)
			*sum += sl_col_i64(b->cols[0])[i];
		total += b->nrows;
		sl_batch_free(b);
	}
	sl_format_list_free(files, n);
	return total;
}

static void test_file_errors(void)
{
	sl_options o;
	sl_options_init(&o);
	is_str(open_err(NULL, "json", &o, SL_MODE_APPEND, NULL),
	       "-2 'path' is not specified", "file sink: path required");
	sl_options_set(&o, "path", path("never"));
	is_str(open_err(NULL, "json", &o, SL_MODE_UPDATE, NULL),
	       "-3 [STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE] Invalid streaming "
	       "output mode: update. This output mode is not supported in Data "
	       "Source json. SQLSTATE: 42KDE",
	       "json sink: update mode refused, Spark's sentence");
	is_str(open_err(NULL, "csv", &o, SL_MODE_COMPLETE, NULL),
	       "-3 [STREAMING_OUTPUT_MODE.UNSUPPORTED_DATASOURCE] Invalid streaming "
	       "output mode: complete. This output mode is not supported in Data "
	       "Source csv. SQLSTATE: 42KDE",
	       "csv sink: complete mode refused, Spark's sentence");
	ok(!exists(path("never")), "file sink: a refused sink creates nothing");
	is_str(open_err(NULL, "orc", &o, SL_MODE_APPEND, NULL),
	       "-2 unknown sink format 'orc' (expected console, memory, json, "
	       "csv, parquet, noop)",
	       "unknown sink format lists the accepted ones");
	ok(sl_sink_known("console") && sl_sink_known("memory") &&
		   sl_sink_known("json") && sl_sink_known("CSV") &&
		   sl_sink_known("noop") && sl_sink_known("Parquet"),
	   "sl_sink_known: the six formats, any case");
	ok(!sl_sink_known("orc") && !sl_sink_known("foreachBatch") &&
		   !sl_sink_known(NULL),
	   "sl_sink_known: others are not");
	sl_options_release(&o);
}

static void test_json_sink(void)
{
	sl_batch *b2 = rows("{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y\"}\n");
	sl_batch *b1 = rows("{\"a\":40,\"b\":\"z\"}\n");
	sl_batch *b0 = sl_batch_empty(schema);
	char *dir = realpath(root, NULL), want[2048], sink[600], part0[700],
	     part2[700], part3[700];
	sl_options o;
	sl_err err;
	sl_sink *s;
	int64_t sum;
	snprintf(sink, sizeof sink, "%s/out dir", dir);
	snprintf(part0, sizeof part0, "%s/part-00000-qid-0.c000.json", sink);
	snprintf(part2, sizeof part2, "%s/part-00000-qid-2.c000.json", sink);
	snprintf(part3, sizeof part3, "%s/part-00000-qid-3.c000.json", sink);
	sl_options_init(&o);
	sl_options_set(&o, "path", path("out dir"));
	s = sl_sink_open(NULL, "json", &o, SL_MODE_APPEND, NULL, "qid", &err);
	ok(s != NULL, "json sink: opens (creates the directory)");
	snprintf(want, sizeof want, "FileSink[%s]", sink);
	is_str(describe(s), want, "json sink: description with the absolute path");
	ok(exists(path("out dir/_spark_metadata")), "json sink: log directory");
	is_str(add(s, 0, b2), "ok", "json sink: batch 0");
	is_str(add(s, 1, b0), "ok", "json sink: empty batch 1");
	is_str(add(s, 2, b1), "ok", "json sink: batch 2");
	is_str(slurp(part0), "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y\"}\n",
	       "json sink: part file of batch 0, json lines");
	ok(!exists(path("out dir/part-00000-qid-1.c000.json")),
	   "json sink: no part file for an empty batch");
	snprintf(want, sizeof want, "v1\n%s", log_line(part0));
	/* the space in "out dir" is %20 in the logged URI */
	{
		char *sp = strstr(want, "out dir");
		memmove(sp + 6, sp + 4, strlen(sp + 4) + 1);
		memcpy(sp + 3, "%20", 3);
	}
	is_str(slurp(path("out dir/_spark_metadata/0")), want,
	       "json sink: _spark_metadata/0 lists the part file (Spark's fields)");
	is_str(slurp(path("out dir/_spark_metadata/1")), "v1\n",
	       "json sink: _spark_metadata/1 of an empty batch is just v1");
	is_str(add(s, 2, b2), "skipped", "json sink: re-sent batch 2 skipped");
	is_str(add(s, 1, b2), "skipped", "json sink: older batch 1 skipped");
	sl_sink_close(s);

	/* a reopened sink reads the latest logged batch from the log */
	put(part3, "{\"a\":999,\"b\":\"half-written\"}\n");
	put(path("out dir/part-00000-stray.c000.json"), "{\"a\":1000}\n");
	s = sl_sink_open(NULL, "JSON", &o, SL_MODE_APPEND, NULL, "qid", &err);
	ok(s != NULL, "json sink: reopens");
	is_str(add(s, 2, b2), "skipped", "json sink: after reopen, batch 2 skipped");
	is_str(slurp(part2), "{\"a\":40,\"b\":\"z\"}\n",
	       "json sink: skipped batch left its file alone");
	is_str(add(s, 3, b1), "ok",
	       "json sink: batch 3 replaces an aborted attempt's part file");
	is_str(slurp(part3), "{\"a\":40,\"b\":\"z\"}\n",
	       "json sink: batch 3's part file has the batch's rows");
	sl_sink_close(s);
	is_str(ls(sink),
	       "part-00000-qid-0.c000.json part-00000-qid-2.c000.json "
	       "part-00000-qid-3.c000.json",
	       "json sink: readers list only logged files (stray file invisible)");
	is_int(read_back("json", sink, NULL, &sum), 4,
	       "json sink: reading the directory back sees every batch once");
	is_int(sum, 83, "json sink: the rows read back");
	ok(!exists(path("out dir/_spark_metadata/4")), "json sink: no log entry 4");
	sl_options_release(&o);
	free(dir);
	sl_batch_free(b2);
	sl_batch_free(b1);
	sl_batch_free(b0);
}

/* Lines of a log entry after "v1" that name files (count, or -1). */
static int entries(const char *file)
{
	const char *t = slurp(file), *p;
	int n = 0;
	if (t == NULL || strncmp(t, "v1\n", 3) != 0)
		return -1;
	for (p = t + 3; (p = strstr(p, "\"path\":")) != NULL; p++)
		n++;
	return n;
}

/* Spark's compactible log: with compactInterval 3, batches 2, 5, 8 are
 * N.compact holding every entry so far; Spark's reader, which opens only
 * the latest compact and what follows, sees every batch once, as ours. */
static void test_compaction(void)
{
	sl_session *sess = sl_session_new();
	sl_batch *b = rows("{\"a\":1,\"b\":\"x\"}\n");
	sl_options o;
	sl_err err;
	sl_sink *s;
	int64_t id, sum;
	char name[64];
	sl_session_conf_set(sess, "spark.sql.streaming.fileSink.log.compactInterval",
			    "3", &err);
	sl_options_init(&o);
	sl_options_set(&o, "path", path("compacted"));
	s = sl_sink_open(sl_session_sink_host(sess), "json", &o, SL_MODE_APPEND, NULL, "qid", &err);
	for (id = 0; id < 10; id++)
		add(s, id, id == 4 ? NULL : b); /* batch 4: no rows */
	ok(!exists(path("compacted/_spark_metadata/2")) &&
		   exists(path("compacted/_spark_metadata/2.compact")) &&
		   exists(path("compacted/_spark_metadata/5.compact")) &&
		   exists(path("compacted/_spark_metadata/8.compact")) &&
		   exists(path("compacted/_spark_metadata/9")),
	   "compaction: 2, 5, 8 are N.compact, the others plain");
	is_int(entries(path("compacted/_spark_metadata/2.compact")), 3,
	       "2.compact lists batches 0..2");
	is_int(entries(path("compacted/_spark_metadata/5.compact")), 5,
	       "5.compact: 2.compact's, 3's, 4's (none), its own");
	is_int(entries(path("compacted/_spark_metadata/8.compact")), 8,
	       "8.compact lists every file so far");
	is_int(entries(path("compacted/_spark_metadata/9")), 1,
	       "9 lists only its own");
	is_str(add(s, 8, b), "skipped", "a logged compaction batch is skipped");
	sl_sink_close(s);
	s = sl_sink_open(sl_session_sink_host(sess), "json", &o, SL_MODE_APPEND, NULL, "qid", &err);
	is_str(add(s, 8, b), "skipped", "also after a reopen");
	is_str(add(s, 10, b), "ok", "batch 10 after a reopen");
	sl_sink_close(s);
	/* Spark reads 8.compact, 9 and 10 only: drop everything older */
	for (id = 0; id < 8; id++) {
		snprintf(name, sizeof name, "compacted/_spark_metadata/%lld%s",
			 (long long)id, id % 3 == 2 ? ".compact" : "");
		unlink(path(name));
	}
	is_int(read_back("json", path("compacted"), NULL, &sum), 10,
	       "compaction: read as Spark does (latest compact and after)");
	is_int(sum, 10, "every non-empty batch once");
	sl_options_release(&o);
	sl_batch_free(b);
	sl_session_free(sess);
}

/* The log files Spark's deleteExpiredLog leaves after batch `last` with
 * compactInterval ci and minBatchesToRetain r, every batch from 0 logged:
 * the floor is the highest minCompactionBatchId any batch so far reached. */
static const char *spark_kept(int64_t last, int ci, int r)
{
	static char out[512];
	int64_t floor = 0, n, k;
	size_t len = 0;
	for (n = 0; n <= last; n++)
		if (ci <= n + 1 - r) {
			int64_t mb = n + 1 - r, mc = mb - mb % ci - 1;
			if (mc > floor)
				floor = mc;
		}
	out[0] = '\0';
	for (k = floor; k <= last; k++)
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%lld%s",
					len ? " " : "", (long long)k,
					(k + 1) % ci == 0 ? ".compact" : "");
	return out;
}

static int cmp_log(const void *a, const void *b)
{
	long long x = atoll(*(char *const *)a), y = atoll(*(char *const *)b);
	return x < y ? -1 : x > y;
}

/* The names in dir, sorted by batch id, and how many. */
static const char *ls_log(const char *dir, int *count)
{
	static char out[2048];
	char *names[256];
	int n = 0, k;
	size_t len = 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	out[0] = '\0';
	*count = 0;
	if (d == NULL)
		return "ERR";
	while ((de = readdir(d)) != NULL && n < 256)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof *names, cmp_log);
	for (k = 0; k < n; k++) {
		len += (size_t)snprintf(out + len, sizeof out - len, "%s%s",
					k ? " " : "", names[k]);
		free(names[k]);
	}
	*count = n;
	return out;
}

/* Spark's deleteExpiredLog with compactInterval 3, minBatchesToRetain 4:
 * after each of 30 batches (a restart at 15) exactly the files Spark
 * keeps remain, never more than 4 + 3 + 1, and the directory reads back
 * every row once; with fileSink.log.deletion false nothing is deleted. */
static void test_log_cleanup(void)
{
	sl_session *sess = sl_session_new();
	sl_options o;
	sl_err err;
	sl_sink *s;
	int64_t id, sum, want_sum = 0;
	int count, most = 0, wrong = 0, unread = 0;
	char row[64];
	sl_session_conf_set(sess, "spark.sql.streaming.fileSink.log.compactInterval",
			    "3", &err);
	sl_session_conf_set(sess, "spark.sql.streaming.minBatchesToRetain", "4",
			    &err);
	sl_options_init(&o);
	sl_options_set(&o, "path", path("cleaned"));
	s = sl_sink_open(sl_session_sink_host(sess), "json", &o, SL_MODE_APPEND,
			 NULL, "qid", &err);
	for (id = 0; id < 30; id++) {
		sl_batch *b;
		const char *got, *want;
		if (id == 15) { /* a restart: the sink reopens on its log */
			sl_sink_close(s);
			s = sl_sink_open(sl_session_sink_host(sess), "json", &o,
					 SL_MODE_APPEND, NULL, "qid", &err);
			is_str(add(s, 14, NULL), "skipped",
			       "cleanup: after a reopen the latest batch is skipped");
			is_str(add(s, 3, NULL), "skipped",
			       "cleanup: so is a batch whose entry was deleted");
		}
		snprintf(row, sizeof row, "{\"a\":%lld,\"b\":\"x\"}\n",
			 (long long)id + 1);
		b = rows(row);
		if (strcmp(add(s, id, id % 7 == 4 ? NULL : b), "ok") != 0)
			wrong++;
		if (id % 7 != 4)
			want_sum += id + 1;
		sl_batch_free(b);
		got = ls_log(path("cleaned/_spark_metadata"), &count);
		want = spark_kept(id, 3, 4);
		if (strcmp(got, want) != 0) {
			diag("after batch %lld: %s, Spark keeps %s",
			     (long long)id, got, want);
			wrong++;
		}
		if (count > most)
			most = count;
		if (read_back("json", path("cleaned"), NULL, &sum) < 0 ||
		    sum != want_sum) {
			diag("after batch %lld: sum %lld, want %lld",
			     (long long)id, (long long)sum, (long long)want_sum);
			unread++;
		}
	}
	is_int(wrong, 0, "cleanup: after each of 30 batches the log files are "
			 "exactly Spark's deleteExpiredLog's");
	is_str(ls_log(path("cleaned/_spark_metadata"), &count),
	       "23.compact 24 25 26.compact 27 28 29.compact",
	       "cleanup: after batch 29, 23.compact and what follows (29 a compact too)");
	ok(most <= 4 + 3 + 1, "cleanup: at most minBatchesToRetain + "
			      "compactInterval + 1 files (%d)", most);
	is_int(unread, 0, "cleanup: the directory reads every row once after "
			  "each batch");
	is_int(entries(path("cleaned/_spark_metadata/26.compact")), 23,
	       "26.compact still lists every file (Spark's compacts too)");
	sl_sink_close(s);
	sl_session_conf_set(sess, "spark.sql.streaming.fileSink.log.deletion",
			    "false", &err);
	sl_options_set(&o, "path", path("kept"));
	s = sl_sink_open(sl_session_sink_host(sess), "json", &o, SL_MODE_APPEND,
			 NULL, "qid", &err);
	for (id = 0; id < 12; id++)
		add(s, id, NULL);
	ls_log(path("kept/_spark_metadata"), &count);
	is_int(count, 12, "fileSink.log.deletion false: every log file stays");
	sl_sink_close(s);
	is_int(sl_session_conf_set(sess,
				   "spark.sql.streaming.fileSink.log.deletion",
				   "maybe", &err),
	       SL_EINVAL, "fileSink.log.deletion must be a boolean");
	sl_options_release(&o);
	sl_session_free(sess);
}

static void test_csv_sink(void)
{
	sl_batch *b2 = rows("{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y, z\"}\n");
	sl_options o;
	sl_err err;
	sl_sink *s;
	int64_t sum;
	char *dir;
	sl_options_init(&o);
	sl_options_set(&o, "path", path("csv"));
	sl_options_set(&o, "header", "true");
	s = sl_sink_open(NULL, "csv", &o, SL_MODE_APPEND, NULL, "q2", &err);
	ok(s != NULL, "csv sink: opens");
	is_str(add(s, 0, b2), "ok", "csv sink: batch 0");
	is_str(add(s, 1, b2), "ok", "csv sink: batch 1");
	sl_sink_close(s);
	is_str(slurp(path("csv/part-00000-q2-0.c000.csv")),
	       "a,b\n1,x\n2,\"y, z\"\n", "csv sink: header and quoting");
	dir = realpath(path("csv"), NULL);
	is_str(ls(dir), "part-00000-q2-0.c000.csv part-00000-q2-1.c000.csv",
	       "csv sink: part names");
	is_int(read_back("csv", dir, &o, &sum), 4, "csv sink: read back 4 rows");
	is_int(sum, 6, "csv sink: values read back");
	free(dir);
	sl_options_release(&o);
	sl_batch_free(b2);
}

/* ---- foreachBatch and noop ---- */

typedef struct seen {
	int64_t ids[8];
	int64_t rows[8];
	int n;
	int freed;
} seen;

static int on_batch(void *ud, sl_batch *data, int64_t batch_id, sl_err *err)
{
	seen *v = ud;
	if (batch_id == 13)
		return sl_err_set(err, SL_EUSER, "boom at %lld", (long long)batch_id);
	v->ids[v->n] = batch_id;
	v->rows[v->n++] = data->nrows;
	return 0;
}

static void free_seen(void *ud)
{
	((seen *)ud)->freed++;
}

static void test_foreach_noop(void)
{
	sl_batch *b2 = rows("{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":\"y\"}\n");
	seen v = {0};
	sl_err err;
	sl_sink *s = sl_sink_foreach_new(on_batch, &v, free_seen, SL_MODE_UPDATE,
					 &err);
	ok(s != NULL, "foreachBatch: new");
	is_str(describe(s), "ForeachBatchSink", "foreachBatch: description");
	is_str(add(s, 0, b2), "ok", "foreachBatch: batch 0");
	is_str(add(s, 0, b2), "ok", "foreachBatch: a re-run batch is called again");
	is_str(add(s, 13, b2), "boom at 13",
	       "foreachBatch: the callback's error fails the batch");
	is_int(v.n, 2, "foreachBatch: called twice");
	is_int(v.ids[1] * 10 + v.rows[1], 2, "foreachBatch: id and rows passed");
	is_int(v.freed, 0, "foreachBatch: ud alive while open");
	sl_sink_close(s);
	is_int(v.freed, 1, "foreachBatch: free_ud on close");
	ok(sl_sink_foreach_new(NULL, NULL, NULL, SL_MODE_APPEND, &err) == NULL,
	   "foreachBatch: a function is required");

	s = sl_sink_open(NULL, "noop", NULL, SL_MODE_COMPLETE, NULL, "qid", &err);
	ok(s != NULL, "noop: opens in any mode");
	is_str(describe(s), "NoopTable", "noop: description");
	is_str(add(s, 0, b2), "ok", "noop: takes a batch");
	is_str(add(s, 0, b2), "ok", "noop: and again");
	sl_sink_close(s);
	sl_sink_close(NULL);
	sl_batch_free(b2);
}

static int rm_entry(const char *p, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

int main(void)
{
	sl_session *sess;
	sl_err err;
	strcpy(root, "/tmp/t405-XXXXXX");
	if (mkdtemp(root) == NULL)
		return 1;
	schema = sl_type_parse_ddl("a BIGINT, b STRING", &err);
	test_file_errors();
	test_json_sink();
	test_csv_sink();
	test_compaction();
	test_log_cleanup();
	test_foreach_noop();
	sess = sl_session_new();
	ok(sess != NULL, "session");
	test_console(sess);
	test_memory(sess);
	sl_session_free(sess);
	sl_type_free(schema);
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
