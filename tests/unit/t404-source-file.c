/*
 * t404-source-file: the file stream source over a temp directory.  New
 * files are picked up in modification-time order (mtimes set with
 * utimensat), dot/underscore files are ignored, maxFilesPerTrigger splits
 * the files into log ids, latestFirst reverses, fileNameOnly matches by
 * name, maxFileAge follows Spark's SeenFilesMap, bad options give Spark's
 * sentences verbatim, and the metadata log (<metadir>/N) has Spark's
 * content and is read back after a restart.  The chunked reader under it
 * (sl_format_read_file_chunks) cuts a file after every max_lines lines
 * whatever their lengths: lines of 0 to 9,000 bytes, cuts inside and
 * across its 4 KiB counting blocks and 1 MiB reads, no final newline.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/batch.h"
#include "core/col.h"
#include "formats/fileformat.h"
#include "sources/source.h"
#include "tap.h"

static sl_err err;
static char root[64], real[PATH_MAX];

static char *pth(const char *rel)
{
	static char p[4][PATH_MAX + 64];
	static int k;
	k = (k + 1) & 3;
	snprintf(p[k], sizeof p[k], "%s/%s", real, rel);
	return p[k];
}

/* Write rel with text, modification time mtime seconds. */
static void put(const char *rel, const char *text, long mtime)
{
	struct timespec ts[2] = {{mtime, 0}, {mtime, 0}};
	FILE *f = fopen(pth(rel), "w");
	fputs(text, f);
	fclose(f);
	utimensat(AT_FDCWD, pth(rel), ts, 0);
}

static sl_source_desc *desc(const char *format, const char *dir,
			    const char *ddl, const char *const *kv)
{
	sl_options o;
	sl_type *st = ddl ? sl_type_parse_ddl(ddl, &err) : NULL;
	sl_source_desc *d;
	sl_options_init(&o);
	for (; kv && kv[0]; kv += 2)
		sl_options_set(&o, kv[0], kv[1]);
	d = sl_source_desc_new(format, dir ? pth(dir) : NULL, st, &o, &err);
	sl_options_release(&o);
	sl_type_free(st);
	return d;
}

static sl_source *open_src(const char *dir, const char *const *kv,
			   const char *meta)
{
	sl_source_desc *d = desc("json", dir, "a INT", kv);
	sl_source *s = d ? sl_source_open(d, NULL, meta ? pth(meta) : NULL, &err)
			 : NULL;
	sl_source_desc_free(d); /* a source keeps what it needs */
	return s;
}

static char *latest(sl_source *s)
{
	static char out[600];
	char *off = NULL;
	if (s->ops->latest(s, &off, &err) != 0)
		snprintf(out, sizeof out, "ERR %s", err.msg);
	else
		snprintf(out, sizeof out, "%s", off ? off : "NULL");
	free(off);
	return out;
}

static char *limit(sl_source *s, const char *start, const char *lat)
{
	static char out[600];
	char *end = NULL;
	if (s->ops->limit(s, start, lat, &end, &err) != 0)
		snprintf(out, sizeof out, "ERR %s", err.msg);
	else
		snprintf(out, sizeof out, "%s", end ? end : "NULL");
	free(end);
	return out;
}

/* The rows of (start, end] as "v1,v2,..." of column 0, or "ERR msg". */
static const char *rd(sl_source *s, const char *start, const char *end)
{
	static char out[1024];
	sl_batch_list l;
	size_t len = 0;
	sl_batch_list_init(&l);
	out[0] = '\0';
	if (s->ops->read(s, start, end, &l, &err) != 0) {
		snprintf(out, sizeof out, "ERR %s", err.msg);
		sl_batch_list_release(&l);
		return out;
	}
	for (int i = 0; i < l.n; i++)
		for (int64_t r = 0; r < l.b[i]->nrows; r++) {
			sl_buf b;
			sl_buf_init(&b);
			sl_value_show(l.b[i]->cols[0], r, &b);
			len += (size_t)snprintf(out + len, sizeof out - len, "%s%s",
						len ? "," : "", sl_buf_cstr(&b));
			sl_buf_release(&b);
		}
	sl_batch_list_release(&l);
	return out;
}

static const char *slurp(const char *rel)
{
	static char out[2048];
	FILE *f = fopen(pth(rel), "r");
	size_t n;
	if (f == NULL)
		return "(missing)";
	n = fread(out, 1, sizeof out - 1, f);
	out[n] = '\0';
	fclose(f);
	return out;
}

#define OFF(n) "{\"logOffset\":" #n "}"

static void test_errors(void)
{
	static const char *const mf0[] = {"maxFilesPerTrigger", "0", NULL};
	static const char *const mfa[] = {"maxFilesPerTrigger", "abc", NULL};
	static const char *const lf[] = {"latestFirst", "yes", NULL};
	static const char *const fno[] = {"fileNameOnly", "1", NULL};
	static const char *const age[] = {"maxFileAge", "forever", NULL};
	sl_source_desc *d;
	char want[PATH_MAX + 64];

	snprintf(want, sizeof want,
		 "[PATH_NOT_FOUND] Path does not exist: file:%s.", pth("nowhere"));
	mkdir(pth("e"), 0755);
	ok(desc("json", "e", NULL, NULL) == NULL, "file: json needs a schema");
	is_str(err.msg,
	       "Schema must be specified when creating a streaming source "
	       "DataFrame. If some files already exist in the directory, then "
	       "depending on the file format you may be able to create a static "
	       "DataFrame on that directory with 'spark.read.load(directory)' "
	       "and infer schema from it.",
	       "file: Spark's schema message");
	ok(desc("csv", "e", NULL, NULL) == NULL, "file: csv needs a schema");
	ok(desc("json", "nowhere", "a INT", NULL) == NULL &&
		   strcmp(err.msg, want) == 0,
	   "file: missing directory: %s", err.msg);
	ok(sl_source_desc_new("json", NULL, NULL, NULL, &err) == NULL,
	   "file: no path");
	is_str(err.msg, "'path' is not specified", "file: Spark's path message");
	ok(desc("json", "e", "a INT", mf0) == NULL, "file: maxFilesPerTrigger 0");
	is_str(err.msg, "Invalid value '0' for option 'maxFilesPerTrigger', "
			"must be a positive integer",
	       "file: Spark's maxFilesPerTrigger message");
	ok(desc("json", "e", "a INT", mfa) == NULL, "file: maxFilesPerTrigger abc");
	is_str(err.msg, "Invalid value 'abc' for option 'maxFilesPerTrigger', "
			"must be a positive integer",
	       "file: non-number maxFilesPerTrigger");
	ok(desc("json", "e", "a INT", lf) == NULL, "file: latestFirst yes");
	is_str(err.msg, "Invalid value 'yes' for option 'latestFirst', must be "
			"true or false",
	       "file: Spark's boolean option message");
	ok(desc("json", "e", "a INT", fno) == NULL &&
		   strstr(err.msg, "'fileNameOnly'") && strstr(err.msg, "'1'"),
	   "file: fileNameOnly 1: %s", err.msg);
	ok(desc("json", "e", "a INT", age) == NULL &&
		   strstr(err.msg, "'maxFileAge'") && strstr(err.msg, "forever"),
	   "file: bad maxFileAge: %s", err.msg);
	ok(desc("text", "e", "a STRING, b STRING", NULL) == NULL &&
		   strstr(err.msg, "single column"),
	   "file: text takes one string column: %s", err.msg);
	d = desc("text", "e", NULL, NULL);
	ok(d != NULL, "file: text needs no schema");
	if (d) {
		sl_buf b;
		sl_buf_init(&b);
		sl_type_ddl(sl_source_desc_schema(d), &b);
		is_str(sl_buf_cstr(&b), "value STRING", "file: text schema");
		sl_buf_release(&b);
		is_str(sl_source_desc_path(d), pth("e"), "file: absolute path");
	}
	sl_source_desc_free(d);
}

static void test_order(void)
{
	sl_source *s;
	sl_buf b;
	char want[PATH_MAX + 64];

	mkdir(pth("a"), 0755);
	mkdir(pth("a/sub"), 0755);
	put("a/a.json", "{\"a\":3}\n", 300);
	put("a/b.json", "{\"a\":1}\n", 100);
	put("a/c.json", "{\"a\":2}\n", 200);
	put("a/.hidden.json", "{\"a\":90}\n", 50);
	put("a/_tmp.json", "{\"a\":91}\n", 60);
	put("a/sub/x.json", "{\"a\":92}\n", 70);
	s = open_src("a", NULL, NULL);
	ok(s != NULL && s->replayable, "file: opens, replayable");
	sl_buf_init(&b);
	s->ops->describe(s, &b);
	snprintf(want, sizeof want, "FileStreamSource[file:%s]", pth("a"));
	is_str(sl_buf_cstr(&b), want, "file: description");
	sl_buf_release(&b);
	is_str(latest(s), OFF(0), "file: first listing is log id 0");
	is_str(limit(s, NULL, OFF(0)), OFF(0), "file: no limit, no change");
	/* a subdirectory's files count: Spark's InMemoryFileIndex lists leaf
	 * files recursively (FileStreamSourceSuite "read new files in
	 * partitioned table without globbing") */
	is_str(rd(s, NULL, OFF(0)), "92,1,2,3",
	       "file: oldest first; dot, underscore ignored, subdirectory read");
	is_str(latest(s), OFF(0), "file: nothing new, same offset");
	put("a/d.json", "{\"a\":4}\n{\"a\":5}\n", 50);
	is_str(latest(s), OFF(1), "file: a new (even older) file -> id 1");
	is_str(rd(s, OFF(0), OFF(1)), "4,5", "file: the new file only");
	is_str(rd(s, NULL, OFF(0)), "92,1,2,3", "file: replay of id 0");
	is_str(rd(s, NULL, OFF(1)), "92,1,2,3,4,5", "file: replay of both");
	put("a/d.json", "{\"a\":6}\n", 400);
	is_str(latest(s), OFF(1), "file: a rewritten file is not taken twice");
	unlink(pth("a/b.json"));
	ok(strncmp(rd(s, NULL, OFF(0)), "ERR ", 4) == 0 &&
		   strstr(err.msg, pth("a/b.json")),
	   "file: a vanished file is named: %s", err.msg);
	ok(strncmp(rd(s, OFF(1), OFF(3)), "ERR ", 4) == 0,
	   "file: ids with no new files fail: %s", err.msg);
	sl_source_close(s);
}

static void test_limits(void)
{
	static const char *const two[] = {"maxFilesPerTrigger", "2", NULL};
	static const char *const lf2[] = {"maxFilesPerTrigger", "2",
					  "latestFirst", "true", NULL};
	sl_source *s;
	char name[32], text[32];

	mkdir(pth("m"), 0755);
	for (int i = 1; i <= 5; i++) {
		snprintf(name, sizeof name, "m/f%d.json", 6 - i); /* names reversed */
		snprintf(text, sizeof text, "{\"a\":%d}\n", i);
		put(name, text, 10L * i);
	}
	s = open_src("m", two, NULL);
	is_str(latest(s), OFF(2), "limit: 5 files make ids 0..2");
	is_str(limit(s, NULL, OFF(2)), OFF(0), "limit: one id per batch");
	is_str(latest(s), OFF(2), "limit: planning is pure");
	is_str(rd(s, NULL, OFF(0)), "1,2", "limit: two oldest files");
	is_str(latest(s), OFF(2), "limit: 3 left -> ids 1..2");
	is_str(limit(s, OFF(0), OFF(2)), OFF(1), "limit: next id");
	is_str(rd(s, OFF(0), OFF(1)), "3,4", "limit: next two");
	is_str(rd(s, OFF(1), OFF(2)), "5", "limit: the last one");
	is_str(latest(s), OFF(2), "limit: all taken");
	sl_source_close(s);

	s = open_src("m", two, NULL);
	latest(s);
	is_str(rd(s, NULL, OFF(2)), "1,2,3,4,5",
	       "limit: Trigger.Once takes every id up to latest");
	sl_source_close(s);

	s = open_src("m", lf2, NULL);
	is_str(latest(s), OFF(2), "latestFirst: same ids");
	is_str(rd(s, NULL, OFF(0)), "5,4", "latestFirst: newest two first");
	is_str(rd(s, OFF(0), OFF(1)), "3,2", "latestFirst: then the next");
	is_str(rd(s, OFF(1), OFF(2)), "1", "latestFirst: oldest last");
	sl_source_close(s);
}

static void test_age(void)
{
	static const char *const h1[] = {"maxFileAge", "1h", NULL};
	static const char *const ign[] = {"maxFileAge", "1h", "latestFirst",
					  "true", "maxFilesPerTrigger", "10",
					  NULL};
	sl_source *s, *t;

	mkdir(pth("g"), 0755);
	put("g/old.json", "{\"a\":1}\n", 1000);
	put("g/new.json", "{\"a\":2}\n", 10000);
	s = open_src("g", h1, NULL);
	t = open_src("g", ign, NULL);
	is_str(latest(s), OFF(0), "maxFileAge: first batch");
	is_str(rd(s, NULL, OFF(0)), "1,2",
	       "maxFileAge: every file is valid for the first batch");
	put("g/c1.json", "{\"a\":3}\n", 5000); /* < 10000 - 3600 */
	is_str(latest(s), OFF(0), "maxFileAge: too old vs the newest file");
	put("g/c2.json", "{\"a\":4}\n", 7000);
	is_str(latest(s), OFF(1), "maxFileAge: young enough");
	is_str(rd(s, OFF(0), OFF(1)), "4", "maxFileAge: only the young one");

	latest(t);
	is_str(limit(t, NULL, OFF(0)), OFF(0), "maxFileAge ignored: one id");
	is_str(rd(t, NULL, OFF(0)), "2,4,3,1", "maxFileAge ignored: newest first");
	put("g/c3.json", "{\"a\":5}\n", 100);
	is_str(latest(t), OFF(1),
	       "maxFileAge ignored with latestFirst + maxFilesPerTrigger");
	is_str(latest(s), OFF(1), "maxFileAge: the very old file is not new");
	sl_source_close(s);
	sl_source_close(t);
}

static void test_log(void)
{
	static const char *const fno[] = {"fileNameOnly", "true", NULL};
	sl_source *s;
	char want[3 * PATH_MAX];

	mkdir(pth("d"), 0755);
	mkdir(pth("d2"), 0755);
	put("d/x.json", "{\"a\":1}\n", 100);
	put("d/y z.json", "{\"a\":2}\n", 200);
	s = open_src("d", NULL, "ck/sources/0");
	ok(s != NULL, "log: opens with a metadata dir (created)");
	is_str(latest(s), OFF(0), "log: id 0");
	is_str(slurp("ck/sources/0/0"), "(missing)", "log: latest writes nothing");
	is_str(rd(s, NULL, OFF(0)), "1,2", "log: read id 0");
	snprintf(want, sizeof want,
		 "v1\n{\"path\":\"file://%s\",\"timestamp\":100000,\"batchId\":0}"
		 "\n{\"path\":\"file://%s/y%%20z.json\",\"timestamp\":200000,"
		 "\"batchId\":0}",
		 pth("d/x.json"), pth("d"));
	is_str(slurp("ck/sources/0/0"), want, "log: Spark's file source log");
	sl_source_close(s);

	s = open_src("d", NULL, "ck/sources/0");
	is_str(latest(s), OFF(0), "log: restart knows the files taken");
	is_str(rd(s, NULL, OFF(0)), "1,2", "log: restart replays id 0 from the log");
	put("d/w.json", "{\"a\":3}\n", 50);
	is_str(rd(s, OFF(0), OFF(1)), "3",
	       "log: an id planned before a crash is assigned at read");
	ok(strstr(slurp("ck/sources/0/1"), "w.json\",\"timestamp\":50000,"
					   "\"batchId\":1}") != NULL,
	   "log: id 1 written");
	sl_source_close(s);

	/* the same names under another directory */
	put("d2/x.json", "{\"a\":7}\n", 500);
	put("d2/v.json", "{\"a\":8}\n", 600);
	s = open_src("d2", NULL, "ck/sources/0");
	is_str(latest(s), OFF(2), "fileNameOnly off: both files are new");
	sl_source_close(s);
	s = open_src("d2", fno, "ck/sources/0");
	is_str(latest(s), OFF(2), "fileNameOnly: one new file, id 2");
	is_str(rd(s, OFF(1), OFF(2)), "8", "fileNameOnly: x.json already seen");
	sl_source_close(s);
}

static void test_formats(void)
{
	static const char *const hdr[] = {"header", "true", NULL};
	sl_source_desc *d;
	sl_source *s;

	mkdir(pth("c"), 0755);
	put("c/p.csv", "a,b\n1,x\n2,y\n", 10);
	d = desc("csv", "c", "a INT, b STRING", hdr);
	s = sl_source_open(d, NULL, NULL, &err);
	latest(s);
	is_str(rd(s, NULL, OFF(0)), "1,2", "csv: reader options pass through");
	sl_source_close(s);
	sl_source_desc_free(d);

	mkdir(pth("t"), 0755);
	put("t/l.txt", "one\ntwo\n", 10);
	d = desc("text", "t", NULL, NULL);
	s = sl_source_open(d, NULL, NULL, &err);
	latest(s);
	is_str(rd(s, NULL, OFF(0)), "one,two", "text: lines");
	sl_source_close(s);
	sl_source_desc_free(d);

	mkdir(pth("j"), 0755);
	put("j/bad.json", "{\"a\":1}\n{oops\n", 10);
	{
		static const char *const ff[] = {"mode", "FAILFAST", NULL};
		d = desc("json", "j", "a INT", ff);
		s = sl_source_open(d, NULL, NULL, &err);
		latest(s);
		ok(strncmp(rd(s, NULL, OFF(0)), "ERR ", 4) == 0 &&
			   strstr(err.msg, "bad.json"),
		   "json FAILFAST: the error names the file: %s", err.msg);
		sl_source_close(s);
		sl_source_desc_free(d);
	}
}

/* What the chunks of one read held. */
typedef struct chunks {
	int64_t max, rows, nchunks, bad; /* bad: chunks of a wrong size */
	int64_t total;                   /* rows the file has */
	uint64_t sum;                    /* over rows: row number * length */
} chunks;

static int chunk_take(void *ctx, sl_batch *b, sl_err *e)
{
	chunks *c = ctx;
	(void)e;
	c->nchunks++;
	/* every chunk but the last holds max lines */
	if (b->nrows > c->max ||
	    (b->nrows < c->max && c->rows + b->nrows != c->total))
		c->bad++;
	for (int64_t i = 0; i < b->nrows; i++, c->rows++)
		c->sum += (uint64_t)(c->rows + 1) *
			  (sl_col_str(b->cols[0])[i].len + 1);
	sl_batch_free(b);
	return 0;
}

/* Lines to about size bytes at text + len: short ones (0-20 bytes) and
 * now and then one of up to 9,000; *nl and *sum count them as chunk_take
 * does. */
static size_t gen_lines(char *text, size_t len, size_t size, uint64_t *rng,
			int64_t *nl, uint64_t *sum)
{
	while (len < size) {
		size_t n;
		*rng = *rng * 6364136223846793005u + 1442695040888963407u;
		n = (*rng >> 33) % 256 == 0 ? (size_t)(*rng >> 40) % 9000
					    : (size_t)(*rng >> 40) % 21;
		for (size_t k = 0; k < n; k++)
			text[len + k] = (char)('a' + (k + (size_t)*nl) % 26);
		len += n;
		text[len++] = '\n';
		*sum += (uint64_t)++*nl * (n + 1);
	}
	return len;
}

static void test_chunks(void)
{
	/* 1-100 over 200 KB; 1000 and 65536 over 3 MB (cuts across reads) */
	static const int64_t maxes[] = { 1, 2, 3, 7, 100, 1000, 65536 };
	uint64_t rng = 7, sum = 0;
	int64_t nl = 0;
	size_t len = 0;
	char *text = malloc((size_t)4 << 20), *path = pth("chunks.txt");
	FILE *f;
	for (int big = 0; big < 2; big++) {
		len = gen_lines(text, len, big ? (size_t)3 << 20 : 200000, &rng,
				&nl, &sum);
		for (int last = 0; last < 2; last++) {
			int64_t n = nl;
			uint64_t sm = sum;
			size_t l = len;
			if (last) {
				/* no newline at the end: a line of 5 bytes */
				memcpy(text + l, "tail!", 5);
				l += 5;
				sm += (uint64_t)++n * 6;
			}
			f = fopen(path, "w");
			fwrite(text, 1, l, f);
			fclose(f);
			for (size_t m = big ? 5 : 0;
			     m < (big ? 7 : 5); m++) {
				chunks c = { .max = maxes[m], .total = n };
				int rc = sl_format_read_file_chunks(
				    "text", path, NULL, NULL, NULL, maxes[m],
				    chunk_take, &c, &err);
				ok(rc == 0 && c.rows == n && c.sum == sm &&
				       c.bad == 0 &&
				       c.nchunks ==
					   (n + maxes[m] - 1) / maxes[m],
				   "chunks of %lld lines%s: %lld lines in "
				   "%lld chunks, each line once, in order",
				   (long long)maxes[m],
				   last ? ", no final newline" : "",
				   (long long)c.rows, (long long)c.nchunks);
			}
		}
	}
	free(text);
}

int main(void)
{
	char cmd[128];
	snprintf(root, sizeof root, "/tmp/t404-XXXXXX");
	if (mkdtemp(root) == NULL || realpath(root, real) == NULL)
		return 1;
	test_errors();
	test_order();
	test_limits();
	test_age();
	test_log();
	test_formats();
	test_chunks();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ok(system(cmd) == 0, "cleanup");
	return done_testing();
}
