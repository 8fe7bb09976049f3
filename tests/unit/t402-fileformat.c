/*
 * t402-fileformat: listing (plain and through _spark_metadata), inference
 * over files, reading files (errors name them), text, durable writes and
 * DataFrameWriter save modes.  Works in a mkdtemp directory under /tmp.
 */
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/fileformat.h"
#include "tap.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;
	snprintf(p, sizeof p, "%s/%s", root, rel);
	f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
}

static void mk(const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	mkdir(p, 0755);
}

static char *path(const char *rel)
{
	static char p[4][512];
	static int k;
	k = (k + 1) & 3;
	snprintf(p[k], sizeof p[k], "%s/%s", root, rel);
	return p[k];
}

/* Listed names relative to root, joined by spaces. */
static const char *ls(const char *rel, sl_err *err)
{
	static char out[1024];
	char **files;
	int n, k, rc;
	size_t rl = strlen(root) + 1;
	rc = sl_format_list(path(rel), &files, &n, err);
	if (rc != 0) {
		snprintf(out, sizeof out, "ERR %s", err->msg);
		return out;
	}
	out[0] = '\0';
	for (k = 0; k < n; k++) {
		if (k)
			strcat(out, " ");
		strcat(out, strncmp(files[k], root, rl - 1) == 0 ? files[k] + rl : files[k]);
	}
	sl_format_list_free(files, n);
	return out;
}

static const char *dump(const sl_batch *b)
{
	static char out[4096];
	sl_buf s;
	int64_t i;
	int k;
	if (b == NULL)
		return "(null)";
	sl_buf_init(&s);
	for (i = 0; i < b->nrows; i++) {
		for (k = 0; k < b->ncols; k++) {
			if (k)
				sl_buf_addc(&s, '|');
			sl_value_show(b->cols[k], i, &s);
		}
		sl_buf_addc(&s, ';');
	}
	snprintf(out, sizeof out, "%s", sl_buf_cstr(&s));
	sl_buf_release(&s);
	return out;
}

static void test_list(void)
{
	sl_err err;
	char want[600];
	mk("in");
	put("in/b.json", "{\"a\":2}\n");
	put("in/a.json", "{\"a\":1}\n");
	put("in/.hidden", "x");
	put("in/_temp", "x");
	mk("in/sub");
	is_str(ls("in", &err), "in/a.json in/b.json",
	       "directory: regular files, hidden ones skipped, sorted");
	is_str(ls("in/a.json", &err), "in/a.json", "a single file");
	snprintf(want, sizeof want,
		 "ERR [PATH_NOT_FOUND] Path does not exist: file:%s/nope.", root);
	is_str(ls("nope", &err), want, "missing path: Spark's message");
	is_int(err.code, SL_EANALYSIS, "missing path is an AnalysisException");

	mk("sink");
	mk("sink/_spark_metadata");
	put("sink/part-0.json", "{\"a\":1}\n");
	put("sink/part-1.json", "{\"a\":2}\n");
	put("sink/part-2.json", "{\"a\":3}\n");
	put("sink/orphan.json", "{\"a\":9}\n");
	{
		char log0[600], log1[600];
		snprintf(log0, sizeof log0,
			 "v1\n{\"path\":\"file://%s/sink/part-0.json\",\"size\":8,"
			 "\"isDir\":false,\"modificationTime\":1,\"blockReplication\":1,"
			 "\"blockSize\":1,\"action\":\"add\"}\n"
			 "{\"path\":\"file:%s/sink/part-1.json\",\"action\":\"add\"}\n",
			 root, root);
		/* a compact holds the entries before it (the reader, as
		 * Spark's allFiles, starts at the latest compact) */
		snprintf(log1, sizeof log1,
			 "v1\n{\"path\":\"file:%s/sink/part-1.json\",\"action\":\"add\"}\n"
			 "{\"path\":\"%s/sink/part-2.json\",\"action\":\"add\"}\n"
			 "{\"path\":\"%s/sink/part-0.json\",\"action\":\"delete\"}\n",
			 root, root, root);
		put("sink/_spark_metadata/0", log0);
		put("sink/_spark_metadata/1.compact", log1);
		put("sink/_spark_metadata/.1.tmp", "garbage");
	}
	is_str(ls("sink", &err), "sink/part-1.json sink/part-2.json",
	       "_spark_metadata: adds minus deletes, orphan files invisible");
	{
		/* a compact that left part-1 out (the sink's retention
		 * option): the plain entry before it is not read */
		char log1[600];
		snprintf(log1, sizeof log1,
			 "v1\n{\"path\":\"%s/sink/part-2.json\",\"action\":\"add\"}\n",
			 root);
		put("sink/_spark_metadata/1.compact", log1);
	}
	is_str(ls("sink", &err), "sink/part-2.json",
	       "_spark_metadata: the latest compact and what follows, as Spark's allFiles");
	put("sink/_spark_metadata/2", "v7\n");
	is_str(strncmp(ls("sink", &err), "ERR file sink log", 17) == 0 ? "ok" : ls("sink", &err),
	       "ok", "unsupported log version is an error");
}

static void test_read_infer(void)
{
	sl_err err;
	char **files;
	int n;
	sl_type *t;
	sl_buf s;
	sl_batch *b;
	char want[600];
	put("in/b.json", "{\"a\":2,\"z\":\"q\"}\n{bad\n");
	sl_format_list(path("in"), &files, &n, &err);
	t = sl_format_infer("json", files, n, NULL, &err);
	sl_buf_init(&s);
	sl_type_ddl(t, &s);
	is_str(sl_buf_cstr(&s), "_corrupt_record STRING, a BIGINT, z STRING",
	       "infer json over two files");
	b = sl_format_read_file("json", files[1], t, NULL, &err);
	is_str(dump(b), "null|2|q;{bad|null|null;", "read_file with the inferred schema");
	sl_batch_free(b);
	sl_type_free(t);
	sl_format_list_free(files, n);
	sl_buf_release(&s);

	t = sl_format_infer("json", NULL, 0, NULL, &err);
	is_str(t ? "?" : err.msg,
	       "[UNABLE_TO_INFER_SCHEMA] Unable to infer schema for JSON. It must "
	       "be specified manually.", "no files: Spark's message");

	put("c.csv", "id,n\nx,1\ny,2\n");
	{
		sl_options o;
		char *f = path("c.csv");
		sl_options_init(&o);
		sl_options_set(&o, "header", "true");
		sl_options_set(&o, "inferSchema", "true");
		t = sl_format_infer("csv", &f, 1, &o, &err);
		sl_buf_init(&s);
		sl_type_ddl(t, &s);
		is_str(sl_buf_cstr(&s), "id STRING, n INT", "infer csv from a file");
		b = sl_format_read_file("csv", f, t, &o, &err);
		is_str(dump(b), "x|1;y|2;", "read csv file");
		sl_batch_free(b);
		sl_buf_release(&s);
		sl_type_free(t);
		sl_options_release(&o);
	}
	t = sl_type_parse_ddl("a INT", NULL);
	b = sl_format_read_file("json", path("missing.json"), t, NULL, &err);
	snprintf(want, sizeof want, "cannot read '%s/missing.json': No such file or directory", root);
	ok(b == NULL, "missing file fails");
	is_str(err.msg, want, "error names the file");
	is_int(err.code, SL_EIO, "as SL_EIO");
	sl_type_free(t);

	put("t.txt", "one\r\n\ntwo  \nthree");
	b = sl_format_read_file("text", path("t.txt"), NULL, NULL, &err);
	is_str(dump(b), "one;;two  ;three;", "text: a row per line");
	is_str(b ? b->schema->fields[0].name : "", "value", "column 'value'");
	sl_batch_free(b);
}

static void test_write(void)
{
	sl_err err;
	sl_type *t = sl_type_parse_ddl("a INT, s STRING, t TIMESTAMP", NULL);
	const char *src = "{\"a\":1,\"s\":\"x\",\"t\":\"2026-01-01 12:00:00\"}\n{\"a\":2}\n";
	sl_batch *b = sl_format_read_buf("json", "x", src, strlen(src), t, NULL, NULL);
	sl_batch *e = sl_batch_empty(t), *r;
	char **files;
	int n, parts = 0;
	char want[600];
	DIR *d;
	struct dirent *de;

	is_int(sl_format_write_file("json", path("w.json"), b, NULL, &err), 0,
	       "write_file");
	r = sl_format_read_file("json", path("w.json"), t, NULL, &err);
	is_str(dump(r), "1|x|2026-01-01 12:00:00;2|null|null;", "json round trip via file");
	sl_batch_free(r);
	is_int(sl_format_write_file("json", path("w.json"), b, NULL, &err), SL_EIO,
	       "write_file refuses to replace");

	is_int(sl_format_write_dir("csv", path("out"), NULL, b, NULL, &err), 0,
	       "write_dir into a new directory");
	d = opendir(path("out"));
	while (d && (de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "part-00000-", 11) == 0 &&
		    strlen(de->d_name) == 11 + 36 + 9 &&
		    strcmp(de->d_name + 47, "-c000.csv") == 0 && de->d_name[25] == '4')
			parts++;
	if (d)
		closedir(d);
	is_int(parts, 1, "one part-00000-<uuid v4>-c000.csv");
	ok(access(path("out/_SUCCESS"), F_OK) == 0, "_SUCCESS written");
	is_int(sl_format_write_dir("csv", path("out"), "error", b, NULL, &err),
	       SL_EANALYSIS, "mode error on an existing path");
	snprintf(want, sizeof want, "path file:%s/out already exists.", root);
	is_str(err.msg, want, "its message");
	is_int(sl_format_write_dir("csv", path("out"), "ignore", b, NULL, &err), 0,
	       "mode ignore");
	is_int(sl_format_write_dir("csv", path("out"), "append", b, NULL, &err), 0,
	       "mode append");
	sl_format_list(path("out"), &files, &n, &err);
	is_int(n, 2, "append adds a part file");
	sl_format_list_free(files, n);
	is_int(sl_format_write_dir("csv", path("out"), "overwrite", e, NULL, &err), 0,
	       "mode overwrite with an empty batch");
	sl_format_list(path("out"), &files, &n, &err);
	is_int(n, 0, "empty batch: no part file");
	sl_format_list_free(files, n);
	ok(access(path("out/_SUCCESS"), F_OK) == 0, "but _SUCCESS");
	is_int(sl_format_write_dir("csv", path("out"), "sideways", b, NULL, &err),
	       SL_EINVAL, "unknown save mode");
	is_int(sl_format_write_dir("json", path("out2"), "overwrite", b, NULL, &err), 0,
	       "overwrite a missing dir");
	sl_format_list(path("out2"), &files, &n, &err);
	r = n == 1 ? sl_format_read_file("json", files[0], t, NULL, &err) : NULL;
	is_str(dump(r), "1|x|2026-01-01 12:00:00;2|null|null;", "json dir round trip");
	sl_batch_free(r);
	sl_format_list_free(files, n);
	sl_batch_free(b);
	sl_batch_free(e);
	sl_type_free(t);
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

int main(void)
{
	snprintf(root, sizeof root, "/tmp/t402-XXXXXX");
	if (mkdtemp(root) == NULL)
		return 1;
	ok(sl_format_known("json") && sl_format_known("CSV") &&
	   sl_format_known("text") && sl_format_known("parquet") &&
	       !sl_format_known("orc"),
	   "known formats");
	test_list();
	test_read_infer();
	test_write();
	nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return done_testing();
}
